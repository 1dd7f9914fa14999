"""The model ``signoff research`` asks: made from ``--model``, ``--price`` and ``--timeout``
(the offline extractive reader unless a provider's is named), or, going on with a task after a
decision or a stop, the one the task kept (`going_on_with`). Each mistake in naming one is a
usage error that says what to give (`signoff.cli.failures.Misuse`, ``click.BadParameter``). A
model made from a spec closes its connections as the command ends (`closed_with_command`;
``signoff run --model`` too)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import click

from signoff.cli.failures import Misuse
from signoff.cli.research_shown import Progress
from signoff.exceptions import SignoffError
from signoff.models import Model, ModelNotConfigured, Price

__all__ = ["closed_with_command", "going_on_with", "is_offline", "is_offline_spec", "model_of", "price_of"]


def price_of(spec: str | None) -> Price | None:
    """The price ``--price`` `spec` gives ("0.15,0.60"), or None when none is given."""
    from signoff.models.choose import price_from
    from signoff.models.errors import ModelNotConfigured

    if spec is None:
        return None
    try:
        return price_from(spec)
    except ModelNotConfigured as error:
        raise click.BadParameter(str(error), param_hint="--price") from None


def model_of(spec: str, price: Price | None = None,
             on_text: Callable[[str], None] | None = None, *, timeout: float | None = None,
             total_timeout: float | None = None) -> Model:
    """The model ``--model`` `spec` names, at `price` (which wins over the table), its text
    streamed to `on_text`, waited for `timeout` seconds (`total_timeout` in all) when given."""
    from signoff.research.extractive import ExtractiveModel

    if is_offline_spec(spec):
        return ExtractiveModel()
    try:  # the providers are optional: imported only when asked for
        choose = importlib.import_module("signoff.models.choose")
    except ImportError:
        raise click.BadParameter(f"{spec!r}: only “offline” is available in this installation.",
                                 param_hint="--model") from None
    try:
        chosen = choose.model_from(spec, price=price, on_text=on_text, timeout=timeout,
                                   total_timeout=total_timeout)
    except SignoffError as error:  # (a model understood, its key or server not set: no usage)
        if isinstance(error, ModelNotConfigured) and error.model:
            raise Misuse(error.message) from None
        raise click.BadParameter(str(error), param_hint="--model") from None
    closed_with_command(chosen)
    if isinstance(chosen, Model) and chosen.price is None:
        raise click.BadParameter(
            f"The price of {chosen.name} is not known, so its cost cannot be kept within the "
            "budget: give it with --price IN,OUT (US dollars per million input and output "
            "tokens, e.g. --price 0.15,0.60; 0,0 for a model of your own).", param_hint="--price")
    return chosen if isinstance(chosen, Model) else ExtractiveModel()


def closed_with_command(model: object) -> None:
    """Close the connections `model` holds (a provider's) when the command that made it
    ends, so that none is left open for the interpreter to find."""
    close = getattr(model, "close", None)
    context = click.get_current_context(silent=True)
    if callable(close) and context is not None:
        context.call_on_close(close)


def is_offline_spec(spec: str) -> bool:
    """Whether ``--model`` `spec` names the offline reader."""
    return spec.strip().lower() in ("", "offline")


def is_offline(model: Model) -> bool:
    """Whether `model` is the offline extractive reader."""
    from signoff.research.extractive import ExtractiveModel

    return isinstance(model, ExtractiveModel)


def going_on_with(task: str, model_spec: str | None, price_spec: str | None, kept: Any,
                  show: Progress, started_with: str = "", timeout: float | None = None
                  ) -> Model:
    """The model research task `task` goes on with: the one `--model` names (waiting for it
    `timeout` seconds, when given), else the one it was started with (`kept`, by its spec, its
    timeouts too; the offline reader, by the name the task keeps, `started_with`); a usage
    error saying what to do when there is none, or it cannot be made."""
    if model_spec is not None:
        return model_of(model_spec, price_of(price_spec),
                        None if show.quiet else show.streamed, timeout=timeout)
    if kept is None or not kept.spec:
        if started_with == (offline := model_of("offline")).name:  # (which keeps no spec)
            return offline
        raise Misuse(f"Research task {task} keeps no model to go on with (it was started with "
                     "a model given in code, or before research kept its model with the task): "
                     "name the one it was researched with, --model SPEC (--model offline for "
                     "the reader; --price IN,OUT if it needs one), and run it again.")
    try:
        return model_of(kept.spec, kept.price, None if show.quiet else show.streamed,
                        timeout=kept.timeout, total_timeout=kept.total_timeout)
    except (click.BadParameter, Misuse) as error:
        raise Misuse(f"Research task {task} goes on with {kept.words}, which cannot be made "
                     f"here: {error.message} Set what it needs and decide again, or name another "
                     "model with --model SPEC.") from None
