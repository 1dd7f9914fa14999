"""`signoff users password` at a terminal asks again for a password that cannot be one (too
short), saying why, instead of ending the command: the person typed it hidden, and a run ended
on it had them start over."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.workshop_web import open_workshop

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "examples" / "workshop.py")


class _Terminal:
    """signoff run with a terminal for stdin, stdout and stderr."""

    def __init__(self, args: list[str]) -> None:
        self.leader, follower = os.openpty()
        self.command = subprocess.Popen([sys.executable, "-m", "signoff.cli", *args],
                                        stdin=follower, stdout=follower, stderr=follower)
        os.close(follower)
        self.written = b""

    def read(self, seconds: float) -> bytes:
        ready, _, _ = select.select([self.leader], [], [], seconds)
        try:
            piece = os.read(self.leader, 4096) if ready else b""
        except OSError:  # (the other end is closed: it ended)
            piece = b""
        self.written += piece
        return piece

    def answer(self, after: bytes, typed: bytes) -> None:
        """Once it has written `after` one more time than it had, type `typed`."""
        seen = self.written.count(after)
        deadline = time.monotonic() + 120
        while self.written.count(after) <= seen and time.monotonic() < deadline:
            self.read(1)
        assert self.written.count(after) > seen, self.written
        os.write(self.leader, typed)

    def end(self) -> tuple[int, str]:
        code = self.command.wait(timeout=120)
        while self.read(0.5):
            pass
        os.close(self.leader)
        return code, self.written.decode(errors="replace")


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> object:
    """The workshop in a SQLite file, which the command's process opens too."""
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    monkeypatch.delenv("SIGNOFF_APP", raising=False)
    return open_workshop(tmp_path, monkeypatch)


def test_a_short_password_typed_is_asked_for_again(shop: object) -> None:
    """"short" is refused, saying it needs ten characters, and the prompt comes again; the one
    typed then (twice) is set."""
    terminal = _Terminal(["users", "password", "noor@workshop.example", "--app", APP])
    terminal.answer(b"Password:", b"short\n")
    terminal.answer(b"Password:", b"a long enough one\n")
    terminal.answer(b"Repeat for confirmation:", b"a long enough one\n")
    code, written = terminal.end()
    assert code == 0, written
    assert "A password needs at least 10 characters; this one has 5. Type another." in written
    assert "Noor's password is set." in written
