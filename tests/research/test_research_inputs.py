"""Research's inputs and what it shows of them: limits out of range, a question or sources that
are not text, a part past any source's, a declining answer's reason (the model's words, never
shown as checked), and a research task going on in another corpus than the one it read."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from signoff import App, NotFound, TaskStatus, UserError
from signoff.cli.research import _local_person, research
from signoff.limits.grounding import Citation, Claim, GroundedAnswer, check_citations
from signoff.research import Corpus, ask, fetch_url, read_source, research_app, search_sources
from signoff.testing import ScriptedModel, says

QUESTION = "How often should a kettle be descaled?"
QUOTE = "A kettle should be descaled every month."
SMUGGLED = ("The sources read do not say it outright, but kettles must be descaled every week "
            "with bleach.")


@pytest.fixture
def kettles(tmp_path: Path) -> Path:
    """A folder whose kettle.md says how often to descale a kettle."""
    root = tmp_path / "kettles"
    root.mkdir()
    (root / "kettle.md").write_text(f"# Kettles\n\nThe kettle boils water in about three "
                                    f"minutes.\n{QUOTE}\n")
    (root / "teapot.txt").write_text("Teapots\n\nA teapot keeps tea warm.\n")
    return root


@pytest.fixture
def recalls(tmp_path: Path) -> Path:
    """Another folder, whose kettle.md is another file."""
    root = tmp_path / "recalls"
    root.mkdir()
    (root / "kettle.md").write_text("# Kettle recall notice\n\nThis kettle model is recalled "
                                    "for electrical faults.\n")
    return root


def _good() -> GroundedAnswer:
    return GroundedAnswer(claims=[Claim(text="Descale it monthly.", citations=[
        Citation(source_id="kettle.md", quote=QUOTE)])])


def _app_in(folder: Path, database: str) -> tuple[App, Any]:
    """The research app over `folder` in `database`, and the person at the keyboard (whom the
    command decides and goes on as)."""
    app = research_app(Corpus.from_folder(folder), database=database)
    return app, _local_person(app)


# -- limits and inputs given in code ------------------------------------------------------


@pytest.mark.parametrize(("limits", "told"), [
    ({"max_steps": 2**63}, "max_steps must be at most 1,000,000 model calls"),
    ({"max_steps": 1_000_001}, "max_steps must be at most 1,000,000 model calls"),
    ({"budget_usd": Decimal("sNaN")}, "budget_usd must be a number of US dollars, 0 or more"),
    ({"budget_usd": 10**400}, "is more US dollars than a task's budget can keep"),
    ({"budget_usd": Decimal("1e400")}, "give float('inf') for no budget"),
    ({"budget_usd": Decimal("1e-400")}, "is above 0, but too small for a task's budget"),
])
def test_limits_out_of_range_are_told_in_a_sentence(kettles: Path, limits: dict[str, Any],
                                                    told: str) -> None:
    """A step limit past what the CLI takes (an OverflowError past 64 bits), a signalling NaN
    (a ValueError), a budget too large for a float (an OverflowError, or read as none) or too
    small for one (read as 0: it halted before its first step) is a `UserError`."""
    app = research_app(Corpus.from_folder(kettles), database="sqlite://")
    with pytest.raises(UserError, match=re.escape(told)):
        ask(app, QUESTION, model=ScriptedModel(says.hand_back(_good())), **limits)


def test_the_step_limit_is_the_one_the_cli_takes() -> None:
    """The library and ``--max-steps`` share one bound: a task may take 1,000,000 steps."""
    from signoff.agents.agency import MAX_STEPS
    from signoff.cli import MAX_STEPS as CLI_MAX_STEPS

    assert MAX_STEPS == CLI_MAX_STEPS == 1_000_000


def test_limits_in_range_still_run(kettles: Path) -> None:
    """The most steps, no budget (a Decimal infinity too) and a budget of 0 are still taken."""
    app = research_app(Corpus.from_folder(kettles), database="sqlite://")
    for limits in ({"max_steps": 1_000_000}, {"budget_usd": Decimal("Infinity")},
                   {"budget_usd": float("inf")}):
        done = ask(app, QUESTION, model=ScriptedModel(
            says.tool(read_source, source_id="kettle.md"), says.hand_back(_good())), **limits)
        assert done.status is TaskStatus.DONE, limits
    assert ask(app, QUESTION, model=ScriptedModel(), budget_usd=0).status is TaskStatus.HALTED


def test_a_part_past_any_sources_is_gone_as_other_missing_parts(kettles: Path) -> None:
    """A model reading part 99999999999999999999999 is told there is no such part (Gone), as
    for part 2 of a one-part source; it failed "for a reason the app did not foresee" (an
    OverflowError from SQLite)."""
    corpus = Corpus.from_folder(kettles)
    for part in (0, 2, 2**63, 10**23):
        with pytest.raises(NotFound, match=re.escape(f"'kettle.md' has 1 part(s); there is no "
                                                     f"part {part}.")):
            corpus.read("kettle.md", part=part)
    app = research_app(corpus, database="sqlite://")
    done = ask(app, QUESTION, model=ScriptedModel(
        says.tool(read_source, source_id="kettle.md", part=10**23),
        says.tool(read_source, source_id="kettle.md"), says.hand_back(_good())))
    assert done.status is TaskStatus.DONE
    words = app.receipt(done.task).words
    assert "ran read_source alone, as itself: Gone." in words
    assert "did not foresee" not in words


def test_a_question_that_is_not_text_is_told_so(kettles: Path) -> None:
    """`ask` given bytes says the question is text (it said the question was empty)."""
    app = research_app(Corpus.from_folder(kettles), database="sqlite://")
    with pytest.raises(UserError, match=re.escape("The question is text (a str), not bytes")):
        ask(app, b"kettle")  # type: ignore[arg-type]


@pytest.mark.parametrize(("retrieved", "searched", "told"), [
    ({"k": b"abc"}, None, "it maps 'k' to b'abc'"),  # (TypeError from normalize)
    ({"k": None}, None, "it maps 'k' to None"),  # (TypeError: not iterable)
    ({"k": ["abc", 3]}, None, "it maps 'k' to ['abc', 3]"),
    ({1: "abc"}, None, "it maps 1 to 'abc'"),
    ([("k", "abc")], None, "not list"),
    ({"k": "abc"}, "kettle", "searched is the list of queries"),
])
def test_check_citations_says_what_retrieved_holds(retrieved: Any, searched: Any,
                                                   told: str) -> None:
    """`retrieved` that is not source id → a text or a list of texts, or `searched` that is
    not a list of queries, is a `UserError` saying what they hold (a declining answer too)."""
    for answer in (_good(), GroundedAnswer.decline("None.")):
        with pytest.raises(UserError, match=re.escape(told)) as raised:
            check_citations(answer, retrieved, searched=searched)
        if searched is None:
            assert "source id a tool returned to what it returned" in str(raised.value)


# -- a declining answer's reason ----------------------------------------------------------


def test_a_declining_answers_reason_is_shown_as_the_models_unchecked_words(
        kettles: Path, tmp_path: Path) -> None:
    """An answer that declines shows what was checked (what it searched for, the closest
    sources) in signoff's words, then the model's reason marked as its own, not checked; with
    --json, beside the answer, under `decline` with `reason_checked: false`. The reason, which
    may claim anything, was printed as a plain statement under "No answer can be cited"."""
    database = f"sqlite:///{tmp_path / 'r.db'}"
    app, me = _app_in(kettles, database)
    declined = GroundedAnswer.decline(SMUGGLED, searched=["kettle descale"],
                                      closest=["kettle.md"])
    done = ask(app, QUESTION, for_=me, model=ScriptedModel(
        says.tool(search_sources, query="kettle descale"), says.hand_back(declined)))
    assert done.status is TaskStatus.DONE
    shown = CliRunner().invoke(research, ["--go-on", done.task, "--database", database,
                                          "--corpus", str(kettles)])
    assert shown.exit_code == 0, shown.output
    lines = [line.strip() for line in shown.output.splitlines()]
    at = lines.index("No answer can be cited from the sources read.")
    assert lines[at + 1:at + 5] == [
        "Searched for: “kettle descale”", "The closest sources:", "kettle.md — Kettles",
        f"The model's reason, not checked against the sources: “{SMUGGLED}”"]
    assert SMUGGLED not in [line for line in lines if not line.startswith("The model's")]
    told = json.loads(CliRunner().invoke(research, [
        "--go-on", done.task, "--database", database, "--corpus", str(kettles), "--json"]).output)
    assert told["declined"] is True
    assert told["answer"]["declined"]["reason"] == SMUGGLED  # (as it was: keys kept)
    assert told["decline"] == {
        "said": "No answer can be cited from the sources read. It searched for “kettle "
                "descale”. The closest sources: kettle.md (Kettles).",
        "searched": ["kettle descale"], "closest": ["kettle.md"], "reason": SMUGGLED,
        "reason_by": "scripted", "reason_checked": False}


# -- going on in another corpus ------------------------------------------------------------


def _waiting_on_a_fetch(folder: Path, database: str) -> tuple[App, Any, Any]:
    """A research task over `folder` that searched it, read kettle.md and waits on a fetch:
    the app, the task's outcome and the proposal."""
    app, me = _app_in(folder, database)
    waiting = ask(app, QUESTION, for_=me, model=ScriptedModel(
        says.tool(search_sources, query="kettle descaled teapot"),
        says.tool(read_source, source_id="kettle.md"),
        says.tool("Fetch it.", fetch_url, url="http://127.0.0.1:9/kettle")))
    assert waiting.status is TaskStatus.WAITING
    (proposal,) = app.proposals(task=waiting.task)
    return app, waiting, proposal


def test_a_decision_in_another_corpus_is_refused_naming_the_one_the_task_read(
        kettles: Path, recalls: Path, tmp_path: Path) -> None:
    """Deciding a research task's proposal with --corpus naming another folder (or none: the
    default corpus), which has no kettle.md or another one, decides nothing and names the folder
    the task began in with the command to run there; there, it goes on. It went on in the other
    folder, and its answer showed corpus2's “Kettle recall notice” as holding corpus1's quote."""
    database = f"sqlite:///{tmp_path / 'r.db'}"
    app, waiting, proposal = _waiting_on_a_fetch(kettles, database)
    for corpus in (["--corpus", str(recalls)], []):
        refused = CliRunner().invoke(research, [
            "--reject", proposal.id, "--reason", "Not that site.", "--database", database,
            "--model", "offline", *corpus])
        assert refused.exit_code == 1, refused.output
        said = " ".join(refused.output.split())
        assert (f"Research task {waiting.task} read 'kettle.md' in {kettles.resolve()}, and "
                ) in said
        assert "has another 'kettle.md'" in said if corpus else "has no 'kettle.md'" in said
        assert "Nothing was decided (nor gone on with). Go on in the corpus it began in: " in said
        assert f"--corpus {kettles.resolve()}" in said
        assert app.proposal(proposal.id).status.value == "Waiting"
    gone_on = CliRunner().invoke(research, [
        "--reject", proposal.id, "--reason", "Not that site.", "--database", database,
        "--model", "offline", "--corpus", str(kettles)])
    assert gone_on.exit_code == 0, gone_on.output
    assert "said no to fetch_url: Not that site." in gone_on.output
    assert app.proposal(proposal.id).status.value == "Rejected"


def test_a_decision_after_a_file_the_task_read_was_edited_is_refused(
        kettles: Path, tmp_path: Path) -> None:
    """A file the task read, edited while it waits: deciding decides nothing and says to ask
    the question again (its answer would show the file as it is now holding what it said
    then)."""
    database = f"sqlite:///{tmp_path / 'r.db'}"
    app, waiting, proposal = _waiting_on_a_fetch(kettles, database)
    (kettles / "kettle.md").write_text("# Kettles\n\nA kettle should be descaled every year.\n")
    refused = CliRunner().invoke(research, [
        "--approve", proposal.id, "--database", database, "--model", "offline",
        "--corpus", str(kettles)])
    assert refused.exit_code == 1, refused.output
    said = " ".join(refused.output.split())
    assert (f"'kettle.md' ({kettles.resolve() / 'kettle.md'}) has changed since research task "
            f"{waiting.task} read it") in said
    assert "Nothing was decided (nor gone on with). Ask the question again" in said
    assert f"research '{QUESTION}' --database {database} --corpus {kettles}" in said
    assert app.proposal(proposal.id).status.value == "Waiting"


def test_asking_again_names_the_model_the_task_was_researched_with(
        kettles: Path, tmp_path: Path) -> None:
    """Deciding with no --model a task that kept its model, after a file it read was edited:
    the command that asks again names that model and its price (it named none, and the
    question was asked again of the offline reader)."""
    from signoff.agents import model_specs
    from signoff.agents.model_specs import ModelSpec
    from signoff.models.base import Price

    database = f"sqlite:///{tmp_path / 'r.db'}"
    app, waiting, proposal = _waiting_on_a_fetch(kettles, database)
    with app.database.connect() as db:
        model_specs.record(db, waiting.task, ModelSpec(
            spec="openai:gpt-4o-mini", price=Price(input_per_mtok=0.15, output_per_mtok=0.6)))
    (kettles / "kettle.md").write_text("# Kettles\n\nA kettle should be descaled every year.\n")
    refused = CliRunner().invoke(research, ["--approve", proposal.id, "--database", database,
                                            "--corpus", str(kettles)])
    assert refused.exit_code == 1, refused.output
    said = " ".join(refused.output.split())
    assert (f"research '{QUESTION}' --database {database} --corpus {kettles} --model "
            "openai:gpt-4o-mini --price 0.15,0.6") in said, said


def test_the_sources_shown_are_those_the_task_read(kettles: Path, recalls: Path,
                                                   tmp_path: Path) -> None:
    """A task's answer shown again with --corpus naming another folder shows each source it
    cites with the title and origin its tools gave (not what that folder's file of the same
    name is)."""
    database = f"sqlite:///{tmp_path / 'r.db'}"
    app, me = _app_in(kettles, database)
    done = ask(app, QUESTION, for_=me, model=ScriptedModel(
        says.tool(read_source, source_id="kettle.md"), says.hand_back(_good())))
    assert done.status is TaskStatus.DONE
    shown = CliRunner().invoke(research, ["--go-on", done.task, "--database", database,
                                          "--corpus", str(recalls)])
    assert shown.exit_code == 0, shown.output
    assert "[1] kettle.md — Kettles" in shown.output
    assert "Kettle recall notice" not in shown.output
    told = json.loads(CliRunner().invoke(research, [
        "--go-on", done.task, "--database", database, "--corpus", str(recalls),
        "--json"]).output)
    assert told["sources"] == {"kettle.md": {
        "title": "Kettles", "origin": str(kettles.resolve() / "kettle.md")}}


# -- the command's options -----------------------------------------------------------------


@pytest.mark.parametrize(("args", "told"), [
    # (it said "Give a question, or decide a proposal with --approve or --reject, not both")
    (["What?", "--reason", "x"], "--reason goes with --reject PROPOSAL_ID: it tells the agent "
                                 "why not. A question needs none."),
    (["--reason", "x"], "--reason goes with --reject PROPOSAL_ID"),
    # (the offline reader ran, the price ignored)
    (["What?", "--price", "1,1"], "--price goes with --model SPEC: without it, research uses "
                                  "the offline reader, which costs nothing."),
    (["What?", "--price", "1,1", "--model", "offline"], "--price goes with a provider's model: "
                                                        "the offline reader (--model offline) "
                                                        "costs nothing."),
])
def test_options_that_do_not_go_together_are_told(args: list[str], told: str) -> None:
    """A reason with a question, or a price with the offline reader: a usage error saying
    so, exit 2."""
    done = CliRunner().invoke(research, args)
    assert done.exit_code == 2, done.output
    assert told in " ".join(done.output.split())


def test_a_question_that_is_not_utf8_is_told_before_anything_is_printed(kettles: Path) -> None:
    """A question with bytes that are not UTF-8 (read as lone surrogates) is told, exit 2,
    before the corpus is named or indexed (it printed "Researching in …" first)."""
    done = CliRunner().invoke(research, ["What is \udcff?", "--corpus", str(kettles)])
    assert done.exit_code == 2, done.output
    assert "Researching in" not in done.output
    assert "Indexing" not in done.output
    assert "holds bytes that are not UTF-8 text" in " ".join(done.output.split())


def test_a_decision_in_another_corpus_after_only_a_search_is_refused(
        kettles: Path, recalls: Path, tmp_path: Path) -> None:
    """A task that only searched (its hits say no folder) is refused going on in another
    folder all the same, told to name the one the command printed under the proposal."""
    database = f"sqlite:///{tmp_path / 'r.db'}"
    app, me = _app_in(kettles, database)
    waiting = ask(app, QUESTION, for_=me, model=ScriptedModel(
        says.tool(search_sources, query="kettle descaled"),
        says.tool("Fetch it.", fetch_url, url="http://127.0.0.1:9/kettle")))
    (proposal,) = app.proposals(task=waiting.task)
    refused = CliRunner().invoke(research, [
        "--approve", proposal.id, "--database", database, "--model", "offline",
        "--corpus", str(recalls)])
    assert refused.exit_code == 1, refused.output
    said = " ".join(refused.output.split())
    assert (f"Research task {waiting.task} found 'kettle.md' in another corpus, and "
            f"{recalls.resolve()} has another 'kettle.md'") in said
    assert ("Nothing was decided (nor gone on with). Go on in the corpus it began in, named as "
            "the commands "
            "research printed for the task name it (--corpus DIR; none for the default "
            "corpus).") in said
    assert app.proposal(proposal.id).status.value == "Waiting"
