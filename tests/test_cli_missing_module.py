"""An app that imports a module not installed is told which, and where it is missing, without
a `pip install` of the module's name: that is often not its package's (yaml is PyYAML's), and
for a misspelt import it would install whatever a stranger published under that name."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_a_missing_module_is_told_without_installing_its_name(tmp_path: Path) -> None:
    """`import reqeusts` (a typo): the sentence names the module and this Python, says to check
    the spelling, and offers no `pip install reqeusts`; exit code 2."""
    (tmp_path / "typo.py").write_text("import reqeusts\n")
    done = subprocess.run([sys.executable, "-m", "signoff.cli", "actions", "--app",
                           str(tmp_path / "typo.py")], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 2, done.stderr
    said = done.stderr.strip()
    assert "pip install reqeusts" not in said
    assert "This needs the Python package reqeusts, which is not installed" in said
    assert sys.executable in said
    assert "check the import's spelling" in said
    assert "Traceback" not in said
