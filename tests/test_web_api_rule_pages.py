"""The REST API's pages of standing rules: a `next` passed as `after` goes on where the page
before ended, even when that page's last rule was revoked meanwhile (docs/how-to/inbox.md: "pass
`next` as `after` for the next page"); an id the caller may not see is no `next`."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

from signoff.web import create_web_app
from tests.workshop_web import bearer, open_workshop, served


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """The workshop with three rules of Noor's for everybody's work (in any skill, and in each
    of the two), oldest first."""
    shop = open_workshop(tmp_path, monkeypatch)
    shop.rules = [shop.app.allow_alone("estimator", shop.set_price, by=shop.noor, skill=skill,
                                       for_everybody=True)
                  for skill in (None, "estimate_repair", "price_fleet_repair")]
    return shop


def test_the_next_page_of_active_rules_goes_on_after_its_last_rule_is_revoked(
        shop: SimpleNamespace) -> None:
    """Noor pages through the active rules one at a time; the rule the first page ended on is
    revoked before she asks for the second, which is the next rule (it answered 422, "… is not a
    `next` from a previous page")."""
    with served(create_web_app(shop.app, secure_cookies=False)) as port, httpx.Client(
            base_url=f"http://127.0.0.1:{port}", headers=bearer(shop, "Noor")) as api:
        first = api.get("/api/rules", params={"active_only": "true", "limit": 1}).json()
        assert [r["id"] for r in first["items"]] == [shop.rules[0].id]
        assert first["next"] == shop.rules[0].id
        assert api.post(f"/api/rules/{shop.rules[0].id}/revoke",
                        json={"why": "Prices rose."}).status_code == 200
        second = api.get("/api/rules", params={"active_only": "true", "limit": 1,
                                               "after": first["next"]})
        assert second.status_code == 200, second.text
        assert [r["id"] for r in second.json()["items"]] == [shop.rules[1].id]
        third = api.get("/api/rules", params={"active_only": "true", "limit": 1,
                                              "after": second.json()["next"]}).json()
        assert ([r["id"] for r in third["items"]], third["next"]) == ([shop.rules[2].id], None)


def test_a_rule_the_caller_may_not_see_is_no_next(shop: SimpleNamespace) -> None:
    """Mia sees none of the rules Noor made for work done for Noor: one of their ids, revoked
    or not, is refused as `after` in the words a made-up one is (422), so a page tells nobody
    that a rule exists."""
    shop.rules = [shop.app.allow_alone("estimator", shop.set_price, by=shop.noor, skill=skill)
                  for skill in (None, "estimate_repair")]
    shop.app.revoke(shop.rules[0], by=shop.noor, why="Prices rose.")
    with served(create_web_app(shop.app, secure_cookies=False)) as port, httpx.Client(
            base_url=f"http://127.0.0.1:{port}", headers=bearer(shop, "Mia")) as api:
        answers = [api.get("/api/rules", params={"active_only": "true", "after": after})
                   for after in (shop.rules[0].id, shop.rules[1].id, "no-such-rule")]
    assert {a.status_code for a in answers} == {422}
    assert [a.json()["detail"].split(" is not")[1] for a in answers] == [
        " a `next` from a previous page: pass the `next` a page gave, or nothing for the first "
        "page."] * 3


def test_a_rule_for_everybodys_work_is_listed_to_each_whose_work_it_covers(
        shop: SimpleNamespace) -> None:
    """Noor's rules for everybody's work cover Mia's: Mia's list of rules has them (the API says
    it lists the rules work for the caller runs under; it listed only hers), and she may not
    revoke one (403)."""
    with served(create_web_app(shop.app, secure_cookies=False)) as port, httpx.Client(
            base_url=f"http://127.0.0.1:{port}", headers=bearer(shop, "Mia")) as api:
        listed = api.get("/api/rules").json()
        refused = api.post(f"/api/rules/{shop.rules[0].id}/revoke", json={"why": "Mine."})
    assert [r["id"] for r in listed["items"]] == [r.id for r in shop.rules]
    assert refused.status_code == 403, refused.text
