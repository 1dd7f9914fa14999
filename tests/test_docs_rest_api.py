"""The REST API's example in "Serving the inbox" runs as written against the server the page
starts: a `shell` block, which the page runner leaves alone (it stops each server it starts), is
run here, command by command, with `signoff serve` running beside it as the page says."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.docs_runner import blocks, commands, run_sh

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "how-to" / "inbox.md"


def _free_port() -> int:
    """A port of loopback nobody listens on now (where this test serves the inbox; the page
    says 8000)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_rest_api_example_rejects_with_a_token(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The page's files and commands make the shop, Noor's password and a waiting proposal;
    with `signoff serve` running, the shell block takes a token, lists the proposals and
    rejects the first with a reason, which the proposal then carries."""
    monkeypatch.chdir(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIGNOFF_")}
    env |= {"HOME": str(tmp_path), "PATH": f"{Path(sys.executable).parent}:{env['PATH']}"}
    page = blocks(PAGE)
    for _, info, code in page:
        title = re.search(r'title="([^"]+)"', info)
        if title:
            Path(title[1]).write_text(code)
    (setup,) = [code for language, _, code in page if language == "sh" and "signoff serve" in code]
    (serve,) = [c for c in commands(setup) if c.startswith("signoff serve")]
    run_sh("\n".join(c for c in commands(setup) if c != serve), env)
    port = _free_port()
    server = subprocess.Popen(["bash", "-c", "exec " + serve.replace("8000", str(port))], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for(f"http://127.0.0.1:{port}/login")
        (example,) = [code for language, _, code in page if language == "shell"]
        script = example.replace("127.0.0.1:8000", f"127.0.0.1:{port}")
        done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], env=env,
                              capture_output=True, text=True, timeout=300, check=False)
    finally:
        server.terminate()
        server.wait(timeout=20)
    assert done.returncode == 0, done.stdout + done.stderr
    answers = _answers(done.stdout)
    listed, decided = answers[0], answers[-1]
    assert listed["items"]
    assert listed["items"][0]["action"] == "set_price"
    assert decided["status"] == "Rejected"
    assert decided["said"] == "Noor said no to set_price: Quote the cable separately."
    said_on_page = re.sub(r"\s+", " ", PAGE.read_text())
    assert '"said": "Noor said no to set_price: Quote the cable separately."' in said_on_page


def _answers(printed: str) -> list[dict[str, Any]]:
    """The JSON objects curl printed, one after another (curl ends none with a new line)."""
    found, at, decoder = [], 0, json.JSONDecoder()
    while (at := printed.find("{", at)) != -1:
        answer, at = decoder.raw_decode(printed, at)
        found.append(answer)
    return found


def _wait_for(url: str) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            assert time.monotonic() < deadline, f"{url} did not answer"
            time.sleep(0.1)
