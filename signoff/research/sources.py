"""Where a corpus's documents come from: a folder's files, Python's documentation, or the help
topics that ship with every Python; and HTML reduced to its text.

A folder is the folder given and nothing else: a link that leads outside it is not followed, a
file that is not text (it has NUL bytes, or is mostly control bytes) is skipped, and each is
told in a note. Python's documentation is the HTML that Debian's ``python3-doc`` package installs
(under ``/usr/share/doc/python3.X/html``), its pages reduced to their main text; its indexes and
what's-new pages are left out, since they mention everything and explain little, and so are the C
API's pages, written for C programmers.
"""

from __future__ import annotations

import codecs
import os
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from signoff.research.links import links_in

__all__ = [
    "SUFFIXES",
    "Document",
    "Listing",
    "folder_listing",
    "html_to_text",
    "named_title",
    "python_docs_listing",
    "python_docs_root",
    "read_document",
    "topics",
]

SUFFIXES = frozenset({".txt", ".md", ".markdown", ".html", ".htm"})
"""The files a folder corpus is made of."""

_SNIFF_BYTES = 8192
"""How much of a file is looked at to tell text from binary."""


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
    links: tuple[str, ...] = ()
    """The ids of the sources of its folder it links to (`signoff.research.links.links_in`)."""


@dataclass(frozen=True, kw_only=True)
class Listing:
    """The files a folder corpus is made of, and what was left out, in words."""

    root: Path
    """The folder, resolved."""
    files: tuple[Path, ...]
    """The source files, in order."""
    notes: tuple[str, ...]
    """What was left out and why ("Skipped notes/link.md: it leads outside the folder.")."""


def topics() -> Iterator[Document]:
    """CPython's help topics (``pydoc_data.topics``), one document each."""
    from pydoc_data.topics import topics as found

    for key in sorted(found):
        body = found[key]
        first = next((line.strip() for line in body.splitlines() if line.strip()), key)
        yield Document(source_id=key, title=first, origin=f"Python help topic {key!r}", text=body)


def folder_listing(root: Path) -> Listing:
    """The .txt, .md and .html files under `root` (recursively; hidden ones skipped), none
    reached through a link leading outside it."""
    files: list[Path] = []
    notes: list[str] = []

    def unread(error: OSError) -> None:  # a folder that cannot be listed (it was left out unsaid)
        where = Path(error.filename) if error.filename else root
        notes.append(f"Skipped {_shown_name(root, where)}/: it cannot be read "
                     f"({error.strerror or error}).")

    for directory, subdirectories, names in os.walk(root, onerror=unread):  # (links to folders
        here = Path(directory)                                             # are not walked)
        for name in sorted(subdirectories):
            if not name.startswith(".") and (here / name).is_symlink() and not _inside(
                    root, here / name):
                notes.append(f"Skipped {_relative(root, here / name)}/: "
                             f"{_link_trouble(here / name)}.")
        subdirectories[:] = sorted(d for d in subdirectories if not d.startswith("."))
        for name in sorted(names):
            path = here / name
            if name.startswith(".") or path.suffix.lower() not in SUFFIXES:
                continue
            if path.is_symlink() and (not path.exists() or not _inside(root, path)):
                notes.append(f"Skipped {_relative(root, path)}: {_link_trouble(path)}.")
                continue
            if not _is_utf8(str(path.relative_to(root))):
                notes.append(f"Skipped {_shown_name(root, path)}: its name is not UTF-8 text "
                             "(rename it to research in it).")
                continue
            if path.is_file():
                files.append(path)
    return Listing(root=root, files=tuple(files), notes=tuple(notes))


def _is_utf8(name: str) -> bool:
    """Whether a file's name, as Python read it from the disk, is UTF-8 text (bytes that are not
    are read as lone surrogates, which no text column or terminal can hold)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def python_docs_root() -> Path | None:
    """Where Python's HTML documentation is installed (Debian's python3-doc), or None.

    ``SIGNOFF_PYTHON_DOCS`` names another folder, or ``none`` to use the help topics."""
    override = os.environ.get("SIGNOFF_PYTHON_DOCS")
    if override:
        chosen = Path(override)
        return chosen if override.lower() != "none" and _is_python_docs(chosen) else None
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    candidates = [Path(f"/usr/share/doc/python{version}/html"),
                  Path(f"/usr/share/doc/python{version}-doc/html"),
                  Path("/usr/share/doc/python3-doc/html"),
                  *sorted(Path("/usr/share/doc").glob("python3.*/html"), reverse=True)]
    return next((c for c in candidates if _is_python_docs(c)), None)


def _is_python_docs(folder: Path) -> bool:
    return (folder / "index.html").is_file() and (folder / "reference").is_dir() and (
        folder / "library").is_dir()


_LEFT_OUT_FOLDERS = frozenset({"whatsnew", "c-api", "distutils"})
"""What's new (every change, little explanation), the C API (for C programmers, not Python's)
and distutils (removed from Python)."""

_LEFT_OUT = re.compile(r"^(genindex.*|search|contents|py-modindex|download|bugs|copyright|"
                       r"license|about)\.html$")


def python_docs_listing(root: Path) -> Listing:
    """The pages of Python's documentation worth researching in."""
    files: list[Path] = []
    for directory, subdirectories, names in os.walk(root):
        here = Path(directory)
        subdirectories[:] = sorted(d for d in subdirectories if not d.startswith(("_", "."))
                                   and d not in _LEFT_OUT_FOLDERS)
        files.extend(here / n for n in sorted(names)
                     if n.endswith(".html") and not (here == root and _LEFT_OUT.match(n)))
    return Listing(root=root, files=tuple(files), notes=())


_SENTENCE_END = re.compile(r"[.!?…][\"'”’)\]*]*$")


def _title_line(text: str) -> str:
    """The title of a text file's text: its first line, when it is a heading (``# Bread``) or
    stands as a title does (a few words with no end punctuation, "Kettle notes"); "" when it is
    a sentence of prose, which would count as the title of every sentence after it."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if first.startswith("#"):
        return first.lstrip("#").strip()
    return "" if _SENTENCE_END.search(first) else first


def read_document(root: Path, path: Path) -> Document | str:
    """The document a file holds, or a note saying why it is skipped."""
    source_id = path.relative_to(root).as_posix()
    try:
        raw = path.read_bytes()
    except OSError as error:
        return f"Skipped {source_id}: it cannot be read ({error.strerror or error})."
    text = _text_of(raw)
    if text is None:
        return f"Skipped {source_id}: it is not text (a binary file)."
    html = path.suffix.lower() in (".html", ".htm")
    if html:
        title, body = html_to_text(text)
    else:
        body = _uncommented(text) if path.suffix.lower() in (".md", ".markdown") else text
        title = _title_line(body)
    links = links_in(text, source_id, html=html) if html or path.suffix.lower() in (
        ".md", ".markdown") else ()
    return Document(source_id=source_id, title=(title or path.stem)[:120], origin=str(path),
                    text=body, links=links)


_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
"""The line that opens or closes a fenced block of code in Markdown."""


def _uncommented(text: str) -> str:
    """A Markdown file's text without its HTML comments (``<!-- … -->``), which it shows no
    one rendered: the easiest place to plant words for a reader to quote. A comment written
    in a block of code or a code span is shown, and kept."""
    kept: list[str] = []
    prose: list[str] = []
    fence = ""
    for line in text.splitlines(keepends=True):
        opened = _FENCE.match(line)
        if fence:
            kept.append(line)
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
        elif opened:
            kept.append(_prose_uncommented("".join(prose)))
            prose = []
            kept.append(line)
            fence = opened.group(1)
        else:
            prose.append(line)
    kept.append(_prose_uncommented("".join(prose)))
    return "".join(kept)


def _prose_uncommented(prose: str) -> str:
    """`prose` (Markdown outside blocks of code) without its comments, in one pass: from one
    that does not close on, none (a browser shows an opening that does not close)."""
    kept: list[str] = []
    at = 0
    while (opening := prose.find("<!--", at)) >= 0:
        closing = prose.find("-->", opening + 4)
        if closing < 0:
            break
        if prose.count("`", prose.rfind("\n", 0, opening) + 1, opening) % 2:  # (a code span)
            kept.append(prose[at:opening + 4])
            at = opening + 4
            continue
        kept.append(prose[at:opening])
        at = closing + 3
    kept.append(prose[at:])
    return "".join(kept)


def _text_of(raw: bytes) -> str | None:
    """A file's text: UTF-8 (its byte order mark dropped), UTF-16 or UTF-32 by their byte order
    marks (they were taken for binary files); a file that is not UTF-8 and holds none of it,
    Windows-1252 (as Latin-1 files are written, whose accented letters became U+FFFD, found by
    no search and quoted as no file holds them); None for a binary file."""
    for mark, encoding in ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
                           (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if raw.startswith(mark):
            try:
                return raw.decode(encoding)
            except UnicodeDecodeError:
                return None
    if _is_binary(raw[:_SNIFF_BYTES]):
        return None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("utf-8-sig", errors="replace")
    if any(ord(c) > 127 and c != "\ufffd" for c in text):  # UTF-8 with a stray byte or two
        return text
    return raw.decode("cp1252", errors="replace")


def _is_binary(head: bytes) -> bool:
    if b"\0" in head:
        return True
    if not head:
        return False
    control = sum(1 for b in head if b < 32 and b not in (9, 10, 12, 13, 27))
    return control > 0.1 * len(head)


def _inside(root: Path, path: Path) -> bool:
    try:
        return path.resolve().is_relative_to(root)
    except (OSError, RuntimeError):  # a loop of links
        return False


def _link_trouble(path: Path) -> str:
    """Why a link that does not lead to a file in the folder is skipped, in words."""
    try:
        path.resolve(strict=True)
    except FileNotFoundError:
        return "it links to nothing (a broken link)"
    except (OSError, RuntimeError):
        return "it links in a loop"
    return "it links outside the folder"


def _shown_name(root: Path, path: Path) -> str:
    """A path under `root` as a note names it, its bytes escaped when they are not UTF-8."""
    try:
        name = path.relative_to(root).as_posix()
    except ValueError:
        name = str(path)
    return os.fsencode(name).decode("utf-8", "backslashreplace")


def _relative(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


_NAMED_TITLE = re.compile(r"(?P<name>[A-Za-z_][\w.]*)\s*(?P<mark>—|–|:)\s+(?P<description>\S.*)")
"""A title that names a thing and describes it: a module's page ("urllib.error — Exception
classes raised by urllib.request", "email.iterators: Iterators"). After a colon the thing named
must be a dotted or lower-case name: "FAQ: How do I reset my password" names nothing."""


def named_title(title: str) -> tuple[str, str]:
    """(the name, its description) of a title that names a thing and describes it
    ("urllib.error — Exception classes raised by urllib.request"), else (the title, "")."""
    found = _NAMED_TITLE.fullmatch(title.strip())
    if found and found["mark"] == ":" and not (
            "." in found["name"] or found["name"] == found["name"].lower()):
        found = None  # "Tutorial: Getting started" is a title, not a name described
    return (found.group("name"), found.group("description")) if found else (title, "")


# -- HTML to text -------------------------------------------------------------------------

_BLOCKS = frozenset({
    "p", "div", "section", "article", "main", "header", "footer", "aside", "nav", "blockquote",
    "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "dl", "dt", "dd", "table", "tr",
    "pre", "figure", "figcaption", "hr", "form", "fieldset", "details", "summary",
})  # fmt: skip
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
"""Headings: each given as a line of its own led by ``#`` marks, so that no heading is read as a
sentence of the page."""
_HIDDEN = frozenset({"script", "style", "template", "noscript", "svg", "head", "iframe",
                     "datalist", "noembed", "noframes"})
"""Elements a browser never shows the text of (an iframe shows its page, not what it holds)."""
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                   "source", "track", "wbr"})
_IN_HEAD = frozenset({"title", "meta", "link", "style", "script", "base", "noscript",
                      "template"})
"""What a page's head holds: any other element begins its body, though ``</head>`` is not
written (it may be left out)."""
_CLOSES_P = frozenset({
    "address", "article", "aside", "blockquote", "details", "div", "dl", "fieldset",
    "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
    "hr", "main", "nav", "ol", "p", "pre", "section", "summary", "table", "ul",
})  # fmt: skip
"""Elements whose start ends a paragraph left open (``<p>one<p>two``: two paragraphs)."""
_ENDS_LEFT_OUT = frozenset({"p", "li", "dt", "dd", "option", "optgroup", "rb", "rp", "rt",
                            "rtc"})
"""Elements whose end tag may be left out: one still open ends with the element around it."""
_SCOPES = frozenset({"html", "table", "td", "th", "caption", "button", "object", "template",
                     "svg", "math", "applet", "marquee"})
"""Elements an element left open inside does not reach past (a paragraph in a table's cell)."""


_UNSEEN_STYLE = re.compile(
    r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden|opacity\s*:\s*(?:0+\.?0*|\.0+)"
    r"|font-size\s*:\s*(?:0+\.?0*|\.0+)(?:px|pt|em|rem|%)?)\s*(?:!important\s*)?(?:;|$)",
    re.IGNORECASE)
"""A style a browser shows nothing of: no display, hidden, transparent, or letters of no
size."""
_SELECTOR = re.compile(r"(?P<tag>[A-Za-z][\w-]*)?(?P<rest>(?:[.#][\w-]+)+)")
"""A selector of one element by its classes or id (``.note``, ``p.ad``, ``#x``): those a
page's style sheet hides are left out (a rule of another form is not followed)."""

_Selector = tuple[str, frozenset[str], str]
"""A selector the page's style sheet hides: (its tag or "", the classes, the id or "")."""


def _hidden_selectors(page: str) -> list[_Selector]:
    """The selectors of one element (`_SELECTOR`) that the page's style sheets hide, at the top
    level of a sheet (not under ``@media``, which hides only on some screens); wherever in the
    page the sheet is written, since a browser applies it to the whole page."""
    found: list[_Selector] = []
    for sheet in _style_sheets(page):
        found.extend(_hiding_rules(sheet))
    return found


def _hiding_rules(sheet: str) -> list[_Selector]:
    """The selectors of one element (`_SELECTOR`) of the rules at the top level of a style
    sheet that hide what they select (not an ``@media`` block's: what it holds is not looked
    into)."""
    sheet = re.sub(r"/\*.*?(?:\*/|\Z)", "", sheet, flags=re.DOTALL)  # (comments)
    hiding: list[_Selector] = []
    depth = start = opened = 0
    for brace in re.finditer(r"[{}]", sheet):
        at: int = brace.start()
        if sheet[at] == "{":
            if depth == 0:
                selector: str = sheet[start:at].rsplit(";", 1)[-1].strip()
                opened = at + 1
            depth += 1
        elif depth:
            depth -= 1
            if depth == 0:
                if not selector.startswith("@") and _UNSEEN_STYLE.search(
                        sheet[opened:at].strip()):
                    hiding.extend(_selector(one) for one in re.split(r"\s*,\s*", selector)
                                  if _SELECTOR.fullmatch(one))
                start = at + 1
    return hiding


def _style_sheets(page: str) -> Iterator[str]:
    """What the page's ``<style>`` elements hold, in one pass (from one that does not close
    on, none: a pattern looking for each one's end to the end of the page would take minutes
    over a page of openings)."""
    at = 0
    while (opening := _STYLE_OPENS.search(page, at)) is not None:
        start = page.find(">", opening.end())
        closing = _STYLE_CLOSES.search(page, start) if start >= 0 else None
        if closing is None:
            return
        yield page[start + 1:closing.start()]
        at = closing.end()


_STYLE_OPENS = re.compile(r"<style\b", re.IGNORECASE)
_STYLE_CLOSES = re.compile(r"</style", re.IGNORECASE)


def _selector(written: str) -> _Selector:
    """The tag, classes and id a selector of one element (`_SELECTOR`) names."""
    tag = written[:min(at for at in (written.find("."), written.find("#")) if at >= 0)]
    parts: list[str] = re.findall(r"[.#][\w-]+", written)
    ids = [p[1:] for p in parts if p[0] == "#"]
    return (tag.lower(), frozenset(p[1:] for p in parts if p[0] == "."),
            ids[0] if len(ids) == 1 else "\0" if ids else "")


def _unseen(tag: str, attributes: dict[str, str | None], hiding: Sequence[_Selector]) -> bool:
    """Whether an element's own attributes keep a browser from showing it: ``hidden``, a style
    that shows nothing, a class or id the page's style sheet hides, a dialog not open."""
    if "hidden" in attributes or (tag == "dialog" and "open" not in attributes):
        return True
    if (style := attributes.get("style")) and _UNSEEN_STYLE.search(style.strip()):
        return True
    if not hiding:
        return False
    classes = set((attributes.get("class") or "").split())
    name = attributes.get("id") or ""
    return any((not t or t == tag) and c <= classes and (not i or i == name)
               for t, c, i in hiding)


class _TextOf(HTMLParser):
    """The visible text of a page; only its main part (``<main>``, ``role="main"``) when it
    has one.

    The elements open are kept as a browser keeps them: an end tag closes the last element
    open of its name and those inside it, and one that closes nothing open is passed over
    (``<div hidden></p>words</div>``: the words are in the hidden div, as a browser has them;
    read as closing it, they were indexed and quoted); an end tag that would reach past an
    element that hides what it holds, whose own end tag is written, is passed over too. A
    paragraph or an item left open ends where the next begins, and a head left open where the
    body begins."""

    chunks: list[str]
    """The text, in pieces, as it was added."""
    main: list[str]
    """The pieces of the page's main part."""
    title: str
    heading: str
    _open: list[tuple[str, bool]]
    _count: dict[str, int]

    def __init__(self, hiding: Sequence[_Selector] = ()) -> None:
        super().__init__(convert_charrefs=True)
        self.chunks: list[str] = []
        self.main: list[str] = []
        self.title = ""
        self.heading = ""
        self._hiding = hiding
        self._open = []
        """The elements open, outermost first: each tag, and whether it hides what it holds
        (`_HIDDEN`, or `_unseen`: the easiest place to hide words for a reader to quote that
        the person checking the page never sees)."""
        self._count = {}
        """How many elements of each tag are open."""
        self._hidden = 0
        """How many of the elements open hide what they hold."""
        self._main_at = -1
        self._link_at = -1
        self._marked = False
        """Whether a heading's ``#`` marks were the last thing added."""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if self._open and self._open[-1][0] == "head" and tag not in _IN_HEAD:
            self._close(len(self._open) - 1)
        if tag in _CLOSES_P:
            self._close(self._innermost("p", _SCOPES))
        if tag == "li":
            self._close(self._innermost("li", _SCOPES | {"ul", "ol"}))
        elif tag in ("dt", "dd"):
            self._close(max(self._innermost("dt", _SCOPES | {"dl"}),
                            self._innermost("dd", _SCOPES | {"dl"})))
        if tag not in _VOID:
            self._push(tag, tag in _HIDDEN or _unseen(tag, found, self._hiding))
        if tag == "br":
            self._add("\n")
        elif tag == "a" and "headerlink" in (found.get("class") or "").split():
            self._link_at = len(self._open)  # the "¶" a heading carries
        elif tag in _BLOCKS or tag == "main":
            self._add("\n\n")
            if tag in _HEADINGS:
                self._add("#" * int(tag[1]) + " ")  # a heading, as Markdown marks it
                self._marked = True
        if self._main_at < 0 and (tag == "main" or found.get("role") == "main"):
            self._main_at = len(self._open)

    def handle_endtag(self, tag: str) -> None:
        at = self._innermost(tag, ())
        if at >= 0 and not any(hides and name not in _ENDS_LEFT_OUT
                               for name, hides in self._open[at + 1:]):
            self._close(at)  # (else it closes nothing open, or would reach past what hides)
        if tag in _BLOCKS or tag == "main":
            self._add("\n\n")

    def _innermost(self, tag: str, scopes: frozenset[str] | tuple[()]) -> int:
        """Where the last element open of `tag` is, not beyond an element of `scopes`; -1
        when there is none."""
        if not self._count.get(tag):
            return -1
        for at in range(len(self._open) - 1, -1, -1):
            name = self._open[at][0]
            if name == tag:
                return at
            if name in scopes:
                return -1
        return -1

    def _push(self, tag: str, hides: bool) -> None:
        self._open.append((tag, hides))
        self._count[tag] = self._count.get(tag, 0) + 1
        self._hidden += hides

    def _close(self, at: int) -> None:
        """Close the element open at `at` (nothing when it is -1) and those inside it."""
        while at >= 0 and len(self._open) > at:
            if len(self._open) == self._main_at:
                self._main_at = -2  # the main part is over; nothing else joins it
            if len(self._open) == self._link_at:
                self._link_at = -1
            tag, hides = self._open.pop()
            self._count[tag] -= 1
            self._hidden -= hides

    def handle_data(self, data: str) -> None:
        if self._count.get("title"):
            self.title += data
            return
        if self._hidden or self._link_at >= 0:
            return
        if self._count.get("h1"):
            self.heading += data
        if self._count.get("pre"):
            self._add(data)
            return
        flowing = re.sub(r"\s+", " ", data)
        target = self.main if self._main_at >= 0 else self.chunks
        if not target or target[-1].endswith("\n") or self._marked:
            flowing = flowing.lstrip()
        self._marked = self._marked and not flowing
        if flowing:
            self._add(flowing)

    def _add(self, text: str) -> None:
        self.chunks.append(text)
        if self._main_at >= 0:
            self.main.append(text)


def html_to_text(html: str) -> tuple[str, str]:
    """(title, text) of an HTML page: its visible text (only its main part, when it marks
    one), a blank line between blocks, each heading led by ``#`` marks as in Markdown."""
    parser = _TextOf(_hidden_selectors(html))
    parser.feed(html)
    parser.close()
    chunks = parser.main if "".join(parser.main).strip() else parser.chunks
    body = "\n".join(line.rstrip() for line in "".join(chunks).split("\n"))
    body = re.sub(r"\n{3,}", "\n\n", body).strip()
    heading = " ".join(parser.heading.split())
    title = heading if parser.main and heading else " ".join((parser.title or heading).split())
    return title, body
