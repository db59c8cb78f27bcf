"""Wrong answers for 00_start_here (see tests/wrong_answers/__init__.py).

The warm-ups take float32 and float16 arrays (exercise 1), a Python float factor and a float32 array
(exercise 2), and ask for 12 significant digits (exercise 3): answers that differ only outside that
domain (integer widening, complex input, the sign of zero, subnormal doubles) are not wrong here.
"""

from wrong_answers import R, W

APPLIES = {'ex1_answer': 'bcdfgm', 'ex2_answer': 'bcdfgm', 'ex3_answer': 'bcdgm', 'quiz_answer': 'm'}

WRONG = {
    'ex1_answer': [
        W('m', 'Squares the sum instead of summing the squares: [1, 2, 3] gives 36, not 14.',
          'def sum_of_squares(x):\n    return jnp.sum(x) ** 2\n'),
        W('c', 'Sums along the first axis only: right for a vector, a vector of sums for a matrix and an error for 0-d input.',
          'def sum_of_squares(x):\n    return jnp.sum(jnp.square(x), axis=0)\n'),
        W('d', 'NumPy instead of jax.numpy: right value, but a NumPy scalar, not a jax.Array, and it fails under jit.',
          'def sum_of_squares(x):\n    return np.sum(np.square(x))\n'),
        W('b', "Casts the input to float32 first: float16 input gives a float32 sum (the text asks for x's dtype).",
          'def sum_of_squares(x):\n    x = jnp.asarray(x, dtype=jnp.float32)\n    return jnp.sum(jnp.square(x))\n'),
        W('c', 'jnp.dot(x, x): right for 1-D and 0-d input, a matrix for a square 2-D input and an error for a non-square one.',
          'def sum_of_squares(x):\n    return jnp.dot(x, x)\n'),
        W('g', "einsum 'i,i->' written for the 1-D example: raises on 0-d and 2-D input.",
          'def sum_of_squares(x):\n    return jnp.einsum("i,i->", x, x)\n'),
        W('m', 'Returns a Python float, not a JAX array: not a jax.Array, and float() fails under jit.',
          'def sum_of_squares(x):\n    return float(jnp.sum(jnp.square(x)))\n'),
        W('c', 'sums over the last axis only: right for 1-D input, a vector for 2-D input and a ValueError for 0-d input',
          'def sum_of_squares(x):\n    return jnp.sum(jnp.square(x), axis=-1)\n'),
        W('b', 'promotes to at least float32 before squaring: right for float32, but float16 input gives a float32 sum',
          'def sum_of_squares(x):\n    x = jnp.asarray(x)\n    # accumulate in at least float32 so that small or integer types do not overflow\n    x = x.astype(jnp.promote_types(x.dtype, jnp.float32))\n    return jnp.sum(jnp.square(x))\n'),
        W('d', 'squares and sums with NumPy and wraps the result with jnp.asarray: same values and dtypes eagerly, TracerArrayConversionError under jax.jit',
          'def sum_of_squares(x):\n    x = np.asarray(x)\n    return jnp.asarray(np.sum(x * x))\n'),
        W('c', 'Python builtin sum over the flattened squares: sequential accumulation in float16 rounds differently on large arrays',
          'def sum_of_squares(x):\n    return sum(jnp.ravel(x * x))\n'),
        W('c', 'mean times size, cast back: loses exactness for large int32 sums and rounds differently in float',
          'def sum_of_squares(x):\n    sq = x * x\n    return (jnp.mean(sq) * sq.size).astype(jnp.sum(sq).dtype)\n'),
        W('c', 'special-cases an empty array with a float32 zero: wrong dtype for an empty int32/complex64/float16 array',
          'def sum_of_squares(x):\n    if x.size == 0:\n        return jnp.zeros((), jnp.float32)   # nothing to sum\n    return jnp.sum(x * x)\n'),
        W('c', 'vmaps the square over the leading axis: fails on a 0-d array',
          'def sum_of_squares(x):\n    return jnp.sum(jax.vmap(lambda v: v * v)(x))\n'),
        W('c', 'running total via cumsum: the last element of an empty array does not exist (IndexError)',
          'def sum_of_squares(x):\n    return jnp.cumsum(x * x)[-1]\n'),
    ],
    'ex2_answer': [
        W('m', 'Returns a plain Python lambda: the values are right, but the function is not jitted (it has no .lower).',
          'def make_scaled(factor):\n    return lambda x: factor * x\n'),
        W('f', "Keeps the factor in a module global read at trace time: after make_scaled(2.0), make_scaled(3.0)'s function scales by 2 on a new input shape.",
          '_factor = None\n\ndef make_scaled(factor):\n    global _factor\n    _factor = factor\n    return jax.jit(lambda x: _factor * x)\n'),
        W('d', 'Jits inside but returns a plain Python lambda around it: values right, but the result is not a jax.jit function.',
          'def make_scaled(factor):\n    scaled = jax.jit(lambda x: factor * x)\n    return lambda x: scaled(x)\n'),
        W('g', 'Uses int(factor), fine for whole-number factors: make_scaled(0.5) gives all zeros.',
          'def make_scaled(factor):\n    return jax.jit(lambda x: int(factor) * x)\n'),
        W('b', 'reads the factor from a module-level slot at trace time: a function made earlier and first called after another make_scaled uses the later factor',
          '_scale = {"factor": 1}\n\ndef make_scaled(factor):\n    _scale["factor"] = factor\n    return jax.jit(lambda x: _scale["factor"] * x)\n'),
        W('c', 'promotes x with jnp.atleast_1d so 0-d input "works": a 0-d array comes back with shape (1,) instead of ()',
          'def make_scaled(factor):\n    # atleast_1d so that scalars and arrays go through the same code\n    return jax.jit(lambda x: factor * jnp.atleast_1d(x))\n'),
        W('c', 'jit of vmap over the leading axis: right for 1-D and 2-D arrays, raises on a 0-d array',
          'def make_scaled(factor):\n    return jax.jit(jax.vmap(lambda xi: factor * xi))\n'),
    ],
    'ex3_answer': [
        W('m', 'Declares the result a float: ctypes reads the low half of the returned double (0.0 for 8.0).',
          'def make_cube():\n    lib = grader.build(code=\'extern "C" double cube(double x) { return x * x * x; }\', name=\'cube\')\n    return lib.function(\'cube\', argtypes=[ctypes.c_double], restype=ctypes.c_float)\n'),
        W('b', 'Declares float instead of double in C++ and ctypes: cube(1.1) = 1.3310000896 (not 1.3310000000000004), cube(1e13) = inf.',
          'def make_cube():\n    lib = grader.build(code=\'extern "C" float cube(float x) { return x * x * x; }\', name="cube")\n    return lib.function("cube", argtypes=[ctypes.c_float], restype=ctypes.c_float)\n'),
        W('c', 'Truncates x to an int in C++: right at 2.0, 3.0 and -2.0; cube(1.5) = 1.0.',
          'def make_cube():\n    lib = grader.build(code=\'extern "C" double cube(double x) { int n = x; return n * n * n; }\', name="cube")\n    return lib.function("cube", argtypes=[ctypes.c_double], restype=ctypes.c_double)\n'),
        W('c', 'Stores the product in a float before returning it: right at 2.0 and 1.5, wrong at 0.1 and 1.1, inf at 1e13.',
          'def make_cube():\n    lib = grader.build(code=\'extern "C" double cube(double x) { float r = x * x * x; return r; }\', name="cube")\n    return lib.function("cube", argtypes=[ctypes.c_double], restype=ctypes.c_double)\n'),
        W('d', 'Returns a Python lambda instead of the compiled C++ function: right values, but not a function from lib.function.',
          'def make_cube():\n    return lambda x: x * x * x\n'),
        W('d', 'Builds the library but returns a jitted jnp function: float32 JAX arrays (cube(1.1) is off, 1e13 gives inf).',
          'def make_cube():\n    lib = grader.build(code=\'extern "C" double cube(double x) { return x * x * x; }\', name="cube")\n    lib.function("cube", argtypes=[ctypes.c_double], restype=ctypes.c_double)\n    return jax.jit(lambda x: x * x * x)\n'),
        W('g', 'Computes x * x * 2.0, which equals x**3 only at the example x = 2.0: cube(3.0) = 18.0.',
          'def make_cube():\n    lib = grader.build(code=\'extern "C" double cube(double x) { return x * x * 2.0; }\', name="cube")\n    return lib.function("cube", argtypes=[ctypes.c_double], restype=ctypes.c_double)\n'),
        W('m', "Leaves restype unset: lib.function's default restype=None declares void, so cube(2.0) returns None.",
          'def make_cube():\n    lib = grader.build(code=\'extern "C" double cube(double x) { return x * x * x; }\', name="cube")\n    return lib.function("cube", argtypes=[ctypes.c_double])\n'),
        W('m', 'Omits extern "C": the symbol is name-mangled and lib.function(\'cube\') raises AttributeError.',
          'def make_cube():\n    lib = grader.build(code=\'double cube(double x) { return x * x * x; }\', name="cube")\n    return lib.function("cube", argtypes=[ctypes.c_double], restype=ctypes.c_double)\n'),
        W('d', 'builds the C++ library but returns a Python lambda: same numbers, but the callable is not the ctypes function (no argtypes/restype)',
          'def make_cube():\n    lib = grader.build(code=\'extern "C" double cube(double x) { return x * x * x; }\', name="cube")\n    native = lib.function("cube", argtypes=[ctypes.c_double], restype=ctypes.c_double)\n    assert native(2.0) == 8.0\n    return lambda x: x * x * x       # same numbers, without the ctypes overhead\n'),
        W('d', 'builds the C++ but returns a ctypes CFUNCTYPE wrapping a Python lambda',
          'def make_cube():\n    lib = grader.build(code=\'extern "C" double cube(double x) { return x * x * x; }\', name="cube")\n    lib.function("cube", argtypes=[ctypes.c_double], restype=ctypes.c_double)\n    return ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double)(lambda x: x * x * x)\n'),
    ],
    'quiz_answer': [
        W('m', "q1=a: believes the self-check cells run as the learner left them (the instructor's copies replace them).",
          'q1 = "a"\nq2 = "a"\nq3 = "b"\n'),
        W('m', 'q3=a: confuses `grader check` (a local scoring run) with handing in.',
          'q1 = "b"\nq2 = "a"\nq3 = "a"\n'),
        W('m', 'q2=b: thinks an unanswered exercise earns partial credit (a cell scores all or nothing).',
          'q1 = "b"\nq2 = "b"\nq3 = "b"\n'),
        W('m', 'q2=c: thinks an unanswered exercise stops the notebook from being graded.',
          'q1 = "b"\nq2 = "c"\nq3 = "b"\n'),
        W('m', 'q1=c, q3=c: thinks self-checks are skipped and that grader check only validates JSON.',
          'q1 = "c"\nq2 = "a"\nq3 = "c"\n'),
    ],
}

# Right answers written another way: each must pass every visible check and earn full marks.
RIGHT = {
    'ex1_answer': [
        R("np.sum of x * x: on a JAX array NumPy calls the array's own sum, which jit can trace",
          'def sum_of_squares(x):\n    return np.sum(x * x)\n'),
    ],
    'ex2_answer': [
        R('functools.lru_cache: a cached jitted function per factor is still factor * x',
          'import functools\n\n@functools.lru_cache(maxsize=None, typed=True)   # typed: 2 and 2.0 get their own functions\ndef make_scaled(factor):\n    return jax.jit(lambda x: factor * x)\n'),
        R('jnp.float32(factor) times a float32 x is the same float32 product',
          'def make_scaled(factor):\n    # keep ints as int32 and floats as float32, as the text asks\n    f = jnp.int32(factor) if isinstance(factor, int) else jnp.float32(factor)\n    return jax.jit(lambda x: f * x)\n'),
        R('functools.partial of jnp.multiply',
          'import functools\n\ndef make_scaled(factor):\n    return jax.jit(functools.partial(jnp.multiply, factor))\n'),
    ],
    'ex3_answer': [
        R('std::pow(x, 3) agrees with x * x * x to 12 significant digits',
          'def make_cube():\n    code = \'#include <cmath>\\nextern "C" double cube(double x) { return std::pow(x, 3); }\'\n    lib = grader.build(code=code, name="cube")\n    return lib.function("cube", argtypes=[ctypes.c_double], restype=ctypes.c_double)\n'),
        R('a long double product rounded once agrees with x * x * x to 12 significant digits',
          'def make_cube():\n    # long double keeps extra bits while multiplying, then rounds once to double\n    code = \'extern "C" double cube(double x) { long double y = x; return (double)(y * y * y); }\'\n    lib = grader.build(code=code, name="cube")\n    return lib.function("cube", argtypes=[ctypes.c_double], restype=ctypes.c_double)\n'),
        R('__builtin_powi(x, 3) is two multiplications, x * (x * x), without -ffast-math',
          'def make_cube():\n    code = \'extern "C" double cube(double x) { return __builtin_powi(x, 3); }\'\n    lib = grader.build(code=code, name=\'cube_powi\')\n    return lib.function("cube", argtypes=[ctypes.c_double], restype=ctypes.c_double)\n'),
    ],
}

# Round 12: found by a reviewer who read only the learner's notebook. A factor rounded to float16 passed every check (each
# factor checked was exact in float16); make_scaled(0.1) is checked visibly.
WRONG['ex2_answer'] += [
    W('c', 'rounds factor to float16: right only for factors exact in half precision',
      'def make_scaled(factor):\n    f = jnp.float16(factor)\n    return jax.jit(lambda x: (f * x).astype(x.dtype))\n'),
]

# Round 13, a fresh blind round: a sum kept per shape and dtype passed every visible check of Exercise 1 (each check used
# a new shape or dtype); a second float32 vector of 3 is checked visibly now. A cube without extern "C", found by its
# mangled name, kept full marks; the name the function was found by is checked visibly now.
WRONG['ex1_answer'] += [
    W('f', 'memoises the result by shape and dtype: a second array of the same shape gets the first one\'s sum',
      "_memo = {}\n\ndef sum_of_squares(x):\n    key = (x.shape, str(x.dtype))\n    if key not in _memo:\n        _memo[key] = jnp.sum(x * x)\n    return _memo[key]\n"),
]
WRONG['ex3_answer'] += [
    W('m', 'no extern "C": finds the function by its mangled name _Z4cubed, not by cube as the text asks',
      "def make_cube():\n    lib = grader.build(code='double cube(double x) { return x * x * x; }', name='cube_cpp')\n    return lib.function('_Z4cubed', argtypes=[ctypes.c_double], restype=ctypes.c_double)\n"),
]


# A third fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex2_answer'] += [
    W('c', 'divides by 1/factor: fails (ZeroDivisionError) for factor 0, rounding elsewhere',
      'def make_scaled(factor):\n    return jax.jit(lambda x: x / (1.0 / factor))\n'),
]


# An eighth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
RIGHT.setdefault('ex3_answer', []).extend([
    R('loads the built library again with ctypes.CDLL: the same library, the same function and the same types as lib.function gives',
      'def make_cube():\n    lib = grader.build(code=\'extern "C" double cube(double x) { return x * x * x; }\', name="bl9_cube_cdll")\n    f = ctypes.CDLL(str(lib.path)).cube\n    f.argtypes = [ctypes.c_double]\n    f.restype = ctypes.c_double\n    return f\n'),
])


# A ninth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex2_answer'] += [
    W('c', 'rounds factor to two decimals',
      'def make_scaled(factor):\n    f = round(factor, 2)\n    return jax.jit(lambda x: f * x)\n'),
]


# A ninth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
RIGHT.setdefault('ex3_answer', []).extend([
    R('exp(3 log|x|) with the sign put back: within 12 digits, not bit-exact',
      'import ctypes\n\nSRC = \'\'\'\n#include <cmath>\nextern "C" double cube(double x) {\n    if (x == 0.0) return 0.0;\n    double m = std::exp(3.0 * std::log(std::fabs(x)));\n    return x < 0 ? -m : m;\n}\n\'\'\'\n\ndef make_cube():\n    lib = grader.build(code=SRC, name=\'bl10_cube_explog\')\n    return lib.function(\'cube\', argtypes=[ctypes.c_double], restype=ctypes.c_double)\n'),
])


# A ninth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
RIGHT.setdefault('quiz_answer', []).extend([
    R('the right letters in upper case (the quiz takes a letter in either case)',
      'q1 = "B"\nq2 = "A"\nq3 = "B"\n'),
])


# A tenth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex1_answer'] += [
    W('c', 'nansum: a NaN element is skipped, so the sum of squares of [nan, 1] comes out 1 instead of nan',
      'def sum_of_squares(x):\n    return jnp.nansum(x * x)\n'),
]
