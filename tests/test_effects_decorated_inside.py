"""A function decorated inside an action is bound to what its decorator gave: a cache of it
hashes (and compares) what it is given, by the app's ``__hash__`` and ``__eq__``, and a wrapper
of the app's runs its own code at every call. Each action below looked as if it only read, and
ran alone with no person asked; the harmless ones beside them still only read."""

from __future__ import annotations

import functools
import subprocess
from collections.abc import Callable
from typing import Any

import pytest

from signoff.effects import analyse


def launch(*_: Any) -> int:
    """Reach outside: start a program."""
    return subprocess.run(["true"], check=False).returncode


class Key:
    """A key whose hash reaches outside."""

    def __hash__(self) -> int:
        launch()
        return 1


class Name(str):
    """Text hashed as text is, compared after reaching outside."""

    __hash__ = str.__hash__

    def __eq__(self, other: object) -> bool:
        launch()
        return str.__eq__(self, other)


def logged(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A decorator of the app's whose wrapper reaches outside at every call."""

    def wrapper(*args: Any) -> Any:
        launch()
        return fn(*args)

    return wrapper


@functools.cache
def looked_up(key: object) -> int:
    """A cache kept by the module."""
    return 1


def cached_here(n: int) -> int:
    @functools.cache
    def price(key: object) -> int:
        return n

    return price(Key())


def cached_here_with_a_size(n: int) -> int:
    @functools.lru_cache(maxsize=8)
    def price(key: object) -> int:
        return n

    return price(key=Key())


def cached_here_bare(n: int) -> int:
    @functools.lru_cache
    def price(key: object) -> int:
        return n

    return price(Key())


def cached_here_compares(n: int) -> int:
    @functools.cache
    def price(key: object) -> int:
        return n

    return price(Name("a"))


def cached_by_the_module_compares(n: int) -> int:
    return looked_up(Name("a"))


def keyed_by_text_that_compares(n: int) -> dict[Name, int]:
    return {Name("a"): n}


def wrapped_here(n: int) -> int:
    @logged
    def price() -> int:
        return n

    return price()


def wrapped_here_by_a_local_decorator(n: int) -> int:
    def counted(fn: Callable[[], int]) -> Callable[[], int]:
        def wrapper() -> int:
            launch()
            return fn()

        return wrapper

    @counted
    def price() -> int:
        return n

    return price()


def cached_here_given_many(n: int) -> int:
    @functools.cache
    def price(*keys: object) -> int:
        return n

    return price(*[Key(), Key()])


def cached_by_the_module_given_many(n: int) -> int:
    return looked_up(*[Key()])


EVADING = [
    cached_here,
    cached_here_with_a_size,
    cached_here_bare,
    cached_here_compares,
    cached_by_the_module_compares,
    keyed_by_text_that_compares,
    wrapped_here,
    wrapped_here_by_a_local_decorator,
    cached_here_given_many,
    cached_by_the_module_given_many,
]


@pytest.mark.parametrize("fn", EVADING, ids=[f.__name__ for f in EVADING])
def test_code_a_decorator_made_runs_counts(fn: Callable[..., Any]) -> None:
    """What a decorated function's decorator made runs as it is called counts: the action is
    not taken to only read."""
    effects = analyse(fn, name=fn.__name__)
    assert effects.external, effects.explain()
    assert not effects.only_reads


def cached_numbers(n: int) -> int:
    @functools.cache
    def square(k: int) -> int:
        return k * k

    return square(n) + square(n + 1)


def cached_with_names_copied(n: int) -> int:
    @functools.lru_cache(maxsize=4)
    def square(k: int) -> int:
        return k * k

    @functools.wraps(square)
    def again(k: int) -> int:
        return square(k)

    return again(n)


HARMLESS = [cached_numbers, cached_with_names_copied]


@pytest.mark.parametrize("fn", HARMLESS, ids=[f.__name__ for f in HARMLESS])
def test_a_cache_of_plain_values_only_reads(fn: Callable[..., Any]) -> None:
    """A cache made inside an action, of numbers, runs nothing of the app's: it only reads."""
    effects = analyse(fn, name=fn.__name__)
    assert effects.only_reads, effects.explain()


class Rates:
    """A service whose methods are cached."""

    @functools.cache  # noqa: B019 (a cached method is the case analysed)
    def rate(self, key: int) -> int:
        """Only computes."""
        return key * 2

    @functools.lru_cache(maxsize=8)  # noqa: B019 (a cached method is the case analysed)
    def fetched(self, key: int) -> int:
        """Reaches outside, once a key."""
        return launch()


class Hashed:
    """A cached method's object hashes itself by reaching outside."""

    def __hash__(self) -> int:
        launch()
        return 1

    @functools.cache  # noqa: B019 (a cached method is the case analysed)
    def rate(self, key: int) -> int:
        """Only computes."""
        return key


def test_a_cached_method_that_only_computes_only_reads() -> None:
    """A method cached by ``functools.cache`` is followed like any method: one that only
    computes, on an object whose hash is Python's, only reads (it was of no known code)."""

    def rated(n: int, rates: Rates) -> int:
        return rates.rate(n) + Rates().rate(n)

    effects = analyse(rated, name="rated")
    assert effects.only_reads, effects.explain()


def test_what_a_cached_method_runs_counts() -> None:
    """A cached method's own code, and its object's ``__hash__`` (the cache hashes ``self``),
    count, each named on its path."""

    def fetched(n: int, rates: Rates) -> int:
        return rates.fetched(n)

    def rated(n: int) -> int:
        return Hashed().rate(n)

    assert "Rates.fetched" in " ".join(analyse(fetched, name="fetched").explain())
    assert "Hashed.__hash__" in " ".join(analyse(rated, name="rated").explain())


def passed_through(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A decorator of the app's whose wrapper only calls the function."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    return wrapper


def kept_as_it_is(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A decorator of the app's that gives back the very function."""
    return fn


def wrapped_or_not(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A decorator of the app's that gives a wrapper, or the function, as a flag says."""

    def wrapper(*args: Any) -> Any:
        return fn(*args)

    return wrapper if LOUD else fn


LOUD = False
REGISTERED: list[Callable[..., Any]] = []


def registered(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A decorator of the app's that keeps the function in a module's list."""
    REGISTERED.append(fn)
    return fn


def made_otherwise(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A decorator of the app's that gives what is not a function it defines."""
    return functools.partial(launch) if LOUD else functools.update_wrapper(lambda: 1, fn)


def maybe_nothing(fn: Callable[..., Any]) -> Callable[..., Any] | None:
    """A decorator of the app's that may give None."""
    return fn if LOUD else None


def passed_through_here(n: int) -> int:
    @passed_through
    def price(k: int) -> int:
        return k * 2

    return price(n)


def kept_here(n: int) -> int:
    @kept_as_it_is
    def price(k: int) -> int:
        return k * 2

    return price(n)


def wrapped_or_not_here(n: int) -> int:
    @wrapped_or_not
    def price(k: int) -> int:
        return k * 2

    return price(n)


def stacked_here(n: int) -> int:
    @passed_through
    @kept_as_it_is
    def price(k: int) -> int:
        return k * 2

    return price(n)


FOLLOWED = [passed_through_here, kept_here, wrapped_or_not_here, stacked_here]


@pytest.mark.parametrize("fn", FOLLOWED, ids=[f.__name__ for f in FOLLOWED])
def test_what_a_decorator_of_the_apps_gives_is_followed(fn: Callable[..., Any]) -> None:
    """A decorator of the app's written at module level that gives the function, or a wrapper
    it defines, is walked with the function: the action only reads (it was taken to do
    anything)."""
    effects = analyse(fn, name=fn.__name__)
    assert effects.only_reads, effects.explain()


def launched_through_a_wrapper(n: int) -> int:
    @passed_through
    def price(k: int) -> int:
        return launch() + k

    return price(n)


def test_the_function_a_wrapper_calls_counts() -> None:
    """The decorated function's own code, called by the wrapper, counts, and only it: the
    action reaches outside, and nothing is assumed of code not seen."""
    effects = analyse(launched_through_a_wrapper, name="launched_through_a_wrapper")
    assert effects.external, effects.explain()
    assert not effects.changes, effects.explain()
    assert not effects.sends, effects.explain()


def registered_here(n: int) -> int:
    @registered
    def price(k: int) -> int:
        return k

    return price(n)


def made_otherwise_here(n: int) -> int:
    @made_otherwise
    def price() -> int:
        return n

    return price()


def maybe_nothing_here(n: int) -> int:
    @maybe_nothing
    def price() -> int:
        return n

    return price()  # type: ignore[misc]


def test_what_a_decorator_does_as_it_decorates_counts() -> None:
    """A decorator that keeps the function in a module's list changes it, at every call."""
    assert "" in analyse(registered_here, name="registered_here").changes


NOT_PROVEN = [made_otherwise_here, maybe_nothing_here]


@pytest.mark.parametrize("fn", NOT_PROVEN, ids=[f.__name__ for f in NOT_PROVEN])
def test_what_a_decorator_gives_otherwise_may_do_anything(fn: Callable[..., Any]) -> None:
    """A decorator of the app's that gives anything but the function or a function it defines
    (a partial, what ``update_wrapper`` gave, maybe None) gives what is of no known code:
    calling it is taken to do anything."""
    effects = analyse(fn, name=fn.__name__)
    assert effects.external, effects.explain()
    assert effects.changes, effects.explain()
    assert effects.sends, effects.explain()
