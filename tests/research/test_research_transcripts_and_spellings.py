"""A console session is never quoted as a claim, and a question in British spelling finds the
sources' American words (and the other way round)."""

from __future__ import annotations

from pathlib import Path

import pytest

from signoff.research.relevance import Source, rank_sentences, stem
from signoff.research.sentences import sentences_of

from .asking import answer_of, app_over, claims_of


@pytest.mark.parametrize("prompt", ["(tutorial-env) $ ", "(.venv) $ ", "C:\\Users\\me> ",
                                    "PS C:\\work> "])
def test_a_console_session_behind_a_prompt_gives_no_sentence(prompt: str) -> None:
    """A session whose prompt names a virtual environment or a Windows folder is code, as one
    behind a bare "$ " is (the offline reader quoted "Installing collected packages: novas,
    numpy, requests Running setup.py install …" of Python's venv tutorial, asked "How do I
    install numpy with pip?")."""
    text = (f"You can install a package by name:\n\n{prompt}python -m pip install novas\n"
            "Collecting novas\n  Downloading novas-3.1.1.3.tar.gz (136kB)\n"
            "Installing collected packages: novas\n  Running setup.py install for novas\n"
            "Successfully installed novas-3.1.1.3\n\nThe package is then installed.\n")
    assert [s.text for s in sentences_of("venv", text)] == [
        "You can install a package by name:", "The package is then installed."]


def test_a_sentence_in_parentheses_is_still_prose() -> None:
    """A line that only begins with a word in brackets is not a prompt."""
    text = "(Optional) The cache is kept in a folder of its own.\n"
    assert [s.text for s in sentences_of("p", text)] == [
        "(Optional) The cache is kept in a folder of its own."]


@pytest.mark.parametrize(("british", "american"), [
    ("serialise", "serialize"), ("serialised", "serialized"), ("initialising", "initializing"),
    ("normalisation", "normalization"), ("analyse", "analyze"), ("behaviour", "behavior"),
    ("colours", "colors"), ("favourite", "favorite")])
def test_british_and_american_spellings_share_a_stem(british: str, american: str) -> None:
    assert stem(british) == stem(american)


@pytest.mark.parametrize("word", ["this", "is", "wise", "analysis", "our", "hour", "your",
                                  "four", "tour", "noise"])
def test_other_words_keep_their_stem(word: str) -> None:
    assert stem(word) in (word, word[:-1])


_PICKLE = {"pickle.md": "# Pickling\n\nThe pickle module can serialize an object into a stream "
                        "of bytes.\n",
           "garden.md": "# The garden\n\nThe garden is watered at dawn.\n"}


def test_a_question_in_british_spelling_is_answered_from_american_text(tmp_path: Path) -> None:
    """"How do I serialise an object?" is answered by "The pickle module can serialize an
    object…" (it was declined: "No source has “serialise” (check the spelling…)")."""
    answer = answer_of(app_over(tmp_path, _PICKLE), "How do I serialise an object?")
    assert claims_of(answer) == [
        "The pickle module can serialize an object into a stream of bytes."]



def test_a_word_only_in_a_page_s_description_is_a_kin() -> None:
    """A page's title that names a thing and describes it ("urlkit — Library for opening
    addresses") is about the thing: "opening" in its description does not make "The return
    value is a tuple…" as sure an answer to "What does open return?" as a sentence that says
    it (the offline reader cited urllib.request's urlretrieve twice beside "open() returns a
    file object")."""
    read = [Source(source_id="io.md", title="Input and Output",
                   text="# Input and Output\n\n## Reading files\n\n"
                        "The open function returns a file object.\n"),
            Source(source_id="urlkit.md", title="urlkit — Library for opening addresses",
                   match=0.4, text="# urlkit — Library for opening addresses\n\n## Legacy "
                                   "interface\n\nThe return value is a tuple of a name and "
                                   "its headers.\n")]
    reading = rank_sentences("What does open return?", read,
                             frequency={"open": 300, "return": 500}, corpus_size=1000)
    assert [s.text for s in reading.chosen] == ["The open function returns a file object."]
