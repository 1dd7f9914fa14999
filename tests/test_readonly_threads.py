"""A guarded call may not hand work to a thread: code a thread runs goes on outside the guard
(and after the call has returned), where nothing it does is refused or seen."""

from __future__ import annotations

import _thread
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from signoff.actions.readonly import read_only_guard
from signoff.exceptions import ReadOnlyViolation


@pytest.fixture
def pool() -> Iterator[ThreadPoolExecutor]:
    """A pool of the app's whose thread is already running, made before any guard."""
    with ThreadPoolExecutor(max_workers=1) as made:
        made.submit(lambda: None).result()
        yield made


def test_a_thread_started_while_guarded_is_refused(tmp_path: Path) -> None:
    """``Thread.start`` inside a guard is refused and recorded; the thread's code never runs."""
    written = tmp_path / "later.txt"
    thread = threading.Thread(target=written.write_text, args=("after the call",))
    with read_only_guard() as guard, pytest.raises(ReadOnlyViolation, match="start a thread"):
        thread.start()
    assert guard.violated
    assert not written.exists()


def test_a_thread_started_by_the_low_level_module_is_refused(tmp_path: Path) -> None:
    """``_thread.start_new_thread`` is refused as well."""
    written = tmp_path / "later.txt"
    with read_only_guard() as guard, pytest.raises(ReadOnlyViolation, match="start a thread"):
        _thread.start_new_thread(written.write_text, ("after the call",))
    assert guard.violated
    assert not written.exists()


def test_work_handed_to_a_running_pool_is_refused(pool: ThreadPoolExecutor, tmp_path: Path
                                                  ) -> None:
    """Work submitted to a thread pool already running, whose thread no guard holds, is
    refused."""
    written = tmp_path / "later.txt"
    with read_only_guard() as guard, pytest.raises(ReadOnlyViolation, match="thread pool"):
        pool.submit(written.write_text, "after the call")
    assert guard.violated
    assert not written.exists()


def test_threads_start_as_ever_outside_a_guard(pool: ThreadPoolExecutor, tmp_path: Path
                                               ) -> None:
    """Outside a guard, and once it has ended, threads start and pools take work."""
    with read_only_guard():
        pass
    written = tmp_path / "thread.txt"
    thread = threading.Thread(target=written.write_text, args=("yes",))
    thread.start()
    thread.join()
    assert written.read_text() == "yes"
    assert pool.submit(lambda: 2).result() == 2
