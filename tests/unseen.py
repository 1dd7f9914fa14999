"""For tests of the holds: an action whose code is changed after it was registered, as if the
analysis could not see the change."""

from __future__ import annotations

import dataclasses

from signoff import App
from signoff.effects.bindings import Bindings


def unseen(app: App, *names: str) -> None:
    """What the analysis found of actions `names` stands, whatever their code runs later.

    The analysis finds an action's effects again when a name its code resolved is bound to
    something else (`signoff.effects.bindings`); a test that swaps code in after registration,
    to stand for code the analysis cannot follow, forgets those names here first, so that only
    the run's hold stands in the way of what the new code does."""
    actions = app.actions._actions  # (the registry's own: nothing public changes an analysis)
    for name in names:
        action = actions[name]
        effects = dataclasses.replace(action.info.effects, resolved=Bindings())
        actions[name] = dataclasses.replace(action, info=dataclasses.replace(action.info,
                                                                             effects=effects))
