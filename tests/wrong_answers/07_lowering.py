"""Wrong answers for 07_lowering (see tests/wrong_answers/__init__.py)."""

from wrong_answers import W

WRONG = {
    'ex1_answer': [
        W("m", "The bounds as float32 constants whatever x's dtype: right for float32, an MLIR verifier error (clamp needs one element type) for int32 or float16.",
          'def clip_rule(ctx, operand, *, lo, hi):\n'
          '    return [hlo.clamp(mlir.ir_constant(np.float32(lo)), operand, mlir.ir_constant(np.float32(hi)))]\n'
          '\n'
          "clip_p = elementwise_primitive('clip')\n"
          'clip_p.def_impl(partial(xla.apply_primitive, clip_p))\n'
          'mlir.register_lowering(clip_p, clip_rule)\n'),
        W("m", 'Lowers jnp.clip with lower_fun: right values, but maximum/minimum/broadcasts instead of one clamp.',
          "clip_p = elementwise_primitive('clip')\n"
          'clip_p.def_impl(partial(xla.apply_primitive, clip_p))\n'
          'mlir.register_lowering(clip_p, mlir.lower_fun(lambda v, lo, hi: jnp.clip(v, lo, hi), multiple_results=False))\n'),
        W("m", "The bounds in NumPy's default dtype for a Python number (float64 or int64), not x's.",
          'def clip_rule(ctx, operand, *, lo, hi):\n'
          '    return [hlo.clamp(mlir.ir_constant(np.array(lo)), operand, mlir.ir_constant(np.array(hi)))]\n'
          '\n'
          "clip_p = elementwise_primitive('clip')\n"
          'clip_p.def_impl(partial(xla.apply_primitive, clip_p))\n'
          'mlir.register_lowering(clip_p, clip_rule)\n'),
    ],
    'ex2_answer': [
        W("m", 'The lowering is right, but the impl is a second implementation that rounds halves to even.',
          "round_afz_p = elementwise_primitive('round_afz')\n"
          'round_afz_p.def_impl(jnp.round)\n'
          'mlir.register_lowering(round_afz_p, lambda ctx, operand: [hlo.round_nearest_afz(operand)])\n'),
        W("m", 'The impl goes through the lowering, but the rule emits the other rounding op (halves to even).',
          "round_afz_p = elementwise_primitive('round_afz')\n"
          'round_afz_p.def_impl(partial(xla.apply_primitive, round_afz_p))\n'
          'mlir.register_lowering(round_afz_p, lambda ctx, operand: [hlo.round_nearest_even(operand)])\n'),
    ],
    'ex3_answer': [
        W("m", 'Both rules registered without platform=: the hand-written one replaces the generic one everywhere.',
          "abs_p = elementwise_primitive('my_abs')\n"
          'abs_p.def_impl(partial(xla.apply_primitive, abs_p))\n'
          'mlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False))\n'
          'mlir.register_lowering(abs_p, lambda ctx, operand: [hlo.abs(operand)])\n'),
        W("m", "The platforms swapped: the hand-written rule is the generic one, the where-rule the CPU's.",
          "abs_p = elementwise_primitive('my_abs')\n"
          'abs_p.def_impl(partial(xla.apply_primitive, abs_p))\n'
          'mlir.register_lowering(abs_p, lambda ctx, operand: [hlo.abs(operand)])\n'
          "mlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False), platform='cpu')\n"),
    ],
    'quiz_answer': [
        W("m", 'TODO',
          'q1 = "a"\n'
          'q2 = "a"\n'
          'q3 = "a"\n'
          'q4 = "b"\n'),
        W("m", 'TODO',
          'q1 = "b"\n'
          'q2 = "a"\n'
          'q3 = "b"\n'
          'q4 = "b"\n'),
    ],
}
