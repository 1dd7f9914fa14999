"""Spellings: a word as British and American English both write it.

A question may be asked in one spelling of a sources' other ("How do I serialise an object?" of
documentation that writes "serialize"): each word is read in American spelling (`american`),
at index time and at query time alike, so that the two find each other. Only endings that tell
the two apart are read so ("-ise", "-yse", "-our"); a word both write with an s ("promise")
is read with a z as well, which, read so on both sides, changes nothing found.
"""

from __future__ import annotations

import re

__all__ = ["american"]

_BRITISH_ISE = re.compile(r"(?:(?<=\w[bdfghklmnprtz]i)|(?<=\wly))s(?=(?:e|es|ed|er|ers|ing|ation|"
                          r"ations)$)")
"""The s of a British "-ise" or "-yse" ("serialise", "initialising", "normalisation",
"analyse"), where American writes z: one word in either spelling. Not after a c, a v, a w or a
vowel, where both write s and the word is kin of one in "-ision" ("precise" and "precision",
"revise" and "revision") or is another word ("otherwise", "raise", "noise"); a word that ends
so in both ("promise") is read with a z, at index time and query time alike."""

_BRITISH_OUR = re.compile(r"^(behavi|col|fav|flav|hon|neighb|lab|hum|rum|harb|endeav|arm|vap|"
                          r"savi|rig)our(?=\w*$)")
"""A British "-our" word ("behaviour", "colours", "favourite"), where American writes "-or"."""


def american(word: str) -> str:
    """`word` (lower case) in American spelling where British spells it otherwise
    ("serialise": serialize, "behaviour": behavior), so that a question in one finds sources in
    the other; any other word as it is."""
    if "is" in word or "ys" in word:
        word = _BRITISH_ISE.sub("z", word)
    return _BRITISH_OUR.sub(r"\1or", word) if "our" in word else word
