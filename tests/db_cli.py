"""The `signoff db` commands' tests' shop: an app of one SQLite file, and the command line run
on it as its user runs it (``--app shop.py`` in the test's folder)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from sqlalchemy import create_engine

from signoff.store.migrate import current_revision

SHOP_APP = '''
from signoff import App

app = App("shop", database="sqlite:///{db}")
'''
"""The shop's module (``.format(db=…)``: its database file)."""


def signoff_in(tmp: Path, *args: str, given: str | None = None) -> subprocess.CompletedProcess[str]:
    """`signoff ARGS --app TMP/shop.py`, `given` on its stdin (its prompts' answers)."""
    env = {k: v for k, v in os.environ.items() if k != "SIGNOFF_APP"}
    return subprocess.run([sys.executable, "-m", "signoff.cli", *args, "--app",
                           str(tmp / "shop.py")], input=given, capture_output=True, text=True,
                          timeout=120, check=False, env=env)


def revision_of(db: Path) -> str | None:
    """The revision signoff's tables in the database file `db` are at."""
    engine = create_engine(f"sqlite:///{db}")
    try:
        with engine.connect() as connection:
            return current_revision(connection)
    finally:
        engine.dispose()
