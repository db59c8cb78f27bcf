"""Stage 3 on a Dask cluster: each notebook's run is a Dask task on one of the cluster's workers.

`grader autograde --scheduler tcp://HOST:PORT` gives the *run* stage to a Dask distributed
cluster; intake, judging, the gradebook and the reports stay on the instructor's machine, and so
does the stage's own logic (`run.run_jobs`: references first, the cache, autograded/). This module
only submits and gathers (`DaskRunner`).

What travels: a task carries the submission's files (the notebook and what sits beside it, capped
as a local run caps them) and a fingerprint of the grading code; the solution notebooks are sent
to each worker once. On the worker the task writes them to a private folder and grades the
notebook exactly as a local run does: `run.grade_job`, on grading processes forked by long-lived
workers of the Dask worker's own (`run.Workers`), sandboxed by the worker host's bubblewrap, under
the same limits. It returns the result, the executed notebook and the name of the worker. A worker
host therefore needs the course checkout with its venv (`make venv`), at the same grading code
and JAX as the instructor's (checked: a worker that differs refuses the job and the row says
why), and bubblewrap.

Each chapter's reference solution runs first; its records come back to be judged against, and
the caches its public cells made (C++ builds, JAX compilations) travel with its result to the
workers that grade that chapter's submissions. A worker that dies mid-job (its machine lost, the
process killed) costs nothing: its grading processes die with it, the scheduler gives the job to
another worker, and the row says it was graded again. A job that kills every worker it runs on
fails after Dask's `distributed.scheduler.allowed-failures` attempts, with a row that says so.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import socket
import tempfile
import threading
import traceback
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from grader.autograde import run, sandbox
from grader.autograde.jobs import KernelRun
from grader.autograde.run import EXECUTED, Graded, Task, Workers, job_spec, pack_caches, run_from, unpack_caches
from grader.autograde.worker import MAX_COPY_BYTES, files_within
from grader.course import repo_root

#: What decides how a notebook is graded, besides the notebook: the grading code, the C++ the
#: chapters build, and JAX. Instructor and workers must agree on all of it.
FINGERPRINTED = ("grader", "cpp")


@dataclass
class ClusterUse:
    """What the cluster did, for the report."""

    scheduler: str
    workers: dict[str, int] = field(default_factory=dict)  # worker ("host address") -> jobs it finished
    retried: dict[str, int] = field(default_factory=dict)  # "student/chapter" -> workers lost while it ran

    def lines(self) -> list[str]:
        out = [f"Graded on the Dask cluster at {self.scheduler}, by {len(self.workers)} worker(s):"]
        out += [f"- {name}: {count} job(s)" for name, count in sorted(self.workers.items())]
        if self.retried:
            out.append("Graded again after the worker running them was lost: "
                       + ", ".join(f"{job} ({n} time{'s' if n > 1 else ''})" for job, n in sorted(self.retried.items())))
        return out + [""]


@lru_cache(maxsize=1)
def fingerprint(root: str | None = None) -> str:
    """A hash of the grading code, the chapters' C++ and the JAX version, on this machine."""
    from importlib.metadata import version

    base = Path(root) if root else repo_root()
    h = hashlib.sha256(version("jax").encode())
    for top in FINGERPRINTED:
        for path in sorted((base / top).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                h.update(str(path.relative_to(base)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def submission_files(notebook: Path, budget: int = MAX_COPY_BYTES) -> dict[str, bytes]:
    """The notebook, and the files beside it a kernel gets (the same cap and skips as a local run)."""
    files = {notebook.name: notebook.read_bytes()}
    for path in files_within(notebook.parent, budget, skip=notebook):
        files[str(path.relative_to(notebook.parent))] = path.read_bytes()
    return files


def write_files(folder: Path, files: dict[str, bytes]) -> None:
    """A submission's files, written under `folder` (a name that climbs out of it is skipped)."""
    folder.mkdir(parents=True, exist_ok=True)
    home = folder.resolve()
    for rel, data in files.items():
        target = (folder / rel).resolve()
        if home not in target.parents:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


#: The grading processes of this Dask worker process: started on its first task, as many as it has
#: threads, and ended with it.
_PROCESSES: Workers | None = None
_PROCESSES_LOCK = threading.Lock()


def _workspace() -> Path | None:
    """The Dask worker's own folder (its `local_directory`), or None outside a Dask worker. Dask
    removes it when the worker closes, and a killed worker's at the next start of a worker beside it,
    so what a task leaves there (even when its worker is killed mid-job) does not pile up."""
    try:
        from distributed import get_worker

        return Path(get_worker().local_directory)
    except (ImportError, ValueError, AttributeError):
        return None


def _processes() -> Workers:
    global _PROCESSES
    with _PROCESSES_LOCK:
        if _PROCESSES is None:
            try:
                from distributed import get_worker

                threads = get_worker().state.nthreads
            except (ImportError, ValueError, AttributeError):
                threads = 1
            # The pool's logs in the Dask worker's folder; its jobs' scratch folders stay in the
            # system's temporary folder, whose short path keeps the kernels' socket paths short.
            space = _workspace()
            folder = Path(tempfile.mkdtemp(prefix="jbj-dask-workers-", dir=space))
            if space is None:  # no Dask worker to clean up after us: remove it as this process ends
                atexit.register(shutil.rmtree, folder, ignore_errors=True)
            _PROCESSES = Workers(max(1, threads), folder)
        return _PROCESSES


def grade_task(payload: dict, solutions: dict[str, bytes], warm: Any) -> dict:
    """Runs on a Dask worker: grade one notebook as a local run would; return plain data."""
    try:
        from distributed import get_worker

        name = f"{socket.gethostname()} {get_worker().address}"
    except (ImportError, ValueError):
        name = socket.gethostname()
    # "refused": the worker cannot grade anything (not the notebook's fault).
    out: dict[str, Any] = {"worker": name, "executed": None, "warm": None, "refused": True}
    if payload["fingerprint"] != fingerprint():
        out["run"] = (KernelRun.failed(
            f"the worker {name} has different grading code, C++ sources or JAX than the instructor's machine; "
            "bring its course checkout to the same commit, run `make venv` there and restart its `dask worker`")
                      .to_dict())
        return out
    sandboxed = False
    notes = []
    if payload["sandbox"] != "off":
        here = sandbox.probe()
        sandboxed = here.sandboxed
        if not sandboxed and payload["sandbox"] == "require":
            out["run"] = KernelRun.failed(f"the worker {name} cannot make a sandbox: {here.reason}").to_dict()
            return out
        if not sandboxed:
            notes.append(f"graded WITHOUT a sandbox on the worker {name}: {here.reason}")
    out["refused"] = False
    chapter = payload["chapter"]
    with tempfile.TemporaryDirectory(prefix="jbj-dask-", dir=_workspace()) as tmp:
        tmp_path = Path(tmp)
        sources = tmp_path / "solutions"
        sources.mkdir()
        for ch, data in solutions.items():
            (sources / f"{ch}.ipynb").write_bytes(data)
        submission = tmp_path / "submission"
        write_files(submission, payload["files"])
        caches_home = Path(tempfile.gettempdir()) / f"jbj-dask-warm-{os.getuid()}"
        caches_home.mkdir(mode=0o700, exist_ok=True)
        seed = caches_home / f"{chapter}-{payload['key']}"
        if warm:
            unpack_caches(warm, seed)
        publish_to = tmp_path / "publish"
        executed = tmp_path / "job" / EXECUTED
        executed.parent.mkdir()
        spec = job_spec(payload["student"], chapter, submission / payload["notebook"],
                        {ch: sources / f"{ch}.ipynb" for ch in {*payload["known"], chapter}}, executed,
                        sandbox.Limits(**payload["limits"]), sandboxed, publish_to if payload["publish"] else seed,
                        payload["publish"])
        graded = run.grade_job(spec, executed.parent, _processes()).with_notes(*notes, first=True)
        out["run"] = graded.to_dict()
        if executed.exists():
            out["executed"] = executed.read_bytes()
        if payload["publish"] and publish_to.is_dir():
            out["warm"] = pack_caches(publish_to)
    return out


class Cluster:
    """The instructor's side: a client of the scheduler at `address`."""

    def __init__(self, address: str, timeout: str = "30s"):
        from distributed import Client

        try:
            self.client = Client(address, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError) as err:
            from grader.errors import CourseError

            raise CourseError(f"no Dask scheduler answers at {address} ({err}); start one with "
                              "`dask scheduler` and workers with `dask worker ADDRESS` (see the README, "
                              "\"Grading a big class\")") from None
        self.address = address

    def probe(self) -> sandbox.Probe:
        """Can every worker make a sandbox? (Each tries, by starting a kernel, once.)"""
        from grader.errors import CourseError

        try:
            self.client.wait_for_workers(1, timeout=120)
        except TimeoutError:
            raise CourseError(f"the Dask scheduler at {self.address} has no workers; start some with "
                              f"`dask worker {self.address}` on each grading machine") from None
        probes = self.client.run(sandbox.probe)
        without = {worker: p.reason for worker, p in probes.items() if not p.sandboxed}
        kinds = {p.cgroups for p in probes.values()}
        cgroups = kinds.pop() if len(kinds) == 1 else None
        if without:
            reason = "; ".join(f"{worker}: {why}" for worker, why in sorted(without.items()))
            return sandbox.Probe(False, f"{len(without)} of {len(probes)} Dask workers cannot make one ({reason})",
                                 cgroups)
        return sandbox.Probe(True, "", cgroups)

    def threads(self) -> int:
        """How many jobs the cluster runs at once (its workers' threads)."""
        return max(1, sum(self.client.nthreads().values()))

    def close(self) -> None:
        self.client.close()

    def lost_workers(self, key: str) -> int:
        """How many workers died while running the task `key` (the scheduler counts them)."""
        def count(dask_scheduler, key=key):
            task = dask_scheduler.tasks.get(key)
            return task.suspicious if task is not None else 0
        try:
            return int(self.client.run_on_scheduler(count))
        except Exception:  # the count is for the row's note: never worth a job
            return 0


class DaskRunner:
    """Grades the run stage's tasks (`run.run_jobs`) as tasks of the cluster: it submits each with what it
    needs (the submission's files; the solutions and a chapter's caches, sent once) and gathers what
    each gave, with which worker graded it and how many workers were lost on the way (`use`)."""

    #: A chapter's submissions wait for its reference, so that they start with the caches it made.
    waits_for_reference = True

    def __init__(self, cluster: Cluster, course: Path, known: list[str], sandbox_mode: str):
        self.cluster, self.client, self.known, self.sandbox_mode = cluster, cluster.client, known, sandbox_mode
        self.use = ClusterUse(cluster.address)
        self.mine = fingerprint()
        # One object holding every solution notebook, fetched by each worker once. Held by a task, not
        # scattered: a task's result lost with its worker is made again, scattered data is gone.
        self.solutions = self._held({ch: (course / "solutions" / ch / f"{ch}.ipynb").read_bytes() for ch in known},
                                    "solutions")
        self.caches: dict[Path, Any] = {}  # a chapter's caches folder -> the task that holds them, tarred
        self.number = 0

    def _held(self, value: Any, name: str):
        """`value` on the cluster, held for the whole run (the cluster keeps what a client holds)."""
        return self.client.submit(_same, value, key=f"{name}-{os.urandom(4).hex()}", pure=False, priority=20)

    def start(self, task: Task, done: Callable[[Callable[[], Graded]], None]) -> None:
        """Submit `task`; `done` is then called (from another thread) with a function that gathers it."""
        job = task.job
        warm = None
        if not job.reference and task.warm.is_dir():
            if task.warm not in self.caches:
                self.caches[task.warm] = self._held(pack_caches(task.warm), f"caches-{job.chapter}")
            warm = self.caches[task.warm]
        payload = {"student": job.student, "chapter": job.chapter, "notebook": job.notebook.name,
                   "files": submission_files(job.notebook), "known": [] if job.reference else self.known,
                   "key": task.key, "limits": asdict(task.limits), "sandbox": self.sandbox_mode,
                   "publish": task.publish, "fingerprint": self.mine}
        kind = f"reference-{job.chapter}" if job.reference else f"grade-{self.number:05d}"
        self.number += 0 if job.reference else 1
        future = self.client.submit(grade_task, payload, self.solutions, warm, key=f"{kind}-{os.urandom(4).hex()}",
                                    priority=10 if job.reference else 0, pure=False)
        future.add_done_callback(lambda f: done(lambda: self._gather(task, f)))

    def _gather(self, task: Task, future) -> Graded:
        lost = self.cluster.lost_workers(future.key)
        try:
            out = future.result()
        except Exception as err:  # KilledWorker, or the task could not start at all
            trace = "" if type(err).__name__ == "KilledWorker" else "".join(traceback.format_exception(err))[-4000:]
            out = {"run": KernelRun.failed(_cluster_failure(err, lost), trace).to_dict(), "worker": None,
                   "executed": None, "warm": None}
        future.release()  # its result is copied out: the cluster can forget it
        result = run_from(out["run"])
        worker = out.get("worker")
        if worker:
            self.use.workers[worker] = self.use.workers.get(worker, 0) + 1
        if lost and worker:
            self.use.retried[task.label] = lost
            result = result.with_notes(f"the Dask worker grading it was lost {lost} time{'s' if lost > 1 else ''}; "
                                       f"it was graded again, on {worker}")
        return Graded(result, out.get("executed"), out.get("warm"), bool(out.get("refused")), worker)

    def close(self) -> None:
        self.cluster.close()


def _same(value: Any) -> Any:
    return value


def _cluster_failure(err: BaseException, lost: int) -> str:
    name = type(err).__name__
    if name == "KilledWorker":
        return (f"every Dask worker that ran this submission died ({lost or 'several'} times; Dask's "
                "allowed-failures); grade it again alone to see why")
    return f"the Dask cluster could not run this job ({name}: {str(err)[:200]})"
