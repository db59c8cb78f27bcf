"""Wrong answers for 00_start_here (see tests/wrong_answers/__init__.py)."""

from wrong_answers import R, W

APPLIES = {'ex1_answer': 'bcdgm', 'ex2_answer': 'bcdfgm', 'ex3_answer': 'bcdgm', 'quiz_answer': 'm'}

WRONG = {
    'ex1_answer': [
        W('m', 'Squares the sum instead of summing the squares: [1, 2, 3] gives 36, not 14.',
          'def sum_of_squares(x):\n'
          '    return jnp.sum(x) ** 2\n'),
        W('c', 'Sums along the first axis only: right for a vector, a vector of sums for a matrix and an error for 0-d input.',
          'def sum_of_squares(x):\n'
          '    return jnp.sum(jnp.square(x), axis=0)\n'),
        W('d', 'NumPy instead of jax.numpy: right value, but a NumPy scalar (int64 for int input), not a jax.Array.',
          'def sum_of_squares(x):\n'
          '    return np.sum(np.square(x))\n'),
        W('b', "Casts the input to float32 first: int32 input gives a float32 sum (the text asks for x's dtype), complex input loses its imaginary part.",
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
        W('c', 'jnp.vdot conjugates its first argument: right for real input, but 1j squares to +1 and [1+1j, 2-1j] gives 7 instead of 3-2j',
          'def sum_of_squares(x):\n'
          '    x = jnp.ravel(x)\n'
          '    return jnp.vdot(x, x)\n'),
        W('c', 'sums over the last axis only: right for 1-D input, a vector for 2-D input and a ValueError for 0-d input',
          'def sum_of_squares(x):\n'
          '    return jnp.sum(jnp.square(x), axis=-1)\n'),
        W('b', 'promotes to at least float32 before squaring: right for float32/complex64, but int32 input gives float32 and float16/bfloat16 give float32',
          'def sum_of_squares(x):\n'
          '    x = jnp.asarray(x)\n'
          '    # accumulate in at least float32 so that small or integer types do not overflow\n'
          '    x = x.astype(jnp.promote_types(x.dtype, jnp.float32))\n'
          '    return jnp.sum(jnp.square(x))\n'),
        W('d', 'squares and sums with NumPy and wraps the result with jnp.asarray: same values and dtypes eagerly, TracerArrayConversionError under jax.jit',
          'def sum_of_squares(x):\n'
          '    x = np.asarray(x)\n'
          '    return jnp.asarray(np.sum(x * x))\n'),
        W('g', "real part only (re^2 - im^2), tuned to the text's 1j example: 1j -> -1 is right, but (1+1j)^2 loses its imaginary part 2j",
          'def sum_of_squares(x):\n'
          '    # (a + bi)^2 has real part a^2 - b^2: so 1j squares to -1\n'
          '    re, im = jnp.real(x), jnp.imag(x)\n'
          '    return jnp.sum(re * re - im * im).astype(jnp.result_type(x))\n'),
    ],
    'ex2_answer': [
        W('m', 'Returns a plain Python lambda: the values are right, but the function is not jitted (it has no .lower).',
          'def make_scaled(factor):\n'
          '    return lambda x: factor * x\n'),
        W('f', "Keeps the factor in a module global read at trace time: after make_scaled(2.0), make_scaled(3.0)'s function scales by 2 on a new input shape.",
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
        W('b', 'reads the factor from a module-level slot at trace time: a function made earlier and first called after another make_scaled uses the later factor',
          '_scale = {"factor": 1}\n'
          '\n'
          'def make_scaled(factor):\n'
          '    _scale["factor"] = factor\n'
          '    return jax.jit(lambda x: _scale["factor"] * x)\n'),
        W('c', 'turns the factor into a strongly typed jnp.int32/jnp.float32: int8 input becomes int32 and float16/bfloat16 input becomes float32',
          'def make_scaled(factor):\n'
          '    # keep ints as int32 and floats as float32, as the text asks\n'
          '    f = jnp.int32(factor) if isinstance(factor, int) else jnp.float32(factor)\n'
          '    return jax.jit(lambda x: f * x)\n'),
        W('f', 'caches one jitted function per factor in a dict, where 2 == 2.0: make_scaled(2.0) after make_scaled(2) keeps int32 input int32',
          '_compiled = {}\n'
          '\n'
          'def make_scaled(factor):\n'
          '    # one compiled function per factor, reused on later calls\n'
          '    if factor not in _compiled:\n'
          '        _compiled[factor] = jax.jit(lambda x: factor * x)\n'
          '    return _compiled[factor]\n'),
        W('g', 'special-cases factor == 1 as the identity: make_scaled(1.0) keeps int32 input int32 instead of float32',
          'def make_scaled(factor):\n'
          '    if factor == 1:\n'
          '        return jax.jit(lambda x: x)          # nothing to multiply\n'
          '    return jax.jit(lambda x: factor * x)\n'),
    ],
    'ex3_answer': [
        W('m', 'Declares the result a float: ctypes reads the low half of the returned double (0.0 for 8.0).',
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
        W('b', "computes in long double and rounds once: right at 2.0 and 1.1, but 0.3 gives 0.026999999999999996 instead of Python's 0.027",
          'def make_cube():\n'
          '    # long double keeps extra bits while multiplying, then rounds once to double\n'
          '    code = \'extern "C" double cube(double x) { long double y = x; return (double)(y * y * y); }\'\n'
          '    lib = grader.build(code=code, name="cube")\n'
          '    return lib.function("cube", argtypes=[ctypes.c_double], restype=ctypes.c_double)\n'),
        W('c', 'std::pow(x, 3) is rounded once, x*x*x twice: same at 2.0, 1.1 and -3.0, different at 0.3 and about a quarter of random inputs',
          'def make_cube():\n'
          '    code = \'#include <cmath>\\nextern "C" double cube(double x) { return std::pow(x, 3); }\'\n'
          '    lib = grader.build(code=code, name="cube")\n'
          '    return lib.function("cube", argtypes=[ctypes.c_double], restype=ctypes.c_double)\n'),
        W('d', 'builds the C++ library but returns a Python lambda: same numbers, but the callable is not the ctypes function (no argtypes/restype)',
          'def make_cube():\n'
          '    lib = grader.build(code=\'extern "C" double cube(double x) { return x * x * x; }\', name="cube")\n'
          '    native = lib.function("cube", argtypes=[ctypes.c_double], restype=ctypes.c_double)\n'
          '    assert native(2.0) == 8.0\n'
          '    return lambda x: x * x * x       # same numbers, without the ctypes overhead\n'),
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

# Round 3: written from the chapter's text alone (its test cells removed), before its checks were read;
# each passed every visible check, and some scored full marks, until the checks were made to catch them.
WRONG['ex1_answer'] += [
    W('d', 'uses np.sum instead of jax.numpy (works via tracer .sum dispatch)',
      'def sum_of_squares(x):\n    return np.sum(x * x)\n'),
    W('c', 'dtype=x.dtype in the sum: int8/uint8/bool stay narrow while jnp.sum upcasts them to int32/uint32',
      'def sum_of_squares(x):\n    return jnp.sum(x * x, dtype=x.dtype)\n'),
    W('c', 'Python builtin sum over the flattened squares: sequential accumulation in float16 rounds differently on large arrays',
      'def sum_of_squares(x):\n    return sum(jnp.ravel(x * x))\n'),
    W('c', 'mean times size, cast back: loses exactness for large int32 sums and rounds differently in float',
      'def sum_of_squares(x):\n    sq = x * x\n    return (jnp.mean(sq) * sq.size).astype(jnp.sum(sq).dtype)\n'),
]
WRONG['ex2_answer'] += [
    W('m', 'special case for factor 0 returns zeros of the right dtype: 0*inf and 0*nan give 0 instead of nan, -0.0 lost',
      'def make_scaled(factor):\n    if factor == 0:\n        return jax.jit(lambda x: jnp.zeros_like(x, dtype=jnp.result_type(factor, x)))\n    return jax.jit(lambda x: factor * x)\n'),
]
WRONG['ex3_answer'] += [
    W('c', 'early return 0.0 for x == 0: cube(-0.0) gives +0.0 instead of -0.0',
      'def make_cube():\n    lib = grader.build(code=\'extern "C" double cube(double x) { if (x == 0.0) return 0.0; return x * x * x; }\', name="cube")\n    return lib.function("cube", argtypes=[ctypes.c_double], restype=ctypes.c_double)\n'),
    W('d', 'builds the C++ but returns a ctypes CFUNCTYPE wrapping a Python lambda',
      'def make_cube():\n    lib = grader.build(code=\'extern "C" double cube(double x) { return x * x * x; }\', name="cube")\n    lib.function("cube", argtypes=[ctypes.c_double], restype=ctypes.c_double)\n    return ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double)(lambda x: x * x * x)\n'),
    W('c', 'defensive NaN guard returns 0.0: cube(nan) is 0.0 instead of nan',
      'def make_cube():\n    lib = grader.build(code=\'extern "C" double cube(double x) { if (x != x) return 0.0; return x * x * x; }\', name="cube")\n    return lib.function("cube", argtypes=[ctypes.c_double], restype=ctypes.c_double)\n'),
]

# Round 4: written from the text alone, with the mistakes above listed as already caught, before the checks were read;
# each passed every visible check, and some scored full marks, until the checks were made to catch them.
WRONG['ex1_answer'] += [
    W('c', 'special-cases 0-d input as x * x: a 0-d int8/uint8/bool array stays int8/uint8/bool, where jnp.sum(x * x) gives int32/uint32',
      'def sum_of_squares(x):\n    if x.ndim == 0:\n        return x * x   # a 0-d array has nothing to sum\n    return jnp.sum(x * x)\n'),
    W('c', 'squares float16/bfloat16 in float32 and casts back: each square is not rounded to float16 first, so about one input in five differs from jnp.sum(x * x) in the last bit (float16 [0.35, 0.82, 0.33] gives 0.904, not 0.9033)',
      'def sum_of_squares(x):\n    if x.dtype in (jnp.float16, jnp.bfloat16):\n        # square in float32 for accuracy, then give back the dtype jnp.sum would\n        y = x.astype(jnp.float32)\n        return jnp.sum(y * y).astype(x.dtype)\n    return jnp.sum(x * x)\n'),
    W('c', 'nansum instead of sum: a NaN element is silently dropped (finite result) instead of giving nan',
      'def sum_of_squares(x):\n    return jnp.nansum(x * x)\n'),
]
WRONG['ex2_answer'] += [
    W('b', 'lru_cache(typed=True) keeps int and float apart but 0.0 == -0.0: make_scaled(-0.0) after make_scaled(0.0) returns the +0.0 function (-0.0 * [1., 2.] gives +0.0)',
      'import functools\n\n@functools.lru_cache(maxsize=None, typed=True)   # typed: 2 and 2.0 get their own functions\ndef make_scaled(factor):\n    return jax.jit(lambda x: factor * x)\n'),
    W('c', 'promotes x with jnp.atleast_1d so 0-d input "works": a 0-d array comes back with shape (1,) instead of ()',
      'def make_scaled(factor):\n    # atleast_1d so that scalars and arrays go through the same code\n    return jax.jit(lambda x: factor * jnp.atleast_1d(x))\n'),
    W('c', 'jit of vmap over the leading axis: right for 1-D and 2-D arrays, raises on a 0-d array',
      'def make_scaled(factor):\n    return jax.jit(jax.vmap(lambda xi: factor * xi))\n'),
    W('c', 'strength-reduces the int factor 2 to x + x: same for int/float arrays, but a bool array stays bool (logical OR) where 2 * x is int32',
      'def make_scaled(factor):\n    if type(factor) is int and factor == 2:\n        return jax.jit(lambda x: x + x)   # an add instead of a multiply, same dtype rules for ints\n    return jax.jit(lambda x: factor * x)\n'),
]
WRONG['ex3_answer'] += [
    W('c', "exact __int128 path for whole-number x: rounds x^3 once, so integral x between ~1e8 and 5e12 (x*x not exact) differs from Python's two roundings about a quarter of the time; 2.0, 1.1, 0.3 and 1e13 all match",
      'def make_cube():\n    code = r"""\n    #include <cmath>\n    extern "C" double cube(double x) {\n        // whole numbers: cube exactly in 128-bit integers, then round once\n        if (std::fabs(x) >= 2.0 && std::fabs(x) < 5e12 && x == std::trunc(x)) {\n            __int128 n = (__int128)x;\n            return (double)(n * n * n);\n        }\n        return x * x * x;\n    }\n    """\n    lib = grader.build(code=code, name="cube_exact")\n    return lib.function("cube", argtypes=[ctypes.c_double], restype=ctypes.c_double)\n'),
    W('b', 'memoises the last call in static globals with ==: on a call at -0.0 right after one at 0.0 it returns the cached +0.0 (and the two-store memo is not thread-safe)',
      'def make_cube():\n    code = r"""\n    #include <cmath>\n    static double last_x = NAN, last_y = NAN;\n    extern "C" double cube(double x) {\n        if (x == last_x) return last_y;   // repeated argument: reuse the last result\n        double y = x * x * x;\n        last_x = x;\n        last_y = y;\n        return y;\n    }\n    """\n    lib = grader.build(code=code, name="cube_memo")\n    return lib.function("cube", argtypes=[ctypes.c_double], restype=ctypes.c_double)\n'),
    W('c', 'flushes tiny inputs to a signed zero to avoid subnormals: x between ~1.7e-108 and 1e-100 has a nonzero subnormal cube (1e-105 -> 1e-315) but gives 0.0',
      'def make_cube():\n    code = r"""\n    #include <cmath>\n    extern "C" double cube(double x) {\n        // the cube of anything this small underflows anyway: skip the slow subnormals\n        if (std::fabs(x) < 1e-100) return std::copysign(0.0, x);\n        return x * x * x;\n    }\n    """\n    lib = grader.build(code=code, name="cube_flush")\n    return lib.function("cube", argtypes=[ctypes.c_double], restype=ctypes.c_double)\n'),
]

# Round 7: written from the text alone by a reviewer who had not read the checks. A library built with -ffast-math makes
# the whole process flush subnormal results to zero, Python's own products included, so a check that compared with a
# product computed in the same kernel passed; the checks now compare bits. Each leaves its kernel changed for good.
WRONG['ex3_answer'] += [
    W('c', 'built with -O3 -ffast-math for speed: GCC links crtfastmath into the library, which turns on flush-to-zero for '
           'the whole process, so the cube of 1e-105 is 0',
      'def make_cube():\n'
      '    code = \'extern "C" double cube(double x) { return x * x * x; }\'\n'
      '    lib = grader.build(code=code, name="cube", flags=("-O3", "-ffast-math"))   # fast: the cube is called often\n'
      '    return lib.function("cube", argtypes=[ctypes.c_double], restype=ctypes.c_double)\n',
      restart=True),
    W('c', 'built with -Ofast, which implies -ffast-math: the process flushes subnormal results to zero',
      'def make_cube():\n'
      '    lib = grader.build(code=\'extern "C" double cube(double x) { return x * x * x; }\', name="cube", flags=("-Ofast",))\n'
      '    return lib.function("cube", argtypes=[ctypes.c_double], restype=ctypes.c_double)\n',
      restart=True),
]

# Round 9: found by reviewers who read only the learner's notebook.
WRONG['ex1_answer'] += [
    W('c', 'flattens and dots x with itself: jnp.dot does not promote, so int8/uint8/int16 stay narrow (and wrap) and bool gives bool, where jnp.sum(x * x) gives int32/uint32',
      'def sum_of_squares(x):\n    flat = jnp.ravel(x)          # works for 0-d and any shape\n    return flat @ flat\n'),
    W('c', 'special-cases an empty array with a float32 zero: wrong dtype for an empty int32/complex64/float16 array',
      'def sum_of_squares(x):\n    if x.size == 0:\n        return jnp.zeros((), jnp.float32)   # nothing to sum\n    return jnp.sum(x * x)\n'),
    W('c', 'vmaps the square over the leading axis: fails on a 0-d array',
      'def sum_of_squares(x):\n    return jnp.sum(jax.vmap(lambda v: v * v)(x))\n'),
    W('c', 'array methods only: on a NumPy input (x * x).sum() is a NumPy scalar, not a JAX scalar',
      'def sum_of_squares(x):\n    return (x * x).sum()\n'),
    W('c', 'running total via cumsum: the last element of an empty array does not exist (IndexError)',
      'def sum_of_squares(x):\n    return jnp.cumsum(x * x)[-1]\n'),
    W('c', 'accumulates real input in float32 to avoid integer overflow and casts back: int32 sums above 2**24 are rounded',
      'def sum_of_squares(x):\n    sq = x * x\n    if jnp.iscomplexobj(sq):\n        return jnp.sum(sq)\n    # accumulate in float32 so that big integer sums do not overflow\n    return jnp.sum(sq.astype(jnp.float32)).astype(jnp.sum(sq).dtype)\n'),
]
WRONG['ex2_answer'] += [
    W('c', "multiplies by jnp.full_like(x, factor): factor takes x's dtype, so 2.0 keeps int32 input int32 and 0.5 truncates to 0 on ints",
      'def make_scaled(factor):\n    return jax.jit(lambda x: jnp.full_like(x, factor) * x)\n'),
    W('c', "casts to the dtype NumPy's NEP 50 rules give (a Python number adapts to the array): right for int8/int32/float16/bool, but NumPy promotes bfloat16 with 0.5 to float64, so a bfloat16 array comes back float32",
      'def make_scaled(factor):\n    def scaled(x):\n        # the dtype NumPy 2 gives an array times a Python number (NEP 50: the number adapts), in 32 bits\n        dtype = jax.dtypes.canonicalize_dtype(np.result_type(x.dtype, factor))\n        return (factor * x).astype(dtype)\n    return jax.jit(scaled)\n'),
]

# Round 9: right answers written another way.
RIGHT = {}
RIGHT.setdefault('ex2_answer', []).extend([
    R('functools.partial of jnp.multiply',
      'import functools\n\ndef make_scaled(factor):\n    return jax.jit(functools.partial(jnp.multiply, factor))\n'),
])
RIGHT.setdefault('ex3_answer', []).extend([
    R('__builtin_powi(x, 3) is two multiplications, x * (x * x), without -ffast-math',
      'def make_cube():\n    code = \'extern "C" double cube(double x) { return __builtin_powi(x, 3); }\'\n    lib = grader.build(code=code, name=\'cube_powi\')\n    return lib.function("cube", argtypes=[ctypes.c_double], restype=ctypes.c_double)\n'),
])
