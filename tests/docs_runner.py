"""Runs one documentation page's code blocks in order, as a reader would, in the current folder.

``python tests/docs_runner.py PAGE.md`` — run by ``tests/test_docs.py`` in a fresh process and an
empty folder per page:

- a ``python`` block with ``title="name.py"`` is written to that file (later blocks import it);
- any other ``python`` block runs in one namespace shared by the page's blocks, and each
  ``print(...)  # words`` in it must print those words;
- each command of a ``sh`` block runs as written (``\\``-continued lines joined): it must exit 0,
  or the code a trailing ``# exits N`` names. ``export NAME=value`` sets the variable for the
  commands after it. A ``signoff serve`` command is started, must answer HTTP on its port, and is
  stopped. A ``pip install`` command is checked, not run: what it installs must be this package
  and extras that ``pyproject.toml`` declares (the wheel test installs the package for real);
  making and activating the virtual environment (``python3 -m venv .venv``,
  ``. .venv/bin/activate``) is left out: the suite runs in one.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
import time
import tomllib
import types
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```", re.DOTALL | re.MULTILINE)


def blocks(page: Path) -> list[tuple[str, str, str]]:
    """(language, info after it, code) of each fenced block on the page, in order."""
    return [(m[1], m[2], _with_snippets(m[3])) for m in BLOCK.finditer(page.read_text())]


SNIPPET = re.compile(r'^--8<-- "([^"]+)"$', re.MULTILINE)


def _with_snippets(code: str) -> str:
    """`code` with each ``--8<-- "name"`` line replaced by docs/snippets/name, as the site does."""
    return SNIPPET.sub(lambda m: (ROOT / "docs" / "snippets" / m[1]).read_text(), code)


def _expected(code: str) -> list[str]:
    return [said.strip() for said in re.findall(r"print\(.*\)\s*# (.+)", code)]


def run_python(code: str, module: types.ModuleType, number: int) -> None:
    """Run `code` in `module`. Each block gets a file of its own holding every block run so far,
    so that the source of what a block declares can be read (as signoff's effects analysis does,
    which parses a file once)."""
    file = getattr(module, "__file__", None)
    before = Path(file).read_text() if file else ""
    path = Path.cwd() / f"docs_example_{number}.py"
    path.write_text(before + code)
    module.__file__ = str(path)
    padded = "\n" * before.count("\n") + code
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(padded, str(path), "exec"), module.__dict__)
    printed = out.getvalue()
    sys.stdout.write(printed)
    for line in printed.splitlines():   # a line the reader is told to paste into their shell
        if line.startswith("export "):
            for assignment in shlex.split(line.removeprefix("export ")):
                name, _, value = assignment.partition("=")
                os.environ[name] = value
    for said in _expected(code):
        if said not in printed:
            raise AssertionError(f"The block should print {said!r}; it printed:\n{printed}")


def commands(code: str) -> list[str]:
    joined = re.sub(r"\\\n\s*", " ", code)
    return [line.strip() for line in joined.splitlines() if line.strip() and not line.startswith("#")]


def _extras() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return set(project.get("optional-dependencies", {}))


def check_pip(command: str) -> None:
    for word in shlex.split(command)[2:]:
        if word.startswith("-"):
            continue
        name, _, extras = word.partition("[")
        if name not in ("signoff", "."):  # (".": this package, from its clone)
            raise AssertionError(f"{command!r} installs {name!r}, not signoff")
        unknown = set(extras.rstrip("]").split(",")) - _extras() - {""}
        if unknown:
            raise AssertionError(f"{command!r} names extras pyproject.toml does not have: {unknown}")


def serve(command: str, env: dict[str, str]) -> None:
    port = re.search(r"--port\s+(\d+)", command)
    if port is None:
        raise AssertionError(f"{command!r}: give --port, so that the page says where to look")
    process = subprocess.Popen(["bash", "-c", f"exec {command}"], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
    try:
        for _ in range(200):
            if process.poll() is not None:
                out = process.stdout.read().decode() if process.stdout else ""
                raise AssertionError(f"{command!r} stopped with {process.returncode}:\n{out}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port[1]}/login", timeout=2) as page:
                    assert page.status == 200
                    return
            except OSError:
                time.sleep(0.1)
        raise AssertionError(f"{command!r} did not answer on port {port[1]}")
    finally:
        process.terminate()
        process.wait(timeout=20)


def listen(command: str, env: dict[str, str]) -> None:
    """Start a server that speaks MCP over streamable HTTP at --http HOST:PORT; it must accept
    connections there and answer HTTP at /mcp (any status: a bare GET is not an MCP request)."""
    where = re.search(r"--http\s+([\d.]+):(\d+)", command)
    if where is None:
        raise AssertionError(f"{command!r}: give --http HOST:PORT")
    process = subprocess.Popen(["bash", "-c", f"exec {command}"], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
    try:
        for _ in range(300):
            if process.poll() is not None:
                out = process.stdout.read().decode() if process.stdout else ""
                raise AssertionError(f"{command!r} stopped with {process.returncode}:\n{out}")
            try:
                urllib.request.urlopen(f"http://{where[1]}:{where[2]}/mcp", timeout=2)
                return
            except urllib.error.HTTPError:
                return                                  # it answered, in HTTP
            except OSError:
                time.sleep(0.1)
        raise AssertionError(f"{command!r} did not answer at {where[1]}:{where[2]}")
    finally:
        process.terminate()
        process.wait(timeout=20)


def run_sh(code: str, env: dict[str, str]) -> None:
    for command in commands(code):
        expected = 0
        exits = re.search(r"\s+#\s*exits (\d+)\s*$", command)
        if exits:
            expected, command = int(exits[1]), command[: exits.start()]
        command = re.sub(r"\s+#.*$", "", command)
        if command.startswith("export "):
            name, _, value = command.removeprefix("export ").partition("=")
            env[name] = " ".join(shlex.split(value))
        elif command.startswith("pip install"):
            check_pip(command)
        elif command in ("python3 -m venv .venv", ". .venv/bin/activate"):
            continue  # (the suite runs in the environment they make)
        elif command.startswith("signoff serve"):
            serve(command, env)
        elif command.startswith(("signoff mcp serve", "signoff mcp guard")) and "--http" in command:
            listen(command, env)
        else:
            done = subprocess.run(command, shell=True, env=env, capture_output=True, text=True,
                                  timeout=300, check=False)
            sys.stdout.write(f"$ {command}\n{done.stdout}{done.stderr}")
            if done.returncode != expected:
                raise AssertionError(f"{command!r} exited {done.returncode}, not {expected}:\n"
                                     f"{done.stdout}{done.stderr}")


def run_page(page: Path) -> None:
    module = types.ModuleType("docs_example")   # a real module: SQLAlchemy reads annotations there
    sys.modules[module.__name__] = module
    env = dict(os.environ)
    sys.path.insert(0, os.getcwd())
    for number, (language, info, code) in enumerate(blocks(page)):
        title = re.search(r'title="([^"]+)"', info)
        if title:                               # a file the page asks the reader to write
            Path(title[1]).write_text(code)
        elif language == "python":
            run_python(code, module, number)
        elif language in ("sh", "console", "bash"):
            env = {**os.environ, **env}     # what a block before set (os.environ) carries on
            run_sh(code, env)


if __name__ == "__main__":
    run_page(Path(sys.argv[1]))
