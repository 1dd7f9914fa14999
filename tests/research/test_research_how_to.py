"""A question that asks how to do something ("How do I convert a string to lowercase?") is
answered by the entry of the function that does it: the part whose entry opens by saying so
("Return a copy of the string with all the cased characters converted to lowercase."), and
the function named by the question's words (str.lower, of "lowercase"), rank first."""

from __future__ import annotations

from pathlib import Path

from signoff.research import Corpus
from signoff.research.howto import is_task, task_names_query
from signoff.research.names import names_asked
from signoff.research.sentences import sentences_of
from tests.research.asking import answer_of, app_over, claims_of

TEXT_TOOLS = """# string — Common string operations

The string module holds constants of characters, and classes to format a string.

string.ascii_lowercase

The lowercase letters 'abcdefghijklmnopqrstuvwxyz'.

string.capwords(s)

Split the argument into words, convert the first letter of each word to uppercase, and join
the words.
"""

TYPES = """# Built-in Types

The principal built-in types are numerics, sequences, mappings, classes, instances and
exceptions. Some collection classes are mutable; others are not. Text is kept in str objects,
and numbers in int and float objects, each with methods of its own. The methods below are
those of str objects, which any text has.

str.casefold()

Return a casefolded copy of the text, for caseless matching of two texts in any language.

str.lower()

Return a copy of the string with all the cased characters converted to lowercase.

str.upper()

Return a copy of the string with all the cased characters converted to uppercase.
"""

SWAPPING = """# Case tools

Tools that change the case of text, each in an entry of its own.

str.swapcase()

Return the string with its uppercase converted to lowercase, and back.
"""

LOWERING = """# Text methods

Methods of text objects, each in an entry of its own.

str.lower()

Return a copy of the string with all the cased characters converted to lowercase.
"""

OTHERS = {f"other{n}.md": f"# Other {n}\n\n{text}\n" for n, text in enumerate([
    "A socket is one end of a network connection between two programs.",
    "The calendar module prints calendars of months and years.",
    "A thread runs code at the same time as other threads do.",
    "The wave module reads and writes sound files in the WAV format.",
])}
"""Pages of other things, so that the words of the question are rare in the corpus."""


def _filler(topic: str) -> str:
    """Paragraphs of another topic, enough to fill most of a part."""
    return "".join(f"The {topic} entry number {n} holds a value that programs read and write "
                   f"in turn.\n\n" for n in range(100))


LONG_TYPES = (f"# Built-in Types\n\n{_filler('numeric')}{SWAPPING.split(chr(10), 3)[3]}\n"
              f"{_filler('mapping')}{LOWERING.split(chr(10), 3)[3]}")
"""A page of two parts: str.swapcase's entry in the first, str.lower's in the second."""


def test_a_how_to_question_reads_the_part_of_the_function_that_does_it(tmp_path: Path) -> None:
    """"How do I convert a string to lowercase?" reads the part of a long page where str.lower
    is described, not the part of str.swapcase (whose sentence converts to lowercase too), and
    the answer quotes str.lower's entry."""
    files = {"stdtypes.md": LONG_TYPES, "string.md": TEXT_TOOLS, **OTHERS}
    root = tmp_path / "corpus"
    root.mkdir()
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    corpus = Corpus.from_folder(root, index=tmp_path / "index.sqlite")
    question = "How do I convert a string to lowercase?"
    [types] = [h for h in corpus.search(question) if h.source_id == "stdtypes.md"]
    assert (types.part, types.parts) == (2, 2)
    answer = answer_of(app_over(tmp_path / "app", files), question)
    assert claims_of(answer)[0] == ("Return a copy of the string with all the cased characters "
                                    "converted to lowercase.")


def test_a_function_a_word_of_the_question_names_ranks_first(tmp_path: Path) -> None:
    """Of two entries that both say they convert a string to lowercase, the one named by a
    word of the question (str.lower, of "lowercase") ranks above the other (str.swapcase),
    though the other's sentence is the shorter."""
    root = tmp_path / "corpus"
    root.mkdir()
    for name, text in {"swapping.md": SWAPPING, "lowering.md": LOWERING, **OTHERS}.items():
        (root / name).write_text(text, encoding="utf-8")
    corpus = Corpus.from_folder(root, index=tmp_path / "index.sqlite")
    hits = corpus.search("How do I convert a string to lowercase?")
    assert [h.source_id for h in hits[:2]] == ["lowering.md", "swapping.md"]


def test_what_a_question_asks_for_is_ranked_as_before_unless_it_is_a_task(
        tmp_path: Path) -> None:
    """A question that does not ask how to do something ("What does lower do to a string?")
    gains nothing from the function its words name: the pages rank as their words say."""
    root = tmp_path / "corpus"
    root.mkdir()
    for name, text in {"swapping.md": SWAPPING, "lowering.md": LOWERING, **OTHERS}.items():
        (root / name).write_text(text, encoding="utf-8")
    corpus = Corpus.from_folder(root, index=tmp_path / "index.sqlite")
    task = corpus.search("How do I convert a string to lowercase?")
    plain = corpus.search("Converting a string to lowercase")
    assert task[0].source_id == "lowering.md"
    assert task[0].score > plain[0].score  # the task question's ranking has more to it


def test_which_questions_ask_how_to_do_what_a_function_does() -> None:
    """"How do I/can I/to …" asks how to do something; a question on a keyword is done by a
    statement, and one that asks what something is asks no task."""
    assert is_task("How do I convert a string to lowercase?")
    assert is_task("how can I rename a file")
    assert is_task("How to get the number of CPUs?")
    assert not is_task("How do I import a module?")
    assert not is_task("How do I raise an exception?")
    assert not is_task("What is a set?")
    assert not is_task("How does a for loop work?")


def test_the_names_a_task_may_be_done_by() -> None:
    """A task's names: its words, two neighbouring words as one ("base name": basename), and
    a word's beginnings ("lowercase": lower); none for a question that is no task."""
    named = task_names_query("How do I get the base name of a path?").split(" OR ")
    assert '"basename"' in named
    assert '"path"' in named
    assert '"lower"' in task_names_query("How do I convert a string to lowercase?").split(" OR ")
    assert task_names_query("What is a set?") == '""'


def test_a_keyword_no_sentence_names_is_not_said_to_be_missing_from_one_that_has_it(
        tmp_path: Path) -> None:
    """Asked '"with"' of a page titled "Developing with asyncio", whose sentences have "with"
    only as an English word, the reader declines saying that none names the keyword — not that
    the closest "says nothing of" a word it has."""
    app = app_over(tmp_path, {"asyncio-dev.md": (
        "# Developing with asyncio\n\nAsynchronous programming is different from classic "
        "sequential programming.\n\nWork with care, and test with the debug mode on.\n"), **OTHERS})
    answer = answer_of(app, '"with"')
    assert answer.declined is not None
    reason = answer.declined.reason
    assert reason.endswith("none of them names the keyword “with”."), reason
    assert "says nothing of" not in reason


def test_the_closest_sentence_has_a_keyword_only_as_an_english_word(tmp_path: Path) -> None:
    """When the closest sentence has the question's other words and "with" only as English
    ("Work with asyncio with care"), the reason says so, not that it says nothing of "with"."""
    app = app_over(tmp_path, {"asyncio-dev.md": (
        "# Developing with asyncio\n\nAsynchronous programming is different from classic "
        "sequential programming.\n\nWork with asyncio with care, and test with the debug mode "
        "on.\n"), **OTHERS})
    answer = answer_of(app, '"with" in asyncio')
    assert answer.declined is not None
    reason = answer.declined.reason
    assert "has “with” only as an English word, not as the keyword asked about" in reason
    assert "nothing of “with”" not in reason


def test_an_entry_of_the_lighter_words_of_a_task_does_not_make_its_name_asked() -> None:
    """"How do I remove duplicates from a list?" writes "remove", which heads list.remove's
    entry, and that entry tells of lists but not of duplicates, the rarer word: remove() is not
    asked after (every sentence not naming it was held back, and the answer declined); "How do
    I start a new thread?" asks after Thread.start, whose entry tells of threads, the heavier
    of the other words."""
    removing = sentences_of("list", "# Lists\n\nlist.remove(x)\n\nRemove the first item from "
                            "the list whose value is equal to x.\n")
    terms = ["remove", "duplicates", "list"]
    weight = {"remove": 2.0, "duplicates": 4.0, "list": 1.5}
    assert names_asked("How do I remove duplicates from a list?", terms, removing, weight) == {}
    starting = sentences_of("threading", "# threading\n\nThread.start()\n\nStart the "
                            "thread's activity, once per thread object.\n")
    terms = ["start", "new", "thread"]
    weight = {"start": 2.0, "new": 0.5, "thread": 3.0}
    assert names_asked("How do I start a new thread?", terms, starting, weight) == {
        "start": frozenset({"start"})}
