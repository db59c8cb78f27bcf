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
