"""A model the command line makes from ``--model`` closes its connections as the command ends:
one left open was found by the interpreter later, as an unclosed socket (a ResourceWarning,
which the test suite's filters turned into an error in the teardown of whichever test ran when
it was collected). Seen here as the connections to the model's server still open in this
process (the kernel's table of TCP connections) once the command has returned."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from signoff.cli import main
from signoff.models import allow_model_requests
from tests.provider_servers import Canned, openai_completion, serving
from tests.workshop_web import open_workshop

APP = str(Path(__file__).resolve().parent.parent.parent / "examples" / "workshop.py")


_ESTABLISHED = "01"
"""A connection's state in ``/proc/net/tcp``: open both ways."""


def _open_to(port: int) -> int:
    """How many connections to `port` on loopback are open from this machine (clients')."""
    count = 0
    for table in (Path("/proc/net/tcp"), Path("/proc/net/tcp6")):
        for line in table.read_text().splitlines()[1:] if table.exists() else ():
            _, _, remote, state, *_ = line.split()
            if state == _ESTABLISHED and int(remote.rsplit(":", 1)[1], 16) == port:
                count += 1
    return count


def _left_open(invoke: list[str], answers: list[Canned]) -> tuple[dict[str, object], int]:
    """What the command `invoke` printed (its JSON), and how many connections to its model's
    server it left open, run in this process against a server on loopback giving `answers`."""
    with serving() as server, allow_model_requests():
        server.answer(*answers)
        told = CliRunner().invoke(main, [
            *invoke, "--model", f"openai-compatible:local@{server.url}/v1", "--price", "0,0"])
        left = _open_to(int(server.url.rsplit(":", 1)[1]))
    assert told.exception is None or isinstance(told.exception, SystemExit), told.output
    assert len(server.received) == len(answers)  # (each answer was asked for)
    return json.loads(told.stdout), left


def test_research_closes_the_model_it_made(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """`signoff research --model …` asks a provider's model twice (a search, then an answer
    that cites nothing: declined) and leaves no connection open."""
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    search = json.dumps({"query": "kettle boil"})
    told, left = _left_open(
        ["research", "What does the kettle boil?", "--max-steps", "2", "--json",
         "--database", f"sqlite:///{tmp_path / 'r.db'}"],
        [Canned(body=openai_completion(None, [("c1", "search_docs", search)])),
         Canned(body=openai_completion("Water.", []))])
    assert told["steps"] == 2
    assert left == 0


def test_run_closes_the_model_it_made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`signoff run --model …` (a task that proposes a price and waits) leaves no connection
    open."""
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    shop = open_workshop(tmp_path, monkeypatch)
    price = json.dumps({"repair": str(shop.repair.id), "price": 38})
    told, left = _left_open(
        ["run", "estimator", "price_fleet_repair", "--for", "mia@workshop.example",
         "--subject", "ticket=T-7", "--app", APP, "--json"],
        [Canned(body=openai_completion("Pads.", [("c1", "set_price", price)]))])
    assert told["status"] == "Waiting"
    assert left == 0
