"""``signoff run``: start an agent's task from the command line."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

import click

from signoff.cli import (
    APP_OPTION,
    EXIT_REFUSED,
    JSON_OPTION,
    MOST_TIMEOUT,
    Dollars,
    Seconds,
    Steps,
    app_option_words,
    given,
    load_app,
    main,
    model_with_its_provider,
    nobody_named,
    not_empty,
    runnable,
)
from signoff.cli.failures import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_NOT_FOUND,
    Failure,
    Misuse,
    outcome_shown,
    problem_told,
)
from signoff.cli.otlp import export_traces
from signoff.cli.research_model import closed_with_command
from signoff.cli.subjects import record_named
from signoff.cli.terminal import say

__all__: list[str] = []

log = logging.getLogger("signoff.cli")


@main.command()
@click.argument("agent")
@click.argument("skill")
@click.option("--for", "for_handle", metavar="HANDLE", callback=given,
              help="The person the work is for (their proposals are theirs to decide, unless "
                   "the skill routes them). Without it, the work is for nobody.")
@click.option("--subject", metavar="ID|FIELD=VALUE|JSON", callback=not_empty,
              help="What the skill works on: a record by id, or by a unique field "
                   "(ticket=T-7); a plain value as JSON.")
@click.option("--model", "model_spec", metavar="SPEC", callback=model_with_its_provider,
              help="The model: openai:gpt-4o-mini, anthropic:claude-haiku-4-5, or "
                   "openai-compatible:NAME@URL. Kept with the task, so that `signoff worker` "
                   "goes on with it after a decision made elsewhere, or a restart.")
@click.option("--price", "price_text", metavar="IN,OUT", callback=not_empty,
              help="The model's price in US dollars per million input and output tokens, e.g. "
                   "0.15,0.60 (0,0 for a free local model).")
@click.option("--timeout", type=Seconds(zero=False, most=MOST_TIMEOUT, most_said="a day"),
              metavar="SECONDS",
              help="The longest wait for the model to answer, or to send its answer's next "
                   "piece (default: 300 for an OpenAI-compatible server and Anthropic, 120 for "
                   "OpenAI); a slow model of your own may need more, up to 86400 (a day). "
                   "Kept with the task, as the model is.")
@click.option("--max-steps", type=Steps(), help="The most model calls it may make.")
@click.option("--budget", type=Dollars(), help="The most it may spend, in US dollars.")
@APP_OPTION
@JSON_OPTION
def run(agent: str, skill: str, for_handle: str | None, subject: str | None,
        model_spec: str | None, price_text: str | None, timeout: float | None,
        max_steps: int | None,
        budget: float | None, app_spec: str | None, as_json: bool) -> None:
    """Start an agent's task: it works until it is done, waits on a decision, or stops at a
    limit. A waiting task goes on in `signoff worker` once it is decided.

    Exits 0 when the task is done or waits on a decision, 1 when it halted at a limit, 5 when it
    failed (its model could not be used).

    \b
    Example:
      signoff run estimator price_fleet_repair --for mia@workshop.example \\
          --subject ticket=T-7 --app examples/workshop.py \\
          --model openai-compatible:llama3.1@http://127.0.0.1:11434/v1 --price 0,0 \\
          --timeout 600
    """
    from signoff.agents.agency import own_model
    from signoff.agents.model_specs import ModelSpec
    from signoff.models.choose import price_from

    app = load_app(app_spec)
    export_traces(app)
    handle = _agent(app, agent)
    try:
        own = handle.registered.agent.skill(skill)
    except LookupError:
        names = ", ".join(s.name for s in handle.registered.agent.skills)
        raise Misuse(f"{agent} has no skill {skill!r}; its skills are: {names}.") \
            from None
    person = None
    if for_handle is not None:
        person = app.people.find(for_handle)
        if person is None:
            raise Failure(nobody_named(app, for_handle), EXIT_NOT_FOUND)
    worked_on = _subject(app, handle, own, subject, person)
    model: Any = None
    spec: Any = None
    if timeout is not None and model_spec is None:
        raise Misuse("--timeout goes with --model SPEC: it is how long that model is waited "
                     "for (an agent's own model declares its own).")
    if model_spec is not None:
        spec = ModelSpec(spec=model_spec, price=price_from(price_text) if price_text else None,
                         timeout=timeout)
        limit = budget if budget is not None else handle.registered.agent.budget_usd
        made = model = spec.make()
        closed_with_command(made)
        if made.price is None and limit != float("inf"):
            raise click.BadParameter(
                f"The price of {made.name} is not known, so its cost cannot be kept within the "
                "budget: give it with --price IN,OUT (US dollars per million input and output "
                "tokens, e.g. --price 0.15,0.60; 0,0 for a model of your own).",
                param_hint="--price")
    elif handle.registered.agent.model is None:
        raise Misuse(f"{agent} declares no model: name one with --model, e.g. "
                     "--model openai:gpt-4o-mini.")
    else:
        model, spec = own_model(handle.registered.agent)
    started = datetime.now(UTC)
    try:
        with outcome_shown():
            outcome = handle.do(own, worked_on, for_=person, model=_Told(model),
                                max_steps=max_steps, budget_usd=budget, model_spec=spec)
    except KeyboardInterrupt:
        # A stop asked for, not a failure: said as `signoff research` says it, without the
        # "Error: " click puts before a failure's sentence (written as a failure's is: a byte
        # of an argument that is not UTF-8 as its escape), exit code 130.
        stopped = Failure(_stopped(app, handle, own, person, started), EXIT_INTERRUPTED)
        click.echo(stopped.message, err=True)
        raise SystemExit(stopped.exit_code) from None
    if as_json:
        waiting = [p for p in app.proposals(task=outcome.task) if p.status.value == "Waiting"]
        click.echo(json.dumps({"task": outcome.task, "status": outcome.status.value,
                               "waiting_on": list(outcome.waiting_on),
                               "waiting": [{"proposal": p.id, "action": p.action,
                                            "arguments": p.arguments, "decide_by": p.decide_by}
                                           for p in waiting],
                               "problem": outcome.problem, "steps": outcome.steps,
                               "spend_usd": outcome.spend_usd,
                               "result": _jsonable(outcome.result)}, indent=2))
    else:
        _tell(outcome, _decider(app, outcome))
    if outcome.status.value == "Failed":
        raise SystemExit(EXIT_FAILED)
    if outcome.status.value == "Halted":
        raise SystemExit(EXIT_REFUSED)


class _Told:
    """A task's model, each call to it told on stderr as it begins ("Model call 2: asking
    openai:gpt-4o-mini…"): a task of several slow calls showed nothing until it ended. The
    rest is the model's own."""

    def __init__(self, model: Any) -> None:
        self._model = model
        self.name: str = model.name
        self.price: Any = model.price
        self._calls = 0

    def complete(self, messages: Any, tools: Any, *, max_output_tokens: int) -> Any:
        self._calls += 1
        say(f"Model call {self._calls}: asking {self.name}…", err=True)
        return self._model.complete(messages, tools, max_output_tokens=max_output_tokens)

    def count_tokens(self, messages: Any, tools: Any) -> int:
        return int(self._model.count_tokens(messages, tools))

    def __getattr__(self, name: str) -> Any:  # (its provider, close, …)
        return getattr(self._model, name)


def _stopped(app: Any, handle: Any, skill: Any, person: Any, started: datetime) -> str:
    """Ctrl-C while the task worked: where the task it started stands, and what goes on with
    it ("Stopped." alone left a task Running, and the person not knowing it, nor what to do)."""
    from sqlalchemy import select

    from signoff.store.tables import tasks

    try:
        with app.database.connect() as db:
            row = db.execute(
                select(tasks.c.id, tasks.c.status).where(
                    tasks.c.agent == handle.registered.agent.agent_name(),
                    tasks.c.skill == skill.name,
                    tasks.c.for_id == (person.id if person is not None else None),
                    tasks.c.created_at >= started)
                .order_by(tasks.c.created_at.desc()).limit(1)).first()
    except Exception:  # (the database, itself interrupted: the task cannot be named)
        log.debug("The stopped task could not be found", exc_info=True)
        return (f"Stopped. A task it started is listed by "
                f"`{runnable('tasks' + app_option_words() + ' --as HANDLE')}`.")
    if row is None:
        return "Stopped before its task began: nothing was started."
    listing = runnable("tasks" + app_option_words() + " --as HANDLE")
    if row.status != "Running":
        return f"Stopped. Task {row.id} is {row.status.lower()}: `{listing}` shows it."
    return (f"Stopped. Task {row.id} stays Running, cut off in its step: "
            f"`{runnable('worker' + app_option_words())}` goes on with it (with the model it "
            f"was started with), and `{listing}` shows where it stands.")


def _agent(app: Any, name: str) -> Any:
    names = sorted({line.agent for line in app.skills.catalog()})
    if name not in names:
        raise Misuse(f"There is no agent {name!r} in this app; its agents are: "
                     f"{', '.join(names) or 'none'}.")
    return app.agent(name)


def _subject(app: Any, handle: Any, skill: Any, given: str | None, person: Any) -> Any:
    """What the skill works on, from --subject: a record read as the person the work is for
    (or as the agent's account), or a plain value."""
    from signoff.security.records import RecordBase

    subject_type, _ = skill.types()
    if subject_type in (None, type(None)):
        if given is not None:
            raise Misuse(f"{skill.name} works on nothing: leave out --subject.")
        return None
    if given is None:
        raise Misuse(f"{skill.name} works on a {_name(subject_type)}: give --subject.")
    if not (isinstance(subject_type, type) and issubclass(subject_type, RecordBase)):
        try:
            return json.loads(given)
        except ValueError:
            return given
    return record_named(app, subject_type, given,
                        person if person is not None else handle.account)


def _decider(app: Any, outcome: Any) -> str:
    """The handle of the one person every proposal the task waits on is put to ("HANDLE" when
    they are put to a queue, or to several people)."""
    if not outcome.waiting_on:
        return "HANDLE"
    deciders = {p.decide_person_id for p in app.proposals(task=outcome.task)
                if p.status.value == "Waiting"}
    person = app.people.find(deciders.pop()) if len(deciders) == 1 and None not in deciders else None
    return person.handle if person is not None else "HANDLE"


def _tell(outcome: Any, decider: str = "HANDLE") -> None:
    status = outcome.status.value
    say(f"Task {outcome.task}: {status.lower()}, after {outcome.steps} model call"
               f"{'s' if outcome.steps != 1 else ''} (${outcome.spend_usd:.4f}).")
    if outcome.waiting_on:
        say(f"It waits on {outcome.waits_on}: see "
            f"`{runnable('proposals' + app_option_words() + ' --as ' + decider)}`, or the inbox "
            f"(`{runnable('serve' + app_option_words())}`). Once decided, "
            f"`{runnable('worker' + app_option_words())}` goes on with it.")
    if outcome.result is not None:
        say(f"Result: {json.dumps(_jsonable(outcome.result))}")
    if outcome.problem:
        say(problem_told(outcome.problem), err=True)


def _jsonable(value: Any) -> Any:
    from pydantic import TypeAdapter

    return TypeAdapter(Any).dump_python(value, mode="json")


def _name(subject_type: Any) -> str:
    return str(getattr(subject_type, "__name__", subject_type))
