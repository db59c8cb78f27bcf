"""Wrong answers for 03_callbacks (see tests/wrong_answers/__init__.py)."""

from wrong_answers import R, W

APPLIES = {'ex1_answer': 'bcefgm', 'ex2_answer': 'bcdefgm', 'ex3_answer': 'bcdefgm', 'quiz_answer': 'm'}

WRONG = {
    'ex1_answer': [
        W('m', 'A tap is a side effect, so io_callback looks right; but it has no derivative, and grad fails.',
          'def tap(x, sink):\n'
          '    io_callback(lambda v: sink.append(np.asarray(v)), None, x)\n'
          '    return x\n'),
        W('m', 'The right callback kind, but it appends the jax.Array it receives, not a NumPy array.',
          'def tap(x, sink):\n'
          '    jax.debug.callback(lambda v: sink.append(v), x)\n'
          '    return x\n'),
        W('m', "ordered io_callback: jit and unused result fine, vmap raises 'Cannot vmap ordered IO callback', grad raises",
          'def tap(x, sink):\n'
          '    io_callback(lambda v: sink.append(np.asarray(v)), None, x, ordered=True)\n'
          '    return x\n'),
        W('m', 'pure_callback (sequential) returning x: vmap fine, but nothing recorded when the result is unused, and grad raises',
          'def tap(x, sink):\n'
          '    def record(v):\n'
          '        sink.append(np.asarray(v))\n'
          '        return np.asarray(v)\n'
          '    return jax.pure_callback(record, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="sequential")\n'),
        W('m', 'appends the host argument as it comes: entries are jax.Array (ArrayImpl), not np.ndarray',
          'def tap(x, sink):\n'
          '    jax.debug.callback(sink.append, x)\n'
          '    return x\n'),
        W('m', 'plain Python append of np.asarray(x): fine eagerly, TracerArrayConversionError under jit, vmap and grad',
          'def tap(x, sink):\n'
          '    sink.append(np.asarray(x))\n'
          '    return x\n'),
        W('e', 'pure_callback with expand_dims in a custom_jvp: grad and jit fine, but vmap records one entry for the whole batch (and unused records nothing)',
          'def tap(x, sink):\n'
          '    def record(v):\n'
          '        sink.append(np.asarray(v))\n'
          '        return np.asarray(v)\n'
          '\n'
          '    @jax.custom_jvp\n'
          '    def ident(v):\n'
          '        return jax.pure_callback(record, jax.ShapeDtypeStruct(v.shape, v.dtype), v, vmap_method="expand_dims")\n'
          '\n'
          '    ident.defjvp(lambda p, t: (ident(p[0]), t[0]))\n'
          '    return ident(x)\n'),
        W('c', 'ravels the value: 1-D entries right, a 0-d x is recorded as shape (1,) and a 2-D x flattened',
          'def tap(x, sink):\n'
          '    jax.debug.callback(lambda v: sink.append(np.asarray(v).ravel()), x)\n'
          '    return x\n'),
        W('g', 'records np.asarray(v, float32), the dtype of the examples: an int32 x is logged as float32',
          'def tap(x, sink):\n'
          '    jax.debug.callback(lambda v: sink.append(np.asarray(v, dtype=np.float32)), x)\n'
          '    return x\n'),
        W('f', 'hands the copy to a worker thread: effects_barrier does not wait for it, so entries (of 32 scan steps of 1 MB, say) can still be missing after the barrier',
          'from concurrent.futures import ThreadPoolExecutor\n'
          '\n'
          '_copier = ThreadPoolExecutor(max_workers=1)   # copy on a worker so the compiled program is not held up\n'
          '\n'
          'def tap(x, sink):\n'
          '    def record(v):\n'
          '        _copier.submit(lambda: sink.append(np.array(v)))\n'
          '    jax.debug.callback(record, x)\n'
          '    return x\n'),
        W('m', 'io_callback instead of jax.debug.callback: jit, vmap over axis 1 and an unused result all log, but jax.grad raises ValueError',
          'def tap(x, sink):\n'
          '    # io_callback: has side effects, so jit never drops it, and it runs per example under vmap\n'
          '    io_callback(lambda v: sink.append(np.asarray(v)), None, x)\n'
          '    return x\n'),
        W('f', 'the callback queues the value for a background thread that appends it: right after jax.effects_barrier() an entry is sometimes missing',
          'import queue\n'
          'import threading\n'
          '\n'
          '_pending = queue.Queue()\n'
          '\n'
          'def _writer():\n'
          '    while True:\n'
          '        sink, value = _pending.get()\n'
          '        sink.append(value)\n'
          '\n'
          'threading.Thread(target=_writer, daemon=True).start()\n'
          '\n'
          'def tap(x, sink):\n'
          '    # hand the value to a background writer, so that the compiled program never waits on the list\n'
          '    jax.debug.callback(lambda v: _pending.put((sink, np.asarray(v))), x)\n'
          '    return x\n'),
        W('c', 'squeezes every logged value: right for the visible shapes, but a (1, 3) input is logged with shape (3,)',
          'def tap(x, sink):\n'
          '    # squeeze away the batch dimension vmap may add\n'
          '    jax.debug.callback(lambda v: sink.append(np.asarray(v).squeeze()), x)\n'
          '    return x\n'),
        W('m', 'returns jax.lax.stop_gradient(x): the log is right, but the gradient through tap becomes zero instead of passing through',
          'def tap(x, sink):\n'
          '    jax.debug.callback(lambda v: sink.append(np.asarray(v)), x)\n'
          '    return jax.lax.stop_gradient(x)       # a tap only looks: keep it out of the gradient\n'),
    ],
    'ex2_answer': [
        W('m', "Section 6's pitfall: an unordered callback. One run on this CPU logs in order anyway, but the program has no ordered effect and no token, so nothing promises that order.",
          'def run_logged(step, x0, n):\n'
          '    log = []\n'
          '    def body(i, x):\n'
          '        x = step(x)\n'
          '        jax.debug.callback(lambda v: log.append(np.array(v)), x)\n'
          '        return x\n'
          '    final = jax.jit(lambda x: jax.lax.fori_loop(0, n, body, x))(x0)\n'
          '    jax.effects_barrier()\n'
          '    return final, log\n'),
        W('f', "The log lives outside the function, so a second call returns the first call's entries too.",
          'shared_log = []\n'
          '\n'
          'def run_logged(step, x0, n):\n'
          '    def body(i, x):\n'
          '        x = step(x)\n'
          '        io_callback(lambda v: shared_log.append(np.asarray(v)), None, x, ordered=True)\n'
          '        return x\n'
          '    final = jax.jit(lambda x: jax.lax.fori_loop(0, n, body, x))(x0)\n'
          '    jax.effects_barrier()\n'
          '    return final, shared_log\n'),
        W('m', 'Logs the state before each step instead of after it: x0, then steps 1 to n - 1.',
          'def run_logged(step, x0, n):\n'
          '    log = []\n'
          '    def body(i, x):\n'
          '        io_callback(lambda v: log.append(np.array(v)), None, x, ordered=True)\n'
          '        return step(x)\n'
          '    final = jax.jit(lambda x: jax.lax.fori_loop(0, n, body, x))(x0)\n'
          '    jax.effects_barrier()\n'
          '    return final, log\n'),
        W('m', 'io_callback without ordered=True: one run logs in order, but the jaxpr has IO, not OrderedIO (and no token)',
          'def run_logged(step, x0, n):\n'
          '    log = []\n'
          '\n'
          '    def body(i, x):\n'
          '        x = step(x)\n'
          '        io_callback(lambda s: log.append(np.array(s)), None, x)\n'
          '        return x\n'
          '\n'
          '    final = jax.jit(lambda x: jax.lax.fori_loop(0, n, body, x))(x0)\n'
          '    jax.effects_barrier()\n'
          '    return final, log\n'),
        W('m', 'logs the state before each step: log is x0..x_{n-1} instead of x_1..x_n',
          'def run_logged(step, x0, n):\n'
          '    log = []\n'
          '\n'
          '    def body(i, x):\n'
          '        io_callback(lambda s: log.append(np.array(s)), None, x, ordered=True)\n'
          '        return step(x)\n'
          '\n'
          '    final = jax.jit(lambda x: jax.lax.fori_loop(0, n, body, x))(x0)\n'
          '    jax.effects_barrier()\n'
          '    return final, log\n'),
        W('d', 'logs through jax.debug.callback(ordered=True): right log, but the effect is OrderedDebug and no io_callback is used',
          'def run_logged(step, x0, n):\n'
          '    log = []\n'
          '\n'
          '    def body(i, x):\n'
          '        x = step(x)\n'
          '        jax.debug.callback(lambda s: log.append(np.array(s)), x, ordered=True)\n'
          '        return x\n'
          '\n'
          '    final = jax.jit(lambda x: jax.lax.fori_loop(0, n, body, x))(x0)\n'
          '    jax.effects_barrier()\n'
          '    return final, log\n'),
        W('d', 'Python for-loop over a jitted step: right values, but no fori_loop/scan and no io_callback at all',
          'def run_logged(step, x0, n):\n'
          '    log = []\n'
          '    x = x0\n'
          '    jitted = jax.jit(step)\n'
          '    for _ in range(n):\n'
          '        x = jitted(x)\n'
          '        log.append(np.array(x))\n'
          '    return x, log\n'),
        W('f', "appends to one module-level list: the second call returns the first call's entries too (log grows 3, 7, 10, ...)",
          '_log = []\n'
          '\n'
          'def _record(state):\n'
          '    _log.append(np.array(state))\n'
          '\n'
          'def run_logged(step, x0, n):\n'
          '    def body(i, x):\n'
          '        x = step(x)\n'
          '        io_callback(_record, None, x, ordered=True)\n'
          '        return x\n'
          '\n'
          '    final = jax.jit(lambda x: jax.lax.fori_loop(0, n, body, x))(x0)\n'
          '    jax.effects_barrier()\n'
          '    return final, _log\n'),
        W('f', 'mutable default argument log=[]: every call appends to, and returns, the same list',
          'def run_logged(step, x0, n, log=[]):\n'
          '    def body(i, x):\n'
          '        x = step(x)\n'
          '        io_callback(lambda s: log.append(np.array(s)), None, x, ordered=True)\n'
          '        return x\n'
          '\n'
          '    final = jax.jit(lambda x: jax.lax.fori_loop(0, n, body, x))(x0)\n'
          '    jax.effects_barrier()\n'
          '    return final, log\n'),
        W('c', 'scan then states[-1] for final: right for n >= 1, IndexError for n == 0',
          'def run_logged(step, x0, n):\n'
          '    log = []\n'
          '\n'
          '    def body(x, _):\n'
          '        x = step(x)\n'
          '        io_callback(lambda s: log.append(np.array(s)), None, x, ordered=True)\n'
          '        return x, x\n'
          '\n'
          '    _, states = jax.jit(lambda x: jax.lax.scan(body, x, None, length=n))(x0)\n'
          '    jax.effects_barrier()\n'
          '    return states[-1], log\n'),
        W('b', 'casts x0 to float32: an int32 x0 returns a float32 final and float32 log entries',
          'def run_logged(step, x0, n):\n'
          '    log = []\n'
          '\n'
          '    def body(i, x):\n'
          '        x = step(x)\n'
          '        io_callback(lambda s: log.append(np.array(s)), None, x, ordered=True)\n'
          '        return x\n'
          '\n'
          '    final = jax.jit(lambda x: jax.lax.fori_loop(0, n, body, x))(jnp.asarray(x0, jnp.float32))\n'
          '    jax.effects_barrier()\n'
          '    return final, log\n'),
        W('g', 'logs float(state), written for the scalar loop of section 3: a vector or matrix state raises in the callback',
          'def run_logged(step, x0, n):\n'
          '    log = []\n'
          '\n'
          '    def body(i, x):\n'
          '        x = step(x)\n'
          '        io_callback(lambda s: log.append(np.array(float(s))), None, x, ordered=True)\n'
          '        return x\n'
          '\n'
          '    final = jax.jit(lambda x: jax.lax.fori_loop(0, n, body, x))(x0)\n'
          '    jax.effects_barrier()\n'
          '    return final, log\n'),
        W('b', 'io_callback without ordered=True: one run logs in loop order, but the jaxpr effect is IO and the compiled program takes no token',
          'def run_logged(step, x0, n):\n'
          '    log = []\n'
          '\n'
          '    def record(state):\n'
          '        log.append(np.array(state))\n'
          '\n'
          '    def body(i, x):\n'
          '        x = step(x)\n'
          '        io_callback(record, None, x)        # the loop runs in order anyway\n'
          '        return x\n'
          '\n'
          '    final = jax.jit(lambda x: jax.lax.fori_loop(0, n, body, x))(x0)\n'
          '    jax.effects_barrier()\n'
          '    return final, log\n'),
        W('d', 'logs with jax.debug.callback(ordered=True): same log and a token, but the effect is OrderedDebug, not the ordered io_callback asked for (OrderedIO)',
          'def run_logged(step, x0, n):\n'
          '    log = []\n'
          '\n'
          '    def record(state):\n'
          '        log.append(np.array(state))\n'
          '\n'
          '    def body(i, x):\n'
          '        x = step(x)\n'
          '        jax.debug.callback(ordered=True)(record, x)     # ordered, and it never changes the result\n'
          '        return x\n'
          '\n'
          '    final = jax.jit(lambda x: jax.lax.fori_loop(0, n, body, x))(x0)\n'
          '    jax.effects_barrier()\n'
          '    return final, log\n'),
        W('f', "caches the compiled loop by (step, n), and its callback writes to the first call's log: a second call with the same step returns an empty log",
          '_loops = {}     # (step, n) -> compiled loop, so that repeated calls do not retrace\n'
          '\n'
          'def run_logged(step, x0, n):\n'
          '    log = []\n'
          '\n'
          '    def record(state):\n'
          '        log.append(np.array(state))\n'
          '\n'
          '    def body(i, x):\n'
          '        x = step(x)\n'
          '        io_callback(record, None, x, ordered=True)\n'
          '        return x\n'
          '\n'
          '    if (step, n) not in _loops:\n'
          '        _loops[(step, n)] = jax.jit(lambda x: jax.lax.fori_loop(0, n, body, x))\n'
          '    final = _loops[(step, n)](x0)\n'
          '    jax.effects_barrier()\n'
          '    return final, log\n'),
        W('c', 'scan over the states and returns states[-1] as final: right for n >= 1, IndexError for n == 0',
          'def run_logged(step, x0, n):\n'
          '    log = []\n'
          '\n'
          '    def record(state):\n'
          '        log.append(np.array(state))\n'
          '\n'
          '    def body(x, _):\n'
          '        x = step(x)\n'
          '        io_callback(record, None, x, ordered=True)\n'
          '        return x, x\n'
          '\n'
          '    states = jax.jit(lambda x: jax.lax.scan(body, x, length=n)[1])(x0)\n'
          '    jax.effects_barrier()\n'
          '    return states[-1], log             # the last state is the final one\n'),
        W('m', 'passes log.append itself to io_callback: the log holds jax.Arrays, not NumPy arrays',
          'def run_logged(step, x0, n):\n'
          '    log = []\n'
          '\n'
          '    def body(i, x):\n'
          '        x = step(x)\n'
          '        io_callback(log.append, None, x, ordered=True)\n'
          '        return x\n'
          '\n'
          '    final = jax.jit(lambda x: jax.lax.fori_loop(0, n, body, x))(x0)\n'
          '    jax.effects_barrier()\n'
          '    return final, log\n'),
    ],
    'ex3_answer': [
        W('e', 'Right shapes and dtypes, but no vmap_method: vmap raises NotImplementedError.',
          'def host_sort(x):\n'
          '    def numpy_sort(v):\n'
          '        v = np.asarray(v)\n'
          "        return np.sort(v, axis=-1), np.argsort(v, axis=-1, kind='stable').astype(np.int32)\n"
          '    shapes = (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape, jnp.int32))\n'
          '    return jax.pure_callback(numpy_sort, shapes, x)\n'),
        W('m', "Declares the indices with x's dtype instead of int32, so pure_callback refuses the result.",
          'def host_sort(x):\n'
          '    def numpy_sort(v):\n'
          '        v = np.asarray(v)\n'
          "        return np.sort(v, axis=-1), np.argsort(v, axis=-1, kind='stable').astype(np.int32)\n"
          '    shape = jax.ShapeDtypeStruct(x.shape, x.dtype)\n'
          "    return jax.pure_callback(numpy_sort, (shape, shape), x, vmap_method='expand_dims')\n"),
        W('e', 'no vmap_method: eager and jit right, vmap raises NotImplementedError',
          'def host_sort(x):\n'
          '    def numpy_sort(v):\n'
          '        v = np.asarray(v)\n'
          '        return np.sort(v, axis=-1), np.argsort(v, axis=-1, kind="stable").astype(np.int32)\n'
          '\n'
          '    shapes = (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape, jnp.int32))\n'
          '    return jax.pure_callback(numpy_sort, shapes, x)\n'),
        W('c', "argsort without kind='stable': values right, indices differ from the stable order on rows with ties (3x40 with values 0..3)",
          'def host_sort(x):\n'
          '    def numpy_sort(v):\n'
          '        v = np.asarray(v)\n'
          '        return np.sort(v, axis=-1), np.argsort(v, axis=-1).astype(np.int32)\n'
          '\n'
          '    shapes = (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape, jnp.int32))\n'
          '    return jax.pure_callback(numpy_sort, shapes, x, vmap_method="expand_dims")\n'),
        W('b', 'sorts along axis 0: right for 1-D x, wrong for 2-D x and under vmap (expand_dims puts the batch first)',
          'def host_sort(x):\n'
          '    def numpy_sort(v):\n'
          '        v = np.asarray(v)\n'
          '        return np.sort(v, axis=0), np.argsort(v, axis=0, kind="stable").astype(np.int32)\n'
          '\n'
          '    shapes = (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape, jnp.int32))\n'
          '    return jax.pure_callback(numpy_sort, shapes, x, vmap_method="expand_dims")\n'),
        W('c', 'host code written for 1-D (v[order]): right for a vector, fails for 2-D x and under vmap',
          'def host_sort(x):\n'
          '    def numpy_sort(v):\n'
          '        v = np.asarray(v)\n'
          '        order = np.argsort(v, kind="stable")\n'
          '        return v[order], order.astype(np.int32)\n'
          '\n'
          '    shapes = (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape, jnp.int32))\n'
          '    return jax.pure_callback(numpy_sort, shapes, x, vmap_method="expand_dims")\n'),
        W('d', 'jnp.sort/jnp.argsort instead of NumPy on the host: same values, but no pure_callback in the jaxpr',
          'def host_sort(x):\n'
          '    return jnp.sort(x, axis=-1), jnp.argsort(x, axis=-1, stable=True).astype(jnp.int32)\n'),
        W('d', 'io_callback instead of pure_callback: same values (vmap runs per example), but the jaxpr has io_callback, not pure_callback',
          'def host_sort(x):\n'
          '    def numpy_sort(v):\n'
          '        v = np.asarray(v)\n'
          '        return np.sort(v, axis=-1), np.argsort(v, axis=-1, kind="stable").astype(np.int32)\n'
          '\n'
          '    shapes = (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape, jnp.int32))\n'
          '    return io_callback(numpy_sort, shapes, x)\n'),
        W('g', 'hard-codes float32 for values: int32 and bfloat16 x come back with float32 values',
          'def host_sort(x):\n'
          '    def numpy_sort(v):\n'
          '        v = np.asarray(v, dtype=np.float32)\n'
          '        return np.sort(v, axis=-1), np.argsort(v, axis=-1, kind="stable").astype(np.int32)\n'
          '\n'
          '    shapes = (jax.ShapeDtypeStruct(x.shape, jnp.float32), jax.ShapeDtypeStruct(x.shape, jnp.int32))\n'
          '    return jax.pure_callback(numpy_sort, shapes, x, vmap_method="expand_dims")\n'),
        W('b', 'declares and returns the values as float32: right for float input, but int32 input comes back float32',
          'def host_sort(x):\n'
          '    def numpy_sort(v):\n'
          '        v = np.asarray(v)\n'
          '        return (np.sort(v, axis=-1).astype(np.float32),\n'
          '                np.argsort(v, axis=-1, kind="stable").astype(np.int32))\n'
          '\n'
          '    shapes = (jax.ShapeDtypeStruct(x.shape, jnp.float32), jax.ShapeDtypeStruct(x.shape, jnp.int32))\n'
          '    return jax.pure_callback(numpy_sort, shapes, x, vmap_method="expand_dims")\n'),
        W('d', 'values through pure_callback but indices from jnp.argsort on the device: same numbers, and the jaxpr also holds a jitted device sort',
          'def host_sort(x):\n'
          '    values = jax.pure_callback(lambda v: np.sort(np.asarray(v), axis=-1),\n'
          '                               jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n'
          '    indices = jnp.argsort(x, axis=-1, stable=True).astype(jnp.int32)   # the same order, no second trip to the host\n'
          '    return values, indices\n'),
        W('e', 'sorts along axis x.ndim - 1, taken from the traced x: right eagerly and under jit, but under vmap the host sorts along the batch axis',
          'def host_sort(x):\n'
          '    last = x.ndim - 1          # the axis to sort along\n'
          '\n'
          '    def numpy_sort(v):\n'
          '        v = np.asarray(v)\n'
          '        return np.sort(v, axis=last), np.argsort(v, axis=last, kind="stable").astype(np.int32)\n'
          '\n'
          '    shapes = (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape, jnp.int32))\n'
          '    return jax.pure_callback(numpy_sort, shapes, x, vmap_method="expand_dims")\n'),
        W('f', 'two pure_callbacks, the second returning indices the first left in a global: under jit with only the indices used, the first is dropped and stale indices come back',
          '_last = {}      # the indices the values callback computed, for the indices callback\n'
          '\n'
          'def host_sort(x):\n'
          '    def values_on_host(v):\n'
          '        v = np.asarray(v)\n'
          '        order = np.argsort(v, axis=-1, kind="stable")\n'
          '        _last["indices"] = order.astype(np.int32)\n'
          '        return np.take_along_axis(v, order, axis=-1)\n'
          '\n'
          '    def indices_on_host(v):\n'
          '        return _last["indices"]                    # sorted once, in the values callback\n'
          '\n'
          '    values = jax.pure_callback(values_on_host, jax.ShapeDtypeStruct(x.shape, x.dtype), x,\n'
          '                               vmap_method="expand_dims")\n'
          '    indices = jax.pure_callback(indices_on_host, jax.ShapeDtypeStruct(x.shape, jnp.int32), x,\n'
          '                                vmap_method="expand_dims")\n'
          '    return values, indices\n'),
    ],
    'quiz_answer': [
        W('m', 'Takes ordered=True under vmap to mean "one call per example, in batch order".',
          'q1 = "c"\n'
          'q2 = "a"\n'
          'q3 = "b"\n'
          'q4 = "c"\n'),
        W('m', 'q3=a: thinks host functions receive NumPy arrays',
          'q1 = "c"\n'
          'q2 = "b"\n'
          'q3 = "a"\n'
          'q4 = "c"\n'),
        W('m', 'q1=b: thinks an unused io_callback is dropped (only pure_callback is)',
          'q1 = "b"\n'
          'q2 = "b"\n'
          'q3 = "b"\n'
          'q4 = "c"\n'),
        W('m', 'q4=a: thinks jax.debug.callback under grad sees the cotangent',
          'q1 = "c"\n'
          'q2 = "b"\n'
          'q3 = "b"\n'
          'q4 = "a"\n'),
        W('m', 'q1=a, q2=c, q4=b: mixes up which kinds run when unused, under vmap and under grad',
          'q1 = "a"\n'
          'q2 = "c"\n'
          'q3 = "b"\n'
          'q4 = "b"\n'),
        W('m', 'q1=a: believes the debugging callback is the one jit drops as dead code (it is pure_callback, which has no effect)',
          'q1 = "a"\n'
          'q2 = "b"\n'
          'q3 = "b"\n'
          'q4 = "c"\n'),
    ],
}

# Round 3: written from the chapter's text alone (its test cells removed), before its checks were read;
# each passed every visible check, and some scored full marks, until the checks were made to catch them.
WRONG['ex2_answer'] += [
    W('c', 'n == 0 short-cut returns x0 itself (a NumPy x0 stays NumPy, not a jax.Array)',
      'def run_logged(step, x0, n):\n    if n == 0:\n        return x0, []\n    log = []\n\n    def record(state):\n        log.append(np.array(state))\n\n    def body(i, x):\n        x = step(x)\n        io_callback(record, None, x, ordered=True)\n        return x\n\n    final = jax.jit(lambda x: jax.lax.fori_loop(0, n, body, x))(x0)\n    jax.effects_barrier()\n    return final, log\n'),
    W('b', "x0 donated to the jitted loop: the caller's x0 is deleted after the call",
      'def run_logged(step, x0, n):\n    log = []\n\n    def record(state):\n        log.append(np.array(state))\n\n    def body(i, x):\n        x = step(x)\n        io_callback(record, None, x, ordered=True)\n        return x\n\n    final = jax.jit(lambda x: jax.lax.fori_loop(0, n, body, x), donate_argnums=0)(jnp.asarray(x0))\n    jax.effects_barrier()\n    return final, log\n'),
]
WRONG['ex3_answer'] += [
    W('c', 'indices carried back in the dtype of x and cast in JAX: wrong past 127 for int8, 2048 for float16',
      'def host_sort(x):\n    def host(v):\n        v = np.asarray(v)\n        return np.sort(v, axis=-1), np.argsort(v, axis=-1, kind="stable").astype(v.dtype)\n\n    shapes = (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape, x.dtype))\n    values, indices = jax.pure_callback(host, shapes, x, vmap_method="expand_dims")\n    return values, indices.astype(jnp.int32)\n'),
    W('c', 'sorts along axis 1 when there are two or more axes: right for 1-D and 2-D, wrong for 3-D and for a vmapped matrix',
      'def host_sort(x):\n    def host(v):\n        v = np.asarray(v)\n        return np.sort(v, axis=min(v.ndim - 1, 1)), np.argsort(v, axis=min(v.ndim - 1, 1), kind="stable").astype(np.int32)\n\n    shapes = (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape, jnp.int32))\n    return jax.pure_callback(host, shapes, x, vmap_method="expand_dims")\n'),
    W('c', 'indices declared as int16 to save memory, cast back to int32 in JAX: wrong past 32767 elements',
      'def host_sort(x):\n    def host(v):\n        v = np.asarray(v)\n        return np.sort(v, axis=-1), np.argsort(v, axis=-1, kind="stable").astype(np.int16)\n\n    shapes = (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape, jnp.int16))\n    values, indices = jax.pure_callback(host, shapes, x, vmap_method="expand_dims")\n    return values, indices.astype(jnp.int32)\n'),
    W('c', 'indices as uint8 then widened: wrong past 255 elements',
      'def host_sort(x):\n    def host(v):\n        v = np.asarray(v)\n        return np.sort(v, axis=-1), np.argsort(v, axis=-1, kind="stable").astype(np.uint8)\n\n    shapes = (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape, jnp.uint8))\n    values, indices = jax.pure_callback(host, shapes, x, vmap_method="expand_dims")\n    return values, indices.astype(jnp.int32)\n'),
]

# Round 3: written from the chapter's text alone (its test cells removed), before its checks were read;
# each passed every visible check, and some scored full marks, until the checks were made to catch them.
WRONG['ex2_answer'] += [
    W('f', 'module-level log cleared on each call and returned as a copy: right for serial calls, mixes logs of concurrent calls',
      '_log = []\n\ndef run_logged(step, x0, n):\n    _log.clear()\n\n    def record(state):\n        _log.append(np.array(state))\n\n    def body(i, x):\n        x = step(x)\n        io_callback(record, None, x, ordered=True)\n        return x\n\n    final = jax.jit(lambda x: jax.lax.fori_loop(0, n, body, x))(x0)\n    jax.effects_barrier()\n    return final, list(_log)\n'),
]

# Round 3: written from the chapter's text alone (its test cells removed), before its checks were read;
# each passed every visible check, and some scored full marks, until the checks were made to catch them.
WRONG['ex2_answer'] += [
    W('d', 'Python for loop unrolled inside jit instead of fori_loop/scan',
      'def run_logged(step, x0, n):\n    log = []\n\n    def record(state):\n        log.append(np.array(state))\n\n    def body(i, x):\n        x = step(x)\n        io_callback(record, None, x, ordered=True)\n        return x\n\n    final = jax.jit(lambda x: [x := body(i, x) for i in range(n)][-1] if n else x)(x0)\n    jax.effects_barrier()\n    return final, log\n'),
]

# Round 4: written from the text alone, with the mistakes above listed as already caught, before the checks were read;
# each passed every visible check, and some scored full marks, until the checks were made to catch them.
WRONG['ex1_answer'] += [
    W('c', 'normalises the logged dtype to int32/float32: right for the int32 and float32 examples, wrong for int8, uint8, float16, bfloat16, bool',
      'def tap(x, sink):\n    def record(v):\n        v = np.asarray(v)\n        kind = np.int32 if np.issubdtype(v.dtype, np.integer) else np.float32\n        sink.append(v.astype(kind))\n\n    jax.debug.callback(record, x)\n    return x\n'),
    W('b', 'eager path logs and returns the host copy: outside jit tap returns a NumPy array, not x',
      'def tap(x, sink):\n    if not isinstance(x, jax.core.Tracer):   # eager: the value is already here\n        value = np.asarray(x)\n        sink.append(value)\n        return value\n    jax.debug.callback(lambda v: sink.append(np.asarray(v)), x)\n    return x\n'),
]
WRONG['ex3_answer'] += [
    W('d', 'only the indices come from the host; the values are gathered on the device with jnp.take_along_axis',
      'def host_sort(x):\n    def on_host(v):\n        return np.argsort(np.asarray(v), axis=-1, kind="stable").astype(np.int32)\n\n    indices = jax.pure_callback(on_host, jax.ShapeDtypeStruct(x.shape, jnp.int32), x, vmap_method="expand_dims")\n    values = jnp.take_along_axis(x, indices, axis=-1)\n    return values, indices\n'),
    W('c', 'sorts a float32 copy and casts the values back: int32 values above 2**24 are rounded, and their order (ties) changes',
      'def host_sort(x):\n    def on_host(v):\n        v = np.asarray(v)\n        keys = v.astype(np.float32)   # one float type for every input dtype\n        values = np.sort(keys, axis=-1).astype(v.dtype)\n        indices = np.argsort(keys, axis=-1, kind="stable").astype(np.int32)\n        return values, indices\n\n    shapes = (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape, jnp.int32))\n    return jax.pure_callback(on_host, shapes, x, vmap_method="expand_dims")\n'),
    W('b', 'eager path sorts with NumPy directly and returns NumPy arrays, not jax.Arrays',
      'def host_sort(x):\n    def on_host(v):\n        v = np.asarray(v)\n        return np.sort(v, axis=-1), np.argsort(v, axis=-1, kind="stable").astype(np.int32)\n\n    if not isinstance(x, jax.core.Tracer):   # eager: already on the host, no callback needed\n        return on_host(x)\n    shapes = (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape, jnp.int32))\n    return jax.pure_callback(on_host, shapes, x, vmap_method="expand_dims")\n'),
    W('c', 'squeezes the size-1 axes it thinks expand_dims added, then reshapes back: a (n, 1) x is sorted down the column',
      'def host_sort(x):\n    def on_host(v):\n        v = np.asarray(v)\n        core = np.squeeze(v)   # drop the size-1 axes that expand_dims adds\n        values = np.sort(core, axis=-1).reshape(v.shape)\n        indices = np.argsort(core, axis=-1, kind="stable").astype(np.int32).reshape(v.shape)\n        return values, indices\n\n    shapes = (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape, jnp.int32))\n    return jax.pure_callback(on_host, shapes, x, vmap_method="expand_dims")\n'),
]

# Round 5: written from the text alone; on this CPU its log is complete when the jitted call returns, so it
# scored full marks until the checks looked for the barrier the text asks for.
WRONG['ex2_answer'] += [
    W('f', 'never waits for the callbacks (no jax.effects_barrier()): the log is complete on this CPU, where the '
           'jitted call returns after its callbacks ran, but JAX does not promise that',
      'def run_logged(step, x0, n):\n'
      '    log = []\n'
      '\n'
      '    def record(state):\n'
      '        log.append(np.array(state))\n'
      '\n'
      '    def body(i, x):\n'
      '        x = step(x)\n'
      '        io_callback(record, None, x, ordered=True)\n'
      '        return x\n'
      '\n'
      '    final = jax.jit(lambda x: jax.lax.fori_loop(0, n, body, x))(x0)\n'
      '    return final, log\n'),
]
WRONG['ex2_answer'] += [
    W('f', 'calls jax.effects_barrier() before the jitted loop runs, not after: it waits for earlier calls\' '
           'callbacks, never for this loop\'s',
      'def run_logged(step, x0, n):\n'
      '    log = []\n'
      '\n'
      '    def record(state):\n'
      '        log.append(np.array(state))\n'
      '\n'
      '    def body(i, x):\n'
      '        x = step(x)\n'
      '        io_callback(record, None, x, ordered=True)\n'
      '        return x\n'
      '\n'
      '    jax.effects_barrier()\n'
      '    final = jax.jit(lambda x: jax.lax.fori_loop(0, n, body, x))(x0)\n'
      '    return final, log\n'),
]

# Round 6: written from the text alone by a reviewer who saw none of the checks; each earned full marks until a
# visible check looked for it (a compiled tap called again after another sink; the log inside jax.jit, as the loop runs).
WRONG['ex1_answer'] += [
    W('f', "taps through a module-level 'current sink' that each call of tap overwrites: a compiled function called again after tap ran with another sink logs into that other sink",
      '_current = {"sink": None}\n\ndef _log(v):\n    _current["sink"].append(np.array(v))\n\ndef tap(x, sink):\n    _current["sink"] = sink\n    jax.debug.callback(_log, x)\n    return x\n'),
]
WRONG['ex2_answer'] += [
    W('d', "keeps an ordered io_callback that does nothing (for the effect and the token) and builds the log from scan's stacked states: inside jax.jit the log stays empty",
      'def run_logged(step, x0, n):\n    def body(x, _):\n        x = step(x)\n        io_callback(lambda v: None, None, x, ordered=True)\n        return x, x\n    final, states = jax.jit(lambda x: jax.lax.scan(body, x, None, length=n))(x0)\n    jax.effects_barrier()\n    if isinstance(states, jax.core.Tracer):\n        return final, []\n    return final, [np.asarray(s) for s in states]\n'),
    W('m', 'collects the states with scan and logs them all from one ordered io_callback after the loop, not each state as its step is done',
      'def run_logged(step, x0, n):\n    log = []\n    def record(states):\n        log.extend(np.array(s) for s in states)\n    def body(x, _):\n        x = step(x)\n        return x, x\n    def run(x):\n        final, states = jax.lax.scan(body, x, None, length=n)\n        io_callback(record, None, states, ordered=True)\n        return final\n    final = jax.jit(run)(x0)\n    jax.effects_barrier()\n    return final, log\n'),
]

# Round 7: written from the text alone by a reviewer who had not read the checks; the first two lost their points only
# to hidden checks, the third earned full marks, until visible checks logged a 0-d and a matrix state and called the
# host function as JAX calls it, wanting NumPy arrays back.
WRONG['ex2_answer'] += [
    W('c', 'logs np.atleast_1d(state): a 0-d state is logged with shape (1,)',
      'def run_logged(step, x0, n):\n'
      '    log = []\n'
      '    def body(i, x):\n'
      '        x = step(x)\n'
      '        io_callback(lambda v: log.append(np.atleast_1d(np.asarray(v))), None, x, ordered=True)\n'
      '        return x\n'
      '    final = jax.jit(lambda x: jax.lax.fori_loop(0, n, body, x))(x0)\n'
      '    jax.effects_barrier()\n'
      '    return final, log\n'),
    W('c', 'logs each state flattened (ravel): vectors right, a 0-d state logged as (1,), a matrix state as a vector',
      'def run_logged(step, x0, n):\n'
      '    log = []\n'
      '    def record(state):\n'
      '        log.append(np.array(state).ravel())\n'
      '    def body(i, x):\n'
      '        x = step(x)\n'
      '        io_callback(record, None, x, ordered=True)\n'
      '        return x\n'
      '    final = jax.jit(lambda x: jax.lax.fori_loop(0, n, body, x))(x0)\n'
      '    jax.effects_barrier()\n'
      '    return final, log\n'),
]
WRONG['ex3_answer'] += [
    W('d', 'sorts with jnp inside the host function (a JAX sort run from the callback), not NumPy',
      'def host_sort(x):\n'
      '    def host(a):\n'
      '        return jnp.sort(a, axis=-1), jnp.argsort(a, axis=-1, stable=True).astype(jnp.int32)\n'
      '    spec = (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape, jnp.int32))\n'
      '    return jax.pure_callback(host, spec, x, vmap_method="expand_dims")\n'),
]

# Round 9: found by reviewers who read only the learner's notebook.
WRONG['ex1_answer'] += [
    W('c', 'converts with np.from_dlpack (the chapter 02 way) instead of np.asarray: right for every dtype NumPy reads through DLPack, BufferError in the callback for bfloat16',
      'def tap(x, sink):\n    jax.debug.callback(lambda v: sink.append(np.from_dlpack(v)), x)\n    return x\n'),
]
WRONG['ex2_answer'] += [
    W('e', 'waits, then returns a copy of the log (list(log)) so that no later call can touch it: right eagerly, but called inside jax.jit the copy is empty and never fills',
      'def run_logged(step, x0, n):\n    log = []\n    def record(state):\n        log.append(np.asarray(state))\n    def body(i, x):\n        x = step(x)\n        io_callback(record, None, x, ordered=True)\n        return x\n    final = jax.jit(lambda x: jax.lax.fori_loop(0, n, body, x))(x0)\n    jax.effects_barrier()\n    return final, list(log)\n'),
    W('e', 'the callback appends the jax.Array as it comes and the list is converted to NumPy after the barrier: right eagerly, inside jax.jit the converted list is empty for good',
      'def run_logged(step, x0, n):\n    raw = []\n    def body(i, x):\n        x = step(x)\n        io_callback(raw.append, None, x, ordered=True)\n        return x\n    final = jax.jit(lambda x: jax.lax.fori_loop(0, n, body, x))(x0)\n    jax.effects_barrier()\n    return final, [np.asarray(v) for v in raw]\n'),
]
WRONG['ex3_answer'] += [
    W('c', "sorts in float64 on the host like section 4's float64_cumsum, casting back to x's dtype: right for real dtypes, a complex x loses its imaginary parts",
      'def host_sort(x):\n    def on_host(v):\n        v = np.asarray(v)\n        wide = v.astype(np.float64)\n        return (np.sort(wide, axis=-1).astype(v.dtype),\n                np.argsort(wide, axis=-1, kind="stable").astype(np.int32))\n    shapes = (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape, jnp.int32))\n    return jax.pure_callback(on_host, shapes, x, vmap_method="expand_dims")\n'),
    W('f', 'argsorts once in an indices callback that leaves the sorted values in a global for a second pure_callback to return: under jit with only the values used, the indices callback is dropped and stale values come back',
      '_last_sorted = {}\n\ndef host_sort(x):\n    def host_indices(v):\n        v = np.asarray(v)\n        order = np.argsort(v, axis=-1, kind="stable")\n        _last_sorted["values"] = np.take_along_axis(v, order, axis=-1)\n        return order.astype(np.int32)\n    def host_values(v):\n        return _last_sorted["values"]\n    indices = jax.pure_callback(host_indices, jax.ShapeDtypeStruct(x.shape, jnp.int32), x, vmap_method="expand_dims")\n    values = jax.pure_callback(host_values, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n    return values, indices\n'),
    W('m', 'sorts the host copy in place first, then argsorts the already sorted copy: values right, indices always 0..n-1',
      'def host_sort(x):\n    def on_host(v):\n        v = np.array(v)\n        v.sort(axis=-1)\n        return v, np.argsort(v, axis=-1, kind="stable").astype(np.int32)\n    shapes = (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape, jnp.int32))\n    return jax.pure_callback(on_host, shapes, x, vmap_method="expand_dims")\n'),
]

# Issue #50: the host function sorted with jnp and handed back np.asarray of the result, so NumPy arrays came back while
# JAX did the sort; it earned full marks until a visible check watched for JAX operations while the host function ran.
WRONG['ex3_answer'] += [
    W('d', 'sorts with jnp inside the host function and returns np.asarray of the results: NumPy arrays come back, but JAX sorted',
      'def host_sort(x):\n'
      '    def host(a):\n'
      '        return np.asarray(jnp.sort(a, axis=-1)), np.asarray(jnp.argsort(a, axis=-1, stable=True).astype(jnp.int32))\n'
      '    spec = (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape, jnp.int32))\n'
      '    return jax.pure_callback(host, spec, x, vmap_method="expand_dims")\n'),
    W('d', 'sorts with the jax.Array\'s own methods (a.sort(), a.argsort()) in the host function, then converts: JAX sorts on the host',
      'def host_sort(x):\n'
      '    def host(a):\n'
      '        return np.asarray(a.sort(axis=-1)), np.asarray(a.argsort(axis=-1, stable=True)).astype(np.int32)\n'
      '    spec = (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape, jnp.int32))\n'
      '    return jax.pure_callback(host, spec, x, vmap_method="expand_dims")\n'),
]

# Right answers written another way: each must earn full marks (tests/test_wrong_answers.py).
RIGHT = {
    'ex3_answer': [
        R('two pure_callbacks, one per output, each host function returning a NumPy array',
          'def host_sort(x):\n'
          '    values = jax.pure_callback(lambda a: np.sort(np.asarray(a), axis=-1),\n'
          '                               jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")\n'
          '    indices = jax.pure_callback(lambda a: np.argsort(np.asarray(a), axis=-1, kind="stable").astype(np.int32),\n'
          '                                jax.ShapeDtypeStruct(x.shape, jnp.int32), x, vmap_method="expand_dims")\n'
          '    return values, indices\n'),
    ],
}

# Round 9: right answers written another way.
RIGHT.setdefault('ex3_answer', []).extend([
    R('stable argsort first (kind="mergesort", NumPy\'s stable alias), values gathered from it with take_along_axis, on the host',
      'def host_sort(x):\n    def on_host(v):\n        v = np.asarray(v)\n        order = np.argsort(v, axis=-1, kind="mergesort")\n        return np.take_along_axis(v, order, axis=-1), order.astype(np.int32)\n    shapes = (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape, jnp.int32))\n    return jax.pure_callback(on_host, shapes, x, vmap_method="expand_dims")\n'),
])

# Right answers written another way, added when the checks moved to grader/selfchecks/ch03.py and began to watch for JAX
# operations inside the host function.
RIGHT.setdefault('ex1_answer', []).extend([
    R('an ordered jax.debug.callback in the two-call form, appending a copy (np.array) rather than a view',
      'def tap(x, sink):\n    jax.debug.callback(ordered=True)(lambda v: sink.append(np.array(v)), x)\n    return x\n'),
])
RIGHT.setdefault('ex2_answer', []).extend([
    R('jax.lax.scan with length=n in place of fori_loop, the host function a functools.partial of list.append over np.asarray',
      'import functools\n\ndef run_logged(step, x0, n):\n    log = []\n    def record(target, state):\n        target.append(np.asarray(state))\n    def body(x, _):\n        x = step(x)\n        io_callback(functools.partial(record, log), None, x, ordered=True)\n        return x, None\n    final, _ = jax.jit(lambda x: jax.lax.scan(body, x, None, length=n))(x0)\n    jax.effects_barrier()\n    return final, log\n'),
])
RIGHT.setdefault('ex3_answer', []).extend([
    R('hands the jax.Array straight to np.sort and np.argsort, which convert it themselves: no JAX runs on the host',
      'def host_sort(x):\n    def on_host(v):\n        return np.sort(v, axis=-1), np.argsort(v, axis=-1, kind="stable").astype(np.int32)\n    shapes = (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape, jnp.int32))\n    return jax.pure_callback(on_host, shapes, x, vmap_method="sequential")\n'),
])

# Round 12: found by a reviewer who read only the learner's notebook. A Python loop around a jitted step passed every
# check (the step was traced once, and each eager ordered io_callback has its own token); the checks now count the
# io_callbacks in the program of run_logged.
WRONG['ex2_answer'] += [
    W('d', 'a Python loop over a jitted step with an eager ordered io_callback: the loop itself is not compiled',
      'def run_logged(step, x0, n):\n    log = []\n    jstep = jax.jit(step)\n    x = jnp.asarray(x0)\n    for _ in range(n):\n        x = jstep(x)\n        io_callback(lambda v: log.append(np.asarray(v)), None, x, ordered=True)\n    jax.effects_barrier()\n    return x, log\n'),
]
RIGHT.setdefault('ex3_answer', []).extend([
    R('the host returns np.argsort as int64; with x64 off JAX gives the declared int32, as the text asks of host_sort',
      "def host_sort(x):\n    def host(a):\n        a = np.asarray(a)\n        return np.sort(a, axis=-1), np.argsort(a, axis=-1, kind='stable')\n    out = (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape, jnp.int32))\n    return jax.pure_callback(host, out, x, vmap_method='expand_dims')\n"),
])

# A fresh blind round: tap returning a copy of x (same type, values and gradient) kept full marks; the text says tap
# returns x itself, and an eager call is now checked visibly to return the very object.
WRONG['ex1_answer'] += [
    W('m', 'returns a copy of x (jnp.array(x)), not x itself as the text asks', 'def tap(x, sink):\n    jax.debug.callback(lambda v: sink.append(np.asarray(v)), x)\n    return jnp.array(x)\n'),
]


# A third fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
RIGHT.setdefault('ex2_answer', []).extend([
    R('the fori_loop runs eagerly, not under jax.jit: JAX still compiles the whole loop, its callback inside',
      'def run_logged(step, x0, n):\n    log = []\n\n    def record(state):\n        log.append(np.array(state))\n\n    def body(i, state):\n        state = step(state)\n        io_callback(record, None, state, ordered=True)\n        return state\n\n    final = jax.lax.fori_loop(0, n, body, jnp.asarray(x0))\n    jax.effects_barrier()\n    return final, log\n'),
])


# A seventh fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
RIGHT.setdefault('ex3_answer', []).extend([
    R("no np.asarray in the host function: np.argsort(kind=...) is refused by the jax.Array's own argsort, so NumPy converts the array and no JAX operation runs",
      'def _bl8_sort_host(v):\n    return np.sort(v, axis=-1), np.argsort(v, axis=-1, kind="stable").astype(np.int32)\n\ndef host_sort(x):\n    shapes = (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape, jnp.int32))\n    return jax.pure_callback(_bl8_sort_host, shapes, x, vmap_method="expand_dims")\n'),
])
RIGHT.setdefault('ex3_answer', []).extend([
    R('the host returns int64 indices where int32 is declared: with x64 off JAX canonicalizes the returned int64 to int32, so the indices are int32 as the text asks',
      'def _bl8_sort_host(v):\n    v = np.asarray(v)\n    return np.sort(v, axis=-1), np.argsort(v, axis=-1, kind="stable")\n\ndef host_sort(x):\n    shapes = (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape, jnp.int32))\n    return jax.pure_callback(_bl8_sort_host, shapes, x, vmap_method="expand_dims")\n'),
])


# An eighth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex1_answer'] += [
    W('f', "skips an entry equal to the previous one ('dedupe recomputation'): a repeated value is logged once",
      'def tap(x, sink):\n    def record(value):\n        value = np.array(value)\n        if sink and sink[-1].shape == value.shape and np.array_equal(sink[-1], value):\n            return\n        sink.append(value)\n    jax.debug.callback(record, x)\n    return x\n'),
]
