"""Helpers for the "JAX beyond jnp" course: C++ builds, self-checks, release, local scoring.

The package has two sides. `grader.notebook` runs inside a learner's kernel (self-checks,
records, the C++ build helper, the setup cell's helper); `grader.autograde` and the command-line
tools run in the grader and never import a learner's objects. What notebooks use is here at the
top: `grader.setup_notebook()`, `grader.build(...)`, `grader.checks`, `grader.record`,
`grader.memory` (kept under the names the chapters have always used).
"""

from __future__ import annotations

import sys

from grader.errors import CourseError
from grader.notebook import addresses, build as builder, checks, record
from grader.notebook.build import build
from grader.notebook.setup import JAX_VERSION, _show_stub, _STUB_MESSAGE, setup_notebook  # noqa: F401

# The kernel-side modules under their original names, so that `import grader.checks`,
# `from grader import builder` and `grader.memory.address` keep working in every notebook.
memory = addresses
for _name, _module in (("checks", checks), ("record", record), ("builder", builder), ("memory", addresses)):
    sys.modules[f"{__name__}.{_name}"] = _module
del _name, _module

__all__ = ["build", "checks", "CourseError", "setup_notebook", "JAX_VERSION"]
