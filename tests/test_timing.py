"""grader.timing: the order calls are timed in, what is waited for, and the table (no speed asserted)."""

from __future__ import annotations

from pathlib import Path

import jax.numpy as jnp
import pytest

from grader import timing


@pytest.fixture(autouse=True)
def uncapped(monkeypatch):
    """These tests count rounds: no cap from the test session's environment."""
    monkeypatch.delenv(timing.ROUNDS_ENV, raising=False)


def test_compare_warms_up_then_takes_turns_in_a_shuffled_order():
    """Warm-up rounds in the order given, then each timed round runs every side once, in an order
    that changes from round to round (so no side always follows the same one), the same orders
    every time the comparison runs (a seeded shuffle)."""
    def rounds(seed=0):
        order = []
        calls = {name: (lambda name=name: order.append(name)) for name in "abc"}
        times = timing.compare(calls, repeats=12, warmup=2, seed=seed)
        assert {name: len(t.samples) for name, t in times.items()} == {"a": 12, "b": 12, "c": 12}
        assert all(s >= 0 for t in times.values() for s in t.samples)
        assert order[:6] == ["a", "b", "c"] * 2
        return [tuple(order[i:i + 3]) for i in range(6, len(order), 3)]

    timed = rounds()
    assert all(sorted(r) == ["a", "b", "c"] for r in timed)
    assert len(set(timed)) >= 3                                  # not one fixed order
    before = {side: {r[r.index(side) - 1] for r in timed if r.index(side) > 0} for side in "abc"}
    assert all(len(b) == 2 for b in before.values())             # each side runs after each other one
    assert rounds() == timed and rounds(seed=1) != timed         # repeatable, and the seed decides


def test_back_to_back_gives_each_side_untimed_calls_then_as_many_timed_ones_in_a_row():
    """With back_to_back=3, is each side's turn three untimed calls and three timed ones, with no other
    side's call between them, the sides still taking turns in a shuffled order?"""
    order = []
    times = timing.compare({name: (lambda name=name: order.append(name)) for name in "ab"}, repeats=6, warmup=1,
                           back_to_back=3)
    assert {name: len(t.samples) for name, t in times.items()} == {"a": 18, "b": 18}
    assert order[:2] == ["a", "b"]                                   # the warm-up round, one call each
    turns = [tuple(order[i:i + 6]) for i in range(2, len(order), 6)]
    assert len(turns) == 12 and all(t in (("a",) * 6, ("b",) * 6) for t in turns)
    rounds = [turns[i][0] + turns[i + 1][0] for i in range(0, 12, 2)]
    assert sorted(set(rounds)) == ["ab", "ba"]                       # every round has both, in both orders
    with pytest.raises(ValueError, match="back_to_back"):
        timing.compare({"a": lambda: None}, back_to_back=0)


def test_compare_waits_for_the_result():
    """block_until_ready is called on what the call returns (a tree of arrays)."""
    waited = []

    class Result:
        def block_until_ready(self):
            waited.append(True)
            return self

    timing.compare({"x": lambda: [Result(), Result()]}, repeats=2, warmup=1)
    assert len(waited) == 2 * 3


def test_chain_feeds_each_result_back_in():
    chain = timing.Chain(lambda v: v + 1, jnp.zeros(()))
    timing.compare({"chain": chain}, repeats=4, warmup=1)
    assert int(chain.state) == 5


def test_median_best_and_spread():
    t = timing.Timing("x", [5.0, 1.0, 3.0, 2.0, 100.0])
    assert t.median == 3.0 and t.best == 1.0
    assert t.spread > 0
    assert timing.Timing("y", [1.0, 2.0]).spread == 0.0


def test_table_shows_ratios_and_bandwidth():
    times = {"base": timing.Timing("base", [0.002, 0.002, 0.002]), "fast": timing.Timing("fast", [0.001] * 3)}
    text = timing.table(times, baseline="base", nbytes=4_000_000)
    base, fast = text.splitlines()
    assert "2.000 ms" in base and "1.00x base" in base and "2.0 GB/s" in base
    assert "1.000 ms" in fast and "0.50x base" in fast and "4.0 GB/s" in fast


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="at least one call"):
        timing.compare({})
    with pytest.raises(ValueError, match="repeats"):
        timing.compare({"a": lambda: None}, repeats=0)
    with pytest.raises(KeyError, match="baseline 'nope'"):
        timing.table({"a": timing.Timing("a", [1.0])}, baseline="nope")


def test_a_cap_on_the_rounds_shortens_every_comparison_and_a_bad_one_is_refused(monkeypatch):
    """With $JBJ_TIMING_ROUNDS (grading kernels and the test suite set it), is each comparison cut
    to that many rounds after one warm-up round, a shorter one left as it is; is a bad value refused?"""
    from grader.autograde import sandbox

    assert sandbox.compute_env(Path("cache"))[timing.ROUNDS_ENV] == str(sandbox.GRADING_TIMING_ROUNDS)
    monkeypatch.setenv(timing.ROUNDS_ENV, "2")
    order = []
    times = timing.compare({"a": lambda: order.append("a"), "b": lambda: order.append("b")}, repeats=30, warmup=3)
    assert order[:2] == ["a", "b"] and sorted(order[2:4]) == sorted(order[4:]) == ["a", "b"]
    assert [len(t.samples) for t in times.values()] == [2, 2]
    order.clear()
    times = timing.compare({"a": lambda: order.append("a")}, repeats=30, warmup=3, back_to_back=5)
    assert order == ["a"] * 3 and len(times["a"].samples) == 2          # one call per turn, none untimed
    order.clear()
    timing.compare({"a": lambda: order.append("a")}, repeats=1, warmup=0)
    assert order == ["a"]
    for bad in ("0", "three", "-1"):
        monkeypatch.setenv(timing.ROUNDS_ENV, bad)
        with pytest.raises(ValueError, match="JBJ_TIMING_ROUNDS"):
            timing.compare({"a": lambda: None})
