"""Make a submitted notebook gradable: restore the instructor's test cells, and say what was changed.

nbgrader's rule is that test cells are the instructor's: whatever a student did to them (edited,
emptied, duplicated, turned into markdown, changed the points or the metadata) the instructor's
cell is what runs and what decides the points. A deleted test cell scores 0, as in nbgrader. Every
such change is reported, and none of them stops the batch.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import nbformat

from grader.course import cell_title, grade_cells
from grader.verdict import strip_expected

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


@dataclass
class Prepared:
    nb: nbformat.NotebookNode  # what runs: instructor's test cells, expected values stripped
    original_sources: dict[str, str]  # grade_id -> the instructor's source, to show in feedback
    missing: list[str] = field(default_factory=list)  # grade_ids of deleted test cells
    notes: list[str] = field(default_factory=list)  # what was changed, for the report


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
    return prepared


def _title(cell) -> str:
    return cell_title(cell).split(":")[0]


def _is_release_of(released: str, instructor: str) -> bool:
    """The learner's copy of a test cell is the instructor's without the hidden region."""
    lines, keep, hidden = instructor.splitlines(), [], False
    for line in lines:
        if line.strip() == "### BEGIN HIDDEN TESTS":
            hidden = True
        elif line.strip() == "### END HIDDEN TESTS":
            hidden = False
        elif not hidden:
            keep.append(line)
    return released.strip() == "\n".join(keep).strip()


def looks_like(submitted: nbformat.NotebookNode, source: nbformat.NotebookNode) -> bool:
    """Does `submitted` hold any of `source`'s test cells (by their first line)? Tells a notebook of
    another chapter, handed in under this chapter's name, from a tampered one of this chapter."""
    firsts = {cell.source.strip().splitlines()[0] for cell in grade_cells(source) if cell.source.strip()}
    return any(cell.get("source", "").strip().splitlines()[:1] and cell.source.strip().splitlines()[0] in firsts
               for cell in submitted.cells if cell.get("cell_type") == "code")
