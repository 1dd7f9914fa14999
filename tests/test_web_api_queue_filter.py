"""The API's `?queue=` filter lists no proposal its caller may not see: one whom the app's
`decides_agent_proposals` does not admit sees none, queue or not (docs/security.md: "a principal
it does not admit decides no proposal at all, and sees none in the inbox")."""

from __future__ import annotations

from pathlib import Path

import httpx
from pydantic import BaseModel
from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from signoff import Agent, App, Permits, Route, Skill, allow, policy
from signoff.testing import ScriptedModel, says
from signoff.web import create_web_app
from tests.workshop_web import served


class Out(BaseModel):
    ok: bool


def test_a_queue_filter_shows_nothing_to_one_who_may_decide_nothing(tmp_path: Path) -> None:
    """Memos go to the finance queue; only clerks and managers decide agents' proposals. Fin
    holds the finance role but is neither: the plain list, the one proposal, and the list of the
    finance queue all show Fin nothing (the last listed the memo, its text and why)."""
    app = App("queues", database=f"sqlite:///{tmp_path / 'q.db'}", key=b"q" * 32)
    app.oversight.supervises_agents = policy.role("manager")
    app.oversight.decides_agent_proposals = policy.role("clerk") | policy.role("manager")

    class Invoice(app.Record):  # type: ignore[name-defined, misc]
        memo: Mapped[str] = mapped_column(String(80), default="")
        __security__ = [allow("read", "update", "create", when=policy.anyone)]

    @app.action("Write a memo")
    def memo(invoice: Invoice, text: str) -> str:
        """Write the memo."""
        invoice.memo = text
        return "Written."

    class Memo(Skill[Invoice, Out]):
        description = "Write a memo."
        tools = [memo]

        def brief(self, invoice: Invoice) -> str:
            return f"Invoice {invoice.id}."

        def decided_by(self, action: str) -> Route | None:
            return Route.to_queue("finance")

    class Clerk(Agent):
        purpose = "You write memos."
        skills = [Memo()]
        may = Permits()
        roles = ["bot"]

    boss = app.people.add("boss@q.example", "Boss", roles=["manager"])
    app.add_agent(Clerk, sponsor=boss)
    mia = app.people.add("mia@q.example", "Mia", roles=["clerk"])
    fin = app.people.add("fin@q.example", "Fin", roles=["finance"])
    with app.session(as_=app.system) as s:
        invoice = Invoice()
        s.add(invoice)
    model = ScriptedModel(says.tool("Salaries.", memo, invoice=invoice.id, text="Pay 90k."),
                          says.hand_back(Out(ok=True)))
    assert app.agent(Clerk).do(Memo(), invoice, for_=mia, model=model).waiting
    (proposal,) = app.proposals()
    token = app.credentials.issue_token(fin, "tests")
    with served(create_web_app(app, secure_cookies=False)) as port, httpx.Client(
            base_url=f"http://127.0.0.1:{port}",
            headers={"Authorization": f"Bearer {token}"}) as api:
        assert api.get("/api/proposals").json()["items"] == []
        assert api.get(f"/api/proposals/{proposal.id}").status_code == 404
        assert api.get("/api/proposals", params={"queue": "finance"}).json()["items"] == []
