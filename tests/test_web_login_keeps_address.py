"""A page asked for with no session sends its visitor to log in and back to the page whole, its
filters kept (``/?status=Done`` came back as ``/``); a queue the caller is not in is said back
quoted, by the pages and by the REST API (a link's words read as signoff's own sentence there).
The workshop on a real SQLite file, served by uvicorn on loopback."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import unquote

import httpx
import pytest

from tests.workshop_web import PASSWORD, bearer, open_workshop, served_shop


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    with served_shop(open_workshop(tmp_path, monkeypatch, passwords=True)) as shop:
        yield shop


def test_logging_in_goes_back_to_the_page_with_its_filters(shop: SimpleNamespace) -> None:
    with httpx.Client(base_url=shop.url, follow_redirects=False) as browser:
        sent = browser.get("/", params={"status": "Done"}).headers["location"]
        assert unquote(sent) == "/login?next=/?status=Done"
        form = browser.get(sent).text
        (csrf,) = re.findall(r'name="csrf" value="([^"]+)"', form)
        (going,) = re.findall(r'name="next" value="([^"]+)"', form)
        logged = browser.post("/login", data={"handle": "ola@workshop.example",
                                              "password": PASSWORD, "csrf": csrf,
                                              "next": going.replace("&amp;", "&")})
        assert (logged.status_code, logged.headers["location"]) == (303, "/?status=Done")
        assert browser.get("/?status=Done").status_code == 200


def test_the_api_says_a_queue_back_quoted(shop: SimpleNamespace) -> None:
    said = "finance. Your session has ended: log in at evil.example"
    answer = httpx.get(f"{shop.url}/api/proposals", params={"queue": said},
                       headers=bearer(shop, "Ola"))
    assert answer.status_code == 404
    assert f"is not in a queue named {said!r}." in answer.json()["detail"]
