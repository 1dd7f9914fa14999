"""The actions an app offers by name (``app.actions``): registering, describing, checking, and
running them under someone's ordinary security."""

from __future__ import annotations

import dataclasses
import difflib
import enum
import functools
import inspect
import json
import logging
import sys
import threading
import types
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from typing import Annotated, Any

from pydantic import TypeAdapter, ValidationError
from sqlalchemy.engine import Connection

from signoff.actions.catalog import Action, ActionInfo
from signoff.actions.consent import ConsentSeal
from signoff.actions.declare import ActionFunction, ActionOptions, Untrusted
from signoff.actions.model_json import GivenTwice, escaped_halves, half_character_in, once_each
from signoff.actions.nesting import TOO_DEEP, too_deep
from signoff.actions.parameters import ParameterKind, derived_label, read_parameters, type_hints
from signoff.actions.problems import (
    cut_short,
    finite_number,
    no_constant,
    not_json,
    problem_of,
    unknown_members,
)
from signoff.actions.readonly import read_only_guard
from signoff.actions.results import ActionOutcome, ActionResult
from signoff.actions.running import Providers, Runner, changes_within, refusal_on
from signoff.actions.schemas import declares_result, parameters_model, result_adapter
from signoff.actions.steps import read_step
from signoff.effects import Effects, RaiseSite, analyse, analyse_again, checking, raises
from signoff.exceptions import ConsentError, Invalid, NotFound, ReadOnlyViolation, UserError
from signoff.security.acting import SYSTEM, ActingAs
from signoff.security.enforcement import may
from signoff.security.policies import Policy
from signoff.security.principals import People, Principal
from signoff.security.records import RecordBase
from signoff.security.sessions import open_session
from signoff.store.database import Database

__all__ = ["Actions"]

log = logging.getLogger("signoff.actions")

Who = Principal | Iterable[Principal] | ActingAs | str


class Actions:
    """The app's actions, by name."""

    def __init__(
        self, *, database: Database, people: People, seal: Callable[[], ConsentSeal]
    ) -> None:
        self._database = database
        self._people = people
        self._seal = seal
        self._actions: dict[str, Action] = {}
        self._declared: dict[str, dict[str, Any]] = {}
        """The names local to where each action was declared (its annotations may use them)."""
        self._found_again: dict[str, int] = {}
        """How many times each action's effects were found again (`_fresh`)."""
        self._finding = threading.RLock()
        self.providers = Providers()
        """What fills context parameters (``app.provide``)."""
        self._runner = Runner(database=database, people=people, providers=self.providers)

    # -- registering ---------------------------------------------------------------------

    def register(
        self,
        fn: Callable[..., Any],
        *,
        label: str | None = None,
        name: str | None = None,
        query: bool | None = None,
        authorize: Any = None,
        idempotent: bool | None = None,
        provided: Mapping[str, str] | None = None,
        untrusted: Untrusted = None,
    ) -> ActionFunction[..., Any]:
        """Offer `fn` by name; what is given here wins over what ``@action`` said."""
        _refuse_unreadable(fn.__wrapped__ if isinstance(fn, ActionFunction) else fn, name)
        function = fn if isinstance(fn, ActionFunction) else ActionFunction(fn, ActionOptions())
        before = function.options
        options = ActionOptions(
            label=label if label is not None else before.label,
            name=name if name is not None else before.name,
            query=query if query is not None else before.query,
            authorize=authorize if authorize is not None else before.authorize,
            idempotent=idempotent if idempotent is not None else before.idempotent,
            provided=tuple(sorted((provided or dict(before.provided)).items())),
            untrusted=untrusted if untrusted is not None else before.untrusted,
        )
        function.options = options
        localns = _declaring_locals()
        action = self._describe(function, options, localns)
        existing = self._actions.get(action.name)
        if existing is not None and existing.function is not function:
            raise UserError(
                f"Two actions are named {action.name}: {_where(existing.call)} and "
                f"{_where(action.call)}. Give one of them another name (name=...)."
            )
        self._actions[action.name] = action
        self._declared[action.name] = localns
        return function

    def collect(self, *sources: types.ModuleType | Callable[..., Any]) -> list[str]:
        """Register every ``@action``-marked function of these modules (or these functions)."""
        names: list[str] = []
        for source in sources:
            found = (
                [v for v in vars(source).values() if isinstance(v, ActionFunction)]
                if isinstance(source, types.ModuleType)
                else [source]
            )
            for function in found:
                if not callable(function):
                    raise UserError(f"collect takes modules and @action-marked functions, not "
                                    f"{function!r}.")
                if not isinstance(function, ActionFunction):
                    raise UserError(f"{_where(function)} is not marked with @action.")
                names.append(self.register(function).action_name)
        return names

    def _describe(
        self, function: ActionFunction[..., Any], options: ActionOptions, localns: dict[str, Any]
    ) -> Action:
        fn = function.__wrapped__
        name = options.name or fn.__name__
        if inspect.iscoroutinefunction(fn):
            raise UserError(f"Action {name}: async actions are not supported yet; make it a def.")
        parameters = read_parameters(
            fn, action_name=name, provided=dict(options.provided), localns=localns
        )
        model = parameters_model(name, parameters, module=fn.__module__)
        returns = inspect.signature(fn).return_annotation
        hints = _return_hint(fn, localns)
        returned = hints if hints is not None else returns
        result = result_adapter(name, returned)
        effects = analyse(fn, name=name, localns=localns)
        if options.query and not effects.only_reads:
            found = "; ".join(
                e.explain() for e in effects.effects if e.kind.value != "reads"
            )
            if not _source_readable(fn):
                raise UserError(
                    f"Action {name} is declared query=True, but signoff cannot read its code, "
                    "so it cannot show that it only reads: it was not defined in a file (but "
                    "typed in an interactive session, or run by exec). Define it in a module or "
                    "a script, and run that.")
            raise UserError(
                f"Action {name} is declared query=True, but it does more than read: {found}. "
                "Remove query=True, or take the effect out of its code."
            )
        # A validator runs held to reading as a call is checked (what it tries beyond that is
        # refused then): one found to do more than read, for sure, is refused here; what the
        # analysis cannot follow in one (the raw value a "before" validator is given) is left to
        # that hold, not taken to make the action do anything.
        done = [e for e in checking(fn, name=name, localns=localns).effects
                if e.kind.value != "reads" and not e.reason]
        if done:
            found = "; ".join(e.explain() for e in done)
            raise UserError(
                f"A validator of {name}'s parameters does more than read: {found}. It runs "
                "whenever a call is checked — before anyone decides whether the call runs — so "
                "it may only read: take the effect out of it.")
        offered = tuple(p for p in parameters if p.provided is None)
        subject = next((p.annotation for p in offered if p.is_subject), None)
        info = ActionInfo(
            name=name,
            label=options.label or derived_label(name),
            description=inspect.cleandoc(fn.__doc__ or ""),
            subject=subject,
            parameters=offered,
            effects=effects,
            query=options.query,
            idempotent=options.idempotent,
            parameters_schema=model.model_json_schema(),
            result_schema=(result.json_schema(mode="serialization")
                           if result and declares_result(returned) else None),
        )
        return Action(
            info=info,
            function=function,
            options=options,
            all_parameters=tuple(parameters),
            model=model,
            result=result,
        )

    # -- describing ----------------------------------------------------------------------

    def catalog(self) -> list[ActionInfo]:
        """Every action offered, by name."""
        return [self._fresh(self._actions[name]).info for name in sorted(self._actions)]

    def info(self, name: str) -> ActionInfo:
        """The action offered as `name`; `NotFound` (told as Gone) when there is none."""
        return self._get(name).info

    def raise_sites(self, name: str) -> list[RaiseSite]:
        """Where the action offered as `name` may raise an exception whose class is known (its
        code read with the names local to where it was declared, as its effects were)."""
        action = self._get(name)
        return raises(action.call, name=name, localns=self._declared.get(name))

    def policies(self) -> list[Policy]:
        """The `authorize` policy of every action that has one."""
        return [a.options.authorize for a in self._actions.values()
                if a.options.authorize is not None]

    def __len__(self) -> int:
        return len(self._actions)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._actions

    def get(self, name: str) -> Action:
        """The registered action `name` (its function and validation model included)."""
        return self._get(name)

    def for_record(self, record: Any, *, as_: Who) -> list[ActionInfo]:
        """The actions on `record`'s type (or a base of it) that the caller may run on it."""
        acting = self._runner.current(self._acting(as_))
        if isinstance(acting, ActionResult) or not may(acting, "read", record):
            return []
        found = []
        for action in [self._fresh(a) for a in list(self._actions.values())]:
            subject = action.info.subject
            if subject is None or not isinstance(record, subject):
                continue
            policy = action.options.authorize
            if policy is not None and not all(policy.admits(p, record) for p in acting):
                continue
            subject_changes = [c for p in action.all_parameters if p.is_subject
                               for c in changes_within(action, p.name)]
            if refusal_on(acting, action.info.effects, record,
                          changes=subject_changes) is not None:
                continue
            found.append(action.info)
        return sorted(found, key=lambda info: info.name)

    def choices(self, name: str, parameter: str, *, as_: Who) -> list[tuple[str, str]]:
        """The choices of one parameter, ``(key, label)``, as the caller may see them."""
        action = self._get(name)
        try:
            p = action.info.parameter(parameter)
        except KeyError:
            raise UserError(unknown_members([parameter], list(action.info.parameters))) from None
        if p.kind is ParameterKind.ENUM and isinstance(p.annotation, enum.EnumMeta):
            members: list[enum.Enum] = list(p.annotation)
            return [(m.name, _member_label(m)) for m in members]
        if p.kind is ParameterKind.ENUM:
            return [(m, m) for m in p.members]
        if p.choices is None:
            raise UserError(f"{p.label} of {name} has no choices: it takes any {p.kind.value}.")
        acting = self._runner.current(self._acting(as_))
        if isinstance(acting, ActionResult):
            return []
        with open_session(self._database, SYSTEM) as session:
            source = p.choices.source
            offered = source(session) if _takes_argument(source) else source()
            pairs: list[tuple[str, str]] = []
            for item in offered:
                if isinstance(item, RecordBase):
                    if may(acting, "read", item):
                        pairs.append((str(item.id), str(item)))
                else:
                    key, label = item
                    pairs.append((str(key), str(label)))
        return pairs

    # -- values --------------------------------------------------------------------------

    def values_from_json(self, name: str, json_text: str | bytes) -> dict[str, Any]:
        """The values in one JSON object of arguments (a model's tool call).

        `Invalid` (with the reason) for text that is not one JSON object, a member naming no
        parameter, or a value that does not fit; `NotFound` for an unknown action.
        """
        action = self._get(name)
        if not json_text.strip():
            raise Invalid("The arguments are empty: give one JSON object, with a member per "
                          "parameter ({} when there is none to give).")
        try:  # (NaN and Infinity: refused, as no database keeps them in JSON)
            data = json.loads(json_text, parse_constant=no_constant, parse_float=_number,
                              object_pairs_hook=once_each)
        except GivenTwice as twice:
            raise Invalid(f"The arguments give “{cut_short(twice.member)}” twice in one object: "
                          "give each member once, with the one value meant.") from None
        except ValueError as error:
            raise Invalid(not_json(json_text, error)) from None
        except TypeError as error:
            raise Invalid(f"The arguments are not JSON: {error}.") from None
        except RecursionError:
            raise Invalid(f"The arguments are {TOO_DEEP}.") from None
        if isinstance(data, str) and _is_object_text(data):
            raise Invalid("The arguments must be one JSON object, with a member per parameter: "
                          "this is one written as text (in quotes); write the object itself.")
        if not isinstance(data, dict):
            raise Invalid("The arguments must be one JSON object, with a member per parameter.")
        if too_deep(data):
            raise Invalid(f"The arguments are {TOO_DEEP}.")
        if _may_hold_halves(json_text) and (half := half_character_in(data)) is not None:
            raise Invalid(f"The arguments hold half of a character (a lone surrogate) in "
                          f"“{cut_short(escaped_halves(half))}”, which cannot be written alone: "
                          "send the text whole.")
        # Checked before anyone decides whether the call runs: the parameters' validators (the
        # app's code) may only read, and are held to it (a file written, a process started, a
        # socket opened is refused), as an action found to only read is as it runs.
        with read_only_guard(f"A validator of {name}'s parameters") as checking:
            try:
                validated = action.model.model_validate(data)
            except ValidationError as error:
                if not checking.violated:
                    raise Invalid(problem_of(error, list(action.all_parameters))) from None
            except RecursionError:
                raise Invalid(f"The arguments are {TOO_DEEP}.") from None
            except ReadOnlyViolation:
                pass  # (recorded in the guard, and told below)
        if checking.violated:
            log.error("%s", " ".join(str(v) for v in checking.violations))
            raise Invalid(f"Checking the arguments of {name} tried more than reading, which a "
                          "parameter's validator may not do; nothing was run. The log says what "
                          "it tried.")
        return {field: getattr(validated, field) for field in data}

    def check(self, name: str, values: Mapping[str, Any]) -> str:
        """"" when `values` fit action `name`, or the first problem in a person's words.

        Nothing runs and no record is looked up.
        """
        if name not in self._actions:
            return _no_such_action(name, self._actions)
        if not isinstance(values, Mapping):
            return "The values must be given by name, as one object."
        return self._problem(self._actions[name], dict(values))

    def _problem(self, action: Action, values: dict[str, Any]) -> str:
        try:
            action.model.model_validate(values)
        except ValidationError as error:
            return problem_of(error, list(action.all_parameters))
        return ""

    # -- running -------------------------------------------------------------------------

    def run(
        self, name: str | Callable[..., Any], values: Mapping[str, Any] | None = None, *,
        as_: Who, cause: str = "",
    ) -> ActionResult:
        """Run action `name` with `values`, as `as_` (every principal of it), for `cause`."""
        key = name.action_name if isinstance(name, ActionFunction) else name
        action = self._actions.get(key) if isinstance(key, str) else None
        action = self._fresh(action) if action is not None else None
        if action is not None and isinstance(name, ActionFunction) and action.function is not name:
            return ActionResult(action=action.name, outcome=ActionOutcome.GONE, cause=cause, problem=(
                f"The function given is not this app's action {key}, but another of the same "
                f"name (another app's?): run this app's, by its name ({key!r})."))
        if action is None:
            shown = key if isinstance(key, str) else getattr(name, "__name__", repr(name))
            return ActionResult(action=shown, outcome=ActionOutcome.GONE,
                                problem=_no_such_action(shown, self._actions), cause=cause)
        return self._runner.run(action, values if values is not None else {},
                                acting=self._acting(as_), cause=cause)

    def run_values(
        self, action: Action, values: Mapping[str, Any], *, acting: ActingAs, cause: str = "",
        before: Callable[[Connection], None] | None = None,
        within: Callable[[Connection, ActionResult], None] | None = None,
    ) -> ActionResult:
        """Run a registered action as `acting`, with hooks that commit with its writes: `before`
        runs first in its transaction, `within` after a Done run (see ``Runner.run``)."""
        return self._runner.run(action, values, acting=acting, cause=cause, before=before,
                                within=within)

    def unreadable(self, action: Action, values: Mapping[str, Any], *, acting: ActingAs,
                   within: Connection) -> str:
        """Why a run of `action` with `values` as `acting` would not find what it acts on, read
        in the transaction `within` (see ``Runner.unreadable``); "" when it would."""
        return self._runner.unreadable(action, values, acting, within)

    def run_json(self, name: str, json_text: str | bytes, *, as_: Who, cause: str = "") -> ActionResult:
        """`values_from_json` then `run`: every mistake becomes an outcome, never an exception."""
        try:
            values = self.values_from_json(name, json_text)
        except NotFound as gone:
            return ActionResult(action=name, outcome=ActionOutcome.GONE, problem=gone.message, cause=cause)
        except Invalid as invalid:
            return ActionResult(action=name, outcome=ActionOutcome.INVALID, problem=invalid.message,
                                cause=cause)
        return self.run(name, values, as_=as_, cause=cause)

    # -- consent -------------------------------------------------------------------------

    def consent(self, name: str, values: Mapping[str, Any], *, as_: Principal | str) -> str:
        """Seal action `name`, `values` and the principal `as_` into a token for later.

        The values are checked now; the principal's rights are checked when it runs.
        """
        action = self._get(name)
        if isinstance(as_, str):  # (a person's handle, as a run takes one)
            as_ = self._people.get(as_)
        if not isinstance(as_, Principal):
            raise UserError(f"A consent is made by one principal (or their handle), not "
                            f"{as_!r}.")
        if action.info.query:  # (its one use is a write, which a query's run cannot make)
            raise UserError(f"{action.name} is a query: it only reads, so it needs no consent; "
                            f"run it when it is wanted, with app.actions.run({action.name!r}, "
                            "..., as_=...).")
        sealed = self._given_as_json(action, dict(values))
        return self._seal().seal(action=name, values=sealed, principal_id=as_.id)

    def _given_as_json(self, action: Action, values: dict[str, Any]) -> dict[str, Any]:
        """The values given (some may be left for later) as JSON; `Invalid` if any does not fit."""
        fields = action.model.model_fields
        unknown = [name for name in values if name not in fields]
        if unknown:
            raise Invalid(unknown_members(unknown, list(action.all_parameters)))
        try:
            action.model.model_validate(values)
        except ValidationError as error:
            wrong = [e for e in error.errors() if e["type"] != "missing"]
            if wrong:
                raise Invalid(problem_of(wrong, list(action.all_parameters))) from None
        given: dict[str, Any] = {}
        blank = action.model.model_construct()  # each value read by its field, as a run
        for name, value in values.items():      # reads it (an enum by its member's name too)
            # (as the field is declared: its annotation with the metadata pydantic keeps apart,
            # such as an enum's reading and writing by name; without it an enum was sealed by
            # its value, which the run, reading it by name, refused)
            field = fields[name]
            declared: Any = (Annotated[(field.annotation or Any, *field.metadata)]
                             if field.metadata else field.annotation or Any)
            adapter: TypeAdapter[Any] = TypeAdapter(declared)
            try:
                read = getattr(action.model.__pydantic_validator__.validate_assignment(
                    blank, name, value), name)
            except ValidationError:  # (a model's own check needing the values left open)
                read = adapter.validate_python(value)
            given[name] = adapter.dump_python(read, mode="json")
        return given

    def run_consented(
        self, token: str, rest: Mapping[str, Any] | None = None, *,
        action: str | None = None, cause: str = "",
    ) -> ActionResult:
        """Run what `token` consents to, as its principal with their rights as they are now.

        `rest` gives values the token left open (it cannot change sealed ones). With `action`,
        a token for any other action is refused. A token is honoured once.
        """
        try:
            consent = self._seal().open(token)
        except ConsentError as error:
            return ActionResult(action=action or "", outcome=ActionOutcome.DENIED, problem=str(error),
                                cause=cause)
        if action is not None and consent.action != action:
            return ActionResult(
                action=action, outcome=ActionOutcome.DENIED, cause=cause,
                problem=f"This consent is for {consent.action}, not {action}: it is refused.",
            )
        again = sorted(set(rest or {}) & set(consent.values))
        if again:
            return ActionResult(
                action=consent.action, outcome=ActionOutcome.INVALID, cause=cause,
                problem=f"The consent already fixes {', '.join(again)}; it cannot be changed.",
            )
        principal = self._people.find(consent.principal_id)
        if principal is None:
            return ActionResult(action=consent.action, outcome=ActionOutcome.DENIED, cause=cause,
                                problem="Whoever made this consent is no longer known here.")
        if consent.action not in self._actions:
            return ActionResult(action=consent.action, outcome=ActionOutcome.GONE, cause=cause,
                                problem=_no_such_action(consent.action, self._actions))
        if self._actions[consent.action].info.query:  # (redeployed: its run can write nothing)
            return ActionResult(
                action=consent.action, outcome=ActionOutcome.DENIED, cause=cause,
                problem=f"{consent.action} is now a query: it only reads, so a consent to it is "
                        "not honoured (the consent was made for what it did before). Run it as "
                        "a query, with app.actions.run.")
        values = {**consent.values, **dict(rest or {})}
        return self._runner.run(
            self._fresh(self._actions[consent.action]), values, acting=ActingAs.of(principal),
            cause=cause,
            consent=consent,
        )

    # -- steps ---------------------------------------------------------------------------

    def step_of(self, fn: Callable[[Any], Any]) -> tuple[str, dict[str, Any]]:
        """The action and values of a step, ``lambda t: tag_ticket(t, "urgent")``."""
        function, values = read_step(fn)
        action = self._actions.get(function.action_name)
        if action is None or action.function is not function:
            raise UserError(
                f"A step calls an action of this app; {function.action_name} is not one of them."
            )
        if not action.info.parameters or not action.info.parameters[0].is_subject:
            raise UserError(f"A step acts on a record; {action.name} has no record to act on.")
        problem = self._problem(action, {action.info.parameters[0].name: _ANY_ID, **values})
        if problem:
            raise UserError(f"This step's values do not fit {action.name}: {problem}")
        return action.name, values

    def _acting(self, as_: Who | str) -> ActingAs:
        """Whoever a run is for, as given: a person's handle too (as `do` takes `for_`)."""
        return ActingAs.of(self._people.get(as_) if isinstance(as_, str) else as_)

    def _get(self, name: str) -> Action:
        action = self._actions.get(name) if isinstance(name, str) else None
        if action is None:
            raise NotFound(_no_such_action(str(name), self._actions))
        return self._fresh(action)

    def _fresh(self, action: Action) -> Action:
        """`action`, with its effects found again when a name its code resolved is bound to
        something else since they were found (a module's global, or a class's attribute, set
        after the action was registered: its code then runs other code than was analysed).
        One that keeps changing is taken, after a few times, to do anything."""
        rebound = action.info.effects.resolved.changed()
        if rebound is None:
            return action
        with self._finding:
            name = action.name
            current = self._actions.get(name, action)
            if current is not action:  # (found again by another thread meanwhile)
                return self._fresh(current) if current.info.effects.resolved.changed() else current
            times = self._found_again[name] = self._found_again.get(name, 0) + 1
            if times > _MOST_FOUND_AGAIN:
                effects = Effects.unknown(name, f"what its code resolves keeps changing ({rebound} "
                                                f"among them): its effects cannot be kept up with")
            else:
                effects = analyse_again(action.call, name=name, localns=self._declared.get(name))
            log.warning("Action %s: %s is bound to something else than when its effects were "
                        "found, so they were found again: %s.", name, rebound,
                        "; ".join(effects.explain()) or "it only computes")
            fresh = dataclasses.replace(action, info=dataclasses.replace(action.info,
                                                                         effects=effects))
            self._actions[name] = fresh
            return fresh


_MOST_FOUND_AGAIN = 8
"""How many times one action's effects are found again before it is taken to do anything."""

_ANY_ID = "00000000-0000-4000-8000-000000000000"


def _no_such_action(name: str, known: Iterable[str]) -> str:
    """That no action is named `name`, with the one of `known` it may have meant, and all of
    them when they are few."""
    names = sorted(known)
    close = difflib.get_close_matches(name, names, n=1)
    meant = f" Did you mean {close[0]}?" if close else ""
    listed = f" The actions are: {', '.join(names)}." if 0 < len(names) <= 20 else ""
    return f"There is no action named “{name}” that can be run by name.{meant}{listed}"


def _may_hold_halves(json_text: str | bytes) -> bool:
    """Whether JSON text may give half of a character: only an escape (``\\ud800``) gives one,
    or text that holds one already (bytes are read as UTF-8, which holds none)."""
    if isinstance(json_text, bytes):
        return b"\\u" in json_text
    return "\\u" in json_text or not json_text.isascii()


def _is_object_text(text: str) -> bool:
    """Whether `text` is a JSON object written out (a model that wrote its arguments twice
    encoded)."""
    try:
        return isinstance(json.loads(text), dict)
    except (ValueError, RecursionError):
        return False


def _number(text: str) -> float | Decimal:
    """A JSON number with a fraction or an exponent, as `json.loads` reads it: a float, unless
    a float cannot hold what it says (``12345678901234567890.123456789``), then a Decimal, so
    that a Decimal parameter is given every digit written (a float one is given the nearest
    float, as ever). Infinity is refused (`finite_number`)."""
    number = finite_number(text)
    exact = Decimal(text)
    return number if Decimal(repr(number)) == exact else exact


def _member_label(member: Any) -> str:
    return member.value if isinstance(member.value, str) else derived_label(member.name.lower())


def _takes_argument(fn: Callable[..., Any]) -> bool:
    try:
        return len(inspect.signature(fn).parameters) > 0
    except (TypeError, ValueError):
        return False


def _refuse_unreadable(fn: Any, name: str | None) -> None:
    """A `UserError` unless `fn` is a function or a method: what signoff reads an action's
    parameters, types and effects from is its own code, which only those have."""
    if inspect.isfunction(fn) or inspect.ismethod(fn):
        return
    partial = isinstance(fn, functools.partial)
    what = ("a functools.partial" if partial else "a built-in function" if inspect.isbuiltin(fn)
            else f"an instance of {type(fn).__name__}")
    shown = name or getattr(fn, "__name__", None) or (
        f"A partial of {getattr(fn.func, '__qualname__', 'a callable')}" if partial else
        f"An instance of {type(fn).__qualname__}")
    raise UserError(
        f"{shown} cannot be an action: it is {what}, and signoff reads an action's parameters, "
        "types and effects from a function's own code. Define the action with def, in a "
        "module, and call what it wraps from it (e.g. `def add_five(a: int) -> int: "
        "return add(a, 5)`).")


def _where(fn: Callable[..., Any]) -> str:
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"


def _declaring_locals() -> dict[str, Any]:
    """The local names where the action is declared (the first frame outside signoff), so that
    an action declared inside a function may name types local to it."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").startswith("signoff."):
        frame = frame.f_back  # type: ignore[assignment]
    return dict(frame.f_locals) if frame is not None else {}


def _return_hint(fn: Callable[..., Any], localns: dict[str, Any]) -> Any:
    try:
        return type_hints(fn, localns).get("return")
    except Exception:  # an unresolvable forward reference: fall back to the raw annotation
        return None


def _source_readable(fn: Any) -> bool:
    """Whether `fn`'s own code can be read (what the effect analysis reads)."""
    try:
        inspect.getsource(fn)
    except (OSError, TypeError):
        return False
    return True
