"""The data between the stages (`grader.autograde.jobs`): frozen, typed, and strict about what it reads."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from grader.autograde.jobs import Job, JobSpec, KernelRun, Outcome, Row, Scored, Status
from grader.autograde.sandbox import Limits


def test_a_status_is_an_outcome_with_its_reason_that_reads_as_the_csvs_words():
    """Does a row's status carry its outcome (an enum) and its reason, read as grades.csv's words, and stay
    what it was made?"""
    status = Status.incomplete("the kernel died in cell 7")
    assert (status.outcome, status.reason) == (Outcome.INCOMPLETE, "the kernel died in cell 7")
    assert status == "incomplete: the kernel died in cell 7" and Status.graded() == "graded"
    assert (Status.graded().outcome, Status.graded().reason) == (Outcome.GRADED, "")
    row = Row("kim", "00_start_here", "failed: broken JSON", None, 8.0)
    assert (row.status.outcome, row.status.reason) == (Outcome.FAILED, "broken JSON")
    with pytest.raises(AttributeError):
        status.reason = "other"
    with pytest.raises(ValueError):
        Status.from_text("done")


def test_the_stage_data_is_frozen():
    """Can a job, a job spec, a kernel run and a row only be replaced, never changed in place, with their
    sequences as tuples and each exercise's points, most points and verdict by name?"""
    job = Job("kim", "00_start_here", Path("a.ipynb"), notes=["one"])
    spec = JobSpec("kim", "00_start_here", Path("a.ipynb"), Path("s.ipynb"), Path("e.ipynb"))
    run = KernelRun(notes=["x"], timed_out=[3])
    row = Row("kim", "00_start_here", Status.graded(), 2.0, 2.0, exercises={"ex1_test": (2.0, 2.0, "")}, notes=["n"])
    for value, name in ((job, "notes"), (spec, "limits"), (run, "reason"), (row, "score")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, name, None)
    assert job.notes == ("one",) and run.notes == ("x",) and run.timed_out == (3,) and row.notes == ("n",)
    assert row.exercises["ex1_test"] == Scored(points=2.0, max_points=2.0, message="")
    assert row.with_notes("m").notes == ("n", "m") and run.with_notes("y", first=True).notes == ("y", "x")


def test_a_job_spec_and_a_kernel_run_survive_json_and_refuse_keys_they_do_not_know():
    """Does a job spec and a kernel run come back from their JSON as they were, while data with a key either does
    not know, or a status other than graded or failed, is refused with a ValueError that names the problem?"""
    spec = JobSpec("kim", "00_start_here", Path("/w/a.ipynb"), Path("/s.ipynb"), Path("/e.ipynb"),
                   Limits(cell_seconds=30), True, other_sources={"01_numpy_interop": Path("/o.ipynb")},
                   seed_caches={".jax-cache": Path("/c")})
    assert JobSpec.from_dict(json.loads(json.dumps(spec.to_dict()))) == spec
    run = KernelRun(reason="stopped", notes=("n",), records={"ex1_test": {"record": None, "why": "w"}}, stopped_at=4)
    assert KernelRun.from_dict(json.loads(json.dumps(run.to_dict()))) == run
    with pytest.raises(ValueError, match="keys the grader does not know: colour, student"):
        KernelRun.from_dict({**run.to_dict(), "student": "kim", "colour": "red"})
    with pytest.raises(ValueError, match="keys the grader does not know: memory_mb"):
        JobSpec.from_dict({**spec.to_dict(), "limits": {"memory_mb": 1}})
    with pytest.raises(ValueError):
        KernelRun.from_dict({"status": "incomplete"})
