"""Hard limits: the step decision, spend reservations, and grounded answers."""

from signoff.limits.grounding import (
    Citation,
    CitationProblem,
    Claim,
    Declined,
    GroundedAnswer,
    check_citations,
)
from signoff.limits.steps import NextAction, next_action

__all__ = [
    "Citation",
    "CitationProblem",
    "Claim",
    "Declined",
    "GroundedAnswer",
    "NextAction",
    "check_citations",
    "next_action",
]
