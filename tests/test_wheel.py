"""The package builds as an sdist and a wheel (the wheel from the sdist), and the wheel installed
into a fresh virtual environment outside the checkout runs ``signoff research`` and an example."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

RUN_TIME_DATA = (
    "signoff/py.typed",
    "signoff/web/templates/proposal.html",
    "signoff/store/migrations/env.py",
    "signoff/store/migrations/script.py.mako",
    "signoff/store/migrations/versions/0001_signoff_tables.py",
)
"""Files the package needs at run time besides its modules: a wheel without them is broken."""


def _run(argv: list[str], *, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, f"{argv} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built from the sdist, installed in a fresh virtual environment: its bin folder."""
    dist = tmp_path_factory.mktemp("dist")
    source = tmp_path_factory.mktemp("source") / "signoff"
    # build from a copy of what git tracks, so that nothing the checkout has lying around gets in
    files = _run(["git", "ls-files", "-z"], cwd=ROOT).split("\0")
    for name in filter(None, files):
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    _run([sys.executable, "-m", "build", "--outdir", str(dist), str(source)], cwd=source)
    wheels = list(dist.glob("signoff-*.whl"))
    assert len(wheels) == 1
    assert list(dist.glob("signoff-*.tar.gz"))
    with zipfile.ZipFile(wheels[0]) as wheel:
        names = set(wheel.namelist())
    package = [name for name in files if name.startswith("signoff/")]
    assert set(RUN_TIME_DATA) <= set(package)
    missing = [name for name in package if name not in names]
    assert not missing, f"the wheel lacks {missing}"   # every migration, template and static file
    environment = tmp_path_factory.mktemp("venv")
    venv.create(environment, with_pip=True)
    _run([str(environment / "bin" / "python"), "-m", "pip", "install", "--quiet",
          "--disable-pip-version-check", str(wheels[0])], cwd=dist)
    return environment / "bin"


def _outside(tmp_path: Path) -> dict[str, str]:
    """An environment that cannot see the checkout: its own home, no PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "SIGNOFF_APP")}
    env["HOME"] = str(tmp_path)
    return env


def test_wheel_imports_from_itself(installed: Path, tmp_path: Path) -> None:
    """The installed package is the wheel's copy, not the checkout's."""
    where = _run([str(installed / "python"), "-c", "import signoff; print(signoff.__file__)"],
                 cwd=tmp_path, env=_outside(tmp_path))
    assert str(ROOT) not in where
    assert "site-packages" in where


def test_wheel_runs_research(installed: Path, tmp_path: Path) -> None:
    """``signoff research`` from the wheel answers offline, citing what it read."""
    out = _run([str(installed / "signoff"), "research", "What does the with statement do?", "--json"],
               cwd=tmp_path, env=_outside(tmp_path))
    assert '"claims"' in out
    assert '"quote"' in out


def test_wheel_runs_an_example(installed: Path, tmp_path: Path) -> None:
    """The workshop example runs on the wheel alone: the price Noor approved is set."""
    shutil.copy2(ROOT / "examples" / "workshop.py", tmp_path / "workshop.py")
    out = _run([str(installed / "python"), "workshop.py"], cwd=tmp_path, env=_outside(tmp_path))
    assert "T-7 now costs 45" in out
