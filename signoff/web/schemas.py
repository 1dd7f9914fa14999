"""What the REST API takes and gives, as pydantic models (its OpenAPI comes from these)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from signoff.actions.catalog import ActionInfo
from signoff.agents.agency import SkillLeave
from signoff.agents.oversight import MAX_REASON
from signoff.agents.proposals import Decision, Proposal, ProposalStatus
from signoff.agents.receipts import Receipt
from signoff.agents.rules import StandingRule
from signoff.agents.tasks import Outcome, TaskStatus
from signoff.inbox import Freshness, TaskSummary
from signoff.limits.provenance import Origin
from signoff.security.principals import Principal

__all__ = [
    "ActionOut",
    "ActionPage",
    "ApproveIn",
    "DecisionOut",
    "EvidenceOut",
    "LabelOut",
    "MeOut",
    "OutcomeOut",
    "ProposalOut",
    "ProposalPage",
    "ReceiptEntryOut",
    "ReceiptOut",
    "RejectIn",
    "RevokeIn",
    "RuleOut",
    "RulePage",
    "SkillLeaveOut",
    "SkillLeavePage",
    "StopIn",
    "TaskOut",
    "TaskPage",
    "asked_of",
]

_ANY: TypeAdapter[Any] = TypeAdapter(Any)


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")

    asked: ClassVar[str] = ""
    """What to send as the body, in words a problem says after "send" (`asked_of`; left empty,
    the problem says a JSON object of the operation's fields)."""


def asked_of(route: object) -> str:
    """What the body of the operation at `route` (a request's, from its scope) is, in words
    (`_In.asked`); "" for a route taking no body of the API's."""
    for param in getattr(getattr(route, "dependant", None), "body_params", ()):
        annotation = param.field_info.annotation
        for kind in (annotation, *get_args(annotation)):  # (`ApproveIn | None`: ApproveIn)
            if isinstance(kind, type) and issubclass(kind, _In):
                return kind.asked
    return ""


class ApproveIn(_In):
    """A yes."""

    asked = ('a JSON object whose fields may each be left out, always (true or false) and '
             'edited (an object of the argument values to change), such as {"always": true}; '
             'or no body at all, for a plain yes')

    always: bool = Field(False, description="Also let the agent run this tool alone from now on, "
                                            "in the work this proposal is in (a standing rule).")
    edited: dict[str, Any] | None = Field(None, description="Argument values to change before it "
                                                             "runs (never the tool).")


class RejectIn(_In):
    """A no, with the reason the agent is told."""

    asked = ('a JSON object with the reason for your no (the agent is told it), such as '
             '{"reason": "Quote the cable separately."}')

    reason: str = Field(min_length=1, max_length=MAX_REASON, pattern=r"\S",
                        description="Why not; the agent is told it.")


class RevokeIn(_In):
    """Taking a standing rule back."""

    asked = ('a JSON object with why it is taken back, which may be left out, such as '
             '{"why": "Prices went up."}; or no body at all')

    why: str = Field("", max_length=MAX_REASON, description="Why it is taken back.")


class StopIn(_In):
    """Stopping a task."""

    asked = ('a JSON object with why it is stopped, which may be left out, such as '
             '{"reason": "Not needed."}; or no body at all')

    reason: str = Field("", max_length=MAX_REASON, description="Why it is stopped: its "
                        "receipt keeps it.")


class MeOut(BaseModel):
    """Who the token is for."""

    id: str
    handle: str
    name: str
    roles: list[str]
    supervises: bool

    @staticmethod
    def of(person: Principal, *, supervises: bool) -> MeOut:
        """From a principal."""
        return MeOut(id=person.id, handle=person.handle, name=person.name,
                     roles=sorted(person.roles), supervises=supervises)


class _Out(BaseModel):
    """An answer read straight from the library's object of the same fields."""

    model_config = ConfigDict(from_attributes=True)


class EvidenceOut(_Out):
    """A tool the task ran before it proposed, with what came back."""

    tool: str
    arguments: str
    answer: str


class LabelOut(_Out):
    """An argument outside content may have steered, and the result it came from."""

    argument: str
    value: str
    origin: Origin
    source: str
    words: str


class ProposalOut(_Out):
    """A proposal: the exact call, in words and as data, why, what was looked at, and where it
    stands."""

    id: str
    task: str
    agent: str
    skill: str
    action: str
    label: str = Field(description="The call in words (\"Set the price\").")
    shown: dict[str, str] = Field(description="The arguments as a person reads them.")
    arguments: dict[str, Any] = Field(description="The arguments, as they would run.")
    why: str
    evidence: list[EvidenceOut]
    labels: list[LabelOut] = Field(default_factory=list, description=(
        "Each argument outside content (an e-mail, a web page, a file) may have steered, with "
        "the result it came from: why it was proposed though the agent might have run it alone."))
    effects: list[str]
    decide_by: str
    status: ProposalStatus
    reason: str
    decided_by: str | None
    result: dict[str, Any] | None
    edited: dict[str, Any] | None
    created_at: datetime | None
    decided_at: datetime | None
    deadline_at: datetime | None = Field(None, description=(
        "When it is withdrawn, or goes on to another decider, if nobody has decided it by "
        "then (UTC); null: it waits as long as it takes."))
    escalations: int = Field(0, description="How many times its deadline passed and it went "
                                            "on to another decider.")
    fresh: bool | None = Field(None, description=(
        "For a waiting proposal asked for by its id: whether what it acts on still reads as it "
        "did (a yes would run it). Null in a list of proposals, where it is not worked out (it "
        "reads the records each acts on): ask for the proposal itself before deciding."))
    freshness: str = Field("", description="Why it is not fresh, in words.")

    @staticmethod
    def of(p: Proposal, freshness: Freshness | None = None) -> ProposalOut:
        """From a proposal (and its freshness, when known)."""
        out = ProposalOut.model_validate(p)
        if freshness is not None:
            out.fresh, out.freshness = freshness.fresh, freshness.words
        return out


class ProposalPage(BaseModel):
    """A page of proposals, newest first."""

    items: list[ProposalOut]
    next: str | None = Field(description="Pass it as `after` for the next page; null on the last.")


class DecisionOut(_Out):
    """What a decision came to."""

    proposal: str
    status: ProposalStatus
    said: str = Field(description="What the decider is told.")
    told_agent: str = Field(description="What the agent is told.")
    task_status: str = Field("", description="Where the task stands after it went on.")
    task_problem: str = Field("", description=(
        "When the task is still Running after it was to go on (no worker took it up in "
        "time, or the process that decided has no model for it): why, and what to do, in "
        "words."))
    rule: RuleOut | None = Field(None, description="The standing rule an approval with "
                                                   "`always` made: from now on the agent runs "
                                                   "this tool alone, with any values, in this "
                                                   "skill, in work for the same person.")

    @staticmethod
    def of(d: Decision) -> DecisionOut:
        """From a decision."""
        return DecisionOut.model_validate(d)


class RuleOut(_Out):
    """A standing rule: an agent runs one tool alone."""

    id: str
    agent: str
    tool: str
    skill: str | None
    for_id: str | None
    made_by: str
    made_at: datetime
    used: int
    last_used_at: datetime | None
    active: bool
    revoked_by: str | None
    revoked_at: datetime | None
    why: str
    covers: str = Field("", description="What it lets the agent do, in words: the sentence "
                                         "the inbox and `signoff approve --always` say.")

    @staticmethod
    def of(r: StandingRule, covers: str) -> RuleOut:
        """From a rule, and what it covers in words (`Inbox.covers`)."""
        out = RuleOut.model_validate(r)
        out.covers = covers
        return out


class TaskOut(_Out):
    """A task, as a listing shows it."""

    id: str
    agent: str
    skill: str
    status: TaskStatus
    for_id: str | None
    steps: int
    spend_usd: float
    cost_known: bool = Field(True, description="Whether spend_usd is all it cost (false: it "
                                               "called a model with no price).")
    created_at: datetime
    updated_at: datetime
    work: str | None = Field(None, description="The piece of work it shares with other tasks "
                                               "(an MCP session's), or null.")

    @staticmethod
    def of(t: TaskSummary) -> TaskOut:
        """From a task summary."""
        return TaskOut.model_validate(t)


class TaskPage(BaseModel):
    """A page of tasks, newest first."""

    items: list[TaskOut]
    next: str | None


class OutcomeOut(BaseModel):
    """Where a task stands now."""

    task: str
    status: TaskStatus
    result: Any = None
    waiting_on: list[str]
    problem: str
    steps: int
    spend_usd: float

    @staticmethod
    def of(o: Outcome) -> OutcomeOut:
        """From an outcome."""
        return OutcomeOut(task=o.task, status=o.status,
                          result=_ANY.dump_python(o.result, mode="json"),
                          waiting_on=list(o.waiting_on), problem=o.problem, steps=o.steps,
                          spend_usd=o.spend_usd)


class ReceiptEntryOut(BaseModel):
    """One thing a task did."""

    at: datetime
    kind: str
    words: str
    data: dict[str, Any]
    cost_usd: float


class ReceiptOut(BaseModel):
    """Everything a task did, in order."""

    task: str
    agent: str
    skill: str
    status: str
    cost_usd: float
    unpriced: list[str]
    """The models it called that have no price: what their calls cost is not in cost_usd."""
    entries: list[ReceiptEntryOut]

    @staticmethod
    def of(r: Receipt) -> ReceiptOut:
        """From a receipt."""
        return ReceiptOut(task=r.task, agent=r.agent, skill=r.skill, status=r.status,
                          cost_usd=r.cost_usd, unpriced=list(r.unpriced),
                          entries=[ReceiptEntryOut(at=e.at, kind=e.kind, words=e.words,
                                                   data=_ANY.dump_python(e.data, mode="json"),
                                                   cost_usd=e.cost_usd) for e in r.entries])


class SkillLeaveOut(BaseModel):
    """One line of the agents' catalogue."""

    agent: str
    skill: str
    tool: str
    leave: str
    decided_by: str

    @staticmethod
    def of(line: SkillLeave) -> SkillLeaveOut:
        """From a catalogue line."""
        return SkillLeaveOut(agent=line.agent, skill=line.skill, tool=line.tool,
                             leave=line.leave.words, decided_by=line.decided_by)


class ActionOut(BaseModel):
    """One action the app offers by name."""

    name: str
    label: str
    reads_as: str
    description: str
    query: bool
    effects: list[str]
    parameters_schema: dict[str, Any]

    @staticmethod
    def of(info: ActionInfo) -> ActionOut:
        """From an action's info."""
        return ActionOut(name=info.name, label=info.label, reads_as=info.reads_as,
                         description=info.description, query=info.query,
                         effects=info.effects.explain(), parameters_schema=info.parameters_schema)


class RulePage(BaseModel):
    """A page of standing rules, oldest first."""

    items: list[RuleOut]
    next: str | None = Field(description="Pass it as `after` for the next page; null on the last.")


class SkillLeavePage(BaseModel):
    """A page of the agents' catalogue."""

    items: list[SkillLeaveOut]
    next: str | None = Field(description="Pass it as `after` for the next page; null on the last.")


class ActionPage(BaseModel):
    """A page of the actions the app offers."""

    items: list[ActionOut]
    next: str | None = Field(description="Pass it as `after` for the next page; null on the last.")


DecisionOut.model_rebuild()
