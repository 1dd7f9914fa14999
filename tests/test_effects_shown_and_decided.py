"""What Python runs of the app's code where a value is shown or a comparison decided without
its being called by name: an exception shown as ``BaseException`` shows it shows its arguments
(``str(AppError(x))`` runs ``x.__str__``, ``repr`` each one's ``__repr__``); what an ``__lt__``
(an ``__eq__``) of the app's gave is taken as a truth by ``if a < b:``, ``sorted``, ``min``, a
search (its ``__bool__`` runs); ``itertools.groupby`` compares the keys its key function gave
(their ``__eq__``). Each action below looked as if it only read, and ran alone with no person
asked; the plain ones beside them still only read."""

from __future__ import annotations

import itertools
import statistics
import subprocess
from collections.abc import Callable
from typing import Any

import pytest

from signoff import Invalid
from signoff.effects import analyse


def launch(*_: Any) -> int:
    """Reach outside: start a program."""
    return subprocess.run(["true"], check=False).returncode


class Loud:
    """Shown by reaching outside."""

    def __str__(self) -> str:
        launch()
        return "loud"

    def __repr__(self) -> str:
        launch()
        return "Loud()"


class Told(Exception):
    """An exception of the app's, shown as Python shows one."""


class Worded(Exception):
    """An exception whose own ``__init__`` hands on only the text it makes."""

    def __init__(self, name: str) -> None:
        super().__init__(f"no {name}")
        self.name = name


class Rewrapped(Exception):
    """An exception whose own ``__init__`` hands ``Exception`` what the analysis cannot see."""

    def __init__(self, name: str) -> None:
        super().__init__(Loud() if name else name)


def shown_by_str(n: int) -> str:
    return str(Told(Loud()))


def shown_by_repr(n: int) -> str:
    return repr(ValueError(Loud()))


def shown_by_format(n: int) -> str:
    return f"failed: {Told(Loud(), n)}"


def shown_in_a_list(n: int) -> str:
    return str(Told([Loud()]))


def shown_by_print(n: int) -> None:
    print(Told(Loud()))


def shown_made_by_its_own_code(n: int) -> str:
    return str(Rewrapped("a"))


class Truth:
    """A truth that reaches outside when it is asked."""

    def __bool__(self) -> bool:
        launch()
        return True


class Ranked:
    """Compared by giving a `Truth`, not a bool."""

    def __lt__(self, other: Ranked) -> Truth:
        return Truth()

    def __gt__(self, other: Ranked) -> Truth:
        return Truth()

    def __eq__(self, other: object) -> Truth:  # type: ignore[override]
        return Truth()

    __hash__ = object.__hash__


def ranked_in_an_if(a: Ranked, b: Ranked) -> int:
    if a < b:
        return 1
    return 0


def ranked_in_a_chain(a: Ranked, b: Ranked, c: Ranked) -> bool:
    return bool(a < b < c)


def ranked_negated(a: Ranked, b: Ranked) -> bool:
    return not a < b


def ranked_by_sorted(n: int) -> list[Ranked]:
    return sorted([Ranked(), Ranked()])


def ranked_by_min(n: int) -> Ranked:
    return min(Ranked(), Ranked())


def ranked_by_key(n: int) -> list[int]:
    return sorted([n, n + 1], key=lambda k: Ranked())


def searched_for(n: int) -> bool:
    return Ranked() in [Ranked()]


class Key:
    """A key whose equality reaches outside."""

    def __eq__(self, other: object) -> bool:
        launch()
        return True

    __hash__ = object.__hash__


def keyed(n: int) -> Key:
    """The key of an item: computes alone."""
    return Key()


def grouped_by_a_key(n: int) -> int:
    return sum(1 for _ in itertools.groupby([n, n + 1], key=keyed))


def grouped_by_a_key_given_by_place(n: int) -> int:
    return sum(1 for _ in itertools.groupby([n, n + 1], keyed))


EVADING = [
    shown_by_str,
    shown_by_repr,
    shown_by_format,
    shown_in_a_list,
    shown_by_print,
    shown_made_by_its_own_code,
    ranked_in_an_if,
    ranked_in_a_chain,
    ranked_negated,
    ranked_by_sorted,
    ranked_by_min,
    ranked_by_key,
    searched_for,
    grouped_by_a_key,
    grouped_by_a_key_given_by_place,
]


@pytest.mark.parametrize("fn", EVADING, ids=[f.__name__ for f in EVADING])
def test_what_showing_or_deciding_runs_counts(fn: Callable[..., Any]) -> None:
    """The code of the app's that showing an exception, or taking a comparison for a truth,
    runs counts: the action is not taken to only read."""
    effects = analyse(fn, name=fn.__name__)
    assert effects.external, effects.explain()
    assert not effects.only_reads


def test_each_is_named_on_its_path() -> None:
    """What runs is named on the path: the argument's ``__str__``, the truth's ``__bool__``,
    the key's ``__eq__``; an exception made by its own code says why it is assumed."""
    assert "Loud.__str__" in " ".join(analyse(shown_by_str, name="s").explain())
    assert "Truth.__bool__" in " ".join(analyse(ranked_in_an_if, name="r").explain())
    assert "Key.__eq__" in " ".join(analyse(grouped_by_a_key, name="g").explain())
    assert "whose arguments its own __init__ gave" in " ".join(
        analyse(shown_made_by_its_own_code, name="m").explain())


class Plain:
    """Compared as numbers are: gives bools."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __lt__(self, other: Plain) -> bool:
        return self.n < other.n


def shown_plainly(n: int) -> str:
    return str(Told(n, "x")) + repr(ValueError(f"bad {n}"))


def worded(n: int) -> str:
    return str(Worded(str(n)))


def refused(n: int) -> str:
    return str(Invalid(f"no {n}"))


def caught(n: int) -> str:
    try:
        raise Told(n)
    except Told as e:
        return f"{e}"


def compared_plainly(a: Plain, b: Plain) -> list[Plain]:
    if a < b:
        return sorted([a, b])
    return [min(a, b)]


def grouped_plainly(n: int) -> int:
    return sum(1 for _ in itertools.groupby([n, n + 1], key=abs))


HARMLESS = [shown_plainly, worded, refused, caught, compared_plainly, grouped_plainly]


@pytest.mark.parametrize("fn", HARMLESS, ids=[f.__name__ for f in HARMLESS])
def test_plain_showing_and_comparing_only_reads(fn: Callable[..., Any]) -> None:
    """An exception of numbers and text shown, one whose own ``__init__`` hands on only its
    text (signoff's ``Invalid`` too), comparisons that give bools, keys of Python's: nothing of
    the app's runs, and the action only reads."""
    effects = analyse(fn, name=fn.__name__)
    assert effects.only_reads, effects.explain()


class Ratio:
    """A number whose exact ratio reaches outside; ordered, hashed and taken as a float
    harmlessly."""

    def __init__(self, n: float = 1.0) -> None:
        self.n = n

    def as_integer_ratio(self) -> tuple[int, int]:
        launch()
        return (1, 1)

    def __float__(self) -> float:
        return 1.0

    def __lt__(self, other: Ratio) -> bool:
        return True

    def __hash__(self) -> int:
        return 1


class Floating:
    """A number taken as a float by reaching outside; ordered and hashed harmlessly, with no
    exact ratio."""

    def __float__(self) -> float:
        launch()
        return 1.0

    def __lt__(self, other: Floating) -> bool:
        return True

    def __hash__(self) -> int:
        return 1


class Ordered:
    """A number ordered by reaching outside; hashed and added harmlessly."""

    def __lt__(self, other: Ordered) -> bool:
        launch()
        return True

    def __hash__(self) -> int:
        return 1

    def __add__(self, other: Ordered) -> Ordered:
        return self

    def __truediv__(self, other: int) -> Ordered:
        return self


class Counted:
    """A value hashed by reaching outside; ordered harmlessly."""

    def __hash__(self) -> int:
        launch()
        return 1

    def __lt__(self, other: Counted) -> bool:
        return True


def averaged_by(how: Callable[[list[Any]], Any], kind: type) -> Callable[[int], Any]:
    """An action averaging values of `kind` by the statistics function `how`."""

    def action(n: int) -> Any:
        return how([kind(), kind()])

    action.__name__ = f"{how.__name__}_of_{kind.__name__}"
    return action


AVERAGED = [  # (the function, the values' class, whether what it runs of theirs reaches outside)
    (statistics.mean, Ratio, True),
    (statistics.variance, Ratio, True),
    (statistics.fmean, Ratio, False),
    (statistics.median, Ratio, False),
    (statistics.mode, Ratio, False),
    (statistics.fmean, Floating, True),
    (statistics.geometric_mean, Floating, True),
    (statistics.median_grouped, Floating, True),
    (statistics.median, Floating, False),
    (statistics.median_low, Floating, False),
    (statistics.multimode, Floating, False),
    (statistics.median, Ordered, True),
    (statistics.median_high, Ordered, True),
    (statistics.quantiles, Ordered, True),
    (statistics.mean, Ordered, False),
    (statistics.fmean, Ordered, False),
    (statistics.mode, Ordered, False),
    (statistics.mode, Counted, True),
    (statistics.multimode, Counted, True),
    (statistics.median, Counted, False),
    (statistics.mean, Counted, False),
]


@pytest.mark.parametrize(("how", "kind", "reaches"), AVERAGED,
                         ids=[f"{h.__name__}-{k.__name__}" for h, k, _ in AVERAGED])
def test_statistics_runs_what_cpython_calls(how: Callable[[list[Any]], Any], kind: type,
                                            reaches: bool) -> None:
    """A statistics function over values of the app's runs exactly what CPython's code calls
    of their class: ``mean`` their exact ratio, ``fmean`` their float, the medians their order,
    ``mode`` their hash — and not the others."""
    action = averaged_by(how, kind)
    effects = analyse(action, name=action.__name__)
    assert bool(effects.external) is reaches, effects.explain()
    assert effects.only_reads is not reaches


def averaged_plainly(n: int) -> float:
    return statistics.mean([n, 2.5]) + statistics.median([n, n]) + statistics.stdev([1.0, n])


def test_statistics_of_numbers_only_reads() -> None:
    """Statistics of Python's numbers run nothing of the app's."""
    assert analyse(averaged_plainly, name="averaged_plainly").only_reads


class Multiplied:
    """A number multiplied by reaching outside; taken as a float harmlessly."""

    def __mul__(self, other: object) -> float:
        launch()
        return 1.0

    def __float__(self) -> float:
        return 1.0


def weighed(n: int) -> float:
    return statistics.fmean([Multiplied(), Multiplied()], [1, 2])


def unweighed(n: int) -> float:
    return statistics.fmean([Multiplied(), Multiplied()])


def regressed_proportionally(n: int) -> Any:
    return statistics.linear_regression([Multiplied()], [Multiplied()], proportional=True)


def correlated(n: int) -> float:
    return statistics.correlation([Multiplied()], [Multiplied()])


@pytest.mark.parametrize(("fn", "reaches"), [(weighed, True), (unweighed, False),
                                             (regressed_proportionally, True),
                                             (correlated, False)],
                         ids=["weighed", "unweighed", "regressed_proportionally", "correlated"])
def test_statistics_multiplies_as_cpython_does(fn: Callable[..., Any], reaches: bool) -> None:
    """``fmean`` multiplies each value by its weight only when weights are given, and
    ``linear_regression`` multiplies the values themselves only when proportional: the
    ``__mul__`` of the values' class runs then, and only then."""
    effects = analyse(fn, name=fn.__name__)
    assert bool(effects.external) is reaches, effects.explain()


class Formatted(Exception):
    """An exception whose own ``__init__`` hands on text made by Python's own formatting."""

    def __init__(self, name: str, count: int) -> None:
        super().__init__(  # (the case: each of Python's own ways of formatting)
            "no %s" % name, "{} left".format(count), "-".join([name]))  # noqa: UP031, UP032


class Described(Exception):
    """An exception whose own ``__init__`` hands on what a helper of the app's gave."""

    def __init__(self, thing: object) -> None:
        super().__init__(_described(thing))


def _described(thing: object) -> object:
    return Loud()


def formatted(n: int) -> None:
    raise Formatted("a", n)


def described(n: int) -> None:
    raise Described(n)


def test_an_exception_made_of_text_raised_only_reads() -> None:
    """An exception raised whose own ``__init__`` hands on text Python's own formatting made
    is shown harmlessly: the action only reads; one that hands on what the app's code gave is
    taken, shown, to do anything."""
    assert analyse(formatted, name="formatted").only_reads
    effects = analyse(described, name="described")
    assert effects.external, effects.explain()
    assert effects.changes, effects.explain()
