"""A session acting as someone refuses SQLAlchemy's bulk methods on records
(`bulk_update_mappings`, `bulk_insert_mappings`, `bulk_save_objects`), as it refuses bulk
UPDATE, INSERT and DELETE statements: they write rows without a flush, so no record rule would
see them."""

import uuid
from collections.abc import Callable
from typing import Annotated, Any

import pytest
from sqlalchemy import String, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from signoff import ActionOutcome, App, NotAuthorized, Provided, allow, policy


def _secrets() -> Any:
    app = App("bulk", database="sqlite://")
    owns = policy.where(lambda p, r: r is None or r.owner == p.id, "owns it")

    class Secret(app.Record):  # type: ignore[name-defined, misc]
        owner: Mapped[str] = mapped_column(String(40))
        text: Mapped[str] = mapped_column(String(40))
        __security__ = [allow("read", "update", "create", "delete", when=owns)]

    @app.action("Rewrite secrets")
    def rewrite(session: Annotated[Session, Provided("session")], ident: str) -> str:
        session.bulk_update_mappings(Secret, [{"id": uuid.UUID(ident), "text": "pwned"}])
        return "Rewritten."

    ada = app.people.add("ada@bulk.example", "Ada")
    bo = app.people.add("bo@bulk.example", "Bo")
    with app.session(as_=app.system) as s:
        secret = Secret(owner=bo.id, text="hunter2")
        s.add(secret)
    return app, Secret, secret, ada, bo


_BULK: list[tuple[str, Callable[[Session, Any, Any, Any], None]]] = [
    ("change", lambda s, t, sec, bo: s.bulk_update_mappings(t, [{"id": sec.id, "text": "x"}])),
    ("create", lambda s, t, sec, bo: s.bulk_insert_mappings(
        t, [{"id": uuid.uuid4(), "owner": bo.id, "text": "planted"}])),
    ("create or change", lambda s, t, sec, bo: s.bulk_save_objects([t(owner=bo.id, text="y")])),
]


@pytest.mark.parametrize(("verb", "bulk"), _BULK, ids=[v for v, _ in _BULK])
def test_a_bulk_method_on_records_is_refused_as_someone(
        verb: str, bulk: Callable[[Session, Any, Any, Any], None]) -> None:
    """Ada may not change Bo's secret, nor make one in his name, through a bulk method (each
    wrote it, no rule asked); the app itself may."""
    app, secret_type, secret, ada, bo = _secrets()
    with pytest.raises(NotAuthorized, match=rf"^Ada may not {verb} Secret records in bulk"), \
            app.session(as_=ada) as s:
        bulk(s, secret_type, secret, bo)
    with app.session(as_=app.system) as s:
        assert [x.text for x in s.scalars(select(secret_type))] == ["hunter2"]
        bulk(s, secret_type, secret, bo)


def test_an_action_writing_records_in_bulk_is_denied() -> None:
    """An action that rewrites a record through `bulk_update_mappings` is Denied, and the
    record is as it was (it was Done, and Bo's secret rewritten by Ada)."""
    app, secret_type, secret, ada, _ = _secrets()
    result = app.actions.run("rewrite", {"ident": str(secret.id)}, as_=ada)
    assert result.outcome is ActionOutcome.DENIED, result.problem
    with app.session(as_=app.system) as s:
        assert s.get(secret_type, secret.id).text == "hunter2"
