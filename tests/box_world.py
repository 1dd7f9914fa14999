"""What the apps of the crash, concurrency and guarantee tests share: a box whose level and note
record-only calls change, a mark for each run of one (a count of marks is a count of runs), and
what the clerk hands back."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel
from sqlalchemy import String
from sqlalchemy.orm import Mapped, Session, mapped_column

from signoff import App, Provided, allow, policy


class Report(BaseModel):
    """What the clerk hands back."""

    summary: str


def box_world(app: App) -> tuple[Any, Any, Any]:
    """`Box` and `Mark`, records of `app` anyone may read (and change, for a box), and `jot`,
    the record-only action that notes on a box."""
    anyone = policy.anyone

    class Box(app.Record):  # type: ignore[name-defined, misc]
        """What the clerk works on."""

        name: Mapped[str] = mapped_column(String(40), unique=True)
        level: Mapped[int] = mapped_column(default=0)
        note: Mapped[str] = mapped_column(String(200), default="")
        __security__ = [allow("read", "create", "update", when=anyone)]

    class Mark(app.Record):  # type: ignore[name-defined, misc]
        """One row per run of a record-only action."""

        tool: Mapped[str] = mapped_column(String(40))
        label: Mapped[str] = mapped_column(String(40))
        __security__ = [allow("read", "create", when=anyone)]

    @app.action("Jot a note on the box")
    def jot(box: Box, note: str, session: Annotated[Session, Provided("session")]) -> str:
        """Record-only: sets the note, and marks the run."""
        box.note = note
        session.add(Mark(tool="jot", label=note))
        return f"Noted {note}."

    return Box, Mark, jot
