"""Chapter 12's kernels against XLA's fused jnp RMSNorm, and against the machine's memory bandwidth.

The main table runs in one fresh Python process: the bandwidth probes first (64 MiB, with XLA's intra-op
thread pool, best run of each, as STREAM reports), then each shape's sides timed in turns, round
after round, each round in a new (seeded) order, with grader.timing (the helper the chapter uses), and
reported as medians. A side's turn is 10 calls in a row, 5 untimed and then 5 timed
(`timing.compare(..., back_to_back=5)`): the first calls after another side's are slower for a while
(notebooks/going_deeper/kernel_measurements.ipynb measures how long), as the caches refill with this side's data and the pool's
threads wake, so each side is timed once it has settled, as if it ran alone, while the turns still
spread the machine's noisy moments over every side. Every side
of a row gets the same threads (XLA's pool). An in-place row times XLA both plainly and with its
input donated, and the kernel is compared with the faster of the two. GB/s counts the bytes a kernel
must move: 8 per element forward (read x, write y), 12 backward (read x and the cotangent, write
the result). The limit is main memory's: a shape that fits in the caches (4096×256 is 4 MiB) can go
past 100 % of it, and an out-of-place 64 MiB call pays for its fresh output's page faults (chapter 12,
section 6: XLA's 4 KiB pages, the kernel's 2 MiB huge pages where the system allows them), which is
why the in-place row is the one the bandwidth goal is about. The in-place rows also time, in the
same rounds, the scale probe over a buffer of the same size (`a = q * a` in place: each float read
and written back once, as the in-place kernel does, with almost no arithmetic); the bandwidth goal
is the kernel's rate as a share of that probe's, the two timed just before the row in rounds of
their own (medians), so both meet the machine at the same moments and no other side's calls
fall between them. The share of the limit (a best run from the start of the process) and the
share in the row's own rounds are shown beside it. Out of place, the kernel writes outputs
of 8 to 32 MiB (the 16 MiB rows) with streaming stores; short rows (up to 256 floats with AVX-512's 16-float vectors) are taken
a vector's width at a time, their sums reduced together and their scales computed in one vector division and
square root (cpp/fast_rms_norm.h, GroupScales), and each
longer row's loop also sums the next row's squares (kernel_measurements.ipynb, section 6); the out-of-place rows are also timed against `y = 2 * x`, a plain
pass over the same bytes, by XLA and on the pool with plain stores and with the kernel's, and their goals
are the kernel's time against the fastest of these passes (the floor the memory sets for a kernel that
reads x and writes y). They also time the installed package's `rms_norm_fast`, with the row loops it
picked for this CPU and with its SSE2 ones. The backward rows
are the gradient of sum(rms_norm(x) * w), whose cotangent is w, timed side by side with `jnp`'s:
*scale saved*, whose forward custom call writes y and each row's scale for the backward one
(`RmsNormFastFwd`, `RmsNormFastBwd`); the kernel's own, whose forward is the plain `RmsNormFast`
(dead under `jax.grad`, so XLA drops it) and whose backward call computes each row's scale again
from x (`RmsNormFastBwdRecompute`); and the same with *ct_y dead*: the caller donates w, and the
backward call writes its result over it (`input_output_aliases`), with no copy and no fresh pages.
That row times `jnp`'s gradient with w donated too and compares with the faster of the two.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_MEASURE = r"""
import ctypes, json, os, resource, sys, time
from functools import partial
repeats, mode = int(sys.argv[1]), sys.argv[2]
if mode == "one-thread":
    # One CPU for this process, before JAX starts: XLA sizes its intra-op pool from the CPUs it
    # may use, so the pool (and the kernel's ParallelFor) gets one thread.
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
import jax, jax.numpy as jnp, numpy as np, grader
from grader import timing

fast = grader.build("fast_rms_norm.cc", flags=("-O3", "-march=native"))
for symbol in ("RmsNormFast", "RmsNormFastFwd", "RmsNormFastBwd", "RmsNormFastBwdRecompute", "StreamRead", "StreamWrite", "StreamTriad", "StreamScale"):
    fast.register_ffi_target("bench." + symbol, symbol)
grader.build("ffi_rms_norm.cc").register_ffi_target("bench.naive", "RmsNorm")
# The scale probe again, with the kernels' stores: streaming where they stream (-DJBJ_PROBE_STREAMS).
grader.build("fast_rms_norm.cc", flags=("-O3", "-march=native", "-DJBJ_PROBE_STREAMS")).register_ffi_target(
    "bench.StreamScaleStreamed", "StreamScale")

def ffi(target, x, **kw):
    return jax.ffi.ffi_call(target, jax.ShapeDtypeStruct(x.shape, x.dtype), **kw)(x, eps=np.float32(1e-5))

# The installed package (chapter 12, section 9): its row loops compiled for SSE2, AVX2 and AVX-512, the best the CPU
# supports picked when it loads. A side switches to its instruction set before each call (use_instruction_set), so the
# picked loops and SSE2's, what a package built without -march would run everywhere, take turns in one process.
import jbj_fast_kernels
for name, capsule in jbj_fast_kernels.registrations().items():
    jax.ffi.register_ffi_target("bench.pkg." + name, capsule, platform="cpu")
package_isas = jbj_fast_kernels.instruction_sets()
package_picked = jbj_fast_kernels.instruction_set()
def package_side(isa):
    f = jax.jit(lambda x: ffi("bench.pkg.rms_norm_fast", x))
    def call(x):
        jbj_fast_kernels.use_instruction_set(isa)
        return f(x)
    return call

def ref(x):
    return x * jax.lax.rsqrt(jnp.mean(jnp.square(x), axis=-1, keepdims=True) + 1e-5)

# Waiting for the pool: the kernel's own ParallelFor and row math in a handler that also adds up,
# for the thread that calls it (the one that waits), the wall and CPU time of the whole call and
# of the chunks it ran itself; the rest is its wait. Built three times: as shipped (polling for at
# most kPollBeforeSleep, then sleeping until the last chunk is done), sleeping at once
# (-DJBJ_POLL_BEFORE_SLEEP_US=0), and polling with std::this_thread::yield() until the end (-DJBJ_SPIN_WAIT). PoolThreads
# reports the size of the pool XLA hands a handler. The source is pasted in, not #included, so
# the build cache sees every change to it.
timed_source = open("cpp/fast_rms_norm.cc").read() + r'''
#include <time.h>
#include <thread>
namespace {
std::atomic<long long> g_stats[5];  // calls, wall, CPU, wall waiting, CPU waiting (ns)
long long Now(clockid_t clock) { timespec t; clock_gettime(clock, &t); return t.tv_sec * 1000000000LL + t.tv_nsec; }
}
static ffi::Error TimedImpl(ffi::ThreadPool pool, float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  std::int64_t rows, n;
  if (auto err = Shape(x, "rms_norm_timed", &rows, &n); err.failure()) return err;
  if (auto err = SameSize(y->element_count(), x.element_count(), "rms_norm_timed", "y"); err.failure()) return err;
  const float* in = x.typed_data();
  float* out = y->typed_data();
  const auto me = std::this_thread::get_id();
  long long own_wall = 0, own_cpu = 0;  // written only by the calling thread
  const long long wall0 = Now(CLOCK_MONOTONIC), cpu0 = Now(CLOCK_THREAD_CPUTIME_ID);
  Pool p{pool};
  jbj_fast::ParallelFor(rows, ChunkRows(n), p.helpers(), p, [&, in, out](std::int64_t b, std::int64_t e) {
    const bool mine = std::this_thread::get_id() == me;
    const long long w = mine ? Now(CLOCK_MONOTONIC) : 0, c = mine ? Now(CLOCK_THREAD_CPUTIME_ID) : 0;
    jbj_fast::ForwardRows(in, out, nullptr, b, e, n, eps);
    if (mine) { own_wall += Now(CLOCK_MONOTONIC) - w; own_cpu += Now(CLOCK_THREAD_CPUTIME_ID) - c; }
  });
  const long long wall = Now(CLOCK_MONOTONIC) - wall0, cpu = Now(CLOCK_THREAD_CPUTIME_ID) - cpu0;
  g_stats[0] += 1; g_stats[1] += wall; g_stats[2] += cpu; g_stats[3] += wall - own_wall; g_stats[4] += cpu - own_cpu;
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(RmsNormFastTimed, TimedImpl, ffi::Ffi::Bind().Ctx<ffi::ThreadPool>().Attr<float>("eps")
                              .Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
extern "C" void TakeStats(long long* out) { for (int i = 0; i < 5; ++i) out[i] = g_stats[i].exchange(0); }
static ffi::Error PoolThreadsImpl(ffi::ThreadPool pool, ffi::ResultBuffer<ffi::S32> out) {
  out->typed_data()[0] = pool.num_threads();
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(PoolThreads, PoolThreadsImpl, ffi::Ffi::Bind().Ctx<ffi::ThreadPool>().Ret<ffi::Buffer<ffi::S32>>());
'''
take_stats = {}
for kind, extra in (("wait", ()), ("sleep", ("-DJBJ_POLL_BEFORE_SLEEP_US=0",)), ("spin", ("-DJBJ_SPIN_WAIT",))):
    lib = grader.build(code=timed_source, name=f"rms_norm_timed_{kind}", flags=("-O3", "-march=native", *extra))
    lib.register_ffi_target(f"bench.timed_{kind}", "RmsNormFastTimed")
    lib.register_ffi_target(f"bench.pool_threads_{kind}", "PoolThreads")
    take_stats[kind] = lib.function("TakeStats", argtypes=[ctypes.POINTER(ctypes.c_longlong)])
x0 = jnp.zeros(1)
pool_threads = int(jax.jit(lambda x: jax.ffi.ffi_call("bench.pool_threads_wait", jax.ShapeDtypeStruct((), jnp.int32))())(x0))

# How many of this process's threads worked while XLA's own RMSNorm ran at 16384×1024 `calls` times:
# CPU ticks of each thread from /proc, a thread counting if it took at least 5 % of them. Counted,
# not timed, so a busy machine does not change the answer.
def working_threads(calls):
    def ticks():
        out = {}
        for tid in os.listdir("/proc/self/task"):
            try:
                fields = open(f"/proc/self/task/{tid}/stat").read().rsplit(")", 1)[1].split()
            except FileNotFoundError:
                continue
            out[tid] = int(fields[11]) + int(fields[12])  # utime + stime
        return out
    x = jnp.asarray(np.random.default_rng(0).standard_normal((16384, 1024), dtype=np.float32))
    f = jax.jit(ref)
    jax.block_until_ready(f(x))
    before = ticks()
    for _ in range(calls):
        jax.block_until_ready(f(x))
    used = [t - before.get(tid, 0) for tid, t in ticks().items()]
    return sum(u >= 0.05 * sum(used) for u in used)

if mode == "xla-flags":
    # What XLA_FLAGS (set by the caller) leave: the pool's size, and the threads that work for XLA.
    print(json.dumps({"xla_flags": os.environ.get("XLA_FLAGS", ""), "pool_threads": pool_threads,
                      "working_threads": working_threads(repeats)}))
    sys.exit(0)

# The limit: what the machine moves with the same thread pool.
n = 16384 * 1024
b, c = jnp.full(n, 2.0, jnp.float32), jnp.full(n, 3.0, jnp.float32)
out = lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype)
read = jax.jit(lambda a: jax.ffi.ffi_call("bench.StreamRead", jax.ShapeDtypeStruct((), jnp.float32))(a))
write = jax.jit(lambda a: jax.ffi.ffi_call("bench.StreamWrite", out(a), input_output_aliases={0: 0})(a, value=np.float32(1)), donate_argnums=0)
# b and c are arguments, not closed-over constants (XLA would copy a constant into each call).
triad = jax.jit(lambda a, b, c: jax.ffi.ffi_call("bench.StreamTriad", out(a), input_output_aliases={0: 0})(a, b, c, q=np.float32(0.5)), donate_argnums=0)
# a = q * a in a's own buffer: an in-place kernel's traffic (each float read and written back once).
scale = jax.jit(lambda a: jax.ffi.ffi_call("bench.StreamScale", out(a), input_output_aliases={0: 0})(a, q=np.float32(1)), donate_argnums=0)
probes = timing.compare({"read": lambda: read(b), "write": timing.Chain(write, jnp.zeros(n, jnp.float32)),
                         "triad": timing.Chain(lambda a: triad(a, b, c), jnp.zeros(n, jnp.float32)),
                         "scale": timing.Chain(scale, jnp.zeros(n, jnp.float32))}, repeats=4 * repeats)
bandwidth = {"read": 4 * n / probes["read"].best / 1e9, "write": 4 * n / probes["write"].best / 1e9,
             "triad": 12 * n / probes["triad"].best / 1e9, "scale": 8 * n / probes["scale"].best / 1e9}

@partial(jax.custom_vjp, nondiff_argnums=(1,))
def fast_rms(x, eps=1e-5):
    return ffi("bench.RmsNormFast", x)

def _fwd(x, eps=1e-5):
    y, s = jax.ffi.ffi_call("bench.RmsNormFastFwd", (out(x), jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)))(x, eps=np.float32(eps))
    return y, (s, x)

def _bwd(eps, res, ct):
    s, x = res
    return (jax.ffi.ffi_call("bench.RmsNormFastBwd", out(x))(s, x, ct),)

fast_rms.defvjp(_fwd, _bwd)

# The same function, rematerialised: the forward saves x alone, the backward recomputes each scale.
@partial(jax.custom_vjp, nondiff_argnums=(1,))
def fast_rms_recompute(x, eps=1e-5):
    return ffi("bench.RmsNormFast", x)

def _fwd_recompute(x, eps=1e-5):
    return ffi("bench.RmsNormFast", x), x

def _bwd_recompute(eps, x, ct):
    return (jax.ffi.ffi_call("bench.RmsNormFastBwdRecompute", out(x))(x, ct, eps=np.float32(eps)),)

fast_rms_recompute.defvjp(_fwd_recompute, _bwd_recompute)

# And with ct_x written over ct_y (argument 1), which XLA does without a copy when ct_y is dead:
# here when the caller donates w, the weighted sum's cotangent.
@partial(jax.custom_vjp, nondiff_argnums=(1,))
def fast_rms_in_ct(x, eps=1e-5):
    return ffi("bench.RmsNormFast", x)

def _bwd_in_ct(eps, x, ct):
    return (jax.ffi.ffi_call("bench.RmsNormFastBwdRecompute", out(x), input_output_aliases={1: 0})(x, ct, eps=np.float32(eps)),)

fast_rms_in_ct.defvjp(_fwd_recompute, _bwd_in_ct)

# What the rest of the machine took while a row was timed: the CPU time of other processes, and the
# time the hypervisor gave the machine's virtual CPUs to other machines ("steal" in /proc/stat), each a
# share of every CPU's time. Both slow a timed side down; the report shows them beside each row.
def cpu_ticks():
    fields = [int(v) for v in open("/proc/stat").readline().split()[1:9]]
    user, nice, system, idle, iowait, irq, softirq, steal = fields
    own = open("/proc/self/stat").read().rsplit(")", 1)[1].split()
    return {"busy": user + nice + system + irq + softirq, "steal": steal, "all": sum(fields),
            "own": int(own[11]) + int(own[12])}

def taken_by_others(before, after):
    d = {k: after[k] - before[k] for k in before}
    return {"processes": max(0, d["busy"] - d["own"]) / max(d["all"], 1), "hypervisor": d["steal"] / max(d["all"], 1)}

rows = []
# Minor page faults per call (the median of `calls` calls, after the timed ones): a fresh output costs
# one per 4 KiB page it gets, or one per 2 MiB huge page.
def faults_per_call(call, calls=5):
    counts = []
    for _ in range(calls):
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        jax.block_until_ready(call())
        counts.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
    return sorted(counts)[len(counts) // 2]

# Each side's turn in a round: BACK untimed calls, then BACK timed ones, in a row (timing.compare's
# back_to_back), so a side is timed once it has settled, not as the other sides' calls (the slow
# naive kernel's above all) left the caches and the pool's threads.
BACK = 5

def measure(label, shape, sides, nbytes, check_with, probe=False, turns=(), plain=None):
    # Times `sides` (each checked against `check_with` first) in turns of BACK calls each; with `probe`,
    # the in-place scale probe over a buffer of the same shape is first timed in turns with "fast" alone
    # (the bandwidth goal's pair), then joins the row's rounds as the side "scale". `plain` are sides
    # that compute 2 * x, checked as such. The sides named in `turns` are timed again, one call per turn.
    host = np.random.default_rng(0).standard_normal(shape, dtype=np.float32)
    expected = np.asarray(check_with(jnp.asarray(host)))
    calls = {}
    for name, (fn, donated) in {**sides, **(plain or {})}.items():
        got = np.asarray(fn(jnp.asarray(host)))
        want = 2 * host if name in (plain or {}) else expected
        np.testing.assert_allclose(got, want, rtol=3e-5, atol=3e-5)      # every side computes what it should
        x = jnp.asarray(host)
        calls[name] = timing.Chain(fn, x) if donated else (lambda fn=fn, x=x: fn(x))
    rounds = max(5, repeats // 6) if shape[0] * shape[1] >= 4 * 1024 * 1024 else repeats // 2
    if probe:
        np.testing.assert_array_equal(np.asarray(scale(jnp.asarray(host))), host)   # q = 1: the data as it was
        calls["scale"] = timing.Chain(scale, jnp.asarray(host))
        # The bandwidth goal's pair: the kernel and the probe in rounds of their own, so that no other side's
        # calls (XLA's allocate, fault in and free 64 MiB each) fall between them.
        pair = timing.compare({"fast": calls["fast"], "scale": calls["scale"]}, repeats=rounds, warmup=2)
    before = cpu_ticks()
    times = timing.compare(calls, repeats=rounds, warmup=2, back_to_back=BACK)
    rows.append({"label": label, "shape": list(shape), "nbytes": nbytes(shape),
                 "median_ms": {k: t.median * 1e3 for k, t in times.items()},
                 "spread_ms": {k: t.spread * 1e3 for k, t in times.items()},
                 "others": taken_by_others(before, cpu_ticks()),
                 "faults": {k: faults_per_call(call) for k, call in calls.items()}})
    if probe:
        rows[-1]["pair_ms"] = {k: t.median * 1e3 for k, t in pair.items()}
    if turns:
        # Timed again one call per turn, as the course's earlier reports did: between two calls of a
        # side come the others', which evict what it had in the caches.
        again = timing.compare({k: calls[k] for k in turns}, repeats=rounds, warmup=2)
        rows[-1]["turns_ms"] = {k: t.median * 1e3 for k, t in again.items()}
    return times

forward = lambda s: 8 * s[0] * s[1]
# A plain pass over the same bytes out of place: y = 2 * x, by XLA and on the pool in the probes' chunks
# (StreamScale without aliasing writes a fresh output), with plain stores, and with the kernel's stores
# (streaming ones where the kernel streams).
def double_on_pool(target):
    return jax.jit(lambda x: jax.ffi.ffi_call(target, jax.ShapeDtypeStruct(x.shape, x.dtype))(x, q=np.float32(2)))
plain_pass = {"xla 2x": (jax.jit(lambda x: x * 2), False), "pool 2x": (double_on_pool("bench.StreamScale"), False),
              "pool 2x streamed": (double_on_pool("bench.StreamScaleStreamed"), False)}
out_of_place = {"jnp": (jax.jit(ref), False), "naive": (jax.jit(lambda x: ffi("bench.naive", x)), False),
                "fast": (jax.jit(lambda x: ffi("bench.RmsNormFast", x)), False),
                "package": (package_side(package_picked), False)}
if package_picked != "sse2" and "sse2" in package_isas:
    out_of_place["package sse2"] = (package_side("sse2"), False)
# In place, XLA's fastest is not always the donated call, so both are timed: a result in place
# is compared with the faster of the two, which is what a user would pick.
in_place = {"jnp": (jax.jit(ref), False), "jnp donated": (jax.jit(ref, donate_argnums=0), True),
            "naive": (jax.jit(lambda x: ffi("bench.naive", x, input_output_aliases={0: 0}), donate_argnums=0), True),
            "fast": (jax.jit(lambda x: ffi("bench.RmsNormFast", x, input_output_aliases={0: 0}), donate_argnums=0), True)}
if mode == "one-thread":
    for shape in [(4096, 256), (16384, 1024)]:
        measure("out of place", shape, {k: out_of_place[k] for k in ("jnp", "fast")}, forward, jax.jit(ref))
        measure("in place (donated)", shape, {k: in_place[k] for k in ("jnp", "jnp donated", "fast")}, forward, jax.jit(ref))
    print(json.dumps({"rows": rows, "cpus": len(os.sched_getaffinity(0)), "pool_threads": pool_threads,
                      "working_threads": working_threads(repeats)}))
    sys.exit(0)

for shape in [(4096, 256), (16384, 1024), (64, 65536), (65536, 64)]:
    measure("out of place", shape, out_of_place, forward, jax.jit(ref), turns=("jnp", "naive", "fast"), plain=plain_pass)
for shape in [(4096, 256), (16384, 1024)]:
    measure("in place (donated)", shape, in_place, forward, jax.jit(ref), probe=True)

wait_rows = []
for shape in [(4096, 256), (16384, 1024)]:
    sides = {kind: (jax.jit(lambda x, t=f"bench.timed_{kind}": ffi(t, x, input_output_aliases={0: 0}), donate_argnums=0), True)
             for kind in take_stats}
    stats = (ctypes.c_longlong * 5)()
    for take in take_stats.values():
        take(stats)                        # forget the calls made before this shape's
    times = measure("in place, sleep vs spin", shape, sides, forward, jax.jit(ref))
    rows.pop()
    row = {"shape": list(shape), "median_ms": {k: t.median * 1e3 for k, t in times.items()}, "handler": {}}
    for kind, take in take_stats.items():
        take(stats)
        calls, wall, cpu, wait_wall, wait_cpu = stats
        row["handler"][kind] = {"calls": calls, "wall_us": wall / calls / 1e3, "cpu_us": cpu / calls / 1e3,
                                "wait_wall_us": wait_wall / calls / 1e3, "wait_cpu_us": wait_cpu / calls / 1e3}
    wait_rows.append(row)

# Backward: the gradient of sum(rms_norm(x) * w), checked against float64 before it is timed.
for shape in [(4096, 256), (16384, 1024)]:
    w = jnp.asarray(np.cos(np.arange(shape[0] * shape[1], dtype=np.float32)).reshape(shape))
    def exact(x, w=w):
        x64, w64 = np.asarray(x, np.float64), np.asarray(w, np.float64)
        s = 1 / np.sqrt(np.mean(x64 * x64, axis=-1, keepdims=True) + 1e-5)
        return s * w64 - s ** 3 / x64.shape[-1] * np.sum(w64 * x64, axis=-1, keepdims=True) * x64
    # w is an argument, not a closed-over constant (XLA would copy a constant into each call).
    weighted = lambda norm: (lambda x, w: jnp.sum(norm(x) * w))
    grads = {"jnp": jax.jit(jax.grad(weighted(ref))),
             "saved": jax.jit(jax.grad(weighted(fast_rms))),
             "fast": jax.jit(jax.grad(weighted(fast_rms_recompute))),
             "jnp donated": jax.jit(jax.grad(weighted(ref)), donate_argnums=1),
             "fast over ct": jax.jit(jax.grad(weighted(fast_rms_in_ct)), donate_argnums=1)}
    host = np.random.default_rng(0).standard_normal(shape, dtype=np.float32)
    errors = {k: float(np.abs(np.asarray(g(host, jnp.array(w))) - exact(host)).max()) for k, g in grads.items()}
    x = jnp.asarray(host)
    # A donated w is used up by the call, so those sides feed each result back in as the next w.
    calls = {k: (timing.Chain(lambda w, g=g: g(x, w), jnp.array(w)) if k in ("jnp donated", "fast over ct")
                 else (lambda g=g: g(x, w))) for k, g in grads.items()}
    before = cpu_ticks()
    times = timing.compare(calls, repeats=max(5, repeats // 6), warmup=2, back_to_back=BACK)
    others = taken_by_others(before, cpu_ticks())
    faults = {k: faults_per_call(call) for k, call in calls.items()}
    for label, fast, xla in (("backward, scale saved (jax.grad)", "saved", ("jnp",)),
                             ("backward (jax.grad)", "fast", ("jnp",)),
                             ("backward, ct_y dead (jax.grad, w donated)", "fast over ct", ("jnp", "jnp donated"))):
        sides = {**{k: k for k in xla}, "fast": fast}
        rows.append({"label": label, "shape": list(shape), "nbytes": 12 * shape[0] * shape[1],
                     "median_ms": {k: times[v].median * 1e3 for k, v in sides.items()},
                     "spread_ms": {k: times[v].spread * 1e3 for k, v in sides.items()},
                     "faults": {k: faults[v] for k, v in sides.items()}, "others": others,
                     "max_error": {"jnp": errors["jnp"], "fast": errors[fast]}})

jbj_fast_kernels.use_instruction_set(package_picked)
print(json.dumps({"bandwidth_gbs": bandwidth, "rows": rows, "wait": wait_rows, "cpus": len(os.sched_getaffinity(0)), "pool_threads": pool_threads,
                  "devices": str(jax.devices()[0].device_kind), "package_isa": package_picked, "package_isas": package_isas}))
"""


#: The XLA flags that look as if they would keep XLA on one thread, and do not (the report shows it).
XLA_ONE_THREAD_FLAGS = "--xla_cpu_multi_thread_eigen=false"


def _measure(repeats: int, mode: str, env: dict | None = None) -> dict:
    out = subprocess.run([sys.executable, "-c", _MEASURE, str(15 * repeats), mode], check=True, capture_output=True,
                         text=True, cwd=ROOT, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


#: Fresh processes of the main table's kind measured after it, to show whether each goal holds from run to run.
MORE_RUNS = 2


def run(repeats: int) -> dict:
    """Every pool thread in one fresh process (and again in `MORE_RUNS` more), then one thread (one CPU) in
    another, then one with XLA_ONE_THREAD_FLAGS, to see what those flags leave."""
    result = _measure(repeats, "all-threads")
    # The same again in fresh processes: whether each goal holds from run to run, not in one run only.
    result["more_runs"] = [_measure(repeats, "all-threads") for _ in range(MORE_RUNS)]
    result["one_thread"] = _measure(repeats, "one-thread")
    result["xla_flags"] = _measure(repeats, "xla-flags", dict(os.environ, XLA_FLAGS=XLA_ONE_THREAD_FLAGS))
    return result


def _xla_best(m: dict) -> tuple[str, float]:
    """XLA's fastest way to the same result: plain jnp, or jnp with the input donated if timed."""
    return min(((k, m[k]) for k in ("jnp", "jnp donated") if k in m), key=lambda kv: kv[1])


def _faults(row: dict) -> str:
    """The page faults per call of XLA's best side and of the kernel, where the run counted them."""
    faults = row.get("faults")
    if not faults:
        return "—"
    return f"{faults[_xla_best(row['median_ms'])[0]]} / {faults['fast']}"


def _others(row: dict) -> str:
    """The CPU time other processes and the hypervisor took while the row was timed, or — if not counted."""
    others = row.get("others")
    return f"{others['processes']:.0%} / {others['hypervisor']:.0%}" if others else "—"


#: A share of the machine's CPU time taken by others (processes or the hypervisor) while a row was timed,
#: from which the report says so beside that row's goal.
BUSY_SHARE = 0.05


@dataclass(frozen=True)
class Goal:
    """One of chapter 12's kernel goals, as one run measured it."""

    text: str
    value: float  # a ratio to XLA's best side, or a share of a probe's rate
    met: bool
    row: dict
    share: bool = False  # value is a share (shown as a percentage), not a ratio

    @property
    def shown(self) -> str:
        return f"{self.value:.0%}" if self.share else f"{self.value:.2f}x"


def goals(result: dict) -> list[Goal]:
    """The kernels' goals: each out-of-place shape against the fastest plain pass over the same bytes (the memory's
    floor for a kernel that reads x and writes y), in place (speed against XLA, and rate against the scale probe,
    the two timed in turns on their own), and the backward pass with a dead cotangent, from one run's rows."""
    by_key = {(r["label"], tuple(r["shape"])): r for r in result["rows"]}

    def ratio(label: str, shape: tuple, at_most: float, text: str) -> Goal:
        row = by_key[(label, shape)]
        value = row["median_ms"]["fast"] / _xla_best(row["median_ms"])[1]
        return Goal(text, value, value <= at_most, row)

    def floor(shape: tuple, at_most: float) -> Goal:
        row = by_key[("out of place", shape)]
        name, best = _fastest_pass(row["median_ms"])
        value = row["median_ms"]["fast"] / best
        return Goal(f"out of place {shape[0]}×{shape[1]}, at most {at_most}x the fastest plain pass", value,
                    value <= at_most, row)

    inplace = by_key[("in place (donated)", (16384, 1024))]
    best_name = _xla_best(inplace["median_ms"])[0]
    share = _probe_share(inplace)
    return [*(floor(shape, 1.1) for shape in ((4096, 256), (16384, 1024), (64, 65536), (65536, 64))
              if ("out of place", shape) in by_key),
            ratio("in place (donated)", (16384, 1024), 0.25,
                  f"in place 16384×1024, at most 0.25x XLA's faster way (here `{best_name}`)"),
            ratio("backward, ct_y dead (jax.grad, w donated)", (16384, 1024), 0.6,
                  "backward with a dead cotangent (written over, w donated) 16384×1024, at most 0.6x XLA's faster way"),
            Goal("in place 16384×1024 at least 85 % of the in-place scale probe's rate, the two timed in turns",
                 share, share >= 0.85, inplace, share=True)]


def _probe_share(row: dict, times: str = "pair_ms") -> float | None:
    """The kernel's rate as a share of the scale probe's (the same bytes, so the ratio of the medians),
    both timed in the rounds of `times`: the pair's own ("pair_ms") or the whole row's ("median_ms");
    None for a row without the probe."""
    m = row.get(times, {})
    return m["scale"] / m["fast"] if "scale" in m else None


def _busy(row: dict) -> str:
    """What else took the CPUs while `row` was timed, where it reached `BUSY_SHARE`; else nothing."""
    others = row.get("others") or {}
    taken = [f"{who} took {share:.0%}" for who, share in (("other processes", others.get("processes", 0)),
                                                          ("the hypervisor", others.get("hypervisor", 0)))
             if share >= BUSY_SHARE]
    return f"; timed while {' and '.join(taken)} of the CPUs' time" if taken else ""


def _xla_ms(goal: Goal) -> str:
    """XLA's median beside a ratio goal (nothing beside a share), and where a plain pass over the same bytes
    was timed in the row, the fastest one's share of XLA's time."""
    if goal.share:
        return ""
    m = goal.row["median_ms"]
    xla = _xla_best(m)[1]
    passed = _fastest_pass(m)
    if passed and "plain pass" in goal.text:
        return f" (fast {m['fast']:.3f} ms, {passed[0]} {passed[1]:.3f} ms; {m['fast'] / xla:.2f}x XLA)"
    return f" (XLA {xla:.3f} ms" + (f"; fastest pass {passed[1] / xla:.2f}x" if passed else "") + ")"


def _runs_lines(result: dict) -> list[str]:
    """Each goal in every fresh process of the main table's kind (the table's own first), and in how many it held."""
    runs = [result, *result.get("more_runs", [])]
    if len(runs) < 2:
        return []
    lines = [f"Whether a goal holds from run to run: the main table's process and {len(runs) - 1} more like it, each "
             "fresh (its own bandwidth probes, its own timings), one after another. The table's run comes first. "
             "Beside each ratio, XLA's median in that run: from one fresh process to the next it moves as much as "
             "the kernel's, or more; and, out of place, the fastest plain pass over the same bytes as a share of it "
             "(the table above), about as low as an out-of-place kernel of these bytes could expect to go in that run.", "",
             "| goal | " + " | ".join(f"run {i + 1}" for i in range(len(runs))) + " | held in |",
             "| --- | " + " | ".join("---" for _ in runs) + " | --- |"]
    per_run = [goals(run) for run in runs]
    for i, goal in enumerate(per_run[0]):
        these = [run_goals[i] for run_goals in per_run]
        lines.append(f"| {goal.text} | " + " | ".join(g.shown + ("" if g.met else " ✗") + _xla_ms(g) for g in these) +
                     f" | {sum(g.met for g in these)} of {len(these)} |")
    return lines + ["", "✗: not met in that run.", ""]


def section(result: dict) -> list[str]:
    limit = max(result["bandwidth_gbs"].values())
    bw = result["bandwidth_gbs"]
    lines = ["## Chapter 12: fast RMSNorm kernels against XLA and against the memory limit (float32)", "",
             __doc__.split("\n\n", 1)[1].strip().replace("\n", " "), "",
             f"Measured bandwidth (best of the runs, XLA's thread pool): read {bw['read']:.1f} GB/s, "
             f"write {bw['write']:.1f} GB/s, triad {bw['triad']:.1f} GB/s, scale in place {bw['scale']:.1f} GB/s; "
             f"the limit below is the best, {limit:.1f} GB/s.", "",
             "The last column is what the rest of the machine took while a row was timed, as shares of all the "
             "CPUs' time from `/proc/stat`: the CPU time of other processes, and the time the hypervisor gave "
             "this virtual machine's CPUs to other machines (*steal*). Either slows the sides of a row down, "
             "not always alike: the kernel splits its rows over both of XLA's pool threads, and a side that "
             "runs on one thread loses less when a CPU is taken.", "",
             "| case | shape | jnp (XLA) | jnp donated | naive (ch. 11) | fast | fast / best XLA | fast GB/s | of the limit | of the scale probe (in the row's rounds / the two alone) | page faults per call (jnp / fast) | CPU taken (processes / hypervisor) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in result["rows"]:
        m = row["median_ms"]
        gbs = row["nbytes"] / (m["fast"] / 1e3) / 1e9
        cell = lambda k: f"{m[k]:.3f} ms" if k in m else "—"
        probe = _probe_share(row, "median_ms"), _probe_share(row)
        lines.append(f"| {row['label']} | {row['shape'][0]}×{row['shape'][1]} | {cell('jnp')} | {cell('jnp donated')} | "
                     f"{cell('naive')} | {m['fast']:.3f} ms | {m['fast'] / _xla_best(m)[1]:.2f}x | {gbs:.1f} | {gbs / limit:.0%} | "
                     f"{'—' if probe[0] is None else f'{probe[0]:.0%} / {probe[1]:.0%}'} | {_faults(row)} | {_others(row)} |")
    errors = [r for r in result["rows"] if "max_error" in r]
    if errors:
        lines += ["", "Largest error of each backward pass against a float64 gradient (XLA's compiled `jnp` "
                  "gradient is wrong at these sizes on CPUs where its YNNPACK fusions miscompile it; "
                  "notebooks/going_deeper/xla_around_kernels.ipynb, section 3):", ""]
        for r in errors:
            lines.append(f"- {r['label']}, {r['shape'][0]}×{r['shape'][1]}: jnp {r['max_error']['jnp']:.1e}, "
                         f"fast {r['max_error']['fast']:.1e}")
    said = [f"{goal.text}: **{goal.shown}** ({'met' if goal.met else 'not met'}{_busy(goal.row)})"
            for goal in goals(result)]
    lines += ["", "Goals, from this run: " + "; ".join(said) + ".", ""]
    lines += _plain_pass_lines(result)
    lines += _package_lines(result)
    lines += _turns_lines(result)
    lines += _runs_lines(result)
    lines += _one_thread_lines(result)
    lines += _wait_lines(result)
    return lines


PASSES = {"xla 2x": "XLA", "pool 2x": "pool", "pool 2x streamed": "pool, streamed"}


def _fastest_pass(m: dict) -> tuple[str, float] | None:
    """The fastest plain pass (y = 2 * x) of a row's medians, named as in the table; None if none was timed."""
    timed = [(PASSES[k], m[k]) for k in PASSES if k in m]
    return min(timed, key=lambda kv: kv[1]) if timed else None


def _plain_pass_lines(result: dict) -> list[str]:
    """The out-of-place rows against y = 2 * x of the same shape, by XLA and on the kernel's pool: a plain
    pass over the same bytes, which only reads and writes them."""
    rows = [r for r in result["rows"] if _fastest_pass(r["median_ms"])]
    if not rows:
        return []
    lines = ["### A plain pass over the same bytes: y = 2 · x", "",
             "An out-of-place RMSNorm must at least read x and write y. `y = 2 * x` does only that, timed in the "
             "same rounds as the row's other sides, three ways: by XLA (`jax.jit(lambda x: x * 2)`); by the scale "
             "probe without aliasing, on the same pool and in the same chunks as the kernel, with plain stores "
             "(*pool*); and by the same probe with the kernel's stores, streaming where the kernel streams "
             "(outputs of 8 to 32 MiB, the 16 MiB rows; a copy built with `-DJBJ_PROBE_STREAMS`), plain "
             "elsewhere (*pool, streamed*). *Fastest pass / jnp* says how far below `jnp` a pass that only moves "
             "these bytes got in this run, about the lowest ratio a goal could ask of a kernel here; *fast / "
             "fastest pass* says what the kernel's arithmetic and its two phases per row cost on top of moving "
             "the bytes (below 1x, the kernel was the faster). At 64 MiB (16384×1024) every output is fresh: the passes' "
             "fault in 4 KiB pages, the kernel's in huge pages (the main table's page faults), so there the passes "
             "are no floor for the kernel.", "",
             "| shape | jnp | fast | XLA | pool | pool, streamed | fast / jnp | fastest pass / jnp | fast / fastest pass |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        m = row["median_ms"]
        name, best = _fastest_pass(m)
        cell = lambda k: f"{m[k]:.3f} ms" if k in m else "—"
        lines.append(f"| {row['shape'][0]}×{row['shape'][1]} | {m['jnp']:.3f} ms | {m['fast']:.3f} ms | "
                     f"{cell('xla 2x')} | {cell('pool 2x')} | {cell('pool 2x streamed')} | {m['fast'] / m['jnp']:.2f}x | "
                     f"{best / m['jnp']:.2f}x ({name}) | {m['fast'] / best:.2f}x |")
    return lines + [""]


def _package_lines(result: dict) -> list[str]:
    """The installed package's row loops for the instruction set it picked against its SSE2 ones, per out-of-place row."""
    rows = [r for r in result["rows"] if "package" in r["median_ms"]]
    if not rows:
        return []
    picked = result.get("package_isa", "?")
    lines = ["### The package's instruction sets", "",
             "`packages/jbj_fast_kernels` compiles its row loops for SSE2, AVX2 with FMA and AVX-512 and picks, when it "
             f"loads, the best this CPU supports (here `{picked}`, of {', '.join(result.get('package_isas', []))}). Its "
             "`rms_norm_fast`, switched to each before every call (`use_instruction_set`), timed in the rows' rounds: "
             "*SSE2* is what a package built without `-march` runs on every x86-64 CPU; *fast* is the notebook's "
             "build with `-march=native`.", "",
             f"| shape | package, {picked} | package, sse2 | {picked} / sse2 | fast (-march=native) | package / fast |",
             "| --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        m = row["median_ms"]
        sse2 = m.get("package sse2", m["package"] if picked == "sse2" else None)
        ratio = f"{m['package'] / sse2:.2f}x" if sse2 else "—"
        lines.append(f"| {row['shape'][0]}×{row['shape'][1]} | {m['package']:.3f} ms | "
                     f"{f'{sse2:.3f} ms' if sse2 else '—'} | {ratio} | {m['fast']:.3f} ms | {m['package'] / m['fast']:.2f}x |")
    return lines + [""]


def _turns_lines(result: dict) -> list[str]:
    """The out-of-place rows again, one call per turn: what taking turns with the other sides does to each."""
    rows = [r for r in result["rows"] if "turns_ms" in r]
    if not rows:
        return []
    lines = ["### One call per turn: what the other sides' calls do to a row",
             "",
             "The table above gives each side its calls in a row. Here each out-of-place row's `jnp`, naive and "
             "fast sides are timed again, in the same process just after the row, one call per turn, as the "
             "course's earlier reports did: between two calls of a side come the others', the slow one-thread "
             "naive kernel's among them, which evict what it had in the caches. A shape that fits in the caches "
             "(4096×256 is 4 MiB in and 4 MiB out; the 16 MiB shapes, 32 MiB in and out, partly fit a large last-level cache) "
             "shows how much of a ratio that makes; the goals are judged in the table above.",
             "",
             "| shape | jnp, one call per turn | fast, one call per turn | fast / jnp, one call per turn | fast / jnp, calls in a row |",
             "| --- | --- | --- | --- | --- |"]
    for row in rows:
        t, m = row["turns_ms"], row["median_ms"]
        lines.append(f"| {row['shape'][0]}×{row['shape'][1]} | {t['jnp']:.3f} ms | {t['fast']:.3f} ms | "
                     f"{t['fast'] / t['jnp']:.2f}x | {m['fast'] / m['jnp']:.2f}x |")
    return lines + [""]


def _one_thread_lines(result: dict) -> list[str]:
    """The kernel and XLA on one thread each, and what the pool's threads add to each."""
    one, flags = result.get("one_thread"), result.get("xla_flags")
    if not one:
        return []
    every = {(r["label"], tuple(r["shape"])): r["median_ms"] for r in result["rows"]}
    lines = ["### One thread each: how much of the gain is the code, how much the threads", "",
             "A second fresh process is allowed one CPU (`os.sched_setaffinity` before JAX starts). XLA sizes its "
             f"intra-op pool from the CPUs it may use, so the pool handed to a handler has {one['pool_threads']} "
             "thread there (read by a handler from `pool.num_threads()`; "
             f"{result['pool_threads']} in the main process), the kernel's `ParallelFor` runs every row on the "
             f"calling thread, and {one['working_threads']} thread of the process worked while XLA's `jnp` RMSNorm "
             "ran at 16384×1024 (a thread counts if it took at least 5 % of the CPU time, per-thread CPU time "
             "from `/proc`)."]
    if flags:
        lines[-1] += (f" XLA's flags do not do it: in a third process with `XLA_FLAGS={flags['xla_flags']}` the pool "
                      f"still has {flags['pool_threads']} threads, and {flags['working_threads']} threads worked while XLA's "
                      "`jnp` RMSNorm ran, counted the same way. (`--intra_op_parallelism_threads=1` is no XLA flag: "
                      "XLA stops the process with `Unknown flag in XLA_FLAGS`.)")
    lines += ["", "*fast / best XLA* on one thread is what the kernel's code gains on its own; a *threads gain* "
              "is that side's median on one thread divided by its median with every pool thread.", "",
              "| case | shape | jnp (1 thread) | jnp donated | fast (1 thread) | fast / best XLA | XLA threads gain | fast threads gain |",
              "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in one["rows"]:
        m = row["median_ms"]
        many = every.get((row["label"], tuple(row["shape"])))
        donated = f"{m['jnp donated']:.3f} ms" if "jnp donated" in m else "—"
        xla_gain = f"{_xla_best(m)[1] / _xla_best(many)[1]:.2f}x" if many else "—"
        fast_gain = f"{m['fast'] / many['fast']:.2f}x" if many else "—"
        lines.append(f"| {row['label']} | {row['shape'][0]}×{row['shape'][1]} | {m['jnp']:.3f} ms | {donated} | "
                     f"{m['fast']:.3f} ms | {m['fast'] / _xla_best(m)[1]:.2f}x | {xla_gain} | {fast_gain} |")
    return lines + [""]


def _wait_lines(result: dict) -> list[str]:
    """The kernel as shipped (polls briefly, then sleeps until the pool's last chunk is done) against a
    copy that sleeps at once and one that spins."""
    waits = result.get("wait")
    if not waits:
        return []
    kinds = [k for k in ("wait", "sleep", "spin") if k in waits[0]["median_ms"]]
    names = {"wait": "shipped (poll, then sleep)", "sleep": "sleep at once", "spin": "spin"}
    lines = ["### Waiting for the pool: polling, sleeping, spinning", "",
             "`ParallelFor` (in `cpp/fast_rms_norm.h`) has the calling thread, once no chunk is left to claim, poll "
             "the chunk counter for at most 50 µs (`kPollBeforeSleep`, yielding the core each time) and then "
             "sleep on a condition variable, woken by whichever thread finishes the last chunk. Copies built "
             "with `-DJBJ_POLL_BEFORE_SLEEP_US=0` sleep at once, and with `-DJBJ_SPIN_WAIT` poll until the end. "
             "All run in place, timed side by side in the main process, in a handler that also adds up, for the "
             "calling thread, the wall and CPU time (`CLOCK_MONOTONIC`, `CLOCK_THREAD_CPUTIME_ID`) of the whole "
             "call and of the chunks it ran itself; the rest is its wait. Per call, averaged over every call "
             "made (warm-up included).", "",
             "| shape | " + " | ".join(f"{names[k]} (median)" for k in kinds) + " | shipped / spin | " +
             " | ".join(f"{names[k]}: wait, CPU used waiting" for k in kinds) + " |",
             "| --- | " + " | ".join("---" for _ in kinds) + " | --- | " + " | ".join("---" for _ in kinds) + " |"]
    for row in waits:
        m, h = row["median_ms"], row["handler"]
        lines.append(f"| {row['shape'][0]}×{row['shape'][1]} | " + " | ".join(f"{m[k]:.3f} ms" for k in kinds) +
                     f" | {m['wait'] / m['spin']:.2f}x | " +
                     " | ".join(f"{h[k]['wait_wall_us']:.1f} µs, {h[k]['wait_cpu_us']:.1f} µs" for k in kinds) + " |")
    return lines + [""]
