"""A corpus of sources to research in, indexed with SQLite FTS5 and ranked by BM25.

A corpus is built from a folder of ``.txt``, ``.md`` and ``.html`` files (HTML reduced to its
text), or is the bundled default: the topics of CPython's own help (``pydoc_data.topics``, which
ship with every Python; topic ``with`` explains the with statement).

The index is a SQLite file kept in the user's cache directory (or where `index=` says). It is
built once, before any search, and rebuilt when the sources change (a file added, removed or
touched; another Python's topics). Searching only ever reads it: the file is opened read-only
(``mode=ro``), so that the research tools pass as queries both in signoff's effects analysis and
under its run-time read-only guard.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import sqlite3
import sys
import tempfile
import urllib.parse
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from pydantic import BaseModel, Field
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.pool import NullPool

from signoff.exceptions import NotFound, UserError

__all__ = [
    "BUNDLED",
    "TITLE_WEIGHT",
    "Corpus",
    "Document",
    "Hit",
    "SourcePart",
    "cache_dir",
    "html_to_text",
]

BUNDLED = "pydoc"
"""The name of the bundled corpus: CPython's help topics."""

SUFFIXES = frozenset({".txt", ".md", ".markdown", ".html", ".htm"})
"""The files a folder corpus is made of."""

PART_CHARS = 12_000
"""The most characters `read` gives of a source at once; longer sources are read in parts."""

TITLE_WEIGHT = 4.0
"""How much more a match in a title counts than one in the text. Titles are ranked in an index
of their own, so that a word common in the texts (``with``, in Python's help) still tells
the titles apart."""

_INDEX_VERSION = "2"
"""Bumped when the index's layout changes, so that older indexes are rebuilt."""


class Hit(BaseModel):
    """One source a search found."""

    source_id: str = Field(description="The source's id: give it to read_source.")
    """The source's id."""
    title: str
    """Its title."""
    score: float
    """How well it matches: BM25 of its text plus `TITLE_WEIGHT` times BM25 of its title,
    negated so that higher is better."""
    snippet: str
    """The words around the match (pieces joined by “…”)."""


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


@dataclass(frozen=True, kw_only=True)
class Document:
    """A source as it goes into the index."""

    source_id: str
    """Its id: the path within the folder ("guide/intro.md"), or the help topic ("with")."""
    title: str
    """Its title."""
    origin: str
    """Where it comes from."""
    text: str
    """Its text."""


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
    """Sources indexed for search: ``Corpus.bundled()`` or ``Corpus.from_folder("docs/")``."""

    _engine: Engine
    """Read-only connections to the index."""

    def __init__(self, *, name: str, index: Path) -> None:
        """Open an index that exists; use `bundled` or `from_folder` to make one."""
        if not index.is_file():
            raise UserError(f"There is no corpus index at {index}: build one with "
                            "Corpus.from_folder(...) or Corpus.bundled().")
        self.name = name
        """What the corpus is: the folder, or "Python's help topics"."""
        self.index = index
        """The index file."""
        uri = f"file:{urllib.parse.quote(str(index.resolve()))}?mode=ro"
        self._engine = create_engine(
            "sqlite://",
            creator=lambda: sqlite3.connect(uri, uri=True, check_same_thread=False),
            poolclass=NullPool,
        )

    # -- making one ----------------------------------------------------------------------

    @classmethod
    def bundled(cls, *, index: str | Path | None = None) -> Corpus:
        """CPython's help topics (``pydoc_data.topics``), indexed (once per Python)."""
        spec = importlib.util.find_spec("pydoc_data.topics")
        if spec is None or spec.origin is None:
            raise UserError("This Python has no pydoc_data.topics, so the bundled corpus is not "
                            "available: give a folder of sources instead.")
        stat = os.stat(spec.origin)
        fingerprint = _digest([sys.version, spec.origin, str(stat.st_size), str(stat.st_mtime_ns)])
        path = Path(index) if index is not None else cache_dir() / (
            f"corpus-pydoc-{_digest([sys.version, spec.origin])[:16]}.sqlite")
        _ensure(path, fingerprint, _topics)
        return cls(name=f"Python {sys.version.split()[0]}'s help topics", index=path)

    @classmethod
    def from_folder(cls, folder: str | Path, *, index: str | Path | None = None) -> Corpus:
        """The .txt, .md and .html files under `folder` (recursively; hidden ones skipped)."""
        root = Path(folder).expanduser().resolve()
        if not root.is_dir():
            raise UserError(f"There is no folder {folder}: give a folder of .txt, .md or .html "
                            "files.")
        files = list(_files(root))
        if not files:
            raise UserError(f"{folder} holds no .txt, .md or .html files to research in.")
        fingerprint = _digest(
            f"{p.relative_to(root).as_posix()}:{s.st_size}:{s.st_mtime_ns}"
            for p, s in ((p, p.stat()) for p in files)
        )
        path = Path(index) if index is not None else cache_dir() / (
            f"corpus-{root.name or 'root'}-{_digest([str(root)])[:16]}.sqlite")
        _ensure(path, fingerprint, lambda: (_read_file(root, p) for p in files))
        return cls(name=str(root), index=path)

    # -- reading it (the tools' queries: only reads) -------------------------------------

    def search(self, query: str, *, limit: int = 5) -> list[Hit]:
        """The sources that best match `query` (plain words), best first by BM25."""
        match = fts_query(query)
        if not match:
            return []
        with self._engine.connect() as db:
            rows = db.execute(text(
                "SELECT sources.source_id, sources.title, "
                "body.rank + :title_weight * coalesce(head.rank, 0) AS score, body.words "
                "FROM sources JOIN (SELECT rowid, bm25(sources_fts) AS rank, "
                "snippet(sources_fts, 1, '', '', '…', 24) AS words "
                "FROM sources_fts WHERE sources_fts MATCH :match) AS body "
                "ON body.rowid = sources.rowid "
                "LEFT JOIN (SELECT rowid, bm25(titles_fts) AS rank FROM titles_fts "
                "WHERE titles_fts MATCH :match) AS head ON head.rowid = sources.rowid "
                "ORDER BY score, sources.source_id LIMIT :limit"
            ), {"match": match, "limit": max(1, min(limit, 50)),
                "title_weight": TITLE_WEIGHT}).all()
        return [Hit(source_id=str(r[0]), title=str(r[1]), score=round(-float(r[2]), 6),
                    snippet=str(r[3])) for r in rows]

    def read(self, source_id: str, *, part: int = 1) -> SourcePart:
        """The text of one source (or of its `part`, when it is long)."""
        with self._engine.connect() as db:
            row = db.execute(text(
                "SELECT source_id, title, origin, text FROM sources WHERE source_id = :id"
            ), {"id": source_id}).first()
        if row is None:
            raise NotFound(f"There is no source {source_id!r} in this corpus: use an id that "
                           "search_sources gave.")
        parts = split_parts(str(row[3]))
        if not 1 <= part <= len(parts):
            raise NotFound(f"{source_id!r} has {len(parts)} part(s); there is no part {part}.")
        return SourcePart(source_id=str(row[0]), title=str(row[1]), origin=str(row[2]),
                          part=part, parts=len(parts), text=parts[part - 1])

    def title_of(self, source_id: str) -> str:
        """The title of a source ("" when there is none of that id)."""
        with self._engine.connect() as db:
            row = db.execute(text("SELECT title FROM sources WHERE source_id = :id"),
                             {"id": source_id}).first()
        return str(row[0]) if row is not None else ""

    def __len__(self) -> int:
        with self._engine.connect() as db:
            return int(db.execute(text("SELECT count(*) FROM sources")).scalar_one())

    def __repr__(self) -> str:
        return f"Corpus({self.name!r}, index={str(self.index)!r})"


# -- queries ------------------------------------------------------------------------------

_QUESTION_WORDS = frozenset({
    "a", "an", "the", "what", "which", "who", "whom", "whose", "when", "where", "why", "how",
    "does", "do", "did", "doing", "done", "can", "could", "would", "should", "will", "shall",
    "i", "me", "my", "we", "you", "your", "it", "its", "this", "that", "these", "those",
    "of", "to", "about", "please", "tell", "explain", "mean", "means", "there", "are", "was",
    "were", "be", "been", "use", "used", "using", "work", "works",
})  # fmt: skip
"""Words of a question that say nothing of its subject; Python's keywords are kept."""


def query_terms(question: str) -> list[str]:
    """The words of `question` worth searching for, lower case, each once, in order."""
    words = [w.lower() for w in re.findall(r"\w+", question)]
    kept = [w for w in words if w not in _QUESTION_WORDS] or words
    return list(dict.fromkeys(kept))


def fts_query(question: str) -> str:
    """`question` as an FTS5 query: any of its terms, each quoted (so no word is syntax)."""
    return " OR ".join(f'"{term}"' for term in query_terms(question))


def split_parts(source: str, size: int = PART_CHARS) -> list[str]:
    """`source` in parts of at most about `size` characters, cut between paragraphs."""
    if len(source) <= size:
        return [source]
    parts: list[str] = []
    current = ""
    for paragraph in re.split(r"(?<=\n\n)", source):
        if current and len(current) + len(paragraph) > size:
            parts.append(current)
            current = ""
        current += paragraph
    if current:
        parts.append(current)
    return parts


# -- building the index (never during a query) --------------------------------------------


def _ensure(path: Path, fingerprint: str, documents: Callable[[], Iterable[Document]]) -> None:
    """Build the index at `path` unless it is already built from these very sources."""
    if _fingerprint_of(path) == fingerprint:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, scratch = tempfile.mkstemp(prefix=path.name + ".", suffix=".building",
                                       dir=path.parent)
    os.close(handle)
    try:
        _build(Path(scratch), fingerprint, documents())
        os.replace(scratch, path)  # atomic: a reader sees the old index or the new, whole
    except BaseException:
        Path(scratch).unlink(missing_ok=True)
        raise


def _fingerprint_of(path: Path) -> str:
    if not path.is_file():
        return ""
    try:
        uri = f"file:{urllib.parse.quote(str(path.resolve()))}?mode=ro"
        with sqlite3.connect(uri, uri=True) as db:
            rows = dict(db.execute("SELECT key, value FROM meta").fetchall())
        db.close()
    except sqlite3.Error:
        return ""  # not an index, or a broken one: rebuilt
    if rows.get("version") != _INDEX_VERSION:
        return ""
    return str(rows.get("fingerprint", ""))


def _build(path: Path, fingerprint: str, documents: Iterable[Document]) -> None:
    db = sqlite3.connect(path)
    try:
        db.executescript(
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
            "CREATE TABLE sources (rowid INTEGER PRIMARY KEY, source_id TEXT NOT NULL UNIQUE, "
            "title TEXT NOT NULL, origin TEXT NOT NULL, text TEXT NOT NULL);"
            "CREATE VIRTUAL TABLE sources_fts USING fts5(title, text, content='sources', "
            "content_rowid='rowid', tokenize='porter unicode61');"
            "CREATE VIRTUAL TABLE titles_fts USING fts5(title, content='sources', "
            "content_rowid='rowid', tokenize='porter unicode61');"
        )
        with db:
            for doc in documents:
                cursor = db.execute(
                    "INSERT OR REPLACE INTO sources (source_id, title, origin, text) "
                    "VALUES (?, ?, ?, ?)", (doc.source_id, doc.title, doc.origin, doc.text))
                db.execute("INSERT INTO sources_fts (rowid, title, text) VALUES (?, ?, ?)",
                           (cursor.lastrowid, doc.title, doc.text))
                db.execute("INSERT INTO titles_fts (rowid, title) VALUES (?, ?)",
                           (cursor.lastrowid, doc.title))
            db.execute("INSERT INTO sources_fts (sources_fts) VALUES ('optimize')")
            db.execute("INSERT INTO titles_fts (titles_fts) VALUES ('optimize')")
            db.executemany("INSERT INTO meta VALUES (?, ?)",
                           [("version", _INDEX_VERSION), ("fingerprint", fingerprint)])
    finally:
        db.close()


def _digest(parts: Iterable[str]) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8", "surrogateescape"))
        h.update(b"\0")
    return h.hexdigest()


def _topics() -> Iterator[Document]:
    from pydoc_data.topics import topics

    for key in sorted(topics):
        body = topics[key]
        first = next((line.strip() for line in body.splitlines() if line.strip()), key)
        yield Document(source_id=key, title=first, origin=f"Python help topic {key!r}", text=body)


def _files(root: Path) -> Iterator[Path]:
    for directory, subdirectories, names in os.walk(root):
        subdirectories[:] = sorted(d for d in subdirectories if not d.startswith("."))
        for name in sorted(names):
            path = Path(directory) / name
            if not name.startswith(".") and path.suffix.lower() in SUFFIXES and path.is_file():
                yield path


def _read_file(root: Path, path: Path) -> Document:
    raw = path.read_text(encoding="utf-8", errors="replace")
    source_id = path.relative_to(root).as_posix()
    if path.suffix.lower() in (".html", ".htm"):
        title, body = html_to_text(raw)
    else:
        body = raw
        title = ""
        for line in raw.splitlines():
            if line.strip():
                title = line.strip().lstrip("#").strip()
                break
    title = title or path.stem
    return Document(source_id=source_id, title=title[:120], origin=str(path), text=body)


# -- HTML to text -------------------------------------------------------------------------

_BLOCKS = frozenset({
    "p", "div", "section", "article", "main", "header", "footer", "aside", "nav", "blockquote",
    "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "dl", "dt", "dd", "table", "tr",
    "pre", "figure", "figcaption", "hr", "form", "fieldset", "details", "summary",
})  # fmt: skip
_HIDDEN = frozenset({"script", "style", "template", "noscript", "svg", "head"})


class _TextOf(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.chunks: list[str] = []
        self.title = ""
        self.heading = ""
        self._hidden = 0
        self._pre = 0
        self._in_title = False
        self._in_h1 = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        elif tag in _HIDDEN:
            self._hidden += 1
        elif tag == "br":
            self.chunks.append("\n")
        elif tag in _BLOCKS:
            self.chunks.append("\n\n")
            self._pre += tag == "pre"
            self._in_h1 = self._in_h1 or tag == "h1"

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag in _HIDDEN:
            self._hidden = max(0, self._hidden - 1)
        elif tag in _BLOCKS:
            self.chunks.append("\n\n")
            if tag == "pre":
                self._pre = max(0, self._pre - 1)
            if tag == "h1":
                self._in_h1 = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
            return
        if self._hidden:
            return
        if self._in_h1:
            self.heading += data
        if self._pre:
            self.chunks.append(data)
            return
        flowing = re.sub(r"\s+", " ", data)
        if not self.chunks or self.chunks[-1].endswith("\n"):
            flowing = flowing.lstrip()
        if flowing:
            self.chunks.append(flowing)


def html_to_text(html: str) -> tuple[str, str]:
    """(title, text) of an HTML page: its visible text, a blank line between blocks."""
    parser = _TextOf()
    parser.feed(html)
    parser.close()
    body = "\n".join(line.rstrip() for line in "".join(parser.chunks).split("\n"))
    body = re.sub(r"\n{3,}", "\n\n", body).strip()
    title = " ".join((parser.title or parser.heading).split())
    return title, body
