"""The `grader` command: parses arguments and calls the function that does the work."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from grader.errors import CourseError


def _release(args: argparse.Namespace) -> int:
    from grader.release import release

    for path in release(args.chapters or None, force=args.force):
        print(f"released {path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path}")
    return 0


def _execute(args: argparse.Namespace) -> int:
    from grader.execute import execute_chapters

    for path in execute_chapters(args.chapters or None):
        print(f"executed {path}")
    return 0


#: Set by `make lab` in the Lab's environment (and so in its terminals): the folder the Lab shows.
LAB_NOTEBOOKS_ENV = "JBJ_NOTEBOOKS"


def notebook_candidates(chapter: str) -> list[Path]:
    """Where a bare chapter id is looked for, in order: the folder you are in (the notebook itself,
    or its chapter folder), a notebooks/ folder there, the notebooks folder of the Lab you started
    (`$JBJ_NOTEBOOKS`), and last the notebooks/ of the course checkout `grader` was installed from."""
    from grader.course import learner_path

    here = Path.cwd()
    found = [here / f"{chapter}.ipynb", here / chapter / f"{chapter}.ipynb",
             here / "notebooks" / chapter / f"{chapter}.ipynb"]
    if os.environ.get(LAB_NOTEBOOKS_ENV):
        found.append(Path(os.environ[LAB_NOTEBOOKS_ENV]) / chapter / f"{chapter}.ipynb")
    found.append(learner_path(chapter))
    return found


def resolve_notebook(arg: str) -> Path:
    """A notebook path as given, or for a bare chapter id, the first of `notebook_candidates` that exists
    (the course's own learner notebook when none does, so that the error names it)."""
    from grader.course import CHAPTER_ID

    path = Path(arg)
    if CHAPTER_ID.fullmatch(arg) and not path.is_file():
        candidates = notebook_candidates(arg)
        return next((p for p in candidates if p.is_file()), candidates[-1])
    return path


def _check(args: argparse.Namespace) -> int:
    from grader.check import format_table, score
    from grader.course import chapter_of

    notebook = resolve_notebook(args.notebook)
    print(f"grading {notebook.resolve()}", flush=True)
    results = score(notebook)
    print(format_table(chapter_of(notebook), results))
    # 1: the notebook stopped early (its kernel died or ran out of time); the table says where.
    return 1 if any(not r.grade_id for r in results) else 0


def _autograde(args: argparse.Namespace) -> int:
    from grader.autograde import autograde, config, status_counts

    course = Path(args.course)
    limits = config.limits(course, **limits_given(args))
    summary = autograde(course, args.chapters or None, workers=args.workers, limits=limits,
                        students=args.student or None, require_sandbox=args.require_sandbox,
                        use_sandbox=not args.no_sandbox, feedback=not args.no_feedback,
                        download=Path(args.source) if args.source else None, scheduler=args.scheduler)
    for line in summary.intake:
        print(line, file=sys.stderr)
    for problem in summary.problems:
        print(f"WARNING: {problem}", file=sys.stderr)
    if not summary.sandboxed:
        print(f"WARNING: graded WITHOUT a sandbox: {summary.sandbox_reason}", file=sys.stderr)
    print(f"{len(summary.rows)} submissions: {status_counts(summary.rows)} in {summary.seconds:.0f} s")
    print(f"grades:   {summary.grades_csv}\nreport:   {summary.report}")
    if not args.no_feedback:
        print(f"feedback: {course / 'feedback'}")
    return 0


def _report(args: argparse.Namespace) -> int:
    from grader.autograde.class_report import figures_folder, report
    from grader.autograde.report import rewrite
    from grader.course import select_chapters

    course = Path(args.course)
    if args.chapter:
        select_chapters([args.chapter], course.resolve())
    grades_csv, whole = rewrite(course)
    if args.chapter:
        path = report(course=course, chapter=args.chapter, out=Path(args.out) if args.out else None)
        print(path.read_text(), end="")
        print(f"\nreport:  {path}\nfigures: {figures_folder(path)}")
    print(f"grades:  {grades_csv}\nclass:   {whole}")
    return 0


def _export(args: argparse.Namespace) -> int:
    from grader.autograde.lms import export

    columns = {}
    for given in args.column or []:
        chapter, sep, header = given.partition("=")
        if not sep or not chapter or not header:
            raise CourseError(f"--column takes CHAPTER=HEADER, not {given!r}")
        columns[chapter] = header
    done = export(Path(args.course), args.lms, chapters=args.chapters or None,
                  out=Path(args.out) if args.out else None, columns=columns)
    for path in done.files:
        print(f"wrote {path}")
    for line in done.left_out:
        print(f"not in the file: {line}", file=sys.stderr)
    return 0


def _positive(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, not {text}")
    return value


def add_limit_flags(command: argparse.ArgumentParser) -> None:
    """A flag for each of the kernels' limits, from its definition (`sandbox.Limits`)."""
    from dataclasses import fields

    from grader.autograde.config import LIMITS_SECTION
    from grader.autograde.sandbox import Limits

    group = command.add_argument_group(
        "limits per kernel", f"Each also in nbgrader_config.py as c.{LIMITS_SECTION}.<name> (in seconds, bytes, "
        "cores or a count, as its name says); a flag wins over the file, the file over the default.")
    for f in fields(Limits):
        meta = f.metadata
        group.add_argument(meta["flag"], dest=f"limit_{f.name}", type=_positive, default=None,
                           metavar=meta["unit"].upper() or "N",
                           help=f"{meta['help']} (default: {f.default / meta['scale']:g}; c.{LIMITS_SECTION}."
                                f"{f.name})")


def limits_given(args: argparse.Namespace) -> dict[str, float]:
    """The limits given as flags, by field name and in the field's unit."""
    from dataclasses import fields

    from grader.autograde.sandbox import Limits

    given = {}
    for f in fields(Limits):
        value = getattr(args, f"limit_{f.name}", None)
        if value is not None:
            scale = f.metadata["scale"]
            given[f.name] = round(value * scale) if scale > 1 else value
    return given


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="grader", description="Tools for the JAX beyond jnp course.")
    sub = p.add_subparsers(dest="command", required=True)

    rel = sub.add_parser("release", help="regenerate notebooks/ from solutions/ and check for leaks")
    rel.add_argument("chapters", nargs="*", metavar="CHAPTER",
                     help="chapter ids such as 01_numpy_interop (default: every chapter)")
    rel.add_argument("--force", action="store_true",
                     help="overwrite learner notebooks even when they hold answers")
    rel.set_defaults(run=_release)

    exe = sub.add_parser("execute", help="re-run solution notebooks in place so their stored outputs are current")
    exe.add_argument("chapters", nargs="*", metavar="CHAPTER",
                     help="chapter ids such as 01_numpy_interop, or paths of going-deeper notebooks such as "
                          "notebooks/going_deeper/hijax_rules.ipynb (default: every chapter and every going-deeper notebook)")
    exe.set_defaults(run=_execute)

    chk = sub.add_parser("check", help="score a notebook per exercise, as the instructor's autograder would "
                         "(by its visible self-checks only where there is no solutions/)")
    chk.add_argument("notebook", metavar="NOTEBOOK",
                     help="a chapter notebook's path, or a chapter id such as 01_numpy_interop "
                          "for your copy in notebooks/")
    chk.set_defaults(run=_check)

    auto = sub.add_parser("autograde", help="grade submitted/ (or an LMS download) sandboxed and in parallel")
    auto.add_argument("chapters", nargs="*", metavar="CHAPTER",
                      help="chapter ids to grade (default: every chapter that has submissions)")
    auto.add_argument("--from", dest="source", metavar="PATH",
                      help="a folder or .zip of notebooks named by student, as an LMS exports them; "
                           "imported into submitted/ first (existing submissions are never overwritten)")
    auto.add_argument("--course", default=".", help="the course folder holding nbgrader_config.py (default: .)")
    auto.add_argument("--student", action="append", metavar="ID", help="grade only this student (repeatable)")
    auto.add_argument("--workers", type=int, default=None, help="submissions graded at once (default: the cores)")
    auto.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                      help="grade on a Dask distributed cluster: each submission runs as a task on its workers "
                           "(each needs this course checkout, its venv and bubblewrap); default: local processes")
    auto.add_argument("--require-sandbox", action="store_true",
                      help="refuse to grade when no sandbox can be made, instead of warning")
    auto.add_argument("--no-sandbox", action="store_true",
                      help="run kernels with resource limits only (to measure the sandbox's cost; not for a class)")
    auto.add_argument("--no-feedback", action="store_true", help="skip writing HTML feedback")
    add_limit_flags(auto)
    auto.set_defaults(run=_autograde)

    rep = sub.add_parser("report", help="make grades.csv and autograde-report.md again from the gradebook (so "
                         "scores changed in formgrader count), and with a CHAPTER what the class got wrong in it: per "
                         "exercise the share at full marks, the mean and the checks that failed first, with figures")
    rep.add_argument("chapter", metavar="CHAPTER", nargs="?",
                     help="a graded chapter's id, such as 01_numpy_interop: also write class-report-CHAPTER.md")
    rep.add_argument("--course", default=".", help="the course folder holding gradebook.db and autograded/ "
                     "(default: .)")
    rep.add_argument("--out", metavar="FILE", help="the markdown file to write (default: class-report-CHAPTER.md "
                     "in the course folder); its figures go to the folder beside it named FILE's stem + -figures")
    rep.set_defaults(run=_report)

    exp = sub.add_parser("export", help="write each chapter's grades as a CSV that Canvas or Moodle imports as it is "
                         "(points from the gradebook, late penalties taken off; learners matched by the LMS number "
                         "in their student id)")
    exp.add_argument("chapters", nargs="*", metavar="CHAPTER", help="chapter ids (default: every chapter with grades)")
    exp.add_argument("--lms", required=True, choices=["canvas", "moodle"],
                     help="canvas: for Grades > Import (columns Student, ID, SIS User ID, SIS Login ID, Section, then "
                          "the chapter); moodle: for an assignment's Upload grading worksheet (Identifier, Full name, "
                          "Grade, Maximum Grade, Last modified (grade))")
    exp.add_argument("--course", default=".", help="the course folder holding gradebook.db and grades.csv (default: .)")
    exp.add_argument("--out", metavar="FOLDER", help="where to write <lms>-<chapter>.csv (default: the course folder)")
    exp.add_argument("--column", action="append", metavar="CHAPTER=HEADER",
                     help="Canvas only: the chapter's column header, e.g. 01_numpy_interop=\"Lab 1 (5678)\" to match "
                          "an assignment by its Canvas id (repeatable; default: the chapter id)")
    exp.set_defaults(run=_export)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except CourseError as err:
        print(f"grader {args.command}: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"grader {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as err:  # a bug of ours: still one clear line, and the traceback on request
        if os.environ.get("GRADER_DEBUG"):
            raise
        print(f"grader {args.command}: unexpected error {type(err).__name__}: {err}. This is a bug in the "
              "course's tools; run again with GRADER_DEBUG=1 for the traceback, and report it.", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
