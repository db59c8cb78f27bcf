"""Generate the learner notebooks in notebooks/ from solutions/ with nbgrader, and prove nothing leaks."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import nbformat

from grader.course import (HIDDEN, MARKERS, PUBLIC, SOLUTION, marker, read_notebook, regions, repo_root, run_nbgrader,
                           select_chapters)
from grader.errors import CourseError


class LeakError(CourseError):
    """Part of a solution or a hidden test reached a learner notebook."""


def protected_text(nb: nbformat.NotebookNode) -> list[tuple[str, str]]:
    """(grade_id, line) for each non-blank line inside a solution or hidden-test region, and for
    every line of a solution cell without markers (nbgrader replaces such a cell whole)."""
    found = []
    for cell in nb.cells:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "?")
        found.extend((grade_id, line.strip()) for line in _split(cell)[0] if line.strip())
    return found


def _split(cell: nbformat.NotebookNode) -> tuple[list[str], list[str]]:
    """A cell's protected lines (inside its solution and hidden-test regions; all of a solution cell
    without markers, which nbgrader replaces whole) and its public ones (outside every region)."""
    lines = regions(cell.source)
    if cell.get("metadata", {}).get("nbgrader", {}).get("solution") and not any(w in MARKERS for w, _ in lines):
        return [line for _, line in lines], []
    return ([line for where, line in lines if where in (SOLUTION, HIDDEN)],
            [line for where, line in lines if where == PUBLIC])


def _public_lines(nb: nbformat.NotebookNode) -> set[str]:
    """Lines the source shows outside every protected region: these are no secret."""
    return {line.strip() for cell in nb.cells for line in _split(cell)[1]}


def check_no_leaks(source: Path, released: Path) -> None:
    """Raise LeakError if `released` holds a marker, or a line of a solution or hidden test."""
    src, rel = read_notebook(source), read_notebook(released)
    rel_text = "\n".join(cell.source for cell in rel.cells)
    seen = {marker(line) for line in rel_text.splitlines()}
    problems = [f"marker {m!r}" for m in MARKERS if m in seen]
    rel_lines = {line.strip() for line in rel_text.splitlines()}
    public = _public_lines(src)
    for grade_id, line in protected_text(src):
        if line in rel_lines and line not in public:
            problems.append(f"line from {grade_id}: {line[:60]!r}")
    if problems:
        raise LeakError(f"{released} leaks what learners must not see:\n  " + "\n  ".join(problems[:5]))


def has_learner_work(path: Path) -> bool:
    """True when a learner notebook holds answers: an answer cell without its stub, or a file
    that cannot even be read (which is nobody's to overwrite either)."""
    try:
        nb = read_notebook(path)
    except CourseError:
        return True
    for cell in nb.cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("solution"):
            stub = "raise NotImplementedError()" if cell.cell_type == "code" else "YOUR ANSWER HERE"
            if stub not in cell.source:
                return True
    return False


def release(selected: list[str] | None = None, *, root: Path | None = None, out: Path | None = None,
            force: bool = False) -> list[Path]:
    """Regenerate learner notebooks for `selected` chapters (default: all) and check them.

    With `out`, write there instead of notebooks/ (used to compare a fresh release with the
    committed one). A learner notebook that holds answers is not overwritten unless `force`.
    Files are only added or replaced, never deleted. Returns the released notebook paths.

    A release into notebooks/ also records each chapter in the course's gradebook.db, as `nbgrader
    generate_assignment` does (the same nbgrader run writes both), so that formgrader's Release,
    Collect and Autograde work on it next; a release elsewhere (`out`) leaves the gradebook alone.
    """
    root = root or repo_root()
    selected = select_chapters(selected, root)
    release_dir = Path(out) if out else root / "notebooks"
    if not force:
        busy = [p for p in (release_dir / c / f"{c}.ipynb" for c in selected) if p.exists() and has_learner_work(p)]
        if busy:
            raise CourseError(
                "these notebooks hold answers, and releasing would overwrite them: "
                + ", ".join(str(p) for p in busy)
                + ". Copy them somewhere safe first, or pass --force to overwrite them.")
    with tempfile.TemporaryDirectory(prefix="release-") as tmp:
        # One nbgrader run for every selected chapter (it takes seconds to start, and most of a
        # release is that start): its source folder holds a link to each selected chapter, and
        # "*" releases them all. It writes into a scratch folder, and notebooks/ is only touched
        # once every chapter is released and checked, so a failed release leaves it as it was.
        sources, produced_dir = Path(tmp) / "sources", Path(tmp) / "released"
        sources.mkdir()
        for chapter in selected:
            (sources / chapter).symlink_to(root / "solutions" / chapter, target_is_directory=True)
        gradebook = ["--no-db"] if out else [f"--CourseDirectory.db_url=sqlite:///{root.resolve() / 'gradebook.db'}"]
        proc = run_nbgrader(
            ["generate_assignment", "*", "--force", *gradebook, f"--CourseDirectory.root={root}",
             f"--CourseDirectory.source_directory={sources}", f"--CourseDirectory.release_directory={produced_dir}"],
            cwd=root)
        # nbgrader goes on past a chapter it cannot release, and leaves out that chapter's folder.
        failed = [c for c in selected if not (produced_dir / c / f"{c}.ipynb").exists()]
        if proc.returncode != 0 or failed:
            lines = proc.stderr.strip().splitlines()
            log = "\n  ".join(([ln for ln in lines if "Error" in ln or "ERROR" in ln] or lines)[:8])
            raise CourseError(f"nbgrader could not release {', '.join(failed) or 'the chapters'}:\n  {log}")
        for chapter in selected:
            check_no_leaks(root / "solutions" / chapter / f"{chapter}.ipynb", produced_dir / chapter / f"{chapter}.ipynb")
        written = []
        for chapter in selected:
            target = release_dir / chapter
            shutil.copytree(produced_dir / chapter, target, dirs_exist_ok=True)
            written.append(target / f"{chapter}.ipynb")
    return written
