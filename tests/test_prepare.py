"""The prepare stage: answer cells that reach into the grading machinery are flagged; huge notebooks refused."""

from __future__ import annotations

import nbformat
import pytest

from conftest import ROOT
from grader.autograde.prepare import MAX_CELLS, prepare, too_big, touches_grading
from grader.course import solution_path

CHAPTER = "01_numpy_interop"


@pytest.mark.parametrize("source, hit", [
    ("from grader import checks\nchecks.true = lambda *a, **k: None", "checks"),
    ("import grader\ngrader.checks.true = print", "grader.checks"),
    ("get_ipython().input_transformers_post.append(f)", "get_ipython"),
    ("import sys\nsys.modules['grader.checks'] = object()", "modules"),
    ("import builtins\nbuiltins.print = None", "builtins"),
    ("ip = get_ipython()\nip.set_custom_exc((Exception,), h)", "set_custom_exc"),
    ("%time x = 1\nget_ipython()", "get_ipython"),
])
def test_answers_that_touch_the_grading_machinery_are_named(source, hit):
    """Is each way into the checks, IPython's hooks, sys.modules or builtins named?"""
    assert hit in touches_grading(source)


@pytest.mark.parametrize("source", [
    "def f(x):\n    return np.asarray(x) * 2",
    "lib = grader.build(code=src, name='k')\nf = lib.cdll.f",
    "same = grader.memory.same_memory(a, b)",
])
def test_ordinary_answers_are_not_flagged(source):
    """Does an ordinary answer, one that builds C++ with grader.build, or one that compares addresses, pass unflagged?"""
    assert touches_grading(source) == []


def test_a_patched_check_is_flagged_with_its_cell_and_the_setup_cell_is_not():
    """In chapter 01 with an answer cell that patches `grader.checks.true`, is that cell flagged (with its
    index and first line), and not the setup cell, which imports the checks as the instructor wrote it?"""
    source = nbformat.read(solution_path(CHAPTER, ROOT), as_version=4)
    submitted = nbformat.read(solution_path(CHAPTER, ROOT), as_version=4)
    answer = next(c for c in submitted.cells if c.metadata.get("nbgrader", {}).get("solution"))
    answer.source = "import grader\ngrader.checks.true = lambda *a, **k: None\n" + answer.source
    prepared = prepare(submitted, source)
    [flag] = prepared.flagged
    assert flag.startswith(f"cell {submitted.cells.index(answer)} (import grader)") and "grader.checks" in flag
    assert prepare(source, source).flagged == []


def test_a_notebook_with_too_many_cells_is_refused():
    """Is a notebook built with more cells than any chapter could need refused before it runs?"""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1") for _ in range(MAX_CELLS + 1)])
    assert "more than the" in too_big(nb)
    assert too_big(nbformat.read(solution_path(CHAPTER, ROOT), as_version=4)) == ""
