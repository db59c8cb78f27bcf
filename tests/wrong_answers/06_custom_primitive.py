"""Wrong answers for 06_custom_primitive (see tests/wrong_answers/__init__.py)."""

from wrong_answers import R, W

APPLIES = {'ex1_answer': 'bcdgm', 'ex2_answer': 'cgm', 'ex3_answer': 'bcdfgm', 'quiz_answer': 'm'}

WRONG = {
    'ex1_answer': [
        W('m', 'Off by one: counts the windows as n - width instead of n - width + 1.',
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
        W('c', 'Checks only the dtype: a 0-d x and a width outside 1..n are accepted (or fail later with the wrong error).',
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
        W('c', 'dtype test with np.issubdtype(..., np.floating): float16/float32 pass, bfloat16 wrongly refused with TypeError',
          'def window_sum_abstract_eval(x, *, width):\n'
          '    if not np.issubdtype(x.dtype, np.floating):\n'
          '        raise TypeError(f"window_sum needs a floating-point array, got {x.dtype}")\n'
          '    if x.ndim == 0:\n'
          '        raise TypeError("window_sum needs an array with at least one axis")\n'
          '    n = x.shape[-1]\n'
          '    if not 1 <= width <= n:\n'
          '        raise ValueError(f"window_sum: width must be between 1 and {n}, got {width}")\n'
          '    return ShapedArray(x.shape[:-1] + (n - width + 1,), x.dtype)\n'
          '\n'
          '\n'
          'def window_sum(x, width):\n'
          '    return window_sum_p.bind(x, width=int(width))\n'
          '\n'
          '\n'
          '# Given: the computation (the sum of `width` shifted slices), the primitive and its rules.\n'
          'def _window_sum_math(x, *, width):\n'
          '    n_out = x.shape[-1] - width + 1\n'
          '    return sum(x[..., i:i + n_out] for i in range(width))\n'
          '\n'
          '\n'
          'window_sum_p = Primitive("window_sum")\n'
          'window_sum_p.def_impl(_window_sum_math)\n'
          'window_sum_p.def_abstract_eval(window_sum_abstract_eval)\n'
          'mlir.register_lowering(window_sum_p, mlir.lower_fun(_window_sum_math, multiple_results=False))\n'),
        W('c', 'off by one, 1 <= width < n: width == n (a single window) wrongly refused',
          'def window_sum_abstract_eval(x, *, width):\n'
          '    if not jnp.issubdtype(x.dtype, jnp.floating):\n'
          '        raise TypeError(f"window_sum needs a floating-point array, got {x.dtype}")\n'
          '    if x.ndim == 0:\n'
          '        raise TypeError("window_sum needs an array with at least one axis")\n'
          '    n = x.shape[-1]\n'
          '    if not 1 <= width < n:\n'
          '        raise ValueError(f"window_sum: width must be between 1 and {n}, got {width}")\n'
          '    return ShapedArray(x.shape[:-1] + (n - width + 1,), x.dtype)\n'
          '\n'
          '\n'
          'def window_sum(x, width):\n'
          '    return window_sum_p.bind(x, width=int(width))\n'
          '\n'
          '\n'
          '# Given: the computation (the sum of `width` shifted slices), the primitive and its rules.\n'
          'def _window_sum_math(x, *, width):\n'
          '    n_out = x.shape[-1] - width + 1\n'
          '    return sum(x[..., i:i + n_out] for i in range(width))\n'
          '\n'
          '\n'
          'window_sum_p = Primitive("window_sum")\n'
          'window_sum_p.def_impl(_window_sum_math)\n'
          'window_sum_p.def_abstract_eval(window_sum_abstract_eval)\n'
          'mlir.register_lowering(window_sum_p, mlir.lower_fun(_window_sum_math, multiple_results=False))\n'),
        W('c', 'no check for 0-d input: x.shape[-1] raises IndexError instead of TypeError',
          'def window_sum_abstract_eval(x, *, width):\n'
          '    if not jnp.issubdtype(x.dtype, jnp.floating):\n'
          '        raise TypeError(f"window_sum needs a floating-point array, got {x.dtype}")\n'
          '    n = x.shape[-1]\n'
          '    if not 1 <= width <= n:\n'
          '        raise ValueError(f"window_sum: width must be between 1 and {n}, got {width}")\n'
          '    return ShapedArray(x.shape[:-1] + (n - width + 1,), x.dtype)\n'
          '\n'
          '\n'
          'def window_sum(x, width):\n'
          '    return window_sum_p.bind(x, width=int(width))\n'
          '\n'
          '\n'
          '# Given: the computation (the sum of `width` shifted slices), the primitive and its rules.\n'
          'def _window_sum_math(x, *, width):\n'
          '    n_out = x.shape[-1] - width + 1\n'
          '    return sum(x[..., i:i + n_out] for i in range(width))\n'
          '\n'
          '\n'
          'window_sum_p = Primitive("window_sum")\n'
          'window_sum_p.def_impl(_window_sum_math)\n'
          'window_sum_p.def_abstract_eval(window_sum_abstract_eval)\n'
          'mlir.register_lowering(window_sum_p, mlir.lower_fun(_window_sum_math, multiple_results=False))\n'),
        W('m', 'TypeError and ValueError swapped (dtype/no axes raise ValueError, bad width TypeError)',
          'def window_sum_abstract_eval(x, *, width):\n'
          '    if not jnp.issubdtype(x.dtype, jnp.floating):\n'
          '        raise ValueError(f"window_sum needs a floating-point array, got {x.dtype}")\n'
          '    if x.ndim == 0:\n'
          '        raise ValueError("window_sum needs an array with at least one axis")\n'
          '    n = x.shape[-1]\n'
          '    if not 1 <= width <= n:\n'
          '        raise TypeError(f"window_sum: width must be between 1 and {n}, got {width}")\n'
          '    return ShapedArray(x.shape[:-1] + (n - width + 1,), x.dtype)\n'
          '\n'
          '\n'
          'def window_sum(x, width):\n'
          '    return window_sum_p.bind(x, width=int(width))\n'
          '\n'
          '\n'
          '# Given: the computation (the sum of `width` shifted slices), the primitive and its rules.\n'
          'def _window_sum_math(x, *, width):\n'
          '    n_out = x.shape[-1] - width + 1\n'
          '    return sum(x[..., i:i + n_out] for i in range(width))\n'
          '\n'
          '\n'
          'window_sum_p = Primitive("window_sum")\n'
          'window_sum_p.def_impl(_window_sum_math)\n'
          'window_sum_p.def_abstract_eval(window_sum_abstract_eval)\n'
          'mlir.register_lowering(window_sum_p, mlir.lower_fun(_window_sum_math, multiple_results=False))\n'),
        W('b', 'The wrapper binds width as given: width=np.int64(3) puts an np.int64 parameter in the equation, not the int 3.',
          'def window_sum_abstract_eval(x, *, width):\n'
          '    if not jnp.issubdtype(x.dtype, jnp.floating):\n'
          '        raise TypeError(f"window_sum needs a floating-point array, got {x.dtype}")\n'
          '    if x.ndim == 0:\n'
          '        raise TypeError("window_sum needs an array with at least one axis")\n'
          '    n = x.shape[-1]\n'
          '    if not 1 <= width <= n:\n'
          '        raise ValueError(f"window_sum: width must be between 1 and {n}, got {width}")\n'
          '    return ShapedArray(x.shape[:-1] + (n - width + 1,), x.dtype)\n'
          '\n'
          '\n'
          'def window_sum(x, width):\n'
          '    return window_sum_p.bind(x, width=width)\n'
          '\n'
          '\n'
          '# Given: the computation (the sum of `width` shifted slices), the primitive and its rules.\n'
          'def _window_sum_math(x, *, width):\n'
          '    n_out = x.shape[-1] - width + 1\n'
          '    return sum(x[..., i:i + n_out] for i in range(width))\n'
          '\n'
          '\n'
          'window_sum_p = Primitive("window_sum")\n'
          'window_sum_p.def_impl(_window_sum_math)\n'
          'window_sum_p.def_abstract_eval(window_sum_abstract_eval)\n'
          'mlir.register_lowering(window_sum_p, mlir.lower_fun(_window_sum_math, multiple_results=False))\n'),
        W('d', 'wrapper calls _window_sum_math directly instead of binding window_sum_p: no window_sum equation, no checks',
          'def window_sum_abstract_eval(x, *, width):\n'
          '    if not jnp.issubdtype(x.dtype, jnp.floating):\n'
          '        raise TypeError(f"window_sum needs a floating-point array, got {x.dtype}")\n'
          '    if x.ndim == 0:\n'
          '        raise TypeError("window_sum needs an array with at least one axis")\n'
          '    n = x.shape[-1]\n'
          '    if not 1 <= width <= n:\n'
          '        raise ValueError(f"window_sum: width must be between 1 and {n}, got {width}")\n'
          '    return ShapedArray(x.shape[:-1] + (n - width + 1,), x.dtype)\n'
          '\n'
          '\n'
          'def window_sum(x, width):\n'
          '    return _window_sum_math(x, width=int(width))\n'
          '\n'
          '\n'
          '# Given: the computation (the sum of `width` shifted slices), the primitive and its rules.\n'
          'def _window_sum_math(x, *, width):\n'
          '    n_out = x.shape[-1] - width + 1\n'
          '    return sum(x[..., i:i + n_out] for i in range(width))\n'
          '\n'
          '\n'
          'window_sum_p = Primitive("window_sum")\n'
          'window_sum_p.def_impl(_window_sum_math)\n'
          'window_sum_p.def_abstract_eval(window_sum_abstract_eval)\n'
          'mlir.register_lowering(window_sum_p, mlir.lower_fun(_window_sum_math, multiple_results=False))\n'),
        W('m', 'wrapper binds width positionally, as an operand: the rule gets 2 positional args, TypeError when traced (and eagerly)',
          'def window_sum_abstract_eval(x, *, width):\n'
          '    if not jnp.issubdtype(x.dtype, jnp.floating):\n'
          '        raise TypeError(f"window_sum needs a floating-point array, got {x.dtype}")\n'
          '    if x.ndim == 0:\n'
          '        raise TypeError("window_sum needs an array with at least one axis")\n'
          '    n = x.shape[-1]\n'
          '    if not 1 <= width <= n:\n'
          '        raise ValueError(f"window_sum: width must be between 1 and {n}, got {width}")\n'
          '    return ShapedArray(x.shape[:-1] + (n - width + 1,), x.dtype)\n'
          '\n'
          '\n'
          'def window_sum(x, width):\n'
          '    return window_sum_p.bind(x, int(width))\n'
          '\n'
          '\n'
          '# Given: the computation (the sum of `width` shifted slices), the primitive and its rules.\n'
          'def _window_sum_math(x, *, width):\n'
          '    n_out = x.shape[-1] - width + 1\n'
          '    return sum(x[..., i:i + n_out] for i in range(width))\n'
          '\n'
          '\n'
          'window_sum_p = Primitive("window_sum")\n'
          'window_sum_p.def_impl(_window_sum_math)\n'
          'window_sum_p.def_abstract_eval(window_sum_abstract_eval)\n'
          'mlir.register_lowering(window_sum_p, mlir.lower_fun(_window_sum_math, multiple_results=False))\n'),
        W('g', 'result shape (n - width + 1,) only: right for 1-D x, drops the leading axes of 2-D/3-D x (and jit fails to lower)',
          'def window_sum_abstract_eval(x, *, width):\n'
          '    if not jnp.issubdtype(x.dtype, jnp.floating):\n'
          '        raise TypeError(f"window_sum needs a floating-point array, got {x.dtype}")\n'
          '    if x.ndim == 0:\n'
          '        raise TypeError("window_sum needs an array with at least one axis")\n'
          '    n = x.shape[-1]\n'
          '    if not 1 <= width <= n:\n'
          '        raise ValueError(f"window_sum: width must be between 1 and {n}, got {width}")\n'
          '    return ShapedArray((n - width + 1,), x.dtype)\n'
          '\n'
          '\n'
          'def window_sum(x, width):\n'
          '    return window_sum_p.bind(x, width=int(width))\n'
          '\n'
          '\n'
          '# Given: the computation (the sum of `width` shifted slices), the primitive and its rules.\n'
          'def _window_sum_math(x, *, width):\n'
          '    n_out = x.shape[-1] - width + 1\n'
          '    return sum(x[..., i:i + n_out] for i in range(width))\n'
          '\n'
          '\n'
          'window_sum_p = Primitive("window_sum")\n'
          'window_sum_p.def_impl(_window_sum_math)\n'
          'window_sum_p.def_abstract_eval(window_sum_abstract_eval)\n'
          'mlir.register_lowering(window_sum_p, mlir.lower_fun(_window_sum_math, multiple_results=False))\n'),
        W('g', "Result dtype fixed to float32 (the visible inputs' dtype): float16 and bfloat16 inputs get float32 avals.",
          'def window_sum_abstract_eval(x, *, width):\n'
          '    if not jnp.issubdtype(x.dtype, jnp.floating):\n'
          '        raise TypeError(f"window_sum needs a floating-point array, got {x.dtype}")\n'
          '    if x.ndim == 0:\n'
          '        raise TypeError("window_sum needs an array with at least one axis")\n'
          '    n = x.shape[-1]\n'
          '    if not 1 <= width <= n:\n'
          '        raise ValueError(f"window_sum: width must be between 1 and {n}, got {width}")\n'
          '    return ShapedArray(x.shape[:-1] + (n - width + 1,), jnp.float32)\n'
          '\n'
          '\n'
          'def window_sum(x, width):\n'
          '    return window_sum_p.bind(x, width=int(width))\n'
          '\n'
          '\n'
          '# Given: the computation (the sum of `width` shifted slices), the primitive and its rules.\n'
          'def _window_sum_math(x, *, width):\n'
          '    n_out = x.shape[-1] - width + 1\n'
          '    return sum(x[..., i:i + n_out] for i in range(width))\n'
          '\n'
          '\n'
          'window_sum_p = Primitive("window_sum")\n'
          'window_sum_p.def_impl(_window_sum_math)\n'
          'window_sum_p.def_abstract_eval(window_sum_abstract_eval)\n'
          'mlir.register_lowering(window_sum_p, mlir.lower_fun(_window_sum_math, multiple_results=False))\n'),
        W('c', 'checks only width <= n: width 0 or negative accepted (shape n+1, n+2)',
          'def window_sum_abstract_eval(x, *, width):\n'
          '    if not jnp.issubdtype(x.dtype, jnp.floating):\n'
          '        raise TypeError(f"window_sum needs a floating-point array, got {x.dtype}")\n'
          '    if x.ndim == 0:\n'
          '        raise TypeError("window_sum needs an array with at least one axis")\n'
          '    n = x.shape[-1]\n'
          '    if width > n:\n'
          '        raise ValueError(f"window_sum: width must be between 1 and {n}, got {width}")\n'
          '    return ShapedArray(x.shape[:-1] + (n - width + 1,), x.dtype)\n'
          '\n'
          '\n'
          'def window_sum(x, width):\n'
          '    return window_sum_p.bind(x, width=int(width))\n'
          '\n'
          '\n'
          '# Given: the computation (the sum of `width` shifted slices), the primitive and its rules.\n'
          'def _window_sum_math(x, *, width):\n'
          '    n_out = x.shape[-1] - width + 1\n'
          '    return sum(x[..., i:i + n_out] for i in range(width))\n'
          '\n'
          '\n'
          'window_sum_p = Primitive("window_sum")\n'
          'window_sum_p.def_impl(_window_sum_math)\n'
          'window_sum_p.def_abstract_eval(window_sum_abstract_eval)\n'
          'mlir.register_lowering(window_sum_p, mlir.lower_fun(_window_sum_math, multiple_results=False))\n'),
        W('c', 'reads n = x.shape[-1] before the no-axes check: a 0-d x raises IndexError instead of TypeError',
          'def window_sum_abstract_eval(x, *, width):\n'
          '    n = x.shape[-1]\n'
          '    if not jnp.issubdtype(x.dtype, jnp.floating):\n'
          '        raise TypeError(f"window_sum needs a floating-point array, got {x.dtype}")\n'
          '    if x.ndim == 0:\n'
          '        raise TypeError("window_sum needs an array with at least one axis")\n'
          '    if not 1 <= width <= n:\n'
          '        raise ValueError(f"window_sum: width must be between 1 and {n}, got {width}")\n'
          '    return ShapedArray(x.shape[:-1] + (n - width + 1,), x.dtype)\n'
          '\n'
          '\n'
          'def window_sum(x, width):\n'
          '    return window_sum_p.bind(x, width=int(width))\n'
          '\n'
          '\n'
          '# Given: the computation (the sum of `width` shifted slices), the primitive and its rules.\n'
          'def _window_sum_math(x, *, width):\n'
          '    n_out = x.shape[-1] - width + 1\n'
          '    return sum(x[..., i:i + n_out] for i in range(width))\n'
          '\n'
          '\n'
          'window_sum_p = Primitive("window_sum")\n'
          'window_sum_p.def_impl(_window_sum_math)\n'
          'window_sum_p.def_abstract_eval(window_sum_abstract_eval)\n'
          'mlir.register_lowering(window_sum_p, mlir.lower_fun(_window_sum_math, multiple_results=False))\n'),
        W('c', 'off by one in the range check (1 <= width < n): width == n, a valid single window, raises ValueError',
          'def window_sum_abstract_eval(x, *, width):\n'
          '    if not jnp.issubdtype(x.dtype, jnp.floating):\n'
          '        raise TypeError(f"window_sum needs a floating-point array, got {x.dtype}")\n'
          '    if x.ndim == 0:\n'
          '        raise TypeError("window_sum needs an array with at least one axis")\n'
          '    n = x.shape[-1]\n'
          '    if not 1 <= width < n:\n'
          '        raise ValueError(f"window_sum: width must be between 1 and {n - 1}, got {width}")\n'
          '    return ShapedArray(x.shape[:-1] + (n - width + 1,), x.dtype)\n'
          '\n'
          '\n'
          'def window_sum(x, width):\n'
          '    return window_sum_p.bind(x, width=int(width))\n'
          '\n'
          '\n'
          '# Given: the computation (the sum of `width` shifted slices), the primitive and its rules.\n'
          'def _window_sum_math(x, *, width):\n'
          '    n_out = x.shape[-1] - width + 1\n'
          '    return sum(x[..., i:i + n_out] for i in range(width))\n'
          '\n'
          '\n'
          'window_sum_p = Primitive("window_sum")\n'
          'window_sum_p.def_impl(_window_sum_math)\n'
          'window_sum_p.def_abstract_eval(window_sum_abstract_eval)\n'
          'mlir.register_lowering(window_sum_p, mlir.lower_fun(_window_sum_math, multiple_results=False))\n'),
        W('g', 'leading axes written for a vector or a matrix ((x.shape[0],) or ()): right for 1-D and 2-D x, drops the middle axes of a 3-D x',
          'def window_sum_abstract_eval(x, *, width):\n'
          '    if not jnp.issubdtype(x.dtype, jnp.floating):\n'
          '        raise TypeError(f"window_sum needs a floating-point array, got {x.dtype}")\n'
          '    if x.ndim == 0:\n'
          '        raise TypeError("window_sum needs an array with at least one axis")\n'
          '    n = x.shape[-1]\n'
          '    if not 1 <= width <= n:\n'
          '        raise ValueError(f"window_sum: width must be between 1 and {n}, got {width}")\n'
          '    rows = (x.shape[0],) if x.ndim > 1 else ()\n'
          '    return ShapedArray(rows + (n - width + 1,), x.dtype)\n'
          '\n'
          '\n'
          'def window_sum(x, width):\n'
          '    return window_sum_p.bind(x, width=int(width))\n'
          '\n'
          '\n'
          '# Given: the computation (the sum of `width` shifted slices), the primitive and its rules.\n'
          'def _window_sum_math(x, *, width):\n'
          '    n_out = x.shape[-1] - width + 1\n'
          '    return sum(x[..., i:i + n_out] for i in range(width))\n'
          '\n'
          '\n'
          'window_sum_p = Primitive("window_sum")\n'
          'window_sum_p.def_impl(_window_sum_math)\n'
          'window_sum_p.def_abstract_eval(window_sum_abstract_eval)\n'
          'mlir.register_lowering(window_sum_p, mlir.lower_fun(_window_sum_math, multiple_results=False))\n'),
    ],
    'ex2_answer': [
        W('m', "Copies the first output's ShapedArray for the second, so the index comes out in x's dtype, not int32.",
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
        W('m', "Declares the index as int64 (NumPy's argmax dtype), not int32.",
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
        W('c', 'Right results, but no refusals: a 0-d x and an empty last axis are both accepted (or fail with the wrong error).',
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
        W('m', "sets multiple_outputs instead of multiple_results: eager works, every trace raises the 'iff multiple_results' ValueError",
          'def max_argmax_abstract_eval(x):\n'
          '    if x.ndim == 0:\n'
          '        raise TypeError("max_argmax needs an array with at least one axis")\n'
          '    if x.shape[-1] == 0:\n'
          '        raise ValueError("max_argmax needs a non-empty last axis")\n'
          '    batch = x.shape[:-1]\n'
          '    return [ShapedArray(batch, x.dtype), ShapedArray(batch, jnp.int32)]\n'
          '\n'
          '\n'
          '# Given: the computation, the primitive (with your line) and its rules, and the wrapper.\n'
          'def _max_argmax_math(x):\n'
          '    return jnp.max(x, axis=-1), jnp.argmax(x, axis=-1).astype(jnp.int32)\n'
          '\n'
          '\n'
          'max_argmax_p = Primitive("max_argmax")\n'
          'max_argmax_p.multiple_outputs = True\n'
          'max_argmax_p.def_impl(_max_argmax_math)\n'
          'max_argmax_p.def_abstract_eval(max_argmax_abstract_eval)\n'
          'mlir.register_lowering(max_argmax_p, mlir.lower_fun(_max_argmax_math, multiple_results=True))\n'
          '\n'
          '\n'
          'def max_argmax(x):\n'
          '    return tuple(max_argmax_p.bind(x))\n'),
        W('m', 'Index result built as ShapedArray(batch, x.dtype): a float index aval, and jit fails to lower the int32 argmax.',
          'def max_argmax_abstract_eval(x):\n'
          '    if x.ndim == 0:\n'
          '        raise TypeError("max_argmax needs an array with at least one axis")\n'
          '    if x.shape[-1] == 0:\n'
          '        raise ValueError("max_argmax needs a non-empty last axis")\n'
          '    batch = x.shape[:-1]\n'
          '    return [ShapedArray(batch, x.dtype), ShapedArray(batch, x.dtype)]\n'
          '\n'
          '\n'
          '# Given: the computation, the primitive (with your line) and its rules, and the wrapper.\n'
          'def _max_argmax_math(x):\n'
          '    return jnp.max(x, axis=-1), jnp.argmax(x, axis=-1).astype(jnp.int32)\n'
          '\n'
          '\n'
          'max_argmax_p = Primitive("max_argmax")\n'
          'max_argmax_p.multiple_results = True\n'
          'max_argmax_p.def_impl(_max_argmax_math)\n'
          'max_argmax_p.def_abstract_eval(max_argmax_abstract_eval)\n'
          'mlir.register_lowering(max_argmax_p, mlir.lower_fun(_max_argmax_math, multiple_results=True))\n'
          '\n'
          '\n'
          'def max_argmax(x):\n'
          '    return tuple(max_argmax_p.bind(x))\n'),
        W('m', 'Index result declared int64 with x64 off (a second form of the int64 slip).',
          'def max_argmax_abstract_eval(x):\n'
          '    if x.ndim == 0:\n'
          '        raise TypeError("max_argmax needs an array with at least one axis")\n'
          '    if x.shape[-1] == 0:\n'
          '        raise ValueError("max_argmax needs a non-empty last axis")\n'
          '    batch = x.shape[:-1]\n'
          '    return [ShapedArray(batch, x.dtype), ShapedArray(batch, jnp.int64)]\n'
          '\n'
          '\n'
          '# Given: the computation, the primitive (with your line) and its rules, and the wrapper.\n'
          'def _max_argmax_math(x):\n'
          '    return jnp.max(x, axis=-1), jnp.argmax(x, axis=-1).astype(jnp.int32)\n'
          '\n'
          '\n'
          'max_argmax_p = Primitive("max_argmax")\n'
          'max_argmax_p.multiple_results = True\n'
          'max_argmax_p.def_impl(_max_argmax_math)\n'
          'max_argmax_p.def_abstract_eval(max_argmax_abstract_eval)\n'
          'mlir.register_lowering(max_argmax_p, mlir.lower_fun(_max_argmax_math, multiple_results=True))\n'
          '\n'
          '\n'
          'def max_argmax(x):\n'
          '    return tuple(max_argmax_p.bind(x))\n'),
        W('c', 'no check for an empty last axis: shape (3, 0) returns avals instead of ValueError',
          'def max_argmax_abstract_eval(x):\n'
          '    if x.ndim == 0:\n'
          '        raise TypeError("max_argmax needs an array with at least one axis")\n'
          '    batch = x.shape[:-1]\n'
          '    return [ShapedArray(batch, x.dtype), ShapedArray(batch, jnp.int32)]\n'
          '\n'
          '\n'
          '# Given: the computation, the primitive (with your line) and its rules, and the wrapper.\n'
          'def _max_argmax_math(x):\n'
          '    return jnp.max(x, axis=-1), jnp.argmax(x, axis=-1).astype(jnp.int32)\n'
          '\n'
          '\n'
          'max_argmax_p = Primitive("max_argmax")\n'
          'max_argmax_p.multiple_results = True\n'
          'max_argmax_p.def_impl(_max_argmax_math)\n'
          'max_argmax_p.def_abstract_eval(max_argmax_abstract_eval)\n'
          'mlir.register_lowering(max_argmax_p, mlir.lower_fun(_max_argmax_math, multiple_results=True))\n'
          '\n'
          '\n'
          'def max_argmax(x):\n'
          '    return tuple(max_argmax_p.bind(x))\n'),
        W('c', 'no check for 0-d input: x.shape[-1] raises IndexError instead of TypeError',
          'def max_argmax_abstract_eval(x):\n'
          '    if x.shape[-1] == 0:\n'
          '        raise ValueError("max_argmax needs a non-empty last axis")\n'
          '    batch = x.shape[:-1]\n'
          '    return [ShapedArray(batch, x.dtype), ShapedArray(batch, jnp.int32)]\n'
          '\n'
          '\n'
          '# Given: the computation, the primitive (with your line) and its rules, and the wrapper.\n'
          'def _max_argmax_math(x):\n'
          '    return jnp.max(x, axis=-1), jnp.argmax(x, axis=-1).astype(jnp.int32)\n'
          '\n'
          '\n'
          'max_argmax_p = Primitive("max_argmax")\n'
          'max_argmax_p.multiple_results = True\n'
          'max_argmax_p.def_impl(_max_argmax_math)\n'
          'max_argmax_p.def_abstract_eval(max_argmax_abstract_eval)\n'
          'mlir.register_lowering(max_argmax_p, mlir.lower_fun(_max_argmax_math, multiple_results=True))\n'
          '\n'
          '\n'
          'def max_argmax(x):\n'
          '    return tuple(max_argmax_p.bind(x))\n'),
        W('m', 'TypeError and ValueError swapped',
          'def max_argmax_abstract_eval(x):\n'
          '    if x.ndim == 0:\n'
          '        raise ValueError("max_argmax needs an array with at least one axis")\n'
          '    if x.shape[-1] == 0:\n'
          '        raise TypeError("max_argmax needs a non-empty last axis")\n'
          '    batch = x.shape[:-1]\n'
          '    return [ShapedArray(batch, x.dtype), ShapedArray(batch, jnp.int32)]\n'
          '\n'
          '\n'
          '# Given: the computation, the primitive (with your line) and its rules, and the wrapper.\n'
          'def _max_argmax_math(x):\n'
          '    return jnp.max(x, axis=-1), jnp.argmax(x, axis=-1).astype(jnp.int32)\n'
          '\n'
          '\n'
          'max_argmax_p = Primitive("max_argmax")\n'
          'max_argmax_p.multiple_results = True\n'
          'max_argmax_p.def_impl(_max_argmax_math)\n'
          'max_argmax_p.def_abstract_eval(max_argmax_abstract_eval)\n'
          'mlir.register_lowering(max_argmax_p, mlir.lower_fun(_max_argmax_math, multiple_results=True))\n'
          '\n'
          '\n'
          'def max_argmax(x):\n'
          '    return tuple(max_argmax_p.bind(x))\n'),
        W('g', 'batch shape x.shape[:1] (rows of a matrix): right for 2-D, wrong for 1-D (gives (n,)) and 3-D',
          'def max_argmax_abstract_eval(x):\n'
          '    if x.ndim == 0:\n'
          '        raise TypeError("max_argmax needs an array with at least one axis")\n'
          '    if x.shape[-1] == 0:\n'
          '        raise ValueError("max_argmax needs a non-empty last axis")\n'
          '    batch = x.shape[:1]\n'
          '    return [ShapedArray(batch, x.dtype), ShapedArray(batch, jnp.int32)]\n'
          '\n'
          '\n'
          '# Given: the computation, the primitive (with your line) and its rules, and the wrapper.\n'
          'def _max_argmax_math(x):\n'
          '    return jnp.max(x, axis=-1), jnp.argmax(x, axis=-1).astype(jnp.int32)\n'
          '\n'
          '\n'
          'max_argmax_p = Primitive("max_argmax")\n'
          'max_argmax_p.multiple_results = True\n'
          'max_argmax_p.def_impl(_max_argmax_math)\n'
          'max_argmax_p.def_abstract_eval(max_argmax_abstract_eval)\n'
          'mlir.register_lowering(max_argmax_p, mlir.lower_fun(_max_argmax_math, multiple_results=True))\n'
          '\n'
          '\n'
          'def max_argmax(x):\n'
          '    return tuple(max_argmax_p.bind(x))\n'),
        W('c', 'empty test on x.size: an empty batch (0, 5) with a non-empty last axis wrongly refused',
          'def max_argmax_abstract_eval(x):\n'
          '    if x.ndim == 0:\n'
          '        raise TypeError("max_argmax needs an array with at least one axis")\n'
          '    if x.size == 0:\n'
          '        raise ValueError("max_argmax needs a non-empty last axis")\n'
          '    batch = x.shape[:-1]\n'
          '    return [ShapedArray(batch, x.dtype), ShapedArray(batch, jnp.int32)]\n'
          '\n'
          '\n'
          '# Given: the computation, the primitive (with your line) and its rules, and the wrapper.\n'
          'def _max_argmax_math(x):\n'
          '    return jnp.max(x, axis=-1), jnp.argmax(x, axis=-1).astype(jnp.int32)\n'
          '\n'
          '\n'
          'max_argmax_p = Primitive("max_argmax")\n'
          'max_argmax_p.multiple_results = True\n'
          'max_argmax_p.def_impl(_max_argmax_math)\n'
          'max_argmax_p.def_abstract_eval(max_argmax_abstract_eval)\n'
          'mlir.register_lowering(max_argmax_p, mlir.lower_fun(_max_argmax_math, multiple_results=True))\n'
          '\n'
          '\n'
          'def max_argmax(x):\n'
          '    return tuple(max_argmax_p.bind(x))\n'),
        W('g', "Maximum's aval fixed to float32 (the visible dtype): bfloat16, float16 and int inputs get the wrong dtype.",
          'def max_argmax_abstract_eval(x):\n'
          '    if x.ndim == 0:\n'
          '        raise TypeError("max_argmax needs an array with at least one axis")\n'
          '    if x.shape[-1] == 0:\n'
          '        raise ValueError("max_argmax needs a non-empty last axis")\n'
          '    batch = x.shape[:-1]\n'
          '    return [ShapedArray(batch, jnp.float32), ShapedArray(batch, jnp.int32)]\n'
          '\n'
          '\n'
          '# Given: the computation, the primitive (with your line) and its rules, and the wrapper.\n'
          'def _max_argmax_math(x):\n'
          '    return jnp.max(x, axis=-1), jnp.argmax(x, axis=-1).astype(jnp.int32)\n'
          '\n'
          '\n'
          'max_argmax_p = Primitive("max_argmax")\n'
          'max_argmax_p.multiple_results = True\n'
          'max_argmax_p.def_impl(_max_argmax_math)\n'
          'max_argmax_p.def_abstract_eval(max_argmax_abstract_eval)\n'
          'mlir.register_lowering(max_argmax_p, mlir.lower_fun(_max_argmax_math, multiple_results=True))\n'
          '\n'
          '\n'
          'def max_argmax(x):\n'
          '    return tuple(max_argmax_p.bind(x))\n'),
        W('c', 'refuses any empty array (x.size == 0): shape (0, 5), an empty batch that the text says is fine, raises ValueError',
          'def max_argmax_abstract_eval(x):\n'
          '    if x.ndim == 0:\n'
          '        raise TypeError("max_argmax needs an array with at least one axis")\n'
          '    if x.size == 0:\n'
          '        raise ValueError("max_argmax needs a non-empty array")\n'
          '    batch = x.shape[:-1]\n'
          '    return [ShapedArray(batch, x.dtype), ShapedArray(batch, jnp.int32)]\n'
          '\n'
          '\n'
          '# Given: the computation, the primitive (with your line) and its rules, and the wrapper.\n'
          'def _max_argmax_math(x):\n'
          '    return jnp.max(x, axis=-1), jnp.argmax(x, axis=-1).astype(jnp.int32)\n'
          '\n'
          '\n'
          'max_argmax_p = Primitive("max_argmax")\n'
          'max_argmax_p.multiple_results = True\n'
          'max_argmax_p.def_impl(_max_argmax_math)\n'
          'max_argmax_p.def_abstract_eval(max_argmax_abstract_eval)\n'
          'mlir.register_lowering(max_argmax_p, mlir.lower_fun(_max_argmax_math, multiple_results=True))\n'
          '\n'
          '\n'
          'def max_argmax(x):\n'
          '    return tuple(max_argmax_p.bind(x))\n'),
        W('c', 'unpacks *batch, n = x.shape before the no-axes check: 0-d x raises ValueError (unpacking) instead of TypeError',
          'def max_argmax_abstract_eval(x):\n'
          '    *batch, n = x.shape\n'
          '    if x.ndim == 0:\n'
          '        raise TypeError("max_argmax needs an array with at least one axis")\n'
          '    if n == 0:\n'
          '        raise ValueError("max_argmax needs a non-empty last axis")\n'
          '    return [ShapedArray(tuple(batch), x.dtype), ShapedArray(tuple(batch), jnp.int32)]\n'
          '\n'
          '\n'
          '# Given: the computation, the primitive (with your line) and its rules, and the wrapper.\n'
          'def _max_argmax_math(x):\n'
          '    return jnp.max(x, axis=-1), jnp.argmax(x, axis=-1).astype(jnp.int32)\n'
          '\n'
          '\n'
          'max_argmax_p = Primitive("max_argmax")\n'
          'max_argmax_p.multiple_results = True\n'
          'max_argmax_p.def_impl(_max_argmax_math)\n'
          'max_argmax_p.def_abstract_eval(max_argmax_abstract_eval)\n'
          'mlir.register_lowering(max_argmax_p, mlir.lower_fun(_max_argmax_math, multiple_results=True))\n'
          '\n'
          '\n'
          'def max_argmax(x):\n'
          '    return tuple(max_argmax_p.bind(x))\n'),
        W('g', 'batch shape written for a matrix or a vector ((x.shape[0],) or ()): wrong for x with 3 or more axes',
          'def max_argmax_abstract_eval(x):\n'
          '    if x.ndim == 0:\n'
          '        raise TypeError("max_argmax needs an array with at least one axis")\n'
          '    if x.shape[-1] == 0:\n'
          '        raise ValueError("max_argmax needs a non-empty last axis")\n'
          '    batch = (x.shape[0],) if x.ndim > 1 else ()      # one result per row, or one for a single row\n'
          '    return [ShapedArray(batch, x.dtype), ShapedArray(batch, jnp.int32)]\n'
          '\n'
          '\n'
          '# Given: the computation, the primitive (with your line) and its rules, and the wrapper.\n'
          'def _max_argmax_math(x):\n'
          '    return jnp.max(x, axis=-1), jnp.argmax(x, axis=-1).astype(jnp.int32)\n'
          '\n'
          '\n'
          'max_argmax_p = Primitive("max_argmax")\n'
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
        W('m', 'Applies the inverse permutation: puts axis i of x at position perm[i].',
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
        W('c', 'checks length and range only: duplicates such as (0, 0, 1) accepted',
          'def permute_abstract_eval(x, *, perm):\n'
          '    if len(perm) != x.ndim or not all(0 <= p < x.ndim for p in perm):\n'
          '        raise ValueError(f"permute: {perm} is not a permutation of the {x.ndim} axes")\n'
          '    return ShapedArray(tuple(x.shape[p] for p in perm), x.dtype)\n'
          '\n'
          '\n'
          'def permute(x, perm):\n'
          '    ndim = jnp.ndim(x)\n'
          '    return permute_p.bind(x, perm=tuple(int(p) + ndim if p < 0 else int(p) for p in perm))\n'
          '\n'
          '\n'
          '# Given: a primitive with an abstract evaluation rule and nothing else.\n'
          'permute_p = Primitive("permute")\n'
          '_ = permute_p.def_abstract_eval(permute_abstract_eval)   # it returns the rule; nothing to display\n'),
        W('c', 'set(perm) == set(range(ndim)): a repeated entry with the right set, (0, 1, 1, 2), accepted for a 3-D x',
          'def permute_abstract_eval(x, *, perm):\n'
          '    if set(perm) != set(range(x.ndim)):\n'
          '        raise ValueError(f"permute: {perm} is not a permutation of the {x.ndim} axes")\n'
          '    return ShapedArray(tuple(x.shape[p] for p in perm), x.dtype)\n'
          '\n'
          '\n'
          'def permute(x, perm):\n'
          '    ndim = jnp.ndim(x)\n'
          '    return permute_p.bind(x, perm=tuple(int(p) + ndim if p < 0 else int(p) for p in perm))\n'
          '\n'
          '\n'
          '# Given: a primitive with an abstract evaluation rule and nothing else.\n'
          'permute_p = Primitive("permute")\n'
          '_ = permute_p.def_abstract_eval(permute_abstract_eval)   # it returns the rule; nothing to display\n'),
        W('m', 'wrapper binds perm as a list: unhashable parameter, TypeError on every trace',
          'def permute_abstract_eval(x, *, perm):\n'
          '    if sorted(perm) != list(range(x.ndim)):\n'
          '        raise ValueError(f"permute: {perm} is not a permutation of the {x.ndim} axes")\n'
          '    return ShapedArray(tuple(x.shape[p] for p in perm), x.dtype)\n'
          '\n'
          '\n'
          'def permute(x, perm):\n'
          '    ndim = jnp.ndim(x)\n'
          '    return permute_p.bind(x, perm=[p + ndim if p < 0 else p for p in perm])\n'
          '\n'
          '\n'
          '# Given: a primitive with an abstract evaluation rule and nothing else.\n'
          'permute_p = Primitive("permute")\n'
          '_ = permute_p.def_abstract_eval(permute_abstract_eval)   # it returns the rule; nothing to display\n'),
        W('b', 'The wrapper keeps entries as given: NumPy integer entries bind np.int64s, not Python ints.',
          'def permute_abstract_eval(x, *, perm):\n'
          '    if sorted(perm) != list(range(x.ndim)):\n'
          '        raise ValueError(f"permute: {perm} is not a permutation of the {x.ndim} axes")\n'
          '    return ShapedArray(tuple(x.shape[p] for p in perm), x.dtype)\n'
          '\n'
          '\n'
          'def permute(x, perm):\n'
          '    ndim = jnp.ndim(x)\n'
          '    return permute_p.bind(x, perm=tuple(p + ndim if p < 0 else p for p in perm))\n'
          '\n'
          '\n'
          '# Given: a primitive with an abstract evaluation rule and nothing else.\n'
          'permute_p = Primitive("permute")\n'
          '_ = permute_p.def_abstract_eval(permute_abstract_eval)   # it returns the rule; nothing to display\n'),
        W('c', 'wrapper reduces every entry modulo ndim: out-of-range 3 and -4 wrap around instead of being refused',
          'def permute_abstract_eval(x, *, perm):\n'
          '    if sorted(perm) != list(range(x.ndim)):\n'
          '        raise ValueError(f"permute: {perm} is not a permutation of the {x.ndim} axes")\n'
          '    return ShapedArray(tuple(x.shape[p] for p in perm), x.dtype)\n'
          '\n'
          '\n'
          'def permute(x, perm):\n'
          '    ndim = jnp.ndim(x)\n'
          '    return permute_p.bind(x, perm=tuple(int(p) % ndim for p in perm))\n'
          '\n'
          '\n'
          '# Given: a primitive with an abstract evaluation rule and nothing else.\n'
          'permute_p = Primitive("permute")\n'
          '_ = permute_p.def_abstract_eval(permute_abstract_eval)   # it returns the rule; nothing to display\n'),
        W('c', 'Negative entries not converted: the wrapper passes (-1, 0) on and the rule refuses it.',
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
        W('g', 'result shape x.shape[::-1] (a transpose): right for 2-D (1, 0) and full reversals only',
          'def permute_abstract_eval(x, *, perm):\n'
          '    if sorted(perm) != list(range(x.ndim)):\n'
          '        raise ValueError(f"permute: {perm} is not a permutation of the {x.ndim} axes")\n'
          '    return ShapedArray(x.shape[::-1], x.dtype)\n'
          '\n'
          '\n'
          'def permute(x, perm):\n'
          '    ndim = jnp.ndim(x)\n'
          '    return permute_p.bind(x, perm=tuple(int(p) + ndim if p < 0 else int(p) for p in perm))\n'
          '\n'
          '\n'
          '# Given: a primitive with an abstract evaluation rule and nothing else.\n'
          'permute_p = Primitive("permute")\n'
          '_ = permute_p.def_abstract_eval(permute_abstract_eval)   # it returns the rule; nothing to display\n'),
        W('g', "Result dtype fixed to float32 (the visible inputs' dtype): int8 and bfloat16 inputs get float32.",
          'def permute_abstract_eval(x, *, perm):\n'
          '    if sorted(perm) != list(range(x.ndim)):\n'
          '        raise ValueError(f"permute: {perm} is not a permutation of the {x.ndim} axes")\n'
          '    return ShapedArray(tuple(x.shape[p] for p in perm), jnp.float32)\n'
          '\n'
          '\n'
          'def permute(x, perm):\n'
          '    ndim = jnp.ndim(x)\n'
          '    return permute_p.bind(x, perm=tuple(int(p) + ndim if p < 0 else int(p) for p in perm))\n'
          '\n'
          '\n'
          '# Given: a primitive with an abstract evaluation rule and nothing else.\n'
          'permute_p = Primitive("permute")\n'
          '_ = permute_p.def_abstract_eval(permute_abstract_eval)   # it returns the rule; nothing to display\n'),
        W('d', "wrapper calls jnp.transpose instead of binding permute_p: the jaxpr holds transpose, errors are jnp's",
          'def permute_abstract_eval(x, *, perm):\n'
          '    if sorted(perm) != list(range(x.ndim)):\n'
          '        raise ValueError(f"permute: {perm} is not a permutation of the {x.ndim} axes")\n'
          '    return ShapedArray(tuple(x.shape[p] for p in perm), x.dtype)\n'
          '\n'
          '\n'
          'def permute(x, perm):\n'
          '    ndim = jnp.ndim(x)\n'
          '    return jnp.transpose(x, tuple(int(p) + ndim if p < 0 else int(p) for p in perm))\n'
          '\n'
          '\n'
          '# Given: a primitive with an abstract evaluation rule and nothing else.\n'
          'permute_p = Primitive("permute")\n'
          '_ = permute_p.def_abstract_eval(permute_abstract_eval)   # it returns the rule; nothing to display\n'),
        W('m', 'refuses bad perms with TypeError instead of ValueError',
          'def permute_abstract_eval(x, *, perm):\n'
          '    if sorted(perm) != list(range(x.ndim)):\n'
          '        raise TypeError(f"permute: {perm} is not a permutation of the {x.ndim} axes")\n'
          '    return ShapedArray(tuple(x.shape[p] for p in perm), x.dtype)\n'
          '\n'
          '\n'
          'def permute(x, perm):\n'
          '    ndim = jnp.ndim(x)\n'
          '    return permute_p.bind(x, perm=tuple(int(p) + ndim if p < 0 else int(p) for p in perm))\n'
          '\n'
          '\n'
          '# Given: a primitive with an abstract evaluation rule and nothing else.\n'
          'permute_p = Primitive("permute")\n'
          '_ = permute_p.def_abstract_eval(permute_abstract_eval)   # it returns the rule; nothing to display\n'),
        W('c', 'rule checks perm against range(len(perm)) instead of x.ndim: a too-short perm such as (1, 0) for 3 axes is accepted',
          'def permute_abstract_eval(x, *, perm):\n'
          '    if sorted(perm) != list(range(len(perm))):\n'
          '        raise ValueError(f"permute: {perm} is not a permutation")\n'
          '    return ShapedArray(tuple(x.shape[p] for p in perm), x.dtype)\n'
          '\n'
          '\n'
          'def permute(x, perm):\n'
          '    ndim = jnp.ndim(x)\n'
          '    return permute_p.bind(x, perm=tuple(int(p) + ndim if p < 0 else int(p) for p in perm))\n'
          '\n'
          '\n'
          '# Given: a primitive with an abstract evaluation rule and nothing else.\n'
          'permute_p = Primitive("permute")\n'
          '_ = permute_p.def_abstract_eval(permute_abstract_eval)   # it returns the rule; nothing to display\n'),
        W('m', 'inverse permutation (axis i of x goes to position perm[i]): right for swaps and (2, 1, 0), wrong for 3-cycles such as (1, 2, 0)',
          'def permute_abstract_eval(x, *, perm):\n'
          '    if sorted(perm) != list(range(x.ndim)):\n'
          '        raise ValueError(f"permute: {perm} is not a permutation of the {x.ndim} axes")\n'
          '    shape = [0] * x.ndim\n'
          '    for i, p in enumerate(perm):\n'
          '        shape[p] = x.shape[i]            # axis i of x goes to position perm[i]\n'
          '    return ShapedArray(tuple(shape), x.dtype)\n'
          '\n'
          '\n'
          'def permute(x, perm):\n'
          '    ndim = jnp.ndim(x)\n'
          '    return permute_p.bind(x, perm=tuple(int(p) + ndim if p < 0 else int(p) for p in perm))\n'
          '\n'
          '\n'
          '# Given: a primitive with an abstract evaluation rule and nothing else.\n'
          'permute_p = Primitive("permute")\n'
          '_ = permute_p.def_abstract_eval(permute_abstract_eval)   # it returns the rule; nothing to display\n'),
        W('c', 'rule checks that entries are distinct and in range(x.ndim) but not their number: a too-short perm such as (1, 0) for 3 axes is accepted',
          'def permute_abstract_eval(x, *, perm):\n'
          '    if len(set(perm)) != len(perm) or not all(0 <= p < x.ndim for p in perm):\n'
          '        raise ValueError(f"permute: {perm} is not a permutation of the {x.ndim} axes")\n'
          '    return ShapedArray(tuple(x.shape[p] for p in perm), x.dtype)\n'
          '\n'
          '\n'
          'def permute(x, perm):\n'
          '    ndim = jnp.ndim(x)\n'
          '    return permute_p.bind(x, perm=tuple(int(p) + ndim if p < 0 else int(p) for p in perm))\n'
          '\n'
          '\n'
          '# Given: a primitive with an abstract evaluation rule and nothing else.\n'
          'permute_p = Primitive("permute")\n'
          '_ = permute_p.def_abstract_eval(permute_abstract_eval)   # it returns the rule; nothing to display\n'),
    ],
    'quiz_answer': [
        W('m', "q1=a and q2=a: thinks eval_shape runs the implementation too, and that an eager call runs the rule's check.",
          'q1 = "a"\n'
          'q2 = "a"\n'
          'q3 = "b"\n'
          'q4 = "a"\n'),
        W('m', "q2=a: thinks an eager call also runs the abstract evaluation rule's check.",
          'q1 = "b"\n'
          'q2 = "a"\n'
          'q3 = "b"\n'
          'q4 = "a"\n'),
        W('m', 'q1=a: thinks eval_shape runs the implementation as well as the abstract rule',
          'q1 = "a"\n'
          'q2 = "b"\n'
          'q3 = "b"\n'
          'q4 = "a"\n'),
        W('m', 'q3=a: thinks JAX converts an unhashable list parameter to a tuple',
          'q1 = "b"\n'
          'q2 = "b"\n'
          'q3 = "a"\n'
          'q4 = "a"\n'),
        W('m', 'q4=b: thinks a tuple from the rule without multiple_results silently keeps the first output',
          'q1 = "b"\n'
          'q2 = "b"\n'
          'q3 = "b"\n'
          'q4 = "b"\n'),
        W('m', 'q1=c: thinks eval_shape computes the result with the implementation',
          'q1 = "c"\n'
          'q2 = "b"\n'
          'q3 = "b"\n'
          'q4 = "a"\n'),
    ],
}

# Round 3: written from the chapter's text alone (its test cells removed), before its checks were read;
# each passed every visible check, and some scored full marks, until the checks were made to catch them.
WRONG['ex1_answer'] += [
    W('c', 'floating check with jnp.inexact: accepts complex input',
      'def window_sum_abstract_eval(x, *, width):\n    if not jnp.issubdtype(x.dtype, jnp.inexact):\n        raise TypeError(f"window_sum needs a floating-point array, got {x.dtype}")\n    if x.ndim == 0:\n        raise TypeError("window_sum needs an array with at least one axis")\n    n = x.shape[-1]\n    if not 1 <= width <= n:\n        raise ValueError(f"window_sum: width {width} does not fit an axis of length {n}")\n    return ShapedArray(x.shape[:-1] + (n - width + 1,), x.dtype)\n\n\ndef window_sum(x, width):\n    return window_sum_p.bind(x, width=int(width))\n\n\n# Given: the computation (the sum of `width` shifted slices), the primitive and its rules.\ndef _window_sum_math(x, *, width):\n    n_out = x.shape[-1] - width + 1\n    return sum(x[..., i:i + n_out] for i in range(width))\n\n\nwindow_sum_p = Primitive("window_sum")\nwindow_sum_p.def_impl(_window_sum_math)\nwindow_sum_p.def_abstract_eval(window_sum_abstract_eval)\nmlir.register_lowering(window_sum_p, mlir.lower_fun(_window_sum_math, multiple_results=False))\n'),
    W('c', 'floating check by a list of float dtypes: refuses float8 types that jnp.floating accepts',
      'def window_sum_abstract_eval(x, *, width):\n    if x.dtype not in (jnp.float16, jnp.bfloat16, jnp.float32, jnp.float64):\n        raise TypeError(f"window_sum needs a floating-point array, got {x.dtype}")\n    if x.ndim == 0:\n        raise TypeError("window_sum needs an array with at least one axis")\n    n = x.shape[-1]\n    if not 1 <= width <= n:\n        raise ValueError(f"window_sum: width {width} does not fit an axis of length {n}")\n    return ShapedArray(x.shape[:-1] + (n - width + 1,), x.dtype)\n\n\ndef window_sum(x, width):\n    return window_sum_p.bind(x, width=int(width))\n\n\n# Given: the computation (the sum of `width` shifted slices), the primitive and its rules.\ndef _window_sum_math(x, *, width):\n    n_out = x.shape[-1] - width + 1\n    return sum(x[..., i:i + n_out] for i in range(width))\n\n\nwindow_sum_p = Primitive("window_sum")\nwindow_sum_p.def_impl(_window_sum_math)\nwindow_sum_p.def_abstract_eval(window_sum_abstract_eval)\nmlir.register_lowering(window_sum_p, mlir.lower_fun(_window_sum_math, multiple_results=False))\n'),
    W('c', 'width bounded by x.size instead of the last axis: accepts width > n for multi-axis input',
      'def window_sum_abstract_eval(x, *, width):\n    if not jnp.issubdtype(x.dtype, jnp.floating):\n        raise TypeError(f"window_sum needs a floating-point array, got {x.dtype}")\n    if x.ndim == 0:\n        raise TypeError("window_sum needs an array with at least one axis")\n    n = x.shape[-1]\n    if not 1 <= width <= x.size:\n        raise ValueError(f"window_sum: width {width} does not fit an axis of length {n}")\n    return ShapedArray(x.shape[:-1] + (n - width + 1,), x.dtype)\n\n\ndef window_sum(x, width):\n    return window_sum_p.bind(x, width=int(width))\n\n\n# Given: the computation (the sum of `width` shifted slices), the primitive and its rules.\ndef _window_sum_math(x, *, width):\n    n_out = x.shape[-1] - width + 1\n    return sum(x[..., i:i + n_out] for i in range(width))\n\n\nwindow_sum_p = Primitive("window_sum")\nwindow_sum_p.def_impl(_window_sum_math)\nwindow_sum_p.def_abstract_eval(window_sum_abstract_eval)\nmlir.register_lowering(window_sum_p, mlir.lower_fun(_window_sum_math, multiple_results=False))\n'),
    W('c', 'width check refuses 0 and > n only: negative widths accepted',
      'def window_sum_abstract_eval(x, *, width):\n    if not jnp.issubdtype(x.dtype, jnp.floating):\n        raise TypeError(f"window_sum needs a floating-point array, got {x.dtype}")\n    if x.ndim == 0:\n        raise TypeError("window_sum needs an array with at least one axis")\n    n = x.shape[-1]\n    if width == 0 or width > n:\n        raise ValueError(f"window_sum: width {width} does not fit an axis of length {n}")\n    return ShapedArray(x.shape[:-1] + (n - width + 1,), x.dtype)\n\n\ndef window_sum(x, width):\n    return window_sum_p.bind(x, width=int(width))\n\n\n# Given: the computation (the sum of `width` shifted slices), the primitive and its rules.\ndef _window_sum_math(x, *, width):\n    n_out = x.shape[-1] - width + 1\n    return sum(x[..., i:i + n_out] for i in range(width))\n\n\nwindow_sum_p = Primitive("window_sum")\nwindow_sum_p.def_impl(_window_sum_math)\nwindow_sum_p.def_abstract_eval(window_sum_abstract_eval)\nmlir.register_lowering(window_sum_p, mlir.lower_fun(_window_sum_math, multiple_results=False))\n'),
]
WRONG['ex2_answer'] += [
    W('m', 'copies ex1 and refuses non-floating input with TypeError (int input is valid)',
      'def max_argmax_abstract_eval(x):\n    if not jnp.issubdtype(x.dtype, jnp.floating) or x.ndim == 0:\n        raise TypeError(f"max_argmax needs a floating-point array with axes, got {x}")\n    if x.shape[-1] == 0:\n        raise ValueError("max_argmax: the last axis is empty")\n    batch = x.shape[:-1]\n    return [ShapedArray(batch, x.dtype), ShapedArray(batch, jnp.int32)]\n\n\n# Given: the computation, the primitive (with your line) and its rules, and the wrapper.\ndef _max_argmax_math(x):\n    return jnp.max(x, axis=-1), jnp.argmax(x, axis=-1).astype(jnp.int32)\n\n\nmax_argmax_p = Primitive("max_argmax")\nmax_argmax_p.multiple_results = True\nmax_argmax_p.def_impl(_max_argmax_math)\nmax_argmax_p.def_abstract_eval(max_argmax_abstract_eval)\nmlir.register_lowering(max_argmax_p, mlir.lower_fun(_max_argmax_math, multiple_results=True))\n\n\ndef max_argmax(x):\n    return tuple(max_argmax_p.bind(x))\n'),
    W('c', 'index dtype from canonicalize_dtype(int64): int32 only while x64 is off',
      'def max_argmax_abstract_eval(x):\n    if x.ndim == 0:\n        raise TypeError("max_argmax needs an array with at least one axis")\n    if x.shape[-1] == 0:\n        raise ValueError("max_argmax: the last axis is empty")\n    batch = x.shape[:-1]\n    return [ShapedArray(batch, x.dtype), ShapedArray(batch, jax.dtypes.canonicalize_dtype(jnp.int64))]\n\n\n# Given: the computation, the primitive (with your line) and its rules, and the wrapper.\ndef _max_argmax_math(x):\n    return jnp.max(x, axis=-1), jnp.argmax(x, axis=-1).astype(jnp.int32)\n\n\nmax_argmax_p = Primitive("max_argmax")\nmax_argmax_p.multiple_results = True\nmax_argmax_p.def_impl(_max_argmax_math)\nmax_argmax_p.def_abstract_eval(max_argmax_abstract_eval)\nmlir.register_lowering(max_argmax_p, mlir.lower_fun(_max_argmax_math, multiple_results=True))\n\n\ndef max_argmax(x):\n    return tuple(max_argmax_p.bind(x))\n'),
    W('c', 'empty last axis refused only for 1-D input: accepts (3, 0)',
      'def max_argmax_abstract_eval(x):\n    if x.ndim == 0:\n        raise TypeError("max_argmax needs an array with at least one axis")\n    if x.ndim == 1 and x.shape[0] == 0:\n        raise ValueError("max_argmax: the last axis is empty")\n    batch = x.shape[:-1]\n    return [ShapedArray(batch, x.dtype), ShapedArray(batch, jnp.int32)]\n\n\n# Given: the computation, the primitive (with your line) and its rules, and the wrapper.\ndef _max_argmax_math(x):\n    return jnp.max(x, axis=-1), jnp.argmax(x, axis=-1).astype(jnp.int32)\n\n\nmax_argmax_p = Primitive("max_argmax")\nmax_argmax_p.multiple_results = True\nmax_argmax_p.def_impl(_max_argmax_math)\nmax_argmax_p.def_abstract_eval(max_argmax_abstract_eval)\nmlir.register_lowering(max_argmax_p, mlir.lower_fun(_max_argmax_math, multiple_results=True))\n\n\ndef max_argmax(x):\n    return tuple(max_argmax_p.bind(x))\n'),
]
WRONG['ex3_answer'] += [
    W('c', 'refuses the empty perm of a 0-d array (a valid permutation of no axes)',
      'def permute_abstract_eval(x, *, perm):\n    if not perm or len(perm) != x.ndim or sorted(perm) != list(range(x.ndim)):\n        raise ValueError(f"permute: {perm} is not a permutation of the {x.ndim} axes")\n    return ShapedArray(tuple(x.shape[p] for p in perm), x.dtype)\n\n\ndef permute(x, perm):\n    ndim = jnp.ndim(x)\n    return permute_p.bind(x, perm=tuple(int(p) + ndim if p < 0 else int(p) for p in perm))\n\n\n# Given: a primitive with an abstract evaluation rule and nothing else.\npermute_p = Primitive("permute")\n_ = permute_p.def_abstract_eval(permute_abstract_eval)   # it returns the rule; nothing to display\n'),
]

# Round 4: written from the text alone, with the mistakes above listed as already caught, before the checks were read;
# each passed every visible check, and some scored full marks, until the checks were made to catch them.
WRONG['ex1_answer'] += [
    W('c', 'rule refuses any empty array (x.size == 0): an empty batch such as (0, 5) with width 3 raises ValueError instead of giving (0, 3)',
      'def window_sum_abstract_eval(x, *, width):\n    if not jnp.issubdtype(x.dtype, jnp.floating):\n        raise TypeError(f"window_sum needs a floating-point array, got {x.dtype}")\n    if x.ndim == 0:\n        raise TypeError("window_sum needs an array with at least one axis")\n    n = x.shape[-1]\n    if x.size == 0:\n        raise ValueError("window_sum: empty input")\n    if not 1 <= width <= n:\n        raise ValueError(f"window_sum: width {width} does not fit an axis of length {n}")\n    return ShapedArray(x.shape[:-1] + (n - width + 1,), x.dtype)\n\n\ndef window_sum(x, width):\n    return window_sum_p.bind(x, width=int(width))\n\n\n# Given: the computation (the sum of `width` shifted slices), the primitive and its rules.\ndef _window_sum_math(x, *, width):\n    n_out = x.shape[-1] - width + 1\n    return sum(x[..., i:i + n_out] for i in range(width))\n\n\nwindow_sum_p = Primitive("window_sum")\nwindow_sum_p.def_impl(_window_sum_math)\nwindow_sum_p.def_abstract_eval(window_sum_abstract_eval)\nmlir.register_lowering(window_sum_p, mlir.lower_fun(_window_sum_math, multiple_results=False))\n'),
    W('c', 'wrapper converts width with .item() when it has one: np.int64 becomes int, but a Python float width such as 3.0 is bound as the float 3.0',
      'def window_sum_abstract_eval(x, *, width):\n    if not jnp.issubdtype(x.dtype, jnp.floating):\n        raise TypeError(f"window_sum needs a floating-point array, got {x.dtype}")\n    if x.ndim == 0:\n        raise TypeError("window_sum needs an array with at least one axis")\n    n = x.shape[-1]\n    if not 1 <= width <= n:\n        raise ValueError(f"window_sum: width {width} does not fit an axis of length {n}")\n    return ShapedArray(x.shape[:-1] + (n - width + 1,), x.dtype)\n\n\ndef window_sum(x, width):\n    width = width.item() if hasattr(width, "item") else width    # NumPy scalar -> Python number\n    return window_sum_p.bind(x, width=width)\n\n\n# Given: the computation (the sum of `width` shifted slices), the primitive and its rules.\ndef _window_sum_math(x, *, width):\n    n_out = x.shape[-1] - width + 1\n    return sum(x[..., i:i + n_out] for i in range(width))\n\n\nwindow_sum_p = Primitive("window_sum")\nwindow_sum_p.def_impl(_window_sum_math)\nwindow_sum_p.def_abstract_eval(window_sum_abstract_eval)\nmlir.register_lowering(window_sum_p, mlir.lower_fun(_window_sum_math, multiple_results=False))\n'),
]
WRONG['ex2_answer'] += [
    W('m', 'refuses bool input with TypeError (not jnp.number), though max/argmax of bool is valid and only 0-d input is to be refused',
      'def max_argmax_abstract_eval(x):\n    if x.ndim == 0:\n        raise TypeError("max_argmax needs an array with at least one axis")\n    if x.shape[-1] == 0:\n        raise ValueError("max_argmax: the last axis is empty")\n    if not jnp.issubdtype(x.dtype, jnp.number):\n        raise TypeError(f"max_argmax needs numbers, got {x.dtype}")\n    batch = x.shape[:-1]\n    return [ShapedArray(batch, x.dtype), ShapedArray(batch, jnp.int32)]\n\n\n# Given: the computation, the primitive (with your line) and its rules, and the wrapper.\ndef _max_argmax_math(x):\n    return jnp.max(x, axis=-1), jnp.argmax(x, axis=-1).astype(jnp.int32)\n\n\nmax_argmax_p = Primitive("max_argmax")\nmax_argmax_p.multiple_results = True\n\nmax_argmax_p.def_impl(_max_argmax_math)\nmax_argmax_p.def_abstract_eval(max_argmax_abstract_eval)\nmlir.register_lowering(max_argmax_p, mlir.lower_fun(_max_argmax_math, multiple_results=True))\n\n\ndef max_argmax(x):\n    return tuple(max_argmax_p.bind(x))\n'),
    W('c', 'index int32 only while the last axis fits in int32, int64 beyond: the text says always int32',
      'def max_argmax_abstract_eval(x):\n    if x.ndim == 0:\n        raise TypeError("max_argmax needs an array with at least one axis")\n    if x.shape[-1] == 0:\n        raise ValueError("max_argmax: the last axis is empty")\n    index_dtype = jnp.int32 if x.shape[-1] <= np.iinfo(np.int32).max else jnp.int64\n    batch = x.shape[:-1]\n    return [ShapedArray(batch, x.dtype), ShapedArray(batch, index_dtype)]\n\n\n# Given: the computation, the primitive (with your line) and its rules, and the wrapper.\ndef _max_argmax_math(x):\n    return jnp.max(x, axis=-1), jnp.argmax(x, axis=-1).astype(jnp.int32)\n\n\nmax_argmax_p = Primitive("max_argmax")\nmax_argmax_p.multiple_results = True\n\nmax_argmax_p.def_impl(_max_argmax_math)\nmax_argmax_p.def_abstract_eval(max_argmax_abstract_eval)\nmlir.register_lowering(max_argmax_p, mlir.lower_fun(_max_argmax_math, multiple_results=True))\n\n\ndef max_argmax(x):\n    return tuple(max_argmax_p.bind(x))\n'),
    W('c', 'maximum dtype promoted to at least int32 (like a sum): right for float and int32 input, wrong for int8/int16/uint8/bool, whose max keeps its dtype',
      'def max_argmax_abstract_eval(x):\n    if x.ndim == 0:\n        raise TypeError("max_argmax needs an array with at least one axis")\n    if x.shape[-1] == 0:\n        raise ValueError("max_argmax: the last axis is empty")\n    batch = x.shape[:-1]\n    return [ShapedArray(batch, jnp.promote_types(x.dtype, jnp.int32)), ShapedArray(batch, jnp.int32)]\n\n\n# Given: the computation, the primitive (with your line) and its rules, and the wrapper.\ndef _max_argmax_math(x):\n    return jnp.max(x, axis=-1), jnp.argmax(x, axis=-1).astype(jnp.int32)\n\n\nmax_argmax_p = Primitive("max_argmax")\nmax_argmax_p.multiple_results = True\n\nmax_argmax_p.def_impl(_max_argmax_math)\nmax_argmax_p.def_abstract_eval(max_argmax_abstract_eval)\nmlir.register_lowering(max_argmax_p, mlir.lower_fun(_max_argmax_math, multiple_results=True))\n\n\ndef max_argmax(x):\n    return tuple(max_argmax_p.bind(x))\n'),
]
WRONG['ex3_answer'] += [
    W('c', 'only non-negative entries go through int(): a negative NumPy entry such as np.int64(-1) is bound as np.int64(2), not the int 2',
      'def permute_abstract_eval(x, *, perm):\n    if len(perm) != x.ndim or sorted(perm) != list(range(x.ndim)):\n        raise ValueError(f"permute: {perm} is not a permutation of the {x.ndim} axes")\n    return ShapedArray(tuple(x.shape[p] for p in perm), x.dtype)\n\n\ndef permute(x, perm):\n    ndim = jnp.ndim(x)\n    return permute_p.bind(x, perm=tuple(p + ndim if p < 0 else int(p) for p in perm))\n\n\n# Given: a primitive with an abstract evaluation rule and nothing else.\npermute_p = Primitive("permute")\n_ = permute_p.def_abstract_eval(permute_abstract_eval)   # it returns the rule; nothing to display\n'),
    W('g', "converts only -1 (the text's example) to the last axis; -2 and other negative entries are passed on and refused",
      'def permute_abstract_eval(x, *, perm):\n    if len(perm) != x.ndim or sorted(perm) != list(range(x.ndim)):\n        raise ValueError(f"permute: {perm} is not a permutation of the {x.ndim} axes")\n    return ShapedArray(tuple(x.shape[p] for p in perm), x.dtype)\n\n\ndef permute(x, perm):\n    last = jnp.ndim(x) - 1\n    return permute_p.bind(x, perm=tuple(last if p == -1 else int(p) for p in perm))\n\n\n# Given: a primitive with an abstract evaluation rule and nothing else.\npermute_p = Primitive("permute")\n_ = permute_p.def_abstract_eval(permute_abstract_eval)   # it returns the rule; nothing to display\n'),
    W('c', 'rule checks length, distinctness and p < ndim but no lower bound: -4 for a 3-D x becomes -1 in the wrapper and is accepted',
      'def permute_abstract_eval(x, *, perm):\n    if len(perm) != x.ndim or len(set(perm)) != len(perm) or any(p >= x.ndim for p in perm):\n        raise ValueError(f"permute: {perm} is not a permutation of the {x.ndim} axes")\n    return ShapedArray(tuple(x.shape[p] for p in perm), x.dtype)\n\n\ndef permute(x, perm):\n    ndim = jnp.ndim(x)\n    return permute_p.bind(x, perm=tuple(int(p) + ndim if p < 0 else int(p) for p in perm))\n\n\n# Given: a primitive with an abstract evaluation rule and nothing else.\npermute_p = Primitive("permute")\n_ = permute_p.def_abstract_eval(permute_abstract_eval)   # it returns the rule; nothing to display\n'),
    W('d', 'rule delegates to jax.eval_shape of jnp.transpose and turns its errors into ValueError: jnp canonicalises negative entries, so -4 (-1 after the wrapper) is accepted',
      'def permute_abstract_eval(x, *, perm):\n    try:\n        out = jax.eval_shape(lambda v: jnp.transpose(v, perm), jax.ShapeDtypeStruct(x.shape, x.dtype))\n    except (TypeError, ValueError) as err:\n        raise ValueError(f"permute: {perm} is not a permutation of the {x.ndim} axes") from err\n    return ShapedArray(out.shape, out.dtype)\n\n\ndef permute(x, perm):\n    ndim = jnp.ndim(x)\n    return permute_p.bind(x, perm=tuple(int(p) + ndim if p < 0 else int(p) for p in perm))\n\n\n# Given: a primitive with an abstract evaluation rule and nothing else.\npermute_p = Primitive("permute")\n_ = permute_p.def_abstract_eval(permute_abstract_eval)   # it returns the rule; nothing to display\n'),
    W('b', "wrapper converts negative entries of a list in place: the caller's list is changed, and a second call with a refused list such as [-4, 0, 1] is accepted",
      'def permute_abstract_eval(x, *, perm):\n    if len(perm) != x.ndim or sorted(perm) != list(range(x.ndim)):\n        raise ValueError(f"permute: {perm} is not a permutation of the {x.ndim} axes")\n    return ShapedArray(tuple(x.shape[p] for p in perm), x.dtype)\n\n\ndef permute(x, perm):\n    if not isinstance(perm, list):\n        perm = list(perm)\n    for i, p in enumerate(perm):\n        if p < 0:\n            perm[i] = p + jnp.ndim(x)\n    return permute_p.bind(x, perm=tuple(int(p) for p in perm))\n\n\n# Given: a primitive with an abstract evaluation rule and nothing else.\npermute_p = Primitive("permute")\n_ = permute_p.def_abstract_eval(permute_abstract_eval)   # it returns the rule; nothing to display\n'),
]

# Round 5: written from the text alone by a reader who copied section 5's `halve` wrapper, which runs the
# checks before bind; each scored full marks until the refusals were also checked through bind itself.
WRONG['ex1_answer'] += [
    W('m', "checks in the wrapper, as section 5's halve does, and none in the rule: window_sum refuses bad input, "
           "but window_sum_p.bind accepts an int32 x or a width of 9 on an axis of 5 (a shape of -3)",
      'def window_sum_abstract_eval(x, *, width):\n'
      '    return ShapedArray(x.shape[:-1] + (x.shape[-1] - width + 1,), x.dtype)\n'
      '\n'
      '\n'
      'def window_sum(x, width):\n'
      '    aval = jax.typeof(x)\n'
      '    if not jnp.issubdtype(aval.dtype, jnp.floating) or aval.ndim == 0:\n'
      '        raise TypeError(f"window_sum needs a floating-point array with axes, got {aval}")\n'
      '    width = int(width)\n'
      '    if not 1 <= width <= aval.shape[-1]:\n'
      '        raise ValueError(f"window_sum: width {width} does not fit an axis of length {aval.shape[-1]}")\n'
      '    return window_sum_p.bind(x, width=width)\n'
      '\n'
      '\n'
      '# Given: the computation (the sum of `width` shifted slices), the primitive and its rules.\n'
      'def _window_sum_math(x, *, width):\n'
      '    n_out = x.shape[-1] - width + 1\n'
      '    return sum(x[..., i:i + n_out] for i in range(width))\n'
      '\n'
      '\n'
      'window_sum_p = Primitive("window_sum")\n'
      'window_sum_p.def_impl(_window_sum_math)\n'
      'window_sum_p.def_abstract_eval(window_sum_abstract_eval)\n'
      'mlir.register_lowering(window_sum_p, mlir.lower_fun(_window_sum_math, multiple_results=False))\n'),
]
WRONG['ex3_answer'] += [
    W('m', "checks the permutation in the wrapper, after converting negative entries, and none in the rule: "
           "permute refuses (0, 0, 1), but permute_p.bind accepts it",
      'def permute_abstract_eval(x, *, perm):\n'
      '    return ShapedArray(tuple(x.shape[p] for p in perm), x.dtype)\n'
      '\n'
      '\n'
      'def permute(x, perm):\n'
      '    ndim = jnp.ndim(x)\n'
      '    perm = tuple(int(p) + ndim if p < 0 else int(p) for p in perm)\n'
      '    if sorted(perm) != list(range(ndim)):\n'
      '        raise ValueError(f"permute: {perm} is not a permutation of the {ndim} axes")\n'
      '    return permute_p.bind(x, perm=perm)\n'
      '\n'
      '\n'
      '# Given: a primitive with an abstract evaluation rule and nothing else.\n'
      'permute_p = Primitive("permute")\n'
      '_ = permute_p.def_abstract_eval(permute_abstract_eval)   # it returns the rule; nothing to display\n'),
]

# Round 8: written from the text alone by a second reviewer; it lost its points only to a hidden check until a visible
# check asked for the avals of an array whose last axis has length 1.
WRONG['ex2_answer'] += [
    W('m', 'misread: refuses a last axis of length 1 (n < 2, "nothing to compare"), though only n == 0 is to be refused',
      'def max_argmax_abstract_eval(x):\n'
      '    if x.ndim == 0:\n'
      '        raise TypeError("max_argmax needs an array with at least one axis")\n'
      '    if x.shape[-1] < 2:\n'
      '        raise ValueError("max_argmax needs something to compare along the last axis")\n'
      '    return [ShapedArray(x.shape[:-1], x.dtype), ShapedArray(x.shape[:-1], jnp.int32)]\n'
      '\n'
      '\n'
      '# Given: the computation, the primitive (with your line) and its rules, and the wrapper.\n'
      'def _max_argmax_math(x):\n'
      '    return jnp.max(x, axis=-1), jnp.argmax(x, axis=-1).astype(jnp.int32)\n'
      '\n'
      '\n'
      'max_argmax_p = Primitive("max_argmax")\n'
      'max_argmax_p.multiple_results = True\n'
      'max_argmax_p.def_impl(_max_argmax_math)\n'
      'max_argmax_p.def_abstract_eval(max_argmax_abstract_eval)\n'
      'mlir.register_lowering(max_argmax_p, mlir.lower_fun(_max_argmax_math, multiple_results=True))\n'
      '\n'
      '\n'
      'def max_argmax(x):\n'
      '    return tuple(max_argmax_p.bind(x))\n'),
]

# Round 9: found by reviewers who read only the learner's notebook.
WRONG['ex1_answer'] += [
    W('m', 'wrapper converts width with round() instead of int(): 3.0 and np.int64(3) bind 3, but width=2.7 binds 3 where int(2.7) is 2',
      'def window_sum_abstract_eval(x, *, width):\n    if not jnp.issubdtype(x.dtype, jnp.floating):\n        raise TypeError(f"window_sum needs a floating-point array, got {x.dtype}")\n    if x.ndim == 0:\n        raise TypeError("window_sum needs an array with at least one axis")\n    n = x.shape[-1]\n    if not 1 <= width <= n:\n        raise ValueError(f"window_sum: width {width} does not fit an axis of length {n}")\n    return ShapedArray(x.shape[:-1] + (n - width + 1,), x.dtype)\n\n\ndef window_sum(x, width):\n    return window_sum_p.bind(x, width=round(width))   # a whole number written as a float -> int\n\n\n# Given: the computation (the sum of `width` shifted slices), the primitive and its rules.\ndef _window_sum_math(x, *, width):\n    n_out = x.shape[-1] - width + 1\n    return sum(x[..., i:i + n_out] for i in range(width))\n\n\nwindow_sum_p = Primitive("window_sum")\nwindow_sum_p.def_impl(_window_sum_math)\nwindow_sum_p.def_abstract_eval(window_sum_abstract_eval)\nmlir.register_lowering(window_sum_p, mlir.lower_fun(_window_sum_math, multiple_results=False))\n'),
]

# Round 11: found by reviewers who read only the learner's notebook.
WRONG['ex1_answer'] += [
    W('c', 'n read as x.shape[0] (the length of the array) instead of the last axis: width checked against the first axis of a multi-axis x',
      'def window_sum_abstract_eval(x, *, width):\n    if not jnp.issubdtype(x.dtype, jnp.floating) or x.ndim == 0:\n        raise TypeError(f"window_sum needs a floating array with at least one axis, got {x}")\n    n = x.shape[0]                       # the length of the array\n    if not 1 <= width <= n:\n        raise ValueError(f"width must be in 1..{n}, got {width}")\n    return ShapedArray(x.shape[:-1] + (x.shape[-1] - width + 1,), x.dtype)\n\n\ndef window_sum(x, width):\n    return window_sum_p.bind(x, width=int(width))\n\n\n# Given: the computation (the sum of `width` shifted slices), the primitive and its rules.\ndef _window_sum_math(x, *, width):\n    n_out = x.shape[-1] - width + 1\n    return sum(x[..., i:i + n_out] for i in range(width))\n\n\nwindow_sum_p = Primitive("window_sum")\nwindow_sum_p.def_impl(_window_sum_math)\nwindow_sum_p.def_abstract_eval(window_sum_abstract_eval)\nmlir.register_lowering(window_sum_p, mlir.lower_fun(_window_sum_math, multiple_results=False))'),
]
WRONG['ex2_answer'] += [
    W('m', "the two avals in the wrong order (index first, then maximum): the rule's outputs do not match what the implementation returns",
      'def max_argmax_abstract_eval(x):\n    if x.ndim == 0:\n        raise TypeError("max_argmax needs at least one axis")\n    if x.shape[-1] == 0:\n        raise ValueError("max_argmax of an empty last axis")\n    batch = x.shape[:-1]\n    return [ShapedArray(batch, jnp.int32), ShapedArray(batch, x.dtype)]   # index, then maximum\n\n\n# Given: the computation, the primitive (with your line) and its rules, and the wrapper.\ndef _max_argmax_math(x):\n    return jnp.max(x, axis=-1), jnp.argmax(x, axis=-1).astype(jnp.int32)\n\n\nmax_argmax_p = Primitive("max_argmax")\nmax_argmax_p.multiple_results = True\nmax_argmax_p.def_impl(_max_argmax_math)\nmax_argmax_p.def_abstract_eval(max_argmax_abstract_eval)\nmlir.register_lowering(max_argmax_p, mlir.lower_fun(_max_argmax_math, multiple_results=True))\n\n\ndef max_argmax(x):\n    return tuple(max_argmax_p.bind(x))'),
]
WRONG['ex3_answer'] += [
    W('m', 'the rule itself converts negative entries: permute_p.bind(x, perm=(-1, 0)) traced directly is accepted, and so is -4 for a 3-D x through the wrapper',
      'def permute_abstract_eval(x, *, perm):\n    ndim = x.ndim\n    perm = tuple(p + ndim if p < 0 else p for p in perm)      # accept -1 for the last axis here too\n    if sorted(perm) != list(range(ndim)):\n        raise ValueError(f"{perm} is not a permutation of the {ndim} axes")\n    return ShapedArray(tuple(x.shape[p] for p in perm), x.dtype)\n\n\ndef permute(x, perm):\n    ndim = jnp.ndim(x)\n    return permute_p.bind(x, perm=tuple(int(p) + ndim if p < 0 else int(p) for p in perm))\n\n\n# Given: a primitive with an abstract evaluation rule and nothing else.\npermute_p = Primitive("permute")\n_ = permute_p.def_abstract_eval(permute_abstract_eval)   # it returns the rule; nothing to display'),
]


# Written from the exercise texts as they read once each self-check became a call of grader/selfchecks/ch06.py.

_RULE1 = '''def window_sum_abstract_eval(x, *, width):
    if not jnp.issubdtype(x.dtype, jnp.floating):
        raise TypeError(f"window_sum needs a floating-point array, got {x.dtype}")
    if x.ndim == 0:
        raise TypeError("window_sum needs an array with at least one axis")
    n = x.shape[-1]
    if not 1 <= width <= n:
        raise ValueError(f"window_sum: width must be between 1 and {n}, got {width}")
    return ShapedArray(x.shape[:-1] + (n - width + 1,), x.dtype)
'''
_GIVEN1 = '''

def _window_sum_math(x, *, width):
    n_out = x.shape[-1] - width + 1
    return sum(x[..., i:i + n_out] for i in range(width))


window_sum_p = Primitive("window_sum")
window_sum_p.def_impl(_window_sum_math)
window_sum_p.def_abstract_eval(window_sum_abstract_eval)
mlir.register_lowering(window_sum_p, mlir.lower_fun(_window_sum_math, multiple_results=False))
'''
_RULE2 = '''def max_argmax_abstract_eval(x):
    if x.ndim == 0:
        raise TypeError("max_argmax needs an array with at least one axis")
    if x.shape[-1] == 0:
        raise ValueError("max_argmax needs a non-empty last axis")
    batch = x.shape[:-1]
    return {ret}
'''
_GIVEN2 = '''

def _max_argmax_math(x):
    return jnp.max(x, axis=-1), jnp.argmax(x, axis=-1).astype(jnp.int32)


max_argmax_p = Primitive("max_argmax")
{flag}
max_argmax_p.def_impl(_max_argmax_math)
max_argmax_p.def_abstract_eval(max_argmax_abstract_eval)
mlir.register_lowering(max_argmax_p, mlir.lower_fun(_max_argmax_math, multiple_results=True))


def max_argmax(x):
    return tuple(max_argmax_p.bind(x))
'''
_RULE3 = '''def permute_abstract_eval(x, *, perm):
    if sorted(perm) != list(range(x.ndim)):
        raise ValueError(f"permute: {perm} is not a permutation of the {x.ndim} axes")
    return ShapedArray(tuple(x.shape[p] for p in perm), x.dtype)
'''
_GIVEN3 = '''

permute_p = Primitive("permute")
_ = permute_p.def_abstract_eval(permute_abstract_eval)
'''

_NEW = {
    'ex1_answer': [
        W('d', "binds window_sum_p only while tracing and computes an eager call directly with the given math: the eager result is right, but the primitive is not bound",
          _RULE1 + '''

def window_sum(x, width):
    if isinstance(x, jax.core.Tracer):
        return window_sum_p.bind(x, width=int(width))
    return _window_sum_math(x, width=int(width))     # no need to go through the primitive eagerly
''' + _GIVEN1),
        W('c', "converts width with operator.index: np.int64(3) and 3 work, but width=3.0 and 2.7 raise TypeError instead of binding 3 and 2",
          _RULE1 + '''

def window_sum(x, width):
    import operator
    return window_sum_p.bind(x, width=operator.index(width))
''' + _GIVEN1),
    ],
    'ex2_answer': [
        W('m', "the rule returns the maximum's ShapedArray alone: bind then returns one array, which the given wrapper splits along its first axis into 0-d arrays",
          _RULE2.format(ret="ShapedArray(batch, x.dtype)") + _GIVEN2.format(flag="max_argmax_p.multiple_results = True")),
        W('m', "the rule returns a list of one ShapedArray (the maximum's) and forgets the index",
          _RULE2.format(ret="[ShapedArray(batch, x.dtype)]") + _GIVEN2.format(flag="max_argmax_p.multiple_results = True")),
    ],
    'ex3_answer': [
        W('c', "the wrapper converts entries with int() but keeps a NumPy array's order by sorting it: a permutation given as a NumPy array binds the identity",
          _RULE3 + '''

def permute(x, perm):
    ndim = jnp.ndim(x)
    entries = sorted(perm) if isinstance(perm, np.ndarray) else perm
    return permute_p.bind(x, perm=tuple(int(p) + ndim if p < 0 else int(p) for p in entries))
''' + _GIVEN3),
        W('m', "the rule accepts a perm whose entries are a permutation of range(len(perm)) and reads shapes by p % x.ndim: a too-short perm is accepted",
          '''def permute_abstract_eval(x, *, perm):
    if sorted(perm) != list(range(len(perm))):
        raise ValueError(f"permute: {perm} is not a permutation")
    return ShapedArray(tuple(x.shape[p % max(x.ndim, 1)] for p in perm), x.dtype)


def permute(x, perm):
    ndim = jnp.ndim(x)
    return permute_p.bind(x, perm=tuple(int(p) + ndim if p < 0 else int(p) for p in perm))
''' + _GIVEN3),
    ],
}

for _cell, _answers in _NEW.items():
    WRONG[_cell] += _answers


# A third fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex3_answer'] += [
    W('f', "wrapper rewrites the caller's NumPy array in place (np.asarray makes no copy)",
      'def permute_abstract_eval(x, *, perm):\n    if len(perm) != x.ndim or sorted(perm) != list(range(x.ndim)):\n        raise ValueError(f"permute: {perm} is not a permutation of the {x.ndim} axes")\n    return ShapedArray(tuple(x.shape[p] for p in perm), x.dtype)\n\n\ndef permute(x, perm):\n    perm = np.asarray(perm, dtype=np.int64).reshape(-1)\n    perm[perm < 0] += jnp.ndim(x)           # no copy when perm already is an int64 NumPy array\n    return permute_p.bind(x, perm=tuple(int(p) for p in perm))\n\n\n# Given: a primitive with an abstract evaluation rule and nothing else.\npermute_p = Primitive("permute")\n_ = permute_p.def_abstract_eval(permute_abstract_eval)   # it returns the rule; nothing to display\n'),
]


# A fourth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
RIGHT = {}
RIGHT.setdefault('ex2_answer', []).extend([
    R('the rule returns a tuple of the two ShapedArrays, which the text allows (a list or tuple)',
      'def max_argmax_abstract_eval(x):\n    if x.ndim == 0:\n        raise TypeError("max_argmax needs at least one axis")\n    if x.shape[-1] == 0:\n        raise ValueError("max_argmax needs a non-empty last axis")\n    return (ShapedArray(x.shape[:-1], x.dtype), ShapedArray(x.shape[:-1], jnp.int32))\n\n\n# Given: the computation, the primitive (with your line) and its rules, and the wrapper.\ndef _max_argmax_math(x):\n    return jnp.max(x, axis=-1), jnp.argmax(x, axis=-1).astype(jnp.int32)\n\n\nmax_argmax_p = Primitive("max_argmax")\nmax_argmax_p.multiple_results = True\nmax_argmax_p.def_impl(_max_argmax_math)\nmax_argmax_p.def_abstract_eval(max_argmax_abstract_eval)\nmlir.register_lowering(max_argmax_p, mlir.lower_fun(_max_argmax_math, multiple_results=True))\n\n\ndef max_argmax(x):\n    return tuple(max_argmax_p.bind(x))\n'),
])


# An eighth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
RIGHT.setdefault('ex3_answer', []).extend([
    R("binds the caller's own tuple when it needs no change: a tuple cannot change, and the text asks for a tuple of Python ints",
      'def permute_abstract_eval(x, *, perm):\n    if sorted(perm) != list(range(x.ndim)):\n        raise ValueError(f"permute: {perm} is not a permutation of {x.ndim} axes")\n    return ShapedArray(tuple(x.shape[p] for p in perm), x.dtype)\n\ndef permute(x, perm):\n    ndim = jnp.ndim(x)\n    if isinstance(perm, tuple) and all(type(p) is int and p >= 0 for p in perm):\n        return permute_p.bind(x, perm=perm)\n    return permute_p.bind(x, perm=tuple(int(p) + ndim if int(p) < 0 else int(p) for p in perm))\n\n# Given: a primitive with an abstract evaluation rule and nothing else.\npermute_p = Primitive("permute")\n_ = permute_p.def_abstract_eval(permute_abstract_eval)   # it returns the rule; nothing to display\n'),
])
