"""Research: the FTS5 corpus, its tools, the offline extractive model, the citation check at
hand back, and ``signoff research`` (DESIGN "3. Hard limits and grounded answers", "Offline
default")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from pydoc_data.topics import topics

import pytest
from click.testing import CliRunner

from signoff import App, Leave, TaskStatus, UserError
from signoff.agents.loop import answer_of
from signoff.limits.grounding import Citation, Claim, GroundedAnswer, normalise
from signoff.models.base import Message, ToolSpec
from signoff.research import (
    Corpus,
    Research,
    ResearchTask,
    ask,
    fetch_url,
    read_source,
    research_app,
    search_sources,
)
from signoff.research.command import research
from signoff.research.corpus import PART_CHARS, html_to_text
from signoff.research.extractive import ExtractiveModel, best_sentences, sentences_of
from signoff.testing import ScriptedModel, says

QUESTION = "What does the with statement do?"


@pytest.fixture(autouse=True)
def _own_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Indexes and databases go to this test's own folders, never the user's."""
    monkeypatch.setenv("SIGNOFF_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SIGNOFF_DATA_DIR", str(tmp_path / "data"))


@pytest.fixture(scope="module")
def bundled(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    """Python's help topics, indexed once for this module."""
    return Corpus.bundled(index=tmp_path_factory.mktemp("index") / "pydoc.sqlite")


@pytest.fixture
def app(bundled: Corpus) -> App:
    """A research app over the bundled corpus, in memory."""
    return research_app(bundled, database="sqlite://")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder of sources: text, Markdown (nested), HTML, and files that are not sources."""
    root = tmp_path / "sources"
    (root / "guide").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "notes.txt").write_text("Kettle notes\n\nThe kettle boils water. A kettle kettle.\n")
    (root / "guide" / "intro.md").write_text("# Introduction\n\nThe kettle is in the kitchen.\n"
                                             "Tea needs a kettle and a pot.\n")
    (root / "page.html").write_text(
        "<html><head><title>Teapots</title><style>p {color: red}</style></head><body>"
        "<h1>All about teapots</h1><p>A teapot   holds\n tea.</p><script>kettle()</script>"
        "<ul><li>Warm the pot.</li><li>Pour.</li></ul></body></html>")
    (root / "other.txt").write_text("Nothing about that here at all.\n")
    (root / "code.py").write_text("kettle = 1\n")
    (root / ".hidden.md").write_text("kettle\n")
    (root / ".git" / "HEAD.txt").write_text("kettle\n")
    return root


# -- the corpus ---------------------------------------------------------------------------


def test_a_folder_of_text_markdown_and_html_is_indexed(folder: Path, tmp_path: Path) -> None:
    """.txt, .md and .html files (nested) are sources; hidden files and others are not; HTML
    is reduced to its visible text, its title taken from <title>."""
    corpus = Corpus.from_folder(folder, index=tmp_path / "i.sqlite")
    assert len(corpus) == 4
    page = corpus.read("page.html")
    assert page.title == "Teapots"
    assert page.text == "All about teapots\n\nA teapot holds tea.\n\nWarm the pot.\n\nPour."
    assert corpus.read("guide/intro.md").title == "Introduction"
    assert corpus.read("notes.txt").title == "Kettle notes"
    assert {h.source_id for h in corpus.search("kettle")} == {"notes.txt", "guide/intro.md"}


def test_search_ranks_by_bm25_best_first(folder: Path, tmp_path: Path) -> None:
    """The source where the word is denser ranks first; scores fall; a snippet shows the match;
    words that FTS5 would read as syntax are searched as words."""
    corpus = Corpus.from_folder(folder, index=tmp_path / "i.sqlite")
    hits = corpus.search("kettle")
    assert [h.source_id for h in hits] == ["notes.txt", "guide/intro.md"]
    assert hits[0].score > hits[1].score > 0
    assert "kettle" in hits[0].snippet
    assert corpus.search('kettle AND "NOT" teapot*') != []
    assert corpus.search("?!") == []


def test_the_index_is_kept_and_rebuilt_when_the_sources_change(folder: Path, tmp_path: Path) -> None:
    """Opening the same unchanged folder reuses the index; adding or changing a file rebuilds it."""
    index = tmp_path / "i.sqlite"
    Corpus.from_folder(folder, index=index)
    built = index.stat().st_mtime_ns
    Corpus.from_folder(folder, index=index)
    assert index.stat().st_mtime_ns == built
    (folder / "new.md").write_text("# Samovar\n\nA samovar heats water.\n")
    assert [h.source_id for h in Corpus.from_folder(folder, index=index).search("samovar")] == [
        "new.md"]
    (folder / "other.txt").write_text("Now this one mentions a percolator.\n")
    assert [h.source_id for h in Corpus.from_folder(folder, index=index).search("percolator")] == [
        "other.txt"]


def test_the_default_index_lives_in_the_cache_dir(folder: Path, tmp_path: Path) -> None:
    """Without `index=`, the index goes under SIGNOFF_CACHE_DIR (the user cache dir otherwise)."""
    corpus = Corpus.from_folder(folder)
    assert corpus.index.parent == tmp_path / "cache"


def test_a_folder_that_is_not_a_corpus_is_refused(tmp_path: Path) -> None:
    """A missing folder, or one without sources, is a UserError saying what to give."""
    with pytest.raises(UserError, match="There is no folder"):
        Corpus.from_folder(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(UserError, match=r"holds no \.txt, \.md or \.html files"):
        Corpus.from_folder(tmp_path / "empty")


def test_the_bundled_corpus_is_pythons_help_topics(bundled: Corpus) -> None:
    """Every pydoc topic is a source, its text unchanged; "with" ranks first for the with
    statement."""
    assert len(bundled) == len(topics)
    assert bundled.search(QUESTION)[0].source_id == "with"
    assert bundled.read("with").text == topics["with"]
    assert bundled.read("with").title == 'The "with" statement'


def test_a_long_source_is_read_in_parts(bundled: Corpus) -> None:
    """A source longer than a part comes in parts cut between paragraphs, together the whole."""
    longest = max(topics, key=lambda k: len(topics[k]))
    first = bundled.read(longest)
    assert first.parts > 1
    assert len(first.text) <= PART_CHARS
    whole = "".join(bundled.read(longest, part=n).text for n in range(1, first.parts + 1))
    assert whole == topics[longest]


def test_html_is_reduced_to_text_with_the_stdlib() -> None:
    """Scripts and styles vanish; blocks are separated; <pre> keeps its spacing."""
    title, text = html_to_text("<h1>Title</h1><pre>  a\n    b</pre><p>x<br>y</p>")
    assert (title, text) == ("Title", "Title\n\n  a\n    b\n\nx\ny")


# -- the tools ----------------------------------------------------------------------------


def test_search_and_read_are_queries_and_fetch_reaches_outside(app: App) -> None:
    """search_sources and read_source pass the effects analysis as read-only queries (they only
    read the index's tables); fetch_url reaches outside, so the researcher proposes it."""
    for name in ("search_sources", "read_source"):
        info = app.actions.info(name)
        assert info.query
        assert info.effects.only_reads
        assert all(line.startswith("reads ") for line in info.effects.explain())
    fetch = app.actions.info("fetch_url")
    assert not fetch.query
    assert fetch.effects.external
    leaves = {line.tool: line.leave for line in app.skills.catalog()}
    assert leaves == {"search_sources": Leave.ALONE, "read_source": Leave.ALONE,
                      "fetch_url": Leave.PROPOSE}


def test_the_queries_run_under_the_read_only_guard_without_writing(app: App, bundled: Corpus) -> None:
    """Run enforced read-only, the queries are Done (the guard saw no write), the index file is
    untouched, and an unknown source is Gone."""
    before = bundled.index.stat()
    found = app.actions.run("search_sources", {"query": QUESTION}, as_=app.system)
    assert found.done, found.problem
    assert found.value[0]["source_id"] == "with"
    read = app.actions.run("read_source", {"source_id": "with"}, as_=app.system)
    assert read.done
    assert read.value["text"] == topics["with"]
    gone = app.actions.run("read_source", {"source_id": "nope"}, as_=app.system)
    assert gone.outcome.value == "Gone"
    assert "There is no source 'nope'" in gone.problem
    after = bundled.index.stat()
    assert (after.st_mtime_ns, after.st_size) == (before.st_mtime_ns, before.st_size)


# -- research tasks -----------------------------------------------------------------------


def _every_quote_in_its_source(answer: GroundedAnswer) -> bool:
    return all(
        normalise(c.quote) in normalise(topics[c.source_id])
        for claim in answer.claims for c in claim.citations
    )


def test_the_offline_model_answers_with_every_quote_in_its_cited_source(app: App) -> None:
    """End to end offline: search, read, hand back; Done, and every claim quotes the topic it
    cites; the model says plainly that it is not a language model."""
    outcome = ask(app, QUESTION)
    assert outcome.status is TaskStatus.DONE, outcome.problem
    answer = outcome.result
    assert isinstance(answer, GroundedAnswer)
    assert answer.claims
    assert answer.question == QUESTION
    assert answer.claims[0].citations[0].source_id == "with"
    assert _every_quote_in_its_source(answer)
    assert "not a language model" in ExtractiveModel.name
    assert outcome.steps == 3
    assert outcome.spend_usd == 0
    assert "not a language model" in app.receipt(outcome.task).words


def test_the_offline_model_is_deterministic_and_restart_safe(app: App) -> None:
    """Two runs give the same answer; and a new model at every turn (as after a restart) goes on
    from the conversation alone, to the same answer."""
    first = ask(app, QUESTION).result
    assert ask(app, QUESTION, model=ExtractiveModel()).result == first
    tools = [ToolSpec(name=n, description="", parameters={})
             for n in ("search_sources", "read_source", "fetch_url", "hand_back")]
    messages = [Message(role="system", text="Research."),
                Message(role="user", text=Research().brief(ResearchTask(question=QUESTION)))]
    for _ in range(3):
        reply = ExtractiveModel().complete(messages, tools, max_output_tokens=100)
        messages.append(Message(role="assistant", text=reply.text, tool_calls=reply.tool_calls))
        for call in reply.tool_calls:
            if call.name == "hand_back":
                assert GroundedAnswer.model_validate_json(call.arguments) == first
                return
            ran = app.actions.run(call.name, app.actions.values_from_json(call.name,
                                                                          call.arguments),
                                  as_=app.system)
            messages.append(Message(role="tool", text=answer_of(ran), tool_call_id=call.id))
    pytest.fail("The model never handed back an answer.")


def test_a_wrongly_cited_answer_is_refused_naming_the_claim_then_a_right_one_accepted(
    app: App,
) -> None:
    """The first hand back quotes context-managers but cites "with": refused, the claim named
    and the right source said; the model retries, and its second, right answer is Done."""
    quote = ('A *context manager* is an object that defines the runtime context to be '
             'established when executing a "with" statement.')
    assert normalise(quote) in normalise(topics["context-managers"])
    assert normalise(quote) not in normalise(topics["with"])
    claim = "A context manager sets up the runtime context of a with statement."
    wrong = GroundedAnswer(claims=[Claim(text=claim, citations=[
        Citation(source_id="with", quote=quote)])])
    right = GroundedAnswer(claims=[Claim(text=claim, citations=[
        Citation(source_id="context-managers", quote=quote)])])
    script = ScriptedModel(
        says.tool(search_sources, query="context manager"),
        says.tools(says.tool(read_source, source_id="with"),
                   says.tool(read_source, source_id="context-managers")),
        says.hand_back(wrong),
        says.hand_back(right),
    )
    outcome = ask(app, "What is a context manager?", model=script)
    assert outcome.status is TaskStatus.DONE
    assert outcome.result == right
    told = script.seen.messages[-1][-1].text
    assert told.startswith("Invalid: The answer is not accepted.")
    assert f"Claim 1 (“{claim}”)" in told
    assert "those words are in 'context-managers', not in 'with'" in told
    assert "Claim 1" in app.receipt(outcome.task).words


def test_a_search_snippet_counts_as_retrieved_text(app: App) -> None:
    """A source only searched (not read) may be cited for words its snippet showed."""
    hit = app.actions.run("search_sources", {"query": QUESTION}, as_=app.system).value[0]
    words = max(hit["snippet"].split("…"), key=len).strip()
    script = ScriptedModel(
        says.tool(search_sources, query=QUESTION),
        says.hand_back(GroundedAnswer(claims=[Claim(text="From the snippet.", citations=[
            Citation(source_id=hit["source_id"], quote=words)])])),
    )
    assert ask(app, QUESTION, model=script).status is TaskStatus.DONE


def test_an_answer_never_cited_right_ends_not_done_within_its_step_limit(app: App) -> None:
    """Uncited, unretrieved, made up: each refused; the task halts at its step limit, with no
    result."""
    uncited = GroundedAnswer(claims=[Claim(text="It wraps a block.", citations=[])])
    unretrieved = GroundedAnswer(claims=[Claim(text="It loops.", citations=[
        Citation(source_id="for", quote='The "for" statement')])])
    made_up = GroundedAnswer(claims=[Claim(text="Made up.", citations=[
        Citation(source_id="with", quote="wraps a block in cotton wool")])])
    script = ScriptedModel(
        says.tool(read_source, source_id="with"),
        says.hand_back(uncited), says.hand_back(unretrieved), says.hand_back(made_up),
    )
    outcome = ask(app, QUESTION, model=script, max_steps=4)
    assert outcome.status is TaskStatus.HALTED
    assert outcome.result is None
    assert outcome.steps == 4
    assert "limit of 4 steps" in outcome.problem
    receipt = app.receipt(outcome.task).words
    assert "cites no source" in receipt
    assert "which no tool returned" in receipt
    assert "not in it, nor in any source retrieved" in receipt


def test_fetch_url_is_proposed_not_run(app: App, monkeypatch: pytest.MonkeyPatch) -> None:
    """fetch_url reaches outside: the task waits on a proposal, and nothing was fetched."""
    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("fetch_url ran")

    monkeypatch.setattr("urllib.request.urlopen", no_network)
    me = app.people.add("me@localhost", "Me")
    script = ScriptedModel(says.tool("The docs site may say more.", fetch_url,
                                     url="https://docs.python.org/3/reference/compound_stmts.html"))
    outcome = ask(app, QUESTION, model=script, for_=me)
    assert outcome.status is TaskStatus.WAITING
    (proposal,) = app.proposals(task=outcome.task)
    assert proposal.action == "fetch_url"
    assert proposal.status.value == "Waiting"
    assert proposal.why == "The docs site may say more."
    assert outcome.waiting_on == ("a decision from Me",)


def test_sentences_leave_out_headings_grammar_and_indented_blocks() -> None:
    """Only prose sentences are candidates; the best match for the question comes first."""
    found = [s.text for s in sentences_of("with", topics["with"])]
    assert all("::=" not in s and "****" not in s for s in found)
    best = best_sentences(QUESTION, [("with", topics["with"])], limit=1)
    assert best[0].text.startswith('The "with" statement is used to wrap')


# -- the command --------------------------------------------------------------------------


def test_the_research_command_prints_a_cited_answer(tmp_path: Path) -> None:
    """`signoff research QUESTION`: progress by step against the budget, each tool call and its
    outcome, the answer with numbered citations and their quotes, the receipt, nothing waiting."""
    result = CliRunner().invoke(research, [QUESTION, "--database",
                                           f"sqlite:///{tmp_path / 'r.db'}"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "not a language model" in out
    assert "Step 1 of 8 · $0.0000 of $0.50 spent" in out
    assert "Step 3 of 8" in out
    assert "→ search_sources" in out
    assert "← search_sources: Done: 5 hit(s) — with" in out
    assert "← read_source: Done: “The \"with\" statement”" in out
    assert "Answer" in out
    assert "[1] with — The \"with\" statement" in out
    assert "Receipt: task " in out
    assert "Nothing waits for approval." in out


def test_the_research_command_prints_json(tmp_path: Path) -> None:
    """--json prints the grounded answer with its sources; every quote is in its cited topic."""
    result = CliRunner().invoke(research, [QUESTION, "--json", "--database",
                                           f"sqlite:///{tmp_path / 'r.db'}"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["status"] == "Done"
    assert data["waiting"] == []
    answer = GroundedAnswer.model_validate(data["answer"])
    assert _every_quote_in_its_source(answer)
    assert set(data["sources"]) == set(answer.source_ids)
    assert data["sources"]["with"]["title"] == 'The "with" statement'


def test_the_research_command_refuses_what_it_cannot_do(tmp_path: Path) -> None:
    """A model spec naming no provider, and a folder with no sources, are told, not raised."""
    bad = CliRunner().invoke(research, [QUESTION, "--model", "nonsense:thing"])
    assert bad.exit_code == 2
    assert "--model" in bad.output
    (tmp_path / "empty").mkdir()
    empty = CliRunner().invoke(research, [QUESTION, "--corpus", str(tmp_path / "empty")])
    assert empty.exit_code == 1
    assert "holds no .txt, .md or .html files" in empty.output


def test_the_research_command_over_a_folder(folder: Path, tmp_path: Path) -> None:
    """--corpus DIR researches in that folder."""
    result = CliRunner().invoke(research, ["Where is the kettle?", "--corpus", str(folder),
                                           "--database", f"sqlite:///{tmp_path / 'r.db'}"])
    assert result.exit_code == 0, result.output
    assert "The kettle is in the kitchen." in result.output


@pytest.fixture
def entry_point() -> Path:
    """The installed `signoff` script."""
    script = Path(sys.executable).parent / ("signoff.exe" if os.name == "nt" else "signoff")
    assert script.exists(), "install signoff first: pip install -e ."
    return script


def test_the_installed_signoff_research_prints_a_cited_answer(entry_point: Path, tmp_path: Path) -> None:
    """As a real process of the installed entry point, on a fresh cache and data dir: a cited
    answer whose every quote is in its cited topic."""
    env = {**os.environ, "SIGNOFF_CACHE_DIR": str(tmp_path / "c"),
           "SIGNOFF_DATA_DIR": str(tmp_path / "d"), "SIGNOFF_ALLOW_MODEL_REQUESTS": "0"}
    done = subprocess.run([str(entry_point), "research", QUESTION, "--json"], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr or done.stdout
    answer = GroundedAnswer.model_validate(json.loads(done.stdout)["answer"])
    assert answer.claims
    assert _every_quote_in_its_source(answer)
    shown = subprocess.run([str(entry_point), "research", QUESTION], env=env,
                           capture_output=True, text=True, timeout=120, check=False)
    assert shown.returncode == 0, shown.stderr
    assert "[1] with" in shown.stdout
    assert (tmp_path / "d" / "research.db").exists()
