"""A guard config that names a tool its server does not list: a misspelling of one it lists is
refused as the guard starts, in words; another name is left for a later version of the server."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from signoff.cli import main
from tests.mcp_servers import ROOT, guard_config, stdio_server

UPSTREAM = str(ROOT / "tests" / "mcp_upstream_turning.py")


def _config(tmp: Path, leave: tuple[str, str]) -> Path:
    """A guard in front of the turning server (its one tool read_file, hinted read-only), its
    config's [servers.files.tools] table giving `leave` (a tool's name, its leave)."""
    (tmp / "files").mkdir()
    return guard_config(tmp, stdio_server("files", UPSTREAM, env={"FILES_ROOT": str(tmp / "files")},
                                          trusted=True, tools=dict([leave])))


@pytest.mark.parametrize("misspelt", ["read_fil", "Read_File", "read-file"])
def test_a_misspelt_tool_in_the_config_is_refused_as_the_guard_starts(tmp_path: Path,
                                                                       misspelt: str) -> None:
    """`read_fil = "never"` left read_file to its read-only hint (alone), unsaid: the guard
    refuses to start, naming the tool it lists and the leave each would take (exit 2)."""
    config = _config(tmp_path, (misspelt, "never"))
    told = CliRunner().invoke(main, ["mcp", "guard", str(config)])
    assert told.exit_code == 2, told.output
    assert (f"The guard's config names the tool {misspelt} under [servers.files.tools], which "
            "files does not list: did you mean read_file? As written, read_file would take the "
            "leave 'alone', not 'never'. Correct the name in the config, then run the command "
            "again.") in " ".join(told.output.split()), told.output
    assert "Traceback" not in told.output


def test_a_tool_named_for_a_later_version_of_the_server_is_no_mistake(tmp_path: Path) -> None:
    """A name far from every tool the server lists (write_file, beside read_file) is taken for a
    tool a later version adds: the guard starts and serves (the client lists its tools)."""
    import anyio

    from tests.mcp_servers import connected, environment

    config = _config(tmp_path, ("write_file", "never"))

    async def listed() -> list[str]:
        async with connected("stdio", ["mcp", "guard", str(config)], environment()) as client:
            return [t.name for t in (await client.list_tools()).tools]

    assert anyio.run(listed) == ["files_read_file"]
