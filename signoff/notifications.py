"""Telling people a proposal waits for them: a webhook (JSON over HTTP POST) and e-mail (SMTP).

Both senders are marked ``@sends``, so an action that calls one is counted as sending. Register a
notifier for ``AgentProposed``::

    notify_by_webhook(app, "https://chat.example/hooks/signoff", secret=b"...")
    notify_by_email(app, host="smtp.example", sender="signoff@example.com",
                    inbox_url="https://signoff.example")

A notifier that fails logs why, in a sentence, and never undoes or stops the work; it is called
again later for the proposal (`signoff.agents.telling`), and the notifiers that took it are not.
Each is known there by its `name`, the same in every process: its kind and where it sends.

Each proposal is told at least once (`signoff.agents.telling`: a process that stops between a
proposal's commit and its telling leaves it for a worker to tell), so a decider may be told of
it twice. Every sending of one notice — this proposal, put to this decider — carries the same
key (`notice_key`): a webhook's ``notice`` member and ``Idempotency-Key`` header, an e-mail's
``Message-ID``. A receiver that has seen the key drops the sending; an escalation to another
decider is a notice of its own.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import http.client
import json
import logging
import re
import smtplib
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.message import EmailMessage
from types import TracebackType
from typing import TYPE_CHECKING, Any

from signoff.agents.events import AgentProposed, NotTold
from signoff.agents.proposals import Proposal, ProposalStatus
from signoff.effects import sends
from signoff.exceptions import StoreError, UnknownId, UserError
from signoff.inbox import Inbox
from signoff.security.principals import PrincipalKind

if TYPE_CHECKING:
    from signoff.app import App

__all__ = [
    "EmailNotifier",
    "WebhookNotifier",
    "notice_key",
    "notify_by_email",
    "notify_by_webhook",
    "post_json",
    "proposal_message",
    "send_email",
]

SIGNATURE_HEADER = "X-Signoff-Signature"
"""The header carrying ``sha256=<hex HMAC of the body>`` when a webhook has a secret."""

log = logging.getLogger("signoff.notifications")


class _Deadline:
    """The sockets a sender opens, shut when its time is up: a socket's timeout counts each
    wait alone, so a receiver answering a byte at a time held the work (a decision, a worker's
    look) for as long as it liked. `connect` finds the receiver's name within the time too.
    `cut`: whether the time ran out."""

    def __init__(self, timeout: float) -> None:
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._ends = time.monotonic() + timeout
        self.cut = False
        self._timer = threading.Timer(timeout, self._cut)
        self._timer.daemon = True

    def watch(self, sock: socket.socket | None) -> None:
        """Shut `sock` when the time runs out (at once, when it has)."""
        if sock is None:
            return
        with self._lock:
            self._sockets.append(sock)
            if self.cut:
                _shut(sock)

    def connect(self, address: tuple[str, int], timeout: float | None = None,
                source_address: Any = None) -> socket.socket:
        """A socket connected to `address` (as ``socket.create_connection``), watched; its
        name found within the time left (the resolver's own wait, with no socket to shut, is
        no socket's timeout: a name server that did not answer held the work for minutes)."""
        host, port = address
        error: OSError = OSError(f"{host} has no address")
        for family, kind, protocol, _, where in self._addresses(host, port):
            sock = socket.socket(family, kind, protocol)
            self.watch(sock)
            try:
                if isinstance(timeout, int | float):  # (not http.client's "default" mark)
                    sock.settimeout(timeout)
                if source_address:
                    sock.bind(source_address)
                sock.connect(where)
                return sock
            except OSError as failed:
                sock.close()
                error = failed
        raise error

    def _addresses(self, host: str, port: int) -> list[Any]:
        """`host`'s addresses, looked up in a thread of its own, waited for until the time is
        up (a `TimeoutError` then; the look-up is left to end alone)."""
        found: list[Any] = []
        done = threading.Event()

        def look_up() -> None:
            try:
                found.append(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
            except BaseException as error:  # (told to the waiting thread, raised there)
                found.append(error)
            finally:
                done.set()

        threading.Thread(target=look_up, name="signoff-look-up", daemon=True).start()
        if not done.wait(max(0.0, self._ends - time.monotonic())):
            self._cut()
            raise TimeoutError(f"the name {host} was not found in time")
        if isinstance(found[0], BaseException):
            raise found[0]
        addresses: list[Any] = found[0]
        return addresses

    def _cut(self) -> None:
        with self._lock:
            self.cut = True
            for sock in self._sockets:
                _shut(sock)

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._timer.cancel()
        # Cut short, an answer can read as whole (its headers ended by the cut): it was not.
        if self.cut and (error is None or isinstance(error, OSError | http.client.HTTPException)):
            raise TimeoutError("it did not answer in time") from error


def _shut(sock: socket.socket) -> None:
    """Shut `sock` both ways, under its TLS layer if it has one (a read blocked on it ends)."""
    with contextlib.suppress(OSError):  # (closed already)
        socket.socket.shutdown(sock, socket.SHUT_RDWR)


def _watched(http_class: Callable[..., http.client.HTTPConnection], deadline: _Deadline
             ) -> Callable[..., http.client.HTTPConnection]:
    """`http_class`, whose connections' sockets `deadline` shuts when its time is up."""
    def make(host: str, **options: Any) -> http.client.HTTPConnection:
        connection = http_class(host, **options)
        connection._create_connection = deadline.connect  # type: ignore[attr-defined]
        return connection
    return make


class _HttpWatched(urllib.request.HTTPHandler):
    def __init__(self, deadline: _Deadline) -> None:
        super().__init__()
        self._deadline = deadline

    def do_open(self, http_class: Any, req: Any, **options: Any) -> Any:
        return super().do_open(_watched(http_class, self._deadline), req, **options)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is the receiver's answer, not followed: urllib follows a 301, 302 or 303 to a
    POST with a GET without the body (the signature header sent on, to wherever it points), and
    a proposal never delivered read as told."""

    def redirect_request(self, *args: Any, **options: Any) -> None:
        return None  # (urllib then raises the answer as an HTTPError)

    def http_error_302(self, *args: Any, **options: Any) -> None:
        # Not urllib's: a redirect to another scheme (file:, data:) was raised before
        # `redirect_request`, its reason "Redirection to url '…' is not allowed" holding the
        # whole address it pointed to (its token too) for the log. None: urllib raises the
        # answer as it came.
        return None

    http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302


class _HttpsWatched(urllib.request.HTTPSHandler):
    def __init__(self, deadline: _Deadline) -> None:
        super().__init__()
        self._deadline = deadline

    def do_open(self, http_class: Any, req: Any, **options: Any) -> Any:
        return super().do_open(_watched(http_class, self._deadline), req, **options)


@sends
def post_json(url: str, payload: dict[str, Any], *, secret: bytes | None = None,
              timeout: float = 10.0, headers: Mapping[str, str] | None = None) -> int:
    """POST `payload` as JSON to `url` (signed with `secret`, when given; with `headers`
    besides its own); the status code.
    An answer other than 2xx, a redirect too (it is not followed), is an `OSError`
    (``urllib.error.HTTPError``); one not given in full within `timeout` seconds, all waits
    together, a `TimeoutError`."""
    if not url.startswith(("http://", "https://")):
        raise UserError(f"A webhook URL starts with http:// or https://, not {url!r}.")
    body = json.dumps(payload, sort_keys=True, default=str).encode()
    sent = {**(headers or {}), "Content-Type": "application/json", "User-Agent": "signoff"}
    if secret:
        digest = hmac.new(secret, body, hashlib.sha256).hexdigest()
        sent[SIGNATURE_HEADER] = f"sha256={digest}"
    request = urllib.request.Request(url, data=body, headers=sent, method="POST")
    with _Deadline(timeout) as deadline:
        opener = urllib.request.build_opener(_HttpWatched(deadline), _HttpsWatched(deadline),
                                             _NoRedirect())
        with opener.open(request, timeout=timeout) as answer:  # the scheme was checked above
            # Its status came: it was told. Its body is left unread (all of it was read: a
            # receiver's gigabytes, in memory; then a little, and one whose body never ended
            # read as not told, at its timeout, though it had answered 200).
            return int(answer.status)


class _SmtpWatched(smtplib.SMTP):
    """An SMTP connection whose socket (and its TLS layer, after STARTTLS) `deadline` shuts."""

    def __init__(self, host: str, port: int, *, timeout: float, deadline: _Deadline) -> None:
        self._deadline = deadline
        super().__init__(host, port, timeout=timeout)

    def _get_socket(self, host: Any, port: Any, timeout: Any) -> socket.socket:
        return self._deadline.connect((host, port), timeout, self.source_address)

    def starttls(self, *args: Any, **options: Any) -> tuple[int, bytes]:
        answer = super().starttls(*args, **options)
        self._deadline.watch(self.sock)
        return answer


@sends
def send_email(message: EmailMessage, *, host: str, port: int = 25, starttls: bool = False,
               username: str = "", password: str = "", timeout: float = 10.0
               ) -> dict[str, tuple[int, bytes]]:
    """Send `message` over SMTP (with STARTTLS and a login, when given); the recipients the
    server refused, when it took it for the others (each with its code and answer). A server
    that refused them all is an `smtplib.SMTPRecipientsRefused`; one that has not taken it
    within `timeout` seconds, all waits together, a `TimeoutError`."""
    with _Deadline(timeout) as deadline, _SmtpWatched(host, port, timeout=timeout,
                                                      deadline=deadline) as smtp:
        if starttls:
            smtp.starttls()
        if username:
            smtp.login(username, password)
        return dict(smtp.send_message(message))


def notice_key(proposal: Proposal) -> str:
    """The key every sending of one notice of `proposal` carries, the same each time it is told
    (told again after a crash, or by a worker): its id and how many times its deadline has put
    it to another (``<id>.0``; ``<id>.1`` once escalated: a notice to a new decider)."""
    return f"{proposal.id}.{proposal.escalations}"


def proposal_message(proposal: Proposal, *, inbox_url: str = "") -> dict[str, Any]:
    """What a notification says of a proposal, as JSON: the call in words, why, who decides
    (by when, when it has a deadline), and where to decide it."""
    return {
        "event": "AgentProposed",
        "proposal": {
            "id": proposal.id, "task": proposal.task, "agent": proposal.agent,
            "skill": proposal.skill, "action": proposal.action, "label": proposal.label,
            "shown": proposal.shown, "why": proposal.why, "effects": list(proposal.effects),
            "decide_by": proposal.decide_by, "status": proposal.status.value,
            "created_at": proposal.created_at.isoformat() if proposal.created_at else None,
            "deadline_at": proposal.deadline_at.isoformat() if proposal.deadline_at else None,
        },
        "url": f"{inbox_url.rstrip('/')}/proposals/{proposal.id}" if inbox_url else None,
    }


@dataclass(frozen=True, kw_only=True)
class WebhookNotifier:
    """POSTs each new proposal to a URL, as `proposal_message` JSON."""

    url: str = field(repr=False)
    """Where to POST."""
    secret: bytes | str | None = field(default=None, repr=False)
    """Signs each body (HMAC-SHA256, in ``X-Signoff-Signature``), when given: bytes, or text
    (as a secret read from the environment is), which is its UTF-8 bytes."""
    inbox_url: str = ""
    """The inbox's address, for a link to the proposal."""
    timeout: float = 10.0
    """Seconds to wait for the receiver."""
    app: App | None = field(default=None, repr=False, compare=False)
    """The app whose proposals it tells of (`notify_by_webhook` gives it): a proposal decided
    before its POST went is then not sent. Without it, each is sent as it was made."""

    def __post_init__(self) -> None:
        if not isinstance(self.url, str) or not self.url.startswith(("http://", "https://")) or (
                not _host(self.url)):
            raise UserError(f"A webhook URL starts with http:// or https:// and names a host, "
                            f"not {_shown(self.url)!r}.")
        if "@" in _authority(self.url):  # (no POST ever went: the user and password were taken
            # for the host's name; or, a "?", "#" or "/" in the password, the user for the host
            # and the password's start for a port, both shown in the log)
            raise UserError(f"A webhook URL names no user or password ({_shown(self.url)!r}): "
                            "none is sent from it. Give the receiver's address alone, and "
                            "secret= to sign each body. An \"@\" before the URL's first \"/\" "
                            "reads as one: an \"@\" of its query goes after a \"/\" "
                            "(https://host/?to=a@b).")
        _check_address(self.url)
        if isinstance(self.secret, str):
            object.__setattr__(self, "secret", self.secret.encode())
        elif self.secret is not None and not isinstance(self.secret, bytes | bytearray):
            raise UserError(f"A webhook's secret is bytes or text, not "
                            f"{type(self.secret).__name__}: give secret=b\"…\" or the text "
                            "of one (an environment variable's, say).")
        if self.secret is not None and not self.secret:
            # (each body went unsigned, unsaid: an environment variable set to nothing)
            raise UserError("A webhook's secret is empty (an environment variable set to "
                            "nothing?): give the secret, or no secret= to send bodies unsigned.")
        _check_settings("A webhook", inbox_url=self.inbox_url, timeout=self.timeout)

    @property
    def name(self) -> str:
        """What it is known by among the app's handlers (`signoff.agents.telling` keeps that it
        took a proposal by it): ``webhook`` with its scheme and host (as the log shows it) and
        a digest of its whole address, which may carry a token that is not kept."""
        digest = hashlib.sha256(self.url.encode()).hexdigest()[:16]
        return f"webhook {_shown(self.url)} {digest}"

    def __call__(self, event: AgentProposed) -> None:
        """Tell the webhook of `event`'s proposal. A receiver that cannot be told is logged in
        a sentence, and `NotTold` raised: the proposal waits all the same, and the webhook is
        told again later, unless it was its last try (`signoff.agents.telling`)."""
        secret = self.secret.encode() if isinstance(self.secret, str) else self.secret
        proposal = event.proposal
        if _decided_first(self.app, proposal, f"the webhook {_shown(self.url)}"):
            return
        # When, and which sending, signed with the rest: a body replayed reads as sent then,
        # under a delivery id the receiver has seen (without them it was the same body again).
        # `notice` is the same for every sending of this notice (told at least once: a
        # receiver that has seen it drops the sending), `delivery` each sending's own.
        notice = notice_key(proposal)
        body = {**proposal_message(proposal, inbox_url=self.inbox_url),
                "sent_at": datetime.now(UTC).isoformat(), "delivery": uuid.uuid4().hex,
                "notice": notice}
        try:
            post_json(self.url, body, secret=secret, timeout=self.timeout,
                      headers={"Idempotency-Key": notice})
        except (OSError, http.client.HTTPException, ValueError) as error:  # (urllib's errors,
            # a refused connection, a timeout; an answer that is not HTTP, or a name the
            # resolver's encoding refuses, was a traceback in the log)
            log.warning("The webhook %s was not told of proposal %s (%s): %s. %s; see that "
                        "the receiver is up and takes the POST.", _shown(self.url),
                        proposal.id, proposal.label, _why(error), _next(event))
            raise NotTold(proposal.id) from error


@dataclass(frozen=True, kw_only=True)
class EmailNotifier:
    """E-mails whoever decides each new proposal: its person, or everyone in its queue (or the
    supervisors, when it is for a supervisor)."""

    app: App
    """The app whose people are written to (a person's handle is their address)."""
    host: str
    """The SMTP server."""
    sender: str
    """The From address."""
    port: int = 25
    """The SMTP port."""
    starttls: bool = False
    """Upgrade the connection with STARTTLS."""
    username: str = ""
    """Log in as this user, when given."""
    password: str = field(default="", repr=False)
    """With this password (never shown: not in the notifier's repr, nor in the log)."""
    inbox_url: str = ""
    """The inbox's address, for a link to the proposal."""
    timeout: float = 10.0
    """Seconds to wait for the server."""

    def recipients(self, proposal: Proposal) -> list[str]:
        """The addresses of whoever may decide `proposal` (never an agent's account, or one
        the app's policy lets decide no proposal, though they hold the queue's role: they may
        not see it; nor the person the work is for, when the skill routes it: they do not
        decide it, and one routed to them alone goes to the supervisors)."""
        people = self.app.people
        for_them = proposal.for_id if proposal.routed else None  # (refused, were they to)
        if proposal.decide_queue:
            found = people.with_role(proposal.decide_queue)
        elif proposal.decide_person_id and proposal.decide_person_id != for_them:
            one = people.find(proposal.decide_person_id)
            found = [one] if one is not None and not one.disabled else []
        else:
            found = [p for p in people.all() if not p.disabled and
                     self.app.oversight.supervises_agents.admits(p)]
        decides = self.app.oversight.decides_agent_proposals  # (as the inbox shows them)
        return sorted({p.handle for p in found if "@" in p.handle and (
            p.kind is not PrincipalKind.AGENT) and decides.admits(p) and p.id != for_them})

    def message(self, proposal: Proposal, to: Sequence[str]) -> EmailMessage:
        """The e-mail telling `to` of `proposal`."""
        mail = EmailMessage()
        mail["From"] = self.sender
        mail["To"] = ", ".join(to)
        mail["Subject"] = f"To decide: {proposal.label} ({proposal.agent})"
        # (the same for each sending of this notice: a mail told again is known for the same)
        mail["Message-ID"] = f"<signoff.{notice_key(proposal)}@{_mail_domain(self.sender)}>"
        shown = "\n".join(_block(f"  {k}: ", str(v)) for k, v in proposal.shown.items())
        lines = [f"{proposal.agent} proposes: {proposal.label}", shown, "",
                 _block("Why: ", proposal.why or "it gave no reason."), "",
                 f"It is for {proposal.decide_by or 'you'} to decide{_by_when(proposal)}."]
        if proposal.effects:
            lines += ["", "What it would do:", *(
                f"  - {line.words}" + (f" ({line.code})" if line.code else "")
                for line in Inbox(self.app).effects(proposal))]
        if self.inbox_url:
            lines += ["", f"Decide it: {self.inbox_url.rstrip('/')}/proposals/{proposal.id}"]
        mail.set_content("\n".join(lines) + "\n")
        return mail

    @property
    def name(self) -> str:
        """What it is known by among the app's handlers (`signoff.agents.telling` keeps that it
        took a proposal by it): ``e-mail`` with its server and sender."""
        return f"e-mail {self.host}:{self.port} from {self.sender}"

    def __post_init__(self) -> None:
        if not isinstance(self.host, str) or not self.host.strip():
            raise UserError(f"An e-mail notifier's host is the SMTP server's name or address, "
                            f"not {self.host!r}.")
        try:
            self.host.encode("idna")
        except UnicodeError:  # (it was taken, and each mail a traceback in the log)
            raise UserError(f"An e-mail notifier's host is a name a resolver can look up (each "
                            f"of its parts 1 to 63 letters), not {self.host!r}.") from None
        if not isinstance(self.sender, str) or "@" not in self.sender:
            raise UserError(f"An e-mail notifier's sender is the From address "
                            f"(signoff@example.com), not {self.sender!r}.")
        if isinstance(self.port, bool) or not isinstance(self.port, int) or not (
                0 < self.port < 65536):
            raise UserError(f"An e-mail notifier's port is a number from 1 to 65535, not "
                            f"{self.port!r}.")
        _check_settings("An e-mail notifier", inbox_url=self.inbox_url, timeout=self.timeout)

    def __call__(self, event: AgentProposed) -> None:
        """Write to whoever decides `event`'s proposal. A server that cannot be reached, or
        takes no mail, is logged in a sentence, and `NotTold` raised: the proposal waits all
        the same, and is mailed again later, unless it was its last try
        (`signoff.agents.telling`)."""
        proposal = event.proposal
        if _decided_first(self.app, proposal, "anyone by e-mail"):
            return
        to = self.recipients(proposal)
        if not to:
            theirs = (proposal.routed and not proposal.decide_queue
                      and proposal.decide_person_id == proposal.for_id)
            log.warning("Nobody was e-mailed of proposal %s (%s): nobody enabled is there to "
                        "mail (%s)%s (a supervisor may still decide it, in the inbox).",
                        proposal.id, proposal.label, f"a supervisor: the work is for "
                        f"{proposal.decide_by}, who does not decide it" if theirs else
                        proposal.decide_by or "a supervisor",
                        f"; give someone the {proposal.decide_queue} role" if proposal.decide_queue
                        else "")
            return
        try:
            refused = send_email(self.message(proposal, to), host=self.host, port=self.port,
                                 starttls=self.starttls, username=self.username,
                                 password=self.password, timeout=self.timeout)
        except (OSError, ValueError) as error:  # (smtplib's errors, a refused connection, a
            # timeout, a name the resolver's encoding refuses)
            log.warning("Nobody was e-mailed of proposal %s (%s): the SMTP server %s:%s %s. %s; "
                        "see that the server is up and takes the mail.", proposal.id,
                        proposal.label, self.host, self.port,
                        f"could not take it ({_why(error)})", _next(event))
            raise NotTold(proposal.id) from error
        if refused:  # (the others were mailed; these were told nothing, and nothing said so)
            log.warning("Not everyone was e-mailed of proposal %s (%s): the SMTP server %s:%s "
                        "refused %s. The others were, and the proposal waits all the same; see "
                        "that the address is right.", proposal.id, proposal.label, self.host,
                        self.port, _refusals(refused))


def _next(event: AgentProposed) -> str:
    """What comes of a proposal a notifier could not tell, in the words of its log: a worker
    tells it again later, or, its last try made, nobody does (as `signoff.agents.telling`
    says when it gives up)."""
    if event.last_try:
        return ("That was the last try: it is not tried again. The proposal waits in the inbox "
                "all the same")
    return "The proposal waits all the same, and a worker tells it again later"


def _mail_domain(sender: str) -> str:
    """The domain of a From address (``signoff@example.com`` → ``example.com``), for the
    right side of a Message-ID; ``signoff.invalid`` when it has none a Message-ID may hold."""
    domain = sender.rpartition("@")[2].strip().rstrip(">").strip()
    return domain if re.fullmatch(r"[A-Za-z0-9.-]+", domain) else "signoff.invalid"


def _decided_first(app: App | None, proposal: Proposal, told: str) -> bool:
    """Whether `proposal` was decided before it was `told` (a handler before it held the work,
    a decision came meanwhile): said in the log. Each was told the proposal waited, for a yes
    or no already given. False when it waits, or cannot be read now (it is told then)."""
    if app is None:
        return False
    try:
        now = app.proposal(proposal.id)
    except (StoreError, UnknownId):
        return False
    if now.status is ProposalStatus.WAITING:
        return False
    log.info("Proposal %s (%s) was decided (%s) before it was told to %s, so it was not: it "
             "no longer waits.", proposal.id, proposal.label, now.status.value, told)
    return True


def _an_app(app: Any, whose: str) -> None:
    """`app` is an app (an AttributeError from inside said it was not)."""
    if not callable(getattr(app, "on", None)) or not hasattr(app, "people"):
        raise UserError(f"{whose} takes the app whose proposals it tells of first "
                        f"({whose}(app, …)), not {app!r}.")


def _check_settings(whose: str, *, inbox_url: Any, timeout: Any) -> None:
    """A notifier's inbox address and timeout, checked as it is made (each was taken, to fail
    at every proposal)."""
    if not isinstance(inbox_url, str):
        raise UserError(f"{whose}'s inbox_url is the inbox's address, as text, not {inbox_url!r}.")
    if inbox_url and (not inbox_url.startswith(("http://", "https://")) or not (
            urllib.parse.urlsplit(inbox_url).hostname)):  # (each link it sent went nowhere)
        raise UserError(f"{whose}'s inbox_url is the inbox's address, starting with http:// or "
                        f"https:// and naming a host (https://signoff.example), not "
                        f"{inbox_url!r}.")
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not (
            0 < timeout < float("inf")):
        raise UserError(f"{whose}'s timeout is a number of seconds above 0, not {timeout!r}.")


def _host(url: str) -> str:
    """The host `url` names ("" when it names none, or is no URL)."""
    try:
        return urllib.parse.urlsplit(url).hostname or ""
    except ValueError:  # ("http://[::1/": an IPv6 address unclosed)
        return ""


def _authority(url: str) -> str:
    """What `url` has between its scheme's ``//`` and the first ``/`` after it: its host and
    port, as a reader takes them (a user and password too, when it has them, whatever is in
    the password but a "/")."""
    return url.partition("://")[2].partition("/")[0]


def _check_address(url: str) -> None:
    """A webhook's address can be sent to as written: each of these was taken, to fail at
    every proposal (a port past 65535, a space or a letter outside ASCII in its path, a host
    name no resolver takes)."""
    parts = urllib.parse.urlsplit(url)
    try:
        port = parts.port
    except ValueError:  # (past 65535, or no number)
        port = -1
    if port is not None and not 0 < port < 65536:
        raise UserError(f"A webhook URL's port is a number from 1 to 65535 "
                        f"({_shown(url)!r} names another).")
    rest = url[len(f"{parts.scheme}://{parts.netloc}"):]  # (a host may be in any script)
    if any(c.isspace() or not c.isprintable() for c in url) or not rest.isascii():
        raise UserError(f"A webhook URL is written without spaces, its path in ASCII "
                        f"({_shown(url)!r} is not): percent-encode the rest, as %20 for a space.")
    try:
        (parts.hostname or "").encode("idna")
    except UnicodeError:
        raise UserError(f"A webhook URL's host is a name a resolver can look up (each of its "
                        f"parts 1 to 63 letters), not {_shown(url)!r}.") from None


def _block(head: str, text: str) -> str:
    """`text` after `head`, each of its further lines indented under the first: what the
    agent wrote (its arguments, why) cannot pose as a line of the mail's own ("Decide it: …")."""
    lines = text.splitlines() or [""]
    return "\n".join([head + lines[0], *(" " * len(head) + line for line in lines[1:])])


def _shown(url: str) -> str:
    """A webhook's address as the log shows it: its scheme and host, without its path, query,
    or a user and password, any of which may hold a token (chat services' webhooks carry theirs
    in the path)."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return "(an address that is no URL)"
    # After the last "@" of the authority as written, cut at a "?" or "#" (a password holding
    # one read as the host "user" and the port "pa", and was shown so), with its port only
    # when it is one.
    host: str = re.split(r"[?#]", _authority(url).rpartition("@")[2])[0] if parts.netloc else ""
    name, _, port = host.rpartition(":") if host.rfind(":") > host.rfind("]") else (host, "", "")
    host = f"{name}:{port}" if port.isdigit() else name
    rest = "/…" if parts.path.strip("/") or parts.query else ""
    if not host and parts.scheme:
        return f"{parts.scheme}://{rest.lstrip('/')}"
    if not host:  # (no scheme: its first part is the host it was meant to name)
        first, slash, _ = url.partition("/")
        return first.rpartition("@")[2] + ("/…" if slash else "")
    return urllib.parse.urlunsplit((parts.scheme, host, "", "", "")) + rest


def _said(reason: str) -> str:
    """A receiver's reason phrase as the log shows it: printable, and not past 80 letters
    (it was shown whole: 60 KiB of it, or a carriage return rewriting the line)."""
    shown = "".join(c if c.isprintable() else " " for c in reason)
    return shown if len(shown) <= 80 else f"{shown[:80]}…"


def _why(error: OSError | http.client.HTTPException | ValueError) -> str:
    """What went wrong reaching a receiver, in a few words."""
    if isinstance(error, http.client.HTTPException):
        return f"its answer was not HTTP ({type(error).__name__})"
    if isinstance(error, urllib.error.HTTPError) and 300 <= error.code < 400:
        to = error.headers.get("Location") if error.headers is not None else None
        to = urllib.parse.urljoin(error.url, to) if to and error.url else to  # (/hook: where)
        return (f"it answered HTTP {error.code} {_said(error.reason)}, a redirect"
                f"{f' to {_shown(to)}' if to else ''}, which is not followed (it would drop "
                "the body): give the address it redirects to")
    if isinstance(error, urllib.error.HTTPError):
        return f"it answered HTTP {error.code} {_said(error.reason)}"
    if isinstance(error, urllib.error.URLError):
        return f"it could not be reached ({error.reason})"
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        return f"it refused {_refusals(error.recipients)}"
    if isinstance(error, TimeoutError):
        return "it did not answer in time"
    if isinstance(error, ValueError):
        return f"its address could not be used ({error})"
    return str(error) or type(error).__name__


def _refusals(refused: dict[str, tuple[int, bytes]]) -> str:
    """The recipients an SMTP server refused, each with its answer: "a@example.com (550 No
    such user)"."""
    return ", ".join(f"{address} ({code} {answer.decode(errors='replace')})"
                     for address, (code, answer) in sorted(refused.items()))


def _by_when(proposal: Proposal) -> str:
    """By when a proposal is to be decided, in words ("" when it waits as long as it takes)."""
    when = proposal.deadline_at
    if when is None:
        return ""
    when = when.astimezone(UTC) if when.tzinfo is not None else when.replace(tzinfo=UTC)
    return f", by {when:%Y-%m-%d %H:%M} UTC"


def notify_by_webhook(app: App, url: str, *, secret: bytes | str | None = None, inbox_url: str = "",
                      timeout: float = 10.0) -> WebhookNotifier:
    """POST every new proposal of `app` to `url`; the notifier registered."""
    _an_app(app, "notify_by_webhook")
    notifier = WebhookNotifier(url=url, secret=secret, inbox_url=inbox_url, timeout=timeout,
                               app=app)
    app.on(AgentProposed, notifier)
    return notifier


def notify_by_email(app: App, *, host: str, sender: str, port: int = 25, starttls: bool = False,
                    username: str = "", password: str = "", inbox_url: str = "",
                    timeout: float = 10.0) -> EmailNotifier:
    """E-mail whoever decides each new proposal of `app`; the notifier registered."""
    _an_app(app, "notify_by_email")
    notifier = EmailNotifier(app=app, host=host, sender=sender, port=port, starttls=starttls,
                             username=username, password=password, inbox_url=inbox_url,
                             timeout=timeout)
    app.on(AgentProposed, notifier)
    return notifier
