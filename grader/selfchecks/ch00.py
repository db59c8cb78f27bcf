"""Self-checks of chapter 00, "Start here": what each exercise's self-check cell runs (see `grader.selfchecks`)."""

from __future__ import annotations

import ctypes
import os

import jax
import jax.numpy as jnp
import numpy as np

from grader.notebook import checks


def exercise1(sum_of_squares) -> None:
    """sum_of_squares on a vector, a matrix, 0-d and empty arrays, float16, and under jit."""
    x = jnp.array([1.0, 2.0, 3.0])
    got = checks.runs(lambda: sum_of_squares(x), what="sum_of_squares([1, 2, 3])",
                      hint="square each element and sum, with jnp functions")
    checks.close(got, np.float32(14.0), what="sum_of_squares([1, 2, 3])",
                 hint="square each element, then sum them (not the square of the sum)")
    checks.equal(type(got), type(jnp.zeros(())), what="the type sum_of_squares([1, 2, 3]) returns (a jax.Array)",
                 hint="use jnp functions: float() gives a Python number")
    checks.close(checks.runs(lambda: sum_of_squares(jnp.array([0.5, 0.0, -1.0])), what="sum_of_squares([0.5, 0, -1])"),
                 np.float32(1.25), what="sum_of_squares([0.5, 0, -1]), a second float32 vector of 3 after [1, 2, 3]",
                 hint="compute from x on every call: keep no result from an earlier call, even for the same shape")
    checks.close(checks.runs(lambda: sum_of_squares(jnp.array([1.0, jnp.nan, 2.0])), what="sum_of_squares([1, nan, 2])"),
                 np.float32(np.nan), what="sum_of_squares([1, nan, 2])",
                 hint="a NaN among the elements makes the sum NaN: sum every square (jnp.sum, not jnp.nansum)")
    m = jnp.array([[1.0, -1.0], [2.0, 0.5]])
    checks.close(checks.runs(lambda: sum_of_squares(m), what="sum_of_squares([[1, -1], [2, 0.5]])"), np.float32(6.25),
                 what="sum_of_squares([[1, -1], [2, 0.5]])", hint="sum over all the elements, not along one axis")
    checks.close(checks.runs(lambda: sum_of_squares(jnp.float32(-3.0)), what="sum_of_squares of a 0-d array"),
                 np.float32(9.0), what="sum_of_squares(jnp.float32(-3.0)), a 0-d array", hint="a 0-d array has one element")
    empty = jnp.zeros((0, 3), jnp.float16)
    checks.close(checks.runs(lambda: sum_of_squares(empty), what="sum_of_squares of an empty (0, 3) float16 array"),
                 np.float16(0.0), what="sum_of_squares of an empty (0, 3) float16 array",
                 hint="the sum of no elements is 0, in x's dtype: no special case for an empty x")
    h = jnp.array([0.5, -1.5, 2.0], jnp.float16)
    checks.close(checks.runs(lambda: sum_of_squares(h), what="sum_of_squares(float16 [0.5, -1.5, 2])"), np.float16(6.5),
                 what="sum_of_squares(float16 [0.5, -1.5, 2])", hint="keep x's dtype: do not convert x to float32 first")
    checks.close(checks.runs(lambda: sum_of_squares(jnp.float16(1.5)), what="sum_of_squares of a 0-d float16 array"),
                 np.float16(2.25), what="sum_of_squares(jnp.float16(1.5))", hint="keep x's dtype, also for a 0-d x")
    jitted = checks.runs(lambda: jax.jit(sum_of_squares)(m), what="jax.jit(sum_of_squares)([[1, -1], [2, 0.5]])",
                         hint="use jnp only: np.asarray and float() cannot take the tracers jit calls it with")
    checks.close(jitted, np.float32(6.25), what="jax.jit(sum_of_squares)([[1, -1], [2, 0.5]])")
    checks.close(checks.runs(lambda: jax.jit(sum_of_squares)(h), what="jax.jit(sum_of_squares) on float16"),
                 np.float16(6.5), what="jax.jit(sum_of_squares)(float16 [0.5, -1.5, 2])")


def exercise2(make_scaled) -> None:
    """make_scaled returns a jitted function; each keeps its own factor; x of any shape, 0-d included."""
    double = checks.runs(lambda: make_scaled(2.0), what="make_scaled(2.0)")
    checks.equal(type(double), type(jax.jit(abs)), what="the type make_scaled(2.0) returns (a jax.jit function)",
                 hint="return what jax.jit(...) gives: not a plain function, nor a lambda that calls a jitted one")
    v = jnp.array([1.0, 4.0, -0.5])
    checks.close(checks.runs(lambda: double(v), what="make_scaled(2.0)([1, 4, -0.5])"), np.array([2.0, 8.0, -1.0], np.float32),
                 what="make_scaled(2.0)([1, 4, -0.5])")
    triple = make_scaled(3.0)
    checks.close(checks.runs(lambda: triple(v), what="make_scaled(3.0)([1, 4, -0.5])"), np.array([3.0, 12.0, -1.5], np.float32),
                 what="make_scaled(3.0)([1, 4, -0.5]), made after make_scaled(2.0)")
    square = jnp.array([[1.0, 2.0], [3.0, 4.0]])
    checks.close(checks.runs(lambda: double(square), what="make_scaled(2.0) on a 2x2 matrix"),
                 np.array([[2.0, 4.0], [6.0, 8.0]], np.float32),
                 what="make_scaled(2.0) on a 2x2 matrix, first called on that shape after make_scaled(3.0) was made",
                 hint="each function keeps its own factor: keep it in the function (a closure), not in a global that "
                      "a later call changes")
    checks.close(checks.runs(lambda: make_scaled(0.5)(jnp.float32(3.0)), what="make_scaled(0.5) on a 0-d x"),
                 np.float32(1.5), what="make_scaled(0.5)(jnp.float32(3.0)), a 0-d x",
                 hint="a 0-d x gives a 0-d result: multiply the whole array (no vmap over a first axis, no atleast_1d)")
    checks.close(checks.runs(lambda: make_scaled(-0.25)(v), what="make_scaled(-0.25)([1, 4, -0.5])"),
                 np.array([-0.25, -1.0, 0.125], np.float32), what="make_scaled(-0.25)([1, 4, -0.5])",
                 hint="multiply by factor as it is: no rounding to an int")
    checks.close(checks.runs(lambda: make_scaled(0.1)(v), what="make_scaled(0.1)([1, 4, -0.5])"),
                 np.array([0.1, 0.4, -0.05], np.float32), what="make_scaled(0.1)([1, 4, -0.5])",
                 hint="multiply by factor as it is: 0.1 in float16 or bfloat16 is 0.0999755... or 0.10009...")
    checks.close(checks.runs(lambda: make_scaled(1 / 3)(v), what="make_scaled(1 / 3)([1, 4, -0.5])"),
                 np.float32(1 / 3) * np.array([1.0, 4.0, -0.5], np.float32), what="make_scaled(1 / 3)([1, 4, -0.5])",
                 hint="multiply by factor as it is: no rounding to a few decimals")
    checks.close(checks.runs(lambda: make_scaled(0.0)(v), what="make_scaled(0.0)([1, 4, -0.5])",
                             hint="0.0 is a float too: multiply by factor, nothing divides by it"),
                 np.zeros(3, np.float32), what="make_scaled(0.0)([1, 4, -0.5])")


def _library_file(fn) -> str | None:
    """The file the machine code at fn's address was loaded from ("" for memory no file backs), read
    from /proc/self/maps; None where the system has no such file."""
    if not os.path.exists("/proc/self/maps"):
        return None
    address = ctypes.cast(fn, ctypes.c_void_p).value or 0
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split()
            low, high = (int(part, 16) for part in fields[0].split("-"))
            if low <= address < high:
                return fields[5] if len(fields) > 5 else ""
    return ""


def exercise3(make_cube) -> None:
    """make_cube returns the compiled C++ cube, declared and computed in double."""
    cube = checks.runs(make_cube, what="make_cube()",
                       hint='declare the function extern "C", so that lib.function finds it by the name cube')
    checks.equal(isinstance(cube, ctypes._CFuncPtr), True, what="whether make_cube() returns a ctypes function",
                 hint='return what lib.function("cube", ...) gives: not the library, nor a Python function around it')
    checks.equal(getattr(cube, "__name__", None), "cube", what="the name make_cube()'s function was found by in the library",
                 hint='declare it extern "C" and ask lib.function for "cube": without extern "C", C++ keeps the '
                      'function under a longer name (section 1)')
    checks.equal(str(getattr(getattr(cube, "restype", None), "__name__", None)), "c_double",
                 what="the name of the result type (restype) of the function make_cube() returns",
                 hint="pass restype=ctypes.c_double to lib.function: without it, the result is read as nothing")
    checks.equal([t.__name__ for t in getattr(cube, "argtypes", None) or []], ["c_double"],
                 what="the names of the argument types (argtypes) of the function make_cube() returns",
                 hint="pass argtypes=[ctypes.c_double] to lib.function")
    values = (2.0, 1.5, 1.1, -0.6, 17.17, 1e13)
    checks.close(np.array(checks.runs(lambda: [cube(v) for v in values],
                                      what="make_cube() at 2.0, 1.5, 1.1, -0.6, 17.17 and 1e13"), dtype=float),
                 np.array([v * v * v for v in values]), rtol=1e-12, atol=0,
                 what="make_cube() at 2.0, 1.5, 1.1, -0.6, 17.17 and 1e13, to 12 digits",
                 hint="compute x * x * x on the double x itself (no rounding to an int), and keep every value a double: a "
                      "float holds only about 7 digits, and 1e39 is too large for one")
    where = _library_file(cube) if cube is not None else ""
    if where is not None:  # Linux: the function's code is in the library grader.build made
        checks.equal(os.path.splitext(where)[1], ".so", what="the kind of file the code of make_cube()'s function was loaded from",
                     hint="return lib.function(...) itself: a Python function (or a ctypes callback around one) runs no C++")
