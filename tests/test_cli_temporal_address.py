"""A Temporal server's address given with a scheme (``http://``, ``temporal://``, ``grpc://``),
a path (a trailing slash) or no port, as ``signoff worker --temporal`` or as ``SIGNOFF_TEMPORAL``
for any command: one sentence naming the setting and the HOST:PORT to give, exit 2 (a scheme
was passed on to the Temporal client, which warned in Python's words and went on; a slash was
told as the app's own error, naming neither the setting nor the form)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from signoff.cli import EXIT_USAGE, main
from tests.ports import free_port

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "examples" / "workshop.py")


@pytest.fixture
def port(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    """A port nothing listens on, and the workshop in a file of its own."""
    monkeypatch.setenv("WORKSHOP_DATABASE", f"sqlite:///{tmp_path / 'workshop.db'}")
    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "profile.json"))
    monkeypatch.delenv("SIGNOFF_TEMPORAL", raising=False)
    monkeypatch.delenv("SIGNOFF_APP", raising=False)
    return free_port()


@pytest.mark.parametrize("form", ["http://127.0.0.1:{port}", "temporal://127.0.0.1:{port}",
                                  "grpc://127.0.0.1:{port}/", "127.0.0.1:{port}/"])
@pytest.mark.parametrize("given", ["--temporal", "SIGNOFF_TEMPORAL"])
def test_a_scheme_or_a_path_is_told_with_the_address_to_give(port: int, form: str,
                                                            given: str) -> None:
    """`worker --once`, given the address with a scheme or a path: the sentence names what was
    given and the HOST:PORT to give instead; nothing is tried."""
    address = form.format(port=port)
    args = ["worker", "--once", "--app", APP]
    done = CliRunner().invoke(main, [*args, "--temporal", address] if given == "--temporal"
                              else args, env={"SIGNOFF_TEMPORAL": address} if given !=
                              "--temporal" else {})
    assert done.exit_code == EXIT_USAGE, done.output
    assert done.output == (
        f"Error: {given} is “{address}”: a Temporal server's address is HOST:PORT alone, with "
        f"no scheme (http://, grpc://) before it and no path after it: give 127.0.0.1:{port}.\n")


@pytest.mark.parametrize("address", ["127.0.0.1", "127.0.0.1:0", "http://127.0.0.1"])
def test_an_address_without_its_port_is_told_with_an_example(port: int, address: str) -> None:
    """An address with no port (or port 0), by SIGNOFF_TEMPORAL, for a command that does not
    run tasks (`users list`): told as the setting's, not as the app's file's, exit 2."""
    done = CliRunner().invoke(main, ["users", "list", "--app", APP],
                              env={"SIGNOFF_TEMPORAL": address})
    assert done.exit_code == EXIT_USAGE, done.output
    assert done.output == (
        f"Error: SIGNOFF_TEMPORAL is “{address}”, which is not a Temporal server's address: "
        "give HOST:PORT alone, such as 127.0.0.1:7233 (7233 is the port a Temporal server "
        "listens on unless told otherwise).\n")


def test_host_and_port_around_spaces_are_taken(port: int) -> None:
    """HOST:PORT (around spaces) is taken as ever: `users list` runs."""
    done = CliRunner().invoke(main, ["users", "list", "--app", APP],
                              env={"SIGNOFF_TEMPORAL": f" 127.0.0.1:{port} "})
    assert done.exit_code == 0, done.output
