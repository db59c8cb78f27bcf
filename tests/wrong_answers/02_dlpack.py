"""Wrong answers for 02_dlpack (see tests/wrong_answers/__init__.py)."""

from wrong_answers import W

WRONG = {
    'ex1_answer': [
        W("m", 'Trusts the default import, which silently copies an unaligned buffer instead of sharing it.',
          'def share_with_jax(x):\n'
          '    return x, jax.dlpack.from_dlpack(x)\n'),
        W("m", 'Trusts copy=False to refuse every copy: it does refuse an unaligned or strided buffer, but converts float64 or int64 to 32 bits without complaint (section 4), so x is kept unshared.',
          'def share_with_jax(x):\n'
          '    try:\n'
          '        return x, jax.dlpack.from_dlpack(x, copy=False)\n'
          '    except (ValueError, jax.errors.JaxRuntimeError):\n'
          '        host = aligned_empty(x.shape, jax.dtypes.canonicalize_dtype(x.dtype))\n'
          '        host[...] = x\n'
          '        return host, (jax.dlpack.from_dlpack(host, copy=False) if x.size else jnp.asarray(host))\n'),
    ],
    'ex2_answer': [
        W("m", 'Exports the JAX array to NumPy: shared, but the NumPy view of a JAX array is read-only.',
          'def writeable_twin(y):\n'
          '    return np.from_dlpack(y), y\n'),
        W("m", 'Copies the read-only view to get a writeable array, and returns y itself as the JAX side.',
          'def writeable_twin(y):\n'
          '    return np.from_dlpack(y).copy(), y\n'),
    ],
    'ex3_answer': [
        W("m", "Section 7's pitfall, half avoided: refuses a read-only array (the flag a bare pointer cannot see), but hands scale_f32 a strided, transposed or float64 buffer, which it overwrites as if it were n contiguous float32 values.",
          'def scale_and_view(host, factor):\n'
          '    if not host.flags.writeable:\n'
          "        raise ValueError('host is read-only')\n"
          '    scale_f32(address(host), host.size, factor)\n'
          '    return jax.dlpack.from_dlpack(host)\n'),
        W("m", 'Scales a new JAX array instead of the shared buffer in place.',
          'def scale_and_view(host, factor):\n'
          '    return jnp.asarray(host) * factor\n'),
        W("m", 'Checks the dtype and the write flag but not the layout: a transposed view is written in memory order, and a strided one where its gaps are.',
          'def scale_and_view(host, factor):\n'
          '    if host.dtype != np.float32 or not host.flags.writeable:\n'
          "        raise ValueError('scale_and_view needs a writeable float32 array')\n"
          '    scale_f32(address(host), host.size, factor)\n'
          '    return jax.dlpack.from_dlpack(host)\n'),
    ],
    'quiz_answer': [
        W("m", 'TODO',
          'q1 = "b"\n'
          'q2 = "c"\n'
          'q3 = "c"\n'
          'q4 = "a"\n'),
        W("m", 'TODO',
          'q1 = "b"\n'
          'q2 = "a"\n'
          'q3 = "c"\n'
          'q4 = "b"\n'),
    ],
}
