"""Agents: a purpose, skills, permits, its own account, a model, and hard limits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from signoff.agents.permits import Permits
from signoff.agents.skills import Skill, snake_case
from signoff.exceptions import UserError
from signoff.models.base import Model
from signoff.security.principals import AGENTS_DOMAIN, Principal

if TYPE_CHECKING:
    from signoff.agents.model_specs import ModelSpec

__all__ = ["Agent", "Registered"]


class Agent:
    """An agent, declared as a class:

    ``class Estimator(Agent): purpose = "..."; skills = [EstimateRepair()]; may = Permits(...)``
    """

    purpose: ClassVar[str] = ""
    """What the agent is for, as the model is told (an agent without one is refused as it is
    registered)."""
    skills: ClassVar[list[Skill]] = []  # type: ignore[type-arg]
    """The kinds of work it does."""
    may: ClassVar[Permits] = Permits()
    """What it may do alone, must propose, or never does."""
    roles: ClassVar[list[str]] = []
    """The roles of its own account."""
    model: ClassVar[Model | ModelSpec | str | None] = None
    """The model it uses unless a task says otherwise: a `Model`, or one named as a spec names
    it (``"openai:gpt-4o-mini"``, a `ModelSpec`), made when a task starts and kept with the
    task, so that a worker in another process can make it again."""
    max_steps: ClassVar[int] = 20
    """The most model calls a task may make."""
    budget_usd: ClassVar[float] = 1.0
    """The most a task may spend on model calls and spending tools, in US dollars."""
    max_output_tokens: ClassVar[int] = 1024
    """The most tokens one model answer may have (reserved before each call)."""
    instructions: ClassVar[str] = ""
    """Further instructions the app gives it (part of what a proposal's fingerprint covers)."""

    @classmethod
    def agent_name(cls) -> str:
        """The agent's name: ``Estimator`` → ``estimator``."""
        return snake_case(cls.__name__)

    @classmethod
    def account_handle(cls) -> str:
        """The handle of the agent's own account."""
        return f"{cls.agent_name()}{AGENTS_DOMAIN}"

    @classmethod
    def skill(cls, skill: Skill | type[Skill] | str) -> Skill:  # type: ignore[type-arg]
        """This agent's skill given as an instance, a class or a name."""
        for own in cls.skills:
            if skill is own or (isinstance(skill, type) and isinstance(own, skill)) or (
                isinstance(skill, str) and own.name == skill
            ) or (isinstance(skill, Skill) and type(skill) is type(own)):
                return own
        skills = ", ".join(own.name for own in cls.skills) or "none"
        raise NoSuchSkill(f"{cls.__name__} has no skill {_skill_shown(skill)}; its skills are: "
                          f"{skills}.")


def _skill_shown(skill: object) -> str:
    """A skill as a message names it: an instance or a class by its skill's name (not a repr
    with an address in memory), anything else by its repr, cut short."""
    from signoff.agents.declared import shown  # (it imports this module)

    if isinstance(skill, Skill):
        return f"{skill.name} (a {type(skill).__name__})"
    if isinstance(skill, type) and issubclass(skill, Skill):
        return skill.__name__
    return shown(skill)


class NoSuchSkill(UserError, LookupError):
    """An agent asked for a skill it does not have (a `UserError` with the sentence; a
    `LookupError` too, as it was)."""


@dataclass(frozen=True, kw_only=True)
class Registered:
    """An agent the app knows, with its own account and its sponsor."""

    agent: type[Agent]
    """The agent's class."""
    account: Principal
    """Its own account."""
    sponsor: Principal | None
    """The person who answers for it (decides proposals of work for nobody)."""
