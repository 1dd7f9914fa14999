"""The offline research reader (``signoff research`` with no model): it quotes only sentences
that stand alone and are about the question, declines rather than pads, says why truly when it
declines, and ends in a sentence, not a loop, when its tools fail."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from signoff import App, Citation, Claim, GroundedAnswer, TaskStatus
from signoff.agents import repository as repo
from signoff.models.base import Message, ToolCall, ToolSpec
from signoff.research import Corpus, Research, ResearchTask, ask, research_app
from signoff.research.corpus import _INDEX_VERSION
from signoff.research.extractive import ExtractiveModel
from signoff.research.on_question import off_question
from signoff.research.relevance import Source, query_terms, rank_sentences, stem
from signoff.research.sentences import MAX_CHARS, sentences_of
from tests.research.asking import answer_of, app_over, claims_of

# -- fragments are never claims ------------------------------------------------------------


def test_a_piece_of_a_sentence_too_long_to_quote_is_never_a_claim(tmp_path: Path) -> None:
    """A sentence longer than MAX_CHARS is cut at a clause break for the index, but its pieces
    are fragments: the answer quotes a whole sentence, or declines (it quoted "in the samovar
    room." as a claim)."""
    long = ("The samovar, which the guild bought " + "and polished, " * 45
            + "is kept, after the guild's long and winding meetings, in the samovar room.")
    assert len(long) > MAX_CHARS
    app = app_over(tmp_path, {"guild.md": f"# The guild\n\n{long}\n\nThe samovar is brass.\n",
                          "other.md": "# Other\n\nNothing of note is here at all today.\n"})
    answer = answer_of(app, "Where is the samovar kept?")
    assert all(claim in ("The samovar is brass.",) for claim in claims_of(answer)), claims_of(answer)


def test_a_line_leading_in_to_a_list_and_its_items_are_not_claims(tmp_path: Path) -> None:
    """"An answer is accepted only if" (a list follows) and the items that go on it ("every
    claim has a citation,") say nothing whole: the reader declines (it quoted "It is accepted
    only if" as the answer)."""
    app = app_over(tmp_path, {"answers.md": (
        "# Answers\n\nA claim cites a source. An answer is accepted only if\n\n"
        "1. every claim has a citation,\n2. every citation quotes its source.\n"),
        "other.md": "# Other\n\nNothing of note is here at all today.\n"})
    answer = answer_of(app, "When is an answer accepted?")
    assert not answer.answered, claims_of(answer)


def test_a_pointer_is_followed_to_the_entry_it_points_to(tmp_path: Path) -> None:
    """Asked what the GIL is, where the glossary's entry only says "See global interpreter
    lock.", the answer is the first sentence of that entry (it quoted the pointer)."""
    app = app_over(tmp_path, {"glossary.md": (
        "# Glossary\n\nGIL\n\nSee global interpreter lock.\n\nglobal interpreter lock\n\n"
        "The mechanism that lets only one thread run bytecode at a time. Also, the GIL is "
        "released while a thread waits for input.\n\niterator\n\nAn object that yields items "
        "one at a time.\n"),
        "other.md": "# Other\n\nNothing of note is here at all today.\n"})
    answer = answer_of(app, "What is the GIL?")
    assert claims_of(answer)[0] == "The mechanism that lets only one thread run bytecode at a time."
    assert "See global interpreter lock." not in claims_of(answer)


@pytest.mark.parametrize(("text", "alone"), [
    ("The kettle is in the kitchen.", True),
    ("The kettle is in the kitchen", True),  # a note's line, without a full stop
    ("lambda is a minimal function definition.", True),  # a name in lower case
    ("in research's own database.", False),  # goes on a clause begun before it
    ("The simple form is equivalent to", False),  # breaks off
    ("(Another port than the one above, if it still runs.)", False),  # an aside
    ("See global interpreter lock.", False),  # a pointer
])
def test_what_stands_alone(text: str, alone: bool) -> None:
    """A sentence that goes on one begun before it, breaks off, is an aside in brackets or
    points elsewhere does not stand alone; a line without a full stop, or one that opens with a
    name in lower case, may."""
    from signoff.research.sentences import stands_alone

    (sentence,) = sentences_of("s", text)
    assert stands_alone(sentence) is alone


# -- claims about the question, not beside it ------------------------------------------------


def test_a_keyword_is_not_its_english_word_nor_part_of_a_hyphenated_one(tmp_path: Path) -> None:
    """Asked what pass does, "a two-pass buffer" and "passed by value" are other words: the
    answer quotes only the sentence about the pass statement (it quoted "A two-pass buffer, like
    the two-pass destination above." and "Arguments are passed by value to the buffer.")."""
    app = app_over(tmp_path, {
        "statements.md": "# Simple statements\n\nThe pass statement does nothing. It can be "
                         "used where a statement is needed but no action is wanted.\n",
        "buffers.md": "# Buffers\n\nA two-pass buffer, like the two-pass destination above.\n\n"
                      "Arguments are passed by value to the buffer.\n",
        "other.md": "# Other\n\nNothing of note is here at all today.\n"})
    answer = answer_of(app, "What does pass do?")
    assert claims_of(answer) == ["The pass statement does nothing."]


def test_what_something_is_is_answered_by_what_says_so_not_by_what_uses_one(
        tmp_path: Path) -> None:
    """Asked what a decorator is, the glossary's entry answers, with what it goes on to say; a
    sentence on a particular decorator of another page does not join it (it added "A decorator
    similar to the built-in property, but specifically for enumerations.")."""
    app = app_over(tmp_path, {
        "glossary.md": "# Glossary\n\ndecorator\n\nA function returning another function, "
                       "usually applied with the @wrapper syntax. Common examples for "
                       "decorators are classmethod and staticmethod.\n",
        "enums.md": "# Utilities and decorators\n\nA decorator similar to the built-in "
                    "property, but specifically for enumerations.\n\nA class decorator "
                    "specifically for enumerations.\n",
        "other.md": "# Other\n\nNothing of note is here at all today.\n"})
    answer = answer_of(app, "What is a decorator?")
    assert claims_of(answer) == [
        "A function returning another function, usually applied with the @wrapper syntax.",
        "Common examples for decorators are classmethod and staticmethod."]


def _kettleco(tmp_path: Path) -> App:
    """A corpus of a dozen pages, each naming the product, kettleco; one names Windows, and a
    folder with "Application Support" in it."""
    files = {f"page{n}.md": f"# Page {n}\n\nkettleco boils water number {n} at the right "
                            "heat.\n" for n in range(11)}
    files["files.md"] = ("# Where kettleco keeps its files\n\nOn Windows, kettleco keeps its "
                         "settings in `%APPDATA%\\kettleco`, and its database in "
                         "`~/Library/Application Support/kettleco` on macOS.\n")
    return app_over(tmp_path, files)


@pytest.mark.parametrize("question", ["Does kettleco support Windows?",
                                      "Which databases does kettleco support?"])
def test_a_question_the_corpus_cannot_answer_is_declined_though_a_sentence_names_its_words(
        tmp_path: Path, question: str) -> None:
    """A word every page has (the product's name) tells nothing of which sentence is about the
    question, and a word found only inside inline code (a folder's "Application Support") is
    part of a name: a sentence naming Windows and the product, or a database in that folder,
    does not say what is supported, and the reader declines (it quoted it)."""
    answer = answer_of(_kettleco(tmp_path), question)
    assert not answer.answered, claims_of(answer)


def test_the_readme_question_is_still_answered_from_its_topic(tmp_path: Path) -> None:
    """"What does the with statement do?" is answered first from the with statement's own
    topic, as the README shows."""
    app = research_app(Corpus.bundled(index=tmp_path / "topics.sqlite"), database="sqlite://")
    answer = answer_of(app, "What does the with statement do?")
    assert answer.claims[0].citations[0].source_id == "with"
    assert answer.claims[0].text.startswith('The "with" statement is used to wrap the execution')



# -- word forms and question words ----------------------------------------------------------


def _signoff_docs(tmp_path: Path, step_limit: str) -> App:
    """A few pages like signoff's own docs: where research keeps its database (said with
    "keeps"), research's step limit (`step_limit`), and Temporal's workers, whose tasks may
    take steps too."""
    return app_over(tmp_path, {
        "research.md": "# Grounded research\n\nA research task that kept no model is not "
                       "decided: the command asks for a model to go on with.\n\n"
                       f"{step_limit}\n\nEach answer quotes the sources it cites.\n",
        "cli.md": "# The command line\n\n## Where signoff keeps its files\n\n`signoff "
                  "research` keeps the research database in `research.db`, in signoff's data "
                  "directory.\n\nAn app's records are in its own database.\n",
        "temporal.md": "# Tasks on Temporal\n\nRun a worker in that process for as long as "
                       "its tasks may go on; while none takes a step there, the workflow "
                       "pauses and tries again.\n\nA workflow may wait on a proposal.\n",
        "inbox.md": "# Serving the inbox\n\nA person decides a proposal in the inbox, and "
                    "the task goes on.\n"})


def test_a_past_form_finds_the_word_the_sources_use(tmp_path: Path) -> None:
    """Asked where the research database is "kept", the sentence that says where signoff
    "keeps" it answers (kept and keeps are one word): it quoted "A research task that kept no
    model…", which names no database."""
    app = _signoff_docs(tmp_path, "A research task takes at most eight steps.")
    answer = answer_of(app, "Where is the research database kept?")
    assert claims_of(answer) == ["`signoff research` keeps the research database in "
                               "`research.db`, in signoff's data directory."]
    assert answer.claims[0].citations[0].source_id == "cli.md"


@pytest.mark.parametrize("step_limit", ["A research task has a limit of eight steps.",
                                        "A research task is stopped once it has taken eight "
                                        "steps."])
def test_a_modal_verb_is_no_term_and_a_past_participle_is_its_verb(
        tmp_path: Path, step_limit: str) -> None:
    """Asked how many steps a research task "may" take, the sentence on research's step limit
    answers: "may" says nothing of what is asked, and "taken" is a form of "take" (it quoted
    Temporal's "its tasks may go on; while none takes a step…", which has "may" and "takes" but
    not research)."""
    answer = answer_of(_signoff_docs(tmp_path, step_limit),
                     "How many steps may a research task take?")
    assert claims_of(answer) == [step_limit]


@pytest.mark.parametrize("question", ["Where are the crown jewels kept?",
                                      "Who wrote the Iliad?"])
def test_a_word_form_alone_does_not_answer_an_off_topic_question(
        tmp_path: Path, question: str) -> None:
    """A word of the question found in another form ("keeps" for kept, "writes" for wrote)
    does not make a sentence about the question: the reader declines what the sources do not
    say."""
    app = _signoff_docs(tmp_path, "A research task takes at most eight steps; the reader "
                                  "writes nothing of its own.")
    answer = answer_of(app, question)
    assert not answer.answered, claims_of(answer)


def test_the_stems_the_index_keeps_are_pinned_with_its_version() -> None:
    """An irregular form is stemmed as its word; a form as often another word ("left", "bound",
    "won" of "won't") or a keyword's ("broken") is not. The stems are what the index keeps:
    this pin fails on a change to them until the index's version is bumped with it."""
    words = ["kept", "keeps", "took", "taken", "takes", "written", "writes", "indices",
             "index", "left", "bound", "won", "broken"]
    assert (_INDEX_VERSION, [stem(w) for w in words]) == ("23", [
        "keep", "keep", "take", "take", "take", "writ", "writ", "index", "index", "left",
        "bound", "won", "broken"])
    assert query_terms("How many steps may a research task take?") == [
        "steps", "research", "task", "take"]

# -- a decline says why truly ----------------------------------------------------------------


def test_a_decline_over_sources_with_nothing_to_quote_says_so(tmp_path: Path) -> None:
    """A source found and read that holds only a title has no sentence to quote: the decline
    says so, not that no source mentions the question's words (it said "No source mentions
    “café”, “crème” or “brûlée”" of the very source it read)."""
    app = app_over(tmp_path, {"dessert.txt": "café crème brûlée\n",
                          "other.md": "# Other\n\nNothing of note is here at all today.\n"})
    answer = answer_of(app, "What about café crème brûlée?")
    assert answer.declined is not None
    assert answer.declined.closest == ["dessert.txt"]
    assert "No source mentions" not in answer.declined.reason
    assert answer.declined.reason.startswith("The sources found and read (“dessert.txt”) hold no "
                                             "sentence that could be quoted")


def test_a_reading_of_sources_without_sentences_names_only_words_the_corpus_lacks() -> None:
    """`rank_sentences` over sources with no sentence says the corpus lacks only the words the
    search found in no source (it said every word of the question was absent)."""
    reading = rank_sentences("What of café crème brûlée?", [
        Source(source_id="d", title="café crème", text="café crème")],
        frequency={"café": 1, "crème": 1, "brûlée": 0}, corpus_size=2)
    assert reading.chosen == ()
    assert reading.absent == ("brûlée",)


# -- failing tools end the task in a sentence -------------------------------------------------


def test_a_failing_search_ends_the_task_saying_so_at_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """When search_sources fails (a damaged index), the task fails in its next step, saying the
    search failed and what the tool answered (it declined "No source matches" seven times, each
    refused for naming a search that had failed, and halted at its step limit)."""
    app = app_over(tmp_path, {"kettle.md": "# Kettles\n\nA kettle boils water.\n"})

    def damaged(self: Corpus, query: str, *, limit: int = 5) -> None:
        raise RuntimeError("database disk image is malformed")

    monkeypatch.setattr(Corpus, "find", damaged)
    outcome = ask(app, "How does a kettle descale?")
    assert outcome.status is TaskStatus.FAILED
    assert outcome.steps <= 2
    assert "The offline reader could not search, so it has nothing to cite." in outcome.problem
    assert "search_sources answered: “Failed: It failed for a reason the app did not foresee" in (
        outcome.problem)
    assert "malformed" not in outcome.problem  # a failure's internals stay in the log


def test_failing_reads_end_the_task_saying_so(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """When every read fails, the task fails saying it could not read the sources found (it
    declined, saying no source mentions the question's words, which the search had found)."""
    app = app_over(tmp_path, {"kettle.md": "# Kettles\n\nA kettle boils water.\n"})

    def unreadable(self: Corpus, source_id: str, *, part: int = 1) -> None:
        raise OSError("gone")

    monkeypatch.setattr(Corpus, "read", unreadable)
    outcome = ask(app, "What does a kettle boil?")
    assert outcome.status is TaskStatus.FAILED
    assert "could not read the sources found" in outcome.problem


def test_a_refused_answer_is_not_handed_back_again() -> None:
    """The reader never hands back an answer that was refused: the task fails, saying what the
    refusal was, instead of being refused to its step limit."""
    tools = [ToolSpec(name=n, description="", parameters={})
             for n in ("search_sources", "read_source", "hand_back")]
    messages = [Message(role="user", text=Research().brief(ResearchTask(question="Why?"))),
                Message(role="assistant", text="", tool_calls=(ToolCall(
                    id="s", name="search_sources", arguments=json.dumps({"query": "Why?"})),)),
                Message(role="tool", tool_call_id="s", text=json.dumps(
                    {"query": "Why?", "hits": [], "words": {"why": 0}, "sources": 3}))]
    first = ExtractiveModel().complete(messages, tools, max_output_tokens=100)
    (handed,) = first.tool_calls
    assert handed.name == "hand_back"
    messages += [Message(role="assistant", text=first.text, tool_calls=first.tool_calls),
                 Message(role="tool", tool_call_id=handed.id,
                         text="Invalid: The answer is not accepted. - Something is wrong.")]
    from signoff.models.errors import ModelError

    with pytest.raises(ModelError, match="answer was refused, and it has no other"):
        ExtractiveModel().complete(messages, tools, max_output_tokens=100)


def test_a_claim_refused_as_off_the_question_is_dropped_and_the_others_handed_back(
    tmp_path: Path,
) -> None:
    """Refused by the check on the question ("claim 2 (…) says nothing of what the question
    asks"), the reader hands back its other claims without that one. It read only the
    citations' check's "Claim 2", and took a refusal naming none for one of every claim: it
    dropped the good claims too, and handed back what was left, or declined."""
    app = app_over(tmp_path, {"kettle.md": (
        "# The kettle\n\nThe kettle boils water for tea in about two minutes.\n\n"
        "The kettle switches itself off once the water boils.\n\n"
        "The kettle keeps the water warm for an hour after it boils.\n")})
    question = "What does the kettle do?"
    outcome = ask(app, question)
    assert isinstance(outcome.result, GroundedAnswer)
    first, second = (c.text for c in outcome.result.claims[:2])
    with app.database.connect() as db:
        messages = repo.messages_of(db, outcome.task)
    handing = max(n for n, m in enumerate(messages) if m.role == "assistant" and any(
        c.name == "hand_back" for c in m.tool_calls))
    (handed,) = messages[handing].tool_calls
    # The check's own words, of an answer whose claim 2 is off the question.
    problem = off_question(GroundedAnswer(question=question, claims=[
        outcome.result.claims[0],
        Claim(text="Teapots are round.", citations=[Citation(source_id="x",
                                                             quote="Teapots are round.")])]),
        question, {}, {})
    assert problem.startswith("The answer is not accepted: claim 2 (")
    refused = Message(role="tool", tool_call_id=handed.id,
                      text=f"Invalid: {problem} Nothing was accepted; hand it back again, "
                           "corrected.")
    # (the answer handed back had the second sentence as its claim 2, which was refused)
    assert json.loads(handed.arguments)["claims"][1]["text"] == second
    tools = [ToolSpec(name=n, description="", parameters={})
             for n in ("search_sources", "read_source", "hand_back")]
    again = ExtractiveModel().complete([*messages[:handing + 1], refused], tools,
                                       max_output_tokens=1000)
    (call,) = again.tool_calls
    assert call.name == "hand_back"
    claims = [c["text"] for c in json.loads(call.arguments)["claims"]]
    assert first in claims
    assert second not in claims
