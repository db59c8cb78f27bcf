"""Plausible wrong answers for every answer cell of every chapter, in `<chapter>.py` files.

Each file defines `WRONG = {grade_id of an answer cell: wrong answers}`, where the wrong answers are
one source string or a list of them (CONTRIBUTING.md asks for at least two per exercise, the
chapter's own named pitfalls first). The tests feed them to the self-checks in rounds: round i puts the i-th wrong answer of each
answer cell (its last one when it has fewer) into the learner's notebook, and every self-check must
fail with a readable CheckFailed, not a crash or "not answered yet", so each wrong answer is proven
to fail a visible check. `grader check` and the autograder are given the first wrong answer of a
cell (one wrong answer must cost exactly that exercise's points). A wrong answer should be a mistake
a learner could make, not a blank.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

HERE = Path(__file__).parent


def wrong_answer_lists(chapter: str) -> dict[str, list[str]]:
    """The WRONG table of `chapter` with every entry as a list of sources, or {} when it has no file yet."""
    path = HERE / f"{chapter}.py"
    if not path.exists():
        return {}
    spec = importlib.util.spec_from_file_location(f"wrong_answers_{chapter}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    table = {}
    for grade_id, sources in module.WRONG.items():
        sources = [sources] if isinstance(sources, str) else list(sources)
        if not sources or not all(isinstance(s, str) for s in sources):
            raise TypeError(f"tests/wrong_answers/{chapter}.py: {grade_id} needs a source or a list of sources")
        table[grade_id] = sources
    return table


def wrong_answers(chapter: str) -> dict[str, str]:
    """The first wrong answer of each answer cell of `chapter` (its named pitfall), or {} when it has no file yet."""
    return {grade_id: sources[0] for grade_id, sources in wrong_answer_lists(chapter).items()}


def wrong_answer_rounds(chapter: str) -> list[dict[str, str]]:
    """One table per round: round i holds the i-th wrong answer of each cell, or its last when it has fewer."""
    lists = wrong_answer_lists(chapter)
    rounds = max((len(sources) for sources in lists.values()), default=0)
    return [{grade_id: sources[min(i, len(sources) - 1)] for grade_id, sources in lists.items()}
            for i in range(rounds)]
