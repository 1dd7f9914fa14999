"""What well-known models cost, so a budget can be kept without the user typing a price.

The figures are the providers' published list prices for standard (not batch, not cached, not
long-context) use, in US dollars per million tokens, as of `PRICES_AS_OF`. Prices change: a price
the user sets (``Price(...)`` passed to a model, or ``--price`` in the CLI) always wins over this
table, and a model not in it has no known price — with a budget, signoff then refuses to run
rather than guess.
"""

from __future__ import annotations

import re

from signoff.models.base import Price

__all__ = ["PRICES", "PRICES_AS_OF", "price_of"]

PRICES_AS_OF = "2025-11-30"
"""When the figures below were last checked against the providers' pricing pages."""


def _p(input_per_mtok: float, output_per_mtok: float) -> Price:
    return Price(input_per_mtok=input_per_mtok, output_per_mtok=output_per_mtok)


PRICES: dict[str, Price] = {
    # OpenAI
    "openai:gpt-5": _p(1.25, 10.00),
    "openai:gpt-5-mini": _p(0.25, 2.00),
    "openai:gpt-5-nano": _p(0.05, 0.40),
    "openai:gpt-4.1": _p(2.00, 8.00),
    "openai:gpt-4.1-mini": _p(0.40, 1.60),
    "openai:gpt-4.1-nano": _p(0.10, 0.40),
    "openai:gpt-4o": _p(2.50, 10.00),
    "openai:gpt-4o-2024-05-13": _p(5.00, 15.00),  # (the first snapshot: dearer than its model)
    "openai:gpt-4o-mini": _p(0.15, 0.60),
    "openai:o3": _p(2.00, 8.00),
    "openai:o4-mini": _p(1.10, 4.40),
    # Anthropic
    "anthropic:claude-opus-4-5": _p(5.00, 25.00),
    "anthropic:claude-opus-4-1": _p(15.00, 75.00),
    "anthropic:claude-opus-4-0": _p(15.00, 75.00),
    "anthropic:claude-sonnet-4-5": _p(3.00, 15.00),
    "anthropic:claude-sonnet-4-0": _p(3.00, 15.00),
    "anthropic:claude-3-7-sonnet": _p(3.00, 15.00),
    "anthropic:claude-haiku-4-5": _p(1.00, 5.00),
    "anthropic:claude-3-5-haiku": _p(0.80, 4.00),
}
"""List prices by ``provider:model``; a dated snapshot (``gpt-4o-2024-08-06``,
``claude-sonnet-4-5-20250929``) is priced as its model, and ``-latest`` likewise, unless the
table names the snapshot itself (``gpt-4o-2024-05-13`` costs twice what ``gpt-4o`` does)."""

_ALIASES = {
    "anthropic:claude-opus-4": "anthropic:claude-opus-4-0",
    "anthropic:claude-sonnet-4": "anthropic:claude-sonnet-4-0",
}

_SNAPSHOT = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$")


def price_of(provider: str, model: str) -> Price | None:
    """The list price of ``provider:model`` from the table, or None when it is not known.

    Only the exact name, or the name less a date or ``-latest`` suffix, is matched: a prefix is
    not (``gpt-4o-audio-preview`` is not priced as ``gpt-4o``).
    """
    for name in (model, _SNAPSHOT.sub("", model)):
        key = f"{provider}:{name}"
        key = _ALIASES.get(key, key)
        if key in PRICES:
            return PRICES[key]
    return None
