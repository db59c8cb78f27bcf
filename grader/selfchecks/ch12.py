"""Self-checks of chapter 12, "Make an FFI kernel as fast as memory allows": what each exercise's self-check cell
runs (see `grader.selfchecks`).

Some checks watch XLA's thread pool while an answer runs (`cpp/pool_watch.cc`): they count the tasks a handler hands
to the pool, and can make those tasks start late or stall halfway, so that a race that depends on when a pool
thread runs happens on every call, not by chance. One watches which threads read an input (`cpp/page_stall.cc`):
a kernel on the calling thread starts none of its own. Others time an answer against a plain pass over the same bytes,
in turns, in this process, and take medians: speed is graded, as a margin that a vectorised kernel clears and a
scalar one cannot, even on a busy machine.
"""

from __future__ import annotations

import contextlib
import ctypes
import inspect
import linecache
import os
import re
import subprocess
import sys
import threading
import time
from functools import partial
from typing import Any, Callable, Iterator

import jax
import jax.numpy as jnp
import numpy as np

from grader.notebook import checks
from grader.notebook.build import build
from grader.selfchecks.ch11 import _library_of, watched_reads


def value(what: str, thunk: Callable[[], Any], hint: str | None = None) -> Any:
    """Run thunk() (the learner's code) and wait for its result; return it, or None after a failed check saying
    what it raised."""
    return checks.runs(lambda: jax.block_until_ready(thunk()), what=what, hint=hint)


def lowered_counts(fn: Callable, *args: Any) -> dict[str, int]:
    """What the lowered program of jax.jit(fn)(*args) holds: custom calls, other operations (jnp around a call, or in
    its place: a reduction, a subtraction, a multiply), Python callbacks."""
    text = jax.jit(fn).lower(*args).as_text()
    ops = re.findall(r"\bstablehlo\.([a-z_]+)", text)
    return {"custom calls": ops.count("custom_call"), "other operations": len(ops) - ops.count("custom_call"),
            "Python callbacks": text.count("xla_ffi_python_cpu_callback"),
            "calls of the chapter's own targets": text.count("@ch12.")}


ONE_CALL = {"custom calls": 1, "other operations": 0, "Python callbacks": 0, "calls of the chapter's own targets": 0}


def entry_ops(jitted: Callable, *args: Any) -> list[str]:
    """The operations of a jitted function's compiled entry computation, in order (as section 6 reads them)."""
    text = jitted.lower(*args).compile().as_text()
    return re.findall(r"\} ([a-z][\w-]*)\(", text[text.index("ENTRY"):])


# --- XLA's pool, watched (cpp/pool_watch.cc) ------------------------------------------------------------------------

_WATCH: dict[str, Any] = {}


def _watch() -> dict[str, Any]:
    """The functions of cpp/pool_watch.cc, built and loaded once; its PoolSize handler called once, which shows the
    library the FFI's API table."""
    if not _WATCH:
        lib = build("pool_watch.cc", flags=("-O2", "-pthread"))
        lib.register_ffi_target("ch12_selfcheck.pool_size", "PoolSize")
        threads = int(jax.ffi.ffi_call("ch12_selfcheck.pool_size", jax.ShapeDtypeStruct((), jnp.int32))())
        _WATCH["threads"] = threads
        for name, argtypes, restype in (("watch_pool", [ctypes.c_int] * 3, ctypes.c_int), ("unwatch_pool", [], ctypes.c_int),
                                        ("pool_wait_for_start", [ctypes.c_int], None),
                                        ("pool_meet", [ctypes.c_int, ctypes.c_int], None),
                                        ("pool_meetings", [], ctypes.c_longlong),
                                        ("pool_tasks_scheduled", [], ctypes.c_longlong),
                                        ("pool_tasks_stalled", [], ctypes.c_longlong),
                                        ("pool_task_cpu_ns", [], ctypes.c_longlong),
                                        ("pool_watch_in_task", [], ctypes.c_int)):
            _WATCH[name] = lib.function(name, argtypes=argtypes, restype=restype)
    return _WATCH


def pool_threads() -> int:
    """The number of threads in XLA's intra-op pool."""
    return _watch()["threads"]


@contextlib.contextmanager
def watched_pool(start_late_us: int = 0, stall_after_us: int = 0, stall_us: int = 0,
                 wait_for_start_us: int = 0, meet: int = 0) -> Iterator[dict[str, Any]]:
    """While the block runs, every task a handler hands to XLA's pool waits `start_late_us` before it starts, and one
    that runs for `stall_after_us` sleeps for `stall_us` before it goes on (0: never); with `wait_for_start_us`,
    pool.Schedule returns only once a pool thread has started the task (or after that long), so that the task holds
    work before the handler's thread goes on; with `meet`, the first `meet` handlers to call pool.Schedule wait there
    for each other (at most 5 s). Yields the counters' reader."""
    w = _watch()
    if w["watch_pool"](start_late_us, stall_after_us, stall_us) != 0:
        raise RuntimeError("the check could not watch XLA's thread pool (cpp/pool_watch.cc)")
    w["pool_wait_for_start"](wait_for_start_us)
    w["pool_meet"](meet, 5_000_000)
    try:
        yield {"scheduled": w["pool_tasks_scheduled"], "stalled": w["pool_tasks_stalled"], "cpu_ns": w["pool_task_cpu_ns"]}
    finally:
        w["pool_meet"](0, 0)
        w["pool_wait_for_start"](0)
        w["unwatch_pool"]()
        # A task told to start late or to stall may still be waiting: let it run before anything it writes is freed.
        time.sleep((start_late_us + stall_us) / 1e6 + 0.05 if start_late_us or stall_us else 0)


def tasks_scheduled(thunk: Callable[[], Any]) -> int:
    """How many tasks the handlers that run in thunk() hand to XLA's pool."""
    with watched_pool() as counters:
        jax.block_until_ready(thunk())
        return int(counters["scheduled"]())


def threads_reading(fn: Callable[[Any], Any], shape: tuple[int, int], seed: int = 16) -> str:
    """Which threads read x in fn(x), and whether every page of x was read before the call returned
    (`watched_reads` of chapter 11, `cpp/page_stall.cc`): a handler on the calling thread reads x on one thread, which
    was running before the call (XLA's own are, after a first call); a thread the handler starts is not, and a pool
    of its own kept from an earlier call (OpenMP's) reads x on several."""
    seen = watched_reads(fn, shape, seed)
    if seen["started during the call"]:
        return f"{seen['started during the call']} of {seen['pages']} pages of x were read first by a thread started during the call"
    if seen["unread when the call returned"]:
        return f"{seen['unread when the call returned']} of {seen['pages']} pages of x were not read when the call returned"
    if seen["threads"] > 1:
        return f"x was read by {seen['threads']} threads (a kernel on the calling thread reads all of it on that one)"
    return "x was read by threads running before the call"


#: What a library imports to start a thread, by the name a learner knows it by.
THREAD_STARTERS = {"pthread_create": "pthread_create", "thrd_create": "thrd_create", "_M_start_thread": "std::thread",
                   "GOMP_parallel": "OpenMP (GOMP_parallel)", "GOMP_teams": "OpenMP (GOMP_teams)"}


def thread_starters(fn: Callable, *args: Any) -> list[str]:
    """The functions that start threads which the libraries of the FFI handlers in jax.jit(fn)'s lowered program
    import (`nm -D --undefined-only`): std::thread (and std::async), pthread_create, OpenMP's parallel regions. A
    kernel on the calling thread imports none. This sees a thread start that a run may not show: under grading,
    OMP_NUM_THREADS=1 keeps an OpenMP loop on the calling thread."""
    found = set()
    for target in sorted(set(re.findall(r"custom_call @([\w.]+)", jax.jit(fn).lower(*args).as_text()))):
        path, _ = _library_of(target)
        listed = subprocess.run(["nm", "-D", "--undefined-only", path], capture_output=True, text=True, check=True).stdout
        for symbol in (line.split()[-1].split("@")[0] for line in listed.splitlines() if line.strip()):
            found.update(name for key, name in THREAD_STARTERS.items()
                         if symbol == key or (key.startswith(("_", "GOMP")) and key in symbol))
    return sorted(found)


# --- timing against a plain pass -----------------------------------------------------------------------------------

_PLAIN_PASS_CC = r"""
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;
// y = 2 * x on the calling thread: a plain pass that reads x once and writes y once.
static ffi::Error PlainPassImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  const float* in = x.typed_data();
  float* out = y->typed_data();
  const std::int64_t n = static_cast<std::int64_t>(x.element_count());
  for (std::int64_t i = 0; i < n; ++i) out[i] = 2.0f * in[i];
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(PlainPass, PlainPassImpl,
                              ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
"""

_PLAIN: list[Callable] = []


def plain_pass() -> Callable:
    """jax.jit of y = 2 * x by an FFI handler on the calling thread, built with -O3 -march=native: the plain pass
    the speed checks time an answer against."""
    if not _PLAIN:
        build(code=_PLAIN_PASS_CC, name="plain_pass", flags=("-O3", "-march=native")).register_ffi_target(
            "ch12_selfcheck.plain_pass", "PlainPass")
        _PLAIN.append(jax.jit(lambda x: jax.ffi.ffi_call("ch12_selfcheck.plain_pass", jax.ShapeDtypeStruct(x.shape, x.dtype))(x)))
    return _PLAIN[0]


def times_plain_pass(fn: Callable, x: Any, rounds: int = 15, calls: int = 3) -> float:
    """The median time of fn(x) over the median time of a plain pass over x's bytes, the two timed in turns in this
    process: each round gives each side `calls` untimed calls, then `calls` timed ones, the sides' order alternating
    from round to round. Not capped by $JBJ_TIMING_ROUNDS: this is a check, not a printed table."""
    plain = plain_pass()
    sides = {"answer": lambda: fn(x), "plain": lambda: plain(x)}
    samples: dict[str, list[float]] = {"answer": [], "plain": []}
    for name in sides:
        jax.block_until_ready(sides[name]())
    for k in range(rounds):
        for name in (("answer", "plain") if k % 2 else ("plain", "answer")):
            for _ in range(calls):
                jax.block_until_ready(sides[name]())
            for _ in range(calls):
                start = time.perf_counter()
                jax.block_until_ready(sides[name]())
                samples[name].append(time.perf_counter() - start)
    return float(np.median(samples["answer"]) / np.median(samples["plain"]))


def speed(fn: Callable, x: Any, margin: float, tries: int = 3) -> str:
    """Whether fn(x) takes at most `margin` times a plain pass over x's bytes, said in words: up to `tries`
    measurements, the best of them counting (a busy moment can only make one slower)."""
    best = times_plain_pass(fn, x)
    for _ in range(tries - 1):
        if best <= margin:
            break
        best = min(best, times_plain_pass(fn, x))
    return f"at most {margin:g}x the plain pass" if best <= margin else f"{best:.1f}x the plain pass"


# --- Exercise 1 ----------------------------------------------------------------------------------------------------

def standardized(x: Any, eps: float = 1e-5) -> np.ndarray:
    """(x - mean) / sqrt(var + eps) of each row, in float64, rounded to float32."""
    x = np.asarray(x, np.float64)
    centred = x - x.mean(axis=-1, keepdims=True)
    return (centred / np.sqrt(np.mean(centred * centred, axis=-1, keepdims=True) + eps)).astype(np.float32)


#: The tolerance Exercise 1 states: what 16 partial sums in float reach on rows of 2**20.
STD_TOL = {"rtol": 1e-5, "atol": 3e-5}


def exercise1(standardize_rows) -> None:
    """standardize_rows: one FFI call on the calling thread, accurate on long rows and rows far from 0, any number of
    axes and row length, under jit and vmap, and at most 4x a plain pass over the same bytes."""
    r1 = np.random.default_rng(10).standard_normal((3, 1000)).astype(np.float32)
    checks.close(value("jax.jit(standardize_rows) of 3 rows of 1000", lambda: jax.jit(standardize_rows)(jnp.asarray(r1))),
                 standardized(r1), **STD_TOL, what="jit(standardize_rows) of 3 rows of 1000 (not a multiple of 16)",
                 hint="each row minus its mean, over sqrt(mean of the squared deviations + eps); mind the elements left "
                      "over after the last full group of 16 (the loop's tail)")
    long_rows = np.random.default_rng(11).uniform(0.5, 1.5, (2, 1 << 20)).astype(np.float32)
    # Each row has one mean and one scale, so a row's first values show whether its sums were right; the long rows
    # are compared there only, which keeps what a graded run records small.
    checks.close(value("standardize_rows of 2 rows of 2**20", lambda: standardize_rows(jnp.asarray(long_rows))[:, :4096]),
                 standardized(long_rows)[:, :4096], **STD_TOL,
                 what="standardize_rows of 2 rows of 2**20 values in [0.5, 1.5) (the first 4096 of each)",
                 hint="one float running sum loses digits over a million terms: keep 16 partial sums, for the sum of x "
                      "and for the sum of the squared deviations")
    far = (100.0 + np.random.default_rng(12).standard_normal((8, 4096))).astype(np.float32)
    checks.close(value("standardize_rows of 8 rows of 100 + N(0, 1)", lambda: standardize_rows(jnp.asarray(far))),
                 standardized(far), **STD_TOL, what="standardize_rows of 8 rows of 4096 values 100 + N(0, 1)",
                 hint="mean(x**2) - mean(x)**2 loses every digit when the mean is far from 0: compute the mean first, "
                      "then sum the squares of x - mean")
    flat = np.repeat(np.array([[7.0], [0.7], [100.3]], np.float32), 1000, axis=1)
    checks.close(value("standardize_rows of rows of equal values", lambda: standardize_rows(jnp.asarray(flat))),
                 np.zeros((3, 1000), np.float32), **STD_TOL, what="standardize_rows of 3 rows of 1000 equal values (7, 0.7, 100.3)",
                 hint="a row of equal values has variance 0 and gives zeros, but the float sum of 1000 copies of 0.7 is not "
                      "1000 * 0.7: sum x - x[0], exactly 0 there, and take x[0] + that sum / n as the mean")
    empty = value("standardize_rows of a (3, 0) array (rows of length 0)", lambda: standardize_rows(jnp.zeros((3, 0), jnp.float32)),
                  hint="any row length, 0 included: no division by the row length in Python (the handler can return at once)")
    checks.equal(None if empty is None else tuple(empty.shape), (3, 0), what="the shape of standardize_rows of a (3, 0) array")
    one_row = np.random.default_rng(14).standard_normal(37).astype(np.float32)
    checks.close(value("standardize_rows of a 1-D array of 37", lambda: standardize_rows(jnp.asarray(one_row)),
                       hint="a 1-D x is one row: bind ffi::Buffer<ffi::F32> (any rank), not a BufferR2"),
                 standardized(one_row), **STD_TOL, what="standardize_rows of a 1-D array of 37",
                 hint="a 1-D x is one row of length x.shape[-1], and comes back 1-D")
    x4 = np.random.default_rng(18).standard_normal((2, 3, 2, 5)).astype(np.float32)
    checks.close(value("standardize_rows of a (2, 3, 2, 5) array", lambda: standardize_rows(jnp.asarray(x4))),
                 standardized(x4), **STD_TOL, what="standardize_rows of a (2, 3, 2, 5) array",
                 hint="rows is the product of every axis but the last, x.element_count() / n, for any number of axes")
    checks.close(value("standardize_rows(x, 0.5)", lambda: standardize_rows(jnp.asarray(r1), 0.5)), standardized(r1, 0.5),
                 **STD_TOL, what="standardize_rows(x, eps=0.5) of the 3 rows of 1000",
                 hint="eps goes inside the square root, added to the variance")
    checks.close(value("standardize_rows(x, np.float32(0.25))", lambda: standardize_rows(jnp.asarray(r1), np.float32(0.25)),
                       hint="convert eps to the type your handler's Attr declares (np.float32(eps) for Attr<float>)"),
                 standardized(r1, 0.25), **STD_TOL, what="standardize_rows(x, eps=np.float32(0.25)) of the 3 rows of 1000")
    checks.equal(value("the lowered program of jax.jit(standardize_rows)", lambda: lowered_counts(standardize_rows, jnp.asarray(r1))),
                 ONE_CALL, what="what the lowered program of jax.jit(standardize_rows) holds (one custom call of your "
                                "FFI target, nothing else)",
                 hint="one ffi_call of a target you registered; no jnp around it, no callback, none of the chapter's targets")
    v = np.random.default_rng(13).standard_normal((4, 2, 5)).astype(np.float32)
    checks.close(value("vmap(standardize_rows, in_axes=1) of a (4, 2, 5) array",
                       lambda: jax.vmap(standardize_rows, in_axes=1)(jnp.asarray(v)),
                       hint='ffi_call needs a vmap_method, e.g. vmap_method="broadcast_all"'),
                 standardized(np.moveaxis(v, 1, 0)), **STD_TOL, what="vmap(standardize_rows, in_axes=1) of a (4, 2, 5) array")
    many = jnp.asarray(np.random.default_rng(15).standard_normal((4096, 256), dtype=np.float32))
    checks.equal(value("the tasks standardize_rows hands to XLA's pool", lambda: tasks_scheduled(lambda: standardize_rows(many))),
                 0, what="how many tasks standardize_rows handed to XLA's thread pool, on 4096 rows of 256",
                 hint="this kernel runs on the calling thread: no .Ctx<ffi::ThreadPool>(), no pool.Schedule")
    checks.equal(value("the thread-starting functions standardize_rows's library imports",
                       lambda: thread_starters(standardize_rows, jnp.asarray(r1))), [],
                 what="the functions that start threads (std::thread, pthread_create, OpenMP) which the library of the "
                      "handler in jax.jit(standardize_rows) imports",
                 hint="this kernel runs on the thread that calls the handler: no std::thread, no #pragma omp, no -fopenmp")
    checks.equal(value("the threads that read x in jax.jit(standardize_rows)",
                       lambda: threads_reading(jax.jit(standardize_rows), (1024, 1024))),
                 "x was read by threads running before the call",
                 what="which threads read x in a call of jax.jit(standardize_rows) on 1024 rows of 1024",
                 hint="this kernel runs on the thread that calls the handler: no std::thread of your own")
    fast = jax.jit(standardize_rows)
    for shape in ((1024, 1024), (256, 4096)):
        x = jnp.asarray(np.random.default_rng(shape[0]).standard_normal(shape, dtype=np.float32))
        checks.equal(value(f"timing jax.jit(standardize_rows) on {shape[0]} rows of {shape[1]}", lambda: speed(fast, x, 4.0)),
                     "at most 4x the plain pass",
                     what=f"the median time of jax.jit(standardize_rows) on {shape[0]} rows of {shape[1]}, over a plain pass "
                          f"over the same bytes (y = 2 * x on the calling thread), the two timed in turns",
                     hint="keep 16 independent partial sums so that the compiler vectorises the sums (section 3), and "
                          "build with -O3 -march=native: a single chain of additions waits for each addition")


# --- Exercise 2 ----------------------------------------------------------------------------------------------------

#: Every array an Exercise 2 call returned, kept until the checks end: a task still running writes into live memory.
ALIVE: list[Any] = []


def within(seconds: float, thunk: Callable[[], Any]) -> Any:
    """thunk()'s result, run on a thread of its own; a TimeoutError if it has not returned after `seconds` (the
    thread is left waiting: a call that never returns cannot be stopped, and the kernel needs a restart)."""
    box: dict[str, Any] = {}

    def run():
        try:
            box["result"] = thunk()
        except BaseException as error:  # handed to the caller, as if thunk() had raised it there
            box["error"] = error

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise TimeoutError(f"the call had not returned after {seconds:g} s: a handler waiting for a wake-up that was "
                           "lost (a task notified without the waiter's mutex), or for a task that never ran; restart "
                           "the kernel after fixing it")
    if "error" in box:
        raise box["error"]
    return box.get("result")


def call(fn: Callable, x: Any, s: Any) -> np.ndarray:
    """fn(x, s), copied to NumPy the moment the call returns; the arrays stay alive in ALIVE."""
    x, s = jnp.asarray(x), jnp.asarray(s)
    y = within(60, lambda: jax.block_until_ready(fn(x, s)))
    out = np.array(y, copy=True)
    ALIVE.append((y, s))
    return out


def in_place(scale_rows_inplace: Callable, shape: tuple[int, ...]) -> dict[str, Any]:
    """Whether scale_rows_inplace deleted x, and how many bytes its result lies from x's old address."""
    x = jnp.asarray(np.arange(np.prod(shape), dtype=np.float32).reshape(shape))
    address = x.unsafe_buffer_pointer()
    s = jnp.full(shape[:-1], 2.0, jnp.float32)
    y = jax.block_until_ready(scale_rows_inplace(x, s))
    ALIVE.append((y, s))
    return {"x deleted": bool(x.is_deleted()), "moved by": y.unsafe_buffer_pointer() - address}


def x_kept(scale_rows: Callable, x: np.ndarray, s: np.ndarray) -> dict[str, Any]:
    """Whether scale_rows(x, s), called as it is, deleted the caller's x, and whether it returned x * s."""
    x_dev, s_dev = jnp.asarray(x), jnp.asarray(s)
    y = jax.block_until_ready(scale_rows(x_dev, s_dev))
    ALIVE.append((y, x_dev, s_dev))
    right = np.allclose(np.asarray(y), x * s[..., None], rtol=1e-6, atol=1e-6)
    return {"x deleted": bool(x_dev.is_deleted()), "result": "x * s[..., None]" if right else "other values"}


def late_results(scale_rows_inplace: Callable, shape: tuple[int, ...], seed: int, stalls: int = 3,
                 seconds: float = 30.0, stall_ms: int = 40) -> str:
    """Calls of scale_rows_inplace, each on the result of the one before with every scale -1, while every pool task
    that has run for 20 µs stalls for `stall_ms`, until `stalls` calls had a task stall (or `seconds` passed). Each
    result is copied the moment its call returns and compared whole with what it must be. A handler that returns
    once every chunk is claimed, not done, returns while a stalled task is still in its chunk: the copy misses
    rows, on every such call. Said in words. With one CPU the pool has no other thread: nothing to race."""
    if pool_threads() == 1:
        return "every call returned with every row written, also when a pool task stalled in its chunk"
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    y = jax.block_until_ready(jnp.asarray(x))
    s = jnp.full(shape[:-1], -1.0, jnp.float32)
    stalled = late = calls = 0
    recent: list[Any] = []
    deadline = time.monotonic() + seconds
    with watched_pool(stall_after_us=20, stall_us=stall_ms * 1000) as counters:
        while stalled < stalls and time.monotonic() < deadline:
            before = counters["stalled"]()
            y = scale_rows_inplace(y, s)
            calls += 1
            copy = np.array(y, copy=True)   # at once: a stalled task may still write for stall_ms
            late += not np.array_equal(copy, -x if calls % 2 else x)
            stalled += counters["stalled"]() > before
            recent = recent[-3:] + [y]
            if late:
                break
    ALIVE.extend((s, *recent))
    if late:
        return f"{late} of {calls} calls returned before every row was written (a pool task had stalled in its chunk)"
    if stalled == 0:
        return f"no pool task ran for 20 µs during {calls} calls"
    return "every call returned with every row written, also when a pool task stalled in its chunk"


def pool_share(scale_rows: Callable, shape: tuple[int, ...], calls: int, seed: int) -> str:
    """Who did the work of `calls` calls of jax.jit(scale_rows, donate_argnums=0), each on the result of the one
    before: the CPU time of the tasks the handler handed to XLA's pool, against that and the calling thread's, said
    in words (at least a tenth counts as a part). Donated here, so that no copy of x (a scale_rows_inplace without
    donation) counts as the calling thread's work. Each task is started before the calling thread goes on; still, on a
    busy machine the calling thread may take every row first, so up to eight rounds (or 30 s) are measured."""
    if pool_threads() == 1:
        return "XLA's pool threads ran part of the rows"  # one CPU: no other thread to hand rows to
    step = jax.jit(scale_rows, donate_argnums=0)
    rng = np.random.default_rng(seed)
    y = jax.block_until_ready(jnp.asarray(rng.standard_normal(shape).astype(np.float32)))
    s = jnp.asarray(rng.uniform(0.9, 1.1, shape[:-1]).astype(np.float32))
    y = jax.block_until_ready(step(y, s))
    scheduled, deadline = 0, time.monotonic() + 30
    for _ in range(8):
        if time.monotonic() > deadline:
            break
        # pool.Schedule returns only once a pool thread has started the task: the task is running when the calling
        # thread goes on, so that a busy machine does not leave it waiting until the caller took every row.
        with watched_pool(wait_for_start_us=100_000) as counters:
            start = time.thread_time_ns()
            for _ in range(calls):
                y = jax.block_until_ready(step(y, s))
            caller = time.thread_time_ns() - start
            pool, scheduled = counters["cpu_ns"](), scheduled + counters["scheduled"]()
        ALIVE.append((y, s))
        if pool >= 0.1 * (pool + caller):
            return "XLA's pool threads ran part of the rows"
    if scheduled == 0:
        return "the handler handed no task to XLA's pool"
    return "the calling thread ran (nearly) every row"


def concurrent_mixups(scale_rows: Callable, shape: tuple[int, ...], threads: int, calls: int) -> int:
    """How many calls of jax.jit(scale_rows), `calls` in each of `threads` Python threads running at once, each
    thread with its own s, returned something other than x * s for their own s. The first two calls to hand a task
    to XLA's pool wait there for each other (`pool_meet`): two calls are then certainly inside their handlers at
    once, each past what it did before it scheduled, so state they share is overwritten before it is read."""
    rng = np.random.default_rng(43)
    x = rng.standard_normal(shape).astype(np.float32)
    scales = [rng.uniform(1.0 + t, 1.5 + t, shape[:-1]).astype(np.float32) for t in range(threads)]
    fn, xj, sj = jax.jit(scale_rows), jnp.asarray(x), [jnp.asarray(s) for s in scales]
    call(fn, xj, sj[0])
    results: list[list[Any]] = [[] for _ in range(threads)]

    def work(t):
        for _ in range(calls):
            results[t].append(fn(xj, sj[t]))

    workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    with watched_pool(meet=2):
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    ALIVE.extend(results)
    return sum(not np.array_equal(np.asarray(y), x * scales[t][..., None]) for t in range(threads) for y in results[t])


def release() -> None:
    """Free what the calls returned (every watched task has ended: `watched_pool` waited for them)."""
    ALIVE.clear()


_CHILD_START = r'''
import ctypes, functools, math, os, re, sys, threading, time
from functools import partial
import jax, jax.numpy as jnp, numpy as np
import grader
from grader import builder, checks
from grader.selfchecks import ch12 as selfcheck
'''

_CHILD_ANSWER = r'''
import ast
answer = dict(globals())   # the imports above, as the notebook's first cell makes them
constants, cell = sys.stdin.read().split("\0", 1)
answer.update(ast.literal_eval(constants))   # the notebook's plain constants (FAST_FLAGS, say), which the cell may use
exec(compile(cell, "<your answer cell>", "exec"), answer)   # as the notebook ran it: your build, your wrapper
scale = jax.jit(answer["scale_rows"])
'''

# Not donated, as jax.jit(scale_rows) runs: calls from several threads then hold every pool thread at once, each
# waiting for its own tasks if the handler's thread does none of the rows.
_THREADS_CHILD = _CHILD_START + _CHILD_ANSWER + r'''
s = jnp.full(4096, -1.0, jnp.float32)
jax.block_until_ready(scale(jnp.ones((4096, 1024), jnp.float32), s))
def work():
    y = jnp.ones((4096, 1024), jnp.float32)
    for _ in range(30):
        y = scale(y, s)
    jax.block_until_ready(y)
workers = [threading.Thread(target=work) for _ in range(max(2, selfcheck.pool_threads()))]
for w in workers:
    w.start()
for w in workers:
    w.join()
print("finished")
'''

# Every build of the answer cell with AddressSanitizer added to its flags (the course's own libraries as they are),
# and every pool task started 20 ms late: a task that finds the handler returned, and reads its stack, is reported.
_SANITIZED_CHILD = _CHILD_START + r'''
selfcheck.pool_threads()   # the pool watch, built and loaded before the answer's builds are sanitized
_build = builder.build
def _sanitized(*args, flags=(), **kwargs):
    return _build(*args, flags=(*flags, "-fsanitize=address", "-fno-omit-frame-pointer"), **kwargs)
grader.build = builder.build = _sanitized
''' + _CHILD_ANSWER + r'''
x, s = jnp.ones((1024, 256), jnp.float32), jnp.full(1024, 2.0, jnp.float32)
jax.block_until_ready(scale(x, s))
def work():
    for _ in range(10):
        jax.block_until_ready(scale(x, s))
with selfcheck.watched_pool(start_late_us=20000):
    workers = [threading.Thread(target=work) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
print("finished")
'''


# The answer's C++ with its waits and locks changed by cpp/late_wait.cc (preloaded), in three phases: every wait on a
# condition variable held for 1 s before it sleeps; then every lock the handler's own thread takes made 400 ms late;
# then every other wait returning at once. Throughout, pool.Schedule returns once its task has started, so the task
# holds rows before the caller takes its own, and every pool task that has run for 20 µs stalls for 300 ms, in the
# middle of its rows. So the last rows are done while the caller holds its mutex in a held wait (a task that notifies
# without that mutex wakes no one); while the caller is on its way to the mutex after checking that work is left (a
# caller that then waits without checking again sleeps for ever); and while the caller's wait has returned early (a
# caller that does not check again returns with rows not written). Each phase makes calls until three had a task
# stall (or 10 s passed), each call with a new scale, so that a row left unwritten shows.
_WAKE_UPS_CHILD = _CHILD_START + r'''
late = ctypes.CDLL(os.environ["JBJ_LATE_WAIT"])   # the library LD_PRELOAD loaded, already in this process
late.late_wait_mode.argtypes = [ctypes.c_int, ctypes.c_long, ctypes.c_int]
selfcheck.pool_threads()   # the pool watch, built and loaded before the answer's builds are registered
late.late_wait_task_probe(ctypes.cast(selfcheck._watch()["pool_watch_in_task"], ctypes.c_void_p))
_build = builder.build
def _registered(*args, **kwargs):
    lib = _build(*args, **kwargs)
    late.late_wait_library(str(lib.path).encode())
    return lib
grader.build = builder.build = _registered
''' + _CHILD_ANSWER + r'''
x = jnp.ones((2048, 4096), jnp.float32)
jax.block_until_ready(scale(x, jnp.ones(2048, jnp.float32)))
for phase, mode in (("held waits", (1, 0, 0)), ("late locks", (0, 400000, 0)), ("spurious wake-ups", (0, 0, 1))):
    print("phase", phase, flush=True)
    late.late_wait_mode(*mode)
    calls, deadline = 0, time.monotonic() + 10
    with selfcheck.watched_pool(stall_after_us=20, stall_us=300000, wait_for_start_us=100000) as counters:
        while (calls < 5 or counters["stalled"]() < 3) and time.monotonic() < deadline:
            factor = float(calls + 2)
            y = jax.block_until_ready(scale(x, jnp.full(2048, factor, jnp.float32)))
            unwritten = int(np.count_nonzero(np.asarray(y) != factor))
            if unwritten:
                time.sleep(0.5)   # the stalled task finishes before this process ends
                sys.exit(f"in the {phase}, a call returned before its rows were written: {unwritten} values not scaled")
            calls += 1
late.late_wait_mode(1, 0, 0)
print("finished", late.late_waits_held(), late.late_locks_made(), late.late_spurious_returns())
'''


def answer_cell(fn: Callable, names: tuple[str, ...]) -> str | None:
    """The source of the cell that defined the function `fn` and binds every name of `names` at its top level, or
    None: the lines IPython keeps of that cell (kept whether or not the cell went into the history), else the last
    such cell in IPython's history."""
    def defines_all(source: str) -> bool:
        return all(re.search(rf"^(def\s+{name}\s*\(|{name}\s*=)", source, re.M) for name in names)

    while isinstance(fn, partial):
        fn = fn.func
    code = getattr(inspect.unwrap(fn), "__code__", None) if callable(fn) else None
    if code is not None:
        source = "".join(linecache.getlines(code.co_filename))
        if defines_all(source):
            return source
    try:
        shell = get_ipython()  # noqa: F821 (IPython's, in a notebook)
    except NameError:
        shell = None
    for source in reversed(shell.user_ns.get("In", []) if shell is not None else []):
        if defines_all(source):
            return source
    return None


def plain_constants(fn: Callable) -> dict[str, Any]:
    """The names of the notebook that defined `fn` bound to plain constants (numbers, strings, and tuples or lists of
    them), which an answer cell may use (the chapter's FAST_FLAGS, say): what a process of its own is given of them."""
    while isinstance(fn, partial):
        fn = fn.func
    names = getattr(inspect.unwrap(fn), "__globals__", {}) if callable(fn) else {}

    def plain(value):
        if isinstance(value, (tuple, list)):
            return all(plain(v) for v in value)
        return isinstance(value, (str, int, float, bool)) and not isinstance(value, np.generic)

    return {name: value for name, value in names.items() if not name.startswith("_") and plain(value)}


#: What each report of the sanitized run most likely means.
SANITIZER_HINTS = {
    "stack-use-after-return": "a pool task that starts after the handler returned still reads the handler's locals (a lambda "
                              "capturing them by reference, [&]): give the tasks state they share by reference count "
                              "(std::shared_ptr), as ParallelFor does",
    "heap-use-after-free": "a pool task still runs after the handler returned and touches memory XLA has freed: wait until "
                           "every row is done (not only handed out) before the handler returns",
    "did not finish": "calls running at once can hold every pool thread: the handler's own thread must take rows too",
}


def sanitizer_hint(said: str | None) -> str:
    """The hint for what the sanitized run said."""
    said = said or ""
    return next((hint for key, hint in SANITIZER_HINTS.items() if key in said),
                "the sanitized run is your answer cell run again in a process of its own: it may use the notebook's "
                "constants, but no other name the notebook defines outside that cell")


def answer_in_a_process(scale_rows: Callable, child: str, seconds: float, env: dict[str, str] | None = None,
                        stuck: str = "calls running at once wait for one another") -> str:
    """The answer cell run again by the script `child` in a process of its own, so that a deadlock or a crash costs
    that process, not this kernel. Returns "finished", "did not finish in N s", what AddressSanitizer reported, or
    what failed."""
    source = answer_cell(scale_rows, ("scale_rows_cc", "scale_rows"))
    if source is None:
        return "failed: no cell run in this kernel defines both scale_rows_cc and scale_rows (keep them in the answer cell)"
    try:
        run = subprocess.run([sys.executable, "-c", child], input=repr(plain_constants(scale_rows)) + "\0" + source,
                             env=env, capture_output=True, text=True, timeout=seconds)
    except subprocess.TimeoutExpired as err:
        printed = err.stdout.decode() if isinstance(err.stdout, bytes) else (err.stdout or "")
        phases = re.findall(r"^phase (.+)$", printed, re.M)
        return f"did not finish in {seconds:g} s{f', in the {phases[-1]}' if phases else ''} ({stuck})"
    said = re.search(r"ERROR: AddressSanitizer: ([\w-]+)", run.stderr)
    if said:
        return f"AddressSanitizer: {said.group(1)}"
    if run.returncode != 0 or "finished" not in run.stdout:
        lines = (re.sub(r"\x1b\[[0-9;]*m", "", run.stderr).strip() or f"exit status {run.returncode}").splitlines()
        return f"failed: {lines[-1][:120]}"
    return "finished"


def calls_from_threads_finish(scale_rows: Callable, seconds: float = 30) -> str:
    """Whether 30 calls each of jax.jit(scale_rows) on 4096 rows of 1024, from as many Python threads at once as XLA's
    pool has threads, finish, in a process of their own (the answer cell's C++, its flags, its wrapper)."""
    return answer_in_a_process(scale_rows, _THREADS_CHILD, seconds)


def wake_ups_arrive(scale_rows: Callable, seconds: float = 75) -> str:
    """Whether calls of jax.jit(scale_rows) on 2048 rows of 4096 return with every row written, in a process of their
    own in which every pool task starts before the caller goes on and stalls for 300 ms in its rows, and the waits and
    locks of the answer's C++ are changed by cpp/late_wait.cc in three phases (_WAKE_UPS_CHILD): waits held for 1 s
    before they sleep, then the caller's locks taken 400 ms late, then every other wait returning at once. A wake-up
    that can be lost then is, and a wait that is not checked again returns early."""
    if pool_threads() == 1:
        return "finished"   # one CPU: no pool task, no wake-up to lose
    shim = build("late_wait.cc", flags=("-O2", "-pthread"))
    return answer_in_a_process(scale_rows, _WAKE_UPS_CHILD, seconds, env={
        **os.environ, "LD_PRELOAD": str(shim.path), "JBJ_LATE_WAIT": str(shim.path)},
        stuck="a call waits for a wake-up that never comes")


#: What to do about each phase of wake_ups_arrive that went wrong.
WAKE_UP_HINTS = {
    "held waits": "a wake-up was lost: the task that finishes the last chunk must take the waiter's mutex before it "
                  "notifies (ParallelFor's { std::lock_guard<std::mutex> lock(state->mutex); } before notify_one), or it "
                  "can notify between the waiter's check and its sleep",
    "late locks": "a wake-up was lost: the caller checked that work was left, the last task notified before the caller "
                  "took the mutex, and the caller then waited without checking again. Check under the mutex, in the "
                  "wait itself: all_done.wait(lock, [&] { return done == chunks; })",
    "spurious wake-ups": "a wait can return with no notify (POSIX allows it): wait until the work is done, "
                         "all_done.wait(lock, predicate) or a while loop around wait, not one wait",
}


#: A call that returned early in the held waits lost no wake-up: it did not wait for every chunk.
RETURNED_EARLY = ("a call returned while a pool task was still in its chunk: wait until every chunk is done (a counter "
                  "of chunks done, under the mutex), not only claimed, and keep nothing a task uses on the handler's stack")


def wake_up_hint(said: str) -> str:
    """The hint for what wake_ups_arrive said."""
    if "returned before its rows were written" in said and "in the held waits" in said:
        return RETURNED_EARLY
    found = next((hint for phase, hint in WAKE_UP_HINTS.items() if f"in the {phase}" in said), None)
    if found:
        return found
    if said.startswith("did not finish"):
        return WAKE_UP_HINTS["held waits"]
    return ("the check runs the answer cell again, alone, in a process of its own: it must define scale_rows_cc, build "
            "it and define scale_rows (see what the check said)")


def _shared_library(name: str) -> str | None:
    """The real path of the compiler's shared library `name` (libasan.so, libstdc++.so), or None."""
    try:
        found = subprocess.run(["g++", f"-print-file-name={name}"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return os.path.realpath(found) if os.path.isabs(found) and os.path.exists(found) else None


def sanitized_run(scale_rows: Callable, seconds: float = 90) -> str:
    """The answer cell run again in a process of its own, its C++ built with AddressSanitizer, which reports any read
    or write of memory the handler does not own (its stack after it returned, past a buffer's end): 40 calls of
    jax.jit(scale_rows) on 1024 rows of 256 from 4 Python threads at once, every pool task started 20 ms late."""
    asan, cxx = _shared_library("libasan.so"), _shared_library("libstdc++.so")
    if asan is None or cxx is None:
        return "failed: this machine's g++ has no AddressSanitizer library (libasan): install gcc's, then run this check again"
    return answer_in_a_process(scale_rows, _SANITIZED_CHILD, seconds, env={
        **os.environ, "LD_PRELOAD": f"{asan} {cxx}",
        "ASAN_OPTIONS": "detect_leaks=0:detect_stack_use_after_return=1:halt_on_error=1"})


def exercise2(scale_rows, scale_rows_inplace) -> None:
    """scale_rows: right values for any number of axes and rows; XLA's pool does part of the work; every row is written
    before the call returns, also when a pool task stalls; no state between calls, nothing read from a returned
    handler's stack (AddressSanitizer, tasks that start late, concurrent callers), no deadlock; in place."""
    xs = np.random.default_rng(20).standard_normal((1000, 64)).astype(np.float32)
    ss = np.random.default_rng(21).standard_normal(1000).astype(np.float32)
    checks.close(value("scale_rows_inplace of 1000 rows of 64", lambda: call(scale_rows_inplace, xs, ss)), xs * ss[:, None],
                 what="scale_rows_inplace of 1000 rows of 64",
                 hint="wait for every task you scheduled before the handler returns: the result is read as soon as it does")
    checks.close(value("scale_rows_inplace of a single row", lambda: call(scale_rows_inplace, xs[:1], ss[:1])),
                 xs[:1] * ss[:1, None], what="scale_rows_inplace of a single row",
                 hint="with fewer rows than threads, some threads get no rows")
    x3 = np.random.default_rng(22).standard_normal((3, 5, 7)).astype(np.float32)
    s3 = np.random.default_rng(23).standard_normal((3, 5)).astype(np.float32)
    checks.close(value("scale_rows_inplace of a (3, 5, 7) array", lambda: call(scale_rows_inplace, x3, s3)),
                 x3 * s3[..., None], what="scale_rows_inplace of a (3, 5, 7) array",
                 hint="rows are every axis but the last: 15 rows of 7 here")
    checks.close(value("scale_rows_inplace of a 1-D x and a 0-d s", lambda: call(scale_rows_inplace, x3[0, 0], s3[0, 0])),
                 x3[0, 0] * s3[0, 0], what="scale_rows_inplace of a 1-D x of 7 and a 0-d s",
                 hint="a 1-D x is one row and comes back 1-D: hand the handler x as it is (no atleast_2d), with s of shape x.shape[:-1]")
    kept = value("scale_rows(x, s) called as it is (no jit around it)", lambda: x_kept(scale_rows, x3, s3))
    checks.equal(kept, {"x deleted": False, "result": "x * s[..., None]"},
                 what="scale_rows(x, s) of the (3, 5, 7) array, called as it is: whether it deleted the caller's x, and "
                      "what it returned", hint="only scale_rows_inplace donates x: scale_rows itself (no donate_argnums "
                                               "on it) leaves the caller's x alive")
    woke = wake_ups_arrive(scale_rows)
    checks.equal(woke, "finished",
                 what="calls of jit(scale_rows) on 2048 rows of 4096 in a process of their own, pool tasks stalled for "
                      "300 ms, your C++'s waits held 1 s, then its caller's locks 400 ms late, then every other wait "
                      "woken at once (wake_ups_arrive): whether each returned within 75 s, every row written",
                 hint=wake_up_hint(woke))
    said = sanitized_run(scale_rows)
    checks.equal(said, "finished",
                 what="40 calls of jax.jit(scale_rows) from 4 threads at once, the C++ built with AddressSanitizer and "
                      "every pool task started 20 ms late (in a process of their own): what AddressSanitizer reported",
                 hint=sanitizer_hint(said))
    checks.equal(calls_from_threads_finish(scale_rows), "finished",
                 what="whether 30 calls each of jax.jit(scale_rows) on 4096 rows of 1024, from as many Python threads at "
                      "once as XLA's pool has threads (in a process of their own), finished within 30 s",
                 hint="the handler's own thread must take rows too, as ParallelFor's caller does: calls running at once "
                      "can hold every pool thread, each waiting for tasks queued behind the others'")
    checks.equal(value("timing who ran the rows", lambda: pool_share(scale_rows, (4096, 1024), calls=10, seed=25)),
                 "XLA's pool threads ran part of the rows",
                 what="who did the work of 10 calls on 4096 rows of 1024 (the CPU time of the tasks handed to XLA's pool)",
                 hint="hand chunks of rows to pool.Schedule(...) (or jbj_fast::ParallelFor with a schedule function that calls "
                      "it), not a loop on the calling thread or std::threads of your own")
    for shape, seed in (((2048, 4096), 24), ((1024, 8192), 26)):
        checks.equal(value("calls while pool tasks stall", lambda: late_results(scale_rows_inplace, shape, seed)),
                     "every call returned with every row written, also when a pool task stalled in its chunk",
                     what=f"calls of scale_rows_inplace on {shape[0]} rows of {shape[1]} while a pool task that has run for "
                          "20 µs stalls, each result read whole the moment its call returns",
                     hint="the handler must wait until every row it handed to the pool is done, not only claimed "
                          "(ParallelFor counts the chunks done), before it returns")
    checks.equal(value("calls from 8 Python threads", lambda: concurrent_mixups(scale_rows, (1024, 256), threads=8, calls=25)), 0,
                 what="how many of 200 calls of jax.jit(scale_rows) from 8 Python threads at once (each thread with its "
                      "own s; the first two held at XLA's pool until both are inside their handlers) gave other results "
                      "than x * s",
                 hint="keep no state between calls (no static or global copy of s): each call reads its own buffers")
    checks.equal(value("scale_rows_inplace(x, s) of a (256, 32) x", lambda: in_place(scale_rows_inplace, (256, 32))),
                 {"x deleted": True, "moved by": 0},
                 what="scale_rows_inplace(x, s): whether x was deleted, and how far the result lies from x's old address",
                 hint="ffi_call(..., input_output_aliases={0: 0}) and jax.jit(scale_rows, donate_argnums=0)")
    programs = {}
    for shape in ((256, 32), (7,), (3, 5, 7)):
        compiled = value(f"compiling scale_rows_inplace for x of shape {shape}", lambda: scale_rows_inplace.lower(
            jnp.zeros(shape, jnp.float32), jnp.zeros(shape[:-1], jnp.float32)).compile().as_text()) or "ENTRY"
        programs[str(shape)] = {"custom calls": compiled.count(" custom-call("),
                                "copies": compiled[compiled.index("ENTRY"):].count(" copy(")}
    checks.equal(programs, dict.fromkeys(programs, {"custom calls": 1, "copies": 0}),
                 what="the compiled program of scale_rows_inplace for x of each shape (your custom call, with no copy "
                      "before or after it)",
                 hint="a copy after the call means no input_output_aliases, or a reshape around the call (hand the "
                      "handler x as it is, any number of axes); a copy before it means no donate_argnums")
    release()
    x4 = np.random.default_rng(26).standard_normal((2, 3, 4, 5)).astype(np.float32)
    s4 = np.random.default_rng(27).standard_normal((2, 3, 4)).astype(np.float32)
    checks.close(value("scale_rows_inplace of a (2, 3, 4, 5) array", lambda: call(scale_rows_inplace, x4, s4)),
                 x4 * s4[..., None], what="scale_rows_inplace of a (2, 3, 4, 5) array",
                 hint="rows is the product of every axis but the last (24 rows of 5 here), for any number of axes")


# --- Exercise 3 ----------------------------------------------------------------------------------------------------

def l2_normalized(x: Any, eps: float = 1e-6) -> np.ndarray:
    """x / sqrt(sum(x**2) + eps) of each row, in float64, rounded to float32."""
    x = np.asarray(x, np.float64)
    return (x / np.sqrt(np.sum(x * x, axis=-1, keepdims=True) + eps)).astype(np.float32)


def l2_grad(x: Any, w: Any, eps: float = 1e-6) -> np.ndarray:
    """d/dx of sum(l2_normalize(x) * w) in float64, rounded to float32: w / r - x (x . w) / r**3 per row."""
    x, w = np.asarray(x, np.float64), np.asarray(w, np.float64)
    r = np.sqrt(np.sum(x * x, axis=-1, keepdims=True) + eps)
    return (w / r - x * np.sum(x * w, axis=-1, keepdims=True) / r ** 3).astype(np.float32)


def weighted(l2_normalize: Callable, eps: float | None = None) -> Callable:
    """The loss sum(l2_normalize(x) * w) (with eps, when given): its gradient is the backward pass with ct_y = w."""
    if eps is None:
        return lambda x, w: jnp.sum(l2_normalize(x) * w)
    return lambda x, w: jnp.sum(l2_normalize(x, eps) * w)


def residuals(l2_normalize: Callable, x: Any) -> list[str]:
    """What the VJP of l2_normalize saves for its backward pass, each as its type and whether it is x itself."""
    from jax._src.ad_checkpoint import saved_residuals

    return [f"{aval.str_short()} {'x itself' if 'argument' in said else 'computed: ' + said}"
            for aval, said in saved_residuals(l2_normalize, x)]


def compiled_targets(jitted: Callable, *args: Any) -> list[str]:
    """The FFI targets a compiled program still calls, sorted (XLA has removed the dead ones)."""
    return sorted(re.findall(r'custom_call_target="([\w.]+)"', jitted.lower(*args).compile().as_text()))


def donated_gradient(l2_normalize: Callable, x: Any, w: np.ndarray) -> dict[str, Any]:
    """jax.jit(jax.grad(loss), donate_argnums=1) of the weighted loss: its compiled entry computation, whether w was
    deleted, and how far the gradient lies from w's old address."""
    g = jax.jit(jax.grad(weighted(l2_normalize)), donate_argnums=1)
    ops = entry_ops(g, x, jnp.asarray(w))
    gift = jnp.asarray(w)
    address = gift.unsafe_buffer_pointer()
    result = jax.block_until_ready(g(x, gift))
    return {"entry": ops, "w deleted": bool(gift.is_deleted()), "moved by": result.unsafe_buffer_pointer() - address}


GRAD_TOL = {"rtol": 1e-4, "atol": 1e-5}


def exercise3(l2_normalize) -> None:
    """l2_normalize: values and gradients against float64 for any number of axes and any eps, under jit and vmap; x the
    only residual (the compiled gradient calls the backward target alone); ct_x written over a donated ct_y; no pool."""
    x = np.random.default_rng(30).standard_normal((8, 100)).astype(np.float32)
    w = np.cos(np.arange(800, dtype=np.float32)).reshape(8, 100)
    checks.close(value("jax.jit(l2_normalize) of 8 rows of 100", lambda: jax.jit(l2_normalize)(jnp.asarray(x)),
                       hint="eps is an attribute, a Python number: nondiff_argnums=(1,) keeps it out of tracing, and an "
                            "Attr<float> takes np.float32(eps)"),
                 l2_normalized(x), rtol=2e-6, atol=1e-6, what="jit(l2_normalize) of 8 rows of 100")
    checks.equal(value("the lowered program of jax.jit(l2_normalize)", lambda: lowered_counts(l2_normalize, jnp.asarray(x))),
                 ONE_CALL, what="what the lowered program of jax.jit(l2_normalize) holds (one custom call of your forward "
                                "target, nothing else)",
                 hint="the forward pass is an FFI handler of yours too: no jnp around it, no callback")
    checks.equal(value("the lowered program of jax.vjp(l2_normalize, x)'s output",
                       lambda: lowered_counts(lambda v: jax.vjp(l2_normalize, v)[0], jnp.asarray(x))),
                 ONE_CALL, what="what the lowered program of the output of jax.vjp(l2_normalize, x) holds (the forward "
                                "rule's: one custom call of your forward target, nothing else)",
                 hint="the forward rule computes y with the forward handler too: no jnp in it")
    grad = jax.jit(jax.grad(weighted(l2_normalize)))
    checks.close(value("jit(grad(sum(l2_normalize(x) * w)))", lambda: grad(jnp.asarray(x), jnp.asarray(w)),
                       hint="jax.custom_vjp with nondiff_argnums=(1,) for eps, and defvjp(forward rule, backward rule)"),
                 l2_grad(x, w), **GRAD_TOL, what="the gradient of sum(l2_normalize(x) * cos(arange(800)).reshape(8, 100))",
                 hint="ct_x = ct_y / r - x * (x . ct_y) / r**3 per row, r = sqrt(sum(x**2) + eps): every ct_y value counts")
    checks.equal(value("compiling jit(grad(...))", lambda: len(compiled_targets(grad, jnp.asarray(x), jnp.asarray(w)))), 1,
                 what="how many custom calls the compiled jax.jit(jax.grad(sum(l2_normalize(x) * w))) makes",
                 hint="x is the only residual: the backward handler computes each row's length again from x, so nothing "
                      "reads the forward call's results under grad and XLA drops it")
    checks.equal(value("the residuals jax.vjp of l2_normalize saves", lambda: residuals(l2_normalize, jnp.asarray(x))),
                 ["float32[8,100] x itself"],
                 what="the residuals the VJP of l2_normalize saves for the backward pass, for an x of shape (8, 100) "
                      "(jax._src.ad_checkpoint.saved_residuals)",
                 hint="the forward rule returns (y, x) or (y, (x,)): x alone, nothing computed from it")
    long_x = np.random.default_rng(37).standard_normal((2, 1 << 16)).astype(np.float32)
    checks.close(value("jax.jit(l2_normalize) of 2 rows of 2**16", lambda: jax.jit(l2_normalize)(jnp.asarray(long_x))),
                 l2_normalized(long_x), rtol=2e-6, atol=1e-9, what="jit(l2_normalize) of 2 rows of 2**16 values",
                 hint="one float running sum loses digits over 65536 terms: sum in 16 partial sums (DotLanes)")
    targets = value("compiling jit(grad(...))", lambda: compiled_targets(grad, jnp.asarray(x), jnp.asarray(w))) or []
    lowered = value("lowering jit(l2_normalize)", lambda: re.findall(r"custom_call @([\w.]+)", jax.jit(l2_normalize).lower(jnp.asarray(x)).as_text())) or []
    checks.equal(bool(targets) and targets[0] not in lowered, True,
                 what="whether the call left in the compiled gradient is another target than the forward pass's",
                 hint="the backward rule calls a backward handler of yours; grad must not run the forward handler")
    for eps in (0.5, 0.25):
        checks.close(value(f"l2_normalize(x, {eps})", lambda: l2_normalize(jnp.asarray(x), eps)),
                     l2_normalized(x, eps), rtol=2e-6, atol=1e-6, what=f"l2_normalize(x, {eps}) of the 8 rows of 100 (no grad)",
                     hint="called outside grad, the custom_vjp runs l2_normalize's own body: it must pass eps to the "
                          "forward handler, as the forward rule does")
    checks.close(value("grad with eps=0.5", lambda: jax.grad(weighted(l2_normalize, 0.5))(jnp.asarray(x), jnp.asarray(w))),
                 l2_grad(x, w, 0.5), **GRAD_TOL, what="the gradient of sum(l2_normalize(x, 0.5) * w)",
                 hint="the backward rule gets eps first (nondiff_argnums): pass it on to the backward handler")
    checks.close(value("jax.vjp(lambda v: l2_normalize(v, 0.5), x)", lambda: jax.vjp(lambda v: l2_normalize(v, 0.5), jnp.asarray(x))[0]),
                 l2_normalized(x, 0.5), rtol=2e-6, atol=1e-6, what="the output jax.vjp gives for l2_normalize(x, 0.5) (the forward rule's)",
                 hint="under jax.vjp (and value_and_grad) the forward rule computes the output: pass it eps too")
    x1 = np.random.default_rng(31).standard_normal(37).astype(np.float32)
    w1 = np.random.default_rng(32).standard_normal(37).astype(np.float32)
    checks.close(value("l2_normalize of a 1-D array of 37", lambda: l2_normalize(jnp.asarray(x1)),
                       hint="a 1-D x is one row and comes back 1-D: hand the handlers x as it is"),
                 l2_normalized(x1), rtol=2e-6, atol=1e-6, what="l2_normalize of a 1-D array of 37")
    checks.close(value("grad on a 1-D array of 37", lambda: jax.grad(weighted(l2_normalize))(jnp.asarray(x1), jnp.asarray(w1))),
                 l2_grad(x1, w1), **GRAD_TOL, what="the gradient of sum(l2_normalize(x) * w) for a 1-D x of 37")
    x3 = np.random.default_rng(33).standard_normal((3, 4, 6)).astype(np.float32)
    w3 = np.random.default_rng(34).standard_normal((3, 4, 6)).astype(np.float32)
    checks.close(value("vmap(l2_normalize, in_axes=1) of a (3, 4, 6) array", lambda: jax.vmap(l2_normalize, in_axes=1)(jnp.asarray(x3)),
                       hint='each ffi_call needs a vmap_method, e.g. vmap_method="broadcast_all"'),
                 l2_normalized(np.moveaxis(x3, 1, 0)), rtol=2e-6, atol=1e-6, what="vmap(l2_normalize, in_axes=1) of a (3, 4, 6) array")
    checks.close(value("vmap(grad(...), in_axes=1) of (3, 4, 6) arrays",
                       lambda: jax.vmap(jax.grad(weighted(l2_normalize)), in_axes=1)(jnp.asarray(x3), jnp.asarray(w3)),
                       hint="the backward call needs a vmap_method too"),
                 l2_grad(np.moveaxis(x3, 1, 0), np.moveaxis(w3, 1, 0)), **GRAD_TOL,
                 what="vmap(grad(sum(l2_normalize(x) * w)), in_axes=1) of (3, 4, 6) arrays")
    checks.close(value("vmap(grad(lambda v: l2_normalize(v).sum()))", lambda: jax.vmap(jax.grad(lambda v: l2_normalize(v).sum()))(jnp.asarray(x3)),
                       hint="a cotangent that is not batched reaches the backward call: vmap_method='broadcast_all' handles it"),
                 l2_grad(x3, np.ones_like(x3)), **GRAD_TOL,
                 what="vmap(grad(lambda v: l2_normalize(v).sum())) of a (3, 4, 6) array (the cotangent is not batched)")
    x23 = np.random.default_rng(35).standard_normal((2, 3, 17)).astype(np.float32)
    w23 = np.random.default_rng(36).standard_normal((2, 3, 17)).astype(np.float32)
    gifts = {str(xs.shape): value(f"jax.jit(jax.grad(loss), donate_argnums=1) on x of shape {xs.shape}",
                                  lambda: donated_gradient(l2_normalize, jnp.asarray(xs), ws),
                                  hint="the backward ffi_call declares input_output_aliases={1: 0} when its arguments are "
                                       "(x, ct_y)") or {}
             for xs, ws in ((x, w), (x23, w23), (x1, w1))}
    checks.equal({shape: gift.get("entry") for shape, gift in gifts.items()},
                 dict.fromkeys(gifts, ["parameter", "parameter", "custom-call"]),
                 what="the compiled jax.jit(jax.grad(sum(l2_normalize(x) * w)), donate_argnums=1): its entry computation, "
                      "for x of each shape",
                 hint="one custom call and no copy, for any number of axes: the backward call writes ct_x over ct_y "
                      "(input_output_aliases) as they are (a reshape around the call makes XLA copy), and computes "
                      "everything itself (no jnp around it)")
    checks.equal({shape: {k: gift.get(k) for k in ("w deleted", "moved by")} for shape, gift in gifts.items()},
                 dict.fromkeys(gifts, {"w deleted": True, "moved by": 0}),
                 what="for x of each shape: whether the donated w was deleted, and how far the gradient lies from w's old "
                      "address", hint="ct_x written into ct_y's buffer, which is the donated w")
    big_x = jnp.asarray(np.random.default_rng(31).standard_normal((4096, 256), dtype=np.float32))
    big_w = jnp.cos(jnp.arange(4096 * 256, dtype=jnp.float32)).reshape(4096, 256)
    checks.equal(value("the tasks l2_normalize's handlers hand to XLA's pool",
                       lambda: tasks_scheduled(lambda: (grad(big_x, big_w), jax.jit(l2_normalize)(big_x)))), 0,
                 what="how many tasks the handlers of jit(grad(...)) and jit(l2_normalize) handed to XLA's thread pool, "
                      "on 4096 rows of 256",
                 hint="these kernels run on the calling thread: no .Ctx<ffi::ThreadPool>(), no pool.Schedule")
    checks.equal(value("the thread-starting functions l2_normalize's libraries import",
                       lambda: thread_starters(lambda a, b: (l2_normalize(a), jax.grad(weighted(l2_normalize))(a, b)),
                                               jnp.asarray(x), jnp.asarray(w))), [],
                 what="the functions that start threads (std::thread, pthread_create, OpenMP) which the libraries of the "
                      "handlers of l2_normalize and its gradient import",
                 hint="these kernels run on the thread that calls the handler: no std::thread, no #pragma omp, no -fopenmp")
    checks.equal(value("the threads that read x in jit(l2_normalize) and in jit(grad(...))",
                       lambda: {"forward": threads_reading(jax.jit(l2_normalize), (4096, 256)),
                                "backward": threads_reading(lambda v: grad(v, big_w), (4096, 256))}),
                 dict.fromkeys(("forward", "backward"), "x was read by threads running before the call"),
                 what="which threads read x in a call of jax.jit(l2_normalize) and of the jitted gradient, on 4096 rows "
                      "of 256",
                 hint="these kernels run on the thread that calls the handler: no std::thread of your own")
