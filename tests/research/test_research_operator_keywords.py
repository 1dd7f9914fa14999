"""A keyword that is an operator, asked about by its bare name ("What does and do?", "What does
or do?", "What does not do?", "What does is do?", "What does in do?"), is answered from the
documentation of its operation: Boolean operations for and, or and not, identity comparisons
for is, membership tests for in. The documentation names these keywords by their operation
("6.11. Boolean operations") and writes them bare between operands ("The expression x and y
first evaluates x"), so the reader found no source that named "and" as the keyword and
declined; or quoted "the truth of (x<y or x==y) does not imply x<=y" for or, "the is operator
is used" of pattern matching for is, and "The operator not in…" for not. An "and" the question
asks as English, or a page's "sum of x and y", is still no such keyword."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from signoff import App, GroundedAnswer
from signoff.research import Corpus, research_app
from signoff.research.relevance import query_terms
from signoff.research.sources import python_docs_root
from signoff.research.terms import naming_phrases
from tests.research.asking import answer_of, app_over, claims_of


def _text_of(corpus: Corpus, source_id: str) -> str:
    """The whole text of a source of `corpus`, each run of whitespace one space."""
    parts = corpus.read(source_id).parts
    return " ".join(" ".join(corpus.read(source_id, part=n).text.split())
                    for n in range(1, parts + 1))


def _section(text: str, heading: str) -> str:
    """The section of `text` (a Markdown text, its whitespace runs one space) under the
    heading that is `heading`, to the next heading of its level or above."""
    found = re.search(rf"(#+) {re.escape(heading)} ", text)
    assert found is not None, heading
    rest = text[found.end():]
    end = re.search(rf"(?<!#)#{{1,{len(found[1])}}} ", rest)
    return rest[: end.start() if end else len(rest)]


def _quotes(answer: GroundedAnswer) -> list[str]:
    """Each quote of `answer`, its whitespace runs one space."""
    return [" ".join(c.quote.split()) for claim in answer.claims for c in claim.citations]


@pytest.mark.parametrize(("question", "phrases"), [
    ("What does and do?", ["boolean operation", "x and y"]),
    ("How does or work?", ["boolean operation", "x or y"]),
    ("What is not used for?", ["boolean operation", "not x"]),
    ("What does is do?", ["identity comparison", "x is y"]),
    ("What does in do?", ["membership test", "x in s"]),
])
def test_an_operator_asked_bare_is_searched_by_its_operation(question: str,
                                                             phrases: list[str]) -> None:
    """The search for an operator keyword asked bare looks for its operation's name and for
    the keyword written between operands, as the documentation writes them."""
    assert all(p in naming_phrases(question) for p in phrases), naming_phrases(question)


@pytest.mark.parametrize("question", [
    "What is the difference between a list and a tuple?", "Is a tuple faster than a list?",
    "What is in a list?", "What if it does not exist?",
])
def test_an_english_and_is_no_operator_searched_for(question: str) -> None:
    """An "and", "is", "in" or "not" of a question's English is neither searched for nor
    stands for its operation."""
    assert not naming_phrases(question)
    assert not {"and", "or", "not", "is", "in"} & set(query_terms(question))


@pytest.mark.parametrize(("question", "topic", "opening"), [
    ("What does and do?", "booleans", 'The expression "x and y" first evaluates *x*'),
    ("What does or do?", "booleans", 'The expression "x or y" first evaluates *x*'),
    ("How does or work?", "booleans", 'The expression "x or y" first evaluates *x*'),
    ("What does not do?", "booleans", 'The operator "not" yields "True"'),
    ("What does is do?", "comparisons", 'The operators "is" and "is not" test for an object'),
    ("What does in do?", "in", 'The operators "in" and "not in" test for membership.'),
])
def test_an_operator_asked_bare_is_answered_from_its_help_topic(
        app: App, bundled: Corpus, question: str, topic: str, opening: str) -> None:
    """Over Python's help topics, the operator keyword asked bare is answered first by the
    sentence of its topic that tells what it does, quoted as the topic has it (and was
    declined, or answered from "customization" and "compound")."""
    answer = answer_of(app, question)
    assert answer.answered, answer.declined
    assert answer.source_ids[0] == topic, (answer.source_ids, claims_of(answer))
    assert claims_of(answer)[0].startswith(opening), claims_of(answer)
    for claim in answer.claims:
        for citation in claim.citations:
            quote = " ".join(citation.quote.split())
            assert quote in _text_of(bundled, citation.source_id), citation


@pytest.mark.parametrize("question", ["What is the difference between a list and a tuple?",
                                      "What is the difference between is and ==?"])
def test_an_and_of_english_is_not_answered_from_boolean_operations(app: App,
                                                                   question: str) -> None:
    """A question whose "and" is English is not drawn to the topic of Boolean operations."""
    answer = answer_of(app, question)
    assert "booleans" not in answer.source_ids, claims_of(answer)


def test_a_keyword_between_operands_outside_its_operation_is_english(tmp_path: Path) -> None:
    """"sum of x and y" under a heading of arithmetic names no keyword: asked what and does,
    a page of such sentences is declined, saying that none names the keyword."""
    app = app_over(tmp_path, {"numbers.md": (
        "# Numeric types\n\nThe result of x + y is the sum of x and y.\n\n"
        "For numbers x and y, hash(x) == hash(y) whenever x == y.\n")})
    answer = answer_of(app, "What does and do?")
    assert not answer.answered, claims_of(answer)
    assert answer.declined is not None
    assert "names the keyword “and”" in answer.declined.reason, answer.declined.reason


def test_a_keyword_written_bare_under_its_operation_is_the_keyword(tmp_path: Path) -> None:
    """Under a heading that names the operation ("Boolean operations"), the keyword written
    bare between operands is the keyword: asked what or does, that sentence answers, not the
    English "or" of a page on numbers."""
    app = app_over(tmp_path, {
        "booleans.md": ("# Expressions\n\n## Boolean operations\n\nValues are tested for "
                        "truth in a condition.\n\nThe expression x or y first evaluates x; if "
                        "x is true, its value is returned.\n"),
        "numbers.md": "# Numbers\n\nA number is an int or a float, more or less.\n"})
    answer = answer_of(app, "What does or do?")
    assert answer.answered, answer.declined
    assert claims_of(answer)[0] == ("The expression x or y first evaluates x; if x is true, "
                                    "its value is returned."), claims_of(answer)
    assert answer.source_ids == ["booleans.md"], (answer.source_ids, claims_of(answer))


@pytest.fixture(scope="module")
def python_docs(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    """Python's documentation as Debian's python3-doc installs it, indexed once for this
    module."""
    if python_docs_root() is None:
        pytest.skip("Python's documentation is not installed (Debian's python3-doc)")
    return Corpus.python_docs(index=tmp_path_factory.mktemp("docs") / "docs.sqlite")


@pytest.mark.parametrize(("question", "heading", "opening"), [
    ("What does and do?", "6.11. Boolean operations", "The expression x and y first evaluates"),
    ("What does or do?", "6.11. Boolean operations", "The expression x or y first evaluates"),
    ("What does not do?", "6.11. Boolean operations", "The operator not yields True"),
    ("What does is do?", "6.10.3. Identity comparisons", "The operators is and is not test"),
    ("What does in do?", "6.10.2. Membership test operations",
     "The operators in and not in test for membership."),
])
def test_an_operator_asked_bare_is_answered_from_the_section_of_its_operation(
        python_docs: Corpus, question: str, heading: str, opening: str) -> None:
    """In Python's documentation, the operator keyword asked bare is answered first from the
    language reference's section of its operation, each quote of it in that section (and was
    declined for and and or, answered for not with "The operator not in…", for is from pattern
    matching, for in first with "…used with the for and in statements")."""
    answer = answer_of(research_app(python_docs, database="sqlite://"), question)
    assert answer.answered, answer.declined
    assert answer.source_ids[0] == "reference/expressions.html", (answer.source_ids,
                                                                  claims_of(answer))
    assert claims_of(answer)[0].startswith(opening), claims_of(answer)
    section = _section(_text_of(python_docs, "reference/expressions.html"), heading)
    first = answer.claims[0].citations
    assert all(" ".join(c.quote.split()) in section for c in first), first
    texts = {sid: _text_of(python_docs, sid) for sid in answer.source_ids}
    assert all(" ".join(c.quote.split()) in texts[c.source_id] for claim in answer.claims
               for c in claim.citations), answer.claims


def test_an_and_of_english_is_not_answered_from_the_boolean_operations(
        python_docs: Corpus) -> None:
    """In Python's documentation, "What is the difference between a list and a tuple?" quotes
    nothing of the sections on Boolean operations."""
    answer = answer_of(research_app(python_docs, database="sqlite://"),
                       "What is the difference between a list and a tuple?")
    sections = [_section(_text_of(python_docs, "reference/expressions.html"),
                         "6.11. Boolean operations"),
                _section(_text_of(python_docs, "library/stdtypes.html"),
                         "Boolean Operations — and, or, not")]
    assert not any(q in s for q in _quotes(answer) for s in sections), claims_of(answer)


def test_a_sentence_under_its_operation_is_on_the_question(tmp_path: Path) -> None:
    """A sentence under the heading of Boolean operations is about and where it does not write
    the word, and the check at hand back takes it as on the question (it refused it as naming
    nothing of "and", and the reader declined: "The sentences I could quote were refused")."""
    app = app_over(tmp_path, {"booleans.md": (
        "# Expressions\n\n## Boolean operations\n\nThe second operand is evaluated only when "
        "the first does not decide the result.\n")})
    answer = answer_of(app, "What does and do?")
    assert answer.answered, answer.declined
    assert claims_of(answer) == ["The second operand is evaluated only when the first does not "
                                 "decide the result."], claims_of(answer)
