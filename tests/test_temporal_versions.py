"""Workers of another version than the task's: a workflow whose history other workflow code
wrote (a deploy changed it), and a worker whose app does not declare the task's agent."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
from temporalio import workflow

import signoff.engine.temporal.serving as serving
from signoff import Agent, App, Permits, ProposalStatus, Skill, TaskStatus, Temporal
from signoff.engine.temporal.workflow import TaskWorkflow, WorkflowOptions
from signoff.testing import ScriptedModel, says
from tests.temporal_server import DevServer, until


def _refunds_app(folder: Path, server: DevServer, queue: str, *, with_agent: bool = True
                 ) -> SimpleNamespace:
    """An app whose clerk proposes a refund (each refund that runs is written down); without
    its agent as a worker of an older (or newer) version of the app has it."""
    database = f"sqlite:///{folder / 'refunds.db'}"
    written: str = str(folder / "refunds.txt")
    app = App("refunds", database=database, runner=Temporal(
        address=server.address, task_queue=queue, settle_within=timedelta(seconds=20)))

    @app.action("Refund")
    def refund(cents: int) -> str:
        """Refund the customer."""
        with open(written, "a", encoding="utf-8") as refunds:
            refunds.write(f"{cents}\n")
        return f"Refunded {cents} cents."

    class Refunds(Skill[None, str]):
        """Refund what is asked."""

        description = "Refund what is asked."
        tools = [refund]

    class Clerk(Agent):
        """Refunds."""

        purpose = "You refund customers."
        skills = [Refunds()]
        may = Permits(propose=[refund])

    me = app.people.find("me@refunds.example") or app.people.add("me@refunds.example", "Me")
    if with_agent:
        app.add_agent(Clerk, sponsor=me)
    return SimpleNamespace(app=app, refund=refund, Refunds=Refunds, Clerk=Clerk, me=me,
                           refunds=folder / "refunds.txt")


def _script(shop: SimpleNamespace) -> ScriptedModel:
    return ScriptedModel(says.tool(shop.refund, cents=12), says.hand_back("Refunded."))


@workflow.defn(name="SignoffTask")
class _OlderWorkflow(TaskWorkflow):
    """The task's workflow as other code wrote it: a timer before its first step."""

    @workflow.run
    async def run(self, task_id: str, options: WorkflowOptions) -> str:
        await workflow.sleep(0.01)
        return await super().run(task_id, options)


def test_a_waiting_task_whose_history_other_workflow_code_wrote_goes_on_when_decided(
    tmp_path: Path, temporal_server: DevServer, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A task that waits on a person in a workflow run that other workflow code wrote (a
    deploy changed it) goes on when the person says yes: its run cannot be replayed here, so it
    ends, and the task goes on from its record in a new run; the refund runs once. The run's
    workflow task failed at every try (nondeterminism), and the task stood Running for ever."""
    shop = _refunds_app(tmp_path, temporal_server, "versions-replay")
    try:
        monkeypatch.setattr(serving, "TaskWorkflow", _OlderWorkflow)
        with shop.app.temporal_worker().running():
            started = shop.app.agent(shop.Clerk).do(shop.Refunds(), None, for_=shop.me,
                                                   model=_script(shop))
        assert started.status is TaskStatus.WAITING, started
        monkeypatch.undo()
        with shop.app.temporal_worker().running():  # today's code: it replays the run
            (proposal,) = shop.app.proposals(task=started.task)
            decision = shop.app.approve(proposal, by=shop.me)
            assert decision.status is ProposalStatus.DONE, decision.said
            outcome = shop.app.outcome(started.task)
            assert outcome.status is TaskStatus.DONE, outcome
        assert shop.refunds.read_text().splitlines() == ["12"]
    finally:
        shop.app.database.dispose()


def test_a_worker_whose_app_lacks_the_tasks_agent_says_why_and_a_right_one_goes_on(
    tmp_path: Path, temporal_server: DevServer,
) -> None:
    """A worker of a version of the app that does not declare the task's agent keeps why
    with the task (its caller, `app.outcome` and `signoff tasks` say it), and a worker of the
    right version takes the task on. Its steps failed at every try, told in the worker's log
    alone: the caller heard only that the task went on in the workers."""
    shop = _refunds_app(tmp_path, temporal_server, "versions-agent")
    other = _refunds_app(tmp_path, temporal_server, "versions-agent", with_agent=False)
    try:
        script = _script(shop)
        with other.app.temporal_worker(model_for=lambda _agent, _task: script).running():
            started = shop.app.agent(shop.Clerk).do(shop.Refunds(), None, for_=shop.me,
                                                   model=script)
            until(lambda: "no agent 'clerk'" in shop.app.outcome(started.task).problem,
                  "the task saying why it does not go on")
        problem = shop.app.outcome(started.task).problem
        assert "The app of the Temporal worker that took it does not declare it" in problem, problem
        with shop.app.temporal_worker().running():
            until(lambda: shop.app.outcome(started.task).status is TaskStatus.WAITING,
                  "the task waiting on its proposal")
        assert not shop.refunds.exists()
    finally:
        shop.app.database.dispose()
        other.app.database.dispose()
