"""The login form's throttle keeps its memory bounded without forgetting whom it makes wait: a
guesser who tries names nobody has, many of them, does not empty the count of the person being
guessed at (which would give them five new tries each time)."""

from __future__ import annotations

from signoff.web.throttle import LoginThrottle

KEEP = 50
"""How many counts the throttles here keep (the server keeps 10,000)."""


def _throttle(now: list[float]) -> LoginThrottle:
    return LoginThrottle(allowed=5, allowed_in_all=8, window_seconds=900, keep=KEEP,
                         clock=lambda: now[0])


def _flood(throttle: LoginThrottle, address: str, names: int, *, tag: str) -> None:
    """One try at each of `names` names nobody has, from `address`: each is let through."""
    for n in range(names):
        assert throttle.begin(address, f"nobody-{tag}-{n}@shop.example") == 0


def test_tries_at_names_nobody_has_do_not_end_a_pause() -> None:
    """Five wrong tries at Noor from one address make it wait; tries at twice as many names as
    the throttle keeps, from the same address, do not end the wait."""
    now = [0.0]
    throttle = _throttle(now)
    for _ in range(5):
        assert throttle.begin("10.0.0.1", "noor@shop.example") == 0
    assert throttle.begin("10.0.0.1", "noor@shop.example") > 0
    now[0] = 10
    _flood(throttle, "10.0.0.1", 2 * KEEP, tag="a")
    assert throttle.begin("10.0.0.1", "noor@shop.example") > 0
    assert throttle.begin("10.0.0.1", "NOOR@shop.example ") > 0


def test_tries_at_names_nobody_has_do_not_forget_a_count_not_yet_full() -> None:
    """Four wrong tries at Noor, then a flood of names nobody has: the fifth try is her last
    from that address, as if there had been no flood."""
    now = [0.0]
    throttle = _throttle(now)
    for _ in range(4):
        assert throttle.begin("10.0.0.1", "noor@shop.example") == 0
    now[0] = 10
    _flood(throttle, "10.0.0.1", 2 * KEEP, tag="b")
    assert throttle.begin("10.0.0.1", "noor@shop.example") == 0
    assert throttle.begin("10.0.0.1", "noor@shop.example") > 0


def test_a_flood_from_changing_addresses_does_not_end_the_bound_from_every_address() -> None:
    """Eight wrong tries at Noor from eight addresses make every address wait; a flood of names
    nobody has from as many addresses again does not lift it."""
    now = [0.0]
    throttle = _throttle(now)
    for n in range(8):
        assert throttle.begin(f"10.0.1.{n}", "noor@shop.example") == 0
    assert throttle.begin("10.0.2.1", "noor@shop.example") > 0
    now[0] = 10
    for n in range(2 * KEEP):
        assert throttle.begin(f"10.0.3.{n}", f"nobody-c-{n}@shop.example") == 0
    assert throttle.begin("10.0.2.2", "noor@shop.example") > 0


def test_the_counts_kept_stay_bounded_and_end_with_the_window() -> None:
    """A flood of names nobody has leaves about `keep` counts in memory, not one for each; and
    once the window has passed, Noor's pause is over."""
    now = [0.0]
    throttle = _throttle(now)
    for _ in range(5):
        assert throttle.begin("10.0.0.1", "noor@shop.example") == 0
    _flood(throttle, "10.0.0.1", 10 * KEEP, tag="d")
    # (the throttle's own tables: what it holds in memory, counted)
    assert len(throttle._pairs) <= KEEP + 1
    assert len(throttle._people) <= KEEP + 1
    now[0] = 901
    assert throttle.begin("10.0.0.1", "noor@shop.example") == 0
