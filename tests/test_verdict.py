"""Verdicts outside the kernel: expected values stripped from test cells, records compared in the grader."""

from __future__ import annotations

import ast

import numpy as np
import pytest

from grader import checks, record
from grader.autograde.judge import judge
from grader.autograde.prepare import strip_expected


def test_strip_expected_removes_every_expected_value():
    """Are the expected values of close, equal and answers gone from the cell, and nothing else?"""
    source = ('with checks.exercise(1, "f"):\n'
              '    checks.close(f(x), np.sum(x ** 2), what="f(x)", rtol=1e-3)\n'
              '    checks.equal(g(2), 8.0, what="g(2)")\n'
              '    checks.true(h(x) is not x, "h copies")\n'
              '    checks.answers({"q1": q1}, key={"q1": "b"})\n')
    stripped = strip_expected(source)
    assert "np.sum" not in stripped and "8.0" not in stripped and "'b'" not in stripped
    assert "f(x)" in stripped and "g(2)" in stripped and "h(x) is not x" in stripped and "rtol=0.001" in stripped
    calls = [n for n in ast.walk(ast.parse(stripped)) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") in ("close", "equal")]
    assert all(isinstance(c.args[1], ast.Constant) and c.args[1].value is None for c in calls)


def _record(kind, got, **details):
    return {"kind": kind, "got": record.encode(got), **details}


def _cell(*checks_, end="ok", detail=""):
    return {"label": "Exercise 1", "checks": list(checks_), "end": end, "detail": detail}


CLOSE = {"what": "f(x)", "rtol": 1e-5, "atol": 1e-6, "dtype": True, "hint": None}


def test_matching_records_pass_and_a_wrong_value_fails_with_expected_and_got():
    """Does an equal record pass, and a wrong value fail saying expected vs got?"""
    ref = _cell(_record("close", np.arange(3, dtype=np.float32), **CLOSE))
    assert judge("Exercise 1", ref, _cell(_record("close", np.arange(3, dtype=np.float32), **CLOSE))).passed
    verdict = judge("Exercise 1", ref, _cell(_record("close", np.arange(3, dtype=np.float32) + 1, **CLOSE)))
    assert not verdict.passed and verdict.message.startswith("Exercise 1: f(x): 3 of 3 values differ")


@pytest.mark.parametrize("got, words", [
    (np.arange(3, dtype=np.float64), "expected dtype float32"),
    (np.arange(4, dtype=np.float32), "expected shape (3,)"),
    (3.0, "should be an array"),
    ([0.0, 1.0, 2.0], "should be an array"),
])
def test_close_needs_the_same_shape_dtype_and_an_array(got, words):
    """Is a record with another dtype, shape or a non-array rejected, as the in-kernel check would?"""
    ref = _cell(_record("close", np.arange(3, dtype=np.float32), **CLOSE))
    verdict = judge("Exercise 1", ref, _cell(_record("close", got, **CLOSE)))
    assert not verdict.passed and words in verdict.message, verdict


def test_bfloat16_records_are_judged_by_value():
    """Does a bfloat16 array survive the record and pass when right, fail when a value is off?"""
    import ml_dtypes

    want = np.array([1.0, 2.5, -3.0], dtype=ml_dtypes.bfloat16)
    loose = {**CLOSE, "rtol": 1e-2}
    ref = _cell(_record("close", want, **loose))
    assert judge("Exercise 1", ref, _cell(_record("close", want.copy(), **loose))).passed
    off = np.array([1.0, 2.75, -3.0], dtype=ml_dtypes.bfloat16)
    verdict = judge("Exercise 1", ref, _cell(_record("close", off, **loose)))
    assert not verdict.passed and "1 of 3 values differ" in verdict.message, verdict


def test_objects_that_claim_equality_are_recorded_by_type_only():
    """Does an object whose __eq__ is always true compare equal to nothing?"""
    class Anything:
        def __eq__(self, other):
            return True
    ref = _cell(_record("equal", 8.0, what="cube(2)", hint=None))
    verdict = judge("Exercise 1", ref, _cell(_record("equal", Anything(), what="cube(2)", hint=None)))
    assert not verdict.passed and "Anything" in verdict.message


def test_equal_tells_jax_arrays_from_numpy_and_ints_from_floats():
    """Does `equal` keep the exact types: a NumPy array is not a JAX array, 8 is not 8.0?"""
    import jax.numpy as jnp

    ref = _cell(_record("equal", jnp.arange(3), what="a", hint=None), _record("equal", 8.0, what="b", hint=None))
    assert judge("Ex", ref, _cell(_record("equal", jnp.arange(3), what="a", hint=None), _record("equal", 8.0, what="b", hint=None))).passed
    assert not judge("Ex", ref, _cell(_record("equal", np.arange(3), what="a", hint=None), _record("equal", 8.0, what="b", hint=None))).passed
    assert not judge("Ex", ref, _cell(_record("equal", jnp.arange(3), what="a", hint=None), _record("equal", 8, what="b", hint=None))).passed


def test_fewer_checks_a_crash_or_no_record_score_zero_with_the_reason():
    """Does a record that stops early, crashed, or is missing fail, saying why?"""
    ref = _cell(_record("true", True, message="m"), _record("true", True, message="m2"))
    crashed = _cell(_record("true", True, message="m"), end="crashed", detail="ValueError: boom")
    assert judge("Exercise 1", ref, crashed).message == (
        "Exercise 1: your code raised ValueError: boom (after 1 of 2 checks)\n"
        "hint: run the answer on the inputs from the checks above to see the full error.")
    assert judge("Exercise 1", ref, _cell(end="not_answered")).message == "Exercise 1 is not answered yet"
    assert judge("Exercise 1", ref, None, "the kernel died").message == "Exercise 1: the kernel died"
    extra = _cell(*([_record("true", True, message="m")] * 3))
    assert not judge("Exercise 1", ref, extra).passed


def test_true_raises_and_answers_records():
    """Are a False property, a missing or wrong exception and a wrong quiz letter each rejected?"""
    assert not judge("E", _cell(_record("true", True, message="copies")), _cell(_record("true", False, message="copies"))).passed
    ref = _cell({"kind": "raises", "got": record.encode({"types": ["builtins.TypeError"], "message": "bad rank"}),
                 "what": "f(1)", "error": "builtins.TypeError", "match": "rank", "hint": None})
    ok = {"kind": "raises", "got": record.encode({"types": ["builtins.TypeError", "builtins.Exception"], "message": "wrong rank"}),
          "what": "f(1)", "error": "builtins.ValueError", "match": None}
    assert judge("E", ref, _cell(ok)).passed  # the reference's error and match are the ones used
    none = dict(ok, got=record.encode(None))
    assert "nothing was raised" in judge("E", ref, _cell(none)).message
    quiz = _cell(_record("answers", {"q1": "b", "q2": "a"}, choices="abc"))
    assert judge("Quiz", quiz, _cell(_record("answers", {"q1": " B ", "q2": "a"}, choices="abc"))).passed
    verdict = judge("Quiz", quiz, _cell(_record("answers", {"q1": "b", "q2": "c"}, choices="abc")))
    assert verdict.message == "Quiz: 1 of 2 answers are wrong: q2\nhint: re-read the section each question is about"


def test_the_grader_words_a_failed_raises_or_quiz_as_the_learner_saw_it():
    """Does the judge's message for a wrong exception, a missing one, a message without its match and
    a wrong quiz answer read exactly as the failed self-check read in the learner's kernel?"""
    def kernel_message(check):
        try:
            with checks.exercise("E"):
                check()
        except checks.CheckFailed as failure:
            return str(failure)
        raise AssertionError("the check passed")

    def bad_rank():
        raise TypeError("bad rank for f")

    def bad_value():
        raise ValueError("no such thing")

    cases = [(bad_value, "builtins.TypeError", None), (lambda: 1, "builtins.TypeError", None),
             (bad_rank, "builtins.TypeError", "shape")]
    for fn, error, match in cases:
        in_kernel = kernel_message(lambda: checks.raises(TypeError, fn, what="f(1)", match=match, hint="see section 2"))
        try:
            fn()
            got = None
        except Exception as err:
            got = {"types": [f"builtins.{t.__name__}" for t in type(err).__mro__], "message": str(err)}
        ref = _cell({"kind": "raises", "got": record.encode({"types": ["builtins.TypeError"], "message": "bad rank"}),
                     "what": "f(1)", "error": error, "match": match, "hint": "see section 2"})
        student = _cell({"kind": "raises", "got": record.encode(got), "what": "f(1)", "error": error, "match": match})
        assert judge("E", ref, student).message == in_kernel
    in_kernel = kernel_message(lambda: checks.answers({"q1": "b", "q2": "c"}, key={"q1": "b", "q2": "a"}))
    quiz = _cell(_record("answers", {"q1": "b", "q2": "a"}, choices="abc"))
    assert judge("E", quiz, _cell(_record("answers", {"q1": "b", "q2": "c"}, choices="abc"))).message == in_kernel


def test_checks_record_instead_of_judging_when_grading(monkeypatch, capsys):
    """With JBJ_RECORD=1, do the checks record what they were given, and never see expected values?"""
    monkeypatch.setenv(record.ENV, "1")
    sent = []
    monkeypatch.setattr("IPython.display.display", lambda obj, raw=False: sent.append(obj))
    with checks.exercise(1):
        checks.close(np.float32(2.0), None, what="f(1)")
        checks.equal("x", None, what="name")
        checks.true(False, "must copy")
    cell = sent[0][record.MIME]
    assert cell["end"] == "ok" and [c["kind"] for c in cell["checks"]] == ["close", "equal", "true"]
    assert record.decode(cell["checks"][2]["got"]) is False
    assert "recorded for grading" in capsys.readouterr().out


def test_raises_records_the_exception_and_returns_it(monkeypatch):
    """When grading, does checks.raises record the type and message, and still return the exception?"""
    monkeypatch.setenv(record.ENV, "1")
    sent = []
    monkeypatch.setattr("IPython.display.display", lambda obj, raw=False: sent.append(obj))
    with checks.exercise(1):
        err = checks.raises(ValueError, lambda: int("x"), what="int('x')")
        checks.raises(ValueError, lambda: 1, what="1")
    assert isinstance(err, ValueError)
    first, second = sent[0][record.MIME]["checks"]
    assert "builtins.ValueError" in record.decode(first["got"])["types"] and record.decode(second["got"]) is None


def test_a_recorded_crash_keeps_its_type_and_the_line_that_explains_it():
    """Is a crash whose message starts with a header ending in ':' shown with its type and the problem's line?"""
    ref = _cell(_record("true", True, message="m"))
    detail = ("JaxRuntimeError: Cannot lower jaxpr with verifier errors:\n"
              "\t'stablehlo.add' op requires compatible types\n\tat loc(unknown)")
    message = judge("Exercise 1", ref, _cell(end="crashed", detail=detail)).message
    assert message.startswith("Exercise 1: your code raised JaxRuntimeError: 'stablehlo.add' op requires "
                              "compatible types (after 0 of 1 checks)"), message


HIDDEN_CELL = ('with checks.exercise(1, "f"):\n'
               '    checks.close(f(1.0), 2.0, what="f(1)")\n'
               '    ### BEGIN HIDDEN TESTS\n'
               '    checks.close(f(-1.0), -2.0, what="f(-1)")\n'
               '    checks.close(f(0.0), 0.0, what="f(0)")\n'
               '    ### END HIDDEN TESTS\n')


def _run_recorded(source, f, monkeypatch):
    monkeypatch.setenv(record.ENV, "1")
    sent = []
    monkeypatch.setattr("IPython.display.display", lambda obj, raw=False: sent.append(obj))
    try:
        exec(strip_expected(source), {"checks": checks, "f": f})
    except checks.CourseError:
        pass
    return sent[0][record.MIME]


def test_checks_of_the_hidden_region_are_recorded_as_hidden(monkeypatch):
    """When grading, are the checks after "### BEGIN HIDDEN TESTS" marked hidden, and the visible ones not?"""
    cell = _run_recorded(HIDDEN_CELL, lambda x: np.float32(2 * x), monkeypatch)
    assert [c.get("hidden", False) for c in cell["checks"]] == [False, True, True]
    assert "__import__" not in strip_expected("with checks.exercise(1):\n    checks.true(True, 'm')\n")


def test_a_crash_in_a_hidden_check_does_not_point_at_inputs_the_learner_cannot_see(monkeypatch):
    """Does a crash in a hidden check say it is one the instructor runs, not "run it on the inputs from the checks above"?"""
    def crashes_below_zero(x):
        if x < 0:
            raise ValueError("negative")
        return np.float32(2 * x)

    ref = _cell(*[_record("close", np.float32(v), what="f", rtol=1e-5, atol=1e-6, dtype=True, hint=None, **h)
                  for v, h in ((2.0, {}), (-2.0, {"hidden": True}), (0.0, {"hidden": True}))])
    hidden_crash = _run_recorded(HIDDEN_CELL, crashes_below_zero, monkeypatch)
    assert hidden_crash["end"] == "crashed" and hidden_crash["hidden"] is True
    message = judge("Exercise 1", ref, hidden_crash).message
    assert "inputs from the checks above" not in message and "one the instructor runs when grading" in message, message
    visible_crash = _run_recorded(HIDDEN_CELL, lambda x: 1 / 0, monkeypatch)
    assert visible_crash["hidden"] is False
    message = judge("Exercise 1", ref, visible_crash).message
    assert "inputs from the checks above" in message and "instructor" not in message, message


def test_a_failed_hidden_check_says_it_is_one_the_instructor_runs():
    """Does a hidden check that fails (without its own hint) say that it is not in the learner's notebook?"""
    ref = _cell(_record("equal", 1, what="a", hint=None), _record("equal", 2, what="b", hint=None, hidden=True))
    message = judge("Exercise 1", ref, _cell(_record("equal", 1, what="a"), _record("equal", 3, what="b"))).message
    assert message.startswith("Exercise 1: b: expected 2, got 3") and "one the instructor runs when grading" in message
    message = judge("Exercise 1", ref, _cell(_record("equal", 5, what="a"), _record("equal", 2, what="b"))).message
    assert "instructor" not in message, message


def _nested(depth):
    value = {"t": "none"}
    for _ in range(depth):
        value = {"t": "list", "v": [value]}
    return value


FORGED = {
    "a list where a check belongs": {"label": "Exercise 1", "checks": [["close", 1]], "end": "ok"},
    "an unknown dtype name": _cell({"kind": "close", "got": {"t": "array", "kind": "ndarray", "dtype": "no_such_type",
                                                             "shape": [3], "v": ""}, **CLOSE}),
    "a string where the checks belong": {"label": "Exercise 1", "checks": "close", "end": "ok"},
    "a list where the record belongs": [1, 2, 3],
    "a number where a tag belongs": _cell({"kind": "close", "got": 7, **CLOSE}),
    "a value nested too deep to decode": _cell({"kind": "close", "got": _nested(20_000), **CLOSE}),
}


@pytest.mark.parametrize("name", FORGED)
def test_a_forged_record_scores_zero_with_a_note_instead_of_crashing(name):
    """Does a malformed or forged record (wrong types, unknown dtype names, lists where dicts belong)
    give that cell 0 with a note, rather than an exception that would fail the whole row?"""
    ref = _cell(_record("close", np.arange(3, dtype=np.float32), **CLOSE))
    verdict = judge("Exercise 1", ref, FORGED[name])
    assert not verdict.passed and "malformed" in verdict.message and "scores 0" in verdict.message, verdict


def test_a_forged_record_in_one_cell_leaves_the_rest_of_the_row_standing(tmp_path):
    """With one test cell's record forged and the other two right, is the row graded with the two
    cells' points, and the forged cell at 0 with a note?"""
    from grader.autograde.jobs import Job, KernelRun
    from grader.autograde.judge import make_row

    right = _cell(_record("close", np.arange(3, dtype=np.float32), **CLOSE))
    reference = {"ex1_test": right, "ex2_test": right, "ex3_test": right}
    run = KernelRun(records={"ex1_test": {"record": right, "why": ""},
                             "ex2_test": {"record": FORGED["an unknown dtype name"], "why": ""},
                             "ex3_test": {"record": right, "why": ""}})
    points = {"ex1_test": (2.0, "Exercise 1"), "ex2_test": (3.0, "Exercise 2"), "ex3_test": (5.0, "Exercise 3")}
    row = make_row(Job("kim", "00_start_here", tmp_path / "x.ipynb"), run, reference, points, None)
    assert row.status == "graded" and row.score == 7.0, row
    assert row.exercises["ex2_test"][0] == 0 and "malformed" in row.exercises["ex2_test"][2], row.exercises
