"""Every exception signoff raises or understands, in one place.

    SignoffError
    ├── Refusal                 an action said no on purpose; told to the caller in its own words
    │   │                       (raised as itself, of none of these kinds → outcome Failed)
    │   ├── Invalid             the values do not make sense          → outcome Invalid
    │   │   └── Conflict        they clash with the state of things   → outcome Invalid
    │   ├── NotFound            the thing is not there (or unreadable) → outcome Gone
    │   ├── NotAuthorized       whoever this runs as may not do it    → outcome Denied
    │   ├── OutcomeUnknown      it reached outside and lost touch     → outcome Unknown
    │   ├── Unavailable         what it needs outside cannot be reached; nothing was sent
    │   │                                                             → outcome Unavailable
    │   └── Failed              it failed, for a reason it can tell (what it reached outside
    │                           answered with an error)               → outcome Failed
    ├── UserError               a mistake by the developer using signoff (a misdeclared action,
    │                           a bad policy, a malformed step), at declaration time; and a call
    │                           that cannot be made as given (a handle taken, nobody of that handle)
    ├── AgentRefused            a person's verb refused: not theirs to decide, already decided,
    │   │                       a rule that would widen past the declaration
    │   ├── EditRefused         the changed values of an "approve with changes" do not fit
    │   ├── ReasonRefused       a no's reason that tells nothing; it, or why a rule is taken
    │   │                       back, too long, or that cannot be written
    │   └── UnknownId           no proposal, task or rule has the id given (a NotFound too:
    │                           `app.outcome` of an unknown task raises it)
    ├── ConsentError            a consent token that is forged or edited, as it is opened (a
    │                           run of one, `run_consented`, tells it as a Denied result instead)
    ├── StoreError              the database could not be used (unreachable, locked, refused)
    └── ReadOnlyViolation       a query tried to write, spawn, or reach outside while it ran

A refusal carries the sentence a person reads; anything else an action raises is a failure, whose
message reaches only the log.
"""

from __future__ import annotations

__all__ = [
    "AgentRefused",
    "Conflict",
    "ConsentError",
    "EditRefused",
    "Failed",
    "Invalid",
    "NotAuthorized",
    "NotFound",
    "OutcomeUnknown",
    "ReadOnlyViolation",
    "ReasonRefused",
    "Refusal",
    "SignoffError",
    "StoreError",
    "Unavailable",
    "UnknownId",
    "UserError",
]


class SignoffError(Exception):
    """The base of every exception signoff defines."""


class Refusal(SignoffError):
    """An action declined to do something, on purpose, with a sentence a person can read."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        """The sentence told to the caller."""


class Invalid(Refusal):
    """The values given do not make sense for this action."""


class Conflict(Invalid):
    """The values make sense, but clash with the way things are now."""


class OutcomeUnknown(Refusal):
    """An action that reached outside lost touch before it was answered (its connection
    closed, or it was cut off): whether what it asked for happened there is not known. The run
    ends Unknown: nothing of the app's is kept, what it may have spent stays spent, and the
    call is not run again blindly."""


class Unavailable(Refusal):
    """Something outside that an action needs (a server, a service) could not be reached, and
    nothing was sent to it: the action did not run, and may be tried again later. The message
    names what could not be reached and says to try again; why it could not be reached (an
    address, the driver's error) belongs in the log. A request that may have gone out before
    touch was lost is an `OutcomeUnknown`, never this."""


class Failed(Refusal):
    """The action could not do what it was asked, for a reason it can tell in words fit for the
    caller and a model: what it reached outside answered with an error, and the message quotes
    it. The run ends Failed with this sentence rather than the fixed words of a failure nobody
    foresaw; nothing of the app's is kept, and what it may have spent stays spent. Internals (an
    address, a driver's error, a stack) belong in the log, never in the message."""


class NotFound(Refusal):
    """The thing asked for does not exist, or whoever this runs as cannot read it."""


class NotAuthorized(Refusal):
    """Whoever this runs as may not do this.

    Raised by the record rules with the principal, the operation and the record named, and by
    actions themselves when their own logic refuses someone.
    """

    def __init__(
        self,
        message: str,
        *,
        principal: str = "",
        operation: str = "",
        record: str = "",
    ) -> None:
        super().__init__(message)
        self.principal = principal
        """The name of the principal who was refused ("" when an action raised it itself)."""
        self.operation = operation
        """read, create, update or delete ("" when an action raised it itself)."""
        self.record = record
        """How the record reads to a person, e.g. "Order 7f3c…" ("" when not about a record)."""


class UserError(SignoffError):
    """A mistake in how signoff is used: fix the declaration the message names."""


class AgentRefused(SignoffError):
    """A verb on agents' proposals or rules was refused; the message says why, for a person."""


class UnknownId(AgentRefused, NotFound):
    """No proposal, task or standing rule has the id given. An `AgentRefused`, as every refusal
    of a person's verb is, and a `NotFound`, as `app.outcome` of an unknown task raises."""


class EditRefused(AgentRefused):
    """An approval's changed values name no argument of the tool, or do not fit it: nothing was
    decided, and the decider may correct them."""


class ReasonRefused(AgentRefused):
    """A no's reason that tells the agent nothing (space, or only invisible characters), or a
    reason or why a rule is taken back (which may be left out) that is longer than it may be,
    or is no text Unicode can write: nothing was decided, and the decider may say it again."""


class ConsentError(SignoffError):
    """A consent token that cannot be opened: forged, or edited since it was sealed (raised as it
    is opened; `run_consented` tells it, and a token used already, as a Denied result)."""


class StoreError(SignoffError):
    """The database could not be used: it could not be reached, was locked too long, or refused
    the statement. The message says which database and why; the error beneath (SQLAlchemy's, or
    the driver's) is the cause."""

    def __init__(self, message: str, *, url: str = "") -> None:
        super().__init__(message)
        self.url = url
        """The database, its password hidden."""


class ReadOnlyViolation(SignoffError):
    """Something a query did that is not reading: a write, a process, a socket, a file written."""

    def __init__(self, message: str, *, event: str = "") -> None:
        super().__init__(message)
        self.event = event
        """The audit event or operation that was blocked (e.g. "socket.connect", "flush")."""
