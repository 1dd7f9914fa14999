"""Hard limits: the step decision, spend reservations, and grounded answers."""

from signoff.limits.steps import NextAction, next_action

__all__ = ["NextAction", "next_action"]
