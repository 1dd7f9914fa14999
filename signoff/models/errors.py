"""What can go wrong when a real model is asked, in words a person can read.

    SignoffError
    └── ModelError                  a real model could not be asked, or did not answer usably
        ├── ModelNotConfigured      no SDK, no key, no base URL, or a model spec that names nothing
        ├── ModelRequestsRefused    real model requests are off here (as in tests): nothing sent
        │                           (in signoff.models.base, exported from signoff.models)
        ├── ModelCredentialsRefused the provider refused the key (401, 403)
        ├── ModelRateLimited        still rate limited (429) after the retries
        ├── ModelUnavailable        the provider failed (5xx) or could not be reached, after retries
        ├── ModelTimeout            no answer within the timeout (or a gateway's: 504, 524)
        ├── ModelRequestRejected    the provider refused the request itself (400, 404, 413, 422)
        └── ModelBadResponse        an answer that cannot be read as a reply

Every provider error is translated where it enters (`signoff.models.openai_compatible`,
`signoff.models.anthropic`); the SDK's own exception is kept as ``__cause__`` for the log, and
never reaches a caller or a model.
"""

from __future__ import annotations

from signoff.exceptions import SignoffError

__all__ = [
    "ModelBadResponse",
    "ModelCredentialsRefused",
    "ModelError",
    "ModelNotConfigured",
    "ModelRateLimited",
    "ModelRequestRejected",
    "ModelTimeout",
    "ModelUnavailable",
]


class ModelError(SignoffError):
    """A real model could not be asked, or its answer could not be used."""

    def __init__(self, message: str, *, model: str = "", attempts: int = 0,
                 status: int | None = None, sent: bool | None = None) -> None:
        super().__init__(message)
        self.message = message
        """The sentence a person reads."""
        self.model = model
        """The model asked, as ``provider:name``."""
        self.attempts = attempts
        """How many requests were made (0: none was)."""
        self.status = status
        """The HTTP status the provider answered with, when it answered."""
        self.cost_nothing = (attempts == 0 or status is not None) if sent is None else (
            not sent)
        """Whether the call can have cost nothing: no request reached the provider (`sent`
        False: the connection was never made), or it answered with an error status, which
        makes no reply to bill. A request that went out and got no answer (a timeout, a
        connection cut) may have been billed. The loop gives back what it reserved for a
        call that cost nothing, and counts as spent what it reserved for any other.

        (A limit of this reading: a proxy in front of the provider that answers 502 or another
        5xx after the provider billed the request is read as a call that cost nothing, and
        asked again, so that two bills are counted as one. Nothing in its answer tells it from
        the provider's own 5xx, which costs nothing and is worth asking again; counted as
        spent, every such failure would end a task that one retry would have saved. The
        how-to on models says so, and what to do: keep a margin in the budget.)"""


class ModelNotConfigured(ModelError):
    """The model cannot be asked as configured: the message names what to install or set."""

    def __init__(self, message: str, *, model: str = "", attempts: int = 0) -> None:
        super().__init__(message, model=model, attempts=attempts, sent=False)


class ModelCredentialsRefused(ModelError):
    """The provider refused the API key (HTTP 401 or 403)."""


class ModelRateLimited(ModelError):
    """The provider still said "too many requests" (HTTP 429) when the retries ran out."""

    def __init__(self, message: str, *, model: str = "", attempts: int = 0,
                 status: int | None = 429, retry_after: float | None = None) -> None:
        super().__init__(message, model=model, attempts=attempts, status=status)
        self.retry_after = retry_after
        """The wait the provider last asked for, in seconds (None: it did not say)."""


class ModelUnavailable(ModelError):
    """The provider failed (HTTP 5xx) or could not be reached, and went on failing."""


class ModelTimeout(ModelError):
    """The provider did not answer within the timeout, or a server on the way (a proxy, a
    gateway) gave up waiting for it (HTTP 504, 524: `status`).

    Not retried: a request that timed out may still have been answered and billed, and a second
    one could spend past what the loop reserved for this call.
    """

    def __init__(self, message: str, *, model: str = "", attempts: int = 0,
                 timeout: float = 0.0, status: int | None = None) -> None:
        super().__init__(message, model=model, attempts=attempts, status=status,
                         sent=attempts > 0)
        self.timeout = timeout
        """The timeout, in seconds."""


class ModelRequestRejected(ModelError):
    """The provider refused the request itself (an unknown model, a request too long, a bad
    parameter): asking again would not help."""


class ModelBadResponse(ModelError):
    """The provider answered, but not with something that reads as a reply."""
