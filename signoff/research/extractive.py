"""The offline default: a deterministic, extractive researcher. It is not a language model.

It needs no network, no API key and no weights. Asked a research question, it does what the
research skill's tools allow, one turn at a time:

1. it calls ``search_sources`` with the question — with each question it asks, when it asks
   more than one (`questions_in`: "What does pass do? What does yield do?"), each then read
   and answered in turn, and the whole declined when one of them cannot be, naming it; a
   question that names nothing to look for (`names_nothing`: "What?", "How does it work?") it
   declines at once, saying to ask about something by its name;
2. it calls ``read_source`` on the best few hits, each at the part that matched (in one turn);
3. it ranks the sentences of what it read against the question (`rank_sentences`), each source
   weighed by how well the search matched it beside the best one read, and hands
   back a `GroundedAnswer` whose every claim *is* a sentence about the question, quoted exactly
   from its source — or, when no sentence is about the question, an answer that **declines**,
   saying what it searched, which sources came closest, and what they lack. It never pads.

It keeps no state of its own: every turn is worked out from the conversation (the tools' answers
come back as tool messages), so a task resumed after a restart goes on where it was. When a hand
back is refused, it leaves out the claims the refusal names and tries again; when nothing is left
to cite, it declines. When its search fails, or every read does, it cannot research, and says so
with what the tool answered (a `ModelError`: the task fails, in that sentence); it never hands
back again an answer that was refused.
"""

from __future__ import annotations

import json
import keyword
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from signoff.limits.grounding import Citation, Claim, GroundedAnswer, normalise
from signoff.models.base import Message, Price, Reply, ToolCall, ToolSpec, Usage, upper_bound_tokens
from signoff.models.errors import ModelError
from signoff.research.questions import questions_in
from signoff.research.relevance import Reading, Source, Undone, rank_sentences
from signoff.research.sentences import Sentence
from signoff.research.terms import names_nothing

__all__ = ["ExtractiveModel"]

_SEARCH = "search_sources"
_READ = "read_source"
_HAND_BACK = "hand_back"
_QUESTION = "The question:"
"""How the research skill's brief introduces the question (the whole brief is used otherwise)."""


class ExtractiveModel:
    """Answers research questions by quoting the sentences of the sources it reads that are
    about the question, or declines when none is.

    Deterministic and free: the same corpus and question always give the same answer.
    """

    name = "offline extractive reader (not a language model)"
    """What it is, as receipts and the command line show it."""
    price: Price | None = Price(input_per_mtok=0.0, output_per_mtok=0.0)
    """It costs nothing."""

    def __init__(self, *, read: int = 4, claims: int = 3) -> None:
        self.read = read
        """How many of the best hits it reads."""
        self.claims = claims
        """The most claims its answer makes (it makes fewer when fewer are about the
        question)."""

    def count_tokens(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> int:
        """An upper bound of the request's size (it reads no tokens, but the loop may ask)."""
        return upper_bound_tokens(messages, tools)

    def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec], *, max_output_tokens: int
    ) -> Reply:
        """The next turn, worked out from the conversation alone."""
        offered = {t.name for t in tools}
        if not {_SEARCH, _READ, _HAND_BACK} <= offered:
            return _say("I am an offline extractive reader, not a language model: I can only "
                        "research with search_sources and read_source, which this work does not "
                        "offer.")
        seen = _Conversation.of(messages)
        turn = seen.turns + 1
        asked = questions_in(seen.question)
        vague = [q for q in asked if names_nothing(q)]
        if vague:  # (nothing to search for: what it found would be about anything)
            why = _naming_nothing(vague[0])
            return _decline(turn, seen, [], [], why if len(asked) == 1 else
                            f"Of ‘{_clipped(vague[0], 120)}’: {why}")
        if not seen.calls(_SEARCH):
            return _call(turn, "I search the sources for the question's words." if len(asked) == 1
                         else f"The question asks {len(asked)} things: I search for each.",
                         [(_SEARCH, {"query": q}) for q in asked])
        done = [c for c in seen.calls(_SEARCH) if isinstance(seen.json_answer(c), dict)]
        failed = [c for c in seen.calls(_SEARCH) if c not in done]
        if failed:  # (it found nothing, nor said that no source matches: a question of two
            raise _cannot("search", _SEARCH, failed)  # would be answered of one alone)
        searched = [str(c.arguments.get("query", "")) for c in done]
        found = [seen.json_answer(c) for c in done]
        hits = [[h for h in f.get("hits", []) if isinstance(h, dict) and "source_id" in h]
                for f in found]
        best: dict[str, int] = {}
        for each in hits:  # the best of each search's, in turn
            for hit in each[: self.read if len(hits) == 1 else max(2, self.read // len(hits))]:
                best.setdefault(str(hit["source_id"]), int(hit.get("part", 1) or 1))
        if not best:
            unknown = list(dict.fromkeys(str(w) for f in found for w in f.get("unknown") or ()))
            return _decline(turn, seen, searched, [], (
                f"No source has {_listed(unknown)} (check the spelling, or ask in other words), "
                "so there is nothing to cite." if unknown else
                "No source matches the question's words, so there is nothing to cite."))
        if not seen.calls(_READ):
            return _call(turn, "I read the best matches, each where it matched.",
                         [(_READ, {"source_id": sid, "part": part})
                          for sid, part in list(best.items())[: self.read * len(hits)]])
        read: dict[str, Source] = {}
        for call in seen.calls(_READ):
            part = seen.json_answer(call)
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                sid = str(part.get("source_id", call.arguments.get("source_id", "")))
                earlier = read.get(sid)
                read[sid] = Source(source_id=sid, title=str(part.get("title", "")),
                                   text=(earlier.text + "\n\n" if earlier else "") + part["text"])
        if not read:
            raise _cannot("read the sources found", _READ, seen.calls(_READ))
        refused = seen.refused_claims()
        answer: list[Sentence] = []
        for query, each, f in zip(searched, hits, found, strict=True):
            reading, closest = self._reading(query, each, f, read, best)
            mine = [s for s in reading.chosen if normalise(s.text) not in refused]
            if not mine:
                why = _why_not(reading, bool(reading.chosen), closest)
                if len(searched) > 1:
                    why = f"Of ‘{_clipped(query, 120)}’: {why}"
                return _decline(turn, seen, searched, closest, why)
            answer.extend(mine[: self.claims if len(searched) == 1
                               else max(1, self.claims // len(searched))])
        cited: dict[str, list[str]] = {}  # a sentence said in several places is one claim,
        for s in answer:                   # citing each (it was made two or three times)
            sources = cited.setdefault(normalise(s.text), [])
            if s.source_id not in sources:
                sources.append(s.source_id)
        result = GroundedAnswer(question=seen.question, claims=[
            Claim(text=text, citations=[Citation(source_id=sid, quote=text) for sid in sources])
            for text, sources in cited.items()
        ])
        return _hand_back(turn, seen, "Each claim is a sentence about the question, quoted from "
                                      "a source I read.", result)

    def _reading(self, question: str, hits: Sequence[dict[str, Any]], found: dict[str, Any],
                 read: dict[str, Source], best: dict[str, int]) -> tuple[Reading, list[str]]:
        """What the sources read say of `question` (one the question asks), its search's
        `hits` and `found` weighing them; and the ids of the sources read, in order."""
        frequency = {str(w): int(n) for w, n in (found.get("words") or {}).items()
                     if isinstance(n, int)} if isinstance(found.get("words"), dict) else {}
        corpus_size = int(found.get("sources", 0) or 0)
        matched: dict[str, float] = {}
        for hit in hits:
            matched.setdefault(str(hit["source_id"]), _number(hit.get("score")))
        ranked = [sid for sid in dict.fromkeys([*(str(h["source_id"]) for h in hits), *best])
                  if sid in read]
        top = max((matched.get(sid, 0.0) for sid in ranked), default=0.0)
        order = [replace(read[sid], match=matched.get(sid, 0.0) / top if top > 0 else 1.0)
                 for sid in ranked]
        return rank_sentences(question, order, frequency=frequency, corpus_size=corpus_size,
                              limit=self.claims), ranked


def _number(value: Any) -> float:
    """A hit's score as a number (0 when it is none)."""
    try:
        return max(0.0, float(value))
    except (TypeError, ValueError):
        return 0.0


def _cannot(doing: str, tool: str, calls: Sequence[_Call]) -> ModelError:
    """The error that ends the task when the reader cannot `doing` (every call of `tool`
    failed or was refused): what the tool answered, in a sentence."""
    said = next((c.answer for c in reversed(calls) if c.answer), "") or "nothing"
    return ModelError(f"The offline reader could not {doing}, so it has nothing to cite. "
                      f"{tool} answered: “{_clipped(said)}” Mend what that answer names (the "
                      "app's log has a failure's details), then ask again.")


def _clipped(text: str, limit: int = 300) -> str:
    text = normalise(text)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _why_not(reading: Reading, refused: bool, read: Sequence[str]) -> str:
    """Why no answer can be cited, in a sentence (`read`: the ids of the sources read)."""
    if refused:
        return "The sentences I could quote were refused, and no other is about the question."
    if not reading.quotable:
        return (f"The sources found and read ({_listed(read[:3])}) hold no sentence that could "
                "be quoted as a claim (only titles, headings, code or fragments), so there is "
                "nothing to cite.")
    if reading.mine:
        yours = "your" + reading.mine[2:]  # "my IP address": "your IP address"
        return (f"The question asks after {yours}, and no sentence of the sources read speaks "
                "of yours: they may tell of such things, not of what is yours.")
    if reading.absent:
        return (f"No source mentions {_listed(reading.absent)}, and none of the sentences of "
                "the sources read is about the question.")
    if reading.undone is not None:
        return _not_told(reading.undone)
    if reading.lacking:
        return (f"The question asks {reading.lacking}, and none of the sentences of the sources "
                "read that are about it tells that.")
    if reading.best is not None and reading.missing:
        return f"No sentence of the sources read is about the question: {_lacks(reading)}."
    return "No sentence of the sources read is about the question."


_POINTING = re.compile(r"\b(?:(?P<one>it|this|that)|(?P<many>they|them|these|those))\b",
                       re.IGNORECASE)
"""A word that points to something named before it, one thing or many: a question asked alone
has nothing before it."""


def _naming_nothing(question: str) -> str:
    """Why `question`, which names nothing to look for (`names_nothing`), is declined, and how
    to ask it: with its pointing word ("it") made a name ("How does the with statement
    work?"), or as a question that names something."""
    text = " ".join(question.split())
    pointing = _POINTING.search(text)
    if pointing is None:
        words = list(dict.fromkeys(w.lower() for w in re.findall(r"\w+", text)))[:5]
        said = ("it has no word" if not words else f"its word, {_listed(words)}, names nothing "
                "in particular" if len(words) == 1 else f"its words, {_listed(words, 'and')}, "
                "name nothing in particular")
        example = "What does the with statement do?"
    else:
        said = (f"“{pointing[0].lower()}” stands for nothing named before it: a question is "
                "read on its own")
        named = "the with statement" if pointing["one"] else "generators"
        example = text[: pointing.start()] + named + text[pointing.end():]
        example = example[:1].upper() + example[1:].rstrip(" ?？.!") + "?"
    return (f"The question names nothing to look for ({said}), so whatever a search found would "
            f"be about something else. Ask about something by its name, such as "
            f"“{_clipped(example, 160)}”.")


def _not_told(undone: Undone) -> str:
    """Why a task cannot be answered: the sentences about it do not name its action, and those
    that do (in `undone.elsewhere`) are of something else."""
    said = (f"No sentence of the sources read tells how to {_clipped(undone.task, 120)}: those "
            f"about it say nothing of “{undone.action}”")
    if not undone.elsewhere:
        return said + "."
    named = [repr(s) for s in undone.elsewhere[:3]]
    where = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
    one = len(named) == 1
    rest = _listed(undone.rest) if undone.rest else "the rest of the task"
    return (f"{said}, and {where}, which {'has' if one else 'have'} “{undone.action}”, "
            f"{'says' if one else 'say'} nothing of {rest}.")


def _lacks(reading: Reading) -> str:
    """What the sentences read lack of the question's terms, in words. When the closest has
    none of them, none has: it is no closer than any other, and what they lack is a keyword
    named as one (the question '"with"', of pages titled "Developing with asyncio"), or the
    word. Else what the closest lacks; a term it has as written is one it has only as an
    English word, not as the keyword or name asked about, and it does not say "nothing of" it."""
    assert reading.best is not None
    missing = reading.missing[:3]
    if reading.best.score <= 0 and len(reading.missing) == len(reading.terms):  # none has any
        keywords = [t for t in missing if keyword.iskeyword(t)]
        words = [t for t in missing if t not in keywords]
        said = [f"has {_listed(words)}"] if words else []
        if keywords:
            said.append(f"names the keyword{'s' if len(keywords) > 1 else ''} "
                        f"{_listed(keywords)}")
        return f"none of them {' or '.join(said)}"
    text = reading.best.text
    written = [t for t in missing if re.search(rf"(?<!\w){re.escape(t)}(?!\w)", text, re.I)]
    lacked = [t for t in missing if t not in written]
    said = [f"says nothing of {_listed(lacked)}"] if lacked else []
    if written:
        kind = "keyword" if all(keyword.iskeyword(t) for t in written) else "name"
        many = "s" if len(written) > 1 else ""
        said.append(f"has {_listed(written, 'and')} only as {'an ' if not many else ''}"
                    f"English word{many}, not as the {kind}{many} asked about")
    return f"the closest, in {reading.best.source_id!r}, {', and '.join(said)}"


def _listed(terms: Sequence[str], joined: str = "or") -> str:
    quoted = [f"“{t}”" for t in terms]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + f" {joined} " + quoted[-1]


def _decline(turn: int, seen: _Conversation, searched: list[str], closest: list[str],
             reason: str) -> Reply:
    answer = GroundedAnswer.decline(reason, question=seen.question, searched=searched,
                                    closest=closest)
    return _hand_back(turn, seen, f"I decline: {reason}", answer)


def _hand_back(turn: int, seen: _Conversation, why: str, answer: GroundedAnswer) -> Reply:
    """Hand back `answer` — unless it was handed back already and refused: it would be refused
    again, turn after turn, to the task's step limit; the task fails, saying why."""
    arguments = answer.model_dump(mode="json")
    for call in seen.calls(_HAND_BACK):
        if call.arguments == arguments and call.answer is not None:
            raise ModelError("The offline reader's answer was refused, and it has no other to "
                             f"give: “{_clipped(call.answer)}”")
    return _call(turn, why, [(_HAND_BACK, arguments)])


# -- reading the conversation -------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class _Call:
    id: str
    name: str
    arguments: dict[str, Any]
    answer: str | None


@dataclass(frozen=True, kw_only=True)
class _Conversation:
    question: str
    turns: int
    all_calls: tuple[_Call, ...]

    @staticmethod
    def of(messages: Sequence[Message]) -> _Conversation:
        brief = next((m.text for m in messages if m.role == "user"), "")
        question = brief
        for line in brief.splitlines():
            if line.startswith(_QUESTION):
                question = line.removeprefix(_QUESTION).strip()
                break
        answers = {m.tool_call_id: m.text for m in messages if m.role == "tool"}
        calls = []
        for message in messages:
            for c in message.tool_calls if message.role == "assistant" else ():
                try:
                    arguments = json.loads(c.arguments)
                except (ValueError, RecursionError):
                    arguments = {}
                calls.append(_Call(id=c.id, name=c.name, answer=answers.get(c.id),
                                   arguments=arguments if isinstance(arguments, dict) else {}))
        return _Conversation(question=question.strip(), all_calls=tuple(calls),
                             turns=sum(1 for m in messages if m.role == "assistant"))

    def calls(self, tool: str) -> list[_Call]:
        return [c for c in self.all_calls if c.name == tool]

    @staticmethod
    def json_answer(call: _Call) -> Any:
        if call.answer is None:
            return None
        try:
            return json.loads(call.answer)
        except ValueError:
            return None  # a refusal or failure, told in words

    def refused_claims(self) -> set[str]:
        """The claims (normalised) that refused hand backs named."""
        refused: set[str] = set()
        for call in self.calls(_HAND_BACK):
            if call.answer is None or not call.answer.startswith("Invalid"):
                continue
            claims = call.arguments.get("claims", [])
            # ("Claim 2 …" of the citations' check, "claim 2 (…)" of the check on the question)
            named = {int(n) for n in re.findall(r"\b[Cc]laim (\d+)", call.answer)}
            for number in named or range(1, len(claims) + 1):
                if 1 <= number <= len(claims) and isinstance(claims[number - 1], dict):
                    refused.add(normalise(str(claims[number - 1].get("text", ""))))
        return refused


def _say(text: str) -> Reply:
    return Reply(text=text, usage=Usage(), stop="end")


def _call(turn: int, why: str, calls: list[tuple[str, dict[str, Any]]]) -> Reply:
    made = tuple(ToolCall(id=f"x{turn}_{i}", name=name, arguments=json.dumps(arguments))
                 for i, (name, arguments) in enumerate(calls))
    return Reply(text=why, tool_calls=made, usage=Usage(), stop="tool_calls")
