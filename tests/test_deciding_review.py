"""How a person's decision on a proposal is carried out, where a review found it broke a promise:
a run again after a crash uses the approved changes; an edit never moves what the call acts on
(an id, a value the skill names, what its `version_of` reads); a skill's failing `version_of`,
a changed value that cannot be written as JSON, an agent's own account deciding, and a rule
asked for where it would cover nothing (work for nobody) or with changed values are refused in
a sentence, the proposal still waiting."""

from __future__ import annotations

import re
import uuid
import warnings
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated, Any

import pytest
from fastapi.testclient import TestClient
from pydantic import BaseModel
from sqlalchemy import Numeric, String, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from signoff import (
    Agent,
    AgentRefused,
    App,
    EditRefused,
    Permits,
    ProposalStatus,
    Provided,
    Route,
    Skill,
    TaskStatus,
    allow,
    policy,
)
from signoff.agents.proposals import Proposal
from signoff.inbox import Inbox
from signoff.store import points
from signoff.testing import ScriptedModel, says
from signoff.web import create_web_app
from signoff.web.auth import Browser
from signoff.web.pages import Pages


class Done(BaseModel):
    """What the clerk hands back."""

    ok: bool


def _world(tmp_path: Path) -> SimpleNamespace:
    """A shop of tags on a file database: a clerk agent proposes every change; `world.fails`
    makes its skill's `version_of` raise; `world.route` routes every proposal to a queue (the
    agent's own account is in the "desk" one, as Dee is)."""
    app = App("tags", database=f"sqlite:///{tmp_path / 'tags.db'}", key=b"t" * 32)
    app.oversight.supervises_agents = policy.role("boss")
    board = tmp_path / "board.txt"
    world = SimpleNamespace(app=app, board=board, fails=False, route=None)

    class Tag(app.Record):  # type: ignore[name-defined, misc]
        """A price tag."""

        name: Mapped[str] = mapped_column(String(40), unique=True)
        price: Mapped[Decimal] = mapped_column(Numeric(10, 2), default=Decimal(0))
        revision: Mapped[int] = mapped_column(default=1)
        __security__ = [allow("read", "create", "update", when=policy.anyone)]

    @app.action("Price a tag")
    def set_price(tag: Tag, price: Decimal) -> str:
        """Set a tag's price."""
        tag.price = price
        tag.revision += 1
        return f"{tag.name} costs {price}."

    @app.action("Price a tag by its id")
    def price_by_id(tag_id: uuid.UUID, price: Decimal,
                    session: Annotated[Session, Provided("session")]) -> str:
        """Set the price of the tag with this id."""
        tag = session.get(Tag, tag_id)
        if tag is None:
            return "No such tag."
        tag.price = price
        return f"{tag.name} costs {price}."

    @app.action("Price a tag by its name")
    def price_by_name(name: str, price: Decimal,
                      session: Annotated[Session, Provided("session")]) -> str:
        """Set the price of the tag of this name."""
        tag = session.scalars(select(Tag).where(Tag.name == name)).one()
        tag.price = price
        return f"{tag.name} costs {price}."

    @app.action("Price a tag by its code")
    def price_by_code(code: str, price: Decimal,
                      session: Annotated[Session, Provided("session")]) -> str:
        """Set the price of the tag whose name is this code."""
        tag = session.scalars(select(Tag).where(Tag.name == code)).one()
        tag.price = price
        return f"{tag.name} costs {price}."

    @app.action("Post a notice", idempotent=True)
    def post_notice(text: str) -> str:
        """Post a notice on the outside board (posting it again does no harm)."""
        with board.open("a", encoding="utf-8") as f:
            f.write(text + "\n")
        return "Posted."

    def tag_named(name: str) -> Any:
        with app.session(as_=app.system) as s:
            return s.scalars(select(Tag).where(Tag.name == name)).one_or_none()

    class Mind(Skill[Tag, Done]):
        description = "Mind the tags."
        tools = [set_price, price_by_id, price_by_name, price_by_code, post_notice]

        def version_of(self, action: str, arguments: dict[str, Any]) -> str:
            if world.fails == "in a session":  # (the app's session joins the claim's)
                with app.session(as_=app.system) as s:
                    s.scalars(select(Tag)).all()
                    raise KeyError("tag")
            if world.fails:
                raise KeyError("tag")
            if action == "price_by_name":  # which tag, and its revision
                tag = tag_named(str(arguments["name"]))
                return f"{tag.id}/r{tag.revision}" if tag is not None else "gone"
            return ""

        def names(self, action: str, argument: str, value: str) -> str:
            return f"the tag coded {value}" if argument == "code" else value

        def decided_by(self, action: str) -> Route | None:
            return Route.to_queue(world.route) if world.route else None

    class Clerk(Agent):
        purpose = "You mind the tags."
        skills = [Mind()]
        may = Permits()
        roles = ["clerk", "desk"]

    world.pat = app.people.add("pat@tags.example", "Pat", roles=["clerk"])
    world.sue = app.people.add("sue@tags.example", "Sue", roles=["boss"])
    world.dee = app.people.add("dee@tags.example", "Dee", roles=["desk"])
    app.add_agent(Clerk, sponsor=world.sue)
    with app.session(as_=world.pat) as s:
        world.a, world.b = Tag(name="a"), Tag(name="b")
        s.add_all([world.a, world.b])
    world.Tag, world.Clerk, world.Mind = Tag, Clerk, Mind
    world.tools = SimpleNamespace(set_price=set_price, price_by_id=price_by_id,
                                  price_by_name=price_by_name, price_by_code=price_by_code,
                                  post_notice=post_notice)
    return world


@pytest.fixture
def world(tmp_path: Path) -> Iterator[SimpleNamespace]:
    """The shop of tags."""
    made = _world(tmp_path)
    yield made
    made.app.database.dispose()


def _proposed(world: SimpleNamespace, tool: Any, *, for_: Any = "pat", **arguments: Any
              ) -> tuple[Proposal, ScriptedModel]:
    """The proposal of one call of `tool` (work for Pat, unless `for_` says otherwise), and
    the model, which hands back next."""
    model = ScriptedModel(says.tool("Needed.", tool, **arguments), says.hand_back(Done(ok=True)))
    person = world.pat if for_ == "pat" else for_
    outcome = world.app.agent(world.Clerk).do(world.Mind(), world.a, for_=person, model=model)
    assert outcome.status is TaskStatus.WAITING, outcome.problem
    (proposal,) = world.app.proposals(task=outcome.task)
    return proposal, model


def _prices(world: SimpleNamespace) -> dict[str, str]:
    with world.app.session(as_=world.app.system) as s:
        return {t.name: str(t.price) for t in s.scalars(select(world.Tag))}


def _waits(world: SimpleNamespace, proposal: Proposal) -> None:
    """Nothing of `proposal` was decided, used up or run."""
    assert world.app.proposal(proposal).status is ProposalStatus.WAITING
    assert _prices(world) == {"a": "0.00", "b": "0.00"}


def test_a_run_again_after_a_crash_uses_the_approved_changes(world: SimpleNamespace) -> None:
    """An idempotent outside call approved with a change, whose process stopped once it was
    claimed, is run again by a worker with the changed values, and its receipt says the change.
    (It ran with the agent's values, and the receipt dropped the change.)"""
    app = world.app
    proposal, model = _proposed(world, world.tools.post_notice, text="From the agent.")

    class Stopped(Exception):
        pass

    def stop(point: str, where: dict[str, Any]) -> None:
        if point == "decider.claimed":
            raise Stopped

    with points.pausing(stop), pytest.raises(Stopped):
        app.approve(proposal, by=world.pat, edited={"text": "From Pat."})
    assert app.proposal(proposal).status is ProposalStatus.APPROVED
    assert app.worker(model_for=lambda _agent, _task: model).settle_stopped_runs() == 1
    assert world.board.read_text().splitlines() == ["From Pat."]
    assert app.proposal(proposal).status is ProposalStatus.DONE
    assert ('Pat approved post_notice with text changed to "From Pat."; it ran as Pat and the '
            "agent together." in app.receipt(proposal.task).words)


def test_an_edit_may_not_change_an_id(world: SimpleNamespace) -> None:
    """A top-level id names what the call acts on, as a record does: an edit of it is refused,
    the proposal waits, and the inbox does not offer it. (The edit moved the call to another
    tag.)"""
    proposal, _ = _proposed(world, world.tools.price_by_id, tag_id=world.a.id, price=4)
    with pytest.raises(EditRefused, match="tag_id names what price_by_id acts on"):
        world.app.approve(proposal, by=world.pat, edited={"tag_id": str(world.b.id)})
    _waits(world, proposal)
    pages = Pages(world.app, Inbox(world.app), Browser(world.app, False), refresh_seconds=5)
    assert [name for name, *_ in pages._editable(proposal)] == ["price"]
    decision = world.app.approve(proposal, by=world.pat, edited={"price": 5})
    assert decision.status is ProposalStatus.DONE
    assert _prices(world) == {"a": "5.00", "b": "0.00"}


def test_an_edit_may_not_change_what_the_skill_names(world: SimpleNamespace) -> None:
    """A text the skill's `names` shows as a name names what the call acts on: an edit of it
    is refused, and the inbox does not offer it."""
    proposal, _ = _proposed(world, world.tools.price_by_code, code="a", price=4)
    assert proposal.shown["code"] == "the tag coded a"
    with pytest.raises(EditRefused, match="code names what price_by_code acts on"):
        world.app.approve(proposal, by=world.pat, edited={"code": "b"})
    _waits(world, proposal)
    pages = Pages(world.app, Inbox(world.app), Browser(world.app, False), refresh_seconds=5)
    assert [name for name, *_ in pages._editable(proposal)] == ["price"]


def test_an_edit_may_not_change_what_version_of_reads(world: SimpleNamespace) -> None:
    """A text the skill's `version_of` reads to find what the call acts on: an edit that makes
    it read another record is refused over REST too (422), and the proposal waits; a change it
    does not read runs, its version read with the values that run."""
    proposal, _ = _proposed(world, world.tools.price_by_name, name="a", price=4)
    with pytest.raises(EditRefused, match=r"Mind\.version_of reads what price_by_name acts on "
                                          "otherwise"):
        world.app.approve(proposal, by=world.pat, edited={"name": "b"})
    token = world.app.credentials.issue_token(world.pat, "test")
    client = TestClient(create_web_app(world.app, secure_cookies=False))
    answer = client.post(f"/api/proposals/{proposal.id}/approve",
                         json={"edited": {"name": "b"}},
                         headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 422, answer.text
    _waits(world, proposal)
    decision = world.app.approve(proposal, by=world.pat, edited={"price": 6})
    assert decision.status is ProposalStatus.DONE, decision.said
    assert _prices(world) == {"a": "6.00", "b": "0.00"}


@pytest.mark.parametrize("where", ["alone", "in a session"])
@pytest.mark.parametrize("tool", ["price_by_name", "post_notice"])
def test_a_failing_version_of_refuses_the_yes_and_the_proposal_waits(
        world: SimpleNamespace, tool: str, where: str) -> None:
    """The skill's `version_of` raises as a yes claims the call (one that only writes records,
    and one that reaches outside): the yes is refused in a sentence naming the skill's failure,
    over REST too (not a 500), the proposal waits, nothing ran, and a no still works. (The
    yes was used up as the action's failure, or KeyError reached the caller.)"""
    arguments = {"name": "a", "price": 4} if tool == "price_by_name" else {"text": "Hi."}
    proposal, _ = _proposed(world, getattr(world.tools, tool), **arguments)
    world.fails = where
    said = (f"Mind.version_of raised KeyError, so whether what {tool} acts on still reads as "
            "it was proposed cannot be checked, and nothing was decided: the proposal still "
            "waits.")
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        with pytest.raises(AgentRefused) as refused:
            world.app.approve(proposal, by=world.pat)
    assert [str(w.message) for w in warned] == []  # (SQLAlchemy's, of a transaction it lost)
    assert str(refused.value).startswith(said)
    assert "'tag'" not in str(refused.value)  # the failure's own words reach the log alone
    token = world.app.credentials.issue_token(world.pat, "test")
    client = TestClient(create_web_app(world.app, secure_cookies=False),
                        raise_server_exceptions=False)
    answer = client.post(f"/api/proposals/{proposal.id}/approve", json={},
                         headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 403, answer.text
    assert answer.json()["detail"].startswith(said)
    _waits(world, proposal)
    assert not world.board.exists()
    no = world.app.reject(proposal, by=world.pat, reason="Not now.")
    assert no.status is ProposalStatus.REJECTED


@pytest.mark.parametrize("shape", ["deep", "itself"])
def test_a_changed_value_that_is_no_json_is_refused(world: SimpleNamespace, shape: str) -> None:
    """A changed value nested 3000 levels deep, or holding itself, is refused in a sentence,
    and the proposal waits. (RecursionError, or ValueError, reached the caller.)"""
    proposal, _ = _proposed(world, world.tools.post_notice, text="Hi.")
    value: list[Any] = []
    if shape == "deep":
        for _ in range(3000):
            value = [value]
    else:
        value.append(value)
    with pytest.raises(EditRefused, match="The changed value of text is nested too deeply"):
        world.app.approve(proposal, by=world.pat, edited={"text": value})
    assert world.app.proposal(proposal).status is ProposalStatus.WAITING
    assert not world.board.exists()


def test_an_agents_own_account_never_decides(world: SimpleNamespace) -> None:
    """The skill routes the proposal to a queue the agent's own account is in: the agent's
    account is not offered it and may not approve it. (It approved its own proposal.)"""
    world.route = "desk"
    proposal, _ = _proposed(world, world.tools.set_price, tag=world.a.id, price=7)
    account = world.app.agent(world.Clerk).registered.account
    assert world.app.proposals_for(account) == []
    inbox = Inbox(world.app)  # (what the REST API and the inbox pages list)
    assert inbox.proposals(account).items == []
    assert not inbox.may_see(account, proposal)
    with pytest.raises(AgentRefused, match="Clerk is an agent's own account, and agents never "
                                           "decide proposals"):
        world.app.approve(proposal, by=account)
    _waits(world, proposal)
    assert [p.id for p in world.app.proposals_for(world.dee)] == [proposal.id]


def test_always_in_work_for_nobody_is_refused(world: SimpleNamespace) -> None:
    """"Approve, and always like this" on work for nobody is refused in a sentence saying how
    a rule could cover it; nothing is decided and no rule is made. (It made a rule for the
    approver's own work, which never covered that work.)"""
    proposal, _ = _proposed(world, world.tools.set_price, for_=None, tag=world.a.id, price=7)
    with pytest.raises(AgentRefused, match=r"This work is for nobody.*for Clerk to run "
                                           r"set_price alone.*for_everybody=True"):
        world.app.approve(proposal, by=world.sue, always_like_this=True)
    _waits(world, proposal)
    assert world.app.rules() == []
    assert world.app.approve(proposal, by=world.sue).status is ProposalStatus.DONE


@pytest.mark.parametrize("for_", ["pat", None])
def test_the_inbox_offers_always_only_where_a_rule_could_cover_the_work(
        world: SimpleNamespace, for_: Any) -> None:
    """The proposal's page offers "Approve, and always like this" on work for someone, and not
    on work for nobody, where pressing it was refused."""
    proposal, _ = _proposed(world, world.tools.set_price, for_=for_, tag=world.a.id, price=7)
    world.app.credentials.set_password(world.sue, "a long enough password")
    client = TestClient(create_web_app(world.app, secure_cookies=False))
    csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/login").text)
    assert csrf is not None
    client.post("/login", data={"csrf": csrf.group(1), "next": "/", "handle": "sue@tags.example",
                                "password": "a long enough password"})
    page = client.get(f"/proposals/{proposal.id}")
    assert 'id="approve"' in page.text, page.text
    assert ('id="approve-always"' in page.text) is (for_ is not None)


def test_always_with_changed_values_is_refused(world: SimpleNamespace) -> None:
    """A yes with changed values does not also make a standing rule (it would let the agent
    run with any values, the ones the decider changed too): refused, nothing decided; the same
    yes without a change makes it."""
    proposal, _ = _proposed(world, world.tools.set_price, tag=world.a.id, price=7)
    with pytest.raises(EditRefused, match="A yes with changed values cannot also make a "
                                          "standing rule: the rule would let Clerk run"):
        world.app.approve(proposal, by=world.pat, always_like_this=True, edited={"price": 8})
    _waits(world, proposal)
    assert world.app.rules() == []
    decision = world.app.approve(proposal, by=world.pat, always_like_this=True,
                                 edited={"price": 7})  # no change: the values as proposed
    assert decision.status is ProposalStatus.DONE
    assert decision.rule is not None
