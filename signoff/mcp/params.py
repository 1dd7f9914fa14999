"""A client's request whose params do not fit, told in a sentence saying what to send.

The SDK answers every such request ``Invalid request parameters`` with nothing more (pydantic's
words may quote what the client sent), and a tool call whose arguments are a text holding JSON
— a careless client's double encoding — the same: its caller cannot tell what to change. Here
each is answered with the JSON-RPC error the SDK would give (invalid params), its message
saying where the params went wrong and what they must be, in words that quote nothing the
client sent but the tool's name (cut short). Nothing is run for such a request, and nothing proposed.

A message that gives a member twice in one object (``"price": 1, "price": 2``) is refused before
the SDK reads it (`given_twice_error`), by the transport, over stdio and HTTP alike: the SDK's
parser keeps the last value given, and such a call ran at 2, the 1 lost without a word.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, INVALID_REQUEST, ErrorData, JSONRPCError
from pydantic import ValidationError

from signoff.actions.model_json import given_twice
from signoff.actions.problems import cut_short

__all__ = ["ParamsInWords", "call_params_problem", "given_twice_error"]

_NOTHING_RAN = "Nothing was run, and nothing was proposed."

_KINDS = {bool: "true or false", int: "a number", float: "a number", str: "a text",
          list: "a list", type(None): "null"}
"""What JSON a value holds, in words."""


def call_params_problem(params: Any) -> str:
    """What is wrong with the params of a ``tools/call`` request, in a sentence saying what to
    send ("" when their shape fits: the tool's own arguments are checked by the call)."""
    if not isinstance(params, dict):
        return ("A tools/call request's params are an object: the tool's name under \"name\" "
                f"and its arguments under \"arguments\", not {_kind(params)}. {_NOTHING_RAN}")
    name = params.get("name")
    if not isinstance(name, str) or not name:
        return ("A tools/call request names its tool under params.name, as text (tools/list "
                f"says the names): {'none was given' if name is None else f'not {_kind(name)}'}"
                f". {_NOTHING_RAN}")
    arguments = params.get("arguments")
    if arguments is None or isinstance(arguments, dict):
        return ""
    if isinstance(arguments, str) and _holds_object(arguments):
        return (f"The arguments of {_named(name)} are a JSON object, not a text holding one: "
                "send params.arguments as the object itself ({\"note\": \"…\"}, not "
                f"\"{{\\\"note\\\": …}}\"). {_NOTHING_RAN}")
    return (f"The arguments of {_named(name)} are an object, each argument under its name "
            f"(the tool's input schema names them), not {_kind(arguments)}. {_NOTHING_RAN}")


def given_twice_error(message: str | bytes) -> JSONRPCError | None:
    """The error answering a JSON-RPC message (its text) that gives a member twice in one
    object, saying which and where: invalid params when it is in the params, else an invalid
    request; with the request's id, when one can be read. None when each member is given once,
    or the text is no JSON (the SDK's parser tells that)."""
    found = given_twice(message)
    if found is None:
        return None
    member, path = found
    read = json.loads(message)  # (as the SDK would read it: the last value given)
    method = read.get("method") if isinstance(read, dict) else None
    params = read.get("params") if isinstance(read, dict) else None
    name = params.get("name") if isinstance(params, dict) else None
    once = ("give each member once, with the one value meant. "
            f"{_NOTHING_RAN if method == 'tools/call' else 'Nothing was done.'}")
    twice = f"“{cut_short(member)}” twice in one object"
    if (method == "tools/call" and isinstance(name, str) and len(path) > 2
            and path[:2] == ("params", "arguments")):
        code, said = INVALID_PARAMS, (f"The arguments of {_named(name)} give {twice} "
                                      f"({cut_short('.'.join(path[2:]))}): {once}")
    elif path[0] == "params" and isinstance(method, str):
        code, said = INVALID_PARAMS, (f"The params of this {cut_short(method, 40)} request "
                                      f"give {twice} ({cut_short('.'.join(path))}): {once}")
    else:
        code, said = INVALID_REQUEST, (f"This message gives {twice} "
                                       f"({cut_short('.'.join(path))}): {once}")
    ident = read.get("id") if isinstance(read, dict) and path != ("id",) else None
    if isinstance(ident, bool) or not isinstance(ident, (int, str)):
        ident = None
    return JSONRPCError(jsonrpc="2.0", id=ident, error=ErrorData(code=code, message=said))


class ParamsInWords(ServerMiddleware[Any]):
    """Middleware answering a request whose params do not fit with what to send instead (see
    the module): ``tools/call`` checked first, in `call_params_problem`'s words; any other
    refused by the SDK's check told where, and what was expected there."""

    async def __call__(self, ctx: ServerRequestContext[Any, Any],
                       call_next: CallNext) -> HandlerResult:
        if ctx.request_id is None:  # (a notification: nobody is answered)
            return await call_next(ctx)
        if ctx.method == "tools/call":
            problem = call_params_problem(ctx.params)
            if problem:
                raise MCPError(code=INVALID_PARAMS, message=problem)
        try:
            return await call_next(ctx)
        except ValidationError as error:
            raise MCPError(code=INVALID_PARAMS, message=_in_words(ctx.method, error)) from None


def _in_words(method: str, error: ValidationError) -> str:
    """Where the params of a `method` request went wrong, and what was expected there (pydantic's
    message, which names the kind expected; never the value given)."""
    problems = error.errors(include_url=False, include_input=False, include_context=False)
    if not problems:
        return f"The params of this {method} request do not fit what MCP says of it."
    first = problems[0]
    where = ".".join(str(part) for part in first["loc"] if part not in ("params",))
    said = str(first["msg"]).rstrip(".")
    at = f"params.{where}" if where else "its params"
    return (f"The params of this {method} request do not fit what MCP says of it: at {at}, "
            f"{said[:1].lower()}{said[1:]}. Send it again as the protocol's schema says.")


def _holds_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except (ValueError, RecursionError):
        return False


def _kind(value: Any) -> str:
    return "an object" if isinstance(value, dict) else _KINDS.get(type(value), "such a value")


def _named(name: str) -> str:
    """A tool's name as a sentence quotes it (a name of a client's making, cut short)."""
    return json.dumps(name[:60] + ("…" if len(name) > 60 else ""), ensure_ascii=False)
