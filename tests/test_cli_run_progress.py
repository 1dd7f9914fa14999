"""`signoff run` tells each model call on stderr as it begins, so that a task of several slow
calls shows where it is (it showed nothing until the task ended); stdout keeps the outcome
alone, and `--json` stays valid JSON; the task kept its model's spec, for the worker."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from signoff import ProposalStatus
from signoff.agents import model_specs
from tests.ports import free_port
from tests.provider_servers import Canned, openai_completion, serving
from tests.workshop_web import open_workshop

APP = str(Path(__file__).resolve().parent.parent / "examples" / "workshop.py")


@pytest.mark.parametrize("as_json", [False, True])
def test_each_model_call_is_told_as_it_begins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              as_json: bool) -> None:
    """Two model calls (parts, then a price proposed to Noor): stderr says "Model call 1:
    asking …" then "Model call 2: …"; stdout is the outcome (JSON with --json); the worker
    can go on with the task later (its spec is kept)."""
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    shop = open_workshop(tmp_path, monkeypatch)
    with serving(free_port()) as server:
        server.answer(
            Canned(body=openai_completion(None, [("c1", "parts_for", json.dumps(
                {"fault": "rear brake does not bite"}))])),
            Canned(body=openai_completion("Pads and a cable.", [("c2", "set_price", json.dumps(
                {"repair": str(shop.repair.id), "price": 38}))])))
        ran = subprocess.run(
            [sys.executable, "-m", "signoff.cli", "run", "estimator", "price_fleet_repair",
             "--for", "mia@workshop.example", "--subject", "ticket=T-7", "--app", APP,
             "--model", f"openai-compatible:m@{server.url}/v1", "--price", "0,0",
             *(["--json"] if as_json else [])],
            capture_output=True, text=True, timeout=120, check=False, env={**os.environ})
    assert ran.returncode == 0, ran.stderr
    told = ran.stderr.splitlines()
    assert told[:2] == ["Model call 1: asking openai-compatible:m…",
                        "Model call 2: asking openai-compatible:m…"], ran.stderr
    if as_json:
        assert json.loads(ran.stdout)["status"] == "Waiting"
    else:
        assert "waiting, after 2 model calls" in ran.stdout
        assert "Model call" not in ran.stdout
    (proposal,) = shop.app.proposals(status=ProposalStatus.WAITING)
    with shop.app.database.connect() as db:
        kept = model_specs.recorded(db, proposal.task)
    assert kept is not None
    assert kept.spec == f"openai-compatible:m@{server.url}/v1"
