"""Proposals with deadlines (issue 15): withdrawn, or put to the next decider, when nobody
decides them in time; a decision after the deadline is refused in words.

Deadlines are passed at a moment the test gives (``now=``), never by waiting; the app is
``tests/deadlines_app.py``, on a SQLite file or a PostgreSQL database of the test's own.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from signoff import (
    AgentProposed,
    AgentRefused,
    DeadlineOutcome,
    ProposalStatus,
    Route,
    TaskStatus,
    UserError,
)
from signoff.cli import main
from signoff.notifications import proposal_message
from signoff.testing import ScriptedModel, says
from signoff.web import create_web_app
from tests.deadlines_app import A_DAY, EIGHT_HOURS, Priced, build, runs, script

ROOT = Path(__file__).resolve().parent.parent
APP = f"{ROOT / 'tests' / 'deadlines_app.py'}:app"
WITHDRAWN_TOLD = ("No one decided set_price by its deadline ({deadline}); it was withdrawn. "
                  "Do not retry it unless asked.")


@pytest.fixture
def shop(database: str) -> Iterator[SimpleNamespace]:
    """The deadline app on a SQLite file or a PostgreSQL database; its connections closed at
    the end."""
    shop = build(database)
    shop.url = database
    yield shop
    shop.app.database.dispose()


def _propose(shop: SimpleNamespace, skill: Any, price: int = 45) -> SimpleNamespace:
    """Start the clerk's work for Mia with `skill`: it waits on the price it proposed."""
    model = script(shop, price)
    outcome = shop.app.agent(shop.Clerk).do(skill, None, for_=shop.mia, model=model)
    assert outcome.status is TaskStatus.WAITING
    (proposal,) = shop.app.proposals(task=outcome.task)
    return SimpleNamespace(outcome=outcome, proposal=proposal, model=model)


def _when(at: datetime) -> str:
    return f"{at.astimezone(UTC):%Y-%m-%d %H:%M} UTC"


def _told(model: Any) -> list[str]:
    """What the model was told as its tools' answers, in its last turn."""
    return [m.text for m in model.seen.messages[-1] if m.role == "tool"]


def test_the_catalogue_says_each_routes_deadline_and_what_then(shop: SimpleNamespace) -> None:
    """`app.skills.catalog()` says who decides each skill's price, for how long, and what
    then."""
    lines = {line.skill: line.decided_by for line in shop.app.skills.catalog()}
    assert lines == {
        "price_ticket": "Noor within 8 hours, then it is withdrawn",
        "price_fleet_ticket": "Noor within 8 hours, then the Finance queue within 1 day, then "
                              "it is withdrawn",
        "price_at_once": "Noor within 1e-06 seconds, then it is withdrawn",
    }


@pytest.mark.parametrize("time", [timedelta(0), timedelta(hours=-1), 8])
def test_a_deadline_is_a_positive_time(time: Any) -> None:
    """A route's deadline that is not a positive timedelta is refused as it is declared."""
    with pytest.raises(UserError, match="a positive timedelta, such as timedelta"):
        Route.to_queue("Finance").within(time)


def test_passing_deadlines_at_a_moment_without_a_time_zone_or_of_no_proposal_is_refused(
        shop: SimpleNamespace) -> None:
    """A moment without its time zone is a UserError saying how to give it; an unknown
    proposal is refused as the verbs refuse one; nothing is passed."""
    work = _propose(shop, shop.PriceTicket())
    naive = datetime(2099, 1, 1)  # the mistake under test: no time zone
    with pytest.raises(UserError, match=r"with its time zone \(datetime.now\(UTC\)\)"):
        shop.app.pass_deadlines(now=naive)
    with pytest.raises(UserError, match="with its time zone"):
        shop.app.pass_deadline(work.proposal, now=naive)
    with pytest.raises(AgentRefused, match=r"^There is no proposal with id nope\.$"):
        shop.app.pass_deadline("nope")
    assert shop.app.proposal(work.proposal).status is ProposalStatus.WAITING


def test_an_unknown_id_is_not_found_whichever_verb_is_asked(shop: SimpleNamespace) -> None:
    """A proposal, task or rule id that names nothing is an `AgentRefused`, as the verbs refuse,
    and a `NotFound`, as `app.outcome` says of an unknown task: one `except` catches it
    everywhere (`app.receipt` and `app.proposal` raised only `AgentRefused`; `app.outcome` and
    an agent's `resume`, only `NotFound`)."""
    from signoff import UnknownId

    for ask in (lambda: shop.app.proposal("nope"), lambda: shop.app.receipt("nope"),
                lambda: shop.app.outcome("nope"), lambda: shop.app.pass_deadline("nope"),
                lambda: shop.app.reject("nope", by=shop.noor, reason="No."),
                lambda: shop.app.approve("nope", by=shop.noor),
                lambda: shop.app.agent(shop.Clerk).resume("nope")):
        with pytest.raises(UnknownId, match=r"^There is no (proposal|task) with id nope\.$"):
            ask()


def test_an_id_given_as_a_uuid_is_read_as_its_text(shop: SimpleNamespace) -> None:
    """Records' ids are UUIDs, proposals' and tasks' are text: a UUID given for a proposal or
    a task is read as its text (one that names nothing is not found, as any unknown id), and
    any other value is told in a sentence — by every verb, `resume` too. (The database refused to
    bind a UUID: a StoreError.)"""
    import uuid

    from signoff import NotFound

    work = _propose(shop, shop.PriceTicket())
    task, proposal = uuid.UUID(work.outcome.task), uuid.UUID(work.proposal.id)
    assert shop.app.outcome(task).task == work.outcome.task
    assert shop.app.proposal(proposal).id == work.proposal.id
    assert shop.app.receipt(task).task == work.outcome.task
    assert [p.id for p in shop.app.proposals(task=task)] == [work.proposal.id]
    nothing = uuid.uuid4()
    with pytest.raises(NotFound, match=f"^There is no proposal with id {nothing}\\.$"):
        shop.app.approve(nothing, by=shop.noor)
    with pytest.raises(NotFound, match=f"^There is no task with id {nothing}\\.$"):
        shop.app.outcome(nothing)
    with pytest.raises(UserError, match=r"^A task is named by its id \(a str\) or its Outcome, "
                                        r"not by a int: 7\.$"):
        shop.app.outcome(7)  # type: ignore[arg-type]
    assert shop.app.reject(proposal, by=shop.noor, reason="No.").status is (
        ProposalStatus.REJECTED)
    assert shop.app.agent(shop.Clerk).resume(task).task == work.outcome.task  # (a StoreError)
    with pytest.raises(NotFound, match=f"^There is no task with id {nothing}\\.$"):
        shop.app.agent(shop.Clerk).resume(nothing)
    with pytest.raises(UserError, match=r"^A task is named by its id \(a str\) or its Outcome"):
        shop.app.agent(shop.Clerk).resume(7)  # type: ignore[arg-type]


def test_proposals_takes_a_limit(shop: SimpleNamespace) -> None:
    """`app.proposals(limit=N)` gives the newest N, with a filter or without (any limit raised
    a KeyError: the limit was taken for a column to filter on)."""
    first, second = _propose(shop, shop.PriceTicket()), _propose(shop, shop.PriceTicket())
    assert [p.id for p in shop.app.proposals(limit=1)] == [second.proposal.id]
    assert [p.id for p in shop.app.proposals(status=ProposalStatus.WAITING, limit=5)] == [
        second.proposal.id, first.proposal.id]
    assert [p.id for p in shop.app.proposals(task=first.outcome.task, limit=1)] == [
        first.proposal.id]


def test_every_time_signoff_keeps_reads_back_in_utc(shop: SimpleNamespace) -> None:
    """A proposal's times, a decision's, a standing rule's and a token's read back aware, in
    UTC, on SQLite as on PostgreSQL: on SQLite they read naive (a proposal's `created_at` could
    not be subtracted from its `deadline_at`, which read aware), though documented as UTC."""
    work = _propose(shop, shop.PriceTicket())
    shop.app.approve(work.proposal, by=shop.noor)
    decided = shop.app.proposal(work.proposal.id)
    rule = shop.app.allow_alone(shop.Clerk, "set_price", by=shop.noor)
    token = shop.app.credentials.issue_token(shop.noor, label="times")
    times = [decided.created_at, decided.decided_at, decided.deadline_at, rule.made_at,
             shop.app.rules()[0].made_at, shop.app.credentials.tokens(shop.noor)[0].created_at]
    assert token
    for when in times:
        assert when is not None
        assert when.utcoffset() == timedelta(0), times
    assert decided.deadline_at - decided.created_at == EIGHT_HOURS


def test_a_proposal_keeps_its_deadline_and_the_task_says_when_it_falls(
        shop: SimpleNamespace) -> None:
    """A routed proposal's deadline is when it was made plus its route's time; the task says
    so (`waiting_until`), and passing it earlier changes nothing."""
    work = _propose(shop, shop.PriceTicket())
    proposal = work.proposal
    assert proposal.created_at is not None
    assert proposal.deadline_at is not None
    assert proposal.deadline_at - proposal.created_at == EIGHT_HOURS
    assert proposal.deadline_at.tzinfo is not None
    assert work.outcome.waiting_until == proposal.deadline_at
    assert shop.app.outcome(work.outcome).waiting_until == proposal.deadline_at
    early = shop.app.pass_deadline(proposal, now=proposal.deadline_at - timedelta(minutes=1))
    assert early.outcome is DeadlineOutcome.NOT_DUE
    assert early.said == f"Its deadline ({_when(proposal.deadline_at)}) has not passed."
    assert shop.app.pass_deadlines(now=proposal.deadline_at - timedelta(minutes=1)) == []
    assert shop.app.proposal(proposal).status is ProposalStatus.WAITING


def test_a_deadline_withdraws_the_proposal_and_the_task_goes_on_told(
        shop: SimpleNamespace) -> None:
    """Past its deadline the proposal is withdrawn, nothing runs, the agent is told in words as
    the tool's answer, and the task finishes; passing it again changes nothing."""
    work = _propose(shop, shop.PriceTicket())
    deadline = work.proposal.deadline_at
    (passed,) = shop.app.pass_deadlines(now=deadline + timedelta(minutes=1))
    assert passed.outcome is DeadlineOutcome.WITHDRAWN
    assert passed.task_status == "Done"
    withdrawn = shop.app.proposal(work.proposal)
    assert withdrawn.status is ProposalStatus.WITHDRAWN
    assert withdrawn.decided_by is None
    assert _told(work.model) == [WITHDRAWN_TOLD.format(deadline=_when(deadline))]
    assert shop.app.outcome(work.outcome).status is TaskStatus.DONE
    assert runs(shop) == 0
    words = [e.words for e in shop.app.receipt(work.outcome).entries]
    assert (f"No one decided set_price by its deadline ({_when(deadline)}); it was withdrawn."
            in words)
    again = shop.app.pass_deadline(work.proposal, now=deadline + timedelta(hours=1))
    assert again.outcome is DeadlineOutcome.ALREADY_DECIDED
    assert again.said == (f"No one decided set_price by its deadline ({_when(deadline)}); it "
                          "was withdrawn already.")


def test_a_deadline_escalates_to_the_finance_queue_which_approves_it_once(
        shop: SimpleNamespace) -> None:
    """Past Noor's deadline the fleet price goes to the Finance queue (told as a new proposal),
    with the queue's own deadline; Noor is refused in words, Fay of Finance approves, it runs
    once and the task finishes."""
    proposed: list[Any] = []
    shop.app.on(AgentProposed, proposed.append)
    work = _propose(shop, shop.PriceFleetTicket())
    assert [shop.app.proposals_for(p) for p in (shop.noor, shop.fay)] == [[work.proposal], []]
    passed_at = work.proposal.deadline_at + timedelta(minutes=5)
    (passed,) = shop.app.pass_deadlines(now=passed_at)
    assert passed.outcome is DeadlineOutcome.ESCALATED
    assert passed.said == (f"No one decided set_price by its deadline "
                           f"({_when(work.proposal.deadline_at)}); it went to the Finance queue.")
    escalated = shop.app.proposal(work.proposal)
    assert (escalated.status, escalated.decide_by, escalated.escalations) == (
        ProposalStatus.WAITING, "the Finance queue", 1)
    assert escalated.deadline_at == passed_at + A_DAY
    assert shop.app.outcome(work.outcome).waiting_until == passed_at + A_DAY
    assert [(e.proposal.decide_person_id, e.proposal.decide_queue) for e in proposed] == [
        (shop.noor.id, None), (None, "Finance")]
    told = proposal_message(proposed[-1].proposal)["proposal"]
    assert (told["decide_by"], told["deadline_at"]) == (
        "the Finance queue", (passed_at + A_DAY).isoformat())
    assert shop.app.proposals_for(shop.noor) == []
    assert [p.id for p in shop.app.proposals_for(shop.fay)] == [work.proposal.id]
    with pytest.raises(AgentRefused) as refused:
        shop.app.approve(work.proposal, by=shop.noor)
    assert str(refused.value) == (f"No one decided set_price by its deadline: it went to the "
                                  f"Finance queue at {_when(passed_at)}, who decide it now.")
    decision = shop.app.approve(work.proposal, by=shop.fay)
    assert decision.status is ProposalStatus.DONE
    assert decision.said == "Fay approved set_price; it ran as Fay and the agent together."
    assert runs(shop) == 1
    assert shop.app.outcome(work.outcome).status is TaskStatus.DONE
    assert shop.app.pass_deadlines(now=passed_at + 2 * A_DAY) == []
    late = shop.app.pass_deadline(work.proposal, now=passed_at + 2 * A_DAY)
    assert (late.outcome, late.said) == (
        DeadlineOutcome.ALREADY_DECIDED, "It was decided before its deadline was passed (Done).")
    words = [e.words for e in shop.app.receipt(work.outcome).entries]
    assert passed.said in words


def test_a_turn_of_two_proposals_goes_on_once_both_deadlines_are_passed(
        shop: SimpleNamespace) -> None:
    """Two prices proposed in one turn: the first withdrawn leaves the task waiting on the
    second (and its deadline); once both are, the agent is told both, and the task finishes."""
    model = ScriptedModel(
        says.tools(says.tool(shop.set_price, ticket=shop.ticket.id, price=40),
                   says.tool(shop.set_price, ticket=shop.ticket.id, price=50),
                   why="Two prices to choose from."),
        says.hand_back(Priced(summary="Told why not.")),
    )
    outcome = shop.app.agent(shop.Clerk).do(shop.PriceTicket(), None, for_=shop.mia, model=model)
    first, second = sorted(shop.app.proposals(task=outcome.task),
                           key=lambda p: p.arguments["price"])
    assert outcome.waiting_until == min(first.deadline_at, second.deadline_at)
    passed = shop.app.pass_deadline(first, now=first.deadline_at)
    assert (passed.outcome, passed.task_status) == (DeadlineOutcome.WITHDRAWN, "Waiting")
    assert shop.app.outcome(outcome).waiting_until == second.deadline_at
    passed = shop.app.pass_deadline(second, now=second.deadline_at)
    assert (passed.outcome, passed.task_status) == (DeadlineOutcome.WITHDRAWN, "Done")
    assert _told(model) == [WITHDRAWN_TOLD.format(deadline=_when(p.deadline_at))
                            for p in (first, second)]
    assert runs(shop) == 0


def test_the_last_deadline_of_a_chain_withdraws_it(shop: SimpleNamespace) -> None:
    """Escalated once and undecided past the queue's deadline too, the proposal is withdrawn."""
    work = _propose(shop, shop.PriceFleetTicket())
    first = work.proposal.deadline_at + timedelta(minutes=1)
    assert [p.outcome for p in shop.app.pass_deadlines(now=first)] == [
        DeadlineOutcome.ESCALATED]
    later = first + A_DAY + timedelta(minutes=1)
    assert [p.outcome for p in shop.app.pass_deadlines(now=later)] == [
        DeadlineOutcome.WITHDRAWN]
    assert shop.app.proposal(work.proposal).status is ProposalStatus.WITHDRAWN
    assert shop.app.outcome(work.outcome).status is TaskStatus.DONE


@pytest.mark.parametrize("verb", ["approve", "reject"])
def test_a_decision_after_the_deadline_is_refused_in_words(
        shop: SimpleNamespace, verb: str) -> None:
    """A yes or a no after the proposal was withdrawn at its deadline is refused, saying what,
    by when, and when it was withdrawn; nothing runs."""
    work = _propose(shop, shop.PriceTicket())
    deadline = work.proposal.deadline_at
    passed_at = deadline + timedelta(minutes=3)
    shop.app.pass_deadline(work.proposal, now=passed_at)
    def decide() -> Any:
        if verb == "approve":
            return shop.app.approve(work.proposal, by=shop.noor)
        return shop.app.reject(work.proposal, by=shop.noor, reason="Too dear.")

    with pytest.raises(AgentRefused) as refused:
        decide()
    assert str(refused.value) == (
        f"No one decided set_price by its deadline ({_when(deadline)}): it was withdrawn at "
        f"{_when(passed_at)}, and can no longer be decided; the agent was told, and went on.")
    assert runs(shop) == 0


def test_a_decision_on_a_due_proposal_passes_its_deadline_first(shop: SimpleNamespace) -> None:
    """Deciding a proposal whose deadline has passed, though no worker has passed it yet, passes
    it first (withdrawn, the agent told, the task finished), then refuses the decision."""
    work = _propose(shop, shop.PriceAtOnce())
    with pytest.raises(AgentRefused, match=r"^No one decided set_price by its deadline \(.*\): "
                                           r"it was withdrawn at .*, and can no longer be "
                                           r"decided; the agent was told, and went on\.$"):
        shop.app.approve(work.proposal, by=shop.noor)
    assert shop.app.proposal(work.proposal).status is ProposalStatus.WITHDRAWN
    assert shop.app.outcome(work.outcome).status is TaskStatus.DONE
    assert runs(shop) == 0
    (told,) = _told(work.model)
    assert told.endswith("; it was withdrawn. Do not retry it unless asked.")


def test_a_decision_on_a_due_proposal_that_goes_on_is_the_next_deciders(
        shop: SimpleNamespace) -> None:
    """Deciding a due fleet price passes its deadline first; it goes to the Finance queue, so
    Fay of Finance, deciding it, approves it at once (it runs once); Noor is refused in words."""
    work = _propose(shop, shop.PriceFleetTicket())
    other = _propose(shop, shop.PriceFleetTicket(), price=50)
    due = work.proposal.deadline_at + timedelta(minutes=5)
    with pytest.MonkeyPatch.context() as clock:  # the moment of deciding: past both deadlines
        clock.setattr("signoff.agents.repository.now", lambda: due)
        decision = shop.app.approve(work.proposal, by=shop.fay)
        with pytest.raises(AgentRefused, match=r"^No one decided set_price by its deadline: it "
                                               r"went to the Finance queue at .*, who decide it "
                                               r"now\.$"):
            shop.app.approve(other.proposal, by=shop.noor)
    assert decision.status is ProposalStatus.DONE
    assert decision.said == "Fay approved set_price; it ran as Fay and the agent together."
    assert runs(shop) == 1
    assert shop.app.proposal(other.proposal).escalations == 1


def test_a_deadline_longer_than_a_hundred_years_is_refused() -> None:
    """A deadline that could not be counted from a proposal's moment is refused as it is
    declared, saying the longest one and that a route without one waits as long as it takes."""
    with pytest.raises(UserError, match=r"^A route's deadline is at most 36500 days \(a proposal "
                                        r"without one waits as long as it takes\)"):
        Route.to_queue("Finance").within(timedelta(days=999_999_999))
    assert Route.to_queue("Finance").within(timedelta(days=36_500)).deadline == timedelta(
        days=36_500)


def test_an_app_that_does_not_declare_the_agent_passes_none_of_its_deadlines(
        shop: SimpleNamespace) -> None:
    """What happens at a deadline is the skill's route: an app on the same database that does
    not declare the agent passes none of its proposals' deadlines (it says why, and passes the
    others), where the one that does escalates it as its route says."""
    from signoff import App

    work = _propose(shop, shop.PriceFleetTicket())
    due = work.proposal.deadline_at + timedelta(minutes=5)
    elsewhere = App("deadlines", database=shop.url)
    try:
        assert elsewhere.pass_deadlines(now=due) == []
        with pytest.raises(UserError, match=r"is not passed here: this app does not declare "):
            elsewhere.pass_deadline(work.proposal, now=due)
    finally:
        elsewhere.database.dispose()
    waiting = shop.app.proposal(work.proposal)
    assert (waiting.status, waiting.escalations) == (ProposalStatus.WAITING, 0)
    (passed,) = shop.app.pass_deadlines(now=due)
    assert passed.outcome is DeadlineOutcome.ESCALATED


def test_a_worker_passes_deadlines_and_goes_on_with_the_task(shop: SimpleNamespace) -> None:
    """A worker in another process (another app on the same database) passes what is due at
    its look, and steps the task on to its end with its model."""
    work = _propose(shop, shop.PriceTicket())
    other = build(shop.url)
    try:
        worker = other.app.worker(model_for=lambda _agent, _task: work.model)
        assert worker.run_once(now=work.proposal.deadline_at - timedelta(seconds=1)) == 0
        assert other.app.proposal(work.proposal.id).status is ProposalStatus.WAITING
        assert worker.run_once(now=work.proposal.deadline_at) == 1
    finally:
        other.app.database.dispose()
    assert shop.app.proposal(work.proposal).status is ProposalStatus.WITHDRAWN
    assert shop.app.outcome(work.outcome).status is TaskStatus.DONE
    assert _told(work.model) == [WITHDRAWN_TOLD.format(deadline=_when(
        work.proposal.deadline_at))]


def test_a_decision_racing_the_deadline_exactly_one_wins(shop: SimpleNamespace) -> None:
    """Noor's decision and the deadline, passed at the same moment from two apps on the same
    database (two threads, as two processes), over and over: exactly one wins each time, the
    price runs once when the decision won and never otherwise, and the loser is told why."""
    rounds = []
    for n in range(6):
        skill = shop.PriceTicket() if n % 2 else shop.PriceFleetTicket()
        rounds.append(_propose(shop, skill, price=100 + n))
    deciding, passing = build(shop.url), build(shop.url)
    won: list[str] = []
    try:
        for work in rounds:
            barrier = threading.Barrier(2, timeout=60)
            results: dict[str, Any] = {}

            def decide(work: SimpleNamespace = work, barrier: threading.Barrier = barrier,
                       results: dict[str, Any] = results) -> None:
                barrier.wait()
                try:
                    results["decision"] = deciding.app.approve(work.proposal.id, by=deciding.noor)
                except AgentRefused as refused:
                    results["decision"] = refused

            def pass_it(work: SimpleNamespace = work, barrier: threading.Barrier = barrier,
                        results: dict[str, Any] = results) -> None:
                barrier.wait()
                results["deadline"] = passing.app.pass_deadline(
                    work.proposal.id, now=work.proposal.deadline_at + timedelta(seconds=1))

            threads = [threading.Thread(target=decide), threading.Thread(target=pass_it)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=120)
            decision, deadline = results["decision"], results["deadline"]
            if isinstance(decision, AgentRefused):
                assert deadline.changed, deadline
                assert str(decision).startswith("No one decided set_price by its deadline")
                won.append("deadline")
            else:
                assert decision.status is ProposalStatus.DONE
                assert deadline.outcome is DeadlineOutcome.ALREADY_DECIDED
                won.append("decision")
    finally:
        deciding.app.database.dispose()
        passing.app.database.dispose()
    assert runs(shop) == won.count("decision")
    for n, (work, winner) in enumerate(zip(rounds, won, strict=True)):
        now = shop.app.proposal(work.proposal)
        if winner == "decision":
            assert (now.status, now.escalations) == (ProposalStatus.DONE, 0)
        elif n % 2:  # withdrawn at its deadline
            assert (now.status, now.escalations) == (ProposalStatus.WITHDRAWN, 0)
        else:  # gone to the Finance queue
            assert (now.status, now.escalations) == (ProposalStatus.WAITING, 1)


# -- the command and the REST API --------------------------------------------------------


@pytest.fixture
def filed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    """The app in a SQLite file the command opens too, with a profile in a temp dir."""
    url = f"sqlite:///{tmp_path / 'deadlines.db'}"
    monkeypatch.setenv("DEADLINES_DATABASE", url)
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    shop = build(url)
    yield shop
    shop.app.database.dispose()


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_the_command_shows_deadlines_and_refuses_a_late_decision_in_words(
        filed: SimpleNamespace) -> None:
    """`signoff proposals` and `proposals show` say by when, and what then; after the deadline,
    `signoff approve` prints the refusal's sentence and exits 1, and `proposals show` says it
    was withdrawn by nobody."""
    work = _propose(filed, filed.PriceTicket())
    deadline = work.proposal.deadline_at
    token = filed.app.credentials.issue_token(filed.noor)
    code, out = _cli("proposals", "--app", APP, "--token", token)
    assert code == 0, out
    assert f"— to be decided by Noor, by {_when(deadline)}" in out
    code, out = _cli("proposals", "show", work.proposal.id, "--app", APP, "--token", token)
    assert f"Deadline: Decide it by {_when(deadline)}; then it is withdrawn." in out
    code, out = _cli("proposals", "show", work.proposal.id, "--app", APP, "--token", token,
                     "--json")
    assert datetime.fromisoformat(json.loads(out)["deadline_at"]) == deadline
    filed.app.pass_deadline(work.proposal, now=deadline + timedelta(minutes=1))
    code, out = _cli("approve", work.proposal.id, "--app", APP, "--token", token)
    assert code == 1, out
    assert (f"No one decided set_price by its deadline ({_when(deadline)}): it was withdrawn at "
            f"{_when(deadline + timedelta(minutes=1))}, and can no longer be decided") in out
    assert "Traceback" not in out
    code, out = _cli("proposals", "show", work.proposal.id, "--app", APP, "--token", token)
    assert "Decided by: nobody. Status: Withdrawn. No one decided set_price" in out


def test_signoff_worker_passes_the_deadlines_due(filed: SimpleNamespace) -> None:
    """`signoff worker --once` passes a deadline that has fallen due: the proposal is
    withdrawn, and the task is left for a worker with its model, which finishes it."""
    work = _propose(filed, filed.PriceAtOnce())
    code, out = _cli("worker", "--app", APP, "--once")
    assert code == 0, out
    assert "passed 1 deadline(s)" in out
    assert filed.app.proposal(work.proposal).status is ProposalStatus.WITHDRAWN
    filed.app.worker(model_for=lambda _agent, _task: work.model).run_once()
    assert filed.app.outcome(work.outcome).status is TaskStatus.DONE


def test_the_rest_api_shows_deadlines_and_refuses_late_decisions_in_words(
        filed: SimpleNamespace) -> None:
    """The API lists the deadline; after it, Noor's approval of the withdrawn price is a 409
    and her approval of the escalated one a 403, each with the refusal's sentence; Fay of
    Finance approves the escalated one."""
    client = TestClient(create_web_app(filed.app, secure_cookies=False))
    noor = {"Authorization": f"Bearer {filed.app.credentials.issue_token(filed.noor)}"}
    fay = {"Authorization": f"Bearer {filed.app.credentials.issue_token(filed.fay)}"}
    plain = _propose(filed, filed.PriceTicket())
    fleet = _propose(filed, filed.PriceFleetTicket())
    listed = {p["id"]: p for p in client.get("/api/proposals", headers=noor).json()["items"]}
    assert datetime.fromisoformat(listed[plain.proposal.id]["deadline_at"]) == (
        plain.proposal.deadline_at)
    later = max(plain.proposal.deadline_at, fleet.proposal.deadline_at) + timedelta(minutes=1)
    assert {p.outcome for p in filed.app.pass_deadlines(now=later)} == {
        DeadlineOutcome.WITHDRAWN, DeadlineOutcome.ESCALATED}
    late = client.post(f"/api/proposals/{plain.proposal.id}/approve", headers=noor, json={})
    assert late.status_code == 409
    assert late.json()["detail"].startswith(
        f"No one decided set_price by its deadline ({_when(plain.proposal.deadline_at)}): it "
        "was withdrawn at")
    moved = client.post(f"/api/proposals/{fleet.proposal.id}/approve", headers=noor, json={})
    assert moved.status_code == 403
    assert moved.json()["detail"] == (f"No one decided set_price by its deadline: it went to "
                                      f"the Finance queue at {_when(later)}, who decide it now.")
    approved = client.post(f"/api/proposals/{fleet.proposal.id}/approve", headers=fay, json={})
    assert approved.status_code == 200, approved.json()
    assert runs(filed) == 1


def test_the_inbox_pages_show_the_deadline_and_a_late_refusal(filed: SimpleNamespace) -> None:
    """Noor's inbox lists by when to decide, the proposal's page says what then; once it went
    to Finance, her yes from the page is refused with the sentence, and nothing runs."""
    from html import escape

    filed.app.credentials.set_password(filed.noor, "a long enough password")
    client = TestClient(create_web_app(filed.app, secure_cookies=False))
    work = _propose(filed, filed.PriceFleetTicket())
    deadline = work.proposal.deadline_at
    login = client.get("/login")
    csrf = re.search(r'name="csrf" value="([^"]+)"', login.text)
    assert csrf is not None
    client.post("/login", data={"csrf": csrf.group(1), "next": "/", "handle": filed.noor.handle,
                                "password": "a long enough password"})
    assert f"by {_when(deadline)}" in client.get("/").text
    page = client.get(f"/proposals/{work.proposal.id}")
    assert (f"Decide it by {_when(deadline)}; then it goes to the Finance queue.") in page.text
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert csrf is not None
    passed_at = deadline + timedelta(minutes=1)
    filed.app.pass_deadline(work.proposal, now=passed_at)
    answer = client.post(f"/proposals/{work.proposal.id}/approve",
                         data={"csrf": csrf.group(1), "approve": "1"})
    assert answer.url.path == f"/proposals/{work.proposal.id}"  # back on its page, which says
    assert escape(f"No one decided set_price by its deadline: it went to the Finance queue at "
                  f"{_when(passed_at)}, who decide it now.") in answer.text
    assert runs(filed) == 0
