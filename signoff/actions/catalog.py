"""What an app offers, as callers and models read it: ``ActionInfo`` for each action."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, TypeAdapter

from signoff.actions.declare import ActionFunction, ActionOptions
from signoff.actions.parameters import Parameter
from signoff.effects import EffectKind, Effects

__all__ = ["Action", "ActionInfo"]


@dataclass(frozen=True, kw_only=True)
class ActionInfo:
    """Everything a caller or a model needs to know of one action."""

    name: str
    """The name it is offered by."""
    label: str
    """How it reads to a person ("Set the rush")."""
    description: str
    """Its docstring."""
    subject: type | None
    """The record type it acts on (its first parameter, when that is a record), or None."""
    parameters: tuple[Parameter, ...]
    """What a caller gives, in order (the subject first; context parameters left out)."""
    effects: Effects
    """What it reads, creates, changes, deletes, sends, spends or reaches, found in its code."""
    query: bool
    """Whether it only reads (declared, and confirmed by the analysis)."""
    idempotent: bool
    """Whether it is safe to run again when a crash left its outcome unknown."""
    parameters_schema: dict[str, Any]
    """The JSON Schema of the one JSON object that gives its values."""
    result_schema: dict[str, Any] | None
    """The JSON Schema of its value, or None when it declares no result."""

    @property
    def reads_as(self) -> str:
        """The action as a person reads it in a catalogue: "Set the rush (How soon)"."""
        shown = [p for p in self.parameters if not p.is_subject and p.listed]
        needed = [p.label for p in shown if not p.optional]
        optional = [p.label for p in shown if p.optional]
        inside = ", ".join(needed)
        if optional:
            inside = f"{inside}; optional: {', '.join(optional)}" if inside else (
                f"optional: {', '.join(optional)}"
            )
        return f"{self.label} ({inside})" if inside else self.label

    def parameter(self, name: str) -> Parameter:
        """The parameter called `name` (a KeyError when there is none)."""
        for p in self.parameters:
            if p.name == name:
                return p
        raise KeyError(name)


@dataclass(frozen=True, kw_only=True)
class Action:
    """A registered action: what is offered, and what it takes to run it."""

    info: ActionInfo
    """What callers see."""
    function: ActionFunction[..., Any]
    """The marked function."""
    options: ActionOptions
    """What its declaration said."""
    all_parameters: tuple[Parameter, ...]
    """Every parameter, context parameters included, in order."""
    model: type[BaseModel]
    """Validates what a caller gives."""
    result: TypeAdapter[Any] | None
    """Turns what it returns into JSON."""

    @property
    def name(self) -> str:
        """The name it is offered by."""
        return self.info.name

    @property
    def call(self) -> Callable[..., Any]:
        """The function itself, unwrapped."""
        return self.function.__wrapped__

    @property
    def doing(self) -> str:
        """The action as what someone does, for a sentence ("Mia may not …"): its label, a verb
        phrase ("Read the salaries" → "read the salaries"); with no label of its own, "run" and
        its name (a label made from a name may be no verb: "may not payroll")."""
        label = self.options.label
        return f"{label[:1].lower()}{label[1:]}" if label else f"run {self.name}"

    @functools.cached_property
    def takes_plain_data(self) -> bool:
        """Whether it runs without an ORM session: each of its parameters takes plain data
        (text, a number, a date, a choice, or a list or dict of them: nothing that is or may
        hold a record, which is looked up through the session as whoever the run is for), and
        none is filled by the app (a provider is given the session). Worked out once: a loop
        asks at every call."""
        return all(p.provided is None and p.takes_plain_data for p in self.all_parameters)

    @functools.cached_property
    def reaches_out_only(self) -> bool:
        """Whether it reaches outside (or sends, or spends) and cannot write a record in its
        run's transaction: its effects name no record it creates, changes or deletes, and no
        change that is only assumed (code the analysis could not see may write records; a
        change it saw of other state — a parameter, a global — writes none); or it is given
        nothing of the run's transaction (`takes_plain_data`), so that whatever it writes, it
        writes elsewhere."""
        effects = self.info.effects
        if not (effects.external or effects.sends or effects.spends):
            return False
        if self.takes_plain_data:
            return True
        assumed = any(e.kind is EffectKind.CHANGES and e.reason for e in effects.effects)
        return not effects.creates and not effects.deletes and not (
            effects.changes - {""}) and not assumed
