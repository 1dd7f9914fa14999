"""Running one action: validate as the caller, call it in one transaction, tell the outcome.

A refusal is told in the app's own words; anything else is a failure whose real message only
reaches the log. Nothing partial is ever kept: a run is one transaction.
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import logging
import re
import textwrap
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.orm import Session

from signoff.actions.catalog import Action
from signoff.actions.cause import running_for
from signoff.actions.consent import Consent
from signoff.actions.parameters import call_with
from signoff.actions.problems import problem_of
from signoff.actions.readonly import (
    make_session_read_only,
    read_only_guard,
    reading_records_only,
    refuse_pending_changes,
)
from signoff.actions.records_within import records_in, records_read
from signoff.actions.results import FAILED_TEXT, ActionOutcome, ActionResult, ran_outside
from signoff.actions.schemas import result_json
from signoff.effects import Effect, EffectKind, Effects
from signoff.exceptions import (
    Failed,
    Invalid,
    NotAuthorized,
    NotFound,
    OutcomeUnknown,
    ReadOnlyViolation,
    Refusal,
    StoreError,
    Unavailable,
    UserError,
)
from signoff.security.acting import ActingAs
from signoff.security.enforcement import RuledSession, enforce_rules_on, own_text, running_action
from signoff.security.principals import People
from signoff.security.records import LOCKS_RECORDS
from signoff.security.rules import Rule, refusal
from signoff.security.sessions import open_session
from signoff.store import points
from signoff.store.database import Database, is_conflict, reading_only
from signoff.store.tables import consents_used

__all__ = ["Providers", "RunAborted", "RunContext", "RunTransaction", "Runner", "changes_within",
           "refusal_on"]

log = logging.getLogger("signoff.actions")

RunTransaction = Session | Connection
"""A run's transaction: its session, or for an action that needs none, a connection."""


@dataclass(frozen=True, kw_only=True)
class RunContext:
    """What a provider of a context parameter may use."""

    action: str
    """The action being run."""
    session: Session
    """The session the action runs in, acting as the caller."""
    acting: ActingAs
    """Who it runs as."""
    cause: str
    """Why it runs."""


class Providers:
    """What fills context parameters: ``app.provide("clock", lambda: FixedClock())``.

    A provider takes nothing, or the `RunContext`. ``session``, ``acting_as`` and ``cause`` are
    always provided.
    """

    def __init__(self) -> None:
        self._providers: dict[str, Callable[..., Any]] = {}

    def add(self, name: str, provider: Callable[..., Any]) -> None:
        """Fill context parameters named `name` with what `provider` gives."""
        if name in ("session", "acting_as", "cause"):
            raise UserError(f"{name!r} is always provided by signoff; choose another name.")
        self._providers[name] = provider

    def value(self, name: str, context: RunContext) -> Any:
        """The value of context parameter `name` for this run."""
        builtin = {"session": context.session, "acting_as": context.acting, "cause": context.cause}
        if name in builtin:
            return builtin[name]
        provider = self._providers.get(name)
        if provider is None:
            raise UserError(f"Nothing provides {name!r}: call app.provide({name!r}, ...) first.")
        takes = len(inspect.signature(provider).parameters) > 0
        return provider(context) if takes else provider()


class Runner:
    """Runs actions: the one place where a call by name meets security and the database."""

    def __init__(self, *, database: Database, people: People, providers: Providers) -> None:
        self._database = database
        self._people = people
        self._providers = providers

    def current(self, acting: ActingAs, *, within: RunTransaction | None = None
                ) -> ActingAs | ActionResult:
        """`acting` with each principal as the directory holds it now (read in the transaction
        `within`, when given), or a Denied result."""
        if acting.system:
            return acting
        now = []
        known = self._people.find_each((p.id for p in acting), within=within)
        for principal in acting:
            found = known.get(principal.id)
            if found is None:
                return _denied(f"{principal.name} is not known to this app.", acting)
            if found.disabled:
                return _denied(f"{found.name} is disabled and may not do anything.", acting)
            now.append(found)
        return ActingAs.of(now)

    def run(
        self,
        action: Action,
        values: Mapping[str, Any],
        *,
        acting: ActingAs,
        cause: str,
        consent: Consent | None = None,
        before: Callable[[Connection], None] | None = None,
        within: Callable[[Connection, ActionResult], None] | None = None,
    ) -> ActionResult:
        """Run `action` with `values` as `acting`; every way it can end is an outcome.

        `before`, when given, runs first in the run's transaction. `within`, when given, is
        called with the transaction's connection (its session's, when the run has one) and the
        result of a Done run before its transaction commits:
        what either writes commits with the action's writes, or not at all. (An action that
        reaches outside and writes no record runs in a reader's transaction; `before` and
        `within` then run together, in a transaction of their own once it is back: see
        `_call_outside`.) A `RunAborted`
        either raises ends the run at once, keeps nothing, and reaches the caller.
        """
        if not isinstance(values, Mapping):
            return _result(action, acting, cause, ActionOutcome.INVALID,
                           problem="The values must be given by name, as one object.")
        query = action.info.query
        if query and (consent is not None or before is not None or within is not None):
            raise UserError(f"{action.name} is a query: it runs read-only, so nothing can be "
                            "written in its transaction; record what it did afterwards.")
        if not query:
            self._database.refuse_second_writer(action.name)
        effects = action.info.effects
        outside = effects.external or effects.sends or effects.spends
        consented = consent is not None
        if consent is not None and outside:
            # An outside effect cannot be rolled back: the consent is used up, and committed,
            # before it runs, so that a crash after the effect does not leave it unused.
            try:
                self._use_up(consent, acting)
            except _AlreadyUsed:
                return _result(action, acting, cause, ActionOutcome.DENIED, problem=_USED)
            consent = None
        # On PostgreSQL a record-only run reads at REPEATABLE READ, so that a change another
        # run committed after this one read the record is a conflict, not a lost update; the
        # run is then run again from the start (safe: nothing of it left the database).
        isolate = self._database.engine.dialect.name == "postgresql" and not query and not outside
        for _ in range(_RETRIES):
            try:
                result = self._run(action, values, acting=acting, cause=cause, consent=consent,
                                   before=before, within=within, isolate=isolate,
                                   consented=consented)
            except _Conflict:
                continue
            if consent is not None and result.outcome in _RAN:
                # It ran, and its transaction kept nothing (its honouring neither): whatever
                # it did before it failed, or may have done, the consent is used up by it.
                with contextlib.suppress(_AlreadyUsed):
                    self._use_up(consent, acting)
            return result
        log.error("Action %s conflicted with concurrent changes %d times in a row", action.name,
                  _RETRIES)
        return _result(action, acting, cause, ActionOutcome.FAILED,
                       problem="What it changes was changed by others at the same time, again and "
                               "again; nothing was kept. Try again.")

    def _use_up(self, consent: Consent, acting: ActingAs) -> None:
        """Record that `consent` is used, in a transaction of its own."""
        session = open_session(self._database, acting)
        try:
            with session.begin():
                _honour_once(session, consent)
        finally:
            session.close()

    def unreadable(self, action: Action, values: Mapping[str, Any], acting: ActingAs,
                   within: Connection) -> str:
        """Why a run of `action` with `values` as `acting` would not find what it acts on: the
        refusal a run would be Gone with, when a record the values name is not there for them
        to read ("" when each is, or none is named; values that do not fit are left to the
        run). Read in the transaction `within`, by a session that writes nothing (it never
        flushes), the parameters' validators held to reading, as they are when a call's
        values are first read."""
        if action.takes_plain_data:
            return ""
        session = enforce_rules_on(RuledSession(within, autoflush=False), acting)
        try:
            with read_only_guard(f"A validator of {action.name}'s parameters"):
                validated = action.model.model_validate(dict(values),
                                                        context={"session": session})
                records_read(action, {name: getattr(validated, name)
                                       for name in type(validated).model_fields}, session)
        except NotFound as refusal:
            return refusal.message
        except (ValidationError, Invalid, ReadOnlyViolation):
            return ""  # (told as the call runs)
        finally:
            session.close()
        return ""

    def _run(
        self, action: Action, values: Mapping[str, Any], *, acting: ActingAs, cause: str,
        consent: Consent | None, before: Callable[[Connection], None] | None,
        within: Callable[[Connection, ActionResult], None] | None, isolate: bool, consented: bool,
    ) -> ActionResult:
        query = action.info.query
        plain = not query and consent is None and not action.reaches_out_only and (
            action.takes_plain_data)
        began = _BEGAN.set(False)
        try:
            return self._run_as(action, values, acting=acting, cause=cause, consent=consent,
                                before=before, within=within, isolate=isolate,
                                consented=consented, query=query, plain=plain)
        finally:
            _BEGAN.reset(began)

    def _run_as(
        self, action: Action, values: Mapping[str, Any], *, acting: ActingAs, cause: str,
        consent: Consent | None, before: Callable[[Connection], None] | None,
        within: Callable[[Connection, ActionResult], None] | None, isolate: bool, consented: bool,
        query: bool, plain: bool,
    ) -> ActionResult:
        with running_for(cause) as cause:
            session = None if plain else open_session(self._database, acting)
            ran: ActionResult | None = None  # (Done, and its writes then refused: `_uncommitted`)
            try:
                if session is None:
                    return self._call_plain(action, dict(values), acting, cause, before=before,
                                            within=within)
                if query:
                    return self._call_read_only(action, dict(values), session, acting, cause)
                if action.reaches_out_only:
                    return self._call_outside(action, dict(values), session, acting, cause,
                                              before=before, within=within, consented=consented)
                with session.begin():
                    if isolate:
                        session.execute(_REPEATABLE_READ)
                    # The hooks and the admission write and read on the session's connection,
                    # in its transaction: what they do needs no ORM (and the session's way to
                    # its connection costs more than their statements).
                    connection = session.connection()
                    admitted = self._admit(action, acting, cause, session, connection)
                    if isinstance(admitted, ActionResult):
                        return admitted
                    acting = admitted
                    if consent is not None:
                        _honour_once(session, consent)
                    if before is not None:
                        before(connection)
                    result = self._call(action, dict(values), session, acting, cause)
                    if consented:
                        points.reached("run.consented", action=action.name)
                    ran = result  # (what `within` records, or the commit, may yet fail)
                    if within is not None:
                        within(connection, result)
                return result
            except ValidationError as error:
                return _result(action, acting, cause, ActionOutcome.INVALID,
                               problem=problem_of(error, list(action.all_parameters)))
            except NotFound as refusal:
                return _result(action, acting, cause, ActionOutcome.GONE, problem=refusal.message)
            except NotAuthorized as refusal:
                return _result(action, acting, cause, ActionOutcome.DENIED, problem=refusal.message)
            except Invalid as refusal:  # Conflict included
                return _result(action, acting, cause, ActionOutcome.INVALID, problem=refusal.message)
            except OutcomeUnknown as lost:
                return _result(action, acting, cause, ActionOutcome.UNKNOWN, problem=lost.message)
            except Unavailable as down:
                return _result(action, acting, cause, ActionOutcome.UNAVAILABLE,
                               problem=down.message)
            except (Failed, Refusal) as failed:  # a failure the action tells in its own
                # words (a Refusal raised as itself, of no kind the others are, is one too)
                log.info("Action %s failed, run as %s for cause %r: %s", action.name,
                         acting.names, cause, failed.message)
                return _result(action, acting, cause, ActionOutcome.FAILED,
                               problem=failed.message)
            except RunAborted:
                raise
            except _Unrecorded as unrecorded:  # (it ran: not a failure of the run)
                log.error("Action %s ran, run as %s for cause %r, and what it did could not "
                          "be recorded: %s", action.name, acting.names, cause,
                          unrecorded.error)
                raise unrecorded.error from unrecorded.__cause__
            except _AlreadyUsed:
                return _result(action, acting, cause, ActionOutcome.DENIED, problem=_USED)
            except ReadOnlyViolation:  # an action found to only read tried more (`_as_found`
                # logged what): refused, a failure of the run and not of signoff's code
                return _result(action, acting, cause, ActionOutcome.FAILED, problem=FAILED_TEXT)
            except Exception as error:
                # A record-only run is run again on a conflict; so is one that reaches outside
                # while its body has not begun (two such runs locking the records they are
                # given in opposite orders: the server ends one, which had done nothing).
                if (isolate or not _BEGAN.get()) and is_conflict(error):
                    raise _Conflict from error
                if ran is not None and ran.done and isinstance(error, DBAPIError):
                    return self._uncommitted(action, acting, cause, error)
                log.exception(
                    "Action %s failed, run as %s for cause %r", action.name, acting.names, cause
                )
                return _result(action, acting, cause, ActionOutcome.FAILED, problem=FAILED_TEXT)
            finally:
                if session is not None:
                    session.close()

    def _uncommitted(self, action: Action, acting: ActingAs, cause: str, error: DBAPIError
                     ) -> ActionResult:
        """What a Done run whose transaction then failed to commit comes to: Failed, nothing
        of it kept — and, when it reaches outside, in words that say what it did there may
        have happened; but a `StoreError` (its call stays marked running, as after a crash)
        when the database was lost, and whether it committed is not known."""
        if isinstance(error, OperationalError) and not is_conflict(error):
            raise self._database.error(error) from error
        log.error("Action %s ran, run as %s for cause %r, and its transaction could not "
                  "commit: %s", action.name, acting.names, cause, error)
        effects = action.info.effects
        return _result(action, acting, cause, ActionOutcome.FAILED, problem=ran_outside(
            action.name, effects, _REFUSED_AS_IT_ENDED) if effects.external or effects.sends
            or effects.spends else FAILED_TEXT)

    def _call_outside(
        self, action: Action, values: dict[str, Any], session: Session, acting: ActingAs,
        cause: str, *, before: Callable[[Connection], None] | None,
        within: Callable[[Connection, ActionResult], None] | None, consented: bool,
    ) -> ActionResult:
        """Run an action that reaches outside and writes no record without holding SQLite's
        write lock while it is out (a slow server would keep every other writer waiting):
        it is admitted and called in a transaction begun as readers begin theirs (and ended
        rolled back: it read, and wrote nothing), and what
        `before` checks and `within` records is done in a transaction of its own once it is
        back. A crash in between leaves the call as it was marked before it started: running,
        its outcome unknown — as a crash during the call does, and as a database that cannot
        be written once it is back does (a `StoreError`: Failed would say it did not happen)."""
        with reading_only():  # only this transaction: those the action opens itself are its own
            session.begin()
            session.connection()
        try:  # a transaction that only reads: it ends rolled back, with nothing to keep
            admitted = self._admit(action, acting, cause, session, session.connection())
            if isinstance(admitted, ActionResult):
                return admitted
            result = self._call(action, values, session, admitted, cause)
            if consented:
                points.reached("run.consented", action=action.name)
            refuse_pending_changes(session)
        finally:
            session.rollback()
        if before is not None or within is not None:
            try:
                with session.begin():
                    connection = session.connection()
                    if before is not None:
                        before(connection)
                    if within is not None:
                        within(connection, result)
            except DBAPIError as error:
                raise _Unrecorded(self._database.error(error)) from error
            except StoreError as error:
                raise _Unrecorded(error) from error
        return result

    def _call_plain(
        self, action: Action, values: dict[str, Any], acting: ActingAs, cause: str, *,
        before: Callable[[Connection], None] | None,
        within: Callable[[Connection, ActionResult], None] | None,
    ) -> ActionResult:
        """Run an action that takes no session and no record (`Action.takes_plain_data`) in a
        transaction of the database's own, with no ORM session: the run is admitted, and
        `before` and `within` write, in it as in any run's. What the action itself opens
        is its own, as it would be beside a session."""
        with self._database.connect() as db:
            admitted = self._admit(action, acting, cause, None, db)
            if isinstance(admitted, ActionResult):
                return admitted
            if before is not None:
                before(db)
            with _as_found(action, None):  # (its validators and its result's serializers too)
                validated = action.model.model_validate(values)
                _BEGAN.set(True)
                returned = call_with(action.call, {name: getattr(validated, name)
                                                   for name in type(validated).model_fields})
                points.reached("run.called", action=action.name)
                result = self._done(action, admitted, cause, returned)
            if within is not None:
                within(db, result)
        return result

    def _admit(self, action: Action, acting: ActingAs, cause: str, session: Session | None,
               connection: Connection) -> ActingAs | ActionResult:
        """Who the run is for, as they are now (read on `connection`, in the run's
        transaction), if every one of them may run the action; else the Denied result. The
        run's `session`, when it has one, then acts as them."""
        current = self.current(acting, within=connection)
        if isinstance(current, ActionResult):
            return _with(current, action=action.name, cause=cause)
        if session is not None:
            enforce_rules_on(session, current)
        policy = action.options.authorize
        if policy is not None:
            for principal in current:
                if not policy.admits(principal):
                    return _denied(f"{principal.name} may not {action.doing}.", current,
                                   action.name, cause)
        return current

    def _call_read_only(
        self, action: Action, values: dict[str, Any], session: Session, acting: ActingAs, cause: str
    ) -> ActionResult:
        """Run a query enforced read-only: a read-only connection, no flush, and an audit hook
        that refuses writes, processes and sockets. Whatever it tried, even a refusal it caught
        and ignored, ends it Failed; nothing it did is kept."""
        make_session_read_only(session)
        result: ActionResult | None = None
        with read_only_guard() as guard, reading_only():
            try:
                with session.begin() as transaction:
                    admitted = self._admit(action, acting, cause, session,
                                           session.connection())
                    if isinstance(admitted, ActionResult):  # refused before it ran: the
                        transaction.rollback()  # transaction keeps nothing (a commit is a
                        return admitted  # write the guard refuses)
                    acting = admitted
                    result = self._call(action, values, session, acting, cause)
                    refuse_pending_changes(session)
                    if guard.violated:
                        raise guard.violations[0]
                    # A query keeps nothing: its transaction ends rolled back, which also undoes
                    # what a read-only transaction still allows (set_config, pg_notify).
                    transaction.rollback()
            except ReadOnlyViolation:
                pass  # recorded in the guard, and told below
            except Exception as error:
                _read_words(error)  # (in the hold: the log reads them after it)
                if not guard.violated:
                    raise
        if guard.violated or result is None:
            log.error(
                "Query %s tried more than reading, run as %s for cause %r: %s",
                action.name, acting.names, cause, "; ".join(str(v) for v in guard.violations),
            )
            return _result(action, acting, cause, ActionOutcome.FAILED, problem=FAILED_TEXT)
        return result

    def _call(
        self, action: Action, values: dict[str, Any], session: Session, acting: ActingAs, cause: str
    ) -> ActionResult:
        context = RunContext(action=action.name, session=session, acting=acting, cause=cause)
        # All of the app's code the run runs is held (`_as_found`): its parameters' validators,
        # the providers, the action, and the serializers of what it returned.
        effects = action.info.effects
        outside = effects.external or effects.sends or effects.spends
        # A run that reaches outside cannot run again on a conflict (`run`'s REPEATABLE READ):
        # on PostgreSQL the records it is given are locked as they load, so that two such runs
        # changing one record take turns, and neither change is lost.
        lock = outside and self._database.engine.dialect.name == "postgresql"
        session.info[LOCKS_RECORDS] = lock
        with running_action(session, action.name), _as_found(action, session):
            validated = action.model.model_validate(values, context={"session": session})
            arguments = records_read(action, {
                name: getattr(validated, name) for name in type(validated).model_fields}, session)
            for p in action.all_parameters:
                if p.provided is not None:
                    arguments[p.name] = self._providers.value(p.provided, context)
            if outside:  # what it does outside cannot be rolled back: refused before it runs
                _refuse_beforehand(action, acting, arguments)
            try:
                _BEGAN.set(True)
                returned = call_with(action.call, arguments)
                points.reached("run.called", action=action.name)
                try:
                    session.flush()  # the record rules are checked here, inside the run
                except DBAPIError as error:  # (a key taken, a constraint unmet: as a commit
                    if not outside or (isinstance(error, OperationalError)  # refused, below)
                                       and not is_conflict(error)):
                        raise
                    log.error("Action %s ran, run as %s for cause %r, and the database "
                              "refused what it changed: %s", action.name, acting.names, cause,
                              error)
                    raise Failed(ran_outside(action.name, effects, _REFUSED_AS_IT_ENDED)
                                 ) from error
            except NotAuthorized as refused:
                # A record rule's refusal once the body had begun — of a write, or of a read
                # its code made after (or before: what came first cannot be told) it went out:
                # what it did outside may have happened, and what it spends stays spent.
                if outside and refused.operation:
                    raise Failed(ran_outside(action.name, action.info.effects, refused.message)
                                 ) from refused
                raise
            return self._done(action, acting, cause, returned)

    @staticmethod
    def _done(action: Action, acting: ActingAs, cause: str, returned: Any) -> ActionResult:
        """The Done result of a run whose action returned `returned`."""
        said = returned if isinstance(returned, str) else ""
        value = result_json(action.name, action.result, returned, action.call) if (
            action.result) else (
            returned if isinstance(returned, str | int | float | bool) else None
        )
        return _result(action, acting, cause, ActionOutcome.DONE, said=said, value=value)


@contextlib.contextmanager
def _as_found(action: Action, session: Session | None) -> Iterator[None]:
    """While an action its analysis found to only read runs (a query has a guard of its own),
    hold it to that: what a gap in the analysis let it try — a record changed in `session`, a
    file written, a process started, a socket opened — is refused, and the run ends Failed with
    nothing kept (it ran alone, with no person asked, on the analysis's word)."""
    if action.info.query or not action.info.effects.only_reads:
        yield
        return
    try:
        with read_only_guard(f"Action {action.name}, found to only read,") as guard, (
                reading_records_only(session) if session is not None
                                          else contextlib.nullcontext()):
            try:
                yield
            except Exception as error:
                _read_words(error)
                if not guard.violated:
                    raise
    finally:  # (what it tried, whether the refusal reached the run or was caught inside it)
        if guard.violated:
            log.error("%s", " ".join(str(v) for v in guard.violations))
    if guard.violated:  # (in place of what it raised, whose words tried more than reading)
        raise guard.violations[0] from None


def _read_words(error: BaseException) -> None:
    """Read the words of what a held run raised, and of the errors it was raised from, while
    the run is still held: the log reads them once it is over, and they are the app's code
    (``__str__``, ``__repr__``), which may try more than reading too. A refusal of what they
    tried is recorded in the guard; a failure to say them is the log's to tell."""
    seen: set[int] = set()
    at: BaseException | None = error
    while at is not None and id(at) not in seen:
        seen.add(id(at))
        for words in (str, repr):
            with contextlib.suppress(Exception):
                words(at)
        at = at.__cause__ or at.__context__


def refusal_on(acting: ActingAs, effects: Effects, record: Any, *,
               changes: Iterable[Effect] | None = None) -> NotAuthorized | None:
    """The refusal a run of an action with these `effects` on `record` would meet from the
    record's rules for `acting`, as far as its effects tell (None when none): it deletes
    records of the record's type and `acting` may not delete it, or it changes them and
    `acting` may not update it, or may not update a field it changes. A change whose fields
    the analysis cannot name (``setattr(repair, field, …)``) is taken to change every field a
    rule protects. `changes`: those of its changes that may be of `record` (`changes_within`);
    when not given, every change of its type."""
    types = _names_of(record)
    rules = getattr(type(record), "__security__", [])
    if types & effects.deletes:
        refused = refusal(acting, "delete", rules, record)
        if refused is not None:
            return refused
    changed = [e for e in (effects.effects if changes is None else changes)
               if e.kind is EffectKind.CHANGES and e.target in types]
    if not changed:
        return None
    return refusal(acting, "update", rules, record, fields=_fields(changed, rules))


def _fields(changes: list[Effect], rules: Iterable[Rule]) -> frozenset[str]:
    """The fields `changes` assign; when one of them changes its record in a way whose fields
    are not known, every field `rules` protect."""
    if all(e.field for e in changes):
        return frozenset(e.field for e in changes)
    return frozenset().union(*(rule.fields for rule in rules))


def changes_within(action: Action, parameter: str) -> tuple[Effect, ...]:
    """The changes `action`'s effects show that may be of a record given as its `parameter`:
    each written as a change of that parameter, and each that names no parameter surely
    (`_changed_parameter`), which may be of any record given."""
    return tuple(e for e in action.info.effects.effects if e.kind is EffectKind.CHANGES
                 and _changed_parameter(action, e) in ("", parameter))


def _changed_parameter(action: Action, change: Effect) -> str:
    """The parameter of `action` whose record `change` is a change of, when its path says so
    surely: it assigns a field of the parameter itself (``target.note = …``), in the action's
    own body, whose code never binds the parameter's name to anything else; "" otherwise (a
    change in a function it calls, a field further in, a name bound in the body)."""
    if change.reason or len(change.path) != 2 or change.path[0] != action.name:
        return ""
    assigned = _OF_A_NAME.match(change.path[1])
    if assigned is None:
        return ""
    name = assigned.group(1)
    if not any(p.name == name and p.provided is None for p in action.all_parameters):
        return ""
    rebound = _names_bound(action.call)
    return "" if rebound is None or name in rebound else name


_OF_A_NAME = re.compile(r"^([A-Za-z_]\w*)\.[A-Za-z_]\w* [^\s=]{0,2}=$")
"""A step of a path that assigns a field of a name itself (``target.note =``), as the analysis
writes it (`signoff.effects.statements`)."""

_BOUND: weakref.WeakKeyDictionary[Callable[..., Any], frozenset[str] | None] = (
    weakref.WeakKeyDictionary())


def _names_bound(function: Callable[..., Any]) -> frozenset[str] | None:
    """The names the body of `function` binds, anywhere in it (assigned, looped over, caught,
    imported, deleted, declared global, or a parameter of a function within it); None when its
    code cannot be read. Worked out once per function."""
    with contextlib.suppress(KeyError, TypeError):
        return _BOUND[function]
    found: frozenset[str] | None = None
    try:  # (the code's own lines, as the analysis reads them: not those of what it wraps)
        lines, _ = inspect.getsourcelines(function.__code__)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (AttributeError, OSError, TypeError, SyntaxError, ValueError):
        tree = None
    defined = tree.body[0] if tree is not None and tree.body else None
    if isinstance(defined, ast.FunctionDef | ast.AsyncFunctionDef):
        names: set[str] = set()
        for node in (n for statement in defined.body for n in ast.walk(statement)):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
                names.add(node.id)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, ast.alias):
                names.add((node.asname or node.name).partition(".")[0])
            elif isinstance(node, ast.Global | ast.Nonlocal):
                names.update(node.names)
            else:
                bound = [getattr(node, key, None) for key in ("name", "rest")]
                names.update(b for b in bound if isinstance(b, str) and isinstance(
                    node, _BINDING_BY_NAME))
        found = frozenset(names)
    with contextlib.suppress(TypeError):
        _BOUND[function] = found
    return found


_BINDING_BY_NAME = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler,
                    ast.MatchAs, ast.MatchStar, ast.MatchMapping)
"""What binds a name it holds as a string: a function or class defined, an exception caught
(``except … as name``), a pattern's capture."""


def _refuse_beforehand(action: Action, acting: ActingAs, arguments: Mapping[str, Any]) -> None:
    """Raise the refusal a record rule would give `acting` for a change `action`'s effects
    show on a record its `arguments` name (its subject, a record parameter, a record within
    a structure or a sequence), before it runs: what it does outside the app cannot be
    rolled back once its changes are refused where they are written. A change written as one
    of a parameter's (``target.note = …``) is checked on the records that parameter is given
    alone; any other, on every record of its type the values name."""
    effects = action.info.effects
    if not (effects.changes - {""}) and not effects.deletes:
        return
    for p in action.all_parameters:
        if p.provided is not None or p.name not in arguments:
            continue
        changes = changes_within(action, p.name)
        for record in records_in([arguments[p.name]]):
            refused = refusal_on(acting, effects, record, changes=changes)
            if refused is not None:
                raise _told_of_fields_unknown(action, acting, record, changes, refused)


def _told_of_fields_unknown(action: Action, acting: ActingAs, record: Any,
                            changes: Iterable[Effect], refused: NotAuthorized) -> NotAuthorized:
    """`refused`, saying why when it refuses `record` only for a field `action` was taken to
    change because which fields it changes cannot be told (the fields it is seen to assign,
    and the record as a whole, being allowed)."""
    types = _names_of(record)
    changed = [e for e in changes if e.kind is EffectKind.CHANGES and e.target in types]
    known = frozenset(e.field for e in changed if e.field)
    rules = getattr(type(record), "__security__", [])
    if refused.operation != "update" or all(e.field for e in changed) or refusal(
            acting, "update", rules, record, fields=known) is not None:
        return refused
    return NotAuthorized(
        f"{refused.message} {action.name} changes fields of it that its code does not name "
        "(taken to be any of them), so it was not run: someone who may change them can run it.",
        principal=refused.principal, operation=refused.operation, record=refused.record)


def _names_of(record: Any) -> frozenset[str]:
    """The names of `record`'s type and of its bases, as effects name record types."""
    return frozenset(cls.__name__ for cls in type(record).__mro__)


class _AlreadyUsed(Exception):
    pass


class _Conflict(Exception):
    """A record-only run, or one whose action had not begun, met a concurrent change
    (PostgreSQL's serialization failure or a deadlock): it is run again."""


_RETRIES = 8
_RAN = frozenset({ActionOutcome.FAILED, ActionOutcome.UNKNOWN})
"""How a run ends that ran its action, and kept nothing."""
_REPEATABLE_READ = own_text("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
_USED = "This consent has been used already: it is honoured once."


class _Unrecorded(Exception):
    """A run that reached outside came back, and what it did could not be recorded: the
    database's `error`, which ends the run as a crash would (it stays marked running)."""

    def __init__(self, error: StoreError) -> None:
        super().__init__(str(error))
        self.error = error


class RunAborted(Exception):
    """Raised by a `before` hook to stop a run before the action is called; nothing is kept."""


def _honour_once(session: Session, consent: Consent) -> None:
    try:
        with session.begin_nested():
            session.execute(
                consents_used.insert().values(
                    nonce=consent.nonce,
                    action=consent.action,
                    principal_id=consent.principal_id,
                    used_at=datetime.now(UTC),
                )
            )
    except IntegrityError:
        raise _AlreadyUsed from None


_REFUSED_AS_IT_ENDED = "The database refused what it changed as the run ended (the app's log has why)."
"""Why a run that reaches outside, and whose body came back, kept nothing of the app's: its
writes refused as they were flushed, or its transaction's commit."""

_BEGAN: ContextVar[bool] = ContextVar("signoff_action_began", default=False)
"""Whether the run under way has called the action's own code (`ActionResult.began`)."""


def _result(
    action: Action, acting: ActingAs, cause: str, outcome: ActionOutcome, **fields: Any
) -> ActionResult:
    return ActionResult(
        action=action.name, outcome=outcome, ran_as=acting.principals, cause=cause,
        began=_BEGAN.get(), **fields
    )


def _denied(problem: str, acting: ActingAs, action: str = "", cause: str = "") -> ActionResult:
    return ActionResult(
        action=action, outcome=ActionOutcome.DENIED, problem=problem, ran_as=acting.principals,
        cause=cause,
    )


def _with(result: ActionResult, *, action: str, cause: str) -> ActionResult:
    return ActionResult(
        action=action, outcome=result.outcome, problem=result.problem, ran_as=result.ran_as,
        cause=cause,
    )
