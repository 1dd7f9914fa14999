"""A value of several words given without quotes: what click tells as "Got unexpected extra
arguments (does the with statement do?)" gets the sentence that says what was meant — the
words are one value only in quotes — and the value as it would be quoted."""

from __future__ import annotations

import re
import shlex

import click

__all__ = ["ARGUMENTS", "quoting_told"]

ARGUMENTS = "signoff.arguments"
"""Where the command line's arguments are kept in the root context's `meta` (by
`FailureTellingGroup.parse_args`), for `quoting_told` to find the words in."""

_EXTRA = re.compile(r"Got unexpected extra arguments? \((?P<words>.+)\)", re.DOTALL)
"""Click's message for positional words that no argument of the command takes."""

_SECRET = ("password", "token", "key", "secret")
"""Words in a parameter's name that mark its value as not to be printed back."""


def quoting_told(error: click.UsageError, arguments: list[str]) -> click.UsageError:
    """When `error` is click's "Got unexpected extra arguments (…)", and those words follow a
    value of one word in `arguments` (the command line as given: `signoff research What does
    the with statement do?`), add to its message that words with spaces between them are one
    value only in quotes, and that value quoted, with the argument or option it is for
    (``QUESTION 'What does the with statement do?'``; a password or a token's is not printed
    back): the error to raise. Any other error, or words that follow no such value, is
    `error` itself."""
    found = _EXTRA.fullmatch(error.message)
    if found is None or error.ctx is None:
        return error
    words = found["words"].split(" ")
    at = _last_run(arguments, words)
    if at < 1 or arguments[at - 1].startswith("-"):
        return error
    named = _named(error.ctx, arguments, at)
    if named is None:
        return error
    label, secret = named
    value = "" if secret else " " + shlex.quote(" ".join([arguments[at - 1], *words]))
    return click.UsageError(
        f"{error.message}. Words with spaces between them are one value only in quotes: give "
        f"{label} as one, in quotes{':' if value else ''}{value}.", error.ctx)


def _last_run(arguments: list[str], words: list[str]) -> int:
    """Where the last run of `words` begins in `arguments` (-1 when they are not there)."""
    for start in range(len(arguments) - len(words), -1, -1):
        if arguments[start:start + len(words)] == words:
            return start
    return -1


def _named(context: click.Context, arguments: list[str], at: int) -> tuple[str, bool] | None:
    """What the value just before `at` is for: the option before it that takes a value
    (``--reason``), else the command's last argument (``QUESTION``) when that is its value; and
    whether that value is a secret. None when neither is found."""
    command = context.command
    if at >= 2:
        for option in command.params:
            # (the word after a flag is an argument's)
            if isinstance(option, click.Option) and not (option.is_flag or option.count) and (
                    arguments[at - 2] in (*option.opts, *option.secondary_opts)):
                return option.opts[-1], _is_secret(option)
    positional = [p for p in command.params if isinstance(p, click.Argument) and p.nargs == 1]
    if not positional:
        return None
    last = positional[-1]
    if context.params.get(last.name or "") != arguments[at - 1]:
        return None
    return last.human_readable_name, _is_secret(last)


def _is_secret(parameter: click.Parameter) -> bool:
    return any(word in (parameter.name or "").lower() for word in _SECRET)
