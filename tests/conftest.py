"""Shared fixtures: the repository's layout and the chapters in it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grader.course import chapters as list_chapters
from grader.course import repo_root

ROOT = repo_root()
CHAPTERS = list_chapters(ROOT)

# Fixture notebooks are inputs to tests, not notebooks for nbval to run.
collect_ignore_glob = ["files/*"]


@pytest.fixture
def course_copy(tmp_path: Path) -> Path:
    """A scratch copy of the course (config, solutions, learner notebooks, C++) to grade in."""
    for name in ("nbgrader_config.py",):
        shutil.copy(ROOT / name, tmp_path / name)
    for folder in ("solutions", "notebooks", "cpp"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    return tmp_path


@pytest.fixture
def build_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty C++ build cache, so a test sees real compiles."""
    cache = tmp_path / "build-cache"
    monkeypatch.setenv("JBJ_BUILD_CACHE", str(cache))
    return cache


#: What tests/test_wrong_answers.py found per chapter: (wrong answers, caught by a visible check,
#: caught when graded). Read from each test's report, so that it also comes from pytest-xdist's workers.
SUMMARY: dict[str, tuple[int, int, int]] = {}

#: What tests/test_budget.py measured per chapter: (words, cells, longest code cell, longest task,
#: longest self-check cell, problems), read from each test's report in the same way.
BUDGETS: dict[str, tuple[int, ...]] = {}


def pytest_runtest_logreport(report):
    for name, value in report.user_properties:
        if name == "wrong_answers" and report.when == "call":
            chapter, *counts = value
            SUMMARY[chapter] = tuple(counts)
        elif name == "budget" and report.when == "call":
            chapter, *counts = value
            BUDGETS[chapter] = tuple(counts)


def pytest_terminal_summary(terminalreporter):
    """After the run: per chapter, its size as a learner meets it, and how many wrong answers the
    visible checks and the graded ones catch."""
    write = terminalreporter.write_line
    if BUDGETS:
        from test_budget import CELLS, CHECK_LINES, CODE_LINES, TASK_WORDS, WORDS

        terminalreporter.section("the learner's budget (tests/test_budget.py)")
        write(f"{'chapter':<28} {'words':>6} {'cells':>6} {'code lines':>10} {'task words':>10} {'check lines':>11}  problems")
        write(f"{'at most':<28} {WORDS:>6} {CELLS:>6} {CODE_LINES:>10} {TASK_WORDS:>10} {CHECK_LINES:>11}")
        for chapter in sorted(BUDGETS):
            words, cells, code, task, check, problems = BUDGETS[chapter]
            write(f"{chapter:<28} {words:>6} {cells:>6} {code:>10} {task:>10} {check:>11}  {problems or 'none'}")
    if not SUMMARY:
        return
    terminalreporter.section("wrong answers caught (tests/wrong_answers)")
    write(f"{'chapter':<28} {'wrong answers':>13} {'visible ❌':>10} {'graded 0':>9}")
    for chapter in sorted(SUMMARY):
        total, visible, graded = SUMMARY[chapter]
        write(f"{chapter:<28} {total:>13} {visible:>10} {graded:>9}")
    totals = [sum(values) for values in zip(*SUMMARY.values())]
    write(f"{'all':<28} {totals[0]:>13} {totals[1]:>10} {totals[2]:>9}")
