"""How to install one of signoff's extras, in the words every "missing extra" message uses.

signoff is installed either as a package (``pip install 'signoff[web]'``) or from a clone of its
repository (``pip install -e '.[web]'`` in the clone's folder); a message says both, so that it
is true for whoever reads it.
"""

from __future__ import annotations

__all__ = ["install_extra"]


def install_extra(extra: str) -> str:
    """The command that installs `extra`, both ways: ``pip install 'signoff[web]' (from a clone:
    pip install -e '.[web]')``."""
    return f"pip install 'signoff[{extra}]' (from a clone: pip install -e '.[{extra}]')"
