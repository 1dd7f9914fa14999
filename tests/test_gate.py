"""The gate: strictest wins across effects, lists, agent and skill; a rule only lifts PROPOSE."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from signoff import Agent, App, Effect, EffectKind, Effects, Leave, Permits, Skill
from signoff.agents.gate import gate
from signoff.exceptions import UserError

TOOLS = ["look", "note", "price", "mail", "pay", "scrap"]
leaves = st.sampled_from(list(Leave))
tool_lists = st.lists(st.sampled_from(TOOLS), max_size=3)


@st.composite
def permits(draw: st.DrawFn) -> Permits:
    """Any permits: a leave per effect, and lists naming some tools."""
    return Permits(
        changes=draw(leaves), sends=draw(leaves), spends=draw(leaves), reaches_out=draw(leaves),
        alone=draw(tool_lists), propose=draw(tool_lists),
        propose_every_time=draw(tool_lists), never=draw(tool_lists),
    )


@st.composite
def effects(draw: st.DrawFn) -> Effects:
    """Any set of effects."""
    kinds = draw(st.lists(st.sampled_from(list(EffectKind)), max_size=4))
    return Effects(effects=tuple(Effect(kind=k, target="Thing" if k in (
        EffectKind.READS, EffectKind.CREATES, EffectKind.CHANGES, EffectKind.DELETES) else "")
        for k in kinds))


def _by_effects(p: Permits, e: Effects) -> Leave:
    found = []
    if e.creates or e.changes or e.deletes:
        found.append(p.changes)
    if e.sends:
        found.append(p.sends)
    if e.spends:
        found.append(p.spends)
    if e.external:
        found.append(p.reaches_out)
    return max(found) if found else Leave.ALONE


@given(st.lists(permits(), min_size=1, max_size=3), effects(), st.sampled_from(TOOLS),
       st.booleans())
def test_the_answer_is_always_the_strictest(
    all_permits: list[Permits], e: Effects, tool: str, rule: bool
) -> None:
    """For any permits, lists, effects and rules, the gate answers the strictest leave: each
    permits by its lists when they name the tool (strictest list), else by the strictest of its
    effects; the strictest across permits; a rule turns only PROPOSE into ALONE."""
    expected = Leave.ALONE
    for p in all_permits:
        listed = p.listed(tool)
        expected = max(expected, listed if listed is not None else _by_effects(p, e))
    verdict = gate(tool, e, all_permits, rule=rule)
    assert verdict.declared is expected
    assert verdict.leave is (Leave.ALONE if rule and expected is Leave.PROPOSE else expected)
    assert verdict.by_rule is (rule and expected is Leave.PROPOSE)
    for p in all_permits:  # adding permits never makes a tool less strict
        assert verdict.declared >= gate(tool, e, [p]).declared
    if any(tool in p.never for p in all_permits):
        assert verdict.leave is Leave.NEVER


@given(permits(), effects(), st.sampled_from(TOOLS))
def test_outside_the_skill_is_never(p: Permits, e: Effects, tool: str) -> None:
    """A tool that is not one of the skill's is NEVER, whatever the permits or rules say."""
    assert gate(tool, e, [p], in_skill=False, rule=True).leave is Leave.NEVER


def test_a_query_runs_alone_unless_a_list_names_it() -> None:
    """A query always runs alone; a list that names it wins."""
    strict = Permits(changes=Leave.NEVER, reaches_out=Leave.NEVER)
    assert gate("look", Effects(), [strict], query=True).leave is Leave.ALONE
    assert gate("look", Effects(), [Permits(propose=["look"])], query=True).leave is Leave.PROPOSE


@pytest.mark.parametrize(
    ("permits", "kind", "leave"),
    [
        (Permits(), EffectKind.CHANGES, Leave.PROPOSE),
        (Permits.everything(), EffectKind.EXTERNAL, Leave.ALONE),
        (Permits.changes_alone(), EffectKind.CHANGES, Leave.ALONE),
        (Permits.changes_alone(), EffectKind.SENDS, Leave.PROPOSE),
        (Permits.changes_alone(), EffectKind.EXTERNAL, Leave.PROPOSE),
        (Permits(spends=Leave.NEVER), EffectKind.SPENDS, Leave.NEVER),
    ],
)
def test_ready_made_permits(permits: Permits, kind: EffectKind, leave: Leave) -> None:
    """Permits() proposes everything that is not a read; everything() proposes nothing;
    changes_alone() lets the app's data change alone and proposes what leaves it."""
    assert gate("t", Effects(effects=(Effect(kind=kind),)), [permits]).leave is leave


def test_a_rule_does_not_lift_every_time_or_never() -> None:
    """PROPOSE_EVERY_TIME and NEVER take no standing rule."""
    changes = Effects(effects=(Effect(kind=EffectKind.CHANGES, target="T"),))
    assert gate("t", changes, [Permits(propose_every_time=["t"])], rule=True).leave is (
        Leave.PROPOSE_EVERY_TIME
    )
    assert gate("t", changes, [Permits(never=["t"])], rule=True).leave is Leave.NEVER


@pytest.mark.parametrize(("given", "leave"), [("alone", Leave.ALONE), ("ALONE", Leave.ALONE),
                                              ("propose every time", Leave.PROPOSE_EVERY_TIME)])
def test_a_leave_may_be_named_in_words(given: str, leave: Leave) -> None:
    assert Permits(changes=given).changes is leave  # type: ignore[arg-type]


def test_a_leave_that_is_none_is_refused_naming_the_four() -> None:
    """It was a bare "'sometimes' is not a valid Leave"."""
    with pytest.raises(UserError, match=r"Permits\(changes='sometimes'\): a leave is one of "
                                        r"Leave.ALONE, Leave.PROPOSE, Leave.PROPOSE_EVERY_TIME, "
                                        r"Leave.NEVER\."):
        Permits(changes="sometimes")  # type: ignore[arg-type]


@pytest.mark.parametrize("where", ["agent", "skill"])
def test_permits_naming_a_tool_the_app_has_not_are_refused(where: str) -> None:
    """A mistyped name in a list (``never=["scrap_repiar"]``) left the tool it meant offered and
    proposed, and nothing said so; the agent is refused as it is registered, with the name it
    may have meant. A tool of the app's the agent does not use may be named."""
    app = App("typo", database="sqlite://")

    @app.action
    def scrap_repair(note: str) -> str:
        return note

    @app.action
    def other_tool(note: str) -> str:
        return note

    mistyped = Permits(never=["scrap_repiar"])

    class Scrap(Skill[None, str]):
        tools = [scrap_repair]
        may = mistyped if where == "skill" else None

    class Scrapper(Agent):
        purpose = "Scrap repairs."
        skills = [Scrap()]
        may = mistyped if where == "agent" else Permits(never=["other_tool"])

    whose = "Scrapper's skill scrap" if where == "skill" else "Scrapper"
    with pytest.raises(UserError, match=f"{whose}'s permits name scrap_repiar in never, which is "
                                        "not an action of this app: did you mean scrap_repair?"):
        app.add_agent(Scrapper, sponsor=None)

    class Plain(Skill[None, str]):
        tools = [scrap_repair]

    class Careful(Agent):
        purpose = "Scrap repairs."
        skills = [Plain()]
        may = Permits(never=["other_tool"])

    app.add_agent(Careful, sponsor=None)  # names a tool of the app's it does not use


def test_listed_takes_a_tool_by_name_or_by_its_function() -> None:
    """`Permits(alone=[parts_for]).listed(parts_for)` said None: it took the name only."""
    def parts_for(fault: str) -> list[str]:
        return []

    assert Permits(alone=[parts_for]).listed(parts_for) is Leave.ALONE
    assert Permits(alone=[parts_for]).listed("parts_for") is Leave.ALONE
