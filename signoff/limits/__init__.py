"""Hard limits: the step decision, spend reservations, and grounded answers."""

from signoff.limits.grounding import (
    Citation,
    CitationProblem,
    Claim,
    GroundedAnswer,
    check_citations,
)
from signoff.limits.steps import NextAction, next_action

__all__ = [
    "Citation",
    "CitationProblem",
    "Claim",
    "GroundedAnswer",
    "NextAction",
    "check_citations",
    "next_action",
]
