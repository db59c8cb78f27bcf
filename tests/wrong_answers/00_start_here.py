"""Wrong answers for 00_start_here (see tests/wrong_answers/__init__.py)."""

from wrong_answers import W

WRONG = {
    'ex1_answer': [
        W("m", 'TODO',
          'def sum_of_squares(x):\n'
          '    return jnp.sum(x) ** 2\n'),
        W("m", 'Sums along the first axis only: right for a vector, a vector of sums for a matrix.',
          'def sum_of_squares(x):\n'
          '    return jnp.sum(jnp.square(x), axis=0)\n'),
        W("m", 'NumPy instead of jax.numpy: right value, but a NumPy scalar, not a jax.Array.',
          'def sum_of_squares(x):\n'
          '    return np.sum(np.square(x))\n'),
    ],
    'ex2_answer': [
        W("m", 'TODO',
          'def make_scaled(factor):\n'
          '    return lambda x: factor * x\n'),
        W("m", 'Keeps the factor in a global, so the latest make_scaled call changes every earlier function the next time it is traced (here: for a new input shape).',
          '_factor = None\n'
          '\n'
          'def make_scaled(factor):\n'
          '    global _factor\n'
          '    _factor = factor\n'
          '    return jax.jit(lambda x: _factor * x)\n'),
    ],
    'ex3_answer': [
        W("m", 'Forgets restype, so the function is treated as returning nothing (None).',
          'def make_cube():\n'
          '    lib = grader.build(code=\'extern "C" double cube(double x) { return x * x * x; }\', name=\'cube\')\n'
          "    return lib.function('cube', argtypes=[ctypes.c_double])\n"),
        W("m", 'Declares the result a float: ctypes reads the low half of the returned double (0.0 for 8.0).',
          'def make_cube():\n'
          '    lib = grader.build(code=\'extern "C" double cube(double x) { return x * x * x; }\', name=\'cube\')\n'
          "    return lib.function('cube', argtypes=[ctypes.c_double], restype=ctypes.c_float)\n"),
    ],
    'quiz_answer': [
        W("m", 'TODO',
          'q1 = "a"\n'
          'q2 = "a"\n'
          'q3 = "b"\n'),
        W("m", 'TODO',
          'q1 = "b"\n'
          'q2 = "a"\n'
          'q3 = "a"\n'),
    ],
}
