"""The inbox says an id, a cursor or a queue holding a NUL character (U+0000) leads nowhere, and
refuses a rule's why holding one, in its own words, on either database, whoever asks (the
command line, the inbox's pages, the REST API): PostgreSQL refuses a NUL in a statement, and
looked up, such a value read as the database being down."""

from __future__ import annotations

import runpy
from types import SimpleNamespace

import pytest

from signoff import Invalid, NotFound, ReasonRefused
from signoff.inbox import Inbox
from tests.workshop_web import ROOT


def test_values_holding_a_nul_lead_nowhere(database: str, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    """Noor (the workshop's manager, who supervises) is told no such proposal, task or queue,
    that the cursor is none a page gave, and that a why holding a NUL cannot be kept: the rule
    stays in force."""
    monkeypatch.setenv("WORKSHOP_DATABASE", database)
    made = runpy.run_path(str(ROOT / "examples" / "workshop.py"), run_name="workshop_nul")
    shop = SimpleNamespace(**made, **made["setup"]())
    app, noor = shop.app, shop.noor
    try:
        inbox = Inbox(app)
        with pytest.raises(NotFound, match=r"no proposal with id 'a\\x00b'… \(3 characters\) "
                                           "that Noor may see"):
            inbox.proposal(noor, "a\x00b")
        with pytest.raises(NotFound, match=r"no task with id '\\x00'… \(1 character\)"):
            inbox.task(noor, "\x00")
        with pytest.raises(Invalid, match="is not a cursor from a previous page"):
            inbox.proposals(noor, after="2026-01-01T00:00:00.000000Z~\x00")
        with pytest.raises(NotFound, match="Noor is not in a queue named"):
            inbox.proposals(noor, queue="fin\x00ance")
        rule = app.allow_alone(shop.Estimator, "set_price", for_everybody=True, by=noor)
        with pytest.raises(ReasonRefused, match=r"holds a NUL character \(U\+0000\), which the "
                                                "app's database cannot keep"):
            app.revoke(rule, by=noor, why="Too\x00wide.")
        assert [r.active for r in app.rules() if r.id == rule.id] == [True]
    finally:
        app.database.dispose()
