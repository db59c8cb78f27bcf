"""The course's exception base: shown in a notebook as a short message, not a traceback."""

from __future__ import annotations


class CourseError(Exception):
    """An error whose message is the whole story.

    IPython calls `_render_traceback_` when it exists and prints the lines it returns in place
    of the traceback, so a learner sees one or two lines they can act on.
    """

    icon = "❌"

    def _render_traceback_(self) -> list[str]:
        lines = str(self).splitlines() or [""]
        return [f"{self.icon} {lines[0]}", *(f"   {line}" for line in lines[1:])]


class UsageError(CourseError):
    """A command was given something it cannot work on (exit status 2)."""
