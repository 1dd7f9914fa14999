"""What one analysed function does, in terms of its own parameters: its summary.

A summary is computed once per function (per class of ``self`` and per what its unannotated
parameters are known to hold) and applied at every call, its parameters replaced by the arguments.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from signoff.effects.effect import Effect, EffectKind
from signoff.effects.signature import Param
from signoff.effects.values import Val

__all__ = ["Raised", "Summary"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Raised:
    """One place an exception class is raised, relative to the function summarised."""

    exception: type
    """The exception class."""
    function: str
    """The qualified name of the function that raises it."""
    line: int
    """The line of the ``raise``."""
    path: tuple[str, ...]
    """The calls from the summarised function to the ``raise``."""


@dataclass(kw_only=True)
class Summary:
    """What one function does, in terms of its own parameters."""

    params: tuple[Param, ...] = ()
    """Its parameters, in order."""
    effects: dict[tuple[EffectKind, str, str, str], Effect] = field(default_factory=dict)
    """Effects it has whatever it is called with (paths relative to it)."""
    muts: dict[tuple[frozenset[str], str], tuple[str, ...]] = field(default_factory=dict)
    """Changes to what its parameters hold: (parameter tokens, record type) → path."""
    ret: Val | None = None
    """What it returns."""
    raises: dict[tuple[type, str, int], Raised] = field(default_factory=dict)
    """The exceptions it may raise."""
    cost: float | None = None
    """The most a ``@spends(cost=...)`` on its path declares."""

    def shape(self) -> tuple[object, ...]:
        """What changes when a recursive analysis has not settled yet."""
        ret = self.ret
        return (
            frozenset(self.effects),
            frozenset(self.muts),
            frozenset(self.raises),
            self.cost,
            None if ret is None else (ret.origin, ret.inner, ret.types),
        )
