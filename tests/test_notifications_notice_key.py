"""A decider told twice of one proposal can tell the second sending for the same notice
(`signoff.notifications.notice_key`): a process that dies after its webhook was told, before it
kept that it told it, leaves the proposal for a worker, which tells it again (at least once).
Each sending carried a `delivery` id of its own and nothing the same but the proposal's id,
which an escalation to another decider carries too. A real child process SIGKILLed by the
receiver as the POST arrives, a real receiver on 127.0.0.1, one SQLite file.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import threading
from collections.abc import Iterator
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from signoff import ProposalStatus
from signoff.notifications import EmailNotifier, notify_by_webhook
from tests.deadlines_app import build, script
from tests.ports import free_port


class _Receiver(BaseHTTPRequestHandler):
    """Keeps each body and its Idempotency-Key; kills `victim` (a pid), once set, as the first
    POST arrives, before answering it."""

    seen: list[tuple[dict[str, Any], str | None]]
    victim: dict[str, Any]

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.seen.append((body, self.headers.get("Idempotency-Key")))
        if self.victim.get("pid"):
            os.kill(self.victim.pop("pid"), signal.SIGKILL)
            return  # (no answer: its sender is gone)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[SimpleNamespace]:
    handler = type("Receiver", (_Receiver,), {"seen": [], "victim": {}})
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield SimpleNamespace(
        url=f"http://127.0.0.1:{server.server_address[1]}/hook", seen=handler.seen, victim=handler.victim
    )
    server.shutdown()
    server.server_close()
    thread.join()


def _propose(url: str, hook: str) -> None:
    shop = build(url)
    notify_by_webhook(shop.app, hook, timeout=60)
    shop.app.agent(shop.Clerk).do(shop.PriceFleetTicket(), None, for_=shop.mia, model=script(shop, 70))


def test_a_notice_told_again_after_a_crash_carries_the_same_key(
    tmp_path: Path, receiver: SimpleNamespace
) -> None:
    """The child's webhook is told, and the child killed before it keeps that it told it; the
    worker tells it again: both sendings carry the notice `<id>.0` (in the body, which the
    signature covers, and as Idempotency-Key), each its own delivery id."""
    url = f"sqlite:///{tmp_path / 'told.db'}"
    shop = build(url)
    try:
        child = multiprocessing.get_context("spawn").Process(target=_propose, args=(url, receiver.url))
        child.start()
        receiver.victim["pid"] = child.pid
        child.join(timeout=120)
        assert child.exitcode == -signal.SIGKILL
        (proposal,) = shop.app.proposals(status=ProposalStatus.WAITING)
        assert len(receiver.seen) == 1  # told, and not kept as told

        notify_by_webhook(shop.app, receiver.url, timeout=30)
        assert shop.app.worker().tell_untold() == 1
        (first, first_key), (again, again_key) = receiver.seen
        assert first["proposal"]["id"] == again["proposal"]["id"] == proposal.id
        assert first["notice"] == again["notice"] == first_key == again_key == f"{proposal.id}.0"
        assert first["delivery"] != again["delivery"]
    finally:
        shop.app.database.dispose()


def test_an_escalation_is_a_notice_of_its_own_by_webhook_and_by_mail(
    tmp_path: Path, receiver: SimpleNamespace
) -> None:
    """Put to the Finance queue as Noor's deadline passes, the same proposal is a new notice
    (`<id>.1`); an e-mail's Message-ID is the same for each sending of one notice, and another
    for the escalation."""
    shop = build(f"sqlite:///{tmp_path / 'told.db'}")
    try:
        notify_by_webhook(shop.app, receiver.url, timeout=30)
        mail = EmailNotifier(app=shop.app, host="127.0.0.1", sender="Signoff <signoff@shop.example>")
        outcome = shop.app.agent(shop.Clerk).do(
            shop.PriceFleetTicket(), None, for_=shop.mia, model=script(shop, 90)
        )
        (proposal,) = shop.app.proposals(task=outcome.task)
        ids = {mail.message(shop.app.proposal(proposal), ["a@shop.example"])["Message-ID"] for _ in range(2)}
        assert ids == {f"<signoff.{proposal.id}.0@shop.example>"}
        shop.app.pass_deadlines(now=proposal.deadline_at + timedelta(seconds=1))
        now_on = shop.app.proposal(proposal)
        assert now_on.decide_queue == "Finance"
        assert [body["notice"] for body, _ in receiver.seen] == [f"{proposal.id}.0", f"{proposal.id}.1"]
        assert mail.message(now_on, ["a@shop.example"])["Message-ID"] == (
            f"<signoff.{proposal.id}.1@shop.example>"
        )
    finally:
        shop.app.database.dispose()
