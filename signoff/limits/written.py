"""How values are written in what a tool read, beyond its words: the dates a text writes (in
words or figures; English, German or French), and the codes a page may write a word in that a
model reads straight through (escapes, percent-encoding, HTML entities and tags, base64).
`signoff.limits.provenance` looks for a call's arguments in them too.

Pure, as provenance is: text in, text out.
"""

from __future__ import annotations

import base64
import bisect
import calendar
import datetime as dt
import html
import re
import urllib.parse
from collections.abc import Iterator

__all__ = ["MONTHS", "MONTH_NAMES", "MONTH_WORD", "date_time_parts", "dates", "decoded"]

MONTHS = {name: number for number, names in enumerate((
    "january jan januar janvier", "february feb februar février", "march mar märz mars",
    "april apr avril", "may mai", "june jun juni juin", "july jul juli juillet", "august aug août",
    "september sep sept septembre", "october oct oktober okt octobre", "november nov novembre",
    "december dec dezember dez décembre"), start=1) for name in names.split()}
"""Each month's names and short names (English, German, French): its number."""
MONTH_NAMES = "|".join(sorted(MONTHS, key=len, reverse=True))
"""The names, as a pattern's alternatives (the longest first)."""

_DATE = re.compile(
    rf"\b(?:(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?\.?\s+(?:of\s+)?(?P<m1>{MONTH_NAMES})\.?,?\s+(?P<y1>\d{{4}})"
    rf"|(?P<m2>{MONTH_NAMES})\.?\s+(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y2>\d{{4}})"
    r"|(?P<a>\d{1,2})(?P<sign>[./])(?P<b>\d{1,2})(?P=sign)(?P<y3>\d{4}))\b", re.IGNORECASE)
"""A date in words (``5 Dec 2026``, ``December 5th, 2026``) or figures (``05.12.2026``)."""
_DATE_BEFORE = re.compile(rf"(?:{_DATE.pattern})\Z", re.IGNORECASE)
"""`_DATE` ending where the search ends: at the year each date ends in."""
_YEAR = re.compile(r"(?<!\d)\d{4}(?!\d)")
_FIGURE_DATE = re.compile(
    r"\b(?P<a>\d{1,2})(?P<sign>[./])(?P<b>\d{1,2})(?P=sign)(?P<y3>\d{4})\b(?P<m1>)(?P<m2>)")
"""`_DATE` in figures alone (its groups named alike, those of words empty)."""
_DATE_WORDS = 5
"""How many words before its year a date begins, at the most (``31st of September, 2026``: 3)."""
_DATE_SPAN = 256
"""How far before its year those words are looked for (a table's cells set out over lines)."""
MONTH_WORD = re.compile(rf"(?<![^\W\d_])(?:{MONTH_NAMES})(?![^\W\d_])", re.IGNORECASE)
"""A month named, however it is enclosed ("(December", "Date:Dec", "`Dec")."""


def dates(text: str, *, both_ways: bool, named: bool = True) -> Iterator[str]:
    """The dates written in `text` (`_DATE`), as ISO 8601 (``2026-12-05``): one written with
    slashes whose day and month may be either way round is read both ways only when
    `both_ways` (a result's text: a person's is not taken at a reading they may not mean).
    Each is looked for just before a year, and in words only where a month is `named` (a
    search of the whole page for a month's name at each word took seconds a megabyte)."""
    matches = list({m.group(): m for m in _FIGURE_DATE.finditer(text)}.values())
    named_at = [m.end() for m in MONTH_WORD.finditer(text)] if named else []  # (one pass)
    for ending in _YEAR.finditer(text) if named_at else ():
        start = max(0, ending.start() - _DATE_SPAN)
        if bisect.bisect_left(named_at, start) == bisect.bisect_right(named_at, ending.start()):
            continue  # (no month named just before it: no date in words ends there)
        words = text[start:ending.start()].split()[-_DATE_WORDS:]
        before = " ".join(words)  # (the words before the year, however far apart set out)
        match = _DATE_BEFORE.search(f"{before} {ending.group()}")
        if match is not None:
            matches.append(match)
    for match in matches:
        if month := match["m1"] or match["m2"]:
            readings = [(int(match["y1"] or match["y2"]), MONTHS[month.casefold()],
                         int(match["d1"] or match["d2"]))]
        else:
            a, b, year = int(match["a"]), int(match["b"]), int(match["y3"])
            readings = [(year, b, a)] if match["sign"] == "." else [
                (year, m, d) for m, d in ((a, b), (b, a)) if d > 12 or both_ways or m == d]
        for year, month_, day in readings:
            if 1 <= month_ <= 12 and 1 <= day <= calendar.monthrange(year, month_)[1]:
                yield dt.date(year, month_, day).isoformat()


_DATE_TIME = re.compile(r"(?P<date>\d{4}-\d{2}-\d{2})[t ](?P<h>\d{2}):(?P<m>\d{2})"
                        r"(?::(?P<s>\d{2})(?:\.0+)?)?(?P<zone>z|[+-]\d{2}:?\d{2})?\Z")
"""A date and time in ISO 8601, casefolded (``2026-12-05t14:00:00z``): its seconds whole."""


def date_time_parts(form: str) -> tuple[tuple[str, ...], ...] | None:
    """The parts a text must write, each in one of its ways, to write the date and time
    `form` (casefolded ISO 8601) apart: its date (as `dates` gives it), its time of day
    (``14:00``, ``9:30``; its seconds when there are some), and its zone when it has one
    (``utc`` for ``z``, ``+01:00``); None when `form` is no such date and time."""
    match = _DATE_TIME.match(form)
    if match is None:
        return None
    hour, minute, second = match["h"], match["m"], match["s"]
    clock = [f"{hour}:{minute}", f"{int(hour)}:{minute}"]
    if second and second != "00":
        clock = [f"{c}:{second}" for c in clock]
    parts: list[tuple[str, ...]] = [(match["date"],), tuple(dict.fromkeys(clock))]
    zone = match["zone"]
    if zone == "z":
        parts.append(("utc", "z", "gmt"))
    elif zone:
        bare = zone.replace(":", "")
        parts.append((f"{bare[:3]}:{bare[3:]}", bare))
    return tuple(parts)


_ESCAPE = re.compile(r"\\u(?![dD][89a-fA-F])([0-9a-fA-F]{4})")  # (no half of a pair)
_TAG = re.compile(r"<[^<>]*>")
_BASE64 = re.compile(r"(?<![\w+/-])[A-Za-z0-9+/_-]{8,}={0,2}(?![\w+/=-])")
_WRAPPED = re.compile(r"(?<![\w+/=-])[A-Za-z0-9+/]{8,}(?:\r?\n[A-Za-z0-9+/]+)+={0,2}(?![\w+/=-])")


def decoded(text: str) -> str:
    """`text`, then as the model reads it through a code: ``\\u0061``, ``%61``, ``&#97;``, a
    page's tags taken out (``<b>mal</b>lory``), base64 that is text (``bWFsbG9yeQ==``)."""
    said = html.unescape(urllib.parse.unquote(_ESCAPE.sub(lambda m: chr(int(m[1], 16)), text)))
    plain = _unmarked(said)
    decoded = [_base64(match.group()) for match in _BASE64.finditer(text)]
    decoded += [_base64(re.sub(r"\s", "", match.group())) for match in _WRAPPED.finditer(text)]
    extra = [t for t in (said, plain, *decoded) if t and t != text]
    return "\n".join([text, *dict.fromkeys(extra)])


def _unmarked(text: str) -> str:
    """`text` with a page's comments and tags taken out, in one pass: from the first comment
    that does not close on, no comment is taken out (none after it closes either; a pattern
    looking for each one's end to the end of the text read a page of openings in minutes), but
    tags still are (what follows an opening is read by the model all the same)."""
    kept, at = [], 0
    while (opening := text.find("<!--", at)) >= 0:
        closing = text.find("-->", opening + 4)
        if closing < 0:
            break
        kept.append(text[at:opening])
        at = closing + 3
    kept.append(text[at:])
    return _TAG.sub("", "".join(kept))


def _base64(word: str) -> str:
    """What `word` says as base64, when it is text ("" when it is not)."""
    try:
        said = base64.b64decode(word.replace("-", "+").replace("_", "/") + "=" * (-len(word) % 4),
                                validate=True).decode("utf-8")
    except ValueError:
        return ""
    return said if all(c.isprintable() or c.isspace() for c in said) and any(
        c.isalpha() for c in said) else ""
