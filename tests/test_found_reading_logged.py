"""What an action found to only read hands to the app's logging is held to reading too: the
code a record carries (its arguments' own ``__repr__``, a formatter or filter the action gives
a handler) runs as the handler formats the record, and is the action's, not the app's logging.

Each body is put in place of `_gap` once the action is registered (`tests.unseen`), as code the
analysis does not follow, so that only the run's hold stands in its way (a record's arguments
inside a list, and a formatter given to a handler, were gaps of the analysis once)."""

from __future__ import annotations

import io
import logging
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel

from signoff import Agent, App, Permits, Skill, TaskStatus
from signoff.testing import ScriptedModel, says
from tests.unseen import unseen

log = logging.getLogger("signoff.tests.found_reading_logged")
WRITTEN = {"to": Path()}
"""Where the code the records carry writes (set by each test)."""


class Tally(BaseModel):
    total: int


class _Note:
    """Writes a file as it is shown (``repr``): found by the analysis only when it is logged
    itself, not inside a list."""

    def __repr__(self) -> str:
        WRITTEN["to"].write_text("shown")
        return "note"


class _Formatter(logging.Formatter):
    """Writes a file as it formats a record."""

    def format(self, record: logging.LogRecord) -> str:
        WRITTEN["to"].write_text("formatted")
        return "formatted"


HANDLER = logging.StreamHandler(io.StringIO())
"""The app's own handler, there before any action runs."""


@pytest.fixture
def handler() -> Iterator[logging.Handler]:
    """`HANDLER`, the test's logger's only one while the test runs."""
    log.addHandler(HANDLER)
    log.propagate = False
    try:
        yield HANDLER
    finally:
        log.removeHandler(HANDLER)
        log.propagate = True
        HANDLER.setFormatter(None)  # type: ignore[arg-type]


def _notes_in_a_list(note: str) -> str:
    log.warning("notes: %r", [_Note()])
    return note


def _notes_in_a_record(note: str) -> str:
    log.handle(logging.makeLogRecord({"msg": "%r", "args": ({"n": _Note()},), "levelno": 30}))
    return note


def _formatted_by_its_own(note: str) -> str:
    HANDLER.setFormatter(_Formatter())
    log.warning("note")
    return note


BODIES = {f.__name__: f for f in (_notes_in_a_list, _notes_in_a_record, _formatted_by_its_own)}


def _gap(note: str) -> str:
    """Only computes: what the analysis reads of the action; a test puts a body in its place."""
    return note


@pytest.mark.parametrize("body", sorted(BODIES))
def test_code_a_log_record_carries_is_held_as_the_handler_formats_it(
        tmp_path: Path, body: str, handler: logging.Handler,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each action is found to only read and runs alone; the file its logged value (or the
    formatter it gave the app's handler) writes was written, the call Done, since the hold let
    through all a handler made before the run did. Now the call ends Failed and nothing is
    written; an honest action that logs runs Done beside it (held too while the formatter the
    action left on the handler is there: it is the action's code still)."""
    WRITTEN["to"] = tmp_path / "written.txt"
    app = App("t", database=f"sqlite:///{tmp_path / 't.db'}")

    @app.action
    def note(note: str) -> str:
        """Note something."""
        return _gap(note)

    @app.action
    def tell(note: str) -> str:
        """Log a note."""
        log.warning("told %s", note)
        return note

    class Noting(Skill[None, Tally]):
        description = "Note."
        tools = ["note", "tell"]

    class Clerk(Agent):
        purpose = "You note."
        skills = [Noting()]
        may = Permits()

    noor = app.people.add("noor@t.example", "Noor")
    app.add_agent(Clerk, sponsor=noor)
    assert app.actions.info("note").effects.only_reads
    unseen(app, "note")
    monkeypatch.setattr(sys.modules[__name__], "_gap", BODIES[body])
    outcome = app.agent(Clerk).do(Noting(), None, for_=noor, model=ScriptedModel(
        says.tool("note", note="a"), says.tool("tell", note="b"), says.hand_back(Tally(total=0))))
    assert outcome.status is TaskStatus.DONE, outcome.problem
    assert app.proposals(task=outcome.task) == []
    (noted,) = app.agent(Clerk).answers(outcome.task, 1)
    (told,) = app.agent(Clerk).answers(outcome.task, 2)
    assert noted.outcome == "Failed"
    assert not WRITTEN["to"].exists()
    HANDLER.setFormatter(None)  # type: ignore[arg-type]  # (what the action set, undone)
    again = app.actions.run("tell", {"note": "b"}, as_=app.system)
    assert (told.outcome, again.outcome.value) == ("Failed" if body == "_formatted_by_its_own"
                                                   else "Done", "Done")
    app.database.dispose()


def test_a_handler_made_before_still_writes_its_own_file(tmp_path: Path) -> None:
    """The app's file handler, opening its file as the first record comes (inside the run),
    writes it: the handler's own work is the app's logging."""
    app = App("t", database=f"sqlite:///{tmp_path / 't.db'}")
    kept = logging.FileHandler(tmp_path / "app.log", delay=True)
    log.addHandler(kept)
    try:
        @app.action
        def tell(note: str) -> str:
            """Log a note."""
            log.warning("told %s", note)
            return note

        result = app.actions.run("tell", {"note": "b"}, as_=app.system)
    finally:
        log.removeHandler(kept)
        kept.close()
    assert result.outcome.value == "Done"
    assert (tmp_path / "app.log").read_text() == "told b\n"
    app.database.dispose()
