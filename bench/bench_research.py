"""The research corpus: index build and query time over a generated corpus, beside baselines.

    .venv/bin/python bench/bench_research.py [--docs 10000] [--queries 200]

Generates DOCS text files of a few hundred words each (a fixed seed: the same corpus every run),
then measures, in the same run:

- building signoff's index (`Corpus.from_folder`), beside reading the same files and inserting
  them into a bare SQLite FTS5 table (the cost of the index alone);
- querying it (`Corpus.search`, BM25, top 5), beside a bare FTS5 MATCH on that table and a plain
  Python scan that counts the query words in every document.

Prints medians and ratios; asserts no times.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from signoff.research.corpus import Corpus

SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "sa", "te", "vo", "di", "pa", "go", "hu", "ze", "bi", "fo", "ya"]
WORDS = sorted({"".join(random.Random(n).choices(SYLLABLES, k=3)) for n in range(8000)})
"""A vocabulary of made-up words; drawn with Zipf's law, as words in real text are."""
WEIGHTS = [1 / (rank + 1) for rank in range(len(WORDS))]


def generate(folder: Path, docs: int, seed: int = 7) -> list[str]:
    """Write `docs` text files; their texts."""
    rng = random.Random(seed)
    texts = []
    for i in range(docs):
        title = " ".join(rng.choices(WORDS, WEIGHTS, k=3))
        body = ". ".join(" ".join(rng.choices(WORDS, WEIGHTS, k=12)).capitalize()
                         for _ in range(25))
        text = f"{title}\n\n{body}."
        (folder / f"doc{i:05}.txt").write_text(text)
        texts.append(text)
    return texts


def median_us(samples: list[float]) -> float:
    """The median of samples in seconds, in microseconds."""
    return statistics.median(samples) * 1e6


def main() -> None:
    """Run the benchmark and print it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=10_000, help="documents to generate")
    parser.add_argument("--queries", type=int, default=200, help="queries to time")
    args = parser.parse_args()
    rng = random.Random(11)
    queries = [" ".join(rng.choices(WORDS[20:400], k=2)) for _ in range(args.queries)]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = root / "docs"
        folder.mkdir()
        texts = generate(folder, args.docs)
        size_mb = sum(len(t) for t in texts) / 1e6

        started = time.perf_counter()
        corpus = Corpus.from_folder(folder, index=root / "index.db")
        build = time.perf_counter() - started

        started = time.perf_counter()
        bare = sqlite3.connect(root / "bare.db")
        bare.execute("CREATE VIRTUAL TABLE docs USING fts5(name, body)")
        with bare:
            bare.executemany("INSERT INTO docs VALUES (?, ?)",
                             ((p.name, p.read_text()) for p in sorted(folder.iterdir())))
        bare_build = time.perf_counter() - started

        ours, fts, scan = [], [], []
        found = 0
        for query in queries:
            started = time.perf_counter()
            hits = corpus.search(query, limit=5)
            ours.append(time.perf_counter() - started)
            found += bool(hits)
            started = time.perf_counter()
            bare.execute("SELECT name FROM docs WHERE docs MATCH ? ORDER BY rank LIMIT 5",
                         (" OR ".join(query.split()),)).fetchall()
            fts.append(time.perf_counter() - started)
            started = time.perf_counter()
            words = query.split()
            sorted(range(len(texts)), key=lambda i: -sum(texts[i].count(w) for w in words))[:5]
            scan.append(time.perf_counter() - started)
        bare.close()

    print(f"research corpus — {args.docs} generated documents, {size_mb:.1f} MB of text, "
          f"{args.queries} queries ({found} with hits)")
    print(f"  build: signoff index   {build:8.2f} s   ({build / args.docs * 1e6:7.1f} µs a document)")
    print(f"  build: bare FTS5       {bare_build:8.2f} s   ratio signoff / bare "
          f"{build / bare_build:5.2f}x")
    print(f"  query: signoff search  {median_us(ours):8.0f} µs median (top 5, BM25)")
    print(f"  query: bare FTS5 MATCH {median_us(fts):8.0f} µs median   ratio signoff / bare "
          f"{median_us(ours) / median_us(fts):5.2f}x")
    print(f"  query: Python scan     {median_us(scan):8.0f} µs median   ratio signoff / scan "
          f"{median_us(ours) / median_us(scan):5.3f}x")


if __name__ == "__main__":
    main()
