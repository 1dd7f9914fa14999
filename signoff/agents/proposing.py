"""A proposal as a call makes it: the exact call, who decides it (as its skill routes it), and
its fingerprint, which a decision checks against how things read when it is taken."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from signoff.actions.catalog import Action
from signoff.agents import repository as repo
from signoff.agents.proposals import Proposal, ProposalStatus, fingerprint
from signoff.agents.skills import Skill

__all__ = ["Routing", "fingerprint_of", "proposal_of"]


@dataclass(frozen=True, kw_only=True)
class Routing:
    """Who decides a proposal of a tool, as its skill routes it."""

    person_id: str | None
    """The person who decides, when one does."""
    queue: str | None
    """The queue that decides, when one does."""
    routed: bool
    """Whether the skill routed it (the person the work is for then does not decide)."""
    within: timedelta | None = None
    """How long it waits for them (None: as long as it takes)."""


def proposal_of(task: repo.TaskRow, skill: Skill[Any, Any], action: Action, call: repo.CallRow,
                arguments: dict[str, Any], routing: Routing, instructions: str) -> Proposal:
    """The proposal of `call`, fingerprinted under `instructions` (its evidence is added as it
    is written). The skill's names and versions may read records."""
    made_at = repo.now()
    proposal = Proposal(
        id=repo.new_id(), task=task.id, agent=task.agent, skill=task.skill,
        skill_version=skill.version, action=call.tool, label=action.info.label,
        effects=tuple(action.info.effects.explain()), arguments=arguments,
        shown={k: skill.names(call.tool, k, _text(v)) for k, v in arguments.items()},
        why=call.why, evidence=(), subject_version=skill.version_of(call.tool, arguments),
        fingerprint="", decide_by="", decide_person_id=routing.person_id,
        decide_queue=routing.queue, routed=routing.routed, for_id=task.for_id,
        status=ProposalStatus.WAITING, created_at=made_at,
        deadline_at=made_at + routing.within if routing.within is not None else None,
    )
    return dataclasses.replace(proposal, fingerprint=fingerprint_of(proposal, instructions))


def fingerprint_of(proposal: Proposal, instructions: str, arguments: dict[str, Any] | None = None,
                   subject_version: str | None = None, skill_version: str | None = None) -> str:
    """The fingerprint of a proposal: agent, skill and version, tool, arguments, subject version
    and the instruction set."""
    return fingerprint({
        "agent": proposal.agent, "skill": proposal.skill,
        "skill_version": skill_version if skill_version is not None else proposal.skill_version,
        "tool": proposal.action,
        "arguments": arguments if arguments is not None else proposal.arguments,
        "subject_version": subject_version if subject_version is not None
        else proposal.subject_version,
        "instructions": instructions,
    })


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)
