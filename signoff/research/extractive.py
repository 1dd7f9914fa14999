"""The offline default: a deterministic, extractive researcher. It is not a language model.

It needs no network, no API key and no weights. Asked a research question, it does what the
research skill's tools allow, one turn at a time:

1. it calls ``search_sources`` with the question;
2. it calls ``read_source`` on the best few hits (in one turn);
3. it picks the sentences of those sources that best match the question's words, and hands back
   a `GroundedAnswer` whose every claim *is* one such sentence, quoted exactly from its source.

It keeps no state of its own: every turn is worked out from the conversation (the tools' answers
come back as tool messages), so a task resumed after a restart goes on where it was. When a hand
back is refused, it leaves out the claims the refusal names and tries again; when nothing is left
to cite, it says so and hands back nothing.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from signoff.limits.grounding import Citation, Claim, GroundedAnswer, normalise
from signoff.models.base import Message, Price, Reply, ToolCall, ToolSpec, Usage, upper_bound_tokens
from signoff.research.corpus import query_terms

__all__ = ["ExtractiveModel", "Sentence", "best_sentences", "sentences_of"]

_SEARCH = "search_sources"
_READ = "read_source"
_HAND_BACK = "hand_back"
_QUESTION = "The question:"
"""How the research skill's brief introduces the question (the whole brief is used otherwise)."""


@dataclass(frozen=True, kw_only=True)
class Sentence:
    """A sentence of a source, as the model weighs it."""

    source_id: str
    """The source it is in."""
    text: str
    """The sentence, exactly as the source has it (whitespace aside)."""
    rank: int
    """Its source's place in the search results, from 0."""
    position: int
    """Its place in its source, from 0."""
    score: float = 0.0
    """How well it matches the question."""


class ExtractiveModel:
    """Answers research questions by quoting the best-matching sentences of the sources it reads.

    Deterministic and free: the same corpus and question always give the same answer.
    """

    name = "offline extractive reader (not a language model)"
    """What it is, as receipts and the command line show it."""
    price: Price | None = Price(input_per_mtok=0.0, output_per_mtok=0.0)
    """It costs nothing."""

    def __init__(self, *, read: int = 3, claims: int = 3) -> None:
        self.read = read
        """How many of the best hits it reads."""
        self.claims = claims
        """The most claims its answer makes."""

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
        if not seen.calls(_SEARCH):
            return _call(turn, "I search the sources for the question's words.",
                         [(_SEARCH, {"query": seen.question})])
        hits = [h for h in (seen.json_answer(c) for c in seen.calls(_SEARCH)) if isinstance(h, list)]
        ids = list(dict.fromkeys(
            str(h["source_id"]) for found in hits for h in found
            if isinstance(h, dict) and "source_id" in h
        ))
        if not ids:
            return _say("No source matches the question's words, so there is nothing to cite.")
        if not seen.calls(_READ):
            return _call(turn, "I read the best matches.",
                         [(_READ, {"source_id": sid}) for sid in ids[: self.read]])
        texts: dict[str, str] = {}
        for call in seen.calls(_READ):
            part = seen.json_answer(call)
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                sid = str(part.get("source_id", call.arguments.get("source_id", "")))
                texts[sid] = texts.get(sid, "") + part["text"]
        order = [sid for sid in ids if sid in texts]
        chosen = best_sentences(seen.question, [(sid, texts[sid]) for sid in order],
                                limit=self.claims)
        refused = seen.refused_claims()
        answer = [s for s in chosen if normalise(s.text) not in refused]
        if not answer:
            return _say("None of the sources I read has a sentence I can quote for this "
                        "question, so I hand back nothing.")
        result = GroundedAnswer(question=seen.question, claims=[
            Claim(text=normalise(s.text),
                  citations=[Citation(source_id=s.source_id, quote=normalise(s.text))])
            for s in answer
        ])
        return _call(turn, "Each claim is a sentence quoted from a source I read.",
                     [(_HAND_BACK, result.model_dump(mode="json"))])


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
                except ValueError:
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
            named = {int(n) for n in re.findall(r"Claim (\d+)", call.answer)}
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


# -- choosing sentences -------------------------------------------------------------------

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"“(\[A-Z0-9])")
_MIN_CHARS, _MAX_CHARS = 20, 400


def sentences_of(source_id: str, text: str, rank: int = 0) -> list[Sentence]:
    """The prose sentences of a source, in order: headings, indented blocks (code, grammar,
    notes) and fragments left out."""
    found: list[Sentence] = []
    for paragraph in re.split(r"\n\s*\n", text):
        lines = paragraph.split("\n")
        if not paragraph.strip() or lines[0][:1].isspace() or "::=" in paragraph:
            continue
        if len(lines) > 1 and re.fullmatch(r"[*=\-~^#+]{3,}", lines[-1].strip()):
            continue  # a heading, underlined
        for piece in _SENTENCE_END.split(paragraph.strip()):
            piece = piece.strip()
            if _MIN_CHARS <= len(piece) <= _MAX_CHARS and re.search(r"[.!?]$", piece):
                found.append(Sentence(source_id=source_id, text=piece, rank=rank,
                                      position=len(found)))
    return found


def _stem(word: str) -> str:
    word = word.lower()
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def best_sentences(question: str, sources: Sequence[tuple[str, str]], *,
                   limit: int = 3) -> list[Sentence]:
    """The sentences of `sources` (id, text; best source first) that best answer `question`:
    weighted by how rare each of the question's words is among the sentences, earlier sources
    and earlier sentences first on a tie; at most two from a source. Those that share none of
    the question's words are never chosen."""
    terms = {_stem(t) for t in query_terms(question)}
    every = [s for rank, (sid, text) in enumerate(sources) for s in sentences_of(sid, text, rank)]
    words = [{_stem(w) for w in re.findall(r"\w+", s.text)} for s in every]
    weight = {t: math.log(1 + len(every) / (1 + sum(t in w for w in words))) for t in terms}
    scored = []
    for sentence, has in zip(every, words, strict=True):
        matched = sum(weight[t] for t in terms if t in has)
        if matched <= 0:
            continue
        score = matched / (1 + 0.15 * sentence.rank) / (1 + 0.05 * sentence.position)
        scored.append(Sentence(source_id=sentence.source_id, text=sentence.text,
                               rank=sentence.rank, position=sentence.position, score=score))
    scored.sort(key=lambda s: (-s.score, s.rank, s.position))
    chosen: list[Sentence] = []
    per_source: dict[str, int] = {}
    for sentence in scored:
        if per_source.get(sentence.source_id, 0) >= 2:
            continue
        chosen.append(sentence)
        per_source[sentence.source_id] = per_source.get(sentence.source_id, 0) + 1
        if len(chosen) == limit:
            break
    return sorted(chosen, key=lambda s: (s.rank, s.position))
