"""The course's layout on disk: chapters, their notebooks, and running nbgrader on them."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from grader.errors import CourseError, UsageError

#: A chapter id: two digits, an underscore, a lower-case topic.
if TYPE_CHECKING:
    import nbformat

CHAPTER_ID = re.compile(r"\d\d_[a-z0-9_]+")


def skip_unused_schema_formats() -> None:
    """Make nbformat quick to import in this process (call it before nbformat is imported).

    jsonschema imports `rfc3987_syntax`, when installed, only to check strings whose schema
    says `"format": "iri"`; no notebook schema does, nbformat never asks for format checks,
    and that import alone takes about 1.7 s. With this, it is skipped as if not installed."""
    sys.modules.setdefault("rfc3987_syntax", None)


def repo_root() -> Path:
    """The course checkout this package was installed from."""
    return Path(__file__).resolve().parent.parent


def _chapters_in(folder: Path) -> list[str]:
    """Chapter ids with a notebook of the same name in `folder`, in course order ([] without it)."""
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir()
                  if CHAPTER_ID.fullmatch(p.name) and (p / f"{p.name}.ipynb").exists())


def chapters(root: Path | None = None) -> list[str]:
    """Chapter ids that have a solution notebook, in course order ([] without solutions/)."""
    return _chapters_in((root or repo_root()) / "solutions")


def select_chapters(selected: list[str] | None, root: Path | None = None) -> list[str]:
    """The chapters asked for (all of them when none are named); CourseError naming the chapters there
    are for an unknown id. Every command that takes chapter ids checks them here."""
    known = chapters(root)
    unknown = sorted(set(selected or []) - set(known))
    if unknown:
        named = ", ".join(repr(chapter) for chapter in unknown)
        raise CourseError(f"unknown chapter{'s' if len(unknown) > 1 else ''} {named}; "
                          f"the chapters are: {', '.join(known) or 'none here'}")
    return list(selected or known)


#: Terminal colour codes, as found in kernels' tracebacks.
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def solution_path(chapter: str, root: Path | None = None) -> Path:
    return (root or repo_root()) / "solutions" / chapter / f"{chapter}.ipynb"


def learner_path(chapter: str, root: Path | None = None) -> Path:
    return (root or repo_root()) / "notebooks" / chapter / f"{chapter}.ipynb"


def read_notebook(path: Path) -> nbformat.NotebookNode:
    """Read and validate a notebook, turning every way it can be broken into a UsageError."""
    # Imported here, not at the top: nbformat pulls in jsonschema's format checkers, which take
    # about two seconds to import, and every notebook's kernel imports this package.
    import nbformat
    from nbformat.validator import get_validator

    path = Path(path)
    if not path.exists():
        raise UsageError(f"{path} does not exist.")
    if path.is_dir() or path.suffix != ".ipynb":
        raise UsageError(f"{path} is not a notebook: give the path of a .ipynb file.")
    try:
        text = path.read_text(encoding="utf-8")
        raw = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise UsageError(f"{path} is not valid notebook JSON ({err}). If you edited it by hand, restore "
                         "it from your last checkpoint (File > Revert Notebook to Checkpoint).") from None
    # Check the raw JSON against the schema first: nbformat's own reader and validate() can
    # crash on a wrong schema (say, "cells": 3) before they report it.
    if not isinstance(raw, dict) or raw.get("nbformat") != 4 or type(raw.get("nbformat_minor")) is not int:
        problems = ['expected a JSON object with "nbformat": 4 and an integer "nbformat_minor"']
    else:
        validator = get_validator(version=4, version_minor=raw.get("nbformat_minor", 5))
        problems = [getattr(e, "message", str(e)) for e in validator.iter_errors(raw)] if validator else []
    if problems:
        raise UsageError(f"{path} does not follow the notebook format: {problems[0]}")
    nb = nbformat.reads(text, as_version=4)
    return nb


def released_chapters(root: Path | None = None) -> list[str]:
    """Chapter ids that have a learner notebook in notebooks/, in course order."""
    return _chapters_in((root or repo_root()) / "notebooks")


def chapter_of(path: Path, root: Path | None = None) -> str:
    """The chapter a notebook belongs to; UsageError if there is none.

    Its file name says so when it is a chapter id; a renamed copy (JupyterLab's "Duplicate" makes
    `01_numpy_interop-Copy1.ipynb`) is known by its self-check cells, whose first lines are the
    chapter's. The chapters are those of solutions/ and, in a class where learners have no
    solutions/, of notebooks/."""
    root = root or repo_root()
    name = Path(path).stem
    known = sorted(set(chapters(root)) | set(released_chapters(root)))
    if name in known:
        return name
    firsts = _self_check_firsts(read_notebook(path))
    shared = {}
    for chapter in known:
        reference = solution_path(chapter, root)
        reference = reference if reference.is_file() else learner_path(chapter, root)
        try:
            shared[chapter] = len(firsts & _self_check_firsts(read_notebook(reference)))
        except UsageError:
            continue
    best = max(shared, key=shared.get, default=None)
    if best is None or shared[best] == 0:
        raise UsageError(f"{Path(path).name} is not a chapter of this course (neither its name nor its self-check "
                         "cells are a chapter's); the chapters are: " + ", ".join(f"{c}.ipynb" for c in known))
    return best


def _self_check_firsts(nb: nbformat.NotebookNode) -> set[str]:
    """The first lines of a notebook's self-check cells (their docstrings)."""
    return {cell.source.strip().splitlines()[0] for cell in grade_cells(nb) if cell.source.strip()}


def grade_cells(nb: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    """The autograded test cells of a notebook, in order."""
    return [cell for cell in nb.cells
            if cell.get("metadata", {}).get("nbgrader", {}).get("grade") and cell.cell_type == "code"]


#: The lines that open and close an answer cell's solution region and a test cell's hidden region
#: (nbgrader's markers, as the chapters write them).
BEGIN_SOLUTION, END_SOLUTION = "### BEGIN SOLUTION", "### END SOLUTION"
BEGIN_HIDDEN, END_HIDDEN = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"
MARKERS = (BEGIN_SOLUTION, END_SOLUTION, BEGIN_HIDDEN, END_HIDDEN)

#: Where a line is, as `regions` tells it: outside every region, or inside one of the two kinds.
PUBLIC, SOLUTION, HIDDEN = "public", "solution", "hidden"

#: What each marker does: the region it opens (or PUBLIC, for one that closes a region).
_OPENS = {BEGIN_SOLUTION: SOLUTION, END_SOLUTION: PUBLIC, BEGIN_HIDDEN: HIDDEN, END_HIDDEN: PUBLIC}


def marker(line: str) -> str | None:
    """The marker a line is, or None. nbgrader's own rule: the marker's words (without "### ") anywhere in
    the line, so that what is read here as a region is what nbgrader removes."""
    return next((m for m in MARKERS if m.removeprefix("### ") in line), None)


def regions(source: str) -> list[tuple[str, str]]:
    """Each line of a cell's source with where it is: PUBLIC, SOLUTION or HIDDEN, or, for a marker line,
    the marker itself. The one reading of nbgrader's regions that release, prepare and check share."""
    out, where = [], PUBLIC
    for line in source.splitlines():
        found = marker(line)
        if found is not None:
            where = _OPENS[found]
        out.append((found or where, line))
    return out


def visible_source(source: str) -> str:
    """A test cell's source as learners get it: without its hidden region (what nbgrader releases)."""
    return "\n".join(line for where, line in regions(source) if where not in (HIDDEN, BEGIN_HIDDEN, END_HIDDEN))


def cell_title(cell: nbformat.NotebookNode) -> str:
    """A graded cell's title: the first line of its docstring, else its grade_id."""
    source = cell.source.lstrip()
    match = re.match(r'(?:"""|\'\'\')\s*(.+?)\s*(?:$|"""|\'\'\')', source, re.M)
    return match.group(1).rstrip(".") if match else cell.metadata["nbgrader"]["grade_id"]


def run_nbgrader(args: list[str], *, cwd: Path, timeout: float | None = None,
                 background: bool = False) -> subprocess.CompletedProcess:
    """Run an nbgrader command in `cwd` (which holds an nbgrader_config.py) and capture its log.

    `background`: at a lower CPU priority, so it takes only what the rest leaves idle."""
    env = dict(os.environ)
    # nbgrader runs `alembic` from PATH when it creates a gradebook: find the one beside this Python.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # quiets a debugger warning in kernels
    nice = ["nice", "-n", "10"] if background and shutil.which("nice") else []
    return subprocess.run([*nice, sys.executable, "-m", "nbgrader", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout, check=False)
