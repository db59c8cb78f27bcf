"""Self-checks of chapter 04, "Call pure host code from JAX with `pure_callback`": what each exercise's self-check
cell runs (see `grader.selfchecks`)."""

from __future__ import annotations

import contextlib
import ctypes
import functools
import itertools
import sys
import threading
import time
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np
import scipy.special

from grader.notebook import checks, watch
from grader.notebook.build import build
# The same two watches as chapter 03's Exercise 3: errors of host functions said in a line, and the JAX operations
# that run while a host function runs.
from grader.selfchecks.ch03 import host_work, plain_errors


def value(label: str, thunk: Callable[[], Any], hint: str | None = None, default: Any = None) -> Any:
    """Run thunk() (the learner's code); return its result, or `default` after a failed check saying what it raised."""
    result = checks.runs(plain_errors(thunk), what=label, hint=hint)
    return default if result is None else result


#: The primitives that only reshape, cast or wrap: what `computing` leaves out.
SHAPE_ONLY = {"reshape", "squeeze", "expand_dims", "broadcast_in_dim", "transpose", "convert_element_type", "copy", "jit"}


def computing(fn: Callable, *args: Any) -> list[str]:
    """The names of the primitives in fn's jaxpr, at every depth, that compute something (those that only reshape, cast
    or wrap are left out), sorted."""
    names: list[str] = []

    def walk(jaxpr):
        for eqn in jaxpr.eqns:
            names.append(eqn.primitive.name)
            for param in eqn.params.values():
                for sub in param if isinstance(param, tuple) else (param,):
                    if hasattr(sub, "eqns"):  # a sub-jaxpr: a nested jit, the branches of a cond, ...
                        walk(sub)

    walk(jax.make_jaxpr(fn)(*args).jaxpr)
    return sorted(name for name in names if name not in SHAPE_ONLY)


def loops(fn: Callable, *args: Any) -> int:
    """How many loops over a batch (scans) the jaxpr of fn(*args) holds."""
    return str(jax.make_jaxpr(fn)(*args)).count("scan[")


def _in_pure_callback() -> bool:
    """Whether this thread is inside the host function of a jax.pure_callback (JAX's pure_callback_impl is on its stack)."""
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if code.co_name == "pure_callback_impl" and code.co_filename.replace("\\", "/").endswith("jax/_src/callback.py"):
            return True
        frame = frame.f_back
    return False


@contextlib.contextmanager
def calls_of(target: Any):
    """Count the calls of `target` (a function, or a name) while the block runs, in any thread, so also inside a host
    function: calls made from Python, to it or to a functools.partial of it, and, for a function written in Python
    (such as scipy.special.polygamma), every start of its code, however it was reached. Yields the list the calls are
    appended to, one entry per call: whether it was made inside a pure_callback's host function."""
    seen: list[bool] = []

    def on_call(caller, fn):
        while isinstance(fn, functools.partial):
            fn = fn.func
        if fn is target or getattr(fn, "__name__", None) == target:
            seen.append(_in_pure_callback())

    with watch.calls(on_call, starts_of=target if hasattr(target, "__code__") else None):
        yield seen


# --- Exercise 1 ----------------------------------------------------------------------------------------------------

def _unit(a: np.ndarray) -> np.ndarray:
    return a / np.linalg.norm(a, axis=-1, keepdims=True)


def same_array_again(run: Callable[[], Any], first: np.ndarray, second: np.ndarray, what: str) -> Any:
    """The host function `run()` hands to jax.pure_callback, called twice on one NumPy array whose values change in
    place between the calls, from `first` to `second` (the same object, shape and sum): the arrays it returned the
    second time (its leaves, as NumPy arrays, in whatever structure it returns them), or None after a failed check. A
    result kept by id, shape or sum comes back stale."""
    hosts = checks.runs(plain_errors(lambda: watch.host_functions(run)), what=f"{what}, its host function watched")
    if not hosts:
        return None
    array = np.array(first, copy=True)
    if checks.runs(lambda: hosts[0](array), what=f"the host function of {what}, called on a NumPy array") is None:
        return None
    array[...] = second
    return checks.runs(lambda: [np.array(leaf) for leaf in jax.tree.leaves(hosts[0](array))],
                       what=f"the host function of {what}, called again on that array with new values")


NO_VMAP = "a pure_callback without a vmap_method cannot be vmapped: which vmap_method hands the host function the whole batch?"


def exercise1(unit_rows) -> None:
    """unit_rows divides each row by its norm in one pure_callback whose host function computes in NumPy (no JAX runs
    there), for any number of axes, under jit, vmap (any in_axes, nested) with one host call per batch."""
    v = jnp.array([3.0, 4.0])
    checks.close(value("jit(unit_rows)([3, 4])", lambda: jax.jit(unit_rows)(v)), np.array([0.6, 0.8], np.float32),
                 what="jit(unit_rows)([3, 4])")
    col = jnp.array([[2.0], [-3.0], [0.5], [4.0]])
    checks.close(value("unit_rows of the (4, 1) array [[2], [-3], [0.5], [4]]", lambda: unit_rows(col)),
                 np.array([[1.0], [-1.0], [1.0], [1.0]], np.float32), what="unit_rows of the (4, 1) array [[2], [-3], [0.5], [4]]",
                 hint="each row there holds one number, so each becomes 1 or -1: divide every row by its own norm, and keep every axis")
    tiny = jnp.array([[3e-10, 4e-10], [3e9, -4e9]])
    checks.close(value("unit_rows of [[3e-10, 4e-10], [3e9, -4e9]]", lambda: unit_rows(tiny)),
                 np.array([[0.6, 0.8], [0.6, -0.8]], np.float32),
                 what="unit_rows of [[3e-10, 4e-10], [3e9, -4e9]], magnitudes at the ends of the stated range",
                 hint="divide by the norm as it is: an eps added to it, or a floor under it, is felt by rows of size 1e-10")
    m = jnp.arange(1.0, 13.0).reshape(4, 3)
    checks.close(value("unit_rows of a (2, 2, 3) array", lambda: unit_rows(m.reshape(2, 2, 3))),
                 _unit(np.asarray(m)).reshape(2, 2, 3), what="unit_rows of m.reshape(2, 2, 3) (no vmap)",
                 hint="a row is a slice along the last axis, whatever the number of axes: axis=-1")
    checks.close(value("vmap(unit_rows) over 4 rows", lambda: jax.vmap(unit_rows)(m), hint=NO_VMAP), _unit(np.asarray(m)),
                 what="vmap(unit_rows) over 4 rows", hint="under vmap the host function receives the whole batch at once")
    checks.equal(value("jax.make_jaxpr(unit_rows)(m)", lambda: computing(unit_rows, m)), ["pure_callback"],
                 what="the primitives that compute in the jaxpr of unit_rows(m), at every depth (reshapes and casts left out)",
                 hint="one pure_callback computes the whole result: the norms and the division both on the host, no jnp around the call")
    returned, bound = set(), set()
    for a in (m, m.reshape(2, 2, 3)):
        types, names = host_work(lambda: jax.jit(unit_rows)(a), a, f"jax.jit(unit_rows) of a {a.shape} array")
        returned.update(types or ["(raised)"])
        bound.update(names or [])
    checks.equal(sorted(returned), ["ndarray"],
                 what="the types of what unit_rows's host function returns, called as JAX calls it (on a jax.Array), "
                      "for a (4, 3) and a (2, 2, 3) array",
                 hint="the host function gets a jax.Array: np.asarray it first, and return the NumPy result")
    checks.equal(sorted(bound), [], what="the JAX operations that ran while unit_rows's host function ran (called as JAX "
                                         "calls it), for a (4, 3) and a (2, 2, 3) array",
                 hint="compute the norms and the division in NumPy on np.asarray(a): jnp, or / on the jax.Array the host function "
                      "receives, runs JAX again from inside the callback, even if np.asarray converts the result afterwards")
    checks.equal(value("jax.make_jaxpr(jax.vmap(unit_rows))(m)", lambda: loops(jax.vmap(unit_rows), m), hint=NO_VMAP), 0,
                 what="how many loops over the batch (scans) the jaxpr of vmap(unit_rows) holds (it should make one host call)",
                 hint="which vmap_method hands the host function the whole batch?")
    checks.close(value("vmap(unit_rows, in_axes=1) over the 4 columns of m.T", lambda: jax.vmap(unit_rows, in_axes=1)(m.T),
                       hint=NO_VMAP),
                 _unit(np.asarray(m)), what="vmap(unit_rows, in_axes=1) over the 4 columns of m.T",
                 hint="whatever in_axes says, the host function receives the batch axis in front")
    checks.close(value("vmap(vmap(unit_rows)) over a (2, 2, 3) array", lambda: jax.vmap(jax.vmap(unit_rows))(m.reshape(2, 2, 3)),
                       hint="inside a vmap the host function receives the batch too: read shapes from its argument, not from x"),
                 _unit(np.asarray(m)).reshape(2, 2, 3), what="vmap(vmap(unit_rows)) over a (2, 2, 3) array")
    again = same_array_again(lambda: jax.jit(unit_rows)(v), np.array([[3.0, 4.0], [1.0, 0.0]], np.float32),
                             np.array([[4.0, 3.0], [0.0, 1.0]], np.float32), "jax.jit(unit_rows)([3, 4])")
    checks.close(again[0] if again else None, np.array([[0.8, 0.6], [0.0, 1.0]], np.float32),
                 what="unit_rows's host function on one array holding [[3, 4], [1, 0]], then [[4, 3], [0, 1]] (same object, "
                      "shape and sums)",
                 hint="compute from the values the host function receives on every call: a result kept by id, shape or "
                      "sum is stale when the values change")
    checks.close(value("jit(unit_rows)([0, 2]) after jit(unit_rows)([3, 4])", lambda: jax.jit(unit_rows)(jnp.array([0.0, 2.0]))),
                 np.array([0.0, 1.0], np.float32), what="jit(unit_rows)([0, 2]), a second call with the shape of [3, 4]",
                 hint="compute from the values the host function receives on every call: no result kept from an earlier call")


# --- Exercise 2 ----------------------------------------------------------------------------------------------------

RULE = "a derivative computed by a plain pure_callback has no derivative of its own: give it a custom_jvp rule too (section 5)"
PRIMAL = ("gammaln_cb's rule returns gammaln_cb(x) itself as its primal output, not a bare pure_callback: a second "
          "derivative differentiates that output too, and a bare callback has no derivative")
NO_VMAP_ANYWHERE = "every pure_callback that can end up under vmap needs a vmap_method, also those in the derivatives"


def primal_source(gammaln_cb, x) -> str | None:
    """The name of the primitive that computes the primal output of gammaln_cb's JVP rule, traced at x with tangent x
    (None for an output that no equation computes: an input or a constant)."""
    jaxpr = jax.make_jaxpr(lambda v, t: gammaln_cb.jvp((v,), (t,))[0])(x, x).jaxpr
    return next((eqn.primitive.name for eqn in jaxpr.eqns if jaxpr.outvars[0] in eqn.outvars), None)


def exercise2(gammaln_cb) -> None:
    """gammaln_cb and its first and second derivatives come from SciPy on every path, in the input's dtype, under jit,
    grad, vmap (any in_axes, nested) and their combinations; its rule's primal output can be differentiated."""
    x = jnp.linspace(0.5, 6.0, 6)
    xs = np.asarray(x)
    with calls_of(scipy.special.gammaln) as gammaln_calls:
        y = value("jit(gammaln_cb)(x)", lambda: jax.jit(gammaln_cb)(x))
    checks.close(y, scipy.special.gammaln(xs).astype(np.float32), what="jit(gammaln_cb)(x)")
    checks.equal(len(gammaln_calls) > 0, True, what="whether scipy.special.gammaln ran on the host while jit(gammaln_cb)(x) ran",
                 hint="compute log Γ(x) with SciPy through jax.pure_callback, not with jax.scipy or jnp")
    with calls_of(scipy.special.digamma) as digamma_calls:
        d = value("grad of sum(gammaln_cb(x))", lambda: jax.grad(lambda v: gammaln_cb(v).sum())(x))
    checks.close(d, scipy.special.digamma(xs).astype(np.float32),
                 what="grad of sum(gammaln_cb(x))", rtol=1e-5, atol=1e-5, hint="the derivative of log Γ(x) is digamma ψ(x)")
    checks.equal(len(digamma_calls) > 0, True, what="whether scipy.special.digamma ran on the host while grad of sum(gammaln_cb(x)) ran",
                 hint="compute ψ(x) with SciPy through jax.pure_callback, not with jax.scipy or jnp")
    checks.close(value("vmap(gammaln_cb) over 2 rows", lambda: jax.vmap(gammaln_cb)(x.reshape(2, 3)), hint=NO_VMAP_ANYWHERE),
                 scipy.special.gammaln(xs).reshape(2, 3).astype(np.float32), what="vmap(gammaln_cb) over 2 rows")
    checks.close(value("vmap(grad(gammaln_cb)) over x", lambda: jax.vmap(jax.grad(gammaln_cb))(x), hint=NO_VMAP_ANYWHERE),
                 scipy.special.digamma(xs).astype(np.float32), what="vmap(grad(gammaln_cb)) over x", rtol=1e-5, atol=1e-5)
    checks.close(value("vmap(vmap(gammaln_cb), in_axes=1)", lambda: jax.vmap(jax.vmap(gammaln_cb), in_axes=1)(x.reshape(2, 3)),
                       hint=NO_VMAP_ANYWHERE),
                 scipy.special.gammaln(xs).reshape(2, 3).T.astype(np.float32),
                 what="vmap(vmap(gammaln_cb), in_axes=1) over the 3 columns of a (2, 3) array")
    checks.close(value("gammaln_cb of the float16 array [1.5, 3.0]", lambda: gammaln_cb(jnp.array([1.5, 3.0], jnp.float16)),
                       hint="the host function must return what it declared: end it with .astype(a.dtype)"),
                 scipy.special.gammaln(np.array([1.5, 3.0])).astype(np.float16),
                 what="gammaln_cb of the float16 array [1.5, 3.0]", rtol=1e-3, atol=1e-3,
                 hint="the result has the input's dtype: end the host function with .astype(a.dtype)")
    checks.equal(value("tracing gammaln_cb's rule on a float32 vector", lambda: primal_source(gammaln_cb, x), hint=PRIMAL),
                 "custom_jvp_call", what="the primitive that computes the primal output of gammaln_cb's rule (a custom_jvp "
                                         "function is a custom_jvp_call)", hint=PRIMAL)
    second = value("grad(grad(gammaln_cb)) at the 0-d float32 2.5", lambda: jax.grad(jax.grad(gammaln_cb))(jnp.float32(2.5)), hint=RULE)
    checks.close(second, np.float32(scipy.special.polygamma(1, 2.5)), what="grad(grad(gammaln_cb)) at 2.5 (trigamma)",
                 rtol=1e-4, atol=1e-4)
    hess = value("hessian(sum(gammaln_cb(x)))", lambda: jax.hessian(lambda v: gammaln_cb(v).sum())(x[:3]), hint=RULE)
    checks.close(hess, np.diag(scipy.special.polygamma(1, xs[:3])).astype(np.float32),
                 what="hessian(sum(gammaln_cb(x))) for x = [0.5, 1.6, 2.7]", rtol=1e-4, atol=1e-4)
    checks.close(value("vmap(grad(grad(gammaln_cb))) over x", lambda: jax.vmap(jax.grad(jax.grad(gammaln_cb)))(x), hint=NO_VMAP_ANYWHERE),
                 scipy.special.polygamma(1, xs).astype(np.float32), what="vmap(grad(grad(gammaln_cb))) over x (trigamma)",
                 rtol=1e-4, atol=1e-4, hint="the trigamma callback runs under vmap here: it needs a vmap_method too")
    again = value("gammaln_cb and its gradient at 2.5, then at 5.0 (0-d float32)",
                  lambda: [[float(gammaln_cb(jnp.float32(v))), float(jax.grad(gammaln_cb)(jnp.float32(v)))] for v in (2.5, 5.0)])
    checks.close(np.array(again, np.float32) if again is not None else None,
                 np.array([[scipy.special.gammaln(v), scipy.special.digamma(v)] for v in (2.5, 5.0)], np.float32),
                 what="[gammaln_cb(v), grad(gammaln_cb)(v)] at v = 2.5 and then v = 5.0", rtol=1e-5, atol=1e-5,
                 hint="compute from the values the host function receives on every call: no result kept from an earlier call")
    _float16_second(gammaln_cb)
    _scipy_on_every_path(gammaln_cb)
    _hosts_on_new_values(gammaln_cb, xs)
    shifted = value("vmap(grad(grad(gammaln_cb))) at x + 1.5, after x", lambda: jax.vmap(jax.grad(jax.grad(gammaln_cb)))(x + 1.5))
    checks.close(shifted, scipy.special.polygamma(1, xs + 1.5).astype(np.float32),
                 what="vmap(grad(grad(gammaln_cb))) at x + 1.5, a second call with x's shape (trigamma)", rtol=1e-4, atol=1e-4,
                 hint="every host function computes from the values it receives on every call, the trigamma one too: "
                      "no result kept by shape")


def _float16_second(gammaln_cb) -> None:
    """The second derivative at a float16 x: float16, and computed by SciPy's polygamma."""
    with calls_of(scipy.special.polygamma) as trigamma_calls:
        second16 = value("grad(grad(gammaln_cb)) at the 0-d float16 2.5", lambda: jax.grad(jax.grad(gammaln_cb))(jnp.float16(2.5)),
                         hint="every host function returns the dtype it declared: end each with .astype(a.dtype), the "
                              "trigamma one too")
    checks.equal(str(getattr(second16, "dtype", None)), "float16", what="the dtype of grad(grad(gammaln_cb)) at a float16 x")
    checks.close(np.float32(second16) if second16 is not None else None, np.float32(scipy.special.polygamma(1, 2.5)),
                 what="grad(grad(gammaln_cb)) at the float16 2.5", rtol=2e-3, atol=2e-3)
    checks.equal(len(trigamma_calls) > 0, True,
                 what="whether scipy.special.polygamma ran on the host while grad(grad(gammaln_cb)) ran",
                 hint="the trigamma function comes from SciPy too, scipy.special.polygamma(1, x) through pure_callback: "
                      "not jax.scipy")


def _scipy_on_every_path(gammaln_cb) -> None:
    """SciPy runs eagerly, under value_and_grad and under jvp of grad, and a rule's primal output is SciPy's, to the bit."""
    with calls_of(scipy.special.gammaln) as eager_calls:
        value("gammaln_cb(x) outside jit", lambda: gammaln_cb(jnp.linspace(0.5, 6.0, 6)))
    with calls_of(scipy.special.gammaln) as value_calls:
        value("value_and_grad(gammaln_cb) at 2.5", lambda: jax.value_and_grad(gammaln_cb)(jnp.float32(2.5)))
    with calls_of(scipy.special.digamma) as jvp_calls:
        value("jvp(grad(gammaln_cb)) at 2.5", lambda: jax.jvp(jax.grad(gammaln_cb), (jnp.float32(2.5),), (jnp.float32(1.0),)))
    checks.equal([len(eager_calls) > 0, len(value_calls) > 0, len(jvp_calls) > 0], [True, True, True],
                 what="whether SciPy ran: gammaln for gammaln_cb(x) outside jit, gammaln for value_and_grad(gammaln_cb), "
                      "digamma for jvp(grad(gammaln_cb))",
                 hint="every value comes from SciPy through pure_callback on every path: eagerly too, and each rule's primal "
                      "output too (gammaln_cb(x) in gammaln_cb's rule), not jax.scipy")
    checks.equal(any(eager_calls), True,
                 what="whether scipy.special.gammaln ran inside a pure_callback's host function for gammaln_cb(x) outside jit",
                 hint="call SciPy through jax.pure_callback on every path, eagerly too: not directly on a concrete x")
    first = value("the primal output of jvp(grad(gammaln_cb)) at 2.5",
                  lambda: jax.jvp(jax.grad(gammaln_cb), (jnp.float32(2.5),), (jnp.float32(1.0),))[0])
    checks.close(first, np.float32(scipy.special.digamma(np.float32(2.5))), rtol=0, atol=0,
                 what="the primal output of jvp(grad(gammaln_cb)) at 2.5: SciPy's digamma, to the last bit",
                 hint="digamma's rule computes its primal output with SciPy through pure_callback, not with "
                      "jax.scipy.special.digamma, which differs in the last bits")


def _hosts_on_new_values(gammaln_cb, xs: np.ndarray) -> None:
    """Each host function of jvp(grad(gammaln_cb)), called on xs, then each alone on xs + 1.5, the last called first:
    its second result is gammaln, digamma or trigamma of xs + 1.5, whatever the others saw before it."""
    hosts = value("jvp(grad(gammaln_cb)) on x, its host functions watched",
                  lambda: watch.host_functions(lambda: jax.jvp(jax.grad(lambda v: gammaln_cb(v).sum()), (jnp.asarray(xs),),
                                                              (jnp.ones_like(xs),))), default=[])
    new = xs + np.float32(1.5)
    known = [f(new).astype(np.float32) for f in (scipy.special.gammaln, scipy.special.digamma,
                                                   lambda a: scipy.special.polygamma(1, a))]
    for host in hosts:
        value("a host function of jvp(grad(gammaln_cb)), called on x", lambda: host(np.array(xs)))
    stale = 0
    for host in reversed(hosts):
        got = value("a host function of jvp(grad(gammaln_cb)), called on x + 1.5", lambda: host(np.array(new)))
        leaves = [np.asarray(leaf, np.float32) for leaf in jax.tree.leaves(got)]
        stale += not any(leaf.shape == new.shape and np.allclose(leaf, k, rtol=1e-4, atol=1e-4) for leaf in leaves for k in known)
    checks.equal(stale, 0, what="how many host functions of jvp(grad(gammaln_cb)) give a stale value: called on x, then "
                                "each on x + 1.5 (the last first), their result is none of gammaln, digamma and trigamma "
                                "of x + 1.5",
                 hint="each host function computes from the values it receives on every call: none reads a value another "
                      "host function kept (the primal one need not run first: under jit(grad) JAX drops it)")


# --- Exercise 3 ----------------------------------------------------------------------------------------------------

def moments(label: str, thunk: Callable[[], Any],
            hint: str = "mean and var have shape x.shape[:-1]; a host function under vmap receives the whole batch") -> Any:
    """Run thunk() (a call of row_moments); return its result, or (None, None) after a failed check saying what it raised."""
    return value(label, thunk, hint=hint, default=(None, None))


#: What late threads were given, kept: no later call gets a buffer one of them wrote into.
_LATE_ARGS: list[Any] = []


@contextlib.contextmanager
def late_threads(seconds: float = 0.2, first_slowest: bool = True):
    """Each thread started from Python while the block runs waits before its target runs, so a host function that
    returns before its threads have finished returns rows not yet written: the k-th thread to begin (from 0) waits
    `seconds` * 2 / (k + 1) when `first_slowest`, else `seconds` * (k + 1) / 2, so that whichever thread a host
    function waits for, with one of the two orders another one is still late when it returns."""
    begun = itertools.count()

    def first_call(frame, event, arg):
        sys.settrace(None)  # once per thread
        _LATE_ARGS.append(getattr(threading.current_thread(), "_args", None))
        k = next(begun)
        time.sleep(seconds * 2 / (k + 1) if first_slowest else seconds * (k + 1) / 2)

    threading.settrace(first_call)
    try:
        yield
    finally:
        threading.settrace(None)


@contextlib.contextmanager
def c_offset():
    """While the block runs, the course's pcb_row_moments_f32 adds 1000 to every mean and variance it writes (its
    switch pcb_row_moments_offset_on, in cpp/pure_callback_kernels.cc): an answer that returns what the C function
    wrote returns values 1000 higher, one that computes them again in NumPy does not."""
    switch = ctypes.c_int.in_dll(build("pure_callback_kernels.cc").cdll, "pcb_row_moments_offset_on")
    switch.value = 1
    try:
        yield
    finally:
        switch.value = 0


def c_outputs(row_moments, label: str, x: Any) -> Any:
    """row_moments(x) while the C function adds 1000 to every mean and variance it writes: 1000 more than the true
    moments if the answer returns what the C function wrote."""
    with c_offset():
        return moments(f"row_moments({label}) while the C function adds 1000 to its results", lambda: row_moments(x))


def exercise3(row_moments) -> None:
    """row_moments returns (mean, var) of each row, both as the C function wrote them, from one pure_callback, for any
    number of axes (no rows too), under jit and vmap (any in_axes, nested), its threads (if any) waited for."""
    m = jnp.array([[1.0, 2.0, 3.0, 6.0], [2.0, 2.0, 2.0, 2.0]])
    got = moments("jit(row_moments) of a (2, 4) array", lambda: jax.jit(row_moments)(m))
    checks.equal(jax.tree.structure(got), jax.tree.structure((0, 0)), what="the structure row_moments returns (a tuple (mean, var))")
    checks.close(got[0], np.array([3.0, 2.0], np.float32), what="the means of [[1, 2, 3, 6], [2, 2, 2, 2]]")
    checks.close(got[1], np.array([3.5, 0.0], np.float32), what="the variances of [[1, 2, 3, 6], [2, 2, 2, 2]]")
    checks.equal(value("jax.make_jaxpr(row_moments)(m)", lambda: computing(row_moments, m)), ["pure_callback"],
                 what="the primitives that compute in the jaxpr of row_moments(m), at every depth (reshapes and casts left out)",
                 hint="one pure_callback returns both results, both computed by the C function: nothing in jnp around it")
    with calls_of("pcb_row_moments_f32") as c_calls:
        moments("row_moments of a (3, 4) array", lambda: row_moments(m[:, :3].T + 1.0))
    checks.equal(len(c_calls) > 0, True, what="whether the C function pcb_row_moments_f32 ran while row_moments(x) ran",
                 hint="the host function must call the C function from kernels.function(...), not compute with NumPy")
    third = np.asarray(m[:, :3].T + 1.0)
    offset = c_outputs(row_moments, "of a (3, 4) array", jnp.asarray(third))
    as_written = ("return what the C function wrote, as it wrote it: not a value computed again in NumPy, nor one kept from "
                  "an earlier call")
    checks.close(offset[0], third.mean(-1) + np.float32(1000),
                 what="the means of a (3, 4) array while the C function adds 1000 to the means it writes", hint=as_written)
    checks.close(offset[1], third.var(-1) + np.float32(1000),
                 what="the variances of a (3, 4) array while the C function adds 1000 to the variances it writes", hint=as_written)
    b = np.arange(24, dtype=np.float32).reshape(2, 3, 4) ** 1.5
    got = moments("vmap(row_moments) over a (2, 3, 4) batch", lambda: jax.vmap(row_moments)(jnp.asarray(b)),
                  hint="under vmap the host function receives the whole (2, 3, 4) batch: a pure_callback needs a vmap_method, "
                       "and the host must handle any number of axes")
    checks.close(got[0], b.mean(-1), what="the means under vmap over a (2, 3, 4) batch", rtol=1e-5,
                 hint="how many rows of length n does an array of any shape hold?")
    checks.close(got[1], b.var(-1), what="the variances under vmap over a (2, 3, 4) batch", rtol=1e-4)
    size_one = "mean and var have shape x.shape[:-1], size-1 axes included: do not squeeze"
    got = moments("jit(row_moments) of the (1, 4) array [[1, 2, 3, 6]]", lambda: jax.jit(row_moments)(m[:1]), hint=size_one)
    checks.close(got[0], np.array([3.0], np.float32), what="the means of the (1, 4) array [[1, 2, 3, 6]] (shape (1,))")
    checks.close(got[1], np.array([3.5], np.float32), what="the variances of the (1, 4) array [[1, 2, 3, 6]] (shape (1,))")
    got = moments("vmap(row_moments) over a (2, 1, 4) batch", lambda: jax.vmap(row_moments)(jnp.asarray(b[:, :1])), hint=size_one)
    checks.close(got[0], b[:, :1].mean(-1), what="the means under vmap over a (2, 1, 4) batch (shape (2, 1))", rtol=1e-5)
    checks.close(got[1], b[:, :1].var(-1), what="the variances under vmap over a (2, 1, 4) batch (shape (2, 1))", rtol=1e-4)
    got = moments("row_moments of the single row [1, 2, 3, 6]", lambda: row_moments(jnp.array([1.0, 2.0, 3.0, 6.0])),
                  hint="mean and var have shape x.shape[:-1]: () for a 1-D x")
    checks.close(got[0], np.float32(3.0), what="the mean of the 1-D x [1, 2, 3, 6] (a 0-d array)")
    checks.close(got[1], np.float32(3.5), what="the variance of the 1-D x [1, 2, 3, 6] (a 0-d array)")
    rows = np.arange(8, dtype=np.float32)[:, None] + np.array([4242.0, 4243.0, 4244.0, 4245.0], np.float32)
    for first_slowest, which in ((True, "the first to begin the latest"), (False, "the last to begin the latest")):
        with late_threads(first_slowest=first_slowest):
            got = moments(f"row_moments of an (8, 4) array, the threads it starts slow to begin ({which})",
                          lambda: row_moments(jnp.asarray(rows)))
        checks.close(got[0], rows.mean(-1), what="the means of an (8, 4) array when the threads the host function starts "
                                                 f"begin late, {which}",
                     hint="the host function returns the arrays JAX reads: wait for every thread it starts (join each) "
                          "before returning")
    b4 = np.arange(2 * 2 * 3 * 4, dtype=np.float32).reshape(2, 2, 3, 4) ** 1.25
    every_axis = "every leading axis counts: rows is the product of x.shape[:-1], x.size // n"
    got = moments("row_moments of a (2, 2, 3, 4) array", lambda: row_moments(jnp.asarray(b4)), hint=every_axis)
    checks.close(got[0], b4.mean(-1), what="the means of a (2, 2, 3, 4) array", rtol=1e-5, hint=every_axis)
    checks.close(got[1], b4.var(-1), what="the variances of a (2, 2, 3, 4) array", rtol=1e-4)
    single = c_outputs(row_moments, "of the single row [2, 4, 9]", jnp.array([2.0, 4.0, 9.0]))
    every_x = "call the C function for every x, a single row too, and return what it wrote: no NumPy shortcut"
    checks.close(single[0], np.float32(1005.0), what="the mean of the single row [2, 4, 9] while the C function adds 1000 to it",
                 hint=every_x)
    checks.close(single[1], np.float32(1000.0 + 26.0 / 3.0), hint=every_x,
                 what="the variance of the single row [2, 4, 9] while the C function adds 1000 to it")
    first = np.array([[1.0, 2.0, 3.0, 6.0], [2.0, 2.0, 2.0, 2.0]], np.float32)
    again = same_array_again(lambda: jax.jit(row_moments)(m), first, first[::-1], "jax.jit(row_moments)(m)")
    new_moments = {"means": first[::-1].mean(-1), "variances": first[::-1].var(-1)}
    checks.equal({name: any(leaf.shape == want.shape and np.allclose(leaf, want) for leaf in again or ())
                  for name, want in new_moments.items()}, {"means": True, "variances": True},
                 what="row_moments's host function on one array holding m, then m with its rows swapped (same object, "
                      "shape and sum): whether the new means and the new variances are among what it returned",
                 hint="call the C function on the values the host function receives, every call: a result kept by id, "
                      "shape or sum is stale when the values change")
    got = moments("row_moments of 2 * m + 1, after row_moments(m)", lambda: row_moments(2 * m + 1))
    checks.close(got[0], 2 * np.asarray(m).mean(-1) + 1, what="the means of 2 * m + 1, a second call with m's shape",
                 hint="compute from the values the host function receives on every call: no result kept by shape")
    got = moments("row_moments of a (0, 4) array (no rows)", lambda: row_moments(jnp.zeros((0, 4))))
    checks.equal([np.shape(part) for part in got], [(0,), (0,)], what="the shapes of mean and var for a (0, 4) array, which has no rows",
                 hint="mean and var have shape x.shape[:-1], (0,) here: declare the results from x's shape, whatever its size")
