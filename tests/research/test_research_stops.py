"""`signoff research` run as an adversary would: an index damaged on disk, Ctrl-C
while SQLite authorizes a query's statement, and a task of the offline reader stopped with
Ctrl-C and gone on with as the stop printed, and two researches begun at once on a new
database."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from signoff.actions.readonly_driver import sqlite_authorizer
from signoff.cli.research import research
from signoff.cli.research_stopped import stopped_as_by_ctrl_c
from signoff.research import Corpus, research_app

QUESTION = "How often should a kettle be descaled?"
QUOTE = "A kettle should be descaled every month."


@pytest.fixture
def kettles(tmp_path: Path) -> Path:
    """A folder of many notes, one of which says how often to descale a kettle."""
    root = tmp_path / "kettles"
    root.mkdir()
    (root / "kettle.md").write_text(f"# Kettles\n\nThe kettle boils water in three minutes.\n"
                                    f"{QUOTE}\n")
    for n in range(60):  # (an index of many pages, so that damage in its middle hits a table)
        (root / f"note{n}.txt").write_text(f"Note {n}\n\n" + " ".join(
            f"The teapot number {n} keeps tea warm for {k} minutes." for k in range(80)))
    return root


def _damage(index: Path) -> None:
    """Write noise over pages in the middle of `index`, leaving its first page (and so the
    meta table a fresh look reads first) as it was."""
    size = index.stat().st_size
    with index.open("r+b") as file:
        file.seek(size // 3)
        file.write(os.urandom(size // 3))


def test_a_damaged_index_is_made_again_not_a_failure_of_the_search(kettles: Path) -> None:
    """An index damaged on disk (a disk error, a copy cut short) is indexed again, as the docs
    say deleting one costs, and the question is answered: it was a failure "the app did not
    foresee", whose details were nowhere the user could see."""
    index = Corpus.from_folder(kettles).index
    _damage(index)
    result = CliRunner().invoke(research, [QUESTION, "--corpus", str(kettles), "--json"])
    assert result.exit_code == 0, result.output
    said = json.loads(result.stdout)
    assert said["status"] == "Done", said["problem"]
    assert [c["quote"] for claim in said["answer"]["claims"]
            for c in claim["citations"]] == [QUOTE]
    with sqlite3.connect(index) as db:  # made again whole
        assert db.execute("PRAGMA quick_check").fetchall() == [("ok",)]


def test_ctrl_c_while_sqlite_authorizes_a_statement_still_stops_the_research() -> None:
    """Ctrl-C that lands while SQLite calls the read-only guard's authorizer (each statement a
    query prepares: the research tools' searches) stops the research as Ctrl-C anywhere else
    does: SQLite swallowed the KeyboardInterrupt raised there into "authorization denied", so
    the search failed "for a reason the app did not foresee", the task Failed (exit 5), and
    nothing was left Running to go on with."""
    def ctrl_c(what: str) -> BaseException:  # (Ctrl-C, pressed while the authorizer runs)
        signal.raise_signal(signal.SIGINT)
        return RuntimeError(what)

    db = sqlite3.connect(":memory:")
    db.set_authorizer(sqlite_authorizer(ctrl_c))
    stopped = False
    with stopped_as_by_ctrl_c():
        try:
            with pytest.raises(sqlite3.DatabaseError):  # (the write the guard refuses)
                db.execute("CREATE TABLE t (x)")
            time.sleep(3)  # (where the interruption lands, once out of SQLite)
        except KeyboardInterrupt:
            stopped = True
    db.close()
    assert stopped
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_task_of_the_offline_reader_stopped_with_ctrl_c_goes_on_as_printed(
        kettles: Path, tmp_path: Path) -> None:
    """The main job's own task — asked with the offline reader, the default — stopped with
    Ctrl-C goes on with the command the stop printed, ``signoff research --go-on TASK_ID``,
    with the reader it was started with. That command said the task "keeps no model to go on
    with" and asked for --model offline (exit 2)."""
    from signoff.cli.research import _local_person
    from signoff.inbox import Inbox
    from signoff.research import ask
    from signoff.research.extractive import ExtractiveModel

    class StoppedOnItsSecondTurn(ExtractiveModel):
        def complete(self, messages: Any, tools: Any, *, max_output_tokens: int) -> Any:
            if any(m.role == "assistant" for m in messages):
                raise KeyboardInterrupt  # the person pressed Ctrl-C
            return super().complete(messages, tools, max_output_tokens=max_output_tokens)

    database = f"sqlite:///{tmp_path / 'r.db'}"
    app = research_app(Corpus.from_folder(kettles), database=database)
    me = _local_person(app)
    with pytest.raises(KeyboardInterrupt):
        ask(app, QUESTION, model=StoppedOnItsSecondTurn(), for_=me)
    (task,) = [t.id for t in Inbox(app).tasks(me).items]
    went = CliRunner().invoke(research, ["--go-on", task, "--database", database,
                                         "--corpus", str(kettles), "--json"])
    assert went.exit_code == 0, went.output
    said = json.loads(went.stdout)
    assert said["status"] == "Done", said["problem"]
    assert said["model"] == ExtractiveModel.name
    assert [c["quote"] for claim in said["answer"]["claims"]
            for c in claim["citations"]] == [QUOTE]


def test_two_researches_begun_at_once_on_a_new_database_both_make_their_app(
        kettles: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two researches begun at the same moment on a new database (two terminals, a script's
    loop in the background) both go on: the one that finds the Researcher's account missing,
    and then made by the other, uses it. One of six begun at once failed "There is already
    someone with the handle 'researcher@agents'." (exit 2)."""
    from signoff.research.skill import Researcher
    from signoff.security.principals import People

    database = f"sqlite:///{tmp_path / 'r.db'}"
    corpus = Corpus.from_folder(kettles)
    research_app(corpus, database=f"sqlite:///{tmp_path / 'other.db'}")  # (tables made once)
    real = People.find
    other: list[object] = []

    def meanwhile(people: People, principal: object) -> object:
        found = real(people, principal)  # type: ignore[arg-type]
        if principal == Researcher.account_handle() and found is None and not other:
            other.append(None)  # the other research, between this one's look and its add
            other[0] = research_app(corpus, database=database).agent(Researcher).account
        return found

    monkeypatch.setattr(People, "find", meanwhile)
    app = research_app(corpus, database=database)
    account = app.agent(Researcher).account
    assert other
    assert account == other[0]


def test_a_task_halted_at_its_step_limit_shows_what_its_last_tools_answered(
    kettles: Path, tmp_path: Path
) -> None:
    """Halted at its limit of one step, the research shows what its search answered as every
    turn's answers are shown (“search_sources: Done: 1 hit(s) — …”), not in the receipt's
    words for the run ("ran search_sources alone, as itself: Done."), and says why it
    stopped."""
    result = CliRunner().invoke(research, [
        QUESTION, "--corpus", str(kettles), "--max-steps", "1",
        "--database", f"sqlite:///{tmp_path / 'r.db'}"])
    assert result.exit_code == 1, result.output  # (halted at a limit: refused to go on)
    assert "  ← search_sources: Done: " in result.output, result.output
    assert "kettle.md" in result.output.split("← search_sources: Done: ", 1)[1].split("\n")[0]
    assert "alone, as itself" not in result.output, result.output
    assert "  ← Halted: it reached its limit of 1 step." in result.output, result.output
