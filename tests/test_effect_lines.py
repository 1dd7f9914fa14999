"""An effect's line (`Effect.explain`, as a proposal keeps what was shown with it) reads back as
the effect it was written of, so that what a proposal's action does can be compared with what
was shown without where in the code it is found (`Effect.identity`)."""

from __future__ import annotations

import pytest

from signoff.effects import Effect, EffectKind

_CHANGES, _EXTERNAL = EffectKind.CHANGES, EffectKind.EXTERNAL


@pytest.mark.parametrize("effect", [
    Effect(kind=EffectKind.READS, target="Repair", path=("set_price", "repair: Repair")),
    Effect(kind=_CHANGES, target="Repair", path=("set_price", "repair.price =")),
    Effect(kind=_CHANGES, target="Repair", path=("set_price", "shop._tell", "repair.count +=")),
    Effect(kind=_CHANGES, target="", path=("set_price", "shop._tell", "hook()"),
           reason="calls hook, whose code cannot be resolved (dynamic dispatch)", at="shop.py:21"),
    Effect(kind=_EXTERNAL, target="", path=("plan", "plan['crop'].strip()"),
           reason="the type of `plan['crop']` is not known; annotate it", at="garden.py:34"),
    Effect(kind=_EXTERNAL, target="builtins.open", path=("set_price", "builtins.open(mode='a')")),
    Effect(kind=_EXTERNAL, target="requests.post", path=("post", "requests.post(u, json=(1, 2))")),
    Effect(kind=_CHANGES, target="", path=(), reason="the source of shop.go is not available"),
    Effect(kind=_CHANGES, target="", path=("(recursion)",), reason="recursion that did not settle"),
    Effect(kind=_EXTERNAL, target="calls delete_note on the MCP server notes",
           path=("tidy", "mcp.call"), in_words=True),
    Effect(kind=EffectKind.SENDS, target="", path=("mail", "shop.notify")),
    Effect(kind=EffectKind.SPENDS),
])
def test_an_effects_line_reads_back_as_what_it_is(effect: Effect) -> None:
    """Each line reads back as an effect that writes the same line, and is the same effect
    wherever in the code it was found."""
    line = effect.explain()
    back = Effect.of_line(line)
    assert back is not None
    assert back.explain() == line
    assert back.identity == effect.identity


def test_the_identity_of_an_effect_leaves_out_where_it_is_found() -> None:
    """The same effect found through a renamed helper, at another line, is the same; another
    field changed, or another reason, is not."""
    hook = Effect(kind=_CHANGES, path=("set_price", "shop._tell", "hook()"),
                  reason="calls hook, whose code cannot be resolved", at="shop.py:21")
    moved = Effect(kind=_CHANGES, path=("set_price", "shop._tell_hooks", "hook()"),
                   reason="calls hook, whose code cannot be resolved", at="shop.py:24")
    assert moved.identity == hook.identity
    price = Effect(kind=_CHANGES, target="Repair", path=("set_price", "repair.price ="))
    note = Effect(kind=_CHANGES, target="Repair", path=("set_price", "repair.note ="))
    assert price.identity != note.identity


@pytest.mark.parametrize("line", ["copies Repair", "reaches outside", "", "Changes Repair"])
def test_a_line_no_effect_writes_reads_back_as_none(line: str) -> None:
    """A line that begins with no kind of effect reads back as none."""
    assert Effect.of_line(line) is None
