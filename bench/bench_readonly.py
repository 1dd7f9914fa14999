"""The read-only guard's cost: the audit hook's overhead on audited operations, guarded or not.

Run as ``.venv/bin/python bench/bench_readonly.py``. Each operation is timed three times in the
same process: first before the audit hook is installed (the baseline), then with the hook
installed but no guard active (the fast path every audit event of the process pays), then inside
``read_only_guard()``. Target: at most 5 µs added per guarded operation.
"""

from __future__ import annotations

import os
import platform
import sys
import tempfile
import timeit
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from signoff.actions.readonly import ReadOnlyViolation, read_only_guard

TARGET_US = 5.0
REPEATS = 7


def _per_call_us(operation: Callable[[], object], number: int) -> float:
    """The best of REPEATS runs of `number` calls, in microseconds per call."""
    return min(timeit.repeat(operation, number=number, repeat=REPEATS)) / number * 1e6


def _refused(operation: Callable[[], object]) -> Callable[[], None]:
    def attempt() -> None:
        try:  # noqa: SIM105 -- cheaper than contextlib.suppress inside a timed loop
            operation()
        except (ReadOnlyViolation, FileNotFoundError):
            pass

    return attempt


def main() -> None:
    """Time each operation in the three phases and print a table."""
    workdir = Path(tempfile.mkdtemp(prefix="signoff-bench-"))
    data = workdir / "data.bin"
    data.write_bytes(b"x" * 64)
    for index in range(5):
        (workdir / f"file{index}").touch()
    missing = str(workdir / "missing")

    def open_read() -> None:
        with open(data, "rb") as file:
            file.read()

    operations: dict[str, tuple[Callable[[], object], int]] = {
        "sys.audit (an event, nothing else)": (lambda: sys.audit("signoff.bench"), 500_000),
        "open(path, 'rb') + read + close": (open_read, 50_000),
        "os.listdir (6 entries)": (lambda: os.listdir(workdir), 50_000),
        "os.scandir + close": (lambda: os.scandir(workdir).close(), 50_000),
    }

    baseline = {name: _per_call_us(op, n) for name, (op, n) in operations.items()}
    failing = _per_call_us(_refused(lambda: os.remove(missing)), 20_000)  # FileNotFoundError
    with read_only_guard():  # installs the hook (once, for good)
        pass
    unguarded = {name: _per_call_us(op, n) for name, (op, n) in operations.items()}
    with read_only_guard() as guard:
        guarded = {name: _per_call_us(op, n) for name, (op, n) in operations.items()}
        # The price of a refusal itself: building the violation, recording it, raising it.
        refusal = _per_call_us(_refused(lambda: os.remove(missing)), 20_000)
    recorded = len(guard.violations)

    print(
        f"signoff read-only guard — audit hook overhead "
        f"(Python {platform.python_version()}, {platform.machine()}, best of {REPEATS})"
    )
    header = (
        f"{'operation':<38}{'no hook':>10}{'unguarded':>11}{'guarded':>10}"
        f"{'guarded − no hook':>20}{'ratio':>8}"
    )
    print(header)
    print("-" * len(header))
    worst = 0.0
    for name in operations:
        added = guarded[name] - baseline[name]
        worst = max(worst, added)
        print(
            f"{name:<38}{baseline[name]:>8.3f}µs{unguarded[name]:>9.3f}µs{guarded[name]:>8.3f}µs"
            f"{added:>+17.3f} µs{guarded[name] / baseline[name]:>7.2f}x"
        )
    print()
    fast_path = unguarded["sys.audit (an event, nothing else)"] - baseline[
        "sys.audit (an event, nothing else)"
    ]
    print(f"unguarded fast path, per audit event of the process: {fast_path:+.3f} µs")
    print(
        f"a refused operation (os.remove, {recorded} refusals recorded): {refusal:.3f} µs each, "
        f"vs {failing:.3f} µs for the same call failing with FileNotFoundError before the hook"
    )
    verdict = "met" if worst <= TARGET_US else "MISSED"
    print(
        f"worst added cost per guarded operation: {worst:.3f} µs "
        f"(target <= {TARGET_US:.0f} µs: {verdict})"
    )
    for path in workdir.iterdir():
        path.unlink()
    workdir.rmdir()


if __name__ == "__main__":
    main()
