"""A record within a structure (a pydantic model, a dataclass) is looked up as whoever a run is
for, however the structure was given: as JSON, as the values `values_from_json` made of a tool
call, or made already by the caller holding a record read as someone else."""

import json
import uuid
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

from pydantic import BaseModel
from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from signoff import ActionOutcome, Agent, App, Permits, ProposalStatus, Skill, allow, policy
from signoff.testing import ScriptedModel, says


class Moved(BaseModel):
    ok: bool


def _boxes(tmp_path: Path) -> SimpleNamespace:
    """Boxes each person reads and relabels only if they own them, and actions taking a box
    within a pydantic model, a list of them, and a dataclass."""
    app = App("boxes", database=f"sqlite:///{tmp_path / 'boxes.db'}", key=b"k" * 32)
    owns = policy.where(lambda p, box: box is None or box.owner in (p.id, "all"), "owns it")

    class Box(app.Record):  # type: ignore[name-defined, misc]
        owner: Mapped[str] = mapped_column(String(40))
        label: Mapped[str] = mapped_column(String(40), default="")
        __security__ = [allow("read", "update", "create", when=owns)]

    class Move(BaseModel):
        box: Box
        to: str

    @dataclass
    class Shift:
        box: Box
        to: str

    @app.action("Move boxes")
    def move(moves: list[Move]) -> str:
        """Relabel each box."""
        for m in moves:
            m.box.label = m.to
        return "Moved."

    @app.action("Move one box")
    def move_one(m: Move) -> str:
        """Relabel one box."""
        m.box.label = m.to
        return "Moved one."

    @app.action("Shift one box")
    def shift(s: Shift) -> str:
        """Relabel one box."""
        s.box.label = s.to
        return "Shifted."

    class Relabel(Skill[None, Moved]):
        description = "Relabel boxes."
        tools = [move, move_one, shift]

    class Mover(Agent):
        purpose = "You relabel boxes."
        skills = [Relabel()]
        may = Permits()

    ada = app.people.add("ada@boxes.example", "Ada")
    bo = app.people.add("bo@boxes.example", "Bo")
    app.add_agent(Mover, sponsor=ada)
    with app.session(as_=ada) as s:
        box = Box(owner="all", label="old")
        hers = Box(owner=ada.id, label="hers")
        s.add_all([box, hers])

    def label(of: uuid.UUID) -> str:
        with app.session(as_=app.system) as s:
            return s.get(Box, of).label  # type: ignore[no-any-return]

    return SimpleNamespace(app=app, ada=ada, bo=bo, box=box, hers=hers, Box=Box, Move=Move,
                           move=move, move_one=move_one, shift=shift, Relabel=Relabel,
                           Mover=Mover, label=label)


_CALLS = [
    ("move", lambda i: {"moves": [{"box": i, "to": "new"}]}),
    ("move_one", lambda i: {"m": {"box": i, "to": "new"}}),
    ("shift", lambda i: {"s": {"box": i, "to": "new"}}),
]


def test_an_approved_call_with_a_record_within_a_structure_runs(tmp_path: Path) -> None:
    """A proposal whose arguments hold a record within a structure runs on a yes (its values,
    read from the tool call's JSON, held the record's id, and the action was given the id in
    place of the record: it failed)."""
    boxes = _boxes(tmp_path)
    for name, arguments in _CALLS:
        outcome = boxes.app.agent(boxes.Mover).do(boxes.Relabel(), None, for_=boxes.ada,
                                                  model=ScriptedModel(
            says.tool(getattr(boxes, name), **arguments(str(boxes.box.id))),
            says.hand_back(Moved(ok=True))))
        decision = boxes.app.approve(boxes.app.proposals(task=outcome.task)[0], by=boxes.ada)
        assert decision.status is ProposalStatus.DONE, (name, decision.said)
        assert boxes.label(boxes.box.id) == "new"
        with boxes.app.session(as_=boxes.app.system) as s:
            s.get(boxes.Box, boxes.box.id).label = "old"


def test_values_from_json_run_look_records_within_up_as_the_caller(tmp_path: Path) -> None:
    """The values `values_from_json` reads of a tool call, run as someone who may not read the
    record within, are Gone in the words of a record given directly, the same as for an id of
    nothing; run as one who may, they are Done."""
    boxes = _boxes(tmp_path)
    for name, arguments in _CALLS:
        hers, nothing = (str(boxes.hers.id), str(uuid.uuid4()))
        for given in (hers, nothing):
            values = boxes.app.actions.values_from_json(name, json.dumps(arguments(given)))
            refused = boxes.app.actions.run(name, values, as_=boxes.bo)
            assert refused.outcome is ActionOutcome.GONE, (name, refused.problem)
            assert refused.problem == (f"No Box with id {given}: it does not exist, or whoever "
                                       "this runs as cannot read it.")
        values = boxes.app.actions.values_from_json(name, json.dumps(arguments(hers)))
        assert boxes.app.actions.run(name, values, as_=boxes.ada).outcome is ActionOutcome.DONE
    assert boxes.label(boxes.hers.id) == "new"


def test_a_structure_made_with_a_record_read_as_another_is_read_again(tmp_path: Path) -> None:
    """A model made by the caller, holding a record read as the app itself, does not carry it
    into a run for someone who may not read it: it is Gone, and nothing changes."""
    boxes = _boxes(tmp_path)
    with boxes.app.session(as_=boxes.app.system) as s:
        read = s.get(boxes.Box, boxes.hers.id)
        given = boxes.Move(box=read, to="taken")
        s.expunge(read)  # (kept as it was read, for the run that follows the block)
    result = boxes.app.actions.run("move_one", {"m": given}, as_=boxes.bo)
    assert result.outcome is ActionOutcome.GONE, result.problem
    assert boxes.label(boxes.hers.id) == "hers"


def test_records_within_an_optional_list_or_dict_are_looked_up_too(tmp_path: Path) -> None:
    """Records in a field that may be left out (``list[Box] | None``, ``dict[str, Box] | None``)
    are read as whoever the run is for: Ada relabels her box; Bo, who may not read it, is told
    it is Gone (the action got the box's id in its place, and failed)."""
    app = App("optional", database=f"sqlite:///{tmp_path / 'o.db'}", key=b"k" * 32)
    owns = policy.where(lambda p, box: box is None or box.owner == p.id, "owns it")

    class Box(app.Record):  # type: ignore[name-defined, misc]
        owner: Mapped[str] = mapped_column(String(40))
        label: Mapped[str] = mapped_column(String(40), default="")
        __security__ = [allow("read", "update", "create", when=owns)]

    class Several(BaseModel):
        boxes: list[Box] | None = None
        named: dict[str, Box] | None = None
        to: str

    @app.action("Relabel several boxes")
    def relabel(m: Several) -> str:
        """Relabel them."""
        for box in [*(m.boxes or []), *(m.named or {}).values()]:
            box.label = m.to
        return "Relabelled."

    ada = app.people.add("ada@o.example", "Ada")
    bo = app.people.add("bo@o.example", "Bo")
    with app.session(as_=ada) as s:
        box = Box(owner=ada.id, label="hers")
        s.add(box)
    for given in ({"boxes": [str(box.id)]}, {"named": {"first": str(box.id)}}):
        # (as a tool call's arguments are read: without a session, the boxes stand as ids)
        his = app.actions.values_from_json("relabel", json.dumps({"m": {**given, "to": "his"}}))
        as_bo = app.actions.run("relabel", his, as_=bo)
        assert as_bo.outcome is ActionOutcome.GONE, as_bo.problem
        hers = app.actions.values_from_json("relabel", json.dumps(
            {"m": {**given, "to": "still hers"}}))
        as_ada = app.actions.run("relabel", hers, as_=ada)
        assert as_ada.outcome is ActionOutcome.DONE, as_ada.problem
    with app.session(as_=ada) as s:
        assert s.get(Box, box.id).label == "still hers"
