"""`signoff users token HANDLE --revoke` takes the whole token as well as its id (a token found
in a leaked file is revoked as found, its secret never said back), and `--list` tells a token
that has expired, such as an inbox session's, from one that still works."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest
from click.testing import CliRunner

from signoff.cli import main
from signoff.security.credentials import SESSION_LABEL
from tests.workshop_web import open_workshop, served_shop

APP = ["--app", "examples/workshop.py"]


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    """The workshop in a SQLite file, its API served by uvicorn on 127.0.0.1."""
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    with served_shop(open_workshop(tmp_path, monkeypatch)) as shop:
        yield shop


def _api_takes(shop: SimpleNamespace, token: str) -> bool:
    answer = httpx.get(f"{shop.url}/api/me", headers={"Authorization": f"Bearer {token}"})
    return answer.status_code == 200


def test_revoke_takes_the_whole_token_and_says_only_its_id(shop: SimpleNamespace) -> None:
    """Given the whole token, `--revoke` revokes it (the API refuses it after) and says its id,
    not its secret; given its id, as before."""
    for given_as in ("whole token", "id"):
        issued = CliRunner().invoke(main, ["users", "token", "noor@workshop.example", *APP])
        assert issued.exit_code == 0, issued.output
        token = issued.output.strip()
        token_id = token.split("_")[1]
        assert _api_takes(shop, token)
        given = token if given_as == "whole token" else token_id
        done = CliRunner().invoke(main, ["users", "token", "noor@workshop.example", "--revoke",
                                         given, *APP])
        assert done.exit_code == 0, done.output
        assert done.output.strip() == f"Token {token_id} is revoked."
        assert not _api_takes(shop, token)


def test_revoking_someone_elses_whole_token_says_its_id_not_its_secret(
        shop: SimpleNamespace) -> None:
    """Mia's token is not Noor's to revoke: refused (exit 3), naming its id alone, and it still
    works."""
    token = shop.tokens["Mia"]
    done = CliRunner().invoke(main, ["users", "token", "noor@workshop.example", "--revoke",
                                     token, *APP])
    assert done.exit_code == 3, done.output
    assert f"Noor has no token {token.split('_')[1]}:" in " ".join(done.output.split())
    assert token.split("_", 2)[2] not in done.output
    assert _api_takes(shop, token)


def test_list_marks_an_expired_session_expired(shop: SimpleNamespace) -> None:
    """An inbox session past its time is listed "expired" (it opens nothing), a revoked one
    "revoked", and a working one neither."""
    credentials = shop.app.credentials
    expired = credentials.issue_token(shop.noor, SESSION_LABEL,
                                      expires_in=timedelta(microseconds=1))
    revoked = credentials.issue_token(shop.noor, SESSION_LABEL, expires_in=timedelta(hours=12))
    credentials.revoke_token(revoked)
    working = credentials.issue_token(shop.noor, SESSION_LABEL, expires_in=timedelta(hours=12))
    assert not _api_takes(shop, expired)
    assert _api_takes(shop, working)
    listed = CliRunner().invoke(main, ["users", "token", "noor@workshop.example", "--list", *APP])
    assert listed.exit_code == 0, listed.output
    lines = {line.split()[0]: line for line in listed.output.splitlines()}
    assert "  expired " in lines[expired.split("_")[1]]
    assert lines[revoked.split("_")[1]].endswith("  revoked")
    assert "expired" not in lines[working.split("_")[1]]
    assert "revoked" not in lines[working.split("_")[1]]
