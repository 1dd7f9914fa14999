"""Where a text names a keyword of Python's that is also an English word ("with", "and", "as").

Such a keyword is the keyword in a text only where the text names it (`naming`): quoted
('the "with" statement', ```as```), before a word that says what it is ("the with statement",
"a for loop", "the as clause"), after "operator" or "keyword" at a pause or before another
("the operators in and not in"), or where the documentation writes it bare as the keyword in a
clause of other statements ("If the module name is followed by as, then…":
`signoff.research.terms.written_bare`). Elsewhere it is the English word: "used in
expressions", "statements and expressions", "operators as functions", "followed by as many".
"""

from __future__ import annotations

import re

from signoff.research.terms import _ENGLISH_KEYWORDS, _NAMED_AS_WRITTEN, _NAMING_AFTER, written_bare

__all__ = ["naming"]

_NAMING_LEAD = "|".join(["the", "a", "an", "each", "every", "this", "its", "their",
                         *sorted(_ENGLISH_KEYWORDS | _NAMED_AS_WRITTEN)])
"""The words after which a keyword names it before a plural ("the for and in statements"): an
article, or another keyword. After another word, it is English: "used in expressions",
"statements and expressions"."""

_JOINING = frozenset({"and", "or", "as"})
"""The keywords that join two words in English, so that a word before one is what it joins
("a name or expression"): they name the keyword before "statement" and the like only after
`_NAMING_LEAD` too, as a plural does. The others name it after any word ("an explicit with
statement")."""


def naming(term: str) -> re.Pattern[str]:
    """The pattern of where a text names `term`, a keyword, as the keyword (see the module;
    matched in any case). After "operator" or "keyword", it names the keyword only at a
    sentence's pause or before another ("the operators in and not in", "the keywords and,
    or"): "The keyword is looked up…" and "operators as functions" are English."""
    bare = written_bare(term)
    return re.compile(
        rf"[\"`“](?!\s)[^\"`“”]*\b{term}\b[^\"`“”]*(?<!\s)[\"`”]|['‘]{term}['’]|"
        rf"{_named_before(term)}|{bare + '|' if bare else ''}"
        rf"\b(?:operators?|keywords?)\s+{term}(?:\s*(?:[,.;:)]|$)|\s+(?:and|or|not|in|is)\b)",
        re.IGNORECASE)


def _named_before(term: str) -> str:
    """The pattern of `term`, a keyword, named by what follows it ("the with statement", "a
    for loop"): the word after it not part of a dotted or hyphenated name ("and
    operator.methodcaller()", "or keyword-only"), nor a keyword of arguments ("positional or
    keyword arguments"); a plural, or a keyword that joins words (`_JOINING`), only after
    `_NAMING_LEAD` or a pause."""
    after = sorted(_NAMING_AFTER)
    single = "|".join(w if w != "keyword" else r"keyword(?!\s+arguments?\b)" for w in after
                      if not w.endswith("s") or w == "loops")
    plural = "|".join(w for w in after if w.endswith("s") and w != "loops")
    led = rf"(?:^|[^\w\s]\s*|\b(?:{_NAMING_LEAD})\s+){term}\s+"
    free = led if term in _JOINING else rf"\b{term}\s+"
    return rf"{free}(?:{single})\b(?![.-]\w)|{led}(?:{plural})\b(?![.-]\w)"
