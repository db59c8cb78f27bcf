"""Chapter 12's C++: the fast kernels against a float64 reference, and the package built from them."""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from grader.builder import build
from conftest import ROOT

PACKAGE = ROOT / "packages" / "jbj_fast_kernels"


def _rms_norm64(x, eps=1e-5):
    x = np.asarray(x, np.float64)
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)


@pytest.fixture(scope="module")
def kernels():
    """The chapter's handlers, built with the chapter's flags and registered under test names."""
    lib = build("fast_rms_norm.cc", flags=("-O3", "-march=native"))
    for symbol in ("RmsNormVec", "RmsNormFast", "RmsNormFastFwd", "RmsNormFastBwd"):
        lib.register_ffi_target(f"test12.{symbol}", symbol)
    return lib


def _call(target, x, **kwargs):
    return jax.ffi.ffi_call(target, jax.ShapeDtypeStruct(x.shape, x.dtype), **kwargs)(x, eps=np.float32(1e-5))


@pytest.mark.parametrize("shape", [(1, 1), (3, 17), (1000, 64), (7, 4097), (2, 3, 33), (0, 8), (4, 0)])
@pytest.mark.parametrize("target", ["test12.RmsNormVec", "test12.RmsNormFast"])
def test_forward_kernels_match_float64_for_awkward_shapes(kernels, target, shape):
    """Row counts that do not split evenly over threads and lengths that are not a multiple of 16."""
    x = np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)
    got = np.asarray(jax.jit(lambda v: _call(target, v))(jnp.asarray(x)))
    np.testing.assert_allclose(got, _rms_norm64(x) if x.size else x, rtol=2e-6, atol=1e-6)


def test_in_place_kernel_writes_into_the_donated_buffer(kernels):
    x = np.random.default_rng(0).standard_normal((513, 129)).astype(np.float32)
    donor = jnp.asarray(x)
    address = donor.unsafe_buffer_pointer()
    f = jax.jit(lambda v: _call("test12.RmsNormFast", v, input_output_aliases={0: 0}), donate_argnums=0)
    y = f(donor)
    assert donor.is_deleted() and y.unsafe_buffer_pointer() == address
    np.testing.assert_allclose(np.asarray(y), _rms_norm64(x), rtol=2e-6, atol=1e-6)


def test_backward_kernel_matches_the_float64_gradient(kernels):
    x = np.random.default_rng(1).standard_normal((300, 70)).astype(np.float32)
    ct = np.random.default_rng(2).standard_normal(x.shape).astype(np.float32)
    y, scale = jax.ffi.ffi_call("test12.RmsNormFastFwd", (jax.ShapeDtypeStruct(x.shape, jnp.float32),
                                jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)))(x, eps=np.float32(1e-5))
    ct_x = jax.ffi.ffi_call("test12.RmsNormFastBwd", jax.ShapeDtypeStruct(x.shape, jnp.float32))(scale, x, ct)
    x64, ct64 = x.astype(np.float64), ct.astype(np.float64)
    s = 1 / np.sqrt(np.mean(x64 * x64, axis=-1, keepdims=True) + 1e-5)
    expected = s * ct64 - s ** 3 / x.shape[-1] * np.sum(ct64 * x64, axis=-1, keepdims=True) * x64
    np.testing.assert_allclose(np.asarray(scale), s[:, 0], rtol=1e-6)
    np.testing.assert_allclose(np.asarray(ct_x), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape", [(8193, 1027), (1031, 8191)])
def test_outputs_advised_to_use_huge_pages_are_right(kernels, shape):
    """Fresh outputs over the 8 MiB from which the kernels give madvise(MADV_HUGEPAGE) on their 2 MiB-aligned
    part (here 32 MiB and more, odd row lengths) are right: forward, forward with scales, and backward."""
    x = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    ct = np.random.default_rng(4).standard_normal(shape).astype(np.float32)
    assert x.nbytes >= 32 << 20
    got = np.asarray(jax.jit(lambda v: _call("test12.RmsNormFast", v))(jnp.asarray(x)))
    np.testing.assert_allclose(got, _rms_norm64(x), rtol=2e-6, atol=1e-6)
    y, scale = jax.jit(lambda v: jax.ffi.ffi_call("test12.RmsNormFastFwd", (jax.ShapeDtypeStruct(v.shape, jnp.float32),
                       jax.ShapeDtypeStruct(v.shape[:-1], jnp.float32)))(v, eps=np.float32(1e-5)))(jnp.asarray(x))
    np.testing.assert_array_equal(np.asarray(y), got)
    ct_x = jax.jit(lambda s, v, c: jax.ffi.ffi_call("test12.RmsNormFastBwd", jax.ShapeDtypeStruct(v.shape, jnp.float32))(s, v, c))(
        scale, jnp.asarray(x), jnp.asarray(ct))
    x64, ct64 = x.astype(np.float64), ct.astype(np.float64)
    s = 1 / np.sqrt(np.mean(x64 * x64, axis=-1, keepdims=True) + 1e-5)
    expected = s * ct64 - s ** 3 / shape[-1] * np.sum(ct64 * x64, axis=-1, keepdims=True) * x64
    np.testing.assert_allclose(np.asarray(ct_x), expected, rtol=1e-5, atol=2e-5)


@pytest.mark.parametrize("shape", [(2100, 1001), (8, 262147), (65536, 33)])
def test_outputs_written_with_streaming_stores_are_right(kernels, shape):
    """Fresh outputs of 8 to 32 MiB are written with streaming stores (StreamStores in fast_rms_norm.h), which
    start at an aligned address inside each row: here odd row lengths, so rows start anywhere. Forward, forward
    with scales and both backward passes agree with a build that never streams and with float64."""
    plain = build("fast_rms_norm.cc", flags=("-O3", "-march=native", "-DJBJ_NO_STREAM_STORES"))
    symbols = ("RmsNormFast", "RmsNormFastFwd", "RmsNormFastBwd", "RmsNormFastBwdRecompute")
    for prefix, lib in (("test12s", kernels), ("test12p", plain)):
        for symbol in symbols:
            lib.register_ffi_target(f"{prefix}.{symbol}", symbol)
    x = np.random.default_rng(5).standard_normal(shape).astype(np.float32)
    ct = np.random.default_rng(6).standard_normal(shape).astype(np.float32)
    assert 8 << 20 <= x.nbytes <= 32 << 20
    out = jax.ShapeDtypeStruct(shape, jnp.float32)
    results = {}
    for prefix in ("test12s", "test12p"):
        y = jax.jit(lambda v: _call(f"{prefix}.RmsNormFast", v))(x)
        y2, scale = jax.jit(lambda v: jax.ffi.ffi_call(f"{prefix}.RmsNormFastFwd", (out, jax.ShapeDtypeStruct(shape[:-1], jnp.float32)))(
            v, eps=np.float32(1e-5)))(x)
        saved = jax.jit(lambda s, v, c: jax.ffi.ffi_call(f"{prefix}.RmsNormFastBwd", out)(s, v, c))(scale, x, ct)
        again = jax.jit(lambda v, c: jax.ffi.ffi_call(f"{prefix}.RmsNormFastBwdRecompute", out)(v, c, eps=np.float32(1e-5)))(x, ct)
        results[prefix] = [np.asarray(a) for a in (y, y2, saved, again)]
    streamed, plain_results = results["test12s"], results["test12p"]
    np.testing.assert_array_equal(streamed[0], plain_results[0])      # x * s: the same bits however it is stored
    np.testing.assert_array_equal(streamed[1], streamed[0])
    np.testing.assert_allclose(streamed[0], _rms_norm64(x), rtol=2e-6, atol=1e-6)
    x64, ct64 = x.astype(np.float64), ct.astype(np.float64)
    s = 1 / np.sqrt(np.mean(x64 * x64, axis=-1, keepdims=True) + 1e-5)
    expected = s * ct64 - s ** 3 / shape[-1] * np.sum(ct64 * x64, axis=-1, keepdims=True) * x64
    for got, other in zip(streamed[2:], plain_results[2:]):
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=2e-5)
        np.testing.assert_allclose(got, other, rtol=1e-6, atol=1e-6)


def test_the_benchmarks_scale_probe_with_the_kernels_stores_computes_q_times_a():
    """`make bench` times y = 2 * x on the pool with the kernels' stores: a copy built with -DJBJ_PROBE_STREAMS
    streams a fresh output of 8 to 32 MiB. Every size gives q * a: one that streams (with an odd tail), one
    too small to stream, and the same large one in place, which stores plainly."""
    lib = build("fast_rms_norm.cc", flags=("-O3", "-march=native", "-DJBJ_PROBE_STREAMS"))
    lib.register_ffi_target("test12probe.StreamScale", "StreamScale")

    def scale(a, **kw):
        return jax.ffi.ffi_call("test12probe.StreamScale", jax.ShapeDtypeStruct(a.shape, a.dtype), **kw)(a, q=np.float32(3))

    for count in (2 * 1024 * 1024 + 5, 1000):
        a = np.random.default_rng(count).standard_normal(count).astype(np.float32)
        np.testing.assert_array_equal(np.asarray(jax.jit(scale)(a)), a * np.float32(3))
    a = np.random.default_rng(1).standard_normal(2 * 1024 * 1024 + 5).astype(np.float32)
    in_place = jax.jit(lambda v: scale(v, input_output_aliases={0: 0}), donate_argnums=0)
    np.testing.assert_array_equal(np.asarray(in_place(jnp.asarray(a))), a * np.float32(3))


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The package built into a wheel the way `make` builds it: offline, with the pinned build tools."""
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                           "--wheel-dir", str(out), str(PACKAGE)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    wheels = list(out.glob("jbj_fast_kernels-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_the_package_builds_installs_and_its_handlers_run(wheel, tmp_path):
    """A wheel from packages/, installed into a folder of its own, registers and runs under jit."""
    site = tmp_path / "site"
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--target", str(site),
                           str(wheel)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    script = textwrap.dedent("""
        import json, sys
        import jax, numpy as np
        import jbj_fast_kernels
        for name, capsule in jbj_fast_kernels.registrations().items():
            jax.ffi.register_ffi_target("pkg." + name, capsule, platform="cpu")
        x = np.random.default_rng(0).standard_normal((37, 45)).astype(np.float32)
        y = jax.jit(lambda v: jax.ffi.ffi_call("pkg.rms_norm_fast", jax.ShapeDtypeStruct(v.shape, v.dtype))(
            v, eps=np.float32(1e-5)))(x)
        print(json.dumps({"file": jbj_fast_kernels.__file__, "names": sorted(jbj_fast_kernels.registrations()),
                          "y": np.asarray(y).tolist(), "x": x.tolist()}))
    """)
    env = dict(os.environ, PYTHONPATH=str(site))
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert Path(report["file"]).is_relative_to(site)           # this wheel, not the one in the venv
    assert report["names"] == ["rms_norm_fast", "rms_norm_fast_bwd", "rms_norm_fast_fwd", "rms_norm_vec"]
    np.testing.assert_allclose(np.array(report["y"]), _rms_norm64(np.array(report["x"], np.float32)), rtol=2e-6, atol=1e-6)


def test_a_package_build_without_the_course_sources_says_what_to_do(tmp_path):
    """Built from a folder without the course's cpp/, CMake stops with a line saying how to build it."""
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                           "--wheel-dir", str(tmp_path / "out"),
                           f"--config-settings=cmake.define.JBJ_CPP_DIR={tmp_path / 'nowhere'}", str(PACKAGE)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode != 0
    # CMake wraps its message at a width that depends on the path's length: compare word by word.
    words = " ".join((proc.stdout + proc.stderr).split())
    assert "fast_rms_norm.cc not found" in words
    assert "build this package from the course folder" in words


# ParallelFor with helpers on threads of their own that start after a random delay (often after the
# calling thread has claimed every chunk), so each ordering of claiming, finishing and waking occurs.
_PARALLEL_FOR_STRESS = r"""
#include <chrono>
#include <random>
#include <thread>
#include <vector>
#include "fast_rms_norm.h"

// Runs `rounds` random ParallelFor calls; returns how many went wrong: an index visited other than
// once, or a chunk still running (or started) after ParallelFor returned.
extern "C" int StressParallelFor(int rounds) {
  std::mt19937 rng(1234);
  int wrong = 0;
  for (int round = 0; round < rounds; ++round) {
    const std::int64_t count = std::uniform_int_distribution<std::int64_t>(0, 300)(rng);
    const std::int64_t chunk = std::uniform_int_distribution<std::int64_t>(1, 40)(rng);
    const int helpers = std::uniform_int_distribution<int>(0, 3)(rng);
    std::vector<std::atomic<int>> visits(count);
    std::atomic<bool> returned{false};
    std::atomic<int> late{0};
    std::vector<std::thread> threads;
    std::vector<int> delays;
    for (int h = 0; h < helpers; ++h) delays.push_back(std::uniform_int_distribution<int>(0, 300)(rng));
    auto schedule = [&](auto task) {
      const int delay = delays[threads.size()];
      threads.emplace_back([task, delay] {
        std::this_thread::sleep_for(std::chrono::microseconds(delay));
        task();
      });
    };
    jbj_fast::ParallelFor(count, chunk, helpers, schedule, [&](std::int64_t b, std::int64_t e) {
      if (returned.load()) late += 1;
      for (std::int64_t i = b; i < e; ++i) visits[i] += 1;
      std::this_thread::sleep_for(std::chrono::microseconds((b * 7) % 50));
      if (returned.load()) late += 1;
    });
    returned = true;
    for (auto& t : threads) t.join();
    for (auto& v : visits) wrong += v.load() != 1;
    wrong += late.load();
  }
  return wrong;
}
"""


@pytest.mark.parametrize("flags", [(), ("-DJBJ_POLL_BEFORE_SLEEP_US=0",), ("-DJBJ_SPIN_WAIT",)],
                         ids=["polls, then sleeps (as shipped)", "sleeps at once", "spins (the bench's copy)"])
def test_parallel_for_runs_every_chunk_once_and_returns_after_the_last(flags):
    """Does ParallelFor visit every index exactly once and return only after the last chunk is done,
    whether its helpers start at once, late, or after every chunk is claimed (no lost wake-up: a lost
    one would hang this test)?"""
    lib = build(code=_PARALLEL_FOR_STRESS, name="parallel_for_stress", flags=("-O2", "-pthread", *flags))
    stress = lib.function("StressParallelFor", argtypes=[ctypes.c_int], restype=ctypes.c_int)
    assert stress(400) == 0


# ParallelFor over two chunks, one each for the calling thread and a helper. Once the calling thread has
# finished its chunk and waits for the helper's, the helper watches that thread's state in /proc (R: on a
# core or waiting for one; S: asleep) for at most `ms` milliseconds, and finishes its chunk as soon as it
# sees it asleep. Returns whether it did; `cpu_us` gets the calling thread's CPU time over the call.
_PARALLEL_FOR_LONG_WAIT = r"""
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "fast_rms_norm.h"

static char ThreadState(long tid) {
  char path[64], text[512];
  std::snprintf(path, sizeof path, "/proc/self/task/%ld/stat", tid);
  FILE* file = std::fopen(path, "r");
  if (!file) return '?';
  const size_t n = std::fread(text, 1, sizeof text - 1, file);
  std::fclose(file);
  text[n] = 0;
  for (size_t i = n; i-- > 0;) {  // the state follows the last ')' (the command may hold one)
    if (text[i] == ')') return i + 2 < n ? text[i + 2] : '?';
  }
  return '?';
}

extern "C" int CallerSleepsWhileWaiting(int ms, long long* cpu_us) {
  timespec a, b;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
  const auto caller = std::this_thread::get_id();
  const long caller_tid = syscall(SYS_gettid);
  std::atomic<bool> helper_busy{false}, caller_done{false}, seen_asleep{false};
  std::thread helper;
  jbj_fast::ParallelFor(2, 1, 1, [&](auto task) { helper = std::thread(task); }, [&](std::int64_t, std::int64_t) {
    if (std::this_thread::get_id() == caller) {
      // Returns once the helper is in the other chunk (so the caller cannot take both).
      while (!helper_busy.load()) std::this_thread::sleep_for(std::chrono::microseconds(200));
      caller_done = true;  // from here on the calling thread only waits for the helper's chunk
    } else {
      helper_busy = true;
      while (!caller_done.load()) std::this_thread::sleep_for(std::chrono::microseconds(200));
      const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
      while (!seen_asleep.load() && std::chrono::steady_clock::now() < until) {
        if (ThreadState(caller_tid) == 'S') seen_asleep = true;
        else std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    }
  });
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
  helper.join();
  *cpu_us = (b.tv_sec - a.tv_sec) * 1000000LL + (b.tv_nsec - a.tv_nsec) / 1000;
  return seen_asleep.load();
}
"""


def test_parallel_for_sleeps_through_a_long_wait():
    """While the last chunk is on a helper, does the calling thread go to sleep (after at most kPollBeforeSleep
    of polling) instead of keeping the core? The helper watches the calling thread's state: the shipped copy
    is seen asleep, and a copy that spins (-DJBJ_SPIN_WAIT) never is in 300 ms of watching, on an idle
    machine or a busy one (a spinning thread that waits for a core is still running, not asleep). The
    shipped copy's calling thread also uses well under 30 ms of CPU over the call: load can only lower that.
    (What each wait costs is measured by the benchmark, `make bench`.)"""
    seen, cpu = {}, {}
    for kind, flags, watch_ms in (("shipped", (), 30_000), ("spins", ("-DJBJ_SPIN_WAIT",), 300)):
        lib = build(code=_PARALLEL_FOR_LONG_WAIT, name=f"parallel_for_wait_{kind}", flags=("-O2", "-pthread", *flags))
        wait = lib.function("CallerSleepsWhileWaiting", argtypes=[ctypes.c_int, ctypes.POINTER(ctypes.c_longlong)],
                            restype=ctypes.c_int)
        used = ctypes.c_longlong()
        seen[kind], cpu[kind] = wait(watch_ms, ctypes.byref(used)), used.value
    assert seen == {"shipped": 1, "spins": 0}, (seen, cpu)
    assert cpu["shipped"] < 30_000, cpu


# The row writers called directly, asked to stream or not, for every row length up to 70 and every
# offset of the output inside a 64-byte line (so the plain prefix and tail around the streamed part
# take every length).
_ROW_WRITERS = r"""
#include <cmath>
#include <vector>
#include "fast_rms_norm.h"

// How many values differ between stream = true and stream = false: forward bit for bit, backward by
// more than 1e-6 relative (a vector formula may round differently from the scalar one).
extern "C" int CompareRowWriters() {
  int wrong = 0;
  for (int n = 0; n <= 70; ++n) {
    for (int offset = 0; offset < 16; ++offset) {
      std::vector<float> x(n + 16), g(n + 16), streamed(n + 16), plain(n + 16);
      for (int i = 0; i < n + 16; ++i) x[i] = 0.5f + 0.01f * i, g[i] = 1.0f - 0.02f * i;
      float* a = streamed.data() + offset;
      float* b = plain.data() + offset;
      jbj_fast::ForwardRows(x.data(), a, nullptr, 0, 1, n, 1e-5f, true);
      jbj_fast::ForwardRows(x.data(), b, nullptr, 0, 1, n, 1e-5f, false);
      for (int i = 0; i < n; ++i) wrong += a[i] != b[i];
      jbj_fast::BackwardRow(0.7f, x.data(), g.data(), a, n, true);
      jbj_fast::StreamFence();
      jbj_fast::BackwardRow(0.7f, x.data(), g.data(), b, n, false);
      for (int i = 0; i < n; ++i) wrong += std::fabs(a[i] - b[i]) > 1e-6f * (1.0f + std::fabs(b[i]));
    }
  }
  return wrong;
}

// How many values or scales differ when rows [0, rows) are written in one range (short rows a vector's
// width at a time, their sums reduced together; longer rows each summed in the loop of the row before)
// from when each row is a range of its own (summed, then scaled), out of place and in place, streamed
// or not: none may, bit for bit, for every row length up to 70 and on each side of the longest rows
// taken together (256, 512 and 1024 floats for vectors of 16, 8 and 4), for 1 to 5 rows and for
// ranges of whole groups and of groups and leftover rows, and for every offset of the data inside a
// 64-byte line.
extern "C" int ComparePipelinedRows() {
  int wrong = 0;
  std::vector<int> lengths;
  for (int n = 0; n <= 70; ++n) lengths.push_back(n);
  for (int n : {255, 256, 257, 511, 512, 513, 1023, 1024, 1025}) lengths.push_back(n);
  for (int n : lengths) {
    for (int rows : {1, 2, 3, 4, 5, 8, 9, 16, 17, 31, 37}) {
      if (n > 70 && rows % 2 == 0 && rows != 16) continue;   // the long rows: fewer ranges, for time
      for (int offset = 0; offset < 16; ++offset) {
        for (int stream = 0; stream < 2; ++stream) {
          const int size = rows * n + 16;
          std::vector<float> x(size), one(size), all(size), inplace(size);
          for (int i = 0; i < size; ++i) x[i] = std::sin(0.37f * i) * (1.0f + 0.1f * (i % 7));
          std::vector<float> s_one(rows), s_all(rows), s_in(rows);
          const float* in = x.data() + offset;
          for (int r = 0; r < rows; ++r) jbj_fast::ForwardRows(in, one.data() + offset, s_one.data(), r, r + 1, n, 1e-5f, stream);
          jbj_fast::ForwardRows(in, all.data() + offset, s_all.data(), 0, rows, n, 1e-5f, stream);
          std::copy(x.begin(), x.end(), inplace.begin());
          jbj_fast::ForwardRows(inplace.data() + offset, inplace.data() + offset, s_in.data(), 0, rows, n, 1e-5f, stream);
          for (int i = offset; i < offset + rows * n; ++i) wrong += (all[i] != one[i]) + (inplace[i] != one[i]);
          for (int r = 0; r < rows; ++r) wrong += (s_all[r] != s_one[r]) + (s_in[r] != s_one[r]);
        }
      }
    }
  }
  return wrong;
}
"""


@pytest.mark.parametrize("flags", [("-march=native",), (), ("-DJBJ_NO_STREAM_STORES",)],
                         ids=["this CPU's widest stores", "x86-64's SSE2", "no streaming stores compiled in"])
def test_rows_asked_to_stream_get_the_values_of_plain_stores(flags):
    """Whatever the alignment of a row and its length, a row written with streaming stores holds what plain
    stores would write; and a build with none compiled in writes the row plainly when asked to stream."""
    lib = build(code=_ROW_WRITERS, name="row_writers", flags=("-O2", *flags))
    compare = lib.function("CompareRowWriters", argtypes=[], restype=ctypes.c_int)
    assert compare() == 0


@pytest.mark.parametrize("flags", [("-O3", "-march=native"), ("-O2",), ("-O2", "-DJBJ_NO_STREAM_STORES")],
                         ids=["chapter 12's flags", "x86-64's SSE2", "no streaming stores compiled in"])
def test_rows_written_in_one_range_equal_rows_written_one_at_a_time(flags):
    """A range of rows (short rows a vector's width at a time, with their sums reduced together; longer rows
    each summed in the loop of the row before) gives every value and every scale bit for bit as rows
    written one range each; also in place, where a row is read for a later row's scale while earlier
    rows are written."""
    lib = build(code=_ROW_WRITERS, name="row_writers", flags=flags)
    compare = lib.function("ComparePipelinedRows", argtypes=[], restype=ctypes.c_int)
    assert compare() == 0
