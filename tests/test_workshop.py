"""The workshop scenarios (DESIGN "2. The gate and proposals"), on examples/workshop.py."""

from __future__ import annotations

import contextlib
import runpy
import uuid
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from signoff import (
    AgentProposalDecided,
    AgentProposed,
    AgentRefused,
    AgentTaskWaiting,
    Leave,
    ProposalStatus,
    TaskStatus,
)
from signoff.inbox import Inbox
from signoff.store import points
from signoff.testing import ScriptedModel, says

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(params=["memory", "file", "postgres", "temporal"])
def shop(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
         ) -> Iterator[SimpleNamespace]:
    """A fresh workshop: Mia, Noor, the estimator and ticket T-7 (in memory, in a SQLite file,
    in a PostgreSQL database of its own, or there with its tasks run on Temporal by a worker
    of its own)."""
    if request.param == "file":
        monkeypatch.setenv("WORKSHOP_DATABASE", f"sqlite:///{tmp_path / 'workshop.db'}")
    elif request.param in ("postgres", "temporal"):
        url = request.getfixturevalue("postgres_database")
        monkeypatch.setenv("WORKSHOP_DATABASE", url)
    else:
        monkeypatch.setenv("WORKSHOP_DATABASE", "sqlite://")
    if request.param == "temporal":
        server = request.getfixturevalue("temporal_server")
        monkeypatch.setenv("SIGNOFF_TEMPORAL", server.address)
        monkeypatch.setenv("SIGNOFF_TEMPORAL_QUEUE", f"workshop-{uuid.uuid4().hex[:8]}")
    namespace = runpy.run_path(str(ROOT / "examples" / "workshop.py"), run_name="workshop_test")
    shop = SimpleNamespace(**namespace, **namespace["setup"]())
    shop.events = []
    for event in (AgentProposed, AgentProposalDecided, AgentTaskWaiting):
        shop.app.on(event, shop.events.append)
    with shop.app.temporal_worker().running() if request.param == "temporal" else (
            contextlib.nullcontext()):
        yield shop
    shop.app.database.dispose()  # no connection outlives its database


def _estimate(shop: SimpleNamespace) -> Any:
    return shop.Estimate(hours=Decimal(1), summary="Pads and a cable.")


def _price_script(shop: SimpleNamespace, *, price: int = 45, note: bool = True) -> ScriptedModel:
    lines = []
    if note:
        lines.append(says.tool(shop.note_repair, repair=shop.repair.id, note="Pads and a cable."))
    lines += [
        says.tool("Pads, a cable and an hour of work.", shop.set_price, repair=shop.repair.id,
                  price=price),
        says.hand_back(_estimate(shop)),
    ]
    return ScriptedModel(*lines)


def _repair(shop: SimpleNamespace) -> Any:
    with shop.app.session(as_=shop.app.system) as s:
        return s.get(shop.Repair, shop.repair.id)


def test_the_note_alone_the_price_proposed_mias_yes_fails_noors_yes_runs(
    shop: SimpleNamespace,
) -> None:
    """Scenario 1: the note is written alone; the price is proposed with why, names, evidence
    and version; Mia's yes cannot set it; asked again, Noor's yes sets 45."""
    app = shop.app
    outcome = app.agent(shop.Estimator).do(shop.EstimateRepair(), shop.repair, for_=shop.mia,
                                           model=_price_script(shop))
    assert outcome.status is TaskStatus.WAITING
    assert outcome.waiting_on == ("a decision from Mia",)
    assert _repair(shop).note == "Pads and a cable."
    (proposal,) = app.proposals_for(shop.mia)
    assert proposal.action == "set_price"
    assert proposal.label == "Set the price"
    assert proposal.why == "Pads, a cable and an hour of work."
    assert proposal.shown == {"repair": "Ticket T-7", "price": "45"}
    assert [e.tool for e in proposal.evidence] == ["note_repair"]
    assert proposal.evidence[0].answer == "Noted on T-7."
    assert proposal.subject_version == "r1"
    assert proposal.decide_by == "Mia"
    assert proposal.effects  # what it does is shown
    assert app.proposals_for(shop.noor) == [proposal]  # Noor supervises
    decision = app.approve(proposal, by=shop.mia)
    assert decision.status is ProposalStatus.FAILED
    assert decision.said == (
        "Mia approved set_price, but it did not run: Mia may not change the price of Repair T-7."
    )
    assert decision.told_agent == decision.said
    assert _repair(shop).price == 0
    assert app.outcome(outcome.task).status is TaskStatus.DONE
    assert app.outcome(outcome.task).result == _estimate(shop)

    again = app.agent(shop.Estimator).do(shop.EstimateRepair(), shop.repair, for_=shop.mia,
                                         model=_price_script(shop, note=False))
    (proposal,) = app.proposals(task=again.task)
    decision = app.approve(proposal, by=shop.noor)
    assert decision.status is ProposalStatus.DONE
    assert _repair(shop).price == 45
    receipt = app.receipt(again.task)
    assert "Noor approved set_price; it ran as Noor and the agent together." in receipt.words
    assert app.proposal(proposal.id).result["ran_as"] == ["Noor", "Estimator"]
    assert app.outcome(again.task).status is TaskStatus.DONE
    kinds = [type(e).__name__ for e in shop.events]
    assert kinds == ["AgentProposed", "AgentTaskWaiting", "AgentProposalDecided",
                     "AgentProposed", "AgentTaskWaiting", "AgentProposalDecided"]


def test_a_no_needs_a_reason_and_the_agent_hears_it(shop: SimpleNamespace) -> None:
    """Scenario 2a: a reject without a reason is refused; with one, the agent is told it."""
    app = shop.app
    script = _price_script(shop, note=False)
    outcome = app.agent(shop.Estimator).do(shop.EstimateRepair(), shop.repair, for_=shop.mia,
                                           model=script)
    (proposal,) = app.proposals_for(shop.noor)
    with pytest.raises(AgentRefused, match="a no needs a reason"):
        app.reject(proposal, by=shop.noor, reason="  ")
    decision = app.reject(proposal, by=shop.noor, reason="Quote the cable separately.")
    assert decision.told_agent == "Noor said no to set_price: Quote the cable separately."
    told = [m.text for m in script.seen.messages[-1] if m.role == "tool"]
    assert told == ["Noor said no to set_price: Quote the cable separately."]
    assert app.outcome(outcome.task).status is TaskStatus.DONE
    assert _repair(shop).price == 0
    with pytest.raises(AgentRefused, match="already decided"):
        app.approve(proposal, by=shop.noor)


def test_a_proposal_on_a_revised_repair_is_stale(shop: SimpleNamespace) -> None:
    """Scenario 2b: the fault is revised before Noor decides: Stale, nothing runs, the agent is
    told to look again."""
    app = shop.app
    script = _price_script(shop, note=False)
    outcome = app.agent(shop.Estimator).do(shop.EstimateRepair(), shop.repair, for_=shop.mia,
                                           model=script)
    shop.revise(shop.repair.id, "rear brake and gears")
    (proposal,) = app.proposals_for(shop.noor)
    decision = app.approve(proposal, by=shop.noor)
    assert decision.status is ProposalStatus.STALE
    assert "stale" in decision.said
    assert "(it was r1, it is now r2)" in decision.told_agent
    assert "Your instructions have changed" in decision.told_agent  # the brief names the fault
    assert "rear brake and gears" in decision.told_agent
    assert _repair(shop).price == 0
    assert app.outcome(outcome.task).status is TaskStatus.DONE


def test_a_repair_revised_just_before_a_yes_claims_the_price_makes_it_stale(
        shop: SimpleNamespace) -> None:
    """The repair's revision moves on after the yes has checked what it can before its claim
    (`decider.checked`), and before the claim: the price was proposed on r1, the repair is r2,
    so the proposal is stale and no price is set. The skill's `version_of` is read in the
    claim's own transaction; before, it was read before it, and the price was set on r2."""
    app = shop.app
    app.agent(shop.Estimator).do(shop.EstimateRepair(), shop.repair, for_=shop.mia,
                                 model=_price_script(shop, note=False))
    (proposal,) = app.proposals_for(shop.noor)

    def revise(point: str, _where: dict[str, Any]) -> None:
        if point == "decider.checked":
            with app.session(as_=app.system) as s:
                s.get(shop.Repair, shop.repair.id).revision += 1

    with points.pausing(revise):
        decision = app.approve(proposal, by=shop.noor)
    assert decision.status is ProposalStatus.STALE
    assert "(it was r1, it is now r2)" in decision.told_agent
    assert _repair(shop).price == 0


def test_approve_always_makes_a_rule_and_revoke_takes_it_back(shop: SimpleNamespace) -> None:
    """Scenario 3: approve-always makes a rule; the next estimate prices alone; revoked, it
    proposes again; the never-tool takes no rule; the catalogue reads Alone, Alone, Propose,
    Never."""
    app = shop.app
    first = app.agent(shop.Estimator).do(shop.EstimateRepair(), shop.repair, for_=shop.noor,
                                         model=_price_script(shop, price=40, note=False))
    (proposal,) = app.proposals(task=first.task)
    app.approve(proposal, by=shop.noor, always_like_this=True)
    (rule,) = app.rules()
    assert (rule.agent, rule.tool, rule.skill, rule.for_id, rule.used) == (
        "estimator", "set_price", "estimate_repair", shop.noor.id, 0
    )
    second = app.agent(shop.Estimator).do(shop.EstimateRepair(), shop.repair, for_=shop.noor,
                                          model=_price_script(shop, price=50, note=False))
    assert second.status is TaskStatus.DONE
    assert app.proposals(task=second.task) == []
    assert _repair(shop).price == 50
    (rule,) = app.rules()
    assert rule.used == 1
    assert rule.last_used_at is not None
    assert ("Estimator ran set_price alone (a standing rule of Noor's let it run alone), as Noor "
            "and itself: Done.") in app.receipt(second.task).words
    for_mia = app.agent(shop.Estimator).do(shop.EstimateRepair(), shop.repair, for_=shop.mia,
                                           model=_price_script(shop, price=55, note=False))
    assert for_mia.status is TaskStatus.WAITING  # the rule is Noor's, not Mia's
    app.revoke(rule, by=shop.noor, why="Prices went up.")
    third = app.agent(shop.Estimator).do(shop.EstimateRepair(), shop.repair, for_=shop.noor,
                                         model=_price_script(shop, price=60, note=False))
    assert third.status is TaskStatus.WAITING
    assert len(app.proposals(task=third.task)) == 1
    with pytest.raises(AgentRefused, match="may never use scrap_repair"):
        app.allow_alone(shop.Estimator, shop.scrap_repair, by=shop.noor)
    leaves = [line.leave for line in app.skills.catalog(skill=shop.EstimateRepair)]
    assert leaves == [Leave.ALONE, Leave.ALONE, Leave.PROPOSE, Leave.NEVER]


def test_the_fleet_price_waits_on_noor_and_mia_is_told_it_is_not_hers(
    shop: SimpleNamespace,
) -> None:
    """Scenario 4: the routed price waits on Noor; Mia's decision is refused in words; Noor's
    yes sets 38."""
    app = shop.app
    script = ScriptedModel(
        says.tool(shop.parts_for, fault="rear brake does not bite"),
        says.tool("Fleet rate.", shop.set_price, repair=shop.repair.id, price=38),
        says.hand_back(_estimate(shop)),
    )
    outcome = app.agent(shop.Estimator).do(shop.PriceFleetRepair(), shop.repair, for_=shop.mia,
                                           model=script)
    assert outcome.waiting_on == ("a decision from Noor",)
    assert app.proposals_for(shop.mia) == []
    (proposal,) = app.proposals_for(shop.noor)
    assert [e.answer for e in proposal.evidence] == ['["brake pads", "cable"]']
    with pytest.raises(AgentRefused) as refused:
        app.approve(proposal, by=shop.mia)
    assert str(refused.value) == (
        "This proposal is decided by Noor: the skill that proposed it says so. The work is for "
        "you; the decision is not yours."
    )
    app.approve(proposal, by=shop.noor)
    assert _repair(shop).price == 38
    lines = app.skills.catalog(skill="price_fleet_repair")
    assert [(line.tool, line.decided_by) for line in lines] == [
        ("parts_for", "nobody: it runs alone"), ("set_price", "Noor")
    ]


def test_the_person_the_work_is_for_never_decides_its_routed_proposal(
    shop: SimpleNamespace,
) -> None:
    """Made a manager, Mia supervises agents and is the first manager by name, so the fleet
    price is routed to her own decision: still she may not decide it, being the person the work
    is for; Noor, who supervises agents too, does."""
    app = shop.app
    app.people.set_roles(shop.mia, ["mechanic", "manager"])
    mia = app.people.get(shop.mia.id)
    assert app.people.with_role("manager")[0].name == "Mia"
    script = ScriptedModel(
        says.tool("Fleet rate.", shop.set_price, repair=shop.repair.id, price=38),
        says.hand_back(_estimate(shop)),
    )
    outcome = app.agent(shop.Estimator).do(shop.PriceFleetRepair(), shop.repair, for_=mia,
                                           model=script)
    assert outcome.waiting_on == ("a decision from Mia",)
    assert app.proposals_for(mia) == []
    (proposal,) = app.proposals_for(shop.noor)
    inbox = Inbox(app)  # (its page offered Mia the buttons her yes is refused by)
    assert [inbox.decidable(p, proposal) for p in (mia, shop.noor)] == [False, True]
    with pytest.raises(AgentRefused) as refused:
        app.approve(proposal, by=mia)
    assert str(refused.value) == (
        "The work is for you, and the skill routes this proposal to you: the person the work is "
        "for does not decide a routed proposal, so one who supervises agents decides it.")
    assert _repair(shop).price != 38
    app.approve(proposal, by=shop.noor)
    assert _repair(shop).price == 38


def test_never_and_unknown_tools_neither_run_nor_are_proposed(shop: SimpleNamespace) -> None:
    """A never-tool is not offered; asked for anyway, like a tool outside the skill or a
    misspelt one, it does not run, is not proposed, and the model is told."""
    app = shop.app
    script = ScriptedModel(
        says.tools(says.tool(shop.scrap_repair, repair=shop.repair.id),
                   says.raw("set_pryce", '{"price": 1}'),
                   says.raw("revise", '{"fault": "x"}'),
                   says.raw("note_repair", '{"repair": "T-7", "note": "x"}'),
                   says.raw("note_repair", '{"repair": ')),
        says.hand_back(_estimate(shop)),
    )
    outcome = app.agent(shop.Estimator).do(shop.EstimateRepair(), shop.repair, for_=shop.mia,
                                           model=script)
    assert outcome.status is TaskStatus.DONE
    assert app.proposals() == []
    assert "scrap_repair" not in [t.name for t in script.seen.tools[0]]
    told = [m.text for m in script.seen.messages[1] if m.role == "tool"]
    assert told[0] == ("scrap_repair is a tool Estimator may never use. Nothing was run, and "
                       "nothing was proposed.")
    assert told[1].startswith("There is no tool named “set_pryce” for this work")
    assert told[2].startswith("There is no tool named “revise” for this work")
    assert told[3].startswith("Invalid: Repair is the id of a Repair")
    assert told[4].startswith("Invalid: The arguments are not JSON")
    assert _repair(shop).fault == "rear brake does not bite"


def test_several_calls_in_one_turn_alone_ones_run_the_others_wait(shop: SimpleNamespace) -> None:
    """Each call of a turn is gated on its own: the note runs, two prices wait; the task goes
    on only when both are decided; nothing done is repeated."""
    app = shop.app
    script = ScriptedModel(
        says.tools(says.tool(shop.note_repair, repair=shop.repair.id, note="First."),
                   says.tool(shop.set_price, repair=shop.repair.id, price=30),
                   says.tool(shop.set_price, repair=shop.repair.id, price=31),
                   why="Two quotes."),
        says.hand_back(_estimate(shop)),
    )
    outcome = app.agent(shop.Estimator).do(shop.EstimateRepair(), shop.repair, for_=shop.mia,
                                           model=script)
    assert outcome.status is TaskStatus.WAITING
    assert _repair(shop).note == "First."
    first, second = sorted(app.proposals(task=outcome.task), key=lambda p: p.arguments["price"])
    assert first.why == second.why == "Two quotes."
    app.reject(first, by=shop.noor, reason="Too low.")
    assert app.outcome(outcome.task).status is TaskStatus.WAITING
    assert len(script.seen.messages) == 1  # no model asked while waiting
    app.approve(second, by=shop.noor)
    assert app.outcome(outcome.task).status is TaskStatus.DONE
    assert _repair(shop).price == 31
    told = [m.text for m in script.seen.messages[1] if m.role == "tool"]
    assert told == ["Noted on T-7.", "Noor said no to set_price: Too low.", "T-7 costs 31."]
    receipt = app.receipt(outcome.task)
    assert sum(1 for e in receipt.entries if e.data.get("tool") == "note_repair") == 1


def test_approve_with_changes(shop: SimpleNamespace) -> None:
    """A decider may change argument values, not the tool; the model is told what changed, and
    the receipt what the call answered."""
    app = shop.app
    script = ScriptedModel(
        says.tool("Pads.", shop.set_price, repair=shop.repair.id, price=45),
        says.hand_back(_estimate(shop)),
    )
    outcome = app.agent(shop.Estimator).do(shop.EstimateRepair(), shop.repair, for_=shop.mia,
                                           model=script)
    (proposal,) = app.proposals(task=outcome.task)
    with pytest.raises(AgentRefused, match="no argument tool"):
        app.approve(proposal, by=shop.noor, edited={"tool": "scrap_repair"})
    with pytest.raises(AgentRefused, match="Price is a number"):
        app.approve(proposal, by=shop.noor, edited={"price": "lots"})
    decision = app.approve(proposal, by=shop.noor, edited={"price": 42})
    assert decision.said == ("Noor approved set_price with price changed to 42; it ran as Noor and "
                             "the agent together.")
    assert _repair(shop).price == 42
    told = [m.text for m in script.seen.messages[1] if m.role == "tool"]
    assert told == ["Noor approved set_price with price changed to 42. T-7 costs 42."]
    decided = app.proposal(proposal.id)
    assert decided.edited == {"price": 42}
    assert decided.result["fingerprint"] != decided.fingerprint  # the call that ran is recorded
    entry = next(e for e in app.receipt(outcome.task).entries if e.kind == "decision")
    assert (entry.kind, entry.data["edited"]) == ("decision", {"price": 42})
    assert entry.words == ("Noor approved set_price with price changed to 42; it ran as Noor and "
                           "the agent together. "
                           "It answered “T-7 costs 42.”")  # (what it came to, in the receipt)
    assert entry.data["ran_fingerprint"] == decided.result["fingerprint"]


def test_ado_works_from_async_code(shop: SimpleNamespace) -> None:
    """`await agent.ado(...)` does the same work without blocking the event loop."""
    import asyncio

    script = ScriptedModel(says.tool(shop.note_repair, repair=shop.repair.id, note="Async."),
                           says.hand_back(_estimate(shop)))
    outcome = asyncio.run(shop.app.agent(shop.Estimator).ado(
        shop.EstimateRepair(), shop.repair, for_=shop.mia, model=script))
    assert outcome.status is TaskStatus.DONE
    assert _repair(shop).note == "Async."


def test_a_tool_ruled_out_since_is_withdrawn_whoever_says_yes(shop: SimpleNamespace) -> None:
    """A proposal whose tool the declaration has since made NEVER does not run."""
    app = shop.app
    script = ScriptedModel(
        says.tool("Pads.", shop.set_price, repair=shop.repair.id, price=45),
        says.hand_back(_estimate(shop)),
    )
    outcome = app.agent(shop.Estimator).do(shop.EstimateRepair(), shop.repair, for_=shop.mia,
                                           model=script)
    (proposal,) = app.proposals(task=outcome.task)
    shop.Estimator.may = shop.Permits(alone=[shop.note_repair],
                                      never=[shop.scrap_repair, shop.set_price])
    decision = app.approve(proposal, by=shop.noor)
    assert decision.status is ProposalStatus.WITHDRAWN
    assert _repair(shop).price == 0


def test_who_may_decide(shop: SimpleNamespace) -> None:
    """Someone who is neither the person the work is for, nor the route, nor a supervisor
    neither sees nor decides a proposal."""
    app = shop.app
    ola = app.people.add("ola@workshop.example", "Ola", roles=["mechanic"])
    app.agent(shop.Estimator).do(shop.EstimateRepair(), shop.repair, for_=shop.mia,
                                 model=_price_script(shop, note=False))
    assert app.proposals_for(ola) == []
    (proposal,) = app.proposals_for(shop.mia)
    with pytest.raises(AgentRefused, match=r"This proposal is for Mia to decide; it is not yours\."):
        app.reject(proposal, by=ola, reason="No.")
    with pytest.raises(AgentRefused, match="Only a supervisor"):
        app.allow_alone(shop.Estimator, shop.set_price, by=shop.mia, for_everybody=True)


def test_the_receipt_tells_every_step(shop: SimpleNamespace) -> None:
    """Each model call with its tokens and cost, each tool call with who it ran as, each
    proposal and decision: in words and as data."""
    app = shop.app
    outcome = app.agent(shop.Estimator).do(shop.EstimateRepair(), shop.repair, for_=shop.noor,
                                           model=_price_script(shop))
    app.approve(app.proposals(task=outcome.task)[0], by=shop.noor)
    receipt = app.receipt(outcome.task)
    kinds = [e.kind for e in receipt.entries]
    assert kinds == ["start", "model_call", "tool_call", "model_call", "proposal", "waiting",
                     "decision", "resumed", "model_call", "result"]
    tool = receipt.entries[2]
    assert tool.words == "Estimator ran note_repair alone, as itself: Done."
    assert tool.data["ran_as"] == ["Estimator"]
    assert tool.data["effects"]
    model_call = receipt.entries[1]
    assert model_call.data["input_tokens"] > 0
    assert "tokens in" in model_call.words


def test_changed_instructions_make_a_proposal_stale(shop: SimpleNamespace) -> None:
    """When the agent's instructions read differently, the inbox shows the proposal stale, a
    yes does not run it, and the agent is told what it is told now. Both are told that its
    instructions changed, not what it acts on (which had not: they were told it had)."""
    from signoff.inbox import Inbox

    app = shop.app
    app.agent(shop.Estimator).do(shop.EstimateRepair(), shop.repair, for_=shop.mia,
                                 model=_price_script(shop, note=False))
    (proposal,) = app.proposals_for(shop.noor)
    assert Inbox(app).freshness(proposal).fresh
    shop.Estimator.instructions = "Never price above 40."
    try:
        freshness = Inbox(app).freshness(proposal)
        assert not freshness.fresh
        assert "instructions have changed" in freshness.words
        decision = app.approve(proposal, by=shop.noor)
    finally:
        shop.Estimator.instructions = ""
    assert decision.status is ProposalStatus.STALE
    assert decision.said == ("set_price was not run: the agent's instructions have changed since "
                             "it was proposed, so it is stale. The agent has been told to look "
                             "again.")
    assert decision.told_agent == (
        "set_price was not run: your instructions changed before Noor decided. Look again "
        "before proposing it again. Your instructions have changed; they now read:\n"
        + decision.told_agent.split("they now read:\n", 1)[1])
    assert "Never price above 40." in decision.told_agent
    assert "what it was proposed on has changed" not in app.receipt(proposal.task).words
    assert _repair(shop).price == 0
