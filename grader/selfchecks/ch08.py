"""Self-checks of chapter 08, "JVP, transpose and batching rules": what each exercise's self-check cell runs (see
`grader.selfchecks`).

The checks compare what `jax.jvp`, `jax.grad`, `jax.hessian`, `jax.vmap` and `jax.jit` give through your rules
with the same computation written in `jax.numpy`; call your rules by hand with symbolic zeros (`ad.Zero`) and
undefined operands (`ad.UndefinedPrimal`); read jaxprs to see which primitives a program runs; and watch that JAX
runs the very rule you wrote (the start of its code is counted while a transformation runs, however the rule was
reached).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax.interpreters import ad

from grader.notebook import checks, watch
from grader.selfchecks import primitive_names

# ---- helpers shared by the exercises -------------------------------------------------------------------------


def run(what: str, thunk, hint: str | None = None, unused=None):
    """thunk()'s result, waited for; or `unused` after a failed check saying what it raised."""
    result = checks.runs(lambda: jax.block_until_ready(thunk()), what=what, hint=hint)
    return unused if result is None else result


def seen(out):
    """What a rule returned, as plain data: for each entry of a tuple or list, its class's name ("Zero" for a
    symbolic zero) and its aval's shape (None stays None)."""
    if isinstance(out, (tuple, list)):
        return [seen(entry) for entry in out]
    return None if out is None else (type(out).__name__, getattr(getattr(out, "aval", None), "shape", None))


def avals(out) -> list[str]:
    """The abstract value of each entry of what a rule returned, as text ("None" for None)."""
    return [str(getattr(entry, "aval", None)) for entry in (out or ())]


def dtype_of(a) -> str | None:
    return None if getattr(a, "dtype", None) is None else str(a.dtype)


def zero_of(value):
    """A symbolic zero of `value`'s tangent type."""
    return ad.Zero(jax.typeof(value).to_tangent_aval())




def _code_of(fn):
    """The code object that runs when `fn` is called (through a functools.partial, a method or a callable object),
    or None."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    fn = getattr(fn, "__func__", fn)
    code = getattr(fn, "__code__", None)
    if code is None and callable(fn):
        code = getattr(getattr(type(fn), "__call__", None), "__code__", None)
    return code


def ran(fn, thunk) -> bool:
    """Whether `fn`'s code started while thunk() ran (in any thread): JAX ran that very rule, however it was reached.
    True when `fn` has no Python code to watch (nothing can be told then); thunk() raising counts as not run."""
    code = _code_of(fn)
    if code is None:
        return True
    started = []

    def on_call(caller, called):
        if caller is None:
            started.append(1)

    probe = type("Probe", (), {"__code__": code})()
    try:
        with watch.calls(on_call, starts_of=probe):
            jax.block_until_ready(thunk())
    except Exception:
        pass  # what the thunk raised is reported by the checks that call it
    return bool(started)


def derivatives(f, args):
    """What check_grads(order=2, modes=["fwd", "rev"]) differentiates, along fixed random directions: f's JVP, the
    JVP of (args, tangents) -> that JVP, f's VJP, and the VJP of (args, cotangent) -> that VJP, each flattened."""
    rng = np.random.default_rng(0)
    like = lambda tree: jax.tree.map(lambda a: jnp.asarray(rng.standard_normal(jnp.shape(a)), jnp.result_type(a)), tree)
    flat = lambda tree: jnp.concatenate([jnp.ravel(leaf) for leaf in jax.tree.leaves(tree)])
    jvp = lambda p, t: jax.jvp(f, p, t)[1]
    vjp = lambda p, c: jax.vjp(f, *p)[1](c)
    tangents = like(args)
    out_dot = jvp(args, tangents)
    cotangent = like(out_dot)
    second_fwd = jax.jvp(jvp, (args, tangents), (like(args), like(tangents)))[1]
    first_rev = vjp(args, cotangent)
    second_rev = jax.vjp(vjp, args, cotangent)[1](like(first_rev))
    return [flat(out_dot), flat(second_fwd), flat(first_rev), flat(second_rev)]


def check_derivatives(f, ref, args, label: str) -> None:
    """f's derivatives to second order, forward and reverse, against those of ref (plain jax.numpy)."""
    got = derivatives(f, args)
    for i, name in enumerate(["JVP", "second-order JVP", "VJP", "second-order VJP"]):
        checks.close(got[i], derivatives(ref, args)[i], what=f"the {name} of {label}", rtol=1e-4, atol=1e-4)


# ---- Exercise 1 ----------------------------------------------------------------------------------------------

BATCH_ANYWHERE = "the batch axis can be at any position of the operand, and out_dim is where it ends up in your result"
SECOND_ORDER = "second derivatives differentiate your JVP rule's tangent and transpose it"


def exercise1(reduce_sum_jvp, reduce_sum_transpose, reduce_sum_batch, custom_reduce_sum) -> None:
    """The three rules of custom_reduce_sum, over one axis, a tuple of axes or none: tangents, gradients (weighted),
    second derivatives and vmap at every batch position, like jnp.sum; symbolic zeros (float0 for int32); float16
    and bfloat16 kept; and jax.jvp, jax.linear_transpose and jax.vmap run the three functions you wrote."""
    x = jnp.arange(6.0).reshape(2, 3)
    x_dot = jnp.array([[1.0, 0.0, 2.0], [0.5, 0.5, 0.5]])
    w = jnp.array([1.0, -2.0])
    checks.close(run("the tangent of custom_reduce_sum(x, 1)", lambda: jax.jvp(lambda v: custom_reduce_sum(v, 1), (x,), (x_dot,))[1]),
                 np.array([3.0, 1.5], np.float32), what="the tangent of custom_reduce_sum(x, 1)")
    ct_hint = "ct has the output's shape: put the summed axes back (as size 1) before spreading it over x's shape"
    checks.close(run("grad of sum(custom_reduce_sum(x, 1) * w)",
                     lambda: jax.grad(lambda v: (custom_reduce_sum(v, 1) * w).sum())(x), ct_hint),
                 np.array([[1.0, 1.0, 1.0], [-2.0, -2.0, -2.0]], np.float32),
                 what="grad of sum(custom_reduce_sum(x, 1) * w)",
                 hint="each input element gets the cotangent of the output element it was summed into")
    xb = jnp.arange(24.0).reshape(4, 2, 3)
    checks.close(run("vmap(lambda v: custom_reduce_sum(v, 1))", lambda: jax.vmap(lambda v: custom_reduce_sum(v, 1))(xb), BATCH_ANYWHERE),
                 np.arange(24.0, dtype=np.float32).reshape(4, 2, 3).sum(2),
                 what="vmap(lambda v: custom_reduce_sum(v, 1)) over axis 0 of a (4, 2, 3) array",
                 hint="axes count the axes of one example; in the batched array the batch axis comes in between")
    checks.close(run("vmap(lambda v: custom_reduce_sum(v, 0), in_axes=2)",
                     lambda: jax.vmap(lambda v: custom_reduce_sum(v, 0), in_axes=2)(xb), BATCH_ANYWHERE),
                 np.arange(24.0, dtype=np.float32).reshape(4, 2, 3).sum(0).T,
                 what="vmap(lambda v: custom_reduce_sum(v, 0), in_axes=2) over the last axis of a (4, 2, 3) array",
                 hint="the batch axis can be at any position of the operand: batch_dims says which")
    xi = jnp.arange(12, dtype=jnp.int32).reshape(3, 4)
    checks.close(run("vmap(lambda v: custom_reduce_sum(v, 0), in_axes=1) on int32",
                     lambda: jax.vmap(lambda v: custom_reduce_sum(v, 0), in_axes=1)(xi), BATCH_ANYWHERE),
                 np.arange(12, dtype=np.int32).reshape(3, 4).sum(0, dtype=np.int32),
                 what="vmap(lambda v: custom_reduce_sum(v, 0), in_axes=1) over the columns of an int32 (3, 4) array",
                 hint="the batch axis can be at any position of the operand: batch_dims says which")
    big = jnp.arange(12, dtype=jnp.int32).reshape(3, 4) + 16_777_217  # above 2**24: float32 rounds them
    checks.close(run("vmap(lambda v: custom_reduce_sum(v, 0), in_axes=1) on int32 values above 2**24",
                     lambda: jax.vmap(lambda v: custom_reduce_sum(v, 0), in_axes=1)(big), BATCH_ANYWHERE),
                 (np.arange(12, dtype=np.int32).reshape(3, 4) + 16_777_217).sum(0, dtype=np.int32),
                 what="vmap(lambda v: custom_reduce_sum(v, 0), in_axes=1) over the columns of an int32 (3, 4) array of "
                      "values above 2**24, exactly",
                 hint="sum an int32 x as int32: through float32, integers above 2**24 are rounded")
    zero_hint = "test type(t) is ad.Zero first, and answer with ad.Zero(aval.to_tangent_aval()) (section 3)"
    _, zero_out = run("reduce_sum_jvp((x,), (ad.Zero of x's tangent type,), axes=(1,))",
                      lambda: reduce_sum_jvp((x,), (zero_of(x),), axes=(1,)), zero_hint, (None, None))
    checks.equal(seen(zero_out), ("Zero", (2,)),
                 what="the class and shape of the tangent a symbolic zero for the (2, 3) x and axes=(1,) gives "
                      "(an ad.Zero of shape (2,))", hint=zero_hint)
    int_hint = ("the output's tangent type is jax.typeof(y).to_tangent_aval(): float0 for an integer y, not y's own type "
                "(section 3)")
    _, int_zero = run("reduce_sum_jvp((xi,), (ad.Zero of xi's tangent type,), axes=(0,)) for an int32 (3, 4) xi",
                      lambda: reduce_sum_jvp((xi,), (zero_of(xi),), axes=(0,)), int_hint, (None, None))
    checks.equal((type(int_zero).__name__, str(getattr(int_zero, "aval", None))), ("Zero", "float0[4]"),
                 what="the class and abstract value of the tangent a symbolic zero gives for the int32 (3, 4) xi and axes=(0,)",
                 hint=int_hint)
    zero_ct = run("reduce_sum_transpose(ad.Zero of shape (3,), ad.UndefinedPrimal of the (2, 3) x, axes=(0,))",
                  lambda: reduce_sum_transpose(zero_of(x[0]), ad.UndefinedPrimal(jax.typeof(x)), axes=(0,)), zero_hint, ())
    checks.equal(seen(zero_ct), [("Zero", (2, 3))],
                 what="what a symbolic-zero cotangent with the (2, 3) x undefined gives (one ad.Zero of shape (2, 3))",
                 hint=zero_hint)
    x16 = jnp.arange(6.0, dtype=jnp.float16).reshape(2, 3)
    dtype_hint = ("keep x's dtype: sum the tangent and spread the cotangent as they come, with no float32 array "
                  "(jnp.ones(shape)) or conversion on the way")
    kept = {}
    for axes in (1, (0, 1)):
        kept[f"axes={axes}"] = [
            dtype_of(run(f"the tangent of custom_reduce_sum(x16, {axes}) for a float16 x16",
                         lambda: jax.jvp(lambda v: custom_reduce_sum(v, axes), (x16,), (x16,))[1], dtype_hint)),
            *(dtype_of(run(f"grad of sum(custom_reduce_sum(x, {axes}) * 2) for a {dtype.__name__} x",
                           lambda: jax.grad(lambda v: (custom_reduce_sum(v, axes) * 2).sum())(x16.astype(dtype)),
                           dtype_hint)) for dtype in (jnp.float16, jnp.bfloat16))]
    checks.equal(kept, dict.fromkeys(kept, ["float16", "float16", "bfloat16"]),
                 what="{axes: [the dtype of the tangent for a float16 x, of the gradient for a float16 x, of the gradient "
                      "for a bfloat16 x]}, summing one axis and every axis",
                 hint=dtype_hint + ", also when every axis is summed and the cotangent is 0-d")
    zero16 = run("reduce_sum_transpose(ad.Zero of float16[3], ad.UndefinedPrimal of a float16 (2, 3) x, axes=(0,))",
                 lambda: reduce_sum_transpose(zero_of(x16[0]), ad.UndefinedPrimal(jax.typeof(x16)), axes=(0,)), zero_hint, ())
    checks.equal(avals(zero16), ["float16[2,3]"],
                 what="the abstract value of the symbolic-zero cotangent for a float16 (2, 3) x",
                 hint="ad.Zero(x.aval.to_tangent_aval()) keeps x's dtype; a ShapedArray of float32 does not")
    zero_int = run("reduce_sum_transpose(ad.Zero of float0[4], ad.UndefinedPrimal of an int32 (3, 4) xi, axes=(0,))",
                   lambda: reduce_sum_transpose(zero_of(xi[0]), ad.UndefinedPrimal(jax.typeof(xi)), axes=(0,)), zero_hint, ())
    checks.equal(avals(zero_int), ["float0[3,4]"],
                 what="the abstract value of the symbolic-zero cotangent for an int32 (3, 4) xi (its tangent type is float0)",
                 hint="ad.Zero(x.aval.to_tangent_aval()): an integer x's tangent type is float0, not x's own aval")
    checks.close(run("hessian(sum(custom_reduce_sum(x, 1) ** 2))",
                     lambda: jax.hessian(lambda v: (custom_reduce_sum(v, 1) ** 2).sum())(x), SECOND_ORDER),
                 jax.hessian(lambda v: (jnp.sum(v, 1) ** 2).sum())(x), what="hessian(sum(custom_reduce_sum(x, 1) ** 2))",
                 rtol=1e-5, atol=1e-5, hint=SECOND_ORDER)
    c3 = jnp.arange(24.0).reshape(2, 3, 4)
    c3_dot = jnp.cos(jnp.arange(24.0)).reshape(2, 3, 4)
    checks.close(run("the tangent of custom_reduce_sum(x, (0, 2))",
                     lambda: jax.jvp(lambda v: custom_reduce_sum(v, (0, 2)), (c3,), (c3_dot,))[1]),
                 np.cos(np.arange(24.0)).reshape(2, 3, 4).sum(axis=(0, 2)).astype(np.float32),
                 what="the tangent of custom_reduce_sum(x, (0, 2)) for a (2, 3, 4) x", rtol=1e-5, atol=1e-5)
    tuple_hint = "axes is a tuple: the cotangent gets back every summed axis"
    checks.close(run("grad of sum(custom_reduce_sum(x, (0, 2)) * [1, -2, 0.5])",
                     lambda: jax.grad(lambda v: (custom_reduce_sum(v, (0, 2)) * jnp.array([1.0, -2.0, 0.5])).sum())(c3),
                     tuple_hint),
                 np.broadcast_to(np.array([1.0, -2.0, 0.5], np.float32)[None, :, None], (2, 3, 4)),
                 what="grad of sum(custom_reduce_sum(x, (0, 2)) * [1, -2, 0.5]) for a (2, 3, 4) x", hint=tuple_hint)
    c4 = jnp.arange(120.0).reshape(2, 3, 4, 5)
    where_hint = "each axis in axes counts the axes of one example; where does each one sit in the batched array?"
    checks.close(run("vmap(lambda v: custom_reduce_sum(v, (0, 2)), in_axes=1)",
                     lambda: jax.vmap(lambda v: custom_reduce_sum(v, (0, 2)), in_axes=1)(c4), BATCH_ANYWHERE),
                 np.arange(120.0, dtype=np.float32).reshape(2, 3, 4, 5).sum(axis=(0, 3)),
                 what="vmap(lambda v: custom_reduce_sum(v, (0, 2)), in_axes=1) over axis 1 of a (2, 3, 4, 5) array",
                 hint=where_hint)
    checks.close(run("vmap(lambda v: custom_reduce_sum(v, (-1, 0)), in_axes=3)",
                     lambda: jax.vmap(lambda v: custom_reduce_sum(v, (-1, 0)), in_axes=3)(c4), BATCH_ANYWHERE),
                 np.arange(120.0, dtype=np.float32).reshape(2, 3, 4, 5).sum(axis=(0, 2)).T,
                 what="vmap(lambda v: custom_reduce_sum(v, (-1, 0)), in_axes=3) over the last axis of a (2, 3, 4, 5) array",
                 hint=where_hint)
    checks.close(run("hessian(sum(custom_reduce_sum(x, (0, 2)) ** 2))",
                     lambda: jax.hessian(lambda v: (custom_reduce_sum(v, (0, 2)) ** 2).sum())(c3[:, :2, :2] / 4), SECOND_ORDER),
                 jax.hessian(lambda v: (jnp.sum(v, (0, 2)) ** 2).sum())(c3[:, :2, :2] / 4),
                 what="hessian(sum(custom_reduce_sum(x, (0, 2)) ** 2)) for a (2, 2, 2) x", rtol=1e-5, atol=1e-5)
    c5 = jnp.arange(720.0).reshape(2, 3, 6, 4, 5) / 100
    checks.close(run("vmap(lambda v: custom_reduce_sum(v, (0, 1, 3)), in_axes=2)",
                     lambda: jax.vmap(lambda v: custom_reduce_sum(v, (0, 1, 3)), in_axes=2)(c5), BATCH_ANYWHERE),
                 np.asarray(c5).sum(axis=(0, 1, 4)), rtol=1e-5, atol=1e-5,
                 what="vmap(lambda v: custom_reduce_sum(v, (0, 1, 3)), in_axes=2) over axis 2 of a (2, 3, 6, 4, 5) array",
                 hint="count how many summed axes come before the batch axis (two here), or move the batch axis to the "
                      "front first")
    checks.close(run("jit(vmap(lambda v: custom_reduce_sum(v, (0, 1)), in_axes=2))",
                     lambda: jax.jit(jax.vmap(lambda v: custom_reduce_sum(v, (0, 1)), in_axes=2))(c5),
                     "under jit the batching rule's bind goes into a jaxpr, whose parameters must be hashable: bind axes as "
                     "a tuple, not a list"),
                 np.asarray(c5).sum(axis=(0, 1)), rtol=1e-5, atol=1e-5,
                 what="jit(vmap(lambda v: custom_reduce_sum(v, (0, 1)), in_axes=2)) over axis 2 of the (2, 3, 6, 4, 5) array")
    checks.close(run("vmap(lambda v: custom_reduce_sum(v, ()), in_axes=1)",
                     lambda: jax.vmap(lambda v: custom_reduce_sum(v, ()), in_axes=1)(c3),
                     "axes may be empty: max(axes) or axes[0] of an empty tuple fails"),
                 np.moveaxis(np.asarray(c3), 1, 0), what="vmap(lambda v: custom_reduce_sum(v, ()), in_axes=1): a sum over no axes",
                 hint="a sum over no axes gives x back, and the batch axis stays where it is")
    spread = run("jax.linear_transpose of custom_reduce_sum(v, (0, 2)) applied to [1, -2, 0.5]",
                 lambda: jax.linear_transpose(lambda v: custom_reduce_sum(v, (0, 2)),
                                              jax.ShapeDtypeStruct((2, 3, 4), jnp.float32))(jnp.array([1.0, -2.0, 0.5]))[0])
    checks.close(spread, np.broadcast_to(np.array([1.0, -2.0, 0.5], np.float32)[None, :, None], (2, 3, 4)),
                 what="jax.linear_transpose of custom_reduce_sum(v, (0, 2)) applied to the cotangent [1, -2, 0.5], "
                      "which calls reduce_sum_transpose itself",
                 hint="the transpose rule puts ct back over every summed axis, whatever your JVP rule uses (grad may never "
                      "call it when the tangent is computed with jnp.sum)")
    first = run("jax.linear_transpose of custom_reduce_sum(v, 0) for a (2, 3) v, applied to [1, -2, 0.5]",
                lambda: jax.linear_transpose(lambda v: custom_reduce_sum(v, 0),
                                             jax.ShapeDtypeStruct((2, 3), jnp.float32))(jnp.array([1.0, -2.0, 0.5]))[0])
    checks.close(first, np.broadcast_to(np.array([1.0, -2.0, 0.5], np.float32)[None, :], (2, 3)),
                 what="jax.linear_transpose of custom_reduce_sum(v, 0) applied to the cotangent [1, -2, 0.5], for a (2, 3) v",
                 hint="put back the summed axes themselves, wherever they are (jnp.expand_dims(ct, axes)), before spreading "
                      "ct over x's shape: here axis 0, not the last one")
    c2 = jnp.ones((2, 3))
    checks.equal([ran(reduce_sum_jvp, lambda: jax.jvp(lambda v: custom_reduce_sum(v, 0), (c2,), (c2,))),
                  ran(reduce_sum_transpose, lambda: jax.linear_transpose(lambda v: custom_reduce_sum(v, 0), c2)(jnp.ones(3))),
                  ran(reduce_sum_batch, lambda: jax.vmap(lambda v: custom_reduce_sum(v, 0))(jnp.ones((4, 2, 3))))],
                 [True, True, True],
                 what="whether JAX ran your functions: [reduce_sum_jvp under jax.jvp, reduce_sum_transpose under "
                      "jax.linear_transpose, reduce_sum_batch under jax.vmap]",
                 hint="register the three functions themselves in ad.primitive_jvps, ad.primitive_transposes and "
                      "batching.primitive_batchers, as the answer cell does")


# ---- Exercise 2 ----------------------------------------------------------------------------------------------


def exercise2(sincos_jvp, sincos) -> None:
    """sincos_jvp: both tangents, under jvp, grad, grad of grad and jit(vmap(grad)); outputs from the primitive (one
    sincos equation, no other sin or cos, on every path); float16 and bfloat16 kept; two symbolic zeros for a zero
    tangent; and jax.jvp runs the sincos_jvp you wrote."""
    x = jnp.array([-1.0, 0.5, 4.0])
    x_dot = jnp.array([1.0, 2.0, -1.0])
    got = run("jax.jvp(sincos, (x,), (x_dot,))", lambda: jax.jvp(sincos, (x,), (x_dot,)), unused=((None, None), (None, None)))
    (s, c), (s_dot, c_dot) = got
    checks.close(s_dot, jnp.cos(x) * x_dot, what="the tangent of the sin output")
    checks.close(c_dot, -jnp.sin(x) * x_dot, what="the tangent of the cos output for x = [-1, 0.5, 4]",
                 hint="d/dx cos(x) = -sin(x), for any x")
    primitive_hint = "compute the outputs with sincos(x), the primitive itself, and only the tangents with jax.numpy"
    checks.equal(run("tracing jax.jvp(sincos, (x,), (x_dot,)) with make_jaxpr",
                     lambda: [eqn.primitive.name for eqn in jax.make_jaxpr(
                         lambda v, t: jax.jvp(sincos, (v,), (t,)))(x, x_dot).eqns].count("sincos"),
                     "under make_jaxpr (or jit) x and x_dot are tracers: compute with jax.numpy, not NumPy"),
                 1, what="the number of sincos equations in the jaxpr of jax.jvp(sincos, (x,), (x_dot,))", hint=primitive_hint)
    checks.close(run("grad of sum(sin(x) * cos(x))", lambda: jax.grad(lambda v: (sincos(v)[0] * sincos(v)[1]).sum())(x)),
                 jnp.cos(2 * x), what="grad of sum(sin(x) * cos(x))", rtol=1e-5, atol=1e-6)
    checks.close(run("grad(grad(sincos(v)[1])) at 0.5", lambda: jax.grad(jax.grad(lambda v: sincos(v)[1]))(jnp.float32(0.5))),
                 -jnp.cos(jnp.float32(0.5)), what="grad(grad(sincos(v)[1])) at 0.5", rtol=1e-5,
                 hint="compute the tangents with jax.numpy, so that they can be differentiated again")
    checks.close(run("grad(grad(sincos(v)[0])) at 0.5", lambda: jax.grad(jax.grad(lambda v: sincos(v)[0]))(jnp.float32(0.5))),
                 -jnp.sin(jnp.float32(0.5)), what="grad(grad(sincos(v)[0])) at 0.5 (the sin output's second derivative)",
                 rtol=1e-5, hint="compute both tangents with jax.numpy from values that can be differentiated again: no "
                                 "stop_gradient")
    checks.close(run("jit(vmap(grad(sin(v) * cos(v))))",
                     lambda: jax.jit(jax.vmap(jax.grad(lambda v: sincos(v)[0] * sincos(v)[1])))(x)),
                 jnp.cos(2 * x), what="jit(vmap(grad(sin(v) * cos(v)))) over x", rtol=1e-5, atol=1e-6)
    x16 = jnp.array([0.25, 1.5, -2.0], jnp.float16)
    dtype_hint = "compute the tangents from c, s and x_dot as they are: a float32 conversion or constant makes them float32"
    checks.equal([dtype_of(t) for t in run("jax.jvp(sincos, (x16,), (x16_dot,)) for a float16 x16",
                                           lambda: jax.jvp(sincos, (x16,), (jnp.array([1.0, -2.0, 0.5], jnp.float16),))[1],
                                           dtype_hint, (None, None))],
                 ["float16", "float16"],
                 what="the dtypes of the two tangents jax.jvp(sincos, ...) gives for the float16 x16 = [0.25, 1.5, -2]",
                 hint=dtype_hint)
    checks.equal(dtype_of(run("grad of sum(sin(x) * cos(x)) for a bfloat16 x",
                              lambda: jax.grad(lambda v: (sincos(v)[0] * sincos(v)[1]).sum())(x16.astype(jnp.bfloat16)),
                              dtype_hint)),
                 "bfloat16", what="the dtype of grad of sum(sin(x) * cos(x)) for a bfloat16 x", hint=dtype_hint)
    cases = {"x = [-1, 0.5, 4]": x, "the float16 x16": x16, "the 0-d float32 0.5": jnp.float32(0.5),
             "a bfloat16 (2, 2) matrix": jnp.array([[0.25, 1.5], [-2.0, 3.0]], jnp.bfloat16)}
    jvp_names = {label: run(f"tracing jax.jvp(sincos, ...) on {label} with make_jaxpr",
                            lambda: [eqn.primitive.name for eqn in jax.make_jaxpr(
                                lambda u, t: jax.jvp(sincos, (u,), (t,)))(v, v).eqns], dtype_hint, [])
                 for label, v in cases.items()}
    checks.equal({label: names.count("convert_element_type") for label, names in jvp_names.items()
                  if names.count("convert_element_type") and jnp.dtype(cases[label].dtype).itemsize == 2}, {},
                 what="the float16 and bfloat16 cases whose jaxpr of jax.jvp(sincos, ...) holds convert_element_type "
                      "equations: {case: how many}",
                 hint="no conversion on the way, not even one undone after: compute the tangents in x's own dtype")
    zero_hint = "test type(x_dot) is ad.Zero first: a Zero is not an array, arithmetic on it fails (section 3)"
    _, zero_tangents = run("sincos_jvp((x,), (ad.Zero of x's tangent type,))",
                           lambda: sincos_jvp((x,), (zero_of(x),)), zero_hint, (None, ()))
    checks.equal(seen(zero_tangents) if isinstance(zero_tangents, (tuple, list)) else
                 f"one {type(zero_tangents).__name__}, not a pair",
                 [("Zero", (3,)), ("Zero", (3,))],
                 what="the tangents a symbolic zero for the (3,) x gives (two ad.Zero of shape (3,), one per output)",
                 hint=zero_hint + "; return a pair of tangents, one for each output")
    _, zero16 = run("sincos_jvp((x16,), (ad.Zero of x16's tangent type,)) for the float16 x16",
                    lambda: sincos_jvp((x16,), (zero_of(x16),)), zero_hint, (None, ()))
    checks.equal(avals(zero16), ["float16[3]", "float16[3]"],
                 what="the abstract values of the two symbolic-zero tangents for the float16 x16",
                 hint="ad.Zero(jax.typeof(x).to_tangent_aval()) keeps x's dtype; a ShapedArray of float32 does not")
    checks.equal({label: [names.count("sincos"), sorted(set(names) & {"sin", "cos"})] for label, names in jvp_names.items()
                  if names.count("sincos") != 1 or set(names) & {"sin", "cos"}}, {},
                 what=f"the cases ({', '.join(cases)}) whose jaxpr of jax.jvp(sincos, ...) holds other than one sincos "
                      "and no sin or cos: {case: [how many sincos, the sin and cos equations]}",
                 hint="compute the outputs with sincos(x) and reuse them for the tangents (cos(x) is c, sin(x) is s), "
                      "whatever x's dtype and shape: no other sine or cosine")
    checks.equal(run("tracing sincos_jvp((x,), (ad.Zero,)) with make_jaxpr",
                     lambda: sorted({eqn.primitive.name for eqn in jax.make_jaxpr(
                         lambda v: sincos_jvp((v,), (zero_of(v),))[0])(x).eqns} & {"sin", "cos", "sincos"}),
                     zero_hint),
                 ["sincos"], what="the sin, cos and sincos equations sincos_jvp makes for its outputs when the tangent is a "
                                  "symbolic zero",
                 hint="compute the outputs with sincos(x) on every path, the symbolic-zero one too: not sincos_ref or jnp.sin")
    checks.equal(ran(sincos_jvp, lambda: jax.jvp(sincos, (x,), (x_dot,))), True,
                 what="whether jax.jvp(sincos, ...) ran the sincos_jvp you wrote",
                 hint="register sincos_jvp itself: ad.primitive_jvps[sincos_p] = sincos_jvp, as the answer cell does")


# ---- Exercise 3 ----------------------------------------------------------------------------------------------

BATCH_HINT = "either operand may be batched, at any axis: move each batch axis where your computation expects it"
MATVEC_DTYPE_HINT = ("each example's result is what matvec gives, its dtype too (jnp.result_type(w, x)): no sum that "
                     "widens small integers, no cast of one operand to the other's dtype, no preferred_element_type")


PATHS = ((0, 0), (0, None), (None, 0))


def one_computation(matvec) -> dict:
    """For each path of the rule (in_axes both batched, w alone, x alone): [the loops (scan, while) in the jaxpr of
    vmap(matvec) over 5 examples, whether its number of equations is the same as over 2 examples]."""
    def traced(batch, axes):
        w = jnp.ones((batch, 3, 4) if axes[0] == 0 else (3, 4))
        x = jnp.ones((batch, 4) if axes[1] == 0 else (4,))
        return primitive_names(jax.make_jaxpr(jax.vmap(matvec, in_axes=axes))(w, x).jaxpr)
    found = {}
    for axes in PATHS:
        five, two = traced(5, axes), traced(2, axes)
        found[str(axes)] = [sorted({name for name in five if name in ("scan", "while")}), len(five) == len(two)]
    return found


def exercise3(matvec_batch, matvec) -> None:
    """vmap(matvec) through matvec_batch: every batch position of either operand or both, out_dim, jit and a nested
    vmap; each example's dtype as matvec gives it (int8 wrapping, an int16 w with a float16 x) on every path; a batch
    of one and of zero; one computation for the whole batch; and jax.vmap runs the matvec_batch you wrote."""
    rng = np.random.default_rng(0)
    W = rng.standard_normal((5, 3, 4)).astype(np.float32)
    X = rng.standard_normal((5, 4)).astype(np.float32)
    checks.close(run("vmap(matvec) with both batched on axis 0", lambda: jax.vmap(matvec)(W, X), BATCH_HINT),
                 np.einsum("bmn,bn->bm", W, X), what="vmap(matvec) with both batched on axis 0", rtol=1e-5, atol=1e-5)
    checks.close(run("vmap(matvec, in_axes=(None, 0))", lambda: jax.vmap(matvec, in_axes=(None, 0))(W[0], X), BATCH_HINT),
                 X @ W[0].T, what="vmap(matvec, in_axes=(None, 0))", rtol=1e-5, atol=1e-5)
    checks.close(run("vmap(matvec, in_axes=(None, 1))", lambda: jax.vmap(matvec, in_axes=(None, 1))(W[0], X.T), BATCH_HINT),
                 X @ W[0].T, what="vmap(matvec, in_axes=(None, 1))",
                 rtol=1e-5, atol=1e-5, hint="out_dim is the batch axis of the result you return, not of an input")
    W2 = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4) / 8
    x2 = np.array([1.0, -1.0, 0.5], np.float32)
    checks.close(run("vmap(matvec, in_axes=(2, None)) on a (2, 3, 4) w", lambda: jax.vmap(matvec, in_axes=(2, None))(W2, x2),
                     BATCH_HINT),
                 np.einsum("mnb,n->bm", W2, x2), what="vmap(matvec, in_axes=(2, None)): 4 matrices (2, 3) along w's last axis",
                 rtol=1e-5, atol=1e-5, hint=BATCH_HINT)
    X3 = np.arange(12, dtype=np.float32).reshape(3, 4) / 4 - 1
    checks.close(run("vmap(matvec, in_axes=(1, 0)) on a (2, 3, 4) w", lambda: jax.vmap(matvec, in_axes=(1, 0))(W2, X3), BATCH_HINT),
                 np.einsum("mbn,bn->bm", W2, X3), what="vmap(matvec, in_axes=(1, 0)): 3 matrices (2, 4) along w's axis 1, 3 vectors",
                 rtol=1e-5, atol=1e-5, hint=BATCH_HINT)
    checks.close(run("vmap(matvec, in_axes=(2, 1)) on a (2, 3, 4) w and a (3, 4) x",
                     lambda: jax.vmap(matvec, in_axes=(2, 1))(W2, X3), BATCH_HINT),
                 np.einsum("mnb,nb->bm", W2, X3),
                 what="vmap(matvec, in_axes=(2, 1)): 4 matrices (2, 3) along w's last axis, 4 vectors along x's axis 1",
                 rtol=1e-5, atol=1e-5, hint="when both are batched, each operand's batch axis must be moved, x's too")
    jit_hint = "under jit the operands are tracers: compute with jax.numpy or matvec, not NumPy"
    checks.close(run("jit(vmap(matvec, in_axes=(0, 1)))", lambda: jax.jit(jax.vmap(matvec, in_axes=(0, 1)))(W, X.T), jit_hint),
                 np.einsum("bmn,bn->bm", W, X), what="jit(vmap(matvec, in_axes=(0, 1)))", rtol=1e-5, atol=1e-5, hint=jit_hint)
    checks.close(run("vmap(vmap(matvec, in_axes=(None, 0)), in_axes=(0, None))",
                     lambda: jax.vmap(jax.vmap(matvec, in_axes=(None, 0)), in_axes=(0, None))(W[:2], X), BATCH_HINT),
                 np.einsum("amn,bn->abm", W[:2], X),
                 what="vmap(vmap(matvec, in_axes=(None, 0)), in_axes=(0, None)): 2 matrices times 5 vectors",
                 rtol=1e-5, atol=1e-5, hint=BATCH_HINT)
    W8 = (np.arange(2 * 3 * 4).reshape(2, 3, 4) % 5 - 2).astype(np.int8)
    X8 = np.array([[1, -1, 2, 0], [0, 1, 1, -2]], np.int8)
    out8 = run("vmap(matvec) on an int8 w and x", lambda: jax.vmap(matvec)(W8, X8), BATCH_HINT)
    checks.equal(dtype_of(out8), "int8", what="the dtype of vmap(matvec) on an int8 w and x", hint=MATVEC_DTYPE_HINT)
    checks.close(out8, np.einsum("bmn,bn->bm", W8.astype(np.int32), X8.astype(np.int32)).astype(np.int8),
                 what="vmap(matvec) on an int8 w and x")
    ones = {str(axes): run(f"vmap(matvec, in_axes={axes}) on a batch of one, of (1, 4) matrices",
                           lambda: jax.vmap(matvec, in_axes=axes)(W[:1, :1] if axes[0] == 0 else W[0, :1],
                                                                  X[:1] if axes[1] == 0 else X[0]), BATCH_HINT)
            for axes in PATHS}
    checks.equal({axes: getattr(one, "shape", None) for axes, one in ones.items()}, dict.fromkeys(map(str, PATHS), (1, 1)),
                 what="the shape of vmap(matvec, in_axes=...) on a batch of one, of (1, 4) matrices: {in_axes: shape}",
                 hint="keep the batch axis and m even when they are 1, on every path of the rule: no squeeze")
    W8w = np.array([[[100, 100, 100], [50, -60, 70]], [[-128, 1, 2], [127, 127, 1]]], np.int8)
    X8w = np.array([[1, 1, 1], [1, 2, 3]], np.int8)
    W16 = np.stack([np.arange(12).reshape(3, 4) - 5, np.arange(12).reshape(3, 4) % 4 - 1]).astype(np.int16)
    X16 = np.array([[0.5, -1.5, 2.25, 1.0], [1.0, 0.0, -0.5, 3.0]], np.float16)
    # Each kind of operand on each path of a rule: both batched, w alone, x alone.
    for ws, xs, kind, tolerance in ((W8w, X8w, "int8 values whose dot products leave int8's range", 0),
                                    (W16, X16, "an int16 w and a float16 x", 1e-2)):
        for axes in ((0, 0), (0, None), (None, 0)):
            w_in, x_in = (ws if axes[0] == 0 else ws[0]), (xs if axes[1] == 0 else xs[0])
            label = f"vmap(matvec, in_axes={axes}) on {kind}"
            got = run(label, lambda: jax.vmap(matvec, in_axes=axes)(w_in, x_in), BATCH_HINT)
            examples = [(ws[i] if axes[0] == 0 else w_in, xs[i] if axes[1] == 0 else x_in) for i in range(2)]
            want = np.stack([np.asarray(matvec(*example)) for example in examples])
            checks.equal(dtype_of(got), str(jax.eval_shape(matvec, *examples[0]).dtype),
                         what=f"the dtype of {label}, against matvec's own (its abstract evaluation)", hint=MATVEC_DTYPE_HINT)
            checks.close(None if got is None else np.asarray(got, np.float32), want.astype(np.float32), rtol=tolerance,
                         atol=tolerance, what=f"{label} (each example as matvec gives it)",
                         hint=MATVEC_DTYPE_HINT + "; computing in float32 and casting back does not wrap around as int8 "
                                                  "arithmetic does")
    empty = run("vmap(matvec) over a batch of 0 examples", lambda: jax.vmap(matvec)(jnp.zeros((0, 3, 4)), jnp.zeros((0, 4))),
                BATCH_HINT)
    checks.equal(getattr(empty, "shape", None), (0, 3), what="the shape of vmap(matvec) over a batch of 0 (3, 4) matrices and vectors",
                 hint="a batched computation works for any batch size, 0 too: no Python loop over the examples")
    checks.equal(run("tracing vmap(matvec) over 5 and over 2 examples", lambda: one_computation(matvec), BATCH_HINT),
                 dict.fromkeys(map(str, PATHS), [[], True]),
                 what="{in_axes: [the loops (scan, while) in the jaxpr of vmap(matvec, in_axes) over 5 examples, whether "
                      "it has as many equations as over 2 examples]}, both operands batched, w alone, x alone",
                 hint="compute the whole batch at once (jnp.einsum, @, or matvec on moved axes): no loop over the examples, "
                      "in Python or with lax.map")
    checks.equal(ran(matvec_batch, lambda: jax.vmap(matvec)(W, X)), True,
                 what="whether jax.vmap(matvec) ran the matvec_batch you wrote",
                 hint="register matvec_batch itself: batching.primitive_batchers[matvec_p] = matvec_batch, as the answer "
                      "cell does")


# ---- Exercise 4 ----------------------------------------------------------------------------------------------

UNDEFINED_HINT = "the operand to answer for is the one for which ad.is_undefined_primal is True; the other is a value"
C_HINT = "c multiplied every element of x: its cotangent is one scalar, the sum of ct * x"
MIXED_HINT = "the cotangent of each operand must stay differentiable in the other: no stop_gradient, no constant"


def exercise4(scale_transpose, scale) -> None:
    """scale_transpose: called by hand on a cotangent with x or c undefined; gradients in x, c and both (weighted);
    mixed and second derivatives; jit(vmap(grad)) and vmap over c; float16 kept; symbolic zeros for either operand; an
    empty x; and jax.grad runs the scale_transpose you wrote, for x and for c."""
    x = jnp.array([1.0, 2.0, 3.0])
    c = jnp.float32(2.0)
    w3 = jnp.array([1.0, 0.5, -1.0])
    for_x = run("scale_transpose([1, 0.5, -1], ad.UndefinedPrimal of x, c=2)",
                lambda: scale_transpose(w3, ad.UndefinedPrimal(jax.typeof(x)), c), UNDEFINED_HINT, (None, None))
    checks.close(for_x[0], np.array([2.0, 1.0, -2.0], np.float32),
                 what="the cotangent for x that scale_transpose(ct=[1, 0.5, -1], x undefined, c=2) returns first",
                 hint="y = x * c, so x's cotangent is ct * c, of x's shape")
    checks.equal(for_x[1], None, what="what scale_transpose(ct, x undefined, c) returns second (None: c is a value here)",
                 hint="return a pair: (cotangent for x, None) when x is the undefined operand")
    for_c = run("scale_transpose([1, 0.5, -1], x=[1, 2, 3], ad.UndefinedPrimal of c)",
                lambda: scale_transpose(w3, x, ad.UndefinedPrimal(jax.typeof(c))), UNDEFINED_HINT, (None, None))
    checks.equal(for_c[0], None, what="what scale_transpose(ct, x, c undefined) returns first (None: x is a value here)",
                 hint="return a pair: (None, cotangent for c) when c is the undefined operand")
    checks.close(for_c[1], np.float32(-1.0),
                 what="the cotangent for c that scale_transpose(ct=[1, 0.5, -1], x=[1, 2, 3], c undefined) returns second",
                 hint=C_HINT)
    checks.close(run("d/dx of sum(scale(x, c) ** 2)", lambda: jax.grad(lambda v: (scale(v, c) ** 2).sum())(x), UNDEFINED_HINT),
                 2 * x * c ** 2, what="d/dx of sum(scale(x, c) ** 2)")
    checks.close(run("d/dc of sum(scale(x, c) ** 2)", lambda: jax.grad(lambda k: (scale(x, k) ** 2).sum())(c), C_HINT),
                 2 * c * jnp.sum(x * x), what="d/dc of sum(scale(x, c) ** 2)", hint=C_HINT)
    g16 = run("d/dc of sum(scale(x, c) * [1, 0.5, -1]) in float16",
              lambda: jax.grad(lambda k: (scale(x.astype(jnp.float16), k) * jnp.array([1.0, 0.5, -1.0], jnp.float16)).sum())(
                  jnp.float16(2.0)))
    checks.equal((dtype_of(g16), getattr(g16, "shape", None)), ("float16", ()),
                 what="the dtype and shape of d/dc for a float16 x and c", hint="c's cotangent is a scalar of c's own dtype")
    gx, gc = run("grad with respect to both x and c",
                 lambda: jax.grad(lambda v, k: (scale(v, k) * w3).sum(), argnums=(0, 1))(x, c), unused=(None, None))
    checks.close(gx, w3 * c, what="d/dx of sum(scale(x, c) * [1, 0.5, -1]), taken together with d/dc")
    checks.close(gc, jnp.sum(w3 * x), what="d/dc of sum(scale(x, c) * [1, 0.5, -1]), taken together with d/dx")
    checks.close(run("d/dc of d/dx", lambda: jax.grad(lambda k: jax.grad(lambda v: (scale(v, k) * w3).sum())(x).sum())(c),
                     MIXED_HINT),
                 jnp.sum(w3), what="d/dc of the sum of d/dx of sum(scale(x, c) * [1, 0.5, -1]) (a mixed second derivative)",
                 hint=MIXED_HINT)
    checks.close(run("d/dx of d/dc", lambda: jax.grad(lambda v: jax.grad(lambda k: (scale(v, k) * w3).sum())(c))(x), MIXED_HINT),
                 w3, what="d/dx of d/dc of sum(scale(x, c) * [1, 0.5, -1]) (the other mixed second derivative)", hint=MIXED_HINT)
    x22 = jnp.array([[1.0, -2.0], [0.5, 3.0]])
    checks.close(run("d²/dc² of sum(scale(x, c) ** 3)", lambda: jax.hessian(lambda k: (scale(x22, k) ** 3).sum())(c)),
                 6 * c * jnp.sum(x22 ** 3), what="d²/dc² of sum(scale(x, c) ** 3) for x = [[1, -2], [0.5, 3]]", rtol=1e-5)
    xs = jnp.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
    checks.close(run("jit(vmap(grad)) over the rows of x",
                     lambda: jax.jit(jax.vmap(jax.grad(lambda v: (scale(v, c) ** 2 * w3).sum())))(xs),
                     "under jit and vmap, ct and c are tracers: compute x's cotangent with scale or jax.numpy, not NumPy"),
                 2 * xs * c ** 2 * w3,
                 what="jit(vmap(grad)) over the rows of x = [[1, 2, 3], [-1, 0.5, 2]] of sum(scale(x, c) ** 2 * [1, 0.5, -1])",
                 rtol=1e-5)
    checks.close(run("vmap(grad) over c", lambda: jax.vmap(jax.grad(lambda k: (scale(x, k) ** 2).sum()))(jnp.array([1.0, -0.5]))),
                 2 * jnp.array([1.0, -0.5]) * jnp.sum(x * x), what="vmap over c = [1, -0.5] of d/dc of sum(scale(x, c) ** 2)",
                 rtol=1e-5)
    zero_hint = "test type(ct) is ad.Zero first, and answer with ad.Zero(aval.to_tangent_aval()) of the undefined operand (section 3)"
    zx = run("scale_transpose(ad.Zero, ad.UndefinedPrimal x of shape (2, 2), c)",
             lambda: scale_transpose(zero_of(x22), ad.UndefinedPrimal(jax.typeof(x22)), c), zero_hint, ())
    checks.equal(seen(zx), [("Zero", (2, 2)), None],
                 what="what a symbolic-zero cotangent with the (2, 2) x undefined gives (ad.Zero of shape (2, 2), None)",
                 hint=zero_hint)
    zc = run("scale_transpose(ad.Zero, x of shape (2, 2), ad.UndefinedPrimal c)",
             lambda: scale_transpose(zero_of(x22), x22, ad.UndefinedPrimal(jax.typeof(c))), zero_hint, ())
    checks.equal(seen(zc), [None, ("Zero", ())],
                 what="what a symbolic-zero cotangent with c undefined gives (None, ad.Zero of shape ())", hint=zero_hint)
    zc16 = run("scale_transpose(ad.Zero, a float16 x, ad.UndefinedPrimal float16 c)",
               lambda: scale_transpose(zero_of(x22.astype(jnp.float16)), x22.astype(jnp.float16),
                                       ad.UndefinedPrimal(jax.typeof(jnp.float16(2.0)))), zero_hint, ())
    checks.equal(avals(zc16), ["None", "float16[]"],
                 what="the abstract values scale_transpose gives for a symbolic-zero ct with a float16 c undefined "
                      "(None, float16[])",
                 hint="ad.Zero(c.aval.to_tangent_aval()) keeps c's dtype; a ShapedArray of float32 does not")
    empty_c = run("d/dc of sum(scale(x, c)) for an empty x", lambda: jax.grad(lambda k: scale(jnp.zeros((0,)), k).sum())(c), C_HINT)
    checks.close(empty_c, np.float32(0.0), what="d/dc of sum(scale(x, c)) for an empty x (0: there is nothing to sum)",
                 hint="c's cotangent is the sum of ct * x, which is 0 for an empty x; a mean times the size is nan there")
    checks.equal([ran(scale_transpose, lambda: jax.grad(lambda v: (scale(v, c) * w3).sum())(x)),
                  ran(scale_transpose, lambda: jax.grad(lambda k: (scale(x, k) * w3).sum())(c))],
                 [True, True],
                 what="whether jax.grad ran the scale_transpose you wrote: [for x, for c]",
                 hint="keep the JVP rule given: its tangent binds scale, so that reverse mode must call your transpose rule "
                      "(a JVP rewritten with * lets JAX transpose mul instead)")
