"""Importing an LMS download: files named by student become nbgrader's submitted/ layout, nothing overwritten."""

from __future__ import annotations

import zipfile

from grader.intake import import_submissions, student_id


def test_student_ids_from_lms_names():
    """Are LMS names turned into plain, stable student ids?"""
    assert student_id("Jane Smith") == "jane-smith"
    assert student_id("smithjane") == "smithjane"
    assert student_id("***") == "unknown"


def test_canvas_moodle_and_plain_layouts_are_imported(tmp_path):
    """Do Canvas file names, Moodle folders and student folders each land in submitted/<student>/<chapter>/?"""
    course = tmp_path / "course"
    (course / "solutions" / "01_numpy_interop").mkdir(parents=True)
    (course / "solutions" / "01_numpy_interop" / "01_numpy_interop.ipynb").write_text("{}")
    download = tmp_path / "download.zip"
    with zipfile.ZipFile(download, "w") as z:
        z.writestr("smithjane_late_12345_67890_01_numpy_interop-1.ipynb", "A")
        z.writestr("Jo Bloggs_555_assignsubmission_file_/01_numpy_interop.ipynb", "B")
        z.writestr("kim/01_numpy_interop.ipynb", "C")
        z.writestr("notes.ipynb", "D")
        z.writestr("../escape_01_numpy_interop.ipynb", "E")
    lines = import_submissions(download, course)
    sub = course / "submitted"
    assert (sub / "smithjane" / "01_numpy_interop" / "01_numpy_interop.ipynb").read_text() == "A"
    assert (sub / "jo-bloggs" / "01_numpy_interop" / "01_numpy_interop.ipynb").read_text() == "B"
    assert (sub / "kim" / "01_numpy_interop" / "01_numpy_interop.ipynb").read_text() == "C"
    assert (sub / "kim" / "01_numpy_interop" / "timestamp.txt").read_text().endswith(" UTC")
    assert any(line.startswith("skipped notes.ipynb") for line in lines)
    assert not (tmp_path / "escape").exists() and len(list(sub.iterdir())) == 3


def test_an_existing_different_submission_is_kept(tmp_path):
    """When submitted/ already holds a different notebook for that student, is it kept and the import skipped?"""
    course = tmp_path / "course"
    (course / "solutions" / "00_start_here").mkdir(parents=True)
    (course / "solutions" / "00_start_here" / "00_start_here.ipynb").write_text("{}")
    target = course / "submitted" / "kim" / "00_start_here" / "00_start_here.ipynb"
    target.parent.mkdir(parents=True)
    target.write_text("original")
    folder = tmp_path / "dl" / "kim"
    folder.mkdir(parents=True)
    (folder / "00_start_here.ipynb").write_text("newer")
    lines = import_submissions(tmp_path / "dl", course)
    assert target.read_text() == "original" and "already holds a different notebook" in lines[0]
