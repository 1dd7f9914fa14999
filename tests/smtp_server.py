"""An SMTP server (aiosmtpd) on loopback for the notification tests, keeping what it is sent."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Any

from aiosmtpd.controller import Controller

from tests.ports import free_port


class Mailbox:
    """An aiosmtpd handler keeping each envelope it is sent in `mail`."""

    def __init__(self) -> None:
        self.mail: list[Any] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.mail.append(envelope)
        return "250 OK"


@contextmanager
def smtp_server(mailbox: Mailbox | None = None) -> Iterator[SimpleNamespace]:
    """An SMTP server on 127.0.0.1, a free port, handing mail to `mailbox` (a new `Mailbox`
    when None) while the block runs: its `port`, and the `mail` it kept."""
    port = free_port()
    mailbox = mailbox or Mailbox()
    controller = Controller(mailbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield SimpleNamespace(port=port, mail=mailbox.mail)
    finally:
        controller.stop()
