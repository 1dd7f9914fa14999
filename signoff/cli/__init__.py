"""The ``signoff`` command: a thin layer over the library that finds the app, calls, and formats.

The app is named by ``--app`` (or ``SIGNOFF_APP``) as ``module:attribute`` or
``path/to/file.py:attribute`` (the attribute defaults to ``app``).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import json
import os
import shlex
import sys
import sysconfig
import traceback
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import click

from signoff.agents.agency import MAX_STEPS
from signoff.agents.tasks import as_signoff_writes_ids
from signoff.cli.failures import (
    EXIT_FAILED,
    EXIT_NOT_FOUND,
    EXIT_REFUSED,
    EXIT_UNAUTHENTICATED,
    EXIT_USAGE,
    Failure,
    FailureTellingGroup,
    Misuse,
    failure_of,
    tell_logs,
    tell_traceback,
)
from signoff.cli.invocation import program, runnable
from signoff.exceptions import SignoffError

__all__ = [
    "APP_OPTION",
    "AS_OPTION",
    "EXIT_FAILED",
    "EXIT_NOT_FOUND",
    "EXIT_REFUSED",
    "EXIT_UNAUTHENTICATED",
    "EXIT_USAGE",
    "JSON_OPTION",
    "MOST_TIMEOUT",
    "NAMING_THE_APP",
    "PASSWORD_OPTIONS",
    "TOKEN_OPTION",
    "Seconds",
    "Unauthenticated",
    "app_option_words",
    "given",
    "kept_for",
    "load_app",
    "main",
    "model_with_its_provider",
    "new_password",
    "not_empty",
    "opened_guard",
    "profile_path",
    "program",
    "read_profile",
    "revoking_a_rule",
    "runnable",
    "save_token",
    "temporal_address",
    "temporal_address_refused",
    "which_file",
    "whoami",
]

NAMING_THE_APP = ("give --app path/to/app.py (a file) or --app mypackage.app (a module), adding "
                  ":NAME when the App in it is not called app, or set SIGNOFF_APP to the same")
"""How to name the app a command works on, for a message that says no app is named."""

_APP_SPEC = "signoff.app_spec"
"""Where the context keeps the app spec a command loaded (for the hints it prints)."""


def _app_code_failure(error: Exception, where: str) -> Failure | None:
    """The app's own code failing as it loads (a syntax error, an exception its module raises):
    told as the app's, at its file and line, not as signoff's. None for signoff's errors."""
    if isinstance(error, SignoffError):
        return None
    if isinstance(error, SyntaxError):
        place = f"{Path(error.filename or where).name}, line {error.lineno}"
        return Failure(f"{place}: {error.msg}: the app's code is not valid Python.", EXIT_USAGE)
    frames = traceback.extract_tb(error.__traceback__)
    own = [f for f in frames if not f.filename.startswith(_FRAMEWORK)
           and not f.filename.startswith("<frozen")]
    if not own:
        return None
    last = own[-1]
    told = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return Failure(
        f"{Path(last.filename).name}, line {last.lineno}: the app's code raised "
        f"{type(error).__name__}{f' ({told!r})' if told else ''} as it was loaded. Run "
        f"`python {last.filename}` to see the whole traceback.", EXIT_USAGE)


def _app_exited(stop: SystemExit, where: str) -> Failure:
    """The app's code calling ``sys.exit`` (or a script's argument parser exiting) as it was
    loaded: its module runs from the top when a command loads it, so a script's part that is
    not under ``if __name__ == "__main__":`` ran, and the command ended with the app's exit code
    and nothing said (or its parser's usage, which is not signoff's)."""
    frames = [f for f in traceback.extract_tb(stop.__traceback__)
              if not f.filename.startswith(_FRAMEWORK) and not f.filename.startswith("<frozen")]
    place = (f"{Path(frames[-1].filename).name}, line {frames[-1].lineno}" if frames else
             where)
    return Misuse(f"{place}: the app's code exited (sys.exit({stop.code!r})) as it was loaded, so "
                  "there is no app to work on. A command loads the app's module, which runs it "
                  "from its top: put what it does as a script under "
                  "`if __name__ == \"__main__\":`.")


_FRAMEWORK = (str(Path(__file__).resolve().parent.parent) + os.sep,
              *{p for k, p in sysconfig.get_paths().items()
                if k in ("stdlib", "platstdlib", "purelib", "platlib")})
"""Where signoff, the standard library and installed packages live: a frame elsewhere is the
app's."""


def _is(path: Path, kind: Callable[[Path], bool]) -> bool:
    """Whether `path` is of a `kind` (`Path.is_file`, `Path.is_dir`); False for a path the
    system cannot look up at all (a name too long: it failed "for a reason it did not
    foresee")."""
    try:
        return kind(path)
    except OSError:
        return False


def load_app(spec: str | None) -> Any:
    """The App named by `spec` ("module:attr" or "file.py:attr")."""
    from signoff.app import App

    spec = spec or os.environ.get("SIGNOFF_APP")
    if not spec:
        raise Misuse(f"No app is named: {NAMING_THE_APP}.")
    temporal = os.environ.get("SIGNOFF_TEMPORAL", "")  # (read as the app is made: told first,
    if temporal.strip() and temporal_address(temporal) != temporal.strip():  # as the setting)
        raise Misuse(temporal_address_refused("SIGNOFF_TEMPORAL", temporal))
    context = click.get_current_context(silent=True)
    if context is not None:
        context.find_root().meta[_APP_SPEC] = spec
    where, _, attribute = spec.partition(":")
    attribute = attribute or "app"
    if not where.strip():  # (":app": it was told as " is a folder", of nothing named)
        raise Misuse(f"{spec}: no file or module is named before the colon: {NAMING_THE_APP}.")
    try:
        if where.endswith(".py"):
            path = Path(where).resolve()
            if not _is(path, Path.is_file):
                raise Misuse(f"There is no file {where}.")
            module_spec = importlib.util.spec_from_file_location(path.stem, path)
            if module_spec is None or module_spec.loader is None:
                raise Misuse(f"{where} cannot be loaded as Python.")
            module = importlib.util.module_from_spec(module_spec)
            sys.modules[path.stem] = module
            _on_path(path.parent)  # its own modules beside it import, as with `python FILE`
            module_spec.loader.exec_module(module)
        else:
            if not all(part.isidentifier() for part in where.split(".")):  # (a package's
                # folder named as a module imports as one)
                folder = _is(Path(where), Path.is_dir)  # (a file of another kind has no app.py)
                such_as = Path(where) / "app.py" if folder else Path(where).with_suffix(".py")
                raise Misuse(
                    f"{spec}: give the app as a file ending in .py (such as {such_as}:app) or "
                    f"as a module (myapp:app); {where} is "
                    f"{'a folder' if folder else 'neither'}.")
            _on_path(Path.cwd())  # a module of this folder imports, as with `python -m`
            module = importlib.import_module(where)
    except ModuleNotFoundError as error:
        if _debugging():
            tell_traceback(error)
        if error.name and error.name.split(".")[0] == where.removesuffix(".py").split(".")[0]:
            raise Misuse(f"{spec}: there is no module {where} to import (give a "
                         "module on the Python path, or a file ending in .py).") from None
        raise failure_of(error, where=spec, debugging=_debugging()) from None
    except click.ClickException:
        raise
    except SystemExit as stop:  # (its code is the app's, not one of signoff's exit codes)
        raise _app_exited(stop, where) from None
    except Exception as error:
        if _debugging():
            tell_traceback(error)
        raise _app_code_failure(error, where) or failure_of(
            error, where=spec, debugging=_debugging()) from None
    app = getattr(module, attribute, None)
    if not isinstance(app, App):
        apps = sorted(name for name, value in vars(module).items() if isinstance(value, App))
        named = (f"its App is {where}:{apps[0]}" if len(apps) == 1 else
                 f"its Apps are {', '.join(f'{where}:{a}' for a in apps)}" if apps else
                 "it makes no signoff App")
        what = (f"{where} has no {attribute}" if app is None else
                f"{attribute} in {where} is not a signoff App")
        raise Misuse(f"{spec}: {what}; {named}.")
    if context is not None and where.endswith(".py"):  # loaded afresh, for this command alone:
        context.find_root().call_on_close(app.database.dispose)  # its connections close with it
        _note_a_new_database(app, Path(where).resolve().parent)
    return app


def _note_a_new_database(app: Any, folder: Path) -> None:
    """When the app (its file in `folder`) names its SQLite file from the folder a command runs
    in, and the app's folder has that file but this one has none: say that a new, empty
    database is made here (run from another folder, `serve` showed an empty inbox and `worker`
    stepped nothing, in silence). (With the file in neither, it is the first run: nothing to
    say.)"""
    file = app.database.file
    if not file or os.path.isabs(file) or os.path.exists(file) or (
            folder == Path.cwd().resolve()) or not (folder / file).exists():
        return
    click.echo(f"Note: the app's database is the file {file}, named from the folder a command "
               f"runs in: there is one in the app's folder ({folder}) but none in {Path.cwd()}, "
               f"so a new, empty one is made here. Run it from the app's folder, or give the app "
               f"an absolute URL (sqlite:////path/to/{os.path.basename(file)}).", err=True)


def _on_path(folder: Path) -> None:
    """Let the modules of `folder` be imported (an app's own modules beside it)."""
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))


def _debugging() -> bool:
    context = click.get_current_context(silent=True)
    return bool(context is not None and context.find_root().params.get("debug"))


_GUARD_CONFIG = "signoff.guard_config"
"""Where the context keeps the guard config a command opened (for the hints it prints)."""


def opened_guard(config_path: str) -> None:
    """Say that this command works on the guard `config_path` describes (for its hints)."""
    context = click.get_current_context(silent=True)
    if context is not None:
        context.find_root().meta[_GUARD_CONFIG] = config_path


def _opened_guard() -> str | None:
    """The guard config this command opened (`opened_guard`), if it opened one."""
    context = click.get_current_context(silent=True)
    return context.find_root().meta.get(_GUARD_CONFIG) if context is not None else None


def _saving_a_token(handle: str) -> str:
    """The command that keeps a token for `handle` in the profile, for this command's app."""
    guard = _opened_guard()
    if guard:
        return runnable(f"mcp token {shlex.quote(guard)} {shlex.quote(handle)} --save")
    return runnable(f"users token {shlex.quote(handle)} --save{app_option_words()}")


def revoking_a_rule(rule_id: str) -> str:
    """The command that takes back a standing rule, for this command's app."""
    guard = _opened_guard()
    if guard:
        return runnable(f"mcp revoke {shlex.quote(guard)} {shlex.quote(rule_id)}")
    return runnable(f"rules revoke {shlex.quote(rule_id)}{app_option_words()}")


def listing_proposals() -> str:
    """The command that lists every proposal a person may see, for this command's app (the
    guard's, when it opened one)."""
    guard = _opened_guard()
    if guard:
        return runnable(f"mcp proposals {shlex.quote(guard)}")
    return runnable(f"proposals --all{app_option_words()}")


def nobody_named(app: Any, handle: str, *, advice: str = "") -> str:
    """"There is nobody with the handle … in the app" (then `advice`), and, when the app's
    database is a SQLite file named from the current folder, which file that is here: run from
    another folder, it is another database (a new, empty one), the likeliest reason; it is
    said only of a database with nobody in it, with how to add people. Without `advice`, the
    sentence names the command that lists the people there are."""
    said = f"There is nobody with the handle {handle!r} in {app.name}{_meant(app, handle)}"
    said = f"{said}: {advice}." if advice else f"{said}."
    nobody_yet = _nobody_yet(app)
    if nobody_yet:
        return f"{said}{which_file(app)}{nobody_yet}"
    if advice:
        return said
    return f"{said} `{runnable('users list' + app_option_words())}` lists its people."


def _meant(app: Any, handle: str) -> str:
    """For a handle that is no e-mail address (`--for mia`), the handles of the people it
    could mean, by the start of their handle or by name: " (a handle is an e-mail address:
    mia@workshop.example?)"; else ""."""
    if "@" in handle:
        return ""
    word = handle.strip().casefold()
    meant = [p.handle for p in app.people.all()
             if word and (p.handle.casefold().split("@")[0] == word or p.name.casefold() == word)]
    return (f" (a handle is an e-mail address: {', '.join(meant)}?)" if meant
            else " (a handle is an e-mail address)")


def which_file(app: Any) -> str:
    """When the app's database is a SQLite file named from the current folder, which file that
    is here (run from another folder, it is another database: a new, empty one); else ""."""
    file = app.database.file
    if not file or os.path.isabs(file):
        return ""
    return (f" Its database is {os.path.abspath(file)} here: the app's URL names the file "
            f"{file} from the folder a command runs in. Run it from the app's folder, or give the "
            f"app an absolute URL (sqlite:////path/to/{os.path.basename(file)}).")


def _nobody_yet(app: Any) -> str:
    """When the app has no people at all, how to add them (and, for one of the examples, that
    it makes its own when run as a script); else ""."""
    from signoff.security.principals import PrincipalKind

    if any(p.kind is PrincipalKind.PERSON for p in app.people.all()):
        return ""
    context = click.get_current_context(silent=True)
    spec = str(context.find_root().meta.get(_APP_SPEC) or "") if context is not None else ""
    script = spec.rsplit(":", 1)[0] if spec.rsplit(":", 1)[0].endswith(".py") else ""
    own = (f" (the examples make theirs when run: python {shlex.quote(script)})"
           if Path(script).parent.name == "examples" else "")
    adding = runnable(f"users add HANDLE NAME{app_option_words()}")
    return (f" It has nobody yet: add people with {adding}, or by the app's own setup{own}.")


def app_option_words() -> str:
    """`` --app SPEC`` naming the app this command loaded, for a hint to quote ("" if none);
    SPEC quoted for a shell (``--app 'my shop/shop.py:app'``)."""
    context = click.get_current_context(silent=True)
    spec = context.find_root().meta.get(_APP_SPEC) if context is not None else None
    return f" --app {_quoted(spec)}" if spec else ""


def _quoted(text: str) -> str:
    """`text` quoted for a shell (`shlex.quote`); one that holds bytes that are not UTF-8 (a
    path's, which Python reads as lone surrogates) in the shell's ``$'…'`` form, each byte past
    ASCII written as its escape (``$'caf\\xe9.py:app'``), which bash and zsh read back as the
    bytes given (quoted plainly, it was printed as ``\\udce9``, which names no byte)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        with contextlib.suppress(UnicodeEncodeError):  # (a surrogate no byte was read as: plain)
            raw = text.encode("utf-8", "surrogateescape")
            return "$'" + "".join(chr(b) if 0x20 <= b < 0x7f and chr(b) not in "\\'"
                                  else f"\\x{b:02x}" for b in raw) + "'"
    return shlex.quote(text)


class _DebugSetting(click.types.BoolParamType):
    """``--debug``, or ``SIGNOFF_DEBUG`` as one of the words a setting of yes or no is written
    in; any other value of the variable is told in words, naming it and what it takes (click
    said "Invalid value for '--debug'", and listed the words it takes starting with an empty
    one)."""

    words = frozenset({"1", "true", "t", "yes", "y", "on", "0", "false", "f", "no", "n", "off",
                       ""})
    """What click reads as yes or no, in any case, around spaces."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None
                ) -> bool:
        if isinstance(value, str) and value.strip().lower() not in self.words:  # (--debug
            # itself is True: a text is the variable's value)
            raise Misuse(
                f"SIGNOFF_DEBUG is “{value}”, which it does not take: set it to 1 (or true, "
                "yes, on) to show a failure's traceback before its sentence, as --debug does, "
                "or to 0 (or false, no, off), or leave it empty, not to.")
        return super().convert(value, param, ctx)


@click.group(cls=FailureTellingGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="signoff")
@click.option("--debug", is_flag=True, type=_DebugSetting(), envvar="SIGNOFF_DEBUG",
              help="Show the traceback of a failure before its sentence (the exit code is the "
                   "same).")
def main(debug: bool) -> None:
    """signoff: run tool-using AI agents inside hard guardrails.

    Exit codes: 0 done, 1 refused, 2 misused, 3 not found, 4 no valid token, 5 could not be
    done (the database or a model could not be used, or an unforeseen failure), 130 stopped
    with Ctrl-C.

    \b
    Examples:
      signoff actions --app examples/bakery.py:app
      signoff actions --app examples/workshop.py --explain set_price
      signoff lint --app examples/crane.py
      signoff --debug users list --app examples/workshop.py
    """
    tell_logs(debug=debug)


def given(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """An id or handle argument (or option: None when it is not given), which must not be
    empty: an empty one (an unset shell variable, ``""``) is a usage error that says so, not a
    search for nothing. An id written otherwise than signoff writes ids (in upper case, say) is
    read as signoff writes it."""
    text = not_empty(ctx, param, value)
    if text is None:
        return None
    text = text.strip()
    if text.startswith("--") and isinstance(param, click.Option):  # `--approve --json ID`
        raise click.BadParameter(
            f"it takes a value, and was given the option {text}: put the value right after "
            f"it ({param.opts[-1]} {param.metavar or 'VALUE'}).", ctx, param)
    return as_signoff_writes_ids(text)


def not_empty(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """An option's value (None when it is not given), which must not be empty: an empty one
    (an unset shell variable, ``""``) is a usage error that says so, not the option left out
    (``--app ""`` took SIGNOFF_APP's app, ``--model ""`` the agent's own model)."""
    if value is not None and not value.strip():
        raise click.BadParameter(
            "it is empty: give it (an unset shell variable gives an empty one).", ctx, param)
    return value


def model_with_its_provider(ctx: click.Context, param: click.Parameter, value: str | None
                            ) -> str | None:
    """A ``--model`` spec (None when it is not given), which names its provider, as the help
    asks (``openai:gpt-4o``): a bare name (``gpt-4o``), which the library takes as the
    provider its name suggests, is a usage error naming the spec to write."""
    from signoff.models.choose import with_its_provider
    from signoff.models.errors import ModelNotConfigured

    value = not_empty(ctx, param, value)
    if value is None:
        return None
    try:
        return with_its_provider(value)
    except ModelNotConfigured as error:
        raise click.BadParameter(error.message, ctx, param) from None


APP_OPTION = click.option("--app", "app_spec", envvar="SIGNOFF_APP", metavar="MODULE:ATTR",
                          callback=not_empty,  # (empty, it took SIGNOFF_APP's app, or none)
                    help="The app: module:attribute or path/to/file.py:attribute.")
JSON_OPTION = click.option("--json", "as_json", is_flag=True, help="Print JSON, for scripts.")


class Dollars(click.ParamType):  # type: ignore[type-arg]  # (not subscripted: click 8.1 has it plain)
    """A budget in US dollars, above 0 (``inf``: no limit), told in words when it is not one
    (click's range said "'abc' is not a valid float range"). A budget of 0 is refused: a task
    halts once its spend reaches its budget, so it would halt before its first step, a free
    model's too."""

    name = "USD"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None
                ) -> float:
        try:
            amount = float(value)
        except (TypeError, ValueError):
            amount = float("nan")
        if amount == 0:
            self.fail(f"A budget of “{value}” halts the task before its first step (a task "
                      "stops once its spend reaches its budget, even with a free model): give "
                      "a number above 0, such as 0.50, or inf for no limit.", param, ctx)
        if not amount > 0:  # (NaN too)
            self.fail(f"“{value}” is not an amount of US dollars: give a number above 0 "
                      "(0.50; inf for no limit).", param, ctx)
        return amount




class Steps(click.ParamType):  # type: ignore[type-arg]
    """A number of model calls, 1 or more, told in words when it is not one."""

    name = "N"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None
                ) -> int:
        try:
            steps = int(str(value).strip())
        except ValueError:
            steps = 0
        if not 1 <= steps <= MAX_STEPS:  # (past 64 bits, the task's row cannot keep it)
            self.fail(f"“{value}” is not a number of model calls: give a whole number from 1 "
                      f"to {MAX_STEPS:,}, such as 8.", param, ctx)
        return steps


MOST_TIMEOUT = 86_400.0
"""The longest ``--timeout`` for a model a command takes, a day: the longest wait a model
takes (`signoff.models`)."""


class Seconds(click.ParamType):  # type: ignore[type-arg]
    """A number of seconds, told in words when it is not one: more than 0 (how often to look),
    or 0 and more (how long to wait); NaN, infinity and what no time can hold are refused (they
    ended as a failure signoff "did not foresee")."""

    name = "SECONDS"

    def __init__(self, *, zero: bool, most: float | None = None, most_said: str = "") -> None:
        self.zero = zero
        """Whether 0 is taken."""
        self.most = most
        """The most taken, if any: a number above it is told as too long, with this maximum
        ("1e23" was told as not a number of seconds). Without it, what no time can hold is."""
        self.most_said = most_said
        """The maximum in words, after its number ("a day"), or nothing."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None
                ) -> float:
        try:
            seconds = float(value)
            if self.most is None:
                timedelta(seconds=seconds)
        except (TypeError, ValueError, OverflowError):
            seconds = float("nan")
        if self.most is not None and seconds > self.most:  # (inf too)
            said = f" ({self.most_said})" if self.most_said else ""
            self.fail(f"A wait of “{value}” seconds is too long: give at most "
                      f"{self.most:,.0f} seconds{said}.", param, ctx)
        if not (seconds >= 0 if self.zero else seconds > 0):
            least = "0 or more" if self.zero else "more than 0"
            if seconds == seconds:  # a number, below the least (NaN is none)
                below = "below 0" if self.zero else "not above 0"
                self.fail(f"“{value}” is {below}: give a number of seconds, {least}, such "
                          "as 30 or 0.5.", param, ctx)
            self.fail(f"“{value}” is not a number of seconds: give one, {least}, such as 30 "
                      "or 0.5.", param, ctx)
        return seconds




AS_OPTION = click.option("--as", "as_handle", envvar="SIGNOFF_AS", metavar="HANDLE",
                         callback=given,  # (empty, it acted as the profile's person)
                         help="Act as this person, with the token kept for them in the profile.")
TOKEN_OPTION = click.option("--token", envvar="SIGNOFF_TOKEN", metavar="TOKEN", callback=given,
                            help="Act as whoever this token belongs to.")


def _password_options(command: Any) -> Any:
    command = click.option(
        "--password-stdin", "password_stdin", is_flag=True,
        help="Read the password from stdin: one line, its line ending not part of it (for "
             "scripts and CI).")(command)
    return click.option(
        "--password", metavar="PASSWORD",
        help="The password itself (it is then kept in the shell's history, and seen in the list "
             "of processes while this runs). Without it, or --password-stdin, it is asked for "
             "twice, hidden.")(command)


PASSWORD_OPTIONS = _password_options
"""``--password`` and ``--password-stdin``, for a command that sets a password (read with
`new_password`)."""


def new_password(password: str | None, password_stdin: bool, *, again: str) -> str:
    """The password a command sets: --password, else the line --password-stdin reads, else one
    asked for twice (hidden) at the terminal. With no terminal to ask at (stdin is a pipe or a
    file: a script, CI), a usage error saying to pipe it in with --password-stdin, as in `again`
    (the command, with --password-stdin, that a pipe would feed)."""
    if password is not None and password_stdin:
        raise Misuse("Give the password with --password or with --password-stdin, not "
                     "both.")
    if password is not None:
        return password
    if password_stdin:
        text = sys.stdin.read() if sys.stdin is not None else ""  # (None: stdin closed, `<&-`)
        line = text.removesuffix("\n").removesuffix("\r")
        if not line:
            raise Misuse(f"No password came on stdin: pipe it in, as in "
                         f"`{_piped(again)}`.")
        if "\n" in line or "\r" in line:
            raise Misuse("The password on stdin is more than one line: give it once, on "
                         "one line.")
        return line
    if sys.stdin is None or not sys.stdin.isatty():
        raise Misuse(
            "No password was given, and there is no terminal to ask for it at (stdin is not one): "
            f"pipe it in with --password-stdin, as in `{_piped(again)}`, or give --password.")
    answer: str = click.prompt("Password", hide_input=True, confirmation_prompt=True,
                               value_proc=_keepable_password)
    return answer


def _keepable_password(given: str) -> str:
    """`given`, typed at the prompt, when it may be a password; else a usage error, upon which
    the prompt says why and asks again (a short one ended the command)."""
    from signoff.security.credentials import password_problem

    problem = password_problem(given)
    if problem:
        raise click.UsageError(f"{problem} Type another.")
    return given


def _piped(command: str) -> str:
    """`command` fed the password from an environment variable, as a script or CI would."""
    return f"printf '%s\\n' \"$PASSWORD\" | {command}"


def profile_path() -> Path:
    """Where the local profile lives: ``$SIGNOFF_PROFILE``, else ``~/.config/signoff/profile.json``."""
    configured = os.environ.get("SIGNOFF_PROFILE")
    if configured:
        return Path(configured)
    base = Path(os.environ.get("XDG_CONFIG_HOME", Path.home() / ".config"))
    return base / "signoff" / "profile.json"


def read_profile() -> dict[str, Any]:
    """The local profile: ``{"databases": {database: {"tokens": {handle: token}, "default":
    handle}}}``, by the database whose tokens they are (`kept_for`). A profile written before
    tokens were kept by database has ``"tokens"`` and ``"default"`` at its top: they serve
    every app, after its database's own."""
    path = profile_path()
    named = _profile_named()
    try:
        if not path.exists():
            return {"tokens": {}}
        if path.is_dir():
            raise Misuse(f"The profile {path}{named} is a folder, not a file: name a file, such "
                         f"as {path / 'profile.json'}.")
        if not path.is_file():  # (/dev/full: its read never ended; /dev/null: "delete it")
            raise Misuse(f"The profile {path}{named} is not a file signoff can keep tokens in: "
                         "name a file, such as ~/.config/signoff/profile.json.")
        data = json.loads(path.read_text())
    except OSError as error:
        raise Misuse(f"The profile {path}{named} cannot be read ({error.strerror}).") from None
    except ValueError:
        raise Misuse(f"The profile {path}{named} is not JSON: fix or delete it.") from None
    if not _a_profile(data):
        raise Misuse(f"The profile {path}{named} is JSON, but not a profile signoff keeps "
                     "(an object of tokens by database): fix or delete it.")
    return dict(data)


def _a_profile(data: Any) -> bool:
    """Whether `data` has the shape `read_profile` tells: each ``tokens`` an object of strings,
    each ``default`` a string, ``databases`` an object of such."""
    def kept(part: Any) -> bool:
        return (isinstance(part, dict) and isinstance(part.get("tokens", {}), dict)
                and all(isinstance(t, str) for t in part.get("tokens", {}).values())
                and isinstance(part.get("default", ""), str))
    databases = data.get("databases", {}) if isinstance(data, dict) else None
    return (kept(data) and isinstance(databases, dict)
            and all(kept(own) for own in databases.values()))


def kept_for(app: Any) -> str:
    """Where the profile keeps `app`'s tokens: under its database, whose tokens they are (a
    SQLite file by its absolute path; any other by its URL, without a password). Two apps (or
    guards) of one name, on two databases, keep theirs apart."""
    url = app.database.engine.url
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
        return f"sqlite:///{Path(url.database).resolve()}"
    return str(url.render_as_string(hide_password=True))


def save_token(app: Any, handle: str, token: str) -> Path:
    """Keep `token` for `handle` in the local profile (mode 0600; its folder, when made here,
    0700), for `app`'s database (the same handle may be a person of several apps, each with
    its own tokens); make it the default there."""
    path = profile_path()
    data = read_profile()
    own = data.setdefault("databases", {}).setdefault(kept_for(app), {})
    own.setdefault("tokens", {})[handle] = token
    own["default"] = handle
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # (its own: 0700 when made)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as file:
            json.dump(data, file, indent=2)
        os.chmod(path, 0o600)
    except OSError as error:  # (a folder in its path that is a file, a name too long)
        raise Misuse(f"The profile {path}{_profile_named()} cannot be written "
                     f"({error.strerror}): name a file signoff may write with "
                     "SIGNOFF_PROFILE.") from None
    return path


def _profile_named() -> str:
    """How a sentence about the profile says where its path came from."""
    return " (SIGNOFF_PROFILE names it)" if os.environ.get("SIGNOFF_PROFILE") else ""


class Unauthenticated(click.ClickException):
    """No valid token: exit code 4."""

    exit_code = EXIT_UNAUTHENTICATED


def whoami(app: Any, as_handle: str | None, token: str | None) -> Any:
    """The principal the command acts as: from --token, or the profile's token for --as (or
    the profile's default)."""
    kept_for_handle = None  # the handle whose token the profile gave
    app.database.ensure_schema()  # a database this version cannot use is told first
    if as_handle:  # (a handle is the same in any case: the profile keeps it as the app does)
        named = app.people.find(as_handle)
        if named is None:  # (with a token or without: no token could make them somebody)
            raise _nobody_to_act_as(app, as_handle)
        as_handle = named.handle
    if token is None:
        profile = read_profile()
        own = profile.get("databases", {}).get(kept_for(app), {})
        handle = as_handle or own.get("default") or profile.get("default")
        if not handle:
            raise Unauthenticated("Say who you are: --as HANDLE (with a token kept in the profile "
                                  f"by `{_saving_a_token('HANDLE')}`) or --token TOKEN.")
        if app.people.find(handle) is None:  # (the default of a database made anew since)
            raise _nobody_to_act_as(app, handle)
        token = own.get("tokens", {}).get(handle) or profile.get("tokens", {}).get(handle)
        if token is None:
            raise Unauthenticated(f"The profile keeps no token for {handle}: run "
                                  f"`{_saving_a_token(handle)}` (or give --token).")
        kept_for_handle = handle
    principal = app.credentials.principal_for_token(token)
    if principal is None and app.credentials.purpose_of_token(token) is not None:
        from signoff.security.credentials import CLIENT_TOKEN_REFUSED

        raise Unauthenticated(CLIENT_TOKEN_REFUSED)  # (a working token of another purpose)
    if principal is None and kept_for_handle is not None:
        named = app.people.find(kept_for_handle)
        if named is not None and named.disabled:  # the one cause a new token would not mend
            raise Unauthenticated(
                f"{named.name} ({kept_for_handle}) is disabled in {app.name}, and may do nothing "
                f"until enabled again: `{runnable(f'users enable {kept_for_handle}')}"
                f"{app_option_words()}`, by someone who administers it.")
        raise Unauthenticated(
            f"The token the profile ({profile_path()}) keeps for {kept_for_handle} is not valid "
            f"in {app.name}: revoked, made for another database, or {kept_for_handle} is "
            f"disabled. Keep a new one with `{_saving_a_token(kept_for_handle)}`.")
    if principal is None:  # (as the REST API and `signoff mcp serve` say of one sent them)
        raise Unauthenticated("This token is unknown, revoked or expired, or its owner is "
                              f"disabled: ask for a new one (`{_saving_a_token('HANDLE')}`).")
    if as_handle and principal.handle != as_handle:
        raise Unauthenticated(f"This token is {principal.handle}'s, not {as_handle}'s.")
    return principal


def _nobody_to_act_as(app: Any, handle: str) -> Failure:
    """Nobody has `handle`, given to act as: not found (exit 3), as every command tells it."""
    listed = ("the guard's config lists them under [[people]]" if _opened_guard() else
              f"`{runnable('users list' + app_option_words())}` shows them")
    return Failure(nobody_named(app, handle, advice=f"give the handle of one of its people "
                                                    f"({listed})"), EXIT_NOT_FOUND)


def temporal_address(text: str) -> str | None:
    """`text`, a Temporal server's address as given (``--temporal``, ``SIGNOFF_TEMPORAL``),
    as it is used: HOST:PORT, around spaces; None when it is not that (empty, a scheme,
    ``http://127.0.0.1:7233``, a path, ``127.0.0.1:7233/``, no port): see
    `temporal_address_refused`. (An empty one was taken as none given.)"""
    address = text.strip()
    host, _, port = address.rpartition(":")
    if not host or "/" in address or not (port.isdigit() and 0 < int(port) < 65536):
        return None
    return address


def temporal_address_refused(named: str, text: str) -> str:
    """Why `text`, given as `named` (``--temporal``, ``SIGNOFF_TEMPORAL``), is no Temporal
    server's address, and the HOST:PORT to give (a scheme was taken by the Temporal client
    with a warning, and a path refused as the app's own error, naming neither the setting nor
    the form without them)."""
    if not text.strip():
        return (f"{named} is empty: give a Temporal server's address, HOST:PORT, such as "
                "127.0.0.1:7233 (an unset shell variable gives an empty one), or leave it out.")
    within = text.strip().split("://", 1)[-1].split("/", 1)[0]  # (without scheme and path)
    if temporal_address(within) and within != text.strip():
        return (f"{named} is “{text}”: a Temporal server's address is HOST:PORT alone, with no "
                f"scheme (http://, grpc://) before it and no path after it: give {within}.")
    return (f"{named} is “{text}”, which is not a Temporal server's address: give HOST:PORT "
            "alone, such as 127.0.0.1:7233 (7233 is the port a Temporal server listens on "
            "unless told otherwise).")


def _register() -> None:
    from signoff.cli import (  # noqa: F401 — each module adds its commands
        actions,
        db,
        mcp,
        people,
        run,
        users,
    )
    from signoff.cli.research import research

    main.add_command(research)


_register()
