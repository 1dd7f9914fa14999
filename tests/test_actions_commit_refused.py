"""An action that reaches outside and writes records, whose writes the database refuses once its
body came back — as the run flushes them (a unique key taken already), or as its transaction
commits (a deferred foreign key, checked only then): what it wrote is not kept, but what it did
outside happened. It is told Failed in words that say so, never in the fixed words of a failure
that did nothing, so that neither the model nor a person takes it for a call that can simply be
made again. On SQLite and on PostgreSQL, run alone and on a yes."""

from __future__ import annotations

import uuid
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated

import pytest
from sqlalchemy import ForeignKey, String, func, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from signoff import App, Permits, Provided, TaskStatus, allow
from signoff.actions.results import FAILED_TEXT
from tests.post_office import postie

REFUSED = pytest.mark.parametrize("refused", ["as it flushes", "as it commits"])


def _post_office(database: str, tmp_path: Path, may: Permits, refused: str) -> SimpleNamespace:
    """An app whose agent posts a letter (a line of a file) and files its copy: under the
    letter's text, which a copy on file already has (refused as it flushes), or in a box that
    does not exist (refused as it commits)."""
    app = App("post", database=database, key=b"p" * 32)
    letters = tmp_path / "letters.txt"

    class Box(app.Record):  # type: ignore[name-defined, misc]
        label: Mapped[str] = mapped_column(String(40))
        __security__ = [allow("read", "create")]

    class Copy(app.Record):  # type: ignore[name-defined, misc]
        text: Mapped[str] = mapped_column(String(80), unique=True)
        box_id: Mapped[uuid.UUID] = mapped_column(
            ForeignKey("box.id", deferrable=True, initially="DEFERRED"))
        __security__ = [allow("read", "create")]

    noor = app.people.add("noor@post.example", "Noor")
    with app.session(as_=noor) as session:
        box = Box(label="Sent")
        session.add(box)
        session.flush()
        session.add(Copy(text="on file", box_id=box.id))
        box_id = box.id
    filed = {"as it flushes": ("on file", box_id), "as it commits": ("hello", uuid.uuid4())}

    @app.action("Post a letter")
    def post_letter(session: Annotated[Session, Provided("session")], text: str) -> str:
        """Posts a letter (here: a line of a file), and files a copy of it."""
        with open(letters, "a", encoding="utf-8") as file:
            file.write(text + "\n")
        copy_text, in_box = filed[refused]
        session.add(Copy(text=copy_text, box_id=in_box))
        return "Posted."

    return SimpleNamespace(app=app, letters=letters, copies=Copy,
                           **vars(postie(app, post_letter, may, noor)))


def _told_it_may_have_happened(office: SimpleNamespace, told: str) -> None:
    assert told.startswith("Failed") or "but it failed:" in told, told
    assert FAILED_TEXT not in told, told
    assert "refused what it changed" in told, told
    assert "may have happened" in told, told
    assert "check before trying again" in told, told
    assert office.letters.read_text() == "hello\n"  # (posted once, as told)
    with office.app.database.connect() as connection:  # (nothing of the run's was kept)
        assert connection.scalar(select(func.count()).select_from(office.copies.__table__)) == 1


@REFUSED
def test_a_call_alone_whose_writes_are_refused_is_told_it_went_out(
        database: str, tmp_path: Path, refused: str) -> None:
    office = _post_office(database, tmp_path, Permits.everything(), refused)
    outcome = office.app.agent(office.agent).do(office.skill, None, model=office.model)
    assert outcome.status is TaskStatus.DONE, outcome.problem
    (told,) = [m.text for m in office.model.seen.messages[-1] if m.role == "tool"]
    _told_it_may_have_happened(office, told)
    office.app.database.dispose()


@REFUSED
def test_a_yes_whose_writes_are_refused_is_told_it_went_out(
        database: str, tmp_path: Path, refused: str) -> None:
    office = _post_office(database, tmp_path, Permits(), refused)
    outcome = office.app.agent(office.agent).do(office.skill, None, model=office.model)
    assert outcome.status is TaskStatus.WAITING
    (proposal,) = office.app.proposals(task=outcome.task)
    decided = office.app.approve(proposal, by=office.noor)
    _told_it_may_have_happened(office, decided.told_agent)
    assert "may have happened" in decided.said, decided.said
    (told,) = [m.text for m in office.model.seen.messages[-1] if m.role == "tool"]
    assert told == decided.told_agent
    assert office.app.outcome(outcome.task).status is TaskStatus.DONE
    office.app.database.dispose()
