"""An example's comment and the await after it are code, never a sentence to quote."""

from __future__ import annotations

from signoff.research.sentences import sentences_of


def test_an_await_after_a_comment_is_code() -> None:
    text = ("# Coroutines\n\nRun awaitables concurrently.\n\n# this is also valid:\nawait "
            "asyncio.gather(\n    first(),\n    second()\n)\n\nIt returns their results.")
    assert [s.text for s in sentences_of("a", text)] == ["Run awaitables concurrently.",
                                                         "It returns their results."]
