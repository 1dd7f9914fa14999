"""``signoff research "QUESTION"``: research a question, live, and print a cited answer.

A thin layer over `signoff.research`: it builds the research app, runs the `Researcher` with the
chosen model (the offline extractive reader unless ``--model`` names a provider), shows each step
as it happens, and prints the answer with numbered citations — or, when no answer can be cited
from the sources read, says so with what was searched and the closest sources — the receipt's
task id, and what waits for a person's approval, with the commands that decide it
(``signoff research --approve ID`` and ``--reject ID --reason …``, which decide as the person
at the keyboard, for whom research runs). Registered on the ``signoff`` group;
``research_receipt`` shows a research task's receipt for ``signoff receipt`` when no app is
named. Failures are told as every command tells them (`signoff.cli.failures`); how a task is
shown, as it works and once it stops, is `signoff.cli.research_shown`'s. After a decision
(``--approve``, ``--reject``), or when its command was stopped before it ended (``--go-on``), the
research goes on here, with the model the task kept.
"""

from __future__ import annotations

import dataclasses
import getpass
import json
import re
import shlex
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from signoff.agents.model_specs import ModelSpec
from signoff.agents.proposals import ProposalStatus
from signoff.agents.tasks import TaskStatus
from signoff.cli import (
    MOST_TIMEOUT,
    NAMING_THE_APP,
    Dollars,
    Seconds,
    Steps,
    given,
    model_with_its_provider,
    not_empty,
    runnable,
)
from signoff.cli.failures import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_NOT_FOUND,
    EXIT_REFUSED,
    Failure,
    Misuse,
    by_whole_id,
    failure_of,
    outcome_shown,
    reader_gone,
)
from signoff.cli.otlp import export_traces
from signoff.cli.research_model import (
    going_on_with,
    is_offline,
    is_offline_spec,
    model_of,
    price_of,
)
from signoff.cli.research_shown import (
    Progress,
    Shown,
    Watched,
    as_json_of,
    as_read_now,
    as_written,
    began_in,
    console_for_text,
    plain,
    print_outcome,
    seen_in,
)
from signoff.cli.research_stopped import (
    calm_at_exit,
    question_of,
    shown_to_its_end,
    stopped_as_by_ctrl_c,
    tell_stopped,
)
from signoff.cli.terminal import visible
from signoff.exceptions import AgentRefused, SignoffError, StoreError, UserError
from signoff.models import Model

__all__ = ["research", "research_receipt", "research_stop", "research_task_kept"]

_EXAMPLES = """
\b
Examples:
  signoff research "What does the with statement do?"
  signoff research "How do I approve a proposal?" --corpus docs/ --max-steps 6
  signoff research "What does yield do?" --json
  signoff research "What is a context manager?" --model openai:gpt-4o-mini --budget 0.05
  signoff research --approve PROPOSAL_ID      # a fetch of a web page it waits on
  signoff research --reject PROPOSAL_ID --reason "Not that site."
  signoff research --go-on TASK_ID            # a task stopped before it ended
  signoff receipt TASK_ID       # the receipt of a research task, afterwards
"""


@click.command(epilog=_EXAMPLES)
@click.argument("question", required=False)
@click.option("--corpus", "corpus_dir", metavar="DIR",
              type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="A folder of .txt, .md and .html files to research in. Default: Python's "
                   "documentation when Debian's python3-doc is installed, else the help topics "
                   "that ship with Python. With --approve or --reject: the folder the research "
                   "goes on in (the commands printed under a proposal name it), which must "
                   "give what the task read there.")
@click.option("--model", "model_spec", default=None, metavar="SPEC",
              callback=model_with_its_provider,
              help="offline (a deterministic extractive reader, not a language model; the "
                   "default), or a provider's model such as openai:gpt-4o-mini or "
                   "anthropic:claude-sonnet-4-5. With --approve or --reject: the model the "
                   "research goes on with (default: the one it was started with).")
@click.option("--price", "price_spec", metavar="IN,OUT", default=None, callback=not_empty,
              help="The price of the model --model names, in US dollars per million input and "
                   "output tokens, e.g. 0.15,0.60 (wins over the table; needed for a model the "
                   "table does not know).")
@click.option("--timeout", type=Seconds(zero=False, most=MOST_TIMEOUT, most_said="a day"),
              default=None, metavar="SECONDS",
              help="The longest wait for the model --model names to answer, or to send its "
                   "answer's next piece (default: 300 for an OpenAI-compatible server and "
                   "Anthropic, 120 for OpenAI); a slow model of your own may need more, up to "
                   "86400 (a day). Kept with "
                   "the task, which goes on with it after a decision.")
@click.option("--max-steps", type=Steps(), default=None,
              help="The most model calls the task may make (default: the Researcher's, 8).")
@click.option("--budget", "budget_usd", type=Dollars(), default=None,
              metavar="USD", help="The most the task may spend, in US dollars (default: 0.50).")
@click.option("--database", metavar="URL", default=None, callback=not_empty,
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
@click.option("--go-on", "go_on_id", metavar="TASK_ID", callback=given,
              help="Instead of a question: go on with a research task that stopped before it "
                   "ended (interrupted), with the model it was started with; or show where it "
                   "stands.")
def research(question: str | None, corpus_dir: Path | None, model_spec: str,
             price_spec: str | None, timeout: float | None, max_steps: int | None,
             budget_usd: float | None,
             database: str | None, as_json: bool, approve_id: str | None,
             reject_id: str | None, reason: str | None, go_on_id: str | None) -> None:
    """Research QUESTION in a corpus and answer with claims that each cite a source.

    Every claim quotes a source that a tool returned in this very task; an answer that does not
    is refused, and the agent tries again within its step and spend limits. When the sources
    read do not answer the question, it says so (and exits 0).

    A task that wants to fetch a web page waits for your yes: --approve PROPOSAL_ID (or
    --reject PROPOSAL_ID --reason "…") decides it, as you, in research's own database; the
    research then goes on with the model it was started with, and prints its answer.
    """
    from signoff.research.skill import Researcher, ask, default_database, research_app

    if reason is not None and approve_id is None and reject_id is None and go_on_id is None:
        raise Misuse("--reason goes with --reject PROPOSAL_ID: it tells the agent "
                     "why not" + (". A question needs none." if question else "."))
    price_of(price_spec)  # (a price that is none is told as such first, with or without a model)
    if price_spec is not None and model_spec is not None and is_offline_spec(model_spec):
        raise Misuse("--price goes with a provider's model: the offline reader "
                     "(--model offline) costs nothing.")
    if timeout is not None and (model_spec is None or is_offline_spec(model_spec)):
        raise Misuse("--timeout goes with --model SPEC, a provider's model: the offline reader "
                     "waits on nothing, and a research task goes on after a decision with the "
                     "model, and the timeout, it was started with.")
    if approve_id is not None or reject_id is not None or reason is not None or (
            go_on_id is not None):
        if max_steps is not None or budget_usd is not None:
            raise Misuse("--max-steps and --budget go with a question: a research "
                         "task goes on after a decision within the limits it was "
                         "started with.")
        if price_spec is not None and model_spec is None:
            raise Misuse("--price goes with --model SPEC: the model a research task "
                         "kept goes on at the price it was started with.")
        if go_on_id is not None:
            if question is not None or approve_id is not None or reject_id is not None or (
                    reason is not None):
                raise Misuse("Give --go-on TASK_ID alone: it goes on with a task, "
                             "and asks or decides nothing.")
            _go_on(go_on_id, database=database, as_json=as_json, corpus_dir=corpus_dir,
                   model_spec=model_spec, price_spec=price_spec, timeout=timeout)
            return
        _decide(question, approve_id=approve_id, reject_id=reject_id, reason=reason,
                database=database, as_json=as_json, corpus_dir=corpus_dir,
                model_spec=model_spec, price_spec=price_spec, timeout=timeout)
        return
    if question is None:
        such_as = runnable('research "What does the with statement do?"')
        raise Misuse(f"Ask a question, such as {such_as}; or decide a proposal a "
                     "research task waits on with --approve PROPOSAL_ID or --reject "
                     "PROPOSAL_ID --reason TEXT; or go on with a research task "
                     "that was stopped with --go-on TASK_ID.")
    if not question.strip():
        such_as = runnable('research "What does the with statement do?"')
        raise Misuse(f"The question is empty: ask something, such as {such_as}.")
    try:  # (told before anything is printed or made: it printed "Researching in …" first)
        question.encode("utf-8")
    except UnicodeEncodeError as error:
        raise failure_of(error, where="The question") from None
    if price_spec is not None and model_spec is None:
        raise Misuse("--price goes with --model SPEC: without it, research uses the "
                     "offline reader, which costs nothing.")
    console = console_for_text()
    steps = max_steps if max_steps is not None else Researcher.max_steps
    budget = budget_usd if budget_usd is not None else Researcher.budget_usd
    show = Progress(console=console, quiet=as_json, max_steps=steps, budget_usd=budget)
    price = price_of(price_spec)
    model = model_of(model_spec or "offline", price, None if as_json else show.streamed,
                     timeout=timeout)
    # A model of a provider's is kept with the task by its spec, so that a yes to what the
    # task waits on (`--approve`) can make it again and go on.
    kept = None if is_offline(model) else ModelSpec(spec=str(model_spec), price=price,
                                                    timeout=timeout)
    url = database or default_database()
    building = None if as_json else (lambda words: console.print(f"[dim]{plain(words)}[/dim]"))
    try:
        corpus = _corpus_made(corpus_dir, building)
        app = research_app(corpus, database=url)
        person = _local_person(app)
    except SignoffError as error:
        raise failure_of(error) from None
    calm_at_exit()  # (before the traces' exporter: its flush at exit runs first)
    export_traces(app)
    if not as_json:
        sources = "source" if len(corpus) == 1 else "sources"
        console.print(f"Researching in {plain(corpus.name)} ({len(corpus)} {sources}) "
                      f"with [bold]{plain(model.name)}[/bold].")
        for note in corpus.notes:
            console.print(f"[dim]{plain(note)}[/dim]")
        if is_offline(model):
            console.print("[dim]It searches, reads the best matches, and quotes the sentences "
                          "about the question — or says that no answer can be cited from the "
                          "sources read; it writes nothing of its own.[/dim]")
    watched = Watched(model, show)
    shown = Shown(question=question, model=model.name, corpus=corpus, corpus_dir=corpus_dir,
                   max_steps=steps, budget_usd=budget, database=database, url=url,
                   asked_with=None if kept is None else (kept.spec, price_spec, timeout))
    began = datetime.now(UTC)
    try:
        with stopped_as_by_ctrl_c(), show.live(), outcome_shown():
            outcome = ask(app, question, model=watched, for_=person, max_steps=steps,
                          budget_usd=budget, model_spec=kept)
    except SignoffError as error:
        raise failure_of(error) from None
    except KeyboardInterrupt:  # (Ctrl-C) the task stays Running: how to go on with it
        tell_stopped(app, person, began, shown)
        sys.exit(EXIT_INTERRUPTED)
    with shown_to_its_end(outcome.task, outcome.status.value, shown):  # (Ctrl-C: shown so far)
        if as_json:
            _print_json(as_json_of(app, outcome, shown))
        else:
            print_outcome(console, show, app, outcome, shown)
    _exit_for(outcome)


def _print_json(value: Any) -> None:
    """Print `value` as JSON. A reader that stopped reading (`… --json | head -c 1`) has what it
    wanted: the exit code still says how the research ended (its console lets such a reader go
    as well, `console_for_text`, and the research goes on to its end)."""
    try:
        click.echo(json.dumps(value, indent=2))
    except BrokenPipeError:
        reader_gone()


def _corpus_made(corpus_dir: Path | None, building: Callable[[str], None] | None) -> Any:
    """The corpus in `corpus_dir` (else the default one), indexed first when it must be.
    Stopped while it is indexed (Ctrl-C, SIGTERM, SIGHUP), it says so and exits 130: nothing
    was asked or decided yet, and what was built so far is thrown away (it printed "Aborted!"
    and exited 1)."""
    from signoff.research.corpus import Corpus

    try:
        with stopped_as_by_ctrl_c():
            return (Corpus.from_folder(corpus_dir, on_build=building) if corpus_dir
                    else Corpus.default(on_build=building))
    except KeyboardInterrupt:
        click.echo("Stopped.", err=True)
        sys.exit(EXIT_INTERRUPTED)


def _exit_for(outcome: Any) -> None:
    if outcome.status is TaskStatus.FAILED:  # its model could not be used: not done
        sys.exit(EXIT_FAILED)
    if outcome.status is TaskStatus.HALTED:  # at a limit: refused to go on
        sys.exit(EXIT_REFUSED)


def _decide(question: str | None, *, approve_id: str | None, reject_id: str | None,
            reason: str | None, database: str | None, as_json: bool, corpus_dir: Path | None,
            model_spec: str | None, price_spec: str | None, timeout: float | None) -> None:
    """``--approve ID`` or ``--reject ID --reason TEXT``: decide a proposal of a research task,
    kept in research's database, as the person at the keyboard (for whom research runs, and
    whom its proposals are put to); then the research goes on, here, with the model it was
    started with (`--model` names another) in the corpus `--corpus` names, and its outcome
    is printed as research prints it. Nothing is decided when that corpus does not give what
    the task read (`_Going.check_corpus`)."""
    from signoff.agents.proposals import ProposalStatus
    from signoff.inbox import Inbox

    if question is not None:
        raise Misuse("Give a question, or decide a proposal with --approve or "
                     "--reject, not both.")
    if approve_id is not None and reject_id is not None:
        raise Misuse("Give --approve or --reject, not both: a proposal is decided "
                     "once.")
    if approve_id is not None and reason is not None:
        raise Misuse("--reason goes with --reject: a yes needs none.")
    if reject_id is not None and not (reason or "").strip():
        raise Misuse("Say why with --reason TEXT (such as --reason 'Not that site.'): "
                     "the agent is told it.")
    if approve_id is None and reject_id is None:
        raise Misuse("--reason goes with --reject PROPOSAL_ID.")
    # The corpus is made before anything is decided: the research goes on in it (its tools
    # are queries, which may not make an index), and a folder that cannot be read is told
    # while the proposal still waits.
    going = _Going.open(database, corpus_dir, as_json)
    try:
        given_id = str(approve_id or reject_id)
        proposal = by_whole_id("proposal", f"as `{runnable('research')}` prints it under the proposal",
                               given_id, lambda: Inbox(going.app).proposal(going.me, given_id))
    except SignoffError as error:
        raise failure_of(error) from None
    going.read(proposal.task)
    going.timeout = timeout
    if proposal.status is ProposalStatus.WAITING:  # (the research goes on in this corpus)
        def again(folder: Path | None) -> str:
            return going.shown("", folder, database, model_spec, price_spec).deciding(
                proposal.id)[0 if approve_id is not None else 1]

        going.check_corpus(again, going.asked_again(corpus_dir, database, model_spec, price_spec))
    # The model is made before anything is decided: a yes whose research could not go on
    # would leave it Running with nothing to take it on. A proposal decided already needs
    # none: the verb refuses it, in its own words (it was told to name a model, or to set
    # the model's key, to hear that).
    model = (going.model(model_spec, price_spec, timeout)
             if proposal.status is ProposalStatus.WAITING else None)
    try:
        decision = (going.app.approve(proposal, by=going.me) if approve_id is not None
                    else going.app.reject(proposal, by=going.me, reason=str(reason)))
    except SignoffError as error:
        raise failure_of(error) from None
    if model is None:  # (cannot be: a proposal that was decided is not decided again)
        raise Failure(f"Proposal {proposal.id} was decided already.", EXIT_REFUSED)
    decided = {"proposal": proposal.id, "task": proposal.task, "status": decision.status.value,
               "said": decision.said, "database": going.url}
    if not as_json:
        going.console.print(plain(visible(decision.said)))
    outcome = None
    if decision.task_status == TaskStatus.RUNNING.value:
        outcome = going.on(model, going.shown(model, corpus_dir, database, model_spec,
                                              price_spec))
    elif decision.task_status == TaskStatus.WAITING.value:  # on others: they are shown
        outcome = going.app.outcome(proposal.task)
    if outcome is not None:
        going.show(outcome, model, corpus_dir, database, model_spec, price_spec, decided)
    elif as_json:
        _print_json({**decided, "research": None})
    if decision.status not in (ProposalStatus.DONE, ProposalStatus.REJECTED):
        sys.exit(EXIT_REFUSED)
    if outcome is not None:
        _exit_for(outcome)


def _go_on(task_id: str, *, database: str | None, as_json: bool, corpus_dir: Path | None,
           model_spec: str | None, price_spec: str | None, timeout: float | None) -> None:
    """``--go-on TASK_ID``: go on with a research task that is still Running (its process
    stopped: an interrupt, a crash), here, with the model it was started with (`--model` names
    another), in the corpus `--corpus` names, which must give what the task read; a task that
    waits or has ended is shown as it stands. Its outcome is printed as research prints it."""
    from signoff.inbox import Inbox

    going = _Going.open(database, corpus_dir, as_json)
    try:
        by_whole_id("task", f"as `{runnable('tasks')}` lists it", task_id,  # (not theirs: NotFound)
                    lambda: Inbox(going.app).task(going.me, task_id))
    except SignoffError as error:
        raise failure_of(error) from None
    task = going.read(task_id)
    going.timeout = timeout
    if task.status == TaskStatus.RUNNING.value:
        going.check_corpus(
            lambda folder: going.shown("", folder, database, model_spec,
                                       price_spec).going_on(task_id),
            going.asked_again(corpus_dir, database, model_spec, price_spec))
        model = going.model(model_spec, price_spec, timeout)
        outcome = going.on(model, going.shown(model, corpus_dir, database, model_spec,
                                              price_spec))
        name = model.name
    else:
        outcome = going.app.outcome(task_id)
        name = going.kept.words if going.kept is not None and going.kept.spec else task.model
        model_spec = price_spec = None
    going.show(outcome, name, corpus_dir, database, model_spec, price_spec, None)
    _exit_for(outcome)


@dataclasses.dataclass(kw_only=True)
class _Going:
    """A research task to go on with, here: the research app over the corpus it goes on in, the
    person at the keyboard, the task as it was read (`read`), and its progress shown."""

    console: Any
    corpus: Any
    app: Any
    url: str
    me: Any
    as_json: bool
    task: Any = None
    kept: Any = None
    seen: list[Any] = dataclasses.field(default_factory=list)
    progress: Progress | None = None
    timeout: float | None = None
    """The timeout given with --timeout for the model --model names: the commands printed that
    name that model name it too."""

    @classmethod
    def open(cls, database: str | None, corpus_dir: Path | None, as_json: bool) -> _Going:
        """The research app on `database` (which must be there) over the corpus in
        `corpus_dir` (else the default corpus), made now: the research goes on in it, and its
        tools are queries, which may not make an index."""

        console = console_for_text()
        _research_url(database)  # (told before the corpus is made, when there is no database)
        building = None if as_json else (
            lambda words: console.print(f"[dim]{plain(words)}[/dim]"))
        try:
            corpus = _corpus_made(corpus_dir, building)
            app, url = _research_database(database, corpus)
            me = _local_person(app)
        except SignoffError as error:
            raise failure_of(error) from None
        calm_at_exit()
        export_traces(app)
        return cls(console=console, corpus=corpus, app=app, url=url, me=me, as_json=as_json)

    def read(self, task_id: str) -> Any:
        """Read task `task_id`, the model it keeps and its conversation so far; the task."""
        from signoff.agents import model_specs
        from signoff.agents import repository as repo

        try:
            with self.app.database.reading() as db:
                task = repo.load_task(db, task_id)
                self.kept = model_specs.recorded(db, task_id)
                self.seen = repo.messages_of(db, task_id)
        except SignoffError as error:
            raise failure_of(error) from None
        if task is None:  # (a proposal names its task: this is a database changed by hand)
            raise Failure(f"There is no research task {task_id}.", EXIT_NOT_FOUND)
        self.task = task
        self.progress = Progress(console=self.console, quiet=self.as_json,
                                 max_steps=task.max_steps, budget_usd=task.budget_usd)
        self.progress.spent = task.spend_usd
        return task

    def check_corpus(self, again: Callable[[Path | None], str], asked_again: str) -> None:
        """Refuse, before anything is decided or goes on, to go on in a corpus that does not
        give what the task's tools gave it: a source it read or found that this corpus has not,
        or has with another title or text (another folder, or a file edited since). Going on,
        the model could cite what it read there, and the answer would show this corpus's file
        as holding the quote. `again`: the command that goes on in the folder given (None: the
        default corpus); `asked_again`: the one that asks the question again, here."""
        from signoff.research.sources import python_docs_root
        from signoff.research.tools import fetch_url

        assert self.task is not None, "read first"
        seen = [s for s in seen_in(self.seen) if s.tool != fetch_url.action_name]
        # (what it read first: a source it only found is told as found)
        for s in sorted({(s.source_id, s.part, s.title, s.texts): s for s in seen}.values(),
                        key=lambda s: not s.origin):
            now = as_read_now(self.corpus, s)
            if now is True:
                continue
            task, sid = self.task.id, repr(s.source_id)
            if now is not None and s.origin and now.origin == s.origin:  # the very file
                raise Failure(
                    f"{sid} ({s.origin}) has changed since research task {task} read it: going "
                    "on, its answer could quote what the file said then as what it says now. "
                    "Nothing was decided (nor gone on with). Ask the question again to research "
                    "the sources as "
                    f"they are now: {asked_again}", EXIT_REFUSED)
            began, docs = began_in(seen), python_docs_root()
            if began is not None and docs is not None and began == docs.resolve():
                where, go_on = "Python's documentation, the default corpus", again(None)
            elif began is not None:
                where, go_on = str(began), again(began)
            else:
                where, go_on = "another corpus", ""
            raise Failure(
                f"Research task {task} {'read' if s.origin else 'found'} {sid} in {where}, "
                f"and {self.corpus.name} "
                f"{'has no' if now is None else 'has another'} {sid}: going on here, its answer "
                "could name a file that does not hold what it quotes. Nothing was decided (nor "
                "gone on with). Go "
                "on in the corpus it began in" + (f": {go_on}" if go_on else ", named as the "
                "commands research printed for the task name it (--corpus DIR; none for the "
                "default corpus)."), EXIT_REFUSED)

    def model(self, model_spec: str | None, price_spec: str | None,
              timeout: float | None = None) -> Model:
        """The model the task goes on with (see `going_on_with`)."""
        assert self.progress is not None, "read first"
        return going_on_with(self.task.id, model_spec, price_spec, self.kept, self.progress,
                             str(self.task.model or ""), timeout)

    def on(self, model: Model, shown: Shown) -> Any:
        """Go on with the task, here, with `model`, its steps shown; its outcome. Stopped
        (Ctrl-C), it says how to go on with it again (`shown`'s command) and exits 130 (it
        said "Aborted!" and exited 1, the task's id unsaid)."""
        from signoff.research.skill import Researcher

        assert self.progress is not None, "read first"
        self.progress.seen(m.tool_call_id for m in self.seen if m.role == "tool")
        if not self.as_json:  # (a folder left out when deciding by hand is the default corpus)
            self.console.print(f"The research goes on in {plain(self.corpus.name)} with "
                               f"[bold]{plain(model.name)}[/bold].")
        try:
            with stopped_as_by_ctrl_c(), self.progress.live(), outcome_shown():
                outcome = self.app.agent(Researcher).resume(self.task.id,
                                                            model=Watched(model, self.progress))
        except SignoffError as error:
            raise failure_of(error) from None
        except KeyboardInterrupt:
            click.echo(f"Stopped. The research task {self.task.id} stays Running; go on with "
                       f"it: {shown.going_on(self.task.id)}", err=True)
            sys.exit(EXIT_INTERRUPTED)
        if outcome.status is TaskStatus.RUNNING:  # (it said "No answer: Running", exit 0)
            raise Failure(f"The research task {self.task.id} is going on in another process, "
                          f"which holds it: wait for that to end, then see its answer with "
                          f"{shown.going_on(self.task.id)}", EXIT_REFUSED)
        return outcome

    def asked_again(self, corpus_dir: Path | None, database: str | None,
                    model_spec: str | None, price_spec: str | None) -> str:
        """The command that asks the task's question again, here, with the model `--model`
        names, else the one the task kept (its price and timeout too): the model it was
        researched with."""
        timeout = self.timeout
        if model_spec is None and self.kept is not None and self.kept.spec:
            model_spec, price, timeout = self.kept.spec, self.kept.price, self.kept.timeout
            price_spec = None if price is None else (
                f"{as_written(price.input_per_mtok)},{as_written(price.output_per_mtok)}")
        return self.shown("", corpus_dir, database, model_spec, price_spec,
                          timeout=timeout).asking()

    def shown(self, model: Model | str, corpus_dir: Path | None, database: str | None,
              model_spec: str | None, price_spec: str | None, *,
              timeout: float | None = None) -> Shown:
        """What the task's outcome is shown with: the commands printed name the folder, the
        database and the model named with --model, with its --price and --timeout (`timeout`,
        else the one given, `_Going.timeout`)."""
        subject = self.task.subject_json if isinstance(self.task.subject_json, dict) else {}
        return Shown(question=str(subject.get("question", "")),
                     model=model if isinstance(model, str) else model.name,
                     corpus=self.corpus, corpus_dir=corpus_dir, max_steps=self.task.max_steps,
                     budget_usd=self.task.budget_usd, database=database, url=self.url,
                     named_model=None if model_spec is None else (model_spec, price_spec),
                     timeout=None if model_spec is None else (
                         self.timeout if timeout is None else timeout))

    def show(self, outcome: Any, model: Model | str, corpus_dir: Path | None,
             database: str | None, model_spec: str | None, price_spec: str | None,
             decided: dict[str, Any] | None) -> None:
        """Print `outcome` as research prints it (after `decided`, the decision as JSON, when
        a decision came first); the commands printed name the model named with --model."""
        assert self.progress is not None, "read first"
        shown = self.shown(model, corpus_dir, database, model_spec, price_spec)
        with shown_to_its_end(outcome.task, outcome.status.value, shown):
            if self.as_json:
                found = as_json_of(self.app, outcome, shown)
                _print_json(found if decided is None else {**decided, "research": found})
            else:
                print_outcome(self.console, self.progress, self.app, outcome, shown)


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
    a usage error when it is not there. A folder where it should be is there: opening it
    says it is a folder, as `signoff research` does (`signoff tasks` said there were no
    research tasks, as if none had been asked yet)."""
    from signoff.research.skill import default_database

    url = database or default_database()
    path = Path(url.removeprefix("sqlite:///"))
    if url.startswith("sqlite:///") and not (path.is_file() or path.is_dir()):
        raise Misuse(f"There is no research database at {url}: name the one that "
                     "holds the task with --database URL, or, for a task of an app, "
                     f"{NAMING_THE_APP}.")
    return url


def _local_person(app: Any) -> Any:
    """The person at the keyboard, as the research app's directory knows them."""
    try:
        user = getpass.getuser()
    except (OSError, KeyError):  # no user name in this environment
        user = "you"
    # (a user name may hold what an e-mail address may not: "Ada Lovelace", "ada@corp")
    local = re.sub(r"[\s@\x00-\x1f\x7f]+", "-", user).strip("-") or "you"
    handle = f"{local}@localhost"
    found = app.people.find(handle)
    if found is not None:
        return found
    try:
        return app.people.add(handle, user)
    except (UserError, StoreError):  # another research, begun at once, added them first
        again = app.people.find(handle)
        if again is None:
            raise
        return again


def research_tasks(*, database: str | None = None, status: str | None = None,
                   as_json: bool = False) -> None:
    """Print the research tasks of the person at the keyboard kept in `database`
    (`default_database()` unless given), newest first, each with its question: for ``signoff
    tasks`` without an app (a research whose process was killed is found so, and gone on
    with)."""
    from signoff.agents import repository as repo
    from signoff.cli.people import every_page
    from signoff.inbox import Inbox

    try:
        app, url = _research_database(database)
    except Misuse:  # no research database: no research task, told so
        from signoff.research.skill import default_database

        if as_json:
            click.echo("[]")
            return
        console_for_text().print(
            f"No research tasks: there is no research database at "
            f"{plain(database or default_database())} (`{runnable('research')}` makes it). For "
            f"the tasks of an app, {NAMING_THE_APP}.")
        return
    try:
        me = _local_person(app)
        inbox, chosen = Inbox(app), TaskStatus(status) if status else None
        found = every_page(lambda after: inbox.tasks(me, status=chosen, after=after))
        with app.database.reading() as db:
            asked = {t.id: question_of(repo.load_task(db, t.id)) or "" for t in found}
        waiting = {t.id: [p.id for p in app.proposals(task=t.id, status=ProposalStatus.WAITING)]
                   for t in found if t.status is TaskStatus.WAITING}
    except SignoffError as error:
        raise failure_of(error) from None
    if as_json:
        click.echo(json.dumps([{**dataclasses.asdict(t), "question": asked[t.id]}
                               for t in found], indent=2, default=str))
        return
    console = console_for_text()
    where = "" if database is None else f" --database {shlex.quote(url)}"
    for t in found:
        question = asked[t.id] if len(asked[t.id]) <= 70 else asked[t.id][:69] + "…"
        console.print(f"{t.id}  {t.status.value:8} {plain(question, line=True)}  "
                      f"{t.steps} step{'' if t.steps == 1 else 's'}, {t.spend_words}")
        if t.status is TaskStatus.RUNNING:
            console.print("    Go on with it: "
                          f"{runnable(f'research --go-on {t.id}{where}')} (with the --corpus "
                          "it was started with, if another)")
        for proposal in waiting.get(t.id, ()):  # (a page to fetch: the commands that decide it)
            console.print(f"    Waits on {proposal}: "
                          f"{runnable(f'research --approve {proposal}{where}')}, or --reject "
                          f"{proposal} --reason … (with the --corpus it was started with, if "
                          f"another); or stop it: {runnable(f'stop {t.id}{where}')}")
    console.print(f"{len(found)} research task{'s' if len(found) != 1 else ''} in {plain(url)}.")


def research_stop(task_id: str, *, reason: str, database: str | None = None) -> Any:
    """Stop a research task kept in `database` (`default_database()` unless given) as the
    person at the keyboard, saying `reason`; where it then stands: for ``signoff stop TASK_ID``
    without an app. (A task waiting on a page nobody wants fetched could only be rejected, and
    its model went on.)"""
    from signoff.exceptions import UnknownId

    app, url = _research_database(database)
    try:
        return app.stop(task_id, by=_local_person(app), reason=reason)
    except UnknownId:
        of_an_app = ("" if database is not None else " Without --app, this stops a task of "
                     f"signoff research; to stop a task of an app, {NAMING_THE_APP}.")
        raise Failure(f"There is no research task {task_id} of yours in {url}.{of_an_app}",
                      EXIT_NOT_FOUND) from None


def research_task_kept(task_id: str) -> str | None:
    """The URL of research's own database (`default_database()`) when it keeps a task
    `task_id`, else None (none such, no database, one that cannot be read): for `signoff
    receipt` and `stop` of an app that has no such task, to name the command that reads it
    (with SIGNOFF_APP set, as the README's walk sets it, they read the app's tasks)."""
    from signoff.agents import repository as repo

    try:
        app, url = _research_database(None)
        try:
            with app.database.reading() as db:
                kept = repo.load_task(db, task_id) is not None
        finally:
            app.database.dispose()
    except (click.ClickException, SignoffError):
        return None
    return url if kept else None


def research_receipt(task_id: str, *, database: str | None = None, as_json: bool = False) -> None:
    """Print the receipt of a research task kept in `database` (`default_database()` unless
    given): for ``signoff receipt TASK_ID`` without an app."""
    app, url = _research_database(database)
    try:
        found = app.receipt(task_id)
    except AgentRefused:
        of_an_app = ("" if database is not None else " Without --app, this shows a task of "
                     f"signoff research; to show a task of an app, {NAMING_THE_APP}.")
        raise Failure(f"There is no research task {task_id} in {url}.{of_an_app}",
                      EXIT_NOT_FOUND) from None
    except SignoffError as error:
        raise failure_of(error) from None
    if as_json:
        click.echo(json.dumps({**dataclasses.asdict(found), "cost_usd": found.cost_usd},
                              indent=2, default=str))
        return
    console = console_for_text()
    for entry in found.entries:
        console.print(f"{entry.at:%H:%M:%S}  {plain(entry.words)}")
    console.print(f"Status: {plain(str(found.status))}. Cost: {plain(found.cost_words)}.")
