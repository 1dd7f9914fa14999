"""What an action spends where the analysis cannot count it: code it cannot see, and a lambda or
local function that calls itself. Each function here really runs (its charges are counted), and
the analysis must not describe it as spending less than it does."""

from __future__ import annotations

import functools
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from signoff import Agent, App, Leave, Permits, Skill, spends
from signoff.effects import EffectKind, Effects, analyse
from signoff.testing import ScriptedModel, says

_CHARGES: list[int] = []
"""What `_charge` really charged, one entry a call."""


@spends(cost=0.10)
def _charge(k: int) -> None:
    """Ten cents a call."""
    _CHARGES.append(k)


@pytest.fixture(autouse=True)
def _charges_counted_afresh() -> Iterator[None]:
    _CHARGES.clear()
    yield
    _CHARGES.clear()


def _amount_unknown(effects: Effects) -> bool:
    """Whether `effects` say the action spends an amount that is not known (so that a budget
    refuses it), and why: a cost met over and over, or code that cannot be seen."""
    unseen = any(e.kind is EffectKind.SPENDS and e.reason for e in effects.effects)
    return effects.spends and effects.cost_usd is None and (effects.cost_repeats or unseen)


# --- code the analysis cannot see ------------------------------------------------------------


def _payers_in_a_list(n: int) -> None:
    payers = [_charge] * 3
    payers[0](n)
    payers[1](n)
    payers[2](n)


def _payer_by_a_computed_name(n: int, kind: str = "charge") -> None:
    getattr(sys.modules[__name__], "_" + kind)(n)


def _payer_handed_in(n: int, pay: Callable[[int], None] = _charge) -> None:
    pay(n)


_MADE_BY_EXEC: dict[str, Any] = {"_charge": _charge}
exec("def made_by_exec(n):\n    _charge(n)\n    _charge(n)\n", _MADE_BY_EXEC)


def _payer_whose_source_is_not_available(n: int) -> None:
    _MADE_BY_EXEC["made_by_exec"](n)


@pytest.mark.parametrize("function", [
    _payers_in_a_list, _payer_by_a_computed_name, _payer_handed_in,
    _payer_whose_source_is_not_available,
])
def test_code_that_cannot_be_seen_spends_and_sends_an_amount_not_known(
        function: Callable[[int], None]) -> None:
    """A call the analysis cannot resolve was taken to change and reach outside, but neither
    to send nor to spend: an action paying through a list of helpers (``payers[0](n)``) read
    as spending nothing, so it ran alone under ``spends=NEVER`` and charged past its budget.
    What cannot be seen now spends an amount not known, and sends, and says why."""
    function(1)
    assert len(_CHARGES) >= 1  # (it really charges)
    effects = analyse(function, name="pay")
    assert _amount_unknown(effects), effects.explain()
    assert effects.sends
    assert effects.external
    assumed = [e for e in effects.effects if e.kind is EffectKind.SPENDS and e.reason]
    assert assumed[0].words().startswith("may spend any amount: ")


def test_an_action_that_declares_its_whole_cost_bounds_code_it_cannot_see() -> None:
    """What a whole run spends, declared on the action itself, bounds what its unseen code
    spends, as it bounds a cost met in a loop (never less than its helpers' costs)."""

    @spends(cost=0.5)
    def bounded(n: int) -> None:
        _payers_in_a_list(n)
        _charge(n)

    bounded(1)
    assert len(_CHARGES) == 4
    effects = analyse(bounded, name="bounded")
    assert (effects.spends, effects.cost_usd) == (True, 0.5)


def test_an_analysis_that_fails_is_taken_to_spend_and_send() -> None:
    """Where the analysis gives up on an action, it is taken to do everything but read."""
    effects = Effects.unknown("pay", "the analysis could not follow this code")
    assert {e.kind for e in effects.effects} == {
        EffectKind.CHANGES, EffectKind.EXTERNAL, EffectKind.SENDS, EffectKind.SPENDS}
    assert effects.cost_usd is None


# --- a lambda or local function calling itself ----------------------------------------------


def _lambda_by_its_name(n: int) -> None:
    f: Any = lambda k: (_charge(k), k > 0 and f(k - 1))  # noqa: E731
    f(n)


def _lambda_spending_after_it_recursed(n: int) -> None:
    f: Any = lambda k: (k > 0 and f(k - 1), _charge(k))  # noqa: E731
    f(n)


def _lambda_through_another_name(n: int) -> None:
    again: Any = None
    f = lambda k: (_charge(k), k > 0 and again(k - 1))  # noqa: E731
    again = f
    f(n)


def _lambda_handed_itself(n: int) -> None:
    f: Any = lambda k, me: (_charge(k), k > 0 and me(k - 1, me))  # noqa: E731
    f(n, f)


def _lambda_handed_itself_by_another(n: int) -> None:
    (lambda g: g(g, n))(lambda me, k: (_charge(k), k > 0 and me(me, k - 1)))


def _lambda_in_a_default_argument(n: int) -> None:
    def go(k: int, again: Any = lambda k, me: (_charge(k), k > 0 and me(k - 1, me))) -> None:
        again(k, again)

    go(n)


def _lambda_in_a_dict_entry(n: int) -> None:
    table: dict[str, Any] = {}
    table["f"] = lambda k: (_charge(k), k > 0 and table["f"](k - 1))
    table["f"](n)


def _lambda_on_an_attribute(n: int) -> None:
    holder = types.SimpleNamespace()
    holder.f = lambda k: (_charge(k), k > 0 and holder.f(k - 1))
    holder.f(n)


def _lambda_through_a_partial_of_itself(n: int) -> None:
    step: Any = lambda me, k: (_charge(k), k > 0 and me(k - 1))  # noqa: E731
    again: Any = None
    again = functools.partial(lambda k: step(again, k))
    again(n)


def _local_function_through_another_name(n: int) -> None:
    def go(k: int) -> None:
        _charge(k)
        if k > 0:
            again(k - 1)

    again = go
    go(n)


def _local_functions_calling_each_other(n: int) -> None:
    def ping(k: int) -> None:
        _charge(k)
        if k > 0:
            pong(k - 1)

    def pong(k: int) -> None:
        ping(k)

    ping(n)


_MODULE_LAMBDA: Any = lambda k: (_charge(k), k > 0 and _MODULE_LAMBDA(k - 1))  # noqa: E731


def _module_lambda_by_its_name(n: int) -> None:
    _MODULE_LAMBDA(n)


def _through_a_module_partial(k: int) -> None:
    _charge(k)
    if k > 0:
        _MODULE_PARTIAL(k - 1)


_MODULE_PARTIAL = functools.partial(_through_a_module_partial)


def _module_partial_of_itself(n: int) -> None:
    _MODULE_PARTIAL(n)


@pytest.mark.parametrize("function", [
    _lambda_by_its_name, _lambda_spending_after_it_recursed, _lambda_through_another_name,
    _lambda_handed_itself, _lambda_handed_itself_by_another, _lambda_in_a_default_argument,
    _lambda_in_a_dict_entry, _lambda_on_an_attribute, _lambda_through_a_partial_of_itself,
    _local_function_through_another_name, _local_functions_calling_each_other,
    _module_lambda_by_its_name, _module_partial_of_itself,
])
def test_a_function_calling_itself_spends_an_amount_not_known(
        function: Callable[[int], None]) -> None:
    """A lambda calling itself (``f = lambda k: (_charge(k), k > 0 and f(k - 1))``) was taken
    to spend its helper's $0.10 once, so it ran alone under a $0.25 budget and charged eleven
    times; so did a local function calling itself through another name, or two calling each
    other. However it reaches itself — by its name, another, a default argument, a dict entry,
    an attribute, a partial, handed itself — it runs over and over, as a loop's body: what it
    spends is not known."""
    function(2)
    assert len(_CHARGES) == 3  # (it really charges once a call of itself)
    effects = analyse(function, name="pay")
    assert _amount_unknown(effects), effects.explain()


def _lambda_called_twice(n: int) -> None:
    f = lambda k: _charge(k)  # noqa: E731
    f(n)
    f(n)


def _local_function_called_twice(n: int) -> None:
    def go(k: int) -> None:
        _charge(k)

    go(n)
    go(n)


@pytest.mark.parametrize("function", [_lambda_called_twice, _local_function_called_twice])
def test_a_local_function_called_from_two_places_counts_its_cost_twice(
        function: Callable[[int], None]) -> None:
    """Where a lambda or local function is called from counts as where a module's function
    is: called twice, its $0.10 helper spends $0.20 (it was counted once)."""
    function(1)
    assert len(_CHARGES) == 2
    effects = analyse(function, name="pay")
    assert (effects.cost_usd, effects.cost_repeats) == (pytest.approx(0.2), False)


def _a_charge_then_a_recursion_that_spends_nothing(n: int) -> None:
    _charge(n)
    count: Any = lambda k: k > 0 and count(k - 1)  # noqa: E731
    count(n)


def test_a_recursion_that_spends_nothing_leaves_a_cost_known() -> None:
    """Only what a function calling itself spends repeats: a charge beside it stays $0.10."""
    _a_charge_then_a_recursion_that_spends_nothing(3)
    assert len(_CHARGES) == 1
    effects = analyse(_a_charge_then_a_recursion_that_spends_nothing, name="pay")
    assert (effects.cost_usd, effects.cost_repeats) == (0.10, False)


# --- the promise, end to end ------------------------------------------------------------------


class _Done(BaseModel):
    summary: str


def _shop() -> tuple[App, Any, Any]:
    app = App("spending", database="sqlite://")

    @app.action("Buy through a list of payers", untrusted=False)
    def buy_listed(n: int) -> str:
        """Buy n parts."""
        _payers_in_a_list(n)
        return "bought"

    @app.action("Buy by a lambda calling itself", untrusted=False)
    def buy_recursively(n: int) -> str:
        """Buy n + 1 parts."""
        f: Any = lambda k: (_charge(k), k > 0 and f(k - 1))  # noqa: E731
        f(n)
        return "bought"

    return app, buy_listed, buy_recursively


@pytest.mark.parametrize(("permits", "tool", "told"), [
    (Permits(spends=Leave.NEVER, reaches_out=Leave.ALONE, changes=Leave.ALONE), "buy_listed",
     "may never use"),
    (Permits(spends=Leave.ALONE, reaches_out=Leave.ALONE, sends=Leave.ALONE,
             changes=Leave.ALONE), "buy_listed", "runs code the analysis cannot see"),
    (Permits(spends=Leave.ALONE, reaches_out=Leave.ALONE), "buy_recursively",
     "calls something that spends inside a loop"),
], ids=["never-spends", "over-budget", "recursion-over-budget"])
def test_an_agent_does_not_run_alone_what_spends_an_amount_not_known(
        permits: Permits, tool: str, told: str) -> None:
    """End to end, under the permits of the review that found them: the action paying through
    a list of payers ran alone under ``spends=NEVER`` and charged $0.60 on a $0.05 budget; the
    one paying by a lambda calling itself ran alone and charged eleven times on a $0.25 budget.
    Each is now refused, nothing charged."""
    app, buy_listed, buy_recursively = _shop()
    tools = {"buy_listed": buy_listed, "buy_recursively": buy_recursively}

    class Buy(Skill[None, _Done]):
        description = "Buy parts."

    Buy.tools = [tools[tool]]

    class Buyer(Agent):
        purpose = "You buy parts."
        skills = [Buy()]

    Buyer.may = permits
    noor = app.people.add("noor@spending.example", "Noor")
    app.add_agent(Buyer, sponsor=noor)
    model = ScriptedModel(says.tool(tools[tool], n=10), says.hand_back(_Done(summary="ok")))
    outcome = app.agent(Buyer).do(Buy(), None, model=model, budget_usd=0.25)
    assert _CHARGES == []
    assert app.proposals(task=outcome.task) == []
    calls = [e.words for e in app.receipt(outcome.task).entries if e.kind.name == "TOOL_CALL"]
    assert len(calls) == 1
    assert told in calls[0], calls


def test_a_model_holding_a_record_is_dumped_by_code_that_is_known() -> None:
    """A record's pydantic schema is signoff's own code (it gives a record as its id and
    values): a model holding one, dumped, does nothing more. Run from signoff's source rather
    than installed, it was taken for the app's code, which tells pydantic its own schema — to
    do anything, and so to spend an amount not known."""
    app = App("shelves", database="sqlite://")

    class Shelf(app.Record):  # type: ignore[name-defined, misc]
        pass

    class Stock(BaseModel):
        shelf: Shelf

    def dump(stock: Stock) -> dict[str, Any]:
        return stock.model_dump()

    effects = analyse(dump, name="dump", localns={"Stock": Stock})
    assert effects.explain() == []


_HOOKED = '''
import sys
from typing import Any
from pydantic import BaseModel, model_serializer


class Stamped(BaseModel):
    """A model whose serializer calls what a computed name names: code the analysis cannot
    follow."""

    value: int = 0
    kind: str = "stamper"

    @model_serializer
    def _as_data(self) -> Any:
        return getattr(sys.modules[__name__], self.kind)(self.value)


def stamper(value: int) -> int:
    return value
'''

_DUMPING = '''
from typing import Any
from mcp.types import TextContent
{imports}


def dump(text: str) -> Any:
    """A library's model turned into data: one of its fields may hold any model."""
    return TextContent(type="text", text=text).model_dump()
'''


def _package(root: Any, name: str, files: dict[str, str]) -> None:
    folder = root / name
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    for file, text in files.items():
        (folder / f"{file}.py").write_text(text)


def _hooked_and_plain(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """An app's package whose model's serializer cannot be followed, and another package that
    dumps a library's model whose field may hold any model, importing nothing of the first."""
    _package(tmp_path, "app_hooked", {"models": _HOOKED,
                                      "dumping": _DUMPING.format(imports="from . import models")})
    _package(tmp_path, "app_plain", {"dumping": _DUMPING.format(imports="")})
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [m for m in sys.modules if m.startswith(("app_hooked", "app_plain"))]:
        monkeypatch.delitem(sys.modules, name)
    import app_hooked.dumping  # type: ignore[import-not-found]
    import app_plain.dumping  # type: ignore[import-not-found]

    return types.SimpleNamespace(hooked=app_hooked.dumping, plain=app_plain.dumping)


def test_an_apps_model_counts_wherever_its_code_has_it_serialized(
        tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """An app's model may reach code of another package that imports neither it nor its module
    (the app hands it over): a value of no known type that pydantic serializes there may be it,
    so its serializer, which cannot be followed, is taken to do everything."""
    found = _hooked_and_plain(tmp_path, monkeypatch)
    assert analyse(found.hooked.dump, name="dump").spends
    assert analyse(found.plain.dump, name="dump").spends


_LINES = """\
from dataclasses import dataclass
from signoff import App
from signoff.effects import analyse
from signoff.mcp import guard

app = App("lines", database="sqlite://")


@dataclass
class Line:
    qty: int


@app.action
def order(line: Line) -> int:
    \"\"\"Order a line.\"\"\"
    return line.qty


answered = analyse(guard._answer_of, name="answer_of")
print(answered.spends, answered.external, answered.explain())
"""


def test_a_structures_number_check_only_reads_where_the_analysis_meets_it(tmp_path: Any) -> None:
    """An app's parameter structure with a number in it is given through a mirror model, whose
    check of text for a number the analysis meets wherever a value of no known type is written
    (the guard's answers too): it only reads. Iterating the text's characters, whose type the
    analysis did not know, it read as doing anything, and the guard's every call as spending.
    (An app of a script run as itself, whose models the analysis takes for any model's.)"""
    import subprocess

    (tmp_path / "lines.py").write_text(_LINES)
    told = subprocess.run([sys.executable, str(tmp_path / "lines.py")], capture_output=True,
                          text=True, timeout=120, check=False)
    assert told.returncode == 0, told.stderr
    assert told.stdout.strip() == "False False []", told.stdout


def test_an_apps_model_does_not_count_for_the_guards_own_code(
        tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The MCP guard passes on what an upstream answered, data from the wire: no model of an
    app's reaches it. An app's model loaded in the same process (a test run loads hundreds)
    made every guarded tool read as spending an amount not known, once a test had defined a
    model with a serializer that cannot be followed, and each guarded call was refused under
    the guard's budget."""
    from signoff.mcp import guard

    found = _hooked_and_plain(tmp_path, monkeypatch)
    assert analyse(found.plain.dump, name="dump").spends  # (the app's model is loaded)
    answered = analyse(guard._answer_of, name="answer_of")
    assert not answered.spends, answered.explain()
    assert not answered.external, answered.explain()
