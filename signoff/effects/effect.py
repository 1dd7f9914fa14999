"""What an action was found to do: each effect (reads, creates, changes, deletes, sends, spends,
reaches outside) with the path through the code that explains it, and where it may raise.

Found by analysing the action's code (`signoff.effects.analyse`), never taken from a declaration
that would make it look safer: ``@sends`` and ``@spends`` only ever add effects.
"""

from __future__ import annotations

import enum
import functools
import re
from dataclasses import dataclass, field

from signoff.effects.bindings import Bindings

__all__ = ["UNSEEN", "Effect", "EffectKind", "Effects", "RaiseSite"]


class EffectKind(enum.Enum):
    """One kind of effect."""

    READS = "reads"
    """Reads records of a type."""
    CREATES = "creates"
    """Creates records of a type."""
    CHANGES = "changes"
    """Changes records of a type (or other state: a value it was given, a global)."""
    DELETES = "deletes"
    """Deletes records of a type."""
    EXTERNAL = "external"
    """Reaches outside the app: the network, files, processes."""
    SENDS = "sends"
    """Sends something (a message, a mail): declared with ``@sends``."""
    SPENDS = "spends"
    """Spends money: declared with ``@spends``."""


UNSEEN = (EffectKind.CHANGES, EffectKind.EXTERNAL, EffectKind.SENDS, EffectKind.SPENDS)
"""What code the analysis cannot see is assumed to do: all an action may do but read and write
records it names — change anything, reach outside, send, and spend an amount not known."""


@dataclass(frozen=True, kw_only=True)
class Effect:
    """One effect, with the path through the code that explains it."""

    kind: EffectKind
    """What sort of effect."""
    target: str = ""
    """The record type for record effects ("Repair"); the sink for outside reach ("httpx.post")."""
    path: tuple[str, ...] = ()
    """How the action gets there: ("set_price", "repair.price =")."""
    reason: str = ""
    """Why it is assumed, when the analysis could not see (e.g. "calls an unannotated callable")."""
    at: str = ""
    """Where in the code the analysis could not see, when it knows (``"bakery.py:34"``)."""
    in_words: bool = False
    """Whether `target` says in a person's words what the code reaches (``"calls delete_note on
    the MCP server notes"``), made from the arguments of the call that reaches it, rather than
    naming the code called; `path` still goes through that code, which `code` does not show
    (a person deciding reads the words alone)."""

    @property
    def field(self) -> str:
        """The field of its record a change assigns (``repair.price = …``: "price"), or "" when
        the change is not an assignment to a field (a list appended to, an item set, a change
        the analysis could not see)."""
        if self.kind is not EffectKind.CHANGES or not self.path or self.reason:
            return ""
        assigned = _ASSIGNED.match(self.path[-1])
        return assigned.group(1) if assigned else ""

    def explain(self) -> str:
        """The effect in one line: "changes Repair: set_price -> repair.price = …" (a value
        assigned is elided, not cut off); one told in words says them alone ("reaches outside:
        calls delete_note on the MCP server notes"), its path being the code's, not the
        reader's."""
        if self.in_words:
            return f"{_KIND_WORDS.get(self.kind, self.kind.value)}: {self.target}"
        what = f"{self.kind.value} {self.target}".strip()
        line = f"{what}: {self.code()}" if self.path else what
        if self.reason:
            line = f"{line} ({self.reason}{' at ' + self.at if self.at else ''})"
        return line

    def words(self) -> str:
        """The effect as a person deciding on it reads it, in a sentence's words: "changes the
        `price` of a Repair", "creates an Order", "reaches outside the app (`httpx.post`)"; what
        the analysis could not see, as what it may do and why ("may change anything: calls an
        unannotated callable at garden.py:34"). The path through the code is `code`'s."""
        if self.in_words:
            return self.explain()
        if self.reason:
            where = f" at {self.at}" if self.at else ""
            what = _MAY.get(self.kind, f"may {self.kind.value} more than it shows")
            return f"{what}: {self.reason}{where}"
        record = f"{_article(self.target)} {self.target}" if self.target else ""
        if self.kind is EffectKind.CHANGES:
            if not record:
                return "changes something other than records (a value it was given, or one kept " \
                       "in the program)"
            return f"changes the `{self.field}` of {record}" if self.field else f"changes {record}"
        if record and self.kind in (EffectKind.READS, EffectKind.CREATES, EffectKind.DELETES):
            return f"{self.kind.value} {record}"
        if self.kind is EffectKind.EXTERNAL:
            return f"reaches outside the app (`{self.target}`)" if self.target else (
                "reaches outside the app")
        return _DOES.get(self.kind, str(self.kind.value))

    def code(self) -> str:
        """The path through the code that shows the effect ("set_price -> repair.price = …":
        a value assigned is elided), "" when it has none — or when the effect is told in words:
        they say what the code reaches, and its path ends in the code they stand for, signoff's
        own (the guard's inbox showed "files_delete_file -> signoff.mcp.upstreams.Upstreams.
        call_from_thread" beside "calls delete_file on the MCP server files")."""
        if self.in_words:
            return ""
        return " -> ".join(f"{step} …" if step.endswith("=") else step for step in self.path)

    @property
    def identity(self) -> tuple[str, str, str, str, bool]:
        """What the effect is, wherever in the code it is found: its kind, what it reaches, the
        field a change assigns, why it is assumed and whether it is told in words. Not its path
        nor the line the analysis could not see: a comment added above the action, or a helper
        on its path renamed, moves those while the action does the same."""
        return (self.kind.value, self.target, self.field, self.reason, self.in_words)

    @staticmethod
    def of_line(line: str) -> Effect | None:
        """The effect an `explain` line was written of, its path as the line writes it (a value
        assigned elided); None when the line cannot be read back as one."""
        told = next((kind for kind, said in _KIND_WORDS.items() if line.startswith(f"{said}: ")),
                    None)
        if told is not None:
            effect = Effect(kind=told, target=line[len(_KIND_WORDS[told]) + 2:], in_words=True)
        else:
            rest, reason, at = line, "", ""
            opens = _reason_opens(line)
            if opens >= 0:
                rest, reason = line[:opens], line[opens + 2:-1]
                located = _LOCATED.search(reason)
                if located:
                    reason, at = reason[:located.start()], located.group(1)
            head, _, code = rest.partition(": ")
            word, _, target = head.partition(" ")
            kind = _KINDS.get(word)
            if kind is None:
                return None
            path = tuple(step[:-2] if step.endswith("= …") else step
                         for step in code.split(" -> ")) if code else ()
            effect = Effect(kind=kind, target=target, path=path, reason=reason, at=at)
        return effect if effect.explain() == line else None


def _article(noun: str) -> str:
    return "an" if noun[:1].lower() in "aeiou" else "a"


_MAY = {EffectKind.CHANGES: "may change anything", EffectKind.EXTERNAL: "may reach outside the app",
        EffectKind.SENDS: "may send anything out of the app", EffectKind.SPENDS: "may spend any amount"}
"""What an effect the analysis could not see may do, by its kind."""

_DOES = {EffectKind.SENDS: "sends something out of the app (a message, a mail)",
         EffectKind.SPENDS: "spends money"}
"""An effect of a kind that names no record, in words."""


_KIND_WORDS = {EffectKind.EXTERNAL: "reaches outside"}
"""How an effect told in words names its kind, where its kind's value does not read as words."""

_KINDS = {kind.value: kind for kind in EffectKind}
"""Each kind by the word an `explain` line begins with."""

_LOCATED = re.compile(r" at ([^\s()]+:\d+)$")
"""Where the analysis could not see, as a reason in an `explain` line ends with it (" at
shop.py:21")."""


def _reason_opens(line: str) -> int:
    """Where the reason an `explain` line ends with, in parentheses, opens (the space before
    them); -1 when it ends with none. Its parentheses are matched from the end: a reason may hold
    some ("(dynamic dispatch)"), and the path before it calls ("hook()")."""
    depth = 0
    for i in range(len(line) - 1, 0, -1) if line.endswith(")") else ():
        depth += {")": 1, "(": -1}.get(line[i], 0)
        if depth == 0:
            return i - 1 if line[i - 1] == " " else -1
    return -1


_ASSIGNED = re.compile(r"^[A-Za-z_][\w.]*\.([A-Za-z_]\w*) [^\s=]{0,2}=$")
"""A step of a path that assigns a field (``repair.price =``, ``repair.count +=``), as the
analysis writes it (`signoff.effects.statements.assign`)."""


@dataclass(frozen=True, kw_only=True)
class Effects:
    """Everything an action was found to do. (What follows from its effects is worked out once
    per instance: the gate and the loop ask for it at every call.)"""

    effects: tuple[Effect, ...] = ()
    """Each effect with its path."""
    cost_usd: float | None = None
    """The most a run may spend, when a ``@spends(cost=...)`` on its path declares it. Where
    code the analysis cannot see may spend, or a cost is met inside a loop, it is what the action
    declares on itself for a whole run (None when it declares none)."""
    cost_repeats: bool = False
    """Whether a declared cost is met inside a loop: unless the action declares on itself what a
    whole run spends, what it spends is then not known (`cost_usd` is None)."""
    resolved: Bindings = field(default_factory=Bindings, compare=False, repr=False)
    """The names the analysis resolved in the app's code, with what they were bound to: these
    effects are the code's while `resolved.changed()` is None."""

    def _targets(self, kind: EffectKind) -> frozenset[str]:
        return frozenset(e.target for e in self.effects if e.kind is kind)

    def _has(self, kind: EffectKind) -> bool:
        return any(e.kind is kind for e in self.effects)

    @functools.cached_property
    def reads(self) -> frozenset[str]:
        """Record types read."""
        return self._targets(EffectKind.READS)

    @functools.cached_property
    def creates(self) -> frozenset[str]:
        """Record types created."""
        return self._targets(EffectKind.CREATES)

    @functools.cached_property
    def changes(self) -> frozenset[str]:
        """Record types (or "" for other state: a parameter, a global) changed."""
        return self._targets(EffectKind.CHANGES)

    @functools.cached_property
    def deletes(self) -> frozenset[str]:
        """Record types deleted."""
        return self._targets(EffectKind.DELETES)

    def fields_changed(self, types: frozenset[str]) -> frozenset[str] | None:
        """The fields of records of `types` that it assigns; None when it changes one of them in
        some other way too (its fields are then not all known)."""
        fields = set()
        for e in self.effects:
            if e.kind is EffectKind.CHANGES and e.target in types:
                if not e.field:
                    return None
                fields.add(e.field)
        return frozenset(fields)

    @functools.cached_property
    def external(self) -> bool:
        """Whether it reaches outside the app (network, processes, files)."""
        return self._has(EffectKind.EXTERNAL)

    @functools.cached_property
    def sends(self) -> bool:
        """Whether it sends something (a message, a mail)."""
        return self._has(EffectKind.SENDS)

    @functools.cached_property
    def spends(self) -> bool:
        """Whether it spends money."""
        return self._has(EffectKind.SPENDS)

    @functools.cached_property
    def writes_records_only(self) -> bool:
        """Whether all it does beyond reading is write records, each found in its code: nothing
        reached outside, sent or spent, no other state changed (a global, a parameter), nothing
        assumed where the analysis could not see. A run of it rolled back leaves no trace."""
        writes = (EffectKind.CREATES, EffectKind.CHANGES, EffectKind.DELETES)
        return all(e.kind is EffectKind.READS or (e.kind in writes and e.target and not e.reason)
                   for e in self.effects)

    @functools.cached_property
    def only_reads(self) -> bool:
        """Whether it does nothing but read."""
        return all(e.kind is EffectKind.READS for e in self.effects)

    def cautions(self) -> list[str]:
        """What was assumed where the analysis could not see, each in one line an author can act
        on: "`plan['crop'].strip()` at garden.py:34 — the type of `plan['crop']` is not known;
        annotate it" (for an action's parameter ``plan: dict[str, Any]``)."""
        found: dict[str, None] = {}
        for e in self.effects:
            if e.at and e.reason:
                found[f"`{e.path[-1] if e.path else '?'}` at {e.at} — {e.reason}"] = None
        return sorted(found)

    def explain(self) -> list[str]:
        """Each effect in one line, in a stable order."""
        return list(self._explained)

    @functools.cached_property
    def ordered(self) -> tuple[Effect, ...]:
        """Each effect, in the stable order `explain` gives its lines in: by kind (reads first),
        then by what it reaches and its path."""
        order = list(EffectKind)
        return tuple(sorted(self.effects, key=lambda e: (order.index(e.kind), e.target, e.path)))

    @functools.cached_property
    def _explained(self) -> tuple[str, ...]:
        return tuple(e.explain() for e in self.ordered)

    @staticmethod
    def unknown(name: str, reason: str) -> Effects:
        """What must be assumed of code that cannot be seen: that it does everything but read
        (`UNSEEN`) — it spends an amount that is not known, so under a budget it is refused."""
        return Effects(
            effects=tuple(Effect(kind=kind, target="", path=(name,), reason=reason) for kind in UNSEEN)
        )


@dataclass(frozen=True, kw_only=True)
class RaiseSite:
    """A place where an action may raise an exception, itself or through what it calls."""

    exception: str
    """The exception class's qualified name (``"builtins.ValueError"``)."""
    function: str
    """The qualified name of the function holding the ``raise``."""
    line: int
    """The line of the ``raise`` in that function's file."""
    path: tuple[str, ...] = ()
    """How the action gets there: ("close_repair", "rules.check", "raise ValueError")."""
