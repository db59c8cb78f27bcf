"""Self-checks of chapter 03, "Run Python on the host from compiled JAX code": what each exercise's self-check
cell runs (see `grader.selfchecks`)."""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import io_callback
from jax.extend.core import jaxprs_in_params

from grader.notebook import checks, watch


# --- helpers shared by the exercises -------------------------------------------------------------------------------

class CallbackError(Exception):
    """A host function raised while JAX ran it: the message is the host function's own error, which JAX puts on the
    last line of a long traceback."""


def plain_errors(thunk: Callable[[], Any]) -> Callable[[], Any]:
    """`thunk`, run with its results waited for, JAX's log of a failing host function kept quiet, and an error raised
    inside a host function turned into a CallbackError saying that error in one line."""
    def run():
        log = logging.getLogger("jax._src.callback")
        was_disabled, log.disabled = log.disabled, True
        try:
            return jax.block_until_ready(thunk())
        except Exception as err:
            lines = str(err).strip().splitlines()
            if checks.is_stub(err) or not lines or "Traceback" not in lines[0]:
                raise
            raise CallbackError(f"your host function raised {lines[-1].strip()}") from None
        finally:
            log.disabled = was_disabled
    return run


@contextlib.contextmanager
def bound_primitives() -> Any:
    """The names of the JAX primitives bound while the block runs, in this thread or any other: every jnp function
    and every operation on a jax.Array binds one. jit is turned off in the block, so that a cached compiled
    function cannot run without binding."""
    from jax._src import core

    bind = core.Primitive.bind
    names: list[str] = []

    def on_call(caller, fn):
        if caller is None:  # the code of Primitive.bind started
            frame = sys._getframe(1)
            while frame is not None and frame.f_code is not bind.__code__:
                frame = frame.f_back
            names.append(getattr(frame.f_locals.get("self") if frame else None, "name", "?"))

    with watch.calls(on_call, starts_of=bind), jax.disable_jit():
        yield names


def host_work(run: Callable[[], Any], x: Any, what: str) -> tuple[Any, Any]:
    """Watch the host functions `run()` hands to jax.pure_callback or io_callback, then call each again as JAX calls it
    (on x, a jax.Array on the CPU). Returns (the types of what they return, sorted; the JAX primitives bound while they
    ran, sorted), or (None, None) after a failed check saying what raised."""
    hosts = checks.runs(plain_errors(lambda: watch.host_functions(run)), what=f"{what}, its host functions watched")
    if hosts is None:
        return None, None
    arg = jax.device_put(x, jax.devices("cpu")[0])
    types: set[str] = set()

    def call_each():
        with bound_primitives() as names:
            for host in hosts:
                types.update(type(leaf).__name__ for leaf in jax.tree.leaves(host(arg)))
        return sorted(set(names))

    bound = checks.runs(call_each, what=f"the host functions of {what}, called again as JAX calls them")
    return (sorted(types), bound) if bound is not None else (None, None)


def primitive_names(fn: Callable, *args: Any) -> set[str]:
    """The names of the primitives in the jaxpr of fn(*args), nested jaxprs included."""
    names: set[str] = set()

    def walk(jaxpr):
        for eqn in jaxpr.eqns:
            names.add(eqn.primitive.name)
            for inner in jaxprs_in_params(eqn.params):
                walk(inner)

    walk(jax.make_jaxpr(fn)(*args).jaxpr)
    return names


# --- Exercise 1 ----------------------------------------------------------------------------------------------------

class Sink(list):
    """A list that notes, for each change, whether a thread started by Python code made it (not a callback's own)."""

    def __init__(self):
        super().__init__()
        self.by_started_thread: list[bool] = []

    def _note(self):
        thread = threading.current_thread()
        self.by_started_thread.append(thread is not threading.main_thread() and not isinstance(thread, threading._DummyThread))

    def append(self, value):
        self._note()
        super().append(value)

    def extend(self, values):
        self._note()
        super().extend(values)

    def insert(self, index, value):
        self._note()
        super().insert(index, value)

    def __iadd__(self, values):
        self._note()
        return super().__iadd__(values)


def tapped(label: str, thunk: Callable[[Sink], Any]) -> tuple[Any, list]:
    """Run thunk(sink) with a fresh sink and wait for its callbacks; return (its result, the entries read right then)."""
    sink = Sink()
    result = checks.runs(plain_errors(lambda: thunk(sink)), what=f"tap {label}",
                         hint="one callback kind works under jit, vmap and grad, and runs even when its result is unused")
    jax.effects_barrier()
    entries, by_started_thread = list(sink), list(sink.by_started_thread)  # read right after the barrier
    checks.equal(sum(by_started_thread), 0, what=f"{label}: how many changes to sink a thread started by your code made",
                 hint="append inside the callback itself: jax.effects_barrier() waits for callbacks, not for threads or "
                      "queues they hand work to")
    checks.equal([type(e) for e in entries if type(e) is not np.ndarray], [],
                 what=f"{label}: the types of sink entries that are not NumPy arrays",
                 hint="the callback receives a jax.Array; convert it with np.asarray")
    return result, entries


def exercise1(tap) -> None:
    """tap logs NumPy copies of x, with x's shape and dtype, under jit, vmap, grad and with its result unused, into the
    sink of its own call, all there when jax.effects_barrier() returns; it returns x."""
    x = jnp.arange(3.0)
    result, sink = tapped("under jit", lambda s: jax.jit(lambda v: tap(v, s) * 2)(x))
    checks.close(result, np.array([0.0, 2.0, 4.0], np.float32), what="jit(tap(x) * 2)")
    checks.equal([e.tolist() for e in sink], [[0.0, 1.0, 2.0]], what="the entries under jit, read right after jax.effects_barrier()",
                 hint="every entry must be in sink when jax.effects_barrier() returns: append inside the callback itself")
    result, sink = tapped("twice on one value under jit", lambda s: jax.jit(lambda v: tap(tap(v, s), s))(x))
    checks.equal([e.tolist() for e in sink], [[0.0, 1.0, 2.0]] * 2,
                 what="the entries of jit(tap(tap(x, sink), sink)): one per run of tap",
                 hint="append the value every time tap runs, also one equal to the entry before it")
    m = jnp.arange(6, dtype=jnp.int32).reshape(2, 3) - 2
    result, sink = tapped("under jit on an int32 matrix", lambda s: jax.jit(lambda v: tap(v, s) + 1)(m))
    checks.close(result, np.arange(6, dtype=np.int32).reshape(2, 3) - 1, what="jit(tap(m) + 1) for an int32 (2, 3) matrix m")
    checks.equal([(e.shape, str(e.dtype)) for e in sink], [((2, 3), "int32")],
                 what="the shape and dtype of the entries for an int32 (2, 3) matrix",
                 hint="append the value as it arrives, converted with np.asarray: no reshaping, no change of dtype")
    checks.equal([e.tolist() for e in sink], [[[-2, -1, 0], [1, 2, 3]]], what="the entries for an int32 (2, 3) matrix")
    result, sink = tapped("under jit on arrays of shape (), (1, 3) and (2, 1)",
                          lambda s: jax.jit(lambda a, b, c: (tap(a, s), tap(b, s), tap(c, s)))(
                              jnp.float32(1.5), jnp.ones((1, 3), jnp.int32), jnp.zeros((2, 1))))
    checks.equal(sorted(np.shape(e) for e in sink), [(), (1, 3), (2, 1)],
                 what="the shapes of the entries for arrays of shape (), (1, 3) and (2, 1) under jit",
                 hint="log the value with x's own shape: no squeeze, ravel or reshape, even for an axis of length 1")
    result, sink = tapped("under jit on int8, bool and bfloat16 arrays",
                          lambda s: jax.jit(lambda a, b, c: (tap(a, s), tap(b, s), tap(c, s)))(
                              jnp.array([1, -2], jnp.int8), jnp.array([True, False]), jnp.array([0.5, 3.0], jnp.bfloat16)))
    checks.equal(sorted(str(e.dtype) for e in sink), ["bfloat16", "bool", "int8"],
                 what="the dtypes of the entries for int8, bool and bfloat16 arrays under jit",
                 hint="append np.asarray(v) as it arrives: no cast to int32 or float32, whatever x's dtype")
    result, sink = tapped("eagerly", lambda s: tap(x, s))
    checks.equal(type(result), type(x), what="the type tap(x, sink) returns outside jit (x's own: a jax.Array)",
                 hint="return x itself, on every path: the NumPy copy is only for sink")
    checks.equal(result is x, True, what="whether tap(x, sink) outside jit returns x itself (the same object)",
                 hint="return x itself, on every path: no jnp.array(x) or other copy")
    result, sink = tapped("under grad", lambda s: jax.grad(lambda v: jnp.sum(tap(v, s) ** 2))(x))
    checks.close(result, np.array([0.0, 2.0, 4.0], np.float32), what="grad of sum(tap(x) ** 2)",
                 hint="the gradient passes through tap unchanged: return x itself (no stop_gradient)")
    checks.equal([e.tolist() for e in sink], [[0.0, 1.0, 2.0]], what="the entries under grad")
    result, sink = tapped("under vmap", lambda s: jax.vmap(lambda v: tap(v, s))(jnp.arange(6.0).reshape(2, 3)))
    checks.close(result, np.arange(6.0, dtype=np.float32).reshape(2, 3), what="vmap(tap)")
    checks.equal(sorted(e.tolist() for e in sink), [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], what="the entries under vmap")
    result, sink = tapped("under vmap over axis 1", lambda s: jax.vmap(lambda v: tap(v, s), in_axes=1)(jnp.arange(6.0).reshape(3, 2)))
    checks.close(result, np.arange(6.0, dtype=np.float32).reshape(3, 2).T, what="vmap(tap, in_axes=1)")
    checks.equal(sorted(e.tolist() for e in sink), [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]], what="the entries under vmap over axis 1",
                 hint="one entry per example, each a column of the input")
    result, sink = tapped("with its result unused inside jit", lambda s: jax.jit(lambda v: (tap(-v, s), v * 10)[1])(x))
    checks.close(result, np.array([0.0, 10.0, 20.0], np.float32), what="the jitted function's own result")
    checks.equal([e.tolist() for e in sink], [[0.0, -1.0, -2.0]], what="the entries when tap's result is unused",
                 hint="jit may delete a callback whose result is unused unless it is a side effect")
    own_sink, other_sink = [], []
    logs_into_own = jax.jit(lambda v: tap(v, own_sink) * 2)

    def with_another_sink_between(s):
        logs_into_own(x)
        tap(x + 10, other_sink)  # tap runs again, with another sink, between two calls of the compiled function
        return logs_into_own(x + 1)

    tapped("for a jitted function called again after tap ran with another sink", with_another_sink_between)
    checks.equal([[e.tolist() for e in own_sink], [e.tolist() for e in other_sink]],
                 [[[0.0, 1.0, 2.0], [1.0, 2.0, 3.0]], [[10.0, 11.0, 12.0]]],
                 what="[the jitted function's sink, the other sink] after jit(tap(x, own) * 2) ran, tap(x + 10, other), "
                      "and the jitted one again",
                 hint="the callback must append to the sink of its own tap call: close over sink in the callback, not over a "
                      "global that the next call of tap changes (the compiled function keeps the callback it was traced with)")


# --- Exercise 2 ----------------------------------------------------------------------------------------------------

def logged(run_logged, label: str, step, x0, n) -> tuple[Any, Any]:
    """run_logged(step, x0, n) as (final, log), or (None, []) after a failed check saying what it raised."""
    result = checks.runs(plain_errors(lambda: run_logged(step, x0, n)), what=f"run_logged {label}",
                         hint="the host function receives the whole state (any shape): append np.array(state); "
                              "for n == 0 the loop returns x0 and logs nothing")
    try:
        final, log = result
    except (TypeError, ValueError):
        return result, []
    return final, log


def check_log(log, expected_count: int, label: str,
              hint: str = "create a new list inside run_logged, so each call has its own log") -> None:
    """The log is a list of `expected_count` NumPy arrays."""
    checks.equal(type(log), list, what=f"{label}: the type of the log (a list)")
    checks.equal(len(log), expected_count, what=f"number of log entries {label}", hint=hint)
    checks.equal([type(e) for e in log if type(e) is not np.ndarray], [],
                 what=f"{label}: the types of log entries that are not NumPy arrays", hint="convert with np.asarray or np.array")


def loop_program(run_logged, step, x0, n) -> tuple[Any, Any]:
    """The effects of jax.jit(run_logged)'s jaxpr and how many tokens its lowered main function returns (a look
    ahead: chapter 05 lowers jaxprs to StableHLO), or (None, None) after a failed check saying what raised."""
    def program():
        traced = jax.jit(lambda x: run_logged(step, x, n)[0]).trace(x0)
        main = next(line for line in traced.lower().as_text().splitlines() if "func.func public @main" in line)
        return sorted(str(e) for e in traced.jaxpr.effects), main.split(" -> ")[1].count("!stablehlo.token")

    result = checks.runs(program, what="tracing run_logged under jax.jit",
                         hint="run_logged must work when x0 is a tracer: return the loop's result, not a NumPy copy of it")
    return result or (None, None)


@contextlib.contextmanager
def barriers():
    """The calls made from outside JAX's own package while the block runs, in order: "jit" for a call of a function of
    your own under jax.jit (not one of jnp's jitted functions), "barrier" for jax.effects_barrier."""
    seen: list[str] = []

    def on_call(caller, fn):
        if watch.from_jax(caller):
            return
        if fn is jax.effects_barrier:
            seen.append("barrier")
        elif type(fn).__name__ == "PjitFunction":
            inner = getattr(getattr(fn, "__wrapped__", None), "__code__", None)
            if inner is not None and not watch.from_jax(inner):
                seen.append("jit")

    with watch.calls(on_call):
        yield seen


def exercise2(run_logged) -> None:
    """run_logged returns the final state and a new log of NumPy states, in step order, filled by an ordered io_callback
    inside one compiled loop, waited for with jax.effects_barrier(); also inside jax.jit and from two threads at once."""
    def double_plus_one(x):
        return 2 * x + 1

    final, first_log = logged(run_logged, "for 4 steps of 2x + 1", double_plus_one, jnp.zeros(2), 4)
    checks.close(final, np.full(2, 15.0, np.float32), what="final state of 4 steps of 2x + 1 from 0")
    check_log(first_log, 4, "of the first call")
    checks.close(np.array(first_log), np.array([[1.0, 1.0], [3.0, 3.0], [7.0, 7.0], [15.0, 15.0]], np.float32),
                 what="the log of 4 steps of 2x + 1 from 0", hint="log the state after each step, not before it")
    final, log = logged(run_logged, "again for 4 steps of the same 2x + 1, from 1", double_plus_one, jnp.ones(2), 4)
    checks.close(final, np.full(2, 31.0, np.float32), what="final state of 4 steps of the same 2x + 1 from 1")
    fresh_log = ("make the list, and the callback that appends to it, in every call: a compiled loop kept from an earlier "
                 "call still appends to that call's log")
    check_log(log, 4, "of a call with the same step and n as the first", hint=fresh_log)
    checks.close(np.array(log), np.array([[3.0, 3.0], [7.0, 7.0], [15.0, 15.0], [31.0, 31.0]], np.float32),
                 what="the log of a call with the same step and n as the first", hint=fresh_log)
    checks.equal([np.asarray(e).tolist() for e in first_log], [[1.0, 1.0], [3.0, 3.0], [7.0, 7.0], [15.0, 15.0]],
                 what="the first call's log, read again after the second call with the same step",
                 hint="a later call must not add to an earlier call's log")
    with barriers() as seen:
        final, log = logged(run_logged, "for 2 steps of x - 1", lambda x: x - 1, jnp.full(2, 5.0), 2)
    after_loop = seen[len(seen) - seen[::-1].index("jit"):] if "jit" in seen else seen
    checks.equal("barrier" in after_loop, True,
                 what="whether run_logged called jax.effects_barrier() after its jitted loop, before returning its log",
                 hint="JAX does not promise that a callback has run when the call returns: wait with jax.effects_barrier() "
                      "(section 6), even where the log already looks complete")
    checks.close(final, np.full(2, 3.0, np.float32), what="final state of 2 steps of x - 1 from 5")
    check_log(log, 2, "of a second call")
    checks.close(np.array(log), np.array([[4.0, 4.0], [3.0, 3.0]], np.float32), what="the log of a second call")
    final, log = logged(run_logged, "for 3 int32 steps of 3x", lambda x: x * 3, jnp.array([1, -2], jnp.int32), 3)
    checks.close(final, np.array([27, -54], np.int32), what="final state of 3 steps of 3x from the int32 [1, -2]",
                 hint="final keeps the dtype of x0: do not convert x0")
    check_log(log, 3, "of 3 int32 steps")
    checks.close(np.array(log), np.array([[3, -6], [9, -18], [27, -54]], np.int32), what="the int32 log of 3 steps of 3x")
    shape_hint = "log each state as it is, its shape kept: np.array(state), with no np.atleast_1d, ravel or reshape"
    final, log = logged(run_logged, "for 2 steps of a 0-d state", lambda x: x / 2, jnp.float32(6.0), 2)
    checks.equal([np.shape(e) for e in log], [(), ()], what="the shapes of the log entries for 2 steps of a 0-d state",
                 hint=shape_hint)
    final, log = logged(run_logged, "for 2 int32 steps of a (2, 2) state", lambda x: x * 3, jnp.ones((2, 2), jnp.int32), 2)
    checks.equal([np.shape(e) for e in log], [(2, 2), (2, 2)],
                 what="the shapes of the log entries for 2 steps of a (2, 2) state", hint=shape_hint)
    final, log = logged(run_logged, "for n == 0", lambda x: x + 1, jnp.arange(3.0), 0)
    checks.close(final, np.arange(3.0, dtype=np.float32), what="final state of 0 steps (x0 itself)")
    check_log(log, 0, "of 0 steps")
    effects, tokens = loop_program(run_logged, lambda x: 2 * x + 1, jnp.zeros(2), 3)
    checks.equal(effects, ["OrderedIO"], what="the effects in the jaxpr of jax.jit(run_logged)",
                 hint="only io_callback(..., ordered=True) gives OrderedIO; an unordered callback (IO, or Debug for "
                      "jax.debug.callback) may log in order in one run, but nothing promises it")
    checks.equal(tokens, 1, what="how many tokens the compiled program of run_logged returns (it should take and return one)",
                 hint="the token is what ordered=True adds to keep the callbacks in order (section 6)")
    _two_threads(run_logged)
    _compiled_loop(run_logged)
    _inside_jit(run_logged)
    kept = jnp.array([1.0, 2.0])
    logged(run_logged, "for 2 steps of x + 1 from a jax.Array x0", lambda x: x + 1, kept, 2)
    checks.equal((kept.is_deleted(), np.asarray(kept).tolist() if not kept.is_deleted() else None),
                 (False, [1.0, 2.0]), what="the caller's x0 after run_logged: [deleted?, its values]",
                 hint="x0 stays the caller's: do not donate it (donate_argnums deletes the caller's array)")
    final, log = logged(run_logged, "for n == 0 with a NumPy x0", lambda x: x + 1, np.arange(3.0, dtype=np.float32), 0)
    checks.equal(type(final), type(jnp.zeros(3)), what="the type of final for n == 0 and a NumPy x0 (a jax.Array)",
                 hint="final is a jax.Array even when no step runs: return the loop's result, not x0 itself")


def _two_threads(run_logged) -> None:
    """Two calls at the same time, from two threads, each get their own log. The calls overlap for certain: the "up"
    call's loop waits before its 16th step (a pure_callback in its step) until the "down" call has begun and traced
    its step, so whatever the down call does first happens in the middle of the up call's loop."""
    mid_up, down_traced = threading.Event(), threading.Event()

    def hold(x):  # host side of the up call's step: waits once, in the middle of the loop
        if not mid_up.is_set() and float(np.ravel(x)[0]) == 15.0:
            mid_up.set()
            down_traced.wait(10)
        return np.zeros_like(x)

    def up(x):
        return x + 1 + jax.pure_callback(hold, jax.ShapeDtypeStruct(x.shape, x.dtype), x)

    def down(x):
        down_traced.set()  # called while run_logged traces its loop: the down call is under way
        return x - 1

    together = {}

    def call(name, step, start):
        if name == "down":
            mid_up.wait(10)
        together[name] = run_logged(step, jnp.full(2, start), 30)[1]

    runners = [threading.Thread(target=call, args=("up", up, 0.0)),
               threading.Thread(target=call, args=("down", down, 1000.0))]
    for runner in runners:
        runner.start()
    for runner in runners:
        runner.join()
    checks.equal({name: [float(np.asarray(e)[0]) for e in log] for name, log in sorted(together.items())},
                 {"down": [1000.0 - k for k in range(1, 31)], "up": [float(k) for k in range(1, 31)]},
                 what="the logs of two calls made at the same time from two threads (30 steps up from 0, 30 down from "
                      "1000; the down call starts while the up call's loop is at its 16th step)",
                 hint="each call needs a list of its own, made inside run_logged: one list shared by every call mixes "
                      "calls that run at the same time, even if it is cleared or copied")


def _compiled_loop(run_logged) -> None:
    """step runs in Python once or twice (while tracing), not once per step."""
    step_traces = []

    def counted_step(x):
        step_traces.append(1)  # once per trace of the loop body, not once per step, when the loop is compiled
        return x + 2

    logged(run_logged, "for 5 steps of a step that counts its Python calls", counted_step, jnp.zeros(3), 5)
    checks.close(np.float64(len(step_traces)), 1.0, atol=1.0, rtol=0.0,
                 what="how many times step ran in Python for 5 steps (once or twice when the loop is compiled)",
                 hint="loop with jax.lax.fori_loop or jax.lax.scan inside jax.jit: a Python loop runs step once per step, "
                      "and its program holds n copies of it")
    checks.equal(checks.runs(plain_errors(lambda: _loop_and_callbacks(run_logged)),
                             what="jax.make_jaxpr of run_logged for 5 steps"), (True, 1),
                 what="for 5 steps, (whether the program of run_logged holds a loop, how many io_callbacks it holds)",
                 hint="one compiled loop (fori_loop or scan) with one io_callback in its body: a Python loop around a jitted "
                      "step puts n callbacks in the program, one per step")


def _loop_and_callbacks(run_logged) -> tuple[bool, int]:
    """Whether the jaxpr of run_logged(step, x, 5) holds a while or scan, and how many io_callback equations it holds,
    nested jaxprs included: one compiled loop holds one, in its body."""
    found = {"loop": False, "callbacks": 0}

    def walk(jaxpr):
        for eqn in jaxpr.eqns:
            found["loop"] |= eqn.primitive.name in ("while", "scan")
            found["callbacks"] += eqn.primitive.name == "io_callback"
            for inner in jaxprs_in_params(eqn.params):
                walk(inner)

    walk(jax.make_jaxpr(lambda x: run_logged(lambda v: v + 2, x, 5)[0])(jnp.zeros(3)).jaxpr)
    return found["loop"], found["callbacks"]


def _inside_jit(run_logged) -> None:
    """Called inside jax.jit, run_logged returns a log the compiled loop fills one entry per step, as it goes."""
    logs_made, seen_by_step = [], []

    def peek(state):
        seen_by_step.append(len(logs_made[0]) if logs_made else None)  # the entries the log held when this step ran
        return state

    def peeking_step(x):
        return io_callback(peek, jax.ShapeDtypeStruct(x.shape, x.dtype), x + 1, ordered=True)

    def inside_jit(x):
        final, log = run_logged(peeking_step, x, 3)
        logs_made.append(log)
        return final

    checks.runs(plain_errors(lambda: jax.jit(inside_jit)(jnp.zeros(2))), what="a jitted function calling run_logged",
                hint="run_logged must work when x0 is a tracer: return the loop's result and the list, testing neither")
    jax.effects_barrier()
    checks.equal([[np.asarray(e).tolist() for e in log] for log in logs_made], [[[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]],
                 what="the log run_logged returned inside jax.jit, read after the compiled program ran",
                 hint="the log is filled by the ordered io_callback as the compiled loop runs, also inside jax.jit: append each "
                      "state in the callback, not from the loop's results after it returns")
    checks.equal(seen_by_step, [0, 1, 2], what="how many entries the log held when each of the 3 steps ran (inside jax.jit)",
                 hint="log each state from inside the loop, one callback per step, as soon as the step is done: not all at once "
                      "after the loop")


# --- Exercise 3 ----------------------------------------------------------------------------------------------------

def sorted_by(label: str, thunk: Callable[[], Any], unused: Any = (None, None)) -> Any:
    """Run thunk() (a call of host_sort); return its result, or `unused` after a failed check saying what it raised."""
    result = checks.runs(plain_errors(thunk), what=f"host_sort {label}",
                         hint="declare both outputs with jax.ShapeDtypeStruct (the indices as int32), and pass a vmap_method")
    return unused if result is None else result


def host_and_sort_primitives(host_sort, x) -> Any:
    """Which of pure_callback, io_callback, debug_callback, sort and gather the jaxpr of host_sort(x) holds, nested jaxprs
    included."""
    names = sorted_by("while tracing with jax.make_jaxpr", lambda: primitive_names(host_sort, x), None)
    return None if names is None else sorted(names & {"pure_callback", "io_callback", "debug_callback", "sort", "gather"})


def _pair(label, thunk, values_want, indices_want, *, what, hint=None):
    """Check both outputs of a call of host_sort with close."""
    values, indices = sorted_by(label, thunk)
    checks.close(values, values_want, what=f"values {what}", hint=hint)
    checks.close(indices, indices_want, what=f"indices {what}", hint=hint)


def exercise3(host_sort) -> None:
    """host_sort returns sorted values and stable int32 indices, both from NumPy in one host function that runs no JAX,
    for any dtype and shape, eagerly, under jit and vmap (over any axis, nested), and with one output used."""
    x = jnp.array([3.0, -1.0, 2.0, 0.5])
    values, indices = sorted_by("eagerly", lambda: host_sort(x))
    checks.close(values, np.array([-1.0, 0.5, 2.0, 3.0], np.float32), what="values of host_sort([3, -1, 2, 0.5])")
    checks.close(indices, np.array([1, 3, 2, 0], np.int32), what="indices of host_sort([3, -1, 2, 0.5])")
    checks.equal(host_and_sort_primitives(host_sort, x), ["pure_callback"],
                 what="the callback, sort and gather primitives in the jaxpr of host_sort",
                 hint="sort with NumPy inside a host function called through jax.pure_callback, not with jnp.sort or io_callback; "
                      "both outputs come from it (no jnp.take_along_axis of the indices on the device)")
    returned, bound = host_work(lambda: jax.jit(host_sort)(x), x, "jax.jit(host_sort)(x)")
    checks.equal(returned, ["ndarray"],
                 what="the types of what host_sort's host functions return, called as JAX calls them (on a jax.Array)",
                 hint="the host function gets a jax.Array: np.asarray it first and sort with np.sort and np.argsort")
    checks.equal(bound, [], what="the JAX operations that ran while host_sort's host functions ran (called as JAX calls them)",
                 hint="sort with NumPy on the host: jnp, or a method of the jax.Array the host function receives (.sort, "
                      ".argsort), runs JAX again from inside the callback; np.asarray it first")
    checks.equal([isinstance(part, jax.Array) for part in (values, indices)], [True, True],
                 what="whether the two arrays host_sort(x) returns eagerly are jax.Arrays",
                 hint="go through jax.pure_callback on every path, eager too: it gives jax.Arrays, where NumPy gives np.ndarray")
    _pair("under jit", lambda: jax.jit(host_sort)(x), np.array([-1.0, 0.5, 2.0, 3.0], np.float32),
          np.array([1, 3, 2, 0], np.int32), what="under jit")
    ties = np.tile(np.array([2, 0, 1, 2, 1], np.int32), 4).reshape(1, 20) * np.array([[1], [-1]], np.int32)
    values, indices = sorted_by("on an int32 (2, 20) matrix with ties", lambda: jax.jit(host_sort)(jnp.asarray(ties)))
    checks.close(values, np.sort(ties, axis=-1), what="values of an int32 (2, 20) matrix with ties",
                 hint="values keep the dtype of x, and each row is sorted along the last axis")
    checks.close(indices, np.argsort(ties, axis=-1, kind="stable").astype(np.int32),
                 what="indices of an int32 (2, 20) matrix with ties (equal values keep their order)",
                 hint='np.argsort(v, axis=-1, kind="stable"): the default kind may reorder equal values')
    rows = jnp.array([[2.0, 1.0, 0.0], [0.0, 5.0, 4.0]])
    _pair("under vmap", lambda: jax.vmap(host_sort)(rows), np.array([[0.0, 1.0, 2.0], [0.0, 4.0, 5.0]], np.float32),
          np.array([[2, 1, 0], [0, 2, 1]], np.int32), what="under vmap")
    _pair("under vmap over axis 1", lambda: jax.vmap(host_sort, in_axes=1)(rows),
          np.array([[0.0, 2.0], [1.0, 5.0], [0.0, 4.0]], np.float32), np.array([[1, 0], [0, 1], [0, 1]], np.int32),
          what="under vmap over axis 1")
    cube = np.array([[[3, 1, 2], [0, -1, 5]], [[9, 8, 7], [1, 1, 0]]], np.float32)
    _pair("under vmap of vmap", lambda: jax.vmap(jax.vmap(host_sort))(jnp.asarray(cube)), np.sort(cube, axis=-1),
          np.argsort(cube, axis=-1, kind="stable").astype(np.int32), what="under vmap of vmap on a (2, 2, 3) array",
          hint="under vmap the host function receives the batch axes in front: sort along the last axis, whatever the number "
               "of axes")
    order = sorted_by("with only the indices used", lambda: jax.jit(lambda v: host_sort(v)[1] * 10)(x), None)
    checks.close(order, np.array([10, 30, 20, 0], np.int32), what="10 * indices, with the values unused")
    long_rows = np.random.default_rng(3).integers(-128, 128, (2, 300)).astype(np.int8)
    values, indices = sorted_by("on int8 rows of 300 values", lambda: jax.jit(host_sort)(jnp.asarray(long_rows)))
    checks.close(indices, np.argsort(long_rows, axis=-1, kind="stable").astype(np.int32),
                 what="indices of int8 rows of 300 values",
                 hint="compute and declare the indices as int32 from the start: int8 or uint8 indices cannot count past 127 or 255")
    long_row = np.random.default_rng(4).standard_normal(70000).astype(np.float32)
    values, indices = sorted_by("on a float32 row of 70000 values", lambda: host_sort(jnp.asarray(long_row)))
    checks.close(indices, np.argsort(long_row, kind="stable").astype(np.int32), what="indices of a float32 row of 70000 values",
                 hint="int16 indices cannot count past 32767: make them int32 on the host")
    _complex(host_sort)
    big = np.array([16777217, 16777216, 3], np.int32)
    _pair("on int32 values above 2 ** 24", lambda: jax.jit(host_sort)(jnp.asarray(big)), np.sort(big),
          np.array([2, 1, 0], np.int32), what="of int32 [16777217, 16777216, 3]",
          hint="sort x's own values: a float32 copy rounds int32 values above 2 ** 24 (16777217 becomes 16777216)")
    column = jnp.array([[3.0], [1.0], [2.0]])
    _pair("on a (3, 1) column", lambda: host_sort(column), np.asarray(column), np.zeros((3, 1), np.int32),
          what="of a (3, 1) column: each row of one value is already sorted",
          hint="sort along the last axis of x as it is: no squeeze, which would sort down the column")
    values, indices = sorted_by("on a (2, 2, 3) array", lambda: host_sort(jnp.asarray(cube)))
    checks.close(values, np.sort(cube, axis=-1), what="values of a (2, 2, 3) array, sorted along the last axis",
                 hint="sort along axis -1, whatever the number of axes")


def _complex(host_sort) -> None:
    """A complex64 matrix: its real and imaginary parts compared apart (grading records no complex numbers)."""
    twisted = np.array([[1 + 2j, 5j, 1 - 1j, 1 + 0j], [2j, -1j, 0, 3 + 0j]], np.complex64)
    values, indices = sorted_by("on a complex64 (2, 4) matrix", lambda: jax.jit(host_sort)(jnp.asarray(twisted)))
    hint = "sort x itself with NumPy, in its own dtype: a detour through float64 drops a complex number's imaginary part"
    want = np.sort(twisted, axis=-1)
    checks.equal(None if values is None else [str(values.dtype), np.real(values).tolist(), np.imag(values).tolist()],
                 [str(twisted.dtype), want.real.tolist(), want.imag.tolist()],
                 what="values of a complex64 (2, 4) matrix (NumPy sorts complex numbers by real part, then imaginary part): "
                      "[dtype, real parts, imaginary parts]", hint=hint)
    checks.equal(None if indices is None else np.asarray(indices).tolist(), np.argsort(twisted, axis=-1, kind="stable").tolist(),
                 what="indices of a complex64 (2, 4) matrix", hint=hint)
