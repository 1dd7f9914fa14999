"""Labelling: what each task has seen, and the gate's reading of the labels of a call.

The loop asks `TaskLabels.of` for the labels of a call's arguments as it gates it (from the
results the task saw in its earlier turns), and `floor` says how far those labels hold the call
back: a call that changes, sends, spends or reaches out with an argument that is not trusted is
proposed (or never run) whatever the permits or a standing rule would let it do alone.

Which results are outside content is the action's word (``@app.action(untrusted=...)``); an
action that reaches outside the app returns outside content unless it says otherwise, and the
records the app keeps are trusted.
"""

from __future__ import annotations

import functools
import json
import logging
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from signoff.actions.catalog import Action
from signoff.actions.effects import Effects
from signoff.agents.permits import Leave, Permits
from signoff.agents.proposals import Evidence
from signoff.agents.states import HAND_BACK, CallOutcome, CallState
from signoff.limits.provenance import NOTHING_SEEN, Endorse, Labels, Provenance, Seen
from signoff.models.base import Message

if TYPE_CHECKING:
    from signoff.agents.repository import CallRow

__all__ = ["Listing", "TaskLabels", "evidence_of", "field_names", "floor", "free_text_arguments",
           "listed_before", "may_return_outside_content", "outside_reason", "plain_arguments",
           "trusted_text"]

log = logging.getLogger("signoff.agents")


def outside_reason(action: Action, value: Any) -> str | None:
    """Why what `action` returned (`value`) is outside content, in words; None when trusted."""
    option = action.options.untrusted
    if option is None:
        return "from outside the app" if action.info.effects.external else None
    if option is True:
        return "outside content"
    if option is False:
        return None
    try:
        said = option(value)
    except Exception:  # a check that fails vouches for nothing (why: in the log)
        log.exception("The untrusted= check of %s failed on what it returned; it is taken as "
                      "outside content.", action.name)
        return "outside content (the action's check of it failed)"
    if isinstance(said, str):
        return said or None
    return "outside content" if said else None


def may_return_outside_content(action: Action) -> bool:
    """Whether what `action` returns may be outside content (`outside_reason`, for some
    value)."""
    option = action.options.untrusted
    if option is None:
        return action.info.effects.external
    return option is not False


def floor(permits: Sequence[Permits], effects: Effects, labels: Labels, *,
          query: bool = False) -> tuple[Leave, str]:
    """The least strict leave a call may have given its labels (ALONE when they do not hold
    it back), with the reason: the strictest ``untrusted`` leave of the permits, for a call that
    does more than read with an argument that is not trusted."""
    if query or effects.only_reads:
        return Leave.ALONE, ""
    untrusted = labels.untrusted
    if not untrusted:
        return Leave.ALONE, ""
    leave = max(p.untrusted for p in permits) if permits else Leave.PROPOSE
    names = ", ".join(sorted({f"`{a.argument}`" for a in untrusted}))
    return leave, f"{names} did not come from the request (outside content had entered the task)"


@functools.cache
def _plain(schema_json: str) -> frozenset[str]:
    schema = json.loads(schema_json)
    defs = schema.get("$defs", {})
    plain = set()
    for name, prop in schema.get("properties", {}).items():
        ref = prop.get("$ref") or next(
            (p.get("$ref") for p in prop.get("anyOf", ()) if "$ref" in p), None)
        if ref:
            prop = defs.get(ref.rsplit("/", 1)[-1], prop)
        if prop.get("type") == "boolean" or "enum" in prop or "const" in prop:
            plain.add(name)
    return frozenset(plain)


@functools.cache
def _fields(schema_json: str) -> frozenset[str]:
    names: set[str] = set()
    pending: list[Any] = [json.loads(schema_json)]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            properties = node.get("properties")
            if isinstance(properties, dict):
                names.update(properties)
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return frozenset(names)


def field_names(action: Action) -> frozenset[str]:
    """The names the action's parameters schema gives, at every depth (a model's fields): a
    mapping's key that is one of them is no value a call chose."""
    return _fields(json.dumps(action.info.parameters_schema, sort_keys=True))


def free_text_arguments(action: Action) -> frozenset[str]:
    """The parameters the action declares free text (``Annotated[str, FreeText]``)."""
    return frozenset(p.name for p in action.info.parameters if p.free_text)


def plain_arguments(action: Action) -> frozenset[str]:
    """The arguments that carry no label: yes/no, and the choices the action declares."""
    return _plain(json.dumps(action.info.parameters_schema, sort_keys=True))


@dataclass(frozen=True, kw_only=True)
class Listing:
    """What the model read of the tools before calling one, from outside (what an upstream MCP
    server says of its tools), and the names the called tool's own schema gives."""

    seen: tuple[Seen, ...] = ()
    """The outside content the tools were listed with (see `Provenance.add_listing`)."""
    fields: frozenset[str] = frozenset()
    """The names the tool's schema gives (a mapping's key that is one is no value chosen)."""


_LISTINGS: weakref.WeakKeyDictionary[Callable[..., Any], Callable[[], Listing]] = (
    weakref.WeakKeyDictionary())


def listed_before(function: Callable[..., Any], listing: Callable[[], Listing]) -> None:
    """Say that the model read `listing()` as it was offered the action made of `function` (the
    unmarked function given to `App.add_action`): a value it holds is labelled in a call of
    that action from the first on (the guard says so of its upstreams' tools)."""
    _LISTINGS[function] = listing


def _listing_of(action: Action) -> Listing:
    """What the model read as `action` was offered (`listed_before`; none for most)."""
    try:
        lists = _LISTINGS.get(action.call)
    except TypeError:  # a function no weak reference can be made to: none was given one
        return Listing()
    return lists() if lists is not None else Listing()


OthersSince = Callable[[str, int, dict[str, dict[str, Any]]], tuple[int, list["CallRow"]]]
"""How the calls of another task of a work are read since step `seq`, folded into what was read
of them before (see `signoff.agents.repository.calls_since`)."""


@dataclass(kw_only=True)
class _Other:
    """What a task has read of another task of its work."""

    seq: int = 0
    """The last of its steps read."""
    calls: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Its calls as those steps left them (folded)."""
    seen: set[str] = field(default_factory=set)
    """The ids of those of its calls whose results are in the provenance."""


@dataclass(kw_only=True)
class _Known:
    turn: int
    """The last turn whose results are in `provenance`."""
    provenance: Provenance
    evidence: list[Evidence]
    """What the calls that ran alone in those turns answered (a proposal's evidence)."""
    others: dict[str, _Other] = field(default_factory=dict)
    """What it has read of the other tasks of its work, by task."""
    listed: set[str] = field(default_factory=set)
    """The texts of the listings in `provenance` (`Listing.seen`)."""


class TaskLabels:
    """What the tasks this process steps have seen, kept between steps so that labelling a call
    costs only the results that are new since the last one."""

    def __init__(self, action_of: Callable[[str], Action | None]) -> None:
        self._action_of = action_of
        self._known: dict[str, _Known] = {}

    def of(self, task_id: str, turn: int, action: Action, arguments: dict[str, Any], *,
           endorses: Iterable[Endorse], trusted: Callable[[], list[str]],
           calls: Callable[[], list[CallRow]], others: tuple[tuple[str, int], ...] = (),
           others_since: OthersSince | None = None, free_text: bool = True) -> Labels:
        """The labels of a call of `action` in turn `turn` of the task (`trusted`: the task's
        trusted text; `calls`: its tool calls, read only when this process does not know them;
        `others`: the other tasks of its work and their last steps, whose calls it has seen
        too, read with `others_since` as far as they are new; `free_text`: the skill's, see
        `Skill.free_text`: when True, an action that declares free text parameters has only
        those; when False, none, whatever the action declares — the stricter word wins)."""
        if not self.label(action):
            return NOTHING_SEEN
        known = self._before(task_id, turn, trusted, calls, others, others_since)
        listing = _listing_of(action)
        for seen in listing.seen:
            if seen.text not in known.listed:
                known.listed.add(seen.text)
                known.provenance.add_listing(seen)
        declared = free_text_arguments(action)
        return known.provenance.label(action.name, arguments, endorses=endorses,
                                      plain=plain_arguments(action),
                                      fields=field_names(action) | listing.fields,
                                      free_text=declared if declared and free_text else free_text)

    @staticmethod
    def label(action: Action) -> bool:
        """Whether a call of `action` is labelled at all: not when it only reads (whatever
        steered it, it changes nothing)."""
        return not (action.info.query or action.info.effects.only_reads)

    def evidence(self, task_id: str, turn: int, *, trusted: Callable[[], list[str]],
                 calls: Callable[[], list[CallRow]], others: tuple[tuple[str, int], ...] = (),
                 others_since: OthersSince | None = None) -> list[Evidence]:
        """What the calls the task has seen, that ran alone before turn `turn`, answered
        (`trusted`, `calls`, `others`, `others_since`: as for `of`)."""
        return list(self._before(task_id, turn, trusted, calls, others, others_since).evidence)

    def _before(self, task_id: str, turn: int, trusted: Callable[[], list[str]],
                calls: Callable[[], list[CallRow]], others: tuple[tuple[str, int], ...],
                others_since: OthersSince | None) -> _Known:
        """What the task saw before turn `turn` (read from its calls when not known here), with
        what the other tasks of its work have seen up to their steps in `others`."""
        known = self._known.get(task_id)
        if known is None or known.turn != turn - 1:
            known = _Known(turn=turn - 1, provenance=Provenance(trusted=trusted()), evidence=[])
            self._add(known, [c for c in calls() if c.turn < turn])
            self._known[task_id] = known
        for other, seq in others:
            read = known.others.setdefault(other, _Other())
            if seq > read.seq and others_since is not None:
                last, changed = others_since(other, read.seq, read.calls)
                read.seq = max(last, seq)  # (a step's number may go unused: see the journal)
                new = [c for c in changed if c.id not in read.seen and c.outcome in _SETTLED]
                read.seen.update(c.id for c in new)
                self._add(known, new)
        return known

    def __contains__(self, task_id: object) -> bool:
        """Whether this process keeps what the task has seen."""
        return task_id in self._known

    def absorb(self, task_id: str, turn: int, calls: Iterable[CallRow]) -> None:
        """Turn `turn` of the task has closed with these calls: their results are seen."""
        known = self._known.get(task_id)
        if known is None:
            return
        if known.turn != turn - 1:
            self._known.pop(task_id, None)
            return
        self._add(known, calls)
        known.turn = turn

    def take(self, task_id: str) -> _Known | None:
        """What this process knows of the task, taken out (see `keep`)."""
        return self._known.pop(task_id, None)

    def keep(self, task_id: str, known: _Known) -> None:
        """Keep `known` (as `take` gave it) for the task again."""
        self._known[task_id] = known

    def forget(self, task_id: str) -> None:
        """Drop what this process knows of the task (it is read again when next needed)."""
        self._known.pop(task_id, None)

    def _add(self, known: _Known, calls: Iterable[CallRow]) -> None:
        provenance = known.provenance
        known.evidence.extend(evidence_of(calls))
        for call in calls:
            if call.outcome == CallOutcome.REJECTED:  # the person's reason: their own words
                # (not for what they refused; nor the tool's name the answer gives, which an
                # upstream MCP server chose: the reason alone, kept as the call's problem)
                provenance.add_trusted(call.problem or call.answer, but_not=_arguments_of(call))
                continue
            if call.tool == HAND_BACK or (
                    call.outcome != CallOutcome.DONE and not _in_its_words(call)):
                continue  # (the result handed back: nothing the model read)
            action = self._action_of(call.tool)
            outside: str | None
            if action is None:  # a tool since taken away: what it answered, the model read
                outside = "from a tool the app no longer has, which nothing vouches for"
            elif call.outcome == CallOutcome.DONE:
                outside = outside_reason(action, call.value)
            elif may_return_outside_content(action):  # a refusal in the tool's own words,
                outside = "outside content, in what the tool said as it refused"  # which may
            else:  # quote what it read (`untrusted=False` vouches for all a tool says)
                continue
            provenance.add(Seen(tool=call.tool, arguments=call.arguments, value=call.value,
                                text=call.answer, outside=outside))


def _arguments_of(call: CallRow) -> Any:
    """A call's arguments as the model wrote them (None when they are not JSON)."""
    try:
        return json.loads(call.arguments)
    except (ValueError, RecursionError):
        return None


_IN_ITS_WORDS = (CallOutcome.INVALID, CallOutcome.DENIED, CallOutcome.GONE, CallOutcome.FAILED,
                 CallOutcome.UNAVAILABLE, CallOutcome.UNKNOWN)
"""The outcomes of a call whose answer may be in the tool's own words (a refusal it raised, with
its message): the model reads them as it reads a result."""


def _in_its_words(call: CallRow) -> bool:
    """Whether the call's answer may be in its tool's own words (`_IN_ITS_WORDS`): an
    `Unknown` only with the message the tool raised (`OutcomeUnknown`), kept as its problem —
    without one, it is told in signoff's words that the work stopped while it ran; a refusal
    only when the tool's own code ran (signoff's own, of arguments that do not fit, a record
    the caller may not read, a budget, are in signoff's words)."""
    if call.outcome == CallOutcome.UNKNOWN:
        return bool(call.problem)
    return call.began and call.outcome in _IN_ITS_WORDS


_SETTLED = (CallOutcome.DONE, CallOutcome.REJECTED, *_IN_ITS_WORDS)
"""The outcomes of a call whose answer (or the person's reason) is seen: each is final."""


def evidence_of(calls: Iterable[CallRow]) -> list[Evidence]:
    """What those of `calls` that ran alone answered (the hand-back aside)."""
    return [Evidence(tool=c.tool, arguments=c.arguments, answer=c.answer) for c in calls
            if c.state == CallState.DONE and c.tool != HAND_BACK]


def trusted_text(conversation: Sequence[Message], subject_id: str | None,
                 subject_json: Any) -> list[str]:
    """A task's trusted text: its instructions and brief (the system messages and the first
    user message of its conversation), and its subject."""
    texts = [m.text for m in conversation if m.role == "system"]
    texts += [m.text for m in conversation if m.role == "user"][:1]
    if subject_id is not None:
        texts.append(subject_id)
    if subject_json is not None:
        texts.append(json.dumps(subject_json, ensure_ascii=False))  # (`Zoë`, not `Zo\u00eb`)
    return texts
