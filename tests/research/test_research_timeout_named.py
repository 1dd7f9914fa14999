"""The commands `signoff research` prints to go on — approve, reject, go on, ask again — name the
model's ``--timeout`` wherever they name its ``--model``: the one given with the command (a
decision that names the model to go on with), or the one the task kept. They named the model
and its price alone, and run as printed, the model waited as long as its provider's default
(300 seconds), not as long as it was told to. The command that asks the question again names
the task's step and spend limits too, when they are not the Researcher's (it asked within the
defaults)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from signoff.agents import model_specs
from signoff.agents.model_specs import ModelSpec
from signoff.cli.research import research
from signoff.cli.research_shown import as_written
from signoff.models.base import Price
from signoff.research import Corpus, ask, fetch_url, read_source, search_sources
from signoff.testing import ScriptedModel, says
from tests.research.test_research import _told_to_run, _waiting_for_a_model
from tests.research.test_research_inputs import (
    QUESTION,
    _app_in,
    _waiting_on_a_fetch,
    kettles,
)

__all__ = ["kettles"]  # (a fixture of another module, used here)


def _edited(folder: Path) -> None:
    """Edit the file the waiting task read: a decision is refused, and says to ask again."""
    (folder / "kettle.md").write_text("# Kettles\n\nA kettle should be descaled every year.\n")


def test_asking_again_names_the_timeout_the_task_kept(kettles: Path, tmp_path: Path) -> None:
    """A task that kept its model with a timeout (and a price of many digits): the command that
    asks again names them both, exactly (the timeout was left out, and the price cut to
    0.123457)."""
    database = f"sqlite:///{tmp_path / 'r.db'}"
    app, waiting, proposal = _waiting_on_a_fetch(kettles, database)
    with app.database.connect() as db:
        model_specs.record(db, waiting.task, ModelSpec(
            spec="openai:gpt-4o-mini", price=Price(input_per_mtok=0.123456789,
                                                   output_per_mtok=0.6), timeout=45.5))
    _edited(kettles)
    refused = CliRunner().invoke(research, ["--approve", proposal.id, "--database", database,
                                            "--corpus", str(kettles)])
    assert refused.exit_code == 1, refused.output
    said = " ".join(refused.output.split())
    assert (f"research '{QUESTION}' --database {database} --corpus {kettles} --model "
            "openai:gpt-4o-mini --price 0.123456789,0.6 --timeout 45.5") in said, said
    assert app.proposal(proposal.id).status.value == "Waiting"


def test_asking_again_names_the_timeout_given_with_the_model(kettles: Path,
                                                              tmp_path: Path) -> None:
    """A decision that names the model to go on with, its price and its timeout, refused: the
    command that asks again names all three, as given."""
    database = f"sqlite:///{tmp_path / 'r.db'}"
    _, _, proposal = _waiting_on_a_fetch(kettles, database)
    _edited(kettles)
    refused = CliRunner().invoke(research, [
        "--reject", proposal.id, "--reason", "No.", "--database", database, "--corpus",
        str(kettles), "--model", "openai:gpt-4o-mini", "--price", "0.15,0.6", "--timeout",
        "600"])
    assert refused.exit_code == 1, refused.output
    said = " ".join(refused.output.split())
    assert (f"--corpus {kettles} --model openai:gpt-4o-mini --price 0.15,0.6 --timeout 600"
            ) in said, said


def test_the_commands_after_a_decision_name_the_timeout_it_gave(
        tmp_path: Path, bundled: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    """A research task that kept no model goes on with the one `--approve … --model SPEC
    --price IN,OUT --timeout SECONDS` names; when it then waits on another fetch, the commands
    printed under it name that model with its price and timeout, and run as printed, the
    research goes on with it."""
    from signoff.cli import main

    with _waiting_for_a_model(tmp_path, bundled, monkeypatch) as (database, proposal, model,
                                                                  fetched):
        yes = CliRunner().invoke(main, ["research", "--approve", proposal, "--database",
                                        database, "--model", model, "--price", "0,0",
                                        "--timeout", "45"])
        assert yes.exit_code == 0, yes.output
        approve = _told_to_run(yes.output, "Approve:")
        assert approve[-6:] == ["--model", model, "--price", "0,0", "--timeout", "45"]
        reject = _told_to_run(yes.output, "Reject:")
        assert reject[-6:] == ["--model", model, "--price", "0,0", "--timeout", "45"]
        again = CliRunner().invoke(main, approve)
    assert again.exit_code == 0, again.output
    assert fetched == ["/kettle", "/kettle?2"]
    assert "A kettle boils water. [1]" in again.output


def test_asking_again_names_the_tasks_limits(kettles: Path, tmp_path: Path) -> None:
    """A task given 5 steps and $0.2, refused a decision after a file it read was edited: the
    command that asks again names its limits (it named none, and asked within 8 and $0.50)."""
    database = f"sqlite:///{tmp_path / 'r.db'}"
    app, me = _app_in(kettles, database)
    waiting = ask(app, QUESTION, for_=me, max_steps=5, budget_usd=0.2, model=ScriptedModel(
        says.tool(search_sources, query="kettle descaled"),
        says.tool(read_source, source_id="kettle.md"),
        says.tool("Fetch it.", fetch_url, url="http://127.0.0.1:9/kettle")))
    (proposal,) = app.proposals(task=waiting.task)
    _edited(kettles)
    refused = CliRunner().invoke(research, ["--approve", proposal.id, "--database", database,
                                            "--corpus", str(kettles), "--model", "offline"])
    assert refused.exit_code == 1, refused.output
    said = " ".join(refused.output.split())
    assert (f"research '{QUESTION}' --database {database} --corpus {kettles} --model offline "
            "--max-steps 5 --budget 0.2") in said, said


def test_stopped_before_its_task_is_recorded_it_asks_again_as_it_was_asked(
        kettles: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C before the task is written: the command that asks again names the model, its
    price and timeout, and the limits given (it named none of them, and would have asked the
    offline reader within the defaults)."""
    import signoff.research.skill as research_skill

    def pressed(*_: object, **__: object) -> object:
        raise KeyboardInterrupt  # (Ctrl-C, pressed before the task was recorded)

    monkeypatch.setattr(research_skill, "ask", pressed)
    database = f"sqlite:///{tmp_path / 'r.db'}"
    model = "openai-compatible:local@http://127.0.0.1:9/v1"
    done = CliRunner().invoke(research, [
        QUESTION, "--corpus", str(kettles), "--database", database, "--model", model,
        "--price", "0,0", "--timeout", "30", "--max-steps", "5", "--budget", "0.2"])
    assert done.exit_code == 130, done.output
    assert done.stderr.strip().endswith(
        f"Ask again with signoff research '{QUESTION}' --database {database} --corpus {kettles} "
        f"--model {model} --price 0,0 --timeout 30 --max-steps 5 --budget 0.2"), done.stderr


@pytest.mark.parametrize(("number", "written"), [
    (45.0, "45"), (0.25, "0.25"), (0.123456789, "0.123456789"), (1234567.0, "1234567"),
    (1e-07, "1e-07")])
def test_a_number_is_written_as_a_command_line_takes_it_back(number: float,
                                                             written: str) -> None:
    """Every digit kept, and a whole number without its ".0"."""
    assert as_written(number) == written
    assert float(written) == number
