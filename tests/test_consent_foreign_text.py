"""Consent tokens holding text no token of this app holds (letters outside ASCII, half of a
character) are refused as a Denied result in a sentence, never an exception."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from signoff import ActionOutcome, App, allow, policy


def _app(tmp_path: Path) -> tuple[App, str]:
    """A shop whose buyer Kim sealed a reorder; the app and her token."""
    app = App("shop", database=f"sqlite:///{tmp_path / 'shop.db'}", key=b"k" * 32)

    class Stock(app.Record):  # type: ignore[name-defined, misc]
        sku: Mapped[str] = mapped_column(String(20), unique=True)
        count: Mapped[int] = mapped_column(default=0)
        __security__ = [allow("read", "create", "update", when=policy.anyone)]

    @app.action("Reorder stock")
    def reorder(stock: Stock, count: int) -> str:
        """Order more of something."""
        stock.count += count
        return f"{stock.sku}: {stock.count}"

    kim = app.people.add("kim@shop.example", "Kim", roles=["buyer"])
    with app.session(as_=kim) as s:
        stock = Stock(sku="NUT-8")
        s.add(stock)
    return app, app.actions.consent("reorder", {"stock": stock, "count": 3}, as_=kim)


@pytest.mark.parametrize("spoil", [
    pytest.param(lambda t: t + "é", id="a-letter-after-its-seal"),
    pytest.param(lambda t: t[:-1] + "\u00e9", id="a-letter-in-its-seal"),
    pytest.param(lambda t: "c1.e30.é", id="a-forged-seal"),
    pytest.param(lambda t: t.replace(".", ".\ud800", 1), id="half-a-character"),
    pytest.param(lambda t: t + "\u200b", id="an-invisible-space"),
])
def test_a_token_with_foreign_text_is_refused_in_a_sentence(tmp_path: Path, spoil: object) -> None:
    """A token with text no sealed token holds is Denied as not this app's, and nothing runs."""
    app, token = _app(tmp_path)
    spoiled = spoil(token)  # type: ignore[operator]
    result = app.actions.run_consented(spoiled)
    assert result.outcome is ActionOutcome.DENIED
    assert result.problem == "This is not a consent token this app made."
    assert app.actions.run_consented(token).outcome is ActionOutcome.DONE  # still unused
    app.database.dispose()


def test_a_token_for_an_action_redeployed_as_a_query_is_denied_in_a_sentence(
        tmp_path: Path) -> None:
    """Kim's token for `reorder`, which a redeploy made a query (it only reads): a Denied
    result saying so, nothing run (it raised UserError, "reorder is a query…")."""
    app, token = _app(tmp_path)
    app.database.dispose()
    again = App("shop", database=f"sqlite:///{tmp_path / 'shop.db'}", key=b"k" * 32)

    @again.action("Reorder stock", query=True)
    def reorder(sku: str, count: int) -> str:
        """Say what would be ordered."""
        return f"{sku}: {count}"

    result = again.actions.run_consented(token)
    assert result.outcome is ActionOutcome.DENIED
    assert result.problem == (
        "reorder is now a query: it only reads, so a consent to it is not honoured (the consent "
        "was made for what it did before). Run it as a query, with app.actions.run.")
    again.database.dispose()
