"""Wrong answers for 04_pure_callback (see tests/wrong_answers/__init__.py)."""

from wrong_answers import W

WRONG = {
    'ex1_answer': [
        W("m", 'One host call per batch, but the host function still normalises by the norm of everything it receives, so under vmap it divides by the norm of the whole batch.',
          'def unit_rows(x):\n'
          '    def host(a):\n'
          '        a = np.asarray(a)\n'
          '        return (a / np.linalg.norm(a)).astype(a.dtype)\n'
          '    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x,\n'
          '                             vmap_method="expand_dims")\n'),
        W("m", 'Right values, but vmap_method="sequential" loops over the batch: one host call per row.',
          'def unit_rows(x):\n'
          '    def host(a):\n'
          '        a = np.asarray(a)\n'
          '        return (a / np.linalg.norm(a, axis=-1, keepdims=True)).astype(a.dtype)\n'
          '    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x,\n'
          '                             vmap_method="sequential")\n'),
    ],
    'ex2_answer': [
        W("m", 'Section 5\'s pitfall: the derivative goes through a plain pure_callback, so the first derivative works and the second raises "Pure callbacks do not support JVP".',
          'def _scipy_elementwise(fn, x):\n'
          '    return jax.pure_callback(lambda a: np.asarray(fn(np.asarray(a))).astype(a.dtype),\n'
          '                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n'
          '\n'
          '@jax.custom_jvp\n'
          'def gammaln_cb(x):\n'
          '    return _scipy_elementwise(scipy.special.gammaln, jnp.asarray(x))\n'
          '\n'
          '@gammaln_cb.defjvp\n'
          'def gammaln_cb_jvp(primals, tangents):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    return gammaln_cb(x), _scipy_elementwise(scipy.special.digamma, x) * x_dot\n'),
        W("m", 'The derivative of Γ(x) instead of the derivative of log Γ(x).',
          'def _scipy_elementwise(fn, x):\n'
          '    return jax.pure_callback(lambda a: np.asarray(fn(np.asarray(a))).astype(a.dtype),\n'
          '                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n'
          '\n'
          '@jax.custom_jvp\n'
          'def gammaln_cb(x):\n'
          '    return _scipy_elementwise(scipy.special.gammaln, jnp.asarray(x))\n'
          '\n'
          '@gammaln_cb.defjvp\n'
          'def gammaln_cb_jvp(primals, tangents):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    slope = _scipy_elementwise(lambda a: scipy.special.gamma(a) * scipy.special.digamma(a), x)\n'
          '    return gammaln_cb(x), slope * x_dot\n'),
    ],
    'ex3_answer': [
        W("m", 'Takes the number of rows from the first axis, which is right only for a 2-D array.',
          'def row_moments(x):\n'
          '    c_row_moments = kernels.function(\n'
          '        "pcb_row_moments_f32",\n'
          '        argtypes=[f32_buffer, ctypes.c_int64, ctypes.c_int64, f32_buffer, f32_buffer], restype=None)\n'
          '    def host(a):\n'
          '        a = np.ascontiguousarray(a, dtype=np.float32)\n'
          '        mean = np.zeros(a.shape[:-1], np.float32)\n'
          '        var = np.zeros(a.shape[:-1], np.float32)\n'
          '        c_row_moments(a, a.shape[0], a.shape[-1], mean, var)\n'
          '        return mean, var\n'
          '    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n'
          '    return jax.pure_callback(host, (spec, spec), x, vmap_method="expand_dims")\n'),
        W("m", 'Declares one result per entry of the first axis: right for a matrix (also inside vmap), wrong for a single 1-D row, whose mean and variance are 0-d.',
          'def row_moments(x):\n'
          '    c_row_moments = kernels.function(\n'
          '        "pcb_row_moments_f32",\n'
          '        argtypes=[f32_buffer, ctypes.c_int64, ctypes.c_int64, f32_buffer, f32_buffer], restype=None)\n'
          '    def host(a):\n'
          '        a = np.ascontiguousarray(a, dtype=np.float32)\n'
          '        n = a.shape[-1]\n'
          '        mean = np.empty(a.shape[:-1], np.float32)\n'
          '        var = np.empty(a.shape[:-1], np.float32)\n'
          '        c_row_moments(a, a.size // n, n, mean, var)\n'
          '        return mean, var\n'
          '    spec = jax.ShapeDtypeStruct(x.shape[:1], jnp.float32)\n'
          '    return jax.pure_callback(host, (spec, spec), x, vmap_method="expand_dims")\n'),
    ],
    'quiz_answer': [
        W("m", 'TODO',
          'q1 = "a"\n'
          'q2 = "a"\n'
          'q3 = "b"\n'
          'q4 = "a"\n'),
        W("m", "Right but for q3: the derivative through a plain callback is section 5's pitfall.",
          'q1 = "b"\n'
          'q2 = "c"\n'
          'q3 = "b"\n'
          'q4 = "c"\n'),
    ],
}
