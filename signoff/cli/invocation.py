"""How the person runs signoff: the program as they can run it again (`program`), and a command
a hint tells them to run next written with it (`runnable`).

After ``scripts/demo`` in a clone, ``.venv/bin/signoff`` exists but no ``signoff`` is on PATH:
a hint that says a bare ``signoff …`` would name a command that is not found. Every hint that
names a command to run goes through `runnable` (help texts' examples are documentation, and say
``signoff``). Kept apart from the package's ``__init__`` so that `signoff.cli.failures`, which
it imports, can tell commands too.

The library below the command line cannot know how a person runs signoff (it is not run as a
command at all, or the message is read later, in another process: a task's problem kept in the
database). So a message of the library (an error, a task's problem, a log record) that tells a
person to run a command names it as the documentation does, ```signoff WORDS``` in backticks,
and the command line, where it prints such a message, writes each as `runnable` would
(`commands_as_run`); the inbox and the REST API show the documentation's name.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from pathlib import Path

__all__ = ["commands_as_run", "ends_with_the_command", "program", "runnable",
           "the_process_is_the_command"]


def program() -> str:
    """How the person runs signoff again, to begin a command a message tells them: ``signoff``
    when that is on their PATH and is the program running now; else the path it was run by,
    relative to the current folder when under it (``.venv/bin/signoff`` in a clone whose
    environment is not activated, as after ``scripts/demo``)."""
    ran = Path(sys.argv[0])
    if ran.stem != "signoff":  # as `python -m signoff.cli`, or called in-process by a test
        return "signoff"
    found = shutil.which("signoff")
    try:
        if found and os.path.samefile(found, ran):
            return "signoff"
    except OSError:  # either is gone: name the path it was run by
        pass
    where = Path(os.path.abspath(ran))
    try:
        shown = str(where.relative_to(Path.cwd()))
        shown = shown if os.sep in shown else f".{os.sep}{shown}"  # not looked up on PATH
    except ValueError:  # not under the current folder
        shown = str(where)
    return shlex.quote(shown)


def runnable(words: str) -> str:
    """The command ``signoff WORDS`` (``"users token mia@example.com --save"``) as the person can
    run it: `program` (quoted for a shell), then `words`, for a hint that tells them what to run
    next. `words` are as a shell reads them: a path or a value put in them is quoted with
    `shlex.quote` by whoever puts it in (``--app 'my shop/shop.py:app'``, as
    `signoff.cli.app_option_words` does), so that the command works when pasted."""
    return f"{program()} {words}"


_NAMED = re.compile(r"`signoff ([^`]+)`")
"""A command named in a library's message: ```signoff WORDS``` in backticks."""


def commands_as_run(message: str) -> str:
    """`message`, from the library, with each command it names as ```signoff WORDS```
    written as the person can run it (`runnable`): for the command line to print."""
    return _NAMED.sub(lambda named: f"`{runnable(named.group(1))}`", message)


class _Process:
    command = False
    """Whether this process is the `signoff` program: it ends as its command ends."""


def the_process_is_the_command() -> None:
    """Said by the `signoff` program's entry points (``signoff``, ``python -m signoff``): this
    process ends as its command does, nothing of a caller's running after it, so what a command
    sets for the process's end (a Ctrl-C ignored once research has shown its outcome) may last
    to it. A command run in a process that goes on (a test's, through click's runner) puts back
    what it set as it ends."""
    _Process.command = True


def ends_with_the_command() -> bool:
    """Whether this process ends as its command does (`the_process_is_the_command`)."""
    return _Process.command
