"""Edits: the values a decider changes as they say yes — which may change, and how a decision
says them. An edit changes argument values only, never the tool nor what the call acts on."""

from __future__ import annotations

import dataclasses
import json
import logging
import uuid
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from pydantic import BaseModel, TypeAdapter

from signoff.actions.model_json import half_character_in
from signoff.actions.nesting import TOO_DEEP, too_deep
from signoff.actions.parameters import Parameter, ParameterKind
from signoff.actions.registry import Actions
from signoff.agents.proposals import Proposal
from signoff.exceptions import EditRefused, Invalid, NotFound

__all__ = ["changed_values", "names_acted_on", "said_changed"]

log = logging.getLogger("signoff.agents")


def names_acted_on(proposal: Proposal, parameter: Parameter) -> bool:
    """Whether argument `parameter` of `proposal`'s call names what the call acts on, as its
    declaration and the proposal tell without running anything: a record (or records), an id
    (``UUID``), or a value the skill's `names` showed as something else (an id as "Ticket T-7").
    An edit never changes such an argument. (Records within a structure, and an argument the
    skill's `version_of` reads, are found as an edit is checked: `Decider.approve`.)"""
    if parameter.names_records or parameter.kind is ParameterKind.ID:
        return True
    if parameter.name not in proposal.arguments or parameter.name not in proposal.shown:
        return False
    value = proposal.arguments[parameter.name]
    as_text = value if isinstance(value, str) else json.dumps(value)
    return proposal.shown[parameter.name] != as_text


def changed_values(actions: Actions, proposal: Proposal, edited: Mapping[str, Any],
                   names: Callable[[str, str], str] | None = None) -> dict[str, Any]:
    """Those of the values `edited` that change `proposal`'s arguments, as JSON; `EditRefused`,
    in a sentence, for one that names no argument, cannot be written as JSON, or names what the
    call acts on (`names_acted_on`; a value `names`, the skill's, shows as something else, an
    argument the model left out included; or other records or ids within a structure).
    Whether they fit the tool is told where the call's values are read."""
    info = actions.info(proposal.action)
    parameters = {p.name for p in info.parameters}
    unknown = sorted(set(edited) - parameters)
    if unknown:
        raise EditRefused(f"{proposal.action} has no argument {_some_of(unknown)} to change "
                          f"(its arguments are {', '.join(sorted(parameters)) or 'none'}); the "
                          "tool itself cannot be changed.")
    given = {k: _as_json(k, v) for k, v in edited.items()}
    nul = [k for k, v in given.items() if _holds(v, _is_nul)]
    if nul:  # (a PostgreSQL text column refuses it as the call runs, and the yes is used up)
        raise EditRefused(f"The changed value of {', '.join(nul)} holds a NUL character "
                          "(U+0000), which the app's database cannot keep: give it without "
                          "one. Nothing was decided; the proposal still waits.")
    halves = [k for k, v in given.items() if half_character_in(v) is not None]
    if halves:  # (no database encodes it: the call failed as it ran, and the yes was used up)
        raise EditRefused(f"The changed value of {', '.join(halves)} holds half of a character "
                          "(a lone surrogate, such as U+D800), which cannot be written alone: "
                          "send the text whole. Nothing was decided; the proposal still waits.")
    changed = {k: v for k, v in given.items() if proposal.arguments.get(k) != v}
    acted_on = [p.name for p in info.parameters if p.name in changed and (
        names_acted_on(proposal, p) or _named_otherwise(names, p.name, changed[p.name]))]
    holding = [p.name for p in info.parameters if p.name in changed and not p.names_records
               and p.kind in _HOLDING]  # a structure that may name records, or ids, within
    if holding and not acted_on:
        acted_on = _moved_records(actions, proposal, holding, changed)
    if acted_on:
        raise EditRefused(f"An edit changes argument values only: {', '.join(acted_on)} "
                          f"names what {proposal.action} acts on, which an edit cannot "
                          "change. Reject it with the reason instead; the agent is told and "
                          "may propose again.")
    if holding:
        dropped = _dropped_members(actions, proposal, holding, changed)
        if dropped:  # (the decision would say it changed what never runs)
            raise EditRefused(
                f"The changed values give {', '.join(dropped)}, which {proposal.action} does "
                "not take (its structure has no such member, and would drop it): give only "
                "the members it has. Nothing was decided; the proposal still waits.")
    return changed


def said_changed(changed: dict[str, Any]) -> str:
    """The values a decider changed, as a decision's words say them (" with price changed to
    40"); "" for none."""
    if not changed:
        return ""
    return " with " + ", ".join(f"{k} changed to {json.dumps(v)}" for k, v in changed.items())


def _some_of(names: list[str]) -> str:
    """`names` as a sentence says them: the first `_MOST_NAMED`, each cut past `_LONGEST_NAME`
    characters, and how many more (a yes naming 80,000 arguments the tool has not was refused
    in a sentence of half a megabyte, kept whole in the log and said whole by the CLI)."""
    shown = [n if len(n) <= _LONGEST_NAME else f"{n[:_LONGEST_NAME]}… ({len(n):,} characters)"
             for n in names[:_MOST_NAMED]]
    more = len(names) - len(shown)
    return ", ".join(shown) + (f" (and {more:,} more)" if more else "")


_MOST_NAMED = 20
"""The most names of arguments a refusal names (as the web's 422 names the first 20 values)."""

_LONGEST_NAME = 80
"""The most characters of one name a refusal says."""


_HOLDING = (ParameterKind.STRUCTURE, ParameterKind.SEQUENCE)
"""The kinds of argument that may hold records, or ids of them, within."""


def _is_nul(text: str) -> bool:
    """Whether `text` holds a NUL character."""
    return "\x00" in text


def _holds(value: Any, bad: Callable[[str], bool]) -> bool:
    """Whether a value as JSON reads holds a text `bad` finds, as a text or an object's key."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if bad(item):
                return True
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False


def _named_otherwise(names: Callable[[str, str], str] | None, argument: str, value: Any
                     ) -> bool:
    """Whether the skill's `names` shows `value` of `argument` as something else than itself
    (a code as "the tag coded b"): then it names what the call acts on, though the proposal
    never showed it (the model left that argument to its default). When `names` raises,
    whether it does cannot be told: the edit is refused, in a sentence (the traceback goes to
    the log)."""
    if names is None:
        return False
    as_text = value if isinstance(value, str) else json.dumps(value)
    try:
        return names(argument, as_text) != as_text
    except Exception as error:  # the app's own code: the edit is not let through unchecked
        log.error("The skill's names raised %s as a changed %s was checked",
                  type(error).__name__, argument, exc_info=True)
        raise EditRefused(
            f"The skill's names raised {type(error).__name__} for the changed {argument}, so "
            "whether it names what the call acts on (which an edit cannot change) cannot be "
            "checked: nothing was decided, and the proposal still waits. The app's log has the "
            "traceback; approve it as proposed, or reject it with the reason.") from None


def _as_json(name: str, value: Any) -> Any:
    """A changed value as JSON reads it; refused, in a sentence, when it cannot be written as
    JSON (nested too deeply, holding itself, or holding NaN or Infinity, which no database
    keeps as JSON): nothing is decided."""
    try:
        read = json.loads(json.dumps(value, default=str)) if not too_deep({name: value}) else (
            _UNWRITABLE)
    except (ValueError, RecursionError):  # it holds itself, or nests deeper than is told
        read = _UNWRITABLE
    if read is _UNWRITABLE:
        raise EditRefused(f"The changed value of {name} is {TOO_DEEP}, or holds itself: give it "
                          "as plain values (text, numbers, and lists and objects of them). "
                          "Nothing was decided; the proposal still waits.")
    try:
        json.dumps(read, allow_nan=False)
    except ValueError:
        raise EditRefused(f"The changed value of {name} holds NaN or Infinity, which is no "
                          "number JSON can keep: give a finite number. Nothing was decided; the "
                          "proposal still waits.") from None
    return read


_UNWRITABLE = object()
"""A changed value that cannot be written as JSON."""


def _moved_records(actions: Actions, proposal: Proposal, names: list[str],
                   changed: dict[str, Any]) -> list[str]:
    """Those of arguments `names` whose `changed` values name other records (or ids) than the
    proposal's, within a structure or a sequence; values that do not fit are left to be told
    where the call's values are read."""
    try:
        before = actions.values_from_json(proposal.action, json.dumps(proposal.arguments))
        after = actions.values_from_json(
            proposal.action, json.dumps({**proposal.arguments, **changed}))
    except (Invalid, NotFound):
        return []
    return [n for n in names if set(_record_ids(before.get(n))) != set(
        _record_ids(after.get(n)))]


def _dropped_members(actions: Actions, proposal: Proposal, names: list[str],
                     changed: dict[str, Any]) -> list[str]:
    """The members (``lines[0].price``) that `changed` values of arguments `names` (structures
    and sequences) give, and that reading them for the call drops (a pydantic model's default
    is to ignore a member it has no field for), save those the proposed value gave too (the
    model's, kept as they were). Values that do not fit are left to be told where the call's
    values are read."""
    try:
        after = actions.values_from_json(
            proposal.action, json.dumps({**proposal.arguments, **changed}))
    except (Invalid, NotFound):
        return []
    fields = actions.get(proposal.action).model.model_fields
    dropped: list[str] = []
    for name in names:
        if name not in fields:
            continue
        adapter: TypeAdapter[Any] = TypeAdapter(fields[name].annotation or Any)
        try:
            kept = [adapter.dump_python(after[name], mode="json", by_alias=alias)
                    for alias in (False, True)]
        except Exception:  # (a value its own type cannot write back: nothing can be told)
            log.debug("The changed %s of %s could not be written back to be compared", name,
                      proposal.action, exc_info=True)
            continue
        given = set(_members_missing(changed[name], kept, name))
        if name in proposal.arguments:
            given -= set(_members_missing(proposal.arguments[name], kept, name))
        dropped.extend(sorted(given))
    return dropped


def _members_missing(given: Any, kept: list[Any], at: str) -> Iterator[str]:
    """Where `given` (JSON) has an object's member that none of `kept` (the same value as read,
    written back by name and by alias) has at the same place."""
    if isinstance(given, dict):
        for key, inner in given.items():
            within = [k[key] for k in kept if isinstance(k, dict) and key in k]
            if not within and any(isinstance(k, dict) for k in kept):
                yield f"{at}.{key}"
            elif within:
                yield from _members_missing(inner, within, f"{at}.{key}")
    elif isinstance(given, list):
        lists = [k for k in kept if isinstance(k, list) and len(k) == len(given)]
        for i, inner in enumerate(given):
            yield from _members_missing(inner, [k[i] for k in lists], f"{at}[{i}]")


def _record_ids(value: Any) -> Iterator[uuid.UUID]:
    """The ids within a value read for a call (a record stands as its id there)."""
    if isinstance(value, uuid.UUID):
        yield value
    elif isinstance(value, BaseModel):
        for inner in value.__dict__.values():
            yield from _record_ids(inner)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            yield from _record_ids(getattr(value, field.name))
    elif isinstance(value, dict):
        for inner in value.values():
            yield from _record_ids(inner)
    elif isinstance(value, list | tuple | set | frozenset):
        for inner in value:
            yield from _record_ids(inner)
