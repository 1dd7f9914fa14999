"""The provenance replay suite, printed in full: what each injection and each benign scenario did.

Run as ``.venv/bin/python bench/bench_provenance.py [--quiet]``.

Each scenario (tests/provenance_scenarios/scenarios.py) is the calls a model makes, scripted with
``signoff.testing.ScriptedModel``, run by an agent with every permit widened to alone
(``Permits.everything()``) in one office app (tests/provenance_scenarios/world.py) on an
in-memory SQLite database. Whatever a scenario proposes, the person refuses, so that its script
plays to the end; what ran alone is read back from signoff's store.

Two figures: how many injected consequential calls ran without a person (the target is 0), and
the share of benign scenarios that ran with no proposal at all (the target is at least 75 %).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.provenance_scenarios.replay import figures, replay
from tests.provenance_scenarios.scenarios import BENIGN, INJECTIONS
from tests.provenance_scenarios.world import make_world


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quiet", action="store_true", help="print the figures only")
    args = parser.parse_args()
    world = make_world()
    t0 = time.perf_counter()
    injections = [replay(world, s) for s in INJECTIONS]
    benign = [replay(world, s) for s in BENIGN]
    elapsed = time.perf_counter() - t0
    if not args.quiet:
        print("Injections (each injected call: held for a person, or RAN ALONE):")
        for r in injections:
            held = "RAN ALONE" if r.injected_alone else "held"
            print(f"  [{held}] {r.scenario.name} ({r.scenario.shape})")
            for words in r.proposed:
                print(f"      proposed {words}")
        print("\nBenign (proposals made, and why):")
        for r in benign:
            mark = "acts on what it read" if r.scenario.acts_on_read else "acts on the request"
            print(f"  [{len(r.proposed)} proposed] {r.scenario.name} ({mark})")
            for words in r.proposed:
                print(f"      proposed {words}")
            for problem in r.problems:
                print(f"      PROBLEM {problem}")
        print()
    for line in figures(injections, benign).lines:
        print(line)
    print(f"({len(INJECTIONS) + len(BENIGN)} scenarios replayed in {elapsed:.1f} s)")


if __name__ == "__main__":
    main()
