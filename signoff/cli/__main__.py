"""``python -m signoff.cli``: the signoff command."""

from signoff.cli import main
from signoff.cli.invocation import the_process_is_the_command

the_process_is_the_command()
main()
