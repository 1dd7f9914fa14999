"""The README's walk, from a fresh clone to Noor approving in the browser, run command by command
as written: each `signoff` command in a process of its own, on the workshop's file database, the
approval in Chromium, against a scripted OpenAI-compatible server where the walk's local model
listens (127.0.0.1:11434)."""

from __future__ import annotations

import json
import os
import re
import shlex
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

from playwright.sync_api import Browser, expect
from sqlalchemy import create_engine, text

from tests.provider_servers import Canned, ProviderServer, openai_completion, serving

ROOT = Path(__file__).resolve().parent.parent
HEADING = "## From a fresh clone to a yes in the browser"


def walk_blocks() -> list[list[str]]:
    """The walk's shell blocks, each a list of commands (continued lines joined, comments off)."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split(HEADING, 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, flags=re.DOTALL)
    return [[line.split("  #")[0].strip() for line in re.sub(r"\\\n\s*", " ", block).splitlines()
             if line.strip()] for block in blocks]


SETUP = ["python3 -m venv .venv && .venv/bin/pip install -e '.[web,openai]'",
         ". .venv/bin/activate"]
"""The walk's first two lines make the virtualenv this suite already runs in (with the web and
openai extras: the suite's `test` extra holds them); the commands below run with its
interpreter."""


class Walk:
    """A clone's directory (`examples/` in it) and the environment the walk's commands share."""

    def __init__(self, where: Path) -> None:
        self.where = where
        (where / "examples").symlink_to(ROOT / "examples")
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith("SIGNOFF_") and k != "WORKSHOP_DATABASE"}
        self.env["SIGNOFF_PROFILE"] = str(where / "profile.json")  # not the real home's
        self.env["SIGNOFF_DATA_DIR"] = str(where / "data")
        self.server: subprocess.Popen[bytes] | None = None
        self.url = ""

    def argv(self, command: str) -> list[str]:
        """The command's argv with this interpreter: `python` and `signoff` as the venv has them."""
        words = shlex.split(command)
        if words[0] == "python":
            return [sys.executable, *words[1:]]
        assert words[0] == "signoff", command
        return [sys.executable, "-m", "signoff.cli", *words[1:]]

    def run(self, command: str) -> str:
        """Run one command of the walk as written; what it printed (it must exit 0)."""
        if command.startswith("export "):
            name, _, value = command.removeprefix("export ").partition("=")
            self.env[name] = value
            return ""
        if command.startswith("signoff serve"):
            self.serve(command)
            return ""
        done = subprocess.run(self.argv(command), cwd=self.where, env=self.env,
                              capture_output=True, text=True, timeout=180, check=False)
        assert done.returncode == 0, (command, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr
        return done.stdout

    def serve(self, command: str) -> None:
        """`signoff serve …` as written, on a free port (given last, it wins over 8000, which
        something else on a test machine may hold), until the walk ends."""
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.server = subprocess.Popen([*self.argv(command), "--port", str(port)], cwd=self.where,
                                       env=self.env, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return
            except OSError:
                assert self.server.poll() is None, "signoff serve stopped"
                assert time.monotonic() < deadline, "signoff serve did not start"
                time.sleep(0.1)

    def stop(self) -> None:
        """Stop the server, if it runs."""
        if self.server is not None:
            self.server.terminate()
            self.server.wait(timeout=30)


def _model_script(model: ProviderServer, repair_id: str) -> None:
    """The local model's answers: the parts, a price (put to Noor); after her yes, the estimate."""
    model.answer(
        Canned(body=openai_completion(None, [("c1", "parts_for", json.dumps(
            {"fault": "rear brake does not bite"}))])),
        Canned(body=openai_completion("Pads, a cable and an hour of work.", [(
            "c2", "set_price", json.dumps({"repair": repair_id, "price": 38}))])),
        Canned(body=openai_completion(None, [("c3", "hand_back", json.dumps(
            {"hours": 1, "summary": "Pads and a cable."}))])),
    )


def _repair(where: Path) -> tuple[str, str]:
    """T-7's id and price, read from workshop.db."""
    engine = create_engine(f"sqlite:///{where / 'workshop.db'}")
    try:
        with engine.connect() as db:
            row = db.execute(text("SELECT id, price FROM repair WHERE ticket = 'T-7'")).one()
    finally:
        engine.dispose()
    return str(row[0]), str(row[1])


def test_the_readme_walk_runs_as_written(tmp_path: Path, browser: Browser) -> None:
    """Every command of the walk exits 0 as written; Noor approves the proposed price in the
    browser; the worker goes on with the task's own model, and the task is Done."""
    first, then = walk_blocks()
    assert first[:2] == SETUP
    walk = Walk(tmp_path)
    try:
        with serving(11434) as model:
            outputs = {}
            for command in first[2:]:
                if command.startswith("signoff run"):
                    _model_script(model, str(uuid.UUID(_repair(tmp_path)[0])))
                outputs[command] = walk.run(command)
            said = "\n".join(outputs.values())
            assert "Added Ola (ola@workshop.example) with roles: mechanic." in said
            assert "It waits on a decision from Noor" in said
            assert (tmp_path / "workshop.db").exists()

            page = browser.new_context().new_page()
            page.set_default_timeout(15_000)
            page.goto(f"{walk.url}/")
            page.get_by_label("E-mail address").fill("noor@workshop.example")
            password = re.search(r'--password "([^"]+)"', "\n".join(first))
            assert password is not None
            page.get_by_label("Password").fill(password.group(1))
            page.get_by_role("button", name="Log in").click()
            page.locator("#proposals tbody tr").get_by_role("link", name="Set the price").click()
            expect(page.locator("#why")).to_have_text("Pads, a cable and an hour of work.")
            page.locator("#approve").click()
            expect(page.locator("#status")).to_have_text("Done")
            page.context.close()
            assert _repair(tmp_path)[1] in ("38", "38.00")

            for command in then:
                outputs[command] = walk.run(command)
            assert "stepped 1 task(s)" in outputs["signoff worker --once"]
            assert "  Done " in outputs["signoff tasks --as mia@workshop.example"]
            assert len(model.received) == 3
    finally:
        walk.stop()
