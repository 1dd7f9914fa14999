"""A decision on a proposal whose deadline has passed, when the skill's route (which says where
it goes then) fails: the person deciding is told in a sentence, the web answers with a problem
of the API's shape, and nothing is lost — the proposal still waits, and is decided once the
route is mended. (The developer's sentence, "mend the route", reached the person, and the web
answered it as a 500.)"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from signoff import AgentRefused, ProposalStatus, Route, TaskStatus
from signoff.web import create_web_app
from tests.deadlines_app import build, runs, script
from tests.workshop_web import served

TOLD = ("Its deadline has passed, and where it goes now cannot be told: the app's rule for who "
        "decides it failed. Nothing was decided, and it still waits: try again later, or tell "
        "whoever runs the app (its log says what failed).")


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    """The deadline app on a SQLite file, one price proposed to Noor with a microsecond to
    decide it (due when anyone looks), and the skill's route failing from then on."""
    shop = build(f"sqlite:///{tmp_path / 'deadlines.db'}")
    outcome = shop.app.agent(shop.Clerk).do(shop.PriceAtOnce(), None, for_=shop.mia,
                                            model=script(shop))
    assert outcome.status is TaskStatus.WAITING
    (shop.proposal,) = shop.app.proposals(task=outcome.task)
    monkeypatch.setattr(shop.PriceAtOnce, "decided_by", _broken)
    shop.mend = monkeypatch.undo
    yield shop
    shop.app.database.dispose()


def _broken(self: Any, action: str) -> Route:
    """A route read from the directory, where nobody holds the role any more."""
    raise IndexError("list index out of range")


@pytest.mark.parametrize("verb", ["approve", "reject"])
def test_a_decision_is_told_in_a_sentence_and_the_proposal_still_waits(
        shop: SimpleNamespace, verb: str, caplog: pytest.LogCaptureFixture) -> None:
    """approve and reject raise `AgentRefused` with a person's sentence (the developer's words
    and the exception go to the log); nothing ran, and the proposal waits as it was."""
    decide = {"approve": lambda: shop.app.approve(shop.proposal, by=shop.noor),
              "reject": lambda: shop.app.reject(shop.proposal, by=shop.noor,
                                                reason="Too dear.")}[verb]
    with pytest.raises(AgentRefused) as refused:
        decide()
    assert str(refused.value) == TOLD
    assert "IndexError" in caplog.text
    assert "mend the route" in caplog.text
    assert shop.app.proposal(shop.proposal).status is ProposalStatus.WAITING
    assert runs(shop) == 0
    shop.mend()  # mended: its deadline is passed as the next decision comes (it is withdrawn)
    with pytest.raises(AgentRefused, match="withdrawn"):
        shop.app.approve(shop.proposal, by=shop.noor)
    assert shop.app.proposal(shop.proposal).status is ProposalStatus.WITHDRAWN
    assert runs(shop) == 0


@pytest.mark.parametrize("verb", ["approve", "reject"])
def test_the_api_answers_with_a_problem_not_a_server_error(
        shop: SimpleNamespace, verb: str) -> None:
    """Over real HTTP the API answers 403, a problem (``application/problem+json``) whose
    detail is the sentence; the proposal still waits."""
    token = shop.app.credentials.issue_token(shop.noor, "tests")
    body = {"reason": "Too dear."} if verb == "reject" else {}
    with served(create_web_app(shop.app, secure_cookies=False)) as port:
        answer = httpx.post(f"http://127.0.0.1:{port}/api/proposals/{shop.proposal.id}/{verb}",
                            json=body, headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert (answer.status_code, answer.headers["content-type"]) == (
        403, "application/problem+json")
    assert answer.json()["detail"] == TOLD
    assert answer.json()["type"] == "urn:signoff:problem:refused"
    assert shop.app.proposal(shop.proposal).status is ProposalStatus.WAITING
    assert runs(shop) == 0


@pytest.mark.parametrize("verb", ["approve", "reject"])
def test_the_inbox_page_says_the_sentence(shop: SimpleNamespace, verb: str) -> None:
    """The inbox's form goes back to the proposal's page, which says the sentence (it was a
    page of an unforeseen failure); the proposal still waits."""
    from argon2 import PasswordHasher

    shop.app.credentials.use_hasher(PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
    shop.app.credentials.set_password(shop.noor, "correct horse battery")
    page = f"/proposals/{shop.proposal.id}"
    with served(create_web_app(shop.app, secure_cookies=False)) as port, httpx.Client(
            base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
        client.post("/login", data={"handle": shop.noor.handle,
                                    "password": "correct horse battery",
                                    "csrf": _csrf(client, "/login")})
        form = {"csrf": _csrf(client, page), **({"reason": "Too dear."} if verb == "reject"
                                                 else {})}
        answer = client.post(f"{page}/{verb}", data=form, follow_redirects=True)
    assert (answer.status_code, str(answer.url).endswith(page)) == (200, True)
    found = re.search(r'<p class="error" role="alert" id="error">([^<]*)</p>', answer.text)
    assert found is not None
    assert html.unescape(found.group(1)) == TOLD
    assert shop.app.proposal(shop.proposal).status is ProposalStatus.WAITING


def _csrf(client: httpx.Client, path: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', client.get(path).text)
    assert found is not None
    return found.group(1)
