"""A record within a model held in a TypedDict is looked up as whoever the run is for, as it
is within a model held in a model: on Python 3.11 the TypedDicts pydantic takes are
typing_extensions', which `typing.is_typeddict` does not know."""

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column
from typing_extensions import TypedDict

from signoff import ActionOutcome, App, allow, policy


class Holder(BaseModel):
    """Holds anything."""

    box: Any


class Wrapped(TypedDict):
    """A TypedDict holding a model."""

    held: Holder


def test_a_record_in_a_model_in_a_typeddict_is_read_again_as_the_caller(tmp_path: Path) -> None:
    """Ada, who may not read Bo's box, is told it is Gone; Bo reads it."""
    app = App("held", database=f"sqlite:///{tmp_path / 'held.db'}", key=b"k" * 32)
    owns = policy.where(lambda p, box: box is None or box.owner == p.id, "owns it")

    class Box(app.Record):  # type: ignore[name-defined, misc]
        owner: Mapped[str] = mapped_column(String(40))
        label: Mapped[str] = mapped_column(String(40), unique=True)
        __security__ = [allow("read", "update", "create", when=owns)]

    @app.action("Read a wrapped box")
    def wrapped(w: Wrapped) -> str:
        return str(w["held"].box.label)

    ada = app.people.add("ada@held.example", "Ada")
    bo = app.people.add("bo@held.example", "Bo")
    with app.session(as_=app.system) as s:
        s.add(Box(owner=bo.id, label="bo-secret"))
    with app.session(as_=app.system) as s:
        (read,) = s.scalars(s.query(Box).statement)
        s.expunge(read)
    refused = app.actions.run("wrapped", {"w": {"held": Holder(box=read)}}, as_=ada)
    assert (refused.outcome, refused.said) == (ActionOutcome.GONE, "")
    done = app.actions.run("wrapped", {"w": {"held": Holder(box=read)}}, as_=bo)
    assert (done.outcome, done.said) == (ActionOutcome.DONE, "bo-secret")


class Address(TypedDict):
    """Where a parcel goes."""

    street: str


@dataclasses.dataclass
class Parcel:
    """A parcel that may have an address."""

    to: Address | None = None


@pytest.mark.parametrize("given", [{"to": {"street": "Main"}}, {"to": None}, {}])
def test_a_typeddict_that_may_be_none_within_a_dataclass_is_taken(tmp_path: Path,
                                                                   given: dict[str, Any]) -> None:
    """A parcel whose address is given (or not) runs Done: the TypedDict in the union with None
    is looked into as a TypedDict (it was checked with isinstance, which a TypedDict refuses:
    the run Failed with a TypeError)."""
    app = App("parcels", database=f"sqlite:///{tmp_path / 'parcels.db'}", key=b"k" * 32)

    @app.action("Send a parcel")
    def send(parcel: Parcel) -> str:
        return parcel.to["street"] if parcel.to else "nowhere"

    ada = app.people.add("ada@parcels.example", "Ada")
    done = app.actions.run("send", {"parcel": given}, as_=ada)
    assert (done.outcome, done.said) == (ActionOutcome.DONE, "Main" if given.get("to") else
                                         "nowhere"), done.problem
