"""The workshop (examples/workshop.py) with passwords and tokens, for the web and API tests."""

from __future__ import annotations

import runpy
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from argon2 import PasswordHasher

from signoff.security.credentials import TokenPurpose
from signoff.testing import ScriptedModel, says
from tests.ports import free_port, kept_range

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "correct horse battery"
"""Everybody's password in these tests."""


def open_workshop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *,
                  passwords: bool = False) -> SimpleNamespace:
    """A fresh workshop in a SQLite file (a server thread and the test share it): Mia, Noor and
    Ola (a mechanic nothing is routed to), each with an API token and an MCP client's token (and
    a password, when asked: Argon2 takes its time on purpose)."""
    monkeypatch.setenv("WORKSHOP_DATABASE", f"sqlite:///{tmp_path / 'workshop.db'}")
    namespace = runpy.run_path(str(ROOT / "examples" / "workshop.py"), run_name="workshop_web")
    shop = SimpleNamespace(**namespace, **namespace["setup"]())
    shop.ola = shop.app.people.add("ola@workshop.example", "Ola", roles=["mechanic"])
    shop.tokens = {}
    shop.clients = {}
    """Each person's MCP client's token (`shop.tokens` are their own, which decide)."""
    # Argon2's defaults take about half a second here, on purpose; tests need no such strength.
    shop.app.credentials.use_hasher(PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
    for person in (shop.mia, shop.noor, shop.ola):
        if passwords:
            shop.app.credentials.set_password(person, PASSWORD)
        shop.tokens[person.name] = shop.app.credentials.issue_token(person, "tests")
        shop.clients[person.name] = shop.app.credentials.issue_token(
            person, "tests' client", purpose=TokenPurpose.CLIENT)
    return shop


def price(shop: SimpleNamespace, *, price: int = 45, fleet: bool = False,
          why: str = "Pads, a cable and an hour of work.") -> Any:
    """Have the estimator look up the parts and propose a price for T-7, for Mia (the fleet
    skill routes the price to Noor); the task's outcome."""
    script = ScriptedModel(
        says.tool(shop.parts_for, fault="rear brake does not bite"),
        says.tool(why, shop.set_price, repair=shop.repair.id, price=price),
        says.hand_back(shop.Estimate(hours=Decimal(1), summary="Pads and a cable.")),
    )
    skill = shop.PriceFleetRepair() if fleet else shop.EstimateRepair()
    return shop.app.agent(shop.Estimator).do(skill, shop.repair, for_=shop.mia, model=script)


def repair_price(shop: SimpleNamespace) -> Decimal:
    """What T-7 costs now."""
    with shop.app.session(as_=shop.app.system) as s:
        return Decimal(s.get(shop.Repair, shop.repair.id).price)


def bearer(shop: SimpleNamespace, name: str) -> dict[str, str]:
    """The Authorization header of `name`'s token."""
    return {"Authorization": f"Bearer {shop.tokens[name]}"}


@contextmanager
def served_shop(shop: SimpleNamespace) -> Iterator[SimpleNamespace]:
    """`shop`'s web app (its cookies not marked secure: plain HTTP) served (`served`) while the
    block runs, its address as ``shop.url``."""
    from signoff.web import create_web_app

    with served(create_web_app(shop.app, secure_cookies=False)) as port:
        shop.url = f"http://127.0.0.1:{port}"
        yield shop


@contextmanager
def served(web: Any, *, lifespan: str = "off") -> Iterator[int]:
    """`web` (an ASGI app) served by uvicorn on 127.0.0.1, a free port (one of the range
    ``SIGNOFF_TEST_PORTS``, such as ``24000-24999``, when it names one), in a thread of this
    process while the block runs: the port. `lifespan` "on" runs the app's lifespan too."""
    import uvicorn

    port = free_port() if kept_range() else 0  # (0: uvicorn takes one, with no race)
    server = uvicorn.Server(uvicorn.Config(web, host="127.0.0.1", port=port,
                                           log_level="warning", lifespan=lifespan))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield server.servers[0].sockets[0].getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(timeout=10)

