"""A question that asks about a keyword by its bare name ("What does with do?", "How does with
work?", "What is with used for?", "What does pass do?") is answered from the keyword's own
documentation, or declined saying that no source read names the keyword. The keyword was
dropped as an English word ("with"), so the reader searched "What does with do?" for "what",
"does" and "do" and declined, quoting 'tutorial/whatnow.html'; or "What is with used for?" was
read as naming nothing; or the keyword was searched as the English word it also is ("pass a
code object instead of a string", "global" as the glob module's page)."""

from __future__ import annotations

from pathlib import Path

import pytest

from signoff import App
from signoff.research import Corpus, research_app
from signoff.research.relevance import query_terms
from signoff.research.sources import python_docs_root
from tests.research.asking import answer_of, app_over, claims_of


@pytest.mark.parametrize(("question", "terms"), [
    ("What does with do?", ["with"]),
    ("How does with work?", ["with"]),
    ("What is with used for?", ["with"]),
    ("How is with used?", ["with"]),
    ("Does in copy?", ["in", "copy"]),
    ("What does pass do?", ["pass"]),
    ("What is in a list?", ["list"]),
    ("What if it does not exist?", ["exist"]),
    ("What does if __name__ == '__main__' mean?", ["__name__", "__main__", "equality",
                                                   "comparison"]),
])
def test_a_keyword_asked_about_bare_is_searched_for(question: str, terms: list[str]) -> None:
    """The keyword that "does" asks of, or "is … used for", is the question's term, and none of
    its question words is (the search was for "what", "does", "with" and "do"); an English
    word elsewhere ("in a list", "does not exist", the "if" of a name's test) is not one."""
    assert query_terms(question) == terms


@pytest.mark.parametrize("question", ["What does with do?", "How does with work?",
                                      "What is with used for?"])
def test_the_with_statement_asked_bare_is_answered_from_its_topic(app: App,
                                                                   question: str) -> None:
    """Over Python's help topics, "with" asked bare is answered by the topic of the with
    statement, each claim naming it (it quoted the import topic's "When specifying what module
    to import you do not have to specify…", or declined)."""
    answer = answer_of(app, question)
    assert answer.answered, answer.declined
    assert answer.source_ids[0] == "with", (answer.source_ids, claims_of(answer))
    assert all('"with" statement' in claim for claim in claims_of(answer)), claims_of(answer)


def test_a_keyword_written_as_an_english_word_is_not_the_keyword_asked_about(
        tmp_path: Path) -> None:
    """Asked what pass does, a page where "pass" is only the English verb is no answer: the
    reader declines, saying that no source read names the keyword (it quoted "In this case,
    pass a code object instead of a string.")."""
    app = app_over(tmp_path, {"functions.md": (
        "# Built-in Functions\n\nIn this case, pass a code object instead of a string.\n\n"
        "You can pass the globals as a dictionary to the function.\n")})
    answer = answer_of(app, "What does pass do?")
    assert not answer.answered, claims_of(answer)
    assert answer.declined is not None
    assert "names the keyword “pass”" in answer.declined.reason, answer.declined.reason


@pytest.mark.parametrize(("question", "keyword"), [
    ("What does is do?", "is"), ("What does and do?", "and"), ("What does or do?", "or"),
    ("What does as do?", "as"),
])
def test_a_keyword_beside_a_word_that_could_name_it_is_english_there(
        tmp_path: Path, question: str, keyword: str) -> None:
    """"keyword is looked up", "statements and expressions", "positional or keyword",
    "operators as functions" and "and operator.methodcaller()" name no keyword: asked about it
    bare, a page of such sentences is declined, saying that none names the keyword (the reader
    said it lacked "does" and "do")."""
    app = app_over(tmp_path, {"notes.md": (
        "# Notes\n\nThe keyword is looked up as an attribute on the subject.\n\n"
        "You can enter statements and expressions at the prompt.\n\n"
        "Parameters may be positional or keyword arguments.\n\n"
        "The operator module exports operators as functions.\n\n"
        "The getters, and operator.methodcaller(), are key functions.\n")})
    answer = answer_of(app, question)
    assert not answer.answered, claims_of(answer)
    assert answer.declined is not None
    assert f"names the keyword “{keyword}”" in answer.declined.reason, answer.declined.reason


@pytest.fixture(scope="module")
def python_docs(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    """Python's documentation as Debian's python3-doc installs it, the default corpus there,
    indexed once for this module."""
    if python_docs_root() is None:
        pytest.skip("Python's documentation is not installed (Debian's python3-doc)")
    return Corpus.python_docs(index=tmp_path_factory.mktemp("docs") / "docs.sqlite")


@pytest.mark.parametrize(("question", "pages", "named"), [
    ("What does with do?", {"reference/compound_stmts.html"}, "with statement"),
    ("How does with work?", {"reference/compound_stmts.html"}, "with statement"),
    ("What is with used for?", {"reference/compound_stmts.html"}, "with statement"),
    ("What does pass do?", {"tutorial/controlflow.html", "reference/simple_stmts.html"},
     "pass statement"),
    ("What does global do?", {"reference/simple_stmts.html"}, "global statement"),
    ("What does return do?", {"reference/simple_stmts.html"}, "return"),
    ("What does raise do?", {"reference/simple_stmts.html"}, "raise"),
])
def test_a_keyword_asked_bare_is_answered_from_its_own_documentation(
        python_docs: Corpus, question: str, pages: set[str], named: str) -> None:
    """In Python's documentation, the keyword asked about bare is answered from the page of its
    statement, by sentences that name it (it declined with "What Now?", quoted "pass a code
    object", the glob module, or "Return base to the power exp")."""
    answer = answer_of(research_app(python_docs, database="sqlite://"), question)
    assert answer.answered, answer.declined
    assert answer.source_ids[0] in pages, (answer.source_ids, claims_of(answer))
    assert named in " ".join(claims_of(answer)), claims_of(answer)
