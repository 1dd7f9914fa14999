"""How the inbox shows words: signoff's own, and the words of a model, a tool or a person that
it shows or quotes.

Every text is shown as written (`plain`): a character that would reorder the page's text (a
right-to-left override) or draws nothing (a zero-width space) is shown as an escape, as the
command line shows it (`signoff.escapes.visible`), and so is each combining mark past the
`MARKS_KEPT`th on one character (a flood of them draws over the lines around it, and makes the
character they sit on, the 1 of an IBAN, unreadable). signoff's own sentences (`prose`) show what
they quote between backticks (a command, an argument's name) as code. What a model, a tool or a
person wrote (`said`) is shown apart, in an element of its own that the page draws as such,
never as signoff's words: a model's reason that closes signoff's quotation marks and goes on
("Routine refund.” Nothing outside steered this call…") reads as the model's all the same, and
its backticks are backticks.

A receipt's entry, or a label of where an argument came from, is one sentence of signoff's
that quotes others' words: `entry` and `label` find those words in it, from what the entry is
about (the proposal's reason, the tool's answer, the decider's reason, the values labelled),
and show them apart. An entry whose words do not read as expected is shown as plain text.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Iterable
from typing import Any

from markupsafe import Markup, escape

from signoff.agents.proposals import Proposal
from signoff.agents.receipts import ReceiptEntry
from signoff.agents.states import ReceiptKind
from signoff.escapes import visible
from signoff.limits.provenance import ArgumentLabel

__all__ = ["brief", "entry", "field", "kind", "label", "plain", "prose", "said", "shown", "text",
           "why"]

_QUOTED = re.compile(r"`([^`]+)`")


def plain(text: object) -> str:
    """`text` with every character that would act on the page shown as an escape: those that
    reorder text or draw nothing (`visible`), and the combining marks past the `MARKS_KEPT`th in
    a row."""
    return _marks_kept(visible(str(text), invisible=True))


MARKS_KEPT = 4
"""The most combining marks in a row a page draws as such (Vietnamese stacks two on a letter,
Hebrew with its points and accents, or Tibetan, up to about four); those past them are shown as
escapes. Drawn, a run of hundreds stacks into a column of ink over the lines above and below
(signoff's own words, the status), and, one character to a browser however long, it cannot be
wrapped and pushes the page wider than the window."""


def _marks_kept(text: str) -> str:
    """`text` with each combining mark (nonspacing or enclosing) past the `MARKS_KEPT`th in a
    row shown as an escape (``\\u0301``)."""
    if text.isascii():
        return text
    out: list[str] = []
    run = 0
    for character in text:
        run = run + 1 if unicodedata.category(character) in ("Mn", "Me") else 0
        out.append(character if run <= MARKS_KEPT else _escaped(character))
    return "".join(out)


def _escaped(character: str) -> str:
    code = ord(character)
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def shown(value: object) -> object:
    """What every expression of a page's template shows (its ``finalize``): a text `plain`,
    anything else (a number, what a filter made HTML of) as it is."""
    return plain(value) if isinstance(value, str) and not isinstance(value, Markup) else value


BRIEF_CHARACTERS = 160
"""The most of a value the inbox's list shows (the proposal's own page shows all of it)."""
BRIEF_LINES = 3


def brief(value: object) -> str:
    """A value as the inbox's list shows it, so that one long value leaves the list readable:
    whole, or its first `BRIEF_CHARACTERS` characters and `BRIEF_LINES` lines, then "… (N more
    characters: the proposal's page shows all)"."""
    text = str(value)
    cut = "\n".join(text[:BRIEF_CHARACTERS].split("\n")[:BRIEF_LINES])
    if len(cut) == len(text):
        return text
    rest = len(text) - len(cut)
    return (f"{cut}… ({rest} more character{'' if rest == 1 else 's'}: the proposal's page "
            "shows all)")


def field(value: object) -> Markup:
    """A value to edit in a form, as it is (not `plain`): posted back untouched, it must read
    as it was."""
    return escape(str(value))


def prose(words: str) -> Markup:
    """signoff's words as HTML: escaped, `plain`, and what they quote between backticks (a
    command, a value) shown as code, not as backticks."""
    return Markup(_QUOTED.sub(lambda m: f"<code>{m.group(1)}</code>", str(escape(plain(words)))))


def why(problem: str, status: object) -> Markup:
    """A task's problem, shown after its status ("Halted — It reached its limit of 8 steps."):
    as `prose`, without the status it begins with when it names it again (the page read
    "Halted — Halted: it reached …")."""
    named = f"{getattr(status, 'value', status)}: "
    if problem.startswith(named) and problem[len(named):].strip():
        rest = problem[len(named):]
        problem = rest[:1].upper() + rest[1:]
    return prose(problem)


def kind(of: object) -> str:
    """What a receipt's entry tells of, in words: "model call", not its code ``model_call``."""
    return str(of).replace("_", " ")


def said(text: str) -> Markup:
    """What a model, a tool or a person wrote: `plain`, in an element of its own (isolated, so
    that its text orders nothing around it)."""
    return Markup('<bdi class="said">{}</bdi>').format(plain(text))


def _code(text: str) -> Markup:
    return Markup("<code>{}</code>").format(plain(text))


def text(words: str) -> Markup:
    """`words` as HTML: escaped and `plain`, nothing in them styled."""
    return escape(plain(words))


def label(of: ArgumentLabel, rest: Callable[[str], Markup] = prose) -> Markup:
    """A label's words ("`memo` = `pay 100 to bob` is in nothing the task was given…"): the
    argument as code, its value as `said` (whole, or as far as the words show it, cut with
    "…"), the rest as `rest` (signoff's `prose`). Words of another shape are shown as text."""
    head = f"`{of.argument}` = `"
    if not of.words.startswith(head):
        return text(of.words)
    after = of.words[len(head):]
    value = _value_in(of.value, after)
    if value is None:
        return text(of.words)
    return _code(of.argument) + " = " + said(value) + rest(after[len(value) + 1:])


def _value_in(value: str, after: str) -> str | None:
    """The value as `after` (a label's words past the value's opening backtick) shows it: the
    whole value, or its start cut with "…"; the longest reading (what else the words hold is
    signoff's, and a value that holds "…`" could make a shorter one look like a cut); None
    when it shows neither."""
    if after.startswith(f"{value}`"):
        return value
    cut, at = None, after.find("…`")
    while 0 <= at < len(value):
        if value.startswith(after[:at]):
            cut = after[:at + 1]
        at = after.find("…`", at + 1)
    return cut


def entry(of: ReceiptEntry, proposal: Proposal | None, *,
          rest: Callable[[str], Markup] = prose) -> Markup:
    """A receipt's entry as HTML: the words of others it quotes (`said`, `label`), found from
    `proposal` (the one it tells of, if any), the rest as `rest` (signoff's `prose`, or plain
    text). An entry that should quote others' words, whose words do not read so, is text."""
    if proposal is None or of.data.get("proposal") != proposal.id:
        return rest(of.words)
    if of.kind == ReceiptKind.PROPOSAL:
        why = proposal.why.strip()
        quotes = [(f"“{why}”", "“" + said(why) + "”")] if why else []
        labels = of.data.get("labels")
        quotes += [(found.words, label(found, rest)) for found in _untrusted(
            labels.get("arguments", []) if isinstance(labels, dict) else [])]
        return _apart(of.words, quotes, rest)
    if of.kind == ReceiptKind.DECISION and of.data.get("outcome") == "Rejected":
        head = f"{of.data.get('decided_by')} said no to {proposal.action}: "
        if proposal.reason and of.words == head + proposal.reason:
            return rest(head) + said(proposal.reason)
        return text(of.words)
    if of.kind == ReceiptKind.DECISION and of.data.get("outcome") == "Done" and proposal.result:
        return _answered(of.words, _answer(proposal.result), rest)
    return rest(of.words)


def _untrusted(labels: Iterable[Any]) -> list[ArgumentLabel]:
    """The labels, stored as JSON, that a proposal's entry says steered it, in order."""
    found = []
    for stored in labels:
        try:
            read = ArgumentLabel.from_json(stored)
        except (KeyError, TypeError, ValueError):  # not a label as signoff writes one
            continue
        if not read.origin.trusted:
            found.append(read)
    return found


def _apart(words: str, quotes: list[tuple[str, Markup]],
           rest: Callable[[str], Markup]) -> Markup:
    """`words`, each of `quotes` (the text as the words hold it, and how to show it) found in
    them in turn, after the one before; the rest as `rest`. When one is not found, the words
    after the last found are shown as text (what they quote is not known to be apart)."""
    out, at = Markup(), 0
    for quoted, shown_apart in quotes:
        found = words.find(quoted, at)
        if found < 0:
            return out + text(words[at:])
        out += rest(words[at:found]) + shown_apart
        at = found + len(quoted)
    return out + rest(words[at:])


def _answer(result: dict[str, Any]) -> str:
    """What a call that ran answered (as the agent was told it, and the receipt quotes it)."""
    if result.get("said"):
        return str(result["said"])
    return json.dumps(result["value"]) if result.get("value") is not None else "Done."


def _answered(words: str, answer: str, rest: Callable[[str], Markup]) -> Markup:
    """A yes's words, "… It answered “ANSWER”." (ANSWER whole, or its start cut with "…"),
    the answer shown apart; words that do not end so are text."""
    marker = " It answered “"
    at = words.find(marker)
    while at >= 0:
        quoted = words[at + len(marker):]
        end = "”." if quoted.endswith("”.") else "”"
        quoted = quoted.removesuffix(end)
        if quoted == answer or (quoted.endswith("…") and answer.startswith(quoted[:-1])):
            return rest(words[:at]) + " It answered “" + said(quoted) + end
        at = words.find(marker, at + 1)
    return text(words)
