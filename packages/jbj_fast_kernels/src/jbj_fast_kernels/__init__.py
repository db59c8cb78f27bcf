"""Fast float32 RMSNorm handlers for XLA FFI, packaged (chapter 12 of JAX beyond jnp).

`registrations()` maps each handler's name to a PyCapsule that `jax.ffi.register_ffi_target`
accepts; registering them, and the JAX functions that call them, are the user's to write.

The handlers' row loops are compiled once per instruction set (SSE2, AVX2 with FMA, AVX-512 on
x86-64), and the best one this CPU supports is picked when the module is loaded: `instruction_set()`
says which, `instruction_sets()` lists the ones this CPU can run, and `use_instruction_set(name)`
switches (the environment variable JBJ_FAST_KERNELS_ISA names one to start with).
"""

from jbj_fast_kernels._kernels import instruction_set, instruction_sets, registrations, use_instruction_set

__all__ = ["instruction_set", "instruction_sets", "registrations", "use_instruction_set"]
__version__ = "0.1.0"
