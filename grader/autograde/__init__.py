"""Grade a class: every submission sandboxed, in parallel, judged outside its kernel, none lost.

`autograde` runs the stages in order, each a module of this package, with typed data
(`jobs.Job`, `jobs.KernelRun`, `jobs.Row`) between them:

1. `intake`   — import an LMS download into submitted/, and find the jobs to grade;
2. `prepare`  — (in each job's process) restore the instructor's test cells, strip expected values,
                flag answer cells that reach into the grading machinery;
3. `run`      — the reference solutions first, then every submission, each in a sandboxed
                kernel (`sandbox`, `launch`, `kernel`, `worker`), as many at once as there are
                workers; then the gradebook learns the chapters (`gradebook.Recording`).
                With a Dask scheduler's address, `cluster` grades them on its workers instead;
4. `judge`    — compare each test cell's record with the reference's, outside the kernel;
5. `gradebook` — write the scores into nbgrader's gradebook (the record), and keep each
                submission's verdicts in its autograded notebook;
6. `report`   — grades.csv (the whole class: this run's rows merged into those kept, points from the
                gradebook, `grades`) and the report (with `class_report`'s section per chapter: what
                the class got wrong, and its figures) first, then HTML feedback.

Beside the stages: `feedback` (the exporter every HTML feedback goes through) and `restore` (a step of
nbgrader's own autograde) are named in the course's nbgrader_config.py, so that formgrader's buttons
use them too; `lms` writes the grades for Canvas and Moodle (`grader export`).
"""

from __future__ import annotations

import os
import tempfile
import time
import traceback
from dataclasses import replace
from pathlib import Path

from grader.course import chapters as list_chapters, select_chapters, skip_unused_schema_formats

skip_unused_schema_formats()  # before nbformat, which the gradebook and the feedback need

from grader.autograde import config, gradebook, intake, judge, report, run, sandbox  # noqa: E402
from grader.autograde.jobs import Job, KernelRun, Outcome, Row, Status, Summary  # noqa: E402
from grader.autograde.report import status_counts  # noqa: E402,F401  (used by the CLI)
from grader.errors import CourseError  # noqa: E402

__all__ = ["autograde", "status_counts", "Job", "KernelRun", "Outcome", "Row", "Status", "Summary"]


def autograde(course: Path, chapters: list[str] | None = None, *, workers: int | None = None,
              limits: sandbox.Limits | None = None, students: list[str] | None = None,
              require_sandbox: bool = False, use_sandbox: bool = True, feedback: bool = True,
              progress: bool = True, reference_cache: Path | None = None,
              download: Path | None = None, scheduler: str | None = None, class_section: bool = True) -> Summary:
    """Grade what is in `course`/submitted (for `chapters`, default: every chapter with submissions),
    after importing `download` (an LMS's folder or .zip) into it if given.

    The kernels run under `limits` (default: those of the course's nbgrader_config.py, `config.limits`).
    Reference records are cached in `reference_cache` (default: `course`/.grader). With `scheduler`
    (a Dask scheduler's address), the run stage runs on that cluster's workers (`cluster`). Without
    `class_section` the report leaves out what the class got wrong and draws no figures (a single
    learner's `grader check` has no class)."""
    started = time.monotonic()
    course = Path(course).resolve()
    known = list_chapters(course)
    if not known:
        raise CourseError(f"{course} has no solutions/<chapter>/<chapter>.ipynb: run this in the course folder")
    select_chapters(chapters, course)
    settings = config.load(course)
    limits = config.limits(course, settings) if limits is None else limits
    late = config.late_penalty(settings)  # before grading: a penalty that cannot be applied stops the run
    # 1. intake
    imported = intake.import_download(download, course, chapters) if download is not None else intake.Imported()
    submitted = course / "submitted"
    if not submitted.is_dir():
        raise CourseError(f"nothing to grade: {submitted} does not exist (collect submissions first, or pass --from)")
    pool_size = max(1, workers or os.cpu_count() or 1)

    with tempfile.TemporaryDirectory(prefix="jbj-grade-") as tmp:
        runner = None
        if scheduler:
            from grader.autograde import cluster

            processes, on = None, cluster.Cluster(scheduler)
        else:  # started first: they import while the rest gets ready
            processes, on = run.Workers(pool_size, Path(tmp)), None
        try:
            if on is not None:
                probe, pool_size = on.probe(), on.threads()
            else:
                probe = sandbox.probe()
            if require_sandbox and not probe.sandboxed:
                raise CourseError(f"no sandbox can be made here: {probe.reason}")
            if not use_sandbox:
                probe = sandbox.Probe(False, "turned off with --no-sandbox", probe.cgroups)
            found = [replace(job, notes=(*job.notes, *imported.notes.get(job.key, [])))
                     for job in intake.discover(submitted, known, chapters, students)]
            jobs = [job for job in found if not job.problem]
            wanted = sorted({job.chapter for job in jobs})
            (course / ".grader").mkdir(exist_ok=True)
            # nbgrader records the assignments in the gradebook while the notebooks run: nothing
            # before the gradebook is written needs them (points come from the solution notebooks).
            recording = gradebook.Recording(course, wanted)
            bar = report.Progress(len(jobs) + len(wanted), enabled=progress)
            # 2-3. prepare and run (in each job's own process), on this machine or on the cluster
            if on is not None:
                mode = "off" if not use_sandbox else "require" if require_sandbox else "use"
                runner = cluster.DaskRunner(on, course, known, mode)
            else:
                runner = run.LocalRunner(course, known, processes, pool_size, Path(tmp), probe.sandboxed)
            runs, references, errors = run.run_jobs(course, jobs, runner, limits, reference_cache or course / ".grader",
                                                    bar.step, autograded=course / "autograded")
            use_lines = runner.use.lines() if on is not None else []
            bar.done()
            ran = time.monotonic()
        finally:
            if runner is not None:
                runner.close()
            elif on is not None:
                on.close()
            if processes is not None:
                processes.close()

    stages = {"intake and run": ran - started}
    recording.wait()  # alone: nbgrader changes the working folder while it records
    stages["record the chapters"] = time.monotonic() - started - sum(stages.values())
    # 4. judge
    found = [_with_timestamp(job) if not job.problem else job for job in found]
    jobs = [job for job in found if not job.problem]
    rows = _judge_all(course, found + imported.failed, runs, references, errors, wanted, late)
    rows.sort(key=lambda r: (r.chapter, r.student))
    stages["judge"] = time.monotonic() - started - sum(stages.values())
    # 5. record
    gradebook.keep_exchange_files(course, rows)
    rows = gradebook.keep_verdicts(course, rows)
    gradebook.write(course, rows, jobs)
    stages["gradebook"] = time.monotonic() - started - sum(stages.values())
    # 6. report
    grades_csv, report_path, problems = report.write_all(
        course, rows, probe=probe, limits=limits, workers=pool_size, seconds=time.monotonic() - started,
        feedback=feedback, intake=imported.lines, cluster=use_lines, class_section=class_section)
    stages["reports and feedback"] = time.monotonic() - started - sum(stages.values())
    return Summary(rows, probe.sandboxed, probe.reason, probe.cgroups, report_path, grades_csv,
                   time.monotonic() - started, intake=imported.lines, problems=problems, stages=stages)


def _with_timestamp(job: Job) -> Job:
    """The job with its submission's time from timestamp.txt, and a note when that is missing or
    unreadable. Read after the run: nbgrader's timestamp parser comes with its (slow) import."""
    stamp, note = intake.read_timestamp(job.folder / "timestamp.txt")
    return replace(job, timestamp=stamp, notes=(*job.notes, *([note] if note else [])))


def _judge_all(course: Path, found: list[Job], runs: dict, references: dict, errors: dict,
               wanted: list[str], late: config.LatePenalty = config.LatePenalty()) -> list[Row]:
    """A row for every job: judged, or failed with the reason."""
    max_points = {ch: gradebook.points(course, ch) for ch in wanted}
    due = gradebook.due_dates(course, wanted)
    rows = []
    for job in found:
        most = sum(p for p, _ in max_points.get(job.chapter, {}).values())
        if job.problem:
            if job.chapter and job.chapter not in max_points:
                try:
                    most = sum(p for p, _ in gradebook.points(course, job.chapter).values())
                except Exception:  # not a chapter, or no solution to count from
                    most = 0.0
            rows.append(Row(job.student, job.chapter, Status.failed(job.problem), None, most, notes=job.notes))
            continue
        if job.chapter not in references:
            why = errors.get(job.chapter, "no reference records")
            rows.append(Row(job.student, job.chapter, Status.failed(str(why)), None, most, notes=job.notes,
                            trace=getattr(why, "trace", "")))
            continue
        try:
            rows.append(judge.make_row(job, runs[job.key], references[job.chapter], max_points[job.chapter],
                                       due.get(job.chapter), late=late))
        except Exception as err:  # a bug of ours must not cost the rest of the class their grades
            why = f"the grader could not judge this submission ({type(err).__name__}: {str(err)[:200]}); please report it"
            rows.append(Row(job.student, job.chapter, Status.failed(why), None, most, notes=job.notes,
                            trace=traceback.format_exc()[-4000:]))
    return rows
