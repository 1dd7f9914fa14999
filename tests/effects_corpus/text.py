"""Text made of the app's objects, and the app's objects taken for text.

``str(x)``, ``repr(x)``, ``format(x)``, ``f"{x}"``, ``"%s" % x`` and ``"{}".format(x)`` give
back what ``x``'s own ``__str__`` (``__repr__``, ``__format__``) gave — a ``str`` of the app's
class, whose methods it overrides, when that is what it gives; Python's text functions written
in Python (``textwrap``, ``shlex``, ``html``, ``string.capwords``) call the methods of what they
are given, and may give it back; a library's class run on an object of the app's class that
derives it calls the methods that class overrides. Each ``by_`` function reaches outside
(``os.system``) only that way; each ``kept_`` function only reads.
"""

from __future__ import annotations

import html
import json
import logging
import os
import shlex
import string
import textwrap
from typing import Any


class Shouting(str):
    """Text whose methods reach outside."""

    def upper(self) -> str:
        os.system("echo upper")
        return "SHOUT"

    def expandtabs(self, tabsize: int = 8) -> str:
        os.system("echo expandtabs")
        return str.expandtabs(self, tabsize)

    def splitlines(self, keepends: bool = False) -> list[str]:
        os.system("echo splitlines")
        return str.splitlines(self, keepends)

    def replace(self, old: str, new: str, count: int = -1) -> str:
        os.system("echo replace")
        return str.replace(self, old, new, count)


class Shown:
    """Shown as a `Shouting` text, whichever way it is made text."""

    def __str__(self) -> str:
        return Shouting("shown")

    def __repr__(self) -> str:
        return Shouting("Shown()")

    def __format__(self, spec: str) -> str:
        return Shouting("formatted")


class ShownByStr:
    """Only its ``__str__`` is its own: formatting it calls that."""

    def __str__(self) -> str:
        return Shouting("shown")


class Duck:
    """Not text, but has text's methods, each reaching outside."""

    def __contains__(self, part: object) -> bool:
        return False

    def upper(self) -> str:
        os.system("echo duck")
        return "DUCK"

    def expandtabs(self, tabsize: int = 8) -> str:
        os.system("echo duck")
        return "a b"

    def splitlines(self, keepends: bool = False) -> list[str]:
        os.system("echo duck")
        return ["a"]

    def split(self, sep: str | None = None) -> list[str]:
        os.system("echo duck")
        return ["a"]

    def replace(self, old: str, new: str) -> str:
        os.system("echo duck")
        return "a"

    def read(self, size: int = -1) -> str:
        os.system("echo duck")
        return ""

    def quack(self) -> str:
        os.system("echo quack")
        return "quack"


class LoudWrapper(textwrap.TextWrapper):
    """A wrapper whose own ``wrap``, which the library's ``fill`` calls, reaches outside."""

    def wrap(self, text: str) -> list[str]:
        os.system("echo wrap")
        return [text]


class LoudEncoding(json.JSONEncoder):
    """An encoder whose own ``default``, which the library's ``encode`` calls, reaches outside."""

    def default(self, o: Any) -> Any:
        os.system("echo default")
        return str(o)


def by_str_of_it() -> str:
    return str(Shown()).upper()


def by_repr_of_it() -> str:
    return repr(Shown()).upper()


def by_format_of_it() -> str:
    return format(Shown(), ">3").upper()


def by_an_f_string_of_it() -> str:
    return f"{Shown()}".upper()


def by_an_f_string_with_a_spec() -> str:
    return f"{Shown():>9}".upper()


def by_an_f_string_of_its_str() -> str:
    return f"{ShownByStr()}".upper()


def by_percent_of_it() -> str:
    return ("%s" % Shown()).upper()  # noqa: UP031


def by_str_format_of_it() -> str:
    return "{}".format(Shown()).upper()  # noqa: UP032


def by_its_text_quoted_then_named() -> str:
    quoted = shlex.quote(str(Shown()))
    return quoted.upper()


def by_its_text_in_a_list() -> list[str]:
    shown = [str(Shown())]
    return [s.upper() for s in shown]


def by_its_text_filled() -> str:
    return textwrap.fill(str(Shown()), 10)


def by_its_text_escaped() -> str:
    return html.escape(str(Shown()))


def by_a_duck_indented() -> str:
    return textwrap.indent(Duck(), "  ")  # type: ignore[arg-type]


def by_a_duck_split_as_words() -> list[str]:
    return shlex.split(Duck())  # type: ignore[arg-type]


def by_a_duck_capitalised() -> str:
    return string.capwords(Duck())  # type: ignore[arg-type]


def by_a_duck_escaped() -> int:
    html.escape(Duck())  # type: ignore[arg-type]
    return 1


def by_a_duck_given_back() -> str:
    return html.unescape(Duck()).upper()  # type: ignore[arg-type]


def by_a_duck_given_back_to_its_own_method() -> str:
    return html.unescape(Duck()).quack()  # type: ignore[attr-defined]


def by_a_wrapper_of_the_apps() -> str:
    return LoudWrapper(width=10).fill("a b c")


def by_an_encoder_of_the_apps() -> str:
    return LoudEncoding().encode({"at": object()})


class Named:
    """Shown as its name."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __str__(self) -> str:
        return self.name

    def __format__(self, spec: str) -> str:
        return format(self.name, spec)


class CalmWrapper(textwrap.TextWrapper):
    """A wrapper of the app's whose own ``wrap`` only computes."""

    def wrap(self, text: str) -> list[str]:
        return text.split()


def kept_str_of_a_name(item: Named) -> str:
    return str(item).upper()


def kept_an_f_string_of_a_name(item: Named) -> str:
    return f"{item:>10}".title()


def kept_percent_of_a_name(item: Named) -> str:
    return ("%s" % item).strip()  # noqa: UP031


def kept_text_quoted(words: str) -> str:
    return shlex.quote(words).upper()


def kept_text_wrapped(words: str) -> list[str]:
    return [line.strip() for line in textwrap.wrap(words, 20)]


def kept_a_path_joined(folder: str, name: str) -> str:
    return os.path.join(folder, name).lower()


def kept_text_of_a_number(n: int) -> str:
    return html.escape(str(n)).upper()


def kept_a_calm_wrapper(words: str) -> str:
    return CalmWrapper(width=10).fill(words)


def by_format_map_of_it() -> str:
    return "{shown}".format_map({"shown": Shown()}).upper()


def by_a_path_of_the_apps() -> str:
    return os.fspath(PathOfText()).upper()


class PathOfText:
    """A path whose text is a `Shouting` one."""

    def __fspath__(self) -> str:
        return Shouting("/tmp")


class Labelled:
    """Shown as a label of no known type."""

    def __init__(self, label) -> None:  # type: ignore[no-untyped-def]
        self.label = label

    def __str__(self) -> str:
        return self.label  # type: ignore[no-any-return]


def kept_percent_of_a_label(item: Labelled) -> str:
    return ("%s" % item).strip()  # noqa: UP031


def kept_str_of_a_label(item: Labelled) -> str:
    return str(item).strip()


def kept_an_f_string_of_a_label(item: Labelled) -> str:
    return f"{item}".strip()


class Workspace:
    """A path-like folder with a method named like one of text's."""

    def __init__(self, root: str) -> None:
        self.root = root

    def __fspath__(self) -> str:
        return self.root

    def format(self) -> None:
        os.system("echo format")


def kept_a_path_of_a_path_like_object(workspace: Workspace) -> str:
    return os.path.join(workspace, "README.md")


class Member:
    """Shown as its name; joining a team changes it."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.teams: list[str] = []

    def __str__(self) -> str:
        return self.name

    def join(self, team: str) -> None:
        self.teams.append(team)


def kept_a_template_of_a_member(member: Member) -> str:
    return string.Template("Hi $who").substitute(who=member)


class Collector(logging.Handler):
    """A handler keeping what it is given."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.seen.append(record.getMessage())


def kept_a_handler_of_the_apps_tested(collector: Collector) -> int:
    return len(collector.seen) + int(isinstance(collector, logging.Handler))


class ShownByRepr:
    """Only its ``__repr__`` is its own: formatting it calls that."""

    def __repr__(self) -> str:
        os.system("echo repr")
        return "ShownByRepr()"


def by_an_f_string_of_what_only_has_a_repr() -> str:
    return f"{ShownByRepr()}"


def by_a_percent_of_a_mapping() -> str:
    return "%(shown)s" % {"shown": ShownByRepr()}  # noqa: UP031


class Gauge:
    """Reading its level reaches outside; so does looking a reading up in it."""

    @property
    def level(self) -> int:
        os.system("echo level")
        return 1

    def __getitem__(self, key: str) -> int:
        os.system("echo getitem")
        return 1


def by_a_format_reading_an_attribute() -> str:
    return "{0.level}".format(Gauge())  # noqa: UP030, UP032


def by_a_format_reading_an_item_by_name() -> str:
    return "{g[k]}".format(g=Gauge())  # noqa: UP032


def kept_a_format_of_a_name(item: Named) -> str:
    return "{0.name} ({0})".format(item).upper()  # noqa: UP032


class Lookups(dict):  # type: ignore[type-arg]
    """A mapping whose look-ups reach outside."""

    def __getitem__(self, key: object) -> str:
        os.system("echo lookup")
        return "x"


class FormattedOutside(str):
    """Text whose own formatting reaches outside."""

    def __format__(self, spec: str) -> str:
        os.system("echo format")
        return str(self)


class ShownFormattedOutside:
    """Shown as text that formats itself outside."""

    def __str__(self) -> str:
        return FormattedOutside("x")


class PathOfShouting:
    """A path whose text is a `Shouting` one."""

    def __fspath__(self) -> str:
        return Shouting("/tmp/x")


def by_a_format_map_looking_up() -> str:
    return "{a}".format_map(Lookups())


def by_a_percent_looking_up() -> str:
    return "%(a)s" % Lookups()  # noqa: UP031


def by_a_template_looking_up() -> str:
    return string.Template("$a").substitute(Lookups())


def by_an_f_string_of_its_str_formatted() -> str:
    return f"{ShownFormattedOutside()!s}"


def by_a_path_of_text_of_the_apps() -> str:
    return os.path.basename(PathOfShouting())


def by_a_list_of_text_of_the_apps_joined() -> str:
    return shlex.join([Shouting("a")])


def by_an_f_string_of_its_str_made_of_its_repr() -> str:
    return f"{ShownByRepr()!s}"


def by_a_format_of_numbered_fields() -> str:
    return "{} {.level}".format(1, Gauge())  # noqa: UP032


def by_a_template_of_a_value_given_by_name() -> str:
    return string.Template("$a").substitute(a=ShownByRepr())
