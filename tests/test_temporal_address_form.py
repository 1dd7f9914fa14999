"""`Temporal(address=...)` takes HOST:PORT alone: an address written as a URL (a scheme before
it, a path after it) is refused as the app is built, in a sentence giving the form — the
Temporal client took ``http://127.0.0.1:7233`` with a Python warning and failed later."""

from __future__ import annotations

import pytest

from signoff import Temporal
from signoff.exceptions import UserError


@pytest.mark.parametrize("address", ["http://127.0.0.1:7233", "grpc://localhost:7233",
                                     "127.0.0.1:7233/", "temporal://127.0.0.1:7233/default"])
def test_an_address_written_as_a_url_is_refused(address: str) -> None:
    with pytest.raises(UserError, match=r"HOST:PORT .*with no scheme \(http://\) or path"):
        Temporal(address=address)


def test_host_and_port_alone_are_taken() -> None:
    assert Temporal(address=" 127.0.0.1:7233 ").address == "127.0.0.1:7233"
    assert Temporal(address="temporal.example:7233").address == "temporal.example:7233"
