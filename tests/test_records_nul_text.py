"""A record's text given a NUL character (U+0000) is refused in a sentence naming the field, on
either database, and nothing is written: PostgreSQL refuses the statement (the run Failed with
the database's words, "refused a statement"), where SQLite kept it — an app tried there failed
once deployed."""

from __future__ import annotations

from typing import Annotated

from sqlalchemy import String, Text, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from signoff import ActionOutcome, App, Provided, allow


def test_a_nul_in_a_records_text_is_refused_in_words(database: str) -> None:
    """A note whose title (a String) or body (a Text) holds a NUL is Invalid, named; one
    without is Done; only it is kept."""
    app = App("notes", database=database)

    class Note(app.Record):  # type: ignore[name-defined, misc]
        title: Mapped[str] = mapped_column(String(40), default="")
        body: Mapped[str] = mapped_column(Text, default="")
        __security__ = [allow("read", "create")]

    @app.action("Write a note")
    def write(title: str, body: str, session: Annotated[Session, Provided("session")]) -> str:
        """Write a note."""
        session.add(Note(title=title, body=body))
        return "Written."

    ada = app.people.add("ada@notes.example", "Ada")
    try:
        for title, body, field in [("a\x00b", "fine", "title"), ("fine", "x\x00", "body")]:
            refused = app.actions.run("write", {"title": title, "body": body}, as_=ada)
            assert (refused.outcome, refused.problem) == (
                ActionOutcome.INVALID, f"Note's {field} cannot keep a NUL character (U+0000), "
                "which the app's database refuses: give the text without one.")
        done = app.actions.run("write", {"title": "Kept", "body": "All well."}, as_=ada)
        assert done.outcome is ActionOutcome.DONE, done.problem
        with app.session(as_=ada) as s:
            assert [n.title for n in s.scalars(select(Note))] == ["Kept"]
    finally:
        app.database.dispose()
