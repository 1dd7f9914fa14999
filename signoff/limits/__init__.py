"""Hard limits: the step decision, spend reservations, grounded answers, provenance labels."""

from signoff.limits.grounding import (
    Citation,
    CitationProblem,
    Claim,
    Declined,
    GroundedAnswer,
    check_citations,
)
from signoff.limits.provenance import (
    ArgumentLabel,
    Endorse,
    Labels,
    Origin,
    Provenance,
    Seen,
)
from signoff.limits.steps import NextAction, next_action

__all__ = [
    "ArgumentLabel",
    "Citation",
    "CitationProblem",
    "Claim",
    "Declined",
    "Endorse",
    "GroundedAnswer",
    "Labels",
    "NextAction",
    "Origin",
    "Provenance",
    "Seen",
    "check_citations",
    "next_action",
]
