"""The people's view of agents' work: what a person may see, a page at a time, and whether a
proposal is still fresh.

The web inbox, the REST API and the command line read through this module, so that they agree
on who sees what: a person sees the proposals they decide (theirs, or their queues'), a
supervisor sees every one, and nobody else sees any. Those waiting are listed as what the person
may decide (`Inbox.proposals`); their own work a skill routes to another, which they see but may
not decide (DESIGN: "The person the work is for does not decide a routed proposal"), is listed
apart (`Inbox.waiting_on_others`). Pages are read by keyset (a cursor), so the first page and the
thousandth cost the same.
"""

from __future__ import annotations

import hashlib
import logging
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from sqlalchemy import ColumnElement, Select, Text, and_, cast, false, or_, select, true

from signoff.agents import repository as repo
from signoff.agents.labelling import may_return_outside_content
from signoff.agents.permits import Leave
from signoff.agents.proposals import Proposal, ProposalStatus
from signoff.agents.proposing import does_otherwise
from signoff.agents.rules import StandingRule, rule_covers
from signoff.agents.stopping import may_stop
from signoff.agents.tasks import TaskStatus, as_signoff_writes_ids
from signoff.effects.effect import Effect
from signoff.exceptions import AgentRefused, Invalid, NotFound, UserError
from signoff.security.principals import Principal, PrincipalKind
from signoff.store.tables import proposals as proposals_table
from signoff.store.tables import steps as steps_table
from signoff.store.tables import tasks as tasks_table
from signoff.store.utc import aware

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection

    from signoff.app import App

__all__ = ["EffectLine", "Freshness", "Inbox", "Page", "TaskSummary", "effect_lines", "freshness"]

log = logging.getLogger("signoff.inbox")
T = TypeVar("T")

DEFAULT_PAGE = 50
"""How many items a page holds unless asked otherwise."""
MAX_PAGE = 200
"""The most a page may hold."""
_WAITING = ProposalStatus.WAITING.value
"""A waiting proposal's status, as stored."""


@dataclass(frozen=True, kw_only=True)
class Page(Generic[T]):
    """One page of a listing, newest first."""

    items: list[T]
    """What is on it."""
    next: str | None
    """The cursor of the next page (pass it as `after`), or None on the last page."""


@dataclass(frozen=True, kw_only=True)
class Freshness:
    """Whether a proposal still reads as it did when it was made."""

    fresh: bool
    """True when what it acts on has not changed: a yes would run it."""
    was: str
    """The version of what it acts on when proposed ("r1")."""
    now: str
    """The version now ("r2"), or "" when it could not be read."""
    words: str
    """What a person is told ("" when fresh)."""


@dataclass(frozen=True, kw_only=True)
class EffectLine:
    """One thing a proposed call does, as a person deciding on it reads it."""

    words: str
    """In words ("changes the `price` of a Repair"; what signoff quotes is between backticks)."""
    code: str
    """The path through the code that shows it ("set_price -> repair.price = …"), or "";
    several, between semicolons, when the code shows the same thing in more than one place."""


def effect_lines(effects: Iterable[Effect]) -> list[EffectLine]:
    """Each thing `effects` do, once, in a person's words, with every path through the code
    that shows it beside them (a record made by its constructor and added to the session reads
    "creates a Payment" once, not twice)."""
    return _once([EffectLine(words=e.words(), code=e.code()) for e in effects])


def _once(lines: list[EffectLine]) -> list[EffectLine]:
    """`lines` with those that say the same words made one, their paths joined, in order."""
    paths: dict[str, list[str]] = {}
    for line in lines:
        paths.setdefault(line.words, [])
        if line.code and line.code not in paths[line.words]:
            paths[line.words].append(line.code)
    return [EffectLine(words=words, code="; ".join(codes)) for words, codes in paths.items()]


@dataclass(frozen=True, kw_only=True)
class TaskSummary:
    """A task, as a listing shows it."""

    id: str
    """The task's id."""
    agent: str
    """The agent doing it."""
    skill: str
    """The skill."""
    status: TaskStatus
    """Where it stands."""
    for_id: str | None
    """The person the work is for (None: for nobody)."""
    steps: int
    """Model calls made."""
    spend_usd: float
    """What it has cost."""
    created_at: datetime
    """When it started."""
    updated_at: datetime
    """When it last moved."""
    problem: str = ""
    """When Halted or Failed: why."""
    work: str | None = None
    """The piece of work it shares with other tasks (an MCP session's: a task per skill, and one
    for each call that went on while the others waited or took a turn), or None."""
    cost_known: bool = True
    """Whether `spend_usd` is all it cost (False: it called a model with no price, whose calls'
    cost is not known)."""

    @property
    def spend_words(self) -> str:
        """What it has cost, in a few words (``$0.0150``; what is not known said so)."""
        spent = f"${self.spend_usd:.4f}"
        return spent if self.cost_known else f"{spent} + calls of no known price"


def _unpriced(db: Connection, ids: list[str]) -> set[str]:
    """Those of the tasks `ids` that called a model with no price (only a task with no budget
    may: see the loop), as their journals say."""
    if not ids:
        return set()
    data = cast(steps_table.c.data, Text)
    query = select(steps_table.c.task_id).distinct().where(
        steps_table.c.task_id.in_(ids), or_(*(data.like(f"%{said}%") for said in _UNPRICED)))
    return set(db.scalars(query))


_UNPRICED = ('"priced":false', '"priced": false')
"""How a model call's receipt entry says its model had no price, as the journal writes it."""


def freshness(app: App, proposal: Proposal) -> Freshness:
    """Compare the skill's ``version_of`` now with the proposal's `subject_version` (and the
    skill's version with the one it was proposed under, and what its action does now with what
    was shown)."""
    was = proposal.subject_version
    try:
        registered = app.agent(proposal.agent).registered
        skill = registered.agent.skill(proposal.skill)
    except (UserError, LookupError):
        return Freshness(fresh=False, was=was, now="", words=(
            f"{proposal.agent} or its skill {proposal.skill} is no longer declared: this will not "
            "run, whoever says yes."))
    name = registered.agent.__name__
    if app._agency.decider.rules.declared(registered, proposal.skill,
                                          proposal.action) is Leave.NEVER:
        # (as a yes finds it: withdrawn, the agent told; it was shown fresh, and the yes offered)
        return Freshness(fresh=False, was=was, now=was, words=(
            f"{name}'s declaration no longer lets it use {proposal.action} here: this will not "
            "run, whoever says yes; a yes withdraws it, and the agent is told."))
    account = app.people.find(registered.account.id)
    if account is None or account.disabled:
        # (a yes fails, both told: nothing an agent whose account is disabled asks runs)
        return Freshness(fresh=False, was=was, now=was, words=(
            f"{name}'s own account is disabled: a yes will not run this while it is. Say no, "
            "or have the account enabled first."))
    if skill.version != proposal.skill_version:
        return Freshness(fresh=False, was=was, now=was, words=(
            f"The skill {proposal.skill} has changed since this was proposed (version "
            f"{proposal.skill_version}, now {skill.version}): a yes will not run it; the agent "
            "will be told to look again."))
    if proposal.action in app.actions:
        does = does_otherwise(proposal, app.actions.info(proposal.action).effects)
        if does:
            return Freshness(fresh=False, was=was, now=was, words=(
                f"What {proposal.action} does has changed since this was proposed — {does}: a "
                "yes will not run it; the agent will be told to look again."))
    try:
        now = skill.version_of(proposal.action, proposal.arguments)
    except Exception:  # the app's own code: its failure reaches the log, never the page
        log.exception("version_of failed for proposal %s", proposal.id)
        return Freshness(fresh=False, was=was, now="", words=(
            "Whether what this acts on has changed could not be checked: the app's log has the "
            "details. A yes runs it only if it still reads as it did."))
    if now == was:
        if not app._agency.reads_as_proposed(proposal):
            return Freshness(fresh=False, was=was, now=now, words=(
                "The agent's instructions have changed since this was proposed: a yes will not "
                "run it; the agent will be told to look again, and what it is told now."))
        return Freshness(fresh=True, was=was, now=now, words="")
    return Freshness(fresh=False, was=was, now=now, words=(
        f"What this acts on has changed since it was proposed (it was {was or 'without a version'}, it "
        f"is now {now or 'gone'}): a yes will not run it; the agent will be told to look again."))


class Inbox:
    """What each person sees of the agents' work: ``Inbox(app).proposals(noor)``."""

    def __init__(self, app: App, *,
                 reads_outside: Callable[[StandingRule], bool] | None = None,
                 sponsored_by: Callable[[Principal], list[str]] | None = None) -> None:
        self._app = app
        self._reads_outside_told = reads_outside
        """Whether a rule's agent reads outside content where the rule applies, for an app whose
        agents are not all registered in this process (the MCP guard's, opened without its
        servers); None: found from the agent's tools."""
        self._sponsored_told = sponsored_by
        """The names of the agents a person sponsors that are not registered in this process
        (the MCP guard's, opened without its servers), besides those that are."""

    # -- who sees what -------------------------------------------------------------------

    def supervises(self, person: Principal) -> bool:
        """Whether `person` supervises agents (and so sees and decides every proposal)."""
        return not person.disabled and self._app.oversight.supervises_agents.admits(person)

    def _visible(self, person: Principal) -> list[ColumnElement[bool]]:
        """The branches (ORed) of what `person` may see; each can use an index of its own."""
        if not self._may_decide_any(person):
            return [false()]
        if self.supervises(person):
            return [true()]
        c = proposals_table.c
        branches: list[ColumnElement[bool]] = [c.decide_person_id == person.id]
        if person.roles:
            branches.append(c.decide_queue.in_(sorted(person.roles)))
        return branches

    def may_see(self, person: Principal, proposal: Proposal) -> bool:
        """Whether `person` may see (and so perhaps decide) `proposal`: theirs, their queue's,
        or any when they supervise; or theirs before its deadline put it to another."""
        person = self._app.people.get(person)
        return self._decides(person, proposal) or bool(
            proposal.escalations and self._app._agency.deadlines.formerly_decided_by(
                proposal, person))

    def _may_decide_any(self, person: Principal) -> bool:
        """Whether `person` may decide proposals at all: a person (an agent's account decides
        none, whatever roles it holds), not disabled, admitted by the app's oversight."""
        return (person.kind is not PrincipalKind.AGENT and not person.disabled
                and self._app.oversight.decides_agent_proposals.admits(person))

    def _decides(self, person: Principal, proposal: Proposal) -> bool:
        """Whether `proposal` is `person`'s to decide: theirs, their queue's, or any when
        they supervise."""
        if not self._may_decide_any(person):
            return False
        if self.supervises(person):
            return True
        return proposal.decide_person_id == person.id or bool(
            proposal.decide_queue and proposal.decide_queue in person.roles)

    # -- proposals -----------------------------------------------------------------------

    def proposals(
        self, person: Principal, *, status: ProposalStatus | None = ProposalStatus.WAITING,
        queue: str | None = None, limit: int = DEFAULT_PAGE, after: str | None = None,
    ) -> Page[Proposal]:
        """The proposals `person` may see, newest first, a page at a time: those waiting (by
        default), or in `status` (None: any); only one queue's with `queue`. Those waiting are
        those `person` may decide: their own work a skill routes to another (to them, even, or
        a queue of theirs: they see it, and may not decide it) is not among them, but listed
        by `waiting_on_others`."""
        person = self._app.people.get(person)
        limit = max(1, min(limit, MAX_PAGE))
        cursor = _cursor(after)
        c = proposals_table.c
        branches = self._visible(person)
        if queue is not None:
            if "\x00" in queue or (queue not in person.roles and not self.supervises(person)):
                raise NotFound(f"{person.name} is not in a queue named {_said_back(queue, quoted=True)}.")
            # (narrowed, never widened: one who may decide nothing sees no queue's)
            branches = [c.decide_queue == queue] if self._may_decide_any(person) else [false()]
        found: dict[str, Any] = {}
        with self._app.database.reading() as db:
            for branch in branches:
                query: Select[Any] = select(proposals_table).where(branch)
                if status is not None:
                    query = query.where(c.status == status.value)
                if status is ProposalStatus.WAITING:
                    query = query.where(_not_routed_work_of(person))
                if cursor is not None:
                    query = query.where(or_(c.created_at < cursor[0],
                                            and_(c.created_at == cursor[0], c.id < cursor[1])))
                query = query.order_by(c.created_at.desc(), c.id.desc()).limit(limit + 1)
                for proposal in repo.load_proposals(db, query):
                    found[proposal.id] = proposal
        ordered = sorted(found.values(), key=lambda p: (p.created_at, p.id), reverse=True)
        names = self._route_words()
        items = [replace(p, decide_by=names(p)) for p in ordered[:limit]]
        more = len(ordered) > limit
        last = items[-1] if items else None
        return Page(items=items, next=_cursor_of(last.created_at, last.id)
                    if more and last is not None and last.created_at is not None else None)

    def waiting_on_others(self, person: Principal, *, limit: int = DEFAULT_PAGE
                          ) -> Page[Proposal]:
        """The proposals waiting that `person` sees and may not decide, newest first (the
        first `limit`; `next` is not None when there are more): their own work, which its skill
        routes to another — or to them, or to a queue of theirs, where the person the work is
        for still does not decide it (`decidable`). Shown to read, never to decide."""
        person = self._app.people.get(person)
        limit = max(1, min(limit, MAX_PAGE))
        if not self._may_decide_any(person):  # (sees no proposal: `_visible`)
            return Page(items=[], next=None)
        c = proposals_table.c
        query: Select[Any] = (
            select(proposals_table)
            .where(or_(*self._visible(person)), c.status == _WAITING, c.for_id == person.id,
                   c.routed == true())
            .order_by(c.created_at.desc(), c.id.desc()).limit(limit + 1))
        with self._app.database.reading() as db:
            found = repo.load_proposals(db, query)
        names = self._route_words()
        items = [replace(p, decide_by=names(p)) for p in found[:limit]]
        last = items[-1] if items else None
        return Page(items=items, next=_cursor_of(last.created_at, last.id)
                    if len(found) > limit and last is not None else None)

    def proposal(self, person: Principal, proposal_id: str) -> Proposal:
        """One proposal, when `person` may see it; `NotFound` otherwise (the same answer as for
        one that does not exist)."""
        try:  # (no id holds a NUL, which PostgreSQL refuses as if it were down: not looked up)
            proposal = None if "\x00" in proposal_id else self._app.proposal(proposal_id)
        except AgentRefused:
            proposal = None
        if proposal is None or not self.may_see(person, proposal):
            raise NotFound(f"There is no proposal with id {_said_back(proposal_id)} that "
                           f"{self._app.people.get(person).name} may see.")
        return proposal

    def decidable(self, person: Principal, proposal: Proposal) -> bool:
        """Whether `person` may decide `proposal` now (it waits, and it is theirs to decide —
        never one a skill routes, to the person the work is for, who sees it and whose yes is
        refused: `Decider.refusal_to_decide`)."""
        person = self._app.people.get(person)
        return proposal.status is ProposalStatus.WAITING and self._decides(person, proposal) and (
            not (proposal.routed and proposal.for_id == person.id))

    def nobody_decides(self, proposal: Proposal) -> str:
        """Why nobody may decide a waiting `proposal` as things stand — no one enabled is who
        its route asks, and nobody else supervises agents — or "" when someone may."""
        if proposal.status is not ProposalStatus.WAITING or any(
                self.decidable(p, proposal) for p in self._app.people.all()):
            return ""
        route = self._route_words()(proposal)
        if proposal.routed and proposal.for_id is not None and (
                proposal.decide_person_id == proposal.for_id):
            why = (f"the skill routes it to {route}, the person the work is for, who does not "
                   "decide a routed proposal")
        else:
            why = f"nobody enabled is {route}, or may decide agents' proposals as them"
        return (f"Nobody may decide it as things stand: {why}, and nobody else supervises "
                "agents. " + ("It waits for its deadline." if proposal.deadline_at else
                              "It waits until someone is given the right to decide it."))

    def deadline(self, proposal: Proposal) -> str:
        """A waiting proposal's deadline and what then, in words ("" when it has none)."""
        return self._app._agency.deadlines.terms(proposal)

    def freshness(self, proposal: Proposal) -> Freshness:
        """Whether `proposal` still reads as it did (see `freshness`)."""
        return freshness(self._app, proposal)

    def effects(self, proposal: Proposal) -> list[EffectLine]:
        """What `proposal`'s call does, a line per effect, in a person's words with the path
        through the code beside them: each line as it was written when the call was proposed,
        put in words by the effect its action's code has now with that line, or else by the
        effect the line reads back as (a release moved the code; only a line that does not
        read back stays as it was written); lines that say the same words are one, with their
        paths beside them."""
        known = {}
        if proposal.action in self._app.actions:
            known = {e.explain(): e for e in self._app.actions.info(proposal.action).effects.effects}
        lines = []
        for line in proposal.effects:
            effect = known.get(line) or Effect.of_line(line)
            lines.append(EffectLine(words=effect.words(), code=effect.code()) if (
                effect is not None) else EffectLine(words=line, code=""))
        return _once(lines)

    def stamp(self, person: Principal) -> str:
        """A short text that changes when what waits for `person` changes, as the first page
        of their inbox lists it: a proposal arrives, or one is decided, withdrawn or put to
        another ("" when nothing waits). A page polls it to know when to refresh. (It was the
        newest proposal's id alone: one older, decided elsewhere, stayed listed as waiting on
        an open page, for a decision already taken.)"""
        person = self._app.people.get(person)
        c = proposals_table.c
        ids: dict[str, Any] = {}
        with self._app.database.reading() as db:
            for branch in self._visible(person):
                query = (select(c.id, c.created_at).where(branch, c.status == _WAITING)
                         .order_by(c.created_at.desc(), c.id.desc()).limit(DEFAULT_PAGE))
                ids.update((row.id, row.created_at) for row in db.execute(query))
        if not ids:
            return ""
        first = sorted(ids.items(), key=lambda pair: (pair[1], pair[0]), reverse=True)
        return hashlib.sha256(" ".join(i for i, _ in first[:DEFAULT_PAGE]).encode()
                              ).hexdigest()[:16]

    def _route_words(self) -> Callable[[Proposal], str]:
        cache: dict[str, str] = {}

        def words(proposal: Proposal) -> str:
            if proposal.decide_queue:
                return f"the {proposal.decide_queue} queue"
            if proposal.decide_person_id:
                key = proposal.decide_person_id
                if key not in cache:
                    found = self._app.people.find(key)
                    cache[key] = found.name if found else "someone no longer known"
                return cache[key]
            return "a supervisor"

        return words

    # -- tasks ---------------------------------------------------------------------------

    def tasks(self, person: Principal, *, status: TaskStatus | None = None,
              limit: int = DEFAULT_PAGE, after: str | None = None) -> Page[TaskSummary]:
        """The tasks `person` may see, newest first (only those in `status`, when given): work
        done for them, work for nobody by an agent they sponsor, and work whose proposals they
        may see (every task, for a supervisor)."""
        person = self._app.people.get(person)
        limit = max(1, min(limit, MAX_PAGE))
        cursor = _cursor(after)
        t = tasks_table.c
        query: Select[Any] = select(tasks_table).where(self._task_visible(person))
        if status is not None:
            query = query.where(t.status == status.value)
        if cursor is not None:
            query = query.where(or_(t.created_at < cursor[0],
                                    and_(t.created_at == cursor[0], t.id < cursor[1])))
        query = query.order_by(t.created_at.desc(), t.id.desc()).limit(limit + 1)
        with self._app.database.reading() as db:
            rows = [r._mapping for r in db.execute(query)]
            unpriced = _unpriced(db, [m["id"] for m in rows[:limit]
                                      if m["budget_usd"] == math.inf])
        items = [TaskSummary(id=m["id"], agent=m["agent"], skill=m["skill"],
                             status=TaskStatus(m["status"]), for_id=m["for_id"], steps=m["steps"],
                             spend_usd=m["spend_usd"], created_at=m["created_at"],
                             updated_at=m["updated_at"], problem=m["problem"] or "",
                             work=m["work_id"], cost_known=m["id"] not in unpriced)
                 for m in rows[:limit]]
        more = len(rows) > limit
        return Page(items=items, next=_cursor_of(items[-1].created_at, items[-1].id)
                    if more and items else None)

    def _task_visible(self, person: Principal) -> ColumnElement[bool]:
        if person.disabled:
            return false()
        if self.supervises(person):
            return true()
        seen = select(proposals_table.c.task_id).where(or_(*self._visible(person)))
        t = tasks_table.c
        theirs = [t.for_id == person.id, t.id.in_(seen)]
        told = self._sponsored_told
        sponsored = [*self._app._agency.sponsored_by(person), *(told(person) if told else ())]
        if sponsored:  # the work their agents do for nobody: its proposals are put to them
            theirs.append(and_(t.for_id.is_(None), t.agent.in_(sponsored)))
        return or_(*theirs)

    def may_see_task(self, person: Principal, task_id: str) -> bool:
        """Whether `person` may see task `task_id` (and its receipt): one they see the work or
        a proposal of, that one a deadline put to another included (`may_see`)."""
        person = self._app.people.get(person)
        query = select(tasks_table.c.id).where(tasks_table.c.id == task_id,
                                               self._task_visible(person))
        with self._app.database.reading() as db:
            found = db.execute(query).first()
        return found is not None or (not person.disabled and any(
            self.may_see(person, p) for p in self._app.proposals(task=task_id)
            if p.escalations))

    def task(self, person: Principal, task_id: str) -> str:
        """`task_id` (as signoff writes ids: ``3F2C…`` is ``3f2c…``), when `person` may see it;
        `NotFound` otherwise."""
        task_id = as_signoff_writes_ids(task_id)
        if "\x00" in task_id or not self.may_see_task(person, task_id):  # (as `proposal`)
            raise NotFound(f"There is no task with id {_said_back(task_id)} that "
                           f"{self._app.people.get(person).name} may see.")
        return task_id

    def may_stop(self, person: Principal, task_id: str) -> bool:
        """Whether `person` may stop task `task_id` (`App.stop`), had it not ended."""
        person = self._app.people.get(person)
        return may_stop(self._app._agency, task_id, by=person, supervises=self.supervises(person))

    # -- rules ---------------------------------------------------------------------------

    def rules(self, person: Principal, *, active_only: bool = False) -> list[StandingRule]:
        """The standing rules `person` may see: those they made or that work for them runs
        under — a rule for them, or for everybody (every one, for a supervisor), oldest first."""
        person = self._app.people.get(person)
        rules = self._app.rules(active_only=active_only)
        if self.supervises(person):
            return rules
        return [r for r in rules if r.for_id in (None, person.id) or r.made_by == person.id]

    def rule(self, person: Principal, rule_id: str) -> StandingRule:
        """One standing rule `person` may see; `NotFound` otherwise."""
        for rule in self.rules(person):
            if rule.id == rule_id:
                return rule
        raise NotFound(f"There is no standing rule with id {_said_back(rule_id)} that "
                       f"{self._app.people.get(person).name} may see.")

    def outgrown(self, rule: StandingRule) -> str:
        """What `rule`'s tool does now that it did not when the rule was made, in words: while
        it does, the rule lets nothing run alone (`StandingRules.done_since`; "" when nothing)."""
        return self._app._agency.decider.rules.done_since(rule) if rule.active else ""

    def covers(self, rule: StandingRule) -> str:
        """What `rule` lets its agent do, in words, naming the person whose work it covers: the
        one sentence the command line, the REST API and the inbox pages all say."""
        told = self._reads_outside_told
        outside = told(rule) if told is not None else self._reads_outside(rule)
        if rule.for_id is None:
            return rule_covers(rule, None, reads_outside=outside)
        whose = self._app.people.find(rule.for_id)
        return rule_covers(rule, whose.name if whose else "someone no longer known",
                           reads_outside=outside)

    def _reads_outside(self, rule: StandingRule) -> bool:
        """Whether the rule's agent has a tool, where the rule applies, whose results may be
        outside content (then a call they may have steered is proposed, rule or not)."""
        try:
            agent = self._app.agent(rule.agent).registered.agent
            skills = [agent.skill(rule.skill)] if rule.skill else list(agent.skills)
        except (UserError, LookupError):
            return False
        actions = self._app.actions
        return any(may_return_outside_content(actions.get(name))
                   for skill in skills for name in skill.tool_names if name in actions)


def _not_routed_work_of(person: Principal) -> ColumnElement[bool]:
    """A proposal that is not `person`'s own work routed by its skill (which they do not
    decide): for nobody, for another, or not routed. (Each branch its own: a `for_id` of NULL
    would make the negation of their conjunction NULL, which no row passes.)"""
    c = proposals_table.c
    return or_(c.for_id.is_(None), c.for_id != person.id, c.routed == false())


def _said_back(given: str, *, quoted: bool = False) -> str:
    """An id or a cursor as given, fit to be said back: as it is (quoted, when asked), or, when
    it is long or holds what cannot be shown (a control character), its beginning, escaped, and
    its length (a page of 5,000 characters was said back whole, NUL included)."""
    if len(given) <= 80 and given.isprintable():
        return repr(given) if quoted else given
    return f"{given[:40]!r}… ({len(given):,} character{'' if len(given) == 1 else 's'})"


def _cursor_of(created_at: datetime | None, item_id: str) -> str:
    """A cursor to the page after (created_at, id), safe in a URL as it is (its time in UTC,
    written with "Z": a "+00:00" reads back as " 00:00" from a query string)."""
    moment = f"{aware(created_at):%Y-%m-%dT%H:%M:%S.%fZ}" if created_at else ""
    return f"{moment}~{item_id}"


def _cursor(after: str | None) -> tuple[datetime, str] | None:
    """A cursor back into (created_at, id); `Invalid` for one this module did not write."""
    if not after:
        return None
    moment, sep, item_id = after.partition("~")
    try:
        if not sep or not item_id or "\x00" in item_id:  # (no id holds a NUL)
            raise ValueError(after)
        # (in UTC here, as it is compared: a time a zone away from the ends of the calendar
        # has no UTC of its own)
        return aware(datetime.fromisoformat(moment)).astimezone(UTC), item_id
    except (ValueError, OverflowError):
        raise Invalid(f"{_said_back(after, quoted=True)} is not a cursor from a previous page: "
                      "pass the `next` a page gave, or nothing for the first page.") from None
