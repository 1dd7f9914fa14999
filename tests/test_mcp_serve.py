"""``signoff mcp serve``: the workshop's estimator served over MCP to the SDK's own client, over
stdio and streamable HTTP on loopback, with Noor deciding through the REST API."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client
from sqlalchemy import text

from signoff import ProposalStatus
from signoff.cli.failures import tell_logs
from signoff.mcp.served import ServedAgent
from signoff.store import points
from tests.mcp_servers import (
    ROOT,
    TRANSPORTS,
    command,
    connected,
    first_line,
    free_port,
    http_server,
    over_http,
    rest_api,
    running,
    workshop_served,
)
from tests.provenance_scenarios.world import ATTACKER_IBAN, Request, make_world
from tests.workshop_web import price, repair_price


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """The workshop in a SQLite file the served process shares, with everyone's API token."""
    return workshop_served(tmp_path, monkeypatch)


def _session(shop: SimpleNamespace, transport: str, *, mode: str = "auto",
             wait: float = 60) -> Any:
    """A client session of the estimator's tools, working for Noor (by --for over stdio, by her
    token over HTTP)."""
    arguments = [*shop.serve, "--wait", str(wait)]
    if transport == "stdio":
        arguments += ["--for", "noor@workshop.example"]
    return connected(transport, arguments, shop.env, token=shop.clients["Noor"], mode=mode)


async def _decide(rest: str, shop: SimpleNamespace, verb: str, body: dict[str, Any]) -> str:
    """Wait for the proposal Noor may decide to show in the REST API, and decide it there."""
    headers = {"Authorization": f"Bearer {shop.tokens['Noor']}"}
    async with httpx.AsyncClient(base_url=rest, headers=headers) as api:
        with anyio.fail_after(30):
            while True:
                items = (await api.get("/api/proposals")).json()["items"]
                if items:
                    break
                await anyio.sleep(0.05)
        (proposal,) = items
        answer = await api.post(f"/api/proposals/{proposal['id']}/{verb}", json=body)
        assert answer.status_code == 200, answer.text
        return str(proposal["id"])


async def _call_while_deciding(client: Client, rest: str, shop: SimpleNamespace, verb: str,
                               body: dict[str, Any], price: int) -> tuple[Any, str]:
    """Call set_price, and decide its proposal through the REST API while the call waits."""
    found: dict[str, Any] = {}

    async def call() -> None:
        found["result"] = await client.call_tool(
            "set_price", {"repair": str(shop.repair.id), "price": price},
            meta={"signoff/why": "Pads, a cable and an hour of work."})

    async with anyio.create_task_group() as group:
        group.start_soon(call)
        found["proposal"] = await _decide(rest, shop, verb, body)
    return found["result"], found["proposal"]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_the_note_runs_alone_and_the_price_waits_for_noors_yes(
        shop: SimpleNamespace, transport: str, mode: str) -> None:
    """Over both transports and both protocol eras: the note runs alone; the price is proposed
    to Noor, the call stays open while she approves through the REST API, and answers with the
    approved call's result; T-7 then costs 45, and the receipt tells it all."""

    async def scenario() -> None:
        with rest_api(shop.app) as rest:
            async with _session(shop, transport, mode=mode) as client:
                noted = await client.call_tool("note_repair", {"repair": str(shop.repair.id),
                                                               "note": "Pads and a cable."})
                assert not noted.is_error
                assert noted.structured_content == {"result": "Noted on T-7."}
                result, proposal_id = await _call_while_deciding(
                    client, rest, shop, "approve", {}, price=45)
        assert not result.is_error
        assert result.content[0].text == "T-7 costs 45."
        assert result.structured_content == {"result": "T-7 costs 45."}
        decided = shop.app.proposal(proposal_id)
        assert decided.status is ProposalStatus.DONE
        assert decided.why == "Pads, a cable and an hour of work."
        receipt = shop.app.receipt(decided.task).words
        assert "ran note_repair alone" in receipt
        assert "Noor approved set_price; it ran as Noor and the agent together." in receipt

    anyio.run(scenario)
    assert repair_price(shop) == 45
    with shop.app.session(as_=shop.app.system) as s:
        assert s.get(shop.Repair, shop.repair.id).note == "Pads and a cable."


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_rejection_is_told_as_an_ordinary_result(shop: SimpleNamespace, transport: str) -> None:
    """Noor says no through the REST API: the waiting call answers with her reason, as a result
    that is not an error, telling the model not to call it again; nothing ran."""

    async def scenario() -> Any:
        with rest_api(shop.app) as rest:
            async with _session(shop, transport) as client:
                result, _ = await _call_while_deciding(
                    client, rest, shop, "reject", {"reason": "Quote the cable separately."},
                    price=99)
        return result

    result = anyio.run(scenario)
    assert not result.is_error
    text = result.content[0].text
    assert "Noor said no to set_price: Quote the cable separately." in text
    assert "Do not call it again" in text
    assert result.structured_content["not_run"] == text
    assert repair_price(shop) == 0


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_what_is_listed_refused_and_answered_at_once(shop: SimpleNamespace,
                                                      transport: str) -> None:
    """scrap_repair (never, by the estimator's permits) is not listed, and called anyway it
    neither runs nor is proposed; the listed tools say what signoff proved of them; arguments
    that do not fit are told to the client, not put to a person; a client that cannot wait is
    told the proposal's id and whom it waits on; the server's instructions carry the skill's
    brief, which names the repair by id."""

    async def scenario() -> dict[str, Any]:
        repair = str(shop.repair.id)
        async with _session(shop, transport) as client:
            return {
                "instructions": client.instructions,
                "tools": {t.name: t for t in (await client.list_tools()).tools},
                "scrap": await client.call_tool("scrap_repair", {"repair": repair}),
                "made_up": await client.call_tool("fix_everything", {}),
                "cheap": await client.call_tool("set_price", {"repair": repair,
                                                              "price": "cheap"}),
                "no_note": await client.call_tool("note_repair", {"repair": repair}),
                "no_wait": await client.call_tool("set_price", {"repair": repair, "price": 45},
                                                  meta={"signoff/wait": 0}),
            }

    got = anyio.run(scenario)
    # the client is told the work as a model would be: what the tools act on, by id
    assert f"Ticket T-7: rear brake does not bite. Its id is {shop.repair.id}." in (
        got["instructions"])
    tools = got["tools"]
    assert sorted(tools) == ["note_repair", "parts_for", "set_price"]
    assert tools["parts_for"].annotations.read_only_hint is True
    assert tools["set_price"].annotations.read_only_hint is False
    assert tools["set_price"].annotations.destructive_hint is True
    assert tools["set_price"].output_schema["properties"]["result"] == {"type": "string"}
    assert tools["parts_for"].output_schema["properties"]["result"]["type"] == "array"
    for refused in ("scrap", "made_up"):
        assert got[refused].is_error
        assert "Nothing was run, and nothing was proposed." in got[refused].content[0].text
    assert "may never use" in got["scrap"].content[0].text
    for invalid in ("cheap", "no_note"):
        assert got[invalid].is_error
        assert got[invalid].content[0].text.startswith("Invalid:")
        assert "Nothing was run or proposed." in got[invalid].content[0].text
    assert "note" in got["no_note"].content[0].text.lower()
    (proposal,) = shop.app.proposals()  # only the price that could not wait
    assert proposal.arguments["price"] == 45
    assert not got["no_wait"].is_error
    assert got["no_wait"].structured_content["proposal"] == proposal.id
    assert got["no_wait"].structured_content["decide_by"] == "Noor"
    assert proposal.id in got["no_wait"].content[0].text
    assert repair_price(shop) == 0
    with shop.app.session(as_=shop.app.system) as s:
        assert s.get(shop.Repair, shop.repair.id).fault == "rear brake does not bite"


def test_over_http_a_request_without_a_valid_token_is_refused(shop: SimpleNamespace) -> None:
    """Without a token, or with a made-up one, the MCP endpoint answers 401 and nothing is
    served, and without one it names the command that gives one, for this app (it named no
    app); Mia's token serves work for Mia."""
    port = free_port()
    with http_server([*shop.serve, "--http", f"127.0.0.1:{port}"], shop.env, port) as url:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        for headers in ({}, {"Authorization": "Bearer so_0123456789abcdef_madeup"}):
            answer = httpx.post(f"{url}/mcp", json=body, headers=headers)
            assert answer.status_code == 401
            assert answer.headers["www-authenticate"].startswith("Bearer")
            if not headers:
                assert "`signoff users token HANDLE --client --app examples/workshop.py`" in (
                    answer.text)

        async def as_mia() -> Any:
            async with over_http(url, token=shop.clients["Mia"]) as client:
                return await client.call_tool("note_repair", {"repair": str(shop.repair.id),
                                                              "note": "Mia's note."})

        noted = anyio.run(as_mia)
    assert not noted.is_error
    (task,) = shop.app.proposals() or [None]  # nothing proposed: a note runs alone
    assert task is None
    starts = [e.words for t in _tasks(shop) for e in shop.app.receipt(t).entries
              if e.kind == "start"]
    assert starts == ["Estimator began estimate_repair for Mia."]


def test_stopped_with_its_inbox_it_leaves_everything_in_the_database_file(
        shop: SimpleNamespace, tmp_path: Path) -> None:
    """`signoff mcp serve --http --inbox` stopped by SIGTERM leaves no write-ahead log beside
    the SQLite file: the file copied alone, as the upgrading guide says to back it up, holds
    Noor's note made over MCP and her no said through the inbox's REST API (before, the
    inbox's web app was served without its lifespan, which closes the connections at the end,
    and both were only in the log beside the file)."""
    import sqlite3
    from shutil import copyfile

    outcome = price(shop)
    (proposal,) = shop.app.proposals(task=outcome.task)
    shop.app.database.dispose()  # the test's own connections: the server's are the last
    port = free_port()
    with http_server([*shop.serve, "--http", f"127.0.0.1:{port}", "--inbox"], shop.env,
                     port) as url:

        async def scenario() -> tuple[Any, int]:
            async with over_http(url, token=shop.clients["Noor"]) as client:
                noted = await client.call_tool("note_repair", {"repair": str(shop.repair.id),
                                                               "note": "Pads worn thin."})
            headers = {"Authorization": f"Bearer {shop.tokens['Noor']}"}
            async with httpx.AsyncClient(base_url=url, headers=headers) as api:
                no = await api.post(f"/api/proposals/{proposal.id}/reject",
                                    json={"reason": "Not this week."})
            return noted, no.status_code

        noted, status = anyio.run(scenario)
    # (stopped by SIGTERM as the server's block ends)
    assert not noted.is_error, noted
    assert status == 200
    assert not (tmp_path / "workshop.db-wal").exists()
    copyfile(tmp_path / "workshop.db", tmp_path / "copy.db")
    with sqlite3.connect(tmp_path / "copy.db") as copy:
        (decided,) = copy.execute("select status from signoff_proposals where id = ?",
                                  (proposal.id,)).fetchone()
        (notes,) = copy.execute("select count(*) from repair where note = 'Pads worn thin.'"
                                ).fetchone()
    assert decided == ProposalStatus.REJECTED.value
    assert notes == 1


def _tasks(shop: SimpleNamespace) -> list[str]:
    from sqlalchemy import text

    with shop.app.database.connect() as db:
        return [str(t) for t in db.execute(text("select id from signoff_tasks")).scalars()]


def test_serving_over_http_says_where_once_it_listens(shop: SimpleNamespace) -> None:
    """`signoff mcp serve --http` says on stderr (stdout may be an MCP stream) where its tools
    are served, once it listens there, and how to stop it."""
    import socket

    port = free_port()
    with running(command(*shop.serve, "--http", f"127.0.0.1:{port}"), shop.env) as process:
        line = first_line(process)
        assert line == (f"Serving estimator's tools over MCP at http://127.0.0.1:{port}/mcp. "
                        "Stop with Ctrl-C."), line
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass  # it listens, as it said


@pytest.mark.parametrize("taken", [True, False])
def test_serving_at_an_address_that_cannot_be_served_is_one_sentence(
        shop: SimpleNamespace, taken: bool) -> None:
    """`--http` at a port something else listens on, or at no port at all, is refused in one
    sentence saying what to do, not a traceback: a port in use with exit 5, as `signoff serve`
    (it printed the usage and exited 2, for a command line misread), no port with exit 2."""
    import socket
    import subprocess

    with socket.create_server(("127.0.0.1", 0)) as listening:
        port = listening.getsockname()[1] if taken else 99999
        done = subprocess.run(command(*shop.serve, "--http", f"127.0.0.1:{port}"), cwd=ROOT,
                              env=shop.env, capture_output=True, text=True, timeout=120,
                              check=False)
    assert done.returncode == (5 if taken else 2), done.stderr
    assert "Traceback" not in done.stderr
    said = done.stderr.strip().splitlines()[-1]
    if taken:
        assert said == (f"Error: signoff cannot serve on 127.0.0.1:{port}: another process "
                        "listens there: stop it, or give --http another port.")
        assert "Usage:" not in done.stderr
    else:
        assert said == ("Error: Invalid value for '--http': '127.0.0.1:99999' is not HOST:PORT "
                        "(a port from 1 to 65535), e.g. 127.0.0.1:8765.")


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_call_kept_open_for_a_decision_holds_up_no_other_call(
        shop: SimpleNamespace, transport: str, mode: str) -> None:
    """While set_price is kept open for Noor's decision, a note from the same client runs alone
    and answers at once (on the protocol that keeps no sessions, every call of Noor's is one
    piece of work): it goes on in a task that continues the waiting one, and that task's
    receipt says so. Noor then approves, and the price call answers with its result."""

    async def scenario() -> dict[str, Any]:
        found: dict[str, Any] = {}
        with rest_api(shop.app) as rest:
            async with _session(shop, transport, mode=mode) as client:

                async def price() -> None:
                    found["price"] = await client.call_tool(
                        "set_price", {"repair": str(shop.repair.id), "price": 45})

                async with anyio.create_task_group() as group:
                    group.start_soon(price)
                    with anyio.fail_after(30):
                        while not shop.app.proposals():
                            await anyio.sleep(0.05)
                    with anyio.fail_after(30):
                        found["noted"] = await client.call_tool(
                            "note_repair", {"repair": str(shop.repair.id), "note": "Pads."})
                    found["waiting_then"] = "price" not in found
                    found["proposal"] = await _decide(rest, shop, "approve", {})
        return found

    found = anyio.run(scenario)
    assert not found["noted"].is_error
    assert found["noted"].structured_content == {"result": "Noted on T-7."}
    assert found["waiting_then"]  # the note answered while the price still waited
    assert found["price"].content[0].text == "T-7 costs 45."
    first = shop.app.proposal(found["proposal"]).task
    with shop.app.database.connect() as db:
        (then,) = db.execute(text(
            "select id from signoff_tasks where id != :first and work_id = "
            "(select work_id from signoff_tasks where id = :first)"), {"first": first}).scalars()
    receipt = shop.app.receipt(then).words
    assert f"going on with the work of task {first}, which waits on a decision." in receipt
    assert "ran note_repair alone" in receipt
    assert repair_price(shop) == 45


# -- one session's work, served in this process -----------------------------------------


@pytest.fixture
def office() -> Iterator[dict[str, Any]]:
    """The provenance scenarios' office, in memory, its every permit widened to alone."""
    w = make_world()
    yield w
    w["app"].database.dispose()


def _served(w: dict[str, Any], request: str) -> ServedAgent:
    """The office's widened agent served to a client working for its owner; a call that is
    proposed is answered at once."""
    return ServedAgent(w["app"], w["Widened"], for_=w["owner"], subject=Request(text=request),
                       wait_seconds=0)


def test_a_read_in_one_skills_task_labels_a_served_call_in_anothers(
        office: dict[str, Any]) -> None:
    """The served agent keeps a task per skill in a session: the mail read in the bills' task
    asks to forward a file to a stranger, and the share the client then asks for (a tool of
    the files' skill) is proposed, not run alone (before, each skill's task saw only its own
    reads, and the file was shared)."""
    served = _served(office, "Deal with my mail and my files.")

    async def scenario() -> Any:
        read = await served.call_tool("read_email", {"number": 34})
        assert not read.is_error, read
        return await served.call_tool("share_file", {"name": "contract.pdf",
                                                     "email": "leak@stranger.example"})

    shared = anyio.run(scenario)
    assert "was proposed to Olive" in shared.content[0].text
    (proposal,) = office["app"].proposals()
    assert proposal.action == "share_file"
    assert ("email", "read_email") in {(label.argument, label.source)
                                       for label in proposal.labels}


def test_a_session_closing_while_its_call_goes_on_in_a_new_task_ends_that_task(
        office: dict[str, Any]) -> None:
    """The session's task waits on a steered transfer; the client's next call goes on in a new
    task, and the session closes while that task is being started: the close waits for the
    turn, and ends the new task too, its receipt saying the session ended (before, it was left
    running, and its receipt never said so)."""
    served = _served(office, "Read my latest mail and deal with it.")
    starting, go = threading.Event(), threading.Event()
    start = served.handle.start

    def paused_start(*arguments: Any, **given: Any) -> str:
        if given.get("continues"):
            starting.set()
            go.wait(30)
        return str(start(*arguments, **given))

    async def scenario() -> Any:
        await served.call_tool("read_email", {"number": 31})
        waiting = await served.call_tool("transfer", {"iban": ATTACKER_IBAN, "amount": 2400,
                                                      "memo": "payment"})
        assert "was proposed to Olive" in waiting.content[0].text
        served.handle.start = paused_start  # type: ignore[method-assign]
        found: dict[str, Any] = {}

        async def call() -> None:
            found["listed"] = await served.call_tool("list_files", {})

        async with anyio.create_task_group() as group:
            group.start_soon(call)
            await anyio.to_thread.run_sync(starting.wait, 30)
            group.start_soon(served.session_closed)
            await anyio.sleep(0.3)  # the close waits for the turn under way
            go.set()
        return found["listed"]

    anyio.run(scenario)
    with office["app"].database.connect() as db:
        tasks = db.execute(text("select id, status from signoff_tasks")).all()
    assert len(tasks) == 2
    assert {status for _, status in tasks} == {"Halted"}
    for task, _ in tasks:
        assert "The MCP session ended" in office["app"].receipt(task).words


@contextmanager
def _a_yes_held(office: dict[str, Any], served: ServedAgent
                ) -> Iterator[tuple[Any, threading.Event]]:
    """The session's steered transfer proposed, and the owner's yes to it run in a thread of
    its own, held as it steps the task on (until the event is set; on leaving, at the latest).
    The proposal, and the event."""

    async def propose() -> Any:
        await served.call_tool("read_email", {"number": 31})
        return await served.call_tool("transfer", {"iban": ATTACKER_IBAN, "amount": 2400,
                                                   "memo": "payment"})

    assert "was proposed to Olive" in anyio.run(propose).content[0].text
    (proposal,) = office["app"].proposals()
    held, go = threading.Event(), threading.Event()
    approving = threading.Thread(target=lambda: office["app"].approve(proposal,
                                                                       by=office["owner"]))

    def at(point: str, where: dict[str, Any]) -> None:
        if point == "loop.stepping" and threading.current_thread() is approving:
            held.set()
            go.wait(30)

    with points.pausing(at):
        approving.start()
        assert held.wait(30)
        try:
            yield proposal, go
        finally:
            go.set()
            approving.join(30)


def test_a_call_while_a_decision_is_being_run_goes_on_in_a_new_task(
        office: dict[str, Any]) -> None:
    """While the owner's yes to the session's waiting call is being run (her thread holds the
    task a moment as it goes on), the client's next call is taken in a new task of the
    session's work (before, it was told the work had ended, though it was running)."""
    served = _served(office, "Read my latest mail and deal with it.")
    with _a_yes_held(office, served) as (proposal, _):
        listed = anyio.run(served.call_tool, "payees", {})
    assert not listed.is_error, listed
    assert listed.structured_content["result"]
    assert office["app"].proposal(proposal.id).status is ProposalStatus.DONE


def test_a_call_on_its_way_as_its_session_closed_is_refused(office: dict[str, Any]) -> None:
    """A call that reaches the server after its session closed (it was still on its way) is
    told the session ended, and starts nothing (before, it was given a session of its own,
    whose task nothing ever ended)."""
    served = _served(office, "Read my mail.")

    async def scenario() -> Any:
        await served.call_tool("list_files", {})
        await served.session_closed()
        return await served.call_tool("read_inbox", {})

    late = anyio.run(scenario)
    assert late.is_error
    assert late.content[0].text == "Nothing ran: this session has ended."
    with office["app"].database.connect() as db:
        assert db.execute(text("select status from signoff_tasks")).scalars().all() == [
            "Halted"]


def test_a_session_closing_while_a_decision_holds_its_task_ends_it_once_let_go(
        office: dict[str, Any]) -> None:
    """The session closes while the owner's yes to its waiting call is being run (her thread
    holds the task a moment): the close tries again until the task is let go, and ends it."""
    served = _served(office, "Read my latest mail and deal with it.")
    with _a_yes_held(office, served) as (_, go):
        threading.Timer(0.5, go.set).start()  # the owner's thread lets go half a second later
        anyio.run(served.session_closed)
    with office["app"].database.connect() as db:
        assert db.execute(text("select status from signoff_tasks")).scalars().all() == [
            "Halted"]


def test_serving_an_agent_leaves_the_root_logger_as_it_was(
        office: dict[str, Any], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The SDK's server configures the root logger as it is made when nothing has; a served
    agent leaves it as the app set it, so that a warning of signoff's, which the command line
    prints itself, is printed once (it was printed a second time by the SDK's handler)."""
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", [])
    monkeypatch.setattr(root, "level", logging.WARNING)
    tell_logs(debug=False)
    _served(office, "Pay my bills.")
    assert root.handlers == []
    logging.getLogger("signoff.mcp").warning("The guard could not reach the server gone.")
    assert capsys.readouterr().err.count("could not reach the server gone") == 1


def test_a_tool_that_reaches_outside_is_never_served_as_only_adding(tmp_path: Path) -> None:
    """A served tool's destructive hint is off only for what adds records and does nothing
    outside: one that calls a server, removes a file or spends may destroy there, or cannot be
    taken back (it was served as only adding, since it changes no record)."""
    import os

    from signoff import App
    from signoff.effects import spends
    from signoff.mcp.results import annotations_of

    app = App("hints", database=f"sqlite:///{tmp_path / 'hints.db'}")

    @app.action("Fetch a page")
    def fetch(url: str) -> str:
        """The page at `url`."""
        return httpx.post(url).text

    @app.action("Remove a file")
    def remove(path: str) -> None:
        """Remove the file at `path`."""
        os.remove(path)

    @spends(cost=0.5)
    def charge(amount: int) -> None:
        """Take `amount` from the card."""

    @app.action("Pay a bill")
    def pay(amount: int) -> None:
        """Pay `amount`."""
        charge(amount)

    for action in (fetch, remove, pay):
        hints = annotations_of(app.actions.info(action.__name__))
        assert (hints.read_only_hint, hints.destructive_hint, hints.open_world_hint) == (
            False, True, True)


def test_a_call_asked_again_before_its_outcome_was_told_waits_on_the_same_proposal(
        office: dict[str, Any]) -> None:
    """A client that could not wait asks for the steered transfer again: it is told the same
    proposal, and nothing more is put to the owner; once she has said yes, asked again it is
    told what the run came to, and it ran once. Only after that is the same call a new one;
    a different call is always proposed of its own (before, each retry was proposed again,
    and a yes to each would have run the transfer each time)."""
    served = _served(office, "Read my latest mail and deal with it.")
    transfer = {"iban": ATTACKER_IBAN, "amount": 2400, "memo": "payment"}

    async def ask() -> Any:
        return await served.call_tool("transfer", transfer)

    async def read_then_ask() -> tuple[Any, Any]:
        await served.call_tool("read_email", {"number": 31})
        return await ask(), await ask()

    first, again = anyio.run(read_then_ask)
    (proposal,) = office["app"].proposals()
    for told in (first, again):
        assert not told.is_error, told
        assert told.structured_content["proposal"] == proposal.id
    other = anyio.run(served.call_tool, "transfer", {**transfer, "amount": 10})
    assert other.structured_content["proposal"] != proposal.id
    office["app"].approve(proposal, by=office["owner"])
    ran = anyio.run(ask)
    assert not ran.is_error, ran
    assert "proposal" not in ran.structured_content
    assert len(office["app"].proposals()) == 2
    done = [e for t in _tasks_of(office) for e in office["app"].receipt(t).entries
            if e.kind == "decision" and "approved transfer; it ran as" in e.words]
    assert len(done) == 1
    anew = anyio.run(ask)
    assert anew.structured_content["proposal"] not in (proposal.id,
                                                       other.structured_content["proposal"])
    assert len(office["app"].proposals()) == 3


def _tasks_of(office: dict[str, Any]) -> list[str]:
    with office["app"].database.connect() as db:
        return [str(t) for t in db.execute(text("select id from signoff_tasks")).scalars()]


@pytest.mark.parametrize("where", ["file", "memory"])
def test_two_of_the_same_call_at_once_make_one_proposal(tmp_path: Path, where: str) -> None:
    """Two identical steered transfers sent at once (a client retrying before its first call
    was answered) make one proposal, and both are told its id (the first was looked up before
    the session's turn, and both were proposed). The office is in a file, as a served app is,
    and in memory, whose one connection every thread shares: their transactions take turns on
    it, and never mix."""
    office = make_world(f"sqlite:///{tmp_path / 'office.db'}" if where == "file" else "sqlite://")
    served = _served(office, "Read my latest mail and deal with it.")
    transfer = {"iban": ATTACKER_IBAN, "amount": 2400, "memo": "payment"}
    told: list[Any] = []

    async def ask() -> None:
        told.append(await served.call_tool("transfer", transfer))

    async def scenario() -> None:
        await served.call_tool("read_email", {"number": 31})
        async with anyio.create_task_group() as group:
            group.start_soon(ask)
            group.start_soon(ask)

    try:
        anyio.run(scenario)
        (proposal,) = office["app"].proposals()
        assert [t.structured_content["proposal"] for t in told] == [proposal.id, proposal.id]
    finally:
        office["app"].database.dispose()


def test_serving_in_python_without_a_subject_names_the_parameter(shop: SimpleNamespace) -> None:
    """`ServedAgent(app, Estimator, for_=noor)`, whose skills work on a repair, says to give it
    with `subject=` — the Python parameter — and serves with one given; `signoff mcp serve` says
    `--subject` (Python was told the command's option)."""
    from signoff.exceptions import UserError

    with pytest.raises(UserError) as refused:
        ServedAgent(shop.app, shop.Estimator, for_=shop.noor)
    said = str(refused.value)
    assert said.startswith("None of Estimator's skills can be served so: estimate_repair works on "
                           "a Repair record, not None.")
    assert said.endswith("Give what the work is on with subject=, as in ServedAgent(app, "
                         "Estimator, subject=...).")
    assert "--subject" not in said
    served = ServedAgent(shop.app, shop.Estimator, for_=shop.noor, subject=shop.repair)
    assert served.subject is shop.repair
    from click.testing import CliRunner

    from signoff.cli import main

    told = CliRunner().invoke(main, ["mcp", "serve", "--app", "examples/workshop.py", "--agent",
                                     "estimator"])
    assert told.exit_code == 2, told.output
    assert "Give what the work is on with --subject." in told.output
    assert "subject=" not in told.output


def test_a_session_makes_at_most_its_calls_whichever_task_they_go_to(
        office: dict[str, Any]) -> None:
    """`max_calls` is the session's: a call that goes on in a new task while the first waits
    on a decision counts against it too, and the call past it is refused and runs nothing
    (before, each new task of the session was given `max_calls` of its own)."""
    served = ServedAgent(office["app"], office["Widened"], for_=office["owner"],
                         subject=Request(text="Read my latest mail and deal with it."),
                         wait_seconds=0, max_calls=3)

    async def scenario() -> list[Any]:
        return [await served.call_tool("read_email", {"number": 31}),
                await served.call_tool("transfer", {"iban": ATTACKER_IBAN, "amount": 2400,
                                                    "memo": "payment"}),
                await served.call_tool("list_files", {}),
                await served.call_tool("list_files", {})]

    read, transfer, listed, past = anyio.run(scenario)
    assert not read.is_error, read
    assert not listed.is_error, listed
    assert "was proposed to Olive" in transfer.content[0].text
    assert len(_tasks_of(office)) == 2  # the list went on in a new task of the work
    assert past.is_error
    assert past.content[0].text == ("Nothing ran: this session has made 3 calls, the most one "
                                    "session may make. Start a new session to go on.")
    steps = [office["app"].outcome(task).steps for task in _tasks_of(office)]
    assert sum(steps) == 3


def _paying_office(database: str) -> tuple[Any, Any]:
    """An app whose agent pays ($0.60 a payment) and tips ($0.20), alone, and wires money
    ($0.30, proposed to its owner, Olive), on a budget of $1.00; served to a session for
    Olive. The app and the server."""
    from signoff import Agent, App, Skill, spends

    app = App("paying", database=database)

    @app.action
    @spends(cost=0.60)
    def pay(memo: str) -> str:
        """Pay a bill."""
        return f"Paid: {memo}."

    @app.action
    @spends(cost=0.20)
    def tip(memo: str) -> str:
        """Leave a tip."""
        return f"Tipped: {memo}."

    @app.action
    @spends(cost=0.30)
    def wire(memo: str) -> str:
        """Wire money abroad."""
        return f"Wired: {memo}."

    class Bills(Skill[None, str]):
        description = "Pay the bills."
        tools = [pay, tip, wire]

    class Payer(Agent):
        purpose = "You pay bills."
        skills = [Bills()]
        budget_usd = 1.00

    olive = app.people.add("olive@home.example", "Olive", roles=["owner"])
    app.add_agent(Payer, sponsor=olive)
    for alone in (pay, tip):  # (a wire is put to Olive)
        app.allow_alone(Payer, alone, by=olive)
    return app, ServedAgent(app, Payer, for_=olive, wait_seconds=0)


def test_a_served_sessions_tasks_spend_from_the_agents_one_budget(database: str) -> None:
    """What a served agent's tools spend is kept within the agent's budget ($1.00), and a
    session's tasks share it: its calls go on in a new task of its work while one waits on a
    decision, and a payment that would take the work past the budget is refused there, as is
    a yes to the waiting wire. Before, a served task had no budget at all (the client pays for
    its model; its tools' spending was not bounded either)."""
    app, served = _paying_office(database)
    try:
        async def scenario() -> list[Any]:
            return [await served.call_tool("pay", {"memo": "rent"}),
                    await served.call_tool("wire", {"memo": "to Lisbon"}),
                    await served.call_tool("tip", {"memo": "the porter"}),
                    await served.call_tool("pay", {"memo": "power"})]

        paid, wired, tipped, again = anyio.run(scenario)
        assert not paid.is_error, paid
        assert "was proposed to Olive" in wired.content[0].text
        assert not tipped.is_error, tipped  # in a new task of the work: $0.80 spent
        assert again.is_error, again
        assert "more than is left of the task's budget" in again.content[0].text
        (proposal,) = app.proposals()
        decision = app.approve(proposal, by=served.for_)
        assert decision.status is ProposalStatus.FAILED, decision
        assert ("more than is left of the task's budget (which the tasks of its work share)"
                in decision.said)
        with app.database.connect() as db:
            tasks = db.execute(text("select id, spend_usd from signoff_tasks")).all()
        assert len(tasks) == 2
        assert sum(spent for _, spent in tasks) == pytest.approx(0.80)
    finally:
        app.database.dispose()


def test_two_tasks_of_a_work_reserving_at_once_fit_in_one_budget(database: str) -> None:
    """Two tasks of one work each reserve $0.60 of the $1.00 they share, at once: the second
    waits until the first has committed (SQLite's write lock; PostgreSQL's advisory lock of
    the work), then reads what it spent, and does not fit. (Under READ COMMITTED, without the
    lock, each would read the other's spend as it was before, and both would fit.)"""
    from signoff.agents import repository as repo

    app, served = _paying_office(database)
    try:
        first, second = (served.handle.start("bills", for_=served.for_, model_name="client",
                                             max_steps=5, work="w-1") for _ in range(2))
        reserved_first, go = threading.Event(), threading.Event()
        found: dict[str, bool] = {}

        def reserve_first() -> None:
            with app.database.connect() as db:
                found["first"] = repo.reserve_spend(db, first, 0.60)
                reserved_first.set()
                go.wait(30)  # the second tries while this has not committed

        def reserve_second() -> None:
            with app.database.connect() as db:
                found["second"] = repo.reserve_spend(db, second, 0.60)

        threads = [threading.Thread(target=reserve_first), threading.Thread(target=reserve_second)]
        threads[0].start()
        assert reserved_first.wait(30)
        threads[1].start()
        threads[1].join(0.5)
        assert threads[1].is_alive()  # it waits on the first
        go.set()
        for thread in threads:
            thread.join(30)
        assert found == {"first": True, "second": False}
    finally:
        app.database.dispose()
