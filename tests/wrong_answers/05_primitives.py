"""Plausible wrong answers for 05_primitives, one per answer cell (see tests/wrong_answers/__init__.py)."""

WRONG = {
    # Reads only the top-level equations: misses everything inside cond, scan, while and jit.
    "ex1_answer": "def primitive_names(f, *args):\n"
                  "    return sorted({eqn.primitive.name for eqn in jax.make_jaxpr(f)(*args).eqns})\n",
    # Counts only the top level, so a primitive inside a loop body counts zero.
    "ex2_answer": "def count_primitive(f, name, *args):\n"
                  "    return sum(eqn.primitive.name == name for eqn in jax.make_jaxpr(f)(*args).eqns)\n",
    # Only matches `= stablehlo.op`, missing "stablehlo.case", stablehlo.return and `applies stablehlo.add`.
    "ex3_answer": "def stablehlo_ops(f, *args):\n"
                  "    text = jax.jit(f).lower(*args).as_text()\n"
                  "    return sorted(set(re.findall(r'= stablehlo\\.(\\w+)', text)))\n",
    # Looks only at the lowering rules for all platforms, not the platform-specific ones.
    "ex4_answer": "def rule_tables(p, platform='cpu'):\n"
                  "    return {'jvp': p in ad.primitive_jvps,\n"
                  "            'transpose': p in ad.primitive_transposes or p in fancy_transposes,\n"
                  "            'batching': p in batching.fancy_primitive_batchers,\n"
                  "            'lowering': p in mlir._lowerings}\n",
    "quiz_answer": 'q1 = "b"\nq2 = "b"\nq3 = "b"\nq4 = "b"\n',
}
