"""grader autograde on a synthetic class: every submission accounted for, hostile ones earn nothing.

The class (tests/synthetic_class.py) is graded once, through the command line as an instructor
would run it, with short time limits; each test then checks one outcome.
"""

from __future__ import annotations

import csv
import hashlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import synthetic_class
from conftest import CHAPTERS, ROOT
from dask_cluster import local_cluster
from grader.autograde import sandbox
from grader.course import run_nbgrader

CHEATS = ["patched-asserts", "always-equal", "input-transformer", "stderr-to-stdout", "snoop"]


def _tree_digest(folder: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            h.update(str(path.relative_to(folder)).encode() + path.read_bytes())
    return h.hexdigest()


def _grade_class(course: Path, *options: str, download: Path | None = None) -> dict:
    """Build the synthetic class in `course` and grade it from its LMS zip (or from `download`, an
    earlier build's, whose files carry the same times), as an instructor would."""
    course.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "nbgrader_config.py", course)
    shutil.copytree(ROOT / "solutions", course / "solutions")
    expected = synthetic_class.build(course, ROOT)
    if download is not None:
        shutil.copy(download, course / "lms.zip")
    # The instructor set a due date; nbgrader creates the gradebook with `alembic` from PATH.
    run_nbgrader(["db", "assignment", "add", synthetic_class.CHAPTER, f"--duedate={synthetic_class.DUE}",
                  f"--CourseDirectory.root={course}", f"--CourseDirectory.db_url=sqlite:///{course / 'gradebook.db'}"],
                 cwd=course)
    submitted_before = _tree_digest(course / "submitted" / "correct")
    proc = subprocess.run([sys.executable, "-m", "grader", "autograde", "--course", str(course),
                           "--from", str(course / "lms.zip"), "--cell-timeout", "30", "--notebook-timeout", "300",
                           "--memory-mb", "2048", *options], capture_output=True, text=True, timeout=3600)
    rows = {}
    if (course / "grades.csv").exists():
        with open(course / "grades.csv", newline="") as f:
            rows = {row["student"]: row for row in csv.DictReader(f)}
    return {"course": course, "expected": expected, "proc": proc, "rows": rows,
            "submitted_before": submitted_before}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    return _grade_class(tmp_path_factory.mktemp("class"))


pytestmark = pytest.mark.slow


def test_the_batch_finishes_with_a_row_for_every_submission(graded):
    """Does the whole class grade in one run, exit 0, and give each submission exactly one row?"""
    proc = graded["proc"]
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert set(graded["rows"]) == set(graded["expected"]), set(graded["rows"]) ^ set(graded["expected"])
    assert f"{len(graded['expected'])} submissions:" in proc.stdout


def _outcome_test(student: str):
    def test(graded):
        row = graded["rows"][student]
        score, status, words = graded["expected"][student]
        text = " ".join([row["status"], row["notes"], _exercise_messages(graded["course"], student)])
        assert row["status"].split(":")[0] == status, row
        assert (row["score"] == "") if score is None else (float(row["score"]) == score), row
        for word in words:
            assert word in text, (word, text[:1500])
    test.__doc__ = f"Does {student!r} get exactly its expected score, status and reason?"
    return test


def _exercise_messages(course: Path, student: str) -> str:
    report = (course / "autograde-report.md").read_text()
    return " ".join(line for line in report.splitlines() if line.startswith(f"- **{student}**"))


EXPECTED_STUDENTS = [
    "correct", "blank", "wrong", "partial", "loop", "cpu-hog", "sigint-proof-loop", "memory-bomb", "many-lines", "huge-line",
    "very-late", "no-timestamp", "garbage-timestamp", "duplicate-test-cell", "patched-asserts", "always-equal",
    "input-transformer", "stderr-to-stdout", "snoop", "segfault", "os-exit", "warning-in-test", "edited-test-cell",
    "deleted-test-cell", "retyped-test-cell", "changed-points", "changed-kernelspec", "malformed-json",
    "wrong-schema", "wrong-chapter", "misnamed", "__reference__", "forged-record", "too-many-cells",
    "smithjane-12345", "doejohn-23456", "jane-smith-1001", "jane-smith-2002", "leekim-34567", "ann-lee-4004",
]
for _student in EXPECTED_STUDENTS:
    globals()[f"test_outcome_of_{_student.replace('-', '_').strip('_')}"] = _outcome_test(_student)


def test_every_kind_of_submission_is_in_the_class(graded):
    """Does the synthetic class hold exactly the kinds of submission listed here?"""
    assert sorted(graded["expected"]) == sorted(EXPECTED_STUDENTS)


def test_no_cheat_scores_above_an_honest_wrong_answer(graded):
    """Do patched asserts, an always-equal object, an input transformer, stderr tricks and snooping earn nothing?"""
    honest = float(graded["rows"]["wrong"]["score"])
    for student in CHEATS:
        assert float(graded["rows"][student]["score"]) <= honest, graded["rows"][student]


def test_student_code_cannot_see_solutions_the_gradebook_or_the_network(graded):
    """In the sandbox, do reads of solutions/, gradebook.db, other submissions and /etc/shadow fail, and the network too?"""
    if not sandbox.probe().sandboxed:
        pytest.fail(f"no sandbox on this machine: {sandbox.probe().reason}")
    nb = (graded["course"] / "autograded" / "snoop" / "00_start_here" / "00_start_here.ipynb").read_text()
    line = next(part for part in nb.split("\\n") if "SNOOP" in part)
    assert "READ" not in line and "REACHED" not in line, line
    assert line.count("FileNotFoundError") + line.count("PermissionError") == 5, line


def test_a_cpu_hog_gets_its_share_and_no_more(graded):
    """Does a submission that keeps four processes busy get one core's time, so that the submissions
    graded beside it (whose outcomes are tested above) keep theirs?"""
    probe = sandbox.probe()
    if not probe.cgroups:
        pytest.fail(f"no cgroup for CPU shares on this machine: {probe.reason or 'cgroups unavailable'}")
    nb = (graded["course"] / "autograded" / "cpu-hog" / "00_start_here" / "00_start_here.ipynb").read_text()
    share = float(re.search(r"CPU-HOG ([0-9.]+) cores", nb).group(1))
    assert 0 < share <= 1.25, f"the hog had {share} cores on average; its share is 1"


def test_submissions_are_never_modified(graded):
    """Is a submission folder byte for byte the same after grading?"""
    assert _tree_digest(graded["course"] / "submitted" / "correct") == graded["submitted_before"]


def test_the_class_grades_the_same_on_a_dask_cluster(graded, tmp_path_factory):
    """Graded on a Dask cluster (a scheduler and two workers on loopback), is grades.csv the same as
    the local run's, with the cluster's progress shown and the scheduler and workers in the report?"""
    folder = tmp_path_factory.mktemp("class-on-dask")
    with local_cluster(folder / "cluster", workers=2) as dask:
        on_dask = _grade_class(folder / "course", "--scheduler", dask.address,
                               download=graded["course"] / "lms.zip")
    proc = on_dask["proc"]
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (on_dask["course"] / "grades.csv").read_text() == (graded["course"] / "grades.csv").read_text()
    steps = re.findall(r"^\[#+\] (\d+)/(\d+) ", proc.stderr, re.M)
    assert steps and steps[-1][0] == steps[-1][1] and int(steps[-1][1]) > 30, proc.stderr[-2000:]
    report = (on_dask["course"] / "autograde-report.md").read_text()
    assert f"Graded on the Dask cluster at {dask.address}, by 2 worker(s):" in report, report[:2000]
    assert "Sandbox: **on**" in report and "Graded again" not in report


def test_gradebook_feedback_and_report_agree_with_grades_csv(graded):
    """Does the nbgrader gradebook hold each graded score, with HTML feedback and a report line per student?"""
    from nbgrader.api import Gradebook

    course, rows = graded["course"], graded["rows"]
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        scores = {s.student_id: s.score for s in gb.assignment_submissions(synthetic_class.CHAPTER)}
    for student, row in rows.items():
        if row["score"]:
            assert scores[student] == float(row["score"]), student
            assert (course / "feedback" / student / "00_start_here" / "00_start_here.html").exists(), student
    report = (course / "autograde-report.md").read_text()
    assert all(f"| {student} |" in report.replace("\\-", "-") for student in rows)
    assert ("Sandbox: **on**" in report) == sandbox.probe().sandboxed


# A learner's C++ answer for chapter 11's exercise 2 that writes through a null pointer when the
# test cell first calls it: the sandboxed kernel dies with SIGSEGV in the middle of grading.
NULL_DEREFERENCE_SILU = (
    'silu_cc = r"""\n'
    '#include "xla/ffi/api/ffi.h"\n'
    'namespace ffi = xla::ffi;\n'
    'static ffi::Error CrashImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n'
    '  volatile float* nowhere = nullptr;\n'
    '  *nowhere = x.typed_data()[0];\n'
    '  return ffi::Error::Success();\n'
    '}\n'
    'XLA_FFI_DEFINE_HANDLER_SYMBOL(Crash, CrashImpl, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n'
    '"""\n'
    'crash_lib = grader.build(code=silu_cc, name="crash")\n'
    'jax.ffi.register_ffi_target("crash", jax.ffi.pycapsule(crash_lib.cdll.Crash), platform="cpu")\n'
    'def silu_ffi(x):\n'
    '    return jax.ffi.ffi_call("crash", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)\n'
)


#: Plain Python and NumPy (00), C++ built in the kernel (11).
CLASS_CHAPTERS = [ch for ch in CHAPTERS if ch.startswith(("00_", "11_"))]


@pytest.fixture(scope="module")
def several_chapters(tmp_path_factory):
    """Several chapters' solution, learner notebook, and solution with exercise 2 wrong, graded by one
    autograde run (references of several chapters side by side in one class).

    Each chapter alone is graded through the same pipeline, with the same three notebooks, by
    `grader check` in tests/test_check.py; here, two chapters of different kinds stand for the rest."""
    import nbformat

    from grader.autograde import autograde
    from grader.course import learner_path, solution_path
    from wrong_answers import wrong_answers

    course = tmp_path_factory.mktemp("chapters")
    shutil.copy(ROOT / "nbgrader_config.py", course)
    shutil.copytree(ROOT / "solutions", course / "solutions")
    for chapter in CLASS_CHAPTERS:
        wrong = nbformat.read(solution_path(chapter, ROOT), as_version=4)
        for cell in wrong.cells:
            if cell.metadata.get("nbgrader", {}).get("grade_id") == "ex2_answer":
                cell.source = wrong_answers(chapter)["ex2_answer"]
        submissions = [("solution", nbformat.read(solution_path(chapter, ROOT), as_version=4)),
                       ("learner", nbformat.read(learner_path(chapter, ROOT), as_version=4)),
                       ("ex2-wrong", wrong)]
        if chapter == "11_cpp_ffi":
            crashing = nbformat.read(solution_path(chapter, ROOT), as_version=4)
            for cell in crashing.cells:
                if cell.metadata.get("nbgrader", {}).get("grade_id") == "ex2_answer":
                    cell.source = NULL_DEREFERENCE_SILU
            submissions.append(("ffi-segfault", crashing))
        for student, nb in submissions:
            folder = course / "submitted" / student / chapter
            folder.mkdir(parents=True)
            nbformat.write(nb, folder / f"{chapter}.ipynb")
    summary = autograde(course, feedback=False, progress=False,
                        limits=sandbox.Limits(cell_seconds=300, notebook_seconds=1200))
    return {(r.student, r.chapter): r for r in summary.rows}


@pytest.mark.parametrize("chapter", CLASS_CHAPTERS)
def test_several_chapters_in_one_class_grade_the_same_outside_the_kernel(several_chapters, chapter):
    """Graded from records outside the kernel, does each chapter give its solution full marks, the learner
    notebook zero ("not answered yet"), and a wrong exercise 2 exactly its points off?"""
    solution, learner, wrong = (several_chapters[(s, chapter)] for s in ("solution", "learner", "ex2-wrong"))
    assert solution.status == "graded" and solution.score == solution.max_score > 0, solution
    assert learner.status == "graded" and learner.score == 0, learner
    assert all("not answered yet" in message for _, _, message in learner.exercises.values()), learner.exercises
    points, most, message = wrong.exercises["ex2_test"]
    assert points == 0 and message.startswith("Exercise 2: "), wrong.exercises["ex2_test"]
    assert wrong.score == wrong.max_score - most, wrong


def test_a_cpp_answer_that_segfaults_keeps_the_points_earned_before_it(several_chapters):
    """Does chapter 11 with a C++ exercise 2 that dereferences null end as `incomplete` (SIGSEGV), with
    exercise 1's points kept and the cells after the crash at 0?"""
    row = several_chapters[("ffi-segfault", "11_cpp_ffi")]
    assert row.status.startswith("incomplete: ") and "SIGSEGV" in row.status, row.status
    assert row.exercises["ex1_test"][0] == row.exercises["ex1_test"][1] > 0, row.exercises
    assert all(row.exercises[gid][0] == 0 for gid in ("ex2_test", "ex3_test", "quiz_test")), row.exercises
    assert row.score == row.exercises["ex1_test"][0], row


# ---- what the class got wrong -------------------------------------------------------------------

def _class_section(report: str) -> str:
    start = report.index(f"## How the class did: {synthetic_class.CHAPTER}")
    end = report.find("\n## ", start + 1)
    return report[start:] if end < 0 else report[start:end]


def _md_table(section: str, header: str) -> list[list[str]]:
    lines = section.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows


def _per_exercise(report: str) -> dict[str, dict[str, tuple[float, float, str]]]:
    """What each row of the run says per test cell, from the report's "Per exercise" list: points,
    most points, and the verdict's first line (the line before its hint)."""
    found = {}
    for line in report.split("## Per exercise", 1)[1].splitlines():
        match = re.match(r"- \*\*(.+?)\*\* \((\S+)\): (.*)", line)
        if not match:
            continue
        cells = {}
        for part in re.split(r"; (?=\w+_test \d)", match.group(3)):
            gid, got, most, message = re.match(r"(\w+) ([\d.]+)/([\d.]+)(?: \((.*)\))?$", part).groups()
            first = " ".join((message or "").replace("\\|", "|").split(" hint: ")[0].split())[:300]
            cells[gid] = (float(got), float(most), first)
        found[match.group(1).replace("\\-", "-")] = cells
    return found


def _expected_class(graded) -> tuple[str, list[list[str]], dict[tuple[str, str], int]]:
    """The section's first line, its exercise table and its failure counts, worked out from
    grades.csv and the per-exercise verdicts of the rows."""
    from collections import Counter

    report = (graded["course"] / "autograde-report.md").read_text()
    scored = {s: r for s, r in graded["rows"].items() if r["score"] != ""}
    cells = _per_exercise(report)
    assert set(cells) >= set(scored), set(scored) - set(cells)
    scores = [float(r["score"]) for r in scored.values()]
    most = float(next(iter(scored.values()))["max_score"])
    full = sum(1 for s in scores if s >= most)
    mean = sum(scores) / len(scores)
    first = (f"{len(scores)} submissions with a score: mean {mean:.2f}".rstrip("0").rstrip(".") +
             f" of {most:g} points; {full} of {len(scores)} ({round(100 * full / len(scores))}%) at full marks.")
    titles = {"ex1_test": "Exercise 1", "ex2_test": "Exercise 2", "ex3_test": "Exercise 3", "quiz_test": "Quiz"}
    table, failures = [], Counter()
    for gid, title in titles.items():
        got = [cells[s][gid] for s in scored]
        at_full = sum(1 for points, top, _ in got if points >= top)
        mean = f"{sum(p for p, _, _ in got) / len(got):.2f}".rstrip("0").rstrip(".")
        table.append([f"{title} (`{gid}`)", f"{got[0][1]:g}", f"{at_full} of {len(got)} "
                      f"({round(100 * at_full / len(got))}%)", mean])
        failures.update((title, words) for points, top, words in got if points < top)
    return first, table, failures


def test_the_report_says_what_the_class_got_wrong(graded):
    """Does the report's "How the class did" section give the number of scored submissions, their mean,
    each exercise's share at full marks and mean, and its most common first failures with counts, as
    grades.csv and the rows' verdicts say, without naming a student?"""
    report = (graded["course"] / "autograde-report.md").read_text()
    section = _class_section(report)
    first, table, failures = _expected_class(graded)
    assert first in section, section[:600]
    assert _md_table(section, "| exercise | points |") == table
    listed = _md_table(section, "| exercise | first failure |")
    named = [(title, words.strip("`").strip().replace("\\|", "|"), int(count))
             for title, words, count in listed if words.startswith("`")]
    for title in ("Exercise 1", "Exercise 2", "Exercise 3", "Quiz"):
        ranked = sorted((-n, words) for (t, words), n in failures.items() if t == title)
        assert [(w, c) for t, w, c in named if t == title] == [(w, -n) for n, w in ranked[:3]], (title, listed)
        rest = [row for row in listed if row[0] == title and not row[1].startswith("`")]
        assert rest == ([[title, f"{len(ranked) - 3} other first failures", str(-sum(n for n, _ in ranked[3:]))]]
                        if len(ranked) > 3 else []), (title, rest)
    # The commonest mistake of exercise 1 is its wrong answer's: squaring the sum.
    assert any(w.startswith("Exercise 1: sum_of_squares") for t, w, _ in named if t == "Exercise 1"), listed
    distinctive = [s for s in graded["expected"] if "-" in s or any(ch.isdigit() for ch in s)]
    assert not [s for s in distinctive if s in section], "the class section names a student"


def test_grader_report_makes_the_same_section_from_the_gradebook_and_counts_changes_made_by_hand(graded, tmp_path):
    """For the graded class, does `grader report` make the run's section and figures again from
    gradebook.db and autograded/, and, after a score is changed by hand in the gradebook (as in
    formgrader), count it?"""
    from nbgrader.api import Gradebook

    from grader.autograde.class_report import report as class_report

    course = tmp_path / "course"
    course.mkdir()
    for name in ("nbgrader_config.py", "gradebook.db"):
        shutil.copy(graded["course"] / name, course / name)
    for folder in ("solutions", "autograded"):
        shutil.copytree(graded["course"] / folder, course / folder)
    proc = subprocess.run([sys.executable, "-m", "grader", "report", synthetic_class.CHAPTER, "--course", str(course)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    written = course / f"class-report-{synthetic_class.CHAPTER}.md"
    ran = _class_section((graded["course"] / "autograde-report.md").read_text())
    again = _class_section(written.read_text())
    assert again.replace(f"class-report-{synthetic_class.CHAPTER}-figures", "F").rstrip() == \
        ran.replace("autograde-report-figures", "F").rstrip()
    assert again in proc.stdout
    for name in ("scores", "pass-rates"):
        png = course / f"class-report-{synthetic_class.CHAPTER}-figures" / f"{synthetic_class.CHAPTER}-{name}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", png

    # The instructor gives a learner whose exercise 1 failed its points by hand.
    _, _, failures = _expected_class(graded)
    cells = _per_exercise((graded["course"] / "autograde-report.md").read_text())
    (title, words), count = max(((k, n) for k, n in failures.items() if k[0] == "Exercise 1"), key=lambda kn: kn[1])
    student = next(s for s, row in graded["rows"].items()
                   if row["score"] != "" and cells[s]["ex1_test"][0] == 0 and cells[s]["ex1_test"][2] == words)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        gb.find_grade("ex1_test", synthetic_class.CHAPTER, synthetic_class.CHAPTER, student).manual_score = 2.0
        gb.db.commit()
    changed = _class_section(class_report(course=course, chapter=synthetic_class.CHAPTER).read_text())
    before = {row[0]: row for row in _md_table(again, "| exercise | points |")}
    after = {row[0]: row for row in _md_table(changed, "| exercise | points |")}
    n = int(before["Exercise 1 (`ex1_test`)"][2].split(" of ")[0])
    assert after["Exercise 1 (`ex1_test`)"][2].startswith(f"{n + 1} of "), (before, after)
    counts = {(r[0], r[1]): int(r[2]) for r in _md_table(changed, "| exercise | first failure |")}
    assert counts.get((title, f"`{words}`"), 0) == count - 1, counts
