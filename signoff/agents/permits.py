"""Permits: what an agent may do alone, must propose, must propose every time, or never does."""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from signoff.actions.declare import tool_name
from signoff.exceptions import UserError

__all__ = ["Leave", "Permits", "tool_name"]


class Leave(enum.IntEnum):
    """How much leave an agent has with a tool, from the least strict to the strictest."""

    ALONE = 0
    """It runs the tool without asking."""
    PROPOSE = 1
    """It proposes the call to a person; a standing rule may let it run alone."""
    PROPOSE_EVERY_TIME = 2
    """It proposes the call every time; no standing rule applies."""
    NEVER = 3
    """The tool is not offered, and a call to it neither runs nor is proposed."""

    @property
    def words(self) -> str:
        """The leave as the catalogue shows it: "Alone", "Propose", "Propose every time", "Never"."""
        return _LEAVE_WORDS[self]


_LEAVE_WORDS = {leave: leave.name.replace("_", " ").capitalize() for leave in Leave}
"""Each leave's words, worked out once (the loop tells a call's leave at every step)."""


def _named_tools(tools: Any, given: str) -> frozenset[str]:
    """The names of the tools a list gives: a tool given alone is one tool (``alone="x"`` was
    taken as one tool a letter)."""
    if isinstance(tools, str) or callable(tools):
        tools = [tools]
    try:
        return frozenset(tool_name(t) for t in tools)
    except TypeError:
        raise UserError(f"Permits({given}=) takes a list of tools (actions, or their names), "
                        f"not {tools!r}.") from None


def _leave(value: Leave | str, given: str) -> Leave:
    """`value` as a Leave: one, or its name in any case ("alone", "propose every time"); a
    `UserError` naming the four for anything else (it was a bare "'alone' is not a valid
    Leave")."""
    if isinstance(value, Leave):
        return value
    if isinstance(value, str):
        named = Leave.__members__.get(value.strip().upper().replace(" ", "_"))
        if named is not None:
            return named
    raise UserError(f"Permits({given}={value!r}): a leave is one of "
                    f"{', '.join(f'Leave.{leave.name}' for leave in Leave)}.")


@dataclass(frozen=True, kw_only=True, init=False)
class Permits:
    """Per effect, the leave an agent has; and tools named in lists, treated as the list says
    whatever they do. Every effect defaults to PROPOSE; a query always runs alone unless a list
    names it."""

    changes: Leave
    """For tools that create, change or delete the app's records (or any state)."""
    sends: Leave
    """For tools that send something."""
    spends: Leave
    """For tools that spend money."""
    reaches_out: Leave
    """For tools that reach outside the app."""
    alone: frozenset[str]
    """Tools that run alone, whatever they do."""
    propose: frozenset[str]
    """Tools that are proposed, whatever they do."""
    propose_every_time: frozenset[str]
    """Tools proposed every time, whatever they do; no standing rule applies."""
    never: frozenset[str]
    """Tools never offered and never run."""
    untrusted: Leave
    """For a call that does more than read with an argument that did not come from the request
    (outside content had entered its task: see `signoff.limits.provenance`): PROPOSE (the
    default), PROPOSE_EVERY_TIME or NEVER — never ALONE, and no standing rule lifts it."""

    def __init__(
        self,
        *,
        changes: Leave = Leave.PROPOSE,
        sends: Leave = Leave.PROPOSE,
        spends: Leave = Leave.PROPOSE,
        reaches_out: Leave = Leave.PROPOSE,
        alone: Iterable[str | Callable[..., Any]] = (),
        propose: Iterable[str | Callable[..., Any]] = (),
        propose_every_time: Iterable[str | Callable[..., Any]] = (),
        never: Iterable[str | Callable[..., Any]] = (),
        untrusted: Leave = Leave.PROPOSE,
    ) -> None:
        if _leave(untrusted, "untrusted") is Leave.ALONE:
            raise UserError("Permits(untrusted=Leave.ALONE) is not allowed: a call steered by "
                            "outside content never runs alone. Use PROPOSE, PROPOSE_EVERY_TIME "
                            "or NEVER, or endorse the values the skill may trust (Endorse).")
        set_ = object.__setattr__
        set_(self, "changes", _leave(changes, "changes"))
        set_(self, "sends", _leave(sends, "sends"))
        set_(self, "spends", _leave(spends, "spends"))
        set_(self, "reaches_out", _leave(reaches_out, "reaches_out"))
        set_(self, "alone", _named_tools(alone, "alone"))
        set_(self, "propose", _named_tools(propose, "propose"))
        set_(self, "propose_every_time", _named_tools(propose_every_time, "propose_every_time"))
        set_(self, "never", _named_tools(never, "never"))
        set_(self, "untrusted", _leave(untrusted, "untrusted"))

    @staticmethod
    def everything() -> Permits:
        """Every effect alone: the agent proposes nothing (lists may still be given stricter),
        save a call steered by outside content (``untrusted`` stays PROPOSE)."""
        return Permits(changes=Leave.ALONE, sends=Leave.ALONE, spends=Leave.ALONE,
                       reaches_out=Leave.ALONE)

    @staticmethod
    def changes_alone() -> Permits:
        """The app's own data changes alone; anything that leaves it is proposed."""
        return Permits(changes=Leave.ALONE)

    def named(self) -> list[tuple[str, str]]:
        """(list, tool) for each tool its lists name: ("never", "scrap_repair")."""
        return [(kind, tool) for kind, names in (
            ("alone", self.alone), ("propose", self.propose),
            ("propose_every_time", self.propose_every_time), ("never", self.never),
        ) for tool in sorted(names)]

    def listed(self, tool: str | Callable[..., Any]) -> Leave | None:
        """The strictest leave the lists give `tool` (by name, or the action's function), or
        None when no list names it."""
        tool = tool if isinstance(tool, str) else tool_name(tool)
        found = [leave for leave, names in (
            (Leave.ALONE, self.alone),
            (Leave.PROPOSE, self.propose),
            (Leave.PROPOSE_EVERY_TIME, self.propose_every_time),
            (Leave.NEVER, self.never),
        ) if tool in names]
        return max(found) if found else None
