"""How to install one of signoff's extras, in the words every "missing extra" message uses.

signoff is not published on PyPI: it is installed from a clone of its repository (``pip install
-e '.[web]'`` in the clone's folder, as the README and Getting started say), so a message says
that, and only that (``pip install 'signoff[web]'`` led: it fails, no such package found).
"""

from __future__ import annotations

__all__ = ["install_extra"]


def install_extra(extra: str) -> str:
    """The command that installs `extra`, and where to run it: ``pip install -e '.[web]' in the
    folder of signoff's clone (signoff is not on PyPI)``."""
    return (f"pip install -e '.[{extra}]' in the folder of signoff's clone (signoff is not on "
            "PyPI)")
