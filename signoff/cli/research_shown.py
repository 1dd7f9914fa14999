"""How ``signoff research`` shows a research task: live progress as it works (each step, the
spend against the budget, each tool call and what it answered), then its outcome — the answer
with numbered citations, or why there is none, the receipt, and what waits for approval with
the commands that decide it — as text or as JSON (`signoff.cli.research` runs the task). The
sources an answer cites are shown as the task's own tools gave them (`seen_in`), and
`as_read_now` says whether a corpus still gives them so, before a task goes on in it.

A declining answer is shown as what was checked (what the task searched for, and the closest
sources, which its tools returned), in signoff's words; the model's reason follows, marked as
its own words, not checked against the sources: it may say anything. Its first line says what
the task did, as its journal tells it (`_declined_headline`): no answer could be cited from the
sources it read, or its searches found none, or it declined with nothing searched or read.

Everything a source holds is shown as written: no Rich markup or emoji shortcode in it is
interpreted, and its control characters (escape sequences) are shown as ``\x1b``-style escapes,
never sent to the terminal.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from signoff.cli import runnable
from signoff.cli.failures import in_command_words, problem_told, reader_gone
from signoff.cli.terminal import visible
from signoff.exceptions import NotFound
from signoff.models.base import Message, Model, Price, Reply, ToolSpec

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["Progress", "Seen", "Shown", "Watched", "as_json_of", "as_read_now", "as_written",
           "began_in", "console_for_text", "plain", "print_outcome", "seen_in"]


@dataclasses.dataclass(frozen=True, kw_only=True)
class Shown:
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
    timeout: float | None = None
    """The timeout given with --timeout for `named_model`: the commands printed name it again
    with the model (without it, the model named would wait as long as its provider's default)."""
    asked_with: tuple[str, str | None, float | None] | None = None
    """The model the question was asked with (its spec, price and timeout), when the task keeps
    it and the commands that go on with the task need not name it: the command that asks the
    question again does (without it, it would ask the offline reader)."""

    def deciding(self, proposal: str) -> tuple[str, str]:
        """The commands that approve and reject `proposal`, runnable as written: they name
        the database and the corpus folder when they are not the default, and the model when
        the research goes on with one the task does not keep."""
        where = self._where()
        return (runnable(f"research --approve {shlex.quote(proposal)}{where}"),
                runnable(f"research --reject {shlex.quote(proposal)} --reason "
                         f"{shlex.quote('…')}{where}"))

    def going_on(self, task_id: str) -> str:
        """The command that goes on with research task `task_id`, runnable as written."""
        return runnable(f"research --go-on {shlex.quote(task_id)}{self._where()}")

    def asking(self) -> str:
        """The command that asks the question again, runnable as written: with the model it
        was asked with, and its step and spend limits when they are not the Researcher's."""
        from signoff.research.skill import Researcher

        where = self._where()
        if self.named_model is None and self.asked_with is not None:
            where += _model_options(*self.asked_with)
        if self.max_steps != Researcher.max_steps:
            where += f" --max-steps {self.max_steps}"
        if self.budget_usd != Researcher.budget_usd:
            where += f" --budget {as_written(self.budget_usd)}"
        return runnable(f"research {shlex.quote(self.question)}{where}")

    def _where(self) -> str:
        where = "" if self.database is None else f" --database {shlex.quote(self.url)}"
        if self.corpus_dir is not None:  # (whole: the command may be run from anywhere)
            where += f" --corpus {shlex.quote(str(self.corpus_dir.absolute()))}"
        if self.named_model is not None:
            where += _model_options(*self.named_model, self.timeout)
        return where


def _model_options(spec: str, price: str | None, timeout: float | None) -> str:
    """The options that name a model, as a command line gives them: ``--model``, and its
    ``--price`` and ``--timeout`` when given (the timeout as exactly as it was given: 0.25
    stays 0.25, 1234567 is not cut to 1.23457e+06)."""
    options = f" --model {shlex.quote(spec)}"
    if price is not None:
        options += f" --price {shlex.quote(price)}"
    if timeout is not None:
        options += f" --timeout {shlex.quote(as_written(timeout))}"
    return options


def as_written(number: float) -> str:
    """`number` as a command line takes it back, exactly: a whole number without its ".0",
    any other with every digit it has (``f"{n:g}"`` cut 0.123456789 to 0.123457)."""
    return str(int(number)) if float(number).is_integer() else repr(float(number))


def waiting_of(app: Any, outcome: Any) -> list[Any]:
    return [p for p in app.proposals(task=outcome.task) if p.status.value == "Waiting"]


def as_json_of(app: Any, outcome: Any, shown: Shown) -> dict[str, Any]:
    """The outcome of a research task, as `--json` prints it."""
    result = outcome.result
    declined = result.declined if result else None
    sources = _sources(app, outcome, shown.corpus)
    return {
        "question": shown.question, "status": outcome.status.value, "task": outcome.task,
        "model": shown.model, "corpus": shown.corpus.name, "notes": list(shown.corpus.notes),
        "answer": result.model_dump(mode="json") if result else None,
        "declined": declined is not None,
        "decline": _decline_of(declined, _declined_headline(app, outcome, shown.model),
                               sources, shown.model) if declined else None,
        "sources": sources, "problem": outcome.problem, "steps": outcome.steps,
        "max_steps": shown.max_steps, "spend_usd": outcome.spend_usd,
        "budget_usd": shown.budget_usd if math.isfinite(shown.budget_usd) else None,
        "waiting": [{"proposal": p.id, "action": p.action, "arguments": p.arguments,
                     "decide_by": p.decide_by,
                     **dict(zip(("approve", "reject"), shown.deciding(p.id), strict=True))}
                    for p in waiting_of(app, outcome)],
        "database": shown.url,
    }


def print_outcome(console: Any, show: Progress, app: Any, outcome: Any, shown: Shown) -> None:
    """Print the outcome of a research task: what its tools answered last, the answer (or
    why there is none), the receipt, and what waits for approval with the commands that
    decide it."""
    receipt = app.receipt(outcome.task)
    sources = _sources(app, outcome, shown.corpus)
    last = _after_last_model_call(receipt.entries)
    if _last_turn_asked(receipt.entries):  # what its tools answered, as each turn's is shown
        from signoff.agents import repository as repo

        with app.database.reading() as db:
            messages = repo.messages_of(db, outcome.task)
        asked = max((i for i, m in enumerate(messages) if m.role == "assistant"), default=-1)
        show.answers(messages[asked:])
        last = [e for e in last if e.kind != "tool_call"]
    show.last_turn([e.words for e in last])
    _print_answer(console, outcome, sources, shown.model,
                  _declined_headline(app, outcome, shown.model))
    # With an app named by SIGNOFF_APP, a bare `signoff receipt` would look in that app.
    again = "" if shown.database is None and not os.environ.get("SIGNOFF_APP") else (
        f" --database {plain(shlex.quote(shown.url))}")
    console.print(f"\nReceipt: task {outcome.task} — {outcome.steps} step(s), "
                  f"${outcome.spend_usd:.4f}{_of_budget(shown.budget_usd)}; kept in "
                  f"{plain(shown.url)}. See it with: "
                  f"{plain(runnable(f'receipt {outcome.task}'))}{again}")
    waiting = waiting_of(app, outcome)
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


class Watched:
    """The chosen model, watched: each call shows its step, and the answers of the turn before."""

    def __init__(self, model: Model, show: Progress) -> None:
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


class Progress:
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
        return (f"Step {step} of {self.max_steps} · ${self.spent:.4f}"
                f"{_of_budget(self.budget_usd)} spent")

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
            self.console.print(f"  → {plain(call.name)} {plain(shown, line=True)}")

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
            self.console.print(f"  ← {plain(tool)}: {plain(_outcome(tool, message.text), line=True)}")

    def last_turn(self, lines: list[str]) -> None:
        if self.quiet:
            return
        for line in lines:
            self.console.print(f"  ← {plain(_short(in_command_words(line), 300), line=True)}")


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


def _last_turn_asked(entries: Sequence[Any]) -> bool:
    """Whether the receipt's last turn began with a model call (not a decision, nor the task
    going on after one, whose calls were told with the decision)."""
    kinds = [e.kind for e in entries if e.kind in ("model_call", "decision", "resumed")]
    return bool(kinds) and kinds[-1] == "model_call"


def _sources(app: Any, outcome: Any, corpus: Any) -> dict[str, dict[str, str]]:
    """The title and origin of each source the outcome's answer cites (or, when it declines,
    names as the closest), as the task's own tools gave them when it read them: a source read
    or a page fetched, by what that answer said; one only searched, by the title its search
    gave (its origin the corpus's, when the corpus still gives that title). Not by what
    `corpus` says of that id today: the task may have read another corpus, or a file since
    edited (a citation named another file than the one quoted)."""
    result = outcome.result
    declined = result.declined if result else None
    source_ids = declined.closest if declined is not None else (
        result.source_ids if result else [])
    if not source_ids:
        return {}
    from signoff.agents import repository as repo

    with app.database.reading() as db:
        told = _told_of(seen_in(repo.messages_of(db, outcome.task)))
    found: dict[str, dict[str, str]] = {}
    for sid in source_ids:
        title, origin = told.get(sid, ("", ""))
        if not origin:  # (searched only, or not told at all: the corpus says where it is)
            title = title or corpus.title_of(sid)
            origin = corpus.origin_of(sid) if title and corpus.title_of(sid) == title else ""
        found[sid] = {"title": title or sid, "origin": origin or sid}
    return found


def _told_of(seen: Sequence[Seen]) -> dict[str, tuple[str, str]]:
    """Each source's title and origin as the task's tools first gave them: a source read (or
    fetched) by what its reading said, else by its first search hit ("" its origin)."""
    told: dict[str, tuple[str, str]] = {}
    for s in seen:
        if s.origin and not told.get(s.source_id, ("", ""))[1]:
            told[s.source_id] = (s.title, s.origin)
        else:
            told.setdefault(s.source_id, (s.title, ""))
    return told


@dataclasses.dataclass(frozen=True, kw_only=True)
class Seen:
    """What a tool of a research task gave of one source: the part of it read, a page fetched,
    or a search's hit."""

    tool: str
    """The tool that gave it: ``search_sources``, ``read_source`` or ``fetch_url``."""
    source_id: str
    part: int
    """The part of the source (a search hit: the part that matched)."""
    title: str
    origin: str
    """Where it comes from, as read ("" for a search hit, which does not say)."""
    texts: tuple[str, ...]
    """Its text, as read or fetched; a search hit's: the pieces of its snippet."""


def seen_in(messages: Sequence[Message]) -> list[Seen]:
    """What the tools of a task's conversation (`messages`) gave of each source, in order: each
    part read, page fetched and search hit. Refusals, in words, gave nothing."""
    seen: list[Seen] = []
    names: dict[str, str] = {}
    for message in messages:
        if message.role == "assistant":
            names = {c.id: c.name for c in message.tool_calls}  # (ids are a turn's own)
            continue
        if message.role != "tool":
            continue
        try:
            value = json.loads(message.text)
        except (ValueError, RecursionError):
            continue  # a refusal, or a person's decision, in words
        if not isinstance(value, dict):
            continue
        tool = names.get(message.tool_call_id, "")
        if isinstance(value.get("hits"), list):
            seen.extend(Seen(tool=tool, source_id=hit["source_id"], part=_part(hit),
                             title=str(hit.get("title", "")), origin="",
                             texts=tuple(p for p in str(hit.get("snippet", "")).split("…")
                                         if p.strip()))
                        for hit in value["hits"]
                        if isinstance(hit, dict) and isinstance(hit.get("source_id"), str))
        elif isinstance(value.get("source_id"), str) and isinstance(value.get("text"), str):
            seen.append(Seen(tool=tool, source_id=value["source_id"], part=_part(value),
                             title=str(value.get("title", "")),
                             origin=str(value.get("origin", "")), texts=(value["text"],)))
    return seen


def as_read_now(corpus: Any, seen: Seen) -> Any:
    """True when `corpus` gives what a task's tool gave of a source (`seen`): the same title,
    and the text read (or a search hit's snippet) in the same part; else the part the corpus
    gives now (None: it has no such source or part)."""
    from signoff.limits.grounding import normalise

    try:
        now = corpus.read(seen.source_id, part=seen.part)
    except NotFound:
        return None
    text = normalise(now.text)
    return True if now.title == seen.title and all(
        normalise(piece) in text for piece in seen.texts) else now


def began_in(seen: list[Seen]) -> Path | None:
    """The folder a task read its sources in, as the origin of a source it read tells it (the
    file's path, which ends with the source's id); None when none tells (a task that only
    searched; Python's help topics)."""
    for s in seen:
        origin, named = Path(s.origin), Path(s.source_id).parts
        if s.origin and origin.is_absolute() and named and origin.parts[-len(named):] == named:
            return Path(*origin.parts[: -len(named)])
    return None


def _part(value: dict[str, Any]) -> int:
    part = value.get("part", 1)
    return part if isinstance(part, int) and not isinstance(part, bool) else 1


def _declined_headline(app: Any, outcome: Any, model: str) -> str:
    """The first line of an answer that declines, in signoff's words of what the task did, as
    its journal tells it (not what the answer says of itself): no answer can be cited from the
    sources it read; or its searches found no source; or it read and searched nothing (a
    question that names nothing, a model that declined at once, a fetch refused)."""
    from signoff.agents import repository as repo

    with app.database.reading() as db:
        messages = repo.messages_of(db, outcome.task)
    if seen_in(messages):
        return "No answer can be cited from the sources read."
    searches = sum(1 for m in messages if m.role == "tool" and _hits_in(m.text))
    if searches:
        return ("No answer: the search found no source." if searches == 1 else
                f"No answer: none of its {searches} searches found a source.")
    return f"No answer: the {_reasoner(model)} declined without searching or reading a source."


def _hits_in(answer: str) -> bool:
    """Whether a tool's `answer` is a search's (its hits, however many)."""
    try:
        value = json.loads(answer)
    except (ValueError, RecursionError):
        return False  # a refusal, or a person's decision, in words
    return isinstance(value, dict) and isinstance(value.get("hits"), list)


def _print_answer(console: Any, outcome: Any, sources: dict[str, dict[str, str]],
                  model: str, headline: str) -> None:
    declined = outcome.result.declined if outcome.done and outcome.result else None
    if declined is not None:  # what was checked, in signoff's words; then the model's own
        console.print(f"\n[bold]{plain(headline)}[/bold]")
        if declined.searched:
            console.print("  Searched for: " + ", ".join(f"“{plain(q)}”"
                                                        for q in declined.searched))
        if declined.closest:
            console.print("  The closest sources:")
            for sid in declined.closest:
                title = sources.get(sid, {}).get("title", sid)
                console.print(f"    {plain(sid, line=True)} — {plain(title, line=True)}")
        reason = " ".join(declined.reason.split())
        console.print(f"  The {_reasoner(model)}'s reason, not checked against the sources: "
                      f"“{plain(reason, line=True)}”")
        return
    if not outcome.done:
        why = problem_told(outcome.problem) or (f"it waits on {outcome.waits_on}"
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
        console.print(f"  \\[{number}] {plain(sid, line=True)} — {plain(title, line=True)}\n"
                      f"      “{plain(' '.join(quote.split()))}”")


def _decline_of(declined: Any, headline: str, sources: dict[str, dict[str, str]], model: str
                ) -> dict[str, Any]:
    """An answer that declines, as ``--json`` tells it beside the answer itself: in signoff's
    own words what was checked (`headline`, what the task searched for, and the closest
    sources, which its tools returned), and the model's reason apart, marked as not checked:
    it is the model's words, which may say anything (a claim the sources do not make, too)."""
    said = headline
    if declined.searched:
        said += " It searched for " + ", ".join(f"“{q}”" for q in declined.searched) + "."
    if declined.closest:
        said += " The closest sources: " + ", ".join(
            f"{sid} ({sources.get(sid, {}).get('title', sid)})" for sid in declined.closest
        ) + "."
    return {"said": said, "searched": list(declined.searched),
            "closest": list(declined.closest), "reason": declined.reason,
            "reason_by": model,
            "reason_checked": False}


def _reasoner(model: str) -> str:
    """Who gave a declining answer's reason: the offline "reader" (not a language model), or
    the "model"."""
    from signoff.research.extractive import ExtractiveModel

    return "reader" if model == ExtractiveModel.name else "model"


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
        return "an answer that declines (no claims)"
    count = len(claims) if isinstance(claims, list) else 0
    return f"an answer of {count} claim{'s' if count != 1 else ''}"


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def plain(text: str, *, line: bool = False) -> str:
    """`text` as written, to print with Rich: its markup escaped (so none is interpreted), and
    its control characters shown as escapes (so none reaches the terminal); its line breaks
    too, for what is one `line` (a source's id or title: a file named with a line break printed
    lines that read as citations of their own)."""
    from rich.markup import escape

    shown = visible(text)
    return escape(shown.replace("\n", "\\n").replace("\t", "\\t") if line else shown)


def console_for_text() -> Any:
    """A console that prints text as written: no emoji shortcodes, no highlighting. Once the
    reader of stdout stops reading (`signoff research … | head -1`), what it prints goes
    nowhere, and the work goes on to its end (`_console_class`)."""
    return _console_class()(highlight=False, soft_wrap=True, emoji=False)


@functools.cache
def _console_class() -> type[Console]:
    """Rich's console, but for a reader that stops reading: Rich's own ends the process there,
    exit 1 in silence, from whatever printed — a research task's step, which was left Running
    (found again only with ``--go-on``). Made when first asked for: Rich is imported then."""
    from rich.console import Console

    class Unread(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True  # (what it prints from now on is dropped)
            reader_gone()

    return Unread


def _of_budget(budget_usd: float) -> str:
    """How much a spend is of: " of $0.50", or nothing with no budget (``--budget inf``)."""
    return f" of ${budget_usd:.2f}" if math.isfinite(budget_usd) else " (no budget)"
