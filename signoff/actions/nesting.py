"""How deeply values a model wrote may nest: arguments are read, checked and written again (as
a proposal, a fingerprint, a journal's step, the next request to the model) by code whose own
depth Python limits, so a value nested just under what one reader manages can break the next.
No tool's arguments need more than `MAX_NESTING` levels; deeper ones are refused as they are
read, and nothing deeper goes further.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MAX_NESTING", "TOO_DEEP", "too_deep"]

MAX_NESTING = 100
"""The most levels of objects and arrays a tool call's arguments (or a result handed back)
may have."""

TOO_DEEP = f"nested too deeply to read (more than {MAX_NESTING} levels)"
"""How a value nested deeper is told."""


def too_deep(value: Any) -> bool:
    """Whether `value` (as JSON reads: dicts, lists, scalars) nests more than `MAX_NESTING`
    levels; found without recursion, so that it cannot fail on a value however deep."""
    if isinstance(value, dict) and not any(isinstance(v, (dict, list)) for v in value.values()):
        return False  # one level: a flat object, as a tool call's arguments mostly are
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > MAX_NESTING:
            return True
        pending.extend((child, depth + 1) for child in children)
    return False
