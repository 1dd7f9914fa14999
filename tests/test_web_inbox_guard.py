"""The guard's inbox as Noor reads a proposed call of an upstream tool, driven by Debian's
Chromium against ``signoff mcp guard`` over HTTP in front of a real file server: what the call
would do says which tool of which MCP server it reaches, and nothing of signoff's own code (the
page showed ``files_delete_file -> signoff.mcp.upstreams.Upstreams.call_from_thread`` beside
the words); the REST API and ``signoff mcp proposals`` say the same words."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from signoff.effects import analyse
from signoff.inbox import EffectLine, effect_lines
from signoff.mcp.config import GuardConfig, Upstream
from signoff.mcp.guard import open_guard_app
from signoff.mcp.upstreams import Upstreams
from signoff.security.credentials import TokenPurpose
from tests.mcp_servers import (
    ROOT,
    command,
    environment,
    free_port,
    guard_config,
    http_server,
    over_http,
    stdio_server,
)

UPSTREAM = str(ROOT / "tests" / "mcp_upstream_files.py")
PASSWORD = "correct horse battery"
WORDS = "reaches outside: calls delete_file on the MCP server files"
"""What a call of the files server's delete_file does, in the words Noor reads."""


@pytest.fixture
def guard(tmp_path: Path) -> Iterator[SimpleNamespace]:
    """The guard served over HTTP (MCP, inbox and REST API) in front of a trusted file server,
    with a call of its delete_file proposed to Noor, who has a password and a token."""
    files = tmp_path / "files"
    files.mkdir()
    (files / "a.txt").write_text("a")
    config = guard_config(tmp_path, stdio_server("files", UPSTREAM, env={
        "FILES_ROOT": str(files)}, trusted=True))
    app = open_guard_app(GuardConfig.load(config))
    noor = app.people.find("noor@example.com")
    app.credentials.set_password(noor, PASSWORD)
    client = app.credentials.issue_token(noor, "tests' client", purpose=TokenPurpose.CLIENT)
    port = free_port()
    with http_server(["mcp", "guard", str(config), "--http", f"127.0.0.1:{port}"],
                     environment(), port) as url:

        async def propose() -> Any:
            async with over_http(url, token=client) as mcp:
                return await mcp.call_tool("files_delete_file", {"name": "a.txt"}, meta={
                    "signoff/wait": 0, "signoff/why": "a.txt is a stale copy."})

        with ThreadPoolExecutor(1) as aside:  # (Playwright's loop runs in this thread)
            told = aside.submit(anyio.run, propose).result(timeout=120)
        assert "was proposed to Noor" in told.content[0].text, told
        (proposal,) = app.proposals()
        yield SimpleNamespace(url=url, config=config, app=app, proposal=proposal,
                              token=app.credentials.issue_token(noor, "tests"))
    app.database.dispose()


@pytest.fixture
def page(browser: Browser, guard: SimpleNamespace) -> Iterator[Page]:
    """Noor, logged in to the guard's inbox."""
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.goto(f"{guard.url}/login")
    page.get_by_label("E-mail address").fill("noor@example.com")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(f"{guard.url}/")
    yield page
    context.close()


def test_a_proposed_upstream_call_says_what_it_reaches_not_signoffs_code(
        guard: SimpleNamespace, page: Page) -> None:
    """Under "What it would do", Noor reads the tool and the server the call reaches, and no
    path through signoff's own code; the Agents page tells the guard's actions the same way."""
    page.goto(f"{guard.url}/proposals/{guard.proposal.id}")
    expect(page.locator("#effects-heading")).to_have_text("What it would do")
    effects = page.locator("#effects li")
    expect(effects).to_have_count(1)
    expect(effects).to_have_text(WORDS)
    assert page.locator("#effects code").count() == 0
    page.goto(f"{guard.url}/agents")
    actions = page.locator("main").inner_text()
    assert WORDS in actions
    assert "calls list_files on the MCP server files" in actions
    assert "signoff." not in actions
    assert "call_from_thread" not in actions


def test_the_rest_api_and_the_command_say_the_same_words(guard: SimpleNamespace) -> None:
    """The proposal's and the action's effects in the REST API's JSON, and in
    ``signoff mcp proposals --json``, are the words the page shows, naming no code of signoff's."""
    headers = {"Authorization": f"Bearer {guard.token}"}
    with httpx.Client(base_url=guard.url, headers=headers, timeout=60) as api:
        proposal = api.get(f"/api/proposals/{guard.proposal.id}").json()
        actions = {a["name"]: a for a in api.get("/api/actions").json()["items"]}
    assert proposal["effects"] == [WORDS]
    assert actions["files_delete_file"]["effects"] == [WORDS]
    listed = subprocess.run(command("mcp", "proposals", str(guard.config), "--token",
                                    guard.token, "--json"), env=environment(), cwd=ROOT,
                            capture_output=True, text=True, timeout=120, check=True)
    (shown,) = json.loads(listed.stdout)
    assert shown["effects"] == [WORDS]
    assert "signoff." not in json.dumps([proposal, actions]) + listed.stdout


def test_a_call_of_an_upstream_tool_is_one_line_of_words_with_no_code_beside_it() -> None:
    """The lines a person deciding reads (the inbox, ``signoff proposals show``, a notice by
    e-mail) of the guard's forwarding call: its words, and no path through the code beside them,
    which ends in signoff's own."""
    upstreams = Upstreams(GuardConfig(name="guard", database="sqlite://", for_=None, people=(),
                                      servers=(Upstream(name="files", command="files-server"),)))
    server, tool = "files", "delete_file"

    def forward(arguments: dict[str, Any]) -> Any:
        return upstreams.call_from_thread(server, tool, arguments)

    effects = analyse(forward, name="files_delete_file")
    assert effect_lines(effects.ordered) == [EffectLine(words=WORDS, code="")]
