"""What an agent's work is on, as the command line names it: a record by its id or by a unique
field (``ticket=T-7``). `signoff run` and `signoff mcp serve` read their ``--subject`` here, so
both take the same forms and say the same when one names nothing."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import inspect as sa_inspect
from sqlalchemy import select

from signoff.cli.failures import EXIT_NOT_FOUND, Failure, Misuse
from signoff.exceptions import NotAuthorized

__all__ = ["record_named"]


def record_named(app: Any, record_type: type[Any], given: str, reader: Any = None) -> Any:
    """The `record_type` record that `given` names, by id or as FIELD=VALUE with a unique
    field, read as `reader` (None: as the app itself, which reads everything). A form that
    names no record is a usage error; a record that is not there, or that `reader` may not
    read, is told as not found."""
    name = record_type.__name__
    field, sep, value = given.partition("=")
    if sep:
        column = sa_inspect(record_type).columns.get(field)
        if column is None or not (column.unique or column.primary_key):
            raise Misuse(f"{_shown(field)} is not a unique field of {name}: give its id, or "
                         "FIELD=VALUE with a unique field.")
        condition = column == value
    else:
        try:
            condition = record_type.id == uuid.UUID(given)
        except ValueError:
            raise Misuse(f"{_shown(given, quoted=True)} is neither the id of a {name} nor "
                         "FIELD=VALUE with a unique field of it.") from None
    whose = f" that {reader.name} may read" if reader is not None else ""
    not_found = Failure(f"There is no {name} {_shown(given)}{whose}.", EXIT_NOT_FOUND)
    with app.session(as_=reader if reader is not None else app.system) as session:
        try:
            found = session.scalars(select(record_type).where(condition)).first()
        except NotAuthorized:  # there, but not theirs to read: told as what is not there
            raise not_found from None
        if found is None:
            raise not_found
        session.expunge(found)
    return found


def _shown(given: str, *, quoted: bool = False) -> str:
    """`given` as a sentence names it: whole, or, when long (a pasted file), its beginning and
    how long it is (the sentence held all of a 100,000 characters' --subject)."""
    if len(given) <= 80:
        return repr(given) if quoted else given
    return f"{given[:40]!r}… ({len(given):,} characters)"
