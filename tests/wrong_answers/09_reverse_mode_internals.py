"""Wrong answers for 09_reverse_mode_internals (see tests/wrong_answers/__init__.py)."""

from wrong_answers import R, W

APPLIES = {'ex1_answer': 'abcdefgm', 'ex2_answer': 'abcegm', 'ex3_answer': 'bcgm', 'ex4_answer': 'bcdegm', 'quiz_answer': 'm'}

# Exercise 4 (a linearization rule that keeps only its output), written from its text before its checks: the
# chapter's pitfalls first (cube's slope residual, the forwarded input, a second binding), then one of each class.
EX4_WRONG = [
    W('m', "saves the slope s (1 - s) as its residual, as section 3's cube saved 3 v**2: right derivatives, but the one residual is an array of slopes, not the output",
      'def logistic_linearization(is_vjp, nonzeros, v):\n    s = logistic(v)\n    slope = s * (1 - s)                               # what the linear part needs, computed now\n    return s, nonzeros[0], slope, None, lambda res, _, v_dot: res * v_dot\n\n# NB: an internal table (jax._src.interpreters.ad); there is no public way to register a linearization rule.\nad_internal.primitive_linearizations[logistic_p] = logistic_linearization\n'),
    W('m', 'saves the input v (inputs are forwarded for free, section 2) and recomputes logistic in the linear part: the residual is x, not the output',
      'def logistic_linearization(is_vjp, nonzeros, v):\n    # keep the input, which is forwarded for free, and recompute the slope from it\n    return logistic(v), nonzeros[0], v, None, lambda res, _, v_dot: logistic(res) * (1 - logistic(res)) * v_dot\n\n# NB: an internal table (jax._src.interpreters.ad); there is no public way to register a linearization rule.\nad_internal.primitive_linearizations[logistic_p] = logistic_linearization\n'),
    W('m', 'binds logistic twice, once for primal_out and once for the residual: two logistic equations, and the residual is another array than y',
      'def logistic_linearization(is_vjp, nonzeros, v):\n    residual = logistic(v)                            # the output, as the residual\n    return logistic(v), nonzeros[0], residual, None, lambda s, _, v_dot: s * (1 - s) * v_dot\n\n# NB: an internal table (jax._src.interpreters.ad); there is no public way to register a linearization rule.\nad_internal.primitive_linearizations[logistic_p] = logistic_linearization\n'),
    W('m', "primal_out from logistic_ref (jax.nn.sigmoid), not the primitive: values right, but logistic_p is gone from the gradient's program",
      'def logistic_linearization(is_vjp, nonzeros, v):\n    s = logistic_ref(v)\n    return s, nonzeros[0], s, None, lambda res, _, v_dot: res * (1 - res) * v_dot\n\n# NB: an internal table (jax._src.interpreters.ad); there is no public way to register a linearization rule.\nad_internal.primitive_linearizations[logistic_p] = logistic_linearization\n'),
    W('b', 'keeps the output only for jax.linearize (is_vjp=False); under jax.vjp and jax.grad it saves the slopes, to spare the backward pass the work',
      'def logistic_linearization(is_vjp, nonzeros, v):\n    s = logistic(v)\n    if is_vjp:   # reverse mode: have the slope ready for the backward pass\n        return s, nonzeros[0], s * (1 - s), None, lambda res, _, v_dot: res * v_dot\n    return s, nonzeros[0], s, None, lambda res, _, v_dot: res * (1 - res) * v_dot\n\n# NB: an internal table (jax._src.interpreters.ad); there is no public way to register a linearization rule.\nad_internal.primitive_linearizations[logistic_p] = logistic_linearization\n'),
    W('b', 'keeps the output only under jax.vjp (is_vjp=True); jax.linearize, whose linear part is not transposed, gets the slopes',
      'def logistic_linearization(is_vjp, nonzeros, v):\n    s = logistic(v)\n    if not is_vjp:   # forward use of the linear part: the slope is all it needs\n        return s, nonzeros[0], s * (1 - s), None, lambda res, _, v_dot: res * v_dot\n    return s, nonzeros[0], s, None, lambda res, _, v_dot: res * (1 - res) * v_dot\n\n# NB: an internal table (jax._src.interpreters.ad); there is no public way to register a linearization rule.\nad_internal.primitive_linearizations[logistic_p] = logistic_linearization\n'),
    W('c', 'writes 1 - s with a float32 constant: right in float32, but a bfloat16 x gets float32 tangents',
      'def logistic_linearization(is_vjp, nonzeros, v):\n    s = logistic(v)\n    one = jnp.float32(1.0)\n    return s, nonzeros[0], s, None, lambda res, _, v_dot: res * (one - res) * v_dot\n\n# NB: an internal table (jax._src.interpreters.ad); there is no public way to register a linearization rule.\nad_internal.primitive_linearizations[logistic_p] = logistic_linearization\n'),
    W('c', 'recovers x from the output as log(s / (1 - s)) and applies the textbook e^-x / (1 + e^-x)^2: nan at x = -100',
      'def logistic_linearization(is_vjp, nonzeros, v):\n    s = logistic(v)\n    def linearized(res, _, v_dot):\n        back = jnp.log(res / (1 - res))                # x again, from the output\n        e = jnp.exp(-back)\n        return e / (1 + e) ** 2 * v_dot\n    return s, nonzeros[0], s, None, linearized\n\n# NB: an internal table (jax._src.interpreters.ad); there is no public way to register a linearization rule.\nad_internal.primitive_linearizations[logistic_p] = logistic_linearization\n'),
    W('g', "computes the residual from the notebook's global x instead of v: right only at that x",
      'def logistic_linearization(is_vjp, nonzeros, v):\n    s = logistic(x)\n    return logistic(v), nonzeros[0], s, None, lambda res, _, v_dot: res * (1 - res) * v_dot\n\n# NB: an internal table (jax._src.interpreters.ad); there is no public way to register a linearization rule.\nad_internal.primitive_linearizations[logistic_p] = logistic_linearization\n'),
    W('d', 'builds the tangent with the given JVP rule, logistic_jvp: the JVP rule runs under jax.grad, and the residual is the input',
      'def logistic_linearization(is_vjp, nonzeros, v):\n    return logistic(v), nonzeros[0], v, None, lambda res, _, v_dot: logistic_jvp(v_dot, res)\n\n# NB: an internal table (jax._src.interpreters.ad); there is no public way to register a linearization rule.\nad_internal.primitive_linearizations[logistic_p] = logistic_linearization\n'),
    W('d', "lets jax.linearize linearize jax.nn.sigmoid inside the rule: the residuals are sigmoid's, not logistic_p's output",
      'def logistic_linearization(is_vjp, nonzeros, v):\n    out, lin = jax.linearize(jax.nn.sigmoid, v)\n    return logistic(v), nonzeros[0], None, None, lambda res, _, v_dot: lin(v_dot)\n\n# NB: an internal table (jax._src.interpreters.ad); there is no public way to register a linearization rule.\nad_internal.primitive_linearizations[logistic_p] = logistic_linearization\n'),
    W('e', "wraps the residual in stop_gradient, taking a residual to be a constant: first derivatives right, the second derivative loses the slope's own derivative",
      'def logistic_linearization(is_vjp, nonzeros, v):\n    s = logistic(v)\n    return s, nonzeros[0], jax.lax.stop_gradient(s), None, lambda res, _, v_dot: res * (1 - res) * v_dot\n\n# NB: an internal table (jax._src.interpreters.ad); there is no public way to register a linearization rule.\nad_internal.primitive_linearizations[logistic_p] = logistic_linearization\n'),
    W('e', 'wraps primal_out in stop_gradient (the primal is a plain value, the linear part carries the derivative): grad through the value of value_and_grad is zero',
      'def logistic_linearization(is_vjp, nonzeros, v):\n    s = logistic(v)\n    return jax.lax.stop_gradient(s), nonzeros[0], s, None, lambda res, _, v_dot: res * (1 - res) * v_dot\n\n# NB: an internal table (jax._src.interpreters.ad); there is no public way to register a linearization rule.\nad_internal.primitive_linearizations[logistic_p] = logistic_linearization\n'),
    W('e', 'computes the slope with NumPy from the output: eager linearize works, grad of grad and jit cannot turn a tracer into a NumPy array',
      'def logistic_linearization(is_vjp, nonzeros, v):\n    s = logistic(v)\n    return s, nonzeros[0], s, None, lambda res, _, v_dot: np.asarray(res) * (1 - np.asarray(res)) * v_dot\n\n# NB: an internal table (jax._src.interpreters.ad); there is no public way to register a linearization rule.\nad_internal.primitive_linearizations[logistic_p] = logistic_linearization\n'),
]

WRONG = {
    'ex1_answer': [
        W('d', 'returns jax.vjp itself, the function the exercise rebuilds',
          'def vjp_via_linearize(f, *primals):\n'
          '    return jax.vjp(f, *primals)\n'),
        W('d', 'linearizes for the output, then takes the backward function from jax.vjp',
          'def vjp_via_linearize(f, *primals):\n'
          '    out, _ = jax.linearize(f, *primals)\n'
          '    return out, jax.vjp(f, *primals)[1]\n'),
        W('m', 'Right values, but vjp_fn linearizes again on every call, so f runs in every backward pass instead of once.',
          'def vjp_via_linearize(f, *primals):\n'
          '    out = f(*primals)\n'
          '    def vjp_fn(ct):\n'
          '        _, f_lin = jax.linearize(f, *primals)\n'
          '        return jax.linear_transpose(f_lin, *primals)(ct)\n'
          '    return out, vjp_fn\n'),
        W('m', 'Unwraps the tuple when there is one primal: jax.vjp returns a tuple with one cotangent per positional primal, even for one.',
          'def vjp_via_linearize(f, *primals):\n'
          '    out, f_lin = jax.linearize(f, *primals)\n'
          '    f_lin_T = jax.linear_transpose(f_lin, *primals)\n'
          '    def vjp_fn(ct):\n'
          '        cts = f_lin_T(ct)\n'
          '        return cts[0] if len(primals) == 1 else cts\n'
          '    return out, vjp_fn\n'),
        W('a', 'vjp_fn pulls back a cotangent of ones whatever ct is (what grad does): right only for an all-ones ct',
          'def vjp_via_linearize(f, *primals):\n'
          '    out, f_lin = jax.linearize(f, *primals)\n'
          '    f_T = jax.linear_transpose(f_lin, *primals)\n'
          '    def vjp_fn(ct):\n'
          '        return f_T(jax.tree.map(jnp.ones_like, out))      # pull back the seed of ones, as grad does\n'
          '    return out, vjp_fn\n'),
        W('b', 'differentiates only the first positional primal (others closed over): vjp_fn returns one cotangent instead of one per primal',
          'def vjp_via_linearize(f, *primals):\n'
          '    first, rest = primals[0], primals[1:]\n'
          '    out, f_lin = jax.linearize(lambda p: f(p, *rest), first)   # differentiate the first argument\n'
          '    return out, jax.linear_transpose(f_lin, first)\n'),
        W('b', 'casts every cotangent to float32: right for float32 primals, wrong dtype (float32) for bfloat16 primals',
          'def vjp_via_linearize(f, *primals):\n'
          '    out, f_lin = jax.linearize(f, *primals)\n'
          '    f_T = jax.linear_transpose(f_lin, *primals)\n'
          '    def vjp_fn(ct):\n'
          '        return tuple(jax.tree.map(lambda g: g.astype(jnp.float32), f_T(ct)))\n'
          '    return out, vjp_fn\n'),
        W('c', 'flattens the primals to leaves and returns one cotangent per leaf: right for array primals, flat tuple instead of the dict/tuple structure for pytree primals',
          'def vjp_via_linearize(f, *primals):\n'
          '    leaves, treedef = jax.tree.flatten(primals)\n'
          '    flat_f = lambda *flat: f(*jax.tree.unflatten(treedef, flat))\n'
          '    out, f_lin = jax.linearize(flat_f, *leaves)\n'
          '    return out, jax.linear_transpose(f_lin, *leaves)        # one cotangent per leaf\n'),
        W('g', "converts ct with jnp.asarray(ct, dtype=out.dtype), assuming a single-array output like the text's: AttributeError for tuple/dict outputs",
          'def vjp_via_linearize(f, *primals):\n'
          '    out, f_lin = jax.linearize(f, *primals)\n'
          '    f_T = jax.linear_transpose(f_lin, *primals)\n'
          '    def vjp_fn(ct):\n'
          "        return f_T(jnp.asarray(ct, dtype=out.dtype))        # match the output's dtype\n"
          '    return out, vjp_fn\n'),
        W('e', 'coerces ct to NumPy arrays of the output dtype: eager vjp_fn works, jax.jit(vjp_fn) raises TracerArrayConversionError',
          'def vjp_via_linearize(f, *primals):\n'
          '    out, f_lin = jax.linearize(f, *primals)\n'
          '    f_T = jax.linear_transpose(f_lin, *primals)\n'
          '    def vjp_fn(ct):\n'
          "        ct = jax.tree.map(lambda c, o: np.asarray(c, dtype=o.dtype), ct, out)   # the output's dtypes\n"
          '        return f_T(ct)\n'
          '    return out, vjp_fn\n'),
        W('f', "caches the linearization keyed by f so 'f runs once' across calls: a second call with other primals returns the first call's out and cotangents; grad through it gives 0",
          '_linearized = {}   # f -> (out, transpose): f runs only once\n'
          '\n'
          'def vjp_via_linearize(f, *primals):\n'
          '    if f not in _linearized:\n'
          '        out, f_lin = jax.linearize(f, *primals)\n'
          '        _linearized[f] = (out, jax.linear_transpose(f_lin, *primals))\n'
          '    return _linearized[f]\n'),
        W('m', "applies the linear map f_lin to the cotangent instead of its transpose (section 1's pitfall): wrong for non-symmetric Jacobians, errors when shapes differ",
          'def vjp_via_linearize(f, *primals):\n'
          '    out, f_lin = jax.linearize(f, *primals)\n'
          '    return out, lambda ct: (f_lin(ct),)                      # the linear map, applied to the cotangent\n'),
        W('a', 'transposes once at a cotangent of ones and multiplies by ct: right for scalar outputs and elementwise f, wrong for cumsum/outer with a non-uniform ct',
          'def vjp_via_linearize(f, *primals):\n'
          '    out, f_lin = jax.linearize(f, *primals)            # the forward pass, once\n'
          '    f_T = jax.linear_transpose(f_lin, *primals)\n'
          '    unit = f_T(jax.tree.map(jnp.ones_like, out))       # transpose once, at a cotangent of one\n'
          '\n'
          '    def vjp_fn(ct):\n'
          '        return tuple(jax.tree.map(lambda g: g * ct, u) for u in unit)   # then scale by the cotangent\n'
          '    return out, vjp_fn\n'),
        W('c', 'passes jnp.zeros_like(p) per primal to linear_transpose: right for array primals, fails for dict/tuple primals',
          'def vjp_via_linearize(f, *primals):\n'
          '    out, f_lin = jax.linearize(f, *primals)            # the forward pass, once\n'
          '    examples = [jnp.zeros_like(p) for p in primals]    # linear_transpose only needs example tangents\n'
          '    return out, jax.linear_transpose(f_lin, *examples)\n'),
        W('d', 'backward pass is jax.vjp(f_lin, ...) instead of jax.linear_transpose: values right, calls jax.vjp',
          'def vjp_via_linearize(f, *primals):\n'
          '    out, f_lin = jax.linearize(f, *primals)            # the forward pass, once\n'
          '    _, back = jax.vjp(f_lin, *primals)                 # f_lin is linear: its VJP is its transpose\n'
          '    return out, back\n'),
        W('g', 'vjp_fn returns (f_T(ct)[0],): right for one primal, drops the cotangents of the other primals',
          'def vjp_via_linearize(f, *primals):\n'
          '    out, f_lin = jax.linearize(f, *primals)            # the forward pass, once\n'
          '    f_T = jax.linear_transpose(f_lin, *primals)\n'
          '    return out, lambda ct: (f_T(ct)[0],)               # one cotangent, as a tuple\n'),
        W('c', "section 1's vjp_of_one for several primals: passes the primals themselves as linear_transpose's examples, so an integer or boolean leaf is given an integer tangent type and fails",
          'def vjp_via_linearize(f, *primals):\n'
          '    out, f_lin = jax.linearize(f, *primals)             # the forward pass, once\n'
          '    return out, jax.linear_transpose(f_lin, *primals)  # the backward pass: transpose the linear part\n'),
        W('c', 'gives float0 examples to integer leaves only (jnp.integer): a boolean mask still gets a bool tangent type and fails',
          'def vjp_via_linearize(f, *primals):\n'
          '    out, f_lin = jax.linearize(f, *primals)\n'
          '    def example(p):\n'
          '        if jnp.issubdtype(jnp.result_type(p), jnp.integer):\n'
          '            return jax.ShapeDtypeStruct(jnp.shape(p), jax.dtypes.float0)\n'
          '        return p\n'
          '    return out, jax.linear_transpose(f_lin, *jax.tree.map(example, primals))\n'),
        W('m', 'closes over the integer and boolean leaves and differentiates the floating ones only, returning zeros of the integer dtype for the others instead of float0',
          'def vjp_via_linearize(f, *primals):\n'
          '    leaves, treedef = jax.tree.flatten(primals)\n'
          '    is_float = [jnp.issubdtype(jnp.result_type(l), jnp.inexact) for l in leaves]\n'
          '    floats = [l for l, fl in zip(leaves, is_float) if fl]\n'
          '    def on_floats(*fs):\n'
          '        it = iter(fs)\n'
          '        return f(*jax.tree.unflatten(treedef, [next(it) if fl else l for l, fl in zip(leaves, is_float)]))\n'
          '    out, f_lin = jax.linearize(on_floats, *floats)\n'
          '    f_T = jax.linear_transpose(f_lin, *floats)\n'
          '    def vjp_fn(ct):\n'
          '        it = iter(f_T(ct))\n'
          '        cts = [next(it) if fl else jnp.zeros_like(l) for l, fl in zip(leaves, is_float)]   # zero cotangent for an int\n'
          '        return tuple(jax.tree.unflatten(treedef, cts))\n'
          '    return out, vjp_fn\n'),
        W('m', 'returns None for an integer or boolean leaf, as a transpose rule does for a known operand, instead of a float0 array',
          'def vjp_via_linearize(f, *primals):\n'
          '    out, f_lin = jax.linearize(f, *primals)\n'
          '    is_float = lambda p: jnp.issubdtype(jnp.result_type(p), jnp.inexact)\n'
          '    examples = jax.tree.map(lambda p: p if is_float(p) else jax.ShapeDtypeStruct(jnp.shape(p), jax.dtypes.float0), primals)\n'
          '    f_T = jax.linear_transpose(f_lin, *examples)\n'
          '    def vjp_fn(ct):\n'
          '        return tuple(jax.tree.map(lambda c, p: c if is_float(p) else None, f_T(ct), primals))\n'
          '    return out, vjp_fn\n'),
        W('m', 'casts every primal to float32 before linearizing, so integer leaves get float32 cotangents (and f computes integer outputs in float32)',
          'def vjp_via_linearize(f, *primals):\n'
          '    as_float = jax.tree.map(lambda p: jnp.asarray(p, jnp.float32) if not jnp.issubdtype(jnp.result_type(p), jnp.inexact) else p, primals)\n'
          '    out, f_lin = jax.linearize(f, *as_float)\n'
          '    return out, jax.linear_transpose(f_lin, *as_float)\n'),
        W('c', "turns integer cotangents in ct into float0 but builds the examples from the primals as they are: an integer primal still fails (only the output side is handled)",
          'def vjp_via_linearize(f, *primals):\n'
          '    out, f_lin = jax.linearize(f, *primals)\n'
          '    f_T = jax.linear_transpose(f_lin, *primals)\n'
          '    def vjp_fn(ct):\n'
          '        ct = jax.tree.map(lambda c, o: np.zeros(jnp.shape(o), jax.dtypes.float0)\n'
          '                          if not jnp.issubdtype(jnp.result_type(o), jnp.inexact) else c, ct, out)\n'
          '        return f_T(ct)\n'
          '    return out, vjp_fn\n'),
        W('g', 'recognises only int32 and bool as non-differentiable: int8/uint8 leaves make linear_transpose raise',
          'def vjp_via_linearize(f, *primals):\n    out, f_lin = jax.linearize(f, *primals)\n    def example(p):\n        if jnp.result_type(p) in (jnp.int32, jnp.bool_):\n            return jax.ShapeDtypeStruct(jnp.shape(p), jax.dtypes.float0)\n        return p\n    return out, jax.linear_transpose(f_lin, *jax.tree.map(example, primals))\n'),
        W('c', 'reads p.dtype/p.shape: a Python scalar primal (2.0, 3) raises AttributeError',
          'def vjp_via_linearize(f, *primals):\n    out, f_lin = jax.linearize(f, *primals)\n    def example(p):\n        if jnp.issubdtype(p.dtype, jnp.inexact):\n            return jax.ShapeDtypeStruct(p.shape, p.dtype)\n        return jax.ShapeDtypeStruct(p.shape, jax.dtypes.float0)\n    return out, jax.linear_transpose(f_lin, *jax.tree.map(example, primals))\n'),
    ],
    'ex2_answer': [
        W('m', "section 5's running-total transpose with the weights left out: sums ct the other way but never multiplies by the known operand",
          'def weighted_running_sum_transpose(ct, w, v, *, axis, reverse):\n'
          '    if type(ct) is ad.Zero:\n'
          '        return tuple(ad.Zero(o.aval.to_tangent_aval()) if ad.is_undefined_primal(o) else None for o in (w, v))\n'
          '    back = jax.lax.cumsum(ct, axis=axis, reverse=not reverse)\n'
          '    return tuple(back if ad.is_undefined_primal(o) else None for o in (w, v))\n'
          '\n'
          'ad.primitive_transposes[weighted_running_sum_p] = weighted_running_sum_transpose\n'),
        W('m', 'multiplies the cotangent by the known operand before the reversed sum instead of after it: sum of w_i ct_i instead of w_j times the sum of ct_i',
          'def weighted_running_sum_transpose(ct, w, v, *, axis, reverse):\n'
          '    if ad.is_undefined_primal(v):\n'
          '        if type(ct) is ad.Zero:\n'
          '            return (None, ad.Zero(v.aval.to_tangent_aval()))\n'
          '        return (None, jax.lax.cumsum(w * ct, axis=axis, reverse=not reverse))\n'
          '    if type(ct) is ad.Zero:\n'
          '        return (ad.Zero(w.aval.to_tangent_aval()), None)\n'
          '    return (jax.lax.cumsum(v * ct, axis=axis, reverse=not reverse), None)\n'
          '\n'
          'ad.primitive_transposes[weighted_running_sum_p] = weighted_running_sum_transpose\n'),
        W('m', 'treats v as the only linear operand (as if w were a fixed weight): the gradient with respect to w fails',
          'def weighted_running_sum_transpose(ct, w, v, *, axis, reverse):\n'
          '    if type(ct) is ad.Zero:\n'
          '        return (None, ad.Zero(v.aval.to_tangent_aval()))\n'
          '    return (None, w * jax.lax.cumsum(ct, axis=axis, reverse=not reverse))\n'
          '\n'
          'ad.primitive_transposes[weighted_running_sum_p] = weighted_running_sum_transpose\n'),
        W('m', 'returns the two entries in the wrong order (the undefined operand first, whichever it is)',
          'def weighted_running_sum_transpose(ct, w, v, *, axis, reverse):\n'
          '    linear, known = (w, v) if ad.is_undefined_primal(w) else (v, w)\n'
          '    if type(ct) is ad.Zero:\n'
          '        return (ad.Zero(linear.aval.to_tangent_aval()), None)\n'
          '    return (known * jax.lax.cumsum(ct, axis=axis, reverse=not reverse), None)\n'
          '\n'
          'ad.primitive_transposes[weighted_running_sum_p] = weighted_running_sum_transpose\n'),
        W('m', 'sums in the same direction as the forward pass, as if the transpose of a running sum were itself',
          'def weighted_running_sum_transpose(ct, w, v, *, axis, reverse):\n'
          '    if type(ct) is ad.Zero:\n'
          '        return tuple(ad.Zero(o.aval.to_tangent_aval()) if ad.is_undefined_primal(o) else None for o in (w, v))\n'
          '    known = v if ad.is_undefined_primal(w) else w\n'
          '    back = known * jax.lax.cumsum(ct, axis=axis, reverse=reverse)\n'
          '    return (back, None) if ad.is_undefined_primal(w) else (None, back)\n'
          '\n'
          'ad.primitive_transposes[weighted_running_sum_p] = weighted_running_sum_transpose\n'),
        W('m', "no symbolic-zero branch: called with an ad.Zero cotangent the rule raises instead of returning a Zero for the undefined operand",
          'def weighted_running_sum_transpose(ct, w, v, *, axis, reverse):\n'
          '    known = v if ad.is_undefined_primal(w) else w\n'
          '    back = known * jax.lax.cumsum(ct, axis=axis, reverse=not reverse)\n'
          '    return (back, None) if ad.is_undefined_primal(w) else (None, back)\n'
          '\n'
          'ad.primitive_transposes[weighted_running_sum_p] = weighted_running_sum_transpose\n'),
        W('b', 'always sums from the end (reverse=True), ignoring the reverse parameter: right for reverse=False only',
          'def weighted_running_sum_transpose(ct, w, v, *, axis, reverse):\n'
          '    if type(ct) is ad.Zero:\n'
          '        return tuple(ad.Zero(o.aval.to_tangent_aval()) if ad.is_undefined_primal(o) else None for o in (w, v))\n'
          '    known = v if ad.is_undefined_primal(w) else w\n'
          '    back = known * jax.lax.cumsum(ct, axis=axis, reverse=True)\n'
          '    return (back, None) if ad.is_undefined_primal(w) else (None, back)\n'
          '\n'
          'ad.primitive_transposes[weighted_running_sum_p] = weighted_running_sum_transpose\n'),
        W('b', 'sums along the last axis whatever axis is: right for 1-d arrays and axis=-1 only',
          'def weighted_running_sum_transpose(ct, w, v, *, axis, reverse):\n'
          '    if type(ct) is ad.Zero:\n'
          '        return tuple(ad.Zero(o.aval.to_tangent_aval()) if ad.is_undefined_primal(o) else None for o in (w, v))\n'
          '    known = v if ad.is_undefined_primal(w) else w\n'
          '    back = known * jnp.flip(jnp.cumsum(jnp.flip(ct, -1), axis=-1), -1) if not reverse else known * jnp.cumsum(ct, axis=-1)\n'
          '    return (back, None) if ad.is_undefined_primal(w) else (None, back)\n'
          '\n'
          'ad.primitive_transposes[weighted_running_sum_p] = weighted_running_sum_transpose\n'),
        W('a', 'multiplies the known operand by the number of outputs each element fed, ignoring ct: right only for grad of a plain .sum()',
          'def weighted_running_sum_transpose(ct, w, v, *, axis, reverse):\n'
          '    if type(ct) is ad.Zero:\n'
          '        return tuple(ad.Zero(o.aval.to_tangent_aval()) if ad.is_undefined_primal(o) else None for o in (w, v))\n'
          '    known = v if ad.is_undefined_primal(w) else w\n'
          '    n = known.shape[axis]\n'
          '    fed = (jnp.arange(1, n + 1) if reverse else jnp.arange(n, 0, -1)).astype(known.dtype)\n'
          '    back = known * fed.reshape([n if a == axis else 1 for a in range(known.ndim)])\n'
          '    return (back, None) if ad.is_undefined_primal(w) else (None, back)\n'
          '\n'
          'ad.primitive_transposes[weighted_running_sum_p] = weighted_running_sum_transpose\n'),
        W('c', 'transposes with a float32 triangular matrix of ones: values right, but bfloat16 cotangents come back as float32',
          'def weighted_running_sum_transpose(ct, w, v, *, axis, reverse):\n'
          '    if type(ct) is ad.Zero:\n'
          '        return tuple(ad.Zero(o.aval.to_tangent_aval()) if ad.is_undefined_primal(o) else None for o in (w, v))\n'
          '    known = v if ad.is_undefined_primal(w) else w\n'
          '    n = ct.shape[axis]\n'
          '    tri = jnp.triu(jnp.ones((n, n))) if reverse else jnp.tril(jnp.ones((n, n)))   # the other triangle\n'
          '    back = known * jnp.moveaxis(jnp.moveaxis(ct, axis, -1) @ tri, -1, axis)\n'
          '    return (back, None) if ad.is_undefined_primal(w) else (None, back)\n'
          '\n'
          'ad.primitive_transposes[weighted_running_sum_p] = weighted_running_sum_transpose\n'),
        W('g', "jnp.cumsum without an axis (it flattens), written for 1-d examples: 2-d inputs get a flat cotangent",
          'def weighted_running_sum_transpose(ct, w, v, *, axis, reverse):\n'
          '    if type(ct) is ad.Zero:\n'
          '        return tuple(ad.Zero(o.aval.to_tangent_aval()) if ad.is_undefined_primal(o) else None for o in (w, v))\n'
          '    known = v if ad.is_undefined_primal(w) else w\n'
          '    back = known * (jnp.cumsum(ct) if reverse else jnp.cumsum(ct[::-1])[::-1])\n'
          '    return (back, None) if ad.is_undefined_primal(w) else (None, back)\n'
          '\n'
          'ad.primitive_transposes[weighted_running_sum_p] = weighted_running_sum_transpose\n'),
        W('e', 'transposes in NumPy: eager grad works, jit(grad), vmap(grad) and second derivatives raise TracerArrayConversionError',
          'def weighted_running_sum_transpose(ct, w, v, *, axis, reverse):\n'
          '    if type(ct) is ad.Zero:\n'
          '        return tuple(ad.Zero(o.aval.to_tangent_aval()) if ad.is_undefined_primal(o) else None for o in (w, v))\n'
          '    known = np.asarray(v if ad.is_undefined_primal(w) else w)\n'
          '    ct = np.asarray(ct)\n'
          '    summed = np.cumsum(ct, axis=axis) if reverse else np.flip(np.cumsum(np.flip(ct, axis), axis=axis), axis)\n'
          '    back = jnp.asarray(known * summed)\n'
          '    return (back, None) if ad.is_undefined_primal(w) else (None, back)\n'
          '\n'
          'ad.primitive_transposes[weighted_running_sum_p] = weighted_running_sum_transpose\n'),
        W('m', 'returns a cotangent for the known operand too (ct summed the other way, times nothing), where a transpose rule returns None',
          'def weighted_running_sum_transpose(ct, w, v, *, axis, reverse):\n'
          '    if type(ct) is ad.Zero:\n'
          '        return tuple(ad.Zero(o.aval.to_tangent_aval()) if ad.is_undefined_primal(o) else None for o in (w, v))\n'
          '    summed = jax.lax.cumsum(ct, axis=axis, reverse=not reverse)\n'
          '    if ad.is_undefined_primal(w):\n'
          '        return (v * summed, summed)\n'
          '    return (summed, w * summed)\n'
          '\n'
          'ad.primitive_transposes[weighted_running_sum_p] = weighted_running_sum_transpose\n'),
    ],
    'ex3_answer': [
        W('c', 'Skips an equation whose lookup meets a Literal (the TypeError caught): right while a Literal only ever follows a linear input, as in u * 2.0, wrong for 0.5 * u.',
          'def transposed_equations(jaxpr, linear):\n'
          '    depends = {var for var, is_linear in zip(jaxpr.invars, linear) if is_linear}\n'
          '    found = []\n'
          '    for index, eqn in enumerate(jaxpr.eqns):\n'
          '        try:\n'
          '            hit = any(var in depends for var in eqn.invars)\n'
          '        except TypeError:  # a Literal cannot be looked up in a set: treat the equation as constant\n'
          '            continue\n'
          '        if hit:\n'
          '            found.append(index)\n'
          '            depends.update(eqn.outvars)\n'
          '    return found\n'),
        W('m', 'Marks only the equations that read a linear input directly, forgetting that their outputs make later equations depend on it too.',
          'def transposed_equations(jaxpr, linear):\n'
          '    inputs = [var for var, is_linear in zip(jaxpr.invars, linear) if is_linear]\n'
          '    return [i for i, eqn in enumerate(jaxpr.eqns)\n'
          '            if any(isinstance(var, Var) and any(var is x for x in inputs) for var in eqn.invars)]\n'),
        W('c', "Propagates dependence through an equation's first output only: right while every equation has one output, misses a split's others.",
          'def transposed_equations(jaxpr, linear):\n'
          '    depends = {var for var, is_linear in zip(jaxpr.invars, linear) if is_linear}\n'
          '    found = []\n'
          '    for index, eqn in enumerate(jaxpr.eqns):\n'
          '        if any(isinstance(var, Var) and var in depends for var in eqn.invars):\n'
          '            found.append(index)\n'
          '            depends.add(eqn.outvars[0])\n'
          '    return found\n'),
        W('c', 'tests `var in depends` on every input, Literals included: TypeError unhashable Literal on any jaxpr with a literal in a dependent position (e.g. 3.0 * u)',
          'def transposed_equations(jaxpr, linear):\n'
          '    depends = {var for var, is_linear in zip(jaxpr.invars, linear) if is_linear}\n'
          '    found = []\n'
          '    for index, eqn in enumerate(jaxpr.eqns):\n'
          '        if any(var in depends for var in eqn.invars):\n'
          '            found.append(index)\n'
          '            depends.update(eqn.outvars)\n'
          '    return found\n'),
        W('m', 'returns the indices in reverse (the order the backward pass walks them) instead of increasing order',
          'def transposed_equations(jaxpr, linear):\n'
          '    depends = {var for var, is_linear in zip(jaxpr.invars, linear) if is_linear}\n'
          '    found = []\n'
          '    for index, eqn in enumerate(jaxpr.eqns):\n'
          '        if any(isinstance(var, Var) and var in depends for var in eqn.invars):\n'
          '            found.append(index)\n'
          '            depends.update(eqn.outvars)\n'
          '    return found[::-1]                                 # the backward pass walks them last to first\n'),
        W('b', 'ignores the linear flags, treating every invar as linear: known-input equations (sin w, cos w) are listed too',
          'def transposed_equations(jaxpr, linear):\n'
          "    depends = set(jaxpr.invars)                        # the program's inputs\n"
          '    found = []\n'
          '    for index, eqn in enumerate(jaxpr.eqns):\n'
          '        if any(isinstance(var, Var) and var in depends for var in eqn.invars):\n'
          '            found.append(index)\n'
          '            depends.update(eqn.outvars)\n'
          '    return found\n'),
        W('g', "looks only at eqn.invars[0] (the operand position of the text's examples): misses equations whose linear input is second, e.g. mul 3.0 u or mul c u",
          'def transposed_equations(jaxpr, linear):\n'
          '    depends = {var for var, is_linear in zip(jaxpr.invars, linear) if is_linear}\n'
          '    found = []\n'
          '    for index, eqn in enumerate(jaxpr.eqns):\n'
          '        first = eqn.invars[0]\n'
          "        if isinstance(first, Var) and first in depends:   # the tangent is the equation's operand\n"
          '            found.append(index)\n'
          '            depends.update(eqn.outvars)\n'
          '    return found\n'),
        W('m', 'requires all Var inputs to be linear (any -> all): an equation mixing a linear and a known input, such as mul c d in the tap example, is left out',
          'def transposed_equations(jaxpr, linear):\n'
          '    depends = {var for var, is_linear in zip(jaxpr.invars, linear) if is_linear}\n'
          '    found = []\n'
          '    for index, eqn in enumerate(jaxpr.eqns):\n'
          '        if all(isinstance(var, Var) and var in depends for var in eqn.invars if isinstance(var, Var)):\n'
          '            found.append(index)\n'
          '            depends.update(eqn.outvars)\n'
          '    return found\n'),
        W('b', 'takes the last sum(linear) invars as the linear ones: right for [True] or [False, True], wrong for [True, False]',
          'def transposed_equations(jaxpr, linear):\n'
          '    n_linear = sum(linear)                              # the linear inputs come after the known ones\n'
          '    depends = set(jaxpr.invars[len(jaxpr.invars) - n_linear:])\n'
          '    found = []\n'
          '    for index, eqn in enumerate(jaxpr.eqns):\n'
          '        if any(isinstance(var, Var) and var in depends for var in eqn.invars):\n'
          '            found.append(index)\n'
          '            depends.update(eqn.outvars)\n'
          '    return found\n'),
        W('g', 'checks only eqn.invars[0] (tangent first, as in the printed `mul b a`): misses `mul k t` with the known value first',
          'def transposed_equations(jaxpr, linear):\n'
          '    depends = {var for var, is_linear in zip(jaxpr.invars, linear) if is_linear}\n'
          '    found = []\n'
          '    for index, eqn in enumerate(jaxpr.eqns):\n'
          '        operand = eqn.invars[0] if eqn.invars else None   # the tangent operand comes first\n'
          '        if isinstance(operand, Var) and operand in depends:\n'
          '            found.append(index)\n'
          '            depends.update(eqn.outvars)\n'
          '    return found\n'),
    ],
    'ex4_answer': EX4_WRONG,
    'quiz_answer': [
        W('m', 'q2=b, q3=a, q4=a: every primitive needs a transpose rule, a transpose error means a JVP rule is missing, deflinear2 registers only a transpose.',
          'q1 = "b"\n'
          'q2 = "b"\n'
          'q3 = "a"\n'
          'q4 = "a"\n'),
        W('m', "q1=a: thinks grad always uses the JVP rule (misses section 3's 'linearization rule first')",
          'q1 = "a"\n'
          'q2 = "a"\n'
          'q3 = "c"\n'
          'q4 = "c"\n'),
        W('m', 'q2=b: thinks every primitive needs its own transpose rule (misses section 7)',
          'q1 = "b"\n'
          'q2 = "b"\n'
          'q3 = "c"\n'
          'q4 = "c"\n'),
        W('m', "q3=b: reads the 'Transpose rule for sin' message as sin not being differentiable (section 6)",
          'q1 = "b"\n'
          'q2 = "a"\n'
          'q3 = "b"\n'
          'q4 = "c"\n'),
        W('m', 'q4=a: thinks deflinear2 registers only the transpose rule (section 5 shows jvp + transpose)',
          'q1 = "b"\n'
          'q2 = "a"\n'
          'q3 = "c"\n'
          'q4 = "a"\n'),
        W('m', 'q2=b, q4=a: thinks every primitive needs its own transpose rule and that deflinear2 registers only a transpose (sections 5 and 7)',
          'q1 = "b"\n'
          'q2 = "b"\n'
          'q3 = "c"\n'
          'q4 = "a"\n'),
    ],
}

# Round 4: written from the text alone, with the mistakes above listed as already caught, before the checks were read;
# each passed every visible check, and some scored full marks, until the checks were made to catch them.
WRONG['ex1_answer'] += [
    W('c', 'differentiable leaves recognised with jnp.issubdtype(dtype, jnp.floating): complex leaves get a float0 example and linear_transpose raises (jax.vjp handles complex)',
      'def vjp_via_linearize(f, *primals):\n    def example(p):\n        # a float leaf has a real tangent; anything else (int, bool) has float0\n        if jnp.issubdtype(jnp.result_type(p), jnp.floating):\n            return p\n        return np.zeros(np.shape(p), jax.dtypes.float0)\n    out, f_lin = jax.linearize(f, *primals)          # f runs once, here\n    f_T = jax.linear_transpose(f_lin, *jax.tree.map(example, primals))\n    return out, f_T\n'),
    W('c', 'integer leaves recognised with NumPy np.issubdtype(dtype, np.integer) or bool: the ml_dtypes int4/uint4 are not np.integer, so they get a real example and linear_transpose raises',
      'def vjp_via_linearize(f, *primals):\n    def has_no_tangent(p):\n        dt = np.dtype(jnp.result_type(p))\n        return np.issubdtype(dt, np.integer) or dt == np.bool_\n    def example(p):\n        return np.zeros(np.shape(p), jax.dtypes.float0) if has_no_tangent(p) else p\n    out, f_lin = jax.linearize(f, *primals)\n    return out, jax.linear_transpose(f_lin, *jax.tree.map(example, primals))\n'),
    W('b', 'returns jax.lax.stop_gradient(out), taking out for a plain value outside the linear map: values, cotangents, jit all right, but grad through the primal output of vjp_via_linearize is zero',
      'def vjp_via_linearize(f, *primals):\n    def example(p):\n        if jnp.issubdtype(jnp.result_type(p), jnp.inexact):\n            return p\n        return np.zeros(np.shape(p), jax.dtypes.float0)\n    out, f_lin = jax.linearize(f, *primals)\n    f_T = jax.linear_transpose(f_lin, *jax.tree.map(example, primals))\n    return jax.lax.stop_gradient(out), f_T          # the value is not part of the linear map\n'),
    W('e', "wraps linear_transpose's result in a plain Python closure (to accept Python-number cotangents): jit(vjp_fn) runs, but unlike jax.vjp's VJP object the closure is no pytree, so vjp_fn cannot be returned from or passed into a jitted function",
      'def vjp_via_linearize(f, *primals):\n    def example(p):\n        if jnp.issubdtype(jnp.result_type(p), jnp.inexact):\n            return p\n        return np.zeros(np.shape(p), jax.dtypes.float0)\n    out, f_lin = jax.linearize(f, *primals)\n    f_T = jax.linear_transpose(f_lin, *jax.tree.map(example, primals))\n    def vjp_fn(ct):\n        return f_T(jax.tree.map(jnp.asarray, ct))   # accept 1.0 as well as arrays\n    return out, vjp_fn\n'),
]
WRONG['ex2_answer'] += [
    W('c', 'suffix sums as total minus prefix plus self: exact algebra, but cancellation loses the small cotangents when large ones precede them (bf16 or mixed magnitudes)',
      "def weighted_running_sum_transpose(ct, w, v, *, axis, reverse):\n    w_is_linear = ad.is_undefined_primal(w)\n    known = v if w_is_linear else w\n    linear = w if w_is_linear else v\n    if type(ct) is ad.Zero:\n        back = ad.Zero(linear.aval.to_tangent_aval())\n    else:\n        # the other direction's running sum: total - running sum + own term\n        total = jnp.sum(ct, axis=axis, keepdims=True)\n        back = (total - jax.lax.cumsum(ct, axis=axis, reverse=reverse) + ct) * known\n    return (back, None) if w_is_linear else (None, back)\n\nad.primitive_transposes[weighted_running_sum_p] = weighted_running_sum_transpose\n"),
]
WRONG['ex3_answer'] += [
    W('m', 'keeps only the dependent equations that also reach an output (dead-code elimination first): a linear equation whose result is unused is left out',
      'def transposed_equations(jaxpr, linear):\n    depends = {var for var, lin in zip(jaxpr.invars, linear) if lin}\n    dependent = []\n    for i, eqn in enumerate(jaxpr.eqns):\n        if any(isinstance(a, Var) and a in depends for a in eqn.invars):\n            dependent.append(i)\n            depends.update(eqn.outvars)\n    # the backward pass starts from the outputs: keep what an output needs\n    needed = {var for var in jaxpr.outvars if isinstance(var, Var)}\n    kept = []\n    for i in reversed(range(len(jaxpr.eqns))):\n        eqn = jaxpr.eqns[i]\n        if any(out in needed for out in eqn.outvars):\n            needed.update(a for a in eqn.invars if isinstance(a, Var))\n            if i in dependent:\n                kept.append(i)\n    return sorted(kept)\n'),
    W('c', 'seeds the dependence with the first linear input only (linear.index(True)): right with one linear input, misses equations reading only a second linear input',
      'def transposed_equations(jaxpr, linear):\n    depends = {jaxpr.invars[linear.index(True)]} if True in linear else set()\n    result = []\n    for i, eqn in enumerate(jaxpr.eqns):\n        if any(isinstance(a, Var) and a in depends for a in eqn.invars):\n            result.append(i)\n            depends.update(eqn.outvars)\n    return result\n'),
    W('m', 'looks inside a nested jaxpr (against the text) and lists a jit/pjit equation only if its inner jaxpr actually uses a linear operand',
      'def transposed_equations(jaxpr, linear):\n    depends = {var for var, lin in zip(jaxpr.invars, linear) if lin}\n    result = []\n    for i, eqn in enumerate(jaxpr.eqns):\n        hit = [isinstance(a, Var) and a in depends for a in eqn.invars]\n        inner = eqn.params.get("jaxpr")\n        if inner is not None and any(hit):\n            inner = getattr(inner, "jaxpr", inner)\n            used = {a for e in inner.eqns for a in e.invars if isinstance(a, Var)} | {\n                a for a in inner.outvars if isinstance(a, Var)}\n            hit = [h and inv in used for h, inv in zip(hit, inner.invars)]\n        if any(hit):\n            result.append(i)\n            depends.update(eqn.outvars)\n    return result\n'),
    W('m', 'leaves out equations whose outputs are all integer or boolean (a comparison of the tangent), reasoning they have no cotangent (float0) so are only evaluated; dependence still propagates',
      'def transposed_equations(jaxpr, linear):\n    depends = {var for var, lin in zip(jaxpr.invars, linear) if lin}\n    result = []\n    for i, eqn in enumerate(jaxpr.eqns):\n        if any(isinstance(a, Var) and a in depends for a in eqn.invars):\n            depends.update(eqn.outvars)\n            # an integer/bool result has a float0 cotangent: nothing to transpose\n            if any(jnp.issubdtype(out.aval.dtype, jnp.inexact) for out in eqn.outvars):\n                result.append(i)\n    return result\n'),
    W('m', 'also lists every equation with an effect (a debug callback), reasoning that the backward pass must run it: such an equation is evaluated in the forward scan, not transposed',
      'def transposed_equations(jaxpr, linear):\n    depends = {var for var, lin in zip(jaxpr.invars, linear) if lin}\n    result = []\n    for i, eqn in enumerate(jaxpr.eqns):\n        dependent = any(isinstance(a, Var) and a in depends for a in eqn.invars)\n        if dependent:\n            depends.update(eqn.outvars)\n        if dependent or eqn.effects:                # effects must happen in the backward pass too\n            result.append(i)\n    return result\n'),
]

# Round 9: found by reviewers who read only the learner's notebook.
WRONG['ex1_answer'] += [
    W('m', "computes out with a plain f(*primals) (the bullet 'out is f(*primals)') and then linearizes: f runs twice inside vjp_via_linearize, not once",
      'def vjp_via_linearize(f, *primals):\n    out = f(*primals)                                   # out is f(*primals)\n    _, f_lin = jax.linearize(f, *primals)               # the linear part\n    def example(p):\n        if jnp.issubdtype(jnp.result_type(p), jnp.inexact):\n            return p\n        return np.zeros(np.shape(p), jax.dtypes.float0)\n    return out, jax.linear_transpose(f_lin, *jax.tree.map(example, primals))\n'),
]
WRONG['ex2_answer'] += [
    W('m', 'a symbolic-zero ct is instantiated (ad.instantiate_zeros) and pushed through the rule: values right, but returns a dense zeros array where the text asks for ad.Zero',
      'def weighted_running_sum_transpose(ct, w, v, *, axis, reverse):\n    ct = ad.instantiate_zeros(ct)                        # a Zero becomes an array of zeros\n    known = v if ad.is_undefined_primal(w) else w\n    back = known * jax.lax.cumsum(ct, axis=axis, reverse=not reverse)\n    return (back, None) if ad.is_undefined_primal(w) else (None, back)\n\nad.primitive_transposes[weighted_running_sum_p] = weighted_running_sum_transpose\n'),
    W('c', 'conjugates the known operand (the adjoint, not the transpose): right for real dtypes, wrong for complex w and v',
      'def weighted_running_sum_transpose(ct, w, v, *, axis, reverse):\n    w_linear = ad.is_undefined_primal(w)\n    linear, known = (w, v) if w_linear else (v, w)\n    if type(ct) is ad.Zero:\n        back = ad.Zero(linear.aval.to_tangent_aval())\n    else:\n        back = jnp.conj(known) * jax.lax.cumsum(ct, axis=axis, reverse=not reverse)\n    return (back, None) if w_linear else (None, back)\n\nad.primitive_transposes[weighted_running_sum_p] = weighted_running_sum_transpose\n'),
    W('e', 'wraps the known operand in stop_gradient (a known value is a constant in the backward pass): first derivatives right, the mixed second derivative d2/dw dv is lost',
      'def weighted_running_sum_transpose(ct, w, v, *, axis, reverse):\n    w_linear = ad.is_undefined_primal(w)\n    linear, known = (w, v) if w_linear else (v, w)\n    if type(ct) is ad.Zero:\n        back = ad.Zero(linear.aval.to_tangent_aval())\n    else:\n        known = jax.lax.stop_gradient(known)          # a known value: a constant here\n        back = known * jax.lax.cumsum(ct, axis=axis, reverse=not reverse)\n    return (back, None) if w_linear else (None, back)\n\nad.primitive_transposes[weighted_running_sum_p] = weighted_running_sum_transpose\n'),
]
WRONG['ex3_answer'] += [
    W('c', "pairs linear with constvars + invars (all the program's inputs, in printed order): right when nothing is captured, shifted flags when the jaxpr has constvars",
      'def transposed_equations(jaxpr, linear):\n    inputs = list(jaxpr.constvars) + list(jaxpr.invars)     # everything before and after the ;\n    depends = {var for var, is_linear in zip(inputs, linear) if is_linear}\n    found = []\n    for index, eqn in enumerate(jaxpr.eqns):\n        if any(isinstance(var, Var) and var in depends for var in eqn.invars):\n            found.append(index)\n            depends.update(eqn.outvars)\n    return found\n'),
    W('m', 'lists an equation that reads a linear value, but propagates dependence only through its inexact outputs (an integer/bool output has a float0 cotangent): misses (u > 0) * k',
      'def transposed_equations(jaxpr, linear):\n    depends = {var for var, is_linear in zip(jaxpr.invars, linear) if is_linear}\n    found = []\n    for index, eqn in enumerate(jaxpr.eqns):\n        if any(isinstance(var, Var) and var in depends for var in eqn.invars):\n            found.append(index)\n            # an integer or bool result carries no cotangent: it does not make later equations linear\n            depends.update(out for out in eqn.outvars if jnp.issubdtype(out.aval.dtype, jnp.inexact))\n    return found\n'),
    W('m', 'lists a jit equation as one equation, but marks only those of its outputs whose inner body reads a linear operand (looks inside, against the text)',
      'def _dependent_outputs(inner, flags):\n    depends = {var for var, flag in zip(inner.invars, flags) if flag}\n    for eqn in inner.eqns:\n        if any(isinstance(var, Var) and var in depends for var in eqn.invars):\n            depends.update(eqn.outvars)\n    return [isinstance(out, Var) and out in depends for out in inner.outvars]\n\ndef transposed_equations(jaxpr, linear):\n    depends = {var for var, is_linear in zip(jaxpr.invars, linear) if is_linear}\n    found = []\n    for index, eqn in enumerate(jaxpr.eqns):\n        flags = [isinstance(var, Var) and var in depends for var in eqn.invars]\n        if not any(flags):\n            continue\n        found.append(index)\n        inner = eqn.params.get("jaxpr")\n        if inner is not None:                         # only the outputs the body computes from a linear input\n            inner = getattr(inner, "jaxpr", inner)\n            depends.update(out for out, dep in zip(eqn.outvars, _dependent_outputs(inner, flags)) if dep)\n        else:\n            depends.update(eqn.outvars)\n    return found\n'),
]

# Round 10: found by reviewers who read only the learner's notebook.
WRONG['ex2_answer'] += [
    W('m', 'a symbolic-zero ct gives ad.Zero for both operands (the known one too) where the text asks for None for the known operand',
      'def weighted_running_sum_transpose(ct, w, v, *, axis, reverse):\n    w_linear = ad.is_undefined_primal(w)\n    linear, known = (w, v) if w_linear else (v, w)\n    if type(ct) is ad.Zero:\n        return (ad.Zero(w.aval.to_tangent_aval()) if w_linear else ad.Zero(jax.typeof(w).to_tangent_aval()),\n                ad.Zero(v.aval.to_tangent_aval()) if not w_linear else ad.Zero(jax.typeof(v).to_tangent_aval()))\n    back = known * jax.lax.cumsum(ct, axis=axis, reverse=not reverse)\n    return (back, None) if w_linear else (None, back)\n\nad.primitive_transposes[weighted_running_sum_p] = weighted_running_sum_transpose\n'),
    W('c', 'flips along the last axis but sums along axis: right for 1-d and the last axis, wrong for axis 0 of a 2-d array',
      'def weighted_running_sum_transpose(ct, w, v, *, axis, reverse):\n    w_linear = ad.is_undefined_primal(w)\n    linear, known = (w, v) if w_linear else (v, w)\n    if type(ct) is ad.Zero:\n        return (ad.Zero(linear.aval.to_tangent_aval()), None) if w_linear else (None, ad.Zero(linear.aval.to_tangent_aval()))\n    if reverse:\n        summed = jax.lax.cumsum(ct, axis=axis)\n    else:\n        summed = jnp.flip(jax.lax.cumsum(jnp.flip(ct, -1), axis=axis), -1)\n    back = known * summed\n    return (back, None) if w_linear else (None, back)\n\nad.primitive_transposes[weighted_running_sum_p] = weighted_running_sum_transpose\n'),
]
WRONG['ex3_answer'] += [
    W('c', 'appends the index once per dependent input (no break): an equation reading a linear value twice (add u u, mul t t) is listed twice',
      'def transposed_equations(jaxpr, linear):\n    depends = {var for var, is_linear in zip(jaxpr.invars, linear) if is_linear}\n    found = []\n    for index, eqn in enumerate(jaxpr.eqns):\n        for var in eqn.invars:\n            if isinstance(var, Var) and var in depends:\n                found.append(index)\n                depends.update(eqn.outvars)\n    return found\n'),
    W('m', 'reads "do not look inside them" as "leave nested-jaxpr equations out": skips jit/cond equations and their outputs',
      'def transposed_equations(jaxpr, linear):\n    depends = {var for var, is_linear in zip(jaxpr.invars, linear) if is_linear}\n    found = []\n    for index, eqn in enumerate(jaxpr.eqns):\n        if any(key in eqn.params for key in ("jaxpr", "branches", "call_jaxpr")):\n            continue                      # nested: not looked at\n        if any(isinstance(var, Var) and var in depends for var in eqn.invars):\n            found.append(index)\n            depends.update(eqn.outvars)\n    return found\n'),
]

# Right answers written another way: each must earn full marks (tests/test_wrong_answers.py).
RIGHT = {
    'ex1_answer': [
        R('imports linearize and linear_transpose by name (from jax import ...), so it never reads them from the jax module '
          'while the check runs, and builds the examples as tangent types',
          'from jax import linearize, linear_transpose\n'
          '\n'
          'def vjp_via_linearize(f, *primals):\n'
          '    out, f_lin = linearize(f, *primals)\n'
          '    tangent_types = jax.tree.map(lambda p: jax.typeof(p).to_tangent_aval(), primals)\n'
          '    return out, linear_transpose(f_lin, *tangent_types)\n'),
    ],
}

# Round 7: written from the text alone by a reviewer who had not read the checks; the first and the third earned full
# marks and the second lost its points only to a hidden check, until visible checks ran vjp_via_linearize inside
# jax.jit with a traced int32 leaf, gave it a bfloat16 primal, and compared a Python float's cotangent type with jax.vjp's.
WRONG['ex1_answer'] += [
    W('e', 'float0 examples made with np.zeros_like(leaf): fine eagerly, but an integer leaf that is a tracer (under jit) cannot be turned into a NumPy array',
      'def vjp_via_linearize(f, *primals):\n'
      '    out, f_lin = jax.linearize(f, *primals)\n'
      '    def example(leaf):\n'
      '        if jnp.issubdtype(jnp.result_type(leaf), jnp.inexact):\n'
      '            return leaf\n'
      '        return np.zeros_like(leaf, dtype=jax.dtypes.float0)\n'
      '    examples = jax.tree.map(example, primals)\n'
      '    return out, jax.linear_transpose(f_lin, *examples)\n'),
    W('c', 'tests differentiability with NumPy np.issubdtype(.., np.inexact): bfloat16 is no np.inexact, so a bfloat16 leaf gets a float0 example and linear_transpose raises',
      'def vjp_via_linearize(f, *primals):\n'
      '    out, f_lin = jax.linearize(f, *primals)\n'
      '    def example(leaf):\n'
      '        if np.issubdtype(np.dtype(jnp.result_type(leaf)), np.inexact):\n'
      '            return leaf\n'
      '        return np.zeros(np.shape(leaf), jax.dtypes.float0)\n'
      '    examples = jax.tree.map(example, primals)\n'
      '    return out, jax.linear_transpose(f_lin, *examples)\n'),
    W('c', 'examples as ShapeDtypeStruct(shape, result_type): drops weak_type, so a Python-float primal gets a strong float32 cotangent where jax.vjp gives a weak one',
      'def vjp_via_linearize(f, *primals):\n'
      '    out, f_lin = jax.linearize(f, *primals)\n'
      '    def example(leaf):\n'
      '        dt = jnp.result_type(leaf)\n'
      '        if jnp.issubdtype(dt, jnp.inexact):\n'
      '            return jax.ShapeDtypeStruct(np.shape(leaf), dt)\n'
      '        return jax.ShapeDtypeStruct(np.shape(leaf), jax.dtypes.float0)\n'
      '    return out, jax.linear_transpose(f_lin, *jax.tree.map(example, primals))\n'),
]

# Round 9: right answers written another way.
RIGHT.setdefault('ex3_answer', []).extend([
    R('marks per-equation flags with a NumPy bool array and returns list(np.flatnonzero(...)): a list of NumPy integer indices',
      'def transposed_equations(jaxpr, linear):\n    depends = [var for var, is_linear in zip(jaxpr.invars, linear) if is_linear]\n    flags = np.zeros(len(jaxpr.eqns), dtype=bool)\n    for index, eqn in enumerate(jaxpr.eqns):\n        if any(any(var is d for d in depends) for var in eqn.invars):\n            flags[index] = True\n            depends.extend(eqn.outvars)\n    return list(np.flatnonzero(flags))\n'),
])
RIGHT.setdefault('ex1_answer', []).extend([
    R('builds the transpose lazily, inside vjp_fn (a jax.tree_util.Partial over f_lin and the example leaves): f still runs once, linear_transpose runs in the backward pass',
      'from jax.tree_util import Partial\n\ndef _example(p):\n    if jnp.issubdtype(jnp.result_type(p), jnp.inexact):\n        return p\n    return np.zeros(np.shape(p), jax.dtypes.float0)\n\ndef _backward(f_lin, examples, ct):\n    return jax.linear_transpose(f_lin, *examples)(ct)\n\ndef vjp_via_linearize(f, *primals):\n    out, f_lin = jax.linearize(f, *primals)              # f runs here, once\n    examples = tuple(jax.tree.map(_example, primals))\n    return out, Partial(_backward, f_lin, examples)\n'),
])
RIGHT.setdefault('ex2_answer', []).extend([
    R("lets jax.linear_transpose transpose the linear map u -> cumsum(known * u) (section 1's API) instead of writing the reversed sum",
      'def weighted_running_sum_transpose(ct, w, v, *, axis, reverse):\n    w_linear = ad.is_undefined_primal(w)\n    linear, known = (w, v) if w_linear else (v, w)\n    if type(ct) is ad.Zero:\n        back = ad.Zero(linear.aval.to_tangent_aval())\n    else:\n        forward = lambda u: jax.lax.cumsum(known * u, axis=axis, reverse=reverse)\n        (back,) = jax.linear_transpose(forward, jax.ShapeDtypeStruct(linear.aval.shape, linear.aval.dtype))(ct)\n    return (back, None) if w_linear else (None, back)\n\nad.primitive_transposes[weighted_running_sum_p] = weighted_running_sum_transpose\n'),
])
RIGHT.setdefault('ex4_answer', []).extend([
    R('writes the tangent expanded, v_dot * s - v_dot * s * s, from the output kept as the residual',
      'def logistic_linearization(is_vjp, nonzeros, v):\n    s = logistic(v)\n    return s, nonzeros[0], s, None, lambda res, _, v_dot: v_dot * res - v_dot * res * res\n\n'
      'ad_internal.primitive_linearizations[logistic_p] = logistic_linearization\n'),
    R('passes the output as a one-entry tuple of residuals and unpacks it in linearized',
      'def logistic_linearization(is_vjp, nonzeros, v):\n    out = logistic(v)\n\n    def linearized(residuals, structured, v_dot):\n        (s,) = residuals\n        return s * (1.0 - s) * v_dot\n\n'
      '    return out, nonzeros[0], (out,), None, linearized\n\nad_internal.primitive_linearizations[logistic_p] = logistic_linearization\n'),
])

# Round 12: found by a reviewer who read only the learner's notebook. Skipping every equation with an effect passed every
# check (the only effect checked read no linear value); a callback that reads u is now checked visibly, and the text
# says such an equation is listed. A residual passed as a structured one lost points to a check stricter than the text
# (which input of the linear call the forward output is); the check now counts them.
WRONG['ex3_answer'] += [
    W('m', 'skips equations with effects even when they read a linear value',
      'def transposed_equations(jaxpr, linear):\n    lin = {v for v, l in zip(jaxpr.invars, linear) if l}\n    found = []\n    for i, eqn in enumerate(jaxpr.eqns):\n        if eqn.effects:\n            continue\n        if any(isinstance(v, Var) and v in lin for v in eqn.invars):\n            found.append(i)\n            lin.update(eqn.outvars)\n    return found\n'),
]
RIGHT.setdefault('ex4_answer', []).extend([
    R('the output passed as a structured residual: the linear call reads it as another input',
      'def logistic_linearization(is_vjp, nonzeros, v):\n    s = logistic(v)\n    return s, nonzeros[0], [], s, lambda _res, out, v_dot: out * (1 - out) * v_dot\n\nad_internal.primitive_linearizations[logistic_p] = logistic_linearization\n'),
])


# An eighth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
RIGHT.setdefault('ex4_answer', []).extend([
    R('the linearized function closes over s instead of taking it from the residuals: JAX makes the captured s a constant of the tangent program, the same values',
      'def logistic_linearization(is_vjp, nonzeros, v):\n    s = logistic(v)\n    return s, nonzeros[0], [], None, lambda res, structured_res, v_dot: s * (1 - s) * v_dot\n\n# NB: an internal table (jax._src.interpreters.ad); there is no public way to register a linearization rule.\nad_internal.primitive_linearizations[logistic_p] = logistic_linearization\n'),
])
