"""What the research tests share: an app over a folder of a few files, asked a question."""

from __future__ import annotations

from pathlib import Path

from signoff import App, GroundedAnswer, TaskStatus
from signoff.research import Corpus, ask, research_app


def app_over(tmp_path: Path, files: dict[str, str]) -> App:
    """A research app over a folder of `files` (name → text), in memory."""
    root = tmp_path / "sources"
    root.mkdir(parents=True)
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return research_app(Corpus.from_folder(root, index=tmp_path / "i.sqlite"),
                        database="sqlite://")


def answer_of(app: App, question: str) -> GroundedAnswer:
    """What the app answers `question` (its task Done)."""
    outcome = ask(app, question)
    assert outcome.status is TaskStatus.DONE, outcome.problem
    assert isinstance(outcome.result, GroundedAnswer)
    return outcome.result


def claims_of(answer: GroundedAnswer) -> list[str]:
    """The text of each claim of `answer`."""
    return [c.text for c in answer.claims]
