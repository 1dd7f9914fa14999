"""The public API misused as a developer would: each mistake is a `UserError` that says what to
do, before anything is kept, instead of a task that waits on nobody, an action whose body never
runs, or another agent's or another app's work done in its place."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import BaseModel
from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from signoff import Agent, App, Skill, UserError, allow
from signoff.testing import ScriptedModel, says


class Estimate(BaseModel):
    """What the fixers hand back."""

    hours: int


def _shop(name: str = "shop") -> SimpleNamespace:
    """An app with one record, an action that changes it, and an agent that proposes it."""
    app = App(name, database="sqlite://")

    class Repair(app.Record):  # type: ignore[name-defined, misc]
        ticket: Mapped[str] = mapped_column(String(40))
        __security__ = [allow("read", "update", "create")]

    @app.action
    def note(repair: Repair, text: str) -> str:
        """Write a note."""
        repair.ticket = text
        return "Noted."

    class Fix(Skill[Repair, Estimate]):
        description = "Fix it."
        tools = [note]

    class Fixer(Agent):
        purpose = "You fix things."
        skills = [Fix()]

    mia = app.people.add("mia@shop.example", "Mia", roles=["mechanic"])
    app.add_agent(Fixer, sponsor=mia)
    with app.session(as_=mia) as s:
        repair = Repair(ticket="T-1")
        s.add(repair)
    return SimpleNamespace(app=app, Repair=Repair, note=note, Fix=Fix, Fixer=Fixer, mia=mia,
                           repair=repair)


def _proposing(shop: SimpleNamespace) -> ScriptedModel:
    return ScriptedModel(says.tool(shop.note, repair=shop.repair.id, text="x"),
                         says.hand_back(Estimate(hours=1)))


def test_work_for_an_agents_account_or_a_disabled_person_is_refused_before_it_starts() -> None:
    """Work is for a person who can decide its proposals: one for an agent's own account, or
    for a disabled person, is refused, and no task is kept (it waited on nobody, for ever)."""
    shop = _shop()
    handle = shop.app.agent(shop.Fixer)
    gone = shop.app.people.disable(shop.app.people.add("dan@shop.example", "Dan"))
    with pytest.raises(UserError, match=r"Fixer is an agent's own account.*give for_ a person"):
        handle.do(shop.Fix(), shop.repair, for_=handle.account, model=_proposing(shop))
    with pytest.raises(UserError, match=r"Dan is disabled.*app\.people\.enable"):
        handle.do(shop.Fix(), shop.repair, for_="dan@shop.example", model=_proposing(shop))
    with pytest.raises(UserError, match="Dan is disabled"):
        handle.do(shop.Fix(), shop.repair, for_=gone, model=_proposing(shop))
    assert shop.app.proposals() == []
    assert handle.do(shop.Fix(), shop.repair, for_=shop.mia, model=_proposing(shop)).waiting


@pytest.mark.parametrize("by_handle", [False, True])
def test_an_agents_account_as_a_sponsor_is_refused(by_handle: bool) -> None:
    """A sponsor decides the work an agent does for nobody: an agent's own account, given as
    itself or by its handle, decides nothing, and is refused as the agent is registered."""
    shop = _shop()
    account = shop.app.agent(shop.Fixer).account

    class Helper(Agent):
        purpose = "You help."
        skills = [shop.Fix()]

    with pytest.raises(UserError, match="agent's own account, which decides nothing"):
        shop.app.add_agent(Helper, sponsor=account.handle if by_handle else account)


def test_a_tool_given_as_another_apps_action_of_the_same_name_is_refused() -> None:
    """A skill's tool given as a function that is not the one the app offers by that name is
    refused: the model's calls of it ran the app's own, not the one given."""
    shop, other = _shop(), _shop("other")

    class Borrowed(Skill[None, Estimate]):
        description = "Note."
        tools = [other.note]

    class Borrower(Agent):
        purpose = "You note."
        skills = [Borrowed()]

    with pytest.raises(UserError, match="gives the tool note as a function that is not this "
                                        "app's action of that name"):
        shop.app.add_agent(Borrower, sponsor=shop.mia)

    class Named(Skill[None, Estimate]):
        description = "Note."
        tools = ["note"]  # type: ignore[list-item]  # (a tool by its name)

    class Namer(Agent):
        purpose = "You note."
        skills = [Named()]

    shop.app.add_agent(Namer, sponsor=shop.mia)  # (by its name: this app's)


def test_an_agent_class_of_a_registered_name_that_is_not_registered_is_refused() -> None:
    """`app.agent(cls)` with a class that only shares a registered agent's name is refused: the
    registered one's work was done in its place."""
    shop = _shop()
    fix = shop.Fix

    class Fixer(Agent):
        purpose = "You fix other things."
        skills = [fix()]

    with pytest.raises(UserError, match="is not an agent of this app: the agent named fixer is "
                                        "the class"):
        shop.app.agent(Fixer)
    assert shop.app.agent(shop.Fixer).registered.agent is shop.Fixer
    assert shop.app.agent("fixer").registered.agent is shop.Fixer


class _Opaque:
    """A type pydantic cannot describe."""


def test_a_skill_whose_subject_or_result_cannot_be_described_is_refused_as_registered() -> None:
    """A skill's subject or result type that has no JSON schema is refused as the agent is
    registered, naming it (its first task failed with pydantic's own error)."""
    shop = _shop()

    class Hands(Skill[None, _Opaque]):
        description = "Hand back."
        tools = [shop.note]

    class Takes(Skill[_Opaque, Estimate]):
        description = "Take."
        tools = [shop.note]

    for skill, which in ((Hands(), "result"), (Takes(), "subject")):
        agent = type(f"Agent{which.title()}", (Agent,), {"purpose": "p", "skills": [skill]})
        with pytest.raises(UserError, match=f"{type(skill).__name__}'s {which} type, _Opaque, "
                                            "cannot be described as JSON"):
            shop.app.add_agent(agent, sponsor=shop.mia)


def test_an_agent_with_no_purpose_is_refused_as_it_is_registered() -> None:
    """An agent that says nothing of what it is for is refused, with an example."""
    shop = _shop()

    class Aimless(Agent):
        skills = [shop.Fix()]

    with pytest.raises(UserError, match=r"Aimless has no purpose.*purpose = "):
        shop.app.add_agent(Aimless, sponsor=shop.mia)


def test_an_agent_with_no_skills_is_refused_as_it_is_registered() -> None:
    """An agent given no skill could be given no task: it was registered all the same, and
    every task for it was refused later, far from the mistake."""
    shop = _shop()

    class Idle(Agent):
        purpose = "You fix bicycles."
        skills = []

    with pytest.raises(UserError, match=r"Idle has no skills, so no task could be given it.*"
                                        r"skills = \[EstimateRepair\(\)\]"):
        shop.app.add_agent(Idle, sponsor=shop.mia)
    with pytest.raises(UserError, match="There is no agent"):
        shop.app.agent(Idle)


def test_a_generator_or_an_unbound_method_is_refused_as_an_action() -> None:
    """A generator's body never ran when called by name (its run was Done with a generator's
    repr); an unbound method was told to annotate `self`."""
    app = App("t", database="sqlite://")

    def countdown(start: int) -> Iterator[int]:
        yield from range(start, 0, -1)

    def pages(start: int):  # type: ignore[no-untyped-def]
        yield start

    for generator in (countdown, pages):
        with pytest.raises(UserError, match="yields: its body would not run"):
            app.action(generator)

    class Desk:
        def stamp(self, text: str) -> str:
            return text

    with pytest.raises(UserError, match=r"parameter self: a method is offered by name only "
                                        r"when bound.*instance\.stamp"):
        app.action(Desk.stamp)


@pytest.mark.parametrize(("call", "told"), [
    (lambda s: s.app.receipt(None), "A task is named by its id"),
    (lambda s: s.app.outcome(None), "A task is named by its id"),
    (lambda s: s.app.proposals(agent=3), "agent is an agent's class or its name"),
    (lambda s: s.app.proposals_for(None), "proposals_for takes a person"),
    (lambda s: s.app.proposals_for(_shop("other").mia), "Mia is not one of this app's people"),
])
def test_verbs_given_the_wrong_kind_of_thing_are_told(call: Callable[[SimpleNamespace], Any],
                                                     told: str) -> None:
    """`receipt(None)` asked for a task of id "" (told "There is no task with id ."); a filter
    by an agent that is no agent found nothing, silently; a person of another app was named by
    an id."""
    with pytest.raises(UserError, match=told):
        call(_shop())


def test_a_decider_of_another_app_is_named() -> None:
    """A yes from a person of another app is refused naming them, and the proposal waits."""
    shop, other = _shop(), _shop("other")
    shop.app.agent(shop.Fixer).do(shop.Fix(), shop.repair, for_=shop.mia,
                                  model=_proposing(shop))
    proposal = shop.app.proposals()[0]
    with pytest.raises(UserError, match="Mia is not one of this app's people"):
        shop.app.approve(proposal, by=other.mia)
    assert shop.app.proposal(proposal).status.value == "Waiting"


def test_an_action_whose_result_cannot_be_described_is_told_in_a_sentence() -> None:
    """An action returning a type with no JSON schema is told in one sentence with what to do,
    not pydantic's paragraphs of advice about `arbitrary_types_allowed`."""
    app = App("t", database="sqlite://")

    def make_opaque(name: str) -> _Opaque:
        return _Opaque()

    with pytest.raises(UserError) as refused:
        app.action(make_opaque)
    told = str(refused.value)
    assert "Return a type signoff can describe as JSON" in told
    assert "arbitrary_types_allowed" not in told
    assert "\n" not in told
