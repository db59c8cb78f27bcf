"""Re-run solution notebooks in place so their stored outputs are current (for maintainers)."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from grader.course import read_notebook, repo_root, select_chapters, solution_path
from grader.errors import CourseError

#: Seconds a single cell may run before the notebook is reported as stuck.
CELL_TIMEOUT = 600


def problems(nb: nbformat.NotebookNode) -> list[str]:
    """Cells that raised or wrote to stderr: a solution notebook must have neither."""
    found = []
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                found.append(f"cell {index} raised {output.get('ename')}: {str(output.get('evalue'))[:120]}")
            elif output.get("output_type") == "stream" and output.get("name") == "stderr":
                first = output.get("text", "").strip().splitlines()[:1]
                found.append(f"cell {index} wrote to stderr: {first[0][:120] if first else ''}")
    return found


def execute(path: Path) -> Path:
    """Run `path` top to bottom in a fresh kernel and store its outputs.

    The file is replaced only when every cell ran without an error or stderr output; otherwise
    CourseError names the cells, and the file is left exactly as it was.
    """
    nb = read_notebook(path)
    # record_timing=False keeps per-cell timestamps out of the file, so a re-run that changes
    # nothing shows no diff.
    client = NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3", allow_errors=True,
                            record_timing=False, resources={"metadata": {"path": str(path.parent)}})
    # The kernel's own log (e.g. ipykernel's note about its transport) is not the notebook's output.
    client.execute(stderr=subprocess.DEVNULL)
    found = problems(nb)
    if found:
        raise CourseError(f"{path.name} did not run cleanly, so it was not changed:\n  " + "\n  ".join(found[:5]))
    # Write beside the original, then rename: the notebook is never left half-written.
    with tempfile.NamedTemporaryFile("w", dir=path.parent, suffix=".ipynb", delete=False, encoding="utf-8") as tmp:
        nbformat.write(nb, tmp)
    os.replace(tmp.name, path)
    return path


#: The optional notebooks that go deeper than a chapter: no exercises, so their learner copy is their source.
GOING_DEEPER = "notebooks/going_deeper"


def going_deeper(root: Path | None = None) -> list[Path]:
    """The going-deeper notebooks, in order of their names."""
    return sorted(((root or repo_root()) / GOING_DEEPER).glob("*.ipynb"))


def execute_chapters(selected: list[str] | None = None, *, root: Path | None = None) -> list[Path]:
    """Execute the solution notebooks of `selected` chapters (default: all, and the going-deeper notebooks).
    A name that is a `.ipynb` path (a going-deeper notebook, say) is executed where it is."""
    root = root or repo_root()
    paths = [Path(name) for name in selected or [] if name.endswith(".ipynb")]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise CourseError(f"no such notebook: {', '.join(missing)}")
    chapters = [name for name in selected or [] if not name.endswith(".ipynb")]
    if not selected:
        paths = going_deeper(root)
    found = [solution_path(chapter, root) for chapter in (select_chapters(chapters, root) if chapters or not selected else [])]
    return [execute(path) for path in found + paths]
