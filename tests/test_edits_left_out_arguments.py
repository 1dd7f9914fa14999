"""An edit of an argument the model left out (to its default): one the skill's `names` shows as
something else names what the call acts on, and is refused as any such edit is; a plain one
is changed as any value is."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated

import pytest
from pydantic import BaseModel
from sqlalchemy import Numeric, String, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from signoff import (
    Agent,
    App,
    EditRefused,
    Permits,
    ProposalStatus,
    Provided,
    Skill,
    TaskStatus,
    allow,
    policy,
)
from signoff.agents.proposals import Proposal
from signoff.testing import ScriptedModel, says


class Done(BaseModel):
    """What the clerk hands back."""

    ok: bool


@pytest.fixture
def world(tmp_path: Path) -> Iterator[SimpleNamespace]:
    """Tags a and b; a clerk's one tool prices the tag of a code (tag a, unless told), which
    its skill shows as "the tag coded …", and takes a note shown as it is (its `names` raises
    for a value "boom")."""
    app = App("tags", database=f"sqlite:///{tmp_path / 'tags.db'}", key=b"t" * 32)

    class Tag(app.Record):  # type: ignore[name-defined, misc]
        """A price tag."""

        name: Mapped[str] = mapped_column(String(40), unique=True)
        price: Mapped[Decimal] = mapped_column(Numeric(10, 2), default=Decimal(0))
        note: Mapped[str] = mapped_column(String(80), default="")
        __security__ = [allow("read", "create", "update", when=policy.anyone)]

    @app.action("Price the tag of a code")
    def price_coded(price: Decimal, session: Annotated[Session, Provided("session")],
                    code: str = "a", note: str = "") -> str:
        """Set the price of the tag whose name is this code (tag a unless told)."""
        tag = session.scalars(select(Tag).where(Tag.name == code)).one()
        tag.price, tag.note = price, note
        return f"{tag.name} costs {price}."

    class Mind(Skill[Tag, Done]):
        description = "Mind the tags."
        tools = [price_coded]

        def names(self, action: str, argument: str, value: str) -> str:
            if value == "boom":  # (the app's own code, failing)
                raise KeyError(value)
            return f"the tag coded {value}" if argument == "code" else value

    class Clerk(Agent):
        purpose = "You mind the tags."
        skills = [Mind()]
        may = Permits()

    pat = app.people.add("pat@tags.example", "Pat", roles=["clerk"])
    app.add_agent(Clerk, sponsor=pat)
    with app.session(as_=pat) as s:
        a = Tag(name="a")
        s.add_all([a, Tag(name="b")])
    model = ScriptedModel(says.tool("Needed.", price_coded, price="5"),
                          says.hand_back(Done(ok=True)))
    outcome = app.agent(Clerk).do(Mind(), a, for_=pat, model=model)
    assert outcome.status is TaskStatus.WAITING, outcome.problem
    (proposal,) = app.proposals(task=outcome.task)
    yield SimpleNamespace(app=app, Tag=Tag, pat=pat, proposal=proposal)
    app.database.dispose()


def _tags(world: SimpleNamespace) -> dict[str, tuple[str, str]]:
    with world.app.session(as_=world.app.system) as s:
        return {t.name: (str(t.price), t.note) for t in s.scalars(select(world.Tag))}


def test_a_left_out_argument_the_skill_names_is_not_edited(world: SimpleNamespace) -> None:
    """The model left `code` out (tag a); a yes that sets it to b, which the skill shows as
    "the tag coded b", would move the call to another tag: refused, and nothing runs."""
    proposal: Proposal = world.proposal
    assert "code" not in proposal.arguments
    with pytest.raises(EditRefused, match="code names what price_coded acts on"):
        world.app.approve(proposal, by=world.pat, edited={"code": "b"})
    assert world.app.proposal(proposal).status is ProposalStatus.WAITING
    assert _tags(world) == {"a": ("0.00", ""), "b": ("0.00", "")}


def test_a_left_out_plain_argument_is_edited(world: SimpleNamespace) -> None:
    """A left-out argument the skill shows as it is (a note) is changed as any value is."""
    decision = world.app.approve(world.proposal, by=world.pat, edited={"note": "Sale"})
    assert decision.status is ProposalStatus.DONE, decision.said
    assert _tags(world) == {"a": ("5.00", "Sale"), "b": ("0.00", "")}


def test_a_names_that_raises_refuses_the_edit(world: SimpleNamespace) -> None:
    """A skill's `names` that raises as an edit is checked cannot tell the edit keeps what the
    call acts on: the edit is refused in a sentence, and the proposal waits."""
    with pytest.raises(EditRefused, match="The skill's names raised KeyError for the changed "
                       "note, so whether it names what the call acts on"):
        world.app.approve(world.proposal, by=world.pat, edited={"note": "boom"})
    assert world.app.proposal(world.proposal).status is ProposalStatus.WAITING
    assert _tags(world) == {"a": ("0.00", ""), "b": ("0.00", "")}
