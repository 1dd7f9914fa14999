"""Data read off an object of allow-listed code (a path's ``parent``, a logger's ``handlers``)
may be another object whose methods reach outside or change the process's state: calling one
is never taken to only read. A logger and the thread's decimal context are the process's own:
changing one is a change."""

from __future__ import annotations

import decimal
import logging
import os  # noqa: F401  (what `counted.__globals__` holds)
import pathlib
import subprocess  # noqa: F401  (what `counted.__globals__` holds)
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from signoff import App, UserError
from signoff.effects import EffectKind, analyse


def parent_written(p: str) -> int:
    """Writes a file beside the one it is given, through the path's parent."""
    pathlib.Path(p).parent.write_text("hi")
    return 1


def parent_of_annotated_written(p: Path) -> int:
    """Writes the parent of an annotated path."""
    p.parent.write_text("hi")
    return 1


def ancestor_removed(p: str) -> int:
    """Removes a directory above the one it is given."""
    Path(p).parents[0].rmdir()
    return 1


def grandparent_linked(p: str) -> int:
    """Makes a link three levels up."""
    Path(p).parent.parent.parent.hardlink_to("x")
    return 1


def parent_kept_then_written(p: str) -> int:
    """Keeps the parent under a name, then writes it."""
    above = Path(p).parent
    above.write_text("x")
    return 1


def each_ancestor_written(p: Path) -> int:
    """Writes into every ancestor."""
    for above in p.parents:
        above.joinpath("z").write_text("x")
    return 1


def parent_logger_levelled(name: str) -> int:
    """Changes the level of a logger's parent: the process's logging."""
    logging.getLogger(name).parent.setLevel(logging.CRITICAL)  # type: ignore[union-attr]
    return 1


def handler_levelled(name: str) -> int:
    """Changes the level of a logger's first handler."""
    logging.getLogger(name).handlers[0].setLevel(logging.CRITICAL)
    return 1


def loggers_forgotten(name: str) -> int:
    """Empties logging's registry of loggers."""
    logging.getLogger(name).manager.loggerDict.clear()
    return 1


def root_handlers_removed(name: str) -> int:
    """Removes every handler of the root logger, reached from another logger."""
    logging.getLogger(name).root.handlers.clear()
    return 1


def logger_silenced(name: str) -> int:
    """Switches a logger off: what it would have told is lost."""
    logging.getLogger(name).disabled = True
    return 1


def logger_cut_off(name: str) -> int:
    """Stops a logger's records reaching the root's handlers."""
    logging.getLogger(name).propagate = False
    return 1


def adapted_logger_levelled(name: str) -> int:
    """Changes a logger's level through an adapter of it."""
    logging.LoggerAdapter(logging.getLogger(name), {}).setLevel(logging.CRITICAL)
    return 1


def adapters_logger_levelled(name: str) -> int:
    """Changes the level of the logger an adapter holds."""
    logging.LoggerAdapter(logging.getLogger(name), {}).logger.setLevel(logging.CRITICAL)
    return 1


def precision_lowered(digits: int) -> int:
    """Lowers the precision of every later calculation of the thread."""
    decimal.getcontext().prec = digits
    return 1


def rounding_turned_down(digits: int) -> int:
    """Rounds every later calculation of the thread down, through the context kept by name."""
    context = decimal.getcontext()
    context.rounding = decimal.ROUND_DOWN
    return digits


def division_by_zero_let_through(digits: int) -> int:
    """Stops dividing by zero from raising, in every later calculation of the thread."""
    decimal.getcontext().traps[decimal.DivisionByZero] = False
    return digits


def time_zone_reset(zone: str) -> int:
    """Resets the process's time zone."""
    time.tzset()
    return 1


def counted(text: str) -> int:
    """An honest helper of this module, whose names hold ``os`` and ``subprocess``."""
    return len(text)


def through_a_functions_globals(command: str) -> int:
    """Runs a program through the module names a function holds."""
    counted.__globals__["os"].system(command)
    return 1


def through_a_functions_globals_kept(command: str) -> int:
    """Runs a program through a function's module names kept under a name."""
    names = counted.__globals__
    names["subprocess"].run(["true"], check=False)
    return len(command)


def through_a_functions_builtins(path: str) -> int:
    """Opens a file for writing through the builtins a function's module names hold."""
    counted.__globals__["__builtins__"]["open"](path, "w").close()
    return 1


def through_a_bound_methods_object(path: str) -> int:
    """Writes a file through the object a method of Python's is bound to."""
    Path(path).exists.__self__.write_text("x")  # type: ignore[attr-defined]
    return 1


DOING_MORE = [through_a_functions_globals, through_a_functions_globals_kept,
              through_a_functions_builtins, through_a_bound_methods_object, precision_lowered,
              rounding_turned_down, division_by_zero_let_through, time_zone_reset,
              adapted_logger_levelled, adapters_logger_levelled, parent_written,
              parent_of_annotated_written, ancestor_removed, grandparent_linked,
              parent_kept_then_written, each_ancestor_written, parent_logger_levelled,
              handler_levelled, loggers_forgotten, root_handlers_removed, logger_silenced,
              logger_cut_off]


def names_about_a_path(p: str) -> list[str]:
    """Reads names and suffixes of paths, and lists a directory: only reads."""
    above = Path(p).parent
    return [q.name for q in above.iterdir() if q.suffix == ".txt" and above.exists()] + [
        Path(p).stem.upper(), *Path(p).suffixes, *Path(p).parts]


def logger_looked_at(name: str) -> str:
    """Reads a logger's name, level and handlers' levels, and logs: only reads."""
    logger = logging.getLogger(name)
    levels = [h.level for h in logger.handlers]
    logger.info("looked at %s", name)
    return f"{logger.name} {logger.level} {levels} {logger.parent.name if logger.parent else ''}"


@pytest.mark.parametrize("fn", DOING_MORE, ids=lambda f: f.__name__)
def test_data_of_an_allow_listed_object_that_acts_is_not_taken_to_only_read(
        fn: Callable[..., Any]) -> None:
    """Each action writes a file or changes the process's logging through data read off a path
    or a logger: it is not found to only read."""
    found = analyse(fn, name=fn.__name__)
    assert not found.only_reads
    assert {e.kind for e in found.effects} & {EffectKind.CHANGES, EffectKind.EXTERNAL}


def money_rounded(amount: str) -> decimal.Decimal:
    """Rounds money, reads the thread's precision, and calculates in a context of its own."""
    with decimal.localcontext() as context:
        context.prec = 6
        third = decimal.Decimal(amount) / 3
    return third.quantize(decimal.Decimal("0.01"), rounding=decimal.ROUND_HALF_UP) + (
        decimal.getcontext().prec + decimal.getcontext().create_decimal("1"))


def a_function_described(text: str) -> str:
    """Reads what a function says of itself: only reads."""
    return f"{counted.__name__} {counted.__qualname__} {counted.__module__} {counted.__doc__}"


@pytest.mark.parametrize("fn", [names_about_a_path, logger_looked_at, money_rounded,
                                a_function_described],
                         ids=lambda f: f.__name__)
def test_reading_names_levels_and_listings_still_only_reads(fn: Callable[..., Any]) -> None:
    """Reading a path's name, parts and listing, or a logger's name and levels, only reads."""
    found = analyse(fn, name=fn.__name__)
    assert found.only_reads, found.explain()


def test_a_query_writing_a_paths_parent_is_refused_at_registration() -> None:
    """``@app.action(query=True)`` on an action writing through ``Path(p).parent`` is refused."""
    app = App("paths", database="sqlite://")
    with pytest.raises(UserError, match="parent_written"):
        app.action(query=True)(parent_written)
