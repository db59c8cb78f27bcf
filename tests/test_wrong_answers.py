"""Every wrong answer in tests/wrong_answers loses its own exercise's points, and only those, when
graded with the hidden checks, and fails a visible check first; races and answers judged by their
speed do so in every one of `RACE_RUNS` runs, the later ones with every CPU busy.
Every right answer written another way there (RIGHT) passes every check and earns full marks.

One kernel per chapter runs the reference once and grades each wrong answer in its place
(tests/wrong_answers/grading.py); tests/test_check.py grades a sample through the real autograder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from contextlib import contextmanager

import nbformat
import pytest

from conftest import CHAPTERS, ROOT
from grader.autograde import run
from grader.check import reference_cache
from grader.course import solution_path
from wrong_answers import CLASSES, VISIBLE, applies, corpus, right_answers
from wrong_answers.grading import ChapterGrader

#: Wrong answers per answer cell, at least.
AT_LEAST = 4

#: How many times each concurrency mistake (class f) is graded in all: once with the corpus, the rest
#: with every CPU kept busy. Each run must lose its points: a race is made certain by the checks
#: (tasks started late, results read the moment a call returns), never left to chance. `make races`
#: grades each 20 times.
RACE_RUNS = int(os.environ.get("JBJ_RACE_RUNS", "2"))


@contextmanager
def busy_cpus():
    """One process spinning on each CPU this process may use, for as long as the block runs: a race
    whose losing order needs an idle machine shows here."""
    spin = "import os\nparent = os.getppid()\nwhile os.getppid() == parent:   # ends with the test's process\n    pass\n"
    procs = [subprocess.Popen([sys.executable, "-c", spin]) for _ in os.sched_getaffinity(0)]
    try:
        yield
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


def answer_cells(chapter: str) -> list[str]:
    nb = nbformat.read(solution_path(chapter), as_version=4)
    return [c.metadata.nbgrader.grade_id for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_answer_cell_has_a_corpus_covering_its_classes(chapter):
    """Does every answer cell have at least four wrong answers, each naming its class and what it
    gets wrong, covering every class of mistake declared to apply to its exercise?"""
    table, classes = corpus(chapter), applies(chapter)
    cells = answer_cells(chapter)
    assert set(table) == set(cells), f"tests/wrong_answers/{chapter}.py must cover exactly {cells}"
    assert set(classes) == set(cells), f"tests/wrong_answers/{chapter}.py: APPLIES must name the classes of {cells}"
    problems = []
    for gid in cells:
        items = table[gid]
        if len(items) < AT_LEAST:
            problems.append(f"{gid}: {len(items)} wrong answers, at least {AT_LEAST} are needed")
        unknown = set(classes[gid]) - set(CLASSES)
        if unknown:
            problems.append(f"{gid}: APPLIES names unknown classes {sorted(unknown)}")
        missing = set(classes[gid]) - {item.klass for item in items}
        if missing:
            problems.append(f"{gid}: no wrong answer of class {', '.join(sorted(missing))}, which APPLIES says applies")
        undeclared = {item.klass for item in items} - set(classes[gid])
        if undeclared:
            problems.append(f"{gid}: wrong answers of class {', '.join(sorted(undeclared))}, which APPLIES does not list")
        sources = [item.source for item in items]
        if len(set(sources)) != len(sources):
            problems.append(f"{gid}: the same wrong answer twice")
    assert not problems, "\n".join(problems)


@pytest.mark.slow
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_wrong_answers_lose_their_points_and_only_those(chapter, record_property):
    """Graded with the hidden checks, does each wrong answer lose its own exercise's points, and no
    other exercise's? Does every one already fail a visible self-check (a race, and an answer too slow,
    in each of RACE_RUNS runs, the later ones with every CPU busy), in a
    line or two with expected and got (CheckFailed), in the learner's notebook? Does each right answer
    written another way (RIGHT) pass every visible check, earn full marks, and cost no other exercise?"""
    table = corpus(chapter)
    grader = ChapterGrader(chapter)
    try:
        outcomes = [outcome for gid, items in table.items() for outcome in grader.grade(gid, items)]
        rights = [outcome for gid, items in right_answers(chapter).items() for outcome in grader.grade(gid, items)]
        # Races, and answers judged by their speed, again with every CPU busy: the same verdict in every run.
        again = [(outcomes, table, lambda item: item.klass == "f" or item.timing),
                 (rights, right_answers(chapter), lambda item: item.timing)]
        if RACE_RUNS > 1 and any(keep(item) for _, answers, keep in again for items in answers.values() for item in items):
            with busy_cpus():
                for number in range(2, RACE_RUNS + 1):
                    for found, answers, keep in again:
                        for gid, items in answers.items():
                            chosen = [item for item in items if keep(item)]
                            for outcome in grader.grade(gid, chosen) if chosen else []:
                                outcome.index = items.index(chosen[outcome.index])
                                outcome.run = f", run {number} of {RACE_RUNS} with every CPU busy"
                                found.append(outcome)
                    # Seen with `pytest -s`: a long `make races` can be read while it runs.
                    print(f"{chapter}: run {number} of {RACE_RUNS} graded ({time.strftime('%H:%M:%S')})", flush=True)
        # For the chapter's `grader check` test, which runs next on this worker (conftest.py's TOGETHER):
        # the reference records, and the caches a reference run would have left for its kernel.
        grader.publish(reference_cache())
        warm = run.warm_folder(reference_cache(), chapter, run.reference_key(ROOT, chapter))
        assert any((warm / ".jax-cache").iterdir()), f"{chapter}: no JAX compilations were kept for grader check"
    finally:
        grader.close()
    # For the table at the end of the run (conftest.py), also from a pytest-xdist worker.
    first = [o for o in outcomes if not hasattr(o, "run")]
    record_property("wrong_answers", (chapter, len(first), sum(1 for o in first if o.visible and not o.visible.passed),
                                      sum(1 for o in first if not o.graded.passed)))
    problems = []
    for o in outcomes:
        name = f"{o.answer}[{o.index}] ({o.klass}: {o.why[:90]}){getattr(o, 'run', '')}"
        if o.answer_error:
            problems.append(f"{name}: its answer cell raised {o.answer_error}; a wrong answer must run and define its names")
        if o.problem:
            problems.append(f"{name}: {o.problem}; a wrong answer must not stop the notebook")
        if o.graded.passed:
            problems.append(f"{name}: earned full marks when graded")
        for gid, verdict in o.others.items():
            if not verdict.passed:
                problems.append(f"{name}: also cost {gid}: {verdict.message.splitlines()[0]}")
        if o.klass in VISIBLE and o.visible is not None:
            if o.visible.passed:
                problems.append(f"{name}: passes every visible check"
                                + (" (caught only by a hidden check)" if not o.graded.passed else ""))
            elif o.visible.ename != "CheckFailed" or not 1 <= len(o.visible.message.splitlines()) <= 2:
                problems.append(f"{name}: the self-check says {o.visible.ename}: {o.visible.message[:200]!r}, "
                                "not a failed check in a line or two")
    for o in rights:
        name = f"{o.answer}, right answer {o.index} ({o.why[:90]}){getattr(o, 'run', '')}"
        if o.answer_error or o.problem:
            problems.append(f"{name}: {o.answer_error or o.problem}")
        if o.visible is None or not o.visible.passed:
            problems.append(f"{name}: a visible check refuses it: {o.visible and o.visible.message[:200]!r}")
        if not o.graded.passed:
            problems.append(f"{name}: lost its points when graded: {o.graded.message[:200]!r}")
        for gid, verdict in o.others.items():
            if not verdict.passed:
                problems.append(f"{name}: cost {gid}: {verdict.message.splitlines()[0]}")
    assert not problems, f"{len(problems)} problems in {chapter}:\n" + "\n".join(problems)


#: The chapter whose sample is graded both ways (a chapter of rules and transformations, quick to grade).
AGREEMENT_CHAPTER = "09_reverse_mode_internals"


@pytest.mark.slow
def test_corpus_grading_agrees_with_the_autograder(tmp_path, monkeypatch):
    """With the last wrong answer of every answer cell of a chapter in one notebook, does the real
    autograder (`grader check`, hidden checks included) give each exercise the same verdict, with the
    same words, as the corpus grading in one kernel, and is that the visible check's failure where
    one failed (as the corpus test assumes when it skips a graded run)? Are the reference records of
    `grader check`'s own sandboxed reference run the same as those of the corpus's kernel (which the
    other chapters' `grader check` tests judge against)?"""
    from grader.check import score

    monkeypatch.setenv("JBJ_REFERENCE_CACHE", str(tmp_path / "reference"))  # a reference run of its own
    chapter = AGREEMENT_CHAPTER
    sample = {gid: items[-1] for gid, items in corpus(chapter).items()}
    grader = ChapterGrader(chapter, confirm=True)  # every graded test cell runs, none is implied
    try:
        one_kernel = {gid: grader.grade(gid, [item])[0] for gid, item in sample.items()}
    finally:
        grader.close()
    nb = nbformat.read(solution_path(chapter), as_version=4)
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if gid in sample:
            cell.source = sample[gid].source
    path = tmp_path / f"{chapter}.ipynb"
    nbformat.write(nb, path)
    graded = {r.grade_id: r for r in score(path)}
    for gid, outcome in one_kernel.items():
        row = graded[gid.replace("_answer", "_test")]
        assert not outcome.graded.passed and row.points == 0, (gid, row, outcome.graded)
        assert row.message == outcome.graded.message, (gid, row.message, outcome.graded.message)
        # What the corpus test takes for granted when it skips a graded run: after a visible check
        # failed, the graded run fails that same check.
        if outcome.visible.ename == "CheckFailed":
            assert failed_check(outcome.graded.message) == failed_check(outcome.visible.message), (
                gid, outcome.graded, outcome.visible)
    made = list((tmp_path / "reference").glob(f"reference-{chapter}-*.json"))
    assert len(made) == 1 and set(grader.reference) == set(grader.visible), made
    sandboxed = json.loads(made[0].read_text())
    assert sandboxed == grader.reference, [gid for gid in sandboxed if sandboxed[gid] != grader.reference.get(gid)]


def failed_check(message: str) -> str:
    """Which check a failure message is about: its first line up to "expected" (how a value is
    written after it differs between the kernel's words and the judge's: "<class 'int'>" or
    "builtins.int", a float32 printed as itself or as a float64)."""
    return (message.splitlines() or [""])[0].split(" expected ")[0].strip()
