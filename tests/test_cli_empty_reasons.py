"""A reason, a why or a label given empty (``--reason "$WHY"`` with WHY unset) is refused as
every empty option is (docs/how-to/cli.md: exit 2, "it is empty"), and nothing is done: `stop
--reason ''` stopped the task, `rules revoke --why ''` (and `mcp revoke`'s) took the rule back,
`users token --label ''` made a token labelled with nothing."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from signoff import TaskStatus
from signoff.cli import main
from tests.test_cli_people import APP, _login, cli, shop

__all__ = ["shop"]  # (the fixture, used by name)


@pytest.mark.parametrize("empty", ["", "  "])
def test_stop_with_an_empty_reason_stops_nothing(shop: SimpleNamespace, empty: str) -> None:
    """Mia's task still waits after `stop TASK --reason ''`."""
    _login("mia@workshop.example")
    code, out = cli("stop", shop.outcome.task, "--as", "mia@workshop.example", "--reason", empty)
    assert code == 2, out
    assert "Invalid value for '--reason': it is empty: give it" in out, out
    assert shop.app.outcome(shop.outcome.task).status is TaskStatus.WAITING


def test_revoke_with_an_empty_why_revokes_nothing(shop: SimpleNamespace) -> None:
    """Noor's standing rule still stands after `rules revoke RULE --why ''`."""
    _login("noor@workshop.example")
    rule = shop.app.allow_alone("estimator", shop.set_price, by=shop.noor)
    code, out = cli("rules", "--as", "noor@workshop.example", "revoke", rule.id, "--why", "")
    assert code == 2, out
    assert "Invalid value for '--why': it is empty: give it" in out, out
    code, out = cli("rules", "--as", "noor@workshop.example", "revoke", rule.id, "--why", "Dear.")
    assert (code, out.strip()) == (0, "Revoked: estimator proposes set_price again."), out


def test_a_token_with_an_empty_label_is_not_made(shop: SimpleNamespace) -> None:
    """`users token HANDLE --label ''` makes no token: Noor's list of tokens stays as it was."""
    def token(*args: str) -> tuple[int, str]:
        done = CliRunner().invoke(main, ["users", "token", "noor@workshop.example", *args,
                                         "--app", APP])
        return done.exit_code, done.output

    code, before = token("--list")
    assert code == 0, before
    code, out = token("--label", "")
    assert code == 2, out
    assert "Invalid value for '--label': it is empty: give it" in out, out
    assert token("--list") == (0, before)


def test_the_guards_revoke_with_an_empty_why_is_refused(tmp_path: Path) -> None:
    """`signoff mcp revoke CONFIG RULE --why ''` is refused as `rules revoke`'s is."""
    pytest.importorskip("mcp")
    from tests.test_mcp_cli import _noors_guard

    done = CliRunner().invoke(main, ["mcp", "revoke", str(_noors_guard(tmp_path)),
                                     "0c4d9d1e-5b7a-4c1e-9d2f-3a6b8c0e1f24", "--why", "",
                                     "--as", "noor@example.com"])
    assert done.exit_code == 2, done.output
    assert "Invalid value for '--why': it is empty: give it" in done.output, done.output
