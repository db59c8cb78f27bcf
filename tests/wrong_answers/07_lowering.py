"""Plausible wrong answers for 07_lowering, one per answer cell (see tests/wrong_answers/__init__.py)."""

WRONG = {
    # Lowers jnp.clip with lower_fun: right values, but maximum/minimum/broadcasts instead of one clamp.
    "ex1_answer": "clip_p = elementwise_primitive('clip')\n"
                  "clip_p.def_impl(partial(xla.apply_primitive, clip_p))\n"
                  "mlir.register_lowering(clip_p, mlir.lower_fun(lambda v, lo, hi: jnp.clip(v, lo, hi), multiple_results=False))\n",
    # The lowering is right, but the impl is a second implementation that rounds halves to even.
    "ex2_answer": "round_afz_p = elementwise_primitive('round_afz')\n"
                  "round_afz_p.def_impl(jnp.round)\n"
                  "mlir.register_lowering(round_afz_p, lambda ctx, operand: [hlo.round_nearest_afz(operand)])\n",
    # Both rules registered without platform=: the hand-written one replaces the generic one everywhere.
    "ex3_answer": "abs_p = elementwise_primitive('my_abs')\n"
                  "abs_p.def_impl(partial(xla.apply_primitive, abs_p))\n"
                  "mlir.register_lowering(abs_p, mlir.lower_fun(lambda v: jnp.where(v < 0, -v, v), multiple_results=False))\n"
                  "mlir.register_lowering(abs_p, lambda ctx, operand: [hlo.abs(operand)])\n",
    "quiz_answer": 'q1 = "a"\nq2 = "a"\nq3 = "a"\nq4 = "b"\n',
}
