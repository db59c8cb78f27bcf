"""Self-checks of chapter 07, "MLIR lowering rules": what each exercise's self-check cell runs (see `grader.selfchecks`).

The checks look at a primitive from four sides: its values eagerly and under `jit`, the StableHLO ops of its
lowered module (on this machine and lowered for other platforms), JAX's rule tables (`mlir._lowerings` and
`mlir._platform_specific_lowerings`, chapter 05), and what its `impl` runs: traced with `jax.make_jaxpr`, and
how often each of its lowering rules runs during an eager call once `jax.clear_caches()` has emptied JAX's
caches of compiled programs (section 6).
"""

from __future__ import annotations

import re
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax.core import ShapedArray
from jax.extend.core import Primitive
from jax.interpreters import mlir, xla

from grader.notebook import checks, watch
from grader.selfchecks import primitive_names

# ---- helpers shared by the exercises -------------------------------------------------------------------------


def op_names(text: str | None) -> list[str]:
    """The distinct StableHLO op names in a lowered module's text, sorted (names may hold digits: atan2)."""
    return sorted(set(re.findall(r"stablehlo\.[A-Za-z_0-9]+", text or "")))


primitives = primitive_names  # the names of the primitives a jaxpr runs, nested jaxprs included


def probe_primitive(name: str) -> Primitive:
    """A new primitive whose output has the shape and dtype of its first operand (section 1's helper)."""
    prim = Primitive(name)
    prim.def_abstract_eval(lambda x, *others, **params: ShapedArray(x.shape, x.dtype))
    return prim


def numbers(a):
    """NumPy values to compare (None stays None); bfloat16, which the checks cannot compare, as float32."""
    if a is None:
        return None
    return np.asarray(a, np.float32) if a.dtype == jnp.bfloat16 else np.asarray(a)


def run(what: str, thunk, hint: str | None = None):
    """thunk()'s result, waited for; or None after a failed check saying what it raised."""
    return checks.runs(lambda: jax.block_until_ready(thunk()), what=what, hint=hint)


def dtype_of(a) -> str | None:
    return None if a is None else str(a.dtype)


def rule_runs(prim, call) -> list[int]:
    """How often each of `prim`'s lowering rules ran while `call()` ran, JAX's caches of compiled programs emptied
    first (so that the call must lower again): [its generic rule, its rule for 'cpu'] (0 for a rule it lacks).

    Each rule is wrapped, for the call only, by a function that counts its calls and then calls it."""
    tables = (mlir._lowerings, mlir._platform_specific_lowerings["cpu"])
    counts, entries = [0, 0], [table.get(prim) for table in tables]

    def counting(index, rule):
        def counted(ctx, *args, **params):
            counts[index] += 1
            return rule(ctx, *args, **params)
        return counted

    for index, (table, entry) in enumerate(zip(tables, entries)):
        if entry is not None:
            table[prim] = type(entry)(counting(index, entry.rule), entry.inline)
    try:
        jax.clear_caches()
        jax.block_until_ready(call())
    except Exception:
        pass  # an impl that raises is reported by the checks that call it
    finally:
        for table, entry in zip(tables, entries):
            if entry is not None:
                table[prim] = entry
        jax.clear_caches()  # nothing compiled with a counting rule stays in a cache
    return counts


def impl_runs_lowering(prim, name: str, cases: list, how: str) -> None:
    """Two checks that `prim`'s impl goes through its lowering: traced on each case (v, params, label), it is a `jit`
    holding `prim` alone, whatever the shape, dtype or parameters; and an eager call on the first case runs one of
    its lowering rules again, after a first one and the caches emptied (a compiled program the impl keeps itself would
    not lower again)."""
    routes = {}
    for v, params, label in cases:
        traced = run(f"jax.make_jaxpr of {name}'s impl on {label}",
                     lambda: primitives(jax.make_jaxpr(lambda u: prim.impl(u, **params))(v).jaxpr),
                     hint=f"the impl must accept tracers: partial(xla.apply_primitive, {name}) compiles and runs the lowering")
        if traced is not None and traced != ["jit", prim.name]:
            routes[label] = traced
    checks.equal(routes, {}, what=f"the cases on which {name}'s impl, traced, runs more than a jit of {name} alone: "
                                  f"{{case: the primitives it runs}}, of {', '.join(label for _, _, label in cases)}",
                 hint=f"the impl must not {how} by itself (jnp, lax or NumPy), for any shape, dtype or parameters: "
                      f"def_impl(partial(xla.apply_primitive, {name})) compiles {name} alone, through your lowering")
    v, params, label = cases[0]
    call = f"{name}.bind({label}{''.join(f', {k}={p}' for k, p in params.items())})"
    run(f"an eager {call}", lambda: jax.block_until_ready(prim.bind(v, **params)))
    checks.equal(sum(rule_runs(prim, lambda: prim.bind(v, **params))) > 0, True,
                 what=f"whether your lowering rule ran during a second eager {call}, after jax.clear_caches()",
                 hint=f"an eager call runs the impl: def_impl(partial(xla.apply_primitive, {name})) makes it compile "
                      "and run your lowering rule, again once JAX's caches are emptied (keep no compiled program of "
                      "your own)")


def lowered(what: str, fn, *args, platforms=None, hint: str | None = None) -> str | None:
    """The text of `jax.jit(fn)` lowered for `args` (for `platforms`, when given), or None after a failed check."""
    if platforms is None:
        return run(what, lambda: jax.jit(fn).lower(*args).as_text(), hint=hint)
    return run(what, lambda: jax.jit(fn).trace(*args).lower(lowering_platforms=platforms).as_text(), hint=hint)


EVERY_PLATFORM = "register the rule without platform=: one rule then serves every platform"


def registered_for_every_platform(prim, name: str) -> None:
    checks.equal(prim in mlir._lowerings, True,
                 what=f"whether {name}'s rule is in mlir's table of rules for every platform (mlir._lowerings)",
                 hint=EVERY_PLATFORM + " (a rule registered for a list of platforms misses the others)")


# ---- Exercise 1 ----------------------------------------------------------------------------------------------

CLIP_BOUNDS_HINT = ("hlo.clamp(lo, operand, hi) takes the bounds first and last, each a constant of x's dtype: "
                    "np.array(lo, ctx.avals_out[0].dtype)")


def clip_name(clip_p, v, lo, hi, label: str) -> None:
    """clip_p is one primitive named "clip" in a jaxpr."""
    names = run(f"jax.make_jaxpr of clip_p.bind({label}, lo={lo}, hi={hi})",
                lambda: primitives(jax.make_jaxpr(lambda u: clip_p.bind(u, lo=lo, hi=hi))(v).jaxpr))
    checks.equal(names, ["clip"], what=f"the primitives in the jaxpr of clip_p.bind({label}, lo={lo}, hi={hi})",
                 hint='clip_p is one primitive named "clip": elementwise_primitive("clip")')


def clip_case(clip_p, v, lo, hi, label: str) -> None:
    """clip_p.bind(v, lo=lo, hi=hi) eagerly and under jit: jax.Arrays of v's dtype, jnp.clip's values; its lowered
    module holds constants and one stablehlo.clamp."""
    def clip(u, lo, hi):
        return clip_p.bind(u, lo=lo, hi=hi)

    call = f"clip_p.bind({label}, lo={lo}, hi={hi})"
    eager = run(f"eager {call}", lambda: clip(v, lo, hi), hint=CLIP_BOUNDS_HINT)
    jitted = run(f"jit of {call}", lambda: jax.jit(clip, static_argnums=(1, 2))(v, lo, hi), hint=CLIP_BOUNDS_HINT)
    checks.equal([isinstance(eager, jax.Array), isinstance(jitted, jax.Array)], [True, True],
                 what=f"whether the eager and jit results for {label} are jax.Arrays",
                 hint="the impl should go through the lowering: partial(xla.apply_primitive, clip_p)")
    checks.equal([dtype_of(eager), dtype_of(jitted)], [str(v.dtype), str(v.dtype)],
                 what=f"dtypes of eager and jit results for {label}")
    checks.close(numbers(eager), numbers(jnp.clip(v, lo, hi)), what=f"eager {call}",
                 hint="the impl runs your lowering (partial(xla.apply_primitive, clip_p)), whose rule must use this "
                      "call's lo and hi, in the order hlo.clamp(lo, operand, hi)")
    checks.close(numbers(jitted), numbers(jnp.clip(v, lo, hi)), what=f"jit of {call}",
                 hint="the rule must read lo and hi on every call: a new pair of bounds is a new lowering")
    text = lowered(f"lowering {call}", partial(clip, lo=lo, hi=hi), v, hint=CLIP_BOUNDS_HINT)
    checks.equal(op_names(text), ["stablehlo.clamp", "stablehlo.constant"], what=f"StableHLO ops lowered for {label}",
                 hint="write the rule by hand: hlo.clamp(lo_constant, operand, hi_constant), with scalar constants "
                      "(mlir.lower_fun of jnp.clip or lax.clamp adds broadcasts)")
    checks.equal((text or "").count("stablehlo.clamp"), 1, what=f"number of stablehlo.clamp ops for {label}")


def exercise1(clip_p) -> None:
    """clip_p ("clip") clamps eagerly and under jit with the bounds of each call, on float and integer x (0-d and
    empty included), lowered to one stablehlo.clamp by a rule registered for every platform; its impl runs that rule."""
    x = jnp.linspace(-2.0, 2.0, 9)
    clip_name(clip_p, x, -1.0, 1.5, "linspace(-2, 2, 9)")
    impl_runs_lowering(clip_p, "clip_p", [
        (x, {"lo": -1.0, "hi": 1.5}, "linspace(-2, 2, 9)"),
        (jnp.float32(-3.5), {"lo": -1.0, "hi": 1.0}, "the 0-d float32 -3.5"),
        (jnp.array([[-3.0, 0.25], [0.75, 9.0]], jnp.bfloat16), {"lo": 0.0, "hi": 0.5}, "a bfloat16 matrix"),
        (jnp.array([-4, 0, 7], jnp.int32), {"lo": -2, "hi": 3}, "the int32 vector [-4, 0, 7]"),
        (jnp.zeros((0,), jnp.int32), {"lo": -2, "hi": 3}, "an empty int32 vector"),
        (x, {"lo": 1.0, "hi": -1.0}, "linspace(-2, 2, 9) with lo=1 above hi=-1")], "clamp")
    clip_case(clip_p, x, -1.0, 1.5, "linspace(-2, 2, 9)")
    clip_case(clip_p, x, -0.5, 0.25, "linspace(-2, 2, 9)")
    clip_case(clip_p, x, -1.0, 0.25, "linspace(-2, 2, 9), the first lo with a new hi")
    clip_case(clip_p, jnp.array([-4, 0, 7], jnp.int32), -2, 3, "the int32 vector [-4, 0, 7]")
    clip_case(clip_p, jnp.array([-3.0, 0.25, 2.0], jnp.float16), -1.0, 1.0, "the float16 vector [-3, 0.25, 2]")
    clip_case(clip_p, jnp.array([[-3.0, 0.25], [0.75, 9.0]], jnp.bfloat16), 0.0, 0.5, "a bfloat16 matrix")
    clip_case(clip_p, jnp.array([-9, 0, 9], jnp.int16), -5, 4, "the int16 vector [-9, 0, 9]")
    clip_case(clip_p, jnp.float32(-3.5), -1.0, 1.0, "the 0-d float32 -3.5")
    clip_case(clip_p, jnp.zeros((0,), jnp.int32), -2, 3, "an empty int32 vector")
    v4 = jnp.array([0, 2, 4, 6], jnp.int32)
    checks.close(run("clip_p.bind([0, 2, 4, 6], hi=3, lo=1)", lambda: clip_p.bind(v4, hi=3, lo=1)),
                 np.array([1, 2, 3, 3], np.int32), what="clip_p.bind([0, 2, 4, 6], hi=3, lo=1), the keywords in the other order",
                 hint="take lo and hi by name (def rule(ctx, operand, *, lo, hi)), not by their order")
    checks.close(run("jit of clip_p.bind([0, 2, 4, 6], lo=3, hi=1)", lambda: jax.jit(partial(clip_p.bind, lo=3, hi=1))(v4)),
                 np.array([1, 1, 1, 1], np.int32),
                 what="jit of clip_p.bind([0, 2, 4, 6], lo=3, hi=1): lo above hi (hi everywhere, as jnp.clip)",
                 hint="pass lo and hi to hlo.clamp as they are: no min/max to reorder them")
    checks.equal({f"lo={lo}, hi={hi}": op_names(lowered(f"lowering clip_p.bind([0, 2, 4, 6], lo={lo}, hi={hi})",
                                                          partial(clip_p.bind, lo=lo, hi=hi), v4))
                  for lo, hi in ((3, 1), (2, 2))},
                 dict.fromkeys(("lo=3, hi=1", "lo=2, hi=2"), ["stablehlo.clamp", "stablehlo.constant"]),
                 what="the StableHLO ops lowered for lo above hi and for lo equal to hi",
                 hint="one rule for every pair of bounds: hlo.clamp of the two constants and x, also when lo is above or "
                      "equal to hi")
    mixed = run("clip_p.bind(jnp.arange(5), lo=0.5, hi=3.0), an int32 x with float bounds",
                lambda: clip_p.bind(jnp.arange(5, dtype=jnp.int32), lo=0.5, hi=3.0))
    checks.equal(None if mixed is None else [str(mixed.dtype), np.asarray(mixed).tolist()], ["int32", [0, 1, 2, 3, 3]],
                 what="clip_p.bind(jnp.arange(5), lo=0.5, hi=3.0): [its dtype, its values] (bounds made int32: 0 and 3)",
                 hint="the result keeps x's dtype, in the abstract evaluation too (no result_type with the bounds), and "
                      "each bound becomes a constant of x's dtype: np.array(0.5, np.int32) is 0")
    big = jnp.array([16777210, 16777219, -5], jnp.int32)
    checks.close(run("clip_p.bind(int32 [16777210, 16777219, -5], lo=0, hi=16777217)",
                     lambda: clip_p.bind(big, lo=0, hi=16777217)),
                 np.array([16777210, 16777217, 0], np.int32), what="clip_p.bind(int32 [16777210, 16777219, -5], lo=0, hi=16777217)",
                 hint="make each bound a constant of x's dtype directly, np.array(hi, dtype): through float32, 16777217 "
                      "becomes 16777216")
    tpu_text = lowered("lowering clip_p.bind([0, 2, 4, 6], lo=1, hi=3) for 'tpu'", partial(clip_p.bind, lo=1, hi=3), v4,
                       platforms=("tpu",), hint=EVERY_PLATFORM)
    checks.equal(op_names(tpu_text), ["stablehlo.clamp", "stablehlo.constant"], what="StableHLO ops lowered for 'tpu'",
                 hint=EVERY_PLATFORM)
    registered_for_every_platform(clip_p, "clip_p")


# ---- Exercise 2 ----------------------------------------------------------------------------------------------

ROUND_DTYPE_HINT = "the abstract evaluation must keep x's dtype: elementwise_primitive does"


def away_from_zero(v) -> np.ndarray:
    """Halves rounded away from zero, computed in float64 and given back in v's dtype (as float32 for bfloat16)."""
    wide = np.asarray(v, np.float64)
    return numbers(np.copysign(np.floor(np.abs(wide) + 0.5), wide).astype(v.dtype))


def round_name(round_afz_p, v, label: str) -> None:
    names = run(f"jax.make_jaxpr of round_afz_p.bind({label})",
                lambda: primitives(jax.make_jaxpr(round_afz_p.bind)(v).jaxpr))
    checks.equal(names, ["round_afz"], what=f"the primitives in the jaxpr of round_afz_p.bind({label})",
                 hint='round_afz_p is one primitive named "round_afz": elementwise_primitive("round_afz")')


def round_case(round_afz_p, v, label: str) -> None:
    """round_afz_p.bind(v) eagerly and under jit: jax.Arrays of v's dtype, halves away from zero, exactly; its lowered
    module holds one op, stablehlo.round_nearest_afz."""
    eager = run(f"eager round_afz_p.bind({label})", lambda: round_afz_p.bind(v), hint=ROUND_DTYPE_HINT)
    jitted = run(f"jit of round_afz_p.bind({label})", lambda: jax.jit(round_afz_p.bind)(v), hint=ROUND_DTYPE_HINT)
    checks.equal([isinstance(eager, jax.Array), isinstance(jitted, jax.Array)], [True, True],
                 what=f"whether the eager and jit results for {label} are jax.Arrays",
                 hint="an eager call runs the impl: make it run the lowering with partial(xla.apply_primitive, round_afz_p)")
    checks.equal([dtype_of(eager), dtype_of(jitted)], [str(v.dtype), str(v.dtype)], what=f"dtypes of eager and jit results for {label}")
    checks.close(numbers(eager), away_from_zero(v), what=f"eager round_afz_p.bind({label})", atol=0, rtol=0,
                 hint="an eager call runs the impl: make it run the lowering with partial(xla.apply_primitive, round_afz_p)")
    checks.close(numbers(jitted), away_from_zero(v), what=f"jit of round_afz_p.bind({label})", atol=0, rtol=0)
    checks.equal(op_names(lowered(f"lowering round_afz_p.bind({label})", round_afz_p.bind, v)),
                 ["stablehlo.round_nearest_afz"], what=f"StableHLO ops lowered for {label}",
                 hint="emit hlo.round_nearest_afz(operand) and nothing else")


def exercise2(round_afz_p) -> None:
    """round_afz_p ("round_afz") rounds halves away from zero, the same eagerly and under jit, on float32, float16
    and bfloat16 (0-d and empty included), lowered to one stablehlo.round_nearest_afz by a rule registered for
    every platform; its impl runs that rule."""
    halves = jnp.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5], jnp.float32)
    label = "[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5]"
    round_name(round_afz_p, halves, label)
    impl_runs_lowering(round_afz_p, "round_afz_p", [
        (halves, {}, label), (halves.astype(jnp.float16), {}, "the float16 halves"),
        (jnp.array([[0.5, 1.5], [-2.5, 3.25]], jnp.bfloat16), {}, "a bfloat16 matrix"),
        (jnp.float32(-4.5), {}, "the 0-d float32 -4.5"), (jnp.zeros((0, 3), jnp.float32), {}, "an empty (0, 3) array")],
        "convert or round")
    rounded = np.array([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0], np.float32)
    checks.close(run(f"eager round_afz_p.bind({label})", lambda: round_afz_p.bind(halves)), rounded,
                 what=f"eager round_afz_p.bind({label})", atol=0, rtol=0,
                 hint="an eager call runs the impl: make it run the lowering with partial(xla.apply_primitive, round_afz_p)")
    checks.close(run(f"jit of round_afz_p.bind({label})", lambda: jax.jit(round_afz_p.bind)(halves)), rounded,
                 what=f"jit of round_afz_p.bind({label})", atol=0, rtol=0)
    checks.equal(op_names(lowered(f"lowering round_afz_p.bind({label})", round_afz_p.bind, halves)),
                 ["stablehlo.round_nearest_afz"], what="StableHLO ops lowered for round_afz_p",
                 hint="emit hlo.round_nearest_afz(operand) and nothing else")
    round_case(round_afz_p, jnp.array([0.49999997, -0.49999997, 8388609.0, -1e30, -0.25, 1000000.5], jnp.float32),
               "float32 [0.49999997, -0.49999997, 8388609, -1e30, -0.25, 1000000.5]")
    round_case(round_afz_p, jnp.array([[0.5, 1.5], [-2.5, 3.25]], jnp.bfloat16), "the bfloat16 matrix [[0.5, 1.5], [-2.5, 3.25]]")
    round_case(round_afz_p, jnp.array([2.5, -3.5, 0.4998, 1000.5], jnp.float16), "the float16 vector [2.5, -3.5, 0.4998, 1000.5]")
    round_case(round_afz_p, jnp.float32(-4.5), "the 0-d float32 -4.5")
    round_case(round_afz_p, jnp.zeros((0, 3), jnp.float32), "an empty (0, 3) float32 array")
    checks.equal(op_names(lowered("lowering round_afz_p.bind for 'tpu'", round_afz_p.bind, halves, platforms=("tpu",),
                                  hint=EVERY_PLATFORM)),
                 ["stablehlo.round_nearest_afz"], what="StableHLO ops lowered for 'tpu'", hint=EVERY_PLATFORM)
    registered_for_every_platform(round_afz_p, "round_afz_p")


# ---- Exercise 3 ----------------------------------------------------------------------------------------------

GENERIC_ABS_OPS = ["stablehlo.broadcast_in_dim", "stablehlo.compare", "stablehlo.constant", "stablehlo.negate",
                   "stablehlo.select"]


def abs_name(abs_p, v, label: str) -> None:
    names = run(f"jax.make_jaxpr of abs_p.bind({label})", lambda: primitives(jax.make_jaxpr(abs_p.bind)(v).jaxpr))
    checks.equal(names, ["my_abs"], what=f"the primitives in the jaxpr of abs_p.bind({label})",
                 hint='abs_p is one primitive named "my_abs": elementwise_primitive("my_abs")')


def abs_impl(abs_p, cases: list) -> None:
    """abs_p's impl is a jit of abs_p alone on each case (v, label), and a second eager call on the first, on this
    machine, after the caches were emptied, runs the CPU rule, not the generic one."""
    routes = {}
    for v, label in cases:
        traced = run(f"jax.make_jaxpr of abs_p's impl on {label}", lambda: primitives(jax.make_jaxpr(abs_p.impl)(v).jaxpr),
                     hint="the impl must accept tracers: partial(xla.apply_primitive, abs_p) compiles and runs the lowering")
        if traced is not None and traced != ["jit", "my_abs"]:
            routes[label] = traced
    checks.equal(routes, {}, what="the cases on which abs_p's impl, traced, runs more than a jit of abs_p alone: "
                                  f"{{case: the primitives it runs}}, of {', '.join(label for _, label in cases)}",
                 hint="the impl must not compute |v| by itself (jnp.abs, np.abs), for any shape or dtype: "
                      "def_impl(partial(xla.apply_primitive, abs_p)) compiles abs_p alone, through the CPU rule here")
    v, label = cases[0]
    run(f"an eager abs_p.bind({label})", lambda: abs_p.bind(v))
    ran = rule_runs(abs_p, lambda: abs_p.bind(v))
    checks.equal([ran[1] > 0, ran[0] > 0], [True, False],
                 what=f"[whether the CPU rule ran, whether the generic rule ran] during a second eager abs_p.bind({label}), "
                      "after jax.clear_caches()",
                 hint="on the CPU, the rule registered with platform='cpu' wins; make the impl run the lowering with "
                      "partial(xla.apply_primitive, abs_p), again once JAX's caches are emptied (keep no compiled program "
                      "of your own)")


def abs_case(abs_p, v, label: str) -> None:
    """abs_p.bind(v) eagerly and under jit: jax.Arrays of v's dtype, |v|; lowered on the CPU, one stablehlo.abs."""
    hint = "the abstract evaluation must keep x's dtype (elementwise_primitive does), for integers too"
    eager = run(f"eager abs_p.bind({label})", lambda: abs_p.bind(v), hint=hint)
    jitted = run(f"jit of abs_p.bind({label})", lambda: jax.jit(abs_p.bind)(v), hint=hint)
    checks.equal([isinstance(eager, jax.Array), isinstance(jitted, jax.Array)], [True, True],
                 what=f"whether the eager and jit results for {label} are jax.Arrays",
                 hint="an eager call runs the impl: make it run the lowering with partial(xla.apply_primitive, abs_p)")
    checks.equal([dtype_of(eager), dtype_of(jitted)], [str(v.dtype), str(v.dtype)], what=f"dtypes of eager and jit results for {label}")
    checks.close(numbers(eager), numbers(jnp.abs(v)), what=f"eager abs_p.bind({label})")
    checks.close(numbers(jitted), numbers(jnp.abs(v)), what=f"jit of abs_p.bind({label})")
    checks.equal(op_names(lowered(f"lowering abs_p.bind({label})", abs_p.bind, v)), ["stablehlo.abs"],
                 what=f"StableHLO ops lowered on the CPU for {label}",
                 hint="register the hand-written hlo.abs rule with platform='cpu'")


def abs_platform_ops(abs_p, v, platforms) -> list[str]:
    """The StableHLO ops of abs_p.bind(v) lowered for `platforms`."""
    return op_names(lowered(f"lowering abs_p.bind for {platforms}", abs_p.bind, v, platforms=platforms,
                            hint="register the generic rule without platform= (it then serves every platform without a "
                                 "rule of its own)"))


def _lowers_probe(rule) -> None:
    """Lower a new primitive that has `rule` as its CPU rule (and no other), for the CPU, on a float32 vector; a rule
    that fails to lower is reported by the checks that lower abs_p itself."""
    probe = probe_primitive("abs_rule_check")
    mlir.register_lowering(probe, rule, platform="cpu")
    try:
        jax.jit(probe.bind).trace(jnp.zeros(3, jnp.float32)).lower(lowering_platforms=("cpu",))
    except Exception:
        pass
    finally:
        # The probe goes, so that a second run of these checks does not find abs_p's rule under another primitive.
        mlir._platform_specific_lowerings["cpu"].pop(probe, None)


def traces_a_function(rule) -> bool:
    """Whether lowering with `rule` traces a function the way `mlir.lower_fun` does, however the call is wrapped:
    JAX's tracing is watched while a new primitive with that rule lowers."""
    from jax._src.interpreters import partial_eval as pe

    traced_for, original = [], pe.trace_to_jaxpr

    def watching(fun, in_avals, debug_info, *args, **kwargs):
        traced_for.append(getattr(debug_info, "traced_for", None))
        return original(fun, in_avals, debug_info, *args, **kwargs)

    pe.trace_to_jaxpr = watching
    try:
        _lowers_probe(rule)
    finally:
        pe.trace_to_jaxpr = original
    return "lower_fun" in traced_for


def runs_lax_abs_rule(rule) -> bool:
    """Whether lowering with `rule` runs lax's own lowering rule for abs, however it is reached (a function of the
    answer's own that calls it, a rule kept in a variable), or the helper that rule calls, lax's `_nary_lower_hlo`
    (with hlo.abs bound in, it is lax's rule for real numbers): the starts of both are watched while a new primitive
    with that rule lowers."""
    from jax._src.lax import lax as lax_internals

    lax_rule = mlir._lowerings[jax.lax.abs_p].rule
    helper = lax_internals._nary_lower_hlo
    started = []

    def on_call(caller, fn):
        if caller is None and (fn is lax_rule or fn is helper):
            started.append(1)

    with watch.calls(on_call, starts_of=lax_rule), watch.calls(on_call, starts_of=helper):
        _lowers_probe(rule)
    return bool(started)


def _by_lower_fun(entry) -> bool:
    return entry is not None and ("lower_fun" in getattr(entry.rule, "__qualname__", "") or traces_a_function(entry.rule))


def abs_rules(abs_p) -> None:
    """Where abs_p's two rules are registered, and how each was made."""
    generic = mlir._lowerings.get(abs_p)
    cpu = mlir._platform_specific_lowerings["cpu"].get(abs_p)
    checks.equal(generic is not None, True, what="whether abs_p has a generic rule (registered without platform=)",
                 hint="register the lower_fun rule without platform=: one rule for every platform that has none of its own")
    checks.equal(_by_lower_fun(generic), True, what="whether abs_p's generic rule is made by mlir.lower_fun",
                 hint="the generic rule is mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False)")
    checks.equal(cpu is not None, True, what="whether abs_p has a rule registered with platform='cpu'",
                 hint="register the hand-written rule with platform='cpu'")
    others = {id(e.rule) for table in (mlir._lowerings, *mlir._platform_specific_lowerings.values())
              for prim, e in table.items() if prim is not abs_p}
    by_hand = cpu is not None and not _by_lower_fun(cpu) and id(cpu.rule) not in others and not runs_lax_abs_rule(cpu.rule)
    checks.equal(by_hand, True,
                 what="whether abs_p's CPU rule is written by hand (not made by mlir.lower_fun, not another primitive's "
                      "rule, not running lax's rule for abs)",
                 hint="for platform='cpu', write a rule function yourself with hlo (lambda ctx, operand: [hlo.abs(operand)]): "
                      "not mlir.lower_fun of jnp.abs or lax.abs (called directly or from your own function), nor lax's own abs rule")


def generic_values(abs_p, v):
    """What abs_p's generic rule (the one every platform without a rule of its own gets) computes for v, run on the
    CPU: through a new primitive that has that rule as its only lowering."""
    probe = probe_primitive("abs_generic_rule_check")
    probe.def_impl(partial(xla.apply_primitive, probe))
    mlir.register_lowering(probe, mlir._lowerings[abs_p].rule)
    try:
        return jax.block_until_ready(jax.jit(probe.bind)(v))
    finally:
        mlir._lowerings.pop(probe, None)


def exercise3(abs_p) -> None:
    """abs_p ("my_abs") has a generic rule made by mlir.lower_fun of the jnp.where expression, and a hand-written CPU
    rule emitting one stablehlo.abs, which wins on this machine, eagerly and under jit; the generic rule serves the
    other platforms (both rules in a stablehlo.case for several); float and integer x."""
    x3 = jnp.array([-1.5, 0.0, 2.0, -3.0], jnp.float32)
    abs_rules(abs_p)
    abs_name(abs_p, x3, "[-1.5, 0, 2, -3]")
    abs_impl(abs_p, [(x3, "[-1.5, 0, 2, -3]"), (jnp.arange(-3, 3, dtype=jnp.int32).reshape(2, 3), "an int32 matrix"),
                     (jnp.float16(-2.5), "the 0-d float16 -2.5"), (jnp.zeros((0, 2), jnp.int8), "an empty (0, 2) int8 array")])
    abs_case(abs_p, x3, "[-1.5, 0, 2, -3]")
    abs_case(abs_p, jnp.arange(-3, 3, dtype=jnp.int32).reshape(2, 3), "the int32 matrix [[-3, -2, -1], [0, 1, 2]]")
    abs_case(abs_p, jnp.float16(-2.5), "the 0-d float16 -2.5")
    abs_case(abs_p, jnp.zeros((0, 2), jnp.int8), "an empty (0, 2) int8 array")
    for platform in ("tpu", "cuda", "rocm"):
        checks.equal(abs_platform_ops(abs_p, x3, (platform,)), GENERIC_ABS_OPS, what=f"StableHLO ops lowered for {platform!r}",
                     hint="the generic rule (no platform=) is mlir.lower_fun of the jnp.where expression; only 'cpu' gets hlo.abs")
    ints = jnp.array([-2, 0, 5], jnp.int32)
    checks.equal(abs_platform_ops(abs_p, ints, ("cuda",)), GENERIC_ABS_OPS,
                 what="StableHLO ops lowered for 'cuda' on the int32 [-2, 0, 5]",
                 hint="exactly jnp.where(v < 0, -v, v): an integer 0, so an int32 x needs no conversion (a float 0.0 "
                      "adds converts)")
    both = abs_platform_ops(abs_p, x3, ("cpu", "tpu"))
    checks.equal([op for op in ("stablehlo.abs", "stablehlo.case", "stablehlo.select") if op in both],
                 ["stablehlo.abs", "stablehlo.case", "stablehlo.select"],
                 what="which of abs, case and select the module lowered for ('cpu', 'tpu') at once holds",
                 hint="register two rules (the CPU one with platform='cpu'): a rule that tests "
                      "ctx.module_context.platforms[0] sees only the first platform")
    signed = jnp.array([-1.5, -0.0, 0.0, 2.0, -np.inf, 3.0], jnp.float32)
    got = run("running abs_p's generic rule on the CPU", lambda: generic_values(abs_p, signed),
              hint="register the generic rule without platform=, made with mlir.lower_fun")
    checks.equal(None if got is None else [np.asarray(got).tolist(), np.signbit(got).tolist()],
                 [[1.5, -0.0, 0.0, 2.0, np.inf, 3.0], [False, True, False, False, False, False]],
                 what="what abs_p's generic rule gives for [-1.5, -0.0, 0.0, 2.0, -inf, 3.0]: [values, sign bits] "
                      "(-0.0 stays -0.0, as jnp.where(v < 0, -v, v) gives)",
                 hint="the generic rule is mlir.lower_fun of lambda v: jnp.where(v < 0, -v, v), exactly: its branches "
                      "in that order, and the comparison v < 0")
    nans = jnp.array([-np.nan, np.nan], jnp.float32)
    got = run("running abs_p's generic rule on [-nan, nan]", lambda: generic_values(abs_p, nans))
    checks.equal(None if got is None else [np.isnan(got).tolist(), np.signbit(got).tolist()], [[True, True], [True, False]],
                 what="what abs_p's generic rule gives for [-nan, nan]: [is NaN, sign bits] (v < 0 is False for a NaN, "
                      "so jnp.where(v < 0, -v, v) returns -nan as it is)",
                 hint="the comparison must be v < 0, as the text gives it: jnp.where(v >= 0, v, -v) negates a -nan into +nan")
