"""A date a text writes in words is found wherever a reader finds it: in parentheses, quotes,
brackets or emphasis, after a colon with no space, or set out over lines (a table's cells, its
tags taken out), as it was before dates were looked for only before a year (c37e0f5). The
skill's endorsement of a date the mail writes holds, and a date the person asked for is the
request: ordinary work is not put to a person."""

from __future__ import annotations

from typing import Any

import pytest

from signoff import Endorse, Origin
from signoff.limits.provenance import Provenance, Seen


def _label(read: str, value: Any, endorse: Endorse | None = None,
           request: str = "Handle mail 1.") -> Origin:
    provenance = Provenance(trusted=[request])
    provenance.add(Seen(tool="read_mail", arguments="{}", value=read, text=read,
                        outside="from an outside sender"))
    (label,) = provenance.label("act", {"value": value}, free_text=False,
                                endorses=(endorse,) if endorse else ()).arguments
    return label.origin


WRITTEN = ["Meet on (December 5, 2026).", 'Meet on "December 5, 2026".', "Meet on [Dec 5, 2026].",
           "Meet on *December 5, 2026*.", "Meet on `December 5, 2026`.", "Date:December 5, 2026",
           "Meet on —December 5, 2026", "<td>5</td>\n" + " " * 40 + "<td>December</td>\n"
           + " " * 40 + "<td>2026</td>"]


@pytest.mark.parametrize("read", WRITTEN)
def test_a_date_the_mail_writes_enclosed_is_endorsed(read: str) -> None:
    assert _label(read, "2026-12-05", Endorse.date("read_mail")) is Origin.ENDORSED


@pytest.mark.parametrize("asked", WRITTEN[:5])
def test_a_date_the_person_wrote_enclosed_is_the_request(asked: str) -> None:
    assert _label("a mail", "2026-12-05", request=f"Book it. {asked}") is Origin.REQUEST
