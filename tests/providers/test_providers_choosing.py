"""Choosing a model: specs on the command line and in the environment, prices, the SDKs as
extras, and a model named in words kept with its task (the real SDKs; a loopback
`ProviderServer` where a request is made)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from signoff import TaskStatus
from signoff.models import (
    PRICES,
    AnthropicModel,
    ModelNotConfigured,
    OpenAICompatibleModel,
    OpenAIModel,
    Price,
    model_from,
    price_of,
)
from tests.provider_servers import Canned, ProviderServer, openai_completion
from tests.providers.wire import repair_shop


@pytest.mark.parametrize(("spec", "kind", "name", "base_url"), [
    ("openai:gpt-4o-mini", OpenAIModel, "openai:gpt-4o-mini", None),
    ("gpt-4o-mini", OpenAIModel, "openai:gpt-4o-mini", None),
    ("anthropic:claude-haiku-4-5", AnthropicModel, "anthropic:claude-haiku-4-5", None),
    ("claude-haiku-4-5", AnthropicModel, "anthropic:claude-haiku-4-5", None),
    ("openai-compatible:llama3@http://127.0.0.1:8000/v1", OpenAICompatibleModel,
     "openai-compatible:llama3", "http://127.0.0.1:8000/v1/"),
])
def test_model_from_a_spec(monkeypatch: pytest.MonkeyPatch, spec: str, kind: type,
                           name: str, base_url: str | None) -> None:
    """A ``--model`` spec gives that provider's model, named ``provider:model``; no request is
    made to make it."""
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    model = model_from(spec)
    assert isinstance(model, OpenAIModel | AnthropicModel)
    assert isinstance(model, kind)
    assert model.name == name
    if base_url:
        assert model.base_url == base_url
    model.close()


@pytest.mark.parametrize("command", [["research", "What is a kettle?"],
                                     ["run", "estimator", "estimate_repair", "--app", str(
                                         Path(__file__).parents[2] / "examples" /
                                         "workshop.py")]])
@pytest.mark.parametrize(("spec", "write"), [("gpt-4o", "openai:gpt-4o"),
                                             ("claude-haiku-4-5", "anthropic:claude-haiku-4-5")])
def test_a_bare_model_name_on_the_command_line_is_refused_naming_its_spec(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, command: list[str], spec: str,
        write: str) -> None:
    """`--model gpt-4o`, where the help asks for provider:name, is refused with the spec to
    write, exit 2 (it was taken as OpenAI's in silence); `model_from` still takes a bare name,
    as a task may have kept it."""
    from click.testing import CliRunner

    from signoff.cli import main
    from signoff.models.base import refuse_model_requests

    for variable, value in (("OPENAI_API_KEY", "k"), ("ANTHROPIC_API_KEY", "k"),
                            ("SIGNOFF_CACHE_DIR", tmp_path / "cache"),
                            ("SIGNOFF_DATA_DIR", tmp_path / "data"),
                            ("SIGNOFF_PYTHON_DOCS", "none"),
                            ("WORKSHOP_DATABASE", f"sqlite:///{tmp_path / 'workshop.db'}")):
        monkeypatch.setenv(variable, str(value))  # (had it been taken: nothing of the user's,
    with refuse_model_requests():                  # and no request made)
        result = CliRunner().invoke(main, [*command, "--model", spec])
    assert result.exit_code == 2, result.output
    assert (f"Invalid value for '--model': “{spec}” does not say its provider: write {write} "
            "(a model is named PROVIDER:NAME, with one of openai, anthropic, "
            "openai-compatible).") in " ".join(result.output.split())
    from signoff.models.choose import with_its_provider

    assert [with_its_provider(s) for s in (write, "offline", "", f" {write} ")] == [
        write, "offline", "", f" {write} "]
    kept = model_from(spec)
    assert kept is not None
    assert kept.name == write
    kept.close()


def test_model_from_offline_is_none() -> None:
    """No spec, an empty one, or ``offline`` leaves the choice to the caller's offline model."""
    assert [model_from(s) for s in (None, "", "offline", " Offline ")] == [None] * 4


def test_a_compatible_server_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without ``@URL`` the base URL is ``base_url=`` or ``OPENAI_BASE_URL``; the price is the
    user's, and without one it is unknown (not guessed from the table)."""
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:11434/v1")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    free = Price(input_per_mtok=0, output_per_mtok=0)
    model = model_from("openai-compatible:gpt-4o-mini", price=free)
    assert isinstance(model, OpenAICompatibleModel)
    assert model.base_url == "http://127.0.0.1:11434/v1/"
    assert model.price == free
    model.close()
    other = model_from("openai-compatible:gpt-4o-mini", base_url="http://127.0.0.1:9/v1")
    assert isinstance(other, OpenAICompatibleModel)
    assert other.base_url == "http://127.0.0.1:9/v1/"
    assert other.price is None
    other.close()


@pytest.mark.parametrize(("spec", "env", "words"), [
    ("openai:gpt-4o-mini", "OPENAI_API_KEY", "needs an API key: set OPENAI_API_KEY"),
    ("anthropic:claude-haiku-4-5", "ANTHROPIC_API_KEY", "needs an API key: set ANTHROPIC_API_KEY"),
    ("openai-compatible:llama3", "OPENAI_BASE_URL", "needs the server's base URL"),
    ("mistral:large", "", "names no provider signoff knows"),
    ("llama3", "", "does not say its provider"),
    ("openai:", "", "names no model"),
])
def test_model_from_says_what_is_missing(monkeypatch: pytest.MonkeyPatch, spec: str, env: str,
                                         words: str) -> None:
    """A spec that cannot be asked raises `ModelNotConfigured` naming the fix."""
    for variable in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(variable, raising=False)
    with pytest.raises(ModelNotConfigured, match=words):
        model_from(spec)


@pytest.mark.parametrize(("given", "words"), [
    ({"price": "0,0"}, "The price of openai-compatible:llama3.1 is a Price, not str '0,0': give "
                       "price=Price(input_per_mtok=0.15, output_per_mtok=0.60)"),
    ({"timeout": "x"}, "The timeout of openai-compatible:llama3.1 is a number of seconds above 0, "
                       "not 'x'"),
    ({"timeout": 0}, "is a number of seconds above 0, not 0"),
    ({"retries": 4}, "The retries of openai-compatible:llama3.1 are a Retries, not int 4"),
])
def test_a_setting_of_the_wrong_kind_is_refused_as_the_model_is_made(
        given: dict[str, Any], words: str) -> None:
    """A price written as the command line takes it, or a timeout as text, was taken and failed
    at the first call: a traceback out of `do()` (a price), "The model failed: TypeError" (a
    timeout). Now refused at once, in a sentence."""
    with pytest.raises(ModelNotConfigured, match=re.escape(words)):
        model_from("openai-compatible:llama3.1@http://127.0.0.1:9/v1", **given)


def test_a_user_price_wins_over_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """The table prices a known model; a price the user sets replaces it."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    mine = Price(input_per_mtok=1, output_per_mtok=1)
    listed = model_from("anthropic:claude-haiku-4-5")
    chosen = model_from("anthropic:claude-haiku-4-5", price=mine)
    assert listed is not None
    assert chosen is not None
    assert listed.price == PRICES["anthropic:claude-haiku-4-5"]
    assert chosen.price == mine
    for model in (listed, chosen):
        assert isinstance(model, AnthropicModel)
        model.close()


@pytest.mark.parametrize(("provider", "model", "listed"), [
    ("openai", "gpt-4o-mini", "openai:gpt-4o-mini"),
    ("openai", "gpt-4o-2024-08-06", "openai:gpt-4o"),
    ("anthropic", "claude-sonnet-4-5-20250929", "anthropic:claude-sonnet-4-5"),
    ("anthropic", "claude-sonnet-4-20250514", "anthropic:claude-sonnet-4-0"),
    ("anthropic", "claude-3-7-sonnet-latest", "anthropic:claude-3-7-sonnet"),
    ("openai", "gpt-4o-audio-preview", None),
    ("openai", "claude-sonnet-4-5", None),
    ("anthropic", "claude-unknown-9", None),
])
def test_price_of(provider: str, model: str, listed: str | None) -> None:
    """Exact names and dated snapshots are priced; a longer name is not priced by its prefix,
    nor a model under another provider."""
    assert price_of(provider, model) == (PRICES[listed] if listed else None)


@pytest.mark.parametrize(("module", "extra", "make"), [
    ("openai", "openai", lambda: OpenAIModel("gpt-4o-mini", api_key="k")),
    ("anthropic", "anthropic", lambda: AnthropicModel("claude-haiku-4-5", api_key="k")),
])
def test_a_missing_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch, module: str, extra: str,
                                       make: Callable[[], object]) -> None:
    """Without the provider's SDK, making its model says which extra to install, from a clone
    (signoff is not on PyPI: `pip install 'signoff[openai]'`, which it said first, fails)."""
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(ModelNotConfigured) as raised:
        make()
    assert (f"install signoff's {extra} extra, pip install -e '.[{extra}]' in the folder of "
            "signoff's clone (signoff is not on PyPI)") in raised.value.message


def test_importing_signoff_does_not_import_the_sdks() -> None:
    """``import signoff`` (models included) leaves both SDKs unimported."""
    code = ("import sys, signoff, signoff.models; "
            "print(sorted(m for m in ('openai', 'anthropic') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_model_named_in_words_is_made_and_kept_with_the_task(server: ProviderServer) -> None:
    """`do(..., model="openai-compatible:m@URL")` makes that model and asks it over its wire,
    and keeps the spec with the task as a `ModelSpec` is kept (a model named in words was taken
    for none given, and the task told the agent had no model); anything else given as the model
    is told as the mistake it is."""
    from signoff.agents import model_specs
    from signoff.exceptions import UserError

    shop = repair_shop()
    server.answer(Canned(body=openai_completion(None, [("c1", "hand_back", json.dumps(
        {"hours": 1, "summary": "Pads."}))])))
    spec = f"openai-compatible:m@{server.url}/v1"
    outcome = shop.app.agent(shop.Estimator).do(shop.skill, shop.repair, for_=shop.mia,
                                                model=spec, budget_usd=float("inf"))
    assert outcome.status is TaskStatus.DONE, outcome.problem
    assert len(server.received) == 1
    with shop.app.database.connect() as db:
        kept = model_specs.recorded(db, outcome.task)
    assert kept is not None
    assert kept.spec == spec
    with pytest.raises(UserError, match=r"model takes a Model, a ModelSpec, or a model named in "
                                        r"words \(\"openai:gpt-4o-mini\"\), not 42\."):
        shop.app.agent(shop.Estimator).do(shop.skill, shop.repair, model=42)  # type: ignore[arg-type]


def test_an_agent_may_declare_its_model_in_words(server: ProviderServer) -> None:
    """`Agent.model` as a spec names it (`"openai-compatible:m@URL"`, or a `ModelSpec`): the
    model is made as a task starts and the spec kept with the task (it crashed `do()` with
    AttributeError: 'str' object has no attribute 'name'); anything else is told as the mistake
    it is."""
    from signoff.agents import model_specs
    from signoff.agents.model_specs import ModelSpec
    from signoff.exceptions import UserError

    shop = repair_shop()
    spec = f"openai-compatible:m@{server.url}/v1"
    for declared in (spec, ModelSpec(spec=spec, price=Price(input_per_mtok=0, output_per_mtok=0))):
        shop.Estimator.model = declared
        server.answer(Canned(body=openai_completion(None, [("c1", "hand_back", json.dumps(
            {"hours": 1, "summary": "Pads."}))])))
        outcome = shop.app.agent(shop.Estimator).do(shop.skill, shop.repair, for_=shop.mia,
                                                    budget_usd=float("inf"))
        assert outcome.status is TaskStatus.DONE, outcome.problem
        with shop.app.database.connect() as db:
            kept = model_specs.recorded(db, outcome.task)
        assert kept is not None
        assert kept.spec == spec
    shop.Estimator.model = 42  # type: ignore[assignment]
    with pytest.raises(UserError, match=r"Estimator.model takes a Model, a ModelSpec, or a model "
                                        r"named in words \(\"openai:gpt-4o-mini\"\), not 42\."):
        shop.app.agent(shop.Estimator).do(shop.skill, shop.repair)
