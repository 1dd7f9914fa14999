"""``python -m signoff``: the signoff command."""

from signoff.cli import main

main()
