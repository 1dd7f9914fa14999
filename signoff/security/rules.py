"""Record rules: who may read, create, update and delete a record type, and which fields not.

``__security__ = [allow("read", "update", when=is_staff), deny("update", "price", when=~is_boss)]``

Nothing is allowed unless a rule allows it; a ``deny`` wins over any ``allow``. Every principal
an action runs as must be admitted on its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from signoff.exceptions import NotAuthorized, UserError
from signoff.security import policies
from signoff.security.acting import ActingAs
from signoff.security.policies import Policy

__all__ = ["OPERATIONS", "Operation", "Rule", "allow", "check", "deny", "refusal"]

Operation = Literal["read", "create", "update", "delete"]
OPERATIONS: tuple[Operation, ...] = ("read", "create", "update", "delete")

_VERB = {"read": "read", "create": "create", "update": "change", "delete": "delete"}


@dataclass(frozen=True, kw_only=True)
class Rule:
    """One line of a record type's ``__security__``."""

    allows: bool
    """True for ``allow``, False for ``deny``."""
    operations: frozenset[str]
    """The operations the rule is about."""
    fields: frozenset[str]
    """For a ``deny`` of ``update``: the fields it protects (empty: the whole record)."""
    when: Policy
    """Who the rule is about."""


def allow(*operations: str, when: Policy = policies.anyone) -> Rule:
    """Allow these operations to principals the policy admits."""
    _check_policy(when, "allow")
    ops, fields = _split(operations, "allow")
    if fields:
        raise UserError(
            f"allow() takes operations only, not the fields {sorted(fields)}: allow the update "
            "and deny(\"update\", field, when=...) the fields some may not change."
        )
    return Rule(allows=True, operations=ops, fields=frozenset(), when=when)


def deny(*operations_and_fields: str, when: Policy) -> Rule:
    """Refuse these operations (or, after ``"update"``, the update of these fields) to principals
    the policy admits, whatever an ``allow`` says."""
    _check_policy(when, "deny")
    ops, fields = _split(operations_and_fields, "deny")
    if fields and ops != {"update"}:
        raise UserError("deny() names fields only after \"update\": deny(\"update\", \"price\", ...).")
    return Rule(allows=False, operations=ops, fields=fields, when=when)


def _check_policy(when: Any, rule: str) -> None:
    """`UserError` for a `when` that is no `Policy` (a role's name, say: it was taken, and the
    first session of the record type failed, "'str' object has no attribute 'admits'")."""
    if not isinstance(when, Policy):
        hint = (f" (policy.role({when!r}) for those who hold that role)"
                if isinstance(when, str) else "")
        raise UserError(f"{rule}(..., when=) takes a Policy{hint}, not {when!r}.")


def _split(words: Sequence[str], rule: str) -> tuple[frozenset[str], frozenset[str]]:
    ops = frozenset(w for w in words if w in OPERATIONS)
    if not ops:
        raise UserError(f"{rule}() needs at least one of {', '.join(OPERATIONS)}; got {list(words)}.")
    if any(w in OPERATIONS for w in words[len(ops):]):
        raise UserError(f"{rule}(): name the operations first, then the fields; got {list(words)}.")
    return ops, frozenset(w for w in words if w not in OPERATIONS)


def refusal(
    acting: ActingAs,
    operation: Operation,
    rules: Iterable[Rule],
    record: Any,
    *,
    fields: Iterable[str] = (),
) -> NotAuthorized | None:
    """The refusal of `operation` on `record` for `acting` under `rules`, or None when all may."""
    if acting.system:
        return None
    rules = list(rules)
    changed = frozenset(fields)
    for principal in acting:
        sentence = ""
        if not any(r.allows and operation in r.operations and r.when.admits(principal, record)
                   for r in rules):
            sentence = f"{principal.name} may not {_VERB[operation]} {_named(record)}."
        for rule in rules:
            if sentence or rule.allows or operation not in rule.operations:
                continue
            protected = sorted(rule.fields & changed) if rule.fields else []
            if rule.fields and not protected:
                continue
            if rule.when.admits(principal, record):
                what = f"the {_join(protected)} of " if protected else ""
                sentence = f"{principal.name} may not {_VERB[operation]} {what}{_named(record)}."
        if principal.disabled:
            sentence = f"{principal.name} is disabled and may not {_VERB[operation]} anything."
        if sentence:
            return NotAuthorized(
                sentence, principal=principal.name, operation=operation, record=_named(record)
            )
    return None


def check(
    acting: ActingAs,
    operation: Operation,
    rules: Iterable[Rule],
    record: Any,
    *,
    fields: Iterable[str] = (),
) -> None:
    """Raise `NotAuthorized` unless every principal of `acting` may do `operation` on `record`."""
    refused = refusal(acting, operation, rules, record, fields=fields)
    if refused is not None:
        raise refused


def _named(record: Any) -> str:
    return str(record) if not isinstance(record, type) else f"a {record.__name__}"


def _join(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
