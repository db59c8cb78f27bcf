"""Wrong answers for 10_hijax (see tests/wrong_answers/__init__.py)."""

from wrong_answers import W

APPLIES = {'ex1_answer': 'abcdegm', 'ex2_answer': 'abcdefgm', 'ex3_answer': 'bcegm', 'quiz_answer': 'm'}

WRONG = {
    'ex1_answer': [
        W('m', 'Binds the primitive and saves the right dict, but differentiates x / ||x|| as if ||x|| were a constant: the backward rule drops the projection term -y (y . g).',
          r'''class Normalize(HiPrim):
    def __init__(self, x_aval):
        self.in_avals = (x_aval,)
        self.out_aval = x_aval
        self.params = {}
        super().__init__()
    def expand(self, x):
        return x / jnp.sqrt(jnp.sum(x * x))
    def vjp_fwd(self, nzs_in, x):
        y = self(x)
        return y, {'y': y, 'norm': jnp.sqrt(jnp.sum(x * x))}
    def vjp_bwd_retval(self, res, g):
        return (g / res['norm'],)
def normalize(x):
    return Normalize(jax.typeof(x))(x)
'''),
        W('a', 'uses sum(y) for the dot product y.g: right only for an all-ones cotangent (a sum loss), wrong for a weighted loss',
          r'''class Normalize(HiPrim):
    """x -> x / ||x|| for a vector x."""
    def __init__(self, x_aval):
        self.in_avals = (x_aval,)
        self.out_aval = x_aval
        self.params = {}
        super().__init__()

    def expand(self, x):
        return x / jnp.sqrt(jnp.sum(x * x))

    def vjp_fwd(self, nzs_in, x):
        y = self(x)
        return y, {"y": y, "norm": jnp.sqrt(jnp.sum(x * x))}

    def vjp_bwd_retval(self, res, g):
        y, norm = res["y"], res["norm"]
        return ((g - y * jnp.sum(y)) / norm,)

def normalize(x):
    return Normalize(jax.typeof(x))(x)
'''),
        W('a', 'treats the Jacobian as diagonal, g * (1 - y*sum(y)) / norm: equals the true VJP only when g is all ones',
          r'''class Normalize(HiPrim):
    """x -> x / ||x|| for a vector x."""
    def __init__(self, x_aval):
        self.in_avals = (x_aval,)
        self.out_aval = x_aval
        self.params = {}
        super().__init__()

    def expand(self, x):
        return x / jnp.sqrt(jnp.sum(x * x))

    def vjp_fwd(self, nzs_in, x):
        y = self(x)
        return y, {"y": y, "norm": jnp.sqrt(jnp.sum(x * x))}

    def vjp_bwd_retval(self, res, g):
        y, norm = res["y"], res["norm"]
        return (g * (1.0 - y * jnp.sum(y)) / norm,)

def normalize(x):
    return Normalize(jax.typeof(x))(x)
'''),
        W('b', "norm computed in float32 whatever x's dtype: a bfloat16 input gets a float32 gradient",
          r'''class Normalize(HiPrim):
    """x -> x / ||x|| for a vector x."""
    def __init__(self, x_aval):
        self.in_avals = (x_aval,)
        self.out_aval = x_aval
        self.params = {}
        super().__init__()

    def expand(self, x):
        return x / jnp.sqrt(jnp.sum(x * x))

    def vjp_fwd(self, nzs_in, x):
        y = self(x)
        norm = jnp.sqrt(jnp.sum(x.astype(jnp.float32) ** 2))   # accumulate in float32
        return y, {"y": y, "norm": norm}

    def vjp_bwd_retval(self, res, g):
        y, norm = res["y"], res["norm"]
        return ((g - y * jnp.sum(y * g)) / norm,)

def normalize(x):
    return Normalize(jax.typeof(x))(x)
'''),
        W('c', 'norm recovered as sum(x) / sum(y): nan when the entries of x sum to zero (mixed signs)',
          r'''class Normalize(HiPrim):
    """x -> x / ||x|| for a vector x."""
    def __init__(self, x_aval):
        self.in_avals = (x_aval,)
        self.out_aval = x_aval
        self.params = {}
        super().__init__()

    def expand(self, x):
        return x / jnp.sqrt(jnp.sum(x * x))

    def vjp_fwd(self, nzs_in, x):
        y = self(x)
        return y, {"y": y, "norm": jnp.sum(x) / jnp.sum(y)}   # y = x / norm, so norm = sum(x) / sum(y)

    def vjp_bwd_retval(self, res, g):
        y, norm = res["y"], res["norm"]
        return ((g - y * jnp.sum(y * g)) / norm,)

def normalize(x):
    return Normalize(jax.typeof(x))(x)
'''),
        W('d', "vjp_fwd computes the output with jnp (x / norm) instead of binding self(x): no Normalize equation in the gradient's jaxpr",
          r'''class Normalize(HiPrim):
    """x -> x / ||x|| for a vector x."""
    def __init__(self, x_aval):
        self.in_avals = (x_aval,)
        self.out_aval = x_aval
        self.params = {}
        super().__init__()

    def expand(self, x):
        return x / jnp.sqrt(jnp.sum(x * x))

    def vjp_fwd(self, nzs_in, x):
        norm = jnp.sqrt(jnp.sum(x * x))
        y = x / norm
        return y, {"y": y, "norm": norm}

    def vjp_bwd_retval(self, res, g):
        y, norm = res["y"], res["norm"]
        return ((g - y * jnp.sum(y * g)) / norm,)

def normalize(x):
    return Normalize(jax.typeof(x))(x)
'''),
        W('d', 'backward pass delegated to jax.vjp of the jnp formula on x rebuilt as y * norm, not the rule asked for',
          r'''class Normalize(HiPrim):
    """x -> x / ||x|| for a vector x."""
    def __init__(self, x_aval):
        self.in_avals = (x_aval,)
        self.out_aval = x_aval
        self.params = {}
        super().__init__()

    def expand(self, x):
        return x / jnp.sqrt(jnp.sum(x * x))

    def vjp_fwd(self, nzs_in, x):
        y = self(x)
        return y, {"y": y, "norm": jnp.sqrt(jnp.sum(x * x))}

    def vjp_bwd_retval(self, res, g):
        x = res["y"] * res["norm"]
        _, pullback = jax.vjp(lambda v: v / jnp.sqrt(jnp.sum(v * v)), x)
        return pullback(g)

def normalize(x):
    return Normalize(jax.typeof(x))(x)
'''),
        W('e', 'residuals wrapped in stop_gradient: first derivative right, grad of grad (second order) is zero',
          r'''class Normalize(HiPrim):
    """x -> x / ||x|| for a vector x."""
    def __init__(self, x_aval):
        self.in_avals = (x_aval,)
        self.out_aval = x_aval
        self.params = {}
        super().__init__()

    def expand(self, x):
        return x / jnp.sqrt(jnp.sum(x * x))

    def vjp_fwd(self, nzs_in, x):
        y = self(x)
        norm = jnp.sqrt(jnp.sum(x * x))
        return y, {"y": jax.lax.stop_gradient(y), "norm": jax.lax.stop_gradient(norm)}

    def vjp_bwd_retval(self, res, g):
        y, norm = res["y"], res["norm"]
        return ((g - y * jnp.sum(y * g)) / norm,)

def normalize(x):
    return Normalize(jax.typeof(x))(x)
'''),
        W('e', "float(res['norm']) in the backward rule: eager grad works, jit(grad) and grad of grad raise ConcretizationTypeError",
          r'''class Normalize(HiPrim):
    """x -> x / ||x|| for a vector x."""
    def __init__(self, x_aval):
        self.in_avals = (x_aval,)
        self.out_aval = x_aval
        self.params = {}
        super().__init__()

    def expand(self, x):
        return x / jnp.sqrt(jnp.sum(x * x))

    def vjp_fwd(self, nzs_in, x):
        y = self(x)
        return y, {"y": y, "norm": jnp.sqrt(jnp.sum(x * x))}

    def vjp_bwd_retval(self, res, g):
        y, norm = res["y"], float(res["norm"])
        return ((g - y * jnp.sum(y * g)) / norm,)

def normalize(x):
    return Normalize(jax.typeof(x))(x)
'''),
        W('g', "Jacobian built with jnp.eye(3): right only for length-3 vectors like the chapter's examples",
          r'''class Normalize(HiPrim):
    """x -> x / ||x|| for a vector x."""
    def __init__(self, x_aval):
        self.in_avals = (x_aval,)
        self.out_aval = x_aval
        self.params = {}
        super().__init__()

    def expand(self, x):
        return x / jnp.sqrt(jnp.sum(x * x))

    def vjp_fwd(self, nzs_in, x):
        y = self(x)
        return y, {"y": y, "norm": jnp.sqrt(jnp.sum(x * x))}

    def vjp_bwd_retval(self, res, g):
        y, norm = res["y"], res["norm"]
        jac = (jnp.eye(3) - jnp.outer(y, y)) / norm       # symmetric Jacobian of x / ||x||
        return (jac @ g,)

def normalize(x):
    return Normalize(jax.typeof(x))(x)
'''),
        W('m', "residuals returned as a tuple (y, norm), not the dict with exactly the keys 'y' and 'norm' the task asks for",
          r'''class Normalize(HiPrim):
    """x -> x / ||x|| for a vector x."""
    def __init__(self, x_aval):
        self.in_avals = (x_aval,)
        self.out_aval = x_aval
        self.params = {}
        super().__init__()

    def expand(self, x):
        return x / jnp.sqrt(jnp.sum(x * x))

    def vjp_fwd(self, nzs_in, x):
        y = self(x)
        return y, (y, jnp.sqrt(jnp.sum(x * x)))

    def vjp_bwd_retval(self, res, g):
        y, norm = res
        return ((g - y * jnp.sum(y * g)) / norm,)

def normalize(x):
    return Normalize(jax.typeof(x))(x)
'''),
        W('m', "the 'norm' residual holds the squared norm sum(x*x) instead of ||x|| (bwd takes the sqrt)",
          r'''class Normalize(HiPrim):
    """x -> x / ||x|| for a vector x."""
    def __init__(self, x_aval):
        self.in_avals = (x_aval,)
        self.out_aval = x_aval
        self.params = {}
        super().__init__()

    def expand(self, x):
        return x / jnp.sqrt(jnp.sum(x * x))

    def vjp_fwd(self, nzs_in, x):
        y = self(x)
        return y, {"y": y, "norm": jnp.sum(x * x)}

    def vjp_bwd_retval(self, res, g):
        y, norm = res["y"], jnp.sqrt(res["norm"])
        return ((g - y * jnp.sum(y * g)) / norm,)

def normalize(x):
    return Normalize(jax.typeof(x))(x)
'''),
        W('m', 'vjp_fwd written without the nzs_in flags, vjp_fwd(self, x): every grad raises TypeError',
          r'''class Normalize(HiPrim):
    """x -> x / ||x|| for a vector x."""
    def __init__(self, x_aval):
        self.in_avals = (x_aval,)
        self.out_aval = x_aval
        self.params = {}
        super().__init__()

    def expand(self, x):
        return x / jnp.sqrt(jnp.sum(x * x))

    def vjp_fwd(self, x):
        y = self(x)
        return y, {"y": y, "norm": jnp.sqrt(jnp.sum(x * x))}

    def vjp_bwd_retval(self, res, g):
        y, norm = res["y"], res["norm"]
        return ((g - y * jnp.sum(y * g)) / norm,)

def normalize(x):
    return Normalize(jax.typeof(x))(x)
'''),
    ],
    'ex2_answer': [
        W('m', 'RefAccum path does ref[idx_array] += ...: the pitfall the text warns of, a repeated row keeps only one contribution',
          r'''class WeightedRows(HiPrim):
    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""
    def __init__(self, table_aval, w_aval, rows):
        self.in_avals = (table_aval, w_aval)
        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)
        self.params = dict(rows=tuple(rows))
        super().__init__()

    def expand(self, table, w):
        return w[:, None] * table[jnp.array(self.rows)]

    def vjp_fwd(self, nzs_in, table, w):
        return self(table, w), (table, w)

    def vjp_bwd(self, res, g, table_acc, w_acc):
        table, w = res
        idx = jnp.array(self.rows)
        w_acc.accum(jnp.sum(g * table[idx], axis=1))
        if isinstance(table_acc, NullAccum):
            return
        if isinstance(table_acc, RefAccum):
            table_acc.ref[idx] += w[:, None] * g              # only the touched rows, in place
            return
        dense = jnp.zeros(table_acc.aval.shape, table_acc.aval.dtype)
        table_acc.accum(dense.at[idx].add(w[:, None] * g))

def weighted_rows(table, w, rows):
    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)
'''),
        W('a', 'w_bar = sum(table[rows[j]]) without g: right only for an all-ones cotangent (sum loss)',
          r'''class WeightedRows(HiPrim):
    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""
    def __init__(self, table_aval, w_aval, rows):
        self.in_avals = (table_aval, w_aval)
        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)
        self.params = dict(rows=tuple(rows))
        super().__init__()

    def expand(self, table, w):
        return w[:, None] * table[jnp.array(self.rows)]

    def vjp_fwd(self, nzs_in, table, w):
        return self(table, w), (table, w)

    def vjp_bwd(self, res, g, table_acc, w_acc):
        table, w = res
        picked = table[jnp.array(self.rows)]
        w_acc.accum(jnp.sum(picked, axis=1))                  # d out[j] / d w[j] = table[rows[j]]
        if isinstance(table_acc, NullAccum):
            return
        if isinstance(table_acc, RefAccum):
            for j, i in enumerate(self.rows):
                table_acc.ref[i] += w[j] * g[j]
            return
        dense = jnp.zeros(table_acc.aval.shape, table_acc.aval.dtype)
        table_acc.accum(dense.at[jnp.array(self.rows)].add(w[:, None] * g))

def weighted_rows(table, w, rows):
    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)
'''),
        W('a', 'RefAccum path adds w[j] instead of w[j] * g[j]: the in-place buffer is right only for an all-ones cotangent',
          r'''class WeightedRows(HiPrim):
    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""
    def __init__(self, table_aval, w_aval, rows):
        self.in_avals = (table_aval, w_aval)
        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)
        self.params = dict(rows=tuple(rows))
        super().__init__()

    def expand(self, table, w):
        return w[:, None] * table[jnp.array(self.rows)]

    def vjp_fwd(self, nzs_in, table, w):
        return self(table, w), (table, w)

    def vjp_bwd(self, res, g, table_acc, w_acc):
        table, w = res
        w_acc.accum(jnp.sum(g * table[jnp.array(self.rows)], axis=1))
        if isinstance(table_acc, NullAccum):
            return
        if isinstance(table_acc, RefAccum):
            for j, i in enumerate(self.rows):
                table_acc.ref[i] += w[j]                      # row rows[j] was scaled by w[j]
            return
        dense = jnp.zeros(table_acc.aval.shape, table_acc.aval.dtype)
        table_acc.accum(dense.at[jnp.array(self.rows)].add(w[:, None] * g))

def weighted_rows(table, w, rows):
    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)
'''),
        W('b', 'RefAccum path adds into row j instead of rows[j]: ignores rows there, right only for rows == (0, 1, ..., n-1)',
          r'''class WeightedRows(HiPrim):
    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""
    def __init__(self, table_aval, w_aval, rows):
        self.in_avals = (table_aval, w_aval)
        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)
        self.params = dict(rows=tuple(rows))
        super().__init__()

    def expand(self, table, w):
        return w[:, None] * table[jnp.array(self.rows)]

    def vjp_fwd(self, nzs_in, table, w):
        return self(table, w), (table, w)

    def vjp_bwd(self, res, g, table_acc, w_acc):
        table, w = res
        w_acc.accum(jnp.sum(g * table[jnp.array(self.rows)], axis=1))
        if isinstance(table_acc, NullAccum):
            return
        if isinstance(table_acc, RefAccum):
            for j in range(len(self.rows)):
                table_acc.ref[j] += w[j] * g[j]
            return
        dense = jnp.zeros(table_acc.aval.shape, table_acc.aval.dtype)
        table_acc.accum(dense.at[jnp.array(self.rows)].add(w[:, None] * g))

def weighted_rows(table, w, rows):
    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)
'''),
        W('c', 'ValAccum path uses .at[rows].set: a repeated row keeps only one contribution',
          r'''class WeightedRows(HiPrim):
    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""
    def __init__(self, table_aval, w_aval, rows):
        self.in_avals = (table_aval, w_aval)
        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)
        self.params = dict(rows=tuple(rows))
        super().__init__()

    def expand(self, table, w):
        return w[:, None] * table[jnp.array(self.rows)]

    def vjp_fwd(self, nzs_in, table, w):
        return self(table, w), (table, w)

    def vjp_bwd(self, res, g, table_acc, w_acc):
        table, w = res
        w_acc.accum(jnp.sum(g * table[jnp.array(self.rows)], axis=1))
        if isinstance(table_acc, NullAccum):
            return
        if isinstance(table_acc, RefAccum):
            for j, i in enumerate(self.rows):
                table_acc.ref[i] += w[j] * g[j]
            return
        dense = jnp.zeros(table_acc.aval.shape, table_acc.aval.dtype)
        table_acc.accum(dense.at[jnp.array(self.rows)].set(w[:, None] * g))

def weighted_rows(table, w, rows):
    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)
'''),
        W('g', 'dense cotangent sized like g (len(rows) rows) instead of the table: right only when the table has exactly len(rows) rows',
          r'''class WeightedRows(HiPrim):
    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""
    def __init__(self, table_aval, w_aval, rows):
        self.in_avals = (table_aval, w_aval)
        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)
        self.params = dict(rows=tuple(rows))
        super().__init__()

    def expand(self, table, w):
        return w[:, None] * table[jnp.array(self.rows)]

    def vjp_fwd(self, nzs_in, table, w):
        return self(table, w), (table, w)

    def vjp_bwd(self, res, g, table_acc, w_acc):
        table, w = res
        w_acc.accum(jnp.sum(g * table[jnp.array(self.rows)], axis=1))
        if isinstance(table_acc, NullAccum):
            return
        if isinstance(table_acc, RefAccum):
            for j, i in enumerate(self.rows):
                table_acc.ref[i] += w[j] * g[j]
            return
        dense = jnp.zeros_like(g)
        table_acc.accum(dense.at[jnp.array(self.rows)].add(w[:, None] * g))

def weighted_rows(table, w, rows):
    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)
'''),
        W('d', 'RefAccum path builds a dense table-shaped array and adds it into ref[...]: not row by row in place',
          r'''class WeightedRows(HiPrim):
    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""
    def __init__(self, table_aval, w_aval, rows):
        self.in_avals = (table_aval, w_aval)
        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)
        self.params = dict(rows=tuple(rows))
        super().__init__()

    def expand(self, table, w):
        return w[:, None] * table[jnp.array(self.rows)]

    def vjp_fwd(self, nzs_in, table, w):
        return self(table, w), (table, w)

    def vjp_bwd(self, res, g, table_acc, w_acc):
        table, w = res
        w_acc.accum(jnp.sum(g * table[jnp.array(self.rows)], axis=1))
        if isinstance(table_acc, NullAccum):
            return
        dense = jnp.zeros(table_acc.aval.shape, table_acc.aval.dtype)
        dense = dense.at[jnp.array(self.rows)].add(w[:, None] * g)
        if isinstance(table_acc, RefAccum):
            table_acc.ref[...] += dense                       # in place, into the caller's buffer
            return
        table_acc.accum(dense)

def weighted_rows(table, w, rows):
    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)
'''),
        W('d', 'calls table_acc.accum(dense) for every accumulator: a RefAccum gets a dense table-shaped update, no row-wise writes',
          r'''class WeightedRows(HiPrim):
    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""
    def __init__(self, table_aval, w_aval, rows):
        self.in_avals = (table_aval, w_aval)
        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)
        self.params = dict(rows=tuple(rows))
        super().__init__()

    def expand(self, table, w):
        return w[:, None] * table[jnp.array(self.rows)]

    def vjp_fwd(self, nzs_in, table, w):
        return self(table, w), (table, w)

    def vjp_bwd(self, res, g, table_acc, w_acc):
        table, w = res
        w_acc.accum(jnp.sum(g * table[jnp.array(self.rows)], axis=1))
        dense = jnp.zeros(table_acc.aval.shape, table_acc.aval.dtype)
        table_acc.accum(dense.at[jnp.array(self.rows)].add(w[:, None] * g))   # accum handles Val, Ref and Null

def weighted_rows(table, w, rows):
    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)
'''),
        W('d', 'ValAccum path scatters with NumPy np.add.at: eager grad right, jit(grad) raises TracerArrayConversionError',
          r'''class WeightedRows(HiPrim):
    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""
    def __init__(self, table_aval, w_aval, rows):
        self.in_avals = (table_aval, w_aval)
        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)
        self.params = dict(rows=tuple(rows))
        super().__init__()

    def expand(self, table, w):
        return w[:, None] * table[jnp.array(self.rows)]

    def vjp_fwd(self, nzs_in, table, w):
        return self(table, w), (table, w)

    def vjp_bwd(self, res, g, table_acc, w_acc):
        table, w = res
        w_acc.accum(jnp.sum(g * table[jnp.array(self.rows)], axis=1))
        if isinstance(table_acc, NullAccum):
            return
        if isinstance(table_acc, RefAccum):
            for j, i in enumerate(self.rows):
                table_acc.ref[i] += w[j] * g[j]
            return
        dense = np.zeros(table_acc.aval.shape, table_acc.aval.dtype)
        np.add.at(dense, np.array(self.rows), np.asarray(w)[:, None] * np.asarray(g))   # add.at keeps repeats
        table_acc.accum(jnp.asarray(dense))

def weighted_rows(table, w, rows):
    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)
'''),
        W('e', 'no NullAccum branch (anything not a ValAccum is treated as a RefAccum): grad w.r.t. w only, or DontWant, raises AttributeError',
          r'''class WeightedRows(HiPrim):
    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""
    def __init__(self, table_aval, w_aval, rows):
        self.in_avals = (table_aval, w_aval)
        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)
        self.params = dict(rows=tuple(rows))
        super().__init__()

    def expand(self, table, w):
        return w[:, None] * table[jnp.array(self.rows)]

    def vjp_fwd(self, nzs_in, table, w):
        return self(table, w), (table, w)

    def vjp_bwd(self, res, g, table_acc, w_acc):
        table, w = res
        w_acc.accum(jnp.sum(g * table[jnp.array(self.rows)], axis=1))
        if isinstance(table_acc, ValAccum):
            dense = jnp.zeros(table_acc.aval.shape, table_acc.aval.dtype)
            table_acc.accum(dense.at[jnp.array(self.rows)].add(w[:, None] * g))
        else:
            for j, i in enumerate(self.rows):
                table_acc.ref[i] += w[j] * g[j]

def weighted_rows(table, w, rows):
    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)
'''),
        W('f', 'RefAccum path assigns ref[i] = row total instead of adding: overwrites what a reused buffer or another primitive already put there',
          r'''class WeightedRows(HiPrim):
    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""
    def __init__(self, table_aval, w_aval, rows):
        self.in_avals = (table_aval, w_aval)
        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)
        self.params = dict(rows=tuple(rows))
        super().__init__()

    def expand(self, table, w):
        return w[:, None] * table[jnp.array(self.rows)]

    def vjp_fwd(self, nzs_in, table, w):
        return self(table, w), (table, w)

    def vjp_bwd(self, res, g, table_acc, w_acc):
        table, w = res
        w_acc.accum(jnp.sum(g * table[jnp.array(self.rows)], axis=1))
        if isinstance(table_acc, NullAccum):
            return
        if isinstance(table_acc, RefAccum):
            for i in sorted(set(self.rows)):                  # one write per distinct row
                table_acc.ref[i] = sum(w[j] * g[j] for j, r in enumerate(self.rows) if r == i)
            return
        dense = jnp.zeros(table_acc.aval.shape, table_acc.aval.dtype)
        table_acc.accum(dense.at[jnp.array(self.rows)].add(w[:, None] * g))

def weighted_rows(table, w, rows):
    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)
'''),
        W('f', "row index array cached in a global dict keyed by the table's shape: a later call with other rows on a same-shaped table uses stale rows",
          r'''_ROW_INDEX = {}

class WeightedRows(HiPrim):
    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""
    def __init__(self, table_aval, w_aval, rows):
        self.in_avals = (table_aval, w_aval)
        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)
        self.params = dict(rows=tuple(rows))
        super().__init__()

    def expand(self, table, w):
        return w[:, None] * table[jnp.array(self.rows)]

    def vjp_fwd(self, nzs_in, table, w):
        return self(table, w), (table, w)

    def vjp_bwd(self, res, g, table_acc, w_acc):
        table, w = res
        idx = _ROW_INDEX.setdefault(table.shape, jnp.array(self.rows))   # build the index array once
        w_acc.accum(jnp.sum(g * table[idx], axis=1))
        if isinstance(table_acc, NullAccum):
            return
        if isinstance(table_acc, RefAccum):
            for j, i in enumerate(self.rows):
                table_acc.ref[i] += w[j] * g[j]
            return
        dense = jnp.zeros(table_acc.aval.shape, table_acc.aval.dtype)
        table_acc.accum(dense.at[idx].add(w[:, None] * g))

def weighted_rows(table, w, rows):
    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)
'''),
        W('m', 'returns (table_bar, w_bar) as vjp_bwd_retval would instead of accumulating: TypeError, vjp_bwd must return None or a dict',
          r'''class WeightedRows(HiPrim):
    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""
    def __init__(self, table_aval, w_aval, rows):
        self.in_avals = (table_aval, w_aval)
        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)
        self.params = dict(rows=tuple(rows))
        super().__init__()

    def expand(self, table, w):
        return w[:, None] * table[jnp.array(self.rows)]

    def vjp_fwd(self, nzs_in, table, w):
        return self(table, w), (table, w)

    def vjp_bwd(self, res, g, table_acc, w_acc):
        table, w = res
        w_bar = jnp.sum(g * table[jnp.array(self.rows)], axis=1)
        table_bar = jnp.zeros_like(table).at[jnp.array(self.rows)].add(w[:, None] * g)
        return (table_bar, w_bar)

def weighted_rows(table, w, rows):
    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)
'''),
    ],
    'ex3_answer': [
        W('m', "copies LogCoshB's 'keep the batch axis where it is' and returns the input's batch axis although the result has it at 0",
          r'''class Outer(HiPrim):
    """outer(u, v) = u[:, None] * v[None, :] for two vectors."""
    def __init__(self, u_aval, v_aval):
        self.in_avals = (u_aval, v_aval)
        self.out_aval = ShapedArray(u_aval.shape + v_aval.shape, u_aval.dtype)
        self.params = {}
        super().__init__()

    def expand(self, u, v):
        return u[:, None] * v[None, :]

    def vjp_fwd(self, nzs_in, u, v):
        return self(u, v), (u, v)

    def vjp_bwd_retval(self, res, g):
        u, v = res
        return (g @ v, u @ g)

    def batch(self, axis_data, args, dims):
        u, v = bdims_at_front(axis_data, args, dims)
        d = dims[0] if dims[0] is not None else dims[1]
        return jnp.einsum("bi,bj->bij", u, v), d         # same batch axis as the input

def outer(u, v):
    return Outer(jax.typeof(u), jax.typeof(v))(u, v)
'''),
        W('m', 'Lines the batch axes up correctly, then calls jnp.outer on the (batch, n) arrays, which flattens its inputs: a (15, 20) result instead of (5, 3, 4).',
          r'''class Outer(HiPrim):
    def __init__(self, u_aval, v_aval):
        self.in_avals = (u_aval, v_aval)
        self.out_aval = ShapedArray(u_aval.shape + v_aval.shape, u_aval.dtype)
        self.params = {}
        super().__init__()
    def expand(self, u, v):
        return u[:, None] * v[None, :]
    def vjp_fwd(self, nzs_in, u, v):
        return self(u, v), (u, v)
    def vjp_bwd_retval(self, res, g):
        u, v = res
        return (g @ v, u @ g)
    def batch(self, axis_data, args, dims):
        u, v = bdims_at_front(axis_data, args, dims)
        return jnp.outer(u, v), 0
def outer(u, v):
    return Outer(jax.typeof(u), jax.typeof(v))(u, v)
'''),
        W('c', 'assumes a batched argument has its batch axis at 0 (no moveaxis): fails, or is silently wrong for square shapes, with in_axes=1',
          r'''class Outer(HiPrim):
    """outer(u, v) = u[:, None] * v[None, :] for two vectors."""
    def __init__(self, u_aval, v_aval):
        self.in_avals = (u_aval, v_aval)
        self.out_aval = ShapedArray(u_aval.shape + v_aval.shape, u_aval.dtype)
        self.params = {}
        super().__init__()

    def expand(self, u, v):
        return u[:, None] * v[None, :]

    def vjp_fwd(self, nzs_in, u, v):
        return self(u, v), (u, v)

    def vjp_bwd_retval(self, res, g):
        u, v = res
        return (g @ v, u @ g)

    def batch(self, axis_data, args, dims):
        u, v = args
        du, dv = dims
        if du is None:
            u = jnp.broadcast_to(u, (axis_data.size,) + u.shape)
        if dv is None:
            v = jnp.broadcast_to(v, (axis_data.size,) + v.shape)
        return u[:, :, None] * v[:, None, :], 0

def outer(u, v):
    return Outer(jax.typeof(u), jax.typeof(v))(u, v)
'''),
        W('c', "broadcasts the unbatched vector to the other argument's batched shape: works only when len(u) == len(v)",
          r'''class Outer(HiPrim):
    """outer(u, v) = u[:, None] * v[None, :] for two vectors."""
    def __init__(self, u_aval, v_aval):
        self.in_avals = (u_aval, v_aval)
        self.out_aval = ShapedArray(u_aval.shape + v_aval.shape, u_aval.dtype)
        self.params = {}
        super().__init__()

    def expand(self, u, v):
        return u[:, None] * v[None, :]

    def vjp_fwd(self, nzs_in, u, v):
        return self(u, v), (u, v)

    def vjp_bwd_retval(self, res, g):
        u, v = res
        return (g @ v, u @ g)

    def batch(self, axis_data, args, dims):
        u, v = args
        du, dv = dims
        if du is not None:
            u = jnp.moveaxis(u, du, 0)
        if dv is not None:
            v = jnp.moveaxis(v, dv, 0)
        if du is None:
            u = jnp.broadcast_to(u, v.shape)          # give u the batched shape of v
        if dv is None:
            v = jnp.broadcast_to(v, u.shape)
        return jnp.einsum("bi,bj->bij", u, v), 0

def outer(u, v):
    return Outer(jax.typeof(u), jax.typeof(v))(u, v)
'''),
        W('b', 'uses one batch axis (the first non-None dim) for both arguments: wrong when u and v are batched along different axes',
          r'''class Outer(HiPrim):
    """outer(u, v) = u[:, None] * v[None, :] for two vectors."""
    def __init__(self, u_aval, v_aval):
        self.in_avals = (u_aval, v_aval)
        self.out_aval = ShapedArray(u_aval.shape + v_aval.shape, u_aval.dtype)
        self.params = {}
        super().__init__()

    def expand(self, u, v):
        return u[:, None] * v[None, :]

    def vjp_fwd(self, nzs_in, u, v):
        return self(u, v), (u, v)

    def vjp_bwd_retval(self, res, g):
        u, v = res
        return (g @ v, u @ g)

    def batch(self, axis_data, args, dims):
        d = dims[0] if dims[0] is not None else dims[1]   # the batch axis
        u, v = args
        u = jnp.moveaxis(u, d, 0) if dims[0] is not None else jnp.broadcast_to(u, (axis_data.size,) + u.shape)
        v = jnp.moveaxis(v, d, 0) if dims[1] is not None else jnp.broadcast_to(v, (axis_data.size,) + v.shape)
        return jnp.einsum("bi,bj->bij", u, v), 0

def outer(u, v):
    return Outer(jax.typeof(u), jax.typeof(v))(u, v)
'''),
        W('e', 'np.einsum in the rule: eager vmap right, jit(vmap), vmap(vmap) and grad of vmap raise TracerArrayConversionError',
          r'''class Outer(HiPrim):
    """outer(u, v) = u[:, None] * v[None, :] for two vectors."""
    def __init__(self, u_aval, v_aval):
        self.in_avals = (u_aval, v_aval)
        self.out_aval = ShapedArray(u_aval.shape + v_aval.shape, u_aval.dtype)
        self.params = {}
        super().__init__()

    def expand(self, u, v):
        return u[:, None] * v[None, :]

    def vjp_fwd(self, nzs_in, u, v):
        return self(u, v), (u, v)

    def vjp_bwd_retval(self, res, g):
        u, v = res
        return (g @ v, u @ g)

    def batch(self, axis_data, args, dims):
        u, v = bdims_at_front(axis_data, args, dims)     # both (batch, n)
        return np.einsum("bi,bj->bij", u, v), 0

def outer(u, v):
    return Outer(jax.typeof(u), jax.typeof(v))(u, v)
'''),
        W('g', "einsum spec looked up for the chapter's example dims only ((0,0),(0,None),(None,0),(None,1),(1,0)): KeyError for (1,1), (0,1), (1,None)",
          r'''class Outer(HiPrim):
    """outer(u, v) = u[:, None] * v[None, :] for two vectors."""
    def __init__(self, u_aval, v_aval):
        self.in_avals = (u_aval, v_aval)
        self.out_aval = ShapedArray(u_aval.shape + v_aval.shape, u_aval.dtype)
        self.params = {}
        super().__init__()

    def expand(self, u, v):
        return u[:, None] * v[None, :]

    def vjp_fwd(self, nzs_in, u, v):
        return self(u, v), (u, v)

    def vjp_bwd_retval(self, res, g):
        u, v = res
        return (g @ v, u @ g)

    def batch(self, axis_data, args, dims):
        u, v = args
        spec = {(0, 0): "bi,bj->bij", (0, None): "bi,j->bij", (None, 0): "i,bj->bij",
                (None, 1): "i,jb->bij", (1, 0): "ib,bj->bij"}[tuple(dims)]
        return jnp.einsum(spec, u, v), 0

def outer(u, v):
    return Outer(jax.typeof(u), jax.typeof(v))(u, v)
'''),
        W('m', 're-binds Outer on the batched 2-D arguments like the elementwise LogCoshB: expand of 2-D inputs is not a batched outer product',
          r'''class Outer(HiPrim):
    """outer(u, v) = u[:, None] * v[None, :] for two vectors."""
    def __init__(self, u_aval, v_aval):
        self.in_avals = (u_aval, v_aval)
        self.out_aval = ShapedArray(u_aval.shape + v_aval.shape, u_aval.dtype)
        self.params = {}
        super().__init__()

    def expand(self, u, v):
        return u[:, None] * v[None, :]

    def vjp_fwd(self, nzs_in, u, v):
        return self(u, v), (u, v)

    def vjp_bwd_retval(self, res, g):
        u, v = res
        return (g @ v, u @ g)

    def batch(self, axis_data, args, dims):
        u, v = bdims_at_front(axis_data, args, dims)
        return Outer(jax.typeof(u), jax.typeof(v))(u, v), 0   # same primitive, batched types

def outer(u, v):
    return Outer(jax.typeof(u), jax.typeof(v))(u, v)
'''),
        W('m', 'defines batch_dim_rule instead of batch, as some write-ups describe: vmap raises NotImplementedError',
          r'''class Outer(HiPrim):
    """outer(u, v) = u[:, None] * v[None, :] for two vectors."""
    def __init__(self, u_aval, v_aval):
        self.in_avals = (u_aval, v_aval)
        self.out_aval = ShapedArray(u_aval.shape + v_aval.shape, u_aval.dtype)
        self.params = {}
        super().__init__()

    def expand(self, u, v):
        return u[:, None] * v[None, :]

    def vjp_fwd(self, nzs_in, u, v):
        return self(u, v), (u, v)

    def vjp_bwd_retval(self, res, g):
        u, v = res
        return (g @ v, u @ g)

    def batch_dim_rule(self, axis_data, in_dims):
        return 0

def outer(u, v):
    return Outer(jax.typeof(u), jax.typeof(v))(u, v)
'''),
        W('c', 'only-v-batched case builds an (n, B, m) result but claims batch axis 0: wrong for in_axes=(None, d)',
          r'''class Outer(HiPrim):
    """outer(u, v) = u[:, None] * v[None, :] for two vectors."""
    def __init__(self, u_aval, v_aval):
        self.in_avals = (u_aval, v_aval)
        self.out_aval = ShapedArray(u_aval.shape + v_aval.shape, u_aval.dtype)
        self.params = {}
        super().__init__()

    def expand(self, u, v):
        return u[:, None] * v[None, :]

    def vjp_fwd(self, nzs_in, u, v):
        return self(u, v), (u, v)

    def vjp_bwd_retval(self, res, g):
        u, v = res
        return (g @ v, u @ g)

    def batch(self, axis_data, args, dims):
        u, v = args
        du, dv = dims
        if du is not None and dv is not None:
            return jnp.einsum("bi,bj->bij", jnp.moveaxis(u, du, 0), jnp.moveaxis(v, dv, 0)), 0
        if dv is None:                                   # only u batched
            return jnp.moveaxis(u, du, 0)[:, :, None] * v[None, None, :], 0
        return u[:, None, None] * jnp.moveaxis(v, dv, 0)[None, :, :], 0     # only v batched

def outer(u, v):
    return Outer(jax.typeof(u), jax.typeof(v))(u, v)
'''),
    ],
    'quiz_answer': [
        W('m', 'q1=a: expects reverse mode to be derived from the jvp rule as for custom_jvp (section 4, third cause)',
          r'''q1 = "a"
q2 = "c"
q3 = "b"
q4 = "a"
q5 = "b"
'''),
        W('m', 'q3=a, q5=a: trusts published write-ups (earlier log entry wins, a batch_dim_rule hook) over JAX 0.12.0.1 (sections 9, 11)',
          r'''q1 = "b"
q2 = "c"
q3 = "a"
q4 = "a"
q5 = "a"
'''),
        W('m', 'q4=b: confuses the underlying call_hi_primitive/_prim with how the jaxpr prints a hijax equation (sections 2, 13)',
          r'''q1 = "b"
q2 = "c"
q3 = "b"
q4 = "b"
q5 = "b"
'''),
        W('m', "q2=b: confuses vjp_bwd's accumulators with vjp_bwd_retval's None for an unwanted cotangent (section 5)",
          r'''q1 = "b"
q2 = "b"
q3 = "b"
q4 = "a"
q5 = "b"
'''),
        W('m', 'q1=c, q2=a, q5=c: believes a HiPrim falls back to differentiating/batching expand and hands a ValAccum of zeros',
          r'''q1 = "c"
q2 = "a"
q3 = "b"
q4 = "a"
q5 = "c"
'''),
        W('m', 'q1=a, q2=b, q4=b: expects reverse mode derived from jvp, None for an unwanted input in vjp_bwd, and the generic call_hi_primitive name in a jaxpr',
          r'''q1 = "a"
q2 = "b"
q3 = "b"
q4 = "b"
q5 = "b"
'''),
    ],
}
