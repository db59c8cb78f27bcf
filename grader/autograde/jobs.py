"""The typed data that travels between the stages of a class run: jobs, job specs, kernel runs, rows.

Each is a frozen dataclass: a stage makes a new one (`dataclasses.replace`) rather than change what
an earlier stage handed it. What crosses a process boundary as JSON (a job spec to the grading
process, a kernel run back) is read by a strict `from_dict`, which refuses a key it does not know.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

from grader.autograde.sandbox import Limits


class Outcome(enum.StrEnum):
    """How a submission ended: every cell ran, the run stopped part way, or it could not be graded."""

    GRADED = "graded"
    INCOMPLETE = "incomplete"
    FAILED = "failed"


class Status(str):
    """A row's status: its `outcome` and, unless every cell ran, its `reason`. It reads as the words of
    grades.csv and the report ("graded", "incomplete: <why>", "failed: <why>"), so it can be written and
    compared as text; code asks `outcome` and `reason`, never the text."""

    outcome: Outcome
    reason: str

    def __new__(cls, outcome: Outcome | str, reason: str = "") -> Status:
        outcome = Outcome(outcome)
        if outcome is not Outcome.GRADED and not reason:
            reason = "unknown"
        self = super().__new__(cls, f"{outcome}: {reason}" if outcome is not Outcome.GRADED else str(outcome))
        object.__setattr__(self, "outcome", outcome)
        object.__setattr__(self, "reason", reason if outcome is not Outcome.GRADED else "")
        return self

    @classmethod
    def graded(cls) -> Status:
        return cls(Outcome.GRADED)

    @classmethod
    def incomplete(cls, reason: str) -> Status:
        return cls(Outcome.INCOMPLETE, reason)

    @classmethod
    def failed(cls, reason: str) -> Status:
        return cls(Outcome.FAILED, reason)

    @classmethod
    def from_text(cls, text: str) -> Status:
        """A status from its words, as grades.csv has them (for rows written by hand, such as a test's)."""
        kind, sep, reason = str(text).partition(": ")
        return cls(Outcome(kind.strip()), reason if sep else "")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a Status cannot be changed")

    def __reduce__(self):
        return Status, (self.outcome, self.reason)


@dataclass(frozen=True)
class Job:
    """One notebook to grade: a student's submission, or a chapter's reference solution.

    Made by intake (`problem` says why it cannot be graded at all, "" when it can); a later stage
    that knows more (a note from the download, the submission's time) makes a new one."""

    student: str
    chapter: str
    notebook: Path
    problem: str = ""
    notes: tuple[str, ...] = ()
    timestamp: datetime | None = None
    reference: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "notes", tuple(self.notes))

    @property
    def folder(self) -> Path:
        return self.notebook.parent

    @property
    def key(self) -> tuple[str, str]:
        return self.student, self.chapter


def _strict(cls, data: Any, what: str) -> dict:
    """`data` as keyword arguments of `cls`: a dict whose keys are all fields of `cls`, else ValueError
    naming what is wrong (a key it does not know is never dropped: it means the two sides differ)."""
    if not isinstance(data, dict):
        raise ValueError(f"{what} is a {type(data).__name__}, not a JSON object")
    names = {f.name for f in fields(cls)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise ValueError(f"{what} has keys the grader does not know: {', '.join(map(str, unknown))}")
    return dict(data)


#: The caches a kernel starts from, by their folder's name in the kernel's folder: C++ builds, and
#: the JAX compilations of the chapter's public cells (the reference run's, before its first answer
#: or test cell ran).
CACHES = (".build-cache", ".jax-cache")
#: Every compilation the reference run made, its answer and test cells' included. A submission's
#: kernel gets it only where it cannot list it (`worker.seal_folder`): it opens an entry by its name
#: (the jitted function's name and a hash of its program), so it loads only programs it made itself.
SEALED_JAX_CACHE = ".jax-cache-sealed"


@dataclass(frozen=True)
class JobSpec:
    """What one grading process reads (`worker.grade_spec`): the notebook, the chapter's solution (and
    the other chapters', to name a notebook handed in under the wrong chapter), where the executed
    notebook goes, the limits, and the caches folders its kernel starts from or, for the reference
    run, fills (`publish_caches`)."""

    student: str
    chapter: str
    notebook: Path
    source: Path
    executed: Path
    limits: Limits = Limits()
    sandboxed: bool = False
    other_sources: Mapping[str, Path] = field(default_factory=dict)
    seed_caches: Mapping[str, Path] = field(default_factory=dict)
    publish_caches: Mapping[str, Path] = field(default_factory=dict)

    def to_dict(self) -> dict:
        """The spec as JSON-able data (paths as text)."""
        return {"student": self.student, "chapter": self.chapter, "notebook": str(self.notebook),
                "source": str(self.source), "executed": str(self.executed), "limits": asdict(self.limits),
                "sandboxed": self.sandboxed,
                **{name: {k: str(v) for k, v in getattr(self, name).items()}
                   for name in ("other_sources", "seed_caches", "publish_caches")}}

    @classmethod
    def from_dict(cls, data: Any) -> JobSpec:
        """A spec from its JSON; ValueError naming the keys it does not know, or what is missing."""
        data = _strict(cls, data, "the job")
        missing = sorted({"student", "chapter", "notebook", "source", "executed"} - set(data))
        if missing:
            raise ValueError(f"the job lacks {', '.join(missing)}")
        data["limits"] = Limits(**_strict(Limits, data.get("limits", {}), "the job's limits"))
        for name in ("notebook", "source", "executed"):
            data[name] = Path(data[name])
        for name in ("other_sources", "seed_caches", "publish_caches"):
            data[name] = {k: Path(v) for k, v in (data.get(name) or {}).items()}
        return cls(**data)


@dataclass(frozen=True)
class KernelRun:
    """What one notebook's run in its sandboxed kernel gave: plain data, from the grading process."""

    status: Outcome = Outcome.GRADED  # GRADED (it ran, perhaps only in part) or FAILED (it could not run)
    reason: str = ""  # why the run stopped early or failed ("" when every cell ran)
    notes: tuple[str, ...] = ()
    records: Mapping[str, dict] = field(default_factory=dict)  # grade_id -> {"record": ..., "why": ...}
    missing: tuple[str, ...] = ()  # grade_ids of deleted test cells
    stopped_at: int | None = None
    stopped_cell: str | None = None
    timed_out: tuple[int, ...] = ()
    truncated: tuple[int, ...] = ()
    flagged: tuple[str, ...] = ()  # answer cells that reach into the grading machinery
    applied: Mapping[str, Any] = field(default_factory=dict)  # the limits really applied to the kernel
    seconds: float = 0.0
    trace: str = ""  # the grading process's traceback or last words, when the grader itself failed

    def __post_init__(self) -> None:
        status = Outcome(self.status)
        if status is Outcome.INCOMPLETE:  # a run that stopped part way is GRADED with a reason
            raise ValueError("a kernel run is graded (perhaps in part, with a reason) or failed")
        object.__setattr__(self, "status", status)
        for name in ("notes", "missing", "timed_out", "truncated", "flagged"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        if not isinstance(self.records, Mapping):
            raise ValueError(f"records is a {type(self.records).__name__}, not a mapping")

    def to_dict(self) -> dict:
        """The run as JSON-able data, as `from_dict` reads it."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["status"] = str(self.status)
        data["records"], data["applied"] = dict(self.records), dict(self.applied)
        return data

    @classmethod
    def from_dict(cls, data: Any) -> KernelRun:
        """A run from the grading process's JSON; ValueError saying what is wrong with it (a key it does
        not know, a status other than graded or failed), which the caller turns into a failed run."""
        return cls(**_strict(cls, data, "the grading process's result"))

    @classmethod
    def failed(cls, reason: str, trace: str = "") -> KernelRun:
        return cls(status=Outcome.FAILED, reason=reason, trace=trace)

    def with_notes(self, *notes: str, first: bool = False) -> KernelRun:
        """The same run with more notes (before its own with `first`)."""
        return replace(self, notes=(*notes, *self.notes) if first else (*self.notes, *notes))


class Scored(NamedTuple):
    """One test cell of a row: the points it got, the most it could get, its verdict ("" passed), and the
    check that failed first, named without the values it saw ("" passed; the class report groups by it)."""

    points: float
    max_points: float
    message: str
    check: str = ""


@dataclass(frozen=True)
class Row:
    """What happened to one submission: the line of grades.csv and of the report."""

    student: str
    chapter: str
    status: Status  # text such as "failed: broken JSON" is read into a Status once, here
    score: float | None  # the points the checks gave (before a late penalty)
    max_score: float
    timestamp: str = ""
    late_seconds: float | None = None
    penalty: float | None = None  # the points a late submission lost (nbgrader's late_submission_penalty)
    exercises: Mapping[str, Scored] = field(default_factory=dict)  # grade_id -> its points and verdict
    notes: tuple[str, ...] = ()
    flagged: tuple[str, ...] = ()  # answer cells to review by hand
    applied: Mapping[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    trace: str = ""  # the traceback, when the grader itself failed on this submission (for the report)

    def __post_init__(self) -> None:
        if not isinstance(self.status, Status):
            object.__setattr__(self, "status", Status.from_text(self.status))
        object.__setattr__(self, "exercises", {gid: Scored(*scored) for gid, scored in self.exercises.items()})
        object.__setattr__(self, "notes", tuple(self.notes))
        object.__setattr__(self, "flagged", tuple(self.flagged))

    @property
    def final_score(self) -> float | None:
        """The score after the late penalty: what counts (nbgrader export's `score`)."""
        return None if self.score is None else max(0.0, self.score - (self.penalty or 0.0))

    def with_notes(self, *notes: str) -> Row:
        """The same row with more notes at the end."""
        return replace(self, notes=(*self.notes, *notes))


@dataclass(frozen=True)
class Summary:
    """What a class run did: its rows, the sandbox it had, where its outputs are, how long it took."""

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
