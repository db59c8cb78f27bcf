"""Timing JAX calls honestly: warm up, wait for the result, take turns in a shuffled order, report medians.

Used by the chapters that measure speed and by `make bench`. Nothing here decides pass or fail:
timings vary with the machine and with whatever else it is doing, so they are printed, never
asserted.

    times = timing.compare({"jnp": lambda: f(x), "ffi": lambda: g(x)}, repeats=30)
    print(timing.table(times, baseline="jnp"))

Where nobody reads the times (a grading kernel, the test suite), $JBJ_TIMING_ROUNDS caps the
rounds of each comparison, and the warm-up at one round: every line of a timing cell still runs,
in less time.
"""

from __future__ import annotations

import os
import random
import statistics
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import jax


@dataclass
class Timing:
    """The samples of one side of a comparison, in seconds."""

    name: str
    samples: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def best(self) -> float:
        """The fastest sample: what the machine can do when nothing interferes (STREAM reports this)."""
        return min(self.samples)

    @property
    def spread(self) -> float:
        """The interquartile range, a noise measure that one slow outlier does not move."""
        if len(self.samples) < 4:
            return 0.0
        q1, _, q3 = statistics.quantiles(self.samples, n=4)
        return q3 - q1


def run_once(call: Callable[[], Any]) -> float:
    """Seconds for one call, including the wait for its (possibly asynchronous) result."""
    start = time.perf_counter()
    jax.block_until_ready(call())
    return time.perf_counter() - start


#: Caps the rounds of every comparison where the times are not read (`compare`).
ROUNDS_ENV = "JBJ_TIMING_ROUNDS"


def rounds_cap() -> int | None:
    """The cap $JBJ_TIMING_ROUNDS puts on a comparison's rounds, or None (no cap)."""
    value = os.environ.get(ROUNDS_ENV, "").strip()
    if not value:
        return None
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"${ROUNDS_ENV} is {value!r}; set it to a whole number of rounds, at least 1, or unset it")
    return int(value)


def compare(calls: dict[str, Callable[[], Any]], *, repeats: int = 30, warmup: int = 3,
            seed: int = 0, back_to_back: int = 1) -> dict[str, Timing]:
    """Time each zero-argument call `repeats` times, taking turns, after `warmup` untimed rounds.

    Taking turns (each round runs every side once) spreads a noisy moment of the machine over every
    side instead of landing on one of them. Each timed round takes the sides in a new order,
    shuffled with `seed` (so a comparison's order is the same every time it runs): in one fixed
    order a side would always run right after the same other side, whose leftovers (its data in
    the caches, the buffers it freed, the threads it woke or left asleep) make the next call faster
    or slower, always the same one. The warm-up rounds, in the order given, compile and fill caches.
    With $JBJ_TIMING_ROUNDS set, at most that many rounds are timed after at most one warm-up round,
    one call per side each.

    With `back_to_back` above 1, a side's turn is 2 * back_to_back calls in a row: the first half
    untimed, the second half timed, each a sample. The first calls after another side's are slower
    for a while (the caches refill with this side's data, the pool's threads wake up), so each side
    is timed once it has settled, as if it ran alone, while the turns still spread a noisy moment
    over every side.
    """
    if not calls:
        raise ValueError("compare() needs at least one call to time")
    if repeats < 1 or warmup < 0 or back_to_back < 1:
        raise ValueError("repeats and back_to_back must be at least 1 and warmup at least 0")
    cap = rounds_cap()
    if cap is not None:
        repeats, warmup, back_to_back = min(repeats, cap), min(warmup, 1), 1
    for _ in range(warmup):
        for call in calls.values():
            jax.block_until_ready(call())
    timings = {name: Timing(name) for name in calls}
    order, shuffle = list(calls), random.Random(seed).shuffle
    for _ in range(repeats):
        shuffle(order)
        for name in order:
            for _ in range(back_to_back if back_to_back > 1 else 0):
                jax.block_until_ready(calls[name]())
            for _ in range(back_to_back):
                timings[name].samples.append(run_once(calls[name]))
    return timings


class Chain:
    """A call that feeds its own result back in: `state = f(state)`.

    For functions that donate their argument (`jax.jit(f, donate_argnums=0)`), whose input buffer
    is consumed by each call, so the next call must take the previous result.
    """

    def __init__(self, f: Callable[[Any], Any], start: Any):
        self.f = f
        self.state = start

    def __call__(self) -> Any:
        self.state = self.f(self.state)
        return self.state


def table(timings: dict[str, Timing], *, baseline: str | None = None, nbytes: int | None = None) -> str:
    """A text table of medians (ms) and interquartile ranges, with the ratio to `baseline` and, given
    the bytes each call moves, the achieved GB/s."""
    if baseline is not None and baseline not in timings:
        raise KeyError(f"baseline {baseline!r} is not one of {sorted(timings)}")
    width = max(len(name) for name in timings)
    lines = []
    for name, t in timings.items():
        line = f"{name:<{width}}  {t.median * 1e3:9.3f} ms  (IQR {t.spread * 1e3:7.3f} ms)"
        if baseline is not None:
            line += f"  {t.median / timings[baseline].median:6.2f}x {baseline}"
        if nbytes is not None:
            line += f"  {nbytes / t.median / 1e9:7.1f} GB/s"
        lines.append(line)
    return "\n".join(lines)
