"""Chapter 11's C++: RMSNorm through XLA FFI vs ctypes + pure_callback vs jnp, and its build times.

Each measurement runs in a fresh Python process, so the JAX and build caches of one do not help
another; inside it, the compared functions take turns, round after round, each round in a new
(seeded) order, and are reported as medians.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHAPTER = ROOT / "solutions" / "11_cpp_ffi" / "11_cpp_ffi.ipynb"

# Runs in a child process: prints one JSON object of per-round times in milliseconds.
_KERNELS = r"""
import ctypes, json, sys
from functools import partial
import jax, jax.numpy as jnp, numpy as np, grader
from grader import timing

shape, rounds = tuple(json.loads(sys.argv[1])), int(sys.argv[2])
lib = grader.build("ffi_rms_norm.cc")
f32 = np.ctypeslib.ndpointer(dtype=np.float32, flags="C_CONTIGUOUS")
rows_f32 = lib.function("rms_norm_rows_f32", argtypes=[f32, f32, ctypes.c_int64, ctypes.c_int64, ctypes.c_float])
lib.register_ffi_target("rms_norm")

def host(x, eps):
    x = np.ascontiguousarray(x, dtype=np.float32)
    y = np.empty_like(x)
    rows_f32(x, y, x.size // x.shape[-1], x.shape[-1], eps)
    return y

sides = {
    "jnp": jax.jit(lambda x: x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-5)),
    "ffi": jax.jit(lambda x: jax.ffi.ffi_call("rms_norm", jax.ShapeDtypeStruct(x.shape, x.dtype))(x, eps=np.float32(1e-5))),
    "callback": jax.jit(lambda x: jax.pure_callback(partial(host, eps=1e-5), jax.ShapeDtypeStruct(x.shape, x.dtype), x)),
}
x = jax.random.normal(jax.random.key(0), shape, jnp.float32)
expected = np.asarray(sides["jnp"](x))
for name, fn in sides.items():
    np.testing.assert_allclose(fn(x), expected, rtol=1e-5, atol=1e-6)   # all three compute the same thing
# Warm-up rounds, then the sides in turns, in a new order each round (the helper chapter 12 teaches).
times = timing.compare({name: (lambda fn=fn: fn(x)) for name, fn in sides.items()}, repeats=rounds, warmup=5)
print(json.dumps({name: [s * 1e3 for s in t.samples] for name, t in times.items()}))
"""

# Runs in a child process: builds every C++ source of chapter 11 and prints the wall time and
# whether it came from the cache.
_BUILDS = r"""
import json, sys, time
import jax, jax.ffi, grader
sources = json.loads(sys.stdin.read())
start = time.perf_counter()
cached = [grader.build("ffi_rms_norm.cc").cached]
cached += [grader.build(code=code, name=name).cached for name, code in sources.items()]
print(json.dumps({"seconds": time.perf_counter() - start, "cached": cached}))
"""


def chapter_sources() -> dict[str, str]:
    """The C++ written in chapter 11's teaching cells (`<name>_cc = r\"\"\"...\"\"\"`), by name."""
    import nbformat

    nb = nbformat.read(CHAPTER, as_version=4)
    found = {}
    for cell in nb.cells:
        if cell.cell_type == "code" and not cell.metadata.get("nbgrader"):
            for name, code in re.findall(r'(\w+)_cc = r"""(.*?)"""', cell.source, re.S):
                found[name] = code
    return found


def kernel_times(shape: tuple[int, ...], rounds: int) -> dict[str, list[float]]:
    out = subprocess.run([sys.executable, "-c", _KERNELS, json.dumps(list(shape)), str(rounds)],
                         check=True, capture_output=True, text=True, cwd=ROOT)
    return json.loads(out.stdout)


def build_times(repeats: int) -> dict[str, list[float]]:
    """Seconds to build all of chapter 11's C++ in a fresh process: into an empty cache, and again."""
    sources = json.dumps(chapter_sources())
    cold, cached = [], []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, JBJ_BUILD_CACHE=cache)
            for into, want in ((cold, False), (cached, True)):
                out = subprocess.run([sys.executable, "-c", _BUILDS], input=sources, check=True,
                                     capture_output=True, text=True, env=env, cwd=ROOT)
                result = json.loads(out.stdout)
                assert all(c is want for c in result["cached"]), result
                into.append(result["seconds"])
    return {"cold": cold, "cached": cached, "libraries": [1 + len(chapter_sources())]}


def run(repeats: int) -> dict:
    return {"kernels": {f"{a}x{b}": kernel_times((a, b), 15 * repeats) for a, b in ((4096, 256), (8, 64))},
            "builds": build_times(max(2, repeats // 2))}


def section(result: dict) -> list[str]:
    from statistics import median as med

    lines = ["## Chapter 11: RMSNorm through XLA FFI, ctypes + pure_callback and jnp (float32)", "",
             __doc__.split("\n\n", 1)[1].strip().replace("\n", " "), "",
             "| shape | rounds | jnp (XLA) | XLA FFI | ctypes + pure_callback | FFI / jnp | callback / jnp | callback / FFI |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for shape, times in result["kernels"].items():
        m = {name: med(t) for name, t in times.items()}
        lines.append(f"| {shape} | {len(times['jnp'])} | {m['jnp']:.3f} ms | {m['ffi']:.3f} ms | {m['callback']:.3f} ms | "
                     f"{m['ffi'] / m['jnp']:.2f}x | {m['callback'] / m['jnp']:.2f}x | {m['callback'] / m['ffi']:.2f}x |")
    builds = result["builds"]
    lines += ["", f"Building all {builds['libraries'][0]} of the chapter's C++ libraries (cpp/ffi_rms_norm.cc and the "
              "sources written in its cells), in a fresh process with JAX imported:", "",
              "| cache | runs | median wall time | all runs |", "| --- | --- | --- | --- |",
              f"| empty (compiles) | {len(builds['cold'])} | {med(builds['cold']):.2f} s | "
              f"{', '.join(f'{t:.2f}' for t in builds['cold'])} |",
              f"| warm (no compiler call) | {len(builds['cached'])} | {med(builds['cached']) * 1e3:.1f} ms | "
              f"{', '.join(f'{t * 1e3:.1f}' for t in builds['cached'])} |", ""]
    return lines
