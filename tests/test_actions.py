"""Actions by name: declaring, describing, validating and running them (DESIGN "1. Actions")."""

from __future__ import annotations

import datetime as dt
import enum
import json
import logging
import re
import runpy
import uuid
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated, Any

import pytest
from pydantic import BaseModel
from sqlalchemy import BigInteger, ForeignKey, Numeric, String, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from signoff import (
    FAILED_TEXT,
    ActionOutcome,
    App,
    Choices,
    Conflict,
    Failed,
    FreeText,
    Invalid,
    NotAuthorized,
    NotFound,
    OutcomeUnknown,
    ParameterKind,
    Provided,
    Refusal,
    Unavailable,
    UserError,
    action,
    allow,
    current_cause,
    deny,
    policy,
)

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def bakery() -> SimpleNamespace:
    """A fresh bakery (examples/bakery.py) with its people, shelves and order B-12."""
    namespace = runpy.run_path(str(ROOT / "examples" / "bakery.py"), run_name="bakery_test")
    return SimpleNamespace(**namespace, **namespace["setup"]())


# -- declaring and describing ----------------------------------------------------------------


def test_bakery_catalogue_reads_as_a_person_reads_it(bakery: SimpleNamespace) -> None:
    """The catalogue names each action by label with its parameters' labels."""
    read = {info.name: info.reads_as for info in bakery.app.actions.catalog()}
    assert read == {
        "deliver_on": "Deliver on a day (On)",
        "pack": "Pack a box (Items)",
        "price_order": "Price the order (Price)",
        "set_rush": "Set the rush (How soon)",
        "shelve": "Put it on a shelf (Shelf)",
        "take_order": "Take an order (Customer, Code; optional: Due on)",
    }


def test_action_info_is_derived_from_the_function(bakery: SimpleNamespace) -> None:
    """Label, description, subject and parameters come from the function itself."""
    info = bakery.app.actions.info("set_rush")
    assert info.label == "Set the rush"
    assert info.description == "Say how soon the order is wanted. Only the boss may change it."
    assert info.subject is bakery.Order
    order, rush = info.parameters
    assert (order.name, order.kind, order.is_subject) == ("order", ParameterKind.RECORD, True)
    assert (rush.name, rush.label, rush.kind, rush.optional) == (
        "rush", "How soon", ParameterKind.ENUM, False
    )
    assert rush.members == ["NORMAL", "SAME_DAY", "WITHIN_THE_HOUR"]
    assert info.parameters_schema["properties"]["rush"]["enum"] == rush.members
    assert info.parameters_schema["required"] == ["order", "rush"]
    assert info.result_schema == {"type": "string"}


def test_label_derived_from_name() -> None:
    """An action without a label reads as its name: set_rush → "Set rush"."""
    app = App("t", database="sqlite://")

    @app.action
    def set_rush_now(due_on: dt.date) -> None:
        """Hurry."""

    info = app.actions.info("set_rush_now")
    assert (info.label, info.parameters[0].label) == ("Set rush now", "Due on")


class _Colour(enum.Enum):
    RED = 1
    GREEN = 2


class _Point(BaseModel):
    x: int
    y: int


@dataclass
class _Pair:
    left: str
    right: str


@pytest.mark.parametrize(
    ("annotation", "kind"),
    [
        (str, ParameterKind.TEXT),
        (int, ParameterKind.INTEGER),
        (float, ParameterKind.DECIMAL),
        (__import__("decimal").Decimal, ParameterKind.DECIMAL),
        (bool, ParameterKind.YES_NO),
        (dt.date, ParameterKind.DATE),
        (dt.datetime, ParameterKind.DATETIME),
        (dt.time, ParameterKind.TIME),
        (dt.timedelta, ParameterKind.DURATION),
        (uuid.UUID, ParameterKind.ID),
        (_Colour, ParameterKind.ENUM),
        (_Point, ParameterKind.STRUCTURE),
        (_Pair, ParameterKind.STRUCTURE),
        (dict[str, int], ParameterKind.STRUCTURE),
        (list[_Point], ParameterKind.SEQUENCE),
        (tuple[int, int], ParameterKind.SEQUENCE),
        (set[str], ParameterKind.SEQUENCE),
        (int | None, ParameterKind.INTEGER),
    ],
)
def test_each_parameter_kind_is_recognised(annotation: Any, kind: ParameterKind) -> None:
    """Every kind DESIGN names is read from a plain annotation."""
    app = App("t", database="sqlite://")

    def act(value: Any) -> None:
        """Take a value."""

    act.__annotations__ = {"value": annotation, "return": None}
    app.add_action(act)
    assert app.actions.info("act").parameters[0].kind is kind


def test_context_parameters_are_filled_by_the_app_and_never_shown() -> None:
    """Provided(...) and provided={...} parameters are filled by the app, absent from schemas."""
    app = App("t", database="sqlite://")
    app.provide("clock", lambda: dt.date(2026, 9, 4))
    seen: dict[str, Any] = {}

    @app.action
    def stamp(note: str, today: Annotated[dt.date, Provided("clock")]) -> str:
        """Stamp a note."""
        seen["today"] = today
        return f"{note} {today}"

    def legacy(note: str, db: Session, who: Any) -> str:
        seen["db"], seen["who"] = db, who
        return note

    app.add_action(legacy, label="Legacy note", provided={"db": "session", "who": "acting_as"})
    mia = app.people.add("mia@x.example", "Mia")
    assert app.actions.run("stamp", {"note": "hi"}, as_=mia).said == "hi 2026-09-04"
    assert list(app.actions.info("stamp").parameters_schema["properties"]) == ["note"]
    assert list(app.actions.info("legacy").parameters_schema["properties"]) == ["note"]
    result = app.actions.run("legacy", {"note": "x", "db": "forged"}, as_=mia)
    assert result.outcome is ActionOutcome.INVALID
    assert "There is no parameter named “db”" in result.problem
    assert app.actions.run("legacy", {"note": "x"}, as_=mia).done
    assert isinstance(seen["db"], Session)
    assert seen["who"].names == "Mia"


def test_free_text_is_declared_on_text_parameters_alone() -> None:
    """`Annotated[str, FreeText]` (or `FreeText()`) marks a text parameter free text, which the
    catalogue says and the values are read as any text; on a number it is refused."""
    app = App("t", database="sqlite://")

    @app.action
    def post(channel: str, body: Annotated[str, FreeText], footer: Annotated[str, FreeText()] = ""
             ) -> str:
        """Post a message."""
        return f"{channel}: {body}{footer}"

    def count(times: Annotated[int, FreeText]) -> None:
        """Count."""

    info = app.actions.info("post")
    assert [(p.name, p.free_text) for p in info.parameters] == [
        ("channel", False), ("body", True), ("footer", True)]
    mia = app.people.add("mia@x.example", "Mia")
    assert app.actions.run("post", {"channel": "news", "body": "Hello all"}, as_=mia).said == (
        "news: Hello all")
    with pytest.raises(UserError, match=re.escape(
            "Action count, parameter times: FreeText is for a text parameter")):
        app.add_action(count)


def test_collected_actions_are_offered_and_unmarked_ones_refused() -> None:
    """@action marks a function for app.collect; an unmarked function cannot be collected."""
    app = App("t", database="sqlite://")

    @action("Say hello", query=False)
    def hello(name: str) -> str:
        """Greet someone."""
        return f"Hello, {name}."

    def plain(name: str) -> str:
        return name

    assert app.collect(hello) == ["hello"]
    assert app.actions.info("hello").label == "Say hello"
    with pytest.raises(UserError, match="is not marked with @action"):
        app.collect(plain)


def test_two_actions_with_one_name_are_refused() -> None:
    """Registering a second function under a taken name is a UserError naming both."""
    app = App("t", database="sqlite://")

    @app.action
    def note(text: str) -> None:
        """One."""

    def other(text: str) -> None:
        """Two."""

    with pytest.raises(UserError, match="Two actions are named note"):
        app.add_action(other, name="note")


def test_a_provided_parameter_without_a_type_is_told_the_type_provided() -> None:
    """It was told to write `db: str`, which a session is not."""
    app = App("t", database="sqlite://")

    def needs(db, note: str) -> str:  # type: ignore[no-untyped-def]
        return note

    with pytest.raises(UserError, match=re.escape(
            "Action needs, parameter db: give it a type annotation (the type of what is provided "
            "as 'session'), e.g. `db: Session`.")):
        app.add_action(needs, provided={"db": "session"})


def test_add_action_of_a_marked_function_says_to_collect_it() -> None:
    """A function marked @action given to add_action was refused as "an instance of
    ActionFunction … Define the action with def": it names the call that registers it."""
    app = App("t", database="sqlite://")

    @action
    def stamp(text: str) -> str:
        """Stamp it."""
        return text

    with pytest.raises(UserError, match=re.escape(
            "stamp is marked as an action already (@action): register it with "
            "app.collect(stamp), as its mark declares it")):
        app.add_action(stamp)
    assert app.collect(stamp) == ["stamp"]
    with pytest.raises(UserError, match=re.escape(
            "stamp is an action of this app already (@app.action): it needs no add_action.")):
        app.add_action(stamp)  # (it was told to collect what it had)


# -- choices and for_record ------------------------------------------------------------------


def test_choices_list_only_what_the_caller_may_read(bakery: SimpleNamespace) -> None:
    """A record parameter's choices are its source's records the caller may read."""
    app = bakery.app
    labels = [label for _, label in app.actions.choices("shelve", "shelf", as_=bakery.cleo)]
    assert labels == ["Shelf Back", "Shelf Front"]
    outsider = app.people.add("x@else.example", "Xan")
    assert app.actions.choices("shelve", "shelf", as_=outsider) == []
    assert app.actions.choices("set_rush", "rush", as_=bakery.cleo) == [
        ("NORMAL", "Normal"), ("SAME_DAY", "Same day"), ("WITHIN_THE_HOUR", "Within the hour")
    ]


def test_for_record_lists_actions_the_caller_may_run(bakery: SimpleNamespace) -> None:
    """authorize= hides an action from those its policy refuses, and a record's column rule
    one that changes the field it protects (only the boss may change the rush)."""
    boss = {i.name for i in bakery.app.actions.for_record(bakery.order, as_=bakery.boss)}
    clerk = {i.name for i in bakery.app.actions.for_record(bakery.order, as_=bakery.cleo)}
    assert boss == {"deliver_on", "pack", "price_order", "set_rush", "shelve"}
    assert clerk == boss - {"price_order", "set_rush"}
    result = bakery.app.actions.run(
        "price_order", {"order": bakery.order, "price": "4.50"}, as_=bakery.cleo
    )
    assert (result.outcome, result.problem) == (ActionOutcome.DENIED, "Cleo may not price the order.")
    rushed = bakery.app.actions.run("set_rush", {"order": bakery.order, "rush": "SAME_DAY"},
                                    as_=bakery.cleo)
    assert rushed.outcome is ActionOutcome.DENIED


@pytest.mark.parametrize("database", ["sqlite://", "file"])
def test_a_query_its_policy_refuses_is_denied_and_keeps_the_database_usable(
        database: str, tmp_path: Path) -> None:
    """A query whose `authorize` refuses the caller, or run by someone disabled, is Denied in
    words, and the next run goes on: the refusal returned inside the query's read-only transaction, which then
    committed — a write the guard refuses — so that the run was Failed, and on a file the next
    transaction could not begin ("cannot start a transaction within a transaction"; a proposal
    so approved stayed Approved for good)."""
    url = database if database != "file" else f"sqlite:///{tmp_path / 'q.db'}"
    app = App("q", database=url)

    @app.action("Read the salaries", query=True, authorize=policy.role("manager"))
    def salaries() -> str:
        """Everyone's salary."""
        return "Noor: 4,200 a month"

    mia = app.people.add("mia@q.example", "Mia")
    boss = app.people.add("boss@q.example", "Boss", roles=["manager"])
    refused = app.actions.run("salaries", {}, as_=mia)
    assert (refused.outcome, refused.problem) == (ActionOutcome.DENIED,
                                                  "Mia may not read the salaries.")
    assert app.actions.run("salaries", {}, as_=boss).value == "Noor: 4,200 a month"
    # an action with no label of its own is named, not read as a verb ("may not payroll")
    app.actions.register(lambda: "paid", name="payroll", authorize=policy.role("manager"))
    unlabelled = app.actions.run("payroll", {}, as_=mia)
    assert (unlabelled.outcome, unlabelled.problem) == (ActionOutcome.DENIED,
                                                        "Mia may not run payroll.")
    app.people.disable(boss)
    disabled = app.actions.run("salaries", {}, as_=boss)
    assert (disabled.outcome, disabled.problem) == (
        ActionOutcome.DENIED, "Boss is disabled and may not do anything.")
    app.database.dispose()


def test_for_record_includes_actions_on_a_base_type() -> None:
    """An action on a base record type is offered for records of a subtype."""
    app = App("t", database="sqlite://")

    class Thing(app.Record):  # type: ignore[name-defined, misc]
        kind: Mapped[str] = mapped_column(String(20))
        __mapper_args__ = {"polymorphic_on": "kind", "polymorphic_identity": "thing"}
        __security__ = [allow("read", "create", "update")]

    class Gadget(Thing):
        __mapper_args__ = {"polymorphic_identity": "gadget"}

    @app.action
    def poke(thing: Thing) -> None:
        """Poke it."""

    mia = app.people.add("mia@x.example", "Mia")
    assert [i.name for i in app.actions.for_record(Gadget(), as_=mia)] == ["poke"]



def test_the_subject_is_the_first_parameter_a_caller_gives() -> None:
    """An action whose session the app provides first names its record next: that record is its
    subject (it was refused at registration, asked to say where its choices come from), offered
    for the record, and run on it."""
    app = App("t", database="sqlite://")

    class Customer(app.Record):  # type: ignore[name-defined, misc]
        name: Mapped[str] = mapped_column(String(20), default="")
        __security__ = [allow("read", "create", "update")]

    @app.action("Rename a customer")
    def rename(session: Annotated[Session, Provided("session")], customer: Customer,
               name: str) -> str:
        """Rename them."""
        customer.name = name
        return "Renamed."

    info = app.actions.info("rename")
    assert info.subject is Customer
    assert [p.name for p in info.parameters] == ["customer", "name"]
    mia = app.people.add("mia@x.example", "Mia")
    with app.session(as_=app.system) as s:
        made = Customer(name="Ann")
        s.add(made)
    assert [i.name for i in app.actions.for_record(made, as_=mia)] == ["rename"]
    assert app.actions.run("rename", {"customer": made.id, "name": "Bo"}, as_=mia).done

# -- values, check, refusals -----------------------------------------------------------------


def test_a_clerks_rush_is_refused_by_a_sentence(bakery: SimpleNamespace) -> None:
    """The record rules refuse a clerk's rush, in words, and nothing is kept."""
    result = bakery.app.actions.run(
        "set_rush", {"order": bakery.order, "rush": "SAME_DAY"}, as_=bakery.cleo
    )
    assert result.outcome is ActionOutcome.DENIED
    assert result.problem == "Cleo may not change the rush of Order B-12."
    assert [p.name for p in result.ran_as] == ["Cleo"]
    with bakery.app.session(as_=bakery.boss) as s:
        assert s.get(bakery.Order, bakery.order.id).rush is bakery.Rush.NORMAL


def test_gone_alike_for_an_unknown_name_and_an_unmarked_function(bakery: SimpleNamespace) -> None:
    """An unknown name and an unmarked function answer Gone, told apart by nothing."""
    app = bakery.app
    unknown = app.actions.run("wipe_all", {"order": bakery.order}, as_=bakery.boss)
    unmarked = app.actions.run("wipe", {"order": bakery.order}, as_=bakery.boss)
    by_function = app.actions.run(bakery.wipe, {"order": bakery.order}, as_=bakery.boss)
    assert unknown.outcome is unmarked.outcome is by_function.outcome is ActionOutcome.GONE
    assert unknown.problem.replace("wipe_all", "wipe") == unmarked.problem == by_function.problem


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ('{"order": "%s", "rush": "PRONTO"}',
         "How soon is one of NORMAL, SAME_DAY, WITHIN_THE_HOUR — “PRONTO” is not."),
        ('{"order": "%s", "rush": "SAME_DAY", "colour": "red"}',
         "There is no parameter named “colour”; the parameters are: order, rush."),
        ('{"order": "%s", "rush": "SAME_DAY", "colour": "red", "size": 2}',
         "There are no parameters named “colour”, “size”; the parameters are: order, rush."),
        ('{"order": "B-12", "rush": "SAME_DAY"}',
         "Order is the id of an Order, written like 3f2c8a8e-2b1d-4c55-9a1e-6f0d2b7c9e41 — "
         "“B-12” is not."),
        ('{"order": "%s"}', "How soon is missing: it is needed."),
        # a misspelt name is told, not the parameter it leaves missing
        ('{"order": "%s", "rsuh": "SAME_DAY"}',
         "There is no parameter named “rsuh” (did you mean “rush”?); the parameters are: "
         "order, rush."),
        ('["SAME_DAY"]', "The arguments must be one JSON object, with a member per parameter."),
        ('{"order": ', None),
        # (it was Python's advice: "use sys.set_int_max_str_digits() to increase the limit")
        ('{"order": "%s", "rush": ' + "9" * 5000 + "}",
         "A number in the arguments has 5,000 digits, more than any parameter takes."),
    ],
)
def test_values_from_json_refuses_what_does_not_fit(
    bakery: SimpleNamespace, arguments: str, problem: str | None
) -> None:
    """A value off its schema, a member naming no parameter, an id that is not one: Invalid."""
    text = arguments.replace("%s", str(bakery.order.id))
    with pytest.raises(Invalid) as refused:
        bakery.app.actions.values_from_json("set_rush", text)
    if problem is not None:
        assert refused.value.message == problem
    else:
        assert refused.value.message.startswith("The arguments are not JSON")
    result = bakery.app.actions.run_json("set_rush", text, as_=bakery.boss)
    assert result.outcome is ActionOutcome.INVALID
    assert result.problem == refused.value.message


def test_values_from_json_gives_values(bakery: SimpleNamespace) -> None:
    """A good tool call becomes values: enum members by name, records as ids."""
    text = json.dumps({"order": str(bakery.order.id), "rush": "same_day"})
    values = bakery.app.actions.values_from_json("set_rush", text)
    assert values == {"order": bakery.order.id, "rush": bakery.Rush.SAME_DAY}
    with pytest.raises(NotFound):
        bakery.app.actions.values_from_json("nope", text)


def test_gone_for_an_id_the_caller_cannot_read(bakery: SimpleNamespace) -> None:
    """A record id the caller may not read is Gone, worded as for a missing one, and nothing runs."""
    outsider = bakery.app.people.add("x@else.example", "Xan")
    hidden = bakery.app.actions.run(
        "deliver_on", {"order": str(bakery.order.id), "on": "2026-09-04"}, as_=outsider
    )
    missing_id = uuid.uuid4()
    missing = bakery.app.actions.run(
        "deliver_on", {"order": str(missing_id), "on": "2026-09-04"}, as_=bakery.boss
    )
    assert hidden.outcome is missing.outcome is ActionOutcome.GONE
    assert hidden.problem == (
        f"No Order with id {bakery.order.id}: it does not exist, or whoever this runs as "
        "cannot read it."
    )
    assert missing.problem == hidden.problem.replace(str(bakery.order.id), str(missing_id))
    with bakery.app.session(as_=bakery.boss) as s:
        assert s.get(bakery.Order, bakery.order.id).due_on is None


def test_check_says_the_first_problem_in_a_persons_words(bakery: SimpleNamespace) -> None:
    """check answers "" or the problem, and runs nothing."""
    check = bakery.app.actions.check
    assert check("deliver_on", {"order": str(bakery.order.id), "on": "next tuesday"}) == (
        "On is a date, written 2026-09-04 — “next tuesday” is not."
    )
    assert check("deliver_on", {"order": str(bakery.order.id), "on": "2026-09-04"}) == ""
    assert check("price_order", {"order": str(bakery.order.id), "price": "lots"}) == (
        "Price is a number, like 4.50 — “lots” is not."
    )
    assert check("nope", {}) == ("There is no action named “nope” that can be run by name. "
                                 "The actions are: deliver_on, pack, price_order, set_rush, "
                                 "shelve, take_order.")
    assert "“pakc” that can be run by name. Did you mean pack? The actions are:" in check(
        "pakc", {})  # (the actions were not named, as the CLI names them)
    with bakery.app.session(as_=bakery.boss) as s:
        assert s.get(bakery.Order, bakery.order.id).due_on is None


def test_a_list_of_structures_in_and_a_class_out(bakery: SimpleNamespace) -> None:
    """A list of pydantic models goes in as JSON; a dataclass comes out, read back as itself."""
    text = json.dumps({
        "order": str(bakery.order.id),
        "items": [{"name": "rye loaf", "count": 2}, {"name": "bun", "count": 6}],
    })
    result = bakery.app.actions.run_json("pack", text, as_=bakery.cleo)
    assert result.outcome is ActionOutcome.DONE
    assert result.value == {"order": "B-12", "lines": ["2 × rye loaf", "6 × bun"], "pieces": 8}
    assert result.value_as(bakery.Box) == bakery.Box(
        order="B-12", lines=["2 × rye loaf", "6 × bun"], pieces=8
    )
    bad = bakery.app.actions.run_json(
        "pack", json.dumps({"order": str(bakery.order.id), "items": [{"name": "", "count": 0}]}),
        as_=bakery.cleo,
    )
    assert bad.outcome is ActionOutcome.INVALID
    assert bad.problem.startswith("Items, at 0.name: string should have at least 1 character")


def test_a_record_result_is_its_id_and_values(bakery: SimpleNamespace) -> None:
    """What an action returns is JSON: a record as its id and values, enums by name."""
    result = bakery.app.actions.run(
        "take_order", {"customer": "Bea", "code": "B-13", "due_on": "2026-09-05"}, as_=bakery.cleo
    )
    assert result.outcome is ActionOutcome.DONE, result.problem
    value = result.value
    assert value["code"] == "B-13"
    assert value["rush"] == "NORMAL"
    assert value["due_on"] == "2026-09-05"
    uuid.UUID(value["id"])
    assert bakery.app.actions.info("take_order").result_schema["properties"]["id"] == {
        "format": "uuid", "type": "string"
    }


def _crane_like_app() -> SimpleNamespace:
    app = App("t", database="sqlite://")
    staff = policy.role("staff")

    class Job(app.Record):  # type: ignore[name-defined, misc]
        title: Mapped[str] = mapped_column(String(40), unique=True)
        state: Mapped[str] = mapped_column(String(20), default="open")
        __security__ = [allow("read", "create", "update", when=staff)]

    class Mark(app.Record):  # type: ignore[name-defined, misc]
        job_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("job.id"))
        __security__ = [allow("read", "create", when=staff)]

    @app.action
    def close(job: Job, how: str, session: Annotated[Session, Provided("session")]) -> str:
        """Close a job, one way or another."""
        job.state = "closed"
        session.add(Mark(job_id=job.id))
        session.flush()
        refusals: dict[str, Exception] = {
            "invalid": Invalid("That makes no sense."),
            "conflict": Conflict("It is closed already."),
            "notfound": NotFound("No such thing."),
            "notauthorized": NotAuthorized("Not you."),
            "lost": OutcomeUnknown("The crane's line dropped while it lifted."),
            "down": Unavailable("The crane cannot be reached now: nothing was sent to it. Try "
                                "again later."),
            "failed": Failed("The crane answered “motor overheated”: let it cool first."),
            "refused": Refusal("Not on a Sunday."),  # of no kind: Failed, in its words
            "boom": KeyError("secret internals: row 7"),
        }
        if how in refusals:
            raise refusals[how]
        ending = {"commit": session.commit, "rollback": session.rollback, "close": session.close}
        if how in ending:
            ending[how]()  # the run's transaction is not the action's to end
        return f"closed {job.title}: {current_cause()}"

    ann = app.people.add("ann@x.example", "Ann", roles=["staff"])
    with app.session(as_=ann) as s:
        job = Job(title="J-1")
        s.add(job)
    return SimpleNamespace(app=app, Job=Job, Mark=Mark, ann=ann, job=job)


@pytest.mark.parametrize(
    ("how", "outcome", "problem"),
    [
        ("invalid", ActionOutcome.INVALID, "That makes no sense."),
        ("conflict", ActionOutcome.INVALID, "It is closed already."),
        ("notfound", ActionOutcome.GONE, "No such thing."),
        ("notauthorized", ActionOutcome.DENIED, "Not you."),
        ("lost", ActionOutcome.UNKNOWN, "The crane's line dropped while it lifted."),
        ("down", ActionOutcome.UNAVAILABLE,
         "The crane cannot be reached now: nothing was sent to it. Try again later."),
        ("failed", ActionOutcome.FAILED,
         "The crane answered “motor overheated”: let it cool first."),
        ("refused", ActionOutcome.FAILED, "Not on a Sunday."),
        ("boom", ActionOutcome.FAILED, FAILED_TEXT),
    ],
)
def test_refusals_map_to_outcomes_and_nothing_is_kept(
    how: str, outcome: ActionOutcome, problem: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Each refusal has its outcome and words; a failure's words reach only the log; a run that
    does not end Done keeps none of its writes."""
    shop = _crane_like_app()
    with caplog.at_level(logging.ERROR, logger="signoff.actions"):
        result = shop.app.actions.run("close", {"job": shop.job, "how": how}, as_=shop.ann)
    assert (result.outcome, result.problem, result.said) == (outcome, problem, "")
    assert ("secret internals" in caplog.text) is (how == "boom")
    assert "secret internals" not in repr(result)
    with shop.app.session(as_=shop.app.system) as s:
        assert s.get(shop.Job, shop.job.id).state == "open"
        assert s.scalars(select(shop.Mark)).all() == []


@pytest.mark.parametrize(("how", "verb"), [("commit", "commit"), ("rollback", "roll back"),
                                           ("close", "close")])
def test_an_action_that_ends_its_runs_transaction_fails_and_keeps_nothing(
    how: str, verb: str, caplog: pytest.LogCaptureFixture,
) -> None:
    """An action that commits (or rolls back, or closes) the session of its run fails, and
    nothing of the run is kept: the run's transaction is the run's to end. (A commit kept the
    action's writes, and what the run had written with them, while the run was told Failed.)"""
    shop = _crane_like_app()
    with caplog.at_level(logging.ERROR, logger="signoff.actions"):
        result = shop.app.actions.run("close", {"job": shop.job, "how": how}, as_=shop.ann)
    assert (result.outcome, result.problem) == (ActionOutcome.FAILED, FAILED_TEXT)
    assert f"The action close tried to {verb} the session of its run" in caplog.text
    with shop.app.session(as_=shop.app.system) as s:
        assert s.get(shop.Job, shop.job.id).state == "open"
        assert s.scalars(select(shop.Mark)).all() == []


def test_done_keeps_every_write_and_carries_the_cause() -> None:
    """A Done run commits all it did, and current_cause() inside it is the cause given."""
    shop = _crane_like_app()
    result = shop.app.actions.run(
        "close", {"job": shop.job, "how": "well"}, as_=shop.ann, cause="ticket 42"
    )
    assert (result.outcome, result.said, result.cause) == (
        ActionOutcome.DONE, "closed J-1: ticket 42", "ticket 42"
    )
    with shop.app.session(as_=shop.app.system) as s:
        assert s.get(shop.Job, shop.job.id).state == "closed"
        assert len(s.scalars(select(shop.Mark)).all()) == 1
    assert current_cause() == ""


def test_a_disabled_principal_is_denied() -> None:
    """Whoever is disabled now cannot run anything, whatever roles they hold."""
    shop = _crane_like_app()
    shop.app.people.disable(shop.ann)
    result = shop.app.actions.run("close", {"job": shop.job, "how": "well"}, as_=shop.ann)
    assert (result.outcome, result.problem) == (
        ActionOutcome.DENIED, "Ann is disabled and may not do anything."
    )


def test_a_field_deny_refuses_one_of_two_principals() -> None:
    """Run as a set of two, a rule that refuses either refuses the run."""
    app = App("t", database="sqlite://")
    is_boss = policy.role("boss")

    class Price(app.Record):  # type: ignore[name-defined, misc]
        item: Mapped[str] = mapped_column(String(20), unique=True)
        cents: Mapped[int] = mapped_column(default=0)
        __security__ = [allow("read", "create", "update"), deny("update", "cents", when=~is_boss)]

    @app.action
    def set_cents(price: Price, cents: int) -> str:
        """Set a price."""
        price.cents = cents
        return "set"

    boss = app.people.add("b@x.example", "Bo", roles=["boss"])
    bot = app.people.add("bot@x.example", "Bot")
    with app.session(as_=boss) as s:
        price = Price(item="bun")
        s.add(price)
    both = app.actions.run("set_cents", {"price": price, "cents": 5}, as_=[boss, bot])
    assert (both.outcome, both.problem) == (
        ActionOutcome.DENIED, "Bot may not change the cents of Price bun."
    )
    assert app.actions.run("set_cents", {"price": price, "cents": 5}, as_=boss).done


def test_misdeclared_actions_are_refused_at_registration() -> None:
    """A record parameter without Choices, an unannotated one, *args: UserError with the fix."""
    app = App("t", database="sqlite://")

    class Box(app.Record):  # type: ignore[name-defined, misc]
        __security__ = [allow("read")]

    def move(thing: str, box: Box) -> None:
        """Move a thing."""

    def loose(thing) -> None:  # type: ignore[no-untyped-def]
        """No annotation."""

    def many(*things: str) -> None:
        """Varargs."""

    with pytest.raises(UserError, match=r"Annotated\[Box, Choices\(fn\)\]"):
        app.add_action(move)
    with pytest.raises(UserError, match="give it a type annotation"):
        app.add_action(loose)
    with pytest.raises(UserError, match=r"\*args and \*\*kwargs"):
        app.add_action(many)


def test_choices_required_record_parameter_is_looked_up_as_the_caller() -> None:
    """A record parameter with Choices is given by id and read as the caller."""
    app = App("t", database="sqlite://")
    secret_ok = policy.where(lambda p, r: r is None or not r.secret or "vip" in p.roles, "vip")

    class Room(app.Record):  # type: ignore[name-defined, misc]
        name: Mapped[str] = mapped_column(String(20), unique=True)
        secret: Mapped[bool] = mapped_column(default=False)
        __security__ = [allow("create"), allow("read", when=secret_ok)]

    class Guest(app.Record):  # type: ignore[name-defined, misc]
        name: Mapped[str] = mapped_column(String(20), unique=True)
        room: Mapped[str] = mapped_column(String(20), default="")
        __security__ = [allow("read", "create", "update")]

    def rooms(session: Session) -> list[Room]:
        return list(session.scalars(select(Room).order_by(Room.name)))

    @app.action
    def assign(guest: Guest, room: Annotated[Room, Choices(rooms)]) -> str:
        """Give a guest a room."""
        guest.room = room.name
        return f"{guest.name} → {room.name}"

    vip = app.people.add("v@x.example", "Vi", roles=["vip"])
    joe = app.people.add("j@x.example", "Jo")
    with app.session(as_=vip) as s:
        hall, vault, guest = Room(name="Hall"), Room(name="Vault", secret=True), Guest(name="Ed")
        s.add_all([hall, vault, guest])
    assert [label for _, label in app.actions.choices("assign", "room", as_=joe)] == ["Room Hall"]
    assert len(app.actions.choices("assign", "room", as_=vip)) == 2
    refused = app.actions.run("assign", {"guest": guest, "room": str(vault.id)}, as_=joe)
    assert refused.outcome is ActionOutcome.GONE
    assert app.actions.run("assign", {"guest": guest, "room": str(vault.id)}, as_=vip).done


def test_an_outside_call_keeps_no_write_lock_while_it_is_out(tmp_path: Path) -> None:
    """An action that reaches outside and writes no record holds no SQLite write lock while it
    is out: another writer of the same database file goes on meanwhile (before, it waited for
    the call to come back, and failed once its busy timeout passed)."""
    import os
    import threading
    import time

    app = App("t", database=f"sqlite:///{tmp_path / 't.db'}")
    clerk = app.people.add("clerk@t.example", "Clerk")
    letters, went, back = (str(tmp_path / name) for name in ("letters.txt", "out", "back"))

    @app.action("Post a letter")
    def post(text: str) -> str:
        """Says it is out, waits until it is let go, then writes the letter to a file (all of
        it code the analysis sees: it writes no record, and is known to write none)."""
        with open(went, "w", encoding="utf-8"):
            pass
        while not os.path.exists(back):
            time.sleep(0.01)
        with open(letters, "a", encoding="utf-8") as file:
            file.write(text)
        return "Posted."

    effects = app.actions.info("post").effects
    assert effects.external
    assert not effects.changes
    posted: list[Any] = []
    added: list[Any] = []
    poster = threading.Thread(target=lambda: posted.append(
        app.actions.run("post", {"text": "Dear Ola"}, as_=clerk)))
    poster.start()
    deadline = time.monotonic() + 60
    while not os.path.exists(went):
        assert time.monotonic() < deadline, "the action did not go out"
        time.sleep(0.01)

    def add() -> None:
        try:
            added.append(app.people.add("ola@t.example", "Ola"))
        except Exception as error:  # what the test reports, not a failure of the thread
            added.append(error)

    writer = threading.Thread(target=add)
    writer.start()
    writer.join(120)
    still_out = not os.path.exists(back)
    open(back, "w").close()
    poster.join(120)
    assert still_out
    assert len(added) == 1
    assert not isinstance(added[0], Exception), added[0]
    assert posted[0].done, posted[0].problem
    assert Path(letters).read_text() == "Dear Ola"


def test_an_outside_actions_own_transactions_begin_as_writers_do(tmp_path: Path) -> None:
    """An action that reaches outside is admitted in a reader's transaction, but one it opens
    itself begins as writers' do, taking the write lock at once: so one that reads and then
    writes waits its turn instead of failing with "database is locked" when another writer
    committed in between (another writer meanwhile cannot begin)."""
    import sqlite3

    from sqlalchemy import text

    app = App("t", database=f"sqlite:///{tmp_path / 't.db'}")
    clerk = app.people.add("clerk@t.example", "Clerk")
    seen: dict[str, str] = {}

    @app.action("Post and keep a note")
    def post(tags: list[str]) -> str:
        """Writes the tags to a file outside, in a transaction of its own on the app's file."""
        with open(tmp_path / "sent.txt", "a", encoding="utf-8") as sent:
            sent.write(" ".join(tags))
        with app.database.connect() as db:
            db.execute(text("select 1")).scalar()
            other = sqlite3.connect(tmp_path / "t.db", timeout=0, isolation_level=None)
            try:
                other.execute("begin immediate")
                other.execute("rollback")
                seen["other writer"] = "began"
            except sqlite3.OperationalError as error:
                seen["other writer"] = str(error)
            finally:
                other.close()
        return "Posted."

    assert app.actions.info("post").effects.external
    result = app.actions.run("post", {"tags": ["a", "b"]}, as_=clerk)
    assert result.done, result.problem
    assert seen == {"other writer": "database is locked"}


def test_an_outside_call_through_code_the_analysis_cannot_see_keeps_its_writes(
        tmp_path: Path) -> None:
    """An action that reaches outside and also calls code the analysis cannot see (which may
    write records, so its effects say it changes something) runs in an ordinary transaction:
    what that code wrote is kept, not rolled back with a reader's transaction."""
    import operator

    app = App("t", database=f"sqlite:///{tmp_path / 't.db'}")
    clerk = app.people.add("clerk@t.example", "Clerk")

    class Label(app.Record):  # type: ignore[name-defined, misc]
        text: Mapped[str] = mapped_column(String(40), default="")
        __security__ = [allow("read", "update", "create")]

    def write(label: Any) -> None:
        label.text = "written"

    steps = {"write": write}

    @app.action("Label and post")
    def label_and_post(label: Label, how: str) -> str:
        """Writes the label by a step named at run time, then reaches outside."""
        operator.getitem(steps, how)(label)
        socket_name = "post"  # an outside reach the analysis sees
        open(tmp_path / socket_name, "a").close()
        return "labelled"

    effects = app.actions.info("label_and_post").effects
    assert effects.external
    assert "" in effects.changes
    with app.session(as_=app.system) as s:
        label = Label()
        s.add(label)
        s.flush()
        label_id = label.id
    result = app.actions.run("label_and_post", {"label": str(label_id), "how": "write"},
                             as_=clerk)
    assert result.done, result.problem
    with app.session(as_=app.system) as s:
        assert s.get(Label, label_id).text == "written"


def test_a_record_inside_a_structure_is_looked_up_as_whoever_the_run_is_for() -> None:
    """A record held inside a parameter's structure (a list of lines, each naming a repair) is
    looked up as whoever the action runs as, like a record given on its own: Mia's line names
    her repair; Eve, who may not read it, and an id of nothing are told Gone, and the action
    does not run. (An action whose parameters take only plain values runs with no session.)"""
    app = App("nested", database="sqlite://")

    class Repair(app.Record):  # type: ignore[name-defined, misc]
        ticket: Mapped[str] = mapped_column(String(40))
        __security__ = [allow("read", "update", "create", when=policy.role("mechanic"))]

    class Line(BaseModel):
        model_config = {"arbitrary_types_allowed": True}
        repair: Repair
        text: str

    ran: list[str] = []

    @app.action
    def note_lines(lines: list[Line]) -> str:
        """Note each line against its repair."""
        ran.extend(line.repair.ticket for line in lines)
        return "Noted."

    mia = app.people.add("mia@nested.example", "Mia", roles=["mechanic"])
    eve = app.people.add("eve@nested.example", "Eve")
    with app.session(as_=mia) as s:
        repair = Repair(ticket="T-1")
        s.add(repair)
    line = {"lines": [{"repair": str(repair.id), "text": "Pads."}]}
    assert app.actions.run("note_lines", line, as_=mia).outcome is ActionOutcome.DONE
    assert ran == ["T-1"]
    refused = app.actions.run("note_lines", line, as_=eve)
    assert refused.outcome is ActionOutcome.GONE, refused
    nothing = {"lines": [{"repair": str(uuid.uuid4()), "text": "Pads."}]}
    assert app.actions.run("note_lines", nothing, as_=mia).outcome is ActionOutcome.GONE
    assert ran == ["T-1"]


def test_plain_data_is_told_from_what_may_hold_a_record() -> None:
    """A parameter takes plain data (its action needs no session) when its type is a plain kind
    or a list, tuple, set or dict of them, or of anything; a record, a list of records, or a
    structure of the app's own (whose validation is given the session) does not."""
    app = App("plain", database="sqlite://")

    class Tag(app.Record):  # type: ignore[name-defined, misc]
        text: Mapped[str] = mapped_column(String(40))
        __security__ = [allow("read")]

    class Line(BaseModel):
        text: str

    @dataclass
    class Pair:
        a: int

    @app.action
    def take(tags: list[str], named: dict[str, Any], counts: tuple[int, ...],
             amounts: dict[str, list[Decimal]], maybe: list[str] | None,
             bare: list, labelled: Annotated[list[int], "sizes"],  # type: ignore[type-arg]
             records: list[Tag], lines: list[Line], pairs: dict[str, Pair], line: Line,
             sizes: list[Annotated[int, {"unit": "mm"}]]) -> str:
        """Takes each sort of value."""
        return "taken"

    plain = {p.name: p.takes_plain_data for p in app.actions.get("take").all_parameters}
    assert plain == {"tags": True, "named": True, "counts": True, "amounts": True, "maybe": True,
                     "bare": True, "labelled": True, "records": False, "lines": False,
                     "pairs": False, "line": False, "sizes": True}


def test_a_conflict_is_known_through_the_sentence_the_store_tells_it_in() -> None:
    """A serialization failure or a deadlock that reaches a run as signoff's `StoreError` (the
    transaction of an action that needs no session is the database's own, which tells the
    driver's errors in a sentence) is still known as a conflict, so the run is run again; any
    other error is not."""
    from psycopg import errors
    from sqlalchemy.exc import OperationalError

    from signoff.exceptions import StoreError
    from signoff.store.database import is_conflict

    def told(driver_error: Exception) -> StoreError:
        wrapped = OperationalError("COMMIT", {}, driver_error)
        try:
            raise StoreError("The database refused a statement.") from wrapped
        except StoreError as error:
            return error

    assert is_conflict(told(errors.SerializationFailure("could not serialize access")))
    assert is_conflict(told(errors.DeadlockDetected("deadlock detected")))
    assert not is_conflict(told(errors.UniqueViolation("duplicate key")))


def _parts(database: str) -> SimpleNamespace:
    """An app whose parts have a name and a Numeric(8, 2) price, and one part."""
    app = App("fits", database=database)

    class Part(app.Record):  # type: ignore[name-defined, misc]
        name: Mapped[str] = mapped_column(String(20), default="")
        price: Mapped[Decimal] = mapped_column(Numeric(8, 2), default=Decimal(0))
        stock: Mapped[int] = mapped_column(default=0)
        serial: Mapped[int] = mapped_column(BigInteger, default=0)
        __security__ = [allow("read", "create", "update")]

    @app.action
    def set_price(part: Part, to: str) -> None:
        """Set the part's price."""
        part.price = Decimal(to)

    @app.action
    def rename(part: Part, to: str) -> None:
        """Rename the part."""
        part.name = to

    @app.action
    def count(part: Part, stock: int, serial: int = 0) -> None:
        """Count the part's stock, and number it."""
        part.stock, part.serial = stock, serial

    mia = app.people.add("mia@x.example", "Mia")
    with app.session(as_=mia) as s:
        part = Part()
        s.add(part)
    return SimpleNamespace(app=app, Part=Part, mia=mia, part=part)


@pytest.mark.parametrize(("price", "told"), [
    ("1E+12", "keeps at most 6 digits before the point (rounded to 2 after it); the value "
              "given has 13."),
    ("-1E+12", "keeps at most 6 digits before the point"),
    ("1" + "0" * 5000, "the value given has 5001."),
    ("999999.995", "the value given has 7."),  # rounded to its scale, as PostgreSQL rounds it
    ("Infinity", "must be a finite number, not Infinity."),
])
def test_a_number_a_decimal_column_cannot_keep_is_refused_not_stored(database: str, price: str,
                                                                     told: str) -> None:
    """A value with more digits before the point than a Numeric(8, 2) column keeps (once
    rounded to its scale), or one that is not finite, is refused (Invalid) on SQLite as
    PostgreSQL refuses it, and nothing is stored: SQLite would keep a float, even infinity."""
    shop = _parts(database)
    refused = shop.app.actions.run("set_price", {"part": shop.part.id, "to": price}, as_=shop.mia)
    assert refused.outcome is ActionOutcome.INVALID
    assert refused.problem.startswith("Part's price ")
    assert told in refused.problem
    with shop.app.session(as_=shop.mia) as s:
        assert s.get(shop.Part, shop.part.id).price == Decimal(0)
    shop.app.database.dispose()


@pytest.mark.parametrize(("price", "kept"), [("123456.78", "123456.78"), ("-999999.99", "-999999.99"),
                                             ("999999.994", "999999.99"), ("0.001", "0.00")])
def test_a_number_a_decimal_column_keeps_is_stored_as_it_rounds(database: str, price: str,
                                                                kept: str) -> None:
    """A value that fits once rounded to the column's scale is kept, rounded so."""
    shop = _parts(database)
    assert shop.app.actions.run("set_price", {"part": shop.part.id, "to": price}, as_=shop.mia).done
    with shop.app.session(as_=shop.mia) as s:
        assert s.get(shop.Part, shop.part.id).price == Decimal(kept)
    shop.app.database.dispose()


@pytest.mark.parametrize(("given", "told"), [
    ({"stock": 2**31}, "Part's stock keeps whole numbers from -2,147,483,648 to 2,147,483,647 "
                       "(its column is Integer; BigInteger keeps larger ones); the value given "
                       "is 2,147,483,648."),
    ({"stock": -2**31 - 1}, "the value given is -2,147,483,649."),
    ({"stock": 0, "serial": 2**63}, "Part's serial keeps whole numbers from "
                                    "-9,223,372,036,854,775,808 to 9,223,372,036,854,775,807 "
                                    "(its column is BigInteger); the value given is "
                                    "9,223,372,036,854,775,808."),
    ({"stock": 10**30}, "the value given is a number of about 31 digits."),
    ({"stock": -10**5000}, "the value given is a number of about 5,001 digits."),
])
def test_a_whole_number_its_column_cannot_keep_is_refused_not_stored(
        database: str, given: dict[str, int], told: str) -> None:
    """A whole number past what its column's type keeps on PostgreSQL is Invalid, told in a
    sentence, on SQLite too: SQLite kept an Integer's 2**31 (PostgreSQL refused it as a raw
    database error, and the call Failed), and past 64 bits the driver's OverflowError made the
    call Failed with a traceback in the log."""
    shop = _parts(database)
    refused = shop.app.actions.run("count", {"part": shop.part.id, **given}, as_=shop.mia)
    assert refused.outcome is ActionOutcome.INVALID, refused.problem
    assert told in refused.problem
    with shop.app.session(as_=shop.mia) as s:
        assert (s.get(shop.Part, shop.part.id).stock, s.get(shop.Part, shop.part.id).serial) == (
            0, 0)
    shop.app.database.dispose()


def test_a_whole_number_its_column_keeps_is_stored(database: str) -> None:
    """At the edges of their types' ranges, whole numbers are kept as given."""
    shop = _parts(database)
    given = {"stock": -2**31, "serial": 2**63 - 1}
    assert shop.app.actions.run("count", {"part": shop.part.id, **given}, as_=shop.mia).done
    with shop.app.session(as_=shop.mia) as s:
        part = s.get(shop.Part, shop.part.id)
        assert (part.stock, part.serial) == (-2**31, 2**63 - 1)
    shop.app.database.dispose()


def test_a_number_stored_before_does_not_stop_a_change_to_another_field(tmp_path: Path) -> None:
    """Only the numbers given are checked: a record whose price SQLite kept out of its column's
    range (written before, or by other code) can still be renamed."""
    shop = _parts(f"sqlite:///{tmp_path / 'parts.db'}")
    with shop.app.database.connect() as db:
        db.exec_driver_sql("UPDATE part SET price = 1e12")
    renamed = shop.app.actions.run("rename", {"part": shop.part.id, "to": "pads"}, as_=shop.mia)
    assert renamed.done, renamed.problem
    shop.app.database.dispose()


def test_for_record_leaves_out_what_the_records_rules_refuse() -> None:
    """An action that changes the record is listed only for those its rules let update it, and
    one that assigns a field a column rule protects only for those the rule lets change it;
    one that deletes it only for those who may delete it. Each listing agrees with a run."""
    app = App("t", database="sqlite://")
    is_boss = policy.role("boss")

    class Ledger(app.Record):  # type: ignore[name-defined, misc]
        note: Mapped[str] = mapped_column(String(40), default="")
        total: Mapped[int] = mapped_column(default=0)
        __security__ = [
            allow("read"),
            allow("create", "update", when=policy.role("clerk") | is_boss),
            allow("delete", when=is_boss),
            deny("update", "total", when=~is_boss),
        ]

    @app.action
    def look(ledger: Ledger) -> str:
        """Look at it."""
        return ledger.note

    @app.action
    def annotate(ledger: Ledger, note: str) -> None:
        """Write a note."""
        ledger.note = note

    @app.action
    def add(ledger: Ledger, amount: int) -> None:
        """Add to the total."""
        ledger.total += amount

    @app.action
    def close(ledger: Ledger) -> None:
        """Close it."""
        with app.session() as session:
            session.delete(session.get(Ledger, ledger.id))

    boss = app.people.add("boss@x.example", "Bo", roles=["boss"])
    clerk = app.people.add("clerk@x.example", "Cy", roles=["clerk"])
    reader = app.people.add("reader@x.example", "Ri")
    with app.session(as_=boss) as session:
        ledger = Ledger()
        session.add(ledger)
    listed = {who.name: [i.name for i in app.actions.for_record(ledger, as_=who)]
              for who in (boss, clerk, reader)}
    assert listed == {"Bo": ["add", "annotate", "close", "look"],
                      "Cy": ["annotate", "look"], "Ri": ["look"]}
    for who in (boss, clerk, reader):
        for name, arguments in (("annotate", {"note": "ok"}), ("add", {"amount": 1})):
            ran = app.actions.run(name, {"ledger": ledger, **arguments}, as_=who)
            assert (ran.outcome is ActionOutcome.DONE) == (name in listed[who.name]), (who, name)
