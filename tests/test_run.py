"""The run stage: each job's files are its own, whatever the student id.

A stand-in for the worker pool answers each job from its job file, so no kernel starts here.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import ROOT
from grader.autograde import run, sandbox
from grader.autograde.jobs import Job

CHAPTER = "00_start_here"


class EchoWorkers:
    """Answers every job at once with a passing record that names the notebook it was given."""

    def __init__(self):
        self.folders: list[Path] = []

    def run(self, paths: dict[str, str], deadline: float) -> int:
        job = json.loads(Path(paths["job"]).read_text())
        self.folders.append(Path(paths["job"]).parent)
        record = {"label": job["notebook"], "checks": [], "end": "ok"}
        Path(paths["result"]).write_text(json.dumps({"status": "graded", "records": {"ex1_test": {"record": record}}}))
        return 0


def test_a_student_named_like_the_reference_cannot_touch_its_files(tmp_path):
    """A student whose id is the reference run's old internal name (`__reference__`), or any other: do the
    reference's records still come from the solution, and the student's from the student's notebook,
    with no job folder shared?"""
    course = tmp_path / "course"
    shutil.copytree(ROOT / "solutions" / CHAPTER, course / "solutions" / CHAPTER)
    jobs = [Job(name, CHAPTER, course / "submitted" / name / CHAPTER / f"{CHAPTER}.ipynb")
            for name in ("__reference__", "(reference)", "references", "00000")]
    workers = EchoWorkers()
    runs, references, errors = run.run_all(course, jobs, [CHAPTER], tmp_path / "tmp", workers, 2,
                                           sandbox.Limits(), False, course / ".grader")
    assert not errors, errors
    assert references[CHAPTER]["ex1_test"]["label"] == str(course / "solutions" / CHAPTER / f"{CHAPTER}.ipynb")
    for job in jobs:
        assert runs[job.key].records["ex1_test"]["record"]["label"] == str(job.notebook), job
    assert len(set(workers.folders)) == len(jobs) + 1
