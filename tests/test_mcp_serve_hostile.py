"""``signoff mcp serve`` facing a careless or hostile client: params that do not fit told in a
sentence saying what to send, and a record the person may not read answered as one that is not
there. Real servers (a subprocess over stdio and streamable HTTP on loopback), the SDK's client
or raw JSON-RPC lines."""

from __future__ import annotations

import json
import runpy
import uuid
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import httpx
import pytest

from signoff.security.credentials import TokenPurpose
from tests.mcp_servers import (
    ROOT,
    TRANSPORTS,
    connected,
    environment,
    free_port,
    http_server,
    stdio_answers,
    workshop_served,
)

_INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "raw", "version": "1"}}}


def _raw_stdio(arguments: list[str], env: dict[str, str], lines: list[Any],
               last: int) -> list[dict[str, Any]]:
    """Send `lines` (after the handshake) to ``signoff …`` over stdio; its answers, once the
    one to request `last` has come."""
    return stdio_answers(arguments, env, [
        _INITIALIZE, {"jsonrpc": "2.0", "method": "notifications/initialized"}, *lines],
        last=last)


def _call(ident: int, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": params}


def test_call_params_that_do_not_fit_are_told_what_to_send(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Over stdio, a tools/call whose arguments are a text holding the JSON object, a list, or
    whose tool is not named as text, and a tools/list whose cursor is a number, are each
    answered with an invalid-params error saying what to send (each was "Invalid request
    parameters", and nothing more); nothing ran, and the same call sent right then runs. Over
    HTTP, on the protocol that keeps no sessions, the text-held arguments are told the same."""
    shop = workshop_served(tmp_path, monkeypatch)
    env, serve = shop.env, [*shop.serve, "--wait", "0"]
    arguments = {"repair": str(shop.repair.id), "note": "Pads and a cable."}
    answers = _raw_stdio([*serve, "--for", "noor@workshop.example"], env, [
        _call(1, {"name": "note_repair", "arguments": json.dumps(arguments)}),
        _call(2, {"name": "note_repair", "arguments": [arguments]}),
        _call(3, {"name": 7, "arguments": arguments}),
        _call(4, {"arguments": arguments}),
        {"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {"cursor": 5}},
        _call(6, {"name": "note_repair", "arguments": arguments}),
    ], last=6)
    told = {a["id"]: a.get("error") for a in answers if a.get("id")}
    assert all(told[i]["code"] == -32602 for i in range(1, 6)), told
    said = {i: told[i]["message"] for i in range(1, 6)}
    assert said[1] == (
        "The arguments of \"note_repair\" are a JSON object, not a text holding one: send "
        "params.arguments as the object itself ({\"note\": \"…\"}, not \"{\\\"note\\\": …}\"). "
        "Nothing was run, and nothing was proposed.")
    assert said[2] == (
        "The arguments of \"note_repair\" are an object, each argument under its name (the "
        "tool's input schema names them), not a list. Nothing was run, and nothing was "
        "proposed.")
    assert said[3].startswith("A tools/call request names its tool under params.name, as text")
    assert "not a number" in said[3]
    assert "none was given" in said[4]
    assert said[5] == ("The params of this tools/list request do not fit what MCP says of it: "
                       "at params.cursor, input should be a valid string. Send it again as the "
                       "protocol's schema says.")
    assert told[6] is None  # sent right, it ran
    assert not shop.app.proposals()

    port = free_port()
    with http_server([*serve, "--http", f"127.0.0.1:{port}"], env, port) as url:
        response = httpx.post(f"{url}/mcp", timeout=60, headers={
            "Authorization": f"Bearer {shop.clients['Noor']}", "MCP-Protocol-Version":
            "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "note_repair",
            "Accept": "application/json, text/event-stream"},
            json=_call(9, {"name": "note_repair", "arguments": json.dumps(arguments), "_meta": {
                "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}}}))
    assert response.json()["error"]["message"] == said[1]


@pytest.fixture
def memos(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """The memos app (`tests.mcp_memos`) in a SQLite file the served process shares: the boss's
    memo, and a clerk with a client's token, who may read no memo."""
    database = f"sqlite:///{tmp_path / 'memos.db'}"
    monkeypatch.setenv("MEMOS_DATABASE", database)
    namespace = runpy.run_path(str(ROOT / "tests" / "mcp_memos.py"), run_name="mcp_memos")
    memos = SimpleNamespace(**namespace, **namespace["setup"]())
    memos.token = memos.app.credentials.issue_token(memos.clerk, "tests' client",
                                                    purpose=TokenPurpose.CLIENT)
    memos.env = environment(MEMOS_DATABASE=database)
    return memos


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_record_the_person_may_not_read_is_answered_as_one_not_there(
        memos: SimpleNamespace, transport: str) -> None:
    """Served for a clerk, who may read no memo (the agent may): a call naming the boss's memo
    is answered word for word as one naming a memo that does not exist, the id aside — the read
    that runs alone does not run (its title was told to the clerk's client), and the retitle
    that would be proposed is not (the proposal told the client the memo exists)."""
    arguments = ["mcp", "serve", "--app", "tests/mcp_memos.py", "--agent", "keeper",
                 "--wait", "0"]
    if transport == "stdio":
        arguments += ["--for", "clerk@memos.example"]
    memo, nowhere = str(memos.memo.id), str(uuid.uuid4())

    async def scenario() -> dict[tuple[str, str], Any]:
        told = {}
        async with connected(transport, arguments, memos.env, token=memos.token) as client:
            for tool, extra in (("read_memo", {}), ("retitle", {"title": "Nothing"})):
                for which, ident in (("memo", memo), ("nowhere", nowhere)):
                    told[tool, which] = await client.call_tool(tool, {"memo": ident, **extra})
        return told

    told = anyio.run(scenario)
    for tool in ("read_memo", "retitle"):
        secret, absent = told[tool, "memo"], told[tool, "nowhere"]
        assert secret.is_error
        assert absent.is_error
        assert secret.content[0].text.replace(memo, "ID") == (
            absent.content[0].text.replace(nowhere, "ID"))
        assert secret.content[0].text.startswith("Gone: No Memo with id")
        assert "Layoffs" not in secret.content[0].text
    assert not memos.app.proposals()
    with memos.app.session(as_=memos.boss) as s:
        assert s.get(memos.Memo, memos.memo.id).title == "Layoffs"


def test_a_person_who_may_read_the_record_is_served_as_ever(memos: SimpleNamespace) -> None:
    """Served for the boss, who may read the memo: the read runs alone and tells its title,
    and the retitle is proposed to her."""
    arguments = ["mcp", "serve", "--app", "tests/mcp_memos.py", "--agent", "keeper",
                 "--wait", "0", "--for", "boss@memos.example"]

    async def scenario() -> tuple[Any, Any]:
        async with connected("stdio", arguments, memos.env) as client:
            read = await client.call_tool("read_memo", {"memo": str(memos.memo.id)})
            retitled = await client.call_tool("retitle", {"memo": str(memos.memo.id),
                                                          "title": "Plans"})
        return read, retitled

    read, retitled = anyio.run(scenario)
    assert not read.is_error
    assert read.structured_content == {"result": "Layoffs"}
    assert not retitled.is_error
    assert retitled.structured_content["decide_by"] == "Bo"
    (proposal,) = memos.app.proposals()
    assert proposal.action == "retitle"


def test_a_long_why_and_a_long_made_up_name_are_cut(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A client's why of 100,000 characters becomes the proposal's first 4,000, saying the rest
    is left out (it was kept whole, for the person to read and the receipt to hold); a made-up
    tool name of 10,000 characters is told back cut (it was echoed whole)."""
    shop = workshop_served(tmp_path, monkeypatch)
    env, arguments = shop.env, [*shop.serve, "--for", "noor@workshop.example"]

    async def scenario() -> Any:
        async with connected("stdio", arguments, env) as client:
            await client.call_tool("set_price", {"repair": str(shop.repair.id), "price": 45},
                                   meta={"signoff/wait": 0, "signoff/why": "w" * 100_000})
            return await client.call_tool("n" * 10_000, {})

    made_up = anyio.run(scenario)
    (proposal,) = shop.app.proposals()
    assert proposal.why == ("w" * 4000 + "… [the client's why had 100,000 characters: the rest "
                            "is left out]")
    assert made_up.is_error
    assert made_up.content[0].text == (f"There is no tool named {'n' * 80}… that you may use "
                                       "here. Nothing was run, and nothing was proposed.")


def test_over_http_a_body_that_is_no_json_is_told_what_to_send(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Over HTTP, a POST whose body is not JSON, or is nested 5,000 deep, is answered 400 with
    a JSON-RPC parse error saying what to send (the SDK said "Parse error", and no more); a
    request sent right then is answered as ever."""
    shop = workshop_served(tmp_path, monkeypatch)
    port = free_port()
    headers = {"Authorization": f"Bearer {shop.clients['Noor']}", "Content-Type":
               "application/json", "Accept": "application/json, text/event-stream"}
    with http_server([*shop.serve, "--http", f"127.0.0.1:{port}"], shop.env, port) as url:
        told = [httpx.post(f"{url}/mcp", headers=headers, content=body, timeout=60)
                for body in ("{this is not JSON", '{"jsonrpc": "2.0", "id": 1, "method": '
                             f'"ping", "params": {{"x": {"[" * 5000 + "]" * 5000}}}}}')]
        initialized = httpx.post(f"{url}/mcp", headers=headers, timeout=60, json=_INITIALIZE)
    for answer in told:
        assert answer.status_code == 400
        assert answer.headers["content-length"] == str(len(answer.content))
        assert answer.json()["error"] == {
            "code": -32700, "message": "Parse error: the request's body is not JSON, or is "
            "nested too deep to read. Send one JSON-RPC message, a JSON object, as the body of "
            "the POST."}
    assert initialized.status_code == 200
    assert "workshop-estimator" in initialized.text


def _given_twice(ident: int, tool: str, repair: str, member: str) -> str:
    """A tools/call line whose arguments give `member` twice (a price 1 then 2, any other
    "first" then "second")."""
    first, second = ("1", "2") if member == "price" else ('"first"', '"second"')
    return (f'{{"jsonrpc": "2.0", "id": {ident}, "method": "tools/call", "params": {{"name": '
            f'"{tool}", "arguments": {{"repair": "{repair}", "{member}": {first}, "{member}": '
            f'{second}}}}}}}')


def _note(shop: SimpleNamespace) -> str:
    with shop.app.session(as_=shop.app.system) as s:
        return str(s.get(shop.Repair, shop.repair.id).note)


def test_a_call_giving_a_member_twice_or_no_utf8_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Over stdio, a tools/call whose arguments give a member twice is answered with an
    invalid-params error naming it (the last value was taken: a price of 1, then 2, was proposed
    at 2), and a line that is no UTF-8 with a parse error (its \\xff was kept as U+FFFD, and
    "Noted"); nothing is proposed or stored, and the same call sent right then runs. Over HTTP,
    a body giving a member twice is refused alike (the note was stored as "second")."""
    shop = workshop_served(tmp_path, monkeypatch)
    env, serve = shop.env, [*shop.serve, "--wait", "0"]
    repair = str(shop.repair.id)
    not_utf8 = ('{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": '
                f'"note_repair", "arguments": {{"repair": "{repair}", "note": "Too dear '
                ).encode() + b'\xff\xfe"}}}'
    answers = _raw_stdio([*serve, "--for", "noor@workshop.example"], env, [
        _given_twice(1, "set_price", repair, "price"),
        _given_twice(2, "note_repair", repair, "note"),
        not_utf8,
        _call(4, {"name": "note_repair", "arguments": {"repair": repair, "note": "Pads."}}),
    ], last=4)
    told = {a["id"]: a.get("error") for a in answers if a.get("id")}
    assert told[1] == {"code": -32602, "message": (
        "The arguments of \"set_price\" give “price” twice in one object (price): give each "
        "member once, with the one value meant. Nothing was run, and nothing was proposed.")}
    assert told[2] == {"code": -32602, "message": (
        "The arguments of \"note_repair\" give “note” twice in one object (note): give each "
        "member once, with the one value meant. Nothing was run, and nothing was proposed.")}
    assert told[3] == {"code": -32700, "message": (
        "Parse error: the line is not UTF-8 text (its byte 0xff, at offset "
        f"{not_utf8.index(0xFF)}, is no character of it). Send each message as JSON in UTF-8. "
        "Nothing was done.")}
    assert told[4] is None  # sent right, it ran
    assert not shop.app.proposals()
    assert _note(shop) == "Pads."

    port = free_port()
    headers = {"Authorization": f"Bearer {shop.clients['Noor']}", "MCP-Protocol-Version":
               "2026-07-28", "Mcp-Method": "tools/call", "Accept":
               "application/json, text/event-stream", "Content-Type": "application/json"}
    meta = ('"_meta": {"io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"}, '
            '"io.modelcontextprotocol/protocolVersion": "2026-07-28", '
            '"io.modelcontextprotocol/clientCapabilities": {}}, ')
    with http_server([*serve, "--http", f"127.0.0.1:{port}"], env, port) as url:
        refused = [httpx.post(f"{url}/mcp", timeout=60, headers={**headers, "Mcp-Name": tool},
                              content=_given_twice(9, tool, repair, member).replace(
                                  '"params": {', '"params": {' + meta))
                   for tool, member in (("note_repair", "note"), ("set_price", "price"))]
    for answer, tool, member in zip(refused, ("note_repair", "set_price"), ("note", "price"),
                                    strict=True):
        assert (answer.status_code, answer.json()) == (400, {"jsonrpc": "2.0", "id": 9, "error": {
            "code": -32602, "message": (
                f"The arguments of \"{tool}\" give “{member}” twice in one object ({member}): "
                "give each member once, with the one value meant. Nothing was run, and nothing "
                "was proposed.")}})
    assert not shop.app.proposals()
    assert _note(shop) == "Pads."
