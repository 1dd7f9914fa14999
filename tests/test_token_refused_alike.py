"""A token that does not work, forged or revoked, is told in the same words by the REST API (on
a real server on loopback) and by the command line given it with --token: what may be wrong
with it, and how a new one is made."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest
from click.testing import CliRunner

from signoff.cli import main
from tests.workshop_web import open_workshop, served_shop

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "examples" / "workshop.py")
REFUSED = "This token is unknown, revoked or expired, or its owner is disabled: ask for a new one"


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    """The workshop in a SQLite file, its API served by uvicorn on 127.0.0.1."""
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    for name in ("SIGNOFF_AS", "SIGNOFF_TOKEN", "SIGNOFF_APP"):
        monkeypatch.delenv(name, raising=False)
    with served_shop(open_workshop(tmp_path, monkeypatch)) as shop:
        yield shop


def _tokens(shop: SimpleNamespace) -> dict[str, str]:
    """A forged token (a real one, one character changed) and one revoked."""
    real = shop.tokens["Noor"]
    revoked = shop.app.credentials.issue_token(shop.noor, "revoked")
    shop.app.credentials.revoke_token(revoked)
    return {"forged": real[:-1] + ("A" if real[-1] != "A" else "B"), "revoked": revoked}


@pytest.mark.parametrize("kind", ["forged", "revoked"])
def test_a_token_that_does_not_work_is_told_alike(shop: SimpleNamespace, kind: str) -> None:
    """The REST API's 401 and `signoff proposals --token` (exit 4) say the same sentence of a
    forged or revoked token, with the command that makes a new one (the command line said "This
    token is not valid: unknown, revoked, or its person is disabled", the API "This token is
    unknown, revoked or expired, or its owner is disabled.", and neither what to do)."""
    token = _tokens(shop)[kind]
    answer = httpx.get(f"{shop.url}/api/proposals", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 401, answer.text
    api = answer.json()["detail"]
    told = CliRunner().invoke(main, ["proposals", "--token", token, "--app", APP])
    assert told.exit_code == 4, told.output
    cli = " ".join(told.stderr.split())
    assert api.startswith(REFUSED + " (`signoff users token HANDLE"), api
    assert cli.startswith(f"Error: {REFUSED} (`signoff users token HANDLE --save"), cli
