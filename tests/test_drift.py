"""`make drift`: other JAX versions' differences found by nbval, reported per cell, tied to version notes."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from conftest import ROOT

spec = importlib.util.spec_from_file_location("drift", ROOT / "tools" / "drift.py")
drift = importlib.util.module_from_spec(spec)
sys.modules["drift"] = drift
spec.loader.exec_module(drift)

PIN = drift.pinned_version()
ENV = {"jax": "0.11.2", "jaxlib": "0.11.2", "numpy": "2.5.5", "python": "3.13.0"}


def code(source: str, output: str | None = None, **metadata) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source, metadata=metadata, execution_count=1)
    if output is not None:
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=output)]
    return cell


@pytest.mark.slow
def test_make_drift_on_the_pinned_jax_finds_no_difference(tmp_path):
    """Does `make drift` on the pinned JAX run every cell of chapter 00 through nbval and report 0 differences?"""
    out = tmp_path / "REPORT.md"
    chapter = "00_start_here"
    proc = subprocess.run(["make", "--no-print-directory", "drift", f"JAX={PIN}", f"DRIFT_ARGS={chapter} --out {out}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    text = out.read_text()
    assert "**0 differences** (0 cells raised, 0 outputs differ)" in text, text[:3000]
    assert f"| {chapter} |" in text and "plus the pin in 0 chapters" in text
    records = [json.loads(line) for line in out.with_suffix(".jsonl").read_text().splitlines()]
    code_cells = [c for c in nbformat.read(ROOT / "solutions" / chapter / f"{chapter}.ipynb", as_version=4).cells
                  if c.cell_type == "code"]
    assert len(records) == len(code_cells) and all(r["outcome"] == "passed" for r in records), records


def test_make_drift_needs_a_version():
    """Does `make drift` without JAX= say how to call it?"""
    proc = subprocess.run(["make", "--no-print-directory", "drift", "JAX="], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode != 0 and "make drift JAX=0.11.2" in proc.stderr


@pytest.mark.slow
def test_recorder_reports_what_nbval_fails_and_nothing_it_sanitizes(tmp_path):
    """Run by nbval, does the recorder list a changed output and a failed assert, with a diff, and pass a sanitized address?"""
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                           "language": "python"}})
    nb.cells = [code('print("buffer at 0x7fffbbbb0000")', "buffer at 0x7fffaaaa0000\n"),
                code('print(6 * 7)', "41\n"),
                code('assert [1, 2] == [2, 1], "order kept"'),
                code('print("varies")', "anything\n", tags=["nbval-ignore-output"])]
    path = tmp_path / "case.ipynb"
    nbformat.write(nb, path)
    record = tmp_path / "cells.jsonl"
    env = dict(os.environ, DRIFT_RECORD=str(record), PYTHONPATH=str(ROOT / "tools"))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "drift_record", "-p", "no:cacheprovider", "-q",
                           "--nbval", f"--nbval-sanitize-with={ROOT / 'tests' / 'nbval_sanitize.cfg'}",
                           "--nbval-current-env", "--rootdir", str(tmp_path), str(path)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stdout[-2000:]
    cells = {r["index"]: r for r in map(json.loads, record.read_text().splitlines())}
    assert [cells[i]["outcome"] for i in range(4)] == ["passed", "failed", "failed", "passed"]
    assert cells[1]["kind"] == "output" and "-[stdout] 41" in cells[1]["diff"] and "+[stdout] 42" in cells[1]["diff"]
    assert cells[2]["kind"] == "error" and cells[2]["error"] == "AssertionError: order kept"


def chapter_with_notes(root: Path) -> str:
    """A chapter whose version notes date changes in several ways, and name sections in several ways."""
    name = "99_notes"
    nb = nbformat.v4.new_notebook()
    md = nbformat.v4.new_markdown_cell
    nb.cells = [md("# A chapter"), code("import jax"),
                md("## 1. One"), code("one = 1"),
                md("## 2. Two"), code("two = 2"), code("two_again = 2"),
                md("## Version notes: JAX 0.12.0.1\n\n| what | in 0.12.0.1 | section |\n| --- | --- | --- |\n"
                   "| `f` | new in 0.12 | 1 |\n| `g` | removed (deprecated since 0.4.26) | 2 |\n"
                   "| `h` | `0.5 == np.float32(0.5)` as in 0.12.0.1 | 2 |\n\n"
                   "- `k` changed in JAX 0.12.0 (section 2)\n\n"
                   "A paragraph: since 0.11.3 `m` is gone.\n\n## Summary\n\n- nothing"),
                code("probe = True")]
    (root / "solutions" / name).mkdir(parents=True)
    nbformat.write(nb, root / "solutions" / name / f"{name}.ipynb")
    return name


def test_version_notes_that_name_a_change_must_show_a_difference(tmp_path):
    """Is a note dated between the two versions tied to its sections' cells, and listed when none of them differs?"""
    name = chapter_with_notes(tmp_path)
    chapter = drift.read_chapter(name, tmp_path)
    assert [n.sections for n in chapter.notes] == [[1], [2], [2], [2], []]
    assert [n.versions for n in chapter.notes] == [["0.12"], ["0.4.26"], ["0.12.0.1"], ["0.12.0"], ["0.11.3"]]

    passed = [{"chapter": name, "index": i, "outcome": "passed", "source": "x"} for i in (1, 3, 5, 6, 8)]
    text, diffs = drift.report("0.11.2", PIN, ENV, [name], passed, 1, root=tmp_path)
    assert diffs == 0
    unshown = text.split("## Version notes that did not show up as a difference")[1]
    # 0.12, 0.12.0 and 0.11.3 lie in (0.11.2, 0.12.0.1]; 0.4.26 does not, and the pin is no change.
    assert unshown.count(f"**{name}**") == 3 and "new in 0.12" in unshown and "since 0.11.3" in unshown
    assert "deprecated since 0.4.26" not in unshown and "np.float32" not in unshown

    # A difference in section 2 shows the section-2 note; the paragraph that names no section is
    # shown by any cell but the pin; section 1's note stays unshown.
    failed = [dict(r, outcome="failed", kind="output", diff=["-a", "+b"]) if r["index"] == 6 else r for r in passed]
    text, diffs = drift.report("0.11.2", PIN, ENV, [name], failed, 1, root=tmp_path)
    unshown = text.split("## Version notes that did not show up as a difference")[1]
    assert diffs == 1 and unshown.count(f"**{name}**") == 1 and "new in 0.12" in unshown
    assert text.startswith("# Drift report: JAX 0.11.2 against the pinned") and "**Version notes.**" in text
    assert "cell 6 (section 2), output differs" in text and "  +b" in text

    # Against 0.12.0 only the pin's own patch release is in range: no note names a change.
    text, _ = drift.report("0.12.0", PIN, dict(ENV, jax="0.12.0", jaxlib="0.12.0"), [name], passed, 1, root=tmp_path)
    assert "Version notes naming a change between 0.12.0 and 0.12.0.1: 0" in text


def test_the_pin_failing_is_counted_apart():
    """Is the setup cell's version check, which fails on any other JAX, kept out of the differences?"""
    chapter = "00_start_here"
    setup = next(i for i, c in enumerate(nbformat.read(ROOT / "solutions" / chapter / f"{chapter}.ipynb",
                                                       as_version=4).cells)
                 if c.cell_type == "code" and "setup_notebook()" in c.source)
    records = [{"chapter": chapter, "index": setup, "outcome": "failed", "kind": "error", "source": "grader.setup_notebook()",
                "error": "CourseError: This course is written for JAX 0.12.0.1, but this kernel has JAX 0.11.2.",
                "diff": []}]
    text, diffs = drift.report("0.11.2", PIN, ENV, [chapter], records, 1)
    assert diffs == 0 and "plus the pin in 1 chapters" in text and "the pin:" in text
