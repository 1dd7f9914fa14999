"""Actions: what an app offers to be done, by name, under its ordinary security."""

from signoff.actions.catalog import Action, ActionInfo
from signoff.actions.cause import current_cause
from signoff.actions.declare import ActionFunction, Choices, FreeText, Label, Provided, action
from signoff.actions.parameters import Parameter, ParameterKind
from signoff.actions.registry import Actions
from signoff.actions.results import FAILED_TEXT, ActionOutcome, ActionResult
from signoff.actions.running import RunContext
from signoff.effects import Effect, EffectKind, Effects, sends, spends

__all__ = [
    "FAILED_TEXT",
    "Action",
    "ActionFunction",
    "ActionInfo",
    "ActionOutcome",
    "ActionResult",
    "Actions",
    "Choices",
    "Effect",
    "EffectKind",
    "Effects",
    "FreeText",
    "Label",
    "Parameter",
    "ParameterKind",
    "Provided",
    "RunContext",
    "action",
    "current_cause",
    "sends",
    "spends",
]
