"""grader release: notebooks/ is exactly what nbgrader makes of solutions/, and nothing leaks."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat
import pytest

from conftest import CHAPTERS
from grader.course import learner_path, solution_path
from grader.errors import CourseError
from grader.release import LeakError, check_no_leaks, release


def _comparable(path: Path) -> dict:
    nb = json.loads(path.read_text())
    nb["metadata"].pop("language_info", None)
    return nb


@pytest.mark.slow
def test_committed_learner_notebooks_match_a_fresh_release(tmp_path):
    """Are the committed notebooks/ what `grader release` makes now (run `make release` if not)?"""
    written = release(out=tmp_path)
    assert sorted(p.parent.name for p in written) == CHAPTERS
    for fresh in written:
        committed = learner_path(fresh.parent.name)
        assert committed.exists(), f"{committed} is missing: run `make release`"
        assert _comparable(fresh) == _comparable(committed), (
            f"{committed} differs from a fresh release of solutions/: run `make release` and commit")
        # Files beside the notebook are released too.
        visible = lambda folder: sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))
        assert visible(fresh.parent) == visible(committed.parent)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_learner_notebooks_have_no_solutions_or_hidden_tests(chapter):
    """Does each committed learner notebook pass the leak check against its source?"""
    check_no_leaks(solution_path(chapter), learner_path(chapter))


def _released_copy(tmp_path: Path, chapter: str, edit) -> Path:
    nb = nbformat.read(learner_path(chapter), as_version=4)
    edit(nb, nbformat.read(solution_path(chapter), as_version=4))
    out = tmp_path / f"{chapter}.ipynb"
    nbformat.write(nb, out)
    return out


def _cell(nb, grade_id):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def test_a_solution_left_in_a_learner_notebook_is_caught(tmp_path):
    """If a solution line reaches a learner notebook, does the leak check fail and name it?"""
    def leak(learner, source):
        _cell(learner, "ex1_answer").source = _cell(source, "ex1_answer").source.replace("### BEGIN SOLUTION", "").replace("### END SOLUTION", "")
    with pytest.raises(LeakError, match="line from ex1_answer"):
        check_no_leaks(solution_path("01_numpy_interop"), _released_copy(tmp_path, "01_numpy_interop", leak))


def test_a_hidden_test_left_in_a_learner_notebook_is_caught(tmp_path):
    """If hidden test lines reach a learner notebook, does the leak check fail?"""
    def leak(learner, source):
        hidden = _cell(source, "ex3_test").source.split("### BEGIN HIDDEN TESTS")[1].split("### END HIDDEN TESTS")[0]
        _cell(learner, "ex3_test").source += "\n" + hidden
    with pytest.raises(LeakError, match="line from ex3_test"):
        check_no_leaks(solution_path("01_numpy_interop"), _released_copy(tmp_path, "01_numpy_interop", leak))


def test_a_marker_in_a_learner_notebook_is_caught(tmp_path):
    """Is a leftover solution marker reported, even with nothing between the markers?"""
    def leak(learner, source):
        learner.cells[-1].source += "\n### BEGIN SOLUTION\n### END SOLUTION\n"
    with pytest.raises(LeakError, match="marker"):
        check_no_leaks(solution_path("00_start_here"), _released_copy(tmp_path, "00_start_here", leak))


def test_unknown_chapter_is_refused():
    """Does releasing a chapter that does not exist say which chapters do?"""
    with pytest.raises(CourseError, match="unknown chapter.*00_start_here"):
        release(["99_nothing"], out=Path("/nonexistent"))


@pytest.mark.slow
def test_a_broken_source_fails_and_leaves_notebooks_alone(course_copy):
    """Released with another chapter, does a source nbgrader rejects (two cells with one grade_id) stop
    the release, naming that chapter and only it, with nbgrader's reason, and keep every notebook?"""
    source = course_copy / "solutions" / "01_numpy_interop" / "01_numpy_interop.ipynb"
    nb = nbformat.read(source, as_version=4)
    _cell(nb, "ex2_test").metadata["nbgrader"]["grade_id"] = "ex1_test"
    nbformat.write(nb, source)
    learners = [course_copy / "notebooks" / ch / f"{ch}.ipynb" for ch in ("00_start_here", "01_numpy_interop")]
    before = [path.read_bytes() for path in learners]
    with pytest.raises(CourseError) as caught:
        release(["00_start_here", "01_numpy_interop"], root=course_copy)
    assert str(caught.value).startswith("nbgrader could not release 01_numpy_interop:\n"), str(caught.value)
    assert "Duplicate grade id: ex1_test" in str(caught.value), str(caught.value)
    assert [path.read_bytes() for path in learners] == before
    shutil.rmtree(course_copy / "solutions")


def test_a_short_line_such_as_a_quiz_answer_is_protected_too(tmp_path):
    """Is a leaked quiz answer (a short line like q1 = "b") caught, not waved through for its length?"""
    def leak(learner, source):
        _cell(learner, "quiz_answer").source = 'q2 = "c"\n'
    with pytest.raises(LeakError, match="line from quiz_answer"):
        check_no_leaks(solution_path("01_numpy_interop"), _released_copy(tmp_path, "01_numpy_interop", leak))


@pytest.mark.slow
def test_release_never_overwrites_a_learners_answers(course_copy):
    """With answers in notebooks/, does release refuse (naming the file), and overwrite only with force?"""
    learner = course_copy / "notebooks" / "00_start_here" / "00_start_here.ipynb"
    nb = nbformat.read(learner, as_version=4)
    _cell(nb, "ex1_answer").source = "def sum_of_squares(x):\n    return (x * x).sum()\n"
    nbformat.write(nb, learner)
    mine = learner.read_bytes()
    (learner.parent / "scratch.py").write_text("# the learner's own file\n")
    with pytest.raises(CourseError, match="hold answers.*00_start_here.ipynb.*--force"):
        release(["00_start_here"], root=course_copy)
    assert learner.read_bytes() == mine
    release(["00_start_here"], root=course_copy, force=True)
    assert learner.read_bytes() != mine and "raise NotImplementedError()" in learner.read_text()
    assert (learner.parent / "scratch.py").exists(), "release must not delete other files"


@pytest.mark.slow  # one release and two runs of nbgrader's own autograde, on a chapter whose kernel needs no JAX
def test_after_a_release_nbgraders_autograde_grades_with_the_hidden_tests_and_no_warning_of_ours(tmp_path):
    """After `grader release` (and nothing else), does nbgrader's own autograde (formgrader's Autograde button)
    find the chapter in the gradebook, grade a learner's untouched test cell with its hidden tests restored
    (an answer right only at the visible check scores 0) and log no warning at all: no "checksum has changed"
    for a cell nobody edited, no setting of the course's nbgrader_config.py it does not know? And does it
    still warn about a test cell a learner did change?"""
    from conftest import ROOT
    from grader.course import run_nbgrader
    from test_worker import _notebook

    course, chapter = tmp_path / "course", "99_tiny"
    (course / "solutions" / chapter).mkdir(parents=True)
    shutil.copy(ROOT / "nbgrader_config.py", course)
    source = _notebook("def double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION\n")
    source.cells[2].source += ("\n    ### BEGIN HIDDEN TESTS\n    checks.equal(double(5), 10, what=\"double(5)\")\n"
                               "    ### END HIDDEN TESTS")
    nbformat.write(source, course / "solutions" / chapter / f"{chapter}.ipynb")
    release([chapter], root=course)
    released = nbformat.read(course / "notebooks" / chapter / f"{chapter}.ipynb", as_version=4)
    assert "HIDDEN" not in released.cells[2].source and "double(5)" not in released.cells[2].source
    for student, answer, edit in (("kim", "def double(x):\n    return 4\n", ""), ("eve", "def double(x):\n    return 2 * x\n",
                                                                                "\n# my own line")):
        nb = nbformat.from_dict(json.loads(json.dumps(released)))
        nb.cells[1].source = answer
        nb.cells[2].source += edit
        (course / "submitted" / student / chapter).mkdir(parents=True)
        nbformat.write(nb, course / "submitted" / student / chapter / f"{chapter}.ipynb")

    from nbgrader.api import Gradebook

    proc = run_nbgrader(["autograde", chapter], cwd=course, timeout=600)  # eve first, then kim
    assert proc.returncode == 0, proc.stderr[-3000:]
    log = [line for line in proc.stderr.splitlines() if line.startswith("[AutogradeApp | ")]
    warned = [n for n, line in enumerate(log) if line.startswith("[AutogradeApp | WARNING]")]
    kim = next(n for n, line in enumerate(log) if "Sanitizing" in line and "/kim/" in line)
    assert len(warned) == 1 and warned[0] < kim, "\n".join(log)
    assert "Attribute 'checksum' for cell ex1_test has changed!" in log[warned[0]], log[warned[0]]
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        assert gb.find_submission(chapter, "kim").score == 0  # the hidden double(5) caught `return 4`
        assert gb.find_submission(chapter, "eve").score == 1
    graded = nbformat.read(course / "autograded" / "kim" / chapter / f"{chapter}.ipynb", as_version=4)
    assert "double(5)" in graded.cells[2].source
