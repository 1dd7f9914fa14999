"""A question that names a function ("What does str.split do without arguments?") is answered
from that function's own entry, every paragraph of it, not from another function's entry that
names it only as one it uses (`string.capwords`: "Split the argument into words using
str.split(), capitalize each word…"). Asked what it does given nothing ("with no arguments"),
it is answered by the sentence that says what happens when nothing is given ("If sep is not
specified or is None, …"), not by one that has the word "argument"."""

from __future__ import annotations

from pathlib import Path

import pytest

from signoff.research import Corpus, research_app
from signoff.research.asks import none_given, told_by
from signoff.research.relevance import question_terms
from signoff.research.sources import python_docs_root
from tests.research.asking import answer_of, app_over, claims_of

STRING = """# string — Common string operations

The string module holds constants of characters, and functions that work on whole strings.

string.capwords(s, sep=None)

Split the argument into words using str.split(), capitalize each word using str.capitalize(),
and join the capitalized words using str.join().
"""

TYPES = """# Built-in Types

The principal built-in types are numerics, sequences, mappings, classes, instances and
exceptions. Text is kept in str objects, each with methods of its own.

str.split(sep=None, maxsplit=-1)

Return a list of the words in the string, using sep as the delimiter string. If maxsplit is
given, at most maxsplit splits are done.

If sep is not specified or is None, a different splitting algorithm is applied: runs of
consecutive whitespace are regarded as a single separator.

str.upper()

Return a copy of the string with all the cased characters converted to uppercase.
"""

_TOPICS = ["socket", "calendar", "thread", "wave", "queue", "heap", "pipe", "timer", "signal",
           "mailbox"]
OTHERS = {f"{t}.md": f"# The {t} module\n\nThe {t} module works with {t} objects"
          + (" without waiting" if n % 2 else "") + "."
          + (f" Its functions take arguments that name a {t}." if n % 4 != 3 else "")
          + (" A name is given as a str." if n % 3 == 0 else "") + "\n"
          for n, t in enumerate(_TOPICS)}
"""Pages of other things, where the question's other words are about as common as in Python's
documentation ("arguments" on most pages, "without" on half, "str" on a few)."""

CAPWORDS = "Split the argument into words using str.split()"
NONE_GIVEN = "If sep is not specified or is None, a different splitting algorithm is applied"


def test_the_entry_of_the_function_asked_about_answers(tmp_path: Path) -> None:
    """Of a page whose `string.capwords` entry names str.split() as what it uses, and one with
    str.split's own entry, the answer quotes str.split's entry, and nothing of capwords."""
    app = app_over(tmp_path, {"string.md": STRING, "types.md": TYPES, **OTHERS})
    answer = answer_of(app, "What does str.split do without arguments?")
    claims = claims_of(answer)
    assert claims, answer.declined
    assert not any(c.startswith(CAPWORDS) for c in claims), claims
    assert {c.source_id for claim in answer.claims for c in claim.citations} == {"types.md"}


@pytest.mark.parametrize("question", ["What does str.split do without arguments?",
                                      "What does str.split do with no arguments?"])
def test_what_a_function_does_given_nothing_is_what_its_entry_says_of_none_given(
        tmp_path: Path, question: str) -> None:
    """Asked what str.split does with no arguments, the answer is its entry's "If sep is not
    specified or is None, …" (a later paragraph of its entry), not capwords's sentence, nor its
    first paragraph (which says what it does given a separator)."""
    app = app_over(tmp_path, {"string.md": STRING, "types.md": TYPES, **OTHERS})
    answer = answer_of(app, question)
    claims = claims_of(answer)
    assert claims, answer.declined
    assert claims[0].startswith(NONE_GIVEN), claims
    assert not any(c.startswith(CAPWORDS) for c in claims), claims


@pytest.mark.parametrize(("question", "given"), [
    ("What does str.split do with no arguments?", "with no arguments"),
    ("What does range do without any args?", "without any args"),
    ("What does max return without parameters?", "without parameters"),
    ("What does str.split do?", ""),
    ("What does str.split do with no separator?", ""),  # (a thing not given: its subject)
])
def test_the_words_that_ask_what_is_done_given_nothing(question: str, given: str) -> None:
    """They say what kind of answer is asked for, and are not weighed as its subject."""
    assert none_given(question) == given
    assert not set(given.split()) & set(question_terms(question))
    assert any(said == "what is done when nothing is given" for said, _ in told_by(question)) is (
        bool(given))


@pytest.fixture(scope="module")
def python_docs(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    """Python's documentation as Debian's python3-doc installs it, the default corpus there,
    indexed once for this module."""
    if python_docs_root() is None:
        pytest.skip("Python's documentation is not installed (Debian's python3-doc)")
    return Corpus.python_docs(index=tmp_path_factory.mktemp("docs") / "docs.sqlite")


@pytest.mark.parametrize("question", ["What does str.split do without arguments?",
                                      "What does str.split do with no arguments?"])
def test_str_split_is_answered_from_its_own_entry_in_pythons_documentation(
        python_docs: Corpus, question: str) -> None:
    """In Python's documentation, str.split's question quotes the entry of `str.split` in
    "Built-in Types", not `string.capwords`, which uses it."""
    answer = answer_of(research_app(python_docs, database="sqlite://"), question)
    claims = claims_of(answer)
    assert claims, answer.declined
    assert not any(c.startswith(CAPWORDS) for c in claims), claims
    assert answer.claims[0].citations[0].source_id == "library/stdtypes.html", claims
    assert any(c.startswith(NONE_GIVEN) for c in claims), claims
