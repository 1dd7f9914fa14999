"""A proposal as a call makes it: the exact call, who decides it (as its skill routes it), and
its fingerprint, which a decision checks against how things read when it is taken."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from sqlalchemy import select

from signoff.actions.catalog import Action
from signoff.agents import repository as repo
from signoff.agents.proposals import Proposal, ProposalStatus, fingerprint
from signoff.agents.skills import Skill
from signoff.agents.states import CallOutcome, CallState, ReceiptKind
from signoff.effects import Effect, Effects
from signoff.exceptions import UserError
from signoff.store.tables import proposals as proposals_table
from signoff.store.utc import aware

__all__ = ["Kept", "KeptProposals", "Routing", "asked_before", "does_otherwise", "fingerprint_of",
           "proposal_of", "refusal_of_withdrawn", "withdraw_with_task"]


@dataclass(frozen=True, kw_only=True)
class Routing:
    """Who decides a proposal of a tool, as its skill routes it."""

    person_id: str | None
    """The person who decides, when one does."""
    queue: str | None
    """The queue that decides, when one does."""
    routed: bool
    """Whether the skill routed it (the person the work is for then does not decide)."""
    within: timedelta | None = None
    """How long it waits for them (None: as long as it takes)."""


def proposal_of(task: repo.TaskRow, skill: Skill[Any, Any], action: Action, call: repo.CallRow,
                arguments: dict[str, Any], routing: Routing) -> Proposal:
    """The proposal of `call`; its evidence and its fingerprint (`fingerprint_of`, under the
    instructions as they read then) are added as it is written. The skill's names and versions
    may read records."""
    made_at = repo.now()
    return Proposal(
        id=repo.new_id(), task=task.id, agent=task.agent, skill=task.skill,
        skill_version=skill.version, action=call.tool, label=action.info.label,
        effects=tuple(action.info.effects.explain()), arguments=arguments,
        shown={k: _shown(skill, call.tool, k, _text(v)) for k, v in arguments.items()},
        why=call.why, evidence=(), subject_version=skill.version_of(call.tool, arguments),
        fingerprint="", decide_by="", decide_person_id=routing.person_id,
        decide_queue=routing.queue, routed=routing.routed, for_id=task.for_id,
        status=ProposalStatus.WAITING, created_at=made_at,
        deadline_at=made_at + routing.within if routing.within is not None else None,
    )


def asked_before(db: repo.Executor, proposal: Proposal) -> Proposal | None:
    """The proposal of the very same call as `proposal` (its fingerprint: the same tool and
    arguments, on the same version of what it acts on, under the same instructions) that its
    task put to a person before and that they said no to; None when there is none. A person
    says no to a call once: asked again, the agent is told their no instead (a call that reads
    otherwise since, a record changed or other instructions, is asked again). Two of one turn,
    the same, are each asked: the model may mean both."""
    said_no = repo.said_no_to(db, proposal.task, proposal.fingerprint)
    found = repo.load_proposal(db, said_no) if said_no is not None else None
    return found[0] if found is not None else None


_WITH_TASK = "its task stopped before anyone decided it"
"""Why a proposal withdrawn with its task was (its reason goes on with how the task ended)."""


def refusal_of_withdrawn(proposal: Proposal) -> str:
    """Why a decision on `proposal` is refused because it was withdrawn ("" when it was not):
    with its task (stopped by a person, or ended otherwise: its reason says how), or because
    the agent's declaration no longer lets it use that tool. (Withdrawn at its deadline:
    `deadlines.refusal_after_deadline`.) It was withdrawn, not decided: told as decided, a
    person stopping a task and then saying yes to what it proposed was not told why."""
    if proposal.status is not ProposalStatus.WITHDRAWN:
        return ""
    at = f" at {aware(proposal.decided_at):%Y-%m-%d %H:%M} UTC" if proposal.decided_at else ""
    withdrawn = f"This proposal was withdrawn{at}, not decided"
    with_task = f"{proposal.action} was withdrawn: {_WITH_TASK}"
    if proposal.reason.startswith(with_task):
        how = proposal.reason.removeprefix(f"{proposal.action} was withdrawn: ").rstrip(".")
        return (f"{withdrawn}: {how}, and it can no longer be decided. If what it asked is "
                "still wanted, ask for the work again.")
    if proposal.reason == "ruled out":
        return (f"{withdrawn}: the agent's declaration no longer lets it use {proposal.action}, "
                "whoever says yes.")
    return f"{withdrawn}: it can no longer be decided."


def withdraw_with_task(db: repo.Executor, task_id: str, ended: str) -> list[str]:
    """In the transaction `db`, which ends task `task_id` (`ended`: why, as its receipt says):
    withdraw each proposal of it still waiting, its call told so, and say so in the receipt
    (a call proposed before another of its turn failed the task waited in an inbox, and a yes
    ran it, for work that had stopped). The ids withdrawn."""
    c = proposals_table.c
    withdrawn = []
    for proposal_id in [row.id for row in db.execute(select(c.id).where(
            c.task_id == task_id, c.status == ProposalStatus.WAITING.value))]:
        found = repo.load_proposal(db, proposal_id)
        if found is None:
            continue
        proposal, call_id, _ = found
        said = f"{proposal.action} was withdrawn: {_WITH_TASK} ({ended.rstrip('.')})."
        at = repo.now()
        if not repo.claim_proposal(db, proposal, ProposalStatus.WITHDRAWN, decided_at=at,
                                   reason=said):
            continue
        repo.update_call(db, task_id, call_id, state=CallState.DECIDED,
                         outcome=CallOutcome.WITHDRAWN, answer=said, finished_at=at)
        repo.note(db, task_id, ReceiptKind.DECISION, said, proposal=proposal.id,
                  outcome=CallOutcome.WITHDRAWN)
        withdrawn.append(proposal.id)
    return withdrawn


def fingerprint_of(proposal: Proposal, instructions: str, arguments: dict[str, Any] | None = None,
                   subject_version: str | None = None, skill_version: str | None = None,
                   effects: Effects | None = None) -> str:
    """The fingerprint of a proposal: agent, skill and version, tool, arguments, subject version,
    the instruction set, and what the action does. `effects` are its action's effects as its code
    reads now (those shown with it, when not given): while it does what was shown
    (`does_otherwise`), the fingerprint is the one it was made with, as fingerprints were made
    before the effects were part of them (those still waiting do not go stale for it); once it
    does otherwise (the app deployed again with the action doing more), it reads otherwise."""
    parts: dict[str, Any] = {
        "agent": proposal.agent, "skill": proposal.skill,
        "skill_version": skill_version if skill_version is not None else proposal.skill_version,
        "tool": proposal.action,
        "arguments": arguments if arguments is not None else proposal.arguments,
        "subject_version": subject_version if subject_version is not None
        else proposal.subject_version,
        "instructions": instructions,
    }
    if effects is not None and does_otherwise(proposal, effects):
        parts["effects"] = sorted({e.identity for e in effects.effects})
    return fingerprint(parts)


def does_otherwise(proposal: Proposal, effects: Effects) -> str:
    """How `effects` (its action's, as its code reads now) differ from those shown with
    `proposal`, in a person's words ("it now also reaches outside the app (`httpx.post`)", "it
    no longer reaches outside the app (`httpx.post`)"); "" when it does what was shown.

    Effects are compared by their kind, what they reach and the field a change assigns, not
    where in the code they are found: a comment added above the action, or a helper on its path
    renamed, moves them while it does the same. A change shown of one field of a record stands
    for that field only (the person read "changes the `price` of a Repair"); one shown of a
    record with no field named (a list appended to, ``setattr``) stands for any change of it.
    A change shown of nothing named is the same as one of a record now named only where the
    code assigns or calls the same ("changes: box.level =" read, by a newer release of signoff,
    as "changes the `level` of a Box"). What it only reads is never more
    than was shown; a line shown that does not read back as an effect, nor as an older release
    wrote one, stands for nothing now."""
    if tuple(effects.explain()) == tuple(proposal.effects):
        return ""
    shown = [_reached(line) for line in proposal.effects]
    now = [_Reached(e.kind.value, e.target, bool(e.reason), _step(e.path), e.field)
           for e in effects.ordered]
    more = dict.fromkeys(e.words() for e, reached in zip(effects.ordered, now, strict=True)
                         if reached.kind != _READS and not any(s.covers(reached) for s in shown))
    fewer = dict.fromkeys(words for s, words in zip(shown, _words_of(proposal.effects),
                                                    strict=True)
                          if s.kind != _READS and not any(s.covers(n) for n in now))
    said = [f"now also {'; '.join(more)}"] if more else []
    said += [f"no longer {'; '.join(fewer)}"] if fewer else []
    return f"it {', and '.join(said)}" if said else ""


_READS = "reads"


@dataclass(frozen=True)
class _Reached:
    """What an effect is, as `does_otherwise` compares it: its kind, what it reaches ("" when
    not named; None for a line shown that does not read back), whether it was assumed of code
    the analysis could not see, the step of the code that has it, its variable aside, and the
    field a change assigns ("" when it names none)."""

    kind: str
    target: str | None
    assumed: bool
    step: str
    field: str = ""

    def covers(self, other: _Reached) -> bool:
        """Whether this one, shown, stands for `other`: the same kind and target, and when it
        shows the field a change assigns, the same field (a change of a Repair's price does not
        stand for one of its owner); or, shown of nothing named and not assumed, the same step
        of the code now read more finely (an effect assumed stands for other assumed ones, not
        for a call a release names)."""
        if self.target is None or self.kind != other.kind:
            return False
        if self.target == other.target:
            return not self.field or self.field == other.field
        return self.target == "" and not self.assumed and self.step == other.step


def _reached(line: str) -> _Reached:
    """An effect shown with a proposal (an `explain` line), as `does_otherwise` compares it."""
    read = Effect.of_line(line)
    if read is not None:
        return _Reached(read.kind.value, read.target, bool(read.reason), _step(read.path),
                        read.field)
    # Written as an older release wrote it: "changes: set_level -> box.level =" (its value not
    # elided), "kind[ target]: path", its last step after the last arrow.
    head, colon, path = line.partition(": ")
    kind, _, target = head.partition(" ")
    if not colon or " -> " not in path or "(" in head:
        return _Reached(kind, None, False, "")
    return _Reached(kind, target, False, _step((path.rsplit(" -> ", 1)[1].removesuffix(" …"),)))


def _step(path: Sequence[str]) -> str:
    """The last step of an effect's path, its variable aside: "box.level =" → ".level =",
    "items.append()" → ".append()"."""
    last = path[-1] if path else ""
    return last[len(last) - len(last.lstrip("_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                             "0123456789")):]


def _words_of(lines: Sequence[str]) -> list[str]:
    """Each shown effect as a person reads it (its line, when it does not read back)."""
    return [replace(read, at="").words() if (read := Effect.of_line(line)) is not None else line
            for line in lines]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


@dataclass(frozen=True, kw_only=True)
class Kept:
    """A proposal as this process wrote it, with what deciding it reads besides: its tool
    call's id, the instructions it was made under, and its task's row as it read then. A
    decision relies only on what never changes of these; whether the proposal still waits, and
    who may decide it, are checked in the transaction that claims it."""

    proposal: Proposal
    call_id: str
    instructions: str
    task: repo.TaskRow


class KeptProposals:
    """The proposals this process made whose tasks wait on them, by task: a decision taken in
    this process (an inbox served beside the loop) need not read them again. At most `limit`
    are kept, the oldest dropped first: a proposal decided or passed in another process is
    never taken here, and a decision on one no longer kept reads it."""

    def __init__(self, limit: int = 1000) -> None:
        self._limit = limit
        self._by_task: dict[str, dict[str, Kept]] = {}
        self._task_of: dict[str, str] = {}  # in the order they were kept
        self._lock = threading.Lock()

    def keep(self, kept: Kept) -> None:
        """Keep `kept` until it is taken, or its task is forgotten."""
        with self._lock:
            self._by_task.setdefault(kept.task.id, {})[kept.proposal.id] = kept
            self._task_of[kept.proposal.id] = kept.task.id
            while len(self._task_of) > self._limit:
                self._take(next(iter(self._task_of)))

    def take(self, proposal_id: str) -> Kept | None:
        """The proposal `proposal_id` as this process made it, no longer kept (None: not kept)."""
        with self._lock:
            return self._take(proposal_id)

    def _take(self, proposal_id: str) -> Kept | None:
        task_id = self._task_of.pop(proposal_id, None)
        if task_id is None:
            return None
        of_task = self._by_task.get(task_id, {})
        kept = of_task.pop(proposal_id, None)
        if not of_task:
            self._by_task.pop(task_id, None)
        return kept

    def take_task(self, task_id: str) -> list[Kept]:
        """Every proposal kept of task `task_id`, no longer kept."""
        with self._lock:
            of_task = self._by_task.pop(task_id, None) or {}
            for proposal_id in of_task:
                self._task_of.pop(proposal_id, None)
            return list(of_task.values())

    def forget(self, task_id: str) -> None:
        """Keep nothing more of task `task_id`."""
        self.take_task(task_id)

    def __contains__(self, task_id: object) -> bool:
        return task_id in self._by_task


def _shown(skill: Skill[Any, Any], tool: str, argument: str, value: str) -> str:
    """An argument as a person reads it: what the skill's `names` says of it, as text."""
    named = skill.names(tool, argument, value)
    if not isinstance(named, str):
        raise UserError(f"{type(skill).__name__}.names({tool!r}, {argument!r}, …) returned "
                        f"{named!r}: it returns the value as a person reads it, as text.")
    return named
