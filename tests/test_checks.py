"""Self-check helpers: right answers pass, wrong ones fail in two lines, missing ones say so."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from grader import checks


def lines_of(err: Exception) -> list[str]:
    return err._render_traceback_()


def test_right_answer_passes_and_counts_its_checks(capsys):
    """Does a correct answer pass, printing one line with the number of checks run?"""
    with checks.exercise(1):
        checks.close(jnp.array([1.0, 2.0]), np.array([1.0, 2.0], np.float32), what="f(x)")
        checks.equal((2, 3), (2, 3), what="shape")
        checks.true(True, "never shown")
    assert capsys.readouterr().out == "✅ Exercise 1: all 3 checks passed.\n"


@pytest.mark.parametrize("got, fragment", [
    (jnp.array([1.0, 2.5]), "1 of 2 values differ; at index (1,) expected 2.0, got 2.5"),
    (jnp.array([1.0, 2.0, 3.0]), "expected shape (2,), got (3,)"),
    (jnp.array([1, 2]), "expected dtype float32, got int32"),
    ([1.0, 2.0], "should be an array of shape (2,), got a list"),
])
def test_wrong_array_fails_with_expected_got_and_hint(got, fragment):
    """Does a wrong array fail in two lines: what differs, then the hint?"""
    with pytest.raises(checks.CheckFailed) as info:
        with checks.exercise(2):
            checks.close(got, np.array([1.0, 2.0], np.float32), what="f(x)", hint="look at the last element")
    lines = lines_of(info.value)
    assert len(lines) == 2
    assert lines[0].startswith("❌ Exercise 2: f(x)") and fragment in lines[0]
    assert lines[1] == "   hint: look at the last element"


def test_unanswered_stub_is_reported_as_not_answered():
    """Does the nbgrader stub (NotImplementedError) become a one-line "not answered yet"?"""
    def stub(x):
        raise NotImplementedError()

    with pytest.raises(checks.NotAnswered) as info:
        with checks.exercise(3):
            checks.close(stub(1), np.zeros(1), what="stub(1)")
    assert lines_of(info.value) == [
        "⏳ Exercise 3 is not answered yet: replace `raise NotImplementedError()` in its answer "
        "cell with your code, run that cell, then this one."]


def test_missing_answer_name_is_reported_as_not_answered():
    """When the answer cell never ran, is the missing name reported as "not answered yet"?"""
    with pytest.raises(checks.NotAnswered, match="Quiz is not answered yet: run its answer cell to define q9"):
        with checks.exercise("Quiz", "q9"):
            pass


def test_names_defined_by_the_caller_count_as_answered(capsys):
    """Are answer names looked up in the namespace of the cell that runs the check?"""
    global defined_here
    defined_here = 1
    with checks.exercise(4, "defined_here"):
        checks.equal(defined_here, 1, what="defined_here")
    assert "all 1 checks passed" in capsys.readouterr().out


def test_crash_in_learner_code_is_one_line():
    """Does an exception from the learner's code become a short AnswerCrashed, not a traceback?"""
    def crashes(x):
        return x["missing"]

    with pytest.raises(checks.AnswerCrashed) as info:
        with checks.exercise(5):
            crashes({})
    lines = lines_of(info.value)
    assert lines[0] == "❌ Exercise 5: your code raised KeyError: 'missing'"
    assert len(lines) == 2 and "hint" in lines[1]


def test_equal_is_not_fooled_by_an_object_that_equals_everything():
    """Does equal() reject an object whose __eq__ always says True?"""
    class Liar:
        def __eq__(self, other):
            return True

    with pytest.raises(checks.CheckFailed, match="should be a int"):
        with checks.exercise(6):
            checks.equal(Liar(), 3, what="answer")


def test_equal_compares_element_types_in_sequences():
    """Is (1.0, 2) different from (1, 2) for equal(), since types matter?"""
    with pytest.raises(checks.CheckFailed, match="expected"):
        with checks.exercise(6):
            checks.equal((1.0, 2), (1, 2), what="pair")


def test_true_needs_a_real_bool():
    """Does true() fail on a merely truthy value such as a non-empty list?"""
    with pytest.raises(checks.CheckFailed, match="must be a bool"):
        with checks.exercise(7):
            checks.true([1], "must be a bool")
    with pytest.raises(checks.CheckFailed):
        with checks.exercise(7):
            checks.true(np.bool_(False), "false numpy bool fails")


def test_raises_checks_type_and_message():
    """Does raises() pass on the right error and fail on none, the wrong type or the wrong message?"""
    def boom():
        raise ValueError("alignment is wrong")

    with checks.exercise(8):
        err = checks.raises(ValueError, boom, what="boom()", match="alignment")
    assert isinstance(err, ValueError)
    for fn, error, match, fragment in [
        (lambda: None, ValueError, None, "nothing was raised"),
        (boom, TypeError, None, "expected TypeError, got ValueError"),
        (boom, ValueError, "pointer", "message lacks 'pointer'"),
    ]:
        with pytest.raises(checks.CheckFailed, match=fragment):
            with checks.exercise(8):
                checks.raises(error, fn, what="boom()", match=match)


def test_quiz_answers_format_and_key():
    """Are quiz answers checked for format, and for correctness without revealing the key?"""
    with checks.exercise("Quiz"):
        checks.answers({"q1": "a", "q2": "B "}, choices="abc", key={"q1": "a", "q2": "b"})
    with pytest.raises(checks.CheckFailed, match=r"q2 should be one letter from a, b, c"):
        with checks.exercise("Quiz"):
            checks.answers({"q1": "a", "q2": 2}, choices="abc")
    with pytest.raises(checks.CheckFailed) as info:
        with checks.exercise("Quiz"):
            checks.answers({"q1": "a", "q2": "c"}, key={"q1": "a", "q2": "b"})
    assert "1 of 2 answers are wrong: q2" in str(info.value)
    assert "'b'" not in str(info.value) and '"b"' not in str(info.value)
