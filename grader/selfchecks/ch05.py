"""Self-checks of chapter 05, "Read the primitives a JAX function is made of": what each exercise's self-check cell
runs (see `grader.selfchecks`)."""

from __future__ import annotations

import functools
import logging
from contextlib import contextmanager

import jax
import jax.extend as jex
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.interpreters import ad, batching, mlir

from grader.notebook import checks


def _ask(fn, name, f, args, what, expected, hint=None):
    """Run fn(f, *args) (the answer, on inputs the learner can see) and check it equals `expected` exactly."""
    label = f"{name} of {what}"
    got = checks.runs(lambda: fn(f, *args), what=label, hint=hint)
    checks.equal(got, expected, what=label, hint=hint)


def add_up(start, n):
    """The same function as add_up of section 4: a fori_loop from 0 to n."""
    return lax.fori_loop(0, n, lambda i, acc: acc + i, start)


def exercise1(primitive_names) -> None:
    """primitive_names: sorted distinct names, from every equation, in every sub-jaxpr (any parameter name, tuples with
    None entries, any depth), tracing f with the args as given on every call."""
    def ask(f, args, what, expected, hint=None):
        _ask(primitive_names, "primitive_names", f, args, what, expected, hint)

    ones = jnp.ones(3)
    ask(lambda a, b: jnp.sum(jnp.cos(a) * b), (ones, ones), "sum(cos(a) * b)", ["cos", "mul", "reduce_sum"],
        "a sorted list of the distinct names, as eqn.primitive.name gives them")
    ask(lambda v: lax.cond(v[0] > 0, jnp.sin, jnp.cos, v), (ones,), "a cond",
        ["cond", "convert_element_type", "cos", "gt", "sin", "slice", "squeeze"],
        "look inside the jaxprs held in each equation's params")
    ask(lambda v: lax.scan(lambda c, e: (c + lax.cond(e > 0, jnp.sin, jnp.cos, e), None), 0.0, v)[0], (ones,),
        "a cond inside a scan body", ["add", "cond", "convert_element_type", "cos", "gt", "scan", "sin"],
        "a sub-jaxpr can hold sub-jaxprs of its own: recurse")
    ask(lambda v: lax.while_loop(lambda s: s.sum() < 10.0, jnp.exp, v), (ones,),
        "a while loop (exp in its body, lt in its condition)", ["exp", "lt", "reduce_sum", "while"],
        "a while equation keeps its jaxprs in cond_jaxpr and body_jaxpr: look at every parameter, whatever its name")
    ask(lambda b: lax.custom_linear_solve(lambda v: 2.0 * v, b, solve=lambda mv, r: r / 2.0), (ones,),
        "a custom_linear_solve (mul in its matvec, div in its solve)", ["custom_linear_solve", "div", "mul"],
        "its jaxprs parameter is a tuple (matvec, None, solve, None): walk every entry that is a Jaxpr, skip the others")
    ask(jax.nn.relu, (jnp.ones((2, 2)),), "jax.nn.relu (custom_jvp_call > jit > max)", ["custom_jvp_call", "jit", "max"],
        "custom_jvp_call keeps its jaxpr in call_jaxpr: look at every parameter, whatever its name or its primitive")
    ask(lambda v: (jax.debug.print("v = {}", v), v * 2)[1], (ones,), "a function that calls jax.debug.print",
        ["debug_print", "mul"],
        "an equation with no outputs (debug_print) is an equation too: read jaxpr.eqns, not the printed text")
    ask(lambda n: lax.fori_loop(0, n, lambda i, a: a * 2 + i, jnp.int32(1)), (jnp.int32(3),),
        "an int32 fori_loop with a traced bound (n = jnp.int32(3))", ["add", "convert_element_type", "lt", "mul", "while"],
        "trace f with the arguments as they are given: do not convert them")
    ask(lambda v: v.at[1].add(2.0), (ones,), "v.at[1].add(2.0) (a scatter-add, which adds in its update_jaxpr)",
        ["add", "broadcast_in_dim", "scatter-add"],
        "a Jaxpr can sit under any parameter name (update_jaxpr here): test each value, not a list of names")
    ask(jax.jit(jax.jit(jax.jit(jax.jit(jax.jit(jnp.sin))))), (ones,), "jnp.sin inside five nested jits", ["jit", "sin"],
        "recurse to every depth, with no limit")
    sin_of, mul_of = (lambda v: jnp.sin(v)), (lambda a, s: a * s)
    both = checks.runs(lambda: [primitive_names(sin_of, ones), primitive_names(sin_of, jnp.arange(3)),
                                primitive_names(mul_of, ones, np.float32(2.0)), primitive_names(mul_of, ones, 2.0)],
                       what="primitive_names of one function object, called with new arguments")
    checks.equal(both, [["sin"], ["convert_element_type", "sin"], ["mul"], ["convert_element_type", "mul"]],
                 what="primitive_names of sin(v) traced with float32, then int32 arguments; of a * s with a float32 "
                      "array a and s = np.float32(2.0), then the Python float 2.0",
                 hint="trace f with these args on every call (keep no cache of your own): the same f traced with other "
                      "dtypes, or with a Python number where a float32 was, is another jaxpr")


def exercise2(count_primitive) -> None:
    """count_primitive: an int, counting equations (not loop runs, not outputs) at every depth, once per equation that
    holds a sub-jaxpr, inside matching equations too, by whole names, tracing f with the args as arguments."""
    def ask(f, name, args, what, expected, hint=None):
        label = f"count_primitive({what}, {name!r})"
        got = checks.runs(lambda: count_primitive(f, name, *args), what=label, hint=hint)
        checks.equal(got, expected, what=label, hint=hint)

    ones, four = jnp.ones(3), jnp.ones(4)
    ask(lambda v: jnp.sin(v) + jnp.sin(2 * v), "sin", (ones,), "sin(v) + sin(2v)", 2,
        "return a Python int: the number of equations whose primitive name is `name`")
    ask(lambda v: lax.scan(lambda c, e: (c * e, jnp.sin(e)), 1.0, v), "mul", (four,), "a scan whose body multiplies", 1,
        "the scan body is a jaxpr in the scan equation's params; it counts once, however many times the loop runs")
    ask(lambda v: lax.scan(lambda c, e: (c + lax.cond(e > 0, jnp.sin, lambda t: jnp.sin(t) * 2, e), None), 0.0, v)[0],
        "sin", (four,), "a scan whose body is a cond with sin in both branches", 2,
        "a sub-jaxpr can hold sub-jaxprs of its own: recurse")
    ask(jax.nn.relu, "max", (ones,), "jax.nn.relu", 1,
        "max sits in a jit inside the call_jaxpr of a custom_jvp_call: look at every parameter, and count `name` at every depth")
    ask(lambda b: lax.custom_linear_solve(lambda v: 2.0 * v, b, solve=lambda mv, r: r / 2.0), "div", (ones,),
        "a custom_linear_solve whose solve divides", 1,
        "its jaxprs parameter is a tuple (matvec, None, solve, None): walk every entry that is a Jaxpr, skip the others")
    jitted_sin = jax.jit(jnp.sin)
    ask(lambda v: jitted_sin(v) + jitted_sin(2 * v), "sin", (ones,), "two calls of the same jitted sin", 2,
        "the two jit equations hold the same jaxpr object: it counts once per equation that holds it")
    ask(jax.grad(lambda v: jnp.sin(v) * v), "add", (1.0,), "grad(sin(v) * v), whose jaxpr adds with add_any", 0,
        "compare whole primitive names: add_any is another primitive than add")
    ask(jax.grad(lambda v: jnp.sin(v) * v), "add_any", (1.0,), "grad(sin(v) * v)", 1,
        "compare each equation's primitive name with `name`: a primitive's name need not be its variable's without _p "
        "(add_any's variable is add_jaxvals_p)")
    ask(lambda v: v.at[1].add(2.0), "add", (ones,), "v.at[1].add(2.0), the add inside the scatter-add's update_jaxpr", 1,
        "a Jaxpr can sit under any parameter name (update_jaxpr here): test each value, not a list of names")
    sin_of, mul_of = (lambda v: jnp.sin(v)), (lambda a, s: a * s)
    both = checks.runs(lambda: [count_primitive(sin_of, "convert_element_type", ones),
                                count_primitive(sin_of, "convert_element_type", jnp.arange(3)),
                                count_primitive(mul_of, "convert_element_type", ones, np.float32(2.0)),
                                count_primitive(mul_of, "convert_element_type", ones, 2.0)],
                       what="count_primitive of one function object, called with new arguments")
    checks.equal(both, [0, 1, 0, 1],
                 what="count_primitive of convert_element_type in sin(v) traced with float32, then int32; in a * s with "
                      "a float32 array a and s = np.float32(2.0), then the Python float 2.0",
                 hint="trace f with these args on every call (keep no cache of your own): the same f traced with other "
                      "dtypes, or with a Python number where a float32 was, is another jaxpr")
    ask(add_up, "while", (1.0, 3), "add_up of section 4, args (1.0, 3)", 1,
        "trace f with args as arguments, jax.make_jaxpr(f)(*args): a closure over them makes the Python int 3 static, "
        "and the loop a scan")
    jitted_cos = jax.jit(jnp.cos)
    ask(lambda v: jitted_cos(v) * 2, "jit", (ones,), "a function that calls one jitted function", 1,
        "trace f itself (jax.jit(f) adds a jit around it), and count jit equations like any other")
    ask(lambda v: lax.scan(lambda c, e: (c + e, (e * 2, e * 3)), 0.0, v), "scan", (four,), "one scan with three outputs", 1,
        "count equations, not their output variables")
    ask(lambda v: jax.jit(lambda u: jax.jit(jnp.sin)(u) * 2)(v), "jit", (ones,),
        "a jit whose function calls another jitted function", 2,
        "an equation that matches holds sub-jaxprs too: look inside it as inside any other (no `continue`)")


def exercise3(stablehlo_ops) -> None:
    """stablehlo_ops: every distinct name after `stablehlo.` anywhere in the lowered text (generic form, no `=` in front,
    attributes, digits, private functions), sorted, lowering for the args as given."""
    def ask(f, args, what, expected, hint=None):
        _ask(stablehlo_ops, "stablehlo_ops", f, args, what, expected, hint)

    ones = jnp.ones(3)
    ask(lambda a: jnp.sin(a) * 2, (ones,), "sin(a) * 2", ["broadcast_in_dim", "constant", "multiply", "sine"],
        "a sorted list of the distinct names after stablehlo., without the prefix")
    ask(lambda a: lax.cond(a.sum() > 0, jnp.sin, jnp.cos, a), (ones,), "a cond",
        ["add", "case", "compare", "constant", "convert", "cosine", "reduce", "return", "sine"],
        'search the whole text, including "stablehlo.case" and stablehlo.return')
    ask(jnp.arctan2, (ones, ones), "jnp.arctan2", ["atan2"], "an operation name can hold digits: stablehlo.atan2")
    ask(lambda a: a.at[1].set(0.0), (ones,), "a.at[1].set(0.0), which lowers to a scatter",
        ["broadcast_in_dim", "constant", "return", "scatter"],
        'any operation may take the quoted generic form, "stablehlo.scatter"(...): match every stablehlo.NAME in the text')
    ask(lambda a: jax.jit(jnp.tanh)(a) * 2, (ones,), "jax.jit(jnp.tanh)(a) * 2 (a nested jit)",
        ["broadcast_in_dim", "constant", "multiply", "tanh"],
        "a nested jit lowers to a func.func private of its own, after main: read the whole module's text")
    ask(lambda a: a.astype(jnp.float32) + 1, (jnp.arange(3, dtype=jnp.int32),), "an int32 array cast to float32, plus 1",
        ["add", "broadcast_in_dim", "constant", "convert"],
        "lower for the arguments as they are given: their dtypes decide which operations appear")
    sin_of, mul_of = (lambda a: jnp.sin(a)), (lambda a, s: a * s)
    both = checks.runs(lambda: [stablehlo_ops(sin_of, ones), stablehlo_ops(sin_of, jnp.arange(3)),
                                stablehlo_ops(mul_of, ones, np.float32(2.0)), stablehlo_ops(mul_of, ones, 2.0)],
                       what="stablehlo_ops of one function object, called with new arguments")
    checks.equal(both, [["sine"], ["convert", "sine"], ["broadcast_in_dim", "multiply"],
                        ["broadcast_in_dim", "convert", "multiply"]],
                 what="stablehlo_ops of sin(a) lowered for float32, then int32 arguments; of a * s with a float32 array "
                      "a and s = np.float32(2.0), then the Python float 2.0",
                 hint="lower jax.jit(f) for these args on every call (keep no cache of your own): other dtypes, or a "
                      "Python number where a float32 was, give another module")
    ask(lambda a: jnp.sinh(a) * 2, (ones,), "sinh(a) * 2, whose sinh lowers to chlo.sinh in this version",
        ["broadcast_in_dim", "constant", "multiply"],
        "only names after stablehlo.: chlo.sinh belongs to another dialect")
    ask(jnp.linalg.solve, (jnp.eye(3), ones), "jnp.linalg.solve for a 3x3 matrix",
        ["add", "broadcast_in_dim", "compare", "constant", "convert", "custom_call", "dynamic_slice", "gather", "iota",
         "output_operand_alias", "reshape", "return", "scatter", "select", "subtract", "while"],
        "every name after stablehlo. anywhere in the text: also an attribute's, #stablehlo.output_operand_alias<...>, "
        "which walking the module's operations never sees")
    ask(lambda a, s: a * s, (ones, 2.0), "a * s for a float32 a and the Python float s = 2.0",
        ["broadcast_in_dim", "convert", "multiply"],
        "lower for every argument as it is given: a Python number is an argument too (no static_argnums), not a constant")


# Exercise 4: functions and primitives whose transformations work or fail in known ways.

def plain(value):
    """what_works's answer as a plain dict (an OrderedDict is a dict too), in a list too, read now."""
    if isinstance(value, dict) and type(value) is not dict:
        return dict(value)
    return [plain(v) for v in value] if type(value) is list else value


@contextmanager
def _no_callback_log():
    """Keep the log line JAX writes when a host function raises out of the output (what_works catches the error)."""
    log = logging.getLogger("jax._src.callback")
    was_disabled, log.disabled = log.disabled, True
    try:
        yield
    finally:
        log.disabled = was_disabled


def works(what_works, f, x, what):
    """what_works(f, x), run as a check, as a plain dict (None if it raised)."""
    with _no_callback_log():
        return plain(checks.runs(lambda: what_works(f, x), what=what, hint=_ANY))


def fails_when_run(v):
    """Traces, lowers and compiles; its host function raises when the compiled program runs."""
    def host(a):
        raise RuntimeError("this host function always fails")
    return jax.pure_callback(host, jax.ShapeDtypeStruct(v.shape, v.dtype), v, vmap_method="expand_dims")


def fails_in_background(v):
    """A program of more than 1000 flops, which XLA's CPU client runs in the background after jax.jit(f)(x) has
    returned (cheaper programs run before it returns), and which then fails: its LAPACK call (section 6) is
    given one result where it returns three. Its error shows only when the result is waited for or read."""
    w = jnp.tanh(v @ v.T)
    return jax.ffi.ffi_call("lapack_ssyevd_ffi", jax.ShapeDtypeStruct(w.shape, w.dtype))(w)


def one_value_at_a_time(v):
    """A callback that claims to be vectorised (expand_dims) but handles one value per call: vmap works over a
    batch of one and fails over a batch of two."""
    host = lambda a: np.full(np.shape(a), np.sin(np.asarray(a).item()), np.asarray(a).dtype)
    return jax.pure_callback(host, jax.ShapeDtypeStruct(v.shape, v.dtype), v, vmap_method="expand_dims")


def custom_vjp_sin():
    """sin with a custom_vjp: jax.jvp refuses it, jax.grad uses its rule."""
    @jax.custom_vjp
    def sin_vjp(v):
        return jnp.sin(v)
    sin_vjp.defvjp(lambda v: (jnp.sin(v), v), lambda v, g: (g * jnp.cos(v),))
    return sin_vjp


def sin_primitive(name, impl=True, batch_front_only=False):
    """A new primitive computing sin, with an abstract evaluation and a lowering; with `impl`, an implementation;
    with `batch_front_only`, a batching rule that refuses a batch axis not in front."""
    p = jex.core.Primitive(name)
    p.def_abstract_eval(lambda v: v)
    mlir.register_lowering(p, mlir.lower_fun(jnp.sin, multiple_results=False))
    if impl:
        p.def_impl(jnp.sin)
    if batch_front_only:
        def rule(args, dims):
            if dims[0] != 0:
                raise ValueError(f"{name}: this rule takes the batch axis in front only, got {dims[0]}")
            return p.bind(*args), 0
        batching.primitive_batchers[p] = rule
    return p


def linear_primitive(name, transpose):
    """A new linear primitive computing 2 * v, with an implementation, an abstract evaluation, a lowering and a JVP
    rule that applies the primitive to the tangent; with `transpose`, a transpose rule; no batching rule."""
    p = jex.core.Primitive(name)
    p.def_impl(lambda v: 2 * v)
    p.def_abstract_eval(lambda v: v)
    mlir.register_lowering(p, mlir.lower_fun(lambda v: 2 * v, multiple_results=False))
    ad.primitive_jvps[p] = lambda primals, tangents: (p.bind(primals[0]), p.bind(tangents[0]))
    if transpose:
        ad.primitive_transposes[p] = lambda ct, v: [p.bind(ct)]
    return p


@functools.cache
def section7():
    """Primitives with the rules section 7's have (the same definitions, made once): cube (impl and abstract
    evaluation only), double (and a JVP rule that applies double to the tangent, and a batching rule), square (a
    JVP rule written with jnp), eager_double (no abstract evaluation; JVP and transpose rules)."""
    shaped = lambda x: jax.core.ShapedArray(x.shape, x.dtype)
    cube_p = jex.core.Primitive("cube")
    cube_p.def_impl(lambda x: jnp.asarray(np.asarray(x) ** 3))
    cube_p.def_abstract_eval(shaped)
    double_p = jex.core.Primitive("double")
    double_p.def_impl(lambda x: 2 * x)
    double_p.def_abstract_eval(shaped)
    ad.primitive_jvps[double_p] = lambda primals, tangents: (double_p.bind(primals[0]), double_p.bind(tangents[0]))
    batching.primitive_batchers[double_p] = lambda values, dims: (double_p.bind(values[0]), dims[0])
    square_p = jex.core.Primitive("square")
    square_p.def_impl(lambda x: x * x)
    square_p.def_abstract_eval(shaped)
    ad.primitive_jvps[square_p] = lambda primals, tangents: (square_p.bind(*primals), 2 * primals[0] * tangents[0])
    eager_double_p = jex.core.Primitive("eager_double")
    eager_double_p.def_impl(lambda v: 2 * v)
    ad.primitive_jvps[eager_double_p] = lambda primals, tangents: (eager_double_p.bind(*primals),
                                                                   eager_double_p.bind(*tangents))
    ad.primitive_transposes[eager_double_p] = lambda ct, v: [eager_double_p.bind(ct)]
    return {"cube": cube_p.bind, "double": double_p.bind, "square": square_p.bind, "eager_double": eager_double_p.bind}


def doubling(x):
    """doubling of section 6: a while_loop that doubles x three times."""
    return lax.while_loop(lambda s: s[1] < 3, lambda s: (s[0] * 2.0, s[1] + 1), (x, 0))[0]


_ANY = "a transformation can fail with any exception (ValueError, TypeError, ...), not only NotImplementedError: catch Exception"
ALL = {"jit": True, "jvp": True, "grad": True, "vmap": True}
NONE = {"jit": False, "jvp": False, "grad": False, "vmap": False}


def exercise4(what_works) -> None:
    """what_works: a new plain dict of four bools; jit compiled, run and waited for; jvp, grad (tried, not inferred)
    and vmap as the text writes them; any exception is a failure; inputs built from x (0-d, float16, int32)."""
    x3, rules = jnp.arange(3.0), section7()

    def ask(f, x, what, expected, hint=None):
        checks.equal(works(what_works, f, x, f"what_works of {what}"), expected, what=f"what_works of {what}", hint=hint)

    ask(jnp.sin, x3, "jnp.sin at x3 = jnp.arange(3.0)", ALL,
        "return a new dict with exactly the keys jit, jvp, grad and vmap, each a plain bool")
    ask(rules["cube"], x3, "cube (as in section 7: an implementation and an abstract evaluation only)", NONE,
        "jax.jit(cube).trace(x3) succeeds; it is lowering that fails, so call the jitted function")
    ask(rules["double"], x3, "double (as in section 7: a JVP rule that applies double to the tangent, a batching rule)",
        {"jit": False, "jvp": True, "grad": False, "vmap": True},
        "grad also needs a transpose rule for what the JVP rule produces: try grad, do not infer it from jvp")
    ask(rules["square"], x3, "square (as in section 7: a JVP rule written with jnp)",
        {"jit": False, "jvp": True, "grad": True, "vmap": False})
    ask(doubling, x3, "doubling of section 6 (a while_loop)", {"jit": True, "jvp": True, "grad": False, "vmap": True},
        "grad through a while_loop raises ValueError, not NotImplementedError")
    ask(jnp.cos, jnp.float32(0.5), "jnp.cos at jnp.float32(0.5), a 0-d x", ALL,
        "build every input from x itself (jnp.ones_like(x), jnp.stack([x, x])), whatever its shape")
    ask(one_value_at_a_time, jnp.float32(0.5),
        "a callback that handles one value per call, at a 0-d x (its vmap works over one example only)",
        {"jit": True, "jvp": False, "grad": False, "vmap": False},
        "vmap over jnp.stack([x, x]), a batch of two, as the text says: a batch of one hides what fails with more")
    ask(fails_when_run, x3, "a program that fails when it runs", NONE,
        "jax.jit(f).lower(x) and .compile() succeed here: only running the jitted function, and waiting for it, shows "
        "the failure")
    ask(fails_in_background, jnp.ones((16, 16)), "a program that runs after jax.jit(f)(x) has returned, then fails", NONE,
        "wait for jit's result, jax.block_until_ready(jax.jit(f)(x)): a program of more than about 1000 operations runs in "
        "the background, and its error shows only when its result is waited for or read")
    ask(lambda v: lax.mul(v, jnp.float16(2)), x3.astype(jnp.float16),
        "lambda v: lax.mul(v, jnp.float16(2)) at x3.astype(jnp.float16), a float16 x that f needs as float16", ALL,
        "keep x's dtype in every input you build: jnp.ones_like(x) and jnp.stack([x, x]) do, jnp.ones(x.shape) is float32")
    ask(jnp.log, -1.0 - jnp.abs(x3), "jnp.log at -1 - abs(x3), whose values are NaN", ALL,
        "a call that returns works, whatever values it returns (NaN and inf included): do not judge the values")
    ask(sin_primitive("sin_lowered_only", impl=False).bind, x3,
        "a primitive with an abstract evaluation and a lowering but no impl (so f(x) fails eagerly)",
        {"jit": True, "jvp": False, "grad": False, "vmap": False},
        "try each transformation on its own: an eager call of f is none of the four, and jit needs no impl")
    ask(lambda v: lax.cond(v > 0, jnp.sin, jnp.cos, v), jnp.float32(0.5), "a cond at a 0-d x", ALL,
        "jnp.stack([x, x]) gives a 0-d x the batch shape (2,); jnp.vstack would make it (2, 1)")
    ask(custom_vjp_sin(), x3, "a jax.custom_vjp function (jvp refuses it; grad uses its rule)",
        {"jit": True, "jvp": False, "grad": True, "vmap": True}, "try grad on its own: it can work where jvp does not")
    ask(sin_primitive("sin_batched_in_front", batch_front_only=True).bind, x3,
        "a primitive whose batching rule takes the batch axis in front only",
        {"jit": True, "jvp": False, "grad": False, "vmap": True},
        "vmap as the task says: jax.vmap(f)(jnp.stack([x, x])), the batch in front")
    ask(jnp.sin, jnp.arange(3, dtype=jnp.int32), "jnp.sin at jnp.arange(3, dtype=jnp.int32), after it at x3",
        {"jit": True, "jvp": False, "grad": False, "vmap": True},
        "try the four calls at this x every time: the same f at another x can give other answers")
    ask(linear_primitive("double_jvp_only", transpose=False).bind, x3,
        "a primitive with a JVP rule that applies it to the tangent, but no transpose or batching rule",
        {"jit": True, "jvp": True, "grad": False, "vmap": False},
        "try jvp as jax.jvp(f, (x,), (jnp.ones_like(x),)): jax.jacfwd runs the JVP under vmap, which needs a batching rule")
    ask(linear_primitive("double_transposed", transpose=True).bind, x3,
        "the same with a transpose rule too (still no batching rule)", {"jit": True, "jvp": True, "grad": True, "vmap": False},
        "try grad as jax.grad of f(v).sum(): jax.jacrev runs the pullback under vmap, which needs a batching rule")
    ask(lambda v: jnp.floor(v).astype(jnp.int32), x3, "lambda v: jnp.floor(v).astype(jnp.int32), whose output is int32",
        {"jit": True, "jvp": True, "grad": False, "vmap": True},
        "jvp works for an integer output (its tangent is float0, an array JAX gives as NumPy's, with no "
        ".block_until_ready(): wait with jax.block_until_ready(out)); grad of f(v).sum() as it is: jax.grad refuses an "
        "integer output, and a cast to float32 hides that")
    ask(lambda v: v @ v, x3, "lambda v: v @ v at x3, whose result depends on each example's shape", ALL,
        "vmap over jnp.stack([x, x]): a batch of two examples, each of x's own shape (a concatenation gives one long "
        "vector, and f then sees single values)")
    ask(lambda v: jnp.stack([v, v]), jnp.float32(0.5), "lambda v: jnp.stack([v, v]) at a 0-d x (an output of shape (2,))",
        ALL, "grad of f(v).sum() for every x, 0-d too: jax.grad(f) itself needs a scalar output")
    ask(jnp.sin, jnp.float16(1.0), "jnp.sin at jnp.float16(1.0), a 0-d float16 x", ALL,
        "build the tangent from x, jnp.ones_like(x), whatever its shape: the Python number 1.0 is a float32 tangent")
    ask(rules["eager_double"], x3, "eager_double (as in section 7: no abstract evaluation)",
        {"jit": False, "jvp": True, "grad": False, "vmap": False},
        "try jvp as jax.jvp(f, (x,), (jnp.ones_like(x),)): jax.linearize, like grad, traces the tangent part and needs "
        "the abstract evaluation that jvp does not")
    ask(lambda v: (jnp.sin(v), jnp.cos(v)), x3, "lambda v: (jnp.sin(v), jnp.cos(v)), an f that returns a pair",
        {"jit": True, "jvp": True, "grad": False, "vmap": True},
        "f returns a tuple: try jvp on f itself (jax.jvp takes it), grad sums f(v) (a tuple has no .sum()), and wait for "
        "jit's result with jax.block_until_ready(out) (a tuple has no .block_until_ready() method)")
    ask(lambda v: (jnp.sin(v), jnp.sum(v)), x3, "lambda v: (jnp.sin(v), jnp.sum(v)), a pair of different shapes",
        {"jit": True, "jvp": True, "grad": False, "vmap": True},
        "wait for jit's result with jax.block_until_ready, which takes any pytree: np.asarray of a pair of different "
        "shapes raises after the program ran")
    first = works(what_works, jnp.sin, x3, "what_works(jnp.sin, x3)")
    works(what_works, rules["cube"], x3, "what_works(cube, x3)")
    checks.equal(first, ALL, what="the dict what_works(jnp.sin, x3) returned, read again after a call what_works(cube, x3)",
                 hint="each call must return a dict of its own (a default argument {} is shared by every call)")
