"""A --subject that names no record is told with what was given; a very long one (a file pasted
in) by its beginning and length, not whole (the sentence held all 100,000 characters)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from signoff.cli import main
from tests.workshop_web import open_workshop

APP = str(Path(__file__).resolve().parent.parent / "examples" / "workshop.py")
LONG = "a" * 100_000


@pytest.mark.parametrize(("subject", "code", "said"), [
    (f"ticket={LONG}", 3, "There is no Repair 'ticket=aaaaaaaa"),
    (LONG, 2, "is neither the id of a Repair nor FIELD=VALUE"),
    (f"{LONG}=x", 2, "is not a unique field of Repair"),
    ("ticket=T-99", 3, "There is no Repair ticket=T-99 that Estimator may read."),
])
def test_a_subject_that_names_nothing_is_told_shortly(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, subject: str, code: int,
        said: str) -> None:
    """`signoff run … --subject S` naming no record: a sentence of a line's length, saying how
    long a long one was; exit 3 (not found) or 2 (no form of a subject)."""
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    open_workshop(tmp_path, monkeypatch)
    result = CliRunner().invoke(main, ["run", "estimator", "estimate_repair", "--subject",
                                       subject, "--app", APP])
    assert result.exit_code == code, result.output[:500]
    assert said in result.output, result.output[:500]
    assert len(result.output) < 400, result.output[:500]
    if len(subject) > 80:
        assert ",00" in result.output  # (its length: 100,000 characters or so)
        assert " characters)" in result.output
