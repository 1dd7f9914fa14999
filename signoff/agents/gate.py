"""The gate: a pure function of (permits, effects, labels, standing rule) to a call's leave.

Strictest wins: across the effects a tool has, across the lists that name it, and across the
agent's permits and the skill's. A standing rule turns PROPOSE into ALONE, and nothing else. The
labels of the call's arguments come last: a call that does more than read, with an argument
outside content may have steered, gets at least the permits' ``untrusted`` leave, rule or not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from signoff.agents.labelling import floor
from signoff.agents.permits import Leave, Permits
from signoff.effects import Effects
from signoff.limits.provenance import NOTHING_SEEN, ArgumentLabel, Labels

__all__ = ["Verdict", "gate", "leave_by_declaration"]


@dataclass(frozen=True, kw_only=True)
class Verdict:
    """What the gate said, and why."""

    leave: Leave
    """What the call may do."""
    declared: Leave
    """What the declaration alone says (before any standing rule)."""
    by_rule: bool
    """Whether a standing rule let it run alone."""
    reason: str
    """Why, in words: "set_price changes Repair: Propose"."""
    labels: Labels = NOTHING_SEEN
    """The labels of the call's arguments, as the gate read them."""

    @property
    def untrusted(self) -> tuple[ArgumentLabel, ...]:
        """The arguments outside content may have steered (they hold back a call that does
        more than read)."""
        return self.labels.untrusted


def _by_effects(permits: Permits, effects: Effects, query: bool) -> tuple[Leave, str]:
    if query or effects.only_reads:
        return Leave.ALONE, "it only reads"
    found: list[tuple[Leave, str]] = []
    if effects.creates or effects.changes or effects.deletes:
        found.append((permits.changes, "it changes things"))
    if effects.sends:
        found.append((permits.sends, "it sends"))
    if effects.spends:
        found.append((permits.spends, "it spends"))
    if effects.external:
        found.append((permits.reaches_out, "it reaches outside"))
    if not found:  # an effect kind this gate does not know: be strict
        return Leave.PROPOSE, "its effects are not known"
    return max(found, key=lambda pair: pair[0])


def leave_by_declaration(
    tool: str, effects: Effects, permits: Sequence[Permits], *, query: bool = False
) -> tuple[Leave, str]:
    """The strictest leave the permits (agent's, then skill's) give a tool, with the reason."""
    strictest = (Leave.ALONE, "it only reads")
    for each in permits:
        listed = each.listed(tool)
        candidate = (listed, "a list names it") if listed is not None else _by_effects(
            each, effects, query
        )
        if candidate[0] > strictest[0] or (listed is not None and candidate[0] == strictest[0]):
            strictest = candidate
    return strictest


def gate(
    tool: str,
    effects: Effects,
    permits: Sequence[Permits],
    *,
    query: bool = False,
    in_skill: bool = True,
    rule: bool = False,
    labels: Labels = NOTHING_SEEN,
) -> Verdict:
    """The leave for one call of `tool`: NEVER outside the skill's tools (the allowlist); else the
    strictest the permits give; a standing rule (`rule`) turns PROPOSE into ALONE; and no less
    than the permits' ``untrusted`` leave when `labels` say outside content may have steered an
    argument of a call that does more than read."""
    if not in_skill:
        return Verdict(leave=Leave.NEVER, declared=Leave.NEVER, by_rule=False,
                       reason=f"{tool} is not one of the skill's tools")
    declared, why = leave_by_declaration(tool, effects, permits, query=query)
    held, held_why = floor(permits, effects, labels, query=query)
    if held > declared or (held > Leave.ALONE and declared is Leave.PROPOSE and rule):
        leave = max(held, declared)
        return Verdict(leave=leave, declared=declared, by_rule=False, labels=labels,
                       reason=f"{tool}: {leave.words} ({held_why})")
    if declared is Leave.PROPOSE and rule:
        return Verdict(leave=Leave.ALONE, declared=declared, by_rule=True, labels=labels,
                       reason=f"{tool}: a standing rule lets it run alone ({why})")
    return Verdict(leave=declared, declared=declared, by_rule=False, labels=labels,
                   reason=f"{tool}: {declared.words} ({why})")
