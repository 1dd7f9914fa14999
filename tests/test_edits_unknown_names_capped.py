"""A yes whose edits name arguments the tool has not is refused naming the first 20 of them and
how many more (DESIGN "Invariants" 8: a sentence a person can read), at the library, not only at
the web (which cut the detail at 2,000 characters): the sentence ran to half a megabyte for a yes
naming 80,000, and the CLI and the log said it whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from signoff import EditRefused, ProposalStatus
from tests.workshop_web import open_workshop, price


def test_a_yes_naming_many_unknown_arguments_names_twenty_and_counts_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """80,000 unknown names: the refusal names the first 20 (in order) and says 79,980 more; a
    name of 5,000 characters is said by its beginning and its length; nothing is decided."""
    shop = open_workshop(tmp_path, monkeypatch)
    (proposal,) = shop.app.proposals(task=price(shop).task)
    edited = {f"n{n:05}": 0 for n in range(80_000)}
    with pytest.raises(EditRefused) as refused:
        shop.app.approve(proposal, by=shop.noor, edited=edited)
    said = str(refused.value)
    first = ", ".join(f"n{n:05}" for n in range(20))
    assert said == (
        f"set_price has no argument {first} (and 79,980 more) to change (its "
        "arguments are price, repair); the tool itself cannot be changed."
    )
    with pytest.raises(EditRefused) as refused:
        shop.app.approve(proposal, by=shop.noor, edited={"x" * 5000: 1, "prise": 40})
    assert str(refused.value).startswith(
        f"set_price has no argument prise, {'x' * 80}… (5,000 characters) to change"
    )
    assert shop.app.proposal(proposal).status is ProposalStatus.WAITING


def test_a_few_unknown_arguments_are_each_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Up to 20 unknown names are each named, as before, with no count."""
    shop = open_workshop(tmp_path, monkeypatch)
    (proposal,) = shop.app.proposals(task=price(shop).task)
    with pytest.raises(
        EditRefused,
        match=r"^set_price has no argument cost, prise to change "
        r"\(its arguments are price, repair\)",
    ):
        shop.app.approve(proposal, by=shop.noor, edited={"prise": 40, "cost": 1})
