"""Plausible wrong answers for 02_dlpack, one per answer cell (see tests/wrong_answers/__init__.py)."""

WRONG = {
    # Trusts the default import, which silently copies an unaligned buffer instead of sharing it.
    "ex1_answer": "def share_with_jax(x):\n    return x, jax.dlpack.from_dlpack(x)\n",
    # Exports the JAX array to NumPy: shared, but the NumPy view of a JAX array is read-only.
    "ex2_answer": "def writeable_twin(y):\n    return np.from_dlpack(y), y\n",
    # Scales a new JAX array instead of the shared buffer in place.
    "ex3_answer": "def scale_and_view(host, factor):\n    return jnp.asarray(host) * factor\n",
    "quiz_answer": 'q1 = "b"\nq2 = "c"\nq3 = "c"\nq4 = "a"\n',
}
