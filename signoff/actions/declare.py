"""How an app declares actions: the ``@action`` mark and the annotations a parameter can carry.

``Annotated[Rush, Label("How soon")]`` names a parameter for people; ``Provided("clock")`` marks
one the app fills in itself; ``Choices(fn)`` says where a record parameter's choices come from.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, ParamSpec, TypeVar, overload

from signoff.exceptions import UserError
from signoff.security.policies import Policy

__all__ = [
    "ActionFunction",
    "ActionOptions",
    "Choices",
    "FreeText",
    "Label",
    "Provided",
    "Untrusted",
    "action",
    "tool_name",
]

Untrusted = bool | Callable[[Any], bool | str] | None
"""What ``@action(untrusted=...)`` takes."""

P = ParamSpec("P")
R = TypeVar("R")


@dataclass(frozen=True)
class Label:
    """How a parameter reads to a person: ``Annotated[Rush, Label("How soon")]``."""

    text: str
    listed: bool = field(default=True, kw_only=True)
    """Whether how the action reads in a catalogue names it ("Set the rush (How soon)"):
    ``listed=False`` for one that tells nothing there (the guard's actions each take a tool's
    arguments whole, as one parameter: "delete_file on files", not "… (Arguments)")."""


@dataclass(frozen=True)
class Provided:
    """A context parameter the app fills in (``app.provide(name, fn)``), never shown to a caller
    or model: ``Annotated[Clock, Provided("clock")]``. The names ``session``, ``acting_as`` and
    ``cause`` are always provided."""

    name: str


@dataclass(frozen=True)
class FreeText:
    """A text parameter whose words are prose the model composes (a message's body, a note):
    ``Annotated[str, FreeText]``. Once outside content has entered a task, the words of free
    text carry no label — only the identifiers in it and the runs of words copied from outside
    content do — while every other text parameter of an action that declares one is labelled
    whole, as a single value is (a folder's name of two words, a command). For an action that
    declares none, its skill says (`Skill.free_text`); a skill that says no text is free text
    is heeded whatever its actions declare (the stricter word wins)."""


@dataclass(frozen=True)
class Choices:
    """Where a parameter's choices come from: ``Annotated[Shelf, Choices(open_shelves)]``.

    The function takes a SQLAlchemy session (or nothing) and returns records, or ``(key, label)``
    pairs. Records are offered only when the caller may read them. The choices are what a form
    or a model is offered (`Actions.choices`), not a check: a value outside them is taken as
    any value of the parameter's type is — check it in the action (raise `Invalid`) when only
    they may be given.
    """

    source: Callable[..., Any]


@dataclass(frozen=True, kw_only=True)
class ActionOptions:
    """What ``@action(...)`` said, kept on the function until an app registers it."""

    label: str | None = None
    """How the action reads to a person; derived from its name when None."""
    name: str | None = None
    """The name it is offered by; the function's name when None."""
    query: bool = False
    """Declared to only read: refused at registration if the analysis finds otherwise."""
    authorize: Policy | None = None
    """Who may run it (hidden from, and refused to, those the policy does not admit)."""
    idempotent: bool = False
    """Safe to run again after a crash left its outcome unknown."""
    provided: tuple[tuple[str, str], ...] = ()
    """Parameter name → provided name, for functions registered from outside."""
    untrusted: Untrusted = None
    """Whether what it returns is outside content (text a stranger may have written: an
    e-mail's body, a web page): True, False, or a function of the returned value (its JSON)
    answering yes/no or why ("from an outside sender") for mixed results. None: outside content
    when the action reaches outside the app, trusted otherwise."""


class _Capture:
    """Where `step_of` collects the action calls a step makes, instead of running them."""

    def __init__(self) -> None:
        self.calls: list[tuple[ActionFunction[..., Any], tuple[Any, ...], dict[str, Any]]] = []


_capturing: contextvars.ContextVar[_Capture | None] = contextvars.ContextVar(
    "signoff_step_capture", default=None
)


@contextlib.contextmanager
def capturing_calls() -> Iterator[list[tuple[ActionFunction[..., Any], tuple[Any, ...], dict[str, Any]]]]:
    """Within the block, calling an action records the call instead of running it."""
    capture = _Capture()
    token = _capturing.set(capture)
    try:
        yield capture.calls
    finally:
        _capturing.reset(token)


class StepCall:
    """What a captured action call returns: a marker that the step did exactly this call."""

    __slots__ = ()


class ActionFunction(Generic[P, R]):
    """A function marked as an action. Calling it from Python calls the function as it is;
    running it by name (``app.actions.run``) goes through validation and security."""

    def __init__(self, fn: Callable[P, R], options: ActionOptions) -> None:
        functools.update_wrapper(self, fn)
        self.__wrapped__ = fn
        self.options = options
        """What the declaration said."""

    @property
    def action_name(self) -> str:
        """The name this action is offered by."""
        return self.options.name or self.__wrapped__.__name__

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        capture = _capturing.get()
        if capture is not None:
            capture.calls.append((self, args, dict(kwargs)))
            return StepCall()  # type: ignore[return-value]
        return self.__wrapped__(*args, **kwargs)

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        # An action defined in a class body behaves like the function it wraps.
        if instance is None:
            return self
        return types.MethodType(self, instance)

    def __repr__(self) -> str:
        return f"<action {self.action_name}>"


def tool_name(tool: str | Callable[..., Any]) -> str:
    """The name of a tool given as a name or as the action function."""
    if isinstance(tool, str):
        return tool
    name = getattr(tool, "action_name", None) or getattr(tool, "__name__", None)
    if not isinstance(name, str):
        raise UserError(f"{tool!r} is not a tool: give an action or its name.")
    return name


@overload
def action(fn: Callable[P, R], /) -> ActionFunction[P, R]: ...


@overload
def action(
    label: str | None = None,
    /,
    *,
    name: str | None = None,
    query: bool = False,
    authorize: Policy | None = None,
    idempotent: bool = False,
    untrusted: Untrusted = None,
) -> Callable[[Callable[P, R]], ActionFunction[P, R]]: ...


def action(
    fn_or_label: Any = None,
    /,
    *,
    name: str | None = None,
    query: bool = False,
    authorize: Policy | None = None,
    idempotent: bool = False,
    untrusted: Untrusted = None,
) -> Any:
    """Mark a function as an action, to be collected by an app (``app.collect(module)``).

    ``@action``, ``@action("Set the rush")``, ``@action(query=True)`` or
    ``@action(untrusted=True)`` (what it returns is outside content). `untrusted` is True, False,
    or a function of the returned value (its JSON) answering yes, no, or why ("from an outside
    sender") for results that mix both; by default (None) what an action that reaches outside
    the app returns is outside content, and what any other returns is trusted.

    ``idempotent=True`` says it is safe to run again: a call of it that a crash cut off before its
    outcome was recorded is run again (an approved call, again on behalf of its approver). Without
    it, such a call (one that reaches outside) runs at most once: it is not run again blindly, and
    its outcome is told as unknown.
    """

    def mark(fn: Callable[P, R], label: str | None) -> ActionFunction[P, R]:
        if isinstance(fn, ActionFunction):
            return fn
        options = ActionOptions(
            label=label, name=name, query=query, authorize=authorize, idempotent=idempotent,
            untrusted=untrusted,
        )
        return ActionFunction(fn, options)

    if callable(fn_or_label) and not isinstance(fn_or_label, str):
        return mark(fn_or_label, None)
    return lambda fn: mark(fn, fn_or_label)
