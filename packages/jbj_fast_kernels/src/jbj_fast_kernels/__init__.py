"""Fast float32 RMSNorm handlers for XLA FFI, packaged (chapter 12 of JAX beyond jnp).

`registrations()` maps each handler's name to a PyCapsule that `jax.ffi.register_ffi_target`
accepts; registering them, and the JAX functions that call them, are the user's to write.
"""

from jbj_fast_kernels._kernels import registrations

__all__ = ["registrations"]
__version__ = "0.1.0"
