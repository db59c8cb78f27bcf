"""Stage 1, intake: an LMS download into nbgrader's submitted/ layout, then the jobs to grade.

LMS exports name each file by student: `smithjane_12345_67890_01_numpy_interop.ipynb` (Canvas:
name, `late` when late, user id, submission id, with `-1`, `-2`, … for resubmissions), a folder
`Jane Smith_12345_assignsubmission_file_/` holding the notebook (Moodle), or simply
`smithjane/01_numpy_interop.ipynb`. Each notebook whose name holds a chapter id becomes
`submitted/<student>/<chapter>/<chapter>.ipynb`, with a `timestamp.txt` from the file's time.
The LMS's numeric user id is part of the student id (`smithjane-12345`), so two students with
the same name stay two students. Of several files of one student for one chapter, the latest is
graded and the earlier ones are kept in `earlier/` beside it. Nothing is overwritten: an
existing, different submission is kept. Every notebook of the download ends in a row: graded, or
`failed: <why>`, or with a note saying what became of it.
"""

from __future__ import annotations

import re
import struct
import zipfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import Callable

from grader.autograde.jobs import Job
from grader.course import chapters as list_chapters
from grader.errors import CourseError

MAX_FILE_BYTES = 100 << 20

#: Canvas marks a resubmission with `-N` before `.ipynb`: attempt N + 1.
ATTEMPT = re.compile(r"-(\d+)$")

#: Where earlier submissions of a download are kept, inside the submission's folder.
EARLIER = "earlier"


def student_id(raw: str) -> str:
    """An nbgrader-safe student id from the start of an LMS name ("Jane Smith" -> "jane-smith")."""
    cleaned = re.sub(r"[^a-z0-9]+", "-", raw.lower()).strip("-")
    return cleaned or "unknown"


def _owner(relative: PurePosixPath, chapter: str | None) -> str:
    """The part of a download's path that names the student."""
    if len(relative.parts) > 1:
        return relative.parts[-2] if relative.parts[-2] != chapter else relative.parts[0]
    name = relative.stem
    return name[: name.index(chapter)] if chapter else name


def _student(owner: str) -> str:
    """The student id for an LMS owner string: the name, then the LMS's numeric user id if any
    ("smithjane_late_12345_67890_" -> "smithjane-12345", "Jane Smith_1001_assignsubmission_file_"
    -> "jane-smith-1001", "kim" -> "kim")."""
    parts = [p for p in owner.split("_") if p]
    if len(parts) < 2:
        return student_id(owner)
    number = next((p for p in parts[1:] if p.isdigit()), None)
    return student_id(parts[0]) + (f"-{number}" if number else "")


def _identify(relative: PurePosixPath, chapters: list[str]) -> tuple[str, str] | None:
    """(student, chapter) for a file of the download, or None when its name holds no chapter id."""
    chapter = next((ch for ch in sorted(chapters, key=len, reverse=True) if ch in relative.name), None)
    if chapter is None:
        return None
    return _student(_owner(relative, chapter)), chapter


def _attempt(relative: PurePosixPath) -> int:
    """Canvas's attempt number from a file name (`…-1.ipynb` is the second attempt)."""
    match = ATTEMPT.search(relative.stem)
    return int(match.group(1)) + 1 if match else 1


def _zip_time(info: zipfile.ZipInfo) -> tuple[datetime, str]:
    """When a zip entry was last changed, in UTC, and a note when that is a guess.

    The zip header's time has no zone: it is the local time of the machine that made the zip.
    Most zip tools also store the exact UTC time in an "extended timestamp" field (0x5455),
    used when present; otherwise the header's time is read as this machine's local time."""
    extra = info.extra
    while len(extra) >= 4:
        tag, size = struct.unpack("<HH", extra[:4])
        body = extra[4:4 + size]
        if tag == 0x5455 and size >= 5 and body[0] & 1:
            return datetime.fromtimestamp(struct.unpack("<i", body[1:5])[0], timezone.utc), ""
        extra = extra[4 + size:]
    local = datetime(*info.date_time).astimezone()  # a naive time is read in this machine's zone
    return local.astimezone(timezone.utc), (f"the zip gives this file's time without a zone; read as this "
                                            f"machine's local time (UTC{local.strftime('%z')})")


@dataclass
class _Entry:
    relative: PurePosixPath
    load: Callable[[], bytes]
    size: int
    mtime: datetime
    time_note: str = ""


def _entries(source: Path) -> tuple[list[_Entry], list[str]]:
    """Each notebook in a folder or zip; and a line for each other file, which is not imported."""
    entries, others = [], []
    if source.is_dir():
        for path in sorted(p for p in source.rglob("*") if p.is_file() or p.is_symlink()):
            relative = PurePosixPath(path.relative_to(source).as_posix())
            if ".ipynb_checkpoints" in relative.parts or "__MACOSX" in relative.parts:
                continue
            if path.suffix != ".ipynb" or path.is_symlink():
                others.append(f"ignored {relative}: not a notebook")
                continue
            stat = path.stat()
            entries.append(_Entry(relative, path.read_bytes, stat.st_size,
                                  datetime.fromtimestamp(stat.st_mtime, timezone.utc)))
    elif zipfile.is_zipfile(source):
        archive = zipfile.ZipFile(source)
        for info in archive.infolist():
            name = PurePosixPath(info.filename)
            if info.is_dir() or "__MACOSX" in name.parts or ".ipynb_checkpoints" in name.parts:
                continue
            if name.is_absolute() or ".." in name.parts:
                others.append(f"ignored {name}: a path outside the download")
                continue
            if not name.name.endswith(".ipynb"):
                others.append(f"ignored {name}: not a notebook")
                continue
            mtime, note = _zip_time(info)
            entries.append(_Entry(name, (lambda info=info: archive.read(info)), info.file_size, mtime, note))
    else:
        raise CourseError(f"{source} is neither a folder nor a .zip file: pass the LMS download itself")
    return entries, others


@dataclass
class Imported:
    """What became of an LMS download: a line per file, notes for the rows, and failed rows."""

    lines: list[str] = field(default_factory=list)
    notes: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    failed: list[Job] = field(default_factory=list)

    def note(self, key: tuple[str, str], text: str) -> None:
        self.notes.setdefault(key, []).append(text)


def import_download(source: Path, course: Path, chapters: list[str] | None = None) -> Imported:
    """Copy the notebooks of an LMS download into `course`/submitted."""
    source = Path(source)
    if not source.exists():
        raise CourseError(f"{source} does not exist: pass the folder or .zip the LMS gave you")
    known = chapters or list_chapters(course)
    out = Imported()
    entries, out.lines = _entries(source)
    groups: dict[tuple[str, str], list[_Entry]] = {}
    for entry in entries:
        found = _identify(entry.relative, known)
        if found is None:
            why = f"its name holds no chapter id ({', '.join(known)})"
            out.lines.append(f"failed {entry.relative}: {why}")
            out.failed.append(Job(_student(_owner(entry.relative, None)), "", course / "submitted",
                                  problem=f"{entry.relative}: {why}; rename it after its chapter and import it again"))
            continue
        if entry.size > MAX_FILE_BYTES:
            why = f"larger than {MAX_FILE_BYTES >> 20} MiB"
            out.lines.append(f"failed {entry.relative}: {why}")
            out.failed.append(Job(*found, course / "submitted", problem=f"{entry.relative} is {why}, so it was not imported"))
            continue
        groups.setdefault(found, []).append(entry)
    for (student, chapter), group in groups.items():
        group.sort(key=lambda e: (_attempt(e.relative), e.mtime, str(e.relative)))
        latest, earlier = group[-1], group[:-1]
        folder = course / "submitted" / student / chapter
        _import_one(latest, folder, chapter, out, (student, chapter))
        for entry in earlier:
            kept = folder / EARLIER / entry.relative.name
            if not kept.exists():
                kept.parent.mkdir(parents=True, exist_ok=True)
                kept.write_bytes(entry.load())
            out.lines.append(f"kept {entry.relative} aside in submitted/{student}/{chapter}/{EARLIER}/: "
                             f"an earlier submission than {latest.relative.name}")
            out.note((student, chapter), f"an earlier submission ({entry.relative.name}) was kept in {EARLIER}/ "
                                         f"and not graded; the latest ({latest.relative.name}) was")
    return out


def _import_one(entry: _Entry, folder: Path, chapter: str, out: Imported, key: tuple[str, str]) -> None:
    target = folder / f"{chapter}.ipynb"
    where = f"submitted/{key[0]}/{chapter}"
    data = entry.load()
    if target.exists():
        if target.read_bytes() == data:
            out.lines.append(f"unchanged {entry.relative} (already in {where})")
        else:
            out.lines.append(f"kept {where}: it already holds a different notebook than {entry.relative}; "
                             "remove it first to import the download's")
            out.note(key, f"the download's {entry.relative.name} differs from the notebook already in {where}, "
                          "which was kept and graded; remove that folder to grade the download's")
        return
    folder.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    (folder / "timestamp.txt").write_text(entry.mtime.strftime("%Y-%m-%d %H:%M:%S.%f UTC"))
    if entry.time_note:
        out.note(key, entry.time_note)
    out.lines.append(f"imported {entry.relative} -> {where}")


def import_submissions(source: Path, course: Path, chapters: list[str] | None = None) -> list[str]:
    """Copy the notebooks of an LMS download into `course`/submitted; returns one line per file."""
    return import_download(source, course, chapters).lines


def discover(submitted: Path, known: list[str], chapters: list[str] | None,
             students: list[str] | None) -> list[Job]:
    """A job for every submission folder in `submitted`; `problem` says why one cannot be graded."""
    found = []
    for student_dir in sorted(p for p in submitted.iterdir() if p.is_dir() and not p.name.startswith(".")):
        if students and student_dir.name not in students:
            continue
        for folder in sorted(p for p in student_dir.iterdir() if p.is_dir() and not p.name.startswith(".")):
            chapter = folder.name
            if chapters and chapter not in chapters:
                continue
            notebook, problem = folder / f"{chapter}.ipynb", ""
            if chapter not in known:
                problem = f"{chapter!r} is not a chapter of this course"
            elif not notebook.is_file():
                others = sorted(p.name for p in folder.glob("*.ipynb"))
                problem = (f"no {notebook.name} in the submission"
                           + (f" (found {', '.join(others)}; rename it to {notebook.name})" if others else ""))
            found.append(Job(student_dir.name, chapter, notebook, problem=problem))
    return found


def read_timestamp(path: Path) -> tuple[datetime | None, str]:
    """A submission's time from nbgrader's timestamp.txt, and a note when it is missing or unreadable."""
    from nbgrader.utils import parse_utc

    if not path.exists():
        return None, "no timestamp.txt: submission time unknown, treated as on time"
    text = path.read_text(errors="replace").strip()[:200]
    try:
        stamp = parse_utc(text)
        return (stamp.replace(tzinfo=timezone.utc) if stamp.tzinfo is None else stamp), ""
    except Exception:  # nbgrader's parser raises several kinds for garbage
        return None, f"timestamp.txt is unreadable ({text[:40]!r}): submission time unknown, treated as on time"
