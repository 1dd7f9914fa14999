"""The documentation site: every page's code runs as written, the site builds strictly, and its
pages render in a real browser (screenshots kept in test-artifacts/docs/)."""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.docs_runner import _expected, blocks
from tests.temporal_server import DevServer

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md") if blocks(p))
ON_POSTGRES = ["how-to/postgresql.md"]
"""Pages whose code needs a PostgreSQL server: run against the one the tests start."""
ON_TEMPORAL = ["how-to/temporal.md"]
"""Pages whose code needs a Temporal server too: run against the dev server the tests start."""
CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = ROOT / "test-artifacts" / "docs"
QUIET = {"NO_MKDOCS_2_WARNING": "1"}
"""Material for MkDocs prints an advertisement for its successor on every build; not a warning."""


@pytest.mark.parametrize("page", [p for p in PAGES if p not in ON_POSTGRES + ON_TEMPORAL])
def test_page_runs_as_written(page: str, tmp_path: Path) -> None:
    """Each page's blocks run in order in an empty folder, printing what their comments say."""
    env = {**os.environ, "HOME": str(tmp_path),
           "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    for name in ("SIGNOFF_APP", "SHOP_DATABASE"):
        env.pop(name, None)
    done = subprocess.run([sys.executable, str(ROOT / "tests" / "docs_runner.py"), str(DOCS / page)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_page_with_code_is_run() -> None:
    """The pages whose code runs are all the pages that have code: none is missed by the collector."""
    with_code = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")
                 if "```python" in p.read_text() or "```sh" in p.read_text()}
    assert with_code == set(PAGES)
    assert {"getting-started.md", "concepts/gate.md", "how-to/cli.md"} <= set(PAGES)


def test_a_page_names_each_snippet_file_before_it_includes_it() -> None:
    """A `--8<-- "shop.py"` line is code only on the built site: in a clone or on GitHub it is
    that line, so each page says in a sentence, before it first includes a file, where the file
    is (docs/snippets/shop.py)."""
    unnamed = []
    for page in sorted(DOCS.rglob("*.md")):
        text = page.read_text()
        for name in dict.fromkeys(re.findall(r'^--8<-- "([^"]+)"$', text, flags=re.MULTILINE)):
            before = text[:text.index(f'--8<-- "{name}"')]
            if f"docs/snippets/{name}" not in before:
                unnamed.append(f"{page.relative_to(DOCS)} ({name})")
    assert not unnamed, ("Say where the included file is, in a sentence before the page first "
                         "includes it (in a clone of signoff, it is `docs/snippets/NAME`): "
                         + ", ".join(unnamed))


def test_where_signoff_keeps_its_files_is_told_as_the_code_does(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The command line guide's section on signoff's files names each variable that moves them
    and the folders they default to on Linux, as `profile_path`, `data_dir` and `cache_dir`
    find them; the README names the data and cache variables and links to the section."""
    from signoff.cli import profile_path
    from signoff.research.corpus import cache_dir
    from signoff.research.skill import data_dir

    guide = (DOCS / "how-to" / "cli.md").read_text()
    heading = "## Where signoff keeps its files"
    assert heading in guide, f"Give docs/how-to/cli.md a section {heading!r}."
    section = guide.split(heading, 1)[1].split("\n## ", 1)[0]
    for name in ("SIGNOFF_PROFILE", "SIGNOFF_DATA_DIR", "SIGNOFF_CACHE_DIR", "XDG_CONFIG_HOME",
                 "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
        assert f"`{name}`" in section or f"`${name}`" in section, (
            f"Say in cli.md's {heading!r} what {name} does.")
    monkeypatch.setenv("HOME", str(tmp_path))
    for found, told in ((profile_path(), "~/.config/signoff/profile.json"),
                        (data_dir() / "research.db", "~/.local/share/signoff"),
                        (cache_dir(), "~/.cache/signoff")):
        assert str(found).startswith(told.replace("~", str(tmp_path), 1)), (
            f"signoff keeps {found}, not under {told}: correct cli.md's {heading!r}.")
        assert f"`{told}`" in section, f"Name {told} in cli.md's {heading!r}."
    monkeypatch.setenv("SIGNOFF_DATA_DIR", str(tmp_path / "data"))
    assert data_dir() == tmp_path / "data"
    readme = (ROOT / "README.md").read_text()
    for told in ("`SIGNOFF_DATA_DIR`", "`SIGNOFF_CACHE_DIR`",
                 "docs/how-to/cli.md#where-signoff-keeps-its-files"):
        assert told in readme, f"Name {told} where the README says where research is kept."


def test_every_variable_signoff_reads_is_told_in_the_command_line_guide() -> None:
    """Each `SIGNOFF_*` variable the code names has a row in the command line guide's
    "Environment variables" section, and each row names one the code reads (six were read and
    told nowhere: SIGNOFF_ALLOW_MODEL_REQUESTS, SIGNOFF_AS, SIGNOFF_TOKEN, SIGNOFF_DEBUG,
    SIGNOFF_MCP_FOR, SIGNOFF_PYTHON_DOCS)."""
    variable = re.compile(r"\bSIGNOFF_[A-Z][A-Z0-9_]*[A-Z0-9]\b")
    read = {name for path in (ROOT / "signoff").rglob("*.py")
            for name in variable.findall(path.read_text())}
    assert {"SIGNOFF_APP", "SIGNOFF_AS", "SIGNOFF_ALLOW_MODEL_REQUESTS"} <= read
    guide = (DOCS / "how-to" / "cli.md").read_text()
    heading = "## Environment variables"
    assert heading in guide, f"Give docs/how-to/cli.md a section {heading!r}."
    section = guide.split(heading, 1)[1].split("\n## ", 1)[0]
    told = set(re.findall(r"^\| `(SIGNOFF_[A-Z0-9_]+)` \|", section, flags=re.MULTILINE))
    assert sorted(read - told) == [], (
        f"Give each variable signoff reads a row in cli.md's {heading!r}: what it does.")
    assert sorted(told - read) == [], f"cli.md's {heading!r} tells of variables nothing reads."


def test_every_install_command_works_from_a_clone() -> None:
    """No command in the README or the docs installs signoff by its package name: signoff is not
    on PyPI, so `pip install 'signoff[openai]'` works only where signoff is installed already."""
    wrong = [f"{page.relative_to(ROOT)}: {line.strip()}"
             for page in [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
             for language, _, code in blocks(page) if language in ("sh", "console", "bash")
             for line in code.splitlines()
             if re.search(r"pip install\s.*\bsignoff\[", line)]
    assert not wrong, ("Install signoff from the clone, as Getting started does (`pip install -e "
                       "'.[openai]'`, or `.venv/bin/pip install -e '.[openai]'` in the README): "
                       + "; ".join(wrong))


@pytest.mark.parametrize("page", ON_POSTGRES)
def test_page_runs_on_postgresql(page: str, tmp_path: Path, postgres_database: str) -> None:
    """A page about PostgreSQL runs against a real PostgreSQL server (its URL in SHOP_DATABASE)."""
    env = {**os.environ, "HOME": str(tmp_path), "SHOP_DATABASE": postgres_database}
    done = subprocess.run([sys.executable, str(ROOT / "tests" / "docs_runner.py"), str(DOCS / page)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("page", ON_TEMPORAL)
def test_page_runs_on_temporal(page: str, tmp_path: Path, postgres_database: str,
                               temporal_server: DevServer) -> None:
    """A page about Temporal runs against the tests' Temporal dev server (TEMPORAL_ADDRESS),
    with the app's data on PostgreSQL (SHOP_DATABASE)."""
    env = {**os.environ, "HOME": str(tmp_path), "SHOP_DATABASE": postgres_database,
           "TEMPORAL_ADDRESS": temporal_server.address}
    env.pop("SIGNOFF_TEMPORAL", None)
    done = subprocess.run([sys.executable, str(ROOT / "tests" / "docs_runner.py"), str(DOCS / page)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_temporal_pages_blocks_run_apart(tmp_path: Path, postgres_database: str,
                                            temporal_server: DevServer) -> None:
    """As the Temporal page says, what the shop starts with is made apart from the worker: its
    block runs twice (each thing made when not there yet), then the worker's block runs in a
    process of its own and prints what its comments say (it used what only the setup block made,
    and the setup refused the handle it had made before)."""
    page = DOCS / "how-to" / "temporal.md"
    (shop,) = [code for _, info, code in blocks(page) if 'title="shop.py"' in info]
    setup, worker = [code for language, info, code in blocks(page)
                     if language == "python" and "title=" not in info]
    (tmp_path / "shop.py").write_text(shop)
    (tmp_path / "setup_shop.py").write_text(setup)
    (tmp_path / "worker.py").write_text(worker)
    env = {**os.environ, "HOME": str(tmp_path), "SHOP_DATABASE": postgres_database,
           "TEMPORAL_ADDRESS": temporal_server.address}
    env.pop("SIGNOFF_TEMPORAL", None)
    for script in ("setup_shop.py", "setup_shop.py", "worker.py"):
        done = subprocess.run([sys.executable, script], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=300, check=False)
        assert done.returncode == 0, (f"The page's {script} block should run on its own, as "
                                      f"the page says; it failed:\n{done.stdout}{done.stderr}")
    for said in _expected(worker):
        assert said in done.stdout, f"The worker block should print {said!r}:\n{done.stdout}"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built with ``mkdocs build --strict``: no broken link, no missing reference."""
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                          cwd=ROOT, env={**os.environ, **QUIET}, capture_output=True, text=True,
                          timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return out


def test_site_builds_strictly(site: Path) -> None:
    """Every page of the navigation is built, the API reference from the docstrings included."""
    for page in ("index.html", "getting-started/index.html", "concepts/gate/index.html",
                 "security/index.html", "reference/agents/index.html"):
        assert (site / page).exists(), page
    reference = (site / "reference" / "agents" / "index.html").read_text()
    assert "Permits" in reference
    assert "Every effect defaults to PROPOSE" in reference


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    """The built site over HTTP on 127.0.0.1 (a free port)."""
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join(timeout=10)


@pytest.mark.parametrize(("path", "heading"), [
    ("getting-started/", "Getting started"),
    ("concepts/gate/", "The gate and permits"),
])
def test_site_pages_render(served: str, path: str, heading: str) -> None:
    """Getting started and a concepts page render in Debian's Chromium, with their navigation;
    their screenshots are kept in test-artifacts/docs/."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"This test needs {CHROMIUM}: run scripts/install-test-deps as root.", pytrace=False)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--headless", "--disable-gpu", "--disable-dev-shm-usage",
                  "--disable-background-networking", "--no-first-run"],
        )
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"{served}/{path}")
            expect(page.locator("article h1")).to_contain_text(heading)
            expect(page.locator("nav.md-nav--primary")).to_contain_text("Standing rules")
            expect(page.locator("pre code").first).to_be_visible()
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            shot = ARTIFACTS / f"{path.strip('/').replace('/', '-')}.png"
            page.screenshot(path=str(shot), full_page=False)
            assert shot.stat().st_size > 10_000
        finally:
            browser.close()
