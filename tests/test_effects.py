"""The effect analysis: a corpus of small functions, each classified as expected."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from signoff.effects import Effect, EffectKind, Effects, RaiseSite, analyse, raises
from tests.effects_corpus import actions as corpus

R = "Repair"
PURE: set[tuple[str, str]] = set()
UNKNOWN = {("changes", ""), ("external", "")}

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
    "sql_unknown_text": {("changes", "")},
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
    # cannot be seen: assumed to change anything and reach outside
    "dynamic_dispatch": UNKNOWN,
    "callback_param": UNKNOWN,
    "computed_getattr": UNKNOWN | {("reads", R)},
    "eval_code": UNKNOWN,
    "dict_dispatch": UNKNOWN,
    "c_outside_allowlist": UNKNOWN,
    "callback_to_helper": UNKNOWN,
    # an object carrying __wrapped__ (as signoff wraps actions) is followed
    "wrapped_set_price": {("reads", R), ("changes", R)},
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
        ("set_price", "changes Repair: set_price -> repair.price ="),
        ("bump_price", "changes Repair: bump_price -> repair.price +="),
        ("notify", "external httpx.post: notify -> helpers.post_it -> httpx.post"),
        (
            "change_through_helper",
            "changes Repair: change_through_helper -> helpers.rename -> repair.title =",
        ),
        ("text_customer", "sends: text_customer -> helpers.sms -> @sends"),
        ("global_counter", "changes: global_counter -> global COUNTER +="),
        ("write_file", "external builtins.open: write_file -> builtins.open(mode='w')"),
    ],
)
def test_effects_explain_their_path(name: str, line: str) -> None:
    """Each effect comes with the call path that explains it."""
    assert line in analyse(getattr(corpus, name), name=name).explain()


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


def test_declared_cost_is_kept() -> None:
    """A ``@spends(cost=...)`` on the path gives the action's cost."""
    assert analyse(corpus.charge_card, name="charge_card").cost_usd == 0.5


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
