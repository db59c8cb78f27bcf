"""grader autograde on a Dask cluster: part of the synthetic class (tests/synthetic_class.py), one
submission of each way a job can end, graded by a scheduler and two workers on loopback.

The Dask side only submits jobs and gathers their results; grading one notebook is the same function
locally and on a worker (tests/test_cluster.py shows both reach it). So this class holds what could
differ on a cluster: kernels that finish, time out past an ignored interrupt, run out of memory,
crash or exit; the sandbox on the worker's machine; failures found before any kernel starts; and the
LMS download. Each row must be what the whole class's local run expects of it (tests/test_autograde.py).
"""

from __future__ import annotations

import re

import pytest

import synthetic_class
from conftest import ROOT
from dask_cluster import local_cluster
from grader.autograde import sandbox

STUDENTS = ["correct", "blank", "partial", "sigint-proof-loop", "memory-bomb", "snoop", "segfault", "os-exit",
            "malformed-json", "misnamed", "smithjane-12345", "leekim-34567", "ann-lee-4004"]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def on_dask(tmp_path_factory):
    folder = tmp_path_factory.mktemp("class-on-dask")
    with local_cluster(folder / "cluster", workers=2) as dask:
        graded = synthetic_class.grade(folder / "course", ROOT, "--scheduler", dask.address, students=STUDENTS)
    graded["address"] = dask.address
    return graded


def test_the_cluster_grades_every_submission_with_progress_and_says_who_graded(on_dask):
    """Does the run exit 0 with a row for each submission, the cluster's progress shown to the end,
    and the scheduler, its workers and the sandbox named in the report?"""
    proc = on_dask["proc"]
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert sorted(on_dask["rows"]) == sorted(on_dask["expected"]) == sorted(STUDENTS)
    steps = re.findall(r"^\[#+\] (\d+)/(\d+) ", proc.stderr, re.M)
    assert steps and steps[-1][0] == steps[-1][1], proc.stderr[-2000:]
    report = (on_dask["course"] / "autograde-report.md").read_text()
    assert f"Graded on the Dask cluster at {on_dask['address']}, by 2 worker(s):" in report, report[:2000]
    assert "Sandbox: **on**" in report and "Graded again" not in report
    forked = re.search(r"Kernel start: (\d+) of (\d+) kernels were forked", report)  # by each worker's zygote
    assert forked and forked[1] == forked[2], report[:3000]


@pytest.mark.parametrize("student", STUDENTS)
def test_each_row_is_what_the_local_run_expects(on_dask, student):
    """Graded on the cluster, does the submission get exactly its expected score, status and reason?"""
    problem = synthetic_class.outcome_problem(on_dask, student)
    assert problem is None, problem


def test_student_code_on_a_worker_cannot_see_solutions_the_gradebook_or_the_network(on_dask):
    """On a Dask worker too, do the snooping reads fail and the network stay out of reach?"""
    if not sandbox.probe().sandboxed:
        pytest.fail(f"no sandbox on this machine: {sandbox.probe().reason}")
    line = synthetic_class.snoop_line(on_dask)
    assert "READ" not in line and "REACHED" not in line, line
    assert line.count("FileNotFoundError") + line.count("PermissionError") == 5, line
