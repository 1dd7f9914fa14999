"""Turns given from outside: a client that acts as an agent's model (an MCP client) hands the
loop its turns one at a time, and reads what each of its calls came to.

Each turn goes through the same loop as a model's: the gate, proposals and their routing,
standing rules, the receipt. Nothing here decides anything; it only feeds the loop a turn that
was not asked of a model, and reads the calls back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from signoff.agents import repository as repo
from signoff.agents.loop import Loop
from signoff.agents.proposals import Proposal
from signoff.agents.tasks import TaskStatus
from signoff.models.base import Message, Price, Reply, ToolSpec
from signoff.store.database import Database
from signoff.store.tables import proposals

__all__ = ["CallAnswer", "GivenTurn", "answers_of", "take_turn"]


class GivenTurn:
    """The model of a turn a client gave: it answers once, with that turn. Its cost is the
    client's own, not counted here (`price` None: a task it works in has no budget of its own)."""

    price: Price | None = None

    def __init__(self, name: str, reply: Reply) -> None:
        self.name = name
        self._reply: Reply | None = reply

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec], *,
                 max_output_tokens: int) -> Reply:
        """The given turn (once; after it, no tool call at all)."""
        reply, self._reply = self._reply or Reply(), None
        return reply

    def count_tokens(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> int:
        """Nothing is counted: the client pays for its own model."""
        return 0


@dataclass(frozen=True, kw_only=True)
class CallAnswer:
    """What one call of a given turn came to, as it stands now."""

    call: str
    """The tool call's id."""
    turn: int
    """The turn it was asked in."""
    tool: str
    """The tool asked for."""
    state: str
    """"done" (it ran), "refused" (never, or not a tool), "proposed" (it waits on a person),
    "decided" (a person decided it), "running" or "unknown" (a call that reaches outside whose
    run was interrupted)."""
    outcome: str
    """"Done", "Invalid", "Denied", "Gone", "Failed", "Rejected", "Stale", "Withdrawn",
    "Unknown", or "" while nothing came of it."""
    answer: str
    """What the model is told."""
    value: Any
    """The JSON of what the tool returned, when it ran."""
    proposal: Proposal | None
    """The proposal it became, when it was proposed."""

    @property
    def waiting(self) -> bool:
        """Whether it waits on a person's decision."""
        return self.state == "proposed"


def take_turn(loop: Loop, database: Database, task_id: str, reply: Reply, *,
              model_name: str) -> list[CallAnswer]:
    """Give the task one turn (`reply`: the tool calls a client asked for, its text their why):
    each call is gated, run alone, proposed or refused as a model's would be. What each came to.

    A turn left open by a decision made in another thread is settled first; a task that waits
    on a person, or has ended, takes no turn (an empty list)."""
    task = _task(database, task_id)
    for _ in range(3):
        if task.status != TaskStatus.RUNNING.value or not task.turn_open:
            break
        loop.step(task_id)
        task = _task(database, task_id)
    if task.status != TaskStatus.RUNNING.value or task.turn_open:
        return []
    loop.models[task_id] = GivenTurn(model_name, reply)
    try:
        loop.step(task_id)  # the model's turn: the given calls are stored
    finally:
        loop.models.pop(task_id, None)
    after = _task(database, task_id)
    if after.turn == task.turn:
        return []  # it halted at a limit instead
    if after.turn_open:
        loop.step(task_id)  # the tool turn: gated, run, proposed or refused
    return answers_of(database, task_id, after.turn)


def answers_of(database: Database, task_id: str, turn: int) -> list[CallAnswer]:
    """What each call of one turn of a task came to, as it stands now."""
    with database.connect() as db:
        calls = repo.calls_of(db, task_id, turn)
        ids = db.execute(select(proposals.c.id).where(
            proposals.c.tool_call_id.in_([c.id for c in calls]))).scalars().all()
        loaded = [repo.load_proposal(db, proposal_id) for proposal_id in ids]
    proposal_of = {found[1]: found[0] for found in loaded if found is not None}
    return [CallAnswer(call=c.id, turn=c.turn, tool=c.tool, state=c.state, outcome=c.outcome,
                       answer=c.answer, value=c.value, proposal=proposal_of.get(c.id))
            for c in calls]


def _task(database: Database, task_id: str) -> repo.TaskRow:
    with database.connect() as db:
        task = repo.load_task(db, task_id)
    if task is None:
        raise LookupError(f"There is no task with id {task_id}.")
    return task
