"""A record within a structure given already made is looked up as whoever the run is for,
whatever container holds it: a tuple where a `Sequence` (or a list) is declared, a mapping that
is not a dict, a field declared `Any`, an iterator — a model made without validation (``model_construct``)
holds whatever it was given."""

import types
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from signoff import ActionOutcome, App, allow, policy


class Seen(BaseModel):
    labels: str


@pytest.fixture
def boxes(tmp_path: Path) -> Any:
    """Bo's box, which only Bo reads, and actions reading the labels of boxes within a model's
    `Sequence`, `list`, `Mapping` and `Any` fields."""
    app = App("held", database=f"sqlite:///{tmp_path / 'held.db'}", key=b"k" * 32)
    owns = policy.where(lambda p, box: box is None or box.owner == p.id, "owns it")

    class Box(app.Record):  # type: ignore[name-defined, misc]
        owner: Mapped[str] = mapped_column(String(40))
        label: Mapped[str] = mapped_column(String(40), unique=True)
        __security__ = [allow("read", "update", "create", when=owns)]

    class InSequence(BaseModel):
        boxes: Sequence[Box]

    class InOptionalSequence(BaseModel):
        boxes: Sequence[Box] | None = None

    class InList(BaseModel):
        boxes: list[Box]

    class InMapping(BaseModel):
        boxes: Mapping[str, Box]

    class InAny(BaseModel):
        box: Any

    class InIterable(BaseModel):
        boxes: Iterable[Box]

    @app.action("Read a sequence")
    def sequence(m: InSequence) -> str:
        return ", ".join(b.label for b in m.boxes)

    @app.action("Read an optional sequence")
    def optional(m: InOptionalSequence) -> str:
        return ", ".join(b.label for b in m.boxes or ())

    @app.action("Read a list")
    def listed(m: InList) -> str:
        return ", ".join(b.label for b in m.boxes)

    @app.action("Read a mapping")
    def mapping(m: InMapping) -> str:
        return ", ".join(b.label for b in m.boxes.values())

    @app.action("Read an iterable")
    def iterated(m: InIterable) -> str:
        return ", ".join(b.label for b in m.boxes)

    @app.action("Read anything")
    def anything(m: InAny) -> str:
        return str(m.box.label)

    ada = app.people.add("ada@held.example", "Ada")
    bo = app.people.add("bo@held.example", "Bo")
    with app.session(as_=app.system) as s:
        s.add(Box(owner=bo.id, label="bo-secret"))
    with app.session(as_=app.system) as s:
        (read,) = s.scalars(s.query(Box).statement)  # (read as the app itself)
        s.expunge(read)
    return types.SimpleNamespace(
        app=app, ada=ada, bo=bo, read=read, calls=[
            ("sequence", {"m": InSequence.model_construct(boxes=(read,))}),
            ("optional", {"m": InOptionalSequence.model_construct(boxes=(read,))}),
            ("listed", {"m": InList.model_construct(boxes=(read,))}),
            ("mapping", {"m": InMapping.model_construct(
                boxes=types.MappingProxyType({"a": read}))}),
            ("anything", {"m": InAny(box=read)}),
            ("iterated", lambda: {"m": InIterable.model_construct(boxes=iter([read]))}),
        ])


def test_a_record_held_in_any_container_is_read_again_as_the_caller(boxes: Any) -> None:
    """Ada, who may not read Bo's box, is told it is Gone however a model given already made
    holds it (each of these ran, and told her its label); Bo, who may, reads it."""
    for name, given in boxes.calls:
        values = given() if callable(given) else given  # (an iterator: given afresh each time)
        refused = boxes.app.actions.run(name, values, as_=boxes.ada)
        assert refused.outcome is ActionOutcome.GONE, (name, refused.said)
        assert refused.problem == (f"No Box with id {boxes.read.id}: it does not exist, or "
                                   "whoever this runs as cannot read it."), name
        values = given() if callable(given) else given
        done = boxes.app.actions.run(name, values, as_=boxes.bo)
        assert (done.outcome, done.said) == (ActionOutcome.DONE, "bo-secret"), name
