"""A question that asks how to do something ("How do I descale a teapot?") is answered only by
a sentence that tells how to do it: one that names the task's action, or, without it, names
what the task is done to in two words or more. A sentence on teapots that never says "descale"
is about teapots, and one on descaling kettles about kettles: the reader declines, saying so,
and names the source that has the action."""

from __future__ import annotations

from pathlib import Path

import pytest

from signoff.research.howto import task_action
from tests.research.asking import answer_of, app_over, claims_of

OTHERS = {f"other{n}.md": f"# Other {n}\n\n{text}\n" for n, text in enumerate([
    "A socket is one end of a network connection between two programs.",
    "The calendar module prints calendars of months and years.",
    "A thread runs code at the same time as other threads do.",
    "The wave module reads and writes sound files in the WAV format.",
])}
"""Pages of other things, so that the words of the question are rare in the corpus."""

KITCHEN = {
    "kettle.md": "# Kettle\n\nTo descale a kettle, fill it with equal parts of water and white "
                 "vinegar, boil it, and leave it for an hour.\n\nA kettle should be emptied "
                 "after each use.\n",
    "teapot.md": "# Teapot\n\nA teapot should be rinsed with hot water before the tea goes "
                 "in.\n\nA teapot keeps tea warm for a while.\n",
    **OTHERS,
}


def test_a_sentence_without_the_tasks_action_does_not_answer_it(tmp_path: Path) -> None:
    """"How do I descale a teapot?" is declined — not answered with "A teapot should be
    rinsed…", nor with how to descale a kettle — and the reason names the action and the
    kettle's page, which has it."""
    answer = answer_of(app_over(tmp_path, KITCHEN), "How do I descale a teapot?")
    assert answer.declined is not None, claims_of(answer)
    reason = answer.declined.reason
    assert "how to descale a teapot" in reason
    assert "“descale”" in reason
    assert "'kettle.md'" in reason
    assert "“teapot”" in reason
    assert "kettle.md" in answer.declined.closest


def test_the_sentence_that_tells_the_action_answers(tmp_path: Path) -> None:
    """Of the same pages, "How do I descale a kettle?" is answered by the kettle's sentence,
    and "How do I rinse a teapot?" by the teapot's."""
    app = app_over(tmp_path, KITCHEN)
    assert claims_of(answer_of(app, "How do I descale a kettle?"))[:1] == [
        "To descale a kettle, fill it with equal parts of water and white vinegar, boil it, "
        "and leave it for an hour."]
    assert claims_of(answer_of(app, "How do I rinse a teapot?"))[:1] == [
        "A teapot should be rinsed with hot water before the tea goes in."]


def test_a_sentence_naming_all_a_task_is_done_to_answers_without_its_verb(
        tmp_path: Path) -> None:
    """"How do I compute a square root?" is answered by "Return the square root of x.": what
    the task makes, named in full (two words), tells how to get it whatever the verb."""
    files = {"math.md": "# math — Mathematical functions\n\nmath.sqrt(x)\n\nReturn the square "
                        "root of x.\n\nmath.floor(x)\n\nReturn the floor of x, the largest "
                        "integer less than or equal to x.\n",
             "compute.md": "# Computing\n\nA computer can compute many things quickly.\n",
             **OTHERS}
    answer = answer_of(app_over(tmp_path, files), "How do I compute a square root?")
    assert claims_of(answer)[:1] == ["Return the square root of x."]


@pytest.mark.parametrize(("question", "action"), [
    ("How do I descale a teapot?", ("descale", "descale a teapot")),
    ("How to rename a file?", ("rename", "rename a file")),
    ("How can I safely delete a file?", ("delete", "delete a file")),
    ("How do I raise an exception?", ("raise", "raise an exception")),
    ("How do I check if a file exists?", ("", "")),  # finding out: the answer tells what is
    ("How do I find the length of a list?", ("", "")),
    ("How do I get the current directory?", ("", "")),  # a word only of the question
    ("What is a teapot?", ("", "")),  # no task
])
def test_the_action_a_task_asks(question: str, action: tuple[str, str]) -> None:
    """The action is the verb after "How do I", an adverb passed over; a verb of finding out,
    or one the question's words leave out, is none."""
    assert task_action(question) == action
