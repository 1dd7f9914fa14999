"""Names a question asks about: a function, class or exception the sources describe in an
entry of its own ("print" of "How many arguments does print take?", where ``print(*objects,
sep=' ')`` heads an entry). A sentence is about such a question only when it is in that entry
(`signoff.research.sentences.Sentence.named`) or names it as a name ("print()", "the print
function"): "Print up to limit stack trace entries" is the English word, of another thing.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Mapping, Sequence

from signoff.research.sentences import Sentence

__all__ = ["names_asked", "names_in", "names_query", "parts_of", "writes_name"]

_ASKED_AT_MOST = 200
"""The longest question read for its names (a question is a sentence, not a page)."""


def parts_of(name: str) -> set[str]:
    """What a dotted name names, in lower case: its last part ("json.dumps": dumps; the module
    or class before it is where it is, not what it is)."""
    return {name.rsplit(".", 1)[-1].casefold()} if name else set()


def names_asked(question: str, terms: Sequence[str], every: Sequence[Sentence],
                weight: Mapping[str, float] | None = None) -> dict[str, frozenset[str]]:
    """The terms of `question` that name a function, class or exception the sources read
    describe in an entry of its own ("print" of "How many arguments does print take?", where
    ``print(*objects, sep=' ')`` heads an entry), each with how the sources write it ("print",
    "KeyError"); not one the question asks after as a thing ("from a list") or in another
    form ("lists"). `weight` says how much each term weighs (how rare it is; 1 each when not
    given): an entry tells of what else the question asks when it has most of its weight."""
    written: dict[str, set[str]] = {}
    told: dict[str, set[str]] = {}  # the words of each name's entry
    for sentence in every:
        if sentence.named:
            name = sentence.named.rsplit(".", 1)[-1]
            written.setdefault(name.casefold(), set()).add(name)
            told.setdefault(name.casefold(), set()).update(
                re.findall(r"\w+", sentence.text.casefold()))
    if not written:
        return {}
    words = re.findall(r"\w+", " ".join(question.split())[:_ASKED_AT_MOST])
    asked = {w for n, w in enumerate(words) if not (n and words[n - 1].lower() in ("a", "an"))}
    named = {n.casefold() for n in names_in(question)}
    return {t: frozenset(forms) for t in terms if t in written and not keyword.iskeyword(t)
            and (forms := written[t] & asked)  # as written: "Pass" (ast.Pass) is no "pass"
            and (t in named or _tells_of(told[t], [o for o in terms if o != t], weight or {}))}


def _tells_of(entry: set[str], others: Sequence[str], weight: Mapping[str, float]) -> bool:
    """Whether an entry whose words are `entry` tells of what else the question asks (most of
    the weight of `others`, each by its first letters): a word of the question that an entry
    is named by but that the question does not write as a name ("How do I copy a file?", of
    shutil's copy) is asked about only when its entry is of the question's things ("How do I
    parse JSON?" asks no parse() of a page that says nothing of JSON; "How do I remove
    duplicates from a list?" no remove() of list.remove's entry, which tells of lists, not of
    the rarer duplicates)."""
    kept = [o for o in others if len(o) > 2 and o.isalpha()]
    told = sum(weight.get(o, 1.0) for o in kept if any(w.startswith(o[:4]) for w in entry))
    return told > sum(weight.get(o, 1.0) for o in kept) / 2


_KIND = r"(?:function|functions|type|class|method|exception|object|built-in|builtin|module)"


def writes_name(text: str, forms: frozenset[str]) -> bool:
    """Whether `text` names one of `forms` (a name as the sources write it) as a name: called
    or referred to as code ("print()", "str.join", "json.dumps", "`print`"), said to be one
    ("the print function"), or, for a name no English word is written as ("KeyError",
    "lru_cache"), written as it is; not an English word of the same letters ("Print up to
    limit entries", "the type map")."""
    for form in forms:
        name = re.escape(form)
        if re.search(rf"(?<![\w]){name}\(|\.{name}(?!\w)|(?<![\w.]){name}\.\w|"
                     rf"[`'\"“‘]{name}[`'\"”’]|(?<![\w.]){name} {_KIND}\b", text):
            return True
        plain = form.isalpha() and form.islower()  # "print": an English word too
        if not plain and re.search(rf"(?<![\w.]){name}(?!\w)", text):
            return True
    return False


_NAMED_IN = re.compile(
    r"\b(?:does|do|did)\s+(?:the\s+)?(?P<asked>[A-Za-z_][\w.]*)(?:\(\))?\s+(?:do|take|return|"
    r"accept|mean|raise|yield|produce|give|expect|need|require)\b"
    r"|(?P<called>[A-Za-z_][\w.]*)\("
    r"|\bthe\s+(?P<kind>[A-Za-z_][\w.]*)\s+(?:function|method|class|exception|built-in|builtin)\b"
    r"|(?<![\w.])(?P<code>[A-Za-z_]\w*(?:\.\w+)+|[a-z]+_\w+|[A-Z][a-z]+[A-Z]\w*)(?![\w.])")
"""How a question names a function, class or exception: what it asks that one does ("What
does map take?", "How many arguments does print take?"), one called ("zip()"), "the zip
function", or a name no English word is written as ("json.dumps", "lru_cache", "KeyError")."""


def names_in(question: str) -> list[str]:
    """The names of functions, classes or exceptions `question` names (the last part of a
    dotted one: "json.dumps", dumps), each once, in order."""
    text = " ".join(question.split())[:_ASKED_AT_MOST]
    found: list[str] = []
    for asked in _NAMED_IN.finditer(text):
        name = _last_part(str(asked.group(asked.lastgroup or 0)))
        if not keyword.iskeyword(name) and name not in found:
            found.append(name)
    return found


def names_query(question: str) -> str:
    """The FTS5 query of the names `question` names (`names_in`), as the index keeps them (in
    lower case, each quoted), or one that matches nothing."""
    quoted: list[str] = []
    name: str
    for name in names_in(question):
        quoted.append(f'"{name.casefold()}"')
    return " OR ".join(quoted) or '""'


def _last_part(name: str) -> str:
    return name.rsplit(".", 1)[-1]
