"""Wrong answers for 08_autodiff_batching_rules (see tests/wrong_answers/__init__.py)."""

from wrong_answers import R, W

APPLIES = {'ex1_answer': 'abcdegm', 'ex2_answer': 'cdegm', 'ex3_answer': 'cdegm', 'ex4_answer': 'abcdegm', 'quiz_answer': 'm'}

WRONG = {
    'ex1_answer': [
        W('m', "Section 5's pitfall: the batching rule takes the batch axis to be axis 0 and only shifts the summed axes, so a batch axis elsewhere sums the wrong axes.",
          'forget_rules(custom_reduce_sum_p)\n'
          'def reduce_sum_jvp(primals, tangents, *, axes):\n'
          '    (x,), (t,) = primals, tangents\n'
          '    y = custom_reduce_sum_p.bind(x, axes=axes)\n'
          '    if type(t) is ad.Zero:\n'
          '        return y, ad.Zero(jax.typeof(y).to_tangent_aval())\n'
          '    return y, custom_reduce_sum_p.bind(t, axes=axes)\n'
          'def reduce_sum_transpose(ct, x, *, axes):\n'
          '    if type(ct) is ad.Zero:\n'
          '        return (ad.Zero(x.aval.to_tangent_aval()),)\n'
          '    return (jnp.broadcast_to(jnp.expand_dims(ct, axes), x.aval.shape),)\n'
          'def reduce_sum_batch(batched_args, batch_dims, *, axes):\n'
          '    (x,), (bd,) = batched_args, batch_dims\n'
          '    return custom_reduce_sum_p.bind(x, axes=tuple(a + 1 for a in axes)), 0\n'
          'ad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\n'
          'ad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\n'
          'batching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
        W('m', "Section 3's pitfall: no symbolic zeros; the JVP binds the primitive on an ad.Zero tangent and the transpose calls expand_dims on an ad.Zero cotangent.",
          'forget_rules(custom_reduce_sum_p)\n'
          'def reduce_sum_jvp(primals, tangents, *, axes):\n'
          '    (x,), (t,) = primals, tangents\n'
          '    return custom_reduce_sum_p.bind(x, axes=axes), custom_reduce_sum_p.bind(t, axes=axes)\n'
          'def reduce_sum_transpose(ct, x, *, axes):\n'
          '    return (jnp.broadcast_to(jnp.expand_dims(ct, axes), x.aval.shape),)\n'
          'def reduce_sum_batch(batched_args, batch_dims, *, axes):\n'
          '    (x,), (bd,) = batched_args, batch_dims\n'
          '    return custom_reduce_sum_p.bind(jnp.moveaxis(x, bd, 0), axes=tuple(a + 1 for a in axes)), 0\n'
          'ad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\n'
          'ad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\n'
          'batching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
        W('m', 'Right JVP and transpose, but the batching rule moves the batch axis to the front and forgets that the summed axes moved with it.',
          'forget_rules(custom_reduce_sum_p)\n'
          'def reduce_sum_jvp(primals, tangents, *, axes):\n'
          '    (x,), (t,) = primals, tangents\n'
          '    y = custom_reduce_sum_p.bind(x, axes=axes)\n'
          '    if type(t) is ad.Zero:\n'
          '        return y, ad.Zero(jax.typeof(y).to_tangent_aval())\n'
          '    return y, custom_reduce_sum_p.bind(t, axes=axes)\n'
          'def reduce_sum_transpose(ct, x, *, axes):\n'
          '    if type(ct) is ad.Zero:\n'
          '        return (ad.Zero(x.aval.to_tangent_aval()),)\n'
          '    return (jnp.broadcast_to(jnp.expand_dims(ct, axes), x.aval.shape),)\n'
          'def reduce_sum_batch(batched_args, batch_dims, *, axes):\n'
          '    (x,), (bd,) = batched_args, batch_dims\n'
          '    return custom_reduce_sum_p.bind(jnp.moveaxis(x, bd, 0), axes=axes), 0\n'
          'ad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\n'
          'ad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\n'
          'batching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
        W('c', "Leaves the batch axis in place and shifts the summed axes past it, but reports the input's batch axis: right only when no summed axis comes before it.",
          'forget_rules(custom_reduce_sum_p)\n'
          'def reduce_sum_jvp(primals, tangents, *, axes):\n'
          '    (x,), (t,) = primals, tangents\n'
          '    y = custom_reduce_sum_p.bind(x, axes=axes)\n'
          '    if type(t) is ad.Zero:\n'
          '        return y, ad.Zero(jax.typeof(y).to_tangent_aval())\n'
          '    return y, custom_reduce_sum_p.bind(t, axes=axes)\n'
          'def reduce_sum_transpose(ct, x, *, axes):\n'
          '    if type(ct) is ad.Zero:\n'
          '        return (ad.Zero(x.aval.to_tangent_aval()),)\n'
          '    return (jnp.broadcast_to(jnp.expand_dims(ct, axes), x.aval.shape),)\n'
          'def reduce_sum_batch(batched_args, batch_dims, *, axes):\n'
          '    (x,), (bd,) = batched_args, batch_dims\n'
          '    return custom_reduce_sum_p.bind(x, axes=tuple(a + (a >= bd) for a in axes)), bd\n'
          'ad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\n'
          'ad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\n'
          'batching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
        W('a', 'transpose returns ones (the gradient of .sum()), ignoring ct: right for grad of custom_reduce_sum(...).sum(), wrong for a weighted sum, hessian is 0',
          'forget_rules(custom_reduce_sum_p)   # start from scratch, so this cell can be run again\n'
          '\n'
          'def reduce_sum_jvp(primals, tangents, *, axes):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    y = custom_reduce_sum_p.bind(x, axes=axes)\n'
          '    if type(x_dot) is ad.Zero:\n'
          '        return y, ad.Zero(jax.typeof(y).to_tangent_aval())\n'
          '    return y, custom_reduce_sum_p.bind(x_dot, axes=axes)\n'
          '\n'
          'def reduce_sum_transpose(ct, x, *, axes):\n'
          '    if type(ct) is ad.Zero:\n'
          '        return (ad.Zero(x.aval.to_tangent_aval()),)\n'
          '    # d(sum x)/dx_i = 1 for every element\n'
          '    return (jnp.ones(x.aval.shape, x.aval.dtype),)\n'
          '\n'
          'def reduce_sum_batch(batched_args, batch_dims, *, axes):\n'
          '    (x,), (bd,) = batched_args, batch_dims\n'
          '    x = jnp.moveaxis(x, bd, 0)\n'
          '    return custom_reduce_sum_p.bind(x, axes=tuple(a + 1 for a in axes)), 0\n'
          '\n'
          'ad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\n'
          'ad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\n'
          'batching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
        W('b', 'transpose broadcasts ct without re-inserting the summed axes: right only when the summed axes are leading (axis 0); axis 1/2 error, square matrix axis=1 gives the transposed gradient',
          'forget_rules(custom_reduce_sum_p)   # start from scratch, so this cell can be run again\n'
          '\n'
          'def reduce_sum_jvp(primals, tangents, *, axes):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    y = custom_reduce_sum_p.bind(x, axes=axes)\n'
          '    if type(x_dot) is ad.Zero:\n'
          '        return y, ad.Zero(jax.typeof(y).to_tangent_aval())\n'
          '    return y, custom_reduce_sum_p.bind(x_dot, axes=axes)\n'
          '\n'
          'def reduce_sum_transpose(ct, x, *, axes):\n'
          '    if type(ct) is ad.Zero:\n'
          '        return (ad.Zero(x.aval.to_tangent_aval()),)\n'
          '    return (jnp.broadcast_to(ct, x.aval.shape),)      # spread the cotangent back over x\n'
          '\n'
          'def reduce_sum_batch(batched_args, batch_dims, *, axes):\n'
          '    (x,), (bd,) = batched_args, batch_dims\n'
          '    x = jnp.moveaxis(x, bd, 0)\n'
          '    return custom_reduce_sum_p.bind(x, axes=tuple(a + 1 for a in axes)), 0\n'
          '\n'
          'ad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\n'
          'ad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\n'
          'batching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
        W('c', 'The transpose re-inserts only axes[0]: right for one summed axis, wrong for a tuple such as (0, 2).',
          'forget_rules(custom_reduce_sum_p)   # start from scratch, so this cell can be run again\n'
          '\n'
          'def reduce_sum_jvp(primals, tangents, *, axes):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    y = custom_reduce_sum_p.bind(x, axes=axes)\n'
          '    if type(x_dot) is ad.Zero:\n'
          '        return y, ad.Zero(jax.typeof(y).to_tangent_aval())\n'
          '    return y, custom_reduce_sum_p.bind(x_dot, axes=axes)\n'
          '\n'
          'def reduce_sum_transpose(ct, x, *, axes):\n'
          '    if type(ct) is ad.Zero:\n'
          '        return (ad.Zero(x.aval.to_tangent_aval()),)\n'
          '    return (jnp.broadcast_to(jnp.expand_dims(ct, axes[0]), x.aval.shape),)\n'
          '\n'
          'def reduce_sum_batch(batched_args, batch_dims, *, axes):\n'
          '    (x,), (bd,) = batched_args, batch_dims\n'
          '    x = jnp.moveaxis(x, bd, 0)\n'
          '    return custom_reduce_sum_p.bind(x, axes=tuple(a + 1 for a in axes)), 0\n'
          '\n'
          'ad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\n'
          'ad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\n'
          'batching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
        W('c', 'symbolic zeros built from the primal aval, not its tangent aval: for an int32 input the JVP rule returns Zero(int32[...]) instead of Zero(float0[...])',
          'forget_rules(custom_reduce_sum_p)   # start from scratch, so this cell can be run again\n'
          '\n'
          'def reduce_sum_jvp(primals, tangents, *, axes):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    y = custom_reduce_sum_p.bind(x, axes=axes)\n'
          '    if type(x_dot) is ad.Zero:\n'
          '        return y, ad.Zero(jax.typeof(y))\n'
          '    return y, custom_reduce_sum_p.bind(x_dot, axes=axes)\n'
          '\n'
          'def reduce_sum_transpose(ct, x, *, axes):\n'
          '    if type(ct) is ad.Zero:\n'
          '        return (ad.Zero(x.aval),)\n'
          '    return (jnp.broadcast_to(jnp.expand_dims(ct, axes), x.aval.shape),)\n'
          '\n'
          'def reduce_sum_batch(batched_args, batch_dims, *, axes):\n'
          '    (x,), (bd,) = batched_args, batch_dims\n'
          '    x = jnp.moveaxis(x, bd, 0)\n'
          '    return custom_reduce_sum_p.bind(x, axes=tuple(a + 1 for a in axes)), 0\n'
          '\n'
          'ad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\n'
          'ad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\n'
          'batching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
        W('e', 'transpose computed with NumPy on ct: eager grad works, but jit(vmap(grad)), vmap(grad), hessian and grad-of-grad raise TracerArrayConversionError',
          'forget_rules(custom_reduce_sum_p)   # start from scratch, so this cell can be run again\n'
          '\n'
          'def reduce_sum_jvp(primals, tangents, *, axes):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    y = custom_reduce_sum_p.bind(x, axes=axes)\n'
          '    if type(x_dot) is ad.Zero:\n'
          '        return y, ad.Zero(jax.typeof(y).to_tangent_aval())\n'
          '    return y, custom_reduce_sum_p.bind(x_dot, axes=axes)\n'
          '\n'
          'def reduce_sum_transpose(ct, x, *, axes):\n'
          '    if type(ct) is ad.Zero:\n'
          '        return (ad.Zero(x.aval.to_tangent_aval()),)\n'
          '    return (np.broadcast_to(np.expand_dims(np.asarray(ct), axes), x.aval.shape),)\n'
          '\n'
          'def reduce_sum_batch(batched_args, batch_dims, *, axes):\n'
          '    (x,), (bd,) = batched_args, batch_dims\n'
          '    x = jnp.moveaxis(x, bd, 0)\n'
          '    return custom_reduce_sum_p.bind(x, axes=tuple(a + 1 for a in axes)), 0\n'
          '\n'
          'ad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\n'
          'ad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\n'
          'batching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
        W('m', 'answers a symbolic-zero tangent/cotangent with instantiated zeros (jnp.zeros) instead of ad.Zero: the rules called with Zero return arrays',
          'forget_rules(custom_reduce_sum_p)   # start from scratch, so this cell can be run again\n'
          '\n'
          'def reduce_sum_jvp(primals, tangents, *, axes):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    y = custom_reduce_sum_p.bind(x, axes=axes)\n'
          '    if type(x_dot) is ad.Zero:\n'
          '        return y, jnp.zeros_like(y)\n'
          '    return y, custom_reduce_sum_p.bind(x_dot, axes=axes)\n'
          '\n'
          'def reduce_sum_transpose(ct, x, *, axes):\n'
          '    if type(ct) is ad.Zero:\n'
          '        return (jnp.zeros(x.aval.shape, x.aval.dtype),)\n'
          '    return (jnp.broadcast_to(jnp.expand_dims(ct, axes), x.aval.shape),)\n'
          '\n'
          'def reduce_sum_batch(batched_args, batch_dims, *, axes):\n'
          '    (x,), (bd,) = batched_args, batch_dims\n'
          '    x = jnp.moveaxis(x, bd, 0)\n'
          '    return custom_reduce_sum_p.bind(x, axes=tuple(a + 1 for a in axes)), 0\n'
          '\n'
          'ad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\n'
          'ad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\n'
          'batching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
        W('a', 'transpose repeats ct over the summed axes placed first, then reshapes: right for ones/uniform ct or leading axes, wrong for weighted loss over axis 1 or (0, 2)',
          'forget_rules(custom_reduce_sum_p)   # start from scratch, so this cell can be run again\n'
          '\n'
          'def reduce_sum_jvp(primals, tangents, *, axes):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    y = custom_reduce_sum_p.bind(x, axes=axes)\n'
          '    if type(x_dot) is ad.Zero:\n'
          '        return y, ad.Zero(jax.typeof(y).to_tangent_aval())\n'
          '    return y, custom_reduce_sum_p.bind(x_dot, axes=axes)\n'
          '\n'
          'def reduce_sum_transpose(ct, x, *, axes):\n'
          '    if type(ct) is ad.Zero:\n'
          '        return (ad.Zero(x.aval.to_tangent_aval()),)\n'
          '    # every input element gets the cotangent of the sum it fed: repeat ct over the summed axes\n'
          '    summed = tuple(x.aval.shape[a] for a in axes)\n'
          '    return (jnp.broadcast_to(ct, summed + ct.shape).reshape(x.aval.shape),)\n'
          '\n'
          'def reduce_sum_batch(batched_args, batch_dims, *, axes):\n'
          '    (x,), (bd,) = batched_args, batch_dims\n'
          '    x = jnp.moveaxis(x, bd, 0)\n'
          '    return custom_reduce_sum_p.bind(x, axes=tuple(a + 1 for a in axes)), 0\n'
          '\n'
          'ad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\n'
          'ad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\n'
          'batching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
        W('b', 'transpose expands ct only at axes[0]: right for one axis, fails for a tuple of axes such as (0, 2)',
          'forget_rules(custom_reduce_sum_p)   # start from scratch, so this cell can be run again\n'
          '\n'
          'def reduce_sum_jvp(primals, tangents, *, axes):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    y = custom_reduce_sum_p.bind(x, axes=axes)\n'
          '    if type(x_dot) is ad.Zero:\n'
          '        return y, ad.Zero(jax.typeof(y).to_tangent_aval())\n'
          '    return y, custom_reduce_sum_p.bind(x_dot, axes=axes)\n'
          '\n'
          'def reduce_sum_transpose(ct, x, *, axes):\n'
          '    if type(ct) is ad.Zero:\n'
          '        return (ad.Zero(x.aval.to_tangent_aval()),)\n'
          '    (axis, *_) = axes\n'
          '    return (jnp.broadcast_to(jnp.expand_dims(ct, axis), x.aval.shape),)\n'
          '\n'
          'def reduce_sum_batch(batched_args, batch_dims, *, axes):\n'
          '    (x,), (bd,) = batched_args, batch_dims\n'
          '    x = jnp.moveaxis(x, bd, 0)\n'
          '    return custom_reduce_sum_p.bind(x, axes=tuple(a + 1 for a in axes)), 0\n'
          '\n'
          'ad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\n'
          'ad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\n'
          'batching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
        W('c', 'batch rule keeps the batch axis in place and returns out_dim=bd without subtracting summed axes before it: right for in_axes=0, wrong for in_axes=1 with axes=0',
          'forget_rules(custom_reduce_sum_p)   # start from scratch, so this cell can be run again\n'
          '\n'
          'def reduce_sum_jvp(primals, tangents, *, axes):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    y = custom_reduce_sum_p.bind(x, axes=axes)\n'
          '    if type(x_dot) is ad.Zero:\n'
          '        return y, ad.Zero(jax.typeof(y).to_tangent_aval())\n'
          '    return y, custom_reduce_sum_p.bind(x_dot, axes=axes)\n'
          '\n'
          'def reduce_sum_transpose(ct, x, *, axes):\n'
          '    if type(ct) is ad.Zero:\n'
          '        return (ad.Zero(x.aval.to_tangent_aval()),)\n'
          '    return (jnp.broadcast_to(jnp.expand_dims(ct, axes), x.aval.shape),)\n'
          '\n'
          'def reduce_sum_batch(batched_args, batch_dims, *, axes):\n'
          '    (x,), (bd,) = batched_args, batch_dims\n'
          '    # leave the batch axis where it is; summed axes at or after it move up by one\n'
          '    new_axes = tuple(a + 1 if a >= bd else a for a in axes)\n'
          '    return custom_reduce_sum_p.bind(x, axes=new_axes), bd\n'
          '\n'
          'ad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\n'
          'ad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\n'
          'batching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
        W('e', 'transpose uses np.expand_dims/np.broadcast_to: works for eager grad, fails under jit(grad), vmap(grad) and check_grads',
          'forget_rules(custom_reduce_sum_p)   # start from scratch, so this cell can be run again\n'
          '\n'
          'def reduce_sum_jvp(primals, tangents, *, axes):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    y = custom_reduce_sum_p.bind(x, axes=axes)\n'
          '    if type(x_dot) is ad.Zero:\n'
          '        return y, ad.Zero(jax.typeof(y).to_tangent_aval())\n'
          '    return y, custom_reduce_sum_p.bind(x_dot, axes=axes)\n'
          '\n'
          'def reduce_sum_transpose(ct, x, *, axes):\n'
          '    if type(ct) is ad.Zero:\n'
          '        return (ad.Zero(x.aval.to_tangent_aval()),)\n'
          '    return (np.broadcast_to(np.expand_dims(ct, axes), x.aval.shape),)\n'
          '\n'
          'def reduce_sum_batch(batched_args, batch_dims, *, axes):\n'
          '    (x,), (bd,) = batched_args, batch_dims\n'
          '    x = jnp.moveaxis(x, bd, 0)\n'
          '    return custom_reduce_sum_p.bind(x, axes=tuple(a + 1 for a in axes)), 0\n'
          '\n'
          'ad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\n'
          'ad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\n'
          'batching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
    ],
    'ex2_answer': [
        W('m', "Section 3's pitfall: no symbolic zeros; arithmetic on an ad.Zero tangent fails.",
          'def sincos_jvp(primals, tangents):\n'
          '    (x,), (t,) = primals, tangents\n'
          '    s, c = sincos(x)\n'
          '    return (s, c), (c * t, -s * t)\n'
          'ad.primitive_jvps[sincos_p] = sincos_jvp\n'),
        W('m', 'The derivative of cos taken as +sin (a sign slip).',
          'def sincos_jvp(primals, tangents):\n'
          '    (x,), (t,) = primals, tangents\n'
          '    s, c = sincos(x)\n'
          '    if type(t) is ad.Zero:\n'
          '        z = ad.Zero(jax.typeof(s).to_tangent_aval())\n'
          '        return (s, c), (z, z)\n'
          '    return (s, c), (c * t, s * t)\n'
          'ad.primitive_jvps[sincos_p] = sincos_jvp\n'),
        W('d', 'computes outputs and tangents with jax.jvp(sincos_ref): values right, but the primitive no longer appears in the jvp jaxpr (0 sincos equations instead of 1)',
          'def sincos_jvp(primals, tangents):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    if type(x_dot) is ad.Zero:\n'
          '        s, c = sincos_ref(x)\n'
          '        zero = ad.Zero(jax.typeof(s).to_tangent_aval())\n'
          '        return (s, c), (zero, zero)\n'
          '    return jax.jvp(sincos_ref, (x,), (x_dot,))      # let JAX differentiate the reference\n'
          '\n'
          'ad.primitive_jvps[sincos_p] = sincos_jvp\n'),
        W('e', 'derivatives taken with np.cos/np.sin of x: jvp and eager grad work, but jit(grad), vmap(grad), grad of grad, hessian and jvp of jvp raise TracerArrayConversionError',
          'def sincos_jvp(primals, tangents):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    s, c = sincos(x)\n'
          '    if type(x_dot) is ad.Zero:\n'
          '        zero = ad.Zero(jax.typeof(s).to_tangent_aval())\n'
          '        return (s, c), (zero, zero)\n'
          '    cos_x, sin_x = np.cos(x), np.sin(x)               # the derivatives, as plain numbers\n'
          '    return (s, c), (cos_x * x_dot, -sin_x * x_dot)\n'
          '\n'
          'ad.primitive_jvps[sincos_p] = sincos_jvp\n'),
        W('c', "sin recovered as sqrt(1 - cos^2): right for x in [0, pi] (the text's [0, pi/2]), wrong sign for negative x or x > pi; nan second derivative at 0",
          'def sincos_jvp(primals, tangents):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    s, c = sincos(x)\n'
          '    if type(x_dot) is ad.Zero:\n'
          '        zero = ad.Zero(jax.typeof(s).to_tangent_aval())\n'
          '        return (s, c), (zero, zero)\n'
          '    sin_x = jnp.sqrt(1.0 - c * c)                      # sin from cos: sin^2 + cos^2 = 1\n'
          '    return (s, c), (c * x_dot, -sin_x * x_dot)\n'
          '\n'
          'ad.primitive_jvps[sincos_p] = sincos_jvp\n'),
        W('m', 'answers a symbolic-zero tangent with jnp.zeros arrays instead of two ad.Zero',
          'def sincos_jvp(primals, tangents):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    s, c = sincos(x)\n'
          '    if type(x_dot) is ad.Zero:\n'
          '        return (s, c), (jnp.zeros_like(s), jnp.zeros_like(c))\n'
          '    return (s, c), (c * x_dot, -s * x_dot)\n'
          '\n'
          'ad.primitive_jvps[sincos_p] = sincos_jvp\n'),
        W('m', 'returns a single ad.Zero for the zero tangent instead of one per output (a pair)',
          'def sincos_jvp(primals, tangents):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    s, c = sincos(x)\n'
          '    if type(x_dot) is ad.Zero:\n'
          '        return (s, c), ad.Zero(jax.typeof(s).to_tangent_aval())\n'
          '    return (s, c), (c * x_dot, -s * x_dot)\n'
          '\n'
          'ad.primitive_jvps[sincos_p] = sincos_jvp\n'),
        W('g', 'zero tangent built from jax.typeof(0.0): a scalar weak float32 Zero whatever the shape of x',
          'def sincos_jvp(primals, tangents):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    s, c = sincos(x)\n'
          '    if type(x_dot) is ad.Zero:\n'
          '        zero = ad.Zero(jax.typeof(0.0).to_tangent_aval())\n'
          '        return (s, c), (zero, zero)\n'
          '    return (s, c), (c * x_dot, -s * x_dot)\n'
          '\n'
          'ad.primitive_jvps[sincos_p] = sincos_jvp\n'),
        W('d', 'primal outputs computed with jnp.sin/jnp.cos instead of sincos(x): values right, sincos_p gone from the jvp/grad program',
          'def sincos_jvp(primals, tangents):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    s, c = jnp.sin(x), jnp.cos(x)\n'
          '    if type(x_dot) is ad.Zero:\n'
          '        zero = ad.Zero(jax.typeof(s).to_tangent_aval())\n'
          '        return (s, c), (zero, zero)\n'
          '    return (s, c), (c * x_dot, -s * x_dot)\n'
          '\n'
          'ad.primitive_jvps[sincos_p] = sincos_jvp\n'),
        W('c', 'tangent factors computed on x.astype(float32): bfloat16/float16 inputs get float32 tangents',
          'def sincos_jvp(primals, tangents):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    s, c = sincos(x)\n'
          '    if type(x_dot) is ad.Zero:\n'
          '        zero = ad.Zero(jax.typeof(s).to_tangent_aval())\n'
          '        return (s, c), (zero, zero)\n'
          '    # derivative factors in float32, so low-precision inputs keep an accurate slope\n'
          '    x32 = x.astype(jnp.float32)\n'
          '    return (s, c), (jnp.cos(x32) * x_dot, -jnp.sin(x32) * x_dot)\n'
          '\n'
          'ad.primitive_jvps[sincos_p] = sincos_jvp\n'),
        W('e', 'derivative factors wrapped in stop_gradient: first derivatives right, second derivatives (grad of grad, hessian) zero',
          'def sincos_jvp(primals, tangents):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    s, c = sincos(x)\n'
          '    if type(x_dot) is ad.Zero:\n'
          '        zero = ad.Zero(jax.typeof(s).to_tangent_aval())\n'
          '        return (s, c), (zero, zero)\n'
          '    # the derivative factors are known values, not something to differentiate\n'
          '    ds, dc = jax.lax.stop_gradient(c), jax.lax.stop_gradient(-s)\n'
          '    return (s, c), (ds * x_dot, dc * x_dot)\n'
          '\n'
          'ad.primitive_jvps[sincos_p] = sincos_jvp\n'),
        W('m', 'symbolic-zero tangent answered with jnp.zeros_like arrays instead of ad.Zero for both outputs',
          'def sincos_jvp(primals, tangents):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    s, c = sincos(x)\n'
          '    if type(x_dot) is ad.Zero:\n'
          '        zeros = jnp.zeros_like(s)\n'
          '        return (s, c), (zeros, zeros)\n'
          '    return (s, c), (c * x_dot, -s * x_dot)\n'
          '\n'
          'ad.primitive_jvps[sincos_p] = sincos_jvp\n'),
    ],
    'ex3_answer': [
        W('c', "Moves x's batch axis to the front but never w's: right while w is batched on axis 0 only.",
          'def matvec_batch(batched_args, batch_dims):\n'
          '    (w, x), (wd, xd) = batched_args, batch_dims\n'
          '    if wd is None:\n'
          "        return jnp.einsum('mn,bn->bm', w, jnp.moveaxis(x, xd, 0)), 0\n"
          '    if xd is None:\n'
          "        return jnp.einsum('bmn,n->bm', w, x), 0\n"
          "    return jnp.einsum('bmn,bn->bm', w, jnp.moveaxis(x, xd, 0)), 0\n"
          'batching.primitive_batchers[matvec_p] = matvec_batch\n'),
        W('m', 'Handles a batch of vectors only, as if w were never batched.',
          'def matvec_batch(batched_args, batch_dims):\n'
          '    (w, x), (wd, xd) = batched_args, batch_dims\n'
          "    return jnp.einsum('mn,bn->bm', w, jnp.moveaxis(x, xd, 0)), 0\n"
          'batching.primitive_batchers[matvec_p] = matvec_batch\n'),
        W('m', "Computes with the batch axis in front but reports the input's own batch axis as out_dim.",
          'def matvec_batch(batched_args, batch_dims):\n'
          '    (w, x), (wd, xd) = batched_args, batch_dims\n'
          '    if wd is None:\n'
          "        return jnp.einsum('mn,bn->bm', w, jnp.moveaxis(x, xd, 0)), xd\n"
          '    w = jnp.moveaxis(w, wd, 0)\n'
          '    if xd is None:\n'
          "        return jnp.einsum('bmn,n->bm', w, x), wd\n"
          "    return jnp.einsum('bmn,bn->bm', w, jnp.moveaxis(x, xd, 0)), 0\n"
          'batching.primitive_batchers[matvec_p] = matvec_batch\n'),
        W('c', "Moves x's batch axis to the front only when w is not batched: with both batched and x batched on axis 1, it reads x's batch axis as its first.",
          'def matvec_batch(batched_args, batch_dims):\n'
          '    (w, x), (wd, xd) = batched_args, batch_dims\n'
          '    if wd is None:                                     # one matrix, a batch of vectors\n'
          '        return jnp.einsum("mn,bn->bm", w, jnp.moveaxis(x, xd, 0)), 0\n'
          '    w = jnp.moveaxis(w, wd, 0)\n'
          '    if xd is None:                                     # a batch of matrices, one vector\n'
          '        return jnp.einsum("bmn,n->bm", w, x), 0\n'
          '    return jnp.einsum("bmn,bn->bm", w, x), 0\n'
          '\n'
          'batching.primitive_batchers[matvec_p] = matvec_batch\n'),
        W('c', 'handles None but assumes every batch axis is 0 (no moveaxis): right for in_axes 0/None, errors or wrong layout for batch axes 1 or 2',
          'def matvec_batch(batched_args, batch_dims):\n'
          '    (w, x), (wd, xd) = batched_args, batch_dims\n'
          '    if wd is None:                                     # one matrix, a batch of vectors\n'
          '        return jnp.einsum("mn,bn->bm", w, x), 0\n'
          '    if xd is None:                                     # a batch of matrices, one vector\n'
          '        return jnp.einsum("bmn,n->bm", w, x), 0\n'
          '    return jnp.einsum("bmn,bn->bm", w, x), 0\n'
          '\n'
          'batching.primitive_batchers[matvec_p] = matvec_batch\n'),
        W('c', 'moves the batch axis with swapaxes instead of moveaxis: fine for w batched at axis 0 or 1, scrambles w batched at axis 2',
          'def matvec_batch(batched_args, batch_dims):\n'
          '    (w, x), (wd, xd) = batched_args, batch_dims\n'
          '    if wd is not None:\n'
          '        w = jnp.swapaxes(w, wd, 0)                     # bring the batch axis to the front\n'
          '    if xd is not None:\n'
          '        x = jnp.swapaxes(x, xd, 0)\n'
          '    if wd is None:\n'
          '        return jnp.einsum("mn,bn->bm", w, x), 0\n'
          '    if xd is None:\n'
          '        return jnp.einsum("bmn,n->bm", w, x), 0\n'
          '    return jnp.einsum("bmn,bn->bm", w, x), 0\n'
          '\n'
          'batching.primitive_batchers[matvec_p] = matvec_batch\n'),
        W('e', 'computes with np.einsum/np.moveaxis: eager vmap works, jit(vmap) and vmap(vmap) raise TracerArrayConversionError',
          'def matvec_batch(batched_args, batch_dims):\n'
          '    (w, x), (wd, xd) = batched_args, batch_dims\n'
          '    if wd is None:\n'
          '        return np.einsum("mn,bn->bm", w, np.moveaxis(x, xd, 0)), 0\n'
          '    w = np.moveaxis(w, wd, 0)\n'
          '    if xd is None:\n'
          '        return np.einsum("bmn,n->bm", w, x), 0\n'
          '    return np.einsum("bmn,bn->bm", w, np.moveaxis(x, xd, 0)), 0\n'
          '\n'
          'batching.primitive_batchers[matvec_p] = matvec_batch\n'),
        W('g', 'one matrix, batch of vectors computed as x @ w (transpose forgotten): right for the identity/symmetric w of the text, wrong for a random square w, error when m != n',
          'def matvec_batch(batched_args, batch_dims):\n'
          '    (w, x), (wd, xd) = batched_args, batch_dims\n'
          '    if wd is None:                                     # rows of x times w\n'
          '        return jnp.moveaxis(x, xd, 0) @ w, 0\n'
          '    w = jnp.moveaxis(w, wd, 0)\n'
          '    if xd is None:\n'
          '        return w @ x, 0\n'
          '    return jnp.einsum("bmn,bn->bm", w, jnp.moveaxis(x, xd, 0)), 0\n'
          '\n'
          'batching.primitive_batchers[matvec_p] = matvec_batch\n'),
        W('m', "tests 'not batched' with `if not wd` (quiz q3's confusion of None with 0): axis 0 is taken as unbatched, so in_axes=0 fails",
          'def matvec_batch(batched_args, batch_dims):\n'
          '    (w, x), (wd, xd) = batched_args, batch_dims\n'
          '    if not wd:                                         # w not batched\n'
          '        return jnp.einsum("mn,bn->bm", w, jnp.moveaxis(x, xd, 0)), 0\n'
          '    w = jnp.moveaxis(w, wd, 0)\n'
          '    if not xd:                                         # x not batched\n'
          '        return jnp.einsum("bmn,n->bm", w, x), 0\n'
          '    return jnp.einsum("bmn,bn->bm", w, jnp.moveaxis(x, xd, 0)), 0\n'
          '\n'
          'batching.primitive_batchers[matvec_p] = matvec_batch\n'),
        W('c', "jnp.swapaxes instead of moveaxis: same for w's batch axis 0 or 1, transposes the matrices when w is batched along axis 2",
          'def matvec_batch(batched_args, batch_dims):\n'
          '    (w, x), (wd, xd) = batched_args, batch_dims\n'
          '    if wd is None:                                     # one matrix, a batch of vectors\n'
          '        return jnp.einsum("mn,bn->bm", w, jnp.swapaxes(x, xd, 0)), 0\n'
          '    w = jnp.swapaxes(w, wd, 0)                         # batch axis to the front\n'
          '    if xd is None:                                     # a batch of matrices, one vector\n'
          '        return jnp.einsum("bmn,n->bm", w, x), 0\n'
          '    return jnp.einsum("bmn,bn->bm", w, jnp.swapaxes(x, xd, 0)), 0\n'
          '\n'
          'batching.primitive_batchers[matvec_p] = matvec_batch\n'),
        W('c', "both batched: moves x's batch axis with w's position wd: right when in_axes are equal (0, 0), wrong for (0, 1), (1, 0), (2, *)",
          'def matvec_batch(batched_args, batch_dims):\n'
          '    (w, x), (wd, xd) = batched_args, batch_dims\n'
          '    if wd is None:                                     # one matrix, a batch of vectors\n'
          '        return jnp.einsum("mn,bn->bm", w, jnp.moveaxis(x, xd, 0)), 0\n'
          '    w = jnp.moveaxis(w, wd, 0)\n'
          '    if xd is None:                                     # a batch of matrices, one vector\n'
          '        return jnp.einsum("bmn,n->bm", w, x), 0\n'
          '    x = jnp.moveaxis(x, wd, 0)                         # both batched: bring the batch axis first\n'
          '    return jnp.einsum("bmn,bn->bm", w, x), 0\n'
          '\n'
          'batching.primitive_batchers[matvec_p] = matvec_batch\n'),
        W('c', 'batch size read as shape[0] of the batched operand before moving its axis: wrong when the batch axis is not 0 and the other operand is unbatched',
          'def matvec_batch(batched_args, batch_dims):\n'
          '    (w, x), (wd, xd) = batched_args, batch_dims\n'
          '    size = (x if wd is None else w).shape[0]           # the batch size\n'
          '    if wd is None:                                     # one matrix for the whole batch: repeat it\n'
          '        w, wd = jnp.broadcast_to(w, (size, *w.shape)), 0\n'
          '    if xd is None:                                     # one vector for the whole batch: repeat it\n'
          '        x, xd = jnp.broadcast_to(x, (size, *x.shape)), 0\n'
          '    w, x = jnp.moveaxis(w, wd, 0), jnp.moveaxis(x, xd, 0)\n'
          '    return jnp.einsum("bmn,bn->bm", w, x), 0\n'
          '\n'
          'batching.primitive_batchers[matvec_p] = matvec_batch\n'),
        W('e', 'np.einsum/np.moveaxis for the unbatched-w case: works eagerly, fails under jit and in nested vmap',
          'def matvec_batch(batched_args, batch_dims):\n'
          '    (w, x), (wd, xd) = batched_args, batch_dims\n'
          '    if wd is None:                                     # one matrix, a batch of vectors\n'
          '        return np.einsum("mn,bn->bm", w, np.moveaxis(x, xd, 0)), 0\n'
          '    w = jnp.moveaxis(w, wd, 0)\n'
          '    if xd is None:                                     # a batch of matrices, one vector\n'
          '        return jnp.einsum("bmn,n->bm", w, x), 0\n'
          '    return jnp.einsum("bmn,bn->bm", w, jnp.moveaxis(x, xd, 0)), 0\n'
          '\n'
          'batching.primitive_batchers[matvec_p] = matvec_batch\n'),
    ],
    'ex4_answer': [
        W('m', "Section 3's pitfall: no symbolic zeros; a zero cotangent goes into scale and into ct * x.",
          'def scale_transpose(ct, x, c):\n'
          '    if ad.is_undefined_primal(x):\n'
          '        return scale(ct, c), None\n'
          '    return None, jnp.sum(ct * x).astype(c.aval.dtype)\n'
          'ad.primitive_transposes[scale_p] = scale_transpose\n'),
        W('m', 'The cotangent of c sums the output cotangent but forgets to weight it by x.',
          'def scale_transpose(ct, x, c):\n'
          '    if ad.is_undefined_primal(x):\n'
          '        if type(ct) is ad.Zero:\n'
          '            return ad.Zero(x.aval.to_tangent_aval()), None\n'
          '        return scale(ct, c), None\n'
          '    if type(ct) is ad.Zero:\n'
          '        return None, ad.Zero(c.aval.to_tangent_aval())\n'
          '    return None, jnp.sum(ct)\n'
          'ad.primitive_transposes[scale_p] = scale_transpose\n'),
        W('e', "x's cotangent computed in NumPy: eager gradients work, but jit, vmap or a second derivative with respect to x meet a tracer NumPy cannot read.",
          'def scale_transpose(ct, x, c):\n'
          '    if ad.is_undefined_primal(x):\n'
          '        if type(ct) is ad.Zero:\n'
          '            return ad.Zero(x.aval.to_tangent_aval()), None\n'
          '        return jnp.asarray(np.asarray(ct) * np.asarray(c)), None   # y = x * c, so ct * c\n'
          '    if type(ct) is ad.Zero:\n'
          '        return None, ad.Zero(c.aval.to_tangent_aval())\n'
          '    return None, jnp.sum(ct * x).astype(c.aval.dtype)\n'
          '\n'
          'ad.primitive_transposes[scale_p] = scale_transpose\n'),
        W('a', "c's cotangent is sum(x), ignoring ct: right for grad of scale(x, c).sum(), wrong for a weighted loss, second derivative 0",
          'def scale_transpose(ct, x, c):\n'
          '    if ad.is_undefined_primal(x):\n'
          '        if type(ct) is ad.Zero:\n'
          '            return ad.Zero(x.aval.to_tangent_aval()), None\n'
          '        return scale(ct, c), None\n'
          '    if type(ct) is ad.Zero:\n'
          '        return None, ad.Zero(c.aval.to_tangent_aval())\n'
          '    return None, jnp.sum(x).astype(c.aval.dtype)          # d(x * c)/dc = x, summed over the elements\n'
          '\n'
          'ad.primitive_transposes[scale_p] = scale_transpose\n'),
        W('a', "x's cotangent is c broadcast to x's shape, ignoring ct: right for .sum(), wrong for weighted losses and hessians",
          'def scale_transpose(ct, x, c):\n'
          '    if ad.is_undefined_primal(x):\n'
          '        if type(ct) is ad.Zero:\n'
          '            return ad.Zero(x.aval.to_tangent_aval()), None\n'
          '        return jnp.broadcast_to(c, x.aval.shape), None      # d(x * c)/dx = c for every element\n'
          '    if type(ct) is ad.Zero:\n'
          '        return None, ad.Zero(c.aval.to_tangent_aval())\n'
          '    return None, jnp.sum(ct * x).astype(c.aval.dtype)\n'
          '\n'
          'ad.primitive_transposes[scale_p] = scale_transpose\n'),
        W('b', "c's cotangent summed with dtype=float32: right for float32, returns float32 instead of bfloat16/float16 for low-precision c",
          'def scale_transpose(ct, x, c):\n'
          '    if ad.is_undefined_primal(x):\n'
          '        if type(ct) is ad.Zero:\n'
          '            return ad.Zero(x.aval.to_tangent_aval()), None\n'
          '        return scale(ct, c), None\n'
          '    if type(ct) is ad.Zero:\n'
          '        return None, ad.Zero(c.aval.to_tangent_aval())\n'
          '    return None, jnp.sum(ct * x, dtype=jnp.float32)        # accumulate the sum in float32\n'
          '\n'
          'ad.primitive_transposes[scale_p] = scale_transpose\n'),
        W('c', "c's cotangent summed over axis 0 only: right for 1-D x, wrong shape for 2-D x and an error for 0-d x",
          'def scale_transpose(ct, x, c):\n'
          '    if ad.is_undefined_primal(x):\n'
          '        if type(ct) is ad.Zero:\n'
          '            return ad.Zero(x.aval.to_tangent_aval()), None\n'
          '        return scale(ct, c), None\n'
          '    if type(ct) is ad.Zero:\n'
          '        return None, ad.Zero(c.aval.to_tangent_aval())\n'
          '    return None, jnp.sum(ct * x, axis=0).astype(c.aval.dtype)\n'
          '\n'
          'ad.primitive_transposes[scale_p] = scale_transpose\n'),
        W('g', "c's cotangent as jnp.dot(ct, x): right for the text's 1-D u and for 0-d, error for 2-D x",
          'def scale_transpose(ct, x, c):\n'
          '    if ad.is_undefined_primal(x):\n'
          '        if type(ct) is ad.Zero:\n'
          '            return ad.Zero(x.aval.to_tangent_aval()), None\n'
          '        return scale(ct, c), None\n'
          '    if type(ct) is ad.Zero:\n'
          '        return None, ad.Zero(c.aval.to_tangent_aval())\n'
          '    return None, jnp.dot(ct, x).astype(c.aval.dtype)       # the dot product of ct and x\n'
          '\n'
          'ad.primitive_transposes[scale_p] = scale_transpose\n'),
        W('e', "c's cotangent computed in NumPy: eager grad and vmap(grad) work, grad of grad, jit(vmap(grad)) and check_grads raise TracerArrayConversionError",
          'def scale_transpose(ct, x, c):\n'
          '    if ad.is_undefined_primal(x):\n'
          '        if type(ct) is ad.Zero:\n'
          '            return ad.Zero(x.aval.to_tangent_aval()), None\n'
          '        return scale(ct, c), None\n'
          '    if type(ct) is ad.Zero:\n'
          '        return None, ad.Zero(c.aval.to_tangent_aval())\n'
          '    return None, np.asarray(np.sum(np.asarray(ct) * np.asarray(x)), c.aval.dtype)\n'
          '\n'
          'ad.primitive_transposes[scale_p] = scale_transpose\n'),
        W('m', "c's cotangent not summed (ct * x, one per element): 'Expected cotangent type float32[]' on every gradient with respect to c",
          'def scale_transpose(ct, x, c):\n'
          '    if ad.is_undefined_primal(x):\n'
          '        if type(ct) is ad.Zero:\n'
          '            return ad.Zero(x.aval.to_tangent_aval()), None\n'
          '        return scale(ct, c), None\n'
          '    if type(ct) is ad.Zero:\n'
          '        return None, ad.Zero(c.aval.to_tangent_aval())\n'
          "    return None, ct * x                                     # one cotangent per element, like x's\n"
          '\n'
          'ad.primitive_transposes[scale_p] = scale_transpose\n'),
        W('m', 'takes the undefined operand to be the ad.Zero one (quiz q2 b): every gradient with respect to x fails multiplying by an UndefinedPrimal',
          'def scale_transpose(ct, x, c):\n'
          '    if type(x) is ad.Zero:                                  # the operand we differentiate\n'
          '        return scale(ct, c), None\n'
          '    return None, jnp.sum(ct * x).astype(c.aval.dtype)\n'
          '\n'
          'ad.primitive_transposes[scale_p] = scale_transpose\n'),
        W('a', "c's cotangent as mean(ct) * sum(x): right for uniform cotangents (.sum()), wrong for weighted or squared losses",
          'def scale_transpose(ct, x, c):\n'
          '    if ad.is_undefined_primal(x):\n'
          '        if type(ct) is ad.Zero:\n'
          '            return ad.Zero(x.aval.to_tangent_aval()), None\n'
          "        return scale(ct, c), None                      # y = x * c, so x's cotangent is ct * c\n"
          '    if type(ct) is ad.Zero:\n'
          '        return None, ad.Zero(c.aval.to_tangent_aval())\n'
          '    # c is a scalar: its cotangent is the (scalar) cotangent times dy/dc = sum(x)\n'
          '    return None, (jnp.mean(ct) * jnp.sum(x)).astype(c.aval.dtype)\n'
          '\n'
          'ad.primitive_transposes[scale_p] = scale_transpose\n'),
        W('e', "c's cotangent built as c.aval.dtype.type(...) (a NumPy scalar): eager grad right, fails under jit, vmap of grad and hessian",
          'def scale_transpose(ct, x, c):\n'
          '    if ad.is_undefined_primal(x):\n'
          '        if type(ct) is ad.Zero:\n'
          '            return ad.Zero(x.aval.to_tangent_aval()), None\n'
          "        return scale(ct, c), None                      # y = x * c, so x's cotangent is ct * c\n"
          '    if type(ct) is ad.Zero:\n'
          '        return None, ad.Zero(c.aval.to_tangent_aval())\n'
          "    return None, c.aval.dtype.type(jnp.sum(ct * x))    # a scalar of c's dtype\n"
          '\n'
          'ad.primitive_transposes[scale_p] = scale_transpose\n'),
        W('m', 'zero-cotangent branch always answers for x ((Zero of x, None)) even when c is the undefined operand',
          'def scale_transpose(ct, x, c):\n'
          '    if type(ct) is ad.Zero:                            # nothing flows back\n'
          '        return ad.Zero(x.aval.to_tangent_aval()), None\n'
          '    if ad.is_undefined_primal(x):\n'
          "        return scale(ct, c), None                      # y = x * c, so x's cotangent is ct * c\n"
          '    return None, jnp.sum(ct * x).astype(c.aval.dtype)  # c touched every element: sum ct * x\n'
          '\n'
          'ad.primitive_transposes[scale_p] = scale_transpose\n'),
    ],
    'quiz_answer': [
        W('m', "q1=c and q4=a: takes def_vjp for a real method, and an integer's tangent type for its own dtype.",
          'q1 = "c"\n'
          'q2 = "a"\n'
          'q3 = "c"\n'
          'q4 = "a"\n'),
        W('m', 'q1=a: generalises section 2 (softplus needs no transpose) to a JVP that binds the primitive on the tangent',
          'q1 = "a"\n'
          'q2 = "a"\n'
          'q3 = "c"\n'
          'q4 = "b"\n'),
        W('m', 'q2=b: confuses the undefined (linear) operand with a symbolic zero',
          'q1 = "b"\n'
          'q2 = "b"\n'
          'q3 = "c"\n'
          'q4 = "b"\n'),
        W('m', 'q3=a: reads None in batch_dims as axis 0',
          'q1 = "b"\n'
          'q2 = "a"\n'
          'q3 = "a"\n'
          'q4 = "b"\n'),
        W('m', "q4=a: thinks an integer's tangent type is its own dtype (misses float0, section 3)",
          'q1 = "b"\n'
          'q2 = "a"\n'
          'q3 = "c"\n'
          'q4 = "a"\n'),
        W('m', "q2=b, q4=a: misreads symbolic zeros (section 3): thinks the undefined operand is the ad.Zero and a zero tangent keeps the primal's int32 type",
          'q1 = "b"\n'
          'q2 = "b"\n'
          'q3 = "c"\n'
          'q4 = "a"\n'),
    ],
}

# Round 3: written from the chapter's text alone (its test cells removed), before its checks were read;
# each passed every visible check, and some scored full marks, until the checks were made to catch them.
WRONG['ex1_answer'] += [
    W('c', 'transpose multiplies by jnp.ones(shape) (float32): promotes float16/bfloat16 cotangents to float32',
      'forget_rules(custom_reduce_sum_p)   # start from scratch, so this cell can be run again\n\ndef reduce_sum_jvp(primals, tangents, *, axes):\n    (x,), (x_dot,) = primals, tangents\n    y = custom_reduce_sum_p.bind(x, axes=axes)\n    if type(x_dot) is ad.Zero:\n        return y, ad.Zero(jax.typeof(y).to_tangent_aval())\n    return y, custom_reduce_sum_p.bind(x_dot, axes=axes)\n\ndef reduce_sum_transpose(ct, x, *, axes):\n    if type(ct) is ad.Zero:\n        return (ad.Zero(x.aval.to_tangent_aval()),)\n    return (jnp.ones(x.aval.shape) * jnp.expand_dims(ct, axes),)\n\ndef reduce_sum_batch(batched_args, batch_dims, *, axes):\n    (x,), (bd,) = batched_args, batch_dims\n    x = jnp.moveaxis(x, bd, 0)                       # batch axis first\n    return custom_reduce_sum_p.bind(x, axes=tuple(a + 1 for a in axes)), 0\n\nad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\nad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\nbatching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
    W('c', 'zero cotangent answered with a float32 Zero: wrong tangent dtype for float16/bfloat16 x',
      'forget_rules(custom_reduce_sum_p)   # start from scratch, so this cell can be run again\n\ndef reduce_sum_jvp(primals, tangents, *, axes):\n    (x,), (x_dot,) = primals, tangents\n    y = custom_reduce_sum_p.bind(x, axes=axes)\n    if type(x_dot) is ad.Zero:\n        return y, ad.Zero(jax.typeof(y).to_tangent_aval())\n    return y, custom_reduce_sum_p.bind(x_dot, axes=axes)\n\ndef reduce_sum_transpose(ct, x, *, axes):\n    if type(ct) is ad.Zero:\n        return (ad.Zero(jax.core.ShapedArray(x.aval.shape, jnp.float32)),)\n    return (jnp.broadcast_to(jnp.expand_dims(ct, axes), x.aval.shape),)\n\ndef reduce_sum_batch(batched_args, batch_dims, *, axes):\n    (x,), (bd,) = batched_args, batch_dims\n    x = jnp.moveaxis(x, bd, 0)                       # batch axis first\n    return custom_reduce_sum_p.bind(x, axes=tuple(a + 1 for a in axes)), 0\n\nad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\nad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\nbatching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
    W('c', 'sums the tangent in float32 for accuracy: float16/bfloat16 tangents come out float32',
      'forget_rules(custom_reduce_sum_p)   # start from scratch, so this cell can be run again\n\ndef reduce_sum_jvp(primals, tangents, *, axes):\n    (x,), (x_dot,) = primals, tangents\n    y = custom_reduce_sum_p.bind(x, axes=axes)\n    if type(x_dot) is ad.Zero:\n        return y, ad.Zero(jax.typeof(y).to_tangent_aval())\n    return y, custom_reduce_sum_p.bind(x_dot.astype(jnp.float32), axes=axes)   # accumulate in float32\n\ndef reduce_sum_transpose(ct, x, *, axes):\n    if type(ct) is ad.Zero:\n        return (ad.Zero(x.aval.to_tangent_aval()),)\n    return (jnp.broadcast_to(jnp.expand_dims(ct, axes), x.aval.shape),)\n\ndef reduce_sum_batch(batched_args, batch_dims, *, axes):\n    (x,), (bd,) = batched_args, batch_dims\n    x = jnp.moveaxis(x, bd, 0)                       # batch axis first\n    return custom_reduce_sum_p.bind(x, axes=tuple(a + 1 for a in axes)), 0\n\nad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\nad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\nbatching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
]
WRONG['ex2_answer'] += [
    W('c', 'symbolic zeros built as float32 ShapedArray: wrong tangent dtype for float16/bfloat16 x',
      'def sincos_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    s, c = sincos(x)\n    if type(x_dot) is ad.Zero:\n        zero = ad.Zero(jax.core.ShapedArray(x.shape, jnp.float32))\n        return (s, c), (zero, zero)\n    return (s, c), (c * x_dot, -s * x_dot)\n\nad.primitive_jvps[sincos_p] = sincos_jvp\n'),
    W('d', 'tangents recompute jnp.cos/jnp.sin instead of reusing the outputs: extra sine and cosine in the program',
      'def sincos_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    s, c = sincos(x)\n    if type(x_dot) is ad.Zero:\n        zero = ad.Zero(jax.typeof(x).to_tangent_aval())\n        return (s, c), (zero, zero)\n    return (s, c), (jnp.cos(x) * x_dot, -jnp.sin(x) * x_dot)\n\nad.primitive_jvps[sincos_p] = sincos_jvp\n'),
]
WRONG['ex3_answer'] += [
    W('c', "multiply-and-sum: jnp.sum upcasts small integer dtypes, so the batched dtype differs from matvec's",
      'def matvec_batch(batched_args, batch_dims):\n    (w, x), (wd, xd) = batched_args, batch_dims\n    w = jnp.moveaxis(w, wd, 0) if wd is not None else w[None]          # (b or 1, m, n)\n    x = jnp.moveaxis(x, xd, 0) if xd is not None else x[None]          # (b or 1, n)\n    return (w * x[:, None, :]).sum(axis=-1), 0\n\nbatching.primitive_batchers[matvec_p] = matvec_batch\n'),
    W('c', "casts x to w's dtype first: wrong values and dtype for mixed dtypes (int w, float x)",
      "def matvec_batch(batched_args, batch_dims):\n    (w, x), (wd, xd) = batched_args, batch_dims\n    x = x.astype(w.dtype)                            # keep both operands in one dtype\n    if wd is None:\n        return jnp.einsum('mn,bn->bm', w, jnp.moveaxis(x, xd, 0)), 0\n    w = jnp.moveaxis(w, wd, 0)\n    if xd is None:\n        return jnp.einsum('bmn,n->bm', w, x), 0\n    return jnp.einsum('bmn,bn->bm', w, jnp.moveaxis(x, xd, 0)), 0\n\nbatching.primitive_batchers[matvec_p] = matvec_batch\n"),
    W('c', 'squeeze after a batched matmul: drops the batch axis too when the batch size or m is 1',
      'def matvec_batch(batched_args, batch_dims):\n    (w, x), (wd, xd) = batched_args, batch_dims\n    x = jnp.moveaxis(x, xd, 0)[:, :, None] if xd is not None else x[:, None]   # column vector(s)\n    w = jnp.moveaxis(w, wd, 0) if wd is not None else w\n    return jnp.squeeze(w @ x), 0\n\nbatching.primitive_batchers[matvec_p] = matvec_batch\n'),
    W('c', 'einsum with preferred_element_type=float32: integer and float16 results come back float32',
      "def matvec_batch(batched_args, batch_dims):\n    (w, x), (wd, xd) = batched_args, batch_dims\n    w_sub = 'mn' if wd is None else 'bmn'\n    x_sub = 'n' if xd is None else 'bn'\n    w = w if wd is None else jnp.moveaxis(w, wd, 0)\n    x = x if xd is None else jnp.moveaxis(x, xd, 0)\n    return jnp.einsum(f'{w_sub},{x_sub}->bm', w, x, preferred_element_type=jnp.float32), 0\n\nbatching.primitive_batchers[matvec_p] = matvec_batch\n"),
]
WRONG['ex4_answer'] += [
    W('c', 'zero cotangent for c built as a float32 scalar Zero: wrong dtype for float16/bfloat16',
      'def scale_transpose(ct, x, c):\n    if ad.is_undefined_primal(x):\n        if type(ct) is ad.Zero:\n            return ad.Zero(x.aval.to_tangent_aval()), None\n        return scale(ct, c), None\n    if type(ct) is ad.Zero:\n        return None, ad.Zero(jax.core.ShapedArray((), jnp.float32))\n    return None, jnp.sum(ct * x)\n\nad.primitive_transposes[scale_p] = scale_transpose\n'),
]

# Round 4: written from the text alone, with the mistakes above listed as already caught, before the checks were read;
# each passed every visible check, and some scored full marks, until the checks were made to catch them.
WRONG['ex1_answer'] += [
    W('c', 'batch axis kept in place; out_dim assumes that when the batch axis sits between summed axes exactly one summed axis precedes it: wrong for e.g. axes (0, 1, 3) with the batch axis at 2 or 3',
      'forget_rules(custom_reduce_sum_p)   # start from scratch, so this cell can be run again\n\ndef reduce_sum_jvp(primals, tangents, *, axes):\n    (x,), (x_dot,) = primals, tangents\n    y = custom_reduce_sum_p.bind(x, axes=axes)\n    if type(x_dot) is ad.Zero:\n        return y, ad.Zero(jax.typeof(y).to_tangent_aval())\n    return y, custom_reduce_sum_p.bind(x_dot, axes=axes)\n\ndef reduce_sum_transpose(ct, x, *, axes):\n    if type(ct) is ad.Zero:\n        return (ad.Zero(x.aval.to_tangent_aval()),)\n    return (jnp.broadcast_to(jnp.expand_dims(ct, axes), x.aval.shape),)\n\ndef reduce_sum_batch(batched_args, batch_dims, *, axes):\n    (x,), (bd,) = batched_args, batch_dims\n    shifted = tuple(a + 1 if a >= bd else a for a in axes)\n    if axes[-1] < bd:            # every summed axis comes before the batch axis\n        out_dim = bd - len(axes)\n    elif axes[0] >= bd:          # every summed axis comes after it\n        out_dim = bd\n    else:                        # the batch axis sits between summed axes\n        out_dim = bd - 1\n    return custom_reduce_sum_p.bind(x, axes=shifted), out_dim\n\nad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\nad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\nbatching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
    W('c', 'same straddle out_dim shortcut, but with axes=() handled: wrong only when two or more summed axes precede the batch axis and one follows it (e.g. axes (0, 1, 3), batch axis 2)',
      'forget_rules(custom_reduce_sum_p)   # start from scratch, so this cell can be run again\n\ndef reduce_sum_jvp(primals, tangents, *, axes):\n    (x,), (x_dot,) = primals, tangents\n    y = custom_reduce_sum_p.bind(x, axes=axes)\n    if type(x_dot) is ad.Zero:\n        return y, ad.Zero(jax.typeof(y).to_tangent_aval())\n    return y, custom_reduce_sum_p.bind(x_dot, axes=axes)\n\ndef reduce_sum_transpose(ct, x, *, axes):\n    if type(ct) is ad.Zero:\n        return (ad.Zero(x.aval.to_tangent_aval()),)\n    return (jnp.broadcast_to(jnp.expand_dims(ct, axes), x.aval.shape),)\n\ndef reduce_sum_batch(batched_args, batch_dims, *, axes):\n    (x,), (bd,) = batched_args, batch_dims\n    if not axes:                 # nothing to sum\n        return custom_reduce_sum_p.bind(x, axes=axes), bd\n    shifted = tuple(a + 1 if a >= bd else a for a in axes)\n    if axes[-1] < bd:            # every summed axis comes before the batch axis\n        out_dim = bd - len(axes)\n    elif axes[0] >= bd:          # every summed axis comes after it\n        out_dim = bd\n    else:                        # the batch axis sits between summed axes\n        out_dim = bd - 1\n    return custom_reduce_sum_p.bind(x, axes=shifted), out_dim\n\nad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\nad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\nbatching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
    W('c', 'batch rule decides with max(axes): keeps the batch axis when it is after every summed axis, else moves it first; raises for axes=() (a sum over no axes)',
      'forget_rules(custom_reduce_sum_p)   # start from scratch, so this cell can be run again\n\ndef reduce_sum_jvp(primals, tangents, *, axes):\n    (x,), (x_dot,) = primals, tangents\n    y = custom_reduce_sum_p.bind(x, axes=axes)\n    if type(x_dot) is ad.Zero:\n        return y, ad.Zero(jax.typeof(y).to_tangent_aval())\n    return y, custom_reduce_sum_p.bind(x_dot, axes=axes)\n\ndef reduce_sum_transpose(ct, x, *, axes):\n    if type(ct) is ad.Zero:\n        return (ad.Zero(x.aval.to_tangent_aval()),)\n    return (jnp.broadcast_to(jnp.expand_dims(ct, axes), x.aval.shape),)\n\ndef reduce_sum_batch(batched_args, batch_dims, *, axes):\n    (x,), (bd,) = batched_args, batch_dims\n    if bd > max(axes):           # the batch axis is after every summed axis: it only moves left\n        return custom_reduce_sum_p.bind(x, axes=axes), bd - len(axes)\n    x = jnp.moveaxis(x, bd, 0)\n    return custom_reduce_sum_p.bind(x, axes=tuple(a + 1 for a in axes)), 0\n\nad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\nad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\nbatching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
    W('c', 'JVP tangent written with jnp.sum (so grad never reaches the transpose), and a transpose that re-inserts only axes[0]: wrong for a tuple of axes, visible only when the rule is called',
      'forget_rules(custom_reduce_sum_p)   # start from scratch, so this cell can be run again\n\ndef reduce_sum_jvp(primals, tangents, *, axes):\n    (x,), (x_dot,) = primals, tangents\n    y = custom_reduce_sum_p.bind(x, axes=axes)\n    if type(x_dot) is ad.Zero:\n        return y, ad.Zero(jax.typeof(y).to_tangent_aval())\n    return y, jnp.sum(x_dot, axis=axes)          # existing operations: no transpose needed for grad\n\ndef reduce_sum_transpose(ct, x, *, axes):\n    if type(ct) is ad.Zero:\n        return (ad.Zero(x.aval.to_tangent_aval()),)\n    return (jnp.broadcast_to(jnp.expand_dims(ct, axes[0]), x.aval.shape),)\n\ndef reduce_sum_batch(batched_args, batch_dims, *, axes):\n    (x,), (bd,) = batched_args, batch_dims\n    x = jnp.moveaxis(x, bd, 0)\n    return custom_reduce_sum_p.bind(x, axes=tuple(a + 1 for a in axes)), 0\n\nad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\nad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\nbatching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
    W('a', "JVP tangent written with jnp.sum (grad never reaches the transpose), and a transpose that ignores ct's values (ones of x's shape)",
      'forget_rules(custom_reduce_sum_p)   # start from scratch, so this cell can be run again\n\ndef reduce_sum_jvp(primals, tangents, *, axes):\n    (x,), (x_dot,) = primals, tangents\n    y = custom_reduce_sum_p.bind(x, axes=axes)\n    if type(x_dot) is ad.Zero:\n        return y, ad.Zero(jax.typeof(y).to_tangent_aval())\n    return y, jnp.sum(x_dot, axis=axes)          # existing operations: no transpose needed for grad\n\ndef reduce_sum_transpose(ct, x, *, axes):\n    if type(ct) is ad.Zero:\n        return (ad.Zero(x.aval.to_tangent_aval()),)\n    return (jnp.ones(x.aval.shape, x.aval.dtype),)   # d(sum)/dx is one everywhere\n\ndef reduce_sum_batch(batched_args, batch_dims, *, axes):\n    (x,), (bd,) = batched_args, batch_dims\n    x = jnp.moveaxis(x, bd, 0)\n    return custom_reduce_sum_p.bind(x, axes=tuple(a + 1 for a in axes)), 0\n\nad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\nad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\nbatching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
]
WRONG['ex2_answer'] += [
    W('d', 'zero-tangent branch computes the outputs with sincos_ref (jnp.sin/jnp.cos), not the primitive',
      'def sincos_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    if type(x_dot) is ad.Zero:\n        zero = ad.Zero(jax.typeof(x).to_tangent_aval())\n        return sincos_ref(x), (zero, zero)\n    s, c = sincos(x)\n    return (s, c), (c * x_dot, -s * x_dot)\n\nad.primitive_jvps[sincos_p] = sincos_jvp\n'),
]
WRONG['ex3_answer'] += [
    W('m', 'a Python loop over the examples stacked with jnp.stack: not a batched computation; an empty batch raises',
      'def matvec_batch(batched_args, batch_dims):\n    (w, x), (wd, xd) = batched_args, batch_dims\n    size = w.shape[wd] if wd is not None else x.shape[xd]\n    w = jnp.moveaxis(w, wd, 0) if wd is not None else None\n    x = jnp.moveaxis(x, xd, 0) if xd is not None else None\n    rows = [matvec(w[i] if wd is not None else batched_args[0], x[i] if xd is not None else batched_args[1])\n            for i in range(size)]\n    return jnp.stack(rows), 0\n\nbatching.primitive_batchers[matvec_p] = matvec_batch\n'),
    W('c', 'computes in float32 and casts back to the result dtype: int8 overflow saturates instead of wrapping like matvec, int32 beyond 2**24 loses digits',
      "def matvec_batch(batched_args, batch_dims):\n    (w, x), (wd, xd) = batched_args, batch_dims\n    out_dtype = jnp.result_type(w, x)\n    size = w.shape[wd] if wd is not None else x.shape[xd]\n    w = jnp.moveaxis(w, wd, 0) if wd is not None else jnp.broadcast_to(w, (size, *w.shape))\n    x = jnp.moveaxis(x, xd, 0) if xd is not None else jnp.broadcast_to(x, (size, *x.shape))\n    out = jnp.einsum('bmn,bn->bm', w.astype(jnp.float32), x.astype(jnp.float32))\n    return out.astype(out_dtype), 0\n\nbatching.primitive_batchers[matvec_p] = matvec_batch\n"),
]
WRONG['ex4_answer'] += [
    W('c', "c's cotangent as mean(ct * x) * size: equal to the sum, but nan (not 0) for an empty x",
      'def scale_transpose(ct, x, c):\n    if type(ct) is ad.Zero:\n        if ad.is_undefined_primal(x):\n            return ad.Zero(x.aval.to_tangent_aval()), None\n        return None, ad.Zero(c.aval.to_tangent_aval())\n    if ad.is_undefined_primal(x):\n        return scale(ct, c), None\n    return None, jnp.mean(ct * x) * ct.size\n\nad.primitive_transposes[scale_p] = scale_transpose\n'),
]

# Round 7: written from the text alone by a reviewer who had not read the checks; each passed every visible check (two
# of the batching rules earned full marks) until the checks took the sin output's second derivative, tried each kind of
# operand on every path of the batching rule, and took both mixed second derivatives of scale.
WRONG['ex2_answer'] += [
    W('e', 'stop_gradient only on the cos factor of the sin tangent: grad(grad(cos)) right, second derivatives of sin wrong',
      'def sincos_jvp(primals, tangents):\n'
      '    (x,), (x_dot,) = primals, tangents\n'
      '    s, c = sincos(x)\n'
      '    if type(x_dot) is ad.Zero:\n'
      '        z = ad.Zero(jax.typeof(s).to_tangent_aval())\n'
      '        return (s, c), (z, z)\n'
      '    return (s, c), (jax.lax.stop_gradient(c) * x_dot, -s * x_dot)\n'
      '\n'
      'ad.primitive_jvps[sincos_p] = sincos_jvp\n'),
]
WRONG['ex3_answer'] += [
    W('c', 'batch of matrices and one vector as (w * x).sum(-1): jnp.sum widens int8/int16 to int32 on that path only',
      'def matvec_batch(batched_args, batch_dims):\n'
      '    (w, x), (wd, xd) = batched_args, batch_dims\n'
      '    if xd is None:                                     # a batch of matrices, one vector: broadcast and sum\n'
      '        return (jnp.moveaxis(w, wd, 0) * x).sum(axis=-1), 0\n'
      '    x = jnp.moveaxis(x, xd, 0)\n'
      '    if wd is None:\n'
      '        return jnp.einsum("mn,bn->bm", w, x), 0\n'
      '    return jnp.einsum("bmn,bn->bm", jnp.moveaxis(w, wd, 0), x), 0\n'
      '\n'
      'batching.primitive_batchers[matvec_p] = matvec_batch\n'),
    W('c', 'unbatched x path computes in float32 and casts back: int8 dot products saturate instead of wrapping on that path only',
      'def matvec_batch(batched_args, batch_dims):\n'
      '    (w, x), (wd, xd) = batched_args, batch_dims\n'
      '    if xd is None:                                     # one vector: one float matmul for the whole batch\n'
      '        out_dtype = jnp.result_type(w, x)\n'
      '        w = jnp.moveaxis(w, wd, 0)\n'
      '        return (w.astype(jnp.float32) @ x.astype(jnp.float32)).astype(out_dtype), 0\n'
      '    x = jnp.moveaxis(x, xd, 0)\n'
      '    if wd is None:\n'
      '        return jnp.einsum("mn,bn->bm", w, x), 0\n'
      '    return jnp.einsum("bmn,bn->bm", jnp.moveaxis(w, wd, 0), x), 0\n'
      '\n'
      'batching.primitive_batchers[matvec_p] = matvec_batch\n'),
    W('c', 'both-batched path uses lax.dot_general with x cast to w.dtype: an int16 w with a float16 x gives int16 (and truncated x) on that path',
      'def matvec_batch(batched_args, batch_dims):\n'
      '    (w, x), (wd, xd) = batched_args, batch_dims\n'
      '    if wd is None:\n'
      '        return jnp.einsum("mn,bn->bm", w, jnp.moveaxis(x, xd, 0)), 0\n'
      '    w = jnp.moveaxis(w, wd, 0)\n'
      '    if xd is None:\n'
      '        return jnp.einsum("bmn,n->bm", w, x), 0\n'
      '    x = jnp.moveaxis(x, xd, 0).astype(w.dtype)        # dot_general: one dtype for both operands\n'
      '    return jax.lax.dot_general(w, x, (((2,), (1,)), ((0,), (0,)))), 0\n'
      '\n'
      'batching.primitive_batchers[matvec_p] = matvec_batch\n'),
    W('c', 'one-matrix path (w unbatched) computes X @ W.T in float32 and casts back: int8 results saturate instead of wrapping on that path',
      'def matvec_batch(batched_args, batch_dims):\n'
      '    (w, x), (wd, xd) = batched_args, batch_dims\n'
      '    if wd is None:                                     # one matrix for every vector: one float matmul\n'
      '        out_dtype = jnp.result_type(w, x)\n'
      '        xs = jnp.moveaxis(x, xd, 0).astype(jnp.float32)\n'
      '        return (xs @ w.astype(jnp.float32).T).astype(out_dtype), 0\n'
      '    w = jnp.moveaxis(w, wd, 0)\n'
      '    if xd is None:\n'
      '        return jnp.einsum("bmn,n->bm", w, x), 0\n'
      '    return jnp.einsum("bmn,bn->bm", w, jnp.moveaxis(x, xd, 0)), 0\n'
      '\n'
      'batching.primitive_batchers[matvec_p] = matvec_batch\n'),
]
WRONG['ex4_answer'] += [
    W('e', "x's cotangent uses stop_gradient(c) (c is 'just a known value'): first derivatives right, d/dc of a gradient in x wrong",
      'def scale_transpose(ct, x, c):\n'
      '    if ad.is_undefined_primal(x):\n'
      '        if type(ct) is ad.Zero:\n'
      '            return ad.Zero(x.aval.to_tangent_aval()), None\n'
      '        return ct * jax.lax.stop_gradient(c), None\n'
      '    if type(ct) is ad.Zero:\n'
      '        return None, ad.Zero(c.aval.to_tangent_aval())\n'
      '    return None, jnp.sum(ct * x)\n'
      '\n'
      'ad.primitive_transposes[scale_p] = scale_transpose\n'),
    W('e', "c's cotangent uses stop_gradient(x): first derivatives right, d/dx of a gradient in c wrong",
      'def scale_transpose(ct, x, c):\n'
      '    if ad.is_undefined_primal(x):\n'
      '        if type(ct) is ad.Zero:\n'
      '            return ad.Zero(x.aval.to_tangent_aval()), None\n'
      '        return scale(ct, c), None\n'
      '    if type(ct) is ad.Zero:\n'
      '        return None, ad.Zero(c.aval.to_tangent_aval())\n'
      '    return None, jnp.sum(ct * jax.lax.stop_gradient(x))\n'
      '\n'
      'ad.primitive_transposes[scale_p] = scale_transpose\n'),
]

# Round 8: written from the text alone by a second reviewer; it lost its points only to hidden checks until a visible
# check ran the batching rule under jit (a jaxpr's parameters must be hashable).
WRONG['ex1_answer'] += [
    W('e', 'batching rule binds the primitive with axes as a list (unhashable param): eager vmap works, jit(vmap) / caching may fail',
      'forget_rules(custom_reduce_sum_p)   # start from scratch, so this cell can be run again\n'
      '\n'
      'def reduce_sum_jvp(primals, tangents, *, axes):\n'
      '    (x,), (t,) = primals, tangents\n'
      '    y = custom_reduce_sum_p.bind(x, axes=axes)\n'
      '    if type(t) is ad.Zero:\n'
      '        return y, ad.Zero(jax.typeof(y).to_tangent_aval())\n'
      '    return y, custom_reduce_sum_p.bind(t, axes=axes)\n'
      '\n'
      'def reduce_sum_transpose(ct, x, *, axes):\n'
      '    if type(ct) is ad.Zero:\n'
      '        return (ad.Zero(x.aval.to_tangent_aval()),)\n'
      '    return (jnp.broadcast_to(jnp.expand_dims(ct, axes), x.aval.shape),)\n'
      '\n'
      'def reduce_sum_batch(batched_args, batch_dims, *, axes):\n'
      '    (x,), (bd,) = batched_args, batch_dims\n'
      '    x = jnp.moveaxis(x, bd, 0)\n'
      '    return custom_reduce_sum_p.bind(x, axes=[a + 1 for a in axes]), 0\n'
      '\n'
      'ad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\n'
      'ad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\n'
      'batching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
]

# Round 9: found by reviewers who read only the learner's notebook.
WRONG['ex1_answer'] += [
    W('c', "a symbolic-zero tangent or cotangent is passed straight back: the JVP's zero has x's shape, not the output's, and the transpose's zero has the output's shape, not x's",
      'forget_rules(custom_reduce_sum_p)   # start from scratch, so this cell can be run again\n\ndef reduce_sum_jvp(primals, tangents, *, axes):\n    (x,), (x_dot,) = primals, tangents\n    y = custom_reduce_sum_p.bind(x, axes=axes)\n    if type(x_dot) is ad.Zero:\n        return y, x_dot                      # zero in, zero out\n    return y, custom_reduce_sum_p.bind(x_dot, axes=axes)\n\ndef reduce_sum_transpose(ct, x, *, axes):\n    if type(ct) is ad.Zero:\n        return (ct,)                         # zero in, zero out\n    return (jnp.broadcast_to(jnp.expand_dims(ct, axes), x.aval.shape),)\n\ndef reduce_sum_batch(batched_args, batch_dims, *, axes):\n    (x,), (bd,) = batched_args, batch_dims\n    x = jnp.moveaxis(x, bd, 0)\n    return custom_reduce_sum_p.bind(x, axes=tuple(a + 1 for a in axes)), 0\n\nad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\nad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\nbatching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
]
WRONG['ex4_answer'] += [
    W('c', "a zero cotangent is handed back as the undefined operand's cotangent: right for x (ct has x's type), but c gets a zero of x's shape instead of a scalar",
      'def scale_transpose(ct, x, c):\n    if type(ct) is ad.Zero:                  # nothing flows back\n        return (ct, None) if ad.is_undefined_primal(x) else (None, ct)\n    if ad.is_undefined_primal(x):\n        return ct * c, None\n    return None, jnp.sum(ct * x)\n\nad.primitive_transposes[scale_p] = scale_transpose\n'),
]

# Round 11: found by reviewers who read only the learner's notebook.
WRONG['ex1_answer'] += [
    W('c', 'batch axis kept in place, summed axes shifted past it (a >= bd), but out_dim counts summed axes a <= bd: off by one when a summed axis has the same index as the batch axis (in_axes=1 with axes=1)',
      'forget_rules(custom_reduce_sum_p)\n\ndef reduce_sum_jvp(primals, tangents, *, axes):\n    (x,), (t,) = primals, tangents\n    y = custom_reduce_sum_p.bind(x, axes=axes)\n    if type(t) is ad.Zero:\n        return y, ad.Zero(jax.typeof(y).to_tangent_aval())\n    return y, custom_reduce_sum_p.bind(t, axes=axes)\n\ndef reduce_sum_transpose(ct, x, *, axes):\n    if type(ct) is ad.Zero:\n        return (ad.Zero(x.aval.to_tangent_aval()),)\n    return (jnp.broadcast_to(jnp.expand_dims(ct, axes), x.aval.shape),)\n\ndef reduce_sum_batch(batched_args, batch_dims, *, axes):\n    (x,), (bd,) = batched_args, batch_dims\n    new_axes = tuple(a + 1 if a >= bd else a for a in axes)\n    out = custom_reduce_sum_p.bind(x, axes=new_axes)\n    return out, bd - sum(1 for a in axes if a <= bd)\n\nad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\nad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\nbatching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
    W('m', "zero cotangent answered with (None,) instead of a symbolic zero of x's tangent type (JAX reads None as zero, but the text asks for ad.Zero)",
      'forget_rules(custom_reduce_sum_p)\n\ndef reduce_sum_jvp(primals, tangents, *, axes):\n    (x,), (t,) = primals, tangents\n    y = custom_reduce_sum_p.bind(x, axes=axes)\n    if type(t) is ad.Zero:\n        return y, ad.Zero(jax.typeof(y).to_tangent_aval())\n    return y, custom_reduce_sum_p.bind(t, axes=axes)\n\ndef reduce_sum_transpose(ct, x, *, axes):\n    if type(ct) is ad.Zero:\n        return (None,)\n    return (jnp.broadcast_to(jnp.expand_dims(ct, axes), x.aval.shape),)\n\ndef reduce_sum_batch(batched_args, batch_dims, *, axes):\n    (x,), (bd,) = batched_args, batch_dims\n    x = jnp.moveaxis(x, bd, 0)\n    return custom_reduce_sum_p.bind(x, axes=tuple(a + 1 for a in axes)), 0\n\nad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\nad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\nbatching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
]
WRONG['ex2_answer'] += [
    W('c', 'the sign flip written with a NumPy scalar np.float32(-1): not weak-typed, so bfloat16/float16 c_dot is promoted to float32',
      'def sincos_jvp(primals, tangents):\n    (x,), (t,) = primals, tangents\n    s, c = sincos(x)\n    if type(t) is ad.Zero:\n        z = ad.Zero(jax.typeof(s).to_tangent_aval())\n        return (s, c), (z, z)\n    return (s, c), (c * t, np.float32(-1) * s * t)\n\nad.primitive_jvps[sincos_p] = sincos_jvp\n'),
]
WRONG['ex4_answer'] += [
    W('m', 'zero cotangent answered with (None, None) instead of a symbolic zero for the undefined operand',
      'def scale_transpose(ct, x, c):\n    if type(ct) is ad.Zero:\n        return None, None\n    if ad.is_undefined_primal(x):\n        return scale(ct, c), None\n    return None, jnp.sum(ct * x)\n\nad.primitive_transposes[scale_p] = scale_transpose\n'),
    W('c', "c's cotangent as jnp.tensordot(ct, x) (default axes=2): right for a 2-D x only",
      'def scale_transpose(ct, x, c):\n    if ad.is_undefined_primal(x):\n        if type(ct) is ad.Zero:\n            return ad.Zero(x.aval.to_tangent_aval()), None\n        return scale(ct, c), None\n    if type(ct) is ad.Zero:\n        return None, ad.Zero(c.aval.to_tangent_aval())\n    return None, jnp.tensordot(ct, x)\n\nad.primitive_transposes[scale_p] = scale_transpose\n'),
]

# Round 12: written from the exercise texts rewritten as requirement lists, which now say that JAX runs the learner's
# own rules and that a batching rule is one computation; the second and third scored full marks before.
WRONG['ex1_answer'] += [
    W('d', 'the JVP tangent written with jnp.sum, so grad never reaches the transpose rule, which spreads the mean of ct: '
           'right only for a uniform ct',
      'forget_rules(custom_reduce_sum_p)\n\ndef reduce_sum_jvp(primals, tangents, *, axes):\n    (x,), (x_dot,) = primals, tangents\n    y = custom_reduce_sum_p.bind(x, axes=axes)\n    if type(x_dot) is ad.Zero:\n        return y, ad.Zero(jax.typeof(y).to_tangent_aval())\n    return y, jnp.sum(x_dot, axis=axes)\n\ndef reduce_sum_transpose(ct, x, *, axes):\n    if type(ct) is ad.Zero:\n        return (ad.Zero(x.aval.to_tangent_aval()),)\n    return (jnp.ones(x.aval.shape, ct.dtype) * jnp.mean(ct),)\n\ndef reduce_sum_batch(batched_args, batch_dims, *, axes):\n    (x,), (bd,) = batched_args, batch_dims\n    x = jnp.moveaxis(x, bd, 0)\n    return custom_reduce_sum_p.bind(x, axes=tuple(a + 1 for a in axes)), 0\n\nad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\nad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\nbatching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
]
WRONG['ex3_answer'] += [
    W('d', 'a loop over the examples with lax.map: the values are right, but the batch is not one computation (a scan in the jaxpr)',
      'def matvec_batch(batched_args, batch_dims):\n    (w, x), (wd, xd) = batched_args, batch_dims\n    size = w.shape[wd] if wd is not None else x.shape[xd]\n    w = jnp.moveaxis(w, wd, 0) if wd is not None else jnp.broadcast_to(w, (size, *w.shape))\n    x = jnp.moveaxis(x, xd, 0) if xd is not None else jnp.broadcast_to(x, (size, *x.shape))\n    return jax.lax.map(lambda wx: matvec(*wx), (w, x)), 0\n\nbatching.primitive_batchers[matvec_p] = matvec_batch\n'),
    W('d', 'a Python loop over the examples, with an empty batch answered apart: one matvec equation per example',
      'def matvec_batch(batched_args, batch_dims):\n    (w, x), (wd, xd) = batched_args, batch_dims\n    size = w.shape[wd] if wd is not None else x.shape[xd]\n    rows = [matvec(jnp.take(w, i, wd) if wd is not None else w, jnp.take(x, i, xd) if xd is not None else x) for i in range(size)]\n    if not rows:\n        m = w.shape[1] if wd == 0 else w.shape[0] if wd is None or wd > 0 else w.shape[0]\n        m = jnp.moveaxis(w, wd, 0).shape[1] if wd is not None else w.shape[0]\n        return jnp.zeros((0, m), jnp.result_type(w, x)), 0\n    return jnp.stack(rows), 0\n\nbatching.primitive_batchers[matvec_p] = matvec_batch\n'),
]
WRONG['ex4_answer'] += [
    W('d', 'the JVP replaced by one written with *, so JAX transposes mul itself and never runs scale_transpose, whose c branch was left out',
      'def scale_transpose(ct, x, c):\n    if ad.is_undefined_primal(x):\n        if type(ct) is ad.Zero:\n            return ad.Zero(x.aval.to_tangent_aval()), None\n        return scale(ct, c), None\n    if type(ct) is ad.Zero:\n        return None, ad.Zero(c.aval.to_tangent_aval())\n    return None, None   # c: left for later\n\nad.primitive_transposes[scale_p] = scale_transpose\nad.primitive_jvps[scale_p] = lambda primals, tangents: (scale(*primals), ad.instantiate_zeros(tangents[0]) * primals[1] + primals[0] * ad.instantiate_zeros(tangents[1]))\n'),
    W('d', 'a right scale_transpose, but the JVP replaced by one written with *: every gradient is right, and JAX never runs the rule',
      'def scale_transpose(ct, x, c):\n    if ad.is_undefined_primal(x):\n        return (ad.Zero(x.aval.to_tangent_aval()) if type(ct) is ad.Zero else scale(ct, c)), None\n    return None, (ad.Zero(c.aval.to_tangent_aval()) if type(ct) is ad.Zero else jnp.sum(ct * x))\n\nad.primitive_transposes[scale_p] = scale_transpose\n# the tangent with *, which JAX knows how to transpose\nad.primitive_jvps[scale_p] = lambda primals, tangents: (scale(*primals), ad.instantiate_zeros(tangents[0]) * primals[1] + primals[0] * ad.instantiate_zeros(tangents[1]))\n'),
]

RIGHT = {
    'ex3_answer': [
        R('the rule vmaps jnp.matmul with the batch axes it is given: jnp batches it in one computation',
          'def matvec_batch(batched_args, batch_dims):\n    (w, x), (wd, xd) = batched_args, batch_dims\n    return jax.vmap(jnp.matmul, in_axes=(wd, xd))(w, x), 0\n\nbatching.primitive_batchers[matvec_p] = matvec_batch\n'),
    ],
    'ex4_answer': [
        R("c's cotangent as jnp.vdot(ct, x) and x's as ct * c, each zero decided inline",
          'def scale_transpose(ct, x, c):\n    if ad.is_undefined_primal(x):\n        return (ad.Zero(x.aval.to_tangent_aval()) if type(ct) is ad.Zero else ct * c), None\n    return None, (ad.Zero(c.aval.to_tangent_aval()) if type(ct) is ad.Zero else jnp.vdot(ct, x))\n\nad.primitive_transposes[scale_p] = scale_transpose\n'),
        R('the rule is a functools.partial of a two-role function, registered as the given cell does',
          'def _transpose_for(ct, x, c, *, role):\n    undefined = x if role == "x" else c\n    if type(ct) is ad.Zero:\n        zero = ad.Zero(undefined.aval.to_tangent_aval())\n        return (zero, None) if role == "x" else (None, zero)\n    return (scale(ct, c), None) if role == "x" else (None, jnp.sum(ct * x))\n\ndef scale_transpose(ct, x, c):\n    return _transpose_for(ct, x, c, role="x" if ad.is_undefined_primal(x) else "c")\n\nad.primitive_transposes[scale_p] = scale_transpose\n'),
    ],
}

# Round 12: found by a reviewer who read only the learner's notebook. An int32 batch summed through float32, and
# tangents computed in float32 and cast back, earned full marks; a transpose putting back only the last axis passed
# every visible check. Each is now caught visibly (int32 values above 2**24; no convert_element_type in the jaxpr of
# jvp for float16; linear_transpose over axis 0 of a (2, 3) v). A JVP whose tangent uses jnp.sum is right by the text.
WRONG['ex1_answer'] += [
    W('c', 'batching sums in float32 and casts back: int32 values above 2**24 lose their low bits',
      'forget_rules(custom_reduce_sum_p)   # start from scratch, so this cell can be run again\n\ndef reduce_sum_jvp(primals, tangents, *, axes):\n    (x,), (x_dot,) = primals, tangents\n    y = custom_reduce_sum_p.bind(x, axes=axes)\n    if type(x_dot) is ad.Zero:\n        return y, ad.Zero(jax.typeof(y).to_tangent_aval())\n    return y, custom_reduce_sum_p.bind(x_dot, axes=axes)\n\ndef reduce_sum_transpose(ct, x, *, axes):\n    if type(ct) is ad.Zero:\n        return (ad.Zero(x.aval.to_tangent_aval()),)\n    return (jnp.broadcast_to(jnp.expand_dims(ct, axes), x.aval.shape),)\n\ndef reduce_sum_batch(batched_args, batch_dims, *, axes):\n    (x,), (bd,) = batched_args, batch_dims\n    x = jnp.moveaxis(x, bd, 0)\n    return jnp.sum(x.astype(jnp.float32), axis=tuple(a + 1 for a in axes)).astype(x.dtype), 0\n\nad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\nad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\nbatching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
    W('g', 'transpose puts back only the last axis (expand_dims(ct, -1)): right for one summed last axis',
      'forget_rules(custom_reduce_sum_p)   # start from scratch, so this cell can be run again\n\ndef reduce_sum_jvp(primals, tangents, *, axes):\n    (x,), (x_dot,) = primals, tangents\n    y = custom_reduce_sum_p.bind(x, axes=axes)\n    if type(x_dot) is ad.Zero:\n        return y, ad.Zero(jax.typeof(y).to_tangent_aval())\n    return y, custom_reduce_sum_p.bind(x_dot, axes=axes)\n\ndef reduce_sum_transpose(ct, x, *, axes):\n    if type(ct) is ad.Zero:\n        return (ad.Zero(x.aval.to_tangent_aval()),)\n    return (jnp.broadcast_to(jnp.expand_dims(ct, -1), x.aval.shape),)\n\ndef reduce_sum_batch(batched_args, batch_dims, *, axes):\n    (x,), (bd,) = batched_args, batch_dims\n    x = jnp.moveaxis(x, bd, 0)\n    return custom_reduce_sum_p.bind(x, axes=tuple(a + 1 for a in axes)), 0\n\nad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\nad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\nbatching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
]
WRONG['ex2_answer'] += [
    W('c', 'tangents computed in float32 and cast back: converts on the way for float16/bfloat16',
      'def sincos_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    s, c = sincos(x)\n    if type(x_dot) is ad.Zero:\n        z = ad.Zero(jax.typeof(x).to_tangent_aval())\n        return (s, c), (z, z)\n    t = x_dot.astype(jnp.float32)\n    return (s, c), ((c.astype(jnp.float32) * t).astype(x_dot.dtype), (-s.astype(jnp.float32) * t).astype(x_dot.dtype))\n\nad.primitive_jvps[sincos_p] = sincos_jvp\n'),
]
RIGHT.setdefault('ex1_answer', []).extend([
    R('JVP tangent with jnp.sum, not the primitive (the text asks only that jvp, linear_transpose and vmap run the rules)',
      'forget_rules(custom_reduce_sum_p)   # start from scratch, so this cell can be run again\n\ndef reduce_sum_jvp(primals, tangents, *, axes):\n    (x,), (x_dot,) = primals, tangents\n    y = custom_reduce_sum_p.bind(x, axes=axes)\n    if type(x_dot) is ad.Zero:\n        return y, ad.Zero(jax.typeof(y).to_tangent_aval())\n    return y, jnp.sum(x_dot, axis=axes)\n\ndef reduce_sum_transpose(ct, x, *, axes):\n    if type(ct) is ad.Zero:\n        return (ad.Zero(x.aval.to_tangent_aval()),)\n    return (jnp.broadcast_to(jnp.expand_dims(ct, axes), x.aval.shape),)\n\ndef reduce_sum_batch(batched_args, batch_dims, *, axes):\n    (x,), (bd,) = batched_args, batch_dims\n    x = jnp.moveaxis(x, bd, 0)\n    return custom_reduce_sum_p.bind(x, axes=tuple(a + 1 for a in axes)), 0\n\nad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\nad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\nbatching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
])


# A third fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
RIGHT.setdefault('ex2_answer', []).extend([
    R("the symbolic zeros take x's own aval: for a floating x (the only kind sincos takes) that is the outputs' tangent type",
      'def sincos_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    s, c = sincos(x)\n    if type(x_dot) is ad.Zero:\n        z = ad.Zero(jax.typeof(x))\n        return (s, c), (z, z)\n    return (s, c), (c * x_dot, -s * x_dot)\n\nad.primitive_jvps[sincos_p] = sincos_jvp\n'),
])


# A seventh fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex2_answer'] += [
    W('m', 'float16/bfloat16 tangents recompute jnp.cos/jnp.sin (a second sin and cos in the program)',
      'def sincos_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    s, c = sincos(x)\n    if type(x_dot) is ad.Zero:\n        z = ad.Zero(jax.typeof(s).to_tangent_aval())\n        return (s, c), (z, z)\n    if x.dtype != jnp.float32:\n        return (s, c), (jnp.cos(x) * x_dot, -jnp.sin(x) * x_dot)\n    return (s, c), (c * x_dot, -s * x_dot)\n\nad.primitive_jvps[sincos_p] = sincos_jvp\n'),
]
WRONG['ex2_answer'] += [
    W('m', 'tangents of a non-1-d x recompute jnp.cos/jnp.sin',
      'def sincos_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    s, c = sincos(x)\n    if type(x_dot) is ad.Zero:\n        z = ad.Zero(jax.typeof(s).to_tangent_aval())\n        return (s, c), (z, z)\n    if jnp.ndim(x) != 1:\n        return (s, c), (jnp.cos(x) * x_dot, -jnp.sin(x) * x_dot)\n    return (s, c), (c * x_dot, -s * x_dot)\n\nad.primitive_jvps[sincos_p] = sincos_jvp\n'),
]
WRONG['ex2_answer'] += [
    W('d', 'bfloat16 tangents computed in float32 and cast back (conversion on the way, for bfloat16 only)',
      'def sincos_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    s, c = sincos(x)\n    if type(x_dot) is ad.Zero:\n        z = ad.Zero(jax.typeof(s).to_tangent_aval())\n        return (s, c), (z, z)\n    if x.dtype == jnp.bfloat16:\n        f = jnp.float32\n        return (s, c), ((c.astype(f) * x_dot.astype(f)).astype(x.dtype), (-s.astype(f) * x_dot.astype(f)).astype(x.dtype))\n    return (s, c), (c * x_dot, -s * x_dot)\n\nad.primitive_jvps[sincos_p] = sincos_jvp\n'),
]
WRONG['ex3_answer'] += [
    W('d', 'lax.map over the examples when only x is batched',
      'def matvec_batch(batched_args, batch_dims):\n    (w, x), (wd, xd) = batched_args, batch_dims\n    if wd is None:\n        return jax.lax.map(lambda r: w @ r, jnp.moveaxis(x, xd, 0)), 0\n    w = jnp.moveaxis(w, wd, 0)\n    if xd is None:\n        return jnp.einsum("bmn,n->bm", w, x), 0\n    return jnp.einsum("bmn,bn->bm", w, jnp.moveaxis(x, xd, 0)), 0\n\nbatching.primitive_batchers[matvec_p] = matvec_batch\n'),
]
WRONG['ex3_answer'] += [
    W('d', 'lax.map over the examples when only w is batched',
      'def matvec_batch(batched_args, batch_dims):\n    (w, x), (wd, xd) = batched_args, batch_dims\n    if wd is None:\n        return jnp.einsum("mn,bn->bm", w, jnp.moveaxis(x, xd, 0)), 0\n    w = jnp.moveaxis(w, wd, 0)\n    if xd is None:\n        return jax.lax.map(lambda m: m @ x, w), 0\n    return jnp.einsum("bmn,bn->bm", w, jnp.moveaxis(x, xd, 0)), 0\n\nbatching.primitive_batchers[matvec_p] = matvec_batch\n'),
]
WRONG['ex3_answer'] += [
    W('d', 'Python loop over the examples when only w is batched',
      'def matvec_batch(batched_args, batch_dims):\n    (w, x), (wd, xd) = batched_args, batch_dims\n    if wd is None:\n        return jnp.einsum("mn,bn->bm", w, jnp.moveaxis(x, xd, 0)), 0\n    w = jnp.moveaxis(w, wd, 0)\n    if xd is None:\n        if w.shape[0] == 0:\n            return jnp.zeros((0, w.shape[1]), jnp.result_type(w, x)), 0\n        return jnp.stack([matvec(w[i], x) for i in range(w.shape[0])]), 0\n    return jnp.einsum("bmn,bn->bm", w, jnp.moveaxis(x, xd, 0)), 0\n\nbatching.primitive_batchers[matvec_p] = matvec_batch\n'),
]
WRONG['ex3_answer'] += [
    W('c', '.squeeze() on the only-w-batched path: a batch of one (or m == 1) loses an axis there',
      'def matvec_batch(batched_args, batch_dims):\n    (w, x), (wd, xd) = batched_args, batch_dims\n    if wd is None:\n        return jnp.einsum("mn,bn->bm", w, jnp.moveaxis(x, xd, 0)), 0\n    w = jnp.moveaxis(w, wd, 0)\n    if xd is None:\n        return jnp.matmul(w, x[:, None]).squeeze(), 0\n    return jnp.einsum("bmn,bn->bm", w, jnp.moveaxis(x, xd, 0)), 0\n\nbatching.primitive_batchers[matvec_p] = matvec_batch\n'),
]


# An eighth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex1_answer'] += [
    W('c', 'transpose: full reduction path multiplies float32 ones by the scalar ct (float32 for float16 x there only)',
      'forget_rules(custom_reduce_sum_p)   # start from scratch, so this cell can be run again\n\ndef reduce_sum_jvp(primals, tangents, *, axes):\n    (x,), (x_dot,) = primals, tangents\n    y = custom_reduce_sum_p.bind(x, axes=axes)\n    if type(x_dot) is ad.Zero:\n        return y, ad.Zero(jax.typeof(y).to_tangent_aval())\n    return y, custom_reduce_sum_p.bind(x_dot, axes=axes)\n\ndef reduce_sum_transpose(ct, x, *, axes):\n    if type(ct) is ad.Zero:\n        return (ad.Zero(x.aval.to_tangent_aval()),)\n    if len(axes) == len(x.aval.shape):      # a scalar cotangent: spread it everywhere\n        return (jnp.ones(x.aval.shape) * ct,)\n    return (jnp.broadcast_to(jnp.expand_dims(ct, axes), x.aval.shape),)\n\ndef reduce_sum_batch(batched_args, batch_dims, *, axes):\n    (x,), (bd,) = batched_args, batch_dims\n    x = jnp.moveaxis(x, bd, 0)\n    return custom_reduce_sum_p.bind(x, axes=tuple(a + 1 for a in axes)), 0\n\n\nad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\nad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\nbatching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
]
WRONG['ex1_answer'] += [
    W('c', 'transpose for a full reduction uses jnp.full with float32',
      'forget_rules(custom_reduce_sum_p)   # start from scratch, so this cell can be run again\n\ndef reduce_sum_jvp(primals, tangents, *, axes):\n    (x,), (x_dot,) = primals, tangents\n    y = custom_reduce_sum_p.bind(x, axes=axes)\n    if type(x_dot) is ad.Zero:\n        return y, ad.Zero(jax.typeof(y).to_tangent_aval())\n    return y, custom_reduce_sum_p.bind(x_dot, axes=axes)\n\ndef reduce_sum_transpose(ct, x, *, axes):\n    if type(ct) is ad.Zero:\n        return (ad.Zero(x.aval.to_tangent_aval()),)\n    if not ct.shape:\n        return (jnp.full(x.aval.shape, ct, dtype=jnp.float32),)\n    return (jnp.broadcast_to(jnp.expand_dims(ct, axes), x.aval.shape),)\n\ndef reduce_sum_batch(batched_args, batch_dims, *, axes):\n    (x,), (bd,) = batched_args, batch_dims\n    x = jnp.moveaxis(x, bd, 0)\n    return custom_reduce_sum_p.bind(x, axes=tuple(a + 1 for a in axes)), 0\n\n\nad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\nad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\nbatching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
]


# A tenth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex1_answer'] += [
    W('c', "transpose's symbolic zero typed with x.aval, not x.aval.to_tangent_aval()",
      'forget_rules(custom_reduce_sum_p)   # start from scratch, so this cell can be run again\n\ndef reduce_sum_jvp(primals, tangents, *, axes):\n    (x,), (x_dot,) = primals, tangents\n    y = custom_reduce_sum_p.bind(x, axes=axes)\n    if type(x_dot) is ad.Zero:\n        return y, ad.Zero(jax.typeof(y).to_tangent_aval())\n    return y, custom_reduce_sum_p.bind(x_dot, axes=axes)\n\ndef reduce_sum_transpose(ct, x, *, axes):\n    if type(ct) is ad.Zero:\n        return (ad.Zero(x.aval),)\n    return (jnp.broadcast_to(jnp.expand_dims(ct, axes), x.aval.shape),)\n\ndef reduce_sum_batch(batched_args, batch_dims, *, axes):\n    (x,), (bd,) = batched_args, batch_dims\n    x = jnp.moveaxis(x, bd, 0)\n    return custom_reduce_sum_p.bind(x, axes=tuple(a + 1 for a in axes)), 0\n\n\nad.primitive_jvps[custom_reduce_sum_p] = reduce_sum_jvp\nad.primitive_transposes[custom_reduce_sum_p] = reduce_sum_transpose\nbatching.primitive_batchers[custom_reduce_sum_p] = reduce_sum_batch\n'),
]
