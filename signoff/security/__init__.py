"""Security: principals with roles, composable policies, record rules, and acting as a set."""

from signoff.security import policies
from signoff.security.acting import SYSTEM, ActingAs
from signoff.security.enforcement import acting_of, enforce_rules_on, may
from signoff.security.policies import Policy
from signoff.security.principals import People, Principal, PrincipalKind
from signoff.security.records import RecordBase, make_record_base, record_label
from signoff.security.rules import OPERATIONS, Operation, Rule, allow, deny

__all__ = [
    "OPERATIONS",
    "SYSTEM",
    "ActingAs",
    "Operation",
    "People",
    "Policy",
    "Principal",
    "PrincipalKind",
    "RecordBase",
    "Rule",
    "acting_of",
    "allow",
    "deny",
    "enforce_rules_on",
    "make_record_base",
    "may",
    "policies",
    "record_label",
]
