"""Self-checks of chapter 09, "Build reverse mode from linearize and transpose": what each exercise's self-check
cell runs (see `grader.selfchecks`)."""

from __future__ import annotations

import numbers

import jax
import jax.numpy as jnp
import numpy as np
from jax.extend.core import Var
from jax.interpreters import ad

from grader.notebook import checks, watch


def _run(what, thunk, hint=None, unused=None):
    """thunk() run to completion, or `unused` after a failed check saying what it raised."""
    result = checks.runs(lambda: jax.block_until_ready(thunk()), what=what, hint=hint)
    return unused if result is None else result


# Exercise 1 ------------------------------------------------------------------------------------------------------

def jax_calls(fn, names=("vjp", "linearize", "linear_transpose")):
    """How many times fn() called jax.vjp and jax.linearize, and whether it called jax.linear_transpose: calls made
    from code outside JAX's own package, under whatever name the function was reached (jax.linearize, or linearize
    after `from jax import linearize`), seen with sys.monitoring."""
    watched = {id(getattr(jax, name)): name for name in names}
    counts = dict.fromkeys(names, 0)

    def on_call(caller, called):
        name = watched.get(id(called))
        if name is not None and not watch.from_jax(caller):
            counts[name] += 1

    with watch.calls(on_call):
        fn()
    return {"vjp": counts["vjp"], "linearize": counts["linearize"], "linear_transpose used": counts["linear_transpose"] > 0}


def kinds(cotangents):
    """Each leaf's dtype (float0 named as such) and shape."""
    kind = lambda c: "float0" if getattr(c, "dtype", None) == jax.dtypes.float0 else str(getattr(c, "dtype", type(c).__name__))
    return [(kind(c), jnp.shape(c)) for c in jax.tree.leaves(cotangents, is_leaf=lambda c: c is None)]


def _model(params, v):
    hidden = jnp.tanh(params["w"] * v + params["b"])
    return {"hidden": hidden, "total": jnp.sum(hidden * v)}


def _masked(w, n, mask):  # n is an int32 count, mask a boolean array
    return {"y": jnp.where(mask, w * n, 0.0), "count": n + 1}


def exercise1(vjp_via_linearize) -> None:
    """vjp_via_linearize matches jax.vjp on pytrees with integer and boolean leaves, runs f only once, works inside
    jit and grad, and is built from jax.linearize and jax.linear_transpose."""
    f_calls = []

    def model(params, v):
        f_calls.append(1)
        return _model(params, v)

    params = {"w": jnp.array([0.5, -1.0, 2.0]), "b": jnp.float32(0.25)}
    v = jnp.array([1.0, 2.0, -0.5])
    ct = {"hidden": jnp.array([1.0, 0.0, -2.0]), "total": jnp.float32(3.0)}
    pytree_hint = "a primal may be a pytree (params is a dict): give the primals to jax.linearize and jax.linear_transpose as they are"
    out, vjp_fn = _run("vjp_via_linearize(model, params, v), with params a dict", lambda: vjp_via_linearize(model, params, v),
                       pytree_hint, ({"hidden": None, "total": None}, None))
    checks.close(out["hidden"], jnp.tanh(params["w"] * v + params["b"]), what='out["hidden"]')
    checks.close(out["total"], jnp.sum(jnp.tanh(params["w"] * v + params["b"]) * v), what='out["total"]')
    ct_hint = "vjp_fn gets a cotangent with the structure of out and transposes the linear function linearize returned"
    cts = _run("vjp_fn(ct), called twice", lambda: [vjp_fn(ct), vjp_fn(ct)][0], ct_hint,  # a second pass, to count calls of f
               ({"b": None, "w": None}, None))
    checks.equal(jax.tree.structure(cts), jax.tree.structure(({"b": 0, "w": 0}, 0)),
                 what="the structure vjp_fn(ct) returns (a tuple with one cotangent per primal, 2 here)",
                 hint="jax.linear_transpose already returns such a tuple")
    checks.equal(sorted(cts[0]), ["b", "w"], what="the keys of the cotangent for params")
    want = jax.vjp(_model, params, v)[1](ct)
    checks.close(cts[0]["w"], want[0]["w"], what='the cotangent for params["w"]')
    checks.close(cts[0]["b"], want[0]["b"], what='the cotangent for params["b"]')
    checks.close(cts[1], want[1], what="the cotangent for v")
    checks.equal(len(f_calls), 1, what="how many times f ran (vjp_via_linearize once, then two calls of vjp_fn)",
                 hint="linearize once, outside vjp_fn; vjp_fn should only transpose what linearize recorded")
    _, sin_vjp_fn = vjp_via_linearize(jnp.sin, v)
    checks.equal(jax.tree.structure(sin_vjp_fn(v)), jax.tree.structure((0,)),
                 what="the structure vjp_via_linearize(jnp.sin, v)[1](ct) returns (with one primal, a tuple of length 1, as jax.vjp's)")
    jit_hint = "build vjp_fn from JAX functions only (jax.linear_transpose returns one), no NumPy conversions"
    checks.close(_run("jax.jit(vjp_fn)(ct)", lambda: jax.jit(vjp_fn)(ct)[1], jit_hint), want[1],
                 what="jax.jit(vjp_fn)(ct)[1]", hint=jit_hint)
    checks.close(_run("grad of sum(vjp_via_linearize(jnp.sin, q)[1](ones)[0])",
                      lambda: jax.grad(lambda q: vjp_via_linearize(jnp.sin, q)[1](jnp.ones(3))[0].sum())(v), jit_hint),
                 -jnp.sin(v), what="grad of sum(vjp_via_linearize(jnp.sin, q)[1](ones)[0]), a second derivative", rtol=1e-5, atol=1e-6)
    _check_dtypes(vjp_via_linearize, v)
    _check_integer_leaves(vjp_via_linearize, v)
    checks.equal(jax_calls(lambda: vjp_via_linearize(jnp.sin, v)[1](v)), {"vjp": 0, "linearize": 1, "linear_transpose used": True},
                 what="calls of jax.vjp, jax.linearize and jax.linear_transpose by vjp_via_linearize(jnp.sin, v) and one vjp_fn(ct)",
                 hint="linearize once in vjp_via_linearize and transpose its linear function with jax.linear_transpose; "
                      "jax.vjp is what you are rebuilding")
    _check_other_leaves(vjp_via_linearize, v)


def _check_dtypes(vjp_via_linearize, v):
    """Each cotangent keeps its primal's floating dtype, float16 and bfloat16 included."""
    v16 = jnp.array([1.0, 2.0, -0.5], jnp.float16)
    dtype_hint = "each cotangent has its primal's dtype, as jax.linear_transpose gives it: do not convert it"
    half = _run("vjp_via_linearize(lambda q: sin(q) * q, x16)[1](ones) for a float16 x16",
                lambda: vjp_via_linearize(lambda q: jnp.sin(q) * q, v16)[1](jnp.ones(3, jnp.float16)), dtype_hint, ())
    checks.equal([str(getattr(c, "dtype", None)) for c in half], ["float16"],
                 what="the dtypes of the cotangents vjp_fn returns for one float16 primal", hint=dtype_hint)
    two = _run("vjp_via_linearize(lambda q, p: sin(q) * p, x16, a bfloat16 p)[1](ones)",
               lambda: vjp_via_linearize(lambda q, p: jnp.sin(q) * p.astype(jnp.float16), v16, v.astype(jnp.bfloat16))[1](
                   jnp.ones(3, jnp.float16)), dtype_hint, ())
    checks.equal([str(getattr(c, "dtype", None)) for c in two], ["float16", "bfloat16"],
                 what="the dtypes of the cotangents for a float16 and a bfloat16 primal",
                 hint="bfloat16 is a float type to JAX but not to NumPy (np.issubdtype(bfloat16, np.inexact) is False): ask JAX "
                      "for the tangent type, jax.typeof(p).to_tangent_aval()")


def _check_integer_leaves(vjp_via_linearize, v):
    """Integer and boolean leaves get float0 cotangents, eagerly and with vjp_via_linearize itself under jit."""
    mask = jnp.array([True, False, True])
    int_ct = {"y": jnp.array([1.0, 2.0, 3.0]), "count": np.zeros((), jax.dtypes.float0)}
    int_hint = ("an integer or boolean leaf's tangent type is float0: jax.linear_transpose takes f_lin's input types from "
                "the examples you give it, and f_lin expects a float0 tangent for such a leaf")
    int_out, int_back = _run("vjp_via_linearize(masked, w, n, mask), with n an int32 and mask a boolean array",
                             lambda: vjp_via_linearize(_masked, v, jnp.int32(3), mask), int_hint, ({"count": None, "y": None}, None))
    checks.equal(str(getattr(int_out["count"], "dtype", None)), "int32", what='the dtype of out["count"] (f computes it from the int32 n)')
    int_cts = _run('vjp_fn(ct) for masked, with a float0 ct["count"]', lambda: int_back(int_ct), int_hint, ())
    checks.equal(kinds(int_cts), [("float32", (3,)), ("float0", ()), ("float0", (3,))],
                 what="the (dtype, shape) of each cotangent vjp_fn returns for masked's (float32 w, int32 n, boolean mask)",
                 hint="as jax.vjp: a float0 array of the leaf's shape for an integer or boolean primal, never None, zeros of "
                      "its dtype or float32")
    checks.close(int_cts[0] if int_cts else None, jax.vjp(_masked, v, jnp.int32(3), mask)[1](int_ct)[0],
                 what="the cotangent for w in masked")
    traced_hint = ("under jax.jit the integer leaf n is a tracer: build the float0 examples from its type "
                   "(jax.typeof(p).to_tangent_aval(), or a jax.ShapeDtypeStruct), not with NumPy on its value")
    in_jit = _run("jax.jit(lambda u, n: vjp_via_linearize(masked, u, n, mask)[1](ct))(w, n), n traced",
                  lambda: jax.jit(lambda u, n: vjp_via_linearize(_masked, u, n, mask)[1](int_ct))(v, jnp.int32(3)), traced_hint, ())
    checks.equal(kinds(in_jit), [("float32", (3,)), ("float0", ()), ("float0", (3,))],
                 what="the (dtype, shape) of each cotangent for masked when vjp_via_linearize itself runs inside jax.jit",
                 hint=traced_hint)
    mixed_hint = ("every integer and boolean dtype gets float0 (int8, uint8, ... too), and a primal may be a plain Python "
                  "number, as jax.vjp allows")
    mixed = _run("vjp_via_linearize(lambda a, n, k: sin(a) * n + k, v, 3, k)[1](ones), with n the Python int 3 and k a uint8",
                 lambda: vjp_via_linearize(lambda a, n, k: jnp.sin(a) * n + k, v, 3, jnp.uint8(2))[1](jnp.ones(3)), mixed_hint, ())
    checks.equal(kinds(mixed), [("float32", (3,)), ("float0", ()), ("float0", ())],
                 what="the (dtype, shape) of each cotangent for (float32 v, the Python int 3, a uint8 k)", hint=mixed_hint)
    weak = _run("vjp_via_linearize(lambda a, s: a * s, v, 2.0)[1](ones), with s the Python float 2.0",
                lambda: vjp_via_linearize(lambda a, s: a * s, v, 2.0)[1](jnp.ones(3)), mixed_hint, ())
    checks.equal([str(jax.typeof(c)) for c in weak], [str(jax.typeof(c)) for c in jax.vjp(lambda a, s: a * s, v, 2.0)[1](jnp.ones(3))],
                 what="the types (jax.typeof) of the cotangents for (float32 v, the Python float 2.0), against jax.vjp's",
                 hint="a Python float's cotangent keeps its weak type, ~float32 (section 1): jax.typeof(p).to_tangent_aval() "
                      "keeps it, a ShapeDtypeStruct of the dtype alone drops it")


def _check_other_leaves(vjp_via_linearize, v):
    """Complex and int4 leaves, grad through out, and vjp_fn returned from a jitted function."""
    z = jnp.array([1 + 2j, -0.5j], jnp.complex64)
    z_ct = jnp.array([1 - 1j, 2.0 + 0j], jnp.complex64)
    z_back = _run("vjp_via_linearize(lambda a: a * a, z)[1](ct) for a complex64 z",
                  lambda: vjp_via_linearize(lambda a: a * a, z)[1](z_ct),
                  "a complex leaf has a complex tangent (jax.typeof(p).to_tangent_aval() says which): only integers and bools get float0", ())
    checks.close(z_back[0] if z_back else None, jax.vjp(lambda a: a * a, z)[1](z_ct)[0],
                 what="the cotangent of a * a for a complex64 z, as jax.vjp gives it")
    narrow = _run("vjp_via_linearize(lambda a, n: a * 2, v, an int4 n)[1](ones)",
                  lambda: vjp_via_linearize(lambda a, n: a * 2, v, jnp.array([1, -2], jnp.int4))[1](jnp.ones(3)),
                  "every integer dtype gets float0, ml_dtypes' int4 too: ask JAX for the tangent type, not np.integer", ())
    checks.equal(kinds(narrow), [("float32", (3,)), ("float0", (2,))], what="the (dtype, shape) of the cotangents for (float32 v, an int4 n)")
    checks.close(_run("grad of sum(vjp_via_linearize(jnp.sin, v)[0])", lambda: jax.grad(lambda u: vjp_via_linearize(jnp.sin, u)[0].sum())(v)),
                 jnp.cos(v), what="grad through out, the first result of vjp_via_linearize(jnp.sin, v)",
                 hint="return the primal output as linearize gives it: stop_gradient makes every gradient through it 0")
    leave_hint = ("return the function jax.linear_transpose gives (a pytree, like jax.vjp's), not a closure of your own, "
                  "which cannot leave a jitted function (section 1)")
    try:  # the error's own text names the notebook's file: only its kind is shown
        from_jit, left = jax.jit(lambda u: vjp_via_linearize(jnp.sin, u))(v)[1](jnp.ones(3))[0], ""
    except Exception as err:
        if checks.is_stub(err):
            raise
        from_jit, left = None, type(err).__name__
    checks.equal(left, "", what="the kind of error returning vjp_fn from a jitted function and applying it raised (none is expected)",
                 hint=leave_hint)
    checks.close(from_jit, jnp.cos(v), what="vjp_fn returned from a jitted function, applied to ones", hint=leave_hint)


# Exercise 2 ------------------------------------------------------------------------------------------------------

def rev_derivatives(fn, x, ct, w):
    """What check_grads(order=2, modes=["rev"]) differentiates: the VJP of fn at x for ct, then the VJP of
    (x, ct) -> that VJP for w, which transposes the transpose rule too."""
    pullback = lambda u, c: jax.vjp(fn, u)[1](c)[0]
    return (pullback(x, ct), *jax.vjp(pullback, x, ct)[1](w))


def check_rev_derivatives(fn, ref, x, ct, w, label):
    """The first and second-order VJPs of fn against those of its jax.numpy reference."""
    got = _run(f"the first and second-order VJPs of {label}", lambda: rev_derivatives(fn, x, ct, w),
               "second derivatives trace your rule: compute with the primitive or jax.numpy, not NumPy", (None, None, None))
    want = rev_derivatives(ref, x, ct, w)
    checks.close(got[0], want[0], what=f"the VJP of {label}", rtol=1e-5, atol=1e-5)
    checks.close(got[1], want[1], what=f"the second-order VJP of {label} with respect to x", rtol=1e-5, atol=1e-5)
    checks.close(got[2], want[2], what=f"the second-order VJP of {label} with respect to the cotangent",
                 rtol=1e-5, atol=1e-5, hint="the transpose of your rule's computation is transposed in turn: build it from JAX operations")


def cotangents(out):
    """What a transpose rule returned: its class, and each entry's class and abstract value."""
    entries = out if isinstance(out, (tuple, list)) else [out]
    return type(out), [(type(c), str(getattr(c, "aval", None))) for c in entries]


def exercise2(weighted_running_sum_transpose, weighted_running_sum) -> None:
    """weighted_running_sum has the right gradients for either operand and both, in both directions, along any axis,
    under jit and vmap, in float16 and complex64, and to second order; the rule returns (cotangent, None) or
    (None, cotangent), and ad.Zero for a symbolic-zero cotangent."""
    v = jnp.array([1.0, 2.0, 3.0, 4.0])
    w = jnp.array([2.0, 1.0, 0.5, 3.0])
    weights = jnp.array([1.0, 10.0, 100.0, 1000.0])
    loss = lambda a, b, **kw: (weighted_running_sum(a, b, **kw) * weights).sum()
    forward, backward = np.array([1111.0, 1110.0, 1100.0, 1000.0], np.float32), np.array([1.0, 11.0, 111.0, 1111.0], np.float32)
    grad_hint = "w_j v_j was added into every output from j on: sum ct the other way, then multiply by the known operand"
    checks.close(_run("grad with respect to v of sum(weighted_running_sum(w, v) * [1, 10, 100, 1000])",
                      lambda: jax.grad(loss, argnums=1)(w, v), grad_hint), w * forward,
                 what="grad with respect to v of sum(weighted_running_sum(w, v) * [1, 10, 100, 1000])", hint=grad_hint)
    checks.close(_run("grad with respect to w of the same", lambda: jax.grad(loss, argnums=0)(w, v), grad_hint), v * forward,
                 what="grad with respect to w of sum(weighted_running_sum(w, v) * [1, 10, 100, 1000])",
                 hint="the rule is also called with w undefined and v known: the cotangent is then the first entry")
    checks.close(_run("grad with respect to v, reverse=True", lambda: jax.grad(lambda b: loss(w, b, reverse=True))(v), grad_hint),
                 w * backward, what="grad with respect to v of sum(weighted_running_sum(w, v, reverse=True) * [1, 10, 100, 1000])")
    both = _run("jax.grad(..., argnums=(0, 1)) with reverse=True",
                lambda: jax.grad(lambda a, b: loss(a, b, reverse=True), argnums=(0, 1))(w, v), grad_hint, (None, None))
    checks.close(both[0], v * backward, what="the gradient for w when both operands are differentiated (argnums=(0, 1)), reverse=True")
    checks.close(both[1], w * backward, what="the gradient for v when both operands are differentiated (argnums=(0, 1)), reverse=True")
    _check_axes_and_tracers(weighted_running_sum, loss, w, v)
    g16 = _run("grad with respect to v in float16", lambda: jax.grad(
        lambda b: (weighted_running_sum(w.astype(jnp.float16), b) * weights.astype(jnp.float16)).sum())(v.astype(jnp.float16)))
    checks.equal(str(getattr(g16, "dtype", None)), "float16", what="the dtype of the gradient for float16 w and v",
                 hint="the cotangent has its operand's dtype: compute it from ct and the known operand, with no float32 constant")
    _check_rule_by_hand(weighted_running_sum_transpose, w, v, weights)
    check_rev_derivatives(lambda u: weighted_running_sum(jnp.cos(u), jnp.sin(u)), lambda u: jnp.cumsum(jnp.cos(u) * jnp.sin(u)), v,
                          jnp.array([1.0, -2.0, 0.5, 3.0]), jnp.array([0.5, 1.0, -1.0, 2.0]), "weighted_running_sum(cos(x), sin(x))")
    mixed_ct = jnp.array([1e4, 1e-3, 1e-3, 2e-3])
    checks.close(_run("grad with respect to v for the cotangent [1e4, 1e-3, 1e-3, 2e-3]",
                      lambda: jax.vjp(lambda b: weighted_running_sum(w, b), v)[1](mixed_ct)[0]),
                 jax.vjp(lambda b: jnp.cumsum(w * b), v)[1](mixed_ct)[0], rtol=1e-5, atol=0,
                 what="the cotangent of v for a cotangent of mixed sizes, [1e4, 1e-3, 1e-3, 2e-3]",
                 hint="take the running sum in the other direction (reverse=not reverse): a total minus the running sum loses the small terms")
    _check_complex(weighted_running_sum, w, v)


def _check_axes_and_tracers(weighted_running_sum, loss, w, v):
    """Along axis 0 and 1 of a (2, 3) array, under jax.jit and jax.vmap."""
    grid, scale = jnp.arange(6.0).reshape(2, 3), jnp.array([[1.0, 2.0, 0.5], [3.0, 1.0, 2.0]])
    grid_ct = jnp.array([[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]])
    axis_hint = "the parameter axis says which axis the cotangent must be summed along"
    checks.close(_run("grad with respect to v of a weighted running sum along axis 0 of a (2, 3) array",
                      lambda: jax.grad(lambda b: (weighted_running_sum(scale, b, 0) * grid_ct).sum())(grid), axis_hint),
                 scale * np.array([[11.0, 22.0, 33.0], [10.0, 20.0, 30.0]], np.float32),
                 what="grad with respect to v of sum(weighted_running_sum(w, v, 0) * [[1, 2, 3], [10, 20, 30]]) for (2, 3) w and v",
                 hint=axis_hint)
    traced_hint = ("under jit and vmap, ct and the known operand are tracers with no values yet: decide only with "
                   "type(ct) is ad.Zero and ad.is_undefined_primal, never on values (no if on jnp.any(ct), no float(), no NumPy)")
    checks.close(_run("jax.jit(jax.grad(...)) with respect to w, along axis 1 of (2, 3) arrays",
                      lambda: jax.jit(jax.grad(lambda a: (weighted_running_sum(a, grid, 1) * grid_ct).sum()))(scale), traced_hint),
                 grid * np.array([[6.0, 5.0, 3.0], [60.0, 50.0, 30.0]], np.float32),
                 what="jax.jit(jax.grad(...)) with respect to w of sum(weighted_running_sum(w, v, 1) * [[1, 2, 3], [10, 20, 30]])",
                 hint=traced_hint)
    checks.close(_run("jax.vmap(jax.grad(...)) with respect to v, reverse=True, over the rows of [v, -v]",
                      lambda: jax.vmap(jax.grad(lambda b: loss(w, b, reverse=True)))(jnp.stack([v, -v])), traced_hint),
                 np.tile(w * np.array([1.0, 11.0, 111.0, 1111.0], np.float32), (2, 1)),
                 what="jax.vmap(jax.grad(...)) with respect to v of sum(weighted_running_sum(w, v, reverse=True) * [1, 10, 100, 1000]) "
                      "over the rows of [v, -v]", hint=traced_hint)


def _check_rule_by_hand(weighted_running_sum_transpose, w, v, weights):
    """The rule called by hand: (None, cotangent) for a known w, and ad.Zero for a symbolic-zero cotangent."""
    def rule(label, ct, a, b, **params):
        return _run(f"weighted_running_sum_transpose({label})", lambda: weighted_running_sum_transpose(ct, a, b, **params),
                    "test type(ct) is ad.Zero first (a Zero is not an array), and ad.is_undefined_primal for the operand")

    undefined_v = ad.UndefinedPrimal(jax.typeof(v))
    checks.equal(cotangents(rule("ct, w, UndefinedPrimal, axis=0, reverse=False", weights, w, undefined_v, axis=0, reverse=False)),
                 (tuple, [(type(None), "None"), (type(v), "float32[4]")]),
                 what="the classes and avals of what the rule returns for a known w and an undefined v (should be (None, a float32[4] array))",
                 hint="one entry per operand, in their order: None for the known w, the cotangent for v")
    zero_ct = ad.Zero(jax.typeof(v).to_tangent_aval())
    checks.equal(cotangents(rule("ad.Zero, w, UndefinedPrimal, axis=0, reverse=False", zero_ct, w, undefined_v, axis=0, reverse=False)),
                 (tuple, [(type(None), "None"), (ad.Zero, "float32[4]")]),
                 what="what a symbolic-zero cotangent gives for a known w and an undefined v (should be (None, ad.Zero of shape (4,)))")
    checks.equal(cotangents(rule("ad.Zero, UndefinedPrimal, v, axis=0, reverse=True", zero_ct, ad.UndefinedPrimal(jax.typeof(w)), v,
                                 axis=0, reverse=True)),
                 (tuple, [(ad.Zero, "float32[4]"), (type(None), "None")]),
                 what="what a symbolic-zero cotangent gives for an undefined w and a known v (should be (ad.Zero of shape (4,), None))")


def _check_complex(weighted_running_sum, w, v):
    """complex64 operands: the transpose, not the adjoint."""
    wc, vc = (w + 1j * v).astype(jnp.complex64), (v - 0.5j * w).astype(jnp.complex64)
    ctc = jnp.array([1 + 2j, -1j, 0.5, 2 - 1j], jnp.complex64)
    complex_hint = ("JAX transposes, it does not take adjoints: multiply by the known operand as it is, with no conjugate "
                    "(mul's own transpose rule does the same for complex numbers)")
    got = _run("jax.vjp(weighted_running_sum, w, v)[1](ct) for complex64 w and v",
               lambda: jax.vjp(weighted_running_sum, wc, vc)[1](ctc), complex_hint, (None, None))
    want = jax.vjp(lambda a, b: jnp.cumsum(a * b), wc, vc)[1](ctc)
    checks.close(got[0], want[0], what="the cotangent of w for complex64 w and v", rtol=1e-5, atol=1e-5, hint=complex_hint)
    checks.close(got[1], want[1], what="the cotangent of v for complex64 w and v", rtol=1e-5, atol=1e-5, hint=complex_hint)


# Exercise 3 ------------------------------------------------------------------------------------------------------

def ints(found):
    """A list of indices with NumPy integers (np.flatnonzero's) as Python ints, so that they compare as equal."""
    if isinstance(found, list) and all(isinstance(i, numbers.Integral) and not isinstance(i, bool) for i in found):
        return [int(i) for i in found]
    return found


def exercise3(transposed_equations) -> None:
    """transposed_equations finds the equations that depend on the linear inputs: through every input (Literals
    passed over) and every output of a listed equation, whatever its dtype, nested jaxprs counted as one equation."""
    def found(label, jaxpr, linear):
        return ints(_run(f"transposed_equations on {label}", lambda: transposed_equations(jaxpr, linear),
                         "eqn.invars holds Literals too, which cannot go in a set: test isinstance(var, Var) before looking one up"))

    k = jnp.arange(3.0)
    v = jnp.ones(3)
    first = jax.make_jaxpr(lambda u: (u * jnp.cos(k)).sum())(v).jaxpr          # cos, mul, reduce_sum
    checks.equal(found("lambda u: (u * cos(k)).sum()", first, [True]), [1, 2], what="lambda u: (u * cos(k)).sum()")
    second = jax.make_jaxpr(lambda u, w: ((u * 2.0) + w * jnp.exp(k)).sum())(v, v).jaxpr   # mul, exp, mul, add, reduce_sum
    checks.equal(found("lambda u, w: ((u * 2.0) + w * exp(k)).sum()", second, [True, False]), [0, 3, 4],
                 what="lambda u, w: ((u * 2.0) + w * exp(k)).sum(), linear in u",
                 hint="an equation is transposed when an input is a linear input (linear[i] is True) or an output of an equation that is transposed")
    checks.equal(found("the same program, linear in w", second, [False, True]), [2, 3, 4], what="the same program, linear in w")
    checks.equal(found("the same program, with no linear input", second, [False, False]), [],
                 what="the same program, with no linear input ([False, False])", hint="nothing depends on a linear input: return []")
    nested = jax.make_jaxpr(lambda u: jnp.cumsum(u * jnp.sin(k)) + jnp.cumsum(k))(v).jaxpr   # sin, mul, jit, jit, add
    checks.equal(found("lambda u: cumsum(u * sin(k)) + cumsum(k)", nested, [True]), [1, 2, 4],
                 what="lambda u: cumsum(u * sin(k)) + cumsum(k) (two jit equations)",
                 hint="a jit equation is one equation: look at its invars, not inside it")
    late = jax.make_jaxpr(lambda u: (u * 3.0, jnp.exp(k) * 2.0, -(u * 0.5)))(v).jaxpr   # mul, exp, mul, mul, neg
    checks.equal(found("lambda u: (u * 3.0, exp(k) * 2.0, -(u * 0.5))", late, [True]), [0, 3, 4],
                 what="lambda u: (u * 3.0, exp(k) * 2.0, -(u * 0.5)), a constant computed between linear equations")
    front = jax.make_jaxpr(lambda u: (2.0 * jnp.sin(k) + 0.5 * u).sum())(v).jaxpr   # sin, mul, mul, add, reduce_sum
    checks.equal(found("lambda u: (2.0 * sin(k) + 0.5 * u).sum()", front, [True]), [2, 3, 4],
                 what="lambda u: (2.0 * sin(k) + 0.5 * u).sum(), a Literal before the linear input (mul 0.5 u)",
                 hint="a Literal can come first in eqn.invars (0.5 * u is `mul 0.5 u`): look at every input, passing over only the Literals")
    multi = jax.make_jaxpr(lambda u, w: jnp.split(u * w, 3)[1] + jnp.split(w, 3)[0])(v, v).jaxpr   # mul, split, split, add
    checks.equal(found("lambda u, w: split(u * w, 3)[1] + split(w, 3)[0]", multi, [True, False]), [0, 1, 3],
                 what="lambda u, w: split(u * w, 3)[1] + split(w, 3)[0], linear in u (split has three outputs)",
                 hint="an equation can have several outputs: every one of eqn.outvars depends on the linear input")
    unused = jax.make_jaxpr(lambda u: (u * 2.0, u * 5.0)[0])(v).jaxpr   # mul, mul: the second reaches no output
    checks.equal(found("lambda u: (u * 2.0, u * 5.0)[0]", unused, [True]), [0, 1],
                 what="lambda u: (u * 2.0, u * 5.0)[0], whose second mul reaches no output",
                 hint="list every equation that depends on a linear input, whether or not it reaches an output")
    _check_dtypes_and_nesting(found, k, v)


def _check_dtypes_and_nesting(found, k, v):
    """bool outputs, jit equations seen from outside, several linear inputs, and an effect."""
    masked = jax.make_jaxpr(lambda u: jnp.where(u > 0, u, 0.0))(v).jaxpr
    checks.equal(found("lambda u: where(u > 0, u, 0.0)", masked, [True]), list(range(len(masked.eqns))),
                 what="lambda u: where(u > 0, u, 0.0): every equation depends on u, the bool-valued gt too",
                 hint="an equation whose outputs are integer or bool still depends on the linear input: list it")
    stepped = jax.make_jaxpr(lambda u: (u > 0).astype(jnp.float32) * k)(v).jaxpr   # gt, convert_element_type, mul
    checks.equal(found("lambda u: (u > 0).astype(float32) * k", stepped, [True]), [0, 1, 2],
                 what="lambda u: (u > 0).astype(float32) * k: the bool output of gt is converted, then multiplied",
                 hint="an equation that reads an output of a listed equation depends on u too, whatever that output's dtype (bool here)")
    inner_ignores = jax.make_jaxpr(lambda u, w: jax.jit(lambda a, b: b * 2.0)(u, w) + u)(v, v).jaxpr
    checks.equal(found("lambda u, w: jit(lambda a, b: b * 2.0)(u, w) + u", inner_ignores, [True, False]), [0, 1],
                 what="lambda u, w: jit(lambda a, b: b * 2.0)(u, w) + u, linear in u: the jit equation takes u (its body ignores it)",
                 hint="a jit equation is one equation: it depends on u when u is among its invars, whatever its body does")
    inner_split = jax.make_jaxpr(lambda u, w: jax.jit(lambda a, b: (a * 2.0, b * 3.0))(u, w)[1] * k)(v, v).jaxpr   # jit, mul
    checks.equal(found("lambda u, w: jit(lambda a, b: (a * 2.0, b * 3.0))(u, w)[1] * k", inner_split, [True, False]), [0, 1],
                 what="lambda u, w: jit(lambda a, b: (a * 2.0, b * 3.0))(u, w)[1] * k, linear in u: the mul reads an output of a "
                      "jit that takes u",
                 hint="a jit equation is one equation: when it depends on u, every one of its outputs does, whatever its body computes them from")
    both = jax.make_jaxpr(lambda u, w: (jnp.sin(k) * w + u * 2.0).sum())(v, v).jaxpr
    checks.equal(found("lambda u, w: (sin(k) * w + u * 2.0).sum(), linear in both", both, [True, True]), [1, 2, 3, 4],
                 what="lambda u, w: (sin(k) * w + u * 2.0).sum(), linear in both u and w",
                 hint="start from every input whose linear entry is True, not only the first")
    effect = jax.make_jaxpr(lambda u: (jax.debug.callback(lambda: None), jnp.cos(k) * u)[1])(v).jaxpr   # debug_callback, cos, mul
    checks.equal(found("lambda u: (jax.debug.callback(lambda: None), cos(k) * u)[1]", effect, [True]), [2],
                 what="lambda u: (jax.debug.callback(lambda: None), cos(k) * u)[1], linear in u: a callback (an effect), then cos and mul",
                 hint="the callback takes no linear input: an effect makes the backward pass run, it does not make an equation depend on u")
    reads = jax.make_jaxpr(lambda u: (jax.debug.callback(lambda a: None, u), u * 2.0)[1])(v).jaxpr   # debug_callback(u), mul
    checks.equal(found("lambda u: (jax.debug.callback(lambda a: None, u), u * 2.0)[1]", reads, [True]), [0, 1],
                 what="lambda u: (jax.debug.callback(lambda a: None, u), u * 2.0)[1], linear in u: a callback that reads u, then mul",
                 hint="an equation with an effect is listed like any other when one of its inputs depends on u: the callback "
                      "reads u, so the backward pass sets it aside (its transpose does nothing)")


# Exercise 4 ------------------------------------------------------------------------------------------------------

def residuals_of(fn, x):
    """For each constant of the tangent jaxpr of jax.linearize(fn, x), whether it is the output jax.linearize returned."""
    y, fn_lin = jax.linearize(fn, x)
    return [c is y for c in jax.make_jaxpr(fn_lin)(x).consts]


def vjp_residuals_of(fn, x):
    """For each array jax.vjp(fn, x)'s function holds (its pytree leaves, the residuals), whether it is the output."""
    y, fn_vjp = jax.vjp(fn, x)
    return [leaf is y for leaf in jax.tree.leaves(fn_vjp)]


def jit_split(fn, x):
    """jax.linearize(jax.jit(fn), x) applied to a tangent, traced: (how many arrays the forward call returns, how
    many inputs of the linear call it returned: where among them does not matter)."""
    jaxpr = jax.make_jaxpr(lambda v, v_dot: jax.linearize(jax.jit(fn), v)[1](v_dot))(x, x).jaxpr
    fwd_call, lin_call = jaxpr.eqns
    return len(fwd_call.outvars), sum(isinstance(var, Var) and var in fwd_call.outvars for var in lin_call.invars)


def exercise4(logistic_p, logistic_jvp_calls) -> None:
    """logistic's linearization rule gives the right derivatives, is the one grad uses, binds logistic_p once, keeps
    the output itself as its one residual (on the linearize, vjp and jit paths), works to second order, at large |x|
    and in bfloat16."""
    logistic = logistic_p.bind
    v = jnp.array([0.5, -1.0, 2.0, 0.0])
    s = 1 / (1 + np.exp(-np.array([0.5, -1.0, 2.0, 0.0], np.float32)))
    slope = (s * (1 - s)).astype(np.float32)
    jax_hint = "compute with jax.numpy on v and on the residual (not NumPy, not a global): they are traced under jit, vmap and grad"
    logistic_jvp_calls.clear()
    checks.close(_run("grad of sum(logistic(x))", lambda: jax.grad(lambda u: logistic(u).sum())(v), jax_hint), slope,
                 what="grad of sum(logistic(x)) at x = [0.5, -1, 2, 0]", rtol=1e-5)
    checks.equal(len(logistic_jvp_calls), 0, what="calls of the JVP rule during jax.grad",
                 hint="the answer cell registers your rule in ad_internal.primitive_linearizations; do not call logistic_jvp from it")
    checks.equal(_run("tracing jax.value_and_grad of sum(logistic(x)) with make_jaxpr",
                      lambda: [e.primitive is logistic_p for e in jax.make_jaxpr(jax.value_and_grad(lambda u: logistic(u).sum()))(v).eqns].count(True),
                      jax_hint),
                 1, what="the number of equations of logistic_p in the jaxpr of jax.value_and_grad(lambda u: logistic(u).sum())",
                 hint="bind logistic(v) once and return it as primal_out: a second logistic(v) is another equation, and "
                      "logistic_ref (jax.nn.sigmoid) binds JAX's own primitive instead")
    t = jnp.array([1.0, 2.0, -1.0, 3.0])
    checks.close(_run("jax.linearize(logistic, x)[1](t)", lambda: jax.linearize(logistic, v)[1](t), jax_hint), slope * np.array([1, 2, -1, 3], np.float32),
                 what="jax.linearize(logistic, x)[1](t) for t = [1, 2, -1, 3]", rtol=1e-5)
    ct = jnp.array([2.0, 1.0, 0.5, -1.0])
    checks.close(_run("jax.vjp(logistic, x)[1](ct)", lambda: jax.vjp(logistic, v)[1](ct)[0], jax_hint), slope * np.array([2, 1, 0.5, -1], np.float32),
                 what="jax.vjp(logistic, x)[1](ct)[0] for ct = [2, 1, 0.5, -1]", rtol=1e-5)
    residual_hint = ("keep primal_out itself as the residual, and compute the slope from it inside linearized: an array of "
                     "slopes (as cube's rule saved), the input v, a second logistic(v), or an array the linear part closes "
                     "over (a jnp.float32(1.0) made in the rule) is another constant")
    checks.equal(_run("the constants of logistic's tangent jaxpr", lambda: residuals_of(logistic, v), jax_hint), [True],
                 what="for each constant of the tangent jaxpr of jax.linearize(logistic, x), whether it is the y jax.linearize returned",
                 hint=residual_hint)
    checks.equal(_run("the leaves of jax.vjp(logistic, x)[1]", lambda: vjp_residuals_of(logistic, v), jax_hint), [True],
                 what="for each array jax.vjp(logistic, x)[1] holds (its pytree leaves), whether it is the output jax.vjp returned",
                 hint="jax.vjp and jax.grad call the rule with is_vjp=True: keep the output as the residual there too")
    checks.equal(_run("jax.linearize(jax.jit(logistic), x), traced", lambda: jit_split(logistic, v), jax_hint), (1, 1),
                 what="under jax.jit, (how many arrays the forward call returns, how many of them the linear call reads)",
                 hint="with the output as the only residual, the forward call returns one array, which the linear call reads with the tangent")
    s3 = 1 / (1 + np.exp(np.float32(-0.3)))
    checks.close(_run("grad(grad(logistic)) at 0.3", lambda: jax.grad(jax.grad(logistic))(jnp.float32(0.3)), jax_hint),
                 np.float32(s3 * (1 - s3) * (1 - 2 * s3)), what="the second derivative at 0.3, grad(grad(logistic)) (s (1 - s) (1 - 2 s))",
                 rtol=1e-4, hint="the residual is differentiated in turn: no stop_gradient on it, and compute with JAX operations")
    primal_hint = "primal_out is differentiated too, by every derivative taken around this one: return logistic(v) as it is, with no stop_gradient"
    checks.close(_run("grad of the value jax.value_and_grad returns",
                      lambda: jax.grad(lambda u: jax.value_and_grad(lambda q: logistic(q).sum())(u)[0])(v), primal_hint),
                 slope, what="grad of the value that jax.value_and_grad(lambda u: logistic(u).sum()) returns", rtol=1e-5, hint=primal_hint)
    big = jnp.array([-100.0, 100.0, 30.0])
    checks.close(_run("grad of sum(logistic(x)) at [-100, 100, 30]", lambda: jax.grad(lambda u: logistic(u).sum())(big), jax_hint),
                 np.zeros(3, np.float32), atol=1e-12, what="grad of sum(logistic(x)) at x = [-100, 100, 30] (slopes of 0, 0 and about 1e-13)",
                 hint="from the output s, s * (1 - s) stays finite: exp(100) overflows float32")
    v16 = v.astype(jnp.bfloat16)
    dtype_hint = "compute in v's own dtype: a float32 constant (jnp.float32(1.0)) turns a bfloat16 tangent into float32"
    checks.equal(str(getattr(_run("jax.linearize(logistic, x)[1](t) for a bfloat16 x",
                                  lambda: jax.linearize(logistic, v16)[1](t.astype(jnp.bfloat16)), dtype_hint), "dtype", None)),
                 "bfloat16", what="the dtype of jax.linearize(logistic, x)[1](t) for a bfloat16 x", hint=dtype_hint)
    checks.equal(str(getattr(_run("grad of sum(logistic(x)) for a bfloat16 x", lambda: jax.grad(lambda u: logistic(u).sum())(v16), dtype_hint),
                             "dtype", None)),
                 "bfloat16", what="the dtype of grad of sum(logistic(x)) for a bfloat16 x", hint=dtype_hint)
