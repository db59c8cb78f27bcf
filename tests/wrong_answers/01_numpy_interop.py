"""Wrong answers for 01_numpy_interop (see tests/wrong_answers/__init__.py)."""

from wrong_answers import R, W

APPLIES = {'ex1_answer': 'bcfgm', 'ex2_answer': 'bcfgm', 'ex3_answer': 'bcfgm', 'quiz_answer': 'm'}

WRONG = {
    'ex1_answer': [
        W('m', 'Allocates `align` extra bytes but forgets to slide the start to the aligned address.',
          'def aligned_copy(x, align=64):\n'
          '    raw = np.empty(x.nbytes + align, np.uint8)\n'
          '    out = raw[1:1 + x.nbytes].view(x.dtype).reshape(x.shape)\n'
          '    out[...] = x\n'
          '    return out\n'),
        W('m', 'Aligned, but the values are never copied in: the result is all zeros.',
          'def aligned_copy(x, align=64):\n'
          '    raw = np.zeros(x.nbytes + align, np.uint8)\n'
          '    start = (-raw.ctypes.data) % align\n'
          '    return raw[start:start + x.nbytes].view(x.dtype).reshape(x.shape)\n'),
        W('b', 'Hard-codes 64 for the alignment and the slack: right for align <= 64, not aligned for align=4096.',
          'def aligned_copy(x, align=64):\n'
          '    x = np.asarray(x)\n'
          '    raw = np.empty(x.nbytes + 64, dtype=np.uint8)\n'
          '    start = (-raw.ctypes.data) % 64\n'
          '    out = raw[start:start + x.nbytes].view(x.dtype).reshape(x.shape)\n'
          '    out[...] = x\n'
          '    return out\n'),
        W('c', 'Copies with out[:] = x: fine for every array with ndim >= 1, IndexError on a 0-d array.',
          'def aligned_copy(x, align=64):\n'
          '    raw = np.empty(x.nbytes + align, dtype=np.uint8)\n'
          '    start = (-raw.ctypes.data) % align\n'
          '    out = raw[start:start + x.nbytes].view(x.dtype).reshape(x.shape)\n'
          '    out[:] = x\n'
          '    return out\n'),
        W('c', "Memmoves x's raw bytes: right for a C-contiguous x, wrong values for a transposed or strided x.",
          'import ctypes\n'
          '\n'
          'def aligned_copy(x, align=64):\n'
          '    raw = np.empty(x.nbytes + align, dtype=np.uint8)\n'
          '    start = (-raw.ctypes.data) % align\n'
          '    out = raw[start:start + x.nbytes].view(x.dtype).reshape(x.shape)\n'
          '    ctypes.memmove(out.ctypes.data, x.ctypes.data, x.nbytes)\n'
          '    return out\n'),
        W('c', "Allocates in x's dtype and offsets by whole elements: misaligned for itemsizes that do not divide the gap (a 3-byte S3).",
          'def aligned_copy(x, align=64):\n'
          '    raw = np.empty(x.size + align // x.itemsize + 1, dtype=x.dtype)\n'
          '    start = ((-raw.ctypes.data) % align) // x.itemsize\n'
          '    out = raw[start:start + x.size].reshape(x.shape)\n'
          '    out[...] = x\n'
          '    return out\n'),
        W('g', "Copies the chapter's aligned_float32: always float32, so int16, float64 or bool input comes back float32.",
          'def aligned_copy(x, align=64):\n'
          '    raw = np.zeros(x.size * 4 + align, dtype=np.uint8)\n'
          '    start = (-address(raw)) % align\n'
          '    out = raw[start:start + x.size * 4].view(np.float32).reshape(x.shape)\n'
          '    out[...] = x\n'
          '    return out\n'),
        W('f', 'Slices every result out of one module-level buffer: a second call overwrites the first result.',
          '_pool = np.empty((1 << 20) + 4096, dtype=np.uint8)\n'
          '\n'
          'def aligned_copy(x, align=64):\n'
          '    global _pool\n'
          '    if _pool.size < x.nbytes + align:\n'
          '        _pool = np.empty(x.nbytes + align, dtype=np.uint8)\n'
          '    start = (-_pool.ctypes.data) % align\n'
          '    out = _pool[start:start + x.nbytes].view(x.dtype).reshape(x.shape)\n'
          '    out[...] = x\n'
          '    return out\n'),
        W('m', 'Returns x itself when it is already aligned: the result then shares memory with x.',
          'def aligned_copy(x, align=64):\n'
          '    if x.size and address(x) % align == 0 and x.flags.c_contiguous and x.flags.writeable:\n'
          '        return x\n'
          '    raw = np.empty(x.nbytes + align, dtype=np.uint8)\n'
          '    start = (-raw.ctypes.data) % align\n'
          '    out = raw[start:start + x.nbytes].view(x.dtype).reshape(x.shape)\n'
          '    out[...] = x\n'
          '    return out\n'),
        W('m', "Takes NumPy's ALIGNED flag (itemsize alignment) for 64-byte alignment: a plain copy is not 64-byte aligned in general.",
          'def aligned_copy(x, align=64):\n'
          '    return np.require(x, requirements=["ALIGNED", "C_CONTIGUOUS", "WRITEABLE", "OWNDATA"]).copy()\n'),
        W('b', 'pads by align bytes but always finds the next 64-byte boundary: right for the default align=64, misaligned (or a reshape error) for align=16, 128, 1024, 4096',
          'def aligned_copy(x, align=64):\n'
          '    x = np.asarray(x)\n'
          '    raw = np.empty(x.nbytes + align, dtype=np.uint8)\n'
          '    start = (-address(raw)) % 64            # first 64-byte boundary in the buffer\n'
          '    out = raw[start:start + x.nbytes].view(x.dtype).reshape(x.shape)\n'
          '    out[...] = x\n'
          '    return out\n'),
        W('c', 'skips whole elements to reach the boundary: right for power-of-two itemsizes, misaligned for a 3-byte record dtype',
          'def aligned_copy(x, align=64):\n'
          '    x = np.asarray(x)\n'
          '    raw = np.empty(x.size + align, dtype=x.dtype)          # `align` spare elements\n'
          '    skip = (-address(raw)) % align // x.itemsize           # elements to the next boundary\n'
          '    out = raw[skip:skip + x.size].reshape(x.shape)\n'
          '    out[...] = x\n'
          '    return out\n'),
        W('c', "keeps a transposed input's column-major layout: values right, but the result is not C-contiguous",
          'def aligned_copy(x, align=64):\n'
          '    x = np.asarray(x)\n'
          '    raw = np.empty(x.nbytes + align, dtype=np.uint8)\n'
          '    start = (-address(raw)) % align\n'
          '    # keep the layout x has: a transposed input stays column-major\n'
          '    order = "F" if x.flags.f_contiguous and not x.flags.c_contiguous else "C"\n'
          '    out = np.ndarray(x.shape, dtype=x.dtype, buffer=raw, offset=start, order=order)\n'
          '    out[...] = x\n'
          '    return out\n'),
        W('f', 'carves copies out of one reused 1 MiB arena that wraps around: small tests pass, but after about 1 MiB of later copies an earlier result is overwritten',
          '_arena = np.empty(1 << 20, dtype=np.uint8)     # scratch memory, allocated once\n'
          '_cursor = [0]\n'
          '\n'
          'def aligned_copy(x, align=64):\n'
          '    x = np.asarray(x)\n'
          '    if x.nbytes + align > _arena.size:\n'
          '        raw = np.empty(x.nbytes + align, dtype=np.uint8)\n'
          '        start = (-address(raw)) % align\n'
          '    else:\n'
          '        raw = _arena\n'
          '        start = _cursor[0] + (-(address(_arena) + _cursor[0])) % align\n'
          '        if start + x.nbytes > _arena.size:                     # full: start again at the front\n'
          '            start = (-address(_arena)) % align\n'
          '        _cursor[0] = start + x.nbytes\n'
          '    out = raw[start:start + x.nbytes].view(x.dtype).reshape(x.shape)\n'
          '    out[...] = x\n'
          '    return out\n'),
        W('g', "allocates with the chapter's aligned_float32(x.size), i.e. 4 bytes per element: right for 1-, 2-, 3- and 4-byte dtypes, ValueError for float64/int64/complex",
          'def aligned_copy(x, align=64):\n'
          '    x = np.asarray(x)\n'
          '    block = aligned_float32(x.size, align)                     # the aligned allocator of section 3\n'
          '    out = block.view(np.uint8)[:x.nbytes].view(x.dtype).reshape(x.shape)\n'
          '    out[...] = x\n'
          '    return out\n'),
    ],
    'ex2_answer': [
        W('m', 'jnp.asarray with a dtype that needs no conversion hands the array to device_put (section 3), which aliases it.',
          'def frozen_put(x):\n'
          '    return jnp.asarray(x, dtype=x.dtype)\n'),
        W('m', 'Trusts device_put(x, may_alias=False), which still aliases an aligned array in 0.12 on the CPU.',
          'def frozen_put(x):\n'
          '    return jax.device_put(x, may_alias=False)\n'),
        W('m', 'Plain jax.device_put: aliases 64-byte-aligned input, so a later x[0] += 7 shows in the result.',
          'def frozen_put(x):\n'
          '    return jax.device_put(x)\n'),
        W('m', 'jnp.asarray with an explicit canonical dtype hands off to device_put and aliases aligned input.',
          'def frozen_put(x):\n'
          '    return jnp.asarray(x, dtype=jax.dtypes.canonicalize_dtype(x.dtype))\n'),
        W('m', 'Believes np.ascontiguousarray copies: it returns x itself, so device_put aliases aligned x (and 0-d input becomes shape (1,)).',
          'def frozen_put(x):\n'
          '    return jax.device_put(np.ascontiguousarray(x))\n'),
        W('b', "Fixes float32: int32, uint8 or bool input comes back float32 instead of JAX's default dtype for it.",
          'def frozen_put(x):\n'
          '    return jnp.array(x, dtype=jnp.float32)\n'),
        W('c', 'Goes through x.tolist(): uint8 comes back int32, float16 as float32, an empty (0, 3) array as shape (0,).',
          'def frozen_put(x):\n'
          '    return jnp.array(x.tolist())\n'),
        W('g', 'Copies only the aligned float32 case of section 3 and device_puts the rest: an aligned uint8 or int32 array still aliases.',
          'def frozen_put(x):\n'
          '    if x.dtype == np.float32 and address(x) % 64 == 0:\n'
          '        return jnp.array(x)          # the aligned float32 case from section 3 would alias\n'
          '    return jax.device_put(x)\n'),
        W('c', 'device_put(x.astype(canonical, copy=False)): 64-bit input is converted (a copy), but an aligned float32/int32/uint8/bool x is aliased, so later writes to x show',
          'def frozen_put(x):\n'
          '    # convert to the dtype JAX will use; astype copies whenever the dtype changes\n'
          '    target = jax.dtypes.canonicalize_dtype(x.dtype)\n'
          '    return jax.device_put(x.astype(target, copy=False))\n'),
        W('c', 'jnp.asarray(x.tolist()): uint8 becomes int32, float16 becomes float32, and an empty (0, 3) array comes back with shape (0,)',
          'def frozen_put(x):\n'
          "    # through Python values: nothing can be shared with x's buffer\n"
          '    return jnp.asarray(x.tolist())\n'),
        W('f', 'device_put (aliasing) then + zeros on the device, computed asynchronously: for a large aligned x a write right after the call shows in the result',
          'def frozen_put(x):\n'
          '    # device_put is cheap; adding zeros on the device gives the result a buffer of its own\n'
          '    j = jax.device_put(x)\n'
          '    return j + jnp.zeros_like(j)\n'),
        W('g', 'copies only float32 input and device_puts every other dtype: aligned int32/uint8/float16/bool arrays are aliased and later writes show',
          'def frozen_put(x):\n'
          '    # only float32 arrays are aliased by device_put (section 3); 64-bit input is converted anyway\n'
          '    if x.dtype == np.float32:\n'
          '        return jnp.array(x)\n'
          '    return jax.device_put(x)\n'),
        W('b', 'forces every floating dtype to float32: right for float32/float64, but float16 input comes back float32',
          'def frozen_put(x):\n'
          "    # floats go to JAX's float32, everything else keeps its JAX default\n"
          '    dtype = jnp.float32 if np.issubdtype(x.dtype, np.floating) else None\n'
          '    return jnp.array(x, dtype=dtype)\n'),
        W('f', 'jnp.array(x): copies on the device as queued work, so behind earlier work an aligned x is read after the call returns and a write made right after shows',
          'def frozen_put(x):\n'
          '    return jnp.array(x)          # jnp.array copies (section 3)\n'),
    ],
    'ex3_answer': [
        W('m', 'jax.device_get alone: read-only views sharing the JAX buffers, and typed keys stay keys.',
          'def to_host_tree(tree):\n'
          '    return jax.device_get(tree)\n'),
        W('m', 'Copies every jax.Array leaf, but a typed key cannot become a NumPy array (section 6).',
          'def to_host_tree(tree):\n'
          '    return jax.tree.map(lambda v: np.array(v) if isinstance(v, jax.Array) else v, tree)\n'),
        W('m', 'np.asarray instead of np.array: values right, but read-only views that share the JAX buffer.',
          'def to_host_tree(tree):\n'
          '    def leaf(value):\n'
          '        if not isinstance(value, jax.Array):\n'
          '            return value\n'
          '        if jax.dtypes.issubdtype(value.dtype, jax.dtypes.prng_key):\n'
          '            value = jax.random.key_data(value)\n'
          '        return np.asarray(value)\n'
          '\n'
          '    return jax.tree.map(leaf, tree)\n'),
        W('m', 'Also copies NumPy leaves: a NumPy array in the tree comes back as a new object, not the same one.',
          'def to_host_tree(tree):\n'
          '    def leaf(value):\n'
          '        if isinstance(value, jax.Array) and jax.dtypes.issubdtype(value.dtype, jax.dtypes.prng_key):\n'
          '            value = jax.random.key_data(value)\n'
          '        if isinstance(value, (jax.Array, np.ndarray)):\n'
          '            return np.array(value)\n'
          '        return value\n'
          '\n'
          '    return jax.tree.map(leaf, tree)\n'),
        W('c', 'device_get, then copies every read-only ndarray: a read-only NumPy leaf of the input is copied instead of returned as is.',
          'def to_host_tree(tree):\n'
          '    def leaf(value):\n'
          '        if isinstance(value, jax.Array) and jax.dtypes.issubdtype(value.dtype, jax.dtypes.prng_key):\n'
          '            return np.array(jax.random.key_data(value))\n'
          '        return value\n'
          '\n'
          '    fetched = jax.device_get(jax.tree.map(leaf, tree))\n'
          '    return jax.tree.map(lambda v: v.copy() if isinstance(v, np.ndarray) and not v.flags.writeable else v, fetched)\n'),
        W('c', 'Turns 0-d arrays into Python numbers with .item(): a scalar loss leaf becomes a float, not an ndarray.',
          'def to_host_tree(tree):\n'
          '    def leaf(value):\n'
          '        if not isinstance(value, jax.Array):\n'
          '            return value\n'
          '        if jax.dtypes.issubdtype(value.dtype, jax.dtypes.prng_key):\n'
          '            value = jax.random.key_data(value)\n'
          '        if value.ndim == 0:\n'
          '            return value.item()          # a number stays a number\n'
          '        return np.array(value)\n'
          '\n'
          '    return jax.tree.map(leaf, tree)\n'),
        W('g', "Handles only a flat dict like the chapter's state: arrays nested in lists or tuples stay jax.Arrays.",
          'def to_host_tree(tree):\n'
          '    def leaf(value):\n'
          '        if not isinstance(value, jax.Array):\n'
          '            return value\n'
          '        if jax.dtypes.issubdtype(value.dtype, jax.dtypes.prng_key):\n'
          '            value = jax.random.key_data(value)\n'
          '        return np.array(value)\n'
          '\n'
          '    return {name: leaf(value) for name, value in tree.items()}\n'),
        W('g', 'Detects keys by comparing with jax.random.key(0).dtype (threefry): an rbg key is not recognised and np.array raises.',
          'def to_host_tree(tree):\n'
          '    key_dtype = jax.random.key(0).dtype\n'
          '\n'
          '    def leaf(value):\n'
          '        if not isinstance(value, jax.Array):\n'
          '            return value\n'
          '        if value.dtype == key_dtype:\n'
          '            value = jax.random.key_data(value)\n'
          '        return np.array(value)\n'
          '\n'
          '    return jax.tree.map(leaf, tree)\n'),
        W('b', 'Forces float32 on every non-key leaf: int32 and legacy uint32 keys come back float32.',
          'def to_host_tree(tree):\n'
          '    def leaf(value):\n'
          '        if not isinstance(value, jax.Array):\n'
          '            return value\n'
          '        if jax.dtypes.issubdtype(value.dtype, jax.dtypes.prng_key):\n'
          '            return np.array(jax.random.key_data(value))\n'
          '        return np.array(value, dtype=np.float32)\n'
          '\n'
          '    return jax.tree.map(leaf, tree)\n'),
        W('g', 'tests for a key by comparing with jax.random.key(0).dtype (the default threefry impl): an rbg key reaches np.array and raises TypeError',
          '_KEY_DTYPE = jax.random.key(0).dtype          # the dtype of a typed key\n'
          '\n'
          'def to_host_tree(tree):\n'
          '    def leaf(value):\n'
          '        if not isinstance(value, jax.Array):\n'
          '            return value\n'
          '        if value.dtype == _KEY_DTYPE:\n'
          '            value = jax.random.key_data(value)\n'
          '        return np.array(value)\n'
          '\n'
          '    return jax.tree.map(leaf, tree)\n'),
        W('c', 'key data through np.asarray: plain arrays are writeable copies, but key leaves become read-only views of the key data',
          'def to_host_tree(tree):\n'
          '    def leaf(value):\n'
          '        if not isinstance(value, jax.Array):\n'
          '            return value\n'
          '        if jax.dtypes.issubdtype(value.dtype, jax.dtypes.prng_key):\n'
          '            return np.asarray(jax.random.key_data(value))     # the raw bits, for NumPy\n'
          '        return np.array(value)\n'
          '\n'
          '    return jax.tree.map(leaf, tree)\n'),
        W('c', 'hand-written recursion over dict/list/tuple: a namedtuple raises TypeError, an OrderedDict becomes a dict, registered pytrees are not entered',
          'def to_host_tree(tree):\n'
          '    if isinstance(tree, dict):\n'
          '        return {k: to_host_tree(v) for k, v in tree.items()}\n'
          '    if isinstance(tree, (list, tuple)):\n'
          '        return type(tree)(to_host_tree(v) for v in tree)\n'
          '    if isinstance(tree, jax.Array):\n'
          '        if jax.dtypes.issubdtype(tree.dtype, jax.dtypes.prng_key):\n'
          '            tree = jax.random.key_data(tree)\n'
          '        return np.array(tree)\n'
          '    return tree\n'),
        W('c', 'device_get then .copy() every NumPy array: NumPy leaves (read-only ones included) come back as new copies, not the very same objects',
          'def to_host_tree(tree):\n'
          '    def unkey(value):\n'
          '        if isinstance(value, jax.Array) and jax.dtypes.issubdtype(value.dtype, jax.dtypes.prng_key):\n'
          '            return jax.random.key_data(value)\n'
          '        return value\n'
          '\n'
          '    host = jax.device_get(jax.tree.map(unkey, tree))\n'
          '    # device_get gives read-only views: copy every array so that the result is writeable\n'
          '    return jax.tree.map(lambda v: v.copy() if isinstance(v, np.ndarray) else v, host)\n'),
        W('f', 'memoises host copies by id() of the jax.Array: two results share one array, and a later array that reuses a freed id gets stale values',
          '_converted = {}      # id of a jax.Array -> its host copy, so each array is copied only once\n'
          '\n'
          'def to_host_tree(tree):\n'
          '    def leaf(value):\n'
          '        if not isinstance(value, jax.Array):\n'
          '            return value\n'
          '        if id(value) not in _converted:\n'
          '            data = value\n'
          '            if jax.dtypes.issubdtype(value.dtype, jax.dtypes.prng_key):\n'
          '                data = jax.random.key_data(value)\n'
          '            _converted[id(value)] = np.array(data)\n'
          '        return _converted[id(value)]\n'
          '\n'
          '    return jax.tree.map(leaf, tree)\n'),
    ],
    'quiz_answer': [
        W('m', 'q2=a: trusts the may_alias=False docstring; 0.12 on the CPU still aliases aligned input.',
          'q1 = "b"\n'
          'q2 = "a"\n'
          'q3 = "a"\n'
          'q4 = "b"\n'),
        W('m', 'q3=b: confuses the error of a NumPy ufunc on a tracer with that of float().',
          'q1 = "b"\n'
          'q2 = "c"\n'
          'q3 = "b"\n'
          'q4 = "b"\n'),
        W('m', 'q1=a: swaps np.array (copies) and np.asarray (shares).',
          'q1 = "a"\n'
          'q2 = "c"\n'
          'q3 = "a"\n'
          'q4 = "b"\n'),
        W('m', 'q4=a: takes jax.random.key for the legacy uint32[2] PRNGKey.',
          'q1 = "b"\n'
          'q2 = "c"\n'
          'q3 = "a"\n'
          'q4 = "a"\n'),
        W('m', 'q2=b, q3=c: thinks may_alias=False raises on aligned input and that NumPy runs on tracers inside jit.',
          'q1 = "b"\n'
          'q2 = "b"\n'
          'q3 = "c"\n'
          'q4 = "b"\n'),
    ],
}

# Round 3: written from the chapter's text alone (its test cells removed), before its checks were read;
# each passed every visible check, and some scored full marks, until the checks were made to catch them.
WRONG['ex2_answer'] += [
    W('c', 'host copy only for float32; other dtypes go through jnp.asarray (queued device copy)',
      'def frozen_put(x):\n    if x.dtype == np.float32:\n        return jax.device_put(x.copy())\n    return jnp.asarray(x)\n'),
    W('c', 'skips the copy for read-only x, but a read-only view can still change through its base',
      'def frozen_put(x):\n    if not x.flags.writeable:\n        return jax.device_put(x)\n    return jax.device_put(x.copy())\n'),
    W('c', '0-d arrays go through jnp.array (queued device copy)',
      'def frozen_put(x):\n    if x.ndim == 0:\n        return jnp.array(x)\n    return jax.device_put(np.array(x))\n'),
    W('m', 'skips the host copy when x owns its data (thinks only views can change underneath)',
      'def frozen_put(x):\n    if x.flags.owndata:\n        return jax.device_put(x)\n    return jax.device_put(x.copy())\n'),
]

# Round 4: written from the text alone, with the mistakes above listed as already caught, before the checks were read;
# each passed every visible check, and some scored full marks, until the checks were made to catch them.
WRONG['ex1_answer'] += [
    W('c', 'returns an empty x itself (no data, so nothing to copy): the result is x, not a new array (and read-only if x is)',
      'def aligned_copy(x, align=64):\n    if x.size == 0:\n        return x\n    nbytes = x.size * x.itemsize\n    raw = np.empty(nbytes + align, dtype=np.uint8)\n    start = (-address(raw)) % align\n    out = raw[start:start + nbytes].view(x.dtype).reshape(x.shape)\n    out[...] = x\n    return out\n'),
    W('c', "normalises the byte order so that JAX can take the result: a big-endian '>f4' or '>i2' x comes back little-endian, not in x's dtype",
      'def aligned_copy(x, align=64):\n    dtype = x.dtype.newbyteorder("=")\n    nbytes = x.size * x.itemsize\n    raw = np.empty(nbytes + align, dtype=np.uint8)\n    start = (-address(raw)) % align\n    out = raw[start:start + nbytes].view(dtype).reshape(x.shape)\n    out[...] = x\n    return out\n'),
]
WRONG['ex2_answer'] += [
    W('c', 'returns jnp.zeros(x.shape) for an empty x (no values to protect): an empty int32/uint8/bool x comes back float32',
      'def frozen_put(x):\n    if x.size == 0:\n        return jnp.zeros(x.shape)\n    return jnp.asarray(np.array(x))\n'),
    W('c', 'hand-written dtype map that sends every signed integer to int32: int8 and int16 x come back int32, not their own dtype',
      'def frozen_put(x):\n    if x.dtype.kind == "i":\n        dtype = np.int32\n    elif x.dtype == np.float64:\n        dtype = np.float32\n    else:\n        dtype = x.dtype\n    return jnp.asarray(np.array(x, dtype=dtype))\n'),
    W('c', "treats every 64-bit integer as 'int64 becomes int32': a uint64 x comes back int32 instead of JAX's uint32",
      'def frozen_put(x):\n    if x.dtype.kind in "iu" and x.dtype.itemsize == 8:\n        dtype = np.int32\n    elif x.dtype == np.float64:\n        dtype = np.float32\n    else:\n        dtype = x.dtype\n    return jnp.asarray(np.array(x, dtype=dtype))\n'),
    W('c', 'a 0-d x goes through x.item() (a plain Python number cannot change later): 0-d uint8/float16 come back int32/float32 (and weakly typed)',
      'def frozen_put(x):\n    if x.ndim == 0:\n        return jnp.asarray(x.item())\n    return jnp.asarray(np.array(x))\n'),
    W('b', "memoises the transfer by id(x) (section 5: move NumPy data to the device once): a second call after x changed returns the old values, and a new array that reuses a freed id gets another array's values",
      '_on_device = {}\n\ndef frozen_put(x):\n    key = (id(x), x.shape, x.dtype.str)\n    if key not in _on_device:\n        _on_device[key] = jnp.asarray(np.array(x))\n    return _on_device[key]\n'),
]
WRONG['ex3_answer'] += [
    W('c', 'treats only 0-d arrays as possible keys (key(0) has shape ()): a batch of keys from jax.random.split reaches np.array and raises TypeError',
      'def to_host_tree(tree):\n    def convert(leaf):\n        if not isinstance(leaf, jax.Array):\n            return leaf\n        if leaf.ndim == 0 and jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key):\n            return np.array(jax.random.key_data(leaf))\n        return np.array(leaf)\n    return jax.tree.map(convert, tree)\n'),
    W('c', 'copies through np.array(leaf.tolist(), dtype=leaf.dtype): dtype kept, but an empty (0, 3) leaf comes back with shape (0,)',
      'def to_host_tree(tree):\n    def convert(leaf):\n        if not isinstance(leaf, jax.Array):\n            return leaf\n        if jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key):\n            leaf = jax.random.key_data(leaf)\n        return np.array(leaf.tolist(), dtype=leaf.dtype)\n    return jax.tree.map(convert, tree)\n'),
    W('m', 'device_get, then copies every ndarray that does not own its data (thinks that marks a JAX view): a NumPy view leaf of the input (x[1:]) is copied instead of returned as is',
      'def to_host_tree(tree):\n    def unkey(leaf):\n        if isinstance(leaf, jax.Array) and jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key):\n            return jax.random.key_data(leaf)\n        return leaf\n    fetched = jax.device_get(jax.tree.map(unkey, tree))\n    return jax.tree.map(lambda leaf: np.array(leaf) if isinstance(leaf, np.ndarray) and not leaf.flags.owndata else leaf, fetched)\n'),
    W('c', 'device_get, then copies every leaf device_get changed: a NumPy scalar leaf (np.float32(3.0)), which device_get turns into a 0-d array, comes back as a new ndarray instead of the same object',
      'def to_host_tree(tree):\n    def unkey(leaf):\n        if isinstance(leaf, jax.Array) and jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key):\n            return jax.random.key_data(leaf)\n        return leaf\n    plain = jax.tree.map(unkey, tree)\n    fetched = jax.device_get(plain)\n    return jax.tree.map(lambda before, after: after if after is before else np.array(after), plain, fetched)\n'),
    W('c', 'keeps np.asarray for empty leaves (no data, nothing to share): an empty jax.Array leaf comes back read-only',
      'def to_host_tree(tree):\n    def convert(leaf):\n        if not isinstance(leaf, jax.Array):\n            return leaf\n        if jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key):\n            leaf = jax.random.key_data(leaf)\n        return np.array(leaf) if leaf.size else np.asarray(leaf)\n    return jax.tree.map(convert, tree)\n'),
    W('m', 'treats every leaf with __array__ that is not an ndarray as a JAX array: a NumPy scalar leaf (np.float32(3.0), np.int64(7)) comes back as a new 0-d ndarray instead of the same object',
      'def to_host_tree(tree):\n    def convert(leaf):\n        if isinstance(leaf, np.ndarray) or not hasattr(leaf, "__array__"):\n            return leaf\n        if isinstance(leaf, jax.Array) and jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key):\n            leaf = jax.random.key_data(leaf)\n        return np.array(leaf)\n    return jax.tree.map(convert, tree)\n'),
]

# Round 6: written from the text alone by a reviewer who saw none of the checks; each earned full marks
# until a visible check was added for it.
WRONG['ex1_answer'] += [
    W('b', "keeps each call's copy by id(x) and hands it out again for the same x: after x changes, a second call returns the first call's (stale) array",
      '_made = {}\n\ndef aligned_copy(x, align=64):\n    key = (id(x), align)\n    if key in _made and _made[key][0] is x:\n        return _made[key][1]\n'
      '    raw = np.empty(x.nbytes + align, dtype=np.uint8)\n    start = (-address(raw)) % align\n'
      '    out = raw[start:start + x.nbytes].view(x.dtype).reshape(x.shape)\n    out[...] = x\n    _made[key] = (x, out)\n    return out\n'),
]
WRONG['ex3_answer'] += [
    W('c', 'recognises a key by the dtypes of the two implementations the text names (threefry, rbg): an unsafe_rbg key reaches np.array and raises TypeError',
      '_KEY_DTYPES = (jax.random.key(0).dtype, jax.random.key(0, impl="rbg").dtype)\n\ndef to_host_tree(tree):\n    def convert(leaf):\n'
      '        if isinstance(leaf, jax.Array):\n            if leaf.dtype in _KEY_DTYPES:\n                return np.array(jax.random.key_data(leaf))\n'
      '            return np.array(leaf)\n        return leaf\n    return jax.tree_util.tree_map(convert, tree)\n'),
]

RIGHT = {
    'ex2_answer': [
        R('refuses anything but a NumPy array (the text promises one), then copies it on the host',
          'def frozen_put(x):\n    if not isinstance(x, np.ndarray):\n        raise TypeError(f"frozen_put takes a NumPy array, got {type(x).__name__}")\n'
          '    return jax.device_put(x.copy())\n'),
    ],
}

# Round 7: written from the text alone by a reviewer who had not read the checks; both earned full marks until visible
# checks read the first result again after later calls of its shape, and froze aligned int8, int16, uint16, uint32 and
# complex64 arrays.
WRONG['ex2_answer'] += [
    W('f', 'copies into one aligned staging buffer per (shape, dtype) that device_put aliases: the next call overwrites an earlier result',
      '\n'
      '_staging = {}\n'
      '\n'
      'def frozen_put(x):\n'
      '    dtype = jax.dtypes.canonicalize_dtype(x.dtype)\n'
      '    key = (x.shape, dtype)\n'
      '    if key not in _staging:\n'
      '        nbytes = x.size * dtype.itemsize\n'
      '        raw = np.empty(nbytes + 64, dtype=np.uint8)\n'
      '        start = (-address(raw)) % 64\n'
      '        _staging[key] = raw[start:start + nbytes].view(dtype).reshape(x.shape)\n'
      '    buf = _staging[key]\n'
      '    buf[...] = x\n'
      '    return jax.device_put(buf)\n'),
    W('c', 'host copy only for the five dtypes the text names as kept; thinks every other dtype is converted (so copied): an aligned int16/int8/uint16/uint32/complex64 x is aliased',
      '\n'
      'def frozen_put(x):\n'
      '    if x.dtype in (np.uint8, np.int32, np.float16, np.float32, np.bool_):\n'
      '        return jax.device_put(x.copy())\n'
      '    return jax.device_put(x)        # JAX converts any other dtype, which copies anyway\n'),
]

# Round 9: found by reviewers who read only the learner's notebook.
WRONG['ex1_answer'] += [
    W('c', 'copies the raw bytes with memmove, making x C-contiguous first only when it is Fortran-order (a transpose): a strided slice, which is neither, is read with its gaps',
      'import ctypes\n\ndef aligned_copy(x, align=64):\n    if x.flags.f_contiguous and not x.flags.c_contiguous:\n        x = np.ascontiguousarray(x)        # a transpose: lay it out row by row first\n    raw = np.empty(x.nbytes + align, dtype=np.uint8)\n    start = (-address(raw)) % align\n    out = raw[start:start + x.nbytes].view(x.dtype).reshape(x.shape)\n    if x.nbytes:\n        ctypes.memmove(out.ctypes.data, x.ctypes.data, x.nbytes)\n    return out\n'),
]
WRONG['ex2_answer'] += [
    W('c', 'x + 0 to force a fresh host array: right for every dtype but bool, which NumPy turns into int64 (so int32 on the device)',
      'def frozen_put(x):\n    return jax.device_put(x + 0)      # x + 0 is a new array: nothing later written to x can show\n'),
    W('m', 'misapplies section 7\'s "wait for the copy" to device_put: block_until_ready does not undo an alias',
      'def frozen_put(x):\n    return jax.device_put(x).block_until_ready()   # wait, so the transfer is done before x changes\n'),
    W('f', 'jnp.asarray(x, copy=True): the explicit copy is still a queued device copy, which reads an aligned x late',
      'def frozen_put(x):\n    return jnp.asarray(x, copy=True)\n'),
    W('f', 'jnp.copy(x): also a device copy queued behind earlier work',
      'def frozen_put(x):\n    return jnp.copy(x)\n'),
]
WRONG['ex3_answer'] += [
    W('c', 'np.asarray(leaf) * 1 to get a writeable copy: a 0-d leaf becomes a NumPy scalar, not an array, and a bool leaf becomes int64',
      'def to_host_tree(tree):\n    def convert(leaf):\n        if not isinstance(leaf, jax.Array):\n            return leaf\n        if jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key):\n            leaf = jax.random.key_data(leaf)\n        return np.asarray(leaf) * 1      # arithmetic makes a new, writeable array\n    return jax.tree.map(convert, tree)\n'),
]

# Round 9: right answers written another way.
RIGHT.setdefault('ex1_answer', []).extend([
    R('np.copyto into an aligned view of an over-allocated byte buffer',
      'def aligned_copy(x, align=64):\n    x = np.asarray(x)\n    raw = np.empty(x.nbytes + align, dtype=np.uint8)\n    start = (-address(raw)) % align\n    out = raw[start:start + x.nbytes].view(x.dtype).reshape(x.shape)\n    np.copyto(out, x)\n    return out\n'),
])
RIGHT.setdefault('ex2_answer', []).extend([
    R('copies on the host only when device_put aliased',
      'def frozen_put(x):\n    put = jax.device_put(x)\n    if same_memory(put, x):\n        put = jax.device_put(np.array(x))\n    return put\n'),
])

# Round 10: written from the rewritten texts (requirement lists), before their checks: a result that does not keep
# its memory alive, a special case that is aligned only by the allocator's luck, dtypes and kinds of x the old
# checks did not put behind a busy device, and leaves the old checks did not name.
WRONG['ex1_answer'] += [
    W('m', 'views memory through a ctypes address (from_address) of a buffer nothing keeps alive: freed when aligned_copy returns, and overwritten by the next allocations',
      'import ctypes\n\ndef aligned_copy(x, align=64):\n    buf = ctypes.create_string_buffer(x.nbytes + align)\n    start = (-ctypes.addressof(buf)) % align\n'
      '    block = (ctypes.c_uint8 * (x.nbytes + 1)).from_address(ctypes.addressof(buf) + start)\n'
      '    out = np.frombuffer(block, dtype=np.uint8, count=x.nbytes).view(x.dtype).reshape(x.shape)\n    out[...] = x\n    return out\n'),
    W('m', "builds the result at raw's address + start with np.ctypeslib.as_array: the array does not hold raw, which is freed when aligned_copy returns",
      'import ctypes\n\ndef aligned_copy(x, align=64):\n    raw = np.empty(x.nbytes + align, dtype=np.uint8)\n    start = (-address(raw)) % align\n'
      '    pointer = ctypes.cast(address(raw) + start, ctypes.POINTER(ctypes.c_uint8))\n'
      '    out = np.ctypeslib.as_array(pointer, shape=(max(x.nbytes, 1),))[:x.nbytes].view(x.dtype).reshape(x.shape)\n    out[...] = x\n    return out\n'),
    W('c', 'copies a 0-d x with np.array (one element, nothing to align): NumPy happens to put a small array at a multiple of 64, but not of 4096',
      'def aligned_copy(x, align=64):\n    if x.ndim == 0:\n        return np.array(x)            # a single value: a plain copy will do\n'
      '    raw = np.empty(x.nbytes + align, dtype=np.uint8)\n    start = (-address(raw)) % align\n'
      '    out = raw[start:start + x.nbytes].view(x.dtype).reshape(x.shape)\n    out[...] = x\n    return out\n'),
    W('c', "rebuilds the dtype from x.dtype.str to keep the byte order: bfloat16's str is '<V2', so a bfloat16 x comes back as raw 2-byte voids",
      'def aligned_copy(x, align=64):\n    dtype = x.dtype if x.dtype.names else np.dtype(x.dtype.str)   # keeps ">f4" big-endian\n'
      '    raw = np.empty(x.nbytes + align, dtype=np.uint8)\n    start = (-address(raw)) % align\n'
      '    out = raw[start:start + x.nbytes].view(dtype).reshape(x.shape)\n    out[...] = x\n    return out\n'),
]
WRONG['ex2_answer'] += [
    W('c', "host copy for the dtype kinds NumPy calls numbers ('biufc'); any other dtype goes through jnp.asarray, a queued device copy, and bfloat16's kind is 'V'",
      'def frozen_put(x):\n    if x.dtype.kind in "biufc":\n        return jax.device_put(np.array(x))\n    return jnp.asarray(x)          # anything exotic: let JAX copy it\n'),
    W('c', 'a read-only x goes through jnp.array (thinks nothing can write to it, so a device copy is safe): its base can be written before the queued copy runs',
      'def frozen_put(x):\n    if not x.flags.writeable:\n        return jnp.array(x)            # nobody can change it: a device copy is enough\n'
      '    return jax.device_put(np.array(x))\n'),
]
WRONG['ex3_answer'] += [
    W('c', 'leaves numbers, NumPy arrays and scalars alone and copies every other leaf with np.array: a string leaf becomes a 0-d NumPy string array',
      'import numbers\n\ndef to_host_tree(tree):\n    def convert(leaf):\n        if isinstance(leaf, (numbers.Number, np.ndarray, np.generic)):\n            return leaf\n'
      '        if jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key):\n            leaf = jax.random.key_data(leaf)\n        return np.array(leaf)\n'
      '    return jax.tree.map(convert, tree)\n'),
    W('c', 'copies float leaves through float32 to be safe with NumPy: a bfloat16 leaf comes back float32',
      'def to_host_tree(tree):\n    def convert(leaf):\n        if not isinstance(leaf, jax.Array):\n            return leaf\n'
      '        if jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key):\n            return np.array(jax.random.key_data(leaf))\n'
      '        if jnp.issubdtype(leaf.dtype, jnp.floating) and leaf.dtype.itemsize < 4:\n            return np.array(leaf, dtype=np.float32)   # NumPy has no bfloat16\n'
      '        return np.array(leaf)\n    return jax.tree.map(convert, tree)\n'),
]
RIGHT.setdefault('ex1_answer', []).extend([
    R('an empty x gets np.empty(x.shape, x.dtype): it has no data to align, and the result is still new and writeable',
      'def aligned_copy(x, align=64):\n    if x.size == 0:\n        return np.empty(x.shape, x.dtype)\n    raw = np.empty(x.nbytes + align, dtype=np.uint8)\n'
      '    start = (-address(raw)) % align\n    out = raw[start:start + x.nbytes].view(x.dtype).reshape(x.shape)\n    out[...] = x\n    return out\n'),
])
RIGHT['ex2_answer'].extend([
    R('copies on the host only when x is 64-byte aligned: device_put copies an unaligned x at once, before it returns',
      'def frozen_put(x):\n    if address(x) % 64 == 0:\n        return jax.device_put(np.array(x))\n    return jax.device_put(x)\n'),
])

# Round 12: found by a reviewer who read only the learner's notebook. A staging buffer reused per shape and dtype passed
# every check (the check's arrays were float64, which device_put converts, so the buffer was never used); it uses
# float32 arrays now.
WRONG['ex2_answer'] += [
    W('f', 'stages through one reusable host buffer per shape/dtype: device_put aliases it when aligned, so a later call changes an earlier result',
      '_staging = {}\n\ndef frozen_put(x):\n    key = (x.shape, x.dtype.str)\n    if key not in _staging:\n        raw = np.empty(x.nbytes + 64, dtype=np.uint8)\n        start = (-address(raw)) % 64\n        _staging[key] = raw[start:start + x.nbytes].view(x.dtype).reshape(x.shape)\n    buf = _staging[key]\n    buf[...] = x\n    return jax.device_put(buf)\n'),
]


# A third fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex3_answer'] += [
    W('m', 'dedupes within one call: the same jax.Array at two leaves gets one shared copy, not one of its own',
      'def to_host_tree(tree):\n    seen = {}\n    def convert(leaf):\n        if not isinstance(leaf, jax.Array):\n            return leaf\n        if id(leaf) not in seen:\n            data = jax.random.key_data(leaf) if jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key) else leaf\n            seen[id(leaf)] = np.array(data)\n        return seen[id(leaf)]\n    return jax.tree.map(convert, tree)\n'),
]


# An eighth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex1_answer'] += [
    W('c', "np.copy keeps x's layout (order='K'): returned as is when it happens to be aligned, so a transposed x gives a Fortran-order result (always with align=1)",
      'def aligned_copy(x, align=64):\n    out = np.copy(x)\n    if out.size == 0 or address(out) % align == 0:\n        return out\n    raw = np.empty(x.nbytes + align, dtype=np.uint8)\n    start = (-address(raw)) % align\n    out = raw[start:start + x.nbytes].view(x.dtype).reshape(x.shape)\n    out[...] = x\n    return out\n'),
]
WRONG['ex2_answer'] += [
    W('f', 'reuses one host buffer per shape/dtype: a later call overwrites what an earlier (aliased) result reads',
      '_BUFFERS = {}\n\ndef frozen_put(x):\n    key = (x.shape, x.dtype.str)\n    if key not in _BUFFERS:\n        _BUFFERS[key] = np.empty(x.shape, x.dtype)\n    np.copyto(_BUFFERS[key], x)\n    return jax.device_put(_BUFFERS[key])\n'),
]


# A tenth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex2_answer'] += [
    W('m', 'freezes x by making it read-only (mutates the input); its base can still be written and the result aliases it',
      'def frozen_put(x):\n    x.flags.writeable = False\n    return jax.device_put(x)\n'),
]
