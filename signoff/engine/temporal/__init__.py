"""The Temporal runner: each task a workflow whose id is the task's id, each step an activity.

An app runs its tasks on Temporal when it is made with ``runner=Temporal(address=...)`` (or
when ``SIGNOFF_TEMPORAL`` names the server's address); ``signoff worker --temporal ADDRESS``
runs its workers. This module needs only the standard library: the runner, the workflow and
the activities (``temporalio``, the ``temporal`` extra) are imported when first used.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import timedelta

from signoff.exceptions import UserError

__all__ = ["ADDRESS_VARIABLE", "QUEUE_VARIABLE", "Temporal"]

ADDRESS_VARIABLE = "SIGNOFF_TEMPORAL"
"""The environment variable naming the Temporal server of an app made with no runner."""
QUEUE_VARIABLE = "SIGNOFF_TEMPORAL_QUEUE"
"""The environment variable naming its task queue (``signoff-<app name>-<database>`` when
unset: see `Temporal.queue_of`)."""


@dataclass(frozen=True, kw_only=True)
class Temporal:
    """Where an app's tasks run when they run on Temporal: ``Temporal(address="host:7233")``,
    with its `namespace`, `task_queue` and `local_activities` when they are not the defaults."""

    address: str
    """The Temporal server's frontend, ``host:port``."""
    namespace: str = "default"
    """The Temporal namespace the workflows live in."""
    task_queue: str = ""
    """The task queue the app's workers poll; when empty, ``signoff-<app name>-<database>``,
    the database's id's first 8 characters (see `queue_of`)."""
    local_activities: bool = True
    """Whether steps run as local activities (in the worker that runs the workflow, without a
    round trip to the server per step: faster), or as ordinary activities (any worker)."""
    settle_within: timedelta = timedelta(seconds=30)
    """How long `agent.do` and a decision wait for the task to wait or end, before they answer
    that it is running (it goes on in the workers all the same)."""

    def __post_init__(self) -> None:
        address = self.address.strip() if isinstance(self.address, str) else ""
        host, _, port = address.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536 or "/" in address:
            raise UserError(f"A Temporal server's address is HOST:PORT (127.0.0.1:7233, say), "
                            f"with no scheme (http://) or path, not {self.address!r}.")
        object.__setattr__(self, "address", address)  # frozen: as it is used
        if not isinstance(self.settle_within, timedelta) or self.settle_within < timedelta(0):
            raise UserError(f"How long a Temporal app waits for a task to settle is a timedelta "
                            f"(timedelta(seconds=30), say), not {self.settle_within!r}.")

    def queue_of(self, app_name: str, database_id: str) -> str:
        """The task queue of the app called `app_name` on the database whose id is
        `database_id` (`signoff.store.identity.database_id`): `task_queue` when given, else
        one of that database's own. Two databases that hold an app of one name (two shops both
        called ``App("shop")``, a test database beside production) on one server would
        otherwise share a queue, and each one's workers take the other's workflows."""
        return self.task_queue or f"signoff-{app_name}-{database_id[:8]}"

    def legacy_queue_of(self, app_name: str) -> str | None:
        """The queue signoff named from the app's name alone before a database had an id
        (``signoff-<app name>``), whose workflows the app's workers move to `queue_of`; None
        when `task_queue` is given (it was that queue then too)."""
        return None if self.task_queue else f"signoff-{app_name}"

    @classmethod
    def from_environment(cls) -> Temporal | None:
        """The runner ``SIGNOFF_TEMPORAL`` (and ``SIGNOFF_TEMPORAL_QUEUE``) name, or None."""
        address = os.environ.get(ADDRESS_VARIABLE, "").strip()
        if not address:
            return None
        return cls(address=address, task_queue=os.environ.get(QUEUE_VARIABLE, "").strip())
