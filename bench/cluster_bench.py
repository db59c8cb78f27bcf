"""Grading a class on a Dask cluster: one worker vs two, on the same 20 submissions.

A scheduler and workers are started on loopback with the venv's `dask` command (one thread each,
as `dask worker --nthreads 1`); each side grades its own copy of the same 20 submissions of one
chapter (`autograde_bench`'s class: half correct, a quarter blank, a quarter wrong), in a fresh
process, the reference solution included (not cached), without feedback. The sides alternate.
From the one-worker runs comes the cost of a submission in worker-seconds, and from it an estimate
for a big class.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import autograde_bench

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

CHAPTER = autograde_bench.CHAPTER
STUDENTS = autograde_bench.STUDENTS


def _grade(course: Path, address: str) -> dict:
    code = ("import json, sys; from grader.autograde import autograde; "
            "s = autograde(sys.argv[1], [sys.argv[2]], feedback=False, progress=False, scheduler=sys.argv[3]); "
            "print(json.dumps({'stages': s.stages, 'status': sorted({r.status for r in s.rows}), "
            "'seconds': [r.seconds for r in s.rows], 'rows': len(s.rows)}))")
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code, str(course), CHAPTER, address], capture_output=True,
                          text=True, cwd=course)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-3000:])
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["wall"] = wall
    return out


def run(repeats: int) -> dict:
    from dask_cluster import local_cluster

    results: dict[str, list[dict]] = {"1": [], "2": []}
    with tempfile.TemporaryDirectory(prefix="bench-dask-") as tmp:
        with local_cluster(Path(tmp) / "one", workers=1) as one, local_cluster(Path(tmp) / "two", workers=2) as two:
            for r in range(repeats):
                for n, cluster in (("1", one), ("2", two)):
                    course = Path(tmp) / f"course-{n}-{r}"
                    course.mkdir()
                    autograde_bench._make_course(course)
                    results[n].append(_grade(course, cluster.address))
    return {"runs": results, "students": STUDENTS, "chapter": CHAPTER}


def section(data: dict) -> list[str]:
    med = statistics.median
    one, two = data["runs"]["1"], data["runs"]["2"]
    w1, w2 = med(r["wall"] for r in one), med(r["wall"] for r in two)
    n = data["students"]
    # The cost of one submission on one worker thread: the run stage's time on one worker, less one
    # reference run (about one submission's time: the reference is the solution), over the jobs.
    run1 = med(r["stages"]["intake and run"] for r in one)
    per_job = run1 / (n + 1)
    fixed = med(sum(v for k, v in r["stages"].items() if k != "intake and run") for r in one)
    per_row = fixed / n  # judging, the gradebook and the reports, on the instructor's machine
    statuses = sorted({s for r in one + two for s in r["status"]})
    lines = [
        f"## Grading on a Dask cluster: one worker vs two ({n} submissions of {data['chapter']})",
        "",
        "A scheduler and one-thread workers on loopback (this machine's cores are the workers' cores); "
        "each run grades its own copy of the same class, reference included, in a fresh process; sides "
        f"alternated, {len(one)} runs each. Rows: {', '.join(statuses)}."
        + (f" (Times of an earlier run, {data.get('measured_at', 'date unknown')}, reused with --reuse-grading.)"
           if data.get("reused") else ""),
        "",
        "| workers | runs | median wall time | run stage | judge + gradebook + reports | all runs |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for label, runs in (("1", one), ("2", two)):
        lines.append(f"| {label} | {len(runs)} | {med(r['wall'] for r in runs):.1f} s | "
                     f"{med(r['stages']['intake and run'] for r in runs):.1f} s | "
                     f"{med(sum(v for k, v in r['stages'].items() if k != 'intake and run') for r in runs):.1f} s | "
                     f"{', '.join(f'{r['wall']:.1f}' for r in runs)} |")
    est = []
    for workers in (10, 50, 200):
        seconds = 10_000 * per_job / workers + 10_000 * per_row
        est.append(f"{workers} worker threads: about {seconds / 60:.0f} min "
                   f"({10_000 * per_job / workers / 60:.0f} min grading, {10_000 * per_row / 60:.0f} min on the "
                   "instructor's machine)")
    lines += [
        "",
        f"Two workers take {w2 / w1:.2f}x the wall time of one ({w1 / w2:.2f}x faster).",
        "",
        f"**Estimate for 10 000 submissions.** Measured here: a submission costs about {per_job:.1f} "
        f"worker-thread-seconds (the one-worker run stage over its {n} submissions and the reference), and "
        f"judging, writing the gradebook and the reports about {per_row * 1e3:.0f} ms per submission on the "
        "instructor's machine. With one thread per core and jobs that scale as measured above, 10 000 "
        "submissions of this chapter take: " + "; ".join(est) + ". These assume the per-submission cost stays "
        "what it is at 20 (nbgrader's gradebook writes grow with the class; measure on your own machines "
        "first) and the reference runs once per chapter (about one submission's time at the start). "
        "Chapters with C++ builds cost more per submission when a build is not in the shared caches.",
        "",
    ]
    return lines


if __name__ == "__main__":
    data = run(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
    print(json.dumps(data, indent=1))
    print("\n".join(section(data)))
