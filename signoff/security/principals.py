"""Principals — the people and agent accounts things run as — and the directory that keeps them."""

from __future__ import annotations

import enum
import re
import unicodedata
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import Connection, bindparam, func, select, update

from signoff.exceptions import StoreError, UserError
from signoff.store import points
from signoff.store.database import Database
from signoff.store.prepared import Prepared, prepare
from signoff.store.tables import principals as principals_table

__all__ = ["People", "Principal", "PrincipalKind", "is_email_address"]


class PrincipalKind(enum.Enum):
    """What sort of principal this is."""

    PERSON = "person"
    """A person, who may log in and decide."""
    AGENT = "agent"
    """An agent's own account: what the agent does runs as it (and, for a yes, as the approver too)."""


@dataclass(frozen=True, kw_only=True)
class Principal:
    """Someone things run as: a person, or an agent's own account. A snapshot; the directory is
    the truth, and every run reads the principal afresh from it."""

    id: str
    """A stable id (a UUID in text)."""
    handle: str
    """A unique handle: a person's e-mail address, an agent's account name."""
    name: str
    """How a person reads this principal: "Noor"."""
    kind: PrincipalKind = PrincipalKind.PERSON
    """A person or an agent."""
    roles: frozenset[str] = field(default_factory=frozenset)
    """The roles this principal holds."""
    disabled: bool = False
    """A disabled principal can do nothing."""
    sponsor_id: str | None = None
    """For an agent account: the person who answers for it."""

    def has_role(self, role: str) -> bool:
        """Whether this principal holds `role`."""
        return role in self.roles

    def __str__(self) -> str:
        return self.name


_LABEL = r"[^\W_](?:(?:[^\W_]|-)*[^\W_])?"
"""One label of a domain: letters (of any script) or digits, with hyphens only inside."""
_EMAIL_ADDRESS = re.compile(rf"[^@\s\x00-\x1f\x7f]+@{_LABEL}(?:\.{_LABEL})*")


def is_email_address(text: str) -> bool:
    """Whether `text` has the form of an e-mail address, ``name@domain``: a local part with no
    space, control character or ``@``, then a domain of labels joined by dots, each of letters
    or digits with hyphens only inside.

    The form only: whether mail reaches it is not asked. A domain of one label counts
    (``USER@localhost`` is the person at the keyboard of ``signoff research``). The
    email-validator package checks more, but it is not one of signoff's dependencies, and by
    default it refuses such local domains."""
    return _EMAIL_ADDRESS.fullmatch(text) is not None


NAME_AT_MOST = 200
"""The longest name a principal may have (its column's)."""
HANDLE_AT_MOST = 320
"""The longest handle (an e-mail address's longest, and its column's)."""

AGENTS_DOMAIN = "@agents"
"""How the handle of an agent's account ends (``estimator@agents``): no person's does, for the
app takes whoever has an agent's handle for that agent's account, and gives them its roles."""


class People:
    """The app's directory of principals (``app.people``), stored in the app's database."""

    def __init__(self, database: Database) -> None:
        self._database = database
        self._on_disable: list[Callable[[Connection, Principal], object]] = []
        self._read: dict[str, tuple[Any, Principal]] = {}
        """By id: the last row `find_each` read of a principal, as the driver gave it, and the
        principal made of it (made again only when a column of the row has changed)."""

    def when_disabled(self, then: Callable[[Connection, Principal], object]) -> None:
        """Have `then` run whenever someone is disabled, in the same transaction: `Credentials`
        ends their sessions of the inbox so."""
        self._on_disable.append(then)

    def add(
        self,
        handle: str,
        name: str,
        *,
        roles: Iterable[str] = (),
        kind: PrincipalKind = PrincipalKind.PERSON,
        sponsor: Principal | None = None,
    ) -> Principal:
        """Add a principal. A handle already taken is a `UserError`, and so is a person's
        handle that is not an e-mail address (`is_email_address`); an agent's account is
        named as its agent pleases (``estimator@agents``)."""
        if not isinstance(handle, str) or not isinstance(name, str) or not handle.strip() or (
                not name.strip()):
            raise UserError(f"A principal needs a handle (an e-mail address) and a name, as text; "
                            f"not {handle!r} and {name!r}.")
        if len(name) > NAME_AT_MOST or any(unicodedata.category(c) == "Cc" for c in name):
            said = repr(name if len(name) <= 60 else name[:59] + "…")
            raise UserError(f"A name is one line of at most {NAME_AT_MOST} characters, as proposals "
                            f"and receipts show it; not {said} ({len(name):,} characters).")
        if len(handle) > HANDLE_AT_MOST:
            raise UserError(f"A handle is at most {HANDLE_AT_MOST} characters (an e-mail address "
                            f"is), not {len(handle):,}.")
        if not isinstance(kind, PrincipalKind):
            raise UserError(f"A principal's kind is PrincipalKind.PERSON or PrincipalKind.AGENT, "
                            f"not {kind!r}.")
        if sponsor is not None and not isinstance(sponsor, Principal):
            raise UserError(f"A sponsor is a Principal (people.get(handle)), not {sponsor!r}.")
        if kind is PrincipalKind.PERSON and handle.lower().endswith(AGENTS_DOMAIN):
            raise UserError(f"{handle!r} is a handle of the kind an agent's account has (an agent "
                            f"named estimator has estimator{AGENTS_DOMAIN}): the app makes its "
                            "agents' accounts itself. Give a person their own e-mail address.")
        if kind is PrincipalKind.PERSON and not is_email_address(handle):
            raise UserError(f"{handle!r} is not an e-mail address: a person's handle is their "
                            "e-mail address (name@domain, such as noor@example.com).")
        taken = self.find(handle)
        if taken is not None:
            also = "" if taken.handle == handle else f" ({taken.handle!r}: a handle is the same " \
                                                     "in any case)"
            raise UserError(f"There is already someone with the handle {handle!r}{also}: "
                            f"app.people.find({taken.handle!r}) gives them, or give another "
                            "handle. Nothing was changed.")
        principal = Principal(
            id=str(uuid.uuid4()),
            handle=handle,
            name=name,
            kind=kind,
            roles=_roles(roles),
            sponsor_id=sponsor.id if sponsor else None,
        )
        points.reached("people.handle_free", handle=handle)
        try:
            self._insert(principal)
        except StoreError as error:
            if self.find(handle) is None:
                raise
            raise UserError(f"There is already someone with the handle {handle!r} (added just "
                            "now, elsewhere).") from error
        return principal

    def _insert(self, principal: Principal) -> None:
        with self._database.connect() as connection:
            connection.execute(
                principals_table.insert().values(
                    id=principal.id,
                    handle=principal.handle,
                    name=principal.name,
                    kind=principal.kind.value,
                    roles=sorted(principal.roles),
                    disabled=False,
                    sponsor_id=principal.sponsor_id,
                )
            )

    def get(self, principal: Principal | str) -> Principal:
        """The principal as the directory holds it now, by principal, id or handle."""
        found = self.find(principal)
        if found is None:
            key = principal.id if isinstance(principal, Principal) else principal
            raise UserError(f"There is nobody with the id or handle {key!r}: check it, or add "
                            "them first (app.people.add(handle, name)). app.people.find "
                            "gives None instead of this error.")
        return found

    def find(self, principal: Principal | str) -> Principal | None:
        """Like `get`, but None for nobody. A handle is found in any case, as an e-mail address
        is delivered (``Mia@Shop.example`` is ``mia@shop.example``), when only one is so."""
        key = principal.id if isinstance(principal, Principal) else principal
        if isinstance(key, str) and "\x00" in key:  # (no id or handle holds one: PostgreSQL
            return None  # refuses the text, which would read as its being down)
        with self._database.reading() as connection:
            row: object = prepare(connection, "principal", _by_id_or_handle).run(
                connection, {"key": key}).first()
            if row is None and isinstance(key, str) and "@" in key:
                handle = principals_table.c.handle
                # (SQLite's lower() lowers ASCII alone: José's É, too, with Python's casefold)
                alike_key = func.signoff_casefold(handle) == key.casefold() if (
                    connection.dialect.name == "sqlite") else func.lower(handle) == key.lower()
                alike = connection.execute(select(principals_table).where(alike_key).limit(
                    2)).all()
                row = alike[0] if len(alike) == 1 else None
        return _principal_of(row) if row is not None else None

    def find_each(self, ids: Iterable[str], *, within: Any = None) -> dict[str, Principal]:
        """The principals with these ids, as the directory holds them now, in one read (in the
        transaction `within`, a connection or session, when given)."""
        keys = list(dict.fromkeys(ids))
        params = {f"id{i}": key for i, key in enumerate(keys)}

        def read(db: Any) -> tuple[Prepared, Sequence[Any], Any]:
            statement = prepare(db, ("principals", len(keys)), lambda: _by_ids(len(keys)))
            return (statement, *statement.raw(db, params))

        if within is not None:
            statement, rows, description = read(within)
        else:
            with self._database.reading() as connection:
                statement, rows, description = read(connection)
        # Every row is read afresh (a disabled principal, or changed roles, tell at once); a
        # principal is made of it again only when the row differs from the one last read.
        found: dict[str, Principal] = {}
        for row in rows:
            principal_id = row[0]
            kept = self._read.get(principal_id)
            if kept is not None and kept[0] == row:
                found[principal_id] = kept[1]
                continue
            principal = _principal_of(statement.row_of(row, description))
            if len(self._read) >= _READ_AT_MOST:
                self._read.clear()
            self._read[principal.id] = (tuple(row), principal)
            found[principal.id] = principal
        return found

    def all(self) -> list[Principal]:
        """Everyone, people first, by name."""
        with self._database.reading() as connection:
            rows = connection.execute(select(principals_table)).all()
        found = [_principal_of(row) for row in rows]
        return sorted(found, key=lambda p: (p.kind != PrincipalKind.PERSON, p.name, p.handle))

    def with_role(self, role: str) -> list[Principal]:
        """Everyone enabled who holds `role`, by name."""
        return [p for p in self.all() if role in p.roles and not p.disabled]

    def grant(self, principal: Principal, *roles: str) -> Principal:
        """Give `principal` these roles (as well as those it has)."""
        current = self.get(principal)
        return self._store(replace(current, roles=current.roles | _roles(roles)))

    def set_roles(self, principal: Principal, roles: Iterable[str]) -> Principal:
        """Give `principal` exactly these roles."""
        return self._store(replace(self.get(principal), roles=_roles(roles)))

    def take_away(self, principal: Principal, *roles: str) -> Principal:
        """Take these roles from `principal`; from its next run on it acts without them."""
        current = self.get(principal)
        return self._store(replace(current, roles=current.roles - _roles(roles)))

    def disable(self, principal: Principal) -> Principal:
        """Stop `principal` from doing anything at all. Their tokens stop working while they are
        disabled; their sessions of the inbox end for good (enabled again, they log in again)."""
        disabled = replace(self.get(principal), disabled=True)
        with self._database.connect() as connection:
            self._store(disabled, connection)
            for then in self._on_disable:
                then(connection, disabled)
        return disabled

    def enable(self, principal: Principal) -> Principal:
        """Let a disabled principal act again."""
        return self._store(replace(self.get(principal), disabled=False))

    def _store(self, principal: Principal, within: Connection | None = None) -> Principal:
        """Write `principal`'s roles and whether it is disabled (in `within`'s transaction, when
        given)."""
        if within is None:
            with self._database.connect() as connection:
                return self._store(principal, connection)
        within.execute(
            update(principals_table)
            .where(principals_table.c.id == principal.id)
            .values(roles=sorted(principal.roles), disabled=principal.disabled)
        )
        return principal


def _by_id_or_handle() -> Any:
    table = principals_table
    return select(table).where((table.c.id == bindparam("key")) | (table.c.handle == bindparam("key")))


_READ_AT_MOST = 4096
"""How many principals' last rows `People.find_each` keeps, at most (then it starts again)."""


def _by_ids(count: int) -> Any:
    return select(principals_table).where(
        principals_table.c.id.in_([bindparam(f"id{i}") for i in range(count)])
    )


def _principal_of(row: object) -> Principal:
    mapping = row if isinstance(row, dict) else row._mapping  # type: ignore[attr-defined]
    return Principal(
        id=mapping["id"],
        handle=mapping["handle"],
        name=mapping["name"],
        kind=PrincipalKind(mapping["kind"]),
        roles=frozenset(mapping["roles"]),
        disabled=bool(mapping["disabled"]),
        sponsor_id=mapping["sponsor_id"],
    )


def _roles(roles: Iterable[str]) -> frozenset[str]:
    """`roles` as a set of role names: a name given alone is one role ("manager"; taken as an
    iterable it was seven roles of one letter each); anything but names is a `UserError`."""
    if isinstance(roles, str):
        roles = [roles]
    try:
        found = frozenset(roles)
    except TypeError:  # not a collection of names at all (5, None)
        found = frozenset({roles})  # type: ignore[arg-type]
    wrong = [role for role in found if not (isinstance(role, str) and role.strip())]
    if wrong:
        raise UserError(f"Roles are names, as text (\"manager\", or a list of such); not "
                        f"{', '.join(sorted(repr(role) for role in wrong))}.")
    return found
