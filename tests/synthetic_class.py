"""A synthetic class of 00_start_here submissions: honest, broken and hostile, each with the outcome
the autograder must give it.

`build(course)` writes them into `course`/submitted (and an LMS-style zip beside it), and returns
`EXPECTED`: student -> (score or None, status prefix, words that must appear in the row's status,
notes or per-exercise messages). Chapter 00 has four graded cells of 2 points: ex1 (sum_of_squares),
ex2 (make_scaled), ex3 (make_cube, C++), quiz.
"""

from __future__ import annotations

import copy
import csv
import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Collection
from pathlib import Path

import nbformat

from grader.course import learner_path, run_nbgrader, solution_path
from wrong_answers import wrong_answers

CHAPTER = "00_start_here"

# Four processes that keep a core busy each for four seconds, then how many cores they had on
# average: at most the kernel's CPU share, whatever the machine has.
CPU_HOG = """
import resource, subprocess, sys, time
_hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(4)]
_start = time.monotonic()
time.sleep(4)
for _hog in _hogs:
    _hog.kill()
    _hog.wait()
_used = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"CPU-HOG {(_used.ru_utime + _used.ru_stime) / (time.monotonic() - _start):.2f} cores")
"""
DUE = "2026-01-10 12:00:00 UTC"
ON_TIME = "2026-01-09 08:00:00.000000 UTC"

# What patching the checks would do in a kernel that trusted them: everything passes.
PATCH_CHECKS = """
import numpy as np
from grader import checks
np.testing.assert_allclose = lambda *a, **k: None
for _name in ("close", "equal", "true", "answers"):
    setattr(checks, _name, lambda *a, **k: None)
"""

ALWAYS_EQUAL = """
class Anything:
    shape, dtype = (), np.dtype("float32")
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __array__(self, dtype=None, copy=None): return np.asarray(14.0, np.float32)
def sum_of_squares(x):
    return Anything()
"""

SNOOP = """
import os, subprocess, urllib.request
found = {}
for path in ("{root}/solutions/00_start_here/00_start_here.ipynb", "{course}/gradebook.db",
             "{course}/submitted", "{course}/solutions/00_start_here/00_start_here.ipynb", "/etc/shadow"):
    try:
        open(path, "rb").read(10)
        found[path] = "READ"
    except OSError as err:
        found[path] = type(err).__name__
try:
    urllib.request.urlopen("http://pypi.org", timeout=3)
    found["network"] = "REACHED"
except Exception as err:
    found["network"] = type(err).__name__
found["shell"] = subprocess.run("ls {course}", shell=True, capture_output=True, text=True).returncode
print("SNOOP", sorted(found.items()))
def sum_of_squares(x):
    return jnp.sum(x) ** 2
"""


FORGE_RECORDS = """
import grader.notebook.record as _r
_r.encode = lambda value, depth=0: {"t": "array", "kind": "ndarray", "dtype": "no_such_dtype", "shape": [1], "v": ""}
q1, q2, q3 = "b", "a", "b"
"""


def _nb(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def _set(nb, grade_id: str, source: str) -> None:
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
    cell.source = source


def _cell(nb, grade_id: str):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def _all_wrong(nb) -> None:
    for gid, source in wrong_answers(CHAPTER).items():
        _set(nb, gid, source)


def build(course: Path, root: Path, students: Collection[str] | None = None) -> dict[str, tuple]:
    """Write the class into `course`/submitted and `course`/lms.zip; return the expected outcomes.
    With `students`, only those (and the LMS entries that become them) are written."""

    def wanted(student: str) -> bool:
        return students is None or student in students

    solved = _nb(solution_path(CHAPTER, root))
    blank = _nb(learner_path(CHAPTER, root))
    wrong = copy.deepcopy(solved)
    _all_wrong(wrong)
    wrong_src = wrong_answers(CHAPTER)
    subs: dict[str, object] = {}
    expected: dict[str, tuple] = {}

    def add(student, nb, score, status="graded", words=(), timestamp=ON_TIME):
        if not wanted(student):
            return
        subs[student] = (nb, timestamp)
        expected[student] = (score, status, tuple(words))

    def edited(edit, base=solved):
        nb = copy.deepcopy(base)
        edit(nb)
        return nb

    add("correct", solved, 8)
    add("blank", blank, 0, words=["not answered yet"])
    add("wrong", wrong, 0)
    add("partial", edited(lambda nb: _set(nb, "ex1_answer", wrong_src["ex1_answer"])), 6)
    add("loop", edited(lambda nb: _set(nb, "ex2_answer", "while True:\n    pass\n")), 6,
        words=["ran longer than the time limit"])
    add("sigint-proof-loop", edited(lambda nb: _set(nb, "ex2_answer",
        "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass\n")), 2,
        status="incomplete", words=["ignored the interrupt"])
    add("memory-bomb", edited(lambda nb: _set(nb, "ex2_answer",
        "hog = []\nwhile True:\n    hog.append(np.ones(1 << 27))\n")), 6)
    add("many-lines", edited(lambda nb: _set(nb, "ex1_answer",
        "for i in range(200_000):\n    print(i)\n" + _cell(solved, "ex1_answer").source)), 8,
        words=["was cut at the size limit"])
    add("huge-line", edited(lambda nb: _set(nb, "ex1_answer",
        "print('x' * 50_000_000)\n" + _cell(solved, "ex1_answer").source)), 8, words=["was cut at the size limit"])
    add("cpu-hog", edited(lambda nb: _set(nb, "ex1_answer", CPU_HOG + _cell(solved, "ex1_answer").source)), 8)
    add("very-late", solved, 8, words=["late by 30 d"], timestamp="2026-02-09 12:00:00.000000 UTC")
    add("no-timestamp", solved, 8, words=["no timestamp.txt"], timestamp=None)
    add("garbage-timestamp", solved, 8, words=["timestamp.txt is unreadable"], timestamp="the day after tomorrow")

    def duplicate(nb):
        index = nb.cells.index(_cell(nb, "ex1_test"))
        nb.cells.insert(index + 1, copy.deepcopy(nb.cells[index]))
        nb.cells[index + 1]["id"] = "dup-of-ex1"
    add("duplicate-test-cell", edited(duplicate), 8, words=["a duplicate of its test cell was removed"])
    add("patched-asserts", edited(lambda nb: _set(nb, "ex1_answer", PATCH_CHECKS + wrong_src["ex1_answer"]), wrong), 0,
        words=["flagged for review", "uses checks"])
    add("always-equal", edited(lambda nb: _set(nb, "ex1_answer", ALWAYS_EQUAL), wrong), 0)
    add("input-transformer", edited(lambda nb: _set(nb, "ex1_answer",
        "get_ipython().input_transformers_post.append(lambda lines: ['pass\\n'])\n"), wrong), 0,
        words=["flagged for review", "get_ipython"])
    add("stderr-to-stdout", edited(lambda nb: _set(nb, "ex1_answer",
        "import sys\nsys.stderr = sys.stdout\n" + wrong_src["ex1_answer"]), wrong), 0)
    add("snoop", edited(lambda nb: _set(nb, "ex1_answer",
        SNOOP.replace("{root}", str(root)).replace("{course}", str(course))), wrong), 0)
    add("segfault", edited(lambda nb: _set(nb, "ex3_answer", "import ctypes\nctypes.string_at(0)\n")), 4,
        status="incomplete", words=["SIGSEGV"])
    add("os-exit", edited(lambda nb: _set(nb, "quiz_answer", "import os\nos._exit(3)\n")), 6,
        status="incomplete", words=["exited with status 3"])
    add("warning-in-test", edited(lambda nb: _set(nb, "ex1_answer",
        "import warnings\ndef sum_of_squares(x):\n    warnings.warn('this is fine')\n    return jnp.sum(jnp.square(x))\n")), 8)

    # A notebook built to exhaust the grader: far more cells than any chapter has.
    add("too-many-cells", edited(lambda nb: nb.cells.extend(nbformat.v4.new_code_cell("pass") for _ in range(2100))),
        None, status="failed", words=["more than the 2000 a notebook may have"])
    # The reference run's old internal name: it must not reach the reference's files.
    add("__reference__", wrong, 0)
    # Every later record forged (an unknown dtype): the quiz scores 0 with a note, the rest stands.
    add("forged-record", edited(lambda nb: _set(nb, "quiz_answer", FORGE_RECORDS)), 6, words=["malformed"])

    def empty_test(nb):
        _set(nb, "ex2_test", '"""Exercise 2"""\nprint("fine")\n')
        _set(nb, "ex2_answer", wrong_src["ex2_answer"])
    add("edited-test-cell", edited(empty_test), 6, words=["its test cell had been edited"])
    add("deleted-test-cell", edited(lambda nb: nb.cells.remove(_cell(nb, "ex3_test"))), 6,
        words=["its test cell was deleted"])

    def retype(nb):
        cell = _cell(nb, "ex1_test")
        cell["cell_type"] = "markdown"
        cell.pop("outputs", None)
        cell.pop("execution_count", None)
    add("retyped-test-cell", edited(retype), 8, words=["had been turned into markdown"])
    add("changed-points", edited(lambda nb: _cell(nb, "ex1_test").metadata.nbgrader.__setitem__("points", 100)), 8,
        words=["the points in its metadata had been changed"])
    add("changed-kernelspec", edited(lambda nb: nb.metadata.__setitem__(
        "kernelspec", {"name": "evil", "display_name": "Evil", "language": "python"})), 8, words=["kernelspec changed"])

    for student, (nb, timestamp) in subs.items():
        folder = course / "submitted" / student / CHAPTER
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / f"{CHAPTER}.ipynb")
        if timestamp is not None:
            (folder / "timestamp.txt").write_text(timestamp)

    def raw(student, name, text, status_words, timestamp=ON_TIME):
        if not wanted(student):
            return
        folder = course / "submitted" / student / CHAPTER
        folder.mkdir(parents=True)
        (folder / name).write_text(text)
        (folder / "timestamp.txt").write_text(timestamp)
        expected[student] = (None, "failed", tuple(status_words))

    raw("malformed-json", f"{CHAPTER}.ipynb", '{"cells": [', ["is not valid notebook JSON"])
    raw("wrong-schema", f"{CHAPTER}.ipynb", json.dumps({"cells": 3, "nbformat": 4, "nbformat_minor": 5, "metadata": {}}),
        ["does not follow the notebook format"])
    raw("wrong-chapter", f"{CHAPTER}.ipynb", solution_path("01_numpy_interop", root).read_text(),
        ["this is a notebook of 01_numpy_interop"])
    raw("misnamed", "my_homework.ipynb", solved_text(solved), ["no 00_start_here.ipynb", "my_homework.ipynb"])

    # An LMS download, imported with --from: Canvas and Moodle names, two students of the same
    # name, a resubmission, and a notebook named after no chapter. Each ends as a row.
    lms = [  # (the student it becomes, the name in the download, the file, expected outcome)
        ("smithjane-12345", f"smithjane_12345_67890_{CHAPTER}.ipynb", solved_text(solved), (8, "graded", ())),
        ("doejohn-23456", f"doejohn_late_23456_78901_{CHAPTER}.ipynb", solved_text(wrong), (0, "graded", ())),
        ("jane-smith-1001", f"Jane Smith_1001_assignsubmission_file_/{CHAPTER}.ipynb", solved_text(solved),
         (8, "graded", ())),
        ("jane-smith-2002", f"Jane Smith_2002_assignsubmission_file_/{CHAPTER}.ipynb", solved_text(wrong),
         (0, "graded", ())),
        ("leekim-34567", f"leekim_34567_88888_{CHAPTER}.ipynb", solved_text(wrong), None),
        ("leekim-34567", f"leekim_34567_88889_{CHAPTER}-1.ipynb", solved_text(solved),
         (8, "graded", ("an earlier submission", "earlier/"))),
        ("ann-lee-4004", "Ann Lee_4004_assignsubmission_file_/homework.ipynb", solved_text(solved),
         (None, "failed", ("homework.ipynb", "holds no chapter id"))),
        (None, "readme.txt", "not a notebook", None),
    ]
    with zipfile.ZipFile(course / "lms.zip", "w") as archive:
        for student, name, text, outcome in lms:
            if student is None or wanted(student):
                archive.writestr(name, text)
                if outcome is not None:
                    expected[student] = outcome
    return expected


def solved_text(nb) -> str:
    return nbformat.writes(nb)


def grade(course: Path, root: Path, *options: str, students: Collection[str] | None = None) -> dict:
    """Build the class (or only `students`) in `course` and grade it from its LMS zip as an
    instructor would, with short time limits; return what a test needs to judge the run."""
    course.mkdir(parents=True, exist_ok=True)
    shutil.copy(root / "nbgrader_config.py", course)
    shutil.copytree(root / "solutions", course / "solutions")
    expected = build(course, root, students)
    # The instructor set a due date; nbgrader creates the gradebook with `alembic` from PATH.
    run_nbgrader(["db", "assignment", "add", CHAPTER, f"--duedate={DUE}", f"--CourseDirectory.root={course}",
                  f"--CourseDirectory.db_url=sqlite:///{course / 'gradebook.db'}"], cwd=course)
    submitted_before = tree_digest(course / "submitted" / "correct")
    proc = subprocess.run([sys.executable, "-m", "grader", "autograde", "--course", str(course),
                           "--from", str(course / "lms.zip"), "--cell-timeout", "20", "--notebook-timeout", "300",
                           "--memory-mb", "2048", *options], capture_output=True, text=True, timeout=3600)
    rows = {}
    if (course / "grades.csv").exists():
        with open(course / "grades.csv", newline="") as f:
            rows = {row["student"]: row for row in csv.DictReader(f)}
    return {"course": course, "expected": expected, "proc": proc, "rows": rows,
            "submitted_before": submitted_before}


def tree_digest(folder: Path) -> str:
    """A digest of every file's path and bytes under `folder` ("" when it does not exist)."""
    h = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            h.update(str(path.relative_to(folder)).encode() + path.read_bytes())
    return h.hexdigest()


def snoop_line(graded: dict) -> str:
    """The line the snooping submission printed in its graded notebook: what each read and the network gave."""
    nb = (graded["course"] / "autograded" / "snoop" / CHAPTER / f"{CHAPTER}.ipynb").read_text()
    return next(part for part in nb.split("\\n") if "SNOOP" in part)


def outcome_problem(graded: dict, student: str) -> str | None:
    """What is wrong with `student`'s row against its expected score, status and words, or None."""
    row = graded["rows"].get(student)
    if row is None:
        return f"{student}: no row in grades.csv"
    score, status, words = graded["expected"][student]
    report = (graded["course"] / "autograde-report.md").read_text()
    messages = " ".join(line for line in report.splitlines() if line.startswith(f"- **{student}**"))
    text = " ".join([row["status"], row["notes"], messages])
    if row["status"].split(":")[0] != status:
        return f"{student}: status {row['status']!r}, expected {status!r}"
    if (row["score"] != "") if score is None else (row["score"] == "" or float(row["score"]) != score):
        return f"{student}: score {row['score']!r}, expected {score!r} ({row['status']}; {row['notes'][:300]})"
    missing = [word for word in words if word not in text]
    if missing:
        return f"{student}: {missing} not in {text[:1500]!r}"
    return None
