"""Whether a research answer's claims are on the question asked.

A claim whose citations hold may still be beside the point: a model asked what the with
statement does may quote, exactly, what a list comprehension is. A claim is taken to be on the
question when it has a word of the question's terms (`signoff.research.relevance.query_terms`,
by their stem, or a kin: one stem beginning the other, "generates" and "generator"), or an
operator the question names (or, of a keyword that is an operator, its operation's name:
"Boolean operations" of "What does or do?", as `signoff.research.relevance` matches it), in
its own words, in what it quotes, in the title of a source it
cites, or in the headings the quoted sentence stands under there (a sentence of "The with
statement" section is about it where it only says "the context manager's __exit__"; one of a
glossary's "global interpreter lock" is about the GIL where "GIL" only points to it). It is a
floor, not a judge of relevance: a claim that shares none of the question's words with
anything it cites says nothing of what was asked, and the answer is refused, naming it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from signoff.limits.grounding import Claim, GroundedAnswer, normalise
from signoff.research.relevance import operators_in, points_to, query_terms, stem
from signoff.research.sentences import sentences_of
from signoff.research.terms import operation_named

__all__ = ["off_question"]

_KIN_AT_LEAST = 4
"""The shortest stem that another may begin with and be its kin ("gen" begins too many)."""


def off_question(answer: GroundedAnswer, question: str, titles: Mapping[str, str],
                 retrieved: Mapping[str, Sequence[str]]) -> str:
    """"" when each claim of `answer` is on `question` (see the module); else why the answer
    is refused, for the model, naming each claim that is not. `titles` are the sources' titles
    as the task's tools gave them, `retrieved` what they returned of each source's text."""
    terms = {stem(t) for t in query_terms(question)}
    operators = operators_in(question)
    operations = [re.compile(named, re.IGNORECASE) for t in query_terms(question)
                  if (named := operation_named(t))]  # ("Boolean operations" of or)
    if not terms and not operators:
        return ""
    off = [(n, claim) for n, claim in enumerate(answer.claims, 1)
           if not _on(claim, terms, [*operators, *operations], titles, retrieved)]
    if not off:
        return ""
    asked = ", ".join(sorted(query_terms(question)) + operators)
    which = "; ".join(f"claim {n} (“{_short(claim.text)}”)" for n, claim in off)
    says, it = ("says", "it") if len(off) == 1 else ("say", "each")
    return (f"The answer is not accepted: {which} {says} nothing of what the question asks "
            f"(“{_short(question)}”): neither {it}, nor what {it} quotes, nor the titles and "
            f"headings of what {it} cites has a word of the question ({asked}). Make only claims "
            "that answer the question; when the sources read do not answer it, decline.")


def _on(claim: Claim, terms: set[str], operators: Sequence[str | re.Pattern[str]],
        titles: Mapping[str, str],
        retrieved: Mapping[str, Sequence[str]]) -> bool:
    said = [claim.text]
    for citation in claim.citations:
        said += [citation.quote, titles.get(citation.source_id, ""),
                 _heading_of(citation.quote, retrieved.get(citation.source_id, ()))]
    text = " ".join(said)
    if any(o in text if isinstance(o, str) else o.search(text) for o in operators):
        return True  # (an operator as written, or the name of a keyword's operation)
    words = {stem(w) for w in re.findall(r"\w+", text)}
    return any(_kin(term, word) for term in terms for word in words)


def _kin(term: str, word: str) -> bool:
    if term == word:
        return True
    shorter, longer = sorted((term, word), key=len)
    return len(shorter) >= _KIN_AT_LEAST and longer.startswith(shorter)


def _heading_of(quote: str, texts: Sequence[str]) -> str:
    """The headings the sentence that `quote` is from stands under, in the first of `texts`
    that has it, and those of the entries that only point to its entry ("GIL": "See global
    interpreter lock."); "" when none has it as a sentence."""
    wanted = normalise(quote)
    if not wanted:
        return ""
    for text in texts:
        if wanted not in normalise(text):
            continue
        every = sentences_of("", text)
        for sentence in every:
            if wanted in normalise(sentence.text) or normalise(sentence.text) in wanted:
                entry = sentence.entry.casefold()
                pointing = [s.heading for s in every if entry and points_to(s.text) == entry]
                return " ".join([sentence.heading, *pointing])
    return ""


def _short(text: str, limit: int = 120) -> str:
    text = normalise(text)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
