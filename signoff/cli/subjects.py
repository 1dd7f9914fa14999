"""What an agent's work is on, as the command line names it: a record by its id or by a unique
field (``ticket=T-7``). `signoff run` and `signoff mcp serve` read their ``--subject`` here, so
both take the same forms and say the same when one names nothing."""

from __future__ import annotations

import shlex
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
            raise Misuse(f"{_shown(field)} is not a unique field of {name}: "
                         f"{_ways(record_type, value)}.")
        condition = column == value
    else:
        try:
            condition = record_type.id == uuid.UUID(given)
        except ValueError:
            raise Misuse(f"{_shown(given, quoted=True)} is neither the id of a {name} nor "
                         f"FIELD=VALUE with a unique field of it: {_ways(record_type, given)}."
                         ) from None
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


def _ways(record_type: type[Any], value: str) -> str:
    """How a subject of `record_type` can be named: its id, or FIELD=VALUE with each of its
    unique fields named, and an example with `value` when it is short (the sentence said
    "a unique field" and left the reader to find which)."""
    fields = [key for key, column in sa_inspect(record_type).columns.items()
              if (column.unique or column.primary_key) and key != "id"]
    if not fields:
        return f"give its id ({record_type.__name__} has no other unique field)"
    example = (shlex.quote(f"{fields[0]}={value}") if value and len(value) <= 40
               and "=" not in value else f"{fields[0]}=VALUE")
    if len(fields) == 1:
        return f"give its id or its {fields[0]}, as {example}"
    return (f"give its id, or FIELD=VALUE with one of its unique fields ({', '.join(fields)}), "
            f"as {example}")


def _shown(given: str, *, quoted: bool = False) -> str:
    """`given` as a sentence names it: whole, or, when long (a pasted file), its beginning and
    how long it is (the sentence held all of a 100,000 characters' --subject)."""
    if len(given) <= 80:
        return repr(given) if quoted else given
    return f"{given[:40]!r}… ({len(given):,} characters)"
