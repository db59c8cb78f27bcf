"""The report stage: grades.csv and the report before feedback, and a report that states what was applied."""

from __future__ import annotations

import csv

import pytest

from grader.autograde import report, sandbox
from grader.autograde.jobs import Row

LIMITS = sandbox.Limits()


def _rows(applied):
    return [Row("kim", "00_start_here", "graded", 8.0, 8.0, exercises={"ex1_test": (8.0, 8.0, "")}, applied=applied),
            Row("lee", "00_start_here", "failed: broken JSON", None, 8.0)]


def test_csv_and_report_are_written_even_when_feedback_crashes(tmp_path, monkeypatch):
    """When writing HTML feedback raises, are grades.csv and the report still written, complete, and
    does the run say that feedback failed?"""
    def broken(course, rows):
        raise OSError("disk full")

    monkeypatch.setattr(report, "write_feedback", broken)
    probe = sandbox.Probe(True, "", "v1")
    csv_path, report_path, problems = report.write_all(tmp_path, _rows({}), probe=probe, limits=LIMITS, workers=2,
                                                       seconds=1.0, feedback=True)
    with open(csv_path, newline="") as f:
        assert [r["student"] for r in csv.DictReader(f)] == ["kim", "lee"]
    text = report_path.read_text()
    assert "| kim |" in text and "| lee |" in text
    assert len(problems) == 1 and "HTML feedback could not be written (OSError: disk full)" in problems[0]
    assert "HTML feedback could not be written" in text


def test_the_report_states_the_limits_really_applied_not_the_ones_intended(tmp_path):
    """When cgroups exist on the machine but no kernel joined one, does the report say no cgroup limit
    was applied (and which), instead of "on"?"""
    probe = sandbox.Probe(True, "", "v1")
    none = report.write_report(tmp_path / "a.md", _rows({"launched": True, "sandbox": True, "unprivileged": True,
                                                         "cgroup": []}), probe, LIMITS, 2, 1.0).read_text()
    assert "cgroup limits: **none applied**" in none and "processes, memory, cpu" in none
    some = report.write_report(tmp_path / "b.md", _rows({"launched": True, "sandbox": True, "unprivileged": True,
                                                         "cgroup": ["processes", "memory"]}),
                               probe, LIMITS, 2, 1.0).read_text()
    assert "at most 1024 processes and threads (1 of 1 kernels)" in some and "Not applied to every kernel: cpu" in some


def test_the_report_lists_flagged_cells_and_points_decided_in_the_kernel(tmp_path):
    """Does the report list answer cells flagged for review, and say per chapter how many points
    rest on in-kernel properties (`checks.true`), whether a test cell calls it or a self-check
    function of grader/selfchecks does? The course's own chapters record values that the judge
    compares outside the kernel (none rests there); a test cell given a `checks.true` is counted."""
    import ast
    import shutil

    import nbformat

    from conftest import ROOT

    (tmp_path / "solutions").mkdir()
    for chapter in ("01_numpy_interop", "08_autodiff_batching_rules", "12_fast_kernels"):
        shutil.copytree(ROOT / "solutions" / chapter, tmp_path / "solutions" / chapter)
    faked = tmp_path / "solutions" / "01_numpy_interop" / "01_numpy_interop.ipynb"
    nb = nbformat.read(faked, as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex2_test")
    cell.source += "\nchecks.true(True, 'decided in the kernel')\n"
    nbformat.write(nb, faked)
    rows = [Row("kim", "01_numpy_interop", "graded", 10.0, 10.0, flagged=["cell 30 (from grader import checks) uses checks"]),
            Row("kim", "08_autodiff_batching_rules", "graded", 10.0, 10.0),
            Row("kim", "12_fast_kernels", "graded", 10.0, 10.0)]
    text = report.write_report(tmp_path / "r.md", rows, sandbox.Probe(True, ""), LIMITS, 1, 1.0,
                               course=tmp_path).read_text()
    assert "## Flagged for review" in text and "cell 30 (from grader import checks) uses checks" in text

    def resting(chapter):
        line = next(line for line in text.splitlines() if line.startswith(f"- {chapter}:"))
        points, total = line.split(": ")[1].split(" points")[0].split(" of ")
        return float(points), float(total), line

    points, total, line = resting("01_numpy_interop")
    assert 0 < points < total and line.endswith(": ex2_test"), line
    for chapter in ("08_autodiff_batching_rules", "12_fast_kernels"):
        points, total, line = resting(chapter)
        assert points == 0 < total and line.endswith("(`checks.true`)"), line

    # A self-check function that calls checks.true itself, or through a helper of its module.
    module = ast.parse("def helper(x):\n    checks.true(x, 'm')\n"
                       "def exercise1(f):\n    helper(f(1))\n"
                       "def exercise2(f):\n    checks.close(f(1), 1.0, what='f(1)')\n")
    assert report._decides_in_kernel(module, "exercise1")
    assert not report._decides_in_kernel(module, "exercise2")


# ---- what the class got wrong ------------------------------------------------------------------

def _class_rows() -> list[Row]:
    """Six scored submissions and one that could not be graded, with the verdicts the judge gives."""
    ok = (2.0, 2.0, "")

    def missing(title):
        return 0.0, 2.0, f"{title} is not answered yet"

    wrong_sum = (0.0, 2.0, "Exercise 1: sum_of_squares([1, 2]) returned 3.0, expected 5.0\nhint: square, then sum")
    quiz = (0.0, 2.0, "Quiz: 2 of 4 answers are wrong: q1, q3")
    cells = [(ok, ok, ok, ok), (ok, missing("Exercise 2"), missing("Exercise 3"), quiz), (wrong_sum, ok, ok, ok),
             (missing("Exercise 1"), missing("Exercise 2"), missing("Exercise 3"), missing("Quiz")),
             (wrong_sum, ok, (0.0, 2.0, "Exercise 3: make_cube(2) returned 6, expected 8\nhint: x * x * x"), ok),
             (ok, ok, ok, ok)]
    rows = []
    for number, four in enumerate(cells):
        exercises = dict(zip(("ex1_test", "ex2_test", "ex3_test", "quiz_test"), four))
        rows.append(Row(f"student-{number}", "00_start_here", "graded", sum(p for p, _, _ in four), 8.0,
                        exercises=exercises))
    rows.append(Row("student-broken", "00_start_here", "failed: broken JSON", None, 8.0))
    return rows


def _section(text: str, chapter: str) -> str:
    start = text.index(f"## How the class did: {chapter}")
    end = text.find("\n## ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def _table(section: str, header: str) -> list[list[str]]:
    """The rows of the markdown table whose header row starts with `header`, as cell texts."""
    lines = section.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows


def _png_size(path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_the_report_says_how_the_class_did_per_exercise(tmp_path):
    """Does the report's class section give, per exercise, the share at full marks, the mean and the checks
    that failed first most often (named without values, counted, with an example), over the scored
    submissions, without a name?"""
    from conftest import ROOT

    rows = _class_rows()
    (tmp_path / "solutions").mkdir()
    import shutil

    shutil.copytree(ROOT / "solutions" / "00_start_here", tmp_path / "solutions" / "00_start_here")
    text = report.write_report(tmp_path / "autograde-report.md", rows, sandbox.Probe(True, ""), LIMITS, 1, 1.0,
                               course=tmp_path).read_text()
    section = _section(text, "00_start_here")
    assert "6 submissions with a score: mean 4.67 of 8 points; 2 of 6 (33%) at full marks." in section
    assert _table(section, "| exercise | points |") == [
        ["Exercise 1 (`ex1_test`)", "2", "3 of 6 (50%)", "1"],
        ["Exercise 2 (`ex2_test`)", "2", "4 of 6 (67%)", "1.33"],
        ["Exercise 3 (`ex3_test`)", "2", "3 of 6 (50%)", "1"],
        ["Quiz (`quiz_test`)", "2", "4 of 6 (67%)", "1.33"]]
    assert _table(section, "| exercise | check that failed first |") == [
        ["Exercise 1", "`Exercise 1: sum_of_squares([1, 2])`", "2",
         "`Exercise 1: sum_of_squares([1, 2]) returned 3.0, expected 5.0`"],
        ["Exercise 1", "`Exercise 1 is not answered yet`", "1", ""],
        ["Exercise 2", "`Exercise 2 is not answered yet`", "2", ""],
        ["Exercise 3", "`Exercise 3 is not answered yet`", "2", ""],
        ["Exercise 3", "`Exercise 3: make_cube(2)`", "1", "`Exercise 3: make_cube(2) returned 6, expected 8`"],
        ["Quiz", "`Quiz is not answered yet`", "1", ""],
        ["Quiz", "`Quiz: 2 of 4 answers are wrong: q1, q3`", "1", ""]]
    assert "hint" not in section and "student-" not in section
    for name in ("00_start_here-scores.png", "00_start_here-pass-rates.png"):
        assert f"](autograde-report-figures/{name})" in section
        width, height = _png_size(tmp_path / "autograde-report-figures" / name)
        assert width >= 600 and height >= 200, (name, width, height)


def test_the_class_section_lists_three_failures_per_exercise_and_counts_the_rest(tmp_path):
    """With more failed checks than it lists, does an exercise show the three that failed most often (ties in
    the checks' order) and one line counting the others?"""
    from grader.autograde import class_report

    exercises = [class_report.Exercise("ex1_test", "Exercise 1", 2.0)]
    checks = ["d", "a", "a", "b", "b", "c", "c", "c", "e"]
    submissions = [class_report.Submission({"ex1_test": (0.0, class_report.Failure(f"Exercise 1: {c}",
                                                                                   f"Exercise 1: {c}: got {n}"))})
                   for n, c in enumerate(checks)]
    submissions.append(class_report.Submission({"ex1_test": (2.0, None)}))
    section = "\n".join(class_report.section("00_start_here", exercises, submissions, figures=tmp_path, link="f"))
    assert _table(section, "| exercise | check that failed first |") == [
        ["Exercise 1", "`Exercise 1: c`", "3", "`Exercise 1: c: got 5`"],
        ["Exercise 1", "`Exercise 1: a`", "2", "`Exercise 1: a: got 1`"],
        ["Exercise 1", "`Exercise 1: b`", "2", "`Exercise 1: b: got 3`"],
        ["Exercise 1", "2 other checks", "2", ""]]
    assert _table(section, "| exercise | points |") == [["Exercise 1 (`ex1_test`)", "2", "1 of 10 (10%)", "0.2"]]


def _wrong(got):
    """The judge's verdict on one learner's Exercise 2 that returned `got` where the reference returned 32."""
    from grader.autograde.judge import judge
    from grader.notebook.record import encode

    def cell(value):
        return {"end": "ok", "checks": [{"kind": "equal", "got": encode(value), "what": "total_bytes(x) for a "
                                         "float32 x of shape (4, 2)", "hint": "count every element"}]}

    return judge("Exercise 2", cell(32), cell(got))


def test_one_mistake_is_one_row_however_many_values_it_produced(tmp_path):
    """Four submissions hard-code a number where Exercise 2 needs a computed one; their verdicts carry the
    values each produced (128, 128, 64, 96). Do they count as one failed check of four submissions, named
    by the check (not by a value), both when the judge names the check (`grader autograde`) and when only
    the verdicts' words were kept (nbgrader's own autograde, from formgrader)?"""
    from grader.autograde import class_report

    verdicts = [_wrong(got) for got in (128, 128, 64, 96)]
    assert len({v.message for v in verdicts}) == 3 and len({v.check for v in verdicts}) == 1, verdicts
    exercises = [class_report.Exercise("ex2_test", "Exercise 2", 2.0)]
    rows = [Row(f"s{n}", "00_start_here", "graded", 0.0, 2.0, exercises={"ex2_test": (0.0, 2.0, v.message, v.check)})
            for n, v in enumerate(verdicts)]
    words_only = [Row(r.student, r.chapter, r.status, 0.0, 2.0, exercises={"ex2_test": (0.0, 2.0, v.message)})
                  for r, v in zip(rows, verdicts)]
    for given in (rows, words_only):
        section = "\n".join(class_report.section("00_start_here", exercises, class_report.from_rows(given, "00_start_here"),
                                                 figures=tmp_path, link="f"))
        assert _table(section, "| exercise | check that failed first |") == [
            ["Exercise 2", "`Exercise 2: total_bytes(x) for a float32 x of shape (4, 2)`", "4",
             "`Exercise 2: total_bytes(x) for a float32 x of shape (4, 2): expected 32, got 128`"]], section


def test_the_pass_rate_bars_are_labelled_by_the_exercises_headings():
    """Is each bar of the pass-rate figure labelled by its exercise's heading in the notebook ("Exercise 1: an
    aligned copy"), the quiz included, in the chapter's order, not by a grade id?"""
    from conftest import ROOT
    from grader.autograde import class_report

    exercises = class_report.exercises_of(ROOT, "01_numpy_interop")
    submissions = [class_report.Submission({e.grade_id: (e.points, None) for e in exercises})]
    figure = class_report.pass_rates("01_numpy_interop", exercises, submissions)
    ticks = sorted(figure.axes[0].get_yticklabels(), key=lambda t: -t.get_position()[1])
    labels = [" ".join(t.get_text().split()) for t in ticks]
    assert labels[0] == "Exercise 1: an aligned copy" and labels[-1] == "Quiz", labels
    assert [label.split(":")[0] for label in labels] == [e.title for e in exercises], labels
    assert not any("_test" in label for label in labels), labels


def test_a_verdict_with_backticks_or_pipes_stays_one_table_cell():
    """Is a verdict holding backticks and a pipe shown verbatim in one code span of one table cell?"""
    from grader.autograde.class_report import _words

    assert _words("Exercise 2: `x | y` returned 1") == "``Exercise 2: `x \\| y` returned 1``"
    assert _words("plain") == "`plain`"


def test_verdicts_are_read_back_from_an_autograded_notebook(tmp_path):
    """Does `grader report` find each cell's verdict in an autograded notebook: in the metadata the
    autograder writes, else in the "Graded: … — verdict" line of the feedback (an older run), else
    in the error a plain nbgrader autograde recorded (the checks' own message, or the error's)?"""
    import nbformat

    from grader.autograde import class_report

    cell = nbformat.v4.new_code_cell("checks()", metadata={"nbgrader": {"grade": True, "grade_id": "ex1_test",
                                                                        "points": 2, "solution": False}})
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout",
                                           text="Graded: 0 / 2 — Exercise 1: expected 5.0\nhint: square\n")]
    nb = nbformat.v4.new_notebook(cells=[cell])
    older = tmp_path / "older.ipynb"
    nbformat.write(nb, older)
    assert class_report.kept_verdicts(older) == {"ex1_test": "Exercise 1: expected 5.0\nhint: square\n"}
    row = Row("kim", "00_start_here", "graded", 0.0, 2.0, exercises={"ex1_test": (0.0, 2.0, "Exercise 1: kept")})
    nb.metadata[class_report.VERDICTS_KEY] = class_report.verdicts_metadata(row)
    newer = tmp_path / "newer.ipynb"
    nbformat.write(nb, newer)
    assert class_report.kept_verdicts(newer) == {"ex1_test": "Exercise 1: kept"}
    assert class_report.kept_verdicts(tmp_path / "missing.ipynb") == {}
    plain = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("checks()", metadata={"nbgrader": dict(
        cell.metadata["nbgrader"], grade_id=gid)}) for gid in ("ex1_test", "ex2_test")])
    plain.cells[0].outputs = [nbformat.v4.new_output("error", ename="NotAnswered", traceback=[],
                                                     evalue="\x1b[31mExercise 1 is not answered yet: run it\x1b[0m")]
    plain.cells[1].outputs = [nbformat.v4.new_output("error", ename="ZeroDivisionError", evalue="division by zero",
                                                     traceback=[])]
    nbformat.write(plain, tmp_path / "plain.ipynb")
    assert class_report.kept_verdicts(tmp_path / "plain.ipynb") == {
        "ex1_test": "Exercise 1 is not answered yet: run it", "ex2_test": "ZeroDivisionError: division by zero"}


def test_grader_report_says_what_is_missing_when_the_class_was_not_graded(tmp_path, capsys):
    """Does `grader report` on a course with no gradebook, or for an unknown chapter, exit 2 with one
    line that says what to do, instead of a traceback?"""
    import shutil

    from conftest import ROOT
    from grader.cli import main

    shutil.copytree(ROOT / "solutions" / "00_start_here", tmp_path / "solutions" / "00_start_here")
    assert main(["report", "00_start_here", "--course", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("grader report: ") and "no gradebook.db" in err and "grader autograde" in err, err
    assert main(["report", "99_nothing", "--course", str(tmp_path)]) == 2
    assert "unknown chapter '99_nothing'; the chapters are: 00_start_here" in capsys.readouterr().err
    assert not list(tmp_path.glob("class-report-*"))


def test_a_crash_of_the_grader_keeps_its_traceback_in_the_report(tmp_path):
    """When the grader's own code fails on a submission (here: the job names a solution notebook that is
    not there), does the row say so in one line while the report's last section keeps the traceback, once
    for the submissions it cost?"""
    import json

    from grader.autograde import judge, worker
    from grader.autograde.jobs import Job, KernelRun

    job = {"student": "kim", "chapter": "00_start_here", "notebook": str(tmp_path / "kim.ipynb"),
           "source": str(tmp_path / "gone.ipynb"), "executed": str(tmp_path / "out.ipynb"),
           "limits": {}, "sandboxed": False}
    (tmp_path / "job.json").write_text(json.dumps(job))
    assert worker.main([str(tmp_path / "job.json"), str(tmp_path / "result.json")]) == 0
    run = KernelRun.from_dict(json.loads((tmp_path / "result.json").read_text()))
    assert run.status == "failed" and run.reason.startswith("the grader failed on this submission (UsageError"), run
    rows = [judge.make_row(Job(name, "00_start_here", tmp_path / "kim.ipynb"), run, {}, {}, None)
            for name in ("kim", "lee")]
    assert all("\n" not in row.status and row.trace == run.trace for row in rows), rows
    text = report.write_report(tmp_path / "r.md", rows, sandbox.Probe(True, ""), LIMITS, 1, 1.0).read_text()
    section = text.split("## Where the grader itself failed", 1)[1]
    assert "- kim (00_start_here), lee (00_start_here):" in section
    assert section.count("Traceback (most recent call last)") == 1 and "read_notebook" in section, section
    assert "## Where the grader itself failed" not in report.write_report(
        tmp_path / "clean.md", _rows({}), sandbox.Probe(True, ""), LIMITS, 1, 1.0).read_text()
