"""Runs of actions that change records and reach outside: a change the caller may not make is
refused before anything goes out, and one refused only as it is written is told as what it is."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated, Any

from pydantic import BaseModel
from sqlalchemy import Numeric, String, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from signoff import (
    ActionOutcome,
    Agent,
    App,
    Permits,
    ProposalStatus,
    Provided,
    Skill,
    allow,
    deny,
    policy,
)
from signoff.agents.proposals import fingerprint
from signoff.agents.proposing import fingerprint_of
from signoff.testing import ScriptedModel, says


class Estimate(BaseModel):
    hours: int
    summary: str


def _shop(tmp_path: Path) -> SimpleNamespace:
    """A bike shop whose price setters also write to an outbox file (they reach outside)."""
    app = App("shop", database=f"sqlite:///{tmp_path / 'shop.db'}", key=b"k" * 32)
    outbox = tmp_path / "outbox.txt"
    is_mechanic, is_manager = policy.role("mechanic"), policy.role("manager")

    class Repair(app.Record):  # type: ignore[name-defined, misc]
        ticket: Mapped[str] = mapped_column(String(40), unique=True)
        price: Mapped[Decimal] = mapped_column(Numeric(10, 2), default=Decimal(0))
        note: Mapped[str] = mapped_column(String(200), default="")
        __security__ = [
            allow("read", "create", "update", when=is_mechanic | is_manager | policy.role("helper")),
            deny("update", "price", when=~is_manager & ~policy.role("helper")),
        ]

    @app.action("Set the price")
    def set_price(repair: Repair, price: Decimal) -> str:
        """Set what the repair costs, and mail the customer list."""
        repair.price = price
        with open(outbox, "a", encoding="utf-8") as f:
            f.write(f"PRICE {price}\n")
        return f"{repair.ticket} costs {price}."

    @app.action("Set the prices")
    def set_prices(repairs: list[Repair], price: Decimal) -> str:
        """Set what the repairs cost, and mail the customer list."""
        for repair in repairs:
            repair.price = price
        with open(outbox, "a", encoding="utf-8") as f:
            f.write(f"PRICES {price}\n")
        return "Priced."

    class Quote(BaseModel):
        repair: Repair
        price: Decimal

    @app.action("Quote a price")
    def quote(quotes: list[Quote]) -> str:
        """Set the prices quoted, and mail the customer list."""
        for q in quotes:
            q.repair.price = q.price
        with open(outbox, "a", encoding="utf-8") as f:
            f.write("QUOTED\n")
        return "Quoted."

    @app.action("Set the price by ticket")
    def price_ticket(ticket: str, price: Decimal,
                     session: Annotated[Session, Provided("session")]) -> str:
        """Set what the repair with this ticket costs, and mail the customer list."""
        with open(outbox, "a", encoding="utf-8") as f:
            f.write(f"TICKET {price}\n")
        repair = session.scalars(select(Repair).where(Repair.ticket == ticket)).one()
        repair.price = price
        return f"{ticket} costs {price}."

    @app.action("Write a note")
    def note_repair(repair: Repair, note: str) -> str:
        """Write the mechanic's note, and mail it."""
        repair.note = note
        with open(outbox, "a", encoding="utf-8") as f:
            f.write(f"NOTE {note}\n")
        return "Noted."

    class EstimateRepair(Skill[Repair, Estimate]):
        description = "Estimate one repair, and price it."
        tools = [set_price, price_ticket, note_repair]

        def brief(self, r: Repair) -> str:
            return f"Ticket {r.ticket}. Its id is {r.id}."

    class Estimator(Agent):
        purpose = "You estimate bicycle repairs."
        skills = [EstimateRepair()]
        may = Permits()
        roles = ["helper"]

    mia = app.people.add("mia@shop.example", "Mia", roles=["mechanic"])
    noor = app.people.add("noor@shop.example", "Noor", roles=["manager"])
    app.add_agent(Estimator, sponsor=noor)
    with app.session(as_=mia) as s:
        repair = Repair(ticket="T-7")
        other = Repair(ticket="T-8")
        s.add_all([repair, other])

    def sent() -> list[str]:
        return outbox.read_text().splitlines() if outbox.exists() else []

    def price() -> Decimal:
        with app.session(as_=app.system) as s:
            return s.get(Repair, repair.id).price  # type: ignore[no-any-return]

    def estimate(*turns: Any) -> str:
        outcome = app.agent(Estimator).do(EstimateRepair(), repair, for_=mia,
                                          model=ScriptedModel(*turns))
        return outcome.task

    return SimpleNamespace(app=app, mia=mia, noor=noor, repair=repair, other=other, sent=sent,
                           price=price, estimate=estimate, set_price=set_price,
                           price_ticket=price_ticket, EstimateRepair=EstimateRepair)


def test_an_outside_run_whose_change_is_refused_is_denied_before_it_runs(tmp_path: Path) -> None:
    """A run by someone who may not make the change the action makes on its subject was
    refused only where the change was written, after its mail had gone out; now it is Denied
    before it runs, in the record rule's words, and nothing goes out."""
    shop = _shop(tmp_path)
    result = shop.app.actions.run("set_price", {"repair": shop.repair, "price": 45}, as_=shop.mia)
    assert (result.outcome, result.problem) == (
        ActionOutcome.DENIED, "Mia may not change the price of Repair T-7.")
    assert shop.sent() == []
    assert shop.price() == 0
    # The rules `for_record` reads: what they let a caller change runs, and its mail goes out.
    assert "set_price" not in [i.name for i in shop.app.actions.for_record(shop.repair,
                                                                            as_=shop.mia)]
    noted = shop.app.actions.run("note_repair", {"repair": shop.repair, "note": "pads"},
                                 as_=shop.mia)
    priced = shop.app.actions.run("set_price", {"repair": shop.repair, "price": 45},
                                  as_=shop.noor)
    assert (noted.outcome, priced.outcome) == (ActionOutcome.DONE, ActionOutcome.DONE)
    assert (shop.sent(), shop.price()) == (["NOTE pads", "PRICE 45"], 45)


def test_an_outside_run_on_records_in_a_sequence_or_structure_is_denied_before_it_runs(
        tmp_path: Path) -> None:
    """Records a run's values name within a sequence or a structure are checked before it runs,
    as its subject is."""
    shop = _shop(tmp_path)
    result = shop.app.actions.run("set_prices", {"repairs": [shop.repair, shop.other],
                                                 "price": 45}, as_=shop.mia)
    assert result.outcome is ActionOutcome.DENIED
    assert "may not change the price" in result.problem
    assert shop.sent() == []
    quoted = shop.app.actions.run("quote", {"quotes": [{"repair": str(shop.repair.id),
                                                        "price": 45}]}, as_=shop.mia)
    assert (quoted.outcome, quoted.problem) == (
        ActionOutcome.DENIED, "Mia may not change the price of Repair T-7.")
    assert shop.sent() == []


def test_a_consented_outside_run_whose_change_is_refused_sends_nothing(tmp_path: Path) -> None:
    """A consent whose principal may not make the change is Denied before it runs."""
    shop = _shop(tmp_path)
    token = shop.app.actions.consent("set_price", {"repair": shop.repair.id, "price": 46},
                                     as_=shop.mia)
    result = shop.app.actions.run_consented(token)
    assert (result.outcome, result.problem) == (
        ActionOutcome.DENIED, "Mia may not change the price of Repair T-7.")
    assert shop.sent() == []


def test_a_yes_from_someone_who_may_not_make_the_change_sends_nothing(tmp_path: Path) -> None:
    """Mia's yes to a price she may not set said "it did not run", though its mail had gone
    out; now nothing goes out, and the words are true."""
    shop = _shop(tmp_path)
    task = shop.estimate(says.tool("Pads.", shop.set_price, repair=shop.repair.id, price=45),
                         says.hand_back(Estimate(hours=1, summary="x")))
    decision = shop.app.approve(shop.app.proposals(task=task)[0], by=shop.mia)
    assert decision.said == ("Mia approved set_price, but it did not run: Mia may not change "
                             "the price of Repair T-7.")
    assert shop.sent() == []
    assert shop.price() == 0


def test_a_standing_rule_whose_maker_may_not_make_the_change_sends_nothing(
        tmp_path: Path) -> None:
    """Under a rule made by someone who may not set prices, the agent's run is refused
    before its mail goes out."""
    shop = _shop(tmp_path)
    shop.app.allow_alone("estimator", shop.set_price, by=shop.mia)
    task = shop.estimate(says.tool("Pads.", shop.set_price, repair=shop.repair.id, price=45),
                         says.hand_back(Estimate(hours=1, summary="x")))
    assert shop.sent() == []
    assert shop.price() == 0
    assert "as Mia and itself: Denied." in shop.app.receipt(task).words


def test_a_change_refused_only_as_it_is_written_says_the_outside_part_may_have_run(
        tmp_path: Path) -> None:
    """A change on a record the run found itself cannot be checked before it runs: refused
    where it is written, nothing of the app's is kept, and the caller is told that what it did
    outside may have happened — not that it did not run."""
    shop = _shop(tmp_path)
    result = shop.app.actions.run("price_ticket", {"ticket": "T-7", "price": 45}, as_=shop.mia)
    assert result.outcome is ActionOutcome.FAILED
    assert result.problem == (
        "Mia may not change the price of Repair T-7. Nothing it changed in the app was kept, "
        "but price_ticket had already run, so what it does outside the app may have happened "
        "(reaches outside the app (`builtins.open`)): check before trying again.")
    assert (shop.sent(), shop.price()) == (["TICKET 45"], 0)
    task = shop.estimate(says.tool("Pads.", shop.price_ticket, ticket="T-7", price=46),
                         says.hand_back(Estimate(hours=1, summary="x")))
    decision = shop.app.approve(shop.app.proposals(task=task)[0], by=shop.mia)
    assert decision.said.startswith("Mia approved price_ticket, but it failed: Mia may not "
                                    "change the price of Repair T-7. Nothing it changed")


def test_the_fingerprint_reads_otherwise_when_the_effects_do(tmp_path: Path) -> None:
    """A proposal's fingerprint read with its action's effects as they are now is the one it
    was made with while they read as shown — as fingerprints made before the effects were part
    of it read, so that those still waiting do not go stale — and another once they differ."""
    shop = _shop(tmp_path)
    task = shop.estimate(says.tool("Pads.", shop.set_price, repair=shop.repair.id, price=45),
                         says.hand_back(Estimate(hours=1, summary="x")))
    proposal = shop.app.proposals(task=task)[0]
    made = fingerprint_of(proposal, "Estimate.")
    assert made == fingerprint({
        "agent": proposal.agent, "skill": proposal.skill,
        "skill_version": proposal.skill_version, "tool": proposal.action,
        "arguments": proposal.arguments, "subject_version": proposal.subject_version,
        "instructions": "Estimate."})  # as before effects were part of it
    assert fingerprint_of(proposal, "Estimate.", effects=list(proposal.effects)) == made
    grown = [*proposal.effects, "external builtins.open: set_price -> builtins.open(mode='a')"]
    assert fingerprint_of(proposal, "Estimate.", effects=grown) != made
    assert fingerprint_of(proposal, "Estimate.", effects=grown[1:]) != made


def _deployed(tmp_path: Path, *, mails: bool) -> SimpleNamespace:
    """The same shop deployed on the same database, its set_price mailing the customer list
    or not."""
    app = App("shop", database=f"sqlite:///{tmp_path / 'deployed.db'}", key=b"k" * 32)
    outbox = tmp_path / "outbox.txt"

    class Repair(app.Record):  # type: ignore[name-defined, misc]
        ticket: Mapped[str] = mapped_column(String(40), unique=True)
        price: Mapped[Decimal] = mapped_column(Numeric(10, 2), default=Decimal(0))
        __security__ = [allow("read", "create", "update")]

    if mails:
        @app.action("Set the price")
        def set_price(repair: Repair, price: Decimal) -> str:
            """Set what the repair costs, and mail the customer list."""
            repair.price = price
            with open(outbox, "a", encoding="utf-8") as f:
                f.write(f"PRICE {price}\n")
            return f"{repair.ticket} costs {price}."
    else:
        @app.action("Set the price")
        def set_price(repair: Repair, price: Decimal) -> str:
            """Set what the repair costs."""
            repair.price = price
            return f"{repair.ticket} costs {price}."

    class PriceRepair(Skill[Repair, Estimate]):
        description = "Price one repair."
        tools = [set_price]

        def brief(self, r: Repair) -> str:
            return f"Ticket {r.ticket}. Its id is {r.id}."

    class Pricer(Agent):
        purpose = "You price bicycle repairs."
        skills = [PriceRepair()]
        may = Permits()

    noor = app.people.find("noor@shop.example") or app.people.add(
        "noor@shop.example", "Noor", roles=["manager"])
    app.add_agent(Pricer, sponsor=noor)
    with app.session(as_=noor) as s:
        repair = s.scalars(select(Repair)).first()
        if repair is None:
            repair = Repair(ticket="T-7")
            s.add(repair)
    return SimpleNamespace(app=app, noor=noor, repair=repair, set_price=set_price,
                           skill=PriceRepair, agent=Pricer, outbox=outbox)


def test_a_yes_after_the_action_came_to_do_more_than_was_shown_does_not_run_it(
        tmp_path: Path) -> None:
    """A proposal shown as changing a Repair, decided after the app was deployed again with its
    action also mailing the customer list, ran the new code; now it is Stale, nothing goes out,
    and the person, the agent and the inbox are told what the action now does."""
    from signoff.inbox import Inbox

    v1 = _deployed(tmp_path, mails=False)
    outcome = v1.app.agent(v1.agent).do(v1.skill(), v1.repair, for_=v1.noor, model=ScriptedModel(
        says.tool("Pads.", v1.set_price, repair=v1.repair.id, price=31),
        says.hand_back(Estimate(hours=1, summary="x"))))
    proposal = v1.app.proposals(task=outcome.task)[0]
    v2 = _deployed(tmp_path, mails=True)
    assert not Inbox(v2.app).freshness(proposal).fresh
    assert Inbox(v2.app).freshness(proposal).words == (
        "What set_price does has changed since this was proposed — it now also reaches outside "
        "the app (`builtins.open`): a yes will not run it; the agent will be told to look again.")
    assert Inbox(v1.app).freshness(proposal).fresh
    decision = v2.app.approve(proposal.id, by=v2.noor)
    assert decision.status is ProposalStatus.STALE
    assert decision.said == (
        "set_price was not run: what it does has changed since it was proposed, so it is stale "
        "— it now also reaches outside the app (`builtins.open`). The agent has been told to "
        "look again.")
    assert decision.told_agent == (
        "set_price was not run: what it does changed before Noor decided — it now also reaches "
        "outside the app (`builtins.open`). Look again before proposing it again.")
    assert not v2.outbox.exists()
