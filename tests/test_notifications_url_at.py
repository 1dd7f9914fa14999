"""A webhook URL whose "@" reads as a user and password is refused saying how to write an "@"
that belongs to its query (docs/how-to/notifications.md: `https://hooks.example?to=a@b` is
written `https://hooks.example/?to=a@b`)."""

from __future__ import annotations

import pytest

from signoff.exceptions import UserError
from signoff.notifications import WebhookNotifier


def test_an_at_in_a_query_with_no_slash_before_it_is_told_how_to_write() -> None:
    """`https://hooks.example?to=a@b` is refused (its "@" comes before the first "/"), and the
    refusal says to write a "/" before the "?" (it said only to give the address alone, and
    showed 'https://b/…', the host it read)."""
    with pytest.raises(UserError, match="names no user or password") as refused:
        WebhookNotifier(url="https://hooks.example?to=a@b")
    said = str(refused.value)
    assert 'after a "/"' in said
    assert "https://host/?to=a@b" in said


def test_the_written_so_address_is_taken() -> None:
    """The same address with its "/" before the "?" is taken as it is."""
    assert WebhookNotifier(url="https://hooks.example/?to=a@b").url == "https://hooks.example/?to=a@b"
