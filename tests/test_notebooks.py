"""Learner notebooks run top to bottom: every teaching cell passes, and only exercises say "not answered yet".

The solution notebooks are re-run and compared output by output by nbval (see pyproject.toml);
here the learner versions in notebooks/ are executed as a learner would first open them. The
self-checks are fed wrong answers in tests/test_wrong_answers.py.
"""

from __future__ import annotations

import nbformat
import pytest

from conftest import CHAPTERS, ROOT
from grader.course import grade_cells, learner_path, solution_path
from grader.execute import going_deeper
from notebook_runner import errors, execute

STUB_LINE = "⏳ Not answered yet: replace `raise NotImplementedError()` with your answer"


@pytest.mark.slow
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_learner_notebook_fails_only_with_not_answered_yet(chapter):
    """Does the fresh learner notebook run with errors only in exercise cells, each "not answered yet"?"""
    path = learner_path(chapter)
    nb = execute(nbformat.read(path, as_version=4), path.parent)
    found = errors(nb)
    teaching = [e for e in found if e.role == "teaching"]
    assert not teaching, f"teaching cells failed: {[(e.index, e.ename, e.text[:200]) for e in teaching]}"
    for e in found:
        assert e.text.count("\n") <= 1, f"cell {e.index} printed a traceback, not a line or two:\n{e.text}"
        if e.role == "answer":
            assert e.ename == "NotImplementedError" and e.text.startswith(STUB_LINE), e
        else:
            assert e.ename == "NotAnswered" and e.text.startswith("⏳ ") and "is not answered yet" in e.text, e
    failed_tests = {e.grade_id for e in found if e.role == "test"}
    assert failed_tests == {c.metadata.nbgrader.grade_id for c in grade_cells(nb)}, "every self-check must say so"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_quiz_checks_the_answers_where_the_learner_sees_it(chapter):
    """Does the visible part of every quiz check the answers themselves (salted hashes), not only their
    format, so that a wrong answer never shows ✅, with no key in the learner's notebook?"""
    nb = nbformat.read(learner_path(chapter), as_version=4)
    quiz = [c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "quiz_test"]
    assert len(quiz) == 1 and "hashes=" in quiz[0] and f'salt="{chapter}"' in quiz[0] and "key=" not in quiz[0], quiz


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_cells_excluded_from_output_comparison_say_why(chapter):
    """Does every cell whose output nbval ignores start with a comment giving the reason, and none skip running?"""
    nb = nbformat.read(solution_path(chapter), as_version=4)
    for index, cell in enumerate(nb.cells):
        tags = cell.get("metadata", {}).get("tags", [])
        assert not {"nbval-skip", "skip-execution", "raises-exception"} & set(tags), (chapter, index, tags)
        if "nbval-ignore-output" in tags:
            assert cell.source.startswith("# Output varies by machine ("), (
                f"{chapter} cell {index} is tagged nbval-ignore-output without a first-line reason")


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_stored_outputs_have_no_stderr_or_errors(chapter):
    """Are the solution notebook's stored outputs free of errors and of stderr (warnings carry machine paths)?"""
    nb = nbformat.read(solution_path(chapter), as_version=4)
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            assert output.get("output_type") != "error", (chapter, index)
            assert not (output.get("output_type") == "stream" and output.get("name") == "stderr"), (chapter, index)



@pytest.mark.parametrize("chapter", [c for c in CHAPTERS if c[:2] <= "08"])
def test_chapter_links_the_jax_documentation(chapter):
    """Does each of chapters 00-08 link the JAX documentation (text links, so it still runs offline)?"""
    nb = nbformat.read(solution_path(chapter), as_version=4)
    text = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")
    assert "](https://docs.jax.dev/en/latest/" in text, chapter


@pytest.mark.parametrize("chapter", [c for c in CHAPTERS if "02" <= c[:2] <= "12"])
def test_chapter_draws_a_figure_without_figure_text(chapter):
    """Does each of chapters 02-12 store a drawn figure, as an image only (no "<Figure ...>" text left)?"""
    nb = nbformat.read(solution_path(chapter), as_version=4)
    outputs = [output for cell in nb.cells if cell.cell_type == "code" for output in cell.get("outputs", [])]
    assert any("image/png" in output.get("data", {}) for output in outputs), chapter
    for output in outputs:
        texts = [output.get("text", "")] + [output.get("data", {}).get("text/plain", "")]
        assert not any("<Figure" in str(t) for t in texts), chapter


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_exercise_has_its_task_before_its_answer_cell(chapter):
    """Is every answer cell preceded, since the previous self-check, by the markdown task that names it
    ("### Exercise N" or "### Quiz"), so that no exercise is left without its text?"""
    nb = nbformat.read(solution_path(chapter), as_version=4)
    since, missing = [], []
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade"):
            since = []
        elif meta.get("solution"):
            gid = meta["grade_id"]
            heading = "### Quiz" if gid == "quiz_answer" else f"### Exercise {gid[2:].split('_')[0]}"
            if not any(heading in text for text in since):
                missing.append(f"{gid} has no {heading!r} task before it")
        elif cell.cell_type == "markdown":
            since.append(cell.source)
    assert not missing, missing


DEEPER = going_deeper(ROOT)


@pytest.mark.parametrize("path", DEEPER, ids=[p.stem for p in DEEPER])
def test_a_going_deeper_notebook_is_optional_reading_tied_to_its_chapter(path):
    """Does each going-deeper notebook say in its first cell which chapter it extends (a link to that
    chapter's notebook), does that chapter link back to it, and is it reading only (no graded or answer
    cells, no code cell over 25 lines, no stored error or stderr, every ignored output saying why)?"""
    nb = nbformat.read(path, as_version=4)
    first = nb.cells[0].source
    linked = [c for c in CHAPTERS if f"../{c}/{c}.ipynb" in first]
    assert len(linked) == 1, f"{path.name}: its first cell must link the one chapter it extends (../NN_topic/NN_topic.ipynb)"
    chapter_text = "\n".join(c.source for c in nbformat.read(solution_path(linked[0]), as_version=4).cells
                             if c.cell_type == "markdown")
    assert f"../going_deeper/{path.name}" in chapter_text, f"{linked[0]} does not link {path.name}"
    for index, cell in enumerate(nb.cells):
        assert "nbgrader" not in cell.get("metadata", {}), (path.name, index)
        if cell.cell_type != "code":
            continue
        assert len(cell.source.strip().splitlines()) <= 25, f"{path.name} cell {index} is over 25 lines"
        tags = cell.get("metadata", {}).get("tags", [])
        assert not {"nbval-skip", "skip-execution", "raises-exception"} & set(tags), (path.name, index, tags)
        if "nbval-ignore-output" in tags:
            assert cell.source.startswith("# Output varies by machine ("), (path.name, index)
        for output in cell.get("outputs", []):
            assert output.get("output_type") != "error", (path.name, index)
            assert not (output.get("output_type") == "stream" and output.get("name") == "stderr"), (path.name, index)
