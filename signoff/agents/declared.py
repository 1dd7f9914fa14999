"""What an agent class declares, checked: its skills, words, limits, model and roles, and a
task's subject and limits as given, each refused with a `UserError` that says what to do."""

from __future__ import annotations

import math
import numbers
from decimal import Decimal
from typing import Any

from signoff.agents.agent import Agent
from signoff.agents.model_specs import ModelSpec
from signoff.agents.permits import Permits
from signoff.agents.skills import Skill
from signoff.exceptions import UserError
from signoff.models.base import Model, Price

__all__ = [
    "MAX_OUTPUT_TOKENS",
    "MAX_STEPS",
    "check_declared",
    "check_limits",
    "check_output_tokens",
    "check_types",
    "check_words",
    "checked_model",
    "checked_subject",
    "dollars_kept",
    "role_names",
    "shown",
]


def checked_model(model: Model) -> Model:
    """`model`, when what it says of itself can be kept with a task: its name, as text, and its
    price, a `Price` or None; `UserError` naming the attribute otherwise (a name of None failed
    the task's insert as a database error; a price of another kind, the first reservation)."""
    kind = type(model).__name__
    name = model.name
    if not isinstance(name, str) or not name.strip():
        raise UserError(f"{kind}.name is the model's name as receipts show it, as text "
                        f"(name = \"my-model\"), not {shown(name)}.")
    price = model.price
    if price is not None and not isinstance(price, Price):
        raise UserError(f"{kind}.price is what the model costs, a Price (Price("
                        f"input_per_mtok=0.15, output_per_mtok=0.60); 0 and 0 for a free one), "
                        f"or None when it is not known, not {shown(price)}.")
    return model


def check_declared(agent: type[Agent]) -> None:
    """`UserError` for what an agent class declares that no task of it could use: skills not
    given as a list of instances (a class, a name), limits no task could keep, a model of no
    kind signoff takes. Checked as the agent is registered, not at its first task."""
    skills = agent.skills
    if not isinstance(skills, list | tuple):
        raise UserError(f"{agent.__name__}.skills is a list of its skills' instances "
                        f"(skills = [EstimateRepair()]), not {skills!r}.")
    for own in skills:
        if not isinstance(own, Skill):
            raise UserError(f"{agent.__name__}.skills holds {own!r}: give each skill as an "
                            "instance (EstimateRepair(), not EstimateRepair or its name).")
    named: dict[str, Skill[Any, Any]] = {}
    for own in skills:
        first = named.setdefault(own.name, own)
        if first is not own:  # a task keeps its skill by name: it would go on as the first
            raise UserError(
                f"{agent.__name__}.skills holds two skills named {own.name} ("
                + (f"{type(own).__qualname__} twice" if type(first) is type(own) else
                   f"{type(first).__qualname__} of {type(first).__module__} and "
                   f"{type(own).__qualname__} of {type(own).__module__}")
                + "): a task keeps its skill by name, and would go on as the first of them. "
                "Give each skill once, with a class name of its own.")
    if isinstance(agent.purpose, str) and not agent.purpose.strip():
        raise UserError(f"{agent.__name__} has no purpose: say what it is for, as the model is "
                        "told (purpose = \"You estimate bicycle repairs for a workshop.\").")
    for own in skills:
        check_types(own)
    if not isinstance(agent.may, Permits):
        raise UserError(f"{agent.__name__}.may is a Permits (may = Permits(...)), not "
                        f"{agent.may!r}.")
    check_limits(agent.max_steps, agent.budget_usd)
    check_output_tokens(agent)
    for own in skills:
        check_words(agent, own)
    if agent.model is not None and not isinstance(agent.model, Model | ModelSpec | str):
        raise UserError(f"{agent.__name__}.model takes a Model, a ModelSpec, or a model named in "
                        f"words (\"openai:gpt-4o-mini\"), not {agent.model!r}.")
    if isinstance(agent.model, Model):
        checked_model(agent.model)
    role_names(agent.roles, whose=f"{agent.__name__}.roles")
    if not skills:  # (a task names one of its skills: it could be given none)
        raise UserError(f"{agent.__name__} has no skills, so no task could be given it: list "
                        "the kinds of work it does (skills = [EstimateRepair()]).")


def check_types(skill: Skill[Any, Any]) -> None:
    """`UserError` for a skill whose subject or result type cannot be described as JSON: its
    first task failed with pydantic's own error, as it began."""
    from pydantic import PydanticSchemaGenerationError, PydanticUserError, TypeAdapter

    from signoff.security.records import RecordBase

    subject, result = skill.types()
    for which, given in (("subject", subject), ("result", result)):
        if which == "subject" and (given in (None, type(None)) or (
                isinstance(given, type) and issubclass(given, RecordBase))):
            continue
        try:
            TypeAdapter(given).json_schema()
        except (PydanticSchemaGenerationError, PydanticUserError, TypeError) as error:
            named = getattr(given, "__name__", None) or shown(given)
            raise UserError(
                f"{type(skill).__name__}'s {which} type, {named}, cannot be described as JSON "
                f"({type(error).__name__}): make it a pydantic model, a dataclass, a TypedDict "
                "or a plain type (str, int, list[str], …)"
                + (", or a record of the app's." if which == "subject" else ".")) from None


def role_names(roles: Any, *, whose: str = "roles") -> frozenset[str]:
    """The roles an agent declares for its account, as a set of names: one name given alone is
    that role (not one role per letter); `UserError`, naming `whose`, for anything else."""
    given = [roles] if isinstance(roles, str) else roles
    if not isinstance(given, list | tuple | set | frozenset) or not all(
            isinstance(role, str) and role.strip() for role in given):
        raise UserError(f"{whose} are the roles of the agent's own account, names as text "
                        f"(roles = [\"helper\"]), not {shown(roles)}.")
    return frozenset(given)


def check_words(agent: type[Agent], skill: Skill[Any, Any]) -> None:
    """`UserError` for words the model is told that are not text: the agent's `purpose` and
    `instructions`, the skill's `description` (one of None failed every task of it with an
    AttributeError as it began). The skill's tools are checked as they are named."""
    for whose, words in ((f"{agent.__name__}.purpose", agent.purpose),
                         (f"{agent.__name__}.instructions", agent.instructions),
                         (f"{type(skill).__name__}.description", skill.description)):
        if not isinstance(words, str):
            empty = "" if whose.endswith(".purpose") else " (\"\" for nothing)"
            raise UserError(f"{whose} is what the model is told, as text{empty}, "
                            f"not {shown(words)}.")
    skill.tool_names  # noqa: B018 (its tools are a list of actions: `UserError` otherwise)


MAX_STEPS = 1_000_000
"""The most model calls a task may be given (`max_steps`, ``--max-steps``): more than any budget
pays for, and well within what a task's row keeps (past 64 bits it could keep none)."""


def check_limits(max_steps: Any, budget_usd: Any) -> None:
    """`UserError` for limits that no task could keep (given to `do`, or declared on the agent):
    no step at all, or more than `MAX_STEPS`; a budget that is not a number of dollars, none or
    more (``float("inf")``: no budget), or one that a task's budget, kept as a float, would not
    keep as given (a finite number too large for a float, which read as no budget or failed;
    one above 0 too small for a float, which read as 0 and halted before the first step)."""
    if isinstance(max_steps, bool) or not isinstance(max_steps, numbers.Integral) or (
            max_steps < 1):
        raise UserError(f"max_steps must be a whole number of model calls, 1 or more, not "
                        f"{shown(max_steps)}.")
    if int(max_steps) > MAX_STEPS:
        raise UserError(f"max_steps must be at most {MAX_STEPS:,} model calls (more than any "
                        f"budget pays for), not {shown(max_steps)}: give fewer, such as 8.")
    kept = dollars_kept(budget_usd)
    if kept is None:
        raise UserError(f"budget_usd must be a number of US dollars, 0 or more (float('inf') "
                        f"for no budget), not {shown(budget_usd)}.")
    if math.isinf(kept) and not budget_usd == math.inf:
        raise UserError(f"budget_usd {shown(budget_usd)} is more US dollars than a task's "
                        "budget can keep (it is kept as a float): give float('inf') for no "
                        "budget, or a smaller number.")
    if kept == 0 and budget_usd != 0:
        raise UserError(f"budget_usd {shown(budget_usd)} is above 0, but too small for a "
                        "task's budget, which is kept as a float, to keep: it would read as 0 "
                        "and halt the task before its first step. Give a budget such as 0.50.")


MAX_OUTPUT_TOKENS = 1_000_000
"""The most tokens one model answer may be given (`Agent.max_output_tokens`): more than any
model writes in one answer."""


def check_output_tokens(agent: type[Agent]) -> None:
    """`UserError` for a `max_output_tokens` no model call could keep: below 1 (each call's
    reservation left out what it writes, or went below 0, so that the budget was passed unseen),
    not a whole number, or more than `MAX_OUTPUT_TOKENS`."""
    tokens = agent.max_output_tokens
    if isinstance(tokens, bool) or not isinstance(tokens, numbers.Integral) or tokens < 1:
        raise UserError(f"{agent.__name__}.max_output_tokens must be a whole number of tokens, "
                        f"1 or more, not {shown(tokens)}: the most one model answer may have, "
                        "such as 1024.")
    if int(tokens) > MAX_OUTPUT_TOKENS:
        raise UserError(f"{agent.__name__}.max_output_tokens must be at most "
                        f"{MAX_OUTPUT_TOKENS:,} tokens (more than any model writes in one "
                        f"answer), not {shown(tokens)}: give fewer, such as 1024.")


def dollars_kept(budget: Any) -> float | None:
    """`budget` as a task keeps it, a float (infinite when it does not fit one); None when it
    is not a number of dollars, 0 or more (NaN, of either kind, is none)."""
    if isinstance(budget, bool) or not isinstance(budget, numbers.Real | Decimal):
        return None
    if isinstance(budget, Decimal) and budget.is_nan():  # (a signalling one cannot be compared)
        return None
    try:
        kept = float(budget)
    except OverflowError:  # (an int or a fraction past a float's range)
        kept = math.inf
    except (TypeError, ValueError):
        return None
    return None if math.isnan(kept) or budget < 0 else kept


def shown(value: Any) -> str:
    """`value` as a message names it: its repr, cut short when it is long (10**400)."""
    shown = repr(value)
    return shown if len(shown) <= 40 else f"{shown[:20]}…{shown[-8:]} ({len(shown)} characters)"


def checked_subject(skill: Skill[Any, Any], subject: Any) -> Any:
    """The subject, if it is what the skill works on (a record of its type, or a value that
    validates as its plain type); a `UserError` naming both otherwise."""
    from pydantic import TypeAdapter, ValidationError

    from signoff.security.records import RecordBase

    subject_type, _ = skill.types()
    wanted = getattr(subject_type, "__name__", repr(subject_type))
    if subject_type in (None, type(None)):
        if subject is not None:
            raise UserError(f"{skill.name} works on nothing; do it with no subject.")
        return None
    if isinstance(subject_type, type) and issubclass(subject_type, RecordBase):
        if not isinstance(subject, subject_type):
            raise UserError(f"{skill.name} works on a {wanted} record, not {subject!r}.")
        return subject
    try:
        return TypeAdapter(subject_type).validate_python(subject)
    except ValidationError as error:
        raise UserError(f"{skill.name} works on a {wanted}: {error.errors()[0]['msg']}.") from None
