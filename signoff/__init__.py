"""signoff: run tool-using AI agents inside hard guardrails.

An app marks functions as actions; they run by name under someone's ordinary security, with
refusals told in the app's own words.
"""

from signoff.actions import (
    FAILED_TEXT,
    ActionFunction,
    ActionInfo,
    ActionOutcome,
    ActionResult,
    Choices,
    Effect,
    EffectKind,
    Effects,
    Label,
    Parameter,
    ParameterKind,
    Provided,
    RunContext,
    action,
    current_cause,
    sends,
    spends,
)
from signoff.app import App
from signoff.exceptions import (
    Conflict,
    ConsentError,
    Invalid,
    NotAuthorized,
    NotFound,
    ReadOnlyViolation,
    Refusal,
    SignoffError,
    UserError,
)
from signoff.security import SYSTEM, ActingAs, Policy, Principal, PrincipalKind, allow, deny
from signoff.security import policies as policy

__all__ = [
    "FAILED_TEXT",
    "SYSTEM",
    "ActingAs",
    "ActionFunction",
    "ActionInfo",
    "ActionOutcome",
    "ActionResult",
    "App",
    "Choices",
    "Conflict",
    "ConsentError",
    "Effect",
    "EffectKind",
    "Effects",
    "Invalid",
    "Label",
    "NotAuthorized",
    "NotFound",
    "Parameter",
    "ParameterKind",
    "Policy",
    "Principal",
    "PrincipalKind",
    "Provided",
    "ReadOnlyViolation",
    "Refusal",
    "RunContext",
    "SignoffError",
    "UserError",
    "action",
    "allow",
    "current_cause",
    "deny",
    "policy",
    "sends",
    "spends",
]
