"""The analysis of what code does: which records an action reads, creates, changes and deletes,
whether it sends, spends or reaches outside, and where it may raise.

`analyse(fn, name=...)` follows the function's body and everything it calls that can be resolved;
what cannot be seen is assumed to do everything, and says where and why (`Effect.reason`,
`Effect.at`), so that an author can annotate it. ``@sends`` and ``@spends`` only ever add.

The package, bottom up: `effect` (the results), `marks` (the declarations), `tables` (sinks and
the allow-list), `bounds` (how far one analysis goes), `sqltext`, `values` (abstract values),
`signature`, `summary`, `scope` (the protocols the walk and the call judges meet through), `orm`
(SQLAlchemy), `pydantic_models`,
`containers` (what Python's containers hold, and while it is known), `calls` (judging one
call) beside `special` (the special methods Python's code runs), `callbacks`, `comparing`,
`taken_whole`, `field_methods`, `printing`, `shown_exceptions`, `averages` (``statistics``) and
`decorated`, `frame` (walking one body),
`source`, `analyser` (summaries, caches).
`signoff.actions` depends on this package, never the reverse.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from signoff.effects.effect import Effect, EffectKind, Effects, RaiseSite
from signoff.effects.marks import sends, spends

__all__ = ["Effect", "EffectKind", "Effects", "RaiseSite", "analyse", "analyse_again", "checking",
           "raises", "sends", "spends"]


def analyse(fn: Callable[..., Any], *, name: str, localns: dict[str, Any] | None = None
            ) -> Effects:
    """The effects of `fn`, run as an action called `name`, found from its code.

    The body is analysed together with everything it calls that can be resolved; what cannot be
    seen is assumed to change anything, reach outside, send and spend an amount not known
    (`effect.UNSEEN`). ``@sends`` and ``@spends`` anywhere on the way add their effects. Nothing
    is ever described as safer than it is. `localns`: the names local to where `fn` was
    declared, which its annotations may use.
    """
    from signoff.effects.analyser import analyse_effects  # loaded when first used: a fast import

    return analyse_effects(fn, name=name, localns=localns)


def analyse_again(fn: Callable[..., Any], *, name: str, localns: dict[str, Any] | None = None
                  ) -> Effects:
    """The effects of `fn` found again, now that a name its code resolved is bound to something
    else (`Effects.resolved`): what was found of the code where one is, is forgotten first."""
    from signoff.effects.analyser import analyse_effects, forget_rebound

    forget_rebound()
    return analyse_effects(fn, name=name, localns=localns)


def checking(fn: Callable[..., Any], *, name: str, localns: dict[str, Any] | None = None
             ) -> Effects:
    """The effects of checking a call of `fn`, run as an action called `name`: the validators
    of the pydantic models its parameters are, which run before anyone decides whether the
    call runs at all. `localns`: the names local to where `fn` was declared."""
    from signoff.effects.analyser import checking_effects  # loaded when first used

    return checking_effects(fn, name=name, localns=localns)


def raises(fn: Callable[..., Any], *, name: str, localns: dict[str, Any] | None = None
           ) -> list[RaiseSite]:
    """Where `fn`, run as an action called `name`, may raise an exception whose class is known:
    ``raise X(...)`` and ``raise X`` in it and in everything it calls, less those caught on the way.
    `localns`: the names local to where `fn` was declared, which its annotations may use.
    """
    from signoff.effects.analyser import find_raises  # loaded when first used: a fast import

    return find_raises(fn, name=name, localns=localns)
