"""grader autograde --scheduler: the run stage on a real Dask cluster (scheduler and workers on loopback).

Submissions of every kind graded on a cluster get the rows the local run expects of them: that is
tests/test_autograde_dask.py.
"""

from __future__ import annotations

import csv
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import pytest

from conftest import ROOT
from dask_cluster import local_cluster
from grader.autograde import cluster, run
from grader.errors import CourseError

CHAPTER = "00_start_here"


def _slow_solution(seconds: int) -> nbformat.NotebookNode:
    """Chapter 00's solution, whose first answer cell first sleeps: a job long enough to interrupt."""
    nb = nbformat.read(ROOT / "solutions" / CHAPTER / f"{CHAPTER}.ipynb", as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex1_answer")
    cell.source = f"import time\ntime.sleep({seconds})\n" + cell.source
    return nb


def _course(folder: Path, submissions: dict[str, nbformat.NotebookNode]) -> Path:
    folder.mkdir()
    shutil.copy(ROOT / "nbgrader_config.py", folder)
    shutil.copytree(ROOT / "solutions", folder / "solutions")
    for student, nb in submissions.items():
        target = folder / "submitted" / student / CHAPTER
        target.mkdir(parents=True)
        nbformat.write(nb, target / f"{CHAPTER}.ipynb")
        (target / "timestamp.txt").write_text("2026-01-09 08:00:00.000000 UTC")
    return folder


def _job_processes_of(pid: int) -> list[int]:
    """The grading processes (`python -m grader.autograde.worker JOB RESULT`) that `pid` started."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if not proc.name.isdigit():
                continue
            stat = (proc / "stat").read_text()
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            if parent == pid and b"grader.autograde.worker" in (proc / "cmdline").read_bytes():
                found.append(int(proc.name))
        except (OSError, ValueError, IndexError):
            continue
    return found


def _running(pid: int) -> bool:
    """Is `pid` a live process (not gone, not a zombie waiting to be reaped)?"""
    try:
        return (Path(f"/proc/{pid}") / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.slow
def test_a_worker_killed_mid_job_costs_nothing_and_the_row_says_so(tmp_path):
    """Is a job whose worker dies graded again on another worker, with a note, and does the dead
    worker's grading process die with it?"""
    from distributed import Client

    course = _course(tmp_path / "course", {"slow": _slow_solution(15)})
    with local_cluster(tmp_path / "cluster", workers=2) as dask:
        grading = subprocess.Popen([sys.executable, "-m", "grader", "autograde", "--course", str(course),
                                    "--scheduler", dask.address, "--no-feedback"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        with Client(dask.address, set_as_default=False) as client:
            # The submission's task starts once the reference is back; interrupt it a few seconds in.
            deadline = time.monotonic() + 600
            while time.monotonic() < deadline:
                busy = {w: keys for w, keys in client.processing().items() if any(str(k).startswith("grade-") for k in keys)}
                if busy:
                    break
                assert grading.poll() is None, grading.communicate()
                time.sleep(0.2)
            [victim] = busy
            time.sleep(4)
            worker_pid = client.run(os.getpid, workers=[victim])[victim]
            jobs = _job_processes_of(worker_pid)
            assert jobs, "the worker runs the job in a grading process of its own"
            # Its pool's logs are in the Dask worker's own folder, which Dask cleans up; the job's
            # scratch folder is the system's, named after the worker's pid (swept below).
            logs = client.run(lambda: str(cluster._processes().folder), workers=[victim])[victim]
            space = client.run(lambda dask_worker: dask_worker.local_directory, workers=[victim])[victim]
            assert Path(logs).parent == Path(space), (logs, space)
            scratch = sorted(Path(tempfile.gettempdir()).glob(f"{run.SCRATCH_PREFIX}{worker_pid}-*"))
            assert len(scratch) == 1, scratch
            os.killpg(os.getpgid(worker_pid), signal.SIGKILL)
            time.sleep(2)  # the job still had seconds to sleep: alive now only if it outlives its worker
            alive = [pid for pid in jobs if _running(pid)]
        out, err = grading.communicate(timeout=600)
        assert grading.returncode == 0, err[-3000:]
        assert not alive, "a killed worker's grading process must die with it"
    rows = {r["student"]: r for r in csv.DictReader((course / "grades.csv").open())}
    assert rows["slow"]["status"] == "graded" and float(rows["slow"]["score"]) == 8, rows["slow"]
    assert "was lost 1 time; it was graded again" in rows["slow"]["notes"], rows["slow"]["notes"]
    report = (course / "autograde-report.md").read_text()
    assert f"Graded on the Dask cluster at {dask.address}" in report
    assert "Graded again after the worker running them was lost: slow/00_start_here (1 time)" in report
    assert victim not in rows["slow"]["notes"], "graded again by another worker than the one lost"
    # The killed worker could not remove its job's scratch folder (a copy of the submission); the
    # next pool started on this machine does.
    run.Workers(0, tmp_path).close()
    assert not scratch[0].exists(), "the next pool did not sweep the killed worker's scratch folder"


def test_a_worker_with_other_grading_code_refuses_and_says_what_to_do(tmp_path):
    """A task from an instructor whose code differs from the worker's is not graded by it."""
    payload = {"fingerprint": "0" * 16, "student": "x", "chapter": CHAPTER}
    out = cluster.grade_task(payload, {}, None)
    assert out["refused"] and out["executed"] is None
    assert "different grading code" in out["run"]["reason"] and "make venv" in out["run"]["reason"]
    assert cluster.fingerprint() != "0" * 16


def test_no_scheduler_at_the_address_is_a_clear_error():
    with pytest.raises(CourseError, match="no Dask scheduler answers at tcp://127.0.0.1:9"):
        cluster.Cluster("tcp://127.0.0.1:9", timeout="3s")


def test_a_submitted_file_name_cannot_climb_out_of_its_folder(tmp_path):
    cluster.write_files(tmp_path / "job", {"a.ipynb": b"{}", "sub/b.txt": b"b", "../../escaped": b"x"})
    assert (tmp_path / "job" / "sub" / "b.txt").read_bytes() == b"b"
    assert not (tmp_path / "escaped").exists() and not (tmp_path.parent / "escaped").exists()


def test_the_files_sent_are_the_notebook_first_then_what_fits(tmp_path):
    (tmp_path / "nb.ipynb").write_bytes(b"n" * 100)
    (tmp_path / "big.bin").write_bytes(b"b" * 80)
    (tmp_path / "small.txt").write_bytes(b"s" * 10)
    (tmp_path / "link").symlink_to(tmp_path / "small.txt")
    files = cluster.submission_files(tmp_path / "nb.ipynb", budget=50)
    assert set(files) == {"nb.ipynb", "small.txt"}, "the notebook always; others while they fit; no symlinks"
