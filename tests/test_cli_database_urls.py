"""A PostgreSQL URL whose password holds an ``@`` written as itself is told as that, with what to
write instead, and nothing of the password (found walking the PostgreSQL guide)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from signoff import App
from signoff.exceptions import StoreError

APP = str(Path(__file__).resolve().parent.parent / "examples" / "workshop.py")


@pytest.mark.parametrize("password", ["Xq7@zeta-word-9", "@tail-word-9", "Kw3@127.0.0.1"])
def test_a_password_holding_an_at_sign_is_told_to_be_percent_encoded(password: str) -> None:
    """The driver took what follows the password's ``@`` for the host, and said it could not
    find that machine, naming it — a piece of the password, in a sentence that is often pasted
    into a chat. The sentence now says to write the password %-encoded, and repeats none of it.
    (No server is reached: a host holding an ``@`` is no machine's name.)"""
    url = f"postgresql+psycopg://shop:{password}@127.0.0.1:5/shop"
    done = subprocess.run([sys.executable, "-m", "signoff.cli", "users", "list", "--app", APP],
                          capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, "WORKSHOP_DATABASE": url})
    assert done.returncode == 5, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "holds an @ written as itself" in lines[0]
    assert "@ as %40" in lines[0]
    for piece in password.split("@"):
        if piece not in ("", "127.0.0.1"):
            assert piece not in lines[0]


def test_the_library_tells_an_at_in_a_password_naming_none_of_it() -> None:
    """Outside the command line too: the app's own `StoreError` says what to write, and names
    no piece of the password (the driver's words named the rest of it as a host)."""
    app = App("at", database="postgresql+psycopg://u:Xq7@zeta@127.0.0.1:5/d")
    with pytest.raises(StoreError) as told:
        app.people.find("a@b.example")
    said = str(told.value)
    assert "holds an @ written as itself" in said
    assert "zeta" not in said
    assert "Xq7" not in said
