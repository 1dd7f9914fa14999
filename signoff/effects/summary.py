"""What one analysed function does, in terms of its own parameters: its summary.

A summary is computed once per function (per class of ``self`` and per what its unannotated
parameters are known to hold) and applied at every call, its parameters replaced by the arguments.

Of the ways a function reaches one effect (one change, one raise), the one told is the shortest
(`keep_told_first`), not merely the first the walk met: in a recursion that is one through the
recursion as often as the walk went round it, which depends on where the walk of the recursion
began — so on which functions an earlier analysis in the process had summarised (a library's
summaries are kept for the process's life) — and an action's effects are the same whatever was
analysed before.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

from signoff.effects.bindings import Binding
from signoff.effects.effect import UNSEEN, Effect, EffectKind
from signoff.effects.signature import Param
from signoff.effects.values import Val

__all__ = ["Raised", "Summary", "in_callers_terms", "keep_told_first"]

_Key = TypeVar("_Key")
_Found = TypeVar("_Found", Effect, "Raised", tuple[str, ...])


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
    muts: dict[tuple[frozenset[str], str, str], tuple[str, ...]] = field(default_factory=dict)
    """Changes to what its parameters hold: (parameter tokens, record type, the path's last step)
    → path: each change of each field kept, not the first found alone."""
    ret: Val | None = None
    """What it returns."""
    raises: dict[tuple[type, str, int], Raised] = field(default_factory=dict)
    """The exceptions it may raise."""
    costs: dict[tuple[Any, ...], float] = field(default_factory=dict)
    """What each ``@spends(cost=...)`` on its path declares, by the places of the calls that
    lead to it and the function it is on (`calls.call_site`): a helper called from two places
    counts twice."""
    cost_unknown: bool = False
    """Whether a ``@spends`` on its path declares no cost: what it spends is then not known,
    whatever the others declare."""
    resolved: dict[str, Binding] = field(default_factory=dict)
    """The names the walk of it, and of what it calls, resolved in the app's code, with what
    they were bound to (by the id of where each is bound, and the name)."""
    releases: set[str] = field(default_factory=set)
    """Its parameters whose containers it hands on where they may be filled out of sight (to
    another function, another container, a local function, its caller), or fills: a caller's
    container given as one of them is let go after the call, and kept with its name until
    then (`signoff.effects.containers.followed`)."""
    cost_repeats: bool = False
    """Whether a declared cost on its path is met inside a loop (a ``for``, a ``while``, a
    comprehension, a callback of ``map``, a function calling itself…): how many times it is
    spent is then not known."""
    cost_unseen: bool = False
    """Whether code on its path the analysis cannot see may spend (`UNSEEN`): how much is then
    not known."""

    def cost(self, own: Any = None) -> float | None:
        """What its path may spend, as declared: the costs declared on it added up; None when
        none is declared, or one ``@spends`` on it declares none. When one is met in a loop,
        what the function summarised declares on itself (its cost at the key `own`) is taken
        for all a run spends, never less than the others added up; None when it declares
        none. So too where code on its path cannot be seen (`cost_unseen`)."""
        if self.cost_unknown or not self.costs:
            return None
        if not (self.cost_repeats or self.cost_unseen):
            return sum(self.costs.values())
        whole = self.costs.get(own)
        if whole is None:
            return None
        return max(whole, sum(cost for key, cost in self.costs.items() if key != own))

    def assume_unseen(self, path: tuple[str, ...], reason: str, at: str = "") -> None:
        """Record that code on its path cannot be seen (`path`, why, and where when known): it is
        assumed to do everything but read (`UNSEEN`), and to spend an amount not known."""
        for kind in UNSEEN:
            keep_told_first(self.effects, (kind, "", path[-1] if path else "", reason),
                            Effect(kind=kind, path=path, reason=reason, at=at))
        self.cost_unseen = True

    def take_costs(self, callee: Summary, site: tuple[Any, ...], looped: bool) -> None:
        """Count what `callee`'s path spends as this function's, called at `site` (the key of
        its costs begins with it: `calls.call_site`), inside a loop when `looped`."""
        self.costs.update(((*site, *key), cost) for key, cost in callee.costs.items())
        self.cost_unknown |= callee.cost_unknown
        self.cost_unseen |= callee.cost_unseen
        self.cost_repeats |= callee.cost_repeats or bool(callee.costs and looped)

    def shape(self) -> tuple[object, ...]:
        """What changes when a recursive analysis has not settled yet."""
        ret = self.ret
        return (
            frozenset(self.effects),
            frozenset(self.muts),
            frozenset(self.raises),
            frozenset(self.releases),
            frozenset(self.costs.items()),
            self.cost_unknown,
            self.cost_repeats,
            self.cost_unseen,
            None if ret is None else (ret.origin, ret.inner, ret.types),
        )


def in_callers_terms(tokens: frozenset[str], binding: dict[str, Val]) -> frozenset[str]:
    """Origins in the callee's terms → origins in the caller's."""
    out: set[str] = set()
    for token in tokens:
        if not token.startswith("p:"):
            out.add(token)
            continue
        reach = token.endswith("*")
        bound = binding.get(token[2:-1] if reach else token[2:])
        if bound is None:
            continue
        out |= bound.reach if reach else bound.origin
    return frozenset(out)


def keep_told_first(found: dict[_Key, _Found], key: _Key, new: _Found) -> None:
    """Keep `new` as what `found` tells at `key` (an effect, a raise, a change of a parameter's
    by its path) unless what it keeps there has a path no longer: of ways as long, the first the
    walk met (the code's order: ``str(x)`` runs ``__str__`` before any ``__repr__``)."""
    kept = found.get(key)
    if kept is None or _steps(new) < _steps(kept):
        found[key] = new


def _steps(one: Effect | Raised | tuple[str, ...]) -> int:
    """How many steps the path of an effect, a raise or a change takes."""
    return len(one if isinstance(one, tuple) else one.path)
