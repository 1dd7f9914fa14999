"""Deadlines: a proposal nobody decides in time is withdrawn, or goes on to another decider.

A skill's route gives the deadline (``Route.to_person(noor).within(timedelta(hours=8))``) and,
with ``then=``, where the proposal goes when it passes. `Deadlines.pass_deadline` passes one
proposal's deadline, once: it is withdrawn (the agent is told as the tool's answer, and its task
goes on exactly as after a no decided in another process), or put to the next route's decider
(told as of a new proposal, by `AgentProposed`), with that route's own deadline.

A decision and a deadline racing on one proposal take turns on the task's head (`holds.lock`)
and each moves the proposal with one guarded update (`repository.claim_proposal`,
`repository.escalate_proposal`: still waiting, and on the same route as read): exactly one of
them wins. Whoever runs proposals' deadlines calls `pass_due` (``signoff worker`` on each poll)
or `pass_deadline` (a durable timer, set for `earliest`).
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from signoff.agents import holds
from signoff.agents import repository as repo
from signoff.agents.agent import Registered
from signoff.agents.events import Events
from signoff.agents.loop import Loop
from signoff.agents.proposals import Decision, Proposal, ProposalStatus
from signoff.agents.skills import Route, Skill
from signoff.agents.states import CallOutcome, CallState, ReceiptKind
from signoff.exceptions import AgentRefused, UnknownId, UserError
from signoff.security.principals import Principal
from signoff.store.database import Database
from signoff.store.utc import aware

__all__ = ["DeadlineOutcome", "DeadlinePassed", "Deadlines", "refusal_after_deadline"]

log = logging.getLogger("signoff.agents")


class DeadlineOutcome(enum.Enum):
    """What passing a proposal's deadline came to."""

    WITHDRAWN = "Withdrawn"
    """Nobody decided it in time, and no route follows: it was withdrawn, the agent told."""
    ESCALATED = "Escalated"
    """Nobody decided it in time: it went to the next route's decider."""
    ALREADY_DECIDED = "Already decided"
    """It was decided (or ended) before its deadline was passed: nothing changed."""
    NOT_DUE = "Not due"
    """Its deadline has not passed (or it has none): nothing changed."""


@dataclass(frozen=True, kw_only=True)
class DeadlinePassed:
    """What passing one proposal's deadline came to."""

    proposal: str
    """The proposal's id."""
    outcome: DeadlineOutcome
    """What happened."""
    said: str
    """What happened, in words."""
    task_status: str = ""
    """Where its task stands after it went on (when it was withdrawn)."""

    @property
    def changed(self) -> bool:
        """Whether the proposal was withdrawn or went on to another decider."""
        return self.outcome in (DeadlineOutcome.WITHDRAWN, DeadlineOutcome.ESCALATED)


def when(at: datetime) -> str:
    """A moment as a person reads it: "2026-12-01 14:00 UTC"."""
    return f"{aware(at):%Y-%m-%d %H:%M} UTC"


def _missed(proposal: Proposal) -> str:
    deadline = f" ({when(proposal.deadline_at)})" if proposal.deadline_at else ""
    return f"No one decided {proposal.action} by its deadline{deadline}"


def withdrawn_at_deadline(proposal: Proposal) -> bool:
    """Whether `proposal` was withdrawn because its deadline passed undecided (not with its
    task, which ended before the deadline: `proposing.withdraw_with_task`)."""
    return (proposal.status is ProposalStatus.WITHDRAWN and proposal.decided_by is None
            and proposal.deadline_at is not None
            and (proposal.decided_at is None or proposal.decided_at >= proposal.deadline_at))


def _skill_gone(proposal: Proposal) -> str:
    """What became of `proposal` at its deadline when this app no longer declares the skill
    that proposed it (the app was deployed again without it): its route, which said what
    happens then, is gone with it, and no yes could run it (`Decider.approve`)."""
    return (f"{_missed(proposal)}, and this app no longer declares {proposal.agent}'s skill "
            f"{proposal.skill}, which proposed it, so it could neither run nor go on to "
            "another decider: it was withdrawn, and nothing of it ran.")


def refusal_after_deadline(proposal: Proposal, decide_by: str) -> str:
    """Why a decision on `proposal` is refused because its deadline passed ("" when it is not):
    it was withdrawn then (its skill no longer declared, said so), or it went on to `decide_by`
    (who decides it now, in words)."""
    if withdrawn_at_deadline(proposal):
        at = f" at {when(proposal.decided_at)}" if proposal.decided_at else ""
        if proposal.reason == _skill_gone(proposal):
            return (f"{_missed(proposal)}, and this app no longer declares {proposal.agent}'s "
                    f"skill {proposal.skill}, which proposed it (the app was changed since), so "
                    f"it can neither run nor go to another decider: it was withdrawn{at} without "
                    "running, and can no longer be decided; the agent was told, and went on. "
                    "If what it asked is still wanted, ask for the work again.")
        return (f"{_missed(proposal)}: it was withdrawn{at}, and can no longer be decided; the "
                "agent was told, and went on.")
    if proposal.status is ProposalStatus.WAITING and proposal.escalations:
        at = f" at {when(proposal.escalated_at)}" if proposal.escalated_at else ""
        return (f"No one decided {proposal.action} by its deadline: it went to {decide_by}{at}, "
                "who decide it now.")
    return ""


def _utc(now: datetime | None) -> datetime:
    if now is None:
        return repo.now()
    # (Python's own test of a moment with its time zone: a tzinfo whose offset is None leaves
    # it naive, and it was read as this machine's local time)
    if not isinstance(now, datetime) or now.utcoffset() is None:
        raise UserError(f"Give the moment deadlines are passed at with its time zone "
                        f"(datetime.now(UTC)), not {now!r}.")
    if now.astimezone(UTC).year > _LAST_YEAR:  # (a route's deadline from then is past 9999)
        raise UserError(f"Give a moment before the year {_LAST_YEAR + 1} to pass deadlines at, "
                        f"not {now.isoformat()}: a deadline a route sets from then could not "
                        "be written.")
    return now.astimezone(UTC)


_LAST_YEAR = 9_999 - 101
"""The last year deadlines are passed in: a route's longest deadline (a hundred years) from
then still falls within what a date can be."""


class _RouteUnread(UserError):
    """A proposal's route, which says what happens at its deadline, cannot be read now."""


class _AgentElsewhere(UserError):
    """The agent that made a proposal is not declared by this app (another app shares its
    database, or this one was deployed without it): what its deadline brings is not known here."""

    def __init__(self, message: str, *, agent: str) -> None:
        super().__init__(message)
        self.agent = agent
        """The agent's name."""


def _unread(proposal: Proposal, skill: str, what: str) -> str:
    return (f"The deadline of proposal {proposal.id} ({proposal.action}) is not passed: "
            f"{skill}.decided_by, whose route says what happens then, {what}; the log has "
            "the details. It waits as it was: mend the route, and the next look passes it.")


GoOn = Callable[[Proposal, Decision, "repo.TaskRow | None"], Decision]
"""How a task goes on after a decision (`Decider`'s way: the handlers are told, then it runs
here when it woke in this thread, else where it is held)."""


class Deadlines:
    """Passes proposals' deadlines: withdraws them, or puts them to the next decider."""

    def __init__(self, *, database: Database, loop: Loop, events: Events,
                 agents: Callable[[str], Registered], route_words: Callable[[Proposal], str],
                 go_on: GoOn) -> None:
        self._database = database
        self._loop = loop
        self._events = events
        self._agents = agents
        self._route_words = route_words
        self._go_on = go_on

    def pass_deadline(self, proposal_id: str, *, now: datetime | None = None) -> DeadlinePassed:
        """Pass one proposal's deadline, if it has passed by `now` (the time, by default) and
        the proposal still waits: it is withdrawn or escalated, once, however many processes
        pass it (or decide it) at the same moment."""
        at = _utc(now)
        with self._database.holding():
            while True:
                with self._database.connect() as db:
                    found = repo.load_proposal(db, proposal_id)
                if found is None:
                    raise UnknownId(f"There is no proposal with id {proposal_id}.")
                proposal, call_id, _ = found
                if proposal.status is not ProposalStatus.WAITING:
                    return DeadlinePassed(
                        proposal=proposal.id, outcome=DeadlineOutcome.ALREADY_DECIDED,
                        said=f"{_missed(proposal)}; it was withdrawn already." if (
                            withdrawn_at_deadline(proposal)) else
                        f"It was decided before its deadline was passed "
                        f"({proposal.status.value}).")
                if proposal.deadline_at is None or proposal.deadline_at > at:
                    return DeadlinePassed(
                        proposal=proposal.id, outcome=DeadlineOutcome.NOT_DUE,
                        said="It has no deadline." if proposal.deadline_at is None else
                        f"Its deadline ({when(proposal.deadline_at)}) has not passed.")
                # What then is the skill's word: known here; refused when its agent is not
                # declared here; and, when the agent is but the skill no longer is (the app
                # deployed again without it), withdrawn: it could not run, whoever said yes.
                if self._skill_of(proposal) is None:
                    passed = self._withdraw(proposal, call_id, at, said=_skill_gone(proposal))
                else:
                    route = self._next_route(proposal, strict=True)
                    passed = (self._withdraw(proposal, call_id, at) if route is None
                              else self._escalate(proposal, route, at))
                if passed is not None:
                    self._loop.kept_proposals.take(proposal.id)  # as kept, it reads otherwise
                    return passed
                # A decision, or another process passing it, came first: read it again.

    def pass_before_deciding(self, proposal_id: str) -> None:
        """Pass the deadline of a proposal about to be decided, due though no worker has passed
        it yet, so that the decision comes after it. When its route cannot be read (the skill's
        `decided_by` fails), `AgentRefused` in words for the person deciding: nothing is
        decided, and it waits as it was (the developer's sentence goes to the log)."""
        try:
            self.pass_deadline(proposal_id)
        except _RouteUnread as unread:
            log.warning("%s", unread)
            raise AgentRefused(
                "Its deadline has passed, and where it goes now cannot be told: the app's rule "
                "for who decides it failed. Nothing was decided, and it still waits: try again "
                "later, or tell whoever runs the app (its log says what failed).") from unread
        except _AgentElsewhere as elsewhere:
            log.warning("%s", elsewhere)
            raise AgentRefused(
                f"Its deadline has passed, and this app does not declare {elsewhere.agent}, the "
                "agent that proposed it, so what becomes of it now cannot be told here. Nothing "
                "was decided, and it still waits: tell whoever runs the app (an app that "
                f"declares {elsewhere.agent} passes its deadline).") from elsewhere

    def pass_due(self, *, now: datetime | None = None) -> list[DeadlinePassed]:
        """Pass the deadline of every waiting proposal due by `now` (the time, by default),
        soonest first; what each came to."""
        at = _utc(now)
        with self._database.connect() as db:
            due = repo.due_proposals(db, at)
        passed = []
        for proposal_id in due:
            try:
                passed.append(self.pass_deadline(proposal_id, now=at))
            except UserError as elsewhere:  # its agent is not declared here, or its route
                log.warning("%s", elsewhere)  # cannot be read: left as it is
            except Exception:  # unforeseen, in one proposal: the others are passed all the same
                # (it stopped the look, and `signoff worker` with it, at every start)
                log.exception("The deadline of proposal %s was not passed: it failed for a "
                              "reason signoff did not foresee; it waits as it was, and the "
                              "next look tries it again.", proposal_id)
        return passed

    def earliest(self, task_id: str) -> datetime | None:
        """The soonest deadline among task `task_id`'s waiting proposals (UTC; None: none has
        one): when a runner is to pass deadlines for it next."""
        with self._database.connect() as db:
            return repo.earliest_deadline(db, task_id)

    def formerly_decided_by(self, proposal: Proposal, person: Principal) -> bool:
        """Whether `person` was to decide `proposal` before a deadline put it to another."""
        try:
            first = self._first_route(proposal)
        except _RouteUnread:
            return False
        for step in range(proposal.escalations):
            route = first.after(step) if first is not None else None
            if route is not None and ((route.person is not None and route.person.id == person.id)
                                      or (route.queue and route.queue in person.roles)):
                return True
        return False

    def terms(self, proposal: Proposal) -> str:
        """A waiting proposal's deadline, and what then, in words ("Decide it by 2026-12-01
        14:00 UTC; then it goes to the Finance queue."); "" when it has none."""
        if proposal.deadline_at is None or proposal.status is not ProposalStatus.WAITING:
            return ""
        try:
            route = self._next_route(proposal, strict=True)
        except _RouteUnread:  # what then is not known here: the deadline alone is said
            return f"Decide it by {when(proposal.deadline_at)}."
        then = "it is withdrawn" if route is None else f"it goes to {route.words}"
        return f"Decide it by {when(proposal.deadline_at)}; then {then}."

    # -- passing -------------------------------------------------------------------------

    def _skill_of(self, proposal: Proposal) -> Skill[Any, Any] | None:
        """The skill that made `proposal`, as this app declares it; None when the app declares
        its agent but no longer that skill; `_AgentElsewhere` when it does not declare the
        agent (its route, which says what happens at the deadline, is not known here)."""
        try:
            agent = self._agents(proposal.agent).agent
        except (LookupError, UserError):
            raise _AgentElsewhere(
                f"The deadline of proposal {proposal.id} is not passed here: this app does not "
                f"declare the agent {proposal.agent}, whose skill {proposal.skill} has the route "
                "that says what happens then. Pass it where the app that proposed it runs.",
                agent=proposal.agent) from None
        try:
            return agent.skill(proposal.skill)
        except (LookupError, UserError):
            return None

    def _first_route(self, proposal: Proposal, *, strict: bool = False) -> Route | None:
        """The route the skill gives the proposal's tool, as its declaration reads now (None:
        the skill is not declared here, or, unless `strict`, its route cannot be read).
        `_RouteUnread` when its `decided_by` fails, or answers something other than a route,
        and `strict`: withdrawing it then would be a guess at what its route says."""
        try:
            skill = self._agents(proposal.agent).agent.skill(proposal.skill)
        except (LookupError, UserError):
            return None
        try:
            route = skill.decided_by(proposal.action)
        except Exception as error:  # the app's code, which may fail as any does
            log.warning("%s.decided_by(%r) failed (%s: %s)", type(skill).__name__,
                        proposal.action, type(error).__name__, error, exc_info=True)
            if not strict:
                return None
            raise _RouteUnread(_unread(proposal, type(skill).__name__, "failed")) from None
        if route is not None and not isinstance(route, Route):
            if not strict:
                return None
            raise _RouteUnread(_unread(proposal, type(skill).__name__,
                                       f"answered {type(route).__name__}, not a Route"))
        return route

    def _next_route(self, proposal: Proposal, *, strict: bool = False) -> Route | None:
        """Where the proposal goes when its deadline passes (None: it is withdrawn)."""
        first = self._first_route(proposal, strict=strict)
        now_on = first.after(proposal.escalations) if first is not None else None
        return now_on.then if now_on is not None else None

    def _withdraw(self, proposal: Proposal, call_id: str, at: datetime, *, said: str = ""
                  ) -> DeadlinePassed | None:
        """Withdraw it, tell the agent, and let its task go on; None when a decision (or
        another process) came first. `said`: why, when not only that no one decided it."""
        said = said or f"{_missed(proposal)}; it was withdrawn."
        told = f"{said} Do not retry it unless asked."
        with self._database.connect() as db:
            holds.lock(db, proposal.task)  # a decision and the deadline take turns
            if not repo.claim_proposal(db, proposal, ProposalStatus.WITHDRAWN, decided_at=at,
                                       reason=said):
                return None
            repo.update_call(db, proposal.task, call_id, state=CallState.DECIDED,
                             outcome=CallOutcome.WITHDRAWN, answer=told, finished_at=at)
            repo.note(db, proposal.task, ReceiptKind.DECISION, said, proposal=proposal.id,
                      outcome=CallOutcome.WITHDRAWN, deadline=proposal.deadline_at.isoformat()
                      if proposal.deadline_at else None)
            woke = self._loop.wake(db, proposal.task)
        decision = Decision(proposal=proposal.id, status=ProposalStatus.WITHDRAWN, said=said,
                            told_agent=told)
        went = self._go_on(proposal, decision, woke)
        return DeadlinePassed(proposal=proposal.id, outcome=DeadlineOutcome.WITHDRAWN, said=said,
                              task_status=went.task_status)

    def _escalate(self, proposal: Proposal, route: Route, at: datetime) -> DeadlinePassed | None:
        """Put it to `route`'s decider, with that route's deadline, and tell them as of a new
        proposal; None when a decision (or another process) came first."""
        said = f"{_missed(proposal)}; it went to {route.words}."
        deadline = at + route.deadline if route.deadline is not None else None
        with self._database.connect() as db:
            holds.lock(db, proposal.task)
            if not repo.escalate_proposal(
                    db, proposal, person_id=route.person.id if route.person else None,
                    queue=route.queue or None, deadline_at=deadline, at=at,
                    told_at=self._loop.telling.told_at()):
                return None
            repo.note(db, proposal.task, ReceiptKind.ESCALATED, said, proposal=proposal.id,
                      to=route.words, deadline=deadline.isoformat() if deadline else None)
            found = repo.load_proposal(db, proposal.id)
        now_on = found[0] if found is not None else proposal
        self._loop.telling.tell(replace(now_on, decide_by=self._route_words(now_on)))
        return DeadlinePassed(proposal=proposal.id, outcome=DeadlineOutcome.ESCALATED, said=said)
