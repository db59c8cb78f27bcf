"""`grader.setup_notebook()`: what a chapter's setup cell does to its kernel."""

from __future__ import annotations

from grader.errors import CourseError

#: The JAX release every notebook is written and tested against.
JAX_VERSION = "0.12.0.1"

_STUB_MESSAGE = (
    "⏳ Not answered yet: replace `raise NotImplementedError()` with your answer, "
    "then run this cell again."
)


def _show_stub(shell, etype, value, tb, tb_offset=None):
    # Only the course's stub gets the short message; any other NotImplementedError is real.
    if str(value):
        stb = shell.InteractiveTB.structured_traceback(etype, value, tb, tb_offset=tb_offset)
    else:
        stb = [_STUB_MESSAGE]
    # IPython only displays what a custom handler sends itself: send a normal error output.
    shell._showtraceback(etype, value, stb)
    return stb


def setup_notebook() -> None:
    """Prepare a chapter's kernel: check the JAX version and shorten the stub's error.

    An answer cell that still holds nbgrader's `raise NotImplementedError()` then prints one
    line saying it is not answered yet, instead of a traceback.
    """
    import jax

    if jax.__version__ != JAX_VERSION:
        raise CourseError(
            f"This course is written for JAX {JAX_VERSION}, but this kernel has JAX {jax.__version__}. "
            "Start JupyterLab with `make lab` so the notebook runs in the course's environment."
        )
    try:
        shell = get_ipython()  # type: ignore[name-defined]  # noqa: F821
    except NameError:
        return
    shell.set_custom_exc((NotImplementedError,), _show_stub)
