"""Bad input to the app's API is told in a sentence (`UserError`), before anything is kept: no
raw Python error from deep inside, nothing taken that fails or misleads later."""

from __future__ import annotations

import dataclasses
import logging
import re
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import BaseModel
from sqlalchemy import String, func, select
from sqlalchemy.orm import Mapped, mapped_column

from signoff import (
    ActionOutcome,
    Agent,
    AgentProposed,
    App,
    Permits,
    ReasonRefused,
    Route,
    Skill,
    TaskStatus,
    UserError,
    allow,
    deny,
    policy,
)
from signoff.limits.grounding import GroundedAnswer
from signoff.models.base import Price, Reply
from signoff.store import points
from signoff.store.tables import tasks
from signoff.testing import ScriptedModel, says
from tests.test_loop import Tally, _counter


class _Done(BaseModel):
    """What the tests' skills hand back."""

    ok: bool


def _tasks(app: App) -> int:
    with app.database.connect() as db:
        return int(db.execute(select(func.count()).select_from(tasks)).scalar_one())


def test_a_model_spec_of_the_wrong_kind_is_refused_before_a_task_is_kept() -> None:
    """It raised AttributeError once the task's row was written Running: a worker later ran to
    Done the task its caller was told had failed."""
    shop = _counter()
    with pytest.raises(UserError, match="model_spec takes the ModelSpec a model given as an "
                                        "object was made from, not 'x'"):
        shop.app.agent(shop.Clerk).do(shop.Count(), shop.counter, model=ScriptedModel(),
                                      model_spec="x")  # type: ignore[arg-type]
    assert _tasks(shop.app) == 0


def _waiting(shop: Any) -> Any:
    outcome = shop.app.agent(shop.Clerk).do(shop.Count(), shop.counter, model=ScriptedModel(
        says.tool(shop.reset, counter=shop.counter.id), says.hand_back(Tally(total=0))))
    (proposal,) = shop.app.proposals(task=outcome.task)
    return proposal


@pytest.mark.parametrize(("call", "told"), [
    (lambda app, p, noor: app.approve(p, by=noor, always_like_this="no"),
     "always_like_this is True or False, not 'no'"),  # it made a standing rule
    (lambda app, p, noor: app.approve(p, by=noor, edited=[1, 2]),
     "edited takes the changed values by argument name"),
    (lambda app, p, noor: app.approve(p, by=noor, edited={1: 3}),  # (a TypeError of join's)
     re.escape("edited takes the changed values by argument name ({'price': 40}), not {1: 3}.")),
    (lambda app, p, noor: app.reject(p, by=noor, reason=123),
     "A no's reason is words the agent is told, not 123"),
    (lambda app, p, noor: app.approve(p, by=Agent), "by takes the person who decides"),
    (lambda app, p, noor: app.rules(active_only="yes"), "active_only is True or False"),
])
def test_a_decision_given_wrongly_is_refused_and_the_proposal_waits(call: Any, told: str) -> None:
    shop = _counter()
    proposal = _waiting(shop)
    with pytest.raises(UserError, match=told):
        call(shop.app, proposal, shop.noor)
    assert shop.app.proposal(proposal).status.value == "Waiting"
    assert shop.app.rules() == []


def test_a_decider_may_be_named_by_handle() -> None:
    shop = _counter()
    decision = shop.app.approve(_waiting(shop), by="noor@t.example")
    assert decision.said == "Noor approved reset; it ran as Noor and the agent together."


def test_work_for_a_person_of_another_app_is_refused() -> None:
    """Its proposals waited on "someone no longer known", for ever."""
    shop, other = _counter(), _counter()
    with pytest.raises(UserError, match="Noor is not one of this app's people"):
        shop.app.agent(shop.Clerk).do(shop.Count(), shop.counter, for_=other.noor,
                                      model=ScriptedModel())
    assert _tasks(shop.app) == 0


@pytest.mark.parametrize(("make", "told"), [
    (lambda: Route.to_person("noor@t.example"), "A route goes to a person (a Principal: "
                                                "app.people.get(handle)), not 'noor@t.example'"),
    (lambda: Route.to_person(None), "A route goes to one person or to one queue"),
    (lambda: Route.to_queue(123), "A route's queue is the name of a role, not 123"),
    (lambda: Route.to_queue("  "), "A route goes to one person or to one queue"),
])
def test_a_route_to_nobody_or_to_a_name_is_refused_as_it_is_made(make: Any, told: str) -> None:
    """A route to a handle failed the task as it proposed ("…'str' object has no attribute
    'id'"); one to nobody was taken."""
    with pytest.raises(UserError, match=re.escape(told)):
        make()


def test_a_route_to_an_agents_own_account_is_refused_as_it_is_made() -> None:
    """An agent's account decides nothing: a proposal routed to one waited until its deadline
    with only supervisors able to decide it."""
    shop = _counter()
    auditor = shop.app.agent(shop.Clerk).registered.account
    with pytest.raises(UserError, match=re.escape(
            f"A route goes to a person, and {auditor.name} is an agent's own account")):
        Route.to_person(auditor)
    shop.app.database.dispose()


def test_a_decided_by_that_returns_no_route_fails_its_task_saying_so() -> None:
    shop = _counter()

    class Routed(shop.Count):  # type: ignore[name-defined, misc]
        def decided_by(self, action: str) -> Any:
            return "noor@t.example"

    class Sending(Agent):
        purpose = "You count."
        skills = [Routed()]

    shop.app.add_agent(Sending, sponsor=shop.noor)
    outcome = shop.app.agent(Sending).do(Routed(), shop.counter, model=ScriptedModel(
        says.tool(shop.reset, counter=shop.counter.id)))
    assert outcome.status is TaskStatus.FAILED
    assert ("Routed.decided_by('reset') returned 'noor@t.example': it returns a Route "
            "(Route.to_person(p), Route.to_queue(role)) or None, so reset could not be put to "
            "anyone") in outcome.problem  # (one full stop: it read "or None., so")


def _agent(**declared: Any) -> type[Agent]:
    shop = _counter()
    return type("Odd", (Agent,), {"purpose": "Odd.", "skills": [shop.Count()], **declared})


@pytest.mark.parametrize(("declared", "sponsor", "told"), [
    ({}, 123, "Odd's sponsor is a person (a Principal, or their handle), not 123"),
    ({"skills": "count"}, None, "Odd.skills is a list of its skills' instances"),
    ({"max_steps": -5}, None, "max_steps must be a whole number of model calls, 1 or more"),
    ({"budget_usd": "lots"}, None, "budget_usd must be a number of US dollars"),
    ({"model": 42}, None, "Odd.model takes a Model, a ModelSpec, or a model named in words"),
    ({"may": {"alone": ["bump"]}}, None, "Odd.may is a Permits"),
])
def test_an_agent_declared_wrongly_is_refused_as_it_is_registered(
        declared: dict[str, Any], sponsor: Any, told: str) -> None:
    """Each was taken, and failed at the agent's first task (or never: a sponsor of 123)."""
    agent = _agent(**declared)
    with pytest.raises(UserError, match=re.escape(told)):
        App("t", database="sqlite://").add_agent(agent, sponsor=sponsor)


def test_a_skill_given_as_its_class_is_refused_as_it_is_registered() -> None:
    shop = _counter()

    class Odd(Agent):
        purpose = "Odd."
        skills = [shop.Count]  # (the class, not an instance)

    with pytest.raises(UserError, match=r"give each skill as an instance"):
        shop.app.add_agent(Odd)
    with pytest.raises(UserError, match="is not an Agent class"):
        shop.app.add_agent(Agent)


def test_a_skill_of_another_kind_than_skill_is_refused() -> None:
    shop = _counter()

    class NotASkill:
        tools: list[Any] = []

    class Odd(Agent):
        purpose = "Odd."
        skills = [NotASkill()]

    with pytest.raises(UserError, match="give each skill as an instance"):
        shop.app.add_agent(Odd)
    assert isinstance(shop.Count(), Skill)
    assert isinstance(Permits(), Permits)


def test_a_rule_for_a_role_named_as_text_is_refused_as_it_is_written() -> None:
    """`allow("read", when="mechanic")` was taken; the record type's first session then failed,
    "'str' object has no attribute 'admits'"."""
    with pytest.raises(UserError, match=re.escape(
            "allow(..., when=) takes a Policy (policy.role('mechanic') for those who hold that "
            "role), not 'mechanic'.")):
        allow("read", when="mechanic")  # type: ignore[arg-type]
    with pytest.raises(UserError, match=re.escape("deny(..., when=) takes a Policy, not 3.")):
        deny("update", "price", when=3)  # type: ignore[arg-type]


def test_security_that_is_no_list_of_rules_is_refused_as_the_class_is_made() -> None:
    app = App("t", database="sqlite://")
    with pytest.raises(UserError, match=re.escape(
            'Note.__security__ is a list of rules ([allow("read"), deny("update", "price", '
            "when=...)]), not 'everyone'.")):
        class Note(app.Record):  # type: ignore[name-defined, misc]
            text: Mapped[str] = mapped_column(String(40))
            __security__ = "everyone"


def test_text_longer_than_its_column_is_refused_on_sqlite_as_on_postgresql() -> None:
    """A 1,000-character note went into a String(400) column on SQLite (PostgreSQL refuses
    it): an app tried on SQLite failed on PostgreSQL."""
    app = App("t", database="sqlite://")

    class Memo(app.Record):  # type: ignore[name-defined, misc]
        text: Mapped[str] = mapped_column(String(400), default="")
        __security__ = [allow("read", "update", "create")]

    @app.action
    def write(memo: Memo, text: str) -> str:
        """Write the memo."""
        memo.text = text
        return "Written."

    ann = app.people.add("ann@x.example", "Ann")
    with app.session(as_=ann) as s:
        memo = Memo()
        s.add(memo)
    refused = app.actions.run("write", {"memo": memo, "text": "x" * 1000}, as_=ann)
    assert (refused.outcome, refused.problem) == (
        ActionOutcome.INVALID, "Memo's text keeps at most 400 characters; the text given has 1000.")
    assert app.actions.run("write", {"memo": memo, "text": "x" * 400}, as_=ann).done


@pytest.mark.parametrize(("call", "told"), [
    (lambda app: app.credentials.use_hasher("argon"), "use_hasher takes a password hasher"),
    (lambda app: app.on("AgentProposed", print), "on() takes the event's class"),
    (lambda app: app.on(AgentProposed, "notcallable"), "on() takes a handler to call"),
    (lambda app: app.people.add(123, "x"), "A principal needs a handle (an e-mail address) and "
                                           "a name, as text"),
    (lambda app: app.people.add("ola@t.example", "Ola", kind="robot"), "A principal's kind is"),
    # (kept on SQLite, a name of 1,000 characters was refused by PostgreSQL's column; a line
    # break in one made lines of its own in listings)
    (lambda app: app.people.add("ola@t.example", "O" * 1000), "A name is one line of at most "
                                                             "200 characters"),
    (lambda app: app.people.add("ola@t.example", "Ola\nApproved by: Noor"),
     "not 'Ola\\nApproved by: Noor' (21 characters)"),
    (lambda app: app.people.add("o" * 330 + "@t.example", "Ola"), "A handle is at most 320"),
    # (a text was taken, and failed the first model call with a TypeError, its task left
    # Running; NaN and infinity halted tasks on "$nan"; a negative price made negative spend)
    (lambda app: Price(input_per_mtok="3", output_per_mtok="15"),
     "A price is US dollars per million tokens, a number of 0 or more (Price(input_per_mtok="
     "0.15, output_per_mtok=0.60); 0 for a free model): its input_per_mtok is '3'."),
    (lambda app: Price(input_per_mtok=float("nan"), output_per_mtok=1), "its input_per_mtok is nan"),
    (lambda app: Price(input_per_mtok=1, output_per_mtok=float("inf")), "output_per_mtok is inf"),
    (lambda app: Price(input_per_mtok=-3, output_per_mtok=15), "its input_per_mtok is -3"),
    # (an AttributeError from inside; "yes" was taken for true)
    (lambda app: app.trace("not a provider"), "app.trace takes an OpenTelemetry TracerProvider "
                                              "(or None, for the global one), not 'not a "
                                              "provider'."),
    (lambda app: app.trace(include_content="yes"), "include_content is True, False or None"),
    # (the query was read as its characters: searched=['w', 'i', 't', 'h', …])
    (lambda app: GroundedAnswer.decline("Not in the sources.", searched="with statement"),
     "GroundedAnswer.decline's searched is a list of texts (searched=['with statement']), not "
     "one text."),
    (lambda app: app.people.add("ola@t.example", "Ola", roles=[1]), "Roles are names"),
    (lambda app: app.actions.run("add", {"a": 1, "b": 2}, as_=None), "Whoever it runs as is a "
                                                                     "Principal"),
    (lambda app: app.pass_deadlines(now="tomorrow"), "Give the moment deadlines are passed at"),
    (lambda app: app.pass_deadlines(now=datetime(9990, 1, 1, tzinfo=UTC)),
     "Give a moment before the year 9899 to pass deadlines at"),
    (lambda app: Permits(alone=[123]), "123 is not a tool: give an action or its name"),
    (lambda app: App(123), "An app's name is a short word"),
    (lambda app: App("x", database=123), "An app's database is a URL"),
    (lambda app: app.proposals(limit=-1), "limit is how many proposals at most, 1 or more"),
    (lambda app: app.agent(123), "An agent is named by its class or its name"),
    (lambda app: app.collect(123), "collect takes modules and @action-marked functions, not 123"),
    (lambda app: app.credentials.set_password("noor@t.example", None), "A password is text"),
    (lambda app: app.credentials.issue_token("noor@t.example", None), "A token's label is text"),
    (lambda app: app.credentials.issue_token("noor@t.example", expires_in=-1),
     "A token expires in a timedelta"),
    (lambda app: app.credentials.revoke_token(None), "A token is revoked by its id"),
])
def test_calls_with_values_of_the_wrong_kind_are_told(call: Any, told: str) -> None:
    """Each was taken, to fail later in the log, or raised a raw Python error from inside."""
    shop = _counter()
    with pytest.raises(UserError, match=re.escape(told)):
        call(shop.app)


def test_a_handle_names_whoever_a_run_or_a_session_is_for() -> None:
    """`do` took a handle for `for_`; a run's and a session's `as_` raised AttributeError."""
    shop = _counter()
    assert shop.app.actions.run("add", {"a": 1, "b": 2}, as_="noor@t.example").value == 3
    with shop.app.session(as_="noor@t.example") as session:
        assert session.get(shop.Counter, shop.counter.id) is not None
    assert Permits(alone="bump").alone == {"bump"}  # (a tool alone: it was one a letter)


def test_a_task_goes_on_by_its_outcome_too() -> None:
    shop = _counter()
    outcome = shop.app.agent(shop.Clerk).do(shop.Count(), shop.counter, model=ScriptedModel(
        says.tool(shop.reset, counter=shop.counter.id), says.hand_back(Tally(total=0))))
    shop.app.approve(shop.app.proposals(task=outcome)[0], by=shop.noor)
    assert shop.app.agent(shop.Clerk).resume(outcome).status is TaskStatus.DONE


def test_a_skill_whose_words_are_not_text_is_told() -> None:
    """A `brief` of 42 started a task; a `names` of 7 was stored as the proposal's shown value."""
    shop = _counter()

    class Numbered(shop.Count):  # type: ignore[name-defined, misc]
        def brief(self, subject: Any) -> Any:
            return 42

    class Naming(shop.Count):  # type: ignore[name-defined, misc]
        def names(self, action: str, argument: str, value: str) -> Any:
            return 7

    class Odd(Agent):
        purpose = "You count."
        skills = [Numbered(), Naming()]

    shop.app.add_agent(Odd, sponsor=shop.noor)
    with pytest.raises(UserError, match=re.escape(
            "Numbered.brief returned 42: it returns the words the model is given about the "
            "task's subject.")):
        shop.app.agent(Odd).do(Numbered(), shop.counter, model=ScriptedModel())
    assert _tasks(shop.app) == 0
    outcome = shop.app.agent(Odd).do(Naming(), shop.counter, model=ScriptedModel(
        says.tool(shop.reset, counter=shop.counter.id)))
    assert outcome.status is TaskStatus.FAILED
    assert "Naming.names('reset', 'counter', …) returned 7: it returns the value as a person " \
           "reads it, as text, so reset could not be put to anyone" in outcome.problem


def test_no_token_or_password_of_another_kind_lets_anyone_in() -> None:
    """Each raised AttributeError from inside (argon2's, a string method's)."""
    shop = _counter()
    assert shop.app.credentials.principal_for_token(None) is None  # type: ignore[arg-type]
    assert shop.app.credentials.check_password(None, None) is None  # type: ignore[arg-type]


def test_another_apps_action_function_is_told_as_such() -> None:
    """It said there is no action named “reset”… did you mean reset?"""
    shop, other = _counter(), _counter()
    result = shop.app.actions.run(other.reset, {"counter": shop.counter}, as_=shop.noor)
    assert result.problem == ("The function given is not this app's action reset, but another "
                              "of the same name (another app's?): run this app's, by its name "
                              "('reset').")


def test_a_task_whose_turns_a_client_gives_takes_a_handle_and_a_models_name() -> None:
    """`start(for_=handle)` raised AttributeError ('str' object has no attribute 'id'), and so
    did a model's name of None."""
    shop = _counter()
    handle = shop.app.agent(shop.Clerk)
    task = handle.start(shop.Count(), shop.counter, for_="noor@t.example", model_name="a client",
                        max_steps=5)
    assert shop.app.outcome(task).status is TaskStatus.RUNNING
    with pytest.raises(UserError, match="model_name names the client's model, as text"):
        handle.start(shop.Count(), shop.counter, model_name=None, max_steps=5)  # type: ignore[arg-type]
    with pytest.raises(UserError, match="for_ takes a person"):
        handle.start(shop.Count(), shop.counter, for_=7, model_name="x", max_steps=5)  # type: ignore[arg-type]


@pytest.mark.parametrize(("reason", "told"), [
    ("\u200b\u2060\ufeff", "Say why: a no needs a reason, and the agent is told it."),
    ("x" * 4001, "A no's reason is at most 4,000 characters, and this one has 4,001: say it "
                 "shorter (the agent is told it whole)."),
    ("\ud800", "A no's reason holds '\\ud800', half of a character that cannot be written "
               "alone: send the text whole."),
])
def test_a_no_whose_reason_tells_the_agent_nothing_or_too_much_is_refused(reason: str,
                                                                          told: str) -> None:
    """One rule for a no's reason wherever it is given (the API refused over 4,000 characters;
    the inbox, the command line and the Python API took 900,000, and invisible characters
    alone, and a lone surrogate raised UnicodeEncodeError): the proposal still waits."""
    shop = _counter()
    proposal = _waiting(shop)
    with pytest.raises(ReasonRefused, match=re.escape(told)):
        shop.app.reject(proposal, by=shop.noor, reason=reason)
    assert shop.app.proposal(proposal).status.value == "Waiting"
    said = shop.app.reject(proposal, by=shop.noor, reason="x" * 4000).said
    assert said.endswith("x" * 4000)


def test_why_a_rule_is_taken_back_is_words_of_a_length_it_is_kept() -> None:
    """(Kept with the rule, not told to the agent: its refusal does not say it is.)"""
    shop = _counter()
    rule = shop.app.allow_alone("clerk", shop.reset, by=shop.noor)
    with pytest.raises(UserError, match=r"Why a rule is taken back is words, not 5\."):
        shop.app.revoke(rule, by=shop.noor, why=5)  # type: ignore[arg-type]
    with pytest.raises(ReasonRefused, match=re.escape(
            "Why a rule is taken back is at most 4,000 characters, and this one has 5,000: say "
            "it shorter.")):
        shop.app.revoke(rule, by=shop.noor, why="x" * 5000)
    assert shop.app.rules()[0].active
    assert not shop.app.revoke(rule, by=shop.noor, why="").active



def test_a_handle_is_found_and_taken_in_any_case() -> None:
    """An e-mail address in other capitals is the same person: found by it (a login as
    "Noor@T.example" was told no such person), and not added again (a second person was made)."""
    shop = _counter()
    assert shop.app.people.get("Noor@T.Example").id == shop.noor.id
    with pytest.raises(UserError, match=re.escape(
            "There is already someone with the handle 'NOOR@t.example' ('noor@t.example': a "
            "handle is the same in any case): app.people.find('noor@t.example') gives them, or "
            "give another handle. Nothing was changed.")):
        shop.app.people.add("NOOR@t.example", "Noor again")
    assert shop.app.people.find("nobody@t.example") is None


def test_a_yes_with_a_value_its_column_cannot_keep_keeps_the_proposal_waiting(
        database: str) -> None:
    """An edited value the action's record cannot keep (text past its column's length) is
    refused as values that do not fit are, on SQLite and PostgreSQL: nothing is kept, the
    proposal still waits, and a yes with a value that fits then runs it (the typo used the yes
    up: Failed, and the corrected yes was "already decided")."""
    from signoff import EditRefused

    app = App("memos", database=database)

    class Memo(app.Record):  # type: ignore[name-defined, misc]
        text: Mapped[str] = mapped_column(String(10), default="")
        __security__ = [allow("read", "update", "create")]

    @app.action
    def write(memo: Memo, text: str) -> str:
        """Write the memo."""
        memo.text = text
        return "Written."

    class Note(Skill[Memo, _Done]):
        description = "Note."
        tools = [write]

    class Scribe(Agent):
        purpose = "You write memos."
        skills = [Note()]

    ann = app.people.add("ann@x.example", "Ann")
    app.add_agent(Scribe, sponsor=ann)
    with app.session(as_=ann) as s:
        memo = Memo()
        s.add(memo)
    outcome = app.agent(Scribe).do(Note(), memo, for_=ann, model=ScriptedModel(
        says.tool(write, memo=memo.id, text="Hello."), says.hand_back(_Done(ok=True))))
    (proposal,) = app.proposals(task=outcome.task)
    with pytest.raises(EditRefused, match=re.escape(
            "The changed values do not fit write: Memo's text keeps at most 10 characters; the "
            "text given has 20.")):
        app.approve(proposal, by=ann, edited={"text": "x" * 20})
    assert app.proposal(proposal).status.value == "Waiting"
    with app.session(as_=ann) as s:
        assert s.get(Memo, memo.id).text == ""
    assert app.approve(proposal, by=ann, edited={"text": "Hi."}).status.value == "Done"
    with app.session(as_=ann) as s:
        assert s.get(Memo, memo.id).text == "Hi."
    app.database.dispose()


def test_a_second_agent_class_of_the_same_name_is_refused() -> None:
    """An agent class named as one registered already (another module's `Clerk`) is refused,
    naming both; the first stays, its work with it (the second silently took its place, and
    with it the first's tasks, proposals and rules). The same class made again, as a module
    reloaded makes it, takes its place."""
    shop = _counter()

    def made_elsewhere() -> type[Agent]:
        class Clerk(Agent):
            purpose = "Counts otherwise."
            skills = [shop.Count()]
        return Clerk

    with pytest.raises(UserError) as refused:
        shop.app.add_agent(made_elsewhere())
    assert str(refused.value) == (
        "An agent named clerk is registered already: the class _counter.<locals>.Clerk of "
        "tests.test_loop. test_a_second_agent_class_of_the_same_name_is_refused.<locals>."
        "made_elsewhere.<locals>.Clerk of tests.test_app_input would take its place, and its "
        "tasks, proposals and rules with them: give this agent a class name of its own.")
    assert shop.app.agent("clerk").registered.agent is shop.Clerk
    again = type("Clerk", (Agent,), {"purpose": "Counts again.", "skills": [shop.Count()],
                                     "__module__": shop.Clerk.__module__,
                                     "__qualname__": shop.Clerk.__qualname__})
    shop.app.add_agent(again)
    assert shop.app.agent("clerk").registered.agent is again


def test_the_step_decision_halts_on_a_spend_or_budget_that_is_no_number() -> None:
    """`next_action` halts when the spend or the budget is NaN (it went on: NaN compares as
    less than nothing and more than nothing)."""
    from signoff import NextAction, next_action

    nan = float("nan")
    assert next_action(0, 10, nan, 1.0, False, False) is NextAction.HALT
    assert next_action(0, 10, 0.0, nan, False, False) is NextAction.HALT
    assert next_action(0, 10, 0.0, 1.0, False, False) is NextAction.CONTINUE


def test_half_a_character_in_what_a_model_says_is_kept_as_text(database: str) -> None:
    """A reply whose text (or call id) holds a lone surrogate (JSON may escape one, and the
    reply decoded from it holds it) beside a call put to a person: its proposal is kept with
    U+FFFD in its place (its text column could not be written: the step raised
    UnicodeEncodeError, and the task stayed Running, with nothing told), and decided."""
    shop = _counter(database)

    class HalfCharacters(ScriptedModel):
        def complete(self, *args: Any, **kwargs: Any) -> Reply:
            reply = super().complete(*args, **kwargs)
            return dataclasses.replace(reply, tool_calls=tuple(
                dataclasses.replace(call, id=f"{call.id} \ud800") for call in reply.tool_calls))

    outcome = shop.app.agent(shop.Clerk).do(shop.Count(), shop.counter, model=HalfCharacters(
        says.raw("reset", f'{{"counter": "{shop.counter.id}"}}', why="nought \udc80"),
        says.hand_back(Tally(total=0))))
    assert outcome.status is TaskStatus.WAITING
    (proposal,) = shop.app.proposals(task=outcome.task)
    assert proposal.why == "nought \ufffd"
    assert shop.app.approve(proposal, by=shop.noor).task_status == "Done"
    shop.app.database.dispose()


def test_a_decision_stands_when_the_step_after_it_fails(
        caplog: pytest.LogCaptureFixture) -> None:
    """A yes is committed before the task's next step: when that step fails for a reason the
    library did not foresee, the yes is still answered as made (it raised, and the API answered
    500 for a call it had run), the failure is logged, and the task goes on when resumed."""
    shop = _counter()
    proposal = _waiting(shop)

    def fail(point: str, where: dict[str, Any]) -> None:
        if point == "loop.stepping":
            raise RuntimeError("the step broke")

    with points.pausing(fail), caplog.at_level(logging.ERROR, logger="signoff"):
        decision = shop.app.approve(proposal, by=shop.noor)
    assert decision.status.value == "Done"
    assert decision.task_status == "Running"
    assert shop.app.proposal(proposal).status.value == "Done"
    assert f"Task {proposal.task} failed to go on after the decision" in caplog.text
    assert shop.app.agent(shop.Clerk).resume(proposal.task, model=ScriptedModel(
        says.tool(shop.reset, counter=shop.counter.id),  # (the turn it took)
        says.hand_back(Tally(total=0)))).status is TaskStatus.DONE


def test_a_call_on_a_record_the_agent_cannot_read_is_put_to_nobody(database: str) -> None:
    """A call naming a record the agent may not read (or none at all) could never run on a
    yes — it runs as the agent and the approver together — so nobody is asked: the agent is
    told Gone, as a query on it is (it was proposed, and the yes then failed; the proposal
    showed the record's name as the skill's `names` read it, as the app). A record it may read
    is proposed as ever."""
    app = App("secrets", database=database)
    boss, helper = policy.role("boss"), policy.role("helper")

    class Note(app.Record):  # type: ignore[name-defined, misc]
        title: Mapped[str] = mapped_column(String(200), default="")
        __security__ = [allow("read", "create", "update", when=boss | helper)]

    class Secret(app.Record):  # type: ignore[name-defined, misc]
        title: Mapped[str] = mapped_column(String(200), default="")
        __security__ = [allow("read", "create", "update", when=boss)]

    @app.action
    def rename_secret(secret: Secret, title: str) -> str:
        """Rename a secret."""
        secret.title = title
        return "Renamed."

    @app.action
    def rename_note(note: Note, title: str) -> str:
        """Rename a note."""
        note.title = title
        return "Renamed."

    class Work(Skill[Note, _Done]):
        description = "Work."
        tools = [rename_secret, rename_note]

    class Helper(Agent):
        purpose = "You help."
        skills = [Work()]
        roles = ["helper"]

    bo = app.people.add("bo@x.example", "Bo", roles=["boss"])
    app.add_agent(Helper, sponsor=bo)
    with app.session(as_=bo) as s:
        secret, note = Secret(title="launch codes"), Note(title="n")
        s.add_all([secret, note])
    nowhere = uuid.uuid4()
    outcome = app.agent(Helper).do(Work(), note, for_=bo, model=ScriptedModel(
        says.tool(rename_secret, secret=secret.id, title="x"),
        says.tool(rename_secret, secret=nowhere, title="x"),
        says.tool(rename_note, note=note.id, title="m"),
        says.hand_back(_Done(ok=True))))
    assert outcome.status is TaskStatus.WAITING
    (proposal,) = app.proposals(task=outcome.task)
    assert proposal.action == "rename_note"
    told = app.receipt(outcome.task).words
    for gone in (secret.id, nowhere):
        assert (f"rename_secret was asked for: Gone: No Secret with id {gone}: it does not "
                "exist, or whoever this runs as cannot read it. Nothing was run or proposed."
                ) in told
    assert app.approve(proposal, by=bo).task_status == "Done"
    with app.session(as_=bo) as s:
        assert s.get(Secret, secret.id).title == "launch codes"
    app.database.dispose()
