"""What ``signoff research`` says when it is stopped (Ctrl-C, SIGTERM, SIGHUP) while it asks:
where its task stands, as the database records it, and the command that goes on with it — or,
stopped before its task was recorded, that nothing was (it said "Stopped." alone, the person
left to wonder whether something was half done)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import click

from signoff.agents.tasks import TaskStatus
from signoff.cli.research_shown import Shown

__all__ = ["question_of", "tell_stopped"]


def question_of(task: Any) -> str | None:
    """The question research task `task` (a row) asks, or None."""
    subject = getattr(task, "subject_json", None)
    return subject.get("question") if isinstance(subject, dict) else None


def tell_stopped(app: Any, person: Any, began: datetime, shown: Shown) -> None:
    """Say that the research was stopped, and what became of its task: `person`'s task that
    began since `began` and asks this question (another research of theirs, begun later in
    another process, was named once: the newest task). Still Running, how to go on with it;
    ended or waiting, how to see it; none, that nothing was recorded (a task's row is written
    whole or not at all, before any model is asked: a write cut off is rolled back)."""
    from signoff.agents import repository as repo
    from signoff.inbox import Inbox
    from signoff.research.skill import ResearchTask

    asked = ResearchTask(question=shown.question).question
    since = began.replace(tzinfo=None)
    begun = [t for t in Inbox(app).tasks(person).items
             if t.created_at.replace(tzinfo=None) >= since]
    with app.database.reading() as db:
        mine = [t for t in begun if question_of(repo.load_task(db, t.id)) == asked]
    if not mine:
        click.echo("Stopped before its research task was recorded: nothing was asked or kept, "
                   f"so nothing is lost. Ask again with {shown.asking()}", err=True)
        return
    running = [t.id for t in mine if t.status is TaskStatus.RUNNING]
    if len(mine) == 1 and not running:
        click.echo(f"Stopped. The research task {mine[0].id} is {mine[0].status.value} "
                   f"already; see it with {shown.going_on(mine[0].id)}", err=True)
    elif len(running) == 1 and len(mine) == 1:
        click.echo(f"Stopped. The research task {running[0]} stays Running; go on with it: "
                   f"{shown.going_on(running[0])}", err=True)
    else:  # (the same question asked twice at once: say no id)
        click.echo(f"Stopped. Its task is one of {', '.join(t.id for t in mine)}; go on with "
                   f"it, or see it: {shown.going_on('TASK_ID')}", err=True)
