"""Installed packages Python reaches outside the interpreter's own folders — through a ``.pth``
file (as ``pip install --user``, a venv made with ``--system-site-packages`` on Debian, or a
``PYTHONPATH`` do) — are libraries, not the app's own code: a query making a pydantic model in
such a Python is found to only read (it was refused, "tells pydantic its own schema, whose code
cannot be followed", and `signoff research` failed on every question, exit 2)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import venv
from pathlib import Path

import pydantic

ROOT = Path(__file__).resolve().parents[1]

APP = textwrap.dedent('''
    from pydantic import BaseModel, Field

    from signoff import App

    class Hit(BaseModel):
        """One source found."""

        title: str
        part: int = Field(default=1, description="The part that matched.")

    class Found(BaseModel):
        """What a search found."""

        query: str
        hits: list[Hit]

    app = App("finds", database="sqlite://")

    @app.action("Find sources", query=True)
    def find(query: str) -> Found:
        """The sources that match."""
        return Found(query=query, hits=[Hit(title=query)])

    (found,) = app.actions.catalog()
    print(found.effects.only_reads, app.actions.run("find", {"query": "with"},
                                                   as_=app.system).outcome.value)
''')


def test_a_query_using_packages_reached_by_a_pth_file_only_reads(tmp_path: Path) -> None:
    """A bare venv whose only packages are this one's, named by a ``.pth`` file."""
    python = tmp_path / "venv"
    venv.create(python, with_pip=False)
    packages = Path(pydantic.__file__).resolve().parents[1]  # (this Python's site-packages)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    (python / "lib" / version / "site-packages" / "outside.pth").write_text(f"{packages}\n")
    (tmp_path / "finds.py").write_text(APP)
    ran = subprocess.run([str(python / "bin" / "python"), str(tmp_path / "finds.py")],
                         capture_output=True, text=True, cwd=tmp_path, timeout=300,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin",
                              "HOME": str(tmp_path)})
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert ran.stdout.split() == ["True", "Done"]
