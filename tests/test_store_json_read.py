"""JSON columns read back as the standard library reads them, whatever reads them (a prepared
statement, SQLAlchemy Core, the ORM) — an int beyond 64 bits stays an int, and NaN, infinities
and a lone surrogate, which the standard library writes, come back as written; a table declared
after the first transaction is still created before the next one uses it."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import JSON, Column, Integer, MetaData, String, Table, bindparam, select

from signoff.store.database import Database
from signoff.store.prepared import insert_of, prepare

metadata = MetaData()
values = Table("json_values", metadata, Column("id", String(36), primary_key=True),
               Column("data", JSON, nullable=True))

ODD: dict[str, Any] = {
    "big": 123456789012345678901234567890,
    "past_64_bits": 18446744073709551616,
    "below": -9223372036854775809,
    "largest": 18446744073709551615,
    "eighteen_digits": 123456789012345678,
    "not_a_number": float("nan"),
    "infinite": [float("inf"), float("-inf")],
    "half": "a\udc80b",
    "floats": [0.1, 5e-324, 1.7976931348623157e308, -0.0, 2.2250738585072014e-308],
    "digits_in_text": "0123456789012345678901234",
    "nested": {"deep": [[[{"x": None, "y": True, "z": "é"}]]]},
}


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Database]:
    db = Database(f"sqlite:///{tmp_path}/json.db")
    db.holds(metadata)
    db.ensure_schema()
    yield db
    db.dispose()


def _same(read: Any, written: Any) -> bool:
    """Equal, type for type (NaN equal to NaN)."""
    if isinstance(written, float) and math.isnan(written):
        return isinstance(read, float) and math.isnan(read)
    if type(read) is not type(written):
        return False
    if isinstance(written, dict):
        return read.keys() == written.keys() and all(_same(read[k], written[k]) for k in written)
    if isinstance(written, list):
        return len(read) == len(written) and all(map(_same, read, written))
    if isinstance(written, float):
        return math.copysign(1, read) == math.copysign(1, written) and read == written
    return bool(read == written)


@pytest.mark.parametrize("name", sorted(ODD))
def test_a_json_value_reads_back_as_the_standard_library_reads_it(database: Database,
                                                                  name: str) -> None:
    value = {name: ODD[name]}
    with database.connect() as c:
        prepare(c, "json_insert", lambda: insert_of(values, ["id", "data"])).run(
            c, {"id": name, "data": value})
    with database.connect() as c:
        prepared = prepare(c, "json_read", lambda: select(values.c.data).where(
            values.c.id == bindparam("key"))).run(c, {"key": name}).scalar()
        core = c.execute(select(values.c.data).where(values.c.id == name)).scalar_one()
        text = c.exec_driver_sql("SELECT data FROM json_values WHERE id = ?", (name,)).scalar()
    assert _same(json.loads(text), value)
    assert _same(prepared, value)
    assert _same(core, value)


def test_a_table_declared_after_the_first_transaction_is_made_before_the_next(
        database: Database) -> None:
    with database.connect() as c:
        c.execute(values.insert().values(id="first", data=[1]))
    later = Table("json_later", metadata, Column("id", Integer, primary_key=True))
    try:
        with database.connect() as c:
            c.execute(later.insert().values(id=1))
            assert c.execute(select(later.c.id)).scalar_one() == 1
    finally:
        metadata.remove(later)
