"""Runs of actions that change records and reach outside: a change the caller may not make is
refused before anything goes out, and one refused only as it is written is told as what it is."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated, Any

import pytest
from pydantic import BaseModel
from sqlalchemy import Numeric, String, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from signoff import (
    ActionOutcome,
    Agent,
    App,
    Choices,
    Permits,
    ProposalStatus,
    Provided,
    Skill,
    allow,
    deny,
    policy,
)
from signoff.agents.proposals import fingerprint
from signoff.agents.proposing import does_otherwise, fingerprint_of
from signoff.effects import Effect, EffectKind, Effects
from signoff.testing import ScriptedModel, says
from tests.repair_pricing import price_proposed, pricing_shop


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
    words = shop.app.receipt(task).words
    assert ("did not run set_price alone (a standing rule of Mia's let it run alone), as Mia and "
            "itself: Denied — ") in words, words


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
        "but price_ticket had begun to run, so what it does outside the app may have happened "
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
    effects = shop.app.actions.info("set_price").effects
    assert fingerprint_of(proposal, "Estimate.", effects=effects) == made
    moved = Effects(effects=tuple(replace(e, path=("price_it", *e.path), at="shop.py:99")
                                  for e in effects.effects))
    assert fingerprint_of(proposal, "Estimate.", effects=moved) == made  # where, not what
    grown = Effects(effects=(*effects.effects, Effect(
        kind=EffectKind.EXTERNAL, target="httpx.post", path=("set_price", "httpx.post()"))))
    assert fingerprint_of(proposal, "Estimate.", effects=grown) != made
    assert fingerprint_of(proposal, "Estimate.", effects=Effects(effects=tuple(
        e for e in effects.effects if e.kind is not EffectKind.CHANGES))) != made
    assert fingerprint_of(proposal, "Estimate.", effects=Effects(effects=tuple(
        e for e in effects.effects if e.kind is not EffectKind.READS))) == made  # (reads alone)


def test_a_change_of_nothing_named_stands_only_for_the_same_step_read_more_finely(
        tmp_path: Path) -> None:
    """A change shown of nothing named ("changes: set_price -> repair.price =", as an older
    release read it) stands for the same step now read as a Repair's price; one shown of a
    list's append stood for it too, so that a release that made the action change a Repair
    ran on a yes to a proposal that showed none: it is more now. A line that does not read
    back stands for nothing."""
    shop = _shop(tmp_path)
    task = shop.estimate(says.tool("Pads.", shop.set_price, repair=shop.repair.id, price=45),
                         says.hand_back(Estimate(hours=1, summary="x")))
    proposal = shop.app.proposals(task=task)[0]
    now = Effects(effects=(Effect(kind=EffectKind.CHANGES, target="Repair",
                                  path=("set_price", "repair.price =")),))
    for older in ("changes: set_price -> repair.price = …", "changes: set_price -> repair.price ="):
        assert does_otherwise(replace(proposal, effects=(older,)), now) == "", older
    other = replace(proposal, effects=("changes: set_price -> items.append()",))
    assert does_otherwise(other, now) == (
        "it now also changes the `price` of a Repair, and no longer changes something other "
        "than records (a value it was given, or one kept in the program)")
    unread = replace(proposal, effects=("changes the price somehow",))
    assert does_otherwise(unread, now).startswith("it now also changes the `price` of a Repair")


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

    shop = pricing_shop(app, Repair, set_price)
    shop.outbox = outbox
    return shop


def test_a_yes_after_the_action_came_to_do_more_than_was_shown_does_not_run_it(
        tmp_path: Path) -> None:
    """A proposal shown as changing a Repair, decided after the app was deployed again with its
    action also mailing the customer list, ran the new code; now it is Stale, nothing goes out,
    and the person, the agent and the inbox are told what the action now does."""
    from signoff.inbox import Inbox

    v1 = _deployed(tmp_path, mails=False)
    proposal = price_proposed(v1)
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


def _owned(tmp_path: Path) -> SimpleNamespace:
    """A shop whose mechanics change their own repairs (its manager any, and alone the price),
    with actions that reach outside (they write to an outbox file)."""
    app = App("shop", database=f"sqlite:///{tmp_path / 'owned.db'}", key=b"k" * 32)
    outbox = tmp_path / "outbox.txt"
    is_manager = policy.role("manager")
    owns = policy.where(lambda p, r: r is not None and r.owner == p.handle, "owns it")

    class Repair(app.Record):  # type: ignore[name-defined, misc]
        ticket: Mapped[str] = mapped_column(String(40), unique=True)
        note: Mapped[str] = mapped_column(String(200), default="")
        owner: Mapped[str] = mapped_column(String(80), default="")
        price: Mapped[Decimal] = mapped_column(Numeric(10, 2), default=Decimal(0))
        __security__ = [allow("read", "create", when=policy.anyone),
                        allow("update", when=owns | is_manager),
                        deny("update", "price", when=~is_manager)]

    class Secret(app.Record):  # type: ignore[name-defined, misc]
        code: Mapped[str] = mapped_column(String(40), default="")
        __security__ = [allow("read", "create", when=is_manager)]

    def repairs() -> list[tuple[str, str]]:
        with app.session(as_=app.system) as s:
            return [(str(r.id), r.ticket) for r in s.scalars(select(Repair))]

    def mail(line: str) -> None:
        with open(outbox, "a", encoding="utf-8") as f:
            f.write(f"{line}\n")

    @app.action("Set a field")
    def set_field(repair: Repair, field: str, value: str) -> str:
        """Set one field, named by the caller, and mail the customer list."""
        setattr(repair, field, Decimal(value) if field == "price" else value)
        mail(f"SET {field}={value}")
        return "Set."

    @app.action("Copy a note")
    def copy_note(source: Repair, target: Annotated[Repair, Choices(repairs)]) -> str:
        """Copy one repair's note into another's, and mail it."""
        target.note = source.note
        mail(f"COPIED {source.ticket} -> {target.ticket}")
        return "Copied."

    @app.action("Copy a note back")
    def copy_back(source: Repair, target: Annotated[Repair, Choices(repairs)]) -> str:
        """Copy a note the other way, through a name bound again, and mail it."""
        target, source = source, target
        target.note = source.note
        mail(f"COPIED {source.ticket} -> {target.ticket}")
        return "Copied."

    @app.action("Mail the codes")
    def mail_codes(session: Annotated[Session, Provided("session")]) -> str:
        """Mail the codes: read (refused to all but the manager) before anything goes out."""
        codes = [s.code for s in session.scalars(select(Secret))]
        mail(",".join(codes))
        return "Mailed."

    mia = app.people.add("mia@shop.example", "Mia", roles=["mechanic"])
    noor = app.people.add("noor@shop.example", "Noor", roles=["manager"])
    with app.session(as_=app.system) as s:
        theirs = Repair(ticket="T-1", note="pads", owner=noor.handle)
        mine = Repair(ticket="T-2", owner=mia.handle)
        s.add_all([theirs, mine, Secret(code="x")])

    def sent() -> list[str]:
        return outbox.read_text().splitlines() if outbox.exists() else []

    def note(repair: Any) -> str:
        with app.session(as_=app.system) as s:
            return s.get(Repair, repair.id).note  # type: ignore[no-any-return]

    return SimpleNamespace(app=app, mia=mia, noor=noor, theirs=theirs, mine=mine, sent=sent,
                           note=note)


def test_an_outside_run_whose_changed_fields_cannot_be_told_is_denied_before_it_runs(
        tmp_path: Path) -> None:
    """A change whose fields the analysis cannot name (``setattr``) was checked as changing
    none, so a field rule let it run and mail before the change was refused; now it is taken
    to change any field, and Mia's run is Denied with nothing sent, as `for_record` shows."""
    shop = _owned(tmp_path)
    result = shop.app.actions.run("set_field", {"repair": shop.mine, "field": "price",
                                                "value": "99"}, as_=shop.mia)
    assert (result.outcome, result.problem) == (
        ActionOutcome.DENIED,
        "Mia may not change the price of Repair T-2. set_field changes fields of it that its "
        "code does not name (taken to be any of them), so it was not run: someone who may "
        "change them can run it.")
    assert shop.sent() == []
    assert "set_field" not in [i.name for i in shop.app.actions.for_record(shop.mine,
                                                                            as_=shop.mia)]
    done = shop.app.actions.run("set_field", {"repair": shop.mine, "field": "price",
                                              "value": "99"}, as_=shop.noor)
    assert done.outcome is ActionOutcome.DONE
    assert shop.sent() == ["SET price=99"]


def test_an_outside_run_is_checked_only_on_the_record_its_change_is_written_of(
        tmp_path: Path) -> None:
    """An action that reads one repair and changes another was Denied for Mia because she may
    not change the one it only reads; now a change written as a parameter's is checked on that
    parameter's record alone — and one through a name bound again, on every record given."""
    shop = _owned(tmp_path)
    values = {"source": shop.theirs.id, "target": shop.mine.id}
    result = shop.app.actions.run("copy_note", values, as_=shop.mia)
    assert (result.outcome, result.problem) == (ActionOutcome.DONE, "")
    assert (shop.sent(), shop.note(shop.mine)) == (["COPIED T-1 -> T-2"], "pads")
    assert "copy_note" in [i.name for i in shop.app.actions.for_record(shop.theirs,
                                                                        as_=shop.mia)]
    back = shop.app.actions.run("copy_back", values, as_=shop.mia)
    assert (back.outcome, back.problem) == (ActionOutcome.DENIED,
                                            "Mia may not change Repair T-1.")
    assert shop.sent() == ["COPIED T-1 -> T-2"]
    mine = shop.app.actions.run("copy_note", {"source": shop.mine.id, "target": shop.theirs.id},
                                as_=shop.mia)
    assert (mine.outcome, mine.problem) == (ActionOutcome.DENIED,
                                            "Mia may not change Repair T-1.")
    assert shop.sent() == ["COPIED T-1 -> T-2"]


def test_an_outside_run_refused_a_read_once_it_had_begun_may_have_gone_out(
        tmp_path: Path) -> None:
    """A read its code makes, refused once the body has begun, may come after what it did
    outside (which came first cannot be told): the run is Failed, saying what it does outside
    may have happened — not Denied, "it did not run", which gave back what it had reserved to
    spend."""
    shop = _owned(tmp_path)
    result = shop.app.actions.run("mail_codes", {}, as_=shop.mia)
    assert result.outcome is ActionOutcome.FAILED
    assert result.problem.startswith("A Secret this reads is not there: it does not exist, or "
                                     "whoever this runs as cannot read it.")
    assert "had begun to run, so what it does outside the app may have happened" in (
        result.problem)
    assert shop.sent() == []
    done = shop.app.actions.run("mail_codes", {}, as_=shop.noor)
    assert (done.outcome, shop.sent()) == (ActionOutcome.DONE, ["x"])


_SHOP_MODULE = '''
import urllib.request
from decimal import Decimal

from pydantic import BaseModel
from sqlalchemy import Numeric, String, select
from sqlalchemy.orm import Mapped, mapped_column

from signoff import Agent, App, Permits, Skill, allow


def build(database, hooks):
    app = App("shop", database=database, key=b"k" * 32)

    class Repair(app.Record):
        ticket: Mapped[str] = mapped_column(String(40), unique=True)
        price: Mapped[Decimal] = mapped_column(Numeric(10, 2), default=Decimal(0))
        note: Mapped[str] = mapped_column(String(200), default="")
        __security__ = [allow("read", "create", "update")]
{above}
    @app.action("Set the price")
    def set_price(repair: Repair, price: Decimal) -> str:
        """Set what the repair costs, and tell the hooks."""
        repair.price = price
        {helper}(repair, hooks)
{also}        return f"{{repair.ticket}} costs {{price}}."

    class Estimate(BaseModel):
        hours: int
        summary: str

    class PriceRepair(Skill[Repair, Estimate]):
        description = "Price one repair."
        tools = [set_price]

        def brief(self, r):
            return f"Ticket {{r.ticket}}. Its id is {{r.id}}."

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
    return app, noor, repair, set_price, PriceRepair, Pricer, Estimate


def {helper}(repair, hooks):
    for hook in hooks:
        hook(repair)
'''
"""A shop as a module of its own, its action calling hooks it cannot see into through a helper
(the line of that call is where the analysis could not see)."""


def _released(tmp_path: Path, release: str, hooks: list[Any], *, helper: str = "_tell",
              above: str = "", also: str = "") -> SimpleNamespace:
    """The shop of `_SHOP_MODULE` as release `release` writes it (its module file in a folder of
    its own, loaded afresh), on the database every release shares."""
    import importlib.util

    folder = tmp_path / release
    folder.mkdir()
    (folder / "shop.py").write_text(
        _SHOP_MODULE.format(helper=helper, above=above, also=also), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("shop", folder / "shop.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    app, noor, repair, set_price, skill, agent, estimate = module.build(
        f"sqlite:///{tmp_path / 'released.db'}", hooks)
    return SimpleNamespace(app=app, noor=noor, repair=repair, set_price=set_price, skill=skill,
                           agent=agent, estimate=estimate)


def _proposed(shop: SimpleNamespace) -> Any:
    """A proposal to set the repair's price to 31, as `shop`'s agent makes it."""
    return price_proposed(shop, budget_usd=float("inf"))


@pytest.mark.parametrize("change", [
    {"above": "\n    # Prices are set by hand until the supplier's list is in.\n\n    # (See the"
              " shop's notes.)\n"},
    {"helper": "_tell_the_hooks"},
], ids=["comments above the action", "a helper on its path renamed"])
def test_a_release_that_moves_what_the_action_does_in_its_code_leaves_its_proposals_fresh(
        tmp_path: Path, change: dict[str, str]) -> None:
    """A proposal made before a release that only added comments above its action, or renamed
    a helper on its path, went stale on a yes, the person told the action "now also" did what
    it always did (at the lines it had moved to); now it still reads as proposed, and a yes runs
    it."""
    from signoff.inbox import Inbox

    told: list[Any] = []
    before = _released(tmp_path, "before", [])
    proposal = _proposed(before)
    after = _released(tmp_path, "after", [told.append], **change)
    assert tuple(after.app.actions.info("set_price").effects.explain()) != proposal.effects
    assert Inbox(after.app).freshness(proposal).fresh
    shown = Inbox(after.app).effects(proposal)  # in words, though its lines moved (they were
    assert shown  # shown raw)
    assert all(" -> " not in line.words for line in shown), shown
    assert all(line.code for line in shown), shown
    decision = after.app.approve(proposal.id, by=after.noor)
    assert decision.status is ProposalStatus.DONE, decision.said
    assert len(told) == 1  # the new release's hooks were told


_FETCHES = "        urllib.request.urlopen('https://supplier.example/prices')\n"
"""A line of the action that reaches outside the app."""


@pytest.mark.parametrize(("before", "after", "does"), [
    ({}, {"also": _FETCHES, "above": "\n    # Asks the supplier too.\n"},
     "it now also reaches outside the app (`urllib.request.urlopen`)"),
    ({"also": _FETCHES}, {},
     "it no longer reaches outside the app (`urllib.request.urlopen`)"),
], ids=["an outside call it now also makes", "an outside call it no longer makes"])
def test_a_release_that_changes_what_the_action_does_still_makes_its_proposals_stale(
        tmp_path: Path, before: dict[str, str], after: dict[str, str], does: str) -> None:
    """A release whose action reaches outside the app where what was shown with a proposal did
    not, or no longer does (its lines moved or not), still makes the proposal stale, and says
    truly what changed."""
    from signoff.inbox import Inbox

    told: list[Any] = []
    proposal = _proposed(_released(tmp_path, "before", [], **before))
    shop = _released(tmp_path, "after", [told.append], **after)
    assert Inbox(shop.app).freshness(proposal).words == (
        f"What set_price does has changed since this was proposed — {does}: a yes will not run "
        "it; the agent will be told to look again.")
    decision = shop.app.approve(proposal.id, by=shop.noor)
    assert decision.status is ProposalStatus.STALE
    assert decision.said == (
        f"set_price was not run: what it does has changed since it was proposed, so it is stale "
        f"— {does}. The agent has been told to look again.")
    assert told == []
