"""The record stage (`grader.autograde.gradebook`): scores, and the course's late penalty, in nbgrader's gradebook."""

from __future__ import annotations

import csv
import shutil

import nbformat
import pytest

from conftest import ROOT
from grader.autograde import autograde
from grader.course import run_nbgrader
from grader.errors import CourseError
from test_worker import ANSWER, CHAPTER, LIMITS, _notebook

DUE = "2026-01-08 00:00:00 UTC"


def _course(tmp_path, penalty: str):
    """The tiny chapter (no JAX: its kernels start in a second) with a due date, one submission a day late and
    one on time, and `penalty` as the course's late-submission setting."""
    course = tmp_path / "course"
    (course / "solutions" / CHAPTER).mkdir(parents=True)
    shutil.copy(ROOT / "nbgrader_config.py", course)
    with open(course / "nbgrader_config.py", "a") as f:
        f.write(f"\n{penalty}\n")
    nbformat.write(_notebook(ANSWER), course / "solutions" / CHAPTER / f"{CHAPTER}.ipynb")
    for student, stamp in (("late", "2026-01-09 00:00:00.000000 UTC"), ("prompt", "2026-01-07 00:00:00.000000 UTC")):
        folder = course / "submitted" / student / CHAPTER
        folder.mkdir(parents=True)
        nbformat.write(_notebook(ANSWER), folder / f"{CHAPTER}.ipynb")
        (folder / "timestamp.txt").write_text(stamp)
    return course


@pytest.mark.slow  # nbgrader records the chapter, and three small kernels run
def test_a_late_submission_loses_the_configured_penalty_in_the_gradebook_and_grades_csv(tmp_path):
    """Under `c.LateSubmissionPlugin.penalty_method = "zero"`, does a late submission keep its points in the
    gradebook with nbgrader's late_submission_penalty beside them (as nbgrader autograde records it), score 0
    in grades.csv with the penalty in its own column and a note that says why, while an on-time one keeps
    everything?"""
    from nbgrader.api import Gradebook

    course = _course(tmp_path, 'c.LateSubmissionPlugin.penalty_method = "zero"')
    run_nbgrader(["db", "assignment", "add", CHAPTER, f"--duedate={DUE}", f"--CourseDirectory.root={course}",
                  f"--CourseDirectory.db_url=sqlite:///{course / 'gradebook.db'}"], cwd=course)
    summary = autograde(course, feedback=False, progress=False, limits=LIMITS)
    assert [r.status for r in summary.rows] == ["graded", "graded"], summary.rows
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        late, prompt = (gb.find_submission(CHAPTER, s) for s in ("late", "prompt"))
        assert (late.score, late.late_submission_penalty) == (1.0, 1.0)
        assert (prompt.score, prompt.late_submission_penalty) == (1.0, 0.0)
        assert gb.find_submission_notebook(CHAPTER, CHAPTER, "prompt").late_submission_penalty is None
    rows = {r["student"]: r for r in csv.DictReader((course / "grades.csv").open())}
    assert (rows["late"]["score"], rows["late"]["penalty"], rows["late"]["late_seconds"]) == ("0", "1", "86400")
    assert "late by 1 d 0 h: a penalty of 1 points (LateSubmissionPlugin.penalty_method = 'zero')" in rows["late"]["notes"]
    assert (rows["prompt"]["score"], rows["prompt"]["penalty"], rows["prompt"]["late_seconds"]) == ("1", "", "")
    assert "| late | 99_tiny | 0 / 1 (late penalty 1) |" in (course / "autograde-report.md").read_text()


def test_a_penalty_that_cannot_be_applied_stops_the_run_before_grading(tmp_path):
    """Is a late-submission setting nbgrader cannot apply (a penalty_method it does not know) refused at the
    start, saying so in one line, before any gradebook or grade is written?"""
    course = _course(tmp_path, 'c.LateSubmissionPlugin.penalty_method = "half"')
    with pytest.raises(CourseError, match="^the late-submission penalty in nbgrader_config.py cannot be applied "
                                          r"\(TraitError: .*'half'"):
        autograde(course, feedback=False, progress=False, limits=LIMITS)
    assert not (course / "gradebook.db").exists() and not (course / "grades.csv").exists()


def test_the_schema_version_read_in_process_is_what_alembic_heads_prints():
    """nbgrader stamps a new gradebook with `alembic heads` run in a subprocess; the grader reads the same
    version in its own process (`gradebook.alembic_head`). Are they the same?"""
    import subprocess
    import sys
    from pathlib import Path

    from nbgrader.dbutil import _temp_alembic_ini

    from grader.autograde.gradebook import alembic_head

    with _temp_alembic_ini("sqlite:////nonexistent/gradebook.db") as ini:
        printed = subprocess.run([str(Path(sys.executable).parent / "alembic"), "-c", ini, "heads"],
                                 capture_output=True, text=True, check=True).stdout
    assert printed.split()[0] == alembic_head()


def _recorded(course):
    """What a gradebook holds about CHAPTER: its schema version, and each notebook's cells by kind."""
    from nbgrader.api import Gradebook
    from sqlalchemy import text

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        version = gb.db.execute(text("SELECT version_num FROM alembic_version")).scalar_one()
        notebooks = {nb.name: ({(c.name, c.max_score, c.cell_type) for c in nb.grade_cells},
                               {(c.name, c.checksum) for c in nb.source_cells})
                     for nb in gb.find_assignment(CHAPTER).notebooks}
    return version, notebooks


def test_recording_a_chapter_in_process_gives_the_gradebook_nbgrader_generate_assignment_gives(tmp_path):
    """Does `record_assignments` leave a new gradebook as `nbgrader generate_assignment` does: the same schema
    version, the same notebooks, graded cells and source cells (with their checksums), and the course's
    release folder untouched?"""
    from grader.autograde.gradebook import record_assignments

    ours, theirs = _course(tmp_path / "ours", ""), _course(tmp_path / "theirs", "")
    record_assignments(ours, [CHAPTER])
    proc = run_nbgrader(["generate_assignment", CHAPTER, "--force", f"--CourseDirectory.root={theirs}",
                         f"--CourseDirectory.db_url=sqlite:///{theirs / 'gradebook.db'}"], cwd=theirs)
    assert proc.returncode == 0, proc.stderr
    assert _recorded(ours) == _recorded(theirs)
    assert _recorded(ours)[1]  # the chapter's notebook, with cells
    assert not (ours / "notebooks").exists()


def test_a_chapter_nbgrader_cannot_record_is_a_course_error_with_nbgraders_reason(tmp_path):
    """A solution notebook nbgrader refuses (two cells with one grade id): a CourseError naming the chapter
    and giving nbgrader's reason, and the working folder as it was."""
    import os

    from grader.autograde.gradebook import record_assignments

    course = _course(tmp_path, "")
    path = course / "solutions" / CHAPTER / f"{CHAPTER}.ipynb"
    nb = nbformat.read(path, as_version=4)
    graded = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
    nb.cells.append(nbformat.from_dict(graded[0]))
    nbformat.write(nb, path)
    before = os.getcwd()
    with pytest.raises(CourseError, match=f"nbgrader generate_assignment {CHAPTER} failed") as err:
        record_assignments(course, [CHAPTER])
    assert "Notebook failed to validate; the nbgrader metadata may be corrupted." in str(err.value), err.value
    assert "Traceback" not in str(err.value)
    assert os.getcwd() == before


def _csv(course) -> dict[str, dict[str, str]]:
    return {r["student"]: r for r in csv.DictReader((course / "grades.csv").open(newline=""))}


def _report_row(course, student) -> str:
    return next(line for line in (course / "autograde-report.md").read_text().splitlines()
                if line.startswith(f"| {student} | {CHAPTER} |"))


@pytest.mark.slow  # two small runs of `grader autograde` and one `nbgrader export`
def test_no_instructor_action_loses_a_row_of_grades_csv(tmp_path):
    """A class of two is graded; the instructor gives ann a point by hand in the gradebook (as formgrader
    does), regrades bob alone, changes bob's score by hand, runs `grader report`, then `nbgrader export` as
    nbgrader's docs say. Does grades.csv keep ann's row through bob's regrade, with the points the hand
    gave, does each hand change reach grades.csv, the report and the LMS file, and does nbgrader export leave
    grades.csv alone (writing nbgrader-export.csv, as the course's nbgrader_config.py says)?"""
    from nbgrader.api import Gradebook

    from grader.cli import main
    from grader.course import run_nbgrader

    course = _course(tmp_path, "")
    for student, answer in (("ann", "def double(x):\n    return 3 * x\n"), ("bob", ANSWER)):
        folder = course / "submitted" / student / CHAPTER
        folder.mkdir(parents=True)
        nbformat.write(_notebook(answer), folder / f"{CHAPTER}.ipynb")
    for gone in ("late", "prompt"):
        shutil.rmtree(course / "submitted" / gone)
    autograde(course, feedback=False, progress=False, limits=LIMITS)
    assert {s: r["score"] for s, r in _csv(course).items()} == {"ann": "0", "bob": "1"}

    def by_hand(student, points):
        with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
            gb.find_grade("ex1_test", CHAPTER, CHAPTER, student).manual_score = points
            gb.db.commit()

    by_hand("ann", 0.5)
    summary = autograde(course, students=["bob"], feedback=False, progress=False, limits=LIMITS)
    assert [r.student for r in summary.rows] == ["bob"]
    rows = _csv(course)
    assert sorted(rows) == ["ann", "bob"], rows
    assert (rows["ann"]["status"], rows["ann"]["score"], rows["bob"]["score"]) == ("graded", "0.5", "1"), rows
    assert "changed by hand in formgrader: ex1_test 0 → 0.5" in rows["ann"]["notes"], rows["ann"]
    assert "| 0.5 / 1 | graded |" in _report_row(course, "ann") and "| 1 / 1 | graded |" in _report_row(course, "bob")
    assert "This run graded 1 submission: 1 graded." in (course / "autograde-report.md").read_text()

    by_hand("bob", 0.25)
    assert main(["report", "--course", str(course)]) == 0
    rows = _csv(course)
    assert (rows["ann"]["score"], rows["bob"]["score"]) == ("0.5", "0.25"), rows
    assert "| 0.25 / 1 | graded |" in _report_row(course, "bob")
    assert "This run graded 1 submission" in (course / "autograde-report.md").read_text()  # the run's facts stay

    # The LMS file has the hand-made points too.
    assert main(["export", "--lms", "canvas", "--course", str(course)]) == 0
    assert sorted(list(csv.reader((course / f"canvas-{CHAPTER}.csv").open(newline="")))[2:]) == [
        ["ann", "", "", "ann", "", "0.5"], ["bob", "", "", "bob", "", "0.25"]]

    kept = (course / "grades.csv").read_bytes()
    proc = run_nbgrader(["export"], cwd=course)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (course / "grades.csv").read_bytes() == kept
    exported = {r["student_id"]: r for r in csv.DictReader((course / "nbgrader-export.csv").open(newline=""))}
    assert sorted(exported) == ["ann", "bob"], exported


def test_grades_csv_merges_runs_by_student_and_chapter_and_keeps_failures(tmp_path):
    """Without a gradebook: does a second run's row replace only the row of its own student and chapter, a
    failed submission keep its row and reason, and a grades.csv some other tool wrote stay beside, renamed?"""
    from grader.autograde import grades
    from grader.autograde.jobs import Row

    first = [Row("ann", "00_start_here", "graded", 6.0, 8.0), Row("bob", "00_start_here", "failed: broken JSON", None, 8.0),
             Row("ann", "01_numpy_interop", "graded", 3.0, 10.0, notes=("late by 1 h 0 min; something",))]
    grades.update(tmp_path, first)
    everyone = grades.update(tmp_path, [Row("ann", "00_start_here", "graded", 8.0, 8.0)])
    assert [(r.student, r.chapter, str(r.status), r.score) for r in everyone] == [
        ("ann", "00_start_here", "graded", 8.0), ("bob", "00_start_here", "failed: broken JSON", None),
        ("ann", "01_numpy_interop", "graded", 3.0)]
    assert [tuple(r) for r in csv.reader((tmp_path / "grades.csv").open(newline=""))][3] == (
        "ann", "01_numpy_interop", "graded", "3", "10", "", "", "late by 1 h 0 min; something", "")
    assert not list(tmp_path.glob(".grades.csv.*")), "a temporary file was left behind"

    (tmp_path / "grades.csv").write_text("assignment,duedate,timestamp,student_id\n00_start_here,,,ann\n")
    problems = []
    everyone = grades.update(tmp_path, [Row("cy", "00_start_here", "graded", 1.0, 8.0)], problems)
    assert [r.student for r in everyone] == ["cy"]
    aside = list(tmp_path.glob("grades-unrecognised-*.csv"))
    assert len(aside) == 1 and aside[0].read_text().startswith("assignment,duedate"), aside
    assert len(problems) == 1 and aside[0].name in problems[0], problems
