"""signoff migrating its own tables logs nothing of Alembic's at INFO: an app that logs at INFO
saw some twenty paragraphs of it (Alembic's setup, and each revision's whole docstring) the
first time it opened a new database. An app that set Alembic's level itself keeps it."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from signoff import App


def _opened(tmp_path: Path, name: str) -> None:
    app = App(name, database=f"sqlite:///{tmp_path / f'{name}.db'}", key=b"q" * 32)
    app.people.add(f"noor@{name}.example", "Noor")  # (the first use migrates)
    app.database.dispose()


def test_opening_a_new_database_logs_nothing_of_alembics_at_info(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    _opened(tmp_path, "quiet")
    assert [r.getMessage()[:60] for r in caplog.records if r.name.startswith("alembic")] == []
    assert logging.getLogger("alembic").level == logging.NOTSET  # (given back as it was)


def test_an_apps_own_level_for_alembic_is_kept(tmp_path: Path,
                                               caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    caplog.set_level(logging.INFO, logger="alembic")
    _opened(tmp_path, "told")
    assert any(r.name.startswith("alembic") and "Running upgrade" in r.getMessage()
               for r in caplog.records)
    assert logging.getLogger("alembic").level == logging.INFO
