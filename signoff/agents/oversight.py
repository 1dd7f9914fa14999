"""Who oversees agents, and what they say when they do: the app's policies for deciding
proposals and making standing rules, and the one rule every reason and why is held to."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from signoff.exceptions import ReasonRefused
from signoff.security.policies import Policy

__all__ = ["MAX_REASON", "Oversight", "said_why"]

MAX_REASON = 4000
"""The most characters a no's reason, or why a rule is taken back, may have: the agent is told
a reason whole, in every model call after it."""

_SHOWS_NOTHING = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp", "Mn"})
"""Unicode's categories of characters that show nothing: space, and the invisible ones
(U+200B ZERO WIDTH SPACE, U+2060 WORD JOINER, U+FEFF), which `str.strip` keeps; and marks
that join what comes before (U+0301, U+034F COMBINING GRAPHEME JOINER, U+FE0F VARIATION
SELECTOR-16), which show nothing where nothing comes before them."""

_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Letters and symbols that are drawn as blank space: the Hangul fillers (U+115F, U+1160,
U+3164, U+FFA0) and U+2800 BRAILLE PATTERN BLANK. Unicode files them with the letters (Lo) and
symbols (So), so a reason of them alone passed for one that says something."""


def _shows_nothing(character: str) -> bool:
    return character in _BLANK or unicodedata.category(character) in _SHOWS_NOTHING


def said_why(text: str, *, what: str, needed: bool) -> str:
    """`text` as it is kept and told: without the space around it. `ReasonRefused` for one that
    shows nothing when one is `needed` (space, or only invisible characters), one longer than
    `MAX_REASON`, or one that is no text Unicode can write (a lone surrogate, '\\ud800')."""
    text = text.strip()
    if needed and all(_shows_nothing(c) for c in text):
        raise ReasonRefused("Say why: a no needs a reason, and the agent is told it.")
    if len(text) > MAX_REASON:
        told = " (the agent is told it whole)" if needed else ""
        raise ReasonRefused(f"{what} is at most {MAX_REASON:,} characters, and this one has "
                           f"{len(text):,}: say it shorter{told}.")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ReasonRefused(f"{what} holds {text[error.start]!r}, half of a character that "
                           "cannot be written alone: send the text whole.") from None
    if "\x00" in text:  # (PostgreSQL refuses it, which would read as its being down)
        raise ReasonRefused(f"{what} holds a NUL character (U+0000), which the app's database "
                            "cannot keep: say it without one.")
    return text


@dataclass(kw_only=True)
class Oversight:
    """The app's policies about who oversees agents."""

    decides_agent_proposals: Policy
    """Who may decide proposals at all (and then only their own, or their queue's)."""
    widens_agent_autonomy: Policy
    """Who may make standing rules ("from now on, alone")."""
    supervises_agents: Policy
    """Supervisors: they may decide any proposal and make rules for everybody."""
