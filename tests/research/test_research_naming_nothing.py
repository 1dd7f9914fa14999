"""A question that names nothing to look for ("What?", "How does it work?") is declined at
once, saying to ask about something by its name: what a search for its words found would be
about anything (the reader answered "What?" with "Skimming through the Library Reference will
give you an idea of what's available.", and "How does it work?" with what Python's version
numbers are). A short question that names something is answered as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from signoff import App
from signoff.cli.research import research
from signoff.research.terms import names_nothing
from tests.research.asking import answer_of, claims_of


@pytest.mark.parametrize(("question", "why", "example"), [
    ("What?", "its word, “what”, names nothing in particular",
     "such as “What does the with statement do?”"),
    ("How does it work?", "“it” stands for nothing named before it",
     "such as “How does the with statement work?”"),
    ("What do they do?", "“they” stands for nothing named before it",
     "such as “What do generators do?”"),
])
def test_a_question_that_names_nothing_is_declined_saying_to_name_something(
        app: App, question: str, why: str, example: str) -> None:
    """Its words only ask ("what", "how does … work"), or point to something named before it,
    and nothing is: it is declined, unsearched, saying so and how to ask (it was answered with
    a sentence that held one of its words)."""
    answer = answer_of(app, question)
    assert not answer.answered, claims_of(answer)
    assert answer.declined is not None
    reason = answer.declined.reason
    assert reason.startswith("The question names nothing to look for ("), reason
    assert why in reason, reason
    assert "Ask about something by its name" in reason, reason
    assert reason.endswith(f"{example}."), reason
    assert answer.declined.searched == []
    assert answer.declined.closest == []


@pytest.mark.parametrize(("question", "topic"), [
    ("What does yield do?", "yield"),
    ("What is a lambda?", "lambda"),
    ("What does break do?", "break"),
    ("What does pass do? How does it work?", "pass"),
    ("How does it work? What does pass do?", "pass"),
])
def test_a_short_question_that_names_something_is_answered(app: App, question: str,
                                                           topic: str) -> None:
    """A question of few words that names something is still searched for and answered from
    its topic, and so is one with a part that names nothing, read with the part that does (its
    "it" points back to what that one names)."""
    answer = answer_of(app, question)
    assert answer.answered, answer.declined
    assert topic in answer.source_ids, (answer.source_ids, claims_of(answer))


@pytest.mark.parametrize(("question", "nothing"), [
    ("What?", True), ("Why?", True), ("?", True), ("How does it work?", True),
    ("What is it for?", True), ("How do I use them?", True), ("How long does it take?", True),
    ("What is the difference?", True), ("Can you tell me about something?", True),
    ("Why does it not work?", True), ("What does not do?", False),
    ("What if it does not exist?", False),
    ("What is Python?", False), ("What does any do?", False), ("What does @ do?", False),
    ("What does == do?", False), ("What does the in operator do?", False),
    ("What does with do?", False), ("What is x?", False), ("What is a lambda?", False),
])
def test_what_names_nothing(question: str, nothing: bool) -> None:
    """Pronouns, question words, prepositions and light verbs name nothing; a noun, a Python
    name ("any"), an operator or another symbol ("@"), a keyword named as one or what "does"
    asks of ("What does with do?", not the "not" of "does not exist"), and "Python" name
    something."""
    assert names_nothing(question) is nothing


def test_the_command_declines_a_question_that_names_nothing(tmp_path: Path) -> None:
    """`signoff research "How does it work?" --json`: declined, with the reason, and nothing
    searched or cited (it printed two sentences on Python's version numbers)."""
    result = CliRunner().invoke(research, ["How does it work?", "--json", "--database",
                                           f"sqlite:///{tmp_path / 'r.db'}"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["declined"] is True, data["answer"]
    assert data["answer"]["claims"] == []
    assert data["decline"]["searched"] == []
    assert "such as “How does the with statement work?”" in data["decline"]["reason"]
