"""A question that names a function the sources describe in an entry of its own is answered
only by sentences of that entry, or that name the function as a name: not by a page whose
title has the word in English ("traceback — Print or retrieve a stack traceback")."""

from __future__ import annotations

from pathlib import Path

from signoff.research import Corpus
from signoff.research.asks import told_by
from signoff.research.sentences import sentences_of
from tests.research.asking import answer_of, app_over, claims_of

FUNCTIONS = """# Built-in Functions

pow(base, exp, mod=None)

Return base to the power exp.

print(*objects, sep=' ', end='\\n', file=None, flush=False)

Print objects to the text stream file, separated by sep and followed by end.

All non-keyword arguments are converted to strings like str() does and written to the stream.

It takes any number of positional arguments.

class property(fget=None, fset=None)

Return a property attribute.
"""

TRACEBACK = """# traceback — Print or retrieve a stack traceback

This module provides a standard interface to print stack traces of Python programs.

traceback.print_tb(tb, limit=None, file=None)

Print up to limit stack trace entries from traceback object tb, taking two arguments at most.

Since Python 3.10, an exception object can be passed as the first argument of three.
"""


def test_every_paragraph_of_an_entry_tells_of_its_name_up_to_the_next() -> None:
    """An entry's signature names what every paragraph after it describes, up to the next
    signature (a class's too: "class property(…)") or heading."""
    named = [(s.text[:20], s.named) for s in sentences_of("f", FUNCTIONS)]
    assert named == [("Return base to the p", "pow"), ("Print objects to the", "print"),
                     ("All non-keyword argu", "print"), ("It takes any number ", "print"),
                     ("Return a property at", "property")]


def test_a_function_asked_about_is_answered_from_its_own_entry(tmp_path: Path) -> None:
    """"How many arguments does print take?" is answered by print's entry, not by the
    traceback page whose title says "Print" and whose sentences count arguments."""
    app = app_over(tmp_path, {"functions.md": FUNCTIONS, "traceback.md": TRACEBACK})
    answer = answer_of(app, "How many arguments does print take?")
    assert claims_of(answer) == ["It takes any number of positional arguments."]
    assert all(c.source_id == "functions.md" for claim in answer.claims for c in claim.citations)


def test_a_page_titled_with_the_word_does_not_answer_of_the_function(tmp_path: Path) -> None:
    """Where print's entry tells no count, the traceback page's counted arguments are not an
    answer of print: print's signature, which lists its parameters, is (the reader declined
    before it read signatures; `test_research_parameters_asked` has where it still does)."""
    app = app_over(tmp_path, {"functions.md": FUNCTIONS.replace(
        "It takes any number of positional arguments.", "It writes them."),
        "traceback.md": TRACEBACK})
    answer = answer_of(app, "How many arguments does print take?")
    assert claims_of(answer) == ["print(*objects, sep=' ', end='\\n', file=None, flush=False)"]
    assert all(c.source_id == "functions.md" for claim in answer.claims for c in claim.citations)


def test_a_version_note_tells_no_count() -> None:
    """"New in version 3.11." says when, not how many."""
    (_, says), = told_by("How many arguments does print take?")
    assert not says.search("New in version 3.11.")
    assert not says.search("Changed in Python 3.10.")
    assert says.search("It takes 2 arguments.")


def test_the_search_finds_the_entry_of_the_name_asked(tmp_path: Path) -> None:
    """The search ranks the part where the name asked heads an entry above a page whose title
    and sentences have the word in English, and count arguments more often (among pages on
    other things, so that a name some pages describe tells them apart)."""
    root = tmp_path / "docs"
    root.mkdir()
    (root / "functions.md").write_text(FUNCTIONS, encoding="utf-8")
    (root / "traceback.md").write_text(TRACEBACK + (
        "\nPrint the arguments, taking the arguments given.\n" * 2), encoding="utf-8")
    for n in range(8):
        (root / f"other{n}.md").write_text(f"# Other {n}\n\nA page on kettles number {n}.\n",
                                           encoding="utf-8")
    corpus = Corpus.from_folder(root, index=tmp_path / "i.sqlite")
    hits = corpus.search("How many arguments does print take?")
    assert hits[0].source_id == "functions.md", hits


def test_a_word_named_by_an_entry_of_other_things_is_not_asked_as_a_name() -> None:
    """ "How do I parse JSON?" writes "parse", which heads an entry of the sources read (of
    email's parser, say), but asks after no parse(): an entry that says nothing of what else the
    question asks is not the question's, and does not hold every other sentence back (the
    answer was declined); "How do I copy a file?", whose copy() entry tells of files, is."""
    from signoff.research.names import names_asked

    read = sentences_of("email", "# email.parser\n\nparse(fp, headersonly=False)\n\n"
                        "Read all the data from the binary file-like object fp and return the "
                        "root object of the message.\n") + sentences_of(
        "json", "# json\n\njson.loads(s)\n\nDeserialize s, a str instance containing a JSON "
        "document, to a Python object.\n")
    assert names_asked("How do I parse JSON?", ["parse", "json"], read) == {}
    copying = sentences_of("shutil", "# shutil\n\nshutil.copy(src, dst)\n\nCopies the file src "
                           "to the file or directory dst.\n")
    assert names_asked("How do I copy a file?", ["copy", "file"], copying) == {
        "copy": frozenset({"copy"})}
