"""What running an action by name comes to: one of seven outcomes, in words and as data."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import TypeAdapter

from signoff.actions.schemas import external
from signoff.effects import EffectKind, Effects
from signoff.security.principals import Principal

__all__ = ["FAILED_TEXT", "ActionOutcome", "ActionResult", "ran_outside"]

T = TypeVar("T")

FAILED_TEXT = (
    "It failed for a reason the app did not foresee — the app's log has the details."
)
"""What a caller is told of a failure; the real message reaches only the log."""


def ran_outside(action: str, effects: Effects, problem: str) -> str:
    """What a caller is told of a run of `action` that ended with `problem` once its body had
    begun (a record rule's refusal, a commit the database refused): nothing of the app's was
    kept, but what it does outside may have happened."""
    outside = [e.words() for e in effects.ordered
               if e.kind in (EffectKind.EXTERNAL, EffectKind.SENDS, EffectKind.SPENDS)]
    what = "; ".join(dict.fromkeys(outside))
    return (f"{problem} Nothing it changed in the app was kept, but {action} had begun to run, "
            f"so what it does outside the app may have happened ({what}): check before trying "
            "again.")


class ActionOutcome(enum.Enum):
    """How a run ended."""

    DONE = "Done"
    """It ran, and what it did is committed."""
    INVALID = "Invalid"
    """The values did not make sense (or clashed with the way things are); nothing ran."""
    DENIED = "Denied"
    """Whoever it runs as may not do it; nothing is kept."""
    GONE = "Gone"
    """No such action, or a record it names does not exist or cannot be read; nothing ran."""
    FAILED = "Failed"
    """It broke: for a reason the app did not foresee (told in fixed words; the log has why),
    or one the action tells (`Failed`, in its words); nothing is kept."""
    UNKNOWN = "Unknown"
    """It reached outside and lost touch before it was answered (`OutcomeUnknown`): whether it
    happened there is not known; nothing of the app's is kept."""
    UNAVAILABLE = "Unavailable"
    """Something outside it needs could not be reached (`Unavailable`): nothing was sent, so
    nothing ran there and nothing is kept; it may be tried again later."""

    @property
    def spent_nothing(self) -> bool:
        """Whether a run that ended so was refused before anything of it could spend (what was
        reserved for it is given back)."""
        return self in (ActionOutcome.INVALID, ActionOutcome.DENIED, ActionOutcome.GONE,
                        ActionOutcome.UNAVAILABLE)


@dataclass(frozen=True, kw_only=True)
class ActionResult:
    """The result of ``app.actions.run``."""

    action: str
    """The name that was asked for."""
    outcome: ActionOutcome
    """How it ended."""
    said: str = ""
    """What the action said, when it returned a string."""
    value: Any = None
    """The JSON of what it returned (enums by name, records as their id and values)."""
    problem: str = ""
    """Why it did not run, in a person's words ("" when Done)."""
    ran_as: tuple[Principal, ...] = ()
    """Who it ran (or was asked to run) as."""
    cause: str = ""
    """The cause it ran for."""
    began: bool = False
    """Whether the action's own code was called: refused after, it may have done what it does
    outside the app (spent, sent) before it refused."""

    @property
    def spent_nothing(self) -> bool:
        """Whether nothing of the run can have spent (what was reserved for it is given back):
        refused before the action's own code was called, or `Unavailable` (nothing was sent)."""
        return self.outcome is ActionOutcome.UNAVAILABLE or (
            self.outcome.spent_nothing and not self.began)

    @property
    def done(self) -> bool:
        """Whether the outcome is Done."""
        return self.outcome is ActionOutcome.DONE

    def value_as(self, cls: type[T]) -> T:
        """The value read back as `cls` (a pydantic model, dataclass, list of them, …), its enums
        by name as `value` writes them."""
        adapter: TypeAdapter[T] = TypeAdapter(external(cls))
        return adapter.validate_python(self.value)

    def __str__(self) -> str:
        return self.said if self.done else self.problem
