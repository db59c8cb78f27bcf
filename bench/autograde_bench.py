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


def _ours(course: Path, extra: list[str]) -> tuple[float, list[float], list[str]]:
    code = ("import json, sys; from grader.autograde import autograde; "
            "s = autograde(sys.argv[1], [sys.argv[2]], feedback=False, progress=False, use_sandbox=sys.argv[3] == 'on'); "
            "print(json.dumps({'seconds': [r.seconds for r in s.rows], 'status': [r.status for r in s.rows], "
            "'sandboxed': s.sandboxed}))")
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code, str(course), CHAPTER, *extra], capture_output=True,
                          text=True, cwd=course, check=True)
    wall = time.perf_counter() - start
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    return wall, out["seconds"], out["status"] + (["sandboxed"] if out["sandboxed"] else ["unsandboxed"])


def run(repeats: int) -> dict:
    """Wall times of both sides, alternated; per-submission kernel time with and without the sandbox
    (the latter from a third run of ours in the same rotation, with --no-sandbox)."""
    walls = {"nbgrader": [], "grader": [], "grader-no-sandbox": []}
    per_sub = {"on": [], "off": []}
    statuses = set()
    for _ in range(repeats):
        with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
            a, b, c = (Path(tmp) / name for name in ("nbgrader", "grader", "nosandbox"))
            for course in (a, b, c):
                course.mkdir()
                _make_course(course)
            _nbgrader(["generate_assignment", CHAPTER, "--force",
                       f"--CourseDirectory.release_directory={a / 'release'}"], a)
            start = time.perf_counter()
            _nbgrader(["autograde", CHAPTER, "--force"], a)
            walls["nbgrader"].append(time.perf_counter() - start)
            for course, mode, key in ((b, "on", "grader"), (c, "off", "grader-no-sandbox")):
                wall, seconds, status = _ours(course, [mode])
                walls[key].append(wall)
                per_sub[mode] += seconds
                if mode == "on":
                    statuses |= set(status)
    return {"walls": walls, "per_submission": per_sub, "statuses": sorted(statuses)}
