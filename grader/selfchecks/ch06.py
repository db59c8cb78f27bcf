"""Self-checks of chapter 06, "Add an operation to JAX: define a primitive and its abstract evaluation": what each
exercise's self-check cell runs (see `grader.selfchecks`)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.core import ShapedArray

from grader.notebook import checks


def _desc(shape, dtype) -> str:
    """float32[2,3], as a jaxpr writes an abstract value."""
    return f"{jnp.dtype(dtype).name}[{','.join(str(n) for n in shape)}]"


def _seen(out):
    """(shape, dtype name) of an abstract value or a ShapeDtypeStruct; what else came back, named, for the message."""
    if out is None:
        return None
    if not hasattr(out, "shape") or not hasattr(out, "dtype"):
        return f"{type(out).__name__}, not a ShapedArray"
    return tuple(out.shape), str(out.dtype)


def _params(bind_through, v):
    """The primitives of the jaxpr of bind_through(v), and the parameters of its first equation."""
    eqns = jax.make_jaxpr(bind_through)(v).eqns
    return [e.primitive.name for e in eqns], (eqns[0].params if eqns else None)


# Exercise 1

WIDTH_HINT = "convert width with int(width) before binding, whatever kind of number it is"


def window_rule(rule, shape, dtype, width):
    """What window_sum_abstract_eval returns for a ShapedArray(shape, dtype) and width, as (shape, dtype name)."""
    what = f"window_sum_abstract_eval(ShapedArray {_desc(shape, dtype)}, width={width})"
    return _seen(checks.runs(lambda: rule(ShapedArray(shape, dtype), width=width), what=what,
                             hint="return ShapedArray(new_shape, x.dtype); refuse only what the text says to refuse"))


def window_traced(window_sum, shape, dtype, width):
    """jax.eval_shape of window_sum(v, width) for v a ShapeDtypeStruct(shape, dtype), as (shape, dtype name)."""
    what = f"jax.eval_shape of window_sum on {_desc(shape, dtype)}, width={width}"
    return _seen(checks.runs(lambda: jax.eval_shape(lambda v: window_sum(v, width), jax.ShapeDtypeStruct(shape, dtype)),
                             what=what, hint="the wrapper binds x as the operand and width as a keyword parameter: "
                                             "bind(x, width=int(width))"))


def window_params(window_sum, v, width):
    """The primitives of window_sum(v, width)'s jaxpr and the first one's params."""
    return checks.runs(lambda: _params(lambda u: window_sum(u, width), v),
                       what=f"jax.make_jaxpr of window_sum(x, {width!r})",
                       hint="the wrapper binds window_sum_p(x, width=int(width))")


def window_refused(window_sum, window_sum_p, error, shape, dtype, width, label):
    """Both window_sum and window_sum_p.bind, traced by eval_shape on (shape, dtype) with width, raise `error`."""
    arg = jax.ShapeDtypeStruct(shape, dtype)
    checks.raises(error, lambda: jax.eval_shape(lambda v: window_sum(v, width), arg),
                  what=f"eval_shape of window_sum on {label}", hint="raise it in window_sum_abstract_eval, which runs while tracing")
    checks.raises(error, lambda: jax.eval_shape(lambda v: window_sum_p.bind(v, width=width), arg),
                  what=f"eval_shape of window_sum_p.bind (no wrapper) on {label}",
                  hint="the abstract evaluation rule must refuse it itself: a check in the wrapper alone leaves the primitive "
                       "open to any caller of bind")


def impl_runs(p, thunk):
    """How many times primitive p's implementation runs during thunk() (the implementation is restored after)."""
    impl, calls = p.impl, []

    def counted(*args, **params):
        calls.append(1)
        return impl(*args, **params)

    p.impl = counted
    try:
        thunk()
    finally:
        p.impl = impl
    return len(calls)


def exercise1(window_sum_abstract_eval, window_sum, window_sum_p) -> None:
    """window_sum: the rule's shapes and dtypes (floating, any leading axes), its refusals (also of a bare bind), the
    wrapper binding window_sum_p eagerly and traced with width=int(width), values eagerly and under jit."""
    rule = window_sum_abstract_eval
    checks.equal(window_rule(rule, (6,), jnp.float32, 3), ((4,), "float32"), what="the rule on float32[6] with width=3",
                 hint="n - width + 1 windows fit in a last axis of n")
    checks.equal(window_rule(rule, (2, 8), jnp.bfloat16, 1), ((2, 8), "bfloat16"), what="the rule on bfloat16[2,8] with width=1",
                 hint="bfloat16 is floating point (jnp.issubdtype(x.dtype, jnp.floating)); keep x's dtype and leading axes")
    checks.equal(window_rule(rule, (2, 3, 6), jnp.float32, 2), ((2, 3, 5), "float32"),
                 what="the rule on float32[2,3,6] with width=2",
                 hint="only the last axis changes: keep every axis before it, x.shape[:-1], however many there are")
    checks.equal(window_traced(window_sum, (2, 5), jnp.float32, 2), ((2, 4), "float32"),
                 what="eval_shape of window_sum on float32[2,5], width=2")
    checks.equal(window_traced(window_sum, (3, 7), jnp.float16, 7), ((3, 1), "float16"),
                 what="eval_shape of window_sum on float16[3,7], width=7", hint="width == n is allowed: one window covering the whole last axis")
    x = jnp.arange(6.0)
    checks.close(checks.runs(lambda: window_sum(x, 3), what="window_sum(arange(6.0), 3)"), np.array([3.0, 6.0, 9.0, 12.0], np.float32),
                 what="window_sum(arange(6.0), 3)")
    checks.equal(checks.runs(lambda: impl_runs(window_sum_p, lambda: window_sum(x, 3)), what="window_sum(x, 3), called eagerly"), 1,
                 what="the number of times window_sum(x, 3), called eagerly, runs window_sum_p's implementation",
                 hint="the wrapper binds window_sum_p also when nothing traces: no shortcut around the primitive")
    checks.close(checks.runs(lambda: jax.jit(window_sum, static_argnums=1)(x, 3), what="jitted window_sum(arange(6.0), 3)"),
                 np.array([3.0, 6.0, 9.0, 12.0], np.float32), what="jitted window_sum(arange(6.0), 3)")
    checks.equal(window_params(window_sum, x, 3), (["window_sum"], {"width": 3}),
                 what="the primitives of window_sum(x, 3)'s jaxpr and the first one's params",
                 hint="the wrapper must bind window_sum_p, with width as the keyword parameter width")
    checks.equal(window_params(window_sum, x, np.int64(3)), (["window_sum"], {"width": 3}),
                 what="the primitives and params when width is np.int64(3)", hint=WIDTH_HINT)
    checks.equal(window_params(window_sum, x, 2.7), (["window_sum"], {"width": 2}),
                 what="the primitives and params when width is 2.7 (int(2.7) is 2)",
                 hint="convert width with int(width), as the text says: int truncates, round(2.7) would give 3")
    checks.equal(window_rule(rule, (4,), jnp.float8_e4m3fn, 2), ((3,), "float8_e4m3fn"),
                 what="the rule on float8_e4m3fn[4] with width=2",
                 hint="every floating dtype is accepted, the float8 ones too: test with jnp.issubdtype(x.dtype, jnp.floating), "
                      "not a list of dtypes")
    window_refused(window_sum, window_sum_p, TypeError, (5,), jnp.int32, 2, "int32[5]")
    window_refused(window_sum, window_sum_p, TypeError, (4,), jnp.bool_, 2, "bool[4]")
    window_refused(window_sum, window_sum_p, TypeError, (3,), jnp.complex64, 1, "complex64[3] (complex is inexact, not floating)")
    window_refused(window_sum, window_sum_p, TypeError, (), jnp.float16, 1, "a float16 scalar (no axes)")
    window_refused(window_sum, window_sum_p, ValueError, (4,), jnp.float32, 5, "float32[4] with width=5")
    window_refused(window_sum, window_sum_p, ValueError, (4,), jnp.float32, 0, "float32[4] with width=0")
    window_refused(window_sum, window_sum_p, ValueError, (4,), jnp.float32, -2, "float32[4] with width=-2")
    window_refused(window_sum, window_sum_p, ValueError, (3, 4), jnp.float32, 5, "float32[3,4] with width=5 (n is the last axis, 4)")
    checks.equal(window_rule(rule, (0, 5), jnp.float32, 3), ((0, 3), "float32"), what="the rule on float32[0,5] with width=3 (no rows)",
                 hint="an empty batch axis is fine: only the last axis must hold at least width values")
    width = checks.runs(lambda: type(_params(lambda v: window_sum(v, 3.0), x)[1]["width"]).__name__,
                        what="jax.make_jaxpr of window_sum(x, 3.0)")
    checks.equal(width, "int", what="the type of the width parameter that window_sum(x, 3.0) binds", hint=WIDTH_HINT)


# Exercise 2

def _kind(out) -> str:
    """What a function returned, as a learner would name it: "a tuple of 2", "a bare ArrayImpl"."""
    if isinstance(out, (tuple, list)):
        return f"a {type(out).__name__} of {len(out)}"
    return f"a bare {type(out).__name__}"


PAIR_HINT = ("max_argmax_p.multiple_results must be True and the rule must return a list of two ShapedArrays: with one "
             "ShapedArray, bind returns one array, and tuple() splits it along its first axis")


def pair(max_argmax, thunk, what):
    """thunk() (a call of max_argmax), checked to be a tuple of two results first: the pair, or (None, None)."""
    out = checks.runs(thunk, what=what, hint=PAIR_HINT)
    checks.equal(_kind(out), "a tuple of 2", what=f"what {what} returns", hint=PAIR_HINT)
    return tuple(out) if _kind(out) == "a tuple of 2" else (None, None)


def max_avals(max_argmax, shape, dtype):
    """jax.eval_shape of max_argmax on a ShapeDtypeStruct(shape, dtype): a list of (shape, dtype name), one per result."""
    outs = checks.runs(lambda: jax.eval_shape(max_argmax, jax.ShapeDtypeStruct(shape, dtype)),
                       what=f"jax.eval_shape of max_argmax on {_desc(shape, dtype)}", hint=PAIR_HINT)
    if outs is None:
        return None
    return [_seen(out) for out in outs] if isinstance(outs, (tuple, list)) else _kind(outs)


def max_refused(max_argmax, error, shape, label, dtype=jnp.float32):
    """eval_shape of max_argmax on (shape, dtype) raises `error`."""
    checks.raises(error, lambda: jax.eval_shape(max_argmax, jax.ShapeDtypeStruct(shape, dtype)),
                  what=f"eval_shape of max_argmax on {label}", hint="raise it in max_argmax_abstract_eval")


def exercise2(max_argmax_abstract_eval, max_argmax, max_argmax_p) -> None:
    """max_argmax: multiple_results declared; two avals of shape x.shape[:-1], x's dtype and int32 (also under x64);
    the refusals; a tuple of two arrays, eagerly and under jit."""
    checks.equal(max_argmax_p.multiple_results, True, what="max_argmax_p.multiple_results",
                 hint="a primitive with several outputs must say so before it is bound")
    what = "max_argmax_abstract_eval(ShapedArray float32[3,5])"
    rule_out = checks.runs(lambda: max_argmax_abstract_eval(ShapedArray((3, 5), jnp.float32)), what=what)
    several = isinstance(rule_out, (tuple, list))
    checks.equal(f"a list or tuple of {len(rule_out)}" if several else f"a bare {type(rule_out).__name__}", "a list or tuple of 2",
                 what=f"what {what} returns", hint="a list of two ShapedArrays, one per result: the maximum's, then the index's")
    checks.equal([_seen(o) for o in rule_out] if several else None, [((3,), "float32"), ((3,), "int32")],
                 what=f"the two ShapedArrays {what} returns",
                 hint="both of shape x.shape[:-1]: the maximum in x's dtype, then the index, always int32")
    checks.equal(max_avals(max_argmax, (3, 5), jnp.float32), [((3,), "float32"), ((3,), "int32")],
                 what="eval_shape of max_argmax on float32[3,5]", hint="the index output is always int32, whatever the dtype of x")
    checks.equal(max_avals(max_argmax, (7,), jnp.bfloat16), [((), "bfloat16"), ((), "int32")],
                 what="eval_shape of max_argmax on bfloat16[7]",
                 hint="both results have x.shape[:-1] (here (), a 1-d x has no batch axes); the maximum keeps x's dtype")
    checks.equal(max_avals(max_argmax, (2, 4, 3), jnp.float16), [((2, 4), "float16"), ((2, 4), "int32")],
                 what="eval_shape of max_argmax on float16[2,4,3]",
                 hint="both results have shape x.shape[:-1]: every axis but the last, however many there are")
    checks.equal(max_avals(max_argmax, (4, 1), jnp.float32), [((4,), "float32"), ((4,), "int32")],
                 what="eval_shape of max_argmax on float32[4,1], a last axis of length 1",
                 hint="only an empty last axis (n == 0) is refused: a last axis of one value has its maximum at index 0")
    checks.equal(max_avals(max_argmax, (0, 5), jnp.float32), [((0,), "float32"), ((0,), "int32")],
                 what="eval_shape of max_argmax on float32[0,5] (no rows, n = 5)",
                 hint="only an empty last axis (n == 0) is refused; an empty batch axis is fine")
    checks.equal(max_avals(max_argmax, (3, 4), jnp.int32), [((3,), "int32"), ((3,), "int32")],
                 what="eval_shape of max_argmax on int32[3,4]", hint="any dtype is fine: only the shape is checked")
    with jax.enable_x64(True):
        checks.equal(max_avals(max_argmax, (2, 5), jnp.float64), [((2,), "float64"), ((2,), "int32")],
                     what="eval_shape on float64[2,5] under jax.enable_x64(True)",
                     hint="the index output is int32 even under jax.enable_x64, where int64 is the default integer")
    x = jnp.array([[1.0, 7.0, 3.0], [4.0, -2.0, 0.5]])
    best, where = pair(max_argmax, lambda: jax.jit(max_argmax)(x), "jax.jit(max_argmax)(x) for a 2x3 x")
    checks.close(best, np.array([7.0, 4.0], np.float32), what="the maximum of each row (jitted)")
    checks.close(where, np.array([1, 0], np.int32), what="the index of each row's maximum (jitted)")
    best, where = pair(max_argmax, lambda: max_argmax(x[:, :2]), "max_argmax(x[:, :2]), called eagerly, for a 2x2 x")
    checks.close(best, np.array([7.0, 4.0], np.float32), what="the maximum of each row (eager)")
    checks.close(where, np.array([1, 0], np.int32), what="the index of each row's maximum (eager)")
    max_refused(max_argmax, TypeError, (), "a float16 scalar (no axes)", jnp.float16)
    max_refused(max_argmax, ValueError, (0,), "float32[0] (an empty last axis)")
    max_refused(max_argmax, ValueError, (2, 0), "float32[2,0] (rows with an empty last axis)")
    checks.equal(max_avals(max_argmax, (2, 3), jnp.bool_), [((2,), "bool"), ((2,), "int32")],
                 what="eval_shape of max_argmax on bool[2,3]", hint="any dtype is fine, bool too: only the shape is checked")
    both = checks.runs(lambda: [max_avals(max_argmax, (4, 2), jnp.uint8), max_avals(max_argmax, (3,), jnp.int8)],
                       what="eval_shape of max_argmax on uint8[4,2] and on int8[3]")
    checks.equal(both, [[((4,), "uint8"), ((4,), "int32")], [((), "int8"), ((), "int32")]],
                 what="eval_shape of max_argmax on uint8[4,2] and on int8[3]",
                 hint="the maximum keeps x's dtype exactly, small integers too: no promotion, as a sum would make")
    checks.equal(max_avals(max_argmax, (2 ** 31 + 5,), jnp.int8), [((), "int8"), ((), "int32")],
                 what="eval_shape of max_argmax on int8[2 ** 31 + 5], a last axis longer than int32 counts",
                 hint="the index output is int32 always, whatever the length of the last axis")


# Exercise 3

PERM_HINT = "bind perm as a tuple of non-negative ints: a list is not hashable, and -1 means x.ndim - 1"


def permuted(permute, shape, perm, dtype=jnp.float32):
    """jax.eval_shape of permute(v, perm) for v a ShapeDtypeStruct(shape, dtype), as (shape, dtype name)."""
    return _seen(checks.runs(lambda: jax.eval_shape(lambda v: permute(v, perm), jax.ShapeDtypeStruct(shape, dtype)),
                             what=f"eval_shape of permute on {_desc(shape, dtype)} with perm={perm!r}", hint=PERM_HINT))


def perm_params(permute, shape, perm):
    """The primitives of permute's jaxpr, and the parameters of its first equation."""
    return checks.runs(lambda: _params(lambda v: permute(v, perm), jax.ShapeDtypeStruct(shape, jnp.float32)),
                       what=f"jax.make_jaxpr of permute on {_desc(shape, jnp.float32)} with perm={perm!r}", hint=PERM_HINT)


def perm_refused(permute, permute_p, shape, perm):
    """Both permute and permute_p.bind, traced by eval_shape on float32 `shape`, raise ValueError for `perm`."""
    arg = jax.ShapeDtypeStruct(shape, jnp.float32)
    checks.raises(ValueError, lambda: jax.eval_shape(lambda v: permute(v, perm), arg),
                  what=f"permute on shape {shape} with perm={perm}",
                  hint="the rule must refuse anything but a permutation of range(x.ndim): x.ndim entries, each axis exactly "
                       "once; the wrapper converts only negative entries")
    checks.raises(ValueError, lambda: jax.eval_shape(lambda v: permute_p.bind(v, perm=tuple(perm)), arg),
                  what=f"permute_p.bind (no wrapper) on shape {shape} with perm={tuple(perm)}",
                  hint="the abstract evaluation rule must refuse it itself: a check in the wrapper alone leaves the primitive "
                       "open to any caller of bind")


def exercise3(permute_abstract_eval, permute, permute_p) -> None:
    """permute: the result's shape and dtype, the refusals (also of a bare bind), perm bound as a new tuple of
    non-negative Python ints from a tuple, a list or a NumPy array."""
    checks.equal(permuted(permute, (2, 3, 4), (1, 2, 0)), ((3, 4, 2), "float32"),
                 what="eval_shape of permute(float32[2,3,4], (1, 2, 0))", hint="axis i of the result is axis perm[i] of x")
    checks.equal(permuted(permute, (5, 7), [1, 0], jnp.int8), ((7, 5), "int8"), what="eval_shape of permute(int8[5,7], [1, 0])",
                 hint="the result keeps x's dtype")
    checks.equal(perm_params(permute, (2, 3, 4), [2, 0, 1]), (["permute"], {"perm": (2, 0, 1)}),
                 what="the primitives of the jaxpr and the params when perm is the list [2, 0, 1]",
                 hint="the wrapper binds permute_p with perm as a tuple")
    checks.equal(perm_params(permute, (3, 4), (-1, 0)), (["permute"], {"perm": (1, 0)}),
                 what="the primitives and params when perm is (-1, 0) on a 2-d x",
                 hint="the wrapper turns a negative entry p into p + x.ndim before it binds")
    checks.equal(perm_params(permute, (4, 5), (np.int64(1), np.int64(0))), (["permute"], {"perm": (1, 0)}),
                 what="the primitives and params when perm holds np.int64 values", hint="convert each entry with int(p)")
    checks.equal(permuted(permute, (), ()), ((), "float32"), what="eval_shape of permute(a float32 scalar, ())",
                 hint="a 0-d x has no axes and one permutation of them: the empty tuple")
    for shape, perm in [((2, 3, 4), (0, 0, 1)), ((2, 3, 4), (0, 1, 1, 2)), ((2, 3, 4), (3, 1, 2)), ((2, 3, 4), (1, 0)),
                        ((2, 3), (0, 2, 1)), ((2, 3, 4), (-4, 0, 1))]:
        perm_refused(permute, permute_p, shape, perm)
    checks.equal(perm_params(permute, (2, 3, 4), (-2, -3, -1)), (["permute"], {"perm": (1, 0, 2)}),
                 what="the primitives and params when perm is (-2, -3, -1) on a 3-d x",
                 hint="every negative entry p becomes p + x.ndim, not only -1")
    numpy_perm = perm_params(permute, (2, 3, 4), np.array([2, -3, 1]))
    checks.equal(numpy_perm, (["permute"], {"perm": (2, 0, 1)}),
                 what="the primitives and params when perm is the NumPy array [2, -3, 1] on a 3-d x",
                 hint="read a NumPy array's entries in order, as a list's")
    checks.equal(None if numpy_perm is None else [type(p).__name__ for p in numpy_perm[1]["perm"]], ["int", "int", "int"],
                 what="the types of the entries of perm bound for the NumPy array [2, -3, 1]",
                 hint="convert every entry with int(p), the negative ones too")
    given = [-1, 0, 1]
    perm_params(permute, (2, 3, 4), given)
    checks.equal(given, [-1, 0, 1], what="the caller's list [-1, 0, 1] after permute(x, it)",
                 hint="build a new tuple: do not change the list the caller passed")
    array = np.array([2, -3, 1], np.int64)
    perm_params(permute, (2, 3, 4), array)
    checks.equal(array.tolist(), [2, -3, 1], what="the caller's int64 NumPy array [2, -3, 1] after permute(x, it)",
                 hint="build a new tuple: np.asarray(perm) of an int64 array is that array itself, so writing into it "
                      "changes the caller's")
