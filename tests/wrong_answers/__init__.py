"""Plausible wrong answers, one per answer cell of every chapter, in `<chapter>.py` files.

Each file defines `WRONG = {grade_id of an answer cell: source of a wrong answer}`. The tests feed
them to the self-checks (each must fail with a readable CheckFailed, not a crash or "not answered
yet") and to `grader check` (one wrong answer must cost exactly that exercise's points). A wrong
answer should be a mistake a learner could make, not a blank.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

HERE = Path(__file__).parent


def wrong_answers(chapter: str) -> dict[str, str]:
    """The WRONG table of `chapter`, or {} when the chapter has no file yet."""
    path = HERE / f"{chapter}.py"
    if not path.exists():
        return {}
    spec = importlib.util.spec_from_file_location(f"wrong_answers_{chapter}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dict(module.WRONG)
