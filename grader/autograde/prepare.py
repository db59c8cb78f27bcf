"""Stage 2, prepare: make a submitted notebook gradable, and say what was changed.

nbgrader's rule is that test cells are the instructor's: whatever a student did to them (edited,
emptied, duplicated, turned into markdown, changed the points or the metadata) the instructor's
cell is what runs and what decides the points. A deleted test cell scores 0, as in nbgrader. Every
such change is reported, and none of them stops the batch.

Each test cell then runs with its expected values removed (`strip_expected`), so the right
answers are never in the learner's process. Answer cells that reach into the grading machinery
(the course's checks, IPython's hooks, `sys.modules`, builtins) are flagged for a human to review
(`flag_answer_cells`): the verdicts do not depend on them, but a property a test cell decides in
the kernel (a `checks.true`) could.
"""

from __future__ import annotations

import ast
import copy
import re
from dataclasses import dataclass, field

import nbformat

from grader.course import BEGIN_HIDDEN, END_HIDDEN, cell_title, grade_cells, regions, visible_source

#: checks.<name>(...) calls whose expected value is removed, by position and keyword.
EXPECTED_ARGUMENTS = {"close": (1, "expected"), "equal": (1, "expected"), "answers": (None, "key")}


class _StripExpected(ast.NodeTransformer):
    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "checks":
            position, keyword = EXPECTED_ARGUMENTS.get(func.attr, (None, None))
            if position is not None and len(node.args) > position:
                node.args[position] = ast.Constant(None)
            for kw in node.keywords:
                if kw.arg == keyword:
                    kw.value = ast.Constant(None)
        return node


#: What `checks.hidden_checks` is told after each hidden-region marker.
HIDDEN_MARKERS = {BEGIN_HIDDEN: True, END_HIDDEN: False}


def _mark_hidden(source: str) -> str:
    """`source` with a `checks.hidden_checks(...)` call before the first statement after each
    hidden-region marker (at that statement's indentation), or unchanged if that cannot be done."""
    out, pending = [], None
    for where, line in regions(source):
        text = line.strip()
        if where in HIDDEN_MARKERS:
            pending = HIDDEN_MARKERS[where]
        elif pending is not None and text and not text.startswith("#"):
            indent = line[: len(line) - len(line.lstrip())]
            # Imported by name: the cell may not have `checks` in its namespace.
            out.append(f"{indent}__import__('grader.checks', fromlist=['_']).hidden_checks({pending})")
            pending = None
        out.append(line)
    marked = "\n".join(out)
    try:
        ast.parse(marked)
    except SyntaxError:  # e.g. a marker just before an `else:`: the verdicts then cannot tell
        return source
    return marked


def strip_expected(source: str) -> str:
    """The test cell `source` with every expected value replaced by None.

    Expected values are the second argument of `checks.close` and `checks.equal` and the `key=`
    of `checks.answers` (see CONTRIBUTING.md, "How a test cell is written"). The checks of the
    hidden region are marked as hidden (`checks.hidden_checks`).
    """
    tree = ast.parse(_mark_hidden(source))
    return ast.unparse(ast.fix_missing_locations(_StripExpected().visit(tree)))


KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


@dataclass
class Prepared:
    nb: nbformat.NotebookNode  # what runs: instructor's test cells, expected values stripped
    original_sources: dict[str, str]  # grade_id -> the instructor's source, to show in feedback
    missing: list[str] = field(default_factory=list)  # grade_ids of deleted test cells
    notes: list[str] = field(default_factory=list)  # what was changed, for the report
    flagged: list[str] = field(default_factory=list)  # cells that reach into the grading machinery


def _grade_id(cell) -> str | None:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def prepare(submitted: nbformat.NotebookNode, source: nbformat.NotebookNode) -> Prepared:
    """The notebook to run for `submitted`, given the chapter's instructor notebook `source`."""
    tests = {cell.metadata.nbgrader.grade_id: cell for cell in grade_cells(source)}
    answer_ids = {_grade_id(c) for c in source.cells if c.get("metadata", {}).get("nbgrader", {}).get("solution")}
    nb = nbformat.v4.new_notebook()
    nb.metadata = copy.deepcopy(source.metadata)
    prepared = Prepared(nb, {gid: cell.source for gid, cell in tests.items()})
    if submitted.get("metadata", {}).get("kernelspec", {}).get("name") != KERNELSPEC["name"]:
        prepared.notes.append("kernelspec changed: graded with the course's python3 kernel")
    nb.metadata["kernelspec"] = dict(KERNELSPEC)

    seen: set[str] = set()
    for cell in submitted.cells:
        gid = _grade_id(cell)
        if gid in tests:
            if gid in seen:
                prepared.notes.append(f"{_title(tests[gid])}: a duplicate of its test cell was removed")
                continue
            seen.add(gid)
            instructor = tests[gid]
            if cell.get("cell_type") != "code":
                prepared.notes.append(f"{_title(instructor)}: its test cell had been turned into "
                                      f"{cell.get('cell_type')}; the instructor's cell was run")
            elif cell.source != instructor.source and not _is_release_of(cell.source, instructor.source):
                prepared.notes.append(f"{_title(instructor)}: its test cell had been edited; the instructor's cell was run")
            if cell.get("metadata", {}).get("nbgrader", {}).get("points") != instructor.metadata.nbgrader.get("points"):
                prepared.notes.append(f"{_title(instructor)}: the points in its metadata had been changed; "
                                      "the instructor's points were used")
            run = nbformat.v4.new_code_cell(strip_expected(instructor.source), metadata=copy.deepcopy(instructor.metadata))
            run["id"] = instructor.get("id", run["id"])
            nb.cells.append(run)
            continue
        clean = copy.deepcopy(cell)
        meta = clean.get("metadata", {}).get("nbgrader")
        if meta is not None:
            # Only the instructor's notebook says which cells are graded: a cell of the student's
            # that claims to be one is treated as an ordinary cell.
            if meta.get("grade") and gid not in tests:
                prepared.notes.append(f"a cell claiming to be graded ({gid!r}) is not one of the chapter's; it was run as an ordinary cell")
            if gid not in answer_ids:
                del clean["metadata"]["nbgrader"]
        if clean.get("cell_type") == "code":
            clean["outputs"], clean["execution_count"] = [], None
        nb.cells.append(clean)
    for gid, instructor in tests.items():
        if gid not in seen:
            prepared.missing.append(gid)
            prepared.notes.append(f"{_title(instructor)}: its test cell was deleted, so it scores 0")
    prepared.flagged = flag_answer_cells(prepared.nb, source)
    return prepared


#: More cells than this and a notebook is not run (the chapters have a few hundred at most).
MAX_CELLS = 2000


def too_big(submitted: nbformat.NotebookNode) -> str:
    """Why a notebook is too big to run, or "" (a notebook built to exhaust the grader's memory)."""
    cells = submitted.get("cells", [])
    if len(cells) > MAX_CELLS:
        return f"the notebook has {len(cells)} cells, more than the {MAX_CELLS} a notebook may have"
    return ""


# ---- answer cells that reach into the grading machinery ------------------------------------

#: Names in `grader` an answer may use: the C++ build helper, array addresses, the course error.
ALLOWED_GRADER_NAMES = {"build", "builder", "memory", "JAX_VERSION", "CourseError"}

#: Attributes whose use in an answer reaches into the grading machinery or IPython's hooks.
HOOK_ATTRIBUTES = {"modules", "set_custom_exc", "input_transformers_post", "input_transformers_cleanup",
                   "ast_transformers", "events", "displayhook", "excepthook", "display_pub", "showtraceback",
                   "_showtraceback", "run_cell", "user_ns", "InteractiveTB"}

#: Names whose use in an answer does the same.
HOOK_NAMES = {"checks", "get_ipython", "builtins", "__builtins__", "__import__", "importlib"}


def touches_grading(source: str) -> list[str]:
    """What in an answer cell's source reaches into the grading machinery, by name ([] if nothing)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # IPython magics or broken code: look at the words instead
        words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", source))
        return sorted(words & (HOOK_NAMES | HOOK_ATTRIBUTES | {"grader"}))
    hits = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in HOOK_NAMES:
            hits.add(node.id)
        elif isinstance(node, ast.Attribute):
            if node.attr in HOOK_ATTRIBUTES:
                hits.add(node.attr)
            if isinstance(node.value, ast.Name) and node.value.id == "grader" and node.attr not in ALLOWED_GRADER_NAMES:
                hits.add(f"grader.{node.attr}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                if alias.name.startswith("grader.") or top in ("builtins", "importlib", "IPython"):
                    hits.add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if module.split(".")[0] in ("builtins", "importlib", "IPython") or module.startswith("grader."):
                hits.add(module)
            elif module == "grader":
                hits.update(f"grader.{a.name}" for a in node.names if a.name not in ALLOWED_GRADER_NAMES)
    return sorted(hits)


def flag_answer_cells(nb: nbformat.NotebookNode, source: nbformat.NotebookNode) -> list[str]:
    """The learner's code cells (answers and added cells) that touch the grading machinery, each
    as "cell N (first line): uses …". Cells as the instructor wrote them (the setup cell imports
    the checks) and test cells are not the learner's."""
    instructor = {cell.get("source", "").strip() for cell in source.cells if cell.get("cell_type") == "code"}
    flagged = []
    for index, cell in enumerate(nb.cells):
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.get("cell_type") != "code" or meta.get("grade") or cell.get("source", "").strip() in instructor:
            continue
        hits = touches_grading(cell.get("source", ""))
        if hits:
            first = next((line.strip() for line in cell.source.splitlines() if line.strip()), "")
            flagged.append(f"cell {index} ({first[:60]}) uses {', '.join(hits)}")
    return flagged


def _title(cell) -> str:
    return cell_title(cell).split(":")[0]


def _is_release_of(released: str, instructor: str) -> bool:
    """The learner's copy of a test cell is the instructor's without the hidden region."""
    return released.strip() == visible_source(instructor).strip()


def looks_like(submitted: nbformat.NotebookNode, source: nbformat.NotebookNode) -> bool:
    """Does `submitted` hold any of `source`'s test cells (by their first line)? Tells a notebook of
    another chapter, handed in under this chapter's name, from a tampered one of this chapter."""
    firsts = {cell.source.strip().splitlines()[0] for cell in grade_cells(source) if cell.source.strip()}
    return any(cell.get("source", "").strip().splitlines()[:1] and cell.source.strip().splitlines()[0] in firsts
               for cell in submitted.cells if cell.get("cell_type") == "code")
