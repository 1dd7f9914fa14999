"""How-to questions ("How do I rename a file?"): the names of the functions that may do what
they ask, and the action they ask how to do. The function that does a task is often named by
the task's words (os.rename, str.lower of "How do I convert a string to lowercase?"), though the
question names none. The action ("rename", "descale" of "How do I descale a teapot?") is what an
answer must tell: a sentence on teapots that says nothing of descaling does not say how to
descale one (`task_action`)."""

from __future__ import annotations

import keyword
import re

from signoff.research.terms import _QUESTION_WORDS, query_terms, question_terms

__all__ = ["is_task", "task_action", "task_names_query"]

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


_FINDING_OUT = frozenset({"check", "find", "tell", "know", "determine", "see", "test", "verify",
                          "detect", "learn", "figure", "work", "go", "do", "have", "let"})
"""Verbs that ask to find something out, or that say nothing of what is done ("How do I check
if a key is in a dictionary?", "How do I find the length of a list?"): the answer tells what is
found ("Return True if d has a key key", "Return the length…"), not the finding. They are no
task's action."""

_ACTION = re.compile(r"[^\W\d_][\w'’-]*")


def task_action(question: str) -> tuple[str, str]:
    """The action `question` asks how to do, as its term ("descale" of "How do I descale a
    teapot?"), and the task in its words ("descale a teapot"); two "" when it asks no task or
    its verb names no action (`_FINDING_OUT`, or a word only of the question: "get", "make",
    "use"). An adverb before the verb is passed over ("How do I safely delete a file?"). A
    keyword is an action too ("How do I raise an exception?": raise)."""
    asked = " ".join(question.split())[:_ASKED_AT_MOST]
    found = _TASK.match(asked)
    if found is None:
        return "", ""
    rest = asked[found.end():].strip().rstrip("?!. ").strip()
    words = _ACTION.findall(rest)
    verb = next((w.lower() for w in words if not w.lower().endswith("ly")), "")
    if (not verb.isalpha() or verb in _QUESTION_WORDS or verb in _FINDING_OUT
            or verb not in question_terms(asked)):
        return "", ""
    return verb, rest[rest.lower().find(verb):]
