"""What an MCP client is told when the work its call went into failed in the app's own code: a
sentence, never what the app's code raised (that is for the person's receipt and the log)."""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any

import anyio
import pytest

from signoff.security.credentials import TokenPurpose
from tests.mcp_servers import TRANSPORTS, connected, environment

_APP = '''
"""A poster whose skill cannot say what version a call reads: its version_of raises."""
import os
from typing import Any

from signoff import Agent, App, Skill, sends

app = App("poster", database=os.environ["POSTER_DATABASE"])


@sends
def post(text: str) -> None:
    """Post `text` (nothing here: it is what a send looks like)."""


@app.action("Post a message")
def post_message(text: str) -> str:
    """Post a message."""
    post(text)
    return "Posted."


class Posting(Skill[None, str]):
    description = "Post messages."
    tools = [post_message]

    def version_of(self, action: str, arguments: dict[str, Any]) -> str:
        raise RuntimeError("the vault answered: password hunter2 refused")


class Poster(Agent):
    purpose = "You post messages."
    skills = [Posting()]
    roles: list[str] = []


app.add_agent(Poster, sponsor="noor@example.com")
'''


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_call_whose_work_failed_in_the_apps_code_is_told_in_fixed_words(
        tmp_path: Path, transport: str) -> None:
    """The skill's version_of raises as the call is gated: the task fails, and the client is
    told so in a sentence, the first call and the next alike (before, the first was told an
    empty error, and the next what the app's code raised, password and all)."""
    (tmp_path / "poster.py").write_text(_APP)
    database = f"sqlite:///{tmp_path / 'poster.db'}"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("POSTER_DATABASE", database)
        app: Any = runpy.run_path(str(tmp_path / "poster.py"), run_name="poster")["app"]
    noor = app.people.add("noor@example.com", "Noor")
    token = app.credentials.issue_token(noor, "client", purpose=TokenPurpose.CLIENT)
    app.database.dispose()
    arguments = ["mcp", "serve", "--app", f"{tmp_path / 'poster.py'}:app", "--agent", "poster"]
    if transport == "stdio":
        arguments += ["--for", "noor@example.com"]

    async def scenario() -> list[Any]:
        async with connected(transport, arguments, environment(POSTER_DATABASE=database),
                             token=token) as client:
            return [await client.call_tool("post_message", {"text": "hello"}, meta={
                "signoff/wait": 0}) for _ in range(2)]

    told = anyio.run(scenario)
    for result in told:
        text = result.content[0].text
        assert result.is_error
        assert "did not foresee" in text, text
        assert "hunter2" not in text, text
        assert "RuntimeError" not in text, text


def test_a_call_the_database_failed_under_is_told_without_naming_the_database(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process holds the workshop's SQLite file locked past the 30 s a write waits: the
    note's call is told, in a sentence, that the database could not be used and to check before
    calling again, and not where the database is (before, the SDK told the client the store
    error's own message, which names the database's URL)."""
    import sqlite3

    from tests.workshop_web import open_workshop

    shop = open_workshop(tmp_path, monkeypatch)
    path = tmp_path / "workshop.db"
    arguments = ["mcp", "serve", "--app", "examples/workshop.py", "--agent", "estimator",
                 "--subject", str(shop.repair.id), "--for", "noor@workshop.example"]
    shop.app.database.dispose()

    async def scenario() -> Any:
        async with connected("stdio", arguments,
                             environment(WORKSHOP_DATABASE=f"sqlite:///{path}")) as client:
            await client.call_tool("parts_for", {"fault": "rear brake"})
            holder = sqlite3.connect(path, isolation_level=None)
            holder.execute("BEGIN EXCLUSIVE")
            try:
                return await client.call_tool("note_repair", {"repair": str(shop.repair.id),
                                                              "note": "Pads worn thin."})
            finally:
                holder.execute("ROLLBACK")
                holder.close()

    told = anyio.run(scenario)
    text = told.content[0].text
    assert told.is_error
    assert "database could not be used" in text, text
    assert "check whether it happened" in text, text
    assert str(tmp_path) not in text, text
    assert "sqlite" not in text, text
