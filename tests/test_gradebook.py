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
