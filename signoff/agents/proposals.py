"""Proposals: a call an agent puts to a person, exactly as it would run, and its decision."""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel

from signoff.actions.nesting import TOO_DEEP, too_deep
from signoff.actions.parameters import Parameter, ParameterKind
from signoff.actions.registry import Actions
from signoff.agents.rules import StandingRule
from signoff.exceptions import EditRefused, Invalid, NotFound
from signoff.limits.provenance import ArgumentLabel

__all__ = [
    "Decision",
    "Evidence",
    "Proposal",
    "ProposalStatus",
    "changed_values",
    "fingerprint",
    "names_acted_on",
    "said_changed",
]


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
    """What the decider is told ("Noor approved set_price, and it ran as them.")."""
    told_agent: str
    """What the agent is told (its tool's answer)."""
    task_status: str = ""
    """Where the task stands after it went on."""
    rule: StandingRule | None = None
    """The standing rule this yes made ("and from now on, alone"), when it made one."""


def fingerprint(parts: dict[str, Any]) -> str:
    """A SHA-256 digest of what a proposal is about, written canonically."""
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def names_acted_on(proposal: Proposal, parameter: Parameter) -> bool:
    """Whether argument `parameter` of `proposal`'s call names what the call acts on, as its
    declaration and the proposal tell without running anything: a record (or records), an id
    (``UUID``), or a value the skill's `names` showed as something else (an id as "Ticket T-7").
    An edit never changes such an argument. (Records within a structure, and an argument the
    skill's `version_of` reads, are found as an edit is checked: `Decider.approve`.)"""
    if parameter.names_records or parameter.kind is ParameterKind.ID:
        return True
    if parameter.name not in proposal.arguments or parameter.name not in proposal.shown:
        return False
    value = proposal.arguments[parameter.name]
    as_text = value if isinstance(value, str) else json.dumps(value)
    return proposal.shown[parameter.name] != as_text


# -- an edit: the values a decider changes as they say yes ---------------------------------


def changed_values(actions: Actions, proposal: Proposal, edited: Mapping[str, Any]
                   ) -> dict[str, Any]:
    """Those of the values `edited` that change `proposal`'s arguments, as JSON; `EditRefused`,
    in a sentence, for one that names no argument, cannot be written as JSON, or names what the
    call acts on (`names_acted_on`, or other records or ids within a structure). Whether they
    fit the tool is told where the call's values are read."""
    info = actions.info(proposal.action)
    names = {p.name for p in info.parameters}
    unknown = sorted(set(edited) - names)
    if unknown:
        raise EditRefused(f"{proposal.action} has no argument {', '.join(unknown)} to change "
                          f"(its arguments are {', '.join(sorted(names)) or 'none'}); the "
                          "tool itself cannot be changed.")
    given = {k: _as_json(k, v) for k, v in edited.items()}
    changed = {k: v for k, v in given.items() if proposal.arguments.get(k) != v}
    acted_on = [p.name for p in info.parameters if p.name in changed and (
        names_acted_on(proposal, p))]
    holding = [p.name for p in info.parameters if p.name in changed and not p.names_records
               and p.kind in _HOLDING]  # a structure that may name records, or ids, within
    if holding and not acted_on:
        acted_on = _moved_records(actions, proposal, holding, changed)
    if acted_on:
        raise EditRefused(f"An edit changes argument values only: {', '.join(acted_on)} "
                          f"names what {proposal.action} acts on, which an edit cannot "
                          "change. Reject it with the reason instead; the agent is told and "
                          "may propose again.")
    return changed


def said_changed(changed: dict[str, Any]) -> str:
    """The values a decider changed, as a decision's words say them (" with price changed to
    40"); "" for none."""
    if not changed:
        return ""
    return " with " + ", ".join(f"{k} changed to {json.dumps(v)}" for k, v in changed.items())


_HOLDING = (ParameterKind.STRUCTURE, ParameterKind.SEQUENCE)
"""The kinds of argument that may hold records, or ids of them, within."""


def _as_json(name: str, value: Any) -> Any:
    """A changed value as JSON reads it; refused, in a sentence, when it cannot be written as
    JSON (nested too deeply, or holding itself): nothing is decided."""
    try:
        if not too_deep({name: value}):
            return json.loads(json.dumps(value, default=str))
    except (ValueError, RecursionError):  # it holds itself, or nests deeper than is told
        pass
    raise EditRefused(f"The changed value of {name} is {TOO_DEEP}, or holds itself: give it as "
                      "plain values (text, numbers, and lists and objects of them). Nothing was "
                      "decided; the proposal still waits.")


def _moved_records(actions: Actions, proposal: Proposal, names: list[str],
                   changed: dict[str, Any]) -> list[str]:
    """Those of arguments `names` whose `changed` values name other records (or ids) than the
    proposal's, within a structure or a sequence; values that do not fit are left to be told
    where the call's values are read."""
    try:
        before = actions.values_from_json(proposal.action, json.dumps(proposal.arguments))
        after = actions.values_from_json(
            proposal.action, json.dumps({**proposal.arguments, **changed}))
    except (Invalid, NotFound):
        return []
    return [n for n in names if set(_record_ids(before.get(n))) != set(
        _record_ids(after.get(n)))]


def _record_ids(value: Any) -> Iterator[uuid.UUID]:
    """The ids within a value read for a call (a record stands as its id there)."""
    if isinstance(value, uuid.UUID):
        yield value
    elif isinstance(value, BaseModel):
        for inner in value.__dict__.values():
            yield from _record_ids(inner)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            yield from _record_ids(getattr(value, field.name))
    elif isinstance(value, dict):
        for inner in value.values():
            yield from _record_ids(inner)
    elif isinstance(value, list | tuple | set | frozenset):
        for inner in value:
            yield from _record_ids(inner)
