"""Grades for a learning-management system: one CSV per chapter that Canvas or Moodle imports as it is.

The points are the class's as grades.csv has them (`grades`: read again from the gradebook, hand-made
changes included, less any late penalty). A learner is matched by the LMS's number that the course keeps
at the end of each student id taken from an LMS download (`smithjane-12345`, see `intake`):

- **Canvas** (Grades > Import): the columns of Canvas's own gradebook export, `Student, ID, SIS User ID,
  SIS Login ID, Section`, then one column for the chapter, whose header is the chapter id unless given
  (Canvas's export writes `Assignment name (assignment id)`); a second row, `Points Possible`, gives
  the chapter's maximum. `ID` is the Canvas user id (the number in a submissions download's file names);
  a student id without one (an exchange login) goes in `SIS Login ID` instead. Canvas matches a
  learner by `ID`, then by the SIS ids, then by name.
- **Moodle** (the assignment's *View all submissions* > *Upload grading worksheet*): the worksheet's
  columns `Identifier, Full name, Grade, Maximum Grade, Last modified (grade)`. The number in a Moodle
  download's folder names is the learner's participant id in that assignment, which the worksheet
  writes as `Participant 1001`; Moodle requires `Identifier`, `Grade` and `Last modified (grade)`, and
  skips a grade changed in Moodle after that time unless told to ignore it.

A learner with no score in a chapter (a submission that could not be graded, one never graded) or, for
Moodle, without a participant id is left out of that chapter's file, so the import changes nothing for
them; `export` names them.
"""

from __future__ import annotations

import csv
import os
import re
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from grader.autograde import grades
from grader.autograde.jobs import Row
from grader.errors import CourseError

LMS = ("canvas", "moodle")
CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
MOODLE_COLUMNS = ["Identifier", "Full name", "Grade", "Maximum Grade", "Last modified (grade)"]
#: The LMS's number at the end of a student id, after the name: "smithjane-12345".
LMS_NUMBER = re.compile(r"^(?P<name>.+)-(?P<number>\d+)$")


@dataclass
class Exported:
    """What `export` wrote, and who is not in it and why (one line each)."""

    files: list[Path] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)


def split_id(student: str) -> tuple[str, str]:
    """A student id's name and LMS number ("smithjane-12345" -> ("smithjane", "12345")); no number: (id, "")."""
    match = LMS_NUMBER.match(student)
    return (match["name"], match["number"]) if match else (student, "")


def points(value: float) -> str:
    """A number of points as an LMS reads it: plain decimals, no exponent, no trailing zeros."""
    text = f"{round(float(value), 4):.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def class_rows(course: Path) -> list[Row]:
    """The class as grades.csv and the gradebook have it (without writing either)."""
    try:
        kept = grades.read(course / "grades.csv")
    except grades.Unreadable as why:
        raise CourseError(f"grades.csv cannot be read ({why}); run `grader report` to write it again") from None
    rows = grades.class_rows(course, kept, [])
    if not rows:
        raise CourseError(f"{course} has no grades yet: grade the class first (grader autograde)")
    return rows


def export(course: Path, lms: str, *, chapters: list[str] | None = None, out: Path | None = None,
           columns: dict[str, str] | None = None, now: datetime | None = None) -> Exported:
    """Write `<lms>-<chapter>.csv` for each chapter (default: every chapter with grades) into `out`
    (default: the course folder); `columns` renames a chapter's Canvas column (say, to "Lab 1 (5678)")."""
    if lms not in LMS:
        raise CourseError(f"unknown LMS {lms!r}; the course writes files for: {', '.join(LMS)}")
    course = Path(course).resolve()
    rows = class_rows(course)
    known = sorted({r.chapter for r in rows})
    unknown = sorted(set(chapters or []) - set(known))
    if unknown:
        raise CourseError(f"no grades for {', '.join(unknown)}; chapters with grades: {', '.join(known)}")
    out = Path(out) if out is not None else course
    out.mkdir(parents=True, exist_ok=True)
    stamp = (now or datetime.now(timezone.utc)).astimezone(timezone.utc).replace(microsecond=0).isoformat()
    done = Exported()
    for chapter in chapters or known:
        mine = [r for r in rows if r.chapter == chapter]
        scored = [r for r in mine if r.score is not None]
        for r in mine:
            if r.score is None:
                done.left_out.append(f"{r.student} ({chapter}): no score ({r.status})")
        most = max((r.max_score for r in mine), default=0.0)
        if lms == "canvas":
            header = (columns or {}).get(chapter, chapter)
            table = [CANVAS_COLUMNS + [header], ["Points Possible", "", "", "", "", points(most)]]
            for r in scored:
                name, number = split_id(r.student)
                table.append([name, number, "", "" if number else r.student, "", points(r.final_score)])
        else:
            table = [MOODLE_COLUMNS]
            for r in scored:
                name, number = split_id(r.student)
                if not number:
                    done.left_out.append(f"{r.student} ({chapter}): no Moodle participant id in the student id")
                    continue
                table.append([f"Participant {number}", name, points(r.final_score), points(r.max_score), stamp])
        done.files.append(_write(out / f"{lms}-{chapter}.csv", table))
    return done


def _write(path: Path, table: list[list[str]]) -> Path:
    """`table` as a CSV at `path`, replacing it in one step."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as f:
            csv.writer(f).writerows(table)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
