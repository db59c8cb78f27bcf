"""Does every graded chapter fit one sitting? Its size, measured as a learner meets it.

The budget (see CONTRIBUTING.md, "The learner's budget"): at most `WORDS` words of prose and `CELLS`
cells, no code cell over `CODE_LINES` lines, each exercise's task at most `TASK_WORDS` words before
its list of requirements, and each self-check cell at most `CHECK_LINES` lines, as the learner's
notebook shows it. The top of each chapter says how long it takes and what it needs from earlier
chapters. Depth that no exercise needs goes to an optional notebook in `notebooks/going_deeper/`.

The measures are printed after the test run (`pytest_terminal_summary` in tests/conftest.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import nbformat
import pytest

from conftest import BUDGETS, CHAPTERS
from grader.course import grade_cells, learner_path, solution_path

WORDS, CELLS, CODE_LINES, TASK_WORDS, CHECK_LINES = 4500, 100, 25, 150, 5

#: How the top of a chapter says how long it takes, and what it needs from earlier chapters.
TIME_LINE = re.compile(r"\*\*Time\.\*\* About \d+ minutes")
NEEDS_LINE = re.compile(r"\*\*What you need\.\*\*")

#: An exercise's heading; its task is the prose after it, up to the first item of its requirement list.
EXERCISE_HEADING = re.compile(r"^###\s+Exercise\s+(\d+)\b.*$", re.M)
LIST_ITEM = re.compile(r"^\s*(?:[-*]|\d+\.)\s+", re.M)

#: Chapters not yet within the budget: each is expected to fail its test (strict), so that a chapter
#: brought within it fails here until it is taken off this list.
NOT_YET: set[str] = set()


@dataclass
class Measure:
    words: int  # prose, in markdown cells
    cells: int
    longest_code: tuple[int, int]  # (lines, cell index) of the longest code cell
    tasks: dict[str, int]  # "Exercise N": words of its task before its requirement list
    checks: dict[str, int]  # self-check cell title: its lines as the learner sees them
    header: list[str]  # what the chapter's top is missing ("Time", "What you need")

    def problems(self) -> list[str]:
        found = []
        if self.words > WORDS:
            found.append(f"{self.words} words of prose (at most {WORDS})")
        if self.cells > CELLS:
            found.append(f"{self.cells} cells (at most {CELLS})")
        if self.longest_code[0] > CODE_LINES:
            found.append(f"cell {self.longest_code[1]} has {self.longest_code[0]} lines of code (at most {CODE_LINES})")
        found += [f"{name}'s task has {n} words before its requirement list (at most {TASK_WORDS})"
                  for name, n in self.tasks.items() if n > TASK_WORDS]
        found += [f"the self-check cell {name!r} has {n} lines (at most {CHECK_LINES})"
                  for name, n in self.checks.items() if n > CHECK_LINES]
        found += [f"its first cell does not say {what}" for what in self.header]
        return found


def _words(text: str) -> int:
    """Words of prose: without code blocks, links' targets, or markdown's own marks."""
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return len(re.findall(r"[A-Za-z0-9_`$'.-]*[A-Za-z0-9]", text))


def _lines(source: str) -> int:
    return len([line for line in source.strip().splitlines()])


def task_words(markdown: str) -> dict[str, int]:
    """For each exercise heading in `markdown`: the words after it and before its first list item
    (or the next heading)."""
    found = {}
    headings = list(EXERCISE_HEADING.finditer(markdown))
    for i, heading in enumerate(headings):
        end = headings[i + 1].start() if i + 1 < len(headings) else len(markdown)
        body = markdown[heading.end():end]
        body = re.split(r"^#{1,6}\s", body, maxsplit=1, flags=re.M)[0]
        item = LIST_ITEM.search(body)
        found[f"Exercise {heading.group(1)}"] = _words(body[: item.start()] if item else body)
    return found


def measure(chapter: str) -> Measure:
    learner = nbformat.read(learner_path(chapter), as_version=4)
    source = nbformat.read(solution_path(chapter), as_version=4)
    prose = "\n\n".join(cell.source for cell in source.cells if cell.cell_type == "markdown")
    code = [(_lines(cell.source), index) for index, cell in enumerate(learner.cells) if cell.cell_type == "code"]
    checks = {}
    for cell in grade_cells(learner):
        title = cell.source.strip().splitlines()[0].strip('"').split(":")[0] if cell.source.strip() else "?"
        checks[title] = _lines(cell.source)
    first = source.cells[0].source if source.cells else ""
    header = [what for what, pattern in (("how long it takes (**Time.** About N minutes ...)", TIME_LINE),
                                         ("what it needs (**What you need.** ...)", NEEDS_LINE))
              if not pattern.search(first)]
    return Measure(_words(prose), len(learner.cells), max(code, default=(0, -1)), task_words(prose), checks, header)


@pytest.mark.parametrize("chapter", [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason="not yet within the budget"))
                                     if c in NOT_YET else c for c in CHAPTERS])
def test_chapter_fits_one_sitting(chapter, record_property):
    """Is the chapter within the learner's budget: prose, cells, code per cell, task words, self-check lines?"""
    found = measure(chapter)
    record_property("budget", (chapter, found.words, found.cells, found.longest_code[0],
                               max(found.tasks.values(), default=0), max(found.checks.values(), default=0),
                               len(found.problems())))
    problems = found.problems()
    assert not problems, f"{chapter} is over the budget: " + "; ".join(problems)


def test_the_budget_measures_what_it_says():
    """Does the measure find a long task, a long self-check and a missing header, so that it can fail?"""
    text = ("### Exercise 1: a task (2 points)\n\n" + "word " * 151 + "\n\n- a requirement\n\n"
            "### Exercise 2: short (1 point)\n\nWrite it.\n\n1. first requirement\n" + "word " * 300)
    assert task_words(text) == {"Exercise 1": 151, "Exercise 2": 2}
    assert Measure(10, 10, (26, 3), {"Exercise 1": 151}, {"Exercise 1": 6}, ["x"]).problems() == [
        "cell 3 has 26 lines of code (at most 25)",
        "Exercise 1's task has 151 words before its requirement list (at most 150)",
        "the self-check cell 'Exercise 1' has 6 lines (at most 5)",
        "its first cell does not say x"]
    assert _words("Two words ```code that is not prose``` and [a link](https://docs.jax.dev/x).") == 5
