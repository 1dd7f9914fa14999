"""The agents of an app: registering them, doing work with them, and what people see of it."""

from __future__ import annotations

import asyncio
import difflib
import logging
from dataclasses import dataclass, replace
from typing import Any
from uuid import UUID

from signoff.actions.registry import Actions
from signoff.agents import holds, model_specs
from signoff.agents import repository as repo
from signoff.agents.agent import Agent, Registered
from signoff.agents.deadlines import Deadlines
from signoff.agents.deciding import Decider
from signoff.agents.declared import (
    MAX_STEPS,
    check_declared,
    check_limits,
    check_output_tokens,
    check_words,
    checked_model,
    checked_subject,
    role_names,
)
from signoff.agents.events import Events
from signoff.agents.gate import gate
from signoff.agents.loop import Loop
from signoff.agents.model_specs import ModelSpec
from signoff.agents.oversight import Oversight
from signoff.agents.permits import Leave, Permits, tool_name
from signoff.agents.proposals import Proposal, ProposalStatus
from signoff.agents.proposing import Routing
from signoff.agents.receipts import Receipt, Unrecorded, unrecorded
from signoff.agents.skills import Route, Skill
from signoff.agents.states import CallState
from signoff.agents.tasks import Outcome, TaskStatus, task_id_of
from signoff.agents.turns import CallAnswer, GivenTurn, answers_of, take_turn
from signoff.exceptions import StoreError, UnknownId, UserError
from signoff.models.base import Model, Reply
from signoff.security.principals import AGENTS_DOMAIN, People, Principal, PrincipalKind
from signoff.store.database import Database

log = logging.getLogger("signoff.agents")

__all__ = ["MAX_STEPS", "Agency", "AgentHandle", "SkillLeave", "Skills"]


@dataclass(frozen=True, kw_only=True)
class SkillLeave:
    """One line of the skills catalogue: the leave an agent has with a tool in a skill."""

    agent: str
    """The agent."""
    skill: str
    """The skill."""
    tool: str
    """The tool."""
    leave: Leave
    """What it may do with it, by its declaration (standing rules aside)."""
    decided_by: str
    """Where its proposals go: "the person the work is for", a person, or a queue."""

    def __str__(self) -> str:
        return f"{self.agent} / {self.skill} / {self.tool}: {self.leave.words} → {self.decided_by}"


class AgentHandle:
    """An agent of this app, ready to work: ``app.agent(Estimator).do(skill, subject, for_=p)``."""

    def __init__(self, agency: Agency, registered: Registered) -> None:
        self._agency = agency
        self.registered = registered
        """The agent, its account and its sponsor."""

    @property
    def account(self) -> Principal:
        """The agent's own account."""
        return self.registered.account

    def do(
        self,
        skill: Skill[Any, Any] | type[Skill[Any, Any]] | str,
        subject: Any = None,
        *,
        for_: Principal | str | None = None,
        model: Model | ModelSpec | str | None = None,
        max_steps: int | None = None,
        budget_usd: float | None = None,
        model_spec: ModelSpec | None = None,
    ) -> Outcome:
        """Do one piece of work until it is done, waits on a person, or stops at a limit.
        `for_`: the person the work is for (a `Principal`, or their handle or id). `model`: a
        `Model`, a `ModelSpec`, or a model named in words as a spec names it
        (``"openai:gpt-4o-mini"``); the agent's own when not given. A model
        named in words or by `ModelSpec` is kept with the task, so that a worker in another process can make
        it again and go on after a decision made there, or a restart. `model_spec`: the spec
        a `model` given as an object was made from (wrapped in code of yours to show its
        progress, say), kept with the task in the same way."""
        agent = self.registered.agent
        self._agency.database.refuse_second_writer(f"A task of {agent.__name__}'s")
        for_ = self._person(for_)
        max_steps = max_steps if max_steps is not None else agent.max_steps
        budget_usd = budget_usd if budget_usd is not None else agent.budget_usd
        check_limits(max_steps, budget_usd)
        check_output_tokens(agent)  # (as declared now: a class attribute may have changed)
        own = self.skill(skill)
        check_words(agent, own)  # (as declared now, too)
        subject = checked_subject(own, subject)
        given, spec = _given_model(model)
        made = spec is not None  # a model made here from its spec: closed as the task ends
        if model_spec is not None:
            if not isinstance(model_spec, ModelSpec):
                raise UserError(f"model_spec takes the ModelSpec a model given as an object was "
                                f"made from, not {model_spec!r}.")
            if spec is not None or given is None:
                raise UserError("model_spec names what a model given as an object was made "
                                "from: give that model too, or the ModelSpec as model.")
            spec = model_spec
        if given is None:  # the agent's own, kept with the task when named as a spec names it
            given, spec = own_model(agent)
            made = spec is not None
        chosen = given
        if chosen is None:
            raise UserError(f"{agent.__name__} has no model: give one, do(..., model=...).")
        loop = self._agency.loop
        with self._agency.database.holding():  # one connection for the task's transactions
            task = loop.start(
                self.registered, own, subject, for_=for_, model=chosen,
                max_steps=int(max_steps), budget_usd=float(budget_usd),
                asked_now=self._agency.loop.runner is None,
            )
            if made:
                loop.made_models.add(task)
            if spec is not None:
                with self._agency.database.connect() as db:
                    model_specs.record(db, task, spec)
            return loop.go_on(task, loop.started(task))

    async def ado(
        self,
        skill: Skill[Any, Any] | type[Skill[Any, Any]] | str,
        subject: Any = None,
        *,
        for_: Principal | str | None = None,
        model: Model | ModelSpec | str | None = None,
        max_steps: int | None = None,
        budget_usd: float | None = None,
        model_spec: ModelSpec | None = None,
    ) -> Outcome:
        """`do`, without blocking the event loop (the work runs in a thread)."""
        return await asyncio.to_thread(self.do, skill, subject, for_=for_, model=model,
                                       max_steps=max_steps, budget_usd=budget_usd,
                                       model_spec=model_spec)

    def _person(self, for_: Any) -> Principal | None:
        """The person work is for, as given: a `Principal`, their handle, or None (nobody);
        `UserError` for anything else, or for a handle nobody has."""
        if isinstance(for_, str):
            for_ = self._agency.people.get(for_)
        if for_ is not None and not isinstance(for_, Principal):
            raise UserError(f"for_ takes a person (a Principal, or a handle), not {for_!r}.")
        # As given (a handle is read afresh; a Principal is not read again here, where every
        # task starts: another app's is told as the task is kept, and a decision reads its
        # decider afresh).
        if for_ is not None and for_.kind is not PrincipalKind.PERSON:
            # (its proposals were put to an account that decides nothing, and waited for ever)
            raise UserError(f"{for_.name} is an agent's own account, and work is done for a "
                            "person, who decides its proposals: give for_ a person, or None "
                            "for work for nobody (its sponsor decides).")
        if for_ is not None and for_.disabled:
            raise UserError(f"{for_.name} is disabled, and may not decide the proposals of work "
                            f"done for them: enable them (app.people.enable(...)), or give "
                            "for_ another person, or None for work for nobody.")
        return for_

    def start(
        self,
        skill: Skill[Any, Any] | type[Skill[Any, Any]] | str,
        subject: Any = None,
        *,
        for_: Principal | str | None = None,
        model_name: str,
        max_steps: int,
        work: str | None = None,
        continues: str | None = None,
        budget_usd: float | None = None,
    ) -> str:
        """Open a task whose turns a client gives (`take_turn`), as a client acting as the
        model does over MCP; its id. The client pays for its own model, which is not counted;
        what the agent's tools spend is, within `budget_usd` (the agent's, unless given),
        which the tasks of one work share.

        Given `work` (an id the caller makes, one per client session, of at most 36 characters:
        a UUID fits), the task shares that work with the others started with it: what any of
        them has seen or sees later (an approved call's result) labels what each is asked to
        do, so a read in one skill's task, or in a task that waits on a decision, still holds
        back a call it could have steered in another. A work is one agent's, for one person
        (`UserError` otherwise). `continues`: the task of the work that waits on a decision,
        which this one goes on from (its receipt says so; `UserError` when it is not of the
        work)."""
        own = self.skill(skill)
        for_ = self._person(for_)
        if not isinstance(model_name, str) or not model_name.strip():
            raise UserError(f"model_name names the client's model, as text (\"claude-desktop\"), "
                            f"not {model_name!r}.")
        budget_usd = self.registered.agent.budget_usd if budget_usd is None else budget_usd
        check_limits(max_steps, budget_usd)
        return self._agency.loop.start(
            self.registered, own, checked_subject(own, subject), for_=for_,
            model=GivenTurn(model_name, Reply()), max_steps=max_steps,
            budget_usd=float(budget_usd), work=work, continues=continues)

    def subject_problem(self, skill: Skill[Any, Any], subject: Any) -> str:
        """"" when `skill` works on `subject`; else why not, in words."""
        try:
            checked_subject(skill, subject)
        except UserError as refused:
            return str(refused)
        return ""

    def take_turn(self, task: str, reply: Reply, *, model_name: str) -> list[CallAnswer]:
        """Give a task opened by `start` one turn: each call is gated, run alone, proposed or
        refused, as a model's would be. What each came to (nothing while the task waits)."""
        return take_turn(self._agency.loop, self._agency.database, task, reply,
                         model_name=model_name)

    def end(self, task: str, *, why: str) -> bool:
        """End a task opened by `start` once its client has gone: it halts, and its receipt
        says `why`; a proposal it waits on can still be decided. Whether it has ended (not while
        a turn of it is being taken)."""
        return self._agency.loop.end_given(task, why)

    def answers(self, task: str, turn: int) -> list[CallAnswer]:
        """What each call of one turn of a task came to, as it stands now."""
        return answers_of(self._agency.database, task, turn)

    def skill(self, skill: Skill[Any, Any] | type[Skill[Any, Any]] | str) -> Skill[Any, Any]:
        """One of the agent's skills, by class, instance or name."""
        return self.registered.agent.skill(skill)  # (`NoSuchSkill`, a UserError, if none)

    def resume(self, task: str | UUID | Outcome, *,
               model: Model | ModelSpec | str | None = None) -> Outcome:
        """Go on with a task this process did not start (after a restart), with `model` (as
        `do` takes it; where the app's runner steps it: here, or in its Temporal workers). The
        task is named by its Outcome or its id (text, or a UUID), and is this agent's work
        (`UserError` for another agent's: resume it with its own). A task that has ended is
        not gone on with: its outcome is told, and `model` (checked all the same) is not
        asked."""
        task = task_id_of(task)
        with self._agency.database.reading() as db:
            row = repo.load_task(db, task)
        if row is None:
            raise UnknownId(f"There is no task with id {_id_shown(task)}.")
        agent = self.registered.agent
        if row.agent != agent.agent_name():
            # (its model would have been this agent's, or the one given for this agent's work)
            raise UserError(f"Task {task} is the work of the agent {row.agent}, not of "
                            f"{agent.__name__}: resume it with its own agent, "
                            f"app.agent({row.agent!r}).resume(...).")
        chosen, spec = _given_model(model)
        if TaskStatus(row.status).ended:  # nothing more happens to it: nothing goes on
            close = getattr(chosen, "close", None) if spec is not None else None
            if callable(close):  # (made here from its name, for nothing)
                close()
            return self._agency.loop.outcome(task)
        if chosen is None:
            chosen, spec = own_model(self.registered.agent)
        if chosen is not None and holds.stepped_here(task):  # (its model is the one it has)
            log.warning("Task %s is being stepped in this process now: it goes on with the "
                        "model it has, not the one given to resume.", task)
        elif chosen is not None:
            self._agency.loop.models[task] = chosen
            if spec is not None:
                self._agency.loop.made_models.add(task)
        return self._agency.loop.go_on(task)


def _given_model(model: Any, *, whose: str = "model"
                 ) -> tuple[Model | None, ModelSpec | None]:
    """The model given to `do` or `resume` (None when none was: the agent's is used), and the
    spec it was made from when it was named in words; `UserError` for anything else."""
    if model is None:
        return None, None
    if isinstance(model, str):
        model = ModelSpec(spec=model)
    if isinstance(model, ModelSpec):
        return model.make(), model
    if isinstance(model, Model):
        return checked_model(model), None
    raise UserError(f"{whose} takes a Model, a ModelSpec, or a model named in words "
                    f"(\"openai:gpt-4o-mini\"), not {model!r}.")


def _same_class(given: type[Agent], registered: type[Agent]) -> bool:
    """Whether `given` is the registered agent class, or the same class made again (a module
    reloaded makes it, and registering it takes the place of the first)."""
    return given is registered or (given.__module__, given.__qualname__) == (
        registered.__module__, registered.__qualname__)


def _sponsor_shown(sponsor: Principal | str | None) -> str:
    """A sponsor as a message names it."""
    return sponsor.name if isinstance(sponsor, Principal) else repr(sponsor)


def _where(function: Any) -> str:
    """A function as a message names it: where it is defined."""
    module = getattr(function, "__module__", None) or "?"
    return f"{getattr(function, '__qualname__', None) or repr(function)} of {module}"


def _id_shown(given: str) -> str:
    """An id as a message names it: whole, unless it is too long to be one."""
    return given if len(given) <= 80 else f"{given[:20]}… ({len(given)} characters)"


def own_model(agent: type[Agent]) -> tuple[Model | None, ModelSpec | None]:
    """The model `agent` declares (`Agent.model`), made when it is named in words or by a
    `ModelSpec` (with that spec, to keep with a task), or None; `UserError` for anything else."""
    return _given_model(agent.model, whose=f"{agent.__name__}.model")


class Skills:
    """The skills of the app's agents: ``app.skills.catalog()``."""

    def __init__(self, agency: Agency) -> None:
        self._agency = agency

    def catalog(self, agent: type[Agent] | str | None = None,
                skill: Skill[Any, Any] | type[Skill[Any, Any]] | str | None = None) -> list[SkillLeave]:
        """The leave per agent, skill and tool, and where its proposals go."""
        lines = []
        for registered in self._agency.registered():
            cls = registered.agent
            if agent is not None and cls is not agent and cls.agent_name() != agent:
                continue
            for own in cls.skills:
                if skill is not None:
                    try:
                        if cls.skill(skill) is not own:
                            continue
                    except LookupError:
                        continue
                permits = [cls.may] + ([own.may] if own.may is not None else [])
                for name in own.tool_names:
                    if name not in self._agency.actions:
                        leave = Leave.NEVER
                    else:
                        info = self._agency.actions.info(name)
                        leave = gate(name, info.effects, permits, query=info.query).leave
                    try:
                        route = own.decided_by(name)
                    except Exception as error:  # the app's code: logged, the rest listed
                        # Its words may reach a model (a served tool's description): what
                        # failed is in the log, not in them.
                        log.warning("%s.decided_by(%r) raised %s%s: who decides its proposals "
                                    "is not known now", type(own).__name__, name,
                                    type(error).__name__, f" ({error})" if str(error) else "",
                                    exc_info=True)
                        to = ("someone not known now (the skill's routing failed; the app's "
                              "log has the details)")
                    else:
                        to = route.terms if route else (
                            "the person the work is for" if leave is not Leave.NEVER else "nobody")
                    if leave is Leave.ALONE:
                        to = "nobody: it runs alone"
                    lines.append(SkillLeave(agent=cls.agent_name(), skill=own.name, tool=name,
                                            leave=leave, decided_by=to))
        return lines


class Agency:
    """Everything agents need from the app, and the people's verbs on their work."""

    def __init__(self, *, database: Database, actions: Actions, people: People,
                 oversight: Oversight) -> None:
        self.database = database
        self.actions = actions
        self.people = people
        self.events = Events()
        """Handlers of AgentProposed, AgentProposalDecided and AgentTaskWaiting."""
        self.oversight = oversight
        self._agents: dict[str, Registered] = {}
        self._declared: dict[str, tuple[type[Agent], Principal | str | None]] = {}
        self._unsponsored: set[str] = set()  # agents whose sponsor was told unknown, once
        self._names: dict[str, str] = {}  # a person's name by id (names do not change)
        self.loop = Loop(database=database, actions=actions, people=people, events=self.events,
                         agents=self.registered_as, route_words=self.route_words,
                         decider_of=self.decider_of)
        self.decider = Decider(database=database, actions=actions, people=people, loop=self.loop,
                               events=self.events, agents=self.registered_as,
                               oversight=oversight, route_words=self.route_words,
                               pass_deadline=lambda proposal: (
                                   self.deadlines.pass_before_deciding(proposal)))
        self.deadlines = Deadlines(database=database, loop=self.loop, events=self.events,
                                   agents=self.registered_as, route_words=self.route_words,
                                   go_on=self.decider.went_on)
        """Passes proposals' deadlines (withdrawn, or put to the next decider)."""
        self.loop.standing = self.decider.rules  # (a rule lets a call run alone while it holds)
        self.skills = Skills(self)

    # -- agents --------------------------------------------------------------------------

    def add(self, agent: type[Agent], *, sponsor: Principal | str | None) -> None:
        """Register an agent. Its account is made (or brought up to date) in the directory when
        it is first needed, so that an app module can register its agents as it is imported;
        the sponsor may be given by handle for the same reason."""
        if not (isinstance(agent, type) and issubclass(agent, Agent)) or agent is Agent:
            raise UserError(f"{agent!r} is not an Agent class of the app's (class Estimator"
                            "(Agent): …).")
        if sponsor is not None and not isinstance(sponsor, Principal | str):
            raise UserError(f"{agent.__name__}'s sponsor is a person (a Principal, or their "
                            f"handle), not {sponsor!r}.")
        if (sponsor.kind is not PrincipalKind.PERSON if isinstance(sponsor, Principal)
                else isinstance(sponsor, str) and sponsor.strip().lower().endswith(
                    AGENTS_DOMAIN)):
            # (the work it did for nobody was put to an account that decides nothing)
            raise UserError(f"{agent.__name__}'s sponsor is a person, who decides the proposals "
                            f"of its work for nobody; {_sponsor_shown(sponsor)} is an agent's "
                            "own account, which decides nothing: give a person.")
        check_declared(agent)
        for own in agent.skills:
            for tool in own.tool_names:
                if tool not in self.actions:
                    raise UserError(f"{agent.__name__}'s skill {own.name} names {tool}, which is "
                                    "not an action of this app.")
            self._check_functions(agent, own)
        for whose, may in [(agent.__name__, agent.may), *(
                (f"{agent.__name__}'s skill {own.name}", own.may) for own in agent.skills
                if own.may is not None)]:
            self._check_named(whose, may)
        known = self._declared.get(agent.agent_name())
        if known is not None and (known[0].__module__, known[0].__qualname__) != (
                agent.__module__, agent.__qualname__):
            # (the same class made again, as a module reloaded makes it, takes its place)
            raise UserError(
                f"An agent named {agent.agent_name()} is registered already: the class "
                f"{known[0].__qualname__} of {known[0].__module__}. {agent.__qualname__} of "
                f"{agent.__module__} would take its place, and its tasks, proposals and rules "
                "with them: give this agent a class name of its own.")
        self._declared[agent.agent_name()] = (agent, sponsor)
        self._agents.pop(agent.agent_name(), None)

    def _check_functions(self, agent: type[Agent], skill: Skill[Any, Any]) -> None:
        """Refuse a tool given as a function that is not the one this app offers by its name
        (another app's action of the same name, say): the model's calls of it ran this app's."""
        tools = skill.tools
        for tool in tools if isinstance(tools, list | tuple | set | frozenset) else ():
            if isinstance(tool, str):
                continue
            name = tool_name(tool)
            function = self.actions.get(name).function
            if tool is function or tool == function.__wrapped__:
                continue
            raise UserError(
                f"{agent.__name__}'s skill {skill.name} gives the tool {name} as a function "
                f"that is not this app's action of that name ({_where(tool)}, where the app's "
                f"is {_where(function.__wrapped__)}): give this app's action (or its name), or "
                "register that function with this app under a name of its own.")

    def _check_named(self, whose: str, may: Permits) -> None:
        """Refuse permits whose lists name a tool this app has no action of: a name mistyped
        (``never=["scrap_repiar"]``) left the tool it meant as any other, offered and proposed.
        (A tool of the app's that the agent does not use may be named: one `Permits` may serve
        several agents.)"""
        for kind, tool in may.named():
            if tool in self.actions:
                continue
            offered = [info.name for info in self.actions.catalog()]
            close = difflib.get_close_matches(tool, offered, n=1)
            meant = f"did you mean {close[0]}? " if close else ""
            raise UserError(f"{whose}'s permits name {tool} in {kind}, which is not an action "
                            f"of this app: {meant}Name a tool by its action's name, or give the "
                            f"function itself ({kind}=[{close[0] if close else 'the_action'}]).")

    def handle(self, agent: type[Agent] | str) -> AgentHandle:
        """The handle of a registered agent."""
        if not isinstance(agent, str) and not (isinstance(agent, type) and issubclass(agent, Agent)):
            raise UserError(f"An agent is named by its class or its name (Estimator, "
                            f"\"estimator\"), not {agent!r}.")
        registered = self.registered_as(agent if isinstance(agent, str) else agent.agent_name())
        if isinstance(agent, type) and not _same_class(agent, registered.agent):
            # (a class of the same name, not registered: its work was done as the other's)
            raise UserError(
                f"{agent.__qualname__} of {agent.__module__} is not an agent of this app: the "
                f"agent named {agent.agent_name()} is the class {registered.agent.__qualname__} "
                f"of {registered.agent.__module__}. Name that one, or register this one under "
                "a class name of its own (app.add_agent).")
        return AgentHandle(self, registered)

    def registered_as(self, name: str) -> Registered:
        """The registered agent called `name`, its account made or brought up to date."""
        found = self._agents.get(name)
        if found is not None and (found.sponsor is not None or self.database.in_transaction()):
            return found  # (a sponsor not known yet is looked for again outside transactions)
        try:
            agent, sponsor_spec = self._declared[name]
        except KeyError:
            raise UserError(f"There is no agent {name!r} in this app; its agents are: "
                            f"{', '.join(sorted(self._declared)) or 'none'} (app.add_agent "
                            "registers one).") from None
        sponsor = self.people.find(sponsor_spec) if sponsor_spec is not None else None
        if sponsor is None and sponsor_spec is not None and name not in self._unsponsored:
            self._unsponsored.add(name)
            log.warning("%s's sponsor, %s, is not one of the app's people (yet): its work for "
                        "nobody goes to the supervisors until they are.", agent.__name__,
                        sponsor_spec.name if isinstance(sponsor_spec, Principal) else sponsor_spec)
        if found is None:
            account = self.people.find(agent.account_handle())
            if account is None:
                try:
                    account = self.people.add(agent.account_handle(), agent.__name__,
                                              roles=agent.roles, kind=PrincipalKind.AGENT,
                                              sponsor=sponsor)
                except (UserError, StoreError):  # another process of the app, begun at once,
                    # made it between our look and our add: it is the one
                    account = self.people.find(agent.account_handle())
                    if account is None:
                        raise
            elif account.kind is not PrincipalKind.AGENT:  # (made before people.add refused it)
                raise UserError(
                    f"The handle {account.handle!r}, which the account of the agent "
                    f"{agent.__name__} has, is a person's ({account.name}): the app would give "
                    "them its agent's roles and work. Give that person another handle in the "
                    "principals table, and the app makes the agent's account.")
            elif account.roles != role_names(agent.roles):
                account = self.people.set_roles(account, agent.roles)
        else:
            account = found.account
        registered = Registered(agent=agent, account=account, sponsor=sponsor)
        self._agents[name] = registered
        return registered

    def sponsored_by(self, person: Principal) -> list[str]:
        """The names of the agents `person` answers for (whose sponsor they are): the work those
        agents do for nobody is put to them, as work for them is."""
        names = []
        for name, (_, sponsor) in self._declared.items():
            found = self.people.find(sponsor) if isinstance(sponsor, str) else sponsor
            if found is not None and found.id == person.id:
                names.append(name)
        return names

    def registered(self) -> list[Registered]:
        """Every registered agent."""
        return [self.registered_as(name) for name in self._declared]

    # -- routing -------------------------------------------------------------------------

    def decider_of(self, registered: Registered, skill: Skill[Any, Any], tool: str,
                   for_id: str | None) -> Routing:
        """Who decides a proposal of `tool`, and how long it waits for them."""
        route = skill.decided_by(tool)
        if route is not None and not isinstance(route, Route):
            raise UserError(f"{type(skill).__name__}.decided_by({tool!r}) returned {route!r}: it "
                            "returns a Route (Route.to_person(p), Route.to_queue(role)) or None.")
        if route is not None and route.person is not None and (
                self.people.find(route.person.id) is None):
            raise UserError(f"{type(skill).__name__}.decided_by({tool!r}) routes to "
                            f"{route.person.name}, who is not one of this app's people.")
        if route is not None:
            return Routing(person_id=route.person.id if route.person else None,
                           queue=route.queue or None, routed=True, within=route.deadline)
        if for_id is not None:
            return Routing(person_id=for_id, queue=None, routed=False)
        sponsor = registered.sponsor
        return Routing(person_id=sponsor.id if sponsor else None, queue=None, routed=False)

    def route_words(self, proposal: Proposal) -> str:
        """Who decides a proposal, in words."""
        if proposal.decide_queue:
            return f"the {proposal.decide_queue} queue"
        if proposal.decide_person_id:
            name = self._names.get(proposal.decide_person_id)
            if name is None:
                found = self.people.find(proposal.decide_person_id)
                if found is None:
                    return "someone no longer known"
                name = self._names[proposal.decide_person_id] = found.name
            return name
        return "a supervisor"

    # -- what people see -----------------------------------------------------------------

    def proposals(self, *, status: ProposalStatus | None = None, agent: str | None = None,
                  task: str | None = None, limit: int | None = None) -> list[Proposal]:
        """Proposals, newest first, filtered by status, agent and task."""
        with self.database.reading() as db:
            found = repo.proposals_where(db, status=status.value if status else None,
                                         agent=agent, task=task, limit=limit)
        return [repo.replaced(p, decide_by=self.route_words(p)) for p in found]

    def proposals_for(self, person: Principal) -> list[Proposal]:
        """The proposals `person` may decide now."""
        person = self.people.get(person)
        return [p for p in self.proposals(status=ProposalStatus.WAITING)
                if not self.decider.refusal_to_decide(p, person)]

    def proposal(self, proposal_id: str) -> Proposal:
        """One proposal."""
        with self.database.reading() as db:
            found = repo.load_proposal(db, proposal_id)
        if found is None:
            raise UnknownId(f"There is no proposal with id {proposal_id}.")
        return replace(found[0], decide_by=self.route_words(found[0]))

    def reads_as_proposed(self, proposal: Proposal) -> bool:
        """Whether a proposal's fingerprint reads now as it did: the same version of what it acts
        on (the skill's `version_of` now), the same skill version and instructions. A proposal
        that does not will not run, whoever says yes."""
        from signoff.agents.proposing import fingerprint_of

        registered = self.registered_as(proposal.agent)
        try:
            skill = registered.agent.skill(proposal.skill)
        except LookupError:
            return False
        with self.database.reading() as db:
            task = repo.load_task(db, proposal.task)
        if task is None:
            return False
        now = fingerprint_of(
            proposal, self.loop.instructions_now(task),
            subject_version=skill.version_of(proposal.action, proposal.arguments),
            skill_version=skill.version,
        )
        return now == proposal.fingerprint

    def receipt(self, task: str) -> Receipt:
        """Everything task `task` did, in words and as data."""
        with self.database.reading() as db:
            row = repo.load_task(db, task)
            if row is None:
                raise UnknownId(f"There is no task with id {task}.")
            entries = repo.entries_of(db, task)
            # What it began and has not recorded the end of (running now, or cut off by a
            # crash before the task is stepped again): told, not left out.
            running = [c for c in repo.calls_of(db, task) if c.state == CallState.RUNNING]
            approved: dict[str, str] = {}
            if running:
                for p in repo.proposals_where(db, status=ProposalStatus.APPROVED.value,
                                              task=task):
                    found = repo.load_proposal(db, p.id)
                    if found is not None and p.decided_by is not None:
                        approved[found[1]] = p.decided_by
            names = {k: v.name for k, v in self.people.find_each(
                list(approved.values()), within=db).items()} if approved else {}
        declared = self._declared.get(row.agent)
        begun = unrecorded(
            agent=declared[0].__name__ if declared is not None else row.agent, at=repo.now(),
            model=row.model, reserved_usd=row.reserved_usd,
            calls=[Unrecorded(tool=c.tool, arguments=c.arguments,
                              approved_by=names.get(approved[c.id], "someone no longer known")
                              if c.id in approved else None) for c in running])
        return Receipt(task=task, agent=row.agent, skill=row.skill, status=row.status,
                       entries=tuple(entries) + begun)
