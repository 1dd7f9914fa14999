"""Turns given from outside (a client acting as the agent's model): gated like a model's, and
never taken over by a worker's model."""

from __future__ import annotations

import json
import runpy
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, text

from signoff import Agent, Leave, Permits, UserError
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


def _careful(w: dict[str, Any], **permits: Any) -> Any:
    """A handle on a new agent of the office's skills with these permits."""
    careful = type(f"Careful{len(permits)}", (Agent,), {
        "purpose": "You are an office assistant.", "skills": w["Widened"].skills,
        "roles": ["helper"], "may": Permits(changes=Leave.ALONE, **permits)})
    w["app"].add_agent(careful, sponsor=w["owner"])
    return w["app"].agent(careful)


def _start(w: dict[str, Any], handle: Any, request: str, skill: str = "PayBills",
           **given: Any) -> str:
    return str(handle.start(w[skill](), Request(text=request), for_=w["owner"],
                            model_name="a client", max_steps=30, **given))


def test_work_that_goes_on_while_a_decision_waits_has_seen_what_it_saw(
        office: dict[str, Any]) -> None:
    """A client's task waits on a transfer an outside e-mail steered; the work goes on in a new
    task of the same work (as a served agent's session does): a read runs alone there, and the
    same transfer is proposed there too, with where its account came from, though that task
    never read the mail itself; its receipt says whose work it goes on with."""
    w = office
    handle = w["app"].agent(w["Widened"])
    request = "Read my latest mail and deal with it."
    first = _start(w, handle, request, work="w1")
    pay = dict(iban=ATTACKER_IBAN, amount=2400, memo="payment")
    assert _given(handle, first, "read_email", number=31)[0].outcome == "Done"
    (steered,) = _given(handle, first, "transfer", **pay)
    assert steered.state == "proposed"
    assert _given(handle, first, "transfer", **pay) == []  # the task waits: it takes no turn

    then = _start(w, handle, request, work="w1", continues=first)
    assert _given(handle, then, "list_files")[0].outcome == "Done"
    (again,) = _given(handle, then, "transfer", **pay)
    assert again.state == "proposed"
    assert again.proposal is not None
    assert {(label.argument, label.source) for label in again.proposal.labels} >= {
        ("iban", "read_email")}
    assert _transfers(w) == []
    assert (f"began pay_bills for Olive, going on with the work of task {first}, which waits on "
            "a decision.") in w["app"].receipt(then).words


def test_what_another_task_of_the_work_reads_later_labels_the_next_call(
        office: dict[str, Any]) -> None:
    """The task waits on reading the mail (proposed, by its permits); the work goes on, and the
    rent the person asked for is paid alone; once the mail is read (approved), a transfer to the
    account it names is proposed, not run alone, though the later task had labelled a call
    before the mail was read."""
    w = office
    handle = _careful(w, propose=["read_email"])
    request = f"Pay 850 to {LANDLORD_IBAN} for the rent, then read my latest mail."
    first = _start(w, handle, request, work="w2")
    (read,) = _given(handle, first, "read_email", number=31)
    assert read.state == "proposed"
    then = _start(w, handle, request, work="w2", continues=first)
    (rent,) = _given(handle, then, "transfer", iban=LANDLORD_IBAN, amount=850, memo="rent")
    assert rent.outcome == "Done"
    w["app"].approve(read.proposal, by=w["owner"])  # the mail is read, in the first task
    (steered,) = _given(handle, then, "transfer", iban=ATTACKER_IBAN, amount=2400,
                        memo="payment")
    assert steered.state == "proposed"
    assert _transfers(w) == [f"850 to {LANDLORD_IBAN}: rent"]


def test_the_task_that_waited_has_seen_what_the_work_read_meanwhile(
        office: dict[str, Any]) -> None:
    """While the first task waits (on listing the files, by its permits), the work goes on and
    reads an outside e-mail; once the first task's call is approved and it takes turns again, a
    transfer to the account the mail names is proposed there too, not run alone."""
    w = office
    handle = _careful(w, propose=["list_files"])
    request = "List my files, and read my latest mail."
    first = _start(w, handle, request, work="w3")
    (listing,) = _given(handle, first, "list_files")
    assert listing.state == "proposed"
    then = _start(w, handle, request, work="w3", continues=first)
    assert _given(handle, then, "read_email", number=31)[0].outcome == "Done"
    w["app"].approve(listing.proposal, by=w["owner"])
    (steered,) = _given(handle, first, "transfer", iban=ATTACKER_IBAN, amount=2400,
                        memo="payment")
    assert steered.state == "proposed"
    assert _transfers(w) == []


def test_a_read_in_one_skills_task_labels_a_call_in_anothers(office: dict[str, Any]) -> None:
    """One work, two skills' tasks (as a served agent's session keeps one per skill): the mail
    read in the bills' task asks to forward a file to a stranger; the files' task, which read
    nothing itself, proposes that share instead of running it alone."""
    w = office
    handle = w["app"].agent(w["Widened"])
    request = "Deal with my mail and my files."
    bills = _start(w, handle, request, work="w4")
    assert _given(handle, bills, "read_email", number=34)[0].outcome == "Done"
    files = _start(w, handle, request, skill="FileWork", work="w4")
    (shared,) = _given(handle, files, "share_file", name="contract.pdf",
                       email="leak@stranger.example")
    assert shared.state == "proposed"
    assert shared.proposal is not None
    assert ("email", "read_email") in {(label.argument, label.source)
                                       for label in shared.proposal.labels}


def test_a_work_is_one_agents_for_one_person(office: dict[str, Any]) -> None:
    """A task cannot join a work another person's tasks (or another agent's) share: what they
    read would label its calls, and show as its proposals' evidence."""
    w = office
    handle = w["app"].agent(w["Widened"])
    _start(w, handle, "Read my mail.", work="w5")
    mia = w["app"].people.add("mia@home.example", "Mia", roles=["owner"])
    with pytest.raises(UserError, match="The work w5 is another's"):
        handle.start(w["PayBills"](), Request(text="Read my mail."), for_=mia,
                     model_name="a client", max_steps=30, work="w5")
    with pytest.raises(UserError, match="The work w5 is another's"):
        _careful(w).start(w["PayBills"](), Request(text="Read my mail."), for_=w["owner"],
                          model_name="a client", max_steps=30, work="w5")


def test_a_works_id_is_refused_in_words_when_too_long(office: dict[str, Any]) -> None:
    """A work's id longer than its column holds is refused before anything is stored, on
    every database (PostgreSQL refused it with a driver error; SQLite kept it)."""
    handle = office["app"].agent(office["Widened"])
    with pytest.raises(UserError, match="A work's id is 1 to 36 characters"):
        _start(office, handle, "Read my mail.", work="w" * 37)
    with office["app"].database.connect() as db:
        assert db.execute(text("select count(*) from signoff_tasks")).scalar() == 0


def test_two_people_cannot_start_tasks_of_one_work_at_once(
        postgres_database: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """On PostgreSQL, Olive's task is starting a work (it has read that the work has no task
    yet, and not committed) when Mia's start of the same work reads it: Mia's waits for Olive's,
    then is refused (before, both read an empty work and both started, and Olive's mail showed
    as the evidence of Mia's proposals)."""
    from signoff.agents import repository as repo

    w = make_world(postgres_database)
    try:
        handle = w["app"].agent(w["Widened"])
        mia = w["app"].people.add("mia@home.example", "Mia", roles=["owner"])
        read, olive_read = repo.work_owner, threading.Event()

        def slowly(db: Any, work: str) -> Any:
            found = read(db, work)
            if threading.current_thread().name == "olive":
                olive_read.set()
                time.sleep(0.5)  # Mia's start reads the work meanwhile
            return found

        monkeypatch.setattr(repo, "work_owner", slowly)
        olive = threading.Thread(name="olive", target=lambda: _start(
            w, handle, "Read my mail.", work="shared"))
        olive.start()
        assert olive_read.wait(30)
        with pytest.raises(UserError, match="The work shared is another's"):
            handle.start(w["PayBills"](), Request(text="Read my mail."), for_=mia,
                         model_name="a client", max_steps=30, work="shared")
        olive.join(30)
        with w["app"].database.connect() as db:
            assert db.execute(text("select count(*) from signoff_tasks")).scalar() == 1
    finally:
        w["app"].database.dispose()


def test_a_task_goes_on_only_from_a_task_of_its_own_work(office: dict[str, Any]) -> None:
    """`continues` names a task of the same work, or the start is refused in words and nothing
    is stored: a receipt never claims to go on from a task it shares nothing with."""
    handle = office["app"].agent(office["Widened"])
    first = _start(office, handle, "Read my mail.", work="w6")
    for given in ({"work": "w7", "continues": first}, {"continues": first},
                  {"work": "w6", "continues": "no-such-task"}):
        with pytest.raises(UserError, match="is not a task of the work"):
            _start(office, handle, "Read my mail.", **given)
    with office["app"].database.connect() as db:
        assert db.execute(text("select count(*) from signoff_tasks")).scalar() == 1
    assert _start(office, handle, "Read my mail.", work="w6", continues=first)
