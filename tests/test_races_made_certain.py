"""Races the self-checks make certain, not likely: on every try, with every CPU kept busy, an answer that keeps
state shared by calls running at once gives a wrong result, and a right answer gives none.

- chapter 03: the "up" call's loop waits at its 16th step until the "down" call has begun (`_two_threads`);
- chapter 11: a call is held at its first read of x's second half until another thread's call has run whole
  (`held_call`, cpp/page_stall.cc);
- chapter 12: the first two calls to hand a task to XLA's pool wait there for each other (`concurrent_mixups`,
  cpp/pool_watch.cc's pool_meet).

Each answer is tried in a process of its own (the checks change signal handlers and XLA's FFI table there)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT
from wrong_answers import corpus, right_answers

pytestmark = pytest.mark.slow

TRIES = 10

_START = r"""
import json, sys, types
import jax, jax.numpy as jnp, numpy as np
from jax.experimental import io_callback
from grader.notebook import checks
from grader.notebook.build import build
ns = {"jax": jax, "jnp": jnp, "np": np, "io_callback": io_callback, "grader": types.SimpleNamespace(build=build)}
exec(sys.stdin.read(), ns)
out = []
"""

#: Per chapter: the answer cell, the wrong answer (by its why), and a child's loop that appends one verdict per try
#: (what the check saw, or "one pool thread" where there is nothing to race with).
CASES = {
    "03_callbacks": ("ex2_answer", "module-level log cleared on each call", r"""
from grader.selfchecks import ch03
for _ in range(TRIES):
    try:
        ch03._two_threads(ns["run_logged"])
        out.append("own logs")
    except checks.CheckFailed:
        out.append("mixed")
"""),
    "11_cpp_ffi": ("ex1_answer", "per-row results kept in static arrays", r"""
from grader.selfchecks import ch11
for _ in range(TRIES):
    seen = ch11.held_call(ns["row_minmax"])
    out.append(("own" if seen["held call right"] and seen["other call right"] else "mixed") + (" held" if seen["held"] else ""))
"""),
    "12_fast_kernels": ("ex2_answer", "row scales copied into a static array", r"""
from grader.selfchecks import ch12
for _ in range(TRIES):
    if ch12.pool_threads() == 1:
        out.append("one pool thread"); break
    met = ch12._watch()["pool_meetings"]()
    mixups = ch12.concurrent_mixups(ns["scale_rows"], (1024, 256), threads=2, calls=1)
    out.append(("mixed" if mixups else "own") + (" held" if ch12._watch()["pool_meetings"]() - met == 1 else ""))
    ch12.release()
"""),
}


def _tries(chapter: str, source: str) -> list[str]:
    """What the chapter's check saw on each of TRIES tries of the answer `source`, with every CPU kept busy."""
    loop = CASES[chapter][2].replace("TRIES", str(TRIES))
    child = _START + loop + "print(json.dumps(out))\n"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 1)]
    try:
        done = subprocess.run([sys.executable, "-c", child], input=source, capture_output=True, text=True,
                              cwd=ROOT, env=env, timeout=900)
    finally:
        for p in busy:
            p.kill()
    assert done.returncode == 0, done.stderr[-3000:]
    said = json.loads(done.stdout.strip().splitlines()[-1])
    if said == ["one pool thread"]:
        pytest.skip("XLA's pool has one thread here: no second thread to race with")
    return said


@pytest.mark.parametrize("chapter", sorted(CASES))
def test_state_shared_by_calls_at_once_is_caught_on_every_try(chapter):
    """Does an answer that shares state between calls give a mixed result on each of TRIES tries under load?"""
    cell, why, _ = CASES[chapter]
    wrong = [w for w in corpus(chapter)[cell] if w.why.startswith(why)]
    assert len(wrong) == 1
    seen = _tries(chapter, wrong[0].source)
    expected = "mixed" if chapter == "03_callbacks" else "mixed held"
    assert seen == [expected] * TRIES, seen


@pytest.mark.parametrize("chapter", sorted(CASES))
def test_a_right_answer_keeps_its_own_results_when_calls_are_made_to_overlap(chapter):
    """Does a right answer give each call its own result on every try, with the same overlap forced?"""
    cell, _, _ = CASES[chapter]
    seen = _tries(chapter, right_answers(chapter)[cell][0].source)
    expected = "own logs" if chapter == "03_callbacks" else "own held"
    assert seen == [expected] * TRIES, seen
