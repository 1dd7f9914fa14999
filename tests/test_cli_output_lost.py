"""What the command writes, when the other end of its output is gone: a stderr whose reader
is gone made a failure exit 1 whatever it was (click's report of the broken pipe), and a new
token written to a stdout that was closed, or whose reader was gone, was shown nowhere while
the command said nothing and exited 0 — a token left valid that nobody held. Real processes,
with real pipes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.workshop_web import open_workshop

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "examples" / "workshop.py")


def _env() -> dict[str, str]:
    return {
        **os.environ,
        "WORKSHOP_DATABASE": os.environ["WORKSHOP_DATABASE"],
        "SIGNOFF_PROFILE": os.environ["SIGNOFF_PROFILE"],
        "PYTHONPATH": str(ROOT),
    }


def _signoff(args: list[str], *, stdout: int, stderr: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "signoff.cli", *args],
        stdout=stdout,
        stderr=stderr,
        text=True,
        env=_env(),
        cwd=ROOT,
        timeout=120,
    )


def _reader_gone() -> int:
    """The writing end of a pipe whose reading end is closed already (as `| true` leaves one
    once `true` has ended): every write to it fails."""
    read, write = os.pipe()
    os.close(read)
    return write


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> object:
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    return open_workshop(tmp_path, monkeypatch)


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["users", "token", "nobody@workshop.example", "--app", APP], 3),
        (["users", "token", "--bogus"], 2),
        (["run", "nobody", "estimate_repair", "--app", APP], 2),
    ],
)
def test_a_failure_keeps_its_exit_code_when_stderr_has_no_reader(
    shop: object, args: list[str], code: int
) -> None:
    """stderr's reader gone: the failure still exits with its own code (it was 1, each)."""
    gone = _reader_gone()
    try:
        done = _signoff(args, stdout=subprocess.PIPE, stderr=gone)
    finally:
        os.close(gone)
    assert done.returncode == code, done.stdout


def _tokens(shop: object) -> list[object]:
    app, noor = shop.app, shop.noor  # type: ignore[attr-defined]
    return [t for t in app.credentials.tokens(noor) if t.label == "cli"]


@pytest.mark.parametrize("lost", ["reader gone", "closed"])
def test_a_token_shown_nowhere_is_revoked_and_told(shop: object, lost: str) -> None:
    """`signoff users token H | true` (the reader gone) and `… >&-` (stdout closed): the new
    token is revoked, stderr says so and why, exit 5; it was valid, shown nowhere, exit 0."""
    args = ["users", "token", "noor@workshop.example", "--app", APP]
    if lost == "reader gone":
        gone = _reader_gone()
        try:
            done = _signoff(args, stdout=gone, stderr=subprocess.PIPE)
        finally:
            os.close(gone)
    else:  # (a shell closes it: `exec … >&-`)
        done = subprocess.run(
            ["sh", "-c", 'exec "$@" >&-', "sh", sys.executable, "-m", "signoff.cli", *args],
            stderr=subprocess.PIPE,
            text=True,
            env=_env(),
            cwd=ROOT,
            timeout=120,
        )
    assert done.returncode == 5, done.stderr
    assert "could not be shown" in done.stderr, done.stderr
    assert "so it is revoked" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    made = _tokens(shop)
    assert len(made) == 1
    assert made[0].revoked_at is not None  # type: ignore[attr-defined]


def test_a_token_written_out_is_kept(shop: object) -> None:
    """A stdout that is read: the token is printed, and it is valid (exit 0)."""
    done = _signoff(
        ["users", "token", "noor@workshop.example", "--app", APP],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("so_")
    made = _tokens(shop)
    assert len(made) == 1
    assert made[0].revoked_at is None  # type: ignore[attr-defined]
