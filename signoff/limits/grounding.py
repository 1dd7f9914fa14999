"""Grounded answers: claims that cite the sources a task retrieved, and the check that holds them
to it.

A research answer is a :class:`GroundedAnswer`: claims, each with citations ``(source_id, quote)``.
:func:`check_citations` accepts it only if every claim cites something, every cited source was
returned by a tool in this task, and every quote appears in the text of the source it cites.

Or the answer **declines** (:class:`Declined`): no answer can be cited from the sources read. It
then makes no claims, says why, what was searched and which sources came closest; those sources
must be ones a tool returned in this task, and the searches ones this task made. A declined
answer is an outcome, not a failure: it is how a question the sources cannot answer ends.

How a quote is matched against its source:

* **whitespace** is normalised on both sides: every run of spaces, tabs and line breaks reads as
  one space, and the ends are stripped (a source wrapped at 72 columns can be quoted on one line);
* **Unicode** is compared in NFC form (an accent written as one character or as two matches);
* **case is kept**: a quote is the source's own words, and changing capitals can change what they
  say (``None`` is not ``none``). A quote that matches only when case is ignored is refused, and
  the problem says so, so that the model can copy it exactly;
* **words are whole**: a quote that begins or ends inside a longer word of the source is refused
  ("safe for aluminium kettles" is not in "unsafe for aluminium kettles"). A word keeps its
  hyphens and apostrophes ("toxic for cats" is not in "non-toxic for cats"), a number its
  dots and commas ("The fine is 1" is not in "The fine is 1,000 euros"), a letter the marks
  written on it (accents, vowel signs). In scripts written without spaces between words
  (Chinese, Japanese, Thai…) a quote may begin or end between any two characters; Korean is
  written with spaces, and held to whole words;
* **a quote says something**: two words or more, or one long word (`long_enough`); a sign, a
  letter or a short word alone backs no claim, and a claim must say something too.

Nothing else is forgiven: no stemming, no fuzzy matching, no ellipses standing for left-out text.
"""

from __future__ import annotations

import bisect
import enum
import re
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field

from signoff.exceptions import UserError

__all__ = [
    "Citation",
    "CitationProblem",
    "Claim",
    "Declined",
    "GroundedAnswer",
    "ProblemKind",
    "check_citations",
    "long_enough",
    "normalise",
    "problems_in_words",
]


class Citation(BaseModel):
    """Where a claim comes from: a source the task retrieved, and the words quoted from it."""

    source_id: str = Field(description="The id of a source a tool returned in this task.")
    """The id of the source, as the tool that returned it gave it."""
    quote: str = Field(description="Words copied exactly from that source's text.")
    """The words quoted, exactly as the source has them (whitespace aside)."""


class Claim(BaseModel):
    """One thing the answer says, with what backs it."""

    text: str = Field(description="The claim, in a sentence.")
    """The claim, in a sentence."""
    citations: list[Citation] = Field(
        default_factory=list, description="At least one citation backing the claim."
    )
    """What backs it: at least one citation."""


class Declined(BaseModel):
    """Why no answer can be cited from the sources read."""

    reason: str = Field(min_length=1, description=(
        "Why the sources read do not answer the question, in a sentence."))
    """Why the sources read do not answer the question, in a sentence."""
    searched: list[str] = Field(default_factory=list, description=(
        "The queries searched for, exactly as given to the search tool."))
    """What was searched for: the queries, as given to the search tool."""
    closest: list[str] = Field(default_factory=list, description=(
        "The ids of the sources that came closest, best first (sources a tool returned)."))
    """The sources that came closest, best first: ids a tool returned in this task."""


class GroundedAnswer(BaseModel):
    """An answer whose every claim cites a source the task retrieved, or that declines: no
    answer can be cited from the sources read."""

    question: str = Field(default="", description="The question answered.")
    """The question answered."""
    claims: list[Claim] = Field(default_factory=list, description=(
        "The answer, as claims that each cite a source. None when the answer declines."))
    """The answer, claim by claim (none when it declines)."""
    declined: Declined | None = Field(default=None, description=(
        "Give this, and no claims, when no answer to the question can be cited from the "
        "sources read: why, what was searched, and the closest sources."))
    """Set when no answer can be cited from the sources read; None for an answer."""

    @classmethod
    def decline(cls, reason: str, *, question: str = "", searched: Sequence[str] = (),
                closest: Sequence[str] = ()) -> GroundedAnswer:
        """An answer that declines, for `reason`, having searched `searched` (the queries, a
        list of texts), the `closest` sources (a list of their ids)."""
        for name, given in (("searched", searched), ("closest", closest)):
            if isinstance(given, str | bytes):  # (it was read as its characters)
                raise UserError(f"GroundedAnswer.decline's {name} is a list of texts "
                                f"({name}=[{given!r}]), not one text.")
        return cls(question=question, declined=Declined(
            reason=reason, searched=list(searched), closest=list(closest)))

    @property
    def answered(self) -> bool:
        """Whether it answers (claims), rather than declines."""
        return self.declined is None

    @property
    def source_ids(self) -> list[str]:
        """The sources cited, in order of first citation, each once."""
        seen: dict[str, None] = {}
        for claim in self.claims:
            for citation in claim.citations:
                seen.setdefault(citation.source_id, None)
        return list(seen)


class ProblemKind(enum.Enum):
    """Why a claim (or an answer) fails the check."""

    NO_CLAIMS = "no claims"
    """The answer makes no claim at all, and does not decline."""
    DECLINED_WITH_CLAIMS = "declined with claims"
    """The answer declines and yet makes claims."""
    CLOSEST_NOT_RETRIEVED = "closest source not retrieved"
    """A declined answer names, as a closest source, one no tool returned in this task."""
    NOT_SEARCHED = "not searched"
    """A declined answer says it searched for something this task never searched."""
    UNCITED = "uncited"
    """The claim cites nothing."""
    NOT_RETRIEVED = "source not retrieved"
    """It cites a source no tool returned in this task."""
    EMPTY_CLAIM = "empty claim"
    """The claim says nothing (its text is empty, or signs alone)."""
    EMPTY_QUOTE = "empty quote"
    """A citation quotes nothing."""
    SHORT_QUOTE = "quote too short"
    """A citation quotes too little to back anything: one short word, or signs alone."""
    PART_OF_WORD = "quote cut inside a word"
    """The quote is in its source only cut inside a word ("safe" of "unsafe")."""
    CASE_DIFFERS = "case differs"
    """The quote is in its source only with different capitals."""
    OTHER_SOURCE = "quote from another source"
    """The quote is not in the source cited, but is in another source the task retrieved."""
    NOT_IN_SOURCE = "quote not in source"
    """The quote is in no source the task retrieved."""


@dataclass(frozen=True, kw_only=True)
class CitationProblem:
    """One reason an answer is refused, naming the claim."""

    kind: ProblemKind
    """What is wrong."""
    claim: int
    """The claim's number, from 1 (0 when the problem is the answer's as a whole)."""
    claim_text: str
    """The claim's text."""
    source_id: str = ""
    """The source its citation names, when a citation is at fault."""
    quote: str = ""
    """The quote at fault."""
    found_in: str = ""
    """For a quote from another source: the source that has it."""

    @property
    def words(self) -> str:
        """The problem as the model and a person are told it."""
        match self.kind:
            case ProblemKind.NO_CLAIMS:
                return ("The answer makes no claims: give at least one claim that cites a "
                        "source, or decline (declined) when the sources read do not answer "
                        "the question.")
            case ProblemKind.DECLINED_WITH_CLAIMS:
                return ("The answer declines and makes claims: either cite claims, or decline "
                        "with none.")
            case ProblemKind.CLOSEST_NOT_RETRIEVED:
                return (f"The answer declines naming {self.source_id!r} among the closest "
                        "sources, which no tool returned in this task: name only sources you "
                        "searched for or read.")
            case ProblemKind.NOT_SEARCHED:
                return (f"The answer declines saying it searched for “{_short(self.quote)}”, "
                        "which this task never searched for: give the queries as searched.")
        which = f"Claim {self.claim} (“{_short(self.claim_text)}”)"
        quote = f"“{_short(self.quote)}”"
        match self.kind:
            case ProblemKind.UNCITED:
                return f"{which} cites no source: every claim needs at least one citation."
            case ProblemKind.NOT_RETRIEVED:
                return (f"{which} cites {self.source_id!r}, which no tool returned in this task: "
                        "cite only sources you searched for or read.")
            case ProblemKind.EMPTY_CLAIM:
                return (f"Claim {self.claim} is empty: say what it claims, in a sentence, or "
                        "leave it out.")
            case ProblemKind.EMPTY_QUOTE:
                return f"{which} cites {self.source_id!r} with an empty quote."
            case ProblemKind.SHORT_QUOTE:
                return (f"{which} quotes {quote} from {self.source_id!r}, too little to back a "
                        "claim: quote the words of the source that say it (two words or more).")
            case ProblemKind.PART_OF_WORD:
                return (f"{which} quotes {quote} from {self.source_id!r}, where those letters "
                        "begin or end inside a longer word: quote whole words, as the source "
                        "has them.")
            case ProblemKind.CASE_DIFFERS:
                return (f"{which} quotes {quote}, which is in {self.source_id!r} only with "
                        "different capitals: copy the words exactly.")
            case ProblemKind.OTHER_SOURCE:
                return (f"{which} quotes {quote} from {self.source_id!r}, but those words are in "
                        f"{self.found_in!r}, not in {self.source_id!r}: cite {self.found_in!r}.")
            case _:
                return (f"{which} quotes {quote} from {self.source_id!r}, but those words are not "
                        "in it, nor in any source retrieved in this task: quote the source "
                        "exactly.")

    def __str__(self) -> str:
        return self.words


Texts = str | Sequence[str]
"""What a tool returned of one source: its text, or several pieces of it (search snippets, parts
read one at a time). A quote must lie within one piece."""


def normalise(text: str) -> str:
    """`text` as quotes are compared: NFC, every run of whitespace one space, ends stripped."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFC", text)).strip()


def check_citations(
    answer: GroundedAnswer, retrieved: Mapping[str, Texts], *,
    searched: Sequence[str] | None = None,
) -> list[CitationProblem]:
    """Every problem with `answer`, given the sources retrieved in this task (source id → what
    the tools returned of its text) and, when known, the queries it `searched`; an empty list
    when the answer may be accepted.

    Each claim is checked citation by citation, and each problem names its claim. A declined
    answer is checked for what it says it searched and found.
    """
    if not isinstance(answer, GroundedAnswer):
        raise UserError(f"check_citations checks a GroundedAnswer, not {type(answer).__name__}: "
                        "read the model's answer into one first (GroundedAnswer.model_validate).")
    _check_retrieved(retrieved, searched)
    if answer.declined is not None:
        return _check_declined(answer, answer.declined, retrieved, searched)
    pieces = {sid: [normalise(p) for p in ([t] if isinstance(t, str) else t)]
              for sid, t in retrieved.items()}
    if not answer.claims:
        return [CitationProblem(kind=ProblemKind.NO_CLAIMS, claim=0, claim_text="")]
    problems: list[CitationProblem] = []
    for number, claim in enumerate(answer.claims, start=1):
        if not _WORD.search(normalise(claim.text)):  # (blank, or signs alone: ".", "-")
            problems.append(CitationProblem(kind=ProblemKind.EMPTY_CLAIM, claim=number,
                                            claim_text=""))
            continue
        if not claim.citations:
            problems.append(CitationProblem(kind=ProblemKind.UNCITED, claim=number,
                                            claim_text=claim.text))
            continue
        for citation in claim.citations:
            kind, found_in = _judge(citation, pieces)
            if kind is not None:
                problems.append(CitationProblem(
                    kind=kind, claim=number, claim_text=claim.text,
                    source_id=citation.source_id, quote=citation.quote, found_in=found_in,
                ))
    return problems


def _check_retrieved(retrieved: object, searched: object) -> None:
    """`UserError` saying what `check_citations` takes, when `retrieved` is not a mapping of
    source ids to what the tools returned of each (a text, or a list of texts), or `searched`
    not a list of queries (a bytes value failed inside `normalize`, None as "not iterable")."""
    holds = ("retrieved maps each source id a tool returned to what it returned of that "
             "source's text: a text, or a list of texts ({\"kettle.md\": \"A kettle…\"})")
    if not isinstance(retrieved, Mapping):
        raise UserError(f"check_citations' {holds}, not {type(retrieved).__name__}.")
    for source_id, texts in retrieved.items():
        pieces = [texts] if isinstance(texts, str) else texts
        if not isinstance(source_id, str) or isinstance(texts, bytes) or not isinstance(
                pieces, Sequence) or not all(isinstance(p, str) for p in pieces):
            raise UserError(f"check_citations' {holds}; it maps {_short(repr(source_id))} to "
                            f"{_short(repr(texts))}.")
    if searched is not None and (isinstance(searched, str | bytes) or not isinstance(
            searched, Sequence) or not all(isinstance(q, str) for q in searched)):
        raise UserError(f"check_citations' searched is the list of queries the task searched "
                        f"for ([\"kettle descale\"]), or None, not {_short(repr(searched))}.")


def problems_in_words(problems: Sequence[CitationProblem]) -> str:
    """The problems as one message, for the model: each on its own line."""
    if not problems:
        return ""
    head = "The answer is not accepted: its citations do not hold." if len(problems) > 1 else (
        "The answer is not accepted.")
    return "\n".join([head, *(f"- {p.words}" for p in problems)])


def _check_declined(answer: GroundedAnswer, declined: Declined, retrieved: Mapping[str, Texts],
                    searched: Sequence[str] | None) -> list[CitationProblem]:
    problems: list[CitationProblem] = []
    if answer.claims:
        problems.append(CitationProblem(kind=ProblemKind.DECLINED_WITH_CLAIMS, claim=0,
                                        claim_text=""))
    for source_id in declined.closest:
        if source_id not in retrieved:
            problems.append(CitationProblem(kind=ProblemKind.CLOSEST_NOT_RETRIEVED, claim=0,
                                            claim_text="", source_id=source_id))
    if searched is not None:
        made = {normalise(q).casefold() for q in searched}
        for query in declined.searched:
            if normalise(query).casefold() not in made:
                problems.append(CitationProblem(kind=ProblemKind.NOT_SEARCHED, claim=0,
                                                claim_text="", quote=query))
    return problems


def _judge(citation: Citation, pieces: Mapping[str, list[str]]) -> tuple[ProblemKind | None, str]:
    if citation.source_id not in pieces:
        return ProblemKind.NOT_RETRIEVED, ""
    quote = normalise(citation.quote)
    if not quote:
        return ProblemKind.EMPTY_QUOTE, ""
    if not long_enough(quote):
        return ProblemKind.SHORT_QUOTE, ""
    own = pieces[citation.source_id]
    if any(_holds(piece, quote) for piece in own):
        return None, ""
    folded = quote.casefold()
    if any(_holds(piece.casefold(), folded) for piece in own):
        return ProblemKind.CASE_DIFFERS, ""
    for other, texts in pieces.items():
        if other != citation.source_id and any(_holds(piece, quote) for piece in texts):
            return ProblemKind.OTHER_SOURCE, other
    if any(quote in piece for piece in own):
        return ProblemKind.PART_OF_WORD, ""
    return ProblemKind.NOT_IN_SOURCE, ""


_WORD = re.compile(r"\w+")
"""A word, as a claim's text is looked at: a claim with none says nothing."""
_FEWEST_LETTERS = 8
"""A quote of one word backs a claim when it has this many letters at least (a long word; a
character of a script written without spaces between words, and a Hangul syllable, count two)."""
_JOINERS = frozenset("-\u2010\u2011\u00ad'\u2019\u200c\u200d")
"""Signs that keep a word whole when letters or digits stand on both sides of them: hyphens
("non-toxic"), apostrophes ("shouldn't"), the soft hyphen, and the zero-width (non-)joiner
some scripts write inside words."""
_NUMBER_SIGNS = frozenset(".,\uff0c\uff0e\u066b\u066c")
"""Signs that keep a number whole when digits stand on both sides of them ("1,000", "3.12")."""
_UNSPACED = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x0F00, 0x0FFF),  # Tibetan
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x19E0, 0x19FF),  # Khmer symbols
    (0x1A20, 0x1AAF),  # Tai Tham
    (0x1B00, 0x1B7F),  # Balinese
    (0x2E80, 0x2FDF),  # CJK radicals, Kangxi radicals
    (0x3000, 0x303F),  # CJK symbols and punctuation (々, 〆, 〇)
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x3100, 0x312F),  # Bopomofo
    (0x31A0, 0x31BF),  # Bopomofo extended
    (0x31F0, 0x31FF),  # Katakana phonetic extensions
    (0x3400, 0x4DBF),  # CJK unified ideographs extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xA000, 0xA4CF),  # Yi
    (0xA980, 0xA9DF),  # Javanese
    (0xA9E0, 0xA9FF),  # Myanmar extended B
    (0xAA60, 0xAA7F),  # Myanmar extended A
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF65, 0xFF9F),  # halfwidth Katakana
    (0x1AFF0, 0x1B16F),  # Kana supplements and extensions
    (0x20000, 0x323AF),  # CJK ideographs extensions B to H, compatibility supplement
)
"""The blocks of scripts written without spaces between words (Hangul is written with them, and
so are the fullwidth Latin letters and digits)."""
_UNSPACED_STARTS = [first for first, _ in _UNSPACED]


def long_enough(quote: str) -> bool:
    """Whether `quote` says enough to back a claim: two words or more, or one long word (a
    sign, a letter or a short word alone backs nothing). A word is read as the whole-word rule
    reads it: "non-toxic" and "1,000" are one word each, and the marks written on a letter are
    not letters of their own."""
    letters = 0
    for count, word in enumerate(_words(quote), start=1):
        letters += sum(_weight(c) for c in word if _letter(c))
        if count >= 2 or letters >= _FEWEST_LETTERS:
            return True
    return False


def _holds(piece: str, quote: str) -> bool:
    """Whether `piece` has `quote` as whole words: it neither begins nor ends inside a longer
    word of the piece (`_joined`: "safe" is not in "unsafe", "toxic" not in "non-toxic", "1"
    not in "1,000") — but for scripts written without spaces between words (Chinese,
    Japanese, Thai…), where a quote may begin or end between any two letters."""
    start = piece.find(quote)
    while start >= 0:
        end = start + len(quote)
        if not (start and _joined(piece, start)) and not (end < len(piece) and _joined(piece, end)):
            return True
        start = piece.find(quote, start + 1)
    return False


def _joined(text: str, at: int) -> bool:
    """Whether `text[at - 1]` and `text[at]` are of one word (0 < at < len(text)), so that a
    quote may not begin or end between them: two letters or digits of scripts written with
    spaces between words; a mark and the letter it is written on (of any script); a hyphen or
    an apostrophe with such letters or digits on both sides; a dot or a comma between digits.
    """
    after = text[at]
    if _mark(after):
        return True
    before = _base(text, at - 1)
    if before in _JOINERS:
        return at >= 2 and _spaced(_base(text, at - 2)) and _spaced(after)
    if after in _JOINERS:
        return at + 1 < len(text) and _spaced(before) and _spaced(text[at + 1])
    if before in _NUMBER_SIGNS:
        return at >= 2 and text[at - 2].isdecimal() and after.isdecimal()
    if after in _NUMBER_SIGNS:
        return at + 1 < len(text) and before.isdecimal() and text[at + 1].isdecimal()
    return _spaced(before) and _spaced(after)


def _words(text: str) -> Iterator[str]:
    """The words of `text`: runs of letters and digits (of any script), and what `_joined`
    keeps inside a word between them (marks, a hyphen, a comma between digits…)."""
    start = -1
    for at, char in enumerate(text):
        if start < 0:
            if _letter(char):
                start = at
        elif not (_letter(char) or _joined(text, at)):
            yield text[start:at]
            start = -1
    if start >= 0:
        yield text[start:]


def _base(text: str, at: int) -> str:
    """The character at `at`, or, when it is a mark, the character it is written on."""
    while at > 0 and _mark(text[at]):
        at -= 1
    return text[at]


def _mark(char: str) -> bool:
    """Whether `char` is a mark written on the character before it (an accent, a vowel sign)."""
    return unicodedata.category(char)[0] == "M"


def _letter(char: str) -> bool:
    """Whether `char` is a letter, a digit or an underscore (what ``\\w`` matches)."""
    return char.isalnum() or char == "_"


def _spaced(char: str) -> bool:
    """Whether `char` is a letter or a digit of a script written with spaces between words."""
    return _letter(char) and not _unspaced(char)


def _weight(char: str) -> int:
    """How many letters `char` counts for in a one-word quote: two for a character of a script
    written without spaces and for a Hangul syllable (each says about what two letters say)."""
    return 2 if _unspaced(char) or 0xAC00 <= ord(char) <= 0xD7A3 else 1


def _unspaced(char: str) -> bool:
    """Whether `char` is of a script written without spaces between words (`_UNSPACED`): Thai,
    Lao, Tibetan, Myanmar, Khmer, Tai Tham, Balinese, Javanese, Yi, Chinese and Japanese — not
    Korean, which puts spaces between words, nor fullwidth Latin letters."""
    code = ord(char)
    if code < 0x0E00:
        return False
    first, last = _UNSPACED[bisect.bisect_right(_UNSPACED_STARTS, code) - 1]
    return first <= code <= last


def _short(text: str, limit: int = 80) -> str:
    text = normalise(text)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
