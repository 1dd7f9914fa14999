"""The counting app's record and action, shared by the tests of the loop, its limits and an
agent's declared input: a Counter record anyone may read, change and make, and `bump`, which
adds one to it; Tally, what a counting agent hands back."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from signoff import App, allow


class Tally(BaseModel):
    """What the counting agents hand back."""

    total: int


def counter_and_bump(app: App) -> tuple[Any, Any]:
    """`app`'s Counter record (a unique name, a value from 0) and its `bump` action."""

    class Counter(app.Record):  # type: ignore[name-defined, misc]
        name: Mapped[str] = mapped_column(String(20), unique=True)
        value: Mapped[int] = mapped_column(default=0)
        __security__ = [allow("read", "update", "create")]

    @app.action
    def bump(counter: Counter) -> int:
        """Add one."""
        counter.value += 1
        return counter.value

    return Counter, bump
