"""Score one notebook the way the instructor's autograder would, and print points per exercise."""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from grader.course import cell_title, chapter_of, grade_cells, read_notebook, repo_root, solution_path
from grader.errors import CourseError

STUDENT = "learner"


@dataclass
class ExerciseScore:
    grade_id: str
    title: str
    points: float
    max_points: float
    message: str


def score(notebook: Path, *, root: Path | None = None) -> list[ExerciseScore]:
    """Score `notebook` exactly as `grader autograde` scores a class, hidden tests included.

    It runs in a scratch course (the chapter's solution as the reference, the notebook as the one
    submission), sandboxed where possible, with the verdicts made outside the kernel. The notebook
    itself is only read. Raises UsageError when it is not a notebook of this course, and
    CourseError when it cannot be graded; `status_line` then says more.
    """
    from grader.autograde import autograde

    root = root or repo_root()
    notebook = Path(notebook)
    read_notebook(notebook)
    chapter = chapter_of(notebook, root)
    with tempfile.TemporaryDirectory(prefix="grader-check-") as tmp:
        course = Path(tmp)
        shutil.copy(root / "nbgrader_config.py", course)
        shutil.copytree(root / "solutions" / chapter, course / "solutions" / chapter)
        submitted = course / "submitted" / STUDENT / chapter
        submitted.mkdir(parents=True)
        shutil.copy(notebook, submitted / f"{chapter}.ipynb")
        summary = autograde(course, [chapter], workers=1, feedback=False, progress=False,
                            reference_cache=reference_cache())
    row = summary.rows[0]
    if row.status.startswith("failed: "):
        raise CourseError(f"{notebook.name} could not be graded: {row.status[len('failed: '):]}")
    results = []
    for cell in grade_cells(read_notebook(solution_path(chapter, root))):
        grade_id = cell.metadata["nbgrader"]["grade_id"]
        points, most, message = row.exercises[grade_id]
        title = cell_title(cell).split(":")[0]  # "Exercise 1: what it checks" -> "Exercise 1"
        results.append(ExerciseScore(grade_id, title, points, most, message))
    if row.status.startswith("incomplete: "):
        # The reason goes with the first exercise that lost its points to it.
        results.append(ExerciseScore("", "note", 0.0, 0.0, row.status[len("incomplete: "):]))
    return results


def reference_cache() -> Path:
    """Where each chapter's reference records are kept between checks (safe to delete)."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "jax-beyond-jnp" / "reference"


def format_table(chapter: str, results: list[ExerciseScore], width: int | None = None) -> str:
    """A plain-text table: one row per exercise with its points and first failure."""
    width = width or max(80, shutil.get_terminal_size((120, 24)).columns)
    notes = [r.message for r in results if not r.grade_id]
    results = [r for r in results if r.grade_id]
    total = sum(r.points for r in results)
    most = sum(r.max_points for r in results)
    name_w = max(len(r.title) for r in results) if results else 10
    rows = [f"{chapter}: scored as the autograder does (hidden tests included)", ""]
    rows.append(f"{'exercise':<{name_w}}  {'points':>9}  result")
    for r in results:
        message = r.message or "passed"
        room = max(20, width - name_w - 13)
        message = message if len(message) <= room else message[: room - 1] + "…"
        rows.append(f"{r.title:<{name_w}}  {_num(r.points):>4} / {_num(r.max_points):<2}  {message}")
    rows.append(f"{'total':<{name_w}}  {_num(total):>4} / {_num(most):<2}")
    rows += [f"note: {note}" for note in notes]
    return "\n".join(rows)


def _num(x: float) -> str:
    return f"{x:g}"
