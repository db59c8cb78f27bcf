"""Wrong answers for 00_start_here (see tests/wrong_answers/__init__.py)."""

from wrong_answers import W

APPLIES = {'ex1_answer': 'bcdgm', 'ex2_answer': 'bcdfgm', 'ex3_answer': 'bcdgm', 'quiz_answer': 'm'}

WRONG = {
    'ex1_answer': [
        W("m", 'Squares the sum instead of summing the squares: [1, 2, 3] gives 36, not 14.',
          'def sum_of_squares(x):\n'
          '    return jnp.sum(x) ** 2\n'),
        W('c', 'Sums along the first axis only: right for a vector, a vector of sums for a matrix and an error for 0-d input.',
          'def sum_of_squares(x):\n'
          '    return jnp.sum(jnp.square(x), axis=0)\n'),
        W('d', 'NumPy instead of jax.numpy: right value, but a NumPy scalar (int64 for int input), not a jax.Array.',
          'def sum_of_squares(x):\n'
          '    return np.sum(np.square(x))\n'),
        W('b', 'Casts the input to float32 first: int32 input gives a float32 sum (the text asks for x\'s dtype), complex input loses its imaginary part.',
          'def sum_of_squares(x):\n'
          '    x = jnp.asarray(x, dtype=jnp.float32)\n'
          '    return jnp.sum(jnp.square(x))\n'),
        W('c', 'jnp.dot(x, x): right for 1-D and 0-d input, a matrix for a square 2-D input and an error for a non-square one.',
          'def sum_of_squares(x):\n'
          '    return jnp.dot(x, x)\n'),
        W('c', 'jnp.vdot conjugates its first argument: right for real input, the sum of |x|^2 for complex input ([1j, 2] gives 5, not 3).',
          'def sum_of_squares(x):\n'
          '    return jnp.vdot(x, x)\n'),
        W('g', "einsum 'i,i->' written for the 1-D example: raises on 0-d and 2-D input.",
          'def sum_of_squares(x):\n'
          '    return jnp.einsum("i,i->", x, x)\n'),
        W('m', 'Returns a Python float, not a JAX scalar: fails under jit and on complex input.',
          'def sum_of_squares(x):\n'
          '    return float(jnp.sum(jnp.square(x)))\n'),
    ],
    'ex2_answer': [
        W("m", 'Returns a plain Python lambda: the values are right, but the function is not jitted (it has no .lower).',
          'def make_scaled(factor):\n'
          '    return lambda x: factor * x\n'),
        W('f', 'Keeps the factor in a module global read at trace time: after make_scaled(2.0), make_scaled(3.0)\'s function scales by 2 on a new input shape.',
          '_factor = None\n'
          '\n'
          'def make_scaled(factor):\n'
          '    global _factor\n'
          '    _factor = factor\n'
          '    return jax.jit(lambda x: _factor * x)\n'),
        W('b', "Fixes the factor's dtype to float32: 2 times an int32 array gives float32 (factor * x stays int32).",
          'def make_scaled(factor):\n'
          '    return jax.jit(lambda x: jnp.float32(factor) * x)\n'),
        W('c', "Casts the product back to x's dtype: 0.5 times int32 [0, 1, 2] gives int32 [0, 0, 1] (factor * x is float32 [0, .5, 1]).",
          'def make_scaled(factor):\n'
          '    return jax.jit(lambda x: (factor * x).astype(x.dtype))\n'),
        W('d', 'Jits inside but returns a plain Python lambda around it: values right, but the result is not a jax.jit function.',
          'def make_scaled(factor):\n'
          '    scaled = jax.jit(lambda x: factor * x)\n'
          '    return lambda x: scaled(x)\n'),
        W('f', "Caches the jitted function in a dict keyed by factor: make_scaled(2.0) returns make_scaled(2)'s function, which keeps int input int32.",
          '_made = {}\n'
          '\n'
          'def make_scaled(factor):\n'
          '    if factor not in _made:\n'
          '        _made[factor] = jax.jit(lambda x: factor * x)\n'
          '    return _made[factor]\n'),
        W('g', 'Uses int(factor), fine for whole-number factors: make_scaled(0.5) gives all zeros.',
          'def make_scaled(factor):\n'
          '    return jax.jit(lambda x: int(factor) * x)\n'),
    ],
    'ex3_answer': [
        W("m", 'Declares the result a float: ctypes reads the low half of the returned double (0.0 for 8.0).',
          'def make_cube():\n'
          '    lib = grader.build(code=\'extern "C" double cube(double x) { return x * x * x; }\', name=\'cube\')\n'
          "    return lib.function('cube', argtypes=[ctypes.c_double], restype=ctypes.c_float)\n"),
        W('b', 'Declares float instead of double in C++ and ctypes: cube(1.1) = 1.3310000896 (not 1.3310000000000004), cube(1e13) = inf.',
          'def make_cube():\n'
          '    lib = grader.build(code=\'extern "C" float cube(float x) { return x * x * x; }\', name="cube")\n'
          '    return lib.function("cube", argtypes=[ctypes.c_float], restype=ctypes.c_float)\n'),
        W('c', 'Truncates x to an int in C++: right at 2.0, 3.0 and -2.0; cube(1.5) = 1.0.',
          'def make_cube():\n'
          '    lib = grader.build(code=\'extern "C" double cube(double x) { int n = x; return n * n * n; }\', name="cube")\n'
          '    return lib.function("cube", argtypes=[ctypes.c_double], restype=ctypes.c_double)\n'),
        W('c', 'Stores the product in a float before returning it: right at 2.0 and 1.5, wrong at 0.1 and 1.1, inf at 1e13.',
          'def make_cube():\n'
          '    lib = grader.build(code=\'extern "C" double cube(double x) { float r = x * x * x; return r; }\', name="cube")\n'
          '    return lib.function("cube", argtypes=[ctypes.c_double], restype=ctypes.c_double)\n'),
        W('d', 'Returns a Python lambda instead of the compiled C++ function: right values, but not a function from lib.function.',
          'def make_cube():\n'
          '    return lambda x: x * x * x\n'),
        W('d', 'Builds the library but returns a jitted jnp function: float32 JAX arrays (cube(1.1) is off, 1e13 gives inf).',
          'def make_cube():\n'
          '    lib = grader.build(code=\'extern "C" double cube(double x) { return x * x * x; }\', name="cube")\n'
          '    lib.function("cube", argtypes=[ctypes.c_double], restype=ctypes.c_double)\n'
          '    return jax.jit(lambda x: x * x * x)\n'),
        W('g', 'Computes x * x * 2.0, which equals x**3 only at the example x = 2.0: cube(3.0) = 18.0.',
          'def make_cube():\n'
          '    lib = grader.build(code=\'extern "C" double cube(double x) { return x * x * 2.0; }\', name="cube")\n'
          '    return lib.function("cube", argtypes=[ctypes.c_double], restype=ctypes.c_double)\n'),
        W('m', "Leaves restype unset: lib.function's default restype=None declares void, so cube(2.0) returns None.",
          'def make_cube():\n'
          '    lib = grader.build(code=\'extern "C" double cube(double x) { return x * x * x; }\', name="cube")\n'
          '    return lib.function("cube", argtypes=[ctypes.c_double])\n'),
        W('m', 'Omits extern "C": the symbol is name-mangled and lib.function(\'cube\') raises AttributeError.',
          'def make_cube():\n'
          '    lib = grader.build(code=\'double cube(double x) { return x * x * x; }\', name="cube")\n'
          '    return lib.function("cube", argtypes=[ctypes.c_double], restype=ctypes.c_double)\n'),
    ],
    'quiz_answer': [
        W('m', "q1=a: believes the self-check cells run as the learner left them (the instructor's copies replace them).",
          'q1 = "a"\n'
          'q2 = "a"\n'
          'q3 = "b"\n'),
        W('m', 'q3=a: confuses `grader check` (a local scoring run) with handing in.',
          'q1 = "b"\n'
          'q2 = "a"\n'
          'q3 = "a"\n'),
        W('m', 'q2=b: thinks an unanswered exercise earns partial credit (a cell scores all or nothing).',
          'q1 = "b"\n'
          'q2 = "b"\n'
          'q3 = "b"\n'),
        W('m', 'q2=c: thinks an unanswered exercise stops the notebook from being graded.',
          'q1 = "b"\n'
          'q2 = "c"\n'
          'q3 = "b"\n'),
        W('m', 'q1=c, q3=c: thinks self-checks are skipped and that grader check only validates JSON.',
          'q1 = "c"\n'
          'q2 = "a"\n'
          'q3 = "c"\n'),
    ],
}
