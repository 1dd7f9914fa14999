"""An answer that declines says first what the task did, as its journal tells it: no answer
can be cited from the sources it read; its search found no source; or it declined with nothing
searched or read. Every decline began "No answer can be cited from the sources read.", a task
that read nothing too ("What?", a model that declined at once, a fetch refused)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from signoff import TaskStatus
from signoff.cli.research import _local_person, research
from signoff.limits.grounding import GroundedAnswer
from signoff.research import Corpus, ask, research_app, search_sources
from signoff.testing import ScriptedModel, says

QUESTION = "How often should a kettle be descaled?"
READ = "No answer can be cited from the sources read."


def _first_lines(output: str) -> tuple[str, str]:
    """The line that begins the outcome (after the progress, a line apart), and the next."""
    lines = output.splitlines()
    at = lines.index("") + 1
    while not lines[at].strip():
        at += 1
    return lines[at].strip(), lines[at + 1].strip()


def test_the_reader_declining_unsearched_says_nothing_was_searched(tmp_path: Path) -> None:
    """`signoff research "What?"` (offline) says the reader declined without searching or
    reading, not that no answer can be cited from sources it never read; --json alike."""
    database = f"sqlite:///{tmp_path / 'r.db'}"
    shown = CliRunner().invoke(research, ["What?", "--database", database])
    assert shown.exit_code == 0, shown.output
    first, reason = _first_lines(shown.output.split("with offline extractive reader")[1])
    assert first == "No answer: the reader declined without searching or reading a source."
    assert reason.startswith("The reader's reason, not checked against the sources: “The "
                             "question names nothing to look for")
    assert READ not in shown.output
    told = json.loads(CliRunner().invoke(research, ["What?", "--database", database,
                                                    "--json"]).output)
    assert told["decline"]["said"] == ("No answer: the reader declined without searching or "
                                       "reading a source.")


@pytest.mark.parametrize(("turns", "said"), [
    ([], "No answer: the model declined without searching or reading a source."),
    (["sourdough"], "No answer: the search found no source."),
    (["sourdough", "bread"], "No answer: none of its 2 searches found a source."),
    (["kettle descaled"], READ),
])
def test_a_models_decline_says_first_what_the_task_did(
        kettles: Path, tmp_path: Path, turns: list[str], said: str) -> None:
    """A model that declines at once, or after searches that found nothing, is told so first;
    one that declines after its search found sources, that none can be cited from them."""
    database = f"sqlite:///{tmp_path / 'r.db'}"
    app = research_app(Corpus.from_folder(kettles), database=database)
    declined = GroundedAnswer.decline("Not in the sources.", searched=turns)
    done = ask(app, QUESTION, for_=_local_person(app), model=ScriptedModel(
        *(says.tool(search_sources, query=q) for q in turns), says.hand_back(declined)))
    assert done.status is TaskStatus.DONE, done.problem
    options = ["--go-on", done.task, "--database", database, "--corpus", str(kettles)]
    shown = CliRunner().invoke(research, options)
    assert shown.exit_code == 0, shown.output
    assert _first_lines(shown.output.split("The research goes on in")[-1])[0] == said
    told = json.loads(CliRunner().invoke(research, [*options, "--json"]).output)
    assert told["decline"]["said"].startswith(said)
