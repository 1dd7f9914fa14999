"""A date and time the model writes in ISO 8601 (``2026-12-05T14:00``) is the request's when the
request writes its date and its time of day apart ("5 Dec 2026 at 14:00"); a time, a day or a
zone the request does not write is not.

(Found in review: such a value was labelled as in nothing the task was given, and a booking
the person had asked for in so many words was held for them once outside content had been
read.)
"""

from __future__ import annotations

import pytest

from signoff import Origin
from signoff.limits.provenance import Provenance, Seen


def _origin(request: str, when: str) -> Origin:
    provenance = Provenance(trusted=[request])
    provenance.add(Seen(tool="read_mail", arguments="{}", value=None,
                        text="Could we meet next week? Regards, a stranger",
                        outside="from an outside sender"))
    (label,) = provenance.label("book", {"at": when}, free_text=False).arguments
    return label.origin


@pytest.mark.parametrize(("request_text", "when"), [
    ("Book the room for 5 Dec 2026 at 14:00.", "2026-12-05T14:00"),
    ("Book the room for 5 Dec 2026 at 14:00.", "2026-12-05T14:00:00"),
    ("Book the room for 5 Dec 2026 at 14:00.", "2026-12-05 14:00"),
    ("Book the room at 9:30 on December 5th, 2026.", "2026-12-05T09:30"),
    ("Book the room at 14:00 UTC on 05.12.2026.", "2026-12-05T14:00:00Z"),
    ("Book the room at 14:00 (+01:00) on 5 Dec 2026.", "2026-12-05T14:00+01:00"),
])
def test_a_date_and_time_the_request_writes_apart_is_the_requests(
        request_text: str, when: str) -> None:
    assert _origin(request_text, when) is Origin.REQUEST


@pytest.mark.parametrize("when", [
    "2026-12-05T15:00",        # another time
    "2026-12-06T14:00",        # another day
    "2026-12-05T14:00:30",     # seconds the request does not give
    "2026-12-05T14:00+05:00",  # a zone the request does not give
    "2026-12-05T14:00Z",
])
def test_a_part_the_request_does_not_write_is_not(when: str) -> None:
    assert _origin("Book the room for 5 Dec 2026 at 14:00.", when) is Origin.UNTRACED
