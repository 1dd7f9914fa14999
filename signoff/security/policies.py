"""Policies: composable yes/no questions about a principal (and, optionally, a record).

``policy.role("manager") | policy.role("helper")``, ``~policy.role("mechanic")``, ``a & b``.
A policy reads its answer from a principal as the directory holds it when the question is asked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from signoff.security.principals import Principal, PrincipalKind

__all__ = ["Policy", "agent", "anyone", "nobody", "person", "role", "where"]


class Policy:
    """A predicate over (principal, record). Compose with ``|``, ``&`` and ``~``."""

    __slots__ = ("_test", "description", "reads_record", "roles")

    def __init__(self, test: Callable[[Principal, Any], bool], description: str,
                 roles: frozenset[str] = frozenset(), *, reads_record: bool = True) -> None:
        self._test = test
        self.description = description
        """What the policy asks, in words: "has the role manager"."""
        self.roles = roles
        """The roles it names (one a `where` test reads is not known)."""
        self.reads_record = reads_record
        """Whether its answer may depend on the record asked about (a `where` test's may);
        False only for one that asks of the principal alone."""

    def admits(self, principal: Principal, record: Any = None) -> bool:
        """Whether this policy holds for `principal` (acting on `record`, when there is one).

        A disabled principal is admitted by nothing.
        """
        if principal.disabled:
            return False
        return bool(self._test(principal, record))

    def __or__(self, other: Policy) -> Policy:
        return Policy(
            lambda p, r: self._test(p, r) or other._test(p, r),
            f"{self.description} or {other.description}", self.roles | other.roles,
            reads_record=self.reads_record or other.reads_record,
        )

    def __and__(self, other: Policy) -> Policy:
        return Policy(
            lambda p, r: self._test(p, r) and other._test(p, r),
            f"{self.description} and {other.description}", self.roles | other.roles,
            reads_record=self.reads_record or other.reads_record,
        )

    def __invert__(self) -> Policy:
        return Policy(lambda p, r: not self._test(p, r), f"not ({self.description})", self.roles,
                      reads_record=self.reads_record)

    def __repr__(self) -> str:
        return f"<Policy: {self.description}>"


def role(name: str) -> Policy:
    """Holds for a principal that has the role `name`."""
    return Policy(lambda p, _r: name in p.roles, f"has the role {name}", frozenset({name}),
                  reads_record=False)


def where(test: Callable[[Principal, Any], bool], description: str = "a custom rule") -> Policy:
    """Holds when ``test(principal, record)`` is true (the record is None when there is none)."""
    return Policy(test, description)


anyone = Policy(lambda _p, _r: True, "anyone", reads_record=False)
"""Holds for every enabled principal."""

nobody = Policy(lambda _p, _r: False, "nobody", reads_record=False)
"""Holds for no one."""

agent = Policy(lambda p, _r: p.kind is PrincipalKind.AGENT, "is an agent", reads_record=False)
"""Holds for agent accounts."""

person = Policy(lambda p, _r: p.kind is PrincipalKind.PERSON, "is a person", reads_record=False)
"""Holds for people."""
