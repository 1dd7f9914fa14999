"""Relevance: which sentences of the sources read are about the question, best first.

The question is reduced to its terms: its words less those that only make it a question ("what",
"does", "the difference between"), plus any operator it names (``==``, ``**``). Each term weighs
by how rare it is among the sentences read (a word every sentence has tells little), and a term
that no source read has at all weighs the most: it is what the sources are missing.

A sentence's **coverage** is the share of the question's weight it carries: its own words, and
at three-quarter weight the words of its source's title and of the headings it stands under (a
sentence of 'The "pass" statement' is about the pass statement even where it only says "pass";
one under a glossary's "iterator" is about iterators; a page that names a thing and describes
it, "urllib.request — Extensible library for opening URLs", is about the thing: a word only of
its description is a kin). Words match by their stem (`stem`:
"keeps" and "kept" are "keep"), or — a kin, which may be another word, counting for less in the
ranking — when one stem begins the other ("called" and "callable", "generates" and
"generator"); a keyword that is also an English word ("with", "is", "in") matches only where the
text names it (quoted, or "the with statement"; as where written bare before the name it
binds, "If the module name is followed by as, then…": `signoff.research.keywords`; an operator
keyword, and, or, not, in, is, also where it is written bare under a heading that names its
operation: "The expression x and y…" under "Boolean operations").
A word is a kin too where the text has it only joined by a hyphen to a word the question does
not have ("two-pass" for pass), only inside inline code among such words (a folder's
```Application Support``` for support), or, for one of Python's other keywords, only in another
form ("passed by value" for pass) outside a heading that names the keyword.
A sentence is about the question when its coverage reaches `ABOUT`, and, when the question has
three words or more, it has (itself, or in its title and headings) at least that share of them
by their number too, a kin word counting for less and a word nearly every source of the corpus
has (a project's name in its own documentation) for none: one rare word of three ("JavaScript"
in "How do I declare a variable in JavaScript?") carries more than half the weight, but a
sentence with only that word is not about the question. Only a sentence that stands alone
(`signoff.research.sentences.stands_alone`: whole, not a lead-in to a list, not a "See …"
pointer) is ever a claim. Asked what something is
("What is an iterator?"), a sentence that says what it is ("An iterator is…", or the first of
the entry whose term it is, as a glossary's, or of the entry that one only points to: "GIL",
"See global interpreter lock.") comes before any other, and only sentences that say so too, go
on from it, or open with the subject under a heading that is the subject join it: a sentence
on something else that uses one ("A decorator similar to the built-in property…") does not.
Sentences are then ranked
by how surely they cover it (a kin word counting for less), raised by how much of the question
their source's title and their headings cover (its focus: a heading says what the sentences
under it are about, as a title does for the whole source), by the question's neighbouring terms
found side by side ("context manager") and by naming the question's terms in its first words
("The with statement is used to…": it is about them, not only mentioning them), lowered for a
note of the version something changed in and for a sentence that only leads in to what follows
(it ends with a colon), and a little for later sources and later places under their heading (a
section opens by saying what it is about, wherever in the source it begins), and by how much less
the search found its source about the question than the best one read (`MATCH_POWER`: a source
that matched a third as well counts for about half, one that matched as well for all); a "Source code:"
line, a question, a function's signature or another page's title as a table of contents
lists it ("zipimport — Import modules from Zip archives") is never a claim. The answer keeps the best sentence
about the question and the few that come close to it (and as surely: not one with a kin word
where the best has the word itself), best first, and none that do not. When no sentence is about
the question, nothing is said: the reader declines. A question that asks after something of the
asker's own ("What is my password?") is answered only by a sentence that speaks of theirs ("my",
"your"): a page on password databases does not know the asker's. A question that asks after
something of something ("What is the capital of Australia?") is answered only by a sentence that
names what it asks after, as written (every word of it), and something of what that is of
(`asked_of`): a time zone's example naming Australia is about something else of Australia.
A question that asks what is not so ("When is __init__ not called?") is answered only by a
sentence that says what is not ("not", "never", "only", "unless"…), and one that asks when
something happened ("When was the with statement added?") only by one with a year or a
version, and one that asks how many only by one with a number (`signoff.research.asks`): a
sentence that tells what is, or what the thing does, does not answer them. A question that
compares two things ("Is a tuple faster than a list?") is answered only by a sentence that
names both (itself, or in its title and headings). One that asks what something does given
nothing ("What does str.split do with no arguments?") only by a sentence that says what happens
when something is not given ("If sep is not specified or is None, …"), its words for that
weighing nothing. One that names a function the sources describe in an entry of its own is
answered by that entry, every paragraph of it under the function's name, and never by another's
entry that names it as one it uses (`string.capwords`'s "…using str.split()…"); asked what
parameters it takes, or how many (`lists_parameters`: "How many arguments does print take?"),
by the signatures that head the entry too, the source's own lines, which list them — for how
many, where no sentence of it tells a number ("…of two or more arguments"). And one that
asks how to do something ("How do I descale a teapot?") only by a sentence that tells how
(`_telling`: it names the task's action, or what the action is done to in full): "A teapot
should be rinsed…" says nothing of descaling, and "To descale a kettle…" nothing of teapots.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from signoff.limits.grounding import long_enough
from signoff.research.asks import PARAMETER_WORDS, compared, lists_parameters, told_by
from signoff.research.howto import task_action
from signoff.research.keywords import naming
from signoff.research.names import names_asked, parts_of, writes_name
from signoff.research.sentences import Sentence, sentences_of, stands_alone
from signoff.research.sources import named_title
from signoff.research.terms import (
    _ENGLISH_KEYWORDS,
    _NAMED_AS_WRITTEN,
    _OPERATIONS,
    _QUESTION_WORDS,
    _named_keywords,
    keywords_asked,
    operation_named,
    operators_in,
    query_terms,
    question_terms,
    stem,
)

__all__ = [
    "ABOUT",
    "MATCH_POWER",
    "Reading",
    "Source",
    "Undone",
    "asked_of",
    "operators_in",
    "query_terms",
    "question_terms",
    "rank_sentences",
    "stem",
    "subject_of",
]

ABOUT = 0.5
"""The share of the question's weight a sentence must carry to be about the question, and the
share of its words by number (of a question of `_COUNTED_FROM` words or more)."""

_COUNTED_FROM = 3
"""A question of this many words or more is about more than its rarest one: a sentence must
have `ABOUT` of them by number. (Of two, one may be the question's subject, the other a word of
its context; and an operator's question, "between is and ==", names a keyword beside another.)
In that count a kin word counts for `_AKIN` of one, and a word nearly every source of the corpus
has (`_EVERYWHERE`) for none."""

_EVERYWHERE = 0.9
"""A word that at least this share of the corpus's sources have says nothing of which of them
is about the question, as "Python" says nothing in Python's documentation, or a project's name
in its own ("Does signoff support Windows?": a sentence naming signoff and Windows has one word
of the question's two that tell) — in a corpus of `_MANY_SOURCES` sources or more."""

_MANY_SOURCES = 10
"""The fewest sources for a word they all have to say nothing (one source has every word of
itself)."""

CLOSE = 0.8
"""Sentences scoring at least this share of the best one's score join it in the answer."""

MATCH_POWER = 0.5
"""How much a source's `Source.match` counts: a sentence's score is multiplied by it to this
power, so that a source the search found three times less about the question than the best
counts for about half as much (its place among the sources alone says little of that: the
second may match nearly as well as the first, or a third as well)."""

@dataclass(frozen=True, kw_only=True)
class Source:
    """One source read: its id, title and the text read of it."""

    source_id: str
    """Its id."""
    title: str
    """Its title."""
    text: str
    """The text read (one part, or several joined)."""
    match: float = 1.0
    """How well the search matched it, as a share of how well it matched the best source read
    (1 for the best, and when the search does not say)."""


@dataclass(frozen=True, kw_only=True)
class Reading:
    """What the sources read say of the question."""

    terms: tuple[str, ...]
    """The question's terms, as searched and weighed."""
    chosen: tuple[Sentence, ...]
    """The sentences about the question, best first."""
    best: Sentence | None
    """The best sentence about the question, or the one that came closest when none is."""
    missing: tuple[str, ...]
    """The heaviest terms the closest sentence lacks (what the sources did not say)."""
    absent: tuple[str, ...]
    """The terms no source of the corpus has at all."""
    mine: str = ""
    """What of the asker's own the question asks after ("my password" of "What is my
    password?"), if it does: only a sentence that speaks of theirs ("my", "your") answers it."""
    lacking: str = ""
    """What the question asks that the sentences about it do not tell, when that is why none
    answers it: "what is not so" ("When is __init__ not called?": they tell what is), or "when,
    in a date or a version" ("When was the with statement added?": they tell what it does)."""
    quotable: bool = True
    """Whether the sources read hold any sentence that could be quoted as a claim (False when
    they hold only a title, headings, code or fragments)."""
    undone: Undone | None = None
    """What a question that asks how to do something asks done, when none of the sentences
    about it tells how (`Undone`)."""


@dataclass(frozen=True, kw_only=True)
class Undone:
    """A task no sentence read tells how to do: the sentences about what it is done to do not
    name its action ("How do I descale a teapot?" of a page on teapots that never says
    "descale"), and those that name it are of something else (a kettle)."""

    action: str
    """The task's action, as the question's term ("descale")."""
    task: str
    """The task, in the question's words ("descale a teapot")."""
    rest: tuple[str, ...]
    """The task's other terms, heaviest first ("teapot")."""
    elsewhere: tuple[str, ...]
    """The sources read whose sentences tell of the action, of other things ("kettle.md")."""


_AKIN = 0.6
"""How much a word counts for a term of the question when only one stem begins the other."""


class _Matcher:
    """Tells whether a text has a term: an operator as written; a keyword that is also an
    English word, or one asked about bare that the documentation also writes as English, where
    the text names it (quoted, or as "the with statement"); any other word by its stem, or by
    one stem beginning the other."""

    def __init__(self, terms: Sequence[str], *, asked: frozenset[str] = frozenset(),
                 absent: Sequence[str] = (), bare: frozenset[str] = frozenset()) -> None:
        self.stems = {t: stem(t) for t in terms}
        self.absent = frozenset(absent)
        """The terms no source of the corpus has: no word of a text is one of them, nor a kin
        of one ("generate" is no kin of the misspelt "generater")."""
        self.asked = asked | frozenset(self.stems.values())
        """The stems of the question's words (its terms among them)."""
        self.written = {t: re.compile(rf"\b{t}\b", re.IGNORECASE) for t in terms
                        if t in _NAMED_AS_WRITTEN}
        self.plain = {t for t in terms if t.isalpha() and t not in _NAMED_AS_WRITTEN}
        """The terms that are plain words, not names (``check_citations``) or keywords: found
        only inside inline code, such a word is part of a name, and only a kin."""
        self.named = {t: naming(t) for t in terms if t in _ENGLISH_KEYWORDS or t in bare}
        """The keywords a text has only where it names them: those that are also English
        words, and those the question asks about bare that the documentation also writes as
        English (`keywords_asked`: "pass a code object" is not of "What does pass do?"); where
        a text names one, see `signoff.research.keywords.naming` ("the with statement",
        "followed by as, then…"; not "operators as functions")."""
        self.operations = {t: re.compile(operation_named(t), re.IGNORECASE) for t in self.named
                           if t in _OPERATIONS}
        """Those of them that are operators, by the name of their operation, which names them
        in a heading ("Boolean operations": and, or, not; `strengths`), and under which they
        are written bare (`strength`: "The expression x and y first evaluates x")."""

    def strengths(self, terms: Sequence[str], words: frozenset[str], text: str, *,
                  forms: bool = False, heading: bool = False) -> dict[str, float]:
        """Each of `terms` the text has, with how surely (see `strength`); a `heading` (or a
        title) has too the operator keywords whose operation it names (`operations`)."""
        found = {t: self.strength(t, words, text, forms=forms) for t in terms}
        if heading:
            found |= {t: 1.0 for t, named in self.operations.items() if named.search(text)}
        return {t: kin for t, kin in found.items() if kin}

    def strength(self, term: str, words: frozenset[str], text: str, *,
                 forms: bool = False) -> float:
        """1 when the text has the term; `_AKIN` when it has only a word whose stem begins
        like the term's ("generates" for "generator", "called" for "callable"), has it only
        inside a hyphenated word (`_bound_only`: "two-pass" for "pass"), has a plain word only
        inside inline code (`_coded_only`), or has a keyword only in another form ("passed"
        for pass; unless `forms`: under a heading that names the keyword, "It continues with
        the next cycle" is what continue does, and an operator keyword written bare is the
        keyword, "The expression x and y…" under "Boolean operations"): a kin that may be
        another word; 0 when it has
        neither. A name's part is no kin of it, nor it of the name ("check" of check_citations,
        "print" of print_exception): joined by "_", it is another name."""
        if not term[0].isalnum():
            return float(term in text)
        if term in self.absent:
            return 0.0
        named = self.named.get(term)
        if named is not None:
            bare = forms and term in self.operations and re.search(rf"\b{term}\b", text, re.I)
            return float(named.search(text) is not None or bool(bare))
        wanted = self.stems[term]
        if wanted in words:
            if wanted in _bound_only(text, self.asked):
                return _AKIN
            if term in self.plain and wanted in _coded_only(text, self.asked):
                return _AKIN
            written = None if forms else self.written.get(term)
            return _AKIN if written and written.search(text) is None else 1.0
        if len(wanted) < 4 or "_" in wanted:
            return 0.0
        return _AKIN if any(len(w) >= 4 and (w.startswith(wanted) or wanted.startswith(w))
                            for w in words if w[:3] == wanted[:3] and "_" not in w) else 0.0


class _Pairs:
    """The question's neighbouring terms ("context manager"), found side by side in a text."""

    def __init__(self, terms: Sequence[str]) -> None:
        stems = [stem(t) for t in terms if t[0].isalnum()]
        self.pairs = set(itertools.pairwise(stems))

    def share(self, text: str) -> float:
        """The share of the question's pairs that `text` has side by side (0 when none)."""
        if not self.pairs:
            return 0.0
        seen = [stem(w) for w in re.findall(r"\w+", text)]
        return len(self.pairs & set(itertools.pairwise(seen))) / len(self.pairs)


_SUBJECT_WORDS = 5
"""A sentence whose first this many words hold the question's terms it has is about them
("The with statement is used to…"), not only mentioning them."""

_SUBJECT_BOOST = 1.3
"""How much more such a sentence counts."""

_ASKS_WHAT = re.compile(r"^what(?:'s| is| are) (?:an? |the )?(?P<subject>[\w-]+(?: [\w-]+)*) ?\??$")
"""A question that asks what something is ("What is an iterator?", "What's a lambda?"), its
spaces made single: its subject."""

_ASKED_AT_MOST = 200
"""The longest question read for its subject (a question is a sentence, not a page)."""

_ARTICLES = frozenset({"a", "an", "the", "one"})


_ASKS_MINE = re.compile(r"^(?:what|who|where|which|when)(?:'s| is| are| was| were)\s+"
                        r"(?P<mine>my(?: [\w'’-]+){1,4}?) ?\??$", re.IGNORECASE)
"""A question that asks after something of the asker's own ("What is my password?", "Where
are my files?", "What is my computer's hostname right now?"), its spaces made single: what it
asks after. Documentation does not know the asker's password; a folder of their notes may ("My
password is in the vault.")."""

_SPEAKS_OF_MINE = re.compile(r"\b(?:my|your|our)\b", re.IGNORECASE)

_NEGATIONS = frozenset({"not", "never", "cannot"})
"""The words that negate a question's verb (and any word ending "n't": "isn't", "doesn't")."""

_SAYS_NOT = re.compile(r"(?<![\w-])(?:not|no|never|cannot|none|nothing|neither|nor|without|"
                       r"unless|only|\w+n[’']t)(?![\w-])", re.IGNORECASE)
"""A sentence that says what is not so, or where something only is: what a negated question
asks after ("If __new__() does not return an instance of cls, then the new instance's
__init__() method will not be invoked."; "break may only occur … in a for or while loop"); a
word of a compound says none of it ("keyword-only", "no-op")."""


def is_negated(question: str) -> str:
    """"what is not so" when `question` asks it ("When is __init__ not called?", "Why doesn't
    break work here?"), else "": a sentence that says what is, "__init__ is called after…",
    does not answer it. A "not" the question names as the keyword ("the boolean operators and,
    or and not") negates nothing."""
    text = " ".join(question.split())[:_ASKED_AT_MOST]
    words = [w.lower() for w in re.findall(r"\w+(?:[’']t\b)?", text)]
    named = _named_keywords(text, words)
    return "what is not so" if any((w in _NEGATIONS or w.endswith(("n't", "n’t")))
                                   and n not in named for n, w in enumerate(words)) else ""


_ASKS_OF = re.compile(r"^(?:what|who|which)(?:'s| is| are| was| were)\s+(?:(?:the|an?)\s+)?"
                      r"(?P<head>[\w-]+(?: [\w-]+){0,3}?) of\b(?P<of>.*)$", re.IGNORECASE)
"""A question that asks after something of something ("What is the capital of Australia?",
"What is the precedence of Python's operators?"), its spaces made single: what it asks after,
its head ("capital"), and what that is of ("Australia")."""

_ASKS_NATURE = frozenset({"meaning", "point", "role", "idea", "name", "result", "effect", "value",
                          "output", "syntax", "behaviour", "behavior", "uses", "function"})
"""Heads that ask what something is or does ("the meaning of *args", "the effect of global",
"the function of pass"): the sentence that answers says it without the word. (A head the
question's terms leave out, "purpose" or "use", is not asked after: see `asked_of`.)"""


def asked_of(question: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """When `question` asks after something of something ("What is the speed of light?"), the
    terms of what it asks after (its head: speed) and of what that is of (light); else two ().

    A sentence is about such a question only when it names the head as written (each of its
    words: "the size of a list" is not its maximum size) and something
    of what the head is of (itself, or in its title and headings): one that names only what it
    is of ("Australia/Melbourne" for the capital of Australia) or only the head ("the maximum
    size of a core file" for the maximum size of a list) is about something else."""
    asked = _ASKS_OF.match(" ".join(question.split())[:_ASKED_AT_MOST])
    if asked is None:
        return (), ()
    # Only a head the question is weighed by: a word it leaves out ("purpose", "use") is found
    # in no sentence, and would have it declined whatever its sources say.
    weighed = set(question_terms(question))
    head = tuple(t for t in question_terms(asked.group("head")) if t[0].isalnum()
                 and t not in _ASKS_NATURE and t in weighed)
    return head, tuple(question_terms(asked.group("of"))) if asked.group("of").strip() else ()


def _mine_of(question: str) -> str:
    """What of the asker's own `question` asks after ("my IP address"), or ""."""
    asked = _ASKS_MINE.match(" ".join(question.split())[:_ASKED_AT_MOST])
    return asked.group("mine") if asked else ""


def subject_of(question: str) -> tuple[str, ...]:
    """The stems of the words of what `question` asks the nature of ("What is a generator in
    Python?": generator; "What is the with statement?": with, statement), or () when it does
    not ask what something is."""
    asked = _ASKS_WHAT.match(" ".join(question.lower().split())[:_ASKED_AT_MOST])
    if asked is None:
        return ()
    words = [w for w in re.findall(r"\w+", asked.group("subject")) if w not in _QUESTION_WORDS]
    while words and words[-1] in _ENGLISH_KEYWORDS:  # "… in (Python)"
        words.pop()
    return tuple(stem(w) for w in words)


_POINTS_TO = re.compile(r"See (?:also )?(?:the )?(?P<to>[^\W\d][\w\-’' ]{0,60}?)\.?")
"""An entry that only points to another ("GIL: See global interpreter lock."): where to read
what its term is (matched whole)."""


def points_to(text: str) -> str:
    """What an entry that only points to another reads as pointing to ("See global interpreter
    lock." → "global interpreter lock", in lower case), or ""."""
    found = _POINTS_TO.fullmatch(text.strip())
    return found["to"].casefold() if found else ""


def _pointed_to(subject: tuple[str, ...], every: Sequence[Sentence]) -> set[tuple[int, int]]:
    """The sentences (as their source's rank and their position) that say what `subject` is
    where its own entry only points to another ("GIL": "See global interpreter lock."): the
    first of that entry, in the same source."""
    if not subject:
        return set()
    to = {(s.rank, target) for s in every if _opens_entry_of(subject, s)
          and (target := points_to(s.text))}
    return {(s.rank, s.position) for s in every
            if s.under == 0 and s.entry and (s.rank, s.entry.casefold()) in to}


def _opens_entry_of(subject: tuple[str, ...], sentence: Sentence) -> bool:
    """Whether `sentence` is the first of the entry whose term is `subject` (a glossary's)."""
    return bool(sentence.entry) and sentence.under == 0 and _stems_of(sentence.entry) == subject


def _headed_by(subject: tuple[str, ...], sentence: Sentence) -> bool:
    """Whether the section or the entry `sentence` stands under is `subject` itself ("6.14.
    Lambdas" for lambda, "The with statement" for with statement): it tells of the subject."""
    section = sentence.heading.removesuffix(sentence.entry).strip() if sentence.entry else (
        sentence.heading)
    return bool(subject) and subject in (_stems_of(section), _stems_of(sentence.entry))


def _goes_on(sentence: Sentence, said: Sequence[Sentence]) -> bool:
    """Whether `sentence` goes on from one of `said`: one or two sentences after it, under the
    same heading ("A function returning another function…", then "Common examples for
    decorators are classmethod() and staticmethod().")."""
    return any((s.rank, s.heading) == (sentence.rank, sentence.heading)
               and 0 < sentence.position - s.position <= _GOING_ON for s in said)


_GOING_ON = 2
"""How many sentences after one that says what the subject is still go on saying it."""


def _stems_of(heading: str) -> tuple[str, ...]:
    """The stems of a heading's words, its articles and section number aside."""
    return tuple(stem(w) for w in re.findall(r"\w+", heading.lower())
                 if w not in _ARTICLES and not w.isdigit())


def _defines(subject: tuple[str, ...], sentence: Sentence) -> bool:
    """Whether `sentence` says what `subject` is: it opens its entry, and the entry's term is
    the subject (a glossary's "decorator", then "A function returning another function…"); or
    it opens with the subject's words, as written (by their own stem, not one that only begins
    like it), then "is" or "are" and an article ("An iterator is an object…", "Generators are
    a special class…"; not "The iterator is exhausted…")."""
    if _opens_entry_of(subject, sentence):
        return True
    words = [w.lower() for w in re.findall(r"\w+", sentence.text)[:len(subject) + 4]]
    start = 1 if words[:1] in (["a"], ["an"], ["the"]) else 0
    after = start + len(subject)
    named = [stem(w) for w in words[start:after]]
    return (named == list(subject) and words[after:after + 1] in (["is"], ["are"])
            and bool(set(words[after + 1:after + 2]) & _ARTICLES))


_VERSION = re.compile(r"(Changed in|New in|Added in|Deprecated since) version\b")
_VERSION_NOTE = 0.5
"""How much a note of the version a thing changed in counts: rarely what was asked."""

_LEAD_IN = 0.5
"""How much a sentence counts that ends with a colon: it leads in to what follows (an example,
a list), and says little alone ("It returns a new sorted list:")."""

_SIGNATURE = re.compile(r"[\w.]+\((?:[^()]|\([^()]*\))*\)\s*$")
"""A function's signature as the reference heads its entry ("wave.open(file, mode=None)")."""

_LINK_LABEL = re.compile(r"Source code:\s")
"""The line that links a module's documentation to its source: a label, never a claim."""

_LISTED_TITLE = re.compile(r"(?:PEP \d+|[\w.]+(?: [\w.]+){0,3}) [—–-] [^.!?]*")
"""Another page's title as a table of contents or a "See also" lists it, a name and its
description without a sentence's end ("zipimport — Import modules from Zip archives", "PEP 343
- The “with” statement"): a link, never a claim. (Matched whole.)"""


def _opens_with(matcher: _Matcher, found: set[str], text: str, *, forms: bool = False) -> bool:
    """Whether `text` names the question's terms it has within its first words (`forms`: as
    `_Matcher.strength`)."""
    words = [t for t in found if t[0].isalnum()]
    if not words:
        return False
    opening = " ".join(re.findall(r"\S+", text)[:_SUBJECT_WORDS])
    return all(matcher.strength(t, _words(opening), opening, forms=forms) for t in words)


def _words(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in re.findall(r"\w+", text))


_HYPHENATED = re.compile(r"\w+(?:-\w+)+|\w+")
_CODE = re.compile(r"`[^`]*`")


@functools.lru_cache(maxsize=1 << 12)
def _bound_only(text: str, asked: frozenset[str]) -> frozenset[str]:
    """The stems `text` has only inside hyphenated words ("pass" of "a two-pass buffer"): a
    word joined to another is another word ("two-pass" is not "pass") — unless it joins only
    words of the question (`asked`, stems: "with-statement" for "What does the with statement
    do?")."""
    if "-" not in text:
        return frozenset()
    inside: set[str] = set()
    free: set[str] = set()
    for found in _HYPHENATED.finditer(text):
        parts = {stem(w) for w in found.group().split("-")}
        (inside if len(parts) > 1 and not parts <= asked else free).update(parts)
    return frozenset(inside - free)


@functools.lru_cache(maxsize=1 << 12)
def _coded_only(text: str, asked: frozenset[str]) -> frozenset[str]:
    """The stems `text` has only inside inline code (```~/Library/Application Support```):
    there a word is part of a name, a path or a command, not the word said — unless the code
    says nothing but words of the question (`asked`, stems: ```signoff worker``` for "How do I
    run signoff worker?")."""
    if "`" not in text:
        return frozenset()
    spans = [_words(span) for span in _CODE.findall(text)]
    said = _words(_CODE.sub(" ", text)).union(*(w for w in spans if w <= asked))
    return frozenset().union(*spans) - said


def rank_sentences(question: str, sources: Sequence[Source], *,
                   frequency: Mapping[str, int] | None = None, corpus_size: int = 0,
                   limit: int = 3, per_source: int = 2) -> Reading:
    """The sentences of `sources` (best source first) that are about `question`: at most
    `limit`, at most `per_source` from a source, and only those close to the best.

    `frequency` says how many of the corpus's `corpus_size` sources have each word of the
    question (the search says so): a word weighs by how rare it is in the corpus, and a word no
    source has weighs the most. Words it does not cover weigh by how rare they are among the
    sentences read."""
    terms = tuple(question_terms(question))
    every = [s for rank, source in enumerate(sources)
             for s in sentences_of(source.source_id, source.text, rank) if long_enough(s.text)]
    listing = lists_parameters(question)
    if listing:  # what parameters a function takes: its signatures list them
        every = _with_signatures(every)
    known = frequency or {}
    absent = tuple(t for t in terms if known.get(t, 1) == 0)
    if not terms or not every:
        return Reading(terms=terms, chosen=(), best=None, missing=terms, absent=absent,
                       quotable=bool(every))
    bare = keywords_asked(question) & set(terms)
    matcher = _Matcher(terms, asked=_words(question), absent=absent, bare=bare)
    words = [_words(s.text) for s in every]
    strengths = [matcher.strengths(terms, w, s.text) for s, w in zip(every, words, strict=True)]
    has = [set(found) for found in strengths]
    count = len(every)
    size = max(corpus_size, count, *known.values(), 1) if known else count
    weight = {}
    for t in terms:
        if t in known:  # by the corpus: a word no source has weighs the most
            weight[t] = math.log(1 + size / (1 + known[t])) + (1.0 if known[t] == 0 else 0.0)
        else:  # by the sentences read
            weight[t] = math.log(1 + count / (1 + sum(t in h for h in has)))
    total = sum(weight.values())
    pairs = _Pairs(terms)

    @functools.cache
    def headed(rank: int, heading: str) -> tuple[dict[str, float], float]:
        """The terms the source's title and the headings a sentence stands under have, with
        how surely (a word only of the title's description, a kin), and how much of the
        question they cover (its focus)."""
        title = f"{sources[rank].title} | {heading}"  # no keyword named across the two
        found = matcher.strengths(terms, _words(title), title, heading=True)
        focus = sum(weight[t] * kin for t, kin in found.items()) / total
        name, description = named_title(sources[rank].title)
        if description:  # (its first heading repeats the title)
            named = f"{name} | {heading.replace(sources[rank].title, name, 1)}"
            found = {t: max(kin * _AKIN, matcher.strength(t, _words(named), named))
                     for t, kin in found.items()}
        return found, focus

    subject = subject_of(question)
    head, of = asked_of(question)
    sides = [side for one in compared(question)
             if (side := [t for t in question_terms(one) if t in terms and re.match(r"\w", t)])]
    pointed = _pointed_to(subject, every)
    names = names_asked(question, terms, every, weight)
    named = {t for t in terms if t[0].isalnum()}  # by count too: not one rare word of three
    in_corpus = max(corpus_size, *known.values()) if known else 0
    telling = {t for t in named if in_corpus < _MANY_SOURCES
               or known.get(t, 0) < _EVERYWHERE * in_corpus}
    scored: list[tuple[float, Sentence, set[str], float, float]] = []
    for sentence, found, strength in zip(every, has, strengths, strict=True):
        if (sentence.rank, sentence.position) in pointed:  # it says what the subject is
            strength, found = dict.fromkeys(terms, 1.0), set(terms)
        described = {t for t in names if t in parts_of(sentence.named)}
        if described:  # its entry's name is one the question asks about: it tells of it, and
            # of where the name is ("str" of str.split, in every paragraph of its entry)
            described |= {t for t in terms if t in sentence.named.casefold().split(".")}
            strength, found = {**strength, **dict.fromkeys(described, 1.0)}, found | described
        signature = sentence.text in sentence.signatures
        if signature:  # it lists the parameters of the function asked about, as asked
            if not (listing and described):
                continue
            parameters = dict.fromkeys((t for t in terms if t in PARAMETER_WORDS), 1.0)
            strength, found = {**strength, **parameters}, found | set(parameters)
        if (not stands_alone(sentence) or _LINK_LABEL.match(sentence.text)
                or (_SIGNATURE.match(sentence.text) and not signature)
                or _LISTED_TITLE.fullmatch(sentence.text.strip())
                or sentence.text.rstrip().endswith("?")):
            continue  # a fragment, a label, a function's signature (but as just said), a
            # listed title or a question (a FAQ's): never a claim
        titled, focus = headed(sentence.rank, sentence.heading if not described or (
            sentence.entry) else f"{sentence.heading} | {sentence.named}")  # (the later
        # paragraphs of the entry asked about stand under its name, as its first does)
        if any(titled.get(t) == 1.0 and strength.get(t) == _AKIN for t in matcher.written):
            strength = matcher.strengths(terms, _words(sentence.text), sentence.text, forms=True)
        operated = any(titled.get(t) == 1.0 and t not in strength for t in matcher.operations)
        if operated:  # the heading names the operation, and so the keyword ("Boolean operations")
            strength = {**strength, **matcher.strengths(terms, _words(sentence.text),
                                                        sentence.text, forms=True)}
            found = found | set(strength)
        in_title = {t: kin for t, kin in titled.items() if t not in found}
        # About the question by what it names, kin words included; ranked by how surely.
        coverage = (sum(weight[t] for t in strength) + 0.75 * sum(weight[t] for t in in_title)
                    ) / total
        surely = (sum(weight[t] * kin for t, kin in strength.items())
                  + 0.75 * sum(weight[t] * kin for t, kin in in_title.items())) / total
        score = (surely * (1 + focus) * (1 + 0.5 * pairs.share(sentence.text))
                 * _SUBJECT_BOOST ** _opens_with(matcher, found, sentence.text, forms=operated)
                 * _VERSION_NOTE ** bool(_VERSION.match(sentence.text))
                 * _LEAD_IN ** sentence.text.rstrip().endswith(":")
                 * sources[sentence.rank].match ** MATCH_POWER
                 / (1 + 0.1 * sentence.rank) / (1 + 0.01 * sentence.under))
        if head and (  # it names what the question asks after, and what that is of
                not all(strength.get(t) == 1.0 or titled.get(t) == 1.0 for t in head)
                or (of and not any(t in strength or t in titled for t in of))):
            coverage = min(coverage, ABOUT / 2)
        if not all(any(t in strength or t in titled for t in side) for side in sides):
            coverage = min(coverage, ABOUT / 2)  # it compares nothing the question does
        if any(t not in described and not writes_name(sentence.text, forms)
               for t, forms in names.items()) or (names and sentence.named and not described):
            coverage = min(coverage, ABOUT / 2)  # of another thing than the name asked about
            # (in another's entry, it names the one asked about as one it uses: capwords's
            # "Split the argument into words using str.split()…" is not what str.split does)
        counted = sum(max(strength.get(t, 0.0), titled.get(t, 0.0)) for t in telling)
        scored.append((coverage, replace(sentence, score=round(score, 6)), found | set(in_title),
                       surely, counted))
    if not scored:
        return Reading(terms=terms, chosen=(), best=None, missing=terms, absent=absent,
                       quotable=False)
    # A question that asks what something is is answered by a sentence that says so, when one
    # of those read does: it comes before any that only tells of it.
    defining = {id(c[1]) for c in scored if subject and (
        _defines(subject, c[1]) or (c[1].rank, c[1].position) in pointed)}
    scored.sort(key=lambda c: (id(c[1]) not in defining, -c[1].score, c[1].rank, c[1].position))
    least = math.ceil(len(named) * ABOUT) if len(named) >= _COUNTED_FROM else 0
    mine = _mine_of(question)
    about = [c for c in scored if c[0] >= ABOUT and c[4] >= least
             and (not mine or _SPEAKS_OF_MINE.search(c[1].text))]
    about, undone = _telling(question, weight, about, scored)  # (how to do what it asks)
    lacking = ""  # what the question asks that the sentences about it may not tell
    for asks, tells, listed in ((is_negated(question), _SAYS_NOT, False),
                                *((a, t, True) for a, t in told_by(question))):
        if asks and about:  # "When is __init__ not called?": only a sentence saying what is not
            told = [c for c in about if tells.search(c[1].text)]
            about = told if told or not listed else [  # how many parameters, where no sentence
                c for c in about if c[1].text in c[1].signatures]  # says: the signatures list them
            lacking = "" if about else asks
    _, best, best_terms, best_surely, _ = about[0] if about else scored[0]
    missing = tuple(sorted((t for t in terms if t not in best_terms), key=lambda t: -weight[t]))
    chosen: list[Sentence] = []
    taken: dict[str, int] = {}
    said = id(best) in defining  # what the subject is, said: the rest must be of it too
    for _, sentence, found, surely, _ in about:
        if surely < CLOSE * best_surely:
            continue  # kin words where the best has the words themselves
        if said and not (id(sentence) in defining or _goes_on(sentence, chosen) or (
                _headed_by(subject, sentence) and _opens_with(matcher, found, sentence.text))):
            continue  # of something else that has, or is, one ("A decorator similar to the
            # built-in property, but for enumerations.")
        if sentence.score < CLOSE * best.score or len(chosen) == limit:
            break
        if taken.get(sentence.source_id, 0) >= per_source:
            continue
        taken[sentence.source_id] = taken.get(sentence.source_id, 0) + 1
        chosen.append(sentence)
    return Reading(terms=terms, chosen=tuple(chosen), best=best, missing=missing, absent=absent,
                   mine=mine, lacking=lacking, undone=undone)


def _with_signatures(every: Sequence[Sentence]) -> list[Sentence]:
    """`every`, with the signatures that head each description (`Sentence.signatures`), each
    as a sentence of its own before the description's first (at its place, under its
    headings): the source's own lines, which list the function's parameters."""
    said: list[Sentence] = []
    for n, sentence in enumerate(every):
        before = every[n - 1] if n else None
        if sentence.signatures and not (before and (before.rank, before.signatures) == (
                sentence.rank, sentence.signatures)):
            said.extend(replace(sentence, text=line, leads_in=False, whole=True)
                        for line in sentence.signatures if long_enough(line))
        said.append(sentence)
    return said


_Scored = tuple[float, Sentence, set[str], float, float]
"""A sentence read as the ranking weighs it: its coverage, the sentence (with its score), the
question's terms it or its title and headings have, how surely, and how many by number."""


def _telling(question: str, weight: Mapping[str, float], about: list[_Scored],
             scored: Sequence[_Scored]) -> tuple[list[_Scored], Undone | None]:
    """The sentences `about` a task `question` ("How do I descale a teapot?") that tell how to
    do it (all of them, when it asks no task), and what it asks done when none does.

    A sentence tells how to do a task when it names the task's action (`task_action`), itself,
    in its title or headings, or as the name of the function whose entry it is in ("Rename the
    file…" of os.rename), and something more of the task — unless the action alone weighs more
    than half the question (its other words are common: "How do I exit a program?", "Exit from
    Python."): "To descale a kettle…" does not tell how to descale a teapot. Or when, without the
    action, it names what the task makes or acts on, in two words or more and at least half of
    them ("How do I compute a square root?": "Return the square root of x."; "How do I loop over
    the keys and values of a dictionary?"): a task of one thing ("a teapot") is not told by a
    sentence that names only the thing ("A teapot should be rinsed…" is about teapots, not about
    descaling one)."""
    action, task = task_action(question)
    if action not in weight or not about:
        return about, None
    total = sum(weight.values())
    rest = sorted((t for t in weight if t != action and t[0].isalnum()), key=lambda t: -weight[t])

    def doing(c: _Scored) -> bool:
        return action in c[2] or action in parts_of(c[1].named)

    def tells(c: _Scored) -> bool:
        if doing(c):
            return weight[action] > ABOUT * total or any(t != action for t in c[2])
        named = sum(t in c[2] for t in rest)
        return named >= 2 and named >= ABOUT * len(rest)

    told = [c for c in about if tells(c)]
    return told, None if told else Undone(
        action=action, task=task, rest=tuple(rest[:3]),
        elsewhere=tuple(dict.fromkeys(c[1].source_id for c in scored if doing(c))))

