"""What the class got wrong: per chapter, each exercise's share at full marks, mean and the checks that
most often failed first, with a score histogram and per-exercise pass rates drawn beside the report.

A first failure is counted by the check that failed (the exercise and the check's own description, as
its test cell names it), not by the words of the verdict, which carry the values each learner's code
produced: four learners who hard-code one wrong number are one mistake, not four.

The same section is made from a class run's rows (`grader autograde` puts it in its report) and
from an already graded class (`grader report CHAPTER`): then the points come from nbgrader's
gradebook, so scores changed by hand in formgrader count, and the failures from the verdicts
`grader autograde` keeps in each autograded notebook (nbgrader's gradebook stores no verdict
text). It gives counts only, never a student's name.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from grader.autograde.jobs import Row
from grader.course import ANSI, grade_cells
from grader.errors import CourseError

#: Where the verdicts of each test cell are kept in an autograded notebook's metadata.
VERDICTS_KEY = "jax_beyond_jnp"
#: How many different first failures each exercise lists; the rest are counted in one line.
TOP_FAILURES = 3
#: What stands for a failure whose words were not kept (its autograded notebook is missing or holds none).
NO_VERDICT = "(no verdict recorded for this submission)"


@dataclass(frozen=True)
class Exercise:
    grade_id: str
    title: str  # "Exercise 1", as the test cell's docstring names it
    points: float
    heading: str = ""  # "Exercise 1: an aligned copy", as the exercise's own heading says (the figure's labels)


@dataclass(frozen=True)
class Failure:
    """The first failure of one test cell: the check that failed (named without values) and the first
    line of the verdict the learner saw."""

    check: str
    words: str


@dataclass
class Submission:
    """One scored submission of a chapter, without its student: per test cell, the points it got
    and its first failure (None when it got full marks)."""

    cells: dict[str, tuple[float, Failure | None]] = field(default_factory=dict)

    @property
    def score(self) -> float:
        return sum(points for points, _ in self.cells.values())


def exercises_of(course: Path, chapter: str) -> list[Exercise]:
    """The chapter's test cells in notebook order, with their titles, headings and points (from solutions/)."""
    from grader.autograde.gradebook import points
    from grader.course import read_notebook

    headings = exercise_headings(read_notebook(course / "solutions" / chapter / f"{chapter}.ipynb"))
    return [Exercise(gid, title, most, headings.get(gid, "")) for gid, (most, title) in points(course, chapter).items()]


#: A heading line of a notebook's markdown, its level marks taken off.
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)
#: What a heading says of an exercise's points: "(3 points)".
_POINTS = re.compile(r"\s*\(\s*[\d.]+\s+points?\s*\)\s*$")


def exercise_headings(nb) -> dict[str, str]:
    """Each test cell's exercise as its heading in the notebook names it, points left out: the nearest
    heading above the test cell that starts with the cell's title ("Exercise 1: an aligned copy" for
    "Exercise 1"). A test cell with no such heading is left out."""
    from grader.course import cell_title

    found = {}
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or not cell.get("metadata", {}).get("nbgrader", {}).get("grade"):
            continue
        title = cell_title(cell).split(":")[0]
        for above in reversed(nb.cells[:index]):
            if above.cell_type != "markdown":
                continue
            named = [h for h in _HEADING.findall(above.source) if re.match(rf"{re.escape(title)}\b", h)]
            if named:
                found[cell.metadata.nbgrader.grade_id] = _POINTS.sub("", named[-1])
                break
    return found


def first_line(message: str) -> str:
    """The failing check's words as the learner saw them first: the verdict's first line."""
    return next((line.strip() for line in str(message).splitlines() if line.strip()), "")


#: Where a verdict's words turn from the check to the values it saw ("…: expected 64, got 128").
_VALUES = re.compile(r": expected\b|: raised\b| should be\b| raised\b| returned\b|: \d+ of \d+ values differ|, got\b")
#: A memory address in a verdict ("0x7f3a…"): never part of what a check is.
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]+\b")


def check_of(message: str) -> str:
    """The check a verdict names, from its words alone, for a verdict kept without its check (one that
    nbgrader's own autograde recorded, or an older run's): its first line up to where the values begin,
    addresses masked. The verdicts of the course's checks all name the check first ("Exercise 1:
    aligned_copy(x) for a float32 x: expected …")."""
    line = first_line(message)
    crashed = re.match(r"(.+?): your code raised ([\w.]+)", line)
    if crashed:
        return f"{crashed.group(1)}: your code raised {crashed.group(2)}"
    if " is not answered yet" in line:
        return line.split(" is not answered yet")[0] + " is not answered yet"
    label, sep, rest = line.partition(": ")
    if sep:
        cut = _VALUES.search(rest)
        line = f"{label}: {rest[:cut.start()] if cut else rest}".rstrip(" :,")
    return _ADDRESS.sub("0x…", line)


def failure(got: float, most: float, message: str, check: str = "") -> Failure | None:
    """A test cell's first failure (None at full marks), its check named by the judge or read from its words."""
    if got >= most:
        return None
    words = first_line(message)
    if not words:
        return Failure(NO_VERDICT, NO_VERDICT)
    return Failure(check or check_of(words), words)


def from_rows(rows: list[Row], chapter: str) -> list[Submission]:
    """The scored submissions of `chapter` in a class run (a row that could not be graded has no score)."""
    out = []
    for row in rows:
        if row.chapter != chapter or row.score is None:
            continue
        out.append(Submission({gid: (got, failure(got, most, message, check))
                               for gid, (got, most, message, check) in row.exercises.items()}))
    return out


def verdicts_metadata(row: Row) -> dict:
    """What an autograded notebook keeps of its row, for `grader report` to read later."""
    return {"status": str(row.status), "verdicts": {
        gid: {"points": got, "max_points": most, "message": message, "check": check}
        for gid, (got, most, message, check) in row.exercises.items()}}


#: The exceptions the course's checks raise in a kernel, whose message is the verdict itself.
CHECK_ERRORS = ("CheckFailed", "NotAnswered", "AnswerCrashed")


def kept_verdicts(notebook: Path) -> dict[str, str]:
    """Each test cell's verdict as kept in an autograded notebook: from the metadata `grader
    autograde` writes; else, in a notebook graded otherwise, what its test cell showed: the
    "Graded: ... — <verdict>" line of an older run's feedback, or the error a plain `nbgrader
    autograde` (formgrader's Autograde button) recorded. {} when the notebook is missing or unreadable."""
    return {gid: message for gid, (message, _) in kept(notebook).items()}


def kept(notebook: Path) -> dict[str, tuple[str, str]]:
    """Each test cell's verdict and failed check, as `kept_verdicts` finds them; the check is "" where
    only the words were kept (then `check_of` reads it from them)."""
    try:  # read as plain JSON: only the metadata and the test cells' outputs are wanted, from many notebooks
        nb = nbformat.v4.reads(Path(notebook).read_text(encoding="utf-8"))  # lines joined, not validated
        stored = nb.metadata.get(VERDICTS_KEY, {}).get("verdicts", {})
        if stored:
            return {gid: (str(v.get("message", "")), str(v.get("check", "") or ""))
                    for gid, v in stored.items() if isinstance(v, dict)}
        return {gid: (message, "") for gid, message in _shown_verdicts(nb).items()}
    except Exception:  # missing, unreadable, or not a notebook
        return {}


def _shown_verdicts(nb) -> dict[str, str]:
    """The verdicts a notebook's test cells show in their outputs (see `kept_verdicts`)."""
    found = {}
    for cell in grade_cells(nb):
        for out in cell.get("outputs", []):
            kind = out.get("output_type")
            text = out.get("text", "") if kind == "stream" else ""
            if text.startswith("Graded: ") and " — " in text:
                found[cell.metadata.nbgrader.grade_id] = text.split(" — ", 1)[1]
                break
            if kind == "error":
                name, value = out.get("ename", ""), ANSI.sub("", str(out.get("evalue", ""))).strip()
                found[cell.metadata.nbgrader.grade_id] = value if name in CHECK_ERRORS else f"{name}: {value}"
                break
    return found


def from_gradebook(course: Path, chapter: str) -> list[Submission]:
    """The scored submissions of `chapter` in the course's gradebook (nbgrader's), with the points
    of each test cell as the gradebook has them (hand-made changes included) and, for a cell below
    full marks, the first line of the verdict kept in the submission's autograded notebook."""
    from grader.autograde.gradebook import db_url

    if not (course / "gradebook.db").is_file():
        raise CourseError(f"{course} has no gradebook.db: grade the class first (grader autograde)")
    from nbgrader.api import Gradebook, MissingEntry

    out = []
    with Gradebook(db_url(course)) as gb:
        try:
            gb.find_assignment(chapter)
        except MissingEntry:
            raise CourseError(f"the gradebook has no chapter {chapter}: grade it first "
                              f"(grader autograde {chapter})") from None
        for submitted in gb.assignment_submissions(chapter):
            notebook = course / "autograded" / submitted.student_id / chapter / f"{chapter}.ipynb"
            grades = [(g.name, float(g.score or 0.0), float(g.max_score or 0.0))
                      for nb in submitted.notebooks if nb.name == chapter for g in nb.grades]
            verdicts = kept(notebook) if any(got < most for _, got, most in grades) else {}
            out.append(Submission({gid: (got, failure(got, most, *verdicts.get(gid, ("", ""))))
                                   for gid, got, most in grades}))
    return out


# ---- the section --------------------------------------------------------------------------

def _number(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


def _share(count: int, total: int) -> str:
    return f"{count} of {total} ({round(100 * count / total) if total else 0}%)"


def _md(text: str) -> str:
    return " ".join(str(text).replace("|", "\\|").split())[:300]


def _words(text: str) -> str:
    """A verdict's words verbatim in a table cell: a code span (its fence longer than any run of
    backticks inside), pipes escaped, cut at 300 characters."""
    text = " ".join(str(text).split())[:300]
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}".replace("|", "\\|")


def section(chapter: str, exercises: list[Exercise], submissions: list[Submission], *, figures: Path,
            link: str) -> list[str]:
    """The "How the class did" section of `chapter` as markdown lines; its two figures are written
    into `figures` and linked as `link`/<name> (a path relative to the report)."""
    lines = [f"## How the class did: {chapter}", ""]
    n = len(submissions)
    if not n:
        return lines + ["No submission of this chapter has a score.", ""]
    most = sum(e.points for e in exercises)
    full = sum(1 for s in submissions if s.score >= most)
    mean = sum(s.score for s in submissions) / n
    lines += [f"{n} submission{'' if n == 1 else 's'} with a score: mean {_number(mean)} of {_number(most)} points; "
              f"{_share(full, n)} at full marks.", ""]
    try:
        names = draw(chapter, exercises, submissions, figures)
        lines += [f"![{what} ({chapter})]({link}/{name})" for what, name in names] + [""]
    except Exception as err:  # the numbers below still stand without their pictures
        lines += [f"**The figures could not be drawn** ({type(err).__name__}: {_md(err)}).", ""]
    lines += ["| exercise | points | at full marks | mean |", "| --- | ---: | ---: | ---: |"]
    for e in exercises:
        got = [s.cells[e.grade_id][0] for s in submissions if e.grade_id in s.cells]
        at_full = sum(1 for g in got if g >= e.points)
        lines.append(f"| {_md(e.title)} (`{e.grade_id}`) | {_number(e.points)} | {_share(at_full, len(got))} | "
                     f"{_number(sum(got) / len(got)) if got else '—'} |")
    lines += ["", "The checks that failed first most often (each submission below full marks counts once per "
                  "exercise, under the check that stopped it; an example of what such a learner was told beside it):",
              "", "| exercise | check that failed first | submissions | for example |", "| --- | --- | ---: | --- |"]
    any_failure = False
    for e in exercises:
        failures = [s.cells[e.grade_id][1] for s in submissions
                    if e.grade_id in s.cells and s.cells[e.grade_id][1] is not None]
        by_check = Counter(f.check for f in failures)
        ranked = sorted(by_check.items(), key=lambda item: (-item[1], item[0]))
        for check, count in ranked[:TOP_FAILURES]:
            said = Counter(f.words for f in failures if f.check == check)
            example = min(said, key=lambda words: (-said[words], words))
            lines.append(f"| {_md(e.title)} | {_words(check)} | {count} | "
                         f"{'' if example == check else _words(example)} |")
            any_failure = True
        rest = ranked[TOP_FAILURES:]
        if rest:
            lines.append(f"| {_md(e.title)} | {len(rest)} other checks | {sum(c for _, c in rest)} | |")
    if not any_failure:
        lines.append("| — | every submission got full marks on every exercise | 0 | |")
    return lines + [""]


def draw(chapter: str, exercises: list[Exercise], submissions: list[Submission], folder: Path) -> list[tuple[str, str]]:
    """The score histogram and the per-exercise pass rates of `chapter` as PNG files in `folder`;
    returns (what each shows, its file name)."""
    folder.mkdir(parents=True, exist_ok=True)
    names = [("Score histogram", f"{chapter}-scores.png"), ("Pass rate per exercise", f"{chapter}-pass-rates.png")]
    _save(score_histogram(chapter, exercises, submissions), folder / names[0][1])
    _save(pass_rates(chapter, exercises, submissions), folder / names[1][1])
    return names


def score_histogram(chapter: str, exercises: list[Exercise], submissions: list[Submission]):
    """How many submissions got each score, with the mean dashed (a matplotlib Figure)."""
    from matplotlib.figure import Figure  # imported only here: the rest of the grader never draws

    n, most = len(submissions), sum(e.points for e in exercises)
    scores = [s.score for s in submissions]
    fig = Figure(figsize=(6.4, 3.6), dpi=100, layout="constrained")
    ax = fig.add_subplot()
    top = int(max([most, *scores]) + 1)
    edges = [x - 0.5 for x in range(top + 1)]
    counts, _, _ = ax.hist(scores, bins=edges, color="#4c72b0", edgecolor="white")
    ax.set_xlim(-0.5, top - 0.5)
    ax.set_xticks(range(top))
    ax.set_ylim(0, max(counts) * 1.12 + 0.2)
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_xlabel(f"score (points of {_number(most)})")
    ax.set_ylabel("submissions")
    mean = sum(scores) / n
    ax.axvline(mean, color="#dd8452", linestyle="--")
    ax.set_title(f"{chapter}: scores of {n} submission{'' if n == 1 else 's'} (dashed: the mean, {_number(mean)})")
    return fig


def pass_rates(chapter: str, exercises: list[Exercise], submissions: list[Submission]):
    """Each exercise's share of submissions at full marks, one bar per exercise labelled by its heading
    (a matplotlib Figure)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.8, 0.9 + 0.55 * len(exercises)), dpi=100, layout="constrained")
    ax = fig.add_subplot()
    labels, shares, tallies = [], [], []
    for e in exercises:
        got = [s.cells[e.grade_id][0] for s in submissions if e.grade_id in s.cells]
        at_full = sum(1 for g in got if g >= e.points)
        labels.append(_label(e.heading or e.title))
        shares.append(100 * at_full / len(got) if got else 0.0)
        tallies.append(f"{at_full} of {len(got)}")
    rows = list(range(len(exercises)))[::-1]  # the first exercise on top
    bars = ax.barh(rows, shares, color="#55a868")
    ax.bar_label(bars, labels=tallies, padding=3)
    ax.set_yticks(rows, labels)
    ax.set_xlim(0, 115)
    ax.set_xticks(range(0, 101, 20))
    ax.set_xlabel("submissions at full marks (%)")
    ax.set_title(f"{chapter}: share at full marks per exercise")
    return fig


def _label(text: str, width: int = 34) -> str:
    """A bar's label: the exercise's heading, on two lines when long, cut after that."""
    import textwrap

    lines = textwrap.wrap(text, width) or [text]
    return "\n".join(lines[:2]) + ("…" if len(lines) > 2 else "")


def _save(fig, path: Path) -> None:
    tmp = path.with_name(path.name + ".tmp")
    fig.savefig(tmp, format="png")
    os.replace(tmp, path)


def figures_folder(report: Path) -> Path:
    """The folder beside a report that holds its figures: autograde-report.md -> autograde-report-figures/."""
    return report.with_name(f"{report.stem}-figures")


def sections(report: Path, rows: list[Row], course: Path | None) -> list[str]:
    """The section of every chapter graded in a class run, figures beside `report`."""
    lines = []
    for chapter in sorted({r.chapter for r in rows if r.chapter and r.score is not None}):
        try:
            exercises = exercises_of(course, chapter) if course is not None else None
        except Exception:
            exercises = None
        if not exercises:  # no solution at hand: the rows' own test cells, by id
            first = next(r for r in rows if r.chapter == chapter and r.score is not None)
            exercises = [Exercise(gid, gid, scored.max_points) for gid, scored in first.exercises.items()]
        figures = figures_folder(report)
        lines += section(chapter, exercises, from_rows(rows, chapter), figures=figures, link=figures.name)
    return lines


def report(*, course: Path, chapter: str, out: Path | None = None) -> Path:
    """`grader report CHAPTER`: the chapter's "How the class did" section, from the gradebook and the
    autograded notebooks of an already graded class, written to `out` (default
    class-report-<chapter>.md in the course folder) with its figures in the folder beside it."""
    from grader.course import select_chapters

    course = Path(course).resolve()
    select_chapters([chapter], course)
    out = Path(out) if out is not None else course / f"class-report-{chapter}.md"
    submissions = from_gradebook(course, chapter)
    figures = figures_folder(out)
    lines = [f"# Class report: {chapter}", "",
             f"Points from the gradebook ({course / 'gradebook.db'}, changes made in formgrader included); "
             f"failures from the verdicts kept in {course / 'autograded'}.", ""]
    lines += section(chapter, exercises_of(course, chapter), submissions, figures=figures, link=figures.name)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text("\n".join(lines) + "\n")
    os.replace(tmp, out)
    return out
