"""Benchmarks of the course's tools; writes bench/REPORT.md. Run with `make bench`, never as a test.

Each comparison is measured side by side in one run, alternating the two sides, and reported as
medians and their ratio, because this kind of machine is shared and noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

import autograde_bench  # noqa: E402  (beside this file)
import cluster_bench  # noqa: E402
import ffi_bench  # noqa: E402
import kernel_bench  # noqa: E402


def timed(cmd: list[str], env: dict | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, env=env, cwd=ROOT)
    return time.perf_counter() - start


def build_cold_vs_cached(repeats: int) -> tuple[list[float], list[float]]:
    """Wall time of grader.build("ffi_rms_norm.cc") in a fresh process: empty cache vs warm cache."""
    # JAX is imported before the clock starts, as it is in a notebook by the time it builds C++.
    code = ("import time, jax, jax.ffi, grader; t = time.perf_counter(); lib = grader.build('ffi_rms_norm.cc'); "
            "print(time.perf_counter() - t, lib.cached)")
    cold, cached = [], []
    with tempfile.TemporaryDirectory() as warm:
        env_warm = dict(os.environ, JBJ_BUILD_CACHE=warm)
        subprocess.run([sys.executable, "-c", code], check=True, env=env_warm, capture_output=True)
        for _ in range(repeats):
            with tempfile.TemporaryDirectory() as empty:
                for env, into, want in ((dict(os.environ, JBJ_BUILD_CACHE=empty), cold, "False"),
                                        (env_warm, cached, "True")):
                    out = subprocess.run([sys.executable, "-c", code], check=True, env=env,
                                         capture_output=True, text=True).stdout.split()
                    assert out[1] == want, out
                    into.append(float(out[0]))
    return cold, cached


def check_times(repeats: int) -> dict[str, list[float]]:
    """Wall time of `grader check` on chapter 01's learner and solution notebooks."""
    runs: dict[str, list[float]] = {"learner": [], "solution": []}
    for _ in range(repeats):
        for kind, folder in (("learner", "notebooks"), ("solution", "solutions")):
            path = ROOT / folder / "01_numpy_interop" / "01_numpy_interop.ipynb"
            runs[kind].append(timed([sys.executable, "-m", "grader", "check", str(path)]))
    return runs


def grading_section(grading: dict) -> list[str]:
    med = statistics.median
    walls, per = grading["walls"], grading["per_submission"]
    ratio = med(walls["nbgrader"]) / med(walls["grader"])
    if grading.get("reused"):
        when = (f"on {grading['measured_at']}" if "measured_at" in grading
                else "in an earlier run (before runs recorded their date)")
        provenance = [f"*Not measured in this run:* taken from `bench/grading-times.json`, measured {when}.", ""]
    else:
        provenance = []
    return [
        f"## Grading a class: {autograde_bench.STUDENTS} submissions of {autograde_bench.CHAPTER}",
        "",
        *provenance,
        autograde_bench.__doc__.split("\n\n", 1)[1].strip().replace("\n", " "),
        "",
        "| command | runs | median wall time | all runs |",
        "| --- | --- | --- | --- |",
        *(f"| {name} | {len(t)} | {med(t):.1f} s | {', '.join(f'{x:.1f}' for x in t)} |"
          for name, t in (("nbgrader autograde (sequential, unsandboxed)", walls["nbgrader"]),
                          ("grader autograde (parallel, sandboxed)", walls["grader"]),
                          ("grader autograde --no-sandbox", walls["grader-no-sandbox"]))),
        "",
        f"`grader autograde` with the sandbox on is **{ratio:.2f}x** faster than sequential `nbgrader autograde` "
        f"(ratio of medians). Outcomes seen: {', '.join(grading['statuses'])}.",
        "",
        f"Per-submission time in the kernel (start to last cell), median over all submissions: "
        f"{med(per['on']):.2f} s sandboxed vs {med(per['off']):.2f} s with limits only: the sandbox adds "
        f"{med(per['on']) - med(per['off']):+.2f} s per submission.",
        "",
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs per measurement (default 5)")
    parser.add_argument("--class-repeats", type=int, default=3,
                        help="runs of the class-grading comparison (default 3; each grades 3 x 20 notebooks)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "REPORT.md", help="report file")
    parser.add_argument("--reuse-grading", action="store_true",
                        help="take the class-grading times from bench/grading-times.json and cluster-times.json (an earlier run) instead "
                             "of measuring them again; the report says so")
    args = parser.parse_args()

    raw = args.out.parent / "grading-times.json"
    if args.reuse_grading:
        grading = json.loads(raw.read_text())
        grading["reused"] = True
    else:
        grading = autograde_bench.run(args.class_repeats)
        grading["measured_at"] = f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC"
        # Kept raw beside the report, so a failure while writing it loses no measurement.
        raw.write_text(json.dumps(grading, indent=1))
    cluster_raw = args.out.parent / "cluster-times.json"
    if args.reuse_grading and cluster_raw.exists():
        on_cluster = json.loads(cluster_raw.read_text())
        on_cluster["reused"] = True
    else:
        on_cluster = cluster_bench.run(max(1, args.class_repeats - 1))
        on_cluster["measured_at"] = f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC"
        cluster_raw.write_text(json.dumps(on_cluster, indent=1))
    ffi = ffi_bench.run(args.repeats)
    (args.out.parent / "ffi-times.json").write_text(json.dumps(ffi, indent=1))
    kernels = kernel_bench.run(args.repeats)
    (args.out.parent / "kernel-times.json").write_text(json.dumps(kernels, indent=1))
    cold, cached = build_cold_vs_cached(args.repeats)
    checks = check_times(max(1, args.repeats // 2))
    med = statistics.median
    lines = [
        "# Benchmark report",
        "",
        f"Written by `make bench` on {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC: Python "
        f"{platform.python_version()}, {os.cpu_count()} cores. Medians of runs alternated side by side.",
        "",
        "## C++ build of cpp/ffi_rms_norm.cc (chapter 11's FFI handlers), in a fresh process with JAX imported",
        "",
        "| cache | runs | median wall time | all runs |",
        "| --- | --- | --- | --- |",
        f"| empty (compiles) | {len(cold)} | {med(cold):.3f} s | {', '.join(f'{t:.3f}' for t in cold)} |",
        f"| warm (no compiler call) | {len(cached)} | {med(cached) * 1e3:.2f} ms | {', '.join(f'{t * 1e3:.2f}' for t in cached)} |",
        "",
        f"A cached build is {med(cold) / med(cached):.0f}x faster than a cold one.",
        "",
        "## `grader check` on chapter 01 (one sandboxed kernel through the autograde pipeline; the "
        "reference run and its caches are kept in the user's cache after the first check)",
        "",
        "| notebook | runs | median wall time |",
        "| --- | --- | --- |",
        *(f"| {kind} | {len(t)} | {med(t):.1f} s |" for kind, t in checks.items()),
        "",
        *ffi_bench.section(ffi),
        *kernel_bench.section(kernels),
        *grading_section(grading),
        *cluster_bench.section(on_cluster),
    ]
    args.out.write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
