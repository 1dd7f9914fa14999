"""What ``signoff research`` does when it is stopped (Ctrl-C, SIGTERM, SIGHUP).

While it asks: it says where its task stands, as the database records it, and the command that
goes on with it — or, stopped before its task was recorded, that nothing was (it said
"Stopped." alone, the person left to wonder whether something was half done).

Once its task has ended (or waits on a person) and its outcome is shown, the research is over,
and a Ctrl-C does not make it a failure: stopped while the outcome is shown, the showing stops
there and it says where the task stands and how to show it again (`shown_to_its_end`), and the
command exits as the research ended — 0 for an answer — not 130; once shown, a Ctrl-C while the
process ends is ignored (`calm_at_exit`), after the exit handlers that a Ctrl-C may still cut
short (the traces' flush to a collector that does not answer). Python's own teardown takes a few
tenths of a second after the last line is printed, and a Ctrl-C then killed the process: 130.
"""

from __future__ import annotations

import atexit
import contextlib
import signal
import threading
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import click

from signoff.agents.tasks import TaskStatus
from signoff.cli.invocation import ends_with_the_command
from signoff.cli.research_shown import Shown
from signoff.store import points

__all__ = ["calm_at_exit", "question_of", "shown_to_its_end", "stopped_as_by_ctrl_c",
           "tell_stopped"]


def question_of(task: Any) -> str | None:
    """The question research task `task` (a row) asks, or None."""
    subject = getattr(task, "subject_json", None)
    return subject.get("question") if isinstance(subject, dict) else None


def tell_stopped(app: Any, person: Any, began: datetime, shown: Shown) -> None:
    """Say that the research was stopped, and what became of its task: `person`'s task that
    began since `began` and asks this question (another research of theirs, begun later in
    another process, was named once: the newest task). Still Running, how to go on with it;
    ended or waiting, how to see it; none, that nothing was recorded (a task's row is written
    whole or not at all, before any model is asked: a write cut off is rolled back)."""
    from signoff.agents import repository as repo
    from signoff.inbox import Inbox
    from signoff.research.skill import ResearchTask

    asked = ResearchTask(question=shown.question).question
    since = began.replace(tzinfo=None)
    begun = [t for t in Inbox(app).tasks(person).items
             if t.created_at.replace(tzinfo=None) >= since]
    with app.database.reading() as db:
        mine = [t for t in begun if question_of(repo.load_task(db, t.id)) == asked]
    if not mine:
        click.echo("Stopped before its research task was recorded: nothing was asked or kept, "
                   f"so nothing is lost. Ask again with {shown.asking()}", err=True)
        return
    running = [t.id for t in mine if t.status is TaskStatus.RUNNING]
    if len(mine) == 1 and not running:
        click.echo(f"Stopped. The research task {mine[0].id} is {mine[0].status.value} "
                   f"already; see it with {shown.going_on(mine[0].id)}", err=True)
    elif len(running) == 1 and len(mine) == 1:
        click.echo(f"Stopped. The research task {running[0]} stays Running; go on with it: "
                   f"{shown.going_on(running[0])}", err=True)
    else:  # (the same question asked twice at once: say no id)
        click.echo(f"Stopped. Its task is one of {', '.join(t.id for t in mine)}; go on with "
                   f"it, or see it: {shown.going_on('TASK_ID')}", err=True)


@contextlib.contextmanager
def stopped_as_by_ctrl_c() -> Iterator[None]:
    """Within it, SIGTERM (``kill``) and SIGHUP (the terminal closed) stop the research as
    Ctrl-C does, so that what it leaves Running is named with the command that goes on with it
    (they ended it unsaid, the task's id never printed). One (Ctrl-C too) that lands in the
    read-only guard's SQLite authorizer is raised once out of it (SQLite took it for a refusal:
    the task Failed "for a reason the app did not foresee"). Outside the main thread: nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupted(signum: int, frame: Any) -> None:
        if hasattr(signal, "pthread_kill") and _in_sqlite_callback(frame):
            main = threading.main_thread().ident or 0  # (sent again from a thread: here, at once)
            threading.Timer(0.001, signal.pthread_kill, args=(main, signum)).start()
            return
        raise KeyboardInterrupt

    stops = [getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n)]
    kept = {s: signal.signal(s, interrupted) for s in stops}  # (Windows has no SIGHUP)
    try:
        yield
    finally:
        for s, handler in kept.items():
            if signal.getsignal(s) is interrupted:  # (one set meanwhile is left as it is)
                signal.signal(s, handler)


def _in_sqlite_callback(frame: Any) -> bool:
    """Whether `frame` is in the read-only guard's authorizer (SQLite swallows what it raises)."""
    from signoff.actions.readonly_driver import sqlite_authorizer

    code = sqlite_authorizer(KeyboardInterrupt).__code__  # (every one's code is this)
    while frame is not None and frame.f_code is not code:
        frame = frame.f_back
    return frame is not None


@contextlib.contextmanager
def shown_to_its_end(task: str, status: str, shown: Shown) -> Iterator[None]:
    """Within it, the outcome of research task `task`, which has ended (or waits on a person:
    `status`), is shown. Stopped meanwhile (Ctrl-C, SIGTERM, SIGHUP), the showing stops there,
    and it says so, with the command that shows the task again; the command goes on to exit
    as the research ended (it said "Stopped." and exited 130, as if the research had been cut
    short). From then on, to the command's end, a Ctrl-C is ignored (`_held_to_the_end`), and
    from there to the process's (`calm_at_exit`)."""
    main = threading.current_thread() is threading.main_thread()
    before = signal.getsignal(signal.SIGINT) if main else None
    try:
        with stopped_as_by_ctrl_c():
            try:
                yield
            finally:  # (ignored from here, while a Ctrl-C is still this block's: none lands
                _held_to_the_end(before)  # between its end and the ignoring, to be "Stopped.")
    except KeyboardInterrupt:
        click.echo(f"\nStopped while its outcome was shown. The research had ended: its task "
                   f"{task} is {status}; show it again with {shown.going_on(task)}", err=True)
    finally:
        points.reached("research.written", task=task)
        _AtExit.ended = True
        _held_to_the_end(before)  # (when one cut the first short)
        points.reached("research.shown", task=task)


def _held_to_the_end(before: Any) -> None:
    """Ignore a Ctrl-C from now on: there is nothing left to stop. (It landed on the command's
    way out, "Stopped.", exit 130, or in Python's shutdown of threads, a traceback.) In the
    `signoff` program, to the process's end (but for the traces' flush, which a Ctrl-C may cut
    short: `signoff.cli.otlp`); in a process that goes on after the command (a test's), to the
    command's end, where the handler `before` is put back (and then `calm_at_exit`)."""
    context = click.get_current_context(silent=True)
    if context is None or threading.current_thread() is not threading.main_thread() or (
            _AtExit.held):
        return
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _AtExit.held = True
    if not ends_with_the_command():  # (a test's process goes on: its Ctrl-C is its own again)
        context.find_root().call_on_close(lambda: _give_back(before))


def _give_back(before: Any) -> None:
    signal.signal(signal.SIGINT, before)
    _AtExit.held = False


class _AtExit:
    """What the process does as it exits, once a research's outcome was shown."""

    ended = False
    """Whether a research's outcome was shown (or stopped while shown): its exit is told."""
    held = False
    """Whether a Ctrl-C is ignored to the command's end (`_held_to_the_end`)."""
    registered = False
    """Whether `_calm` is registered to run at exit."""


def calm_at_exit() -> None:
    """Have the process ignore a Ctrl-C once its exit handlers have run, when a research's
    outcome was shown (`shown_to_its_end`). Called before the traces' exporter is set up
    (`signoff.cli.otlp.export_traces`): exit handlers run last registered first, so its flush
    runs before, and a Ctrl-C can still give it up. Python keeps an ignored signal ignored
    through its teardown, where the handler it set is put back to the system's default (which
    ends the process, 130)."""
    if not _AtExit.registered and threading.current_thread() is threading.main_thread():
        atexit.register(_calm)
        _AtExit.registered = True


def _calm() -> None:
    if _AtExit.ended:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
