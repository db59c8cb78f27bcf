"""Run a notebook in a fresh kernel (errors allowed) and summarise what each cell raised."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from grader.course import ANSI



@dataclass
class CellError:
    index: int
    grade_id: str | None
    role: str  # "answer", "test" or "teaching"
    ename: str
    text: str  # the rendered traceback, colour codes removed


def role_of(cell) -> str:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    if meta.get("grade"):
        return "test"
    if meta.get("solution"):
        return "answer"
    return "teaching"


def execute(nb: nbformat.NotebookNode, cwd: Path, timeout: int = 600) -> nbformat.NotebookNode:
    NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(cwd)}}).execute()
    return nb


def errors(nb: nbformat.NotebookNode) -> list[CellError]:
    found = []
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                text = ANSI.sub("", "\n".join(output.get("traceback", [])))
                found.append(CellError(index, cell.metadata.get("nbgrader", {}).get("grade_id"),
                                       role_of(cell), output["ename"], text))
    return found
