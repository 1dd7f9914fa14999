"""A yes given in a process that cannot take the task up (it has no model for it: the task was
started elsewhere, with a model given in code) leaves the task Running, and the decision says
why and what goes on with it (`task_problem`); it said nothing ("" beside "Running"), and the
inbox's API and `signoff approve` showed nothing. On one SQLite file.

It then said the task goes on "in a worker that can make its model", though no worker can make
a model given in code (its agent declaring none): `signoff worker` stepped nothing, and the
decider waited on it. It now says where the task can go on."""

from __future__ import annotations

from pathlib import Path

from signoff import ProposalStatus, TaskStatus
from tests.deadlines_app import build, script


def test_a_yes_in_a_process_without_the_tasks_model_says_why_it_stays_running(
        tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'running.db'}"
    started = build(url)
    elsewhere = build(url)  # (another process's app: it has no model for the task)
    try:
        outcome = started.app.agent(started.Clerk).do(started.PriceTicket(), None,
                                                      for_=started.mia, model=script(started))
        assert outcome.status is TaskStatus.WAITING
        (proposal,) = started.app.proposals(task=outcome.task)
        decision = elsewhere.app.approve(proposal.id, by=elsewhere.noor)
        assert decision.status is ProposalStatus.DONE
        assert decision.task_status == TaskStatus.RUNNING.value
        assert decision.task_problem == (
            "It goes on only where its model is at hand: it was started with a model given in "
            "code, which no worker can make, and its agent declares none. Go on with it in code, "
            "with the model made again: app.agent(...).resume(task, model=...).")
        # Where the task goes on, the decision says nothing of the kind.
        outcome = started.app.agent(started.Clerk).do(started.PriceTicket(), None,
                                                      for_=started.mia, model=script(started, 50))
        (proposal,) = started.app.proposals(task=outcome.task, status=ProposalStatus.WAITING)
        decision = started.app.approve(proposal.id, by=started.noor)
        assert decision.task_status == TaskStatus.DONE.value
        assert decision.task_problem == ""
    finally:
        started.app.database.dispose()
        elsewhere.app.database.dispose()
