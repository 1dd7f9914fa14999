"""The app: its records, its people, and the actions it offers by name."""

from __future__ import annotations

import os
import secrets
import types
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

from signoff.actions.consent import ConsentSeal, load_or_create_key
from signoff.actions.declare import ActionFunction, ActionOptions
from signoff.actions.registry import Actions
from signoff.exceptions import UserError
from signoff.security.acting import SYSTEM, ActingAs
from signoff.security.policies import Policy
from signoff.security.principals import People, Principal
from signoff.security.records import RecordBase, make_record_base
from signoff.security.sessions import open_session
from signoff.store import tables
from signoff.store.database import Database, database_url_for

__all__ = ["App"]


class App:
    """An app: ``App("workshop")`` keeps its data in ``workshop.db``; tests use
    ``App("t", database="sqlite://")``.

    The consent key comes from `key`, else the ``SIGNOFF_KEY`` environment variable (hex), else
    `key_file`, else a file beside the SQLite database (``workshop.key``), made on first use with
    mode 0600. An in-memory app with none of these uses a key that lives as long as the process.
    """

    def __init__(
        self,
        name: str,
        *,
        database: str | None = None,
        key: bytes | str | None = None,
        key_file: str | Path | None = None,
    ) -> None:
        if not name or not name.replace("-", "_").isidentifier():
            raise UserError(f"An app's name is a short word such as 'workshop', not {name!r}.")
        self.name = name
        """The app's name."""
        self.database = Database(database or database_url_for(name))
        """Where the app's records and signoff's own tables live."""
        self.Record: type[RecordBase] = make_record_base()
        """The base class of this app's records: ``class Repair(app.Record): ...``."""
        self.database.holds(tables.metadata)
        self.database.holds(self.Record.metadata)  # type: ignore[attr-defined]
        self.people = People(self.database)
        """The people and agent accounts of this app."""
        self._key = key
        self._key_file = Path(key_file) if key_file is not None else None
        self._seal: ConsentSeal | None = None
        self.actions = Actions(database=self.database, people=self.people, seal=self.consent_seal)
        """The actions this app offers by name."""

    # -- declaring -----------------------------------------------------------------------

    def action(
        self,
        fn_or_label: Any = None,
        /,
        *,
        name: str | None = None,
        query: bool = False,
        authorize: Policy | None = None,
        idempotent: bool = False,
    ) -> Any:
        """Offer a function by name: ``@app.action``, ``@app.action("Set the rush")``,
        ``@app.action(query=True)``, ``@app.action(authorize=is_boss)``."""

        def register(fn: Callable[..., Any], label: str | None) -> ActionFunction[..., Any]:
            return self.actions.register(
                fn, label=label, name=name, query=query, authorize=authorize,
                idempotent=idempotent,
            )

        if callable(fn_or_label) and not isinstance(fn_or_label, str):
            return register(fn_or_label, None)
        return lambda fn: register(fn, fn_or_label)

    def add_action(
        self,
        fn: Callable[..., Any],
        *,
        label: str | None = None,
        name: str | None = None,
        query: bool = False,
        authorize: Policy | None = None,
        idempotent: bool = False,
        provided: Mapping[str, str] | None = None,
    ) -> ActionFunction[..., Any]:
        """Offer an existing function by name; `provided` maps its context parameters to what
        the app provides (``provided={"db": "session"}``)."""
        function = ActionFunction(fn, ActionOptions())
        return self.actions.register(
            function, label=label, name=name, query=query, authorize=authorize,
            idempotent=idempotent, provided=provided or {},
        )

    def collect(self, *sources: types.ModuleType | Callable[..., Any]) -> list[str]:
        """Register the ``@action``-marked functions of these modules (or these functions)."""
        return self.actions.collect(*sources)

    def provide(self, name: str, provider: Callable[..., Any]) -> None:
        """Fill context parameters ``Provided(name)`` with what `provider` gives (it takes
        nothing, or the run's context)."""
        self.actions.providers.add(name, provider)

    # -- acting --------------------------------------------------------------------------

    @contextmanager
    def session(self, *, as_: Principal | Iterable[Principal] | ActingAs) -> Iterator[Session]:
        """A SQLAlchemy session acting as `as_`, committed when the block ends (rolled back on
        an error). Every load and flush is checked against the record rules."""
        acting = ActingAs.of(as_)
        session = open_session(self.database, acting)
        try:
            with session.begin():
                yield session
        finally:
            session.close()

    @property
    def system(self) -> ActingAs:
        """The app acting for itself, bound by no record rule: for setup code only."""
        return SYSTEM

    # -- keys ----------------------------------------------------------------------------

    def consent_seal(self) -> ConsentSeal:
        """The seal consent tokens are made and checked with (its key read or made once)."""
        if self._seal is None:
            self._seal = ConsentSeal(self._load_key())
        return self._seal

    def _load_key(self) -> bytes:
        if self._key is not None:
            return self._key.encode() if isinstance(self._key, str) else self._key
        from_env = os.environ.get("SIGNOFF_KEY")
        if from_env:
            try:
                return bytes.fromhex(from_env)
            except ValueError:
                raise UserError("SIGNOFF_KEY must be hex, e.g. from `openssl rand -hex 32`.") from None
        if self._key_file is not None:
            return load_or_create_key(self._key_file)
        if self.database.file is not None:
            return load_or_create_key(Path(self.database.file).with_suffix(".key"))
        if self.database.is_sqlite:
            return secrets.token_bytes(32)  # an in-memory app: the key dies with the data
        return load_or_create_key(Path(f"{self.name}.key"))

    def __repr__(self) -> str:
        return f"<App {self.name} at {self.database.url}>"
