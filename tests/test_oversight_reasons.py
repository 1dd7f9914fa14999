"""A no's reason that shows nothing is refused, whatever characters it is drawn blank with
(DESIGN "reject(proposal, by=p, reason=...) needs a reason"; the agent is told it).

Letters and symbols Unicode files as such but draws as blank space (the Hangul fillers, the
blank Braille pattern), and marks with nothing to join, passed for a reason that said something.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from signoff import ProposalStatus, ReasonRefused
from tests.test_rules_said_again import _world


@pytest.mark.parametrize("reason", [
    "\u3164", "\u115f\u1160", "\uffa0\uffa0", "\u2800", "\u034f", "\ufe0f", "\u0301",
    " \u200b\u3164\u2800 ",
], ids=["hangul filler", "hangul choseong and jungseong fillers", "halfwidth hangul filler",
        "braille blank", "combining grapheme joiner", "variation selector", "a lone accent",
        "mixed with spaces and a zero width space"])
def test_a_no_whose_reason_is_drawn_blank_is_refused_and_the_proposal_waits(
        tmp_path: Path, reason: str) -> None:
    """Noor's no with a reason drawn as blank space is refused in words, and the proposal still
    waits (it was decided, and the agent told an empty reason); with words after it, it is
    kept as given."""
    world = _world(f"sqlite:///{tmp_path / 'reasons.db'}")
    task = world.run("A", world.ola)
    (proposal,) = world.app.proposals(task=task.task)
    with pytest.raises(ReasonRefused, match="Say why: a no needs a reason"):
        world.app.reject(proposal, by=world.noor, reason=reason)
    assert world.app.proposal(proposal).status is ProposalStatus.WAITING
    said = world.app.reject(proposal, by=world.noor, reason=f"{reason}Too dear.").said
    assert said == f"Noor said no to set_headline: {reason.lstrip()}Too dear."  # (kept whole)
    world.app.database.dispose()

