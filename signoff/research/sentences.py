"""The sentences of a source: what the offline reader may quote.

A source's text is cut into blocks at blank lines. A block that is code (an interactive
session, a grammar, an indented example, a fenced block) or a heading (underlined, ``#``-led, or
a few words standing alone) is not prose and gives no sentence. A list item is a unit of its own.
Prose is cut into sentences after ``.``, ``!``, ``?`` or ``…`` (with any closing quotes or
brackets) that a capital, a digit, an opening quote or inline code (```signoff research``
keeps…``) follows — but not after an abbreviation
("e.g.", "i.e.", "cf.", "vs.", an initial), and not inside a quotation or inline code.

Each sentence knows the headings it stands under: its section's (the last heading before it)
and, within the section, its entry's — a term standing alone on its line (a glossary's, a
definition list's) or a function's signature, which the lines after it describe. A heading says
what the sentences under it are about, as a title does for the whole source.

A sentence is kept whatever its length, with or without end punctuation (a list item, a line
ending in a colon); it is the source's own characters, only its line breaks read as spaces, so
that it is always a quote the citation check accepts. Not every sentence **stands alone**
(`stands_alone`), and the reader quotes only those that do: a piece of a sentence too long to
keep whole, one that leads in to the list after it ("The rules are:", "It is accepted only
if"), one that goes on a clause begun before it ("in research's own database.", a list item
"every claim has a citation,") or breaks off before its end ("…is equivalent to"), an aside in
brackets ("(Another port than the one above.)") and a pointer to another entry ("See global
interpreter lock.") say nothing whole by themselves.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = [
    "Sentence",
    "headings_of",
    "index_reading",
    "indexed_of",
    "sentences_of",
    "split_sentences",
    "stands_alone",
]

MAX_CHARS = 600
"""The longest sentence kept whole; a longer run of prose is cut at its last clause break (its
pieces are not `Sentence.whole`, and are never quoted as claims)."""

_ABBREVIATIONS = frozenset({
    "e.g", "i.e", "cf", "vs", "viz", "al", "etc", "approx", "incl", "resp", "ca", "fig", "figs",
    "no", "nos", "vol", "sec", "ch", "p", "pp", "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr",
    "eq", "ref", "ex", "op", "cit", "ibid",
})  # fmt: skip
"""Words that a full stop follows without ending the sentence (lower case, no last dot)."""

_END = re.compile(r"[.!?…]+[\"'”’)\]*]*(?:\s*\[\d{1,3}\])?(?=\s)")
_NEXT = re.compile(r"\s+[\"“‘'(\[*]*(?:[A-Z0-9]|`)")
_BULLET = re.compile(r"(?:[*+\-•]|\d{1,3}[.)]|\([a-z0-9]\))\s+")
_UNDERLINE = re.compile(r"[*=\-~^#+`\"']{3,}")
_LETTER_OR_SPACE = re.compile(r"[^\W\d_]|\s")
_ENTRY = re.compile(r"@?[^\W\d][\w\-’']*(?:\.[\w\-’']+)*(?: [\w\-’']+(?:\.[\w\-’']+)*){0,3}")
"""A line standing alone of a few words and no punctuation: an entry's term (a glossary's
"iterator", a definition list's), which the lines after it describe."""
_SIGNATURE = re.compile(r"(?P<name>[A-Za-z_][\w.]*)\((?P<arguments>[^()]*)\)\s*")
"""A function's signature as the reference heads its entry ("wave.open(file, mode=None)"): its
name is the entry's. Matched whole and anchored, so that it takes a time linear in the line."""
_DECLARED = re.compile(r"(?:class|exception|coroutine|awaitable|classmethod|staticmethod|static|"
                       r"abstractmethod|async) "
                       r"(?P<name>[A-Za-z_][\w.]*)(?:\([^()]*\))?\s*")
"""A class's, an exception's or a coroutine's signature as the reference heads its entry
("class bool(x=False)", "exception KeyError", "coroutine asyncio.sleep(delay)"): its name is
what the paragraphs after it describe."""
_PARAMETER = re.compile(r"\s*(?:\*{0,2}[A-Za-z_]\w*(?:\s*=\s*[^=\s][^=]*)?|\*|/|\.\.\.)\s*")
"""A signature's parameter: a name, ``*args``, ``**kw``, ``name=default``, a lone ``*`` or ``/``
— not a call's argument (``print("hi")``, ``f(1, 2)``)."""
_LABELS = frozenset({
    "note", "notes", "see", "seealso", "warning", "warnings", "footnote", "footnotes", "tip",
    "tips", "important", "caution", "danger", "attention", "hint", "error", "todo",
    "deprecated", "changed", "new", "example", "examples", "table", "contents",
})  # fmt: skip
"""The first words of an admonition's or a note's label ("Note", "See also", "Deprecated since
version 3.8"): a label, never an entry's term."""
_ORDINARY = frozenset({
    "a", "an", "the", "and", "or", "but", "if", "then", "so", "as", "at", "by", "for", "from",
    "in", "into", "of", "on", "to", "with", "without", "this", "that", "these", "those", "it",
    "its", "is", "are", "be", "was", "were", "not", "no", "all", "some", "any", "each", "see",
    "use", "using", "here", "there", "when", "where", "which", "who", "how", "what", "why",
    "we", "you", "they", "he", "she", "i", "our", "your", "their", "also", "only", "more",
})  # fmt: skip
"""Ordinary words a line of a few words that opens with one in lower case is prose, not an
entry's term ("see the table", "and the rest")."""
_ASSIGNMENT = re.compile(r"\s*[A-Za-z_][\w.]*(?:\[[^\]]*\])?(?:\s*,\s*[A-Za-z_]\w*)*\s*"
                         r"(?:[-+*/%|&^@]|//|\*\*|<<|>>)?=\s")
"""A line of code that assigns ("total = sum(b for a, b in items)", "x += 1")."""
_SECTION_NUMBER = re.compile(r"^\s*\d+(?:\.\d+)*\.?\s+(?=\S)")
"""A heading's section number ("3.1.1. "), which says nothing of its form."""
_SENTENCE_END = re.compile(r"[.!?][\"')\]]*$")
"""The end of a sentence, with any closing quotes or brackets ("(see the note above.)")."""
_FENCE = re.compile(r"^\s*(```|~~~)")
_ATX = re.compile(r"#{1,6}[ \t]+\S")
"""A Markdown heading's line (at the line's start: an indented ``# x`` is code's comment)."""
_CODE_START = re.compile(
    r"^\s*(Traceback \(most recent|>>>|\.\.\.\s|(?:\([\w.\-]+\)\s*)?\$ |(?:PS )?[A-Za-z]:\\[^>]*> |"
    r"%|def |class |for .* in .*:|if .*:$|"
    r"while .*:$|with .*:$|try:|except\b.*:$|finally:|else:|elif .*:|import |from \S+ import |"
    r"return\b|await |async (?:def|for|with) |@\w)"
)
"""The first line of code: a session's prompt (``>>>``, ``$ ``, a virtual environment's
``(env) $ ``, Windows' ``C:\\work> ``), a statement, a decorator."""


@dataclass(frozen=True, kw_only=True)
class Sentence:
    """A sentence of a source, as the reader weighs it."""

    source_id: str
    """The source it is in."""
    text: str
    """The sentence, exactly as the source has it (line breaks read as spaces)."""
    rank: int = 0
    """Its source's place among the sources read, from 0 (best first)."""
    position: int = 0
    """Its place in its source (the part read), from 0."""
    score: float = 0.0
    """How well it answers the question (set by the ranking)."""
    under: int = 0
    """Its place under its heading (the last section heading or entry before it), from 0: a
    section opens by saying what it is about, wherever in the source it begins."""
    heading: str = ""
    """The headings it stands under: its section's, and its entry's when it is in one (a
    glossary's term, a function's signature: a line standing alone before its description),
    joined by a space ("7.9. The break statement", "Glossary iterator"). A heading says what
    the sentences under it are about, as a title does for the whole source."""
    entry: str = ""
    """The term or function's name that heads its entry ("iterator", "wave.open"), if it is in
    one: an entry's first sentence says what its term is."""
    named: str = ""
    """The name of the function, class or exception whose description it is in ("print" for
    every paragraph after ``print(*objects, sep=' ')``, "KeyError" after ``exception
    KeyError``), up to the next such entry, term or section heading: what it tells of, where it
    says only "Print objects…" or "All non-keyword arguments…"."""
    signatures: tuple[str, ...] = ()
    """The signatures that head the description `named` is of, as the source writes them, each
    a line of its own (``print(*objects, sep=' ', end='\\n', file=None, flush=False)``;
    ``class range(stop)`` and ``class range(start, stop[, step])``): what they list of its
    parameters, no sentence of the description may say."""
    whole: bool = True
    """False for a piece of a sentence longer than `MAX_CHARS`, cut at a clause break: a
    fragment, never quoted as a claim."""
    leads_in: bool = False
    """It ends its paragraph with a colon (or, not in a list itself, with no end punctuation),
    and a list follows it directly ("The rules are:", "It is accepted only if"): the list says
    what it leads in to, not the sentence itself."""


def sentences_of(source_id: str, text: str, rank: int = 0) -> list[Sentence]:
    """The prose sentences of a source's text, in order, each with the headings it stands
    under."""
    found: list[Sentence] = []
    units = list(_units(text))
    for at, unit in enumerate(units):
        listed = at + 1 < len(units) and units[at + 1].item and units[at + 1].follows
        pieces = [(s, whole) for s, whole in _sentences_in(unit.text) if not _is_label(s)]
        heading = f"{unit.section} {unit.entry}".strip()
        for n, (s, whole) in enumerate(pieces):
            under = found[-1].under + 1 if found and found[-1].heading == heading else 0
            found.append(Sentence(source_id=source_id, text=s, rank=rank, position=len(found),
                                  under=under, heading=heading, entry=unit.entry,
                                  named=unit.named, signatures=unit.signatures,
                                  whole=whole,
                                  leads_in=listed and n == len(pieces) - 1 and (
                                      s.endswith(":") or not (unit.item or _ENDS.search(s)))))
    return found


_ENDS = re.compile(r"(?:[.!?…][\"'”’)\]*]*(?:\s*\[\d{1,3}\])?|:)$")
"""A sentence's own end: ``.``, ``!``, ``?`` or ``…`` (and any closing quotes, brackets or a
footnote's number), or a colon before what it introduces."""

_GOES_ON = frozenset({
    "a", "an", "the", "this", "that", "these", "those", "its", "their", "his", "her", "our",
    "each", "every", "all", "some", "any", "no", "both", "either", "neither", "such", "other",
    "and", "or", "but", "nor", "so", "yet", "then", "than", "because", "although", "though",
    "unless", "until", "while", "whereas", "whether", "which", "who", "whom", "whose", "where",
    "when", "as", "since", "once", "in", "on", "at", "by", "for", "from", "of", "to", "with",
    "without", "into", "onto", "over", "under", "after", "before", "between", "through",
    "during", "about", "against", "among", "upon", "within", "via", "per", "like", "except",
    "also", "only", "even", "just", "not", "too", "instead", "otherwise", "thus", "hence",
    "therefore", "however", "it", "they", "we", "you", "he", "she", "is", "are", "was", "were",
    "be", "been", "being", "can", "could", "may", "might", "must", "shall", "should", "will",
    "would", "do", "does", "did", "has", "have", "had",
})  # fmt: skip
"""English words that, in lower case, begin no sentence: one that opens with one goes on a
clause begun before it ("in research's own database.", a list item "every claim has a
citation,"). A name in lower case ("lambda is…", "pass is…") begins one. Nor does a sentence
end with one of them: it breaks off ("The simple form is equivalent to")."""

_BREAKS_OFF = re.compile(r"(?:[,;—–-]|(?<![\w-])(?:" + "|".join(sorted(_GOES_ON)) + r"))$",
                         re.IGNORECASE)
"""The end of a line that breaks off before its sentence does: a comma, or a word that leads on
("…only if", "…returned, and")."""

_POINTER = re.compile(r"\(?See\s")
"""A pointer to another place ("See global interpreter lock.", "See section 3.2."): where the
answer is, not the answer."""


def stands_alone(sentence: Sentence) -> bool:
    """Whether `sentence` says something whole by itself, so that it may be quoted as a claim:
    kept whole (`Sentence.whole`), not leading in to a list (`Sentence.leads_in`), not going on
    a clause begun before it (opening with a word such as "in", "and" or "every" in lower case)
    nor breaking off before the rest of one (ending in a comma, or in such a word: "…is
    equivalent to"), not an aside in brackets, and not a pointer to another place ("See …").
    (A line without end punctuation may stand alone: a note's "The kettle is in the kitchen".)"""
    text = sentence.text.strip()
    if not (sentence.whole and text) or sentence.leads_in:
        return False
    first = re.match(r"[^\W\d_]+", text)
    if first and first.group().islower() and first.group() in _GOES_ON:
        return False
    if _BREAKS_OFF.search(text):
        return False
    return not (_POINTER.match(text) or _aside(text))


def _aside(text: str) -> bool:
    """Whether `text` is wholly in brackets: an aside to what was said before it."""
    if not text.startswith("("):
        return False
    depth = 0
    for at, char in enumerate(text):
        depth += (char == "(") - (char == ")")
        if depth == 0:
            return text[at + 1:].strip() in ("", ".")
    return False


def split_sentences(text: str) -> list[str]:
    """The prose sentences of `text`, in order, each as the text has it (line breaks as spaces)."""
    return [s for s, _, _ in _headed_sentences(text)]


def headings_of(text: str) -> list[str]:
    """The headings of `text` that stand over prose, each once, in order: its sections' and its
    entries' (a glossary's terms, the names of the functions whose signatures head entries)."""
    found = [h for _, section, entry in _prose_units(text) for h in (section, entry) if h]
    return list(dict.fromkeys(found))


def indexed_of(text: str) -> tuple[list[tuple[str, str]], list[str]]:
    """What an index keeps of `text`, read at once: its sentences, each with the headings it
    stands under joined as `Sentence.heading` has them, and its headings as `headings_of`
    gives them."""
    sentences, headings, _, _ = index_reading(text)
    return sentences, headings


def index_reading(text: str) -> tuple[list[tuple[str, str]], list[str], list[str], set[int]]:
    """`indexed_of`; the names of the functions, classes and exceptions `text` describes
    (`Sentence.named`, the last part of a dotted one: "json.dumps", dumps), each once, in
    order; and the places among its sentences of those that open the description of one
    (the paragraph right under its signature: "Return the size of an object in bytes." under
    ``sys.getsizeof(object[, default])``), which say what it does."""
    units = list(_units(text))
    headings = [h for u in units for h in (u.section, u.entry) if h]
    sentences: list[tuple[str, str]] = []
    opening: set[int] = set()
    for u in units:
        for s, _ in _sentences_in(u.text):
            if not _is_label(s):
                if u.named and u.entry:
                    opening.add(len(sentences))
                sentences.append((s, f"{u.section} {u.entry}".strip()))
    named = [u.named.rsplit(".", 1)[-1] for u in units if u.named]
    return sentences, list(dict.fromkeys(headings)), list(dict.fromkeys(named)), opening


def _headed_sentences(text: str) -> Iterator[tuple[str, str, str]]:
    for unit, section, entry in _prose_units(text):
        yield from ((s, section, entry) for s, _ in _sentences_in(unit) if not _is_label(s))


@dataclass(frozen=True, kw_only=True)
class _Unit:
    """A run of prose: a paragraph, or one item of a list."""

    text: str
    section: str
    """The last section heading before it."""
    entry: str
    """The entry it is in (since that heading), if any."""
    item: bool
    """Whether it is an item of a list (its first line has a bullet or a number)."""
    follows: bool
    """Whether it comes right after the unit before it (no code, heading or label between)."""
    named: str = ""
    """The function, class or exception whose description it is in (`Sentence.named`)."""
    signatures: tuple[str, ...] = ()
    """The signatures that head that description (`Sentence.signatures`)."""


def _prose_units(text: str) -> Iterator[tuple[str, str, str]]:
    """Each run of prose (a paragraph, or one item of a list; code and headings left out), with
    the headings it stands under: the last section heading, and the entry since it, if any."""
    for unit in _units(text):
        yield unit.text, unit.section, unit.entry


def _units(text: str) -> Iterator[_Unit]:
    """Each run of prose (see `_prose_units`), with what kind it is and whether it follows the
    one before it directly."""
    fenced = False
    follows = False  # whether the block read last gave the unit yielded last
    section = entry = before = ""  # before: the prose block just before, if the last was one
    named = ""  # the function, class or exception described since its signature, if any
    signatures: tuple[str, ...] = ()  # the signatures that head its description
    signed = False  # whether the block read last was a signature
    for block in re.split(r"\n[ \t]*\n", text):
        lines = [line for line in block.split("\n") if line.strip()]
        if not lines:
            continue
        prose_before, before = before, ""
        after_signature, signed = signed, False
        came_after, follows = follows, False
        if fenced or _FENCE.match(lines[0]):
            fences = sum(bool(_FENCE.match(line)) for line in lines)
            fenced = fenced != (fences % 2 == 1)
            continue
        if _ATX.match(lines[0]) and len(lines) > 1 and not _is_code(lines[1:]):
            section, entry, named, signatures = _heading_text(lines[:1]), "", "", ()  # (a
            # Markdown heading, its prose on the next line)
            lines = lines[1:]
            block = "\n".join(lines)
            came_after = False
        elif _is_heading(lines):
            section, entry, named, signatures = _heading_text(lines), "", "", ()
            continue
        if len(lines) == 1 and _is_entry(lines[0].strip()):
            signature = _SIGNATURE.fullmatch(lines[0].strip())
            if not (signature and _names(prose_before, signature["name"])):
                entry = signature["name"] if signature else lines[0].strip()
                declared = _DECLARED.fullmatch(lines[0].strip())
                name = signature["name"] if signature else declared["name"] if declared else ""
                signatures = _signed(signatures if after_signature and name == named else (),
                                     lines[0].strip() if signature else "")
                named, signed = name, bool(signature)
                continue  # a heading, not a claim
            # else a call of what the prose just before names: its example, not an entry
        declared = _DECLARED.fullmatch(lines[0].strip()) if len(lines) == 1 else None
        if declared:  # "class bool(x=False)", "exception KeyError": what follows describes it
            line = lines[0].strip()
            signatures = _signed(signatures if after_signature and declared["name"] == named
                                 else (), line if line.endswith(")") else "")
            named, entry, signed = declared["name"], "", True
            continue
        heads, entry = entry, ""  # an entry heads the block right after it, not the section
        if _is_code(lines):
            continue
        before = block
        item: list[str] = []
        listed = False
        for line in lines:
            stripped = line.strip()
            bullet = _BULLET.match(stripped)
            if bullet and item:
                yield _Unit(text=" ".join(item), section=section, entry=heads, item=listed,
                            follows=came_after, named=named, signatures=signatures)
                item, came_after = [], True
            if not item:
                listed = bool(bullet)
            item.append(stripped[bullet.end():] if bullet else stripped)
        if item:
            unit = " ".join(item)
            if _is_label(unit):
                continue
            yield _Unit(text=unit, section=section, entry=heads, item=listed, follows=came_after,
                        named=named, signatures=signatures)
            follows = True


def _signed(signatures: tuple[str, ...], line: str) -> tuple[str, ...]:
    """`signatures`, and `line` after them when it is one (a description may be headed by
    several, each on its own line: ``max(iterable, *, key=None)``, then ``max(arg1, arg2,
    *args, key=None)``)."""
    return (*signatures, line) if line else signatures


def _names(prose: str, name: str) -> bool:
    """Whether `prose` names `name` as a word of its own ("the print function" names print)."""
    return re.search(rf"(?<![\w.]){re.escape(name)}(?![\w])", prose) is not None


def _is_entry(line: str) -> bool:
    """Whether `line`, standing alone, heads an entry: a term of a few words, or a signature
    whose arguments are parameters; not a line of code ("raise new_exc from original_exc":
    several words, one a name with an underscore; "print('hi')", a call), not a label ("Note",
    "See also", "Deprecated since version 3.8"), not a few words of prose ("see below")."""
    if _CODE_START.match(line):
        return False
    words = line.split()
    first = words[0].lower() if words else ""
    if first.rstrip(":") in _LABELS or (len(words) > 1 and words[0] in _ORDINARY):
        return False
    signature = _SIGNATURE.fullmatch(line)
    if signature:
        arguments = signature["arguments"].replace("[", ",").replace("]", ",")
        return all(_PARAMETER.fullmatch(a) for a in arguments.split(",") if a.strip())
    return bool(_ENTRY.fullmatch(line)) and (len(words) == 1 or "_" not in line)


def _heading_text(lines: list[str]) -> str:
    """A heading's words, without its ``#`` marks or underline."""
    kept = lines[:-1] if len(lines) >= 2 and _UNDERLINE.fullmatch(lines[-1].strip()) else lines
    return " ".join(line.strip().lstrip("#").strip() for line in kept)


def _is_heading(lines: list[str]) -> bool:
    if len(lines) >= 2 and _UNDERLINE.fullmatch(lines[-1].strip()):
        # a docstring's closing quotes underline none; a section's number is no code
        # ("3.1.1. Numbers", '4.2. "for" Statements')
        title = [_SECTION_NUMBER.sub("", lines[0], count=1), *lines[1:-1]]
        return not _looks_like_code(title)
    return lines[0].lstrip().startswith("#") and len(lines) == 1


def _is_label(unit: str) -> bool:
    """A few words standing alone without end punctuation: a heading or a label, not a claim."""
    return not re.search(r"[.!?…:;]['\"”’)\]*]*$", unit) and len(re.findall(r"\w+", unit)) < 5


def _is_code(lines: list[str]) -> bool:
    if _looks_like_code(lines):
        return True
    joined = "\n".join(lines)
    words = re.findall(r"[A-Za-z][a-z]+", joined)
    return len(words) < 2 and not _ends_in_punctuation(joined)


def _ends_in_punctuation(text: str) -> bool:
    """Whether `text` ends in ``.``, ``!`` or ``?`` followed by nothing but non-word characters;
    read back from the end by hand, in a time linear in the text (a pattern ``[.!?]\\W*$`` is
    tried from every stop)."""
    end = len(text)
    while end and not (text[end - 1].isalnum() or text[end - 1] == "_"):
        end -= 1
    return any(c in ".!?" for c in text[end:])


def _is_commented_code(line: str) -> bool:
    """Whether `line` is code followed by a comment two spaces apart ("raise ValueError  #
    shorthand", "x = 1  # one"): what comes before the comment reads as code (a few words, an
    assignment, brackets), not as a sentence."""
    at = line.find("  # ")
    code = line[:at].strip()
    if at < 0 or not code or line[at - 1].isspace():
        return False
    if _SENTENCE_END.search(code) or code.endswith((",", ";", ":")):
        return False
    return bool(_CODE_START.match(code) or _ASSIGNMENT.match(code)
                or re.search(r"[()\[\]{}=]", code) or len(code.split()) <= 3)


def _looks_like_code(lines: list[str]) -> bool:
    """Whether `lines` read as code by their form (a word or two alone may be a heading)."""
    joined = "\n".join(lines)
    if "::=" in joined or any(_CODE_START.match(line) for line in lines):
        return True
    end = joined.rstrip()
    if _ASSIGNMENT.match(lines[0]) and not (_SENTENCE_END.search(end) or end.endswith(":")):
        return True  # an assignment, not a sentence ("adder = lambda x, y: x+y")
    if any(re.search(r"\S {3,}\S|^\s*[|+]", line) for line in lines):
        return True  # a table: columns apart, or drawn with | and +
    if any(_is_commented_code(line) for line in lines):
        return True  # a comment after code, two spaces apart ("raise ValueError  # shorthand")
    if re.search(r"[;{}]\s*$", lines[-1]) and not re.search(r"[.!?]", joined):
        return True
    letters = len(_LETTER_OR_SPACE.findall(joined))
    return letters < 0.72 * len(joined)


def _sentences_in(unit: str) -> Iterator[tuple[str, bool]]:
    """The sentences of a run of prose, each with whether it is whole (not a piece of one too
    long to keep whole)."""
    start = 0
    literals: list[tuple[int, int]] | None = None  # (found once, at the first stop it may hold)
    for end in _END.finditer(unit):
        after = end.end()
        if not _NEXT.match(unit, after):
            continue
        if _is_abbreviation(unit, end.start()):
            continue
        if literals is None:
            literals = _literals(unit)
        if _in_literal(unit, end.start(), literals) or _inside_quote(unit, start, after,
                                                                     literals):
            continue
        yield from _bounded(unit[start:after].strip())
        start = after
    rest = unit[start:].strip()
    if rest:
        yield from _bounded(rest)


_WORD_AT_MOST = 32
"""The most characters read back from a full stop for the word it ends (an abbreviation's,
an initial's: a few letters)."""


def _is_abbreviation(unit: str, dot: int) -> bool:
    if unit[dot] != ".":
        return False
    # the word before the dot, read from the last characters only (a pattern anchored at the
    # end is tried from every start: across a long paragraph, at each of its full stops): a
    # longer run is cut, and is then neither an abbreviation nor an initial either way
    word = re.search(r"([A-Za-z][A-Za-z.]*)$", unit[max(0, dot - _WORD_AT_MOST):dot])
    if word is None:
        return False
    token = word.group(1)
    if token.lower() in _ABBREVIATIONS:
        return True
    return len(token) == 1 and token.isupper()  # an initial: "J. Smith"


_LITERAL = re.compile(r"(?<![\w'\"])[bBrRuUfF]{0,2}'(?P<body>(?:[^'\\]|\\.){0,80}?)'(?![\w\"])")
"""A string in single quotes, as the reference writes an example's (``'a.b'.split('.')``,
``b'1,,2'``, ``'Martin v. Loewis'``, ``'"'``): an opening quote no word or quote runs into
(an apostrophe is in a word: "don't", "users'"), a short body (backslashed quotes in it), and
a closing quote no word follows."""

_PHRASE = re.compile(r"[^\W\d_]+\W+[^\W\d_]+")
"""Two words: the body of a quoted phrase ('go home.'), not of a value ('.', 'r.')."""


def _literals(unit: str) -> list[tuple[int, int]]:
    """Where the bodies of the strings in single quotes of `unit` (`_LITERAL`) begin and end."""
    if "'" not in unit:
        return []
    return [found.span("body") for found in _LITERAL.finditer(unit)]


def _in_literal(unit: str, stop: int, literals: list[tuple[int, int]]) -> bool:
    """Whether the stop at `stop` is inside a string in single quotes, an example's value
    (``'Hello. World'``, ``'.'``, ``' [...]'``), not the end of a sentence — unless the string
    ends with it and is a phrase of words, as a sentence quoted in prose ends inside its
    quotes ("He said 'go home.' Then…")."""
    at = bisect.bisect_right(literals, (stop, len(unit))) - 1  # the last to begin by the stop
    if at < 0 or not literals[at][0] <= stop < literals[at][1]:
        return False
    begin, end = literals[at]
    return not (unit[stop:end].strip(".!?…") == "" and _PHRASE.search(unit[begin:end]))


def _inside_quote(unit: str, start: int, end: int, literals: list[tuple[int, int]]) -> bool:
    """Whether the sentence end before `end` lies inside a quotation or inline code opened
    since `start`. A double quote or a backtick inside a string in single quotes (`literals`:
    ``'"'``) is the string's, as a backslashed quote is (``"say \\"hi.\\" then"``): they
    open nothing."""
    kept, at = [], start
    for begin, close in literals[bisect.bisect_left(literals, (start, 0)):]:
        if close > end:
            break
        kept.append(unit[at:begin])
        at = close
    before = "".join([*kept, unit[at:end]])
    before = re.sub(r"\\.", " ", before)  # an escaped quote (say \"hi.\" then) opens nothing,
    # an escaped backslash escapes none (r"\\" ends with a quote)
    if before.count("`") % 2:
        return True
    if before.count("“") > before.count("”"):
        return True
    straight = re.sub(r"(?<=\w)\"(?=\w)", "", before)  # a quote inside a word is no opening
    return straight.count('"') % 2 == 1


def _bounded(sentence: str) -> Iterator[tuple[str, bool]]:
    """`sentence`, whole, or it in pieces cut after a clause break when it is too long to quote
    (each piece then not whole)."""
    whole = True
    while len(sentence) > MAX_CHARS:
        cut = max(sentence.rfind(mark, 0, MAX_CHARS) for mark in ("; ", ": ", ", "))
        if cut <= 0:
            cut = sentence.rfind(" ", 0, MAX_CHARS)
        if cut <= 0:
            break
        whole = False
        yield sentence[: cut + 1].strip(), whole
        sentence = sentence[cut + 1:].strip()
    if sentence:
        yield sentence, whole
