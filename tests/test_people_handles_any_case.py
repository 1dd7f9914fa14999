"""A handle is the same in any case, letters beyond ASCII too (on SQLite, whose lower() lowers
ASCII alone, ``josé@`` did not find ``JOSÉ@``, and was added as a second person)."""

from __future__ import annotations

from pathlib import Path

import pytest

from signoff import App
from signoff.exceptions import UserError


def test_a_handle_with_letters_beyond_ascii_is_found_in_any_case(tmp_path: Path) -> None:
    app = App("people", database=f"sqlite:///{tmp_path / 'people.db'}", key=b"k" * 32)
    jose = app.people.add("JOSÉ@Straße.example", "José")
    for typed in ("josé@straße.example", "José@STRASSE.example", "JOSÉ@Straße.example"):
        assert app.people.find(typed) == jose, typed
    with pytest.raises(UserError, match="There is already someone with the handle"):
        app.people.add("josé@straße.example", "José again")
    assert [p.handle for p in app.people.all()] == ["JOSÉ@Straße.example"]
    app.database.dispose()
