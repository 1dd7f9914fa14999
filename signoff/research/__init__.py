"""Research: a corpus indexed with SQLite FTS5, the tools to search and read it, and the research
skill whose answers cite what it retrieved.

``ask(research_app(), "What does the with statement do?")`` answers from Python's own
documentation (or its help topics), offline, with the extractive reader — or declines when the
sources read cannot answer; ``signoff research "..."`` does the same from the
command line.
"""

from signoff.research.corpus import BUNDLED, Corpus, Found, Hit, SourcePart, cache_dir
from signoff.research.skill import (
    Research,
    Researcher,
    ResearchTask,
    ask,
    data_dir,
    default_database,
    research_app,
    retrieved_sources,
)
from signoff.research.sources import Document
from signoff.research.tools import fetch_url, read_source, search_sources

__all__ = [
    "BUNDLED",
    "Corpus",
    "Document",
    "Found",
    "Hit",
    "Research",
    "ResearchTask",
    "Researcher",
    "SourcePart",
    "ask",
    "cache_dir",
    "data_dir",
    "default_database",
    "fetch_url",
    "read_source",
    "research_app",
    "retrieved_sources",
    "search_sources",
]
