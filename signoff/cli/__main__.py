"""``python -m signoff.cli``: the signoff command."""

from signoff.cli import main

main()
