"""An import inside an action of a module not imported yet runs that module's code, which the
analysis does not follow: the action is not found to only read. A module already imported is
only looked up."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from signoff import App, UserError
from signoff.effects import analyse

PLUGIN = "signoff_test_plugin_written_on_import"
"""A module that writes a file as it is first imported (made by the test, in its own folder)."""


def plugin_loaded() -> int:
    """Imports a plugin by name: nothing else."""
    import signoff_test_plugin_written_on_import  # noqa: F401  (its import is the point)

    return 1


def plugin_part_loaded() -> int:
    """Imports a name from a plugin."""
    from signoff_test_plugin_written_on_import import WRITTEN

    return len(WRITTEN)


def csv_loaded() -> str:
    """Imports one of Python's own modules as it needs it."""
    import csv

    return csv.QUOTE_ALL.__class__.__name__


def browser_opened() -> int:
    """Imports the one of Python's own modules that opens a web browser as it is imported."""
    import antigravity  # noqa: F401  (its import is the point)

    return 1


def json_loaded() -> str:
    """Imports a module the process has already imported: only looks it up."""
    import json

    return json.dumps([1])


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The plugin's folder on the import path; the file its import would write."""
    written = tmp_path / "written.txt"
    (tmp_path / f"{PLUGIN}.py").write_text(
        f"from pathlib import Path\nWRITTEN = Path({str(written)!r})\nWRITTEN.write_text('x')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, PLUGIN, raising=False)
    return written


@pytest.mark.parametrize("fn", [plugin_loaded, plugin_part_loaded], ids=lambda f: f.__name__)
def test_importing_a_module_not_imported_yet_is_not_taken_to_only_read(
        fn: Callable[..., Any], plugin: Path) -> None:
    """The module's code would run: the action may do anything, and says why."""
    found = analyse(fn, name=fn.__name__)
    assert not found.only_reads
    assert any(f"imports {PLUGIN}, not imported yet" in e.reason for e in found.effects)
    assert not plugin.exists()  # (analysed, never run)


def test_a_query_importing_a_module_not_imported_yet_is_refused(plugin: Path) -> None:
    """``@app.action(query=True)`` refuses an action that imports a module not imported yet."""
    app = App("plugins", database="sqlite://")
    with pytest.raises(UserError, match="plugin_loaded"):
        app.action(query=True)(plugin_loaded)
    assert not plugin.exists()


def test_importing_a_module_already_imported_only_reads() -> None:
    """``import json`` inside an action, json already imported, only looks it up."""
    assert analyse(json_loaded, name="json_loaded").only_reads


def test_importing_pythons_own_module_only_reads_whatever_was_imported_before(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``import csv`` inside an action, csv not imported yet: Python's own modules do nothing as
    they are imported, so it only reads — as it does once csv is imported (an action's effects
    do not hang on the order the process imported things in; a query doing so was refused as
    the app started)."""
    monkeypatch.delitem(sys.modules, "csv", raising=False)
    assert analyse(csv_loaded, name="csv_loaded").only_reads
    App("lazy", database="sqlite://").action(query=True)(csv_loaded)
    import csv  # noqa: F401
    assert analyse(csv_loaded, name="csv_loaded").only_reads


def test_importing_the_module_that_opens_a_browser_is_not_taken_to_only_read() -> None:
    found = analyse(browser_opened, name="browser_opened")
    assert not found.only_reads
    assert any("imports antigravity, not imported yet" in e.reason for e in found.effects)
