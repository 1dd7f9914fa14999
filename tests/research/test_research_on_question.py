"""A research answer is on the question or says it cannot be answered: an answer whose every
citation holds, but whose claims speak of something else than what was asked, is refused,
naming the claims; a claim on the question only by the heading it quotes under is accepted."""

from __future__ import annotations

from pathlib import Path

from signoff import TaskStatus
from signoff.limits.grounding import Citation, Claim, Declined, GroundedAnswer
from signoff.research import Corpus, ask, read_source, research_app
from signoff.testing import ScriptedModel, says

PAGE = """# Kitchen

## Kettles

A kettle should be descaled every month.

Its handle stays cool, however long it boils.

## Teapots

A teapot keeps tea warm for an hour.
"""


def _app(tmp_path: Path):  # type: ignore[no-untyped-def]
    root = tmp_path / "docs"
    root.mkdir()
    (root / "kitchen.md").write_text(PAGE)
    return research_app(Corpus.from_folder(root, index=tmp_path / "i.sqlite"),
                        database="sqlite://")


def _claim(quote: str) -> Claim:
    return Claim(text=quote, citations=[Citation(source_id="kitchen.md", quote=quote)])


def test_an_answer_cited_exactly_but_beside_the_question_is_refused_naming_its_claims(
        tmp_path: Path) -> None:
    """Asked how often a kettle is descaled, a model quotes, exactly, what a teapot does: each
    citation holds, and the answer was Done. It is refused, naming the claim and the
    question's words; the model's next answer, on the question, is Done."""
    app = _app(tmp_path)
    beside = GroundedAnswer(claims=[_claim("A teapot keeps tea warm for an hour.")])
    on = GroundedAnswer(claims=[_claim("A kettle should be descaled every month.")])
    script = ScriptedModel(says.tool(read_source, source_id="kitchen.md"),
                           says.hand_back(beside), says.hand_back(on))
    outcome = ask(app, "How often should I descale the kettle?", model=script)
    assert outcome.status is TaskStatus.DONE, outcome.problem
    assert outcome.result == on
    told = script.seen.messages[-1][-1].text
    assert told.startswith("Invalid: The answer is not accepted: claim 1 (“A teapot keeps tea "
                           "warm for an hour.”) says nothing of what the question asks"), told
    assert "(descale, kettle)" in told, told
    assert "decline" in told


def test_every_claim_beside_the_question_is_named_and_one_on_it_is_not(tmp_path: Path) -> None:
    """Of three claims, the two beside the question are named, and the one on it is not."""
    app = _app(tmp_path)
    mixed = GroundedAnswer(claims=[_claim("A teapot keeps tea warm for an hour."),
                                   _claim("A kettle should be descaled every month."),
                                   _claim("A teapot keeps tea warm for an hour.")])
    script = ScriptedModel(says.tool(read_source, source_id="kitchen.md"),
                           says.hand_back(mixed), says.hand_back(GroundedAnswer(declined=Declined(
                               reason="Nothing more to say."))))
    ask(app, "How often should I descale the kettle?", model=script)
    told = script.seen.messages[-1][-1].text
    assert "claim 1 (“A teapot" in told, told
    assert "claim 3 (“A teapot" in told, told
    assert "claim 2" not in told, told
    assert " say nothing of what the question asks" in told, told


def test_a_claim_on_the_question_by_the_heading_it_stands_under_is_accepted(
        tmp_path: Path) -> None:
    """“Its handle stays cool, however long it boils.” has none of the words of “Is a kettle
    safe to hold?”, but the heading it stands under has one (“Kettles”): it is on the
    question, and the answer is Done."""
    app = _app(tmp_path)
    answer = GroundedAnswer(claims=[_claim("Its handle stays cool, however long it boils.")])
    script = ScriptedModel(says.tool(read_source, source_id="kitchen.md"),
                           says.hand_back(answer))
    outcome = ask(app, "Is a kettle safe to hold?", model=script)
    assert outcome.status is TaskStatus.DONE, outcome.problem
    assert outcome.result == answer
