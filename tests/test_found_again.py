"""An action's effects are found again when a name its code resolved is bound to something else
after it was registered (`signoff.effects.bindings`): a module's global, a module's or a class's
attribute. The gate reads what the code does now, not what it did when the app started."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel

from signoff import Agent, App, Permits, ProposalStatus, Skill, TaskStatus
from signoff.testing import ScriptedModel, says


class Done(BaseModel):
    total: int


class _KeptHere:
    """Keeps a note in memory: only computes."""

    def keep(self, note: str) -> str:
        return note.upper()


class _SentAway:
    """Sends a note to another machine (a process started: it reaches outside)."""

    def keep(self, note: str) -> str:
        os.system(f"echo {note!r} > /dev/null")
        return note


archive: _KeptHere | _SentAway = _KeptHere()
"""Where notes are kept: set to a `_SentAway` once the app is running, as an app's setup may."""


class _Shelf:
    """Where notes are kept, as a value on a class."""

    archive: _KeptHere | _SentAway = _KeptHere()


class _Feed:
    """A feed kept in memory: iterating it only computes."""

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(["a", "b"])


class _RemoteFeed:
    """A feed that fetches as it is iterated (a process started: it reaches outside)."""

    def __iter__(self):  # type: ignore[no-untyped-def]
        os.system("true")
        return iter(["a"])


FEEDS: dict[str, object] = {"news": _Feed()}
"""A registry of feeds, filled as the app's modules load."""


client: _SentAway | None = None
"""Made when first used (``global client``), as a lazily made client is."""

calls = 0
"""A counter the app moves on: a number rebound to a number changes nothing the analysis read."""

seen: dict[str, int] = {}
"""A cache the app empties by binding a new one: what a container holds is not read from it."""


def _app(tmp_path: Path) -> App:
    app = App("t", database=f"sqlite:///{tmp_path / 't.db'}")

    @app.action
    def store(note: str) -> str:
        """Store a note."""
        return archive.keep(note)

    @app.action
    def shelve(note: str) -> str:
        """Shelve a note."""
        return _Shelf.archive.keep(note)

    @app.action
    def count(note: str) -> int:
        """Count a note."""
        return calls + len(note) + len(seen)

    return app


def test_a_global_rebound_after_registration_is_read_again_before_the_gate(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """`store` only computes with the archive it was registered with, so it runs alone; the
    archive rebound to one that reaches outside, its next call is proposed with that effect
    shown, and the log says which name changed. (Before, its effects stayed as they were
    found at registration: the call ran alone, and only the run's hold stood in its way.)"""
    app = _app(tmp_path)

    class Filing(Skill[None, Done]):
        description = "File notes."
        tools = ["store"]

    class Clerk(Agent):
        purpose = "You file notes."
        skills = [Filing()]
        may = Permits()

    noor = app.people.add("noor@t.example", "Noor")
    app.add_agent(Clerk, sponsor=noor)
    first = app.agent(Clerk).do(Filing(), None, for_=noor, model=ScriptedModel(
        says.tool("store", note="a"), says.hand_back(Done(total=1))))
    assert first.status is TaskStatus.DONE, first.problem
    assert app.proposals(task=first.task) == []

    monkeypatch.setattr(sys.modules[__name__], "archive", _SentAway())
    with caplog.at_level(logging.WARNING, logger="signoff.actions"):
        second = app.agent(Clerk).do(Filing(), None, for_=noor, model=ScriptedModel(
            says.tool("store", note="b"), says.hand_back(Done(total=1))))
    assert second.status is TaskStatus.WAITING, second.problem
    (proposal,) = app.proposals(task=second.task)
    assert proposal.status is ProposalStatus.WAITING
    assert any("os.system" in line for line in app.actions.info("store").effects.explain())
    assert ("Action store: tests.test_found_again.archive is bound to something else than when "
            "its effects were found, so they were found again: ") in caplog.text


def test_an_attribute_of_a_class_set_later_and_a_lazily_made_global_are_read_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A value kept on a class set to another, and a global made on first use (None until
    then): the action's effects follow the code now there, once; read again with nothing
    changed, they are those found last."""
    app = _app(tmp_path)
    assert app.actions.info("shelve").effects.only_reads
    monkeypatch.setattr(_Shelf, "archive", _SentAway())
    effects = app.actions.info("shelve").effects
    assert not effects.only_reads
    assert app.actions.info("shelve").effects is effects

    @app.action
    def send(note: str) -> str:
        """Send a note, with the client made when first needed."""
        global client
        if client is None:
            client = _SentAway()
        return client.keep(note)

    before = app.actions.info("send").effects
    monkeypatch.setattr(sys.modules[__name__], "client", _SentAway())
    after = app.actions.info("send").effects
    assert after is not before
    assert any("os.system" in line for line in after.explain()), after.explain()


def test_a_number_moved_on_changes_nothing_and_code_that_keeps_changing_does_anything(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A counter rebound to another number, and a cache to another dict, leave the effects as
    found (nothing the analysis read changed); an archive rebound again and again is, after
    eight times, taken to do anything, in words, rather than analysed at every call."""
    app = _app(tmp_path)
    effects = app.actions.info("count").effects
    monkeypatch.setattr(sys.modules[__name__], "calls", 41)
    monkeypatch.setattr(sys.modules[__name__], "seen", {"a": 1})
    assert app.actions.info("count").effects is effects
    for i in range(9):
        monkeypatch.setattr(sys.modules[__name__], "archive",
                            _KeptHere() if i % 2 else _SentAway())
        found = app.actions.info("store").effects
    assert not found.only_reads
    assert any("what its code resolves keeps changing (tests.test_found_again.archive among "
               "them): its effects cannot be kept up with" in line for line in found.explain()), (
        found.explain())
    monkeypatch.setattr(sys.modules[__name__], "archive", _KeptHere())
    assert app.actions.info("store").effects is found  # (nothing more is found again)


_INSTALLED = '''
import os


class KeptHere:
    def keep(self, note: str) -> str:
        return note.upper()


class SentAway:
    def keep(self, note: str) -> str:
        os.system("true")
        return note


archive = KeptHere()


def store(note: str) -> str:
    """Store a note."""
    return archive.keep(note)


def make_shelf():
    class Shelf:
        archive = KeptHere()
    return Shelf
'''


def test_an_app_installed_among_the_packages_is_the_apps_code_all_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An app installed with ``pip install .`` lives where installed packages do: its code is
    still the app's (the package its actions are of), so a global of its rebound after
    registration is seen (nothing it resolved was kept: the feature was inert there); and two
    classes one factory made are two places, each seen (they were kept as one)."""
    import signoff.effects.analyser as analyser

    site = tmp_path / "site"
    (site / "installedshop").mkdir(parents=True)
    (site / "installedshop" / "__init__.py").write_text(_INSTALLED)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(analyser, "LIBRARIES", (str(site), *analyser.LIBRARIES))
    import installedshop  # type: ignore[import-not-found]

    first, second = installedshop.make_shelf(), installedshop.make_shelf()

    def shelve(note: str) -> str:
        """Shelve a note on both shelves."""
        return first.archive.keep(note) + second.archive.keep(note)

    app = App("t", database=f"sqlite:///{tmp_path / 't.db'}")
    app.add_action(installedshop.store)
    app.add_action(shelve)
    assert len(app.actions.info("store").effects.resolved) > 0
    assert app.actions.info("store").effects.only_reads
    monkeypatch.setattr(installedshop, "archive", installedshop.SentAway())
    assert not app.actions.info("store").effects.only_reads
    assert app.actions.info("shelve").effects.only_reads
    monkeypatch.setattr(second, "archive", installedshop.SentAway())
    assert not app.actions.info("shelve").effects.only_reads


def test_what_a_registry_holds_types_its_items_and_filling_it_later_is_seen(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An item of a registry a module keeps (``FEEDS["news"]``) is of the types the registry
    holds: iterating one runs its class's ``__iter__`` (it had no known type, and Python's own
    iteration of it was taken to do nothing). A feed that reaches outside put in the registry
    after registration — in place, the name bound to the same dict — is seen, and found."""
    app = App("t", database=f"sqlite:///{tmp_path / 't.db'}")

    @app.action
    def headlines(name: str) -> int:
        """How many headlines a feed has."""
        return len([h for h in FEEDS[name]])

    assert app.actions.info("headlines").effects.only_reads
    monkeypatch.setitem(FEEDS, "sport", _RemoteFeed())
    effects = app.actions.info("headlines").effects
    assert any("os.system" in line for line in effects.explain()), effects.explain()
