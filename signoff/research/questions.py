"""The questions a question asks: "What does pass do? What does yield do?" asks two, and is
answered only when each is (the offline reader searches, reads and answers each)."""

from __future__ import annotations

import re

from signoff.research.terms import _QUESTION_WORDS

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

_ASKS = re.compile(r"(?:what|how|why|when|where|which|who|whom|whose|is|are|was|were|can|could|"
                   r"does|do|did|should|would|will|has|have|may|must)\b", re.IGNORECASE)
"""How a clause that asks begins ("How do I join a list of strings?"); one that does not, and
ends with no question mark ("I have a list of strings and I want to join them"), tells what the
asker has or wants: the question is read by the clauses that ask."""

_CLAUSE = re.compile(r"(?<=[.!?？])\s+(?=\S)|[,;:]\s+(?=(?:what|how|why|when|where|which|who|"
                     r"can|could|should|is|are|does|do)\b)", re.IGNORECASE)
"""Where a long question's clauses part: after a sentence's end, or before a clause that
asks."""

_MOST_QUESTIONS = 3
"""The most questions one question is read as (the rest stay with the last)."""


def questions_in(question: str) -> list[str]:
    """The questions `question` asks, each whole ("What does pass do? What does yield do?":
    two), or `question` alone when it asks one. A part with no word worth searching for
    ("Why?"), or one that points back to what the one before it asks after ("…, and how do I
    sort it?"), stays with the one before it, and one after a part with none with that one
    ("What does the ? operator do?")."""
    text = " ".join(question.split())
    if len(text) > _ASKED_AT_MOST:  # read by its last clause that asks, if one does
        asking = [c for c in _CLAUSE.split(text) if _asks(c) and len(c) <= _ASKED_AT_MOST]
        return [asking[-1].strip()] if asking else [question]
    sentences = re.split(r"(?<=[.!])\s+(?=[A-Z])", text)
    if len(sentences) > 1 and _asks(sentences[-1]) and not any(map(_asks, sentences[:-1])):
        text = sentences[-1]  # "My code fails. Why do I get ZeroDivisionError?": its last
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
    told = [p for p in parts if not _asks(p)]
    if told and len(told) < len(parts):  # a clause that only tells is what the asker has
        parts = [p for p in parts if _asks(p)]
        if len(parts) == 1:
            return [parts[0][:1].upper() + parts[0][1:]]
    if len(parts) < 2:
        return [question] if text == " ".join(question.split()) else [text]
    return [p[:1].upper() + p[1:] if p[:1].islower() else p for p in parts]


def _asks(clause: str) -> bool:
    """Whether `clause` asks: it begins as a question does, or ends with a question mark."""
    clause = clause.strip()
    return bool(_ASKS.match(clause)) or clause.endswith(("?", "？"))
