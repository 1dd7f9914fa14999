"""How long the effect analysis takes per action, beside a baseline measured in the same run.

First the corpus of the tests (`tests/effects_corpus`: the toolkit tools, read-only and writing,
and the small cases), each analysed afresh (summaries forgotten, parsed files kept); the target is
a median of at most 2 ms per action. Then a generated set: at least 500 action-like functions
(reads, record writes, helpers, sinks, loops, dynamic calls) written into a temporary module file
and imported so that their sources exist, each timed on its first analysis the same way. The
baseline is ``inspect.getsource`` + ``ast.parse`` of the same function.

Run: ``.venv/bin/python bench/bench_effects.py [count]`` (count: generated actions, 700 by default)
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import inspect
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from signoff.effects import analyse
from signoff.effects import analyser as _analysis

HEADER = """
from __future__ import annotations

import json
import os
import subprocess
import uuid

from sqlalchemy import select, text
from sqlalchemy.orm import Session

from tests.effects_corpus import helpers
from tests.effects_corpus.records import Repair

LOG: list[str] = []
"""

SHAPES = [
    """
def action_{i}(repair: Repair, price: int) -> None:
    if price > {i}:
        repair.price = price
    helpers.describe(repair)
""",
    """
def action_{i}(session: Session, repair_id: uuid.UUID) -> str:
    repair = session.get(Repair, repair_id)
    rows = list(session.scalars(select(Repair).where(Repair.price > {i})))
    return json.dumps({{"n": len(rows), "title": repair.title if repair else ""}})
""",
    """
def action_{i}(items: list[str], word: str) -> list[str]:
    out = [helpers.shout(w) for w in items if w != word]
    out.sort()
    for w in out:
        if len(w) > {i} % 7:
            LOG.append(w)
    return out
""",
    """
def action_{i}(repair: Repair) -> None:
    helpers.post_it(f"{{repair.title}} {i}")
    helpers.sms("+1", repair.describe())
""",
    """
def action_{i}(session: Session, title: str) -> Repair:
    repair = Repair(title=title.strip(), price={i})
    session.add(repair)
    session.execute(text("UPDATE repair SET status = 'open' WHERE price > {i}"))
    return repair
""",
    """
def action_{i}(handler, path: str) -> None:
    try:
        handler.run(path)
    except ValueError:
        raise
    if os.path.exists(path):
        subprocess.run(["ls", path], check=False)
""",
    """
def _helper_{i}(repair: Repair, n: int) -> int:
    return n if n <= 0 else _helper_{i}(repair, n - 1) + repair.price


def action_{i}(repair: Repair) -> int:
    total = _helper_{i}(repair, 3)
    helpers.rename(repair, str(total))
    return total
""",
]


def generate(count: int, folder: Path) -> ModuleType:
    """Write `count` actions into a module file and import it."""
    source = HEADER + "".join(SHAPES[i % len(SHAPES)].format(i=i) for i in range(count))
    path = folder / "bench_generated_actions.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("bench_generated_actions", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def corpus_functions() -> list[Callable[..., Any]]:
    """Every function of the test corpus an action could be."""
    from tests.effects_corpus import actions, readers, writers

    found: list[Callable[..., Any]] = []
    for module in (readers, writers, actions):
        found += [
            value for name, value in vars(module).items()
            if inspect.isfunction(value) and value.__module__ == module.__name__
            and not name.startswith("_")
        ]
    return found


def time_each(functions: list[Callable[..., Any]]) -> tuple[list[float], list[float], int]:
    """Per function: the analysis afresh, and the baseline; and how many do more than read."""
    analysed: list[float] = []
    baseline: list[float] = []
    not_only_reads = 0
    for fn in functions:
        _analysis.forget_summaries()
        start = time.perf_counter()
        effects = analyse(fn, name=fn.__name__)
        analysed.append(time.perf_counter() - start)
        not_only_reads += not effects.only_reads
        start = time.perf_counter()
        ast.parse(inspect.getsource(fn))
        baseline.append(time.perf_counter() - start)
    return analysed, baseline, not_only_reads


def report(title: str, analysed: list[float], baseline: list[float], not_only_reads: int, *,
           target: bool = False) -> None:
    """Print the figures of one set (and, for the corpus, whether the target is met)."""
    med, p90 = _stats(analysed)
    base_med, base_p90 = _stats(baseline)
    print(f"{title}: {len(analysed)} actions ({not_only_reads} found to do more than read)")
    print(f"  analyse          median {med * 1e3:7.3f} ms   p90 {p90 * 1e3:7.3f} ms")
    print(
        f"  baseline         median {base_med * 1e3:7.3f} ms   p90 {base_p90 * 1e3:7.3f} ms"
        "   (inspect.getsource + ast.parse)"
    )
    print(f"  ratio            median {med / base_med:7.1f} x    p90 {p90 / base_p90:7.1f} x")
    if target:
        print(f"  target           median <= 2 ms: {'met' if med <= 0.002 else 'NOT met'}")


def measure_corpus() -> None:
    """Time the analysis of each function of the test corpus."""
    functions = corpus_functions()
    for fn in functions:  # parse every file once, as an app's registration does
        analyse(fn, name="warm-up")
    report("corpus", *time_each(functions), target=True)


def measure(count: int) -> None:
    """Time the analysis and the baseline per action, and print both."""
    with tempfile.TemporaryDirectory() as folder:
        module = generate(count, Path(folder))
        actions = [getattr(module, f"action_{i}") for i in range(count)]
        analyse(actions[0], name="warm-up")  # parse the shared helper files once
        report("generated", *time_each(actions))


def _stats(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[int(len(ordered) * 0.9)]


def main() -> None:
    """Read the command line, then measure the corpus and the generated set."""
    parser = argparse.ArgumentParser(
        description="How long the effect analysis takes per action, beside parsing the same "
                    "function (inspect.getsource + ast.parse), in the same run.",
        epilog="Example: .venv/bin/python bench/bench_effects.py 300")
    parser.add_argument("count", nargs="?", type=int, default=700,
                        help="generated actions to time after the test corpus (default 700)")
    args = parser.parse_args()
    if args.count < 1:
        parser.error("count is how many actions to generate: 1 or more.")
    measure_corpus()
    measure(args.count)


if __name__ == "__main__":
    main()
