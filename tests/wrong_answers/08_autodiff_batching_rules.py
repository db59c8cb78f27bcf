"""Wrong answers for 08_autodiff_batching_rules (see tests/wrong_answers/__init__.py)."""

from wrong_answers import W

WRONG = {
    'ex1_answer': [
        W("m", "Section 5's pitfall: right JVP and transpose, but the batching rule assumes the batch axis is axis 0 (it only shifts the summed axes), so a batch axis elsewhere sums the wrong axes.",
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
        W("m", "Section 3's pitfall: no symbolic zeros; the JVP binds the primitive on an ad.Zero tangent and the transpose calls expand_dims on an ad.Zero cotangent.",
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
        W("m", 'Right JVP and transpose, but the batching rule moves the batch axis to the front and forgets that the summed axes moved with it.',
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
        W("m", 'Leaves the batch axis where it is and shifts the summed axes past it, but reports the batch axis of the input: summing an axis in front of it moves it one place down.',
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
    ],
    'ex2_answer': [
        W("m", "Section 3's pitfall: no symbolic zeros; arithmetic on an ad.Zero tangent fails.",
          'def sincos_jvp(primals, tangents):\n'
          '    (x,), (t,) = primals, tangents\n'
          '    s, c = sincos(x)\n'
          '    return (s, c), (c * t, -s * t)\n'
          'ad.primitive_jvps[sincos_p] = sincos_jvp\n'),
        W("m", 'The derivative of cos taken as +sin.',
          'def sincos_jvp(primals, tangents):\n'
          '    (x,), (t,) = primals, tangents\n'
          '    s, c = sincos(x)\n'
          '    if type(t) is ad.Zero:\n'
          '        z = ad.Zero(jax.typeof(s).to_tangent_aval())\n'
          '        return (s, c), (z, z)\n'
          '    return (s, c), (c * t, s * t)\n'
          'ad.primitive_jvps[sincos_p] = sincos_jvp\n'),
    ],
    'ex3_answer': [
        W("m", "Moves x's batch axis to the front but never w's: right while w is batched on axis 0 only.",
          'def matvec_batch(batched_args, batch_dims):\n'
          '    (w, x), (wd, xd) = batched_args, batch_dims\n'
          '    if wd is None:\n'
          "        return jnp.einsum('mn,bn->bm', w, jnp.moveaxis(x, xd, 0)), 0\n"
          '    if xd is None:\n'
          "        return jnp.einsum('bmn,n->bm', w, x), 0\n"
          "    return jnp.einsum('bmn,bn->bm', w, jnp.moveaxis(x, xd, 0)), 0\n"
          'batching.primitive_batchers[matvec_p] = matvec_batch\n'),
        W("m", 'Handles a batch of vectors only, as if w were never batched.',
          'def matvec_batch(batched_args, batch_dims):\n'
          '    (w, x), (wd, xd) = batched_args, batch_dims\n'
          "    return jnp.einsum('mn,bn->bm', w, jnp.moveaxis(x, xd, 0)), 0\n"
          'batching.primitive_batchers[matvec_p] = matvec_batch\n'),
        W("m", "Computes with the batch axis in front but reports the input's original batch axis.",
          'def matvec_batch(batched_args, batch_dims):\n'
          '    (w, x), (wd, xd) = batched_args, batch_dims\n'
          '    if wd is None:\n'
          "        return jnp.einsum('mn,bn->bm', w, jnp.moveaxis(x, xd, 0)), xd\n"
          '    w = jnp.moveaxis(w, wd, 0)\n'
          '    if xd is None:\n'
          "        return jnp.einsum('bmn,n->bm', w, x), wd\n"
          "    return jnp.einsum('bmn,bn->bm', w, jnp.moveaxis(x, xd, 0)), 0\n"
          'batching.primitive_batchers[matvec_p] = matvec_batch\n'),
    ],
    'ex4_answer': [
        W("m", "Section 3's pitfall: no symbolic zeros; a zero cotangent goes into scale and into ct * x.",
          'def scale_transpose(ct, x, c):\n'
          '    if ad.is_undefined_primal(x):\n'
          '        return scale(ct, c), None\n'
          '    return None, jnp.sum(ct * x).astype(c.aval.dtype)\n'
          'ad.primitive_transposes[scale_p] = scale_transpose\n'),
        W("m", 'The cotangent of c sums the output cotangent but forgets to weight it by x.',
          'def scale_transpose(ct, x, c):\n'
          '    if ad.is_undefined_primal(x):\n'
          '        if type(ct) is ad.Zero:\n'
          '            return ad.Zero(x.aval.to_tangent_aval()), None\n'
          '        return scale(ct, c), None\n'
          '    if type(ct) is ad.Zero:\n'
          '        return None, ad.Zero(c.aval.to_tangent_aval())\n'
          '    return None, jnp.sum(ct)\n'
          'ad.primitive_transposes[scale_p] = scale_transpose\n'),
    ],
    'quiz_answer': [
        W("m", 'TODO',
          'q1 = "c"\n'
          'q2 = "a"\n'
          'q3 = "c"\n'
          'q4 = "a"\n'),
        W("m", 'TODO',
          'q1 = "b"\n'
          'q2 = "a"\n'
          'q3 = "a"\n'
          'q4 = "b"\n'),
    ],
}
