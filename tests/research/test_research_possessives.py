"""Questions that ask after something of the asker's own, named with a possessive: declined
where the sources speak of no one's in particular."""

from __future__ import annotations

from pathlib import Path

from .asking import answer_of, app_over, claims_of

_HOSTS = {"host.md": "# Hosts\n\nThe samovar's hostname is printed when it starts.\n",
          "cups.md": "# Cups\n\nThe cups now stand right beside the sugar.\n"}


def test_a_question_after_the_askers_own_thing_named_with_a_possessive(tmp_path: Path) -> None:
    """"What is my samovar's hostname right now?" asks after the asker's own, as "What is my
    password?" does: a sentence of samovars' hostnames does not know theirs (the reader
    answered "What is my computer's hostname right now?" with a sentence of SciPy's "host of
    packages"; the possessive, and a fourth word, hid what the question asks after)."""
    answer = answer_of(app_over(tmp_path / "a", _HOSTS), "What is my samovar's hostname right now?")
    assert not answer.answered, claims_of(answer)
    assert answer.declined is not None
    assert "your samovar's hostname right now" in answer.declined.reason
    files = {**_HOSTS, "notes.md": "# Notes\n\nMy samovar's hostname is kettle-one.\n"}
    answer = answer_of(app_over(tmp_path / "b", files), "What is my samovar's hostname?")
    assert claims_of(answer) == ["My samovar's hostname is kettle-one."]
