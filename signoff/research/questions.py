"""The questions a question asks: "What does pass do? What does yield do?" asks two, and is
answered only when each is (the offline reader searches, reads and answers each)."""

from __future__ import annotations

import re

from signoff.research.relevance import _QUESTION_WORDS

__all__ = ["questions_in"]

_ASKED_AT_MOST = 400
"""The longest question read for the questions it asks (a question is a sentence, not a page)."""


_ANOTHER_QUESTION = re.compile(
    r"(?<=[?？])\s+(?=\S)"
    r"|[,;]?\s+and\s+(?=(?:what|how|why|when|where|which|who)\b)"
    r"|[,;]\s+(?=(?:what|how|why)\b)", re.IGNORECASE)
"""Where one question ends and another begins: after a question mark, or at "and what…",
", how…" ("What does the with statement do, and what is a lambda?"; not at ", which…", which
goes on the question as often as it asks another)."""

_REFERS_BACK = re.compile(r"\b(?:it|its|they|them|their|this|that|these|those|each|both|one|"
                          r"ones)\b", re.IGNORECASE)
"""A word by which a part points back to what the part before it asks after ("…, and when
should I use each?", "How do I sort it?"): such a part is no question of its own."""

_MOST_QUESTIONS = 3
"""The most questions one question is read as (the rest stay with the last)."""


def questions_in(question: str) -> list[str]:
    """The questions `question` asks, each whole ("What does pass do? What does yield do?":
    two), or `question` alone when it asks one. A part with no word worth searching for
    ("Why?"), or one that points back to what the one before it asks after ("…, and how do I
    sort it?"), stays with the one before it, and one after a part with none with that one
    ("What does the ? operator do?")."""
    text = " ".join(question.split())
    if len(text) > _ASKED_AT_MOST:
        return [question]
    parts: list[str] = []
    alone = True  # whether the last part has a word of its own to search for
    for part in (p.strip(" ,;") for p in _ANOTHER_QUESTION.split(text)):
        searched = any(w not in _QUESTION_WORDS for w in re.findall(r"\w+", part.lower()))
        if parts and (not searched or not alone or len(parts) == _MOST_QUESTIONS
                      or _REFERS_BACK.search(part)):
            parts[-1] = f"{parts[-1]} {part}"  # ("What does the ? operator do?": one)
            alone = alone or searched
        elif part:
            parts.append(part)
            alone = searched
    if len(parts) < 2:
        return [question]
    return [p[:1].upper() + p[1:] if p[:1].islower() else p for p in parts]
