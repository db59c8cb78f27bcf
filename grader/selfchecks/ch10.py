"""Self-checks of chapter 10, "Write custom derivatives as hijax primitives": what each exercise's
self-check cell runs (see `grader.selfchecks`)."""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import numpy as np

from grader.notebook import checks, watch


# ---- helpers shared by the exercises ------------------------------------------------------------

def run(what, thunk, hint=None, default=None):
    """Run the learner's code `thunk()`: one check, that it does not raise. Returns its result, or
    `default` when it raised (so that the checks after it keep their places and fail in their turn)."""
    result = checks.runs(lambda: jax.block_until_ready(thunk()), what=what, hint=hint)
    return default if result is None else result


def jaxpr_of(fn, *args):
    """The jaxpr of fn(*args), as text without colours."""
    return jax.make_jaxpr(fn)(*args).pretty_print(use_color=False)


def hvp(f, v, t):
    """The Hessian of f at v times t, by reverse over reverse."""
    return jax.grad(lambda u: jnp.vdot(jax.grad(f)(u), t))(v)


# ---- Exercise 1 ---------------------------------------------------------------------------------

def straight_through(x, scale, levels, g):
    """The straight-through cotangent of x, in NumPy: g where |x| <= levels * scale, 0 elsewhere, in g's dtype."""
    x, g = np.asarray(x), np.asarray(g)
    inside = np.abs(x.astype(np.float64)) <= levels * float(scale)
    return np.where(inside, g, np.zeros_like(g))


def fake_quant_grad(fake_quant, x, scale, levels, g, argnums=0, jit=False):
    """The gradient of sum(g * fake_quant(x, scale, levels)) with respect to x (argnums=0) or scale (1)."""
    grad = jax.grad(lambda v, s: jnp.sum(g * fake_quant(v, s, levels)), argnums=argnums)
    return (jax.jit(grad) if jit else grad)(x, scale)


def exercise1(FakeQuant, fake_quant) -> None:
    """FakeQuant's straight-through gradient: g inside [-levels * scale, levels * scale], edges included, 0
    outside, for any cotangent; none for scale; the primitive applied in vjp_fwd; any shape, jit with a traced
    scale, float32 and bfloat16."""
    x = jnp.array([-2.0, -1.5, -0.3, 0.0, 0.7, 1.5, 1.6, 4.0])
    g = jnp.array([1.0, 2.0, -1.0, 0.5, 3.0, -2.0, 1.5, 4.0])
    s = jnp.float32(0.5)
    label = "grad of sum(g * fake_quant(x, 0.5, levels=3)), x = [-2, -1.5, -0.3, 0, 0.7, 1.5, 1.6, 4], g = [1, 2, -1, 0.5, 3, -2, 1.5, 4]"
    got = run(label, lambda: fake_quant_grad(fake_quant, x, s, 3, g), "vjp_fwd(self, nzs_in, x, scale) returns "
              "(self(x, scale), residuals); vjp_bwd_retval(self, res, g) returns (x's cotangent, None)", np.zeros(8, np.float32))
    got = np.asarray(got)
    checks.close(got[[2, 3, 4]], np.array([-1.0, 0.5, 3.0], np.float32),
                 what=label + ", where |x| < 1.5 (x = -0.3, 0, 0.7)",
                 hint="inside the range the cotangent of x is g itself, whatever its values: not 1 (the mask), not 0 "
                      "(the chain rule through round)")
    checks.close(got[[0, 6, 7]], np.zeros(3, np.float32), what=label + ", where |x| > levels * scale = 1.5 (x = -2, 1.6, 4)",
                 hint="outside [-levels * scale, levels * scale] the clip decides the output: the cotangent is 0 there "
                      "(compare |x| itself with levels * scale, not the rounded level or the output)")
    checks.close(got[[1, 5]], np.array([2.0, -2.0], np.float32), what=label + ", at the edges x = -1.5 and 1.5",
                 hint="the edges belong to the range: |x| <= levels * scale")
    checks.close(run("grad with respect to scale", lambda: fake_quant_grad(fake_quant, x, s, 3, g, argnums=1),
                     "return None as scale's cotangent"),
                 np.float32(0.0), what="the gradient of sum(g * fake_quant(x, 0.5, levels=3)) with respect to scale",
                 hint="scale gets no cotangent: return None for it")
    text = run("make_jaxpr of the gradient", lambda: jaxpr_of(lambda v: fake_quant_grad(fake_quant, v, s, 3, g), x), None, "")
    checks.equal(text.count(" = FakeQuant["), 1, what="how many times the gradient's jaxpr applies FakeQuant",
                 hint="compute the output in vjp_fwd by applying the primitive, self(x, scale), once")
    for scale in (0.5, 0.25):
        checks.close(run(f"jax.jit of the gradient, scale = {scale} (traced)",
                         lambda: fake_quant_grad(fake_quant, x, jnp.float32(scale), 3, g, jit=True),
                         "under jit, scale is a traced value: no float(scale), no NumPy on it"),
                     straight_through(x, scale, 3, g), what=f"jit(grad) with a traced scale = {scale}, levels=3",
                     hint="under jit, scale is a traced value: compare with levels * scale in jax.numpy")
    for v, want in ((0.4, 3.0), (5.0, 0.0)):
        checks.close(run(f"grad of 3 * fake_quant(x, 0.5) at the 0-d x = {v}",
                         lambda: jax.grad(lambda u: 3.0 * fake_quant(u, s))(jnp.float32(v)), "nothing may depend on x's shape"),
                     np.float32(want), what=f"grad of 3 * fake_quant(x, 0.5) (levels=7) at the 0-d x = {v}",
                     hint="a 0-d x works like any other: no indexing, no x.shape[0]")
    m = jnp.array([[0.1, -0.6, 0.45], [0.5, -0.5, 2.0]])
    gm = jnp.array([[1.0, -2.0, 0.5], [4.0, 3.0, -1.0]])
    checks.close(run("grad for a 2 x 3 x, scale 0.25, levels=2", lambda: fake_quant_grad(fake_quant, m, jnp.float32(0.25), 2, gm)),
                 straight_through(m, 0.25, 2, gm), what="grad of sum(g * fake_quant(x, 0.25, levels=2)) for a 2 x 3 x",
                 hint="the range is levels * scale = 0.5 here: use self.levels and scale, no fixed numbers")
    xb, gb = x.astype(jnp.bfloat16), g.astype(jnp.bfloat16)
    half = run("grad for a bfloat16 x and scale", lambda: fake_quant_grad(fake_quant, xb, jnp.bfloat16(0.5), 3, gb), None,
               np.zeros(8, np.float32))
    checks.equal(str(half.dtype), "bfloat16", what="the dtype of x's cotangent for a bfloat16 x",
                 hint="keep g's dtype: jnp.where(mask, g, 0), not zeros made in float32")
    checks.close(np.asarray(half, np.float32), straight_through(x, 0.5, 3, g), what="grad for a bfloat16 x and scale, levels=3")
    twice = jnp.array([0.1, 0.5, 0.9, 2.0])
    label = "grad of sum(fake_quant(0.5 * fake_quant(x, 0.25, 3), 0.25, 3) * [1, 2, 3, 4]) at x = [0.1, 0.5, 0.9, 2]"
    checks.close(run(label, lambda: jax.grad(lambda u: jnp.sum(fake_quant(0.5 * fake_quant(u, jnp.float32(0.25), 3),
                                                                           jnp.float32(0.25), 3) * jnp.arange(1.0, 5.0)))(twice)),
                 np.array([0.5, 1.0, 0.0, 0.0], np.float32), what=label + ": two FakeQuants, each with its own range",
                 hint="each application keeps its own mask in its residuals: the backward rule sees only those, not a "
                      "variable set by the last forward call")
    label = "the VJP function jax.jit(lambda v: jax.vjp(lambda u: fake_quant(u, 0.5, 3), v)[1])(x) returns, applied to g"
    checks.close(run(label, lambda: jax.jit(lambda v: jax.vjp(lambda u: fake_quant(u, jnp.float32(0.5), 3), v)[1])(x)(g)[0],
                     "the backward rule can run after the forward pass's trace is gone: keep the mask in the residuals, "
                     "not on the instance or in a variable"),
                 straight_through(x, 0.5, 3, g), what=label + ": the backward rule run outside the jit that traced the forward")


# ---- Exercise 2 ---------------------------------------------------------------------------------

def rows_ref(table, w, rows):
    """w[j] * table[rows[j]], in plain jax.numpy."""
    return w[:, None] * table[np.array(rows)]


def into_ref(weighted_rows, table, w, rows, g, start):
    """Run the VJP with a table-gradient ref that starts at `start`; return (ref contents, w's gradient)."""
    buf = jax.new_ref(start)
    _, f_vjp = jax.vjp(lambda t, v: weighted_rows(t, v, rows), table, w)
    _, w_bar = f_vjp.with_refs(buf, jax.ad.GradValue())(g)
    return buf[...], w_bar


def both_into_refs(weighted_rows, table, w, rows, g, start_t, start_w):
    """Run the VJP with a ref for each input; return the two refs' contents."""
    buf_t, buf_w = jax.new_ref(start_t), jax.new_ref(start_w)
    _, f_vjp = jax.vjp(lambda t, v: weighted_rows(t, v, rows), table, w)
    f_vjp.with_refs(buf_t, buf_w)(g)
    return buf_t[...], buf_w[...]


def dense_in_backward(weighted_rows, table, w, rows, g):
    """How many arrays of the table's shape the traced backward pass with a ref builds."""
    def backward(buf):
        _, f_vjp = jax.vjp(lambda t: weighted_rows(t, w, rows), table)
        f_vjp.with_refs(buf)(g)
    text = jax.jit(backward).trace(jax.new_ref(jnp.zeros_like(table))).jaxpr.pretty_print(use_color=False)
    shape = ",".join(map(str, table.shape))
    return len(re.findall(r"\w+:f32\[" + shape + r"\] = ", text))


def exercise2(WeightedRows, weighted_rows) -> None:
    """WeightedRows' vjp_bwd pushes the right gradients into every kind of accumulator: dense values, a
    ref for the table (in place, row by row, repeated and negative rows), a ref for w, under jit, in bfloat16."""
    table = jnp.arange(18.0).reshape(6, 3)
    w = jnp.array([1.0, -2.0, 0.5])
    rows = (4, 1, 4)
    g = jnp.array([[1.0, 0.0, 2.0], [0.5, 1.0, -1.0], [3.0, 1.0, 1.0]])
    loss = lambda t, v: jnp.sum(g * weighted_rows(t, v, rows))
    loss_ref = lambda t, v: jnp.sum(g * rows_ref(t, v, rows))
    acc_hint = "push into the accumulators (w_acc.accum(...), table_acc.accum(...) or table_acc.ref) and return None"
    gt, gw = run("grad(loss, argnums=(0, 1))", lambda: jax.grad(loss, argnums=(0, 1))(table, w), acc_hint, (None, None))
    checks.close(gw, jax.grad(loss_ref, argnums=1)(table, w), what="the gradient of w")
    checks.close(gt, jax.grad(loss_ref, argnums=0)(table, w), what="the gradient of table (row 4 is used twice)",
                 hint="row rows[j] gets w[j] * g[j] (g's row j, scaled by w[j]); a repeated row gets every contribution, "
                      "and the dense cotangent has the table's shape (6, 3)")
    null_hint = "a NullAccum has no ref: test isinstance(table_acc, NullAccum) (or RefAccum) before using table_acc.ref"
    checks.close(run("grad(loss, argnums=1), the gradient of w alone", lambda: jax.grad(loss, argnums=1)(table, w), null_hint),
                 jax.grad(loss_ref, argnums=1)(table, w), what="the gradient of w alone (table's accumulator is a NullAccum)")
    checks.close(run("grad(loss, argnums=0), the gradient of table alone", lambda: jax.grad(loss, argnums=0)(table, w), acc_hint),
                 jax.grad(loss_ref, argnums=0)(table, w), what="the gradient of table alone (w's accumulator is a NullAccum)")
    jit_hint = "under jit, g and the residuals are traced arrays: compute with jax.numpy, not NumPy"
    checks.close(run("jit(grad(loss, argnums=(0, 1)))", lambda: jax.jit(jax.grad(loss, argnums=(0, 1)))(table, w)[0], jit_hint),
                 jax.grad(loss_ref, argnums=0)(table, w), what="the gradient of table under jit", hint=jit_hint)
    rows_b = (1, 1, 0)
    loss_b = lambda t, v: jnp.sum(g * weighted_rows(t, v, rows_b))
    loss_b_ref = lambda t, v: jnp.sum(g * rows_ref(t, v, rows_b))
    rows_hint = "use this call's own self.rows: keep nothing from an earlier call"
    gt_b, gw_b = run("grad for rows = (1, 1, 0)", lambda: jax.grad(loss_b, argnums=(0, 1))(table, w), rows_hint, (None, None))
    checks.close(gw_b, jax.grad(loss_b_ref, argnums=1)(table, w), what="the gradient of w for rows = (1, 1, 0), after the calls above",
                 hint=rows_hint)
    checks.close(gt_b, jax.grad(loss_b_ref, argnums=0)(table, w),
                 what="the gradient of table for rows = (1, 1, 0), after the calls above", hint=rows_hint)
    ref_hint = ("for each j, add w[j] * g[j] into row rows[j] of the ref (+=, not =), so that row 4 gets both "
                "contributions")
    got_buf, got_w = run("the backward pass into a ref", lambda: into_ref(weighted_rows, table, w, rows, g, jnp.ones((6, 3))), ref_hint,
                         (None, None))
    checks.close(got_buf, 1.0 + jax.grad(loss_ref, argnums=0)(table, w), what="a ref that started at ones, after one backward pass",
                 hint=ref_hint)
    checks.close(got_w, jax.grad(loss_ref, argnums=1)(table, w), what="w's gradient returned as a value next to the ref")
    both = run("the backward pass into a ref for table and a ref for w",
               lambda: both_into_refs(weighted_rows, table, w, rows, g, jnp.ones((6, 3)), jnp.ones(3)),
               "w_acc may be a RefAccum too: w_acc.accum(...) works for every kind of accumulator", (None, None))
    checks.close(both[1], 1.0 + jax.grad(loss_ref, argnums=1)(table, w), what="a ref for w that started at ones, after one backward pass",
                 hint="w_acc is a RefAccum when the caller passes a Ref for w: push w's gradient whatever its kind (w_acc.accum(...))")
    checks.close(both[0], 1.0 + jax.grad(loss_ref, argnums=0)(table, w), what="the table's ref when w has a ref too")
    dense_hint = "update table_acc.ref row by row instead of building a dense gradient"
    checks.equal(run("the backward pass into a ref, traced under jit", lambda: dense_in_backward(weighted_rows, table, w, rows, g),
                     dense_hint, -1), 0,
                 what="how many (6, 3) arrays the backward pass with a RefAccum builds", hint=dense_hint)
    rows_neg = (1, -1, 1)
    loss_neg = lambda t, v: jnp.sum(g * weighted_rows(t, v, rows_neg))
    loss_neg_ref = lambda t, v: jnp.sum(g * rows_ref(t, v, rows_neg))
    neg_hint = "a negative row counts from the end, as in expand: table[rows] and .at[rows].add(...) both read -1 as the last row"
    checks.close(run("grad for rows = (1, -1, 1)", lambda: jax.grad(loss_neg, argnums=0)(table, w), neg_hint),
                 jax.grad(loss_neg_ref, argnums=0)(table, w), what="the gradient of table for rows = (1, -1, 1) (row -1 is row 5)",
                 hint=neg_hint)
    neg_buf, _ = run("the backward pass into a ref for rows = (1, -1, 1)",
                     lambda: into_ref(weighted_rows, table, w, rows_neg, g, jnp.zeros((6, 3))), neg_hint, (None, None))
    checks.close(neg_buf, jax.grad(loss_neg_ref, argnums=0)(table, w),
                 what="a ref that started at zeros, after a backward pass for rows = (1, -1, 1) (row -1 is row 5)",
                 hint="in the RefAccum path too, a negative row counts from the end: add into ref[i % n] (or ref.at with the "
                      "same indices as the dense path), not ref[abs(i)]")
    rows_twin = (5, -1, 1)
    loss_twin_ref = lambda t, v: jnp.sum(g * rows_ref(t, v, rows_twin))
    twin_hint = ("5 and -1 are the same row of a 6-row table: it gets both contributions (make a negative row "
                 "non-negative, i % n, before grouping rows, or add one row at a time)")
    checks.close(run("grad for rows = (5, -1, 1)",
                     lambda: jax.grad(lambda t, v: jnp.sum(g * weighted_rows(t, v, rows_twin)), argnums=0)(table, w), twin_hint),
                 jax.grad(loss_twin_ref, argnums=0)(table, w), what="the gradient of table for rows = (5, -1, 1) (5 and -1 are one row)",
                 hint=twin_hint)
    twin_buf, _ = run("the backward pass into a ref for rows = (5, -1, 1)",
                      lambda: into_ref(weighted_rows, table, w, rows_twin, g, jnp.zeros((6, 3))), twin_hint, (None, None))
    checks.close(twin_buf, jax.grad(loss_twin_ref, argnums=0)(table, w),
                 what="a ref that started at zeros, after a backward pass for rows = (5, -1, 1) (5 and -1 are one row)", hint=twin_hint)
    t16, w16, g16 = table.astype(jnp.bfloat16), w.astype(jnp.bfloat16), g.astype(jnp.bfloat16)
    kinds = run("grad(loss, argnums=(0, 1)) for a bfloat16 table and w",
                lambda: [str(d.dtype) for d in jax.grad(lambda t, v: jnp.sum(g16 * weighted_rows(t, v, rows)), argnums=(0, 1))(t16, w16)],
                "build every cotangent in its operand's dtype", [])
    checks.equal(kinds, ["bfloat16", "bfloat16"], what="the dtypes of the gradients of a bfloat16 table and w",
                 hint="build every cotangent in its operand's dtype: jnp.zeros(shape) without a dtype, or "
                      "preferred_element_type=float32, gives float32")
    jit_ref_hint = "under jit, w and g are traced arrays: update table_acc.ref with jax.numpy, not NumPy"
    jitted = run("the backward pass into a ref, under jit",
                 lambda: jax.jit(lambda t, v, gg: into_ref(weighted_rows, t, v, rows, gg, jnp.ones((6, 3))))(table, w, g),
                 jit_ref_hint, (None, None))
    checks.close(jitted[0], 1.0 + jax.grad(loss_ref, argnums=0)(table, w), what="a ref that started at ones, after a backward pass under jit",
                 hint=jit_ref_hint)


# ---- Exercise 3 ---------------------------------------------------------------------------------

def norm_ref(x, axis=-1):
    """The Euclidean norm of x along axis, in plain jax.numpy."""
    return jnp.sqrt(jnp.sum(x * x, axis=axis))


def norm_grad_ref(x):
    """The gradient of sum(norm(row)) for the rows of a matrix x, in NumPy: each row divided by its norm, and 0
    for an all-zero row (Norm's convention)."""
    x = np.asarray(x, np.float64)
    n = np.sqrt(np.sum(x * x, axis=-1, keepdims=True))
    return np.where(n > 0, x / np.where(n > 0, n, 1.0), 0.0).astype(np.float32)


def norms_and_sqrt(text):
    """(how many times a jaxpr's text applies Norm, whether it computes a sqrt outside it)."""
    return text.count(" = Norm["), "sqrt" in text


def exercise3(Norm, norm) -> None:
    """vmap of norm is right for every batch axis and reduced axis, under jit, nested and in bfloat16; the batched
    jaxpr applies Norm and no sqrt; a gradient taken outside vmap is 0 for an all-zero row."""
    X = jnp.asarray(np.random.default_rng(3).standard_normal((4, 3, 5)), jnp.float32)
    hint = ("build a new Norm for the batched array, whose axis is where the reduced axis is once the batch axis is in "
            "the array, and return its output with the output's batch axis")
    cases = ((0, 0, "the first"), (1, 2, "the last"), (0, 1, "the middle"), (-1, 0, "the first"))
    for axis, in_axis, where in cases:
        label = f"vmap(lambda v: norm(v, {axis}), in_axes={in_axis})(X) for X of shape (4, 3, 5), batched on {where} axis"
        checks.close(run(label, lambda: jax.vmap(lambda v: norm(v, axis), in_axes=in_axis)(X), hint),
                     jax.vmap(lambda v: norm_ref(v, axis), in_axes=in_axis)(X), what=label, rtol=1e-5, atol=1e-6, hint=hint)
    label = "jax.jit(jax.vmap(lambda v: norm(v, 1), in_axes=1))(X)"
    checks.close(run(label, lambda: jax.jit(jax.vmap(lambda v: norm(v, 1), in_axes=1))(X),
                     "under jit the batched array is traced: use its jax.typeof, not NumPy"),
                 jax.vmap(lambda v: norm_ref(v, 1), in_axes=1)(X), what=label, rtol=1e-5, atol=1e-6)
    label = "vmap(vmap(lambda v: norm(v, 0), in_axes=1))(X), nested"
    checks.close(run(label, lambda: jax.vmap(jax.vmap(lambda v: norm(v, 0), in_axes=1))(X),
                     "nested vmap calls the rule of a batched Norm again: its axis must be right for any instance"),
                 jax.vmap(jax.vmap(lambda v: norm_ref(v, 0), in_axes=1))(X), what=label, rtol=1e-5, atol=1e-6,
                 hint="the rule runs again on the Norm your rule built: use self.axis, whatever it is")
    text = run("make_jaxpr of vmap(lambda v: norm(v, 0), in_axes=1)",
               lambda: jaxpr_of(jax.vmap(lambda v: norm(v, 0), in_axes=1), X), hint, "")
    checks.equal(norms_and_sqrt(text), (1, False),
                 what="(Norm equations, a sqrt outside them) in the jaxpr of vmap(lambda v: norm(v, 0), in_axes=1)",
                 hint="apply one new Norm to the whole batched array in the batch rule: vmap_rule over expand, or "
                      "jax.numpy, leaves the sqrt and no Norm; a loop over examples leaves one Norm per example")
    Z = X[:, 0, :].at[1].set(0.0)
    label = "grad of sum(vmap(norm)(Z)), Z of shape (4, 5) whose row 1 is all zeros"
    checks.close(run(label, lambda: jax.grad(lambda M: jnp.sum(jax.vmap(norm)(M)))(Z), hint),
                 norm_grad_ref(Z), what=label + ": each row over its norm, 0 for the zero row", rtol=1e-5, atol=1e-6,
                 hint="a gradient taken outside vmap uses Norm's rule only if the batched program applies Norm: nan means "
                      "it differentiated sqrt")
    checks.close(run("vmap(grad(norm))(Z)", lambda: jax.vmap(jax.grad(norm))(Z), hint), norm_grad_ref(Z),
                 what="vmap(grad(norm))(Z), row 1 all zeros", rtol=1e-5, atol=1e-6)
    Y = X.at[2, 1].set(0.0)
    label = "grad of sum(vmap(lambda v: norm(v, 1), in_axes=1)(Y)), Y of shape (4, 3, 5) batched on the middle axis"
    checks.close(run(label, lambda: jax.grad(lambda M: jnp.sum(jax.vmap(lambda v: norm(v, 1), in_axes=1)(M)))(Y),
                     "build the new Norm from the type of the array it is applied to, after the batch axis moved: "
                     "a gradient outside vmap runs its rules at that type"),
                 norm_grad_ref(Y), what=label + ": each row along the last axis over its norm, 0 for the zero row",
                 rtol=1e-5, atol=1e-6)
    half = run("vmap(norm) of a bfloat16 array", lambda: jax.vmap(lambda v: norm(v, 0), in_axes=1)(X.astype(jnp.bfloat16)), hint,
               jnp.zeros((3, 5), jnp.float32))
    checks.equal(str(half.dtype), "bfloat16", what="the dtype of vmap(norm) of a bfloat16 array",
                 hint="keep x's dtype: no cast to float32")
    checks.close(np.asarray(half, np.float32), np.asarray(jax.vmap(lambda v: norm_ref(v, 0), in_axes=1)(X)), rtol=2e-2, atol=2e-2,
                 what="vmap(lambda v: norm(v, 0), in_axes=1) of a bfloat16 array")
    S = jnp.asarray(np.random.default_rng(4).standard_normal((4, 4, 5)), jnp.float32)
    label = "vmap(lambda v: norm(v, 1), in_axes=1)(S) for S of shape (4, 4, 5): two axes of the batch's size"
    checks.close(run(label, lambda: jax.vmap(lambda v: norm(v, 1), in_axes=1)(S), hint),
                 jax.vmap(lambda v: norm_ref(v, 1), in_axes=1)(S), what=label, rtol=1e-5, atol=1e-6,
                 hint="find the batch axis from the rule's dims (where vmap put it), not from its size: here two axes have it")


# ---- Exercise 4 ---------------------------------------------------------------------------------

def np_cumsum(x, axis=0, scale=1.0, reverse=False):
    """scale * the running sum of x along axis (from the end when reverse), computed in NumPy, as float32."""
    x = np.asarray(x, np.float64)
    summed = np.flip(np.cumsum(np.flip(x, axis), axis), axis) if reverse else np.cumsum(x, axis)
    return (scale * summed).astype(np.float32)


def applied(text):
    """(axis, scale, reverse) of each ScaledCumsum equation in a jaxpr's text, and whether lax's cumsum appears."""
    found = re.findall(r"ScaledCumsum\[axis=(-?\d+) scale=(\S+) reverse=(True|False)\]", text)
    return [(int(a), float(s), r == "True") for a, s, r in found], "cumsum[" in text


def exercise4(ScaledCumsum, scaled_cumsum) -> None:
    """ScaledCumsum's jvp and transpose rules give jvp, linearize, grad (eager, jit, vmap, second order,
    applied to a constant) of a scaled running sum, computed with the primitive itself."""
    rng = np.random.default_rng(4)
    x, t, c = (jnp.asarray(rng.standard_normal((3, 4)), jnp.float32) for _ in range(3))
    jvp_hint = "the map is linear: jvp returns (self(x), self(x_dot)), and a Zero tangent when x_dot is a Zero"
    checks.close(run("jax.jvp", lambda: jax.jvp(lambda v: scaled_cumsum(v, 1, 2.5), (x,), (t,))[1], jvp_hint),
                 np_cumsum(t, 1, 2.5), what="the tangent from jax.jvp, axis=1, scale=2.5, on a (3, 4) array", hint=jvp_hint)
    jvp_text = run("make_jaxpr of jax.jvp", lambda: jaxpr_of(lambda v, w: jax.jvp(lambda u: scaled_cumsum(u, 1, 2.5), (v,), (w,)), x, t),
                   jvp_hint, "")
    checks.equal(applied(jvp_text), ([(1, 2.5, False)] * 2, False), hint="compute the output and the tangent by applying the primitive, self(x) and self(x_dot): not "
                      "self.expand, not jax.lax",
                 what="(ScaledCumsum equations, whether lax's cumsum appears) in jax.jvp's jaxpr")
    checks.close(run("jax.linearize", lambda: jax.linearize(lambda v: scaled_cumsum(v, 0, -0.5, True), x)[1](t), jvp_hint),
                 np_cumsum(t, 0, -0.5, True), what="the linearized map of axis=0, scale=-0.5, reverse=True, applied to a tangent")
    t_hint = "the transpose of a running sum runs the other way (flip reverse) with the same axis and scale, applied to ct"
    for shape, axis, scale, reverse in (((3, 4), 1, 2.5, False), ((3, 4), 0, -0.5, True), ((5,), -1, 3.0, False),
                                        ((2, 3, 4), -2, 0.75, True)):
        v, w = (jnp.asarray(rng.standard_normal(shape), jnp.float32) for _ in range(2))
        label = f"grad of sum(c * scaled_cumsum(x, axis={axis}, scale={scale}, reverse={reverse})), x of shape {shape}, random c"
        checks.close(run(label, lambda: jax.grad(lambda u: jnp.sum(w * scaled_cumsum(u, axis, scale, reverse)))(v), t_hint),
                     np_cumsum(w, axis, scale, not reverse), what=label, rtol=1e-5, atol=1e-5, hint=t_hint)
    loss = lambda u: jnp.sum(c * scaled_cumsum(u, 1, 2.5))
    grad_text = run("make_jaxpr of jax.grad", lambda: jaxpr_of(jax.grad(loss), x), t_hint, "")
    checks.equal(applied(grad_text), ([(1, 2.5, False), (1, 2.5, True)], False),
                 what="(ScaledCumsum equations, whether lax's cumsum appears) in the gradient's jaxpr, axis=1, scale=2.5",
                 hint="in transpose, apply ScaledCumsum(jax.typeof(ct), self.axis, self.scale, not self.reverse) to ct")
    checks.close(run("jit(grad)", lambda: jax.jit(jax.grad(loss))(x), t_hint), np_cumsum(c, 1, 2.5, True),
                 what="jit(grad) of sum(c * scaled_cumsum(x, axis=1, scale=2.5))", rtol=1e-5, atol=1e-5)
    row_loss = lambda u, w: jnp.sum(w * scaled_cumsum(u, 0, 1.5, True) ** 2)
    checks.close(run("vmap(grad)", lambda: jax.vmap(jax.grad(row_loss))(x, c), t_hint),
                 np_cumsum(2 * np.asarray(c) * np_cumsum(x, 1, 1.5, True), 1, 1.5),
                 what="vmap(grad) of sum(c * scaled_cumsum(x, reverse=True, scale=1.5) ** 2), row by row", rtol=1e-5, atol=1e-5)
    sq = lambda u: jnp.sum(c * scaled_cumsum(u, 1, 2.5) ** 2)
    twice_hint = "a transposed ScaledCumsum is transposed again: flip reverse, do not fix it"
    checks.close(run("grad of grad", lambda: hvp(sq, x, t), twice_hint),
                 np_cumsum(2 * np.asarray(c) * np_cumsum(t, 1, 2.5), 1, 2.5, True),
                 what="grad of grad (Hessian of sum(c * scaled_cumsum(x, axis=1, scale=2.5) ** 2) times t)", rtol=1e-4, atol=1e-4,
                 hint=twice_hint)
    zero_hint = "x_dot is a symbolic Zero for a constant x: return Zero(self.out_aval.to_tangent_aval()) (section 6)"
    checks.close(run("grad with ScaledCumsum applied to a constant", lambda: jax.grad(lambda u: jnp.sum(u * scaled_cumsum(x, 1, 2.0)))(t),
                     zero_hint),
                 np_cumsum(x, 1, 2.0), what="grad of sum(v * scaled_cumsum(constant)) with respect to v", hint=zero_hint)


# ---- Exercise 5 ---------------------------------------------------------------------------------

def own_vjp_calls(thunk):
    """How many times code outside JAX's own package calls jax.vjp while thunk() runs (jax.grad calls it too)."""
    seen = []

    def on_call(caller, fn):
        if fn is jax.vjp and not watch.from_jax(caller):
            seen.append(1)
    with watch.calls(on_call):
        jax.block_until_ready(thunk())
    return len(seen)


#: One entry each time `affine` is traced or run.
traced = []


def affine(x, theta):
    """f(x, (A, b)) = A x + b; records each time it is traced or run (in `traced`)."""
    traced.append(1)
    A, b = theta
    return A @ x + b


def contraction(rng, n, norm):
    """A random non-symmetric n x n matrix with spectral norm `norm`."""
    A = rng.standard_normal((n, n))
    return jnp.asarray(norm * A / np.linalg.norm(A, 2), jnp.float32)


def affine_closed(A, b, c):
    """x* = (I - A)^-1 b and u = (I - A)^-T c, in float64."""
    A, b, c = (np.asarray(v, np.float64) for v in (A, b, c))
    eye = np.eye(len(b))
    return np.linalg.solve(eye - A, b), np.linalg.solve((eye - A).T, c)


def adjoint_iteration(A, c, tol, max_iter):
    """u from iterating u -> c + A^T u from c until no entry changes by more than tol (or max_iter steps), in
    float64; and the number of steps."""
    u, change, steps = np.asarray(c, np.float64), np.inf, 0
    while steps < max_iter and change > tol:
        u_next = np.asarray(c, np.float64) + np.asarray(A, np.float64).T @ u
        change, u, steps = np.max(np.abs(u_next - u)), u_next, steps + 1
    return u, steps


def shape_of_grad(text):
    """(how many times FixedPoint is applied, how many while loops, whether a scan appears) in a jaxpr's text."""
    return text.count(" = FixedPoint["), text.count("while["), "scan[" in text


def exercise5(FixedPoint, fixed_point, iterate) -> None:
    """FixedPoint's gradient solves the adjoint fixed-point equation with jax.vjp of f: closed forms, tol and
    max_iter, jit outside and inside grad, x0's zero gradient, f traced at most 3 times, one while loop, no
    Jacobian."""
    rng = np.random.default_rng(5)
    A, b, c = contraction(rng, 4, 0.9), jnp.asarray(rng.standard_normal(4), jnp.float32), jnp.asarray(rng.standard_normal(4), jnp.float32)
    x_true, u_true = affine_closed(A, b, c)
    loss = lambda theta, x0: jnp.vdot(c, fixed_point(affine, theta, x0, tol=1e-6, max_iter=1000))
    solve_hint = ("iterate u -> g + (df/dx)^T u from g, with (df/dx)^T u from jax.vjp of f at (x*, theta); "
                  "return ((df/dtheta)^T u, None)")
    gA, gb = run("grad of c . fixed_point(A x + b)", lambda: jax.grad(loss)((A, b), jnp.zeros(4)), solve_hint, (None, None))
    checks.close(gb, u_true.astype(np.float32), what="the gradient of b for f(x) = A x + b, norm(A) = 0.9: u = (I - A)^-T c",
                 rtol=1e-4, atol=1e-4, hint=solve_hint)
    checks.close(gA, np.outer(u_true, x_true).astype(np.float32), what="the gradient of A: u x*^T", rtol=1e-4, atol=1e-4,
                 hint=solve_hint)
    checks.close(run("grad with respect to x0", lambda: jax.grad(loss, argnums=1)((A, b), jnp.ones(4)), solve_hint),
                 np.zeros(4, np.float32), what="the gradient of x0 (x* does not depend on it)", hint="return (theta_bar, None)")
    few = lambda theta: jnp.vdot(c, fixed_point(affine, theta, jnp.zeros(4), tol=0.0, max_iter=3))
    powers = [np.linalg.matrix_power(np.asarray(A, np.float64).T, k) @ np.asarray(c, np.float64) for k in range(4)]
    x3 = sum(np.linalg.matrix_power(np.asarray(A, np.float64), k) @ np.asarray(b, np.float64) for k in range(3))
    iter_hint = "solve for u with iterate(..., g, self.tol, self.max_iter): the same tol and max_iter as the forward pass"
    gA3, gb3 = run("grad with tol=0, max_iter=3", lambda: jax.grad(few)((A, b)), iter_hint, (None, None))
    checks.close(gb3, sum(powers).astype(np.float32), what="the gradient of b with tol=0, max_iter=3: c + A^T c + (A^T)^2 c + (A^T)^3 c",
                 rtol=1e-5, atol=1e-5, hint=iter_hint)
    checks.close(gA3, np.outer(sum(powers), x3).astype(np.float32), what="the gradient of A with tol=0, max_iter=3: u x3^T",
                 rtol=1e-5, atol=1e-5, hint=iter_hint)
    theta = jnp.array([0.5, 0.9, -0.7])
    w = jnp.array([1.0, -2.0, 3.0])
    cos_loss = lambda th: jnp.vdot(w, fixed_point(lambda x, t: t * jnp.cos(x), th, jnp.zeros(3)))
    x_cos = fixed_point(lambda x, t: t * jnp.cos(x), theta, jnp.zeros(3))     # the forward pass is the given expand
    checks.close(run("grad for f(x, theta) = theta cos x", lambda: jax.grad(cos_loss)(theta), solve_hint),
                 w * jnp.cos(x_cos) / (1.0 + theta * jnp.sin(x_cos)), rtol=1e-4, atol=1e-5, hint=solve_hint,
                 what="the gradient for f(x, theta) = theta cos x, theta = [0.5, 0.9, -0.7]: w cos x* / (1 + theta sin x*)")
    jit_hint = "under jit g and the residuals are traced: no float(...) or Python loop on their values; use iterate"
    checks.close(run("jit(grad)", lambda: jax.jit(jax.grad(loss))((A, b), jnp.zeros(4))[1], jit_hint), u_true.astype(np.float32),
                 what="the gradient of b under jit", rtol=1e-4, atol=1e-4, hint=jit_hint)
    inner_hint = ("with jit inside grad, vjp_fwd runs while jit traces and the backward rule after it: pass x* to the "
                  "backward rule in the residuals, never on self or in a global")
    checks.close(run("grad(jit(loss))", lambda: jax.grad(jax.jit(loss))((A, b), jnp.zeros(4))[1], inner_hint),
                 u_true.astype(np.float32), what="the gradient of b with jit inside grad", rtol=1e-4, atol=1e-4, hint=inner_hint)
    traced.clear()
    grad_text = run("make_jaxpr of the gradient", lambda: jaxpr_of(jax.grad(loss), (A, b), jnp.zeros(4)), solve_hint, "")
    checks.equal(len(traced) <= 3, True, what=f"whether f is traced at most 3 times by make_jaxpr(grad) (it was {len(traced)})",
                 hint="differentiate f once with jax.vjp at (x*, theta): no Python loop over f, no unrolled iterations")
    checks.equal(shape_of_grad(grad_text), (1, 1, False),
                 what="(how many times FixedPoint is applied, number of while loops, a scan) in the gradient's jaxpr",
                 hint="vjp_fwd applies self(theta, x0) once and saves x* in the residuals (the backward rule does not solve "
                      "for x* again); the backward rule solves for u with one iterate, no Jacobian and no solve")
    cos_text = run("make_jaxpr of the gradient for theta cos x", lambda: jaxpr_of(jax.grad(cos_loss), theta), solve_hint, "")
    checks.equal(len(re.findall(r"\w+:f32\[3,3\] ", cos_text)), 0,
                 what="how many 3 x 3 arrays the gradient for f(x, theta) = theta cos x (3 values of x) builds",
                 hint="never build the Jacobian matrix (jax.jacrev, jax.jacfwd, or jax.vjp mapped over the identity): take "
                      "(df/dx)^T u as one jax.vjp product in each step of iterate")
    calls = run("counting jax.vjp calls in grad of c . fixed_point(A x + b)",
                lambda: own_vjp_calls(lambda: jax.grad(loss)((A, b), jnp.zeros(4))), solve_hint, 0)
    checks.equal(calls > 0, True, what="whether the backward pass calls jax.vjp of f (the transposed products)",
                 hint="the transposed products come from jax.vjp of f at (x*, theta), as the text says: not jax.linear_transpose of "
                      "a jvp, nor jax.grad of a dot product")
    A99 = contraction(np.random.default_rng(6), 4, 0.99)
    big_c = c * 1000.0
    loose = lambda theta: jnp.vdot(big_c, fixed_point(affine, theta, jnp.zeros(4), tol=1e-3, max_iter=5000))
    checks.close(run("grad with tol=1e-3 and a cotangent of size 1000", lambda: jax.grad(loose)((A99, b))[1], iter_hint),
                 adjoint_iteration(A99, big_c, 1e-3, 5000)[0].astype(np.float32), rtol=1e-4, atol=0,
                 what="the gradient of b with tol=1e-3, norm(A) = 0.99 and a cotangent 1000 c: the adjoint stops at the same tol",
                 hint="iterate u with the forward pass's own tol, an absolute one: not one scaled by the size of g")
    A_up = jnp.array([[0.9, 0.05], [0.0, 0.9]], jnp.float32)
    c_up = jnp.array([1.0, -0.5], jnp.float32)
    coarse = lambda theta: jnp.vdot(c_up, fixed_point(affine, theta, jnp.zeros(2), tol=0.05, max_iter=500))
    u_coarse, steps = adjoint_iteration(A_up, c_up, 0.05, 500)
    checks.close(run("grad with tol=0.05", lambda: jax.grad(coarse)((A_up, jnp.ones(2)))[1], iter_hint),
                 u_coarse.astype(np.float32), rtol=1e-4, atol=1e-4,
                 what="the gradient of b with tol=0.05, A = [[0.9, 0.05], [0, 0.9]]: the adjoint stops at that tol "
                      f"after {steps} steps, at u = {np.round(u_coarse, 3).tolist()}, short of (I - A)^-T c = [10, 0]",
                 hint=iter_hint)


def layer_closed(W, v, c):
    """For f(x, (W, v)) = tanh(W x + v) / 2 and the cotangent c of x*: the gradients of W and v, in float64
    (x* by iteration, then u = (I - diag(f') W)^-T c)."""
    W, v, c = (np.asarray(a, np.float64) for a in (W, v, c))
    x = np.zeros(len(v))
    for _ in range(5000):
        x = 0.5 * np.tanh(W @ x + v)
    slope = 0.5 * (1.0 - np.tanh(W @ x + v) ** 2)          # df/dz, elementwise
    u = np.linalg.solve((np.eye(len(v)) - slope[:, None] * W).T, c)
    return np.outer(slope * u, x), slope * u


def cos_closed(theta, w, x0):
    """For f(x, theta) = theta cos x, elementwise, and the cotangent w of x*: the gradient of theta, in float64."""
    theta, w, x = (np.asarray(a, np.float64) for a in (theta, w, x0))
    for _ in range(5000):
        x = theta * np.cos(x)
    return w * np.cos(x) / (1.0 + theta * np.sin(x))
