"""Wrong answers for 01_numpy_interop (see tests/wrong_answers/__init__.py)."""

from wrong_answers import W

WRONG = {
    'ex1_answer': [
        W("m", 'Allocates `align` extra bytes but forgets to slide the start to the aligned address.',
          'def aligned_copy(x, align=64):\n'
          '    raw = np.empty(x.nbytes + align, np.uint8)\n'
          '    out = raw[1:1 + x.nbytes].view(x.dtype).reshape(x.shape)\n'
          '    out[...] = x\n'
          '    return out\n'),
        W("m", 'Aligned, but the values are never copied in: the result is all zeros.',
          'def aligned_copy(x, align=64):\n'
          '    raw = np.zeros(x.nbytes + align, np.uint8)\n'
          '    start = (-raw.ctypes.data) % align\n'
          '    return raw[start:start + x.nbytes].view(x.dtype).reshape(x.shape)\n'),
    ],
    'ex2_answer': [
        W("m", 'device_put aliases aligned input, so later writes leak into the result.',
          'def frozen_put(x):\n'
          '    return jax.device_put(x, may_alias=False)\n'),
        W("m", 'jnp.asarray with a dtype that needs no conversion hands the array to device_put (section 3).',
          'def frozen_put(x):\n'
          '    return jnp.asarray(x, dtype=x.dtype)\n'),
    ],
    'ex3_answer': [
        W("m", 'device_get gives read-only views that share the JAX buffer.',
          'def to_host_tree(tree):\n'
          '    return jax.device_get(tree)\n'),
        W("m", 'Copies every jax.Array leaf, but a typed key cannot become a NumPy array (section 6).',
          'def to_host_tree(tree):\n'
          '    return jax.tree.map(lambda v: np.array(v) if isinstance(v, jax.Array) else v, tree)\n'),
    ],
    'quiz_answer': [
        W("m", 'TODO',
          'q1 = "b"\n'
          'q2 = "a"\n'
          'q3 = "a"\n'
          'q4 = "b"\n'),
        W("m", 'TODO',
          'q1 = "b"\n'
          'q2 = "c"\n'
          'q3 = "b"\n'
          'q4 = "b"\n'),
    ],
}
