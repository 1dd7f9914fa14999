"""Text run as code through a method of allow-listed code (``typing.ForwardRef(text)._evaluate``)
may do anything: the action is not found to only read, as when the same is called as a function."""

from __future__ import annotations

import typing

from signoff.effects import analyse


def annotation_evaluated(text: str) -> int:
    """Evaluates text it is given as an annotation: the text may be any expression."""
    typing.ForwardRef(text)._evaluate(globals(), None, frozenset())
    return 1


def test_text_evaluated_through_a_forward_reference_is_not_taken_to_only_read() -> None:
    """``ForwardRef(text)._evaluate(...)`` runs the text: what it does is not known."""
    found = analyse(annotation_evaluated, name="annotation_evaluated")
    assert not found.only_reads
    assert any("runs text as code" in e.reason for e in found.effects)
