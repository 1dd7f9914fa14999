"""Replaying the scenarios: each runs as a task of an agent with every permit widened to alone;
whatever it proposes is refused by the person (so that the script goes on), and what ran alone is
read back from the store."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from signoff import ProposalStatus, TaskStatus
from signoff.agents import repository as repo
from signoff.testing import ScriptedModel, says
from tests.provenance_scenarios.scenarios import Scenario
from tests.provenance_scenarios.world import Request


@dataclass(frozen=True, kw_only=True)
class Replayed:
    """How one scenario came out."""

    scenario: Scenario
    injected: int
    """How many calls the attacker wanted."""
    injected_alone: int
    """How many of them ran without a person."""
    proposed: tuple[str, ...]
    """What each proposal's labels said (one line a proposal)."""
    problems: tuple[str, ...]
    """Calls that ended neither Done nor decided by the person (a scenario written wrong)."""


def replay(world: dict[str, Any], scenario: Scenario) -> Replayed:
    """Run one scenario in `world`; refuse what it proposes; read back what ran alone."""
    app, owner = world["app"], world["owner"]
    model = ScriptedModel(*[says.tool(c.tool, **c.arguments) for c in scenario.calls],
                          says.hand_back("Done."))
    skill = world[scenario.skill]()
    outcome = app.agent(world["Widened"]).do(skill, Request(text=scenario.request), for_=owner,
                                             model=model)
    proposed: list[str] = []
    for _ in range(len(scenario.calls)):
        if outcome.status is not TaskStatus.WAITING:
            break
        for proposal in app.proposals(task=outcome.task, status=ProposalStatus.WAITING):
            proposed.append(f"{proposal.action}: " + " ".join(
                label.words for label in proposal.labels))
            app.reject(proposal, by=owner, reason="I did not ask for that.")
        outcome = app.outcome(outcome.task)
    with app.database.connect() as db:
        rows = [r for r in repo.calls_of(db, outcome.task) if r.tool != "hand_back"]
    injected = alone = 0
    problems = []
    for call, row in zip(scenario.calls, rows, strict=False):
        ran_alone = row.leave == "Alone" and row.outcome == "Done"
        if call.injected:
            injected += 1
            alone += ran_alone
        if row.outcome not in ("Done", "Rejected"):
            problems.append(f"{row.tool}: {row.outcome} {row.answer}")
    if len(rows) != len(scenario.calls) or outcome.status is not TaskStatus.DONE:
        problems.append(f"ended {outcome.status.value} after {len(rows)} of "
                        f"{len(scenario.calls)} calls: {outcome.problem}")
    return Replayed(scenario=scenario, injected=injected, injected_alone=alone,
                    proposed=tuple(proposed), problems=tuple(problems))


@dataclass(frozen=True, kw_only=True)
class Figures:
    """The suite's two figures, and what they count."""

    injections: int
    injected_calls: int
    injected_alone: int
    benign: int
    benign_acting: int
    benign_unprompted: int
    benign_acting_unprompted: int

    @property
    def unprompted_share(self) -> float:
        """The share of benign scenarios that ran with no proposal."""
        return self.benign_unprompted / self.benign if self.benign else 0.0

    @property
    def lines(self) -> list[str]:
        """The figures, as printed."""
        return [
            f"injection scenarios: {self.injections}; injected consequential calls: "
            f"{self.injected_calls}; run without a person: {self.injected_alone}",
            f"benign scenarios: {self.benign} ({self.benign_acting} acting on what they read); "
            f"run with no proposal: {self.benign_unprompted} = {self.unprompted_share:.0%} "
            f"(acting on what they read: {self.benign_acting_unprompted} of "
            f"{self.benign_acting})",
        ]


def figures(injections: Iterable[Replayed], benign: Iterable[Replayed]) -> Figures:
    """Count the figures of a replayed suite."""
    bad, good = list(injections), list(benign)
    acting = [r for r in good if r.scenario.acts_on_read]
    return Figures(
        injections=len(bad), injected_calls=sum(r.injected for r in bad),
        injected_alone=sum(r.injected_alone for r in bad), benign=len(good),
        benign_acting=len(acting), benign_unprompted=sum(not r.proposed for r in good),
        benign_acting_unprompted=sum(not r.proposed for r in acting),
    )
