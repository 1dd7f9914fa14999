"""The login throttle, filled by a flood of guesses at names nobody has (five each, so that each
count makes its address wait): the count a new try was just added to is never the one forgotten
to make room (it was, at once, and from then on the address had no five-try limit at anyone for
the rest of the window; only the fifty-from-every-address bound was left)."""

from __future__ import annotations

from signoff.web.throttle import LoginThrottle


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _flooded(keep: int) -> tuple[LoginThrottle, Clock]:
    clock = Clock()
    throttle = LoginThrottle(keep=keep, clock=clock)
    for n in range(keep):  # `keep` made-up names, 5 wrong tries each, from the guesser's address
        for _ in range(throttle.allowed):
            clock.now += 0.01
            assert throttle.begin("203.0.113.9", f"nobody{n}@x.example") == 0
    return throttle, clock


def test_after_a_flood_an_address_still_waits_after_five_tries_at_a_person() -> None:
    throttle, clock = _flooded(keep=200)
    waited = []
    for _ in range(20):  # 20 wrong tries at the person being guessed at, same address
        clock.now += 0.01
        waited.append(throttle.begin("203.0.113.9", "victim@x.example"))
    # promised: after `allowed` (5) tries for one person from one address, the address waits
    assert any(waited), f"never waited: {waited}"
    assert waited[5] > 0


def test_at_the_default_keep_the_flood_costs_the_guesser_keep_times_five_tries() -> None:
    """The same at the default keep (10,000): 50,000 wrong tries at made-up names buy unlimited
    tries per address at anyone (up to the 50-in-all bound) for the rest of the window."""
    throttle, _ = _flooded(keep=10_000)
    waited = [throttle.begin("203.0.113.9", "victim@x.example") for _ in range(10)]
    assert waited[5] > 0, waited
