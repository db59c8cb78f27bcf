"""Grade every wrong answer of a chapter with the hidden checks, in one kernel.

A chapter's corpus (`tests/wrong_answers/<chapter>.py`) holds a few hundred wrong answers in all;
running the notebook once per wrong answer would take hours. Instead one kernel runs the chapter's
reference solution once, top to bottom, with every test cell run as the autograder runs it
(expected values stripped, the checks recording; `grader.autograde.prepare.strip_expected`) to get
the reference records. The kernel computes as a grading kernel does (`sandbox.compute_env`: one
thread for the math, JAX's compilations kept on disk), so that what it compiled before the first
answer cell, and its C++ builds, are what a reference run leaves for later kernels
(`ChapterGrader.publish`). Then, for each wrong answer, in that same kernel:

1. what the reference answer defined is removed (its names, and the entries it put in JAX's rule
   tables), the exercise's own setup cells run again, and the wrong answer runs in their place, so
   that nothing of the reference's can stand in for a part the wrong answer left out;
2. the learner's test cell (visible checks only, as released) runs with the checks judging in
   the kernel: what the learner sees in their notebook;
3. step 1 is done again (so that no state the visible run left behind counts), and the
   instructor's test cell runs as the autograder runs it, and its record is judged against the
   reference record by `grader.autograde.judge.judge`: the graded verdict, hidden checks included,
   with the failing check's place (visible or hidden). When the visible run already failed a
   check (CheckFailed), this step is skipped by default and the graded verdict is that failure:
   the instructor's cell runs the same visible checks, in the same order, on an answer run afresh,
   so it fails one of them or a hidden one before, and scores 0 either way (`confirm=True` runs it
   anyway; `tests/test_wrong_answers.py` does so on a sample and finds the same verdict, word for
   word);
4. every later cell that reads a name the answer cell defines (a later exercise that builds on
   this one) runs again, its test cells graded the same way, so that a wrong answer is seen to
   cost its own exercise's points and only those;
5. the reference answer runs again, and so do those later cells, which restores the kernel.

From the command line, for a chapter's authors (prints one line per wrong answer):

    .venv/bin/python tests/wrong_answers/grading.py CHAPTER [ANSWER_ID ...] [--from FILE.py] [--confirm]

(`--from` grades the WRONG and RIGHT tables of another file of the same form, e.g. a fresh set of
answers written by someone who has not seen the checks; right answers are graded first, and each must
pass every visible check and earn full marks; `--confirm` runs every graded test cell,
even after a visible check failed.)

A separate test (`tests/test_check.py`) grades a sample through the real autograder, to prove the
two agree. If the kernel dies or a cell runs past its time, the kernel is started again and the
reference replayed, and the verdict says so.
"""

from __future__ import annotations

import ast
import os
import queue
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from grader.autograde import sandbox
from grader.autograde.judge import cell_record, judge
from grader.autograde.worker import publish_folder
from grader.autograde.prepare import strip_expected
from grader.course import ANSI, cell_title, learner_path, solution_path, visible_source
from grader.notebook import build, record

#: One cell may take this long; a wrong answer that hangs (a pool never joined, a deadlock) is
#: interrupted after it, as the autograder interrupts a cell.
CELL_SECONDS = 300.0


@dataclass
class CellRun:
    """What one execution in the kernel gave."""

    ename: str = ""  # the exception's class name, "" when nothing was raised
    evalue: str = ""  # its message, colour codes removed
    stdout: str = ""
    records: list[dict] = field(default_factory=list)  # the checks' records (grading mode)
    died: str = ""  # why the kernel is gone or was stopped ("" when it is well)


class Kernel:
    """One IPython kernel in `cwd`, fed code cell by cell (as a notebook would be), with this
    process's environment and `env` over it."""

    def __init__(self, cwd: Path, env: dict[str, str] | None = None):
        from jupyter_client.manager import KernelManager

        env = {**{k: v for k, v in os.environ.items() if k != record.ENV}, **(env or {})}
        env.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
        self.km = KernelManager(kernel_name="python3")
        # The kernel's own stderr (a warning about its transport) is not the chapter's output.
        self.km.start_kernel(cwd=str(cwd), env=env, stderr=subprocess.DEVNULL)
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=120)

    def run(self, code: str, timeout: float = CELL_SECONDS) -> CellRun:
        out = CellRun()
        msg_id = self.kc.execute(code, store_history=True, allow_stdin=False)
        deadline = time.monotonic() + timeout
        while True:
            if time.monotonic() > deadline:
                out.died = f"the cell ran longer than {timeout:g} s"
                return out
            try:
                msg = self.kc.get_iopub_msg(timeout=1.0)
            except queue.Empty:
                if not self.km.is_alive():
                    out.died = "the kernel died (a crash in native code, or os._exit)"
                    return out
                continue
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "stream" and content.get("name") == "stdout":
                out.stdout += content.get("text", "")
            elif kind == "display_data" and record.MIME in content.get("data", {}):
                out.records.append(content["data"][record.MIME])
            elif kind == "error":
                out.ename = content.get("ename", "")
                out.evalue = ANSI.sub("", str(content.get("evalue", ""))).strip()
            elif kind == "status" and content.get("execution_state") == "idle":
                return out

    def shutdown(self) -> None:
        try:
            self.kc.stop_channels()
        finally:
            self.km.shutdown_kernel(now=True)


@dataclass
class Verdict:
    """How one test cell judged what it was given."""

    passed: bool
    message: str = ""  # "" when passed: the first failure, as the learner would read it
    hidden: bool = False  # the failing check is a hidden one
    ename: str = ""  # visible runs: the exception the self-check raised (CheckFailed, ...)
    implied: bool = False  # graded verdicts: not run, implied by a visible check that failed (step 3)


@dataclass
class Outcome:
    """What one wrong answer got."""

    answer: str  # grade_id of its answer cell
    index: int  # its place in that cell's list
    klass: str
    why: str
    visible: Verdict | None = None  # the learner's self-check, visible checks only
    graded: Verdict | None = None  # its own test cell, graded as the autograder does
    others: dict[str, Verdict] = field(default_factory=dict)  # later test cells that were graded again
    problem: str = ""  # the kernel died or a cell ran too long
    answer_error: str = ""  # the wrong answer's own cell raised (it then defines nothing)



#: How much of each failed check's message a line shows ($GRADING_WIDTH, 160 by default).
WIDTH = int(os.environ.get("GRADING_WIDTH", "160"))

def defined_names(source: str) -> set[str]:
    """Names a cell binds at top level, and the keys of tables it assigns into (`table[p] = ...`)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names: set[str] = set()

    def targets(node: ast.AST) -> None:
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, (ast.Tuple, ast.List)):
            for element in node.elts:
                targets(element)
        elif isinstance(node, ast.Subscript):
            names.update(n.id for n in ast.walk(node.slice) if isinstance(n, ast.Name))

    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                targets(target)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets(node.target)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return names


def forget_code(source: str) -> str:
    """Code that removes what answer `source` defined: the names it binds at top level (imports
    aside, which the chapter's setup may share) and the entries it assigns into tables."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ""
    names, entries = [], []

    def targets(node: ast.AST) -> None:
        if isinstance(node, ast.Name):
            names.append(node.id)
        elif isinstance(node, (ast.Tuple, ast.List)):
            for element in node.elts:
                targets(element)
        elif isinstance(node, ast.Subscript):
            entries.append(f"{ast.unparse(node.value)}.pop({ast.unparse(node.slice)}, None)")

    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                targets(target)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets(node.target)
    lines = [f"for _name in {sorted(set(names))!r}:", "    globals().pop(_name, None)", "del _name", *entries]
    return "\n".join(lines)


def used_names(source: str) -> set[str]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}


def _role(cell) -> str:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return "test" if meta.get("grade") else "answer" if meta.get("solution") else "other"


class ChapterGrader:
    """One chapter's reference in a kernel, and wrong answers graded against it."""

    def __init__(self, chapter: str, *, confirm: bool = False):
        self.chapter = chapter
        self.confirm = confirm  # run the graded test cell even when a visible check already failed
        self.solution = nbformat.read(solution_path(chapter), as_version=4)
        self.visible = {c.metadata.nbgrader.grade_id: visible_source(c.source) for c in self.solution.cells if _role(c) == "test"}
        self.cells = [c for c in self.solution.cells if c.cell_type == "code"]
        self.cwd = learner_path(chapter).parent
        self.reference: dict[str, dict] = {}
        self.kernel: Kernel | None = None
        self.restarts = 0
        # The kernel computes as a grading kernel does (`sandbox.compute_env`), its JAX compilations
        # kept here; `warm` is what a reference run would publish (`_keep_warm`).
        self.scratch = Path(tempfile.mkdtemp(prefix="jbj-corpus-"))
        self.env = sandbox.compute_env(self.scratch / "jax-cache")
        self.warm: Path | None = None

    # ---- running cells -----------------------------------------------------------------

    def _gid(self, cell) -> str:
        return cell.metadata.get("nbgrader", {}).get("grade_id", "")

    def _title(self, cell) -> str:
        return cell_title(cell).split(":")[0]

    def _graded(self, cell) -> tuple[Verdict, CellRun]:
        """Run test cell `cell` as the autograder does and judge its record against the reference's."""
        self.kernel.run(f"__import__('os').environ[{record.ENV!r}] = '1'")
        run = self.kernel.run(strip_expected(cell.source))
        if not run.died:
            self.kernel.run(f"__import__('os').environ.pop({record.ENV!r}, None)")
        if run.died:
            return Verdict(False, f"{self._title(cell)}: {run.died}"), run
        fake = nbformat.v4.new_code_cell()
        fake.outputs = [nbformat.v4.new_output("display_data", data={record.MIME: r}) for r in run.records]
        student, why = cell_record(fake)
        gid = self._gid(cell)
        if gid not in self.reference:  # the reference run itself
            return Verdict(student is not None and student.get("end") == "ok", why), run
        verdict = judge(self._title(cell), self.reference[gid], student, why)
        return Verdict(verdict.passed, verdict.message, verdict.hidden), run

    def _visible(self, gid: str) -> Verdict:
        """The learner's self-check cell, judged in the kernel as in their notebook."""
        run = self.kernel.run(self.visible[gid])
        if run.died:
            return Verdict(False, run.died, ename="died")
        if run.ename:
            return Verdict(False, run.evalue, ename=run.ename)
        if "✅" not in run.stdout:
            return Verdict(False, "the self-check did not print its ✅ line", ename="")
        return Verdict(True)

    def start(self) -> None:
        """A fresh kernel that has run the whole reference solution, test cells graded."""
        if self.kernel is not None:
            self.kernel.shutdown()
            self.restarts += 1
        self.kernel = Kernel(self.cwd, self.env)
        for index, cell in enumerate(self.cells):
            if _role(cell) != "other" and self.warm is None:
                self._keep_warm()
            if _role(cell) == "test":
                verdict, run = self._graded(cell)
                gid = self._gid(cell)
                if not verdict.passed:
                    raise AssertionError(f"{self.chapter}: the reference fails {gid}: {verdict.message or run.evalue}")
                self.reference.setdefault(gid, run.records[0])
            else:
                run = self.kernel.run(cell.source)
                if run.died or (run.ename and _role(cell) == "answer"):
                    raise AssertionError(f"{self.chapter}: reference cell {index} failed: {run.died or run.evalue}")

    def _setup_cells(self, answer_index: int) -> list:
        """The exercise's own code cells before its answer cell: after the previous test cell, or
        after the first exercise's heading for the first exercise."""
        start = 0
        for i in range(answer_index - 1, -1, -1):
            if _role(self.cells[i]) == "test":
                start = i + 1
                break
        else:
            heading = next((i for i, c in enumerate(self.solution.cells)
                            if c.cell_type == "markdown" and "### Exercise" in c.source), None)
            if heading is not None:
                positions = {id(c): i for i, c in enumerate(self.solution.cells)}
                start = next((i for i, c in enumerate(self.cells) if positions[id(c)] > heading), answer_index)
        return [c for c in self.cells[start:answer_index] if _role(c) == "other"]

    def _later_cells(self, answer_index: int, names: set[str]) -> list:
        """The cells after the answer's test cell that read any of `names`, and every cell after the
        first of them (they may build on one another), or [] when none does."""
        later = self.cells[answer_index + 1:]
        own_test = next((i for i, c in enumerate(later) if _role(c) == "test"), -1)
        rest = later[own_test + 1:]
        first = next((i for i, c in enumerate(rest) if used_names(c.source) & names), None)
        return [] if first is None else rest[first:]

    def _put_in_place(self, answer, setup: list, source: str) -> str:
        """Remove what the reference answer defined, run the exercise's setup cells again, then run
        `source` in the answer's place; the error its cell raised ("" when none)."""
        self.kernel.run(forget_code(answer.source))
        for cell in setup:
            run = self.kernel.run(cell.source)
            if run.died or run.ename:
                raise _Died(f"a setup cell of the exercise failed: {run.died or run.evalue}")
        run = self.kernel.run(source)
        if run.died:
            raise _Died(run.died)
        return f"{run.ename}: {(run.evalue.splitlines() or [''])[0][:200]}" if run.ename else ""

    def grade(self, answer_gid: str, wrong: list) -> list[Outcome]:
        """Grade each of `wrong` (objects with .klass, .why, .source) in place of `answer_gid`."""
        if self.kernel is None:
            self.start()
        index = next(i for i, c in enumerate(self.cells) if self._gid(c) == answer_gid)
        answer = self.cells[index]
        test = next(c for c in self.cells[index + 1:] if _role(c) == "test")
        test_gid = self._gid(test)
        setup = self._setup_cells(index)
        outcomes = []
        for number, item in enumerate(wrong):
            outcome = Outcome(answer_gid, number, item.klass, item.why)
            names = defined_names(answer.source) | defined_names(item.source)
            later = self._later_cells(index, names)
            try:
                outcome.answer_error = self._put_in_place(answer, setup, item.source)
                outcome.visible = self._visible(test_gid)
                if outcome.visible.ename == "died":
                    raise _Died(outcome.visible.message)
                # The graded run starts from the answer as freshly run, as in a submission's own
                # kernel: state the visible run left (a list an answer appends to) is gone.
                if outcome.visible.ename == "CheckFailed" and not self.confirm:
                    outcome.graded = Verdict(False, outcome.visible.message, implied=True)
                    if later:
                        self._put_in_place(answer, setup, item.source)
                else:
                    self._put_in_place(answer, setup, item.source)
                    outcome.graded, run = self._graded(test)
                    if run.died:
                        raise _Died(run.died)
                for cell in later:
                    if _role(cell) == "test":
                        outcome.others[self._gid(cell)], run = self._graded(cell)
                    else:
                        run = self.kernel.run(cell.source)
                    if run.died:
                        raise _Died(run.died)
                # Back to the reference: its setup and answer, then what was run again after it.
                for cell in [*setup, answer, *later]:
                    if _role(cell) != "test":
                        run = self.kernel.run(cell.source)
                        if run.died or run.ename and _role(cell) == "answer":
                            raise _Died(f"the reference answer failed after a wrong one: {run.died or run.evalue}")
            except _Died as died:
                outcome.problem = str(died)
                if outcome.graded is None:
                    outcome.graded = Verdict(False, f"{self._title(test)}: {died}")
                self.start()
            else:
                if getattr(item, "restart", False):  # it changed the kernel's process for good: a fresh one
                    self.start()
            outcomes.append(outcome)
        # The reference passes again: nothing a wrong answer did is left behind.
        verdict, _ = self._graded(test)
        if not verdict.passed:
            raise AssertionError(f"{self.chapter}: after its wrong answers, the reference fails {test_gid}: {verdict.message}")
        # And its self-check passes when run once more, its answer cell not run again, as a learner re-runs a
        # check: a check must leave nothing behind (a rule registered under a probe, say) that turns its verdict.
        again = self._visible(test_gid)
        if not again.passed:
            raise AssertionError(f"{self.chapter}: the self-check {test_gid}, run a second time after the reference answer, "
                                 f"fails: {again.message[:300]}")
        return outcomes

    def _keep_warm(self) -> None:
        """The caches as a reference run publishes them (`grader.autograde.worker`), as they are when
        the first answer or test cell starts: the C++ builds (this kernel's build cache) and the JAX
        compilations of the public cells so far."""
        self.warm = self.scratch / "warm"
        # The build cache may be shared with kernels of other tests, building while this copies.
        if build.cache_dir().is_dir():
            build.copy_cache(build.cache_dir(), self.warm / ".build-cache")
        jax_cache = self.scratch / "jax-cache"
        if jax_cache.is_dir():
            shutil.copytree(jax_cache, self.warm / ".jax-cache", ignore=shutil.ignore_patterns("*.tmp", "*.lock"))
        self.warm.mkdir(exist_ok=True)

    def publish(self, cache: Path) -> None:
        """Put the reference records this kernel made where `grader check` looks for them (`cache`, as
        `grader.check.reference_cache()` names it), under the chapter's reference key: a check of the
        chapter then judges against them with no reference run of its own. Records already there (a
        reference run made them) must be the same; an AssertionError says which cells differ."""
        import json

        from grader.autograde import run
        from grader.course import repo_root

        if set(self.reference) != set(self.visible):
            return  # the reference has not run (or not to its end) in this kernel
        key = run.reference_key(repo_root(), self.chapter)
        warm = run.warm_folder(cache, self.chapter, key)
        if self.warm is not None and not warm.exists():
            publish_folder(self.warm, warm)
        path = run.reference_file(cache, self.chapter, key)
        try:
            there = json.loads(path.read_text())
        except (OSError, ValueError):
            run.store_reference(path, self.reference)
            return
        differ = sorted(gid for gid in there.keys() | self.reference.keys() if there.get(gid) != self.reference.get(gid))
        assert not differ, f"{self.chapter}: the reference records in {path} differ from this kernel's in {differ}"

    def close(self) -> None:
        """Stop the kernel and remove its scratch folder (its JAX cache, the warm caches)."""
        if self.kernel is not None:
            self.kernel.shutdown()
            self.kernel = None
        shutil.rmtree(self.scratch, ignore_errors=True)


class _Died(Exception):
    pass


def _tables_from(path: Path) -> tuple[dict, dict]:
    """The WRONG and RIGHT tables of a file laid out as tests/wrong_answers/<chapter>.py."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("wrong_answers_from_file", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return ({gid: list(items) for gid, items in getattr(module, "WRONG", {}).items()},
            {gid: list(items) for gid, items in getattr(module, "RIGHT", {}).items()})


def main(argv: list[str] | None = None) -> int:
    """Grade a chapter's corpus (or some answer cells of it) and print each wrong answer's verdicts."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for `wrong_answers`
    from wrong_answers import VISIBLE, corpus, right_answers

    args = list(sys.argv[1:] if argv is None else argv)
    source = None
    if "--from" in args:
        at = args.index("--from")
        source = Path(args[at + 1])
        del args[at:at + 2]
    if not args:
        print(__doc__)
        return 2
    confirm = "--confirm" in args
    if confirm:
        args.remove("--confirm")
    chapter, only = args[0], set(args[1:])
    table, rights = (corpus(chapter), right_answers(chapter)) if source is None else _tables_from(source)
    grader = ChapterGrader(chapter, confirm=confirm)
    bad = 0
    try:
        started = time.monotonic()
        grader.start()
        print(f"{chapter}: reference run in {time.monotonic() - started:.0f} s")
        for gid, items in rights.items():
            if only and gid not in only:
                continue
            for o in grader.grade(gid, items):
                ok = (o.graded.passed and o.visible is not None and o.visible.passed and not o.problem
                      and not o.answer_error and all(v.passed for v in o.others.values()))
                bad += not ok
                print(f"{'ok ' if ok else 'BAD'} {gid} RIGHT[{o.index}]  {'full marks' if o.graded.passed else 'LOST POINTS'}  "
                      f"{o.why[:70]}")
                for label, verdict in (("visible", o.visible), ("graded", o.graded), *o.others.items()):
                    if verdict is not None and not verdict.passed:
                        print(f"      {label}: {verdict.message.splitlines()[0][:WIDTH] if verdict.message else ''}")
                for note in (o.problem, o.answer_error):
                    if note:
                        print(f"      {note[:200]}")
        for gid, items in table.items():
            if only and gid not in only:
                continue
            for o in grader.grade(gid, items):
                visible = "-" if o.visible is None else "pass" if o.visible.passed else o.visible.ename or "fail"
                graded = ("FULL MARKS" if o.graded.passed else "0 (hidden)" if o.graded.hidden
                          else "0 (implied)" if o.graded.implied else "0")
                ok = (not o.graded.passed and not o.problem and not o.answer_error
                      and all(v.passed for v in o.others.values())
                      and (o.klass not in VISIBLE or (o.visible is not None and o.visible.ename == "CheckFailed")))
                bad += not ok
                print(f"{'ok ' if ok else 'BAD'} {gid}[{o.index}] {o.klass}  visible: {visible:<12} graded: {graded:<10} {o.why[:70]}")
                for label, verdict in (("visible", o.visible), ("graded", o.graded)):
                    if verdict is not None and not verdict.passed:
                        print(f"      {label}: {verdict.message.splitlines()[0][:WIDTH] if verdict.message else ''}")
                for other, verdict in o.others.items():
                    if not verdict.passed:
                        print(f"      also cost {other}: {verdict.message.splitlines()[0][:140]}")
                for note in (o.problem, o.answer_error):
                    if note:
                        print(f"      {note[:200]}")
    finally:
        grader.close()
    print(f"{bad} answers need attention (wrong answers that kept points or passed every visible check, "
          "right answers that lost points)")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
