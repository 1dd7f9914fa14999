"""The ``signoff`` command's entry point, outside the package: Ctrl-C while signoff is still being
imported (about a second) ends the command as Ctrl-C does anywhere in it — "Stopped.", exit 130 —
where it printed Python's traceback of the import it cut off (no part of the command was running
yet to say otherwise)."""

from __future__ import annotations

import sys

STOPPED = 130
"""The exit code of a command stopped with Ctrl-C (`signoff.cli.failures.EXIT_INTERRUPTED`)."""


def main() -> None:
    """Import the command line, then run it."""
    try:
        from signoff.cli import main as command
        from signoff.cli.invocation import the_process_is_the_command
    except KeyboardInterrupt:
        sys.stderr.write("Stopped.\n")
        raise SystemExit(STOPPED) from None
    the_process_is_the_command()
    command()


if __name__ == "__main__":
    main()
