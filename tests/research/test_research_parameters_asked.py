"""A question that asks what parameters a function takes, or how many ("How many arguments does
print take?"), is answered by the signature that heads the function's entry, which lists them,
where no sentence of the entry tells a number; never by another function's signature, and still
declined where the sources have no signature of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from signoff.research import Corpus, research_app
from signoff.research.asks import lists_parameters
from signoff.research.sentences import sentences_of
from signoff.research.sources import python_docs_root

from .asking import answer_of, app_over, claims_of

PRINT = "print(*objects, sep=' ', end='\\n', file=None, flush=False)"
"""The signature of print, as Python's documentation heads its entry."""

FUNCTIONS = f"""# Built-in Functions

The Python interpreter has a number of functions and types built into it that are always
available.

{PRINT}

Print objects to the text stream file, separated by sep and followed by end. sep, end, file, and
flush, if present, must be given as keyword arguments.

All non-keyword arguments are converted to strings like str() does and written to the stream,
separated by sep and followed by end. If no objects are given, print() will just write end.

The file argument must be an object with a write(string) method; if it is not present or None,
sys.stdout will be used.

max(iterable, *, key=None)

max(arg1, arg2, *args, key=None)

Return the largest item in an iterable or the largest of two or more arguments.
"""
"""Entries of Python's documentation of its built-in functions (abridged)."""

_TOPICS = ["socket", "calendar", "thread", "wave", "queue", "heap", "pipe", "timer"]
OTHERS = {f"{t}.md": f"# The {t} module\n\nThe {t} module works with {t} objects."
          + (f" Its functions take arguments that name a {t}." if n % 2 else "") + "\n"
          for n, t in enumerate(_TOPICS)}
"""Pages of other things, where "arguments" is about as common as in Python's documentation."""


def test_how_many_arguments_is_answered_by_the_signature(tmp_path: Path) -> None:
    """"How many arguments does print take?" quotes print's signature (it was declined: no
    sentence of print's entry has a number), as the source writes it."""
    app = app_over(tmp_path, {"functions.md": FUNCTIONS, **OTHERS})
    answer = answer_of(app, "How many arguments does print take?")
    assert claims_of(answer) == [PRINT], answer.declined
    [citation] = answer.claims[0].citations
    assert citation.source_id == "functions.md"
    assert citation.quote in FUNCTIONS


@pytest.mark.parametrize("question", ["What arguments does print take?",
                                      "Which parameters does print accept?"])
def test_what_parameters_a_function_takes_includes_its_signature(
        tmp_path: Path, question: str) -> None:
    """Asked what parameters print takes, the answer quotes its signature among its entry's
    sentences."""
    answer = answer_of(app_over(tmp_path, {"functions.md": FUNCTIONS, **OTHERS}), question)
    assert PRINT in claims_of(answer), (claims_of(answer), answer.declined)


def test_a_sentence_that_tells_the_number_comes_before_the_signatures(tmp_path: Path) -> None:
    """Where max's entry says "two or more arguments", that answers how many, not its two
    signatures."""
    answer = answer_of(app_over(tmp_path, {"functions.md": FUNCTIONS, **OTHERS}),
                       "How many arguments does max take?")
    assert claims_of(answer)[0] == ("Return the largest item in an iterable or the largest of "
                                    "two or more arguments."), claims_of(answer)


def test_no_signature_of_the_function_asked_about_is_declined(tmp_path: Path) -> None:
    """Where print's entry has no signature, and another function's signature names a print
    of its own (pprint.pprint, traceback.print_exc), how many arguments print takes is still
    declined: no source says."""
    other = ("# Pretty printing\n\npprint.pprint(object, stream=None, indent=1)\n\nPrints the "
             "formatted representation of object, followed by a newline, with print().\n\n"
             "traceback.print_exc(limit=None, file=None, chain=True)\n\nThis is a shorthand "
             "for print_exception, which prints the arguments of an exception.\n")
    described = FUNCTIONS.replace(f"{PRINT}\n\n", "print\n\n")
    app = app_over(tmp_path, {"functions.md": described, "pprint.md": other, **OTHERS})
    answer = answer_of(app, "How many arguments does print take?")
    assert not answer.answered, claims_of(answer)
    assert answer.declined is not None
    assert "how many arguments, in a number" in answer.declined.reason


@pytest.mark.parametrize(("question", "lists"), [
    ("How many arguments does print take?", True),
    ("What parameters does open accept?", True),
    ("What are the parameters of sorted?", True),
    ("Which keyword arguments does print accept?", True),
    ("What is the signature of sorted?", True),
    ("What does str.split do with no arguments?", False),  # what is done given none
    ("How are keyword arguments passed in a call?", False),
    ("What happens if I pass too many arguments to a function?", False),
    ("How many moons does Jupiter have?", False),
])
def test_the_questions_that_ask_after_parameters(question: str, lists: bool) -> None:
    assert lists_parameters(question) is lists


def test_every_signature_heads_the_entry_it_opens() -> None:
    """A description headed by several signatures knows them all, in order; the next entry
    has its own, and a section heading ends them."""
    every = sentences_of("f", FUNCTIONS + "\n# Constants\n\nThe constants live here.\n")
    signed = {s.named: s.signatures for s in every}
    assert signed["print"] == (PRINT,)
    assert signed["max"] == ("max(iterable, *, key=None)", "max(arg1, arg2, *args, key=None)")
    assert every[-1].text == "The constants live here."
    assert every[-1].signatures == ()


@pytest.fixture(scope="module")
def python_docs(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    """Python's documentation as Debian's python3-doc installs it, indexed once here."""
    if python_docs_root() is None:
        pytest.skip("Python's documentation is not installed (Debian's python3-doc)")
    return Corpus.python_docs(index=tmp_path_factory.mktemp("docs") / "docs.sqlite")


def test_print_in_pythons_documentation(python_docs: Corpus) -> None:
    """In Python's documentation, how many arguments print takes is answered by its signature
    in "Built-in Functions" (it was declined)."""
    answer = answer_of(research_app(python_docs, database="sqlite://"),
                       "How many arguments does print take?")
    assert claims_of(answer) == [PRINT], answer.declined
    assert answer.claims[0].citations[0].source_id == "library/functions.html"
