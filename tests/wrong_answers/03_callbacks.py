"""Wrong answers for 03_callbacks (see tests/wrong_answers/__init__.py)."""

from wrong_answers import W

WRONG = {
    'ex1_answer': [
        W("m", 'A tap is a side effect, so io_callback looks right; but it has no derivative, and grad fails.',
          'def tap(x, sink):\n'
          '    io_callback(lambda v: sink.append(np.asarray(v)), None, x)\n'
          '    return x\n'),
        W("m", 'The right callback kind, but it appends the jax.Array it receives, not a NumPy array.',
          'def tap(x, sink):\n'
          '    jax.debug.callback(lambda v: sink.append(v), x)\n'
          '    return x\n'),
    ],
    'ex2_answer': [
        W("m", "Section 6's pitfall: an unordered callback. One run on this CPU logs in order anyway, but the program has no ordered effect and no token, so nothing promises that order.",
          'def run_logged(step, x0, n):\n'
          '    log = []\n'
          '    def body(i, x):\n'
          '        x = step(x)\n'
          '        jax.debug.callback(lambda v: log.append(np.array(v)), x)\n'
          '        return x\n'
          '    final = jax.jit(lambda x: jax.lax.fori_loop(0, n, body, x))(x0)\n'
          '    jax.effects_barrier()\n'
          '    return final, log\n'),
        W("m", "The log lives outside the function, so a second call returns the first call's entries too.",
          'shared_log = []\n'
          '\n'
          'def run_logged(step, x0, n):\n'
          '    def body(i, x):\n'
          '        x = step(x)\n'
          '        io_callback(lambda v: shared_log.append(np.asarray(v)), None, x, ordered=True)\n'
          '        return x\n'
          '    final = jax.jit(lambda x: jax.lax.fori_loop(0, n, body, x))(x0)\n'
          '    jax.effects_barrier()\n'
          '    return final, shared_log\n'),
        W("m", 'Logs the state before each step instead of after it: x0, then steps 1 to n - 1.',
          'def run_logged(step, x0, n):\n'
          '    log = []\n'
          '    def body(i, x):\n'
          '        io_callback(lambda v: log.append(np.array(v)), None, x, ordered=True)\n'
          '        return step(x)\n'
          '    final = jax.jit(lambda x: jax.lax.fori_loop(0, n, body, x))(x0)\n'
          '    jax.effects_barrier()\n'
          '    return final, log\n'),
    ],
    'ex3_answer': [
        W("m", 'Right shapes and dtypes, but no vmap_method: vmap raises NotImplementedError.',
          'def host_sort(x):\n'
          '    def numpy_sort(v):\n'
          '        v = np.asarray(v)\n'
          "        return np.sort(v, axis=-1), np.argsort(v, axis=-1, kind='stable').astype(np.int32)\n"
          '    shapes = (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape, jnp.int32))\n'
          '    return jax.pure_callback(numpy_sort, shapes, x)\n'),
        W("m", "Declares the indices with x's dtype instead of int32, so pure_callback refuses the result.",
          'def host_sort(x):\n'
          '    def numpy_sort(v):\n'
          '        v = np.asarray(v)\n'
          "        return np.sort(v, axis=-1), np.argsort(v, axis=-1, kind='stable').astype(np.int32)\n"
          '    shape = jax.ShapeDtypeStruct(x.shape, x.dtype)\n'
          "    return jax.pure_callback(numpy_sort, (shape, shape), x, vmap_method='expand_dims')\n"),
    ],
    'quiz_answer': [
        W("m", 'Takes ordered=True under vmap to mean "one call per example, in batch order".',
          'q1 = "c"\n'
          'q2 = "a"\n'
          'q3 = "b"\n'
          'q4 = "c"\n'),
        W("m", 'TODO',
          'q1 = "c"\n'
          'q2 = "b"\n'
          'q3 = "a"\n'
          'q4 = "c"\n'),
    ],
}
