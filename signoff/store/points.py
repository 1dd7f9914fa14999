"""Named points the library passes where a race could fall, and a hook a test sets to pause
there.

Off by default: passing a point then costs one global lookup. A test (or the crash campaign)
sets a hook with `pausing` to make a race certain — to hold one process at "an outside call is
marked running, and has not started" while another does its work — instead of hoping the
scheduler falls that way. The points:

- ``loop.stepping``: a step of a task begins.
- ``loop.calls_read``: the loop has read its open turn's calls from the store; it gates them next.
- ``loop.gating``: one call of the turn is gated next (``tool`` says which).
- ``loop.turn_read``: the loop has read what its turn waits on; it stores that it waits next.
- ``loop.rule_held``: a standing rule was found to let a call run alone (``rule`` names it);
  the call runs under it next (its run reads the rule again first).
- ``loop.call_marked``: an outside call the agent runs alone is marked running; it runs next.
- ``loop.model_reserved``: a model call's cost is reserved; the model is asked next.
- ``loop.model_replied``: the model replied; the reply is stored next.
- ``temporal.handing_on``: a task recorded Running and held by this thread (as it was started,
  or woken by a decision) is let go of and handed to its Temporal workflow next.
- ``proposal.told_next``: a proposal, or its escalation, is committed; the app's handlers of
  ``AgentProposed`` are called next (``proposal`` names it).
- ``proposal.handler_took``: one of those handlers took the proposal's notice, and that is kept
  (the last of them: the proposal is marked told next); the next handler is called next
  (``proposal`` and ``handler``, its name, say which).
- ``research.written``: ``signoff research`` has written its outcome, and the block that wrote
  it has ended; it says it is shown (``research.shown``) next.
- ``research.shown``: ``signoff research`` has shown its outcome; the command exits next.
- ``decider.checked``: an approval checked its budget; the call is claimed next.
- ``decider.claimed``: an approved outside call (or query) is claimed and marked running; it
  runs next.
- ``run.record_locked``: a record given to a run that reaches outside was loaded and its row
  locked (PostgreSQL; ``record`` names its class); the run goes on to its next.
- ``run.called``: an action's function returned inside its run; its writes are flushed next.
- ``run.consented``: an action run on a consent did its work; the run commits next.
- ``rules.looked``: making a standing rule looked for one of its shape that stands; none
  stood, or it is given back, next.
- ``login.checked``: a login found the password still the person's; the session's token is
  stored next, in the same transaction.
- ``people.handle_free``: a principal's handle was found free; its row is inserted next.
- ``mcp.rule_to_suspend``: an MCP guard found a standing rule on a tool whose server changed
  it (``rule`` names it); it takes the rule back next.
- ``mcp.tool_unknown``: an MCP guard found no row of what an upstream tool said of itself; it
  keeps one next.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["Hook", "pausing", "reached"]

Hook = Callable[[str, dict[str, Any]], None]
"""Called with a point's name and what the library said of where it is."""

_hook: Hook | None = None


def reached(point: str, **where: Any) -> None:
    """The library is at `point` (nothing happens unless a hook is set)."""
    if _hook is not None:
        _hook(point, where)


@contextmanager
def pausing(hook: Hook) -> Iterator[None]:
    """Call `hook` at every named point while the block runs (in every thread)."""
    global _hook
    before, _hook = _hook, hook
    try:
        yield
    finally:
        _hook = before
