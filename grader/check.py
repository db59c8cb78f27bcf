"""Score one notebook the way the instructor's autograder would, and print points per exercise."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import nbformat

from grader.course import (ANSI, cell_title, chapter_of, grade_cells, read_notebook, repo_root,
                           run_nbgrader, solution_path)
from grader.errors import CourseError

STUDENT = "learner"


@dataclass
class ExerciseScore:
    grade_id: str
    title: str
    points: float
    max_points: float
    message: str


def first_failure(cell: nbformat.NotebookNode, limit: int = 2) -> str:
    """The first lines of a graded cell's error output, without colour codes; "" if it passed."""
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            lines = [ANSI.sub("", line) for chunk in output.get("traceback", []) for line in chunk.splitlines()]
            lines = [line.rstrip() for line in lines if line.strip() and not set(line.strip()) <= set("-")]
            if not lines:
                lines = [f"{output.get('ename')}: {output.get('evalue')}"]
            # A plain traceback ends with "Error: message": that line says the most.
            if len(lines) > limit and not output.get("traceback", [""])[0].lstrip().startswith(("❌", "⏳")):
                lines = lines[-1:]
            return " ".join(line.strip() for line in lines[:limit])
    for output in cell.get("outputs", []):
        # nbgrader also scores a test cell zero when anything reached stderr (a warning, say).
        if output.get("output_type") == "stream" and output.get("name") == "stderr":
            first = next((ln.strip() for ln in ANSI.sub("", output.get("text", "")).splitlines() if ln.strip()), "")
            return f"the cell wrote to stderr, which nbgrader scores as a failure: {first}"
    return ""


def score(notebook: Path, *, root: Path | None = None) -> list[ExerciseScore]:
    """Autograde `notebook` with nbgrader in a scratch course, hidden tests included.

    The notebook itself is only read. Raises UsageError when it is not a notebook of this
    course, and CourseError when nbgrader could not grade it.
    """
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
        # Name the scratch course and gradebook explicitly, so no user-level nbgrader config can
        # point either at a real class.
        where = [f"--CourseDirectory.root={course}", f"--CourseDirectory.db_url=sqlite:///{course / 'gradebook.db'}"]
        # generate_assignment records the chapter's graded cells in the scratch gradebook.
        for args in (["generate_assignment", chapter, "--force"], ["autograde", chapter, "--force"]):
            proc = run_nbgrader([*args, *where], cwd=course)
            if proc.returncode != 0:
                raise CourseError(_explain_failure(args[0], notebook, proc.stderr))
        graded_nb = nbformat.read(course / "autograded" / STUDENT / chapter / f"{chapter}.ipynb", as_version=4)
        messages = {cell.metadata["nbgrader"]["grade_id"]: first_failure(cell) for cell in grade_cells(graded_nb)}
        submitted_ids = {cell.metadata["nbgrader"]["grade_id"] for cell in grade_cells(read_notebook(notebook))}

        from nbgrader.api import Gradebook

        with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
            sub = gb.find_submission_notebook(chapter, chapter, STUDENT)
            scores = {g.name: (g.score, g.max_score) for g in sub.grades}

    results = []
    for cell in grade_cells(read_notebook(solution_path(chapter, root))):
        grade_id = cell.metadata["nbgrader"]["grade_id"]
        got, most = scores[grade_id]
        message = messages.get(grade_id, "")
        if grade_id not in submitted_ids:
            message = ("this exercise's self-check cell is missing from your notebook, so it scores 0: "
                       "copy the cell back from a fresh copy of the chapter")
        elif got is None:
            message = "this cell is graded by hand"
        elif got < most and not message:
            message = "nbgrader gave this cell fewer points; open the cell to see its output"
        title = cell_title(cell).split(":")[0]  # "Exercise 1: what it checks" -> "Exercise 1"
        results.append(ExerciseScore(grade_id, title, got or 0.0, most, message))
    return results


def _explain_failure(step: str, notebook: Path, log: str) -> str:
    """One or two lines on why nbgrader could not grade, instead of its log."""
    if "DeadKernelError" in log:
        return (f"the kernel died while running {notebook.name} (a crash in C++ code, os._exit, or running "
                "out of memory), so nothing could be graded.\nRun it top to bottom (Kernel > Restart Kernel and "
                "Run All Cells) to find the cell that stops it.")
    if "CellTimeoutError" in log or "Timeout waiting for execute reply" in log:
        return (f"a cell of {notebook.name} ran longer than the time limit, so nothing could be graded.\n"
                "Look for a loop that never ends, or work that is far larger than the exercise asks.")
    lines = [ln for ln in log.strip().splitlines() if ln.strip()]
    return f"nbgrader {step} failed on {notebook.name}:\n  " + "\n  ".join(lines[-6:])


def format_table(chapter: str, results: list[ExerciseScore], width: int | None = None) -> str:
    """A plain-text table: one row per exercise with its points and first failure."""
    width = width or max(80, shutil.get_terminal_size((120, 24)).columns)
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
    return "\n".join(rows)


def _num(x: float) -> str:
    return f"{x:g}"
