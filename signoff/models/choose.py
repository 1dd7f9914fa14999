"""Choosing a model from words: ``--model openai:gpt-4o-mini`` and the environment.

==============================================  =========================================
spec                                            model
==============================================  =========================================
``None``, ``""``, ``offline``                   None: the caller's offline model
``openai:gpt-4o-mini``                          OpenAI, key from ``OPENAI_API_KEY``
``anthropic:claude-sonnet-4-5``                 Anthropic, key from ``ANTHROPIC_API_KEY``
``openai-compatible:llama3@http://host/v1``     any OpenAI-compatible server at that URL
``openai-compatible:llama3``                    the same, at ``base_url=`` or ``OPENAI_BASE_URL``
``gpt-4o-mini``, ``claude-sonnet-4-5``          the provider guessed from the name
==============================================  =========================================

A bare name is taken (`model_from`); the command line's ``--model`` asks for ``provider:name``,
and refuses one naming the spec to write (`with_its_provider`).
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any

from signoff._extras import install_extra
from signoff.models._provider import OnText
from signoff.models.anthropic import AnthropicModel
from signoff.models.base import Model, Price
from signoff.models.errors import ModelNotConfigured
from signoff.models.openai_compatible import OpenAICompatibleModel, OpenAIModel
from signoff.models.retries import Retries

__all__ = ["PROVIDERS", "model_from", "price_from", "with_its_provider"]

PROVIDERS = ("openai", "anthropic", "openai-compatible")
"""The providers a spec may name."""

_OPENAI_PREFIXES = ("gpt-", "o1", "o3", "o4", "chatgpt-")


def model_from(
    spec: str | None,
    *,
    price: Price | None = None,
    base_url: str | None = None,
    on_text: OnText | None = None,
    timeout: float | None = None,
    total_timeout: float | None = None,
    retries: Retries | None = None,
) -> Model | None:
    """The model a spec such as ``openai:gpt-4o-mini`` names; None for the offline model. A
    bare name whose provider it suggests (``gpt-4o-mini``, ``claude-haiku-4-5``) is taken as
    that provider's, as a task may have kept it; ``--model`` refuses one (`with_its_provider`).

    A `price` given always wins over the price table. `timeout` (the longest wait, in seconds,
    for an answer or its next piece) and `total_timeout` (the longest one call may take in
    all, its retries included), when given, are the model's; else its class's defaults.
    Raises `ModelNotConfigured` with the fix (a provider to name, a key to set, an extra to
    install) when the model cannot be asked.
    """
    if spec is None or spec.strip().lower() in ("", "offline"):
        return None
    provider, sep, name = spec.strip().partition(":")
    if not sep:
        provider, name = _guess(spec.strip()), spec.strip()
    provider = provider.lower()
    if provider == "openai-compatible":
        name, at, url = name.partition("@")
        base_url = url if at else base_url or os.environ.get("OPENAI_BASE_URL")
    if not name:
        raise ModelNotConfigured(f"“{spec}” names no model: write {provider}:NAME, e.g. "
                                 f"{_example(provider)}.")
    options: dict[str, Any] = {"price": price, "on_text": on_text, "retries": retries}
    if timeout is not None:
        options["timeout"] = timeout
    if total_timeout is not None:
        options["total_timeout"] = total_timeout
    if provider == "openai":
        _need_key("OPENAI_API_KEY", spec, "openai")
        return OpenAIModel(name, base_url=base_url, **options)
    if provider == "anthropic":
        _need_key("ANTHROPIC_API_KEY", spec, "anthropic")
        return AnthropicModel(name, base_url=base_url, **options)
    if provider == "openai-compatible":
        if not base_url:
            raise ModelNotConfigured(
                f"{spec} needs the server's base URL: write openai-compatible:{name}@URL (e.g. "
                f"openai-compatible:{name}@http://127.0.0.1:8000/v1) or set OPENAI_BASE_URL.",
                model=f"openai-compatible:{name}")
        return OpenAICompatibleModel(name, base_url=base_url, **options)
    raise ModelNotConfigured(
        f"“{spec}” names no provider signoff knows: use one of {', '.join(PROVIDERS)} "
        f"(e.g. {_example('openai')}), or offline.")


def price_from(text: str) -> Price:
    """A price written ``IN,OUT`` in US dollars per million input and output tokens
    (``0.15,0.60``; ``0,0`` for a free local model); `ModelNotConfigured` otherwise."""
    try:
        given, taken = (float(part) for part in text.split(","))
    except ValueError:
        raise ModelNotConfigured(f"“{text}” is not a price: give two numbers, input and output "
                                 "dollars per million tokens, e.g. 0.15,0.60.") from None
    if not (0 <= given < float("inf") and 0 <= taken < float("inf")):  # (NaN too)
        raise ModelNotConfigured(f"“{text}” is not a price: a price is two numbers of 0 or more.")
    return Price(input_per_mtok=given, output_per_mtok=taken)


def with_its_provider(spec: str) -> str:
    """`spec`, when it names its provider (``openai:gpt-4o``), or is ``offline`` or empty;
    `ModelNotConfigured` naming the spec to write when it is a bare name (``gpt-4o``: write
    ``openai:gpt-4o``), which `model_from` would take as the provider its name suggests: for
    where a person names a model as ``provider:name`` (``--model``), not in silence as one."""
    text = spec.strip()
    if text.lower() in ("", "offline") or ":" in text:
        return spec
    provider = _guess(text)  # (a name that suggests none is told there)
    raise ModelNotConfigured(
        f"“{text}” does not say its provider: write {provider}:{text} (a model is named "
        f"PROVIDER:NAME, with one of {', '.join(PROVIDERS)}).")


def _guess(name: str) -> str:
    if name.startswith("claude"):
        return "anthropic"
    if name.startswith(_OPENAI_PREFIXES):
        return "openai"
    raise ModelNotConfigured(
        f"“{name}” does not say its provider: write PROVIDER:{name}, with one of "
        f"{', '.join(PROVIDERS)}.")


def _need_key(variable: str, spec: str, sdk: str) -> None:
    """`ModelNotConfigured` when the key in `variable` is not set: saying too, when the
    provider's `sdk` package (its extra's, of the same name) is not installed, that it is
    needed (so that both are told at once, not one run after the other)."""
    if os.environ.get(variable):
        return
    if importlib.util.find_spec(sdk) is None:
        raise ModelNotConfigured(f"{spec} needs an API key and the {sdk} package: set {variable}, "
                                 f"and install signoff's {sdk} extra, {install_extra(sdk)}.",
                                 model=spec)
    raise ModelNotConfigured(f"{spec} needs an API key: set {variable}.", model=spec)


def _example(provider: str) -> str:
    return {"anthropic": "anthropic:claude-sonnet-4-5",
            "openai-compatible": "openai-compatible:llama3@http://127.0.0.1:8000/v1"}.get(
        provider, "openai:gpt-4o-mini")
