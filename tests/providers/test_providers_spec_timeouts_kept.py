"""A model named in words keeps its timeouts with the task, as it keeps its price: a slow model of
one's own given `ModelSpec(..., timeout=600)` (or ``--timeout 600`` on the command line) was
waited for as long as its provider's default, in the process that started the task and in the
worker that went on with it (`ModelSpec` took no timeout, and the command line had no way to
give one). Each case on a real server on loopback that takes the request and never answers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from sqlalchemy import select

from signoff import TaskStatus
from signoff.agents import model_specs
from signoff.agents.model_specs import ModelSpec
from signoff.models import Price
from signoff.store.tables import task_models
from tests.providers.wire import repair_shop
from tests.test_cli_run_interrupted import APP, _silent_model_server
from tests.workshop_web import open_workshop

FREE = Price(input_per_mtok=0, output_per_mtok=0)


def test_a_spec_s_timeouts_are_waited_for_and_kept_with_the_task(tmp_path: Path) -> None:
    """The task's model is waited for 0.3 seconds, not two minutes: the task fails in the
    timeout's sentence; the task keeps both timeouts, and the model a worker makes again from
    what was kept waits as long."""
    shop = repair_shop()
    asked = threading.Event()
    with _silent_model_server(asked) as port:
        spec = ModelSpec(spec=f"openai-compatible:slow@http://127.0.0.1:{port}/v1", price=FREE,
                         timeout=0.3, total_timeout=45.0)
        outcome = shop.app.agent(shop.Estimator).do(shop.skill, shop.repair, for_=shop.mia,
                                                    model=spec, budget_usd=float("inf"))
    assert asked.is_set()
    assert outcome.status is TaskStatus.FAILED, outcome
    assert "did not answer within the timeout of 0.3 seconds" in outcome.problem, outcome.problem
    with shop.app.database.connect() as db:
        kept = model_specs.recorded(db, outcome.task)
    assert kept == spec
    made = kept.make()
    try:
        assert (made.timeout, made.total_timeout) == (0.3, 45.0)  # type: ignore[attr-defined]
    finally:
        made.close()  # type: ignore[attr-defined]


def test_a_spec_without_timeouts_waits_as_its_provider_does() -> None:
    made = ModelSpec(spec="openai-compatible:m@http://127.0.0.1:9/v1", price=FREE).make()
    try:
        assert (made.timeout, made.total_timeout) == (300.0, 1200.0)  # type: ignore[attr-defined]
    finally:
        made.close()  # type: ignore[attr-defined]


def test_signoff_run_waits_for_the_model_as_long_as_timeout_says_and_keeps_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    shop = open_workshop(tmp_path, monkeypatch)
    asked = threading.Event()
    with _silent_model_server(asked) as port:
        run = subprocess.run(
            [sys.executable, "-m", "signoff.cli", "run", "estimator", "estimate_repair",
             "--for", "mia@workshop.example", "--subject", "ticket=T-7", "--app", APP,
             "--model", f"openai-compatible:x@http://127.0.0.1:{port}/v1", "--price", "0,0",
             "--timeout", "0.4", "--json"],
            capture_output=True, text=True, timeout=300,
            env={**os.environ, "WORKSHOP_DATABASE": os.environ["WORKSHOP_DATABASE"]})
    assert run.returncode == 5, (run.stdout, run.stderr)
    told = json.loads(run.stdout)
    assert "did not answer within the timeout of 0.4 seconds" in told["problem"], told
    with shop.app.database.connect() as db:
        kept = db.execute(select(task_models.c.timeout).where(
            task_models.c.task_id == told["task"])).scalar_one()
    assert kept == 0.4


@pytest.mark.parametrize(("given", "told"), [
    (["--timeout", "30"], "--timeout goes with --model SPEC"),
    (["--model", "offline", "--timeout", "30"], "--timeout goes with --model SPEC"),
    (["--model", "openai-compatible:x@http://127.0.0.1:9/v1", "--price", "0,0",
      "--timeout", "0"], "“0” is not above 0: give a number of seconds, more than 0"),
    (["--model", "openai-compatible:x@http://127.0.0.1:9/v1", "--price", "0,0",
      "--timeout", "1e23"], "seconds is too long: give at most 86,400 seconds (a day)"),
])
def test_research_refuses_a_timeout_for_no_model_s_or_one_not_above_0(
        given: list[str], told: str) -> None:
    run = subprocess.run([sys.executable, "-m", "signoff.cli", "research", "What is a tuple?",
                          *given], capture_output=True, text=True, timeout=300)
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert told in run.stderr, run.stderr
