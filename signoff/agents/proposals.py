"""Proposals: a call an agent puts to a person, exactly as it would run, and its decision."""

from __future__ import annotations

import enum
import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from signoff.agents.rules import StandingRule
from signoff.limits.provenance import ArgumentLabel

__all__ = ["Decision", "Evidence", "Proposal", "ProposalStatus", "fingerprint"]


class ProposalStatus(enum.Enum):
    """Where a proposal stands."""

    WAITING = "Waiting"
    """It waits for a decision."""
    APPROVED = "Approved"
    """Approved, and its run has started (a call that reaches outside is marked so before it
    runs: if the process stopped then, its outcome is unknown and it is not run again)."""
    DONE = "Done"
    """Approved, and it ran."""
    FAILED = "Failed"
    """Approved, but it did not run to the end (e.g. the approver may not do it)."""
    REJECTED = "Rejected"
    """Someone said no, with a reason."""
    STALE = "Stale"
    """What it was about changed before the decision; nothing ran."""
    WITHDRAWN = "Withdrawn"
    """The declaration has since ruled the tool out, the task ended, or its deadline passed
    undecided; nothing ran."""


@dataclass(frozen=True, kw_only=True)
class Evidence:
    """A tool the task ran before the proposal, with what came back."""

    tool: str
    """The tool."""
    arguments: str
    """Its arguments, as JSON text."""
    answer: str
    """What came back, as the model was told."""


@dataclass(frozen=True, kw_only=True)
class Proposal:
    """The exact call, with the model's reason and what it had looked at."""

    id: str
    """The proposal's id."""
    task: str
    """The task that proposed it."""
    agent: str
    """The agent."""
    skill: str
    """The skill."""
    skill_version: str
    """The skill's version when it proposed."""
    action: str
    """The tool (action) to run."""
    label: str
    """The action as a person reads it ("Set the price")."""
    effects: tuple[str, ...]
    """What it does, one line per effect."""
    arguments: dict[str, Any]
    """The arguments, as JSON."""
    shown: dict[str, str]
    """The arguments as a person reads them (ids turned into names by the skill's `names`)."""
    why: str
    """What the model said as it asked."""
    evidence: tuple[Evidence, ...]
    """Each tool the task ran before, with what came back."""
    subject_version: str
    """The version of what it acts on, when it was proposed (the skill's `version_of`)."""
    fingerprint: str
    """A digest of everything that must read the same when the person decides."""
    decide_by: str
    """Who decides, in words ("Noor", "the Finance queue")."""
    decide_person_id: str | None
    """The person who decides, when one does."""
    decide_queue: str | None
    """The queue that decides, when one does."""
    routed: bool
    """Whether the skill routed it (the person the work is for then does not decide)."""
    for_id: str | None
    """The person the work is for (None: for nobody)."""
    status: ProposalStatus
    """Where it stands."""
    decided_by: str | None = None
    """The id of who decided it."""
    reason: str = ""
    """The reason given with a no (or what the decision came to)."""
    result: dict[str, Any] | None = None
    """How the run came out, when it ran."""
    edited: dict[str, Any] | None = None
    """The argument values the decider changed, when they did."""
    created_at: datetime | None = None
    """When it was proposed."""
    decided_at: datetime | None = None
    """When it was decided."""
    labels: tuple[ArgumentLabel, ...] = ()
    """Each argument outside content may have steered, with the result it came from ("`iban`
    = `GB29…` appears in `body` of what read_email returned for {"id": 31}, from an outside
    sender"): a call so steered is put to a person whatever the agent may do alone."""
    deadline_at: datetime | None = None
    """When it is withdrawn, or goes on to another decider, if nobody has decided it by then
    (UTC; None: it waits as long as it takes). See `Route.within`."""
    escalations: int = 0
    """How many times its deadline passed and it went on to another decider."""
    escalated_at: datetime | None = None
    """When it last went on to another decider (UTC), when it did."""


@dataclass(frozen=True, kw_only=True)
class Decision:
    """What a decision came to."""

    proposal: str
    """The proposal decided."""
    status: ProposalStatus
    """Where the proposal now stands."""
    said: str
    """What the decider is told ("Noor approved set_price; it ran as Noor and the agent
    together.")."""
    told_agent: str
    """What the agent is told (its tool's answer)."""
    task_status: str = ""
    """Where the task stands after it went on."""
    task_problem: str = ""
    """When the task is still Running after it was to go on (its workers, or the server, did not
    take it up in time; or the process that decided has no model for it): why, and what to do,
    in words; "" otherwise."""
    rule: StandingRule | None = None
    """The standing rule this yes made ("and from now on, alone"), when it made one."""


def fingerprint(parts: dict[str, Any]) -> str:
    """A SHA-256 digest of what a proposal is about, written canonically."""
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()
