"""Grade a class: every submission sandboxed, in parallel, judged outside its kernel, none lost.

The pipeline, in order:
1. import an LMS download, if given, into submitted/<student>/<chapter>/ (`grader.intake`);
2. record each chapter's assignment in the gradebook (nbgrader generate_assignment);
3. run the reference solution of each chapter and every submission (the reference first in the
   queue), each in a process of its own, forked by one of a few long-lived workers, and in a
   sandboxed kernel (`grader.grade_one`), as many at a time as there are workers; meanwhile
   step 2 runs in the background at a lower priority. Kernels start from the C++ builds and
   JAX compilations the reference made before its first answer cell (public cells only);
4. judge each test cell by comparing the submission's record with the reference's (`grader.verdict`);
5. write the gradebook (nbgrader's SQLite record), the autograded notebooks, HTML feedback,
   grades.csv with a status per submission, and a report of what happened to each one.
"""

from __future__ import annotations

import csv
import hashlib
import importlib
import json
import os
import queue
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from grader.course import (cell_title, chapters as list_chapters, grade_cells, read_notebook,
                           run_nbgrader, skip_unused_schema_formats)

skip_unused_schema_formats()  # before nbformat, which the gradebook and the feedback need

import nbformat  # noqa: E402

from grader import sandbox  # noqa: E402
from grader.errors import CourseError  # noqa: E402
from grader.verdict import judge  # noqa: E402

REFERENCE = "__reference__"


@dataclass
class Row:
    """What happened to one submission: the line of grades.csv and of the report."""

    student: str
    chapter: str
    status: str  # "graded", "incomplete: <why>" or "failed: <why>"
    score: float | None
    max_score: float
    timestamp: str = ""
    late_seconds: float | None = None
    exercises: dict[str, tuple[float, float, str]] = field(default_factory=dict)  # gid -> (points, max, message)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0


@dataclass
class Summary:
    rows: list[Row]
    sandboxed: bool
    sandbox_reason: str
    cgroups: str | None
    report: Path
    grades_csv: Path
    seconds: float


def autograde(course: Path, chapters: list[str] | None = None, *, workers: int | None = None,
              limits: sandbox.Limits = sandbox.Limits(), students: list[str] | None = None,
              require_sandbox: bool = False, use_sandbox: bool = True, feedback: bool = True,
              progress: bool = True, reference_cache: Path | None = None) -> Summary:
    """Grade what is in `course`/submitted (for `chapters`, default: every chapter with submissions).

    Reference records are cached in `reference_cache` (default: `course`/.grader)."""
    started = time.monotonic()
    course = Path(course).resolve()
    known = list_chapters(course)
    if not known:
        raise CourseError(f"{course} has no solutions/<chapter>/<chapter>.ipynb: run this in the course folder")
    submitted = course / "submitted"
    if not submitted.is_dir():
        raise CourseError(f"nothing to grade: {submitted} does not exist (collect submissions first, or pass --from)")
    unknown = sorted(set(chapters or []) - set(known))
    if unknown:
        raise CourseError(f"unknown chapter(s): {', '.join(unknown)}; the chapters are: {', '.join(known)}")
    workers = max(1, workers or os.cpu_count() or 1)

    with tempfile.TemporaryDirectory(prefix="jbj-grade-") as tmp:
        # Started first: they import the grading code while the rest gets ready.
        processes = _Workers(workers, Path(tmp))
        try:
            probe = sandbox.probe()
            if require_sandbox and not probe.sandboxed:
                raise CourseError(f"no sandbox can be made here: {probe.reason}")
            if not use_sandbox:
                probe = sandbox.Probe(False, "turned off with --no-sandbox", probe.cgroups)
            found = _discover(submitted, known, chapters, students)
            rows, jobs = _grade_all(course, known, found, Path(tmp), processes, limits, probe.sandboxed,
                                    workers, progress, reference_cache or course / ".grader")
        finally:
            processes.close()

    rows.sort(key=lambda r: (r.chapter, r.student))
    _keep_exchange_files(course, rows)
    _write_gradebook(course, [r for r in rows if r.score is not None], jobs)
    if feedback:
        _feedback(course, rows)
    grades_csv = _write_csv(course / "grades.csv", rows)
    report = _write_report(course / "autograde-report.md", rows, probe, limits, workers, time.monotonic() - started)
    return Summary(rows, probe.sandboxed, probe.reason, probe.cgroups, report, grades_csv, time.monotonic() - started)


def _grade_all(course: Path, known: list[str], found: list[dict], tmp: Path, processes: "_Workers",
               limits: sandbox.Limits, sandboxed: bool, workers: int, progress: bool,
               cache_dir: Path) -> tuple[list[Row], list[dict]]:
    """Run and judge every submission found; a row for each, and the jobs that ran."""
    wanted = sorted({s["chapter"] for s in found if s["chapter"] in known})
    rows: list[Row] = [Row(s["student"], s["chapter"], f"failed: {s['problem']}", None, 0.0)
                       for s in found if s.get("problem")]
    jobs = [s for s in found if not s.get("problem")]
    (course / ".grader").mkdir(exist_ok=True)
    # nbgrader records the assignments in the gradebook while the notebooks run: nothing
    # before the gradebook is written needs them (points come from the solution notebooks).
    recording = ThreadPoolExecutor(max_workers=1)
    recorded = recording.submit(_record_assignments, course, wanted)
    max_points = {ch: _points(course, ch) for ch in wanted}
    for row in rows:
        row.max_score = sum(p for p, _ in max_points.get(row.chapter, {}).values())

    keys = {ch: _reference_key(course, ch) for ch in wanted}
    references, todo = _cached_references(wanted, keys, cache_dir)
    warm = {ch: cache_dir / f"warm-{ch}-{keys[ch]}" for ch in wanted}
    bar = _Progress(len(jobs) + len(todo), enabled=progress)
    results: dict[tuple[str, str], dict] = {}
    # The reference runs go first in the queue; nothing waits for them: nothing is judged until
    # every run is over, and a submission that starts before its chapter's caches are warm (see
    # `_run_job`) just compiles for itself.
    with ThreadPoolExecutor(max_workers=workers) as pool:
        reference_runs = {pool.submit(_run_reference, course, chapter, tmp, limits, sandboxed, processes,
                                      warm[chapter]): (chapter, cached) for chapter, cached in todo}
        runs = {pool.submit(_run_job, course, sub, tmp, limits, sandboxed, known, processes,
                            warm[sub["chapter"]]): sub for sub in jobs}
        for future in as_completed([*reference_runs, *runs]):
            if future in reference_runs:
                chapter, cached = reference_runs[future]
                _accept_reference(chapter, cached, future.result(), references)
                bar.step(f"reference {chapter}")
            else:
                sub = runs[future]
                results[(sub["student"], sub["chapter"])] = future.result()
                bar.step(f"{sub['student']}/{sub['chapter']}")
    bar.done()
    recording.shutdown()
    recorded.result()  # a CourseError if nbgrader could not record a chapter
    due = _due_dates(course, wanted)
    for sub in jobs:  # read now: nbgrader's timestamp parser comes with its (slow) import
        sub["timestamp"], note = _timestamp(sub["folder"] / "timestamp.txt")
        sub["notes"] += [note] if note else []

    for sub in jobs:
        key = (sub["student"], sub["chapter"])
        most = sum(p for p, _ in max_points[sub["chapter"]].values())
        if sub["chapter"] not in references:
            rows.append(Row(*key, f"failed: {references['_errors'].get(sub['chapter'], 'no reference')}", None, most))
            continue
        try:
            rows.append(_row(sub, results[key], references[sub["chapter"]], max_points[sub["chapter"]],
                             due.get(sub["chapter"])))
        except Exception as err:  # a bug of ours must not cost the rest of the class their grades
            rows.append(Row(*key, f"failed: the grader could not judge this submission ({type(err).__name__}: "
                                  f"{str(err)[:200]}); please report it", None, most))
    return rows, jobs


# ---- discovery --------------------------------------------------------------------------

def _discover(submitted: Path, known: list[str], chapters: list[str] | None, students: list[str] | None) -> list[dict]:
    found = []
    for student_dir in sorted(p for p in submitted.iterdir() if p.is_dir() and not p.name.startswith(".")):
        if students and student_dir.name not in students:
            continue
        for folder in sorted(p for p in student_dir.iterdir() if p.is_dir() and not p.name.startswith(".")):
            chapter = folder.name
            if chapters and chapter not in chapters:
                continue
            sub = {"student": student_dir.name, "chapter": chapter, "folder": folder}
            notebook = folder / f"{chapter}.ipynb"
            if chapter not in known:
                sub["problem"] = f"{chapter!r} is not a chapter of this course"
            elif not notebook.is_file():
                others = sorted(p.name for p in folder.glob("*.ipynb"))
                sub["problem"] = (f"no {notebook.name} in the submission"
                                  + (f" (found {', '.join(others)}; rename it to {notebook.name})" if others else ""))
            sub["notebook"], sub["notes"] = notebook, []
            found.append(sub)
    return found


def _timestamp(path: Path) -> tuple[datetime | None, str]:
    from nbgrader.utils import parse_utc

    if not path.exists():
        return None, "no timestamp.txt: submission time unknown, treated as on time"
    text = path.read_text(errors="replace").strip()[:200]
    try:
        stamp = parse_utc(text)
        return (stamp.replace(tzinfo=timezone.utc) if stamp.tzinfo is None else stamp), ""
    except Exception:  # nbgrader's parser raises several kinds for garbage
        return None, f"timestamp.txt is unreadable ({text[:40]!r}): submission time unknown, treated as on time"


# ---- the gradebook ------------------------------------------------------------------------

def _db_url(course: Path) -> str:
    return f"sqlite:///{course / 'gradebook.db'}"


def _record_assignments(course: Path, chapters: list[str]) -> None:
    """Run alongside the grading, at a lower priority: record each chapter, then import the
    gradebook's API, so that neither waits in line after the last notebook."""
    try:  # Linux: the priority of this thread alone
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
    except (AttributeError, OSError):
        pass
    for chapter in chapters:
        _record_assignment(course, chapter)
    importlib.import_module("nbgrader.api")
    importlib.import_module("nbgrader.utils")


def _record_assignment(course: Path, chapter: str) -> None:
    """nbgrader generate_assignment into a scratch release folder: the gradebook learns the
    chapter's notebooks and graded cells; the course's own release folder is not touched."""
    with tempfile.TemporaryDirectory(prefix="jbj-release-") as release:
        proc = run_nbgrader(["generate_assignment", chapter, "--force", f"--CourseDirectory.root={course}",
                             f"--CourseDirectory.db_url={_db_url(course)}",
                             f"--CourseDirectory.release_directory={release}"], cwd=course, background=True)
    if proc.returncode != 0:
        lines = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
        raise CourseError(f"nbgrader generate_assignment {chapter} failed:\n  " + "\n  ".join(lines[-5:]))


def _points(course: Path, chapter: str) -> dict[str, tuple[float, str]]:
    nb = read_notebook(course / "solutions" / chapter / f"{chapter}.ipynb")
    return {c.metadata.nbgrader.grade_id: (float(c.metadata.nbgrader.points), cell_title(c).split(":")[0])
            for c in grade_cells(nb)}


def _due_dates(course: Path, chapters: list[str]) -> dict[str, datetime]:
    from nbgrader.api import Gradebook, MissingEntry

    due = {}
    with Gradebook(_db_url(course)) as gb:
        for chapter in chapters:
            try:
                assignment = gb.find_assignment(chapter)
            except MissingEntry:
                continue
            if assignment.duedate:
                due[chapter] = assignment.duedate.replace(tzinfo=timezone.utc)
    return due


def _write_gradebook(course: Path, rows: list[Row], jobs: list[dict]) -> None:
    from nbgrader.api import Gradebook

    import warnings

    stamps = {(j["student"], j["chapter"]): j.get("timestamp") for j in jobs}
    with Gradebook(_db_url(course)) as gb, warnings.catch_warnings():
        # nbgrader's own session handling makes SQLAlchemy warn on every new submission.
        warnings.simplefilter("ignore")
        for row in rows:
            gb.update_or_create_student(row.student)
            sub = gb.update_or_create_submission(row.chapter, row.student)
            stamp = stamps.get((row.student, row.chapter))
            if stamp is not None:
                sub.timestamp = stamp.astimezone(timezone.utc).replace(tzinfo=None)
            for gid, (points, _, _) in row.exercises.items():
                grade = gb.find_grade(gid, row.chapter, row.chapter, row.student)
                grade.auto_score = points
                grade.needs_manual_grade = False
            gb.db.commit()


# ---- running jobs -----------------------------------------------------------------------

class _Workers:
    """`n` long-lived `grade_one --serve` processes; each job runs in a process forked by one.

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
            worker = subprocess.Popen([sys.executable, "-m", "grader.grade_one", "--serve"],
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


def _run_job(course: Path, sub: dict, tmp: Path, limits: sandbox.Limits, sandboxed: bool, known: list[str],
             workers: _Workers, warm: Path, executed: Path | None = None, publish: bool = False) -> dict:
    """One submission in a process of its own; whatever happens to it, a result comes back.

    Its kernel starts with a copy of the caches in `warm` (C++ builds, JAX compilations) if they
    exist yet. With `publish` (the reference run), the caches as they are when its first answer
    or test cell starts are copied there: they hold only what the public cells before it made."""
    chapter, student = sub["chapter"], sub["student"]
    name = f"{student}-{chapter}-{hashlib.sha1(f'{student}/{chapter}'.encode()).hexdigest()[:8]}"
    job_path, result_path, log_path = (tmp / f"{name}.{kind}" for kind in ("job.json", "result.json", "log"))
    caches = {folder: str(warm / folder) for folder in (".build-cache", ".jax-cache")}
    job = {"student": student, "chapter": chapter, "notebook": str(sub["notebook"]),
           "source": str(course / "solutions" / chapter / f"{chapter}.ipynb"),
           "other_sources": {ch: str(course / "solutions" / ch / f"{ch}.ipynb") for ch in known if ch != chapter},
           "executed": str(executed or course / "autograded" / student / chapter / f"{chapter}.ipynb"),
           "limits": asdict(limits), "sandboxed": sandboxed,
           "seed_caches": {} if publish else caches, "publish_caches": caches if publish else {}}
    job_path.write_text(json.dumps(job))
    status = workers.run({"job": str(job_path), "result": str(result_path), "log": str(log_path)},
                         limits.notebook_seconds + 120)
    if result_path.exists():
        return json.loads(result_path.read_text())
    if isinstance(status, str):
        return {"status": "failed", "reason": status}
    log = log_path.read_text(errors="replace") if log_path.exists() else ""
    last = (log.strip().splitlines() or ["no message"])[-1][:300]
    return {"status": "failed", "reason": f"the grading process stopped with status {status}: {last}"}


def _reference_key(course: Path, chapter: str) -> str:
    from importlib.metadata import version

    h = hashlib.sha256()
    h.update((course / "solutions" / chapter / f"{chapter}.ipynb").read_bytes())
    for module in ("checks.py", "record.py", "verdict.py", "submission.py"):
        h.update((Path(__file__).parent / module).read_bytes())
    h.update(version("jax").encode())
    return h.hexdigest()[:16]


def _cached_references(chapters: list[str], keys: dict[str, str],
                       cache: Path) -> tuple[dict, list[tuple[str, Path]]]:
    """Each chapter's reference records, from the cache in .grader/ (keyed by the solution's
    content, the grading code and the JAX version); and the chapters whose solution must run."""
    out: dict = {"_errors": {}}
    todo = []
    for chapter in chapters:
        cached = cache / f"reference-{chapter}-{keys[chapter]}.json"
        if cached.exists():
            out[chapter] = json.loads(cached.read_text())
        else:
            todo.append((chapter, cached))
    return out, todo


def _generous(limits: sandbox.Limits) -> sandbox.Limits:
    return sandbox.Limits(**{**asdict(limits), "cell_seconds": max(limits.cell_seconds, 600),
                             "notebook_seconds": max(limits.notebook_seconds, 1800)})


def _run_reference(course: Path, chapter: str, tmp: Path, limits: sandbox.Limits, sandboxed: bool,
                   workers: _Workers, warm: Path) -> dict:
    """The solution notebook, run exactly like a submission (with generous time limits)."""
    sub = {"student": REFERENCE, "chapter": chapter, "notebook": course / "solutions" / chapter / f"{chapter}.ipynb"}
    return _run_job(course, sub, tmp, _generous(limits), sandboxed, [], workers, warm,
                    executed=tmp / f"reference-{chapter}.ipynb", publish=not warm.exists())


def _accept_reference(chapter: str, cached: Path, result: dict, out: dict) -> None:
    """Keep (and cache) a reference run's records if every test cell passed; else say why not."""
    bad = [gid for gid, r in result.get("records", {}).items() if not (r["record"] or {}).get("end") == "ok"]
    if result.get("status") != "graded" or result.get("reason") or bad or not result.get("records"):
        why = result.get("reason") or (f"cells {', '.join(bad)} did not pass" if bad else "no records")
        out["_errors"][chapter] = f"the reference solution of {chapter} did not grade cleanly ({why}); fix solutions/"
        return
    records = {gid: r["record"] for gid, r in result["records"].items()}
    cached.parent.mkdir(parents=True, exist_ok=True)
    tmp_file = cached.with_suffix(f".{os.getpid()}.tmp")
    tmp_file.write_text(json.dumps(records))
    os.replace(tmp_file, cached)
    out[chapter] = records


def _row(sub: dict, result: dict, reference: dict, points: dict[str, tuple[float, str]],
         due: datetime | None) -> Row:
    student, chapter = sub["student"], sub["chapter"]
    most = sum(p for p, _ in points.values())
    row = Row(student, chapter, "graded", None, most, notes=list(sub.get("notes", [])))
    stamp = sub.get("timestamp")
    if stamp is not None:
        row.timestamp = stamp.astimezone(timezone.utc).isoformat()
        if due is not None and stamp > due:
            row.late_seconds = (stamp - due).total_seconds()
            row.notes.append(f"late by {_duration(row.late_seconds)} (no penalty is applied; nbgrader's default)")
    row.seconds = float(result.get("seconds") or 0.0)
    row.notes += result.get("notes", [])
    if result.get("status") != "graded":
        row.status = f"failed: {result.get('reason') or 'unknown'}"
        return row
    total = 0.0
    for gid, (most_points, title) in points.items():
        entry = result.get("records", {}).get(gid)
        if gid in result.get("missing", []) or entry is None:
            row.exercises[gid] = (0.0, most_points, "its test cell was deleted from the notebook, so it scores 0; "
                                                    "copy the cell back from a fresh copy of the chapter")
            continue
        verdict = judge(title, reference[gid], entry["record"], entry.get("why", ""))
        got = most_points if verdict.passed else 0.0
        total += got
        row.exercises[gid] = (got, most_points, verdict.message)
    row.score = total
    if result.get("reason"):
        where = f" in {result['stopped_cell']}" if result.get("stopped_cell") else ""
        row.status = f"incomplete: {result['reason']}{where}; the cells after it scored 0"
    for index in result.get("truncated", []):
        row.notes.append(f"the output of cell {index} was cut at the size limit")
    return row


def _duration(seconds: float) -> str:
    days, rest = divmod(int(seconds), 86400)
    hours, rest = divmod(rest, 3600)
    return f"{days} d {hours} h" if days else f"{hours} h {rest // 60} min"


# ---- outputs ----------------------------------------------------------------------------

#: Files nbgrader's exchange puts beside a submission. As `nbgrader autograde` does, they are kept
#: beside the autograded notebook; generate_feedback copies them to feedback/, where
#: `nbgrader release_feedback` reads them to address each learner's feedback.
EXCHANGE_FILES = ("timestamp.txt", "submission_secret.txt")


def _keep_exchange_files(course: Path, rows: list[Row]) -> None:
    for row in rows:
        autograded = course / "autograded" / row.student / row.chapter
        if not autograded.is_dir():
            continue
        for name in EXCHANGE_FILES:
            source = course / "submitted" / row.student / row.chapter / name
            if not source.is_file() or source.is_symlink():
                continue
            # An unreadable timestamp would stop a later `nbgrader generate_feedback` (without
            # --force) for the whole chapter; it is reported in the row and not copied.
            if name == "timestamp.txt" and _timestamp(source)[0] is None:
                continue
            shutil.copyfile(source, autograded / name)


def _feedback(course: Path, rows: list[Row]) -> None:
    """Annotate each autograded notebook with its verdicts, then nbgrader generate_feedback."""
    for row in rows:
        path = course / "autograded" / row.student / row.chapter / f"{row.chapter}.ipynb"
        if row.score is None or not path.exists():
            continue
        nb = nbformat.read(path, as_version=4)
        for cell in grade_cells(nb):
            points, most, message = row.exercises.get(cell.metadata.nbgrader.grade_id, (0.0, 0.0, ""))
            text = f"Graded: {points:g} / {most:g}" + (f" — {message}" if message else " — all checks passed")
            cell.outputs.append(nbformat.v4.new_output("stream", name="stdout", text=text + "\n"))
        nbformat.write(nb, path)
    for chapter in sorted({r.chapter for r in rows if r.score is not None}):
        proc = run_nbgrader(["generate_feedback", chapter, "--force", f"--CourseDirectory.root={course}",
                             f"--CourseDirectory.db_url={_db_url(course)}"], cwd=course)
        if proc.returncode != 0:
            for row in rows:
                if row.chapter == chapter:
                    row.notes.append("HTML feedback could not be generated (see nbgrader generate_feedback)")


def _write_csv(path: Path, rows: list[Row]) -> Path:
    tmp = path.with_suffix(".tmp")
    with tmp.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student", "chapter", "status", "score", "max_score", "timestamp", "late_seconds", "notes"])
        for r in rows:
            w.writerow([r.student, r.chapter, r.status, "" if r.score is None else f"{r.score:g}", f"{r.max_score:g}",
                        r.timestamp, "" if r.late_seconds is None else f"{r.late_seconds:.0f}", "; ".join(r.notes)])
    os.replace(tmp, path)
    return path


def _write_report(path: Path, rows: list[Row], probe: sandbox.Probe, limits: sandbox.Limits, workers: int,
                  seconds: float) -> Path:
    lines = ["# Autograde report", ""]
    if probe.sandboxed:
        lines.append("Sandbox: **on** (bubblewrap: no network, only the submission's folder writable, "
                     "solutions and gradebook not visible).")
    else:
        lines += ["**WARNING: NO SANDBOX.** Student code ran with the grader's permissions, limited only by "
                  f"time, memory, CPU and file size. Reason: {probe.reason}", ""]
    lines.append(f"Process and whole-tree memory limits: {'on (cgroups ' + probe.cgroups + ')' if probe.cgroups else 'off (no writable cgroup here); memory is limited per process'}.")
    lines.append(f"Limits: {limits.cell_seconds:g} s per cell, {limits.notebook_seconds:g} s per notebook, "
                 f"{limits.memory_bytes >> 20} MiB memory, {limits.cpu_seconds} s CPU, "
                 f"{limits.output_bytes_per_cell} bytes of output per cell. Workers: {workers}. "
                 f"Took {seconds:.1f} s.")
    lines += ["", f"Submissions: {status_counts(rows)} ({len(rows)} in all).", ""]
    lines += ["| student | chapter | score | status | notes |", "| --- | --- | --- | --- | --- |"]
    for r in rows:
        score = "—" if r.score is None else f"{r.score:g} / {r.max_score:g}"
        lines.append(f"| {_md(r.student)} | {r.chapter} | {score} | {_md(r.status)} | {_md('; '.join(r.notes))} |")
    lines += ["", "## Per exercise", ""]
    for r in rows:
        if not r.exercises:
            continue
        lines.append(f"- **{_md(r.student)}** ({r.chapter}): " + "; ".join(
            f"{gid} {p:g}/{m:g}" + (f" ({_md(msg)})" if msg else "") for gid, (p, m, msg) in r.exercises.items()))
    tmp = path.with_suffix(".tmp")
    tmp.write_text("\n".join(lines) + "\n")
    os.replace(tmp, path)
    return path


def status_counts(rows: list[Row]) -> str:
    """How many submissions ended in each status, as "18 graded, 2 failed"."""
    counts: dict[str, int] = {}
    for row in rows:
        kind = row.status.split(":")[0]
        counts[kind] = counts.get(kind, 0) + 1
    return ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items()))


def _md(text: str) -> str:
    return " ".join(str(text).replace("|", "\\|").split())[:400]


class _Progress:
    """A one-line progress bar on stderr (plain lines when stderr is not a terminal)."""

    def __init__(self, total: int, enabled: bool = True):
        self.total, self.done_count, self.enabled = total, 0, enabled
        self.tty = sys.stderr.isatty()
        self.lock = threading.Lock()
        self.started = time.monotonic()

    def step(self, label: str) -> None:
        if not self.enabled:
            return
        with self.lock:
            self.done_count += 1
            width = 30
            filled = int(width * self.done_count / max(1, self.total))
            line = (f"[{'#' * filled}{'.' * (width - filled)}] {self.done_count}/{self.total} "
                    f"{time.monotonic() - self.started:5.0f} s  {label}")
            print(("\r" + line[:110].ljust(110)) if self.tty else line, end="" if self.tty else "\n",
                  file=sys.stderr, flush=True)

    def done(self) -> None:
        if self.enabled and self.tty:
            print(file=sys.stderr)
