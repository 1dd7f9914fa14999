"""Crash tests (DESIGN "Architecture", invariant 3): a scripted run with parallel calls and
proposals is SIGKILLed at every step boundary, a fresh process recovers and finishes, and
nothing approved runs twice, nothing outside runs twice, no proposal is lost, and the end state
is an uninterrupted run's.

The scenario and the children are in ``tests/crash_child.py``: one model turn of six calls (a
record-only call, an outside call and an idempotent outside call that run alone, and three
proposed: two levels and an outside invoice), the decisions (yes to level 7 and to the invoice,
no to level 9), one more record-only call alone, and the result handed back. A boundary is a
writing transaction's commit, counted twice: just before it (the transaction is lost) and just
after it (it is kept, and nothing after it ran).
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, select, text

from signoff.agents import repository as repo
from signoff.store.tables import proposals, tasks
from tests.crash_child import LEVEL_APPROVED, LEVEL_REJECTED

ROOT = Path(__file__).resolve().parent.parent


def _campaign(kind: str, work: Path, server: str, prefix: str) -> list[dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-m", "tests.crash_child", "campaign", kind, str(work), server, prefix],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    results: list[dict[str, Any]] = json.loads((work / "campaign.json").read_text())
    return results


def _state(url: str, outbox: Path) -> dict[str, Any]:
    """What the database and the outside files hold after a run, read without the library."""
    engine = create_engine(url)
    try:
        with engine.connect() as db:
            marks = Counter((r.tool, r.label) for r in db.execute(text("SELECT tool, label FROM mark")))
            boxes = [tuple(r) for r in db.execute(text("SELECT level, note FROM box"))]
            task_rows = [r._mapping for r in db.execute(select(tasks))]
            calls = [c.__dict__ for t in task_rows for c in repo.calls_of(db, t["id"])]
            proposal_rows = [r._mapping for r in db.execute(select(proposals))]
    finally:
        engine.dispose()

    def lines(name: str) -> list[str]:
        path = outbox / name
        return path.read_text().splitlines() if path.exists() else []

    return {
        "marks": marks, "boxes": boxes,
        "tasks": [(t["status"], t["steps"]) for t in task_rows],
        "calls": Counter(c["tool"] for c in calls),
        "states": {c["tool"]: c["state"] for c in calls if c["tool"] in (
            "post_letter", "mirror", "send_invoice")},
        "proposals": sorted(
            (p["action"], json.dumps(p["arguments"], sort_keys=True), p["status"])
            for p in proposal_rows
        ),
        "letters": lines("letters.txt"), "invoices": lines("invoices.txt"),
        "mirror": lines("mirror.txt"),
    }


def _problems(k: int, state: dict[str, Any], reference: dict[str, Any],
              report: dict[str, Any]) -> list[str]:
    """What is wrong with the state after a kill at k (empty: nothing)."""
    wrong = []

    def check(ok: bool, what: str) -> None:
        if not ok:
            wrong.append(what)

    # (a call the kill may have cut off, its step counted before it was made, is one more:
    # steps are the model calls asked, and whether that one was cannot be known)
    check(state["tasks"] in ([("Done", 3)], [("Done", 4)]),
          f"the task should be Done after 3 model calls (4 with one the kill cut off): "
          f"{state['tasks']}")
    check(state["marks"] == reference["marks"],
          f"record-only runs {dict(state['marks'])} != {dict(reference['marks'])}")
    check(state["boxes"] == reference["boxes"], f"box {state['boxes']} != {reference['boxes']}")
    check(state["calls"] == reference["calls"], f"tool calls {state['calls']}")
    for name in ("letters", "invoices"):
        more = Counter(state[name]) - Counter(reference[name])
        check(not more, f"{name} written more often than in an uninterrupted run: {state[name]}")
    check(state["mirror"] == reference["mirror"], f"mirror {state['mirror']}")
    check(state["states"]["mirror"] == "done", "the idempotent call should have run to the end")
    expected = {("set_level", LEVEL_APPROVED): "Done", ("set_level", LEVEL_REJECTED): "Rejected"}
    seen = Counter((action, json.loads(arguments).get("level"))
                   for action, arguments, _ in state["proposals"])
    check(seen == Counter({("set_level", LEVEL_APPROVED): 1, ("set_level", LEVEL_REJECTED): 1,
                           ("send_invoice", None): 1}),
          f"each proposed call should have exactly one proposal: {state['proposals']}")
    for action, arguments, status in state["proposals"]:
        key = (action, json.loads(arguments).get("level"))
        if key in expected:
            check(status == expected[key], f"{key} ended {status}")
        else:
            lost = state["states"]["send_invoice"] == "unknown"
            check(status == ("Failed" if lost else "Done"), f"the invoice ended {status}")
    receipt = " ".join(t["receipt"] for t in report["tasks"])
    for tool, written in (("post_letter", "letters"), ("send_invoice", "invoices")):
        unknown = state["states"][tool] == "unknown"
        check(unknown or bool(state[written]),
              f"{tool} is said to be {state['states'][tool]}, but it never ran")
        check(not unknown or f"The outcome of {tool} is unknown" in receipt,
              f"the receipt does not say {tool}'s outcome is unknown")
    return [f"k={k}: {w}" for w in wrong]


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_run_killed_at_every_boundary_recovers_without_loss_or_repeats(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest,
) -> None:
    """SIGKILLed at every commit boundary and recovered in a fresh process: every approved
    record-only call ran exactly once, every outside call at most once, no proposal is lost,
    and the end state is an uninterrupted run's."""
    server = request.getfixturevalue("postgres_server") if kind == "postgres" else ""
    prefix = f"crash_{uuid.uuid4().hex[:8]}"
    results = _campaign(kind, tmp_path, server, prefix)
    try:
        *killed, last = results
        assert last["run_exit"] == 0, "the last run should complete without reaching its k"
        # (the run commits some 38 times: fewer as more of its steps become one transaction)
        assert len(killed) >= 30, f"only {len(killed)} boundaries were counted"
        reference = _state(last["url"], Path(last["outbox"]))
        assert reference["marks"] == Counter({("jot", "checked"): 1, ("jot", "after"): 1,
                                              ("set_level", str(LEVEL_APPROVED)): 1})
        assert reference["boxes"] == [(LEVEL_APPROVED, "after")]
        assert reference["letters"] == ["Dear customer"]
        assert reference["invoices"] == ["Invoice 1"]
        assert reference["mirror"] == ["level report"]
        problems = []
        unknown: set[str] = set()
        for result in results:
            k, outbox = result["k"], Path(result["outbox"])
            killed_at = (outbox / "boundaries.log").read_text().splitlines()[-1:]
            where = " ".join(killed_at) if result["run_exit"] == -9 else "not killed"
            if result is not last and result["run_exit"] != -9:
                problems.append(f"k={k}: the run ended with {result['run_exit']}, not killed")
            if result["recover_exit"] != 0:
                problems.append(f"k={k} ({where}): the recovering process failed")
                continue
            report = json.loads((outbox / "recover.json").read_text())
            state = _state(result["url"], outbox)
            unknown |= {tool for tool, s in state["states"].items() if s == "unknown"}
            problems += [f"{p} (killed at {where})"
                         for p in _problems(k, state, reference, report)]
        assert not problems, "\n".join(problems)
        assert unknown == {"post_letter", "send_invoice"}  # some kills lost those outcomes
    finally:
        if kind == "postgres":
            _drop_databases(server, prefix, len(results))


def _drop_databases(server: str, prefix: str, count: int) -> None:
    import psycopg

    with psycopg.connect(server, autocommit=True) as connection:
        for name in ["template", *(f"k{k}" for k in range(1, count + 1))]:
            connection.execute(f'DROP DATABASE IF EXISTS "{prefix}_{name}" WITH (FORCE)')
