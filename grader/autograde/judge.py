"""Stage 4, judge: verdicts made outside the learner's process, by comparing records.

A test cell is graded in two halves. In the learner's kernel it runs with every expected value
removed (`grader.autograde.prepare.strip_expected`), so the right answers are never in that
process, and its checks only record what the learner's code returned (`grader.notebook.record`).
Here, in the grader's own process, `judge` compares that record with the one the reference
solution produced on the same inputs, check by check, with the reference's tolerances. Nothing
the learner's code patched in its kernel (assert functions, `__eq__`, IPython hooks, stderr)
takes part in the comparison. `make_row` turns a submission's run into its row.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import numpy as np

from grader.notebook import checks, record
from grader.notebook.record import cell_record  # noqa: F401  (where the wrong-answer harness imports it from)
from grader.autograde.config import LatePenalty
from grader.autograde.jobs import Job, KernelRun, Outcome, Row, Scored, Status
from grader.errors import CourseError



@dataclass
class Verdict:
    passed: bool
    message: str  # "" when passed; otherwise one or two lines a learner can act on
    hidden: bool = False  # the check that failed (or the code that crashed) is in the hidden region
    check: str = ""  # the check that failed, named without the values it saw: the same for every learner it stops


def judge(label: str, reference: dict, student: dict | None, why_missing: str = "") -> Verdict:
    """Compare a learner's record of one test cell with the reference's, check by check."""
    if reference is None or reference.get("end") != "ok":
        raise CourseError(f"{label}: the reference solution did not pass its own checks "
                          f"({(reference or {}).get('end', 'no record')}); fix solutions/ before grading")
    if student is None:
        why = f"{label}: {why_missing or 'no result was recorded'}"
        return Verdict(False, why, check=why.splitlines()[0])
    try:
        return _judge(label, reference, student)
    except Exception as err:  # a forged or broken record: this cell scores 0, the rest of the row stands
        return Verdict(False, f"{label}: the recorded result is malformed ({type(err).__name__}), so this cell "
                              "scores 0; the notebook's other cells keep their points",
                       check=f"{label}: the recorded result is malformed")


def _judge(label: str, reference: dict, student: dict) -> Verdict:
    ref_checks, got_checks = reference["checks"], student["checks"]
    for index, ref in enumerate(ref_checks):
        if index >= len(got_checks):
            return Verdict(False, _stopped(label, student, index, len(ref_checks)), student.get("hidden") is True,
                           _stopped_check(label, student, ref_checks, index))
        got = got_checks[index]
        if got.get("kind") != ref["kind"]:
            changed = f"{label}: check {index + 1} ran a different check than expected"
            return Verdict(False, f"{changed} (the test cell was changed or skipped)", check=changed)
        failure = _compare(label, ref, got)
        if failure:
            hidden = ref.get("hidden") is True
            if hidden and "\nhint: " not in failure:
                failure += f"\nhint: {FAILED_HIDDEN_CHECK}"
            return Verdict(False, failure, hidden, check_name(label, ref, failure))
    if len(got_checks) > len(ref_checks):
        return Verdict(False, f"{label}: {len(got_checks)} checks ran instead of {len(ref_checks)}",
                       check=f"{label}: more checks ran than the test cell has")
    if student.get("end") != "ok":
        return Verdict(False, _stopped(label, student, len(ref_checks), len(ref_checks)), student.get("hidden") is True,
                       _stopped_check(label, student, ref_checks, len(ref_checks)))
    return Verdict(True, "")


def check_name(label: str, ref: dict, failure: str = "") -> str:
    """The check `ref` (a reference record's check) of exercise `label`, named as the exercise's test
    cell describes it: its `what` (or, for a `checks.true`, the instructor's message), never the values
    a learner's code produced. A quiz is named by its wrong questions, which are no values either."""
    if ref.get("kind") == "answers":
        return failure.splitlines()[0] if failure else f"{label}: the answers"
    what = str(ref.get("what") or (ref.get("message") if ref.get("kind") == "true" else "") or "").strip()
    return f"{label}: {' '.join(what.split())}" if what else f"{label}: a {ref.get('kind', 'check')} check"


def _stopped_check(label: str, student: dict, ref_checks: list[dict], index: int) -> str:
    """The name of what stopped a test cell after `index` of its checks: not answered, or the error the
    learner's code raised (by its type) in the check that was running, or the run stopping."""
    end = student.get("end")
    if end == "not_answered":
        return f"{label} is not answered yet"
    where = check_name(label, ref_checks[index]) if index < len(ref_checks) else f"{label}: after its checks"
    if end == "crashed":
        name, sep, _ = str(student.get("detail", "")).strip().partition(": ")
        kind = name if sep and name.replace(".", "").isidentifier() else "an error"
        return f"{where}: your code raised {kind}"
    return f"{where}: the run stopped"


#: The hint for a hidden check that failed without a hint of its own.
FAILED_HIDDEN_CHECK = "the failing check is one the instructor runs when grading, not in your notebook."

#: The hint for a crash in a hidden check: the learner cannot see its inputs.
CRASH_IN_HIDDEN_CHECK = ("the failing check is one the instructor runs when grading (not in your notebook): "
                         "try other shapes, dtypes and edge cases.")


def _stopped(label: str, student: dict, index: int, total: int) -> str:
    end, detail = student.get("end"), str(student.get("detail", ""))
    first = _error_line(detail)
    if end == "not_answered":
        return f"{label} is not answered yet"
    if end == "crashed":
        hint = (CRASH_IN_HIDDEN_CHECK if student.get("hidden") is True
                else "run the answer on the inputs from the checks above to see the full error.")
        return f"{label}: your code raised {first} (after {index} of {total} checks)\nhint: {hint}"
    return f"{label}: stopped after {index} of {total} checks" + (f": {first}" if first else "")


def _error_line(detail: str) -> str:
    """"Type: the line that explains it" from a recorded "Type: message" (see `checks.explaining_line`)."""
    name, sep, message = detail.strip().partition(": ")
    if sep and name.replace(".", "").isidentifier() and "\n" not in name:
        line = checks.explaining_line(message)
        return f"{name}: {line}" if line else name
    return checks.explaining_line(detail)


def _compare(label: str, ref: dict, got: dict) -> str:
    """"" when the learner's value matches the reference's under the check's rule, else why not."""
    kind = ref["kind"]
    what = ref.get("what", "")
    if kind == "true":
        if record.decode(got["got"]) is True:
            return ""
        return f"{label}: {got.get('message') or ref.get('message')}" + (f"\nhint: {ref['hint']}" if ref.get("hint") else "")
    if kind == "answers":
        expected, given = record.decode(ref["got"]), record.decode(got["got"])
        wrong = [name for name, right in expected.items()
                 if type(given.get(name)) is not str or given[name].strip().lower() != right.strip().lower()]
        return (f"{label}: {len(wrong)} of {len(expected)} answers are wrong: {', '.join(wrong)}\nhint: {checks.QUIZ_HINT}"
                if wrong else "")
    if kind == "runs":
        error = record.decode(got["got"])
        if error == "":
            return ""
        return f"{label}: {checks.runs_problem(what, str(error))}" + (f"\nhint: {ref['hint']}" if ref.get("hint") else "")
    if kind == "raises":
        raised = record.decode(got["got"])
        error = ref["error"]
        problem = checks.raises_problem(
            what, error.rsplit(".", 1)[-1], None if raised is None else raised["types"][0].rsplit(".", 1)[-1],
            "" if raised is None else str(raised.get("message", "")),
            is_expected=raised is not None and error in raised["types"], match=ref.get("match"))
        return f"{label}: {problem}" + (f"\nhint: {ref['hint']}" if ref.get("hint") else "") if problem else ""
    if kind not in ("close", "equal"):
        return f"{label}: unknown check {kind!r}"
    expected, value = _plain(record.decode(ref["got"])), _plain(record.decode(got["got"]))
    options = {"rtol": ref["rtol"], "atol": ref["atol"], "dtype": ref["dtype"]} if kind == "close" else {}
    return checks.failure(kind, value, expected, label=label, what=what, hint=ref.get("hint"), **options)


class _Opaque:
    """An object recorded by its type's name only: equal to nothing, shown by that name."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name.rsplit('.', 1)[-1]} object>"


def _plain(value: Any) -> Any:
    """Decoded record values as the checks compare them: arrays as NumPy arrays, opaque objects
    as placeholders, type and tree-structure names as text with their own type."""
    if isinstance(value, record.Tagged):
        if value.kind in ("ndarray", "jax"):
            return np.asarray(value.value) if value.kind == "ndarray" else _JaxLike(value.value)
        if value.kind == "scalar":
            return value.value
        if value.kind == "other":
            return _Opaque(value.value)
        return _Named(value.kind, value.value)
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


class _JaxLike(np.ndarray):
    """A JAX array's values on the grader's side: its own type, so `equal` tells it from NumPy."""

    def __new__(cls, array: np.ndarray):
        return np.asarray(array).view(cls)


_JaxLike.__name__ = _JaxLike.__qualname__ = "jax.Array"  # how `equal` names it in a message


class _Named:
    """A type, dtype or tree structure recorded by name."""

    def __init__(self, kind: str, name: str):
        self.kind, self.name = kind, name

    def __eq__(self, other: object) -> bool:
        return type(other) is _Named and (other.kind, other.name) == (self.kind, self.name)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return self.name


# ---- a submission's row -------------------------------------------------------------------

def make_row(job: Job, run: KernelRun, reference: dict, points: dict[str, tuple[float, str]],
             due: datetime | None, *, late: LatePenalty = LatePenalty()) -> Row:
    """The row of one submission: each test cell judged against the reference's record, and a
    submission after `due` given the course's `late` penalty.

    A cell whose record cannot be judged (forged, malformed) scores 0 with a note; the other
    cells keep their points."""
    most = sum(p for p, _ in points.values())
    timestamp, late_seconds = "", None
    if job.timestamp is not None:
        timestamp = job.timestamp.astimezone(timezone.utc).isoformat()
        if due is not None and job.timestamp > due:
            late_seconds = (job.timestamp - due).total_seconds()
    notes = list(job.notes)
    at = len(notes)  # a late note goes where the submission's own notes end
    notes += [str(note) for note in run.notes]
    status, score, exercises = Status.failed(run.reason or "unknown"), None, {}
    if run.status is Outcome.GRADED:
        exercises = {gid: _scored(title, most_points, run, gid, reference) for gid, (most_points, title) in points.items()}
        score = sum(scored.points for scored in exercises.values())
        where = f" in {run.stopped_cell}" if run.stopped_cell else ""
        status = (Status.incomplete(f"{run.reason}{where}; the cells after it scored 0") if run.reason
                  else Status.graded())
        notes += [f"the output of cell {index} was cut at the size limit" for index in run.truncated]
        notes += [f"flagged for review: {cell}" for cell in run.flagged]
    penalty = None
    if late_seconds is not None:
        penalty, note = _penalty(job.student, score, most, late_seconds, late)
        notes.insert(at, note)
    return Row(job.student, job.chapter, status, score, most, timestamp=timestamp, late_seconds=late_seconds,
               penalty=penalty, exercises=exercises, notes=tuple(notes), flagged=run.flagged, applied=run.applied,
               seconds=float(run.seconds or 0.0), trace=run.trace)


def _scored(title: str, most_points: float, run: KernelRun, gid: str, reference: dict) -> Scored:
    """One test cell of a run, judged: its points and verdict."""
    entry = run.records.get(gid)
    if gid in run.missing or not isinstance(entry, dict):
        return Scored(0.0, most_points, "its test cell was deleted from the notebook, so it scores 0; "
                                        "copy the cell back from a fresh copy of the chapter",
                      f"{title}: its test cell was deleted")
    verdict = judge(title, reference[gid], entry.get("record"), str(entry.get("why", "")))
    return Scored(most_points if verdict.passed else 0.0, most_points, verdict.message, verdict.check)


def _penalty(student: str, score: float | None, most: float, late_seconds: float,
             late: LatePenalty) -> tuple[float | None, str]:
    """A late submission's penalty (the course's, once it is scored) and the note that says so."""
    late_by = f"late by {_duration(late_seconds)}"
    if not late.applies:
        return None, f"{late_by} ({late.name})"
    if score is None:
        return None, f"{late_by} (not scored, so no penalty)"
    penalty = late.penalty(student, score, late_seconds)
    if not penalty:
        return penalty, f"{late_by} (no penalty: {late.name} gave none)"
    return penalty, (f"{late_by}: a penalty of {penalty:g} points ({late.name}), so it scores "
                     f"{score - penalty:g} of {most:g}")


def _duration(seconds: float) -> str:
    days, rest = divmod(int(seconds), 86400)
    hours, rest = divmod(rest, 3600)
    return f"{days} d {hours} h" if days else f"{hours} h {rest // 60} min"
