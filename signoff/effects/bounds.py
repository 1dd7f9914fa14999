"""How far one analysis follows code before it stops, and what it tells when it does.

The walk follows each function it reaches inside the walk of its caller, so the calls it follows
nest on Python's own stack: some twenty of its frames each (the body, its statements, their
expressions, the call judged, the summary). Two bounds keep an analysis finite and inside
Python's recursion limit, and the same whoever calls it: `MOST_WALKS` function bodies walked in
all, and `DEEPEST` calls nested one inside another. Past either, the analysis stops (`TooFar`)
and the action is taken to do anything, with the reason — which the log says too, as it does
of any analysis that could not follow its code (nothing is described as safer than it is).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from typing import Any

from signoff.effects.effect import Effects

__all__ = ["DEEPEST", "MOST_WALKS", "TooFar", "stopped", "within"]

log = logging.getLogger("signoff.effects")

MOST_WALKS = 4000
"""Function bodies one analysis may walk before it gives up (and assumes the worst)."""

DEEPEST = 40
"""Calls one analysis follows nested one inside another (the deepest an app's action was seen
to need, through SQLAlchemy's and signoff's own code, is under 30): some 800 of Python's frames,
inside its limit of 1000 with room for whoever called the analysis."""


class TooFar(Exception):
    """The code reached is too large, or nests too deep, to analyse: assume it does everything."""


def within(walks: int, active: Collection[tuple[Any, ...]], label: Callable[[Any], str]) -> None:
    """Go on walking one more function body — the `walks`-th, its summary the last of `active`
    (the summaries being found, outermost first, keyed by their function) — or stop (`TooFar`)."""
    if walks > MOST_WALKS:
        raise TooFar(f"the code it reaches is too large: more than {MOST_WALKS} function bodies "
                     "to walk")
    if len(active) > DEEPEST:
        names = [label(key[0]) for key in active]
        raise TooFar(f"the code it reaches calls more than {DEEPEST} functions deep "
                     f"({' > '.join(names[:3])} > … > {' > '.join(names[-3:])})")


def stopped(name: str, error: Exception) -> Effects:
    """What an analysis of the action `name` that stopped on `error` tells: that it does
    anything, and why; logged."""
    if isinstance(error, TooFar):
        reason = f"the analysis stopped: {error}"
    elif isinstance(error, RecursionError):  # (a path within `DEEPEST` whose frames ran out)
        reason = ("the analysis could not follow this code: it nests deeper than Python's "
                  "recursion limit lets it be followed")
    else:
        reason = f"the analysis could not follow this code ({error!r})"
    log.warning("The effects of %s could not all be found, so it is taken to do anything: %s.",
                name, reason)
    return Effects.unknown(name, reason)
