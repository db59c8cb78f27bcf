"""Wrong answers for 10_hijax (see tests/wrong_answers/__init__.py)."""

from wrong_answers import W

WRONG = {
    'ex1_answer': [
        W("m", 'TODO',
          'class Normalize(HiPrim):\n'
          '    def __init__(self, x_aval):\n'
          '        self.in_avals = (x_aval,)\n'
          '        self.out_aval = x_aval\n'
          '        self.params = {}\n'
          '        super().__init__()\n'
          '    def expand(self, x):\n'
          '        return x / jnp.sqrt(jnp.sum(x * x))\n'
          '    def vjp_fwd(self, nzs_in, x):\n'
          '        norm = jnp.sqrt(jnp.sum(x * x))\n'
          '        y = x / norm\n'
          "        return y, {'y': y, 'norm': norm}\n"
          '    def vjp_bwd_retval(self, res, g):\n'
          "        y, norm = res['y'], res['norm']\n"
          '        return ((g - y * jnp.sum(y * g)) / norm,)\n'
          'def normalize(x):\n'
          '    return Normalize(jax.typeof(x))(x)\n'),
        W("m", 'Binds the primitive and saves the right dict, but differentiates x / ||x|| as if ||x|| were a constant: the backward rule drops the projection term -y (y . g).',
          'class Normalize(HiPrim):\n'
          '    def __init__(self, x_aval):\n'
          '        self.in_avals = (x_aval,)\n'
          '        self.out_aval = x_aval\n'
          '        self.params = {}\n'
          '        super().__init__()\n'
          '    def expand(self, x):\n'
          '        return x / jnp.sqrt(jnp.sum(x * x))\n'
          '    def vjp_fwd(self, nzs_in, x):\n'
          '        y = self(x)\n'
          "        return y, {'y': y, 'norm': jnp.sqrt(jnp.sum(x * x))}\n"
          '    def vjp_bwd_retval(self, res, g):\n'
          "        return (g / res['norm'],)\n"
          'def normalize(x):\n'
          '    return Normalize(jax.typeof(x))(x)\n'),
    ],
    'ex2_answer': [
        W("m", 'TODO',
          'class WeightedRows(HiPrim):\n'
          '    def __init__(self, table_aval, w_aval, rows):\n'
          '        self.in_avals = (table_aval, w_aval)\n'
          '        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)\n'
          '        self.params = dict(rows=tuple(rows))\n'
          '        super().__init__()\n'
          '    def expand(self, table, w):\n'
          '        return w[:, None] * table[jnp.array(self.rows)]\n'
          '    def vjp_fwd(self, nzs_in, table, w):\n'
          '        return self(table, w), (table, w)\n'
          '    def vjp_bwd(self, res, g, table_acc, w_acc):\n'
          '        table, w = res\n'
          '        w_acc.accum(jnp.sum(g * table[jnp.array(self.rows)], axis=1))\n'
          '        dense = jnp.zeros(table_acc.aval.shape, table_acc.aval.dtype)\n'
          '        table_acc.accum(dense.at[jnp.array(self.rows)].add(w[:, None] * g))\n'
          'def weighted_rows(table, w, rows):\n'
          '    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)\n'),
        W("m", 'Updates the ref in place, but with one scatter indexed by the whole rows array: `ref[idx] += v` keeps only one contribution for the repeated row 4.',
          'class WeightedRows(HiPrim):\n'
          '    def __init__(self, table_aval, w_aval, rows):\n'
          '        self.in_avals = (table_aval, w_aval)\n'
          '        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)\n'
          '        self.params = dict(rows=tuple(rows))\n'
          '        super().__init__()\n'
          '    def expand(self, table, w):\n'
          '        return w[:, None] * table[jnp.array(self.rows)]\n'
          '    def vjp_fwd(self, nzs_in, table, w):\n'
          '        return self(table, w), (table, w)\n'
          '    def vjp_bwd(self, res, g, table_acc, w_acc):\n'
          '        table, w = res\n'
          '        w_acc.accum(jnp.sum(g * table[jnp.array(self.rows)], axis=1))\n'
          '        if isinstance(table_acc, NullAccum):\n'
          '            return\n'
          '        if isinstance(table_acc, RefAccum):\n'
          '            table_acc.ref[jnp.array(self.rows)] += w[:, None] * g\n'
          '            return\n'
          '        dense = jnp.zeros(table_acc.aval.shape, table_acc.aval.dtype)\n'
          '        table_acc.accum(dense.at[jnp.array(self.rows)].add(w[:, None] * g))\n'
          'def weighted_rows(table, w, rows):\n'
          '    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)\n'),
    ],
    'ex3_answer': [
        W("m", 'TODO',
          'class Outer(HiPrim):\n'
          '    def __init__(self, u_aval, v_aval):\n'
          '        self.in_avals = (u_aval, v_aval)\n'
          '        self.out_aval = ShapedArray(u_aval.shape + v_aval.shape, u_aval.dtype)\n'
          '        self.params = {}\n'
          '        super().__init__()\n'
          '    def expand(self, u, v):\n'
          '        return u[:, None] * v[None, :]\n'
          '    def vjp_fwd(self, nzs_in, u, v):\n'
          '        return self(u, v), (u, v)\n'
          '    def vjp_bwd_retval(self, res, g):\n'
          '        u, v = res\n'
          '        return (g @ v, u @ g)\n'
          '    def batch(self, axis_data, args, dims):\n'
          '        u, v = bdims_at_front(axis_data, args, dims)\n'
          "        return jnp.einsum('bi,bj->bij', u, v), dims[0] if dims[0] is not None else dims[1]\n"
          'def outer(u, v):\n'
          '    return Outer(jax.typeof(u), jax.typeof(v))(u, v)\n'),
        W("m", 'Lines the batch axes up correctly, then calls jnp.outer on the (batch, n) arrays, which flattens its inputs: a (15, 20) result instead of (5, 3, 4).',
          'class Outer(HiPrim):\n'
          '    def __init__(self, u_aval, v_aval):\n'
          '        self.in_avals = (u_aval, v_aval)\n'
          '        self.out_aval = ShapedArray(u_aval.shape + v_aval.shape, u_aval.dtype)\n'
          '        self.params = {}\n'
          '        super().__init__()\n'
          '    def expand(self, u, v):\n'
          '        return u[:, None] * v[None, :]\n'
          '    def vjp_fwd(self, nzs_in, u, v):\n'
          '        return self(u, v), (u, v)\n'
          '    def vjp_bwd_retval(self, res, g):\n'
          '        u, v = res\n'
          '        return (g @ v, u @ g)\n'
          '    def batch(self, axis_data, args, dims):\n'
          '        u, v = bdims_at_front(axis_data, args, dims)\n'
          '        return jnp.outer(u, v), 0\n'
          'def outer(u, v):\n'
          '    return Outer(jax.typeof(u), jax.typeof(v))(u, v)\n'),
    ],
    'quiz_answer': [
        W("m", 'TODO',
          'q1 = "b"\n'
          'q2 = "c"\n'
          'q3 = "a"\n'
          'q4 = "a"\n'
          'q5 = "a"\n'),
        W("m", 'Expects custom_jvp habits (reverse mode derived from jvp), None for an unwanted input, and the generic call_hi_primitive name in a jaxpr.',
          'q1 = "a"\n'
          'q2 = "b"\n'
          'q3 = "b"\n'
          'q4 = "b"\n'
          'q5 = "b"\n'),
    ],
}
