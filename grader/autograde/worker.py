"""Grade one submission in its own process: prepare, run sandboxed, collect the records.

`python -m grader.autograde.worker JOB.json RESULT.json [SCRATCH]` reads the job, writes RESULT.json
(and the executed notebook) and exits 0 — also when the submission is broken, which the result then
says. The kernel's folder goes in SCRATCH (an empty folder the caller removes) if given.

`python -m grader.autograde.worker --serve` is how the run stage (`grader.autograde.run`) uses it: a worker that has
imported the grading code once reads jobs, one JSON line each, from stdin, and forks a fresh
process per job, so each submission still runs in a process of its own without paying again
for Python and the notebook libraries to start (about two seconds). For each job it answers
one line with that process's exit status. A crash costs one submission, never the batch.

Each job's process may use at most `JOB_MEMORY_BYTES` of address space; the environment variable
JBJ_JOB_MEMORY_BYTES (a number of bytes, read as each job's process starts) sets another cap, as
the tests do to reach it cheaply.
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import resource
import shutil
import sys
import tempfile
import traceback
from pathlib import Path

from grader.course import skip_unused_schema_formats

skip_unused_schema_formats()  # before nbformat: each grading worker imports it once

import nbformat  # noqa: E402

from grader.autograde import kernel as runner, sandbox, zygote
from grader.autograde.jobs import CACHES, SEALED_JAX_CACHE, JobSpec, KernelRun
from grader.autograde.launch import die_with_parent
from grader.notebook import record
from grader.course import read_notebook
from grader.errors import CourseError
from grader.autograde.prepare import looks_like, prepare, too_big
from grader.notebook.record import cell_record

#: Files a submission folder may hold besides the notebook that are copied for its kernel.
MAX_COPY_BYTES = 64 << 20

#: A notebook file larger than this is not read (a notebook built to exhaust the grader's memory).
MAX_NOTEBOOK_BYTES = 64 << 20

#: The address space of the process grading one submission (it holds the notebook and its outputs).
JOB_MEMORY_BYTES = 6 << 30


def notebook_too_large(path: Path) -> str | None:
    """Why a notebook file is not read at all (its size), or None."""
    size = path.stat().st_size if path.is_file() else 0
    if size > MAX_NOTEBOOK_BYTES:
        # Rounded up to a tenth: a file just over the limit must not read as "64 MiB, more than the 64 MiB".
        mib = math.ceil(size * 10 / (1 << 20)) / 10
        return f"the notebook file is {mib:g} MiB, more than the {MAX_NOTEBOOK_BYTES >> 20} MiB a notebook may have"
    return None


def job_memory_bytes() -> int:
    """The address-space cap of a job's process: JBJ_JOB_MEMORY_BYTES if set, else `JOB_MEMORY_BYTES`."""
    value = os.environ.get("JBJ_JOB_MEMORY_BYTES", "").strip()
    return int(value) if value else JOB_MEMORY_BYTES


def cap_job_memory() -> None:
    """In a job's process, before it grades: lower its address space to the cap (`job_memory_bytes`).
    Only the soft limit: the hard one stays as it was, so that the kernel's launcher can still give
    the kernel the memory its limits ask for (more than this cap, perhaps). Safe between fork and
    exec (no imports, no locks)."""
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = job_memory_bytes() if hard == resource.RLIM_INFINITY else min(job_memory_bytes(), hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))


def out_of_memory(cap: int | None, how: str = "MemoryError") -> str:
    """The reason, in one line with what to do, of a job whose grading process ran out of memory
    (`cap`: its address-space cap in bytes, None if unknown; `how`: what the process said)."""
    limit = f"; its address space is capped at {cap >> 20} MiB" if cap else ""
    return (f"the grading process ran out of memory ({how}{limit}) reading, preparing or running this notebook: "
            "if the notebook holds much data or output, ask for it with its outputs cleared; otherwise raise "
            "the cap (JBJ_JOB_MEMORY_BYTES)")


#: The exit status of a grading process that could not write its result because the grader's disk was full.
DISK_FULL_STATUS = 75


def disk_full(err: OSError) -> str | None:
    """The reason, in one line with what to do, of a job that met a full disk on the grader's side (its own
    files, not the kernel's: nothing a kernel writes reaches the grader's disk); None for another error."""
    if err.errno not in (errno.ENOSPC, errno.EDQUOT):
        return None
    return (f"the grader's disk was full ({err.strerror}): this submission was not graded, through no fault of "
            "its own; free space where the grader keeps its files (its temporary folder and the course folder) "
            "and grade it again")


def write_whole(path: Path, data: bytes | str) -> None:
    """Write `path` whole or not at all: into a file beside it, renamed over it once complete (removed if the
    write fails, on a full disk say)."""
    staging = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(staging, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        os.replace(staging, path)
    except BaseException:
        staging.unlink(missing_ok=True)
        raise


def grade(job: dict | JobSpec) -> dict:
    """`grade_spec` for a job given as its JSON's data; the result as plain data (`KernelRun.to_dict`)."""
    return grade_spec(job if isinstance(job, JobSpec) else JobSpec.from_dict(job)).to_dict()


def grade_spec(spec: JobSpec, scratch: Path | None = None) -> KernelRun:
    """Run one notebook (a submission, or a chapter's reference) in its sandboxed kernel, and read
    what each of its test cells recorded. The executed notebook goes to `spec.executed`.

    The kernel's folder and the grader's settings for it go in `scratch`, an empty folder that the
    caller removes (`run.Workers` does, even when it kills the job); without it, in a temporary
    folder removed on return."""
    source = read_notebook(spec.source)
    too_large = notebook_too_large(spec.notebook)
    if too_large:
        return KernelRun.failed(too_large)
    try:
        submitted = read_notebook(spec.notebook)
    except CourseError as err:
        # The reason is for the instructor's table: the file's name, not the path on the grading machine.
        path = spec.notebook
        return KernelRun.failed(str(err).splitlines()[0].replace(str(path), path.name).split(". If you")[0])
    if not looks_like(submitted, source):
        others = [ch for ch, path in spec.other_sources.items() if looks_like(submitted, read_notebook(path))]
        return KernelRun.failed(f"this is a notebook of {others[0]}, not of {spec.chapter}" if others
                                else f"none of {spec.chapter}'s test cells are in this notebook")
    if too_big(submitted):
        return KernelRun.failed(too_big(submitted))
    prepared = prepare(submitted, source)
    limits = spec.limits

    with contextlib.nullcontext(str(scratch)) if scratch else tempfile.TemporaryDirectory(prefix="jbj-") as tmp:
        tmp_path = Path(tmp)
        workdir, control = tmp_path / "w", tmp_path / "c"
        control.mkdir(mode=0o700)
        copy_submission_folder(spec.notebook.parent, workdir)
        targets = spec.publish_caches
        # Caches (C++ builds, JAX compilations) made by the grader's own runs: each kernel gets
        # a private copy, so nothing one submission writes can reach another. Where the kernel
        # cannot list a folder the grader seals (`seal_folder`), its JAX cache holds every
        # compilation of the reference run, else only those of the public cells.
        sealed = spec.seed_caches.get(SEALED_JAX_CACHE)
        sealed = sealed if sealed is not None and sealed.is_dir() and can_seal(spec.sandboxed, private=not targets) \
            else None
        for name, seed in spec.seed_caches.items():
            if name == ".jax-cache" and sealed is not None:
                seal_folder(sealed, workdir / name)
            elif name in CACHES and seed.is_dir():
                remove_path(workdir / name)  # the grader's name: what a submission put there goes
                shutil.copytree(seed, workdir / name)
        os.chmod(workdir, 0o777)
        published = []

        def publish() -> None:
            # Called before the first answer or test cell runs: so far only public cells have.
            published.append(True)
            for name, target in targets.items():
                if name in CACHES and (workdir / name).is_dir():
                    publish_folder(workdir / name, target)

        first = next((i for i, cell in enumerate(prepared.nb.cells) if cell.cell_type == "code" and (
            cell.metadata.get("nbgrader", {}).get("solution") or cell.metadata.get("nbgrader", {}).get("grade"))),
            None)
        hooks = {first: publish} if targets and first is not None else {}
        # A submission writes to a size-limited private copy of its folder; the reference run
        # writes where the grader can take its caches from.
        # The worker's zygote, if it started one (`serve`): the kernel is forked with JAX imported.
        forks = zygote.shared(start_one=False) if spec.sandboxed else None
        run = runner.run(prepared.nb, workdir, limits, sandboxed=spec.sandboxed, control=control,
                         before_cell=hooks, private=not targets, zygote=forks.socket if forks else None)
        if targets and not published and (first is None or run.stopped_at is None or run.stopped_at < first):
            publish()  # no answer or test cell ran at all
        if SEALED_JAX_CACHE in targets and (workdir / ".jax-cache").is_dir():
            publish_folder(workdir / ".jax-cache", targets[SEALED_JAX_CACHE])  # now with every cell's

    # Which of the reference's JAX compilations the kernel started with (the report counts them).
    if targets:
        compilations = "reference"  # the reference run makes them
    elif sealed is not None:
        compilations = "sealed"
    else:
        public = spec.seed_caches.get(".jax-cache")
        compilations = "public" if public is not None and public.is_dir() else "none"

    nb = run.nb
    notes = [*prepared.notes, *run.notes]
    if any("No space left on device" in str(out.get("evalue", "")) + str(out.get("text", ""))
           for cell in nb.cells for out in cell.get("outputs", [])):
        notes.append(f"the submission wrote more than its disk budget ({limits.disk_bytes >> 20} MiB "
                     "in its folder, and as much in /tmp); the writes beyond it failed")
    for index in run.timed_out:
        notes.append(f"{_describe(nb.cells[index], index)} ran longer than the time limit "
                     f"({limits.cell_seconds:g} s) and was interrupted")
    stopped_cell = _describe(nb.cells[run.stopped_at], run.stopped_at) if run.reason and run.stopped_at is not None \
        else None
    records = {}
    for index, cell in enumerate(nb.cells):
        gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if gid in prepared.original_sources and cell.metadata.nbgrader.get("grade"):
            rec, why = cell_record(cell)
            if rec is None and run.reason and (run.stopped_at is None or index >= run.stopped_at):
                why = f"not graded: {run.reason}" + ("" if run.stopped_at is None or index == run.stopped_at
                                                     else f" in cell {run.stopped_at}, before this one ran")
            if index in run.timed_out:
                why = "this cell ran longer than the time limit and was interrupted"
            if rec is None and index in run.progress and (index in run.timed_out or index == run.stopped_at):
                why += f"\nwhere: {run.progress[index]}"
            records[gid] = {"record": rec, "why": why}
            # Feedback shows the instructor's cell as written, without the record output.
            cell.source = prepared.original_sources[gid]
            cell.outputs = [o for o in cell.outputs if not (o.get("output_type") == "display_data"
                                                           and record.MIME in o.get("data", {}))]
    spec.executed.parent.mkdir(parents=True, exist_ok=True)
    write_whole(spec.executed, nbformat.writes(nb))
    return KernelRun(reason=run.reason, notes=notes, records=records, missing=prepared.missing,
                     stopped_at=run.stopped_at, stopped_cell=stopped_cell, timed_out=run.timed_out,
                     truncated=run.truncated, flagged=prepared.flagged,
                     applied={**run.applied, "compilations": compilations} if run.applied else run.applied,
                     seconds=round(run.seconds, 2))


def publish_folder(src: Path, dst: Path) -> None:
    """Copy a cache folder to where later jobs read it, whole or not at all: it is filled under
    another name, then renamed (one reference run per chapter publishes, once)."""
    staging = dst.with_name(f"{dst.name}.{os.getpid()}.tmp")
    try:
        shutil.copytree(src, staging)
    except BaseException:  # a full disk, say: nothing half-copied is left where a job could take it
        shutil.rmtree(staging, ignore_errors=True)
        raise
    try:
        os.rename(staging, dst)
    except OSError:  # already there, from an earlier run with the same key: keep that one
        shutil.rmtree(staging, ignore_errors=True)


def can_seal(sandboxed: bool, private: bool) -> bool:
    """Can a kernel be given a folder it cannot list? Only a sandboxed kernel in a private folder whose
    user is not the grader's: the grader is root, the kernel `nobody`. (Without root the kernel runs
    as the grader's own user, who owns the folder and may make it readable again.)"""
    return sandboxed and private and sandbox.runs_as_root()


def seal_folder(src: Path, dst: Path) -> None:
    """Copy the files of `src` to `dst` (replacing whatever the submission put there) so that the
    kernel's user can open each one by its name but not list them: the folder is root's, mode
    d-wx-wx-wt (search and add, not read; the sticky bit keeps root's files from being removed or
    renamed), its files root's and read-only. A JAX cache there gives a kernel the entry of each
    program it compiles itself (a file's name is the jitted function's name and a hash of its
    program) and still takes the kernel's own. `launch.enter_folder` keeps it root's when it hands the folder over."""
    remove_path(dst)
    dst.mkdir()
    for entry in os.scandir(src):
        if entry.is_file(follow_symlinks=False):
            shutil.copyfile(entry.path, dst / entry.name)
            os.chmod(dst / entry.name, 0o444)
    os.chmod(dst, 0o1333)


def remove_path(path: Path) -> None:
    """Remove a file, symlink or folder, if there is one."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.is_symlink() or path.exists():
        path.unlink()


def files_within(folder: Path, budget: int = MAX_COPY_BYTES, skip: Path | None = None) -> list[Path]:
    """The files of a submission's folder a kernel gets: in name order while `budget` bytes last (a
    file too big for what is left is passed over); symlinks and `skip` left out."""
    chosen = []
    for path in sorted(folder.rglob("*")):
        if path.is_symlink() or not path.is_file() or path == skip:
            continue
        size = path.stat().st_size
        if size > budget:
            continue
        budget -= size
        chosen.append(path)
    return chosen


def copy_submission_folder(src: Path, dst: Path) -> None:
    """The submission's own folder (notebook and any files beside it), size-capped; symlinks skipped."""
    dst.mkdir()
    for path in files_within(src):
        target = dst / path.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    for folder in [dst, *[p for p in dst.rglob("*") if p.is_dir()]]:
        os.chmod(folder, 0o777)


def _describe(cell, index: int) -> str:
    first = next((line for line in cell.get("source", "").splitlines() if line.strip()), "")
    return f"cell {index}: {first[:80]}"


def job_process_setup() -> None:
    """In a job's process, first (after fork: no imports, no locks): its memory cap, and death with the
    worker that forked it, so that a killed worker leaves no job running."""
    cap_job_memory()
    die_with_parent()


def serve(stdin=sys.stdin, stdout=sys.stdout) -> int:
    """Fork one process per job line ({"job", "result", "log"} paths, and the job's "scratch" folder
    when the caller made one); answer {"exit": status}. For sandboxed jobs, a zygote forks each kernel with
    JAX and ipykernel imported (`grader.autograde.zygote`): one per kernel, started with its job."""
    for line in stdin:
        paths = json.loads(line)
        try:
            sandboxed = json.loads(Path(paths["job"]).read_text()).get("sandboxed", False)
        except (OSError, ValueError, AttributeError):
            sandboxed = False  # the job's own process says what is wrong with its file
        if sandboxed:  # a zygote that has given no kernel yet, importing while the job prepares; the job inherits it
            zygote.shared()
        pid = os.fork()
        if pid == 0:  # the job's own process: nothing of it reaches the worker's pipes
            code = 1
            try:
                job_process_setup()
                null = os.open(os.devnull, os.O_RDONLY)
                log = os.open(paths["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                os.dup2(null, 0)
                os.dup2(log, 1)
                os.dup2(log, 2)
                code = main([paths["job"], paths["result"], *([paths["scratch"]] if "scratch" in paths else [])])
            except BaseException:
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        stdout.write(json.dumps({"exit": os.waitstatus_to_exitcode(status)}) + "\n")
        stdout.flush()
    forks = zygote.shared(start_one=False)
    if forks:
        forks.stop()
    return 0


def main(argv: list[str]) -> int:
    """Grade the job in the file argv[0]; write its `KernelRun` as JSON to argv[1] (a failed one, with
    the traceback, when the grader itself fails). argv[2], if given, is its scratch folder (`grade_spec`)."""
    job_path, result_path = Path(argv[0]), Path(argv[1])
    scratch = Path(argv[2]) if len(argv) > 2 else None
    job = json.loads(job_path.read_text())
    try:
        result = grade_spec(JobSpec.from_dict(job), scratch)
    except MemoryError:  # its own reason: "the grader failed" would read as a bug of ours
        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        result = KernelRun.failed(out_of_memory(None if soft == resource.RLIM_INFINITY else soft),
                                  traceback.format_exc()[-4000:])
    except Exception as err:  # never silent: the parent reports this submission as failed, with the reason
        full = disk_full(err) if isinstance(err, OSError) else None
        why = full or f"the grader failed on this submission ({type(err).__name__}: {str(err)[:300]})"
        result = KernelRun.failed(why, traceback.format_exc()[-4000:])
    try:
        write_whole(result_path, json.dumps(result.to_dict()))
    except OSError as err:  # the parent reads the status: `run.read_result`
        print(f"the result could not be written: {err}", file=sys.stderr)
        return DISK_FULL_STATUS if disk_full(err) else 1
    return 0


if __name__ == "__main__":
    sys.exit(serve() if sys.argv[1:] == ["--serve"] else main(sys.argv[1:]))
