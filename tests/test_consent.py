"""Consent: a sealed action, values and principal, run later under the rights held then."""

from __future__ import annotations

import base64
import json
import os
import re
import stat
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from signoff import (
    ActionOutcome,
    App,
    Failed,
    Invalid,
    OutcomeUnknown,
    UserError,
    allow,
    policy,
)
from signoff.actions.consent import load_or_create_key


def _shop(tmp_path: Path) -> SimpleNamespace:
    app = App("shop", database=f"sqlite:///{tmp_path / 'shop.db'}")
    is_buyer = policy.role("buyer")

    class Stock(app.Record):  # type: ignore[name-defined, misc]
        sku: Mapped[str] = mapped_column(String(20), unique=True)
        count: Mapped[int] = mapped_column(default=0)
        __security__ = [allow("read", "create", "update", when=is_buyer)]

    @app.action("Reorder stock")
    def reorder(stock: Stock, count: int) -> str:
        """Order more of something."""
        stock.count += count
        return f"{stock.sku}: {stock.count}"

    @app.action("Write off stock")
    def write_off(stock: Stock, count: int) -> str:
        """Take some out."""
        stock.count -= count
        return f"{stock.sku}: {stock.count}"

    @app.action("Count stock", query=True)
    def how_many(stock: Stock) -> int:
        """How many there are."""
        return stock.count

    kim = app.people.add("kim@shop.example", "Kim", roles=["buyer"])
    with app.session(as_=kim) as s:
        stock = Stock(sku="NUT-8")
        s.add(stock)
    return SimpleNamespace(app=app, Stock=Stock, kim=kim, stock=stock)


def _count(shop: SimpleNamespace) -> int:
    with shop.app.session(as_=shop.app.system) as s:
        return int(s.get(shop.Stock, shop.stock.id).count)


def test_consent_runs_as_its_author(tmp_path: Path) -> None:
    """A token made by Kim runs later as Kim, with the values she sealed and the rest given."""
    shop = _shop(tmp_path)
    token = shop.app.actions.consent("reorder", {"stock": shop.stock}, as_=shop.kim)
    result = shop.app.actions.run_consented(token, {"count": 5}, cause="weekly order")
    assert (result.outcome, result.said, result.cause) == (ActionOutcome.DONE, "NUT-8: 5", "weekly order")
    assert [p.name for p in result.ran_as] == ["Kim"]
    assert _count(shop) == 5


@pytest.mark.parametrize("ending", ["failed", "unknown"])
def test_consent_is_used_up_by_a_run_that_failed_or_whose_outcome_is_unknown(
        tmp_path: Path, ending: str) -> None:
    """A run that got as far as running its action is the one run a token allows, however it
    ended: one that failed, or whose outcome its action could not tell, rolled its honouring
    back with the rest, so that the token ran again, and again (and what may have happened
    once was done twice). Now the second use is refused, and the action is not run again."""
    app = App("shop", database=f"sqlite:///{tmp_path / 'shop.db'}")
    ran: list[str] = []

    class Order(app.Record):  # type: ignore[name-defined, misc]
        note: Mapped[str] = mapped_column(String(40), default="")
        __security__ = [allow("read", "create", "update")]

    @app.action("Place an order")
    def place(order: Order) -> str:
        """Place the order with the supplier."""
        ran.append(order.note)
        order.note = "placed"
        if ending == "failed":
            raise Failed("The supplier refused the order.")
        raise OutcomeUnknown("The supplier did not answer: the order may have been placed.")

    kim = app.people.add("kim@shop.example", "Kim")
    with app.session(as_=kim) as s:
        order = Order(note="ten nuts")
        s.add(order)
    token = app.actions.consent("place", {"order": order}, as_=kim)
    first = app.actions.run_consented(token)
    assert first.outcome is {"failed": ActionOutcome.FAILED,
                             "unknown": ActionOutcome.UNKNOWN}[ending]
    again = app.actions.run_consented(token)
    assert (again.outcome, again.problem) == (
        ActionOutcome.DENIED, "This consent has been used already: it is honoured once.")
    assert ran == ["ten nuts"]


def test_consent_is_refused_once_its_author_lost_the_role(tmp_path: Path) -> None:
    """Rights are those held when the token is used, not when it was made."""
    shop = _shop(tmp_path)
    token = shop.app.actions.consent("reorder", {"stock": shop.stock, "count": 3}, as_=shop.kim)
    shop.app.people.take_away(shop.kim, "buyer")
    result = shop.app.actions.run_consented(token)
    assert result.outcome in (ActionOutcome.DENIED, ActionOutcome.GONE)
    assert "Kim" in result.problem or "cannot read" in result.problem
    assert _count(shop) == 0
    shop.app.people.grant(shop.kim, "buyer")
    shop.app.people.disable(shop.kim)
    disabled = shop.app.actions.run_consented(token)
    assert (disabled.outcome, disabled.problem) == (
        ActionOutcome.DENIED, "Kim is disabled and may not do anything."
    )


def _edit(token: str, change: dict[str, object]) -> str:
    version, body, mac = token.split(".")
    payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    payload.update(change)
    edited = base64.urlsafe_b64encode(json.dumps(payload).encode()).rstrip(b"=").decode()
    return f"{version}.{edited}.{mac}"


@pytest.mark.parametrize(
    "change", [{"v": {"stock": "x", "count": 500}}, {"a": "write_off"}, {"p": "someone-else"}]
)
def test_an_edited_token_is_refused(tmp_path: Path, change: dict[str, object]) -> None:
    """Changing the values, the action or the principal breaks the seal."""
    shop = _shop(tmp_path)
    token = shop.app.actions.consent("reorder", {"stock": shop.stock, "count": 3}, as_=shop.kim)
    payload = json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))
    change = {k: ({**v, "stock": payload["v"]["stock"]} if k == "v" else v)  # type: ignore[dict-item]
              for k, v in change.items()}
    result = shop.app.actions.run_consented(_edit(token, change))
    assert result.outcome is ActionOutcome.DENIED
    assert result.problem == (
        "This consent token has been altered, or was not made by this app: it is refused."
    )
    assert _count(shop) == 0


@pytest.mark.parametrize("token", ["", "c1.e30.", "garbage", "c1.a.b.c", "c2.e30.AAAA"])
def test_a_forged_token_is_refused(tmp_path: Path, token: str) -> None:
    """Anything not sealed by this app's key is refused, never an exception."""
    shop = _shop(tmp_path)
    assert shop.app.actions.run_consented(token).outcome is ActionOutcome.DENIED


def test_a_token_used_for_another_action_is_refused(tmp_path: Path) -> None:
    """A token names one action: asked to run another, it is refused and nothing runs."""
    shop = _shop(tmp_path)
    token = shop.app.actions.consent("reorder", {"stock": shop.stock, "count": 3}, as_=shop.kim)
    result = shop.app.actions.run_consented(token, action="write_off")
    assert (result.outcome, result.problem) == (
        ActionOutcome.DENIED, "This consent is for reorder, not write_off: it is refused."
    )
    assert _count(shop) == 0


def test_a_token_is_honoured_once(tmp_path: Path) -> None:
    """A replayed token is refused; the first run stands."""
    shop = _shop(tmp_path)
    token = shop.app.actions.consent("reorder", {"stock": shop.stock, "count": 3}, as_=shop.kim)
    assert shop.app.actions.run_consented(token).done
    again = shop.app.actions.run_consented(token)
    assert (again.outcome, again.problem) == (
        ActionOutcome.DENIED, "This consent has been used already: it is honoured once."
    )
    assert _count(shop) == 3


def test_a_token_that_did_not_run_can_be_used_again(tmp_path: Path) -> None:
    """A refused run does not use the token up (it is marked used in the run's transaction)."""
    shop = _shop(tmp_path)
    token = shop.app.actions.consent("reorder", {"stock": shop.stock, "count": 3}, as_=shop.kim)
    shop.app.people.take_away(shop.kim, "buyer")
    assert not shop.app.actions.run_consented(token).done
    shop.app.people.grant(shop.kim, "buyer")
    assert shop.app.actions.run_consented(token).done


def test_sealed_values_cannot_be_given_again(tmp_path: Path) -> None:
    """`rest` fills what the token left open, never what it fixed."""
    shop = _shop(tmp_path)
    token = shop.app.actions.consent("reorder", {"stock": shop.stock, "count": 3}, as_=shop.kim)
    result = shop.app.actions.run_consented(token, {"count": 300})
    assert (result.outcome, result.problem) == (
        ActionOutcome.INVALID, "The consent already fixes count; it cannot be changed."
    )


def test_consent_checks_values_when_made(tmp_path: Path) -> None:
    """A consent to values that do not fit is refused when it is made."""
    shop = _shop(tmp_path)
    with pytest.raises(Invalid, match="Count is a whole number"):
        shop.app.actions.consent("reorder", {"stock": shop.stock, "count": "many"}, as_=shop.kim)


def test_consent_reads_an_enum_by_its_members_name_as_a_run_does(tmp_path: Path) -> None:
    """A value a run takes (an enum by its member's name, "HIGH") is taken by a consent too,
    and sealed as the run reads it (a raw pydantic error came out of `consent`)."""
    import enum

    app = App("enums", database=f"sqlite:///{tmp_path / 'enums.db'}")

    class Priority(enum.Enum):
        LOW = "Low"
        HIGH = "High"

    @app.action("Set a priority")
    def set_priority(name: str, priority: Priority) -> str:
        """Set it."""
        return f"{name}: {priority.value}"

    sam = app.people.add("sam@shop.example", "Sam")
    assert app.actions.run("set_priority", {"name": "a", "priority": "HIGH"},
                           as_=sam).said == "a: High"
    token = app.actions.consent("set_priority", {"priority": "HIGH"}, as_=sam)
    assert app.actions.run_consented(token, {"name": "b"}).said == "b: High"
    with pytest.raises(Invalid):
        app.actions.consent("set_priority", {"priority": "NOPE"}, as_=sam)
    app.database.dispose()


def test_the_key_is_made_once_with_mode_0600(tmp_path: Path) -> None:
    """The app's key is generated on first use beside its database, readable by its owner only,
    and a token made by one app instance is honoured by the next."""
    shop = _shop(tmp_path)
    token = shop.app.actions.consent("reorder", {"stock": shop.stock, "count": 1}, as_=shop.kim)
    key_file = tmp_path / "shop.key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    reopened = App("shop", database=f"sqlite:///{tmp_path / 'shop.db'}")
    assert reopened.consent_seal().open(token).action == "reorder"


def test_a_key_file_others_may_read_is_refused(tmp_path: Path) -> None:
    """A key readable by the group or others is refused, with the chmod that fixes it."""
    path = tmp_path / "k.key"
    load_or_create_key(path)
    os.chmod(path, 0o644)
    with pytest.raises(UserError, match="chmod 600"):
        load_or_create_key(path)


def test_a_configured_key_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGNOFF_KEY from the environment seals tokens; another key does not open them."""
    monkeypatch.setenv("SIGNOFF_KEY", "ab" * 32)
    one = App("one", database="sqlite://").consent_seal()
    token = one.seal(action="a", values={}, principal_id="p")
    assert App("two", database="sqlite://").consent_seal().open(token).action == "a"
    monkeypatch.setenv("SIGNOFF_KEY", "cd" * 32)
    with pytest.raises(Exception, match="altered"):
        App("three", database="sqlite://").consent_seal().open(token)


def test_a_key_kept_in_the_working_directory_says_so(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    """An app on a database that is no file (PostgreSQL), given no key, keeps it in the
    working directory: said as the key is made (it was made without a word, and two processes
    started in two folders refused each other's tokens); once made, it is used quietly."""
    monkeypatch.delenv("SIGNOFF_KEY", raising=False)
    monkeypatch.chdir(tmp_path)
    url = "postgresql+psycopg://shop@127.0.0.1:9/shop"  # (no connection is made for the key)
    with caplog.at_level("WARNING", logger="signoff.app"):
        App("far", database=url).consent_seal()
    assert (f"App far keeps its consent key in {tmp_path / 'far.key'}, in the working directory: "
            "give every process of the app the same SIGNOFF_KEY") in caplog.text
    assert (tmp_path / "far.key").exists()
    caplog.clear()
    with caplog.at_level("WARNING", logger="signoff.app"):
        App("far", database=url).consent_seal()
    assert caplog.text == ""


def test_a_query_needs_no_consent_and_is_given_none(tmp_path: Path) -> None:
    """A consent's one use is written as its action runs, which a query (run read-only) cannot
    write: one is refused as it is asked for, in words (it was made, and its use then raised a
    sentence of transactions)."""
    shop = _shop(tmp_path)
    with pytest.raises(UserError, match=re.escape(
            "how_many is a query: it only reads, so it needs no consent; run it when it is "
            "wanted, with app.actions.run('how_many', ..., as_=...).")):
        shop.app.actions.consent("how_many", {"stock": shop.stock}, as_=shop.kim)
    assert shop.app.actions.run("how_many", {"stock": shop.stock}, as_=shop.kim).value == 0


def test_a_consent_is_made_by_a_handle_too(tmp_path: Path) -> None:
    """`as_` takes a person's handle, as a run does (it was told "one principal, not a set")."""
    shop = _shop(tmp_path)
    token = shop.app.actions.consent("reorder", {"stock": shop.stock, "count": 1},
                                     as_="kim@shop.example")
    assert shop.app.actions.run_consented(token).outcome is ActionOutcome.DONE


@pytest.mark.parametrize(("key", "told"), [(5, "not a int"), ("short", "not 5 bytes"),
                                           (b"x", "not 1 bytes")])
def test_a_key_that_cannot_seal_is_refused_as_the_app_is_made(key: Any, told: str) -> None:
    """A key of another kind, or too short, was taken, and failed at the first consent (a
    TypeError, for a number); its value is not said back (it is a secret)."""
    with pytest.raises(UserError, match=re.escape(told)) as refused:
        App("keyed", database="sqlite://", key=key)
    assert "short" not in str(refused.value)
