"""An action its analysis found to only read runs alone, with nobody asked, on that word: held
to it as it runs. What a gap in the analysis let through — a record changed, a statement that
writes, a file written — is refused, and the run ends Failed with nothing kept."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, ClassVar

import pytest
from pydantic import BaseModel, PrivateAttr, field_validator, model_serializer
from sqlalchemy import text
from sqlalchemy.orm import Mapped, Session, mapped_column

from signoff import Agent, App, Permits, Provided, Skill, TaskStatus, allow
from signoff.exceptions import UserError
from signoff.testing import ScriptedModel, says
from tests.unseen import unseen


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
    """Writes a file as it encodes."""

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


def _gap(counter: Any, session: Session) -> None:
    """Does nothing: what the analysis reads as an action is registered. A test puts a body in
    its place after that, as code the analysis does not follow (``print``, descriptors and
    encoders were gaps of their own once), the action's findings kept as they were
    (`tests.unseen`), so that only the run's hold stands in the way."""


@pytest.mark.parametrize("body", ["printed", "by_a_descriptor", "by_a_metaclass",
                                  "a_statement_as_printed", "a_file_by_an_encoder"])
def test_an_action_found_to_only_read_is_held_to_it_as_it_runs(
        tmp_path: Path, body: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each body gets past the analysis (found to only read) and ran alone with no permit at
    all, changing the counter or writing a file. Run alone now, its call ends Failed, the
    counter reads 0 and no file is written; the task goes on, and an honest reading action
    beside it runs as before."""
    app = App("t", database=f"sqlite:///{tmp_path / 't.db'}")
    run = _bodies(tmp_path)[body]

    class Counter(app.Record):  # type: ignore[name-defined, misc]
        value: Mapped[int] = mapped_column(default=0)
        __security__ = [allow("read", "update", "create")]

    @app.action
    def peek(counter: Counter, session: TheSession) -> str:
        """Look at the counter."""
        _gap(counter, session)
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
    assert app.actions.info("peek").effects.only_reads
    unseen(app, "peek")
    monkeypatch.setattr(sys.modules[__name__], "_gap", run)
    outcome = app.agent(Clerk).do(Look(), counter, for_=noor, model=ScriptedModel(
        says.tool(peek, counter=counter.id), says.tool(read, counter=counter.id),
        says.hand_back(Tally(total=0))))
    assert outcome.status is TaskStatus.DONE, outcome.problem
    assert app.proposals(task=outcome.task) == []
    peeked, looked = app.agent(Clerk).answers(outcome.task, 1) + app.agent(Clerk).answers(
        outcome.task, 2)
    # (SQL written as text on a record's table is refused as someone before the hold is asked)
    assert peeked.outcome == ("Denied" if body == "a_statement_as_printed" else "Failed")
    assert (looked.outcome, looked.value) == ("Done", 0)
    with app.session(as_=app.system) as s:
        assert s.get(Counter, counter.id).value == 0
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".txt") == []
    app.database.dispose()


def _encoded(note: str) -> str:
    """What an action encodes by, as the analysis reads it; `_encoded_to_a_file` is put in its
    place once the action is registered (a gap: see `_gap`)."""
    return json.dumps({"note": note})


def _encoded_to_a_file(note: str) -> str:
    return json.dumps({"note": note, "a": {1}}, cls=_Encoder)


def test_an_action_on_plain_values_found_to_only_read_is_held_to_it_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One that takes no record runs in a transaction of its own, with no session: a file it
    writes through a gap in the analysis is refused all the same, and the call ends Failed."""
    app = App("t", database=f"sqlite:///{tmp_path / 't.db'}")
    _Encoder.target = tmp_path / "encoded.txt"

    @app.action
    def encode(note: str) -> str:
        """Encode a note."""
        return _encoded(note)

    class Encoding(Skill[None, Tally]):
        description = "Encode."
        tools = [encode]

    class Clerk(Agent):
        purpose = "You encode."
        skills = [Encoding()]

    noor = app.people.add("noor@t.example", "Noor")
    app.add_agent(Clerk, sponsor=noor)
    assert app.actions.info("encode").effects.only_reads
    unseen(app, "encode")
    monkeypatch.setattr(sys.modules[__name__], "_encoded", _encoded_to_a_file)
    outcome = app.agent(Clerk).do(Encoding(), None, for_=noor, model=ScriptedModel(
        says.tool(encode, note="hello"), says.hand_back(Tally(total=0))))
    (call,) = app.agent(Clerk).answers(outcome.task, 1)
    assert call.outcome == "Failed"
    assert not (tmp_path / "encoded.txt").exists()
    app.database.dispose()


def test_what_an_action_found_to_only_read_tried_is_logged_in_a_sentence(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    """What it tried reaches the log as one sentence at ERROR, with no traceback: a refusal
    the run foresaw, not a failure of signoff's own (it was logged a second time, with the
    refusal's traceback, as an unforeseen failure)."""
    app = App("t", database=f"sqlite:///{tmp_path / 't.db'}")
    _Encoder.target = tmp_path / "encoded.txt"

    @app.action
    def encode(note: str) -> str:
        """Encode a note."""
        return _encoded(note)

    unseen(app, "encode")
    monkeypatch.setattr(sys.modules[__name__], "_encoded", _encoded_to_a_file)
    with caplog.at_level(logging.INFO, logger="signoff"):
        result = app.actions.run("encode", {"note": "hello"}, as_=app.system)
    assert result.outcome.value == "Failed"
    told = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert [(r.getMessage().split(":")[0], r.exc_info) for r in told] == [
        ("Action encode, found to only read, may only read", None)]
    assert told[0].getMessage().endswith(f"it tried to open {_Encoder.target} for writing.")
    app.database.dispose()


def _dumping(seen: Any) -> None:
    """What `_Seen`'s serializer does, as the analysis reads it; a test puts a writer in its
    place once the action is registered (a gap: see `_gap`)."""


class _Seen(BaseModel):
    """A result whose serializer runs `_dumping` as it is dumped."""

    total: int
    _counter: Any = PrivateAttr(default=None)
    _file: Path | None = PrivateAttr(default=None)

    @model_serializer(mode="wrap")
    def _dump(self, handler: Any) -> Any:
        _dumping(self)
        return handler(self)


def _dumped_for_real(seen: Any) -> None:
    if seen._counter is not None:
        seen._counter.value = 555
    if seen._file is not None:
        seen._file.write_text("dumped")


class _Loud(BaseModel):
    """A result whose serializer writes a file as it is dumped, for all to see."""

    total: int

    @model_serializer(mode="wrap")
    def _dump(self, handler: Any) -> Any:
        Path("never-written.txt").write_text("dumped")
        return handler(self)


class _Note(BaseModel):
    """A parameter whose validator writes a file as it checks the text."""

    text: str
    target: ClassVar[Path] = Path()

    @field_validator("text")
    @classmethod
    def _checked(cls, value: str) -> str:
        cls.target.write_text("validated")
        return value


def _validating(target: Path) -> None:
    """What `_QuietNote`'s validator does, as the analysis reads it; a test puts a writer in its
    place once the action is registered (a gap: see `_gap`)."""


class _QuietNote(BaseModel):
    """A parameter whose validator runs `_validating`."""

    text: str
    target: ClassVar[Path] = Path()

    @field_validator("text")
    @classmethod
    def _checked(cls, value: str) -> str:
        _validating(cls.target)
        return value


class _Told(Exception):
    """Writes a file as its words are read (by the log, as the run's failure is written)."""

    target = Path()

    def __str__(self) -> str:
        self.target.write_text("told")
        return "told"


def _raising_what_writes_as_told(note: str) -> str:
    raise _Told


@pytest.mark.parametrize("query", [False, True])
def test_the_words_of_what_it_raised_are_read_while_it_is_held(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch,
        query: bool) -> None:
    """An exception it raises is told in the log after the run: its words (`__str__`, the
    app's code) are read while the run is still held, so a file they write is refused, and
    the run ends Failed with nothing written (they were read after the hold, by the log).
    The same for a query, held by a guard of its own."""
    app = App("t", database=f"sqlite:///{tmp_path / 't.db'}")
    _Told.target = tmp_path / "told.txt"

    @app.action(query=query)
    def encode(note: str) -> str:
        """Encode a note."""
        return _encoded(note)

    unseen(app, "encode")
    monkeypatch.setattr(sys.modules[__name__], "_encoded", _raising_what_writes_as_told)
    with caplog.at_level(logging.INFO, logger="signoff"):
        result = app.actions.run("encode", {"note": "hello"}, as_=app.system)
    assert result.outcome.value == "Failed"
    assert caplog.text  # every record written out, its exception's words read
    assert not _Told.target.exists()
    told = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    tried = f"it tried to open {_Told.target} for writing."
    assert told == ([f"Query encode tried more than reading, run as the app for cause '': "
                     f"A query may only read: {tried}"] if query else
                    [f"Action encode, found to only read, may only read: {tried}"])
    app.database.dispose()


def test_the_app_code_a_run_runs_around_the_action_is_held_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A result's serializer and a parameter's validator are the action's code to the analysis
    (they were not: such an action was found to only read). What still gets past it — their
    code swapped in after registration — is held as the action's own: what it returned is dumped
    inside the hold (its serializer changed the counter and wrote a file, the call Done: it
    was dumped after the hold ended), with a session and without one, and a parameter's
    validator run with the call is held too."""
    app = App("t", database=f"sqlite:///{tmp_path / 't.db'}")
    dumped = tmp_path / "dumped.txt"
    _QuietNote.target = tmp_path / "validated.txt"

    class Counter(app.Record):  # type: ignore[name-defined, misc]
        value: Mapped[int] = mapped_column(default=0)
        __security__ = [allow("read", "update", "create")]

    @app.action
    def peek(counter: Counter) -> _Seen:
        """Look at the counter."""
        seen = _Seen(total=counter.value)
        seen._counter = counter
        return seen

    @app.action
    def total(n: int) -> _Seen:
        """A total."""
        seen = _Seen(total=n)
        seen._file = dumped
        return seen

    @app.action
    def noted(note: _QuietNote) -> str:
        """Take a note."""
        return note.text

    @app.action
    def seen_plainly(n: int) -> _Loud:
        """A total, whose serializer writes."""
        return _Loud(total=n)

    assert all(app.actions.info(n).effects.only_reads for n in ("peek", "total", "noted"))
    assert not app.actions.info("seen_plainly").effects.only_reads
    unseen(app, "peek", "total", "noted")
    monkeypatch.setattr(sys.modules[__name__], "_validating",
                        lambda target: target.write_text("validated"))
    monkeypatch.setattr(sys.modules[__name__], "_dumping", _dumped_for_real)
    with app.session(as_=app.system) as s:
        counter = Counter()
        s.add(counter)
    for name, values in [("peek", {"counter": counter.id}), ("total", {"n": 3}),
                         ("noted", {"note": {"text": "hello"}})]:
        result = app.actions.run(name, values, as_=app.system)
        assert result.outcome.value == "Failed", (name, result)
    with app.session(as_=app.system) as s:
        assert s.get(Counter, counter.id).value == 0
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".txt") == []
    app.database.dispose()


def test_a_validator_that_does_more_than_read_is_refused_before_anyone_decides(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    """A tool call's arguments are checked before the gate decides whether it runs, is
    proposed or refused: a parameter's validator ran there with nothing held, writing a file
    for a call nobody had approved (of an action proposed, too). An action whose validator the
    analysis finds doing more than read is refused at registration, saying so; one whose
    validator gets past it is refused as the call is checked: the model is told its call was
    not run, the log says what the validator tried, and nothing is written."""
    app = App("t", database=f"sqlite:///{tmp_path / 't.db'}")
    _Note.target = _QuietNote.target = tmp_path / "validated.txt"

    with pytest.raises(UserError, match=r"A validator of post_plainly's parameters does more "
                                        r"than read: external pathlib.PosixPath.write_text: "
                                        r"post_plainly -> test_found_reading._Note._checked"):
        @app.action
        def post_plainly(note: _Note) -> str:
            """Post a note, whose validator writes."""
            return note.text

    @app.action
    def post(note: _QuietNote) -> str:
        """Post a note outside."""
        import urllib.request
        urllib.request.urlopen("http://127.0.0.1:9/", data=note.text.encode())
        return "Posted."

    class Posting(Skill[None, Tally]):
        description = "Post."
        tools = [post]

    class Clerk(Agent):
        purpose = "You post notes."
        skills = [Posting()]

    noor = app.people.add("noor@t.example", "Noor")
    app.add_agent(Clerk, sponsor=noor)
    assert not app.actions.info("post").effects.only_reads  # it would be proposed
    monkeypatch.setattr(sys.modules[__name__], "_validating",
                        lambda target: target.write_text("validated"))
    with caplog.at_level(logging.INFO, logger="signoff"):
        outcome = app.agent(Clerk).do(Posting(), None, for_=noor, model=ScriptedModel(
            says.tool(post, note={"text": "hello"}), says.hand_back(Tally(total=0))))
    assert outcome.status is TaskStatus.DONE, outcome.problem
    assert app.proposals(task=outcome.task) == []
    (call,) = app.agent(Clerk).answers(outcome.task, 1)
    assert call.answer.startswith("Invalid: Checking the arguments of post tried more than "
                                  "reading, which a parameter's validator may not do; nothing "
                                  "was run."), call.answer
    assert not _QuietNote.target.exists()
    told = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert told == [f"A validator of post's parameters may only read: it tried to open "
                    f"{_QuietNote.target} for writing."]
    app.database.dispose()


def test_a_database_function_that_may_write_is_no_reading_on_postgresql(
        request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A function the database was given (PL/pgSQL here, which changes the counter) called in
    a SELECT: the action calling it is not found to only read, so an agent proposes it; one
    that got it past the analysis is refused as it sends it, and the counter keeps its value
    (it was read as a SELECT, run alone, and the change committed, past the records' rules)."""
    app = App("t", database=request.getfixturevalue("postgres_database"))

    class Counter(app.Record):  # type: ignore[name-defined, misc]
        value: Mapped[int] = mapped_column(default=0)
        __security__ = [allow("read", "update", "create")]

    @app.action
    def bump(counter: Counter, session: TheSession) -> int:
        """Look at the counter, through the database's function."""
        return int(session.execute(text("SELECT bump_counters()")).scalar_one())

    @app.action
    def peek(counter: Counter, session: TheSession) -> str:
        """Look at the counter."""
        _gap(counter, session)
        return "Looked."

    with app.session(as_=app.system) as s:
        counter = Counter()
        s.add(counter)
    with app.database.engine.begin() as connection:
        connection.exec_driver_sql(
            "CREATE FUNCTION bump_counters() RETURNS integer LANGUAGE plpgsql AS $$ BEGIN "
            f"UPDATE {Counter.__tablename__} SET value = 9; RETURN 9; END $$")
    effects = app.actions.info("bump").effects
    assert not effects.only_reads
    assert any("bump_counters" in line or "session.execute" in line
               for line in effects.explain()), effects.explain()
    assert app.actions.info("peek").effects.only_reads
    unseen(app, "peek")
    monkeypatch.setattr(sys.modules[__name__], "_gap", lambda counter, session: session.execute(
        text("SELECT bump_counters()")))
    result = app.actions.run("peek", {"counter": counter.id}, as_=app.system)
    assert result.outcome.value == "Failed"
    with app.session(as_=app.system) as s:
        assert s.get(Counter, counter.id).value == 0
    app.database.dispose()


def test_the_models_of_an_action_declared_in_a_function_are_read_too(tmp_path: Path) -> None:
    """An action declared inside a function, typed by models declared there too (its
    annotations are text, this module having ``from __future__ import annotations``): the
    serializer of its result model and the validator of its parameter model are its code all
    the same (they were skipped, the annotations not resolving without the names local to it)."""
    app = App("t", database=f"sqlite:///{tmp_path / 't.db'}")
    written = tmp_path / "written.txt"

    class Shown(BaseModel):
        total: int

        @model_serializer(mode="wrap")
        def _dump(self, handler: Any) -> Any:
            written.write_text("dumped")
            return handler(self)

    class Noted(BaseModel):
        text: str

        @field_validator("text")
        @classmethod
        def _checked(cls, value: str) -> str:
            written.write_text("validated")
            return value

    @app.action
    def shown(n: int) -> Shown:
        """A total."""
        return Shown(total=n)

    assert not app.actions.info("shown").effects.only_reads
    with pytest.raises(UserError, match="A validator of noted's parameters does more than read"):
        @app.action
        def noted(note: Noted) -> str:
            """Take a note."""
            return note.text
    app.database.dispose()
