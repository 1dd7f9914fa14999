"""What a person is told when a command fails: one sentence on stderr, and an exit code.

Every error is translated here, where the library's errors enter the command line: a refusal
is the library's own sentence, a database that cannot be reached says which and what to check,
a missing optional part names the extra that brings it. No traceback reaches a person unless
``signoff --debug`` (or ``SIGNOFF_DEBUG=1``) asks for it; then it is shown before the sentence,
and the exit code is the same.

====  =====================================================================================
code  meaning
====  =====================================================================================
0     done
1     refused: not yours to decide, already decided, a value the app refuses
2     misused: a wrong option or value, a missing extra, a setting that cannot be used,
      an app declared wrongly
3     not found: no such proposal, task, rule or person (or none you may see)
4     no valid token
5     could not be done: the database or a model could not be used, or an unforeseen failure
====  =====================================================================================
"""

from __future__ import annotations

import contextlib
import errno
import logging
import signal
import sys
import threading
import traceback
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import click

from signoff._extras import install_extra
from signoff.cli.invocation import commands_as_run, runnable
from signoff.cli.quoting import ARGUMENTS, quoting_told
from signoff.cli.streams import gone_nowhere, stderr_may_be_gone
from signoff.cli.terminal import visible
from signoff.exceptions import (
    AgentRefused,
    ConsentError,
    EditRefused,
    NotFound,
    ReadOnlyViolation,
    ReasonRefused,
    Refusal,
    SignoffError,
    StoreError,
    Unavailable,
    UserError,
)

__all__ = [
    "EXIT_FAILED",
    "EXIT_NOT_FOUND",
    "EXIT_REFUSED",
    "EXIT_UNAUTHENTICATED",
    "EXIT_USAGE",
    "EXTRAS",
    "Failure",
    "FailureTellingGroup",
    "Misuse",
    "by_whole_id",
    "failure_of",
    "in_command_words",
    "outcome_shown",
    "problem_told",
    "reader_gone",
    "tell_logs",
    "tell_traceback",
    "whole_id",
]

log = logging.getLogger("signoff.cli")
T = TypeVar("T")

EXIT_REFUSED = 1
"""A verb was refused (not yours to decide, already decided, a rule past the declaration)."""
EXIT_USAGE = 2
"""The command was used wrongly (or needs an extra, or is configured with a setting it cannot
use, or the app is declared wrongly)."""
EXIT_NOT_FOUND = 3
"""No such proposal, task, rule or person."""
EXIT_UNAUTHENTICATED = 4
"""No token, or a token that is not (or no longer) valid."""
EXIT_FAILED = 5
"""It could not be done: the database, a model or a server a call needs could not be used, or it
failed unforeseen."""
EXIT_INTERRUPTED = 130
"""Stopped with Ctrl-C before it was done (128 + SIGINT, as a shell reports it)."""

EXTRAS = {
    "psycopg": "postgres", "psycopg2": "postgres", "fastapi": "web", "uvicorn": "web",
    "jinja2": "web", "multipart": "web", "python_multipart": "web", "argon2": "web",
    "starlette": "web", "openai": "openai", "anthropic": "anthropic",
}
"""The extra that brings each optional module (by its top-level name)."""


class Failure(click.ClickException):
    """A failure told to a person: its sentence, and its exit code."""

    def __init__(self, message: str, exit_code: int) -> None:
        # It may quote what a model or a provider wrote; a command the library's message names
        # is written as the person runs signoff (`commands_as_run`); a byte of an argument
        # that is not UTF-8 (a path's, read as a lone surrogate) as the escape of that byte,
        # ``\xff`` (stderr wrote the surrogate's, ``\udcff``, which names no byte given).
        super().__init__(visible(commands_as_run(_bytes_shown(message))))
        # Click reads the code from the instance; each failure has its own.
        self.exit_code = exit_code  # type: ignore[misc]


class Misuse(Failure):
    """A command asked for what it cannot do as asked: a file that is not there, options that
    do not go together, no terminal to ask a password at. Its sentence alone, exit code 2; the
    command's usage, which click prints before its own errors (an option it does not know, one
    missing, a value of the wrong form), would tell nothing here."""

    def __init__(self, message: str) -> None:
        super().__init__(message, EXIT_USAGE)


def failure_of(error: BaseException, *, where: str = "", debugging: bool = False) -> Failure:
    """The sentence and exit code a person gets for `error` (`where`: what to name first;
    `debugging`: its traceback is shown above it, under ``--debug``)."""
    from signoff.models.errors import ModelError, ModelNotConfigured

    prefix = f"{where}: " if where else ""
    if isinstance(error, ModuleNotFoundError):
        return Failure(prefix + missing_module(error.name or ""), EXIT_USAGE)
    if isinstance(error, StoreError):
        if misread := _password_read_as_host(error.url):  # (said alone: the error repeats it)
            return Failure(prefix + misread, EXIT_FAILED)
        hint = _store_hint(error.url, str(error))
        return Failure(f"{prefix}{error}{' ' if hint else ''}{hint}", EXIT_FAILED)
    if isinstance(error, ModelNotConfigured):
        return Failure(prefix + error.message, EXIT_USAGE)
    if isinstance(error, ModelError):
        return Failure(prefix + error.message, EXIT_FAILED)
    if isinstance(error, NotFound):
        return Failure(prefix + error.message, EXIT_NOT_FOUND)
    if isinstance(error, Unavailable):  # nothing was sent, and it may be tried again later
        return Failure(prefix + error.message, EXIT_FAILED)
    if isinstance(error, Refusal):
        return Failure(prefix + error.message, EXIT_REFUSED)
    if isinstance(error, EditRefused | ReasonRefused):  # values or a reason that do not fit:
        return Failure(prefix + str(error), EXIT_USAGE)       # a wrong value
    if isinstance(error, AgentRefused):  # (an unknown id is a NotFound too: told above)
        return Failure(prefix + str(error), EXIT_REFUSED)
    if isinstance(error, ConsentError | ReadOnlyViolation):
        return Failure(prefix + str(error), EXIT_REFUSED)
    if isinstance(error, UserError):
        return Failure(prefix + str(error), EXIT_USAGE)
    if isinstance(error, SignoffError):
        return Failure(prefix + str(error), EXIT_FAILED)
    if isinstance(error, UnicodeEncodeError) and isinstance(error.object, str) and (
            "surrogate" in error.reason):  # an argument's bytes that are not UTF-8
        return Failure(f"{prefix}“{_bytes_shown(error.object)}” holds bytes that are not UTF-8 "
                       "text, which signoff can neither keep nor look up: give it as UTF-8.",
                       EXIT_USAGE)
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
        return Failure(f"{prefix}signoff could not write: {error.strerror} (the output's, or a "
                       "file's, disk is full): free some space there, and run it again.",
                       EXIT_FAILED)  # (`signoff tasks > /dev/full`: told as unforeseen)
    log.debug("An unforeseen failure", exc_info=error)
    where_told = ("The traceback above shows where: report it." if debugging else
                  f"Run it again as `{runnable('--debug …')}` to see where, and report it.")
    return Failure(f"{prefix}signoff failed for a reason it did not foresee "
                   f"({type(error).__name__}). {where_told}", EXIT_FAILED)


def _bytes_shown(text: str) -> str:
    """`text`, which holds bytes that are not UTF-8 (as Python reads an argument's, each as a
    lone surrogate), with each such byte written as an escape (``\\xff``)."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # (a surrogate no byte was read as)
        return text.encode("utf-8", "backslashreplace").decode()


def _store_hint(url: str, told: str = "") -> str:
    """What to check of the database at `url` that could not be used (`told`: what it said);
    "" when that says it already (a SQLite file's folder that is not there, or a folder where
    the file should be, which the library tells as it opens the file)."""
    if not url.startswith("sqlite"):
        return _server_hint(url, told)
    if "could not be opened" in told:
        return ""
    path = _sqlite_file(url)
    if path and Path(path).is_dir():
        return (f"{Path(path).resolve()} is a folder, not a database file: give the app the path "
                "of a file (which it makes when it is not there yet).")
    folder = Path(path).parent if path else None
    if folder is not None and not folder.is_dir():
        return (f"The folder {folder} does not exist: make it, or give the app a database in a "
                "folder that does (a relative path is read from the folder you run in).")
    if "readonly database" in told:  # (SQLite's "attempt to write a readonly database")
        return ("This command writes to it, and it is read-only here: opened read-only (mode=ro "
                "in its URL), or its file or folder may not be written by you. Give the app a "
                "database it may write to.")
    if "database is locked" in told:  # (SQLite's, once its wait for the write lock is over)
        return ("Another process held its write lock for longer than signoff waits for it: a "
                "backup, a `sqlite3` shell left in a transaction, or a process stuck while "
                "writing. Let it finish (or stop it), then run this again.")
    if "file is not a database" in told or "database disk image is malformed" in told:
        return (f"{Path(path).resolve() if path else 'Its file'} is not a SQLite database (or "
                "it is encrypted, or damaged): give the app its database file, or a path where "
                "none is yet (which it makes). Nothing in that file was changed.")
    return ("Check that its file and folder may be read and written by you, and that the app's "
            "database URL is right.")


def _password_read_as_host(url: str) -> str:
    """The sentence for a server's `url` whose password holds an ``@`` written as itself
    (`password_misread`), with the form that works; "" for any other URL."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    from signoff.store.database import password_misread

    try:
        said = password_misread(make_url(url))
    except ArgumentError:
        return ""
    return said and (f"{said} For the password p@ss: "
                     "postgresql+psycopg://USER:p%40ss@HOST/DATABASE.")


def _server_hint(url: str, told: str) -> str:
    """What to check of a database server that refused or could not be reached at `url`
    (`told`: what the library said, its hint already in it when the server could not be
    connected to: `signoff.store.hints`), in the words of what went wrong."""
    from signoff.store.hints import server_hint

    hint = server_hint(url, told)
    if hint and hint in told:  # (said once: the library's sentence holds it)
        return ""
    return hint or ("Check that the database is running and reachable, and that the app's "
                    "database URL is right.")


def _sqlite_file(url: str) -> str:
    """The file a SQLite `url` names ("" for one in memory): its path, or, in the URI form
    (``sqlite:///file:/path/app.db?mode=ro&uri=true``), the path in the URI."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError:
        return ""
    path = parsed.database or ""
    if parsed.query.get("uri") in ("true", "1") and path.startswith("file:"):
        path = path.removeprefix("file:").split("?", 1)[0]
    return "" if path in ("", ":memory:") or path.startswith("file::memory:") else path


_IN_COMMAND_WORDS = (
    ("Give the work a larger budget (budget_usd), or its agent a smaller max_output_tokens.",
     "Give it a larger --budget."),
    ("or make the model with stream=False.", "or ask again with the --json option, which waits "
     "for each whole reply instead of a stream."),
)
"""The library's advice in a task's problem that names what only a caller of the library can
set, and what a person can do on the command line instead."""


def in_command_words(text: str) -> str:
    """`text`, from the library (a task's problem, a receipt's line), as the command line tells
    it: each command it names as the person can run it (`commands_as_run`), and advice to set
    what the library's caller sets (``budget_usd``, ``max_output_tokens``, ``stream=False``)
    as the option that does it on the command line."""
    told = commands_as_run(text)
    for library, command_line in _IN_COMMAND_WORDS:
        told = told.replace(library, commands_as_run(command_line))
    return told


def problem_told(problem: str) -> str:
    """A task's `problem` as the command line tells it (`in_command_words`), with the option
    that lifts the limit of model calls it was Halted at: the library's sentence names none,
    and both `signoff run` and `signoff research` take ``--max-steps``."""
    told = in_command_words(problem)
    if told.startswith("Halted: it reached its limit of"):
        return f"{told} Give it a larger --max-steps to let it make more model calls."
    return told


def missing_module(name: str) -> str:
    """What to install when the module `name` is missing."""
    top = name.split(".")[0]
    extra = EXTRAS.get(top)
    if extra is not None:
        return (f"This needs signoff's {extra} extra ({top} is not installed): "
                f"{install_extra(extra)}.")
    # (Not "pip install NAME": a module's name is often not its package's, such as yaml and
    # PyYAML, and a misspelt import named as a package to install may install a stranger's.)
    return (f"This needs the Python package {top}, which is not installed in the Python signoff "
            f"runs in ({sys.executable}): check the import's spelling, or install the package "
            f"that provides the module {top} there (its name on PyPI may differ).")


def tell_traceback(error: BaseException) -> None:
    """Show `error`'s traceback on stderr, for ``signoff --debug``: its sentence and exit code
    (`failure_of`) follow it, as without ``--debug``, so that a script sees the same code."""
    click.echo("".join(traceback.format_exception(error)).rstrip("\n"), err=True)


class _Sentence(logging.Formatter):
    """A log record as its sentence alone: the traceback it carries stays out."""

    def format(self, record: logging.LogRecord) -> str:
        return record.getMessage()


def tell_logs(*, debug: bool) -> None:
    """Let signoff's warnings reach stderr as sentences (with their tracebacks under
    ``--debug``), rather than through Python's last-resort handler, which prints tracebacks."""
    logger = logging.getLogger("signoff")
    handler = next((h for h in logger.handlers if isinstance(h, _ToStderr)), None)
    if handler is None:
        handler = _ToStderr()
        handler.setLevel(logging.WARNING)
        logger.addHandler(handler)
        # The MCP SDK's errors too (an upstream's stray line printed a traceback): as
        # sentences, with their tracebacks under --debug.
        logging.getLogger("mcp").addHandler(handler)
    handler.setFormatter(logging.Formatter("%(message)s") if debug else _Sentence())
    # What signoff logs with its causes when debugging (the handler still shows warnings only);
    # a command run after it in the same process (as the tests run them) is not debugging.
    if debug and logger.getEffectiveLevel() > logging.DEBUG:
        logger.setLevel(logging.DEBUG)
        handler.lowered = True
    elif not debug and handler.lowered:
        logger.setLevel(logging.NOTSET)
        handler.lowered = False


@contextlib.contextmanager
def outcome_shown() -> Iterator[None]:
    """While a command runs a task whose outcome it shows, leave out of stderr what signoff
    logs that the task's problem tells as well (`ALSO_THE_PROBLEM`: a model that failed, a
    skill's code that raised), so that each sentence is read once. Under --debug it stays, with
    its traceback."""
    from signoff.agents.tasks import ALSO_THE_PROBLEM

    handler = next((h for h in logging.getLogger("signoff").handlers
                    if isinstance(h, _ToStderr)), None)
    if handler is None or not isinstance(handler.formatter, _Sentence):
        yield
        return

    def not_told_by_outcome(record: logging.LogRecord) -> bool:
        return not getattr(record, ALSO_THE_PROBLEM, False)

    handler.addFilter(not_told_by_outcome)
    try:
        yield
    finally:
        handler.removeFilter(not_told_by_outcome)


class _ToStderr(logging.StreamHandler):  # type: ignore[type-arg]
    """A handler writing to stderr as it is when a record comes (a command run in-process, as
    the tests run them, has a stderr of its own each time)."""

    lowered = False
    """Whether a command under --debug lowered signoff's logger to DEBUG (`tell_logs`)."""

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, _value: Any) -> None:
        """The stream is always the current stderr."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as its formatter says, each command it names as the person runs signoff
        (`commands_as_run`)."""
        return commands_as_run(super().format(record))


def hear_ctrl_c() -> None:
    """Unblock Ctrl-C (SIGINT) in the main thread: a process that started signoff from a thread
    blocking it (as many runtimes' threads do) passed the block on, and a Ctrl-C then waited,
    unheard, for as long as the command ran (`signoff run` waiting on its model: minutes). It
    stays unblocked to the process's end, its exit handlers included (the traces' flush gives
    way to a Ctrl-C). An ignored SIGINT (``nohup``, a job started in the background) is left
    ignored, as it is meant. One pressed before, held back until now, stops the command here."""
    if not hasattr(signal, "pthread_sigmask") or \
            threading.current_thread() is not threading.main_thread():
        return
    try:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    except KeyboardInterrupt:  # (raised by the call itself, which runs the handler at once)
        click.echo("Stopped.", err=True)
        raise SystemExit(EXIT_INTERRUPTED) from None


def reader_gone() -> None:
    """The reader of stdout stopped reading (`signoff tasks | head -1`): what is written there
    from now on goes nowhere, so that nothing more can fail for it, and Python's own report of
    the broken pipe at exit is kept away. (Where stdout is no file, as in the tests' runner,
    there is nothing to do.)"""
    gone_nowhere(sys.stdout)


class FailureTellingGroup(click.Group):
    """A command group that tells every failure of its commands as a sentence and an exit
    code; when its ``debug`` parameter asks for the traceback, that is shown first."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """The command, run with Ctrl-C heard (`hear_ctrl_c`) and a stderr whose reader may be
        gone (`stderr_may_be_gone`: the exit code is still the failure's)."""
        hear_ctrl_c()
        with stderr_may_be_gone():
            return super().main(*args, **kwargs)

    def resolve_command(self, ctx: click.Context, args: list[str]
                        ) -> tuple[str | None, click.Command | None, list[str]]:
        if args and args[0] == "help" and "help" not in self.commands:  # (as git and pip have)
            named, command = [], self.commands.get(args[1]) if args[1:] else None
            while command is not None:  # (`help users add`: the words that name a command)
                named.append(command.name or "")
                words = args[1 + len(named):]
                command = (command.commands.get(words[0]) if words and isinstance(
                    command, click.Group) else None)
            asked = runnable(" ".join([*named, "--help"]))
            ctx.fail(f"There is no command help: `{asked}` tells "
                     f"{'that command' if named else 'the commands'}, with examples.")
        return super().resolve_command(ctx, args)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta[ARGUMENTS] = list(args)  # (for `quoting_told`: the words as given)
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as error:  # (several words given unquoted, say)
            told = quoting_told(error, ctx.meta.get(ARGUMENTS, []))
            if told is error:
                raise
            raise told from None
        except click.exceptions.Exit:
            raise
        except click.ClickException as told:  # (a failure a command tells: its traceback, when
            if ctx.params.get("debug"):        # asked for, as an error's; usage errors are above)
                tell_traceback(told)
            raise
        except (KeyboardInterrupt, click.Abort):  # (Abort: Ctrl-C at a prompt, as click tells it)
            # (Ctrl-C): click's "Aborted!" and exit 1 read as a refusal. What a command was
            # doing in a transaction is not kept (upgrading the database, say: the next opening
            # does it again); what it did before was, and says so where it matters.
            click.echo("Stopped.", err=True)
            raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
        except BrokenPipeError:
            # The reader stopped reading (`signoff tasks | head -1`): what it wanted was given.
            reader_gone()
            raise click.exceptions.Exit(0) from None
        except Exception as error:
            debugging = bool(ctx.params.get("debug"))
            if debugging:
                tell_traceback(error)
            raise failure_of(error, debugging=debugging) from None


def by_whole_id(kind: str, shown: str, given_id: str, find: Callable[[], T]) -> T:
    """What `find` finds by `given_id`, an id of a `kind` of thing; its `NotFound`, saying that
    the whole id is needed and where it is `shown` ("as `signoff tasks` lists it"), when what
    was given is not a whole id (a prefix of one, say)."""
    try:
        return find()
    except NotFound as error:
        if whole_id(given_id):
            raise
        raise NotFound(f"{error.message} A {kind} is named by its whole id (36 characters), "
                       f"{shown}.") from None


def whole_id(text: str) -> bool:
    """Whether `text` is an id as signoff writes one (a UUID, in lower case, with its dashes)."""
    try:
        return str(uuid.UUID(text)) == text
    except ValueError:
        return False
