"""grader check: scores a notebook per exercise as the autograder would, or says clearly why it cannot."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from conftest import CHAPTERS, ROOT
from grader.check import format_table, score
from grader.course import grade_cells, learner_path, solution_path
from wrong_answers import wrong_answers


def run_check(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "grader", "check", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=900)


@pytest.mark.parametrize("setup, fragment", [
    (lambda d: d / "missing.ipynb", "does not exist"),
    (lambda d: (d / "notes.txt").write_text("hi") and d / "notes.txt", "is not a notebook"),
    (lambda d: (d / "01_numpy_interop.ipynb").write_text('{"cells": [') and d / "01_numpy_interop.ipynb",
     "is not valid notebook JSON"),
    (lambda d: (d / "01_numpy_interop.ipynb").write_text('{"cells": 3, "nbformat": 4, "nbformat_minor": 5, "metadata": {}}')
     and d / "01_numpy_interop.ipynb", "does not follow the notebook format"),
    (lambda d: (d / "01_numpy_interop.ipynb").write_text('{"cells": [], "nbformat": 4, "nbformat_minor": "5", "metadata": {}}')
     and d / "01_numpy_interop.ipynb", "does not follow the notebook format"),
    (lambda d: nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")]), d / "99_mystery.ipynb")
     or d / "99_mystery.ipynb", "is not a chapter of this course"),
])
def test_unusable_input_exits_2_with_a_clear_message(tmp_path, setup, fragment):
    """Do a missing file, a non-notebook, malformed JSON, a wrong schema and an unknown chapter each exit 2 with a reason?"""
    path = setup(tmp_path)
    proc = run_check(str(path))
    assert proc.returncode == 2, proc
    assert proc.stderr.startswith("grader check: ") and fragment in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.splitlines()) <= 3


@pytest.mark.slow
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_each_exercise_is_scored_as_graded(tmp_path, chapter):
    """The solution with exercise 2 wrong (tests/wrong_answers) and the quiz as released: does exercise 2
    lose exactly its points with its failure shown, the quiz say "not answered yet", and every other
    exercise score full marks in a kernel of its own (the reference's records, made in another
    kernel, are met again: nothing graded depends on the run)? One grading per chapter holds all three.
    In `make test` the reference records are those the chapter's wrong-answer test made just before
    (conftest.py's TOGETHER), proved the same as a reference run's in tests/test_wrong_answers.py."""
    nb = nbformat.read(solution_path(chapter), as_version=4)
    released = {c.metadata.get("nbgrader", {}).get("grade_id"): c.source
                for c in nbformat.read(learner_path(chapter), as_version=4).cells}
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if gid == "ex2_answer":
            cell.source = wrong_answers(chapter)["ex2_answer"]
        elif gid == "quiz_answer":
            cell.source = released["quiz_answer"]
    submission = tmp_path / f"{chapter}.ipynb"
    nbformat.write(nb, submission)
    before = submission.read_bytes()
    results = {r.grade_id: r for r in score(submission)}
    assert submission.read_bytes() == before, "grader check must not modify the notebook it scores"
    assert results["ex2_test"].points == 0 and results["ex2_test"].message.startswith("Exercise 2: "), results["ex2_test"]
    assert results["quiz_test"].points == 0 and "not answered yet" in results["quiz_test"].message, results["quiz_test"]
    full = {gid: r for gid, r in results.items() if gid not in ("ex2_test", "quiz_test")}
    assert full and all(r.points == r.max_points > 0 and r.message == "" for r in full.values()), results
    lost = results["ex2_test"].max_points + results["quiz_test"].max_points
    assert sum(r.points for r in results.values()) == sum(r.max_points for r in results.values()) - lost


@pytest.mark.slow
def test_the_learner_notebook_scores_zero_with_not_answered_yet():
    """From the command line, does an untouched learner notebook score zero, each exercise saying
    "not answered yet", and exit 0 (it ran to its end)?"""
    chapter = "00_start_here"
    proc = run_check(str(learner_path(chapter).relative_to(ROOT)))
    assert proc.returncode == 0, proc.stderr
    rows = [line for line in proc.stdout.splitlines() if line.startswith(("Exercise", "Quiz"))]
    assert len(rows) == len(grade_cells(nbformat.read(solution_path(chapter), as_version=4)))
    for row in rows:
        assert " 0 / " in row and "not answered yet" in row, row
    assert proc.stdout.splitlines()[-1].split()[1] == "0"


def test_the_reference_cache_is_where_the_environment_says(tmp_path, monkeypatch):
    """Does `grader check` keep its reference records in $JBJ_REFERENCE_CACHE when set, else under
    $XDG_CACHE_HOME, else under ~/.cache?"""
    from grader.check import reference_cache

    monkeypatch.setenv("JBJ_REFERENCE_CACHE", str(tmp_path / "mine"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert reference_cache() == tmp_path / "mine"
    monkeypatch.delenv("JBJ_REFERENCE_CACHE")
    assert reference_cache() == tmp_path / "xdg" / "jax-beyond-jnp" / "reference"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert reference_cache() == tmp_path / "home" / ".cache" / "jax-beyond-jnp" / "reference"


def test_a_chapter_id_means_the_learners_own_copy_first(tmp_path, monkeypatch):
    """Does `grader check 01_numpy_interop` grade the copy in the folder you are in (or its chapter folder,
    or a notebooks/ there), then the Lab's notebooks folder, and only then the course checkout's?"""
    from grader.cli import LAB_NOTEBOOKS_ENV, resolve_notebook

    chapter = "01_numpy_interop"
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(LAB_NOTEBOOKS_ENV, raising=False)
    assert resolve_notebook(chapter) == learner_path(chapter)
    lab = tmp_path / "lab-copy"
    (lab / chapter).mkdir(parents=True)
    (lab / chapter / f"{chapter}.ipynb").write_text("{}")
    monkeypatch.setenv(LAB_NOTEBOOKS_ENV, str(lab))
    assert resolve_notebook(chapter) == lab / chapter / f"{chapter}.ipynb"
    for place in (tmp_path / "notebooks" / chapter, tmp_path / chapter, tmp_path):
        place.mkdir(parents=True, exist_ok=True)
        (place / f"{chapter}.ipynb").write_text("{}")
        assert resolve_notebook(chapter) == place / f"{chapter}.ipynb"
    assert resolve_notebook("x/01_numpy_interop.ipynb") == Path("x", "01_numpy_interop.ipynb")


def _edited_solution(tmp_path, chapter, edit):
    nb = nbformat.read(solution_path(chapter), as_version=4)
    edit(nb)
    out = tmp_path / f"{chapter}.ipynb"
    nbformat.write(nb, out)
    return out


@pytest.mark.slow
def test_a_dead_kernel_keeps_the_points_before_it_and_says_why(tmp_path):
    """When the kernel dies (os._exit in an answer), do earlier exercises keep their points, with the reason shown?"""
    def die(nb):
        cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex2_answer")
        cell.source = "import os\nos._exit(3)\n"
    proc = run_check(str(_edited_solution(tmp_path, "00_start_here", die)))
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert any(line.startswith("Exercise 1") and " 2 / 2 " in line for line in lines), proc.stdout
    assert any(line.startswith("Exercise 2") and " 0 / 2 " in line and "the kernel exited with status 3" in line
               for line in lines), proc.stdout
    # The note names the cell that killed the kernel, by its number and first line.
    assert re.match(r"note: the kernel exited with status 3 .*in cell \d+: import os", lines[-1]), proc.stdout


@pytest.mark.slow
def test_a_kernel_dying_inside_the_checks_says_which_check_had_started(tmp_path):
    """When the answer kills the kernel while an exercise's checks run, does that exercise's row say where they
    were, on the line under its verdict?"""
    def die_on_the_second_factor(nb):
        cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex2_answer")
        cell.source = ("import os\n\ndef make_scaled(factor):\n    if factor == 2.0:\n        os._exit(3)\n"
                       "    return jax.jit(lambda x: factor * x)\n")
    proc = run_check(str(_edited_solution(tmp_path, "00_start_here", die_on_the_second_factor)))
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith("Exercise 2"))
    assert "the kernel exited with status 3" in lines[row], proc.stdout
    assert lines[row + 1].strip() == "where: Exercise 2, in its check 1, which runs your code: make_scaled(2.0)", proc.stdout


def test_a_renamed_copy_is_known_by_its_self_checks(tmp_path):
    """Is JupyterLab's duplicate `01_numpy_interop-Copy1.ipynb` known as chapter 01 by its self-check
    cells, while a notebook with no chapter's self-checks is still refused?"""
    from grader.course import chapter_of
    from grader.errors import UsageError

    copy = tmp_path / "01_numpy_interop-Copy1.ipynb"
    shutil.copy(learner_path("01_numpy_interop"), copy)
    assert chapter_of(copy) == "01_numpy_interop"
    other = tmp_path / "notes-Copy1.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1)")]), other)
    with pytest.raises(UsageError, match="is not a chapter of this course"):
        chapter_of(other)


@pytest.mark.slow
def test_a_deleted_self_check_scores_zero_and_says_why(tmp_path):
    """If a learner deleted a self-check cell, does its row show 0 points and say the cell is missing?"""
    def delete(nb):
        nb.cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") != "ex3_test"]
    results = {r.grade_id: r for r in score(_edited_solution(tmp_path, "00_start_here", delete))}
    assert results["ex3_test"].points == 0 and "its test cell was deleted" in results["ex3_test"].message
    assert all(r.points == r.max_points for gid, r in results.items() if gid != "ex3_test")


@pytest.mark.slow
def test_a_warning_on_stderr_costs_nothing(tmp_path):
    """Does a correct answer that writes a warning to stderr still get its points (unlike plain nbgrader)?"""
    def warn(nb):
        cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex1_answer")
        cell.source = ("import warnings\ndef sum_of_squares(x):\n    warnings.warn('careful')\n"
                       "    return jnp.sum(jnp.square(x))\n")
    results = {r.grade_id: r for r in score(_edited_solution(tmp_path, "00_start_here", warn))}
    assert results["ex1_test"].points == 2, results["ex1_test"]


@pytest.mark.slow
def test_an_edited_self_check_is_replaced_by_the_instructors(tmp_path):
    """If a learner empties a self-check cell, is the instructor's copy run instead, so a wrong answer still fails?"""
    def tamper(nb):
        for cell in nb.cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if grade_id == "ex2_answer":
                cell.source = "def make_scaled(factor):\n    return lambda x: x\n"
            if grade_id == "ex2_test":
                cell.source = '"""Exercise 2"""\nprint("fine")\n'
    results = {r.grade_id: r for r in score(_edited_solution(tmp_path, "00_start_here", tamper))}
    assert results["ex2_test"].points == 0 and "(a jax.jit function)" in results["ex2_test"].message


# ---- in a class: no solutions/, only the visible self-checks can run ----------------------------

def _class_course(tmp_path, chapter="00_start_here"):
    """A course folder as a learner in a class has it: the released notebooks, no solutions/."""
    course = tmp_path / "course"
    (course / "notebooks").mkdir(parents=True)
    shutil.copy(ROOT / "nbgrader_config.py", course)
    shutil.copytree(ROOT / "notebooks" / chapter, course / "notebooks" / chapter)
    return course, course / "notebooks" / chapter / f"{chapter}.ipynb"


def _answer(notebook, chapter, replace=None):
    """Copy the solution's answer cells (only those) into the learner `notebook`, with `replace`
    ({grade_id: source}) instead of some of them."""
    solution = {c.metadata["nbgrader"]["grade_id"]: c.source
                for c in nbformat.read(solution_path(chapter), as_version=4).cells
                if c.get("metadata", {}).get("nbgrader", {}).get("solution")}
    nb = nbformat.read(notebook, as_version=4)
    answered = 0
    for cell in nb.cells:
        gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if cell.get("metadata", {}).get("nbgrader", {}).get("solution") and gid in solution:
            cell.source = (replace or {}).get(gid, solution[gid])
            answered += 1
    assert answered == len(solution)
    nbformat.write(nb, notebook)


def test_without_solutions_the_learner_notebook_scores_zero_not_answered_yet(tmp_path):
    """In a class (no solutions/), does the untouched learner notebook score 0, each exercise "not answered yet"?"""
    course, notebook = _class_course(tmp_path)
    before = notebook.read_bytes()
    results = [r for r in score(notebook, root=course) if r.grade_id]
    assert notebook.read_bytes() == before, "grader check must not modify the notebook it scores"
    assert len(results) == len(grade_cells(nbformat.read(notebook, as_version=4)))
    for r in results:
        assert r.points == 0 < r.max_points and "not answered yet" in r.message, r


def test_without_solutions_the_solution_answers_score_every_visible_point(tmp_path):
    """With the solution's answer cells copied in and no solutions/, is every point scored, and the hidden checks announced?"""
    course, notebook = _class_course(tmp_path)
    _answer(notebook, "00_start_here")
    results = score(notebook, root=course)
    assert results and all(r.grade_id and r.points == r.max_points > 0 and r.message == "" for r in results), results
    table = format_table("00_start_here", results)
    hidden = [line for line in table.splitlines() if "Hidden checks" in line]
    assert len(hidden) == 1 and "when your instructor grades" in hidden[0] and "lower" in hidden[0], table
    assert "visible self-checks" in table.splitlines()[0]
    assert "Hidden checks" not in format_table("00_start_here", [r.__class__(**{**r.__dict__, "visible_only": False})
                                                                 for r in results])


def test_without_solutions_one_wrong_answer_costs_exactly_its_points(tmp_path):
    """Without solutions/, does exercise 2's wrong answer (tests/wrong_answers) cost exactly its points, with its failure shown?"""
    course, notebook = _class_course(tmp_path)
    _answer(notebook, "00_start_here", {"ex2_answer": wrong_answers("00_start_here")["ex2_answer"]})
    results = {r.grade_id: r for r in score(notebook, root=course)}
    assert results["ex2_test"].points == 0 and results["ex2_test"].message.startswith("Exercise 2: "), results["ex2_test"]
    assert "not answered" not in results["ex2_test"].message
    assert all(r.points == r.max_points for gid, r in results.items() if gid != "ex2_test"), results
    total = sum(r.points for r in results.values())
    assert total == sum(r.max_points for r in results.values()) - results["ex2_test"].max_points


def test_without_solutions_unusable_input_still_exits_2(tmp_path):
    """Without solutions/, is a notebook of no chapter (no chapter's name, none of its self-checks) still refused?"""
    from grader.errors import UsageError

    course, notebook = _class_course(tmp_path)
    other = notebook.with_name("99_mystery.ipynb")
    nb = nbformat.read(notebook, as_version=4)
    nb.cells = [cell for cell in nb.cells if not cell.metadata.get("nbgrader", {}).get("grade")]
    nbformat.write(nb, other)
    with pytest.raises(UsageError, match="is not a chapter of this course"):
        score(other, root=course)


def test_without_solutions_the_cli_prints_the_hidden_checks_line(tmp_path, monkeypatch, capsys):
    """Does `grader check` itself, in a course folder without solutions/, exit 0 and end with the hidden-checks line?"""
    import grader.check
    from grader.cli import main

    course, notebook = _class_course(tmp_path)
    monkeypatch.setattr(grader.check, "repo_root", lambda: course)
    assert main(["check", str(notebook)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith("Hidden checks will run when your instructor grades") and "lower" in out[-1], out
    assert out[-2].split()[:2] == ["total", "0"], out


def test_a_hint_is_shown_under_its_failure_in_the_result_column():
    """Does a message's hint line go under the failure, indented to the result column, not at the line's start?"""
    from grader.check import ExerciseScore

    table = format_table("00_start_here", [ExerciseScore("ex1_test", "Exercise 1", 0, 2, "Exercise 1: f(x): wrong\nhint: look"),
                                           ExerciseScore("ex2_test", "Exercise 2", 2, 2, "")], width=80)
    lines = table.splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith("Exercise 1"))
    assert lines[row].endswith("Exercise 1: f(x): wrong")
    assert lines[row + 1].strip() == "hint: look" and lines[row + 1].index("hint") == lines[row].index("Exercise 1: f(x)")
    assert lines[row + 2].startswith("Exercise 2") and lines[row + 2].endswith("passed")


def test_a_long_verdict_is_wrapped_never_cut():
    """Is a verdict longer than the table's width wrapped in its column with every word kept, and left
    whole when the output is not a terminal (no width)?"""
    from grader.check import ExerciseScore

    message = ("Exercise 2: make_scaled(2.0) on a 2x2 matrix, first called on that shape after make_scaled(3.0) "
               "was made: 4 of 4 values differ; at index (0, 0) expected 2.0, got 3.0\nhint: keep the factor in the function")
    results = [ExerciseScore("ex2_test", "Exercise 2", 0, 2, message)]
    wrapped = format_table("00_start_here", results, width=80).splitlines()
    assert all(len(line) <= 80 for line in wrapped)
    words = " ".join(line[len("Exercise 2") + 13:] if line.startswith("Exercise 2") else line.strip()
                     for line in wrapped[3:-1])
    assert words.split() == message.split()
    whole = format_table("00_start_here", results).splitlines()
    assert any(line.endswith("expected 2.0, got 3.0") for line in whole), whole
