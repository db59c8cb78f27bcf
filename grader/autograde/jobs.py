"""The typed data that travels between the stages of a class run: jobs, kernel runs, rows."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime
from pathlib import Path
from typing import Any


@dataclass
class Job:
    """One notebook to grade: a student's submission, or a chapter's reference solution.

    Made by intake (`problem` says why it cannot be graded at all, "" when it can); each later
    stage reads it and adds to `notes`, which end in the row."""

    student: str
    chapter: str
    notebook: Path
    problem: str = ""
    notes: list[str] = field(default_factory=list)
    timestamp: datetime | None = None
    reference: bool = False

    @property
    def folder(self) -> Path:
        return self.notebook.parent

    @property
    def key(self) -> tuple[str, str]:
        return self.student, self.chapter


@dataclass
class KernelRun:
    """What one notebook's run in its sandboxed kernel gave: plain data, from the worker process."""

    status: str = "graded"  # "graded" (it ran, perhaps only in part) or "failed" (it could not run)
    reason: str = ""  # why the run stopped early or failed ("" when every cell ran)
    notes: list[str] = field(default_factory=list)
    records: dict[str, dict] = field(default_factory=dict)  # grade_id -> {"record": ..., "why": ...}
    missing: list[str] = field(default_factory=list)  # grade_ids of deleted test cells
    stopped_at: int | None = None
    stopped_cell: str | None = None
    timed_out: list[int] = field(default_factory=list)
    truncated: list[int] = field(default_factory=list)
    flagged: list[str] = field(default_factory=list)  # answer cells that reach into the grading machinery
    applied: dict[str, Any] = field(default_factory=dict)  # the limits really applied to the kernel
    seconds: float = 0.0
    trace: str = ""  # the grading process's traceback or last words, when the grader itself failed

    @classmethod
    def from_dict(cls, data: Any) -> "KernelRun":
        """From the worker's JSON; anything malformed becomes a failed run that says so."""
        if not isinstance(data, dict):
            return cls(status="failed", reason="the grading process returned no usable result")
        names = {f.name for f in fields(cls)}
        run = cls(**{k: v for k, v in data.items() if k in names})
        if run.status not in ("graded", "failed") or not isinstance(run.records, dict):
            return cls(status="failed", reason="the grading process returned a malformed result")
        return run

    @classmethod
    def failed(cls, reason: str) -> "KernelRun":
        return cls(status="failed", reason=reason)


@dataclass
class Row:
    """What happened to one submission: the line of grades.csv and of the report."""

    student: str
    chapter: str
    status: str  # "graded", "incomplete: <why>" or "failed: <why>"
    score: float | None
    max_score: float
    timestamp: str = ""
    late_seconds: float | None = None
    penalty: float | None = None  # the points a late submission lost (nbgrader's late_submission_penalty)
    exercises: dict[str, tuple[float, float, str]] = field(default_factory=dict)  # gid -> (points, max, message)
    notes: list[str] = field(default_factory=list)
    flagged: list[str] = field(default_factory=list)  # answer cells to review by hand
    applied: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    trace: str = ""  # the traceback, when the grader itself failed on this submission (for the report)

    @property
    def final_score(self) -> float | None:
        """The score after the late penalty: what counts (nbgrader export's `score`)."""
        return None if self.score is None else max(0.0, self.score - (self.penalty or 0.0))


@dataclass
class Summary:
    rows: list[Row]
    sandboxed: bool
    sandbox_reason: str
    cgroups: str | None
    report: Path
    grades_csv: Path
    seconds: float
    intake: list[str] = field(default_factory=list)  # one line per file of an LMS download
    problems: list[str] = field(default_factory=list)  # outputs that could not be written
    stages: dict[str, float] = field(default_factory=dict)  # seconds each stage took, in order
