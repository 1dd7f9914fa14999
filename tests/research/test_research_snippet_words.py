"""A search's snippet shows whole words: where FTS5 cut it inside one ("1,000" is two tokens to
it), the piece of the word is not shown, and so cannot be quoted as a word of its own."""

from __future__ import annotations

from pathlib import Path

from signoff import TaskStatus
from signoff.limits.grounding import Citation, Claim, GroundedAnswer
from signoff.research import Corpus, ask, research_app, search_sources
from signoff.testing import ScriptedModel, says

FILLER = " ".join(f"alpha{n}" for n in range(80))


def test_a_snippet_cut_inside_a_number_does_not_show_its_last_digits_as_a_word(
        tmp_path: Path) -> None:
    """"…000 euros euros…" was the snippet of "The fine is 1,000 euros euros…", and a claim
    quoting "000 euros" from it was Done, though the source has no such words: the whole-word
    rule ("1" is not in "1,000") held of a read part, not of a snippet. A snippet cut at a
    space keeps its first and last words."""
    root = tmp_path / "docs"
    root.mkdir()
    (root / "kettle.md").write_text(f"{FILLER} kettle {' '.join(['kettle'] * 30)} {FILLER}\n")
    (root / "fines.md").write_text(f"{FILLER} The fine is 1,000 {' '.join(['euros'] * 30)} "
                                   f"{FILLER}\n")
    corpus = Corpus.from_folder(root, index=tmp_path / "i.sqlite")
    [hit] = corpus.search("000 euros")
    assert hit.snippet.startswith("…euros euros"), hit.snippet
    [whole] = corpus.search("kettle")
    assert whole.snippet.strip("…").split() == ["kettle"] * 24, whole.snippet
    app = research_app(corpus, database="sqlite://")
    cut = GroundedAnswer(claims=[Claim(text="The fine is 000 euros.", citations=[
        Citation(source_id="fines.md", quote="000 euros euros")])])
    script = ScriptedModel(says.tool(search_sources, query="000 euros"), says.hand_back(cut))
    outcome = ask(app, "How much is the fine?", model=script, max_steps=2)
    assert outcome.status is not TaskStatus.DONE
    assert outcome.result is None
