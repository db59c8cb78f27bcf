"""Stage 3, run: every notebook in a sandboxed kernel, in parallel, a result for each.

`grade_job` grades one notebook: it hands the job to a grading process (forked by one of a few
long-lived `worker --serve` processes, `Workers`), waits for it under the job's deadline, kills it
with everything it started if it is late, and reads what it left. Every caller uses it: the local
pool (`LocalRunner`), each Dask worker (`grader.autograde.cluster`) and a learner's `grader check`.

`run_jobs` is the stage itself, whichever runner grades: the reference solution of each chapter
first (unless its records are cached), then every submission, as many at a time as the runner
has room for; each result comes back to this machine, where the executed notebooks are kept in
autograded/. Kernels start from the C++ builds and JAX compilations the reference made before
its first answer cell (public cells only). Each job's files live in a folder named by its place
in the queue, never by a student id, so no student id (not even one that imitates the
reference's) can reach another job's files.
"""

from __future__ import annotations

import errno
import hashlib
import io
import json
import os
import queue
import select
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from grader.autograde import sandbox
from grader.autograde.jobs import CACHES, SEALED_JAX_CACHE, Job, JobSpec, KernelRun, Outcome
from grader.course import repo_root


class Workers:
    """`n` long-lived `worker --serve` processes; each job runs in a process forked by one.

    Jobs wait for a free worker. A worker that misses a job's deadline or dies is killed with
    everything it started, and a fresh one takes its place: that job fails, the rest go on. Each
    worker dies with the process that started it (the grader, or a Dask worker), even a killed one,
    and each job's process with its worker.

    Each job gets a scratch folder (its kernel's folder and the grader's settings for it), made in
    `scratch_root` (the system's temporary folder unless given) before the job starts and removed
    here when it ends, however it ends: a job killed at its deadline cannot remove its own, and it
    holds a copy of a student's submission. The folders of a pool whose own process was killed
    (a Dask worker, say) are removed by the next pool started beside them (`sweep_scratch`)."""

    def __init__(self, n: int, folder: Path, scratch_root: Path | None = None):
        self.folder, self.count, self.logs, self.started = folder, 0, [], []
        self.scratch_root = scratch_root
        sweep_scratch(Path(scratch_root or tempfile.gettempdir()))
        self.lock = threading.Lock()  # a replacement can be started from any job's thread
        self.free: queue.Queue = queue.Queue()
        # Workers are started from this one thread, which lives as long as the pool: a process set
        # to die with its parent dies when the *thread* that started it ends, and a job's thread may end first.
        self.starter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jbj-workers")
        for _ in range(n):
            self.free.put(self._start())

    def _start(self) -> subprocess.Popen:
        return self.starter.submit(self._popen).result()

    def _popen(self) -> subprocess.Popen:
        from grader.autograde.launch import die_with_parent

        with self.lock:
            self.count += 1
            log = (self.folder / f"worker-{self.count}.log").open("w")
            self.logs.append(log)
            # Its own session, so that killing it reaches the job it forked (whose kernel dies
            # with that job: bubblewrap's --die-with-parent, or the launcher's own setting).
            worker = subprocess.Popen([sys.executable, "-m", "grader.autograde.worker", "--serve"],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True,
                                      cwd=self.folder, start_new_session=True, preexec_fn=die_with_parent)
            self.started.append(worker)
            return worker

    def run(self, paths: dict[str, str], deadline: float) -> int | str:
        """The job's exit status, or why there is none."""
        scratch = Path(tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-", dir=self.scratch_root))
        try:
            return self._run({**paths, "scratch": str(scratch)}, deadline)
        finally:
            remove_scratch(scratch)

    def _run(self, paths: dict[str, str], deadline: float) -> int | str:
        worker = self.free.get()
        if worker.poll() is not None:  # it died while idle: a fresh one takes the job
            self._kill(worker)
            worker = self._start()
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
        self.starter.shutdown()
        sandbox.sweep_cgroups()  # those of jobs killed before they could remove their own


#: The start of a job's scratch folder's name, followed by the pid of the process whose pool made it.
SCRATCH_PREFIX = "jbj-job-"


def sweep_scratch(root: Path) -> int:
    """Remove the scratch folders in `root` that this user's pools left when their process was killed
    before it could (named `SCRATCH_PREFIX<pid>-…`, so a live process's are kept); returns how many."""
    removed = 0
    try:
        entries = list(os.scandir(root))
    except OSError:
        return 0
    for entry in entries:
        pid = entry.name[len(SCRATCH_PREFIX):].split("-", 1)[0]
        if not entry.name.startswith(SCRATCH_PREFIX) or not pid.isdigit() or Path(f"/proc/{pid}").exists():
            continue
        try:
            if not entry.is_dir(follow_symlinks=False) or entry.stat(follow_symlinks=False).st_uid != os.getuid():
                continue
        except OSError:
            continue
        remove_scratch(Path(entry.path))
        removed += 1
    return removed


def remove_scratch(folder: Path) -> None:
    """Remove a job's scratch folder, also where a kernel took away the permissions of what it made.
    A killed job's kernel may still be exiting (and writing) for a moment, so a removal that leaves
    something behind is tried again, briefly."""

    def permit_and_retry(remove, path, _error) -> None:
        for target in (os.path.dirname(path), path):
            try:
                if not os.path.islink(target):
                    os.chmod(target, 0o700)
            except OSError:
                pass
        try:
            remove(path)
        except OSError:
            pass

    for _ in range(20):
        shutil.rmtree(folder, onexc=permit_and_retry)
        if not folder.exists():
            return
        time.sleep(0.1)


def job_folder(tmp: Path, number: int, *, reference: bool) -> Path:
    """The private folder of a job's files: by kind and place in the queue, never by student id."""
    folder = tmp / ("references" if reference else "submissions") / f"{number:05d}"
    folder.mkdir(parents=True)
    return folder


#: How long past its notebook's own limit a grading process may take (reading, preparing and
#: writing the notebook, starting the kernel) before it is killed.
JOB_MARGIN_SECONDS = 120


def job_deadline(limits: sandbox.Limits) -> float:
    """Seconds a grading process may take in all: its notebook's limit and `JOB_MARGIN_SECONDS`."""
    return limits.notebook_seconds + JOB_MARGIN_SECONDS


def grade_job(spec: JobSpec, folder: Path, processes: Workers) -> KernelRun:
    """Grade one notebook in a grading process of its own; whatever happens to it, a run comes back.

    The job's file, result and log go in `folder`; one of `processes` runs it (`worker.grade_spec`)
    under `job_deadline`, and a process past it is killed with everything it started."""
    job_path, result_path, log_path = (folder / name for name in ("job.json", "result.json", "log"))
    job_path.write_text(json.dumps(spec.to_dict()))
    status = processes.run({"job": str(job_path), "result": str(result_path), "log": str(log_path)},
                           job_deadline(spec.limits))
    return read_result(result_path, status, log_path)


def run_job(course: Path, job: Job, folder: Path, limits: sandbox.Limits, sandboxed: bool, known: list[str],
            workers: Workers, warm: Path, publish: bool = False) -> KernelRun:
    """One notebook of `course` graded on this machine (`grade_job`); its executed notebook is left in
    `folder` as executed.ipynb.

    Its kernel starts with a copy of the caches in `warm` (C++ builds, JAX compilations) if they
    exist yet. With `publish` (the reference run), the caches as they are when its first answer
    or test cell starts are copied there: they hold only what the public cells before it made.
    So are, once it ends, all its JAX compilations, which a kernel gets only sealed (`worker.seal_folder`)."""
    sources = {ch: course / "solutions" / ch / f"{ch}.ipynb" for ch in {*known, job.chapter}}
    spec = job_spec(job.student, job.chapter, job.notebook, sources, folder / EXECUTED, limits, sandboxed, warm,
                    publish)
    return grade_job(spec, folder, workers)


#: The name of the executed notebook in a job's folder.
EXECUTED = "executed.ipynb"


def job_spec(student: str, chapter: str, notebook: Path, sources: dict[str, Path], executed: Path,
             limits: sandbox.Limits, sandboxed: bool, caches: Path, publish: bool) -> JobSpec:
    """What a grading process reads (`worker.grade_spec`): the notebook, the chapter's solution (and the
    other chapters', to name a notebook of the wrong chapter), where the executed notebook goes, and
    the caches folder its kernel starts from, or, with `publish`, fills."""
    folders = {name: caches / name for name in (*CACHES, SEALED_JAX_CACHE)}
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
    if status == DISK_FULL_STATUS:
        from grader.autograde.worker import disk_full

        return KernelRun.failed(disk_full(OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))))
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


#: The exit status of a grading process that could not write its result for a full disk (`worker.DISK_FULL_STATUS`,
#: not imported from there: the worker module brings the notebook libraries with it).
DISK_FULL_STATUS = 75

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
        cached = reference_file(cache, chapter, keys[chapter])
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
        if result.truncated:
            # A record dropped for size reads, in the cell, like a cell that stopped before its result.
            why += (f"; the output of cell{'s' if len(result.truncated) > 1 else ''} "
                    f"{', '.join(map(str, result.truncated))} was cut at the size limit (the checks' records "
                    "count, up to 4 times c.GradingLimits.output_bytes in all): record smaller values in the "
                    "test cells (a slice of a large array), or raise that limit")
        errors[chapter] = ReferenceFailure(f"the reference solution of {chapter} did not grade cleanly ({why}); "
                                           "fix solutions/", result.trace)
        return
    records = {gid: r["record"] for gid, r in result.records.items()}
    store_reference(cached, records)
    out[chapter] = records


def reference_file(cache: Path, chapter: str, key: str) -> Path:
    """Where `cache` keeps the reference records of `chapter` under its `reference_key`."""
    return cache / f"reference-{chapter}-{key}.json"


def warm_folder(cache: Path, chapter: str, key: str) -> Path:
    """Where `cache` keeps the caches (C++ builds, JAX compilations) a reference run of `chapter` made
    before its first answer cell, and every compilation it made (`jobs.SEALED_JAX_CACHE`), under its
    `reference_key`: every later kernel of the chapter starts from a copy."""
    return cache / f"warm-{chapter}-{key}"


def store_reference(path: Path, records: dict) -> None:
    """Write a chapter's reference records (by test cell's grade_id) to `path`, whole or not at all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp_file = path.with_suffix(f".{os.getpid()}.tmp")
    try:
        tmp_file.write_text(json.dumps(records))
        os.replace(tmp_file, path)
    except BaseException:
        tmp_file.unlink(missing_ok=True)
        raise


@dataclass(frozen=True)
class Task:
    """One job of the run stage, for a runner: the notebook, its limits, and its chapter's caches on
    this machine (`warm`, which a reference run with `publish` fills)."""

    job: Job
    limits: sandbox.Limits
    key: str  # the chapter's reference key (its caches' name)
    warm: Path
    publish: bool = False

    @property
    def label(self) -> str:
        return f"reference {self.job.chapter}" if self.job.reference else f"{self.job.student}/{self.job.chapter}"


@dataclass(frozen=True)
class Graded:
    """What a runner gives back for a task: its run, its executed notebook (bytes, or the file a local
    run left), the caches a reference published where they could not be written here (a tar), whether
    the runner refused the job (it cannot grade at all: not the notebook's fault), and where it ran."""

    run: KernelRun
    executed: bytes | Path | None = None
    caches: bytes | None = None
    refused: bool = False
    worker: str | None = None


class LocalRunner:
    """Grades tasks on this machine: `size` at once, each through `grade_job` on `workers`."""

    #: Submissions start at once: one that starts before its chapter's caches are warm compiles for itself.
    waits_for_reference = False

    def __init__(self, course: Path, known: list[str], workers: Workers, size: int, tmp: Path, sandboxed: bool):
        self.course, self.known, self.workers, self.tmp, self.sandboxed = course, known, workers, tmp, sandboxed
        self.pool = ThreadPoolExecutor(max_workers=max(1, size))
        self.numbers = {True: 0, False: 0}
        self.lock = threading.Lock()

    def start(self, task: Task, done: Callable[[Callable[[], Graded]], None]) -> None:
        """Grade `task` in the background; `done` is then called (from another thread) with a function
        that gives what it gave."""
        reference = task.job.reference
        with self.lock:
            number = self.numbers[reference]
            self.numbers[reference] += 1
        folder = job_folder(self.tmp, number, reference=reference)
        future = self.pool.submit(self._grade, task, folder)
        future.add_done_callback(lambda f: done(f.result))

    def _grade(self, task: Task, folder: Path) -> Graded:
        try:
            run = run_job(self.course, task.job, folder, task.limits, self.sandboxed,
                          [] if task.job.reference else self.known, self.workers, task.warm, task.publish)
        except Exception as err:  # a bug of ours, or a full disk: this job fails, saying so, and the rest go on
            run = KernelRun.failed(_grader_failure(err), traceback.format_exc()[-4000:])
        executed = folder / EXECUTED
        return Graded(run, executed if executed.is_file() else None)

    def close(self) -> None:
        self.pool.shutdown()


def run_jobs(course: Path, jobs: list[Job], runner, limits: sandbox.Limits, cache_dir: Path,
             step: Callable[[str], None] = lambda label: None, *, autograded: Path | None = None
             ) -> tuple[dict[tuple[str, str], KernelRun], dict, dict]:
    """The run stage: each chapter's reference (unless its records are cached in `cache_dir`) and every
    job, graded by `runner` (`LocalRunner`, or `cluster.DaskRunner`); each executed submission is kept
    in `autograded` (not at all without it), and `step` is called as each job ends.

    The references go first in the queue. With a runner that `waits_for_reference` (one whose workers
    are elsewhere), a chapter's submissions are sent once its reference is back, with the caches it
    made, and not at all if it failed; otherwise they start at once. Returns the runs by (student,
    chapter), the reference records by chapter, and why a chapter has none (`ReferenceFailure`)."""
    wanted = sorted({job.chapter for job in jobs})
    keys = {ch: reference_key(course, ch) for ch in wanted}
    references, todo = cached_references(wanted, keys, cache_dir)
    warm = {ch: warm_folder(cache_dir, ch, keys[ch]) for ch in wanted}
    errors: dict[str, ReferenceFailure] = {}
    runs: dict[tuple[str, str], KernelRun] = {}
    finished: queue.Queue = queue.Queue()
    pending = 0

    def start(task: Task) -> None:
        nonlocal pending
        pending += 1
        runner.start(task, lambda result, task=task: finished.put((task, result)))

    cached_files = dict(todo)
    for chapter, _ in todo:
        reference = Job("(reference)", chapter, course / "solutions" / chapter / f"{chapter}.ipynb", reference=True)
        start(Task(reference, generous(limits), keys[chapter], warm[chapter], publish=not warm[chapter].exists()))
    held: dict[str, list[Task]] = {}
    for job in jobs:
        task = Task(job, limits, keys[job.chapter], warm[job.chapter])
        if runner.waits_for_reference and job.chapter in cached_files:
            held.setdefault(job.chapter, []).append(task)
        else:
            start(task)
    while pending:
        task, result = finished.get()
        pending -= 1
        graded: Graded = result()
        chapter = task.job.chapter
        if task.job.reference:
            if graded.refused:
                errors[chapter] = ReferenceFailure(graded.run.reason)
            else:
                accept_reference(chapter, cached_files[chapter], graded.run, references, errors)
            if graded.caches and not task.warm.exists():
                unpack_caches(graded.caches, task.warm)  # the next run ships these without a reference run
            step(task.label)
            for waiting in held.pop(chapter, []):
                if chapter in errors:  # every row of it says why; nothing to run
                    step(waiting.label)
                else:
                    start(waiting)
            continue
        runs[task.job.key] = graded.run
        if autograded is not None and graded.executed is not None:
            try:
                keep_executed(graded.executed, autograded / task.job.student / chapter / f"{chapter}.ipynb")
            except OSError as err:  # a full disk, say: the row says so, and no notebook is left half written
                runs[task.job.key] = KernelRun.failed(_grader_failure(err, "keeping its executed notebook"),
                                                      traceback.format_exc()[-4000:])
        step(task.label)
    return runs, references, errors


def _grader_failure(err: Exception, doing: str = "") -> str:
    """Why a job failed on the grader's side: its disk was full (`worker.disk_full`), or a bug of ours."""
    from grader.autograde.worker import disk_full

    full = disk_full(err) if isinstance(err, OSError) else None
    return full or (f"the grader failed on this submission{' ' + doing if doing else ''} "
                    f"({type(err).__name__}: {str(err)[:300]})")


def keep_executed(executed: bytes | Path, target: Path) -> None:
    """An executed notebook where the autograded notebooks go (the one place they are written), whole or not at
    all: moved there in one step, or written beside it and renamed over it once complete."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(executed, Path):
        try:
            os.replace(executed, target)  # on the same filesystem
            return
        except OSError as err:
            if err.errno != errno.EXDEV:
                raise
        executed = executed.read_bytes()
    staging = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        staging.write_bytes(executed)
        os.replace(staging, target)
    except BaseException:
        staging.unlink(missing_ok=True)
        raise


def pack_caches(folder: Path) -> bytes:
    """A caches folder as a gzipped tar, to send to another machine."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path in sorted(folder.iterdir()):
            tar.add(path, arcname=path.name)
    return buffer.getvalue()


def unpack_caches(data: bytes, target: Path) -> None:
    """Unpack caches (`pack_caches`) where jobs read them: whole or not at all, once."""
    if target.is_dir():
        return
    staging = target.with_name(f"{target.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            tar.extractall(staging, filter="data")
    except BaseException:  # a full disk, say: nothing half-unpacked is left
        shutil.rmtree(staging, ignore_errors=True)
        raise
    try:
        os.rename(staging, target)
    except OSError:  # another job was first
        shutil.rmtree(staging, ignore_errors=True)


def run_all(course: Path, jobs: list[Job], known: list[str], tmp: Path, workers: Workers, pool_size: int,
            limits: sandbox.Limits, sandboxed: bool, cache_dir: Path,
            step: Callable[[str], None] = lambda label: None) -> tuple[dict[tuple[str, str], KernelRun], dict, dict]:
    """`run_jobs` on this machine: `pool_size` jobs at once on `workers`, the executed submissions kept in
    `course`/autograded."""
    runner = LocalRunner(course, known, workers, pool_size, tmp, sandboxed)
    try:
        return run_jobs(course, jobs, runner, limits, cache_dir, step, autograded=course / "autograded")
    finally:
        runner.close()
