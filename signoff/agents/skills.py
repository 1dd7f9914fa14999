"""Skills: one kind of work an agent does — its tools, its brief, who decides its proposals."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any, ClassVar, Generic, TypeVar, get_args, get_origin

from signoff.agents.permits import Permits, tool_name
from signoff.exceptions import UserError
from signoff.limits.provenance import Endorse
from signoff.security.principals import Principal, PrincipalKind

__all__ = ["Route", "Skill", "TaskView", "ToolAnswer"]

Subject = TypeVar("Subject")
Result = TypeVar("Result")


_LONGEST_DEADLINE = timedelta(days=36_500)
"""The longest deadline a route may set (a hundred years): a longer one could not be counted
from the moment a proposal is made."""


@dataclass(frozen=True, kw_only=True)
class Route:
    """Where a skill sends a tool's proposals: to one person, or to a queue."""

    person: Principal | None = None
    """The one person who decides."""
    queue: str = ""
    """The queue that decides: anyone holding the role of that name."""
    deadline: timedelta | None = None
    """How long a proposal waits here for a decision (None: as long as it takes)."""
    then: Route | None = None
    """Where a proposal goes when its deadline passes undecided (None: it is withdrawn)."""

    def __post_init__(self) -> None:
        if self.person is not None and not isinstance(self.person, Principal):
            raise UserError(f"A route goes to a person (a Principal: app.people.get(handle)), "
                            f"not {self.person!r}.")
        if self.person is not None and self.person.kind is not PrincipalKind.PERSON:
            raise UserError(f"A route goes to a person, and {self.person.name} is an agent's "
                            "own account, which decides nothing: route to its sponsor, or to a "
                            "queue (Route.to_queue(role)).")
        if not isinstance(self.queue, str):
            raise UserError(f"A route's queue is the name of a role, not {self.queue!r}.")
        if (self.person is None) == (not self.queue.strip()):
            raise UserError("A route goes to one person or to one queue: give one of them "
                            "(Route.to_person(p) or Route.to_queue(role)).")

    @staticmethod
    def to_person(person: Principal) -> Route:
        """Proposals go to this person."""
        return Route(person=person)

    @staticmethod
    def to_queue(name: str) -> Route:
        """Proposals go to a queue: anyone with the role `name` may decide them."""
        return Route(queue=name)

    def within(self, time: timedelta, *, then: Route | None = None) -> Route:
        """This route, with a deadline: a proposal undecided `time` after it came here is
        withdrawn (the agent is told, and goes on), or goes on to `then` when given
        (``Route.to_person(noor).within(timedelta(hours=8), then=Route.to_queue("Finance"))``)."""
        if not isinstance(time, timedelta) or time <= timedelta(0):
            raise UserError(f"A route's deadline is a positive timedelta, such as "
                            f"timedelta(hours=8), not {time!r}.")
        if time > _LONGEST_DEADLINE:
            raise UserError(f"A route's deadline is at most {_LONGEST_DEADLINE.days} days (a "
                            f"proposal without one waits as long as it takes), not {time!r}.")
        if then is not None and not isinstance(then, Route):
            raise UserError(f"A route goes on to another Route (then=Route.to_queue(...)), not "
                            f"{then!r}.")
        return replace(self, deadline=time, then=then)

    def after(self, escalations: int) -> Route | None:
        """The route a proposal is on once its deadlines passed `escalations` times (None when
        it would have been withdrawn before)."""
        route: Route | None = self
        for _ in range(escalations):
            route = route.then if route is not None else None
        return route

    @property
    def words(self) -> str:
        """Where it goes, in words: "Noor", "the Finance queue"."""
        return self.person.name if self.person else f"the {self.queue} queue"

    @property
    def terms(self) -> str:
        """Where it goes and for how long, in words: "Noor within 8 hours, then the Finance
        queue" (just `words` when it has no deadline)."""
        if self.deadline is None:
            return self.words
        then = f"then {self.then.terms}" if self.then is not None else "then it is withdrawn"
        return f"{self.words} within {_duration(self.deadline)}, {then}"


def _duration(time: timedelta) -> str:
    """A duration as a person says it: "1 day 8 hours", "90 seconds"."""
    seconds = int(time.total_seconds())
    parts = []
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1)):
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count} {unit}{'s' if count != 1 else ''}")
    return " ".join(parts) or f"{time.total_seconds():g} seconds"


@dataclass(frozen=True, kw_only=True)
class ToolAnswer:
    """One tool call a task ran, and what came back (for `Skill.check_result`)."""

    tool: str
    """The tool that ran."""
    arguments: dict[str, Any]
    """The arguments it ran with."""
    value: Any
    """The JSON of what it returned."""
    said: str = ""
    """What it said, when it returned a string."""


@dataclass(frozen=True, kw_only=True)
class TaskView:
    """What a task has done so far, as a skill checking its result sees it."""

    task: str
    """The task's id."""
    answers: tuple[ToolAnswer, ...] = ()
    """Every tool call of this task that ran and was Done, in order (``hand_back`` aside)."""
    subject: Any = None
    """What the task is about, as it is now (a record read afresh; None when it has none)."""

    def of(self, tool: str) -> list[ToolAnswer]:
        """The answers of one tool, in order."""
        return [a for a in self.answers if a.tool == tool]


def _cut(shown: str) -> str:
    """A repr as a message shows it: cut short when it is long."""
    return shown if len(shown) <= 60 else f"{shown[:40]}…{shown[-8:]}"


@functools.cache
def snake_case(name: str) -> str:
    """``EstimateRepair`` → ``estimate_repair``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


class Skill(Generic[Subject, Result]):
    """One kind of work: ``class EstimateRepair(Skill[Repair, Estimate])``.

    The subject is a record, a plain value type, or None; the result is what the model hands
    back, validated before the task is done.
    """

    description: ClassVar[str] = ""
    """What the skill is for, as the model is told."""
    tools: ClassVar[list[Callable[..., Any]]] = []
    """The actions it may call: the allowlist."""
    may: ClassVar[Permits | None] = None
    """Stricter permits for this skill (the strictest of agent and skill wins)."""
    endorses: ClassVar[Sequence[Endorse]] = ()
    """The values taken from tools' results that this skill trusts once validated
    (``Endorse.date(read_email)``, ``Endorse.amount(read_file, at_most=500)``): they may steer a
    call that runs alone, though outside content had entered the task."""
    free_text: ClassVar[bool] = True
    """Whether a text argument of several words is free text (a message's body, a note),
    whose words carry no label once outside content entered the task — only the identifiers
    in it, and the runs of words copied from outside content, do. False labels every text
    whole, as a single value is: what the MCP guard's skill says, which never sees the
    person's request; an action that declares its free text (``Annotated[str, FreeText]``)
    has those parameters free text and no other, unless the skill says False: the stricter
    word wins."""
    version: ClassVar[str] = "1"
    """Change it when the skill's meaning changes: pending proposals then go stale."""

    @property
    def name(self) -> str:
        """The skill's name: ``EstimateRepair`` → ``estimate_repair``."""
        return snake_case(type(self).__name__)

    @property
    def tool_names(self) -> list[str]:
        """The names of its tools, in order, each once (a tool listed twice, as itself and by
        its name say, was offered to the model twice, which a provider refuses). `UserError`
        when `tools` is not a list of them."""
        tools = self.tools
        if isinstance(tools, set | frozenset):  # (in an order of their own: by name)
            tools = sorted(tools, key=tool_name)
        if not isinstance(tools, list | tuple):
            one = getattr(tools, "__name__", None)  # (one action, not in a list)
            raise UserError(f"{type(self).__name__}.tools is a list of its tools, the actions "
                            f"it may call (tools = [parts_for, set_price]; [] for none), not "
                            + (f"{one} alone: give tools = [{one}]." if isinstance(one, str)
                               else f"{_cut(repr(tools))}."))
        return list(dict.fromkeys(tool_name(t) for t in tools))

    @classmethod
    def types(cls) -> tuple[Any, Any]:
        """(subject type, result type), from ``Skill[Subject, Result]``."""
        for base in getattr(cls, "__orig_bases__", ()):
            if get_origin(base) is Skill:
                subject, result = get_args(base)
                return subject, result
        for parent in cls.__mro__[1:]:
            if parent is not Skill and issubclass(parent, Skill):
                return parent.types()
        return None, str

    def brief(self, subject: Subject) -> str:
        """What the model is told of this piece of work."""
        return str(subject) if subject is not None else ""

    def version_of(self, action: str, arguments: dict[str, Any]) -> str:
        """The version of the things a call acts on, as they read now ("r1"); when it reads
        differently at decision time, the proposal is stale."""
        return ""

    def names(self, action: str, argument: str, value: str) -> str:
        """How an argument reads to a person (an id → "Ticket T-7"); the value itself by default.
        Give back the value itself for every value that names no record: one shown otherwise
        is taken to name what the call acts on, which "Approve with changes" may not change
        (to shorten long text, cut it where it is shown, not here)."""
        return value

    def decided_by(self, action: str) -> Route | None:
        """Where this tool's proposals go; None: to the person the work is for, or, when the
        work is for nobody, to the agent's sponsor (an agent with no sponsor: to its
        supervisors only)."""
        return None

    def check_result(self, result: Result, task: TaskView) -> str:
        """"" when the handed-back `result` may end the task; else what is wrong with it, told
        to the model, whose hand back is refused (it may try again within its limits)."""
        return ""
