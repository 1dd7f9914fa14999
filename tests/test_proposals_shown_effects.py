"""A yes runs what its proposal showed the action does: an action deployed again to change
another field of the same record than was shown does not run on a yes given to the old words."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace

from sqlalchemy import Numeric, String
from sqlalchemy.orm import Mapped, mapped_column

from signoff import App, ProposalStatus, allow
from signoff.agents.proposing import does_otherwise
from signoff.effects import Effect, EffectKind, Effects
from tests.repair_pricing import price_proposed, pricing_shop


def _deployed(tmp_path: Path, *, also_owner: bool) -> SimpleNamespace:
    """The same shop on the same database; its set_price also handing the repair to another
    owner, or not."""
    app = App("shop", database=f"sqlite:///{tmp_path / 'deployed.db'}", key=b"k" * 32)

    class Repair(app.Record):  # type: ignore[name-defined, misc]
        ticket: Mapped[str] = mapped_column(String(40), unique=True)
        owner: Mapped[str] = mapped_column(String(40), default="")
        price: Mapped[Decimal] = mapped_column(Numeric(10, 2), default=Decimal(0))
        __security__ = [allow("read", "create", "update")]

    if also_owner:
        @app.action("Set the price")
        def set_price(repair: Repair, price: Decimal) -> str:
            """Set what the repair costs."""
            repair.price = price
            repair.owner = "the agent"
            return f"{repair.ticket} costs {price}."
    else:
        @app.action("Set the price")
        def set_price(repair: Repair, price: Decimal) -> str:
            """Set what the repair costs."""
            repair.price = price
            return f"{repair.ticket} costs {price}."

    shop = pricing_shop(app, Repair, set_price, owner="Mia")

    def owner() -> str:
        with app.session(as_=app.system) as s:
            return s.get(Repair, shop.repair.id).owner  # type: ignore[no-any-return]

    shop.owner = owner
    return shop


def test_a_yes_does_not_run_an_action_that_now_changes_a_field_not_shown(tmp_path: Path) -> None:
    """A proposal shown as changing the price of a Repair, decided after the app was deployed
    again with its action also changing the Repair's owner, is Stale: nothing changes, and the
    person is told what the action now does."""
    v1 = _deployed(tmp_path, also_owner=False)
    proposal = price_proposed(v1)
    v2 = _deployed(tmp_path, also_owner=True)
    decision = v2.app.approve(proposal.id, by=v2.noor)
    assert decision.status is ProposalStatus.STALE
    assert decision.said == (
        "set_price was not run: what it does has changed since it was proposed, so it is stale "
        "— it now also changes the `owner` of a Repair. The agent has been told to look again.")
    assert v2.owner() == "Mia"


def test_a_change_shown_of_one_field_stands_for_that_field_only(tmp_path: Path) -> None:
    """Compared with what was shown: a change of the same field, wherever in the code, does
    what was shown; one of another field of the same record, or of a field not known, is more;
    a change shown of a Repair with no field named (a list appended to, setattr) stands for any
    change of a Repair."""
    v1 = _deployed(tmp_path, also_owner=False)
    proposal = replace(price_proposed(v1),
                       effects=("changes Repair: set_price -> repair.price = …",))
    price = Effect(kind=EffectKind.CHANGES, target="Repair", path=("set_it", "r.price ="))
    owner = Effect(kind=EffectKind.CHANGES, target="Repair", path=("set_it", "r.owner ="))
    some = Effect(kind=EffectKind.CHANGES, target="Repair", path=("set_it", "r.items.append()"))
    assert does_otherwise(proposal, Effects(effects=(price,))) == ""
    assert does_otherwise(proposal, Effects(effects=(price, owner))) == (
        "it now also changes the `owner` of a Repair")
    assert does_otherwise(proposal, Effects(effects=(owner,))) == (
        "it now also changes the `owner` of a Repair, and no longer changes the `price` of a "
        "Repair")
    assert does_otherwise(proposal, Effects(effects=(price, some))) == (
        "it now also changes a Repair")
    anything = replace(proposal, effects=("changes Repair: set_price -> repair.items.append()",))
    assert does_otherwise(anything, Effects(effects=(some, owner))) == ""
