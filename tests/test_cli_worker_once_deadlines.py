"""`signoff worker --once` passes the deadlines due once per look: it passed them, then passed
them again inside the look's stepping, so a route that fails was logged (with its traceback)
twice. On a real SQLite file, in this process."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from signoff import ProposalStatus, TaskStatus
from signoff.cli import main
from tests.deadlines_app import build, script

APP = """from tests.deadlines_app import build


def _broken(self, action):
    raise IndexError("list index out of range")  # nobody holds the role the route reads


shop = build({url!r})
type(shop.PriceAtOnce()).decided_by = _broken
app = shop.app
"""


def test_a_look_passes_each_deadline_once(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                          ) -> None:
    """A due proposal whose route fails is told once by one look, and waits as it was."""
    url = f"sqlite:///{tmp_path / 'deadlines.db'}"
    shop = build(url)
    outcome = shop.app.agent(shop.Clerk).do(shop.PriceAtOnce(), None, for_=shop.mia,
                                            model=script(shop, 45))
    assert outcome.status is TaskStatus.WAITING
    (proposal,) = shop.app.proposals(task=outcome.task)
    shop.app.database.dispose()
    app_file = tmp_path / "shop.py"
    app_file.write_text(APP.format(url=url))
    result = CliRunner().invoke(main, ["worker", "--once", "--app", str(app_file)])
    assert result.exit_code == 0, result.output
    assert "passed 0 deadline(s)" in result.output, result.output
    told = f"The deadline of proposal {proposal.id} (set_price) is not passed"
    assert caplog.text.count(told) == 1, caplog.text
    assert shop.app.proposal(proposal).status is ProposalStatus.WAITING
