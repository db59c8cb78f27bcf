"""The run stage: each job's files are its own, whatever the student id; a job whose process died
still has a reason that says why.

Stand-ins for the worker pool answer each job from its job file, so no kernel starts here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

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


class DeadWorkers:
    """Answers every job as a grading process that died with `status`, leaving no result and only
    `last_words` at the end of its log."""

    def __init__(self, last_words: str, status: int):
        self.last_words, self.status = last_words, status

    def run(self, paths: dict[str, str], deadline: float) -> int:
        Path(paths["log"]).write_text(f"Traceback (most recent call last):\n  ...\n{self.last_words}\n")
        return self.status


def _dead_job(tmp_path: Path, last_words: str, status: int):
    job = Job("kim", CHAPTER, tmp_path / "submitted" / "kim" / CHAPTER / f"{CHAPTER}.ipynb")
    folder = run.job_folder(tmp_path / "tmp", 0, reference=False)
    return run.run_job(tmp_path / "course", job, folder, sandbox.Limits(), False, [CHAPTER],
                       DeadWorkers(last_words, status), tmp_path / "warm")


@pytest.mark.parametrize("last_words, how", [
    ("Resource temporarily unavailable (src/thread.cpp:241)", "no memory to start a thread"),  # ZeroMQ's abort
    ("MemoryError", "MemoryError"),
    ("terminate called after throwing an instance of 'std::bad_alloc'", "std::bad_alloc"),
])
def test_a_grading_process_that_died_out_of_memory_says_so(tmp_path, monkeypatch, last_words, how):
    """When a job's grading process dies of its memory cap before it can write a result (native code that
    aborts, or a MemoryError while the result is written), does the job's reason say, in one line, that
    the grading process ran out of memory, under which cap, and what to do?"""
    monkeypatch.setenv("JBJ_JOB_MEMORY_BYTES", str(300 << 20))
    result = _dead_job(tmp_path, last_words, -6)
    assert result.status == "failed", result
    assert result.reason.startswith(f"the grading process ran out of memory ({how}; its address space is capped "
                                    "at 300 MiB)"), result.reason
    assert "JBJ_JOB_MEMORY_BYTES" in result.reason and "\n" not in result.reason, result.reason


def test_a_grading_process_that_died_otherwise_gives_its_last_words(tmp_path):
    """When a job's grading process dies for another reason, is it not called out of memory: does the reason
    give its exit status and the last line of its log?"""
    result = _dead_job(tmp_path, "Fatal Python error: Segmentation fault", -11)
    assert result.reason == "the grading process stopped with status -11: Fatal Python error: Segmentation fault"


def test_a_grading_process_that_died_keeps_its_last_words_for_the_report(tmp_path):
    """Does a job whose grading process died without a result keep the end of its log as its trace, which the
    report shows in full (the row's reason gives only the last line)?"""
    result = _dead_job(tmp_path, "Fatal Python error: Segmentation fault", -11)
    assert result.trace.startswith("Traceback (most recent call last):") and result.trace.endswith("Segmentation fault")


def test_the_reference_cache_key_covers_every_module_a_grading_kernel_runs(tmp_path):
    """Is every module of the package that a grading kernel imports (the chapters' `import grader` and its
    lazily loaded helpers), and every module of the grader's side of a run, kernel.py included, in the
    files the cached reference records are keyed on; and does a change to kernel.py or to the chapters'
    C++ make a new key?"""
    import subprocess
    import sys

    code = ("import json, sys, grader\ngrader.timing, grader.figures\n"
            "print(json.dumps(sorted(m.__file__ for n, m in list(sys.modules.items()) "
            "if n.startswith('grader') and getattr(m, '__file__', None))))")
    loaded = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                       env={"JBJ_RECORD": "1", "PATH": "/usr/bin:/bin"}, cwd=tmp_path).stdout)
    covered = {str(path.resolve()) for path in run.recording_files()}
    grading_side = [ROOT / "grader" / "autograde" / f"{name}.py" for name in ("prepare", "sandbox", "launch",
                                                                              "kernel", "worker")]
    missing = sorted(({str(Path(f).resolve()) for f in loaded} | {str(p) for p in grading_side}) - covered)
    assert not missing, missing

    course = tmp_path / "course"
    shutil.copytree(ROOT / "solutions" / CHAPTER, course / "solutions" / CHAPTER)
    checkout = tmp_path / "checkout"
    for name in ("grader", "cpp"):
        shutil.copytree(ROOT / name, checkout / name, ignore=shutil.ignore_patterns("__pycache__"))
    before = run.reference_key(course, CHAPTER, root=checkout)
    assert before == run.reference_key(course, CHAPTER, root=ROOT)
    kernel = checkout / "grader" / "autograde" / "kernel.py"
    kernel.write_text(kernel.read_text() + "\n# a change\n")
    after_kernel = run.reference_key(course, CHAPTER, root=checkout)
    header = next((checkout / "cpp").rglob("*.h"))
    header.write_text(header.read_text() + "\n")
    assert len({before, after_kernel, run.reference_key(course, CHAPTER, root=checkout)}) == 3


class StrangeWorkers:
    """Answers every job with a result that holds a key the grader does not know (other grading code)."""

    def run(self, paths: dict[str, str], deadline: float) -> int:
        Path(paths["result"]).write_text(json.dumps({"status": "graded", "records": {}, "score": 8}))
        return 0


def test_a_result_with_a_key_the_grader_does_not_know_fails_saying_which(tmp_path):
    """When a grading process returns a key the grader does not know, is that job a failed run whose reason
    names the key, rather than a graded one with the key dropped?"""
    job = Job("kim", CHAPTER, tmp_path / "submitted" / "kim" / CHAPTER / f"{CHAPTER}.ipynb")
    folder = run.job_folder(tmp_path / "tmp", 0, reference=False)
    result = run.run_job(tmp_path / "course", job, folder, sandbox.Limits(), False, [CHAPTER], StrangeWorkers(),
                         tmp_path / "warm")
    assert result.status == "failed" and "keys the grader does not know: score" in result.reason, result


def test_every_caller_grades_a_notebook_through_grade_job(tmp_path, monkeypatch):
    """Do the local pool, a Dask worker's task and `grader check` all grade through the one function
    `run.grade_job` (here a stand-in that records what it was given and passes every test cell)?"""
    from grader.autograde import cluster
    from grader.autograde.jobs import KernelRun
    from grader.check import score
    from grader.course import grade_cells, read_notebook, solution_path

    gids = [c.metadata.nbgrader.grade_id for c in grade_cells(read_notebook(solution_path(CHAPTER, ROOT)))]
    graded = []

    def grade_job(spec, folder, processes):
        graded.append((spec.student, spec.chapter, type(processes).__name__))
        ok = {"label": "x", "checks": [], "end": "ok"}
        return KernelRun(records={gid: {"record": ok, "why": ""} for gid in gids})

    monkeypatch.setattr(run, "grade_job", grade_job)
    monkeypatch.setattr(cluster, "_processes", lambda: run.Workers(0, tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("JBJ_REFERENCE_CACHE", raising=False)  # grader check's reference cache under it
    course = tmp_path / "course"
    shutil.copytree(ROOT / "solutions" / CHAPTER, course / "solutions" / CHAPTER)
    job = Job("kim", CHAPTER, course / "solutions" / CHAPTER / f"{CHAPTER}.ipynb")
    runs, _, errors = run.run_all(course, [job], [CHAPTER], tmp_path / "tmp", run.Workers(0, tmp_path), 1,
                                  sandbox.Limits(), False, course / ".grader")
    assert not errors and runs[job.key].records, runs
    payload = {"fingerprint": cluster.fingerprint(), "sandbox": "off", "student": "lee", "chapter": CHAPTER,
               "notebook": f"{CHAPTER}.ipynb", "files": {f"{CHAPTER}.ipynb": job.notebook.read_bytes()},
               "known": [CHAPTER], "key": "k", "limits": {}, "publish": False}
    out = cluster.grade_task(payload, {CHAPTER: job.notebook.read_bytes()}, None)
    assert not out["refused"] and out["run"]["status"] == "graded", out
    results = score(ROOT / "notebooks" / CHAPTER / f"{CHAPTER}.ipynb")
    assert all(r.points == r.max_points for r in results), results
    assert graded == [("(reference)", CHAPTER, "Workers"), ("kim", CHAPTER, "Workers"), ("lee", CHAPTER, "Workers"),
                      ("(reference)", CHAPTER, "Workers"), ("learner", CHAPTER, "Workers")], graded


def test_a_killed_pools_scratch_folders_are_swept_by_the_next_pool(tmp_path):
    """A pool whose process was killed (a Dask worker, say) could not remove its jobs' scratch folders,
    which hold copies of submissions. Does the next pool started beside them remove them, also where a
    kernel took away a folder's permissions, while keeping a live process's folders and anything else?"""
    gone = subprocess.Popen(["true"])
    gone.wait()  # a pid that no longer runs
    left = tmp_path / f"{run.SCRATCH_PREFIX}{gone.pid}-x1"
    (left / "w" / "locked").mkdir(parents=True)
    (left / "w" / "locked" / "answer.ipynb").write_text("{}")
    os.chmod(left / "w" / "locked", 0)
    live = tmp_path / f"{run.SCRATCH_PREFIX}{os.getpid()}-x2"
    live.mkdir()
    other = tmp_path / "jbj-something-else"
    other.mkdir()
    workers = run.Workers(0, tmp_path, scratch_root=tmp_path)
    workers.close()
    assert not left.exists(), "a killed pool's scratch folder was left"
    assert live.is_dir() and other.is_dir()


def test_a_reference_whose_records_were_cut_says_so(tmp_path):
    """A reference run whose records passed the output allowance: does the error name the cut cell and
    what to do, not only "did not pass" (a dropped record reads like a cell that never reported)?"""
    from grader.autograde.jobs import KernelRun

    result = KernelRun(records={"ex1_test": {"record": None, "why": "the cell did not get as far as reporting a result"},
                                "ex2_test": {"record": {"end": "ok"}}}, truncated=(57,))
    errors: dict = {}
    run.accept_reference("12_fast_kernels", tmp_path / "reference.json", result, {}, errors)
    message = str(errors["12_fast_kernels"])
    assert "cells ex1_test did not pass" in message
    assert "the output of cell 57 was cut at the size limit" in message and "c.GradingLimits.output_bytes" in message
    assert not (tmp_path / "reference.json").exists()
    clean: dict = {}
    run.accept_reference("12_fast_kernels", tmp_path / "reference.json", KernelRun(records={"ex1_test": {"record": {"end": "ok"}}}),
                         {}, clean)
    assert clean == {}
