"""A page's markup is taken out in one pass: a page of comment openings that never close
(``<!--`` written over and over, as a hostile page may) is read as quickly as any page of its
size, and what follows them is still read through its tags, as the model reads it.

(Found in review: ``<!--.*?-->`` looked for the end of each comment to the end of the text, once
per opening: a 300 kB page of them took minutes to read, the task's worker held all that time.
Taking an unclosed comment to the end of the text instead would have hidden a name written in
tags after it — ``<!-- <b>mal</b>lory`` — which the model reads as mallory.)
"""

from __future__ import annotations

import pytest

from signoff import Origin
from signoff.limits.provenance import Provenance, Seen


@pytest.mark.parametrize("before", ["", "<!-- " * 20_000, "<!-- a --> <!-- " * 5_000])
def test_a_name_in_tags_after_comments_that_never_close_is_outside_content(before: str) -> None:
    """After any number of comment openings that never close, a name written in tags is read
    as the model reads it: mallory, outside content."""
    page = f"{before}<b>mal</b>lory"
    provenance = Provenance(trusted=["Read the page."])
    provenance.add(Seen(tool="fetch", arguments="{}", value=page, text=page, outside="web"))
    (label,) = provenance.label("grant", {"user": "mallory"}, free_text=False).arguments
    assert label.origin is Origin.OUTSIDE, label
