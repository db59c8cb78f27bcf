"""What the course's nbgrader_config.py tells the grader: the kernels' limits (`c.GradingLimits`) and the
late-submission penalty (nbgrader's own `LateSubmissionPlugin`, or the plugin class it names)."""

from __future__ import annotations

import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from grader.autograde.sandbox import Limits
from grader.errors import CourseError

#: The section of nbgrader_config.py that sets the kernels' limits: `c.GradingLimits.cell_seconds = 60`.
LIMITS_SECTION = "GradingLimits"


def load(course: Path):
    """nbgrader's configuration as its own commands read it in `course`: each of Jupyter's config folders
    (a hub's /etc/jupyter among them, least important first), then the course's nbgrader_config.py, which
    wins. A file that cannot be read is a CourseError that names it."""
    from jupyter_core.paths import jupyter_config_path
    from traitlets.config.loader import Config, PyFileConfigLoader

    config = Config()
    for folder in [*reversed(jupyter_config_path()), str(Path(course).resolve())]:
        if not os.path.isfile(os.path.join(folder, "nbgrader_config.py")):
            continue
        try:
            config.merge(PyFileConfigLoader("nbgrader_config.py", path=folder).load_config())
        except Exception as err:  # the instructor's file: say which, and why, in one line
            raise CourseError(f"{os.path.join(folder, 'nbgrader_config.py')} could not be read "
                              f"({type(err).__name__}: {err})") from None
    return config


def limits(course: Path, config=None, **given: float | None) -> Limits:
    """The kernels' limits for a run in `course`: each one given here (the command line's, by field name
    and in the field's unit; None: not given), else `c.GradingLimits.<name>` in nbgrader_config.py, else
    `Limits`' default. CourseError for a name that is not a limit or a value that is not a positive number."""
    config = load(course) if config is None else config
    names = {f.name: f for f in fields(Limits)}
    section = dict(config.get(LIMITS_SECTION, {})) if LIMITS_SECTION in config else {}
    unknown = sorted(set(section) - set(names))
    if unknown:
        raise CourseError(f"nbgrader_config.py sets {', '.join(f'c.{LIMITS_SECTION}.{n}' for n in unknown)}, "
                          f"which {'is' if len(unknown) == 1 else 'are'} not a limit; the limits are: "
                          + ", ".join(names))
    chosen: dict[str, Any] = {}
    for name, f in names.items():
        if given.get(name) is not None:
            chosen[name] = _checked(name, f, given[name], f.metadata["flag"])
        elif name in section:
            chosen[name] = _checked(name, f, section[name], f"c.{LIMITS_SECTION}.{name} in nbgrader_config.py")
    extra = sorted(set(given) - set(names))
    if extra:
        raise TypeError(f"not limits: {', '.join(extra)}")
    return Limits(**chosen)


def _checked(name: str, f, value: Any, where: str) -> Any:
    """`value` as the limit's type, if it is a positive number; else CourseError naming `where` it was set."""
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not number or value <= 0 or (f.type in (int, "int") and float(value) != int(value)):
        kind = "a positive whole number" if f.type in (int, "int") else "a positive number"
        raise CourseError(f"{where} must be {kind} ({_unit(f)}), not {value!r}")
    return int(value) if f.type in (int, "int") else float(value)


def _unit(f) -> str:
    """The unit of a limit's field, in words."""
    return ("seconds" if f.name.endswith("_seconds") else "bytes" if "bytes" in f.name
            else "cores" if f.name == "cpu_cores" else "a count")


#: The sections of nbgrader's configuration that decide a late submission's penalty.
LATE_SECTIONS = ("LateSubmissionPlugin", "AssignLatePenalties")


@dataclass(frozen=True)
class LatePenalty:
    """A late submission's penalty as nbgrader autograde gives it: the plugin the course configures
    (`c.AssignLatePenalties.plugin_class`, by default nbgrader's LateSubmissionPlugin with its
    `penalty_method`) asked for each late submission, its answer kept between 0 and the score."""

    plugin: Any = None  # None: nbgrader's default, no penalty
    name: str = "no penalty is applied; nbgrader's default"

    @property
    def applies(self) -> bool:
        return self.plugin is not None

    def penalty(self, student: str, score: float, seconds_late: float) -> float | None:
        """The points a submission `seconds_late` late loses (None: the plugin gives no penalty)."""
        if self.plugin is None or seconds_late <= 0:
            return None
        given = self.plugin.late_submission_penalty(student, score, seconds_late)
        return None if given is None else min(max(float(given), 0.0), score)


def late_penalty(config) -> LatePenalty:
    """The course's late-submission penalty, from nbgrader's configuration (`load`). A plugin that cannot be
    made (a class that does not import, a penalty_method nbgrader does not know) is a CourseError, so that
    a run never grades with a penalty other than the one configured."""
    if not any(section in config for section in LATE_SECTIONS):
        return LatePenalty()
    from nbgrader.plugins import LateSubmissionPlugin
    from nbgrader.preprocessors import AssignLatePenalties

    try:
        assigner = AssignLatePenalties(config=config)
        assigner.init_plugin()
    except Exception as err:
        raise CourseError("the late-submission penalty in nbgrader_config.py cannot be applied "
                          f"({type(err).__name__}: {' '.join(str(err).split())})") from None
    plugin = assigner.plugin_inst
    if type(plugin) is LateSubmissionPlugin:
        if plugin.penalty_method == "none":
            return LatePenalty()
        return LatePenalty(plugin, f"LateSubmissionPlugin.penalty_method = {plugin.penalty_method!r}")
    return LatePenalty(plugin, f"{type(plugin).__module__}.{type(plugin).__qualname__}")
