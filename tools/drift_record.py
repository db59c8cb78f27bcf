"""pytest plugin for `make drift`: writes what nbval saw in each notebook cell, one JSON line per cell.

Loaded with `-p drift_record` beside nbval. It changes nothing nbval does: nbval runs each cell,
compares its outputs with the stored ones after the sanitizer (tests/nbval_sanitize.cfg), and
passes or fails it; this plugin only records the verdict, the error and a short diff of the
sanitized outputs, to the file named by $DRIFT_RECORD.
"""

from __future__ import annotations

import difflib
import json
import os

import pytest

#: Lines of diff kept per cell in the report.
DIFF_LINES = 14


def _text(item, outputs) -> list[str]:
    """The outputs as nbval compares them (sanitized text, images and metadata left out), as lines."""
    lines = []
    for out in outputs or []:
        kind = out.get("output_type")
        if kind == "stream":
            lines += [f"[{out.get('name')}] {line}" for line in item.sanitize(out.get("text", "")).splitlines()]
        elif kind in ("display_data", "execute_result"):
            data = out.get("data", {})
            text = data.get("text/plain", "")
            if isinstance(text, list):
                text = "".join(text)
            lines += item.sanitize(text).splitlines()
        elif kind == "error":
            lines.append(item.sanitize(f"{out.get('ename')}: {out.get('evalue')}"))
    return lines


def _first_line(text: str) -> str:
    for line in str(text).splitlines():
        if line.strip():
            return line.strip()[:300]
    return ""


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    cell = getattr(item, "cell", None)
    path = os.environ.get("DRIFT_RECORD")
    if cell is None or not path or report.when not in ("setup", "call"):
        return
    if report.when == "setup" and report.passed:
        return
    nb = item.parent.nb
    index = next(i for i, c in enumerate(nb.cells) if c is cell)
    got = getattr(item, "test_outputs", None) or []
    error = next((o for o in got if o.get("output_type") == "error"), None)
    record = {
        "chapter": os.path.splitext(os.path.basename(str(item.fspath)))[0],
        "index": index,
        "outcome": report.outcome,
        "compared": bool(item.options.get("check")),
        "source": cell.source,
    }
    if report.failed:
        if error is not None:
            record["kind"] = "error"
            record["error"] = item.sanitize(f"{error.get('ename')}: {_first_line(error.get('evalue', ''))}")
        elif "Cell outputs differ" in report.longreprtext:
            record["kind"] = "output"
        else:
            # Timeouts, a kernel that died, a kernel that never started.
            record["kind"] = "run"
            message = [line for line in report.longreprtext.splitlines()
                       if line.strip() and "Notebook cell execution failed" not in line]
            record["error"] = item.sanitize(_first_line("\n".join(message)))
        want = _text(item, cell.get("outputs", []))
        have = _text(item, got)
        diff = list(difflib.unified_diff(want, have, "stored", "this JAX", n=1, lineterm=""))
        record["diff"] = diff[:DIFF_LINES] + ([f"... {len(diff) - DIFF_LINES} more diff lines"]
                                              if len(diff) > DIFF_LINES else [])
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(record) + "\n")
