"""Plausible wrong answers for 10_hijax, two per answer cell (see tests/wrong_answers/__init__.py)."""

WRONG = {
    # The chapter's pitfall: the forward pass computes the output with jax.numpy instead of binding
    # the primitive with self(x). Values and first derivatives are right, but the primitive vanishes
    # from the gradient's jaxpr.
    "ex1_answer": ["class Normalize(HiPrim):\n"
                   "    def __init__(self, x_aval):\n"
                   "        self.in_avals = (x_aval,)\n"
                   "        self.out_aval = x_aval\n"
                   "        self.params = {}\n"
                   "        super().__init__()\n"
                   "    def expand(self, x):\n"
                   "        return x / jnp.sqrt(jnp.sum(x * x))\n"
                   "    def vjp_fwd(self, nzs_in, x):\n"
                   "        norm = jnp.sqrt(jnp.sum(x * x))\n"
                   "        y = x / norm\n"
                   "        return y, {'y': y, 'norm': norm}\n"
                   "    def vjp_bwd_retval(self, res, g):\n"
                   "        y, norm = res['y'], res['norm']\n"
                   "        return ((g - y * jnp.sum(y * g)) / norm,)\n"
                   "def normalize(x):\n"
                   "    return Normalize(jax.typeof(x))(x)\n",
                   # Binds the primitive and saves the right dict, but differentiates x / ||x|| as if ||x||
                   # were a constant: the backward rule drops the projection term -y (y . g).
                   "class Normalize(HiPrim):\n"
                   "    def __init__(self, x_aval):\n"
                   "        self.in_avals = (x_aval,)\n"
                   "        self.out_aval = x_aval\n"
                   "        self.params = {}\n"
                   "        super().__init__()\n"
                   "    def expand(self, x):\n"
                   "        return x / jnp.sqrt(jnp.sum(x * x))\n"
                   "    def vjp_fwd(self, nzs_in, x):\n"
                   "        y = self(x)\n"
                   "        return y, {'y': y, 'norm': jnp.sqrt(jnp.sum(x * x))}\n"
                   "    def vjp_bwd_retval(self, res, g):\n"
                   "        return (g / res['norm'],)\n"
                   "def normalize(x):\n"
                   "    return Normalize(jax.typeof(x))(x)\n"],
    # The chapter's pitfall: a dense cotangent pushed into every accumulator, RefAccum included.
    # The values are right, but a full (6, 3) array is built in the backward pass.
    "ex2_answer": ["class WeightedRows(HiPrim):\n"
                   "    def __init__(self, table_aval, w_aval, rows):\n"
                   "        self.in_avals = (table_aval, w_aval)\n"
                   "        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)\n"
                   "        self.params = dict(rows=tuple(rows))\n"
                   "        super().__init__()\n"
                   "    def expand(self, table, w):\n"
                   "        return w[:, None] * table[jnp.array(self.rows)]\n"
                   "    def vjp_fwd(self, nzs_in, table, w):\n"
                   "        return self(table, w), (table, w)\n"
                   "    def vjp_bwd(self, res, g, table_acc, w_acc):\n"
                   "        table, w = res\n"
                   "        w_acc.accum(jnp.sum(g * table[jnp.array(self.rows)], axis=1))\n"
                   "        dense = jnp.zeros(table_acc.aval.shape, table_acc.aval.dtype)\n"
                   "        table_acc.accum(dense.at[jnp.array(self.rows)].add(w[:, None] * g))\n"
                   "def weighted_rows(table, w, rows):\n"
                   "    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)\n",
                   # Updates the ref in place, but with one scatter indexed by the whole rows array:
                   # `ref[idx] += v` keeps only one contribution for the repeated row 4.
                   "class WeightedRows(HiPrim):\n"
                   "    def __init__(self, table_aval, w_aval, rows):\n"
                   "        self.in_avals = (table_aval, w_aval)\n"
                   "        self.out_aval = ShapedArray((len(rows), table_aval.shape[1]), table_aval.dtype)\n"
                   "        self.params = dict(rows=tuple(rows))\n"
                   "        super().__init__()\n"
                   "    def expand(self, table, w):\n"
                   "        return w[:, None] * table[jnp.array(self.rows)]\n"
                   "    def vjp_fwd(self, nzs_in, table, w):\n"
                   "        return self(table, w), (table, w)\n"
                   "    def vjp_bwd(self, res, g, table_acc, w_acc):\n"
                   "        table, w = res\n"
                   "        w_acc.accum(jnp.sum(g * table[jnp.array(self.rows)], axis=1))\n"
                   "        if isinstance(table_acc, NullAccum):\n"
                   "            return\n"
                   "        if isinstance(table_acc, RefAccum):\n"
                   "            table_acc.ref[jnp.array(self.rows)] += w[:, None] * g\n"
                   "            return\n"
                   "        dense = jnp.zeros(table_acc.aval.shape, table_acc.aval.dtype)\n"
                   "        table_acc.accum(dense.at[jnp.array(self.rows)].add(w[:, None] * g))\n"
                   "def weighted_rows(table, w, rows):\n"
                   "    return WeightedRows(jax.typeof(table), jax.typeof(w), rows)(table, w)\n"],
    # Computes with the batch axes in front but reports the input's batch axis for the output.
    "ex3_answer": ["class Outer(HiPrim):\n"
                   "    def __init__(self, u_aval, v_aval):\n"
                   "        self.in_avals = (u_aval, v_aval)\n"
                   "        self.out_aval = ShapedArray(u_aval.shape + v_aval.shape, u_aval.dtype)\n"
                   "        self.params = {}\n"
                   "        super().__init__()\n"
                   "    def expand(self, u, v):\n"
                   "        return u[:, None] * v[None, :]\n"
                   "    def vjp_fwd(self, nzs_in, u, v):\n"
                   "        return self(u, v), (u, v)\n"
                   "    def vjp_bwd_retval(self, res, g):\n"
                   "        u, v = res\n"
                   "        return (g @ v, u @ g)\n"
                   "    def batch(self, axis_data, args, dims):\n"
                   "        u, v = bdims_at_front(axis_data, args, dims)\n"
                   "        return jnp.einsum('bi,bj->bij', u, v), dims[0] if dims[0] is not None else dims[1]\n"
                   "def outer(u, v):\n"
                   "    return Outer(jax.typeof(u), jax.typeof(v))(u, v)\n",
                   # Lines the batch axes up correctly, then calls jnp.outer on the (batch, n) arrays,
                   # which flattens its inputs: a (15, 20) result instead of (5, 3, 4).
                   "class Outer(HiPrim):\n"
                   "    def __init__(self, u_aval, v_aval):\n"
                   "        self.in_avals = (u_aval, v_aval)\n"
                   "        self.out_aval = ShapedArray(u_aval.shape + v_aval.shape, u_aval.dtype)\n"
                   "        self.params = {}\n"
                   "        super().__init__()\n"
                   "    def expand(self, u, v):\n"
                   "        return u[:, None] * v[None, :]\n"
                   "    def vjp_fwd(self, nzs_in, u, v):\n"
                   "        return self(u, v), (u, v)\n"
                   "    def vjp_bwd_retval(self, res, g):\n"
                   "        u, v = res\n"
                   "        return (g @ v, u @ g)\n"
                   "    def batch(self, axis_data, args, dims):\n"
                   "        u, v = bdims_at_front(axis_data, args, dims)\n"
                   "        return jnp.outer(u, v), 0\n"
                   "def outer(u, v):\n"
                   "    return Outer(jax.typeof(u), jax.typeof(v))(u, v)\n"],
    # Believes the published description over 0.12.0.1: log keys clobber, batch_dim_rule exists.
    "quiz_answer": ['q1 = "b"\nq2 = "c"\nq3 = "a"\nq4 = "a"\nq5 = "a"\n',
                    # Expects custom_jvp habits (reverse mode derived from jvp), None for an unwanted
                    # input, and the generic call_hi_primitive name in a jaxpr.
                    'q1 = "a"\nq2 = "b"\nq3 = "b"\nq4 = "b"\nq5 = "b"\n'],
}
