"""signoff's own tables, kept in the app's database beside its records."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

from signoff.store.utc import UtcDateTime

__all__ = [
    "consents_used",
    "database_identity",
    "metadata",
    "principals",
    "proposals",
    "standing_rules",
    "steps",
    "task_models",
    "tasks",
]

metadata = MetaData()
"""The schema of signoff's own tables (the app's records have their own)."""

principals = Table(
    "signoff_principals",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("handle", String(320), nullable=False, unique=True),
    Column("name", String(200), nullable=False),
    Column("kind", String(10), nullable=False),
    Column("roles", JSON, nullable=False),
    Column("disabled", Boolean, nullable=False, default=False),
    Column("sponsor_id", String(36), nullable=True),
)
"""People and agent accounts: who can act, with which roles."""

consents_used = Table(
    "signoff_consents_used",
    metadata,
    Column("nonce", String(64), primary_key=True),
    Column("action", String(200), nullable=False),
    Column("principal_id", String(36), nullable=False),
    Column("used_at", UtcDateTime(), nullable=False),
)
"""Each consent token that has been honoured, so that none is honoured twice."""

tasks = Table(
    "signoff_tasks",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("agent", String(100), nullable=False),
    Column("skill", String(100), nullable=False),
    Column("for_id", String(36), nullable=True),
    Column("subject_type", String(100), nullable=False, default=""),
    Column("subject_id", String(36), nullable=True),
    Column("subject_json", JSON, nullable=True),
    Column("status", String(10), nullable=False),
    Column("turn", Integer, nullable=False, default=0),
    Column("turn_open", Boolean, nullable=False, default=False),
    Column("message_count", Integer, nullable=False, default=0),
    Column("seq", Integer, nullable=False, default=0, server_default="0"),
    Column("steps", Integer, nullable=False, default=0),
    Column("spend_usd", Float, nullable=False, default=0.0),
    Column("max_steps", Integer, nullable=False),
    Column("budget_usd", Float, nullable=False),
    Column("model", String(200), nullable=False, default=""),
    Column("result", JSON, nullable=True),
    Column("problem", Text, nullable=False, default=""),
    Column("revision", Integer, nullable=False, default=0),
    Column("created_at", UtcDateTime(), nullable=False),
    Column("updated_at", UtcDateTime(), nullable=False),
    Column("trace_context", JSON, nullable=True),
    Column("holder", String(200), nullable=True),
    Column("held_until", UtcDateTime(), nullable=True),
    Column("fence", Integer, nullable=False, default=0, server_default="0"),
    Column("reserved_usd", Float, nullable=False, default=0.0, server_default="0"),
    Column("work_id", String(36), nullable=True),
    Index("signoff_tasks_work", "work_id"),
)
"""Each piece of work an agent does: where it stands, its conversation, its limits and spend;
who steps it now (`holder`, until `held_until`, with the `fence` every write of its steps checks),
what is reserved for a model call not yet answered (`reserved_usd`, counted in `spend_usd`), and
the work it shares with other tasks, each seeing what the others have seen (`work_id`)."""

steps = Table(
    "signoff_steps",
    metadata,
    Column("task_id", String(36), ForeignKey("signoff_tasks.id"), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("turn", Integer, nullable=False),
    Column("kind", String(20), nullable=False),
    Column("at", UtcDateTime(), nullable=False),
    Column("cost_usd", Float, nullable=False, default=0.0),
    Column("data", JSON, nullable=False),
)
"""The journal: what each task did, one row per step, only ever appended to (numbered by its
task's `seq`). A step's data holds the messages it added to the conversation, the changes of its
tool calls and its receipt entries: the conversation, the calls, the evidence and the receipt
are read from these rows alone (see `signoff.store.journal`)."""

proposals = Table(
    "signoff_proposals",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("task_id", String(36), ForeignKey("signoff_tasks.id"), nullable=False),
    Column("tool_call_id", String(36), nullable=False),
    Column("call_id", String(200), nullable=False, default="", server_default=""),
    Column("agent", String(100), nullable=False),
    Column("skill", String(100), nullable=False),
    Column("skill_version", String(40), nullable=False),
    Column("action", String(200), nullable=False),
    Column("label", String(200), nullable=False),
    Column("effects", JSON, nullable=False),
    Column("arguments", JSON, nullable=False),
    Column("shown", JSON, nullable=False),
    Column("why", Text, nullable=False),
    Column("evidence", JSON, nullable=False),
    Column("subject_version", String(200), nullable=False),
    Column("fingerprint", String(64), nullable=False),
    Column("instructions", Text, nullable=False),
    Column("decide_person_id", String(36), nullable=True),
    Column("decide_queue", String(100), nullable=True),
    Column("routed", Boolean, nullable=False, default=False),
    Column("for_id", String(36), nullable=True),
    Column("status", String(10), nullable=False),
    Column("decided_by_id", String(36), nullable=True),
    Column("reason", Text, nullable=False, default=""),
    Column("result", JSON, nullable=True),
    Column("edited", JSON, nullable=True),
    Column("created_at", UtcDateTime(), nullable=False),
    Column("decided_at", UtcDateTime(), nullable=True),
    Column("trace_context", JSON, nullable=True),
    Column("labels", JSON, nullable=True),
    Column("deadline_at", UtcDateTime(), nullable=True),
    Column("escalations", Integer, nullable=False, default=0, server_default="0"),
    Column("escalated_at", UtcDateTime(), nullable=True),
    Column("run_by", String(200), nullable=True),
    Column("run_until", UtcDateTime(), nullable=True),
    Column("told_at", UtcDateTime(), nullable=True),
    Column("tell_tries", Integer, nullable=False, default=0, server_default="0"),
    Column("tell_next_at", UtcDateTime(), nullable=True),
    Column("told_to", Text, nullable=True),
    Index("signoff_proposals_status", "status", "created_at"),
    Index("signoff_proposals_deadline", "status", "deadline_at"),
    Index("signoff_proposals_task", "task_id"),
    Index("signoff_proposals_person", "decide_person_id", "status", "created_at"),
    Index("signoff_proposals_queue", "decide_queue", "status", "created_at"),
)
"""Each call put to a person: the exact call, why, what was looked at, and how it was decided;
its deadline (`deadline_at`), and how often it went on to another decider when one passed;
once approved, who runs a call that runs apart from its claim (`run_by`), and until when they
are known to run it (`run_until`, renewed while it runs: `signoff.agents.runs`); when its
deciders were told of it (`told_at`), how often they were tried, and when next (`tell_tries`,
`tell_next_at`), and which of the app's handlers took its latest notice (`told_to`: JSON of the
notice's escalations and the handlers' names; NULL when none did, and for a proposal made
before they were kept: `signoff.agents.telling`)."""

standing_rules = Table(
    "signoff_standing_rules",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("agent", String(100), nullable=False),
    Column("tool", String(200), nullable=False),
    Column("skill", String(100), nullable=True),
    Column("for_id", String(36), nullable=True),
    Column("made_by_id", String(36), nullable=False),
    Column("made_at", UtcDateTime(), nullable=False),
    Column("revoked_by_id", String(36), nullable=True),
    Column("revoked_at", UtcDateTime(), nullable=True),
    Column("why", Text, nullable=False, default=""),
    Column("used", Integer, nullable=False, default=0),
    Column("last_used_at", UtcDateTime(), nullable=True),
    Column("effects", Text, nullable=True),
)
"""Each "from now on, alone" someone said, until it is revoked, with its uses counted, and what
its tool did when it was said (`effects`: JSON of the identities of its action's effects; NULL
for a rule made before they were kept)."""

task_models = Table(
    "signoff_task_models",
    metadata,
    Column("task_id", String(36), ForeignKey("signoff_tasks.id"), primary_key=True),
    Column("spec", String(500), nullable=False),
    Column("input_per_mtok", Float, nullable=True),
    Column("output_per_mtok", Float, nullable=True),
    Column("timeout", Float, nullable=True),
    Column("total_timeout", Float, nullable=True),
    Column("problem", Text, nullable=False, default=""),
    Column("reported_at", UtcDateTime(), nullable=True),
)
"""The model a task was started with, named by spec (and its price and timeouts), so that
another process can make it again; and why it could not, once reported."""

database_identity = Table(
    "signoff_database",
    metadata,
    Column("slot", Integer, primary_key=True, autoincrement=False),
    Column("id", String(36), nullable=False),
    Column("made_at", UtcDateTime(), nullable=False),
)
"""This database's identity: one row (`slot` 1), a random `id` made the first time anything
asks for it (`signoff.store.identity.database_id`). Two databases never share one, unless one
is a copy of the other."""

servings = Table(
    "signoff_servings",
    metadata,
    Column("work_id", String(36), primary_key=True),
    Column("agent", String(100), nullable=False),
    Column("server", String(200), nullable=False),
    Column("until", UtcDateTime(), nullable=False),
    Index("signoff_servings_agent", "agent"),
)
"""Each client's session an agent is served to (over MCP), by its work: which process serves it
(`server`, a holder's id) and until when it is known to (`until`, renewed while it does:
`signoff.agents.serving`). The tasks of a session whose server has stopped are ended by the
next server of the agent: no client will give them a turn again."""
