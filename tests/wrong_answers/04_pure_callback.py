"""Plausible wrong answers for 04_pure_callback, one per answer cell (see tests/wrong_answers/__init__.py)."""

WRONG = {
    # One host call per batch, but the host function still normalises by the norm of everything
    # it receives, so under vmap it divides by the norm of the whole batch.
    "ex1_answer": "def unit_rows(x):\n"
                  "    def host(a):\n"
                  "        a = np.asarray(a)\n"
                  "        return (a / np.linalg.norm(a)).astype(a.dtype)\n"
                  "    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x,\n"
                  "                             vmap_method=\"expand_dims\")\n",
    # The derivative of Γ(x) instead of the derivative of log Γ(x).
    "ex2_answer": "def _scipy_elementwise(fn, x):\n"
                  "    return jax.pure_callback(lambda a: np.asarray(fn(np.asarray(a))).astype(a.dtype),\n"
                  "                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method=\"expand_dims\")\n"
                  "\n"
                  "@jax.custom_jvp\n"
                  "def gammaln_cb(x):\n"
                  "    return _scipy_elementwise(scipy.special.gammaln, jnp.asarray(x))\n"
                  "\n"
                  "@gammaln_cb.defjvp\n"
                  "def gammaln_cb_jvp(primals, tangents):\n"
                  "    (x,), (x_dot,) = primals, tangents\n"
                  "    slope = _scipy_elementwise(lambda a: scipy.special.gamma(a) * scipy.special.digamma(a), x)\n"
                  "    return gammaln_cb(x), slope * x_dot\n",
    # Takes the number of rows from the first axis, which is right only for a 2-D array.
    "ex3_answer": "def row_moments(x):\n"
                  "    c_row_moments = kernels.function(\n"
                  "        \"pcb_row_moments_f32\",\n"
                  "        argtypes=[f32_buffer, ctypes.c_int64, ctypes.c_int64, f32_buffer, f32_buffer], restype=None)\n"
                  "    def host(a):\n"
                  "        a = np.ascontiguousarray(a, dtype=np.float32)\n"
                  "        mean = np.zeros(a.shape[:-1], np.float32)\n"
                  "        var = np.zeros(a.shape[:-1], np.float32)\n"
                  "        c_row_moments(a, a.shape[0], a.shape[-1], mean, var)\n"
                  "        return mean, var\n"
                  "    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n"
                  "    return jax.pure_callback(host, (spec, spec), x, vmap_method=\"expand_dims\")\n",
    "quiz_answer": 'q1 = "a"\nq2 = "a"\nq3 = "b"\nq4 = "a"\n',
}
