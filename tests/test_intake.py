"""Importing an LMS download: files named by student become nbgrader's submitted/ layout, nothing
overwritten, nothing lost, no two students merged."""

from __future__ import annotations

import struct
import time
import zipfile
from datetime import datetime, timezone

import pytest

from grader.autograde.intake import import_download, import_submissions, student_id

CH = "01_numpy_interop"


@pytest.fixture
def course(tmp_path):
    course = tmp_path / "course"
    for chapter in (CH, "00_start_here"):
        (course / "solutions" / chapter).mkdir(parents=True)
        (course / "solutions" / chapter / f"{chapter}.ipynb").write_text("{}")
    return course


def _read(course, student, chapter=CH):
    return (course / "submitted" / student / chapter / f"{chapter}.ipynb").read_text()


def test_student_ids_from_lms_names():
    """Are LMS names turned into plain, stable student ids?"""
    assert student_id("Jane Smith") == "jane-smith"
    assert student_id("smithjane") == "smithjane"
    assert student_id("***") == "unknown"


def test_canvas_moodle_and_plain_layouts_are_imported(course, tmp_path):
    """Do Canvas file names, Moodle folders and student folders each land in submitted/<student>/<chapter>/,
    with the LMS's user id in the student id?"""
    download = tmp_path / "download.zip"
    with zipfile.ZipFile(download, "w") as z:
        z.writestr(f"smithjane_late_12345_67890_{CH}.ipynb", "A")
        z.writestr(f"Jo Bloggs_555_assignsubmission_file_/{CH}.ipynb", "B")
        z.writestr(f"kim/{CH}.ipynb", "C")
        z.writestr("notes.ipynb", "D")
        z.writestr(f"../escape_{CH}.ipynb", "E")
    lines = import_submissions(download, course)
    sub = course / "submitted"
    assert _read(course, "smithjane-12345") == "A"
    assert _read(course, "jo-bloggs-555") == "B"
    assert _read(course, "kim") == "C"
    assert (sub / "kim" / CH / "timestamp.txt").read_text().endswith(" UTC")
    assert any(line.startswith("failed notes.ipynb") for line in lines)
    assert any(line.startswith(f"ignored ../escape_{CH}.ipynb") for line in lines)
    assert not (tmp_path / "escape").exists() and len(list(sub.iterdir())) == 3


def test_an_existing_different_submission_is_kept(course, tmp_path):
    """When submitted/ already holds a different notebook for that student, is it kept, and does the
    student's row say that the download's file was not imported?"""
    target = course / "submitted" / "kim" / "00_start_here" / "00_start_here.ipynb"
    target.parent.mkdir(parents=True)
    target.write_text("original")
    folder = tmp_path / "dl" / "kim"
    folder.mkdir(parents=True)
    (folder / "00_start_here.ipynb").write_text("newer")
    imported = import_download(tmp_path / "dl", course)
    assert target.read_text() == "original" and "already holds a different notebook" in imported.lines[0]
    assert "was kept and graded" in imported.notes[("kim", "00_start_here")][0]


def test_two_students_with_the_same_name_stay_two_students(course, tmp_path):
    """Do two Moodle folders of two Jane Smiths, and two Canvas files of two smithjanes, become four
    students, each with their own notebook (none skipped)?"""
    download = tmp_path / "download.zip"
    with zipfile.ZipFile(download, "w") as z:
        z.writestr(f"Jane Smith_1001_assignsubmission_file_/{CH}.ipynb", "moodle 1001")
        z.writestr(f"Jane Smith_2002_assignsubmission_file_/{CH}.ipynb", "moodle 2002")
        z.writestr(f"smithjane_111_900_{CH}.ipynb", "canvas 111")
        z.writestr(f"smithjane_222_901_{CH}.ipynb", "canvas 222")
    lines = import_submissions(download, course)
    assert [_read(course, s) for s in ("jane-smith-1001", "jane-smith-2002", "smithjane-111", "smithjane-222")] == [
        "moodle 1001", "moodle 2002", "canvas 111", "canvas 222"], lines
    assert not any(line.startswith(("skipped", "kept", "failed")) for line in lines), lines


def test_a_notebook_without_a_chapter_becomes_a_failed_row(course, tmp_path):
    """Does a notebook of the download that cannot be imported end as a job that fails with the reason
    (a row in grades.csv), not only as a line on stderr?"""
    download = tmp_path / "download.zip"
    with zipfile.ZipFile(download, "w") as z:
        z.writestr("Jane Smith_1001_assignsubmission_file_/homework.ipynb", "?")
    imported = import_download(download, course)
    [job] = imported.failed
    assert job.student == "jane-smith-1001" and "holds no chapter id" in job.problem, job


def test_a_canvas_resubmission_is_graded_and_the_earlier_one_kept(course, tmp_path):
    """Of a Canvas submission and its resubmission (`-1`), is the latest imported, the earlier kept in
    earlier/, and both named in the row's notes?"""
    download = tmp_path / "download.zip"
    with zipfile.ZipFile(download, "w") as z:
        z.writestr(zipfile.ZipInfo(f"smithjane_111_900_{CH}.ipynb", (2026, 1, 9, 9, 0, 0)), "first")
        z.writestr(zipfile.ZipInfo(f"smithjane_111_900_{CH}-1.ipynb", (2026, 1, 9, 10, 0, 0)), "second")
    imported = import_download(download, course)
    assert _read(course, "smithjane-111") == "second"
    folder = course / "submitted" / "smithjane-111" / CH
    assert (folder / "earlier" / f"smithjane_111_900_{CH}.ipynb").read_text() == "first"
    [note] = [n for n in imported.notes[("smithjane-111", CH)] if "earlier" in n]
    assert f"smithjane_111_900_{CH}.ipynb" in note and f"{CH}-1.ipynb" in note and "earlier/" in note


def _timestamp(course, student):
    text = (course / "submitted" / student / CH / "timestamp.txt").read_text()
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S.%f UTC").replace(tzinfo=timezone.utc)


def test_zip_times_are_read_in_their_time_zone(course, tmp_path, monkeypatch):
    """A zip entry's header time is the zipping machine's local time: is it read in a zone (the
    exact UTC time of the extended-timestamp field when present, else this machine's zone), not as UTC?"""
    monkeypatch.setenv("TZ", "Asia/Tokyo")  # UTC+9, no daylight saving
    time.tzset()
    try:
        exact = datetime(2026, 1, 9, 8, 30, tzinfo=timezone.utc)
        download = tmp_path / "download.zip"
        with zipfile.ZipFile(download, "w") as z:
            z.writestr(zipfile.ZipInfo(f"kim/{CH}.ipynb", (2026, 1, 9, 17, 0, 0)), "local")
            info = zipfile.ZipInfo(f"lee/{CH}.ipynb", (2026, 1, 9, 17, 30, 0))
            info.extra = struct.pack("<HHBi", 0x5455, 5, 1, int(exact.timestamp()))
            z.writestr(info, "exact")
        imported = import_download(download, course)
        assert _timestamp(course, "kim") == datetime(2026, 1, 9, 8, 0, tzinfo=timezone.utc)
        assert "UTC+0900" in imported.notes[("kim", CH)][0]
        assert _timestamp(course, "lee") == exact and ("lee", CH) not in imported.notes
    finally:
        monkeypatch.undo()
        time.tzset()
