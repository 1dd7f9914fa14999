"""How much a corpus's sources are pointed to by its others: a source that many others link to
is one the corpus itself refers its readers to (Python's `functions` page, which every mention
of ``len()`` links to), where one few link to is a corner of it (`xdrlib`). A search counts
this beside how well a source's words match (`LINK_WEIGHT`), so that, of two sources that have
a question's words, the one the corpus refers to is read first: "the length of a list" reaches
``len()`` before `xdrlib`'s "n is the length of the list". Only links between the corpus's own
sources count, each linking source once; a corpus with no links (the help topics, plain text)
ranks as it did.
"""

from __future__ import annotations

import math
import posixpath
import re
import statistics
import urllib.parse
from collections.abc import Collection, Mapping

__all__ = ["LINK_WEIGHT", "links_in", "priors"]

LINK_WEIGHT = 4.0
"""How much a source's prior (`priors`) counts beside the BM25 of its best part: measured with
``bench/bench_research_quality.py --heldout`` (2026-12-07): at 0, 2, 4, 6, 8 and 12 the held-out
sets over Python's documentation gained most at 4 to 6 with no question lost; at 8 the tuned
set lost one."""

_HTML_LINK = re.compile(r"""<a\s[^>]*?href\s*=\s*["']([^"'#]+)""", re.IGNORECASE)
_MARKDOWN_LINK = re.compile(r"\]\(\s*<?([^)\s#>]+)")


def links_in(text: str, source_id: str, *, html: bool) -> tuple[str, ...]:
    """The sources of the same folder that `text` (the source `source_id`, HTML or Markdown as
    written) links to, by their ids, each once: relative links only (another site's page, an
    absolute path or a link to itself says nothing of this corpus)."""
    found: dict[str, None] = {}
    here = posixpath.dirname(source_id)
    for match in (_HTML_LINK if html else _MARKDOWN_LINK).finditer(text):
        target = urllib.parse.unquote(match.group(1).split("?", 1)[0])
        if not target or urllib.parse.urlsplit(target).scheme or target.startswith("/"):
            continue
        resolved = posixpath.normpath(posixpath.join(here, target))
        if resolved != source_id and not resolved.startswith(".."):
            found[resolved] = None
    return tuple(found)


def priors(linked_from: Mapping[str, set[str]], sources: Collection[str]) -> dict[str, float]:
    """The prior of each of `sources` (a corpus's, by id) that has one: how many more of them
    link to it than to the middle one, on a log scale, and never below 0 (a source few link to
    is not held back: a tutorial's page is linked to less than a reference's, and answers as
    well). `linked_from` gives, for a source, the sources that link to it."""
    counts = {source: len(linked_from.get(source, ())) for source in sources}
    if not any(counts.values()):
        return {}
    middle = statistics.median(counts.values())
    return {source: prior for source, n in counts.items()
            if (prior := math.log((1 + n) / (1 + middle))) > 0}
