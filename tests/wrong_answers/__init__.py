"""Plausible wrong answers for every answer cell of every chapter, in `<chapter>.py` files.

Each file defines `WRONG = {grade_id of an answer cell: [W(class, why, source), ...]}`: at least four
wrong answers per answer cell, quizzes included, each a mistake a learner could make (not a blank),
with the class of mistake it is and a line saying what it gets wrong. `APPLIES` names, per answer
cell, the classes of mistake that apply to its exercise; the corpus must hold one of each.

`tests/test_wrong_answers.py` grades them all with the hidden checks (`grading.py`): each must lose
its own exercise's points and only those, and every one must already fail a visible check in the
learner's notebook (a race, or an answer too slow for a speed check, in every one of several runs,
the later ones with every CPU busy). Write a wrong answer from the exercise's text, before
reading its checks: the checks are then made to catch it.

A file may also define `RIGHT = {grade_id: [R(why, source), ...]}`: correct answers written another way
than the reference (a `functools.partial` where the reference has a lambda, say). Each must pass every
visible check and earn full marks: a check that watches how an answer works must not refuse a right one.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).parent

#: The classes of mistake, by letter (the issue that asked for the corpus names them the same way).
CLASSES = {
    "a": "ignores a cotangent's values (right only for .sum(), an all-ones cotangent)",
    "b": "ignores or fixes a parameter on one of its paths (eager, jit, vmap, a second call)",
    "c": "right only at the visible inputs (shapes, 0-d, odd sizes, batch axes, dtypes, large values)",
    "d": "takes a forbidden route (jnp, NumPy, jax.vjp, a Python callback, instead of what is taught)",
    "e": "a rule missing that shows only under composition (vmap of grad, grad of grad, vmap_method)",
    "f": "concurrency (work scheduled and not waited for, state shared between calls)",
    "g": "hard-coded to the values the visible checks use",
    "m": "a misconception of what the chapter teaches (its named pitfalls, a misread task, a quiz answer)",
}

#: Every class must fail a check the learner can see, before grading, concurrency included: a check
#: makes its race certain (tasks started late, results read the moment a call returns, callers at
#: once), so it shows on the learner's machine as it does on the grader's.
VISIBLE = set(CLASSES)


@dataclass(frozen=True)
class W:
    """One wrong answer: its class (a key of CLASSES), what it gets wrong, and its source."""

    klass: str
    why: str
    source: str
    #: True for an answer that changes its kernel's process for good (a library built with -ffast-math turns on
    #: flush-to-zero for the whole process): the grading starts a fresh kernel after it, as every submission has one.
    restart: bool = False
    #: True for an answer whose verdict rests on timing (too slow for a speed check): graded again with every CPU
    #: busy, as races (class f) are, by tests/test_wrong_answers.py.
    timing: bool = False

    def __post_init__(self):
        if self.klass not in CLASSES:
            raise ValueError(f"unknown class {self.klass!r} for a wrong answer ({self.why}); use one of {''.join(CLASSES)}")
        if not self.why.strip() or "\n" in self.why.strip():
            raise ValueError(f"a wrong answer needs a one-line why: {self.why!r}")


@dataclass(frozen=True)
class R:
    """One right answer written another way: what it does differently, and its source."""

    why: str
    source: str
    klass: str = "right"  # read by the grading, which takes right and wrong answers alike
    #: True for an answer whose verdict rests on timing (fast enough for a speed check): graded again with every
    #: CPU busy by tests/test_wrong_answers.py, where it must keep its points in every run.
    timing: bool = False

    def __post_init__(self):
        if not self.why.strip() or "\n" in self.why.strip():
            raise ValueError(f"a right answer needs a one-line why: {self.why!r}")


def right_answers(chapter: str) -> dict[str, list[R]]:
    """The RIGHT table of `chapter` ({} when it has none)."""
    module = _module(chapter)
    table = dict(getattr(module, "RIGHT", {})) if module is not None else {}
    for grade_id, items in table.items():
        if not items or not all(isinstance(item, R) for item in items):
            raise TypeError(f"tests/wrong_answers/{chapter}.py: RIGHT[{grade_id!r}] needs a list of R(why, source)")
    return table


def _module(chapter: str):
    path = HERE / f"{chapter}.py"
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location(f"wrong_answers_{chapter}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def corpus(chapter: str) -> dict[str, list[W]]:
    """The WRONG table of `chapter` ({} when it has no file yet)."""
    module = _module(chapter)
    if module is None:
        return {}
    table = {}
    for grade_id, items in module.WRONG.items():
        items = list(items)
        if not items or not all(isinstance(item, W) for item in items):
            raise TypeError(f"tests/wrong_answers/{chapter}.py: {grade_id} needs a list of W(class, why, source)")
        table[grade_id] = items
    return table


def applies(chapter: str) -> dict[str, str]:
    """The classes of mistake that apply to each answer cell of `chapter`, as letters."""
    module = _module(chapter)
    return dict(getattr(module, "APPLIES", {})) if module is not None else {}


def wrong_answers(chapter: str) -> dict[str, str]:
    """One wrong answer of each answer cell of `chapter`, as source ({} when it has no file yet): the first
    not about concurrency, where the cell has one: a race (class f) is made certain by its checks, but
    a test that needs its points lost takes the plainest mistake; tests/test_wrong_answers.py grades
    the races, several times each."""
    return {grade_id: next((w for w in items if w.klass != "f"), items[0]).source
            for grade_id, items in corpus(chapter).items()}
