"""Import a learning-management system's download into nbgrader's submitted/ layout.

LMS exports name each file by student: `smithjane_12345_67890_01_numpy_interop.ipynb` (Canvas,
with `_late_` when late and `-1` for a resubmission), a folder `Jane Smith_12345_assignsubmission_file_/`
holding the notebook (Moodle), or simply `smithjane/01_numpy_interop.ipynb`. Each notebook whose
name holds a chapter id becomes `submitted/<student>/<chapter>/<chapter>.ipynb`, with a
`timestamp.txt` from the file's time. Nothing is overwritten: an existing, different submission
is kept and the import of that file is reported as skipped.
"""

from __future__ import annotations

import re
import zipfile
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath

from grader.course import chapters as list_chapters
from grader.errors import CourseError

MAX_FILE_BYTES = 100 << 20


def student_id(raw: str) -> str:
    """An nbgrader-safe student id from the start of an LMS name ("Jane Smith" -> "jane-smith")."""
    cleaned = re.sub(r"[^a-z0-9]+", "-", raw.lower()).strip("-")
    return cleaned or "unknown"


def _identify(relative: PurePosixPath, chapters: list[str]) -> tuple[str, str] | None:
    """(student, chapter) for a file of the download, or None when its name holds no chapter id."""
    chapter = next((ch for ch in sorted(chapters, key=len, reverse=True) if ch in relative.name), None)
    if chapter is None:
        return None
    if len(relative.parts) > 1:
        owner = relative.parts[-2] if relative.parts[-2] != chapter else relative.parts[0]
    else:
        owner = relative.name[: relative.name.index(chapter)]
    owner = owner.split("_")[0] if "_" in owner.strip("_") else owner
    return student_id(owner), chapter


def _entries(source: Path):
    """(relative path, bytes loader, modification time) for each notebook in a folder or zip."""
    if source.is_dir():
        for path in sorted(source.rglob("*.ipynb")):
            if path.is_file() and not path.is_symlink() and ".ipynb_checkpoints" not in path.parts:
                yield (PurePosixPath(path.relative_to(source).as_posix()), path.read_bytes, path.stat().st_size,
                       datetime.fromtimestamp(path.stat().st_mtime, timezone.utc))
    elif zipfile.is_zipfile(source):
        archive = zipfile.ZipFile(source)
        for info in archive.infolist():
            name = PurePosixPath(info.filename)
            if info.is_dir() or not name.name.endswith(".ipynb") or name.is_absolute() or ".." in name.parts:
                continue
            if "__MACOSX" in name.parts or ".ipynb_checkpoints" in name.parts:
                continue
            yield (name, (lambda info=info: archive.read(info)), info.file_size,
                   datetime(*info.date_time, tzinfo=timezone.utc))
    else:
        raise CourseError(f"{source} is neither a folder nor a .zip file")


def import_submissions(source: Path, course: Path, chapters: list[str] | None = None) -> list[str]:
    """Copy the notebooks of an LMS download into `course`/submitted; returns one line per file."""
    if not source.exists():
        raise CourseError(f"{source} does not exist")
    known = chapters or list_chapters(course)
    lines = []
    for relative, load, size, mtime in _entries(source):
        found = _identify(relative, known)
        if found is None:
            lines.append(f"skipped {relative}: its name holds no chapter id ({', '.join(known)})")
            continue
        if size > MAX_FILE_BYTES:
            lines.append(f"skipped {relative}: larger than {MAX_FILE_BYTES >> 20} MiB")
            continue
        student, chapter = found
        folder = course / "submitted" / student / chapter
        target = folder / f"{chapter}.ipynb"
        data = load()
        if target.exists():
            if target.read_bytes() == data:
                lines.append(f"unchanged {relative} (already in submitted/{student}/{chapter})")
            else:
                lines.append(f"skipped {relative}: submitted/{student}/{chapter} already holds a different "
                             "notebook, which is kept; remove it first to import this one")
            continue
        folder.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        (folder / "timestamp.txt").write_text(mtime.strftime("%Y-%m-%d %H:%M:%S.%f UTC"))
        lines.append(f"imported {relative} -> submitted/{student}/{chapter}")
    return lines
