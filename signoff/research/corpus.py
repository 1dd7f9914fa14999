"""A corpus of sources to research in, indexed with SQLite FTS5 and ranked by BM25.

A search ranks by each word's stem (`signoff.research.relevance.stem`, the one the sentences are
ranked by): the text is indexed as written (for snippets) and as stems (for ranking), so that
"file" and "files" are one word, "statement" and "state" two. FTS5's Porter stemmer, which the
index used before, made one word of "generator", "generate" and "general", so that a question
about generators read pages about general things. A title's dotted names are kept apart from its
words, and matched only when the question names one: ``email.generator: Generating MIME
documents`` is about MIME documents unless the question asks about ``email.generator``. A
title that names a thing and describes it (a module's page: ``urllib.error — Exception classes
raised by urllib.request``) is about that thing: its description's words count for half
(`named_title`), so that a question on raising exceptions reads the tutorial before it.
Each part's headings (`signoff.research.sentences.headings_of`: its sections' and its entries',
such as a glossary's terms) are indexed apart too, and a match in them counts `HEADING_WEIGHT`
times one in the text: the part headed "Tuples" is about tuples, where another only mentions
them; their dotted names are left out, as a title's are. Each prose sentence of a part
(`signoff.research.sentences.sentences_of`: what the reader may quote) is indexed apart as well,
with the headings it stands under, and the part's best sentence adds `SENTENCE_WEIGHT` times its
BM25 to the part's score: a part is about the question when one of its sentences has the
question's words together ("Remove (delete) the file path."), where a long part may have each of
them apart, or a page's title one of them ("File Formats"). Asked what something is ("What is a
set?"), a part with a sentence that opens by saying so ("A set is an unordered collection…")
gains `DEFINING_WEIGHT` times that sentence's BM25 too. Asked how to do something ("How do I
convert a string to lowercase?", `signoff.research.howto.is_task`), a part gains
`ENTRY_WEIGHT` times the BM25 of its best sentence that opens the description of a function
(what it does: "Return a copy of the string with all the cased characters converted to
lowercase."), and `TASK_WEIGHT` times that of the names it describes among the question's
words (`signoff.research.howto.task_names_query`: str.lower, of "lowercase"): the part where
the function that does the task is described, where another may only have the words.
A source many of the corpus's others link to counts `LINK_WEIGHT` times its prior besides
(`signoff.research.links`): the page the corpus refers its readers to is read first.

A corpus is built from a folder of ``.txt``, ``.md`` and ``.html`` files (HTML reduced to its
text), from Python's documentation when Debian's ``python3-doc`` is installed, or from the help
topics that ship with every Python (``pydoc_data.topics``; topic ``with`` explains the with
statement). ``Corpus.default()`` is the richest of the last two on this machine.

A long source is kept in parts of about `PART_CHARS` characters, cut between paragraphs, and
each part is indexed on its own: a search names the part that matched, and ``read`` reads any
part, so that a fact in the last part of a 20 MB file is found and read where it is.

The index is a SQLite file kept in the user's cache directory (or where `index=` says). It is
built once, before any search, and rebuilt when the sources change (a file added, removed or
touched; another Python's topics). Searching only ever reads it: the file is opened read-only
(``mode=ro``), so that the research tools pass as queries both in signoff's effects analysis and
under its run-time read-only guard.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import sqlite3
import sys
import tempfile
import unicodedata
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from pydantic import BaseModel, Field
from sqlalchemy import Connection, Engine, create_engine, text
from sqlalchemy.pool import NullPool

from signoff.exceptions import NotFound, UserError
from signoff.research.howto import is_task, task_names_query
from signoff.research.links import LINK_WEIGHT, priors
from signoff.research.names import names_query
from signoff.research.relevance import query_terms, stem, subject_of
from signoff.research.scratch import sweep
from signoff.research.sentences import index_reading
from signoff.research.sources import (
    Document,
    Listing,
    folder_listing,
    html_to_text,
    named_title,
    python_docs_listing,
    python_docs_root,
    read_document,
    topics,
)
from signoff.research.terms import naming_phrases

__all__ = [
    "BUNDLED",
    "DEFINING_WEIGHT",
    "ENTRY_WEIGHT",
    "HEADING_WEIGHT",
    "NAMED_WEIGHT",
    "PART_CHARS",
    "SENTENCE_WEIGHT",
    "TASK_WEIGHT",
    "TITLE_WEIGHT",
    "Corpus",
    "Document",
    "Found",
    "Hit",
    "SourcePart",
    "cache_dir",
    "fts_query",
    "html_to_text",
    "split_parts",
]

BUNDLED = "pydoc"
"""The name of the bundled corpus: CPython's help topics."""

PART_CHARS = 12_000
"""The most characters `read` gives of a source at once; longer sources are read in parts."""

TITLE_WEIGHT = 4.0
"""How much more a match in a title counts than one in the text. Titles are ranked in an index
of their own, so that a word common in the texts (``with``, in Python's help) still tells
the titles apart."""

HEADING_WEIGHT = 0.5
"""How much a match in a part's headings (its sections' and entries': "The break statement", a
glossary's "iterator") counts beside one in its text, which it is added to: half as much. A
heading says what the text under it is about, where a word in the text may only be mentioned."""

SENTENCE_WEIGHT = 1.0
"""How much the BM25 of a part's best sentence (its words and, at `HEADING_WEIGHT`, its
headings') counts beside that of the whole part, which it is added to. A sentence that has the
question's words together is about the question, where a long part may only have each of them
apart."""

DEFINING_WEIGHT = 1.0
"""How much the BM25 of a part's sentence that says what the question asks about ("A set is…",
asked "What is a set?") counts, added to the part's score beside its best sentence's."""

NAMED_WEIGHT = 4.0
"""How much a match of a name the question names ("print" of "How many arguments does print
take?", `signoff.research.names.names_in`) among the names a part describes in entries of
their own counts, beside the part's own score: the part where ``print(*objects, sep=' ')``
heads an entry describes print, where another page may only have the word ("traceback — Print
or retrieve a stack traceback")."""

ENTRY_WEIGHT = 1.0
"""How much the BM25 of a part's best sentence that opens the description of a function,
class or exception (the paragraph right under its signature: "Return the size of an object in
bytes." under ``sys.getsizeof(object[, default])``) counts, added to the part's score beside
its best sentence's: such a sentence says what the thing does, so the part that has one with
the question's words ("How do I find the size of an object in bytes?") is where a task is
done, where another part may only mention them."""

TASK_WEIGHT = 2.0
"""How much a match of a word of a question that asks how to do something ("How do I rename a
file?", `signoff.research.howto.task_names_query`) among the names a part describes in entries
of their own counts, beside the part's own score: the function that does a task is often named
by the task's words (os.rename), though the question names no function."""

_SENTENCE_RANK = f"bm25(1.0, {HEADING_WEIGHT})"
"""How a sentence is ranked: BM25 of its words, and of its headings' at `HEADING_WEIGHT`."""

_INDEX_VERSION = "23"
"""Bumped when the index's layout, or how a file is read into it, changes, so that older
indexes are rebuilt (14: text a browser does not show left out; files not in UTF-8 read as
written; 15: a sentence that begins with inline code is one of its own; 16: an irregular form
stemmed as its word, "kept" as "keep"; 17: "-er" kept, "handler" is not "handle"; 18: a
British spelling stemmed as the American, "serialise" as "serialize", and a console session
behind a "(venv) $ " prompt read as code; 19: the names of the functions, classes and exceptions
a part describes, `names_fts`; 20: which sentences open a description, `sentences.opens`;
21: a page's elements closed as a browser closes them, so that no stray end tag shows what a
hidden one holds, and text hidden by the page's style sheet left out; 22: how much the corpus's
other sources link to each, `sources.prior`; 23: a stop or a quote mark inside a string in
single quotes, ``'Martin v. Loewis'`` or ``'"'``, ends no sentence and opens no quotation)."""

OnBuild = Callable[[str], None]
"""Told, in words, that an index is about to be built (it can take a while)."""


class Hit(BaseModel):
    """One source a search found, and the part of it that matched best."""

    source_id: str = Field(description="The source's id: give it to read_source.")
    """The source's id."""
    title: str
    """Its title."""
    part: int = Field(default=1, description="The part that matched: give it to read_source.")
    """The part of the source that matched best, from 1."""
    parts: int = 1
    """How many parts the source has."""
    score: float
    """How well it matches: BM25 of the part, plus `HEADING_WEIGHT` times BM25 of its headings,
    plus `SENTENCE_WEIGHT` times BM25 of its best sentence, plus `DEFINING_WEIGHT` times that
    of a sentence saying what the question asks about (asked "What is X?"), plus `NAMED_WEIGHT`
    times BM25 of the names it describes for those the question names, plus (asked how to do
    something) `ENTRY_WEIGHT` times BM25 of its best sentence opening a description and
    `TASK_WEIGHT` times BM25 of its names among the question's words, plus `TITLE_WEIGHT`
    times BM25 of the title, negated so that higher is better."""
    snippet: str
    """The words around the match in that part (pieces joined by “…”), or its first words when
    none of the query's words begins a word of it as written."""


class Found(BaseModel):
    """What a search found: the best sources, how common each word of the query is, and the
    words no source has."""

    query: str
    """The query, as given."""
    hits: list[Hit]
    """The sources that match best, best first."""
    words: dict[str, int] = Field(default_factory=dict, description=(
        "Each word of the query (as searched), with how many sources have it."))
    """Each word of the query as searched, with how many sources have it."""
    sources: int = Field(default=0, description="How many sources the corpus has.")
    """How many sources the corpus has."""
    unknown: list[str] = Field(default_factory=list, description=(
        "Words of the query that no source in the corpus has at all."))
    """The query's words that no source has (a sign the corpus cannot answer it)."""


class SourcePart(BaseModel):
    """A source's text, or one part of it when it is long."""

    source_id: str
    """The source's id."""
    title: str
    """Its title."""
    origin: str
    """Where it comes from: a file, or the Python help topic."""
    part: int
    """Which part this is, from 1."""
    parts: int
    """How many parts the source has."""
    text: str
    """The text of this part."""


def cache_dir() -> Path:
    """Where indexes are kept: ``SIGNOFF_CACHE_DIR``, else the platform's user cache directory."""
    override = os.environ.get("SIGNOFF_CACHE_DIR")
    if override:
        return Path(override)
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
        return base / "signoff" / "cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "signoff"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "signoff"


class Corpus:
    """Sources indexed for search: ``Corpus.default()``, ``Corpus.bundled()``,
    ``Corpus.python_docs()`` or ``Corpus.from_folder("docs/")``."""

    _engine: Engine
    """Read-only connections to the index."""

    def __init__(self, *, name: str, index: Path) -> None:
        """Open an index that exists; use `default`, `bundled`, `python_docs` or `from_folder`
        to make one."""
        if not index.is_file():
            raise UserError(f"There is no corpus index at {index}: build one with "
                            "Corpus.from_folder(...) or Corpus.bundled().")
        self.name = name
        """What the corpus is: the folder, or "Python 3.11's help topics"."""
        self.index = index
        """The index file."""
        uri = f"file:{urllib.parse.quote(str(index.resolve()))}?mode=ro"
        self._engine = create_engine(
            "sqlite://",
            creator=lambda: sqlite3.connect(uri, uri=True, check_same_thread=False),
            poolclass=NullPool,
        )
        meta = _meta_of(index)
        self.notes: tuple[str, ...] = tuple(json.loads(meta.get("notes", "[]")))
        """What was left out of the folder when it was indexed, and why (links leading outside
        it, files that are not text)."""

    # -- making one ----------------------------------------------------------------------

    @classmethod
    def default(cls, *, on_build: OnBuild | None = None) -> Corpus:
        """The richest Python documentation on this machine: its full documentation when
        Debian's python3-doc is installed, else the help topics that ship with Python."""
        root = python_docs_root()
        if root is not None:
            return cls.python_docs(root, on_build=on_build)
        return cls.bundled(on_build=on_build)

    @classmethod
    def bundled(cls, *, index: str | Path | None = None,
                on_build: OnBuild | None = None) -> Corpus:
        """CPython's help topics (``pydoc_data.topics``), indexed (once per Python)."""
        spec = importlib.util.find_spec("pydoc_data.topics")
        if spec is None or spec.origin is None:
            raise UserError("This Python has no pydoc_data.topics, so the bundled corpus is not "
                            "available: give a folder of sources instead.")
        stat = os.stat(spec.origin)
        fingerprint = _digest([sys.version, spec.origin, str(stat.st_size), str(stat.st_mtime_ns)])
        path = Path(index) if index is not None else cache_dir() / (
            f"corpus-pydoc-{_digest([sys.version, spec.origin])[:16]}.sqlite")
        name = f"Python {sys.version.split()[0]}'s help topics"
        _ensure(path, fingerprint, lambda: (topics(), []), on_build, name)
        return cls(name=name, index=path)

    @classmethod
    def python_docs(cls, root: str | Path | None = None, *, index: str | Path | None = None,
                    on_build: OnBuild | None = None) -> Corpus:
        """Python's full documentation (the tutorial, the library and language references,
        the HOWTOs, the FAQ), from the HTML Debian's python3-doc installs, or from `root`."""
        found = Path(root) if root is not None else python_docs_root()
        if found is None or not found.is_dir():
            raise UserError("Python's documentation is not installed here: install Debian's "
                            "python3-doc (apt-get install python3-doc), or use the help topics.")
        listing = python_docs_listing(found.resolve())
        name = f"Python's documentation ({found})"
        return cls._of_listing(listing, name, "python-docs", index, on_build)

    @classmethod
    def from_folder(cls, folder: str | Path, *, index: str | Path | None = None,
                    on_build: OnBuild | None = None) -> Corpus:
        """The .txt, .md and .html files under `folder` (recursively; hidden ones skipped),
        and nothing outside it."""
        root = Path(folder).expanduser().resolve()
        if not root.is_dir():
            raise UserError(f"There is no folder {folder}: give a folder of .txt, .md or .html "
                            "files.")
        listing = folder_listing(root)
        if not listing.files:
            raise UserError(f"{folder} holds no .txt, .md or .html files to research in: put "
                            "the sources there, or name the folder that holds them.")
        return cls._of_listing(listing, str(root), root.name or "root", index, on_build)

    @classmethod
    def _of_listing(cls, listing: Listing, name: str, label: str, index: str | Path | None,
                    on_build: OnBuild | None) -> Corpus:
        root = listing.root
        fingerprint = _digest([*(_stamp(root, p) for p in listing.files), *listing.notes])
        path = Path(index) if index is not None else cache_dir() / (
            f"corpus-{label}-{_digest([str(root)])[:16]}.sqlite")

        def documents() -> tuple[Iterable[Document], list[str]]:
            notes = list(listing.notes)

            def read() -> Iterator[Document]:
                for file in listing.files:
                    found = read_document(root, file)
                    if isinstance(found, str):
                        notes.append(found)
                    else:
                        yield found
            return read(), notes

        _ensure(path, fingerprint, documents, on_build, name)
        corpus = cls(name=name, index=path)
        if len(corpus) == 0:
            raise UserError(f"{name} holds no text to research in: "
                            + " ".join(corpus.notes))
        return corpus

    # -- reading it (the tools' queries: only reads) -------------------------------------

    def search(self, query: str, *, limit: int = 5) -> list[Hit]:
        """The sources that best match `query` (plain words), best first by BM25, each with
        the part of it that matched best."""
        query = query[:_QUERY_AT_MOST]
        match = fts_query(query)
        if not match:
            return []
        with self._engine.connect() as db:
            rows = db.execute(text(
                "SELECT source_id, title, part, parts, score, part_row FROM ("
                " SELECT sources.source_id, sources.title, parts.part, sources.parts, "
                " body.rank + :heading_weight * coalesce(section.rank, 0) "
                "  + :sentence_weight * coalesce(line.rank, 0) "
                "  + :entry_weight * coalesce(line.opening, 0) "
                "  + :defining_weight * coalesce(says.rank, 0) "
                "  + :named_weight * coalesce(entry.rank, 0) "
                "  + :task_weight * coalesce(task.rank, 0) "
                "  + :title_weight * coalesce(head.rank, 0) - :link_weight * sources.prior AS score, "
                " parts.rowid AS part_row, row_number() OVER (PARTITION BY sources.rowid "
                "  ORDER BY body.rank + :heading_weight * coalesce(section.rank, 0) "
                "  + :sentence_weight * coalesce(line.rank, 0) "
                "  + :entry_weight * coalesce(line.opening, 0) "
                "  + :defining_weight * coalesce(says.rank, 0) "
                "  + :named_weight * coalesce(entry.rank, 0) "
                "  + :task_weight * coalesce(task.rank, 0), parts.part) AS best "
                " FROM (SELECT rowid, bm25(stems_fts) AS rank FROM stems_fts "
                "  WHERE stems_fts MATCH :match) AS body "
                " JOIN parts ON parts.rowid = body.rowid "
                " LEFT JOIN (SELECT rowid, bm25(headings_fts) AS rank FROM headings_fts "
                "  WHERE headings_fts MATCH :match) AS section ON section.rowid = body.rowid "
                " LEFT JOIN (SELECT rowid, bm25(names_fts) AS rank FROM names_fts "
                "  WHERE names_fts MATCH :named) AS entry ON entry.rowid = body.rowid "
                " LEFT JOIN (SELECT rowid, bm25(names_fts) AS rank FROM names_fts "
                "  WHERE names_fts MATCH :task) AS task ON task.rowid = body.rowid "
                " LEFT JOIN (SELECT sentences.part, min(sentences_fts.rank) AS rank, "
                "  min(CASE WHEN sentences.opens THEN sentences_fts.rank END) AS opening "
                "  FROM sentences_fts JOIN sentences ON sentences.rowid = sentences_fts.rowid "
                "  WHERE sentences_fts MATCH :match AND sentences_fts.rank MATCH :sentence_rank"
                "  GROUP BY sentences.part) AS line ON line.part = body.rowid "
                " LEFT JOIN (SELECT sentences.part, min(sentences_fts.rank) AS rank "
                "  FROM sentences_fts JOIN sentences ON sentences.rowid = sentences_fts.rowid "
                "  WHERE sentences_fts MATCH :defining AND sentences_fts.rank MATCH :sentence_rank"
                "  GROUP BY sentences.part) AS says ON says.part = body.rowid "
                " JOIN sources ON sources.rowid = parts.source "
                " LEFT JOIN (SELECT rowid, bm25(titles_fts, 1.0, 1.0, :described) AS rank "
                "  FROM titles_fts "
                "  WHERE titles_fts MATCH :title_match) AS head ON head.rowid = sources.rowid"
                ") WHERE best = 1 ORDER BY score, source_id LIMIT :limit"
            ), {"match": match, "title_match": _title_query(query, match),
                "limit": max(1, min(limit, 50)), "title_weight": TITLE_WEIGHT,
                "heading_weight": HEADING_WEIGHT, "sentence_weight": SENTENCE_WEIGHT,
                "sentence_rank": _SENTENCE_RANK, "defining": _defining_query(query),
                "defining_weight": DEFINING_WEIGHT, "described": _DESCRIBED,
                "named": names_query(query),
                "named_weight": NAMED_WEIGHT, "entry_weight": ENTRY_WEIGHT if is_task(query) else 0.0,
                "task": task_names_query(query), "task_weight": TASK_WEIGHT,
                "link_weight": LINK_WEIGHT}).all()
            words = _snippet_query(query)
            snippets = [_whole_words(db, r[5], db.execute(text(  # only for the parts found:
                "SELECT snippet(parts_fts, 0, '', '', '…', 24) FROM parts_fts "  # snippets cost
                "WHERE parts_fts MATCH :words AND rowid = :row"
            ), {"words": words, "row": r[5]}).scalar()) or _opening(db, r[5]) for r in rows]
        return [Hit(source_id=str(r[0]), title=str(r[1]), part=int(r[2]), parts=int(r[3]),
                    score=round(-float(r[4]), 6), snippet=str(snippet))
                for r, snippet in zip(rows, snippets, strict=True)]

    def find(self, query: str, *, limit: int = 5) -> Found:
        """`search`, with how many sources have each word of `query`, and those none has."""
        words = self.frequency(query)
        return Found(query=query, hits=self.search(query, limit=limit), words=words,
                     sources=len(self), unknown=[w for w, n in words.items() if n == 0])

    def frequency(self, query: str) -> dict[str, int]:
        """Each term of `query` (as searched), with how many sources have it (or a word with
        its stem) in their text or title."""
        counts = {}
        with self._engine.connect() as db:
            for term in query_terms(query[:_QUERY_AT_MOST]):
                words = _stemmed(term)
                if not words:  # underscores only: no word the index keeps
                    counts[term] = 0
                    continue
                stemmed = f'"{words}"'
                counts[term] = int(db.execute(text(
                    "SELECT count(*) FROM (SELECT parts.source FROM stems_fts "
                    "JOIN parts ON parts.rowid = stems_fts.rowid WHERE stems_fts MATCH :m "
                    "UNION SELECT rowid FROM titles_fts WHERE titles_fts MATCH :t)"
                ), {"m": stemmed, "t": f"{{title described}} : {stemmed}"}).scalar_one())
        return counts

    def read(self, source_id: str, *, part: int = 1) -> SourcePart:
        """The text of one source (or of its `part`, when it is long). `NotFound` for a source
        of no such id, or a part it does not have (one past what SQLite can name too: it
        failed with an OverflowError)."""
        with self._engine.connect() as db:
            row = db.execute(text(
                "SELECT sources.source_id, sources.title, sources.origin, sources.parts, "
                "parts.text FROM sources LEFT JOIN parts ON parts.source = sources.rowid "
                "AND parts.part = :part WHERE sources.source_id = :id"
            ), {"id": source_id, "part": part if 1 <= part <= _MOST_PARTS else 0}).first()
        if row is None:
            raise NotFound(f"There is no source {source_id!r} in this corpus: use an id that "
                           "search_sources gave.")
        if row[4] is None:  # (parts are numbered from 1: part 0 names none)
            raise NotFound(f"{source_id!r} has {row[3]} part(s); there is no part {part}.")
        return SourcePart(source_id=str(row[0]), title=str(row[1]), origin=str(row[2]),
                          part=part, parts=int(row[3]), text=str(row[4]))

    def title_of(self, source_id: str) -> str:
        """The title of a source ("" when there is none of that id)."""
        with self._engine.connect() as db:
            row = db.execute(text("SELECT title FROM sources WHERE source_id = :id"),
                             {"id": source_id}).first()
        return str(row[0]) if row is not None else ""

    def origin_of(self, source_id: str) -> str:
        """Where a source comes from ("" when there is none of that id)."""
        with self._engine.connect() as db:
            row = db.execute(text("SELECT origin FROM sources WHERE source_id = :id"),
                             {"id": source_id}).first()
        return str(row[0]) if row is not None else ""

    def __len__(self) -> int:
        with self._engine.connect() as db:
            return int(db.execute(text("SELECT count(*) FROM sources")).scalar_one())

    def __repr__(self) -> str:
        return f"Corpus({self.name!r}, index={str(self.index)!r})"


# -- queries ------------------------------------------------------------------------------


def fts_query(question: str) -> str:
    """`question` as an FTS5 query of the index's stems: any of its terms, or of its
    neighbouring pairs of terms as phrases (so that "the with statement" ranks a passage on
    *the with statement* above one that only has both words), each quoted (so no word is
    syntax)."""
    terms = [found for found in (_stemmed(t) for t in query_terms(question)) if found]
    pairs = [f"{terms[n]} {terms[n + 1]}" for n in range(len(terms) - 1)]
    naming = [_stemmed(p) for p in naming_phrases(question)]  # ("with statement")
    return _any_of([*pairs, *naming, *dict.fromkeys(terms)])


def _defining_query(question: str) -> str:
    """The FTS5 query of the sentences that say what `question` asks about, when it asks what
    something is ("What is a set?": a sentence opening "A set is a", "Sets are the"; not "The
    set is empty"), else one that
    matches nothing: the sentence that answers it, where a title may only name the word
    ("email.charset: Representing character sets")."""
    subject = " ".join(subject_of(question))
    says = [f"{article}{subject} {verb} {then}" for verb in ("is", "are")
            for article in ("", "a ", "an ", "the ") for then in ("a", "an", "the", "one")
            ] if subject else [""]  # "An iterator is an object…", as the reader's `_defines`
    opening = " OR ".join(f'^"{s}"' for s in says)
    return f"{{stems}} : ({opening})"


def _any_of(words: Sequence[str]) -> str:
    return " OR ".join(f'"{w}"' for w in words)


def _stemmed(text: str) -> str:
    """`text` as the index keeps it to search: each word by its stem (`stem`), so that "file"
    and "files" are one word, and "generator" and "general" two. Words are split as the
    index's tokenizer splits them (at underscores too: ``__enter__`` is "enter") and without
    their accents ("résumé" is "resume"), at index time and at query time alike."""
    plain = text if text.isascii() else "".join(  # ASCII has no accents to take off
        c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return " ".join(stem(w) for w in re.findall(r"[^\W_]+", plain))


def _snippet_query(question: str) -> str:
    """The FTS5 query of the words as written that a snippet shows: each word of the question,
    and each word that begins with one of its stems (matching more than the search did is
    harmless in a snippet)."""
    terms = [w for t in query_terms(question) for w in _stemmed(t).split()]
    return " OR ".join(f'"{t}"*' for t in dict.fromkeys(terms)) or '""'


def _whole_words(db: Connection, row: int, snippet: str | None) -> str:
    """`snippet` of the part at `row`, without the word it begins or ends in when it was cut
    inside one: FTS5 cuts a snippet between tokens, and "1,000" is two ("1", "000"), so that
    "…000 euros" was shown, and quoted as whole words, of "The fine is 1,000 euros". A cut not
    at a space is taken to be inside a word (the word then not shown is in the part still)."""
    head, tail = (snippet or "").startswith("…"), (snippet or "").endswith("…")
    if not snippet or not (head or tail):
        return snippet or ""
    shown = snippet[head:len(snippet) - tail]
    whole = str(db.execute(text("SELECT text FROM parts WHERE rowid = :row"), {"row": row}).scalar())
    places, length = [m.start() for m in re.finditer(re.escape(shown), whole)], len(shown)
    if head and any(at and not whole[at - 1].isspace() for at in places):
        shown = shown.lstrip()
        shown = shown[len(shown.split(None, 1)[0]):] if shown else ""
    if tail and any(at + length < len(whole) and not whole[at + length].isspace()
                    for at in places):
        shown = shown.rstrip()
        shown = shown[:len(shown) - len(shown.rsplit(None, 1)[-1])] if shown else ""
    shown = shown.strip()
    return f"{'…' * head}{shown}{'…' * tail}" if shown else ""


def _opening(db: Connection, row: int) -> str:
    """The first words of a part, when no word of the question is found in it as written."""
    found = str(db.execute(text("SELECT text FROM parts WHERE rowid = :row"),
                           {"row": row}).scalar() or "").split()
    return " ".join(found[:24]) + ("…" if len(found) > 24 else "")


def _title_query(question: str, match: str) -> str:
    """The FTS5 query of the titles: the words `match` asks for in a title's words, or the
    dotted names the question names (``os.path``) among its names."""
    named = [f'names : "{" ".join(d.split("."))}"' for d in _DOTTED.findall(question.lower())]
    return " OR ".join([f"{{title described}} : ({match})", *named])


_DESCRIBED = 0.5
"""How much a word of the description counts in a title that names a thing: the page is about
the thing (``urllib.error — Exception classes raised by urllib.request`` is about urllib.error,
not about raising exceptions; ``email.iterators: Iterators`` about the email package's)."""


_MOST_PARTS = 2**63 - 1
"""The most parts a source could have: the largest number SQLite keeps (a part past it is no
part of any source)."""

_QUERY_AT_MOST = 2_000
"""The longest query searched (its first characters): a query is a sentence, not a page."""

_DOTTED = re.compile(r"\b\w+(?:\.\w+)+")
"""A dotted name: a module's (``email.generator``), or a version (``3.12``)."""


def split_parts(source: str, size: int = PART_CHARS) -> list[str]:
    """`source` in parts of at most about `size` characters, together the whole: cut between
    paragraphs, else between lines, else between words (a part is never cut inside a word
    unless a single word is longer than `size`)."""
    if len(source) <= size:
        return [source]
    parts: list[str] = []
    current = ""
    for piece in _pieces(source, size):
        if current and len(current) + len(piece) > size:
            parts.append(current)
            current = ""
        current += piece
    if current:
        parts.append(current)
    return parts


def _pieces(source: str, size: int) -> Iterator[str]:
    for paragraph in re.split(r"(?<=\n\n)", source):
        if len(paragraph) <= size:
            yield paragraph
            continue
        for line in re.split(r"(?<=\n)", paragraph):
            if len(line) <= size:
                yield line
                continue
            for word in re.split(r"(?<=\s)", line):
                for start in range(0, len(word), size):
                    yield word[start:start + size]


# -- building the index (never during a query) --------------------------------------------

Documents = Callable[[], tuple[Iterable[Document], list[str]]]
"""The documents to index, and the notes of what was left out (filled as they are read)."""


def _ensure(path: Path, fingerprint: str, documents: Documents, on_build: OnBuild | None,
            name: str) -> None:
    """Build the index at `path` unless it is already built from these very sources."""
    if _meta_of(path).get("fingerprint") == fingerprint:
        return
    if on_build is not None:
        on_build(f"Indexing {name} (once; searches read the index after that).")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        sweep(path)
        handle, scratch = tempfile.mkstemp(prefix=f"{path.name}.{os.getpid()}.",
                                           suffix=".building", dir=path.parent)
    except OSError as error:  # (a FileExistsError or PermissionError "it did not foresee")
        raise UserError(f"The index of {name} is kept in {path.parent}, which cannot be made "
                         f"or written ({error.strerror or error}): give a folder you may "
                         "write with SIGNOFF_CACHE_DIR.") from None
    os.close(handle)
    try:
        _build(Path(scratch), fingerprint, documents)
        os.replace(scratch, path)  # atomic: a reader sees the old index or the new, whole
    except BaseException:
        Path(scratch).unlink(missing_ok=True)
        raise


def _meta_of(path: Path) -> dict[str, str]:
    """What the index at `path` says of itself: {} when there is none, or it is not an index of
    this version, or it is damaged (its pages fail SQLite's ``quick_check``, some 20 ms for the
    Python documentation's: a disk error, a copy cut short), so that it is made again. A
    damaged index whose meta table still reads failed every search "for a reason the app did
    not foresee"."""
    if not path.is_file():
        return {}
    try:
        uri = f"file:{urllib.parse.quote(str(path.resolve()))}?mode=ro"
        with sqlite3.connect(uri, uri=True) as db:
            rows = dict(db.execute("SELECT key, value FROM meta").fetchall())
            whole = db.execute("PRAGMA quick_check(1)").fetchall() == [("ok",)]
        db.close()
    except sqlite3.Error:
        return {}  # not an index, or a broken one: rebuilt
    if not whole:
        return {}
    if rows.get("version") != _INDEX_VERSION:
        return {}
    return {str(k): str(v) for k, v in rows.items()}


def _build(path: Path, fingerprint: str, documents: Documents) -> None:
    db = sqlite3.connect(path)
    try:
        db.executescript(
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
            "CREATE TABLE sources (rowid INTEGER PRIMARY KEY, source_id TEXT NOT NULL UNIQUE, "
            "title TEXT NOT NULL, origin TEXT NOT NULL, parts INTEGER NOT NULL, "
            "prior REAL NOT NULL DEFAULT 0);"
            "CREATE TABLE parts (rowid INTEGER PRIMARY KEY, source INTEGER NOT NULL "
            "REFERENCES sources (rowid), part INTEGER NOT NULL, text TEXT NOT NULL, "
            "UNIQUE (source, part));"
            "CREATE VIRTUAL TABLE parts_fts USING fts5(text, content='parts', "
            "content_rowid='rowid', tokenize='unicode61');"
            "CREATE VIRTUAL TABLE stems_fts USING fts5(stems, content='', "
            "tokenize='unicode61');"
            "CREATE VIRTUAL TABLE headings_fts USING fts5(headings, content='', "
            "tokenize='unicode61');"
            "CREATE VIRTUAL TABLE names_fts USING fts5(names, content='', "
            "tokenize=\"unicode61 tokenchars '_'\");"
            "CREATE VIRTUAL TABLE titles_fts USING fts5(title, names, described, content='', "
            "tokenize='unicode61');"
            "CREATE TABLE sentences (rowid INTEGER PRIMARY KEY, part INTEGER NOT NULL "
            "REFERENCES parts (rowid), opens INTEGER NOT NULL);"
            "CREATE VIRTUAL TABLE sentences_fts USING fts5(stems, headings, content='', "
            "tokenize='unicode61');"
        )
        found, notes = documents()
        sentences = 0  # the sentences indexed so far: their rowids follow
        linked_from: dict[str, set[str]] = {}  # (`links.priors`)
        indexed: list[str] = []
        with db:
            for doc in found:
                for target in doc.links:
                    linked_from.setdefault(target, set()).add(doc.source_id)
                indexed.append(doc.source_id)
                pieces = split_parts(doc.text)
                cursor = db.execute(
                    "INSERT INTO sources (source_id, title, origin, parts) VALUES (?, ?, ?, ?)",
                    (doc.source_id, doc.title, doc.origin, len(pieces)))
                source = cursor.lastrowid
                name, description = named_title(doc.title)
                db.execute("INSERT INTO titles_fts (rowid, title, names, described) "
                           "VALUES (?, ?, ?, ?)",
                           (source, _stemmed(_DOTTED.sub(" ", name)),
                            " ".join(_DOTTED.findall(doc.title)),
                            _stemmed(_DOTTED.sub(" ", description))))
                for number, piece in enumerate(pieces, start=1):
                    row = db.execute("INSERT INTO parts (source, part, text) VALUES (?, ?, ?)",
                                     (source, number, piece)).lastrowid
                    db.execute("INSERT INTO parts_fts (rowid, text) VALUES (?, ?)", (row, piece))
                    db.execute("INSERT INTO stems_fts (rowid, stems) VALUES (?, ?)",
                               (row, _stemmed(piece)))
                    lines, headings, named, opening = index_reading(piece)  # read once
                    db.execute("INSERT INTO headings_fts (rowid, headings) VALUES (?, ?)",
                               (row, _stemmed(_DOTTED.sub(" ", " ".join(headings)))))
                    db.execute("INSERT INTO names_fts (rowid, names) VALUES (?, ?)",
                               (row, " ".join(n.casefold() for n in named)))
                    numbered = list(enumerate(lines, start=sentences + 1))
                    sentences += len(lines)
                    db.executemany("INSERT INTO sentences (rowid, part, opens) VALUES (?, ?, ?)",
                                   [(n, row, at in opening)
                                    for at, (n, _) in enumerate(numbered)])
                    db.executemany("INSERT INTO sentences_fts (rowid, stems, headings) "
                                   "VALUES (?, ?, ?)",
                                   [(n, _stemmed(line), _stemmed(_DOTTED.sub(" ", heading)))
                                    for n, (line, heading) in numbered])
            db.executemany("UPDATE sources SET prior = ? WHERE source_id = ?",
                           [(prior, source) for source, prior in
                            priors(linked_from, indexed).items()])
            db.execute("INSERT INTO parts_fts (parts_fts) VALUES ('optimize')")
            db.execute("INSERT INTO stems_fts (stems_fts) VALUES ('optimize')")
            db.execute("INSERT INTO headings_fts (headings_fts) VALUES ('optimize')")
            db.execute("INSERT INTO names_fts (names_fts) VALUES ('optimize')")
            db.execute("INSERT INTO titles_fts (titles_fts) VALUES ('optimize')")
            db.execute("INSERT INTO sentences_fts (sentences_fts) VALUES ('optimize')")
            db.executemany("INSERT INTO meta VALUES (?, ?)",
                           [("version", _INDEX_VERSION), ("fingerprint", fingerprint),
                            ("notes", json.dumps(notes))])
    finally:
        db.close()


def _stamp(root: Path, path: Path) -> str:
    """What a file's part of a folder's fingerprint says of it: its name, size, when its content
    last changed, and when anything of it last changed (its ctime, which an edit that keeps the
    size and sets the mtime back, as ``cp -p``, ``touch -d`` or ``tar x`` do, and a ``chmod``
    that makes a skipped file readable, both move); "gone" for one that went between the
    listing and this look (a build's scratch file)."""
    name = path.relative_to(root).as_posix()
    try:
        s = path.stat()
    except OSError:
        return f"{name}:gone"
    return f"{name}:{s.st_size}:{s.st_mtime_ns}:{s.st_ctime_ns}"


def _digest(parts: Iterable[str]) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8", "surrogateescape"))
        h.update(b"\0")
    return h.hexdigest()
