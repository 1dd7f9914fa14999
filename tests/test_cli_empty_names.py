"""An option naming a place, an app, a model or a value given empty (``--app "$APP"`` with APP
unset) is a usage error that says it is empty (exit 2), as ``--as ""`` is: each was read as the
option left out (``--app ""`` took SIGNOFF_APP's app, ``worker --temporal ""`` ran without
Temporal, ``run --model ""`` asked the agent's own model, ``--price ""`` took the price
table's). And a ``run --timeout`` too long to be a wait says so, with the maximum (it was told
as not a number; one long enough for the connection to refuse failed the task)."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from signoff.cli import main
from signoff.store.tables import tasks

ROOT = Path(__file__).resolve().parent.parent
APP = f"{ROOT / 'examples' / 'workshop.py'}:app"
RUN = ["run", "estimator", "estimate_repair", "--for", "mia@workshop.example", "--app", APP]
MODEL = ["--model", "openai-compatible:x@http://127.0.0.1:9/v1"]


@pytest.fixture
def workshop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    monkeypatch.setenv("WORKSHOP_DATABASE", f"sqlite:///{tmp_path / 'workshop.db'}")
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    monkeypatch.setenv("SIGNOFF_APP", APP)
    monkeypatch.delenv("SIGNOFF_TEMPORAL", raising=False)
    namespace = runpy.run_path(str(ROOT / "examples" / "workshop.py"), run_name="workshop_empty_names")
    namespace["setup"]()
    return namespace


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["users", "list", "--app", ""], "--app"),
        (["users", "list", "--app", "  "], "--app"),
        (["tasks", "--as", "mia@workshop.example", "--app", ""], "--app"),
        (["worker", "--once", "--app", APP, "--temporal", ""], "--temporal"),
        (["worker", "--once", "--app", APP, "--temporal", " "], "--temporal"),
        ([*RUN, "--subject", ""], "--subject"),
        ([*RUN, "--subject", "ticket=T-7", "--model", ""], "--model"),
        ([*RUN, "--subject", "ticket=T-7", *MODEL, "--price", ""], "--price"),
    ],
)
def test_an_empty_name_is_told_as_empty(workshop: dict[str, object], args: list[str], option: str) -> None:
    """Each is a usage error naming the option and saying it is empty; nothing is done (no
    task is started, no worker runs)."""
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert option in result.output, result.output
    assert "is empty" in result.output, result.output
    with workshop["app"].database.connect() as db:  # type: ignore[attr-defined]
        assert db.execute(select(func.count()).select_from(tasks)).scalar() == 0


@pytest.mark.parametrize("timeout", ["1e23", "86401", "inf", "1e12"])
def test_a_timeout_too_long_is_told_with_the_most(workshop: dict[str, object], timeout: str) -> None:
    """`run --timeout` past a day: a usage error saying it is too long and the maximum."""
    result = CliRunner().invoke(
        main, [*RUN, "--subject", "ticket=T-7", *MODEL, "--price", "0,0", "--timeout", timeout]
    )
    assert result.exit_code == 2, result.output
    assert f"A wait of “{timeout}” seconds is too long: give at most 86,400 seconds (a day)." in " ".join(
        result.output.split()
    ), result.output


def test_a_day_is_a_timeout_taken(workshop: dict[str, object]) -> None:
    """The longest taken is a day: the task is started (its model is not asked in tests: it
    fails, exit 5, as any run whose model cannot be used)."""
    result = CliRunner().invoke(
        main, [*RUN, "--subject", "ticket=T-7", *MODEL, "--price", "0,0", "--timeout", "86400"]
    )
    assert result.exit_code == 5, result.output
    assert "The model failed" in result.output, result.output


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["research", "What is a tuple?", "--database", ""], "--database"),
        (["research", "What is a tuple?", *MODEL, "--price", ""], "--price"),
        (["tasks", "--database", ""], "--database"),
        (["receipt", "0" * 36, "--database", ""], "--database"),
    ],
)
def test_an_empty_research_database_or_price_is_told_as_empty(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], option: str) -> None:
    """Research's `--database ""` (and `tasks`' and `receipt`'s) was the default research
    database, its `--price ""` the price table's: each is a usage error saying it is empty,
    and no research database is made."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("SIGNOFF_APP", raising=False)
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert option in result.output, result.output
    assert "is empty" in result.output, result.output
    assert not (tmp_path / "data").exists() or not any((tmp_path / "data").rglob("research.db"))
