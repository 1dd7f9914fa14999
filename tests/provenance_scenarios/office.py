"""The office as a module the ``signoff`` command can load: ``--app tests.provenance_scenarios.office``
on the database ``$OFFICE_DATABASE`` (in memory when unset)."""

from __future__ import annotations

import os

from tests.provenance_scenarios.world import make_world

office = make_world(os.environ.get("OFFICE_DATABASE", "sqlite://"))
app = office["app"]
