"""Acting as: the set of principals a piece of work runs as, every one of whom must be admitted."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from signoff.exceptions import UserError
from signoff.security.principals import Principal

__all__ = ["SYSTEM", "ActingAs"]


@dataclass(frozen=True, kw_only=True)
class ActingAs:
    """Who a piece of work runs as. Every record rule must admit *every* principal in the set:
    an agent acting on someone's behalf does only what both may."""

    principals: tuple[Principal, ...] = ()
    """The principals, in the order given: at least one, unless `system` (an empty set is a
    `UserError`: every rule would admit it)."""
    system: bool = False
    """The app itself, bound by no record rule (setup code, migrations; never a caller)."""

    def __post_init__(self) -> None:
        # An empty set would be admitted by every rule (each of no one is admitted): refuse it.
        if not self.system and not self.principals:
            raise UserError("An acting set needs at least one principal; use SYSTEM for the app.")

    @staticmethod
    def of(who: Principal | Iterable[Principal] | ActingAs) -> ActingAs:
        """The acting set for one principal, several, or an acting set already made."""
        if isinstance(who, ActingAs):
            return who
        if isinstance(who, Principal):
            return ActingAs(principals=(who,))
        given = tuple(dict.fromkeys(who)) if isinstance(who, Iterable) and not isinstance(
            who, str | bytes) else None
        if given is None or not all(isinstance(p, Principal) for p in given):
            raise UserError(f"Whoever it runs as is a Principal (people.get(handle)), several, or "
                            f"an ActingAs; not {who!r}.")
        return ActingAs(principals=given)

    def __iter__(self) -> Iterator[Principal]:
        return iter(self.principals)

    @property
    def names(self) -> str:
        """The principals in words: "Noor", "Noor and Estimator", "the app"."""
        if self.system:
            return "the app"
        names = [p.name for p in self.principals]
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]

    def __str__(self) -> str:
        return self.names


SYSTEM = ActingAs(system=True)
"""The app acting for itself, bound by no record rule. Use it for setup, never for a caller."""
