"""Questions that ask how two things differ, or who did something: answered by a sentence that
tells it, or declined."""

from __future__ import annotations

from pathlib import Path

from signoff.research.asks import compared, told_by

from .asking import answer_of, app_over, claims_of

_TEA = {"samovar.md": "# Tea things\n\nThe samovar and the teapot both hold tea.\n",
        "cups.md": "# Cups\n\nThe cups stand on a tray beside the sugar.\n"}


def test_a_difference_is_told_only_by_a_sentence_that_sets_one_against_the_other(
        tmp_path: Path) -> None:
    """"What is the difference between a samovar and a teapot?" is not answered by a sentence
    that only names both (the offline reader answered "What is the difference between a list
    and a tuple?" with "There are three basic sequence types: lists, tuples, and range
    objects."), and is by one that tells how they differ."""
    question = "What is the difference between a samovar and a teapot?"
    answer = answer_of(app_over(tmp_path / "a", _TEA), question)
    assert not answer.answered, claims_of(answer)
    assert answer.declined is not None
    assert "how they differ" in answer.declined.reason
    files = {**_TEA, "heat.md": "# Heating\n\nUnlike a teapot, a samovar heats its own water.\n"}
    answer = answer_of(app_over(tmp_path / "b", files), question)
    assert claims_of(answer) == ["Unlike a teapot, a samovar heats its own water."]


def test_a_difference_of_names_needs_both_names(tmp_path: Path) -> None:
    """"What is the difference between __hash__ and __eq__?" is not answered by a sentence of
    __hash__ alone (a name that begins with "_" was no side of a comparison: the reader
    answered "What is the difference between __str__ and __repr__?" with a sentence of
    __repr__ alone)."""
    files = {"hash.md": "# Hashing\n\nThe __hash__ method returns an integer rather than a "
                        "string.\n",
             "equal.md": "# Equality\n\nTwo objects are equal when their __eq__ says so.\n",
             "cups.md": _TEA["cups.md"]}
    answer = answer_of(app_over(tmp_path, files), "What is the difference between __hash__ and "
                                                  "__eq__?")
    assert not answer.answered, claims_of(answer)


def test_which_questions_ask_how_two_things_differ() -> None:
    assert compared("What is the difference between a list and a tuple?") == ("a list", "a tuple")
    assert compared("How does a list differ from a tuple?") == ("a list", "a tuple")
    assert [a for a, _ in told_by("What are the differences between bytes and str?")] == [
        "how they differ"]
    # an operator or a keyword is told of in the terms of what it does, not set against another
    assert compared("What is the difference between is and ==?") == ("", "")
    assert told_by("What is the difference between is and ==?") == []
    [(_, differs)] = told_by("What is the difference between a list and a tuple?")
    assert differs.search("Though tuples may seem similar to lists, they are used differently.")
    assert not differs.search("There are three sequence types: lists, tuples, and ranges.")


_WORKSHOP = {"kernel.md": "# Kernel\n\nConstants for the samovar kernel are listed here.\n",
             "barn.md": "# Barn\n\nThe barn was built of oak.\n",
             "shed.md": "# Shed\n\nThe shed was built of pine.\n"}


def test_who_did_something_is_told_only_by_a_sentence_saying_it_was_done(tmp_path: Path) -> None:
    """"Who built the samovar kernel?" is not answered by a sentence that only names the
    samovar kernel (the reader answered "Who created the Linux kernel?" with "Constants for
    Linux Kernel cryptography."), and is by one that says who built it."""
    question = "Who built the samovar kernel?"
    answer = answer_of(app_over(tmp_path / "a", _WORKSHOP), question)
    assert not answer.answered, claims_of(answer)
    assert answer.declined is not None
    assert "who built it" in answer.declined.reason
    files = {**_WORKSHOP, "maker.md": "# Makers\n\nThe samovar kernel was built by Ada.\n"}
    answer = answer_of(app_over(tmp_path / "b", files), question)
    assert claims_of(answer) == ["The samovar kernel was built by Ada."]
    assert told_by("Who calls __init__?") == []  # who does it, not who did it once
