"""An action its analysis found to only read runs alone, with nobody asked, on that word: held
to it as it runs. What a gap in the analysis let through — a record changed, a statement that
writes, a file written — is refused, and the run ends Failed with nothing kept."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import pytest
from pydantic import BaseModel
from sqlalchemy import text
from sqlalchemy.orm import Mapped, Session, mapped_column

from signoff import Agent, App, Permits, Provided, Skill, TaskStatus, allow
from signoff.testing import ScriptedModel, says


class Tally(BaseModel):
    total: int


TheSession = Annotated[Session, Provided("session")]


class _Shown:
    """Changes the counter as it is printed (``print`` calls ``__str__``)."""

    def __init__(self, counter: Any) -> None:
        self.counter = counter

    def __str__(self) -> str:
        self.counter.value = 105
        return "shown"


class _Statement:
    """Sends a statement that writes as it is printed."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def __str__(self) -> str:
        self.session.execute(text("UPDATE counter SET value = 203"))
        return "sent"


class _Setter:
    """A data descriptor: assigning the attribute changes the counter."""

    def __set__(self, holder: Any, value: int) -> None:
        holder.counter.value = value


class _Holder:
    slot = _Setter()

    def __init__(self, counter: Any) -> None:
        self.counter = counter


class _Meta(type):
    """Its ``__call__`` runs when a class of it is made an object of."""

    def __call__(cls, *args: Any) -> Any:
        args[0].value = 108


class _Made(metaclass=_Meta):
    pass


class _Encoder(json.JSONEncoder):
    """Writes a file as it encodes (a class handed to `json.dumps` is not followed)."""

    target = Path()

    def default(self, o: object) -> object:
        self.target.write_text("encoded")
        return list(o)  # type: ignore[call-overload]


def _bodies(folder: Path) -> dict[str, Callable[..., None]]:
    _Encoder.target = folder / "encoded.txt"

    def printed(counter: Any, session: Session) -> None:
        print(_Shown(counter))

    def by_a_descriptor(counter: Any, session: Session) -> None:
        _Holder(counter).slot = 107

    def by_a_metaclass(counter: Any, session: Session) -> None:
        _Made(counter)

    def a_statement_as_printed(counter: Any, session: Session) -> None:
        print(_Statement(session))

    def a_file_by_an_encoder(counter: Any, session: Session) -> None:
        json.dumps({"a": {1}}, cls=_Encoder)

    return {f.__name__: f for f in (printed, by_a_descriptor, by_a_metaclass,
                                    a_statement_as_printed, a_file_by_an_encoder)}


@pytest.mark.parametrize("body", ["printed", "by_a_descriptor", "by_a_metaclass",
                                  "a_statement_as_printed", "a_file_by_an_encoder"])
def test_an_action_found_to_only_read_is_held_to_it_as_it_runs(
        tmp_path: Path, body: str) -> None:
    """Each body is found to only read (a gap in the analysis each, of a security review's
    findings: others are closed in the analysis) and ran alone with no permit at all, changing
    the counter or writing a file. Run alone now, its call ends Failed, the counter reads 0 and
    no file is written; the task goes on, and an honest reading action beside it runs as
    before."""
    app = App("t", database=f"sqlite:///{tmp_path / 't.db'}")
    run = _bodies(tmp_path)[body]

    class Counter(app.Record):  # type: ignore[name-defined, misc]
        value: Mapped[int] = mapped_column(default=0)
        __security__ = [allow("read", "update", "create")]

    @app.action
    def peek(counter: Counter, session: TheSession) -> str:
        """Look at the counter."""
        run(counter, session)
        return "Looked."

    @app.action
    def read(counter: Counter) -> int:
        """Read the counter."""
        return counter.value

    class Look(Skill[Counter, Tally]):
        description = "Look."
        tools = [peek, read]

    class Clerk(Agent):
        purpose = "You look."
        skills = [Look()]
        may = Permits()

    noor = app.people.add("noor@t.example", "Noor")
    app.add_agent(Clerk, sponsor=noor)
    with app.session(as_=app.system) as s:
        counter = Counter()
        s.add(counter)
    # Still a gap in the analysis (when one closes, the body is to be replaced by an open one).
    assert app.actions.info("peek").effects.only_reads
    outcome = app.agent(Clerk).do(Look(), counter, for_=noor, model=ScriptedModel(
        says.tool(peek, counter=counter.id), says.tool(read, counter=counter.id),
        says.hand_back(Tally(total=0))))
    assert outcome.status is TaskStatus.DONE, outcome.problem
    assert app.proposals(task=outcome.task) == []
    peeked, looked = app.agent(Clerk).answers(outcome.task, 1) + app.agent(Clerk).answers(
        outcome.task, 2)
    assert peeked.outcome == "Failed"
    assert (looked.outcome, looked.value) == ("Done", 0)
    with app.session(as_=app.system) as s:
        assert s.get(Counter, counter.id).value == 0
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".txt") == []
    app.database.dispose()


def test_an_action_on_plain_values_found_to_only_read_is_held_to_it_too(tmp_path: Path) -> None:
    """One that takes no record runs in a transaction of its own, with no session: a file it
    writes through a gap in the analysis is refused all the same, and the call ends Failed."""
    app = App("t", database=f"sqlite:///{tmp_path / 't.db'}")
    _Encoder.target = tmp_path / "encoded.txt"

    @app.action
    def encode(note: str) -> str:
        """Encode a note."""
        return json.dumps({"note": note, "a": {1}}, cls=_Encoder)

    class Encoding(Skill[None, Tally]):
        description = "Encode."
        tools = [encode]

    class Clerk(Agent):
        purpose = "You encode."
        skills = [Encoding()]

    noor = app.people.add("noor@t.example", "Noor")
    app.add_agent(Clerk, sponsor=noor)
    assert app.actions.info("encode").effects.only_reads
    outcome = app.agent(Clerk).do(Encoding(), None, for_=noor, model=ScriptedModel(
        says.tool(encode, note="hello"), says.hand_back(Tally(total=0))))
    (call,) = app.agent(Clerk).answers(outcome.task, 1)
    assert call.outcome == "Failed"
    assert not (tmp_path / "encoded.txt").exists()
    app.database.dispose()


def test_what_an_action_found_to_only_read_tried_is_logged_in_a_sentence(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """What it tried reaches the log as one sentence at ERROR, with no traceback: a refusal
    the run foresaw, not a failure of signoff's own (it was logged a second time, with the
    refusal's traceback, as an unforeseen failure)."""
    app = App("t", database=f"sqlite:///{tmp_path / 't.db'}")
    _Encoder.target = tmp_path / "encoded.txt"

    @app.action
    def encode(note: str) -> str:
        """Encode a note."""
        return json.dumps({"note": note, "a": {1}}, cls=_Encoder)

    with caplog.at_level(logging.INFO, logger="signoff"):
        result = app.actions.run("encode", {"note": "hello"}, as_=app.system)
    assert result.outcome.value == "Failed"
    told = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert [(r.getMessage().split(":")[0], r.exc_info) for r in told] == [
        ("Action encode was found to only read, but tried more", None)]
    app.database.dispose()
