"""Two guards opened at once on one database (a PostgreSQL server: SQLite's write lock makes them
take turns already): each keeps what an upstream tool said of itself, and which tools it doubts,
without failing on the other's row — the one that looked second and wrote second finds the row
the other kept, and goes on from it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp.types import Tool, ToolAnnotations

from signoff.agents import repository as repo
from signoff.mcp.config import GuardConfig
from signoff.mcp.guard import open_guard_app, remember
from signoff.store import points


def _config(tmp: Path, database: str) -> GuardConfig:
    path = tmp / "guard.toml"
    path.write_text(f'''
name = "guard"
database = "{database}"
for = "noor@example.com"

[[people]]
handle = "noor@example.com"
name = "Noor"

[servers.files]
command = "python"
''')
    return GuardConfig.load(path)


def _tool(description: str, *, reads: bool) -> Tool:
    return Tool(name="read_file", description=description,
                inputSchema={"type": "object", "properties": {"path": {"type": "string"}}},
                annotations=ToolAnnotations(readOnlyHint=reads))


def test_two_guards_keeping_a_new_tool_at_once_both_go_on(
        tmp_path: Path, postgres_database: str) -> None:
    """The first guard looks for the tool's row and finds none; before it keeps its own, the
    second guard keeps the tool's row (and, from a listing that says it deletes, doubts it). The
    first then goes on: no error, one row each, and the first sees the tool changed (the second
    kept another description), which suspends rules on it as any change does."""
    config = _config(tmp_path, postgres_database)
    first, second = open_guard_app(config), open_guard_app(config)
    done: list[str] = []

    def meanwhile(point: str, where: dict[str, Any]) -> None:
        if point == "mcp.tool_unknown" and not done:
            done.append(where["action"])
            assert remember(second, "files_read_file", _tool("Deletes a file.", reads=False)) is False
    try:
        with points.pausing(meanwhile):
            changed = remember(first, "files_read_file", _tool("Reads a file.", reads=True))
        assert done == ["files_read_file"]
        assert changed is True  # the second kept what the tool said to it: another description
        with first.database.connect() as db:
            kept = db.exec_driver_sql(
                "SELECT action, description FROM signoff_mcp_upstream_tools").all()
        assert [tuple(row) for row in kept] == [("files_read_file", "Reads a file.")]
    finally:
        first.database.dispose()
        second.database.dispose()


def test_two_guards_opening_at_once_on_a_new_database_both_open(
        tmp_path: Path, postgres_database: str) -> None:
    """The first guard finds its config's person missing; before it adds them, a second guard
    opens and adds them. The first opens too, with the one person both see (it failed, "duplicate
    key value violates unique constraint")."""
    config = _config(tmp_path, postgres_database)
    opened: list[Any] = []
    paused: list[str] = []

    def meanwhile(point: str, where: dict[str, Any]) -> None:
        if point == "people.handle_free" and not paused:
            paused.append(where["handle"])  # (once: the second guard passes the point too)
            opened.append(open_guard_app(config))
    with points.pausing(meanwhile):
        first = open_guard_app(config)
    try:
        assert len(opened) == 1
        (second,) = opened
        assert first.people.get("noor@example.com") == second.people.get("noor@example.com")
        assert [p.handle for p in first.people.all() if p.handle == "noor@example.com"] == [
            "noor@example.com"]
    finally:
        for app in (first, *opened):
            app.database.dispose()


def test_a_handle_added_twice_at_once_is_the_handle_taken_sentence(
        tmp_path: Path, postgres_database: str) -> None:
    """`people.add` of one handle by two processes at once: the second is told the handle is
    taken, as when it comes after (it was a StoreError quoting the driver)."""
    from signoff import App
    from signoff.exceptions import UserError

    first, second = App("one", database=postgres_database), App("two", database=postgres_database)
    meant: list[str] = []
    paused: list[str] = []

    def meanwhile(point: str, where: dict[str, Any]) -> None:
        if point == "people.handle_free" and not paused:
            paused.append(where["handle"])  # (once: the second add passes the point too)
            meant.append(second.people.add(where["handle"], "Mia").id)
    try:
        with points.pausing(meanwhile):
            try:
                first.people.add("mia@shop.example", "Mia")
            except UserError as error:
                told = str(error)
            else:
                told = ""
        assert told.startswith("There is already someone with the handle 'mia@shop.example'")
        assert first.people.get("mia@shop.example").id == meant[0]
    finally:
        first.database.dispose()
        second.database.dispose()


def test_two_guards_suspending_one_rule_at_once_both_go_on(tmp_path: Path) -> None:
    """Both guards see the tool changed; the second takes the standing rule on it back between
    the first's listing of the rules and its own taking back. The first goes on (it failed,
    "This rule was revoked already."), and the rule is taken back once."""
    config = _config(tmp_path, f"sqlite:///{tmp_path / 'guard.db'}")
    first, second = open_guard_app(config), open_guard_app(config)
    try:
        assert remember(first, "files_read_file", _tool("Reads a file.", reads=True)) is False
        noor = first.people.get("noor@example.com")
        with first.database.connect() as db:
            rule_id = repo.insert_rule(db, agent="guard", tool="files_read_file", skill=None,
                                       made_by_id=noor.id, for_id=noor.id, effects="[]")
        meanwhile_done: list[str] = []

        def meanwhile(point: str, where: dict[str, Any]) -> None:
            if point == "mcp.rule_to_suspend" and not meanwhile_done:
                meanwhile_done.append(where["rule"])
                (rule,) = second.rules(active_only=True)
                second.revoke(rule, by=second.people.get("noor@example.com"),
                              why="Suspended by the other guard.")

        with points.pausing(meanwhile):
            changed = remember(first, "files_read_file", _tool("Deletes a file.", reads=False))
        assert changed is True
        assert meanwhile_done == [rule_id]
        (rule,) = first.rules()
        assert not rule.active
        assert rule.why == "Suspended by the other guard."
    finally:
        first.database.dispose()
        second.database.dispose()
