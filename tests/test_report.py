"""The report stage: grades.csv and the report before feedback, and a report that states what was applied."""

from __future__ import annotations

import csv

import pytest

from grader.autograde import report, sandbox
from grader.autograde.jobs import Row

LIMITS = sandbox.Limits()


def _rows(applied):
    return [Row("kim", "00_start_here", "graded", 8.0, 8.0, exercises={"ex1_test": (8.0, 8.0, "")}, applied=applied),
            Row("lee", "00_start_here", "failed: broken JSON", None, 8.0)]


def test_csv_and_report_are_written_even_when_feedback_crashes(tmp_path, monkeypatch):
    """When writing HTML feedback raises, are grades.csv and the report still written, complete, and
    does the run say that feedback failed?"""
    def broken(course, rows):
        raise OSError("disk full")

    monkeypatch.setattr(report, "write_feedback", broken)
    probe = sandbox.Probe(True, "", "v1")
    csv_path, report_path, problems = report.write_all(tmp_path, _rows({}), probe=probe, limits=LIMITS, workers=2,
                                                       seconds=1.0, feedback=True)
    with open(csv_path, newline="") as f:
        assert [r["student"] for r in csv.DictReader(f)] == ["kim", "lee"]
    text = report_path.read_text()
    assert "| kim |" in text and "| lee |" in text
    assert len(problems) == 1 and "HTML feedback could not be written (OSError: disk full)" in problems[0]
    assert "HTML feedback could not be written" in text


def test_the_report_states_the_limits_really_applied_not_the_ones_intended(tmp_path):
    """When cgroups exist on the machine but no kernel joined one, does the report say no cgroup limit
    was applied (and which), instead of "on"?"""
    probe = sandbox.Probe(True, "", "v1")
    none = report.write_report(tmp_path / "a.md", _rows({"launched": True, "sandbox": True, "unprivileged": True,
                                                         "cgroup": []}), probe, LIMITS, 2, 1.0).read_text()
    assert "cgroup limits: **none applied**" in none and "processes, memory, cpu" in none
    some = report.write_report(tmp_path / "b.md", _rows({"launched": True, "sandbox": True, "unprivileged": True,
                                                         "cgroup": ["processes", "memory"]}),
                               probe, LIMITS, 2, 1.0).read_text()
    assert "at most 1024 processes and threads (1 of 1 kernels)" in some and "Not applied to every kernel: cpu" in some


def test_the_report_lists_flagged_cells_and_points_decided_in_the_kernel(tmp_path):
    """Does the report list answer cells flagged for review, and say per chapter how many points
    rest on in-kernel properties (`checks.true`): some in chapter 12, whose thread-pool checks read
    the learner's C++ text, none in chapters 01 and 08, whose checks record values?"""
    import shutil

    from conftest import ROOT

    (tmp_path / "solutions").mkdir()
    for chapter in ("01_numpy_interop", "08_autodiff_batching_rules", "12_fast_kernels"):
        shutil.copytree(ROOT / "solutions" / chapter, tmp_path / "solutions" / chapter)
    rows = [Row("kim", "01_numpy_interop", "graded", 10.0, 10.0, flagged=["cell 30 (from grader import checks) uses checks"]),
            Row("kim", "08_autodiff_batching_rules", "graded", 10.0, 10.0),
            Row("kim", "12_fast_kernels", "graded", 10.0, 10.0)]
    text = report.write_report(tmp_path / "r.md", rows, sandbox.Probe(True, ""), LIMITS, 1, 1.0,
                               course=tmp_path).read_text()
    assert "## Flagged for review" in text and "cell 30 (from grader import checks) uses checks" in text

    def resting(chapter):
        line = next(line for line in text.splitlines() if line.startswith(f"- {chapter}:"))
        points, total = line.split(": ")[1].split(" points")[0].split(" of ")
        return float(points), float(total), line

    points, total, line = resting("12_fast_kernels")
    assert 0 < points <= total and line.endswith(": ex2_test"), line
    for chapter in ("01_numpy_interop", "08_autodiff_batching_rules"):
        points, total, line = resting(chapter)
        assert points == 0 < total and line.endswith("(`checks.true`)"), line
