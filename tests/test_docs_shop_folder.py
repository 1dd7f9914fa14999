"""The how-to pages that use the concept pages' shop run as written in a folder where those pages
left it — `shop.py`, and Mia, Noor and ticket T-7 in `shop.db` — as a reader who follows the site
in one folder has it (tests/test_docs.py runs each page in an empty folder)."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ports import kept_range
from tests.temporal_server import DevServer

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = ["how-to/upgrading.md", "how-to/inbox.md", "how-to/mcp.md"]
"""The pages after the concept pages that use the shop, or a `shop.py` and `shop.db` of their
own. (The command line's page adds Noor and Mia with `signoff users add`, which says they are
there already in such a folder, exit 2, as that page tells.)"""
LEFT_BY_THE_CONCEPT_PAGES = "from shop import *  # noqa: F403\n" + (
    DOCS / "snippets" / "shop_people.py").read_text()


def _free_ports(count: int) -> list[int]:
    """`count` ports of loopback nothing listens on now, all different (of SIGNOFF_TEST_PORTS's
    range when it names one)."""
    held: list[socket.socket] = []
    try:
        for port in kept_range() or [0] * count:
            if len(held) == count:
                break
            probe = socket.socket()
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                probe.close()
                continue
            held.append(probe)
        assert len(held) == count, "not enough free ports"
        return [int(probe.getsockname()[1]) for probe in held]
    finally:
        for probe in held:
            probe.close()


def _on_free_ports(page: Path, folder: Path) -> Path:
    """A copy of `page` in `folder` whose servers listen on free ports of loopback, not the ports
    the page names (which another test may be using)."""
    text = page.read_text()
    named = sorted(set(re.findall(r"(?:--port |127\.0\.0\.1:)(\d{4,5})\b", text)))
    for port, free in zip(named, _free_ports(len(named)), strict=True):
        text = re.sub(rf"\b{port}\b", str(free), text)
    copy = folder / page.name
    copy.write_text(text)
    return copy


def _left_by_the_concept_pages(folder: Path, tmp_path: Path) -> dict[str, str]:
    """`folder` as the concept pages leave it (their shop, its people and ticket); the
    environment a reader's commands run in there."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIGNOFF_")}
    env |= {"HOME": str(tmp_path), "PATH": f"{Path(sys.executable).parent}:{env['PATH']}"}
    shutil.copy(DOCS / "snippets" / "shop.py", folder / "shop.py")
    (folder / "concept_pages.py").write_text(LEFT_BY_THE_CONCEPT_PAGES)
    subprocess.run([sys.executable, "concept_pages.py"], cwd=folder, env=env, check=True,
                   capture_output=True, timeout=300)
    return env


@pytest.mark.parametrize("page", PAGES)
def test_page_runs_where_the_concept_pages_left_the_shop(page: str, tmp_path: Path) -> None:
    """The page's blocks run in order, and print what they say, in a folder that already has
    the shop with its people and ticket."""
    folder, pages = tmp_path / "reader", tmp_path / "pages"
    folder.mkdir()
    pages.mkdir()
    env = _left_by_the_concept_pages(folder, tmp_path)
    done = subprocess.run([sys.executable, str(ROOT / "tests" / "docs_runner.py"),
                           str(_on_free_ports(DOCS / page, pages))],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]


def test_the_temporal_page_on_one_machine_where_the_concept_pages_left_the_shop(
        tmp_path: Path) -> None:
    """Tried on one machine as the Temporal page says (`SHOP_DATABASE=sqlite:///…`, its dev
    server), in a folder where the concept pages left their shop, the page runs as written: its
    database is not theirs, whose Noor is not staff."""
    (sqlite,) = re.findall(r"`SHOP_DATABASE=(sqlite:///[\w.]+)`", (DOCS / "how-to" / "temporal.md")
                           .read_text())
    folder = tmp_path / "reader"
    folder.mkdir()
    env = _left_by_the_concept_pages(folder, tmp_path)
    (home := tmp_path / "temporal").mkdir()
    server = DevServer(home)
    server.port, server._http, server._metrics = _free_ports(3)  # (of SIGNOFF_TEST_PORTS's range)
    server.start()
    try:
        done = subprocess.run([sys.executable, str(ROOT / "tests" / "docs_runner.py"),
                               str(DOCS / "how-to" / "temporal.md")], cwd=folder,
                              env=env | {"SHOP_DATABASE": sqlite, "TEMPORAL_ADDRESS": server.address},
                              capture_output=True, text=True, timeout=600, check=False)
    finally:
        server.stop()
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
