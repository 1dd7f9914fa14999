"""A record an action's own code reads — by `session.get`, a query across a join, a relationship
loaded lazily, `session.merge` — that whoever the run is for may not read is told as a record
that is not there (Gone), in words that name none of its values; and a read rule that fails as
it is asked admits nobody."""

import logging
import uuid
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated

import pytest
from sqlalchemy import ForeignKey, String, select
from sqlalchemy.orm import Mapped, Session, mapped_column, relationship

from signoff import (
    ActionOutcome,
    App,
    Choices,
    NotAuthorized,
    NotFound,
    Provided,
    allow,
    policy,
)

_SESSION = Annotated[Session, Provided("session")]


def _vaults(tmp_path: Path) -> SimpleNamespace:
    """Owners anyone reads, each with secrets only its owner reads, and actions whose own code
    reaches a secret: by id, across a join, through a relationship, by a merge."""
    app = App("vaults", database=f"sqlite:///{tmp_path / 'vaults.db'}", key=b"k" * 32)
    owns = policy.where(lambda p, r: r is None or r.owner == p.id, "owns it")

    def shaky(p: object, r: object) -> bool:
        if r is not None and getattr(r, "label", "") == "shaky":
            raise KeyError("the rule's own mistake")
        return True

    class Owner(app.Record):  # type: ignore[name-defined, misc]
        name: Mapped[str] = mapped_column(String(40), unique=True)
        secrets: Mapped[list["Secret"]] = relationship(back_populates="of")
        __security__ = [allow("read", when=policy.anyone)]

    class Secret(app.Record):  # type: ignore[name-defined, misc]
        owner: Mapped[str] = mapped_column(String(40))
        text: Mapped[str] = mapped_column(String(40), unique=True)
        of_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("owner.id"))
        of: Mapped[Owner] = relationship(back_populates="secrets")
        __security__ = [allow("read", "update", when=owns)]

    class Crate(app.Record):  # type: ignore[name-defined, misc]
        label: Mapped[str] = mapped_column(String(40), unique=True)
        __security__ = [allow("read", "update", when=policy.where(shaky, "reads labels"))]

    @app.action("Read a secret by id")
    def by_id(session: _SESSION, ident: str) -> str:
        found = session.get(Secret, uuid.UUID(ident))
        if found is None:
            raise NotFound("There is no such secret.")
        return found.text

    @app.action("Read an owner's secrets")
    def lazily(o: Owner) -> str:
        return ", ".join(s.text for s in o.secrets)

    @app.action("Read secrets by their owner's name")
    def joined(session: _SESSION, name: str) -> str:
        return ", ".join(s.text for s in session.scalars(
            select(Secret).join(Owner).where(Owner.name == name)))

    @app.action("Merge a secret")
    def merged(session: _SESSION, ident: str) -> str:
        return session.merge(Secret(id=uuid.UUID(ident), owner="", text="", of_id=uuid.uuid4())
                             ).text

    def crates(session: Session) -> list[Crate]:
        return list(session.scalars(select(Crate).order_by(Crate.label)))

    @app.action("Read a crate")
    def crate(c: Crate) -> str:
        return c.label

    @app.action("Read two crates")
    def two_crates(c: Crate, other: Annotated[Crate, Choices(crates)]) -> str:
        return c.label + other.label

    ada = app.people.add("ada@vaults.example", "Ada")
    bo = app.people.add("bo@vaults.example", "Bo")
    with app.session(as_=app.system) as s:
        owner = Owner(name="bo")
        secret = Secret(owner=bo.id, text="bo-pin-4711", of=owner)
        shaky_crate = Crate(label="shaky")
        s.add_all([owner, secret, shaky_crate, Crate(label="steady")])
    return SimpleNamespace(app=app, ada=ada, bo=bo, owner=owner, secret=secret,
                           crate=shaky_crate, Crate=Crate)


def test_an_actions_own_read_of_an_unreadable_record_is_gone_naming_nothing_of_it(
        tmp_path: Path) -> None:
    """Ada's run of an action whose code reads Bo's secret (by id, through a relationship,
    across a join, by a merge) is Gone, told in words that name neither the secret's text nor
    its id (they were "Ada may not read Secret bo-pin-4711.", Denied: the record's own text,
    and that it exists); Bo's runs read it."""
    v = _vaults(tmp_path)
    calls = [("by_id", {"ident": str(v.secret.id)}), ("lazily", {"o": str(v.owner.id)}),
             ("joined", {"name": "bo"}), ("merged", {"ident": str(v.secret.id)})]
    for name, values in calls:
        refused = v.app.actions.run(name, values, as_=v.ada)
        assert refused.outcome is ActionOutcome.GONE, (name, refused.problem)
        assert refused.problem == ("A Secret this reads is not there: it does not exist, or "
                                   "whoever this runs as cannot read it."), name
        assert "bo-pin" not in refused.problem
        assert str(v.secret.id) not in refused.problem
        if name != "merged":  # (a merge changes the secret, which even Bo may not do so)
            mine = v.app.actions.run(name, values, as_=v.bo)
            assert mine.outcome is ActionOutcome.DONE, (name, mine.problem)
    nothing = v.app.actions.run("by_id", {"ident": str(uuid.uuid4())}, as_=v.ada)
    assert nothing.outcome is ActionOutcome.GONE


def test_a_read_rule_that_fails_admits_nobody_and_tells_no_record_apart(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A read rule that raises as a record given by id is read is that record refused: the run
    is Gone in the words of an id of nothing (it was Failed, while an id of nothing is Gone:
    which ids are of records was told by the kind of outcome), and the rule's failure is in
    the log."""
    v = _vaults(tmp_path)
    with caplog.at_level(logging.ERROR):
        refused = v.app.actions.run("crate", {"c": str(v.crate.id)}, as_=v.ada)
    nothing_id = uuid.uuid4()
    nothing = v.app.actions.run("crate", {"c": str(nothing_id)}, as_=v.ada)
    assert (refused.outcome, nothing.outcome) == (ActionOutcome.GONE, ActionOutcome.GONE)
    assert refused.problem == nothing.problem.replace(str(nothing_id), str(v.crate.id))
    assert "the rule's own mistake" in caplog.text


def test_a_read_rule_that_fails_in_a_session_is_a_refusal_in_words(tmp_path: Path) -> None:
    """Outside a run, a session acting as someone whose read rule fails is refused a read in
    words (not the rule's KeyError), and the record is not left in the session."""
    v = _vaults(tmp_path)
    with v.app.session(as_=v.ada) as s:
        with pytest.raises(NotAuthorized, match=r"^Ada may not read a Crate: a rule of Crate "
                                                r"failed as it was checked"):
            s.get(v.Crate, v.crate.id)
        assert list(s.identity_map.values()) == []


def test_a_read_rule_that_fails_leaves_its_record_out_of_the_choices(tmp_path: Path) -> None:
    """A parameter's choices, listed as a caller may see them, leave out the record whose read
    rule fails as it is asked, and list the others (the rule's KeyError reached the caller)."""
    v = _vaults(tmp_path)
    assert [label for _, label in v.app.actions.choices("two_crates", "other", as_=v.ada)] == [
        "Crate steady"]
