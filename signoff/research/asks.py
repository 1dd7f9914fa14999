"""What kind of answer a question asks for, beside what it is about.

Some questions ask for more than sentences about their subject. One that asks when something
happened ("When was the with statement added?") is answered only by a sentence with a year or a
version; one that asks how many ("How many arguments does range take?") only by a sentence with
a number ("takes no arguments", "at most 3"); one that asks who did something ("Who created the
Linux kernel?") only by a sentence that says it was done ("… was created by …"): a sentence
that tells what the thing is, or what it does, does not answer them (`told_by`). And one that
compares two things ("Is a tuple faster than a list?", "Which is faster, a list or a tuple?",
"What is the difference between a list and a tuple?") is answered only by a sentence that names
both (`compared`): "ECDH is significantly faster than regular DH" is about speed, not about
tuples and lists; and one that asks how two things differ only by a sentence that sets one
against the other ("Unlike lists, tuples are immutable"; `told_by`): "There are three basic
sequence types: lists, tuples, and range objects." names both, and tells no difference.
"""

from __future__ import annotations

import keyword
import re

__all__ = ["PARAMETER_WORDS", "compared", "lists_parameters", "none_given", "told_by"]

_ASKED_AT_MOST = 200
"""The longest question read for its shape (a question is a sentence, not a page)."""

_ASKS_WHEN = re.compile(r"^(?:when|in which year|in what year|what year|since when)\s+"
                        r"(?:was|were|did|has|have|had)\b", re.IGNORECASE)
"""A question that asks when something happened ("When was the with statement added?", "When
did the Roman Empire fall?"), not when something happens ("When is __init__ called?")."""

_SAYS_WHEN = re.compile(r"\b(?:1[5-9]\d\d|2\d\d\d)\b|\bversions?\s+\d|\b\d+\.\d+\b",
                        re.IGNORECASE)
"""A sentence that can tell when: it has a year or a version ("New in version 2.5.", "Python
3.8"; "PEP 343" is a name, not a time)."""

_ASKS_HOW_MANY = re.compile(r"\bhow\s+many\b(?:\s+(?P<of>[a-z]+))?", re.IGNORECASE)
"""A question that asks how many, and of what ("How many arguments does range take?":
arguments)."""

_NO_THING = frozenset({"are", "is", "was", "were", "do", "does", "did", "can", "could", "will",
                       "would", "should", "may", "might", "must", "have", "has", "had", "of",
                       "there", "more", "other", "different"})
"""Words after "how many" that are not the thing counted ("How many are there?")."""

_SAYS_HOW_MANY = re.compile(
    r"(?<![\w.])(?<!version )(?<!Python )\d+(?:[.,]\d+)*(?![\w.]*\w)|"
    r"\b(?:zero|one|two|three|four|five|six|seven|eight|"
    r"nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|"
    r"twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundreds?|thousands?|millions?|"
    r"billions?|dozens?|single|both|no|any\s+number|arbitrary\s+number|several|multiple|"
    r"once|twice)\b", re.IGNORECASE)
"""A sentence that can tell how many: it has a number, in figures or in words ("It takes no
arguments", "at most 3 times"; not a figure inside a word, "utf8" or "x86", nor "None", which
in a program's documentation is a value, nor a version: "New in version 3.11")."""

_COMPARISON = r"(?:\w+er|more\s+\w+|less\s+\w+|better|worse)"
_ASKS_THAN = re.compile(rf"^(?:is|are|was|were|does|do)\s+(?P<one>.+?)\s+{_COMPARISON}\s+than\s+"
                        r"(?P<other>.+?)\s*\??$", re.IGNORECASE)
"""A question that compares one thing with another ("Is a tuple faster than a list?")."""

_ASKS_WHICH = re.compile(rf"^which(?:\s+one)?\s+(?:is|are|was|were)\s+(?:the\s+)?{_COMPARISON}"
                         r"\s*[,:]?\s+(?P<one>.+?),?\s+or\s+(?P<other>.+?)\s*\??$",
                         re.IGNORECASE)
"""A question that asks which of two is more so ("Which is faster, a list or a tuple?")."""


_ASKS_DIFFERENCE = re.compile(
    r"^(?:what(?:'s|\s+is|\s+are)|how\s+(?:do|does|is|are))\s+(?:the\s+)?"
    r"(?:main\s+|key\s+)?differences?\s+between\s+(?P<one>.+?)\s+and\s+(?P<other>.+?)\s*\??$"
    r"|^how\s+(?:does|do|is|are)\s+(?P<one2>.+?)\s+differ(?:ent)?\s+from\s+(?P<other2>.+?)\s*\??$",
    re.IGNORECASE)
"""A question that asks how two things differ ("What is the difference between a list and a
tuple?", "How does a list differ from a tuple?")."""

_SAYS_DIFFERENCE = re.compile(
    r"\b(?:unlike|whereas|whilst|while|but|however|instead|rather|than|differ\w*|distinct\w*|"
    r"similar\w*|contrast\w*|opposed|compared)\b", re.IGNORECASE)
"""A sentence that can tell how two things differ: it sets one against the other ("Unlike
lists, tuples are immutable", "This differs from __repr__() in that…"), not one that only
names both."""


_ASKS_NONE_GIVEN = re.compile(r"\b(?:with\s+no|without(?:\s+any)?)\s+(?:arguments?|args|"
                               r"parameters?)\b", re.IGNORECASE)
"""A question that asks what something does when it is given nothing ("What does str.split do
with no arguments?", "… without arguments?")."""

_SAYS_NONE_GIVEN = re.compile(
    r"\b(?:not\s+(?:specified|given|passed|supplied|provided)|omitted|(?:is|are)\s+None\b|"
    r"no\s+(?:arguments?|parameters?)|without\s+(?:any\s+)?(?:arguments?|parameters?)|"
    r"by\s+default|defaults?\s+(?:to|is)|(?:is|are)\s+absent)", re.IGNORECASE)
"""A sentence that can tell what is done when nothing is given: it says what happens when
something is not given ("If sep is not specified or is None, …", "If omitted, …", "With no
arguments, …", "…defaults to…"); "If maxsplit is given, …" tells what a given one does."""


def none_given(question: str) -> str:
    """The words with which `question` asks what is done when nothing is given ("with no
    arguments"), or "": they say what kind of answer is wanted (`told_by`), not what the
    question is about: "The sep argument may consist of…" is not about calling with none."""
    asked = _ASKS_NONE_GIVEN.search(_shape(question))
    return asked.group().lower() if asked else ""


PARAMETER_WORDS = frozenset({"argument", "arguments", "parameter", "parameters", "arg", "args",
                             "param", "params", "kwargs", "signature", "signatures"})
"""The words with which a question asks after a function's parameters ("How many arguments
does print take?", "What is the signature of sorted?")."""

_ASKS_PARAMETERS = re.compile(
    r"^(?:how\s+many|what|which)(?:\s+[\w'’]+){0,2}?\s+(?:" + "|".join(sorted(PARAMETER_WORDS))
    + r")\b", re.IGNORECASE)
"""A question that asks what parameters something takes, or how many ("How many arguments does
print take?", "Which keyword arguments does print accept?", "What are the parameters of
open?", "What is the signature of sorted?"): the parameter word within its first words, not
one it asks what is done with ("What does str.split do with no arguments?")."""


def lists_parameters(question: str) -> bool:
    """Whether `question` asks what parameters a function takes, or how many: a signature that
    heads the function's description (``print(*objects, sep=' ', end='\\n', file=None,
    flush=False)``) answers it, as it lists them, where no sentence under it may say so."""
    text = _shape(question)
    return bool(_ASKS_PARAMETERS.match(text)) and not none_given(text)


_ASKS_WHO = re.compile(r"^who\s+(?P<did>[a-z]+)\b", re.IGNORECASE)
"""A question that asks who did something ("Who created the Linux kernel?", "Who wrote
asyncio?"): what was done."""

_NOT_DONE = frozenset({"is", "are", "was", "were", "does", "do", "did", "can", "could", "should",
                       "would", "will", "may", "might", "must", "has", "have", "had", "uses",
                       "calls", "owns", "runs", "needs", "gets", "sets"})
"""Words after "who" that ask who is or does something (a role, not a deed done once: "Who
calls __init__?"), not who did it."""


def _doing(did: str) -> re.Pattern[str]:
    """A sentence that tells who did `did` ("created"): it says it was done ("Python was
    created by…", "its creator"), in a form of the verb; "Constants for Linux Kernel
    cryptography." tells nothing of who made the kernel."""
    base = did[:-2] if did.endswith("ed") and len(did) > 4 else did
    return re.compile(rf"\b{re.escape(base)}\w*", re.IGNORECASE)


def _differed(text: str) -> tuple[str, str] | None:
    """The two things `text` asks how they differ, when each is named in words: one that is an
    operator or a keyword ("between is and ==") is told of where the operator is, in the terms
    of what it does ("equality comparison … is based on the identity of the objects"), not
    set against the other."""
    asked = _ASKS_DIFFERENCE.match(text)
    if asked is None:
        return None
    sides = (asked["one"] or asked["one2"], asked["other"] or asked["other2"])
    for side in sides:
        words = re.findall(r"\w+", side)
        if not words or not re.fullmatch(r"[\w\s.,()'’-]+", side) or any(
                keyword.iskeyword(w) for w in words):
            return None
    return sides


def _shape(question: str) -> str:
    return " ".join(question.split())[:_ASKED_AT_MOST]


def told_by(question: str) -> list[tuple[str, re.Pattern[str]]]:
    """What `question` asks that a sentence about it must tell, each as how the reader names it
    ("when, in a date or a version", "how many, in a number") and the pattern of a sentence
    that can tell it; none for a question that asks only about its subject."""
    text = _shape(question)
    asks = []
    if _differed(text):
        asks.append(("how they differ", _SAYS_DIFFERENCE))
    if (who := _ASKS_WHO.match(text)) and who["did"].lower() not in _NOT_DONE:
        asks.append((f"who {who['did'].lower()} it", _doing(who["did"])))
    if none_given(text):
        asks.append(("what is done when nothing is given", _SAYS_NONE_GIVEN))
    if _ASKS_WHEN.match(text):
        asks.append(("when, in a date or a version", _SAYS_WHEN))
    if counted := _ASKS_HOW_MANY.search(text):
        of = (counted["of"] or "").lower()
        asks.append((f"how many {of}, in a number" if of and of not in _NO_THING else
                     "how many, in a number", _counting(of)))
    return asks


def _counting(of: str) -> re.Pattern[str]:
    """A sentence that tells how many `of` (the plural the question counts, "arguments"): a
    number with the thing counted within three words after it ("takes no arguments", "any
    number of positional arguments", "eight steps"); any number when the question names no
    thing. "range(10) generates 10 values" tells how many values, not how many arguments."""
    if not of or of in _NO_THING:
        return _SAYS_HOW_MANY
    stem = of[:-3] if of.endswith("ies") else of[:-1] if of.endswith("s") else of
    return re.compile(rf"(?:{_SAYS_HOW_MANY.pattern})(?:\W+\w+){{0,3}}?\W+{re.escape(stem)}",
                      re.IGNORECASE)


def compared(question: str) -> tuple[str, str]:
    """The two things `question` compares ("Is a tuple faster than a list?", "What is the
    difference between a tuple and a list?": "a tuple", "a list"), or two "" when it compares
    nothing."""
    text = _shape(question)
    if differ := _differed(text):
        return differ
    asked = _ASKS_THAN.match(text) or _ASKS_WHICH.match(text)
    return (asked["one"], asked["other"]) if asked else ("", "")
