"""An action that reaches outside and writes records, whose writes the database refuses as the run
flushes them once its body came back (here a unique key taken already): what it wrote is not
kept, but what it did outside happened — it is told Failed in words that say so, as a commit
the database refused is (tests/test_actions_commit_refused.py), never in the fixed words of a
failure that did nothing. On SQLite and on PostgreSQL, run alone and on a yes."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Annotated

from pydantic import BaseModel
from sqlalchemy import String, func, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from signoff import Agent, App, Permits, Provided, Skill, TaskStatus, allow
from signoff.actions.results import FAILED_TEXT
from signoff.testing import ScriptedModel, says


class Report(BaseModel):
    summary: str


def _post_office(database: str, tmp_path: Path, may: Permits) -> SimpleNamespace:
    """An app whose agent posts a letter (a line of a file) and files its copy under the
    letter's text, which a copy on file already has."""
    app = App("post", database=database, key=b"p" * 32)
    letters = tmp_path / "letters.txt"

    class Copy(app.Record):  # type: ignore[name-defined, misc]
        text: Mapped[str] = mapped_column(String(80), unique=True)
        __security__ = [allow("read", "create")]

    @app.action("Post a letter")
    def post_letter(session: Annotated[Session, Provided("session")], text: str) -> str:
        """Posts a letter (here: a line of a file), and files a copy of it."""
        with open(letters, "a", encoding="utf-8") as file:
            file.write(text + "\n")
        session.add(Copy(text=text))
        return "Posted."

    class Post(Skill[None, Report]):
        description = "Post a letter."
        tools = [post_letter]

        def brief(self, subject: None) -> str:
            return "Post one letter."

    class Postie(Agent):
        purpose = "You post letters."
        skills = [Post()]

    Postie.may = may
    noor = app.people.add("noor@post.example", "Noor")
    app.add_agent(Postie, sponsor=noor)
    with app.session(as_=noor) as session:
        session.add(Copy(text="hello"))
    model = ScriptedModel(says.tool(post_letter, text="hello"),
                          says.hand_back(Report(summary="Posted.")))
    return SimpleNamespace(app=app, noor=noor, agent=Postie, skill=Post(), model=model,
                           letters=letters, copies=Copy)


def _told_it_may_have_happened(office: SimpleNamespace, told: str) -> None:
    assert told.startswith("Failed") or "but it failed:" in told, told
    assert FAILED_TEXT not in told, told
    assert "refused what it changed" in told, told
    assert "may have happened" in told, told
    assert "check before trying again" in told, told
    assert office.letters.read_text() == "hello\n"  # (posted once, as told)
    with office.app.database.connect() as connection:  # (nothing of the run's was kept)
        assert connection.scalar(select(func.count()).select_from(office.copies.__table__)) == 1


def test_a_call_alone_whose_writes_are_refused_is_told_it_went_out(
        database: str, tmp_path: Path) -> None:
    office = _post_office(database, tmp_path, Permits.everything())
    outcome = office.app.agent(office.agent).do(office.skill, None, model=office.model)
    assert outcome.status is TaskStatus.DONE, outcome.problem
    (told,) = [m.text for m in office.model.seen.messages[-1] if m.role == "tool"]
    _told_it_may_have_happened(office, told)
    office.app.database.dispose()


def test_a_yes_whose_writes_are_refused_is_told_it_went_out(
        database: str, tmp_path: Path) -> None:
    office = _post_office(database, tmp_path, Permits())
    outcome = office.app.agent(office.agent).do(office.skill, None, model=office.model)
    assert outcome.status is TaskStatus.WAITING
    (proposal,) = office.app.proposals(task=outcome.task)
    decided = office.app.approve(proposal, by=office.noor)
    _told_it_may_have_happened(office, decided.told_agent)
    assert "may have happened" in decided.said, decided.said
    assert office.app.outcome(outcome.task).status is TaskStatus.DONE
    office.app.database.dispose()
