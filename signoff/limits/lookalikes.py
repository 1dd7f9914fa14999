"""Words written so that they read as another: spelled out a letter at a time (``M a l l o r y``),
cut by signs (``mal-lory``), or with letters of another script that read as Latin ones
(``сancelled``, its ``с`` Cyrillic). A model reads straight through each, so
`signoff.limits.provenance` finds a value in what a tool read under the word it reads as.

Pure, as provenance is: text in, text out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["disguised", "disguised_words", "skeleton"]

_SPELLED = re.compile(r"(?<![^\W\d_])[^\W\d_](?:[ .·_*/-][^\W\d_]){2,}(?![^\W\d_])")
"""A word spelled out a letter at a time (``M a l l o r y``, ``a.d.m.i.n``)."""
_JOINED = re.compile(r"(?<![^\W\d_])[^\W\d_]+(?:[._*/-][^\W\d_]+)+(?![^\W\d_])")
"""A word cut by signs (``mal-lory``, ``ad_min``)."""
_LOOKALIKES = str.maketrans(
    "аеорсухіјѕԁһӏԛԝвкмнтьαβεηικμνορτυχζ",
    "aeopcyxijsdhlqwbkmhtbabehikmvoptuxz")
"""Letters of other scripts (Cyrillic, Greek) that read as Latin ones, casefolded (``с``,
``о``; ``м`` for ``М``): a word written with some of them reads as the Latin word."""
_EDGES = ".,;:!?()[]{}<>\"'`*“”‘’«»"


def skeleton(word: str) -> str:
    """`word` (casefolded) with the letters that read as Latin ones (`_LOOKALIKES`) as them."""
    return word.translate(_LOOKALIKES)


def disguised(word: str) -> bool:
    """Whether `word` (casefolded) reads as a Latin word it is not: Latin letters mixed with
    some that read as Latin ones (``mаllory``, an ``а`` of Cyrillic). A word of one script
    throughout (a name in Cyrillic, a Greek ``και``) is none."""
    return not word.isascii() and any("a" <= c <= "z" for c in word) and (
        skeleton(word).isascii())


def disguised_words(text: str) -> Iterator[str]:
    """The words `text` (in normal form) writes so that they read as a word they are not:
    spelled out a letter at a time or cut by signs (as the word joined), or with letters of
    other scripts that read as Latin ones, some or all (as the Latin word) — a model reads the
    word. (A Russian word that reads as an English one is found as it too: a call seldom
    takes the English word where the note was Russian.)"""
    for match in (*_SPELLED.finditer(text), *_JOINED.finditer(text)):
        yield re.sub(r"[\W_]", "", match.group()).casefold()
    for word in text.casefold().split():
        word = word.strip(_EDGES)
        if not word.isascii() and (latin := skeleton(word)).isascii():  # (``ехес`` too)
            yield latin
