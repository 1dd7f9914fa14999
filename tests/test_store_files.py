"""What signoff makes on disk for an app is its owner's alone: the SQLite database (and SQLite's
-wal and -shm files beside it), the consent key, the CLI's profile and its folder. A SQLite file
the library cannot open because of its path is a `StoreError` that says what to do, as the CLI
says it."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import text

from signoff import App, StoreError
from signoff.cli import main

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "examples" / "workshop.py")


@pytest.fixture
def shared_umask() -> Iterator[None]:
    """The umask most machines have (022: what is made is readable by everyone, unless made
    otherwise), for the test's length."""
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.usefixtures("shared_umask")
def test_a_new_database_and_its_key_are_their_owners_alone(tmp_path: Path) -> None:
    """A new app's SQLite file, its -wal and -shm files (while a connection is open) and its
    consent key are made with mode 0600: they keep proposals, people and what seals consent
    (the database was made 0644, readable by everyone on the machine). A database there
    already keeps the mode its owner gave it."""
    app = App("shop", database=f"sqlite:///{tmp_path / 'shop.db'}")
    app.people.add("mia@shop.example", "Mia", roles=["mechanic"])
    app.consent_seal()
    with app.database.engine.connect() as connection:  # (its -wal and -shm are there now)
        connection.execute(text("SELECT 1"))
        made = sorted(p.name for p in tmp_path.iterdir())
        assert made == ["shop.db", "shop.db-shm", "shop.db-wal", "shop.key"]
        assert {name: oct(_mode(tmp_path / name)) for name in made} == {
            name: oct(0o600) for name in made}
    app.database.dispose()
    os.chmod(tmp_path / "shop.db", 0o640)  # (shared with a group, by its owner's choice)
    again = App("shop", database=f"sqlite:///{tmp_path / 'shop.db'}")
    assert [p.handle for p in again.people.all()] == ["mia@shop.example"]
    assert _mode(tmp_path / "shop.db") == 0o640  # (a file there already is left as it is)
    again.database.dispose()


def test_a_database_in_a_folder_that_is_not_there_says_what_to_do(tmp_path: Path) -> None:
    """`App(...)` on a SQLite file in a folder that does not exist: a `StoreError` naming the
    folder and what to do, as the CLI says it (the library said only "unable to open database
    file"); no folder is made."""
    folder = tmp_path / "not-made"
    app = App("shop", database=f"sqlite:///{folder / 'shop.db'}")
    with pytest.raises(StoreError) as refused:
        app.people.all()
    assert f"The folder {folder} does not exist: make it, or give the app a database in a " \
           "folder that does (a relative path is read from the folder you run in)." \
           in str(refused.value)
    assert "unable to open" not in str(refused.value)
    assert not folder.exists()
    told = CliRunner().invoke(main, ["users", "list", "--app", APP],
                              env={"WORKSHOP_DATABASE": f"sqlite:///{folder / 'shop.db'}"})
    assert told.exit_code == 5, told.output
    said = " ".join(told.output.split())
    assert said == f"Error: {refused.value}", said  # (the same words, said once)


def test_a_tilde_in_a_database_url_is_told_apart(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """``sqlite:///~/shop.db`` names a folder called ~ in the folder one runs in, not the home
    folder: the refusal says so, with the path written out."""
    monkeypatch.chdir(tmp_path)
    app = App("shop", database="sqlite:///~/shop.db")
    with pytest.raises(StoreError) as refused:
        app.people.all()
    assert "The folder ~ does not exist" in str(refused.value)
    assert ("A ~ in a database's URL is not your home folder: write the path out "
            f"({Path('~/shop.db').expanduser()}).") in str(refused.value)


def test_a_file_where_the_folder_should_be_says_what_to_do(tmp_path: Path) -> None:
    """A SQLite URL whose folder is a file: a `StoreError` saying so (it said "unable to open
    database file", and the command line that the folder, there as a file, did not exist)."""
    (tmp_path / "notes.txt").write_text("notes\n")
    app = App("shop", database=f"sqlite:///{tmp_path / 'notes.txt' / 'shop.db'}")
    with pytest.raises(StoreError, match=r"notes\.txt is a file, not a folder: give the app a "
                                         "database in a folder"):
        app.people.all()


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_a_folder_the_file_cannot_be_made_in_says_what_to_do() -> None:
    """A SQLite file in a folder where no file can be made (/proc, whoever runs the test): a
    `StoreError` naming the folder and why, and what to do (it said "unable to open database
    file")."""
    app = App("shop", database="sqlite:////proc/signoff-shop.db")
    with pytest.raises(StoreError, match=r"its file cannot be made in the folder /proc \(.+\): "
                                         "give the app a database in a folder you may write"):
        app.people.all()


def test_a_database_that_is_a_folder_says_what_to_do(tmp_path: Path) -> None:
    """`App(...)` on a SQLite URL that names a folder: a `StoreError` saying it is a folder, not
    a database file (the library said only "unable to open database file")."""
    (tmp_path / "shop.db").mkdir()
    app = App("shop", database=f"sqlite:///{tmp_path / 'shop.db'}")
    with pytest.raises(StoreError, match="is a folder, not a database file: give the app the "
                                         "path of a file"):
        app.people.all()


@pytest.mark.usefixtures("shared_umask")
def test_the_profile_and_the_folder_made_for_it_are_their_owners_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`users token HANDLE --save` keeps the token in a profile of mode 0600, in a folder it
    makes with mode 0700 (the folder was made 0755, listing to everyone that a profile is
    there)."""
    from tests.workshop_web import open_workshop

    monkeypatch.setenv("SIGNOFF_PROFILE", str(tmp_path / "config" / "signoff" / "profile.json"))
    for name in ("SIGNOFF_AS", "SIGNOFF_TOKEN", "SIGNOFF_APP"):
        monkeypatch.delenv(name, raising=False)
    open_workshop(tmp_path, monkeypatch)
    saved = CliRunner().invoke(main, ["users", "token", "mia@workshop.example", "--save",
                                      "--app", APP])
    assert saved.exit_code == 0, saved.output
    assert _mode(tmp_path / "config" / "signoff" / "profile.json") == 0o600
    assert _mode(tmp_path / "config" / "signoff") == 0o700
