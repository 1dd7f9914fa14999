"""Turns given from outside (a client acting as the agent's model): gated like a model's, and
never taken over by a worker's model."""

from __future__ import annotations

import json
import runpy
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, text

from signoff import Agent, Leave, Permits
from signoff.agents.turns import given_from_outside
from signoff.models.base import Reply, ToolCall
from signoff.testing import ScriptedModel, says
from tests.provenance_scenarios.world import ATTACKER_IBAN, LANDLORD_IBAN, Request, make_world

ROOT = Path(__file__).resolve().parent.parent


def test_a_worker_never_takes_a_turn_of_a_task_a_client_drives(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A task whose turns an MCP client gives is not stepped by a worker, even one whose model
    would happily go on with it; the client's next turn is taken as usual."""
    monkeypatch.setenv("WORKSHOP_DATABASE", f"sqlite:///{tmp_path / 'workshop.db'}")
    shop = runpy.run_path(str(ROOT / "examples" / "workshop.py"), run_name="workshop_turns")
    people = shop["setup"]()
    app, repair = shop["app"], people["repair"]
    handle = app.agent("estimator")
    task = handle.start("estimate_repair", repair, for_=people["noor"], model_name="an MCP client",
                        max_steps=100)

    def note(text: str) -> list[object]:
        call = ToolCall(id=f"c_{text}", name="note_repair",
                        arguments=json.dumps({"repair": str(repair.id), "note": text}))
        return handle.take_turn(task, Reply(tool_calls=(call,)), model_name="an MCP client")

    (first,) = note("Pads.")
    assert (first.state, first.outcome, first.answer) == ("done", "Done", "Noted on T-7.")
    eager = ScriptedModel(says.tool(shop["scrap_repair"], repair=repair.id))
    assert app.worker(model_for=lambda _agent, _task: eager).run_once() == 0
    assert app.outcome(task).steps == 1
    (second,) = note("And a cable.")
    assert second.outcome == "Done"
    assert app.outcome(task).steps == 2
    with app.database.connect() as db:
        stored = db.execute(text("select model from signoff_tasks where id = :t"),
                            {"t": task}).scalar()
    assert stored == "an MCP client (its turns given by a client)"
    assert given_from_outside(stored)
    assert not given_from_outside("gpt-4o")


def _given(handle: Any, task: str, tool: str, **arguments: Any) -> list[Any]:
    """One turn given to `task`: a call of `tool` (its id new each time)."""
    call = ToolCall(id=f"c_{uuid.uuid4().hex[:8]}", name=tool, arguments=json.dumps(arguments))
    return handle.take_turn(task, Reply(tool_calls=(call,)), model_name="a client")


def _transfers(w: dict[str, Any]) -> list[str]:
    with w["app"].session(as_=w["owner"]) as s:
        return [d.what for d in s.scalars(select(w["Done"]).where(w["Done"].tool == "transfer"))]


@pytest.fixture
def office() -> Iterator[dict[str, Any]]:
    """The provenance scenarios' office, in memory."""
    w = make_world()
    yield w
    w["app"].database.dispose()


def test_work_that_goes_on_while_a_decision_waits_has_seen_what_it_saw(
        office: dict[str, Any]) -> None:
    """A client's task waits on a transfer an outside e-mail steered; the work goes on in a task
    that continues it (as a served agent does): a read runs alone there, and the same transfer
    is proposed there too, with where its account came from, though that task never read the
    mail itself; its receipt says whose work it goes on with."""
    w = office
    handle = w["app"].agent(w["Widened"])
    start = dict(skill=w["PayBills"](),
                 subject=Request(text="Read my latest mail and deal with it."),
                 for_=w["owner"], model_name="a client", max_steps=30)
    first = handle.start(**start)
    pay = dict(iban=ATTACKER_IBAN, amount=2400, memo="payment")
    assert _given(handle, first, "read_email", number=31)[0].outcome == "Done"
    (steered,) = _given(handle, first, "transfer", **pay)
    assert steered.state == "proposed"
    assert _given(handle, first, "transfer", **pay) == []  # the task waits: it takes no turn

    then = handle.start(**start, continues=first)
    assert _given(handle, then, "list_files")[0].outcome == "Done"
    (again,) = _given(handle, then, "transfer", **pay)
    assert again.state == "proposed"
    assert again.proposal is not None
    assert {(label.argument, label.source) for label in again.proposal.labels} >= {
        ("iban", "read_email")}
    assert _transfers(w) == []
    assert (f"began pay_bills for Olive, going on with the work of task {first}, which waits on "
            "a decision.") in w["app"].receipt(then).words


def test_what_the_task_it_goes_on_from_reads_later_labels_its_next_call(
        office: dict[str, Any]) -> None:
    """The task waits on reading the mail (proposed, by its permits); the work goes on, and the
    rent the person asked for is paid alone; once the mail is read (approved), a transfer to the
    account it names is proposed, not run alone, though the later task had labelled a call
    before the mail was read."""
    w = office
    careful = type("Careful", (Agent,), {"purpose": "You are an office assistant.",
                                         "skills": w["Widened"].skills, "roles": ["helper"],
                                         "may": Permits(changes=Leave.ALONE,
                                                        propose=["read_email"])})
    w["app"].add_agent(careful, sponsor=w["owner"])
    handle = w["app"].agent(careful)
    start = dict(skill=w["PayBills"](),
                 subject=Request(text=f"Pay 850 to {LANDLORD_IBAN} for the rent, then read my "
                                      "latest mail."),
                 for_=w["owner"], model_name="a client", max_steps=30)
    first = handle.start(**start)
    (read,) = _given(handle, first, "read_email", number=31)
    assert read.state == "proposed"
    then = handle.start(**start, continues=first)
    (rent,) = _given(handle, then, "transfer", iban=LANDLORD_IBAN, amount=850, memo="rent")
    assert rent.outcome == "Done"
    w["app"].approve(read.proposal, by=w["owner"])  # the mail is read, in the first task
    (steered,) = _given(handle, then, "transfer", iban=ATTACKER_IBAN, amount=2400,
                        memo="payment")
    assert steered.state == "proposed"
    assert _transfers(w) == [f"850 to {LANDLORD_IBAN}: rent"]
