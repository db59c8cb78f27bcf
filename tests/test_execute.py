"""grader execute: solution notebooks are re-run in place, and only a clean run is saved."""

from __future__ import annotations

import nbformat
import pytest

from grader.errors import CourseError
from grader.execute import execute, execute_chapters


@pytest.mark.slow
def test_a_clean_notebook_is_rerun_and_saved(course_copy):
    """Are stored outputs replaced by fresh ones when every cell runs cleanly?"""
    path = course_copy / "solutions" / "00_start_here" / "00_start_here.ipynb"
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    nbformat.write(nb, path)
    execute_chapters(["00_start_here"], root=course_copy)
    rerun = nbformat.read(path, as_version=4)
    texts = "".join(o.get("text", "") for c in rerun.cells if c.cell_type == "code" for o in c.outputs)
    assert "add_one(41.0) = 42.0" in texts and "✅ Exercise 1: all" in texts


@pytest.mark.slow
def test_a_failing_cell_leaves_the_notebook_unchanged(course_copy):
    """When a cell raises or writes to stderr, is the notebook left byte for byte as it was?"""
    path = course_copy / "solutions" / "00_start_here" / "00_start_here.ipynb"
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("import sys\nprint('careful', file=sys.stderr)\n1 / 0"))
    nbformat.write(nb, path)
    before = path.read_bytes()
    with pytest.raises(CourseError, match=r"(?s)did not run cleanly.*wrote to stderr: careful.*raised ZeroDivisionError"):
        execute(path)
    assert path.read_bytes() == before


def test_unknown_chapter_is_refused(course_copy):
    """Does an unknown chapter id name the chapters that exist?"""
    with pytest.raises(CourseError, match="unknown chapter.*01_numpy_interop"):
        execute_chapters(["07_nothing"], root=course_copy)
