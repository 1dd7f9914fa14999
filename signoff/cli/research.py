"""``signoff research "QUESTION"``: research a question, live, and print a cited answer.

A thin layer over `signoff.research`: it builds the research app, runs the `Researcher` with the
chosen model (the offline extractive reader unless ``--model`` names a provider), shows each step
as it happens, and prints the answer with numbered citations — or, when no answer can be cited
from the sources read, says so with what was searched and the closest sources — the receipt's
task id, and what waits for a person's approval, with the commands that decide it
(``signoff research --approve ID`` and ``--reject ID --reason …``, which decide as the person
at the keyboard, for whom research runs). Registered on the ``signoff`` group;
``research_receipt`` shows a research task's receipt for ``signoff receipt`` when no app is
named. Failures are told as every command tells them (`signoff.cli.failures`).

Everything a source holds is shown as written: no Rich markup or emoji shortcode in it is
interpreted, and its control characters (escape sequences) are shown as ``\x1b``-style escapes,
never sent to the terminal.
"""

from __future__ import annotations

import dataclasses
import getpass
import importlib
import json
import os
import re
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from signoff.agents.model_specs import ModelSpec
from signoff.agents.tasks import TaskStatus
from signoff.cli import NAMING_THE_APP, given, runnable
from signoff.cli.failures import (
    EXIT_FAILED,
    EXIT_NOT_FOUND,
    EXIT_REFUSED,
    Failure,
    failure_of,
)
from signoff.cli.invocation import commands_as_run
from signoff.cli.terminal import visible
from signoff.exceptions import AgentRefused, NotFound, SignoffError
from signoff.models.base import Message, Model, Price, Reply, ToolSpec

__all__ = ["plain", "research", "research_receipt"]

_EXAMPLES = """
\b
Examples:
  signoff research "What does the with statement do?"
  signoff research "How do I deploy?" --corpus docs/ --max-steps 6
  signoff research "What does yield do?" --json
  signoff research "What is a context manager?" --model openai:gpt-4o-mini --budget 0.05
  signoff research --approve PROPOSAL_ID      # a fetch of a web page it waits on
  signoff research --reject PROPOSAL_ID --reason "Not that site."
  signoff receipt TASK_ID       # the receipt of a research task, afterwards
"""


@click.command(epilog=_EXAMPLES)
@click.argument("question", required=False)
@click.option("--corpus", "corpus_dir", metavar="DIR",
              type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="A folder of .txt, .md and .html files to research in. Default: Python's "
                   "documentation when Debian's python3-doc is installed, else the help topics "
                   "that ship with Python. With --approve or --reject: the folder the research "
                   "goes on in (the commands printed under a proposal name it).")
@click.option("--model", "model_spec", default=None, metavar="SPEC",
              help="offline (a deterministic extractive reader, not a language model; the "
                   "default), or a provider's model such as openai:gpt-4o-mini or "
                   "anthropic:claude-sonnet-4-5. With --approve or --reject: the model the "
                   "research goes on with (default: the one it was started with).")
@click.option("--price", "price_spec", metavar="IN,OUT", default=None,
              help="The model's price in US dollars per million input and output tokens, e.g. "
                   "0.15,0.60 (wins over the table; needed for a model the table does not know).")
@click.option("--max-steps", type=click.IntRange(min=1), default=None,
              help="The most model calls the task may make (default: the Researcher's, 8).")
@click.option("--budget", "budget_usd", type=click.FloatRange(min=0), default=None,
              metavar="USD", help="The most the task may spend, in US dollars (default: 0.50).")
@click.option("--database", metavar="URL", default=None,
              help="Where tasks, proposals and receipts are kept (default: research.db in the "
                   "user's data directory).")
@click.option("--json", "as_json", is_flag=True,
              help="Print the grounded answer and its sources as JSON, without progress.")
@click.option("--approve", "approve_id", metavar="PROPOSAL_ID", callback=given,
              help="Instead of a question: say yes to a proposal a research task waits on (a web "
                   "page to fetch); it runs now, and the research goes on.")
@click.option("--reject", "reject_id", metavar="PROPOSAL_ID", callback=given,
              help="Instead of a question: say no to a proposal a research task waits on, with "
                   "--reason.")
@click.option("--reason", metavar="TEXT", default=None,
              help="Why not, with --reject: the agent is told it.")
def research(question: str | None, corpus_dir: Path | None, model_spec: str,
             price_spec: str | None, max_steps: int | None, budget_usd: float | None,
             database: str | None, as_json: bool, approve_id: str | None,
             reject_id: str | None, reason: str | None) -> None:
    """Research QUESTION in a corpus and answer with claims that each cite a source.

    Every claim quotes a source that a tool returned in this very task; an answer that does not
    is refused, and the agent tries again within its step and spend limits. When the sources
    read do not answer the question, it says so (and exits 0).

    A task that wants to fetch a web page waits for your yes: --approve PROPOSAL_ID (or
    --reject PROPOSAL_ID --reason "…") decides it, as you, in research's own database; the
    research then goes on with the model it was started with, and prints its answer.
    """
    from signoff.research.corpus import Corpus
    from signoff.research.skill import Researcher, ask, default_database, research_app

    if approve_id is not None or reject_id is not None or reason is not None:
        if max_steps is not None or budget_usd is not None:
            raise click.UsageError("--max-steps and --budget go with a question: a research "
                                   "task goes on after a decision within the limits it was "
                                   "started with.")
        _decide(question, approve_id=approve_id, reject_id=reject_id, reason=reason,
                database=database, as_json=as_json, corpus_dir=corpus_dir,
                model_spec=model_spec, price_spec=price_spec)
        return
    if question is None:
        such_as = runnable('research "What does the with statement do?"')
        raise click.UsageError(f"Ask a question, such as {such_as}; or decide a proposal a "
                               "research task waits on with --approve PROPOSAL_ID or --reject "
                               "PROPOSAL_ID --reason TEXT.")
    if not question.strip():
        such_as = runnable('research "What does the with statement do?"')
        raise click.UsageError(f"The question is empty: ask something, such as {such_as}.")
    console = _console()
    steps = max_steps if max_steps is not None else Researcher.max_steps
    budget = budget_usd if budget_usd is not None else Researcher.budget_usd
    show = _Progress(console=console, quiet=as_json, max_steps=steps, budget_usd=budget)
    price = _price(price_spec)
    model = _model(model_spec or "offline", price, None if as_json else show.streamed)
    # A model of a provider's is kept with the task by its spec, so that a yes to what the
    # task waits on (`--approve`) can make it again and go on.
    kept = None if _is_offline(model) else ModelSpec(spec=str(model_spec), price=price)
    url = database or default_database()
    building = None if as_json else (lambda words: console.print(f"[dim]{plain(words)}[/dim]"))
    try:
        corpus = (Corpus.from_folder(corpus_dir, on_build=building) if corpus_dir
                  else Corpus.default(on_build=building))
        app = research_app(corpus, database=url)
        person = _local_person(app)
    except SignoffError as error:
        raise failure_of(error) from None
    if not as_json:
        console.print(f"Researching in {plain(corpus.name)} ({len(corpus)} sources) "
                      f"with [bold]{plain(model.name)}[/bold].")
        for note in corpus.notes:
            console.print(f"[dim]{plain(note)}[/dim]")
        if _is_offline(model):
            console.print("[dim]It searches, reads the best matches, and quotes the sentences "
                          "about the question — or says that no answer can be cited from the "
                          "sources read; it writes nothing of its own.[/dim]")
    watched = _Watched(model, show)
    try:
        with show.live():
            outcome = ask(app, question, model=watched, for_=person, max_steps=steps,
                          budget_usd=budget, model_spec=kept)
    except SignoffError as error:
        raise failure_of(error) from None
    shown = _Shown(question=question, model=model.name, corpus=corpus, corpus_dir=corpus_dir,
                   max_steps=steps, budget_usd=budget, database=database, url=url)
    if as_json:
        click.echo(json.dumps(_as_json(app, outcome, shown), indent=2))
    else:
        _print_outcome(console, show, app, outcome, shown)
    _exit_for(outcome)


@dataclasses.dataclass(frozen=True, kw_only=True)
class _Shown:
    """What a research task's outcome is shown with, beside the outcome itself."""

    question: str
    model: str
    """The model's name."""
    corpus: Any
    corpus_dir: Path | None
    """The folder researched, when one was named (the commands printed name it again)."""
    max_steps: int
    budget_usd: float
    database: str | None
    """The database named with --database (the commands printed name it again)."""
    url: str
    """The database's URL."""
    named_model: tuple[str, str | None] | None = None
    """The model (its spec, and price) a decision named with --model for the research to go
    on with, which the task does not keep: the commands printed name it again."""

    def deciding(self, proposal: str) -> tuple[str, str]:
        """The commands that approve and reject `proposal`, runnable as written: they name
        the database and the corpus folder when they are not the default, and the model when
        the research goes on with one the task does not keep."""
        where = "" if self.database is None else f" --database {shlex.quote(self.url)}"
        if self.corpus_dir is not None:  # (whole: the command may be run from anywhere)
            where += f" --corpus {shlex.quote(str(self.corpus_dir.absolute()))}"
        if self.named_model is not None:
            spec, price = self.named_model
            where += f" --model {shlex.quote(spec)}"
            if price is not None:
                where += f" --price {shlex.quote(price)}"
        return (runnable(f"research --approve {shlex.quote(proposal)}{where}"),
                runnable(f"research --reject {shlex.quote(proposal)} --reason "
                         f"{shlex.quote('…')}{where}"))


def _waiting(app: Any, outcome: Any) -> list[Any]:
    return [p for p in app.proposals(task=outcome.task) if p.status.value == "Waiting"]


def _as_json(app: Any, outcome: Any, shown: _Shown) -> dict[str, Any]:
    """The outcome of a research task, as `--json` prints it."""
    result = outcome.result
    declined = result.declined if result else None
    sources = _sources(app, outcome, shown.corpus)
    return {
        "question": shown.question, "status": outcome.status.value, "task": outcome.task,
        "model": shown.model, "corpus": shown.corpus.name, "notes": list(shown.corpus.notes),
        "answer": result.model_dump(mode="json") if result else None,
        "declined": declined is not None,
        "sources": sources, "problem": outcome.problem, "steps": outcome.steps,
        "max_steps": shown.max_steps, "spend_usd": outcome.spend_usd,
        "budget_usd": shown.budget_usd,
        "waiting": [{"proposal": p.id, "action": p.action, "arguments": p.arguments,
                     "decide_by": p.decide_by,
                     **dict(zip(("approve", "reject"), shown.deciding(p.id), strict=True))}
                    for p in _waiting(app, outcome)],
        "database": shown.url,
    }


def _print_outcome(console: Any, show: _Progress, app: Any, outcome: Any, shown: _Shown) -> None:
    """Print the outcome of a research task: what its tools answered last, the answer (or
    why there is none), the receipt, and what waits for approval with the commands that
    decide it."""
    receipt = app.receipt(outcome.task)
    sources = _sources(app, outcome, shown.corpus)
    show.last_turn([e.words for e in _after_last_model_call(receipt.entries)])
    _print_answer(console, outcome, sources)
    # With an app named by SIGNOFF_APP, a bare `signoff receipt` would look in that app.
    again = "" if shown.database is None and not os.environ.get("SIGNOFF_APP") else (
        f" --database {plain(shlex.quote(shown.url))}")
    console.print(f"\nReceipt: task {outcome.task} — {outcome.steps} step(s), "
                  f"${outcome.spend_usd:.4f} of ${shown.budget_usd:.2f}; kept in "
                  f"{plain(shown.url)}. See it with: "
                  f"{plain(runnable(f'receipt {outcome.task}'))}{again}")
    waiting = _waiting(app, outcome)
    if waiting:
        console.print("Waiting for approval:")
        for p in waiting:
            arguments = ", ".join(f"{k}={v!r}" for k, v in p.arguments.items())
            console.print(f"  {plain(p.action)}({plain(arguments)}) — proposal {p.id}, "
                          f"for {plain(p.decide_by)} to decide.")
            yes, no = shown.deciding(p.id)
            console.print(f"    Approve: {plain(yes)}\n    Reject:  {plain(no)}")
    else:
        console.print("Nothing waits for approval.")


def _exit_for(outcome: Any) -> None:
    if outcome.status is TaskStatus.FAILED:  # its model could not be used: not done
        sys.exit(EXIT_FAILED)
    if outcome.status is TaskStatus.HALTED:  # at a limit: refused to go on
        sys.exit(EXIT_REFUSED)


def _decide(question: str | None, *, approve_id: str | None, reject_id: str | None,
            reason: str | None, database: str | None, as_json: bool, corpus_dir: Path | None,
            model_spec: str | None, price_spec: str | None) -> None:
    """``--approve ID`` or ``--reject ID --reason TEXT``: decide a proposal of a research task,
    kept in research's database, as the person at the keyboard (for whom research runs, and
    whom its proposals are put to); then the research goes on, here, with the model it was
    started with (`--model` names another) in the corpus `--corpus` names, and its outcome
    is printed as research prints it."""
    from signoff.agents import model_specs
    from signoff.agents import repository as repo
    from signoff.agents.proposals import ProposalStatus
    from signoff.inbox import Inbox
    from signoff.research.corpus import Corpus
    from signoff.research.skill import Researcher

    if question is not None:
        raise click.UsageError("Give a question, or decide a proposal with --approve or "
                               "--reject, not both.")
    if approve_id is not None and reject_id is not None:
        raise click.UsageError("Give --approve or --reject, not both: a proposal is decided "
                               "once.")
    if approve_id is not None and reason is not None:
        raise click.UsageError("--reason goes with --reject: a yes needs none.")
    if reject_id is not None and not (reason or "").strip():
        raise click.UsageError("Say why with --reason TEXT (such as --reason 'Not that site.'): "
                               "the agent is told it.")
    if approve_id is None and reject_id is None:
        raise click.UsageError("--reason goes with --reject PROPOSAL_ID.")
    if price_spec is not None and model_spec is None:
        raise click.UsageError("--price goes with --model SPEC: the model a research task kept "
                               "goes on at the price it was started with.")
    console = _console()
    _research_url(database)  # (told before the corpus is made, when there is no database)
    # The corpus is made before anything is decided: the research goes on in it (its tools
    # are queries, which may not make an index), and a folder that cannot be read is told
    # while the proposal still waits.
    building = None if as_json else (lambda words: console.print(f"[dim]{plain(words)}[/dim]"))
    try:
        corpus = (Corpus.from_folder(corpus_dir, on_build=building) if corpus_dir
                  else Corpus.default(on_build=building))
    except SignoffError as error:
        raise failure_of(error) from None
    app, url = _research_database(database, corpus)
    try:
        me = _local_person(app)
        proposal = Inbox(app).proposal(me, str(approve_id or reject_id))
        with app.database.reading() as db:
            task = repo.load_task(db, proposal.task)
            kept = model_specs.recorded(db, proposal.task)
            seen = repo.messages_of(db, proposal.task)
    except SignoffError as error:
        raise failure_of(error) from None
    if task is None:  # (a proposal names its task: this is a database changed by hand)
        raise Failure(f"There is no research task {proposal.task}.", EXIT_NOT_FOUND)
    show = _Progress(console=console, quiet=as_json, max_steps=task.max_steps,
                     budget_usd=task.budget_usd)
    show.spent = task.spend_usd
    # The model is made before anything is decided: a yes whose research could not go on
    # would leave it Running with nothing to take it on. A proposal decided already needs
    # none: the verb refuses it, in its own words (it was told to name a model, or to set
    # the model's key, to hear that).
    model = (_going_on_with(task.id, model_spec, price_spec, kept, show)
             if proposal.status is ProposalStatus.WAITING else None)
    try:
        decision = (app.approve(proposal, by=me) if approve_id is not None
                    else app.reject(proposal, by=me, reason=str(reason)))
    except SignoffError as error:
        raise failure_of(error) from None
    if model is None:  # (cannot be: a proposal that was decided is not decided again)
        raise Failure(f"Proposal {proposal.id} was decided already.", EXIT_REFUSED)
    decided = {"proposal": proposal.id, "task": proposal.task, "status": decision.status.value,
               "said": decision.said, "database": url}
    if not as_json:
        console.print(plain(visible(decision.said)))
    outcome = None
    if decision.task_status == TaskStatus.RUNNING.value:
        show.seen(m.tool_call_id for m in seen if m.role == "tool")
        if not as_json:  # (a folder left out when deciding by hand is the default corpus)
            console.print(f"The research goes on in {plain(corpus.name)} with "
                          f"[bold]{plain(model.name)}[/bold].")
        try:
            with show.live():
                outcome = app.agent(Researcher).resume(task.id, model=_Watched(model, show))
        except SignoffError as error:
            raise failure_of(error) from None
    elif decision.task_status == TaskStatus.WAITING.value:  # on others: they are shown
        outcome = app.outcome(task.id)
    if outcome is not None:
        subject = task.subject_json if isinstance(task.subject_json, dict) else {}
        shown = _Shown(question=str(subject.get("question", "")), model=model.name,
                       corpus=corpus, corpus_dir=corpus_dir, max_steps=task.max_steps,
                       budget_usd=task.budget_usd, database=database, url=url,
                       named_model=None if model_spec is None else (model_spec, price_spec))
        if as_json:
            click.echo(json.dumps({**decided, "research": _as_json(app, outcome, shown)},
                                  indent=2))
        else:
            _print_outcome(console, show, app, outcome, shown)
    elif as_json:
        click.echo(json.dumps({**decided, "research": None}, indent=2))
    if decision.status not in (ProposalStatus.DONE, ProposalStatus.REJECTED):
        sys.exit(EXIT_REFUSED)
    if outcome is not None:
        _exit_for(outcome)


def _going_on_with(task: str, model_spec: str | None, price_spec: str | None, kept: Any,
                   show: _Progress) -> Model:
    """The model research task `task` goes on with after a decision: the one `--model` names,
    else the one it was started with (`kept`, by its spec); a usage error saying what to do
    when there is none, or it cannot be made here."""
    if model_spec is not None:
        return _model(model_spec, _price(price_spec), None if show.quiet else show.streamed)
    if kept is None or not kept.spec:
        raise click.UsageError(
            f"Research task {task} keeps no model to go on with (it was started with a model "
            "given in code, or before research kept its model with the task): name the one it "
            "was researched with, "
            "--model SPEC (and --price IN,OUT if it needs one), to decide it and go on.")
    try:
        return _model(kept.spec, kept.price, None if show.quiet else show.streamed)
    except click.BadParameter as error:
        raise click.UsageError(
            f"Research task {task} goes on with {kept.words}, which cannot be made here: "
            f"{error.message} Set what it needs and decide again, or name another model with "
            "--model SPEC.") from None


def _research_database(database: str | None, corpus: Any = None) -> tuple[Any, str]:
    """The research app on `database` (`default_database()` unless given), which must be
    there, over `corpus` (when not given, the default corpus, made only if a tool that reads
    it runs: a receipt runs none), and the database's URL."""
    from signoff.app import App
    from signoff.research import tools
    from signoff.research.corpus import Corpus
    from signoff.research.skill import Researcher

    url = _research_url(database)
    try:
        app = App("research", database=url)
        app.provide("corpus", Corpus.default if corpus is None else (lambda: corpus))
        app.collect(tools)
        app.add_agent(Researcher)
    except SignoffError as error:
        raise failure_of(error) from None
    return app, url


def _research_url(database: str | None) -> str:
    """The URL of the research database (`default_database()` unless `database` is given);
    a usage error when it is not there."""
    from signoff.research.skill import default_database

    url = database or default_database()
    if url.startswith("sqlite:///") and not Path(url.removeprefix("sqlite:///")).is_file():
        raise click.UsageError(f"There is no research database at {url}: name the one that "
                               "holds the task with --database URL, or, for a task of an app, "
                               f"{NAMING_THE_APP}.")
    return url


# -- the model -----------------------------------------------------------------------------


def _price(spec: str | None) -> Price | None:
    if spec is None:
        return None
    try:
        given, taken = (float(part) for part in spec.split(","))
    except ValueError:
        raise click.BadParameter(f"{spec!r}: give two numbers, input and output dollars per "
                                 "million tokens, e.g. 0.15,0.60.", param_hint="--price") from None
    if given < 0 or taken < 0:
        raise click.BadParameter("A price cannot be negative.", param_hint="--price")
    return Price(input_per_mtok=given, output_per_mtok=taken)


def _model(spec: str, price: Price | None = None,
           on_text: Callable[[str], None] | None = None) -> Model:
    from signoff.research.extractive import ExtractiveModel

    if spec.strip().lower() in ("", "offline"):
        return ExtractiveModel()
    try:  # the providers are optional: imported only when asked for
        choose = importlib.import_module("signoff.models.choose")
    except ImportError:
        raise click.BadParameter(f"{spec!r}: only “offline” is available in this installation.",
                                 param_hint="--model") from None
    try:
        chosen = choose.model_from(spec, price=price, on_text=on_text)
    except SignoffError as error:
        raise click.BadParameter(str(error), param_hint="--model") from None
    if isinstance(chosen, Model) and chosen.price is None:
        raise click.BadParameter(
            f"The price of {chosen.name} is not known, so its cost cannot be kept within the "
            "budget: give it with --price IN,OUT (US dollars per million input and output "
            "tokens, e.g. --price 0.15,0.60; 0,0 for a model of your own).", param_hint="--price")
    return chosen if isinstance(chosen, Model) else ExtractiveModel()


def _is_offline(model: Model) -> bool:
    from signoff.research.extractive import ExtractiveModel

    return isinstance(model, ExtractiveModel)


def _local_person(app: Any) -> Any:
    """The person at the keyboard, as the research app's directory knows them."""
    try:
        user = getpass.getuser()
    except (OSError, KeyError):  # no user name in this environment
        user = "you"
    # (a user name may hold what an e-mail address may not: "Ada Lovelace", "ada@corp")
    local = re.sub(r"[\s@\x00-\x1f\x7f]+", "-", user).strip("-") or "you"
    handle = f"{local}@localhost"
    return app.people.find(handle) or app.people.add(handle, user)


class _Watched:
    """The chosen model, watched: each call shows its step, and the answers of the turn before."""

    def __init__(self, model: Model, show: _Progress) -> None:
        self._model = model
        self._show = show
        self.name: str = model.name
        self.price: Price | None = model.price

    def count_tokens(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> int:
        return self._model.count_tokens(messages, tools)

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec], *,
                 max_output_tokens: int) -> Reply:
        self._show.answers(messages)
        self._show.step(sum(1 for m in messages if m.role == "assistant") + 1)
        reply = self._model.complete(messages, tools, max_output_tokens=max_output_tokens)
        if self.price is not None:
            self._show.spent += self.price.cost(reply.usage.input_tokens,
                                                reply.usage.output_tokens)
        self._show.asked(reply)
        return reply


# -- showing it ----------------------------------------------------------------------------


class _Progress:
    """Live progress: a status line (step k of N, spend against budget) and a line per call."""

    def __init__(self, *, console: Any, quiet: bool, max_steps: int, budget_usd: float) -> None:
        self.console = console
        self.quiet = quiet
        self.max_steps = max_steps
        self.budget_usd = budget_usd
        self.spent = 0.0
        self._status: Any = None
        self._shown: set[str] = set()
        self._streaming = False
        """Whether the model's text of the call under way has been shown as it came."""

    def seen(self, tool_call_ids: Any) -> None:
        """Show no more what these calls answered (shown before: research goes on)."""
        self._shown.update(tool_call_ids)

    def streamed(self, text: str) -> None:
        """Show a piece of the model's text as it is written."""
        if not self.quiet:
            if not self._streaming:
                self.console.print("  ", end="")
            self._streaming = True
            self.console.print(visible(text), end="", style="dim", markup=False)

    def live(self) -> Any:
        from contextlib import nullcontext

        if self.quiet:
            return nullcontext()
        self._status = self.console.status(self._line(1))
        return self._status

    def _line(self, step: int) -> str:
        return (f"Step {step} of {self.max_steps} · ${self.spent:.4f} of "
                f"${self.budget_usd:.2f} spent")

    def step(self, step: int) -> None:
        if self.quiet:
            return
        if self._status is not None:
            self._status.update(self._line(step))
        self.console.print(f"[bold]{self._line(step)}[/bold]")

    def asked(self, reply: Reply) -> None:
        if self.quiet:
            return
        if self._streaming:  # shown already, as it came: the line ends
            self.console.print()
            self._streaming = False
        elif reply.text:
            self.console.print(f"  [dim]{plain(_short(reply.text, 160))}[/dim]")
        for call in reply.tool_calls:
            shown = _arguments(call.arguments) if call.name != "hand_back" else _claims(
                call.arguments)
            self.console.print(f"  → {plain(call.name)} {plain(shown)}")

    def answers(self, messages: Sequence[Message]) -> None:
        """Show what the tools of the latest turn answered (once each)."""
        if self.quiet:
            return
        names = {c.id: c.name for m in messages if m.role == "assistant" for c in m.tool_calls}
        for message in messages:
            if message.role != "tool" or message.tool_call_id in self._shown:
                continue
            self._shown.add(message.tool_call_id)
            tool = names.get(message.tool_call_id, "?")
            self.console.print(f"  ← {plain(tool)}: {plain(_outcome(tool, message.text))}")

    def last_turn(self, lines: list[str]) -> None:
        if self.quiet:
            return
        for line in lines:
            self.console.print(f"  ← {plain(_short(line, 300))}")


def _outcome(tool: str, answer: str) -> str:
    """What a tool's answer came to, in a line: Done with what it gave, or the answer's words
    as they are when they are a refusal or a person's decision."""
    head = answer.split(":", 1)[0]
    if head in ("Invalid", "Denied", "Gone", "Failed", "Rejected", "Stale"):
        return _short(answer, 400)
    try:
        value = json.loads(answer)
    except ValueError:
        # Research's tools answer JSON when they ran: words are a person's decision ("Ann said
        # no to fetch_url: …", "Ann approved fetch_url, but it did not run: …"), not a Done.
        return _short(answer, 400)
    if isinstance(value, dict) and isinstance(value.get("hits"), list):
        ids = [str(v.get("source_id")) for v in value["hits"] if isinstance(v, dict)]
        unknown = [str(w) for w in value.get("unknown", [])]
        return (f"Done: {len(ids)} hit(s)" + (f" — {', '.join(ids)}" if ids else "")
                + (f"; no source has {', '.join(unknown)}" if unknown else ""))
    if isinstance(value, dict) and "text" in value:
        part = f", part {value.get('part')} of {value.get('parts')}" if value.get("parts", 1) != 1 \
            else ""
        return f"Done: “{value.get('title', '')}” ({len(str(value['text'])):,} characters{part})"
    return "Done: " + _short(answer, 160)


def _after_last_model_call(entries: Sequence[Any]) -> list[Any]:
    """The receipt's entries of what came after the last model call, or after the last
    decision (or the task's going on after it): what the proposals of before came to was told
    with the decision, and a task that goes on after it no longer waits."""
    last = max((i for i, e in enumerate(entries)
                if e.kind in ("model_call", "decision", "resumed")), default=-1)
    return [e for e in entries[last + 1:] if e.kind in ("tool_call", "proposal", "result",
                                                        "limit", "failure", "waiting")]


def _sources(app: Any, outcome: Any, corpus: Any) -> dict[str, dict[str, str]]:
    """The title and origin of each source the outcome's answer cites (or, when it declines,
    names as the closest): the corpus's, else — a page fetched from the web — the title the
    page gave when it was fetched."""
    result = outcome.result
    declined = result.declined if result else None
    source_ids = declined.closest if declined is not None else (
        result.source_ids if result else [])
    found: dict[str, dict[str, str]] = {}
    fetched: dict[str, str] | None = None
    for sid in source_ids:
        try:
            part = corpus.read(sid)
            found[sid] = {"title": part.title, "origin": part.origin}
        except NotFound:  # a page fetched from the web
            fetched = _fetched_titles(app, outcome.task) if fetched is None else fetched
            found[sid] = {"title": fetched.get(sid, sid), "origin": sid}
    return found


def _fetched_titles(app: Any, task: str) -> dict[str, str]:
    """The title of each page task `task` fetched, by its source id, as its tools answered."""
    from signoff.agents import repository as repo

    with app.database.reading() as db:
        messages = repo.messages_of(db, task)
    titles: dict[str, str] = {}
    for message in messages:
        if message.role != "tool":
            continue
        try:
            value = json.loads(message.text)
        except ValueError:
            continue  # a refusal, in words
        if isinstance(value, dict) and isinstance(value.get("title"), str) and (
                isinstance(value.get("source_id"), str)):
            titles[value["source_id"]] = value["title"]
    return titles


def _print_answer(console: Any, outcome: Any, sources: dict[str, dict[str, str]]) -> None:
    declined = outcome.result.declined if outcome.done and outcome.result else None
    if declined is not None:
        console.print("\n[bold]No answer can be cited from the sources read.[/bold]")
        console.print(f"  {plain(declined.reason)}")
        if declined.searched:
            console.print("  Searched for: " + ", ".join(f"“{plain(q)}”"
                                                        for q in declined.searched))
        if declined.closest:
            console.print("  The closest sources:")
            for sid in declined.closest:
                title = sources.get(sid, {}).get("title", sid)
                console.print(f"    {plain(sid)} — {plain(title)}")
        return
    if not outcome.done:
        why = commands_as_run(outcome.problem) or (f"it waits on {', '.join(outcome.waiting_on)}"
                                  if outcome.waiting else outcome.status.value)
        console.print(f"\n[bold]No answer[/bold]: {plain(why)}")
        return
    console.print("\n[bold]Answer[/bold]")
    notes: list[tuple[int, str, str]] = []
    for claim in outcome.result.claims:
        marks = []
        for citation in claim.citations:
            notes.append((len(notes) + 1, citation.source_id, citation.quote))
            marks.append(f"[{len(notes)}]")
        console.print(f"  {plain(claim.text)} {plain(''.join(marks))}")
    console.print("\n[bold]Citations[/bold]")
    for number, sid, quote in notes:
        title = sources.get(sid, {}).get("title", sid)
        console.print(f"  \\[{number}] {plain(sid)} — {plain(title)}\n"
                      f"      “{plain(' '.join(quote.split()))}”")


def _arguments(arguments: str) -> str:
    try:
        value = json.loads(arguments)
    except (ValueError, RecursionError):
        return _short(arguments, 160)
    if isinstance(value, dict):
        return _short(", ".join(f"{k}={json.dumps(v)}" for k, v in value.items()), 160)
    return _short(arguments, 160)


def _claims(arguments: str) -> str:
    try:
        answer = json.loads(arguments)
        claims = answer.get("claims", [])
    except (ValueError, AttributeError, RecursionError):
        return _short(arguments, 160)
    if answer.get("declined"):
        return "an answer that declines: no answer can be cited from the sources read"
    count = len(claims) if isinstance(claims, list) else 0
    return f"an answer of {count} claim{'s' if count != 1 else ''}"


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def plain(text: str) -> str:
    """`text` as written, to print with Rich: its markup escaped (so none is interpreted), and
    its control characters shown as escapes (so none reaches the terminal)."""
    from rich.markup import escape

    return escape(visible(text))


def _console() -> Any:
    """A console that prints text as written: no emoji shortcodes, no highlighting."""
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True, emoji=False)


def research_receipt(task_id: str, *, database: str | None = None, as_json: bool = False) -> None:
    """Print the receipt of a research task kept in `database` (`default_database()` unless
    given): for ``signoff receipt TASK_ID`` without an app."""
    app, url = _research_database(database)
    try:
        found = app.receipt(task_id)
    except AgentRefused:
        raise Failure(f"There is no research task {task_id} in {url}.", EXIT_NOT_FOUND) from None
    except SignoffError as error:
        raise failure_of(error) from None
    if as_json:
        click.echo(json.dumps({**dataclasses.asdict(found), "cost_usd": found.cost_usd},
                              indent=2, default=str))
        return
    console = _console()
    for entry in found.entries:
        console.print(f"{entry.at:%H:%M:%S}  {plain(entry.words)}")
    console.print(f"Status: {plain(str(found.status))}. Cost: ${found.cost_usd:.6f}.")
