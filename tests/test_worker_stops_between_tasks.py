"""A worker told to stop while it steps one of many running tasks ends once that task has waited
or ended, taking up none of the others (it stepped every running task first, which with many
tasks kept a SIGTERM waiting for minutes); those are left Running, for the next worker. Tasks
left Running by processes SIGKILLed at a named point, on a real SQLite file."""

from __future__ import annotations

from pathlib import Path

from signoff import TaskStatus
from signoff.agents import repository as repo
from signoff.testing import ScriptedModel, says
from tests.forking import killed_at
from tests.guarantees_app import Report, box_of, build


def test_a_worker_told_to_stop_takes_up_no_other_task(tmp_path: Path) -> None:
    shop = build(f"sqlite:///{tmp_path / 'worker.db'}", tmp_path)
    try:
        box = box_of(shop)

        def script() -> ScriptedModel:
            return ScriptedModel(says.tool(shop.jot, box=box.id, note="checked"),
                                 says.hand_back(Report(summary="Tended.")))

        for _ in range(3):  # each task's process killed as it gates its first call
            assert killed_at("loop.gating", lambda: shop.app.agent(shop.Clerk).do(
                shop.Tend(), None, model=script()), shop.app) == -9
        with shop.app.database.connect() as db:
            tasks = repo.tasks_in(db, TaskStatus.RUNNING.value)
        assert len(tasks) == 3

        def statuses() -> list[str]:
            return sorted(shop.app.outcome(task).status.value for task in tasks)

        def done() -> list[str]:
            return [status for status in statuses() if status == "Done"]

        looks: list[int] = []

        def stop() -> bool:  # asked once a task has ended (as a SIGTERM during its step)
            looks.append(len(done()))
            return looks[-1] > 0

        shop.app.worker(model_for=lambda _agent, _task: script()).run_forever(
            every=0.01, stop=stop)
        assert len(done()) == 1
        assert statuses() == ["Done", "Running", "Running"]
    finally:
        shop.app.database.dispose()
