"""The research skill and agent, and the app that holds them.

``research_app()`` builds an app whose ``Researcher`` answers a `ResearchTask` with a
`GroundedAnswer`; the answer is accepted only when every claim cites a source that a tool
returned in that very task, quoting it exactly (``check_citations``). ``ask`` does one question.
"""

from __future__ import annotations

import contextlib
import os
import sys
import unicodedata
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, field_validator

from signoff.agents.agent import Agent
from signoff.agents.model_specs import ModelSpec
from signoff.agents.skills import Skill, TaskView
from signoff.agents.tasks import Outcome
from signoff.app import App
from signoff.exceptions import UserError
from signoff.limits.grounding import GroundedAnswer, check_citations, normalise, problems_in_words
from signoff.models.base import Model
from signoff.research import tools
from signoff.research.corpus import Corpus
from signoff.research.on_question import off_question
from signoff.research.tools import fetch_url, read_source, search_sources
from signoff.security.principals import Principal

__all__ = [
    "Research",
    "ResearchTask",
    "Researcher",
    "ask",
    "data_dir",
    "default_database",
    "research_app",
    "retrieved_sources",
]


class ResearchTask(BaseModel):
    """A question to research."""

    question: str = Field(min_length=1, description="The question to answer.")
    """The question to answer, on one line: its line breaks and runs of space read as one
    space (a question pasted with a line break was researched up to it)."""

    @field_validator("question", mode="before")
    @classmethod
    def _one_line(cls, value: Any) -> Any:
        return " ".join(value.split()) if isinstance(value, str) else value


def retrieved_sources(task: TaskView) -> dict[str, list[str]]:
    """What the task's tools returned of each source: source id → the texts (search snippets,
    pieces of them between “…”, parts read, pages fetched)."""
    found: dict[str, list[str]] = {}
    for answer in task.answers:
        if answer.tool == search_sources.action_name and isinstance(answer.value, Mapping):
            for hit in answer.value.get("hits", []):
                if isinstance(hit, Mapping) and "source_id" in hit:
                    pieces = [p for p in str(hit.get("snippet", "")).split("…") if p.strip()]
                    found.setdefault(str(hit["source_id"]), []).extend(pieces)
        elif answer.tool in (read_source.action_name, fetch_url.action_name) and isinstance(
            answer.value, Mapping
        ) and "source_id" in answer.value:
            found.setdefault(str(answer.value["source_id"]), []).append(
                str(answer.value.get("text", "")))
    return found


def _titles(task: TaskView) -> dict[str, str]:
    """Each source's title, as the task's tools first gave it (a search's hit, a part read, a
    page fetched)."""
    titles: dict[str, str] = {}
    for answer in task.answers:
        if not isinstance(answer.value, Mapping):
            continue
        hits = answer.value.get("hits", []) if answer.tool == search_sources.action_name else [
            answer.value]
        for hit in hits if isinstance(hits, list) else []:
            if isinstance(hit, Mapping) and "source_id" in hit:
                titles.setdefault(str(hit["source_id"]), str(hit.get("title", "")))
    return titles


class Research(Skill[ResearchTask, GroundedAnswer]):
    """Answer a question from the sources, every claim citing what was retrieved."""

    description = (
        "Answer the question from the sources. Search them with search_sources, read the most "
        "promising with read_source, then hand back the answer as claims. Every claim cites at "
        "least one source as (source_id, quote): a source a tool returned in this task, and a "
        "quote copied word for word from its text. An answer with an uncited claim, or a quote "
        "that is not in the source it cites, is refused. Make only claims that answer the "
        "question; fewer claims are better than claims beside the point. When the sources read "
        "do not answer the question, decline: hand back no claims and `declined` with the "
        "reason, the queries you searched and the closest sources."
    )
    tools = [search_sources, read_source, fetch_url]

    def brief(self, subject: ResearchTask) -> str:
        """The question, on a line of its own."""
        return f"The question: {subject.question}"

    def check_result(self, result: GroundedAnswer, task: TaskView) -> str:
        """Refuse an answer whose citations do not hold, saying which claims fail and why (or
        a declining one that names what this task did not search or find)."""
        asked = task.subject.question if isinstance(task.subject, ResearchTask) else ""
        if asked and result.question.strip() and _as_compared(result.question) != _as_compared(
                asked):
            return (f"The answer says it answers “{_short(result.question)}”, but the question "
                    f"is “{_short(asked)}”: answer that question, and give it as asked (or "
                    "give no question).")
        searched = [str(a.arguments.get("query", "")) for a in task.answers
                    if a.tool == search_sources.action_name]
        retrieved = retrieved_sources(task)
        return problems_in_words(check_citations(result, retrieved, searched=searched)) or (
            off_question(result, asked, _titles(task), retrieved) if asked else "")


def _as_compared(question: str) -> str:
    """A question as another is compared with it: its case, its spaces and the signs that end
    it aside."""
    return normalise(question).casefold().rstrip("?.!？。 ")


def _short(text: str, limit: int = 120) -> str:
    text = normalise(text)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class Researcher(Agent):
    """Researches questions in a corpus, and answers with claims that cite it."""

    purpose = ("You research questions in a corpus of sources, and answer only with claims "
               "that cite what you retrieved.")
    skills = [Research()]
    roles = ["researcher"]
    max_steps = 8
    budget_usd = 0.50


def data_dir() -> Path:
    """Where signoff keeps its data: ``SIGNOFF_DATA_DIR``, else the platform's user data
    directory."""
    override = os.environ.get("SIGNOFF_DATA_DIR")
    if override:
        return Path(override)
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming") / "signoff"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "signoff"
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "signoff"


def default_database() -> str:
    """The research app's database by default: ``research.db`` in the user's data directory."""
    return f"sqlite:///{data_dir() / 'research.db'}"


def _own_file(path: Path, *, given: bool) -> None:
    """Make the research database `path` (and its folder, when it is research's own: not
    `given`) when it is not there yet, readable by its owner alone (mode 0600, as the profile
    and the corpus indexes are): it keeps the questions asked and what was read. SQLite makes
    its -wal and -shm files with the mode of the database's. A file that is there already is
    left as it is. `UserError` naming the folder, and the variable that moves it, when it
    cannot be made or written (a FileExistsError or PermissionError "it did not foresee"); or,
    for a database `given` in a folder that is not there, naming the folder (as an app's
    database is refused: a mistyped path made folders wherever it pointed)."""
    if given and not path.parent.is_dir():
        raise UserError(f"The folder {path.parent} does not exist: make it, or give a database "
                        "in a folder that does (a relative path is read from the folder you "
                        "run in).")
    try:
        _own_folder(path.parent)
        with contextlib.suppress(FileExistsError):  # (an empty file is a new SQLite database)
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError as error:
        raise UserError(f"Research keeps its tasks in {path}, which cannot be made there "
                         f"({error.strerror or error}): give a folder you may write, with "
                         "SIGNOFF_DATA_DIR, or a database with --database.") from None


def _own_folder(folder: Path) -> None:
    """Make `folder`, and each folder above it that is not there yet, open to its owner alone
    (mode 0700, as the XDG base directory specification asks of a data folder): the names of
    what research keeps were listed to every user of the machine. A folder already there is
    left as it is."""
    missing: list[Path] = []
    while not folder.is_dir():
        missing.append(folder)
        if folder.parent == folder:
            break
        folder = folder.parent
    for made in reversed(missing):
        try:
            made.mkdir(mode=0o700)
        except FileExistsError:  # (made meanwhile by another process; a file is told)
            if not made.is_dir():
                raise


def research_app(
    corpus: Corpus | str | Path | None = None, *, database: str | None = None,
    sponsor: Principal | None = None,
) -> App:
    """An app with the research tools over `corpus` (a `Corpus`, a folder, or None for
    `Corpus.default()`: Python's documentation, or its help topics) and the `Researcher`
    agent. Its `database` is `default_database()` unless given (``"sqlite://"`` keeps it in
    memory)."""
    if corpus is None:
        corpus = Corpus.default()
    elif not isinstance(corpus, Corpus):
        corpus = Corpus.from_folder(corpus)
    url = database or default_database()
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:" and "?" not in url:
        _own_file(Path(url.removeprefix("sqlite:///")).expanduser(),
                  given=url != default_database())  # (its own folder, made on first use)
    app = App("research", database=url)
    chosen = corpus
    app.provide("corpus", lambda: chosen)
    app.collect(tools)
    app.add_agent(Researcher, sponsor=sponsor)
    app.agent(Researcher)  # (its account, made now; one made meanwhile by another: that one)
    return app


def ask(
    app: App, question: str, *, model: Model | None = None, for_: Principal | None = None,
    max_steps: int | None = None, budget_usd: float | None = None,
    model_spec: ModelSpec | None = None,
) -> Outcome:
    """Research one question with the app's `Researcher` (the offline extractive model unless
    `model` is given): Done with a `GroundedAnswer` (which may decline: no answer can be cited
    from the sources read), Waiting on a proposal, Halted or Failed. `model_spec`: the spec
    `model` was made from, kept with the task so that it can go on after a decision (see
    `AgentHandle.do`)."""
    from signoff.research.extractive import ExtractiveModel

    if not isinstance(question, str):
        raise UserError(f"The question is text (a str), not {type(question).__name__}: ask it "
                        "as words, such as “What does the with statement do?” (decode bytes "
                        "first: question.decode()).")
    if not question.strip():
        raise UserError("The question is empty: ask something, such as “What does the with "
                        "statement do?”.")
    try:
        question.encode("utf-8")
    except UnicodeEncodeError as error:
        raise UserError(f"The question holds {question[error.start]!r}, which is no character "
                        "(bytes that are not UTF-8, or half of one): ask it in UTF-8 text."
                        ) from None
    control = next((c for c in question if unicodedata.category(c) == "Cc" and c not in "\t\n\r"),
                   None)
    if control is not None:  # (a terminal's escape codes pasted in, say: "\x1b[31m")
        raise UserError(f"The question holds a control character (U+{ord(control):04X}), which "
                        "is no part of a question (a terminal's colour codes, pasted in, are): "
                        "ask it as plain text.")
    return app.agent(Researcher).do(
        Research(), ResearchTask(question=question), for_=for_,
        model=model or ExtractiveModel(), max_steps=max_steps, budget_usd=budget_usd,
        model_spec=model_spec,
    )
