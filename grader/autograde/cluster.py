"""Stage 3 on a Dask cluster: each notebook's run is a Dask task on one of the cluster's workers.

`grader autograde --scheduler tcp://HOST:PORT` gives the *run* stage to a Dask distributed
cluster; intake, judging, the gradebook and the reports stay on the instructor's machine.

What travels: a task carries the submission's files (the notebook and what sits beside it, capped
as a local run caps them) and a fingerprint of the grading code; the solution notebooks are sent
to each worker once. The worker writes them to a private folder, grades in a process of its own
exactly as a local run does (`python -m grader.autograde.worker`, sandboxed by the worker host's
bubblewrap, the same limits), and returns the result, the executed notebook and the name of the
worker. A worker host therefore needs the course checkout with its venv (`make venv`), at the
same grading code and JAX as the instructor's (checked: a worker that differs refuses the job and
the row says why), and bubblewrap.

Each chapter's reference solution runs first; its records come back to be judged against, and
the caches its public cells made (C++ builds, JAX compilations) travel with its result to the
workers that grade that chapter's submissions. A worker that dies mid-job (its machine lost, the
process killed) costs nothing: the scheduler gives the job to another worker, and the row says
it was graded again. A job that kills every worker it runs on fails after Dask's
`distributed.scheduler.allowed-failures` attempts, with a row that says so.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import traceback
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from grader.autograde import sandbox
from grader.autograde.jobs import Job, KernelRun
from grader.autograde.launch import die_with_parent
from grader.autograde.run import (accept_reference, cached_references, generous, job_spec, read_result,
                                  reference_key, run_from)
from grader.autograde.worker import MAX_COPY_BYTES, cap_job_memory, files_within, notebook_too_large
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


def _tar(folder: Path) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path in sorted(folder.iterdir()):
            tar.add(path, arcname=path.name)
    return buffer.getvalue()


def _untar_once(data: bytes, target: Path) -> None:
    """Unpack a chapter's caches where this worker's jobs read them: whole or not at all."""
    if target.is_dir():
        return
    staging = target.with_name(f"{target.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        tar.extractall(staging, filter="data")
    try:
        os.rename(staging, target)
    except OSError:  # another thread of this worker was first
        shutil.rmtree(staging, ignore_errors=True)


def _job_process_setup() -> None:
    """In the grading process before it starts (after fork: no imports, no locks): the same memory
    cap as a local run, and death with the worker thread that started it, so a killed worker
    leaves no job running."""
    cap_job_memory()
    die_with_parent()


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
    with tempfile.TemporaryDirectory(prefix="jbj-dask-") as tmp:
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
            _untar_once(warm, seed)
        publish_to = tmp_path / "publish"
        executed = tmp_path / "executed.ipynb"
        spec = job_spec(payload["student"], chapter, submission / payload["notebook"],
                        {ch: sources / f"{ch}.ipynb" for ch in {*payload["known"], chapter}}, executed,
                        sandbox.Limits(**payload["limits"]), sandboxed, publish_to if payload["publish"] else seed,
                        payload["publish"])
        job_path, result_path, log_path = (tmp_path / n for n in ("job.json", "result.json", "log"))
        job_path.write_text(json.dumps(spec.to_dict()))
        deadline = payload["limits"]["notebook_seconds"] + 120
        with log_path.open("w") as log:
            process = subprocess.Popen([sys.executable, "-m", "grader.autograde.worker", str(job_path), str(result_path)],
                                       stdin=subprocess.DEVNULL, stdout=log, stderr=log, cwd=tmp_path,
                                       preexec_fn=_job_process_setup, start_new_session=True)
            try:
                status: int | str = process.wait(timeout=deadline)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                status = f"grading did not finish within {deadline:g} s"
        run = read_result(result_path, status, log_path).with_notes(*notes, first=True)
        out["run"] = run.to_dict()
        if executed.exists():
            out["executed"] = executed.read_bytes()
        if payload["publish"] and publish_to.is_dir():
            out["warm"] = _tar(publish_to)
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


def run_all(course: Path, jobs: list[Job], known: list[str], cluster: Cluster, limits: sandbox.Limits,
            sandbox_mode: str, cache_dir: Path, step: Callable[[str], None] = lambda label: None
            ) -> tuple[dict[tuple[str, str], KernelRun], dict, dict, ClusterUse]:
    """As `run.run_all`, on the cluster; also what the cluster did.

    A chapter whose reference must run sends its submissions once the reference is back, with the
    caches it made copied to every worker; the other chapters' submissions start at once."""
    from distributed import as_completed

    client = cluster.client
    wanted = sorted({job.chapter for job in jobs})
    keys = {ch: reference_key(course, ch) for ch in wanted}
    references, todo = cached_references(wanted, keys, cache_dir)
    errors: dict[str, str] = {}
    use = ClusterUse(cluster.address)
    runs: dict[tuple[str, str], KernelRun] = {}
    mine = fingerprint()
    # One object holding every solution notebook, fetched by each worker once. Held by a task, not
    # scattered: a task's result lost with its worker is made again, scattered data is gone.
    solutions = client.submit(_same, {ch: (course / "solutions" / ch / f"{ch}.ipynb").read_bytes() for ch in known},
                              key=f"solutions-{os.urandom(4).hex()}", pure=False, priority=20)
    shipped = [solutions]  # held until the end: the cluster keeps what a client holds
    futures: dict = {}
    waiting = {chapter for chapter, _ in todo}

    def payload(job: Job, chapter_limits: sandbox.Limits, publish: bool) -> dict:
        return {"student": job.student, "chapter": job.chapter, "notebook": job.notebook.name,
                "files": submission_files(job.notebook), "known": known, "key": keys[job.chapter],
                "limits": asdict(chapter_limits), "sandbox": sandbox_mode, "publish": publish, "fingerprint": mine}

    def send(chapter: str, warm_bytes: bytes | None) -> list:
        if chapter in errors:  # its reference failed: every row of it says so, nothing to run
            for job in jobs:
                if job.chapter == chapter:
                    step(f"{job.student}/{job.chapter}")
            return []
        warm = None
        if warm_bytes:
            warm = client.submit(_same, warm_bytes, key=f"caches-{chapter}-{os.urandom(4).hex()}", pure=False,
                                 priority=20)
            shipped.append(warm)
        sent = []
        for number, job in enumerate(jobs):
            if job.chapter != chapter:
                continue
            too_large = notebook_too_large(job.notebook)
            if too_large:  # not worth sending: it is refused as a local run refuses it
                runs[job.key] = KernelRun.failed(too_large)
                step(f"{job.student}/{job.chapter}")
                continue
            future = client.submit(grade_task, payload(job, limits, False), solutions, warm,
                                   key=f"grade-{number:05d}-{os.urandom(4).hex()}", pure=False)
            futures[future] = ("submission", job, None)
            sent.append(future)
        return sent

    for chapter, cached in todo:
        ref = Job("(reference)", chapter, course / "solutions" / chapter / f"{chapter}.ipynb", reference=True)
        publish = not (cache_dir / f"warm-{chapter}-{keys[chapter]}").exists()
        future = client.submit(grade_task, payload(ref, generous(limits), publish), solutions, None,
                               key=f"reference-{chapter}-{os.urandom(4).hex()}", priority=10, pure=False)
        futures[future] = ("reference", chapter, cached)
    pending = as_completed(list(futures), loop=client.loop)
    for chapter in wanted:
        if chapter not in waiting:
            local_warm = cache_dir / f"warm-{chapter}-{keys[chapter]}"
            pending.update(send(chapter, _tar(local_warm) if local_warm.is_dir() else None))
    for future in pending:
        kind, what, cached = futures.pop(future)
        label = f"reference {what}" if kind == "reference" else f"{what.student}/{what.chapter}"
        lost = cluster.lost_workers(future.key)
        try:
            out = future.result()
        except Exception as err:  # KilledWorker, or the task could not start at all
            trace = "" if type(err).__name__ == "KilledWorker" else "".join(traceback.format_exception(err))[-4000:]
            out = {"run": KernelRun.failed(_cluster_failure(err, lost), trace).to_dict(),
                   "worker": None, "executed": None, "warm": None}
        future.release()  # its result is copied out: the cluster can forget it
        run = run_from(out["run"])
        if out.get("worker"):
            use.workers[out["worker"]] = use.workers.get(out["worker"], 0) + 1
        if lost and out.get("worker"):
            use.retried[label] = lost
            run = run.with_notes(f"the Dask worker grading it was lost {lost} time{'s' if lost > 1 else ''}; "
                                 f"it was graded again, on {out['worker']}")
        if kind == "reference":
            if out.get("refused"):
                errors[what] = run.reason
            else:
                accept_reference(what, cached, run, references, errors)
            local_warm = cache_dir / f"warm-{what}-{keys[what]}"
            if out.get("warm") and not local_warm.exists():
                _untar_once(out["warm"], local_warm)  # the next run ships these without a reference run
            step(label)
            pending.update(send(what, _tar(local_warm) if local_warm.is_dir() else None))
            continue
        runs[what.key] = run
        if out.get("executed") is not None:
            target = course / "autograded" / what.student / what.chapter / f"{what.chapter}.ipynb"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(out["executed"])
        step(label)
    return runs, references, errors, use


def _same(value: Any) -> Any:
    return value


def _cluster_failure(err: BaseException, lost: int) -> str:
    name = type(err).__name__
    if name == "KilledWorker":
        return (f"every Dask worker that ran this submission died ({lost or 'several'} times; Dask's "
                "allowed-failures); grade it again alone to see why")
    return f"the Dask cluster could not run this job ({name}: {str(err)[:200]})"
