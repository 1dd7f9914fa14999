"""The standing rules' verbs: "from now on, alone" made for one tool of one agent, and taken back.

A rule stands for a yes to every call of its tool: only one who may widen what agents do alone,
and whom the skill's route lets say yes to the call, may make it, and it holds only while they
could still make it (`lapsed`, checked as each call comes); a declaration that says never, or a
yes every time, is not widened by any rule.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from sqlalchemy import select

from signoff.actions.catalog import Action
from signoff.actions.registry import Actions
from signoff.agents import repository as repo
from signoff.agents.agent import Registered
from signoff.agents.gate import gate, leave_by_declaration
from signoff.agents.oversight import Oversight, said_why
from signoff.agents.permits import Leave, tool_name
from signoff.agents.rules import StandingRule
from signoff.agents.skills import Route, Skill
from signoff.effects.effect import Effect, EffectKind
from signoff.exceptions import AgentRefused, UnknownId
from signoff.security.principals import People, Principal, PrincipalKind
from signoff.store import points
from signoff.store.database import Database
from signoff.store.tables import principals

__all__ = ["StandingRules"]


class StandingRules:
    """Makes and takes back standing rules, as the app's oversight allows."""

    def __init__(self, *, database: Database, actions: Actions, people: People,
                 agents: Callable[[str], Registered], oversight: Oversight) -> None:
        self._database = database
        self._actions = actions
        self._people = people
        self._agents = agents
        self._oversight = oversight


    def allow_alone(
        self, agent: str, tool: Any, *, skill: str | None = None, by: Principal,
        for_everybody: bool = False, for_id: str | None = None,
    ) -> StandingRule:
        """Let `agent` run `tool` without proposing it, in work for `by` (or everybody)."""
        by = self._people.get(by)
        registered = self._agents(agent)
        name = tool_name(tool)
        self.check_may_make(registered, skill, name, by, for_everybody=for_everybody)
        effects = json.dumps(sorted(_identities(self._actions.get(name))))  # what it does now
        shape = {"agent": registered.agent.agent_name(), "tool": name, "skill": skill,
                 "made_by": by.id, "for_id": None if for_everybody else (for_id or by.id),
                 "effects": tuple(tuple(e) for e in json.loads(effects))}
        with self._database.connect() as db:
            # One rule of a shape: the maker's "always" said again (to another of the proposals
            # that waited, or at once in two places) gives back the rule that stands, so that
            # taking it back takes it back (a twin left active let the tool run alone still).
            # The maker's row is locked while it is looked for, so two said at once make one
            # (SQLite's writers take turns already).
            db.execute(select(principals.c.id).where(principals.c.id == by.id)
                       .with_for_update())
            same = next((r for r in repo.load_rules(db, active_only=True)
                         if _shape(r) == shape), None)
            points.reached("rules.looked", agent=shape["agent"], tool=name)
            if same is not None:
                return same
            rule_id = repo.insert_rule(db, agent=shape["agent"], tool=name, skill=skill,
                                       made_by_id=by.id, for_id=shape["for_id"], effects=effects)
            rule = next(r for r in repo.load_rules(db) if r.id == rule_id)
        return rule

    def revoke(self, rule_id: str, *, by: Principal, why: str = "") -> StandingRule:
        """Take a rule back, from the next step on."""
        why = said_why(why, what="Why a rule is taken back", needed=False)
        by = self._people.get(by)
        with self._database.connect() as db:
            rule = next((r for r in repo.load_rules(db) if r.id == rule_id), None)
            if rule is None:
                raise UnknownId(f"There is no standing rule with id {rule_id}.")
            allowed = (rule.made_by == by.id or rule.for_id == by.id
                       or self._oversight.supervises_agents.admits(by))
            if not allowed:
                raise AgentRefused(f"{by.name} may not revoke a rule made by someone else for "
                                   "someone else.")
            if not repo.revoke_rule(db, rule_id, by=by.id, why=why):
                raise AgentRefused("This rule was revoked already.")
            return next(r for r in repo.load_rules(db) if r.id == rule_id)

    def check_may_make(self, registered: Registered, skill: str | None, tool: str,
                       by: Principal, *, for_everybody: bool,
                       route_of: Callable[[Skill[Any, Any]], Route | None] | None = None
                       ) -> None:
        """`AgentRefused`, saying why, unless `by` may make a rule letting `registered` run
        `tool` alone (`check_may_widen`), and may run `tool` themselves (the action's
        `authorize`)."""
        self.check_may_widen(registered, skill, tool, by, for_everybody=for_everybody,
                             route_of=route_of)
        action = self._actions.get(tool)  # (an action: `check_may_widen` found it a tool)
        authorize = action.options.authorize
        if authorize is not None and not authorize.admits(by):
            raise AgentRefused(f"{by.name} may not {action.doing}, so {by.name} cannot let "
                               f"{registered.agent.__name__} do it alone.")

    def lapsed(self, rule: StandingRule, registered: Registered, skill: str,
               maker: Principal | None, *, route: Route | None) -> str:
        """Why `rule` no longer lets `registered` run its tool alone in `skill` — its maker,
        `maker` as the directory holds them now, could not make it now: a rule stands for
        their yes, and lasts only while they could still give it; "" while it holds. `route`
        is where `skill` routes the tool's proposals now (its `decided_by`, the app's code, is
        asked by the caller, outside the transaction this may be checked in)."""
        if maker is None:
            return ("it was made by someone this app no longer knows, and holds only while its "
                    "maker could still make it.")
        if maker.disabled:
            return f"{maker.name}'s account is disabled, and a disabled account lets nothing run."
        more = self.done_since(rule)
        if more:
            return (f"{rule.tool} does more than when the rule was made: it now also "
                    f"{more}. A rule stands for a yes to what its tool did then; make a new one "
                    "if it should still run alone.")
        try:
            self.check_may_make(registered, skill, rule.tool, maker,
                                for_everybody=rule.for_id is None, route_of=lambda _: route)
        except AgentRefused as refused:
            return str(refused)
        # Routed nowhere, a call in someone's work is theirs to decide, or a supervisor's.
        if route is None and rule.for_id not in (None, maker.id) and not (
                self._oversight.supervises_agents.admits(maker)):
            return (f"it covers another's work, whose proposals {maker.name} may no longer "
                    "decide (only the person it is for, or a supervisor, may).")
        return ""

    def done_since(self, rule: StandingRule) -> str:
        """What `rule`'s tool does now that it did not when the rule was made, in words ("" when
        nothing, or the rule kept no effects)."""
        if rule.effects is None or rule.tool not in self._actions:
            return ""
        new = [e for e in self._actions.get(rule.tool).info.effects.ordered
               if e.kind is not EffectKind.READS
               and not any(_covers(then, e) for then in rule.effects)]
        said = list(dict.fromkeys(e.words() for e in new))
        return " and ".join(said) if len(said) < 3 else f"{', '.join(said[:-1])} and {said[-1]}"

    def check_may_widen(self, registered: Registered, skill: str | None, tool: str,
                        by: Principal, *, for_everybody: bool,
                        route_of: Callable[[Skill[Any, Any]], Route | None] | None = None
                        ) -> None:
        """`AgentRefused`, saying why, unless `by` may let `registered` run `tool` alone (in
        `skill`, else in every skill that has it; for everybody, or in work for them).
        `route_of` gives where a skill routes the tool's proposals, when the caller has asked
        it already (else each skill's `decided_by` is asked here)."""
        agent = registered.agent
        if by.kind is PrincipalKind.AGENT:  # (a rule stands for a yes, and yeses are people's)
            raise AgentRefused(f"{by.name} is an agent's own account, and agents never let "
                               "agents do more on their own: a person makes a standing rule.")
        if not self._oversight.widens_agent_autonomy.admits(by):
            raise AgentRefused(f"{by.name} may not let agents do more on their own.")
        if not self._oversight.decides_agent_proposals.admits(by):
            raise AgentRefused(f"{by.name} may not decide agents' proposals, so {by.name} "
                               f"cannot let {agent.__name__} run {tool} alone either.")
        if for_everybody and not self._oversight.supervises_agents.admits(by):
            raise AgentRefused(f"Only a supervisor may let {agent.__name__} run {tool} alone for "
                               "everybody.")
        skills = [agent.skill(skill)] if skill else [s for s in agent.skills if tool in s.tool_names]
        if not skills:
            raise AgentRefused(f"{tool} is not a tool of {agent.__name__}"
                               f"{' in ' + skill if skill else ''}: no rule can be made for it.")
        for each in skills:
            leave = self.declared(registered, each.name, tool)
            if leave in (Leave.NEVER, Leave.PROPOSE_EVERY_TIME):
                how = (f"may never use {tool}" if leave is Leave.NEVER else
                       f"may use {tool} only with a yes every time")
                raise AgentRefused(
                    f"{agent.__name__} {how}: its declaration says so, and no standing rule can "
                    "widen it."
                )
            # A rule stands for a yes: one whom the skill's route does not let say yes to the
            # call may not say it once for all its calls either.
            route = each.decided_by(tool) if route_of is None else route_of(each)
            if route is not None and not self._oversight.supervises_agents.admits(by) and not (
                    (route.person is not None and route.person.id == by.id)
                    or (route.queue and route.queue in by.roles)):
                who = route.person.name if route.person is not None else (
                    f"the {route.queue} queue")
                raise AgentRefused(
                    f"{tool}'s proposals in {each.name} are decided by {who}, as the skill "
                    f"routes them: {by.name} may not let {agent.__name__} run it alone.")

    def declared(self, registered: Registered, skill: str, tool: str) -> Leave:
        """What `registered`'s declaration lets it do with `tool` in `skill`, no rule counted
        (`Leave.NEVER` for a tool that is no action now)."""
        own = registered.agent.skill(skill)
        if tool not in self._actions:
            return Leave.NEVER
        info = self._actions.info(tool)
        permits = [registered.agent.may] + ([own.may] if own.may is not None else [])
        if tool not in own.tool_names:
            return gate(tool, info.effects, permits, in_skill=False).leave
        return leave_by_declaration(tool, info.effects, permits, query=info.query)[0]


def _covers(then: tuple[Any, ...], now: Effect) -> bool:
    """Whether an effect its tool had when a rule was made (its identity) stands for `now`,
    as one shown with a proposal does (`signoff.agents.proposing.does_otherwise`): the same
    kind and target, and when it named the field a change assigns, the same field; an effect
    assumed of code the analysis could not see stands for another assumed (why, in words that
    name the code, aside: a local renamed, or a release's wording)."""
    kind, target, field, reason, _ = then
    return (kind == now.kind.value and target == now.target and bool(reason) == bool(now.reason)
            and (not field or field == now.field))


def _shape(rule: StandingRule) -> dict[str, Any]:
    """What makes `rule` the rule it is: whose it is, what it lets run alone, where, and what
    its tool did when it was made (rules of one shape are one rule said twice)."""
    return {"agent": rule.agent, "tool": rule.tool, "skill": rule.skill, "made_by": rule.made_by,
            "for_id": rule.for_id, "effects": rule.effects}


def _identities(action: Action) -> set[tuple[Any, ...]]:
    """What `action` does, each effect as its identity (where in the code it is found aside)."""
    return {e.identity for e in action.info.effects.effects}
