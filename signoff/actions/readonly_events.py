"""What each audit event the read-only guard refuses says the guarded code tried (`BLOCKED`):
its words made of the event's arguments, or None where the event is let through after all."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

__all__ = ["BLOCKED"]


def _name(path: object) -> str:
    if isinstance(path, int):
        return f"file descriptor {path}"
    if isinstance(path, bytes):
        return os.fsdecode(path)
    return str(path)


def _address(address: object) -> str:
    if isinstance(address, tuple) and len(address) >= 2:
        host, port = address[0], address[1]
        return f"[{host}]:{port}" if ":" in str(host) else f"{host}:{port}"
    if isinstance(address, bytes):
        return os.fsdecode(address)
    return str(address)


_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def _open(args: tuple[Any, ...]) -> str | None:
    path, mode, flags = args[0], args[1], args[2]
    writes = isinstance(flags, int) and bool(flags & _WRITE_FLAGS)
    if isinstance(mode, str):
        writes = writes or any(letter in mode for letter in "wax+")
    return f"open {_name(path)} for writing" if writes else None


def _program(args: tuple[Any, ...]) -> str | None:
    executable, argv = args[0], args[1]
    if executable is None:
        executable = argv if isinstance(argv, str | bytes | os.PathLike) else next(iter(argv), "?")
    return f"start the program {_name(executable)}"


def _send(args: tuple[Any, ...]) -> str | None:
    # A send without an address goes over a connection made before (its connect was guarded).
    return None if args[1] is None else f"send to {_address(args[1])}"


def _sqlite_connect(args: tuple[Any, ...]) -> str | None:
    # A connection SQLAlchemy's pool opens is restricted as it is checked out (_restrict_if_guarded);
    # one the query opens itself is not signoff's to restrict, so it is refused.
    frame: FrameType | None = sys._getframe(2)
    while frame is not None:
        if frame.f_globals.get("__name__", "").startswith("sqlalchemy.pool."):
            return None
        frame = frame.f_back
    return f"open the SQLite database {_name(args[0])} itself"


def _connect_host(kind: str) -> Callable[[tuple[Any, ...]], str]:
    return lambda args: f"connect to {kind}{args[1]}:{args[2]}"


BLOCKED: dict[str, Callable[[tuple[Any, ...]], str | None]] = {
    # files
    "open": _open,
    "os.remove": lambda a: f"delete {_name(a[0])}",
    "os.rename": lambda a: f"rename {_name(a[0])} to {_name(a[1])}",
    "os.rmdir": lambda a: f"remove the directory {_name(a[0])}",
    "os.mkdir": lambda a: f"create the directory {_name(a[0])}",
    "os.truncate": lambda a: f"truncate {_name(a[0])}",
    "os.chmod": lambda a: f"change the permissions of {_name(a[0])}",
    "os.chown": lambda a: f"change the owner of {_name(a[0])}",
    "os.chflags": lambda a: f"change the flags of {_name(a[0])}",
    "os.lchflags": lambda a: f"change the flags of {_name(a[0])}",
    "os.link": lambda a: f"link {_name(a[1])} to {_name(a[0])}",
    "os.symlink": lambda a: f"make the symbolic link {_name(a[1])}",
    "os.utime": lambda a: f"change the timestamps of {_name(a[0])}",
    "os.setxattr": lambda a: f"set the attribute {a[1]} of {_name(a[0])}",
    "os.removexattr": lambda a: f"remove the attribute {a[1]} of {_name(a[0])}",
    "shutil.copyfile": lambda a: f"copy {_name(a[0])} to {_name(a[1])}",
    "shutil.copymode": lambda a: f"copy the permissions of {_name(a[0])} to {_name(a[1])}",
    "shutil.copystat": lambda a: f"copy the permissions of {_name(a[0])} to {_name(a[1])}",
    "shutil.copytree": lambda a: f"copy the directory {_name(a[0])} to {_name(a[1])}",
    "shutil.move": lambda a: f"move {_name(a[0])} to {_name(a[1])}",
    "shutil.rmtree": lambda a: f"delete the directory {_name(a[0])} and all it holds",
    "shutil.chown": lambda a: f"change the owner of {_name(a[0])}",
    "shutil.make_archive": lambda a: f"make the archive {_name(a[0])}",
    "shutil.unpack_archive": lambda a: f"unpack {_name(a[0])}",
    # processes
    "subprocess.Popen": _program,
    "os.system": lambda a: f"run the shell command {_name(a[0])!r}",
    "os.exec": lambda a: f"replace this process with the program {_name(a[0])}",
    "os.spawn": lambda a: f"start the program {_name(a[1])}",
    "os.posix_spawn": lambda a: f"start the program {_name(a[0])}",
    "os.fork": lambda a: "fork this process",
    "os.forkpty": lambda a: "fork this process",
    "os.kill": lambda a: f"send signal {a[1]} to process {a[0]}",
    "os.killpg": lambda a: f"send signal {a[1]} to process group {a[0]}",
    "os.startfile": lambda a: f"open {_name(a[0])} with its application",
    # the network
    "socket.connect": lambda a: f"connect to {_address(a[1])}",
    "socket.bind": lambda a: f"bind a socket to {_address(a[1])}",
    "socket.sendto": _send,
    "socket.sendmsg": _send,
    "socket.sethostname": lambda a: "change the host name",
    "urllib.Request": lambda a: f"request {a[0]}",
    "http.client.connect": _connect_host(""),
    "smtplib.connect": _connect_host("the mail server "),
    "ftplib.connect": _connect_host("the FTP server "),
    "imaplib.open": _connect_host("the mail server "),
    "poplib.connect": _connect_host("the mail server "),
    "nntplib.connect": _connect_host("the news server "),
    "telnetlib.open": _connect_host(""),
    "webbrowser.open": lambda a: f"open {a[0]} in a web browser",
    # native code
    "ctypes.dlopen": lambda a: f"load the native library {a[0]}",
    "ctypes.dlsym": lambda a: f"look up the native function {a[1]}",
    "ctypes.dlsym/handle": lambda a: f"look up the native function {a[1]}",
    "ctypes.call_function": lambda a: "call a native function through ctypes",
    "ctypes.cdata": lambda a: "reach raw memory through ctypes",
    "sqlite3.connect": _sqlite_connect,
    "sqlite3.enable_load_extension": lambda a: "enable SQLite extensions" if a[1] else None,
    "sqlite3.load_extension": lambda a: f"load the SQLite extension {_name(a[1])}",
}
"""Audit events refused while guarded: each says what the query tried, or None to let it be."""
