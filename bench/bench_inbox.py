"""The inbox page and the API listing over 100,000 proposals in SQLite.

Run as ``.venv/bin/python bench/bench_inbox.py [N]``. It fills a SQLite file with N proposals
(100,000 by default: a tenth waiting; a third Mia's, a third the Finance queue's, a third
other people's), then times, in the same process, the first page (50) of:

* the baseline: the same page selected with raw SQL through sqlite3 (no web, no ORM);
* ``Inbox.proposals`` (the library call the pages and the API make);
* ``GET /api/proposals`` and ``GET /`` (the inbox page), through Starlette's TestClient;

for Noor (a supervisor: sees everything) and Mia (hers and the Finance queue's), and a deep page
(after 20 pages of cursor). Target: each answer in at most 50 ms. Timings are printed, never
asserted.
"""

from __future__ import annotations

import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fastapi.testclient import TestClient

from signoff import App, policy
from signoff.inbox import Inbox
from signoff.store.tables import proposals, tasks, tool_calls
from signoff.web import create_web_app

TARGET_MS = 50.0
RUNS = 30


def fill(app: App, count: int) -> dict[str, str]:
    """`count` proposals in one task; the people's ids."""
    mia = app.people.add("mia@example.com", "Mia", roles=["mechanic", "Finance"])
    noor = app.people.add("noor@example.com", "Noor", roles=["manager"])
    ola = app.people.add("ola@example.com", "Ola", roles=["mechanic"])
    start = datetime(2026, 1, 1, tzinfo=UTC)
    task_id = str(uuid.uuid4())
    calls, rows = [], []
    for i in range(count):
        call_id = str(uuid.uuid4())
        calls.append({"id": call_id, "task_id": task_id, "turn": 1, "position": i,
                      "call_id": f"c{i}", "tool": "set_price", "arguments": "{}", "why": "",
                      "state": "proposed", "leave": "Propose", "outcome": "", "said": "",
                      "problem": "", "answer": ""})
        kind = i % 3
        rows.append({
            "id": str(uuid.uuid4()), "task_id": task_id, "tool_call_id": call_id,
            "agent": "estimator", "skill": "estimate_repair", "skill_version": "1",
            "action": "set_price", "label": "Set the price", "effects": ["changes Repair"],
            "arguments": {"repair": str(uuid.uuid4()), "price": i % 97},
            "shown": {"repair": f"Ticket T-{i}", "price": str(i % 97)},
            "why": "Pads, a cable and an hour of work.", "evidence": [],
            "subject_version": "r1", "fingerprint": "0" * 64, "instructions": "",
            "decide_person_id": mia.id if kind == 0 else (ola.id if kind == 2 else None),
            "decide_queue": "Finance" if kind == 1 else None, "routed": kind == 1,
            "for_id": mia.id, "status": "Waiting" if i % 10 == 0 else "Done",
            "reason": "", "created_at": start + timedelta(seconds=i),
        })
    with app.database.connect() as db:
        db.execute(tasks.insert().values(
            id=task_id, agent="estimator", skill="estimate_repair", for_id=mia.id,
            subject_type="", status="Waiting", steps=1, spend_usd=0.0, max_steps=20,
            budget_usd=1.0, model="", problem="", revision=0, created_at=start, updated_at=start))
        db.execute(tool_calls.insert(), calls)
        db.execute(proposals.insert(), rows)
    return {"mia": mia.id, "noor": noor.id}


def median_ms(operation: Callable[[], object]) -> float:
    """The median of RUNS timings, in milliseconds (after one warm-up)."""
    operation()
    times = []
    for _ in range(RUNS):
        began = time.perf_counter()
        operation()
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times)


def main() -> None:
    """Fill, then time each listing beside its raw-SQL baseline."""
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    folder = Path(tempfile.mkdtemp(prefix="bench-inbox-"))
    app = App("bench", database=f"sqlite:///{folder / 'bench.db'}")
    app.oversight.supervises_agents = policy.role("manager")
    began = time.perf_counter()
    ids = fill(app, count)
    print(f"{count:,} proposals filled in {time.perf_counter() - began:.1f} s "
          f"(SQLite {sqlite3.sqlite_version}, {folder / 'bench.db'})")
    inbox = Inbox(app)
    client = TestClient(create_web_app(app, secure_cookies=False))
    raw = sqlite3.connect(str(folder / "bench.db"))
    people = {name: app.people.get(pid) for name, pid in ids.items()}
    tokens = {name: app.credentials.issue_token(p, "bench") for name, p in people.items()}
    sessions = {name: app.credentials.issue_token(p, "web session") for name, p in people.items()}

    def raw_page(name: str) -> Callable[[], object]:
        if name == "noor":
            sql = ("SELECT * FROM signoff_proposals WHERE status = 'Waiting' "
                   "ORDER BY created_at DESC, id DESC LIMIT 51")
            return lambda: raw.execute(sql).fetchall()
        sql = ("SELECT * FROM signoff_proposals WHERE status = 'Waiting' AND "
               "(decide_person_id = ? OR decide_queue IN ('Finance', 'mechanic')) "
               "ORDER BY created_at DESC, id DESC LIMIT 51")
        return lambda: raw.execute(sql, (ids["mia"],)).fetchall()

    deep: dict[str, str | None] = {}
    for name, person in people.items():
        after = None
        for _ in range(20):
            after = inbox.proposals(person, after=after).next
        deep[name] = after

    print(f"{'what':<44}{'median ms':>10}   target {TARGET_MS:.0f} ms")
    for name, person in people.items():
        token, session = tokens[name], sessions[name]
        rows: list[tuple[str, Callable[[], object]]] = [
            (f"baseline: raw SQL page ({name})", raw_page(name)),
            (f"Inbox.proposals, first page ({name})", lambda p=person: inbox.proposals(p)),
            (f"Inbox.proposals, page 21 ({name})",
             lambda p=person, a=deep[name]: inbox.proposals(p, after=a)),
            (f"GET /api/proposals ({name})", lambda t=token: client.get(
                "/api/proposals", headers={"Authorization": f"Bearer {t}"})),
            (f"GET / — the inbox page ({name})", lambda s=session: client.get(
                "/", cookies={"signoff_session": s})),
        ]
        for label, operation in rows:
            ms = median_ms(operation)
            mark = "" if label.startswith("baseline") else ("  ok" if ms <= TARGET_MS else "  SLOW")
            print(f"{label:<44}{ms:>10.2f}{mark}")
    answer = client.get("/api/proposals", headers={"Authorization": f"Bearer {tokens['mia']}"})
    print(f"(Mia's first API page holds {len(answer.json()['items'])} proposals, status "
          f"{answer.status_code})")


if __name__ == "__main__":
    main()
