"""The app's records beside signoff's tables: each side's migrations leave the other's alone."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from sqlalchemy import String, create_engine, inspect, text
from sqlalchemy.orm import Mapped, mapped_column

from signoff import App
from signoff.store.migrate import current_revision, head_revision, include_name
from signoff.store.tables import metadata

_ENV = """\
from alembic import context

from signoff.store.migrate import current_revision, head_revision, include_name
from signoff.store.tables import metadata

app = context.config.attributes["app"]
with app.database.engine.connect() as connection:
    context.configure(connection=connection, target_metadata=app.Record.metadata,
                      include_name=include_name)
    with context.begin_transaction():
        context.run_migrations()
"""


def _app(url: str) -> App:
    app = App("shop", database=url)

    class Repair(app.Record):  # type: ignore[name-defined, misc]
        """A repair, the app's own record."""

        ticket: Mapped[str] = mapped_column(String(20))

    return app


def test_an_apps_autogenerate_sees_its_records_and_not_signoffs_tables(database: str) -> None:
    """Compared with the app's records' metadata, a database holding them and signoff's tables
    differs in nothing when `include_name` is given; without it, every signoff table (and its
    version table) is one to drop."""
    app = _app(database)
    try:
        app.people.add("noor@x.example", "Noor")  # signoff's tables made, and the app's
        with app.database.engine.connect() as connection:
            told = MigrationContext.configure(connection, opts={"include_name": include_name})
            assert compare_metadata(told, app.Record.metadata) == []
            untold = MigrationContext.configure(connection)
            dropped = {d[1].name for d in compare_metadata(untold, app.Record.metadata)
                       if d[0] == "remove_table"}
            assert {"signoff_tasks", "signoff_tokens", "signoff_alembic_version"} <= dropped
    finally:
        app.database.dispose()


def test_an_apps_own_revision_makes_its_records_alone(tmp_path: Path) -> None:
    """`alembic revision --autogenerate` in an app's own migrations (its env.py giving
    `include_name`), on a database signoff has migrated, writes the app's new table and
    nothing of signoff's; upgraded with it, signoff still opens the database."""
    url = f"sqlite:///{tmp_path / 'shop.db'}"
    App("shop", database=url).people.add("noor@x.example", "Noor")  # before the record class
    (tmp_path / "migrations" / "versions").mkdir(parents=True)
    (tmp_path / "migrations" / "env.py").write_text(_ENV)
    template = Path(command.__file__).parent / "templates" / "generic" / "script.py.mako"
    (tmp_path / "migrations" / "script.py.mako").write_text(template.read_text())
    config = Config()
    config.set_main_option("script_location", str(tmp_path / "migrations"))
    app = App("shop", database=url)  # (not opened: the record's table is not made)
    config.attributes["app"] = app
    try:

        class Repair(app.Record):  # type: ignore[name-defined, misc]
            """A repair, the app's own record."""

            ticket: Mapped[str] = mapped_column(String(20))

        command.revision(config, message="repairs", autogenerate=True)
        (script,) = (tmp_path / "migrations" / "versions").glob("*_repairs.py")
        made = script.read_text()
        assert "op.create_table('repair'" in made
        assert "signoff_" not in made
        command.upgrade(config, "head")
        assert app.people.find("noor@x.example") is not None
    finally:
        app.database.dispose()


def test_a_database_made_before_migrations_is_adopted_beside_the_apps_records(
        tmp_path: Path) -> None:
    """signoff's tables made before they were migrated (by a development version), beside the
    app's records, are adopted and brought up to date, the records kept (the records' table
    was taken for a signoff table that differs from the released ones, and the database
    refused: "Move the database aside")."""
    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = create_engine(url)
    try:
        with engine.begin() as connection:
            metadata.create_all(connection)
            connection.execute(text("CREATE TABLE repair (id CHAR(32) PRIMARY KEY, "
                                    "ticket VARCHAR(20) NOT NULL)"))
            connection.execute(text("INSERT INTO repair VALUES ('0' , 'T-7')"))
    finally:
        engine.dispose()
    app = _app(url)
    try:
        assert app.people.all() == []
        with app.database.engine.connect() as connection:
            assert current_revision(connection) == head_revision()
            assert connection.execute(text("SELECT ticket FROM repair")).scalar() == "T-7"
            assert "signoff_tasks" in inspect(connection).get_table_names()
    finally:
        app.database.dispose()
