"""The tables the effect analysis judges calls by: sinks, the pure allow-list, mutating methods.

Everything here is data plus small look-ups by qualified name (``"httpx.post"``,
``"pathlib.Path.write_text"``). A name is matched with shell-style patterns so that a private
module (``httpx._client.Client.post``) is caught by its package's pattern (``httpx.*``).
"""

from __future__ import annotations

import builtins
import collections
import collections.abc
import datetime
import decimal
import fractions
import functools
import heapq
import itertools
import json
import logging
import operator
import os
import re
import shlex
import site
import statistics
import sys
import sysconfig
import textwrap
import types
import uuid
from fnmatch import fnmatchcase
from functools import lru_cache
from typing import Any

SINK_PATTERNS: tuple[str, ...] = (
    "socket.*",
    "ssl.*",
    "urllib.request.*",
    "http.client.*",
    "requests",
    "requests.*",
    "httpx",
    "httpx.*",
    "aiohttp",
    "aiohttp.*",
    "urllib3.*",
    "smtplib.*",
    "ftplib.*",
    "telnetlib.*",
    "subprocess.*",
    "asyncio.create_subprocess_*",
    "asyncio.open_connection",
    "asyncio.start_server",
    "os.system",
    "os.exec*",
    "os.spawn*",
    "os.posix_spawn*",
    "os.popen",
    "os.fork*",
    "os.kill*",
    "os.remove",
    "os.unlink",
    "os.rename",
    "os.renames",
    "os.replace",
    "os.rmdir",
    "os.removedirs",
    "os.mkdir",
    "os.makedirs",
    "os.open",
    "os.write",
    "os.truncate",
    "os.chmod",
    "os.chown",
    "os.symlink",
    "os.link",
    "os.putenv",
    "os.unsetenv",
    "shutil.*",
    "tempfile.*",
    "ctypes.*",
    "webbrowser.*",
    # logging's own handlers write files and reach servers; making one is the reach
    "logging.FileHandler",
    "logging.handlers.*",
    "logging.config.*",
    "logging.basicConfig",
    "logging.Logger.addHandler",
    "pathlib.*Path.write_text",
    "pathlib.*Path.write_bytes",
    "pathlib.*Path.unlink",
    "pathlib.*Path.mkdir",
    "pathlib.*Path.rmdir",
    "pathlib.*Path.rename",
    "pathlib.*Path.replace",
    "pathlib.*Path.touch",
    "pathlib.*Path.chmod",
    "pathlib.*Path.symlink_to",
    "pathlib.*Path.hardlink_to",
    # An MCP client reaches the server it is connected to (its sessions and transports; the
    # plain data it is given, such as a server's parameters, is not a reach).
    "mcp.client.client.Client.*",
    "mcp.client.session.ClientSession.*",
    "mcp.client.stdio.stdio_client",
    "mcp.client.streamable_http.streamable_http_client",
    "mcp.client.sse.sse_client",
    # signoff's guard calling a tool of the MCP server it stands in front of: that server is
    # reached, and nothing else is done (plain data in, plain data out).
    "signoff.mcp.upstreams.Upstreams.call_from_thread",
)
"""Calls that reach outside the app: network, processes, the file system."""

SINK_WORDS: dict[str, tuple[tuple[str, ...], str]] = {
    "signoff.mcp.upstreams.Upstreams.call_from_thread": (
        ("server", "tool"), "calls {tool} on the MCP server {server}"),
}
"""Sinks whose reach a person reads better in words made of their arguments than by the name of
the code called: each sink's parameters (in order, after ``self``) and the words. Used only when
each of those arguments is known to be one string; else the sink is named as any other."""

OPEN_NAMES = frozenset({"builtins.open", "io.open", "open", "codecs.open"})
"""``open`` itself: outside reach only when its mode may write."""

PATH_OPEN_PATTERN = "pathlib.*Path.open"
"""``Path.open``: like ``open``, with the mode as its first argument."""

PURE_MODULES: tuple[str, ...] = (
    # Logging goes to the app's own log stream, wherever its handlers send it, like print below:
    # treated as pure, a deliberate choice (the read-only guard lets logging through too).
    "logging",
    "json",
    "re",
    "math",
    "cmath",
    "datetime",
    "decimal",
    "fractions",
    "numbers",
    "itertools",
    "functools",
    "operator",
    "string",
    "textwrap",
    "collections",
    "enum",
    "uuid",
    "statistics",
    "typing",
    "typing_extensions",
    "dataclasses",
    "pydantic",
    "pydantic_core",
    "annotated_types",
    "time",
    "zoneinfo",
    "calendar",
    "copy",
    "hashlib",
    "hmac",
    "base64",
    "binascii",
    "unicodedata",
    "html",
    "keyword",
    "abc",
    "heapq",
    "bisect",
    # random: reading the global generator is harmless; ``seed`` and ``shuffle`` are special below.
    "random",
    "secrets",
    "struct",
    "shlex",
    "difflib",
    # csv writes to the stream it is given (WRITES_TO_STREAM: that stream's own write is
    # followed) and reads what it is given to iterate; its registry of dialects is the process's
    "csv",
    "_csv",
    "urllib.parse",
    "os.path",
    "posixpath",
    "ntpath",
    "genericpath",
    "pathlib",
    "sqlalchemy.sql",
    "sqlalchemy.sql.*",
    # the ORM's expression builders: a column's (``Client.name.label("n")``, ``.in_(…)``), a
    # query's loader options (``selectinload``…) and an entity's alias only build SQL
    "sqlalchemy.orm.attributes.QueryableAttribute",
    "sqlalchemy.orm.attributes.InstrumentedAttribute",
    "sqlalchemy.orm.strategy_options",
    "sqlalchemy.orm._orm_constructors.aliased",
)
"""Modules whose functions and types only compute (C code included): called, never analysed."""

PURE_NAMES = frozenset(
    {
        "io.StringIO",
        "io.BytesIO",
        "os.getenv",
        # the process's environment read (``os.environ.get``, ``os.environ[k]``, ``k in
        # os.environ``, iterated or copied): its frozen code only looks keys up in a dict;
        # setting, deleting or popping a variable (``putenv``) is not here
        "os._Environ.__getitem__", "os._Environ.__iter__", "os._Environ.__len__",
        "os._Environ.__repr__", "os._Environ.copy",
        "os.fspath",
        "os.getcwd",
        "os.getpid",
        "os.cpu_count",
        "os.listdir",
        "os.scandir",
        "os.stat",
        "os.lstat",
        "sqlalchemy.select",
        "sqlalchemy.and_",
        "sqlalchemy.or_",
        "sqlalchemy.not_",
        "sqlalchemy.func",
        "sqlalchemy.desc",
        "sqlalchemy.asc",
        "sqlalchemy.literal",
        "sqlalchemy.bindparam",
        "sqlalchemy.column",
        "sqlalchemy.table",
        "sqlalchemy.exists",
        "sqlalchemy.case",
        "sqlalchemy.cast",
        "sqlalchemy.null",
        "sqlalchemy.true",
        "sqlalchemy.false",
        "sqlalchemy.orm.selectinload",
        "sqlalchemy.orm.joinedload",
        "sqlalchemy.orm.aliased",
        "sqlalchemy.inspect",
        "signoff.actions.cause.current_cause",  # reads a context variable
        # signoff's own effect analysis (an action's effects found again as they are read, in
        # `signoff.actions`): it reads the code it is given and runs none of it, and what it
        # keeps is its own memo. Walked, it is code written to follow any code, followed into
        # itself: too far to go (the examples' `main()`s met Python's recursion limit in it).
        "signoff.effects.analyse", "signoff.effects.analyse_again", "signoff.effects.checking",
        "signoff.effects.raises", "signoff.effects.analyser.analyse_effects",
        "signoff.effects.analyser.checking_effects", "signoff.effects.analyser.find_raises",
        # waiting on and holding the process's locks keeps nothing and reaches nothing: only
        # when another thread goes on changes (an event set, a condition notified: below)
        "threading.Lock", "threading.RLock", "_thread.allocate_lock", "_thread.RLock",
        "threading.Event", "threading.Event.wait", "threading.Event.is_set",
        "threading.Condition", "threading.Condition.__enter__", "threading.Condition.__exit__",
        "threading.Condition.wait",
        "threading.Semaphore", "threading.Semaphore.__enter__", "threading.Semaphore.__exit__",
        "threading.BoundedSemaphore", "_thread.lock.__enter__", "_thread.lock.__exit__",
        "_thread.lock.locked", "_thread.RLock.__enter__", "_thread.RLock.__exit__",
    }
)
"""Single names known to only compute or read."""

PURE_BUILTINS = frozenset(
    {
        "abs", "all", "any", "ascii", "bin", "bool", "bytearray", "bytes", "callable", "chr",
        "complex", "dict", "divmod", "enumerate", "filter", "float", "format", "frozenset",
        "getattr", "hasattr", "hash", "hex", "id", "int", "isinstance", "issubclass", "iter",
        "len", "list", "map", "max", "memoryview", "min", "next", "object", "oct", "ord", "pow",
        "range", "repr", "reversed", "round", "set", "slice", "sorted", "str", "sum", "super",
        "tuple", "type", "zip", "vars", "classmethod", "staticmethod", "property",
        "NotImplemented", "Ellipsis",
        # print writes to the process's standard output, which is the app's own log stream, not a
        # record or the outside world: treated as pure (a deliberate choice, stated here).
        "print",
    }
)  # fmt: skip
"""Builtins that only compute (``getattr`` and ``setattr`` are judged by their arguments)."""

MUTATING_METHODS = frozenset(
    {
        "append", "extend", "insert", "update", "pop", "popitem", "remove", "clear", "setdefault",
        "sort", "reverse", "add", "discard", "__setitem__", "__delitem__", "__setattr__",
        "__delattr__", "__iadd__", "__ior__", "appendleft", "extendleft", "popleft", "rotate",
        "difference_update", "intersection_update", "symmetric_difference_update", "move_to_end",
        "subtract", "write", "writelines", "truncate", "seek", "__init__", "__iand__",
        "__isub__", "__ixor__", "__imul__",
    }
)  # fmt: skip
"""Methods that change the object they are called on (for builtin and allow-listed types)."""

KEEPS_NOTHING: frozenset[Any] = frozenset(
    {
        abs, all, any, ascii, bool, bytearray, bytes, dict, divmod, float, format, frozenset,
        hash, id, int, isinstance, issubclass, len, list, max, min, ord, pow, print, repr,
        round, set, sorted, str, sum, tuple, json.dumps, json.dump, heapq.nlargest,
        heapq.nsmallest, collections.Counter, statistics.mean, statistics.fmean,
        statistics.median, statistics.mode, statistics.multimode, statistics.stdev,
        statistics.pstdev, statistics.variance, statistics.pvariance, statistics.quantiles,
        logging.debug, logging.info, logging.warning, logging.error, logging.exception,
        logging.critical, logging.log, operator.getitem, shlex.join, shlex.split, textwrap.wrap,
        textwrap.fill, textwrap.shorten, textwrap.indent,
    }
)  # fmt: skip
"""Calls that keep nothing they are given: a container handed to one stays with its name
(`signoff.effects.frame.Frame.keep`); what they are given that iterates lazily
(`KEEPS_WHILE_CALLED`) is used up inside the call."""

KEEPS_WHILE_CALLED: frozenset[Any] = frozenset(
    {
        iter, enumerate, filter, map, reversed, zip, itertools.accumulate, itertools.chain,
        itertools.chain.from_iterable, itertools.combinations, itertools.compress,
        itertools.dropwhile, itertools.groupby, itertools.islice, itertools.pairwise,
        itertools.permutations, itertools.product, itertools.starmap, itertools.takewhile,
        itertools.zip_longest,
    }
)  # fmt: skip
"""Builtins whose result iterates over what they are given, as it is used: a container handed
to one stays with its name only where the result is used up at once (``for i, x in
enumerate(xs)``, ``list(zip(xs, ys))``)."""

CONTAINER_METHODS = frozenset(
    {
        "append", "extend", "insert", "remove", "pop", "popitem", "clear", "index", "count",
        "sort", "reverse", "copy", "get", "setdefault", "update", "add", "discard", "union",
        "intersection", "difference", "symmetric_difference", "issubset", "issuperset",
        "isdisjoint", "intersection_update", "difference_update", "symmetric_difference_update",
        "appendleft", "extendleft", "popleft", "rotate", "most_common", "total",
    }
)  # fmt: skip
"""Methods of Python's containers that leave the container with its name (none returns it or a
live view of it)."""

CONTAINER_VIEWS = frozenset({"keys", "values", "items", "__iter__", "__reversed__"})
"""Methods of Python's containers that give a live view of it (`KEEPS_WHILE_CALLED`)."""

CONTAINER_READERS = frozenset(
    {
        "get", "count", "index", "copy", "union", "intersection", "difference",
        "symmetric_difference", "issubset", "issuperset", "isdisjoint", "most_common",
        "__contains__", "__len__", "__getitem__",
    }
)  # fmt: skip
"""Methods of Python's containers that only read them and give nothing that sees them change
(a method read of one, handed on, keeps it with its name: ``sorted(index, key=index.get)``)."""

KEEPS_NOTHING_METHODS = frozenset(
    {f"logging.Logger.{name}" for name in ("debug", "info", "warning", "warn", "error",
                                           "exception", "critical", "log")}
    | {"_csv.writer.writerow", "_csv.writer.writerows", "csv.DictWriter.writerow",
       "csv.DictWriter.writerows"}
)
"""Methods of allow-listed classes that keep nothing they are given (`KEEPS_NOTHING`): a log
record's values are made text as it is written, a CSV row as it is."""

KEPT_BY_METHODS = frozenset({"append", "add", "insert", "setdefault", "get", "pop", "__setitem__",
                             "__init__"})
"""Methods of Python's containers that keep, or give back, what they are given: a container
handed to one may be filled through the other."""

PYTHON_CONTAINERS: frozenset[type] = frozenset(
    {list, dict, set, bytearray, collections.defaultdict, collections.OrderedDict,
     collections.Counter, collections.deque}
)
"""Python's own containers: their methods are those above."""

def _libraries() -> tuple[str, ...]:
    """Where the standard library and installed packages live: the interpreter's own folders,
    and every folder of installed packages Python was given besides (a user's
    ``pip install --user``, Debian's ``dist-packages`` a venv with system site packages reads,
    one a ``.pth`` file or ``PYTHONPATH`` names)."""
    found = {path for key, path in sysconfig.get_paths().items()
             if key in ("stdlib", "platstdlib", "purelib", "platlib")}
    found.update(getattr(site, "getsitepackages", list)())
    if site.ENABLE_USER_SITE is not False:
        found.add(site.getusersitepackages())
    found.update(path for path in sys.path
                 if os.path.basename(path.rstrip(os.sep)) in ("site-packages", "dist-packages"))
    return tuple(sorted(os.path.join(path, "") for path in found if path))


LIBRARIES = _libraries()
"""Where the standard library and installed packages live (what is not there is the app's)."""

LEAF_TYPES: frozenset[type] = frozenset(
    {str, bytes, int, float, complex, bool, type(None), decimal.Decimal, fractions.Fraction,
     datetime.date, datetime.datetime, datetime.time, datetime.timedelta, uuid.UUID}
)
"""Values that reach no container (a ``slice``, whose bounds may be anything, does)."""

IMMUTABLE_TYPES: frozenset[type] = frozenset(
    {
        str, bytes, int, float, complex, bool, tuple, frozenset, range, type(None),
        decimal.Decimal, fractions.Fraction, datetime.date, datetime.datetime, datetime.time,
        datetime.timedelta, datetime.timezone, uuid.UUID, re.Pattern, re.Match, slice,
    }
)  # fmt: skip
"""Types whose values never change: every method on them is pure."""

MUTATES_ARGUMENT: dict[str, int] = {
    "random.shuffle": 0,
    "random.Random.shuffle": 0,
    "heapq.heappush": 0,
    "heapq.heappop": 0,
    "heapq.heapify": 0,
    "heapq.heapreplace": 0,
    "heapq.heappushpop": 0,
    "bisect.insort": 0,
    "bisect.insort_left": 0,
    "bisect.insort_right": 0,
    "builtins.object.__setattr__": 0,
    "builtins.object.__delattr__": 0,
}
"""Allow-listed functions that change one of their arguments (by position)."""

CHANGES_GLOBAL_STATE = frozenset({
    "random.seed", "random.Random.seed", "random.setstate", "random.Random.setstate",
    "decimal.setcontext", "time.tzset",
    "_csv.field_size_limit", "_csv.register_dialect", "_csv.unregister_dialect",
    # logging's configuration is the process's: a filter or a factory added runs later, for
    # every record, and logging switched off silences where refusals are told
    "logging.disable", "logging.setLoggerClass", "logging.setLogRecordFactory",
    "logging.captureWarnings", "logging.addLevelName", "logging.Logger.addFilter",
    "logging.Logger.removeFilter", "logging.Logger.removeHandler", "logging.Logger.setLevel",
    "logging.Filterer.addFilter", "logging.Filterer.removeFilter", "logging.Handler.addFilter",
    "logging.Handler.removeFilter", "logging.Handler.setLevel", "logging.Handler.setFormatter",
    "logging.RootLogger.addFilter", "logging.RootLogger.removeFilter",
    "logging.RootLogger.removeHandler", "logging.RootLogger.setLevel",
    "logging.LoggerAdapter.setLevel",
    # what other threads of the process wait on (a lock taken and let go in one `with` only
    # waits: above; taken or let go alone, it holds others back or lets them go)
    "threading.Event.set", "threading.Event.clear", "threading.Condition.notify",
    "threading.Condition.notify_all", "threading.Condition.acquire",
    "threading.Condition.release", "threading.Semaphore.acquire", "threading.Semaphore.release",
    "threading.BoundedSemaphore.release", "_thread.lock.acquire", "_thread.lock.release",
    "_thread.lock.acquire_lock", "_thread.lock.release_lock", "_thread.RLock.acquire",
    "_thread.RLock.release",
    # an abstract class's registry of virtual subclasses is the process's: ``isinstance`` answers
    # from it for every caller after
    "abc.ABCMeta.register", "abc.ABCMeta._abc_registry_clear", "abc.ABCMeta._abc_caches_clear",
    "abc.update_abstractmethods", "_abc._abc_register", "_abc._reset_registry",
    "_abc._reset_caches",
    # the week's first day every calendar of the module starts on; the overloads typing keeps
    "calendar.setfirstweekday", "typing.clear_overloads", "typing_extensions.clear_overloads",
})  # fmt: skip
"""Allow-listed functions that change the process's shared state."""

EVALUATES_TEXT = frozenset({
    "typing.get_type_hints", "typing_extensions.get_type_hints", "typing.ForwardRef._evaluate",
    "typing._eval_type",
})  # fmt: skip
"""Allow-listed functions that run text as code (annotations written as strings are evaluated):
what they do cannot be known from the code that calls them."""

STARTS_THREADS = frozenset({
    "threading.Thread", "threading.Thread.start", "threading.Timer",
    "_thread.start_new_thread", "_thread.start_new",
    "concurrent.futures.thread.ThreadPoolExecutor", "concurrent.futures.process.ProcessPoolExecutor",
    "concurrent.futures.thread.ThreadPoolExecutor.submit",
    "concurrent.futures.process.ProcessPoolExecutor.submit",
    "concurrent.futures.process.ProcessPoolExecutor.map", "concurrent.futures._base.Executor.map",
    "concurrent.futures._base.Executor.__enter__", "concurrent.futures._base.Executor.__exit__",
    "concurrent.futures.thread.ThreadPoolExecutor.shutdown",
    "concurrent.futures.process.ProcessPoolExecutor.shutdown",
})  # fmt: skip
"""Calls that start (or make what starts) a thread or a process of the app's: the code it runs
goes on where no hold sees it, and whatever it does cannot be known from here."""

WRITES_TO_STREAM: dict[str, tuple[str, int | None]] = {
    "builtins.print": ("file", None),
    "json.dump": ("fp", 1),
    "_csv.writer": ("csvfile", 0),
    "csv.DictWriter": ("f", 0),
}
"""Allow-listed functions that write to a stream they are given (by keyword, and position):
its own ``write`` is called, whatever the stream is."""

LOGS = frozenset(f"logging.{owner}{level}" for owner in ("", "Logger.", "LoggerAdapter.")
                 for level in ("debug", "info", "warning", "warn", "error", "exception", "critical",
                               "fatal", "log"))
"""Logging's calls: the values they are given are formatted into the message (``"%s"``), by
their classes' own code, as a handler takes the record."""

ABC_MIXIN_CALLS = ("__getitem__", "__setitem__", "__delitem__", "__iter__", "__len__",
                   "__contains__", "insert", "add", "discard", "keys", "__next__")
"""What a method ``collections.abc`` gives a class (``MutableMapping.update``, ``pop``…) calls of
the class's own methods: followed when the class defines them in Python."""

ABC_MIXIN_CALLS_OF: dict[str, tuple[str, ...]] = {
    "collections.abc.Mapping.get": ("__getitem__",),
    "collections.abc.Mapping.__contains__": ("__getitem__",),
}
"""The mixin methods whose code calls fewer than all of `ABC_MIXIN_CALLS`: ``Mapping.get`` and
``Mapping.__contains__`` are ``try: self[key]`` and nothing else (``Lib/_collections_abc.py``)."""

SPECIAL_METHODS_CALLED: dict[str, tuple[str, ...]] = {
    "builtins.str": ("__str__", "__repr__"),
    "builtins.repr": ("__repr__",),
    "builtins.ascii": ("__repr__",),
    "builtins.format": ("__format__", "__str__", "__repr__"),
    "builtins.len": ("__len__",),
    "builtins.bool": ("__bool__", "__len__"),
    "builtins.int": ("__int__", "__index__", "__trunc__"),
    "builtins.float": ("__float__", "__index__"),
    "builtins.complex": ("__complex__", "__float__", "__index__"),
    "builtins.bin": ("__index__",),
    "builtins.oct": ("__index__",),
    "builtins.hex": ("__index__",),
    "builtins.range": ("__index__",),
    "builtins.abs": ("__abs__",),
    "builtins.hash": ("__hash__",),
    "builtins.round": ("__round__",),
    "builtins.divmod": ("__divmod__",),
    "builtins.pow": ("__pow__",),
    "builtins.dir": ("__dir__",),
    "builtins.str.translate": ("__getitem__",),  # (each character looked up in the table)
    "builtins.next": ("__next__",),
    "builtins.iter": ("__iter__", "__getitem__"),
    "builtins.reversed": ("__reversed__", "__len__"),
    "math.floor": ("__floor__",),
    "math.ceil": ("__ceil__",),
    "math.trunc": ("__trunc__",),
    "operator.index": ("__index__",),
    "operator.length_hint": ("__len__", "__length_hint__"),
    "copy.copy": ("__copy__", "__reduce_ex__", "__reduce__"),
    "copy.deepcopy": ("__deepcopy__", "__reduce_ex__", "__reduce__"),
    "builtins.bytes": ("__bytes__", "__buffer__", "__iter__", "__index__"),
    "os.fspath": ("__fspath__",),
    "pathlib.Path": ("__fspath__",),
    "pathlib.PurePath": ("__fspath__",),
    "pathlib.PosixPath": ("__fspath__",),
    "pathlib.PurePosixPath": ("__fspath__",),
}
"""Allow-listed calls that run a special method of their first argument's class (``str(x)``
runs ``x.__str__``), each with the methods it may run, the first a class defines being run:
code of the app's that runs, so its effects count."""

_BINARY_OPERATORS = {"add": "add", "sub": "sub", "mul": "mul", "truediv": "truediv",
                     "floordiv": "floordiv", "mod": "mod", "pow": "pow", "matmul": "matmul",
                     "and_": "and", "or_": "or", "xor": "xor", "lshift": "lshift",
                     "rshift": "rshift", "concat": "add"}
_COMPARED = {"eq": "eq", "ne": "ne", "lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}
OPERATOR_METHODS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    **{f"operator.{name}": ((f"__{method}__",), (f"__r{method}__",))
       for name, method in _BINARY_OPERATORS.items()},
    **{f"operator.{name}": ((f"__{name}__",), (f"__{reflected}__",))
       for name, reflected in _COMPARED.items()},
    **{f"operator.{name}": ((f"__{method}__",), ())
       for name, method in (("neg", "neg"), ("pos", "pos"), ("invert", "invert"), ("inv", "invert"),
                            ("abs", "abs"))},
    "operator.truth": (("__bool__", "__len__"), ()),
    "operator.not_": (("__bool__", "__len__"), ()),
    "operator.contains": (("__contains__", "__iter__", "__getitem__"), ()),
    "operator.getitem": (("__getitem__",), ()),
    "operator.countOf": (("__iter__", "__getitem__"), ()),
    "operator.indexOf": (("__iter__", "__getitem__"), ()),
}
"""The operator module's functions that run an operator on what they are given: the special
methods of their first argument's class they may run (given the second), and of the second's
(given the first, reflected: ``operator.add(a, b)`` runs ``a.__add__(b)``, else
``b.__radd__(a)``)."""

ITERATES_ARGUMENTS: dict[str, tuple[int | None, tuple[str, ...]]] = {
    "builtins.list": (0, ()),
    "builtins.tuple": (0, ()),
    "builtins.set": (0, ("__hash__",)),
    "builtins.frozenset": (0, ("__hash__",)),
    "builtins.dict": (0, ("__hash__",)),
    "builtins.dict.fromkeys": (0, ("__hash__",)),
    "builtins.sorted": (0, ("__lt__", "__gt__")),  # (``a < b`` is ``b > a`` if a has none)
    "builtins.sum": (0, ("__radd__", "__add__")),
    "math.prod": (0, ("__rmul__", "__mul__")),
    "math.fsum": (0, ("__float__", "__index__")),
    "builtins.min": (None, ("__lt__", "__gt__")),
    "builtins.max": (None, ("__gt__", "__lt__")),
    "builtins.any": (0, ("__bool__", "__len__")),
    "builtins.all": (0, ("__bool__", "__len__")),
    "builtins.enumerate": (0, ()),
    "builtins.zip": (None, ()),
    "builtins.map": (None, ()),
    "builtins.filter": (1, ("__bool__", "__len__")),
    "builtins.str.join": (0, ()),
    "builtins.list.extend": (0, ()),
    "builtins.set.update": (None, ("__hash__",)),
    "collections.Counter": (0, ("__hash__",)),
    "collections.deque": (0, ()),
    "collections.OrderedDict": (0, ("__hash__",)),
    "heapq.nsmallest": (1, ("__lt__", "__gt__")),
    "heapq.nlargest": (1, ("__lt__", "__gt__")),
    "itertools.groupby": (0, ("__eq__",)),  # (each key compared with the one before)
}
"""Allow-listed calls that iterate over an argument (by position; None: every one, and of one
alone, its items: ``min(a, b)``, ``min(items)``), and the special method each item's class runs
as they do it (the first its class defines: sorting compares them, a set hashes them)."""

UNKNOWABLE_BUILTINS = frozenset({"eval", "exec", "compile", "__import__", "breakpoint", "input"})
"""Builtins whose effect cannot be known from the code."""

CALLS_CODE_IT_HOLDS = frozenset({
    types.FunctionType, types.MethodType, types.BuiltinFunctionType, types.MethodWrapperType,
    types.WrapperDescriptorType, types.MethodDescriptorType, types.ClassMethodDescriptorType,
    functools.partial, operator.methodcaller, collections.abc.Callable,
})
"""Types whose call runs code the object holds (a function, a bound method, a partial…): one
known only by its type, not as which object, may do anything when called."""

CALLBACK_POSITIONS: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {
    "builtins.map": ((0,), ()),
    "builtins.filter": ((0,), ()),
    "builtins.sorted": ((), ("key",)),
    "builtins.min": ((), ("key", "default")),
    "builtins.max": ((), ("key", "default")),
    "functools.reduce": ((0,), ()),
    "itertools.starmap": ((0,), ()),
    "itertools.takewhile": ((0,), ()),
    "itertools.dropwhile": ((0,), ()),
    "itertools.filterfalse": ((0,), ()),
    "itertools.groupby": ((1,), ("key",)),
    "itertools.accumulate": ((1,), ("func",)),
    "json.dumps": ((), ("default",)),
    "json.dump": ((), ("default",)),
    "json.loads": ((), ("object_hook", "object_pairs_hook", "parse_float", "parse_int",
                        "parse_constant")),
    "json.load": ((), ("object_hook", "object_pairs_hook", "parse_float", "parse_int",
                       "parse_constant")),
    "re.sub": ((1,), ("repl",)),
    "re.subn": ((1,), ("repl",)),
    "list.sort": ((), ("key",)),
}
"""Where an allow-listed function calls back into a function it is given."""

FRESH_RESULT_MODULES: tuple[str, ...] = (
    "re", "json", "math", "cmath", "string", "textwrap", "base64", "binascii", "hashlib", "hmac",
    "uuid", "datetime", "decimal", "fractions", "statistics", "unicodedata", "html",
    "urllib.parse", "shlex", "time", "calendar", "zoneinfo", "secrets", "struct", "difflib",
    "keyword", "os.path", "posixpath", "ntpath", "genericpath", "pathlib",
)  # fmt: skip
"""Allow-listed modules whose functions return new plain values, never what they were given."""


def gives_fresh(name: str) -> bool:
    """Whether the allow-listed function of this name returns a new plain value."""
    return any(name.startswith(m + ".") for m in FRESH_RESULT_MODULES)


RETURN_TYPES: dict[str, type] = {
    **{f"datetime.datetime.{made}": datetime.datetime for made in (
        "combine", "now", "utcnow", "today", "fromisoformat", "strptime", "fromtimestamp",
        "utcfromtimestamp", "fromordinal", "fromisocalendar")},
    **{f"datetime.date.{made}": datetime.date for made in (
        "today", "fromisoformat", "fromtimestamp", "fromordinal", "fromisocalendar")},
    **{f"io.StringIO.{read}": str for read in ("getvalue", "read", "readline")},
    **{f"io.BytesIO.{read}": bytes for read in ("getvalue", "read", "readline")},
    "decimal.getcontext": decimal.Context,
    "builtins.len": int,
    "builtins.str": str,
    "builtins.repr": str,
    "builtins.format": str,
    "builtins.int": int,
    "builtins.float": float,
    "builtins.bool": bool,
    "builtins.isinstance": bool,
    "builtins.issubclass": bool,
    "builtins.hasattr": bool,
    "builtins.callable": bool,
    "builtins.hash": int,
    "builtins.id": int,
    "builtins.ord": int,
    "builtins.chr": str,
    "builtins.sorted": list,
    "builtins.list": list,
    "builtins.dict": dict,
    "builtins.set": set,
    "builtins.tuple": tuple,
    "builtins.frozenset": frozenset,
    "builtins.bytes": bytes,
    "builtins.bytearray": bytearray,
    "builtins.range": range,
    "logging.getLogger": logging.Logger,
}
"""Known result types of builtins, so that methods on their results resolve."""


ITEMS_HANDED_ON = {"builtins.sorted": 0, "builtins.min": 0, "builtins.max": 0,
                   "builtins.map": 1, "builtins.filter": 1, "itertools.groupby": 0,
                   "functools.reduce": 1, "_functools.reduce": 1, "itertools.accumulate": 0,
                   "itertools.takewhile": 1, "itertools.dropwhile": 1,
                   "itertools.filterfalse": 1}
"""Allow-listed calls that hand the function they are given the items of an argument (by
position): what it is called with is known as well as those items are."""

ACCUMULATING = frozenset({"functools.reduce", "_functools.reduce", "itertools.accumulate"})
"""Of `ITEMS_HANDED_ON`, those handing back to the function what it gave (an accumulator),
started by what follows the items (``reduce(f, xs, start)``, ``accumulate(xs, f, initial=)``)."""


@lru_cache(maxsize=4096)
def matches_any(name: str, patterns: tuple[str, ...]) -> bool:
    """Whether `name` matches one of the shell-style `patterns`."""
    return any(fnmatchcase(name, p) for p in patterns)


def is_sink(name: str) -> bool:
    """Whether calling the thing of this qualified name reaches outside."""
    return bool(name) and matches_any(name, SINK_PATTERNS)


_OPERATOR_CHANGES = ("setitem", "delitem", "iadd", "iand", "iconcat", "ifloordiv", "ilshift",
                     "imatmul", "imod", "imul", "ior", "ipow", "irshift", "isub", "itruediv",
                     "ixor")
NOT_PURE_NAMES: frozenset[str] = frozenset(
    f"{module}.{name}" for module in ("operator", "_operator")
    for function in (*_OPERATOR_CHANGES, "methodcaller")
    for name in (function, f"__{function}__"))
"""What a module of `PURE_MODULES` has that does more than compute: operator's functions that
change their first argument (``a[b] = c``, ``del a[b]``, ``a += b`` in place) and
``methodcaller``, which calls a method named by a string (a session's ``delete`` as much as a
str's ``upper``)."""


_PURE_CLASSES = frozenset({"io.StringIO", "io.BytesIO"})
"""Allow-listed classes whose own methods only compute too (an app's subclass made, its
``__init__``; a buffer entered, its ``__enter__``)."""


@lru_cache(maxsize=4096)
def is_pure_name(name: str) -> bool:
    """Whether the thing of this qualified name only computes (the allow-list)."""
    if not name or name in NOT_PURE_NAMES:
        return False
    if name in PURE_NAMES or name.rsplit(".", 1)[0] in _PURE_CLASSES:
        return True
    if name.startswith("builtins."):
        rest = name.removeprefix("builtins.")
        head = rest.split(".", 1)[0]
        return head in PURE_BUILTINS or head in _PURE_BUILTIN_TYPES
    return any(name == m or name.startswith(m + ".") for m in PURE_MODULES if "*" not in m) or (
        matches_any(name, tuple(m for m in PURE_MODULES if "*" in m))
    )


def listed(table: frozenset[str], name: str) -> bool:
    """Whether `name` is in `table`, or is a method named by the class of the object it was
    called on (``logging.StreamHandler.setFormatter``) that `table` names by a class it
    inherits it from (``logging.Handler.setFormatter``)."""
    return name in table or any(n in table for n in _inherited(name))


@lru_cache(maxsize=4096)
def _inherited(name: str) -> tuple[str, ...]:
    """`name` (``module.Class.method``) named by each base class of ``Class`` (none when it
    names no class of a module already imported)."""
    parts = name.split(".")
    for at in range(len(parts) - 2, 0, -1):
        found: Any = sys.modules.get(".".join(parts[:at]))
        if found is None:
            continue
        for part in parts[at:-1]:
            found = getattr(found, part, None)
        if not isinstance(found, type):
            return ()
        return tuple(f"{base.__module__}.{base.__qualname__}.{parts[-1]}"
                     for base in found.__mro__[1:])
    return ()


# Every builtin type (exceptions included) only computes when made or when its methods are called;
# the methods that change the object are caught by MUTATING_METHODS.
_PURE_BUILTIN_TYPES = frozenset(t.__name__ for t in vars(builtins).values() if isinstance(t, type))


TEXT_METHOD_RESULTS: dict[str, type] = {
    **dict.fromkeys(("find", "rfind", "index", "rindex", "count"), int),
    **dict.fromkeys(("startswith", "endswith", "isdigit", "isalpha", "isalnum", "isspace",
                     "islower", "isupper", "istitle", "isnumeric", "isdecimal", "isascii",
                     "isidentifier", "isprintable"), bool),
}
"""The results of str and bytes methods that are not text of the same kind."""


def is_data_member(member: Any) -> bool:
    """Whether a class member is data (a value, a property) rather than a method."""
    if isinstance(member, property | types.GetSetDescriptorType | types.MemberDescriptorType):
        return True
    return not callable(member) and not isinstance(member, staticmethod | classmethod)
