"""The people's commands: proposals, approve, reject, rules, tasks, receipt, agents."""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, is_dataclass
from datetime import datetime
from enum import Enum
from typing import Any, TypeVar

import click

from signoff.agents import model_specs
from signoff.agents.deadlines import when
from signoff.agents.proposals import ProposalStatus
from signoff.agents.rules import StandingRule
from signoff.agents.tasks import TaskStatus
from signoff.cli import (
    APP_OPTION,
    AS_OPTION,
    EXIT_REFUSED,
    JSON_OPTION,
    TOKEN_OPTION,
    app_option_words,
    given,
    listing_proposals,
    load_app,
    main,
    not_empty,
    revoking_a_rule,
    whoami,
)
from signoff.cli.failures import Failure, Misuse, by_whole_id, whole_id
from signoff.cli.invocation import commands_as_run, runnable
from signoff.cli.otlp import export_traces
from signoff.cli.terminal import say
from signoff.exceptions import NotFound, UserError
from signoff.inbox import Inbox

__all__: list[str] = []

T = TypeVar("T")


def _json_default(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, datetime):
        return value.isoformat()
    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    return str(value)


def _print_json(data: Any) -> None:
    if is_dataclass(data) and not isinstance(data, type):
        data = asdict(data)
    elif isinstance(data, list):
        data = [asdict(d) if is_dataclass(d) and not isinstance(d, type) else d for d in data]
    click.echo(json.dumps(data, indent=2, default=_json_default))


def every_page(page_of: Any) -> list[Any]:
    """Every item of a listing, page after page (`page_of(after)` gives the page after the
    cursor `after`, None for the first)."""
    items: list[Any] = []
    after = None
    while True:
        page = page_of(after)
        items.extend(page.items)
        if page.next is None:
            return items
        after = page.next


def _proposal_line(p: Any, decided_by: str) -> str:
    """One proposal on a line: who is to decide it (and by when), or who decided it (and the
    changes they approved it with)."""
    shown = ", ".join(f"{k}={_on_one_line(v)}" for k, v in p.shown.items())
    deadline = f", by {when(p.deadline_at)}" if (
        p.deadline_at and p.status is ProposalStatus.WAITING) else ""
    who = (f"to be decided by {p.decide_by}{deadline}" if p.status is ProposalStatus.WAITING
           else f"decided by {decided_by}" if decided_by else f"was for {p.decide_by}")
    changes = f", approved with changes: {_changes(p)}" if p.edited else ""
    return f"{p.id}  {p.status.value:9} {p.agent}: {p.label} ({shown}) — {who}{changes}"


def _on_one_line(value: Any) -> str:
    """`value` with each line break shown as ``\\n``: what an agent wrote keeps a listing's
    proposal to its line, and cannot pose as another proposal of it."""
    return str(value).replace("\r\n", "\\n").replace("\n", "\\n")


def _hanging(head: str, text: str) -> str:
    """`text` after `head`, each of its further lines indented under the first: what an agent
    wrote (a value, why it asked, what a tool answered) cannot pose as a line of the command's
    own ("To be decided by: …"), as the notifications' mail keeps it. (Split at line feeds
    alone: any other control character is shown as an escape, `visible`.)"""
    lines = text.split("\n")
    return "\n".join([head + lines[0], *(" " * len(head) + line for line in lines[1:])])


def _changes(p: Any) -> str:
    """The values a decider changed before the call ran, each beside what the agent proposed:
    "price 40 (proposed 45)"."""
    def plain(value: Any) -> str:
        return value if isinstance(value, str) else json.dumps(value)
    return ", ".join(
        f"{name} {plain(value)} (proposed {p.shown.get(name, plain(p.arguments.get(name)))})"
        for name, value in (p.edited or {}).items())


@main.group(invoke_without_command=True)
@APP_OPTION
@AS_OPTION
@TOKEN_OPTION
@click.option("--all", "everything", is_flag=True, help="Every proposal, not only yours to decide.")
@click.option("--status", type=click.Choice(["Waiting", "Done", "Failed", "Rejected", "Stale",
                                             "Withdrawn", "Approved"], case_sensitive=False),
              help="Only this status (in any case: waiting, Waiting).")
@JSON_OPTION
@click.pass_context
def proposals(ctx: click.Context, app_spec: str | None, as_handle: str | None, token: str | None,
              everything: bool, status: str | None, as_json: bool) -> None:
    """The proposals you may decide now (or, with --all, every proposal you may see).

    \b
    Examples:
      signoff proposals --app examples/workshop.py --as noor@workshop.example
      signoff proposals show PROPOSAL_ID --app examples/workshop.py --as noor@workshop.example --json
    """
    ctx.ensure_object(dict)
    ctx.obj.update(app_spec=app_spec, as_handle=as_handle, token=token)
    if ctx.invoked_subcommand is not None:
        return
    app = load_app(app_spec)
    me = whoami(app, as_handle, token)
    inbox = Inbox(app)
    if everything or status:
        wanted = ProposalStatus(status) if status else None
        found = every_page(lambda after: inbox.proposals(me, status=wanted, after=after))
    else:
        found = every_page(lambda after: inbox.proposals(me, after=after))
    echo_proposals(found, as_json=as_json, people=app.people, freshness=inbox.freshness)


def echo_proposals(found: list[Any], *, as_json: bool, people: Any,
                   freshness: Callable[[Any], Any] | None) -> None:
    """Proposals printed one a line, each waiting one that is no longer fresh followed by why
    a yes would not run it (unless `freshness` is None: not known now), and how many (or as
    JSON); `people` names who decided."""
    if as_json:
        _print_json(found)
        return
    for p in found:
        decider = people.find(p.decided_by) if p.decided_by else None
        say(_proposal_line(p, decider.name if decider else ""))
        if p.status is ProposalStatus.WAITING and freshness is not None:
            fresh = freshness(p)
            if not fresh.fresh:
                say(f"    Not fresh: {fresh.words}")
    say(f"{len(found)} proposal{'s' if len(found) != 1 else ''}.")


def _proposal(inbox: Inbox, me: Any, proposal_id: str) -> Any:
    """The proposal `me` may see with id `proposal_id`; `NotFound` otherwise (see `_by_id`)."""
    return by_whole_id("proposal", f"as `{listing_proposals()}` lists it", proposal_id,
                       lambda: inbox.proposal(me, proposal_id))


def _by_id(kind: str, listed_by: str, given_id: str, find: Callable[[], T]) -> T:
    """What `find` finds by `given_id` (`by_whole_id`), the command that lists it named."""
    return by_whole_id(kind, f"as `{runnable(listed_by + app_option_words())}` lists it",
                       given_id, find)


def _of_research(app_spec: str | None, database: str | None) -> bool:
    """Whether a command that reads a task (`tasks`, `receipt`, `stop`) reads `signoff
    research`'s: no app is named, or `--database` is given and the app is named only by
    SIGNOFF_APP (which `signoff research` then prints its commands with)."""
    from_environment = click.get_current_context().get_parameter_source(
        "app_spec") is click.core.ParameterSource.ENVIRONMENT
    return not app_spec or (database is not None and from_environment)


def _of_group(ctx: click.Context, app_spec: str | None, as_handle: str | None,
              token: str | None) -> tuple[Any, Any]:
    """The app and who acts, from a subcommand's own options or else its group's."""
    given = ctx.obj or {}
    app = load_app(app_spec or given.get("app_spec"))
    return app, whoami(app, as_handle or given.get("as_handle"), token or given.get("token"))


@proposals.command(name="show")
@click.argument("proposal_id", callback=given)
@APP_OPTION
@AS_OPTION
@TOKEN_OPTION
@JSON_OPTION
@click.pass_context
def show_proposal(ctx: click.Context, proposal_id: str, app_spec: str | None,
                  as_handle: str | None, token: str | None, as_json: bool) -> None:
    """One proposal whole: the call in words, why, evidence, effects, and whether it is fresh.

    \b
    Examples:
      signoff proposals show PROPOSAL_ID --app examples/workshop.py --as noor@workshop.example
      signoff proposals show PROPOSAL_ID --app examples/workshop.py --as noor@workshop.example --json
    """
    app, me = _of_group(ctx, app_spec, as_handle, token)
    inbox = Inbox(app)
    p = _proposal(inbox, me, proposal_id)
    freshness = inbox.freshness(p)
    decider = app.people.find(p.decided_by) if p.decided_by else None
    if as_json:
        data = asdict(p)
        data["fresh"] = freshness.fresh
        data["freshness"] = freshness.words
        data["decided_by_name"] = decider.name if decider else None
        _print_json(data)
        return
    say(f"{p.agent} proposes: {p.label}")
    for name, value in p.shown.items():
        say(_hanging(f"  {name}: ", str(value)))
    say(_hanging("Why: ", p.why or "(it did not say)"))
    if p.labels:
        say("Outside content may have steered it:")
        for label in p.labels:
            say(f"  - {label.words}")
    say("What it does:")
    for line in inbox.effects(p):
        say(f"  - {line.words}" + (f" ({line.code})" if line.code else ""))
    say("What it did before it asked:")
    for e in p.evidence or ():
        say(_hanging("  - ", f"{e.tool}({e.arguments}) → {e.answer}"))
    if not p.evidence:
        say("  (nothing)")
    if p.status is ProposalStatus.WAITING:
        say(f"To be decided by: {p.decide_by}. Status: Waiting.")
        if p.deadline_at:
            say(f"Deadline: {inbox.deadline(p)}")
        say("Fresh: yes." if freshness.fresh else f"Stale: {freshness.words}")
    else:
        who = decider.name if decider else (
            "nobody" if p.decided_by is None else "someone no longer known")
        say(f"Decided by: {who}. Status: {p.status.value}."
                   + (f" {p.reason}" if p.reason and p.status is not ProposalStatus.DONE else ""))
        if p.edited:
            say(f"Approved with changes: {_changes(p)}.")


def _values(pairs: tuple[str, ...]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not name:
            raise Misuse(f"--set takes NAME=VALUE, not {pair!r}.")
        if name in values:
            raise Misuse(f"--set gives {name} twice: give each value once.")
        try:
            values[name] = json.loads(text)
        except (ValueError, RecursionError):  # not JSON (or absurdly nested): the text itself
            values[name] = text
    return values


@main.command()
@click.argument("proposal_id", callback=given)
@APP_OPTION
@AS_OPTION
@TOKEN_OPTION
@click.option("--always", is_flag=True, help="And from now on, let the agent do this alone "
              "(in the work this proposal is in).")
@click.option("--set", "changes", multiple=True, metavar="NAME=VALUE",
              help="Change an argument before it runs (repeatable; JSON values).")
@JSON_OPTION
def approve(proposal_id: str, app_spec: str | None, as_handle: str | None, token: str | None,
            always: bool, changes: tuple[str, ...], as_json: bool) -> None:
    """Say yes: the call runs now, as you and the agent together (only what both may).

    --set changes an argument's value (the price, say), never what the call acts on (the
    record) nor the tool. --always also makes a standing rule, and says what it covers.

    \b
    Examples:
      signoff approve PROPOSAL_ID --app examples/workshop.py --as noor@workshop.example
      signoff approve PROPOSAL_ID --set price=42 --app examples/workshop.py --as noor@workshop.example
      signoff approve PROPOSAL_ID --always --app examples/workshop.py --as noor@workshop.example
    """
    app = load_app(app_spec)
    export_traces(app)
    me = whoami(app, as_handle, token)
    inbox = Inbox(app)
    proposal = _proposal(inbox, me, proposal_id)
    try:
        decision = app.approve(proposal, by=me, always_like_this=always,
                               edited=_values(changes) or None)
    except UserError:
        if _declared(app, proposal.agent):
            raise
        raise _not_fresh(inbox, proposal) from None
    if as_json:
        _print_json(decision)
    else:
        say(decision.said)
        if decision.task_problem:
            say(f"The task is still Running: {decision.task_problem}")
        if decision.rule is not None:
            say(rule_words(app, decision.rule))
    if decision.status is not ProposalStatus.DONE:
        raise SystemExit(EXIT_REFUSED)


def _declared(app: Any, agent: str) -> bool:
    """Whether the app this command loaded declares the agent named `agent`."""
    try:
        app.agent(agent)
    except UserError:
        return False
    return True


def _not_fresh(inbox: Inbox, proposal: Any) -> Failure:
    """The refusal of a yes to `proposal`, whose agent the app this command loaded does not
    declare (it was proposed by an app that did: a script beside it), in the words `signoff
    proposals` lists it with; nothing was decided, and a no still ends it."""
    no = runnable(f"reject {proposal.id} --reason TEXT{app_option_words()}")
    return Failure(f"Not fresh: {inbox.freshness(proposal).words} Nothing was decided: declare "
                   f"{proposal.agent} in the app this command loads, or say no with `{no}`.",
                   EXIT_REFUSED)


@main.command()
@click.argument("proposal_id", callback=given)
@click.option("--reason", required=True, help="Why not: the agent is told it.")
@APP_OPTION
@AS_OPTION
@TOKEN_OPTION
@JSON_OPTION
def reject(proposal_id: str, reason: str, app_spec: str | None, as_handle: str | None,
           token: str | None, as_json: bool) -> None:
    """Say no, with a reason the agent is told.

    \b
    Example:
      signoff reject PROPOSAL_ID --reason "Too dear." --app examples/workshop.py --as noor@workshop.example
    """
    app = load_app(app_spec)
    export_traces(app)
    me = whoami(app, as_handle, token)
    decision = app.reject(_proposal(Inbox(app), me, proposal_id), by=me, reason=reason)
    if as_json:
        _print_json(decision)
    else:
        say(decision.said)
        if decision.task_problem:
            say(f"The task is still Running: {decision.task_problem}")


@main.group(invoke_without_command=True)
@APP_OPTION
@AS_OPTION
@TOKEN_OPTION
@click.option("--active", is_flag=True, help="Only rules still in force.")
@JSON_OPTION
@click.pass_context
def rules(ctx: click.Context, app_spec: str | None, as_handle: str | None, token: str | None,
          active: bool, as_json: bool) -> None:
    """The standing rules ("from now on, alone"), with their uses.

    \b
    Examples:
      signoff rules --app examples/workshop.py --as noor@workshop.example --active
      signoff rules revoke RULE_ID --why "Too dear." --app examples/workshop.py --as noor@workshop.example
    """
    ctx.ensure_object(dict)
    ctx.obj.update(app_spec=app_spec, as_handle=as_handle, token=token)
    if ctx.invoked_subcommand is not None:
        return
    app = load_app(app_spec)
    echo_rules(app, whoami(app, as_handle, token), active=active, as_json=as_json)


def echo_rules(app: Any, me: Any, *, active: bool, as_json: bool, inbox: Inbox | None = None
               ) -> None:
    """Print the standing rules `me` may see (see `rules`), in the words of `inbox` (the app's
    own, unless given)."""
    inbox = inbox or Inbox(app)
    found = inbox.rules(me, active_only=active)
    if as_json:
        _print_json(found)
        return
    for r in found:
        more = inbox.outgrown(r)
        if more:
            say(f"{r.id}  In force but holding for nothing, used {r.used}×: {inbox.covers(r)}. "
                f"{r.tool} does more than when it was made (it now also {more}), so it lets "
                "nothing run alone: make a new rule if it should.")
            continue
        if r.active:
            say(f"{r.id}  In force, used {r.used}×: {inbox.covers(r)}.")
            continue
        why = f" Why it was taken back: {r.why}" if r.why else ""
        say(f"{r.id}  Revoked, used {r.used}×; it said: {inbox.covers(r)}.{why}")
    say(f"{len(found)} rule{'s' if len(found) != 1 else ''}.")


def rule_words(app: Any, rule: StandingRule) -> str:
    """What a standing rule covers, and how to take it back."""
    return (f"Standing rule {rule.id}: {Inbox(app).covers(rule)}. "
            f"Take it back with `{revoking_a_rule(rule.id)}`.")


@rules.command(name="revoke")
@click.argument("rule_id", callback=given)
@click.option("--why", default=None, callback=not_empty, help="Why it is taken back.")
@APP_OPTION
@AS_OPTION
@TOKEN_OPTION
@click.pass_context
def revoke_rule(ctx: click.Context, rule_id: str, why: str | None, app_spec: str | None,
                as_handle: str | None, token: str | None) -> None:
    """Take a standing rule back, from the agent's next step on.

    \b
    Example:
      signoff rules revoke RULE_ID --why "Too dear." --app examples/workshop.py --as noor@workshop.example
    """
    app, me = _of_group(ctx, app_spec, as_handle, token)
    inbox = Inbox(app)
    rule = app.revoke(_by_id("rule", "rules", rule_id, lambda: inbox.rule(me, rule_id)),
                      by=me, why=why or "")
    say(said_revoked(inbox, me, rule, agent=rule.agent))


def said_revoked(inbox: Inbox, me: Any, rule: StandingRule, *, agent: str) -> str:
    """What taking `rule` back came to, in words, `agent` naming its agent: it is proposed
    again — unless another rule `me` can see stands where it did, which is named (that the
    tool "is proposed again" would be untrue while that one lets it run alone there)."""
    stands = next((r for r in inbox.rules(me, active_only=True) if _overlap(r, rule)), None)
    if stands is None:
        return f"Revoked: {agent} proposes {rule.tool} again."
    return (f"Revoked. Another standing rule stands where this one did: {inbox.covers(stands)} "
            f"(rule {stands.id}). Revoke it too for {agent} to propose {rule.tool} there.")


def _overlap(rule: StandingRule, revoked: StandingRule) -> bool:
    """Whether `rule` lets its agent run alone some call `revoked` did: the same agent and
    tool, in a skill and in work the two both cover."""
    same_call = (rule.id != revoked.id and rule.agent == revoked.agent
                 and rule.tool == revoked.tool)
    skills = None in (rule.skill, revoked.skill) or rule.skill == revoked.skill
    work = None in (rule.for_id, revoked.for_id) or rule.for_id == revoked.for_id
    return same_call and skills and work


@main.command()
@APP_OPTION
@AS_OPTION
@TOKEN_OPTION
@click.option("--status", type=click.Choice(["Running", "Waiting", "Done", "Halted", "Failed"],
                                            case_sensitive=False),
              help="Only tasks of this status (in any case: running, Running).")
@JSON_OPTION
@click.option("--database", metavar="URL", default=None, callback=not_empty,
              help="Without --app: the research database (default: research.db in the user's "
                   "data directory). Given, it is read even when SIGNOFF_APP names an app.")
def tasks(app_spec: str | None, as_handle: str | None, token: str | None, status: str | None,
          as_json: bool, database: str | None) -> None:
    """Tasks done for you (a supervisor sees every task), newest first.

    Without --app, your tasks of `signoff research`, each with its question.

    \b
    Examples:
      signoff tasks --app examples/workshop.py --as mia@workshop.example --status Waiting
      signoff tasks --status Running      # tasks of signoff research
    """
    if _of_research(app_spec, database):
        from signoff.cli.research import research_tasks

        research_tasks(database=database, status=status, as_json=as_json)
        return
    app = load_app(app_spec)
    echo_tasks(app, whoami(app, as_handle, token), status=status, as_json=as_json)


def echo_tasks(app: Any, me: Any, *, status: str | None, as_json: bool,
               inbox: Inbox | None = None) -> None:
    """Print the tasks done for `me` (see `tasks`), as `inbox` sees them (the app's own, unless
    given)."""
    inbox = inbox or Inbox(app)
    chosen = TaskStatus(status) if status else None
    found = list(every_page(lambda after: inbox.tasks(me, status=chosen, after=after)))
    with app.database.connect() as db:
        stuck = model_specs.problems(db, [t.id for t in found if t.status.value == "Running"])
    if as_json:
        _print_json([{**asdict(t), "stuck": stuck.get(t.id, "")} for t in found])
        return
    for t in found:
        shared = f"  (work {t.work[:8]})" if t.work else ""  # (an MCP session's tasks, as one)
        say(f"{t.id}  {t.status.value:8} {t.agent} / {t.skill}  "
                   f"{t.steps} step{'' if t.steps == 1 else 's'}, {t.spend_words}{shared}")
        if t.id in stuck:
            say(f"    Stuck: {commands_as_run(stuck[t.id])}")
        elif t.problem and t.status.value in ("Halted", "Failed"):
            say(_hanging("    Why: ", commands_as_run(t.problem)))
    say(f"{len(found)} task{'s' if len(found) != 1 else ''}.")


@main.command()
@click.argument("task_id", callback=given)
@APP_OPTION
@AS_OPTION
@TOKEN_OPTION
@JSON_OPTION
@click.option("--database", metavar="URL", default=None, callback=not_empty,
              help="Without --app: the research database (default: research.db in the user's "
                   "data directory). Given, it is read even when SIGNOFF_APP names an app.")
def receipt(task_id: str, app_spec: str | None, as_handle: str | None, token: str | None,
            as_json: bool, database: str | None) -> None:
    """Everything a task did: model calls, tool calls, proposals, decisions.

    Without --app, the receipt of a `signoff research` task.

    \b
    Examples:
      signoff receipt TASK_ID --app examples/workshop.py --as mia@workshop.example
      signoff receipt TASK_ID       # a task of signoff research
    """
    if _of_research(app_spec, database):
        from signoff.cli.research import research_receipt

        research_receipt(task_id, database=database, as_json=as_json)
        return
    app = load_app(app_spec)
    me = whoami(app, as_handle, token)
    with _of_research_told(task_id, "receipt", "see it"):
        _by_id("task", "tasks", task_id,
               lambda: echo_receipt(app, me, task_id, as_json=as_json))


@contextmanager
def _of_research_told(task_id: str, command: str, doing: str) -> Iterator[None]:
    """The block's `NotFound` for `task_id`, an app's task, saying so when `signoff research`
    keeps a task of that id, with the `command` that reads it there (`doing` what): with
    SIGNOFF_APP set, as the README's walk sets it, a research task's id was told only as
    "no task with id … that Noor may see"."""
    try:
        yield
    except NotFound as error:
        from signoff.cli.research import research_task_kept

        url = research_task_kept(task_id) if whole_id(task_id) else None
        if url is None:
            raise
        raise NotFound(f"{error.message} A task of `{runnable('research')}` has this id: {doing} "
                       f"with `{runnable(f'{command} {task_id} --database {shlex.quote(url)}')}`"
                       ".") from None


def echo_receipt(app: Any, me: Any, task_id: str, *, as_json: bool,
                 inbox: Inbox | None = None) -> None:
    """Print the receipt of a task `me` may read (see `receipt`), as `inbox` sees it (the app's
    own, unless given)."""
    found = app.receipt((inbox or Inbox(app)).task(me, task_id))
    if as_json:  # (with what it cost in all, as the REST API gives it)
        _print_json({**asdict(found), "cost_usd": found.cost_usd,
                     "unpriced": list(found.unpriced)})
        return
    for entry in found.entries:
        say(_hanging(f"{entry.at:%H:%M:%S}  ", entry.words))
    say(f"Status: {found.status}. Cost: {found.cost_words}.")


@main.command()
@click.argument("task_id", callback=given)
@click.option("--reason", default=None, callback=not_empty,
              help="Why it is stopped: its receipt keeps it.")
@APP_OPTION
@AS_OPTION
@TOKEN_OPTION
@JSON_OPTION
@click.option("--database", metavar="URL", default=None, callback=not_empty,
              help="Without --app: the research database (default: research.db in the user's "
                   "data directory). Given, it is read even when SIGNOFF_APP names an app.")
def stop(task_id: str, reason: str | None, app_spec: str | None, as_handle: str | None,
         token: str | None, as_json: bool, database: str | None) -> None:
    """Stop a task that has not ended: it ends Halted, and what it waits on is withdrawn.

    For a task no process can step (`signoff tasks` shows it Stuck), or work nobody needs
    any more. Whoever the work is for may stop it, the sponsor of an agent's work for nobody,
    and a supervisor; a task a process is stepping now is not stopped under it. Without
    --app, a task of `signoff research` (one waiting on a page you do not want fetched, say).

    \b
    Examples:
      signoff stop TASK_ID --reason "Not needed." --app examples/workshop.py --as mia@workshop.example
      signoff stop TASK_ID --reason "Not that page."    # a task of signoff research
    """
    if _of_research(app_spec, database):
        from signoff.cli.research import research_stop

        ended = research_stop(task_id, reason=reason or "", database=database)
    else:
        app = load_app(app_spec)
        me = whoami(app, as_handle, token)
        with _of_research_told(task_id, "stop", "stop it"):
            ended = _by_id("task", "tasks", task_id, lambda: app.stop(task_id, by=me,
                                                                        reason=reason or ""))
    if as_json:
        _print_json(ended)
    else:
        say(f"Task {ended.task} is {ended.status.value}: {ended.problem}")


@main.command()
@APP_OPTION
@JSON_OPTION
def agents(app_spec: str | None, as_json: bool) -> None:
    """The agents' catalogue: per agent, skill and tool, the leave it has and who decides.

    \b
    Example:
      signoff agents --app examples/workshop.py
    """
    app = load_app(app_spec)
    lines = app.skills.catalog()
    if as_json:
        _print_json([{"agent": x.agent, "skill": x.skill, "tool": x.tool, "leave": x.leave.words,
                      "decided_by": x.decided_by} for x in lines])
        return
    for x in lines:
        say(f"{x.agent:12} {x.skill:20} {x.tool:16} {x.leave.words:18} {x.decided_by}")
