"""A standing rule lapses only when its tool, deployed again, does more than when the rule was
made (sends, spends, reaches outside, changes what it did not), as a waiting proposal goes stale
only then (`signoff.agents.proposing.does_otherwise`): a tool that now also only reads another
record, whose unresolved call's local name was renamed, or whose change of a record is now seen
to be of one field of it, does no more, and keeps its rules. Two deployments of one app on one
SQLite file, each loaded as the app's file is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from signoff import TaskStatus
from tests.redeployed import deployed, label, labeller_source, ruled_alone

_IMPORTS = """from typing import Annotated, Any
from sqlalchemy import select
from sqlalchemy.orm import Session
from signoff import Provided, spends"""

_LABEL = '''HOOKS: list[Any] = [len]


class Bin(app.Record):
    name: Mapped[str] = mapped_column(String(80), default="")
    __security__ = [allow("read", when=policy.anyone)]


@app.action("Label a shelf")
@spends(cost=0.01)
def label(shelf: Shelf, text: str, session: Annotated[Session, Provided("session")]) -> str:
    """Label it."""
    {body}
    return "ok"
'''


def _deployed(tmp: Path, version: str, body: str) -> dict[str, Any]:
    return deployed(tmp, version, labeller_source(
        name="same", database=tmp / "same.db", imports=_IMPORTS,
        tool=_LABEL.format(body=body)))


@pytest.mark.parametrize(("first", "later"), [
    # now also only reads another record: a proposal shown would not go stale for it
    ("shelf.label = text", "shelf.label = text\n    session.scalars(select(Bin)).all()"),
    # a change of the shelf, any field, then; of its label now: no more than it did
    ('setattr(shelf, "label", text)', "shelf.label = text"),
    # a call the analysis cannot resolve, its local name renamed: it may do what it might
    ("hook = HOOKS[0]\n    hook(text)", "callback = HOOKS[0]\n    callback(text)"),
], ids=["reads-more", "field-named", "renamed"])
def test_a_rule_holds_for_a_tool_that_does_no_more(tmp_path: Path, first: str,
                                                    later: str) -> None:
    shelf_id, _rule = ruled_alone(_deployed(tmp_path, "v1", first))

    two = _deployed(tmp_path, "v2", later)
    try:
        outcome = label(two, shelf_id, "two")
        receipt = two["app"].receipt(outcome.task).words
        assert outcome.status is TaskStatus.DONE, receipt
        assert "a standing rule of Mia's let it run alone" in receipt, receipt
    finally:
        two["app"].database.dispose()
