"""What an object's class says of it: the class reached from one of its objects (``type(x)``),
whose methods are the class's own code, run as they are called; and the attributes the class's
methods set (``self.inner = Inner()``), whose own properties run as they are read. Each ``by_``
function reaches outside (``os.system``) only that way (it was taken to only read); each
``kept_`` function only reads."""

from __future__ import annotations

import dataclasses
import json
import logging
import operator
import os
import types
from collections.abc import Callable
from typing import Any


class Stored:
    """A record whose class's methods store it."""

    def save(self) -> None:
        os.system("echo save")

    @classmethod
    def make(cls) -> Stored:
        os.system("echo make")
        return cls()

    def save_again(self) -> None:
        type(self).save(self)

    def copied(self) -> Stored:
        return type(self).make()

    def kind(self) -> str:
        return type(self).__name__


class Dated(Stored):
    """Derives it, and has its own ``make``."""


def by_its_class_method_called_on_itself() -> None:
    Stored().save_again()


def by_a_class_method_of_its_class() -> Stored:
    return Stored().copied()


def by_the_class_of_what_was_given(item: Stored) -> Stored:
    return type(item).make()


def by_the_class_of_a_derived_one(item: Dated) -> None:
    type(item).save(item)


def kept_the_name_of_its_class(item: Stored) -> str:
    return item.kind().upper()


class Labelled:
    """Its method only computes."""

    def label(self) -> str:
        return "labelled"


def kept_a_method_of_its_class(item: Labelled) -> str:
    return type(item).label(item).upper()


class Gauge:
    """Reading its level reaches outside."""

    @property
    def level(self) -> int:
        os.system("echo level")
        return 1

    @property
    def unit(self) -> str:
        return "cm"


def _gauge() -> Gauge:
    return Gauge()


class Tank:
    """Holds a gauge, as its methods set it."""

    def __init__(self) -> None:
        self.gauge = Gauge()


class Annotated:
    """Holds a gauge an annotation in its method names."""

    def __init__(self) -> None:
        self.gauge: Gauge = _gauge()


class Given:
    """Holds the gauge it is given."""

    def __init__(self, gauge: Gauge) -> None:
        self.gauge = gauge


def by_a_property_of_what_its_init_made() -> int:
    return Tank().gauge.level


def by_a_property_of_what_an_annotation_in_a_method_says() -> int:
    return Annotated().gauge.level


def by_a_property_of_what_it_was_given(tank: Given) -> int:
    return tank.gauge.level


def by_a_dotted_attribute_getter() -> int:
    return operator.attrgetter("gauge.level")(Tank())  # type: ignore[no-any-return]


def kept_a_calm_property_of_what_its_init_made() -> str:
    return Tank().gauge.unit


class Helper:
    """A base whose helper only computes."""

    @staticmethod
    def helper() -> int:
        return 0


class LoudHelper(Helper):
    """Its helper reaches outside."""

    @staticmethod
    def helper() -> int:
        os.system("echo helper")
        return 1


def by_a_class_found_in_its_order() -> int:
    return type(LoudHelper()).mro()[0].helper()  # type: ignore[no-any-return]


def by_a_class_found_among_those_deriving_it() -> int:
    return type(Helper()).__subclasses__()[0].helper()  # type: ignore[no-any-return]


def by_a_method_found_by_its_class_by_name() -> int:
    found = LoudHelper()
    return type(found).__getattribute__(found, "helper")()  # type: ignore[no-any-return]


def kept_the_names_in_its_order(item: Labelled) -> list[str]:
    return [kind.__name__.lower() for kind in type(item).__mro__]


def kept_the_name_of_what_json_gave(text: str) -> str:
    import json

    return type(json.loads(text)).__name__.upper()


def kept_the_name_of_a_class_of_no_known_type(item) -> str:  # type: ignore[no-untyped-def]
    return type(item).__name__.lower()  # type: ignore[no-any-return]


class Quiet:
    """Its run only computes."""

    def run(self) -> int:
        return 0


class Declared:
    """Declares its part, in a method, as a quiet one."""

    def __init__(self) -> None:
        self.part: Quiet = Quiet()

    def set(self, part) -> None:  # type: ignore[no-untyped-def]
        self.part = part


class Noisy:
    """Its run reaches outside."""

    def run(self) -> int:
        os.system("echo run")
        return 1


def by_a_declared_attribute_set_otherwise() -> int:
    held = Declared()
    held.set(Noisy())
    return held.part.run()


def by_a_declared_attribute_set_outside() -> int:
    held = Declared()
    held.part = Noisy()  # type: ignore[assignment]
    return held.part.run()


class Lies:
    """Makes something else than itself."""

    def __new__(cls) -> Lies:
        return Noisy()  # type: ignore[return-value]

    def run(self) -> int:
        return 0


def by_what_a_new_of_the_apps_gave() -> int:
    return Lies().run()


def by_the_class_of_what_a_new_gave() -> int:
    return type(Lies())().run()  # type: ignore[no-any-return]


class Builtin:
    """Says it is one of Python's own."""

    __module__ = "builtins"

    def run(self) -> int:
        os.system("echo builtin")
        return 1


def by_a_class_that_says_it_is_pythons() -> int:
    return Builtin().run()


class Problem(Exception):
    """A problem that reports itself calmly."""

    def report(self) -> str:
        return "a problem"


class LoudProblem(Problem):
    """One that reports itself outside."""

    def report(self) -> str:
        os.system("echo report")
        return "a loud problem"


def _fails() -> None:
    raise LoudProblem


def by_a_problem_caught_as_its_base() -> str:
    try:
        _fails()
    except Problem as problem:
        return problem.report()
    return ""


def by_a_problem_caught_among_others() -> str:
    try:
        _fails()
    except (KeyError, Problem) as problem:
        return str(problem.args) + getattr(problem, "report", str)()
    return ""


def kept_a_problem_told(text: str) -> str:
    try:
        return text.upper()
    except ValueError as problem:
        return str(problem).lower()


def _claims_to_be_json(value: int) -> int:
    os.system("echo claims")
    return value


_claims_to_be_json.__module__ = "json"
_claims_to_be_json.__qualname__ = "dumps"


class ClaimsToBeJson(str):
    """Says it is of json's module."""

    __module__ = "json"

    def upper(self) -> str:
        os.system("echo upper")
        return "CLAIMS"


def by_a_function_that_says_it_is_a_librarys() -> int:
    return _claims_to_be_json(1)


def by_a_class_that_says_it_is_a_librarys() -> str:
    return ClaimsToBeJson("a").upper()


def _compiled_as_json() -> Callable[[], int]:
    """A function whose code says it is written in json's own file, in the app's namespace."""

    def dumps() -> int:
        os.system("echo compiled")
        return 1

    dumps.__code__ = dumps.__code__.replace(co_filename=json.__file__, co_qualname="dumps")
    dumps.__module__, dumps.__qualname__ = "json", "dumps"
    return dumps


_compiled_as_jsons = _compiled_as_json()

_made_by_exec: dict[str, Any] = {"__name__": "json", "os": os}
exec(compile("def dumps():\n    os.system('echo exec')\n    return 1\n", "<string>", "exec"),
     _made_by_exec)
_exec_made = _made_by_exec["dumps"]

_in_loggings_namespace = types.FunctionType(
    _compiled_as_jsons.__code__.replace(co_filename=logging.__file__, co_qualname="loud"),
    logging.__dict__, "loud")


def _of_a_package_not_loaded() -> int:
    os.system("echo not loaded")
    return 1


_of_a_package_not_loaded.__module__ = "pydantic.not_loaded"
_of_a_package_not_loaded.__qualname__ = "helper"


def by_a_function_compiled_with_a_librarys_file_name() -> int:
    return _compiled_as_jsons()


def by_a_function_exec_made_in_a_namespace_named_as_a_library() -> int:
    return _exec_made()  # type: ignore[no-any-return]


def by_a_function_put_in_a_librarys_namespace_under_a_name_it_does_not_have() -> int:
    return _in_loggings_namespace()  # type: ignore[no-any-return]


def by_a_function_that_says_it_is_of_a_module_of_a_package_not_loaded() -> int:
    return _of_a_package_not_loaded()


def kept_a_librarys_own_functions(value: dict[str, int]) -> str:
    import collections.abc

    counts: dict[str, int] = {}
    collections.abc.MutableMapping.update(counts, value)
    return json.dumps(dataclasses.asdict(Point(1, 2))) + json.dumps(counts)


@dataclasses.dataclass
class Point:
    x: int
    y: int


def by_a_method_found_in_the_members_of_a_class_of_no_known_type(item) -> int:  # type: ignore[no-untyped-def]
    return type(item).__dict__["helper"].__func__()  # type: ignore[no-any-return]


class LoudText(str):
    """Text whose ``replace`` (which ``shlex.quote`` calls) reaches outside."""

    def replace(self, *args: object) -> str:  # type: ignore[override]
        os.system("echo replace")
        return str(self)


class SaysItIsSignoffs(LoudText):
    """Derives the app's loud text, and says it is of signoff's own module."""

    __module__ = "signoff.effects"


def by_a_class_that_says_it_is_signoffs_deriving_the_apps() -> str:
    import shlex

    return shlex.quote(SaysItIsSignoffs("a b"))


class Trimmed(str):
    """Text made trimmed, by Python's own ``__new__``."""

    def __new__(cls, value: str) -> Trimmed:
        return super().__new__(cls, value.strip())

    def shout(self) -> str:
        return self.upper()


def kept_what_a_new_made_by_pythons_own(text: str) -> str:
    return Trimmed(text).shout()


class LoudCount(int):
    """A number whose addition reaches outside."""

    def __add__(self, other: object) -> int:
        os.system("echo add")
        return int(self) + 1


class Counted:
    """Counts with a loud number, as its method sets it."""

    def __init__(self) -> None:
        self.count = LoudCount(1)


def by_an_operator_on_what_a_method_set() -> int:
    return Counted().count + 1


def _fails_with(found: Noisy) -> None:
    raise ValueError(found)


def by_what_an_exception_was_raised_with() -> int:
    try:
        _fails_with(Noisy())
    except ValueError as problem:
        return problem.args[0].run()  # type: ignore[no-any-return]
    return 0


def kept_what_an_exception_says(text: str) -> str:
    try:
        return str(int(text))
    except ValueError as problem:
        return str(problem.args).lower()


class Cart:
    """Keeps its folder as a path, as its method sets it."""

    def __init__(self, root: str) -> None:
        from pathlib import Path

        self.root = Path(root)


def kept_a_path_joined_from_what_a_method_set(cart: Cart) -> str:
    return str(cart.root / "b")
