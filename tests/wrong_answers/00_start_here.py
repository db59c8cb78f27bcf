"""Plausible wrong answers for 00_start_here, one per answer cell (see tests/wrong_answers/__init__.py)."""

WRONG = {
    "ex1_answer": "def sum_of_squares(x):\n    return jnp.sum(x) ** 2\n",
    "ex2_answer": "def make_scaled(factor):\n    return lambda x: factor * x\n",
    # Forgets restype, so the function is treated as returning nothing (None).
    "ex3_answer": "def make_cube():\n"
                  "    lib = grader.build(code='extern \"C\" double cube(double x) { return x * x * x; }', name='cube')\n"
                  "    return lib.function('cube', argtypes=[ctypes.c_double])\n",
    "quiz_answer": 'q1 = "a"\nq2 = "a"\nq3 = "b"\n',
}
