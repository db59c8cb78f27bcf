"""Helpers for the "JAX beyond jnp" course: C++ builds, self-checks, release, local scoring.

The package has two sides. `grader.notebook` runs inside a learner's kernel (self-checks,
records, the C++ build helper, the setup cell's helper); `grader.autograde` and the command-line
tools run in the grader and never import a learner's objects. What notebooks use is here at the
top: `grader.setup_notebook()`, `grader.build(...)`, `grader.checks`, `grader.record`,
`grader.memory`, `grader.watch`, `grader.timing`, `grader.figures` (kept under the names the chapters use).
"""

from __future__ import annotations

import sys

from grader.errors import CourseError
from grader.notebook import addresses, build as builder, checks, record, watch
from grader.notebook.build import build
from grader.notebook.setup import JAX_VERSION, _show_stub, _STUB_MESSAGE, setup_notebook  # noqa: F401

# The kernel-side modules under their original names, so that `import grader.checks`,
# `from grader import builder` and `grader.memory.address` keep working in every notebook.
memory = addresses
for _name, _module in (("checks", checks), ("record", record), ("builder", builder), ("memory", addresses),
                      ("watch", watch)):
    sys.modules[f"{__name__}.{_name}"] = _module
del _name, _module

# `grader.timing` and `grader.figures` (kernel-side too) import JAX and matplotlib, which the
# command-line tools do not need: they are loaded on first use, under the same two names.
_LAZY = {"timing": "grader.notebook.timing", "figures": "grader.notebook.figures"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        module = importlib.import_module(_LAZY[name])
        sys.modules[f"{__name__}.{name}"] = module
        globals()[name] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["build", "checks", "CourseError", "setup_notebook", "JAX_VERSION"]
