"""Plausible wrong answers for 02_dlpack, the chapter's pitfalls first (see tests/wrong_answers/__init__.py)."""

WRONG = {
    "ex1_answer": [
        # Trusts the default import, which silently copies an unaligned buffer instead of sharing it.
        "def share_with_jax(x):\n    return x, jax.dlpack.from_dlpack(x)\n",
        # Trusts copy=False to refuse every copy: it does refuse an unaligned or strided buffer, but
        # converts float64 or int64 to 32 bits without complaint (section 4), so x is kept unshared.
        "def share_with_jax(x):\n"
        "    try:\n"
        "        return x, jax.dlpack.from_dlpack(x, copy=False)\n"
        "    except (ValueError, jax.errors.JaxRuntimeError):\n"
        "        host = aligned_empty(x.shape, jax.dtypes.canonicalize_dtype(x.dtype))\n"
        "        host[...] = x\n"
        "        return host, (jax.dlpack.from_dlpack(host, copy=False) if x.size else jnp.asarray(host))\n",
    ],
    "ex2_answer": [
        # Exports the JAX array to NumPy: shared, but the NumPy view of a JAX array is read-only.
        "def writeable_twin(y):\n    return np.from_dlpack(y), y\n",
        # Copies the read-only view to get a writeable array, and returns y itself as the JAX side.
        "def writeable_twin(y):\n    return np.from_dlpack(y).copy(), y\n",
    ],
    "ex3_answer": [
        # Section 7's pitfall, half avoided: refuses a read-only array (the flag a bare pointer cannot
        # see), but hands scale_f32 a strided, transposed or float64 buffer, which it overwrites as
        # if it were n contiguous float32 values.
        "def scale_and_view(host, factor):\n"
        "    if not host.flags.writeable:\n"
        "        raise ValueError('host is read-only')\n"
        "    scale_f32(address(host), host.size, factor)\n"
        "    return jax.dlpack.from_dlpack(host)\n",
        # Scales a new JAX array instead of the shared buffer in place.
        "def scale_and_view(host, factor):\n    return jnp.asarray(host) * factor\n",
        # Checks the dtype and the write flag but not the layout: a transposed view is written in
        # memory order, and a strided one where its gaps are.
        "def scale_and_view(host, factor):\n"
        "    if host.dtype != np.float32 or not host.flags.writeable:\n"
        "        raise ValueError('scale_and_view needs a writeable float32 array')\n"
        "    scale_f32(address(host), host.size, factor)\n"
        "    return jax.dlpack.from_dlpack(host)\n",
    ],
    "quiz_answer": [
        'q1 = "b"\nq2 = "c"\nq3 = "c"\nq4 = "a"\n',
        'q1 = "b"\nq2 = "a"\nq3 = "c"\nq4 = "b"\n',
    ],
}
