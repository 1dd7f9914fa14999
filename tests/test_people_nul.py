"""A handle or id holding a NUL character names nobody, on either database: a login typed with
one fails as an unknown person's does (on PostgreSQL, which refuses such text, `people.find`
raised a StoreError, which the inbox told as the database being down)."""

from __future__ import annotations

from signoff import App


def test_a_handle_with_a_nul_names_nobody(database: str) -> None:
    app = App("people", database=database, key=b"k" * 32)
    mia = app.people.add("mia@shop.example", "Mia")
    app.credentials.set_password(mia, "a long enough password")
    for key in ("mia@shop.example\x00", "\x00", f"{mia.id}\x00"):
        assert app.people.find(key) is None
        assert app.credentials.check_password(key, "a long enough password") is None
    assert app.people.find("mia@shop.example") == mia
    app.database.dispose()
