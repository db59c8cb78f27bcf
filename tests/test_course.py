"""The course's layout (`grader.course`): chapter ids checked in one place, the same words everywhere."""

from __future__ import annotations

import shutil

import pytest

from conftest import ROOT
from grader.errors import CourseError


def test_every_command_refuses_an_unknown_chapter_with_the_same_words(tmp_path):
    """Do autograde, release, execute and report each refuse an unknown chapter id before doing anything,
    with one message that names it and the chapters there are?"""
    from grader.autograde import autograde
    from grader.autograde.class_report import report
    from grader.execute import execute_chapters
    from grader.release import release

    shutil.copytree(ROOT / "solutions" / "00_start_here", tmp_path / "solutions" / "00_start_here")
    expected = "unknown chapter '99_nothing'; the chapters are: 00_start_here"
    calls = {"autograde": lambda: autograde(tmp_path, ["99_nothing"], progress=False),
             "release": lambda: release(["99_nothing"], root=tmp_path),
             "execute": lambda: execute_chapters(["99_nothing"], root=tmp_path),
             "report": lambda: report(course=tmp_path, chapter="99_nothing")}
    for name, call in calls.items():
        with pytest.raises(CourseError) as caught:
            call()
        assert str(caught.value) == expected, name
    assert sorted(p.name for p in tmp_path.iterdir()) == ["solutions"]
    with pytest.raises(CourseError, match="^unknown chapters '98_a', '99_b'; the chapters are: 00_start_here$"):
        release(["99_b", "98_a"], root=tmp_path)


CELL = '''"""Exercise 1: f."""
with checks.exercise(1, "f"):
    checks.equal(f(1), 2, what="f(1)")
    ### BEGIN HIDDEN TESTS  (other inputs)
    checks.equal(f(5), 10, what="f(5)")
    ### END HIDDEN TESTS
    checks.equal(f(0), 0, what="f(0)")'''


def test_release_prepare_and_the_learners_view_read_regions_as_nbgrader_does():
    """For a test cell whose marker line carries more words, does the learner's view (`visible_source`) equal
    what nbgrader's own ClearHiddenTests releases, does the leak check protect exactly the hidden line, and do
    the checks after the marker run as hidden ones and those after the end as visible ones again?"""
    import nbformat
    from nbgrader.preprocessors import ClearHiddenTests

    from grader.autograde.prepare import strip_expected
    from grader.course import BEGIN_HIDDEN, HIDDEN, PUBLIC, regions, visible_source
    from grader.release import protected_text

    cell = nbformat.v4.new_code_cell(CELL, metadata={"nbgrader": {"grade": True, "grade_id": "ex1_test", "points": 1}})
    released = nbformat.v4.new_code_cell(CELL)
    ClearHiddenTests()._remove_hidden_test_region(released)
    assert visible_source(CELL) == released.source
    assert [where for where, _ in regions(CELL)] == [PUBLIC] * 3 + [BEGIN_HIDDEN, HIDDEN, "### END HIDDEN TESTS", PUBLIC]
    assert protected_text(nbformat.v4.new_notebook(cells=[cell])) == [("ex1_test", 'checks.equal(f(5), 10, what="f(5)")')]
    stripped = strip_expected(CELL).splitlines()
    marks = [line.strip() for line in stripped if "hidden_checks" in line]
    assert marks == ["__import__('grader.checks', fromlist=['_']).hidden_checks(True)",
                     "__import__('grader.checks', fromlist=['_']).hidden_checks(False)"], stripped
    assert stripped.index(next(l for l in stripped if "hidden_checks(True)" in l)) + 1 == \
        stripped.index(next(l for l in stripped if "f(5)" in l))


def test_the_tests_run_together_exist_and_take_a_chapter():
    """Does every test conftest.py's TOGETHER runs as one unit per chapter exist, parametrized by
    chapter, so that a renamed test cannot silently lose its partner (and its shared reference)?"""
    import importlib.util
    import re

    spec = importlib.util.spec_from_file_location("scheduling", ROOT / "conftest.py")
    scheduling = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scheduling)
    assert len(scheduling.TOGETHER) >= 2
    for unit in scheduling.TOGETHER:
        path, _, name = unit.partition("::")
        text = (ROOT / path).read_text()
        assert re.search(rf'@pytest\.mark\.parametrize\("chapter", CHAPTERS\)\ndef {name}\(', text), unit
    assert scheduling._together(scheduling.TOGETHER[1] + "[07_lowering]") == (1, "07_lowering")
    assert scheduling._together("tests/test_check.py::test_other[07_lowering]") is None


def test_the_long_units_make_test_starts_first_are_tests_that_exist():
    """Does every unit in conftest.py's LONG (started first by make test's workers) name a test file,
    or a test function of it with a chapter as its parameter, that exists? A renamed test would
    otherwise lose its place silently."""
    import importlib.util
    import re

    from grader.course import chapters

    spec = importlib.util.spec_from_file_location("scheduling", ROOT / "conftest.py")
    scheduling = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scheduling)
    for unit in scheduling.LONG:
        path, _, test = unit.partition("::")
        assert (ROOT / path).is_file(), unit
        if test:
            name, chapter = re.fullmatch(r"(\w+)(?:\[(\w+)\])?", test).groups()
            assert re.search(rf"^def {name}\(", (ROOT / path).read_text(), re.M), unit
            assert chapter is None or chapter in chapters(ROOT), unit


def test_a_kernel_that_dies_before_it_answers_is_started_again_up_to_three_times():
    """conftest.py wraps nbval's start_new_kernel: does a start whose kernel died before answering
    get tried again (twice more at most), while any other error, or a third death, is raised?"""
    import importlib.util

    spec = importlib.util.spec_from_file_location("scheduling", ROOT / "conftest.py")
    scheduling = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scheduling)
    died = RuntimeError("Kernel died before replying to kernel_info")
    tries = []

    def start(outcomes):
        def fake(**kwargs):
            tries.append(kwargs)
            outcome = outcomes.pop(0)
            if isinstance(outcome, Exception):
                raise outcome
            return outcome
        return fake

    assert scheduling._start_kernel_again_if_it_died(start([died, "km, kc"]))(kernel_name="python3") == "km, kc"
    assert tries == [{"kernel_name": "python3"}] * 2
    with pytest.raises(RuntimeError, match="died before replying"):
        scheduling._start_kernel_again_if_it_died(start([died, died, died, "never"]))()
    with pytest.raises(RuntimeError, match="no such kernel"):
        scheduling._start_kernel_again_if_it_died(start([RuntimeError("no such kernel"), "never"]))()
    assert len(tries) == 6
