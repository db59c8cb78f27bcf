"""Plausible wrong answers for 11_cpp_ffi, one per answer cell (see tests/wrong_answers/__init__.py)."""

from wrong_answers import W

# A correct min/max handler, but empty rows are refused in Python (a ValueError) instead of by an
# ffi::Error from the handler, so no JaxRuntimeError reaches the caller.
_ROW_MINMAX_CC = r'''
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static ffi::Error RowMinMaxImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> lo,
                                ffi::ResultBuffer<ffi::F32> hi) {
  const std::int64_t n = x.dimensions().back();
  const std::int64_t rows = lo->element_count();
  for (std::int64_t r = 0; r < rows; ++r) {
    float a = x.typed_data()[r * n], b = a;
    for (std::int64_t i = 1; i < n; ++i) {
      const float v = x.typed_data()[r * n + i];
      a = v < a ? v : a;
      b = v > b ? v : b;
    }
    lo->typed_data()[r] = a;
    hi->typed_data()[r] = b;
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(RowMinMax, RowMinMaxImpl,
                              ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
'''

# The backward kernel forgets the product rule: ct_x = ct_y * sigmoid(x).
_SILU_CC = r'''
#include <cmath>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

static ffi::Error SiluFwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (std::size_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = x.typed_data()[i] * Sigmoid(x.typed_data()[i]);
  return ffi::Error::Success();
}

static ffi::Error SiluBwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct_y, ffi::ResultBuffer<ffi::F32> ct_x) {
  for (std::size_t i = 0; i < x.element_count(); ++i) ct_x->typed_data()[i] = ct_y.typed_data()[i] * Sigmoid(x.typed_data()[i]);
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, SiluFwdImpl, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, SiluBwdImpl,
                              ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
'''

# A handler that writes the maximum into lo and the minimum into hi.
_ROW_MINMAX_SWAPPED_CC = r'''
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static ffi::Error RowMinMaxImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> lo,
                                ffi::ResultBuffer<ffi::F32> hi) {
  const std::int64_t n = x.dimensions().back();
  if (n == 0) return ffi::Error::InvalidArgument("row_minmax: rows must not be empty");
  for (std::int64_t r = 0; r < static_cast<std::int64_t>(lo->element_count()); ++r) {
    float a = x.typed_data()[r * n], b = a;
    for (std::int64_t i = 1; i < n; ++i) {
      const float v = x.typed_data()[r * n + i];
      a = v > a ? v : a;
      b = v < b ? v : b;
    }
    lo->typed_data()[r] = a;
    hi->typed_data()[r] = b;
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(RowMinMax, RowMinMaxImpl,
                              ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
'''

# Only the forward kernel in C++; the backward pass goes back to NumPy through pure_callback.
_SILU_FWD_ONLY_CC = r'''
#include <cmath>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static ffi::Error SiluFwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (std::size_t i = 0; i < x.element_count(); ++i) {
    const float v = x.typed_data()[i];
    y->typed_data()[i] = v / (1.0f + std::exp(-v));
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, SiluFwdImpl, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
'''

# The backward kernel computes the derivative but never reads the cotangent ct_y.
_SILU_NO_CT_CC = _SILU_CC.replace(
    "ct_x->typed_data()[i] = ct_y.typed_data()[i] * Sigmoid(x.typed_data()[i]);",
    "{ const float s = Sigmoid(x.typed_data()[i]); ct_x->typed_data()[i] = s * (1.0f + x.typed_data()[i] * (1.0f - s)); }")
assert _SILU_NO_CT_CC != _SILU_CC


def _silu_answer(cc: str, name: str) -> str:
    """An answer to exercise 2 around the C++ `cc`, its targets named after `name`."""
    return (f"silu_cc = r'''{cc}'''\n"
            f"lib = grader.build(code=silu_cc, name='{name}')\n"
            f"jax.ffi.register_ffi_target('{name}_fwd', jax.ffi.pycapsule(lib.cdll.SiluFwd), platform='cpu')\n"
            f"jax.ffi.register_ffi_target('{name}_bwd', jax.ffi.pycapsule(lib.cdll.SiluBwd), platform='cpu')\n"
            "@jax.custom_vjp\n"
            "def silu_ffi(x):\n"
            f"    return jax.ffi.ffi_call('{name}_fwd', jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method='broadcast_all')(x)\n"
            "def silu_ffi_fwd(x):\n"
            "    return silu_ffi(x), x\n"
            "def silu_ffi_bwd(x, ct_y):\n"
            f"    return (jax.ffi.ffi_call('{name}_bwd', jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method='broadcast_all')(x, ct_y),)\n"
            "silu_ffi.defvjp(silu_ffi_fwd, silu_ffi_bwd)\n")


_RMS_NORM_PRIM_HEAD = (
    "rms_norm_prim_p = Primitive('rms_norm_prim')\n"
    "rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: jax.core.ShapedArray(x.shape, x.dtype))\n"
    "mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering('rms_norm'), platform='cpu')\n"
    "def _batch(args, dims, *, eps):\n"
    "    x, d = args[0], dims[0]\n"
    "    if d == x.ndim - 1:\n"
    "        x, d = jnp.moveaxis(x, d, 0), 0\n"
    "    return rms_norm_prim_p.bind(x, eps=eps), d\n"
    "batching.primitive_batchers[rms_norm_prim_p] = _batch\n"
)

WRONG = {
    'ex1_answer': [
        W("m", 'TODO',
          f"row_minmax_cc = r'''{_ROW_MINMAX_CC}'''\n"
          "lib = grader.build(code=row_minmax_cc, name='row_minmax_wrong')\n"
          "jax.ffi.register_ffi_target('row_minmax_wrong', jax.ffi.pycapsule(lib.cdll.RowMinMax), platform='cpu')\n"
          "def row_minmax(x):\n"
          "    if x.shape[-1] == 0:\n"
          "        raise ValueError('row_minmax: rows must not be empty')\n"
          "    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n"
          "    return jax.ffi.ffi_call('row_minmax_wrong', (spec, spec), vmap_method='broadcast_all')(x)\n"),
        W("m", 'TODO',
          f"row_minmax_cc = r'''{_ROW_MINMAX_SWAPPED_CC}'''\n"
          "lib = grader.build(code=row_minmax_cc, name='row_minmax_swapped')\n"
          "jax.ffi.register_ffi_target('row_minmax_swapped', jax.ffi.pycapsule(lib.cdll.RowMinMax), platform='cpu')\n"
          "def row_minmax(x):\n"
          "    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n"
          "    return jax.ffi.ffi_call('row_minmax_swapped', (spec, spec), vmap_method='broadcast_all')(x)\n"),
    ],
    'ex2_answer': [
        W("a", "the backward kernel computes σ(x)(1 + x(1 − σ(x))) and never multiplies by the cotangent ct_y",
          _silu_answer(_SILU_NO_CT_CC, "silu_no_ct")),
        W("m", 'TODO',
          f"silu_cc = r'''{_SILU_CC}'''\n"
          "lib = grader.build(code=silu_cc, name='silu_wrong')\n"
          "jax.ffi.register_ffi_target('silu_fwd_wrong', jax.ffi.pycapsule(lib.cdll.SiluFwd), platform='cpu')\n"
          "jax.ffi.register_ffi_target('silu_bwd_wrong', jax.ffi.pycapsule(lib.cdll.SiluBwd), platform='cpu')\n"
          "def _kernel(x):\n"
          "    return jax.ffi.ffi_call('silu_fwd_wrong', jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method='broadcast_all')(x)\n"
          "@jax.custom_vjp\n"
          "def silu_ffi(x):\n"
          "    return _kernel(x)\n"
          "silu_ffi.defvjp(lambda x: (_kernel(x), x),\n"
          "                lambda x, ct: (jax.ffi.ffi_call('silu_bwd_wrong', jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
          "                                                vmap_method='broadcast_all')(x, ct),))\n"),
        W("m", 'TODO',
          f"silu_cc = r'''{_SILU_FWD_ONLY_CC}'''\n"
          "lib = grader.build(code=silu_cc, name='silu_fwd_only')\n"
          "jax.ffi.register_ffi_target('silu_fwd_only', jax.ffi.pycapsule(lib.cdll.SiluFwd), platform='cpu')\n"
          "def _kernel(x):\n"
          "    return jax.ffi.ffi_call('silu_fwd_only', jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method='broadcast_all')(x)\n"
          "def _dsilu_host(x, ct):\n"
          "    x, ct = np.asarray(x), np.asarray(ct)\n"
          "    s = 1 / (1 + np.exp(-x))\n"
          "    return (ct * s * (1 + x * (1 - s))).astype(np.float32)\n"
          "@jax.custom_vjp\n"
          "def silu_ffi(x):\n"
          "    return _kernel(x)\n"
          "silu_ffi.defvjp(lambda x: (_kernel(x), x),\n"
          "                lambda x, ct: (jax.pure_callback(_dsilu_host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, ct,\n"
          "                                                 vmap_method='broadcast_all'),))\n"),
    ],
    'ex3_answer': [
        W("b", "the eager implementation recomputes RMSNorm in jnp with eps fixed at 1e-5 (jit passes eps to the kernel, eager ignores it)",
          _RMS_NORM_PRIM_HEAD +
          "rms_norm_prim_p.def_impl(lambda x, *, eps: x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-5))\n"),
        W("d", "the eager implementation is jnp that reads eps: right values, but eager calls never reach the C++ kernel",
          _RMS_NORM_PRIM_HEAD +
          "rms_norm_prim_p.def_impl(lambda x, *, eps: x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + eps))\n"),
        W("m", 'The batching rule leaves the batch axis where it is, also when it is the axis the kernel normalises.',
          "rms_norm_prim_p = Primitive('rms_norm_prim')\n"
          "rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: jax.core.ShapedArray(x.shape, x.dtype))\n"
          "mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering('rms_norm'), platform='cpu')\n"
          "rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))\n"
          "batching.primitive_batchers[rms_norm_prim_p] = lambda args, dims, *, eps: (rms_norm_prim_p.bind(args[0], eps=eps), dims[0])\n"),
        W("m", 'The batch is moved out of the last axis, but the rule reports the old position of the batch.',
          "rms_norm_prim_p = Primitive('rms_norm_prim')\n"
          "rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: jax.core.ShapedArray(x.shape, x.dtype))\n"
          "mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering('rms_norm'), platform='cpu')\n"
          "rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))\n"
          "def _batch(args, dims, *, eps):\n"
          "    x, d = args[0], dims[0]\n"
          "    moved = jnp.moveaxis(x, d, 0) if d == x.ndim - 1 else x\n"
          "    return rms_norm_prim_p.bind(moved, eps=eps), d\n"
          "batching.primitive_batchers[rms_norm_prim_p] = _batch\n"),
    ],
    'quiz_answer': [
        W("m", 'q1: believes a Python float is narrowed to float32 as arrays are.',
          'q1 = "a"\nq2 = "a"\nq3 = "b"\nq4 = "c"\n'),
        W("m", 'q4: believes lowering looks the target up.',
          'q1 = "b"\nq2 = "a"\nq3 = "b"\nq4 = "b"\n'),
    ],
}

