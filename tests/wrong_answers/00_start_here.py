"""Plausible wrong answers for 00_start_here, several per answer cell (see tests/wrong_answers/__init__.py)."""

WRONG = {
    "ex1_answer": [
        "def sum_of_squares(x):\n    return jnp.sum(x) ** 2\n",
        # Sums along the first axis only: right for a vector, a vector of sums for a matrix.
        "def sum_of_squares(x):\n    return jnp.sum(jnp.square(x), axis=0)\n",
        # NumPy instead of jax.numpy: right value, but a NumPy scalar, not a jax.Array.
        "def sum_of_squares(x):\n    return np.sum(np.square(x))\n",
    ],
    "ex2_answer": [
        "def make_scaled(factor):\n    return lambda x: factor * x\n",
        # Keeps the factor in a global, so the latest make_scaled call changes every earlier
        # function the next time it is traced (here: for a new input shape).
        "_factor = None\n\n"
        "def make_scaled(factor):\n"
        "    global _factor\n"
        "    _factor = factor\n"
        "    return jax.jit(lambda x: _factor * x)\n",
    ],
    "ex3_answer": [
        # Forgets restype, so the function is treated as returning nothing (None).
        "def make_cube():\n"
        "    lib = grader.build(code='extern \"C\" double cube(double x) { return x * x * x; }', name='cube')\n"
        "    return lib.function('cube', argtypes=[ctypes.c_double])\n",
        # Declares the result a float: ctypes reads the low half of the returned double (0.0 for 8.0).
        "def make_cube():\n"
        "    lib = grader.build(code='extern \"C\" double cube(double x) { return x * x * x; }', name='cube')\n"
        "    return lib.function('cube', argtypes=[ctypes.c_double], restype=ctypes.c_float)\n",
    ],
    "quiz_answer": [
        'q1 = "a"\nq2 = "a"\nq3 = "b"\n',
        'q1 = "b"\nq2 = "a"\nq3 = "a"\n',
    ],
}
