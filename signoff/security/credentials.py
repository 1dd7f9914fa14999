"""Credentials: people's passwords (hashed with Argon2) and bearer tokens (stored as SHA-256).

A token reads ``so_<id>_<secret>``: the id finds its row by primary key, and only a digest of the
secret is kept, so the token itself is shown once, when it is issued, and never again. A token
of a disabled principal, a revoked token and an expired one all answer nobody.

Passwords need signoff's ``web`` extra, which brings ``argon2-cffi``.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    Column,
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
from signoff.store.database import Database
from signoff.store.tables import metadata
from signoff.store.utc import UtcDateTime

if TYPE_CHECKING:
    from argon2 import PasswordHasher

__all__ = ["Credentials", "TokenInfo", "passwords_table", "tokens_table"]

TOKEN_PREFIX = "so_"
"""Every token starts so, which makes one easy to spot in a log or a leaked file."""

MIN_PASSWORD_LENGTH = 10
"""Shorter passwords are refused."""

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
    Index("signoff_tokens_principal", "principal_id"),
)
"""Each bearer token: whose it is, and a SHA-256 digest of its secret (never the secret)."""

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

    # -- passwords -----------------------------------------------------------------------

    def set_password(self, principal: Principal | str, password: str) -> None:
        """Give a person a password (replacing any they had); it is stored hashed."""
        person = self._people.get(principal)
        if person.kind is not PrincipalKind.PERSON:
            raise UserError(f"{person.name} is an agent's account; only people log in with a "
                            "password (give an agent a token instead).")
        if not isinstance(password, str):
            raise UserError(f"A password is text, not {type(password).__name__}.")
        if len(password) < MIN_PASSWORD_LENGTH:
            raise UserError(f"A password needs at least {MIN_PASSWORD_LENGTH} characters; this "
                            f"one has {len(password)}.")
        hashed = self._password_hasher().hash(password)
        with self._database.connect() as db:
            found = db.execute(select(passwords_table.c.principal_id).where(
                passwords_table.c.principal_id == person.id)).first()
            if found is None:
                db.execute(passwords_table.insert().values(principal_id=person.id, hash=hashed,
                                                           set_at=_now()))
            else:
                db.execute(update(passwords_table).where(
                    passwords_table.c.principal_id == person.id).values(hash=hashed, set_at=_now()))

    def check_password(self, handle: str, password: str) -> Principal | None:
        """The person with this handle when the password is theirs and they are not disabled;
        None otherwise (the same answer, and about the same time, for an unknown handle)."""
        from argon2.exceptions import InvalidHashError, VerificationError

        hasher = self._password_hasher()
        if not isinstance(password, str):
            password = ""  # (no password: it matches none, in the time a wrong one takes)
        person = self._people.find(handle) if isinstance(handle, str) and handle else None
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
        if hasher.check_needs_rehash(stored):
            self.set_password(person, password)
        return person

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
                    expires_in: timedelta | None = None) -> str:
        """A new bearer token for `principal`. It is returned this once and stored only as a
        digest: keep it, or issue another."""
        owner = self._people.get(principal)
        if not isinstance(label, str):
            raise UserError(f"A token's label is text (\"laptop\"), not {label!r}.")
        if expires_in is not None and not isinstance(expires_in, timedelta):
            raise UserError(f"A token expires in a timedelta (timedelta(days=30)), not "
                            f"{expires_in!r}.")
        if owner.disabled:
            raise UserError(f"{owner.name} is disabled, and a token of theirs would let nothing "
                            "in: enable them first (people.enable, or `signoff users enable "
                            f"{owner.handle}`).")
        if expires_in is not None and expires_in <= timedelta(0):
            raise UserError(f"A token expires some time after it is made, not in {expires_in}: "
                            "give expires_in=timedelta(days=30), say, or None for a token that "
                            "lasts until it is revoked.")
        token_id = secrets.token_hex(8)
        secret = secrets.token_urlsafe(32)
        with self._database.connect() as db:
            db.execute(tokens_table.insert().values(
                id=token_id, principal_id=owner.id, digest=_digest(secret), label=label.strip(),
                created_at=_now(),
                expires_at=_now() + expires_in if expires_in is not None else None,
            ))
        return f"{TOKEN_PREFIX}{token_id}_{secret}"

    def principal_for_token(self, token: str) -> Principal | None:
        """Whose token this is, as they are now; None for an unknown, revoked or expired token,
        or one whose principal is disabled."""
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
                    not info.active):
                return None
            person = self._people.find_each([info.principal_id], within=db).get(
                info.principal_id)
        if person is None or person.disabled:
            return None
        return person

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
        with self._database.connect() as db:
            db.execute(update(tokens_table).where(
                tokens_table.c.id == key, tokens_table.c.revoked_at.is_(None)
            ).values(revoked_at=_now()))
            row = db.execute(select(tokens_table).where(tokens_table.c.id == key)).first()
        if row is None:
            raise NotFound(f"There is no token with the id {key!r}.")
        return _token_info(row._mapping)


_DUMMY: dict[int, str] = {}


def _dummy_hash(hasher: PasswordHasher) -> str:
    """A hash to verify against when there is none, so an unknown handle takes as long."""
    if id(hasher) not in _DUMMY:
        _DUMMY[id(hasher)] = hasher.hash(secrets.token_urlsafe(16))
    return _DUMMY[id(hasher)]


def _parse(token: str) -> tuple[str, str] | None:
    if not isinstance(token, str) or not token.startswith(TOKEN_PREFIX):
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
                     revoked_at=m["revoked_at"])
