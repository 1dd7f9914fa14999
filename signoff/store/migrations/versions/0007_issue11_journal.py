"""One journal of steps (issue 11): `signoff_steps`, one append-only row per step of a task,
replaces its messages, tool calls and receipt entries; the task head counts its rows (`seq`);
a proposal keeps the id the model gave its call (`call_id`) and no longer points at a tool-call
row.

Revision 0007_issue11, after 0006_issue15. Each task's old rows become, in this order: one step
holding its whole conversation (turn 0), one step per receipt entry (turn 0, in the order they
were written), and one step per model turn that asked for tools, holding that turn's calls as
they stand (in that turn, so that a turn's calls are read from its steps). Waiting tasks keep
their proposals and go on after the upgrade. Taken back, the three tables are rebuilt from the
journal: the conversation concatenated, the calls folded, the entries in order.

The tables are declared here as they are at this revision, not imported: the migration must
keep working when signoff's own declarations change.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = '0007_issue11'
down_revision = '0006_issue15'
branch_labels = None
depends_on = None

_CHUNK = 500
"""How many tasks are converted together (their rows read and written in a few statements)."""

_CALL_FIELDS = ('turn', 'position', 'call_id', 'tool', 'arguments', 'why', 'state', 'leave',
                'outcome', 'said', 'value', 'problem', 'ran_as', 'effects', 'answer')
"""The columns of an old tool-call row a journal call keeps, besides its ids and times."""

_CALL_TEXTS = ('why', 'leave', 'outcome', 'said', 'problem', 'answer')
"""The text columns of an old tool-call row that are empty unless said."""

_TIMES = ('started_at', 'finished_at')

_PROPOSALS_FK = 'fk_signoff_proposals_tool_call_id_signoff_tool_calls'
"""The name the foreign key from proposals to tool calls goes by here (SQLite keeps it
unnamed; PostgreSQL names it itself)."""

_PROPOSALS_FK_TAKEN_BACK = 'signoff_proposals_tool_call_id_fkey'
"""The name it is given again when taken back (the one PostgreSQL gave it)."""

_tasks = sa.table(
    'signoff_tasks',
    sa.column('id', sa.String),
    sa.column('seq', sa.Integer),
    sa.column('created_at', sa.DateTime(timezone=True)),
    sa.column('updated_at', sa.DateTime(timezone=True)),
)
_steps = sa.table(
    'signoff_steps',
    sa.column('task_id', sa.String),
    sa.column('seq', sa.Integer),
    sa.column('turn', sa.Integer),
    sa.column('kind', sa.String),
    sa.column('at', sa.DateTime(timezone=True)),
    sa.column('cost_usd', sa.Float),
    sa.column('data', sa.JSON),
)
_messages = sa.table(
    'signoff_messages',
    sa.column('task_id', sa.String),
    sa.column('seq', sa.Integer),
    sa.column('data', sa.JSON),
)
_entries = sa.table(
    'signoff_receipt_entries',
    sa.column('id', sa.Integer),
    sa.column('task_id', sa.String),
    sa.column('at', sa.DateTime(timezone=True)),
    sa.column('kind', sa.String),
    sa.column('words', sa.Text),
    sa.column('data', sa.JSON),
    sa.column('cost_usd', sa.Float),
)
_calls = sa.table(
    'signoff_tool_calls',
    sa.column('id', sa.String),
    sa.column('task_id', sa.String),
    sa.column('turn', sa.Integer),
    sa.column('position', sa.Integer),
    sa.column('call_id', sa.String),
    sa.column('tool', sa.String),
    sa.column('arguments', sa.Text),
    sa.column('why', sa.Text),
    sa.column('state', sa.String),
    sa.column('leave', sa.String),
    sa.column('outcome', sa.String),
    sa.column('said', sa.Text),
    sa.column('value', sa.JSON),
    sa.column('problem', sa.Text),
    sa.column('ran_as', sa.JSON),
    sa.column('effects', sa.JSON),
    sa.column('answer', sa.Text),
    sa.column('started_at', sa.DateTime(timezone=True)),
    sa.column('finished_at', sa.DateTime(timezone=True)),
)
_proposals = sa.table(
    'signoff_proposals',
    sa.column('tool_call_id', sa.String),
    sa.column('call_id', sa.String),
)


def upgrade() -> None:
    """Bring signoff's tables up to this revision."""
    op.create_table(
        'signoff_steps',
        sa.Column('task_id', sa.String(length=36), nullable=False),
        sa.Column('seq', sa.Integer(), nullable=False),
        sa.Column('turn', sa.Integer(), nullable=False),
        sa.Column('kind', sa.String(length=20), nullable=False),
        sa.Column('at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('cost_usd', sa.Float(), nullable=False),
        sa.Column('data', sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(['task_id'], ['signoff_tasks.id']),
        sa.PrimaryKeyConstraint('task_id', 'seq'),
    )
    op.create_index('signoff_steps_turn', 'signoff_steps', ['task_id', 'turn', 'seq'])
    with op.batch_alter_table('signoff_tasks') as batch:
        batch.add_column(sa.Column('seq', sa.Integer(), nullable=False, server_default='0'))
    with op.batch_alter_table('signoff_proposals') as batch:
        batch.add_column(sa.Column('call_id', sa.String(length=200), nullable=False,
                                   server_default=''))

    bind = op.get_bind()
    for chunk in _chunks_of_tasks(bind):
        rows = _journal_of(bind, chunk)
        if rows:
            bind.execute(_steps.insert(), rows)
    bind.execute(sa.update(_tasks).values(seq=sa.select(
        sa.func.coalesce(sa.func.max(_steps.c.seq), 0)).where(
        _steps.c.task_id == _tasks.c.id).scalar_subquery()))
    bind.execute(sa.update(_proposals).values(call_id=sa.func.coalesce(sa.select(
        _calls.c.call_id).where(_calls.c.id == _proposals.c.tool_call_id).scalar_subquery(), '')))

    _drop_proposals_fk(bind)
    op.drop_index('signoff_tool_calls_task', table_name='signoff_tool_calls')
    op.drop_table('signoff_tool_calls')
    op.drop_index('signoff_receipt_entries_task', table_name='signoff_receipt_entries')
    op.drop_table('signoff_receipt_entries')
    op.drop_table('signoff_messages')


def downgrade() -> None:
    """Take signoff's tables back to revision 0006_issue15."""
    op.create_table(
        'signoff_messages',
        sa.Column('task_id', sa.String(length=36), nullable=False),
        sa.Column('seq', sa.Integer(), nullable=False),
        sa.Column('data', sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(['task_id'], ['signoff_tasks.id']),
        sa.PrimaryKeyConstraint('task_id', 'seq'),
    )
    op.create_table(
        'signoff_receipt_entries',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('task_id', sa.String(length=36), nullable=False),
        sa.Column('at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('kind', sa.String(length=20), nullable=False),
        sa.Column('words', sa.Text(), nullable=False),
        sa.Column('data', sa.JSON(), nullable=False),
        sa.Column('cost_usd', sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(['task_id'], ['signoff_tasks.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('signoff_receipt_entries_task', 'signoff_receipt_entries', ['task_id', 'id'])
    op.create_table(
        'signoff_tool_calls',
        sa.Column('id', sa.String(length=36), nullable=False),
        sa.Column('task_id', sa.String(length=36), nullable=False),
        sa.Column('turn', sa.Integer(), nullable=False),
        sa.Column('position', sa.Integer(), nullable=False),
        sa.Column('call_id', sa.String(length=200), nullable=False),
        sa.Column('tool', sa.String(length=200), nullable=False),
        sa.Column('arguments', sa.Text(), nullable=False),
        sa.Column('why', sa.Text(), nullable=False),
        sa.Column('state', sa.String(length=10), nullable=False),
        sa.Column('leave', sa.String(length=20), nullable=False),
        sa.Column('outcome', sa.String(length=10), nullable=False),
        sa.Column('said', sa.Text(), nullable=False),
        sa.Column('value', sa.JSON(), nullable=True),
        sa.Column('problem', sa.Text(), nullable=False),
        sa.Column('ran_as', sa.JSON(), nullable=True),
        sa.Column('effects', sa.JSON(), nullable=True),
        sa.Column('answer', sa.Text(), nullable=False),
        sa.Column('started_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['task_id'], ['signoff_tasks.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('signoff_tool_calls_task', 'signoff_tool_calls',
                    ['task_id', 'turn', 'position'], unique=True)

    bind = op.get_bind()
    for chunk in _chunks_of_tasks(bind):
        messages, entries, calls = _old_rows_of(bind, chunk)
        for table, rows in ((_messages, messages), (_entries, entries), (_calls, calls)):
            if rows:
                bind.execute(table.insert(), rows)

    with op.batch_alter_table('signoff_proposals') as batch:
        batch.drop_column('call_id')
        batch.create_foreign_key(_PROPOSALS_FK_TAKEN_BACK, 'signoff_tool_calls',
                                 ['tool_call_id'], ['id'])
    with op.batch_alter_table('signoff_tasks') as batch:
        batch.drop_column('seq')
    op.drop_index('signoff_steps_turn', table_name='signoff_steps')
    op.drop_table('signoff_steps')


# -- the upgrade's conversion ------------------------------------------------------------------


def _chunks_of_tasks(bind: sa.Connection) -> Iterator[list[tuple[str, datetime, datetime]]]:
    """Every task (id, created, updated), a few hundred at a time."""
    found = bind.execute(sa.select(_tasks.c.id, _tasks.c.created_at, _tasks.c.updated_at)
                         .order_by(_tasks.c.id)).all()
    for start in range(0, len(found), _CHUNK):
        yield [(r[0], r[1], r[2]) for r in found[start:start + _CHUNK]]


def _journal_of(bind: sa.Connection,
                chunk: Sequence[tuple[str, datetime, datetime]]) -> list[dict[str, Any]]:
    """The journal rows of the tasks of `chunk`, made from their old rows."""
    ids = [task_id for task_id, _, _ in chunk]
    messages: defaultdict[str, list[Any]] = defaultdict(list)
    for r in bind.execute(sa.select(_messages.c.task_id, _messages.c.data).where(
            _messages.c.task_id.in_(ids)).order_by(_messages.c.task_id, _messages.c.seq)):
        messages[r[0]].append(r[1])
    entries: defaultdict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in bind.execute(sa.select(_entries).where(_entries.c.task_id.in_(ids)).order_by(
            _entries.c.task_id, _entries.c.id)):
        m = r._mapping
        entries[m['task_id']].append({
            'kind': m['kind'], 'words': m['words'], 'data': m['data'],
            'cost_usd': float(m['cost_usd']), 'at': _iso(m['at'])})
    calls: defaultdict[str, dict[int, list[dict[str, Any]]]] = defaultdict(dict)
    for r in bind.execute(sa.select(_calls).where(_calls.c.task_id.in_(ids)).order_by(
            _calls.c.task_id, _calls.c.turn, _calls.c.position)):
        m = r._mapping
        call = {'id': m['id'], 'task_id': m['task_id'],
                **{name: m[name] for name in _CALL_FIELDS}}
        call.update({name: _iso(m[name]) for name in _TIMES if m[name] is not None})
        calls[m['task_id']].setdefault(m['turn'], []).append(call)

    rows: list[dict[str, Any]] = []
    for task_id, created_at, updated_at in chunk:
        steps: list[tuple[int, str, datetime, float, dict[str, Any]]] = []
        if messages[task_id]:
            steps.append((0, 'messages', _utc(created_at), 0.0, {'messages': messages[task_id]}))
        for entry in entries[task_id]:
            steps.append((0, entry['kind'], datetime.fromisoformat(entry['at']),
                          entry['cost_usd'], {'entries': [entry]}))
        for turn, of_turn in sorted(calls[task_id].items()):
            last = max((datetime.fromisoformat(c[name]) for c in of_turn for name in _TIMES
                        if name in c), default=_utc(updated_at))
            steps.append((turn, 'calls', last, 0.0, {'calls': of_turn}))
        rows.extend({'task_id': task_id, 'seq': seq, 'turn': turn, 'kind': kind, 'at': at,
                     'cost_usd': cost, 'data': data}
                    for seq, (turn, kind, at, cost, data) in enumerate(steps, start=1))
    return rows


def _drop_proposals_fk(bind: sa.Connection) -> None:
    """Drop the foreign key from proposals to the tool calls (whatever it is called here)."""
    name = next((fk['name'] for fk in sa.inspect(bind).get_foreign_keys('signoff_proposals')
                 if fk['referred_table'] == 'signoff_tool_calls'), None)
    convention = {'fk': 'fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s'}
    with op.batch_alter_table('signoff_proposals', naming_convention=convention) as batch:
        batch.drop_constraint(name or _PROPOSALS_FK, type_='foreignkey')


# -- the downgrade's rebuilding ----------------------------------------------------------------


def _old_rows_of(bind: sa.Connection, chunk: Sequence[tuple[str, datetime, datetime]],
                 ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """The old messages, receipt entries and tool calls of the tasks of `chunk`, read from
    their journal: the conversation concatenated, the entries in order, the calls folded (a
    change of a call never stored whole is no call, as the journal is read)."""
    ids = [task_id for task_id, _, _ in chunk]
    messages: list[dict[str, Any]] = []
    entries: list[dict[str, Any]] = []
    calls: dict[str, dict[str, Any]] = {}
    said: defaultdict[str, int] = defaultdict(int)
    for r in bind.execute(sa.select(_steps.c.task_id, _steps.c.data).where(
            _steps.c.task_id.in_(ids)).order_by(_steps.c.task_id, _steps.c.seq)):
        task_id, data = r[0], r[1] or {}
        for message in data.get('messages', ()):
            messages.append({'task_id': task_id, 'seq': said[task_id], 'data': message})
            said[task_id] += 1
        entries.extend({
            'task_id': task_id, 'at': datetime.fromisoformat(e['at']), 'kind': e['kind'],
            'words': e.get('words', ''), 'data': e.get('data', {}),
            'cost_usd': float(e.get('cost_usd', 0.0))} for e in data.get('entries', ()))
        for change in data.get('calls', ()):
            calls.setdefault(change['id'], {'task_id': task_id}).update(change)
    return messages, entries, [_old_call(call) for call in calls.values() if 'tool' in call]


def _old_call(call: dict[str, Any]) -> dict[str, Any]:
    """A folded journal call as an old tool-call row."""
    row = {name: call.get(name) for name in ('id', 'task_id', *_CALL_FIELDS)}
    row.update({name: row[name] or '' for name in _CALL_TEXTS})
    row.update({name: datetime.fromisoformat(call[name]) if call.get(name) else None
                for name in _TIMES})
    return row


# -- times ---------------------------------------------------------------------------------------


def _utc(when: datetime) -> datetime:
    """`when` in UTC, with its time zone (SQLite gives times back without one)."""
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def _iso(when: datetime) -> str:
    """`when` in UTC, as ISO 8601."""
    return _utc(when).isoformat()
