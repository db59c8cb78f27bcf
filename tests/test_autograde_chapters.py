"""grader autograde on a class of several chapters: references of different kinds side by side in
one run, each chapter's solution, learner notebook and a wrong exercise 2 graded from records outside
the kernel, and a C++ answer that crashes the kernel mid-grading.

Its own module (not test_autograde.py's) so that make test's workers can grade it beside the
synthetic class."""

from __future__ import annotations

import shutil

import pytest

from conftest import CHAPTERS, ROOT
from grader.autograde import sandbox

pytestmark = pytest.mark.slow


# A learner's C++ answer for chapter 11's exercise 2 that writes through a null pointer when the
# test cell first calls it: the sandboxed kernel dies with SIGSEGV in the middle of grading.
NULL_DEREFERENCE_SILU = (
    'silu_cc = r"""\n'
    '#include "xla/ffi/api/ffi.h"\n'
    'namespace ffi = xla::ffi;\n'
    'static ffi::Error CrashImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n'
    '  volatile float* nowhere = nullptr;\n'
    '  *nowhere = x.typed_data()[0];\n'
    '  return ffi::Error::Success();\n'
    '}\n'
    'XLA_FFI_DEFINE_HANDLER_SYMBOL(Crash, CrashImpl, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n'
    '"""\n'
    'crash_lib = grader.build(code=silu_cc, name="crash")\n'
    'jax.ffi.register_ffi_target("crash", jax.ffi.pycapsule(crash_lib.cdll.Crash), platform="cpu")\n'
    'def silu_ffi(x):\n'
    '    return jax.ffi.ffi_call("crash", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)\n'
)


#: Plain Python and NumPy (00), C++ built in the kernel (11).
CLASS_CHAPTERS = [ch for ch in CHAPTERS if ch.startswith(("00_", "11_"))]


@pytest.fixture(scope="module")
def several_chapters(tmp_path_factory):
    """Several chapters' solution, learner notebook, and solution with exercise 2 wrong, graded by one
    autograde run (references of several chapters side by side in one class).

    Each chapter alone is graded through the same pipeline, with the same three notebooks, by
    `grader check` in tests/test_check.py; here, two chapters of different kinds stand for the rest."""
    import nbformat

    from grader.autograde import autograde
    from grader.course import learner_path, solution_path
    from wrong_answers import wrong_answers

    course = tmp_path_factory.mktemp("chapters")
    shutil.copy(ROOT / "nbgrader_config.py", course)
    shutil.copytree(ROOT / "solutions", course / "solutions")
    for chapter in CLASS_CHAPTERS:
        wrong = nbformat.read(solution_path(chapter, ROOT), as_version=4)
        for cell in wrong.cells:
            if cell.metadata.get("nbgrader", {}).get("grade_id") == "ex2_answer":
                cell.source = wrong_answers(chapter)["ex2_answer"]
        submissions = [("solution", nbformat.read(solution_path(chapter, ROOT), as_version=4)),
                       ("learner", nbformat.read(learner_path(chapter, ROOT), as_version=4)),
                       ("ex2-wrong", wrong)]
        if chapter == "11_cpp_ffi":
            crashing = nbformat.read(solution_path(chapter, ROOT), as_version=4)
            for cell in crashing.cells:
                if cell.metadata.get("nbgrader", {}).get("grade_id") == "ex2_answer":
                    cell.source = NULL_DEREFERENCE_SILU
            submissions.append(("ffi-segfault", crashing))
        for student, nb in submissions:
            folder = course / "submitted" / student / chapter
            folder.mkdir(parents=True)
            nbformat.write(nb, folder / f"{chapter}.ipynb")
    summary = autograde(course, feedback=False, progress=False,
                        limits=sandbox.Limits(cell_seconds=300, notebook_seconds=1200))
    return {(r.student, r.chapter): r for r in summary.rows}


@pytest.mark.parametrize("chapter", CLASS_CHAPTERS)
def test_several_chapters_in_one_class_grade_the_same_outside_the_kernel(several_chapters, chapter):
    """Graded from records outside the kernel, does each chapter give its solution full marks, the learner
    notebook zero ("not answered yet"), and a wrong exercise 2 exactly its points off?"""
    solution, learner, wrong = (several_chapters[(s, chapter)] for s in ("solution", "learner", "ex2-wrong"))
    assert solution.status == "graded" and solution.score == solution.max_score > 0, solution
    assert learner.status == "graded" and learner.score == 0, learner
    assert all("not answered yet" in message for _, _, message, _ in learner.exercises.values()), learner.exercises
    points, most, message, _ = wrong.exercises["ex2_test"]
    assert points == 0 and message.startswith("Exercise 2: "), wrong.exercises["ex2_test"]
    assert wrong.score == wrong.max_score - most, wrong


def test_a_cpp_answer_that_segfaults_keeps_the_points_earned_before_it(several_chapters):
    """Does chapter 11 with a C++ exercise 2 that dereferences null end as `incomplete` (SIGSEGV), with exercise 1's
    points kept, the cells after the crash at 0, and exercise 2's verdict saying which of its checks had started?"""
    row = several_chapters[("ffi-segfault", "11_cpp_ffi")]
    assert row.status.startswith("incomplete: ") and "SIGSEGV" in row.status, row.status
    assert row.exercises["ex1_test"][0] == row.exercises["ex1_test"][1] > 0, row.exercises
    assert all(row.exercises[gid][0] == 0 for gid in ("ex2_test", "ex3_test", "quiz_test")), row.exercises
    assert row.score == row.exercises["ex1_test"][0], row
    # The crash came in Exercise 2's checks: its verdict says which check had started last.
    assert "\nwhere: Exercise 2, " in row.exercises["ex2_test"][2], row.exercises
    assert "where:" not in row.exercises["ex3_test"][2], row.exercises  # it never started
