"""The course's grades.csv: one row per student and chapter, kept across runs, its points from the gradebook.

A run of `grader autograde` grades some submissions (a chapter, a student, a download); grades.csv holds
the whole class. Each time it is written, the run's rows replace those of the same student and chapter,
every other row is kept, and the points of every row are read again from nbgrader's gradebook, the
record: a score changed by hand in formgrader, or a submission graded by formgrader's own Autograde,
reaches grades.csv (and the report made from these rows) on the next write, which `grader report` also
makes. A submission that could not be graded keeps its `failed` row (the gradebook has no word for
it). The file is replaced in one step (written beside it, then renamed), under a lock that two runs at
once take in turn, so a reader never sees half of it and no run's rows are lost to another's.
"""

from __future__ import annotations

import csv
import fcntl
import os
import tempfile
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

from grader.autograde.jobs import Outcome, Row, Scored, Status

#: The columns of grades.csv. `penalty` came last, after the columns an import may already read by position.
COLUMNS = ["student", "chapter", "status", "score", "max_score", "timestamp", "late_seconds", "notes", "penalty"]

#: The notes this module writes, by their first words, so that each write says them afresh.
BY_HAND = "changed by hand in formgrader: "
EARLIER = "the gradebook keeps "
OUTSIDE = "graded outside `grader autograde` (formgrader's Autograde or nbgrader autograde)"
OURS = (BY_HAND, EARLIER, OUTSIDE)


@dataclass(frozen=True)
class Booked:
    """A submission as nbgrader's gradebook holds it: per test cell its points (by hand where the
    instructor changed them), the most it could get and whether a hand set it, the late penalty and
    the submission's time."""

    cells: dict[str, tuple[float, float, float | None, float | None]]  # gid -> (score, max, auto, manual)
    penalty: float | None
    timestamp: datetime | None

    @property
    def score(self) -> float:
        return sum(score for score, _, _, _ in self.cells.values())

    @property
    def max_score(self) -> float:
        return sum(most for _, most, _, _ in self.cells.values())

    def by_hand(self) -> list[str]:
        """The test cells whose points a hand set, as "ex1_test 0 → 2" (the checks' points, then the hand's)."""
        return [f"{gid} {'' if auto is None else f'{auto:g} → '}{manual:g}"
                for gid, (_, _, auto, manual) in self.cells.items() if manual is not None]


def from_gradebook(course: Path) -> dict[tuple[str, str], Booked]:
    """Every graded submission in the course's gradebook, by (student, chapter); {} without a gradebook.
    A submission none of whose cells has points yet (recorded, never graded) is left out."""
    from grader.autograde.gradebook import db_url

    if not (course / "gradebook.db").is_file():
        return {}
    from nbgrader.api import Gradebook

    found = {}
    with Gradebook(db_url(course)) as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nbgrader's session handling makes SQLAlchemy warn
        for assignment in gb.assignments:
            for submission in assignment.submissions:
                cells, penalty = {}, None
                for notebook in submission.notebooks:
                    if notebook.late_submission_penalty is not None:
                        penalty = (penalty or 0.0) + float(notebook.late_submission_penalty)
                    for grade in notebook.grades:
                        auto = None if grade.auto_score is None else float(grade.auto_score)
                        manual = None if grade.manual_score is None else float(grade.manual_score)
                        cells[grade.name] = (float(grade.score or 0.0), float(grade.max_score or 0.0), auto, manual)
                if not any(auto is not None or manual is not None for _, _, auto, manual in cells.values()):
                    continue
                stamp = submission.timestamp
                found[(submission.student.id, assignment.name)] = Booked(
                    cells, penalty, None if stamp is None else stamp.replace(tzinfo=timezone.utc))
    return found


class Unreadable(ValueError):
    """grades.csv is not one this module wrote (another tool's columns, or rows it cannot read)."""


def read(path: Path) -> list[Row]:
    """The rows of a grades.csv this module wrote ([] when there is none); Unreadable otherwise."""
    if not path.is_file():
        return []
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames != COLUMNS:
            raise Unreadable(f"its columns are {', '.join(reader.fieldnames or [])}, not grades.csv's")
        rows = []
        for number, line in enumerate(reader, start=2):
            try:
                penalty = float(line["penalty"]) if line["penalty"] else None
                final = float(line["score"]) if line["score"] else None
                rows.append(Row(line["student"], line["chapter"], Status.from_text(line["status"]),
                                None if final is None else final + (penalty or 0.0), float(line["max_score"]),
                                timestamp=line["timestamp"],
                                late_seconds=float(line["late_seconds"]) if line["late_seconds"] else None,
                                penalty=penalty, notes=tuple(n for n in line["notes"].split("; ") if n)))
            except (ValueError, TypeError, KeyError) as err:
                raise Unreadable(f"line {number} cannot be read ({type(err).__name__}: {err})") from None
    return rows


def write(path: Path, rows: list[Row]) -> Path:
    """`rows` as grades.csv, replacing `path` in one step."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(COLUMNS)
            for r in rows:
                w.writerow([r.student, r.chapter, str(r.status), "" if r.score is None else f"{r.final_score:g}",
                            f"{r.max_score:g}", r.timestamp, "" if r.late_seconds is None else f"{r.late_seconds:.0f}",
                            "; ".join(r.notes), "" if r.penalty is None else f"{r.penalty:g}"])
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


@contextmanager
def locked(course: Path) -> Iterator[None]:
    """Hold the course's grades lock (.grader/grades.lock): one writer of grades.csv at a time."""
    folder = course / ".grader"
    folder.mkdir(exist_ok=True)
    with open(folder / "grades.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def update(course: Path, rows: list[Row], problems: list[str] | None = None) -> list[Row]:
    """Merge a run's `rows` into the course's grades.csv, read every row's points from the gradebook,
    write the file and return the whole class's rows (sorted by chapter and student).

    A grades.csv this module cannot read (another tool wrote it) is not merged from but kept beside,
    renamed, and a line in `problems` says so."""
    path = course / "grades.csv"
    with locked(course):
        try:
            kept = read(path)
        except Unreadable as why:
            aside = path.with_name(f"grades-unrecognised-{datetime.now():%Y%m%d-%H%M%S}.csv")
            os.replace(path, aside)
            kept = []
            if problems is not None:
                problems.append(f"grades.csv was not one `grader autograde` writes ({why}); it is kept as {aside.name} "
                                "and a new grades.csv was written from this run's rows and the gradebook")
        try:
            booked = from_gradebook(course)
        except Exception as err:  # the rows still stand, with the points they had
            booked = {}
            if problems is not None:
                problems.append(f"the gradebook could not be read ({type(err).__name__}: {err}), so grades.csv has "
                                "the points of the rows as they were, not the gradebook's")
        everyone = class_rows(course, kept, rows, booked)
        write(path, everyone)
    return everyone


def class_rows(course: Path, kept: list[Row], rows: list[Row], booked: dict | None = None) -> list[Row]:
    """The whole class: the rows `kept` (from grades.csv), those of this run in their place, and a row
    for each submission only the gradebook knows; each row's points as the gradebook (`booked`, default:
    read from the course's) has them."""
    by_key = {(r.student, r.chapter): r for r in kept}
    ran = {(r.student, r.chapter) for r in rows}
    by_key.update({(r.student, r.chapter): r for r in rows})
    booked = from_gradebook(course) if booked is None else booked
    for key, entry in booked.items():
        if key not in by_key:
            stamp = "" if entry.timestamp is None else entry.timestamp.isoformat()
            by_key[key] = Row(key[0], key[1], Status.graded(), entry.score, entry.max_score, timestamp=stamp,
                              notes=(OUTSIDE,))
    out = []
    for key, row in by_key.items():
        out.append(refreshed(course, row, booked.get(key), from_this_run=key in ran))
    return sorted(out, key=lambda r: (r.chapter, r.student))


def refreshed(course: Path, row: Row, entry: Booked | None, *, from_this_run: bool) -> Row:
    """`row` with the gradebook's points (`entry`), per test cell and in all, and notes that say where
    a hand changed them; a row without a score keeps none, with a note when the gradebook still holds
    points from an earlier grading."""
    notes = tuple(n for n in row.notes if not n.startswith(OURS))
    if row.status.outcome is Outcome.GRADED and OUTSIDE in row.notes and not from_this_run:
        notes = (*notes, OUTSIDE)
    if entry is None:
        return replace(row, notes=notes)
    if row.score is None:
        return replace(row, notes=(*notes, f"{EARLIER}{entry.score:g} of {entry.max_score:g} points from an earlier "
                                           "grading of this chapter"))
    words = dict(row.exercises) if from_this_run else _kept_words(course, row)
    exercises = {}
    for gid, (score, most, _, _) in entry.cells.items():
        said = words.get(gid)
        message, check = (said[2], said[3]) if isinstance(said, Scored) else said or ("", "")
        exercises[gid] = Scored(score, most, message, check)
    hand = entry.by_hand()
    penalty = row.penalty if (row.penalty or 0.0) == (entry.penalty or 0.0) else entry.penalty
    return replace(row, score=entry.score, max_score=entry.max_score or row.max_score, penalty=penalty,
                   exercises=exercises, notes=(*notes, *([BY_HAND + ", ".join(hand)] if hand else [])))


def _kept_words(course: Path, row: Row) -> dict[str, tuple[str, str]]:
    """The verdicts (words and check) kept in a row's autograded notebook, for a row not graded in this run."""
    from grader.autograde.class_report import kept

    return kept(course / "autograded" / row.student / row.chapter / f"{row.chapter}.ipynb")
