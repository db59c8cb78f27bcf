"""Where an array's data lives: start addresses of NumPy and JAX arrays, for aliasing checks."""

from __future__ import annotations

import numpy as np


def address(x) -> int:
    """The address of the first byte of `x`'s data, for a NumPy array or a single-device jax.Array."""
    if isinstance(x, np.ndarray):
        return x.ctypes.data
    if hasattr(x, "unsafe_buffer_pointer"):
        return x.unsafe_buffer_pointer()
    raise TypeError(f"address() takes a NumPy array or a jax.Array, not {type(x).__name__}")


def same_memory(a, b) -> bool:
    """True when `a` and `b` start at the same address, i.e. one aliases the other."""
    return address(a) == address(b)
