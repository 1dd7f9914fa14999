"""Events the agents raise, and the handlers an app registers for them."""

from __future__ import annotations

import functools
import logging
from collections import Counter, defaultdict
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, TypeVar

from signoff.exceptions import UserError

__all__ = ["AgentProposalDecided", "AgentProposed", "AgentTaskWaiting", "Events", "NotTold"]

log = logging.getLogger("signoff.agents")
E = TypeVar("E")


@dataclass(frozen=True, kw_only=True)
class AgentProposed:
    """An agent put a call to a person."""

    proposal: Any
    """The `Proposal`."""
    last_try: bool = False
    """Whether this is the last try to tell of it (`signoff.agents.telling`): a handler that
    does not take it now is not called for it again."""


@dataclass(frozen=True, kw_only=True)
class AgentProposalDecided:
    """A proposal was decided."""

    proposal: Any
    """The `Proposal`, as it now stands."""
    decision: Any
    """The `Decision`."""


@dataclass(frozen=True, kw_only=True)
class AgentTaskWaiting:
    """A task stopped to wait on decisions."""

    task: str
    """The task's id."""
    waiting_on: tuple[str, ...]
    """What it waits on, in words."""


class NotTold(Exception):
    """Raised by a handler of `AgentProposed` that could not tell anyone (a receiver down), once
    it has logged why: that handler is called again later, by a worker, and the handlers that
    took the proposal are not (`signoff.agents.telling`). Any other exception a handler raises
    counts the same, logged with its traceback."""


class Events:
    """Handlers by event type: ``app.on(AgentProposed, notify)``. A handler that raises is
    logged; it never undoes or stops the work that raised the event."""

    def __init__(self) -> None:
        self._handlers: dict[type, list[Callable[[Any], None]]] = defaultdict(list)

    def on(self, event: type[E], handler: Callable[[E], None]) -> None:
        """Call `handler` with each event of type `event`."""
        if not isinstance(event, type):
            raise UserError(f"on() takes the event's class (AgentProposed, …), not {event!r}: "
                            "a handler of anything else would never be called.")
        if not callable(handler):
            raise UserError(f"on() takes a handler to call with each {event.__name__}, not "
                            f"{handler!r}.")
        self._handlers[event].append(handler)

    def has(self, event: type) -> bool:
        """Whether any handler listens for events of this type."""
        return bool(self._handlers.get(event))

    def names(self, event: type) -> list[str]:
        """The names of the handlers of events of this type, in the order they are called: each
        handler's `name` (a notifier's: its kind and where it sends), or its module and
        qualified name (``shop.hooks.tell_chat``); a name that comes again is followed by its
        count (``shop.hooks.<lambda> #2``). The same in every process that registers the same
        handlers in the same order, so a name kept by one (which handlers took a proposal:
        `signoff.agents.telling`) is known by another; a handler renamed or moved is another."""
        seen: Counter[str] = Counter()
        names: list[str] = []
        for handler in self._handlers.get(event, []):
            name = _name(handler)
            seen[name] += 1
            names.append(f"{name} #{seen[name]}" if seen[name] > 1 else name)
        return names

    def emit(self, event: object, *, told: Collection[str] = (),
             took: Callable[[str], None] | None = None) -> bool:
        """Tell every handler of this event's type but those named in `told` (`names`: they
        took it before): whether each took it (one that raised did not: `NotTold`, which it
        has logged, or another exception, logged here). `took` is called with the name of each
        that took it, before the next is called."""
        handlers = list(self._handlers.get(type(event), []))
        named = told or took is not None  # (names are asked of the handlers only then)
        names = self.names(type(event)) if named else [""] * len(handlers)
        all_took = True
        for name, handler in zip(names, handlers, strict=True):
            if name in told:
                continue
            try:
                handler(event)
            except NotTold:
                all_took = False
                continue
            except Exception:
                log.exception("A handler of %s failed", type(event).__name__)
                all_took = False
                continue
            if took is not None:
                took(name)
        return all_took


def _name(handler: Callable[[Any], None]) -> str:
    """A handler's own name: its `name`, when it gives itself one as text; else its module
    and qualified name (a callable object's, its class's; a partial's, its function's)."""
    given = getattr(handler, "name", None)
    if isinstance(given, str) and given.strip():
        return given.strip()
    target: Any = handler.func if isinstance(handler, functools.partial) else handler
    qualified = getattr(target, "__qualname__", None)
    if not isinstance(qualified, str):  # (an object called: its class names it)
        target = type(target)
        qualified = target.__qualname__
    return f"{getattr(target, '__module__', None) or '?'}.{qualified}"
