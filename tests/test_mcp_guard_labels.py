"""How the guard's actions read: "delete_file on files", in its catalogue (the inbox's agents
page, the REST API's actions) and in its proposals. They read "delete_file (on files)", and
"delete_file (on files) (Arguments)" in the catalogue: a parenthetical doubled, and the name of
the one parameter that takes a tool's arguments whole shown as if it told something."""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path
from typing import Annotated, Any

import anyio
import pytest
from click.testing import CliRunner

from signoff import App, Label
from signoff.cli import main
from signoff.mcp.config import GuardConfig
from signoff.mcp.guard import open_guard
from tests.mcp_servers import ROOT, guard_config, stdio_server

UPSTREAM = str(ROOT / "tests" / "mcp_upstream_files.py")


def test_a_parameter_not_listed_is_left_out_of_how_an_action_reads() -> None:
    """`Label(text, listed=False)` keeps the label where a value is given, and leaves it out
    of `reads_as`; the other parameters are named there as ever."""
    app = App("t", database="sqlite://")

    @app.action("Pass it on")
    def pass_on(arguments: Annotated[dict[str, Any], Label("Arguments", listed=False)],
                note: Annotated[str, Label("A note")] = "") -> str:
        return f"{len(arguments)} {note}"

    (info,) = app.actions.catalog()
    assert info.reads_as == "Pass it on (optional: A note)"
    assert [p.label for p in info.parameters] == ["Arguments", "A note"]
    assert not info.parameters[0].listed


def test_the_guards_actions_and_proposals_read_as_words(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The guard's delete_file of its server files reads "delete_file on files" in its
    catalogue and in `signoff mcp proposals`, whose line has one parenthetical, the call's
    arguments."""
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "a.txt").write_text("a")
    config = guard_config(tmp_path, stdio_server("files", UPSTREAM, trusted=True,
                                                 env={"FILES_ROOT": str(tmp_path / "files")}))
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))

    async def scenario() -> dict[str, str]:
        async with AsyncExitStack() as stack:
            served = await open_guard(GuardConfig.load(config), stack, wait_seconds=0)
            await served.call_tool("files_delete_file", {"name": "a.txt"})
            app = served.app
            return {i.name: i.reads_as for i in app.actions.catalog()} | {
                "label": app.actions.get("files_delete_file").info.label,
                "token": app.credentials.issue_token(app.people.find("noor@example.com"), "t")}

    read = anyio.run(scenario)
    assert read["label"] == "delete_file on files"
    assert read["files_delete_file"] == "delete_file on files"
    assert read["files_list_files"] == "list_files on files"
    listed = CliRunner().invoke(main, ["mcp", "proposals", str(config), "--token", read["token"]])
    assert listed.exit_code == 0, listed.output
    assert ('mcp_guard: delete_file on files (arguments={"name": "a.txt"}) — to be decided by '
            'Noor') in listed.output
