"""Signoff's own tables are made by Alembic migrations, and the migrations match the tables."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect

import signoff.app  # noqa: F401 — every table of signoff's is declared on the metadata
from signoff import App
from signoff.store.migrate import VERSION_TABLE, current_revision, head_revision, upgrade
from signoff.store.tables import metadata


def _head() -> str:
    """The newest revision the migrations know."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    import signoff.store

    config = Config()
    config.set_main_option("script_location", str(Path(signoff.store.__file__).parent / "migrations"))
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None
    return head


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty database: a SQLite file, or a PostgreSQL database of its own."""
    if request.param == "postgres":
        return str(request.getfixturevalue("postgres_database"))
    return f"sqlite:///{tmp_path / 'fresh.db'}"


def test_the_migrations_make_exactly_the_declared_tables(url: str) -> None:
    """Upgraded to the newest revision, the database holds exactly what tables.py declares:
    a table added without a migration fails here."""
    engine = create_engine(url)
    try:
        with engine.begin() as connection:
            upgrade(connection)
        with engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"version_table": VERSION_TABLE})
            assert compare_metadata(context, metadata) == []
            assert current_revision(connection) == _head()
    finally:
        engine.dispose()


def test_an_app_upgrades_its_database_once_and_keeps_its_records(tmp_path: Path) -> None:
    """Opening an app migrates signoff's tables; opening it again finds them at the newest
    revision and its people still there."""
    url = f"sqlite:///{tmp_path / 'shop.db'}"
    App("shop", database=url).people.add("a@x.example", "Ann")
    again = App("shop", database=url)
    assert again.people.find("a@x.example") is not None
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            assert current_revision(connection) == _head()
            assert inspect(connection).has_table("signoff_tasks")
    finally:
        engine.dispose()


def test_a_database_made_before_migrations_is_adopted(tmp_path: Path) -> None:
    """Tables made by an earlier development version (create_all, an index missing) are
    completed and stamped, and nothing in them is lost."""
    from sqlalchemy import text

    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = create_engine(url)
    try:
        with engine.begin() as connection:
            metadata.create_all(connection)
            connection.execute(text("DROP INDEX signoff_proposals_status"))
            connection.execute(text(
                "INSERT INTO signoff_principals (id, handle, name, kind, roles, disabled) "
                "VALUES ('p1', 'old@x.example', 'Old', 'person', '[]', 0)"))
    finally:
        engine.dispose()
    app = App("old", database=url)
    assert app.people.find("old@x.example") is not None
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            assert current_revision(connection) == _head()
            indexes = {i["name"] for i in inspect(connection).get_indexes("signoff_proposals")}
            assert "signoff_proposals_status" in indexes
    finally:
        engine.dispose()


def test_a_database_too_different_to_adopt_is_refused_in_words(tmp_path: Path) -> None:
    """Old tables that differ from the released ones are not touched: a UserError says to move
    the database aside."""
    from sqlalchemy import text

    from signoff import UserError

    url = f"sqlite:///{tmp_path / 'odd.db'}"
    engine = create_engine(url)
    try:
        with engine.begin() as connection:
            metadata.create_all(connection)
            connection.execute(text("ALTER TABLE signoff_tasks ADD COLUMN messages TEXT"))
    finally:
        engine.dispose()
    with pytest.raises(UserError, match="Move the database aside"):
        App("odd", database=url).people.all()


def _at_a_revision_elsewhere(tmp_path: Path) -> str:
    """The URL of a database another version of signoff brought to a revision this one lacks."""
    from sqlalchemy import text

    url = f"sqlite:///{tmp_path / 'newer.db'}"
    App("newer", database=url).people.all()
    engine = create_engine(url)
    try:
        with engine.begin() as connection:
            connection.execute(text(f"UPDATE {VERSION_TABLE} SET version_num = '9999_elsewhere'"))
    finally:
        engine.dispose()
    return url


def test_a_revision_this_signoff_does_not_know_is_told(tmp_path: Path) -> None:
    """A database another version of signoff brought to a revision this one lacks is refused in
    a sentence (UserError), not with Alembic's error."""
    from signoff import UserError

    url = _at_a_revision_elsewhere(tmp_path)
    with pytest.raises(UserError, match="at revision '9999_elsewhere', which this version of "
                                        "signoff does not know"):
        App("newer", database=url).people.all()


def test_a_command_with_a_bad_token_tells_the_unknown_revision_first(tmp_path: Path) -> None:
    """Any command refuses a database at a revision this signoff does not know, in a sentence
    naming it, exit 2 (as upgrading.md says), a bad token given or not: the token's refusal
    (exit 4) came first, as a malformed token needs no database to refuse."""
    from click.testing import CliRunner

    from signoff.cli import main

    url = _at_a_revision_elsewhere(tmp_path)
    (tmp_path / "newer.py").write_text(f"from signoff import App\napp = App('newer', database={url!r})\n")
    for who in (["--token", "so_bogus"], ["--as", "nobody@x.example"]):
        result = CliRunner().invoke(main, ["proposals", "--app", f"{tmp_path / 'newer.py'}:app",
                                           *who])
        assert result.exit_code == 2, result.output
        assert "at revision '9999_elsewhere', which this version of signoff does not know" in (
            result.output)


def test_the_newest_revision_read_from_the_scripts_is_alembics(tmp_path: Path) -> None:
    """The head read from the scripts' text is the one Alembic finds; a database at it is
    opened, and its people read, by a process that never imports Alembic."""
    import subprocess
    import sys

    assert head_revision() == _head()
    url = f"sqlite:///{tmp_path / 'shop.db'}"
    App("shop", database=url).people.add("a@x.example", "Ann")
    script = ("import sys\nfrom signoff import App\n"
              f"found = App('shop', database={url!r}).people.find('a@x.example')\n"
              "print(found.name, 'alembic' in sys.modules)\n")
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, check=False)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split() == ["Ann", "False"]


def test_a_database_behind_the_scripts_is_still_upgraded_by_alembic(tmp_path: Path) -> None:
    """A database stamped at the first revision is brought to the newest one."""
    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = create_engine(url)
    try:
        with engine.begin() as connection:
            upgrade(connection, "0001")
            assert current_revision(connection) == "0001"
        with engine.begin() as connection:
            upgrade(connection)
        with engine.connect() as connection:
            assert current_revision(connection) == _head()
            context = MigrationContext.configure(connection, opts={"version_table": VERSION_TABLE})
            assert compare_metadata(context, metadata) == []
    finally:
        engine.dispose()


def _taken_back(url: str, revision: str, table: str) -> tuple[set[str], set[str]]:
    """Take signoff's tables at `url` back to `revision`; the columns and indexes `table` then
    has."""
    from signoff.store.migrate import downgrade

    engine = create_engine(url)
    try:
        with engine.begin() as connection:
            downgrade(connection, revision)
        with engine.connect() as connection:
            found = inspect(connection)
            return ({c["name"] for c in found.get_columns(table)},
                    {str(i["name"]) for i in found.get_indexes(table)})
    finally:
        engine.dispose()


def test_a_task_waiting_before_the_upgrade_resumes_and_finishes_after_it(
        database: str, tmp_path: Path) -> None:
    """A task left waiting on a proposal in tables of the first revision (the task head with no
    holder, fence or reservation) is upgraded with them, and the yes given afterwards runs its
    call and lets it finish."""
    from signoff import TaskStatus
    from signoff.testing import ScriptedModel, says
    from tests.guarantees_app import Report, build

    shop = build(database, tmp_path)
    model = ScriptedModel(says.tool(shop.set_level, box=shop.box.id, level=7),
                          says.hand_back(Report(summary="Levelled.")))
    waiting = shop.app.agent(shop.Clerk).do(shop.Tend(), None, model=model)
    assert waiting.status is TaskStatus.WAITING
    shop.app.database.dispose()
    columns, _ = _taken_back(database, "0001", "signoff_tasks")
    assert "fence" not in columns
    again = build(database, tmp_path)  # opening the app upgrades its tables
    (proposal,) = again.app.proposals(task=waiting.task)
    again.app.approve(proposal, by=again.noor)
    again.app.worker(model_for=lambda _agent, _task: model).run_once()
    assert again.app.outcome(waiting.task).status is TaskStatus.DONE
    with again.app.session(as_=again.app.system) as s:
        assert s.get(again.Box, again.box.id).level == 7
    again.app.database.dispose()


def test_proposals_made_before_deadlines_wait_without_one_after_the_upgrade(
        database: str) -> None:
    """Revision 0006 adds proposals' deadlines: taken back to 0005 the columns are gone; brought
    forward again, a proposal made with a deadline before has none (it waits as long as it
    takes), no deadline falls due, and the yes given afterwards runs it."""
    from datetime import timedelta

    from signoff import ProposalStatus, TaskStatus
    from tests.deadlines_app import build, runs, script

    shop = build(database)
    model = script(shop)
    waiting = shop.app.agent(shop.Clerk).do(shop.PriceTicket(), None, for_=shop.mia, model=model)
    (proposal,) = shop.app.proposals(task=waiting.task)
    assert proposal.deadline_at is not None
    shop.app.database.dispose()
    columns, indexes = _taken_back(database, "0005_issue14", "signoff_proposals")
    assert not columns & {"deadline_at", "escalations", "escalated_at"}
    assert "signoff_proposals_deadline" not in indexes
    again = build(database)  # opening the app upgrades its tables
    upgraded = again.app.proposal(proposal.id)
    assert (upgraded.deadline_at, upgraded.escalations, upgraded.escalated_at) == (None, 0, None)
    assert again.app.pass_deadlines(now=proposal.deadline_at + timedelta(days=365)) == []
    assert again.app.approve(upgraded, by=again.noor).status is ProposalStatus.DONE
    again.app.worker(model_for=lambda _agent, _task: model).run_once()
    assert again.app.outcome(waiting.task).status is TaskStatus.DONE
    assert runs(again) == 1
    again.app.database.dispose()


def test_a_sqlite_file_with_a_waiting_task_goes_back_and_forward_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The upgrading guide's "Going back", on an app's own SQLite file (foreign keys on) that
    holds a task waiting on a proposal: the downgrade makes tables anew, and checks the foreign
    keys once, at its end (it failed at its first rebuilt table, "FOREIGN KEY constraint
    failed", on any file holding a task); upgraded again, the proposal is approved and runs.
    Given a transaction already begun, it says what to give it instead, and changes nothing."""
    from signoff import ProposalStatus
    from signoff.exceptions import UserError
    from signoff.store.migrate import downgrade
    from tests.workshop_web import open_workshop, price

    shop = open_workshop(tmp_path, monkeypatch)
    (proposal,) = shop.app.proposals(task=price(shop))
    engine = shop.app.database.engine
    with pytest.raises(UserError, match="no transaction begun"), engine.begin() as connection:
        downgrade(connection, "0006_issue15")
    with pytest.raises(UserError, match=r"There is no revision '0099_nope' of signoff's tables "
                       r"to go back to: they are, oldest first, 0001, 0002_issue16, "), \
            engine.connect() as connection:  # (it was Alembic's CommandError)
        downgrade(connection, "0099_nope")
    with engine.connect() as connection:
        downgrade(connection, "0006_issue15")
        assert current_revision(connection) == "0006_issue15"
        assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1  # on again
    with engine.begin() as connection:
        upgrade(connection)
        assert current_revision(connection) == _head()
    assert shop.app.proposal(proposal).status is ProposalStatus.WAITING
    decided = shop.app.approve(proposal, by=shop.noor)
    assert decided.status is ProposalStatus.DONE, decided.said


def test_going_back_as_the_upgrading_guide_writes_it(url: str) -> None:
    """The guide's "Going back", as written, on both databases: a downgrade given a connection
    with no transaction begun is committed, and the next opening goes forward again."""
    from signoff.store.migrate import downgrade

    app = App("guide", database=url)
    try:
        app.database.ensure_schema()
        with app.database.engine.connect() as connection:
            downgrade(connection, "0006_issue15")
            assert current_revision(connection) == "0006_issue15"
        with app.database.engine.connect() as connection:  # kept: it was committed
            assert current_revision(connection) == "0006_issue15"
        with app.database.engine.begin() as connection:
            upgrade(connection)
            assert current_revision(connection) == head_revision()
    finally:
        app.database.dispose()


def test_a_database_has_one_identity_made_once_and_kept(url: str, tmp_path: Path) -> None:
    """Revision 0010 keeps a database's identity: made the first time it is asked for, the same
    to every process after (three asking at once for the first time agree), another database's
    is another; taken back to 0009 the table is gone, and forward again a new one is made."""
    import subprocess
    import sys

    from signoff.store.identity import database_id, forget_identity
    from signoff.store.migrate import downgrade

    script = ("import sys\nfrom signoff import App\nfrom signoff.store.identity import "
              "database_id\nprint(database_id(App('shop', database=sys.argv[1]).database))\n")
    def opened(at: str) -> App:
        app = App("shop", database=at)
        opened_apps.append(app)
        return app

    opened_apps: list[App] = []
    try:
        opened(url).database.ensure_schema()
        asking = [subprocess.Popen([sys.executable, "-c", script, url], stdout=subprocess.PIPE,
                                   text=True) for _ in range(3)]
        told = {asked.communicate(timeout=120)[0].strip() for asked in asking}
        app = opened(url)
        made = database_id(app.database)
        assert told == {made}
        assert len(made) == 36
        assert database_id(opened(url).database) == made
        assert database_id(opened(f"sqlite:///{tmp_path / 'other.db'}").database) != made
        forget_identity(app.database)
        anew = database_id(app.database)
        assert anew != made
        for each in opened_apps:
            each.database.dispose()
        with app.database.engine.connect() as connection:
            downgrade(connection, "0009_runs")
            assert not inspect(connection).has_table("signoff_database")
        app.database.dispose()
        again = opened(url)  # opening it upgrades it
        assert database_id(again.database) not in (made, anew)
    finally:
        for each in opened_apps:
            each.database.dispose()


def test_a_database_a_development_version_stamped_with_a_retired_revision_is_upgraded(
        url: str) -> None:
    """A database stamped 0008_continues, as main stamped it for a day (its tables at 0007 with
    `signoff_tasks.continues_id`; the revision was replaced by 0008_work), is brought to the
    newest revision, the unused column left as it is (it was refused as one "a newer or
    different version made", and neither way back worked)."""
    from sqlalchemy import text

    engine = create_engine(url)
    try:
        with engine.begin() as connection:
            upgrade(connection, "0007_issue11")
            connection.execute(text("ALTER TABLE signoff_tasks ADD COLUMN continues_id "
                                    "VARCHAR(36)"))
            connection.execute(text(f"UPDATE {VERSION_TABLE} SET version_num = "
                                    "'0008_continues'"))
        with engine.begin() as connection:
            upgrade(connection)
        with engine.connect() as connection:
            assert current_revision(connection) == _head()
            context = MigrationContext.configure(connection, opts={"version_table": VERSION_TABLE})
            assert [(d[0], d[3].name) for d in compare_metadata(context, metadata)] == [
                ("remove_column", "continues_id")]
    finally:
        engine.dispose()


def test_a_revision_to_bring_the_tables_to_or_back_to_that_is_none_is_told(
        tmp_path: Path) -> None:
    """`upgrade` to a revision there is not says that the target is unknown (it said the
    database was at a revision "this version of signoff does not know", naming the newest);
    `downgrade` to one that is not text is told in a sentence (a TypeError)."""
    from signoff import UserError
    from signoff.store.migrate import downgrade

    engine = create_engine(f"sqlite:///{tmp_path / 'db.sqlite'}")
    try:
        with engine.begin() as connection:
            upgrade(connection)
            with pytest.raises(UserError, match=r"There is no revision 'garbage' of signoff's "
                                                r"tables to bring them to: they are, oldest "
                                                r"first, 0001, 0002_issue16, "):
                upgrade(connection, "garbage")
        with engine.connect() as connection:
            for wrong in (None, 42):
                with pytest.raises(UserError, match=r"A revision of signoff's tables is named "
                                                    r"in text"):
                    downgrade(connection, wrong)  # type: ignore[arg-type]
            assert current_revision(connection) == _head()
    finally:
        engine.dispose()
