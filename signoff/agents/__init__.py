"""Agents: the gate, proposals, durable waits, standing rules and receipts."""

from signoff.agents.agency import Agency, AgentHandle, SkillLeave, Skills
from signoff.agents.agent import Agent
from signoff.agents.deadlines import DeadlineOutcome, DeadlinePassed
from signoff.agents.events import AgentProposalDecided, AgentProposed, AgentTaskWaiting, NotTold
from signoff.agents.gate import Verdict, gate
from signoff.agents.model_specs import ModelSpec
from signoff.agents.oversight import Oversight
from signoff.agents.permits import Leave, Permits
from signoff.agents.proposals import Decision, Evidence, Proposal, ProposalStatus
from signoff.agents.receipts import Receipt, ReceiptEntry
from signoff.agents.rules import StandingRule, rule_covers
from signoff.agents.skills import Route, Skill
from signoff.agents.states import CallOutcome, CallState, ReceiptKind
from signoff.agents.steps import Step
from signoff.agents.tasks import Outcome, TaskStatus

__all__ = [
    "Agency",
    "Agent",
    "AgentHandle",
    "AgentProposalDecided",
    "AgentProposed",
    "AgentTaskWaiting",
    "CallOutcome",
    "CallState",
    "DeadlineOutcome",
    "DeadlinePassed",
    "Decision",
    "Evidence",
    "Leave",
    "ModelSpec",
    "NotTold",
    "Outcome",
    "Oversight",
    "Permits",
    "Proposal",
    "ProposalStatus",
    "Receipt",
    "ReceiptEntry",
    "ReceiptKind",
    "Route",
    "Skill",
    "SkillLeave",
    "Skills",
    "StandingRule",
    "Step",
    "TaskStatus",
    "Verdict",
    "gate",
    "rule_covers",
]
