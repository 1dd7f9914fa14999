"""An app dropped lets go of its records' declarative base, the base's metadata and tables: the
listeners every app's records share (an id given as a record is made, a value checked against
its column as it is written) are set once on what all records share, not on each app's base,
which SQLAlchemy keeps for the life of the process (a listener set on a class that is not yet
mapped is held in its events' process-wide list, with the class)."""

from __future__ import annotations

import gc
import uuid
import weakref
from pathlib import Path

import pytest
from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from signoff import App, Invalid


def _made(folder: Path, n: int) -> list[weakref.ref[object]]:
    """An app with a record kept in a file, one made and written: weak references to the app's
    record base, its metadata and the record's table."""
    app = App(f"kept{n}", database=f"sqlite:///{folder / f'kept{n}.db'}")

    class Crate(app.Record):  # type: ignore[name-defined,misc]
        label: Mapped[str] = mapped_column(String(8), default="")

    with app.session(as_=app.system) as s:
        crate = Crate(label="apples")
        s.add(crate)
    assert isinstance(crate.id, uuid.UUID)  # (given as it was made)
    with pytest.raises(Invalid, match="keeps at most 8 characters"), app.session(as_=app.system) as s:
        s.add(Crate(label="far too long a label"))  # (checked against its column)
    app.database.dispose()
    return [weakref.ref(app.Record), weakref.ref(app.Record.metadata),
            weakref.ref(Crate.__table__)]


def test_a_dropped_apps_record_base_metadata_and_tables_are_let_go(tmp_path: Path) -> None:
    """Ten apps made, each with a record given an id and checked as it was written, then
    dropped: none of their bases, metadata or tables is alive after a collection."""
    dropped = [ref for n in range(10) for ref in _made(tmp_path, n)]
    gc.collect()
    alive = [repr(ref()) for ref in dropped if ref() is not None]
    assert not alive, f"{len(alive)} still alive, such as {alive[:3]}"
