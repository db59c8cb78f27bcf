"""Grading a class: `grader autograde` (sandboxed, parallel) vs plain sequential `nbgrader autograde`.

Both grade the same 20 submissions of one chapter (half correct, a quarter blank, a quarter wrong),
each in its own copy of a scratch course, alternating the two sides. nbgrader's side is timed from
`nbgrader autograde` alone (its assignment is set up beforehand, untimed); ours is timed for a whole
`grader autograde` run in a fresh process, including recording the assignment and running the
reference solution (not cached), without HTML feedback (nbgrader autograde writes none either).
"""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

CHAPTER = "01_numpy_interop"
STUDENTS = 20


def _make_course(folder: Path) -> None:
    from wrong_answers import wrong_answers

    shutil.copy(ROOT / "nbgrader_config.py", folder)
    shutil.copytree(ROOT / "solutions" / CHAPTER, folder / "solutions" / CHAPTER)
    solved = nbformat.read(ROOT / "solutions" / CHAPTER / f"{CHAPTER}.ipynb", as_version=4)
    blank = nbformat.read(ROOT / "notebooks" / CHAPTER / f"{CHAPTER}.ipynb", as_version=4)
    wrong = copy.deepcopy(solved)
    for cell in wrong.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if gid in wrong_answers(CHAPTER):
            cell.source = wrong_answers(CHAPTER)[gid]
    for i in range(STUDENTS):
        nb = solved if i % 2 == 0 else (blank if i % 4 == 1 else wrong)
        target = folder / "submitted" / f"student{i:02d}" / CHAPTER
        target.mkdir(parents=True)
        nbformat.write(nb, target / f"{CHAPTER}.ipynb")


def _nbgrader(args: list[str], course: Path) -> None:
    from grader.course import run_nbgrader

    proc = run_nbgrader([*args, f"--CourseDirectory.root={course}",
                         f"--CourseDirectory.db_url=sqlite:///{course / 'gradebook.db'}"], cwd=course)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])


def _ours(course: Path, extra: list[str]) -> tuple[float, list[float], list[str], dict[str, float]]:
    code = ("import json, sys; from grader.autograde import autograde; "
            "s = autograde(sys.argv[1], [sys.argv[2]], feedback=False, progress=False, use_sandbox=sys.argv[3] == 'on'); "
            "print(json.dumps({'seconds': [r.seconds for r in s.rows], 'status': [r.status for r in s.rows], "
            "'sandboxed': s.sandboxed, 'stages': s.stages}))")
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code, str(course), CHAPTER, *extra], capture_output=True,
                          text=True, cwd=course, check=True)
    wall = time.perf_counter() - start
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    return (wall, out["seconds"], out["status"] + (["sandboxed"] if out["sandboxed"] else ["unsandboxed"]),
            out["stages"])


def _stat() -> tuple[int, int]:
    """The machine's CPU time so far from /proc/stat, in ticks: what the hypervisor gave this virtual
    machine's CPUs to other machines (steal), and all of it."""
    fields = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:9]]
    return fields[7], sum(fields)


def _stolen(before: tuple[int, int]) -> float:
    """The share of every CPU's time the hypervisor took since `before` (`_stat`)."""
    steal, total = _stat()
    return (steal - before[0]) / max(total - before[1], 1)


def run(repeats: int) -> dict:
    """Wall times of both sides, alternated; per-submission kernel time with and without the sandbox
    (the latter from a third run of ours in the same rotation, with --no-sandbox); and for each run,
    the share of the CPUs' time the hypervisor took meanwhile (steal), which slows any side it lands on."""
    walls = {"nbgrader": [], "grader": [], "grader-no-sandbox": []}
    stolen = {name: [] for name in walls}
    per_sub = {"on": [], "off": []}
    stages: dict[str, list[float]] = {}  # the sandboxed runs' stages (`Summary.stages`)
    statuses = set()
    for _ in range(repeats):
        with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
            a, b, c = (Path(tmp) / name for name in ("nbgrader", "grader", "nosandbox"))
            for course in (a, b, c):
                course.mkdir()
                _make_course(course)
            _nbgrader(["generate_assignment", CHAPTER, "--force",
                       f"--CourseDirectory.release_directory={a / 'release'}"], a)
            start, ticks = time.perf_counter(), _stat()
            _nbgrader(["autograde", CHAPTER, "--force"], a)
            walls["nbgrader"].append(time.perf_counter() - start)
            stolen["nbgrader"].append(_stolen(ticks))
            for course, mode, key in ((b, "on", "grader"), (c, "off", "grader-no-sandbox")):
                ticks = _stat()
                wall, seconds, status, times = _ours(course, [mode])
                walls[key].append(wall)
                stolen[key].append(_stolen(ticks))
                per_sub[mode] += seconds
                if mode == "on":
                    statuses |= set(status)
                    for name, value in times.items():
                        stages.setdefault(name, []).append(value)
    return {"walls": walls, "per_submission": per_sub, "statuses": sorted(statuses), "stages": stages,
            "stolen": stolen}


#: The kinds of cell a submission's time is split into (`breakdown`), in the report's order.
PARTS = ("kernel start", "first code cell (imports JAX)", "teaching cells", "answer cells", "test cells",
         "between cells")


def _cell_kind(cell, index: int, first_code: int) -> str:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    if index == first_code:
        return PARTS[1]
    if meta.get("grade"):
        return PARTS[4]
    if meta.get("solution"):
        return PARTS[3]
    return PARTS[2]


def _split(nb, seconds: float) -> dict[str, float]:
    """One executed notebook's time by `PARTS`, from the cells' timestamps; `seconds` is the whole run
    (kernel launch to the run's end), so what lies outside the cells (almost all of it before the
    first) is counted as the kernel's start."""
    from datetime import datetime

    def when(stamp: str) -> float:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()

    parts = dict.fromkeys(PARTS, 0.0)
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    spans = []
    for index in code:
        t = nb.cells[index].get("metadata", {}).get("execution", {})
        if "shell.execute_reply" not in t:
            continue
        start = when(t.get("shell.execute_reply.started") or t["iopub.execute_input"])
        spans.append((start, when(t["shell.execute_reply"])))
        parts[_cell_kind(nb.cells[index], index, code[0])] += spans[-1][1] - spans[-1][0]
    if spans:
        whole = spans[-1][1] - spans[0][0]
        parts[PARTS[5]] = whole - sum(parts[p] for p in PARTS[1:5])
        parts[PARTS[0]] = max(0.0, seconds - whole)
    return parts


#: The breakdown's last row: the whole job when its kernel gets no sealed cache (`worker.can_seal`).
PUBLIC_ONLY = "whole job, public cells' compilations only"


def breakdown(repeats: int) -> dict[str, dict[str, list[float]]]:
    """Where one submission's time goes, one job at a time, sandboxed as in a class run: the reference
    runs first and publishes its caches, then three of the class's submissions (solved, blank, wrong)
    run from them in turns, each job's kernel forked by one zygote into its own sandbox. The cells' times come from
    nbclient's `record_timing`, which grading leaves off; only this measurement turns it on. Each job runs
    twice in a row: as in a class run, its kernel given every compilation of the reference's, sealed (the
    table's parts), then given only those of the public cells (the last row)."""
    from grader.autograde import kernel, run, worker, zygote
    from grader.autograde.jobs import Limits

    original, can_seal = kernel._LimitedClient.__init__, worker.can_seal

    def timed_init(self, *args, **kwargs):
        kwargs["record_timing"] = True
        original(self, *args, **kwargs)

    executed: list = []  # (notebook, seconds) of each run, in order
    kernel._LimitedClient.__init__ = timed_init
    original_run = worker.runner.run

    def keep(nb, *args, **kwargs):
        result = original_run(nb, *args, **kwargs)
        executed.append((nb, result.seconds))
        return result

    worker.runner.run = keep
    out: dict[str, dict[str, list[float]]] = {}
    forks = zygote.shared()  # as a class run's worker has: each kernel is forked by it
    try:
        with tempfile.TemporaryDirectory(prefix="bench-parts-") as tmp:
            course = Path(tmp) / "course"
            course.mkdir()
            _make_course(course)
            solution = course / "solutions" / CHAPTER / f"{CHAPTER}.ipynb"
            warm = Path(tmp) / "warm"
            sources = {CHAPTER: solution}
            spec = run.job_spec("(reference)", CHAPTER, solution, sources, Path(tmp) / "ref.ipynb", Limits(), True,
                                warm, True)
            worker.grade_spec(spec)
            kinds = {"solved": "student00", "blank": "student01", "wrong": "student03"}
            for _ in range(repeats):
                for kind, student in kinds.items():
                    notebook = course / "submitted" / student / CHAPTER / f"{CHAPTER}.ipynb"
                    spec = run.job_spec(student, CHAPTER, notebook, sources, Path(tmp) / f"{kind}.ipynb", Limits(),
                                        True, warm, False)
                    worker.grade_spec(spec)
                    nb, seconds = executed[-1]
                    parts = _split(nb, seconds)
                    for name, value in {**parts, "whole job": seconds}.items():
                        out.setdefault(kind, {}).setdefault(name, []).append(value)
                    # The same job again, its kernel given only the public cells' compilations.
                    worker.can_seal = lambda *args, **kwargs: False
                    try:
                        worker.grade_spec(spec)
                    finally:
                        worker.can_seal = can_seal
                    out[kind].setdefault(PUBLIC_ONLY, []).append(executed[-1][1])
    finally:
        kernel._LimitedClient.__init__ = original
        worker.runner.run = original_run
        if forks:
            forks.stop()
    return out
