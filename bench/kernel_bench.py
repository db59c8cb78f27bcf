"""Chapter 12's kernels against XLA's fused jnp RMSNorm, and against the machine's memory bandwidth.

All of it runs in one fresh Python process: the bandwidth probes first (64 MiB, with XLA's intra-op
thread pool, best run of each, as STREAM reports), then each shape's sides timed in turn, round
after round, with grader.timing (the helper the chapter uses), and reported as medians. Both sides
of a row get the same threads (XLA's pool) and the same donation. GB/s counts the bytes a kernel
must move: 8 per element forward (read x, write y), 12 backward (read x and the cotangent, write
the result). The limit is main memory's: a shape that fits in the caches (4096×256 is 4 MiB) can go
past 100 % of it, and an out-of-place 64 MiB call spends most of its time on the fresh output's page
faults (chapter 12, section 6), which is why the in-place row is the one the bandwidth goal is about.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_MEASURE = r"""
import json, sys
from functools import partial
import jax, jax.numpy as jnp, numpy as np, grader
from grader import timing

repeats = int(sys.argv[1])
fast = grader.build("fast_rms_norm.cc", flags=("-O3", "-march=native"))
for symbol in ("RmsNormFast", "RmsNormFastFwd", "RmsNormFastBwd", "StreamRead", "StreamWrite", "StreamTriad"):
    fast.register_ffi_target("bench." + symbol, symbol)
grader.build("ffi_rms_norm.cc").register_ffi_target("bench.naive", "RmsNorm")

def ffi(target, x, **kw):
    return jax.ffi.ffi_call(target, jax.ShapeDtypeStruct(x.shape, x.dtype), **kw)(x, eps=np.float32(1e-5))

def ref(x):
    return x * jax.lax.rsqrt(jnp.mean(jnp.square(x), axis=-1, keepdims=True) + 1e-5)

# The limit: what the machine moves with the same thread pool.
n = 16384 * 1024
b, c = jnp.full(n, 2.0, jnp.float32), jnp.full(n, 3.0, jnp.float32)
out = lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype)
read = jax.jit(lambda a: jax.ffi.ffi_call("bench.StreamRead", jax.ShapeDtypeStruct((), jnp.float32))(a))
write = jax.jit(lambda a: jax.ffi.ffi_call("bench.StreamWrite", out(a), input_output_aliases={0: 0})(a, value=np.float32(1)), donate_argnums=0)
# b and c are arguments, not closed-over constants (XLA would copy a constant into each call).
triad = jax.jit(lambda a, b, c: jax.ffi.ffi_call("bench.StreamTriad", out(a), input_output_aliases={0: 0})(a, b, c, q=np.float32(0.5)), donate_argnums=0)
probes = timing.compare({"read": lambda: read(b), "write": timing.Chain(write, jnp.zeros(n, jnp.float32)),
                         "triad": timing.Chain(lambda a: triad(a, b, c), jnp.zeros(n, jnp.float32))}, repeats=4 * repeats)
bandwidth = {"read": 4 * n / probes["read"].best / 1e9, "write": 4 * n / probes["write"].best / 1e9,
             "triad": 12 * n / probes["triad"].best / 1e9}

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

rows = []
def measure(label, shape, sides, nbytes, check_with):
    host = np.random.default_rng(0).standard_normal(shape, dtype=np.float32)
    expected = np.asarray(check_with(jnp.asarray(host)))
    calls = {}
    for name, (fn, donated) in sides.items():
        got = np.asarray(fn(jnp.asarray(host)))
        np.testing.assert_allclose(got, expected, rtol=3e-5, atol=3e-5)      # every side computes the same thing
        x = jnp.asarray(host)
        calls[name] = timing.Chain(fn, x) if donated else (lambda fn=fn, x=x: fn(x))
    big = shape[0] * shape[1] >= 4 * 1024 * 1024
    times = timing.compare(calls, repeats=max(5, repeats // 3) if big else repeats, warmup=2)
    rows.append({"label": label, "shape": list(shape), "nbytes": nbytes(shape),
                 "median_ms": {k: t.median * 1e3 for k, t in times.items()},
                 "spread_ms": {k: t.spread * 1e3 for k, t in times.items()}})

forward = lambda s: 8 * s[0] * s[1]
out_of_place = {"jnp": (jax.jit(ref), False), "naive": (jax.jit(lambda x: ffi("bench.naive", x)), False),
                "fast": (jax.jit(lambda x: ffi("bench.RmsNormFast", x)), False)}
in_place = {"jnp": (jax.jit(ref, donate_argnums=0), True),
            "naive": (jax.jit(lambda x: ffi("bench.naive", x, input_output_aliases={0: 0}), donate_argnums=0), True),
            "fast": (jax.jit(lambda x: ffi("bench.RmsNormFast", x, input_output_aliases={0: 0}), donate_argnums=0), True)}
for shape in [(4096, 256), (16384, 1024), (64, 65536), (65536, 64)]:
    measure("out of place", shape, out_of_place, forward, jax.jit(ref))
for shape in [(4096, 256), (16384, 1024)]:
    measure("in place (donated)", shape, in_place, forward, jax.jit(ref))

# Backward: the gradient of sum(rms_norm(x) * w), checked against float64 before it is timed.
for shape in [(4096, 256), (16384, 1024)]:
    w = jnp.asarray(np.cos(np.arange(shape[0] * shape[1], dtype=np.float32)).reshape(shape))
    def exact(x, w=w):
        x64, w64 = np.asarray(x, np.float64), np.asarray(w, np.float64)
        s = 1 / np.sqrt(np.mean(x64 * x64, axis=-1, keepdims=True) + 1e-5)
        return s * w64 - s ** 3 / x64.shape[-1] * np.sum(w64 * x64, axis=-1, keepdims=True) * x64
    # w is an argument, not a closed-over constant (XLA would copy a constant into each call).
    g_fast = jax.jit(jax.grad(lambda x, w: jnp.sum(fast_rms(x) * w)))
    g_ref = jax.jit(jax.grad(lambda x, w: jnp.sum(ref(x) * w)))
    host = np.random.default_rng(0).standard_normal(shape, dtype=np.float32)
    errors = {"jnp": float(np.abs(np.asarray(g_ref(host, w)) - exact(host)).max()),
              "fast": float(np.abs(np.asarray(g_fast(host, w)) - exact(host)).max())}
    x = jnp.asarray(host)
    times = timing.compare({"jnp": lambda: g_ref(x, w), "fast": lambda: g_fast(x, w)}, repeats=max(5, repeats // 3), warmup=2)
    rows.append({"label": "backward (jax.grad)", "shape": list(shape), "nbytes": 12 * shape[0] * shape[1],
                 "median_ms": {k: t.median * 1e3 for k, t in times.items()},
                 "spread_ms": {k: t.spread * 1e3 for k, t in times.items()}, "max_error": errors})

print(json.dumps({"bandwidth_gbs": bandwidth, "rows": rows, "devices": str(jax.devices()[0].device_kind)}))
"""


def run(repeats: int) -> dict:
    out = subprocess.run([sys.executable, "-c", _MEASURE, str(15 * repeats)], check=True, capture_output=True,
                         text=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def section(result: dict) -> list[str]:
    limit = max(result["bandwidth_gbs"].values())
    bw = result["bandwidth_gbs"]
    lines = ["## Chapter 12: fast RMSNorm kernels against XLA and against the memory limit (float32)", "",
             __doc__.split("\n\n", 1)[1].strip().replace("\n", " "), "",
             f"Measured bandwidth (best of the runs, XLA's thread pool): read {bw['read']:.1f} GB/s, "
             f"write {bw['write']:.1f} GB/s, triad {bw['triad']:.1f} GB/s; the limit below is the best, "
             f"{limit:.1f} GB/s.", "",
             "| case | shape | jnp (XLA) | naive (ch. 11) | fast | fast / jnp | fast GB/s | of the limit |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in result["rows"]:
        m = row["median_ms"]
        gbs = row["nbytes"] / (m["fast"] / 1e3) / 1e9
        naive = f"{m['naive']:.3f} ms" if "naive" in m else "—"
        lines.append(f"| {row['label']} | {row['shape'][0]}×{row['shape'][1]} | {m['jnp']:.3f} ms | {naive} | "
                     f"{m['fast']:.3f} ms | {m['fast'] / m['jnp']:.2f}x | {gbs:.1f} | {gbs / limit:.0%} |")
    errors = [r for r in result["rows"] if "max_error" in r]
    if errors:
        lines += ["", "Largest error of each backward pass against a float64 gradient (XLA's compiled `jnp` "
                  "gradient is wrong at these sizes on CPUs where its YNNPACK fusions miscompile it; "
                  "chapter 12, section 7):", ""]
        for r in errors:
            lines.append(f"- {r['shape'][0]}×{r['shape'][1]}: jnp {r['max_error']['jnp']:.1e}, fast {r['max_error']['fast']:.1e}")
    goals = {(r["label"], tuple(r["shape"])): r for r in result["rows"]}
    small = goals[("out of place", (4096, 256))]["median_ms"]
    inplace = goals[("in place (donated)", (16384, 1024))]
    in_gbs = inplace["nbytes"] / (inplace["median_ms"]["fast"] / 1e3) / 1e9
    lines += ["", "Goals: out of place at 4096×256, at most 0.8x jnp: "
              f"**{small['fast'] / small['jnp']:.2f}x**; in place at 16384×1024, at most 0.3x jnp donated: "
              f"**{inplace['median_ms']['fast'] / inplace['median_ms']['jnp']:.2f}x**, at least 70 % of the measured "
              f"limit: **{in_gbs / limit:.0%}**.", ""]
    return lines
