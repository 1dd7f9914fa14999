"""How-to questions ("How do I rename a file?"): the names of the functions that may do what
they ask. The function that does a task is often named by the task's words (os.rename,
str.lower of "How do I convert a string to lowercase?"), though the question names none."""

from __future__ import annotations

import keyword
import re

from signoff.research.relevance import query_terms

__all__ = ["is_task", "task_names_query"]

_ASKED_AT_MOST = 200
"""The longest question read (a question is a sentence, not a page)."""

_TASK = re.compile(r"^\W*how\s+(?:(?:do|can|could|should|would|might)\s+(?:i|you|we|one)\b|to\b)",
                   re.IGNORECASE)
"""A question that asks how to do something ("How do I convert a string to lowercase?", "How
to rename a file?")."""

_WORD = re.compile(r"[^\W\d_]+")
"""A word of letters only (not a name such as ``cpu_count``, nor a number)."""

_COMPOUND_FROM = 5
"""The fewest letters of a word a name may be the beginning of ("lower" of "lowercase"), with
at least `_COMPOUND_REST` more after it."""

_COMPOUND_REST = 3


def task_names_query(question: str) -> str:
    """The FTS5 query of the names a task `question` may be answered by, when it asks how to do
    something a function may do (`is_task`), else one that matches nothing: each of its words,
    each two neighbouring words written as one ("base name": basename, "deep copy": deepcopy),
    and the beginnings of a word a name may be ("lowercase": lower), as the index keeps names.
    The documented function that does a task is often named by its words ("How do I rename a
    file?": os.rename, "How do I convert a string to lowercase?": str.lower), where the
    question names no function."""
    if not is_task(question):
        return '""'
    words = [t for t in query_terms(question[:_ASKED_AT_MOST]) if _WORD.fullmatch(t)]
    found = list(words)
    for n in range(1, len(words)):
        found.append(words[n - 1] + words[n])
    for term in words:
        for end in range(_COMPOUND_FROM, len(term) - _COMPOUND_REST + 1):
            found.append(term[:end])
    quoted: list[str] = []
    for term in dict.fromkeys(found):
        quoted.append(f'"{term}"')
    return " OR ".join(quoted) or '""'


def is_task(question: str) -> bool:
    """Whether `question` asks how to do something ("How do I …?", "How can I …?", "How to
    …?") that a function may do: not with a keyword ("How do I import a module?", "How do I
    raise an exception?" are done by a statement, which the reference and the tutorial tell,
    not a function's entry)."""
    asked = question[:_ASKED_AT_MOST]
    return _TASK.match(asked) is not None and not any(
        keyword.iskeyword(t) for t in query_terms(asked))
