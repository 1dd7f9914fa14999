"""What the web says of a proposal that was approved and whose call has not reported back (its
status Approved: claimed, its call started, its outcome not recorded yet), as its record shows
it: still running in a live process, or left so by one that stopped or could not write the
outcome (the app's database locked past signoff's wait), for a worker to settle.

A yes that met such a database was answered "nothing was done: try again later", though the call
had run; and a yes said again was told only "already decided", the person left not knowing that
the call's outcome was not known yet, nor what becomes of it.
"""

from __future__ import annotations

import logging

from sqlalchemy import select

from signoff.agents import runs
from signoff.agents.proposals import Proposal, ProposalStatus
from signoff.agents.repository import now
from signoff.app import App
from signoff.exceptions import SignoffError, StoreError
from signoff.security.principals import Principal
from signoff.store.tables import proposals

__all__ = ["approved_unrecorded", "yes_cut_off"]

log = logging.getLogger("signoff.web")


def approved_unrecorded(app: App, proposal_id: str, *, by: Principal | None = None) -> str:
    """The sentence for proposal `proposal_id` when it was approved and its call's outcome is
    not recorded yet, as the record reads now; "" when it is not so (or cannot be read now).
    `by`: the yes being answered, which met a database it could not use: when it is the one
    that claimed the proposal (its run's lease let go), that is said first; when another yes of
    theirs claimed it, and its call still runs, that it runs; and otherwise "" is."""
    try:
        proposal = app.proposal(proposal_id)
        if proposal.status is not ProposalStatus.APPROVED:
            return ""
        with app.database.reading() as db:
            lease = db.execute(select(proposals.c.run_by, proposals.c.run_until).where(
                proposals.c.id == proposal_id)).first()
        decider = app.people.find(proposal.decided_by) if proposal.decided_by else None
    except SignoffError:  # (the database, still unusable: the plainer answer stands)
        log.debug("Proposal %s could not be read again", proposal_id, exc_info=True)
        return ""
    if lease is None or (by is not None and proposal.decided_by != by.id):
        return ""
    gone = runs.gone(proposal.id, lease.run_by, lease.run_until, proposal.decided_at, now())
    if by is not None and gone:  # (a yes of theirs whose call still runs is another one's)
        return (f"{_YOURS} {proposal.action} was started, but its outcome could "
                "not be recorded: the app's database could not be used (the server's log says "
                f"why). {_SETTLED}")
    approved = _approved(proposal, decider.name if decider is not None else "")
    if not gone:
        return (f"{approved}, and its call, {proposal.action}, is still running: its outcome "
                "is not known yet. Look at the proposal again once it has reported back; a "
                "proposal is decided once.")
    return (f"{approved}, and its call, {proposal.action}, was started, but its outcome was not "
            "recorded (the process that ran it stopped, or could not write it). "
            f"{_SETTLED}")


_YOURS = "Your yes was recorded and"
"""How the answer to the yes that claimed the proposal, and met the database, begins."""

_SETTLED = ("It may or may not have happened, and it is not run again blindly: a running "
            "worker (`signoff worker`) settles it within minutes, told as of unknown outcome (run "
            "again only if its action only reads or says it is idempotent). Check whether it "
            "happened before asking for it again; a proposal is decided once.")
"""What becomes of an approved call whose outcome was not recorded, its runner gone."""


def yes_cut_off(app: App, proposal_id: str, by: Principal, error: StoreError) -> str:
    """What `by`'s yes to proposal `proposal_id`, which met a database it could not use
    (`error`), is answered when it had claimed the proposal and started its call: the outcome is
    what could not be recorded (logged with the database's problem); "" when it had not (then
    nothing was done, as the database's problem says). When another yes of theirs had claimed
    it and its call still runs, that it runs."""
    said = approved_unrecorded(app, proposal_id, by=by)
    if said.startswith(_YOURS):
        log.error("%s's yes to proposal %s started its call, whose outcome could not be "
                  "recorded: %s", by.name, proposal_id, error)
    return said


def _approved(proposal: Proposal, by: str) -> str:
    """"This proposal was already decided: approved", with by whom and when, as far as the
    record says."""
    who = f" by {by}" if by else ""
    when = f" at {proposal.decided_at:%Y-%m-%d %H:%M} UTC" if proposal.decided_at else ""
    return f"This proposal was already decided: approved{who}{when}"
