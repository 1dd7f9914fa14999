"""`signoff research` against a server that answers a streamed call with a whole reply says
what the person can do on the command line (ask with ``--json``, which does not stream): it
said "make the model with stream=False", which only a caller of the library can do."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.ports import free_port
from tests.provider_servers import Canned, openai_completion, serving


def test_a_reply_not_streamed_is_told_with_the_option_that_does_not_stream(
        tmp_path: Path) -> None:
    """The progress line and the line saying there is no answer both name
    `signoff research --json`, and neither names stream=False."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "with.md").write_text("# The with statement\n\nThe with statement wraps a block "
                                   "in the methods of a context manager.\n")
    env = {k: v for k, v in os.environ.items() if k != "SIGNOFF_APP"}
    with serving(free_port()) as server:
        server.answer(Canned(body=openai_completion("A whole reply, not a stream.")))
        done = subprocess.run(
            [sys.executable, "-m", "signoff.cli", "research", "--corpus", str(notes),
             "What does the with statement do?", "--price", "0,0",
             "--model", f"openai-compatible:m@{server.url}/v1"],
            capture_output=True, text=True, cwd=tmp_path, timeout=300, check=False,
            env={**env, "SIGNOFF_DATA_DIR": str(tmp_path / "data"),
                 "SIGNOFF_CACHE_DIR": str(tmp_path / "cache")})
    assert "not a stream of events" in done.stdout, done.stdout + done.stderr
    assert "stream=False" not in done.stdout + done.stderr
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("No answer")]
    assert line.endswith("Check that the server streams its replies, or ask again with the "
                         "--json option, which waits for each whole reply instead of a "
                         "stream."), line
