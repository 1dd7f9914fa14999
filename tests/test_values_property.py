"""Any JSON a caller or a model sends either runs the action or gets a clear outcome, and a run is
one transaction: never an uncaught exception, never a partial write."""

from __future__ import annotations

import datetime as dt
import enum
import json
import uuid
from dataclasses import dataclass
from decimal import Decimal
from typing import Annotated, Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from sqlalchemy import String, func, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from signoff import (
    FAILED_TEXT,
    ActionOutcome,
    App,
    Conflict,
    Invalid,
    NotAuthorized,
    NotFound,
    Principal,
    Provided,
    allow,
    deny,
    policy,
)


class Mode(enum.Enum):
    """How the action ends once both its writes are made."""

    CALM = "calm"
    REFUSE = "refuse"
    CONFLICT = "conflict"
    MISSING = "missing"
    FORBID = "forbid"
    CRASH = "crash"


class Line(BaseModel):
    """A line of a posting."""

    name: str
    count: int


PARAMETERS = ["account", "amount", "mode", "note", "lines", "on"]


@dataclass(frozen=True, kw_only=True)
class Ledger:
    """An app whose one action writes two records, then may be refused or fail."""

    app: App
    account_type: Any
    entry_type: Any
    account_id: uuid.UUID
    people: dict[str, Principal]

    def state(self) -> tuple[int, int, Decimal]:
        """(entries, the account's revision, its balance), as the app itself sees them."""
        with self.app.session(as_=self.app.system) as s:
            entries = s.scalar(select(func.count()).select_from(self.entry_type))
            account = s.get(self.account_type, self.account_id)
            return int(entries or 0), account.revision, account.balance


def build_ledger() -> Ledger:
    """A fresh in-memory ledger: staff may post, only the boss may change a balance."""
    app = App("t", database="sqlite://")
    staff, boss = policy.role("staff"), policy.role("boss")

    class Account(app.Record):  # type: ignore[name-defined, misc]
        code: Mapped[str] = mapped_column(String(20), unique=True)
        balance: Mapped[Decimal] = mapped_column(default=Decimal(0))
        revision: Mapped[int] = mapped_column(default=0)
        __security__ = [allow("read", "update", when=staff), deny("update", "balance", when=~boss)]

    class Entry(app.Record):  # type: ignore[name-defined, misc]
        account_code: Mapped[str] = mapped_column(String(20))
        amount: Mapped[str] = mapped_column(String(200))
        revision: Mapped[int] = mapped_column()
        __security__ = [allow("read", "create", when=staff)]

    @app.action
    def post(
        account: Account,
        amount: Decimal,
        session: Annotated[Session, Provided("session")],
        mode: Mode = Mode.CALM,
        note: str = "",
        lines: list[Line] | None = None,
        on: dt.date | None = None,
    ) -> str:
        """Post an amount: count a revision on the account and write an entry, then end as
        `mode` says (a large amount changes the balance, which only the boss may)."""
        account.revision += 1
        session.add(Entry(account_code=account.code, amount=str(amount), revision=account.revision))
        session.flush()  # both writes are in the transaction before anything can go wrong
        if mode is Mode.REFUSE:
            raise Invalid(f"{amount} cannot be posted: {note or 'no reason given'}.")
        if mode is Mode.CONFLICT:
            raise Conflict("The account changed meanwhile; look again.")
        if mode is Mode.MISSING:
            raise NotFound("The account's owner is gone.")
        if mode is Mode.FORBID:
            raise NotAuthorized("Postings on this account are closed.")
        if mode is Mode.CRASH:
            raise RuntimeError("the ledger's printer caught fire")
        if amount.is_finite() and abs(amount) <= 1000 and amount > 100:
            account.balance += amount
        return f"Posted {amount} to {account.code}."

    people = {
        "boss": app.people.add("bo@x.example", "Bo", roles=["staff", "boss"]),
        "clerk": app.people.add("cleo@x.example", "Cleo", roles=["staff"]),
        "stranger": app.people.add("sam@x.example", "Sam"),
    }
    app.people.disable(app.people.add("dan@x.example", "Dan", roles=["staff", "boss"]))
    people["disabled"] = app.people.get("dan@x.example")
    with app.session(as_=app.system) as s:
        account = Account(code="A-1")
        s.add(account)
    return Ledger(app=app, account_type=Account, entry_type=Entry, account_id=account.id,
                  people=people)


# -- strategies -------------------------------------------------------------------------------

json_leaves = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
)
json_values = st.recursive(
    json_leaves,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
member_names = st.sampled_from(PARAMETERS) | st.text(max_size=10)


def requests(account_id: uuid.UUID) -> st.SearchStrategy[str | bytes]:
    """The text of a tool call: plausible objects, random objects, other JSON, and junk."""
    account = (
        st.just(str(account_id))
        | st.just(str(account_id))
        | st.uuids().map(str)
        | st.just(str(account_id).upper())
        | json_values
    )
    amount = (
        st.decimals(allow_nan=True, allow_infinity=True).map(str)
        | st.integers(-2000, 2000)
        | st.floats(allow_nan=False, allow_infinity=False)
        | json_values
    )
    mode = st.sampled_from([m.name for m in Mode] + [m.value for m in Mode]) | json_values
    line = st.fixed_dictionaries({"name": st.text(max_size=8), "count": st.integers(-3, 9)})
    plausible = st.fixed_dictionaries(
        {"account": account, "amount": amount},
        optional={
            "mode": mode,
            "note": st.text(max_size=20) | json_values,
            "lines": st.lists(line | json_values, max_size=3) | json_values,
            "on": st.dates().map(dt.date.isoformat) | st.text(max_size=12) | json_values,
            "session": json_values,
        },
    )
    plausible_with_extra = st.tuples(plausible, st.dictionaries(member_names, json_values,
                                                                 max_size=2)).map(
        lambda pair: {**pair[1], **pair[0]}
    )
    random_object = st.dictionaries(member_names, json_values, max_size=7)
    not_an_object = json_values.filter(lambda v: not isinstance(v, dict))
    objects = plausible | plausible | plausible_with_extra | random_object | not_an_object
    return objects.map(json.dumps) | st.text(max_size=40) | st.binary(max_size=40)


def _mode_asked(text: str | bytes) -> Mode | None:
    try:
        given_mode = json.loads(text).get("mode", "CALM")
    except (ValueError, TypeError, AttributeError, RecursionError):
        return None
    if not isinstance(given_mode, str):
        return None
    for m in Mode:
        if given_mode.casefold() in (m.name.casefold(), m.value.casefold()):
            return m
    return None


CLEAR = {ActionOutcome.INVALID, ActionOutcome.GONE, ActionOutcome.DENIED}


@pytest.mark.parametrize("via", ["run_json", "values_from_json"])
def test_any_json_runs_or_is_told_and_never_half_writes(via: str) -> None:
    """Whatever text is sent, by whoever, the outcome is Done with both writes kept, or a clear
    outcome (Invalid, Gone, Denied with a reason; Failed only for the crash, in fixed words)
    with neither write kept."""
    ledger = build_ledger()
    outcomes: set[ActionOutcome] = set()

    account = str(ledger.account_id)

    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(text=requests(ledger.account_id), who=st.sampled_from(sorted(ledger.people)))
    # One example of each ending, so that every run checks the property on each of them.
    @example(text=json.dumps({"account": account, "amount": "5"}), who="clerk")
    @example(text=json.dumps({"account": account, "amount": "500"}), who="clerk")
    @example(text=json.dumps({"account": account, "amount": "5"}), who="stranger")
    @example(text=json.dumps({"account": account, "amount": "5"}), who="disabled")
    @example(text=json.dumps({"account": account, "amount": "5", "mode": "crash"}), who="boss")
    @example(text=json.dumps({"account": account, "amount": "5", "mode": "REFUSE"}), who="boss")
    @example(text=json.dumps({"account": account, "amount": "x"}), who="boss")
    def run_once(text: str | bytes, who: str) -> None:
        before = ledger.state()
        principal = ledger.people[who]
        if via == "run_json":
            result = ledger.app.actions.run_json("post", text, as_=principal)
        else:
            refused: str | None = None
            try:
                values = ledger.app.actions.values_from_json("post", text)
            except Invalid as invalid:
                refused = invalid.message
            if refused is not None:
                outcomes.add(ActionOutcome.INVALID)
                assert refused.strip()
                assert ledger.state() == before
                return
            result = ledger.app.actions.run("post", values, as_=principal)
        outcomes.add(result.outcome)
        after = ledger.state()
        if result.outcome is ActionOutcome.DONE:
            assert result.problem == ""
            assert result.said.startswith("Posted ")
            assert after[0] == before[0] + 1, "Done, but the entry was not kept"
            assert after[1] == before[1] + 1, "Done, but the revision was not kept"
            return
        assert after == before, f"{result.outcome}: something was kept: {before} → {after}"
        if result.outcome is ActionOutcome.FAILED:
            assert result.problem == FAILED_TEXT
            assert _mode_asked(text) is Mode.CRASH, f"Failed without a crash: {text!r}"
        else:
            assert result.outcome in CLEAR
            assert result.problem.strip()
            assert "Traceback" not in result.problem

    run_once()
    # Every way a run can end was reached, so the property was checked on each.
    assert outcomes >= {ActionOutcome.DONE, ActionOutcome.INVALID, ActionOutcome.GONE,
                        ActionOutcome.DENIED, ActionOutcome.FAILED}


def test_each_ending_keeps_both_writes_or_neither() -> None:
    """Each way the action can end, told one by one: only Done keeps its two writes."""
    ledger = build_ledger()
    account = str(ledger.account_id)
    cases = [
        ("boss", {"amount": "5"}, ActionOutcome.DONE),
        ("clerk", {"amount": "500"}, ActionOutcome.DENIED),  # the balance is the boss's
        ("boss", {"amount": "500"}, ActionOutcome.DONE),
        ("boss", {"amount": "5", "mode": "REFUSE"}, ActionOutcome.INVALID),
        ("boss", {"amount": "5", "mode": "CONFLICT"}, ActionOutcome.INVALID),
        ("boss", {"amount": "5", "mode": "MISSING"}, ActionOutcome.GONE),
        ("boss", {"amount": "5", "mode": "FORBID"}, ActionOutcome.DENIED),
        ("boss", {"amount": "5", "mode": "CRASH"}, ActionOutcome.FAILED),
        ("stranger", {"amount": "5"}, ActionOutcome.GONE),
        ("disabled", {"amount": "5"}, ActionOutcome.DENIED),
    ]
    for who, values, expected in cases:
        before = ledger.state()
        text = json.dumps({"account": account, **values})
        result = ledger.app.actions.run_json("post", text, as_=ledger.people[who])
        assert result.outcome is expected, (who, values, result)
        entries, revision, balance = ledger.state()
        if expected is ActionOutcome.DONE:
            assert (entries, revision) == (before[0] + 1, before[1] + 1)
        else:
            assert (entries, revision, balance) == before
    assert ledger.state()[2] == Decimal(500)


def test_deeply_nested_json_is_invalid_not_an_exception() -> None:
    """A tool call nested deeper than the JSON parser follows is told as Invalid."""
    ledger = build_ledger()
    text = '{"account": ' + "[" * 100_000 + "]" * 100_000 + "}"
    result = ledger.app.actions.run_json("post", text, as_=ledger.people["boss"])
    assert result.outcome is ActionOutcome.INVALID
    assert ledger.state() == (0, 0, Decimal(0))
