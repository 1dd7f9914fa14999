"""Run-time read-only enforcement for queries: the audit hook, read-only sessions, their scope."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import http.client
import http.server
import logging
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import urllib.request
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import String, func, select, text, update
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from signoff.actions.readonly import (
    Guard,
    make_session_read_only,
    read_only_guard,
    refuse_pending_changes,
    unguarded,
)
from signoff.exceptions import ReadOnlyViolation
from signoff.store.database import Database

LIBC = ctypes.util.find_library("c") or "libc.so.6"  # found here: find_library may run programs
_LIBC = ctypes.CDLL(LIBC)  # loaded before any guard: looking up a function in it is still refused


# --- A playground of files and loopback servers ----------------------------------------------


class _Quiet(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, format: str, *args: object) -> None:
        pass


@dataclass(kw_only=True)
class Playground:
    """Files to write over and servers to reach, all in the test's own temporary space."""

    root: Path
    existing: Path
    empty_dir: Path
    tree: Path
    http_address: tuple[str, int]
    udp_address: tuple[str, int]

    def snapshot(self) -> dict[str, tuple[int, int]]:
        """Every path under the root with its size and mode, to see that nothing changed."""
        return {
            str(path.relative_to(self.root)): (path.lstat().st_size, path.lstat().st_mode)
            for path in sorted(self.root.rglob("*"))
        }


@pytest.fixture
def playground(tmp_path: Path) -> Iterator[Playground]:
    """A directory with a file, an empty directory and a tree, plus an HTTP and a UDP listener."""
    (tmp_path / "existing.txt").write_text("hello")
    (tmp_path / "empty").mkdir()
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "leaf.txt").write_text("leaf")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Quiet)
    serving = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    serving.start()
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    try:
        yield Playground(
            root=tmp_path,
            existing=tmp_path / "existing.txt",
            empty_dir=tmp_path / "empty",
            tree=tmp_path / "tree",
            http_address=("127.0.0.1", server.server_address[1]),
            udp_address=udp.getsockname(),
        )
    finally:
        server.shutdown()
        server.server_close()
        serving.join()
        udp.close()


@pytest.fixture(autouse=True)
def _hook_installed() -> None:
    """Install the audit hook before every test, so "outside the guard" runs with it in place."""
    with read_only_guard():
        pass


# --- Each blocked operation ------------------------------------------------------------------


def _open_fd(path: Path, flags: int) -> None:
    os.close(os.open(path, flags, 0o644))


def _mkstemp(p: Playground) -> None:
    fd, name = tempfile.mkstemp(dir=p.root)
    os.close(fd)
    os.remove(name)


def _connect(p: Playground) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as client:
        client.connect(p.http_address)


def _create_connection(p: Playground) -> None:
    socket.create_connection(p.http_address, timeout=5).close()


def _sendto(p: Playground) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as client:
        client.sendto(b"hello", p.udp_address)


def _bind(_p: Playground) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))


def _urlopen(p: Playground) -> None:
    host, port = p.http_address
    with urllib.request.urlopen(f"http://{host}:{port}/", timeout=5) as response:
        assert response.read() == b"ok"


def _http_client(p: Playground) -> None:
    connection = http.client.HTTPConnection(*p.http_address, timeout=5)
    try:
        connection.connect()
    finally:
        connection.close()


def _fork(_p: Playground) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # 3.12+: forking with threads
        pid = os.fork()
    if pid == 0:  # only if the guard failed to block it: leave at once
        os._exit(0)
    os.waitpid(pid, 0)


def _posix_spawn(_p: Playground) -> None:
    pid = os.posix_spawn(sys.executable, [sys.executable, "-c", "pass"], dict(os.environ))
    os.waitpid(pid, 0)


def _ctypes_lookup(_p: Playground) -> None:
    assert ctypes.CDLL(LIBC).getppid() == os.getppid()


def _ctypes_memory(_p: Playground) -> None:
    number = ctypes.c_int(7)
    assert ctypes.c_int.from_address(ctypes.addressof(number)).value == 7


@dataclass(kw_only=True, frozen=True)
class Case:
    """An operation a query may not do, and the audit event that betrays it."""

    run: Callable[[Playground], object]
    event: str
    outside: bool = True
    """Whether to show it working outside the guard too (not for replacing the process)."""


CASES: dict[str, Case] = {
    "open for writing": Case(run=lambda p: open(p.root / "new.txt", "w").close(), event="open"),
    "open for appending": Case(run=lambda p: open(p.existing, "a").close(), event="open"),
    "open for updating": Case(run=lambda p: open(p.existing, "r+b").close(), event="open"),
    "open exclusively": Case(run=lambda p: open(p.root / "x.bin", "xb").close(), event="open"),
    "Path.write_text": Case(run=lambda p: p.existing.write_text("bye"), event="open"),
    "Path.write_bytes": Case(run=lambda p: (p.root / "b").write_bytes(b"1"), event="open"),
    "Path.touch": Case(run=lambda p: (p.root / "touched").touch(), event="open"),
    "os.open O_CREAT": Case(
        run=lambda p: _open_fd(p.root / "raw", os.O_WRONLY | os.O_CREAT), event="open"
    ),
    "os.open O_RDWR": Case(run=lambda p: _open_fd(p.existing, os.O_RDWR), event="open"),
    "tempfile.mkstemp": Case(run=_mkstemp, event="open"),
    "os.remove": Case(run=lambda p: os.remove(p.existing), event="os.remove"),
    "Path.unlink": Case(run=lambda p: p.existing.unlink(), event="os.remove"),
    "os.rename": Case(run=lambda p: os.rename(p.existing, p.root / "moved"), event="os.rename"),
    "os.replace": Case(run=lambda p: os.replace(p.existing, p.root / "moved"), event="os.rename"),
    "os.mkdir": Case(run=lambda p: os.mkdir(p.root / "made"), event="os.mkdir"),
    "Path.mkdir": Case(run=lambda p: (p.root / "a" / "b").mkdir(parents=True), event="os.mkdir"),
    "os.rmdir": Case(run=lambda p: os.rmdir(p.empty_dir), event="os.rmdir"),
    "os.truncate": Case(run=lambda p: os.truncate(p.existing, 0), event="os.truncate"),
    "os.chmod": Case(run=lambda p: os.chmod(p.existing, 0o600), event="os.chmod"),
    "os.symlink": Case(run=lambda p: os.symlink(p.existing, p.root / "ln"), event="os.symlink"),
    "shutil.rmtree": Case(run=lambda p: shutil.rmtree(p.tree), event="shutil.rmtree"),
    "shutil.copy": Case(
        run=lambda p: shutil.copy(p.existing, p.root / "copy"), event="shutil.copyfile"
    ),
    "shutil.copytree": Case(
        run=lambda p: shutil.copytree(p.tree, p.root / "tree2"), event="shutil.copytree"
    ),
    "shutil.move": Case(run=lambda p: shutil.move(p.existing, p.root / "m"), event="shutil.move"),
    "subprocess.run": Case(
        run=lambda p: subprocess.run([sys.executable, "-c", "pass"], check=True),
        event="subprocess.Popen",
    ),
    "os.system": Case(run=lambda p: os.system("true"), event="os.system"),
    "os.execv": Case(
        run=lambda p: os.execv("/nonexistent/program", ["program"]), event="os.exec", outside=False
    ),
    "os.posix_spawn": Case(run=_posix_spawn, event="os.posix_spawn"),
    "os.fork": Case(run=_fork, event="os.fork"),
    "socket.connect": Case(run=_connect, event="socket.connect"),
    "socket.create_connection": Case(run=_create_connection, event="socket.connect"),
    "socket.sendto": Case(run=_sendto, event="socket.sendto"),
    "socket.bind": Case(run=_bind, event="socket.bind"),
    "urllib.request.urlopen": Case(run=_urlopen, event="urllib.Request"),
    "http.client": Case(run=_http_client, event="http.client.connect"),
    "ctypes.CDLL": Case(run=_ctypes_lookup, event="ctypes.dlopen"),
    "ctypes function lookup": Case(run=lambda p: _LIBC["getppid"], event="ctypes.dlsym"),
    "ctypes raw memory": Case(run=_ctypes_memory, event="ctypes.cdata"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_blocked_inside_the_guard(name: str, playground: Playground) -> None:
    """Each operation is refused inside the guard, recorded, and leaves the files as they were."""
    case = CASES[name]
    before = playground.snapshot()
    with read_only_guard() as guard, pytest.raises(ReadOnlyViolation) as refused:
        case.run(playground)
    assert refused.value.event == case.event
    assert str(refused.value).startswith("A query may only read: it tried to ")
    assert guard.violated
    assert guard.violations[-1] is refused.value  # Path.touch tries os.utime first, quietly
    assert isinstance(refused.value, OSError)  # so that the stdlib cleans up as after EPERM
    assert playground.snapshot() == before


@pytest.mark.parametrize("name", [name for name, case in CASES.items() if case.outside])
def test_allowed_outside_the_guard(name: str, playground: Playground) -> None:
    """The same operation works when no guard is active, with the hook installed."""
    CASES[name].run(playground)


def test_message_names_what_was_tried(playground: Playground) -> None:
    """The refusal is a sentence naming the operation and its target."""
    target = playground.root / "report.csv"
    with read_only_guard(), pytest.raises(ReadOnlyViolation) as refused:
        target.write_text("x")
    assert str(refused.value) == f"A query may only read: it tried to open {target} for writing."


def test_messages_for_processes_and_sockets(playground: Playground) -> None:
    """Processes and sockets are named in their refusals too."""
    with read_only_guard() as guard:
        with pytest.raises(ReadOnlyViolation, match="run the shell command 'echo hi'"):
            os.system("echo hi")
        with pytest.raises(ReadOnlyViolation, match=f"start the program {sys.executable}"):
            subprocess.run([sys.executable, "-c", "pass"], check=False)
        host, port = playground.http_address
        with pytest.raises(ReadOnlyViolation, match=f"connect to {host}:{port}"):
            _connect(playground)
    assert [v.event for v in guard.violations] == ["os.system", "subprocess.Popen", "socket.connect"]


def test_a_swallowed_refusal_still_counts(playground: Playground) -> None:
    """A query that catches the refusal and returns normally still leaves the guard violated."""

    def sneaky_query() -> str:
        # written the way such code is found in the wild, not with contextlib.suppress
        try:  # noqa: SIM105
            (playground.root / "audit.log").write_text("looked")
        except Exception:
            pass
        try:  # noqa: SIM105
            os.system("true")
        except BaseException:
            pass
        return "nothing to see"

    with read_only_guard() as guard:
        result = sneaky_query()
    assert result == "nothing to see"
    assert guard.violated
    assert [v.event for v in guard.violations] == ["open", "os.system"]
    assert not (playground.root / "audit.log").exists()


def test_reading_is_allowed(playground: Playground) -> None:
    """Reads of every kind pass: files, directories, stat, name lookups, serialisation."""
    import json

    from pydantic import TypeAdapter

    with read_only_guard() as guard:
        assert playground.existing.read_text() == "hello"
        with open(playground.existing, "rb") as file:
            assert file.read() == b"hello"
        assert sorted(os.listdir(playground.root)) == ["empty", "existing.txt", "tree"]
        assert os.stat(playground.existing).st_size == 5
        assert [p.name for p in playground.tree.iterdir()] == ["leaf.txt"]
        assert socket.getaddrinfo("127.0.0.1", 80)
        assert json.loads(json.dumps({"a": [1]})) == {"a": [1]}
        assert TypeAdapter(list[int]).validate_python(["1", 2]) == [1, 2]
    assert not guard.violated


def test_other_threads_are_not_guarded(playground: Playground) -> None:
    """A guard in one thread leaves another thread, running at the same time, free to write."""
    guarded_inside, other_done = threading.Event(), threading.Event()
    outcome: dict[str, object] = {}

    def normal_action() -> None:
        guarded_inside.wait(5)
        try:
            (playground.root / "other.txt").write_text("written")
            outcome["other"] = "wrote"
        except ReadOnlyViolation as error:
            outcome["other"] = error
        other_done.set()

    other = threading.Thread(target=normal_action)
    other.start()
    with read_only_guard() as guard:
        guarded_inside.set()
        assert other_done.wait(5)
        with pytest.raises(ReadOnlyViolation):
            (playground.root / "mine.txt").write_text("no")
    other.join()
    assert outcome["other"] == "wrote"
    assert (playground.root / "other.txt").read_text() == "written"
    assert [v.event for v in guard.violations] == ["open"]


def test_tasks_are_guarded_one_by_one(playground: Playground) -> None:
    """Among asyncio tasks running together, only the guarded one is refused."""

    async def query() -> Guard:
        with read_only_guard() as guard:
            await asyncio.sleep(0)
            with contextlib.suppress(ReadOnlyViolation):
                (playground.root / "query.txt").write_text("no")
            await asyncio.sleep(0)
        return guard

    async def action() -> None:
        await asyncio.sleep(0)
        (playground.root / "action.txt").write_text("yes")

    async def both() -> Guard:
        guard, _ = await asyncio.gather(query(), action())
        return guard

    guard = asyncio.run(both())
    assert guard.violated
    assert (playground.root / "action.txt").exists()
    assert not (playground.root / "query.txt").exists()


def test_nested_guards(playground: Playground) -> None:
    """An inner guard's refusal is recorded in the outer one too; leaving both lifts the block."""
    with read_only_guard() as outer:
        with read_only_guard() as inner, pytest.raises(ReadOnlyViolation):
            os.remove(playground.existing)
        with pytest.raises(ReadOnlyViolation):
            os.mkdir(playground.root / "still-guarded")
    assert [v.event for v in inner.violations] == ["os.remove"]
    assert [v.event for v in outer.violations] == ["os.remove", "os.mkdir"]
    os.mkdir(playground.root / "free-again")


def test_unguarded_lifts_the_guard_for_its_block(playground: Playground) -> None:
    """signoff's own bookkeeping inside a guarded call can write, without a violation."""
    with read_only_guard() as guard:
        with unguarded():
            (playground.root / "run-record.json").write_text("{}")
        with pytest.raises(ReadOnlyViolation):
            (playground.root / "query.json").write_text("{}")
    assert [v.event for v in guard.violations] == ["open"]


def test_importing_a_module_inside_the_guard(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first import during a query works, is no violation, and writes no bytecode cache."""
    (tmp_path / "fresh_module_for_readonly.py").write_text("ANSWER = 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "fresh_module_for_readonly", raising=False)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    with read_only_guard() as guard:
        import fresh_module_for_readonly  # type: ignore[import-not-found]

    assert fresh_module_for_readonly.ANSWER == 42
    assert not guard.violated
    assert not (tmp_path / "__pycache__").exists()
    sys.modules.pop("fresh_module_for_readonly", None)


def test_logging_to_a_file_inside_the_guard(tmp_path: Path) -> None:
    """Log handlers keep working during a query: their writes are the app's logging, not it."""
    log_file = tmp_path / "app.log"
    handler = logging.FileHandler(log_file, delay=True)  # opens the file on the first record
    logger = logging.getLogger("signoff.tests.readonly")
    logger.addHandler(handler)
    try:
        with read_only_guard() as guard:
            logger.warning("looked up %s", "parts")
    finally:
        logger.removeHandler(handler)
        handler.close()
    assert log_file.read_text() == "looked up parts\n"
    assert not guard.violated


# --- Read-only sessions ----------------------------------------------------------------------


class Base(DeclarativeBase):
    """The test's own tables."""


class Item(Base):
    """A row to read, and to try to write."""

    __tablename__ = "readonly_items"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(50))


@pytest.fixture(params=["sqlite-memory", "sqlite-file", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    """A Database of each kind signoff supports, with one Item in it."""
    if request.param == "sqlite-memory":
        url = "sqlite://"
    elif request.param == "sqlite-file":
        url = f"sqlite:///{tmp_path / 'app.db'}"
    else:
        url = request.getfixturevalue("postgres_database")
    database = Database(url)
    database.holds(Base.metadata)
    database.ensure_schema()
    with Session(database.engine) as session, session.begin():
        session.add(Item(id=1, name="brake pads"))
    try:
        yield database
    finally:
        database.dispose()


def _read_only_session(database: Database) -> Session:
    session = Session(database.engine)
    make_session_read_only(session)
    return session


def _names(database: Database) -> list[str]:
    with Session(database.engine) as session:
        return list(session.scalars(select(Item.name).order_by(Item.id)))


def test_read_only_session_reads(database: Database) -> None:
    """A read-only session reads as any other."""
    with _read_only_session(database) as session:
        assert session.scalars(select(Item.name)).all() == ["brake pads"]
        assert session.get(Item, 1) is not None


@pytest.mark.parametrize(
    ("statement", "verb"),
    [
        ("INSERT INTO readonly_items (id, name) VALUES (2, 'cable')", "INSERT"),
        ("UPDATE readonly_items SET name = 'worn pads' WHERE id = 1", "UPDATE"),
        ("DELETE FROM readonly_items", "DELETE"),
    ],
    ids=["insert", "update", "delete"],
)
def test_raw_sql_writes_are_refused(database: Database, statement: str, verb: str) -> None:
    """The database itself refuses a write sent as SQL, and the refusal is a ReadOnlyViolation."""
    with _read_only_session(database) as session, pytest.raises(ReadOnlyViolation) as refused:
        session.execute(text(statement))
    assert refused.value.event == "sql"
    assert str(refused.value).startswith(f"A query may only read: it tried to write to the database ({verb} ")
    assert refused.value.__cause__ is not None  # the driver's own error, kept for the log
    assert _names(database) == ["brake pads"]


def test_orm_bulk_update_is_refused(database: Database) -> None:
    """An ORM-enabled UPDATE statement goes straight to SQL, and is refused there."""
    with _read_only_session(database) as session, pytest.raises(ReadOnlyViolation):
        session.execute(update(Item).values(name="x"))
    assert _names(database) == ["brake pads"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s: s.add(Item(id=2, name="cable")), "save a new Item to the database"),
        (lambda s: setattr(s.get(Item, 1), "name", "x"), "save a changed Item to the database"),
        (lambda s: s.delete(s.get(Item, 1)), "save a deleted Item to the database"),
    ],
    ids=["add", "change", "delete"],
)
def test_orm_flushes_are_refused(
    database: Database, change: Callable[[Session], object], message: str
) -> None:
    """A flush with pending changes is refused before any SQL is sent, committing included."""
    with _read_only_session(database) as session:
        change(session)
        with pytest.raises(ReadOnlyViolation, match=message) as refused:
            session.commit()
    assert refused.value.event == "flush"
    assert _names(database) == ["brake pads"]


def test_several_pending_changes_are_listed(database: Database) -> None:
    """The refusal lists every kind of change the flush held."""
    with _read_only_session(database) as session:
        session.get_one(Item, 1).name = "changed"
        session.add_all([Item(id=2, name="a"), Item(id=3, name="b")])
        with pytest.raises(ReadOnlyViolation) as refused:
            session.flush()
    assert str(refused.value) == (
        "A query may only read: it tried to save 2 new Item records and a changed Item "
        "to the database."
    )


def test_a_change_never_flushed_is_refused_on_request(database: Database) -> None:
    """refuse_pending_changes catches what a query changed without flushing it."""
    with _read_only_session(database) as session:
        refuse_pending_changes(session)  # nothing yet
        session.get_one(Item, 1).name = "changed"
        with read_only_guard() as guard, pytest.raises(ReadOnlyViolation, match="a changed Item"):
            refuse_pending_changes(session)
    assert guard.violated


def test_session_refusals_are_recorded_in_the_guard(database: Database) -> None:
    """A query that swallows the database's refusal still leaves the guard violated."""
    with read_only_guard() as guard, _read_only_session(database) as session:
        with contextlib.suppress(Exception):
            session.execute(text("DELETE FROM readonly_items"))
        session.rollback()
        with contextlib.suppress(Exception):
            session.add(Item(id=9, name="sneaky"))
            session.flush()
    assert [v.event for v in guard.violations] == ["sql", "flush"]
    assert _names(database) == ["brake pads"]


def test_writes_work_again_after_a_read_only_session(database: Database) -> None:
    """A normal session after the read-only one (the same pooled connection, in memory) writes."""
    with _read_only_session(database) as session:
        assert session.scalars(select(Item.name)).all() == ["brake pads"]
        with pytest.raises(ReadOnlyViolation):
            session.execute(text("INSERT INTO readonly_items (id, name) VALUES (5, 'x')"))
    with Session(database.engine) as session, session.begin():
        if database.is_sqlite:
            assert session.execute(text("PRAGMA query_only")).scalar() == 0
        session.add(Item(id=2, name="cable"))
    with database.connect() as connection:
        connection.execute(text("UPDATE readonly_items SET name = 'pads' WHERE id = 1"))
    assert _names(database) == ["pads", "cable"]


def test_each_transaction_of_a_read_only_session_is_read_only(database: Database) -> None:
    """After a commit the session's next transaction is read-only too."""
    with _read_only_session(database) as session:
        session.scalars(select(Item)).all()
        session.commit()
        with pytest.raises(ReadOnlyViolation):
            session.execute(text("DELETE FROM readonly_items"))
        session.rollback()
        with pytest.raises(ReadOnlyViolation):
            session.execute(text("DELETE FROM readonly_items"))
    assert _names(database) == ["brake pads"]


def test_made_read_only_after_it_began(database: Database) -> None:
    """A session that already read (its subject loaded, say) becomes read-only at once."""
    with Session(database.engine) as session:
        item = session.get_one(Item, 1)
        make_session_read_only(session)
        make_session_read_only(session)  # twice changes nothing
        with pytest.raises(ReadOnlyViolation):
            session.execute(text("UPDATE readonly_items SET name = 'x'"))
        session.rollback()
        item.name = "changed"
        with pytest.raises(ReadOnlyViolation):
            session.flush()
    assert _names(database) == ["brake pads"]


def test_a_session_bound_to_a_connection_gives_it_back_writable(tmp_path: Path) -> None:
    """A session on a connection it did not open leaves that connection writable when done."""
    database = Database(f"sqlite:///{tmp_path / 'bound.db'}")
    database.holds(Base.metadata)
    database.ensure_schema()
    try:
        with database.engine.connect() as connection:
            with Session(bind=connection) as session:
                make_session_read_only(session)
                with pytest.raises(ReadOnlyViolation):
                    session.execute(text("INSERT INTO readonly_items (id, name) VALUES (1, 'x')"))
            assert connection.exec_driver_sql("PRAGMA query_only").scalar() == 0
            connection.exec_driver_sql("INSERT INTO readonly_items (id, name) VALUES (1, 'x')")
            connection.commit()
        assert _names(database) == ["x"]
    finally:
        database.dispose()


def test_a_guarded_query_opens_new_connections(database: Database) -> None:
    """Opening a fresh pooled connection inside the guard works: drivers connect through C."""
    if database.file is not None or not database.is_sqlite:
        database.dispose()  # empty the pool (not in memory: that one connection is the database)
    with read_only_guard() as guard, _read_only_session(database) as session:
        assert session.scalar(select(func.count()).select_from(Item)) == 1
    assert not guard.violated


def test_the_hook_is_added_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Entering guards again and again adds no second audit hook (hooks cannot be removed)."""
    added: list[object] = []
    monkeypatch.setattr(sys, "addaudithook", added.append)
    for _ in range(3):
        with read_only_guard():
            pass
    assert added == []


def test_a_missing_postgresql_server_fails_and_names_the_fix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without the server binaries the PostgreSQL tests fail, pointing at the install script."""
    from tests import postgres_server

    monkeypatch.setattr(postgres_server.glob, "glob", lambda pattern: [])
    with pytest.raises(pytest.fail.Exception, match="scripts/install-test-deps"):
        postgres_server._server_binaries()


def test_on_an_in_memory_database_a_write_after_a_query_is_not_refused() -> None:
    """An app on an in-memory SQLite database (one connection for everything) runs a query,
    then an action that writes: the write is kept (before, the connection the query gave back
    stayed read-only, and the write failed as if the query had tried it)."""
    from signoff import ActionOutcome
    from tests.provenance_scenarios.world import make_world

    w = make_world("sqlite://")
    try:
        app, owner = w["app"], w["owner"]
        assert app.actions.run("read_email", {"number": 31}, as_=owner).done
        paid = app.actions.run("transfer", {"iban": "DE89 3704 0044 0532 0130 00",
                                            "amount": 850, "memo": "rent"}, as_=owner)
        assert paid.outcome is ActionOutcome.DONE, paid.problem
        assert app.actions.run("read_email", {"number": 32}, as_=owner).done
    finally:
        w["app"].database.dispose()
