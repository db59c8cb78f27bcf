"""Show how a candidate wrong answer behaves next to the reference, before reading any check.

    .venv/bin/python tests/wrong_answers/probe.py CHAPTER ANSWER_ID PROBE.py [WRONG.py ...]
    .venv/bin/python tests/wrong_answers/probe.py CHAPTER ANSWER_ID PROBE.py --corpus

One kernel runs the chapter's reference solution (its test cells left out), then the code in
PROBE.py (a cell of your own that calls the answer on inputs you choose and prints what it
returns), then for each WRONG.py (or each wrong answer of ANSWER_ID in tests/wrong_answers with
--corpus) runs it in place of the reference answer, runs PROBE.py again, prints both outputs and
says whether they differ, and puts the reference answer back. A wrong answer whose output does not
differ on any probe you can think of may not be wrong at all.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for `wrong_answers`

from grader.course import learner_path, solution_path  # noqa: E402
from wrong_answers import corpus  # noqa: E402
from wrong_answers.grading import Kernel  # noqa: E402


def _show(run) -> str:
    text = run.stdout
    if run.ename:
        text += f"[raised {run.ename}: {run.evalue.splitlines()[0] if run.evalue else ''}]\n"
    if run.died:
        text += f"[{run.died}]\n"
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("chapter", help="a chapter id, e.g. 09_reverse_mode_internals")
    parser.add_argument("answer", help="the answer cell's grade_id, e.g. ex2_answer")
    parser.add_argument("probe", type=Path, help="a file of Python to run after each answer")
    parser.add_argument("wrong", type=Path, nargs="*", help="files holding candidate wrong answers")
    parser.add_argument("--corpus", action="store_true", help="probe the answer cell's wrong answers in tests/wrong_answers")
    args = parser.parse_args(argv)

    nb = nbformat.read(solution_path(args.chapter), as_version=4)
    cells = [c for c in nb.cells if c.cell_type == "code" and not c.metadata.get("nbgrader", {}).get("grade")]
    answer = next((c for c in cells if c.metadata.get("nbgrader", {}).get("grade_id") == args.answer), None)
    if answer is None:
        parser.error(f"{args.chapter} has no answer cell {args.answer}")
    candidates = [(str(path), path.read_text()) for path in args.wrong]
    if args.corpus:
        candidates += [(f"{args.answer}[{i}] ({w.klass}: {w.why})", w.source)
                       for i, w in enumerate(corpus(args.chapter).get(args.answer, []))]
    probe = args.probe.read_text()

    kernel = Kernel(learner_path(args.chapter).parent)
    try:
        for index, cell in enumerate(cells):
            run = kernel.run(cell.source)
            if run.ename or run.died:
                print(f"reference cell {index} failed: {run.ename} {run.evalue[:300]} {run.died}")
                return 1
        reference = _show(kernel.run(probe))
        print("=== reference\n" + reference)
        for name, source in candidates:
            run = kernel.run(source)
            got = f"[the answer cell raised {run.ename}: {run.evalue[:200]}]\n" if run.ename else ""
            got += _show(kernel.run(probe)) if not run.died else f"[{run.died}]\n"
            print(f"=== {name}: {'DIFFERS' if got != reference else 'same output as the reference'}\n{got}")
            if run.died or "died" in got:
                kernel.shutdown()
                kernel = Kernel(learner_path(args.chapter).parent)
                for cell in cells:
                    kernel.run(cell.source)
            else:
                kernel.run(answer.source)
    finally:
        kernel.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
