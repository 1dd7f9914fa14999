"""What showing a value runs of the app's code: the items of a container are shown by their
classes' own ``__repr__`` (``str([x])``, a log's ``"%r"`` of a list), a log record made by hand
shows its message and arguments as a handler takes it, a root logger's calls are a logger's,
and a formatter given to a handler is the process's logging changed. Each was found to only
read, and ran alone."""

from __future__ import annotations

import io
import logging
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from pydantic import BaseModel

from signoff import Agent, App, Permits, Skill, TaskStatus
from signoff.effects import analyse
from signoff.testing import ScriptedModel, says

log = logging.getLogger("signoff.tests.effects_shown")
HANDLER = logging.StreamHandler(io.StringIO())
"""A handler of the app's, made as it starts."""
WRITTEN = {"to": Path()}


class _Note:
    """Starts a program as it is shown."""

    def __repr__(self) -> str:
        subprocess.run(["true"], check=False)
        return "note"


class _Formatter(logging.Formatter):
    """Writes a file as it formats a record."""

    def format(self, record: logging.LogRecord) -> str:
        WRITTEN["to"].write_text("formatted")
        return "formatted"


def in_a_list(note: str) -> str:
    return str([_Note()])


def in_an_f_string(note: str) -> str:
    return f"{note}: {[_Note()]}"


def in_a_tuple_in_a_dict(note: str) -> str:
    print({"k": (1, [_Note()])})
    return note


def logged_in_a_list(note: str) -> str:
    log.warning("notes: %r", [_Note()])
    return note


def logged_by_star(note: str) -> str:
    given = (_Note(),)
    log.warning("%r", *given)
    return note


def logged_by_the_root_logger(note: str) -> str:
    logging.root.warning("%r", _Note())
    return note


def logged_as_a_record(note: str) -> str:
    log.handle(logging.LogRecord("n", logging.WARNING, "f", 1, "%r", ({"n": _Note()},), None))
    return note


def logged_as_a_record_made_of_a_dict(note: str) -> str:
    log.handle(logging.makeLogRecord({"msg": _Note(), "levelno": 30}))
    return note


def formatter_given(note: str) -> str:
    HANDLER.setFormatter(_Formatter())
    return note


SHOWN: list[Callable[[str], str]] = [
    in_a_list, in_an_f_string, in_a_tuple_in_a_dict, logged_in_a_list, logged_by_star,
    logged_by_the_root_logger, logged_as_a_record, logged_as_a_record_made_of_a_dict]


@pytest.mark.parametrize("fn", SHOWN, ids=lambda f: f.__name__)
def test_what_showing_a_value_runs_is_found(fn: Callable[[str], str]) -> None:
    effects = analyse(fn, name=fn.__name__)
    assert not effects.only_reads
    assert any(e.path[-2:] == ("test_effects_shown._Note.__repr__", "subprocess.run")
               for e in effects.effects), effects.explain()


def test_a_formatter_given_to_a_handler_changes_the_processs_logging() -> None:
    """A StreamHandler's setFormatter is Handler's: named by the handler's class, it was not
    found in the table of calls that change the process's state."""
    effects = analyse(formatter_given, name="formatter_given")
    assert [(e.kind.value, e.path[-1]) for e in effects.effects] == [
        ("changes", "logging.StreamHandler.setFormatter")]


@dataclass
class _Part:
    name: str


class _Row(BaseModel):
    n: int


def honest(note: str) -> str:
    log.warning("looked at %r and %s", [_Part(note)], {"rows": [_Row(n=1)], "n": (1, 2)})
    logging.root.info("%s", [note, 1])
    return str([note, (1, 2.0), {"a": [None]}]) + f"{[_Part(note)]}"


def test_showing_plain_values_and_the_apps_plain_classes_only_reads() -> None:
    assert analyse(honest, name="honest").only_reads


def test_an_agent_proposes_what_logging_a_list_would_run(tmp_path: Path) -> None:
    """`logged_in_a_list` ran alone, with no permit at all, under an agent; it is proposed now,
    with what it does shown, and nothing of it has run."""
    app = App("t", database=f"sqlite:///{tmp_path / 't.db'}")
    app.action(logged_in_a_list, name="note")

    class Result(BaseModel):
        total: int

    class Noting(Skill[None, Result]):
        description = "Note."
        tools = ["note"]

    class Clerk(Agent):
        purpose = "You note."
        skills = [Noting()]
        may = Permits()

    noor = app.people.add("noor@t.example", "Noor")
    app.add_agent(Clerk, sponsor=noor)
    outcome = app.agent(Clerk).do(Noting(), None, for_=noor, model=ScriptedModel(
        says.tool("note", note="a"), says.hand_back(Result(total=0))))
    assert outcome.status is TaskStatus.WAITING, outcome.problem
    (proposal,) = app.proposals(task=outcome.task)
    assert proposal.action == "note"
    app.database.dispose()
