"""Watch the calls Python code makes while a block runs, for checks that observe how an answer works.

Where an exercise prescribes a mechanism (call `jax.effects_barrier` after the loop, compute with
`jax.linearize` and not `jax.vjp`, let SciPy do the work), a check watches which functions run, by
the function object, so that however the answer reached it (`jax.vjp`, or `vjp` after
`from jax import vjp`, or a `functools.partial` of it) the check sees the same call. It uses
`sys.monitoring` (Python 3.12+), which sees calls in every thread, inside host callbacks too, and
costs nothing once the block ends.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from types import CodeType
from typing import Any

_TOOL_NAME = "course check"


def from_jax(code: CodeType) -> bool:
    """Whether `code` is JAX's own: a file of the installed `jax` package (not any folder named jax).

    `jax.grad` calls `jax.vjp` itself; a check that asks whether an answer called `jax.vjp` leaves
    out the calls JAX's own code makes.
    """
    jax = sys.modules.get("jax")
    if jax is None or not getattr(jax, "__file__", None):
        return False
    return code.co_filename.startswith(os.path.dirname(jax.__file__) + os.sep)


@contextlib.contextmanager
def calls(on_call: Callable[[CodeType | None, Any], None], *,
          starts_of: Callable[..., Any] | None = None) -> Iterator[None]:
    """While the block runs, call `on_call(caller, fn)` for each call Python code makes, in any thread.

    `caller` is the code object of the function making the call and `fn` what it calls, as called
    (a `functools.partial` is not unwrapped: `on_call` decides). A call made from C (NumPy calling a
    partial, say) fires no such event; for that, `starts_of`, a function written in Python, adds a
    call `on_call(None, starts_of)` each time its code starts, however it was reached (so a call of
    it from Python is seen twice: as a call and as a start).

    It takes a free `sys.monitoring` tool id and gives it back when the block ends, also when the
    block raises.
    """
    monitoring = sys.monitoring
    events = monitoring.events
    tool = next((i for i in range(6) if monitoring.get_tool(i) is None), None)
    if tool is None:
        raise RuntimeError("every sys.monitoring tool id is in use (a debugger, profiler or coverage tool holds "
                           "them), so this check cannot watch which functions run: run it without that tool")
    monitoring.use_tool_id(tool, _TOOL_NAME)
    code = getattr(starts_of, "__code__", None)

    def on_call_event(caller, offset, fn, arg0):
        on_call(caller, fn)

    def on_start_event(started, offset):
        on_call(None, starts_of)

    try:
        monitoring.register_callback(tool, events.CALL, on_call_event)
        if code is not None:
            monitoring.register_callback(tool, events.PY_START, on_start_event)
            monitoring.set_local_events(tool, code, events.PY_START)
        monitoring.set_events(tool, events.CALL)
        yield
    finally:
        monitoring.set_events(tool, 0)
        if code is not None:
            monitoring.set_local_events(tool, code, 0)
        monitoring.register_callback(tool, events.CALL, None)
        monitoring.register_callback(tool, events.PY_START, None)
        monitoring.free_tool_id(tool)


def host_functions(run: Callable[[], Any]) -> list[Any]:
    """The host functions that `jax.pure_callback` and `io_callback` called while `run()` ran, each once, in the
    order of their first call: the very objects the answer handed to JAX (a function, a lambda, a
    `functools.partial`), which a check can then call itself.

    JAX calls each through its `_FlatCallback` wrapper, which also calls `tree_unflatten` and `tree_leaves`;
    those are left out.
    """
    import jax
    from jax._src import callback as jax_callback

    wrapper = jax_callback._FlatCallback.__call__.__code__
    jax_own = (jax.tree_util.tree_unflatten, jax.tree_util.tree_leaves)
    hosts: list[Any] = []

    def on_call(caller, fn):
        if caller is wrapper and all(fn is not other for other in (*jax_own, *hosts)):
            hosts.append(fn)

    with calls(on_call):
        jax.block_until_ready(run())
    return hosts
