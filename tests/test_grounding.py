"""Grounded answers: the citation check (DESIGN "3. Hard limits and grounded answers")."""

from __future__ import annotations

import re

import pytest

from signoff.exceptions import UserError
from signoff.limits.grounding import (
    Citation,
    CitationProblem,
    Claim,
    Declined,
    GroundedAnswer,
    ProblemKind,
    check_citations,
    long_enough,
    normalise,
    problems_in_words,
)

RETRIEVED = {
    "with": 'The "with" statement is used to wrap the execution of a block with\nmethods '
            "defined by a context manager.",
    "for": 'The "for" statement is used to iterate over the elements of a sequence.',
}


def _answer(*claims: tuple[str, list[tuple[str, str]]]) -> GroundedAnswer:
    return GroundedAnswer(claims=[
        Claim(text=text, citations=[Citation(source_id=s, quote=q) for s, q in cites])
        for text, cites in claims
    ])


GOOD = ("With wraps a block.", [("with", "is used to wrap the execution of a block")])


def test_a_correct_answer_is_accepted() -> None:
    """Every claim cites a retrieved source and quotes it: no problems."""
    answer = _answer(GOOD, ("For iterates.", [("for", "iterate over the elements")]))
    assert check_citations(answer, RETRIEVED) == []
    assert problems_in_words([]) == ""


@pytest.mark.parametrize(("claim", "kind", "told"), [
    (("Uncited.", []), ProblemKind.UNCITED, "cites no source"),
    (("Not retrieved.", [("while", "is used to wrap")]), ProblemKind.NOT_RETRIEVED,
     "'while', which no tool returned in this task"),
    (("Made up.", [("with", "wraps everything in cotton wool")]), ProblemKind.NOT_IN_SOURCE,
     "not in it, nor in any source retrieved in this task"),
    (("Wrong source.", [("with", "iterate over the elements")]), ProblemKind.OTHER_SOURCE,
     "those words are in 'for', not in 'with': cite 'for'"),
    (("Capitals.", [("with", 'THE "WITH" STATEMENT')]), ProblemKind.CASE_DIFFERS,
     "only with different capitals"),
    (("Empty.", [("with", "  ")]), ProblemKind.EMPTY_QUOTE, "with an empty quote"),
    (("Dot.", [("with", ".")]), ProblemKind.SHORT_QUOTE, "too little to back a claim"),
    (("Wrap.", [("with", "wrap")]), ProblemKind.SHORT_QUOTE, "two words or more"),
    (("Cut.", [("with", "xecution of a block")]), ProblemKind.PART_OF_WORD,
     "begin or end inside a longer word: quote whole words"),
    (("Cut.", [("with", 'he "with"')]), ProblemKind.PART_OF_WORD, "inside a longer word"),
    (("Cut.", [("with", "is used to wra")]), ProblemKind.PART_OF_WORD, "inside a longer word"),
])
def test_each_failing_claim_is_refused_with_the_claim_named(
    claim: tuple[str, list[tuple[str, str]]], kind: ProblemKind, told: str
) -> None:
    """An uncited claim, a source not retrieved in this task, a quote not in its source, a quote
    from a different source (and an empty or miscapitalised quote) are each refused, naming the
    claim by number and text, and saying why."""
    problems = check_citations(_answer(GOOD, claim), RETRIEVED)
    assert [(p.kind, p.claim, p.claim_text) for p in problems] == [(kind, 2, claim[0])]
    words = problems[0].words
    assert words.startswith(f"Claim 2 (“{claim[0]}”)")
    assert told in words
    assert told in problems_in_words(problems)


def test_a_quote_cut_inside_a_word_cannot_turn_what_its_source_says() -> None:
    """"safe for aluminium kettles" is in "Bleach is unsafe for aluminium kettles" only cut
    inside a word: refused, as a claim that bleach is safe (it was accepted, a plain substring
    of its source); the same words quoted whole, a long word alone and a phrase of a script
    written without spaces are accepted, and so is a quote that ends on a sign."""
    retrieved = {"cleaning": "Bleach is unsafe for aluminium kettles. Never fill the kettle "
                             "above the MAX line.",
                 "ja": "やかんは毎月、酢で湯あかを取ります。"}
    turned = _answer(("Bleach is safe for aluminium kettles.",
                      [("cleaning", "safe for aluminium kettles")]),
                     ("You may fill the kettle above the line.",
                      [("cleaning", "ever fill the kettle above the MAX line")]))
    assert [p.kind for p in check_citations(turned, retrieved)] == [ProblemKind.PART_OF_WORD] * 2
    whole = _answer(("Bleach is unsafe for them.", [("cleaning", "unsafe for aluminium kettles.")]),
                    ("Aluminium.", [("cleaning", "aluminium")]),
                    ("Descale monthly.", [("ja", "やかんは毎月")]),
                    ("With vinegar.", [("ja", "毎月、酢で湯あか")]))
    assert check_citations(whole, retrieved) == []


@pytest.mark.parametrize("text", ["  ", ".", "-", "?", "\u200b"])
def test_a_claim_that_says_nothing_is_refused(text: str) -> None:
    """A claim whose text is empty, blank or signs alone is refused, whatever it cites."""
    answer = _answer((text, [("with", "is used to wrap the execution of a block")]), GOOD)
    (problem,) = check_citations(answer, RETRIEVED)
    assert (problem.kind, problem.claim) == (ProblemKind.EMPTY_CLAIM, 1)
    assert problem.words == "Claim 1 is empty: say what it claims, in a sentence, or leave it out."


def test_every_problem_is_reported_not_only_the_first() -> None:
    """Several failing claims (and several citations of one claim) are all reported."""
    answer = _answer(("A.", []), GOOD, ("C.", [("with", "nope, not at all"), ("gone", "x")]))
    problems = check_citations(answer, RETRIEVED)
    assert [(p.claim, p.kind) for p in problems] == [
        (1, ProblemKind.UNCITED), (3, ProblemKind.NOT_IN_SOURCE), (3, ProblemKind.NOT_RETRIEVED)]
    message = problems_in_words(problems)
    assert message.count("\n- ") == 3
    assert "Claim 1" in message
    assert "Claim 3" in message


def test_an_answer_with_no_claims_is_refused() -> None:
    """An answer that claims nothing, and does not decline, is not a grounded answer; the
    problem says it may decline."""
    (problem,) = check_citations(GroundedAnswer(claims=[]), RETRIEVED)
    assert problem.kind is ProblemKind.NO_CLAIMS
    assert "no claims" in str(problem)
    assert "or decline (declined) when the sources read do not answer" in str(problem)


def test_a_declined_answer_is_accepted_with_what_was_searched_and_found() -> None:
    """An answer that declines, naming searches made and sources retrieved, is accepted; it
    answers nothing and cites nothing."""
    answer = GroundedAnswer.decline("Nothing here says how to bake bread.", question="Bread?",
                                    searched=["bake bread"], closest=["with", "for"])
    assert check_citations(answer, RETRIEVED, searched=["bake bread"]) == []
    assert not answer.answered
    assert answer.claims == []
    assert answer.source_ids == []
    assert answer.declined == Declined(reason="Nothing here says how to bake bread.",
                                       searched=["bake bread"], closest=["with", "for"])
    assert GroundedAnswer.model_validate_json(answer.model_dump_json()) == answer


@pytest.mark.parametrize(("answer", "kind", "told"), [
    (GroundedAnswer(claims=[Claim(text=GOOD[0], citations=[Citation(
        source_id="with", quote=GOOD[1][0][1])])], declined=Declined(reason="None.")),
     ProblemKind.DECLINED_WITH_CLAIMS, "either cite claims, or decline with none"),
    (GroundedAnswer.decline("None.", closest=["while"]), ProblemKind.CLOSEST_NOT_RETRIEVED,
     "naming 'while' among the closest sources, which no tool returned in this task"),
    (GroundedAnswer.decline("None.", searched=["cake"]), ProblemKind.NOT_SEARCHED,
     "searched for “cake”, which this task never searched for"),
])
def test_a_declined_answer_that_does_not_hold_is_refused(answer: GroundedAnswer,
                                                         kind: ProblemKind, told: str) -> None:
    """Declining while making claims, naming a closest source never retrieved, or a search
    never made: each refused, saying why."""
    (problem,) = check_citations(answer, RETRIEVED, searched=["bread"])
    assert problem.kind is kind
    assert told in problem.words


def test_a_decline_needs_a_reason() -> None:
    """An empty reason does not fit the result: a model is asked to hand it back again."""
    with pytest.raises(ValueError, match="reason"):
        GroundedAnswer.model_validate({"declined": {"reason": ""}})


@pytest.mark.parametrize("quote", [
    "wrap the execution of a block with methods defined",  # across the source's line break
    "wrap  the\texecution of a block\n\n with methods",  # the quote's own whitespace
    '  The "with" statement  ',  # the ends
])
def test_whitespace_is_normalised_on_both_sides(quote: str) -> None:
    """Runs of whitespace (line breaks, tabs) read as one space, and ends are stripped."""
    assert check_citations(_answer(("W.", [("with", quote)])), RETRIEVED) == []


def test_unicode_is_compared_in_nfc() -> None:
    """An accent written as one character matches the same accent written as two."""
    retrieved = {"cafe": "The caf\u00e9 opens at nine."}
    answer = _answer(("Opens.", [("cafe", "The cafe\u0301 opens")]))
    assert check_citations(answer, retrieved) == []
    assert normalise("a \n\t b") == "a b"


def test_a_quote_must_lie_within_one_piece_of_a_source() -> None:
    """When a tool returned a source in pieces (search snippets), a quote may not bridge two."""
    retrieved = {"with": ["wraps a block", "defined by a context manager"]}
    assert check_citations(_answer(("W.", [("with", "wraps a block")])), retrieved) == []
    (problem,) = check_citations(
        _answer(("W.", [("with", "wraps a block defined by")])), retrieved)
    assert problem.kind is ProblemKind.NOT_IN_SOURCE


def test_the_answer_lists_the_sources_it_cites_once_each() -> None:
    """`source_ids` gives the cited sources in order of first citation."""
    answer = _answer(GOOD, ("F.", [("for", "iterate"), ("with", "block")]))
    assert answer.source_ids == ["with", "for"]


def test_a_problem_reads_the_same_as_a_string() -> None:
    """A problem's str is its words."""
    problem = CitationProblem(kind=ProblemKind.UNCITED, claim=1, claim_text="x" * 200)
    assert str(problem) == problem.words
    assert "…" in problem.words


def test_an_answer_that_is_no_grounded_answer_is_told_so() -> None:
    """Text given for the answer is refused in a sentence (an AttributeError from inside)."""
    with pytest.raises(UserError, match=re.escape(
            "check_citations checks a GroundedAnswer, not str: read the model's answer into one "
            "first (GroundedAnswer.model_validate).")):
        check_citations("answer", {})  # type: ignore[arg-type]


@pytest.mark.parametrize(("source", "quote"), [
    ("Bleach is non-toxic for cats.", "toxic for cats"),
    ("It is anti-inflammatory in large doses.", "inflammatory in large doses"),
    ("Bleach is non\u2010toxic for cats.", "toxic for cats"),  # (the Unicode hyphen)
    ("Bleach is non\u2011toxic for cats.", "toxic for cats"),  # (the non-breaking hyphen)
    ("Bleach is non-toxic for cats.", "-toxic for cats"),
    ("It is a well-known fact.", "It is a well"),
    ("You shouldn't use it.", "t use it"),
    ("You shouldn\u2019t use it.", "You shouldn"),
    ("The fine is 1,000 euros.", "The fine is 1"),
    ("The fine is 1,000 euros.", "000 euros"),
    ("It needs Python 3.12 or later.", "It needs Python 3"),
    ("the q\u0303uick fox", "the q"),  # (q and a tilde NFC cannot join)
    ("the q\u0303uick fox", "\u0303uick fox"),
    ("\uff55\uff4e\uff53\uff41\uff46\uff45 \uff46\uff4f\uff52 \uff4b\uff45\uff54\uff54\uff4c\uff45",
     "\uff53\uff41\uff46\uff45 \uff46\uff4f\uff52"),  # fullwidth "unsafe for kettle", "safe for"
    ("\U0001e921\U0001e922\U0001e923\U0001e924 \U0001e925\U0001e926",
     "\U0001e922\U0001e923\U0001e924 \U0001e925\U0001e926"),  # Adlam, written with spaces
    ("من نمی\u200cخواهم بروم", "خواهم بروم"),  # Persian: "I do not want to go", "want to go"
    ("이 제품은 불안전하다", "안전하다"),  # Korean: "is unsafe", "is safe"
    ("이 제품은 불안전하다", "품은 불안전하다"),
    ("वह अपराधी है", "वह अपराध"),  # Devanagari: cut before the vowel sign ी
    ("यह गैर-कानूनी है", "कानूनी है"),  # "it is illegal", "is legal"
    ("यह सुरक्षित है", "रक्षित है"),  # cut after the vowel sign ु
    ("この罰金は１，０００円です。", "この罰金は１"),  # Japanese: a fullwidth number cut
    ("用Python编程很有趣", "ython编程很有趣"),  # Chinese: a Latin word cut
    ("需要Python 3.12或更高版本", "需要Python 3"),
    ("ผมพูดว่าสวัสดีครับทุกคน", "ผมพูดว่าสว"),  # Thai: cut before the vowel sign ั
    ("ผมพูดว่าสวัสดีครับทุกคน", "\u0e31สดีครับทุกคน"),  # a vowel sign without its letter
    ("ราคา 1,000 บาท", "ราคา 1"),
])
def test_a_quote_cut_inside_a_word_or_a_number_is_refused(source: str, quote: str) -> None:
    """A quote that begins or ends inside a hyphenated word ("toxic" of "non-toxic"), beside an
    apostrophe within a word, inside a number ("1" of "1,000"), between a letter and the mark
    written on it, or inside a word of a script written with spaces (Korean, fullwidth Latin,
    Adlam) is refused: each was accepted, and several turn what the source says."""
    (problem,) = check_citations(_answer(("Claimed.", [("s", quote)])), {"s": source})
    assert problem.kind is ProblemKind.PART_OF_WORD


@pytest.mark.parametrize(("source", "quote"), [
    ("Bleach is unsafe for aluminium kettles.", "unsafe for aluminium kettles."),
    ("It is a well-known fact.", "a well-known fact"),
    ("It is a well-known fact.", "It is a well-known"),
    ("He said \u201cNever fill the kettle\u201d.", "Never fill the kettle"),
    ("He said \u201cNever fill the kettle\u201d.", "\u201cNever fill the kettle\u201d."),
    ("He said 'never fill it' twice.", "never fill it"),
    ("Descale it (with vinegar) monthly.", "with vinegar"),
    ("Feed the dogs' bowls daily.", "Feed the dogs"),
    ("You shouldn\u2019t use it.", "You shouldn\u2019t use it"),
    ("The fine is 1,000 euros.", "The fine is 1,000"),
    ("It needs Python 3.12. Older ones fail.", "It needs Python 3.12."),
    ("Set it to -5 degrees.", "-5 degrees"),
    ("the q\u0303uick fox", "the q\u0303uick"),
    ("이 제품은 안전하다.", "제품은 안전하다"),  # Korean, whole words
    ("이 제품은 안전하다.", "안전하다."),
    ("वह अपराधी है", "वह अपराधी"),  # Devanagari, whole words
    ("यह गैर-कानूनी है", "गैर-कानूनी है"),
    ("やかんは毎月、酢で湯あかを取ります。", "毎月、酢で湯あか"),  # Japanese: any two characters
    ("この罰金は１，０００円です。", "罰金は１，０００円"),
    ("用Python编程很有趣", "Python编程很有趣"),  # Chinese beside a whole Latin word
    ("需要Python 3.12或更高版本", "3.12或更高版本"),
    ("ผมพูดว่าสวัสดีครับทุกคน", "สวัสดีครับ"),  # Thai: any two letters, marks kept on theirs
    ("ผมพูดว่าสวัสดีครับทุกคน", "พูดว่าสวัสดี"),
])
def test_a_quote_of_whole_words_is_accepted_at_any_edge(source: str, quote: str) -> None:
    """A quote that ends on the source's full stop, starts after an opening quote mark or a
    bracket, ends with a hyphenated word or a number whole, or keeps a letter's marks, is
    accepted; so is a quote cut between two characters of a script written without spaces."""
    assert check_citations(_answer(("Claimed.", [("s", quote)])), {"s": source}) == []


@pytest.mark.parametrize(("quote", "enough"), [
    ("re-use", False),  # one word of five letters, not two
    ("don't", False),
    ("1,000", False),
    ("3.12", False),
    ("सुरक्षित", False),  # five letters with their vowel signs, not four words
    ("안전", False),
    ("毎月", False),
    ("ดี", False),
    ("non-toxic", True),
    ("1,000 euros", True),
    ("सुरक्षित है", True),
    ("안전하다", True),  # a Hangul syllable counts two
    ("やかんは", True),
    ("สวัสดีครับ", True),
])
def test_a_word_is_counted_as_the_whole_word_rule_reads_it(quote: str, enough: bool) -> None:
    """`long_enough` reads a hyphenated word, a number and a letter with its marks as one
    word, as the whole-word rule does: "re-use" or "1,000" alone is too short, and a word of
    Devanagari no longer counts as several because of its vowel signs."""
    assert long_enough(quote) is enough
