"""Wrong answers for 06_custom_primitive (see tests/wrong_answers/__init__.py)."""

from wrong_answers import W

WRONG = {
    'ex1_answer': [
        W("m", 'Off by one: counts the windows as n - width instead of n - width + 1.',
          'def window_sum_abstract_eval(x, *, width):\n'
          '    if not jnp.issubdtype(x.dtype, jnp.floating):\n'
          "        raise TypeError(f'window_sum needs floats, got {x.dtype}')\n"
          '    if x.ndim == 0:\n'
          "        raise TypeError('window_sum needs an axis')\n"
          '    n = x.shape[-1]\n'
          '    if not 1 <= width <= n:\n'
          "        raise ValueError(f'bad width {width}')\n"
          '    return ShapedArray(x.shape[:-1] + (n - width,), x.dtype)\n'
          '\n'
          '\n'
          'def window_sum(x, width):\n'
          '    return window_sum_p.bind(x, width=int(width))\n'
          '\n'
          '\n'
          'def _window_sum_math(x, *, width):\n'
          '    n_out = x.shape[-1] - width + 1\n'
          '    return sum(x[..., i:i + n_out] for i in range(width))\n'
          '\n'
          '\n'
          "window_sum_p = Primitive('window_sum')\n"
          'window_sum_p.def_impl(_window_sum_math)\n'
          'window_sum_p.def_abstract_eval(window_sum_abstract_eval)\n'
          'mlir.register_lowering(window_sum_p, mlir.lower_fun(_window_sum_math, multiple_results=False))\n'),
        W("m", 'Right shapes, but checks only the dtype: no refusal of a 0-d x or of a width outside 1..n.',
          'def window_sum_abstract_eval(x, *, width):\n'
          '    if not jnp.issubdtype(x.dtype, jnp.floating):\n'
          "        raise TypeError(f'window_sum needs floats, got {x.dtype}')\n"
          '    n = x.shape[-1]\n'
          '    return ShapedArray(x.shape[:-1] + (n - width + 1,), x.dtype)\n'
          '\n'
          '\n'
          'def window_sum(x, width):\n'
          '    return window_sum_p.bind(x, width=int(width))\n'
          '\n'
          '\n'
          'def _window_sum_math(x, *, width):\n'
          '    n_out = x.shape[-1] - width + 1\n'
          '    return sum(x[..., i:i + n_out] for i in range(width))\n'
          '\n'
          '\n'
          "window_sum_p = Primitive('window_sum')\n"
          'window_sum_p.def_impl(_window_sum_math)\n'
          'window_sum_p.def_abstract_eval(window_sum_abstract_eval)\n'
          'mlir.register_lowering(window_sum_p, mlir.lower_fun(_window_sum_math, multiple_results=False))\n'),
    ],
    'ex2_answer': [
        W("m", "Copies the first output's ShapedArray for the second, so the index comes out in x's dtype.",
          'def max_argmax_abstract_eval(x):\n'
          '    if x.ndim == 0:\n'
          "        raise TypeError('max_argmax needs an axis')\n"
          '    if x.shape[-1] == 0:\n'
          "        raise ValueError('empty last axis')\n"
          '    out = ShapedArray(x.shape[:-1], x.dtype)\n'
          '    return [out, out]\n'
          '\n'
          '\n'
          'def _max_argmax_math(x):\n'
          '    return jnp.max(x, axis=-1), jnp.argmax(x, axis=-1).astype(jnp.int32)\n'
          '\n'
          '\n'
          "max_argmax_p = Primitive('max_argmax')\n"
          'max_argmax_p.multiple_results = True\n'
          'max_argmax_p.def_impl(_max_argmax_math)\n'
          'max_argmax_p.def_abstract_eval(max_argmax_abstract_eval)\n'
          'mlir.register_lowering(max_argmax_p, mlir.lower_fun(_max_argmax_math, multiple_results=True))\n'
          '\n'
          '\n'
          'def max_argmax(x):\n'
          '    return tuple(max_argmax_p.bind(x))\n'),
        W("m", "Declares the index as int64 (NumPy's argmax dtype), not int32.",
          'def max_argmax_abstract_eval(x):\n'
          '    if x.ndim == 0:\n'
          "        raise TypeError('max_argmax needs an axis')\n"
          '    if x.shape[-1] == 0:\n'
          "        raise ValueError('empty last axis')\n"
          '    return [ShapedArray(x.shape[:-1], x.dtype), ShapedArray(x.shape[:-1], jnp.int64)]\n'
          '\n'
          '\n'
          'def _max_argmax_math(x):\n'
          '    return jnp.max(x, axis=-1), jnp.argmax(x, axis=-1).astype(jnp.int32)\n'
          '\n'
          '\n'
          "max_argmax_p = Primitive('max_argmax')\n"
          'max_argmax_p.multiple_results = True\n'
          'max_argmax_p.def_impl(_max_argmax_math)\n'
          'max_argmax_p.def_abstract_eval(max_argmax_abstract_eval)\n'
          'mlir.register_lowering(max_argmax_p, mlir.lower_fun(_max_argmax_math, multiple_results=True))\n'
          '\n'
          '\n'
          'def max_argmax(x):\n'
          '    return tuple(max_argmax_p.bind(x))\n'),
        W("m", 'Right results, but no refusals: a 0-d x and an empty last axis are both accepted.',
          'def max_argmax_abstract_eval(x):\n'
          '    return [ShapedArray(x.shape[:-1], x.dtype), ShapedArray(x.shape[:-1], jnp.int32)]\n'
          '\n'
          '\n'
          'def _max_argmax_math(x):\n'
          '    return jnp.max(x, axis=-1), jnp.argmax(x, axis=-1).astype(jnp.int32)\n'
          '\n'
          '\n'
          "max_argmax_p = Primitive('max_argmax')\n"
          'max_argmax_p.multiple_results = True\n'
          'max_argmax_p.def_impl(_max_argmax_math)\n'
          'max_argmax_p.def_abstract_eval(max_argmax_abstract_eval)\n'
          'mlir.register_lowering(max_argmax_p, mlir.lower_fun(_max_argmax_math, multiple_results=True))\n'
          '\n'
          '\n'
          'def max_argmax(x):\n'
          '    return tuple(max_argmax_p.bind(x))\n'),
    ],
    'ex3_answer': [
        W("m", 'Applies the inverse permutation: puts axis i of x at position perm[i].',
          'def permute_abstract_eval(x, *, perm):\n'
          '    if sorted(perm) != list(range(x.ndim)):\n'
          "        raise ValueError(f'{perm} is not a permutation')\n"
          '    shape = [0] * x.ndim\n'
          '    for i, p in enumerate(perm):\n'
          '        shape[p] = x.shape[i]\n'
          '    return ShapedArray(tuple(shape), x.dtype)\n'
          '\n'
          '\n'
          'def permute(x, perm):\n'
          '    ndim = jnp.ndim(x)\n'
          '    return permute_p.bind(x, perm=tuple(int(p) + ndim if p < 0 else int(p) for p in perm))\n'
          '\n'
          '\n'
          "permute_p = Primitive('permute')\n"
          'permute_p.def_abstract_eval(permute_abstract_eval)\n'),
        W("m", 'Right rule, but the wrapper passes negative entries on, and the rule then refuses them.',
          'def permute_abstract_eval(x, *, perm):\n'
          '    if sorted(perm) != list(range(x.ndim)):\n'
          "        raise ValueError(f'{perm} is not a permutation')\n"
          '    return ShapedArray(tuple(x.shape[p] for p in perm), x.dtype)\n'
          '\n'
          '\n'
          'def permute(x, perm):\n'
          '    return permute_p.bind(x, perm=tuple(int(p) for p in perm))\n'
          '\n'
          '\n'
          "permute_p = Primitive('permute')\n"
          'permute_p.def_abstract_eval(permute_abstract_eval)\n'),
    ],
    'quiz_answer': [
        W("m", 'TODO',
          'q1 = "a"\n'
          'q2 = "a"\n'
          'q3 = "b"\n'
          'q4 = "a"\n'),
        W("m", 'TODO',
          'q1 = "b"\n'
          'q2 = "a"\n'
          'q3 = "b"\n'
          'q4 = "a"\n'),
    ],
}
