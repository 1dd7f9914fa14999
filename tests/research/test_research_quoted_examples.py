"""A sentence holding an example's string in quotes — a full stop or a quote mark inside it —
is one sentence, cut neither inside the string nor left joined to the next by its quote."""

from __future__ import annotations

from pathlib import Path

import pytest

from signoff.research.sentences import split_sentences

from .asking import answer_of, app_over, claims_of

_SHLEX = ("Enclosing characters in quotes which are part of escapedquotes (e.g. '\"') preserves "
          "the literal value of all characters within the quotes, with the exception of the "
          "characters mentioned in escape. The escape characters retain its special meaning "
          "only when followed by the quote in use, or the escape character itself. Otherwise "
          "the escape character will be considered a normal character.")
"""A paragraph of Python's documentation of shlex, as the corpus reads it: its ``'"'`` was an
opening quote, and held its three sentences as one."""


@pytest.mark.parametrize(("text", "sentences"), [
    (_SHLEX, [
        "Enclosing characters in quotes which are part of escapedquotes (e.g. '\"') preserves "
        "the literal value of all characters within the quotes, with the exception of the "
        "characters mentioned in escape.",
        "The escape characters retain its special meaning only when followed by the quote in "
        "use, or the escape character itself.",
        "Otherwise the escape character will be considered a normal character."]),
    # textwrap's placeholder, as Python's documentation has it: it was cut after the ' [...]'
    ("(default: ' [...]') String that will appear at the end of the output text if it has "
     "been truncated.",
     ["(default: ' [...]') String that will appear at the end of the output text if it has "
      "been truncated."]),
    ("For example, 'Hello. World'.split('. ') returns ['Hello', 'World']. The sep argument "
     "may be longer.",
     ["For example, 'Hello. World'.split('. ') returns ['Hello', 'World'].",
      "The sep argument may be longer."]),
    ("The separator '.' Separates the parts of a dotted name. It is never doubled.",
     ["The separator '.' Separates the parts of a dotted name.", "It is never doubled."]),
    ("For example, 'a.b'.split('.') returns ['a', 'b']. It splits at each dot.",
     ["For example, 'a.b'.split('.') returns ['a', 'b'].", "It splits at each dot."]),
    ('Use "say \\"Hi.\\" Then go" as the text. It is printed.',
     ['Use "say \\"Hi.\\" Then go" as the text.', "It is printed."]),
    ('The form is r"\\\\computername". If None, the local computer is used.',
     ['The form is r"\\\\computername".', "If None, the local computer is used."]),
    # a sentence quoted in prose still ends inside its quotes; an apostrophe quotes nothing
    ("He said 'go home.' Then he left. The users' files stay. Don't move them.",
     ["He said 'go home.'", "Then he left.", "The users' files stay.", "Don't move them."]),
])
def test_a_string_in_quotes_is_part_of_its_sentence(text: str, sentences: list[str]) -> None:
    """A stop inside a string in single quotes ends no sentence, and a quote mark inside one
    (``'"'``) or a backslashed one opens no quotation; each sentence is the text's own."""
    assert split_sentences(text) == sentences
    assert all(s in text for s in sentences)


def test_the_reader_quotes_the_sentence_after_an_example_in_quotes(tmp_path: Path) -> None:
    """Asked of the escape characters, the reader quotes the sentence that tells of them, not
    the paragraph its ``'"'`` held as one."""
    app = app_over(tmp_path, {"shlex.md": f"# Parsing rules\n\n{_SHLEX}\n",
                              "other.md": "# Other\n\nThe kettle is in the kitchen.\n"})
    answer = answer_of(app, "When do the escape characters retain their special meaning?")
    assert claims_of(answer)[0] == (
        "The escape characters retain its special meaning only when followed by the quote in "
        "use, or the escape character itself.")
