"""SQL text read as PostgreSQL reads it with ``standard_conforming_strings`` off too (a backslash
then escapes the quote after it): a statement that the standard reading hides in a string is
found, as the run's guard of the driver finds it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from signoff.effects import analyse


def deletes_past_an_escaped_quote(session: Session) -> list[Any]:
    return list(session.execute(text("SELECT 'a\\'' ; DELETE FROM note; --'")))


def test_a_statement_past_a_backslashed_quote_counts() -> None:
    """``'a\\''`` ends where a backslash escapes the quote: the DELETE after it counts."""
    effects = analyse(deletes_past_an_escaped_quote, name="deletes_past_an_escaped_quote")
    assert not effects.only_reads, effects.explain()
    # (the table's name, or its record's where a record of the process is mapped on it)
    assert "note" in {target.lower() for target in effects.deletes}, effects.explain()


def reads_with_backslashes(session: Session) -> list[Any]:
    return list(session.execute(text(
        "SELECT * FROM note WHERE body LIKE 'C:\\temp%' OR body = 'it''s'")))


def test_backslashes_in_strings_that_close_either_way_still_only_read() -> None:
    """Strings that close in every reading (``'C:\\temp%'``, ``'it''s'``): only read."""
    effects = analyse(reads_with_backslashes, name="reads_with_backslashes")
    assert effects.only_reads, effects.explain()
