"""The step decision every loop step makes: go on, halt, or ask a person."""

from __future__ import annotations

import enum
import numbers
from decimal import Decimal

from signoff.exceptions import UserError

__all__ = ["NextAction", "next_action"]


class NextAction(enum.Enum):
    """What the loop does next."""

    CONTINUE = "Continue"
    """Go on: run the call, or ask the model."""
    HALT = "Halt"
    """Stop: a limit is reached."""
    ESCALATE = "Escalate"
    """Put the call to a person first."""


def next_action(
    steps_taken: int,
    max_steps: int,
    spend_usd: float,
    budget_usd: float,
    action_is_irreversible: bool,
    human_approved: bool,
) -> NextAction:
    """The next move, by these rules in order: spend at or over budget → HALT; steps at or over
    the limit → HALT; an irreversible action not approved → ESCALATE; else CONTINUE.

    A count that is not a whole number, 0 or more (`steps_taken`, `max_steps`), is no count of
    model calls, and a spend or budget that is not a number (text, `None`, a yes/no) is no amount
    of dollars: `UserError` naming it (they were compared as given: -1 steps taken of 8 went on;
    text raised a TypeError). A spend or budget that is NaN is no amount either, and halts."""
    for name, count in (("steps_taken", steps_taken), ("max_steps", max_steps)):
        if (type(count) is not int and (  # (an int, as always, is told at once: a step's cost)
                isinstance(count, bool) or not isinstance(count, numbers.Integral))) or count < 0:
            raise UserError(f"next_action's {name} is a number of model calls, 0 or more, not "
                            f"{count!r}.")
    no_amount = False  # (a Decimal NaN: compared, it raises InvalidOperation)
    for name, amount in (("spend_usd", spend_usd), ("budget_usd", budget_usd)):
        if type(amount) is not float and type(amount) is not int:
            if isinstance(amount, bool) or not isinstance(amount, numbers.Real | Decimal):
                raise UserError(f"next_action's {name} is a number of US dollars, not "
                                f"{amount!r}.")
            no_amount = no_amount or (isinstance(amount, Decimal) and amount.is_nan())
    if no_amount or not spend_usd < budget_usd:  # (NaN, of either, halts too)
        return NextAction.HALT
    if steps_taken >= max_steps:
        return NextAction.HALT
    if action_is_irreversible and not human_approved:
        return NextAction.ESCALATE
    return NextAction.CONTINUE
