"""Wrong answers for 04_pure_callback (see tests/wrong_answers/__init__.py)."""

from wrong_answers import R, W

APPLIES = {'ex1_answer': 'bcdefgm', 'ex2_answer': 'abcdefm', 'ex3_answer': 'bcdefgm', 'quiz_answer': 'm'}

WRONG = {
    'ex1_answer': [
        W('m', "Section 4's pitfall: one host call per batch, but the host divides by the norm of everything it receives (the whole batch under vmap)",
          r'''def unit_rows(x):
    def host(a):
        a = np.asarray(a)
        return (a / np.linalg.norm(a)).astype(a.dtype)

    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")
'''),
        W('e', 'no vmap_method: jit and eager work, every vmap raises NotImplementedError',
          r'''def unit_rows(x):
    def host(a):
        a = np.asarray(a)
        return (a / np.linalg.norm(a, axis=-1, keepdims=True)).astype(a.dtype)

    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
'''),
        W('m', "Right values, but vmap_method='sequential' loops over the batch (a scan in the jaxpr): one host call per row",
          r'''def unit_rows(x):
    def host(a):
        a = np.asarray(a)
        return (a / np.linalg.norm(a, axis=-1, keepdims=True)).astype(a.dtype)

    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="sequential")
'''),
        W('d', 'computes with jnp instead of NumPy on the host: no pure_callback in the program',
          r'''def unit_rows(x):
    x = jnp.asarray(x)
    return x / jnp.linalg.norm(x, axis=-1, keepdims=True)
'''),
        W('b', 'fixes the axis at 1 (axis=1 for 2-D): right for 1-D/2-D and vmap of 1-D, wrong for 3-D x and vmap/nested vmap of 2-D',
          r'''def unit_rows(x):
    def host(a):
        a = np.asarray(a)
        if a.ndim == 1:
            return (a / np.linalg.norm(a)).astype(a.dtype)
        return (a / np.linalg.norm(a, axis=1, keepdims=True)).astype(a.dtype)

    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")
'''),
        W('g', 'handles exactly 1-D and 2-D arrays (norms[:, None]): raises for 3-D x, vmap of a 2-D x and nested vmap',
          r'''def unit_rows(x):
    def host(a):
        a = np.asarray(a)
        rows = np.atleast_2d(a)
        norms = np.linalg.norm(rows, axis=-1)
        return (rows / norms[:, None]).reshape(a.shape).astype(a.dtype)

    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")
'''),
        W('e', 'host reshapes to the traced x.shape from the closure: fine eagerly and under jit, breaks under every vmap (host gets the batch)',
          r'''def unit_rows(x):
    n = x.shape[-1]

    def host(a):
        a = np.asarray(a)
        rows = a.reshape(-1, n)
        out = rows / np.linalg.norm(rows, axis=-1, keepdims=True)
        return out.reshape(x.shape).astype(a.dtype)

    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")
'''),
        W('c', 'host squeezes size-1 axes before normalising: wrong when rows have length 1 (shape (4, 1) gives one norm for the column)',
          r'''def unit_rows(x):
    def host(a):
        a = np.asarray(a)
        v = np.squeeze(a)          # drop the size-1 axes vmap may add
        return (v / np.linalg.norm(v, axis=-1, keepdims=True)).reshape(a.shape).astype(a.dtype)

    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")
'''),
        W('e', "vmap_method='sequential_unrolled' (read as 'no loop'): values right, but vmap leaves a scan in the program and calls the host once per row",
          'def unit_rows(x):\n'
          '    def host(a):\n'
          '        a = np.asarray(a)\n'
          '        return (a / np.linalg.norm(a, axis=-1, keepdims=True)).astype(a.dtype)\n'
          '\n'
          '    # "unrolled" so that no loop is left in the program\n'
          '    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="sequential_unrolled")\n'),
        W('c', 'host normalises along axis=1 when it sees a batch: right for 1-D and 2-D, silently wrong for 3-D x or vmap of vmap',
          'def unit_rows(x):\n'
          '    def host(a):\n'
          '        a = np.asarray(a)\n'
          '        if a.ndim == 1:                                   # a single row\n'
          '            return (a / np.linalg.norm(a)).astype(a.dtype)\n'
          '        norms = np.linalg.norm(a, axis=1, keepdims=True)  # one norm per row of the batch\n'
          '        return (a / norms).astype(a.dtype)\n'
          '\n'
          '    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n'),
        W('d', 'only the norms come from the host callback; the division is done in jnp (jaxpr has pure_callback + div)',
          'def unit_rows(x):\n'
          '    def host_norms(a):\n'
          '        a = np.asarray(a)\n'
          '        return np.linalg.norm(a, axis=-1, keepdims=True).astype(a.dtype)\n'
          '\n'
          '    norms = jax.pure_callback(host_norms, jax.ShapeDtypeStruct(x.shape[:-1] + (1,), x.dtype), x,\n'
          '                              vmap_method="expand_dims")\n'
          '    return x / norms\n'),
        W('g', "norm hard-coded for rows of 3 elements (like the chapter's batch): right for (4, 3), wrong or failing for any other row length",
          'def unit_rows(x):\n'
          '    def host(a):\n'
          '        a = np.asarray(a)\n'
          '        norms = np.sqrt(a[..., 0] ** 2 + a[..., 1] ** 2 + a[..., 2] ** 2)   # |(x, y, z)|\n'
          '        return (a / norms[..., None]).astype(a.dtype)\n'
          '\n'
          '    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n'),
        W('d', 'two host calls: the norms from one pure_callback, the division from a second (the text asks for one call computing the result)',
          'def unit_rows(x):\n'
          '    norms = jax.pure_callback(lambda a: np.linalg.norm(np.asarray(a), axis=-1, keepdims=True).astype(a.dtype),\n'
          '                              jax.ShapeDtypeStruct(x.shape[:-1] + (1,), x.dtype), x, vmap_method="expand_dims")\n'
          '    return jax.pure_callback(lambda a, n: (np.asarray(a) / np.asarray(n)).astype(a.dtype),\n'
          '                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, norms, vmap_method="expand_dims")\n'),
    ],
    'ex2_answer': [
        W('e', "digamma in the rule is a plain pure_callback (section 5's pitfall): grad works, grad of grad / hessian raise ValueError",
          r'''# Helpers (for example the derivative as a function of its own) replace this first part's stub.
def _scipy_elementwise(fn, x):
    return jax.pure_callback(lambda a: np.asarray(fn(np.asarray(a))).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")

@jax.custom_jvp
def gammaln_cb(x):
    return _scipy_elementwise(scipy.special.gammaln, jnp.asarray(x))

@gammaln_cb.defjvp
def gammaln_cb_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return gammaln_cb(x), _scipy_elementwise(scipy.special.digamma, x) * x_dot
'''),
        W('m', 'The derivative of Γ(x) instead of the derivative of log Γ(x).',
          'def _scipy_elementwise(fn, x):\n'
          '    return jax.pure_callback(lambda a: np.asarray(fn(np.asarray(a))).astype(a.dtype),\n'
          '                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n'
          '\n'
          '@jax.custom_jvp\n'
          'def gammaln_cb(x):\n'
          '    return _scipy_elementwise(scipy.special.gammaln, jnp.asarray(x))\n'
          '\n'
          '@gammaln_cb.defjvp\n'
          'def gammaln_cb_jvp(primals, tangents):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    slope = _scipy_elementwise(lambda a: scipy.special.gamma(a) * scipy.special.digamma(a), x)\n'
          '    return gammaln_cb(x), slope * x_dot\n'),
        W('e', 'vmap_method only on the callback of gammaln itself; the digamma and trigamma callbacks have none: vmap works, vmap of grad raises',
          r"""def _host(fn):
    return lambda a: np.asarray(fn(np.asarray(a))).astype(a.dtype)

@jax.custom_jvp
def _digamma_cb(x):
    return jax.pure_callback(_host(scipy.special.digamma), jax.ShapeDtypeStruct(x.shape, x.dtype), x)

@_digamma_cb.defjvp
def _digamma_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    trigamma = jax.pure_callback(_host(lambda a: scipy.special.polygamma(1, a)), jax.ShapeDtypeStruct(x.shape, x.dtype), x)
    return _digamma_cb(x), trigamma * x_dot

@jax.custom_jvp
def gammaln_cb(x):
    x = jnp.asarray(x)
    return jax.pure_callback(_host(scipy.special.gammaln), jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                             vmap_method="expand_dims")

@gammaln_cb.defjvp
def gammaln_cb_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return gammaln_cb(x), _digamma_cb(x) * x_dot
"""),
        W('a', "digamma's rule forgets to multiply trigamma by x_dot: scalar grad(grad) right at tangent 1, hessian of a vector wrong, vmap(grad(grad)) zero",
          r'''# Helpers (for example the derivative as a function of its own) replace this first part's stub.
def _scipy_elementwise(fn, x):
    return jax.pure_callback(lambda a: np.asarray(fn(np.asarray(a))).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")

@jax.custom_jvp
def _digamma_cb(x):
    return _scipy_elementwise(scipy.special.digamma, x)

@_digamma_cb.defjvp
def _digamma_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return _digamma_cb(x), _scipy_elementwise(lambda a: scipy.special.polygamma(1, a), x)

@jax.custom_jvp
def gammaln_cb(x):
    return _scipy_elementwise(scipy.special.gammaln, jnp.asarray(x))

@gammaln_cb.defjvp
def gammaln_cb_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return gammaln_cb(x), _digamma_cb(x) * x_dot
'''),
        W('c', "host results not cast back (.astype missing): float32 fine, float16 input raises 'Incorrect output dtype'",
          r'''# Helpers (for example the derivative as a function of its own) replace this first part's stub.
def _scipy_elementwise(fn, x):
    return jax.pure_callback(lambda a: fn(np.asarray(a)),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")

@jax.custom_jvp
def _digamma_cb(x):
    return _scipy_elementwise(scipy.special.digamma, x)

@_digamma_cb.defjvp
def _digamma_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return _digamma_cb(x), _scipy_elementwise(lambda a: scipy.special.polygamma(1, a), x) * x_dot

@jax.custom_jvp
def gammaln_cb(x):
    return _scipy_elementwise(scipy.special.gammaln, jnp.asarray(x))

@gammaln_cb.defjvp
def gammaln_cb_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return gammaln_cb(x), _digamma_cb(x) * x_dot
'''),
        W('b', 'declares and returns float32 whatever the input dtype: float16 input gives a float32 result',
          r'''# Helpers (for example the derivative as a function of its own) replace this first part's stub.
def _scipy_elementwise(fn, x):
    return jax.pure_callback(lambda a: np.asarray(fn(np.asarray(a))).astype(np.float32),
                             jax.ShapeDtypeStruct(x.shape, jnp.float32), x, vmap_method="expand_dims")

@jax.custom_jvp
def _digamma_cb(x):
    return _scipy_elementwise(scipy.special.digamma, x)

@_digamma_cb.defjvp
def _digamma_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return _digamma_cb(x), _scipy_elementwise(lambda a: scipy.special.polygamma(1, a), x) * x_dot

@jax.custom_jvp
def gammaln_cb(x):
    return _scipy_elementwise(scipy.special.gammaln, jnp.asarray(x))

@gammaln_cb.defjvp
def gammaln_cb_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return gammaln_cb(x), _digamma_cb(x) * x_dot
'''),
        W('d', "derivative via jax.scipy.special.digamma (jnp) instead of a SciPy callback: no pure_callback for digamma in grad's jaxpr",
          r'''# Helpers (for example the derivative as a function of its own) replace this first part's stub.
def _scipy_elementwise(fn, x):
    return jax.pure_callback(lambda a: np.asarray(fn(np.asarray(a))).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")

@jax.custom_jvp
def gammaln_cb(x):
    return _scipy_elementwise(scipy.special.gammaln, jnp.asarray(x))

@gammaln_cb.defjvp
def gammaln_cb_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return gammaln_cb(x), jax.scipy.special.digamma(x) * x_dot   # differentiable, so hessian works
'''),
        W('e', 'no vmap_method: jit/grad/hessian work, vmap (and vmap of grad) raise NotImplementedError',
          r'''# Helpers (for example the derivative as a function of its own) replace this first part's stub.
def _scipy_elementwise(fn, x):
    return jax.pure_callback(lambda a: np.asarray(fn(np.asarray(a))).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x)

@jax.custom_jvp
def _digamma_cb(x):
    return _scipy_elementwise(scipy.special.digamma, x)

@_digamma_cb.defjvp
def _digamma_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return _digamma_cb(x), _scipy_elementwise(lambda a: scipy.special.polygamma(1, a), x) * x_dot

@jax.custom_jvp
def gammaln_cb(x):
    return _scipy_elementwise(scipy.special.gammaln, jnp.asarray(x))

@gammaln_cb.defjvp
def gammaln_cb_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return gammaln_cb(x), _digamma_cb(x) * x_dot
'''),
        W('c', "host wraps its input in np.atleast_1d (a 'safe' SciPy call): 0-d input (and scalar grad of grad) raises 'Incorrect output shape: Expected (), Actual (1,)'",
          r'''# Helpers (for example the derivative as a function of its own) replace this first part's stub.
def _scipy_elementwise(fn, x):
    return jax.pure_callback(lambda a: fn(np.atleast_1d(np.asarray(a))).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")

@jax.custom_jvp
def _digamma_cb(x):
    return _scipy_elementwise(scipy.special.digamma, x)

@_digamma_cb.defjvp
def _digamma_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return _digamma_cb(x), _scipy_elementwise(lambda a: scipy.special.polygamma(1, a), x) * x_dot

@jax.custom_jvp
def gammaln_cb(x):
    return _scipy_elementwise(scipy.special.gammaln, jnp.asarray(x))

@gammaln_cb.defjvp
def gammaln_cb_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return gammaln_cb(x), _digamma_cb(x) * x_dot
'''),
        W('m', 'digamma given a custom_vjp rule (section 5: reverse mode only): grad(grad) works, hessian and jvp of grad raise TypeError',
          r'''# Helpers (for example the derivative as a function of its own) replace this first part's stub.
def _scipy_elementwise(fn, x):
    return jax.pure_callback(lambda a: np.asarray(fn(np.asarray(a))).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")

@jax.custom_vjp
def _digamma_cb(x):
    return _scipy_elementwise(scipy.special.digamma, x)

_digamma_cb.defvjp(lambda x: (_digamma_cb(x), x),
                   lambda x, g: (_scipy_elementwise(lambda a: scipy.special.polygamma(1, a), x) * g,))

@jax.custom_jvp
def gammaln_cb(x):
    return _scipy_elementwise(scipy.special.gammaln, jnp.asarray(x))

@gammaln_cb.defjvp
def gammaln_cb_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return gammaln_cb(x), _digamma_cb(x) * x_dot
'''),
        W('e', 'trigamma (the derivative of digamma) is a plain pure_callback without vmap_method: grad, grad(grad), hessian work, vmap(grad(grad)) raises',
          "# Helpers (for example the derivative as a function of its own) replace this first part's stub.\n"
          'def _scipy_elementwise(fn, x):\n'
          '    return jax.pure_callback(lambda a: np.asarray(fn(np.asarray(a))).astype(a.dtype),\n'
          '                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n'
          '\n'
          'def _trigamma_host(a):\n'
          '    return np.asarray(scipy.special.polygamma(1, np.asarray(a))).astype(a.dtype)\n'
          '\n'
          '@jax.custom_jvp\n'
          'def _digamma_cb(x):\n'
          '    return _scipy_elementwise(scipy.special.digamma, x)\n'
          '\n'
          '@_digamma_cb.defjvp\n'
          'def _digamma_jvp(primals, tangents):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    trigamma = jax.pure_callback(_trigamma_host, jax.ShapeDtypeStruct(x.shape, x.dtype), x)\n'
          '    return _digamma_cb(x), trigamma * x_dot\n'
          '\n'
          '@jax.custom_jvp\n'
          'def gammaln_cb(x):\n'
          '    return _scipy_elementwise(scipy.special.gammaln, jnp.asarray(x))\n'
          '\n'
          '@gammaln_cb.defjvp\n'
          'def gammaln_cb_jvp(primals, tangents):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    return gammaln_cb(x), _digamma_cb(x) * x_dot\n'),
        W('d', "the derivative uses jax.scipy.special.digamma instead of SciPy's digamma through pure_callback",
          "# Helpers (for example the derivative as a function of its own) replace this first part's stub.\n"
          'def _scipy_elementwise(fn, x):\n'
          '    return jax.pure_callback(lambda a: np.asarray(fn(np.asarray(a))).astype(a.dtype),\n'
          '                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n'
          '\n'
          '@jax.custom_jvp\n'
          'def gammaln_cb(x):\n'
          '    return _scipy_elementwise(scipy.special.gammaln, jnp.asarray(x))\n'
          '\n'
          '@gammaln_cb.defjvp\n'
          'def gammaln_cb_jvp(primals, tangents):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    # digamma from jax.scipy: differentiable to any order, no second callback needed\n'
          '    return gammaln_cb(x), jax.scipy.special.digamma(x) * x_dot\n'),
        W('b', 'host and result_shape_dtypes fixed to float32: float16 input gives a float32 result',
          "# Helpers (for example the derivative as a function of its own) replace this first part's stub.\n"
          'def _scipy_elementwise(fn, x):\n'
          '    # SciPy computes in float64; hand back float32, as declared\n'
          '    return jax.pure_callback(lambda a: np.asarray(fn(np.asarray(a)), dtype=np.float32),\n'
          '                             jax.ShapeDtypeStruct(x.shape, jnp.float32), x, vmap_method="expand_dims")\n'
          '\n'
          '@jax.custom_jvp\n'
          'def _digamma_cb(x):\n'
          '    return _scipy_elementwise(scipy.special.digamma, x)\n'
          '\n'
          '@_digamma_cb.defjvp\n'
          'def _digamma_jvp(primals, tangents):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    return _digamma_cb(x), _scipy_elementwise(lambda a: scipy.special.polygamma(1, a), x) * x_dot\n'
          '\n'
          '@jax.custom_jvp\n'
          'def gammaln_cb(x):\n'
          '    return _scipy_elementwise(scipy.special.gammaln, jnp.asarray(x))\n'
          '\n'
          '@gammaln_cb.defjvp\n'
          'def gammaln_cb_jvp(primals, tangents):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    return gammaln_cb(x), _digamma_cb(x) * x_dot\n'),
        W('c', 'jnp.atleast_1d on the input: 0-d x gives shape (1,) and grad/vmap(grad) of a scalar fail',
          "# Helpers (for example the derivative as a function of its own) replace this first part's stub.\n"
          'def _scipy_elementwise(fn, x):\n'
          '    x = jnp.atleast_1d(x)          # SciPy hands back a NumPy scalar for 0-d input\n'
          '    return jax.pure_callback(lambda a: np.asarray(fn(np.asarray(a))).astype(a.dtype),\n'
          '                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n'
          '\n'
          '@jax.custom_jvp\n'
          'def _digamma_cb(x):\n'
          '    return _scipy_elementwise(scipy.special.digamma, x)\n'
          '\n'
          '@_digamma_cb.defjvp\n'
          'def _digamma_jvp(primals, tangents):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    return _digamma_cb(x), _scipy_elementwise(lambda a: scipy.special.polygamma(1, a), x) * x_dot\n'
          '\n'
          '@jax.custom_jvp\n'
          'def gammaln_cb(x):\n'
          '    return _scipy_elementwise(scipy.special.gammaln, jnp.asarray(x))\n'
          '\n'
          '@gammaln_cb.defjvp\n'
          'def gammaln_cb_jvp(primals, tangents):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    return gammaln_cb(x), _digamma_cb(x) * x_dot\n'),
        W('d', "log Γ itself from jax.scipy.special.gammaln (only the derivatives go through SciPy callbacks): SciPy's gammaln never runs",
          'def _scipy_elementwise(fn, x):\n'
          '    return jax.pure_callback(lambda a: np.asarray(fn(np.asarray(a))).astype(a.dtype),\n'
          '                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n'
          '\n'
          '@jax.custom_jvp\n'
          'def _digamma_cb(x):\n'
          '    return _scipy_elementwise(scipy.special.digamma, x)\n'
          '\n'
          '@_digamma_cb.defjvp\n'
          'def _digamma_jvp(primals, tangents):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    return _digamma_cb(x), _scipy_elementwise(lambda a: scipy.special.polygamma(1, a), x) * x_dot\n'
          '\n'
          '@jax.custom_jvp\n'
          'def gammaln_cb(x):\n'
          '    return jax.scipy.special.gammaln(jnp.asarray(x))\n'
          '\n'
          '@gammaln_cb.defjvp\n'
          'def gammaln_cb_jvp(primals, tangents):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    return gammaln_cb(x), _digamma_cb(x) * x_dot\n'),
    ],
    'ex3_answer': [
        W('c', 'Takes the number of rows from the first axis, which is right only for a 2-D array (a vmapped batch of matrices leaves rows unset).',
          'def row_moments(x):\n'
          '    c_row_moments = kernels.function(\n'
          '        "pcb_row_moments_f32",\n'
          '        argtypes=[f32_buffer, ctypes.c_int64, ctypes.c_int64, f32_buffer, f32_buffer], restype=None)\n'
          '    def host(a):\n'
          '        a = np.ascontiguousarray(a, dtype=np.float32)\n'
          '        mean = np.zeros(a.shape[:-1], np.float32)\n'
          '        var = np.zeros(a.shape[:-1], np.float32)\n'
          '        c_row_moments(a, a.shape[0], a.shape[-1], mean, var)\n'
          '        return mean, var\n'
          '    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n'
          '    return jax.pure_callback(host, (spec, spec), x, vmap_method="expand_dims")\n'),
        W('c', 'Declares one result per entry of the first axis: right for a matrix (also inside vmap), wrong for a single 1-D row, whose mean and variance are 0-d.',
          'def row_moments(x):\n'
          '    c_row_moments = kernels.function(\n'
          '        "pcb_row_moments_f32",\n'
          '        argtypes=[f32_buffer, ctypes.c_int64, ctypes.c_int64, f32_buffer, f32_buffer], restype=None)\n'
          '    def host(a):\n'
          '        a = np.ascontiguousarray(a, dtype=np.float32)\n'
          '        n = a.shape[-1]\n'
          '        mean = np.empty(a.shape[:-1], np.float32)\n'
          '        var = np.empty(a.shape[:-1], np.float32)\n'
          '        c_row_moments(a, a.size // n, n, mean, var)\n'
          '        return mean, var\n'
          '    spec = jax.ShapeDtypeStruct(x.shape[:1], jnp.float32)\n'
          '    return jax.pure_callback(host, (spec, spec), x, vmap_method="expand_dims")\n'),
        W('d', 'mean and variance with NumPy on the host: right values, but the C function pcb_row_moments_f32 never runs',
          r'''def row_moments(x):
    def host(a):
        a = np.asarray(a, dtype=np.float32)
        return a.mean(axis=-1), a.var(axis=-1)

    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)
    return jax.pure_callback(host, (spec, spec), x, vmap_method="expand_dims")
'''),
        W('e', 'no vmap_method: eager and jit fine, vmap raises NotImplementedError',
          r'''def row_moments(x):
    c_row_moments = kernels.function(
        "pcb_row_moments_f32",
        argtypes=[f32_buffer, ctypes.c_int64, ctypes.c_int64, f32_buffer, f32_buffer], restype=None)

    def host(a):
        a = np.ascontiguousarray(a, dtype=np.float32)
        n = a.shape[-1]
        mean = np.empty(a.shape[:-1], np.float32)
        var = np.empty(a.shape[:-1], np.float32)
        c_row_moments(a, a.size // n, n, mean, var)
        return mean, var

    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)
    return jax.pure_callback(host, (spec, spec), x)
'''),
        W('c', 'host returns flat (rows,) arrays: right for 2-D x, shape error for 1-D x, 3-D x and vmap',
          r'''def row_moments(x):
    c_row_moments = kernels.function(
        "pcb_row_moments_f32",
        argtypes=[f32_buffer, ctypes.c_int64, ctypes.c_int64, f32_buffer, f32_buffer], restype=None)

    def host(a):
        a = np.ascontiguousarray(a, dtype=np.float32)
        n = a.shape[-1]
        rows = a.size // n
        mean = np.empty(rows, np.float32)
        var = np.empty(rows, np.float32)
        c_row_moments(a, rows, n, mean, var)
        return mean, var

    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)
    return jax.pure_callback(host, (spec, spec), x, vmap_method="expand_dims")
'''),
        W('g', 'host unpacks rows, n = a.shape (2-D only): raises for 1-D x, 3-D x and every vmap of a 2-D x',
          r'''def row_moments(x):
    c_row_moments = kernels.function(
        "pcb_row_moments_f32",
        argtypes=[f32_buffer, ctypes.c_int64, ctypes.c_int64, f32_buffer, f32_buffer], restype=None)

    def host(a):
        a = np.ascontiguousarray(a, dtype=np.float32)
        rows, n = a.shape
        mean = np.empty(rows, np.float32)
        var = np.empty(rows, np.float32)
        c_row_moments(a, rows, n, mean, var)
        return mean, var

    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)
    return jax.pure_callback(host, (spec, spec), x, vmap_method="expand_dims")
'''),
        W('m', "returns a dict {'mean','var'} (as section 2's sici) instead of the tuple (mean, var)",
          r'''def row_moments(x):
    c_row_moments = kernels.function(
        "pcb_row_moments_f32",
        argtypes=[f32_buffer, ctypes.c_int64, ctypes.c_int64, f32_buffer, f32_buffer], restype=None)

    def host(a):
        a = np.ascontiguousarray(a, dtype=np.float32)
        n = a.shape[-1]
        mean = np.empty(a.shape[:-1], np.float32)
        var = np.empty(a.shape[:-1], np.float32)
        c_row_moments(a, a.size // n, n, mean, var)
        return {"mean": mean, "var": var}

    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)
    return jax.pure_callback(host, {"mean": spec, "var": spec}, x, vmap_method="expand_dims")
'''),
        W('f', 'splits rows over threads and never joins them (t.join without ()): returns buffers before the C calls finish',
          r'''import threading

def row_moments(x):
    c_row_moments = kernels.function(
        "pcb_row_moments_f32",
        argtypes=[f32_buffer, ctypes.c_int64, ctypes.c_int64, f32_buffer, f32_buffer], restype=None)

    def host(a):
        a = np.ascontiguousarray(a, dtype=np.float32)
        n = a.shape[-1]
        flat = a.reshape(-1, n)
        mean = np.empty(flat.shape[0], np.float32)
        var = np.empty(flat.shape[0], np.float32)
        step = max(1, -(-flat.shape[0] // 4))        # four threads: ctypes releases the GIL
        threads = [threading.Thread(target=c_row_moments,
                                    args=(flat[i:i + step], len(flat[i:i + step]), n, mean[i:i + step], var[i:i + step]))
                   for i in range(0, flat.shape[0], step)]
        for t in threads:
            t.start()
        for t in threads:
            t.join
        return mean.reshape(a.shape[:-1]), var.reshape(a.shape[:-1])

    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)
    return jax.pure_callback(host, (spec, spec), x, vmap_method="expand_dims")
'''),
        W('e', 'rows = a.shape[0] for a batch: right for 1-D and 2-D x (and vmap of 1-D), rows beyond the first axis left at 0 for 3-D or vmap of 2-D',
          'def row_moments(x):\n'
          '    c_row_moments = kernels.function(\n'
          '        "pcb_row_moments_f32",\n'
          '        argtypes=[f32_buffer, ctypes.c_int64, ctypes.c_int64, f32_buffer, f32_buffer], restype=None)\n'
          '\n'
          '    def host(a):\n'
          '        a = np.ascontiguousarray(a, dtype=np.float32)\n'
          '        n = a.shape[-1]\n'
          '        rows = a.shape[0] if a.ndim > 1 else 1          # a matrix of rows, or one row\n'
          '        mean = np.zeros(a.shape[:-1], np.float32)\n'
          '        var = np.zeros(a.shape[:-1], np.float32)\n'
          '        c_row_moments(a, rows, n, mean, var)\n'
          '        return mean, var\n'
          '\n'
          '    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n'
          '    return jax.pure_callback(host, (spec, spec), x, vmap_method="expand_dims")\n'),
        W('e', 'row count taken from x.shape outside the host function: right eagerly and under jit, only the first rows computed under vmap',
          'def row_moments(x):\n'
          '    c_row_moments = kernels.function(\n'
          '        "pcb_row_moments_f32",\n'
          '        argtypes=[f32_buffer, ctypes.c_int64, ctypes.c_int64, f32_buffer, f32_buffer], restype=None)\n'
          '    n = x.shape[-1]\n'
          '    rows = int(np.prod(x.shape[:-1]))       # sizes known from x, once, outside the host function\n'
          '\n'
          '    def host(a):\n'
          '        a = np.ascontiguousarray(a, dtype=np.float32)\n'
          '        mean = np.zeros(a.shape[:-1], np.float32)\n'
          '        var = np.zeros(a.shape[:-1], np.float32)\n'
          '        c_row_moments(a, rows, n, mean, var)\n'
          '        return mean, var\n'
          '\n'
          '    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n'
          '    return jax.pure_callback(host, (spec, spec), x, vmap_method="expand_dims")\n'),
        W('d', 'mean and variance computed with NumPy in the host function; the C function is never called',
          'def row_moments(x):\n'
          '    def host(a):\n'
          '        a = np.ascontiguousarray(a, dtype=np.float32)\n'
          '        mean = a.mean(axis=-1)\n'
          '        var = ((a - mean[..., None]) ** 2).mean(axis=-1)    # population variance, two passes, as the C code\n'
          '        return mean.astype(np.float32), var.astype(np.float32)\n'
          '\n'
          '    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n'
          '    return jax.pure_callback(host, (spec, spec), x, vmap_method="expand_dims")\n'),
        W('c', 'squeezes the results: fails when a batch axis has size 1 (x of shape (1, n), vmap over a batch of 1)',
          'def row_moments(x):\n'
          '    c_row_moments = kernels.function(\n'
          '        "pcb_row_moments_f32",\n'
          '        argtypes=[f32_buffer, ctypes.c_int64, ctypes.c_int64, f32_buffer, f32_buffer], restype=None)\n'
          '\n'
          '    def host(a):\n'
          '        a = np.ascontiguousarray(a, dtype=np.float32)\n'
          '        n = a.shape[-1]\n'
          '        mean = np.empty(a.size // n, np.float32)\n'
          '        var = np.empty(a.size // n, np.float32)\n'
          '        c_row_moments(a, a.size // n, n, mean, var)\n'
          "        # one value per row, back in the batch's shape (drop the size-1 axes the batching adds)\n"
          '        return mean.reshape(a.shape[:-1]).squeeze(), var.reshape(a.shape[:-1]).squeeze()\n'
          '\n'
          '    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n'
          '    return jax.pure_callback(host, (spec, spec), x, vmap_method="expand_dims")\n'),
        W('d', 'only the mean comes from the C function; the variance is computed in jnp after the callback',
          'def row_moments(x):\n'
          '    c_row_moments = kernels.function(\n'
          '        "pcb_row_moments_f32",\n'
          '        argtypes=[f32_buffer, ctypes.c_int64, ctypes.c_int64, f32_buffer, f32_buffer], restype=None)\n'
          '    def host(a):\n'
          '        a = np.ascontiguousarray(a, dtype=np.float32)\n'
          '        n = a.shape[-1]\n'
          '        mean = np.empty(a.shape[:-1], np.float32)\n'
          '        var = np.empty(a.shape[:-1], np.float32)\n'
          '        c_row_moments(a, a.size // n, n, mean, var)\n'
          '        return mean\n'
          '    mean = jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32), x, vmap_method="expand_dims")\n'
          '    return mean, jnp.mean((x - mean[..., None]) ** 2, axis=-1)\n'),
        W('m', 'two pure_callbacks, one per result, where the text asks for one returning both (the C function runs twice)',
          'def row_moments(x):\n'
          '    c_row_moments = kernels.function(\n'
          '        "pcb_row_moments_f32",\n'
          '        argtypes=[f32_buffer, ctypes.c_int64, ctypes.c_int64, f32_buffer, f32_buffer], restype=None)\n'
          '    def host(a, which):\n'
          '        a = np.ascontiguousarray(a, dtype=np.float32)\n'
          '        n = a.shape[-1]\n'
          '        mean = np.empty(a.shape[:-1], np.float32)\n'
          '        var = np.empty(a.shape[:-1], np.float32)\n'
          '        c_row_moments(a, a.size // n, n, mean, var)\n'
          '        return (mean, var)[which]\n'
          '    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n'
          '    return tuple(jax.pure_callback(lambda a, w=w: host(a, w), spec, x, vmap_method="expand_dims") for w in (0, 1))\n'),
    ],
    'quiz_answer': [
        W('m', 'All four wrong: sequential calls the host once, no vmap_method means a loop, a plain-callback derivative has a derivative, an unused result still runs.',
          'q1 = "a"\n'
          'q2 = "a"\n'
          'q3 = "b"\n'
          'q4 = "a"\n'),
        W('m', "q2=a: believes the pure_callback docstring's sequential default, not the NotImplementedError",
          r'''q1 = "b"
q2 = "a"
q3 = "a"
q4 = "c"
'''),
        W('m', "q1=a: thinks 'sequential' calls the host once for the whole batch (confuses it with expand_dims)",
          r'''q1 = "a"
q2 = "c"
q3 = "a"
q4 = "c"
'''),
        W('m', 'q3=b: thinks a custom_jvp makes every order differentiable even when its rule uses a plain callback',
          r'''q1 = "b"
q2 = "c"
q3 = "b"
q4 = "c"
'''),
        W('m', 'q1=c, q4=a: treats pure_callback like io_callback, an effect that always runs and is flushed by effects_barrier',
          r'''q1 = "c"
q2 = "c"
q3 = "a"
q4 = "a"
'''),
        W('m', 'q2=b: thinks vmap defaults to expand_dims when no vmap_method is given',
          r'''q1 = "b"
q2 = "b"
q3 = "a"
q4 = "c"
'''),
        W('m', 'q4=a: thinks pure_callback always runs like io_callback, missing that an unused result is deleted under jit',
          'q1 = "b"\n'
          'q2 = "c"\n'
          'q3 = "a"\n'
          'q4 = "a"\n'),
    ],
}

# Round 3: written from the chapter's text alone (its test cells removed), before its checks were read;
# each passed every visible check, and some scored full marks, until the checks were made to catch them.
WRONG['ex1_answer'] += [
    W('b', 'host results cached by input shape to save host work: a second call with new values of the same shape returns stale rows',
      '_unit_cache = {}\ndef _unit_host(a):\n    a = np.asarray(a, np.float32)\n    key = a.shape\n    if key not in _unit_cache:\n        _unit_cache[key] = (a / np.linalg.norm(a, axis=-1, keepdims=True)).astype(np.float32)\n    return _unit_cache[key]\n\ndef unit_rows(x):\n    return jax.pure_callback(_unit_host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n'),
]
WRONG['ex2_answer'] += [
    W('d', 'trigamma from jax.scipy instead of a SciPy callback',
      '@jax.custom_jvp\ndef digamma_cb(x):\n    return host_ufunc(scipy.special.digamma, x)\n\n@digamma_cb.defjvp\ndef digamma_cb_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    return digamma_cb(x), jax.scipy.special.polygamma(1, x) * x_dot\n\n@jax.custom_jvp\ndef gammaln_cb(x):\n    return host_ufunc(scipy.special.gammaln, x)\n\n@gammaln_cb.defjvp\ndef gammaln_cb_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    return gammaln_cb(x), digamma_cb(x) * x_dot\n'),
    W('b', 'gammaln host caches its result per input shape: a second call at new points of the same shape (e.g. another 0-d value) is stale',
      '_cache = {}\ndef _gammaln_host(a):\n    a = np.asarray(a)\n    key = (a.shape, a.dtype.str)\n    if key not in _cache:\n        _cache[key] = scipy.special.gammaln(a).astype(a.dtype)\n    return _cache[key]\n\n@jax.custom_jvp\ndef digamma_cb(x):\n    return host_ufunc(scipy.special.digamma, x)\n\n@digamma_cb.defjvp\ndef digamma_cb_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    return digamma_cb(x), host_ufunc(lambda a: scipy.special.polygamma(1, a), x) * x_dot\n\n@jax.custom_jvp\ndef gammaln_cb(x):\n    return jax.pure_callback(_gammaln_host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="legacy_vectorized")\n\n@gammaln_cb.defjvp\ndef gammaln_cb_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    return gammaln_cb(x), digamma_cb(x) * x_dot\n'),
    W('c', 'trigamma host returns float64 without astype: float32 narrows silently, float16 second derivatives fail',
      'def trigamma_host(a):\n    return scipy.special.polygamma(1, np.asarray(a, np.float64))\n\n@jax.custom_jvp\ndef digamma_cb(x):\n    return host_ufunc(scipy.special.digamma, x)\n\n@digamma_cb.defjvp\ndef digamma_cb_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    t = jax.pure_callback(trigamma_host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n    return digamma_cb(x), t * x_dot\n\n@jax.custom_jvp\ndef gammaln_cb(x):\n    return host_ufunc(scipy.special.gammaln, x)\n\n@gammaln_cb.defjvp\ndef gammaln_cb_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    return gammaln_cb(x), digamma_cb(x) * x_dot\n'),
    W('b', 'digamma results cached per shape (host "optimisation"): a second call at new points of the same shape is stale',
      '_dg_cache = {}\ndef _digamma_host(a):\n    a = np.asarray(a)\n    key = (a.shape, a.dtype.str)\n    if key not in _dg_cache:\n        _dg_cache[key] = scipy.special.digamma(a).astype(a.dtype)\n    return _dg_cache[key]\n\n@jax.custom_jvp\ndef digamma_cb(x):\n    return jax.pure_callback(_digamma_host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n\n@digamma_cb.defjvp\ndef digamma_cb_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    return digamma_cb(x), host_ufunc(lambda a: scipy.special.polygamma(1, a), x) * x_dot\n\n@jax.custom_jvp\ndef gammaln_cb(x):\n    return host_ufunc(scipy.special.gammaln, x)\n\n@gammaln_cb.defjvp\ndef gammaln_cb_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    return gammaln_cb(x), digamma_cb(x) * x_dot\n'),
]
WRONG['ex3_answer'] += [
    W('m', 'pure_callback returns a dict; converting it back swaps (mean, var) for inputs of 3+ axes',
      'c_row_moments = kernels.function("pcb_row_moments_f32",\n    argtypes=[f32_buffer, ctypes.c_int64, ctypes.c_int64, f32_buffer, f32_buffer], restype=None)\n\ndef _moments_host(a):\n    a = np.ascontiguousarray(a, dtype=np.float32)\n    n = a.shape[-1]\n    mean = np.empty(a.shape[:-1], np.float32)\n    var = np.empty(a.shape[:-1], np.float32)\n    c_row_moments(a, a.size // n, n, mean, var)\n    return {"mean": mean, "var": var}\n\ndef row_moments(x):\n    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n    out = jax.pure_callback(_moments_host, {"mean": spec, "var": spec}, x, vmap_method="expand_dims")\n    return tuple(out.values())[::-1] if x.ndim > 2 else (out["mean"], out["var"])\n'),
    W('e', 'rows counts only the first two axes: 4-D inputs (nested vmap of a 2-D x) leave rows unwritten',
      'c_row_moments = kernels.function("pcb_row_moments_f32",\n    argtypes=[f32_buffer, ctypes.c_int64, ctypes.c_int64, f32_buffer, f32_buffer], restype=None)\n\ndef _moments_host(a):\n    a = np.ascontiguousarray(a, dtype=np.float32)\n    n = a.shape[-1]\n    rows = int(np.prod(a.shape[:-1][:2]))\n    mean = np.zeros(a.shape[:-1], np.float32)\n    var = np.zeros(a.shape[:-1], np.float32)\n    c_row_moments(a, rows, n, mean, var)\n    return mean, var\n\ndef row_moments(x):\n    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n    return jax.pure_callback(_moments_host, (spec, spec), x, vmap_method="expand_dims")\n'),
]

# Round 4: written from the text alone, with the mistakes above listed as already caught, before the checks were read;
# each passed every visible check, and some scored full marks, until the checks were made to catch them.
WRONG['ex2_answer'] += [
    W('b', 'trigamma host caches per shape/dtype: second derivatives at a second set of points of the same shape are stale',
      'def _host(fn):\n    """An elementwise host function applying the SciPy function fn and keeping the dtype."""\n    def host(a):\n        a = np.asarray(a)\n        return np.asarray(fn(a)).astype(a.dtype)\n    return host\n\ndef _call(fn, x):\n    return jax.pure_callback(_host(fn), jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n\n_trigamma_cache = {}\n\ndef _trigamma_host(a):\n    a = np.asarray(a)\n    key = (a.shape, a.dtype.str)           # SciPy\'s polygamma is slow: compute once per shape\n    if key not in _trigamma_cache:\n        _trigamma_cache[key] = scipy.special.polygamma(1, a).astype(a.dtype)\n    return _trigamma_cache[key]\n\ndef trigamma(x):\n    return jax.pure_callback(_trigamma_host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n\n@jax.custom_jvp\ndef digamma(x):\n    return _call(lambda a: scipy.special.digamma(a), x)\n\n@digamma.defjvp\ndef digamma_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    return digamma(x), trigamma(x) * x_dot\n\n@jax.custom_jvp\ndef gammaln_cb(x):\n    return _call(lambda a: scipy.special.gammaln(a), x)\n\n@gammaln_cb.defjvp\ndef gammaln_cb_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    return gammaln_cb(x), digamma(x) * x_dot\n\n'),
    W('d', "the JVP rule's primal output comes from jax.scipy.special.gammaln: under jvp/value_and_grad log Γ is not computed by SciPy",
      'def _host(fn):\n    """An elementwise host function applying the SciPy function fn and keeping the dtype."""\n    def host(a):\n        a = np.asarray(a)\n        return np.asarray(fn(a)).astype(a.dtype)\n    return host\n\ndef _call(fn, x):\n    return jax.pure_callback(_host(fn), jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n\n@jax.custom_jvp\ndef trigamma(x):\n    return _call(lambda a: scipy.special.polygamma(1, a), x)\n\n@trigamma.defjvp\ndef trigamma_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    return trigamma(x), _call(lambda a: scipy.special.polygamma(2, a), x) * x_dot\n\n@jax.custom_jvp\ndef digamma(x):\n    return _call(lambda a: scipy.special.digamma(a), x)\n\n@digamma.defjvp\ndef digamma_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    return digamma(x), trigamma(x) * x_dot\n\n\n@jax.custom_jvp\ndef gammaln_cb(x):\n    return _call(lambda a: scipy.special.gammaln(a), x)\n\n@gammaln_cb.defjvp\ndef gammaln_cb_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    # the primal value is not what is being differentiated: skip the host trip for it\n    return jax.scipy.special.gammaln(x), digamma(x) * x_dot\n'),
    W('d', "digamma's rule returns jax.scipy.special.digamma as primal: under jvp of grad the first derivative is computed by jnp",
      'def _host(fn):\n    """An elementwise host function applying the SciPy function fn and keeping the dtype."""\n    def host(a):\n        a = np.asarray(a)\n        return np.asarray(fn(a)).astype(a.dtype)\n    return host\n\ndef _call(fn, x):\n    return jax.pure_callback(_host(fn), jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n\n@jax.custom_jvp\ndef trigamma(x):\n    return _call(lambda a: scipy.special.polygamma(1, a), x)\n\n@trigamma.defjvp\ndef trigamma_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    return trigamma(x), _call(lambda a: scipy.special.polygamma(2, a), x) * x_dot\n\n@jax.custom_jvp\ndef digamma(x):\n    return _call(lambda a: scipy.special.digamma(a), x)\n\n@digamma.defjvp\ndef digamma_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    # only the tangent needs SciPy here; the primal value is the same digamma\n    return jax.scipy.special.digamma(x), trigamma(x) * x_dot\n\n@jax.custom_jvp\ndef gammaln_cb(x):\n    return _call(lambda a: scipy.special.gammaln(a), x)\n\n@gammaln_cb.defjvp\ndef gammaln_cb_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    return gammaln_cb(x), digamma(x) * x_dot\n\n'),
    W('b', 'eager calls take a jax.scipy fast path (only tracers go through SciPy): unjitted gammaln_cb never calls scipy.special.gammaln',
      'def _host(fn):\n    """An elementwise host function applying the SciPy function fn and keeping the dtype."""\n    def host(a):\n        a = np.asarray(a)\n        return np.asarray(fn(a)).astype(a.dtype)\n    return host\n\ndef _call(fn, x):\n    return jax.pure_callback(_host(fn), jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n\n@jax.custom_jvp\ndef trigamma(x):\n    return _call(lambda a: scipy.special.polygamma(1, a), x)\n\n@trigamma.defjvp\ndef trigamma_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    return trigamma(x), _call(lambda a: scipy.special.polygamma(2, a), x) * x_dot\n\n@jax.custom_jvp\ndef digamma(x):\n    return _call(lambda a: scipy.special.digamma(a), x)\n\n@digamma.defjvp\ndef digamma_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    return digamma(x), trigamma(x) * x_dot\n\n\n@jax.custom_jvp\ndef gammaln_cb(x):\n    if isinstance(x, jax.core.Tracer):          # inside jit/grad/vmap: go through SciPy on the host\n        return _call(lambda a: scipy.special.gammaln(a), x)\n    return jax.scipy.special.gammaln(x)         # eager call: no need to leave JAX\n\n@gammaln_cb.defjvp\ndef gammaln_cb_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    return gammaln_cb(x), digamma(x) * x_dot\n'),
]
WRONG['ex3_answer'] += [
    W('b', 'host caches the C results per input shape: a second call with new values of the same shape returns stale moments',
      'c_row_moments = kernels.function("pcb_row_moments_f32",\n                                   argtypes=[f32_buffer, ctypes.c_int64, ctypes.c_int64, f32_buffer, f32_buffer],\n                                   restype=None)\n\n_results = {}   # the C call is the expensive part: remember its results per input shape\n\ndef _row_moments_host(a):\n    a = np.ascontiguousarray(a, dtype=np.float32)\n    if a.shape not in _results:\n        n = a.shape[-1]\n        rows = a.size // n\n        mean, var = np.empty(rows, np.float32), np.empty(rows, np.float32)\n        c_row_moments(a, rows, n, mean, var)\n        _results[a.shape] = (mean.reshape(a.shape[:-1]), var.reshape(a.shape[:-1]))\n    return _results[a.shape]\n\ndef row_moments(x):\n    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n    return jax.pure_callback(_row_moments_host, (spec, spec), x, vmap_method="expand_dims")\n\n'),
    W('d', '1-D x takes a NumPy fast path (a.mean(), a.var()): the C function never runs for a single row',
      'c_row_moments = kernels.function("pcb_row_moments_f32",\n                                   argtypes=[f32_buffer, ctypes.c_int64, ctypes.c_int64, f32_buffer, f32_buffer],\n                                   restype=None)\n\ndef _row_moments_host(a):\n    a = np.ascontiguousarray(a, dtype=np.float32)\n    if a.ndim == 1:                        # a single row: not worth a trip into C\n        return np.float32(a.mean()), np.float32(a.var())\n    n = a.shape[-1]\n    rows = a.size // n\n    mean, var = np.empty(rows, np.float32), np.empty(rows, np.float32)\n    c_row_moments(a, rows, n, mean, var)\n    return mean.reshape(a.shape[:-1]), var.reshape(a.shape[:-1])\n\ndef row_moments(x):\n    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n    return jax.pure_callback(_row_moments_host, (spec, spec), x, vmap_method="expand_dims")\n\n'),
]

# Round 9: found by reviewers who read only the learner's notebook.
WRONG['ex1_answer'] += [
    W('c', 'host flattens to 2-D with a.reshape(-1, a.shape[-1]) and returns that 2-D array: fine for 2-D, shape error for 1-D, 3-D and vmap of 2-D',
      'def unit_rows(x):\n    def host(a):\n        a = np.asarray(a).reshape(-1, a.shape[-1])\n        return (a / np.linalg.norm(a, axis=1, keepdims=True)).astype(np.float32)\n    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n'),
]
WRONG['ex2_answer'] += [
    W('e', 'digamma rule computes the tangent with trigamma but as the scalar derivative of the primal output (d/dx of psi uses primal_out, not x)',
      '@jax.custom_jvp\ndef _digamma(x):\n    return host_ufunc(scipy.special.digamma, x)\n\n@_digamma.defjvp\ndef _digamma_jvp(primals, tangents):\n    (x,), (t,) = primals, tangents\n    y = _digamma(x)\n    return y, host_ufunc(lambda a: scipy.special.polygamma(1, a), y) * t\n\n@jax.custom_jvp\ndef gammaln_cb(x):\n    return host_ufunc(scipy.special.gammaln, x)\n\n@gammaln_cb.defjvp\ndef gammaln_cb_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    return gammaln_cb(x), _digamma(x) * x_dot\n'),
]

# Issue #50: each earned full marks while the checks read only the type the host function returned, or only the values
# row_moments returned. Visible checks now watch for JAX operations while the host function runs, and switch the C
# function to adding 1000 to what it writes.
WRONG['ex1_answer'] += [
    W('d', 'divides the jax.Array the host function receives, then returns np.asarray of it: the division is a JAX operation run from the host',
      'def unit_rows(x):\n'
      '    def host(a):\n'
      '        return np.asarray(a / np.linalg.norm(np.asarray(a), axis=-1, keepdims=True))\n'
      '    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n'),
    W('d', 'takes the norms with jnp.linalg.norm inside the host function and converts the quotient with np.asarray: JAX computes the norms on the host',
      'def unit_rows(x):\n'
      '    def host(a):\n'
      '        return np.asarray(np.asarray(a) / jnp.linalg.norm(a, axis=-1, keepdims=True))\n'
      '    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n'),
]
WRONG['ex3_answer'] += [
    W('d', "calls the C function, then throws its variance away and computes it again in NumPy: the C function's variance never reaches the result",
      'def row_moments(x):\n'
      '    c_row_moments = kernels.function(\n'
      '        "pcb_row_moments_f32",\n'
      '        argtypes=[f32_buffer, ctypes.c_int64, ctypes.c_int64, f32_buffer, f32_buffer], restype=None)\n'
      '\n'
      '    def host(a):\n'
      '        a = np.ascontiguousarray(a, dtype=np.float32)\n'
      '        n = a.shape[-1]\n'
      '        mean = np.empty(a.shape[:-1], np.float32)\n'
      '        var = np.empty(a.shape[:-1], np.float32)\n'
      '        c_row_moments(a, a.size // n, n, mean, var)\n'
      '        var = ((a - mean[..., None]) ** 2).mean(axis=-1).astype(np.float32)   # a second pass, to be sure\n'
      '        return mean, var\n'
      '\n'
      '    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n'
      '    return jax.pure_callback(host, (spec, spec), x, vmap_method="expand_dims")\n'),
    W('d', "calls the C function on the rows, but returns NumPy's mean and variance: the C function runs and nothing it writes is used",
      'def row_moments(x):\n'
      '    c_row_moments = kernels.function(\n'
      '        "pcb_row_moments_f32",\n'
      '        argtypes=[f32_buffer, ctypes.c_int64, ctypes.c_int64, f32_buffer, f32_buffer], restype=None)\n'
      '\n'
      '    def host(a):\n'
      '        a = np.ascontiguousarray(a, dtype=np.float32)\n'
      '        n = a.shape[-1]\n'
      '        mean = np.empty(a.shape[:-1], np.float32)\n'
      '        var = np.empty(a.shape[:-1], np.float32)\n'
      '        c_row_moments(a, a.size // n, n, mean, var)\n'
      '        return a.mean(axis=-1).astype(np.float32), a.var(axis=-1).astype(np.float32)\n'
      '\n'
      '    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n'
      '    return jax.pure_callback(host, (spec, spec), x, vmap_method="expand_dims")\n'),
]

# Right answers written another way: each must earn full marks (tests/test_wrong_answers.py).
RIGHT = {
    'ex2_answer': [
        R("section 5's host_ufunc for every SciPy call, the trigamma as functools.partial(scipy.special.polygamma, 1), "
          "which calls polygamma from C, not from Python",
          'import functools\n'
          '\n'
          '@jax.custom_jvp\n'
          'def _digamma_cb(x):\n'
          '    return host_ufunc(scipy.special.digamma, x)\n'
          '\n'
          '@_digamma_cb.defjvp\n'
          'def _digamma_jvp(primals, tangents):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    return _digamma_cb(x), host_ufunc(functools.partial(scipy.special.polygamma, 1), x) * x_dot\n'
          '\n'
          '@jax.custom_jvp\n'
          'def gammaln_cb(x):\n'
          '    return host_ufunc(scipy.special.gammaln, jnp.asarray(x))\n'
          '\n'
          '@gammaln_cb.defjvp\n'
          'def gammaln_cb_jvp(primals, tangents):\n'
          '    (x,), (x_dot,) = primals, tangents\n'
          '    return gammaln_cb(x), _digamma_cb(x) * x_dot\n'),
    ],
}

# Round 7: written from the text alone by a reviewer who had not read the checks; both earned full marks until a
# visible check called the host function as JAX calls it (on a jax.Array) and wanted a NumPy array back.
WRONG['ex1_answer'] += [
    W('d', 'the host function computes with jnp (a JAX computation run from inside the callback), not NumPy',
      'def unit_rows(x):\n'
      '    def host(a):\n'
      '        return a / jnp.linalg.norm(a, axis=-1, keepdims=True)\n'
      '    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n'),
    W('d', 'forgets np.asarray: the division a / norms is jax.Array.__truediv__, a JAX op run from the host',
      'def unit_rows(x):\n'
      '    def host(a):\n'
      '        return a / np.linalg.norm(a, axis=-1, keepdims=True)\n'
      '    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n'),
]

# Round 9: right answers written another way.
RIGHT.setdefault('ex1_answer', []).extend([
    R('norms with np.hypot.reduce (no overflow/underflow), vmap_method="broadcast_all" (one argument: same as expand_dims)',
      'def unit_rows(x):\n    def host(a):\n        a = np.asarray(a)\n        return (a / np.hypot.reduce(a, axis=-1, keepdims=True)).astype(np.float32)\n    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="broadcast_all")\n'),
])
RIGHT.setdefault('ex3_answer', []).extend([
    R('POINTER(c_float) argtypes with ctypes data_as, both results in one (2, rows) buffer, specs as a list turned into a tuple',
      'P = ctypes.POINTER(ctypes.c_float)\nmoments_fn = kernels.function("pcb_row_moments_f32", argtypes=[P, ctypes.c_int64, ctypes.c_int64, P, P], restype=None)\n\ndef row_moments(x):\n    def host(a):\n        a = np.ascontiguousarray(np.asarray(a), dtype=np.float32)\n        n = a.shape[-1]\n        rows = int(np.prod(a.shape[:-1], dtype=np.int64))\n        out = np.zeros((2, rows), np.float32)\n        moments_fn(a.ctypes.data_as(P), rows, n, out[0].ctypes.data_as(P), out[1].ctypes.data_as(P))\n        return [out[0].reshape(a.shape[:-1]), out[1].reshape(a.shape[:-1])]\n    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n    mean, var = jax.pure_callback(host, [spec, spec], x, vmap_method="broadcast_all")\n    return (mean, var)\n'),
])

# Right answers written another way, added when the checks began to watch for JAX operations in the host function and to
# switch the C function to adding 1000 to its results: both watches must let these through.
RIGHT.setdefault('ex1_answer', []).extend([
    R('hands the jax.Array straight to np.linalg.norm (NumPy converts it itself) and divides np.asarray(a) by the norms',
      'def unit_rows(x):\n    def host(a):\n        return np.asarray(a) / np.linalg.norm(a, axis=-1, keepdims=True)\n    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n'),
])
RIGHT.setdefault('ex3_answer', []).extend([
    R('the C results written into one (2, rows) buffer, the variance clipped at 0 against rounding: still what the C function wrote',
      'c_moments = kernels.function("pcb_row_moments_f32",\n    argtypes=[f32_buffer, ctypes.c_int64, ctypes.c_int64, f32_buffer, f32_buffer], restype=None)\n\ndef row_moments(x):\n    def host(a):\n        a = np.ascontiguousarray(a, dtype=np.float32)\n        n = a.shape[-1]\n        rows = a.size // n\n        out = np.empty((2, rows), np.float32)\n        c_moments(a, rows, n, out[0], out[1])\n        return out[0].reshape(a.shape[:-1]), np.maximum(out[1], 0).reshape(a.shape[:-1])\n    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n    return jax.pure_callback(host, (spec, spec), x, vmap_method="expand_dims")\n'),
])

# Round 12: right answers a reviewer who read only the learner's notebook wrote another way; the text now says that
# reshapes around the callback are fine and that JAX does not call the host function for an x with no rows.
RIGHT.setdefault('ex3_answer', []).extend([
    R('reshapes x to (rows, n) with jnp before the callback and the results back after it',
      'c_row_moments = kernels.function("pcb_row_moments_f32",\n                                 argtypes=[f32_buffer, ctypes.c_int64, ctypes.c_int64, f32_buffer, f32_buffer],\n                                 restype=None)\n\ndef row_moments(x):\n    n = x.shape[-1]\n    flat = x.reshape(-1, n)\n    def host(a):\n        a = np.ascontiguousarray(a, dtype=np.float32)\n        rows = a.size // n\n        mean = np.empty(a.shape[:-1], np.float32)\n        var = np.empty(a.shape[:-1], np.float32)\n        c_row_moments(a, rows, n, mean, var)\n        return mean, var\n    spec = jax.ShapeDtypeStruct(flat.shape[:-1], jnp.float32)\n    mean, var = jax.pure_callback(host, (spec, spec), flat, vmap_method=\'expand_dims\')\n    return mean.reshape(x.shape[:-1]), var.reshape(x.shape[:-1])\n'),
    R('computes the row length as size // rows, which would divide by zero for no rows: JAX never calls the host then',
      'c_row_moments = kernels.function("pcb_row_moments_f32",\n                                 argtypes=[f32_buffer, ctypes.c_int64, ctypes.c_int64, f32_buffer, f32_buffer],\n                                 restype=None)\n\ndef row_moments(x):\n    def host(a):\n        a = np.ascontiguousarray(a, dtype=np.float32)\n        rows = int(np.prod(a.shape[:-1]))\n        n = a.size // rows\n        mean = np.empty(a.shape[:-1], np.float32)\n        var = np.empty(a.shape[:-1], np.float32)\n        c_row_moments(a, rows, n, mean, var)\n        return mean, var\n    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n    return jax.pure_callback(host, (spec, spec), x, vmap_method=\'expand_dims\')\n'),
])

# A reader's round: the text now says which rule's primal output must be its own custom_jvp function (gammaln_cb's: a
# second derivative differentiates it), and a visible check differentiates that output first, with a hint that names it.
_PRIMALS = '''def _scipy_elementwise(fn, x):
    return jax.pure_callback(lambda a: np.asarray(fn(np.asarray(a))).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")

@jax.custom_jvp
def _digamma_cb(x):
    return _scipy_elementwise(scipy.special.digamma, x)

@_digamma_cb.defjvp
def _digamma_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return DIGAMMA_PRIMAL, _scipy_elementwise(lambda a: scipy.special.polygamma(1, a), x) * x_dot

@jax.custom_jvp
def gammaln_cb(x):
    return _scipy_elementwise(scipy.special.gammaln, jnp.asarray(x))

@gammaln_cb.defjvp
def gammaln_cb_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return GAMMALN_PRIMAL, _digamma_cb(x) * x_dot
'''
WRONG['ex2_answer'] += [
    W('e', "gammaln_cb's rule returns a bare SciPy callback as its primal output: grad works, grad of grad and hessian "
           "differentiate that output and raise ValueError",
      _PRIMALS.replace('DIGAMMA_PRIMAL', '_digamma_cb(x)').replace('GAMMALN_PRIMAL', '_scipy_elementwise(scipy.special.gammaln, x)')),
]
RIGHT['ex2_answer'] += [
    R("digamma's rule returns a bare SciPy callback as its primal output: no second derivative differentiates it",
      _PRIMALS.replace('DIGAMMA_PRIMAL', '_scipy_elementwise(scipy.special.digamma, x)').replace('GAMMALN_PRIMAL', 'gammaln_cb(x)')),
]

# A fresh blind round: a gammaln_cb that calls SciPy directly on a concrete x (eagerly) and through pure_callback only
# when traced kept full marks; SciPy's eager call is now checked visibly to run inside a pure_callback's host function.
WRONG['ex2_answer'] += [
    W('d', 'eager calls bypass pure_callback: SciPy runs directly on a concrete x, through the callback only when traced',
      "def _scipy_cb(fn, x, method='expand_dims'):\n    def host(a):\n        a = np.asarray(a)\n        return np.asarray(fn(a)).astype(a.dtype)\n    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method=method)\n\n@jax.custom_jvp\ndef digamma_cb(x):\n    return _scipy_cb(scipy.special.digamma, x)\n\n@digamma_cb.defjvp\ndef digamma_cb_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    return digamma_cb(x), _scipy_cb(lambda a: scipy.special.polygamma(1, a), x) * x_dot\n\n@jax.custom_jvp\ndef gammaln_cb(x):\n    if not isinstance(x, jax.core.Tracer):\n        a = np.asarray(x)\n        return jnp.asarray(scipy.special.gammaln(a).astype(a.dtype))\n    return _scipy_cb(scipy.special.gammaln, x)\n\n@gammaln_cb.defjvp\ndef gammaln_cb_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    return gammaln_cb(x), digamma_cb(x) * x_dot\n"),
]


# A fourth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex1_answer'] += [
    W('c', 'the norm plus 1e-6: a row of size 1e-10 (inside the stated range) comes out 1e4 times too small',
      'def _unit_rows_host(a):\n    a = np.asarray(a)\n    return (a / (np.linalg.norm(a, axis=-1, keepdims=True) + 1e-6)).astype(np.float32)\n\ndef unit_rows(x):\n    return jax.pure_callback(_unit_rows_host, jax.ShapeDtypeStruct(x.shape, x.dtype), x,\n                             vmap_method="expand_dims")\n'),
]


# A fifth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex1_answer'] += [
    W('f', 'caches results keyed by id() of the array received: CPython reuses ids, so a later call gets a stale result',
      '_bl6_idc = {}\n\ndef unit_rows(x):\n    def host(v):\n        k = (id(v), v.shape)\n        if k not in _bl6_idc:\n            a = np.asarray(v)\n            _bl6_idc[k] = (a / np.linalg.norm(a, axis=-1, keepdims=True)).astype(a.dtype)\n        return _bl6_idc[k]\n    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n'),
]
WRONG['ex1_answer'] += [
    W('f', "caches results keyed by (shape, sum of values): [3, 4] then [4, 3] returns the first call's rows",
      '_bl6_sumc = {}\n\ndef unit_rows(x):\n    def host(v):\n        a = np.asarray(v)\n        k = (a.shape, float(a.sum()))\n        if k not in _bl6_sumc:\n            _bl6_sumc[k] = (a / np.linalg.norm(a, axis=-1, keepdims=True)).astype(a.dtype)\n        return _bl6_sumc[k]\n    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n'),
]
WRONG['ex3_answer'] += [
    W('f', "caches the C function's results keyed by id() of the array received: stale when CPython reuses the id",
      '_bl6_moments = kernels.function("pcb_row_moments_f32", argtypes=[f32_buffer, ctypes.c_int64, ctypes.c_int64, f32_buffer, f32_buffer], restype=None)\n_bl6_rm_idc = {}\n\ndef row_moments(x):\n    def host(v):\n        k = (id(v), v.shape)\n        if k not in _bl6_rm_idc:\n            a = np.ascontiguousarray(v, dtype=np.float32)\n            n = a.shape[-1]\n            mean = np.empty(a.shape[:-1], np.float32)\n            var = np.empty(a.shape[:-1], np.float32)\n            _bl6_moments(a, a.size // n, n, mean, var)\n            _bl6_rm_idc[k] = (mean, var)\n        return _bl6_rm_idc[k]\n    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n    return jax.pure_callback(host, (spec, spec), x, vmap_method="expand_dims")\n'),
]


# A sixth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
RIGHT.setdefault('ex3_answer', []).extend([
    R('the host function returns a dict of mean and var, turned into the tuple outside the callback',
      'bl7_f32 = np.ctypeslib.ndpointer(dtype=np.float32, flags="C_CONTIGUOUS")\nbl7_moments = kernels.function("pcb_row_moments_f32",\n                               argtypes=[bl7_f32, ctypes.c_int64, ctypes.c_int64, bl7_f32, bl7_f32], restype=None)\n\ndef row_moments(x):\n    def bl7_host(a):\n        a = np.ascontiguousarray(np.asarray(a), dtype=np.float32)\n        out = {"mean": np.empty(a.shape[:-1], np.float32), "var": np.empty(a.shape[:-1], np.float32)}\n        bl7_moments(a, a.size // a.shape[-1], a.shape[-1], out["mean"], out["var"])\n        return out\n    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n    res = jax.pure_callback(bl7_host, {"mean": spec, "var": spec}, x, vmap_method="expand_dims")\n    return (res["mean"], res["var"])\n'),
])


# A seventh fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex1_answer'] += [
    W('d', 'reshapes the jax.Array before np.asarray: a JAX reshape runs inside the host function',
      'def unit_rows(x):\n    def host(a):\n        flat = np.asarray(a.reshape(-1, a.shape[-1]))\n        out = flat / np.linalg.norm(flat, axis=-1, keepdims=True)\n        return out.reshape(a.shape).astype(np.float32)\n    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n'),
]
WRONG['ex2_answer'] += [
    W('f', "the primal host call stores digamma in a global that the rule's callback returns",
      '_bl8_state = {}\n\ndef _bl8_primal_host(a):\n    a = np.asarray(a)\n    _bl8_state["digamma"] = scipy.special.digamma(a).astype(a.dtype)\n    return scipy.special.gammaln(a).astype(a.dtype)\n\ndef _bl8_h(fn, x):\n    return jax.pure_callback(lambda a: np.asarray(fn(np.asarray(a))).astype(a.dtype),\n                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n\n@jax.custom_jvp\ndef bl8_dig(x):\n    def host(a):\n        a = np.asarray(a)\n        saved = _bl8_state.get("digamma")\n        if saved is not None and saved.shape == a.shape:\n            return saved\n        return scipy.special.digamma(a).astype(a.dtype)\n    return _bl8_h(host, x)\n\n@bl8_dig.defjvp\ndef bl8_dig_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    return bl8_dig(x), _bl8_h(lambda a: scipy.special.polygamma(1, a), x) * x_dot\n\n@jax.custom_jvp\ndef gammaln_cb(x):\n    return jax.pure_callback(_bl8_primal_host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n\n@gammaln_cb.defjvp\ndef gammaln_cb_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    return gammaln_cb(x), bl8_dig(x) * x_dot\n'),
]


# An eighth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex3_answer'] += [
    W('f', 'four threads, but only the last one is joined',
      'import threading\n\n_c_row_moments = kernels.function(\n    "pcb_row_moments_f32",\n    argtypes=[ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p], restype=None)\n\ndef _row_moments_host(x):\n    a = np.ascontiguousarray(x, dtype=np.float32)\n    n = a.shape[-1]\n    rows = a.size // n\n    mean = np.zeros(rows, np.float32)\n    var = np.zeros(rows, np.float32)\n    def part(lo, hi):\n        if hi > lo:\n            _c_row_moments(a.ctypes.data + 4 * lo * n, hi - lo, n, mean.ctypes.data + 4 * lo, var.ctypes.data + 4 * lo)\n    bounds = [(i * rows // 4, (i + 1) * rows // 4) for i in range(4)]\n    threads = [threading.Thread(target=part, args=b) for b in bounds]\n    for t in threads:\n        t.start()\n    threads[-1].join()\n    return mean.reshape(a.shape[:-1]), var.reshape(a.shape[:-1])\n\ndef row_moments(x):\n    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n    return jax.pure_callback(_row_moments_host, (spec, spec), x, vmap_method="expand_dims")\n'),
]


# A ninth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
RIGHT.setdefault('ex2_answer', []).extend([
    R('digamma through scipy.special.polygamma(0, x), which calls SciPy digamma itself',
      'def _bl10_host(name, order=None):\n    def host(a):\n        a = np.asarray(a)\n        fn = getattr(scipy.special, name)\n        out = fn(a) if order is None else fn(order, a)\n        return np.asarray(out).astype(a.dtype)\n    return host\n\ndef _bl10_cb(name, x, order=None, method="expand_dims"):\n    return jax.pure_callback(_bl10_host(name, order), jax.ShapeDtypeStruct(x.shape, x.dtype), x,\n                             vmap_method=method)\n\n@jax.custom_jvp\ndef _bl10_digamma(x):\n    return _bl10_cb("polygamma", x, 0)\n\n@_bl10_digamma.defjvp\ndef _bl10_digamma_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    return _bl10_digamma(x), _bl10_cb("polygamma", x, 1) * x_dot\n\n@jax.custom_jvp\ndef gammaln_cb(x):\n    return _bl10_cb("gammaln", x)\n\n@gammaln_cb.defjvp\ndef gammaln_cb_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    return gammaln_cb(x), _bl10_digamma(x) * x_dot\n'),
])


# A ninth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
RIGHT.setdefault('ex2_answer', []).extend([
    R('digamma rule returns the bare digamma callback as its primal output (the text asks it only of gammaln_cb rule; second derivatives hold)',
      'def _bl10_host(name, order=None):\n    def host(a):\n        a = np.asarray(a)\n        fn = getattr(scipy.special, name)\n        out = fn(a) if order is None else fn(order, a)\n        return np.asarray(out).astype(a.dtype)\n    return host\n\ndef _bl10_cb(name, x, order=None, dtype=None):\n    return jax.pure_callback(_bl10_host(name, order), jax.ShapeDtypeStruct(x.shape, dtype or x.dtype), x,\n                             vmap_method="expand_dims")\n\n@jax.custom_jvp\ndef _bl10_digamma(x):\n    return _bl10_cb("digamma", x)\n\n@_bl10_digamma.defjvp\ndef _bl10_digamma_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    return _bl10_cb("digamma", x), _bl10_cb("polygamma", x, 1) * x_dot\n\n@jax.custom_jvp\ndef gammaln_cb(x):\n    return _bl10_cb("gammaln", x)\n\n@gammaln_cb.defjvp\ndef gammaln_cb_jvp(primals, tangents):\n    (x,), (x_dot,) = primals, tangents\n    return gammaln_cb(x), _bl10_digamma(x) * x_dot\n'),
])
