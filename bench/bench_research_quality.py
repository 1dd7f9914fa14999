"""Research quality: does the offline reader answer the question asked, or say it cannot?

    .venv/bin/python bench/bench_research_quality.py [--show] [--heldout] [--no-timing]

Runs every question of ``bench/research_questions.toml`` through the real research task (the
Researcher, the offline extractive reader, the citation check at hand back) over Python's help
topics — and, when Debian's python3-doc is installed, every question of
``bench/research_questions_docs.toml`` over Python's full documentation — and prints:

- the share of answerable questions whose answer cites a topic that answers them (target: at
  least 90%), and which did not;
- the share of unanswerable questions declined within 3 steps (target: all), and which were not;
- the time a question takes, median and slowest, on the help topics and on the default corpus
  (Python's documentation when Debian's python3-doc is installed), beside the time of the
  search alone in the same run (target: at most 2 s a question);
- the time of the whole command, ``signoff research QUESTION --json`` in a process of its own
  (the default corpus, its index already built; a research database on disk), wall and CPU,
  beside ``import signoff`` alone in the same run.

``--heldout`` also runs ``bench/research_questions_docs_heldout.toml`` and a second held-out set,
``research_questions_docs_heldout2.toml`` (``--quiet-second`` prints its counts alone), and a
third, ``research_questions_docs_heldout3.toml`` (``--quiet-third``), over
Python's documentation: questions written and committed before any answer to them was read,
which the reader was not tuned to when they were written (the other two sets were, so they
overstate how well it generalises; the first held-out set has been since). ``--no-timing``
leaves the timings out. ``--show`` prints each answer's first claim, or why it declined. Asserts
nothing.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from signoff import App, GroundedAnswer
from signoff.research import Corpus, ask, research_app

QUESTIONS = Path(__file__).with_name("research_questions.toml")
"""The question set over the help topics."""

DOCS_QUESTIONS = Path(__file__).with_name("research_questions_docs.toml")
"""The question set over Python's documentation (python3-doc)."""

HELDOUT_QUESTIONS = Path(__file__).with_name("research_questions_docs_heldout.toml")
HELDOUT2_QUESTIONS = Path(__file__).with_name("research_questions_docs_heldout2.toml")
HELDOUT3_QUESTIONS = Path(__file__).with_name("research_questions_docs_heldout3.toml")
"""The held-out question sets over Python's documentation: never tuned to."""

DECLINE_WITHIN_STEPS = 3
"""An unanswerable question must be declined within this many steps."""


@dataclass(frozen=True, kw_only=True)
class Asked:
    """One question and how the research went."""

    question: str
    """The question."""
    topics: tuple[str, ...]
    """The sources that answer it: topics, or pages (none: the corpus cannot)."""
    answer: GroundedAnswer | None
    """The answer handed back (None: the task did not end Done)."""
    steps: int
    """The steps the task took."""
    seconds: float
    """How long it took."""

    @property
    def good(self) -> bool:
        """Answerable: the answer cites a topic that answers it. Unanswerable: it declined
        within `DECLINE_WITHIN_STEPS` steps."""
        if self.answer is None:
            return False
        if self.topics:
            return self.answer.answered and bool(set(self.answer.source_ids) & set(self.topics))
        return not self.answer.answered and self.steps <= DECLINE_WITHIN_STEPS

    @property
    def shown(self) -> str:
        """The answer in a line: its first claim and the topics cited, or why it declined."""
        if self.answer is None:
            return "(no answer)"
        if self.answer.declined is not None:
            return f"declined: {self.answer.declined.reason}"
        return f"{', '.join(self.answer.source_ids)}: {self.answer.claims[0].text[:100]}"


@dataclass(frozen=True, kw_only=True)
class Scores:
    """The figures for a question set."""

    answerable: tuple[Asked, ...]
    """How each answerable question went."""
    unanswerable: tuple[Asked, ...]
    """How each unanswerable question went."""

    @property
    def answered_share(self) -> float:
        """The share of answerable questions that cite a topic answering them."""
        return sum(a.good for a in self.answerable) / len(self.answerable)

    @property
    def declined_share(self) -> float:
        """The share of unanswerable questions declined within the step limit."""
        return sum(a.good for a in self.unanswerable) / len(self.unanswerable)


def question_set(path: Path = QUESTIONS) -> tuple[list[tuple[str, tuple[str, ...]]], list[str]]:
    """The answerable questions (each with its topics, or pages) and the unanswerable ones."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    answerable = [(str(q["question"]), tuple(q.get("topics") or q["pages"]))
                  for q in data["answerable"]]
    return answerable, [str(q["question"]) for q in data["unanswerable"]]


def ask_one(app: App, question: str, topics: Sequence[str] = ()) -> Asked:
    """Research `question` with the offline reader, timed."""
    started = time.perf_counter()
    outcome = ask(app, question)
    seconds = time.perf_counter() - started
    answer = outcome.result if isinstance(outcome.result, GroundedAnswer) else None
    return Asked(question=question, topics=tuple(topics), answer=answer, steps=outcome.steps,
                 seconds=seconds)


def evaluate(app: App, path: Path = QUESTIONS) -> Scores:
    """Every question of the set at `path`, researched in `app` (an app over its corpus)."""
    answerable, unanswerable = question_set(path)
    return Scores(answerable=tuple(ask_one(app, q, t) for q, t in answerable),
                  unanswerable=tuple(ask_one(app, q) for q in unanswerable))


def _timing(label: str, corpus: Corpus, questions: Sequence[str]) -> None:
    app = research_app(corpus, database="sqlite://")
    ask(app, questions[0])  # the first question pays for opening the app's database
    times = [ask_one(app, q).seconds for q in questions]
    searches = []
    for q in questions:
        started = time.perf_counter()
        corpus.search(q)
        searches.append(time.perf_counter() - started)
    search = statistics.median(searches)
    median = statistics.median(times)
    print(f"  {label}: {len(corpus)} sources — a question {median:.3f} s median, "
          f"{max(times):.3f} s slowest (target ≤ 2 s); the search alone {search * 1e3:.1f} ms "
          f"median ({median / search:.0f}× it)")


def _report(scores: Scores, corpus: Corpus, unit: str, show: bool, label: str = "",
            answers: bool = True) -> None:
    """Print the scores (`answers`: with each miss, or each answer given `show`; without, the
    counts alone)."""
    answerable, unanswerable = scores.answerable, scores.unanswerable
    print(f"research quality{label} — {len(answerable)} answerable and {len(unanswerable)} "
          f"unanswerable questions over {corpus.name} ({len(corpus)} {unit}s)")
    good = sum(a.good for a in answerable)
    print(f"  answerable:   {good}/{len(answerable)} cite a {unit} that answers them "
          f"({scores.answered_share:.0%}; target ≥ 90%)")
    declined = sum(a.good for a in unanswerable)
    steps = max(a.steps for a in unanswerable)
    print(f"  unanswerable: {declined}/{len(unanswerable)} declined within "
          f"{DECLINE_WITHIN_STEPS} steps ({scores.declined_share:.0%}; target 100%; "
          f"at most {steps} steps taken)")
    claims = [len(a.answer.claims) for a in answerable if a.answer and a.answer.claims]
    if claims:
        print(f"  claims per answer: {statistics.mean(claims):.2f} on average "
              f"(at most {max(claims)})")
    for asked in (*answerable, *unanswerable):
        if answers and (show or not asked.good):
            mark = "ok  " if asked.good else "MISS"
            print(f"    {mark} {asked.question} → {asked.shown}")


def _command_timing(questions: Sequence[str], folder: Path) -> None:
    database = f"sqlite:///{folder / 'research.db'}"

    def run(arguments: list[str]) -> tuple[float, float]:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run([sys.executable, *arguments], check=True, capture_output=True)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    run(["-m", "signoff", "research", questions[0], "--json", "--database", database])
    commands = [run(["-m", "signoff", "research", q, "--json", "--database", database])
                for q in questions]
    imports = [run(["-c", "import signoff"]) for _ in questions]
    wall = statistics.median(w for w, _ in commands)
    cpu = statistics.median(c for _, c in commands)
    print(f"  the whole command, {len(questions)} questions: {wall:.2f} s wall, {cpu:.2f} s CPU "
          f"median (slowest {max(w for w, _ in commands):.2f} s wall); `import signoff` alone "
          f"{statistics.median(w for w, _ in imports):.2f} s wall, "
          f"{statistics.median(c for _, c in imports):.2f} s CPU")


def main() -> None:
    """Run the question sets and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="print every answer in a line")
    parser.add_argument("--heldout", action="store_true",
                        help="also run the held-out question set over Python's documentation")
    parser.add_argument("--no-timing", action="store_true", help="leave the timings out")
    parser.add_argument("--quiet-second", action="store_true",
                        help="print only the second held-out set's counts, not its answers "
                             "(to tune against the first without reading the second's)")
    parser.add_argument("--quiet-third", action="store_true",
                        help="print only the third held-out set's counts, not its answers")
    args = parser.parse_args()
    answerable, unanswerable = question_set()
    with tempfile.TemporaryDirectory() as tmp:
        topics = Corpus.bundled(index=Path(tmp) / "topics.sqlite")
        _report(evaluate(research_app(topics, database="sqlite://")), topics, "topic", args.show)
        default = Corpus.default(on_build=lambda words: print(f"  {words}"))
        docs = default.index != topics.index and "help topics" not in default.name
        if docs:
            _report(evaluate(research_app(default, database="sqlite://"), DOCS_QUESTIONS),
                    default, "page", args.show)
            if args.heldout:
                _report(evaluate(research_app(default, database="sqlite://"), HELDOUT_QUESTIONS),
                        default, "page", args.show, " (held out)")
                _report(evaluate(research_app(default, database="sqlite://"), HELDOUT2_QUESTIONS),
                        default, "page", args.show, " (held out, second set)",
                        answers=not args.quiet_second)
                _report(evaluate(research_app(default, database="sqlite://"), HELDOUT3_QUESTIONS),
                        default, "page", args.show, " (held out, third set)",
                        answers=not args.quiet_third)
        elif args.heldout:
            print("  (python3-doc is not installed: the held-out set needs it)")
        if args.no_timing:
            return
        print("timing (offline, in-memory app database, index already built):")
        every = [q for q, _ in answerable] + unanswerable
        _timing("help topics", topics, every)
        if docs:
            _timing(default.name, default, every)
        else:
            print("  (python3-doc is not installed: the default corpus is the help topics)")
        _command_timing(every[:: max(1, len(every) // 8)][:8], Path(tmp))


if __name__ == "__main__":
    main()
