"""Provenance labels: where each argument of a call came from, among what its task has seen.

A task sees trusted text — the person's request and the brief, the skill's subject, the agent's
instructions — and tool results, each either trusted (records the app keeps) or *outside content*
(an e-mail's body, a web page, a file, a chat message: text a stranger may have written). Once
outside content has entered a task, every argument of a consequential call gets a label:

* ``REQUEST``  — its value is in the trusted text (the person asked for it): trusted.
* ``ENDORSED`` — it is taken from a result by a tool the skill names, and passed the skill's
  validation (a date, an amount within bounds, an id that exists): trusted.
* ``WORDS``    — a single plain word (letters only) found nowhere the task read: the model wrote
  it itself (a memo, a title); trusted, like the words of a message body.
* ``OUTSIDE``  — its value (or a normalised form: case, whitespace, an IBAN's or an e-mail's
  canonical form, a number) appears in outside content and not in the trusted text.
* ``SELECTED`` — it appears only in a trusted result. The rule chosen here: after outside content
  entered, a value the model *picked* from the app's records ("the most expensive hotel") may have
  been picked because a stranger said so, so it is not trusted unless the skill endorses values of
  that tool. Before any outside content entered, nothing is labelled and everything is trusted.
* ``UNTRACED`` — it appears nowhere the task was given (composed, computed, or invented), after
  outside content entered: not trusted either, for the same reason.

A free-text argument of several words (a message body) is prose: its words carry no label, but
each identifier inside it (a link, an address, an IBAN, a long number) is labelled on its own, so
that a link cannot ride inside a composed message; a single value is labelled whole.

Pure: nothing here reads a database or knows of agents; the loop feeds it what a task has seen.
"""

from __future__ import annotations

import datetime as dt
import enum
import functools
import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from signoff.actions.declare import tool_name
from signoff.limits.lookalikes import disguised, disguised_words, skeleton
from signoff.limits.rewritings import cut_in_two, plain_words, rewritten_words, setting_forms
from signoff.limits.written import MONTH_NAMES, MONTH_WORD, date_time_parts, dates, decoded

__all__ = ["ArgumentLabel", "Endorse", "Labels", "Origin", "Provenance", "Seen"]


class Origin(enum.Enum):
    """Where an argument's value came from."""

    REQUEST = "request"
    """The person's request, the brief, the subject, the agent's instructions, who the work is for."""
    ENDORSED = "endorsed"
    """A result of a tool the skill endorses, validated."""
    WORDS = "words"
    """A word the model wrote itself (no digit, no symbol, found nowhere it read)."""
    OUTSIDE = "outside"
    """Outside content the task read."""
    SELECTED = "selected"
    """Only a trusted result, after outside content entered the task."""
    UNTRACED = "untraced"
    """Nothing the task was given, after outside content entered it."""

    @property
    def trusted(self) -> bool:
        """Whether a value of this origin may steer a call that runs alone."""
        return self in (Origin.REQUEST, Origin.ENDORSED, Origin.WORDS)


@dataclass(frozen=True, kw_only=True)
class Seen:
    """One tool result a task has seen."""

    tool: str
    """The tool that returned it."""
    arguments: str
    """What the tool was called with, as JSON text."""
    value: Any
    """The JSON of what it returned."""
    text: str
    """What the model was told of it."""
    outside: str | None
    """None for a trusted result; for outside content, why it is ("from an outside sender")."""


@dataclass(frozen=True, kw_only=True)
class ArgumentLabel:
    """The label of one argument (or of one identifier inside a free-text argument)."""

    argument: str
    """The argument, as a path: ``iban``, ``to[1]``, ``invoice.payee``."""
    value: str
    """The value labelled, as text (the identifier, inside a free-text argument)."""
    origin: Origin
    """Where it came from."""
    source: str = ""
    """The tool whose result holds it ("" for the request, or when untraced)."""
    words: str = ""
    """Where it came from, in a sentence a person reads."""

    def to_json(self) -> dict[str, str]:
        """As JSON, to be stored."""
        return {"argument": self.argument, "value": self.value, "origin": self.origin.value,
                "source": self.source, "words": self.words}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> ArgumentLabel:
        """Read back what `to_json` wrote."""
        return ArgumentLabel(argument=data["argument"], value=data["value"],
                             origin=Origin(data["origin"]), source=data.get("source", ""),
                             words=data.get("words", ""))


@dataclass(frozen=True, kw_only=True)
class Labels:
    """The labels of one call's arguments."""

    outside_seen: bool = False
    """Whether outside content had entered the task when the call was made."""
    arguments: tuple[ArgumentLabel, ...] = ()
    """One label per argument value (and per identifier inside free text)."""

    @property
    def untrusted(self) -> tuple[ArgumentLabel, ...]:
        """The labels that may not steer a call that runs alone."""
        return tuple(a for a in self.arguments if not a.origin.trusted)

    def to_json(self) -> dict[str, Any]:
        """As JSON, to be stored with the call's receipt."""
        return {"outside_seen": self.outside_seen,
                "arguments": [a.to_json() for a in self.arguments]}

    @property
    def words(self) -> str:
        """The untrusted arguments in a sentence ("" when there are none)."""
        return " ".join(a.words for a in self.untrusted)


NOTHING_SEEN = Labels()
"""The labels of a call made before any outside content entered its task."""


# -- endorsements ----------------------------------------------------------------------------


def _names(tools: Any) -> frozenset[str]:
    if isinstance(tools, str) or callable(tools):
        return frozenset((tool_name(tools),))
    return frozenset(tool_name(t) for t in tools)


@dataclass(frozen=True, kw_only=True, init=False)
class Endorse:
    """A skill's word that a value taken from what named tools return is trusted once it passes
    `valid`: ``Endorse.amount(read_file, at_most=Decimal(500), argument="amount")``."""

    from_: frozenset[str]
    """The tools whose results it applies to."""
    valid: Callable[[Any], bool]
    """Says whether a value passes (it runs when a call is gated)."""
    argument: str | None
    """The argument it applies to (its top-level name); None: any."""
    of: frozenset[str] | None
    """The tools whose calls it applies to; None: any."""
    kind: str
    """What it admits, in words ("a date", "an amount from 0 to 500")."""

    def __init__(self, from_: Any, *, valid: Callable[[Any], bool], argument: str | None = None,
                 of: Any = None, kind: str = "a value that passes the skill's check") -> None:
        set_ = object.__setattr__
        set_(self, "from_", _names(from_))
        set_(self, "valid", valid)
        set_(self, "argument", argument)
        set_(self, "of", _names(of) if of is not None else None)
        set_(self, "kind", kind)

    @staticmethod
    def date(from_: Any, *, argument: str | None = None, of: Any = None) -> Endorse:
        """A date (or date and time), written as ISO 8601."""
        return Endorse(from_, valid=_is_date, argument=argument, of=of, kind="a date")

    @staticmethod
    def amount(from_: Any, *, at_most: Decimal | int | float, at_least: Decimal | int | float = 0,
               argument: str | None = None, of: Any = None) -> Endorse:
        """A number within bounds."""
        low, high = Decimal(str(at_least)), Decimal(str(at_most))

        def within(value: Any) -> bool:  # (``1.000`` within 0..500 only when a thousand is)
            number, other = _decimal(value), _other_reading(value)
            return number is not None and low <= number <= high and (
                other is None or low <= Decimal(other) <= high)

        return Endorse(from_, valid=within, argument=argument, of=of,
                       kind=f"an amount from {low} to {high}")

    @staticmethod
    def words(from_: Any, *, argument: str | None = None, of: Any = None) -> Endorse:
        """Plain words — letters and spaces, no digit or symbol (a title, a subject line, a
        memo): they name no account, address, link or record a call could be aimed at."""
        return Endorse(from_, valid=lambda value: isinstance(value, str) and bool(
            _WORDS.match(" ".join(value.split()))), argument=argument, of=of, kind="plain words")

    @staticmethod
    def one_of(from_: Any, choices: Callable[[], Iterable[Any]], *, argument: str | None = None,
               of: Any = None, kind: str = "a value the app knows") -> Endorse:
        """A value among what `choices()` gives now (the ids or addresses the app keeps)."""

        def known(value: Any) -> bool:
            wanted = _forms(value)
            return bool(wanted) and any(wanted[0] in _forms(c) for c in choices())

        return Endorse(from_, valid=known, argument=argument, of=of, kind=kind)

    def admits(self, tool: str, argument: str, source: str, value: Any) -> bool:
        """Whether a value of `argument` of a call of `tool`, found in a result of `source`,
        is endorsed."""
        if source not in self.from_ or (self.of is not None and tool not in self.of):
            return False
        if self.argument is not None and self.argument != argument:
            return False
        try:
            return bool(self.valid(value))
        except Exception:  # a check that fails endorses nothing
            return False


def _is_date(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        dt.datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


# -- normal forms ----------------------------------------------------------------------------

_EDGES = ".,;:!?()[]{}<>\"'`*“”‘’«»"
_DOTS = str.maketrans({"\u3002": ".", "\uff61": ".", "\ufe52": ".",
                       # blanks that are no space to Unicode (a space to a reader):
                       "\u2800": " ", "\u115f": " ", "\u1160": " ", "\u3164": " ",
                       "\uffa0": " "})
"""Full stops of other scripts that a host name may be written with (NFKC keeps them), and
characters that show as a blank without being a space (BRAILLE PATTERN BLANK, the Hangul
fillers), as a space."""
_UNSEEN = re.compile("[\u034f\u061c\u17b4\u17b5\u180b-\u180f\ufe00-\ufe0f"
                     "\U0001d173-\U0001d17a\U000e0000-\U000e0fff]")
"""Marks that show nothing and are no format character (Cf): COMBINING GRAPHEME JOINER, the
variation selectors, Mongolian free variation selectors, Khmer inherent vowels."""


def _normal(text: str) -> str:
    """`text` as it reads: compatibility forms folded (NFKC: fullwidth letters and digits as
    themselves), characters that show nothing taken out (U+200B ZERO WIDTH SPACE, U+00AD SOFT
    HYPHEN, U+034F COMBINING GRAPHEME JOINER, a variation selector), those that show a blank
    as a space, and full stops of other scripts as ``.``."""
    if text.isascii():
        return text
    folded = _UNSEEN.sub("", unicodedata.normalize("NFKC", text).translate(_DOTS))
    return "".join(c for c in folded if unicodedata.category(c) != "Cf")
_NUMBER = re.compile(r"""^[-+]?[$€£¥]?(?:
    (?P<point>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)            # 1,200.50  1200.5
   |(?P<comma>\d{1,3}(?:\.\d{3})+,\d+|\d{1,3}(?:\.\d{3}){2}|\d+,(?:\d{1,2}|\d{4,}))  # 1.200,50  86,40
   |(?P<apostrophe>\d{1,3}(?:['’]\d{3})+(?:\.\d+)?)                 # 1'200.50
   |(?P<space>\d{1,3}(?:\ \d{3})+(?:[.,]\d{1,2})?)                 # 1 200,50  1 200.50
   )[$€£¥%]?$""", re.VERBOSE)
"""A number, however it is written: a currency's sign before or after, a percent sign, its
thousands grouped (``1,200``, ``1 200``), its decimals after a point or a comma (as it says)."""
_OTHER_READING = re.compile(r"^\d{1,3}[.,]\d{3}$")
"""A number that reads two ways (``1,200``: 1200 or 1.2; a result's is found both ways)."""
_EMAIL = re.compile(r"^(?:mailto:)?[\w.+-]+@[\w-]+(?:\.[\w-]+)+$")
_IBAN = re.compile(r"^[a-z]{2}\d{2}[a-z0-9]{11,30}$")
_IBAN_IN_TEXT = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b")
_URL = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|www\.)\S+$|^[a-z0-9-]+(?:\.[a-z0-9-]+)+/\S*$")
_IDENTIFIER = re.compile(
    r"(?:[a-z][a-z0-9+.-]*://|www\.)[^\s<>\"']+"     # a URL, of any scheme
    r"|[\w.+-]+@[\w-]+(?:\.[\w-]+)*"                 # an e-mail address (a host's own too)
    r"|(?<![\w@#])[@#][\w.-]{2,}"                     # a handle, a channel
    r"|\b[\w-]+(?:\.[\w-]+)*\.(?:xn--[a-z0-9-]+|[^\W\d_]{2,})\b(?:/[^\s<>\"']*)?"  # a host
    r"|\b\d{1,3}(?:\.\d{1,3}){3}\b(?:/[^\s<>\"']*)?"   # an IPv4 address
    r"|(?<![\w:])(?=[0-9a-f:]*::|(?:[0-9a-f]{1,4}:){7})(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}"
    r"(?![\w:])"                                      # an IPv6 address
    r"|(?-i:\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b)"  # an IBAN
    r"|\b(?=[a-z0-9]*\d)(?=[a-z0-9]*[a-z])[a-z0-9]{8,}\b"  # a code: letters and digits
    r"|(?-i:\b(?=[A-Z0-9-]*\d)[A-Z0-9]{3,}(?:-[A-Z0-9]{3,}){2,}\b)"  # a code in groups
    r"|\b\d[\d ,.-]{4,}\d\b",                        # a long number (six digits or more)
    re.IGNORECASE)
_FILE_NAME = re.compile(r"^[\w-]+\.(?:pdf|txt|md|csv|json|xml|html?|docx?|xlsx?|pptx?|odt|ods|"
                        r"png|jpe?g|gif|svg|zip|gz|tar|py|js|ts|log|ics|eml)$", re.IGNORECASE)
_DAY_OR_YEARS = re.compile(r"^\d{1,2}[./-]\d{1,2}[./-]\d{2,4}$|^\d{1,2}[.:]\d{2}(?: ?- ?\d{1,2}"
                           r"[.:]\d{2})?$|^(?:(?:19|20)\d{2}(?:[ ,.-]+|$))+$")
_FIGURES = re.compile(r"^[\d ,.-]+$")
_DAY_AND_MONTH = re.compile(rf"^\d{{1,2}}\.(?:{MONTH_NAMES})\.?$", re.IGNORECASE)  # 5.Dec: no host
_IPV4 = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}(?:/.*)?$")
_WORDS = re.compile(r"^[^\W\d_]+(?:[ '’-]+[^\W\d_]+)*$")
_NOT_PHRASE = re.compile(r"[\W_]+")


def _decimal(value: Any) -> Decimal | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float | Decimal):
        text = str(value)
    elif isinstance(value, str) and (match := _NUMBER.match(value := " ".join(value.split()))):
        digits = next(group for group in match.groups() if group is not None)
        if match["comma"] is not None:
            digits = digits.replace(".", "").replace(",", ".")
        elif match["space"] is not None:
            digits = digits.replace(" ", "").replace(",", ".")
        text = ("-" if value.strip().startswith("-") else "") + re.sub(r"[,'’]", "", digits)
    else:
        return None
    try:
        return Decimal(text)
    except InvalidOperation:
        return None


def _number_form(number: Decimal) -> str:
    return format(number.normalize(), "f")


def _forms(value: Any) -> tuple[str, ...]:
    """The normal forms of a value, the first its own: casefolded and trimmed, an IBAN without
    spaces, an e-mail address without its tag, a number in one spelling, a URL and its host."""
    if value is None or isinstance(value, bool):
        return ()
    number = _decimal(value)
    if number is not None:
        return (_number_form(number),)
    if not isinstance(value, str):
        return (json.dumps(value, sort_keys=True),)
    text = " ".join(_normal(value).split()).casefold().strip(_EDGES)
    if not text:
        return ()
    if _EMAIL.match(text):
        address = text.removeprefix("mailto:")
        local, _, domain = address.partition("@")
        untagged = f"{local.split('+', 1)[0]}@{domain}"
        return (address, untagged) if untagged != address else (address,)
    compact = text.replace(" ", "")
    if _IBAN.match(compact):
        return (compact,)
    if _URL.match(text):
        url = text.rstrip("/")
        host = url.split("://", 1)[-1].split("/", 1)[0].removeprefix("www.")
        return (url, host)
    return (text,)


@functools.lru_cache(maxsize=65536)
def _word_forms(raw: str) -> tuple[str, ...]:
    word = raw.strip(_EDGES)
    return _forms(word) if word else ()


def _tokens(text: str, *, read: bool = False) -> set[str]:
    """Every normal form of every word of `text`, and of the IBANs, the numbers written in
    groups (a telephone's) and the dates (as ISO 8601) in it; `read`: `text` is a result's,
    whose numbers and dates are found each way they read (`_OTHER_READING`, `dates`)."""
    found: set[str] = set()
    text = _normal(text)
    for raw in dict.fromkeys(text.split()):  # (each word once: a page says most many times)
        found.update(_word_forms(raw))
        word = raw.strip(_EDGES)
        if read and _OTHER_READING.match(word):
            other = word.replace(",", ".") if "," in word else word.replace(".", "")
            found.add(_number_form(Decimal(other)))
    for match in _IBAN_IN_TEXT.finditer(text):
        found.add(match.group().replace(" ", "").casefold())
    for grouped in {match.group() for match in _GROUPED.finditer(text)}:
        found.update(_forms(re.sub(r"[^\d+]", "", grouped)))
    if read:  # (a person's "12 345" may be two numbers; a result's is found as one too)
        found.update(_number_form(number) for match in _SPACED.finditer(text)
                     if (number := _decimal(match.group())) is not None)
        found.update(disguised_words(text), rewritten_words(text))  # (`yrollam`, `m4ll0ry`)
    found.update(dates(text, both_ways=read, named=MONTH_WORD.search(text) is not None))
    found.update(plain_words(text))  # (`José` as `jose`, a result's `Mállöry` as `mallory`)
    return found


_GROUPED = re.compile(r"(?<![\w+])\+?\(?\d[\d ().-]{5,}\d(?!\w)")  # +44 20 7946 0958
_SPACED = re.compile(r"(?<![\d.,])\d{1,3}(?: \d{3})+(?:[.,]\d{1,2})?(?![\d.,]?\d)")  # 1 000,50
def _phrase(text: str) -> str:
    return f" {_NOT_PHRASE.sub(' ', _normal(text).casefold()).strip()} "


def _in_text(form: str, tokens: set[str], phrase: str) -> bool:
    if " " in form:
        return _phrase(form) in phrase
    return form in tokens


def _leaves(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _leaves(inner, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list | tuple):
        for i, inner in enumerate(value):
            yield from _leaves(inner, f"{path}[{i}]")
    else:
        yield path, value


def _keys(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """The keys of the mappings in `value`, with where each is: a key may be a value too
    ({"GB29…": 86.40} pays that account), or a field's name."""
    if isinstance(value, dict):
        for key, inner in value.items():
            at = f"{path}.{key}" if path else str(key)
            if isinstance(key, str):
                yield f"{at} (its key)", key
            yield from _keys(inner, at)
    elif isinstance(value, list | tuple):
        for i, inner in enumerate(value):
            yield from _keys(inner, f"{path}[{i}]")


def _is_prose(value: Any) -> bool:
    """Free text (its words carry no label, the identifiers in it do): a string of several
    words that is not one value written with spaces (an IBAN, say)."""
    if not isinstance(value, str) or len(value.split()) < 2:
        return False
    forms = _forms(value)
    return bool(forms) and " " in forms[0]


def _stuck_word(form: str) -> bool:
    """Whether `form` is one plain word long enough to be found where it is written stuck to
    signs (``@mallory``, ``role=admin``), not a letter or two that any text has."""
    return len(form) >= 3 and " " not in form and bool(_WORDS.match(form))


_SETTING = re.compile(r"^[^\W\d_]+(?:[_-][^\W\d_]+)*$")
"""A key that reads as a setting's name (``max_retries``): words joined, no space."""

_COPIED = 6
"""How many words of outside content, copied as they are into free text, are labelled."""


def _identifiers(text: str) -> Iterator[str]:
    """The identifiers in free text: links, e-mail addresses, IBANs, numbers of six digits or
    more (not dates: a date aims nothing)."""
    for match in _IDENTIFIER.finditer(_normal(text)):
        found = match.group().strip(_EDGES)
        if _FILE_NAME.match(found) or _DAY_OR_YEARS.match(found):
            continue  # (a file's name, a day written the European way, years: none aims)
        if _FIGURES.match(found) and not _IPV4.match(found) and (
                _digits(found) < 6 or _is_date(found)):
            continue  # (a number of a few digits, a date: a host, an address, a code that
        if _DAY_AND_MONTH.match(found):  # starts with a digit is labelled: 9gag.com)
            continue
        if found.strip(":"):
            yield found


def _figures(text: str) -> Iterator[str]:
    """The numbers of a figure with its unit or name, one word at most (``1000 EUR``, ``acct
    12345``): each is what the text says, as alone (a sentence's identifiers alone are)."""
    text = " ".join(_normal(text).split())
    if sum(bool(_WORDS.match(w.strip(_EDGES))) for w in text.split()) > 1:
        return
    for spaced in _SPACED.finditer(text):  # (``2 500 EUR``: one number)
        yield spaced.group()
    for word in _SPACED.sub(" ", text).split():
        figure = word.strip(_EDGES + "#$€£¥%")
        if _decimal(figure) is not None:
            yield figure


def _other_reading(value: Any) -> str | None:
    """The other reading of a text that reads as two numbers (`_OTHER_READING`: ``1.000``, a
    thousand where ``1`` is its first), in normal form; None for any other value."""
    word = " ".join(_normal(value).split()).strip(_EDGES + "$€£¥") if isinstance(
        value, str) else ""
    if not _OTHER_READING.match(word):
        return None
    return _number_form(Decimal(word.replace(",", ".") if "," in word else word.replace(".", "")))


def _digits(figures: str) -> int:
    """How many digits a number has before its decimals (``1,200.50``: four), or in all."""
    number = _decimal(figures)
    if number is None or _OTHER_READING.match(figures):  # (123.456: maybe six digits)
        return sum(c.isdigit() for c in figures)
    return len(str(abs(int(number)))) if abs(number) >= 1 else 1


def _shown(value: str, limit: int = 40) -> str:
    return value if len(value) <= limit else value[: limit - 1] + "…"


# -- what a task has seen --------------------------------------------------------------------


@dataclass(kw_only=True)
class _Indexed:
    seen: Seen
    tokens: set[str]
    phrase: str
    bare: str | None = None
    """Its phrase with its identifiers taken out (`_bare_phrase`), once needed."""


@dataclass(kw_only=True)
class Provenance:
    """What one task has seen, indexed so that its calls' arguments can be labelled.

    ``Provenance(trusted=[instructions, brief, subject])``, then ``add(seen)`` for each result in
    the order the task saw them, and ``label(tool, arguments)`` for each call to gate. Results
    are indexed when first needed: a task that never saw outside content pays nothing.
    """

    trusted: list[str] = field(default_factory=list)
    """The trusted text: the instructions, the brief, the subject."""
    outside_seen: bool = False
    """Whether any outside content has entered the task."""
    _pending: list[Seen] = field(default_factory=list)
    _results: list[_Indexed] = field(default_factory=list)
    _trusted_tokens: set[str] | None = None
    _trusted_phrase: str = ""
    _refused: list[tuple[str, frozenset[str]]] = field(default_factory=list)
    """A person's words with the values they do not vouch for (`add_trusted`'s `but_not`)."""
    listed: bool = False
    """Whether outside content was read before any result (`add_listing`)."""

    def add_trusted(self, text: str, *, but_not: Any = None) -> None:
        """Trusted text the task has now been given (a person's words); `but_not`: values it
        names without vouching for them (a no's reason names what it refused: "GB29… is not
        our landlord" is no word for GB29…)."""
        if but_not is not None:
            refused = {form for path, leaf in _leaves(but_not)
                       for value in (leaf, *(_identifiers(leaf) if _is_prose(leaf) else ()))
                       for form in _forms(value)}
            self._refused.append((text, frozenset(refused)))
        else:
            self.trusted.append(text)
        self._trusted_tokens = None

    def add(self, seen: Seen) -> None:
        """A result the task has now seen."""
        self._pending.append(seen)
        if seen.outside is not None:
            self.outside_seen = True

    def add_listing(self, seen: Seen) -> None:
        """Outside content read before any result, as the tools were listed (what an upstream
        MCP server says of its tools: descriptions, schemas): a value it holds is labelled
        ``OUTSIDE`` from the first call on, but, until a result of outside content is seen,
        no other value is labelled (a tool's description is no answer to this work)."""
        assert seen.outside is not None, "a listing is outside content"
        self._pending.append(seen)
        self.listed = True

    def _index_trusted(self) -> set[str]:
        if self._trusted_tokens is None:
            self._trusted_tokens = set()
            for text in self.trusted:
                self._trusted_tokens |= _tokens(text)
            phrases = [_phrase(" \n ".join(self.trusted))]
            for text, refused in self._refused:
                self._trusted_tokens |= _tokens(text) - refused
                phrase = _phrase(text)
                for form in refused:
                    phrase = phrase.replace(_phrase(form), " | ")
                phrases.append(phrase)
            self._trusted_phrase = " ".join(phrases)
        return self._trusted_tokens

    def _index_results(self) -> None:
        """Index the results seen since last time (only when a value is not in the trusted
        text: a call whose every argument the request gave costs no result's reading)."""
        for seen in self._pending:
            text = _text_of(seen)
            self._results.append(_Indexed(seen=seen, tokens=_tokens(text, read=True),
                                          phrase=_phrase(text)))
        self._pending.clear()

    def label(self, tool: str, arguments: Mapping[str, Any], *,
              endorses: Iterable[Endorse] = (), plain: Iterable[str] = (),
              fields: Iterable[str] = (), free_text: bool | frozenset[str] = True
              ) -> Labels:
        """The labels of a call of `tool` with these arguments (`plain`: arguments not labelled,
        such as yes/no and declared choices; `fields`: the names its schema gives, which a
        mapping's keys may be without being values; `free_text`: which arguments' texts of
        several words are prose — every one's (True), none's (False: each text is labelled
        whole, as a single value is), or those named). Before any result of outside content,
        only values a listing holds (`add_listing`) are labelled."""
        if not self.outside_seen and not self.listed:
            return NOTHING_SEEN
        labels = self._labelled(tool, arguments, endorses=endorses, plain=plain, fields=fields,
                                free_text=free_text)
        if self.outside_seen:
            return labels
        held = tuple(a for a in labels.arguments if a.origin is Origin.OUTSIDE)
        return Labels(outside_seen=True, arguments=held) if held else NOTHING_SEEN

    def _labelled(self, tool: str, arguments: Mapping[str, Any], *, endorses: Iterable[Endorse],
                  plain: Iterable[str], fields: Iterable[str], free_text: bool | frozenset[str]
                  ) -> Labels:
        """Every label of a call (`label`), as once outside content entered the task."""
        skip, named = set(plain), set(fields)
        endorsing = tuple(endorses)
        labels: list[ArgumentLabel] = []

        def labelled(name: str, path: str, value: Any, *, inside: bool, prose: bool) -> None:
            label = self._label(tool, name, path, value, endorsing, inside=inside, words=prose)
            if label is not None:
                labels.append(label)

        for name, value in arguments.items():
            if name in skip:
                continue
            prose = free_text if isinstance(free_text, bool) else name in free_text
            for path, leaf in _leaves(value, name):
                if not prose or not _is_prose(leaf) or (
                        not _formula(leaf) and self._find(_forms(leaf), outside=True)):
                    # a single value, or words that outside content has whole ("Q3 payroll",
                    # a command it asked for), are labelled whole
                    labelled(name, path, leaf, inside=False, prose=prose)
                    continue
                for found in dict.fromkeys((*_identifiers(leaf), *_figures(leaf))):
                    labelled(name, path, found, inside=True, prose=prose)
                for run, seen in self._copied(leaf):  # words copied from outside content
                    labels.append(self._copied_label(path, run, seen))
            for path, key in _keys(value, name):  # a key is a value unless the schema names it
                if key in named or (_SETTING.match(key) and not self._find(  # (or a setting's
                        setting_forms(key), outside=True)):  # name of the model's: `is admin`)
                    continue
                label = self._label(tool, name, path, key, endorsing, inside=False, words=False)
                if label is not None:
                    labels.append(label)
        return Labels(outside_seen=True, arguments=tuple(labels))

    def _copied_label(self, path: str, run: str, seen: Seen) -> ArgumentLabel:
        """The label of words outside content (`seen`) holds (`_copied`): the request's, when
        it has them too."""
        said = f"`{path}` = `{_shown(run)}` (inside its text)"
        self._index_trusted()
        if f" {run} " in self._trusted_phrase:
            return ArgumentLabel(argument=path, value=run, origin=Origin.REQUEST,
                                 words=f"{said} is in the request.")
        return ArgumentLabel(argument=path, value=run, origin=Origin.OUTSIDE, source=seen.tool,
                             words=f"{said} is copied from what {seen.tool} returned, "
                                   f"{seen.outside}.")

    def _copied(self, text: str) -> list[tuple[str, Seen]]:
        """The runs of `_COPIED` words or more of `text` that a result of outside content holds
        as they are (a command, a sentence an injection asked to be passed on), each with that
        result; identifiers aside, on both sides (they are labelled on their own), and runs of
        words any letter has (`_COMMON`: "let me know if you have any questions") let be."""
        words = _bare_phrase(text).split()
        if len(words) < _COPIED:
            return []
        self._index_results()
        found: list[tuple[str, Seen]] = []
        for indexed in self._results:
            if indexed.seen.outside is None:
                continue
            if indexed.bare is None:
                indexed.bare = _bare_phrase(_text_of(indexed.seen))
            covered = [False] * len(words)
            for i in range(len(words) - _COPIED + 1):
                if f" {' '.join(words[i:i + _COPIED])} " in indexed.bare:
                    covered[i:i + _COPIED] = [True] * _COPIED
            run: list[str] = []
            for word, copied in zip([*words, ""], [*covered, False], strict=True):
                if copied:
                    run.append(word)
                    continue
                if sum(w not in _COMMON for w in run) >= 2:
                    found.append((" ".join(run), indexed.seen))
                run = []
        return found

    def _label(self, tool: str, name: str, path: str, value: Any,
               endorses: tuple[Endorse, ...], *, inside: bool, words: bool = True
               ) -> ArgumentLabel | None:
        """The label of one value (`words`: whether plain words the model wrote are its own,
        several of them too; else only one word is)."""
        forms = _forms(value)
        if not forms:
            return None
        trusted = self._index_trusted()
        text = value if isinstance(value, str) else json.dumps(value, default=str)
        said = f"`{path}` = `{_shown(text)}`" + (" (inside its text)" if inside else "")
        if (_in_text(forms[0], trusted, self._trusted_phrase) or (
                _stuck_word(forms[0]) and f" {forms[0]} " in self._trusted_phrase) or (
                _written_apart(forms[0], trusted))) and self._read_as_asked(value):
            return ArgumentLabel(argument=path, value=text, origin=Origin.REQUEST,
                                 words=f"{said} is in the request.")
        if (other := _other_reading(value)) is not None:
            forms = (*forms, other)  # (found either way it reads)
        found = self._find(forms, outside=True) or self._find(forms, outside=False)
        if found is None and disguised(forms[0]):  # (`mаllory`: found as it reads)
            found = self._find((skeleton(forms[0]),), outside=True)
        if found is None and _WORDS.match(forms[0]) and (words or " " not in forms[0]) and (
                not disguised(forms[0])):
            return ArgumentLabel(argument=path, value=text, origin=Origin.WORDS,
                                 words=f"{said} is a word the model wrote itself.")
        if found is None:
            return ArgumentLabel(
                argument=path, value=text, origin=Origin.UNTRACED,
                words=f"{said} is in nothing the task was given (not the request, not a result "
                      "it read), and outside content had entered the task.")
        seen, where = found
        for endorse in endorses:
            if endorse.admits(tool, name, seen.tool, value):
                return ArgumentLabel(argument=path, value=text, origin=Origin.ENDORSED,
                                     source=seen.tool,
                                     words=f"{said} is {endorse.kind} taken from {where}.")
        if seen.outside is not None:
            return ArgumentLabel(argument=path, value=text, origin=Origin.OUTSIDE,
                                 source=seen.tool,
                                 words=f"{said} appears in {where}, {seen.outside}.")
        return ArgumentLabel(
            argument=path, value=text, origin=Origin.SELECTED, source=seen.tool,
            words=f"{said} was picked from {where}, after outside content had entered the task.")

    def _read_as_asked(self, value: Any) -> bool:
        """Whether a value the trusted text has is what it asked for, read either way: one that
        reads two ways (``1.000``) only when the trusted text writes it so, or has both."""
        if (other := _other_reading(value)) is None:
            return True
        written = " ".join(_normal(value).split()).strip(_EDGES)
        return other in self._index_trusted() or any(
            word.strip(_EDGES) == written for text in self.trusted
            for word in _normal(text).split())

    def _find(self, forms: tuple[str, ...], *, outside: bool) -> tuple[Seen, str] | None:
        """The first result (outside content, or trusted) holding one of `forms`, and where (a
        plain word counts wherever the result has it, stuck to a sign or not: ``@mallory``)."""
        self._index_results()
        for indexed in self._results:
            if (indexed.seen.outside is not None) is not outside:
                continue
            if any(_in_text(f, indexed.tokens, indexed.phrase) or (_stuck_word(f) and (
                    f" {f} " in indexed.phrase or cut_in_two(f, indexed.phrase))) for f in forms):
                return indexed.seen, _where(indexed.seen, forms)
        return None


def _written_apart(form: str, tokens: set[str]) -> bool:
    """Whether `form`, a date and time, is written in `tokens` as its parts apart ("5 Dec 2026
    at 14:00" for ``2026-12-05T14:00``: see `date_time_parts`)."""
    parts = date_time_parts(form) if form[:1].isdigit() else None
    return parts is not None and all(any(way in tokens for way in part) for part in parts)


def _formula(text: str) -> bool:
    """Whether `text` is only words any letter has ("Thank you!", "Best regards")."""
    return all(word in _COMMON for word in _phrase(text).split())


def _text_of(seen: Seen) -> str:
    """All a result says: what the model was told of it, its JSON, and each of its texts and
    keys as it reads (JSON writes ``Маллори`` as ``\\u041c…`` and glues a word after a line
    break to an ``n``: ``to\\nmallory``, where neither would be found)."""
    if seen.value is None:
        return decoded(seen.text)
    said = [f"{key}" for _, key in _keys(seen.value)]
    said += [str(leaf) for _, leaf in _leaves(seen.value)
             if isinstance(leaf, str | int | float) and not isinstance(leaf, bool)]
    return decoded("\n".join([seen.text, json.dumps(seen.value, ensure_ascii=False), *said]))


def _bare_phrase(text: str) -> str:
    """`text`'s words (`_phrase`), its identifiers taken out."""
    return _phrase(_IDENTIFIER.sub(" ", _normal(text)))


_COMMON_WORDS = """a about after again all also am an and any are as at be because been before being best
both but by can could dear do does doing done for from get getting glad go going good great had has have
having he hear hearing hello her here hi him his hope how i if in is it its just keep kind know let like
look looking many may me more most much my need next no not now of on one or other our out please questions
regards reply see she should so some soon sure thank thanks that the their them then there these they this
those time to today too touch up us very want was way we well were what when where which while who will with
would yes you your yours email mail message find finds forward hesitate attached below above following note
feel free contact day week"""
_COMMON = frozenset(_COMMON_WORDS.split())
"""Words any letter has: a run of copied words with fewer than two others is a letter's
formula ("please let me know if you have any questions"), which steers nothing."""


def _where(seen: Seen, forms: tuple[str, ...]) -> str:
    """Where in a result a value is, in words: "`body` of what read_email returned for
    {"id": 31}"."""
    field_ = ""
    for path, leaf in _leaves(seen.value):
        if isinstance(leaf, str | int | float) and not isinstance(leaf, bool):
            text = str(leaf)
            if any(_in_text(f, _tokens(text), _phrase(text)) for f in forms):
                field_ = path
                break
    called = f" for {seen.arguments}" if seen.arguments not in ("", "{}") else ""
    what = f"what {seen.tool} returned{called}"
    return f"`{field_}` of {what}" if field_ else what
