"""Plausible wrong answers for 03_callbacks, one per answer cell (see tests/wrong_answers/__init__.py)."""

WRONG = {
    # A tap is a side effect, so io_callback looks right; but it has no derivative, and grad fails.
    "ex1_answer": "def tap(x, sink):\n"
                  "    io_callback(lambda v: sink.append(np.asarray(v)), None, x)\n"
                  "    return x\n",
    # The log lives outside the function, so a second call returns the first call's entries too.
    "ex2_answer": "shared_log = []\n\n"
                  "def run_logged(step, x0, n):\n"
                  "    def body(i, x):\n"
                  "        x = step(x)\n"
                  "        io_callback(lambda v: shared_log.append(np.asarray(v)), None, x, ordered=True)\n"
                  "        return x\n"
                  "    final = jax.jit(lambda x: jax.lax.fori_loop(0, n, body, x))(x0)\n"
                  "    jax.effects_barrier()\n"
                  "    return final, shared_log\n",
    # Right shapes and dtypes, but no vmap_method: vmap raises NotImplementedError.
    "ex3_answer": "def host_sort(x):\n"
                  "    def numpy_sort(v):\n"
                  "        v = np.asarray(v)\n"
                  "        return np.sort(v, axis=-1), np.argsort(v, axis=-1, kind='stable').astype(np.int32)\n"
                  "    shapes = (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape, jnp.int32))\n"
                  "    return jax.pure_callback(numpy_sort, shapes, x)\n",
    # Takes ordered=True under vmap to mean "one call per example, in batch order".
    "quiz_answer": 'q1 = "c"\nq2 = "a"\nq3 = "b"\nq4 = "c"\n',
}
