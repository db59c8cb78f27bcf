"""cpp/pool_watch.cc, as chapter 12's self-checks use it: two calls made at once meet at XLA's pool, so a handler
that keeps state shared by every call gives a wrong result on every try, not by chance; a right handler gives none.

Each try runs in a process of its own (the watch writes into XLA's FFI table), with every CPU kept busy."""

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

def _tries(source: str) -> list[dict]:
    """TRIES runs of concurrent_mixups with two Python threads of one call each, on the answer `source`."""
    child = r"""
import json, sys, types
import jax, jax.numpy as jnp
from grader.notebook.build import build
from grader.selfchecks import ch12
ns = {"jax": jax, "jnp": jnp, "grader": types.SimpleNamespace(build=build)}
exec(sys.stdin.read(), ns)
if ch12.pool_threads() == 1:
    print(json.dumps("one pool thread")); sys.exit()
out = []
for _ in range(%d):
    met = ch12._watch()["pool_meetings"]()
    mixups = ch12.concurrent_mixups(ns["scale_rows"], (1024, 256), threads=2, calls=1)
    out.append({"mixups": mixups, "meetings": ch12._watch()["pool_meetings"]() - met})
    ch12.release()
print(json.dumps(out))
""" % TRIES
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 1)]
    try:
        done = subprocess.run([sys.executable, "-c", child], input=source, capture_output=True, text=True,
                              cwd=ROOT, env=env, timeout=600)
    finally:
        for p in busy:
            p.kill()
    assert done.returncode == 0, done.stderr[-3000:]
    said = json.loads(done.stdout.strip().splitlines()[-1])
    if said == "one pool thread":
        pytest.skip("XLA's pool has one thread here: no second thread to race with")
    return said


def test_state_shared_by_all_calls_is_overwritten_by_the_other_call_on_every_try():
    """Does a handler that copies s into a static array give a wrong result each time two calls meet?"""
    static = [w for w in corpus("12_fast_kernels")["ex2_answer"] if "static array shared by all calls" in w.why]
    assert len(static) == 1
    tries = _tries(static[0].source)
    assert all(t["meetings"] == 1 for t in tries), tries
    assert all(t["mixups"] >= 1 for t in tries), tries


def test_a_handler_that_reads_its_own_buffers_gives_no_mixups_when_calls_meet():
    """Does a right handler give x * s for its own s in every call, also when two calls meet at the pool?"""
    tries = _tries(right_answers("12_fast_kernels")["ex2_answer"][0].source)
    assert all(t["meetings"] == 1 for t in tries), tries
    assert all(t["mixups"] == 0 for t in tries), tries
