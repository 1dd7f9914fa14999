"""What a command asks at the terminal: Ctrl-C at its prompt is "Stopped." and exit 130, as
anywhere else (click said "Aborted!", exit 1, a refusal's code); `signoff db downgrade` given no
answer (a script's stdin at its end) says to give --yes, and a no is told as nothing changed."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from signoff.cli import EXIT_REFUSED, EXIT_USAGE, main
from tests.workshop_web import open_workshop

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "examples" / "workshop.py")


def _at_a_terminal(args: list[str], *, until: bytes, then: bytes | None) -> tuple[int, str]:
    """Run signoff with a terminal for stdin, stdout and stderr; once it has written `until`,
    type `then`, or (None) press Ctrl-C; its exit code and all it wrote."""
    leader, follower = os.openpty()
    command = subprocess.Popen([sys.executable, "-m", "signoff.cli", *args], stdin=follower,
                               stdout=follower, stderr=follower)
    os.close(follower)
    written = b""

    def read(seconds: float) -> bytes:
        ready, _, _ = select.select([leader], [], [], seconds)
        try:
            return os.read(leader, 4096) if ready else b""
        except OSError:  # (the terminal's other end is closed: it ended)
            return b""

    deadline = time.monotonic() + 120
    while until not in written and time.monotonic() < deadline:
        written += read(1)
    assert until in written, written
    if then is None:
        # (A SIGINT that comes as the prompt is written, before Python's readline waits on its
        # input, is seen only when a key is pressed, as in Python itself: pressed again, then.)
        command.send_signal(signal.SIGINT)
        while command.poll() is None and time.monotonic() < deadline:
            more = read(3)
            written += more
            if not more and command.poll() is None:
                command.send_signal(signal.SIGINT)
    else:
        os.write(leader, then)
    code = command.wait(timeout=120)
    while piece := read(0.5):
        written += piece
    os.close(leader)
    return code, written.decode(errors="replace")


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> object:
    """The workshop in a SQLite file, which the commands' processes open too."""
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    monkeypatch.delenv("SIGNOFF_APP", raising=False)
    return open_workshop(tmp_path, monkeypatch)


def test_ctrl_c_at_the_password_prompt_says_stopped(shop: object) -> None:
    """Ctrl-C while `users password` asks for the password: "Stopped.", exit 130."""
    code, written = _at_a_terminal(["users", "password", "noor@workshop.example", "--app", APP],
                                   until=b"Password", then=None)
    assert code == 130, written
    assert "Stopped." in written
    assert "Aborted" not in written


def test_ctrl_c_at_the_downgrade_question_says_stopped(shop: object) -> None:
    """Ctrl-C while `db downgrade` asks: "Stopped.", exit 130, the tables as they were."""
    code, written = _at_a_terminal(["db", "downgrade", "0006_issue15", "--app", APP],
                                   until=b"[y/N]", then=None)
    assert code == 130, written
    assert "Stopped." in written
    assert "Aborted" not in written
    revision = CliRunner().invoke(main, ["db", "revision", "--app", APP])
    assert "the newest this signoff makes" in revision.output, revision.output


def test_no_at_the_downgrade_question_says_nothing_changed(shop: object) -> None:
    """A no to `db downgrade`'s question: nothing was changed, it says; exit 1."""
    code, written = _at_a_terminal(["db", "downgrade", "0006_issue15", "--app", APP],
                                   until=b"[y/N]", then=b"n\n")
    assert code == EXIT_REFUSED, written
    assert "Nothing was changed: signoff's tables stay at" in written, written
    assert "Aborted" not in written


def test_a_downgrade_given_no_answer_says_give_yes(shop: object) -> None:
    """`db downgrade` without --yes, from a script whose stdin gives no answer: a sentence
    saying to give --yes; nothing changed."""
    result = CliRunner().invoke(main, ["db", "downgrade", "0006_issue15", "--app", APP])
    assert result.exit_code == EXIT_USAGE, result.output
    assert "no answer came" in result.output, result.output
    assert "db downgrade 0006_issue15 --yes --app" in result.output
    assert "Aborted" not in result.output
    revision = CliRunner().invoke(main, ["db", "revision", "--app", APP])
    assert "the newest this signoff makes" in revision.output, revision.output
