"""The app of the guarantee tests and the campaign: a box whose level record-only calls change,
outside calls that leave lines in files, a proposed spending call.

Built twice on one database it stands for two processes (the agent's and the decider's): two
apps, two loops, two connection pools, nothing shared but the database and the files.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated, Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from signoff import Agent, App, Permits, Price, Provided, Skill, policy, spends
from signoff.store import points
from tests.box_world import Report, box_world

NOOR = "noor@guarantees.example"
PAY_USD = 0.6
"""What one `pay` spends."""



def build(url: str, outbox: Path) -> SimpleNamespace:
    """The app on database `url`, writing its outside effects under `outbox`."""
    app = App("guarantees", database=url, key=b"g" * 32)
    app.oversight.supervises_agents = policy.role("manager")

    Box, Mark, jot = box_world(app)

    letters = outbox / "letters.txt"
    invoices = outbox / "invoices.txt"
    payments = outbox / "payments.txt"

    @app.action("Raise the level")
    def raise_level(box: Box, by: int, session: Annotated[Session, Provided("session")],
                    tag: str = "") -> str:
        """Record-only, alone: adds `by` to the level (a read, then a write), and marks the run
        (``tag:by``)."""
        box.level += by
        session.add(Mark(tool="raise_level", label=f"{tag}:{by}"))
        return f"Level {box.level}."

    @app.action("Lift the level")
    def lift(box: Box, by: int, session: Annotated[Session, Provided("session")],
             tag: str = "") -> str:
        """Record-only, proposed: adds `by` to the level, and marks the run (``tag:by``)."""
        box.level += by
        session.add(Mark(tool="lift", label=f"{tag}:{by}"))
        return f"Level {box.level}."

    @app.action("Set the level")
    def set_level(box: Box, level: int, session: Annotated[Session, Provided("session")]) -> str:
        """Record-only, proposed: sets the level, and marks the run."""
        box.level = level
        session.add(Mark(tool="set_level", label=str(level)))
        return f"Level {level}."

    @app.action("Post a letter")
    def post_letter(text: str) -> str:
        """Reaches outside, not idempotent, alone: appends a line to the letters file."""
        with open(letters, "a", encoding="utf-8") as file:
            file.write(text + "\n")
        return "Posted."

    @app.action("Send an invoice")
    def send_invoice(text: str) -> str:
        """Reaches outside, not idempotent, proposed: appends a line to the invoices file."""
        with open(invoices, "a", encoding="utf-8") as file:
            file.write(text + "\n")
        return "Sent."

    @app.action("Pay a supplier")
    @spends(cost=PAY_USD)
    def pay(text: str) -> str:
        """Spends PAY_USD, proposed: appends a line to the payments file."""
        with open(payments, "a", encoding="utf-8") as file:
            file.write(text + "\n")
        return "Paid."

    class Tend(Skill[None, Report]):
        """Tend the box."""

        description = "Tend the box."
        tools = [jot, raise_level, lift, set_level, post_letter, send_invoice, pay]

        def brief(self, subject: None) -> str:
            return "Tend the box."

    class Clerk(Agent):
        """Tends boxes."""

        purpose = "You tend boxes."
        skills = [Tend()]
        may = Permits(alone=[jot, raise_level, post_letter])
        roles = ["clerk"]

    noor = app.people.find(NOOR)
    if noor is None:
        noor = app.people.add(NOOR, "Noor", roles=["manager"])
    app.add_agent(Clerk, sponsor=noor)
    app.agent(Clerk)  # its account made now, not by two processes at once
    shop = SimpleNamespace(app=app, Box=Box, Mark=Mark, Clerk=Clerk, Tend=Tend, noor=noor,
                           jot=jot, raise_level=raise_level, lift=lift, set_level=set_level,
                           post_letter=post_letter, send_invoice=send_invoice, pay=pay,
                           letters=letters, invoices=invoices, payments=payments)
    shop.box = box_of(shop)
    return shop


def box_of(shop: SimpleNamespace) -> Any:
    """The one box (made on first use)."""
    with shop.app.session(as_=shop.app.system) as s:
        box = s.scalars(select(shop.Box)).first()
        if box is None:
            box = shop.Box(name="B-1")
            s.add(box)
    return box


def lines(path: Path) -> list[str]:
    """The lines an outside effect left in `path`."""
    return path.read_text().splitlines() if path.exists() else []


PRICED = Price(input_per_mtok=1000.0, output_per_mtok=1000.0)
"""A model price at which a call costs cents: a budget of dimes is reached in a few calls."""


class Pauses:
    """Pauses at named points, per thread: ``pauses.at("agent", "loop.gating", then)``.

    Each thread plays a process (its name says which); `then` runs in that thread the first
    time it reaches the point (with what the library said of where it is), and may wait there
    for what another thread does.
    """

    def __init__(self) -> None:
        self._plans: dict[tuple[str, str], Callable[[dict[str, Any]], bool | None]] = {}
        self._lock = threading.Lock()

    def at(self, thread: str, point: str, then: Callable[[dict[str, Any]], bool | None]) -> None:
        """Run `then` when thread `thread` reaches `point` (again each time while it returns
        False; once otherwise)."""
        self._plans[(thread, point)] = then

    def _hook(self, point: str, where: dict[str, Any]) -> None:
        key = (threading.current_thread().name, point)
        with self._lock:
            then = self._plans.get(key)
        if then is not None and then(where) is not False:
            with self._lock:
                self._plans.pop(key, None)

    @contextmanager
    def armed(self) -> Iterator[None]:
        """The pauses apply while the block runs."""
        with points.pausing(self._hook):
            yield


def in_thread(name: str, body: Callable[[], Any]) -> tuple[threading.Thread, dict[str, Any]]:
    """Start `body` in a thread called `name`; what it returned or raised lands in the dict."""
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["value"] = body()
        except BaseException as error:  # told to the test, which asserts on it
            out["error"] = error

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    return thread, out


def joined(*threads: tuple[threading.Thread, dict[str, Any]], wait: float = 120.0) -> list[Any]:
    """What each thread of `in_thread` returned, once all have ended (within `wait` seconds
    each); a thread that raised, or did not end, fails the test."""
    for thread, _ in threads:
        thread.join(wait)
        assert not thread.is_alive(), f"{thread.name} did not end"
    errors = [f"{t.name}: {out['error']!r}" for t, out in threads if "error" in out]
    assert not errors, errors
    return [out.get("value") for _, out in threads]
