"""Stage 3, run: every notebook in a sandboxed kernel, in parallel, a result for each.

The reference solution of each chapter runs first in the queue, then every submission, each in
a process of its own forked by one of a few long-lived workers (`grader.autograde.worker`), in a
sandboxed kernel, as many at a time as there are workers. Kernels start from the C++ builds and
JAX compilations the reference made before its first answer cell (public cells only). Each job's
files live in a folder named by its place in the queue, never by a student id, so no student id
(not even one that imitates the reference's) can reach another job's files.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import select
import signal
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from grader.autograde import sandbox
from grader.autograde.jobs import Job, JobSpec, KernelRun, Outcome
from grader.course import repo_root


class Workers:
    """`n` long-lived `worker --serve` processes; each job runs in a process forked by one.

    Jobs wait for a free worker. A worker that misses a job's deadline or dies is killed with
    everything it started, and a fresh one takes its place: that job fails, the rest go on."""

    def __init__(self, n: int, folder: Path):
        self.folder, self.count, self.logs, self.started = folder, 0, [], []
        self.lock = threading.Lock()  # a replacement can be started from any job's thread
        self.free: queue.Queue = queue.Queue()
        for _ in range(n):
            self.free.put(self._start())

    def _start(self) -> subprocess.Popen:
        with self.lock:
            self.count += 1
            log = (self.folder / f"worker-{self.count}.log").open("w")
            self.logs.append(log)
            # Its own session, so that killing it reaches the job it forked (whose kernel dies
            # with that job: bubblewrap's --die-with-parent, or the launcher's own setting).
            worker = subprocess.Popen([sys.executable, "-m", "grader.autograde.worker", "--serve"],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True,
                                      cwd=self.folder, start_new_session=True)
            self.started.append(worker)
            return worker

    def run(self, paths: dict[str, str], deadline: float) -> int | str:
        """The job's exit status, or why there is none."""
        worker = self.free.get()
        try:
            worker.stdin.write(json.dumps(paths) + "\n")
            worker.stdin.flush()
            ready, _, _ = select.select([worker.stdout], [], [], deadline)
            line = worker.stdout.readline() if ready else None
        except OSError as err:
            line = ""
            why = f"the grading worker could not be reached ({err})"
        else:
            why = (f"grading did not finish within {deadline:g} s" if line is None
                   else "the grading worker stopped")
        if line:
            self.free.put(worker)
            return json.loads(line)["exit"]
        self._kill(worker)
        self.free.put(self._start())
        return why

    @staticmethod
    def _kill(worker: subprocess.Popen) -> None:
        try:
            os.killpg(worker.pid, signal.SIGKILL)
        except OSError:
            pass
        worker.wait()

    def close(self) -> None:
        """Idle workers finish when their input ends; any still busy (after an error) are killed."""
        for worker in self.started:
            if worker.poll() is None:
                try:
                    worker.stdin.close()
                except OSError:
                    pass
        for worker in self.started:
            try:
                worker.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._kill(worker)
        for log in self.logs:
            log.close()
        sandbox.sweep_cgroups()  # those of jobs killed before they could remove their own


def job_folder(tmp: Path, number: int, *, reference: bool) -> Path:
    """The private folder of a job's files: by kind and place in the queue, never by student id."""
    folder = tmp / ("references" if reference else "submissions") / f"{number:05d}"
    folder.mkdir(parents=True)
    return folder


def run_job(course: Path, job: Job, folder: Path, limits: sandbox.Limits, sandboxed: bool, known: list[str],
            workers: Workers, warm: Path, executed: Path | None = None, publish: bool = False) -> KernelRun:
    """One notebook in a process of its own; whatever happens to it, a result comes back.

    Its kernel starts with a copy of the caches in `warm` (C++ builds, JAX compilations) if they
    exist yet. With `publish` (the reference run), the caches as they are when its first answer
    or test cell starts are copied there: they hold only what the public cells before it made."""
    chapter, student = job.chapter, job.student
    job_path, result_path, log_path = (folder / name for name in ("job.json", "result.json", "log"))
    sources = {ch: course / "solutions" / ch / f"{ch}.ipynb" for ch in {*known, chapter}}
    spec = job_spec(student, chapter, job.notebook, sources,
                    executed or course / "autograded" / student / chapter / f"{chapter}.ipynb",
                    limits, sandboxed, warm, publish)
    job_path.write_text(json.dumps(spec.to_dict()))
    status = workers.run({"job": str(job_path), "result": str(result_path), "log": str(log_path)},
                         limits.notebook_seconds + 120)
    return read_result(result_path, status, log_path)


def job_spec(student: str, chapter: str, notebook: Path, sources: dict[str, Path], executed: Path,
             limits: sandbox.Limits, sandboxed: bool, caches: Path, publish: bool) -> JobSpec:
    """What a grading process reads (`worker.grade_spec`): the notebook, the chapter's solution (and the
    other chapters', to name a notebook of the wrong chapter), where the executed notebook goes, and
    the caches folder its kernel starts from, or, with `publish`, fills."""
    folders = {name: caches / name for name in (".build-cache", ".jax-cache")}
    return JobSpec(student, chapter, notebook, sources[chapter], executed, limits, sandboxed,
                   other_sources={ch: path for ch, path in sources.items() if ch != chapter},
                   seed_caches={} if publish else folders, publish_caches=folders if publish else {})


def read_result(result_path: Path, status: int | str, log_path: Path) -> KernelRun:
    """What a grading process left: its result file, else why there is none (`status` is its exit
    status, or why it has none), with the last line of its log."""
    if result_path.exists():
        try:
            data = json.loads(result_path.read_text())
        except ValueError:
            return KernelRun.failed("the grading process left an unreadable result")
        return run_from(data)
    if isinstance(status, str):
        return KernelRun.failed(status)
    log = log_path.read_text(errors="replace") if log_path.exists() else ""
    lines = log.strip().splitlines() or ["no message"]
    how = next((words for line in lines[-5:] for sign, words in OUT_OF_MEMORY_SIGNS.items() if sign in line), None)
    if how:
        # Imported only now: the worker module brings the notebook libraries with it.
        from grader.autograde.worker import job_memory_bytes, out_of_memory

        return KernelRun.failed(out_of_memory(job_memory_bytes(), how))
    return KernelRun.failed(f"the grading process stopped with status {status}: {lines[-1][:300]}",
                            "\n".join(lines[-40:])[-4000:])


def run_from(data) -> KernelRun:
    """A grading process's result from its JSON data; a failed run that says why when the grader cannot
    read it (a key it does not know means the grading process runs other code than this one)."""
    try:
        return KernelRun.from_dict(data)
    except (TypeError, ValueError) as err:
        return KernelRun.failed(f"the grading process returned a result the grader cannot read ({err}); "
                                "is its grading code the same as this one's?")


#: The last words of a grading process that died of its address-space cap without writing a
#: result, and what the reason calls them: Python's MemoryError (raised again while the result
#: was written), C++'s bad_alloc, a failed allocation's errno, or a thread whose stack could not
#: be mapped (ZeroMQ then aborts).
OUT_OF_MEMORY_SIGNS = {"MemoryError": "MemoryError", "std::bad_alloc": "std::bad_alloc",
                       "Cannot allocate memory": "an allocation failed",
                       "Resource temporarily unavailable (src/thread.cpp": "no memory to start a thread"}


# ---- the reference runs -------------------------------------------------------------------

#: What decides a reference run's records besides the solution and JAX, relative to the course
#: checkout: every module a grading kernel runs (what `import grader` and the chapters load: the kernel
#: side, with `course` and `errors`), the grader's side of a run (how a test cell is prepared, how the
#: kernel is launched, limited and run, how its records are read) and the C++ the chapters build.
#: A folder stands for every file in it. Judging is not here: the cache holds records, not verdicts.
RECORDING_CODE = ("grader/__init__.py", "grader/errors.py", "grader/course.py", "grader/notebook",
                  "grader/autograde/prepare.py", "grader/autograde/sandbox.py", "grader/autograde/launch.py",
                  "grader/autograde/kernel.py", "grader/autograde/worker.py", "cpp")


def recording_files(root: Path | None = None) -> list[Path]:
    """The files of `RECORDING_CODE` in a checkout (default: this one), in a fixed order."""
    root = Path(root) if root is not None else repo_root()
    found = []
    for name in RECORDING_CODE:
        path = root / name
        found += sorted(p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts) \
            if path.is_dir() else [path]
    return found


def reference_key(course: Path, chapter: str, *, root: Path | None = None) -> str:
    """The name under which a chapter's reference records are cached: a hash of its solution, of the
    code that makes records (`RECORDING_CODE`, in the checkout `root`) and of JAX's version."""
    from importlib.metadata import version

    root = Path(root) if root is not None else repo_root()
    h = hashlib.sha256()
    h.update((course / "solutions" / chapter / f"{chapter}.ipynb").read_bytes())
    for path in recording_files(root):
        h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    h.update(version("jax").encode())
    return h.hexdigest()[:16]


def cached_references(chapters: list[str], keys: dict[str, str], cache: Path) -> tuple[dict, list[tuple[str, Path]]]:
    """Each chapter's reference records, from the cache in .grader/ (keyed by the solution's
    content, the grading code and the JAX version); and the chapters whose solution must run."""
    out: dict = {}
    todo = []
    for chapter in chapters:
        cached = cache / f"reference-{chapter}-{keys[chapter]}.json"
        try:
            out[chapter] = json.loads(cached.read_text())
        except (OSError, ValueError):
            todo.append((chapter, cached))
    return out, todo


def generous(limits: sandbox.Limits) -> sandbox.Limits:
    return replace(limits, cell_seconds=max(limits.cell_seconds, 600), notebook_seconds=max(limits.notebook_seconds, 1800))


@dataclass(frozen=True)
class ReferenceFailure:
    """Why a chapter has no reference records (its text), and the grader's traceback if it crashed."""

    reason: str
    trace: str = ""

    def __str__(self) -> str:
        return self.reason


def accept_reference(chapter: str, cached: Path, result: KernelRun, out: dict, errors: dict) -> None:
    """Keep (and cache) a reference run's records if every test cell passed; else say why not."""
    bad = [gid for gid, r in result.records.items() if not (r.get("record") or {}).get("end") == "ok"]
    if result.status is not Outcome.GRADED or result.reason or bad or not result.records:
        why = result.reason or (f"cells {', '.join(bad)} did not pass" if bad else "no records")
        errors[chapter] = ReferenceFailure(f"the reference solution of {chapter} did not grade cleanly ({why}); "
                                           "fix solutions/", result.trace)
        return
    records = {gid: r["record"] for gid, r in result.records.items()}
    cached.parent.mkdir(parents=True, exist_ok=True)
    tmp_file = cached.with_suffix(f".{os.getpid()}.tmp")
    tmp_file.write_text(json.dumps(records))
    os.replace(tmp_file, cached)
    out[chapter] = records


def run_all(course: Path, jobs: list[Job], known: list[str], tmp: Path, workers: Workers, pool_size: int,
            limits: sandbox.Limits, sandboxed: bool, cache_dir: Path,
            step: Callable[[str], None] = lambda label: None) -> tuple[dict[tuple[str, str], KernelRun], dict, dict]:
    """Run each chapter's reference (unless cached) and every job.

    Returns the runs by (student, chapter), the reference records by chapter, and why a
    chapter has no reference records."""
    wanted = sorted({job.chapter for job in jobs})
    keys = {ch: reference_key(course, ch) for ch in wanted}
    references, todo = cached_references(wanted, keys, cache_dir)
    errors: dict[str, str] = {}
    warm = {ch: cache_dir / f"warm-{ch}-{keys[ch]}" for ch in wanted}
    runs: dict[tuple[str, str], KernelRun] = {}
    # The reference runs go first in the queue; nothing waits for them: nothing is judged until
    # every run is over, and a submission that starts before its chapter's caches are warm just
    # compiles for itself.
    with ThreadPoolExecutor(max_workers=pool_size) as pool:
        reference_runs = {}
        for number, (chapter, cached) in enumerate(todo):
            job = Job("(reference)", chapter, course / "solutions" / chapter / f"{chapter}.ipynb", reference=True)
            folder = job_folder(tmp, number, reference=True)
            future = pool.submit(run_job, course, job, folder, generous(limits), sandboxed, [], workers,
                                 warm[chapter], executed=folder / f"{chapter}.ipynb", publish=not warm[chapter].exists())
            reference_runs[future] = (chapter, cached)
        submissions = {pool.submit(run_job, course, job, job_folder(tmp, number, reference=False), limits, sandboxed,
                                   known, workers, warm[job.chapter]): job for number, job in enumerate(jobs)}
        for future in as_completed([*reference_runs, *submissions]):
            if future in reference_runs:
                chapter, cached = reference_runs[future]
                accept_reference(chapter, cached, future.result(), references, errors)
                step(f"reference {chapter}")
            else:
                job = submissions[future]
                runs[job.key] = future.result()
                step(f"{job.student}/{job.chapter}")
    return runs, references, errors
