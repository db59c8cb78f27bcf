"""A class through nbgrader's exchange: release, fetch, submit, collect, autograde, feedback back to the learner."""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from grader.course import grade_cells, read_notebook, solution_path

CHAPTER = "00_start_here"   # the cheapest chapter
COURSE_ID = "jax-beyond-jnp"


def nbgrader(args: list[str], *, cwd: Path, env: dict[str, str], what: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"{what} (nbgrader {args[0]}) failed:\n{log[-3000:]}"
    assert "Traceback" not in log, f"{what} (nbgrader {args[0]}) logged an error:\n{log[-3000:]}"
    return log


def answer_everything(path: Path) -> None:
    """Write the reference solution into each answer cell of a fetched notebook, as a learner would."""
    solutions = {c.metadata["nbgrader"]["grade_id"]: c.source for c in read_notebook(solution_path(CHAPTER)).cells
                 if c.metadata.get("nbgrader", {}).get("solution")}
    nb = nbformat.read(path, as_version=4)
    answered = 0
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.metadata.get("nbgrader", {}).get("solution") and grade_id in solutions:
            cell.source = "\n".join(line for line in solutions[grade_id].splitlines()
                                    if line.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION"))
            answered += 1
    assert answered == len(solutions), f"the fetched notebook has {answered} of {len(solutions)} answer cells"
    nbformat.write(nb, path)


@pytest.mark.slow
def test_exchange_round_trip_brings_the_score_back_to_the_learner(course_copy, tmp_path):
    """Released, fetched, answered, submitted, collected, autograded: does the learner fetch feedback with the score?"""
    from nbgrader.utils import get_username

    exchange = tmp_path / "exchange"
    exchange.mkdir()
    base = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
                PYDEVD_DISABLE_FILE_VALIDATION="1")
    base.pop("JUPYTER_CONFIG_PATH", None)

    # The instructor works in the course folder, with the exchange given on each command.
    teacher = dict(base, JUPYTER_CONFIG_DIR=str(tmp_path / "teacher-config"))
    on_exchange = [f"--Exchange.root={exchange}"]
    # The learner has a home of their own and, as on a JupyterHub, an nbgrader config naming the
    # course and the exchange. nbgrader calls them by their login name.
    learner_home = tmp_path / "learner"
    (learner_home / "config").mkdir(parents=True)
    (learner_home / "config" / "nbgrader_config.py").write_text(
        f"c = get_config()\nc.CourseDirectory.course_id = {COURSE_ID!r}\n"
        f"c.Exchange.root = {str(exchange)!r}\nc.Exchange.cache = {str(learner_home / 'cache')!r}\n")
    learner = dict(base, HOME=str(learner_home), JUPYTER_CONFIG_DIR=str(learner_home / "config"))
    student = get_username()

    nbgrader(["release_assignment", CHAPTER, *on_exchange], cwd=course_copy, env=teacher, what="releasing")
    listed = nbgrader(["list"], cwd=learner_home, env=learner, what="listing released chapters")
    assert f"{COURSE_ID} {CHAPTER}" in listed, listed

    nbgrader(["fetch_assignment", CHAPTER], cwd=learner_home, env=learner, what="the learner's fetch")
    fetched = learner_home / CHAPTER / f"{CHAPTER}.ipynb"
    assert fetched.read_bytes() == (course_copy / "notebooks" / CHAPTER / f"{CHAPTER}.ipynb").read_bytes()
    answer_everything(fetched)
    nbgrader(["submit", CHAPTER], cwd=learner_home, env=learner, what="the learner's submit")

    nbgrader(["collect", CHAPTER, *on_exchange], cwd=course_copy, env=teacher, what="collecting")
    submitted = course_copy / "submitted" / student / CHAPTER
    assert (submitted / f"{CHAPTER}.ipynb").exists() and (submitted / "timestamp.txt").exists(), \
        sorted(p.name for p in submitted.parent.rglob("*"))

    proc = subprocess.run([sys.executable, "-m", "grader", "autograde", CHAPTER, "--course", str(course_copy)],
                          cwd=course_copy, env=teacher, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, f"grader autograde failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}"
    rows = list(csv.DictReader((course_copy / "grades.csv").open()))
    most = sum(c.metadata.nbgrader.points for c in grade_cells(read_notebook(solution_path(CHAPTER))))
    assert [(r["student"], r["chapter"], r["status"], float(r["score"]), float(r["max_score"])) for r in rows] == \
        [(student, CHAPTER, "graded", most, most)], rows

    # After grading, the instructor regenerates and returns the feedback through the exchange.
    nbgrader(["generate_feedback", CHAPTER, "--force"], cwd=course_copy, env=teacher, what="generating feedback")
    released = nbgrader(["release_feedback", CHAPTER, *on_exchange], cwd=course_copy, env=teacher,
                        what="releasing feedback")
    assert f"Releasing feedback for student '{student}'" in released, released

    got = nbgrader(["fetch_feedback", CHAPTER], cwd=learner_home, env=learner, what="the learner's fetch_feedback")
    pages = sorted((learner_home / CHAPTER / "feedback").glob(f"*/{CHAPTER}.html"))
    assert len(pages) == 1, f"the learner has feedback pages {pages}; fetch_feedback said:\n{got[-1500:]}"
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", pages[0].read_text(encoding="utf-8")))
    scores = re.findall(r"Score: ([\d.]+) / ([\d.]+)", text)
    assert scores and tuple(map(float, scores[0])) == (most, most), f"the feedback's scores: {scores[:5]}"
    assert "Graded: 0" not in text and text.count("all checks passed") >= len(
        grade_cells(read_notebook(solution_path(CHAPTER)))), "the feedback does not show each exercise passing"
    # The learner sees the verdicts, not the hidden tests' code, and the summary names the exercises.
    from test_feedback import active_content, hidden_lines, leaked_hidden_lines

    page = pages[0].read_text(encoding="utf-8")
    assert hidden_lines(CHAPTER) and leaked_hidden_lines(page, CHAPTER) == [], leaked_hidden_lines(page, CHAPTER)
    assert '<a href="#ex1_test">Exercise 1</a>' in page and ">Test cell<" not in page
    assert active_content(page) == []


def test_exchange_files_are_kept_beside_the_autograded_notebook(tmp_path):
    """Are a submission's timestamp and secret kept for release_feedback, but not an unreadable timestamp or a symlink?"""
    from grader.autograde.gradebook import keep_exchange_files
    from grader.autograde.jobs import Row

    course = tmp_path
    rows = []
    for student, stamp in (("ok", "2026-11-20 12:00:00.000000 UTC"), ("garbage", "the day after tomorrow"),
                           ("linked", None)):
        submitted = course / "submitted" / student / CHAPTER
        submitted.mkdir(parents=True)
        (course / "autograded" / student / CHAPTER).mkdir(parents=True)
        if stamp is None:
            (tmp_path / "elsewhere.txt").write_text("2026-11-20 12:00:00.000000 UTC")
            (submitted / "timestamp.txt").symlink_to(tmp_path / "elsewhere.txt")
        else:
            (submitted / "timestamp.txt").write_text(stamp)
        (submitted / "submission_secret.txt").write_text(f"secret of {student}")
        rows.append(Row(student, CHAPTER, "graded", 1.0, 1.0))
    keep_exchange_files(course, rows)

    def kept(student):
        return sorted(p.name for p in (course / "autograded" / student / CHAPTER).iterdir())

    assert kept("ok") == ["submission_secret.txt", "timestamp.txt"]
    assert (course / "autograded" / "ok" / CHAPTER / "timestamp.txt").read_text().startswith("2026-11-20")
    assert kept("garbage") == ["submission_secret.txt"]
    assert kept("linked") == ["submission_secret.txt"]


def test_the_course_config_gives_formgrader_an_exchange_it_can_use(tmp_path):
    """Read as formgrader reads it, does the course's nbgrader_config.py name an exchange that exists and
    is writable by every account, at /tmp/exchange where nbgrader's docs put one for a single machine,
    so that formgrader offers release and collect?"""
    from conftest import ROOT

    (tmp_path / "nbgrader_config.py").write_text((ROOT / "nbgrader_config.py").read_text())
    # The formgrader's own check (nbgrader's NbGraderAPI), without an import only format checks need
    # (grader.course.skip_unused_schema_formats).
    probe = "\n".join([
        "import json, sys", "sys.modules.setdefault('rfc3987_syntax', None)",
        "from nbgrader.apps.api import NbGraderAPI", "from nbgrader.apps.baseapp import NbGrader",
        "app = NbGrader()", "app.load_config_file()", "api = NbGraderAPI(config=app.config)",
        "print(json.dumps([api.exchange_root, api.exchange_missing, bool(api.exchange_is_functional)]))"])
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(tmp_path / "config"))
    env.pop("JUPYTER_CONFIG_PATH", None)
    proc = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    root, missing, functional = json.loads(proc.stdout.strip().splitlines()[-1])
    assert (root, missing, functional) == ("/tmp/exchange", False, True), proc.stdout
    assert os.stat(root).st_mode & 0o777 == 0o777, f"{root} is not open to every account: {oct(os.stat(root).st_mode)}"
