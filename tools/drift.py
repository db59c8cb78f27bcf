"""`make drift JAX=<version>`: run every solution notebook on another JAX and report what changed.

Builds `.drift/venv-<version>` (the course's Python, that jax/jaxlib, every other pin from
requirements.txt), runs the solution notebooks there with nbval exactly as `make test` does
(same options, same sanitizer), and writes `drift/REPORT-<version>.md`: each cell that raised or
whose output differs, and the chapters' version notes that name a change between the two versions
but showed no difference. For the pinned version itself the course's own .venv is used.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / "tools"
PIN = re.compile(r"^(jax|jaxlib)==(\S+)\s*$", re.M)
CHAPTER_ID = re.compile(r"\d\d_[a-z0-9_]+")
#: A JAX version named as the time of a change: "since 0.4.26", "in 0.12", "JAX 0.7".
VERSION_MENTION = re.compile(r"\b(?:JAX|since|in|until|before|after|from)\s+(0\.\d+(?:\.\d+){0,2})\b")
SECTION_MENTION = re.compile(r"\bsections?\s+(\d+(?:\s*(?:,|–|-|and)\s*\d+)*)")
#: The setup cell's pin check fails on any other version; it is counted apart from the claims.
PIN_FAILURE = re.compile(r"This course is written for JAX|AssertionError: \d+\.\d+")


class DriftError(Exception):
    """Something stopped the drift run; the message says what and what to do."""


def pinned_version() -> str:
    found = dict(PIN.findall((ROOT / "requirements.txt").read_text()))
    if "jax" not in found:
        raise DriftError("requirements.txt has no `jax==` pin")
    return found["jax"]


def version_key(text: str) -> tuple[int, ...]:
    parts = [int(p) for p in text.split(".")]
    return tuple(parts + [0] * (4 - len(parts)))


def chapters(selected: list[str]) -> list[str]:
    known = sorted(p.name for p in (ROOT / "solutions").iterdir()
                   if CHAPTER_ID.fullmatch(p.name) and (p / f"{p.name}.ipynb").exists())
    unknown = sorted(set(selected) - set(known))
    if unknown:
        raise DriftError(f"unknown chapter(s): {', '.join(unknown)}; the chapters are: {', '.join(known)}")
    return selected or known


# --- the environment --------------------------------------------------------------------------

def build_venv(version: str) -> Path:
    """.drift/venv-<version> with that jax/jaxlib and the other pins; rebuilt when the pins change."""
    venv = ROOT / ".drift" / f"venv-{version}"
    pins = PIN.sub("", (ROOT / "requirements.txt").read_text())
    wanted = f"{pins}\n# the version under test\njax=={version}\njaxlib=={version}\n"
    stamp = hashlib.sha256(wanted.encode()).hexdigest()
    marker = venv / ".drift-installed"
    if marker.exists() and marker.read_text() == stamp:
        return venv
    base = getattr(sys, "_base_executable", sys.executable)
    print(f"drift: building {venv.relative_to(ROOT)} with jax=={version} (a few minutes the first time)",
          file=sys.stderr)
    if not (venv / "bin" / "python").exists():
        run([base, "-m", "venv", str(venv)], "could not create the drift venv")
    (venv / "requirements.txt").write_text(wanted)
    run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "-r", str(venv / "requirements.txt")],
        f"pip could not install jax=={version} and jaxlib=={version} with the course's other pins "
        f"(is {version} a JAX release for this Python and platform?)")
    # The kernels import the course's `grader` package from this checkout, as in .venv.
    purelib = subprocess.run([str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "jax_beyond_jnp_course.pth").write_text(str(ROOT) + "\n")
    marker.write_text(stamp)
    return venv


def install_packages(venv: Path) -> list[str]:
    """The course's own packages (packages/*, C++ built against this venv's JAX), as `make` installs
    them into .venv; rebuilt when their sources change. Returns a line per package that did not build."""
    problems = []
    for package in sorted((ROOT / "packages").glob("*/pyproject.toml")):
        folder = package.parent
        h = hashlib.sha256()
        for path in sorted([*folder.rglob("*"), *(ROOT / "cpp").rglob("*")]):
            if path.is_file() and "build" not in path.relative_to(ROOT).parts:
                h.update(str(path.relative_to(ROOT)).encode() + path.read_bytes())
        marker = venv / f".drift-package-{folder.name}"
        if marker.exists() and marker.read_text() == h.hexdigest():
            continue
        marker.unlink(missing_ok=True)
        print(f"drift: building {folder.relative_to(ROOT)} into {venv.relative_to(ROOT)}", file=sys.stderr)
        try:
            run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                 "--no-deps", "--no-build-isolation", "--force-reinstall", str(folder)],
                f"{folder.relative_to(ROOT)} did not build")
            marker.write_text(h.hexdigest())
        except DriftError as err:
            problems.append(str(err))
    return problems


def run(cmd: list[str], what: str) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        lines = [line.strip() for line in (proc.stderr or proc.stdout).splitlines() if line.strip()]
        errors = [re.sub(r"\s*\(from versions:.*?\)", "", line)[:300] for line in lines
                  if line.startswith("ERROR:") and not line.startswith("ERROR: Ignored")]
        tail = errors[-2:] or [line[:300] for line in lines if not line.startswith("WARNING: Location")][-2:]
        raise DriftError(f"{what}: {' | '.join(tail)}")


def installed(python: Path) -> dict[str, str]:
    code = ("import json, platform, jax, jaxlib, numpy; print(json.dumps({'jax': jax.__version__, "
            "'jaxlib': jaxlib.__version__, 'numpy': numpy.__version__, 'python': platform.python_version()}))")
    proc = subprocess.run([str(python), "-c", code], capture_output=True, text=True)
    if proc.returncode != 0:
        raise DriftError(f"{python} cannot import jax: {proc.stderr.strip().splitlines()[-1:]}")
    return json.loads(proc.stdout)


def run_notebooks(python: Path, names: list[str], record: Path) -> int:
    """nbval over the chapters' solution notebooks in `python`'s environment; returns pytest's status."""
    record.unlink(missing_ok=True)
    env = dict(os.environ, DRIFT_RECORD=str(record),
               PYTHONPATH=os.pathsep.join([str(TOOLS), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
               PATH=os.pathsep.join([str(python.parent), os.environ.get("PATH", "")]))
    # pyproject.toml's addopts give nbval the options `make test` uses (--nbval, the sanitizer,
    # the cell timeout); --nbval-current-env runs the kernels in this environment's Python.
    cmd = [str(python), "-m", "pytest", "-p", "drift_record", "-p", "no:cacheprovider", "--nbval-current-env",
           "-q", "--no-header", "--tb=no", *[f"solutions/{c}/{c}.ipynb" for c in names]]
    return subprocess.run(cmd, cwd=ROOT, env=env).returncode


# --- the notebooks' structure -----------------------------------------------------------------

@dataclass
class Note:
    text: str
    sections: list[int]
    versions: list[str]


@dataclass
class Chapter:
    name: str
    code_cells: int = 0
    section_of: dict[int, str] = field(default_factory=dict)   # cell index -> section
    cells_of: dict[str, list[int]] = field(default_factory=dict)
    notes: list[Note] = field(default_factory=list)
    note_cells: list[int] = field(default_factory=list)      # code cells of the Version notes section


def numbers(text: str) -> list[int]:
    found: list[int] = []
    for a, b in re.findall(r"(\d+)\s*(?:–|-)\s*(\d+)", text):
        found += range(int(a), int(b) + 1)
    found += [int(n) for n in re.findall(r"\d+", re.sub(r"\d+\s*(?:–|-)\s*\d+", "", text))]
    return sorted(set(found))


def read_chapter(name: str, root: Path = ROOT) -> Chapter:
    nb = json.loads((root / "solutions" / name / f"{name}.ipynb").read_text(encoding="utf-8"))
    chapter = Chapter(name)
    section = "before section 1"
    notes_text: list[str] = []
    in_notes = False
    for index, cell in enumerate(nb["cells"]):
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            for line in source.splitlines():
                heading = re.match(r"##\s+(?:(\d+)\.|(\S.*))", line)
                if line.startswith("## ") and heading:
                    section = heading.group(1) or heading.group(2).strip()
                    in_notes = section.startswith("Version notes")
                elif in_notes:
                    notes_text.append(line)
            continue
        chapter.code_cells += 1
        chapter.section_of[index] = section
        chapter.cells_of.setdefault(section, []).append(index)
        if in_notes:
            chapter.note_cells.append(index)
    chapter.notes = split_notes(notes_text)
    return chapter


def split_notes(lines: list[str]) -> list[Note]:
    """Table rows, bullets and paragraphs of a Version notes section, each one note."""
    blocks: list[str] = []
    header: list[str] = []
    current: list[str] = []

    def close():
        if current:
            blocks.append(" ".join(s.strip() for s in current))
            current.clear()

    for i, line in enumerate(lines):
        if line.startswith("|"):
            close()
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            following = lines[i + 1] if i + 1 < len(lines) else ""
            if re.match(r"\|\s*-{3}", following):
                header = [c.lower() for c in cells]
            elif not re.match(r"\|\s*-{3}", line):
                row = dict(zip(header, cells))
                text = " | ".join(cells)
                if "section" in row:
                    text += f" (section {row['section']})"
                blocks.append(text)
        elif line.startswith("- "):
            close()
            current.append(line[2:])
        elif not line.strip():
            close()
        else:
            current.append(line)
    close()
    notes = []
    for text in blocks:
        sections = sorted({n for m in SECTION_MENTION.findall(text) for n in numbers(m)})
        notes.append(Note(text, sections, VERSION_MENTION.findall(text)))
    return notes


# --- the report -------------------------------------------------------------------------------

def report(version: str, pin: str, env: dict[str, str], names: list[str], records: list[dict],
           status: int, root: Path = ROOT, problems: list[str] = ()) -> tuple[str, int]:
    """The report's text and its count of differences (the pin not counted); `problems` are the
    course packages that did not build with this JAX."""
    low, high = sorted([version, pin], key=version_key)
    by_chapter: dict[str, list[dict]] = {}
    for r in records:
        by_chapter.setdefault(r["chapter"], []).append(r)
    lines = [
        f"# Drift report: JAX {version} against the pinned {pin}",
        "",
        f"Every solution notebook was run with jax {env['jax']} and jaxlib {env['jaxlib']} (numpy {env['numpy']}, "
        f"Python {env['python']}; every other package at its pin in requirements.txt) by `make drift JAX={version}`, "
        "with nbval as `make test` runs it: each code cell in one kernel per chapter, in order, its outputs "
        "compared with the stored ones after `tests/nbval_sanitize.cfg`; a cell tagged `nbval-ignore-output` "
        "counts only when it raises. A cell is listed when it raised (the first line of the error is given: "
        "an `AssertionError` is a claim the chapter asserts that no longer holds) or when its output differs "
        "(a diff of the sanitized text, stored `-`, this JAX `+`). A cell that raised because an earlier cell "
        "failed is listed too: read each chapter from its first entry.",
        "",
        "The setup cell of each chapter checks the pinned version, so on another version it fails by design; "
        "it is listed as *the pin* and counted apart.",
        "",
        "**Version notes.** A note is one row, bullet or paragraph of a chapter's *Version notes*. A note names "
        f"a change between the two versions when it dates something to a JAX version v (\"since 0.7\", "
        f"\"in 0.12\", \"added in 0.4.32\") with {low} < v ≤ {high}, a short version meaning its first release "
        f"(\"0.12\" is 0.12.0); the pinned version itself ({pin}) describes the state the notes pin, not a change, "
        "and does not count. Such a note must show up as a difference in one of its cells: the code cells of the "
        "sections it names (\"section 3\", the table's *section* column) and the version notes' own probe cells, "
        "or, when it names no section, any cell of its chapter other than the pin. The notes that did not are "
        "listed at the end: each is either wrong about when the change happened or not tested by its cells.",
        "",
    ]
    if status not in (0, 1):
        lines += [f"**pytest stopped with status {status}: the run is incomplete.**", ""]
    for problem in problems:
        lines += [f"**The course's package did not build with this JAX** (the chapters that import it "
                  f"fail for that reason): {problem}", ""]

    table = ["| chapter | code cells | raised | output differs | pin | notes naming a change | not shown |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    body: list[str] = []
    unshown: list[str] = []
    total = {"raised": 0, "output": 0, "pin": 0, "named": 0, "unshown": 0, "cells": 0}
    for name in names:
        chapter = read_chapter(name, root)
        recs = sorted(by_chapter.get(name, []), key=lambda r: r["index"])
        failed = [r for r in recs if r["outcome"] == "failed"]
        pin_fails = [r for r in failed if r.get("kind") == "error" and PIN_FAILURE.search(r.get("error", ""))
                     and "setup_notebook" in r["source"]]
        claims = [r for r in failed if r not in pin_fails]
        raised = sum(1 for r in claims if r["kind"] in ("error", "run"))
        differs = sum(1 for r in claims if r["kind"] == "output")
        changed = {r["index"] for r in claims}
        named, missing = [], []
        for note in chapter.notes:
            if not any(names_change(v, low, high, pin) for v in note.versions):
                continue
            named.append(note)
            tied = set(chapter.note_cells)
            for s in note.sections:
                tied |= set(chapter.cells_of.get(str(s), []))
            if not note.sections:
                tied = set(chapter.section_of)
            shown = sorted(tied & changed)
            if not shown:
                missing.append(note)
                unshown.append(f"- **{name}**: {note.text}")
        table.append(f"| {name} | {chapter.code_cells} | {raised} | {differs} | {len(pin_fails)} | {len(named)} | {len(missing)} |")
        for key, n in (("raised", raised), ("output", differs), ("pin", len(pin_fails)), ("named", len(named)),
                       ("unshown", len(missing)), ("cells", chapter.code_cells)):
            total[key] += n
        ran = len(recs)
        body += [f"## {name}", ""]
        if ran < chapter.code_cells:
            body += [f"Only {ran} of {chapter.code_cells} code cells were run: the run stopped.", ""]
        if not failed:
            body += ["No differences.", ""]
        for r in [*pin_fails, *claims]:
            section = chapter.section_of.get(r["index"], "?")
            where = f"section {section}" if str(section).isdigit() else str(section)
            source = [line.strip() for line in r["source"].splitlines() if line.strip()]
            if r in pin_fails:   # show the line that checks the version, not the first import
                source = [line for line in source if "setup_notebook" in line] or source
            first = (source or [""])[0][:100]
            what = ("the pin" if r in pin_fails else
                    {"error": "raised", "output": "output differs", "run": "did not run"}[r["kind"]])
            body.append(f"- cell {r['index']} ({where}), {what}: `{first.replace('`', chr(39))}`")
            if r.get("error"):
                body.append(f"  - `{r['error'].replace('`', chr(39))}`")
            if r.get("diff") and r in claims:
                body += ["", "  ```diff", *[f"  {d}" for d in r["diff"]], "  ```", ""]
        if named:
            body += ["", "Version notes naming a change between the two versions:", ""]
            for note in named:
                body.append(f"- {'NOT SHOWN' if note in missing else 'shown'}: {note.text}")
        body.append("")
    diffs = total["raised"] + total["output"]
    lines += [
        "## Summary",
        "",
        f"**{diffs} difference{'' if diffs == 1 else 's'}** ({total['raised']} cells raised, "
        f"{total['output']} outputs differ) in "
        f"{total['cells']} code cells of {len(names)} chapters, plus the pin in {total['pin']} chapters. "
        f"Version notes naming a change between {low} and {high}: {total['named']}, of which "
        f"{total['unshown']} did not show up as a difference.",
        "",
        *table,
        "",
        *body,
        "## Version notes that did not show up as a difference",
        "",
        *(unshown or ["None."]),
        "",
    ]
    return "\n".join(lines), diffs


def names_change(mention: str, low: str, high: str, pin: str) -> bool:
    """Does a note's version `mention` date a change between `low` and `high` (the pin itself does not)?"""
    if version_key(mention) == version_key(pin):
        return False
    return version_key(low) < version_key(mention) <= version_key(high)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="make drift", description=__doc__.splitlines()[0])
    p.add_argument("--jax", required=True, metavar="VERSION", help="the jax/jaxlib release to run the notebooks on")
    p.add_argument("chapters", nargs="*", metavar="CHAPTER", help="chapter ids (default: every chapter)")
    p.add_argument("--out", type=Path, help="where to write the report (default: drift/REPORT-<version>.md)")
    args = p.parse_args(argv)
    try:
        if not re.fullmatch(r"\d+(\.\d+){1,3}", args.jax):
            raise DriftError(f"{args.jax!r} is not a version number; say for example `make drift JAX=0.11.2`")
        pin = pinned_version()
        names = chapters(args.chapters)
        problems: list[str] = []
        if args.jax == pin:
            python = ROOT / ".venv" / "bin" / "python"   # the course's own environment is the pinned one
            if not python.exists():
                raise DriftError("the course's .venv is missing; run `make venv` first")
        else:
            venv = build_venv(args.jax)
            problems = install_packages(venv)
            python = venv / "bin" / "python"
        env = installed(python)
        if env["jax"] != args.jax or env["jaxlib"] != args.jax:
            raise DriftError(f"{python} has jax {env['jax']} / jaxlib {env['jaxlib']}, not {args.jax}; "
                             f"delete {python.parent.parent} and run again")
        out = args.out or ROOT / "drift" / f"REPORT-{args.jax}.md"
        record = (ROOT / ".drift" / f"cells-{args.jax}.jsonl") if not args.out else out.with_suffix(".jsonl")
        record.parent.mkdir(parents=True, exist_ok=True)
        status = run_notebooks(python, names, record)
        if status not in (0, 1):
            raise DriftError(f"pytest could not run the notebooks (status {status}); see its output above")
        records = [json.loads(line) for line in record.read_text().splitlines()] if record.exists() else []
        text, diffs = report(args.jax, pin, env, names, records, status, problems=problems)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
        summary = next(line for line in text.splitlines() if re.match(r"\*\*\d+ differences?\*\* \(", line))
        print(f"drift: {summary.replace('**', '')}\ndrift: report written to {out}")
        return 0
    except DriftError as err:
        print(f"make drift: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
