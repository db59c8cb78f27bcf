"""Stage 5, record: nbgrader's gradebook (SQLite) learns each chapter and each submission's scores.

The chapters are recorded (as nbgrader generate_assignment does, in this process) once the
notebooks have run, the scores once every submission is judged. formgrader, feedback and `nbgrader
export` then work on the gradebook as with nbgrader's own autograde.
"""

from __future__ import annotations

import importlib
import os
import shutil
import tempfile
import threading
import warnings
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

from grader.autograde.intake import read_timestamp
from grader.autograde.jobs import Job, Row
from grader.course import cell_title, grade_cells, read_notebook
from grader.errors import CourseError


def db_url(course: Path) -> str:
    return f"sqlite:///{course / 'gradebook.db'}"


class Recording:
    """The chapters' assignments, recorded in the gradebook once the notebooks have run.

    nbgrader's modules are imported in the background meanwhile, at a lower priority; the recording
    itself (`record_assignments`) waits for `wait`, because nbgrader changes the process's working
    folder while it converts a notebook, which nothing else may see happen."""

    def __init__(self, course: Path, chapters: list[str]):
        self.course, self.chapters = course, chapters
        self.pool = ThreadPoolExecutor(max_workers=1)
        self.future: Future = self.pool.submit(_import_nbgrader)

    def wait(self) -> None:
        """Record the chapters. Raises CourseError if nbgrader could not record one."""
        self.pool.shutdown()
        self.future.result()
        record_assignments(self.course, self.chapters)


def _import_nbgrader() -> None:
    try:  # Linux: the priority of this thread alone
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
    except (AttributeError, OSError):
        pass
    for module in ("nbgrader.api", "nbgrader.utils", "nbgrader.apps.api"):
        importlib.import_module(module)


def alembic_head() -> str:
    """The gradebook schema's version, which nbgrader writes into a new gradebook: what `alembic heads`
    prints for nbgrader's migrations, read in this process (nbgrader itself runs `alembic` in a
    subprocess for it, about 3.5 s of CPU, while this takes about 0.2 s)."""
    import nbgrader
    from alembic.script import ScriptDirectory

    return ScriptDirectory(str(Path(nbgrader.__file__).parent / "alembic")).get_current_head()


def _gradebook_api() -> None:
    """Set nbgrader's gradebook API to find the schema's version in this process (`alembic_head`)."""
    import nbgrader.api

    nbgrader.api.get_alembic_version = alembic_head


def record_assignments(course: Path, chapters: list[str]) -> None:
    """Record each chapter as `nbgrader generate_assignment` does (the gradebook learns the chapter's
    notebooks and graded cells), in this process and into a scratch release folder: the course's own
    release folder is not touched. nbgrader reads the course's configuration as its commands do."""
    from grader.autograde import config

    _gradebook_api()
    from nbgrader.apps.api import NbGraderAPI

    settings = config.load(course)
    settings.CourseDirectory.root = str(Path(course).resolve())
    settings.CourseDirectory.db_url = db_url(Path(course).resolve())
    for chapter in chapters:
        with tempfile.TemporaryDirectory(prefix="jbj-release-") as release:
            settings.CourseDirectory.release_directory = release
            result = NbGraderAPI(config=settings).generate_assignment(chapter, force=True, create=True)
        if not result["success"]:
            raise CourseError(f"nbgrader generate_assignment {chapter} failed:\n  " + "\n  ".join(_reasons(result)))


def _reasons(result: dict) -> list[str]:
    """What nbgrader logged as errors (without its pointers to tracebacks), else the last line of its traceback."""
    said = [line[len("[ERROR] "):] for line in (result.get("log") or "").splitlines() if line.startswith("[ERROR] ")]
    said = [line for line in said if not line.startswith(("Traceback", "Please see the"))]
    error = [line for line in (result.get("error") or "").splitlines() if line.strip()]
    return said or error[-1:] or ["(nbgrader said nothing more)"]


def points(course: Path, chapter: str) -> dict[str, tuple[float, str]]:
    """Each graded cell's points and title, from the chapter's solution notebook."""
    nb = read_notebook(course / "solutions" / chapter / f"{chapter}.ipynb")
    return {c.metadata.nbgrader.grade_id: (float(c.metadata.nbgrader.points), cell_title(c).split(":")[0])
            for c in grade_cells(nb)}


def due_dates(course: Path, chapters: list[str]) -> dict[str, datetime]:
    from nbgrader.api import Gradebook, MissingEntry

    due = {}
    with Gradebook(db_url(course)) as gb:
        for chapter in chapters:
            try:
                assignment = gb.find_assignment(chapter)
            except MissingEntry:
                continue
            if assignment.duedate:
                due[chapter] = assignment.duedate.replace(tzinfo=timezone.utc)
    return due


def write(course: Path, rows: list[Row], jobs: list[Job]) -> None:
    """Each scored row's points into the gradebook, with the submission's time."""
    from nbgrader.api import Gradebook

    stamps = {job.key: job.timestamp for job in jobs}
    with Gradebook(db_url(course)) as gb, warnings.catch_warnings():
        # nbgrader's own session handling makes SQLAlchemy warn on every new submission.
        warnings.simplefilter("ignore")
        for row in rows:
            if row.score is None:
                continue
            gb.update_or_create_student(row.student)
            sub = gb.update_or_create_submission(row.chapter, row.student)
            stamp = stamps.get((row.student, row.chapter))
            if stamp is not None:
                sub.timestamp = stamp.astimezone(timezone.utc).replace(tzinfo=None)
            for gid, scored in row.exercises.items():
                grade = gb.find_grade(gid, row.chapter, row.chapter, row.student)
                grade.auto_score = scored.points
                grade.needs_manual_grade = False
            # As nbgrader autograde records it: beside the points, which stay as the checks gave them.
            gb.find_submission_notebook(row.chapter, row.chapter, row.student).late_submission_penalty = row.penalty
            gb.db.commit()


#: Files nbgrader's exchange puts beside a submission. As `nbgrader autograde` does, they are kept
#: beside the autograded notebook; generate_feedback copies them to feedback/, where
#: `nbgrader release_feedback` reads them to address each learner's feedback.
EXCHANGE_FILES = ("timestamp.txt", "submission_secret.txt")


def keep_exchange_files(course: Path, rows: list[Row]) -> None:
    """Copy each submission's exchange files beside its autograded notebook (not symlinks)."""
    for row in rows:
        autograded = course / "autograded" / row.student / row.chapter
        if not autograded.is_dir():
            continue
        for name in EXCHANGE_FILES:
            source = course / "submitted" / row.student / row.chapter / name
            if not source.is_file() or source.is_symlink():
                continue
            # An unreadable timestamp would stop a later `nbgrader generate_feedback` (without
            # --force) for the whole chapter; it is reported in the row and not copied.
            if name == "timestamp.txt" and read_timestamp(source)[0] is None:
                continue
            shutil.copyfile(source, autograded / name)


def keep_verdicts(course: Path, rows: list[Row]) -> list[Row]:
    """Each scored row's verdicts (points and words per test cell) in its autograded notebook's
    metadata: nbgrader's gradebook keeps the points but no text, and `grader report` reads them
    there later. A notebook that cannot be rewritten keeps what it had, and its row (in the rows
    returned) says so."""
    import nbformat

    from grader.autograde.class_report import VERDICTS_KEY, verdicts_metadata

    out = []
    for row in rows:
        path = course / "autograded" / row.student / row.chapter / f"{row.chapter}.ipynb"
        if row.score is not None and path.is_file():
            tmp = path.with_name(path.name + ".tmp")
            try:
                nb = nbformat.read(path, as_version=4)
                nb.metadata[VERDICTS_KEY] = verdicts_metadata(row)
                nbformat.write(nb, tmp)
                os.replace(tmp, path)
            except Exception as err:  # the gradebook and grades.csv hold the points all the same
                tmp.unlink(missing_ok=True)
                row = row.with_notes(f"its verdicts could not be kept for `grader report` ({type(err).__name__})")
        out.append(row)
    return out
