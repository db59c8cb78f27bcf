"""Wrong answers for 02_dlpack (see tests/wrong_answers/__init__.py)."""

from wrong_answers import R, W

APPLIES = {'ex1_answer': 'bcfgm', 'ex2_answer': 'bcfgm', 'ex3_answer': 'bcdgm', 'quiz_answer': 'm'}

WRONG = {
    'ex1_answer': [
        W('m', 'Trusts the default import, which silently copies an unaligned buffer instead of sharing it.',
          'def share_with_jax(x):\n'
          '    return x, jax.dlpack.from_dlpack(x)\n'),
        W('m', 'Trusts copy=False to refuse every copy: it does refuse an unaligned or strided buffer, but converts float64 or int64 to 32 bits without complaint (section 4), so x is kept unshared.',
          'def share_with_jax(x):\n'
          '    try:\n'
          '        return x, jax.dlpack.from_dlpack(x, copy=False)\n'
          '    except (ValueError, jax.errors.JaxRuntimeError):\n'
          '        host = aligned_empty(x.shape, jax.dtypes.canonicalize_dtype(x.dtype))\n'
          '        host[...] = x\n'
          '        return host, (jax.dlpack.from_dlpack(host, copy=False) if x.size else jnp.asarray(host))\n'),
        W('m', 'always copies into an aligned buffer: j shares host, but host is never x, even for an aligned float32 x',
          'def share_with_jax(x):\n'
          '    host = aligned_empty(x.shape, jax.dtypes.canonicalize_dtype(x.dtype))\n'
          '    host[...] = x\n'
          '    return host, (jax.dlpack.from_dlpack(host, copy=False) if x.size else jnp.asarray(host))\n'),
        W('m', "relies on from_dlpack's default copy=None: an unaligned x is copied silently, so j does not share host (= x)",
          'def share_with_jax(x):\n'
          '    if x.flags.c_contiguous or x.flags.f_contiguous:\n'
          '        return x, jax.dlpack.from_dlpack(x)\n'
          '    host = aligned_empty(x.shape, jax.dtypes.canonicalize_dtype(x.dtype))\n'
          '    host[...] = x\n'
          '    return host, jax.dlpack.from_dlpack(host)\n'),
        W('m', 'trusts copy=False to refuse every copy: aligned float64 x comes back (x, a new float32 array) that does not share x',
          'def share_with_jax(x):\n'
          '    if x.size:\n'
          '        try:\n'
          '            return x, jax.dlpack.from_dlpack(x, copy=False)\n'
          '        except (ValueError, jax.errors.JaxRuntimeError):\n'
          '            pass   # unaligned or strided: copy into an aligned buffer\n'
          '    host = aligned_empty(x.shape, jax.dtypes.canonicalize_dtype(x.dtype))\n'
          '    host[...] = x\n'
          '    return host, (jax.dlpack.from_dlpack(host, copy=False) if x.size else jnp.asarray(host))\n'),
        W('c', 'checks only alignment and dtype: an aligned strided view (grid[:, ::2]) raises JaxRuntimeError instead of being copied',
          'def share_with_jax(x):\n'
          '    dtype = jax.dtypes.canonicalize_dtype(x.dtype)\n'
          '    if x.size and x.dtype == dtype and address(x) % 64 == 0:\n'
          '        return x, jax.dlpack.from_dlpack(x, copy=False)\n'
          '    host = aligned_empty(x.shape, dtype)\n'
          '    host[...] = x\n'
          '    return host, (jax.dlpack.from_dlpack(host, copy=False) if x.size else jnp.asarray(host))\n'),
        W('c', 'requires C order: an aligned transposed (Fortran-order) x, which JAX shares as it is, gets copied (host is not x)',
          'def share_with_jax(x):\n'
          '    dtype = jax.dtypes.canonicalize_dtype(x.dtype)\n'
          '    if x.size and x.dtype == dtype and address(x) % 64 == 0 and x.flags.c_contiguous:\n'
          '        return x, jax.dlpack.from_dlpack(x, copy=False)\n'
          '    host = aligned_empty(x.shape, dtype)\n'
          '    host[...] = x\n'
          '    return host, (jax.dlpack.from_dlpack(host, copy=False) if x.size else jnp.asarray(host))\n'),
        W('c', 'imports with device_put: right for aligned C-order x, but a transposed aligned x is copied instead of shared',
          'def share_with_jax(x):\n'
          '    dtype = jax.dtypes.canonicalize_dtype(x.dtype)\n'
          '    if x.size and x.dtype == dtype and address(x) % 64 == 0:\n'
          '        j = jax.device_put(x)\n'
          '        if same_memory(j, x):\n'
          '            return x, j\n'
          '    host = aligned_empty(x.shape, dtype)\n'
          '    host[...] = x\n'
          '    return host, (jax.device_put(host) if x.size else jnp.asarray(host))\n'),
        W('b', "copies into x's own dtype: float64/int64 x gives a 64-bit host and a 32-bit j that does not share it",
          'def share_with_jax(x):\n'
          '    dtype = jax.dtypes.canonicalize_dtype(x.dtype)\n'
          '    if x.size and x.dtype == dtype:\n'
          '        try:\n'
          '            return x, jax.dlpack.from_dlpack(x, copy=False)\n'
          '        except (ValueError, jax.errors.JaxRuntimeError):\n'
          '            pass\n'
          '    host = aligned_empty(x.shape, x.dtype)\n'
          '    host[...] = x\n'
          '    return host, (jax.dlpack.from_dlpack(host, copy=False) if x.size else jnp.asarray(host))\n'),
        W('g', "copies into aligned_empty's default float32: an unaligned int32 or bool x gives a float32 host and j",
          'def share_with_jax(x):\n'
          '    dtype = jax.dtypes.canonicalize_dtype(x.dtype)\n'
          '    if x.size and x.dtype == dtype:\n'
          '        try:\n'
          '            return x, jax.dlpack.from_dlpack(x, copy=False)\n'
          '        except (ValueError, jax.errors.JaxRuntimeError):\n'
          '            pass\n'
          '    host = aligned_empty(x.shape)\n'
          '    host[...] = x\n'
          '    return host, (jax.dlpack.from_dlpack(host, copy=False) if x.size else jnp.asarray(host))\n'),
        W('c', 'catches only ValueError from from_dlpack(copy=False): an aligned strided input raises JaxRuntimeError instead of being copied',
          'def share_with_jax(x):\n'
          '    dtype = jax.dtypes.canonicalize_dtype(x.dtype)\n'
          '    if x.size and x.dtype == dtype:\n'
          '        try:\n'
          '            return x, jax.dlpack.from_dlpack(x, copy=False)\n'
          '        except ValueError:             # copy=False refuses an unaligned buffer: copy it below\n'
          '            pass\n'
          '    host = aligned_empty(x.shape, dtype)\n'
          '    host[...] = x\n'
          '    return host, (jax.dlpack.from_dlpack(host, copy=False) if x.size else jnp.asarray(host))\n'),
        W('c', 'requires C order for the zero-copy path: an aligned transposed (Fortran-order) x is copied instead of returned as host',
          'def share_with_jax(x):\n'
          '    dtype = jax.dtypes.canonicalize_dtype(x.dtype)\n'
          '    if x.size and x.dtype == dtype and x.flags.c_contiguous and address(x) % 64 == 0:\n'
          '        return x, jax.dlpack.from_dlpack(x, copy=False)\n'
          '    host = aligned_empty(x.shape, dtype)\n'
          '    host[...] = x\n'
          '    return host, (jax.dlpack.from_dlpack(host, copy=False) if x.size else jnp.asarray(host))\n'),
        W('m', 'trusts copy=False to refuse every copy: an aligned float64 x comes back as host=x with j a float32 copy that does not share memory',
          'def share_with_jax(x):\n'
          '    if x.size:\n'
          '        try:\n'
          '            return x, jax.dlpack.from_dlpack(x, copy=False)    # copy=False: raises rather than copy\n'
          '        except (ValueError, jax.errors.JaxRuntimeError):\n'
          '            pass\n'
          '    host = aligned_empty(x.shape, jax.dtypes.canonicalize_dtype(x.dtype))\n'
          '    host[...] = x\n'
          '    return host, (jax.dlpack.from_dlpack(host, copy=False) if x.size else jnp.asarray(host))\n'),
        W('f', "reuses one aligned staging buffer per (shape, dtype): a second call's copy overwrites the first call's host and j",
          '_staging = {}      # (shape, dtype) -> an aligned buffer, allocated once and reused\n'
          '\n'
          'def share_with_jax(x):\n'
          '    dtype = jax.dtypes.canonicalize_dtype(x.dtype)\n'
          '    if x.size and x.dtype == dtype:\n'
          '        try:\n'
          '            return x, jax.dlpack.from_dlpack(x, copy=False)\n'
          '        except (ValueError, jax.errors.JaxRuntimeError):\n'
          '            pass\n'
          '    key = (x.shape, dtype)\n'
          '    if key not in _staging:\n'
          '        _staging[key] = aligned_empty(x.shape, dtype)\n'
          '    host = _staging[key]\n'
          '    host[...] = x\n'
          '    return host, (jax.dlpack.from_dlpack(host, copy=False) if x.size else jnp.asarray(host))\n'),
        W('g', 'takes the zero-copy path only for float32: an aligned int32, uint8 or bool x is copied instead of returned as host',
          'def share_with_jax(x):\n'
          '    if x.size and x.dtype == np.float32:           # the dtype JAX keeps as it is\n'
          '        try:\n'
          '            return x, jax.dlpack.from_dlpack(x, copy=False)\n'
          '        except (ValueError, jax.errors.JaxRuntimeError):\n'
          '            pass\n'
          '    host = aligned_empty(x.shape, jax.dtypes.canonicalize_dtype(x.dtype))\n'
          '    host[...] = x\n'
          '    return host, (jax.dlpack.from_dlpack(host, copy=False) if x.size else jnp.asarray(host))\n'),
    ],
    'ex2_answer': [
        W('m', 'Exports the JAX array to NumPy: shared, but the NumPy view of a JAX array is read-only.',
          'def writeable_twin(y):\n'
          '    return np.from_dlpack(y), y\n'),
        W('m', 'Copies the read-only view to get a writeable array, and returns y itself as the JAX side.',
          'def writeable_twin(y):\n'
          '    return np.from_dlpack(y).copy(), y\n'),
        W('m', 'np.from_dlpack(y, copy=True): JAX flags even the copy read-only, so host is not writeable',
          'def writeable_twin(y):\n'
          '    host = np.from_dlpack(y, copy=True)\n'
          '    return host, jax.dlpack.from_dlpack(host)\n'),
        W('m', 'np.array(y) then from_dlpack: shares only when the allocator happens to put host on a multiple of 64 bytes, which small arrays often miss',
          'def writeable_twin(y):\n'
          '    host = np.array(y)\n'
          '    return host, jax.dlpack.from_dlpack(host)\n'),
        W('m', 'returns (np.array(y), y): host is writeable but j is y itself, so writes to host never show in j',
          'def writeable_twin(y):\n'
          '    return np.array(y), y\n'),
        W('c', 'host[:] = ... and from_dlpack(copy=False) for every size: IndexError for 0-d y, ValueError for an empty y',
          'def writeable_twin(y):\n'
          '    host = aligned_empty(y.shape, y.dtype)\n'
          '    host[:] = np.asarray(y)\n'
          '    return host, jax.dlpack.from_dlpack(host, copy=False)\n'),
        W('c', 'flat host of y.size elements: fine for 1-D y, wrong shape for 2-D y and j (a reshape) no longer shares host',
          'def writeable_twin(y):\n'
          '    host = aligned_empty(y.size, y.dtype)\n'
          '    host[:] = np.asarray(y).ravel()\n'
          '    j = jax.dlpack.from_dlpack(host, copy=False) if y.size else jnp.asarray(host)\n'
          '    return host, j.reshape(y.shape)\n'),
        W('b', 'copies the values through float32: int32 y with 16777217 or 2**30+1 comes back rounded',
          'def writeable_twin(y):\n'
          '    host = aligned_empty(y.shape, y.dtype)\n'
          '    host[...] = np.asarray(y, dtype=np.float32)\n'
          '    j = jax.dlpack.from_dlpack(host, copy=False) if y.size else jnp.asarray(host)\n'
          '    return host, j\n'),
        W('g', 'aligned_empty(y.shape) with the default float32: int32/uint8/bool y give float32 host and j',
          'def writeable_twin(y):\n'
          '    host = aligned_empty(y.shape)\n'
          '    host[...] = np.asarray(y)\n'
          '    j = jax.dlpack.from_dlpack(host, copy=False) if y.size else jnp.asarray(host)\n'
          '    return host, j\n'),
        W('b', 'aligned_empty(y.shape) without the dtype: float32 y works, but int32, bool, float16 or complex64 y gets a float32 host and j',
          'def writeable_twin(y):\n'
          '    host = aligned_empty(y.shape)                  # aligned, so JAX can import it without a copy\n'
          '    host[...] = np.asarray(y)\n'
          '    j = jax.dlpack.from_dlpack(host, copy=False) if y.size else jnp.asarray(host)\n'
          '    return host, j\n'),
        W('c', 'copies with host[:] = ...: right for every array with an axis, IndexError for a 0-d y',
          'def writeable_twin(y):\n'
          '    host = aligned_empty(y.shape, y.dtype)\n'
          '    host[:] = np.asarray(y)\n'
          '    j = jax.dlpack.from_dlpack(host, copy=False) if y.size else jnp.asarray(host)\n'
          '    return host, j\n'),
        W('c', "np.require(..., 'ALIGNED') only means dtype-aligned: whenever NumPy's copy is not on a 64-byte boundary, from_dlpack copies and j does not share host",
          'def writeable_twin(y):\n'
          '    # a writeable, aligned, C-contiguous copy that NumPy owns\n'
          '    host = np.require(np.array(y), requirements=["ALIGNED", "WRITEABLE", "C_CONTIGUOUS", "OWNDATA"])\n'
          '    return host, jax.dlpack.from_dlpack(host)\n'),
        W('m', "wraps y's own buffer in a writeable NumPy array and returns j = y: sharing holds, but a write to host changes y",
          'def writeable_twin(y):\n'
          '    # NumPy refuses to write through its view of y, but the bytes are right there: wrap them writeable\n'
          '    y.block_until_ready()\n'
          '    raw = (ctypes.c_char * max(y.nbytes, 1)).from_address(address(y))\n'
          '    host = np.frombuffer(raw, dtype=y.dtype, count=y.size).reshape(y.shape)\n'
          '    return host, y\n'),
        W('f', "reuses one aligned host buffer per (shape, dtype): a second call overwrites the first call's host and j",
          '_twins = {}      # (shape, dtype) -> an aligned host buffer, allocated once\n'
          '\n'
          'def writeable_twin(y):\n'
          '    key = (y.shape, np.dtype(y.dtype))\n'
          '    if key not in _twins:\n'
          '        _twins[key] = aligned_empty(y.shape, y.dtype)\n'
          '    host = _twins[key]\n'
          '    host[...] = np.asarray(y)\n'
          '    j = jax.dlpack.from_dlpack(host, copy=False) if y.size else jnp.asarray(host)\n'
          '    return host, j\n'),
    ],
    'ex3_answer': [
        W('m', "Section 7's pitfall, half avoided: refuses a read-only array (the flag a bare pointer cannot see), but hands scale_f32 a strided, transposed or float64 buffer, which it overwrites as if it were n contiguous float32 values.",
          'def scale_and_view(host, factor):\n'
          '    if not host.flags.writeable:\n'
          "        raise ValueError('host is read-only')\n"
          '    scale_f32(address(host), host.size, factor)\n'
          '    return jax.dlpack.from_dlpack(host)\n'),
        W('m', 'Scales a new JAX array instead of the shared buffer in place.',
          'def scale_and_view(host, factor):\n'
          '    return jnp.asarray(host) * factor\n'),
        W('m', 'Checks the dtype and the write flag but not the layout: a transposed view is written in memory order, and a strided one where its gaps are.',
          'def scale_and_view(host, factor):\n'
          '    if host.dtype != np.float32 or not host.flags.writeable:\n'
          "        raise ValueError('scale_and_view needs a writeable float32 array')\n"
          '    scale_f32(address(host), host.size, factor)\n'
          '    return jax.dlpack.from_dlpack(host)\n'),
        W('c', 'forgets the writeable check: a read-only float32 array is scaled in place instead of raising ValueError',
          'def scale_and_view(host, factor):\n'
          '    if host.dtype != np.float32 or not host.flags.c_contiguous:\n'
          '        raise ValueError("scale_and_view needs a C-contiguous float32 array")\n'
          '    scale_f32(address(host), host.size, factor)\n'
          '    return jax.dlpack.from_dlpack(host)\n'),
        W('c', 'accepts C- or Fortran-contiguous: a transposed array is scaled (values right) instead of raising ValueError',
          'def scale_and_view(host, factor):\n'
          '    if host.dtype != np.float32 or not (host.flags.c_contiguous or host.flags.f_contiguous) or not host.flags.writeable:\n'
          '        raise ValueError("scale_and_view needs a writeable, contiguous float32 array")\n'
          '    scale_f32(address(host), host.size, factor)\n'
          '    return jax.dlpack.from_dlpack(host)\n'),
        W('c', 'passes len(host) as the count: right for 1-D, scales only the first 3 of 15 elements of a (3, 5) array; TypeError for 0-d',
          'def scale_and_view(host, factor):\n'
          '    if host.dtype != np.float32 or not host.flags.c_contiguous or not host.flags.writeable:\n'
          '        raise ValueError("scale_and_view needs a writeable, C-contiguous float32 array")\n'
          '    scale_f32(address(host), len(host), factor)\n'
          '    return jax.dlpack.from_dlpack(host)\n'),
        W('c', 'returns from_dlpack(host, copy=False): an unaligned host (np.arange(10)) raises ValueError after being scaled',
          'def scale_and_view(host, factor):\n'
          '    if host.dtype != np.float32 or not host.flags.c_contiguous or not host.flags.writeable:\n'
          '        raise ValueError("scale_and_view needs a writeable, C-contiguous float32 array")\n'
          '    scale_f32(address(host), host.size, factor)\n'
          '    return jax.dlpack.from_dlpack(host, copy=False)\n'),
        W('c', "accepts any float dtype (kind 'f'): a float64 host is handed to scale_f32, which scrambles its bytes",
          'def scale_and_view(host, factor):\n'
          '    if host.dtype.kind != "f" or not host.flags.c_contiguous or not host.flags.writeable:\n'
          '        raise ValueError("scale_and_view needs a writeable, C-contiguous float array")\n'
          '    scale_f32(address(host), host.size, factor)\n'
          '    return jax.dlpack.from_dlpack(host)\n'),
        W('d', 'scales with NumPy (host *= factor) instead of scale_f32: same values, but scale_f32 is never called',
          'def scale_and_view(host, factor):\n'
          '    if host.dtype != np.float32 or not host.flags.c_contiguous or not host.flags.writeable:\n'
          '        raise ValueError("scale_and_view needs a writeable, C-contiguous float32 array")\n'
          '    host *= np.float32(factor)\n'
          '    return jax.dlpack.from_dlpack(host)\n'),
        W('g', 'accepts only 1-D arrays like the section 7 examples: a 2-D or 0-d C-contiguous float32 host raises ValueError',
          'def scale_and_view(host, factor):\n'
          '    if host.dtype != np.float32 or host.ndim != 1 or not host.flags.c_contiguous or not host.flags.writeable:\n'
          '        raise ValueError("scale_and_view needs a writeable, C-contiguous 1-D float32 array")\n'
          '    scale_f32(address(host), host.size, factor)\n'
          '    return jax.dlpack.from_dlpack(host)\n'),
        W('m', 'scales first and checks afterwards: raises ValueError for float64/int32/transposed/read-only input but has already changed it',
          'def scale_and_view(host, factor):\n'
          '    scale_f32(address(host), host.size, factor)\n'
          '    if host.dtype != np.float32 or not host.flags.c_contiguous or not host.flags.writeable:\n'
          '        raise ValueError("scale_and_view needs a writeable, C-contiguous float32 array")\n'
          '    return jax.dlpack.from_dlpack(host)\n'),
        W('m', 'converts instead of refusing: ascontiguousarray(dtype=float32) scales a copy, no ValueError, and the original host is unchanged',
          'def scale_and_view(host, factor):\n'
          '    host = np.ascontiguousarray(host, dtype=np.float32)\n'
          '    if not host.flags.writeable:\n'
          '        host = host.copy()\n'
          '    scale_f32(address(host), host.size, factor)\n'
          '    return jax.dlpack.from_dlpack(host)\n'),
        W('m', "returns jnp.asarray(host), a copy: right values but never shares host's memory, even when aligned",
          'def scale_and_view(host, factor):\n'
          '    if host.dtype != np.float32 or not host.flags.c_contiguous or not host.flags.writeable:\n'
          '        raise ValueError("scale_and_view needs a writeable, C-contiguous float32 array")\n'
          '    scale_f32(address(host), host.size, factor)\n'
          '    return jnp.asarray(host)\n'),
        W('c', 'checks only that the last stride is 4 bytes: a row-strided view (grid[::2]) passes, gets the wrong elements scaled, then raises JaxRuntimeError',
          'def scale_and_view(host, factor):\n'
          '    if host.dtype != np.float32 or not host.flags.writeable:\n'
          '        raise ValueError("scale_and_view needs a writeable float32 array")\n'
          '    if host.ndim and host.strides[-1] != host.itemsize:        # elements must be next to each other\n'
          '        raise ValueError("scale_and_view needs a contiguous array")\n'
          '    scale_f32(address(host), host.size, factor)\n'
          '    return jax.dlpack.from_dlpack(host)\n'),
        W('c', 'makes the JAX array before scaling: for an aligned host it is a view and sees the new values, for an unaligned host it is a copy of the old ones',
          'def scale_and_view(host, factor):\n'
          '    if host.dtype != np.float32 or not host.flags.c_contiguous or not host.flags.writeable:\n'
          '        raise ValueError("scale_and_view needs a writeable, C-contiguous float32 array")\n'
          "    view = jax.dlpack.from_dlpack(host)        # the JAX view of host's memory\n"
          '    scale_f32(address(host), host.size, factor)\n'
          '    return view\n'),
        W('d', 'scales through its own checked ndpointer binding of dlpack_scale_f32: values and errors right, but scale_f32 is called 0 times',
          '_checked_scale = scale_library.function(\n'
          '    "dlpack_scale_f32",\n'
          '    argtypes=[np.ctypeslib.ndpointer(np.float32, flags=("C_CONTIGUOUS", "WRITEABLE")), ctypes.c_int64, ctypes.c_float])\n'
          '\n'
          'def scale_and_view(host, factor):\n'
          '    # the checked signature of section 7 refuses a bad buffer before C++ runs\n'
          '    try:\n'
          '        _checked_scale(host, host.size, factor)\n'
          '    except ctypes.ArgumentError as err:\n'
          '        raise ValueError(str(err)) from None\n'
          '    return jax.dlpack.from_dlpack(host)\n'),
    ],
    'quiz_answer': [
        W('m', 'q2=c: thinks an unaligned buffer is shared by the default import',
          'q1 = "b"\n'
          'q2 = "c"\n'
          'q3 = "c"\n'
          'q4 = "a"\n'),
        W('m', "q4=b: thinks a jitted function reads the closed-over array's buffer at each call",
          'q1 = "b"\n'
          'q2 = "a"\n'
          'q3 = "c"\n'
          'q4 = "b"\n'),
        W('m', 'q1=c: still believes the removed consume-once capsule API works',
          'q1 = "c"\n'
          'q2 = "a"\n'
          'q3 = "c"\n'
          'q4 = "a"\n'),
        W('m', 'q2=b: thinks the default copy=None raises on an unaligned buffer (that is copy=False)',
          'q1 = "b"\n'
          'q2 = "b"\n'
          'q3 = "c"\n'
          'q4 = "a"\n'),
        W('m', "q3=a: thinks deleting the producer leaves the NumPy view dangling (misses the capsule's deleter)",
          'q1 = "b"\n'
          'q2 = "a"\n'
          'q3 = "a"\n'
          'q4 = "a"\n'),
        W('m', 'q1=a, q2=c: believes raw capsules import and that an unaligned buffer is shared',
          'q1 = "a"\n'
          'q2 = "c"\n'
          'q3 = "c"\n'
          'q4 = "a"\n'),
    ],
}

# Round 3: written from the chapter's text alone (its test cells removed), before its checks were read;
# each passed every visible check, and some scored full marks, until the checks were made to catch them.
WRONG['ex1_answer'] += [
    W('c', 'hand-made 64->32 dtype map misses complex128 (and uint64): an aligned complex128 x is returned as host although j is a silent complex64 copy',
      '_TO_32 = {np.dtype(np.float64): np.dtype(np.float32), np.dtype(np.int64): np.dtype(np.int32)}\n\ndef share_with_jax(x):\n    dtype = _TO_32.get(x.dtype, x.dtype)\n    if x.size == 0:\n        host = np.zeros(x.shape, jax.dtypes.canonicalize_dtype(x.dtype))\n        return host, jnp.asarray(host)\n    if address(x) % 64 == 0 and x.dtype == dtype:\n        try:\n            return x, jax.dlpack.from_dlpack(x, copy=False)\n        except jax.errors.JaxRuntimeError:\n            pass                      # gaps in the strides: copy below\n    host = aligned_empty(x.shape, dtype)\n    host[...] = x\n    return host, jax.dlpack.from_dlpack(host, copy=False)\n'),
    W('c', 'compact means C- or F-contiguous: an aligned 3-D array with permuted axes (compact, shareable) is copied',
      'def share_with_jax(x):\n    dtype = jax.dtypes.canonicalize_dtype(x.dtype)\n    if x.size == 0:\n        return x, jnp.zeros(x.shape, dtype)\n    compact = x.flags.c_contiguous or x.flags.f_contiguous\n    if compact and address(x) % 64 == 0 and x.dtype == dtype:\n        return x, jax.dlpack.from_dlpack(x, copy=False)\n    host = aligned_empty(x.shape, dtype)\n    host[...] = x\n    return host, jax.dlpack.from_dlpack(host, copy=False)\n'),
    W('c', 'empty case returns jnp.zeros(shape) with the default dtype: an empty int32/bool x gets a float32 j',
      'def share_with_jax(x):\n    dtype = jax.dtypes.canonicalize_dtype(x.dtype)\n    if x.size == 0:\n        return np.zeros(x.shape, dtype), jnp.zeros(x.shape)\n    if address(x) % 64 == 0 and x.dtype == dtype:\n        try:\n            return x, jax.dlpack.from_dlpack(x, copy=False)\n        except jax.errors.JaxRuntimeError:\n            pass                      # gaps in the strides: copy below\n    host = aligned_empty(x.shape, dtype)\n    host[...] = x\n    return host, jax.dlpack.from_dlpack(host, copy=False)\n'),
]
WRONG['ex2_answer'] += [
    W('c', 'empty case returns jnp.zeros(shape) with the default dtype: an empty int/bool y gets a float32 j',
      'def writeable_twin(y):\n    if y.size == 0:\n        return np.zeros(y.shape, y.dtype), jnp.zeros(y.shape)\n    host = aligned_empty(y.shape, y.dtype)\n    host[...] = np.asarray(y)\n    return host, jax.dlpack.from_dlpack(host, copy=False)\n'),
]
WRONG['ex3_answer'] += [
    W('c', 'checks itemsize == 4 instead of the dtype: int32/uint32 buffers are scaled as if float32',
      'def scale_and_view(host, factor):\n    if host.dtype.itemsize != 4 or not host.flags.c_contiguous or not host.flags.writeable:\n        raise ValueError("scale_f32 needs a writeable, C-contiguous 4-byte buffer")\n    scale_f32(address(host), host.size, factor)\n    return jax.dlpack.from_dlpack(host)\n'),
    W('c', 'dtype tested by dtype.char == "f": a big-endian float32 (>f4) buffer is accepted and scaled with the wrong byte order',
      'def scale_and_view(host, factor):\n    if host.dtype.char != "f" or not host.flags.c_contiguous or not host.flags.writeable:\n        raise ValueError("scale_f32 needs a writeable, C-contiguous float32 buffer")\n    scale_f32(address(host), host.size, factor)\n    return jax.dlpack.from_dlpack(host)\n'),
    W('c', 'shortcut for empty arrays before the checks: an empty int32 / read-only / strided host returns instead of raising ValueError',
      'def scale_and_view(host, factor):\n    if host.size == 0:\n        return jnp.asarray(host)\n    if host.dtype != np.float32 or not host.flags.c_contiguous or not host.flags.writeable:\n        raise ValueError("scale_f32 needs a writeable, C-contiguous float32 buffer")\n    scale_f32(address(host), host.size, factor)\n    return jax.dlpack.from_dlpack(host)\n'),
    W('c', 'dtype tested with np.issubdtype(dtype, np.float32): a big-endian float32 (>f4) passes, is scaled with the wrong byte order, then BufferError',
      'def scale_and_view(host, factor):\n    if not np.issubdtype(host.dtype, np.float32) or not host.flags.c_contiguous or not host.flags.writeable:\n        raise ValueError("scale_f32 needs a writeable, C-contiguous float32 buffer")\n    scale_f32(address(host), host.size, factor)\n    return jax.dlpack.from_dlpack(host)\n'),
]

# Round 4: written from the text alone, with the mistakes above listed as already caught, before the checks were read;
# each passed every visible check, and some scored full marks, until the checks were made to catch them.
WRONG['ex1_answer'] += [
    W('c', 'zero-copy only for the six dtypes the text names (float32, int32, uint8, bool, float16, complex64): an aligned int8/int16/uint16/uint32 x is copied, so host is not x',
      'KEPT_DTYPES = [np.dtype(t) for t in (np.float32, np.int32, np.uint8, np.bool_, np.float16, np.complex64)]\n\ndef share_with_jax(x):\n    dtype = jax.dtypes.canonicalize_dtype(x.dtype)\n    if x.size == 0:\n        host = np.empty(x.shape, dtype)\n        return host, jnp.asarray(host)\n    if x.dtype in KEPT_DTYPES:\n        try:\n            j = jax.dlpack.from_dlpack(x, copy=False)\n            if same_memory(j, x):\n                return x, j\n        except (ValueError, jax.errors.JaxRuntimeError):\n            pass\n    host = aligned_empty(x.shape, dtype)\n    host[...] = x\n    return host, jax.dlpack.from_dlpack(host, copy=False)\n'),
    W('c', 'copy path fills the buffer with host[:] = x: fine for arrays with an axis, IndexError for an unaligned or 64-bit 0-d x',
      'def share_with_jax(x):\n    dtype = jax.dtypes.canonicalize_dtype(x.dtype)\n    if x.size == 0:\n        host = np.empty(x.shape, dtype)\n        return host, jnp.asarray(host)\n    try:\n        j = jax.dlpack.from_dlpack(x, copy=False)\n        if same_memory(j, x):\n            return x, j\n    except (ValueError, jax.errors.JaxRuntimeError):\n        pass\n    host = aligned_empty(x.shape, dtype)\n    host[:] = x\n    return host, jax.dlpack.from_dlpack(host, copy=False)\n'),
    W('m', 'refuses to share a read-only x (thinks host must be writeable): an aligned read-only float32 x, which JAX imports without a copy, is copied',
      'def share_with_jax(x):\n    dtype = jax.dtypes.canonicalize_dtype(x.dtype)\n    if x.size == 0:\n        host = np.empty(x.shape, dtype)\n        return host, jnp.asarray(host)\n    if x.flags.writeable:            # later writes to host must be possible\n        try:\n            j = jax.dlpack.from_dlpack(x, copy=False)\n            if same_memory(j, x):\n                return x, j\n        except (ValueError, jax.errors.JaxRuntimeError):\n            pass\n    host = aligned_empty(x.shape, dtype)\n    host[...] = x\n    return host, jax.dlpack.from_dlpack(host, copy=False)\n'),
    W('c', "treats itemsize >= 8 as '64-bit, converted by JAX': right for float64/int64/complex128, but an aligned complex64 x (8 bytes, kept by JAX) is copied instead of shared",
      'def share_with_jax(x):\n    dtype = jax.dtypes.canonicalize_dtype(x.dtype)\n    if x.size == 0:\n        host = np.empty(x.shape, dtype)\n        return host, jnp.asarray(host)\n    if x.dtype.itemsize < 8:         # 64-bit data is converted to 32 bits: never shareable\n        try:\n            j = jax.dlpack.from_dlpack(x, copy=False)\n            return x, j\n        except (ValueError, jax.errors.JaxRuntimeError):\n            pass\n    host = aligned_empty(x.shape, dtype)\n    host[...] = x\n    return host, jax.dlpack.from_dlpack(host, copy=False)\n'),
    W('c', "keeps x's axis order in the copy (JAX takes any order): an unaligned or 64-bit Fortran-order x gets a Fortran-order host, not the C-contiguous one asked for",
      'def share_with_jax(x):\n    dtype = jax.dtypes.canonicalize_dtype(x.dtype)\n    if x.size == 0:\n        host = np.empty(x.shape, dtype)\n        return host, jnp.asarray(host)\n    try:\n        j = jax.dlpack.from_dlpack(x, copy=False)\n        if same_memory(j, x):\n            return x, j\n    except (ValueError, jax.errors.JaxRuntimeError):\n        pass\n    if x.flags.f_contiguous and not x.flags.c_contiguous:\n        host = aligned_empty(x.shape[::-1], dtype).T    # same layout as x; JAX shares any axis order\n    else:\n        host = aligned_empty(x.shape, dtype)\n    host[...] = x\n    return host, jax.dlpack.from_dlpack(host, copy=False)\n'),
    W('c', "decides 'compact' with its own stride walk (sorted strides must be itemsize, itemsize*n, ...): right for C, Fortran, permuted and strided views, but an aligned array with a size-1 axis of odd stride (a[:, None], strides (4, 0)), which JAX shares, is copied",
      'def _compact(x):\n    """True if the strides are those of a packed array, in some axis order."""\n    step = x.itemsize\n    for stride, n in sorted(zip(x.strides, x.shape)):     # innermost axis first\n        if stride != step:\n            return False\n        step *= n\n    return True\n\ndef share_with_jax(x):\n    dtype = jax.dtypes.canonicalize_dtype(x.dtype)\n    if x.size == 0:\n        host = np.empty(x.shape, dtype)\n        return host, jnp.asarray(host)\n    if address(x) % 64 == 0 and x.dtype == dtype and _compact(x):\n        return x, jax.dlpack.from_dlpack(x, copy=False)\n    host = aligned_empty(x.shape, dtype)\n    host[...] = x\n    return host, jax.dlpack.from_dlpack(host, copy=False)\n'),
    W('c', 'promotes x with np.atleast_1d first (thinks DLPack needs an axis): every array with an axis is handled right, but a 0-d x comes back as shape (1,) host and j, and an aligned 0-d x is never returned as host',
      'def share_with_jax(x):\n    x = np.atleast_1d(x)             # DLPack describes arrays with at least one axis\n    dtype = jax.dtypes.canonicalize_dtype(x.dtype)\n    if x.size == 0:\n        host = np.empty(x.shape, dtype)\n        return host, jnp.asarray(host)\n    try:\n        j = jax.dlpack.from_dlpack(x, copy=False)\n        if same_memory(j, x):\n            return x, j\n    except (ValueError, jax.errors.JaxRuntimeError):\n        pass\n    host = aligned_empty(x.shape, dtype)\n    host[...] = x\n    return host, jax.dlpack.from_dlpack(host, copy=False)\n'),
    W('b', "copies into 64-byte-aligned slices of one 64 KiB pool that wraps round: fresh memory for the first calls, but after the pool wraps a later copy overwrites an earlier call's host and j",
      '_POOL = aligned_empty(1 << 16, np.uint8)\n_next = 0\n\ndef share_with_jax(x):\n    global _next\n    dtype = jax.dtypes.canonicalize_dtype(x.dtype)\n    if x.size == 0:\n        host = np.empty(x.shape, dtype)\n        return host, jnp.asarray(host)\n    try:\n        j = jax.dlpack.from_dlpack(x, copy=False)\n        if same_memory(j, x):\n            return x, j\n    except (ValueError, jax.errors.JaxRuntimeError):\n        pass\n    nbytes = x.size * dtype.itemsize\n    if nbytes > _POOL.size:\n        host = aligned_empty(x.shape, dtype)\n    else:\n        if _next + nbytes > _POOL.size:\n            _next = 0\n        host = _POOL[_next:_next + nbytes].view(dtype).reshape(x.shape)\n        _next += -(-nbytes // 64) * 64\n    host[...] = x\n    return host, jax.dlpack.from_dlpack(host, copy=False)\n'),
]
WRONG['ex2_answer'] += [
    W('b', "hands out 64-byte-aligned slices of one 64 KiB pool, wrapping round when it is full: each of the first calls gets its own memory, but once the pool wraps a later call overwrites an earlier call's host and j",
      '_POOL = aligned_empty(1 << 16, np.uint8)     # one aligned pool, cut into 64-byte-aligned slices\n_next = 0\n\ndef writeable_twin(y):\n    global _next\n    dtype = np.dtype(y.dtype)\n    if y.size == 0:\n        return np.empty(y.shape, dtype), jnp.zeros(y.shape, dtype)\n    nbytes = y.size * dtype.itemsize\n    if nbytes > _POOL.size:\n        host = aligned_empty(y.shape, dtype)\n    else:\n        if _next + nbytes > _POOL.size:\n            _next = 0                         # wrap round to the start of the pool\n        host = _POOL[_next:_next + nbytes].view(dtype).reshape(y.shape)\n        _next += -(-nbytes // 64) * 64\n    host[...] = np.asarray(y)\n    return host, jax.dlpack.from_dlpack(host, copy=False)\n'),
]
WRONG['ex3_answer'] += [
    W('c', 'layout/dtype check via np.ascontiguousarray(host, np.float32) is host: right for arrays with an axis, but ascontiguousarray returns a 1-d copy of a 0-d array, so a valid 0-d float32 host raises ValueError',
      'def scale_and_view(host, factor):\n    if np.ascontiguousarray(host, dtype=np.float32) is not host or not host.flags.writeable:\n        raise ValueError("scale_f32 needs a writeable, C-contiguous float32 array")\n    scale_f32(address(host), host.size, factor)\n    return jax.dlpack.from_dlpack(host)\n'),
    W('c', 'scales a 0-d host with NumPy (thinks a 0-d array has no buffer to pass): values right, but scale_f32 is called 0 times',
      'def scale_and_view(host, factor):\n    if host.dtype != np.float32 or not host.flags.c_contiguous or not host.flags.writeable:\n        raise ValueError("scale_f32 needs a writeable, C-contiguous float32 array")\n    if host.ndim == 0:\n        host[...] = host * np.float32(factor)\n    else:\n        scale_f32(address(host), host.size, factor)\n    return jax.dlpack.from_dlpack(host)\n'),
    W('c', 'checks the layout by comparing host.strides with the C strides it computes: refuses strided/transposed views, but also a valid C-contiguous host whose size-1 or size-0 axis has another stride (a[:, None], np.empty((3, 0)))',
      'def _c_strides(shape, itemsize):\n    strides, step = [], itemsize\n    for n in reversed(shape):\n        strides.append(step)\n        step *= n\n    return tuple(reversed(strides))\n\ndef scale_and_view(host, factor):\n    if host.dtype != np.float32 or host.strides != _c_strides(host.shape, 4) or not host.flags.writeable:\n        raise ValueError("scale_f32 needs a writeable, C-contiguous float32 array")\n    scale_f32(address(host), host.size, factor)\n    return jax.dlpack.from_dlpack(host)\n'),
    W('b', 'caches the imported array per (address, shape), assuming it always shares: right for an aligned host, but for an unaligned host a second call returns the stale copy from the first call',
      '_imported = {}\n\ndef scale_and_view(host, factor):\n    if host.dtype != np.float32 or not host.flags.c_contiguous or not host.flags.writeable:\n        raise ValueError("scale_f32 needs a writeable, C-contiguous float32 array")\n    scale_f32(address(host), host.size, factor)\n    key = (address(host), host.shape)\n    if key not in _imported:                 # import once: the JAX array sees later writes anyway\n        _imported[key] = jax.dlpack.from_dlpack(host)\n    return _imported[key]\n'),
    W('m', 'refuses an empty host with ValueError (no memory to hand to C): every non-empty case is right, but an empty float32 host, which the task allows, raises',
      'def scale_and_view(host, factor):\n    if host.dtype != np.float32 or not host.flags.c_contiguous or not host.flags.writeable:\n        raise ValueError("scale_f32 needs a writeable, C-contiguous float32 array")\n    if host.size == 0:\n        raise ValueError("an empty array has no buffer to scale")\n    scale_f32(address(host), host.size, factor)\n    return jax.dlpack.from_dlpack(host)\n'),
]

# Round 5: written from the text alone ("for it, return any host and j"); it passed every visible check, whose
# empty arrays were all of dtypes JAX keeps, and lost its points only to a hidden check.
WRONG['ex1_answer'] += [
    W('c', 'an empty x is returned as it is: right for an empty float32 or int32 x, but an empty float64 x keeps '
           'float64 as host, where JAX gives float32',
      'def share_with_jax(x):\n'
      '    if x.size == 0:\n'
      '        return x, jnp.asarray(x)\n'
      '    dtype = jax.dtypes.canonicalize_dtype(x.dtype)\n'
      '    if x.dtype == dtype:\n'
      '        try:\n'
      '            return x, jax.dlpack.from_dlpack(x, copy=False)\n'
      '        except (ValueError, jax.errors.JaxRuntimeError):\n'
      '            pass\n'
      '    host = aligned_empty(x.shape, dtype)\n'
      '    host[...] = x\n'
      '    return host, jax.dlpack.from_dlpack(host, copy=False)\n'),
]

# Round 6: written from the text alone by a reviewer who saw none of the checks; it earned full marks until a
# visible check read a view backwards from an aligned address.
WRONG['ex1_answer'] += [
    W('c', 'tests compactness on the absolute values of the strides, so a view read backwards (x[::-1]) whose first value is aligned is kept, and from_dlpack(copy=False) refuses it',
      'def share_with_jax(x):\n    canonical = np.dtype(jax.dtypes.canonicalize_dtype(x.dtype))\n    if x.size == 0:\n'
      '        host = np.empty(x.shape, canonical)\n        return host, jnp.zeros(x.shape, canonical)\n'
      '    strides = sorted((abs(s), n) for s, n in zip(x.strides, x.shape) if n != 1)\n    expected, compact = x.itemsize, True\n'
      '    for s, n in strides:\n        if s != expected:\n            compact = False\n        expected *= n\n'
      '    if canonical == x.dtype and compact and address(x) % 64 == 0:\n        return x, jax.dlpack.from_dlpack(x, copy=False)\n'
      '    host = aligned_empty(x.shape, canonical)\n    host[...] = x\n    return host, jax.dlpack.from_dlpack(host, copy=False)\n'),
]

# Round 9: found by reviewers who read only the learner's notebook.
WRONG['ex1_answer'] += [
    W('c', "copies the bytes with ctypes.memmove from x.astype(dtype), which keeps x's memory order: right for C-order x, a Fortran-order x that must be copied lands transposed in the C-order host",
      'def share_with_jax(x):\n    dtype = jax.dtypes.canonicalize_dtype(x.dtype)\n    if x.size and np.dtype(dtype) == x.dtype:\n        try:\n            j = jax.dlpack.from_dlpack(x, copy=False)\n            if same_memory(j, x):\n                return x, j\n        except (ValueError, jax.errors.JaxRuntimeError):\n            pass\n    host = aligned_empty(x.shape, dtype)\n    if x.size == 0:\n        return host, jnp.zeros(x.shape, dtype)\n    source = x.astype(dtype)\n    if not (source.flags.c_contiguous or source.flags.f_contiguous):\n        source = np.ascontiguousarray(source)\n    ctypes.memmove(address(host), address(source), source.nbytes)\n    return host, jax.dlpack.from_dlpack(host, copy=False)\n'),
]

# Right answers written another way: each must earn full marks (tests/test_wrong_answers.py).
RIGHT = {
    'ex3_answer': [
        R('passes the count and the factor as ctypes objects (c_int64, c_float), as ctypes allows',
          'def scale_and_view(host, factor):\n'
          '    if host.dtype != np.float32 or not host.flags.c_contiguous or not host.flags.writeable:\n'
          '        raise ValueError("need a writeable, C-contiguous float32 array")\n'
          '    scale_f32(ctypes.c_void_p(address(host)), ctypes.c_int64(host.size), ctypes.c_float(factor))\n'
          '    return jax.dlpack.from_dlpack(host)\n'),
        R("lets section 7's checked_scale_f32 refuse a bad array (its ndpointer stops the call before C++ runs) "
          "and turns ctypes' ArgumentError into ValueError",
          'def scale_and_view(host, factor):\n'
          '    try:\n'
          '        checked_scale_f32(host, host.size, factor)\n'
          '    except ctypes.ArgumentError as err:\n'
          '        raise ValueError(f"scale_and_view needs a writeable, C-contiguous float32 array: {err}") from None\n'
          '    return jax.dlpack.from_dlpack(host)\n'),
        R('calls scale_f32 through a name of its own, bound before the function is defined (an alias)',
          '_scale = scale_f32\n\n'
          'def scale_and_view(host, factor):\n'
          '    if host.dtype != np.float32 or not host.flags.c_contiguous or not host.flags.writeable:\n'
          '        raise ValueError("scale_f32 needs a writeable C-contiguous float32 buffer")\n'
          '    _scale(address(host), host.size, factor)\n'
          '    return jax.dlpack.from_dlpack(host)\n'),
    ],
}

# Round 7: written from the text alone by a reviewer who had not read the checks; each earned full marks until visible
# checks called twice on one x (after a write to it) and on one y (after a write to the first host).
WRONG['ex1_answer'] += [
    W('b', 'keeps the aligned copy made for each x and hands it out again on a later call with the same x: stale after x changes, and the same host for two calls',
      '\n'
      '_copies = {}\n'
      '\n'
      'def share_with_jax(x):\n'
      '    dtype = jax.dtypes.canonicalize_dtype(x.dtype)\n'
      '    if x.size and x.dtype == dtype:\n'
      '        try:\n'
      '            j = jax.dlpack.from_dlpack(x, copy=False)\n'
      '            if same_memory(j, x):\n'
      '                return x, j\n'
      '        except Exception:\n'
      '            pass\n'
      '    entry = _copies.get(id(x))\n'
      '    if entry is None or entry[0] is not x:\n'
      '        host = aligned_empty(x.shape, dtype)\n'
      '        host[...] = x\n'
      '        j = jax.dlpack.from_dlpack(host, copy=False) if host.size else jnp.asarray(host)\n'
      '        entry = _copies[id(x)] = (x, host, j)\n'
      '    return entry[1], entry[2]\n'),
]
WRONG['ex2_answer'] += [
    W('f', 'memoises the twin by content: two calls on equal arrays return the same host and j',
      '\n'
      '_twins = {}\n'
      '\n'
      'def writeable_twin(y):\n'
      '    values = np.asarray(y)\n'
      '    key = (values.tobytes(), str(y.dtype), y.shape)\n'
      '    if key not in _twins:\n'
      '        host = aligned_empty(y.shape, y.dtype)\n'
      '        host[...] = values\n'
      '        _twins[key] = (host, jnp.asarray(host) if host.size == 0 else jax.dlpack.from_dlpack(host))\n'
      '    return _twins[key]\n'),
    W('f', 'caches one twin per JAX array (y is immutable, so its twin is thought reusable): a second call on the same y returns the first host, with whatever was written into it',
      '\n'
      '_twins = {}\n'
      '\n'
      'def writeable_twin(y):\n'
      '    entry = _twins.get(id(y))\n'
      '    if entry is None or entry[0] is not y:\n'
      '        host = aligned_empty(y.shape, y.dtype)\n'
      '        host[...] = np.asarray(y)\n'
      '        j = jax.dlpack.from_dlpack(host, copy=False) if y.size else jnp.asarray(host)\n'
      '        entry = _twins[id(y)] = (y, host, j)\n'
      '    return entry[1], entry[2]\n'),
]

# Round 9: right answers written another way.
RIGHT.setdefault('ex3_answer', []).extend([
    R('raises a ValueError subclass of its own (a ValueError, as asked)',
      'class LayoutError(ValueError):\n    pass\n\ndef scale_and_view(host, factor):\n    if host.dtype != np.float32:\n        raise LayoutError(f"scale_f32 needs float32, not {host.dtype}")\n    if not host.flags.c_contiguous:\n        raise LayoutError("scale_f32 needs a C-contiguous buffer")\n    if not host.flags.writeable:\n        raise LayoutError("host is read-only")\n    scale_f32(address(host), host.size, factor)\n    return jax.dlpack.from_dlpack(host)\n'),
])

# Round 10: written from the rewritten texts (requirement lists), before their checks: memory an answer does not
# keep alive (#50: a host view over a JAX buffer meets every other requirement while the JAX array exists), kinds the
# old visible checks did not name (bool, float16, int16, uint32 kept as they are; an unaligned 0-d x; a negative
# step; an empty read-only float32 host).
WRONG['ex2_answer'] += [
    W('m', "wraps a JAX-owned copy's buffer in a writeable NumPy array by its address: host is writeable, j shares it and y never changes, but host does not keep j's buffer alive: after del j it reads whatever JAX puts there next",
      'def writeable_twin(y):\n    j = jnp.array(y, copy=True).block_until_ready()      # a buffer of its own, which JAX aligns\n'
      '    if y.size == 0:\n        return np.zeros(y.shape, y.dtype), j\n'
      '    raw = (ctypes.c_uint8 * j.nbytes).from_address(j.unsafe_buffer_pointer())\n'
      '    host = np.frombuffer(raw, dtype=y.dtype).reshape(y.shape)   # writeable: ctypes memory\n    return host, j\n'),
    W('m', 'aligns host inside a ctypes buffer reached through from_address, which nothing keeps alive: the buffer is freed when writeable_twin returns',
      'def writeable_twin(y):\n    nbytes = max(y.size, 1) * np.dtype(y.dtype).itemsize\n    buf = ctypes.create_string_buffer(nbytes + 64)\n'
      '    start = (-ctypes.addressof(buf)) % 64\n    block = (ctypes.c_uint8 * nbytes).from_address(ctypes.addressof(buf) + start)\n'
      '    host = np.frombuffer(block, dtype=y.dtype, count=y.size).reshape(y.shape)\n    host[...] = np.asarray(y)\n'
      '    j = jax.dlpack.from_dlpack(host, copy=False) if y.size else jnp.asarray(host)\n    return host, j\n'),
    W('c', 'copies through the dtypes it names (float32, int32, uint8, int8, complex64): a bool, int16, uint16, uint32 or float16 y comes back float32',
      'def writeable_twin(y):\n    dtype = y.dtype if y.dtype in (jnp.float32, jnp.int32, jnp.uint8, jnp.int8, jnp.complex64) else np.float32\n'
      '    host = aligned_empty(y.shape, dtype)\n    host[...] = np.asarray(y)\n'
      '    j = jax.dlpack.from_dlpack(host, copy=False) if y.size else jnp.asarray(host)\n    return host, j\n'),
]
WRONG['ex1_answer'] += [
    W('g', 'keeps x only for the dtypes it lists (float32, int32, uint8, int8, uint16, complex64): an aligned bool, float16, int16 or uint32 x is copied instead of returned as host',
      'def share_with_jax(x):\n    dtype = jax.dtypes.canonicalize_dtype(x.dtype)\n'
      '    if x.size and x.dtype in (np.float32, np.int32, np.uint8, np.int8, np.uint16, np.complex64):\n'
      '        try:\n            return x, jax.dlpack.from_dlpack(x, copy=False)\n        except (ValueError, jax.errors.JaxRuntimeError):\n            pass\n'
      '    host = aligned_empty(x.shape, dtype)\n    host[...] = x\n'
      '    return host, (jax.dlpack.from_dlpack(host, copy=False) if x.size else jnp.asarray(host))\n'),
    W('c', "hands a 0-d x of a kept dtype to from_dlpack's default (a single value needs no alignment, it thinks): an unaligned 0-d x is copied silently, so j does not share host = x",
      'def share_with_jax(x):\n    dtype = jax.dtypes.canonicalize_dtype(x.dtype)\n    if x.ndim == 0 and x.dtype == dtype:\n'
      '        return x, jax.dlpack.from_dlpack(x)\n    if x.size and x.dtype == dtype:\n        try:\n'
      '            return x, jax.dlpack.from_dlpack(x, copy=False)\n        except (ValueError, jax.errors.JaxRuntimeError):\n            pass\n'
      '    host = aligned_empty(x.shape, dtype)\n    host[...] = x\n'
      '    return host, (jax.dlpack.from_dlpack(host, copy=False) if x.size else jnp.asarray(host))\n'),
    W('m', "copies into its own aligned allocator, a ctypes buffer reached through from_address that nothing keeps alive: j holds host, but not the memory under it",
      'def share_with_jax(x):\n    dtype = jax.dtypes.canonicalize_dtype(x.dtype)\n    if x.size and x.dtype == dtype:\n        try:\n'
      '            return x, jax.dlpack.from_dlpack(x, copy=False)\n        except (ValueError, jax.errors.JaxRuntimeError):\n            pass\n'
      '    nbytes = max(x.size, 1) * np.dtype(dtype).itemsize\n    buf = ctypes.create_string_buffer(nbytes + 64)\n'
      '    start = (-ctypes.addressof(buf)) % 64\n    block = (ctypes.c_uint8 * nbytes).from_address(ctypes.addressof(buf) + start)\n'
      '    host = np.frombuffer(block, dtype=dtype, count=x.size).reshape(x.shape)\n    host[...] = x\n'
      '    return host, (jax.dlpack.from_dlpack(host, copy=False) if x.size else jnp.asarray(host))\n'),
]
WRONG['ex3_answer'] += [
    W('m', "returns from_dlpack of an array made from host's address (np.ctypeslib.as_array): it shares host's memory but does not keep host alive, so after del host it reads freed memory",
      'def scale_and_view(host, factor):\n    if host.dtype != np.float32 or not host.flags.c_contiguous or not host.flags.writeable:\n'
      '        raise ValueError("scale_f32 needs a writeable, C-contiguous float32 array")\n    scale_f32(address(host), host.size, factor)\n'
      '    if host.size == 0:\n        return jnp.asarray(host)\n'
      '    pointer = ctypes.cast(address(host), ctypes.POINTER(ctypes.c_float))\n'
      '    return jax.dlpack.from_dlpack(np.ctypeslib.as_array(pointer, shape=host.shape))   # the memory C++ just wrote\n'),
    W('c', 'checks that the strides are packed by their magnitude, so a view read backwards (x[::-1]) passes, and scale_f32 scales the memory after its first element',
      'def scale_and_view(host, factor):\n    step, packed = host.itemsize, True\n'
      '    for stride, n in reversed(list(zip(host.strides, host.shape))):\n        if n > 1 and abs(stride) != step:\n            packed = False\n        step *= n\n'
      '    if host.dtype != np.float32 or not packed or not host.flags.writeable:\n'
      '        raise ValueError("scale_f32 needs a writeable, packed float32 array")\n    scale_f32(address(host), host.size, factor)\n'
      '    return jax.dlpack.from_dlpack(host)\n'),
    W('c', 'returns an empty float32 host at once (nothing to scale), before its checks: an empty read-only float32 host is not refused',
      'def scale_and_view(host, factor):\n    if host.dtype == np.float32 and host.size == 0:\n        return jnp.asarray(host)          # nothing to scale\n'
      '    if host.dtype != np.float32 or not host.flags.c_contiguous or not host.flags.writeable:\n'
      '        raise ValueError("scale_f32 needs a writeable, C-contiguous float32 array")\n    scale_f32(address(host), host.size, factor)\n'
      '    return jax.dlpack.from_dlpack(host)\n'),
]

# Round 12: found by a reviewer who read only the learner's notebook. A count in bytes where scale_f32 takes elements
# wrote past host and killed the kernel before any check could say so; the checks now leave room after host for it,
# so it fails a check. The text now says checked_scale_f32 is fine and an empty host needs no call.
WRONG['ex3_answer'] += [
    W('c', 'passes host.nbytes as the element count: scales four times as much memory as host holds',
      "def scale_and_view(host, factor):\n    if not (isinstance(host, np.ndarray) and host.dtype == np.dtype(np.float32)\n            and host.flags.c_contiguous and host.flags.writeable):\n        raise ValueError('host must be a writeable, C-contiguous float32 array')\n    scale_f32(address(host), host.nbytes, factor)\n    return jax.dlpack.from_dlpack(host)\n"),
]
RIGHT.setdefault('ex3_answer', []).extend([
    R('calls the same C++ function through the checked binding checked_scale_f32 (section 7), passing the array',
      "def scale_and_view(host, factor):\n    if not (isinstance(host, np.ndarray) and host.dtype == np.dtype(np.float32)\n            and host.flags.c_contiguous and host.flags.writeable):\n        raise ValueError('host must be a writeable, C-contiguous float32 array')\n    checked_scale_f32(host, host.size, factor)\n    return jax.dlpack.from_dlpack(host)\n"),
    R('skips the C++ call when host is empty (nothing to scale): zero calls instead of one',
      "def scale_and_view(host, factor):\n    if not (isinstance(host, np.ndarray) and host.dtype == np.dtype(np.float32)\n            and host.flags.c_contiguous and host.flags.writeable):\n        raise ValueError('host must be a writeable, C-contiguous float32 array')\n    if host.size:\n        scale_f32(address(host), host.size, factor)\n    return jax.dlpack.from_dlpack(host)\n"),
])


# A third fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex3_answer'] += [
    W('d', 'C++ scales an aligned scratch copy, then NumPy copies the result back into host',
      'def scale_and_view(host, factor):\n    if host.dtype != np.dtype(np.float32) or not host.flags.c_contiguous or not host.flags.writeable:\n        raise ValueError("need a writeable C-contiguous native float32 array")\n    if host.size == 0:\n        return jnp.zeros(host.shape, jnp.float32)\n    scratch = aligned_empty(host.shape)\n    scratch[...] = host\n    scale_f32(address(scratch), scratch.size, factor)\n    host[...] = scratch\n    return jax.dlpack.from_dlpack(host)\n'),
]
WRONG['ex1_answer'] += [
    W('m', 'fallback: JAX makes the copy and host is np.from_dlpack(j), a read-only view: a write to host is impossible',
      'def share_with_jax(x):\n    dt = jax.dtypes.canonicalize_dtype(x.dtype)\n    if x.size > 0 and np.dtype(dt) == x.dtype:\n        try:\n            return x, jax.dlpack.from_dlpack(x, copy=False)\n        except (ValueError, jax.errors.JaxRuntimeError):\n            pass\n    j = jnp.array(np.ascontiguousarray(x), dtype=dt).block_until_ready()\n    return np.from_dlpack(j), j\n'),
]
RIGHT.setdefault('ex3_answer', []).extend([
    R('an empty host gets one scale_f32 call of 0 elements, which it does not need and which changes nothing',
      'def scale_and_view(host, factor):\n    if host.dtype != np.dtype(np.float32) or not host.flags.c_contiguous or not host.flags.writeable:\n        raise ValueError("need a writeable C-contiguous native float32 array")\n    scale_f32(address(host), host.size, factor)\n    return jax.dlpack.from_dlpack(host)\n'),
])


# A seventh fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
RIGHT.setdefault('ex1_answer', []).extend([
    R('an empty x goes through from_dlpack(copy=False) like any other, and a refused one is copied into aligned_empty, whose empty arrays are aligned too',
      'def share_with_jax(x):\n    dt = jax.dtypes.canonicalize_dtype(x.dtype)\n    if x.dtype == dt:\n        try:\n            return x, jax.dlpack.from_dlpack(x, copy=False)\n        except (ValueError, jax.errors.JaxRuntimeError, BufferError):\n            pass\n    host = aligned_empty(x.shape, dt)\n    host[...] = x\n    return host, jax.dlpack.from_dlpack(host, copy=False)\n'),
])
RIGHT.setdefault('ex2_answer', []).extend([
    R('an empty y is imported with copy=False like any other, from an aligned_empty host (aligned for every shape, empty ones too)',
      'def writeable_twin(y):\n    host = aligned_empty(y.shape, y.dtype)\n    host[...] = np.asarray(y)\n    return host, jax.dlpack.from_dlpack(host, copy=False)\n'),
])


# An eighth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex1_answer'] += [
    W('m', "copy of a read-only x inherits x's read-only flag: host should be writeable",
      'def share_with_jax(x):\n    dt = jax.dtypes.canonicalize_dtype(x.dtype)\n    if x.size and dt == x.dtype:\n        try:\n            return x, jax.dlpack.from_dlpack(x, copy=False)\n        except (ValueError, jax.errors.JaxRuntimeError):\n            pass\n    host = aligned_empty(x.shape, dt)\n    host[...] = x\n    host.flags.writeable = x.flags.writeable\n    return host, jax.dlpack.from_dlpack(host, copy=False)\n'),
]


# An eighth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
RIGHT.setdefault('ex3_answer', []).extend([
    R("returns jnp.array(host) for an unaligned host without waiting: device_put copies an unaligned NumPy array on the host before it returns, so a later write to host does not show (only an aligned array's copy is queued, chapter 01)",
      'def scale_and_view(host, factor):\n    if host.dtype != np.float32 or not host.flags.c_contiguous or not host.flags.writeable:\n        raise ValueError("cannot scale this host in place")\n    if host.size:\n        scale_f32(address(host), host.size, factor)\n    if host.size and address(host) % 64 == 0:\n        return jax.dlpack.from_dlpack(host, copy=False)\n    return jnp.array(host)\n'),
])
