"""The named points at which the loop and the decider say what they are doing.

An `Observer` is told when a task starts and runs, around each model call and each tool call, what
the gate said, how a call ended, what was proposed, and around each decision. This one does
nothing, at the price of a method call per point; `signoff.agents.tracing.Tracing` turns the
points into OpenTelemetry spans. The loop calls nothing else of it, so the points can follow the
loop when it is reshaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from types import TracebackType

    from signoff.actions.catalog import Action
    from signoff.actions.results import ActionResult
    from signoff.agents.gate import Verdict
    from signoff.agents.proposals import Proposal
    from signoff.agents.repository import CallRow, TaskRow
    from signoff.models.base import Message, Model, Reply, ToolSpec
    from signoff.security.principals import Principal

__all__ = ["Observer", "Span"]


class Span:
    """A stretch of work being observed: entered and left as a context manager, told how it
    ended. This one records nothing."""

    def __enter__(self) -> Span:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        return None

    def ended(self, outcome: Any) -> None:
        """How the work came out: an `Outcome` for a run, a `Decision` for a decision."""


NOTHING = Span()
"""The span of an observer that observes nothing (one, shared)."""


class Observer:
    """Told what the loop and the decider do, at named points; this one does nothing."""

    def started(self, *, task_id: str, agent: str, skill: str, model: Model) -> Any:
        """A task was made (before it is stored): what to keep with it so that whoever goes on
        with it, here or in another process, continues the same trace (None: nothing)."""
        return None

    def running(self, task: TaskRow) -> Span:
        """The task runs in this process until it waits or ends."""
        return NOTHING

    def handing_on(self, task_id: str) -> Span:
        """The task goes on in the runner's workers (another process, maybe) while this one
        waits to hear where it stands; told the `Outcome`."""
        return NOTHING

    def complete(self, task: TaskRow, model: Model, messages: Sequence[Message],
                 tools: Sequence[ToolSpec], *, max_output_tokens: int) -> Reply:
        """Ask `model` (what the loop would do itself); its reply."""
        return model.complete(messages, tools, max_output_tokens=max_output_tokens)

    def tool_call(self, task: TaskRow, call: CallRow) -> Span:
        """One tool call the model asked for is gated and then run, proposed or refused."""
        return NOTHING

    def gated(self, verdict: Verdict, action: Action | None = None) -> None:
        """What the gate said of the tool call in hand (`action`: the tool's, when it is
        one)."""

    def tool_ended(self, *, state: str, outcome: str, answer: str,
                   result: ActionResult | None = None) -> None:
        """How the tool call in hand ended (`result`: the action's, when it ran)."""

    def trace_context(self) -> Any:
        """What to keep with a proposal of the tool call in hand, so that its wait and its
        decision join the trace (None: nothing)."""
        return None

    def proposed(self, proposal: Proposal, *, waits_on: str) -> None:
        """The tool call in hand was put to a person (`waits_on`: who, in words)."""

    def deciding(self, proposal_id: str, *, by: Principal, verb: str) -> Span:
        """`by` decides a proposal (`verb`: "approve" or "reject"); told the `Decision`."""
        return NOTHING
