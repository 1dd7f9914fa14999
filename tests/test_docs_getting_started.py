"""Getting started's browser route holds as the page tells it: after Lee's yes in another process
(as the inbox's), the page's own `app.approve` block is refused in the words the page quotes,
and the `resume` the page names takes the task on to Done in the reader's session."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.docs_runner import blocks

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "getting-started.md"
APPROVED_ELSEWHERE = """
import subprocess, sys
subprocess.run([sys.executable, "-c", '''
from tickets import app
lee = app.people.get("lee@desk.example")
print("elsewhere:", app.approve(app.proposals_for(lee)[0], by=lee).said)
'''], check=True)
from signoff import AgentRefused
try:
    exec(APPROVE_BLOCK)
except AgentRefused as refused:
    print("refused:", refused)
print("resumed:", app.agent(Triager).resume(outcome.task, model=model).status.value)
"""


def test_a_yes_in_the_browser_then_the_approve_block_is_told_and_resume_goes_on(
        tmp_path: Path) -> None:
    """The reader who pressed Approve in the browser and then runs the page's `app.approve` block
    is told in the page's words, and the page's `resume` finishes the task."""
    python = [(info, code) for language, info, code in blocks(PAGE) if language == "python"]
    (tmp_path / "tickets.py").write_text(next(code for info, code in python if "tickets.py" in info))
    untitled = [code for info, code in python if "title=" not in info]
    approve = next(code for code in untitled if "app.approve(proposal" in code)
    before = "\n".join(untitled[:untitled.index(approve)])
    script = f"APPROVE_BLOCK = {approve!r}\n{before}\n{APPROVED_ELSEWHERE}"
    (tmp_path / "walk.py").write_text(script)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIGNOFF_")} | {
        "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "walk.py"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    refused = re.search(r"^refused: (.*)$", done.stdout, flags=re.MULTILINE)
    assert refused, done.stdout
    told = re.search(r'raises `AgentRefused`, "([^"]+)"', " ".join(PAGE.read_text().split()))
    assert told, "Tell, before the page's approve block, what it says after a yes in the browser."
    assert refused[1].startswith(told[1]), (refused[1], told[1])
    assert "resumed: Done" in done.stdout, done.stdout
    assert "app.agent(Triager).resume(outcome.task, model=model)" in PAGE.read_text()
