"""Events the agents raise, and the handlers an app registers for them."""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable
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
    it has logged why: the proposal is told again later, by a worker (`signoff.agents.telling`).
    Any other exception a handler raises counts the same, logged with its traceback."""


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

    def emit(self, event: object) -> bool:
        """Tell every handler of this event's type: whether each took it (one that raised did
        not: `NotTold`, which it has logged, or another exception, logged here)."""
        took = True
        for handler in self._handlers.get(type(event), []):
            try:
                handler(event)
            except NotTold:
                took = False
            except Exception:
                log.exception("A handler of %s failed", type(event).__name__)
                took = False
        return took
