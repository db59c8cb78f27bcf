"""Wrong answers for 07_lowering (see tests/wrong_answers/__init__.py)."""

from wrong_answers import R, W

APPLIES = {'ex1_answer': 'bcdfgm', 'ex2_answer': 'cdfgm', 'ex3_answer': 'bcdfgm', 'quiz_answer': 'm'}

WRONG = {
    'ex1_answer': [
        W('c', "The bounds as float32 constants whatever x's dtype: right for float32, an MLIR verifier error (clamp needs one element type) for int32 or float16.",
          'def clip_rule(ctx, operand, *, lo, hi):\n'
          '    return [hlo.clamp(mlir.ir_constant(np.float32(lo)), operand, mlir.ir_constant(np.float32(hi)))]\n'
          '\n'
          "clip_p = elementwise_primitive('clip')\n"
          'clip_p.def_impl(partial(xla.apply_primitive, clip_p))\n'
          'mlir.register_lowering(clip_p, clip_rule)\n'),
        W('d', 'Lowers jnp.clip with lower_fun: right values, but maximum/minimum/broadcasts instead of one clamp.',
          "clip_p = elementwise_primitive('clip')\n"
          'clip_p.def_impl(partial(xla.apply_primitive, clip_p))\n'
          'mlir.register_lowering(clip_p, mlir.lower_fun(lambda v, lo, hi: jnp.clip(v, lo, hi), multiple_results=False))\n'),
        W('m', "The bounds in NumPy's default dtype for a Python number (float64 or int64), not x's: the verifier refuses the clamp.",
          'def clip_rule(ctx, operand, *, lo, hi):\n'
          '    return [hlo.clamp(mlir.ir_constant(np.array(lo)), operand, mlir.ir_constant(np.array(hi)))]\n'
          '\n'
          "clip_p = elementwise_primitive('clip')\n"
          'clip_p.def_impl(partial(xla.apply_primitive, clip_p))\n'
          'mlir.register_lowering(clip_p, clip_rule)\n'),
        W('c', "bound constants take the Python number's JAX dtype (f32 for a float, i32 for an int): lowering fails for int bounds on a float x, for bf16/int8 x, eager on an empty array",
          'def clip_rule(ctx, operand, *, lo, hi):\n'
          '    # jnp.asarray gives the bound its JAX dtype (float32 for a float, int32 for an int)\n'
          '    lo_c = mlir.ir_constant(np.asarray(jnp.asarray(lo)))\n'
          '    hi_c = mlir.ir_constant(np.asarray(jnp.asarray(hi)))\n'
          '    return [hlo.clamp(lo_c, operand, hi_c)]\n'
          '\n'
          'clip_p = elementwise_primitive("clip")\n'
          'clip_p.def_impl(partial(xla.apply_primitive, clip_p))\n'
          'mlir.register_lowering(clip_p, clip_rule)\n'),
        W('g', 'hard-codes float32/int32 constants (the dtypes of the usual first tests): clamp type mismatch for bfloat16, float16, int8 inputs',
          'def clip_rule(ctx, operand, *, lo, hi):\n'
          '    aval_out, = ctx.avals_out\n'
          '    dtype = np.float32 if jnp.issubdtype(aval_out.dtype, jnp.floating) else np.int32\n'
          '    return [hlo.clamp(mlir.ir_constant(np.array(lo, dtype)), operand, mlir.ir_constant(np.array(hi, dtype)))]\n'
          '\n'
          'clip_p = elementwise_primitive("clip")\n'
          'clip_p.def_impl(partial(xla.apply_primitive, clip_p))\n'
          'mlir.register_lowering(clip_p, clip_rule)\n'),
        W('b', "caches the bound constants per dtype: a second call with other lo/hi (same dtype) reuses the first call's bounds",
          '_bounds = {}   # the bound constants, made once per dtype\n'
          '\n'
          'def clip_rule(ctx, operand, *, lo, hi):\n'
          '    dtype = ctx.avals_out[0].dtype\n'
          '    if dtype not in _bounds:\n'
          '        _bounds[dtype] = (np.array(lo, dtype), np.array(hi, dtype))\n'
          '    lo_np, hi_np = _bounds[dtype]\n'
          '    return [hlo.clamp(mlir.ir_constant(lo_np), operand, mlir.ir_constant(hi_np))]\n'
          '\n'
          'clip_p = elementwise_primitive("clip")\n'
          'clip_p.def_impl(partial(xla.apply_primitive, clip_p))\n'
          'mlir.register_lowering(clip_p, clip_rule)\n'),
        W('d', 'lowers jnp.clip through mlir.lower_fun instead of a hand-written rule: module has maximum/minimum/broadcast/convert, no clamp; fails for float bounds on int x',
          'clip_p = elementwise_primitive("clip")\n'
          'clip_p.def_impl(partial(xla.apply_primitive, clip_p))\n'
          'mlir.register_lowering(clip_p, mlir.lower_fun(lambda v, *, lo, hi: jnp.clip(v, lo, hi), multiple_results=False))\n'),
        W('m', "broadcasts the bounds to the operand's shape first (section 4's lesson applied where clamp does not need it): module has broadcast_in_dim",
          'def clip_rule(ctx, operand, *, lo, hi):\n'
          '    aval_out, = ctx.avals_out\n'
          '    out_type = mlir.aval_to_ir_type(ctx.module_context, aval_out)\n'
          "    # StableHLO does not broadcast: spread each bound to the operand's shape first\n"
          '    lo_full = hlo.broadcast_in_dim(out_type, mlir.ir_constant(np.array(lo, aval_out.dtype)), mlir.dense_int_array([]))\n'
          '    hi_full = hlo.broadcast_in_dim(out_type, mlir.ir_constant(np.array(hi, aval_out.dtype)), mlir.dense_int_array([]))\n'
          '    return [hlo.clamp(lo_full, operand, hi_full)]\n'
          '\n'
          'clip_p = elementwise_primitive("clip")\n'
          'clip_p.def_impl(partial(xla.apply_primitive, clip_p))\n'
          'mlir.register_lowering(clip_p, clip_rule)\n'),
        W('m', "impl written separately with np.clip (the chapter's named trap): eager returns numpy arrays, bf16 becomes float32, int x with float bounds becomes float64",
          'def clip_rule(ctx, operand, *, lo, hi):\n'
          '    dtype = ctx.avals_out[0].dtype\n'
          '    return [hlo.clamp(mlir.ir_constant(np.array(lo, dtype)), operand, mlir.ir_constant(np.array(hi, dtype)))]\n'
          '\n'
          'clip_p = elementwise_primitive("clip")\n'
          'clip_p.def_impl(lambda x, *, lo, hi: np.clip(x, lo, hi))   # eager: NumPy does the same clamp\n'
          'mlir.register_lowering(clip_p, clip_rule)\n'),
        W('d', "The known case: the primitive is named 'clamp' and its impl is jnp.clip, a second implementation; every value agrees, but eager calls never run the lowering.",
          'def clip_rule(ctx, operand, *, lo, hi):\n'
          '    dtype = ctx.avals_out[0].dtype\n'
          '    return [hlo.clamp(mlir.ir_constant(np.array(lo, dtype)), operand, mlir.ir_constant(np.array(hi, dtype)))]\n'
          '\n'
          'clip_p = elementwise_primitive("clamp")\n'
          'clip_p.def_impl(lambda x, *, lo, hi: jnp.clip(x, lo, hi))\n'
          'mlir.register_lowering(clip_p, clip_rule)\n'),
        W('d', "The impl is jnp.clip with the bounds cast to x's dtype, a second implementation that agrees with the lowering: eager calls never run the lowering.",
          'def clip_rule(ctx, operand, *, lo, hi):\n'
          '    dtype = ctx.avals_out[0].dtype\n'
          '    return [hlo.clamp(mlir.ir_constant(np.array(lo, dtype)), operand, mlir.ir_constant(np.array(hi, dtype)))]\n'
          '\n'
          'clip_p = elementwise_primitive("clip")\n'
          'clip_p.def_impl(lambda x, *, lo, hi: jnp.clip(x, np.array(lo, x.dtype), np.array(hi, x.dtype)))\n'
          'mlir.register_lowering(clip_p, clip_rule)\n'),
        W('m', "Names the primitive after the StableHLO op, 'clamp', not 'clip' as asked: the jaxpr shows a clamp equation.",
          'def clip_rule(ctx, operand, *, lo, hi):\n'
          '    dtype = ctx.avals_out[0].dtype\n'
          '    return [hlo.clamp(mlir.ir_constant(np.array(lo, dtype)), operand, mlir.ir_constant(np.array(hi, dtype)))]\n'
          '\n'
          'clip_p = elementwise_primitive("clamp")\n'
          'clip_p.def_impl(partial(xla.apply_primitive, clip_p))\n'
          'mlir.register_lowering(clip_p, clip_rule)\n'),
        W('b', "impl caches one jitted program per shape and dtype, closed over the first bounds: a second pair of bounds on the same array gives the first pair's result eagerly",
          'def clip_rule(ctx, operand, *, lo, hi):\n'
          '    dtype = ctx.avals_out[0].dtype\n'
          '    return [hlo.clamp(mlir.ir_constant(np.array(lo, dtype)), operand, mlir.ir_constant(np.array(hi, dtype)))]\n'
          '\n'
          'clip_p = elementwise_primitive("clip")\n'
          '_compiled_clips = {}\n'
          '\n'
          'def _clip_impl(x, *, lo, hi):\n'
          '    # compile once per shape and dtype, through the lowering, and reuse it\n'
          '    key = (jnp.shape(x), jnp.result_type(x))\n'
          '    if key not in _compiled_clips:\n'
          '        _compiled_clips[key] = jax.jit(lambda v: clip_p.bind(v, lo=lo, hi=hi))\n'
          '    return _compiled_clips[key](x)\n'
          '\n'
          'clip_p.def_impl(_clip_impl)\n'
          'mlir.register_lowering(clip_p, clip_rule)\n'),
        W('d', 'hand rule copies relu_by_hand: broadcast_in_dim + maximum + minimum instead of one stablehlo.clamp',
          'def clip_rule(ctx, operand, *, lo, hi):\n'
          '    aval_out, = ctx.avals_out\n'
          '    out_type = mlir.aval_to_ir_type(ctx.module_context, aval_out)\n'
          '    lows = hlo.broadcast_in_dim(out_type, mlir.ir_constant(np.array(lo, aval_out.dtype)), mlir.dense_int_array([]))\n'
          '    highs = hlo.broadcast_in_dim(out_type, mlir.ir_constant(np.array(hi, aval_out.dtype)), mlir.dense_int_array([]))\n'
          '    return [hlo.minimum(hlo.maximum(operand, lows), highs)]\n'
          '\n'
          'clip_p = elementwise_primitive("clip")\n'
          'clip_p.def_impl(partial(xla.apply_primitive, clip_p))\n'
          'mlir.register_lowering(clip_p, clip_rule)\n'),
        W('d', 'rule made with mlir.lower_fun(lax.clamp) instead of by hand: the module gets broadcast_in_dim ops besides constant and clamp',
          'def _clip_math(v, *, lo, hi):\n'
          '    return jax.lax.clamp(jnp.asarray(lo, v.dtype), v, jnp.asarray(hi, v.dtype))   # one stablehlo.clamp\n'
          '\n'
          'clip_p = elementwise_primitive("clip")\n'
          'clip_p.def_impl(partial(xla.apply_primitive, clip_p))\n'
          'mlir.register_lowering(clip_p, mlir.lower_fun(_clip_math, multiple_results=False))\n'),
    ],
    'ex2_answer': [
        W('m', 'The lowering is right, but the impl is jnp.round, a second implementation that rounds halves to even.',
          "round_afz_p = elementwise_primitive('round_afz')\n"
          'round_afz_p.def_impl(jnp.round)\n'
          'mlir.register_lowering(round_afz_p, lambda ctx, operand: [hlo.round_nearest_afz(operand)])\n'),
        W('m', 'The impl goes through the lowering, but the rule emits the other rounding op (halves to even).',
          "round_afz_p = elementwise_primitive('round_afz')\n"
          'round_afz_p.def_impl(partial(xla.apply_primitive, round_afz_p))\n'
          'mlir.register_lowering(round_afz_p, lambda ctx, operand: [hlo.round_nearest_even(operand)])\n'),
        W('d', 'lowers a jnp formula sign(v)*floor(|v|+0.5) with lower_fun instead of one round_nearest_afz: extra ops, and 0.49999997 -> 1, 8388609 -> 8388610',
          'round_afz_p = elementwise_primitive("round_afz")\n'
          'round_afz_p.def_impl(partial(xla.apply_primitive, round_afz_p))\n'
          'mlir.register_lowering(round_afz_p, mlir.lower_fun(lambda v: jnp.sign(v) * jnp.floor(jnp.abs(v) + 0.5),\n'
          '                                                   multiple_results=False))\n'),
        W('m', "impl is a second NumPy implementation (the chapter's trap): eager gives ndarray, bf16 -> float32, and 0.49999997 -> 1 eagerly vs 0 under jit",
          'round_afz_p = elementwise_primitive("round_afz")\n'
          'round_afz_p.def_impl(lambda v: np.sign(v) * np.floor(np.abs(v) + 0.5))   # the same rounding, in NumPy\n'
          'mlir.register_lowering(round_afz_p, lambda ctx, operand: [hlo.round_nearest_afz(operand)])\n'),
        W('c', 'abstract eval says float32 whatever the input: fine for float32, lowering fails for bfloat16 and float16',
          'round_afz_p = Primitive("round_afz")\n'
          'round_afz_p.def_abstract_eval(lambda x: ShapedArray(x.shape, jnp.float32))\n'
          'round_afz_p.def_impl(partial(xla.apply_primitive, round_afz_p))\n'
          'mlir.register_lowering(round_afz_p, lambda ctx, operand: [hlo.round_nearest_afz(operand)])\n'),
        W('g', "jnp.round after nudging by sign*1e-4 (tuned on the text's halves): 0.49999997 -> 1, 1000000.5 -> 1000000, bf16 2.5 -> 2, and not one op",
          'round_afz_p = elementwise_primitive("round_afz")\n'
          'round_afz_p.def_impl(partial(xla.apply_primitive, round_afz_p))\n'
          '# nudge exact halves away from zero, then round to nearest\n'
          'mlir.register_lowering(round_afz_p, mlir.lower_fun(lambda v: jnp.round(v + jnp.sign(v) * 1e-4), multiple_results=False))\n'),
        W('d', 'The impl is lax.round with AWAY_FROM_ZERO, a second implementation that agrees: eager calls never run the lowering.',
          'round_afz_p = elementwise_primitive("round_afz")\n'
          'round_afz_p.def_impl(lambda v: jax.lax.round(v, jax.lax.RoundingMethod.AWAY_FROM_ZERO))\n'
          'mlir.register_lowering(round_afz_p, lambda ctx, operand: [hlo.round_nearest_afz(operand)])\n'),
        W('m', "Names the primitive 'round' (jnp's name), not 'round_afz' as asked.",
          'round_afz_p = elementwise_primitive("round")\n'
          'round_afz_p.def_impl(partial(xla.apply_primitive, round_afz_p))\n'
          'mlir.register_lowering(round_afz_p, lambda ctx, operand: [hlo.round_nearest_afz(operand)])\n'),
        W('d', 'a second implementation for eager calls, trunc(x + copysign(0.5, x)): agrees on 2.5 and -0.5 but gives 1 for 0.49999997 and 8388610 for 8388609 where jit does not',
          'round_afz_p = elementwise_primitive("round_afz")\n'
          '\n'
          'def _round_afz_impl(x):\n'
          '    x = jnp.asarray(x)\n'
          '    return jnp.trunc(x + jnp.copysign(jnp.asarray(0.5, x.dtype), x))     # add half away from zero, cut\n'
          '\n'
          'round_afz_p.def_impl(_round_afz_impl)\n'
          'mlir.register_lowering(round_afz_p, lambda ctx, operand: [hlo.round_nearest_afz(operand)])\n'),
        W('d', "impl is lax.round(..., AWAY_FROM_ZERO): same values, but eager calls do not go through the primitive's lowering (impl jaxpr shows round, not jit)",
          'round_afz_p = elementwise_primitive("round_afz")\n'
          '# eager: the same rounding mode, computed by lax (it lowers to the same stablehlo op)\n'
          'round_afz_p.def_impl(lambda x: jax.lax.round(x, jax.lax.RoundingMethod.AWAY_FROM_ZERO))\n'
          'mlir.register_lowering(round_afz_p, lambda ctx, operand: [hlo.round_nearest_afz(operand)])\n'),
    ],
    'ex3_answer': [
        W('m', 'Both rules registered without platform=: the hand-written one replaces the generic one everywhere.',
          "abs_p = elementwise_primitive('my_abs')\n"
          'abs_p.def_impl(partial(xla.apply_primitive, abs_p))\n'
          'mlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False))\n'
          'mlir.register_lowering(abs_p, lambda ctx, operand: [hlo.abs(operand)])\n'),
        W('m', "The platforms swapped: the hand-written rule is the generic one, the where-rule the CPU's.",
          "abs_p = elementwise_primitive('my_abs')\n"
          'abs_p.def_impl(partial(xla.apply_primitive, abs_p))\n'
          'mlir.register_lowering(abs_p, lambda ctx, operand: [hlo.abs(operand)])\n'
          "mlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False), platform='cpu')\n"),
        W('m', "generic rule registered with platform='gpu' (read 'for other platforms' as GPUs): no rule for TPU, lowering for tpu raises",
          'abs_p = elementwise_primitive("my_abs")\n'
          'abs_p.def_impl(partial(xla.apply_primitive, abs_p))\n'
          'mlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False), platform="gpu")\n'
          'mlir.register_lowering(abs_p, lambda ctx, operand: [hlo.abs(operand)], platform="cpu")\n'),
        W('g', "generic rule registered only for the two platforms the text names, 'tpu' and 'cuda': lowering for rocm finds no rule",
          'abs_p = elementwise_primitive("my_abs")\n'
          'abs_p.def_impl(partial(xla.apply_primitive, abs_p))\n'
          'generic_abs = mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False)\n'
          'for platform in ("tpu", "cuda"):                      # the non-CPU platforms\n'
          '    mlir.register_lowering(abs_p, generic_abs, platform=platform)\n'
          'mlir.register_lowering(abs_p, lambda ctx, operand: [hlo.abs(operand)], platform="cpu")\n'),
        W('b', "one generic rule that branches on ctx.module_context.platforms[0]: ignores ctx.platforms, so lowering for ('cpu','tpu') emits abs only, no case/select",
          'abs_p = elementwise_primitive("my_abs")\n'
          'abs_p.def_impl(partial(xla.apply_primitive, abs_p))\n'
          'generic_abs = mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False)\n'
          '\n'
          'def abs_rule(ctx, operand):\n'
          '    if ctx.module_context.platforms[0] == "cpu":      # on the CPU: one stablehlo.abs\n'
          '        return [hlo.abs(operand)]\n'
          '    return generic_abs(ctx, operand)                    # elsewhere: the jnp.where rule\n'
          '\n'
          'mlir.register_lowering(abs_p, abs_rule)\n'),
        W('c', 'abstract eval fixed to float32: int32, int8, float16 inputs fail to lower (eager and jit)',
          'abs_p = Primitive("my_abs")\n'
          'abs_p.def_abstract_eval(lambda x: ShapedArray(x.shape, jnp.float32))\n'
          'abs_p.def_impl(partial(xla.apply_primitive, abs_p))\n'
          'mlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False))\n'
          'mlir.register_lowering(abs_p, lambda ctx, operand: [hlo.abs(operand)], platform="cpu")\n'),
        W('d', 'impl is np.abs rather than the lowering: eager calls return NumPy arrays, not jax.Array',
          'abs_p = elementwise_primitive("my_abs")\n'
          'abs_p.def_impl(np.abs)                                 # eager: plain NumPy\n'
          'mlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False))\n'
          'mlir.register_lowering(abs_p, lambda ctx, operand: [hlo.abs(operand)], platform="cpu")\n'),
        W('d', 'hand-written CPU rule as max(v, -v) instead of a single stablehlo.abs: CPU module shows maximum and negate',
          'abs_p = elementwise_primitive("my_abs")\n'
          'abs_p.def_impl(partial(xla.apply_primitive, abs_p))\n'
          'mlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False))\n'
          'def abs_cpu_rule(ctx, operand):\n'
          '    return [hlo.maximum(operand, hlo.negate(operand))]   # |v| = max(v, -v)\n'
          'mlir.register_lowering(abs_p, abs_cpu_rule, platform="cpu")\n'),
        W('d', 'The impl is jnp.abs, a second implementation that agrees on every value: eager calls never run the lowering.',
          'abs_p = elementwise_primitive("my_abs")\n'
          'abs_p.def_impl(jnp.abs)\n'
          'mlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False))\n'
          'mlir.register_lowering(abs_p, lambda ctx, operand: [hlo.abs(operand)], platform="cpu")\n'),
        W('b', "the 'generic' rule registered for platform='tpu' only: right on cpu and tpu, lowering for cuda/rocm finds no rule",
          'abs_p = elementwise_primitive("my_abs")\n'
          'abs_p.def_impl(partial(xla.apply_primitive, abs_p))\n'
          'mlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False), platform="tpu")\n'
          'mlir.register_lowering(abs_p, lambda ctx, operand: [hlo.abs(operand)], platform="cpu")\n'),
        W('b', "one generic rule that picks by ctx.module_context.platforms[0]: right for each platform alone, but lowering for ('cpu', 'tpu') emits only abs, no case/select",
          '_generic_abs = mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False)\n'
          '\n'
          'def _abs_rule(ctx, operand):\n'
          '    if ctx.module_context.platforms[0] == "cpu":       # the platform this module is lowered for\n'
          '        return [hlo.abs(operand)]\n'
          '    return _generic_abs(ctx, operand)\n'
          '\n'
          'abs_p = elementwise_primitive("my_abs")\n'
          'abs_p.def_impl(partial(xla.apply_primitive, abs_p))\n'
          'mlir.register_lowering(abs_p, _abs_rule)\n'),
        W('d', "impl is the generic rule's jnp function itself, not apply_primitive: eager calls run jnp.where, not the CPU lowering",
          'def _abs_math(v):\n'
          '    return jnp.where(v < 0, -v, v)\n'
          '\n'
          'abs_p = elementwise_primitive("my_abs")\n'
          'abs_p.def_impl(_abs_math)                      # the same function as the generic rule: they cannot disagree\n'
          'mlir.register_lowering(abs_p, mlir.lower_fun(_abs_math, multiple_results=False))\n'
          'mlir.register_lowering(abs_p, lambda ctx, operand: [hlo.abs(operand)], platform="cpu")\n'),
        W('c', 'own abstract evaluation promotes the dtype to float: right for float32, int input fails to lower',
          'abs_p = Primitive("my_abs")\n'
          'abs_p.def_abstract_eval(lambda x: ShapedArray(x.shape, jnp.result_type(x.dtype, jnp.float32)))   # |x| of a number is a real\n'
          'abs_p.def_impl(partial(xla.apply_primitive, abs_p))\n'
          'mlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False))\n'
          'mlir.register_lowering(abs_p, lambda ctx, operand: [hlo.abs(operand)], platform="cpu")\n'),
    ],
    'quiz_answer': [
        W('m', 'q1=a: believes the last registration wins (section 5 says platform rules win whatever the order).',
          'q1 = "a"\n'
          'q2 = "a"\n'
          'q3 = "a"\n'
          'q4 = "b"\n'),
        W('m', 'q3=b: thinks lower_fun returns a compiled executable of f.',
          'q1 = "b"\n'
          'q2 = "a"\n'
          'q3 = "b"\n'
          'q4 = "b"\n'),
        W('m', "q2=b: takes apply_primitive's behaviour (section 6's fix) for the default, thinks bind always runs the lowering",
          'q1 = "b"\n'
          'q2 = "b"\n'
          'q3 = "a"\n'
          'q4 = "b"\n'),
        W('m', "q3=c: thinks lower_fun's function is called at run time (misses section 3's spy)",
          'q1 = "b"\n'
          'q2 = "a"\n'
          'q3 = "c"\n'
          'q4 = "b"\n'),
        W('m', 'q4=c: thinks xla_client only warns as deprecated (section 2 shows an ImportError)',
          'q1 = "b"\n'
          'q2 = "a"\n'
          'q3 = "a"\n'
          'q4 = "c"\n'),
    ],
}

# Round 3: written from the chapter's text alone (its test cells removed), before its checks were read;
# each passed every visible check, and some scored full marks, until the checks were made to catch them.
WRONG['ex1_answer'] += [
    W('c', 'integer bounds are always int32 constants: right for int32 and every float dtype, breaks for int8/int16/uint8',
      'clip_p = elementwise_primitive("clip")\n\ndef clip_lowering(ctx, operand, *, lo, hi):\n    aval_out, = ctx.avals_out\n    # integers are int32 in JAX by default; floats keep their own precision\n    dtype = aval_out.dtype if jnp.issubdtype(aval_out.dtype, jnp.floating) else np.int32\n    lo_c = mlir.ir_constant(np.array(lo, dtype))\n    hi_c = mlir.ir_constant(np.array(hi, dtype))\n    return [hlo.clamp(lo_c, operand, hi_c)]\n\nmlir.register_lowering(clip_p, clip_lowering)\nclip_p.def_impl(partial(xla.apply_primitive, clip_p))\n'),
]
WRONG['ex3_answer'] += [
    W('m', 'the "generic" rule is registered only for tpu, cuda and rocm by name; no rule for other platforms (oneapi...)',
      'abs_p = elementwise_primitive("my_abs")\ngeneric_rule = mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False)\nfor platform in ("tpu", "cuda", "rocm"):\n    mlir.register_lowering(abs_p, generic_rule, platform=platform)\nmlir.register_lowering(abs_p, lambda ctx, operand: [hlo.abs(operand)], platform="cpu")\nabs_p.def_impl(partial(xla.apply_primitive, abs_p))\n'),
    W('m', 'roles swapped: the hand-written abs is the generic rule, the jnp.where rule is registered per platform',
      'abs_p = elementwise_primitive("my_abs")\nmlir.register_lowering(abs_p, lambda ctx, operand: [hlo.abs(operand)])\nfor platform in ("tpu", "cuda", "rocm"):\n    mlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False), platform=platform)\nabs_p.def_impl(partial(xla.apply_primitive, abs_p))\n'),
    W('d', 'the cpu rule is mlir.lower_fun(jnp.abs), not written by hand (lowered text is identical)',
      'abs_p = elementwise_primitive("my_abs")\nmlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False))\nmlir.register_lowering(abs_p, mlir.lower_fun(jnp.abs, multiple_results=False), platform="cpu")\nabs_p.def_impl(partial(xla.apply_primitive, abs_p))\n'),
    W('m', 'generic rule registered with the deprecated "gpu" alias plus "tpu" instead of platform=None',
      'abs_p = elementwise_primitive("my_abs")\nfor platform in ("gpu", "tpu"):\n    mlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False), platform=platform)\nmlir.register_lowering(abs_p, lambda ctx, operand: [hlo.abs(operand)], platform="cpu")\nabs_p.def_impl(partial(xla.apply_primitive, abs_p))\n'),
    W('d', 'the cpu rule is mlir.lower_fun(jax.lax.abs), not written by hand',
      'abs_p = elementwise_primitive("my_abs")\nmlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False))\nmlir.register_lowering(abs_p, mlir.lower_fun(jax.lax.abs, multiple_results=False), platform="cpu")\nabs_p.def_impl(partial(xla.apply_primitive, abs_p))\n'),
    W('d', 'the cpu rule is borrowed from lax (mlir._lowerings[lax.abs_p].rule) instead of written by hand',
      'abs_p = elementwise_primitive("my_abs")\nmlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False))\nmlir.register_lowering(abs_p, mlir._lowerings[jax.lax.abs_p].rule, platform="cpu")   # reuse JAX\'s own abs rule\nabs_p.def_impl(partial(xla.apply_primitive, abs_p))\n'),
]

# Round 4: written from the text alone, with the mistakes above listed as already caught, before the checks were read;
# each passed every visible check, and some scored full marks, until the checks were made to catch them.
WRONG['ex1_answer'] += [
    W('c', 'lowering registered for platform="cpu" only (the machine at hand): no rule when lowered for tpu/cuda/rocm',
      'clip_p = elementwise_primitive("clip")\n\ndef clip_lowering(ctx, operand, *, lo, hi):\n    dtype = ctx.avals_out[0].dtype\n    lo_c = mlir.ir_constant(np.array(lo, dtype))\n    hi_c = mlir.ir_constant(np.array(hi, dtype))\n    return [hlo.clamp(lo_c, operand, hi_c)]\n\nmlir.register_lowering(clip_p, clip_lowering, platform="cpu")\nclip_p.def_impl(partial(xla.apply_primitive, clip_p))\n'),
    W('b', 'reads the bounds in keyword order (lo, hi = params.values()): bind(x, hi=..., lo=...) swaps them',
      'clip_p = elementwise_primitive("clip")\n\ndef clip_lowering(ctx, operand, **bounds):\n    lo, hi = bounds.values()\n    dtype = ctx.avals_out[0].dtype\n    return [hlo.clamp(mlir.ir_constant(np.array(lo, dtype)), operand, mlir.ir_constant(np.array(hi, dtype)))]\n\nmlir.register_lowering(clip_p, clip_lowering)\nclip_p.def_impl(partial(xla.apply_primitive, clip_p))\n'),
    W('m', 'defensively sorts the bounds: with lo > hi it clamps to [hi, lo] instead of giving hi everywhere as clamp/jnp.clip do',
      'clip_p = elementwise_primitive("clip")\n\ndef clip_lowering(ctx, operand, *, lo, hi):\n    lo, hi = min(lo, hi), max(lo, hi)          # guard against reversed bounds\n    dtype = ctx.avals_out[0].dtype\n    return [hlo.clamp(mlir.ir_constant(np.array(lo, dtype)), operand, mlir.ir_constant(np.array(hi, dtype)))]\n\nmlir.register_lowering(clip_p, clip_lowering)\nclip_p.def_impl(partial(xla.apply_primitive, clip_p))\n'),
    W('c', "bounds go through float32 before x's dtype: int32 bounds above 2**24 are rounded (hi=16777217 clamps to 16777216)",
      'clip_p = elementwise_primitive("clip")\n\ndef clip_lowering(ctx, operand, *, lo, hi):\n    dtype = ctx.avals_out[0].dtype\n    lo_c = mlir.ir_constant(np.float32(lo).astype(dtype))\n    hi_c = mlir.ir_constant(np.float32(hi).astype(dtype))\n    return [hlo.clamp(lo_c, operand, hi_c)]\n\nmlir.register_lowering(clip_p, clip_lowering)\nclip_p.def_impl(partial(xla.apply_primitive, clip_p))\n'),
]
WRONG['ex2_answer'] += [
    W('c', 'lowering registered for platform="cpu" only: lowering for tpu/cuda finds no rule',
      'round_afz_p = elementwise_primitive("round_afz")\nmlir.register_lowering(round_afz_p, lambda ctx, v: [hlo.round_nearest_afz(v)], platform="cpu")\nround_afz_p.def_impl(partial(xla.apply_primitive, round_afz_p))\n'),
]
WRONG['ex3_answer'] += [
    W('m', 'generic rule from jnp.where(v > 0, v, -v), not the lambda asked for: other platforms turn -0.0 into 0.0 (GT compare instead of LT)',
      'abs_p = elementwise_primitive("my_abs")\nmlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v > 0, v, -v), multiple_results=False))\nmlir.register_lowering(abs_p, lambda ctx, v: [hlo.abs(v)], platform="cpu")\nabs_p.def_impl(partial(xla.apply_primitive, abs_p))\n'),
    W('m', 'generic rule from jnp.where(v <= 0, -v, v): -0.0 becomes 0.0 on other platforms, LE compare instead of LT',
      'abs_p = elementwise_primitive("my_abs")\nmlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v <= 0, -v, v), multiple_results=False))\nmlir.register_lowering(abs_p, lambda ctx, v: [hlo.abs(v)], platform="cpu")\nabs_p.def_impl(partial(xla.apply_primitive, abs_p))\n'),
    W('m', 'generic rule with the where branches reversed, jnp.where(v < 0, v, -v): CPU is right, every other platform returns -|v|',
      'abs_p = elementwise_primitive("my_abs")\nmlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v < 0, v, -v), multiple_results=False))\nmlir.register_lowering(abs_p, lambda ctx, v: [hlo.abs(v)], platform="cpu")\nabs_p.def_impl(partial(xla.apply_primitive, abs_p))\n'),
]

# Round 5: written from the text alone; it scored full marks while the checks recognised mlir.lower_fun by the
# name of the rule function, until they watched what the CPU rule traces while it lowers.
WRONG['ex3_answer'] += [
    W('d', 'the cpu rule is a function of its own that calls mlir.lower_fun(jnp.abs): its name is not lower_fun\'s, '
           'and the lowered text is one stablehlo.abs, as a hand-written rule\'s',
      'abs_p = elementwise_primitive("my_abs")\n'
      'abs_p.def_impl(partial(xla.apply_primitive, abs_p))\n'
      'mlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False))\n'
      '\n'
      'def abs_cpu_rule(ctx, operand):\n'
      '    return mlir.lower_fun(jnp.abs, multiple_results=False)(ctx, operand)\n'
      '\n'
      'mlir.register_lowering(abs_p, abs_cpu_rule, platform="cpu")\n'),
]

# Round 7: written from the text alone by a reviewer who had not read the checks; each passed every visible check (the
# second and the fourth earned full marks) until the checks tried a new hi with the same lo, looked the rules up in
# the generic table, and watched for lax's own abs rule running.
WRONG['ex1_answer'] += [
    W('b', 'lowering caches its bound constants keyed on (dtype, lo): a new hi with the same lo reuses the old hi',
      'clip_p = elementwise_primitive("clip")\n'
      '_bounds = {}\n'
      '\n'
      'def clip_rule(ctx, operand, *, lo, hi):\n'
      '    dtype = ctx.avals_out[0].dtype\n'
      '    key = (dtype, lo)\n'
      '    if key not in _bounds:\n'
      '        _bounds[key] = (np.array(lo, dtype), np.array(hi, dtype))\n'
      '    lo_c, hi_c = _bounds[key]\n'
      '    return [hlo.clamp(mlir.ir_constant(lo_c), operand, mlir.ir_constant(hi_c))]\n'
      '\n'
      'mlir.register_lowering(clip_p, clip_rule)\n'
      'clip_p.def_impl(partial(xla.apply_primitive, clip_p))\n'),
    W('m', 'rule registered by name for cpu, tpu and cuda (the platforms the text lowers for) instead of without platform=: no rule for rocm',
      'clip_p = elementwise_primitive("clip")\n'
      '\n'
      'def clip_rule(ctx, operand, *, lo, hi):\n'
      '    dtype = ctx.avals_out[0].dtype\n'
      '    return [hlo.clamp(mlir.ir_constant(np.array(lo, dtype)), operand, mlir.ir_constant(np.array(hi, dtype)))]\n'
      '\n'
      'for platform in ("cpu", "tpu", "cuda"):\n'
      '    mlir.register_lowering(clip_p, clip_rule, platform=platform)\n'
      'clip_p.def_impl(partial(xla.apply_primitive, clip_p))\n'),
]
WRONG['ex2_answer'] += [
    W('m', 'rule registered by name for cpu, tpu and cuda instead of without platform=: no rule for rocm',
      'round_afz_p = elementwise_primitive("round_afz")\n'
      'for platform in ("cpu", "tpu", "cuda"):\n'
      '    mlir.register_lowering(round_afz_p, lambda ctx, v: [hlo.round_nearest_afz(v)], platform=platform)\n'
      'round_afz_p.def_impl(partial(xla.apply_primitive, round_afz_p))\n'),
]
WRONG['ex3_answer'] += [
    W('d', "cpu rule is a function of its own that calls lax's abs lowering rule (mlir._lowerings[lax.abs_p].rule) instead of hlo.abs",
      'abs_p = elementwise_primitive("my_abs")\n'
      'mlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False))\n'
      '\n'
      'def abs_cpu_rule(ctx, operand):\n'
      "    return mlir._lowerings[jax.lax.abs_p].rule(ctx, operand)      # JAX's own abs lowering\n"
      '\n'
      'mlir.register_lowering(abs_p, abs_cpu_rule, platform="cpu")\n'
      'abs_p.def_impl(partial(xla.apply_primitive, abs_p))\n'),
    W('d', "cpu rule is a lambda around lax's abs rule, kept in a variable first: the rule's own object is not lax's",
      'abs_p = elementwise_primitive("my_abs")\n'
      'mlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False))\n'
      '_lax_abs_rule = mlir._lowerings[jax.lax.abs_p].rule\n'
      'mlir.register_lowering(abs_p, lambda ctx, v: _lax_abs_rule(ctx, v), platform="cpu")\n'
      'abs_p.def_impl(partial(xla.apply_primitive, abs_p))\n'),
]

# Round 9: found by reviewers who read only the learner's notebook.
WRONG['ex1_answer'] += [
    W('f', 'impl caches the compiled program per (dtype, lo, hi), not per shape: a second shape of the same dtype and bounds reuses an executable compiled for the first',
      'def clip_rule(ctx, operand, *, lo, hi):\n    dtype = ctx.avals_out[0].dtype\n    return [hlo.clamp(mlir.ir_constant(np.array(lo, dtype)), operand, mlir.ir_constant(np.array(hi, dtype)))]\n\nclip_p = elementwise_primitive("clip")\n_clip_programs = {}\n\ndef _clip_impl(x, *, lo, hi):\n    # an elementwise clamp: one program per dtype and bounds, compiled through the lowering\n    key = (jnp.result_type(x), lo, hi)\n    if key not in _clip_programs:\n        _clip_programs[key] = jax.jit(partial(clip_p.bind, lo=lo, hi=hi)).lower(x).compile()\n    return _clip_programs[key](x)\n\nclip_p.def_impl(_clip_impl)\nmlir.register_lowering(clip_p, clip_rule)\n'),
]
WRONG['ex3_answer'] += [
    W('m', 'generic rule from jnp.where(v >= 0, v, -v), not the lambda asked for: same on -0.0, but a NaN comes back with its sign bit flipped on other platforms',
      'abs_p = elementwise_primitive("my_abs")\nabs_p.def_impl(partial(xla.apply_primitive, abs_p))\nmlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v >= 0, v, -v), multiple_results=False))\nmlir.register_lowering(abs_p, lambda ctx, operand: [hlo.abs(operand)], platform="cpu")\n'),
]

# Round 11: found by reviewers who read only the learner's notebook.
WRONG['ex3_answer'] += [
    W('m', 'generic rule written by hand (compare LT + negate + select, the same ops lower_fun would emit) instead of made with mlir.lower_fun as asked',
      'def abs_cpu_rule(ctx, operand):\n    return [hlo.abs(operand)]\n\ndef abs_generic_rule(ctx, operand):\n    aval, = ctx.avals_in\n    out_type = mlir.aval_to_ir_type(ctx.module_context, aval)\n    zero = hlo.broadcast_in_dim(out_type, mlir.ir_constant(np.array(0, aval.dtype)), mlir.dense_int_array([]))\n    neg = hlo.negate(operand)\n    pred = hlo.compare(operand, zero, hlo.ComparisonDirectionAttr.get("LT"))\n    return [hlo.select(pred, neg, operand)]\n\nabs_p = elementwise_primitive("my_abs")\nabs_p.def_impl(partial(xla.apply_primitive, abs_p))\nmlir.register_lowering(abs_p, abs_generic_rule)\nmlir.register_lowering(abs_p, abs_cpu_rule, platform="cpu")\n'),
]

# Round 12: written from the exercise texts rewritten as requirement lists (the impl traced as a jit of the primitive
# alone, and an eager call running the rule once JAX's caches are emptied); each fails a visible check.
WRONG['ex1_answer'] += [
    W('m', 'the impl binds the primitive again: traced, it is clip alone with no jit around it, and an eager call recurses',
      'def clip_rule(ctx, operand, *, lo, hi):\n    dtype = ctx.avals_out[0].dtype\n    return [hlo.clamp(mlir.ir_constant(np.array(lo, dtype)), operand, mlir.ir_constant(np.array(hi, dtype)))]\n\nclip_p = elementwise_primitive("clip")\nclip_p.def_impl(lambda x, *, lo, hi: clip_p.bind(x, lo=lo, hi=hi))\nmlir.register_lowering(clip_p, clip_rule)\n'),
    W('d', 'the rule converts the operand to float32, clamps and converts back: right for small values, but convert ops in the module',
      'def clip_rule(ctx, operand, *, lo, hi):\n    aval, = ctx.avals_out\n    f32 = mlir.aval_to_ir_type(ctx.module_context, ShapedArray(aval.shape, np.float32))\n    out = mlir.aval_to_ir_type(ctx.module_context, aval)\n    wide = hlo.convert(f32, operand)\n    clamped = hlo.clamp(mlir.ir_constant(np.float32(lo)), wide, mlir.ir_constant(np.float32(hi)))\n    return [hlo.convert(out, clamped)]\n\nclip_p = elementwise_primitive("clip")\nclip_p.def_impl(partial(xla.apply_primitive, clip_p))\nmlir.register_lowering(clip_p, clip_rule)\n'),
    W('d', 'the impl is a jax.jit of jnp.clip: traced, a jit, but of max and min, not of clip',
      'def clip_rule(ctx, operand, *, lo, hi):\n    dtype = ctx.avals_out[0].dtype\n    return [hlo.clamp(mlir.ir_constant(np.array(lo, dtype)), operand, mlir.ir_constant(np.array(hi, dtype)))]\n\nclip_p = elementwise_primitive("clip")\nclip_p.def_impl(jax.jit(lambda x, *, lo, hi: jnp.clip(x, lo, hi).astype(x.dtype), static_argnames=("lo", "hi")))\nmlir.register_lowering(clip_p, clip_rule)\n'),
]
WRONG['ex2_answer'] += [
    W('d', 'the impl is a jax.jit of lax.round away from zero: a jit, but of round, not of round_afz',
      'round_afz_p = elementwise_primitive("round_afz")\nround_afz_p.def_impl(jax.jit(lambda v: jax.lax.round(v, jax.lax.RoundingMethod.AWAY_FROM_ZERO)))\nmlir.register_lowering(round_afz_p, lambda ctx, operand: [hlo.round_nearest_afz(operand)])\n'),
    W('c', 'a hand-written sign(x) * floor(|x| + 0.5): 0.49999997 rounds to 1 in float32, and the module has five more ops',
      'def round_rule(ctx, operand):\n    aval, = ctx.avals_out\n    t = mlir.aval_to_ir_type(ctx.module_context, aval)\n    half = hlo.broadcast_in_dim(t, mlir.ir_constant(np.array(0.5, aval.dtype)), mlir.dense_int_array([]))\n    magnitude = hlo.floor(hlo.add(hlo.abs(operand), half))\n    return [hlo.multiply(hlo.sign(operand), magnitude)]\n\nround_afz_p = elementwise_primitive("round_afz")\nround_afz_p.def_impl(partial(xla.apply_primitive, round_afz_p))\nmlir.register_lowering(round_afz_p, round_rule)\n'),
]
WRONG['ex3_answer'] += [
    W('m', 'the impl is a jax.jit of the generic jnp.where function: an eager call runs the generic ops, never the CPU rule',
      'abs_p = elementwise_primitive("my_abs")\n_generic = lambda v: jnp.where(v < 0, -v, v)\nabs_p.def_impl(jax.jit(_generic))\nmlir.register_lowering(abs_p, mlir.lower_fun(_generic, multiple_results=False))\nmlir.register_lowering(abs_p, lambda ctx, operand: [hlo.abs(operand)], platform="cpu")\n'),
    W('d', 'the impl is a jax.jit of jnp.abs: the same values and a jit, but of abs, not of my_abs',
      'abs_p = elementwise_primitive("my_abs")\nabs_p.def_impl(lambda v: jax.jit(jnp.abs)(v))\nmlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False))\nmlir.register_lowering(abs_p, lambda ctx, operand: [hlo.abs(operand)], platform="cpu")\n'),
]

RIGHT = {
    'ex1_answer': [
        R('the impl is a jax.jit of a partial of bind, made on each call; the rule reads avals_in and is also registered for cpu',
          'def clip_rule(ctx, operand, *, lo, hi):\n    dtype = ctx.avals_in[0].dtype\n    lo_c = mlir.ir_constant(np.array(lo, dtype))\n    hi_c = mlir.ir_constant(np.array(hi, dtype))\n    return [hlo.clamp(lo_c, operand, hi_c)]\n\nclip_p = elementwise_primitive("clip")\nclip_p.def_impl(lambda x, *, lo, hi: jax.jit(partial(clip_p.bind, lo=lo, hi=hi))(x))\nmlir.register_lowering(clip_p, clip_rule)\nmlir.register_lowering(clip_p, clip_rule, platform="cpu")\n'),
    ],
    'ex2_answer': [
        R('the rule is mlir.lower_fun of lax.round away from zero, which lowers to one stablehlo.round_nearest_afz too',
          'round_afz_p = elementwise_primitive("round_afz")\nround_afz_p.def_impl(partial(xla.apply_primitive, round_afz_p))\nmlir.register_lowering(round_afz_p, mlir.lower_fun(lambda v: jax.lax.round(v, jax.lax.RoundingMethod.AWAY_FROM_ZERO), multiple_results=False))\n'),
    ],
    'ex3_answer': [
        R('the CPU rule is a def function, the impl a jax.jit of bind, the generic rule kept in a variable and registered second',
          'generic = mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False)\n\ndef abs_cpu(ctx, operand):\n    return [hlo.abs(operand)]\n\nabs_p = Primitive("my_abs")\nabs_p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))\nabs_p.def_impl(jax.jit(lambda v: abs_p.bind(v)))\nmlir.register_lowering(abs_p, abs_cpu, platform="cpu")\nmlir.register_lowering(abs_p, generic)\n'),
    ],
}

# Round 12: found by a reviewer who read only the learner's notebook. An impl converting half precision to float32
# around the lowering passed every visible check (the impl was traced on float32 only); it is traced on float16 too.
WRONG['ex2_answer'] += [
    W('m', 'impl upcasts half-precision to float32 around the lowering: the traced impl holds converts',
      'round_afz_p = elementwise_primitive("round_afz")\nmlir.register_lowering(round_afz_p, lambda ctx, x: [hlo.round_nearest_afz(x)])\n\n\ndef round_afz_impl(x):\n    return xla.apply_primitive(round_afz_p, x.astype(jnp.float32)).astype(x.dtype)\n\n\nround_afz_p.def_impl(round_afz_impl)\n'),
]


# A fourth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex1_answer'] += [
    W('c', 'the abstract evaluation takes result_type(x, lo, hi): an int32 x with a float bound is declared float32 while the lowering gives int32',
      'clip_p = Primitive("clip")\nclip_p.def_abstract_eval(lambda x, *, lo, hi: ShapedArray(x.shape, jnp.result_type(x.dtype, lo, hi)))\n\n\ndef _clip_lowering(ctx, operand, *, lo, hi):\n    dtype = ctx.avals_in[0].dtype\n    lo_c = mlir.ir_constant(np.array(lo, dtype))\n    hi_c = mlir.ir_constant(np.array(hi, dtype))\n    return [hlo.clamp(lo_c, operand, hi_c)]\n\n\nmlir.register_lowering(clip_p, _clip_lowering)\nclip_p.def_impl(partial(xla.apply_primitive, clip_p))\n'),
]


# A fifth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex3_answer'] += [
    W('m', 'the generic rule compares with the float 0.0, not the 0 of the text: an int32 x lowers with converts',
      'abs_p = elementwise_primitive("my_abs")\nmlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v < 0.0, -v, v), multiple_results=False))\nmlir.register_lowering(abs_p, lambda ctx, v: [hlo.abs(v)], platform="cpu")\nabs_p.def_impl(partial(xla.apply_primitive, abs_p))\n'),
]


# A sixth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex3_answer'] += [
    W('d', "CPU rule is lax's internal helper _nary_lower_hlo with hlo.abs (the body of lax's rule for abs)",
      'abs_p = elementwise_primitive("my_abs")\nmlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False))\nfrom jax._src.lax.lax import _nary_lower_hlo as bl7_nary\nmlir.register_lowering(abs_p, partial(bl7_nary, hlo.abs), platform="cpu")\nabs_p.def_impl(partial(xla.apply_primitive, abs_p))\n'),
]


# A seventh fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex1_answer'] += [
    W('m', 'rule special-cases lo > hi with a full constant of hi: right values, but no clamp in that module',
      'clip_p = elementwise_primitive("clip")\ndef clip_rule(ctx, operand, *, lo, hi):\n    aval, = ctx.avals_out\n    if lo > hi:\n        return [mlir.ir_constant(np.full(aval.shape, hi, aval.dtype))]\n    return [hlo.clamp(mlir.ir_constant(np.array(lo, aval.dtype)), operand, mlir.ir_constant(np.array(hi, aval.dtype)))]\nmlir.register_lowering(clip_p, clip_rule)\nclip_p.def_impl(partial(xla.apply_primitive, clip_p))\n'),
]
WRONG['ex1_answer'] += [
    W('m', 'rule special-cases lo > hi with broadcast_in_dim of hi: no clamp, a broadcast_in_dim in that module',
      'clip_p = elementwise_primitive("clip")\ndef clip_rule(ctx, operand, *, lo, hi):\n    aval, = ctx.avals_out\n    if lo > hi:\n        out_type = mlir.aval_to_ir_type(ctx.module_context, aval)\n        return [hlo.broadcast_in_dim(out_type, mlir.ir_constant(np.array(hi, aval.dtype)), mlir.dense_int_array([]))]\n    return [hlo.clamp(mlir.ir_constant(np.array(lo, aval.dtype)), operand, mlir.ir_constant(np.array(hi, aval.dtype)))]\nmlir.register_lowering(clip_p, clip_rule)\nclip_p.def_impl(partial(xla.apply_primitive, clip_p))\n'),
]
WRONG['ex1_answer'] += [
    W('d', 'impl answers lo > hi itself with jnp.full_like (a second implementation on that path)',
      'clip_p = elementwise_primitive("clip")\ndef clip_rule(ctx, operand, *, lo, hi):\n    dt = ctx.avals_out[0].dtype\n    return [hlo.clamp(mlir.ir_constant(np.array(lo, dt)), operand, mlir.ir_constant(np.array(hi, dt)))]\nmlir.register_lowering(clip_p, clip_rule)\ndef _impl(x, *, lo, hi):\n    if lo > hi:\n        return jnp.full_like(x, hi)\n    return xla.apply_primitive(clip_p, x, lo=lo, hi=hi)\nclip_p.def_impl(_impl)\n'),
]
WRONG['ex1_answer'] += [
    W('d', 'impl clamps 0-d inputs itself with lax.clamp (a second implementation that agrees)',
      'clip_p = elementwise_primitive("clip")\ndef clip_rule(ctx, operand, *, lo, hi):\n    dt = ctx.avals_out[0].dtype\n    return [hlo.clamp(mlir.ir_constant(np.array(lo, dt)), operand, mlir.ir_constant(np.array(hi, dt)))]\nmlir.register_lowering(clip_p, clip_rule)\ndef _impl(x, *, lo, hi):\n    if jnp.ndim(x) == 0:\n        return jax.lax.clamp(np.array(lo, x.dtype), x, np.array(hi, x.dtype))\n    return xla.apply_primitive(clip_p, x, lo=lo, hi=hi)\nclip_p.def_impl(_impl)\n'),
]
WRONG['ex1_answer'] += [
    W('d', 'impl clamps 0-d inputs with NumPy',
      'clip_p = elementwise_primitive("clip")\ndef clip_rule(ctx, operand, *, lo, hi):\n    dt = ctx.avals_out[0].dtype\n    return [hlo.clamp(mlir.ir_constant(np.array(lo, dt)), operand, mlir.ir_constant(np.array(hi, dt)))]\nmlir.register_lowering(clip_p, clip_rule)\ndef _impl(x, *, lo, hi):\n    if jnp.ndim(x) == 0:\n        return jnp.asarray(np.clip(np.asarray(x), lo, hi).astype(x.dtype))\n    return xla.apply_primitive(clip_p, x, lo=lo, hi=hi)\nclip_p.def_impl(_impl)\n'),
]
WRONG['ex1_answer'] += [
    W('d', 'impl clamps bfloat16 inputs itself with lax.clamp',
      'clip_p = elementwise_primitive("clip")\ndef clip_rule(ctx, operand, *, lo, hi):\n    dt = ctx.avals_out[0].dtype\n    return [hlo.clamp(mlir.ir_constant(np.array(lo, dt)), operand, mlir.ir_constant(np.array(hi, dt)))]\nmlir.register_lowering(clip_p, clip_rule)\ndef _impl(x, *, lo, hi):\n    if x.dtype == jnp.bfloat16:\n        return jax.lax.clamp(np.array(lo, x.dtype), x, np.array(hi, x.dtype))\n    return xla.apply_primitive(clip_p, x, lo=lo, hi=hi)\nclip_p.def_impl(_impl)\n'),
]
WRONG['ex1_answer'] += [
    W('d', 'impl clamps integer inputs itself with lax.clamp',
      'clip_p = elementwise_primitive("clip")\ndef clip_rule(ctx, operand, *, lo, hi):\n    dt = ctx.avals_out[0].dtype\n    return [hlo.clamp(mlir.ir_constant(np.array(lo, dt)), operand, mlir.ir_constant(np.array(hi, dt)))]\nmlir.register_lowering(clip_p, clip_rule)\ndef _impl(x, *, lo, hi):\n    if jnp.issubdtype(x.dtype, jnp.integer):\n        return jax.lax.clamp(np.array(lo, x.dtype), x, np.array(hi, x.dtype))\n    return xla.apply_primitive(clip_p, x, lo=lo, hi=hi)\nclip_p.def_impl(_impl)\n'),
]
WRONG['ex1_answer'] += [
    W('d', 'impl clamps inputs of 2 or more dimensions itself with lax.clamp',
      'clip_p = elementwise_primitive("clip")\ndef clip_rule(ctx, operand, *, lo, hi):\n    dt = ctx.avals_out[0].dtype\n    return [hlo.clamp(mlir.ir_constant(np.array(lo, dt)), operand, mlir.ir_constant(np.array(hi, dt)))]\nmlir.register_lowering(clip_p, clip_rule)\ndef _impl(x, *, lo, hi):\n    if jnp.ndim(x) >= 2:\n        return jax.lax.clamp(np.array(lo, x.dtype), x, np.array(hi, x.dtype))\n    return xla.apply_primitive(clip_p, x, lo=lo, hi=hi)\nclip_p.def_impl(_impl)\n'),
]
WRONG['ex1_answer'] += [
    W('d', 'impl returns an empty input as it is, without running the rule',
      'clip_p = elementwise_primitive("clip")\ndef clip_rule(ctx, operand, *, lo, hi):\n    dt = ctx.avals_out[0].dtype\n    return [hlo.clamp(mlir.ir_constant(np.array(lo, dt)), operand, mlir.ir_constant(np.array(hi, dt)))]\nmlir.register_lowering(clip_p, clip_rule)\ndef _impl(x, *, lo, hi):\n    if jnp.size(x) == 0:\n        return jnp.asarray(x)\n    return xla.apply_primitive(clip_p, x, lo=lo, hi=hi)\nclip_p.def_impl(_impl)\n'),
]
WRONG['ex2_answer'] += [
    W('d', 'impl rounds 0-d inputs with lax.round AWAY_FROM_ZERO (the second implementation the text names)',
      'round_afz_p = elementwise_primitive("round_afz")\nmlir.register_lowering(round_afz_p, lambda ctx, x: [hlo.round_nearest_afz(x)])\ndef _impl(x):\n    if jnp.ndim(x) == 0:\n        return jax.lax.round(x, jax.lax.RoundingMethod.AWAY_FROM_ZERO)\n    return xla.apply_primitive(round_afz_p, x)\nround_afz_p.def_impl(_impl)\n'),
]
WRONG['ex2_answer'] += [
    W('d', 'impl rounds inputs of 2 or more dimensions with lax.round AWAY_FROM_ZERO',
      'round_afz_p = elementwise_primitive("round_afz")\nmlir.register_lowering(round_afz_p, lambda ctx, x: [hlo.round_nearest_afz(x)])\ndef _impl(x):\n    if jnp.ndim(x) >= 2:\n        return jax.lax.round(x, jax.lax.RoundingMethod.AWAY_FROM_ZERO)\n    return xla.apply_primitive(round_afz_p, x)\nround_afz_p.def_impl(_impl)\n'),
]
WRONG['ex2_answer'] += [
    W('d', 'impl rounds bfloat16 inputs with lax.round AWAY_FROM_ZERO',
      'round_afz_p = elementwise_primitive("round_afz")\nmlir.register_lowering(round_afz_p, lambda ctx, x: [hlo.round_nearest_afz(x)])\ndef _impl(x):\n    if x.dtype == jnp.bfloat16:\n        return jax.lax.round(x, jax.lax.RoundingMethod.AWAY_FROM_ZERO)\n    return xla.apply_primitive(round_afz_p, x)\nround_afz_p.def_impl(_impl)\n'),
]
WRONG['ex2_answer'] += [
    W('d', 'impl returns an empty input as it is, without running the rule',
      'round_afz_p = elementwise_primitive("round_afz")\nmlir.register_lowering(round_afz_p, lambda ctx, x: [hlo.round_nearest_afz(x)])\ndef _impl(x):\n    if jnp.size(x) == 0:\n        return jnp.asarray(x)\n    return xla.apply_primitive(round_afz_p, x)\nround_afz_p.def_impl(_impl)\n'),
]
WRONG['ex3_answer'] += [
    W('d', 'impl takes 0-d inputs to jnp.abs instead of the lowering',
      'abs_p = elementwise_primitive("my_abs")\nmlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False))\nmlir.register_lowering(abs_p, lambda ctx, v: [hlo.abs(v)], platform=\'cpu\')\ndef _impl(x):\n    if jnp.ndim(x) == 0:\n        return jnp.abs(x)\n    return xla.apply_primitive(abs_p, x)\nabs_p.def_impl(_impl)\n'),
]
WRONG['ex3_answer'] += [
    W('d', 'impl takes integer inputs to jnp.abs instead of the lowering',
      'abs_p = elementwise_primitive("my_abs")\nmlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False))\nmlir.register_lowering(abs_p, lambda ctx, v: [hlo.abs(v)], platform=\'cpu\')\ndef _impl(x):\n    if jnp.issubdtype(x.dtype, jnp.integer):\n        return jnp.abs(x)\n    return xla.apply_primitive(abs_p, x)\nabs_p.def_impl(_impl)\n'),
]
WRONG['ex3_answer'] += [
    W('d', 'impl takes inputs of 2 or more dimensions to jnp.abs instead of the lowering',
      'abs_p = elementwise_primitive("my_abs")\nmlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False))\nmlir.register_lowering(abs_p, lambda ctx, v: [hlo.abs(v)], platform=\'cpu\')\ndef _impl(x):\n    if jnp.ndim(x) >= 2:\n        return jnp.abs(x)\n    return xla.apply_primitive(abs_p, x)\nabs_p.def_impl(_impl)\n'),
]
WRONG['ex3_answer'] += [
    W('d', 'impl returns an empty input as it is, without running the rule',
      'abs_p = elementwise_primitive("my_abs")\nmlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False))\nmlir.register_lowering(abs_p, lambda ctx, v: [hlo.abs(v)], platform=\'cpu\')\ndef _impl(x):\n    if jnp.size(x) == 0:\n        return jnp.asarray(x)\n    return xla.apply_primitive(abs_p, x)\nabs_p.def_impl(_impl)\n'),
]
RIGHT.setdefault('ex3_answer', []).extend([
    R('the generic rule is the mlir.lower_fun expression, called inside a def of its own',
      'abs_p = elementwise_primitive("my_abs")\ndef _generic(ctx, v):\n    return mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False)(ctx, v)\nmlir.register_lowering(abs_p, _generic)\nmlir.register_lowering(abs_p, lambda ctx, v: [hlo.abs(v)], platform=\'cpu\')\nabs_p.def_impl(partial(xla.apply_primitive, abs_p))\n'),
])


# An eighth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex1_answer'] += [
    W('c', 'rule for lo == hi emits a broadcast constant instead of a clamp',
      'clip_p = elementwise_primitive("clip")\n\ndef clip_rule(ctx, operand, *, lo, hi):\n    aval = ctx.avals_out[0]\n    if lo == hi:                # every value becomes lo\n        out_type = mlir.aval_to_ir_type(ctx.module_context, aval)\n        return [hlo.broadcast_in_dim(out_type, mlir.ir_constant(np.array(lo, aval.dtype)), mlir.dense_int_array([]))]\n    return [hlo.clamp(mlir.ir_constant(np.array(lo, aval.dtype)), operand, mlir.ir_constant(np.array(hi, aval.dtype)))]\n\nmlir.register_lowering(clip_p, clip_rule)\nclip_p.def_impl(partial(xla.apply_primitive, clip_p))\n'),
]


# A tenth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex2_answer'] += [
    W('f', 'impl caches compiled executables per shape/dtype in its own dict: after clear_caches the rule does not run',
      'round_afz_p = elementwise_primitive("round_afz")\nmlir.register_lowering(round_afz_p, lambda ctx, x: [hlo.round_nearest_afz(x)])\n_compiled = {}\n\ndef round_impl(x):\n    if isinstance(x, jax.core.Tracer):\n        return xla.apply_primitive(round_afz_p, x)\n    key = (x.shape, str(x.dtype))\n    if key not in _compiled:\n        _compiled[key] = jax.jit(round_afz_p.bind).lower(x).compile()\n    return _compiled[key](x)\n\nround_afz_p.def_impl(round_impl)\n'),
]


# A tenth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex1_answer'] += [
    W('f', 'impl keeps its own dict of compiled executables per (shape, dtype, lo, hi): after jax.clear_caches an eager call reuses it and the rule does not run',
      'clip_p = elementwise_primitive("clip")\n\ndef clip_rule(ctx, operand, *, lo, hi):\n    dtype = ctx.avals_out[0].dtype\n    return [hlo.clamp(mlir.ir_constant(np.array(lo, dtype)), operand, mlir.ir_constant(np.array(hi, dtype)))]\n\nmlir.register_lowering(clip_p, clip_rule)\n_compiled = {}\n\ndef clip_impl(x, *, lo, hi):\n    if isinstance(x, jax.core.Tracer):\n        return xla.apply_primitive(clip_p, x, lo=lo, hi=hi)\n    key = (x.shape, str(x.dtype), lo, hi)\n    if key not in _compiled:\n        _compiled[key] = jax.jit(partial(clip_p.bind, lo=lo, hi=hi)).lower(x).compile()\n    return _compiled[key](x)\n\nclip_p.def_impl(clip_impl)\n'),
]
WRONG['ex3_answer'] += [
    W('f', 'impl caches compiled executables per shape/dtype in its own dict: after clear_caches the CPU rule does not run',
      'abs_p = elementwise_primitive("my_abs")\nmlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False))\nmlir.register_lowering(abs_p, lambda ctx, x: [hlo.abs(x)], platform="cpu")\n_compiled = {}\n\ndef abs_impl(x):\n    if isinstance(x, jax.core.Tracer):\n        return xla.apply_primitive(abs_p, x)\n    key = (x.shape, str(x.dtype))\n    if key not in _compiled:\n        _compiled[key] = jax.jit(abs_p.bind).lower(x).compile()\n    return _compiled[key](x)\n\nabs_p.def_impl(abs_impl)\n'),
]
