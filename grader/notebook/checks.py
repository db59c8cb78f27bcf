"""Self-checks for graded cells: each failure is one or two lines saying expected, got and a hint."""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
from contextlib import contextmanager
from typing import Any, Callable, Iterator

import numpy as np

from grader.notebook import record as _record
from grader.errors import CourseError

#: The stub nbgrader leaves where a solution was; running it means "not answered yet".
STUB_ERROR = NotImplementedError


def is_stub(err: BaseException) -> bool:
    """True for the bare `raise NotImplementedError()` of nbgrader's stub, not for JAX's own
    NotImplementedErrors (which always carry a message, e.g. a missing differentiation rule)."""
    return type(err) is STUB_ERROR and not str(err)


class CheckFailed(CourseError, AssertionError):
    """An answer was checked and is wrong."""


class NotAnswered(CourseError, AssertionError):
    """The exercise still has the stub in it."""

    icon = "⏳"


class AnswerCrashed(CourseError, AssertionError):
    """The learner's code raised while being checked."""


_active: list[dict] = []


def _label() -> str:
    return _active[-1]["label"] if _active else "Check"


def _hinted(message: str, hint: str | None) -> str:
    return f"{message}\nhint: {hint}" if hint else message


def _fail(message: str, hint: str | None = None) -> None:
    raise CheckFailed(_hinted(f"{_label()}: {message}", hint))


#: The file a grading kernel notes its running check in (`grader.autograde.sandbox.kernel_env` sets it): a kernel that
#: dies or runs out of time cannot say where it was, so the grader reads it there (`grader.autograde.kernel`).
PROGRESS_ENV = "JBJ_CHECK_PROGRESS"


def _progress(state: dict, what: str = "", runs_answer: bool = False) -> None:
    """Note in the file PROGRESS_ENV names which exercise is running and which of its checks started last, with
    whether that check runs the answer's code itself (`raises`); nothing when PROGRESS_ENV is unset (a learner's
    own session). Written with one write(2) to a file of its own, so it survives the kernel's death."""
    path = os.environ.get(PROGRESS_ENV)
    if not path or state.get("judging"):
        return
    note = json.dumps({"label": state["label"], "count": state["count"], "what": str(what)[:200],
                       "runs_answer": runs_answer})
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o644)
        try:
            os.write(fd, note.encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except OSError:
        pass  # a note for the grader's messages: never a reason for a check to fail


def _progress_done() -> None:
    """The exercise ended (passed, failed or crashed in Python): nothing is running any more."""
    path = os.environ.get(PROGRESS_ENV)
    if path:
        try:
            os.unlink(path)
        except OSError:
            pass


def _count(what: Any = "", runs_answer: bool = False) -> None:
    if _active:
        _active[-1]["count"] += 1
        _progress(_active[-1], str(what), runs_answer)


def _recorded(kind: str, got: Any, **details: Any) -> bool:
    """When grading (see grader.notebook.record), append what a check was given and return True: the
    verdict is made outside this process. Returns False when checks should judge here."""
    if not _record.recording() or _active and _active[-1].get("judging"):
        return False
    _count(details.get("what") or details.get("message") or kind)
    if _active:
        if _active[-1].get("hidden"):
            details["hidden"] = True
        _active[-1]["records"].append({"kind": kind, "got": _record.encode(got), **details})
    return True


def hidden_checks(flag: bool = True) -> None:
    """The checks that follow in this exercise are hidden ones (with False: visible ones again).

    Grading only: `grader.autograde.prepare.strip_expected` puts these calls where a test cell's hidden
    region begins and ends, so that a verdict can tell a learner whether the check that failed
    is one they can see in their notebook."""
    if _active:
        _active[-1]["hidden"] = bool(flag)


def _emit(state: dict, end: str, detail: str = "") -> None:
    """Send the cell's record out as one display output (grading only)."""
    if not _record.recording():
        return
    from IPython.display import display

    display({_record.MIME: {"label": state["label"], "checks": state["records"], "end": end,
                            "detail": detail[:2000], "hidden": bool(state.get("hidden"))}}, raw=True)


def failure(kind: str, got: Any, expected: Any, *, label: str, **options: Any) -> str:
    """The verdict of check `kind` ("close" or "equal") on `got` against `expected`, as the exercise
    `label` says it: "" when it passes, else its message (with its hint). For the grader, which judges
    a learner's recorded value outside the kernel with the same words as the in-kernel check; it
    always judges, recording or not."""
    check = {"close": close, "equal": equal}[kind]
    _active.append({"label": label, "count": 0, "records": [], "judging": True})
    try:
        check(got, expected, **options)
    except CheckFailed as err:
        return str(err)
    finally:
        _active.pop()
    return ""


def explaining_line(message: str, limit: int = 200) -> str:
    """The line of an error message that says what went wrong, at most `limit` characters.

    Many errors start with a generic header ending in ':' (JAX's "Cannot lower jaxpr with
    verifier errors:") and name the problem on a later line: the first line that is not such a
    header is picked, else the first line."""
    lines = [line.strip() for line in str(message).splitlines() if line.strip()]
    if not lines:
        return ""
    if any("Traceback (most recent call last)" in line for line in lines):
        # A Python error inside the message (a host callback's, say): its last line says what it was,
        # where the lines after the header only name files.
        return explaining_line(lines[-1], limit)
    line = next((line for line in lines if not line.endswith(":")), lines[0])
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _short(value: Any, limit: int = 80, whole: int = 160) -> str:
    """`value` in one line: whole when it fits in `whole` characters, else cut to `limit`."""
    if isinstance(value, np.ndarray) or hasattr(value, "__array__") and hasattr(value, "shape"):
        text = np.array2string(np.asarray(value), threshold=8, edgeitems=2, precision=5, max_line_width=10**6)
    else:
        text = repr(value)
    text = " ".join(text.split())
    return text if len(text) <= max(limit, whole) else text[: limit - 1] + "…"


@contextmanager
def exercise(label: int | str, *answers: str) -> Iterator[None]:
    """Run the checks of one exercise and report the outcome in a line.

    `label` is the exercise number (or a title such as "Quiz"); `answers` are the names the
    answer cell must define. A missing name, or the `raise NotImplementedError()` stub
    still in place, is reported as "not answered yet"; any other exception from the learner's
    code is reported as a crash in one line; a wrong result fails with expected vs got.
    """
    title = f"Exercise {label}" if isinstance(label, int) else str(label)
    caller = sys._getframe(2).f_globals
    missing = [name for name in answers if name not in caller]
    state = {"label": title, "count": 0, "records": []}
    if missing:
        _emit(state, "not_answered", ", ".join(missing))
        raise NotAnswered(
            f"{title} is not answered yet: run its answer cell to define {', '.join(missing)}."
        )
    _active.append(state)
    _progress(state)
    interrupted = False
    try:
        yield
    except CourseError as err:
        _emit(state, "failed", str(err))
        raise
    except Exception as err:  # the learner's code raised: say so in a line, not a traceback
        _emit(state, "not_answered" if is_stub(err) else "crashed", f"{type(err).__name__}: {err}")
        if is_stub(err):
            raise NotAnswered(
                f"{title} is not answered yet: replace `raise NotImplementedError()` in its answer "
                "cell with your code, run that cell, then this one."
            ) from None
        line = explaining_line(str(err))
        raise AnswerCrashed(
            f"{title}: your code raised {type(err).__name__}" + (f": {line}" if line else "")
            + "\nhint: run the answer on the inputs from the checks above to see the full error."
        ) from None
    except BaseException:
        interrupted = True  # a cell out of time: the note stays, for the grader to read
        raise
    finally:
        _active.pop()
        if not interrupted:
            _progress_done()
    if _record.recording():
        _emit(state, "ok")
        print(f"{title}: {state['count']} checks recorded for grading.")
        return
    print(f"✅ {title}: all {state['count']} check{'' if state['count'] == 1 else 's'} passed.")


def true(condition: Any, message: str, *, hint: str | None = None) -> None:
    """Fail with `message` unless `condition` is exactly True (a bool, not merely truthy)."""
    if _recorded("true", bool(isinstance(condition, (bool, np.bool_)) and bool(condition)), message=str(message)[:300]):
        return
    _count(message)
    if not (isinstance(condition, (bool, np.bool_)) and bool(condition)):
        _fail(message, hint)


def error_text(err: BaseException) -> str:
    """"Type: the line of its message that explains it", at most about 200 characters: how a check
    records an exception the learner's code raised."""
    line = explaining_line(str(err))
    return f"{type(err).__name__}: {line}" if line else type(err).__name__


def runs(fn: Callable[[], Any], *, what: str, hint: str | None = None) -> Any:
    """Call `fn()` (the learner's code, on inputs the cell shows) and return its result; when it raises,
    fail saying what it raised, in a line, and return None.

    One check either way, so that the checks after it keep their places when it raises (their values
    are then None, and they fail too: the first failure is this one). The stub's
    `raise NotImplementedError()` is passed on: the exercise is "not answered yet"."""
    result, error = None, ""
    if _active and _record.recording():  # the note says this check runs the answer, before it does
        _progress({**_active[-1], "count": _active[-1]["count"] + 1}, str(what), runs_answer=True)
    try:
        result = fn()
    except Exception as err:
        if is_stub(err):
            raise
        error = error_text(err)
    if _recorded("runs", error, what=str(what)[:300], hint=hint):
        return result
    _count(what, runs_answer=True)
    if error:
        _fail(runs_problem(what, error), hint)
    return result


def runs_problem(what: str, error: str) -> str:
    """What a `runs` check says when the code raised `error` ("Type: message")."""
    error = " ".join(str(error).split())
    return f"{what} raised {error if len(error) <= 200 else error[:199] + '…'} (it should not raise)"


def _same(got: Any, expected: Any) -> bool:
    """Equal in value and in exact type at every level, so no subclass or odd __eq__ can pass."""
    if type(got) is not type(expected):
        return False
    if isinstance(expected, (tuple, list)):
        return len(got) == len(expected) and all(_same(g, e) for g, e in zip(got, expected))
    if isinstance(expected, dict):
        return len(got) == len(expected) and all(
            any(_same(gk, k) and _same(gv, v) for gk, gv in got.items()) for k, v in expected.items())
    if isinstance(expected, np.ndarray):
        return got.shape == expected.shape and got.dtype == expected.dtype and bool(np.array_equal(got, expected))
    if isinstance(expected, float) and math.isnan(expected):
        return math.isnan(got)
    # Both are exactly the same type here, and the expected value is the instructor's: its own
    # __eq__ decides.
    return bool(expected == got)


def equal(got: Any, expected: Any, *, what: str, hint: str | None = None) -> None:
    """Exact equality of plain values (numbers, strings, containers of them, NumPy arrays, types),
    with exactly the same type at every level."""
    if _recorded("equal", got, what=str(what)[:300], hint=hint):
        return
    _count(what)
    # Two classes are compared as classes, whatever their metaclasses (a jax.Array's is not `type`).
    if type(got) is not type(expected) and not (isinstance(got, type) and isinstance(expected, type)):
        _fail(f"{what} should be {_a(type(expected).__name__)} like {_short(expected)}, "
              f"got {_a(type(got).__name__)}: {_short(got)}", hint)
    if not _same(got, expected):
        _fail(f"{what}: expected {_short(expected)}, got {_short(got)}", hint)


def close(got: Any, expected: Any, *, what: str, rtol: float = 1e-5, atol: float = 1e-6,
          dtype: bool = True, hint: str | None = None) -> None:
    """An array that matches `expected` in shape, dtype (unless dtype=False) and values."""
    if _recorded("close", got, what=str(what)[:300], rtol=rtol, atol=atol, dtype=dtype, hint=hint):
        return
    _count(what)
    if _arrays_in(expected):  # several arrays (a tuple of results): the same structure, then each array
        many = f"{_a(type(expected).__name__)} of {len(expected)} array{'' if len(expected) == 1 else 's'}"
        if not isinstance(got, (tuple, list)):
            _fail(f"{what} should be {many}, got {_a(type(got).__name__)}: {_short(got)}", hint)
        if len(got) != len(expected):
            _fail(f"{what} should be {many}, got {_a(type(got).__name__)} of {len(got)}", hint)
        for index, (one, want) in enumerate(zip(got, expected)):
            _close_one(one, want, f"{what}[{index}]", rtol, atol, dtype, hint)
        return
    _close_one(got, expected, what, rtol, atol, dtype, hint)


def _arrays_in(expected: Any) -> bool:
    """True for a tuple or list holding arrays (not a list of numbers, which is one array's values)."""
    return isinstance(expected, (tuple, list)) and any(
        isinstance(e, np.ndarray) or hasattr(e, "shape") and not isinstance(e, np.generic) for e in expected)


def _close_one(got: Any, expected: Any, what: str, rtol: float, atol: float, dtype: bool, hint: str | None) -> None:
    if not hasattr(got, "shape") or not hasattr(got, "dtype"):
        _fail(f"{what} should be an array of shape {tuple(np.shape(expected))}, "
              f"got {_a(type(got).__name__)}: {_short(got)}", hint)
    got_np, exp_np = np.asarray(got), np.asarray(expected)
    if got_np.shape != exp_np.shape:
        _fail(f"{what}: expected shape {exp_np.shape}, got {got_np.shape}", hint)
    if dtype and got_np.dtype != exp_np.dtype:
        _fail(f"{what}: expected dtype {exp_np.dtype}, got {got_np.dtype}", hint)
    got_np, exp_np = _numeric(got_np), _numeric(exp_np)
    if got_np.dtype.kind not in "biufc" or exp_np.dtype.kind not in "biufc":
        _fail(f"{what}: expected numbers, got dtype {got_np.dtype}", hint)
    if got_np.dtype.kind in "biu" and exp_np.dtype.kind in "biu":
        bad = got_np != exp_np  # integers and booleans must match exactly, whatever the tolerance
    else:
        bad = ~np.isclose(got_np, exp_np, rtol=rtol, atol=atol, equal_nan=True)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        _fail(f"{what}: {int(bad.sum())} of {bad.size} values differ; at index {where} "
              f"expected {exp_np[where].item()!r}, got {got_np[where].item()!r}", hint)


def _a(name: str) -> str:
    """A class name with its article: "a tuple", "an ArrayImpl"."""
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def _numeric(a: np.ndarray) -> np.ndarray:
    """bfloat16 and the float8 types (from ml_dtypes) are numbers NumPy cannot compare: widen them."""
    if a.dtype.kind == "V" and a.dtype.names is None:
        try:
            return a.astype(np.float32)
        except (TypeError, ValueError):
            return a
    return a


def raises_problem(what: str, expected: str, raised: str | None, message: str, *, is_expected: bool,
                   match: str | None) -> str:
    """What is wrong with what a `raises` check saw, "" when nothing: `expected` and `raised` are the
    exception classes' names (`raised` None when nothing was raised), `is_expected` whether the
    exception raised is an `expected`, `message` its message. The in-kernel check and the grader
    (judge) both say it in these words."""
    if raised is None:
        return f"{what}: expected {expected}, but nothing was raised"
    if not is_expected:
        return f"{what}: expected {expected}, got {raised}: {_short(message)}"
    if match is not None and match not in message:
        return f"{what}: raised {raised} as expected, but its message lacks {match!r}: {_short(message)}"
    return ""


def raises(error: type[BaseException], fn: Callable[[], Any], *, what: str,
           match: str | None = None, hint: str | None = None) -> BaseException:
    """`fn()` must raise `error` (with `match` in its message, if given); returns the exception."""
    if _record.recording():
        caught, raised = None, None
        if _active:  # the note says this check runs the answer, before it does (the count moves in _recorded)
            _progress({**_active[-1], "count": _active[-1]["count"] + 1}, str(what), runs_answer=True)
        try:
            fn()
        except Exception as err:
            if is_stub(err):
                raise
            caught = err  # `err` itself is unbound once the except block ends
            raised = {"types": [_record.type_name(t) for t in type(err).__mro__], "message": str(err)[:2000]}
        _recorded("raises", raised, what=str(what)[:300], error=_record.type_name(error), match=match, hint=hint)
        return caught
    _count(what, runs_answer=True)
    try:
        fn()
    except Exception as err:
        if is_stub(err):
            raise  # the answer is still the stub: exercise() reports "not answered yet"
        problem = raises_problem(what, error.__name__, type(err).__name__, str(err),
                                 is_expected=isinstance(err, error), match=match)
        if problem:
            _fail(problem, hint)
        return err
    _fail(raises_problem(what, error.__name__, None, "", is_expected=False, match=match), hint)
    raise AssertionError("unreachable")


def answer_hash(salt: str, name: str, letter: str) -> str:
    """The digest a quiz cell stores for answer `letter` to question `name`: a learner's notebook
    can then tell right from wrong without the key being readable in it. `salt` (the chapter id)
    makes the same letter to the same question name hash differently in each chapter."""
    text = f"{salt}\0{name}\0{str.lower(str.strip(letter))}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


#: What a wrong quiz answer is told (in the kernel and by the grader alike).
QUIZ_HINT = "re-read the section each question is about"


def answers(given: dict[str, Any], *, choices: str | None = None, key: dict[str, str] | None = None,
            hashes: dict[str, str] | None = None, salt: str = "") -> None:
    """Multiple-choice answers: each one a single letter from `choices`; with `key` (hidden, the
    letters) or `hashes` (visible, `answer_hash(salt, name, letter)` of each right letter), all correct.

    A wrong answer is named but the right letter is not shown, so the check can be run again.
    """
    if _recorded("answers", dict(given), choices=choices):
        return
    _count("the answers " + ", ".join(given))
    if _active:  # one check per question, so that "all N checks passed" counts the questions
        _active[-1]["count"] += max(len(given) - 1, 0)
    if choices is not None:
        for name, value in given.items():
            if not (type(value) is str and len(value.strip()) == 1 and value.strip().lower() in choices):
                _fail(f"{name} should be one letter from {', '.join(choices)} as a string, got {_short(value)}",
                      f'write it like {name} = "{choices[0]}"')
    if key is not None:
        # type(...) is str: a str subclass could redefine strip, lower and comparison.
        wrong = [name for name, right in key.items()
                 if type(given.get(name)) is not str or str.lower(str.strip(given[name])) != right]
        if wrong:
            _fail(f"{len(wrong)} of {len(key)} answers are wrong: {', '.join(wrong)}",
                  QUIZ_HINT)
    if hashes is not None:
        wrong = [name for name, digest in hashes.items()
                 if type(given.get(name)) is not str or answer_hash(salt, name, given[name]) != digest]
        if wrong:
            _fail(f"{len(wrong)} of {len(hashes)} answers are wrong: {', '.join(wrong)}",
                  QUIZ_HINT)
