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
    assert "all 1 check passed." in capsys.readouterr().out


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

    with pytest.raises(checks.CheckFailed, match="should be an int"):
        with checks.exercise(6):
            checks.equal(Liar(), 3, what="answer")


def test_equal_compares_element_types_in_sequences():
    """Is (1.0, 2) different from (1, 2) for equal(), since types matter?"""
    with pytest.raises(checks.CheckFailed, match="expected"):
        with checks.exercise(6):
            checks.equal((1.0, 2), (1, 2), what="pair")


def test_equal_names_both_classes_when_a_type_is_wrong():
    """When equal() compares two classes with different metaclasses (NumPy's ndarray and jax.Array's
    class), does the failure name both classes rather than their metaclasses?"""
    import jax.numpy as jnp

    with pytest.raises(checks.CheckFailed, match=r"the type: expected <class 'numpy.ndarray'>, got <class 'jaxlib\.") as err:
        with checks.exercise(6):
            checks.equal(type(jnp.zeros(())), np.ndarray, what="the type")
    assert "Meta" not in str(err.value)
    with checks.exercise(6):
        checks.equal(type(jnp.zeros(())), type(jnp.ones(3)), what="the type")


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


def test_quiz_hashes_tell_right_from_wrong_without_the_key():
    """Does a visible quiz check with salted hashes pass the right letters, fail a wrong one, and hold no letter?"""
    hashes = {"q1": checks.answer_hash("09_demo", "q1", "b"), "q2": checks.answer_hash("09_demo", "q2", "c")}
    assert all(len(h) == 16 and h not in "abc" for h in hashes.values())
    with checks.exercise("Quiz"):
        checks.answers({"q1": "B ", "q2": "c"}, choices="abc", hashes=hashes, salt="09_demo")
    for given, wrong in (({"q1": "a", "q2": "c"}, "q1"), ({"q1": "b", "q2": "a"}, "q2")):
        with pytest.raises(checks.CheckFailed, match=f"1 of 2 answers are wrong: {wrong}\n"):
            with checks.exercise("Quiz"):
                checks.answers(given, choices="abc", hashes=hashes, salt="09_demo")
    # The same letter hashes differently under another salt (chapter) or question name.
    assert checks.answer_hash("08_demo", "q1", "b") != hashes["q1"] != checks.answer_hash("09_demo", "q2", "b")
    with pytest.raises(checks.CheckFailed, match="answers are wrong: q1"):
        with checks.exercise("Quiz"):
            checks.answers({"q1": "b", "q2": "c"}, hashes=hashes, salt="08_demo")


def test_one_check_is_counted_in_the_singular(capsys):
    """Does a cell with one check say "all 1 check passed", not "1 checks"?"""
    with checks.exercise("Quiz"):
        checks.answers({"q1": "a"}, choices="abc")
    assert capsys.readouterr().out.strip() == "✅ Quiz: all 1 check passed."


def test_nested_liars_and_str_subclasses_do_not_pass():
    """Are types checked at every level, so a lying object inside a container or a str subclass fails?"""
    class Liar:
        def __eq__(self, other):
            return True

        def __ne__(self, other):
            return False

    class SlyStr(str):
        def strip(self, *args):
            return self

        def lower(self):
            return "b"

        def __eq__(self, other):
            return True

        def __ne__(self, other):
            return False

        __hash__ = str.__hash__

    for got, expected in [(((Liar(),),), ((3,),)), ({"a": Liar()}, {"a": 3}), ([[Liar()]], [[3]]),
                          ((True,), (1,)), ({"a": 1}, {"b": 1})]:
        with pytest.raises(checks.CheckFailed):
            with checks.exercise(9):
                checks.equal(got, expected, what="nested")
    with pytest.raises(checks.CheckFailed, match="q1 should be one letter"):
        with checks.exercise("Quiz"):
            checks.answers({"q1": SlyStr("a")}, choices="abc")
    with pytest.raises(checks.CheckFailed, match="1 of 1 answers are wrong: q1"):
        with checks.exercise("Quiz"):
            checks.answers({"q1": SlyStr("a")}, key={"q1": "b"})


def test_equal_handles_arrays_dicts_and_nan(capsys):
    """Does equal() compare arrays, dicts in any order and NaN sensibly?"""
    with checks.exercise(10):
        checks.equal(np.arange(3), np.arange(3), what="array")
        checks.equal({"b": 2, "a": (1, "x")}, {"a": (1, "x"), "b": 2}, what="dict")
        checks.equal(float("nan"), float("nan"), what="nan")
    assert "all 3 checks passed" in capsys.readouterr().out
    with pytest.raises(checks.CheckFailed):
        with checks.exercise(10):
            checks.equal(np.arange(3).astype(np.int8), np.arange(3), what="array dtype")


def test_integers_must_match_exactly():
    """Does close() refuse an integer answer that is off by a little, whatever rtol allows?"""
    for got, expected in [(np.array([1_000_010]), np.array([1_000_000])), (np.array([2**62 + 1]), np.array([2**62]))]:
        with pytest.raises(checks.CheckFailed, match="values differ"):
            with checks.exercise(11):
                checks.close(got, expected, what="count")


def test_a_real_not_implemented_error_is_a_crash_not_an_unanswered_exercise():
    """Is JAX's NotImplementedError with a message (say, a missing rule) reported as an error, not "not answered"?"""
    def needs_a_rule(x):
        raise NotImplementedError("Differentiation rule for 'my_prim' not implemented")

    with pytest.raises(checks.AnswerCrashed, match="raised NotImplementedError: Differentiation rule"):
        with checks.exercise(12):
            needs_a_rule(1)
    with checks.exercise(12):
        checks.raises(NotImplementedError, lambda: needs_a_rule(1), what="grad without a rule", match="rule")
    with pytest.raises(checks.NotAnswered):
        with checks.exercise(12):
            checks.raises(NotImplementedError, lambda: (_ for _ in ()).throw(NotImplementedError()), what="stub")


def test_close_compares_bfloat16_values_and_still_fails_a_wrong_one(capsys):
    """Can a check compare bfloat16 arrays (NumPy alone cannot), and does a wrong value or a
    float32 answer where bfloat16 is expected still fail?"""
    expected = jnp.array([1.0, 2.5, -3.0], jnp.bfloat16)
    with checks.exercise(1):
        checks.close(jnp.array([1.0, 2.5, -3.0], jnp.bfloat16), expected, what="halves", rtol=1e-2)
    with pytest.raises(checks.CheckFailed, match=r"1 of 3 values differ; at index \(1,\)"):
        checks.close(jnp.array([1.0, 2.75, -3.0], jnp.bfloat16), expected, what="halves", rtol=1e-2)
    with pytest.raises(checks.CheckFailed, match="expected dtype bfloat16, got float32"):
        checks.close(jnp.array([1.0, 2.5, -3.0], jnp.float32), expected, what="halves", rtol=1e-2)


def test_a_crash_keeps_the_line_that_explains_it_not_a_generic_header():
    """When the error's first line is a header ending in ':', is the line naming the problem shown instead?"""
    def crashes(x):
        raise ValueError("Cannot lower jaxpr with verifier errors:\n"
                         "\t'stablehlo.add' op requires compatible types for all operands and results\n"
                         "\tat loc(\"jit(f)/add\")")

    with pytest.raises(checks.AnswerCrashed) as info:
        with checks.exercise(5):
            crashes(1)
    assert lines_of(info.value)[0] == ("❌ Exercise 5: your code raised ValueError: 'stablehlo.add' op requires "
                                       "compatible types for all operands and results")


def test_explaining_line_is_at_most_200_characters_and_falls_back_to_the_first_line():
    """Is the picked line cut near 200 characters, and is an all-header message shown by its first line?"""
    assert checks.explaining_line("Problem:\n" + "x" * 500) == "x" * 199 + "…"
    assert checks.explaining_line("Only a header:\nand another:") == "Only a header:"
    assert checks.explaining_line("one line") == "one line" and checks.explaining_line("  ") == ""


def test_a_short_expected_value_is_shown_whole():
    """Is an expected value of up to ~160 characters shown whole, and only a longer one cut?"""
    expected = tuple(range(40))  # 150 characters as text
    with pytest.raises(checks.CheckFailed) as info:
        with checks.exercise(8):
            checks.equal(tuple(range(41)), expected, what="t")
    assert repr(expected) in str(info.value) and "…" not in str(info.value).split("got")[0], str(info.value)
    long = tuple(range(60))
    with pytest.raises(checks.CheckFailed) as info:
        with checks.exercise(8):
            checks.equal(tuple(range(61)), long, what="t")
    assert repr(long) not in str(info.value) and "…" in str(info.value)


def test_the_grader_judges_a_recorded_value_with_the_checks_own_words(monkeypatch):
    """Does `checks.failure` (how the grader judges a learner's recorded value outside the kernel) give ""
    for a pass and the in-kernel check's message under the exercise's label for a failure, also where
    JBJ_RECORD=1 is set (it judges, never records), leaving no exercise open behind it?"""
    from grader.notebook import record

    monkeypatch.setenv(record.ENV, "1")
    assert checks.failure("equal", 4, 4, label="Exercise 2", what="f(2)") == ""
    message = checks.failure("close", np.ones(3, np.float32), np.zeros(3, np.float32), label="Exercise 2",
                             what="g(x)", rtol=1e-5, atol=1e-6, dtype=True, hint="look at g")
    assert message.startswith("Exercise 2: g(x): 3 of 3 values differ") and message.endswith("\nhint: look at g")
    assert checks._active == []


def test_runs_returns_the_result_or_says_in_a_line_what_was_raised(capsys):
    """Does `checks.runs` pass a result through, fail in two lines naming the error the learner's code raised
    (not "expected '', got ..."), and still report the stub as "not answered yet"?"""
    with checks.exercise(3):
        assert checks.runs(lambda: 6 * 7, what="f(6)") == 42
    assert capsys.readouterr().out == "✅ Exercise 3: all 1 check passed.\n"

    def broken():
        raise ValueError("Cannot take the gradient of an integer\nmore text")

    with pytest.raises(checks.CheckFailed) as info:
        with checks.exercise(3):
            checks.runs(broken, what="jax.grad(f)(2.0)", hint="differentiate a float")
    assert lines_of(info.value) == [
        "❌ Exercise 3: jax.grad(f)(2.0) raised ValueError: Cannot take the gradient of an integer (it should not raise)",
        "   hint: differentiate a float"]

    def stub():
        raise NotImplementedError()

    with pytest.raises(checks.NotAnswered):
        with checks.exercise(3):
            checks.runs(stub, what="f(1)")


def test_a_bare_array_where_a_tuple_is_expected_is_named_as_such():
    """Is an answer that returns a bare array where a tuple of one array is expected told so, not
    "expected shape (3,), got ()"?"""
    with pytest.raises(checks.CheckFailed) as info:
        with checks.exercise(4):
            checks.close(jnp.ones(3), (np.ones(3, np.float32),), what="f(x)")
    assert "f(x) should be a tuple of 1 array, got an ArrayImpl" in str(info.value)
    with pytest.raises(checks.CheckFailed) as info:
        with checks.exercise(4):
            checks.close((jnp.ones(3), jnp.ones(3)), (np.ones(3, np.float32),), what="f(x)")
    assert "f(x) should be a tuple of 1 array, got a tuple of 2" in str(info.value)
    with pytest.raises(checks.CheckFailed) as info:
        with checks.exercise(4):
            checks.close((jnp.ones(3), jnp.zeros(2)), (np.ones(3, np.float32), np.ones(2, np.float32)), what="f(x)")
    assert "f(x)[1]: 2 of 2 values differ" in str(info.value)


def test_a_tuple_of_arrays_and_a_list_of_numbers_pass_as_before(capsys):
    """Does a right tuple of arrays pass, counted as one check, and a list of numbers still stand for one array?"""
    with checks.exercise(5):
        checks.close((jnp.ones(3), jnp.zeros(2)), (np.ones(3, np.float32), np.zeros(2, np.float32)), what="f(x)")
        checks.close(jnp.array([2.0, 0.5]), [2.0, 0.5], what="g(x)", dtype=False)
    assert capsys.readouterr().out == "✅ Exercise 5: all 2 checks passed.\n"


def test_a_quiz_counts_its_questions(capsys):
    """Does a passed quiz of three questions say "all 3 checks passed", not "all 1 check passed"?"""
    with checks.exercise("Quiz"):
        checks.answers({"q1": "a", "q2": "b", "q3": "c"}, choices="abc", key={"q1": "a", "q2": "b", "q3": "c"})
    assert capsys.readouterr().out == "✅ Quiz: all 3 checks passed.\n"


def test_the_grader_says_what_a_runs_check_said(monkeypatch):
    """Does the grader's verdict on a recorded `runs` check use the same words as the kernel's?"""
    from grader.autograde.judge import judge
    from grader.notebook import record

    ref = {"end": "ok", "checks": [{"kind": "runs", "got": record.encode(""), "what": "tap(x)", "hint": "h"}]}
    good = {"end": "ok", "checks": [{"kind": "runs", "got": record.encode("")}]}
    bad = {"end": "ok", "checks": [{"kind": "runs", "got": record.encode("TypeError: no")}]}
    assert judge("Exercise 1", ref, good).passed
    verdict = judge("Exercise 1", ref, bad)
    assert not verdict.passed and verdict.message == "Exercise 1: tap(x) raised TypeError: no (it should not raise)\nhint: h"


def test_an_error_that_carries_a_traceback_is_told_by_its_last_line():
    """Does a host callback's error (JAX's message holds a whole Python traceback) read as the exception
    the host function raised, not as a `File "..."` line with a path in it?"""
    message = ('INTERNAL: CpuCallback error calling callback: Traceback (most recent call last):\n'
               '  File "/somewhere/site-packages/jax/_src/callback.py", line 90, in pure_callback_impl\n'
               '    return callback(*args)\n'
               '  File "<ipython-input-3>", line 2, in host\n'
               "ValueError: x must be 2-d, got (3,)")
    assert checks.explaining_line(message) == "ValueError: x must be 2-d, got (3,)"
