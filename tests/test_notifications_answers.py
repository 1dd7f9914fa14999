"""What a webhook receiver answers: its body is not read (nothing of it is used),
so a receiver answering gigabytes does not fill the process's memory with them. A real server
on 127.0.0.1."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from signoff.notifications import post_json
from tests.ports import free_port

SIZE = 256 * 1024 * 1024
"""What the receiver says its answer's body is: 256 MiB of zeros."""


@pytest.fixture
def flooding() -> Iterator[SimpleNamespace]:
    """A receiver that reads the POST and answers 200 with a body of SIZE bytes, counting what
    it got to send before the other side stopped reading."""
    server = socket.create_server(("127.0.0.1", free_port()))
    sent = [0]

    def serve() -> None:
        connection, _ = server.accept()
        with connection:
            request = b""
            while b"\r\n\r\n" not in request:
                request += connection.recv(65536)
            head, _, body = request.partition(b"\r\n\r\n")
            length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length")))
            while len(body) < length:
                body += connection.recv(65536)
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % SIZE)
            chunk = bytes(1024 * 1024)
            try:
                while sent[0] < SIZE:
                    connection.sendall(chunk)
                    sent[0] += len(chunk)
            except OSError:  # (the client closed: it read no more)
                pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield SimpleNamespace(url=f"http://127.0.0.1:{server.getsockname()[1]}/hook", sent=sent,
                          thread=thread)
    thread.join(timeout=60)
    server.close()


def test_a_receiver_answering_a_huge_body_is_not_read_to_its_end(
        flooding: SimpleNamespace) -> None:
    """A 200 with a body of 256 MiB is taken as told, its body unread: the receiver
    could not send it all (it was read whole, into memory, within the timeout)."""
    assert post_json(flooding.url, {"a": 1}, timeout=60) == 200
    flooding.thread.join(timeout=60)
    assert not flooding.thread.is_alive()
    assert flooding.sent[0] < SIZE
