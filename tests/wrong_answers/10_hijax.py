"""Wrong answers for 10_hijax (see tests/wrong_answers/__init__.py)."""

from wrong_answers import R, W

APPLIES = {'ex1_answer': 'abcdfgm', 'ex2_answer': 'abcdefgm', 'ex3_answer': 'bcdegm', 'ex4_answer': 'abcdegm', 'ex5_answer': 'abcdfgm',
           'quiz_answer': 'm'}

WRONG = {
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
        W('a', "w's cotangent as sum(table row) * mean(g row): right for uniform g (.sum()), wrong for a weighted cotangent",
          'class WeightedRows(HiPrim):\n'
          '    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""\n'
          '    def __init__(self, table_aval, w_aval, rows):\n'
          '        self.in_avals = (table_aval, w_aval)\n'
          '        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)\n'
          '        self.params = dict(rows=tuple(rows))\n'
          '        super().__init__()\n'
          '\n'
          '    def expand(self, table, w):\n'
          '        return w[:, None] * table[jnp.array(self.rows)]\n'
          '\n'
          '    def vjp_fwd(self, nzs_in, table, w):\n'
          '        return self(table, w), (table, w)\n'
          '\n'
          '    def vjp_bwd(self, res, g, table_acc, w_acc):\n'
          '        table, w = res\n'
          '        idx = jnp.array(self.rows)\n'
          '        w_acc.accum(jnp.sum(table[idx], axis=1) * jnp.sum(g, axis=1) / g.shape[1])   # d out[j] / d w[j] = table[rows[j]]\n'
          '        if isinstance(table_acc, NullAccum):\n'
          '            return\n'
          '        if isinstance(table_acc, RefAccum):\n'
          '            for j, i in enumerate(self.rows):\n'
          '                table_acc.ref[i] += w[j] * g[j]\n'
          '            return\n'
          '        dense = jnp.zeros(table_acc.aval.shape, table_acc.aval.dtype)\n'
          '        table_acc.accum(dense.at[idx].add(w[:, None] * g))\n'
          '\n'
          'def weighted_rows(table, w, rows):\n'
          '    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)\n'),
        W('b', 'anything not a ValAccum treated as a RefAccum: NullAccum has no ref, so grad w.r.t. w alone fails',
          'class WeightedRows(HiPrim):\n'
          '    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""\n'
          '    def __init__(self, table_aval, w_aval, rows):\n'
          '        self.in_avals = (table_aval, w_aval)\n'
          '        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)\n'
          '        self.params = dict(rows=tuple(rows))\n'
          '        super().__init__()\n'
          '\n'
          '    def expand(self, table, w):\n'
          '        return w[:, None] * table[jnp.array(self.rows)]\n'
          '\n'
          '    def vjp_fwd(self, nzs_in, table, w):\n'
          '        return self(table, w), (table, w)\n'
          '\n'
          '    def vjp_bwd(self, res, g, table_acc, w_acc):\n'
          '        table, w = res\n'
          '        idx = jnp.array(self.rows)\n'
          '        w_acc.accum(jnp.sum(g * table[idx], axis=1))\n'
          '        if isinstance(table_acc, ValAccum):\n'
          '            dense = jnp.zeros(table_acc.aval.shape, table_acc.aval.dtype)\n'
          '            table_acc.accum(dense.at[idx].add(w[:, None] * g))\n'
          '            return\n'
          '        for j, i in enumerate(self.rows):                    # otherwise the caller gave us a buffer\n'
          '            table_acc.ref[i] += w[j] * g[j]\n'
          '\n'
          'def weighted_rows(table, w, rows):\n'
          '    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)\n'),
        W('c', 'ValAccum path scatters with .at[rows].set: right for distinct rows, keeps only one contribution for repeated rows',
          'class WeightedRows(HiPrim):\n'
          '    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""\n'
          '    def __init__(self, table_aval, w_aval, rows):\n'
          '        self.in_avals = (table_aval, w_aval)\n'
          '        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)\n'
          '        self.params = dict(rows=tuple(rows))\n'
          '        super().__init__()\n'
          '\n'
          '    def expand(self, table, w):\n'
          '        return w[:, None] * table[jnp.array(self.rows)]\n'
          '\n'
          '    def vjp_fwd(self, nzs_in, table, w):\n'
          '        return self(table, w), (table, w)\n'
          '\n'
          '    def vjp_bwd(self, res, g, table_acc, w_acc):\n'
          '        table, w = res\n'
          '        idx = jnp.array(self.rows)\n'
          '        w_acc.accum(jnp.sum(g * table[idx], axis=1))\n'
          '        if isinstance(table_acc, NullAccum):\n'
          '            return\n'
          '        if isinstance(table_acc, RefAccum):\n'
          '            for j, i in enumerate(self.rows):\n'
          '                table_acc.ref[i] += w[j] * g[j]\n'
          '            return\n'
          '        dense = jnp.zeros(table_acc.aval.shape, table_acc.aval.dtype)\n'
          "        table_acc.accum(dense.at[idx].set(w[:, None] * g))   # scatter each row's contribution into place\n"
          '\n'
          'def weighted_rows(table, w, rows):\n'
          '    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)\n'),
        W('d', 'RefAccum path builds a dense table-shaped array and adds it to ref[...]: values right, not in place row by row',
          'class WeightedRows(HiPrim):\n'
          '    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""\n'
          '    def __init__(self, table_aval, w_aval, rows):\n'
          '        self.in_avals = (table_aval, w_aval)\n'
          '        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)\n'
          '        self.params = dict(rows=tuple(rows))\n'
          '        super().__init__()\n'
          '\n'
          '    def expand(self, table, w):\n'
          '        return w[:, None] * table[jnp.array(self.rows)]\n'
          '\n'
          '    def vjp_fwd(self, nzs_in, table, w):\n'
          '        return self(table, w), (table, w)\n'
          '\n'
          '    def vjp_bwd(self, res, g, table_acc, w_acc):\n'
          '        table, w = res\n'
          '        idx = jnp.array(self.rows)\n'
          '        w_acc.accum(jnp.sum(g * table[idx], axis=1))\n'
          '        if isinstance(table_acc, NullAccum):\n'
          '            return\n'
          '        dense = jnp.zeros(table_acc.aval.shape, table_acc.aval.dtype).at[idx].add(w[:, None] * g)\n'
          '        if isinstance(table_acc, RefAccum):\n'
          "            table_acc.ref[...] += dense                      # add into the caller's buffer, in place\n"
          '            return\n'
          '        table_acc.accum(dense)\n'
          '\n'
          'def weighted_rows(table, w, rows):\n'
          '    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)\n'),
        W('f', "caches the index array in a class dict keyed by len(rows): a later call with other rows of the same length reuses the first call's rows",
          'class WeightedRows(HiPrim):\n'
          '    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""\n'
          '    def __init__(self, table_aval, w_aval, rows):\n'
          '        self.in_avals = (table_aval, w_aval)\n'
          '        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)\n'
          '        self.params = dict(rows=tuple(rows))\n'
          '        super().__init__()\n'
          '\n'
          '    def expand(self, table, w):\n'
          '        return w[:, None] * table[jnp.array(self.rows)]\n'
          '\n'
          '    def vjp_fwd(self, nzs_in, table, w):\n'
          '        return self(table, w), (table, w)\n'
          '\n'
          '    _index_cache = {}                                        # index arrays, built once per number of rows\n'
          '\n'
          '    def vjp_bwd(self, res, g, table_acc, w_acc):\n'
          '        table, w = res\n'
          '        idx = WeightedRows._index_cache.setdefault(len(self.rows), np.array(self.rows))\n'
          '        w_acc.accum(jnp.sum(g * table[idx], axis=1))\n'
          '        if isinstance(table_acc, NullAccum):\n'
          '            return\n'
          '        if isinstance(table_acc, RefAccum):\n'
          '            for j, i in enumerate(idx.tolist()):\n'
          '                table_acc.ref[i] += w[j] * g[j]\n'
          '            return\n'
          '        dense = jnp.zeros(table_acc.aval.shape, table_acc.aval.dtype)\n'
          '        table_acc.accum(dense.at[idx].add(w[:, None] * g))\n'
          '\n'
          'def weighted_rows(table, w, rows):\n'
          '    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)\n'),
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
    'ex4_answer': [
        W('m', 'transposes a running sum into the same running sum (reverse unchanged): the transpose of summing forwards is summing backwards',
          r'''class ScaledCumsum(HiPrim):
    """scale * the running sum of x along a static axis (from the end when reverse is True)."""
    def __init__(self, x_aval, axis, scale, reverse):
        self.in_avals = (x_aval,)
        self.out_aval = x_aval
        self.params = dict(axis=axis, scale=scale, reverse=reverse)
        super().__init__()

    def expand(self, x):
        return self.scale * jax.lax.cumsum(x, self.axis, reverse=self.reverse)

    def batch(self, axis_data, args, dims):
        (x,), (d,) = args, dims
        if d is None:
            return self(x), None
        x = jnp.moveaxis(x, d, 0)                        # the batch axis first: axis moves up by one
        return ScaledCumsum(jax.typeof(x), self.axis + 1, self.scale, self.reverse)(x), 0

    lin, linearized = linearize_from_jvp
    vjp_fwd, vjp_bwd_retval = vjp_from_lin

    def jvp(self, primals, tangents):
        (x,), (x_dot,) = primals, tangents
        if isinstance(x_dot, Zero):
            return self(x), Zero(self.out_aval.to_tangent_aval())
        return self(x), self(x_dot)

    def transpose(self, ct, x_acc):
        x_acc.accum(ScaledCumsum(jax.typeof(ct), self.axis, self.scale, self.reverse)(ct))

def scaled_cumsum(x, axis=0, scale=1.0, reverse=False):
    return ScaledCumsum(jax.typeof(x), axis % jnp.ndim(x), scale, reverse)(x)
'''),
        W('b', 'forgets the scale parameter in the transpose: the gradient is scale times too small',
          r'''class ScaledCumsum(HiPrim):
    """scale * the running sum of x along a static axis (from the end when reverse is True)."""
    def __init__(self, x_aval, axis, scale, reverse):
        self.in_avals = (x_aval,)
        self.out_aval = x_aval
        self.params = dict(axis=axis, scale=scale, reverse=reverse)
        super().__init__()

    def expand(self, x):
        return self.scale * jax.lax.cumsum(x, self.axis, reverse=self.reverse)

    def batch(self, axis_data, args, dims):
        (x,), (d,) = args, dims
        if d is None:
            return self(x), None
        x = jnp.moveaxis(x, d, 0)                        # the batch axis first: axis moves up by one
        return ScaledCumsum(jax.typeof(x), self.axis + 1, self.scale, self.reverse)(x), 0

    lin, linearized = linearize_from_jvp
    vjp_fwd, vjp_bwd_retval = vjp_from_lin

    def jvp(self, primals, tangents):
        (x,), (x_dot,) = primals, tangents
        if isinstance(x_dot, Zero):
            return self(x), Zero(self.out_aval.to_tangent_aval())
        return self(x), self(x_dot)

    def transpose(self, ct, x_acc):
        x_acc.accum(ScaledCumsum(jax.typeof(ct), self.axis, 1.0, not self.reverse)(ct))

def scaled_cumsum(x, axis=0, scale=1.0, reverse=False):
    return ScaledCumsum(jax.typeof(x), axis % jnp.ndim(x), scale, reverse)(x)
'''),
        W('m', 'takes the inverse of the scale for the transpose (1 / scale): a transpose keeps the scale, it does not undo it',
          r'''class ScaledCumsum(HiPrim):
    """scale * the running sum of x along a static axis (from the end when reverse is True)."""
    def __init__(self, x_aval, axis, scale, reverse):
        self.in_avals = (x_aval,)
        self.out_aval = x_aval
        self.params = dict(axis=axis, scale=scale, reverse=reverse)
        super().__init__()

    def expand(self, x):
        return self.scale * jax.lax.cumsum(x, self.axis, reverse=self.reverse)

    def batch(self, axis_data, args, dims):
        (x,), (d,) = args, dims
        if d is None:
            return self(x), None
        x = jnp.moveaxis(x, d, 0)                        # the batch axis first: axis moves up by one
        return ScaledCumsum(jax.typeof(x), self.axis + 1, self.scale, self.reverse)(x), 0

    lin, linearized = linearize_from_jvp
    vjp_fwd, vjp_bwd_retval = vjp_from_lin

    def jvp(self, primals, tangents):
        (x,), (x_dot,) = primals, tangents
        if isinstance(x_dot, Zero):
            return self(x), Zero(self.out_aval.to_tangent_aval())
        return self(x), self(x_dot)

    def transpose(self, ct, x_acc):
        x_acc.accum(ScaledCumsum(jax.typeof(ct), self.axis, 1.0 / self.scale, not self.reverse)(ct))

def scaled_cumsum(x, axis=0, scale=1.0, reverse=False):
    return ScaledCumsum(jax.typeof(x), axis % jnp.ndim(x), scale, reverse)(x)
'''),
        W('a', 'applies the transposed map to ones instead of to the cotangent: right only for a plain sum loss',
          r'''class ScaledCumsum(HiPrim):
    """scale * the running sum of x along a static axis (from the end when reverse is True)."""
    def __init__(self, x_aval, axis, scale, reverse):
        self.in_avals = (x_aval,)
        self.out_aval = x_aval
        self.params = dict(axis=axis, scale=scale, reverse=reverse)
        super().__init__()

    def expand(self, x):
        return self.scale * jax.lax.cumsum(x, self.axis, reverse=self.reverse)

    def batch(self, axis_data, args, dims):
        (x,), (d,) = args, dims
        if d is None:
            return self(x), None
        x = jnp.moveaxis(x, d, 0)                        # the batch axis first: axis moves up by one
        return ScaledCumsum(jax.typeof(x), self.axis + 1, self.scale, self.reverse)(x), 0

    lin, linearized = linearize_from_jvp
    vjp_fwd, vjp_bwd_retval = vjp_from_lin

    def jvp(self, primals, tangents):
        (x,), (x_dot,) = primals, tangents
        if isinstance(x_dot, Zero):
            return self(x), Zero(self.out_aval.to_tangent_aval())
        return self(x), self(x_dot)

    def transpose(self, ct, x_acc):
        x_acc.accum(ScaledCumsum(jax.typeof(ct), self.axis, self.scale, not self.reverse)(jnp.ones_like(ct)))

def scaled_cumsum(x, axis=0, scale=1.0, reverse=False):
    return ScaledCumsum(jax.typeof(x), axis % jnp.ndim(x), scale, reverse)(x)
'''),
        W('c', 'transposes along axis 0 whatever self.axis is: right for vectors only',
          r'''class ScaledCumsum(HiPrim):
    """scale * the running sum of x along a static axis (from the end when reverse is True)."""
    def __init__(self, x_aval, axis, scale, reverse):
        self.in_avals = (x_aval,)
        self.out_aval = x_aval
        self.params = dict(axis=axis, scale=scale, reverse=reverse)
        super().__init__()

    def expand(self, x):
        return self.scale * jax.lax.cumsum(x, self.axis, reverse=self.reverse)

    def batch(self, axis_data, args, dims):
        (x,), (d,) = args, dims
        if d is None:
            return self(x), None
        x = jnp.moveaxis(x, d, 0)                        # the batch axis first: axis moves up by one
        return ScaledCumsum(jax.typeof(x), self.axis + 1, self.scale, self.reverse)(x), 0

    lin, linearized = linearize_from_jvp
    vjp_fwd, vjp_bwd_retval = vjp_from_lin

    def jvp(self, primals, tangents):
        (x,), (x_dot,) = primals, tangents
        if isinstance(x_dot, Zero):
            return self(x), Zero(self.out_aval.to_tangent_aval())
        return self(x), self(x_dot)

    def transpose(self, ct, x_acc):
        x_acc.accum(ScaledCumsum(jax.typeof(ct), 0, self.scale, not self.reverse)(ct))

def scaled_cumsum(x, axis=0, scale=1.0, reverse=False):
    return ScaledCumsum(jax.typeof(x), axis % jnp.ndim(x), scale, reverse)(x)
'''),
        W('d', 'computes the tangent with jax.lax.cumsum instead of the primitive, so no transpose rule is ever needed: not the rule pair asked for',
          r'''class ScaledCumsum(HiPrim):
    """scale * the running sum of x along a static axis (from the end when reverse is True)."""
    def __init__(self, x_aval, axis, scale, reverse):
        self.in_avals = (x_aval,)
        self.out_aval = x_aval
        self.params = dict(axis=axis, scale=scale, reverse=reverse)
        super().__init__()

    def expand(self, x):
        return self.scale * jax.lax.cumsum(x, self.axis, reverse=self.reverse)

    def batch(self, axis_data, args, dims):
        (x,), (d,) = args, dims
        if d is None:
            return self(x), None
        x = jnp.moveaxis(x, d, 0)                        # the batch axis first: axis moves up by one
        return ScaledCumsum(jax.typeof(x), self.axis + 1, self.scale, self.reverse)(x), 0

    lin, linearized = linearize_from_jvp
    vjp_fwd, vjp_bwd_retval = vjp_from_lin

    def jvp(self, primals, tangents):
        (x,), (x_dot,) = primals, tangents
        x_dot = instantiate_zeros(x_dot)
        return self(x), self.scale * jax.lax.cumsum(x_dot, self.axis, reverse=self.reverse)

def scaled_cumsum(x, axis=0, scale=1.0, reverse=False):
    return ScaledCumsum(jax.typeof(x), axis % jnp.ndim(x), scale, reverse)(x)
'''),
        W('d', 'writes the transpose with jax.lax.cumsum instead of a ScaledCumsum: right values, but the gradient no longer applies the primitive',
          r'''class ScaledCumsum(HiPrim):
    """scale * the running sum of x along a static axis (from the end when reverse is True)."""
    def __init__(self, x_aval, axis, scale, reverse):
        self.in_avals = (x_aval,)
        self.out_aval = x_aval
        self.params = dict(axis=axis, scale=scale, reverse=reverse)
        super().__init__()

    def expand(self, x):
        return self.scale * jax.lax.cumsum(x, self.axis, reverse=self.reverse)

    def batch(self, axis_data, args, dims):
        (x,), (d,) = args, dims
        if d is None:
            return self(x), None
        x = jnp.moveaxis(x, d, 0)                        # the batch axis first: axis moves up by one
        return ScaledCumsum(jax.typeof(x), self.axis + 1, self.scale, self.reverse)(x), 0

    lin, linearized = linearize_from_jvp
    vjp_fwd, vjp_bwd_retval = vjp_from_lin

    def jvp(self, primals, tangents):
        (x,), (x_dot,) = primals, tangents
        if isinstance(x_dot, Zero):
            return self(x), Zero(self.out_aval.to_tangent_aval())
        return self(x), self(x_dot)

    def transpose(self, ct, x_acc):
        x_acc.accum(self.scale * jax.lax.cumsum(ct, self.axis, reverse=not self.reverse))

def scaled_cumsum(x, axis=0, scale=1.0, reverse=False):
    return ScaledCumsum(jax.typeof(x), axis % jnp.ndim(x), scale, reverse)(x)
'''),
        W('m', 'the section-6 pitfall: applies the primitive to a symbolic Zero tangent, so a constant input under grad fails',
          r'''class ScaledCumsum(HiPrim):
    """scale * the running sum of x along a static axis (from the end when reverse is True)."""
    def __init__(self, x_aval, axis, scale, reverse):
        self.in_avals = (x_aval,)
        self.out_aval = x_aval
        self.params = dict(axis=axis, scale=scale, reverse=reverse)
        super().__init__()

    def expand(self, x):
        return self.scale * jax.lax.cumsum(x, self.axis, reverse=self.reverse)

    def batch(self, axis_data, args, dims):
        (x,), (d,) = args, dims
        if d is None:
            return self(x), None
        x = jnp.moveaxis(x, d, 0)                        # the batch axis first: axis moves up by one
        return ScaledCumsum(jax.typeof(x), self.axis + 1, self.scale, self.reverse)(x), 0

    lin, linearized = linearize_from_jvp
    vjp_fwd, vjp_bwd_retval = vjp_from_lin

    def jvp(self, primals, tangents):
        (x,), (x_dot,) = primals, tangents
        return self(x), self(x_dot)

    def transpose(self, ct, x_acc):
        x_acc.accum(ScaledCumsum(jax.typeof(ct), self.axis, self.scale, not self.reverse)(ct))

def scaled_cumsum(x, axis=0, scale=1.0, reverse=False):
    return ScaledCumsum(jax.typeof(x), axis % jnp.ndim(x), scale, reverse)(x)
'''),
        W('e', 'always transposes into a backward sum (reverse=True): wrong whenever a reversed sum is transposed, as grad of grad does',
          r'''class ScaledCumsum(HiPrim):
    """scale * the running sum of x along a static axis (from the end when reverse is True)."""
    def __init__(self, x_aval, axis, scale, reverse):
        self.in_avals = (x_aval,)
        self.out_aval = x_aval
        self.params = dict(axis=axis, scale=scale, reverse=reverse)
        super().__init__()

    def expand(self, x):
        return self.scale * jax.lax.cumsum(x, self.axis, reverse=self.reverse)

    def batch(self, axis_data, args, dims):
        (x,), (d,) = args, dims
        if d is None:
            return self(x), None
        x = jnp.moveaxis(x, d, 0)                        # the batch axis first: axis moves up by one
        return ScaledCumsum(jax.typeof(x), self.axis + 1, self.scale, self.reverse)(x), 0

    lin, linearized = linearize_from_jvp
    vjp_fwd, vjp_bwd_retval = vjp_from_lin

    def jvp(self, primals, tangents):
        (x,), (x_dot,) = primals, tangents
        if isinstance(x_dot, Zero):
            return self(x), Zero(self.out_aval.to_tangent_aval())
        return self(x), self(x_dot)

    def transpose(self, ct, x_acc):
        x_acc.accum(ScaledCumsum(jax.typeof(ct), self.axis, self.scale, True)(ct))

def scaled_cumsum(x, axis=0, scale=1.0, reverse=False):
    return ScaledCumsum(jax.typeof(x), axis % jnp.ndim(x), scale, reverse)(x)
'''),
        W('g', 'hard-codes the scale 2.5 in the transpose',
          r'''class ScaledCumsum(HiPrim):
    """scale * the running sum of x along a static axis (from the end when reverse is True)."""
    def __init__(self, x_aval, axis, scale, reverse):
        self.in_avals = (x_aval,)
        self.out_aval = x_aval
        self.params = dict(axis=axis, scale=scale, reverse=reverse)
        super().__init__()

    def expand(self, x):
        return self.scale * jax.lax.cumsum(x, self.axis, reverse=self.reverse)

    def batch(self, axis_data, args, dims):
        (x,), (d,) = args, dims
        if d is None:
            return self(x), None
        x = jnp.moveaxis(x, d, 0)                        # the batch axis first: axis moves up by one
        return ScaledCumsum(jax.typeof(x), self.axis + 1, self.scale, self.reverse)(x), 0

    lin, linearized = linearize_from_jvp
    vjp_fwd, vjp_bwd_retval = vjp_from_lin

    def jvp(self, primals, tangents):
        (x,), (x_dot,) = primals, tangents
        if isinstance(x_dot, Zero):
            return self(x), Zero(self.out_aval.to_tangent_aval())
        return self(x), self(x_dot)

    def transpose(self, ct, x_acc):
        x_acc.accum(ScaledCumsum(jax.typeof(ct), self.axis, 2.5, not self.reverse)(ct))

def scaled_cumsum(x, axis=0, scale=1.0, reverse=False):
    return ScaledCumsum(jax.typeof(x), axis % jnp.ndim(x), scale, reverse)(x)
'''),
    ],
    'ex5_answer': [
        W('m', 'treats x* as a constant: differentiates only the last application of f (u = g), with no solve',
          r'''def iterate(step, x0, tol, max_iter):
    """Apply step from x0 until no entry changes by more than tol, or max_iter times."""
    def not_done(state):
        i, _, change = state
        return (i < max_iter) & (change > tol)

    def one_step(state):
        i, x, _ = state
        x_new = step(x)
        return i + 1, x_new, jnp.max(jnp.abs(x_new - x))

    return jax.lax.while_loop(not_done, one_step, (0, x0, jnp.asarray(jnp.inf, x0.dtype)))[1]

class FixedPoint(HiPrim):
    """x* = f(x*, theta), found by iterating f from x0."""
    def __init__(self, theta_aval, x0_aval, f, tol, max_iter):
        self.in_avals = (theta_aval, x0_aval)
        self.out_aval = x0_aval
        self.params = dict(_f=f, tol=tol, max_iter=max_iter)
        super().__init__()

    def expand(self, theta, x0):
        return iterate(lambda x: self._f(x, theta), x0, self.tol, self.max_iter)

    def vjp_fwd(self, nzs_in, theta, x0):
        x_star = self(theta, x0)
        return x_star, (theta, x_star)

    def vjp_bwd_retval(self, res, g):
        theta, x_star = res
        _, f_vjp = jax.vjp(self._f, x_star, theta)
        return f_vjp(g)[1], None

def fixed_point(f, theta, x0, tol=1e-6, max_iter=500):
    return FixedPoint(jax.tree.map(jax.typeof, theta), jax.typeof(x0), f, tol, max_iter)(theta, x0)
'''),
        W('m', 'iterates with (df/dx) u instead of its transpose (a jvp where a vjp is needed): right only for a symmetric Jacobian',
          r'''def iterate(step, x0, tol, max_iter):
    """Apply step from x0 until no entry changes by more than tol, or max_iter times."""
    def not_done(state):
        i, _, change = state
        return (i < max_iter) & (change > tol)

    def one_step(state):
        i, x, _ = state
        x_new = step(x)
        return i + 1, x_new, jnp.max(jnp.abs(x_new - x))

    return jax.lax.while_loop(not_done, one_step, (0, x0, jnp.asarray(jnp.inf, x0.dtype)))[1]

class FixedPoint(HiPrim):
    """x* = f(x*, theta), found by iterating f from x0."""
    def __init__(self, theta_aval, x0_aval, f, tol, max_iter):
        self.in_avals = (theta_aval, x0_aval)
        self.out_aval = x0_aval
        self.params = dict(_f=f, tol=tol, max_iter=max_iter)
        super().__init__()

    def expand(self, theta, x0):
        return iterate(lambda x: self._f(x, theta), x0, self.tol, self.max_iter)

    def vjp_fwd(self, nzs_in, theta, x0):
        x_star = self(theta, x0)
        return x_star, (theta, x_star)

    def vjp_bwd_retval(self, res, g):
        theta, x_star = res
        _, f_vjp = jax.vjp(self._f, x_star, theta)
        step = lambda u: g + jax.jvp(lambda x: self._f(x, theta), (x_star,), (u,))[1]
        u = iterate(step, g, self.tol, self.max_iter)
        return f_vjp(u)[1], None

def fixed_point(f, theta, x0, tol=1e-6, max_iter=500):
    return FixedPoint(jax.tree.map(jax.typeof, theta), jax.typeof(x0), f, tol, max_iter)(theta, x0)
'''),
        W('a', 'puts ones where the cotangent g belongs in the adjoint equation: right only for a plain sum loss',
          r'''def iterate(step, x0, tol, max_iter):
    """Apply step from x0 until no entry changes by more than tol, or max_iter times."""
    def not_done(state):
        i, _, change = state
        return (i < max_iter) & (change > tol)

    def one_step(state):
        i, x, _ = state
        x_new = step(x)
        return i + 1, x_new, jnp.max(jnp.abs(x_new - x))

    return jax.lax.while_loop(not_done, one_step, (0, x0, jnp.asarray(jnp.inf, x0.dtype)))[1]

class FixedPoint(HiPrim):
    """x* = f(x*, theta), found by iterating f from x0."""
    def __init__(self, theta_aval, x0_aval, f, tol, max_iter):
        self.in_avals = (theta_aval, x0_aval)
        self.out_aval = x0_aval
        self.params = dict(_f=f, tol=tol, max_iter=max_iter)
        super().__init__()

    def expand(self, theta, x0):
        return iterate(lambda x: self._f(x, theta), x0, self.tol, self.max_iter)

    def vjp_fwd(self, nzs_in, theta, x0):
        x_star = self(theta, x0)
        return x_star, (theta, x_star)

    def vjp_bwd_retval(self, res, g):
        theta, x_star = res
        _, f_vjp = jax.vjp(self._f, x_star, theta)
        u = iterate(lambda u: jnp.ones_like(g) + f_vjp(u)[0], g, self.tol, self.max_iter)
        return f_vjp(u)[1], None

def fixed_point(f, theta, x0, tol=1e-6, max_iter=500):
    return FixedPoint(jax.tree.map(jax.typeof, theta), jax.typeof(x0), f, tol, max_iter)(theta, x0)
'''),
        W('m', 'drops g from the adjoint step (u = (df/dx)^T u): the iteration shrinks u towards zero',
          r'''def iterate(step, x0, tol, max_iter):
    """Apply step from x0 until no entry changes by more than tol, or max_iter times."""
    def not_done(state):
        i, _, change = state
        return (i < max_iter) & (change > tol)

    def one_step(state):
        i, x, _ = state
        x_new = step(x)
        return i + 1, x_new, jnp.max(jnp.abs(x_new - x))

    return jax.lax.while_loop(not_done, one_step, (0, x0, jnp.asarray(jnp.inf, x0.dtype)))[1]

class FixedPoint(HiPrim):
    """x* = f(x*, theta), found by iterating f from x0."""
    def __init__(self, theta_aval, x0_aval, f, tol, max_iter):
        self.in_avals = (theta_aval, x0_aval)
        self.out_aval = x0_aval
        self.params = dict(_f=f, tol=tol, max_iter=max_iter)
        super().__init__()

    def expand(self, theta, x0):
        return iterate(lambda x: self._f(x, theta), x0, self.tol, self.max_iter)

    def vjp_fwd(self, nzs_in, theta, x0):
        x_star = self(theta, x0)
        return x_star, (theta, x_star)

    def vjp_bwd_retval(self, res, g):
        theta, x_star = res
        _, f_vjp = jax.vjp(self._f, x_star, theta)
        u = iterate(lambda u: f_vjp(u)[0], g, self.tol, self.max_iter)
        return f_vjp(u)[1], None

def fixed_point(f, theta, x0, tol=1e-6, max_iter=500):
    return FixedPoint(jax.tree.map(jax.typeof, theta), jax.typeof(x0), f, tol, max_iter)(theta, x0)
'''),
        W('b', 'solves for u with a fixed tolerance of 1e-3 instead of self.tol: too loose for a slowly contracting f',
          r'''def iterate(step, x0, tol, max_iter):
    """Apply step from x0 until no entry changes by more than tol, or max_iter times."""
    def not_done(state):
        i, _, change = state
        return (i < max_iter) & (change > tol)

    def one_step(state):
        i, x, _ = state
        x_new = step(x)
        return i + 1, x_new, jnp.max(jnp.abs(x_new - x))

    return jax.lax.while_loop(not_done, one_step, (0, x0, jnp.asarray(jnp.inf, x0.dtype)))[1]

class FixedPoint(HiPrim):
    """x* = f(x*, theta), found by iterating f from x0."""
    def __init__(self, theta_aval, x0_aval, f, tol, max_iter):
        self.in_avals = (theta_aval, x0_aval)
        self.out_aval = x0_aval
        self.params = dict(_f=f, tol=tol, max_iter=max_iter)
        super().__init__()

    def expand(self, theta, x0):
        return iterate(lambda x: self._f(x, theta), x0, self.tol, self.max_iter)

    def vjp_fwd(self, nzs_in, theta, x0):
        x_star = self(theta, x0)
        return x_star, (theta, x_star)

    def vjp_bwd_retval(self, res, g):
        theta, x_star = res
        _, f_vjp = jax.vjp(self._f, x_star, theta)
        u = iterate(lambda u: g + f_vjp(u)[0], g, 1e-3, self.max_iter)
        return f_vjp(u)[1], None

def fixed_point(f, theta, x0, tol=1e-6, max_iter=500):
    return FixedPoint(jax.tree.map(jax.typeof, theta), jax.typeof(x0), f, tol, max_iter)(theta, x0)
'''),
        W('b', 'solves for u with at most 1000 steps whatever self.max_iter says',
          r'''def iterate(step, x0, tol, max_iter):
    """Apply step from x0 until no entry changes by more than tol, or max_iter times."""
    def not_done(state):
        i, _, change = state
        return (i < max_iter) & (change > tol)

    def one_step(state):
        i, x, _ = state
        x_new = step(x)
        return i + 1, x_new, jnp.max(jnp.abs(x_new - x))

    return jax.lax.while_loop(not_done, one_step, (0, x0, jnp.asarray(jnp.inf, x0.dtype)))[1]

class FixedPoint(HiPrim):
    """x* = f(x*, theta), found by iterating f from x0."""
    def __init__(self, theta_aval, x0_aval, f, tol, max_iter):
        self.in_avals = (theta_aval, x0_aval)
        self.out_aval = x0_aval
        self.params = dict(_f=f, tol=tol, max_iter=max_iter)
        super().__init__()

    def expand(self, theta, x0):
        return iterate(lambda x: self._f(x, theta), x0, self.tol, self.max_iter)

    def vjp_fwd(self, nzs_in, theta, x0):
        x_star = self(theta, x0)
        return x_star, (theta, x_star)

    def vjp_bwd_retval(self, res, g):
        theta, x_star = res
        _, f_vjp = jax.vjp(self._f, x_star, theta)
        u = iterate(lambda u: g + f_vjp(u)[0], g, self.tol, 1000)
        return f_vjp(u)[1], None

def fixed_point(f, theta, x0, tol=1e-6, max_iter=500):
    return FixedPoint(jax.tree.map(jax.typeof, theta), jax.typeof(x0), f, tol, max_iter)(theta, x0)
'''),
        W('b', 'solves for u in a Python loop that tests float(change): works eagerly, fails under jit',
          r'''def iterate(step, x0, tol, max_iter):
    """Apply step from x0 until no entry changes by more than tol, or max_iter times."""
    def not_done(state):
        i, _, change = state
        return (i < max_iter) & (change > tol)

    def one_step(state):
        i, x, _ = state
        x_new = step(x)
        return i + 1, x_new, jnp.max(jnp.abs(x_new - x))

    return jax.lax.while_loop(not_done, one_step, (0, x0, jnp.asarray(jnp.inf, x0.dtype)))[1]

class FixedPoint(HiPrim):
    """x* = f(x*, theta), found by iterating f from x0."""
    def __init__(self, theta_aval, x0_aval, f, tol, max_iter):
        self.in_avals = (theta_aval, x0_aval)
        self.out_aval = x0_aval
        self.params = dict(_f=f, tol=tol, max_iter=max_iter)
        super().__init__()

    def expand(self, theta, x0):
        return iterate(lambda x: self._f(x, theta), x0, self.tol, self.max_iter)

    def vjp_fwd(self, nzs_in, theta, x0):
        x_star = self(theta, x0)
        return x_star, (theta, x_star)

    def vjp_bwd_retval(self, res, g):
        theta, x_star = res
        _, f_vjp = jax.vjp(self._f, x_star, theta)
        u = g
        for _ in range(self.max_iter):
            u_new = g + f_vjp(u)[0]
            done = float(jnp.max(jnp.abs(u_new - u))) <= self.tol
            u = u_new
            if done:
                break
        return f_vjp(u)[1], None

def fixed_point(f, theta, x0, tol=1e-6, max_iter=500):
    return FixedPoint(jax.tree.map(jax.typeof, theta), jax.typeof(x0), f, tol, max_iter)(theta, x0)
'''),
        W('c', 'assumes f acts entry by entry (a diagonal Jacobian) and divides by 1 - diag: wrong for an affine map with a full matrix',
          r'''def iterate(step, x0, tol, max_iter):
    """Apply step from x0 until no entry changes by more than tol, or max_iter times."""
    def not_done(state):
        i, _, change = state
        return (i < max_iter) & (change > tol)

    def one_step(state):
        i, x, _ = state
        x_new = step(x)
        return i + 1, x_new, jnp.max(jnp.abs(x_new - x))

    return jax.lax.while_loop(not_done, one_step, (0, x0, jnp.asarray(jnp.inf, x0.dtype)))[1]

class FixedPoint(HiPrim):
    """x* = f(x*, theta), found by iterating f from x0."""
    def __init__(self, theta_aval, x0_aval, f, tol, max_iter):
        self.in_avals = (theta_aval, x0_aval)
        self.out_aval = x0_aval
        self.params = dict(_f=f, tol=tol, max_iter=max_iter)
        super().__init__()

    def expand(self, theta, x0):
        return iterate(lambda x: self._f(x, theta), x0, self.tol, self.max_iter)

    def vjp_fwd(self, nzs_in, theta, x0):
        x_star = self(theta, x0)
        return x_star, (theta, x_star)

    def vjp_bwd_retval(self, res, g):
        theta, x_star = res
        _, f_vjp = jax.vjp(self._f, x_star, theta)
        diag = jax.jvp(lambda x: self._f(x, theta), (x_star,), (jnp.ones_like(x_star),))[1]
        return f_vjp(g / (1.0 - diag))[1], None

def fixed_point(f, theta, x0, tol=1e-6, max_iter=500):
    return FixedPoint(jax.tree.map(jax.typeof, theta), jax.typeof(x0), f, tol, max_iter)(theta, x0)
'''),
        W('d', 'builds the Jacobian with jax.jacobian and solves with jnp.linalg.solve instead of iterating',
          r'''def iterate(step, x0, tol, max_iter):
    """Apply step from x0 until no entry changes by more than tol, or max_iter times."""
    def not_done(state):
        i, _, change = state
        return (i < max_iter) & (change > tol)

    def one_step(state):
        i, x, _ = state
        x_new = step(x)
        return i + 1, x_new, jnp.max(jnp.abs(x_new - x))

    return jax.lax.while_loop(not_done, one_step, (0, x0, jnp.asarray(jnp.inf, x0.dtype)))[1]

class FixedPoint(HiPrim):
    """x* = f(x*, theta), found by iterating f from x0."""
    def __init__(self, theta_aval, x0_aval, f, tol, max_iter):
        self.in_avals = (theta_aval, x0_aval)
        self.out_aval = x0_aval
        self.params = dict(_f=f, tol=tol, max_iter=max_iter)
        super().__init__()

    def expand(self, theta, x0):
        return iterate(lambda x: self._f(x, theta), x0, self.tol, self.max_iter)

    def vjp_fwd(self, nzs_in, theta, x0):
        x_star = self(theta, x0)
        return x_star, (theta, x_star)

    def vjp_bwd_retval(self, res, g):
        theta, x_star = res
        _, f_vjp = jax.vjp(self._f, x_star, theta)
        jac = jax.jacobian(self._f)(x_star, theta)
        u = jnp.linalg.solve(jnp.eye(g.shape[0], dtype=g.dtype) - jac.T, g)
        return f_vjp(u)[1], None

def fixed_point(f, theta, x0, tol=1e-6, max_iter=500):
    return FixedPoint(jax.tree.map(jax.typeof, theta), jax.typeof(x0), f, tol, max_iter)(theta, x0)
'''),
        W('d', 'differentiates 50 unrolled applications of f from x* (a Python loop) instead of solving for u',
          r'''def iterate(step, x0, tol, max_iter):
    """Apply step from x0 until no entry changes by more than tol, or max_iter times."""
    def not_done(state):
        i, _, change = state
        return (i < max_iter) & (change > tol)

    def one_step(state):
        i, x, _ = state
        x_new = step(x)
        return i + 1, x_new, jnp.max(jnp.abs(x_new - x))

    return jax.lax.while_loop(not_done, one_step, (0, x0, jnp.asarray(jnp.inf, x0.dtype)))[1]

class FixedPoint(HiPrim):
    """x* = f(x*, theta), found by iterating f from x0."""
    def __init__(self, theta_aval, x0_aval, f, tol, max_iter):
        self.in_avals = (theta_aval, x0_aval)
        self.out_aval = x0_aval
        self.params = dict(_f=f, tol=tol, max_iter=max_iter)
        super().__init__()

    def expand(self, theta, x0):
        return iterate(lambda x: self._f(x, theta), x0, self.tol, self.max_iter)

    def vjp_fwd(self, nzs_in, theta, x0):
        x_star = self(theta, x0)
        return x_star, (theta, x_star)

    def vjp_bwd_retval(self, res, g):
        theta, x_star = res
        def unrolled(th):
            x = x_star
            for _ in range(50):
                x = self._f(x, th)
            return x
        _, run_vjp = jax.vjp(unrolled, theta)
        return run_vjp(g)[0], None

def fixed_point(f, theta, x0, tol=1e-6, max_iter=500):
    return FixedPoint(jax.tree.map(jax.typeof, theta), jax.typeof(x0), f, tol, max_iter)(theta, x0)
'''),
        W('b', 'runs all max_iter adjoint steps with fori_loop, whatever tol says: right values here, but not the iteration asked for',
          r'''def iterate(step, x0, tol, max_iter):
    """Apply step from x0 until no entry changes by more than tol, or max_iter times."""
    def not_done(state):
        i, _, change = state
        return (i < max_iter) & (change > tol)

    def one_step(state):
        i, x, _ = state
        x_new = step(x)
        return i + 1, x_new, jnp.max(jnp.abs(x_new - x))

    return jax.lax.while_loop(not_done, one_step, (0, x0, jnp.asarray(jnp.inf, x0.dtype)))[1]

class FixedPoint(HiPrim):
    """x* = f(x*, theta), found by iterating f from x0."""
    def __init__(self, theta_aval, x0_aval, f, tol, max_iter):
        self.in_avals = (theta_aval, x0_aval)
        self.out_aval = x0_aval
        self.params = dict(_f=f, tol=tol, max_iter=max_iter)
        super().__init__()

    def expand(self, theta, x0):
        return iterate(lambda x: self._f(x, theta), x0, self.tol, self.max_iter)

    def vjp_fwd(self, nzs_in, theta, x0):
        x_star = self(theta, x0)
        return x_star, (theta, x_star)

    def vjp_bwd_retval(self, res, g):
        theta, x_star = res
        _, f_vjp = jax.vjp(self._f, x_star, theta)
        u = jax.lax.fori_loop(0, self.max_iter, lambda i, u: g + f_vjp(u)[0], g)
        return f_vjp(u)[1], None

def fixed_point(f, theta, x0, tol=1e-6, max_iter=500):
    return FixedPoint(jax.tree.map(jax.typeof, theta), jax.typeof(x0), f, tol, max_iter)(theta, x0)
'''),
        W('m', "returns the output cotangent g as x0's cotangent, as if x* moved with its starting point",
          r'''def iterate(step, x0, tol, max_iter):
    """Apply step from x0 until no entry changes by more than tol, or max_iter times."""
    def not_done(state):
        i, _, change = state
        return (i < max_iter) & (change > tol)

    def one_step(state):
        i, x, _ = state
        x_new = step(x)
        return i + 1, x_new, jnp.max(jnp.abs(x_new - x))

    return jax.lax.while_loop(not_done, one_step, (0, x0, jnp.asarray(jnp.inf, x0.dtype)))[1]

class FixedPoint(HiPrim):
    """x* = f(x*, theta), found by iterating f from x0."""
    def __init__(self, theta_aval, x0_aval, f, tol, max_iter):
        self.in_avals = (theta_aval, x0_aval)
        self.out_aval = x0_aval
        self.params = dict(_f=f, tol=tol, max_iter=max_iter)
        super().__init__()

    def expand(self, theta, x0):
        return iterate(lambda x: self._f(x, theta), x0, self.tol, self.max_iter)

    def vjp_fwd(self, nzs_in, theta, x0):
        x_star = self(theta, x0)
        return x_star, (theta, x_star)

    def vjp_bwd_retval(self, res, g):
        theta, x_star = res
        _, f_vjp = jax.vjp(self._f, x_star, theta)
        u = iterate(lambda u: g + f_vjp(u)[0], g, self.tol, self.max_iter)
        return f_vjp(u)[1], g

def fixed_point(f, theta, x0, tol=1e-6, max_iter=500):
    return FixedPoint(jax.tree.map(jax.typeof, theta), jax.typeof(x0), f, tol, max_iter)(theta, x0)
'''),
        W('g', 'hard-codes the affine map: u = (I - A)^-T g and the closed-form gradients, whatever f is',
          r'''def iterate(step, x0, tol, max_iter):
    """Apply step from x0 until no entry changes by more than tol, or max_iter times."""
    def not_done(state):
        i, _, change = state
        return (i < max_iter) & (change > tol)

    def one_step(state):
        i, x, _ = state
        x_new = step(x)
        return i + 1, x_new, jnp.max(jnp.abs(x_new - x))

    return jax.lax.while_loop(not_done, one_step, (0, x0, jnp.asarray(jnp.inf, x0.dtype)))[1]

class FixedPoint(HiPrim):
    """x* = f(x*, theta), found by iterating f from x0."""
    def __init__(self, theta_aval, x0_aval, f, tol, max_iter):
        self.in_avals = (theta_aval, x0_aval)
        self.out_aval = x0_aval
        self.params = dict(_f=f, tol=tol, max_iter=max_iter)
        super().__init__()

    def expand(self, theta, x0):
        return iterate(lambda x: self._f(x, theta), x0, self.tol, self.max_iter)

    def vjp_fwd(self, nzs_in, theta, x0):
        x_star = self(theta, x0)
        return x_star, (theta, x_star)

    def vjp_bwd_retval(self, res, g):
        theta, x_star = res
        A, b = theta
        u = jnp.linalg.solve((jnp.eye(b.shape[0], dtype=b.dtype) - A).T, g)
        return (jnp.outer(u, x_star), u), None

def fixed_point(f, theta, x0, tol=1e-6, max_iter=500):
    return FixedPoint(jax.tree.map(jax.typeof, theta), jax.typeof(x0), f, tol, max_iter)(theta, x0)
'''),
        W('f', 'keeps x* on self between vjp_fwd and the backward rule instead of in the residuals: grad(jit(...)) leaks a tracer',
          'def iterate(step, x0, tol, max_iter):\n    """Apply step from x0 until no entry changes by more than tol, or max_iter times."""\n    def not_done(state):\n        i, _, change = state\n        return (i < max_iter) & (change > tol)\n\n    def one_step(state):\n        i, x, _ = state\n        x_new = step(x)\n        return i + 1, x_new, jnp.max(jnp.abs(x_new - x))\n\n    return jax.lax.while_loop(not_done, one_step, (0, x0, jnp.asarray(jnp.inf, x0.dtype)))[1]\n\nclass FixedPoint(HiPrim):\n    """x* = f(x*, theta), found by iterating f from x0."""\n    def __init__(self, theta_aval, x0_aval, f, tol, max_iter):\n        self.in_avals = (theta_aval, x0_aval)\n        self.out_aval = x0_aval\n        self.params = dict(_f=f, tol=tol, max_iter=max_iter)\n        super().__init__()\n\n    def expand(self, theta, x0):\n        return iterate(lambda x: self._f(x, theta), x0, self.tol, self.max_iter)\n\n    def vjp_fwd(self, nzs_in, theta, x0):\n        self.x_star = self(theta, x0)                     # remember the solution for the backward pass\n        return self.x_star, theta\n\n    def vjp_bwd_retval(self, theta, g):\n        _, f_vjp = jax.vjp(self._f, self.x_star, theta)\n        u = iterate(lambda u: g + f_vjp(u)[0], g, self.tol, self.max_iter)\n        return f_vjp(u)[1], None\n\ndef fixed_point(f, theta, x0, tol=1e-6, max_iter=500):\n    return FixedPoint(jax.tree.map(jax.typeof, theta), jax.typeof(x0), f, tol, max_iter)(theta, x0)\n'),
    ],
}

# Round 4: written from the text alone, with the mistakes above listed as already caught, before the checks were read;
# each passed every visible check, and some scored full marks, until the checks were made to catch them.
WRONG['ex2_answer'] += [
    W('d', 'RefAccum path computes the row updates with NumPy (np.asarray(w), np.asarray(g)): eager with_refs works, a jitted backward pass into a ref fails',
      'class WeightedRows(HiPrim):\n    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""\n    def __init__(self, table_aval, w_aval, rows):\n        self.in_avals = (table_aval, w_aval)\n        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)\n        self.params = dict(rows=tuple(rows))\n        super().__init__()\n\n    def expand(self, table, w):\n        return w[:, None] * table[jnp.array(self.rows)]\n\n    def vjp_fwd(self, nzs_in, table, w):\n        return self(table, w), (table, w)\n\n    def vjp_bwd(self, res, g, table_acc, w_acc):\n        table, w = res\n        rows = jnp.array(self.rows)\n        w_acc.accum(jnp.sum(g * table[rows], axis=1))\n        if isinstance(table_acc, RefAccum):\n            w_np, g_np = np.asarray(w), np.asarray(g)\n            for j, r in enumerate(self.rows):\n                table_acc.ref[r] += w_np[j] * g_np[j]\n        elif isinstance(table_acc, ValAccum):\n            table_acc.accum(jnp.zeros(table_acc.aval.shape, table_acc.aval.dtype).at[rows].add(w[:, None] * g))\n\ndef weighted_rows(table, w, rows):\n    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)\n'),
    W('c', 'dense cotangent started from jnp.zeros(shape) without a dtype: a bfloat16 table gets a float32 gradient',
      'class WeightedRows(HiPrim):\n    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""\n    def __init__(self, table_aval, w_aval, rows):\n        self.in_avals = (table_aval, w_aval)\n        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)\n        self.params = dict(rows=tuple(rows))\n        super().__init__()\n\n    def expand(self, table, w):\n        return w[:, None] * table[jnp.array(self.rows)]\n\n    def vjp_fwd(self, nzs_in, table, w):\n        return self(table, w), (table, w)\n\n    def vjp_bwd(self, res, g, table_acc, w_acc):\n        table, w = res\n        rows = jnp.array(self.rows)\n        w_acc.accum(jnp.sum(g * table[rows], axis=1))\n        if isinstance(table_acc, RefAccum):\n            for j, r in enumerate(self.rows):\n                table_acc.ref[r] += w[j] * g[j]\n        elif isinstance(table_acc, ValAccum):\n            table_acc.accum(jnp.zeros(table_acc.aval.shape).at[rows].add(w[:, None] * g))\n\ndef weighted_rows(table, w, rows):\n    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)\n'),
    W('c', 'dense cotangent by a one-hot matrix product: a negative row index (valid in expand) gets no contribution, and the one-hot is float32 whatever the dtype',
      'class WeightedRows(HiPrim):\n    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""\n    def __init__(self, table_aval, w_aval, rows):\n        self.in_avals = (table_aval, w_aval)\n        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)\n        self.params = dict(rows=tuple(rows))\n        super().__init__()\n\n    def expand(self, table, w):\n        return w[:, None] * table[jnp.array(self.rows)]\n\n    def vjp_fwd(self, nzs_in, table, w):\n        return self(table, w), (table, w)\n\n    def vjp_bwd(self, res, g, table_acc, w_acc):\n        table, w = res\n        rows = jnp.array(self.rows)\n        w_acc.accum(jnp.sum(g * table[rows], axis=1))\n        if isinstance(table_acc, RefAccum):\n            for j, r in enumerate(self.rows):\n                table_acc.ref[r] += w[j] * g[j]\n        elif isinstance(table_acc, ValAccum):\n            one_hot = jax.nn.one_hot(rows, table_acc.aval.shape[0])       # (len(rows), n_rows)\n            table_acc.accum(one_hot.T @ (w[:, None] * g))\n\ndef weighted_rows(table, w, rows):\n    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)\n'),
    W('c', "w's cotangent computed with einsum(..., preferred_element_type=float32): a bfloat16 w gets a float32 gradient",
      'class WeightedRows(HiPrim):\n    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""\n    def __init__(self, table_aval, w_aval, rows):\n        self.in_avals = (table_aval, w_aval)\n        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)\n        self.params = dict(rows=tuple(rows))\n        super().__init__()\n\n    def expand(self, table, w):\n        return w[:, None] * table[jnp.array(self.rows)]\n\n    def vjp_fwd(self, nzs_in, table, w):\n        return self(table, w), (table, w)\n\n    def vjp_bwd(self, res, g, table_acc, w_acc):\n        table, w = res\n        rows = jnp.array(self.rows)\n        w_acc.accum(jnp.einsum("jk,jk->j", g, table[rows], preferred_element_type=jnp.float32))\n        if isinstance(table_acc, RefAccum):\n            for j, r in enumerate(self.rows):\n                table_acc.ref[r] += w[j] * g[j]\n        elif isinstance(table_acc, ValAccum):\n            table_acc.accum(jnp.zeros(table_acc.aval.shape, table_acc.aval.dtype).at[rows].add(w[:, None] * g))\n\ndef weighted_rows(table, w, rows):\n    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)\n'),
    W('c', 'dense cotangent with jax.ops.segment_sum: segment ids out of [0, n) are dropped, so a negative row index (valid in expand) gets nothing',
      'class WeightedRows(HiPrim):\n    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""\n    def __init__(self, table_aval, w_aval, rows):\n        self.in_avals = (table_aval, w_aval)\n        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)\n        self.params = dict(rows=tuple(rows))\n        super().__init__()\n\n    def expand(self, table, w):\n        return w[:, None] * table[jnp.array(self.rows)]\n\n    def vjp_fwd(self, nzs_in, table, w):\n        return self(table, w), (table, w)\n\n    def vjp_bwd(self, res, g, table_acc, w_acc):\n        table, w = res\n        rows = jnp.array(self.rows)\n        w_acc.accum(jnp.sum(g * table[rows], axis=1))\n        if isinstance(table_acc, RefAccum):\n            for j, r in enumerate(self.rows):\n                table_acc.ref[r] += w[j] * g[j]\n        elif isinstance(table_acc, ValAccum):\n            table_acc.accum(jax.ops.segment_sum(w[:, None] * g, rows, num_segments=table_acc.aval.shape[0]))\n\ndef weighted_rows(table, w, rows):\n    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)\n'),
]
WRONG['ex5_answer'] += [
    W('d', 'takes the transposed products from jax.linear_transpose of a jvp instead of jax.vjp of f, as the task requires',
      'def iterate(step, x0, tol, max_iter):\n    """Apply step from x0 until no entry changes by more than tol, or max_iter times."""\n    def not_done(state):\n        i, _, change = state\n        return (i < max_iter) & (change > tol)\n\n    def one_step(state):\n        i, x, _ = state\n        x_new = step(x)\n        return i + 1, x_new, jnp.max(jnp.abs(x_new - x))\n\n    return jax.lax.while_loop(not_done, one_step, (0, x0, jnp.asarray(jnp.inf, x0.dtype)))[1]\n\nclass FixedPoint(HiPrim):\n    """x* = f(x*, theta), found by iterating f from x0."""\n    def __init__(self, theta_aval, x0_aval, f, tol, max_iter):\n        self.in_avals = (theta_aval, x0_aval)\n        self.out_aval = x0_aval\n        self.params = dict(_f=f, tol=tol, max_iter=max_iter)\n        super().__init__()\n\n    def expand(self, theta, x0):\n        return iterate(lambda x: self._f(x, theta), x0, self.tol, self.max_iter)\n\n    def vjp_fwd(self, nzs_in, theta, x0):\n        x_star = self(theta, x0)\n        return x_star, (x_star, theta)\n\n    def vjp_bwd_retval(self, res, g):\n        x_star, theta = res\n        jvp_x = lambda t: jax.jvp(lambda x: self._f(x, theta), (x_star,), (t,))[1]\n        jvp_theta = lambda t: jax.jvp(lambda th: self._f(x_star, th), (theta,), (t,))[1]\n        jt_x = jax.linear_transpose(jvp_x, x_star)\n        jt_theta = jax.linear_transpose(jvp_theta, theta)\n        u = iterate(lambda u: g + jt_x(u)[0], g, self.tol, self.max_iter)\n        return jt_theta(u)[0], None\n\ndef fixed_point(f, theta, x0, tol=1e-6, max_iter=500):\n    return FixedPoint(jax.tree.map(jax.typeof, theta), jax.typeof(x0), f, tol, max_iter)(theta, x0)\n'),
    W('b', 'tolerance of the adjoint solve made relative to |g| (self.tol * max|g|): not the same tol as the forward pass; too loose for large cotangents',
      'def iterate(step, x0, tol, max_iter):\n    """Apply step from x0 until no entry changes by more than tol, or max_iter times."""\n    def not_done(state):\n        i, _, change = state\n        return (i < max_iter) & (change > tol)\n\n    def one_step(state):\n        i, x, _ = state\n        x_new = step(x)\n        return i + 1, x_new, jnp.max(jnp.abs(x_new - x))\n\n    return jax.lax.while_loop(not_done, one_step, (0, x0, jnp.asarray(jnp.inf, x0.dtype)))[1]\n\nclass FixedPoint(HiPrim):\n    """x* = f(x*, theta), found by iterating f from x0."""\n    def __init__(self, theta_aval, x0_aval, f, tol, max_iter):\n        self.in_avals = (theta_aval, x0_aval)\n        self.out_aval = x0_aval\n        self.params = dict(_f=f, tol=tol, max_iter=max_iter)\n        super().__init__()\n\n    def expand(self, theta, x0):\n        return iterate(lambda x: self._f(x, theta), x0, self.tol, self.max_iter)\n\n    def vjp_fwd(self, nzs_in, theta, x0):\n        x_star = self(theta, x0)\n        return x_star, (x_star, theta)\n\n    def vjp_bwd_retval(self, res, g):\n        x_star, theta = res\n        _, vjp_x = jax.vjp(lambda x: self._f(x, theta), x_star)\n        tol = self.tol * jnp.max(jnp.abs(g))           # relative tolerance\n        u = iterate(lambda u: g + vjp_x(u)[0], g, tol, self.max_iter)\n        _, vjp_theta = jax.vjp(lambda t: self._f(x_star, t), theta)\n        return vjp_theta(u)[0], None\n\ndef fixed_point(f, theta, x0, tol=1e-6, max_iter=500):\n    return FixedPoint(jax.tree.map(jax.typeof, theta), jax.typeof(x0), f, tol, max_iter)(theta, x0)\n'),
    W('d', 'products with the transposed Jacobians taken as jax.grad of a dot product instead of jax.vjp of f',
      'def iterate(step, x0, tol, max_iter):\n    """Apply step from x0 until no entry changes by more than tol, or max_iter times."""\n    def not_done(state):\n        i, _, change = state\n        return (i < max_iter) & (change > tol)\n\n    def one_step(state):\n        i, x, _ = state\n        x_new = step(x)\n        return i + 1, x_new, jnp.max(jnp.abs(x_new - x))\n\n    return jax.lax.while_loop(not_done, one_step, (0, x0, jnp.asarray(jnp.inf, x0.dtype)))[1]\n\nclass FixedPoint(HiPrim):\n    """x* = f(x*, theta), found by iterating f from x0."""\n    def __init__(self, theta_aval, x0_aval, f, tol, max_iter):\n        self.in_avals = (theta_aval, x0_aval)\n        self.out_aval = x0_aval\n        self.params = dict(_f=f, tol=tol, max_iter=max_iter)\n        super().__init__()\n\n    def expand(self, theta, x0):\n        return iterate(lambda x: self._f(x, theta), x0, self.tol, self.max_iter)\n\n    def vjp_fwd(self, nzs_in, theta, x0):\n        x_star = self(theta, x0)\n        return x_star, (x_star, theta)\n\n    def vjp_bwd_retval(self, res, g):\n        x_star, theta = res\n        jt_x = lambda u: jax.grad(lambda x: jnp.vdot(u, self._f(x, theta)))(x_star)\n        u = iterate(lambda u: g + jt_x(u), g, self.tol, self.max_iter)\n        theta_bar = jax.grad(lambda t: jnp.vdot(u, self._f(x_star, t)))(theta)\n        return theta_bar, None\n\ndef fixed_point(f, theta, x0, tol=1e-6, max_iter=500):\n    return FixedPoint(jax.tree.map(jax.typeof, theta), jax.typeof(x0), f, tol, max_iter)(theta, x0)\n'),
]


# Round 5: written from the text alone; each earned full marks until the checks were made to catch it.
WRONG['ex2_answer'] += [
    W('c', 'the RefAccum path writes row i into ref[abs(i)]: right for the non-negative rows every ref check used, '
           'but row -1 lands in row 1, not the last row (the dense path is right)',
      'class WeightedRows(HiPrim):\n    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""\n    def __init__(self, table_aval, w_aval, rows):\n        self.in_avals = (table_aval, w_aval)\n        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)\n        self.params = dict(rows=tuple(rows))\n        super().__init__()\n\n    def expand(self, table, w):\n        return w[:, None] * table[jnp.array(self.rows)]\n\n    def vjp_fwd(self, nzs_in, table, w):\n        return self(table, w), (table, w)\n\n    def vjp_bwd(self, res, g, table_acc, w_acc):\n        table, w = res\n        w_acc.accum(jnp.sum(g * table[jnp.array(self.rows)], axis=1))\n        if isinstance(table_acc, NullAccum):\n            return\n        if isinstance(table_acc, RefAccum):\n            for j, i in enumerate(self.rows):\n                table_acc.ref[abs(i)] += w[j] * g[j]\n            return\n        dense = jnp.zeros(table_acc.aval.shape, table_acc.aval.dtype)\n        table_acc.accum(dense.at[jnp.array(self.rows)].add(w[:, None] * g))\n\ndef weighted_rows(table, w, rows):\n    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)'),
]
WRONG['ex5_answer'] += [
    W('b', 'the adjoint iteration ignores tol (runs with tol=0 to max_iter): right wherever the forward pass converged, '
           'wrong with a coarse tol such as 0.05',
      'def iterate(step, x0, tol, max_iter):\n    """Apply step from x0 until no entry changes by more than tol, or max_iter times."""\n    def not_done(state):\n        i, _, change = state\n        return (i < max_iter) & (change > tol)\n\n    def one_step(state):\n        i, x, _ = state\n        x_new = step(x)\n        return i + 1, x_new, jnp.max(jnp.abs(x_new - x))\n\n    return jax.lax.while_loop(not_done, one_step, (0, x0, jnp.asarray(jnp.inf, x0.dtype)))[1]\n\nclass FixedPoint(HiPrim):\n    """x* = f(x*, theta), found by iterating f from x0."""\n    def __init__(self, theta_aval, x0_aval, f, tol, max_iter):\n        self.in_avals = (theta_aval, x0_aval)\n        self.out_aval = x0_aval\n        self.params = dict(_f=f, tol=tol, max_iter=max_iter)\n        super().__init__()\n\n    def expand(self, theta, x0):\n        return iterate(lambda x: self._f(x, theta), x0, self.tol, self.max_iter)\n\n    def vjp_fwd(self, nzs_in, theta, x0):\n        x_star = self(theta, x0)\n        return x_star, (theta, x_star)\n\n    def vjp_bwd_retval(self, res, g):\n        theta, x_star = res\n        _, f_vjp = jax.vjp(self._f, x_star, theta)          # f differentiated once, at (x*, theta)\n        u = iterate(lambda u: g + f_vjp(u)[0], g, 0.0, self.max_iter)\n        return f_vjp(u)[1], None\n\ndef fixed_point(f, theta, x0, tol=1e-6, max_iter=500):\n    return FixedPoint(jax.tree.map(jax.typeof, theta), jax.typeof(x0), f, tol, max_iter)(theta, x0)'),
    W('m', 'saves x0, not x*, and solves for x* again in the backward rule: the values are right, but the forward '
           'loop runs twice per gradient (two FixedPoint equations)',
      'def iterate(step, x0, tol, max_iter):\n    """Apply step from x0 until no entry changes by more than tol, or max_iter times."""\n    def not_done(state):\n        i, _, change = state\n        return (i < max_iter) & (change > tol)\n\n    def one_step(state):\n        i, x, _ = state\n        x_new = step(x)\n        return i + 1, x_new, jnp.max(jnp.abs(x_new - x))\n\n    return jax.lax.while_loop(not_done, one_step, (0, x0, jnp.asarray(jnp.inf, x0.dtype)))[1]\n\nclass FixedPoint(HiPrim):\n    """x* = f(x*, theta), found by iterating f from x0."""\n    def __init__(self, theta_aval, x0_aval, f, tol, max_iter):\n        self.in_avals = (theta_aval, x0_aval)\n        self.out_aval = x0_aval\n        self.params = dict(_f=f, tol=tol, max_iter=max_iter)\n        super().__init__()\n\n    def expand(self, theta, x0):\n        return iterate(lambda x: self._f(x, theta), x0, self.tol, self.max_iter)\n\n    def vjp_fwd(self, nzs_in, theta, x0):\n        x_star = self(theta, x0)\n        return x_star, (theta, x0)\n\n    def vjp_bwd_retval(self, res, g):\n        theta, x0 = res\n        x_star = self(theta, x0)                              # solved again, not saved\n        _, f_vjp = jax.vjp(self._f, x_star, theta)\n        u = iterate(lambda u: g + f_vjp(u)[0], g, self.tol, self.max_iter)\n        return f_vjp(u)[1], None\n\ndef fixed_point(f, theta, x0, tol=1e-6, max_iter=500):\n    return FixedPoint(jax.tree.map(jax.typeof, theta), jax.typeof(x0), f, tol, max_iter)(theta, x0)'),
]

# Round 7: written from the text alone by a reviewer who had not read the checks; the first lost its points only to
# a hidden check, the two Jacobians earned full marks, until visible checks read a bfloat16 result and counted 3 x 3 arrays.
WRONG['ex5_answer'] += [
    W('d', 'builds df/dx with jax.jacrev and iterates u <- g + u @ J (a Jacobian matrix, which the text forbids); theta part by jax.vjp',
      'def iterate(step, x0, tol, max_iter):\n'
      '    """Apply step from x0 until no entry changes by more than tol, or max_iter times."""\n'
      '    def not_done(state):\n'
      '        i, _, change = state\n'
      '        return (i < max_iter) & (change > tol)\n'
      '\n'
      '    def one_step(state):\n'
      '        i, x, _ = state\n'
      '        x_new = step(x)\n'
      '        return i + 1, x_new, jnp.max(jnp.abs(x_new - x))\n'
      '\n'
      '    return jax.lax.while_loop(not_done, one_step, (0, x0, jnp.asarray(jnp.inf, x0.dtype)))[1]\n'
      '\n'
      'class FixedPoint(HiPrim):\n'
      '    """x* = f(x*, theta), found by iterating f from x0."""\n'
      '    def __init__(self, theta_aval, x0_aval, f, tol, max_iter):\n'
      '        self.in_avals = (theta_aval, x0_aval)\n'
      '        self.out_aval = x0_aval\n'
      '        self.params = dict(_f=f, tol=tol, max_iter=max_iter)\n'
      '        super().__init__()\n'
      '\n'
      '    def expand(self, theta, x0):\n'
      '        return iterate(lambda x: self._f(x, theta), x0, self.tol, self.max_iter)\n'
      '\n'
      '    def vjp_fwd(self, nzs_in, theta, x0):\n'
      '        x_star = self(theta, x0)\n'
      '        return x_star, (theta, x_star)\n'
      '\n'
      '    def vjp_bwd_retval(self, res, g):\n'
      '        theta, x_star = res\n'
      '        J = jax.jacrev(lambda x: self._f(x, theta))(x_star)        # df/dx at x*, once\n'
      '        J = J.reshape(x_star.size, x_star.size)\n'
      '        step = lambda u: g + (u.reshape(-1) @ J).reshape(g.shape)   # g + (df/dx)^T u\n'
      '        u = iterate(step, g, self.tol, self.max_iter)\n'
      '        _, theta_vjp = jax.vjp(lambda t: self._f(x_star, t), theta)\n'
      '        return theta_vjp(u)[0], None\n'
      '\n'
      'def fixed_point(f, theta, x0, tol=1e-6, max_iter=500):\n'
      '    return FixedPoint(jax.tree.map(jax.typeof, theta), jax.typeof(x0), f, tol, max_iter)(theta, x0)\n'),
    W('d', 'builds the Jacobian matrix df/dx by vmapping jax.vjp over the identity, then iterates u <- g + J^T u',
      'def iterate(step, x0, tol, max_iter):\n'
      '    """Apply step from x0 until no entry changes by more than tol, or max_iter times."""\n'
      '    def not_done(state):\n'
      '        i, _, change = state\n'
      '        return (i < max_iter) & (change > tol)\n'
      '\n'
      '    def one_step(state):\n'
      '        i, x, _ = state\n'
      '        x_new = step(x)\n'
      '        return i + 1, x_new, jnp.max(jnp.abs(x_new - x))\n'
      '\n'
      '    return jax.lax.while_loop(not_done, one_step, (0, x0, jnp.asarray(jnp.inf, x0.dtype)))[1]\n'
      '\n'
      'class FixedPoint(HiPrim):\n'
      '    """x* = f(x*, theta), found by iterating f from x0."""\n'
      '    def __init__(self, theta_aval, x0_aval, f, tol, max_iter):\n'
      '        self.in_avals = (theta_aval, x0_aval)\n'
      '        self.out_aval = x0_aval\n'
      '        self.params = dict(_f=f, tol=tol, max_iter=max_iter)\n'
      '        super().__init__()\n'
      '\n'
      '    def expand(self, theta, x0):\n'
      '        return iterate(lambda x: self._f(x, theta), x0, self.tol, self.max_iter)\n'
      '\n'
      '    def vjp_fwd(self, nzs_in, theta, x0):\n'
      '        x_star = self(theta, x0)\n'
      '        return x_star, (theta, x_star)\n'
      '\n'
      '    def vjp_bwd_retval(self, res, g):\n'
      '        theta, x_star = res\n'
      '        _, f_vjp = jax.vjp(self._f, x_star, theta)\n'
      '        eye = jnp.eye(x_star.size, dtype=x_star.dtype).reshape((x_star.size,) + x_star.shape)\n'
      '        J_T = jax.vmap(lambda e: f_vjp(e)[0])(eye).reshape(x_star.size, x_star.size)   # row i: e_i^T df/dx, once\n'
      '        u = iterate(lambda u: g + (J_T.T @ u.reshape(-1)).reshape(g.shape), g, self.tol, self.max_iter)\n'
      '        return f_vjp(u)[1], None\n'
      '\n'
      'def fixed_point(f, theta, x0, tol=1e-6, max_iter=500):\n'
      '    return FixedPoint(jax.tree.map(jax.typeof, theta), jax.typeof(x0), f, tol, max_iter)(theta, x0)\n'),
]

# Round 8: written from the text alone by a second reviewer; it earned full marks until visible checks used a vector
# whose entries are all negative.

# Round 9: found by reviewers who read only the learner's notebook.
WRONG['ex2_answer'] += [
    W('c', 'RefAccum path slices ref[r:r+1] to add a row: for r = -1 the slice -1:0 is empty, so a negative row loses every contribution silently (the dense path is right)',
      'class WeightedRows(HiPrim):\n    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""\n    def __init__(self, table_aval, w_aval, rows):\n        self.in_avals = (table_aval, w_aval)\n        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)\n        self.params = dict(rows=tuple(rows))\n        super().__init__()\n\n    def expand(self, table, w):\n        return w[:, None] * table[jnp.array(self.rows)]\n\n    def vjp_fwd(self, nzs_in, table, w):\n        return self(table, w), (table, w)\n\n    def vjp_bwd(self, res, g, table_acc, w_acc):\n        table, w = res\n        rows = jnp.array(self.rows)\n        w_acc.accum(jnp.sum(g * table[rows], axis=1))\n        if isinstance(table_acc, RefAccum):\n            for j, r in enumerate(self.rows):\n                table_acc.ref[r:r + 1] += (w[j] * g[j])[None]      # one row, kept 2-D\n        elif isinstance(table_acc, ValAccum):\n            dense = jnp.zeros(table_acc.aval.shape, table_acc.aval.dtype)\n            table_acc.accum(dense.at[rows].add(w[:, None] * g))\n\ndef weighted_rows(table, w, rows):\n    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)\n'),
    W('e', "w's cotangent pushed only into a ValAccum (to skip a NullAccum): when the caller passes a Ref for w too (with_refs), w's gradient is silently dropped",
      'class WeightedRows(HiPrim):\n    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""\n    def __init__(self, table_aval, w_aval, rows):\n        self.in_avals = (table_aval, w_aval)\n        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)\n        self.params = dict(rows=tuple(rows))\n        super().__init__()\n\n    def expand(self, table, w):\n        return w[:, None] * table[jnp.array(self.rows)]\n\n    def vjp_fwd(self, nzs_in, table, w):\n        return self(table, w), (table, w)\n\n    def vjp_bwd(self, res, g, table_acc, w_acc):\n        table, w = res\n        rows = jnp.array(self.rows)\n        if isinstance(w_acc, ValAccum):\n            w_acc.accum(jnp.sum(g * table[rows], axis=1))\n        if isinstance(table_acc, RefAccum):\n            for j, r in enumerate(self.rows):\n                table_acc.ref[r] += w[j] * g[j]\n        elif isinstance(table_acc, ValAccum):\n            dense = jnp.zeros(table_acc.aval.shape, table_acc.aval.dtype)\n            table_acc.accum(dense.at[rows].add(w[:, None] * g))\n\ndef weighted_rows(table, w, rows):\n    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)\n'),
    W('c', "RefAccum path wraps a negative row with r % len(rows) (the number of rows picked) instead of the table size: wrong row whenever len(rows) differs from the table's rows",
      'class WeightedRows(HiPrim):\n    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""\n    def __init__(self, table_aval, w_aval, rows):\n        self.in_avals = (table_aval, w_aval)\n        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)\n        self.params = dict(rows=tuple(rows))\n        super().__init__()\n\n    def expand(self, table, w):\n        return w[:, None] * table[jnp.array(self.rows)]\n\n    def vjp_fwd(self, nzs_in, table, w):\n        return self(table, w), (table, w)\n\n    def vjp_bwd(self, res, g, table_acc, w_acc):\n        table, w = res\n        rows = jnp.array(self.rows)\n        w_acc.accum(jnp.sum(g * table[rows], axis=1))\n        if isinstance(table_acc, RefAccum):\n            for j, r in enumerate(self.rows):\n                table_acc.ref[r % len(self.rows)] += w[j] * g[j]    # a negative row counts from the end\n        elif isinstance(table_acc, ValAccum):\n            dense = jnp.zeros(table_acc.aval.shape, table_acc.aval.dtype)\n            table_acc.accum(dense.at[rows].add(w[:, None] * g))\n\ndef weighted_rows(table, w, rows):\n    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)\n'),
]
WRONG['ex5_answer'] += [
    W('m', 'starts the adjoint iteration from zeros, as one usually starts a fixed-point solve, not from g: one term of the Neumann series short when max_iter stops it',
      'def iterate(step, x0, tol, max_iter):\n    """Apply step from x0 until no entry changes by more than tol, or max_iter times."""\n    def not_done(state):\n        i, _, change = state\n        return (i < max_iter) & (change > tol)\n\n    def one_step(state):\n        i, x, _ = state\n        x_new = step(x)\n        return i + 1, x_new, jnp.max(jnp.abs(x_new - x))\n\n    return jax.lax.while_loop(not_done, one_step, (0, x0, jnp.asarray(jnp.inf, x0.dtype)))[1]\n\nclass FixedPoint(HiPrim):\n    """x* = f(x*, theta), found by iterating f from x0."""\n    def __init__(self, theta_aval, x0_aval, f, tol, max_iter):\n        self.in_avals = (theta_aval, x0_aval)\n        self.out_aval = x0_aval\n        self.params = dict(_f=f, tol=tol, max_iter=max_iter)\n        super().__init__()\n\n    def expand(self, theta, x0):\n        return iterate(lambda x: self._f(x, theta), x0, self.tol, self.max_iter)\n\n    def vjp_fwd(self, nzs_in, theta, x0):\n        x_star = self(theta, x0)\n        return x_star, (theta, x_star)\n\n    def vjp_bwd_retval(self, res, g):\n        theta, x_star = res\n        _, f_vjp = jax.vjp(self._f, x_star, theta)\n        u = iterate(lambda u: g + f_vjp(u)[0], jnp.zeros_like(g), self.tol, self.max_iter)\n        return f_vjp(u)[1], None\n\ndef fixed_point(f, theta, x0, tol=1e-6, max_iter=500):\n    return FixedPoint(jax.tree.map(jax.typeof, theta), jax.typeof(x0), f, tol, max_iter)(theta, x0)\n'),
]

# Round 9: right answers written another way.
RIGHT = {}
RIGHT.setdefault('ex2_answer', []).extend([
    R('ValAccum path by jax.ops.segment_sum over rows wrapped into [0, n); RefAccum path reads and writes each row, ref[r, :] = ref[r, :] + ...',
      'class WeightedRows(HiPrim):\n    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""\n    def __init__(self, table_aval, w_aval, rows):\n        self.in_avals = (table_aval, w_aval)\n        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)\n        self.params = dict(rows=tuple(rows))\n        super().__init__()\n\n    def expand(self, table, w):\n        return w[:, None] * table[jnp.array(self.rows)]\n\n    def vjp_fwd(self, nzs_in, table, w):\n        return self(table, w), (table, w)\n\n    def vjp_bwd(self, res, g, table_acc, w_acc):\n        table, w = res\n        n = table_acc.aval.shape[0]\n        ids = [r % n for r in self.rows]                  # a negative row counts from the end\n        w_acc.accum(jnp.sum(g * table[jnp.array(ids)], axis=1))\n        if isinstance(table_acc, RefAccum):\n            for j, r in enumerate(ids):\n                table_acc.ref[r, :] = table_acc.ref[r, :] + w[j] * g[j]\n        elif isinstance(table_acc, ValAccum):\n            table_acc.accum(jax.ops.segment_sum(w[:, None] * g, jnp.array(ids), num_segments=n))\n\ndef weighted_rows(table, w, rows):\n    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)\n'),
])
RIGHT.setdefault('ex5_answer', []).extend([
    R('two jax.vjp calls, one per argument of f (x at theta fixed, theta at x* fixed): f traced three times in all',
      'def iterate(step, x0, tol, max_iter):\n    """Apply step from x0 until no entry changes by more than tol, or max_iter times."""\n    def not_done(state):\n        i, _, change = state\n        return (i < max_iter) & (change > tol)\n\n    def one_step(state):\n        i, x, _ = state\n        x_new = step(x)\n        return i + 1, x_new, jnp.max(jnp.abs(x_new - x))\n\n    return jax.lax.while_loop(not_done, one_step, (0, x0, jnp.asarray(jnp.inf, x0.dtype)))[1]\n\nclass FixedPoint(HiPrim):\n    """x* = f(x*, theta), found by iterating f from x0."""\n    def __init__(self, theta_aval, x0_aval, f, tol, max_iter):\n        self.in_avals = (theta_aval, x0_aval)\n        self.out_aval = x0_aval\n        self.params = dict(_f=f, tol=tol, max_iter=max_iter)\n        super().__init__()\n\n    def expand(self, theta, x0):\n        return iterate(lambda x: self._f(x, theta), x0, self.tol, self.max_iter)\n\n    def vjp_fwd(self, nzs_in, theta, x0):\n        x_star = self(theta, x0)\n        return x_star, {"theta": theta, "x_star": x_star}\n\n    def vjp_bwd_retval(self, res, g):\n        theta, x_star = res["theta"], res["x_star"]\n        _, vjp_x = jax.vjp(lambda x: self._f(x, theta), x_star)\n        _, vjp_theta = jax.vjp(lambda t: self._f(x_star, t), theta)\n        u = iterate(lambda u: g + vjp_x(u)[0], g, self.tol, self.max_iter)\n        (theta_bar,) = vjp_theta(u)\n        return theta_bar, jnp.zeros_like(x_star)\n\ndef fixed_point(f, theta, x0, tol=1e-6, max_iter=500):\n    return FixedPoint(jax.tree.map(jax.typeof, theta), jax.typeof(x0), f, tol, max_iter)(theta, x0)\n'),
])

# Round 10: found by reviewers who read only the learner's notebook.
WRONG['ex2_answer'] += [
    W('c', "RefAccum path follows the text's warning by summing contributions per distinct Python row value, then one scatter ref[uniq] += sums: rows r and r - n (e.g. 5 and -1 in a 6-row table) are distinct values but the same row, so one contribution is lost",
      'class WeightedRows(HiPrim):\n    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""\n    def __init__(self, table_aval, w_aval, rows):\n        self.in_avals = (table_aval, w_aval)\n        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)\n        self.params = dict(rows=tuple(rows))\n        super().__init__()\n\n    def expand(self, table, w):\n        return w[:, None] * table[jnp.array(self.rows)]\n\n    def vjp_fwd(self, nzs_in, table, w):\n        return self(table, w), (table, w)\n\n    def vjp_bwd(self, res, g, table_acc, w_acc):\n        table, w = res\n        idx = jnp.array(self.rows)\n        w_acc.accum(jnp.sum(g * table[idx], axis=1))\n        contrib = w[:, None] * g\n        if isinstance(table_acc, RefAccum):\n            # ref[idx] += v keeps one contribution per repeated index: add up each row\'s\n            # contributions first, then scatter once with distinct indices\n            uniq = sorted(set(self.rows))\n            sums = jnp.stack([sum(contrib[j] for j, r in enumerate(self.rows) if r == u) for u in uniq])\n            table_acc.ref[jnp.array(uniq)] += sums\n        elif isinstance(table_acc, ValAccum):\n            dense = jnp.zeros(table_acc.aval.shape, table_acc.aval.dtype)\n            table_acc.accum(dense.at[idx].add(contrib))\n\ndef weighted_rows(table, w, rows):\n    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)\n'),
    W('c', 'dedupes rows by Python value before scattering (dense path .at[uniq].set, ref path row by row): rows r and r - n are distinct values but the same row, so the dense gradient keeps only one of them',
      'class WeightedRows(HiPrim):\n    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""\n    def __init__(self, table_aval, w_aval, rows):\n        self.in_avals = (table_aval, w_aval)\n        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)\n        self.params = dict(rows=tuple(rows))\n        super().__init__()\n\n    def expand(self, table, w):\n        return w[:, None] * table[jnp.array(self.rows)]\n\n    def vjp_fwd(self, nzs_in, table, w):\n        return self(table, w), (table, w)\n\n    def vjp_bwd(self, res, g, table_acc, w_acc):\n        table, w = res\n        idx = jnp.array(self.rows)\n        w_acc.accum(jnp.sum(g * table[idx], axis=1))\n        contrib = w[:, None] * g\n        if isinstance(table_acc, NullAccum):\n            return\n        # a repeated index keeps only one contribution: add up each row\'s contributions first\n        uniq = sorted(set(self.rows))\n        sums = jnp.stack([sum(contrib[j] for j, r in enumerate(self.rows) if r == u) for u in uniq])\n        if isinstance(table_acc, RefAccum):\n            for u, s in zip(uniq, sums):\n                table_acc.ref[u] += s                   # row by row, in place\n        else:\n            dense = jnp.zeros(table_acc.aval.shape, table_acc.aval.dtype)\n            table_acc.accum(dense.at[jnp.array(uniq)].set(sums))\n\ndef weighted_rows(table, w, rows):\n    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)\n'),
]

# Round 10: right answers written another way.
RIGHT.setdefault('ex2_answer', []).extend([
    R('RefAccum path with a lax.fori_loop over j and a traced row index ref[idx[j]] += ... (one row per step, in place; a negative traced index is normalized)',
      'class WeightedRows(HiPrim):\n    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""\n    def __init__(self, table_aval, w_aval, rows):\n        self.in_avals = (table_aval, w_aval)\n        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)\n        self.params = dict(rows=tuple(rows))\n        super().__init__()\n\n    def expand(self, table, w):\n        return w[:, None] * table[jnp.array(self.rows)]\n\n    def vjp_fwd(self, nzs_in, table, w):\n        return self(table, w), (table, w)\n\n    def vjp_bwd(self, res, g, table_acc, w_acc):\n        table, w = res\n        idx = jnp.array(self.rows)\n        w_acc.accum(jnp.einsum("jd,jd->j", g, table[idx]))\n        if isinstance(table_acc, RefAccum):\n            ref = table_acc.ref\n            def add_row(j, carry):\n                ref[idx[j]] += w[j] * g[j]            # one row per step, in place\n                return carry\n            jax.lax.fori_loop(0, len(self.rows), add_row, None)\n        elif isinstance(table_acc, ValAccum):\n            table_acc.accum(jnp.zeros_like(table).at[idx].add(w[:, None] * g))\n\ndef weighted_rows(table, w, rows):\n    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)\n'),
])


# Exercises 1 (a straight-through gradient) and 3 (a batch rule that keeps the primitive), new in this form:
# written from their texts before their checks.

EX1_HEAD = '''class FakeQuant(HiPrim):
    """x rounded to the grid scale * k, for an integer k from -levels to levels."""
    def __init__(self, x_aval, scale_aval, levels):
        self.in_avals = (x_aval, scale_aval)
        self.out_aval = x_aval
        self.params = dict(levels=levels)
        super().__init__()

    def expand(self, x, scale):
        return scale * jnp.clip(jnp.round(x / scale), -self.levels, self.levels)

'''
EX1_TAIL = '''
def fake_quant(x, scale, levels=7):
    return FakeQuant(jax.typeof(x), jax.typeof(scale), levels)(x, scale)
'''

def ex1(body):
    return EX1_HEAD + body.strip('\n') + '\n' + EX1_TAIL

EX1 = [
    W('m', 'the chain rule through expand (jax.vjp of it): round has derivative 0, so every cotangent of x is 0',
      ex1('''
    def vjp_fwd(self, nzs_in, x, scale):
        out, f_vjp = jax.vjp(lambda v: self.expand(v, scale), x)
        return self(x, scale), f_vjp

    def vjp_bwd_retval(self, f_vjp, g):
        return (f_vjp(g)[0], None)
''')),
    W('m', 'passes the cotangent through everywhere, also where the clip decides the output (|x| > levels * scale)',
      ex1('''
    def vjp_fwd(self, nzs_in, x, scale):
        return self(x, scale), None

    def vjp_bwd_retval(self, res, g):
        return (g, None)                       # straight through
''')),
    W('a', "returns the mask itself as x's cotangent: right only for an all-ones cotangent (a plain sum)",
      ex1('''
    def vjp_fwd(self, nzs_in, x, scale):
        return self(x, scale), jnp.abs(x) <= self.levels * scale

    def vjp_bwd_retval(self, inside, g):
        return (inside.astype(g.dtype), None)
''')),
    W('c', 'a strict < at the edge of the range: |x| == levels * scale gets 0 instead of g',
      ex1('''
    def vjp_fwd(self, nzs_in, x, scale):
        return self(x, scale), jnp.abs(x) < self.levels * scale

    def vjp_bwd_retval(self, inside, g):
        return (jnp.where(inside, g, 0), None)
''')),
    W('b', 'the range leaves scale out (|x| <= levels): right only for scale = 1',
      ex1('''
    def vjp_fwd(self, nzs_in, x, scale):
        return self(x, scale), jnp.abs(x) <= self.levels

    def vjp_bwd_retval(self, inside, g):
        return (jnp.where(inside, g, 0), None)
''')),
    W('g', 'hard-codes 7 levels, the default: wrong for any other levels',
      ex1('''
    def vjp_fwd(self, nzs_in, x, scale):
        return self(x, scale), jnp.abs(x) <= 7 * scale

    def vjp_bwd_retval(self, inside, g):
        return (jnp.where(inside, g, 0), None)
''')),
    W('d', 'computes the output with jax.numpy in vjp_fwd instead of applying the primitive: the gradient no longer applies FakeQuant',
      ex1('''
    def vjp_fwd(self, nzs_in, x, scale):
        out = scale * jnp.clip(jnp.round(x / scale), -self.levels, self.levels)
        return out, jnp.abs(x) <= self.levels * scale

    def vjp_bwd_retval(self, inside, g):
        return (jnp.where(inside, g, 0), None)
''')),
    W('c', "zeros made with jnp.zeros(g.shape), float32: a bfloat16 x gets a float32 cotangent",
      ex1('''
    def vjp_fwd(self, nzs_in, x, scale):
        return self(x, scale), jnp.abs(x) <= self.levels * scale

    def vjp_bwd_retval(self, inside, g):
        return (jnp.where(inside, g, jnp.zeros(g.shape)), None)
''')),
    W('m', 'gives scale a straight-through gradient too, though the text says scale gets none',
      ex1('''
    def vjp_fwd(self, nzs_in, x, scale):
        inside = jnp.abs(x) <= self.levels * scale
        return self(x, scale), (inside, jnp.clip(jnp.round(x / scale), -self.levels, self.levels))

    def vjp_bwd_retval(self, res, g):
        inside, k = res
        return (jnp.where(inside, g, 0), jnp.sum(g * k))       # d(scale * k) / d scale = k
''')),
    W('b', 'reads scale with float(): fine eagerly, a tracer error under jax.jit where scale is traced',
      ex1('''
    def vjp_fwd(self, nzs_in, x, scale):
        bound = self.levels * float(scale)
        return self(x, scale), jnp.abs(x) <= bound

    def vjp_bwd_retval(self, inside, g):
        return (jnp.where(inside, g, 0), None)
''')),
    W('m', "returns x's cotangent alone, a bare array rather than a tuple with one entry per input",
      ex1('''
    def vjp_fwd(self, nzs_in, x, scale):
        return self(x, scale), jnp.abs(x) <= self.levels * scale

    def vjp_bwd_retval(self, inside, g):
        return jnp.where(inside, g, 0)
''')),
    W('c', 'recovers the range from the output: a clipped entry equals the bound, so |q| <= levels * scale lets it pass too',
      ex1('''
    def vjp_fwd(self, nzs_in, x, scale):
        q = self(x, scale)
        return q, (q, scale)

    def vjp_bwd_retval(self, res, g):
        q, scale = res
        return (jnp.where(jnp.abs(q) <= self.levels * scale, g, 0), None)
''')),
    W('c', 'compares the rounded level with levels: 1.6 with scale 0.5 and 3 levels rounds to 3 and passes, though |x| > 1.5',
      ex1('''
    def vjp_fwd(self, nzs_in, x, scale):
        return self(x, scale), jnp.abs(jnp.round(x / scale)) <= self.levels

    def vjp_bwd_retval(self, inside, g):
        return (jnp.where(inside, g, 0), None)
''')),
]

EX3_HEAD = '''class Norm(HiPrim):
    """The Euclidean norm of x along a static axis; its gradient at a zero vector is 0."""
    def __init__(self, x_aval, axis):
        self.in_avals = (x_aval,)
        self.out_aval = ShapedArray(x_aval.shape[:axis] + x_aval.shape[axis + 1:], x_aval.dtype)
        self.params = dict(axis=axis)
        super().__init__()

    def expand(self, x):
        return jnp.sqrt(jnp.sum(x * x, axis=self.axis))

    def vjp_fwd(self, nzs_in, x):
        n = self(x)
        return n, (x, n)

    def vjp_bwd_retval(self, res, g):
        x, n = res
        n, g = jnp.expand_dims(n, self.axis), jnp.expand_dims(g, self.axis)
        return (jnp.where(n > 0, x / jnp.where(n > 0, n, 1), 0) * g,)   # 0 at a zero vector

    def batch(self, axis_data, args, dims):
'''
EX3_TAIL = '''
def norm(x, axis=-1):
    return Norm(jax.typeof(x), axis % jnp.ndim(x))(x)
'''

def ex3(body):
    return EX3_HEAD + body.strip('\n') + '\n' + EX3_TAIL

EX3 = [
    W('d', "one vmap_rule line over expand, section 9's WDotV: right values, but the batched program has sqrt and no Norm, so a gradient outside vmap is nan at a zero row",
      ex3('''
        return vmap_rule(axis_data, self.expand, dims, 0)(*args), 0
''')),
    W('e', 'plain jax.numpy in the batched program: right under vmap alone, nan for a zero row when grad is taken outside the vmap',
      ex3('''
        (x,), (d,) = args, dims
        x = jnp.moveaxis(x, d, 0)
        return jnp.sqrt(jnp.sum(x * x, axis=self.axis + 1)), 0
''')),
    W('m', 'maps the primitive itself with vmap_rule: its vmap calls this rule again, without end (RecursionError)',
      ex3('''
        return vmap_rule(axis_data, lambda v: Norm(jax.typeof(v), self.axis)(v), dims, 0)(*args), 0
''')),
    W('m', 'applies self, the instance built for the unbatched type, to the batched array: the declared output type is wrong',
      ex3('''
        (x,), (d,) = args, dims
        return self(x), d
''')),
    W('c', 'moves the batch axis to the front but keeps self.axis: it then reduces the wrong axis (the batch axis when axis is 0)',
      ex3('''
        (x,), (d,) = args, dims
        x = jnp.moveaxis(x, d, 0)
        return Norm(jax.typeof(x), self.axis)(x), 0
''')),
    W('c', 'shifts the axis as if the batch axis were first, without moving it: right only for in_axes=0',
      ex3('''
        (x,), (d,) = args, dims
        return Norm(jax.typeof(x), self.axis + 1)(x), 0
''')),
    W('b', "ignores self.axis and reduces each example's last axis: right only when axis is the last",
      ex3('''
        (x,), (d,) = args, dims
        x = jnp.moveaxis(x, d, 0)
        return Norm(jax.typeof(x), x.ndim - 1)(x), 0
''')),
    W('g', 'hard-codes the reduced axis to 1 (axis 0 of a vector, shifted): right only for axis 0',
      ex3('''
        (x,), (d,) = args, dims
        x = jnp.moveaxis(x, d, 0)
        return Norm(jax.typeof(x), 1)(x), 0
''')),
    W('c', 'moves the batch axis to the front but returns d as the output batch axis: right only for in_axes=0',
      ex3('''
        (x,), (d,) = args, dims
        x = jnp.moveaxis(x, d, 0)
        return Norm(jax.typeof(x), self.axis + 1)(x), d
''')),
    W('c', 'keeps the batch axis in place and shifts the reduced axis, but returns d as the output axis even when the batch axis came after the reduced one',
      ex3('''
        (x,), (d,) = args, dims
        axis = self.axis + 1 if d <= self.axis else self.axis
        return Norm(jax.typeof(x), axis)(x), d
''')),
    W('c', 'computes the batched norms in float32 "for accuracy": a bfloat16 x gives a float32 result',
      ex3('''
        (x,), (d,) = args, dims
        x = jnp.moveaxis(x, d, 0).astype(jnp.float32)
        return Norm(jax.typeof(x), self.axis + 1)(x), 0
''')),
]

EX1.append(
        W('c', 'differentiates the clip instead (jax.vjp of jnp.clip(x, -L, L)): at the edges the cotangent is split, half of g',
          ex1('''
    def vjp_fwd(self, nzs_in, x, scale):
        bound = self.levels * scale
        _, clip_vjp = jax.vjp(lambda v: jnp.clip(v, -bound, bound), x)
        return self(x, scale), clip_vjp

    def vjp_bwd_retval(self, clip_vjp, g):
        return (clip_vjp(g)[0], None)
''')))

WRONG['ex1_answer'] = EX1
WRONG['ex3_answer'] = EX3

# Right answers written another way, for the two new exercises.
RIGHT.update({
    'ex1_answer': [
        R('saves x and scale and builds the mask in the backward rule', ex1('''
    def vjp_fwd(self, nzs_in, x, scale):
        return self(x, scale), (x, scale)

    def vjp_bwd_retval(self, res, g):
        x, scale = res
        return (jnp.where(jnp.abs(x) <= self.levels * scale, g, 0), None)
''')),
        R('multiplies g by the boolean mask, which keeps g\'s dtype', ex1('''
    def vjp_fwd(self, nzs_in, x, scale):
        return self(x, scale), jnp.abs(x) <= self.levels * scale

    def vjp_bwd_retval(self, inside, g):
        return (g * inside, None)
''')),
        R('zeros for scale instead of None: the same zero gradient', ex1('''
    def vjp_fwd(self, nzs_in, x, scale):
        return self(x, scale), (jnp.abs(x) <= self.levels * scale, scale)

    def vjp_bwd_retval(self, res, g):
        inside, scale = res
        return (jnp.where(inside, g, 0), jnp.zeros_like(scale))
''')),
        R('compares |x / scale| with levels: the same range', ex1('''
    def vjp_fwd(self, nzs_in, x, scale):
        return self(x, scale), jnp.abs(x / scale) <= self.levels

    def vjp_bwd_retval(self, inside, g):
        return (jnp.where(inside, g, jnp.zeros_like(g)), None)
''')),
    ],
    'ex3_answer': [
        R('bdims_at_front moves the batch axis first', ex3('''
        (x,) = bdims_at_front(axis_data, args, dims)
        return Norm(jax.typeof(x), self.axis + 1)(x), 0
''')),
        R('keeps the batch axis where it is: shifts the reduced axis past it and computes where the batch axis lands in the output', ex3('''
        (x,), (d,) = args, dims
        axis = self.axis + 1 if d <= self.axis else self.axis
        return Norm(jax.typeof(x), axis)(x), d if d < axis else d - 1
''')),
        R('moves the batch axis last, so the reduced axis keeps its index; the output batch axis is then the last', ex3('''
        (x,), (d,) = args, dims
        x = jnp.moveaxis(x, d, -1)
        out = Norm(jax.typeof(x), self.axis)(x)
        return out, out.ndim - 1
''')),
    ],
})

# Round 12: found by a reviewer who read only the learner's notebook. A batching rule finding the batch axis by its size
# passed every check (no two axes of the arrays checked had one size); a FakeQuant keeping its mask in a global passed
# every check (one FakeQuant per program). Both are checked visibly now. Zeros for scale's cotangent, which the text now
# allows, join RIGHT.
WRONG['ex3_answer'] += [
    W('c', 'finds the batch axis as the first axis of size axis_data.size, ignoring dims',
      'class Norm(HiPrim):\n    """The Euclidean norm of x along a static axis; its gradient at an all-zero vector is 0."""\n    def __init__(self, x_aval, axis):\n        self.in_avals, self.params = (x_aval,), dict(axis=axis)\n        self.out_aval = ShapedArray(x_aval.shape[:axis] + x_aval.shape[axis + 1:], x_aval.dtype)\n        super().__init__()\n\n    def expand(self, x):\n        return jnp.sqrt(jnp.sum(x * x, axis=self.axis))\n\n    def vjp_fwd(self, nzs_in, x):\n        n = self(x)\n        return n, (x, n)\n\n    def vjp_bwd_retval(self, res, g):\n        x, n = res\n        n, g = jnp.expand_dims(n, self.axis), jnp.expand_dims(g, self.axis)\n        return (jnp.where(n > 0, x / jnp.where(n > 0, n, 1), 0) * g,)   # 0 at an all-zero vector\n\n    def batch(self, axis_data, args, dims):\n        (x,) = args\n        d = x.shape.index(axis_data.size)\n        x = jnp.moveaxis(x, d, 0)\n        return Norm(jax.typeof(x), self.axis + 1)(x), 0\n\ndef norm(x, axis=-1):\n    return Norm(jax.typeof(x), axis % jnp.ndim(x))(x)\n'),
]
WRONG['ex1_answer'] += [
    W('f', 'mask kept in a module-level variable, not a residual: two FakeQuants in one program share it',
      '_last_inside = None\n\nclass FakeQuant(HiPrim):\n    """x rounded to the grid scale * k, for an integer k from -levels to levels."""\n    def __init__(self, x_aval, scale_aval, levels):\n        self.in_avals = (x_aval, scale_aval)\n        self.out_aval = x_aval\n        self.params = dict(levels=levels)\n        super().__init__()\n\n    def expand(self, x, scale):\n        return scale * jnp.clip(jnp.round(x / scale), -self.levels, self.levels)\n\n    def vjp_fwd(self, nzs_in, x, scale):\n        global _last_inside\n        _last_inside = jnp.abs(x) <= self.levels * scale\n        return self(x, scale), None\n\n    def vjp_bwd_retval(self, res, g):\n        return (jnp.where(_last_inside, g, 0), None)\n\ndef fake_quant(x, scale, levels=7):\n    return FakeQuant(jax.typeof(x), jax.typeof(scale), levels)(x, scale)\n'),
]
RIGHT.setdefault('ex1_answer', []).extend([
    R("zeros of scale's shape as its cotangent, which the text allows beside None",
      'class FakeQuant(HiPrim):\n    """x rounded to the grid scale * k, for an integer k from -levels to levels."""\n    def __init__(self, x_aval, scale_aval, levels):\n        self.in_avals = (x_aval, scale_aval)\n        self.out_aval = x_aval\n        self.params = dict(levels=levels)\n        super().__init__()\n\n    def expand(self, x, scale):\n        return scale * jnp.clip(jnp.round(x / scale), -self.levels, self.levels)\n\n    def vjp_fwd(self, nzs_in, x, scale):\n        return self(x, scale), (jnp.abs(x) <= self.levels * scale, jnp.zeros_like(scale))\n\n    def vjp_bwd_retval(self, res, g):\n        inside, scale_zero = res\n        return (jnp.where(inside, g, 0), scale_zero)\n\ndef fake_quant(x, scale, levels=7):\n    return FakeQuant(jax.typeof(x), jax.typeof(scale), levels)(x, scale)\n'),
])


# A third fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex3_answer'] += [
    W('m', 'one Norm per example (a loop over the batch, stacked): the text asks for one Norm applied to the whole batched array',
      'class Norm(HiPrim):\n    """The Euclidean norm of x along a static axis; its gradient at an all-zero vector is 0."""\n    def __init__(self, x_aval, axis):\n        self.in_avals, self.params = (x_aval,), dict(axis=axis)\n        self.out_aval = ShapedArray(x_aval.shape[:axis] + x_aval.shape[axis + 1:], x_aval.dtype)\n        super().__init__()\n\n    def expand(self, x):\n        return jnp.sqrt(jnp.sum(x * x, axis=self.axis))\n\n    def vjp_fwd(self, nzs_in, x):\n        n = self(x)\n        return n, (x, n)\n\n    def vjp_bwd_retval(self, res, g):\n        x, n = res\n        n, g = jnp.expand_dims(n, self.axis), jnp.expand_dims(g, self.axis)\n        return (jnp.where(n > 0, x / jnp.where(n > 0, n, 1), 0) * g,)   # 0 at an all-zero vector\n\n    def batch(self, axis_data, args, dims):\n        (x,), (d,) = args, dims\n        rows = [jax.lax.index_in_dim(x, i, d, keepdims=False) for i in range(axis_data.size)]\n        return jnp.stack([Norm(jax.typeof(r), self.axis)(r) for r in rows]), 0\n\ndef norm(x, axis=-1):\n    return Norm(jax.typeof(x), axis % jnp.ndim(x))(x)\n'),
]


# A seventh fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex3_answer'] += [
    W('c', 'builds the instance from the type before moving the batch axis: a wrong declared type',
      'class Norm(HiPrim):\n    """The Euclidean norm of x along a static axis; its gradient at an all-zero vector is 0."""\n    def __init__(self, x_aval, axis):\n        self.in_avals, self.params = (x_aval,), dict(axis=axis)\n        self.out_aval = ShapedArray(x_aval.shape[:axis] + x_aval.shape[axis + 1:], x_aval.dtype)\n        super().__init__()\n\n    def expand(self, x):\n        return jnp.sqrt(jnp.sum(x * x, axis=self.axis))\n\n    def vjp_fwd(self, nzs_in, x):\n        n = self(x)\n        return n, (x, n)\n\n    def vjp_bwd_retval(self, res, g):\n        x, n = res\n        n, g = jnp.expand_dims(n, self.axis), jnp.expand_dims(g, self.axis)\n        return (jnp.where(n > 0, x / jnp.where(n > 0, n, 1), 0) * g,)   # 0 at an all-zero vector\n\n    def batch(self, axis_data, args, dims):\n        (x,), (d,) = args, dims\n        aval = jax.typeof(x)\n        x = jnp.moveaxis(x, d, 0)\n        return Norm(aval, self.axis + 1)(x), 0\n\ndef norm(x, axis=-1):\n    return Norm(jax.typeof(x), axis % jnp.ndim(x))(x)\n'),
]


# An eighth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex1_answer'] += [
    W('f', 'keeps the mask on the instance (self) instead of in the residuals',
      'class FakeQuant(HiPrim):\n    """x rounded to the grid scale * k, for an integer k from -levels to levels."""\n    def __init__(self, x_aval, scale_aval, levels):\n        self.in_avals = (x_aval, scale_aval)\n        self.out_aval = x_aval\n        self.params = dict(levels=levels)\n        super().__init__()\n\n    def expand(self, x, scale):\n        return scale * jnp.clip(jnp.round(x / scale), -self.levels, self.levels)\n\n    def vjp_fwd(self, nzs_in, x, scale):\n        object.__setattr__(self, "_bl9_mask", jnp.abs(x) <= self.levels * scale)\n        return self(x, scale), None\n\n    def vjp_bwd_retval(self, res, g):\n        return (jnp.where(self._bl9_mask, g, jnp.zeros_like(g)), None)\n\ndef fake_quant(x, scale, levels=7):\n    return FakeQuant(jax.typeof(x), jax.typeof(scale), levels)(x, scale)\n'),
]
RIGHT.setdefault('ex4_answer', []).extend([
    R("transpose builds its instance for x's declared type (self.in_avals[0]), which is ct's type in every call",
      'class ScaledCumsum(HiPrim):\n    """scale * the running sum of x along a static axis (from the end when reverse is True)."""\n    def __init__(self, x_aval, axis, scale, reverse):\n        self.in_avals = (x_aval,)\n        self.out_aval = x_aval\n        self.params = dict(axis=axis, scale=scale, reverse=reverse)\n        super().__init__()\n\n    def expand(self, x):\n        return self.scale * jax.lax.cumsum(x, self.axis, reverse=self.reverse)\n\n    def batch(self, axis_data, args, dims):\n        return vmap_rule(axis_data, self.expand, dims, 0)(*args), 0\n\n    lin, linearized = linearize_from_jvp\n    vjp_fwd, vjp_bwd_retval = vjp_from_lin\n\n    def jvp(self, primals, tangents):\n        (x,), (x_dot,) = primals, tangents\n        y = self(x)\n        if isinstance(x_dot, Zero):\n            return y, Zero(self.out_aval.to_tangent_aval())\n        return y, ScaledCumsum(jax.typeof(x_dot), self.axis, self.scale, self.reverse)(x_dot)\n\n    def transpose(self, ct, x_acc):\n        x_acc.accum(ScaledCumsum(self.in_avals[0], self.axis, self.scale, not self.reverse)(ct))\n\ndef scaled_cumsum(x, axis=0, scale=1.0, reverse=False):\n    return ScaledCumsum(jax.typeof(x), axis % jnp.ndim(x), scale, reverse)(x)\n'),
])


# A ninth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
RIGHT.setdefault('ex5_answer', []).extend([
    R('jax.vjp of f at (x*, theta) taken inside the adjoint loop step and once after it (traced once per place, one while loop, no Jacobian)',
      'def iterate(step, x0, tol, max_iter):\n    """Apply step from x0 until no entry changes by more than tol, or max_iter times."""\n    def one_step(state):\n        i, x, _ = state\n        x_new = step(x)\n        return i + 1, x_new, jnp.max(jnp.abs(x_new - x))\n    not_done = lambda state: (state[0] < max_iter) & (state[2] > tol)\n    return jax.lax.while_loop(not_done, one_step, (0, x0, jnp.asarray(jnp.inf, x0.dtype)))[1]\n\nclass FixedPoint(HiPrim):\n    """x* = f(x*, theta), found by iterating f from x0."""\n    def __init__(self, theta_aval, x0_aval, f, tol, max_iter):\n        self.in_avals, self.out_aval = (theta_aval, x0_aval), x0_aval\n        self.params = dict(_f=f, tol=tol, max_iter=max_iter)\n        super().__init__()\n\n    def expand(self, theta, x0):\n        return iterate(lambda x: self._f(x, theta), x0, self.tol, self.max_iter)\n\n    def vjp_fwd(self, nzs_in, theta, x0):\n        x_star = self(theta, x0)\n        return x_star, (theta, x_star)\n\n    def vjp_bwd_retval(self, res, g):\n        theta, x_star = res\n        def step(u):\n            return g + jax.vjp(self._f, x_star, theta)[1](u)[0]\n        u = iterate(step, g, self.tol, self.max_iter)\n        return jax.vjp(self._f, x_star, theta)[1](u)[1], None\n\ndef fixed_point(f, theta, x0, tol=1e-6, max_iter=500):\n    return FixedPoint(jax.tree.map(jax.typeof, theta), jax.typeof(x0), f, tol, max_iter)(theta, x0)\n'),
])


# A tenth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
RIGHT.setdefault('ex2_answer', []).extend([
    R('negative rows left as they are on the RefAccum path (a Ref takes a negative index as Python does)',
      'class WeightedRows(HiPrim):\n    """out[j] = w[j] * table[rows[j]], for a static tuple of row indices (repeats allowed)."""\n    def __init__(self, table_aval, w_aval, rows):\n        self.in_avals = (table_aval, w_aval)\n        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)\n        self.params = dict(rows=tuple(rows))\n        super().__init__()\n\n    def expand(self, table, w):\n        return w[:, None] * table[jnp.array(self.rows)]\n\n    def vjp_fwd(self, nzs_in, table, w):\n        return self(table, w), (table, w)\n\n    def vjp_bwd(self, res, g, table_acc, w_acc):\n        table, w = res\n        n = table.shape[0]\n        rows = [r % n for r in self.rows]\n        idx = jnp.array(rows)\n        w_acc.accum(jnp.sum(g * table[idx], axis=1))\n        if isinstance(table_acc, NullAccum):\n            return None\n        if isinstance(table_acc, RefAccum):\n            for j, r in enumerate(self.rows):\n                table_acc.ref[r] += w[j] * g[j]\n            return None\n        table_acc.accum(jnp.zeros(table_acc.aval.shape, table_acc.aval.dtype).at[idx].add(w[:, None] * g))\n        return None\n\ndef weighted_rows(table, w, rows):\n    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)'),
])
