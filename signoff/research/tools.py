"""The research tools: search the corpus, read a source (queries: they run alone, read-only),
and fetch a web page (it reaches outside, so an agent proposes it unless told otherwise).

They are marked with ``@action`` and registered on an app by ``research_app`` (or
``app.collect(signoff.research.tools)`` with ``app.provide("corpus", lambda: corpus)``).
"""

from __future__ import annotations

import urllib.error
import urllib.request
from typing import Annotated

from signoff.actions.declare import Provided, action
from signoff.exceptions import Invalid, NotFound
from signoff.research.corpus import Corpus, Found, SourcePart
from signoff.research.sources import html_to_text

__all__ = ["FETCH_LIMIT_BYTES", "fetch_url", "read_source", "search_sources"]

FETCH_LIMIT_BYTES = 2_000_000
"""The most of a page `fetch_url` reads."""

_FETCH_CHARS = 48_000
"""The most characters of a fetched page's text given back."""


@action("Search the sources", query=True, untrusted=True)
def search_sources(query: str, *, corpus: Annotated[Corpus, Provided("corpus")]) -> Found:
    """Search the sources for plain words (no special syntax): the best matches first, each
    with its id, title, the part of it that matched and the words around the match (read that
    part with read_source); and the words of the query that no source has at all."""
    return corpus.find(query)


@action("Read a source", query=True, untrusted=True)
def read_source(
    source_id: str, part: int = 1, *, corpus: Annotated[Corpus, Provided("corpus")]
) -> SourcePart:
    """The text of one source, by the id search_sources gave; a long source comes in parts
    (the answer says how many), read one at a time: read the part search_sources named, or
    any other."""
    return corpus.read(source_id, part=part)


@action("Fetch a web page")
def fetch_url(url: str) -> SourcePart:
    """Fetch a page from the web (http or https) and give its text; its id is the URL."""
    if not url.lower().startswith(("http://", "https://")):
        raise Invalid(f"Only http and https pages can be fetched, not {url!r}.")
    request = urllib.request.Request(url, headers={"User-Agent": "signoff-research/0.1"})
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            raw = response.read(FETCH_LIMIT_BYTES)
            charset = response.headers.get_content_charset() or "utf-8"
            kind = response.headers.get_content_type()
    except urllib.error.HTTPError as error:
        if error.code in (404, 410):
            raise NotFound(f"{url} does not exist (HTTP {error.code}).") from None
        raise Invalid(f"{url} could not be fetched: HTTP {error.code} {error.reason}.") from None
    except (urllib.error.URLError, OSError, ValueError) as error:
        raise Invalid(f"{url} could not be fetched: {error}.") from None
    try:
        page = raw.decode(charset, errors="replace")
    except LookupError:  # (a charset no codec has: read as a page that names none is)
        page = raw.decode("utf-8", errors="replace")
    title = url
    if "html" in kind:
        found, page = html_to_text(page)
        title = found or url
    return SourcePart(source_id=url, title=title, origin=url, part=1, parts=1,
                      text=page[:_FETCH_CHARS])
