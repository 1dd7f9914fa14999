"""The names the analysis knows code by, and whose code it is: a function's, a class's or a
method's qualified name (``"module.Class.method"``), believed only where the code is the
library's it names (a name the app's code gives itself is not taken at its word); whether a
class's special method is Python code that runs (`defines`), and which functions a
``singledispatch`` function may run (`dispatched`)."""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import functools
import inspect
import os
import sys
import types
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from signoff.effects.tables import LIBRARIES

_ALIASES = {"posix": "os", "nt": "os", "_io": "io", "_socket": "socket", "_ssl": "ssl",
            "_functools": "functools", "_operator": "operator", "_collections": "collections",
            "_heapq": "heapq", "_bisect": "bisect", "_json": "json", "_datetime": "datetime",
            "_decimal": "decimal", "_random": "random", "_statistics": "statistics",
            "_string": "string", "_struct": "struct", "_sha256": "hashlib", "_md5": "hashlib"}


def module_name(module: str) -> str:
    """The public name of a module whose objects report a private one (``posix`` → ``os``)."""
    return _ALIASES.get(module, module)


def qualified_name(obj: Any) -> str:
    """The qualified name of a function, class or method: ``"module.Class.method"``."""
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    qual = read_safely(obj, "__qualname__") or read_safely(obj, "__name__")
    if not isinstance(qual, str):
        return ""
    module = read_safely(obj, "__module__")
    if not isinstance(module, str):
        owner = read_safely(obj, "__objclass__") or read_safely(obj, "__self__")
        module = read_safely(owner, "__module__")
    if not isinstance(module, str):
        return qual
    if _claims_library(module):  # (the app's code may say it is a library's: where it is)
        written = written_in(obj)
        if written is not None:
            return f"{written}:{qual}"
        func = obj.__func__ if isinstance(obj, types.MethodType) else obj
        if isinstance(func, types.FunctionType) and _claimed_falsely(func, module, qual):
            return f"{func.__code__.co_filename}:{qual}"
    return f"{module_name(module)}.{qual}"


_PLAIN_KINDS = frozenset({type, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
                          types.ModuleType, types.MethodDescriptorType, types.WrapperDescriptorType,
                          types.MethodWrapperType, types.ClassMethodDescriptorType,
                          type(None), property, staticmethod, classmethod, functools.partial})


def read_safely(obj: Any, name: str) -> Any:
    """``obj.name``, or None where reading it would run code of the app's: its class's own
    ``__getattr__`` or ``__getattribute__``, a descriptor of it (a property). The analysis reads
    code; it never runs what it reads."""
    kind = type(obj)
    if kind not in _PLAIN_KINDS:
        try:
            read = _SAFE_READS.setdefault(kind, {})
        except TypeError:  # (a class no weak reference can be made to: not kept)
            read = {}
        safe = read.get(name)
        if safe is None:
            safe = read[name] = _read_runs_nothing(kind, name)
        if not safe:
            return None
    try:
        return getattr(obj, name, None)
    except Exception:  # (one that refuses to be read: none)
        return None


_SAFE_READS: weakref.WeakKeyDictionary[type, dict[str, bool]] = weakref.WeakKeyDictionary()
"""What `_read_runs_nothing` found, by class and name (a class let go of is forgotten)."""


def _read_runs_nothing(kind: type, name: str) -> bool:
    """Whether reading `name` of an object of `kind` runs no code of the app's (`read_safely`)."""
    try:
        hooks = [inspect.getattr_static(kind, hook, None) for hook in (
            "__getattr__", "__getattribute__", name)]
    except Exception:  # (a class whose look-up fails: not read)
        return False
    return not any(isinstance(hook, types.FunctionType) for hook in hooks[:2]) and (
        hooks[2] is None or isinstance(hooks[2], str | types.GetSetDescriptorType
                                       | types.MemberDescriptorType))


def written_in(obj: Any) -> str | None:
    """The file of the app's own code `obj` is (a function, or a class with methods), when it
    is written in a file outside the standard library and the installed packages; else None."""
    if isinstance(obj, types.FunctionType):
        return _outside_libraries(obj.__code__.co_filename)
    if not isinstance(obj, type):
        return None
    try:
        return _CLASS_FILES[obj]
    except (KeyError, TypeError):
        pass
    # (its own methods or those it inherits, of any kind: a class with none of its own may
    # derive the app's, and say it is of another module)
    functions = [f for klass in obj.__mro__ if not of_builtins(klass)
                 for member in vars(klass).values() for f in _functions_of(member)]
    found = next((written for f in functions
                  if (written := _outside_libraries(f.__code__.co_filename))), None)
    with contextlib.suppress(TypeError):
        _CLASS_FILES[obj] = found
    return found


def _claimed_falsely(func: types.FunctionType, module: str, qual: str) -> bool:
    """Whether `func`, which says it is of the library module `module` and whose code says it
    is written in a library (or was made by one, ``<string>``), is not that library's: its
    namespace is not a loaded library module's (code compiled with a library's file name, or
    run by ``exec`` in a namespace of the app's), or its own module gives its name to another
    function. (A library may name its function by its public module: it is looked up in its
    own.)"""
    home = _home_of(func.__globals__)
    if home is None or not _claims_library(home):
        return True
    if "<" in qual:  # (a function a function of the library made)
        return False
    found: Any = sys.modules[home]
    for part in qual.split("."):
        owners = found.__mro__ if isinstance(found, type) else (found,)
        namespaces = [vars(owner) for owner in owners if hasattr(owner, "__dict__")]
        found = next((ns[part] for ns in namespaces if part in ns), None)
        if found is None:
            return True  # (a name its module does not have)
    while True:  # (the function it names, or one that wraps it)
        if func in _functions_of(found):
            return False
        found = read_safely(found, "__wrapped__")
        if found is None:
            return True


def _home_of(namespace: dict[str, Any]) -> str | None:
    """The name of the loaded module whose namespace `namespace` is (a function's globals);
    None when it is none's."""
    spec = namespace.get("__spec__")  # (a module may rename itself: its spec keeps the name)
    for name in (namespace.get("__name__"), getattr(spec, "name", None)):
        loaded = sys.modules.get(name) if isinstance(name, str) else None
        if loaded is not None and getattr(loaded, "__dict__", None) is namespace:
            return name
    return None


def _functions_of(member: Any) -> list[types.FunctionType]:
    """The functions a class member is or holds (a static or class method's, a property's
    accessors, a cached property's)."""
    held = [read_safely(member, name) for name in ("__func__", "fget", "fset", "fdel", "func")]
    return [f for f in [member, *held] if isinstance(f, types.FunctionType)]


def _outside_libraries(filename: str) -> str | None:
    """`filename`, when it is a file outside the standard library and the installed packages
    (not code a library generated, written ``<string>``); else None."""
    return None if filename.startswith((*LIBRARIES, "<")) else filename


_CLASS_FILES: weakref.WeakKeyDictionary[type, str | None] = weakref.WeakKeyDictionary()
"""The file of each class's own methods, where it is the app's (`written_in`)."""


@functools.cache
def _claims_library(module: str) -> bool:
    """Whether `module` names a module of the standard library or an installed package (one
    the allow-lists may trust), as loaded in this process (asked once a name)."""
    loaded = sys.modules.get(module)
    if loaded is None:  # (a module of a library's package not loaded, or none at all)
        top = module.partition(".")[0]
        return top in sys.stdlib_module_names or (top != module and _claims_library(top))
    filename = getattr(loaded, "__file__", None)
    return filename is None or str(filename).startswith(LIBRARIES)


def of_builtins(cls: type) -> bool:
    """Whether `cls` is one of Python's builtin classes: written in C, never a class of the
    app's, whatever its ``__module__`` says."""
    return cls.__module__ == "builtins" and not cls.__flags__ & _HEAP_TYPE


_HEAP_TYPE = 1 << 9
"""``Py_TPFLAGS_HEAPTYPE``: set on every class made by a ``class`` statement."""


_TRUSTED_CODE = (str(Path(__file__).resolve().parents[1]) + os.sep, *LIBRARIES)
"""Where signoff's own code and the libraries' are: code a class of theirs runs only computes
(`defines`), where it is written there (a class of the app's may say it is of their modules)."""


def defines(cls: type, name: str) -> bool:
    """Whether `cls` runs Python code of the app's (or a third party's) for special method
    `name`: signoff's own classes and builtins' slots only compute."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            found = klass.__dict__[name]
            if not inspect.isfunction(found) or generated(klass, found):
                return False
            module = getattr(klass, "__module__", "") or ""  # (as its code's file says too:
            trusted = module == "builtins" or module.startswith(("signoff.", "pydantic", "enum"))
            return not (trusted and found.__code__.co_filename.startswith(_TRUSTED_CODE)
                        and str(found.__globals__.get("__name__", "")).startswith(
                            ("signoff.", "pydantic", "enum")))
    return False


def generated(cls: type, func: Any) -> bool:
    """Whether `func` is a special method a dataclass (or attrs, or ``namedtuple``) wrote for
    `cls` from its fields (``__eq__``, ``__hash__``, ``__repr__``…): it only compares, hashes or
    shows them (what that runs of the fields' classes: `field_methods`)."""
    filename = func.__code__.co_filename
    if filename.startswith("<attrs generated") or (
            issubclass(cls, tuple) and filename == collections.__file__) or (
            ordered_from(func) is not None):  # (``functools.total_ordering``'s: of the class's)
        return True
    return dataclasses.is_dataclass(cls) and filename in ("<string>", dataclasses.__file__)


def ordered_from(func: Any) -> str | None:
    """The comparison ``functools.total_ordering`` wrote `func` from (``_ge_from_lt``: "__lt__"),
    or None for any other function."""
    code = getattr(func, "__code__", None)  # (it is renamed: its code keeps its own name)
    name = code.co_name if code is not None else ""
    if getattr(func, "__module__", None) != "functools" or "_from_" not in name:
        return None
    return f"__{name.rpartition('_from_')[2]}__"


def dispatched(fn: Any) -> list[Any]:
    """The functions a ``functools.singledispatch`` function `fn` may run, by the type of what
    it is given: those registered for each (none, for any other function)."""
    held = fn.__dict__ if isinstance(fn, types.FunctionType) else {}
    registry = held.get("registry") if "dispatch" in held else None
    return list(dict.fromkeys(registry.values())) if isinstance(registry, Mapping) else []
