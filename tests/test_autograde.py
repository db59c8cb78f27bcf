"""grader autograde on a synthetic class: every submission accounted for, hostile ones earn nothing.

The class (tests/synthetic_class.py) is graded once, through the command line as an instructor
would run it, with short time limits; each test then checks one outcome.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

import synthetic_class
from conftest import ROOT
from grader.autograde import sandbox

CHEATS = ["patched-asserts", "always-equal", "input-transformer", "stderr-to-stdout", "snoop"]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    return synthetic_class.grade(tmp_path_factory.mktemp("class"), ROOT)


pytestmark = pytest.mark.slow


def test_the_batch_finishes_with_a_row_for_every_submission(graded):
    """Does the whole class grade in one run, exit 0, and give each submission exactly one row?"""
    proc = graded["proc"]
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert set(graded["rows"]) == set(graded["expected"]), set(graded["rows"]) ^ set(graded["expected"])
    assert f"{len(graded['expected'])} submissions:" in proc.stdout


def _outcome_test(student: str):
    def test(graded):
        problem = synthetic_class.outcome_problem(graded, student)
        assert problem is None, problem
    test.__doc__ = f"Does {student!r} get exactly its expected score, status and reason?"
    return test


EXPECTED_STUDENTS = [
    "correct", "blank", "wrong", "partial", "loop", "cpu-hog", "sigint-proof-loop", "memory-bomb", "many-lines", "huge-line",
    "very-late", "no-timestamp", "garbage-timestamp", "duplicate-test-cell", "patched-asserts", "always-equal",
    "input-transformer", "stderr-to-stdout", "snoop", "segfault", "os-exit", "warning-in-test", "edited-test-cell",
    "deleted-test-cell", "retyped-test-cell", "changed-points", "changed-kernelspec", "malformed-json",
    "wrong-schema", "wrong-chapter", "misnamed", "__reference__", "forged-record", "too-many-cells",
    "smithjane-12345", "doejohn-23456", "jane-smith-1001", "jane-smith-2002", "leekim-34567", "ann-lee-4004",
]
for _student in EXPECTED_STUDENTS:
    globals()[f"test_outcome_of_{_student.replace('-', '_').strip('_')}"] = _outcome_test(_student)


def test_every_kind_of_submission_is_in_the_class(graded):
    """Does the synthetic class hold exactly the kinds of submission listed here?"""
    assert sorted(graded["expected"]) == sorted(EXPECTED_STUDENTS)


def test_no_cheat_scores_above_an_honest_wrong_answer(graded):
    """Do patched asserts, an always-equal object, an input transformer, stderr tricks and snooping earn nothing?"""
    honest = float(graded["rows"]["wrong"]["score"])
    for student in CHEATS:
        assert float(graded["rows"][student]["score"]) <= honest, graded["rows"][student]


def test_student_code_cannot_see_solutions_the_gradebook_or_the_network(graded):
    """In the sandbox, do reads of solutions/, gradebook.db, other submissions and /etc/shadow fail, and the network too?"""
    if not sandbox.probe().sandboxed:
        pytest.fail(f"no sandbox on this machine: {sandbox.probe().reason}")
    line = synthetic_class.snoop_line(graded)
    assert "READ" not in line and "REACHED" not in line, line
    assert line.count("FileNotFoundError") + line.count("PermissionError") == 5, line


def test_a_cpu_hog_gets_its_share_and_no_more(graded):
    """Does a submission that keeps four processes busy get one core's time, so that the submissions
    graded beside it (whose outcomes are tested above) keep theirs?"""
    probe = sandbox.probe()
    if not probe.cgroups:
        pytest.fail(f"no cgroup for CPU shares on this machine: {probe.reason or 'cgroups unavailable'}")
    nb = (graded["course"] / "autograded" / "cpu-hog" / "00_start_here" / "00_start_here.ipynb").read_text()
    share = float(re.search(r"CPU-HOG ([0-9.]+) cores", nb).group(1))
    assert 0 < share <= 1.25, f"the hog had {share} cores on average; its share is 1"


def test_submissions_are_never_modified(graded):
    """Is a submission folder byte for byte the same after grading?"""
    assert synthetic_class.tree_digest(graded["course"] / "submitted" / "correct") == graded["submitted_before"]


def test_gradebook_feedback_and_report_agree_with_grades_csv(graded):
    """Does the nbgrader gradebook hold each graded score, with HTML feedback and a report line per student?"""
    from nbgrader.api import Gradebook

    course, rows = graded["course"], graded["rows"]
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        scores = {s.student_id: s.score for s in gb.assignment_submissions(synthetic_class.CHAPTER)}
    for student, row in rows.items():
        if row["score"]:
            assert scores[student] == float(row["score"]), student
            assert (course / "feedback" / student / "00_start_here" / "00_start_here.html").exists(), student
    report = (course / "autograde-report.md").read_text()
    assert all(f"| {student} |" in report.replace("\\-", "-") for student in rows)
    assert ("Sandbox: **on**" in report) == sandbox.probe().sandboxed
    if sandbox.probe().sandboxed:  # every kernel came from a worker's zygote
        forked = re.search(r"Kernel start: (\d+) of (\d+) kernels were forked", report)
        assert forked and forked[1] == forked[2], report[:3000]
    if sandbox.probe().sandboxed and sandbox.runs_as_root():
        # Kernels that start once the reference has run get all its compilations, sealed.
        sealed = re.search(r"JAX compilations: of (\d+) submissions' kernels, (\d+) started with every", report)
        assert sealed and int(sealed[2]) > 0, report[:3000]


# ---- what the class got wrong -------------------------------------------------------------------

def _class_section(report: str) -> str:
    start = report.index(f"## How the class did: {synthetic_class.CHAPTER}")
    end = report.find("\n## ", start + 1)
    return report[start:] if end < 0 else report[start:end]


def _md_table(section: str, header: str) -> list[list[str]]:
    lines = section.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows


def _per_exercise(report: str) -> dict[str, dict[str, tuple[float, float, str]]]:
    """What each row of the run says per test cell, from the report's "Per exercise" list: points,
    most points, and the verdict's first line (the line before its hint)."""
    found = {}
    for line in report.split("## Per exercise", 1)[1].splitlines():
        match = re.match(r"- \*\*(.+?)\*\* \((\S+)\): (.*)", line)
        if not match:
            continue
        cells = {}
        for part in re.split(r"; (?=\w+_test \d)", match.group(3)):
            gid, got, most, message = re.match(r"(\w+) ([\d.]+)/([\d.]+)(?: \((.*)\))?$", part).groups()
            first = " ".join((message or "").replace("\\|", "|").split(" hint: ")[0].split())[:300]
            cells[gid] = (float(got), float(most), first)
        found[match.group(1).replace("\\-", "-")] = cells
    return found


def _checks(graded) -> dict[str, dict[str, str]]:
    """Each scored student's failed check per test cell, as the autograder kept it in their autograded notebook."""
    from grader.autograde.class_report import kept

    ch = synthetic_class.CHAPTER
    return {s: {gid: check for gid, (_, check) in kept(graded["course"] / "autograded" / s / ch / f"{ch}.ipynb").items()}
            for s, r in graded["rows"].items() if r["score"] != ""}


def _expected_class(graded) -> tuple[str, list[list[str]], dict[tuple[str, str], int]]:
    """The section's first line, its exercise table and its failure counts by (exercise, check that failed),
    worked out from grades.csv, the per-exercise points of the rows and the checks the autograder kept."""
    from collections import Counter

    report = (graded["course"] / "autograde-report.md").read_text()
    scored = {s: r for s, r in graded["rows"].items() if r["score"] != ""}
    cells = _per_exercise(report)
    checks = _checks(graded)
    assert set(cells) >= set(scored), set(scored) - set(cells)
    scores = [float(r["score"]) for r in scored.values()]
    most = float(next(iter(scored.values()))["max_score"])
    full = sum(1 for s in scores if s >= most)
    mean = sum(scores) / len(scores)
    first = (f"{len(scores)} submissions with a score: mean {mean:.2f}".rstrip("0").rstrip(".") +
             f" of {most:g} points; {full} of {len(scores)} ({round(100 * full / len(scores))}%) at full marks.")
    titles = {"ex1_test": "Exercise 1", "ex2_test": "Exercise 2", "ex3_test": "Exercise 3", "quiz_test": "Quiz"}
    table, failures = [], Counter()
    for gid, title in titles.items():
        got = [cells[s][gid] for s in scored]
        at_full = sum(1 for points, top, _ in got if points >= top)
        mean = f"{sum(p for p, _, _ in got) / len(got):.2f}".rstrip("0").rstrip(".")
        table.append([f"{title} (`{gid}`)", f"{got[0][1]:g}", f"{at_full} of {len(got)} "
                      f"({round(100 * at_full / len(got))}%)", mean])
        for s in scored:
            points, top, _ = cells[s][gid]
            if points < top:
                assert checks[s].get(gid), (s, gid, "no check kept for a failed cell")
                failures[(title, checks[s][gid])] += 1
    return first, table, failures


def test_the_report_says_what_the_class_got_wrong(graded):
    """Does the report's "How the class did" section give the number of scored submissions, their mean,
    each exercise's share at full marks and mean, and the checks that failed first most often with counts,
    as grades.csv and the rows' verdicts say, each named without a learner's values and without naming a
    student?"""
    report = (graded["course"] / "autograde-report.md").read_text()
    section = _class_section(report)
    first, table, failures = _expected_class(graded)
    assert first in section, section[:600]
    assert _md_table(section, "| exercise | points |") == table
    listed = _md_table(section, "| exercise | check that failed first |")
    named = [(title, check.strip("`").strip().replace("\\|", "|"), int(count))
             for title, check, count, _ in listed if check.startswith("`")]
    for title in ("Exercise 1", "Exercise 2", "Exercise 3", "Quiz"):
        ranked = sorted((-n, check) for (t, check), n in failures.items() if t == title)
        assert [(c, n) for t, c, n in named if t == title] == [(c, -n) for n, c in ranked[:3]], (title, listed)
        rest = [row[:3] for row in listed if row[0] == title and not row[1].startswith("`")]
        assert rest == ([[title, f"{len(ranked) - 3} other checks", str(-sum(n for n, _ in ranked[3:]))]]
                        if len(ranked) > 3 else []), (title, rest)
    # The commonest mistake of exercise 1 is its wrong answer's: squaring the sum.
    assert any(c.startswith("Exercise 1: sum_of_squares") for t, c, _ in named if t == "Exercise 1"), listed
    distinctive = [s for s in graded["expected"] if "-" in s or any(ch.isdigit() for ch in s)]
    assert not [s for s in distinctive if s in section], "the class section names a student"


def test_grader_report_makes_the_same_section_from_the_gradebook_and_counts_changes_made_by_hand(graded, tmp_path):
    """For the graded class, does `grader report` make the run's section and figures again from
    gradebook.db and autograded/, and, after a score is changed by hand in the gradebook (as in
    formgrader), count it?"""
    from nbgrader.api import Gradebook

    from grader.autograde.class_report import report as class_report

    course = tmp_path / "course"
    course.mkdir()
    for name in ("nbgrader_config.py", "gradebook.db"):
        shutil.copy(graded["course"] / name, course / name)
    for folder in ("solutions", "autograded"):
        shutil.copytree(graded["course"] / folder, course / folder)
    proc = subprocess.run([sys.executable, "-m", "grader", "report", synthetic_class.CHAPTER, "--course", str(course)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    written = course / f"class-report-{synthetic_class.CHAPTER}.md"
    ran = _class_section((graded["course"] / "autograde-report.md").read_text())
    again = _class_section(written.read_text())
    assert again.replace(f"class-report-{synthetic_class.CHAPTER}-figures", "F").rstrip() == \
        ran.replace("autograde-report-figures", "F").rstrip()
    assert again in proc.stdout
    for name in ("scores", "pass-rates"):
        png = course / f"class-report-{synthetic_class.CHAPTER}-figures" / f"{synthetic_class.CHAPTER}-{name}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", png

    # The instructor gives a learner whose exercise 1 failed its points by hand.
    _, _, failures = _expected_class(graded)
    cells, checks = _per_exercise((graded["course"] / "autograde-report.md").read_text()), _checks(graded)
    (title, check), count = max(((k, n) for k, n in failures.items() if k[0] == "Exercise 1"), key=lambda kn: kn[1])
    student = next(s for s, row in graded["rows"].items()
                   if row["score"] != "" and cells[s]["ex1_test"][0] == 0 and checks[s].get("ex1_test") == check)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        gb.find_grade("ex1_test", synthetic_class.CHAPTER, synthetic_class.CHAPTER, student).manual_score = 2.0
        gb.db.commit()
    changed = _class_section(class_report(course=course, chapter=synthetic_class.CHAPTER).read_text())
    before = {row[0]: row for row in _md_table(again, "| exercise | points |")}
    after = {row[0]: row for row in _md_table(changed, "| exercise | points |")}
    n = int(before["Exercise 1 (`ex1_test`)"][2].split(" of ")[0])
    assert after["Exercise 1 (`ex1_test`)"][2].startswith(f"{n + 1} of "), (before, after)
    counts = {(r[0], r[1]): int(r[2]) for r in _md_table(changed, "| exercise | check that failed first |")}
    assert counts.get((title, f"`{check}`"), 0) == count - 1, counts
