"""The record rules cannot be gone around by an action's own code: a read through an eager load,
a value worked out beside a whole record, a condition on records a query does not load, a
record brought in from outside the session, a refresh, a bulk statement on an alias or within a
SELECT, an INSERT … SELECT, or a record taken by writing one's own name into it. Each is refused in words,
names none of the record's values, and keeps nothing; on SQLite and on PostgreSQL."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Annotated, Any

import pytest
from sqlalchemy import (
    Column,
    ForeignKey,
    String,
    Table,
    create_engine,
    delete,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.orm import (
    Mapped,
    Session,
    mapped_column,
    relationship,
    selectinload,
    subqueryload,
)

from signoff import ActionOutcome, App, NotAuthorized, Provided, allow, policy

_SESSION = Annotated[Session, Provided("session")]


def _vaults(database: str) -> SimpleNamespace:
    """Owners anyone reads, each with secrets only its owner reads and changes; notes anyone
    reads that only their owner changes or deletes; a table of no record; and actions whose
    own code reaches around those rules."""
    app = App("vaults", database=database, key=b"k" * 32)
    owns = policy.where(lambda p, r: r is None or r.owner == p.id, "owns it")

    class Owner(app.Record):  # type: ignore[name-defined, misc]
        name: Mapped[str] = mapped_column(String(40), unique=True)
        secrets: Mapped[list[Secret]] = relationship(back_populates="of")
        __security__ = [allow("read", when=policy.anyone)]

    class Secret(app.Record):  # type: ignore[name-defined, misc]
        owner: Mapped[str] = mapped_column(String(40))
        text: Mapped[str] = mapped_column(String(40), unique=True)
        of_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("owner.id"))
        of: Mapped[Owner] = relationship(back_populates="secrets")
        __security__ = [allow("read", "update", when=owns)]

    class Note(app.Record):  # type: ignore[name-defined, misc]
        owner: Mapped[str] = mapped_column(String(40))
        body: Mapped[str] = mapped_column(String(40))
        __security__ = [allow("read"), allow("update", "delete", when=owns)]

    copies = Table("copies", app.Record.metadata, Column("text", String(40)))

    @app.action("Read an owner's secrets, loaded with the owner")
    def selected_in(session: _SESSION, name: str) -> str:
        return ", ".join(s.text for s in session.scalars(
            select(Owner).where(Owner.name == name).options(selectinload(Owner.secrets))).one()
            .secrets)

    @app.action("Read an owner's secrets, loaded by a subquery")
    def subquery_loaded(session: _SESSION, name: str) -> str:
        return ", ".join(s.text for s in session.scalars(
            select(Owner).where(Owner.name == name).options(subqueryload(Owner.secrets))).one()
            .secrets)

    @app.action("Count an owner's secrets", query=True)
    def counted(session: _SESSION, name: str) -> str:
        count = select(func.count(Secret.id)).where(Secret.of_id == Owner.id).scalar_subquery()
        return str(session.execute(select(Owner, count).where(Owner.name == name)).one()[1])

    @app.action("An owner's first secret", query=True)
    def first_secret(session: _SESSION, name: str) -> str:
        text = select(Secret.text).where(Secret.of_id == Owner.id).limit(1).scalar_subquery()
        return str(session.execute(select(Owner, text).where(Owner.name == name)).one()[1])

    @app.action("Owners with a secret that starts so", query=True)
    def owners_by_secret(session: _SESSION, start: str) -> str:
        return ", ".join(o.name for o in session.scalars(
            select(Owner).where(Owner.secrets.any(Secret.text.startswith(start)))))

    @app.action("Secrets of an owner named so", query=True)
    def secrets_by_owner(session: _SESSION, name: str) -> str:
        return ", ".join(s.text for s in session.scalars(
            select(Secret).join(Owner).where(Owner.name == name)))

    @app.action("Reword the secrets")
    def reworded(session: _SESSION) -> str:
        session.execute(update(Secret.__table__.alias()).values(text="reworded"))
        return "Reworded."

    @app.action("Throw the secrets away")
    def thrown_away(session: _SESSION) -> str:
        session.execute(delete(Secret.__table__.alias()))
        return "Thrown away."

    @app.action("Owners whose secrets were reworded on the way")
    def reworded_within(session: _SESSION) -> str:
        reworded = update(Secret).values(text="reworded").returning(Secret.of_id).cte("reworded")
        return ", ".join(o.name for o in session.scalars(
            select(Owner).where(Owner.id.in_(select(reworded.c.of_id)))))

    @app.action("Copy the secrets")
    def copied(session: _SESSION) -> str:
        session.execute(insert(copies).from_select(["text"], select(Secret.text)))
        return "Copied."

    @app.action("Take a note as one's own")
    def taken(session: _SESSION, note: Note, me: str) -> str:
        note.owner = me
        note.body = "mine now"
        session.flush()
        return "Taken."

    @app.action("Take a note as one's own and delete it")
    def taken_away(session: _SESSION, note: Note, me: str) -> str:
        note.owner = me
        session.delete(note)
        session.flush()
        return "Gone."

    @app.action("Reword the cached secret")
    def reworded_cached(session: _SESSION, cached: Annotated[Secret, Provided("cached")]
                        ) -> str:
        session.add(cached)
        cached.text = "reworded"
        session.flush()
        return "Reworded."

    ada = app.people.add("ada@vaults.example", "Ada")
    bo = app.people.add("bo@vaults.example", "Bo")
    with app.session(as_=app.system) as s:
        owner = Owner(name="bo")
        secret = Secret(owner=bo.id, text="bo-pin-4711", of=owner)
        note = Note(owner=bo.id, body="Bo's")
        s.add_all([owner, secret, note])
    # What the app cached of Ada's secret: given to Bo since.
    with app.session(as_=app.system) as s:
        cached = s.get(Secret, secret.id)
    cached.owner = ada.id
    app.provide("cached", lambda: cached)
    return SimpleNamespace(app=app, ada=ada, bo=bo, owner=owner, secret=secret, note=note,
                           Secret=Secret, Note=Note, copies=copies, database=database)


@pytest.fixture
def vaults(database: str) -> Iterator[SimpleNamespace]:
    """The vaults on a SQLite file, or on a PostgreSQL database of the test's own."""
    v = _vaults(database)
    yield v
    v.app.database.dispose()


def _stored(v: SimpleNamespace) -> tuple[Any, ...]:
    """The secret, the note and the copies as the database holds them."""
    with v.app.session(as_=v.app.system) as s:
        secret, note = s.get(v.Secret, v.secret.id), s.get(v.Note, v.note.id)
        return ((secret.text, secret.owner) if secret else None,
                (note.body, note.owner) if note else None,
                s.execute(select(func.count()).select_from(v.copies)).scalar())


# name: (its values, the outcome Ada's run ends, the words that begin its problem, and a run of
#        Bo's that still answers as it did: (action, its values, what it says))
ATTEMPTS: dict[str, tuple[Callable[[SimpleNamespace], dict[str, Any]], ActionOutcome, str,
                          tuple[str, Callable[[SimpleNamespace], dict[str, Any]], str] | None]] = {
    "selected_in": (lambda v: {"name": "bo"}, ActionOutcome.GONE,
                    "A Secret this reads is not there",
                    ("selected_in", lambda v: {"name": "bo"}, "bo-pin-4711")),
    "subquery_loaded": (lambda v: {"name": "bo"}, ActionOutcome.GONE,
                        "A Secret this reads is not there",
                        ("subquery_loaded", lambda v: {"name": "bo"}, "bo-pin-4711")),
    "counted": (lambda v: {"name": "bo"}, ActionOutcome.DENIED,
                "Ada may not read the values of Secret records column by column", None),
    "first_secret": (lambda v: {"name": "bo"}, ActionOutcome.DENIED,
                     "Ada may not read the values of Secret records column by column", None),
    # (a join on records anyone may read still runs)
    "owners_by_secret": (lambda v: {"start": "bo-pin-4"}, ActionOutcome.DENIED,
                         "Ada may not select by the values of Secret records without reading "
                         "them", ("secrets_by_owner", lambda v: {"name": "bo"}, "bo-pin-4711")),
    "reworded": (lambda v: {}, ActionOutcome.DENIED,
                 "Ada may not change Secret records in bulk", None),
    "thrown_away": (lambda v: {}, ActionOutcome.DENIED,
                    "Ada may not delete Secret records in bulk", None),
    # (PostgreSQL runs an UPDATE within a SELECT's WITH; SQLite fails it)
    "reworded_within": (lambda v: {}, ActionOutcome.DENIED,
                        "Ada may not change Secret records in bulk", None),
    "copied": (lambda v: {}, ActionOutcome.DENIED,
               "Ada may not read Secret records in a statement that writes", None),
    # (checked as it is stored, a note is still changed, and deleted, by its owner)
    "taken": (lambda v: {"note": str(v.note.id), "me": v.ada.id}, ActionOutcome.DENIED,
              "Ada may not change Note",
              ("taken", lambda v: {"note": str(v.note.id), "me": v.bo.id}, "Taken.")),
    "taken_away": (lambda v: {"note": str(v.note.id), "me": v.ada.id}, ActionOutcome.DENIED,
                   "Ada may not delete Note",
                   ("taken_away", lambda v: {"note": str(v.note.id), "me": v.bo.id}, "Gone.")),
    "reworded_cached": (lambda v: {}, ActionOutcome.DENIED,
                        "Ada may not bring a Secret changed outside this session into it", None),
}


@pytest.mark.parametrize("name", list(ATTEMPTS))
def test_an_action_going_around_the_rules_is_refused_in_words_and_keeps_nothing(
        vaults: SimpleNamespace, name: str) -> None:
    """Ada's run of an action whose code reaches Bo's secret or note around the rules ends
    refused in a sentence naming none of the secret's values, and the database is as it was
    (each was Done before: the secret read, counted, found by its text, reworded, thrown away
    or copied, the note taken; or, eager loads, Denied for Bo too); Bo's own runs still run."""
    v = vaults
    values, outcome, words, bos = ATTEMPTS[name]
    before = _stored(v)
    refused = v.app.actions.run(name, values(v), as_=v.ada)
    assert (refused.outcome, refused.problem[:len(words)]) == (outcome, words), refused.problem
    assert refused.problem.endswith(".")
    assert "bo-pin" not in refused.problem + refused.said
    assert _stored(v) == before
    if bos is not None:
        action, bo_values, said = bos
        ran = v.app.actions.run(action, bo_values(v), as_=v.bo)
        assert (ran.outcome, ran.said) == (ActionOutcome.DONE, said), ran.problem


def _made_up(v: SimpleNamespace, **values: Any) -> Any:
    """Bo's secret as another session left it: loaded, then out of any session."""
    with v.app.session(as_=v.app.system) as s:
        found = s.get(v.Secret, v.secret.id)
    for key, value in values.items():
        setattr(found, key, value)
    return found


def test_a_record_brought_into_a_session_is_read_as_stored_and_checked(
        vaults: SimpleNamespace) -> None:
    """Bo's secret, loaded elsewhere, brought into a session acting as Ada (`add`) is refused
    as a read, and the session holds none of its values; merged unread (`load=False`) it is
    refused in words; with changes, it is refused and nothing is written (each was taken as
    it was given: read, and written over)."""
    v = vaults
    with v.app.session(as_=v.ada) as s:
        unchanged = _made_up(v)
        with pytest.raises(NotAuthorized, match=r"^Ada may not read Secret bo-pin-4711\.$"):
            s.add(unchanged)
        assert list(s.identity_map.values()) == []
    unread, changed = _made_up(v), _made_up(v, owner=v.ada.id, text="reworded")
    with pytest.raises(NotAuthorized, match=r"^Ada may not merge a Secret without reading it"
                       ), v.app.session(as_=v.ada) as s:
        s.merge(unread, load=False)
    with pytest.raises(NotAuthorized, match=r"^Ada may not bring a Secret changed outside"
                       ), v.app.session(as_=v.ada) as s:
        s.add(changed)
    assert _stored(v)[0] == ("bo-pin-4711", v.bo.id)


@pytest.mark.parametrize("how", ["refresh", "populate_existing"])
def test_a_record_read_again_is_checked_again(postgres_database: str, how: str) -> None:
    """A note Ada read, sealed since by another connection, read again in her session
    (`refresh`, a query with ``populate_existing``) is refused, and what was read again is not
    left in it (it was read: the sealed text). On PostgreSQL, where the other connection's
    change is seen at once (a session on SQLite holds the database's one write lock)."""
    url = postgres_database
    v = _vaults(url)
    sealed = policy.where(lambda p, r: r is None or r.body != "sealed", "not sealed")
    v.Note.__security__ = [allow("read", when=sealed)]
    with v.app.session(as_=v.ada) as s:
        note = s.get(v.Note, v.note.id)
        elsewhere = create_engine(url)
        with elsewhere.begin() as c:
            c.execute(update(v.Note.__table__).values(body="sealed"))
        elsewhere.dispose()
        again: Callable[[], object] = (
            (lambda: s.refresh(note)) if how == "refresh" else
            (lambda: s.scalars(select(v.Note).execution_options(populate_existing=True)).all()))
        with pytest.raises(NotAuthorized, match=r"^Ada may not read Note "):
            again()
        assert "body" not in note.__dict__
        assert list(s.identity_map.values()) == []
    v.app.database.dispose()
