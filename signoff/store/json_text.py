"""JSON as the database's JSON columns are written: by orjson, several times faster than the
standard library's encoder (which took about a tenth of an alone call's time, writing its
step), read back as the standard library writes and reads it.

orjson writes ``null`` for a float that is not finite, where the standard library writes
``Infinity`` or ``NaN`` (which it reads back), and refuses an int beyond 64 bits: a value of
either kind is written by the standard library. (So is any value whose text holds ``null``:
one finds no non-finite float faster than writing it again.) Reading stays the standard
library's: orjson reads an int beyond 64 bits as a float.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

__all__ = ["dumps", "size"]

_OPTIONS = orjson.OPT_NON_STR_KEYS  # keys of int, float, bool or None written as json writes them


def dumps(value: Any) -> str:
    """`value` as JSON text, which `json.loads` reads back as `json.dumps`'s."""
    try:
        text = orjson.dumps(value, option=_OPTIONS)
    except TypeError:  # an int beyond 64 bits, a string with a lone surrogate, ...
        return json.dumps(value)
    if b"null" in text:  # maybe a float that is not finite
        return json.dumps(value)
    return text.decode()


def size(value: Any) -> int:
    """The size of `value` as JSON text (as `dumps` writes it), in UTF-8 bytes."""
    try:
        return len(orjson.dumps(value, option=_OPTIONS))
    except TypeError:
        return len(json.dumps(value).encode())
