"""A model named on the command line whose key is not set and whose provider's package is not
installed is told both at once (it took a run for the key, then another for the package). The
package is made unimportable the way Python's import system documents (``sys.modules[name] =
None``), in a process of its own."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

_RUN = ("import sys; sys.modules[{sdk!r}] = None; from signoff.cli import main; "
        "main(['research', 'What does the with statement do?', '--model', {spec!r}])")


@pytest.mark.parametrize(("spec", "sdk", "key"), [
    ("openai:gpt-4o-mini", "openai", "OPENAI_API_KEY"),
    ("anthropic:claude-haiku-4-5", "anthropic", "ANTHROPIC_API_KEY"),
])
def test_a_missing_key_and_package_are_told_together(spec: str, sdk: str, key: str) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
    told = subprocess.run([sys.executable, "-c", _RUN.format(sdk=sdk, spec=spec)], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert told.returncode == 2, told.stderr
    assert (f"{spec} needs an API key and the {sdk} package: set {key}, and install signoff's "
            f"{sdk} extra, pip install -e '.[{sdk}]' in the folder of signoff's clone (signoff "
            "is not on PyPI).") in " ".join(told.stderr.split())
