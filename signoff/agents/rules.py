"""Standing rules: "from now on, alone" — for one tool of one agent, until revoked."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

__all__ = ["StandingRule", "rule_covers"]


@dataclass(frozen=True, kw_only=True)
class StandingRule:
    """Lets an agent run one tool without proposing it."""

    id: str
    """The rule's id."""
    agent: str
    """The agent it is for."""
    tool: str
    """The tool it lets run alone."""
    skill: str | None
    """Only within this skill (None: any skill of the agent)."""
    for_id: str | None
    """Only in work done for this person (None: for everybody)."""
    made_by: str
    """Who made it (a principal id)."""
    made_at: datetime
    """When."""
    used: int = 0
    """How many calls it let run alone."""
    last_used_at: datetime | None = None
    """When it last did."""
    revoked_by: str | None = None
    """Who took it back."""
    revoked_at: datetime | None = None
    """When (from the next step on, it no longer applies)."""
    why: str = ""
    """Why it was taken back."""
    effects: tuple[tuple[Any, ...], ...] | None = None
    """What its tool did when it was made (the identities of its action's effects): it stands
    for a yes to a tool that did that, and lapses once the tool does more. None for a rule
    made before they were kept (it holds whatever its tool does)."""

    @property
    def active(self) -> bool:
        """Whether it still applies."""
        return self.revoked_at is None


def rule_covers(rule: StandingRule, for_name: str | None, *, reads_outside: bool = False) -> str:
    """What a standing rule lets its agent do, in words (`for_name`: the name of the person
    whose work it covers; None when it covers everybody's). `reads_outside`: the agent reads
    outside content where the rule applies, and a call that content may have steered is
    proposed whatever the rule says (docs/concepts/provenance.md): the words say so."""
    where = f"in {rule.skill}" if rule.skill else "in any of its skills"
    whose = "in work for everybody" if rule.for_id is None else f"in work for {for_name}"
    values = ("with any values, except values that outside content it has read may have "
              "steered (such a call is still proposed)" if reads_outside else "with any values")
    return (f"from now on {rule.agent} runs {rule.tool} alone, without proposing it, {where}, "
            f"{whose} — {values}")
