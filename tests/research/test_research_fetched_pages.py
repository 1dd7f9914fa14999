"""A page fetched is read whatever its server says of it: a charset no codec has is read as
UTF-8, as a page that names none is."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from signoff import App
from signoff.research import Corpus, research_app
from tests.ports import free_port


@pytest.fixture
def page_url() -> Iterator[str]:
    """A page on loopback whose server names a charset no codec has."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Page(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            """Quiet."""

        def do_GET(self) -> None:
            body = "<html><title>Kettles</title><p>A kettle boils water, café.</p></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=x-no-such-codec")
            self.end_headers()
            self.wfile.write(body.encode())

    pages = ThreadingHTTPServer(("127.0.0.1", free_port()), Page)
    threading.Thread(target=pages.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{pages.server_address[1]}/kettle"
    finally:
        pages.shutdown()
        pages.server_close()


def test_a_page_whose_charset_no_codec_has_is_read_as_utf8(tmp_path: object,
                                                          page_url: str) -> None:
    """The page's words are given back (the run failed as a fault of signoff's own, the
    LookupError of the charset logged as a bug, and the model told nothing of why)."""
    app: App = research_app(Corpus.bundled(), database="sqlite://")
    ran = app.actions.run("fetch_url", {"url": page_url}, as_=app.system)
    assert ran.value["title"] == "Kettles", ran
    assert ran.value["text"] == "A kettle boils water, café."
