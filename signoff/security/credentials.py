"""Credentials: people's passwords (hashed with Argon2) and bearer tokens (stored as SHA-256).

A token reads ``so_<id>_<secret>``: the id finds its row by primary key, and only a digest of the
secret is kept, so the token itself is shown once, when it is issued, and never again. A token
of a disabled principal, a revoked token and an expired one all answer nobody.

Each token has a purpose (`TokenPurpose`). A person's own token does what they may do, deciding
proposals included. A client's token is for an MCP client, the model's side of an agent: it
calls the agent's tools through ``signoff mcp serve`` or the guard, as its person, and is good
for nothing else, so that no credential a model holds can say yes to what it proposed. Each
place that checks a token asks for the purpose it takes (`principal_for_token`); a person's
token is what it takes unless it says otherwise.

Passwords need signoff's ``web`` extra, which brings ``argon2-cffi``.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    Column,
    Connection,
    ForeignKey,
    Index,
    String,
    Table,
    Text,
    bindparam,
    select,
    update,
)

from signoff._extras import install_extra
from signoff.exceptions import NotFound, UserError
from signoff.security.principals import People, Principal, PrincipalKind
from signoff.store import points
from signoff.store.database import Database
from signoff.store.tables import metadata
from signoff.store.utc import UtcDateTime

if TYPE_CHECKING:
    from argon2 import PasswordHasher

__all__ = ["CLIENT_TOKEN_REFUSED", "SESSION_LABEL", "Credentials", "TokenInfo", "TokenPurpose",
           "password_problem", "passwords_table", "tokens_table"]

TOKEN_PREFIX = "so_"
"""Every token starts so, which makes one easy to spot in a log or a leaked file."""

MIN_PASSWORD_LENGTH = 10
"""Shorter passwords are refused."""

SESSION_LABEL = "web session"
"""The label of a token that is a session of the inbox (issued at login, with an expiry). A new
password, or being disabled, ends a person's sessions (`Credentials.end_sessions`)."""


def password_problem(password: object) -> str:
    """What keeps `password` from being one a person logs in with ("" when nothing does): it is
    not text, is shorter than `MIN_PASSWORD_LENGTH`, or holds a line break."""
    if not isinstance(password, str):
        return f"A password is text, not {type(password).__name__}."
    if not _is_text(password):
        return (f"A password is text, and this one holds {_not_text(password)}: give it as "
                "UTF-8 text.")
    if len(password) < MIN_PASSWORD_LENGTH:
        return (f"A password needs at least {MIN_PASSWORD_LENGTH} characters; this one has "
                f"{len(password)}.")
    if any(c in _LINE_BREAKS for c in password):
        return ("A password is one line: this one holds a line break, which the login form's "
                "password field cannot hold (a browser drops it or makes it a space), so nobody "
                "could log in with it. Give it without.")
    return ""


class TokenPurpose(StrEnum):
    """What a token is for. Stored as its value; a token issued before tokens had a purpose is a
    person's own (``PERSON``), as it was."""

    PERSON = "person"
    """A person's own: the REST API, the command line's ``--token`` and ``--as``, a session of
    the inbox. It does whatever its person may, deciding proposals and standing rules included.
    An MCP endpoint refuses it: a client holding it could approve what it proposed."""
    CLIENT = "client"
    """An MCP client's: it calls an agent's tools through ``signoff mcp serve`` or ``signoff mcp
    guard``, acting for its person, and nothing else. Every other place refuses it
    (`CLIENT_TOKEN_REFUSED`): the REST API, the inbox, and the commands that decide."""


CLIENT_TOKEN_REFUSED = (
    "This is an MCP client's token: it calls an agent's tools through `signoff mcp serve` or the "
    "guard, and nothing else. A client's token cannot decide a proposal, make or revoke a "
    "standing rule, or read the inbox, so that the model's side never says yes to what it "
    "proposed. A person decides in the inbox (logged in with their password), with `signoff "
    "approve PROPOSAL_ID` (`signoff mcp approve CONFIG PROPOSAL_ID` for a guard), or with a "
    "token of their own, made without --client (`signoff users token HANDLE`, or `signoff mcp "
    "token CONFIG HANDLE`)."
)
"""What every place but an MCP endpoint says to a client's token."""

passwords_table = Table(
    "signoff_passwords",
    metadata,
    Column("principal_id", String(36), ForeignKey("signoff_principals.id"), primary_key=True),
    Column("hash", Text, nullable=False),
    Column("set_at", UtcDateTime(), nullable=False),
)
"""Each person's password, as an Argon2id hash."""

tokens_table = Table(
    "signoff_tokens",
    metadata,
    Column("id", String(16), primary_key=True),
    Column("principal_id", String(36), ForeignKey("signoff_principals.id"), nullable=False),
    Column("digest", String(64), nullable=False),
    Column("label", String(200), nullable=False, default=""),
    Column("created_at", UtcDateTime(), nullable=False),
    Column("expires_at", UtcDateTime(), nullable=True),
    Column("revoked_at", UtcDateTime(), nullable=True),
    Column("purpose", String(20), nullable=False, default=TokenPurpose.PERSON.value,
           server_default=TokenPurpose.PERSON.value),
    Index("signoff_tokens_principal", "principal_id"),
)
"""Each bearer token: whose it is, what it is for (a `TokenPurpose` value), and a SHA-256 digest
of its secret (never the secret)."""

_TOKEN = select(tokens_table).where(tokens_table.c.id == bindparam("id"))


@dataclass(frozen=True, kw_only=True)
class TokenInfo:
    """What may be shown of a token once issued: everything but the token itself."""

    id: str
    """The token's id (its first part, after ``so_``): revoke it by this."""
    principal_id: str
    """Whose token it is."""
    label: str
    """What it is for, in the owner's words ("deploy script", "web session")."""
    created_at: datetime
    """When it was issued."""
    expires_at: datetime | None = None
    """When it stops working by itself (None: never)."""
    revoked_at: datetime | None = None
    """When it was revoked (None: it was not)."""
    purpose: TokenPurpose = TokenPurpose.PERSON
    """What it is for: a person's own, or an MCP client's (which cannot decide)."""

    @property
    def active(self) -> bool:
        """Whether it still works (not revoked, not expired)."""
        if self.revoked_at is not None:
            return False
        return self.expires_at is None or self.expires_at > datetime.now(UTC)


class Credentials:
    """Passwords and tokens of an app's people (``app.credentials``)."""

    def __init__(self, database: Database, people: People) -> None:
        self._database = database
        self._people = people
        self._hasher: PasswordHasher | None = None
        people.when_disabled(self._end_sessions)

    # -- passwords -----------------------------------------------------------------------

    def set_password(self, principal: Principal | str, password: str) -> None:
        """Give a person a password (replacing any they had); it is stored hashed. Their sessions
        of the inbox end (`end_sessions`): whoever held one logs in again, with the new one."""
        person = self._people.get(principal)
        if person.kind is not PrincipalKind.PERSON:
            raise UserError(f"{person.name} is an agent's account; only people log in with a "
                            "password (give an agent a token instead).")
        problem = password_problem(password)
        if problem:
            raise UserError(problem)
        hashed = self._password_hasher().hash(password)
        with self._database.connect() as db:  # (the hash and the sessions' end: one change)
            found = db.execute(select(passwords_table.c.principal_id).where(
                passwords_table.c.principal_id == person.id)).first()
            if found is None:
                db.execute(passwords_table.insert().values(principal_id=person.id, hash=hashed,
                                                           set_at=_now()))
            else:
                db.execute(update(passwords_table).where(
                    passwords_table.c.principal_id == person.id).values(hash=hashed, set_at=_now()))
            self._end_sessions(db, person)

    def check_password(self, handle: str, password: str) -> Principal | None:
        """The person with this handle when the password is theirs and they are not disabled;
        None otherwise (the same answer, and about the same time, for an unknown handle)."""
        checked = self._password_checked(handle, password)
        return self._still_theirs(*checked) if checked is not None else None

    def log_in(self, handle: str, password: str, *, label: str = SESSION_LABEL,
               expires_in: timedelta) -> tuple[Principal, str] | None:
        """`check_password`, and a session's token for the person (`issue_token`'s, labelled
        `label`) made in the same transaction as the password is found still theirs: a new
        password set meanwhile ends it as it ends their other sessions, or wins and the login
        fails. None when the password is not theirs."""
        if not isinstance(label, str) or not _is_text(label) or not isinstance(
                expires_in, timedelta) or not timedelta(0) < expires_in <= _SESSION_AT_MOST:
            raise UserError(f"A login's session is labelled with text and expires in a timedelta "
                            f"of up to a year (timedelta(hours=12)); not {label!r} and "
                            f"{expires_in!r}.")
        checked = self._password_checked(handle, password)
        if checked is None:
            return None
        token: list[str] = []

        def session(db: Connection, person: Principal) -> None:
            points.reached("login.checked", handle=person.handle)
            token.append(self._insert_token(db, person, label, _now() + expires_in,
                                            TokenPurpose.PERSON))

        found = self._still_theirs(*checked, then=session)
        return (found, token[0]) if found is not None else None

    def _password_checked(self, handle: str, password: str
                          ) -> tuple[Principal, str, str | None] | None:
        """The person with this handle, the hash their password matched and (when it was made
        with other parameters) the same password hashed anew; None when it is not theirs."""
        from argon2.exceptions import InvalidHashError, VerificationError

        hasher = self._password_hasher()
        if not isinstance(password, str) or not _is_text(password):
            password = ""  # (no password: it matches none, in the time a wrong one takes)
        person = self._people.find(handle) if isinstance(handle, str) and handle and (
            _is_text(handle)) else None  # (a handle no database can hold is nobody's)
        stored: str | None = None
        if person is not None:
            with self._database.reading() as db:
                stored = db.execute(select(passwords_table.c.hash).where(
                    passwords_table.c.principal_id == person.id)).scalar_one_or_none()
        try:
            hasher.verify(stored or _dummy_hash(hasher), password)
        except (VerificationError, InvalidHashError):
            return None
        if person is None or stored is None or person.disabled:
            return None
        # (the same password, hashed with today's parameters: its sessions go on)
        rehashed = hasher.hash(password) if hasher.check_needs_rehash(stored) else None
        return person, stored, rehashed

    def _still_theirs(self, person: Principal, verified: str, rehashed: str | None, *,
                      then: Callable[[Connection, Principal], None] | None = None
                      ) -> Principal | None:
        """`person` as they are now, when the password hash `verified` (which took its time,
        on purpose) is still theirs and they are not disabled: a new password set, or their
        being disabled, while it was checked wins, and the login fails. `rehashed` (the same
        password's hash with today's parameters) replaces it then, and only then; `then` is
        done in the same transaction (the password's row locked on PostgreSQL until it ends,
        so that a new password waits for it, and then ends what it made)."""
        table = passwords_table
        writes = rehashed is not None or then is not None
        with self._database.connect() if writes else self._database.reading() as db:
            read = select(table.c.hash).where(table.c.principal_id == person.id)
            now = db.execute(read.with_for_update() if then is not None else read
                             ).scalar_one_or_none()
            found = self._people.find_each([person.id], within=db).get(person.id)
            if now != verified or found is None or found.disabled:
                return None
            if rehashed is not None:
                db.execute(update(table).where(table.c.principal_id == person.id,
                                               table.c.hash == verified)
                           .values(hash=rehashed, set_at=_now()))
            if then is not None:
                then(db, found)
        return found

    def has_password(self, principal: Principal | str) -> bool:
        """Whether this person has a password set."""
        person = self._people.get(principal)
        with self._database.reading() as db:
            return db.execute(select(passwords_table.c.principal_id).where(
                passwords_table.c.principal_id == person.id)).first() is not None

    def use_hasher(self, hasher: PasswordHasher) -> None:
        """Hash with `hasher` from now on (argon2-cffi's defaults otherwise); a stored hash made
        with other parameters is rehashed at the next good login."""
        if not all(callable(getattr(hasher, verb, None)) for verb in ("hash", "verify")):
            raise UserError(f"use_hasher takes a password hasher (argon2.PasswordHasher(...)), "
                            f"not {hasher!r}.")
        self._hasher = hasher

    def _password_hasher(self) -> PasswordHasher:
        if self._hasher is None:
            try:
                from argon2 import PasswordHasher
            except ImportError:
                raise UserError("Passwords need argon2-cffi, signoff's web extra: "
                                f"{install_extra('web')}.") from None
            self._hasher = PasswordHasher()
        return self._hasher

    # -- tokens --------------------------------------------------------------------------

    def issue_token(self, principal: Principal | str, label: str = "", *,
                    expires_in: timedelta | None = None,
                    purpose: TokenPurpose | str = TokenPurpose.PERSON) -> str:
        """A new bearer token for `principal`. It is returned this once and stored only as a
        digest: keep it, or issue another.

        `purpose` says what it is for: `TokenPurpose.PERSON` (the default), the person's own,
        which decides; `TokenPurpose.CLIENT` for an MCP client to call an agent's tools with,
        which cannot decide anything (give a client nothing else)."""
        purpose = _purpose_given(purpose)
        owner = self._people.get(principal)
        if not isinstance(label, str) or not _is_text(label):
            raise UserError(f"A token's label is text (\"laptop\"), not {label!r}.")
        if expires_in is not None and not isinstance(expires_in, timedelta):
            raise UserError(f"A token expires in a timedelta (timedelta(days=30)), not "
                            f"{expires_in!r}.")
        if owner.kind is PrincipalKind.AGENT:  # (an agent acts through the loop, as itself)
            raise UserError(f"{owner.name} is an agent's own account: it gets no token, as it "
                            "decides nothing and calls its tools through its tasks. Give the "
                            "token to the person it works for (an MCP client's: purpose="
                            "TokenPurpose.CLIENT, or `signoff users token HANDLE --client`).")
        if owner.disabled:
            raise UserError(f"{owner.name} is disabled, and a token of theirs would let nothing "
                            "in: enable them first (people.enable, or `signoff users enable "
                            f"{owner.handle}`).")
        if expires_in is not None and expires_in <= timedelta(0):
            raise UserError(f"A token expires some time after it is made, not in {expires_in}: "
                            "give expires_in=timedelta(days=30), say, or None for a token that "
                            "lasts until it is revoked.")
        try:
            expires_at = _now() + expires_in if expires_in is not None else None
        except OverflowError:  # (past the year 9999)
            raise UserError(f"A token cannot expire as late as {expires_in} from now: give "
                            "expires_in=timedelta(days=365), say, or None for a token that lasts "
                            "until it is revoked.") from None
        with self._database.connect() as db:
            return self._insert_token(db, owner, label, expires_at, purpose)

    @staticmethod
    def _insert_token(db: Connection, owner: Principal, label: str,
                      expires_at: datetime | None, purpose: TokenPurpose) -> str:
        """A new token for `owner`, stored in the transaction of `db` (`issue_token`)."""
        token_id = secrets.token_hex(8)
        secret = secrets.token_urlsafe(32)
        db.execute(tokens_table.insert().values(
            id=token_id, principal_id=owner.id, digest=_digest(secret), label=label.strip(),
            purpose=purpose.value, created_at=_now(), expires_at=expires_at,
        ))
        return f"{TOKEN_PREFIX}{token_id}_{secret}"

    def principal_for_token(self, token: str, *,
                            purpose: TokenPurpose = TokenPurpose.PERSON) -> Principal | None:
        """Whose token this is, as they are now, when it is a token for `purpose` (a person's
        own unless told otherwise); None for an unknown, revoked or expired token, one whose
        principal is disabled, or one made for another purpose (`purpose_of_token` tells
        which)."""
        found = self._checked(token)
        if found is None or found[1].purpose is not _purpose_given(purpose):
            return None
        return found[0]

    def purpose_of_token(self, token: str) -> TokenPurpose | None:
        """What a working token is for; None for an unknown, revoked or expired token, or one
        whose principal is disabled. For telling a token refused for its purpose apart from
        one that is no good at all."""
        found = self._checked(token)
        return found[1].purpose if found is not None else None

    def _checked(self, token: str) -> tuple[Principal, TokenInfo] | None:
        """The principal of a working token, as they are now, and the token's row; None for an
        unknown, revoked or expired token, or one whose principal is disabled."""
        parsed = _parse(token)
        if parsed is None:
            return None
        token_id, secret = parsed
        with self._database.reading() as db:
            row = db.execute(_TOKEN, {"id": token_id}).first()
            if row is None:
                return None
            info = _token_info(row._mapping)
            if not hmac.compare_digest(row._mapping["digest"], _digest(secret)) or (
                    not info.active) or not _known_purpose(row._mapping["purpose"]):
                return None  # (a purpose this version does not know: good for nothing here)
            person = self._people.find_each([info.principal_id], within=db).get(
                info.principal_id)
        if person is None or person.disabled:
            return None
        return person, info

    def tokens(self, principal: Principal | str) -> list[TokenInfo]:
        """The tokens issued to `principal`, oldest first (revoked and expired ones too)."""
        owner = self._people.get(principal)
        with self._database.reading() as db:
            rows = db.execute(select(tokens_table).where(tokens_table.c.principal_id == owner.id)
                              .order_by(tokens_table.c.created_at, tokens_table.c.id)).all()
        return [_token_info(r._mapping) for r in rows]

    def revoke_token(self, token_id: str) -> TokenInfo:
        """Stop a token working, by its id (or the whole token); revoking twice does no harm."""
        if not isinstance(token_id, str):
            raise UserError(f"A token is revoked by its id (or the whole token), as text; not "
                            f"{token_id!r}.")
        parsed = _parse(token_id)
        key = parsed[0] if parsed is not None else token_id
        if not _is_text(key):  # (no token's id: none could be stored)
            raise NotFound(f"There is no token with the id {key!r}.")
        with self._database.connect() as db:
            db.execute(update(tokens_table).where(
                tokens_table.c.id == key, tokens_table.c.revoked_at.is_(None)
            ).values(revoked_at=_now()))
            row = db.execute(select(tokens_table).where(tokens_table.c.id == key)).first()
        if row is None:
            raise NotFound(f"There is no token with the id {key!r}.")
        return _token_info(row._mapping)

    def end_sessions(self, principal: Principal | str) -> int:
        """End every open session of the inbox of `principal` (their tokens labelled
        `SESSION_LABEL` that expire), as a new password and being disabled do; how many there
        were. Their own tokens (`signoff users token`: no expiry) and their MCP clients' go on,
        until revoked one by one."""
        person = self._people.get(principal)
        with self._database.connect() as db:
            return self._end_sessions(db, person)

    @staticmethod
    def _end_sessions(db: Connection, person: Principal) -> int:
        """`end_sessions`, in the transaction of `db`."""
        table = tokens_table
        ended = db.execute(update(table).where(
            table.c.principal_id == person.id, table.c.label == SESSION_LABEL,
            table.c.purpose == TokenPurpose.PERSON.value, table.c.expires_at.is_not(None),
            table.c.revoked_at.is_(None),
        ).values(revoked_at=_now()))
        return int(ended.rowcount or 0)


_SESSION_AT_MOST = timedelta(days=366)
"""The longest a login's session may last (`Credentials.log_in`)."""

_LINE_BREAKS = frozenset("\n\r")
"""What a browser's password field never sends as typed (HTML strips or replaces them)."""

_DUMMY: dict[int, str] = {}


def _dummy_hash(hasher: PasswordHasher) -> str:
    """A hash to verify against when there is none, so an unknown handle takes as long."""
    if id(hasher) not in _DUMMY:
        _DUMMY[id(hasher)] = hasher.hash(secrets.token_urlsafe(16))
    return _DUMMY[id(hasher)]


def _is_text(text: str) -> bool:
    """Whether `text` can be written as UTF-8, as a hash and a database take it: not when it
    holds half a character (a lone surrogate, as a file name that is not UTF-8 is read)."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def _not_text(text: str) -> str:
    """The first character of `text` that is not text (`_is_text`), in words."""
    first = next(c for c in text if not _is_text(c))
    return f"U+{ord(first):04X}, half of a character (a lone surrogate)"


def _parse(token: str) -> tuple[str, str] | None:
    if not isinstance(token, str) or not token.startswith(TOKEN_PREFIX) or not _is_text(token):
        return None
    token_id, sep, secret = token[len(TOKEN_PREFIX):].partition("_")
    if not sep or len(token_id) != 16 or not secret:
        return None
    return token_id, secret


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _now() -> datetime:
    return datetime.now(UTC)


def _token_info(m: Any) -> TokenInfo:
    return TokenInfo(id=m["id"], principal_id=m["principal_id"], label=m["label"],
                     created_at=m["created_at"], expires_at=m["expires_at"],
                     revoked_at=m["revoked_at"], purpose=_purpose(m["purpose"]))


def _purpose_given(purpose: object) -> TokenPurpose:
    """The purpose a caller named, as its member; a `UserError` naming the choices otherwise."""
    try:
        if isinstance(purpose, str):  # (a member is one too)
            return TokenPurpose(purpose)
    except ValueError:
        pass
    raise UserError(f"A token's purpose is TokenPurpose.PERSON (\"person\") or "
                    f"TokenPurpose.CLIENT (\"client\"), not {purpose!r}.")


def _known_purpose(stored: object) -> bool:
    """Whether a stored purpose is one this version knows: a token of another (written by a
    newer release) is taken by nothing, neither deciding nor calling tools."""
    return str(stored) in TokenPurpose._value2member_map_


def _purpose(stored: object) -> TokenPurpose:
    """A stored purpose as its member, as a listing shows it. A value this version does not know
    is shown as a client's (and the token is taken by nothing: `_known_purpose`)."""
    try:
        return TokenPurpose(str(stored))
    except ValueError:
        return TokenPurpose.CLIENT
