"""The process that grades one submission (`grader.autograde.worker`): bounds that refuse a notebook
or stop its process end as a failed row of that submission alone, and the next job still grades.

A course of one tiny chapter, whose notebook needs no JAX (its kernel starts in about a second), is
graded through the real worker pool (`run.Workers`) with a single worker: every job after a refused
one runs on that same worker.
"""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from grader.autograde import gradebook, judge, run, sandbox, worker
from grader.autograde.jobs import Job, Row

CHAPTER = "99_tiny"
ANSWER = "def double(x):\n    return 2 * x\n"
LIMITS = sandbox.Limits(cell_seconds=30, notebook_seconds=60, cpu_cores=0.5)
#: The cap of a grading process in the capped batch: the tiny chapter grades in well under half of
#: it (about 220 MiB of address space on Linux), and the hungry notebook needs more than twice it.
SMALL_CAP = 512 << 20


def _notebook(answer: str) -> nbformat.NotebookNode:
    """The tiny chapter: one answer cell and the test cell that checks it, as nbgrader marks them."""
    v4 = nbformat.v4
    marks = {"locked": False, "schema_version": 3, "task": False}
    cells = [v4.new_code_cell("from grader import checks"),
             v4.new_code_cell(answer, metadata={"nbgrader": {**marks, "grade": False, "solution": True,
                                                             "grade_id": "ex1_answer"}}),
             v4.new_code_cell('"""Exercise 1: double."""\nwith checks.exercise(1, "double"):\n'
                              '    checks.equal(double(2), 4, what="double(2)")',
                              metadata={"nbgrader": {**marks, "grade": True, "solution": False, "locked": True,
                                                     "grade_id": "ex1_test", "points": 1}})]
    return v4.new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                                 "language": "python"}})


def _oversized(path: Path) -> None:
    """A notebook one byte over the size limit: a fine notebook, then zeros that take no disk (a sparse file)."""
    nbformat.write(_notebook(ANSWER), path)
    with open(path, "r+b") as f:
        f.truncate(worker.MAX_NOTEBOOK_BYTES + 1)


def _hungry(path: Path) -> None:
    """A valid notebook under the size limit whose reading needs over 1 GiB: 16 million empty JSON objects
    (3 bytes each in the file, about 70 bytes each once read) in its metadata, where the schema never looks."""
    nb = _notebook(ANSWER)
    nb.metadata["bulk"] = "BULK"
    path.write_text(nbformat.writes(nb).replace('"BULK"', "[" + "{}," * 15_999_999 + "{}]", 1))
    assert path.stat().st_size < worker.MAX_NOTEBOOK_BYTES  # so that only the memory cap can stop it


def _fine(path: Path) -> None:
    nbformat.write(_notebook(ANSWER), path)


def _fine_showing_its_hash(path: Path) -> None:
    """A right answer that prints its kernel's string hash of "a" (which the kernel's hash seed decides)."""
    nbformat.write(_notebook(ANSWER + "print('hash:', hash('a'))\n"), path)


def _grade(tmp: Path, submissions: dict, *, workers: int = 1, jobs_folder: Path | None = None,
           scratch: Path | None = None) -> tuple[dict[str, Row], int]:
    """Grade `submissions` (student -> writer of the notebook) in that order on `workers` workers (their jobs'
    files in `jobs_folder`, their kernels' in `scratch`), and judge them as the autograde command does;
    returns the rows by student and how many workers were started. The executed notebooks are in
    tmp/course/autograded."""
    course = tmp / "course"
    (course / "solutions" / CHAPTER).mkdir(parents=True)
    nbformat.write(_notebook(ANSWER), course / "solutions" / CHAPTER / f"{CHAPTER}.ipynb")
    jobs = []
    for student, write in submissions.items():
        folder = course / "submitted" / student / CHAPTER
        folder.mkdir(parents=True)
        write(folder / f"{CHAPTER}.ipynb")
        jobs.append(Job(student, CHAPTER, folder / f"{CHAPTER}.ipynb"))
    pool = run.Workers(workers, tmp, scratch_root=scratch)
    try:
        runs, references, errors = run.run_all(course, jobs, [CHAPTER], jobs_folder or tmp / "jobs", pool, workers,
                                               LIMITS, sandbox.probe().sandboxed, course / ".grader")
    finally:
        pool.close()
    assert not errors, errors
    points = gradebook.points(course, CHAPTER)
    rows = {job.student: judge.make_row(job, runs[job.key], references[CHAPTER], points, None) for job in jobs}
    return rows, pool.count


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    """A notebook over the size limit, then fine ones (two show their kernel's string hash), graded with the
    grader's own memory cap."""
    tmp = tmp_path_factory.mktemp("batch")
    rows, started = _grade(tmp, {"oversized": _oversized, "fine": _fine, "second": _fine_showing_its_hash,
                                 "third": _fine_showing_its_hash})
    return rows, started, tmp / "course" / "autograded"


@pytest.fixture(scope="module")
def capped_batch(tmp_path_factory):
    """A notebook whose reading needs more than a small cap of the grading process, then a fine one."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("JBJ_JOB_MEMORY_BYTES", str(SMALL_CAP))  # the pool's workers inherit it
        return _grade(tmp_path_factory.mktemp("capped"), {"hungry": _hungry, "fine": _fine})


@pytest.mark.slow  # kernels run (a second or two each)
def test_a_notebook_over_the_size_limit_fails_alone_and_says_why(batch):
    """Does a notebook file larger than MAX_NOTEBOOK_BYTES end as its own failed row whose reason names
    its size and the limit (the size larger than the limit), while the next notebook grades in full?"""
    rows, _, _ = batch
    row = rows["oversized"]
    found = re.fullmatch(r"failed: the notebook file is ([\d.]+) MiB, more than the (\d+) MiB a notebook may have",
                         row.status)
    assert found, row.status
    assert float(found[1]) > int(found[2]) == worker.MAX_NOTEBOOK_BYTES >> 20, row.status
    assert row.score is None, row
    assert rows["fine"].status == "graded" and rows["fine"].score == rows["fine"].max_score == 1, rows["fine"]


@pytest.mark.slow  # kernels run (a second or two each)
def test_a_grading_process_out_of_memory_fails_alone_and_says_why(capped_batch):
    """When reading a notebook needs more memory than its grading process may have, does that submission end
    as a failed row whose one-line reason says the grading process ran out of memory (MemoryError, and the
    cap) and what to do, while the same worker goes on to grade the next notebook in full?"""
    rows, started = capped_batch
    row = rows["hungry"]
    assert row.status.startswith("failed: the grading process ran out of memory (MemoryError"), row.status
    assert f"capped at {SMALL_CAP >> 20} MiB" in row.status and "outputs cleared" in row.status, row.status
    assert "\n" not in row.status and row.score is None, row
    assert rows["fine"].status == "graded" and rows["fine"].score == rows["fine"].max_score == 1, rows["fine"]
    assert started == 1  # no worker died and none had to be replaced


@pytest.mark.slow  # kernels run (a second or two each)
def test_a_graded_kernel_reports_the_cpu_share_it_ran_under(batch):
    """Does a graded submission's record of what was applied to its kernel give the CPU quota its cgroup
    really held, equal to the share the limits asked for?"""
    if sandbox.probe().cgroups is None:
        pytest.skip("the sandbox probe found no writable cgroup here, so no CPU share can be applied")
    rows, _, _ = batch
    applied = rows["fine"].applied
    assert "cpu" in applied["cgroup"] and applied["cpu_cores"] == LIMITS.cpu_cores, applied


@pytest.mark.slow  # kernels run (a second or two each)
def test_kernels_forked_on_one_worker_have_their_own_string_hash_seeds(batch):
    """Python draws a process's string hash seed when it starts, and a forked process keeps its parent's: do two
    kernels graded one after the other on one worker, each forked with JAX imported, hash "a" differently?"""
    rows, started, autograded = batch
    assert started == 1
    hashes = []
    for student in ("second", "third"):
        assert rows[student].status == "graded" and rows[student].score == 1, rows[student]
        if sandbox.probe().sandboxed:
            assert rows[student].applied["forked"], rows[student].applied
        nb = nbformat.read(autograded / student / CHAPTER / f"{CHAPTER}.ipynb", as_version=4)
        printed = "".join(out.get("text", "") for cell in nb.cells for out in cell.get("outputs", []))
        hashes += re.findall(r"hash: (-?\d+)", printed)
    assert len(hashes) == 2 and hashes[0] != hashes[1], hashes


#: An answer that also fills its kernel's sockets folder (`.kernel`, where its kernel binds its sockets and the
#: checks note their progress) as far as it can, up to 1 GiB, then holds what it wrote while the submissions
#: beside it grade.
FILLER = ANSWER + """
import os, time
written = 0
try:
    for n in range(64):
        with open(os.path.join('.kernel', f'fill-{n}'), 'wb') as f:
            for _ in range(16):
                f.write(b'x' * (1 << 20))
                written += 1 << 20
except OSError:
    pass
print('wrote', written >> 20, 'MiB')
time.sleep(10)
"""


def _filler(path: Path) -> None:
    nbformat.write(_notebook(FILLER), path)


def _verbose(path: Path) -> None:
    """A right answer that prints 900 kB, under the output limit: its executed notebook is as large."""
    nbformat.write(_notebook(ANSWER + "print('x' * 900_000)\n"), path)


#: How each grading on a small filesystem is set up: its size, the submissions, how many workers, and which of
#: the grader's folders are on it ("all": the course, the jobs' files and the kernels' scratch folders;
#: "jobs": only the jobs' files, which hold each executed notebook until it is kept).
SMALL_DISKS = {"filler": ("300m", {"filler": _filler, "first": _fine, "second": _fine, "third": _fine}, 2, "all"),
               "verbose": ("512k", {"verbose": _verbose}, 1, "jobs")}

#: Run by root in a mount namespace of its own (`unshare -m`), so that the small filesystem is seen by nothing else.
ON_A_SMALL_DISK = """
import json, subprocess, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import test_worker as here
tmp, name = Path(sys.argv[2]), sys.argv[3]
size, submissions, workers, where = here.SMALL_DISKS[name]
small = tmp / "small"
small.mkdir()
subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(small)], check=True)
base = small if where == "all" else tmp / "big"
rows, _ = here._grade(base, submissions, workers=workers, jobs_folder=small / "jobs",
                      scratch=small if where == "all" else None)
seen = {}
for student, row in rows.items():
    path = base / "course" / "autograded" / student / here.CHAPTER / f"{here.CHAPTER}.ipynb"
    kept, printed = "none", ""
    if path.exists():
        try:
            nb = here.nbformat.read(path, as_version=4)
            here.nbformat.validate(nb)
            kept = "whole"
            printed = "".join(out.get("text", "") for cell in nb.cells for out in cell.get("outputs", []))
        except Exception as err:
            kept = f"broken ({type(err).__name__}, {path.stat().st_size} bytes)"
    seen[student] = [row.status, row.score, kept, printed]
print(json.dumps(seen))
"""


def _grade_on_a_small_disk(tmp_path: Path, name: str) -> dict:
    """The rows (status, score, whether its executed notebook was kept whole, and its printed text) of
    `SMALL_DISKS[name]`, graded with the grader's folders on a small tmpfs."""
    if os.geteuid() != 0:
        pytest.skip("a small filesystem for the grader's folders is mounted for this test, which needs root "
                    "(CI runs as root)")
    if not sandbox.probe().sandboxed:
        pytest.fail(f"no sandbox on this machine: {sandbox.probe().reason}")
    proc = subprocess.run(["unshare", "--mount", "--propagation", "private", sys.executable, "-c", ON_A_SMALL_DISK,
                           str(Path(__file__).parent), str(tmp_path), name],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.slow  # kernels run; one holds the disk for 10 s
def test_a_submission_filling_its_sockets_folder_costs_the_others_nothing(tmp_path):
    """With the grader's folders (course, jobs, kernels' scratch) on a 300 MB filesystem, one submission writes
    all it can into its kernel's sockets folder and holds it while three right answers grade beside it: does
    its kernel stop at the folder's small bound, and does every right answer end graded with its full score
    and its executed notebook kept whole?"""
    rows = _grade_on_a_small_disk(tmp_path, "filler")
    for student in ("first", "second", "third"):
        assert rows[student][:3] == ["graded", 1, "whole"], rows
    status, score, kept, printed = rows["filler"]
    assert (status, score, kept) == ("graded", 1, "whole"), rows["filler"]
    assert int(re.search(r"wrote (\d+) MiB", printed)[1]) <= sandbox.RUNTIME_BYTES >> 20, printed


@pytest.mark.slow  # kernels run
def test_a_full_disk_on_the_graders_side_fails_the_job_as_the_graders_and_leaves_nothing_half_written(tmp_path):
    """When the grader's own disk has no room for a submission's executed notebook (here 900 kB on a 512 kB
    filesystem for the jobs' files), does that row fail saying the grader's disk was full, through no fault
    of the submission's own, with no executed notebook kept rather than a truncated one?"""
    rows = _grade_on_a_small_disk(tmp_path, "verbose")
    status, score, kept, _ = rows["verbose"]
    assert status.startswith("failed: the grader's disk was full (No space left on device)"), status
    assert "through no fault of its own" in status and score is None and kept == "none", rows


LIMITS_SEEN = """
import resource
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
try:  # what the kernel's launcher does with a kernel memory limit of 8 GiB (--memory-mb 8192)
    resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))
    raised = True
except (ValueError, OSError):
    raised = False
print(soft, hard, raised)
"""


@pytest.mark.parametrize("setup", [worker.cap_job_memory, worker.job_process_setup], ids=["cap", "job process"])
def test_the_cap_lowers_only_the_soft_limit_so_a_kernel_may_have_more(monkeypatch, setup):
    """Does a job's process (forked by a grading worker, here or on a Dask worker) get the cap as its soft
    address-space limit while keeping the hard limit it inherited, so that the kernel's launcher can still
    give a kernel more memory than the cap?"""
    monkeypatch.setenv("JBJ_JOB_MEMORY_BYTES", str(SMALL_CAP))
    seen = subprocess.run([sys.executable, "-c", LIMITS_SEEN], preexec_fn=setup, capture_output=True, text=True,
                          check=True, timeout=60).stdout.split()
    assert seen == [str(SMALL_CAP), str(resource.getrlimit(resource.RLIMIT_AS)[1]), "True"], seen
