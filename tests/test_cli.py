"""The signoff command: actions, lint and worker, through Click's runner."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from signoff.cli import main

ROOT = Path(__file__).resolve().parent.parent
WORKSHOP = f"{ROOT / 'examples' / 'workshop.py'}:app"
CRANE = f"{ROOT / 'examples' / 'crane.py'}"


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_actions_lists_the_catalogue() -> None:
    """`signoff actions` lists each action as a person reads it, queries marked."""
    code, out = _run("actions", "--app", WORKSHOP)
    assert code == 0
    assert "parts_for        Look up the parts a fault needs (Fault)  [query]" in out
    assert "set_price        Set the price (Price)" in out


def test_actions_explain_prints_effects_with_their_paths() -> None:
    """--explain prints each effect with the path through the code that shows it."""
    code, out = _run("actions", "--app", WORKSHOP, "--explain", "set_price")
    assert code == 0
    assert "  - changes Repair: set_price -> repair.price = …" in out


def test_actions_json() -> None:
    """--json gives the catalogue to scripts, schemas included when explaining one."""
    code, out = _run("actions", "--app", WORKSHOP, "--explain", "set_price", "--json")
    assert code == 0
    (info,) = json.loads(out)
    assert info["name"] == "set_price"
    assert info["parameters_schema"]["properties"]["repair"]["format"] == "uuid"
    assert "changes Repair: set_price -> repair.price = …" in info["effects"]


def test_actions_explain_of_an_unknown_action() -> None:
    """Explaining a name that is no action says so, lists the actions, and exits 3, not found
    (it exited 1, refused)."""
    code, out = _run("actions", "--app", WORKSHOP, "--explain", "nope")
    assert code == 3
    assert "There is no action named 'nope'. The actions are: note_repair" in out


def test_lint_finds_the_cranes_untold_failure() -> None:
    """lint names the exception, where it is raised, and the action's line; exits 1."""
    code, out = _run("lint", "--app", CRANE)
    assert code == 1
    assert "crane.py:" in out
    assert "lift can raise OSError (raised in crane.WinchDriver.hoist, line " in out
    assert "Failed for a failure told in your words" in out  # (the crane's fault is one)
    assert out.rstrip().endswith("1 finding.")


def test_lint_json_and_a_clean_app() -> None:
    """lint --json is machine-readable; the bakery is clean (exit 0)."""
    code, out = _run("lint", "--app", CRANE, "--json")
    assert code == 1
    assert json.loads(out)[0]["action"] == "lift"
    code, out = _run("lint", "--app", f"{ROOT / 'examples' / 'bakery.py'}")
    assert (code, out.strip()) == (0, "0 findings.")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nowhere/app.py", "There is no file nowhere/app.py"),
        ("no_such_module_here:app", "there is no module no_such_module_here to import"),
        (f"{ROOT / 'examples' / 'bakery.py'}:Order", "Order in "),
        (f"{ROOT / 'examples' / 'bakery.py'}:ap", "bakery.py has no ap; its App is "),
        ("BROKEN:app", "broken.py, line 2: the app's code raised RuntimeError ('the key is "
                       "missing') as it was loaded. Run `python "),
        ("SYNTAX:app", "syntax.py, line 1: invalid syntax: the app's code is not valid Python."),
    ],
)
def test_a_bad_app_is_a_clear_usage_error(spec: str, message: str, tmp_path: Path) -> None:
    """A missing file, module or app attribute is told, with exit code 2, and the app naming
    the App it has; so is the app's own code failing as it loads, at its file and line (it was
    told as signoff's own unforeseen failure, exit 5, "report it")."""
    (tmp_path / "broken.py").write_text("import signoff\nraise RuntimeError('the key is missing')\n")
    (tmp_path / "syntax.py").write_text("def f(:\n    pass\n")
    spec = spec.replace("BROKEN", str(tmp_path / "broken.py")).replace(
        "SYNTAX", str(tmp_path / "syntax.py"))
    code, out = _run("actions", "--app", spec)
    assert code == 2
    assert message in out


_SIBLING_APP = """
from signoff import App
from {helper} import NAME

app = App(NAME, database="sqlite://")
"""


def test_an_app_file_imports_the_modules_beside_it(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """An app file loads as `python FILE` would run it, with its own modules beside it
    importable, from any folder (it was told to `pip install` its own module); and as a
    module of the current folder, as `python -m` would (there was no such module)."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    (tmp_path / "sibling_names_s29.py").write_text('NAME = "beside"\n')
    (tmp_path / "sibling_app_s29.py").write_text(_SIBLING_APP.format(helper="sibling_names_s29"))
    code, out = _run("actions", "--app", f"{tmp_path / 'sibling_app_s29.py'}:app")
    assert code == 0, out
    (tmp_path / "cwd_names_s29.py").write_text('NAME = "here"\n')
    (tmp_path / "cwd_app_s29.py").write_text(_SIBLING_APP.format(helper="cwd_names_s29"))
    monkeypatch.chdir(tmp_path)
    code, out = _run("actions", "--app", "cwd_app_s29:app")
    assert code == 0, out
    (tmp_path / "pkg_app_s29").mkdir()  # a package of the current folder, by its module name
    (tmp_path / "pkg_app_s29" / "__init__.py").write_text(
        _SIBLING_APP.format(helper="cwd_names_s29"))
    code, out = _run("actions", "--app", "pkg_app_s29:app")
    assert code == 0, out


def test_a_folder_given_as_the_app_is_a_usage_error(tmp_path: Path) -> None:
    """A folder (or a path that is no module's name) given as --app is told, with exit code 2
    and what to give instead (it failed as a bug of signoff's, a TypeError)."""
    code, out = _run("actions", "--app", str(tmp_path))
    assert code == 2, out
    assert "is a folder" in out
    assert f"{tmp_path / 'app.py'}:app" in out
    code, out = _run("actions", "--app", "../elsewhere")
    assert code == 2, out
    assert "give the app as a file ending in .py" in out
    notes = tmp_path / "notes.md"  # (a file of another kind: it offered notes.md/app.py)
    notes.write_text("# notes")
    code, out = _run("actions", "--app", str(notes))
    assert code == 2, out
    assert f"(such as {tmp_path / 'notes.py'}:app)" in " ".join(out.split())


def test_no_app_named() -> None:
    """Without --app or SIGNOFF_APP the command says how to name one."""
    code, out = _run("lint")
    assert code == 2
    assert "No app is named: give --app path/to/app.py (a file) or --app mypackage.app" in " ".join(
        out.split())
    assert "or set SIGNOFF_APP to the same." in " ".join(out.split())


def test_worker_once_with_nothing_to_do() -> None:
    """`signoff worker --once` settles and steps what it can, then stops."""
    code, out = _run("worker", "--app", WORKSHOP, "--once")
    assert code == 0
    assert out.strip() == "Settled 0 interrupted approval(s); passed 0 deadline(s); stepped 0 task(s)."


@pytest.mark.parametrize(("given", "told"), [
    (["--every", "-1"], "“-1” is not above 0: give a number of seconds, more than 0, such as 30 "
                        "or 0.5."),
    # (it looked in a tight loop; then it said "“0” is not a number of seconds")
    (["--every", "0"], "“0” is not above 0: give a number of seconds, more than 0"),
    (["--every", "nan"], "“nan” is not a number of seconds"),
    (["--stuck-after", "inf"], "“inf” is not a number of seconds: give one, 0 or more"),
    (["--stuck-after", "1e300"], "“1e300” is not a number of seconds"),
    (["--stuck-after", "-5"], "“-5” is below 0: give a number of seconds, 0 or more"),
    (["--every", "soon"], "“soon” is not a number of seconds"),
])
def test_the_workers_times_are_told_when_they_are_no_number_of_seconds(
        given: list[str], told: str) -> None:
    """A worker's --every and --stuck-after that are no time exit 2 with a sentence (NaN,
    infinity and -1 ended "for a reason it did not foresee", exit 5; 0 and -5 were taken)."""
    code, out = _run("worker", "--app", WORKSHOP, "--once", *given)
    assert code == 2, out
    assert told in " ".join(out.split())


@pytest.mark.parametrize("command", [[], ["actions"], ["lint"], ["worker"], ["serve"], ["research"]])
def test_every_help_has_an_example(command: list[str]) -> None:
    """Every command's --help shows an example."""
    code, out = _run(*command, "--help")
    assert code == 0
    assert "Example" in out
    assert "signoff " in out


def test_serve_on_a_port_taken_says_so_in_a_sentence() -> None:
    """`signoff serve` on a port another process listens on says so in a sentence, with the
    way out, and exits 5 (could not be done): it let the server log the socket's error and
    exit 3, which here means "not found"."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, out = _run("serve", "--app", WORKSHOP, "--port", str(port))
    assert code == 5, out
    assert out.strip() == (f"Error: signoff cannot serve on 127.0.0.1:{port}: another process "
                           f"listens there: stop it, or serve on another port (--port {port + 1}).")


def test_serve_on_a_port_that_cannot_be_is_a_usage_error() -> None:
    """A port out of range is told as the misuse it is, exit 2, before anything starts (it was
    an OverflowError, "a reason it did not foresee", exit 5)."""
    code, out = _run("serve", "--app", WORKSHOP, "--port", "99999")
    assert code == 2, out
    assert "Invalid value for '--port': 99999 is not in the range 1<=x<=65535." in out


def test_serve_answers_on_loopback(tmp_path: Path) -> None:
    """`signoff serve` serves the inbox and the API's OpenAPI on the port it is given."""
    import os
    import socket
    import subprocess
    import sys
    import time

    import httpx

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "WORKSHOP_DATABASE": f"sqlite:///{tmp_path / 'w.db'}"}
    server = subprocess.Popen(
        [sys.executable, "-m", "signoff.cli", "serve", "--app", WORKSHOP, "--port", str(port),
         "--insecure-cookies"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                answer = httpx.get(f"http://127.0.0.1:{port}/api/openapi.json", timeout=2)
                break
            except httpx.TransportError:
                assert server.poll() is None, server.stdout.read() if server.stdout else ""
                assert time.monotonic() < deadline, "the server did not start in 30 s"
                time.sleep(0.2)
        assert answer.status_code == 200
        assert answer.json()["openapi"].startswith("3.")
        assert httpx.get(f"http://127.0.0.1:{port}/api/proposals", timeout=5).status_code == 401
    finally:
        server.terminate()
        server.wait(timeout=10)
        if server.stdout:
            server.stdout.close()
