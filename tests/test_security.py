"""Security: principals, composable policies, record rules enforced on load and flush, acting as
a set of principals, and the people directory."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any

import pytest
from sqlalchemy import ForeignKey, String, delete, insert, select, update
from sqlalchemy.orm import Mapped, Session, mapped_column, relationship

import signoff
from signoff import SYSTEM, ActingAs, App, NotAuthorized, Principal, UserError, allow, deny, policy
from signoff.security.sessions import open_session

# Each principal lacks exactly one right, so that each refusal is about one operation only.
ROLES_OF = {
    "Ann": ["reader", "maker", "changer", "remover", "pricer"],
    "Bo": ["reader", "maker", "changer", "remover", "pricer"],
    "Rex": ["maker", "changer", "remover", "pricer"],  # may not read
    "Cleo": ["reader", "changer", "remover", "pricer"],  # may not create
    "Uma": ["reader", "maker", "remover", "pricer"],  # may not update
    "Dan": ["reader", "maker", "changer", "pricer"],  # may not delete
    "Pia": ["reader", "maker", "changer", "remover"],  # may not change the price
}


@dataclass(frozen=True, kw_only=True)
class Shop:
    """An app with one record type, one order in it, and the principals of ROLES_OF."""

    app: App
    order_type: Any
    order_id: uuid.UUID
    people: dict[str, Principal]

    def system_session(self) -> Session:
        """A fresh session that sees everything, to check what was written."""
        return open_session(self.app.database, SYSTEM)

    def order_codes(self) -> list[str]:
        """The codes of every order in the database, as the app itself sees them."""
        with self.system_session() as s:
            return sorted(s.scalars(select(self.order_type.code)))

    def stored_order(self) -> Any:
        """Order B-12 as the database holds it now."""
        with self.system_session() as s:
            return s.get(self.order_type, self.order_id)


@pytest.fixture
def shop() -> Shop:
    """A fresh in-memory app whose Order has one rule per operation and a field-level deny."""
    app = App("t", database="sqlite://")

    class Order(app.Record):  # type: ignore[name-defined, misc]
        code: Mapped[str] = mapped_column(String(20), unique=True)
        note: Mapped[str] = mapped_column(String(100), default="")
        price: Mapped[Decimal] = mapped_column(default=Decimal(0))
        __security__ = [
            allow("read", when=policy.role("reader")),
            allow("create", when=policy.role("maker")),
            allow("update", when=policy.role("changer")),
            allow("delete", when=policy.role("remover")),
            deny("update", "price", when=~policy.role("pricer")),
        ]

    people = {
        name: app.people.add(f"{name.lower()}@shop.example", name, roles=roles)
        for name, roles in ROLES_OF.items()
    }
    with app.session(as_=app.system) as s:
        order = Order(code="B-12", note="", price=Decimal("3.50"))
        s.add(order)
    return Shop(app=app, order_type=Order, order_id=order.id, people=people)


def _as(app: App, who: Principal, work: Callable[[Session], None]) -> None:
    """Do `work` in a session acting as `who`, committed at the end."""
    with app.session(as_=who) as s:
        work(s)


def _read(shop: Shop, s: Session) -> None:
    s.scalars(select(shop.order_type)).one()


def _create(shop: Shop, s: Session) -> None:
    s.add(shop.order_type(code="N-1"))


def _update(shop: Shop, s: Session) -> None:
    s.get(shop.order_type, shop.order_id).note = "two loaves"


def _update_price(shop: Shop, s: Session) -> None:
    s.get(shop.order_type, shop.order_id).price = Decimal("9.00")


def _delete(shop: Shop, s: Session) -> None:
    s.delete(s.get(shop.order_type, shop.order_id))


def _unchanged(shop: Shop) -> bool:
    order = shop.stored_order()
    return (
        shop.order_codes() == ["B-12"] and order.note == "" and order.price == Decimal("3.50")
    )


# operation: (what it does in a session, whether the database shows it done, the refused one,
#             the sentence that refuses them)
OPERATIONS: dict[str, tuple[Callable[[Shop, Session], None], Callable[[Shop], bool], str, str]] = {
    "read": (_read, lambda shop: True, "Rex", "Rex may not read Order B-12."),
    "create": (
        _create,
        lambda shop: shop.order_codes() == ["B-12", "N-1"],
        "Cleo",
        "Cleo may not create Order N-1.",
    ),
    "update": (
        _update,
        lambda shop: shop.stored_order().note == "two loaves",
        "Uma",
        "Uma may not change Order B-12.",
    ),
    "update price": (
        _update_price,
        lambda shop: shop.stored_order().price == Decimal("9.00"),
        "Pia",
        "Pia may not change the price of Order B-12.",
    ),
    "delete": (
        _delete,
        lambda shop: shop.order_codes() == [],
        "Dan",
        "Dan may not delete Order B-12.",
    ),
}

CASES = [
    pytest.param(op, actors, refused, id=f"{op}-{'+'.join(actors)}")
    for op, (_do, _done, no, _sentence) in OPERATIONS.items()
    for actors, refused in [
        (["Ann"], None),
        ([no], no),
        (["Ann", "Bo"], None),
        (["Ann", no], no),
        ([no, "Ann"], no),
    ]
]


@pytest.mark.parametrize(("operation", "actors", "refused"), CASES)
def test_each_operation_admits_or_refuses_every_principal_of_the_acting_set(
    shop: Shop, operation: str, actors: list[str], refused: str | None
) -> None:
    """An operation works only when every principal acting is admitted; otherwise it is refused
    by a sentence naming the refused principal, the operation and the record, and nothing is
    written."""
    do, done, _no, sentence = OPERATIONS[operation]
    acting = [shop.people[name] for name in actors]
    if refused is None:
        with shop.app.session(as_=acting) as s:
            do(shop, s)
        assert done(shop)
        return
    with pytest.raises(NotAuthorized) as raised, shop.app.session(as_=acting) as s:
        do(shop, s)
    assert str(raised.value) == sentence
    assert raised.value.principal == refused
    assert raised.value.operation == operation.split()[0]
    assert raised.value.record in sentence
    assert _unchanged(shop)


def test_a_field_level_deny_leaves_the_other_fields_free(shop: Shop) -> None:
    """A principal denied the price may still change the record's other fields."""
    with shop.app.session(as_=shop.people["Pia"]) as s:
        s.get(shop.order_type, shop.order_id).note = "rye"
    assert shop.stored_order().note == "rye"


def test_a_field_level_deny_names_every_protected_field_changed() -> None:
    """Changing two denied fields at once is refused by a sentence naming both."""
    app = App("t", database="sqlite://")

    class Order(app.Record):  # type: ignore[name-defined, misc]
        code: Mapped[str] = mapped_column(String(20), unique=True)
        note: Mapped[str] = mapped_column(String(100), default="")
        price: Mapped[Decimal] = mapped_column(default=Decimal(0))
        __security__ = [allow("read", "update"), deny("update", "note", "price", when=policy.anyone)]

    cleo = app.people.add("cleo@shop.example", "Cleo")
    with app.session(as_=app.system) as s:
        order = Order(code="B-12")
        s.add(order)
    def change_both(s: Session) -> None:
        found = s.get(Order, order.id)
        found.price, found.note = Decimal(1), "x"

    refused = r"^Cleo may not change the note and price of Order B-12\.$"
    with pytest.raises(NotAuthorized, match=refused):
        _as(app, cleo, change_both)


def test_a_refused_read_does_not_stay_in_the_session(shop: Shop) -> None:
    """After a refused read, the record is not in the session: a later query or get in the
    same session is refused again rather than handed the record unchecked."""
    with open_session(shop.app.database, ActingAs.of(shop.people["Rex"])) as s:
        with pytest.raises(NotAuthorized, match="Rex may not read Order B-12"):
            s.scalars(select(shop.order_type)).all()
        assert list(s.identity_map.values()) == []
        with pytest.raises(NotAuthorized, match="Rex may not read Order B-12"):
            s.scalars(select(shop.order_type)).all()
        with pytest.raises(NotAuthorized, match="Rex may not read Order B-12"):
            s.get(shop.order_type, shop.order_id)


def test_a_write_is_refused_at_flush_and_nothing_is_written(shop: Shop) -> None:
    """The rules are checked when the session flushes: the change is accepted in memory, refused
    at flush, and a fresh session as the app finds nothing of it."""
    s = open_session(shop.app.database, ActingAs.of(shop.people["Cleo"]))
    try:
        s.add(shop.order_type(code="N-1"))  # no refusal yet: nothing has been flushed
        with pytest.raises(NotAuthorized, match="Cleo may not create Order N-1"):
            s.commit()
        s.rollback()
    finally:
        s.close()
    assert shop.order_codes() == ["B-12"]


def test_a_refused_write_takes_the_whole_transaction_with_it(shop: Shop) -> None:
    """When one write of a session is refused, the admitted writes beside it are not kept."""
    def create_then_price(s: Session) -> None:
        s.add(shop.order_type(code="N-1"))
        s.flush()
        s.get(shop.order_type, shop.order_id).price = Decimal(1)

    with pytest.raises(NotAuthorized, match="Pia may not change the price"):
        _as(shop.app, shop.people["Pia"], create_then_price)
    assert _unchanged(shop)


def test_the_app_itself_is_bound_by_no_rule(shop: Shop) -> None:
    """A session acting as the app (SYSTEM) reads and writes what no rule allows."""
    app = App("t", database="sqlite://")

    class Vault(app.Record):  # type: ignore[name-defined, misc]
        name: Mapped[str] = mapped_column(String(20), unique=True)

    with app.session(as_=app.system) as s:
        s.add(Vault(name="gold"))
    with app.session(as_=signoff.SYSTEM) as s:
        vault = s.scalars(select(Vault)).one()
        vault.name = "silver"
    assert app.system is SYSTEM


def test_rules_default_to_deny() -> None:
    """A record type without an allow for an operation refuses it to everyone, even to a
    principal that holds every role."""
    app = App("t", database="sqlite://")

    class Note(app.Record):  # type: ignore[name-defined, misc]
        text: Mapped[str] = mapped_column(String(20), unique=True)
        __security__ = [allow("read", "create", "update")]

    class Bare(app.Record):  # type: ignore[name-defined, misc]
        text: Mapped[str] = mapped_column(String(20), unique=True)

    ada = app.people.add("ada@x.example", "Ada", roles=["boss", "admin"])
    with app.session(as_=ada) as s:
        s.add(Note(text="hello"))
    with pytest.raises(NotAuthorized, match=r"^Ada may not delete Note hello\.$"), app.session(as_=ada) as s:
        s.delete(s.scalars(select(Note)).one())
    with pytest.raises(NotAuthorized, match=r"^Ada may not create Bare x\.$"), app.session(as_=ada) as s:
        s.add(Bare(text="x"))
    with app.session(as_=app.system) as s:
        assert s.scalars(select(Note.text)).all() == ["hello"]


def test_a_deny_wins_over_any_allow() -> None:
    """A deny refuses what an allow for the same principal would admit."""
    app = App("t", database="sqlite://")

    class Note(app.Record):  # type: ignore[name-defined, misc]
        text: Mapped[str] = mapped_column(String(20), unique=True)
        __security__ = [allow("read", "create", "delete"), deny("delete", when=policy.role("temp"))]

    tim = app.people.add("tim@x.example", "Tim", roles=["temp"])
    with app.session(as_=tim) as s:
        s.add(Note(text="hello"))
    with pytest.raises(NotAuthorized, match=r"^Tim may not delete Note hello\.$"), app.session(as_=tim) as s:
        s.delete(s.scalars(select(Note)).one())


def test_a_policy_can_look_at_the_record() -> None:
    """A policy made with `where` decides by the record too: each sees only their own."""
    app = App("t", database="sqlite://")
    own = policy.where(lambda p, r: r is not None and r.owner == p.handle, "owns it")

    class Note(app.Record):  # type: ignore[name-defined, misc]
        text: Mapped[str] = mapped_column(String(20), unique=True)
        owner: Mapped[str] = mapped_column(String(50))
        __security__ = [allow("read", "create", when=own)]

    ann = app.people.add("ann@x.example", "Ann")
    with app.session(as_=app.system) as s:
        s.add_all([Note(text="mine", owner="ann@x.example"), Note(text="yours", owner="bo")])
    with app.session(as_=ann) as s:
        assert s.scalars(select(Note).where(Note.owner == ann.handle)).one().text == "mine"
    with pytest.raises(NotAuthorized, match="Ann may not read Note yours"), app.session(as_=ann) as s:
        s.scalars(select(Note).where(Note.text == "yours")).one()
    with pytest.raises(NotAuthorized, match="Ann may not create Note forged"), app.session(as_=ann) as s:
        s.add(Note(text="forged", owner="bo"))


# -- policies -------------------------------------------------------------------------------

_ROLE_A, _ROLE_B = policy.role("a"), policy.role("b")


@pytest.mark.parametrize(
    ("composed", "roles", "admitted"),
    [
        pytest.param(_ROLE_A | _ROLE_B, {"a"}, True, id="a|b-a"),
        pytest.param(_ROLE_A | _ROLE_B, {"b"}, True, id="a|b-b"),
        pytest.param(_ROLE_A | _ROLE_B, set(), False, id="a|b-none"),
        pytest.param(_ROLE_A & _ROLE_B, {"a", "b"}, True, id="a&b-both"),
        pytest.param(_ROLE_A & _ROLE_B, {"a"}, False, id="a&b-a"),
        pytest.param(~_ROLE_A, set(), True, id="~a-none"),
        pytest.param(~_ROLE_A, {"a"}, False, id="~a-a"),
        pytest.param(~_ROLE_A & ~_ROLE_B, {"c"}, True, id="~a&~b-c"),
        pytest.param(~_ROLE_A & ~_ROLE_B, {"b"}, False, id="~a&~b-b"),
        pytest.param(~(_ROLE_A | _ROLE_B), {"a"}, False, id="~(a|b)-a"),
        pytest.param(_ROLE_A | (_ROLE_B & ~_ROLE_A), {"b"}, True, id="a|(b&~a)-b"),
        pytest.param(policy.anyone & ~policy.nobody, set(), True, id="anyone&~nobody"),
        pytest.param(policy.nobody | policy.nobody, {"a"}, False, id="nobody|nobody"),
        pytest.param(policy.person & ~policy.agent, set(), True, id="person&~agent"),
    ],
)
def test_policies_compose(composed: signoff.Policy, roles: set[str], admitted: bool) -> None:
    """`|`, `&` and `~` compose policies the way or, and and not do."""
    someone = Principal(id="1", handle="s@x.example", name="Sam", roles=frozenset(roles))
    assert composed.admits(someone) is admitted


def test_a_composed_policy_says_what_it_asks() -> None:
    """A composed policy describes itself in words."""
    assert (~_ROLE_A & _ROLE_B).description == "not (has the role a) and has the role b"


@pytest.mark.parametrize(
    "which",
    [
        policy.anyone,
        policy.person,
        ~policy.nobody,
        ~_ROLE_B,
        _ROLE_A | ~_ROLE_A,
        policy.where(lambda _p, _r: True),
    ],
)
def test_a_disabled_principal_is_admitted_by_nothing(which: signoff.Policy) -> None:
    """No policy, not even one that holds for everyone, admits a disabled principal."""
    enabled = Principal(id="1", handle="s@x.example", name="Sam", roles=frozenset({"a"}))
    disabled = Principal(
        id="1", handle="s@x.example", name="Sam", roles=frozenset({"a"}), disabled=True
    )
    assert which.admits(enabled)
    assert not which.admits(disabled)


def test_a_disabled_principal_may_do_nothing_under_the_rules() -> None:
    """Disabled in the directory, a principal is refused even what everyone may do, and enabled
    again they may do it."""
    app = App("t", database="sqlite://")

    class Note(app.Record):  # type: ignore[name-defined, misc]
        text: Mapped[str] = mapped_column(String(20), unique=True)
        __security__ = [allow("read", "create")]

    sam = app.people.add("sam@x.example", "Sam")
    sam = app.people.disable(sam)
    refused = r"^Sam is disabled and may not create anything\.$"
    with pytest.raises(NotAuthorized, match=refused), app.session(as_=sam) as s:
        s.add(Note(text="x"))
    sam = app.people.enable(sam)
    with app.session(as_=sam) as s:
        s.add(Note(text="x"))


# -- declaring rules --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "declare",
    [
        pytest.param(lambda: allow("update", "price"), id="allow-with-a-field"),
        pytest.param(lambda: deny("read", "price", when=policy.anyone), id="deny-read-field"),
        pytest.param(lambda: deny("delete", "price", when=policy.anyone), id="deny-delete-field"),
        pytest.param(lambda: deny("create", "price", when=policy.anyone), id="deny-create-field"),
        pytest.param(
            lambda: deny("update", "delete", "price", when=policy.anyone), id="deny-two-ops-field"
        ),
        pytest.param(lambda: deny("price", "update", when=policy.anyone), id="field-before-op"),
        pytest.param(lambda: allow("reed"), id="no-operation"),
        pytest.param(lambda: allow(), id="nothing"),
    ],
)
def test_a_misdeclared_rule_is_a_user_error(declare: Callable[[], object]) -> None:
    """allow() with fields, deny() with fields after anything but update, and a rule naming no
    operation are mistakes of the app's developer, told as UserError."""
    with pytest.raises(UserError):
        declare()


def test_an_empty_acting_set_is_refused() -> None:
    """An acting set of nobody (which every rule would vacuously admit) cannot be made."""
    with pytest.raises(UserError, match="at least one principal"):
        ActingAs()
    with pytest.raises(UserError, match="at least one principal"):
        ActingAs.of([])


def test_an_acting_set_reads_as_its_names() -> None:
    """An acting set names its principals in order, without repeats."""
    ann = Principal(id="1", handle="ann@x.example", name="Ann")
    bo = Principal(id="2", handle="bo@x.example", name="Bo")
    assert ActingAs.of([ann, bo, ann]).names == "Ann and Bo"
    assert ActingAs.of(ann).names == "Ann"
    assert SYSTEM.names == "the app"


# -- the rules cannot be gone around ----------------------------------------------------------


@pytest.mark.parametrize(
    "statement",
    [
        pytest.param(lambda o: update(o).values(price=Decimal(99)), id="orm-update"),
        pytest.param(lambda o: delete(o), id="orm-delete"),
        pytest.param(lambda o: insert(o).values(id=uuid.uuid4(), code="N-9"), id="orm-insert"),
        pytest.param(lambda o: update(o.__table__).values(price=Decimal(99)), id="table-update"),
        pytest.param(lambda o: delete(o.__table__), id="table-delete"),
    ],
)
def test_bulk_statements_on_records_are_refused(
    shop: Shop, statement: Callable[[Any], Any]
) -> None:
    """An UPDATE, DELETE or INSERT statement, which no rule could see row by row, is refused to a
    session acting as someone, and writes nothing."""
    refused = r"^Pia may not (change|delete|create) Order records in bulk"
    with pytest.raises(NotAuthorized, match=refused), shop.app.session(as_=shop.people["Pia"]) as s:
        s.execute(statement(shop.order_type))
    assert _unchanged(shop)


def test_the_app_may_still_write_in_bulk(shop: Shop) -> None:
    """A session acting as the app may run bulk statements."""
    with shop.app.session(as_=shop.app.system) as s:
        s.execute(update(shop.order_type).values(note="all"))
    assert shop.stored_order().note == "all"


@pytest.fixture
def shelved() -> Iterator[tuple[App, Any, Any, Any, Principal]]:
    """An app whose orders sit on shelves (a denied foreign key) and boxes hold lines (a
    collection whose orphans are deleted)."""
    app = App("t", database="sqlite://")

    class Shelf(app.Record):  # type: ignore[name-defined, misc]
        name: Mapped[str] = mapped_column(String(20), unique=True)
        __security__ = [allow("read")]

    class Order(app.Record):  # type: ignore[name-defined, misc]
        code: Mapped[str] = mapped_column(String(20), unique=True)
        shelf_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("shelf.id"), default=None)
        shelf: Mapped[Shelf | None] = relationship()
        __security__ = [allow("read", "update"), deny("update", "shelf_id", when=policy.anyone)]

    class Line(app.Record):  # type: ignore[name-defined, misc]
        name: Mapped[str] = mapped_column(String(20), unique=True)
        box_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("box.id"), default=None)
        __security__ = [allow("read")]

    class Box(app.Record):  # type: ignore[name-defined, misc]
        name: Mapped[str] = mapped_column(String(20), unique=True)
        lines: Mapped[list[Line]] = relationship(cascade="all, delete-orphan")
        __security__ = [allow("read", "update")]

    with app.session(as_=app.system) as s:
        box = Box(name="box")
        box.lines.append(Line(name="rye"))
        s.add_all([Order(code="B-12"), Shelf(name="Front"), box])
    cleo = app.people.add("cleo@x.example", "Cleo")
    return app, Shelf, Order, Box, cleo


def test_a_denied_foreign_key_cannot_be_changed_through_its_relationship(
    shelved: tuple[App, Any, Any, Any, Principal],
) -> None:
    """Setting a relationship changes its foreign key: a deny of that field refuses it."""
    app, Shelf, Order, _Box, cleo = shelved
    refused = "Cleo may not change the shelf_id of Order B-12"
    with pytest.raises(NotAuthorized, match=refused), app.session(as_=cleo) as s:
        s.scalars(select(Order)).one().shelf = s.scalars(select(Shelf)).one()
    with app.session(as_=app.system) as s:
        assert s.scalars(select(Order)).one().shelf_id is None


def test_an_orphan_cascade_cannot_delete_what_the_rules_keep(
    shelved: tuple[App, Any, Any, Any, Principal],
) -> None:
    """Taking a line out of a box with delete-orphan deletes the line: refused to one who may
    not delete lines."""
    app, _Shelf, _Order, Box, cleo = shelved
    def empty_the_box(s: Session) -> None:
        box = s.scalars(select(Box)).one()
        box.lines.clear()

    with pytest.raises(NotAuthorized, match="Cleo may not delete Line rye"):
        _as(app, cleo, empty_the_box)
    with app.session(as_=app.system) as s:
        assert [line.name for line in s.scalars(select(Box)).one().lines] == ["rye"]


# -- the people directory ----------------------------------------------------------------------


def test_people_are_added_and_found_by_id_or_handle() -> None:
    """A principal added to the directory is found again, as it was added, by id or handle."""
    app = App("t", database="sqlite://")
    noor = app.people.add("noor@x.example", "Noor", roles=["manager", "mechanic"])
    assert app.people.get(noor.id) == noor
    assert app.people.get("noor@x.example") == noor
    assert noor.roles == frozenset({"manager", "mechanic"})
    assert not noor.disabled
    assert app.people.find("nobody@x.example") is None
    with pytest.raises(UserError, match=r"nobody@x\.example"):
        app.people.get("nobody@x.example")


def test_a_handle_already_taken_is_refused() -> None:
    """Adding a second principal with the same handle is a UserError, and adds no one."""
    app = App("t", database="sqlite://")
    app.people.add("noor@x.example", "Noor")
    with pytest.raises(UserError, match=r"noor@x\.example"):
        app.people.add("noor@x.example", "Another Noor")
    assert [p.name for p in app.people.all()] == ["Noor"]


def test_roles_and_disabling_round_trip_through_the_database() -> None:
    """grant, take_away, disable and enable are stored: the directory reads them back, and a
    second app on the same database file sees them too."""
    app = App("t", database="sqlite://")
    mia = app.people.add("mia@x.example", "Mia", roles=["mechanic"])
    app.people.grant(mia, "manager", "helper")
    assert app.people.get(mia).roles == {"mechanic", "manager", "helper"}
    assert [p.name for p in app.people.with_role("manager")] == ["Mia"]
    app.people.take_away(mia, "mechanic", "helper")
    assert app.people.get(mia).roles == {"manager"}
    app.people.disable(mia)
    assert app.people.get(mia).disabled
    assert app.people.with_role("manager") == []
    app.people.enable(mia)
    now = app.people.get(mia)
    assert not now.disabled
    assert now.roles == {"manager"}
    assert (now.id, now.handle, now.name) == (mia.id, mia.handle, mia.name)


def test_the_directory_is_kept_in_the_database_file(tmp_path: Any) -> None:
    """A principal's roles and state survive the app: a new App on the same file reads them."""
    url = f"sqlite:///{tmp_path / 'shop.db'}"
    first = App("shop", database=url)
    mia = first.people.add("mia@x.example", "Mia", roles=["mechanic"])
    first.people.grant(mia, "manager")
    first.people.disable(mia)
    first.database.dispose()
    again = App("shop", database=url)
    found = again.people.get("mia@x.example")
    assert found.roles == {"mechanic", "manager"}
    assert found.disabled
    again.database.dispose()


@pytest.mark.parametrize(("handle", "name"), [("", "Mia"), ("mia@x.example", " "), ("  ", "")])
def test_a_principal_needs_a_handle_and_a_name(handle: str, name: str) -> None:
    """A blank handle or name is a UserError."""
    app = App("t", database="sqlite://")
    with pytest.raises(UserError):
        app.people.add(handle, name)


@pytest.mark.parametrize("handle", [
    "notanemail", "noor@", "@example.com", "noor@@example.com", "noor example@example.com",
    " noor@example.com", "Noor <noor@example.com>", "noor@example..com", "noor@-example.com",
    "noor@example.com.", "noor@exa_mple.com",
])
def test_a_persons_handle_is_an_e_mail_address(tmp_path: Path, handle: str) -> None:
    """A person whose handle is not an e-mail address is refused, in a sentence naming the
    handle and what is expected, and nobody is added."""
    app = App("t", database=f"sqlite:///{tmp_path / 't.db'}")
    with pytest.raises(UserError) as refused:
        app.people.add(handle, "Noor")
    assert str(refused.value) == (f"{handle!r} is not an e-mail address: a person's handle is "
                                  "their e-mail address (name@domain, such as noor@example.com).")
    assert app.people.all() == []


def test_e_mail_addresses_and_agents_accounts_are_handles(tmp_path: Path) -> None:
    """A person's handle may be any e-mail address, a local one (``USER@localhost``, as
    `signoff research` names its person) or one in another script; an agent's account is named
    as its agent pleases, and a registered agent's account is ``NAME@agents``."""
    app = App("t", database=f"sqlite:///{tmp_path / 't.db'}")
    handles = ["noor@example.com", "me@localhost", "o'neil+inbox@mail.shop-1.example",
               "zoë@bücher.example"]
    for handle in handles:
        app.people.add(handle, "Someone")
    app.people.add("robot", "Robot", kind=signoff.PrincipalKind.AGENT)

    class File(signoff.Skill[None, str]):
        description = "File things."
        tools: list[Any] = []

    class Clerk(signoff.Agent):
        purpose = "Files things."
        skills: list[Any] = [File()]

    app.add_agent(Clerk, sponsor=app.people.get("noor@example.com"))
    assert app.agent(Clerk).registered.account.handle == "clerk@agents"
    assert {(p.handle, p.kind.value) for p in app.people.all()} == {
        *((h, "person") for h in handles), ("robot", "agent"), ("clerk@agents", "agent")}


def test_values_are_read_through_whole_records_only() -> None:
    """A session acting as someone may not select a record's columns on their own (the read
    rule sees records as they load, and a column select loads none); whole records are read as
    usual, and the app's own system session may select columns. An action that tries is Denied
    in those words."""
    from signoff import ActionOutcome

    app = App("t", database="sqlite://")

    class Payslip(app.Record):  # type: ignore[name-defined, misc]
        owner: Mapped[str] = mapped_column(String(40))
        amount: Mapped[int] = mapped_column()
        __security__ = [allow("read", when=policy.where(lambda p, r: r.owner == p.handle))]

    with app.session(as_=app.system) as s:
        s.add_all([Payslip(owner="ann@x.example", amount=10),
                   Payslip(owner="bob@x.example", amount=99)])
    ann = app.people.add("ann@x.example", "Ann")
    refused = "Ann may not read the amount of Payslip records column by column"
    with pytest.raises(NotAuthorized, match=refused), app.session(as_=ann) as s:
        s.scalars(select(Payslip.amount)).all()  # would have shown Bob's 99
    with pytest.raises(NotAuthorized, match="may not read the id of Payslip"), \
            app.session(as_=ann) as s:
        s.execute(select(Payslip.id, Payslip.owner)).all()
    with app.session(as_=ann) as s:
        mine = s.scalars(select(Payslip).where(Payslip.owner == ann.handle)).one()
        assert mine.amount == 10
    with app.session(as_=app.system) as s:
        assert sorted(s.scalars(select(Payslip.amount))) == [10, 99]

    @app.action
    def total_pay(session: Annotated[Session, signoff.Provided("session")]) -> int:
        """Add up the pay."""
        return sum(session.scalars(select(Payslip.amount)))

    result = app.actions.run("total_pay", {}, as_=ann)
    assert result.outcome is ActionOutcome.DENIED
    assert result.problem.startswith(refused)
