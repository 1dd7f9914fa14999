"""Processes that open a database at once, before signoff's tables are made, all get them."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

from sqlalchemy import create_engine

from signoff import App
from signoff.exceptions import StoreError
from signoff.store.migrate import current_revision, head_revision

_OPENING = """\
import sys, time
from pathlib import Path
from signoff import App

url, here, n = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
app = App("shop", database=url)  # (it opens nothing yet)


class Repair(app.Record):  # a record of the app's own: its table is made beside signoff's
    pass


(here / f"ready-{n}").touch()
while not (here / "go").exists():
    time.sleep(0.005)
print(len(app.people.all()))
"""


def test_processes_opening_an_unmigrated_database_at_once_all_open_it(
        database: str, tmp_path: Path) -> None:
    """Several processes opening one new database at the same moment each start a migration:
    one makes signoff's tables while the others wait, and every one of them reads them (on
    PostgreSQL all but one failed, "duplicate key value violates unique constraint
    pg_type_typname_nsp_index"; then, making the app's own record tables, "relation
    already exists")."""
    many = 5
    opening = [subprocess.Popen([sys.executable, "-c", _OPENING, database, str(tmp_path), str(n)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for n in range(many)]
    try:
        while len(list(tmp_path.glob("ready-*"))) < many and all(
                p.poll() is None for p in opening):
            time.sleep(0.01)
        (tmp_path / "go").touch()
        told = [p.communicate(timeout=120) for p in opening]
    finally:
        for p in opening:
            if p.poll() is None:
                p.kill()
                p.wait()
    assert [(p.returncode, out.strip()) for p, (out, _) in zip(opening, told, strict=True)] == [
        (0, "0")] * many, [err for _, err in told]
    engine = create_engine(database)
    try:
        with engine.connect() as connection:
            assert current_revision(connection) == head_revision()
    finally:
        engine.dispose()


def test_a_file_another_program_is_writing_in_rollback_mode_is_opened_once_it_is_done(
        tmp_path: Path) -> None:
    """signoff opening a file while another program writes it in rollback mode waits for the
    write to end, then puts the file in WAL mode: switching failed "database is locked" at once,
    the busy timeout unwaited (as when processes open a new file at the same moment: one of
    five failed so in a run of the suite)."""
    path = tmp_path / "shop.db"
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        other.execute("CREATE TABLE stock (item TEXT)")
        other.execute("BEGIN IMMEDIATE")
        other.execute("INSERT INTO stock VALUES ('crane')")
        app = App("shop", database=f"sqlite:///{path}")
        told: list[object] = []
        opening = threading.Thread(target=lambda: told.append(_people_or_error(app)))
        opening.start()
        opening.join(0.3)
        assert opening.is_alive(), told  # (waiting for the write, not failed at once)
        other.execute("COMMIT")
        opening.join(60)
        assert told == [0]
        assert other.execute("SELECT item FROM stock").fetchall() == [("crane",)]
    finally:
        other.close()
    assert path.read_bytes()[18:20] == b"\x02\x02"  # (the file's header: in WAL mode)


def _people_or_error(app: App) -> object:
    try:
        return len(app.people.all())
    except StoreError as error:
        return error
    finally:
        app.database.dispose()
