"""A SQL function the app registers (a ``GenericFunction`` of its own) under the name of one
known to only read: ``func.<that name>(…)`` is written out as whatever the app's class says,
so it is not taken to only read."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Integer, func, select
from sqlalchemy.orm import Session
from sqlalchemy.sql import functions

from signoff.effects import analyse


@pytest.fixture
def initcap_registered() -> Iterator[None]:
    """``func.initcap`` made the app's: written out as ``nextval(…)`` (gone again after)."""

    class initcap(functions.GenericFunction[int]):
        type = Integer()
        name = "nextval"
        identifier = "initcap"
        inherit_cache = True

    assert "nextval" in str(select(func.initcap("tickets")))
    try:
        yield
    finally:
        functions._registry["_default"].pop("initcap", None)


def takes_a_ticket(session: Session) -> list[Any]:
    return list(session.execute(select(func.initcap("tickets"))))


@pytest.mark.usefixtures("initcap_registered")
def test_a_function_the_app_registered_is_not_known_to_only_read() -> None:
    """``func.initcap`` is the app's ``nextval``: the query does not only read."""
    effects = analyse(takes_a_ticket, name="takes_a_ticket")
    assert not effects.only_reads, effects.explain()


def capitalises(session: Session) -> list[Any]:
    return list(session.execute(select(func.initcap("tickets"))))


def test_the_same_function_of_the_database_only_reads() -> None:
    """Not registered by the app, ``func.initcap`` is the database's: only read."""
    effects = analyse(capitalises, name="capitalises")
    assert effects.only_reads, effects.explain()
