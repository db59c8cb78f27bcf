"""Plausible wrong answers for 09_reverse_mode_internals, one per answer cell (see tests/wrong_answers/__init__.py)."""

WRONG = {
    # Right values, but the backward function linearizes again on every call, so f runs in the
    # backward pass: reverse mode should only replay the linear program recorded once.
    "ex1_answer": "def vjp_via_linearize(f, *primals):\n"
                  "    out = f(*primals)\n"
                  "    def vjp_fn(ct):\n"
                  "        _, f_lin = jax.linearize(f, *primals)\n"
                  "        return jax.linear_transpose(f_lin, *primals)(ct)\n"
                  "    return out, vjp_fn\n",
    # Takes the transpose of a linear primitive to be the primitive itself: sums in the same
    # direction instead of the opposite one.
    "ex2_answer": "def running_sum_transpose(ct, v, *, axis, reverse):\n"
                  "    if type(ct) is ad.Zero:\n"
                  "        return (ad.Zero(v.aval.to_tangent_aval()),)\n"
                  "    return (running_sum_p.bind(ct, axis=axis, reverse=reverse),)\n"
                  "\n"
                  "ad.primitive_transposes[running_sum_p] = running_sum_transpose\n",
    # Marks only the equations that read a linear input directly, forgetting that their outputs
    # make later equations depend on it too.
    "ex3_answer": "def transposed_equations(jaxpr, linear):\n"
                  "    inputs = [var for var, is_linear in zip(jaxpr.invars, linear) if is_linear]\n"
                  "    return [i for i, eqn in enumerate(jaxpr.eqns)\n"
                  "            if any(isinstance(var, Var) and any(var is x for x in inputs) for var in eqn.invars)]\n",
    # Right derivatives, but tanh is computed inside `linearized`, so it lands in the tangent
    # jaxpr and runs again in every backward pass instead of being saved as a residual.
    "ex4_answer": "def logcosh_linearization(is_vjp, nonzeros, v):\n"
                  "    return logcosh(v), nonzeros[0], None, None, lambda res, _, v_dot: jnp.tanh(v) * v_dot\n"
                  "\n"
                  "ad_internal.primitive_linearizations[logcosh_p] = logcosh_linearization\n",
    # Thinks grad always uses the JVP rule.
    "quiz_answer": 'q1 = "a"\nq2 = "a"\nq3 = "c"\nq4 = "c"\n',
}
