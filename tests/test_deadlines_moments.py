"""The moment deadlines are passed at is a moment with its time zone, by Python's own test
(docs/how-to/deadlines.md, "Who passes deadlines"): one whose time zone gives no offset is
refused in a sentence, not read as the machine's local time."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, tzinfo
from pathlib import Path
from types import SimpleNamespace

import pytest

from signoff import ProposalStatus, TaskStatus, UserError
from tests.deadlines_app import build, script


class _Floating(tzinfo):
    """A time zone that gives no offset: a moment in it is naive, whatever its tzinfo says."""

    def utcoffset(self, dt: datetime | None) -> timedelta | None:
        return None

    def dst(self, dt: datetime | None) -> timedelta | None:
        return None

    def tzname(self, dt: datetime | None) -> str | None:
        return None


@pytest.fixture
def shop(tmp_path: Path) -> Iterator[SimpleNamespace]:
    """The deadline app on a SQLite file of the test's own."""
    shop = build(f"sqlite:///{tmp_path / 'moments.db'}")
    yield shop
    shop.app.database.dispose()


def test_a_moment_whose_time_zone_gives_no_offset_is_refused_as_a_naive_one(
        shop: SimpleNamespace) -> None:
    """A moment far past the deadline, in a time zone that gives no offset, passes nothing:
    refused as a moment without its time zone is, and the proposal still waits."""
    outcome = shop.app.agent(shop.Clerk).do(shop.PriceTicket(), None, for_=shop.mia,
                                           model=script(shop, 45))
    assert outcome.status is TaskStatus.WAITING
    (proposal,) = shop.app.proposals(task=outcome.task)
    floating = datetime(2099, 1, 1, tzinfo=_Floating())
    assert floating.utcoffset() is None  # naive, as Python reads it
    with pytest.raises(UserError, match=r"with its time zone \(datetime.now\(UTC\)\)"):
        shop.app.pass_deadline(proposal, now=floating)
    with pytest.raises(UserError, match=r"with its time zone \(datetime.now\(UTC\)\)"):
        shop.app.pass_deadlines(now=floating)
    assert shop.app.proposal(proposal).status is ProposalStatus.WAITING
