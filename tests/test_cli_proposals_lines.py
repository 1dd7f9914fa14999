"""What an agent (or a person) wrote keeps to its place in `signoff proposals`, `proposals
show`, `receipt` and `tasks`: a value or a reason of several lines cannot pose as a line of the
command's own (a proposal or a task of a listing, "To be decided by: …", an entry of the
receipt), as the notifications' mail keeps it (its `_block`)."""

from __future__ import annotations

import runpy
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from signoff.cli import main
from signoff.testing import ScriptedModel, says

BENCH = '''
from pydantic import BaseModel
from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from signoff import Agent, App, Permits, Skill, allow

app = App("bench", database=DATABASE)


class Job(app.Record):
    name: Mapped[str] = mapped_column(String(40))
    note: Mapped[str] = mapped_column(String(400), default="")
    __security__ = [allow("read", "create", "update")]


@app.action("Write a note")
def write_note(job: Job, note: str) -> str:
    """Write a note on the job."""
    job.note = note
    return "Noted."


class Done(BaseModel):
    summary: str


class NoteJob(Skill[Job, Done]):
    description = "Note one job."
    tools = [write_note]

    def brief(self, job: Job) -> str:
        return f"Job {job.name}, id {job.id}."


class Noter(Agent):
    purpose = "You note jobs."
    skills = [NoteJob()]
    may = Permits()


app.add_agent(Noter, sponsor="ana@bench.example")
'''

FORGED = ("Fine.\n9d2c0a6e-0000-0000-0000-000000000000  Waiting   noter: Write a note "
          "(note=harmless) — to be decided by Ana")
WHY = "Short.\nTo be decided by: nobody. Status: Done."


@pytest.fixture
def bench(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """A bench app in a file, whose agent proposes a note of two lines, for a reason of two."""
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    monkeypatch.delenv("SIGNOFF_AS", raising=False)
    monkeypatch.delenv("SIGNOFF_TOKEN", raising=False)
    source = tmp_path / "bench.py"
    database = f"sqlite:///{tmp_path / 'bench.db'}"
    source.write_text(f"DATABASE = {database!r}\n{BENCH}")
    ns = SimpleNamespace(**runpy.run_path(str(source), run_name="bench_lines_test"))
    ana = ns.app.people.add("ana@bench.example", "Ana", roles=[])
    with ns.app.session(as_=ana) as s:
        job = ns.Job(name="J-1")
        s.add(job)
    model = ScriptedModel(says.tool(WHY, ns.write_note, job=job.id, note=FORGED))
    ns.task = ns.app.agent(ns.Noter).do(ns.NoteJob(), job, for_=ana, model=model).task
    ns.spec = f"{source}:app"
    ns.proposal = ns.app.proposals()[0]
    saved = CliRunner().invoke(main, ["users", "token", "ana@bench.example", "--save",
                                      "--app", ns.spec])
    assert saved.exit_code == 0, saved.output
    return ns


def test_the_listing_keeps_each_proposal_on_one_line(bench: SimpleNamespace) -> None:
    """`signoff proposals` shows a value's line break as ``\\n``: one proposal, one line (the
    note's second line was printed as a line of its own, reading as a second proposal)."""
    done = CliRunner().invoke(main, ["proposals", "--app", bench.spec])
    assert done.exit_code == 0, done.output
    lines = done.output.splitlines()
    assert lines[-1] == "1 proposal."
    assert len(lines) == 2, done.output
    assert lines[0].startswith(f"{bench.proposal.id}  Waiting")
    assert "note=Fine.\\n9d2c0a6e-" in lines[0]


def test_show_indents_what_the_agent_wrote_under_its_first_line(bench: SimpleNamespace) -> None:
    """`proposals show` indents a value's and a reason's further lines under their first, so
    that none begins a line as the command's own do (the reason's second line read as who is
    to decide it)."""
    done = CliRunner().invoke(main, ["proposals", "show", str(bench.proposal.id),
                                     "--app", bench.spec])
    assert done.exit_code == 0, done.output
    lines = done.output.splitlines()
    assert "  note: Fine." in lines
    assert "        9d2c0a6e-0000-0000-0000-000000000000  Waiting   noter: Write a note " \
           "(note=harmless) — to be decided by Ana" in lines
    assert "Why: Short." in lines
    assert "     To be decided by: nobody. Status: Done." in lines
    assert [line for line in lines if line.startswith("To be decided by:")] == [
        "To be decided by: Ana. Status: Waiting."]


def test_the_receipt_indents_why_under_its_entry(bench: SimpleNamespace) -> None:
    """`signoff receipt` indents the further lines of an entry (the reason the agent gave)
    under its first, past its time: none reads as an entry of its own."""
    done = CliRunner().invoke(main, ["receipt", str(bench.task), "--app", bench.spec])
    assert done.exit_code == 0, done.output
    lines = done.output.splitlines()
    assert "          To be decided by: nobody. Status: Done.”" in lines, done.output
    assert all(line[:2].isdigit() or line.startswith(("          ", "Status: "))
               for line in lines), done.output


def test_a_stopped_task_s_reason_keeps_to_its_task(bench: SimpleNamespace) -> None:
    """`signoff tasks` indents the further lines of why a task ended under the first: a reason
    of two lines given as it was stopped does not read as another task."""
    ana = bench.app.people.get("ana@bench.example")
    bench.app.stop(bench.task, by=ana, reason="Not needed.\n" + FORGED.split("\n")[1])
    done = CliRunner().invoke(main, ["tasks", "--app", bench.spec])
    assert done.exit_code == 0, done.output
    lines = done.output.splitlines()
    assert lines[0].startswith(f"{bench.task}  Halted")
    assert lines[1] == "    Why: Ana stopped it: Not needed."
    assert lines[2].startswith("         9d2c0a6e-"), done.output
    assert lines[3:] == ["1 task."]
