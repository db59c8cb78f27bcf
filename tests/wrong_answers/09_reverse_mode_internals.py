"""Wrong answers for 09_reverse_mode_internals (see tests/wrong_answers/__init__.py)."""

from wrong_answers import W

WRONG = {
    'ex1_answer': [
        W("d", "returns jax.vjp itself, the function the exercise rebuilds",
          "def vjp_via_linearize(f, *primals):\n"
          "    return jax.vjp(f, *primals)\n"),
        W("d", "linearizes for the output, then takes the backward function from jax.vjp",
          "def vjp_via_linearize(f, *primals):\n"
          "    out, _ = jax.linearize(f, *primals)\n"
          "    return out, jax.vjp(f, *primals)[1]\n"),
        W("m", 'Right values, but the backward function linearizes again on every call, so f runs in the backward pass: reverse mode should only replay the linear program recorded once.',
          'def vjp_via_linearize(f, *primals):\n'
          '    out = f(*primals)\n'
          '    def vjp_fn(ct):\n'
          '        _, f_lin = jax.linearize(f, *primals)\n'
          '        return jax.linear_transpose(f_lin, *primals)(ct)\n'
          '    return out, vjp_fn\n'),
        W("m", 'Unwraps the tuple when there is one primal, returning a bare array: jax.vjp always returns a tuple with one cotangent per positional primal, even when there is one.',
          'def vjp_via_linearize(f, *primals):\n'
          '    out, f_lin = jax.linearize(f, *primals)\n'
          '    f_lin_T = jax.linear_transpose(f_lin, *primals)\n'
          '    def vjp_fn(ct):\n'
          '        cts = f_lin_T(ct)\n'
          '        return cts[0] if len(primals) == 1 else cts\n'
          '    return out, vjp_fn\n'),
    ],
    'ex2_answer': [
        W("m", 'Takes the transpose of a linear primitive to be the primitive itself: sums in the same direction instead of the opposite one.',
          'def running_sum_transpose(ct, v, *, axis, reverse):\n'
          '    if type(ct) is ad.Zero:\n'
          '        return (ad.Zero(v.aval.to_tangent_aval()),)\n'
          '    return (running_sum_p.bind(ct, axis=axis, reverse=reverse),)\n'
          '\n'
          'ad.primitive_transposes[running_sum_p] = running_sum_transpose\n'),
        W("m", 'Sums the other way, but through the wrapper without passing `axis`, so always along the last axis: right for 1-d arrays, wrong along any other axis.',
          'def running_sum_transpose(ct, v, *, axis, reverse):\n'
          '    if type(ct) is ad.Zero:\n'
          '        return (ad.Zero(v.aval.to_tangent_aval()),)\n'
          '    return (running_sum(ct, reverse=not reverse),)\n'
          '\n'
          'ad.primitive_transposes[running_sum_p] = running_sum_transpose\n'),
    ],
    'ex3_answer': [
        W("m", 'Marks only the equations that read a linear input directly, forgetting that their outputs make later equations depend on it too.',
          'def transposed_equations(jaxpr, linear):\n'
          '    inputs = [var for var, is_linear in zip(jaxpr.invars, linear) if is_linear]\n'
          '    return [i for i, eqn in enumerate(jaxpr.eqns)\n'
          '            if any(isinstance(var, Var) and any(var is x for x in inputs) for var in eqn.invars)]\n'),
        W("m", "Propagates dependence, but only through an equation's first output, as if every equation had one: the other outputs of a split are missed.",
          'def transposed_equations(jaxpr, linear):\n'
          '    depends = {var for var, is_linear in zip(jaxpr.invars, linear) if is_linear}\n'
          '    found = []\n'
          '    for index, eqn in enumerate(jaxpr.eqns):\n'
          '        if any(isinstance(var, Var) and var in depends for var in eqn.invars):\n'
          '            found.append(index)\n'
          '            depends.add(eqn.outvars[0])\n'
          '    return found\n'),
    ],
    'ex4_answer': [
        W("m", 'Right derivatives, but tanh is computed inside `linearized`, so it lands in the tangent jaxpr and runs again in every backward pass instead of being saved as a residual.',
          'def logcosh_linearization(is_vjp, nonzeros, v):\n'
          '    return logcosh(v), nonzeros[0], None, None, lambda res, _, v_dot: jnp.tanh(v) * v_dot\n'
          '\n'
          'ad_internal.primitive_linearizations[logcosh_p] = logcosh_linearization\n'),
        W("m", 'Saves tanh as a residual, but behind stop_gradient, taking a residual to be a constant: first derivatives are right, the second derivative comes out zero.',
          'def logcosh_linearization(is_vjp, nonzeros, v):\n'
          '    residual = jax.lax.stop_gradient(jnp.tanh(v))\n'
          '    return logcosh(v), nonzeros[0], residual, None, lambda res, _, v_dot: res * v_dot\n'
          '\n'
          'ad_internal.primitive_linearizations[logcosh_p] = logcosh_linearization\n'),
    ],
    'quiz_answer': [
        W("m", 'Thinks grad always uses the JVP rule.',
          'q1 = "a"\n'
          'q2 = "a"\n'
          'q3 = "c"\n'
          'q4 = "c"\n'),
        W("m", 'Thinks every primitive in a JVP needs its own transpose rule, that a transpose error means a JVP rule is missing, and that deflinear2 registers only the transpose rule.',
          'q1 = "b"\n'
          'q2 = "b"\n'
          'q3 = "a"\n'
          'q4 = "a"\n'),
    ],
}
