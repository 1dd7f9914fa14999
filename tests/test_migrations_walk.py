"""Every revision of signoff's tables, taken back and brought forward one at a time, over a
database that holds work: nothing is lost, and the waiting task finishes."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine, create_engine, inspect, text

from signoff import TaskStatus
from signoff.store.migrate import (
    VERSION_TABLE,
    _known,
    _signoffs,
    current_revision,
    downgrade,
    head_revision,
    upgrade,
)
from signoff.store.tables import metadata
from signoff.testing import ScriptedModel, says
from tests.guarantees_app import Report, build


def _counts(engine: Engine) -> dict[str, int]:
    """How many rows each table holds."""
    with engine.connect() as connection:
        return {t: connection.execute(text(f"SELECT count(*) FROM {t}")).scalar_one()
                for t in inspect(connection).get_table_names()}


def test_each_revision_goes_back_and_forward_with_work_in_the_tables(
        database: str, tmp_path: Path) -> None:
    """A database holding people, tokens, a standing rule, a used consent, a finished task and
    one waiting on a proposal is taken back one revision at a time to the first, then brought
    forward one at a time: at each revision every table there holds the rows it held (the
    journal, rebuilt from the older tables, apart), the receipt reads as it did, the waiting
    task finishes once approved, and the tables match tables.py."""
    shop = build(database, tmp_path)
    done = shop.app.agent(shop.Clerk).do(shop.Tend(), None, model=ScriptedModel(
        says.tool(shop.raise_level, box=shop.box.id, by=1), says.hand_back(Report(summary="Up."))))
    assert done.status is TaskStatus.DONE
    model = ScriptedModel(says.tool(shop.set_level, box=shop.box.id, level=7),
                          says.hand_back(Report(summary="Levelled.")))
    waiting = shop.app.agent(shop.Clerk).do(shop.Tend(), None, model=model)
    assert waiting.status is TaskStatus.WAITING
    shop.app.allow_alone(shop.Clerk, shop.lift, by=shop.noor)
    shop.app.credentials.issue_token(shop.noor, "laptop")
    receipt = shop.app.receipt(done.task)
    with shop.app.database.engine.begin() as connection:
        connection.execute(text("INSERT INTO signoff_consents_used (nonce, action, principal_id, "
                                "used_at) VALUES ('n1', 'pay', :who, :at)"),
                           {"who": shop.noor.id, "at": datetime.now(UTC)})
    shop.app.database.dispose()
    engine = create_engine(database)
    try:
        held = _counts(engine)
        with engine.connect() as connection:
            revisions = list(reversed(_known(connection)))  # oldest first
        walk = [("down", r) for r in reversed(revisions[:-1])] + [("up", r) for r in revisions[1:]]
        for way, revision in walk:
            with engine.connect() as connection:
                if way == "down":
                    downgrade(connection, revision)
                else:
                    with connection.begin():
                        upgrade(connection, revision)
                assert current_revision(connection) == revision
            changed = {t: (held[t], n) for t, n in _counts(engine).items()
                       if t in held and n != held[t] and t != "signoff_steps"}
            assert changed == {}, (way, revision)
        assert revision == head_revision()
        with engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={
                "version_table": VERSION_TABLE, "include_name": _signoffs})  # (not the app's)
            assert compare_metadata(context, metadata) == []
    finally:
        engine.dispose()
    again = build(database, tmp_path)
    try:
        assert again.app.receipt(done.task) == receipt
        (proposal,) = again.app.proposals(task=waiting.task)
        again.app.approve(proposal, by=again.noor)
        again.app.worker(model_for=lambda _agent, _task: model).run_once()
        assert again.app.outcome(waiting.task).status is TaskStatus.DONE
        with again.app.session(as_=again.app.system) as s:
            assert s.get(again.Box, again.box.id).level == 7
    finally:
        again.app.database.dispose()
