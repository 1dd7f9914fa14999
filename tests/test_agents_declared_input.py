"""What a developer writes to make and run an agent: a mistake in it is told in a sentence that
says what to do, before any task starts, and loses nothing of the tasks there are."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import func, select

from signoff import (
    Agent,
    App,
    Permits,
    ProposalStatus,
    Skill,
    TaskStatus,
    UnknownId,
    UserError,
)
from signoff.models.base import Message, Price, Reply, ToolSpec
from signoff.store.tables import tasks
from signoff.testing import ScriptedModel, says
from tests.counters import Tally, counter_and_bump


def _office(tmp_path: Path) -> SimpleNamespace:
    """Two agents of one app, on a SQLite file: a clerk who proposes a bump, and an auditor."""
    app = App("t", database=f"sqlite:///{tmp_path / 'office.db'}")
    Counter, bump = counter_and_bump(app)

    class Count(Skill[Counter, Tally]):
        description = "Count."
        tools = [bump]

    class Clerk(Agent):
        purpose = "You count."
        skills = [Count()]

    class Auditor(Agent):
        purpose = "You check counts."
        skills = [Count()]
        may = Permits.everything()

    app.add_agent(Clerk)
    app.add_agent(Auditor)
    bo = app.people.add("b@x.example", "Bo")
    with app.session(as_=app.system) as s:
        counter = Counter(name="c")
        s.add(counter)
    return SimpleNamespace(app=app, Counter=Counter, bump=bump, Count=Count, Clerk=Clerk,
                           Auditor=Auditor, bo=bo, counter=counter)


def _tasks(app: App) -> int:
    with app.database.connect() as db:
        return int(db.execute(select(func.count()).select_from(tasks)).scalar_one())


def test_a_task_is_resumed_only_by_its_own_agent(tmp_path: Path) -> None:
    """Another agent's `resume` of a task is refused, naming the agent whose work it is (it
    went on, with that other agent's model in place of the task's own); the task is as it was,
    and goes on with its own agent."""
    office = _office(tmp_path)
    waiting = office.app.agent(office.Clerk).do(
        office.Count(), office.counter, for_=office.bo,
        model=ScriptedModel(says.tool(office.bump, counter=office.counter.id),
                            says.hand_back(Tally(total=1))))
    assert waiting.status is TaskStatus.WAITING
    stranger = ScriptedModel(says.hand_back(Tally(total=99)))
    with pytest.raises(UserError, match=re.escape(
            f"Task {waiting.task} is the work of the agent clerk, not of Auditor: resume it with "
            "its own agent, app.agent('clerk').resume(...).")):
        office.app.agent(office.Auditor).resume(waiting.task, model=stranger)
    assert stranger.seen.messages == []
    [proposal] = office.app.proposals_for(office.bo)
    assert office.app.approve(proposal, by=office.bo).status is ProposalStatus.DONE
    done = office.app.outcome(waiting.task)  # (gone on with its own model, as it was)
    assert done.status is TaskStatus.DONE
    assert done.result == Tally(total=1)
    assert stranger.seen.messages == []


def test_a_task_id_that_names_nothing_is_told_cut_short(tmp_path: Path) -> None:
    """An id of no task is told as not found; one far too long to be an id is cut short in the
    message rather than repeated whole (a megabyte of it was)."""
    office = _office(tmp_path)
    handle = office.app.agent(office.Clerk)
    with pytest.raises(UnknownId, match=r"^There is no task with id nope\.$"):
        handle.resume("nope")
    with pytest.raises(UnknownId) as told:
        handle.resume("x" * 1_000_000)
    assert str(told.value) == f"There is no task with id {'x' * 20}… (1000000 characters)."


class _Model:
    """A model of the app's own, following the Model protocol."""

    def __init__(self, *, name: Any = "mine", price: Any = None) -> None:
        self.name = name
        self.price = price

    def count_tokens(self, messages: Any, tools: Any) -> int:
        return 100

    def complete(self, messages: list[Message], tools: list[ToolSpec], *,
                 max_output_tokens: int) -> Reply:
        raise AssertionError("never asked")


@pytest.mark.parametrize(("model", "told"), [
    (_Model(name=None), "_Model.name is the model's name as receipts show it, as text "
                        "(name = \"my-model\"), not None."),
    (_Model(name="  "), "_Model.name is the model's name as receipts show it, as text "
                        "(name = \"my-model\"), not '  '."),
    (_Model(price="free"), "_Model.price is what the model costs, a Price (Price("
                           "input_per_mtok=0.15, output_per_mtok=0.60); 0 and 0 for a free "
                           "one), or None when it is not known, not 'free'."),
    (_Model(price={"input_per_mtok": 1}), "_Model.price is what the model costs, a Price"),
])
def test_a_model_whose_name_or_price_cannot_be_kept_is_refused_before_a_task_starts(
        tmp_path: Path, model: _Model, told: str) -> None:
    """A model of the app's own whose name is not text, or whose price is not a Price, is told
    so by `do`, `resume` and the agent's declaration, naming the attribute; no task starts (a
    name of None was a database error, a price of text an AttributeError at the first
    reservation)."""
    office = _office(tmp_path)
    with pytest.raises(UserError, match=re.escape(told)):
        office.app.agent(office.Auditor).do(office.Count(), office.counter, model=model,
                                            budget_usd=float("inf"))
    assert _tasks(office.app) == 0
    done = office.app.agent(office.Auditor).do(
        office.Count(), office.counter, model=ScriptedModel(says.hand_back(Tally(total=0))))
    with pytest.raises(UserError, match=re.escape(told)):
        office.app.agent(office.Auditor).resume(done.task, model=model)

    class Declared(Agent):
        purpose = "You count."
        skills = [office.Count()]

    Declared.model = model  # type: ignore[assignment]
    with pytest.raises(UserError, match=re.escape(told)):
        office.app.add_agent(Declared)


def test_a_model_of_the_apps_own_with_a_price_works() -> None:
    """A model of the app's own whose name is text and whose price is a Price (or None, with no
    budget) is taken as it is."""
    app = App("t", database="sqlite://")

    class Plain(Skill[None, str]):
        description = "Say something."

    class Speaker(Agent):
        purpose = "You speak."
        skills = [Plain()]

    app.add_agent(Speaker)

    class Own(_Model):
        def complete(self, messages: list[Message], tools: list[ToolSpec], *,
                     max_output_tokens: int) -> Reply:
            return says_done

    says_done = Reply(tool_calls=ScriptedModel(says.hand_back("hi")).complete(
        [], [], max_output_tokens=10).tool_calls)
    priced = app.agent(Speaker).do(Plain(), model=Own(price=Price(input_per_mtok=0,
                                                                   output_per_mtok=0)))
    assert priced.status is TaskStatus.DONE
    unpriced = app.agent(Speaker).do(Plain(), model=Own(), budget_usd=float("inf"))
    assert unpriced.status is TaskStatus.DONE


@pytest.mark.parametrize(("where", "told"), [
    ("purpose", "Wordy.purpose is what the model is told, as text, not None."),
    ("instructions", "Wordy.instructions is what the model is told, as text (\"\" for nothing), "
                     "not 3."),
    ("description", "Vague.description is what the model is told, as text (\"\" for nothing), "
                    "not None."),
])
def test_words_the_model_is_told_that_are_not_text_are_refused_as_the_agent_is_registered(
        tmp_path: Path, where: str, told: str) -> None:
    """An agent's purpose or instructions, or a skill's description, that is not text is told
    as the agent is registered, and again by `do` when it was changed since (a description of
    None failed every task with an AttributeError as it began); no task starts."""
    office = _office(tmp_path)

    class Vague(Skill[Any, Tally]):
        description = "Count."
        tools = [office.bump]

    class Wordy(Agent):
        purpose = "You count."
        skills = [Vague()]

    owner: Any = Vague if where == "description" else Wordy
    before = getattr(owner, where)
    setattr(owner, where, 3 if where == "instructions" else None)
    with pytest.raises(UserError, match=re.escape(told)):
        office.app.add_agent(Wordy)
    setattr(owner, where, before)
    office.app.add_agent(Wordy)
    setattr(owner, where, 3 if where == "instructions" else None)
    with pytest.raises(UserError, match=re.escape(told)):
        office.app.agent(Wordy).do(Vague(), office.counter, model=ScriptedModel())
    assert _tasks(office.app) == 0


def test_a_tool_listed_twice_is_offered_once(tmp_path: Path) -> None:
    """A skill that lists one tool twice (as itself and by its name) offers it to the model
    once, and the catalogue lists it once (it was offered twice, which a provider refuses)."""
    office = _office(tmp_path)

    class Twice(Skill[Any, Tally]):
        description = "Count."
        tools = [office.bump, "bump", office.bump]

    class Doubler(Agent):
        purpose = "You count."
        skills = [Twice()]
        may = Permits.everything()

    office.app.add_agent(Doubler)
    script = ScriptedModel(says.tool(office.bump, counter=office.counter.id),
                           says.hand_back(Tally(total=1)))
    done = office.app.agent(Doubler).do(Twice(), office.counter, model=script)
    assert done.status is TaskStatus.DONE
    assert [t.name for t in script.seen.tools[0]] == ["bump", "hand_back"]
    assert [line.tool for line in office.app.skills.catalog(agent=Doubler)] == ["bump"]


def test_tools_not_given_as_a_list_are_refused_in_words(tmp_path: Path) -> None:
    """A skill whose `tools` is one action rather than a list of them is told so as its agent
    is registered, with the list to write (a TypeError escaped)."""
    office = _office(tmp_path)

    class Single(Skill[Any, Tally]):
        description = "Count."
        tools = office.bump

    class Singular(Agent):
        purpose = "You count."
        skills = [Single()]

    with pytest.raises(UserError, match=re.escape(
            "Single.tools is a list of its tools, the actions it may call (tools = [parts_for, "
            "set_price]; [] for none), not bump alone: give tools = [bump].")):
        office.app.add_agent(Singular)
    Single.tools = 7  # type: ignore[assignment]
    with pytest.raises(UserError, match=re.escape("[] for none), not 7.")):
        office.app.add_agent(Singular)


def test_a_skill_the_agent_has_not_is_named_by_its_name(tmp_path: Path) -> None:
    """A skill given to `do` that is not one of the agent's is named by its name and class, not
    by a repr with an address in memory."""
    office = _office(tmp_path)

    class Foreign(Skill[Any, Tally]):
        description = "Count elsewhere."
        tools = [office.bump]

    told = "Clerk has no skill foreign (a Foreign); its skills are: count."
    with pytest.raises(UserError, match=f"^{re.escape(told)}$"):
        office.app.agent(office.Clerk).do(Foreign(), office.counter, model=ScriptedModel())
    with pytest.raises(UserError, match=r"^Clerk has no skill Foreign; its skills are: count\.$"):
        office.app.agent(office.Clerk).do(Foreign, office.counter, model=ScriptedModel())
    assert _tasks(office.app) == 0


def test_the_agent_class_tells_a_skill_it_has_not_as_its_handle_does(tmp_path: Path) -> None:
    """`Agent.skill`, on the class, tells a skill it has not in the same sentence, as a
    `UserError` (it raised a bare `LookupError` of the name: no sentence, no `SignoffError`),
    which is still a `LookupError` for code that caught that."""
    office = _office(tmp_path)
    with pytest.raises(UserError, match=r"^Clerk has no skill 'nope'; its skills are: count\.$"
                       ) as told:
        office.Clerk.skill("nope")
    assert isinstance(told.value, LookupError)
    assert office.Clerk.skill("count").name == "count"


def _elsewhere() -> type[Skill[Any, Tally]]:
    class Count(Skill[Any, Tally]):
        description = "Count by looking only."
        tools: list[Any] = []

    return Count


def test_two_skills_of_one_name_are_refused_as_the_agent_is_registered(tmp_path: Path) -> None:
    """An agent whose skills share a name (two classes called Count, or one skill given twice)
    is refused as it is registered: a task keeps its skill by name, so one begun with the second
    went on as the first, and was offered, and proposed, the first one's tools."""
    office = _office(tmp_path)

    class Both(Agent):
        purpose = "You count."
        skills = [office.Count(), _elsewhere()()]

    with pytest.raises(UserError, match=re.escape(
            "Both.skills holds two skills named count (_office.<locals>.Count of "
            "tests.test_agents_declared_input and _elsewhere.<locals>.Count of "
            "tests.test_agents_declared_input): a task keeps its skill by name, and would go on "
            "as the first of them. Give each skill once, with a class name of its own.")):
        office.app.add_agent(Both)
    Both.skills = [office.Count(), office.Count()]
    with pytest.raises(UserError, match=re.escape(
            "Both.skills holds two skills named count (_office.<locals>.Count twice)")):
        office.app.add_agent(Both)
    with pytest.raises(UserError, match="There is no agent 'both' in this app"):
        office.app.agent(Both)


@pytest.mark.parametrize("roles", [[None], ["helper", ""], 5])
def test_roles_that_are_not_names_are_refused_as_the_agent_is_registered(
        tmp_path: Path, roles: Any) -> None:
    """An agent's roles that are not names are told as it is registered, naming the agent
    (they were told at its first task, naming no agent); a name given alone is one role."""
    office = _office(tmp_path)

    class Helper(Agent):
        purpose = "You count."
        skills = [office.Count()]

    Helper.roles = roles
    with pytest.raises(UserError, match=re.escape(
            "Helper.roles are the roles of the agent's own account, names as text (roles = "
            "[\"helper\"]), not ")):
        office.app.add_agent(Helper)
    Helper.roles = "helper"  # type: ignore[assignment]
    office.app.add_agent(Helper)
    assert office.app.agent(Helper).account.roles == frozenset({"helper"})


@pytest.mark.parametrize(("args", "told"), [
    ((float("nan"), 10, 0.0, 1.0), "next_action's steps_taken is a number of model calls, 0 or "
                                   "more, not nan."),
    ((3, float("nan"), 0.0, 1.0), "next_action's max_steps is a number of model calls, 0 or "
                                  "more, not nan."),
    ((2.5, 3, 0.0, 1.0), "next_action's steps_taken is a number of model calls, 0 or more, not "
                         "2.5."),
    (("3", 10, 0.0, 1.0), "next_action's steps_taken is a number of model calls, 0 or more, not "
                          "'3'."),
    ((3, 10, "0.1", 1.0), "next_action's spend_usd is a number of US dollars, not '0.1'."),
    ((3, 10, 0.0, None), "next_action's budget_usd is a number of US dollars, not None."),
])
def test_the_step_decision_refuses_what_is_no_count_or_amount(args: tuple[Any, ...],
                                                              told: str) -> None:
    """`next_action` given a count of steps that is no whole number (NaN went on: CONTINUE), or
    a spend or budget that is not a number (a TypeError), refuses it in a sentence naming it;
    a Decimal amount is one."""
    from signoff import NextAction, next_action

    with pytest.raises(UserError, match=f"^{re.escape(told)}$"):
        next_action(*args, False, False)
    from decimal import Decimal

    assert next_action(3, 10, Decimal("0.5"), 1.0, False, False) is NextAction.CONTINUE
    assert next_action(3, 10, 0.5, Decimal("0.5"), False, False) is NextAction.HALT


def test_a_cost_that_is_no_amount_is_not_trusted_to_fit_its_reservation() -> None:
    """A call's cost of NaN is told over its reservation, as a cost above it is (it was taken as
    fitting, and settled NaN into what the task had spent)."""
    from signoff.limits import budget

    assert budget.over_reserved(float("nan"), 0.25)
    assert budget.over_reserved(0.26, 0.25)
    assert not budget.over_reserved(0.25, 0.25)


def test_tools_given_as_a_set_are_offered_in_the_order_of_their_names(tmp_path: Path) -> None:
    """`tools = {b, a}` registers, as any collection of actions did, and is offered by name."""
    app = App("sets", database=f"sqlite:///{tmp_path / 'sets.db'}")

    @app.action("Add two", query=True)
    def add_two(n: int) -> int:
        """Add two."""
        return n + 2

    @app.action("Add one", query=True)
    def add_one(n: int) -> int:
        """Add one."""
        return n + 1

    class Count(Skill[None, str]):
        description = "Count."
        tools = {add_two, add_one}  # type: ignore[assignment]

    class Clerk(Agent):
        purpose = "You count."
        skills = [Count()]

    app.add_agent(Clerk)
    assert Count().tool_names == ["add_one", "add_two"]
    app.database.dispose()
