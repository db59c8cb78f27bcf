"""The instructor's flow with plain nbgrader commands on a copy of this repository, into a real gradebook."""

from __future__ import annotations

import csv
import shutil

import pytest

from conftest import CHAPTERS
from grader.course import grade_cells, read_notebook, run_nbgrader, solution_path


#: Plain nbgrader grades these. Every chapter goes through the course's own grading path (which
#: writes the same gradebook) in `grader check`'s tests (tests/test_check.py). One plain chapter and
#: one that compiles C++ in the kernel.
PLAIN = [ch for ch in CHAPTERS if ch.startswith(("00_", "11_"))]


@pytest.mark.slow
def test_solution_scores_full_marks_and_learner_version_zero(course_copy):
    """Graded by nbgrader into gradebook.db, does the solution get every point and the learner copy none?"""
    assert len(PLAIN) == 2, PLAIN
    for chapter in PLAIN:
        for student, folder in (("alice", "solutions"), ("bob", "notebooks")):
            target = course_copy / "submitted" / student / chapter
            target.mkdir(parents=True)
            shutil.copy(course_copy / folder / chapter / f"{chapter}.ipynb", target)
            # A real submission carries nbgrader's timestamp file.
            (target / "timestamp.txt").write_text("2026-11-20 12:00:00.000000 UTC")

    # Only these chapters are in the course, so that each step takes them all at once ("*"), as an
    # instructor's command over every assignment would: one nbgrader start per step (about 5 s each).
    for folder in (course_copy / "solutions").iterdir():
        if folder.name not in PLAIN:
            shutil.rmtree(folder)
    for step in ("generate_assignment", "autograde", "generate_feedback"):
        proc = run_nbgrader([step, "*", "--force"], cwd=course_copy, timeout=1200)
        assert proc.returncode == 0, f"nbgrader {step} failed:\n{proc.stderr[-3000:]}"
    proc = run_nbgrader(["export", "--to=grades.csv"], cwd=course_copy)
    assert proc.returncode == 0, proc.stderr[-2000:]

    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course_copy / 'gradebook.db'}") as gb:
        for chapter in PLAIN:
            most = sum(c.metadata.nbgrader.points for c in grade_cells(read_notebook(solution_path(chapter))))
            alice = gb.find_submission(chapter, "alice")
            bob = gb.find_submission(chapter, "bob")
            assert (alice.score, alice.max_score) == (most, most), chapter
            assert (bob.score, bob.max_score) == (0, most), chapter
            assert (course_copy / "feedback" / "alice" / chapter / f"{chapter}.html").exists()

    rows = list(csv.DictReader((course_copy / "grades.csv").open()))
    assert {(r["assignment"], r["student_id"]) for r in rows} == {(c, s) for c in PLAIN for s in ("alice", "bob")}
    for row in rows:
        assert (float(row["score"]) == float(row["max_score"])) == (row["student_id"] == "alice"), row
