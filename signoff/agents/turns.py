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

from sqlalchemy import bindparam, select

from signoff.agents import repository as repo
from signoff.agents.loop import Loop
from signoff.agents.model_specs import GIVEN, given_from_outside
from signoff.agents.proposals import Proposal
from signoff.agents.states import CallState
from signoff.agents.steps import RunAgain, Step
from signoff.models.base import Message, Price, Reply, ToolSpec
from signoff.store.database import Database
from signoff.store.tables import proposals

__all__ = ["GIVEN", "CallAnswer", "GivenTurn", "answers_of", "given_from_outside", "take_turn"]

class GivenTurn:
    """The model of a turn a client gave: it answers once, with that turn. Its cost is the
    client's own, counted here as nothing (`price` zero): a task it works in spends from its
    budget only what its tools spend."""

    price: Price | None = Price(input_per_mtok=0.0, output_per_mtok=0.0)

    def __init__(self, name: str, reply: Reply) -> None:
        self.name = name if given_from_outside(name) else name + GIVEN
        self._reply: Reply | None = reply
        self.taken = False
        """Whether the loop has taken the turn."""

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec], *,
                 max_output_tokens: int) -> Reply:
        """The given turn (once; after it, no tool call at all)."""
        reply, self._reply, self.taken = self._reply or Reply(), None, True
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
    "Unknown", "Unavailable", or "" while nothing came of it."""
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
    on a person, has ended or stops at a limit takes no turn (an empty list)."""
    given = GivenTurn(model_name, reply)
    ran = 0
    tools_next = True

    def last() -> bool:  # the tools' unit: the turn closes and lets the task go in one write
        return given.taken

    def more(step: Step) -> bool:
        nonlocal ran, tools_next
        ran += 1
        if not given.taken:  # an open turn settles first, then the given turn is taken ...
            return ran < 3
        # ... and its tools' unit follows under the same hold: gated, run, proposed or refused
        asked, tools_next = tools_next, False
        return asked and bool(reply.tool_calls)

    loop.models[task_id] = given
    with database.holding():  # one connection for the turn's units and the answers' read
        try:
            step = loop.step(task_id, more=more, last=last)
        finally:
            loop.models.pop(task_id, None)
        if not given.taken or not reply.tool_calls:
            return []
        closed = step.answered if isinstance(step, RunAgain) else ()
        if closed and all(c.state not in _DECIDED for c in closed):
            return [_answer(c) for c in closed]  # as the turn closed: nothing to read again
        return answers_of(database, task_id, call=reply.tool_calls[0].id)


_DECIDED = (CallState.PROPOSED, CallState.DECIDED)
"""The states of a call that has a proposal (read with its answer)."""


def _answer(call: repo.CallRow, proposal: Proposal | None = None) -> CallAnswer:
    return CallAnswer(call=call.id, turn=call.turn, tool=call.tool, state=call.state,
                      outcome=call.outcome, answer=call.answer, value=call.value,
                      proposal=proposal)


_PROPOSALS_OF_TASK = select(proposals.c.id, proposals.c.tool_call_id).where(
    proposals.c.task_id == bindparam("task"))


def answers_of(database: Database, task_id: str, turn: int | None = None, *,
               call: str = "") -> list[CallAnswer]:
    """What each call of one turn of a task came to, as it stands now: the turn given by its
    number, or by the id a call of it was asked with (`call`)."""
    with database.connect() as db:
        if turn is None:  # the task's latest turn, when the call is of it (as it is when a
            # client gives one turn at a time); else the turn found by the call's id
            head = repo.load_task(db, task_id)
            calls = repo.calls_of(db, task_id, head.turn) if head is not None else []
            if not any(c.call_id == call for c in calls):
                every = repo.calls_of(db, task_id)
                turn = next((c.turn for c in every if c.call_id == call), None)
                calls = [c for c in every if c.turn == turn]
        else:
            calls = repo.calls_of(db, task_id, turn)
        put = {c.id for c in calls if c.state in _DECIDED}
        ids = [row.id for row in db.execute(_PROPOSALS_OF_TASK, {"task": task_id})
               if row.tool_call_id in put] if put else []
        loaded = [repo.load_proposal(db, proposal_id) for proposal_id in ids]
    proposal_of = {found[1]: found[0] for found in loaded if found is not None}
    return [_answer(c, proposal_of.get(c.id)) for c in calls]
