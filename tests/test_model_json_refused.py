"""What a model writes in JSON that no reader may take silently is refused as it is read, the
model told why: half of a character (a lone surrogate, which JSON may escape: ``"\\ud800"``) in a
tool call's arguments or in a result handed back, and a member given twice in a result. A NUL in
what it says as it asks for a call is kept as U+FFFD, as half a character there is.

Before, a call proposed with such text was stored, and every page, API list and command that
listed it failed on it (500s, "holds bytes that are not UTF-8" blamed on the person); a call
run alone failed as no one foresaw; a result holding one ended the task Done with it, and its
API pages failed; a result giving a member twice kept the last, without a word. On PostgreSQL,
a NUL in what the model said as it asked for a call to be proposed broke its step (StoreError
out of `agent.do`, the model's reply unrecorded, and asked again on resuming)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from pydantic import BaseModel
from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from signoff import Agent, App, Permits, Skill, TaskStatus, allow
from signoff.actions import ActionOutcome
from signoff.testing import ScriptedModel, says

HALF_ARGUMENT = ("Invalid: The arguments hold half of a character (a lone surrogate) in “half "
                 "\\ud800 here”, which cannot be written alone: send the text whole. Nothing was "
                 "run or proposed.")


class Done(BaseModel):
    summary: str


def notes(tmp_path: Path, database: str | None = None) -> SimpleNamespace:
    app = App("halves", database=database or f"sqlite:///{tmp_path / 'halves.db'}")

    class Job(app.Record):  # type: ignore[name-defined,misc]
        note: Mapped[str] = mapped_column(String(400), default="")
        __security__ = [allow("read", "create", "update")]

    @app.action("Write a note")
    def write_note(job: Job, note: str) -> str:
        """Write a note on the job."""
        job.note = note
        return "Noted."

    @app.action("Echo a word", query=True)
    def echo(word: str) -> str:
        """Say the word back."""
        return word

    class NoteJob(Skill[Job, Done]):
        description = "Note one job."
        tools = [write_note, echo]

        def brief(self, job: Job) -> str:
            return f"Job {job.id}."

    class Noter(Agent):
        purpose = "You note jobs."
        skills = [NoteJob()]
        may = Permits()

    ana = app.people.add("ana@halves.example", "Ana")
    app.add_agent(Noter, sponsor=ana)
    with app.session(as_=ana) as session:
        job = Job()
        session.add(job)
    return SimpleNamespace(app=app, job=job, ana=ana, NoteJob=NoteJob, Noter=Noter,
                           write_note=write_note)


def test_a_model_s_half_characters_and_members_given_twice_are_refused_as_read(
        tmp_path: Path) -> None:
    shop = notes(tmp_path)
    model = ScriptedModel(
        says.raw("write_note", f'{{"job": "{shop.job.id}", "note": "half \\ud800 here"}}'),
        says.raw("echo", '{"word": "half \\ud800 here"}'),
        says.raw("hand_back", '{"summary": "\\udc80"}'),
        says.raw("hand_back", '{"summary": "first", "summary": "second"}'),
        says.hand_back(Done(summary="whole")))
    try:
        done = shop.app.agent(shop.Noter).do(shop.NoteJob(), shop.job, for_=shop.ana,
                                             model=model)

        assert (done.status, done.result) == (TaskStatus.DONE, Done(summary="whole"))
        assert shop.app.proposals() == []  # (the note was not put to anyone)
        told = [m.text for m in model.seen.messages[-1] if m.role == "tool"]
        assert told == [
            HALF_ARGUMENT,
            HALF_ARGUMENT,
            "Invalid: the result does not fit (the result holds half of a character (a lone "
            "surrogate) in “\\udc80”, which cannot be written alone: send the text whole); hand "
            "it back again.",
            "Invalid: the result does not fit (the result gives “summary” twice in one object: "
            "give each member once, with the one value meant); hand it back again.",
        ]
        receipt = shop.app.receipt(done.task).words
        assert "\ud800" not in receipt
        assert "\udc80" not in receipt
        receipt.encode("utf-8")  # (it can be written: a page, a terminal, a file)
    finally:
        shop.app.database.dispose()


def test_run_json_refuses_half_a_character_as_invalid(tmp_path: Path) -> None:
    shop = notes(tmp_path)
    try:
        ran = shop.app.actions.run_json("echo", '{"word": "\\ud800"}', as_=shop.ana)
        assert ran.outcome is ActionOutcome.INVALID
        assert ran.problem == ("The arguments hold half of a character (a lone surrogate) in "
                               "“\\ud800”, which cannot be written alone: send the text whole.")
        as_bytes = shop.app.actions.run_json("echo", b'{"word": "\\ud800"}', as_=shop.ana)
        assert (as_bytes.outcome, as_bytes.problem) == (ran.outcome, ran.problem)
        whole = shop.app.actions.run_json("echo", '{"word": "caf\\u00e9 \\ud83d\\ude00"}',
                                          as_=shop.ana)  # (a pair is one character: whole)
        assert (whole.outcome, whole.value) == (ActionOutcome.DONE, "café 😀")
    finally:
        shop.app.database.dispose()


def test_a_nul_in_what_the_model_says_as_it_asks_is_kept_as_a_replacement(
        tmp_path: Path, database: str) -> None:
    shop = notes(tmp_path, database)
    model = ScriptedModel(
        says.tool("Because\x00 it asked.", shop.write_note, job=shop.job.id, note="a note"),
        says.hand_back(Done(summary="noted")))
    try:
        asked = shop.app.agent(shop.Noter).do(shop.NoteJob(), shop.job, for_=shop.ana,
                                              model=model)
        assert asked.status is TaskStatus.WAITING, shop.app.receipt(asked.task).words
        (proposal,) = shop.app.proposals(task=asked.task)
        assert proposal.why == "Because\ufffd it asked."
        assert shop.app.approve(proposal, by=shop.ana).status.value == "Done"
        done = shop.app.outcome(asked.task)
        assert (done.status, done.result) == (TaskStatus.DONE, Done(summary="noted"))
    finally:
        shop.app.database.dispose()
