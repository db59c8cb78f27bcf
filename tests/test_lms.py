"""Grades for an LMS (`grader export --lms`): the CSV columns Canvas's and Moodle's imports read, learners matched by id."""

from __future__ import annotations

import csv
from datetime import datetime, timezone

import pytest

from grader.autograde import grades, lms
from grader.autograde.jobs import Row
from grader.cli import main
from grader.errors import CourseError

CHAPTER = "01_numpy_interop"


def _class(tmp_path):
    """Four learners of one chapter in grades.csv: from a Canvas download (late, with a penalty), from a Moodle
    download, from the exchange (a login, no LMS number), and one whose submission could not be graded."""
    grades.update(tmp_path, [
        Row("smithjane-12345", CHAPTER, "graded", 7.5, 10.0, penalty=1.0, late_seconds=3600.0),
        Row("jane-smith-1001", CHAPTER, "graded", 10.0, 10.0),
        Row("kim", CHAPTER, "incomplete: the kernel died in cell 40", 4.0, 10.0),
        Row("brokenbob-777", CHAPTER, "failed: broken JSON", None, 10.0)])
    return tmp_path


def _read(path):
    return list(csv.reader(path.open(newline="", encoding="utf-8")))


def test_canvas_reads_its_own_columns_and_finds_each_learner_by_id(tmp_path, capsys):
    """Is the Canvas file what Canvas's gradebook import reads: `Student, ID, SIS User ID, SIS Login ID,
    Section`, the chapter's column (renamed on request to a Canvas assignment's `Name (id)`), a `Points
    Possible` row, each learner's Canvas user id in `ID` (an exchange login in `SIS Login ID`), the points
    less the late penalty, and the learner without a score left out and named?"""
    course = _class(tmp_path)
    assert main(["export", "--lms", "canvas", "--course", str(course), "--column", f"{CHAPTER}=Lab 1 (5678)"]) == 0
    table = _read(course / f"canvas-{CHAPTER}.csv")
    # As Canvas's importer checks a header: Student, ID, then the SIS ids, and Section last of the learner's.
    assert table[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Lab 1 (5678)"]
    assert table[1] == ["Points Possible", "", "", "", "", "10"]
    assert sorted(table[2:]) == [["jane-smith", "1001", "", "", "", "10"], ["kim", "", "", "kim", "", "4"],
                                 ["smithjane", "12345", "", "", "", "6.5"]]
    said = capsys.readouterr()
    assert f"wrote {course / f'canvas-{CHAPTER}.csv'}" in said.out
    assert f"not in the file: brokenbob-777 ({CHAPTER}): no score (failed: broken JSON)" in said.err


def test_moodle_reads_its_grading_worksheet_and_finds_each_learner_by_participant_id(tmp_path):
    """Is the Moodle file an assignment's grading worksheet as its upload reads it: `Identifier` as
    `Participant <id>` (the number in a Moodle download's folder names), `Grade`, `Maximum Grade` and a
    `Last modified (grade)` time, with a learner who has no participant id (an exchange login) or no score
    left out and named?"""
    course = _class(tmp_path)
    when = datetime(2026, 12, 6, 9, 30, tzinfo=timezone.utc)
    done = lms.export(course, "moodle", now=when)
    assert done.files == [course / f"moodle-{CHAPTER}.csv"]
    table = _read(done.files[0])
    assert table[0] == ["Identifier", "Full name", "Grade", "Maximum Grade", "Last modified (grade)"]
    assert sorted(table[1:]) == [["Participant 1001", "jane-smith", "10", "10", "2026-12-06T09:30:00+00:00"],
                                 ["Participant 12345", "smithjane", "6.5", "10", "2026-12-06T09:30:00+00:00"]]
    assert sorted(done.left_out) == [f"brokenbob-777 ({CHAPTER}): no score (failed: broken JSON)",
                                     f"kim ({CHAPTER}): no Moodle participant id in the student id"]


def test_an_export_without_grades_or_for_an_unknown_chapter_says_why(tmp_path):
    """Does an export with nothing graded, or for a chapter without grades, stop with one line that says why?"""
    with pytest.raises(CourseError, match="no grades yet"):
        lms.export(tmp_path, "canvas")
    _class(tmp_path)
    with pytest.raises(CourseError, match="no grades for 05_primitives; chapters with grades: 01_numpy_interop"):
        lms.export(tmp_path, "canvas", chapters=["05_primitives"])
    assert not list(tmp_path.glob("canvas-*"))


@pytest.mark.parametrize("value, text", [(6.5, "6.5"), (10.0, "10"), (0.0, "0"), (1 / 3, "0.3333"), (1e-7, "0")])
def test_points_are_plain_decimals(value, text):
    """Are points written as an LMS reads them: decimals, no exponent, no trailing zeros?"""
    assert lms.points(value) == text
