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


def build_times(repeats: int) -> dict[str, list[float]]:
    """Wall time of grader.build("ffi_rms_norm.cc") in a fresh process, taking turns: an empty cache
    with the FFI header precompiled (`make headers`), an empty cache reading the header as text, and
    a warm cache."""
    # JAX is imported before the clock starts, as it is in a notebook by the time it builds C++.
    code = ("import sys, time, jax, jax.ffi, grader; from grader.notebook import build as b\n"
            "if sys.argv[1] == 'text': b._pch_flags = lambda *args: []\n"
            "t = time.perf_counter(); lib = grader.build('ffi_rms_norm.cc'); print(time.perf_counter() - t, lib.cached)")
    from grader.notebook import build

    build.precompile_headers()
    times: dict[str, list[float]] = {"compiled": [], "text": [], "cached": []}
    with tempfile.TemporaryDirectory() as warm:
        env_warm = dict(os.environ, JBJ_BUILD_CACHE=warm)
        subprocess.run([sys.executable, "-c", code, "compiled"], check=True, env=env_warm, capture_output=True)
        for _ in range(repeats):
            for side in times:
                with tempfile.TemporaryDirectory() as empty:
                    env = env_warm if side == "cached" else dict(os.environ, JBJ_BUILD_CACHE=empty)
                    out = subprocess.run([sys.executable, "-c", code, side], check=True, env=env,
                                         capture_output=True, text=True).stdout.split()
                    assert out[1] == str(side == "cached"), out
                    times[side].append(float(out[0]))
    return times


def build_section(times: dict[str, list[float]]) -> list[str]:
    med = statistics.median
    rows = {"compiled": "empty, FFI header precompiled (compiles)", "text": "empty, FFI header read as text (compiles)",
            "cached": "warm (no compiler call)"}
    lines = ["## C++ build of cpp/ffi_rms_norm.cc (chapter 11's FFI handlers), in a fresh process with JAX imported", "",
             "| cache | runs | median wall time | all runs |", "| --- | --- | --- | --- |"]
    for side, label in rows.items():
        scale, unit = (1e3, "ms") if side == "cached" else (1.0, "s")
        lines.append(f"| {label} | {len(times[side])} | {med(times[side]) * scale:.3f} {unit} | "
                     f"{', '.join(f'{t * scale:.3f}' for t in times[side])} |")
    lines += ["", f"Reading the precompiled FFI header takes a cold build {med(times['compiled']) / med(times['text']):.2f}x "
              f"the time of reading it as text (same flags, same library; `make headers`). A cached build is "
              f"{med(times['compiled']) / med(times['cached']):.0f}x faster than a cold one.", ""]
    return lines


def replace_section(report_file: Path, section: list[str]) -> None:
    """Put `section` (its first line a "## " heading) in place of the report's section of that heading;
    at the report's end if it has no such section, and as the whole file if there is no report yet."""
    if not report_file.exists():
        report_file.write_text("\n".join(section))
        return
    report = report_file.read_text().split("\n")
    if section[0] not in report:
        report_file.write_text("\n".join(report + [""] + section))
        return
    start = report.index(section[0])
    end = next((i for i in range(start + 1, len(report)) if report[i].startswith("## ")), len(report))
    report_file.write_text("\n".join(report[:start] + section + report[end:]))


def _busy_seconds() -> float:
    """CPU time the whole machine has spent busy since boot (every core, every process)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def run_measured(cmd: list[str]) -> tuple[float, float]:
    """Wall time, and the CPU time the whole machine spent while the command ran. Counted machine-wide,
    because a sandboxed kernel is not a process the command waits for (its CPU time would not reach
    the command's own rusage); on a quiet machine that is the command's own."""
    busy = _busy_seconds()
    start = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT)
    return time.perf_counter() - start, _busy_seconds() - busy


#: The notebook `grader check` is compared on: its solution, all exercises answered.
CHECK_CHAPTER = "01_numpy_interop"


def check_times(repeats: int) -> dict[str, list[tuple[float, float]]]:
    """`grader check` on chapter 01's solution side by side with a plain `jupyter nbconvert --execute`
    of the same notebook (wall and CPU per run), and `grader check` on its learner notebook. One
    check runs first, unmeasured, so that the reference's records are cached as a learner's are
    after their first check."""
    solution = ROOT / "solutions" / CHECK_CHAPTER / f"{CHECK_CHAPTER}.ipynb"
    learner = ROOT / "notebooks" / CHECK_CHAPTER / f"{CHECK_CHAPTER}.ipynb"
    check = [sys.executable, "-m", "grader", "check"]
    subprocess.run([*check, str(solution)], check=True, capture_output=True, cwd=ROOT)
    runs: dict[str, list[tuple[float, float]]] = {"nbconvert": [], "check": [], "learner": []}
    with tempfile.TemporaryDirectory() as out:
        nbconvert = [str(Path(sys.executable).parent / "jupyter"), "nbconvert", "--execute", "--to", "notebook",
                     f"--output-dir={out}", "--ExecutePreprocessor.timeout=1200", str(solution)]
        for number in range(repeats):
            sides = [("nbconvert", nbconvert), ("check", [*check, str(solution)])]
            for kind, cmd in sides if number % 2 == 0 else sides[::-1]:
                runs[kind].append(run_measured(cmd))
            runs["learner"].append(run_measured([*check, str(learner)]))
    return runs


def check_section(checks: dict[str, list[tuple[float, float]]]) -> list[str]:
    med = statistics.median
    wall = {kind: med(w for w, _ in runs) for kind, runs in checks.items()}
    cpu = {kind: med(c for _, c in runs) for kind, runs in checks.items()}
    wall_ratio = med(c[0] / n[0] for c, n in zip(checks["check"], checks["nbconvert"]))
    cpu_ratio = med(c[1] / n[1] for c, n in zip(checks["check"], checks["nbconvert"]))
    return [
        f"## `grader check` on chapter {CHECK_CHAPTER[:2]} vs running the notebook",
        "",
        "`grader check` grades one notebook as one job of the class run's own path (a sandboxed kernel, "
        "hidden checks, verdicts made outside the kernel), with the reference's records cached after "
        "the first check. Beside it, in alternating order, `jupyter nbconvert --execute` runs the same "
        "solution notebook with no grading at all. CPU time is the whole machine's while each command ran "
        "(so `make bench` wants a quiet machine).",
        "",
        "| command | runs | median wall | median CPU |",
        "| --- | --- | --- | --- |",
        *(f"| {label} | {len(checks[kind])} | {wall[kind]:.1f} s | {cpu[kind]:.1f} s |"
          for kind, label in (("nbconvert", "`jupyter nbconvert --execute` (solution)"),
                              ("check", "`grader check` (solution)"), ("learner", "`grader check` (learner notebook)"))),
        "",
        f"Paired runs, median of the per-pair ratios: `grader check` takes {wall_ratio:.2f}x the wall time "
        f"and {cpu_ratio:.2f}x the CPU time of running the notebook (goal: at most 1.2x).",
        "",
    ]


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
        "The last column is the share of the CPUs' time the hypervisor gave to other machines while each run "
        "went (*steal* in `/proc/stat`), in the order of the runs: time no side had, which slows whichever "
        "run it lands on.",
        "",
        "| command | runs | median wall time | all runs | CPU taken by the hypervisor |",
        "| --- | --- | --- | --- | --- |",
        *(f"| {name} | {len(walls[key])} | {med(walls[key]):.1f} s | {', '.join(f'{x:.1f}' for x in walls[key])} | "
          f"{_shares(grading.get('stolen', {}).get(key))} |"
          for name, key in (("nbgrader autograde (sequential, unsandboxed)", "nbgrader"),
                            ("grader autograde (parallel, sandboxed)", "grader"),
                            ("grader autograde --no-sandbox", "grader-no-sandbox"))),
        "",
        f"`grader autograde` with the sandbox on is **{ratio:.2f}x** faster than sequential `nbgrader autograde` "
        f"(ratio of medians; the goal is at least 2.5x: {'met' if ratio >= 2.5 else 'not met'}). "
        f"Outcomes seen: {', '.join(grading['statuses'])}.",
        "",
        f"Per-submission time in the kernel (start to last cell), median over all submissions: "
        f"{med(per['on']):.2f} s sandboxed, each kernel forked by its worker's zygote with JAX imported, vs "
        f"{med(per['off']):.2f} s with limits only, each kernel started on its own and importing JAX itself "
        f"({med(per['on']) - med(per['off']):+.2f} s per submission).",
        "",
        *stages_lines(grading.get("stages")),
        *breakdown_lines(grading.get("breakdown")),
    ]


def _shares(values: list[float] | None) -> str:
    """Shares as percentages, in order, or — where a run did not count them."""
    return ", ".join(f"{v:.0%}" for v in values) if values else "—"


def stages_lines(stages: dict[str, list[float]] | None) -> list[str]:
    """The sandboxed runs' stages (medians): what of a class run is not running notebooks."""
    if not stages:
        return []
    med = statistics.median
    return ["Stages of the sandboxed runs (medians): "
            + "; ".join(f"{name} {med(values):.1f} s" for name, values in stages.items()) + ".", ""]


def breakdown_lines(parts: dict[str, dict[str, list[float]]] | None) -> list[str]:
    """Where one submission's time goes (`autograde_bench.breakdown`), as a table of medians."""
    if not parts:
        return []
    med = statistics.median
    kinds = list(parts)
    runs = len(next(iter(parts[kinds[0]].values())))
    names = [*autograde_bench.PARTS, "whole job", *([autograde_bench.PUBLIC_ONLY]
                                                    if autograde_bench.PUBLIC_ONLY in parts[kinds[0]] else [])]
    return [
        "### Where a submission's time goes",
        "",
        " ".join(autograde_bench.breakdown.__doc__.split()) + f" Medians of {runs} runs each, in seconds.",
        "",
        "| part | " + " | ".join(kinds) + " |",
        "| --- |" + " --- |" * len(kinds),
        *(f"| {name} | " + " | ".join(f"{med(parts[k][name]):.2f}" for k in kinds) + " |" for name in names),
        "",
        "*Kernel start* runs from the kernel's launch (limits, bubblewrap, and the fork by the zygote, which "
        "imported JAX and ipykernel once) to its first cell; the first code cell imports JAX, already loaded. "
        "*Between cells* is the round trip of each cell's messages (nbclient and the kernel) outside the cells' "
        "own code. The solved submission is the reference solution as written, so its answers' programs "
        "are the reference's and load from the sealed cache; a correct answer written another way loads only "
        "the test cells' programs that do not depend on it, as the wrong one does.",
        "",
    ]


def measure_grading(class_repeats: int, part_repeats: int) -> dict:
    """The class-grading comparison (`autograde_bench.run`) and where a submission's time goes
    (`autograde_bench.breakdown`), with the date."""
    grading = autograde_bench.run(class_repeats)
    grading["breakdown"] = autograde_bench.breakdown(part_repeats)
    grading["measured_at"] = f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC"
    return grading


def main() -> int:
    # The benchmarks read their times: no cap on a comparison's rounds (grader.timing), whatever the shell says.
    os.environ.pop("JBJ_TIMING_ROUNDS", None)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs per measurement (default 5)")
    parser.add_argument("--class-repeats", type=int, default=3,
                        help="runs of the class-grading comparison (default 3; each grades 3 x 20 notebooks)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "REPORT.md", help="report file")
    parser.add_argument("--reuse-grading", action="store_true",
                        help="take the class-grading times from bench/grading-times.json and cluster-times.json (an earlier run) instead "
                             "of measuring them again; the report says so")
    parser.add_argument("--check-only", action="store_true",
                        help="measure only `grader check` against running the notebook and replace that section of the report, print it")
    parser.add_argument("--kernels-only", action="store_true",
                        help="measure only chapter 12's kernels: write bench/kernel-times.json and replace that "
                             "section of the report (the other sections are kept), print it")
    parser.add_argument("--grading-only", action="store_true",
                        help="measure only the class-grading comparison and where a submission's time goes: write "
                             "bench/grading-times.json and replace that section of the report (the others are kept), print it")
    parser.add_argument("--cluster-only", action="store_true",
                        help="measure only grading on a Dask cluster (one worker vs two): write bench/cluster-times.json "
                             "and replace that section of the report (the others are kept), print it")
    parser.add_argument("--builds-only", action="store_true",
                        help="measure only the C++ build (FFI header precompiled, read as text, cached) and replace "
                             "that section of the report, print it")
    args = parser.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)  # the raw times go beside the report
    if args.check_only:
        section = check_section(check_times(args.repeats))
        section[1:1] = ["", f"*Measured alone on {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC* "
                        f"(`python bench/run.py --check-only --repeats {args.repeats}`); the other sections are from their own runs."]
        print("\n".join(section))
        replace_section(args.out, section)
        return 0
    if args.kernels_only:
        load = os.getloadavg()[0]
        kernels = kernel_bench.run(args.repeats)
        (args.out.parent / "kernel-times.json").write_text(json.dumps(kernels, indent=1))
        section = kernel_bench.section(kernels)
        section[1:1] = ["", f"*Measured alone on {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC* "
                        f"(`python bench/run.py --kernels-only --repeats {args.repeats}`; {os.cpu_count()} cores, "
                        f"one-minute load average {load:.1f} before the run and {os.getloadavg()[0]:.1f} after it, which counts the "
                        "bench itself); the other sections are from their own runs."]
        print("\n".join(section))
        replace_section(args.out, section)
        return 0
    if args.builds_only:
        section = build_section(build_times(args.repeats))
        section[1:1] = ["", f"*Measured alone on {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC* "
                        f"(`python bench/run.py --builds-only --repeats {args.repeats}`); the other sections are from their own runs."]
        print("\n".join(section))
        replace_section(args.out, section)
        return 0

    cluster_raw = args.out.parent / "cluster-times.json"
    if args.cluster_only:
        on_cluster = cluster_bench.run(max(1, args.class_repeats - 1))
        on_cluster["measured_at"] = f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC"
        cluster_raw.write_text(json.dumps(on_cluster, indent=1))
        section = cluster_bench.section(on_cluster)
        section[1:1] = ["", f"*Measured alone on {on_cluster['measured_at']}* (`python bench/run.py --cluster-only "
                        f"--class-repeats {args.class_repeats}`); the other sections are from their own runs."]
        print("\n".join(section))
        replace_section(args.out, section)
        return 0
    raw = args.out.parent / "grading-times.json"
    if args.grading_only:
        grading = measure_grading(args.class_repeats, max(1, args.repeats // 2))
        raw.write_text(json.dumps(grading, indent=1))
        section = grading_section(grading)
        section[1:1] = ["", f"*Measured alone on {grading['measured_at']}* (`python bench/run.py --grading-only "
                        f"--class-repeats {args.class_repeats} --repeats {args.repeats}`); the other sections are "
                        "from their own runs."]
        print("\n".join(section))
        replace_section(args.out, section)
        return 0
    if args.reuse_grading:
        grading = json.loads(raw.read_text())
        grading["reused"] = True
    else:
        grading = measure_grading(args.class_repeats, max(1, args.repeats // 2))
        # Kept raw beside the report, so a failure while writing it loses no measurement.
        raw.write_text(json.dumps(grading, indent=1))
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
    builds = build_times(args.repeats)
    checks = check_times(max(1, args.repeats // 2))
    lines = [
        "# Benchmark report",
        "",
        f"Written by `make bench` on {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC: Python "
        f"{platform.python_version()}, {os.cpu_count()} cores. Medians of runs alternated side by side.",
        "",
        *build_section(builds),
        *check_section(checks),
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
