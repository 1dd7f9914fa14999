"""Commands about what the app offers: ``actions``, ``lint``, ``worker``."""

from __future__ import annotations

import errno
import importlib
import inspect
import json
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import click

from signoff.cli import (
    APP_OPTION,
    JSON_OPTION,
    Seconds,
    app_option_words,
    given,
    load_app,
    main,
    runnable,
    temporal_address,
    temporal_address_refused,
)
from signoff.cli.failures import EXIT_FAILED, EXIT_NOT_FOUND, Failure, Misuse
from signoff.cli.otlp import export_traces
from signoff.engine.temporal import ADDRESS_VARIABLE
from signoff.engine.worker import STUCK_AFTER, Worker, looked
from signoff.exceptions import Refusal

__all__ = ["LintFinding", "lint"]


@main.command()
@APP_OPTION
@click.option("--explain", metavar="NAME", help="Explain one action: its effects with the path "
              "through the code that shows each.")
@JSON_OPTION
def actions(app_spec: str | None, explain: str | None, as_json: bool) -> None:
    """List the actions the app offers, or explain one.

    \b
    Examples:
      signoff actions --app examples/bakery.py:app
      signoff actions --app examples/workshop.py --explain set_price --json
    """
    app = load_app(app_spec)
    infos = app.actions.catalog()
    if explain is not None:
        if explain not in app.actions:
            raise Failure(f"There is no action named {explain!r}. The actions are: "
                          f"{', '.join(i.name for i in infos)}.", EXIT_NOT_FOUND)
        infos = [app.actions.info(explain)]
    if as_json:
        click.echo(json.dumps([_info_json(i, full=explain is not None) for i in infos], indent=2))
        return
    for info in infos:
        click.echo(f"{info.name:16} {info.reads_as}" + ("  [query]" if info.query else ""))
        if explain is not None:
            if info.description:
                click.echo(f"  {info.description}")
            lines = info.effects.explain() or ["only reads nothing: it has no effects"]
            for line in lines:
                click.echo(f"  - {line}")


def _info_json(info: Any, *, full: bool) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": info.name, "label": info.label, "reads_as": info.reads_as,
        "description": info.description, "query": info.query,
        "subject": info.subject.__name__ if info.subject else None,
        "effects": info.effects.explain(),
    }
    if full:
        data["parameters_schema"] = info.parameters_schema
        data["result_schema"] = info.result_schema
    return data


@dataclass(frozen=True, kw_only=True)
class LintFinding:
    """One thing `signoff lint` found."""

    action: str
    """The action."""
    where: str
    """The action's file and line."""
    message: str
    """What is wrong, and what to do."""


def lint(app: Any) -> list[LintFinding]:
    """What `signoff lint` finds in an app: actions that can raise what is not a refusal, and
    actions whose declaration says less than their code does."""
    findings: list[LintFinding] = []
    for info in app.actions.catalog():
        where = _where(app.actions.get(info.name).call)
        for site in app.actions.raise_sites(info.name):
            cls = _resolve(site.exception)
            if isinstance(cls, type) and issubclass(cls, Refusal):
                continue
            short = site.exception.removeprefix("builtins.")
            findings.append(LintFinding(action=info.name, where=where, message=(
                f"{info.name} can raise {short} (raised in {site.function}, line {site.line}): a "
                "caller is told only that it failed. Raise signoff.Invalid, Conflict, NotFound "
                "or NotAuthorized for a refusal, Failed for a failure told in your words, "
                "Unavailable or OutcomeUnknown for a service out of reach, or catch it."
            )))
        for caution in info.effects.cautions():
            findings.append(LintFinding(action=info.name, where=where, message=(
                f"{info.name} is taken to change anything, reach outside, send and spend: {caution}."
            )))
        if not info.query and info.effects.only_reads:
            findings.append(LintFinding(action=info.name, where=where, message=(
                f"{info.name} only reads: declare it query=True, so that it runs alone and "
                "enforced read-only."
            )))
    return findings


def _resolve(qualified: str) -> object:
    parts = qualified.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            target = getattr(target, name, None)
        return target
    return None


def _where(fn: Callable[..., Any]) -> str:
    try:
        return f"{inspect.getsourcefile(fn)}:{inspect.getsourcelines(fn)[1]}"
    except (OSError, TypeError):
        return getattr(fn, "__qualname__", "?")


@main.command(name="lint")
@APP_OPTION
@JSON_OPTION
def lint_command(app_spec: str | None, as_json: bool) -> None:
    """Find actions that can fail untold, or that declare less than their code does.

    Exits 1 when it finds anything.

    \b
    Example:
      signoff lint --app examples/crane.py
    """
    findings = lint(load_app(app_spec))
    if as_json:
        click.echo(json.dumps([f.__dict__ for f in findings], indent=2))
    else:
        for finding in findings:
            click.echo(f"{finding.where}: {finding.message}")
        click.echo(f"{len(findings)} finding{'s' if len(findings) != 1 else ''}.")
    if findings:
        sys.exit(1)


@main.command()
@APP_OPTION
@click.option("--once", is_flag=True, help="Step what can go on now, then stop.")
@click.option("--every", default=1.0, show_default=True, type=Seconds(zero=False),
              help="Seconds between looks.")
@click.option("--stuck-after", default=STUCK_AFTER.total_seconds(), show_default=True,
              type=Seconds(zero=True),
              help="Seconds after which a task left Waiting though nothing of it waits any "
                   "more (its process stopped between a decision and going on) is taken up "
                   "again, and a proposal whose process stopped before telling its deciders "
                   "is told (both looked for every minute). An interrupted approved call is "
                   "settled as soon as its process is seen to have stopped.")
@click.option("--temporal", "temporal", metavar="HOST:PORT", envvar="SIGNOFF_TEMPORAL",
              callback=lambda ctx, param, value: _temporal(ctx, value),
              help="Run a Temporal worker of the app on this server (its tasks are workflows "
                   "there); with --once, signal the workflows of tasks nobody is on, then stop.")
def worker(app_spec: str | None, once: bool, every: float, stuck_after: float,
           temporal: str | None) -> None:
    """Step the app's tasks that can go on: after a decision made elsewhere, or a restart.

    On every look it passes the deadlines that fell due: a proposal nobody decided in time
    is withdrawn (its task goes on) or goes to its next decider, as its skill's route says.
    Each task goes on with the model it was started with by spec (`signoff run --model`),
    else its agent's own. An approved call whose process stopped before it reported back is
    settled once that is seen (at once for a process of this machine, else when its lease, a
    minute renewed while the call runs, runs out): run again if its action is idempotent or a
    query, else told as of unknown outcome. The deciders of a proposal that were not told of
    it (its process stopped first, or a webhook or mail server did not take it) are told again
    (`--stuck-after`; a webhook or mail not taken, a minute on, then further apart, 8 tries in
    all). Ctrl-C stops it (exit 0); so does SIGTERM (what a
    service manager sends), once the task it steps has waited or ended, cutting no step off and
    taking up no other task. On an app whose tasks run on Temporal (--temporal,
    SIGNOFF_TEMPORAL, or the app's own runner) it runs a Temporal worker instead, which steps
    the app's workflows until it is stopped.

    \b
    Examples:
      signoff worker --app examples/workshop.py --once
      signoff worker --app examples/workshop.py --once --stuck-after 0
    """
    stop = threading.Event()
    working: list[Worker] = []  # (the worker, once made: Ctrl-C names the task it was in)
    with _stopped_by_ctrl_c(working), _stopped_when_asked(stop):
        _work(app_spec, once=once, every=every,
              stuck_after=min(timedelta(seconds=stuck_after), _STUCK_AFTER_MOST),
              temporal=temporal, stop=stop, working=working)
        if stop.is_set():  # (SIGTERM: the work ended as asked; Ctrl-C says so itself)
            click.echo("Stopped.")


_STUCK_AFTER_MOST = timedelta(days=36_525)
"""The longest ``--stuck-after`` taken as given: a hundred years, which is never in practice. A
longer one is taken as this (the time it reaches back to from now fell before year 1, and the
worker failed "for a reason it did not foresee", OverflowError)."""


def _temporal(ctx: click.Context, value: str | None) -> str | None:
    """The ``--temporal`` given (or ``SIGNOFF_TEMPORAL``), as HOST:PORT; a `Misuse` naming
    which was given, and the form, when it is not that (`temporal_address_refused`)."""
    if value is None:
        return None
    address = temporal_address(value)
    if address is None:
        named = ("SIGNOFF_TEMPORAL" if ctx.get_parameter_source("temporal") is
                 click.core.ParameterSource.ENVIRONMENT else "--temporal")
        raise Misuse(temporal_address_refused(named, value))
    return address or None


def _work(app_spec: str | None, *, once: bool, every: float, stuck_after: timedelta,
          temporal: str | None, stop: threading.Event, working: list[Worker]) -> None:
    """The worker's work: see `worker`. The worker made is put in `working`."""
    if temporal:
        os.environ[ADDRESS_VARIABLE] = temporal  # the app runs its tasks there, as its worker
    app = load_app(app_spec)
    export_traces(app)
    if app.runner is not None:
        served = app.temporal_worker(address=temporal, stuck_after=stuck_after)
        if once:
            click.echo(f"Settled or signalled {served.sweep()} task(s).")
            return
        click.echo(f"A Temporal worker of {app.name} starts for the server at "
                   f"{app.runner.address}, queue {served.queue} (it says so when it cannot reach "
                   "it); stop it with Ctrl-C.")
        served.run(stop)
        return
    runner = app.worker()
    working.append(runner)
    if once:
        settled = runner.recover(older_than=stuck_after)
        told = runner.tell_untold(older_than=stuck_after)
        passed = runner.pass_deadlines()  # (run_once would pass them again: a look passes once)
        click.echo(looked(settled, passed, runner.step_running(), told))
        return
    click.echo(f"A worker of {app.name} looks every {every:g} s for work that can go on, and "
               "says what each look carried on (nothing while there is nothing to do); stop it "
               "with Ctrl-C.")
    runner.run_forever(every=every, stuck_after=stuck_after, stop=stop.is_set,
                       tell=lambda words: click.echo(f"{datetime.now():%H:%M:%S} {words}"))


def _check_can_listen(host: str, port: int) -> None:
    """A `Failure` in a sentence when nothing can listen on `host`:`port` (the server would
    log the socket's error and exit 3, which means "not found" here)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server does
            probe.bind((host, port))
    except OSError as error:
        why = error.strerror or str(error)
        if error.errno == errno.EADDRINUSE:
            why = ("another process listens there: stop it, or serve on another port "
                   f"(--port {port + 1 if port < 65535 else 8000})")
        elif error.errno == errno.EACCES:
            why = f"{why} (a port below 1024 needs the system's leave: use --port 8000)"
        elif error.errno == errno.EADDRNOTAVAIL:
            why = ("no network interface of this machine has that address: give --host one of "
                   "its own (127.0.0.1 for this machine alone, 0.0.0.0 for all of them)")
        elif isinstance(error, socket.gaierror):
            why = (f"{why}: --host takes an address of this machine, or a name of one "
                   "(127.0.0.1, localhost, or 0.0.0.0 for all of its interfaces)")
        raise Failure(f"signoff cannot serve on {host}:{port}: {why}.", EXIT_FAILED) from None


@contextmanager
def _stopped_when_asked(stop: threading.Event) -> Iterator[None]:
    """While the block runs, SIGTERM (``kill``, a service manager's stop, ``docker stop``) sets
    `stop`: the worker ends once the task (or the Temporal step) under way has waited or ended,
    as Ctrl-C would not wait for (SIGTERM ended it at once, a step under way cut off and its outside call
    told as of unknown outcome)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(
            signal, "SIGTERM"):
        yield
        return
    kept = signal.signal(signal.SIGTERM, lambda _signum, _frame: stop.set())
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, kept)


@contextmanager
def _stopped_by_ctrl_c(working: list[Worker]) -> Iterator[None]:
    """A worker stopped with Ctrl-C (as its start says to) ends as asked: said, exit 0. Stopped
    in a task's step (the worker in `working` says which, `Worker.stepping`), it names that
    task and who goes on with it ("Stopped." alone left the person not knowing a step was cut
    off)."""
    try:
        yield
    except KeyboardInterrupt:
        task = working[0].stepping if working else None
        if task is None:
            click.echo("Stopped.")
            return
        # The loop let go of the task's hold as the step was cut off (were that write lost,
        # the hold lapses: at once for a worker of this machine, this process having ended).
        click.echo(f"Stopped in a step of task {task}, which was cut off: the task stays "
                   f"Running, and a worker goes on with it (one running now, or "
                   f"`{runnable('worker' + app_option_words())}` started again).")


@main.command()
@APP_OPTION
@click.option("--host", default="127.0.0.1", show_default=True, callback=given,
              help="The address to listen on.")  # (empty, it listened on every interface)
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535),
              help="The port to listen on.")
@click.option("--insecure-cookies", is_flag=True,
              help="Send cookies over plain http (a developer's machine; never in production).")
@click.option("--max-body", default=1024 * 1024, show_default=True, type=click.IntRange(min=1),
              metavar="BYTES", help="The largest request body taken; larger ones get 413.")
def serve(app_spec: str | None, host: str, port: int, insecure_cookies: bool,
          max_body: int) -> None:
    """Serve the web inbox and the REST API (its OpenAPI at /api/openapi.json).

    \b
    Example:
      signoff serve --app examples/workshop.py --port 8000 --insecure-cookies
    """
    app = load_app(app_spec)
    export_traces(app)
    import uvicorn  # a missing web extra is told by name (signoff.cli.failures)

    from signoff.web import create_web_app

    _check_can_listen(host, port)
    app.database.ensure_schema()  # a database it cannot use is told before it serves
    uvicorn.run(create_web_app(app, secure_cookies=not insecure_cookies,
                               max_body_bytes=max_body), host=host, port=port)
