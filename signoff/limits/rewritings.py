"""Words a text holds once a simple rewriting a model undoes at a word is undone: a word without
its accents (``Mállöry``) or written in signs that read as letters (``ᴍᴀʟʟᴏʀʏ``), read
backwards (``yrollam``), in ROT13 (``znyybel``), in hexadecimal (``6d616c6c6f7279``), with
digits for letters (``m4ll0ry``), cut by a space (``mal lory``, ``Mallory Evil`` as
``malloryevil``; a setting's name ``is_admin`` as ``is admin``), or spelled in the NATO
alphabet (``mike alpha lima lima oscar romeo yankee``). Outside content asks for each in so many
words ("read it backwards"), so `signoff.limits.provenance` finds a value in what a tool read
under each word these give, as it finds one under a page's ``&#97;`` or base64.

What no such list reaches — a word cut into two arguments, a part of a word, a synonym, any
rewriting the model is talked into — is said in docs/concepts/provenance.md.

Pure, as provenance is: text in, words out.
"""

from __future__ import annotations

import functools
import re
import string
import unicodedata
from collections.abc import Iterator

__all__ = ["cut_in_two", "plain_words", "rewritten_words", "setting_forms"]

_WORD = re.compile(r"[^\W\d_]+")
"""A run of letters."""
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
"""Where a name written in camel case (``isAdmin``) starts a word."""
_HEX = re.compile(r"(?<![0-9a-z])(?:0x)?((?:[0-9a-f]{2}){3,})(?![0-9a-z])")
_LEET = re.compile(r"[a-z0-9@$]{3,}")
"""A run of letters, digits and signs that read as letters: one with both letters and digits or
signs among them is a word written with digits for letters (``m4ll0ry``). (Found as a run and
then looked at: a pattern that looked ahead for both at each place of a 3 MB run took hours.)"""
_LONGEST = 64
"""The most letters a word these give has: a run longer is no name a value is (a hostile
server's 3 MB answer), and is not looked into (cut in two, a run of it read as digits for
letters)."""
_DIGIT_SIGNS = "0123456789@$"
_AS_LETTERS = (str.maketrans("4@836105$7", "aabeglosst"), str.maketrans("1", "i"))
"""Digits and signs as the letters they are written for (``1`` for ``l``, or for ``i``)."""
_NATO_WORDS = """alpha alfa bravo charlie delta echo foxtrot golf hotel india juliet juliett kilo lima
mike november oscar papa quebec romeo sierra tango uniform victor whiskey whisky xray yankee zulu"""
_NATO = {word: word[0] for word in _NATO_WORDS.split()}
_ROT13 = str.maketrans(string.ascii_lowercase,
                       string.ascii_lowercase[13:] + string.ascii_lowercase[:13])
_LETTER_SIGNS = str.maketrans(
    "ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢ" + "".join(map(chr, range(0x1F1E6, 0x1F200))),
    "abcdefghijklmnoprstuvwyz" + string.ascii_lowercase)
"""Signs that read as Latin letters and are none to NFKC: small capitals (``ᴍᴀʟʟᴏʀʏ``), and
the regional indicators flags are written with (``🇲🇦🇱🇱🇴🇷🇾``)."""
_SHORTEST = 3
"""The fewest letters a word these give has (as a word found stuck to a sign: a letter or
two any text has)."""
_ACCENTS = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
"""The combining marks Latin letters are written with (accents, cedillas, rings)."""


@functools.lru_cache(maxsize=8)  # (a result's text is read by both functions below)
def _plain(folded: str) -> str:
    """`folded` (casefolded) without accents, its signs that read as letters as them."""
    if folded.isascii():
        return folded
    return _ACCENTS.sub("", unicodedata.normalize("NFKD", folded.translate(_LETTER_SIGNS)))


def plain_words(text: str) -> Iterator[str]:
    """The words `text` (in normal form) writes with accents, or in signs that read as
    letters, casefolded, as they read without (``Mállöry``, ``ᴍᴀʟʟᴏʀʏ``: ``mallory``); the
    person's too, so that their ``José`` is the model's ``jose``."""
    folded = text.casefold()
    if not folded.isascii():
        yield from _WORD.findall(_plain(folded))


def cut_in_two(word: str, phrase: str) -> bool:
    """Whether `phrase` (words between spaces, see `signoff.limits.provenance`) has `word` cut
    in two by a space (``mal lory``, ``Mallory Evil`` for ``malloryevil``)."""
    return len(word) <= _LONGEST and any(f" {word[:i]} {word[i:]} " in phrase
                                         for i in range(1, len(word)))


def setting_forms(key: str) -> tuple[str, ...]:
    """A setting's name (``is_admin``, ``isAdmin``), casefolded, as it is and as its words apart
    and run together (``is admin``, ``isadmin``): outside content may write it any way."""
    words = _WORD.findall(_CAMEL.sub(" ", key).casefold())
    return (key.casefold(), " ".join(words), "".join(words))


def rewritten_words(text: str) -> Iterator[str]:
    """The words `text` (in normal form) writes backwards, in ROT13, in hexadecimal, with
    digits for letters or in the NATO alphabet, casefolded, each as the word it reads as (its
    accents taken off, see `plain_words`)."""
    folded = _plain(text.casefold())
    for raw in dict.fromkeys(folded.split()):
        if raw.isalpha():
            continue
        for run in _LEET.findall(raw):
            if len(run) <= _LONGEST and not run.isalpha() and run.strip(_DIGIT_SIGNS):
                yield from (run.translate(letters) for letters in _AS_LETTERS)
    words = _WORD.findall(folded)
    for word in dict.fromkeys(words):
        if len(word) >= _SHORTEST:
            yield word[::-1]
            if word.isascii():
                yield word.translate(_ROT13)
    spelled: list[str] = []
    for word in [*words, ""]:
        letter = _NATO.get(word)
        if letter is not None:
            spelled.append(letter)
            continue
        if len(spelled) >= _SHORTEST:
            yield "".join(spelled)
        spelled = []
    for match in _HEX.finditer(folded):
        try:
            said = bytes.fromhex(match[1]).decode("utf-8")
        except ValueError:
            continue
        yield from (w for w in _WORD.findall(said.casefold()) if len(w) >= _SHORTEST)
