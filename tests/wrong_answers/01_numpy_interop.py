"""Plausible wrong answers for 01_numpy_interop, one per answer cell (see tests/wrong_answers/__init__.py)."""

WRONG = {
    # Allocates `align` extra bytes but forgets to slide the start to the aligned address.
    "ex1_answer": "def aligned_copy(x, align=64):\n"
                  "    raw = np.empty(x.nbytes + align, np.uint8)\n"
                  "    out = raw[1:1 + x.nbytes].view(x.dtype).reshape(x.shape)\n"
                  "    out[...] = x\n    return out\n",
    # device_put aliases aligned input, so later writes leak into the result.
    "ex2_answer": "def frozen_put(x):\n    return jax.device_put(x, may_alias=False)\n",
    # device_get gives read-only views that share the JAX buffer.
    "ex3_answer": "def to_host_tree(tree):\n    return jax.device_get(tree)\n",
    "quiz_answer": 'q1 = "b"\nq2 = "a"\nq3 = "a"\nq4 = "b"\n',
}
