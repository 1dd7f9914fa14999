"""A question that first tells what the asker has, then asks, is read by the clause that asks
("I have a list of strings and I want to join them…, how do I join a list of strings?"), and so
is a question too long to read whole."""

from __future__ import annotations

from pathlib import Path

from signoff.research.questions import questions_in
from tests.research.asking import answer_of, app_over, claims_of

STRINGS = """# Strings

The join method of a string joins a list of strings, putting the string between each of them.

The split method cuts a string into a list of strings.
"""


def test_a_clause_that_only_tells_is_not_a_question() -> None:
    assert questions_in("I have a list of strings and I want to join them together with commas "
                        "between each one, how do I join a list of strings?") == [
        "How do I join a list of strings?"]
    assert questions_in("My code fails. Why do I get ZeroDivisionError?") == [
        "Why do I get ZeroDivisionError?"]
    assert questions_in("What does pass do? What does yield do?") == [
        "What does pass do?", "What does yield do?"]
    assert questions_in("What is a tuple, and how do I sort it?") == [
        "What is a tuple, and how do I sort it?"]


def test_a_long_question_is_read_by_its_last_clause_that_asks() -> None:
    story = "I am writing a tool that reads many files and writes them back. " * 8
    assert questions_in(story + "How do I join a list of strings?") == [
        "How do I join a list of strings?"]


def test_told_then_asked_is_answered(tmp_path: Path) -> None:
    """The question is answered by what it asks, not declined for the words of what the asker
    told ("commas", "together")."""
    app = app_over(tmp_path, {"strings.md": STRINGS})
    answer = answer_of(app, "I have a list of strings and I want to join them together with "
                            "commas between each one, how do I join a list of strings?")
    assert claims_of(answer) == ["The join method of a string joins a list of strings, putting "
                                 "the string between each of them."]
