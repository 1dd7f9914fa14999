"""The app: its records, its people, and the actions it offers by name."""

from __future__ import annotations

import dataclasses
import logging
import os
import secrets
import types
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any
from uuid import UUID

from sqlalchemy.orm import Session

from signoff._extras import install_extra
from signoff.actions.consent import ConsentSeal, load_or_create_key
from signoff.actions.declare import ActionFunction, ActionOptions, Untrusted
from signoff.actions.registry import Actions
from signoff.agents.agency import Agency, AgentHandle, Skills
from signoff.agents.agent import Agent
from signoff.agents.deadlines import DeadlinePassed
from signoff.agents.oversight import Oversight
from signoff.agents.proposals import Decision, Proposal, ProposalStatus
from signoff.agents.receipts import Receipt
from signoff.agents.rules import StandingRule
from signoff.agents.skills import Skill
from signoff.agents.stopping import stop_task
from signoff.agents.tasks import Outcome, id_named, task_id_of
from signoff.engine.temporal import Temporal
from signoff.engine.worker import STUCK_AFTER, Worker
from signoff.exceptions import NotAuthorized, UnknownId, UserError
from signoff.security import policies
from signoff.security.acting import SYSTEM, ActingAs
from signoff.security.credentials import Credentials
from signoff.security.policies import Policy
from signoff.security.principals import People, Principal
from signoff.security.records import RecordBase, make_record_base
from signoff.security.sessions import open_session
from signoff.store import migrate, tables
from signoff.store.database import Database, database_url_for

if TYPE_CHECKING:
    from signoff.engine.temporal.runner import TemporalRunner
    from signoff.engine.temporal.serving import TemporalWorker

__all__ = ["App"]

log = logging.getLogger("signoff.app")


class App:
    """An app: ``App("workshop")`` keeps its data in ``workshop.db``; tests use
    ``App("t", database="sqlite://")``.

    The consent key comes from `key` (bytes, or text taken as its UTF-8 bytes: a key written in
    hex is ``bytes.fromhex(...)``), else the ``SIGNOFF_KEY`` environment variable (hex), else
    `key_file`, else a file beside the SQLite database (``workshop.key``), made on first use with
    mode 0600. An in-memory app with none of these uses a key that lives as long as the process;
    one on another database (PostgreSQL) uses ``NAME.key`` in the working directory, and says so
    as it makes it: give every process of the app the same ``SIGNOFF_KEY`` or `key_file`, or
    each refuses the others' consent tokens.

    Its tasks go on in the process that starts or decides them, unless `runner` (else the
    ``SIGNOFF_TEMPORAL`` environment variable) names a Temporal server: then each task is a
    workflow there, stepped by the app's Temporal workers (``signoff worker --temporal``).
    """

    def __init__(
        self,
        name: str,
        *,
        database: str | None = None,
        key: bytes | str | None = None,
        key_file: str | Path | None = None,
        runner: Temporal | None = None,
    ) -> None:
        if not isinstance(name, str) or not name.replace("-", "_").isidentifier():
            raise UserError(f"An app's name is a short word such as 'workshop', not {name!r}.")
        if database is not None and not isinstance(database, str):
            raise UserError(f"An app's database is a URL (sqlite:///shop.db, "
                            f"postgresql+psycopg://…), not {database!r}.")
        self.name = name
        """The app's name."""
        self.database = Database(database or database_url_for(name))
        """Where the app's records and signoff's own tables live."""
        self.Record: type[RecordBase] = make_record_base()
        """The base class of this app's records: ``class Repair(app.Record): ...``."""
        self.database.holds(tables.metadata, migrations=migrate.upgrade)
        self.database.holds(self.Record.metadata)  # type: ignore[attr-defined]
        self.people = People(self.database)
        """The people and agent accounts of this app."""
        self.credentials = Credentials(self.database, self.people)
        """Their passwords and bearer tokens (stored hashed)."""
        # (a key of another kind, or too short, failed at the first consent, once a TypeError)
        if key is not None and not (isinstance(key, bytes | str) and len(
                key.encode() if isinstance(key, str) else key) >= 16):
            given = (f"{len(key.encode() if isinstance(key, str) else key)} bytes"
                     if isinstance(key, bytes | str) else f"a {type(key).__name__}")
            raise UserError(f"key is the app's secret for consent tokens, bytes or text of 16 "
                            f"bytes or more (os.environ['SIGNOFF_KEY'], say), not {given}.")
        self._key = key
        self._key_file = Path(key_file) if key_file is not None else None
        self._seal: ConsentSeal | None = None
        self.actions = Actions(database=self.database, people=self.people, seal=self.consent_seal)
        """The actions this app offers by name."""
        self.oversight = Oversight(
            decides_agent_proposals=policies.anyone,
            widens_agent_autonomy=policies.person,
            supervises_agents=policies.nobody,
        )
        """Who decides agents' proposals, who may widen their autonomy, who supervises them.
        Set its fields to the app's policies (``app.oversight.supervises_agents = is_manager``)."""
        self._agency = Agency(database=self.database, actions=self.actions, people=self.people,
                              oversight=self.oversight)
        self.runner: Temporal | None = None
        """Where tasks run: on this Temporal server, or in-process (None)."""
        self._temporal: TemporalRunner | None = None
        self._run_on(runner if runner is not None else Temporal.from_environment())

    # -- declaring -----------------------------------------------------------------------

    def action(
        self,
        fn_or_label: Any = None,
        /,
        *,
        name: str | None = None,
        query: bool = False,
        authorize: Policy | None = None,
        idempotent: bool = False,
        untrusted: Untrusted = None,
    ) -> Any:
        """Offer a function by name: ``@app.action``, ``@app.action("Set the rush")``,
        ``@app.action(query=True)``, ``@app.action(authorize=is_boss)``,
        ``@app.action(untrusted=True)`` (what it returns is outside content, such as an e-mail's
        body: see `signoff.limits.provenance`). `untrusted` is True, False, or a function of the
        returned value (its JSON) answering yes, no, or why, for results that mix both; by default
        (None) what an action that reaches outside returns is outside content, what any other
        returns trusted.

        ``idempotent=True`` says it is safe to run again: a call of it that a crash cut off before
        its outcome was recorded is run again (an approved call, again on behalf of its approver).
        Without it, such a call (one that reaches outside) runs at most once: it is not run again
        blindly, and its outcome is told as unknown."""

        def register(fn: Callable[..., Any], label: str | None) -> ActionFunction[..., Any]:
            return self.actions.register(
                fn, label=label, name=name, query=query, authorize=authorize,
                idempotent=idempotent, untrusted=untrusted,
            )

        if callable(fn_or_label) and not isinstance(fn_or_label, str):
            return register(fn_or_label, None)
        return lambda fn: register(fn, fn_or_label)

    def add_action(
        self,
        fn: Callable[..., Any],
        *,
        label: str | None = None,
        name: str | None = None,
        query: bool = False,
        authorize: Policy | None = None,
        idempotent: bool = False,
        provided: Mapping[str, str] | None = None,
        untrusted: Untrusted = None,
    ) -> ActionFunction[..., Any]:
        """Offer an existing function by name; `provided` maps its context parameters to what
        the app provides (``provided={"db": "session"}``); `untrusted` says what it returns is
        outside content (a tool of an upstream MCP server, say)."""
        if isinstance(fn, ActionFunction) and fn.action_name in self.actions and (
                self.actions.get(fn.action_name).function is fn):
            raise UserError(f"{fn.action_name} is an action of this app already (@app.action): "
                            "it needs no add_action.")
        if isinstance(fn, ActionFunction):
            raise UserError(f"{fn.action_name} is marked as an action already (@action): "
                            f"register it with app.collect({fn.__wrapped__.__name__}), as its "
                            "mark declares it, or give add_action the function unmarked.")
        function = ActionFunction(fn, ActionOptions())
        return self.actions.register(
            function, label=label, name=name, query=query, authorize=authorize,
            idempotent=idempotent, provided=provided or {}, untrusted=untrusted,
        )

    def collect(self, *sources: types.ModuleType | Callable[..., Any]) -> list[str]:
        """Register the ``@action``-marked functions of these modules (or these functions)."""
        return self.actions.collect(*sources)

    def provide(self, name: str, provider: Callable[..., Any]) -> None:
        """Fill context parameters ``Provided(name)`` with what `provider` gives (it takes
        nothing, or the run's context)."""
        self.actions.providers.add(name, provider)

    # -- acting --------------------------------------------------------------------------

    @contextmanager
    def session(self, *, as_: Principal | Iterable[Principal] | ActingAs | str
                ) -> Iterator[Session]:
        """A SQLAlchemy session acting as `as_` (a person's handle too), committed when the
        block ends (rolled back on an error). Every load and flush is checked against the
        record rules. On SQLite the
        block holds the database's one write lock from its first statement: an agent's task, or
        an action that writes, is refused inside it (it would wait on that lock): start them
        after the block."""
        acting = self._as_they_are_now(ActingAs.of(self.people.get(as_) if isinstance(as_, str)
                                                    else as_))
        session = open_session(self.database, acting)
        try:
            with session.begin():
                yield session
        finally:
            session.close()

    def _as_they_are_now(self, acting: ActingAs) -> ActingAs:
        """The acting set with each principal read afresh: roles taken away are gone."""
        if acting.system:
            return acting
        now = []
        for principal in acting:
            found = self.people.find(principal.id)
            if found is None:
                raise NotAuthorized(f"{principal.name} is not known to this app.",
                                    principal=principal.name)
            now.append(found)  # a disabled principal is admitted by no rule
        return ActingAs.of(now)

    @property
    def system(self) -> ActingAs:
        """The app acting for itself, bound by no record rule: for setup code only."""
        return SYSTEM

    def roles_named(self) -> frozenset[str]:
        """The roles the app's policies name: its records' rules, its actions' `authorize`, and
        its oversight (a role a `policy.where` test reads, or a queue's, is not known here)."""
        named: set[str] = set()
        pending = [self.Record]
        while pending:
            record = pending.pop()
            pending.extend(record.__subclasses__())
            for rule in getattr(record, "__security__", ()):
                named |= rule.when.roles
        for found in self.actions.policies():
            named |= found.roles
        for field in dataclasses.fields(self.oversight):
            named |= getattr(self.oversight, field.name).roles
        return frozenset(named)

    # -- agents --------------------------------------------------------------------------

    def add_agent(
        self, agent: type[Agent], *, sponsor: Principal | str | None = None
    ) -> None:
        """Register an agent class; its own account (with its roles) is made in the directory
        when first needed. The sponsor (a person, or their handle) decides the proposals of work
        done for nobody."""
        self._agency.add(agent, sponsor=sponsor)

    def agent(self, agent: type[Agent] | str) -> AgentHandle:
        """A registered agent, ready to work: ``app.agent(Estimator).do(skill, subject, for_=p)``."""
        return self._agency.handle(agent)

    @property
    def skills(self) -> Skills:
        """The skills of the app's agents: ``app.skills.catalog()``."""
        return self._agency.skills

    def on(self, event: type[Any], handler: Callable[[Any], None]) -> None:
        """Call `handler` with every event of type `event` (``AgentProposed``, ...)."""
        self._agency.events.on(event, handler)

    def proposals(
        self, *, status: ProposalStatus | str | None = None,
        agent: type[Agent] | str | None = None, task: Outcome | str | UUID | None = None,
        limit: int | None = None,
    ) -> list[Proposal]:
        """Proposals, newest first, filtered by status (a `ProposalStatus`, or its name in any
        case: "waiting"), agent and task."""
        if agent is not None and not isinstance(agent, str) and not (
                isinstance(agent, type) and issubclass(agent, Agent)):
            raise UserError(f"agent is an agent's class or its name (Estimator, \"estimator\"), "
                            f"not {agent!r}.")
        name = agent.agent_name() if isinstance(agent, type) else agent
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                                  or limit < 1):
            raise UserError(f"limit is how many proposals at most, 1 or more (or None for all), "
                            f"not {limit!r}.")
        return self._agency.proposals(status=_status(status), agent=name, task=_task_id(task),
                                      limit=limit)

    def proposals_for(self, person: Principal) -> list[Proposal]:
        """The proposals `person` may decide now, newest first."""
        person = self._principal(person, "proposals_for takes a person")
        with self._one_of_ours(person):
            return self._agency.proposals_for(person)

    def proposal(self, proposal: Proposal | str | UUID) -> Proposal:
        """A proposal as it stands now."""
        return self._agency.proposal(_proposal_id(proposal))

    def approve(
        self, proposal: Proposal | str | UUID, *, by: Principal, always_like_this: bool = False,
        edited: Mapping[str, Any] | None = None,
    ) -> Decision:
        """Say yes: the call runs now as `by` and the agent together (only what both may).
        `edited` changes argument values (never the tool); `always_like_this` also makes a
        standing rule for this tool in this skill, in the work the proposal is in (for the
        person it is for; refused for work for nobody, and with `edited`)."""
        if edited is not None and (not isinstance(edited, Mapping) or not all(
                isinstance(name, str) for name in edited)):
            raise UserError(f"edited takes the changed values by argument name "
                            f"({{'price': 40}}), not {edited!r}.")
        decider = self._decider(by)
        with self._one_of_ours(decider):
            return self._agency.decider.approve(
                _proposal_id(proposal), by=decider,
                always_like_this=_flag(always_like_this, "always_like_this"), edited=edited)

    def reject(self, proposal: Proposal | str | UUID, *, by: Principal, reason: str
               ) -> Decision:
        """Say no, with a reason; the agent is told it and goes on."""
        if not isinstance(reason, str):
            raise UserError(f"A no's reason is words the agent is told, not {reason!r}.")
        decider = self._decider(by)
        with self._one_of_ours(decider):
            return self._agency.decider.reject(_proposal_id(proposal), by=decider,
                                               reason=reason)

    def stop(self, task: Outcome | str | UUID, *, by: Principal | str, reason: str = ""
             ) -> Outcome:
        """Stop a task that has not ended: it ends Halted, its receipt saying that `by` stopped
        it and why, and each proposal it waits on is withdrawn. Whoever the work is for may stop
        it, the sponsor of an agent's work for nobody, and a person who supervises agents
        (`UnknownId` for anyone else, as for a task that is not there); `AgentRefused` for a
        task that has ended, or that a process is stepping now (its step is not cut off)."""
        if not isinstance(reason, str):
            raise UserError(f"reason is words the receipt keeps, not {reason!r}.")
        person = self._principal(by, "by takes the person who stops the task")
        with self._one_of_ours(person):
            person = self.people.get(person.id)  # (as the directory holds them now)
            return stop_task(self._agency, task_id_of(task), by=person, reason=reason,
                             supervises=self.oversight.supervises_agents.admits(person))

    def _decider(self, by: Any) -> Principal:
        """Who decides, as given: a `Principal`, or their handle; `UserError` for anything else
        (or for nobody of this app: a person of another app is not one of its people)."""
        return self._principal(by, "by takes the person who decides")

    def _principal(self, given: Any, what: str) -> Principal:
        """A person as given to a verb: a `Principal` of this app's, or their handle;
        `UserError` for anything else."""
        if isinstance(given, str):
            return self.people.get(given)
        if not isinstance(given, Principal):
            raise UserError(f"{what} (a Principal, or a handle), not {given!r}.")
        return given

    @contextmanager
    def _one_of_ours(self, person: Principal) -> Iterator[None]:
        """While a verb is done for `person`: an id the directory does not know, when it is
        theirs, is told as a person of another app (it was told by their id alone). Asked only
        then: a decision reads who decides in its own transaction."""
        try:
            yield
        except (UnknownId, UserError):  # ("There is nobody with the id or handle …")
            if self.people.find(person.id) is None:
                raise UserError(f"{person.name} is not one of this app's people: give a person "
                                "of this app's (app.people.get(handle)).") from None
            raise

    def pass_deadline(self, proposal: Proposal | str | UUID, *,
                      now: datetime | None = None) -> DeadlinePassed:
        """Pass one proposal's deadline, if it has passed by `now` (the time, by default) and
        nobody has decided it: it is withdrawn (the agent is told, and its task goes on) or put
        to the next decider its skill's route names. Once, even as others decide it or pass it
        at the same moment; what it came to."""
        return self._agency.deadlines.pass_deadline(_proposal_id(proposal), now=now)

    def pass_deadlines(self, *, now: datetime | None = None) -> list[DeadlinePassed]:
        """Pass every deadline due by `now` (the time, by default), soonest first (``signoff
        worker`` does, on every look); what each came to."""
        return self._agency.deadlines.pass_due(now=now)

    def allow_alone(
        self, agent: type[Agent] | str, tool: Callable[..., Any] | str, *,
        skill: Skill[Any, Any] | type[Skill[Any, Any]] | str | None = None,
        for_everybody: bool = False, by: Principal,
    ) -> StandingRule:
        """From now on, `agent` runs `tool` without proposing it, in work done for `by` (for
        anybody with `for_everybody`, supervisors only)."""
        name = agent.agent_name() if isinstance(agent, type) else agent
        skill_name = None
        if skill is not None:
            skill_name = self._agency.handle(name).skill(skill).name  # (UserError: none such)
        return self._agency.decider.rules.allow_alone(
            name, tool, skill=skill_name, by=self._decider(by),
            for_everybody=_flag(for_everybody, "for_everybody"))

    def rules(self, *, active_only: bool = False) -> list[StandingRule]:
        """The standing rules, oldest first."""
        from signoff.agents import repository

        with self.database.reading() as db:
            return repository.load_rules(db, active_only=_flag(active_only, "active_only"))

    def revoke(self, rule: StandingRule | str | UUID, *, by: Principal, why: str = ""
               ) -> StandingRule:
        """Take a standing rule back, at once: no call runs alone under it once this returns
        (one found to run under it, and not yet begun, is put to a person instead)."""
        if not isinstance(why, str):
            raise UserError(f"Why a rule is taken back is words, not {why!r}.")
        rule_id = rule.id if isinstance(rule, StandingRule) else id_named(rule, "rule", "StandingRule")
        return self._agency.decider.rules.revoke(rule_id, by=by, why=why)

    def receipt(self, task: Outcome | str | UUID) -> Receipt:
        """Everything a task did: model calls, tool calls, proposals and decisions."""
        return self._agency.receipt(task_id_of(task))

    def outcome(self, task: Outcome | str | UUID) -> Outcome:
        """Where a task stands now."""
        return self._agency.loop.outcome(task_id_of(task))

    def worker(self, *, model_for: Callable[[str, str], Any] | None = None) -> Worker:
        """A worker that steps this app's tasks that can go on (after a restart, or a decision
        made in another process). ``model_for(agent_name, task_id)`` gives each task its model
        (None: the one it was started with by spec, else its agent's own: see `Worker`)."""
        return Worker(self._agency, model_for=model_for or (lambda _agent, _task: None))

    def temporal_worker(
        self, *, address: str | None = None, model_for: Callable[[str, str], Any] | None = None,
        steps_at_once: int = 8, stuck_after: timedelta = STUCK_AFTER,
        stalled_after: timedelta | None = None,
    ) -> TemporalWorker:
        """A Temporal worker of this app (the ``temporal`` extra): it runs the workflows and the
        steps of its tasks (``.run()``, or ``with ….running():`` in a thread). `address`: the
        server, when the app does not name it (or names another); `model_for` as for `worker`;
        `stuck_after` as for `Worker.run_forever` (how long a task is left Waiting on nothing
        before it is taken for what a stopped process left half done, and settled; 5 minutes);
        `stalled_after`: how long a Running task goes unwritten, with nobody on
        it, before its workflow is signalled (it was started while the server could not be
        reached; None: 30 seconds)."""
        if address is not None and (self.runner is None or self.runner.address != address):
            self._run_on(Temporal(address=address) if self.runner is None else replace(
                self.runner, address=address))
        if self._temporal is None:
            raise UserError("This app runs its tasks in-process: name a Temporal server, "
                            "App(..., runner=Temporal(address=...)) or SIGNOFF_TEMPORAL.")
        from signoff.engine.temporal.serving import STALLED_AFTER, TemporalWorker

        return TemporalWorker(
            self._agency, self._temporal, steps_at_once=steps_at_once, stuck_after=stuck_after,
            stalled_after=STALLED_AFTER if stalled_after is None else stalled_after,
            model_for=model_for or (lambda _agent, _task: None))

    def _run_on(self, runner: Temporal | None) -> None:
        """Run tasks on `runner` (in-process when None)."""
        self.runner = runner
        self._temporal = None
        if runner is not None:
            try:
                from signoff.engine.temporal.runner import TemporalRunner
            except ImportError:
                raise UserError("The Temporal runner needs temporalio, signoff's temporal "
                                f"extra: {install_extra('temporal')}.") from None
            self._temporal = TemporalRunner(self._agency, runner, app_name=self.name)
        self._agency.loop.runner = self._temporal

    def trace(self, tracer_provider: Any = None, *, include_content: bool | None = None) -> None:
        """Emit OpenTelemetry spans of agents' work from now on (the ``otlp`` extra: the SDK and
        its OTLP exporter; ``otel``, the API alone, where the process sets up its own SDK), named by
        the GenAI semantic conventions, with the gate's verdicts, proposals, waits and decisions
        on them (see `signoff.agents.tracing`). `tracer_provider`: the global one when None.
        Arguments, results and messages are exported only with `include_content` (or
        ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`` when it is None)."""
        try:
            from signoff.agents.tracing import Tracing
        except ImportError:
            raise UserError("Tracing needs OpenTelemetry, signoff's otel extra: "
                            f"{install_extra('otel')}.") from None
        if tracer_provider is not None and not callable(getattr(tracer_provider, "get_tracer",
                                                                None)):
            raise UserError(f"app.trace takes an OpenTelemetry TracerProvider (or None, for the "
                            f"global one), not {tracer_provider!r}.")
        if include_content is not None and not isinstance(include_content, bool):
            raise UserError(f"include_content is True, False or None (as the environment says), "
                            f"not {include_content!r}.")
        self._agency.loop.observer = Tracing(database=self.database,
                                             tracer_provider=tracer_provider,
                                             include_content=include_content)

    # -- keys ----------------------------------------------------------------------------

    def consent_seal(self) -> ConsentSeal:
        """The seal consent tokens are made and checked with (its key read or made once)."""
        if self._seal is None:
            self._seal = ConsentSeal(self._load_key())
        return self._seal

    def _load_key(self) -> bytes:
        if self._key is not None:
            return self._key.encode() if isinstance(self._key, str) else self._key
        from_env = os.environ.get("SIGNOFF_KEY")
        if from_env:
            try:
                return bytes.fromhex(from_env)
            except ValueError:
                raise UserError("SIGNOFF_KEY must be hex, e.g. from `openssl rand -hex 32`.") from None
        if self._key_file is not None:
            return load_or_create_key(self._key_file)
        if self.database.file is not None:
            return load_or_create_key(Path(self.database.file).with_suffix(".key"))
        if self.database.is_sqlite:
            return secrets.token_bytes(32)  # an in-memory app: the key dies with the data
        here = Path(f"{self.name}.key").resolve()
        if not here.exists():
            log.warning("App %s keeps its consent key in %s, in the working directory: give every "
                        "process of the app the same SIGNOFF_KEY (or key_file), or each refuses "
                        "the others' consent tokens.", self.name, here)
        return load_or_create_key(here)

    def __repr__(self) -> str:
        return f"<App {self.name} at {self.database.url}>"


def _flag(value: Any, name: str) -> bool:
    """`value`, which says yes or no, as a bool: True or False, nothing else (``"no"`` is not
    taken for yes: ``always_like_this="no"`` made a standing rule)."""
    if not isinstance(value, bool):
        raise UserError(f"{name} is True or False, not {value!r}.")
    return value


def _status(status: ProposalStatus | str | None) -> ProposalStatus | None:
    """A proposal's status as given: one, or its name in any case ("waiting"); `UserError`
    naming them for anything else (it was an AttributeError)."""
    if status is None or isinstance(status, ProposalStatus):
        return status
    named = {s.value.lower(): s for s in ProposalStatus}.get(str(status).strip().lower())
    if named is None:
        raise UserError(f"A proposal's status is one of "
                        f"{', '.join(s.value for s in ProposalStatus)}, not {status!r}.")
    return named


def _task_id(task: Outcome | str | UUID | None) -> str | None:
    return None if task is None else task_id_of(task)


def _proposal_id(proposal: Proposal | str | UUID) -> str:
    return proposal.id if isinstance(proposal, Proposal) else id_named(proposal, "proposal",
                                                                        "Proposal")


