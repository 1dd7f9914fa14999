"""The public API is curated: each package's ``__all__`` is exactly what it makes public, sorted."""

from __future__ import annotations

import importlib
import re
import types

import pytest

import signoff

PACKAGES = [
    "signoff",
    "signoff.actions",
    "signoff.agents",
    "signoff.engine",
    "signoff.limits",
    "signoff.mcp",
    "signoff.models",
    "signoff.research",
    "signoff.security",
    "signoff.store",
]

def _public_names(module: types.ModuleType) -> set[str]:
    """The names a module makes public: not underscored, and not its own submodules."""
    return {
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and not (isinstance(value, types.ModuleType) and value.__name__ == f"{module.__name__}.{name}")
    }


def _isort_key(name: str) -> tuple[int, list[int | str]]:
    """The order ruff's RUF022 keeps: SCREAMING_CASE, then CamelCase, then the rest, each in
    natural order."""
    group = 0 if name.isupper() else 1 if name[:1].isupper() else 2
    return group, [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_name_is_in_all(package: str) -> None:
    """Every public name of the package, other than its submodules, is listed in `__all__`."""
    module = importlib.import_module(package)
    assert sorted(_public_names(module) - set(module.__all__)) == []


@pytest.mark.parametrize("package", PACKAGES)
def test_every_name_in_all_exists_once(package: str) -> None:
    """Every name `__all__` lists exists in the package, and none is listed twice."""
    module = importlib.import_module(package)
    assert [name for name in module.__all__ if not hasattr(module, name)] == []
    assert len(module.__all__) == len(set(module.__all__))


@pytest.mark.parametrize("package", PACKAGES)
def test_all_is_sorted(package: str) -> None:
    """`__all__` is sorted the way the linter keeps it (constants, classes, then the rest)."""
    module = importlib.import_module(package)
    assert module.__all__ == sorted(module.__all__, key=_isort_key)


def test_the_contract_names_are_exported() -> None:
    """The names DESIGN.md gives as the public API of actions and security are importable from
    `signoff` itself."""
    contract = {
        "App", "ActingAs", "ActionInfo", "ActionResult", "Choices", "Conflict", "Invalid",
        "Label", "NotAuthorized", "NotFound", "Provided", "SYSTEM", "UserError", "action",
        "allow", "current_cause", "deny", "policy", "sends", "spends",
        "Agent", "Skill", "Permits", "Leave", "Route", "Outcome", "TaskStatus", "Proposal",
        "ProposalStatus", "Decision", "AgentRefused", "AgentProposed", "AgentProposalDecided",
        "AgentTaskWaiting", "GroundedAnswer", "Claim", "Citation", "next_action", "NextAction",
        "Price",
    }
    assert sorted(contract - set(signoff.__all__)) == []


def test_star_import_gives_exactly_all() -> None:
    """`from signoff import *` binds the names of `__all__` and nothing else."""
    namespace: dict[str, object] = {}
    exec("from signoff import *", namespace)
    assert sorted(set(namespace) - {"__builtins__"}) == sorted(signoff.__all__)
