"""Who serves a client's session of an agent: a lease on the session's work, kept alive.

A client that gives an agent its turns (over MCP) does so in a session, whose tasks share one
work. Between the client's calls a task is held by nobody, and one whose call was proposed
waits on its decision: were the process serving the session killed, nothing would say that
no client will give these tasks a turn again, and they would read Running or Waiting for good.
So the process leases each session it serves (``signoff_servings``: the session's work, the
agent, the server — a holder's id, `holds.holder_id` — and until when), renewed while it serves
it by the thread that renews the leases of calls (`runs.leased`), and let go as the session
closes. The next server of the agent ends the tasks of a session whose server has stopped
(`stopped`): at once when it was a process of this machine, once its lease ran out unrenewed
when it was another machine's; never those of a session still served.
"""

from __future__ import annotations

from contextlib import ExitStack

from sqlalchemy import delete, insert, select, update

from signoff.agents import holds, runs
from signoff.agents import repository as repo
from signoff.store.database import Database
from signoff.store.tables import servings

__all__ = ["Serving", "forget", "stopped"]


class Serving:
    """This process's lease on a session it serves: `start` it before the session's first task
    is started (so that no task of it is ever without one), `end` it once the session's tasks
    have ended. Dropped without being ended (its process stops, or keeps running without the
    session: it is let go as it is collected, nothing else holding it), it is no longer renewed,
    and the next server of the agent ends the session's tasks once it has run out."""

    def __init__(self, database: Database, work: str, agent: str) -> None:
        self._database = database
        self._work = work
        self._agent = agent
        self._me = holds.holder_id()
        self._renewing = ExitStack()

    def start(self) -> None:
        """Write the lease, and renew it from now on."""
        with self._database.connect() as db:
            db.execute(insert(servings).values(work_id=self._work, agent=self._agent,
                                               server=self._me, until=repo.now() + runs.LEASE))
        work, me = self._work, self._me

        def renew(db: repo.Executor) -> None:  # (holds no reference to this lease: `Serving`)
            db.execute(update(servings).where(servings.c.work_id == work, servings.c.server == me)
                       .values(until=repo.now() + runs.LEASE))

        self._renewing.enter_context(runs.leased(("work", work), self._database, renew))

    def end(self) -> None:
        """The session has closed, its tasks ended: the lease is let go."""
        self._renewing.close()
        with self._database.connect() as db:
            db.execute(delete(servings).where(servings.c.work_id == self._work,
                                              servings.c.server == self._me))


def stopped(database: Database, agent: str) -> list[str]:
    """The works of `agent`'s sessions whose server has stopped: a process of this machine that
    no longer runs (or has let its lease go unrenewed `holds.OUTLIVED` past its end), or one of
    another machine whose lease has run out."""
    with database.reading() as db:
        leased = db.execute(select(servings.c.work_id, servings.c.server, servings.c.until)
                            .where(servings.c.agent == agent)).all()
    return [work for work, server, until in leased
            if holds.process_runs(server) is False or holds.outlived(server, until)]


def forget(database: Database, work: str) -> None:
    """Remove the lease of `work`'s session, whose server has stopped, once its tasks have
    ended (a session's work is its own: no other server takes it on)."""
    with database.connect() as db:
        db.execute(delete(servings).where(servings.c.work_id == work))
