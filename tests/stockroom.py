"""The stockroom the Temporal tests share: an agent who restocks a bin (a record-only change),
its app run on a Temporal server."""

from __future__ import annotations

import uuid
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

from sqlalchemy.orm import Mapped, mapped_column

from signoff import Agent, App, Skill, Temporal, allow
from tests.temporal_server import DevServer


def stockroom(tmp_path: Path, server: DevServer | str, *, settle_within: float = 30
               ) -> SimpleNamespace:
    """An app whose agent proposes to restock a bin (a record-only change), on `server` (or
    the address given)."""
    address = server if isinstance(server, str) else server.address
    app = App("stockroom", database=f"sqlite:///{tmp_path / 'stockroom.db'}", runner=Temporal(
        address=address, task_queue=f"stockroom-{uuid.uuid4().hex[:8]}",
        settle_within=timedelta(seconds=settle_within)))

    class Bin(app.Record):  # type: ignore[name-defined,misc]
        count: Mapped[int] = mapped_column(default=0)
        __security__ = [allow("read", "update")]

    @app.action("Restock a bin")
    def restock(bin: Bin, by: int) -> str:
        """Add parts to a bin."""
        bin.count += by
        return "Restocked."

    class Stocking(Skill[None, str]):
        """Restock."""

        description = "Restock."
        tools = [restock]

    class Stocker(Agent):
        """Restocks."""

        purpose = "You restock."
        skills = [Stocking()]

    noor = app.people.add("noor@stockroom.example", "Noor")
    app.add_agent(Stocker, sponsor=noor)
    with app.session(as_=app.system) as session:
        bin_ = Bin()
        session.add(bin_)

    def count() -> int:
        with app.session(as_=app.system) as session:
            found: int = session.get_one(Bin, bin_.id).count
            return found

    return SimpleNamespace(app=app, restock=restock, Stocking=Stocking, Stocker=Stocker,
                           noor=noor, bin=bin_, count=count)
