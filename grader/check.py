"""Score one notebook the way the instructor's autograder would, and print points per exercise.

With the chapter's reference solution at hand (solutions/<chapter>/, self-study) the notebook is
graded exactly as `grader autograde` grades a class, hidden checks included. In a class, learners
have only the released notebooks: the notebook's own visible self-checks are then run in a fresh
(sandboxed) kernel, and their verdicts, made in that kernel as in the learner's session, give the
points. Hidden checks run only when the instructor grades.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from grader.course import ANSI, cell_title, chapter_of, grade_cells, read_notebook, repo_root, solution_path
from grader.notebook.checks import explaining_line
from grader.errors import CourseError

STUDENT = "learner"

#: The line `format_table` adds when only the visible self-checks could be run.
HIDDEN_CHECKS_LINE = ("Hidden checks will run when your instructor grades, so your score may be lower then "
                      "(only the visible self-checks ran here: this course folder has no solutions/).")


@dataclass
class ExerciseScore:
    grade_id: str
    title: str
    points: float
    max_points: float
    message: str
    visible_only: bool = False  # scored by the visible self-checks alone (no solutions/ here)


def score(notebook: Path, *, root: Path | None = None) -> list[ExerciseScore]:
    """Score `notebook` exactly as `grader autograde` scores a class, hidden tests included.

    It is one job of the class run's own path (`run.run_jobs`, through `run.grade_job`): the
    notebook, alone in a scratch folder, runs sandboxed where possible under the course's limits,
    and its records are judged outside the kernel against the chapter's reference, whose records are
    cached between checks (`reference_cache`). What only a class needs (a gradebook, grades.csv, a
    report) is left out. Without solutions/<chapter>/<chapter>.ipynb under `root`, only the
    notebook's visible self-checks can run (`score_visible`). The notebook itself is only read.
    Raises UsageError when it is not a notebook of this course, and CourseError when it cannot be
    graded.
    """
    from grader.autograde import config, gradebook, judge, run, sandbox
    from grader.autograde.jobs import Job, Outcome

    root = root or repo_root()
    notebook = Path(notebook)
    read_notebook(notebook)
    chapter = chapter_of(notebook, root)
    if not solution_path(chapter, root).is_file():
        return score_visible(notebook, root=root)
    limits = config.limits(root)
    with tempfile.TemporaryDirectory(prefix="grader-check-") as tmp:
        tmp = Path(tmp)
        submission = tmp / "submission" / f"{chapter}.ipynb"
        submission.parent.mkdir()
        shutil.copy(notebook, submission)
        job = Job(STUDENT, chapter, submission)
        workers = run.Workers(1, tmp)  # started first: it imports while the sandbox is probed
        runner = run.LocalRunner(root, [chapter], workers, 1, tmp, sandbox.probe().sandboxed)
        try:
            runs, references, errors = run.run_jobs(root, [job], runner, limits, reference_cache())
        finally:
            runner.close()
            workers.close()
    if chapter in errors:
        raise CourseError(f"{notebook.name} could not be graded: {errors[chapter]}")
    row = judge.make_row(job, runs[job.key], references[chapter], gradebook.points(root, chapter), None)
    if row.status.outcome is Outcome.FAILED:
        raise CourseError(f"{notebook.name} could not be graded: {row.status.reason}" + (
            f"\n{row.trace}" if row.trace and os.environ.get("GRADER_DEBUG") else ""))
    results = []
    for cell in grade_cells(read_notebook(solution_path(chapter, root))):
        grade_id = cell.metadata["nbgrader"]["grade_id"]
        points, most, message, _ = row.exercises[grade_id]
        title = cell_title(cell).split(":")[0]  # "Exercise 1: what it checks" -> "Exercise 1"
        results.append(ExerciseScore(grade_id, title, points, most, message))
    if row.status.outcome is Outcome.INCOMPLETE:
        # The reason goes with the first exercise that lost its points to it.
        results.append(ExerciseScore("", "note", 0.0, 0.0, row.status.reason))
    return results


def score_visible(notebook: Path, *, root: Path | None = None) -> list[ExerciseScore]:
    """Score `notebook` by its own visible self-checks, run in a fresh kernel.

    The notebook (its cells as they are, outputs cleared) runs in a scratch copy of its folder,
    sandboxed where possible, under the grading limits (those of the course's nbgrader_config.py under
    `root`), with the checks judging in the kernel as
    in a learner's session: the reference records that grading compares with come from the
    solution, which a learner does not have. An exercise scores its points when its self-check
    cell printed its ✅ line and raised nothing, else 0 with the check's own first failure.
    """
    from grader.autograde import config, kernel as runner, sandbox, zygote
    from grader.autograde.worker import copy_submission_folder

    notebook = Path(notebook)
    nb = read_notebook(notebook)
    tests = grade_cells(nb)
    if not tests:
        raise CourseError(f"{notebook.name} has no self-check cells (were they deleted?): "
                          "get a fresh copy of the chapter's notebook and move your answers into it")
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    limits = config.limits(root or repo_root())
    with tempfile.TemporaryDirectory(prefix="grader-check-") as tmp:
        workdir, control = Path(tmp) / "w", Path(tmp) / "c"
        control.mkdir(mode=0o700)
        copy_submission_folder(notebook.parent, workdir)
        os.chmod(workdir, 0o777)
        sandboxed = sandbox.probe().sandboxed
        # The kernel starts as a graded one does: forked by a zygote (`grader.autograde.zygote`).
        forks = zygote.shared() if sandboxed else None
        try:
            run = runner.run(nb, workdir, limits, sandboxed=sandboxed, control=control, record=False, private=True,
                             zygote=forks.socket if forks else None)
        finally:
            if forks:
                forks.stop()
    index_of = {id(cell): i for i, cell in enumerate(run.nb.cells)}
    results = []
    for cell in grade_cells(run.nb):
        meta = cell.metadata["nbgrader"]
        most = float(meta.get("points") or 0)
        title = cell_title(cell).split(":")[0]
        index = index_of[id(cell)]
        message = _visible_verdict(title, cell)
        if index in run.timed_out:
            message = f"{title}: this cell ran longer than {limits.cell_seconds:g} s and was interrupted"
        elif run.reason and (run.stopped_at is None or index >= run.stopped_at) and not _passed(cell):
            message = f"{title}: not graded: {run.reason}" + (
                "" if run.stopped_at is None or index == run.stopped_at
                else f" in cell {run.stopped_at}, before this one ran")
        if message and index in run.progress and (index in run.timed_out or index == run.stopped_at):
            message += f"\nwhere: {run.progress[index]}"
        results.append(ExerciseScore(meta["grade_id"], title, 0.0 if message else most, most, message,
                                     visible_only=True))
    if run.reason:
        where = ""
        if run.stopped_at is not None:
            first = next((line.strip() for line in run.nb.cells[run.stopped_at].source.splitlines() if line.strip()), "")
            where = f" in cell {run.stopped_at}: {first[:80]}"
        results.append(ExerciseScore("", "note", 0.0, 0.0, run.reason + where, visible_only=True))
    return results


def _passed(cell) -> bool:
    return not _visible_verdict("", cell)


def _visible_verdict(title: str, cell) -> str:
    """"" when a self-check cell passed in the kernel, else its first failure in a line or two."""
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            name, value = out.get("ename", ""), ANSI.sub("", str(out.get("evalue", ""))).strip()
            if name in ("CheckFailed", "NotAnswered", "AnswerCrashed"):
                return value  # the checks' own message, starting with the exercise's title
            line = explaining_line(value)
            return f"{title}: the self-check cell raised {name}" + (f": {line}" if line else "")
    printed = "".join(out.get("text", "") for out in cell.get("outputs", []) if out.get("output_type") == "stream")
    if "✅" not in printed:
        return f"{title}: its self-check did not report a result (was the cell edited?)"
    return ""


def reference_cache() -> Path:
    """Where each chapter's reference records are kept between checks (safe to delete):
    $JBJ_REFERENCE_CACHE, else the user's cache folder."""
    env = os.environ.get("JBJ_REFERENCE_CACHE")
    if env:
        return Path(env)
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "jax-beyond-jnp" / "reference"


def format_table(chapter: str, results: list[ExerciseScore], width: int | None = None) -> str:
    """A plain-text table: one row per exercise with its points and first failure.

    A long verdict is wrapped in its column, never cut: with `width` (or on a terminal, its width)
    at that width; when the output is not a terminal (a file, a pipe, a notebook), not at all."""
    import textwrap

    if width is None and sys.stdout.isatty():
        width = max(80, shutil.get_terminal_size((120, 24)).columns)
    notes = [r.message for r in results if not r.grade_id]
    results = [r for r in results if r.grade_id]
    total = sum(r.points for r in results)
    most = sum(r.max_points for r in results)
    name_w = max(len(r.title) for r in results) if results else 10
    visible_only = any(r.visible_only for r in results)
    rows = [f"{chapter}: scored by the visible self-checks only" if visible_only
            else f"{chapter}: scored as the autograder does (hidden tests included)", ""]
    rows.append(f"{'exercise':<{name_w}}  {'points':>9}  result")
    indent = " " * (name_w + 13)
    room = max(20, width - name_w - 13) if width else None
    for r in results:
        # A hint (the message's second line) goes under the first, in the result column.
        lines = []
        for line in (r.message or "passed").splitlines() or ["passed"]:
            lines += textwrap.wrap(line, room, break_long_words=True, break_on_hyphens=False) if room else [line]
        first, *more = lines or ["passed"]
        rows.append(f"{r.title:<{name_w}}  {_num(r.points):>4} / {_num(r.max_points):<2}  {first}")
        rows += [indent + line for line in more]
    rows.append(f"{'total':<{name_w}}  {_num(total):>4} / {_num(most):<2}")
    rows += [f"note: {note}" for note in notes]
    if visible_only:
        rows.append(HIDDEN_CHECKS_LINE)
    return "\n".join(rows)


def _num(x: float) -> str:
    return f"{x:g}"
