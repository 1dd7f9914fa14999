"""A standing rule stands for a yes to what its tool did when it was made: deployed again to do
more (send a mail as well as change a record), the tool is proposed, not run alone on the old
rule, and the rule's maker is told why; a tool doing the same, or less, keeps its rule. Two
deployments of one app on one SQLite file, each loaded as the app's file is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from signoff import TaskStatus
from signoff.cli.people import echo_rules
from signoff.inbox import Inbox
from tests.redeployed import deployed, label, labeller_source, ruled_alone

_LABEL = '''
@sends
def mail(text: str) -> None:
    with open("{mails}", "a", encoding="utf-8") as file:
        file.write(text + "\\n")


@app.action("Label a shelf")
def label(shelf: Shelf, text: str) -> str:
    """Label it."""
    shelf.label = text
    {body}
    return "ok"
'''


def _deployed(tmp: Path, version: str, body: str) -> dict[str, Any]:
    return deployed(tmp, version, labeller_source(
        name="grew", database=tmp / "grew.db", imports="from signoff import sends",
        tool=_LABEL.format(mails=tmp / "mails.txt", body=body)))


@pytest.mark.parametrize(("later", "alone"), [("mail(text)", False), ("pass", True)])
def test_a_rule_holds_for_what_its_tool_did_when_it_was_made(
        tmp_path: Path, later: str, alone: bool, capsys: pytest.CaptureFixture[str]) -> None:
    """Mia lets the labeller label her shelves alone while `label` only changes the shelf.
    Deployed again to mail the label too, a call of it is proposed to her, saying the tool now
    also sends (it ran alone, and the mail went); deployed again the same, it still runs alone."""
    shelf_id, rule = ruled_alone(_deployed(tmp_path, "v1", "pass"))

    second = _deployed(tmp_path, "v2", later)
    try:
        outcome = label(second, shelf_id, "two")
        receipt = second["app"].receipt(outcome.task).words
        if alone:
            assert outcome.status is TaskStatus.DONE, receipt
            assert "a standing rule of Mia's let it run alone" in receipt
            assert Inbox(second["app"]).outgrown(second["app"].rules()[0]) == ""
        else:
            assert outcome.status is TaskStatus.WAITING, receipt
            assert not (tmp_path / "mails.txt").exists()
            assert ("no longer holds: label does more than when the rule was made: it now also "
                    "reaches outside the app (`builtins.open`) and sends something out of the app "
                    "(a message, a mail).") in receipt, receipt
            (kept,) = second["app"].rules()
            assert (kept.id, kept.active) == (rule.id, True)  # (it lapsed; none revoked it)
            # Its listing says so (it said "In force", as if it let the tool run alone).
            echo_rules(second["app"], second["app"].people.find("mia@x.example"),
                       active=False, as_json=False)
            listed = capsys.readouterr().out
            assert "In force but holding for nothing, used 1×" in listed, listed
            assert ("label does more than when it was made (it now also reaches outside the "
                    "app (`builtins.open`) and sends something out of the app (a message, a "
                    "mail)), so it lets nothing run alone") in listed, listed
    finally:
        second["app"].database.dispose()
