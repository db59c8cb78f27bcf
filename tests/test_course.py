"""The course's layout (`grader.course`): chapter ids checked in one place, the same words everywhere."""

from __future__ import annotations

import shutil

import pytest

from conftest import ROOT
from grader.errors import CourseError


def test_every_command_refuses_an_unknown_chapter_with_the_same_words(tmp_path):
    """Do autograde, release, execute and report each refuse an unknown chapter id before doing anything,
    with one message that names it and the chapters there are?"""
    from grader.autograde import autograde
    from grader.autograde.class_report import report
    from grader.execute import execute_chapters
    from grader.release import release

    shutil.copytree(ROOT / "solutions" / "00_start_here", tmp_path / "solutions" / "00_start_here")
    expected = "unknown chapter '99_nothing'; the chapters are: 00_start_here"
    calls = {"autograde": lambda: autograde(tmp_path, ["99_nothing"], progress=False),
             "release": lambda: release(["99_nothing"], root=tmp_path),
             "execute": lambda: execute_chapters(["99_nothing"], root=tmp_path),
             "report": lambda: report(course=tmp_path, chapter="99_nothing")}
    for name, call in calls.items():
        with pytest.raises(CourseError) as caught:
            call()
        assert str(caught.value) == expected, name
    assert sorted(p.name for p in tmp_path.iterdir()) == ["solutions"]
    with pytest.raises(CourseError, match="^unknown chapters '98_a', '99_b'; the chapters are: 00_start_here$"):
        release(["99_b", "98_a"], root=tmp_path)
