"""Record changes of an action that also reaches outside, in two processes at once (DESIGN
"Invariants" 3; issue 11, "record changes are not lost on PostgreSQL").

A record-only run reads at REPEATABLE READ on PostgreSQL and runs again on a conflict
(`tests/test_guarantees.py`). A run that changes a record *and* reaches outside cannot run
again: on PostgreSQL the records it is given are locked as they load (``SELECT … FOR UPDATE``),
so that two such runs on one record take turns and neither change is lost.
"""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path
from typing import Annotated, Any

import pytest
from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.orm import Session

from signoff import Agent, App, Choices, Permits, Provided, Skill, TaskStatus
from signoff.testing import ScriptedModel, says
from tests.box_world import Report, box_world
from tests.guarantees_app import Pauses, in_thread


def _build(url: str, bells: Path) -> Any:
    app = App("ringing", database=url, key=b"r" * 32)
    Box, _Mark, _jot = box_world(app)

    @app.action("Ring the box")
    def ring(box: Box, by: int, session: Annotated[Session, Provided("session")]) -> str:
        """Changes the box, and reaches outside: a line in the bells file."""
        box.level += by
        with open(bells, "a", encoding="utf-8") as file:
            file.write(f"{by}\n")
        return "Rung."

    class Peal(BaseModel):
        model_config = {"arbitrary_types_allowed": True}
        box: Box
        by: int

    @app.action("Ring a peal")
    def ring_peal(peal: Peal) -> str:
        """The same, the box within a structure."""
        peal.box.level += peal.by
        with open(bells, "a", encoding="utf-8") as file:
            file.write(f"{peal.by}\n")
        return "Rung."

    def boxes() -> list[tuple[str, str]]:
        with app.session(as_=app.system) as s:
            return [(str(b.id), b.name) for b in s.scalars(select(Box))]

    @app.action("Ring two boxes")
    def ring_two(first: Box, second: Annotated[Box, Choices(boxes)], by: int) -> str:
        """The same on two boxes, given in the order the caller chose."""
        first.level += by
        second.level += by
        with open(bells, "a", encoding="utf-8") as file:
            file.write(f"{by}\n")
        return "Rung."

    class Tend(Skill[None, Report]):
        description = "Tend the box."
        tools = [ring, ring_peal, ring_two]

        def brief(self, subject: None) -> str:
            return "Tend the box."

    class Ringer(Agent):
        purpose = "You ring boxes."
        skills = [Tend()]
        may = Permits(alone=[ring, ring_peal, ring_two])
        roles = ["clerk"]

    sponsor = app.people.find("noor@ringing.example") or app.people.add(
        "noor@ringing.example", "Noor", roles=["manager"])
    app.add_agent(Ringer, sponsor=sponsor)
    app.agent(Ringer)
    with app.session(as_=app.system) as s:
        box = s.scalars(select(Box)).first()
        if box is None:
            box = Box(name="B-1")
            s.add_all([box, Box(name="B-2")])
    return app, Box, {"ring": ring, "ring_peal": ring_peal, "ring_two": ring_two}, Ringer, Tend, box


@pytest.mark.parametrize("tool", ["ring", "ring_peal"])
def test_two_outside_runs_changing_one_record_lose_no_change(
    database: str, tmp_path: Path, tool: str,
) -> None:
    """Two processes each run, alone, an action that adds to the box's level and reaches
    outside, both having read the level before either writes: both rang, and the level rises
    by both — the box given as a parameter, or within a structure."""
    bells = tmp_path / "bells.txt"
    one, two = _build(database, bells), _build(database, bells)
    both = threading.Barrier(2, timeout=5)

    def loaded(_where: dict[str, Any]) -> None:
        with contextlib.suppress(threading.BrokenBarrierError):  # (SQLite: one writer at once)
            both.wait()

    pauses = Pauses()
    pauses.at("one", "run.called", loaded)
    pauses.at("two", "run.called", loaded)

    def work(side: Any, by: int) -> Any:
        app, _Box, tools, Ringer, Tend, box = side
        call = (says.tool(tools["ring"], box=box.id, by=by) if tool == "ring" else
                says.tool(tools["ring_peal"], peal={"box": str(box.id), "by": by}))
        return app.agent(Ringer).do(Tend(), None, model=ScriptedModel(
            call, says.hand_back(Report(summary="Rung."))))

    try:
        with pauses.armed():
            threads = [in_thread("one", lambda: work(one, 1)), in_thread("two", lambda: work(two, 10))]
            for thread, _ in threads:
                thread.join(60)
        outcomes = [out.get("value") for _, out in threads]
        assert [o.status for o in outcomes] == [TaskStatus.DONE, TaskStatus.DONE], threads
        assert sorted(bells.read_text().split()) == ["1", "10"]
        app, Box, *_, box = one
        with app.session(as_=app.system) as s:
            assert s.get(Box, box.id).level == 11
    finally:
        one[0].database.dispose()
        two[0].database.dispose()


def test_two_outside_runs_locking_two_records_in_opposite_orders_both_run(
    database: str, tmp_path: Path,
) -> None:
    """Two processes each run, alone, an action that changes two boxes and reaches outside,
    given them in opposite orders: on PostgreSQL each locks its first box and waits on the
    other's, and one is ended by the server's deadlock check before its body began. Nothing of
    it ran, so it runs again: both rang, and each box rose by both (it ended Failed, having
    run nothing)."""
    bells = tmp_path / "bells.txt"
    one, two = _build(database, bells), _build(database, bells)
    both = threading.Barrier(2, timeout=5)

    def locked(_where: dict[str, Any]) -> None:  # (once: each holds its first box's lock,
        both.wait()                                #  then asks for the other's)

    pauses = Pauses()
    pauses.at("one", "run.record_locked", locked)
    pauses.at("two", "run.record_locked", locked)
    app, Box, *_, box = one
    with app.session(as_=app.system) as s:
        other = s.scalars(select(Box).where(Box.name == "B-2")).one()

    def work(side: Any, first: Any, second: Any, by: int) -> Any:
        app, _Box, tools, Ringer, Tend, _box = side
        return app.agent(Ringer).do(Tend(), None, model=ScriptedModel(
            says.tool(tools["ring_two"], first=first, second=second, by=by),
            says.hand_back(Report(summary="Rung."))))

    try:
        with pauses.armed():
            threads = [in_thread("one", lambda: work(one, box.id, other.id, 1)),
                       in_thread("two", lambda: work(two, other.id, box.id, 10))]
            for thread, _ in threads:
                thread.join(60)
        outcomes = [out.get("value") for _, out in threads]
        assert [o.status for o in outcomes] == [TaskStatus.DONE, TaskStatus.DONE], threads
        assert sorted(bells.read_text().split()) == ["1", "10"]
        with app.session(as_=app.system) as s:
            assert [s.get(Box, b).level for b in (box.id, other.id)] == [11, 11]
    finally:
        one[0].database.dispose()
        two[0].database.dispose()
