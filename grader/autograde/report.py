"""Stage 6, report: grades.csv and autograde-report.md first, then the HTML feedback.

grades.csv is the whole class's (`grades`: this run's rows merged into those kept, points from the
gradebook). The report says what this run's kernels ran under, then what became of every submission of
the class and what the class got wrong, per chapter (`class_report`, with its figures in
autograde-report-figures/ beside it). `grader report` makes both again from the gradebook (`rewrite`).

Each output is written on its own (a temporary file renamed into place), and a failure in one
never costs the others: the CSV and the report come first, because they are what an instructor
cannot do without; feedback can be made again with `nbgrader generate_feedback`.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
import time
from pathlib import Path

import nbformat

from grader.autograde import class_report, grades, sandbox
from grader.autograde.gradebook import db_url
from grader.autograde.jobs import Row
from grader.course import grade_cells, read_notebook, run_nbgrader


def write_all(course: Path, rows: list[Row], *, probe: sandbox.Probe, limits: sandbox.Limits, workers: int,
              seconds: float, feedback: bool, intake: list[str] = (),
              cluster: list[str] = (), class_section: bool = True) -> tuple[Path, Path, list[str]]:
    """grades.csv (the run's rows merged into the class's, `grades.update`), the report, then feedback;
    returns their paths and what could not be written. A row whose feedback could not be made is
    replaced, in `rows`, by one whose notes say so."""
    problems = []
    grades_csv = course / "grades.csv"
    report = course / "autograde-report.md"

    def both() -> None:
        try:
            everyone = grades.update(course, rows, problems)
        except Exception as err:  # the report below still says what happened to each submission
            problems.append(f"grades.csv could not be written ({type(err).__name__}: {err})")
            everyone = rows
        try:
            write_report(report, rows, probe, limits, workers, seconds, course=course, intake=intake,
                         problems=problems, cluster=cluster, class_section=class_section, everyone=everyone)
        except Exception as err:
            problems.append(f"autograde-report.md could not be written ({type(err).__name__}: {err})")

    both()
    if feedback:
        before = [len(r.notes) for r in rows]
        said = len(problems)
        try:
            rows[:] = write_feedback(course, rows)
        except Exception as err:
            problems.append(f"HTML feedback could not be written ({type(err).__name__}: {err}); grades.csv and "
                            "the report are complete; run `nbgrader generate_feedback <chapter> --force` to retry")
        if len(problems) > said or before != [len(r.notes) for r in rows]:  # say so in the CSV and the report too
            both()
    return grades_csv, report, problems


def rewrite(course: Path) -> tuple[Path, Path]:
    """`grader report`: grades.csv and autograde-report.md made again from the gradebook (hand-made changes
    included) and the rows grades.csv keeps, with the facts of the last run of `grader autograde` (kept
    in .grader/) at the top of the report. CourseError without a gradebook."""
    from grader.errors import CourseError

    course = Path(course).resolve()
    if not (course / "gradebook.db").is_file():
        raise CourseError(f"{course} has no gradebook.db: grade the class first (grader autograde)")
    problems: list[str] = []
    everyone = grades.update(course, [], problems)
    head, tail = _last_run(course)
    report = course / "autograde-report.md"
    _write_lines(report, head + [f"**{problem}**" for problem in problems] + class_lines(report, everyone, course) + tail)
    return course / "grades.csv", report


def write_feedback(course: Path, rows: list[Row]) -> list[Row]:
    """Annotate each autograded notebook with its verdicts, then nbgrader generate_feedback; returns the
    rows, those of a chapter whose feedback could not be generated with a note that says so."""
    for row in rows:
        path = course / "autograded" / row.student / row.chapter / f"{row.chapter}.ipynb"
        if row.score is None or not path.exists():
            continue
        nb = nbformat.read(path, as_version=4)
        for cell in grade_cells(nb):
            got, most, message, _ = row.exercises.get(cell.metadata.nbgrader.grade_id, (0.0, 0.0, "", ""))
            text = f"Graded: {got:g} / {most:g}" + (f" — {message}" if message else " — all checks passed")
            cell.outputs.append(nbformat.v4.new_output("stream", name="stdout", text=text + "\n"))
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")  # the notebook is replaced whole, never half
        try:
            nbformat.write(nb, tmp)
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
    for chapter in sorted({r.chapter for r in rows if r.score is not None}):
        proc = run_nbgrader(["generate_feedback", chapter, "--force", f"--CourseDirectory.root={course}",
                             f"--CourseDirectory.db_url={db_url(course)}"], cwd=course)
        if proc.returncode != 0:
            rows = [row.with_notes("HTML feedback could not be generated (see nbgrader generate_feedback)")
                    if row.chapter == chapter else row for row in rows]
    return rows


def write_csv(path: Path, rows: list[Row]) -> Path:
    """`rows` as a grades.csv at `path`, as they are (no merge; see `grades.update` for the course's file)."""
    return grades.write(path, rows)


def applied_lines(rows: list[Row], probe: sandbox.Probe, limits: sandbox.Limits) -> list[str]:
    """What the kernels really ran under, counted from each kernel's launcher, not from intentions."""
    ran = [r.applied for r in rows if r.applied.get("launched")]
    lines = []
    if probe.sandboxed:
        lines.append("Sandbox: **on** (bubblewrap: no network, only the submission's folder writable, "
                     "solutions, gradebook and the machine's secrets not visible).")
    else:
        lines += ["**WARNING: NO SANDBOX.** Student code ran with the grader's permissions, limited only by "
                  f"time, memory, CPU time and file size. Reason: {probe.reason}", ""]
    if not ran:
        return lines + ["No kernel was started in this run, so no limit was applied to one."]
    n = len(ran)
    unprivileged = sum(1 for a in ran if a.get("unprivileged"))
    if sandbox.runs_as_root():
        lines.append(f"Kernel user: the grader ran as root; {unprivileged} of {n} kernels ran as an unprivileged "
                     "user with no capabilities" + ("" if unprivileged == n else
                                                    " (**the others ran as root: no sandbox**)") + ".")
    if probe.sandboxed:
        forked = sum(1 for a in ran if a.get("forked"))
        why = next((a["not_forked"] for a in ran if a.get("not_forked")), None)
        lines.append(f"Kernel start: {forked} of {n} kernels were forked, inside their own sandbox, by a process that "
                     "had imported JAX and ipykernel once" + ("" if forked == n else "; the others started on their own")
                     + (f" (the first reason: {why})" if why else "") + ".")
    kinds = [a.get("compilations") for a in ran if a.get("compilations") not in (None, "reference")]
    if kinds:
        sealed, public = kinds.count("sealed"), kinds.count("public")
        lines.append(f"JAX compilations: of {len(kinds)} submissions' kernels, {sealed} started with every compilation "
                     "of their chapter's reference run, in a folder they could open by name but not list; "
                     f"{public} with those of its public cells only; {len(kinds) - sealed - public} with none (a "
                     "kernel that starts before its chapter's reference run has made them gets fewer, and a folder "
                     "is sealed only when the grader runs as root).")
    counts = {name: sum(1 for a in ran if name in a.get("cgroup", [])) for name in ("processes", "memory", "cpu")}
    words = {"processes": f"at most {limits.processes} processes and threads",
             "memory": f"{limits.memory_bytes >> 20} MiB for the whole process tree",
             "cpu": f"{limits.cpu_cores:g} CPU core(s) of time"}
    applied = [f"{words[name]} ({count} of {n} kernels)" for name, count in counts.items() if count]
    missing = [name for name, count in counts.items() if count < n]
    lines.append("cgroup limits: " + ("; ".join(applied) if applied else "**none applied**") + "." + (
        f" Not applied to every kernel: {', '.join(missing)} (no writable cgroup for it here); then memory is "
        "limited per process (address space), CPU by CPU seconds only (no share: a busy kernel slows the others), "
        "and processes not at all beyond the machine's own limit." if missing else ""))
    limited = sum(1 for a in ran if a.get("folder_limited"))
    if probe.sandboxed:
        lines.append(f"Disk: each kernel's /tmp is private and at most {limits.disk_bytes >> 20} MiB; its folder is a "
                     f"private copy of at most {limits.disk_bytes >> 20} MiB in {limited} of {n} kernels (both in RAM, "
                     "counted in the memory limit where a memory cgroup applies)" + (
                         "" if limited == n else "; the other kernels' folders had no total limit") +
                     f"; each file is at most {limits.file_bytes >> 20} MiB.")
    else:
        lines.append(f"Disk: no total limit (no sandbox): /tmp is the machine's and each file is at most "
                     f"{limits.file_bytes >> 20} MiB.")
    lines.append(f"Limits: {limits.cell_seconds:g} s per cell, {limits.notebook_seconds:g} s per notebook, "
                 f"{limits.memory_bytes >> 20} MiB address space, {limits.cpu_seconds} s CPU, "
                 f"{limits.output_bytes_per_cell} bytes of output per cell and {limits.output_bytes} per notebook.")
    return lines


def _selfcheck_module(chapter: str):
    """The parsed module of the chapter's self-checks (grader/selfchecks/chNN.py), or None."""
    import ast
    import importlib.util

    spec = importlib.util.find_spec(f"grader.selfchecks.ch{chapter[:2]}")
    if spec is None or not spec.origin:
        return None
    return ast.parse(Path(spec.origin).read_text())


def _decides_in_kernel(module, name: str, seen: set | None = None) -> bool:
    """Does the self-check function `name`, or a function of its module that it calls, call
    `checks.true` (a property decided in the learner's kernel)?"""
    import ast

    if module is None:
        return False
    seen = set() if seen is None else seen
    if name in seen:
        return False
    seen.add(name)
    functions = {node.name: node for node in module.body if isinstance(node, ast.FunctionDef)}
    if name not in functions:
        return False
    for node in ast.walk(functions[name]):
        if isinstance(node, ast.Call):
            called = node.func
            if (isinstance(called, ast.Attribute) and called.attr == "true"
                    and isinstance(called.value, ast.Name) and called.value.id == "checks"):
                return True
            if isinstance(called, ast.Name) and _decides_in_kernel(module, called.id, seen):
                return True
    return False


def in_kernel_points(course: Path, chapters: list[str]) -> list[str]:
    """For each chapter, how many of its points rest on a property decided inside the learner's
    kernel (a test cell with a `checks.true`), which a learner who patches the checks can fake."""
    lines = []
    for chapter in chapters:
        try:
            cells = grade_cells(read_notebook(course / "solutions" / chapter / f"{chapter}.ipynb"))
        except Exception:
            continue
        total = sum(float(c.metadata.nbgrader.points) for c in cells)
        module = _selfcheck_module(chapter)
        resting = [c for c in cells if "checks.true(" in c.source
                   or any(_decides_in_kernel(module, name) for name in re.findall(r"\bselfcheck\.(\w+)\(", c.source))]
        points = sum(float(c.metadata.nbgrader.points) for c in resting)
        lines.append(f"- {chapter}: {points:g} of {total:g} points come from test cells with an in-kernel "
                     f"property (`checks.true`)" + (f": {', '.join(c.metadata.nbgrader.grade_id for c in resting)}"
                                                    if resting else ""))
    return lines


def write_report(path: Path, rows: list[Row], probe: sandbox.Probe, limits: sandbox.Limits, workers: int,
                 seconds: float, *, course: Path | None = None, intake: list[str] = (),
                 problems: list[str] = (), cluster: list[str] = (), class_section: bool = True,
                 everyone: list[Row] | None = None) -> Path:
    """The report of a run: what this run's kernels ran under and what became of its `rows` (its head
    and tail), around the whole class (`everyone`, as grades.csv has it; default: the run's rows): each
    submission's row, what the class got wrong and each exercise's verdicts. With `course`, the head and
    tail are kept in .grader/ so that `grader report` can make the report again around a newer class."""
    head = ["# Autograde report", ""]
    head += applied_lines(rows, probe, limits)
    head += list(cluster)
    head.append(f"Workers: {workers}. Took {seconds:.1f} s.")
    head += [f"**{problem}**" for problem in problems]
    head += ["", f"This run graded {len(rows)} submission{'' if len(rows) == 1 else 's'}: {status_counts(rows) or 'none'}."]
    flagged = [r for r in rows if r.flagged]
    if flagged:
        head += ["", "## Flagged for review", "",
                 "These answer cells reach into the grading machinery (the checks, IPython's hooks, sys.modules, "
                 "builtins). Their points come from records judged outside the kernel, but a property a test "
                 "decides in the kernel (`checks.true`) could be faked: look at them.", ""]
        head += [f"- **{_md(r.student)}** ({r.chapter}): " + "; ".join(_md(cell) for cell in r.flagged)
                 for r in flagged]
    tail = []
    if intake:
        tail += ["", "## The download", ""] + [f"- {_md(line)}" for line in intake]
    tail += crash_lines(rows)
    if course is not None:
        _keep_run(course, head, tail)
    return _write_lines(path, head + class_lines(path, rows if everyone is None else everyone, course,
                                                 class_section=class_section) + tail)


def class_lines(path: Path, everyone: list[Row], course: Path | None, *, class_section: bool = True) -> list[str]:
    """The report's middle, about the whole class: each submission's row (from grades.csv and the
    gradebook), what the class got wrong per chapter (figures beside `path`), the points decided in the
    kernel, and each exercise's points and verdict."""
    lines = ["", f"Submissions: {status_counts(everyone)} ({len(everyone)} in all; every row of grades.csv, "
                 "points from the gradebook).", ""]
    lines += ["| student | chapter | score | status | notes |", "| --- | --- | --- | --- | --- |"]
    for r in everyone:
        score = "—" if r.score is None else f"{r.final_score:g} / {r.max_score:g}" + (
            f" (late penalty {r.penalty:g})" if r.penalty else "")
        lines.append(f"| {_md(r.student)} | {r.chapter} | {score} | {_md(r.status)} | {_md('; '.join(r.notes))} |")
    if class_section:  # what the class got wrong, per chapter, with its figures beside the report
        try:
            lines += [""] + class_report.sections(path, everyone, course)
            while lines[-1] == "":
                lines.pop()
        except Exception as err:
            lines += ["", f"**What the class got wrong could not be summed up** ({type(err).__name__}: {_md(err)})."]
    chapters = sorted({r.chapter for r in everyone if r.chapter})
    if course is not None and chapters:
        lines += ["", "## Points decided inside the kernel", ""] + in_kernel_points(course, chapters)
    lines += ["", "## Per exercise", ""]
    for r in everyone:
        if not r.exercises:
            continue
        lines.append(f"- **{_md(r.student)}** ({r.chapter}): " + "; ".join(
            f"{gid} {p:g}/{m:g}" + (f" ({_md(msg)})" if msg else "") for gid, (p, m, msg, _) in r.exercises.items()))
    return lines


#: Where the head and tail of the last run's report are kept, for `grader report` (inside the course).
LAST_RUN = Path(".grader") / "last-run.json"


def _keep_run(course: Path, head: list[str], tail: list[str]) -> None:
    """Keep the run's own lines of the report (its facts), replacing the file in one step."""
    path = course / LAST_RUN
    path.parent.mkdir(exist_ok=True)
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"head": head, "tail": tail}))
    os.replace(tmp, path)


def _last_run(course: Path) -> tuple[list[str], list[str]]:
    """The head and tail the last run kept (`_keep_run`), or lines that say there is none."""
    try:
        kept = json.loads((course / LAST_RUN).read_text())
        head, tail = list(map(str, kept["head"])), list(map(str, kept["tail"]))
    except (OSError, ValueError, KeyError, TypeError):
        head, tail = ["# Autograde report", "", f"No run of `grader autograde` is on record in {LAST_RUN.parent}/: "
                      "the rows below come from grades.csv and the gradebook."], []
    return head, tail


def _write_lines(path: Path, lines: list[str]) -> Path:
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    tmp.write_text("\n".join(lines) + "\n")
    os.replace(tmp, path)
    return path


def crash_lines(rows: list[Row]) -> list[str]:
    """The report's last section: each traceback of the grader's own failures, once, with the
    submissions it cost (none: no section). These are bugs of ours, to report with the traceback."""
    traces: dict[str, list[str]] = {}
    for r in rows:
        if r.trace:
            traces.setdefault(r.trace, []).append(f"{r.student} ({r.chapter})")
    if not traces:
        return []
    lines = ["", "## Where the grader itself failed", "",
             "The grader's own code failed on these submissions: a bug of the course's tools. Please report it "
             "with the traceback below.", ""]
    for trace, whose in traces.items():
        fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", trace)), default=0))
        lines += [f"- {_md(', '.join(whose))}:", "", fence, trace.rstrip(), fence, ""]
    return lines[:-1]


def status_counts(rows: list[Row]) -> str:
    """How many submissions ended in each status, as "18 graded, 2 failed"."""
    counts: dict[str, int] = {}
    for row in rows:
        kind = str(row.status.outcome)
        counts[kind] = counts.get(kind, 0) + 1
    return ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items()))


def _md(text: str) -> str:
    return " ".join(str(text).replace("|", "\\|").split())[:400]


class Progress:
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
