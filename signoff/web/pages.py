"""The inbox: server-rendered pages (Jinja2) that work without JavaScript.

Each page reads through the library (`Inbox`, the app's verbs), and each form posts back with
its CSRF token and is answered with a redirect to the page that shows what came of it — a
refusal too (post/redirect/get): the page it was posted from says why, once, with the values
the person typed, and a reload of it posts nothing again.
"""

from __future__ import annotations

import json
import secrets
from collections import Counter
from typing import Any
from urllib.parse import quote, unquote_to_bytes

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from signoff.actions.parameters import ParameterKind
from signoff.agents import model_specs
from signoff.agents.edits import names_acted_on
from signoff.agents.proposals import Proposal, ProposalStatus
from signoff.agents.rules import StandingRule
from signoff.agents.tasks import TaskStatus
from signoff.app import App
from signoff.exceptions import AgentRefused, Invalid, StoreError, Unavailable
from signoff.inbox import Inbox, effect_lines
from signoff.security.principals import Principal
from signoff.web import wording
from signoff.web.admission import page_policy
from signoff.web.api import refused
from signoff.web.auth import SESSION_LIFETIME, Browser
from signoff.web.numbers import NUMBER_KINDS, not_plain, number_of
from signoff.web.problems import (
    ProblemError,
    instance_of,
    prefers_problem,
    problem_response,
    title_of,
    to_problem,
)
from signoff.web.throttle import LoginThrottle
from signoff.web.unrecorded import yes_cut_off

__all__ = ["LoginRequired", "Pages"]


class LoginRequired(Exception):
    """Nobody is logged in: the visitor is sent to the login page."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.path = path
        """Where to come back to."""


class Pages:
    """The inbox's pages for one app."""

    def __init__(self, app: App, inbox: Inbox, browser: Browser, *, refresh_seconds: float) -> None:
        self.app = app
        self.inbox = inbox
        self.browser = browser
        self.refresh_seconds = refresh_seconds
        self.throttle = LoginThrottle()
        """Wrong passwords, and how long a guesser waits."""
        # Every value a page shows is shown as written (`wording.shown`): what a model, a tool, a
        # record or a person wrote reorders nothing and hides nothing on the page.
        self.templates = Environment(loader=PackageLoader("signoff.web", "templates"),
                                     autoescape=select_autoescape(["html"]),
                                     finalize=wording.shown)
        self.templates.filters.update(brief=wording.brief, prose=wording.prose,
                                      said=wording.said, field=wording.field,
                                      label=wording.label, plain=wording.plain,
                                      why=wording.why, kind=wording.kind)

    # -- helpers -------------------------------------------------------------------------

    def render(self, request: Request, name: str, *, status: int = 200,
               person: Principal | None = None, **context: Any) -> HTMLResponse:
        """A page from its template, its inline script and style carrying a nonce of this answer's
        alone, which its Content-Security-Policy names (`page_policy`): a script or a style put
        on the page by anything else does not run."""
        csrf = self.browser.csrf(request) if person else self.browser.login_token(request)
        nonce = secrets.token_urlsafe(16)
        html = self.templates.get_template(name).render(
            request=request, me=person, csrf=csrf, app_name=self.app.name, nonce=nonce,
            supervises=self.inbox.supervises(person) if person else False, **context)
        response = HTMLResponse(html, status_code=status,
                                headers={"content-security-policy": page_policy(nonce)})
        if person is None:
            self.browser.remember_login_token(request, response, csrf)
        return response

    def person(self, request: Request) -> Principal:
        """Who is logged in; `LoginRequired` when nobody is."""
        person = self.browser.person(request)
        if person is None:
            # (a page's address whole: its filters, `?status=Done`, are where they go back to)
            query = f"?{request.url.query}" if request.url.query else ""
            raise LoginRequired(request.url.path + query if request.method == "GET"
                                else _page_of(request.url.path))
        return person

    async def form(self, request: Request) -> dict[str, str]:
        """The posted form, once it is found sent from a page of this site
        (`refuse_from_elsewhere`) and its CSRF token this visitor's."""
        refuse_from_elsewhere(request)
        body = await request.body()  # (kept: the form is read from it, not from the stream)
        posted = await request.form()
        fields = {k: v for k, v in posted.items() if isinstance(v, str)}
        self.browser.check_csrf(request, fields.get("csrf"))
        unread = _unread(request.headers.get("content-type", ""), body,
                         [name for name, _ in posted.multi_items()])
        if unread:  # (told as any form that could not be read: `problems.from_http`)
            raise StarletteHTTPException(400, unread)
        return fields

    def back_to(self, request: Request, page: str, said: dict[str, Any], *, query: str = ""
                ) -> Response:
        """A refused form: back to `page` (303; its `query`, such as ``?next=/tasks``, kept in
        the address), which says `said` once (its ``error``, and the ``values`` typed)."""
        response = RedirectResponse(page + query, status_code=303)
        self.browser.say_on(request, response, page, said)
        return response

    def decided(self, request: Request, page: str, query: str = "") -> Response:
        """A decision taken: back to the proposal's `page` (303), which, once, puts the focus on
        what came of it (a keyboard's, and a screen reader's, there, not at the page's top)."""
        response = RedirectResponse(page + query, status_code=303)
        self.browser.say_on(request, response, page, {"decided": True})
        return response

    def error(self, request: Request, problem: ProblemError) -> HTMLResponse:
        """A problem, as a page: with the header of whoever is logged in, or, when that cannot
        be read (the database cannot be used: the problem itself, often), with none."""
        title = title_of(problem.status)  # (its title and heading: "Not Found", not "404")
        try:
            return self.render(request, "error.html", status=problem.status,
                               person=self.browser.person(request), problem=problem, title=title)
        except StoreError:  # (the problem it tells, most often, and logged as such)
            return self.render(request, "error.html", status=problem.status, problem=problem,
                               title=title)

    # -- routes --------------------------------------------------------------------------

    def router(self) -> APIRouter:
        """The inbox's routes."""
        router = APIRouter(include_in_schema=False)
        page = [Depends(for_browsers)]  # (a page asked for as JSON: where the API has it)
        router.add_api_route("/login", self.login_page, methods=["GET"], dependencies=page)
        router.add_api_route("/login", self.login, methods=["POST"])
        router.add_api_route("/logout", self.logout, methods=["POST"])
        router.add_api_route("/", self.home, methods=["GET"], dependencies=page)
        router.add_api_route("/inbox/stamp", self.stamp, methods=["GET"])
        router.add_api_route("/proposals/{proposal_id}", self.proposal_page, methods=["GET"],
                             dependencies=page)
        router.add_api_route("/proposals/{proposal_id}/approve", self.approve, methods=["POST"])
        router.add_api_route("/proposals/{proposal_id}/reject", self.reject, methods=["POST"])
        router.add_api_route("/tasks", self.tasks_page, methods=["GET"], dependencies=page)
        router.add_api_route("/tasks/{task_id}", self.task_page, methods=["GET"], dependencies=page)
        router.add_api_route("/tasks/{task_id}/stop", self.stop, methods=["POST"])
        router.add_api_route("/rules", self.rules_page, methods=["GET"], dependencies=page)
        router.add_api_route("/rules/{rule_id}/revoke", self.revoke, methods=["POST"])
        router.add_api_route("/agents", self.agents_page, methods=["GET"], dependencies=page)
        return router

    def login_page(self, request: Request, next: str = "/") -> HTMLResponse:
        """The login form (after a failed login, saying so once, with the handle typed)."""
        said = self.browser.said_on(request)  # why a login posted from here failed
        typed = said.get("values")
        # Sent here by a form posted with no session (`logged_out`): nothing it asked was done.
        unsent = request.cookies.get(_UNSENT_COOKIE) == "1"
        page = self.render(request, "login.html", next=_local(next),
                           error=str(said.get("error", "")) or (_NOT_SENT if unsent else ""),
                           handle=str(typed.get("handle", "")) if isinstance(typed, dict) else "")
        self.browser.forget_said(request, page, request.url.path)
        if unsent:  # (said once)
            page.delete_cookie(_UNSENT_COOKIE, path=LOGIN_PAGE, httponly=True, samesite="lax",
                               secure=self.browser.secure_for(request))
        return page

    def logged_out(self, request: Request) -> Response:
        """The answer to a form posted with no session (it ended, or its person logged out in
        another window): nothing is done, and the visitor is sent to log in, then back to the
        page the form was on; the login page says that what the form asked was not done (a
        cookie of its own, for one look: it tells nothing but that). A program asking for JSON
        is told so in a problem (401)."""
        refuse_from_elsewhere(request)  # (not told to log in, and send it again)
        if prefers_problem(request.headers.get("accept", "")):
            return _no_session(request, posted=True)
        response = RedirectResponse(f"{LOGIN_PAGE}?next={quote(_page_of(request.url.path))}",
                                    status_code=303)
        response.set_cookie(_UNSENT_COOKIE, "1", max_age=300, httponly=True, samesite="lax",
                            secure=self.browser.secure_for(request), path=LOGIN_PAGE)
        return response

    async def login(self, request: Request) -> Response:
        """Check the password; on success, a session and back to where they were going."""
        fields = await self.form(request)
        return await run_in_threadpool(self._login, request, fields)

    def _login(self, request: Request, fields: dict[str, str]) -> Response:
        handle = fields.get("handle", "").strip()
        address = request.client.host if request.client else ""
        named = self.app.people.find(handle) if handle else None
        who = named.id if named is not None else handle  # by id or by handle: one person
        wait = self.throttle.begin(address, who)
        going = _local(fields.get("next"))
        if wait:  # told before the password is even checked
            # (A 429 with Retry-After, as it was, for any client to see it must wait; the
            # password is not checked, nor the try counted, however often it comes again.)
            paused = self.render(request, "login.html", status=429, next=going, handle=handle,
                                 error="Too many wrong passwords for that e-mail address from "
                                       f"here. Try again in {_in_minutes(wait)}.")
            paused.headers["Retry-After"] = str(wait)
            return paused
        # A password's hash takes its time on purpose: off the event loop, as every decision.
        # The session is made as the password is found still theirs, in one transaction.
        logged = self.app.credentials.log_in(handle, fields.get("password", ""),
                                             expires_in=SESSION_LIFETIME)
        if logged is None:
            # Back to the login form (post/redirect/get: a reload posts no password again),
            # which says so once, keeping the handle typed, never the password.
            return self.back_to(request, "/login", {"error": _NO_MATCH,
                                                    "values": {"handle": handle}},
                                query="" if going == "/" else f"?next={quote(going)}")
        self.throttle.succeeded(address, who)
        response = RedirectResponse(going, status_code=303)
        self.browser.log_in(request, response, *logged)
        return response

    async def logout(self, request: Request) -> Response:
        """End the session."""
        await self.form(request)
        response = RedirectResponse("/login", status_code=303)
        await run_in_threadpool(self.browser.log_out, request, response)
        return response

    def home(self, request: Request, status: str = "Waiting", queue: str | None = None,
             after: str | None = None) -> HTMLResponse:
        """My proposals and my queues': those waiting that I may decide, newest first (or in
        another status); below them, my own work waiting on another's decision, to read."""
        person = self.person(request)
        by_name = {s.value.lower(): s for s in ProposalStatus}
        try:
            chosen = None if status.lower() == "any" else by_name[status.lower()]
        except KeyError:
            raise ProblemError(422, f"{_quoted(status)} is not a status; choose one of "
                                    f"{', '.join(s.value for s in ProposalStatus)}, or any.") from None
        if queue and queue not in person.roles and not self.inbox.supervises(person):
            # (said here, the queue quoted: a link's words are never read as the page's own)
            mine = ", ".join(sorted(person.roles))
            raise ProblemError(404, f"{person.name} is not in a queue named {_quoted(queue)}: "
                                    + (f"choose one of {mine}, or leave Queue empty." if mine
                                       else "leave Queue empty."),
                               type_="urn:signoff:problem:not-found")
        page = self.inbox.proposals(person, status=chosen, queue=queue or None, after=after)
        # (their own work routed to another: shown apart, to read, under what they decide)
        others = self.inbox.waiting_on_others(person) if (
            chosen is ProposalStatus.WAITING and not queue and not after) else None
        decided = [p.decided_by for p in page.items if p.decided_by]
        deciders = self.app.people.find_each(decided) if decided else {}
        return self.render(request, "inbox.html", person=person, page=page, others=others,
                           wanted=chosen.value if chosen else "any",
                           decided_by={key: who.name for key, who in deciders.items()},
                           queue=queue or "", statuses=[s.value for s in ProposalStatus],
                           queues=sorted(person.roles), stamp=self.inbox.stamp(person),
                           refresh_seconds=self.refresh_seconds)

    def stamp(self, request: Request) -> Response:
        """What the inbox polls: a text that changes when something new arrives."""
        person = self.browser.person(request)
        if person is None:  # (its `stamp` null, as the inbox's script reads it)
            return _no_session(request, stamp=None)
        return JSONResponse({"stamp": self.inbox.stamp(person)},
                            headers={"cache-control": "no-store"})

    def proposal_page(self, request: Request, proposal_id: str,
                      rule: str | None = None) -> HTMLResponse:
        """One proposal: the call in words, why, evidence, effects, freshness, and the forms
        (and, after "approve always", the standing rule it made and what it covers)."""
        person = self.person(request)
        proposal = self.inbox.proposal(person, proposal_id)
        made = self._made(person, proposal, rule) if rule else None
        said = self.browser.said_on(request)  # why a decision posted from here was refused
        typed = said.get("values")
        page = self._proposal(request, person, proposal, made=made,
                              error=str(said.get("error", "")),
                              typed=typed if isinstance(typed, dict) else {},
                              decided=said.get("decided") is True)
        self.browser.forget_said(request, page, request.url.path)
        return page

    def _made(self, person: Principal, proposal: Proposal, rule_id: str
              ) -> tuple[StandingRule, str] | None:
        """The standing rule `rule_id`, and what it covers in words, when it is the one the yes
        to `proposal` made ("approve always" leads to the page with its id); None for any other
        rule, or one `person` may not see: a link naming some rule says nothing of it on the
        page of a decision that did not make it. The page says how to take it back (the
        command line says it with the command that does), or that it was taken back since."""
        rule = next((r for r in self.inbox.rules(person) if r.id == rule_id), None)
        if rule is None or not _made_by(rule, proposal):
            return None
        return rule, self.inbox.covers(rule)

    def _proposal(self, request: Request, person: Principal, proposal: Proposal, *,
                  error: str = "", made: tuple[StandingRule, str] | None = None,
                  typed: dict[str, Any] | None = None,
                  decided: bool = False) -> HTMLResponse:
        """The proposal's page; `decided` when it follows a decision sent from it (the focus is
        put on what came of it)."""
        waiting = proposal.status is ProposalStatus.WAITING
        fresh = self.inbox.freshness(proposal) if waiting else None
        came_of_it = [e for e in self.app.receipt(proposal.task).entries
                      if e.kind in ("decision", "escalated")
                      and e.data.get("proposal") == proposal.id]
        # A no's reason is in the words of its decision; said apart only when they do not hold it
        reason_apart = proposal.status is ProposalStatus.REJECTED and bool(proposal.reason) and (
            not any(proposal.reason.strip() in e.words for e in came_of_it))
        typed = typed or {}
        editable = [_field_of(name, label, str(typed.get(name, value)), as_text)
                    for name, label, value, as_text, _ in self._editable(proposal)]
        decidable = self.inbox.decidable(person, proposal)
        return self.render(request, "proposal.html", person=person, p=proposal,
                           fresh=fresh, decidable=decidable,
                           nobody=self.inbox.nobody_decides(proposal) if (
                               waiting and not decidable) else "",
                           deadline=self.inbox.deadline(proposal), editable=editable,
                           effects=self.inbox.effects(proposal),
                           came_of_it=[wording.entry(e, proposal, rest=wording.text)
                                       for e in came_of_it],
                           reason_apart=reason_apart, error=error,
                           made=made, reason=str(typed.get("reason", "")), decided=decided)

    def _editable(self, proposal: Proposal
                  ) -> list[tuple[str, str, str, bool, ParameterKind]]:
        """(name, label, value as text, whether what is typed is its value as it stands) of each
        argument a decider may change: values, never what the call acts on (an argument naming
        a record, an id, or a value the skill's `names` shows as a name: `names_acted_on`).
        Text, and a value proposed as text (a date, a choice), is what is typed,
        whatever it reads like (42 is a reply; "quoted" keeps its quotes); a number is written
        plainly (`numbers`); another (yes or no, a list) is read as JSON. Its kind last."""
        if proposal.action not in self.app.actions:
            return []
        found = []
        for parameter in self.app.actions.info(proposal.action).parameters:
            if parameter.name not in proposal.arguments or names_acted_on(proposal, parameter):
                continue
            value = proposal.arguments[parameter.name]
            found.append((parameter.name, parameter.label,
                          value if isinstance(value, str) else json.dumps(value),
                          parameter.kind is ParameterKind.TEXT or isinstance(value, str),
                          parameter.kind))
        return found

    async def approve(self, request: Request, proposal_id: str) -> Response:
        """Approve, approve always, or approve with changes (fields ``set.NAME``). The decision
        runs the call and steps the task on, which can take as long as a tool or a model does:
        it runs in a thread, never on the event loop every other request waits on (an upstream
        MCP server a guard forwards to is driven from that loop)."""
        person = await run_in_threadpool(self.browser.person, request)
        if person is None:
            return self.logged_out(request)
        fields = await self.form(request)
        return await run_in_threadpool(self._approve, request, person, proposal_id, fields)

    def _approve(self, request: Request, person: Principal, proposal_id: str,
                 fields: dict[str, str]) -> Response:
        proposal = self.inbox.proposal(person, proposal_id)
        edited: dict[str, Any] = {}
        typed: dict[str, str] = {}
        changed: list[str] = []  # the labels of the values edited
        unread = ""  # why a number typed is not read, in a sentence
        editable = self._editable(proposal)
        # A value posted for no field of the form (an argument not there, or one naming what
        # the call acts on: ``set.repair``) was passed over, and the yes went ahead: it is
        # given as a change, which the app refuses in its words, as the API's does.
        taken = {f"set.{name}" for name, *_ in editable}
        foreign = {key.removeprefix("set."): _value_of(given) for key, given in fields.items()
                   if key.startswith("set.") and key not in taken}
        for name, label, value, as_text, kind in editable:
            given = fields.get(f"set.{name}")
            if given is not None:
                typed[name] = given
            # Untouched, a field posts back its value as a browser does (`_as_posted`): never
            # an edit, whatever its line breaks.
            if given is None or _as_posted(given) == _as_posted(value):
                continue
            if kind in NUMBER_KINDS:  # written plainly, or refused ("1_000" ran as 1000)
                unread = unread or not_plain(label, given, kind)
                edited[name] = number_of(given, as_text=as_text) if not unread else given
            else:
                edited[name] = _lines(given) if as_text else _value_of(given)
            changed.append(label)
        page = f"/proposals/{quote(proposal_id)}"
        if unread:  # nothing runs; back to the page, which says how to write it, kept typed
            return self.back_to(request, page, {"error": unread, "values": typed})
        if changed and not fields.get("changes"):  # a value changed, then Approve as proposed:
            # what would run is not what the form shows, so nothing runs (the values kept).
            return self.back_to(request, page, {"error": _changed_not_asked(
                changed, always=bool(fields.get("always"))), "values": typed})
        try:
            decision = self.app.approve(proposal, by=person,
                                        always_like_this=bool(fields.get("always")),
                                        edited={**foreign, **edited} or None)
        except (ProblemError, AgentRefused, Invalid, Unavailable) as error:
            # Back to the proposal's page, which says why, keeping what was typed (Unavailable:
            # nothing was sent, and the proposal still waits: the page shows it with its forms,
            # and the sentence saying what to try again later).
            problem = refused(self.app, proposal_id, error) if isinstance(
                error, AgentRefused) else to_problem(error)
            return self.back_to(request, page, {"error": problem.detail, "values": typed})
        except StoreError as error:  # its call started, and its outcome not recorded? said
            said = yes_cut_off(self.app, proposal_id, person, error)
            if not said:
                raise
            return self.back_to(request, page, {"error": said})
        made = f"?rule={quote(decision.rule.id)}" if decision.rule is not None else ""
        return self.decided(request, page, made)

    async def reject(self, request: Request, proposal_id: str) -> Response:
        """Reject, with a reason (in a thread, as an approval: the task goes on)."""
        person = await run_in_threadpool(self.browser.person, request)
        if person is None:
            return self.logged_out(request)
        fields = await self.form(request)
        return await run_in_threadpool(self._reject, request, person, proposal_id, fields)

    def _reject(self, request: Request, person: Principal, proposal_id: str,
                fields: dict[str, str]) -> Response:
        self.inbox.proposal(person, proposal_id)
        page = f"/proposals/{quote(proposal_id)}"
        reason = fields.get("reason", "")
        try:
            self.app.reject(proposal_id, by=person, reason=reason)
        except AgentRefused as error:
            return self.back_to(request, page, {"error": refused(self.app, proposal_id,
                                                                 error).detail,
                                                "values": {"reason": reason}})
        return self.decided(request, page)

    def tasks_page(self, request: Request, after: str | None = None) -> HTMLResponse:
        """The tasks I may see."""
        person = self.person(request)
        page = self.inbox.tasks(person, after=after)
        running = [t.id for t in page.items if t.status is TaskStatus.RUNNING]
        stuck: dict[str, str] = {}
        if running:
            with self.app.database.reading() as db:
                stuck = model_specs.problems(db, running)
        return self.render(request, "tasks.html", person=person, page=page, stuck=stuck)

    def task_page(self, request: Request, task_id: str) -> HTMLResponse:
        """One task: where it stands, and its receipt (and, while it has not ended, a stop)."""
        person = self.person(request)
        task_id = self.inbox.task(person, task_id)
        said = self.browser.said_on(request)  # why a stop posted from here was refused
        receipt = self.app.receipt(task_id)
        proposals = {p.id: p for p in self.app.proposals(task=task_id)}
        page = self.render(request, "task.html", person=person, outcome=self.app.outcome(task_id),
                           receipt=receipt, error=str(said.get("error", "")),
                           may_stop=self.inbox.may_stop(person, task_id), entries=[
                               (e, wording.entry(e, proposals.get(str(e.data.get("proposal")))))
                               for e in receipt.entries])
        self.browser.forget_said(request, page, request.url.path)
        return page

    async def stop(self, request: Request, task_id: str) -> Response:
        """Stop a task (`App.stop`)."""
        person = await run_in_threadpool(self.browser.person, request)
        if person is None:
            return self.logged_out(request)
        fields = await self.form(request)
        return await run_in_threadpool(self._stop, request, person, task_id, fields)

    def _stop(self, request: Request, person: Principal, task_id: str,
              fields: dict[str, str]) -> Response:
        task_id = self.inbox.task(person, task_id)  # (one they may not see: not there)
        page = f"/tasks/{task_id}"
        try:
            self.app.stop(task_id, by=person, reason=fields.get("reason", ""))
        except AgentRefused as error:  # ended, being stepped, not theirs, a reason too long
            return self.back_to(request, page, {"error": str(error)})
        return RedirectResponse(page, status_code=303)

    def rules_page(self, request: Request) -> HTMLResponse:
        """The standing rules I may see, with revoke."""
        person = self.person(request)
        said = self.browser.said_on(request)  # why a revoke posted from here was refused
        page = self.render(request, "rules.html", person=person, rules=self._rules(person),
                           error=str(said.get("error", "")))
        self.browser.forget_said(request, page, request.url.path)
        return page

    def _rules(self, person: Principal) -> list[tuple[StandingRule, str, str]]:
        """Each rule `person` may see, with what it covers in words, and what its tool does
        now that it did not when it was made (`Inbox.outgrown`)."""
        return [(rule, self.inbox.covers(rule), self.inbox.outgrown(rule))
                for rule in self.inbox.rules(person)]

    async def revoke(self, request: Request, rule_id: str) -> Response:
        """Take a rule back."""
        person = await run_in_threadpool(self.browser.person, request)
        if person is None:
            return self.logged_out(request)
        fields = await self.form(request)
        return await run_in_threadpool(self._revoke, request, person, rule_id, fields)

    def _revoke(self, request: Request, person: Principal, rule_id: str,
                fields: dict[str, str]) -> Response:
        rule = self.inbox.rule(person, rule_id)
        try:
            self.app.revoke(rule, by=person, why=fields.get("why", ""))
        except AgentRefused as error:
            return self.back_to(request, "/rules", {"error": str(error)})
        return RedirectResponse("/rules", status_code=303)

    def agents_page(self, request: Request) -> HTMLResponse:
        """The agents' catalogue, and the actions the app offers."""
        person = self.person(request)
        return self.render(request, "agents.html", person=person,
                           lines=self.app.skills.catalog(), actions=self.app.actions.catalog(),
                           effect_lines=effect_lines)


def _made_by(rule: StandingRule, proposal: Proposal) -> bool:
    """Whether `rule` is the one a yes to `proposal` with "always like this" made: its decider's,
    for its agent, skill and tool, in the work it was for, made once the call ran — or, still
    standing, given back by that yes (one said again makes no second rule)."""
    return (proposal.status is ProposalStatus.DONE and proposal.decided_by is not None
            and rule.made_by == proposal.decided_by and rule.agent == proposal.agent
            and rule.tool == proposal.action and rule.skill == proposal.skill
            and rule.for_id == (proposal.for_id or proposal.decided_by)
            and proposal.decided_at is not None
            and (rule.made_at >= proposal.decided_at or rule.active))


def _changed_not_asked(changed: list[str], *, always: bool) -> str:
    """Why an approval as proposed, posted with the values labelled `changed` changed in its
    form, ran nothing, and what to press."""
    which = changed[-1] if len(changed) == 1 else f"{', '.join(changed[:-1])} and {changed[-1]}"
    pressed = "Approve, and always like this" if always else "Approve"
    return (f"You changed {which}, but pressed “{pressed}”, which runs the call as it was "
            "proposed: nothing was run. To run it with your changes, press “Approve with these "
            "changes”; to run it as proposed, put the values back.")


LOGIN_PAGE = "/login"


def for_browsers(request: Request) -> None:
    """Refuse (406) a page asked for as JSON (`prefers_problem`: a program's request), saying
    where the API has what it shows: the page is HTML alone, and a program would not read it."""
    if prefers_problem(request.headers.get("accept", "")):
        path = instance_of(request.url.path)  # (an id of any length: its start)
        there = ("/api/openapi.json lists the API's operations" if path == LOGIN_PAGE
                 else f"{'/api/proposals' if path == '/' else '/api' + path} has what it shows")
        raise ProblemError(406, "This address is a page of the inbox, for a browser, and has no "
                                f"JSON: {there}, for a bearer token (Authorization: Bearer …).",
                           type_="urn:signoff:problem:page-not-json")


def refuse_from_elsewhere(request: Request) -> None:
    """Refuse (403) a form the browser says a page of another site sent (``Sec-Fetch-Site``:
    ``cross-site``, or ``same-site``: another port or subdomain; the inbox's own forms are
    ``same-origin``), before its session or its CSRF token is looked at: whatever those would
    say (log in, and send it again; reload, and try again) would ask the person to do what
    that other page wanted. Clients that send no such header are left to the CSRF token."""
    if request.headers.get("sec-fetch-site", "").strip().lower() in ("cross-site", "same-site"):
        raise ProblemError(403, _ELSEWHERE, type_="urn:signoff:problem:cross-site")


_ELSEWHERE = ("This form was sent from a page of another site, not from the inbox's own, so "
              "nothing it asked was done. To decide, open the inbox yourself, and decide on its "
              "own pages.")


def _no_session(request: Request, *, posted: bool = False, **extra: Any) -> Response:
    """The answer to a program (asking for JSON: `prefers_problem`) that reached an inbox's
    address with no session, or a form `posted` with none: a 401 problem saying to log in (a
    program fills in no login form), with `extra` members."""
    done = ", so nothing this form asked was done" if posted else ""
    return problem_response(request, ProblemError(
        401, f"Nobody is logged in{done}: log in at {LOGIN_PAGE} first (a program uses the REST "
             "API under /api, with a bearer token).",
        type_="urn:signoff:problem:no-session", **extra))
_UNSENT_COOKIE = "signoff_unsent"
"""Set by `Pages.logged_out`: the login page says that nothing the form asked was done."""
_NOT_SENT = ("You are not logged in (your session ended, or you logged out in another window), "
             "so nothing that form asked was done: log in, and send it again.")

_NO_MATCH = "That e-mail address and password do not match anyone who may log in."
"""What a failed login says: not which of the two was wrong."""


def _page_of(path: str) -> str:
    """The page a form posted to `path` was on, to come back to after logging in (its own
    URL takes only a POST): a proposal's decision → the proposal, a rule's revoking → the
    rules, anything else → the inbox."""
    parts = path.strip("/").split("/")
    if len(parts) == 3 and parts[0] == "proposals" and parts[2] in ("approve", "reject"):
        return f"/proposals/{parts[1]}"
    if len(parts) == 3 and parts[0] == "rules" and parts[2] == "revoke":
        return "/rules"
    if len(parts) == 3 and parts[0] == "tasks" and parts[2] == "stop":
        return f"/tasks/{parts[1]}"
    return "/"


def _quoted(given: str) -> str:
    """A value from the address, said back on a page in quotation marks (never read as the
    page's own words), and, when long, cut to its start with its length."""
    if len(given) <= 60:
        return repr(given)
    return f"{given[:40]!r}… ({len(given):,} characters)"


def _in_minutes(seconds: int) -> str:
    """A wait in words: "1 minute", "12 minutes"."""
    minutes = -(-seconds // 60)
    return "1 minute" if minutes == 1 else f"{minutes} minutes"


def _local(target: str | None) -> str:
    """Only a path on this site is a place to go back to (no open redirect)."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target


def _field_of(name: str, label: str, value: str, as_text: bool) -> tuple[str, str, str, int]:
    """(name, label, value, rows) of a field of "approve with changes": rows 0 for a one-line
    field, else a text area's — text (whatever it holds: an input holds no line break), and a
    long value of another kind — with rows for all of it, up to 40 (a browser that sizes a
    field to what it holds shows all of it however long)."""
    if not (as_text or "\n" in value or len(value) > _ONE_LINE):
        return name, label, value, 0
    lines = _lines(value).split("\n")
    return name, label, value, min(sum(len(line) // _ONE_LINE + 1 for line in lines), 40)


_ONE_LINE = 60
"""How many characters a field of "approve with changes" shows on a line."""


def _lines(typed: str) -> str:
    """`typed` with its line breaks as one line feed each, as a text area holds them (a browser
    posts each as CR LF)."""
    return typed.replace("\r\n", "\n").replace("\r", "\n")


def _as_posted(value: str) -> str:
    """What a browser posts back for a field that shows `value`, read as `_lines`: each line
    break a line feed, and a NUL (which no page can hold) U+FFFD."""
    return _lines(value).replace("\0", "\ufffd")


def _unread(content_type: str, body: bytes, names: list[str]) -> str:
    """Why a form posted with `body` (its fields named `names`, in order) is not read as a page
    of the inbox sends it, in a few words ("" when it is): a field given twice (the form was
    read with the last, the first lost without a word: ``set.price=1&set.price=2`` ran at 2),
    or, in a form sent URL-encoded, a field that is not UTF-8 text once its escapes are read
    (``reason=Too+dear+%ff%fe`` was kept, and told to the agent, as "Too dear ��")."""
    twice = next((name for name, count in Counter(names).items() if count > 1), None)
    if twice is not None:
        return f"it gives the field “{_said(twice)}” twice"
    if content_type.partition(";")[0].strip().lower() != "application/x-www-form-urlencoded":
        return ""
    for field in body.split(b"&"):
        name, _, value = field.partition(b"=")
        # (a browser escapes each byte past ASCII, of text in UTF-8: the form's page is)
        if not all(part.isascii() and _utf8(unquote_to_bytes(part.replace(b"+", b" ")))
                   for part in (name, value)):
            said = unquote_to_bytes(name.replace(b"+", b" ")).decode("utf-8", "replace")
            return f"its field “{_said(said)}” is not UTF-8 text"
    return ""


def _utf8(given: bytes) -> bool:
    try:
        given.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _said(name: str) -> str:
    """A field's name as a form's refusal quotes it: cut past 40 characters, and shown escaped
    when it holds what cannot be printed."""
    shown = name if len(name) <= 40 else name[:40] + "…"
    return shown if shown.isprintable() else shown.encode("unicode_escape").decode("ascii")


def _value_of(text: str) -> Any:
    """A changed value of another kind, as typed: JSON when it reads as JSON (42, true), else the
    text itself."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested too deeply to read: as typed
        return text


