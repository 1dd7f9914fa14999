"""The REST API: the people's verbs over HTTP, each behind a bearer token.

Every operation calls the library (`App`'s verbs, `Inbox` for who sees what), converts its errors
to problem details, and formats; nothing is decided here.
"""

# No `from __future__ import annotations`: FastAPI reads the local `Me` alias at run time.
from collections.abc import Callable
from typing import Annotated, TypeVar

from fastapi import APIRouter, Depends, Query, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from signoff.actions.model_json import given_twice
from signoff.actions.problems import cut_short
from signoff.agents.proposals import ProposalStatus
from signoff.agents.rules import StandingRule
from signoff.agents.tasks import TaskStatus
from signoff.app import App
from signoff.exceptions import AgentRefused, EditRefused, ReasonRefused, StoreError, UnknownId
from signoff.inbox import DEFAULT_PAGE, MAX_PAGE, Inbox
from signoff.security.principals import Principal
from signoff.web.auth import bearer_principal
from signoff.web.problems import (
    PROBLEM_RESPONSES,
    UNAVAILABLE_RESPONSE,
    UNSUPPORTED_BODY_RESPONSE,
    ProblemError,
    to_problem,
)
from signoff.web.schemas import (
    ActionOut,
    ActionPage,
    ApproveIn,
    DecisionOut,
    MeOut,
    OutcomeOut,
    ProposalOut,
    ProposalPage,
    ReceiptOut,
    RejectIn,
    RevokeIn,
    RuleOut,
    RulePage,
    SkillLeaveOut,
    SkillLeavePage,
    StopIn,
    TaskOut,
    TaskPage,
)
from signoff.web.unrecorded import approved_unrecorded, yes_cut_off

__all__ = ["api_router", "cut_off", "members_once", "refused"]

T = TypeVar("T")

_bearer = HTTPBearer(auto_error=False, bearerFormat="so_<id>_<secret>",
                     description="A token from `app.credentials.issue_token(person)` or "
                                 "`signoff users token`.")


_STATUSES = {s.value.lower(): s for s in ProposalStatus}
"""A proposal's status by its name in lower case: the address takes it in any case, as the CLI
and the inbox's pages do."""


_TASK_STATUSES = {s.value.lower(): s for s in TaskStatus}
"""A task's status by its name in lower case."""


def refused(app: App, proposal_id: str, error: AgentRefused) -> ProblemError:
    """A refused decision: 404 for a proposal that is not there, 422 for changed values that do
    not fit or a reason that tells nothing (or too much), 409 when the proposal was decided
    meanwhile, 403 otherwise."""
    if isinstance(error, UnknownId):
        return to_problem(error)
    if isinstance(error, EditRefused | ReasonRefused):
        return ProblemError(422, str(error), type_="urn:signoff:problem:invalid")
    if app.proposal(proposal_id).status is not ProposalStatus.WAITING:  # (approved, its
        # outcome not recorded yet: what its record shows, not "already decided" alone)
        return ProblemError(409, approved_unrecorded(app, proposal_id) or str(error),
                            type_="urn:signoff:problem:already-decided")
    return ProblemError(403, str(error), type_="urn:signoff:problem:refused")


def cut_off(app: App, proposal_id: str, person: Principal, error: StoreError) -> ProblemError:
    """A yes that met a database it could not use: when it had claimed the proposal and
    started its call (the outcome is what could not be recorded), 503 saying so, and what
    becomes of the call; else the database's problem ("nothing was done")."""
    said = yes_cut_off(app, proposal_id, person, error)
    if not said:
        return to_problem(error)
    return ProblemError(503, said, type_="urn:signoff:problem:outcome-unknown")


async def members_once(request: Request) -> None:
    """A dependency of every operation: a body it reads (its route takes one, as FastAPI reads
    it) that gives a member twice in one object is refused (422) before the operation runs,
    naming the member and where it is (`signoff.actions.model_json.given_twice`). A body that
    is no JSON was told so by FastAPI, before this."""
    if getattr(request.scope.get("route"), "body_field", None) is None:
        return
    body = await request.body()  # (FastAPI's own read, kept: not read again)
    found = given_twice(body) if body else None
    if found is None:
        return
    member, path = found
    where = ".".join(path)
    said = (f"The body gives “{cut_short(member)}” twice in one object ({cut_short(where)}): "
            "give each member once, with the one value meant.")
    raise ProblemError(422, said, type_="urn:signoff:problem:invalid",
                       errors=[{"where": where, "problem": said}])


def api_router(app: App, inbox: Inbox) -> APIRouter:
    """The API's operations, for `app`."""

    def me(request: Request,
           _: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]) -> Principal:
        return bearer_principal(app, request)

    Me = Annotated[Principal, Depends(me)]
    # (a body giving a member twice is refused before any operation reads it: `members_once`)
    router = APIRouter(prefix="/api", responses=PROBLEM_RESPONSES,
                       dependencies=[Depends(members_once)])

    @router.get("/me", tags=["people"])
    def whoami(person: Me) -> MeOut:
        """Who this token is for."""
        return MeOut.of(person, supervises=inbox.supervises(person))

    @router.get("/proposals", tags=["proposals"])
    def list_proposals(
        person: Me,
        status: Annotated[str, Query(max_length=40, description=(
            "Only those in this status, in any case: "
            + ", ".join(s.value for s in ProposalStatus) + " (default: Waiting)."))] = "Waiting",
        any_status: Annotated[bool, Query(description="Every status (overrides `status`).")] = False,
        queue: Annotated[str | None, Query(max_length=100, description=(
            "Only this queue's (left empty: every one's)."))] = None,
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = DEFAULT_PAGE,
        after: Annotated[str | None, Query(max_length=200,
                                           description="The `next` of the page before.")] = None,
    ) -> ProposalPage:
        """The proposals you may decide (yours and your queues'), newest first, a page at a
        time; a supervisor sees every one. Those waiting are those you may decide: your own
        work, which its skill routes to another, is not listed as waiting (you do not decide
        it; its task, in /api/tasks, says what it waits on)."""
        chosen = _STATUSES.get(status.strip().lower())
        if chosen is None:
            raise ProblemError(422, f"{status!r} is not a proposal's status: choose one of "
                                    f"{', '.join(s.value for s in ProposalStatus)} (in any case).",
                               type_="urn:signoff:problem:invalid")
        page = inbox.proposals(person, status=None if any_status else chosen, queue=queue or None,
                               limit=limit, after=after)
        return ProposalPage(items=[ProposalOut.of(p) for p in page.items], next=page.next)

    @router.get("/proposals/{proposal_id}", tags=["proposals"])
    def show_proposal(proposal_id: str, person: Me) -> ProposalOut:
        """One proposal: the call in words, why, evidence, effects, and whether it is fresh."""
        proposal = inbox.proposal(person, proposal_id)
        fresh = inbox.freshness(proposal) if proposal.status is ProposalStatus.WAITING else None
        return ProposalOut.of(proposal, fresh)

    @router.post("/proposals/{proposal_id}/approve", tags=["proposals"],
                 responses={**UNAVAILABLE_RESPONSE, **UNSUPPORTED_BODY_RESPONSE})
    def approve(proposal_id: str, person: Me, body: ApproveIn | None = None) -> DecisionOut:
        """Say yes: it runs now, as the agent on behalf of you (only what both may). A stale
        proposal does not run; its status says so. When what the call needs outside cannot be
        reached, nothing is sent and the proposal still waits: 503, and the detail says what to
        try again later. The body may be left out: a plain yes."""
        body = body or ApproveIn()
        proposal = inbox.proposal(person, proposal_id)
        try:
            decision = app.approve(proposal, by=person, always_like_this=body.always,
                                   edited=body.edited)
        except AgentRefused as error:
            raise refused(app, proposal_id, error) from None
        except StoreError as error:  # claimed, and its call started, before the database failed?
            raise cut_off(app, proposal_id, person, error) from None
        out = DecisionOut.of(decision)
        if decision.rule is not None:
            out.rule = RuleOut.of(decision.rule, inbox.covers(decision.rule))
        return out

    @router.post("/proposals/{proposal_id}/reject", tags=["proposals"],
                 responses=UNSUPPORTED_BODY_RESPONSE)
    def reject(proposal_id: str, body: RejectIn, person: Me) -> DecisionOut:
        """Say no, with a reason: the agent is told it, and goes on."""
        inbox.proposal(person, proposal_id)
        try:
            decision = app.reject(proposal_id, by=person, reason=body.reason)
        except AgentRefused as error:
            raise refused(app, proposal_id, error) from None
        return DecisionOut.of(decision)

    @router.get("/rules", tags=["rules"])
    def list_rules(
        person: Me, active_only: bool = False,
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = DEFAULT_PAGE,
        after: Annotated[str | None, Query(max_length=200,
                                           description="The `next` of the page before.")] = None,
    ) -> RulePage:
        """The standing rules you made or that work for you runs under (all, for a supervisor),
        oldest first, a page at a time."""
        rules = _oldest_first(inbox.rules(person, active_only=active_only))
        if after and active_only and after not in {r.id for r in rules}:
            # The rule the page before ended on was revoked since: the next page goes on from
            # where it stood among every rule the caller may see (an id they may not see is
            # no `next`, as one that does not exist).
            seen = [r.id for r in _oldest_first(inbox.rules(person))]
            if after in seen:
                later = set(seen[seen.index(after) + 1:])
                rules, after = [r for r in rules if r.id in later], None
        items, following = _page([RuleOut.of(r, inbox.covers(r)) for r in rules], lambda r: r.id,
                                 limit, after)
        return RulePage(items=items, next=following)

    @router.post("/rules/{rule_id}/revoke", tags=["rules"], responses=UNSUPPORTED_BODY_RESPONSE)
    def revoke(rule_id: str, person: Me, body: RevokeIn | None = None) -> RuleOut:
        """Take a standing rule back, from the agent's next step on. The body may be left out:
        no reason given."""
        body = body or RevokeIn()
        rule = inbox.rule(person, rule_id)
        if not rule.active:
            raise ProblemError(409, "This rule was revoked already.",
                               type_="urn:signoff:problem:already-revoked")
        try:
            revoked = app.revoke(rule, by=person, why=body.why)
            return RuleOut.of(revoked, inbox.covers(revoked))
        except ReasonRefused as error:  # (a why too long, or holding what no database keeps)
            raise ProblemError(422, str(error), type_="urn:signoff:problem:invalid") from None
        except AgentRefused as error:
            status = 409 if not inbox.rule(person, rule_id).active else 403
            raise ProblemError(status, str(error), type_="urn:signoff:problem:refused") from None

    @router.get("/tasks", tags=["tasks"])
    def list_tasks(
        person: Me,
        status: Annotated[str | None, Query(max_length=40, description=(
            "Only those in this status, in any case: "
            + ", ".join(s.value for s in TaskStatus) + " (default: every one)."))] = None,
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = DEFAULT_PAGE,
        after: Annotated[str | None, Query(max_length=200)] = None,
    ) -> TaskPage:
        """The tasks you may see, newest first, a page at a time."""
        chosen = None
        if status:
            chosen = _TASK_STATUSES.get(status.strip().lower())
            if chosen is None:
                raise ProblemError(422, f"{status!r} is not a task's status: choose one of "
                                        f"{', '.join(s.value for s in TaskStatus)} (in any case).",
                                   type_="urn:signoff:problem:invalid")
        page = inbox.tasks(person, status=chosen, limit=limit, after=after)
        return TaskPage(items=[TaskOut.of(t) for t in page.items], next=page.next)

    @router.get("/tasks/{task_id}", tags=["tasks"])
    def task_outcome(task_id: str, person: Me) -> OutcomeOut:
        """Where a task stands now."""
        return OutcomeOut.of(app.outcome(inbox.task(person, task_id)))

    @router.post("/tasks/{task_id}/stop", tags=["tasks"], responses=UNSUPPORTED_BODY_RESPONSE)
    def stop_task(task_id: str, person: Me, body: StopIn | None = None) -> OutcomeOut:
        """Stop a task that has not ended: it ends Halted, its receipt saying who stopped it
        and why, and each proposal it waits on is withdrawn. Whoever the work is for, the
        sponsor of an agent's work for nobody, or a supervisor; a task a process is stepping
        now is not stopped under it (409). The body may be left out: no reason given."""
        found = inbox.task(person, task_id)  # (one they may not see: 404, as one not there)
        try:
            return OutcomeOut.of(app.stop(found, by=person, reason=(body or StopIn()).reason))
        except ReasonRefused as error:
            raise ProblemError(422, str(error), type_="urn:signoff:problem:invalid") from None
        except UnknownId as error:  # (seen, through a proposal of it, but not theirs to stop)
            raise ProblemError(403, error.message, type_="urn:signoff:problem:refused") from None
        except AgentRefused as error:  # ended already, or stepped by a process now
            raise ProblemError(409, str(error), type_="urn:signoff:problem:refused") from None

    @router.get("/tasks/{task_id}/receipt", tags=["tasks"])
    def task_receipt(task_id: str, person: Me) -> ReceiptOut:
        """Everything a task did: model calls, tool calls, proposals and decisions."""
        return ReceiptOut.of(app.receipt(inbox.task(person, task_id)))

    @router.get("/agents", tags=["catalogue"])
    def agents(
        person: Me, limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = DEFAULT_PAGE,
        after: Annotated[str | None, Query(max_length=600,
                                           description="The `next` of the page before.")] = None,
    ) -> SkillLeavePage:
        """The agents' catalogue: the leave per agent, skill and tool, and who decides."""
        lines = [SkillLeaveOut.of(line) for line in app.skills.catalog()]
        items, following = _page(lines, lambda x: f"{x.agent}/{x.skill}/{x.tool}", limit, after)
        return SkillLeavePage(items=items, next=following)

    @router.get("/actions", tags=["catalogue"])
    def actions(
        person: Me, limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = DEFAULT_PAGE,
        after: Annotated[str | None, Query(max_length=200,
                                           description="The `next` of the page before.")] = None,
    ) -> ActionPage:
        """The actions the app offers by name, with their effects."""
        infos = [ActionOut.of(info) for info in app.actions.catalog()]
        items, following = _page(infos, lambda a: a.name, limit, after)
        return ActionPage(items=items, next=following)

    return router


def _oldest_first(rules: list[StandingRule]) -> list[StandingRule]:
    """`rules` oldest first, those made at the same moment by id: the same order on every page."""
    return sorted(rules, key=lambda r: (r.made_at, r.id))


def _page(items: list[T], key: Callable[[T], str], limit: int, after: str | None
          ) -> tuple[list[T], str | None]:
    """A page of a short listing kept in order: the `limit` items after the one whose key is
    `after`, and the key to pass as `after` for the next page (None on the last)."""
    start = 0
    if after:
        keys = [key(item) for item in items]
        if after not in keys:
            raise ProblemError(422, f"{after!r} is not a `next` from a previous page: pass the "
                                    "`next` a page gave, or nothing for the first page.",
                               type_="urn:signoff:problem:invalid")
        start = keys.index(after) + 1
    chosen = items[start:start + limit]
    more = start + limit < len(items)
    return chosen, key(chosen[-1]) if more and chosen else None
