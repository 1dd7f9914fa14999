"""The keyword as asked about ("What does as do?", "What is as used for?", "What does the as
keyword do?") is answered from where the documentation tells what it does: the import
statement's "If the module name is followed by as, then the name following as is bound
directly to the imported module." Python's documentation writes it bare there ("followed by
as, then…", "using as target"), so the reader found no sentence naming the keyword and
declined ("none of them names the keyword “as”"), or, asked of "the as keyword", quoted the
keyword module's "Sequence containing all the keywords defined for the interpreter." The
English "as" (a list "as a stack", "followed by as many") still names no keyword, and steers
no other question. Any keyword asked about as "the … keyword" ("What does the pass keyword
do?") is asked about bare: "keyword" only says what it is (it was weighed as a word the answer
must have, and the keyword module's page answered)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from signoff import GroundedAnswer
from signoff.research import Corpus, research_app
from signoff.research.corpus import fts_query
from signoff.research.on_question import off_question
from signoff.research.relevance import query_terms
from signoff.research.sources import python_docs_root
from signoff.research.terms import keywords_asked, naming_phrases, written_bare
from tests.research.asking import answer_of, app_over, claims_of

IMPORT_AS = ("If the module name is followed by as, then the name following as is bound "
             "directly to the imported module.")
"""The sentence of the import statement (and of the tutorial's modules) that tells what as
does there."""

ASKED = ["What does as do?", "What is as used for?", "What does the as keyword do?"]

ENGLISH = ["What is the difference between a list and a tuple?",
           "How do I use a list as a stack?", "What does the with statement do?"]
"""Questions whose "as" is English, or that have none: reading as as a keyword changes none
of their terms, searches or answers."""


@pytest.mark.parametrize("question", ASKED)
def test_as_asked_about_is_its_one_term_and_searched_as_written(question: str) -> None:
    """as, asked about bare or as "the as keyword", is the question's one term ("keyword"
    only says what it is), and the search looks for the words the documentation writes it
    after ("followed by as")."""
    assert query_terms(question) == ["as"]
    assert keywords_asked(question) == {"as"}
    assert "followed by as" in naming_phrases(question), naming_phrases(question)


@pytest.mark.parametrize(("question", "bare"), [
    ("What does the as keyword do?", "What does as do?"),
    ("What does the pass keyword do?", "What does pass do?"),
    ("What does the with keyword do?", "What does with do?"),
    ("What is the global keyword?", "What does global do?"),
])
def test_a_keyword_asked_as_the_keyword_is_asked_bare(question: str, bare: str) -> None:
    """"the pass keyword" is searched for and weighed as pass asked bare is."""
    assert query_terms(question) == query_terms(bare)
    assert naming_phrases(question) == naming_phrases(bare)


@pytest.mark.parametrize("question", ENGLISH)
def test_an_english_as_is_no_term_nor_searched_for(question: str) -> None:
    """An "as" of a question's English is neither a term, nor searched for as the keyword,
    nor makes the search look for anything else."""
    assert "as" not in query_terms(question)
    assert not keywords_asked(question)
    assert not {p for p in naming_phrases(question) if re.search(r"\bas\b", p)}
    assert '"as"' not in fts_query(question)


@pytest.mark.parametrize(("text", "named"), [
    (IMPORT_AS, True),
    ("When an exception has been assigned using as target, it is cleared at the end.", True),
    ("A name is bound after as in a with statement.", True),
    ("The name following as is bound to the module.", True),
    ("The header is followed by as many lines as it says.", False),
    ("It works using as little memory as it can.", False),
    ("The option following, as described above, is ignored.", False),
    ("Make this path a hard link to the same file as target.", False),
])
def test_as_written_bare_is_the_keyword_only_where_it_binds_a_name(text: str,
                                                                   named: bool) -> None:
    """"followed by as," and "using as target" write the keyword; "followed by as many" and
    "the same file as target" the English word."""
    assert bool(re.search(written_bare("as"), text, re.IGNORECASE)) is named


def test_as_in_english_only_is_declined_naming_the_keyword(tmp_path: Path) -> None:
    """Asked what as does, a page whose "as" is only English ("as a stack", "followed by as
    many") is declined, saying that none of its sentences names the keyword."""
    app = app_over(tmp_path, {"lists.md": (
        "# Lists\n\nA list can be used as a stack, appending and popping at its end.\n\n"
        "The header is followed by as many lines as it says.\n\n"
        "It works using as little memory as it can.\n")})
    answer = answer_of(app, "What does as do?")
    assert not answer.answered, claims_of(answer)
    assert answer.declined is not None
    assert "names the keyword “as”" in answer.declined.reason, answer.declined.reason


@pytest.mark.parametrize("question", ASKED)
def test_as_written_bare_after_the_name_it_follows_answers(tmp_path: Path,
                                                            question: str) -> None:
    """A sentence that writes as bare as the keyword ("followed by as, then…") answers what it
    does; the English "as" of the same page does not."""
    app = app_over(tmp_path, {"imports.md": (
        "# The import statement\n\nA list can be used as a stack.\n\n" + IMPORT_AS + "\n"),
        "lists.md": "# Lists\n\nThe header is followed by as many lines as it says.\n"})
    answer = answer_of(app, question)
    assert answer.answered, answer.declined
    assert claims_of(answer) == [IMPORT_AS], claims_of(answer)


@pytest.fixture(scope="module")
def python_docs(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    """Python's documentation as Debian's python3-doc installs it, indexed once for this
    module."""
    if python_docs_root() is None:
        pytest.skip("Python's documentation is not installed (Debian's python3-doc)")
    return Corpus.python_docs(index=tmp_path_factory.mktemp("docs") / "docs.sqlite")


def _texts(corpus: Corpus, answer: GroundedAnswer) -> dict[str, list[str]]:
    """Each source `answer` cites, with the text of each of its parts."""
    return {sid: [corpus.read(sid, part=n).text
                  for n in range(1, corpus.read(sid).parts + 1)] for sid in answer.source_ids}


def _quotes(answer: GroundedAnswer) -> list[str]:
    """Each quote of `answer`, its whitespace runs one space."""
    return [" ".join(c.quote.split()) for claim in answer.claims for c in claim.citations]


@pytest.mark.parametrize("question", ASKED)
def test_as_is_answered_from_the_import_statement(python_docs: Corpus, question: str) -> None:
    """In Python's documentation, what as does is answered by the import statement's "If the
    module name is followed by as, then the name following as is bound…", each quote in the
    source it cites and each claim on the question (it declined: "none of them names the
    keyword “as”"; or quoted the keyword module)."""
    answer = answer_of(research_app(python_docs, database="sqlite://"), question)
    assert answer.answered, answer.declined
    assert IMPORT_AS in _quotes(answer), claims_of(answer)
    texts = _texts(python_docs, answer)
    assert all(" ".join(c.quote.split()) in " ".join(" ".join(texts[c.source_id]).split())
               for claim in answer.claims for c in claim.citations), answer.claims
    titles = {sid: python_docs.title_of(sid) for sid in texts}
    assert off_question(answer, question, titles, texts) == "", claims_of(answer)


@pytest.mark.parametrize(("question", "opening"), [
    ("What does the with keyword do?", "The with statement is used to wrap the execution"),
    ("What does the pass keyword do?", "The pass statement does nothing."),
    ("What does the global keyword do?", "The global statement is a declaration"),
])
def test_a_keyword_asked_as_the_keyword_is_answered_by_its_statement(
        python_docs: Corpus, question: str, opening: str) -> None:
    """In Python's documentation, "What does the with keyword do?" is answered first by what
    the with statement does (it quoted the keyword module's "Sequence containing all the
    keywords…"; for pass "Use functools.partial() to pass keyword arguments", for global the
    glob module)."""
    answer = answer_of(research_app(python_docs, database="sqlite://"), question)
    assert answer.answered, answer.declined
    assert claims_of(answer)[0].startswith(opening), claims_of(answer)


def test_the_with_statement_is_answered_as_it_was(python_docs: Corpus) -> None:
    """"What does the with statement do?" is still answered first by the with statement's
    own section, not by its as clause."""
    answer = answer_of(research_app(python_docs, database="sqlite://"),
                       "What does the with statement do?")
    assert answer.source_ids[0] == "reference/compound_stmts.html", claims_of(answer)
    assert claims_of(answer)[0].startswith("The with statement is used to wrap the execution"), (
        claims_of(answer))


@pytest.mark.parametrize("question", ENGLISH)
def test_an_english_as_quotes_nothing_of_the_keyword(python_docs: Corpus,
                                                     question: str) -> None:
    """In Python's documentation, a question whose "as" is English quotes no sentence for
    naming the keyword as (the import statement's "followed by as" among them)."""
    answer = answer_of(research_app(python_docs, database="sqlite://"), question)
    assert not any(re.search(written_bare("as"), q, re.IGNORECASE) for q in _quotes(answer)), (
        claims_of(answer))
