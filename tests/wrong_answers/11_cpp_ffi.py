"""Plausible wrong answers for 11_cpp_ffi, per answer cell (see tests/wrong_answers/__init__.py)."""

from wrong_answers import R, W

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

APPLIES = {'ex1_answer': 'cdefgm', 'ex2_answer': 'acdefgm', 'ex3_answer': 'bcdegm', 'quiz_answer': 'm'}

WRONG = {
    'ex1_answer': [
        W('m', 'empty rows refused in Python with a ValueError before the call, not by an ffi::Error from the handler (no JaxRuntimeError)',
          f"row_minmax_cc = r'''{_ROW_MINMAX_CC}'''\n"
          "lib = grader.build(code=row_minmax_cc, name='row_minmax_wrong')\n"
          "jax.ffi.register_ffi_target('row_minmax_wrong', jax.ffi.pycapsule(lib.cdll.RowMinMax), platform='cpu')\n"
          "def row_minmax(x):\n"
          "    if x.shape[-1] == 0:\n"
          "        raise ValueError('row_minmax: rows must not be empty')\n"
          "    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n"
          "    return jax.ffi.ffi_call('row_minmax_wrong', (spec, spec), vmap_method='broadcast_all')(x)\n"),
        W('m', "the handler writes each row's maximum into lo and its minimum into hi",
          f"row_minmax_cc = r'''{_ROW_MINMAX_SWAPPED_CC}'''\n"
          "lib = grader.build(code=row_minmax_cc, name='row_minmax_swapped')\n"
          "jax.ffi.register_ffi_target('row_minmax_swapped', jax.ffi.pycapsule(lib.cdll.RowMinMax), platform='cpu')\n"
          "def row_minmax(x):\n"
          "    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n"
          "    return jax.ffi.ffi_call('row_minmax_swapped', (spec, spec), vmap_method='broadcast_all')(x)\n"),
        W('c', "starts each row's min and max at 0.0f: rows of only positive values get lo=0, only negative get hi=0",
          'row_minmax_cc = r"""\n'
          '#include <cstddef>\n'
          '#include <cstdint>\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          '// The smallest and largest value of each row (last axis) of x.\n'
          'static ffi::Error RowMinMaxImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> lo,\n'
          '                                ffi::ResultBuffer<ffi::F32> hi) {\n'
          '  auto dims = x.dimensions();\n'
          '  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_minmax: x must have at least one axis");\n'
          '  const std::int64_t n = dims.back();\n'
          '  if (n == 0) return ffi::Error::InvalidArgument("row_minmax: rows must not be empty");\n'
          '  const std::int64_t rows = static_cast<std::int64_t>(x.element_count()) / n;\n'
          '  const float* data = x.typed_data();\n'
          '  for (std::int64_t r = 0; r < rows; ++r) {\n'
          '    float smallest = 0.0f, largest = 0.0f;\n'
          '    for (std::int64_t i = 0; i < n; ++i) {\n'
          '      const float value = data[r * n + i];\n'
          '      if (value < smallest) smallest = value;\n'
          '      if (value > largest) largest = value;\n'
          '    }\n'
          '    lo->typed_data()[r] = smallest;\n'
          '    hi->typed_data()[r] = largest;\n'
          '  }\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(RowMinMax, RowMinMaxImpl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()  // x\n'
          '                                  .Ret<ffi::Buffer<ffi::F32>>()  // lo\n'
          '                                  .Ret<ffi::Buffer<ffi::F32>>()  // hi\n'
          ');\n'
          '"""\n'
          'row_minmax_lib = grader.build(code=row_minmax_cc, name="b5_w1_row_minmax")\n'
          'jax.ffi.register_ffi_target("b5w1.row_minmax", jax.ffi.pycapsule(row_minmax_lib.cdll.RowMinMax), platform="cpu")\n'
          '\n'
          'def row_minmax(x):\n'
          '    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n'
          '    return jax.ffi.ffi_call("b5w1.row_minmax", (spec, spec), vmap_method="broadcast_all")(x)\n'),
        W('c', 'BufferR2/ResultBufferR1 copied from the Trace handler: a 1-D or 3-D x is refused with a rank error',
          'row_minmax_cc = r"""\n'
          '#include <cstdint>\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          '// The smallest and largest value of each row of a matrix, shaped like the Trace handler.\n'
          'static ffi::Error RowMinMaxImpl(ffi::BufferR2<ffi::F32> m, ffi::ResultBufferR1<ffi::F32> lo,\n'
          '                                ffi::ResultBufferR1<ffi::F32> hi) {\n'
          '  const auto dims = m.dimensions();\n'
          '  const std::int64_t rows = dims[0], cols = dims[1];\n'
          '  if (cols == 0) return ffi::Error::InvalidArgument("row_minmax: rows must not be empty");\n'
          '  const float* data = m.typed_data();\n'
          '  for (std::int64_t r = 0; r < rows; ++r) {\n'
          '    float smallest = data[r * cols], largest = data[r * cols];\n'
          '    for (std::int64_t i = 1; i < cols; ++i) {\n'
          '      const float value = data[r * cols + i];\n'
          '      if (value < smallest) smallest = value;\n'
          '      if (value > largest) largest = value;\n'
          '    }\n'
          '    lo->typed_data()[r] = smallest;\n'
          '    hi->typed_data()[r] = largest;\n'
          '  }\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(RowMinMax, RowMinMaxImpl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Arg<ffi::BufferR2<ffi::F32>>()     // m\n'
          '                                  .Ret<ffi::BufferR1<ffi::F32>>()     // lo\n'
          '                                  .Ret<ffi::BufferR1<ffi::F32>>()     // hi\n'
          ');\n'
          '"""\n'
          'row_minmax_lib = grader.build(code=row_minmax_cc, name="b5_w2_row_minmax")\n'
          'jax.ffi.register_ffi_target("b5w2.row_minmax", jax.ffi.pycapsule(row_minmax_lib.cdll.RowMinMax), platform="cpu")\n'
          '\n'
          'def row_minmax(x):\n'
          '    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n'
          '    return jax.ffi.ffi_call("b5w2.row_minmax", (spec, spec), vmap_method="sequential")(x)\n'),
        W('c', 'starts min/max at +-1e30f: rows whose values all exceed 1e30 in magnitude (e.g. 3e38) give +-1e30',
          'row_minmax_cc = r"""\n'
          '#include <cstddef>\n'
          '#include <cstdint>\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          '// The smallest and largest value of each row (last axis) of x.\n'
          'static ffi::Error RowMinMaxImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> lo,\n'
          '                                ffi::ResultBuffer<ffi::F32> hi) {\n'
          '  auto dims = x.dimensions();\n'
          '  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_minmax: x must have at least one axis");\n'
          '  const std::int64_t n = dims.back();\n'
          '  if (n == 0) return ffi::Error::InvalidArgument("row_minmax: rows must not be empty");\n'
          '  const std::int64_t rows = static_cast<std::int64_t>(x.element_count()) / n;\n'
          '  const float* data = x.typed_data();\n'
          '  for (std::int64_t r = 0; r < rows; ++r) {\n'
          '    float smallest = 1e30f, largest = -1e30f;   // larger than any value we will see\n'
          '    for (std::int64_t i = 0; i < n; ++i) {\n'
          '      const float value = data[r * n + i];\n'
          '      if (value < smallest) smallest = value;\n'
          '      if (value > largest) largest = value;\n'
          '    }\n'
          '    lo->typed_data()[r] = smallest;\n'
          '    hi->typed_data()[r] = largest;\n'
          '  }\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(RowMinMax, RowMinMaxImpl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()  // x\n'
          '                                  .Ret<ffi::Buffer<ffi::F32>>()  // lo\n'
          '                                  .Ret<ffi::Buffer<ffi::F32>>()  // hi\n'
          ');\n'
          '"""\n'
          'row_minmax_lib = grader.build(code=row_minmax_cc, name="b5_w3_row_minmax")\n'
          'jax.ffi.register_ffi_target("b5w3.row_minmax", jax.ffi.pycapsule(row_minmax_lib.cdll.RowMinMax), platform="cpu")\n'
          '\n'
          'def row_minmax(x):\n'
          '    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n'
          '    return jax.ffi.ffi_call("b5w3.row_minmax", (spec, spec), vmap_method="broadcast_all")(x)\n'),
        W('e', 'ffi_call without vmap_method: eager and jit work, jax.vmap raises NotImplementedError',
          'row_minmax_cc = r"""\n'
          '#include <cstddef>\n'
          '#include <cstdint>\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          '// The smallest and largest value of each row (last axis) of x.\n'
          'static ffi::Error RowMinMaxImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> lo,\n'
          '                                ffi::ResultBuffer<ffi::F32> hi) {\n'
          '  auto dims = x.dimensions();\n'
          '  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_minmax: x must have at least one axis");\n'
          '  const std::int64_t n = dims.back();\n'
          '  if (n == 0) return ffi::Error::InvalidArgument("row_minmax: rows must not be empty");\n'
          '  const std::int64_t rows = static_cast<std::int64_t>(x.element_count()) / n;\n'
          '  const float* data = x.typed_data();\n'
          '  for (std::int64_t r = 0; r < rows; ++r) {\n'
          '    float smallest = data[r * n], largest = data[r * n];\n'
          '    for (std::int64_t i = 1; i < n; ++i) {\n'
          '      const float value = data[r * n + i];\n'
          '      if (value < smallest) smallest = value;\n'
          '      if (value > largest) largest = value;\n'
          '    }\n'
          '    lo->typed_data()[r] = smallest;\n'
          '    hi->typed_data()[r] = largest;\n'
          '  }\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(RowMinMax, RowMinMaxImpl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()  // x\n'
          '                                  .Ret<ffi::Buffer<ffi::F32>>()  // lo\n'
          '                                  .Ret<ffi::Buffer<ffi::F32>>()  // hi\n'
          ');\n'
          '"""\n'
          'row_minmax_lib = grader.build(code=row_minmax_cc, name="b5_w4_row_minmax")\n'
          'jax.ffi.register_ffi_target("b5w4.row_minmax", jax.ffi.pycapsule(row_minmax_lib.cdll.RowMinMax), platform="cpu")\n'
          '\n'
          'def row_minmax(x):\n'
          '    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n'
          '    return jax.ffi.ffi_call("b5w4.row_minmax", (spec, spec))(x)\n'),
        W('d', 'C++ called through ctypes inside jax.pure_callback: right values but the program calls xla_ffi_python_cpu_callback',
          'row_minmax_cc = r"""\n'
          '#include <cstdint>\n'
          '\n'
          '// The smallest and largest value of each of `rows` rows of length n, for ctypes.\n'
          'extern "C" int row_minmax_f32(const float* x, float* lo, float* hi, std::int64_t rows, std::int64_t n) {\n'
          '  if (n == 0) return 1;\n'
          '  for (std::int64_t r = 0; r < rows; ++r) {\n'
          '    float smallest = x[r * n], largest = x[r * n];\n'
          '    for (std::int64_t i = 1; i < n; ++i) {\n'
          '      const float value = x[r * n + i];\n'
          '      if (value < smallest) smallest = value;\n'
          '      if (value > largest) largest = value;\n'
          '    }\n'
          '    lo[r] = smallest;\n'
          '    hi[r] = largest;\n'
          '  }\n'
          '  return 0;\n'
          '}\n'
          '"""\n'
          'row_minmax_lib = grader.build(code=row_minmax_cc, name="b5_w5_row_minmax")\n'
          '_f32 = np.ctypeslib.ndpointer(dtype=np.float32, flags="C_CONTIGUOUS")\n'
          '_c_row_minmax = row_minmax_lib.function("row_minmax_f32", restype=ctypes.c_int,\n'
          '                                        argtypes=[_f32, _f32, _f32, ctypes.c_int64, ctypes.c_int64])\n'
          '\n'
          'def _row_minmax_host(x):\n'
          '    x = np.ascontiguousarray(x, dtype=np.float32)\n'
          '    n = x.shape[-1]\n'
          '    lo = np.empty(x.shape[:-1], np.float32)\n'
          '    hi = np.empty(x.shape[:-1], np.float32)\n'
          '    if n == 0 or _c_row_minmax(x, lo, hi, lo.size, n) != 0:\n'
          '        raise ValueError("row_minmax: rows must not be empty")\n'
          '    return lo, hi\n'
          '\n'
          'def row_minmax(x):\n'
          '    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n'
          '    return jax.pure_callback(_row_minmax_host, (spec, spec), x, vmap_method="broadcast_all")\n'),
        W('g', "results shaped () for 1-D and (x.shape[0],) otherwise (the text's 1-D and 2-D examples): a 3-D x gets wrong shapes and values",
          'row_minmax_cc = r"""\n'
          '#include <cstddef>\n'
          '#include <cstdint>\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          '// The smallest and largest value of each row of x; one result per entry of lo.\n'
          'static ffi::Error RowMinMaxImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> lo,\n'
          '                                ffi::ResultBuffer<ffi::F32> hi) {\n'
          '  auto dims = x.dimensions();\n'
          '  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_minmax: x must have at least one axis");\n'
          '  const std::int64_t n = dims.back();\n'
          '  if (n == 0) return ffi::Error::InvalidArgument("row_minmax: rows must not be empty");\n'
          '  const std::int64_t rows = static_cast<std::int64_t>(lo->element_count());\n'
          '  const float* data = x.typed_data();\n'
          '  for (std::int64_t r = 0; r < rows; ++r) {\n'
          '    float smallest = data[r * n], largest = data[r * n];\n'
          '    for (std::int64_t i = 1; i < n; ++i) {\n'
          '      const float value = data[r * n + i];\n'
          '      if (value < smallest) smallest = value;\n'
          '      if (value > largest) largest = value;\n'
          '    }\n'
          '    lo->typed_data()[r] = smallest;\n'
          '    hi->typed_data()[r] = largest;\n'
          '  }\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(RowMinMax, RowMinMaxImpl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()  // x\n'
          '                                  .Ret<ffi::Buffer<ffi::F32>>()  // lo\n'
          '                                  .Ret<ffi::Buffer<ffi::F32>>()  // hi\n'
          ');\n'
          '"""\n'
          'row_minmax_lib = grader.build(code=row_minmax_cc, name="b5_w6_row_minmax")\n'
          'jax.ffi.register_ffi_target("b5w6.row_minmax", jax.ffi.pycapsule(row_minmax_lib.cdll.RowMinMax), platform="cpu")\n'
          '\n'
          'def row_minmax(x):\n'
          '    # one value per row: a 1-D x is a single row, a matrix has x.shape[0] rows\n'
          '    spec = jax.ShapeDtypeStruct(() if x.ndim == 1 else (x.shape[0],), jnp.float32)\n'
          '    return jax.ffi.ffi_call("b5w6.row_minmax", (spec, spec), vmap_method="broadcast_all")(x)\n'),
        W('f', 'per-row results kept in static arrays shared by all calls: concurrent calls on different inputs overwrite each other',
          'row_minmax_cc = r"""\n'
          '#include <algorithm>\n'
          '#include <cstddef>\n'
          '#include <cstdint>\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          '// Per-row results, kept between calls so that they are allocated once (room for a million rows).\n'
          'static float row_lo[1 << 20], row_hi[1 << 20];\n'
          '\n'
          '// The smallest and largest value of each row (last axis) of x.\n'
          'static ffi::Error RowMinMaxImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> lo,\n'
          '                                ffi::ResultBuffer<ffi::F32> hi) {\n'
          '  auto dims = x.dimensions();\n'
          '  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_minmax: x must have at least one axis");\n'
          '  const std::int64_t n = dims.back();\n'
          '  if (n == 0) return ffi::Error::InvalidArgument("row_minmax: rows must not be empty");\n'
          '  const std::int64_t rows = static_cast<std::int64_t>(x.element_count()) / n;\n'
          '  const float* data = x.typed_data();\n'
          '  for (std::int64_t r = 0; r < rows; ++r) {\n'
          '    row_lo[r] = data[r * n];\n'
          '    row_hi[r] = data[r * n];\n'
          '    for (std::int64_t i = 1; i < n; ++i) {\n'
          '      const float value = data[r * n + i];\n'
          '      if (value < row_lo[r]) row_lo[r] = value;\n'
          '      if (value > row_hi[r]) row_hi[r] = value;\n'
          '    }\n'
          '  }\n'
          '  std::copy(row_lo, row_lo + rows, lo->typed_data());\n'
          '  std::copy(row_hi, row_hi + rows, hi->typed_data());\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(RowMinMax, RowMinMaxImpl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()  // x\n'
          '                                  .Ret<ffi::Buffer<ffi::F32>>()  // lo\n'
          '                                  .Ret<ffi::Buffer<ffi::F32>>()  // hi\n'
          ');\n'
          '"""\n'
          'row_minmax_lib = grader.build(code=row_minmax_cc, name="b5_w7_row_minmax")\n'
          'jax.ffi.register_ffi_target("b5w7.row_minmax", jax.ffi.pycapsule(row_minmax_lib.cdll.RowMinMax), platform="cpu")\n'
          '\n'
          'def row_minmax(x):\n'
          '    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n'
          '    return jax.ffi.ffi_call("b5w7.row_minmax", (spec, spec), vmap_method="broadcast_all")(x)\n'),
        W('m', 'empty rows refused in Python with ValueError instead of an ffi::Error from the handler (no JaxRuntimeError)',
          'row_minmax_cc = r"""\n'
          '#include <cstddef>\n'
          '#include <cstdint>\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          '// The smallest and largest value of each row (last axis) of x; rows are never empty (checked in Python).\n'
          'static ffi::Error RowMinMaxImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> lo,\n'
          '                                ffi::ResultBuffer<ffi::F32> hi) {\n'
          '  auto dims = x.dimensions();\n'
          '  const std::int64_t n = dims.back();\n'
          '  const std::int64_t rows = static_cast<std::int64_t>(lo->element_count());\n'
          '  const float* data = x.typed_data();\n'
          '  for (std::int64_t r = 0; r < rows; ++r) {\n'
          '    float smallest = data[r * n], largest = data[r * n];\n'
          '    for (std::int64_t i = 1; i < n; ++i) {\n'
          '      const float value = data[r * n + i];\n'
          '      if (value < smallest) smallest = value;\n'
          '      if (value > largest) largest = value;\n'
          '    }\n'
          '    lo->typed_data()[r] = smallest;\n'
          '    hi->typed_data()[r] = largest;\n'
          '  }\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(RowMinMax, RowMinMaxImpl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()  // x\n'
          '                                  .Ret<ffi::Buffer<ffi::F32>>()  // lo\n'
          '                                  .Ret<ffi::Buffer<ffi::F32>>()  // hi\n'
          ');\n'
          '"""\n'
          'row_minmax_lib = grader.build(code=row_minmax_cc, name="b5_w8_row_minmax")\n'
          'jax.ffi.register_ffi_target("b5w8.row_minmax", jax.ffi.pycapsule(row_minmax_lib.cdll.RowMinMax), platform="cpu")\n'
          '\n'
          'def row_minmax(x):\n'
          '    if x.ndim == 0:\n'
          '        raise ValueError("row_minmax: x must have at least one axis")\n'
          '    if x.shape[-1] == 0:\n'
          '        raise ValueError("row_minmax: rows must not be empty")\n'
          '    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n'
          '    return jax.ffi.ffi_call("b5w8.row_minmax", (spec, spec), vmap_method="broadcast_all")(x)\n'),
        W('c', 'starts each row at FLT_MAX/-FLT_MAX instead of its first value: a row of all -inf gives hi=-FLT_MAX, all +inf gives lo=FLT_MAX',
          'row_minmax_cc = r"""\n#include <cstddef>\n#include <cstdint>\n#include <cfloat>\n#include <vector>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nstatic ffi::Error RowMinMaxImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> lo,\n                                ffi::ResultBuffer<ffi::F32> hi) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_minmax: x must have at least one axis");\n  const std::int64_t n = dims.back();\n  if (n == 0) return ffi::Error::InvalidArgument("row_minmax: rows must not be empty");\n  const std::int64_t rows = static_cast<std::int64_t>(x.element_count()) / n;\n  const float* data = x.typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    float smallest = FLT_MAX, largest = -FLT_MAX;\n    for (std::int64_t i = 0; i < n; ++i) {\n      const float value = data[r * n + i];\n      if (value < smallest) smallest = value;\n      if (value > largest) largest = value;\n    }\n    lo->typed_data()[r] = smallest;\n    hi->typed_data()[r] = largest;\n  }\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(RowMinMax, RowMinMaxImpl,\n                              ffi::Ffi::Bind()\n                                  .Arg<ffi::Buffer<ffi::F32>>()\n                                  .Ret<ffi::Buffer<ffi::F32>>()\n                                  .Ret<ffi::Buffer<ffi::F32>>());\n"""\nrow_minmax_lib = grader.build(code=row_minmax_cc, name="row_minmax_w1")\njax.ffi.register_ffi_target("row_minmax_w1", jax.ffi.pycapsule(row_minmax_lib.cdll.RowMinMax), platform="cpu")\n\ndef row_minmax(x):\n    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n    return jax.ffi.ffi_call("row_minmax_w1", (spec, spec), vmap_method="broadcast_all")(x)\n'),
    ],
    'ex2_answer': [
        W('a', 'the backward kernel computes σ(x)(1 + x(1 − σ(x))) and never multiplies by the cotangent ct_y',
          _silu_answer(_SILU_NO_CT_CC, "silu_no_ct")),
        W('m', 'the backward kernel forgets the product rule: ct_x = ct_y * sigmoid(x)',
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
        W('d', 'only the forward kernel is C++; the backward pass is NumPy called through jax.pure_callback',
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
        W('a', "backward kernel returns silu'(x) without multiplying by ct_y: right for grad of .sum(), wrong for a weighted loss",
          'silu_cc = r"""\n'
          '#include <cmath>\n'
          '#include <cstddef>\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          'static float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }\n'
          '\n'
          '// y = x * sigmoid(x)\n'
          'static ffi::Error SiluFwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n'
          '  const float* in = x.typed_data();\n'
          '  float* out = y->typed_data();\n'
          '  for (std::size_t i = 0; i < x.element_count(); ++i) out[i] = in[i] * Sigmoid(in[i]);\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          '// ct_x = sigmoid(x) * (1 + x * (1 - sigmoid(x)))\n'
          'static ffi::Error SiluBwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> ct_x) {\n'
          '  const float* in = x.typed_data();\n'
          '  float* out = ct_x->typed_data();\n'
          '  for (std::size_t i = 0; i < x.element_count(); ++i) {\n'
          '    const float s = Sigmoid(in[i]);\n'
          '    out[i] = s * (1.0f + in[i] * (1.0f - s));\n'
          '  }\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, SiluFwdImpl,\n'
          '                              ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, SiluBwdImpl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()  // x\n'
          '                                  .Ret<ffi::Buffer<ffi::F32>>()  // ct_x\n'
          ');\n'
          '"""\n'
          'silu_lib = grader.build(code=silu_cc, name="b5_w1_silu")\n'
          'jax.ffi.register_ffi_target("b5w1.silu_fwd", jax.ffi.pycapsule(silu_lib.cdll.SiluFwd), platform="cpu")\n'
          'jax.ffi.register_ffi_target("b5w1.silu_bwd", jax.ffi.pycapsule(silu_lib.cdll.SiluBwd), platform="cpu")\n'
          '\n'
          'def _silu_kernel(x):\n'
          '    return jax.ffi.ffi_call("b5w1.silu_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)\n'
          '\n'
          '@jax.custom_vjp\n'
          'def silu_ffi(x):\n'
          '    return _silu_kernel(x)\n'
          '\n'
          'def silu_ffi_fwd(x):\n'
          '    return _silu_kernel(x), x\n'
          '\n'
          'def silu_ffi_bwd(residual, ct_y):\n'
          '    x = residual\n'
          '    return (jax.ffi.ffi_call("b5w1.silu_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x),)\n'
          '\n'
          'silu_ffi.defvjp(silu_ffi_fwd, silu_ffi_bwd)\n'),
        W('c', "backward writes sigmoid' as e^-x/(1+e^-x)^2: inf/inf gives NaN gradients for x <= -89",
          'silu_cc = r"""\n'
          '#include <cmath>\n'
          '#include <cstddef>\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          'static float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }\n'
          '\n'
          '// y = x * sigmoid(x)\n'
          'static ffi::Error SiluFwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n'
          '  const float* in = x.typed_data();\n'
          '  float* out = y->typed_data();\n'
          '  for (std::size_t i = 0; i < x.element_count(); ++i) out[i] = in[i] * Sigmoid(in[i]);\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          '// ct_x = ct_y * sigmoid(x) * (1 + x * (1 - sigmoid(x)))\n'
          'static ffi::Error SiluBwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct_y,\n'
          '                              ffi::ResultBuffer<ffi::F32> ct_x) {\n'
          '  const float* in = x.typed_data();\n'
          '  const float* ct = ct_y.typed_data();\n'
          '  float* out = ct_x->typed_data();\n'
          '  for (std::size_t i = 0; i < x.element_count(); ++i) {\n'
          '    const float e = std::exp(-in[i]);\n'
          '    const float s = 1.0f / (1.0f + e);\n'
          "    // d/dx [x s(x)] = s + x s'(x), with s'(x) = e^{-x} / (1 + e^{-x})^2\n"
          '    out[i] = ct[i] * (s + in[i] * e / ((1.0f + e) * (1.0f + e)));\n'
          '  }\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, SiluFwdImpl,\n'
          '                              ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, SiluBwdImpl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()  // x\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()  // ct_y\n'
          '                                  .Ret<ffi::Buffer<ffi::F32>>()  // ct_x\n'
          ');\n'
          '"""\n'
          'silu_lib = grader.build(code=silu_cc, name="b5_w2_silu")\n'
          'jax.ffi.register_ffi_target("b5w2.silu_fwd", jax.ffi.pycapsule(silu_lib.cdll.SiluFwd), platform="cpu")\n'
          'jax.ffi.register_ffi_target("b5w2.silu_bwd", jax.ffi.pycapsule(silu_lib.cdll.SiluBwd), platform="cpu")\n'
          '\n'
          'def _silu_kernel(x):\n'
          '    return jax.ffi.ffi_call("b5w2.silu_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)\n'
          '\n'
          '@jax.custom_vjp\n'
          'def silu_ffi(x):\n'
          '    return _silu_kernel(x)\n'
          '\n'
          'def silu_ffi_fwd(x):\n'
          '    return _silu_kernel(x), x\n'
          '\n'
          'def silu_ffi_bwd(residual, ct_y):\n'
          '    x = residual\n'
          '    return (jax.ffi.ffi_call("b5w2.silu_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x, ct_y),)\n'
          '\n'
          'silu_ffi.defvjp(silu_ffi_fwd, silu_ffi_bwd)\n'),
        W('c', 'forward sigmoid as e^x/(1+e^x): NaN values (and gradients) for x >= 89',
          'silu_cc = r"""\n'
          '#include <cmath>\n'
          '#include <cstddef>\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          'static float Sigmoid(float v) { const float e = std::exp(v); return e / (1.0f + e); }\n'
          '\n'
          '// y = x * sigmoid(x)\n'
          'static ffi::Error SiluFwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n'
          '  const float* in = x.typed_data();\n'
          '  float* out = y->typed_data();\n'
          '  for (std::size_t i = 0; i < x.element_count(); ++i) out[i] = in[i] * Sigmoid(in[i]);\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          '// ct_x = ct_y * sigmoid(x) * (1 + x * (1 - sigmoid(x)))\n'
          'static ffi::Error SiluBwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct_y,\n'
          '                              ffi::ResultBuffer<ffi::F32> ct_x) {\n'
          '  const float* in = x.typed_data();\n'
          '  const float* ct = ct_y.typed_data();\n'
          '  float* out = ct_x->typed_data();\n'
          '  for (std::size_t i = 0; i < x.element_count(); ++i) {\n'
          '    const float s = Sigmoid(in[i]);\n'
          '    out[i] = ct[i] * s * (1.0f + in[i] * (1.0f - s));\n'
          '  }\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, SiluFwdImpl,\n'
          '                              ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, SiluBwdImpl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()  // x\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()  // ct_y\n'
          '                                  .Ret<ffi::Buffer<ffi::F32>>()  // ct_x\n'
          ');\n'
          '"""\n'
          'silu_lib = grader.build(code=silu_cc, name="b5_w3_silu")\n'
          'jax.ffi.register_ffi_target("b5w3.silu_fwd", jax.ffi.pycapsule(silu_lib.cdll.SiluFwd), platform="cpu")\n'
          'jax.ffi.register_ffi_target("b5w3.silu_bwd", jax.ffi.pycapsule(silu_lib.cdll.SiluBwd), platform="cpu")\n'
          '\n'
          'def _silu_kernel(x):\n'
          '    return jax.ffi.ffi_call("b5w3.silu_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)\n'
          '\n'
          '@jax.custom_vjp\n'
          'def silu_ffi(x):\n'
          '    return _silu_kernel(x)\n'
          '\n'
          'def silu_ffi_fwd(x):\n'
          '    return _silu_kernel(x), x\n'
          '\n'
          'def silu_ffi_bwd(residual, ct_y):\n'
          '    x = residual\n'
          '    return (jax.ffi.ffi_call("b5w3.silu_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x, ct_y),)\n'
          '\n'
          'silu_ffi.defvjp(silu_ffi_fwd, silu_ffi_bwd)\n'),
        W('c', "copies the chapter's 0-d refusal: a 0-d x raises ValueError though the exercise includes it",
          'silu_cc = r"""\n'
          '#include <cmath>\n'
          '#include <cstddef>\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          'static float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }\n'
          '\n'
          '// y = x * sigmoid(x)\n'
          'static ffi::Error SiluFwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n'
          '  const float* in = x.typed_data();\n'
          '  float* out = y->typed_data();\n'
          '  for (std::size_t i = 0; i < x.element_count(); ++i) out[i] = in[i] * Sigmoid(in[i]);\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          '// ct_x = ct_y * sigmoid(x) * (1 + x * (1 - sigmoid(x)))\n'
          'static ffi::Error SiluBwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct_y,\n'
          '                              ffi::ResultBuffer<ffi::F32> ct_x) {\n'
          '  const float* in = x.typed_data();\n'
          '  const float* ct = ct_y.typed_data();\n'
          '  float* out = ct_x->typed_data();\n'
          '  for (std::size_t i = 0; i < x.element_count(); ++i) {\n'
          '    const float s = Sigmoid(in[i]);\n'
          '    out[i] = ct[i] * s * (1.0f + in[i] * (1.0f - s));\n'
          '  }\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, SiluFwdImpl,\n'
          '                              ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, SiluBwdImpl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()  // x\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()  // ct_y\n'
          '                                  .Ret<ffi::Buffer<ffi::F32>>()  // ct_x\n'
          ');\n'
          '"""\n'
          'silu_lib = grader.build(code=silu_cc, name="b5_w4_silu")\n'
          'jax.ffi.register_ffi_target("b5w4.silu_fwd", jax.ffi.pycapsule(silu_lib.cdll.SiluFwd), platform="cpu")\n'
          'jax.ffi.register_ffi_target("b5w4.silu_bwd", jax.ffi.pycapsule(silu_lib.cdll.SiluBwd), platform="cpu")\n'
          '\n'
          'def _silu_kernel(x):\n'
          '    if jnp.ndim(x) == 0:\n'
          '        raise ValueError("silu_ffi needs at least one axis; got a 0-d array")\n'
          '    return jax.ffi.ffi_call("b5w4.silu_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)\n'
          '\n'
          '@jax.custom_vjp\n'
          'def silu_ffi(x):\n'
          '    return _silu_kernel(x)\n'
          '\n'
          'def silu_ffi_fwd(x):\n'
          '    return _silu_kernel(x), x\n'
          '\n'
          'def silu_ffi_bwd(residual, ct_y):\n'
          '    x = residual\n'
          '    return (jax.ffi.ffi_call("b5w4.silu_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x, ct_y),)\n'
          '\n'
          'silu_ffi.defvjp(silu_ffi_fwd, silu_ffi_bwd)\n'),
        W('d', 'backward pass in jnp instead of a second FFI kernel: value_and_grad calls only one FFI target',
          'silu_cc = r"""\n'
          '#include <cmath>\n'
          '#include <cstddef>\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          'static float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }\n'
          '\n'
          '// y = x * sigmoid(x)\n'
          'static ffi::Error SiluFwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n'
          '  const float* in = x.typed_data();\n'
          '  float* out = y->typed_data();\n'
          '  for (std::size_t i = 0; i < x.element_count(); ++i) out[i] = in[i] * Sigmoid(in[i]);\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          '// ct_x = ct_y * sigmoid(x) * (1 + x * (1 - sigmoid(x)))\n'
          'static ffi::Error SiluBwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct_y,\n'
          '                              ffi::ResultBuffer<ffi::F32> ct_x) {\n'
          '  const float* in = x.typed_data();\n'
          '  const float* ct = ct_y.typed_data();\n'
          '  float* out = ct_x->typed_data();\n'
          '  for (std::size_t i = 0; i < x.element_count(); ++i) {\n'
          '    const float s = Sigmoid(in[i]);\n'
          '    out[i] = ct[i] * s * (1.0f + in[i] * (1.0f - s));\n'
          '  }\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, SiluFwdImpl,\n'
          '                              ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, SiluBwdImpl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()  // x\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()  // ct_y\n'
          '                                  .Ret<ffi::Buffer<ffi::F32>>()  // ct_x\n'
          ');\n'
          '"""\n'
          'silu_lib = grader.build(code=silu_cc, name="b5_w5_silu")\n'
          'jax.ffi.register_ffi_target("b5w5.silu_fwd", jax.ffi.pycapsule(silu_lib.cdll.SiluFwd), platform="cpu")\n'
          'jax.ffi.register_ffi_target("b5w5.silu_bwd", jax.ffi.pycapsule(silu_lib.cdll.SiluBwd), platform="cpu")\n'
          '\n'
          'def _silu_kernel(x):\n'
          '    return jax.ffi.ffi_call("b5w5.silu_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)\n'
          '\n'
          '@jax.custom_vjp\n'
          'def silu_ffi(x):\n'
          '    return _silu_kernel(x)\n'
          '\n'
          'def silu_ffi_fwd(x):\n'
          '    return _silu_kernel(x), x\n'
          '\n'
          'def silu_ffi_bwd(residual, ct_y):\n'
          '    x = residual\n'
          '    s = jax.nn.sigmoid(x)\n'
          '    return (ct_y * s * (1 + x * (1 - s)),)\n'
          '\n'
          'silu_ffi.defvjp(silu_ffi_fwd, silu_ffi_bwd)\n'),
        W('e', 'backward ffi_call has no vmap_method: vmap(silu_ffi) works, vmap(grad(...)) raises NotImplementedError',
          'silu_cc = r"""\n'
          '#include <cmath>\n'
          '#include <cstddef>\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          'static float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }\n'
          '\n'
          '// y = x * sigmoid(x)\n'
          'static ffi::Error SiluFwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n'
          '  const float* in = x.typed_data();\n'
          '  float* out = y->typed_data();\n'
          '  for (std::size_t i = 0; i < x.element_count(); ++i) out[i] = in[i] * Sigmoid(in[i]);\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          '// ct_x = ct_y * sigmoid(x) * (1 + x * (1 - sigmoid(x)))\n'
          'static ffi::Error SiluBwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct_y,\n'
          '                              ffi::ResultBuffer<ffi::F32> ct_x) {\n'
          '  const float* in = x.typed_data();\n'
          '  const float* ct = ct_y.typed_data();\n'
          '  float* out = ct_x->typed_data();\n'
          '  for (std::size_t i = 0; i < x.element_count(); ++i) {\n'
          '    const float s = Sigmoid(in[i]);\n'
          '    out[i] = ct[i] * s * (1.0f + in[i] * (1.0f - s));\n'
          '  }\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, SiluFwdImpl,\n'
          '                              ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, SiluBwdImpl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()  // x\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()  // ct_y\n'
          '                                  .Ret<ffi::Buffer<ffi::F32>>()  // ct_x\n'
          ');\n'
          '"""\n'
          'silu_lib = grader.build(code=silu_cc, name="b5_w6_silu")\n'
          'jax.ffi.register_ffi_target("b5w6.silu_fwd", jax.ffi.pycapsule(silu_lib.cdll.SiluFwd), platform="cpu")\n'
          'jax.ffi.register_ffi_target("b5w6.silu_bwd", jax.ffi.pycapsule(silu_lib.cdll.SiluBwd), platform="cpu")\n'
          '\n'
          'def _silu_kernel(x):\n'
          '    return jax.ffi.ffi_call("b5w6.silu_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)\n'
          '\n'
          '@jax.custom_vjp\n'
          'def silu_ffi(x):\n'
          '    return _silu_kernel(x)\n'
          '\n'
          'def silu_ffi_fwd(x):\n'
          '    return _silu_kernel(x), x\n'
          '\n'
          'def silu_ffi_bwd(residual, ct_y):\n'
          '    x = residual\n'
          '    return (jax.ffi.ffi_call("b5w6.silu_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype))(x, ct_y),)\n'
          '\n'
          'silu_ffi.defvjp(silu_ffi_fwd, silu_ffi_bwd)\n'),
        W('g', 'kernels loop over dimensions()[0] elements (the 1-D examples): a 2-D x leaves rows after the first unwritten',
          'silu_cc = r"""\n'
          '#include <cmath>\n'
          '#include <cstddef>\n'
          '#include <cstdint>\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          'static float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }\n'
          '\n'
          '// y = x * sigmoid(x)\n'
          'static ffi::Error SiluFwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n'
          '  const float* in = x.typed_data();\n'
          '  float* out = y->typed_data();\n'
          '  auto dims = x.dimensions();\n'
          '  const std::int64_t n = dims.size() == 0 ? 1 : dims[0];   // a vector of n values (or one scalar)\n'
          '  for (std::int64_t i = 0; i < n; ++i) out[i] = in[i] * Sigmoid(in[i]);\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          '// ct_x = ct_y * sigmoid(x) * (1 + x * (1 - sigmoid(x)))\n'
          'static ffi::Error SiluBwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct_y,\n'
          '                              ffi::ResultBuffer<ffi::F32> ct_x) {\n'
          '  const float* in = x.typed_data();\n'
          '  const float* ct = ct_y.typed_data();\n'
          '  float* out = ct_x->typed_data();\n'
          '  auto dims = x.dimensions();\n'
          '  const std::int64_t n = dims.size() == 0 ? 1 : dims[0];\n'
          '  for (std::int64_t i = 0; i < n; ++i) {\n'
          '    const float s = Sigmoid(in[i]);\n'
          '    out[i] = ct[i] * s * (1.0f + in[i] * (1.0f - s));\n'
          '  }\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, SiluFwdImpl,\n'
          '                              ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, SiluBwdImpl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()  // x\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()  // ct_y\n'
          '                                  .Ret<ffi::Buffer<ffi::F32>>()  // ct_x\n'
          ');\n'
          '"""\n'
          'silu_lib = grader.build(code=silu_cc, name="b5_w7_silu")\n'
          'jax.ffi.register_ffi_target("b5w7.silu_fwd", jax.ffi.pycapsule(silu_lib.cdll.SiluFwd), platform="cpu")\n'
          'jax.ffi.register_ffi_target("b5w7.silu_bwd", jax.ffi.pycapsule(silu_lib.cdll.SiluBwd), platform="cpu")\n'
          '\n'
          'def _silu_kernel(x):\n'
          '    return jax.ffi.ffi_call("b5w7.silu_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)\n'
          '\n'
          '@jax.custom_vjp\n'
          'def silu_ffi(x):\n'
          '    return _silu_kernel(x)\n'
          '\n'
          'def silu_ffi_fwd(x):\n'
          '    return _silu_kernel(x), x\n'
          '\n'
          'def silu_ffi_bwd(residual, ct_y):\n'
          '    x = residual\n'
          '    return (jax.ffi.ffi_call("b5w7.silu_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x, ct_y),)\n'
          '\n'
          'silu_ffi.defvjp(silu_ffi_fwd, silu_ffi_bwd)\n'),
        W('m', 'saves the output y as the residual and feeds it to the backward kernel as if it were x: gradients wrong',
          'silu_cc = r"""\n'
          '#include <cmath>\n'
          '#include <cstddef>\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          'static float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }\n'
          '\n'
          '// y = x * sigmoid(x)\n'
          'static ffi::Error SiluFwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n'
          '  const float* in = x.typed_data();\n'
          '  float* out = y->typed_data();\n'
          '  for (std::size_t i = 0; i < x.element_count(); ++i) out[i] = in[i] * Sigmoid(in[i]);\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          '// ct_x = ct_y * sigmoid(x) * (1 + x * (1 - sigmoid(x)))\n'
          'static ffi::Error SiluBwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct_y,\n'
          '                              ffi::ResultBuffer<ffi::F32> ct_x) {\n'
          '  const float* in = x.typed_data();\n'
          '  const float* ct = ct_y.typed_data();\n'
          '  float* out = ct_x->typed_data();\n'
          '  for (std::size_t i = 0; i < x.element_count(); ++i) {\n'
          '    const float s = Sigmoid(in[i]);\n'
          '    out[i] = ct[i] * s * (1.0f + in[i] * (1.0f - s));\n'
          '  }\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, SiluFwdImpl,\n'
          '                              ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, SiluBwdImpl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()  // x\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()  // ct_y\n'
          '                                  .Ret<ffi::Buffer<ffi::F32>>()  // ct_x\n'
          ');\n'
          '"""\n'
          'silu_lib = grader.build(code=silu_cc, name="b5_w8_silu")\n'
          'jax.ffi.register_ffi_target("b5w8.silu_fwd", jax.ffi.pycapsule(silu_lib.cdll.SiluFwd), platform="cpu")\n'
          'jax.ffi.register_ffi_target("b5w8.silu_bwd", jax.ffi.pycapsule(silu_lib.cdll.SiluBwd), platform="cpu")\n'
          '\n'
          'def _silu_kernel(x):\n'
          '    return jax.ffi.ffi_call("b5w8.silu_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)\n'
          '\n'
          '@jax.custom_vjp\n'
          'def silu_ffi(x):\n'
          '    return _silu_kernel(x)\n'
          '\n'
          'def silu_ffi_fwd(x):\n'
          '    y = _silu_kernel(x)\n'
          '    return y, y\n'
          '\n'
          'def silu_ffi_bwd(residual, ct_y):\n'
          '    x = residual\n'
          '    return (jax.ffi.ffi_call("b5w8.silu_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x, ct_y),)\n'
          '\n'
          'silu_ffi.defvjp(silu_ffi_fwd, silu_ffi_bwd)\n'),
    ],
    'ex3_answer': [
        W('b', 'the eager implementation recomputes RMSNorm in jnp with eps fixed at 1e-5 (jit passes eps to the kernel, eager ignores it)',
          _RMS_NORM_PRIM_HEAD +
          "rms_norm_prim_p.def_impl(lambda x, *, eps: x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-5))\n"),
        W('d', 'the eager implementation is jnp that reads eps: right values, but eager calls never reach the C++ kernel',
          _RMS_NORM_PRIM_HEAD +
          "rms_norm_prim_p.def_impl(lambda x, *, eps: x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + eps))\n"),
        W('m', 'the batching rule leaves the batch axis where it is, also when it is the axis the kernel normalises',
          "rms_norm_prim_p = Primitive('rms_norm_prim')\n"
          "rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: jax.core.ShapedArray(x.shape, x.dtype))\n"
          "mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering('rms_norm'), platform='cpu')\n"
          "rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))\n"
          "batching.primitive_batchers[rms_norm_prim_p] = lambda args, dims, *, eps: (rms_norm_prim_p.bind(args[0], eps=eps), dims[0])\n"),
        W('m', 'the batch is moved out of the last axis, but the rule reports the old position of the batch',
          "rms_norm_prim_p = Primitive('rms_norm_prim')\n"
          "rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: jax.core.ShapedArray(x.shape, x.dtype))\n"
          "mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering('rms_norm'), platform='cpu')\n"
          "rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))\n"
          "def _batch(args, dims, *, eps):\n"
          "    x, d = args[0], dims[0]\n"
          "    moved = jnp.moveaxis(x, d, 0) if d == x.ndim - 1 else x\n"
          "    return rms_norm_prim_p.bind(moved, eps=eps), d\n"
          "batching.primitive_batchers[rms_norm_prim_p] = _batch\n"),
        W('e', 'batching rule copied from the elementwise scaled_power (axis stays put): a batch on the last axis is normalised across examples',
          'rms_norm_prim_p = Primitive("rms_norm_prim_b5w1")\n'
          '\n'
          '@rms_norm_prim_p.def_abstract_eval\n'
          'def _rms_norm_prim_abstract(x, *, eps):\n'
          '    if x.ndim == 0 or x.dtype != jnp.float32:\n'
          '        raise TypeError(f"rms_norm_prim takes a float32 array with at least one axis, got {x.str_short()}")\n'
          '    return jax.core.ShapedArray(x.shape, x.dtype)\n'
          '\n'
          'mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")\n'
          'rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))\n'
          '\n'
          'def _rms_norm_prim_batch(args, dims, **params):\n'
          '    (x,), (d,) = args, dims\n'
          '    return rms_norm_prim_p.bind(x, **params), d       # the batch axis stays where it was\n'
          '\n'
          'batching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch\n'),
        W('c', 'batching rule moves the batch to axis 0 but reports the old axis d: wrong shape/layout for in_axes != 0',
          'rms_norm_prim_p = Primitive("rms_norm_prim_b5w2")\n'
          '\n'
          '@rms_norm_prim_p.def_abstract_eval\n'
          'def _rms_norm_prim_abstract(x, *, eps):\n'
          '    if x.ndim == 0 or x.dtype != jnp.float32:\n'
          '        raise TypeError(f"rms_norm_prim takes a float32 array with at least one axis, got {x.str_short()}")\n'
          '    return jax.core.ShapedArray(x.shape, x.dtype)\n'
          '\n'
          'mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")\n'
          'rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))\n'
          '\n'
          'def _rms_norm_prim_batch(args, dims, *, eps):\n'
          '    (x,), (d,) = args, dims\n'
          '    x = jnp.moveaxis(x, d, 0)     # the kernel takes leading axes as rows: batch in front\n'
          '    return rms_norm_prim_p.bind(x, eps=eps), d\n'
          '\n'
          'batching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch\n'),
        W('b', 'batching rule calls a helper with the default eps: under vmap every eps acts as 1e-5',
          'rms_norm_prim_p = Primitive("rms_norm_prim_b5w3")\n'
          '\n'
          '@rms_norm_prim_p.def_abstract_eval\n'
          'def _rms_norm_prim_abstract(x, *, eps):\n'
          '    if x.ndim == 0 or x.dtype != jnp.float32:\n'
          '        raise TypeError(f"rms_norm_prim takes a float32 array with at least one axis, got {x.str_short()}")\n'
          '    return jax.core.ShapedArray(x.shape, x.dtype)\n'
          '\n'
          'def rms_norm_prim(x, eps=1e-5):\n'
          '    return rms_norm_prim_p.bind(x, eps=np.float32(eps))\n'
          '\n'
          'mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")\n'
          'rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))\n'
          '\n'
          'def _rms_norm_prim_batch(args, dims, *, eps):\n'
          '    (x,), (d,) = args, dims\n'
          '    if d == x.ndim - 1:           # the batch sits where the kernel normalises: move it out of the way\n'
          '        x, d = jnp.moveaxis(x, d, 0), 0\n'
          '    return rms_norm_prim(x), d\n'
          '\n'
          'batching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch\n'),
        W('d', 'lowering is mlir.lower_fun of the jnp formula: no stablehlo.custom_call @rms_norm in the program',
          'rms_norm_prim_p = Primitive("rms_norm_prim_b5w4")\n'
          '\n'
          '@rms_norm_prim_p.def_abstract_eval\n'
          'def _rms_norm_prim_abstract(x, *, eps):\n'
          '    if x.ndim == 0 or x.dtype != jnp.float32:\n'
          '        raise TypeError(f"rms_norm_prim takes a float32 array with at least one axis, got {x.str_short()}")\n'
          '    return jax.core.ShapedArray(x.shape, x.dtype)\n'
          '\n'
          'def _rms_norm_math(x, *, eps):\n'
          '    return x / jnp.sqrt(jnp.mean(jnp.abs(x) ** 2, axis=-1, keepdims=True) + eps)\n'
          '\n'
          'mlir.register_lowering(rms_norm_prim_p, mlir.lower_fun(_rms_norm_math, multiple_results=False), platform="cpu")\n'
          'rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))\n'
          '\n'
          'def _rms_norm_prim_batch(args, dims, *, eps):\n'
          '    (x,), (d,) = args, dims\n'
          '    if d == x.ndim - 1:           # the batch sits where the kernel normalises: move it out of the way\n'
          '        x, d = jnp.moveaxis(x, d, 0), 0\n'
          '    return rms_norm_prim_p.bind(x, eps=eps), d\n'
          '\n'
          'batching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch\n'),
        W('d', 'eager impl computes the jnp formula instead of apply_primitive: eager calls never reach the C++ and differ from jit bitwise',
          'rms_norm_prim_p = Primitive("rms_norm_prim_b5w5")\n'
          '\n'
          '@rms_norm_prim_p.def_abstract_eval\n'
          'def _rms_norm_prim_abstract(x, *, eps):\n'
          '    if x.ndim == 0 or x.dtype != jnp.float32:\n'
          '        raise TypeError(f"rms_norm_prim takes a float32 array with at least one axis, got {x.str_short()}")\n'
          '    return jax.core.ShapedArray(x.shape, x.dtype)\n'
          '\n'
          'mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")\n'
          '@rms_norm_prim_p.def_impl\n'
          'def _rms_norm_prim_impl(x, *, eps):       # eager: the same math, without compiling anything\n'
          '    return x / jnp.sqrt(jnp.mean(jnp.abs(x) ** 2, axis=-1, keepdims=True) + eps)\n'
          '\n'
          'def _rms_norm_prim_batch(args, dims, *, eps):\n'
          '    (x,), (d,) = args, dims\n'
          '    if d == x.ndim - 1:           # the batch sits where the kernel normalises: move it out of the way\n'
          '        x, d = jnp.moveaxis(x, d, 0), 0\n'
          '    return rms_norm_prim_p.bind(x, eps=eps), d\n'
          '\n'
          'batching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch\n'),
        W('g', 'moves the batch only when it is axis 1 (the matrix case): a batch on axis 2 of a 3-D input is normalised across examples',
          'rms_norm_prim_p = Primitive("rms_norm_prim_b5w6")\n'
          '\n'
          '@rms_norm_prim_p.def_abstract_eval\n'
          'def _rms_norm_prim_abstract(x, *, eps):\n'
          '    if x.ndim == 0 or x.dtype != jnp.float32:\n'
          '        raise TypeError(f"rms_norm_prim takes a float32 array with at least one axis, got {x.str_short()}")\n'
          '    return jax.core.ShapedArray(x.shape, x.dtype)\n'
          '\n'
          'mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")\n'
          'rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))\n'
          '\n'
          'def _rms_norm_prim_batch(args, dims, *, eps):\n'
          '    (x,), (d,) = args, dims\n'
          '    if d == 1:                    # vmap over the columns of a matrix: the batch is the row axis\n'
          '        x, d = jnp.moveaxis(x, d, 0), 0\n'
          '    return rms_norm_prim_p.bind(x, eps=eps), d\n'
          '\n'
          'batching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch\n'),
        W('c', 'abstract eval accepts only 2-D arrays: a 1-D or 3-D x (and vmap over 2-D examples) raises TypeError',
          'rms_norm_prim_p = Primitive("rms_norm_prim_b5w7")\n'
          '\n'
          '@rms_norm_prim_p.def_abstract_eval\n'
          'def _rms_norm_prim_abstract(x, *, eps):\n'
          '    if x.ndim != 2 or x.dtype != jnp.float32:\n'
          '        raise TypeError(f"rms_norm_prim takes a float32 matrix of rows, got {x.str_short()}")\n'
          '    return jax.core.ShapedArray(x.shape, x.dtype)\n'
          '\n'
          'mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")\n'
          'rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))\n'
          '\n'
          'def _rms_norm_prim_batch(args, dims, *, eps):\n'
          '    (x,), (d,) = args, dims\n'
          '    if d == x.ndim - 1:           # the batch sits where the kernel normalises: move it out of the way\n'
          '        x, d = jnp.moveaxis(x, d, 0), 0\n'
          '    return rms_norm_prim_p.bind(x, eps=eps), d\n'
          '\n'
          'batching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch\n'),
    ],
    'quiz_answer': [
        W('m', 'q1=a: believes x64-off narrows a Python float attribute to f32 (section 4)',
          'q1 = "a"\n'
          'q2 = "a"\n'
          'q3 = "b"\n'
          'q4 = "c"\n'),
        W('m', 'q1=c: confuses a Python float with a jnp array/tracer, which ffi_call refuses with TypeError (section 4)',
          'q1 = "c"\n'
          'q2 = "a"\n'
          'q3 = "b"\n'
          'q4 = "c"\n'),
        W('m', 'q2=b: mixes up broadcast_all with the sequential methods (section 5)',
          'q1 = "b"\n'
          'q2 = "b"\n'
          'q3 = "b"\n'
          'q4 = "c"\n'),
        W('m', 'q3=a: thinks a re-registration replaces the old handler (sections 3 and 8)',
          'q1 = "b"\n'
          'q2 = "a"\n'
          'q3 = "a"\n'
          'q4 = "c"\n'),
        W('m', 'q4=b: thinks lowering looks the target name up (section 3: lowering works, compile fails)',
          'q1 = "b"\n'
          'q2 = "a"\n'
          'q3 = "b"\n'
          'q4 = "b"\n'),
        W('m', 'q3=c and q4=a: thinks registrations are versioned and ffi_call checks names eagerly',
          'q1 = "b"\n'
          'q2 = "a"\n'
          'q3 = "c"\n'
          'q4 = "a"\n'),
    ],
}

# Round 4: written from the text alone, with the mistakes above listed as already caught, before the checks were read;
# each passed every visible check, and some scored full marks, until the checks were made to catch them.
WRONG['ex1_answer'] += [
    W('m', 'empty rows answered with ffi::Error::Internal instead of InvalidArgument: the message reads "INTERNAL: ... rows must not be empty"',
      'row_minmax_cc = r"""\n#include <algorithm>\n#include <cmath>\n#include <cstddef>\n#include <cstdint>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nstatic ffi::Error RowMinMaxImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> lo,\n                                ffi::ResultBuffer<ffi::F32> hi) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_minmax: x must have at least one axis");\n  const std::int64_t n = dims.back();\n  std::int64_t rows = 1;\n  for (std::size_t i = 0; i + 1 < dims.size(); ++i) rows *= dims[i];\n  if (n == 0 && rows > 0) return ffi::Error::Internal("row_minmax: rows must not be empty");\n  if (lo->element_count() != static_cast<std::size_t>(rows) || hi->element_count() != static_cast<std::size_t>(rows)) {\n    return ffi::Error::InvalidArgument("row_minmax: lo and hi must have shape x.shape[:-1]");\n  }\n  const float* in = x.typed_data();\n  float* lo_out = lo->typed_data();\n  float* hi_out = hi->typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* row = in + r * n;\n    float mn = row[0], mx = row[0];\n    for (std::int64_t i = 1; i < n; ++i) {\n      if (row[i] < mn) mn = row[i];\n      if (row[i] > mx) mx = row[i];\n    }\n    lo_out[r] = mn;\n    hi_out[r] = mx;\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(RowMinMax, RowMinMaxImpl,\n                              ffi::Ffi::Bind()\n                                  .Arg<ffi::Buffer<ffi::F32>>()   // x\n                                  .Ret<ffi::Buffer<ffi::F32>>()   // lo\n                                  .Ret<ffi::Buffer<ffi::F32>>()   // hi\n);\n"""\nrow_minmax_lib = grader.build(code=row_minmax_cc, name="row_minmax_w2")\njax.ffi.register_ffi_target("row_minmax_w2", jax.ffi.pycapsule(row_minmax_lib.cdll.RowMinMax), platform="cpu")\n\ndef row_minmax(x):\n    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n    return jax.ffi.ffi_call("row_minmax_w2", (spec, spec), vmap_method="broadcast_all")(x)\n'),
]
WRONG['ex2_answer'] += [
    W('d', "silu_ffi's own body is jax.nn.silu (the kernels only in fwd/bwd): value_and_grad calls both targets, but a plain or jitted silu_ffi(x) never reaches C++",
      'silu_cc = r"""\n#include <cmath>\n#include <cstddef>\n#include <cstdint>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nstatic inline float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }\n\nstatic ffi::Error SiluFwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  if (y->element_count() != x.element_count()) return ffi::Error::InvalidArgument("silu_fwd: y must match x");\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n  for (std::size_t i = 0; i < x.element_count(); ++i) out[i] = in[i] * Sigmoid(in[i]);\n  return ffi::Error::Success();\n}\n\nstatic ffi::Error SiluBwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct_y, ffi::ResultBuffer<ffi::F32> ct_x) {\n  if (ct_y.element_count() != x.element_count() || ct_x->element_count() != x.element_count()) {\n    return ffi::Error::InvalidArgument("silu_bwd: x, ct_y and ct_x must have the same size");\n  }\n  const float* in = x.typed_data();\n  const float* ct = ct_y.typed_data();\n  float* out = ct_x->typed_data();\n  for (std::size_t i = 0; i < x.element_count(); ++i) {\n    const float s = Sigmoid(in[i]);\n    out[i] = ct[i] * s * (1.0f + in[i] * (1.0f - s));\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, SiluFwdImpl,\n                              ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, SiluBwdImpl,\n                              ffi::Ffi::Bind()\n                                  .Arg<ffi::Buffer<ffi::F32>>()   // x (the residual)\n                                  .Arg<ffi::Buffer<ffi::F32>>()   // ct_y\n                                  .Ret<ffi::Buffer<ffi::F32>>());  // ct_x\n"""\nsilu_lib = grader.build(code=silu_cc, name="silu_w0")\njax.ffi.register_ffi_target("silu_fwd_w0", jax.ffi.pycapsule(silu_lib.cdll.SiluFwd), platform="cpu")\njax.ffi.register_ffi_target("silu_bwd_w0", jax.ffi.pycapsule(silu_lib.cdll.SiluBwd), platform="cpu")\n\ndef _silu_fwd_call(x):\n    return jax.ffi.ffi_call("silu_fwd_w0", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)\n\ndef _silu_bwd_call(x, ct_y):\n    return jax.ffi.ffi_call("silu_bwd_w0", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x, ct_y)\n\n@jax.custom_vjp\ndef silu_ffi(x):\n    return jax.nn.silu(x)\n\ndef silu_ffi_fwd(x):\n    return _silu_fwd_call(x), x\n\ndef silu_ffi_bwd(residual, ct_y):\n    x = residual\n    return (_silu_bwd_call(x, ct_y),)\n\nsilu_ffi.defvjp(silu_ffi_fwd, silu_ffi_bwd)\n'),
    W('c', 'forward writes silu as x*(1 - sigmoid(-x)): 1 - sigma(-x) cancels for x < -17, so silu(-20) is 0 (not -4e-8) and silu(-30) is 0 (not -2.8e-12)',
      'silu_cc = r"""\n#include <cmath>\n#include <cstddef>\n#include <cstdint>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nstatic inline float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }\n\nstatic ffi::Error SiluFwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  if (y->element_count() != x.element_count()) return ffi::Error::InvalidArgument("silu_fwd: y must match x");\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n  for (std::size_t i = 0; i < x.element_count(); ++i) out[i] = in[i] * (1.0f - 1.0f / (1.0f + std::exp(in[i])));\n  return ffi::Error::Success();\n}\n\nstatic ffi::Error SiluBwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct_y, ffi::ResultBuffer<ffi::F32> ct_x) {\n  if (ct_y.element_count() != x.element_count() || ct_x->element_count() != x.element_count()) {\n    return ffi::Error::InvalidArgument("silu_bwd: x, ct_y and ct_x must have the same size");\n  }\n  const float* in = x.typed_data();\n  const float* ct = ct_y.typed_data();\n  float* out = ct_x->typed_data();\n  for (std::size_t i = 0; i < x.element_count(); ++i) {\n    const float s = Sigmoid(in[i]);\n    out[i] = ct[i] * s * (1.0f + in[i] * (1.0f - s));\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, SiluFwdImpl,\n                              ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, SiluBwdImpl,\n                              ffi::Ffi::Bind()\n                                  .Arg<ffi::Buffer<ffi::F32>>()   // x (the residual)\n                                  .Arg<ffi::Buffer<ffi::F32>>()   // ct_y\n                                  .Ret<ffi::Buffer<ffi::F32>>());  // ct_x\n"""\nsilu_lib = grader.build(code=silu_cc, name="silu_w1")\njax.ffi.register_ffi_target("silu_fwd_w1", jax.ffi.pycapsule(silu_lib.cdll.SiluFwd), platform="cpu")\njax.ffi.register_ffi_target("silu_bwd_w1", jax.ffi.pycapsule(silu_lib.cdll.SiluBwd), platform="cpu")\n\ndef _silu_fwd_call(x):\n    return jax.ffi.ffi_call("silu_fwd_w1", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)\n\ndef _silu_bwd_call(x, ct_y):\n    return jax.ffi.ffi_call("silu_bwd_w1", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x, ct_y)\n\n@jax.custom_vjp\ndef silu_ffi(x):\n    return _silu_fwd_call(x)\n\ndef silu_ffi_fwd(x):\n    return _silu_fwd_call(x), x\n\ndef silu_ffi_bwd(residual, ct_y):\n    x = residual\n    return (_silu_bwd_call(x, ct_y),)\n\nsilu_ffi.defvjp(silu_ffi_fwd, silu_ffi_bwd)\n'),
    W('c', 'backward expands the derivative as s + x*s - x*s*s: the two big terms cancel for x above ~1.7e7, giving gradient 0 instead of 1',
      'silu_cc = r"""\n#include <cmath>\n#include <cstddef>\n#include <cstdint>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nstatic inline float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }\n\nstatic ffi::Error SiluFwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  if (y->element_count() != x.element_count()) return ffi::Error::InvalidArgument("silu_fwd: y must match x");\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n  for (std::size_t i = 0; i < x.element_count(); ++i) out[i] = in[i] * Sigmoid(in[i]);\n  return ffi::Error::Success();\n}\n\nstatic ffi::Error SiluBwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct_y, ffi::ResultBuffer<ffi::F32> ct_x) {\n  if (ct_y.element_count() != x.element_count() || ct_x->element_count() != x.element_count()) {\n    return ffi::Error::InvalidArgument("silu_bwd: x, ct_y and ct_x must have the same size");\n  }\n  const float* in = x.typed_data();\n  const float* ct = ct_y.typed_data();\n  float* out = ct_x->typed_data();\n  for (std::size_t i = 0; i < x.element_count(); ++i) {\n    const float s = Sigmoid(in[i]);\n    out[i] = ct[i] * (s + in[i] * s - in[i] * s * s);\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, SiluFwdImpl,\n                              ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, SiluBwdImpl,\n                              ffi::Ffi::Bind()\n                                  .Arg<ffi::Buffer<ffi::F32>>()   // x (the residual)\n                                  .Arg<ffi::Buffer<ffi::F32>>()   // ct_y\n                                  .Ret<ffi::Buffer<ffi::F32>>());  // ct_x\n"""\nsilu_lib = grader.build(code=silu_cc, name="silu_w2")\njax.ffi.register_ffi_target("silu_fwd_w2", jax.ffi.pycapsule(silu_lib.cdll.SiluFwd), platform="cpu")\njax.ffi.register_ffi_target("silu_bwd_w2", jax.ffi.pycapsule(silu_lib.cdll.SiluBwd), platform="cpu")\n\ndef _silu_fwd_call(x):\n    return jax.ffi.ffi_call("silu_fwd_w2", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)\n\ndef _silu_bwd_call(x, ct_y):\n    return jax.ffi.ffi_call("silu_bwd_w2", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x, ct_y)\n\n@jax.custom_vjp\ndef silu_ffi(x):\n    return _silu_fwd_call(x)\n\ndef silu_ffi_fwd(x):\n    return _silu_fwd_call(x), x\n\ndef silu_ffi_bwd(residual, ct_y):\n    x = residual\n    return (_silu_bwd_call(x, ct_y),)\n\nsilu_ffi.defvjp(silu_ffi_fwd, silu_ffi_bwd)\n'),
    W('e', 'backward uses vmap_method="expand_dims" and broadcasts a smaller ct_y by index modulo, but loops over x: vmap over cotangents with x fixed (jax.jacrev, per-example weights) writes only the first example\'s gradient',
      'silu_cc = r"""\n#include <cmath>\n#include <cstddef>\n#include <cstdint>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nstatic inline float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }\n\nstatic ffi::Error SiluFwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  if (y->element_count() != x.element_count()) return ffi::Error::InvalidArgument("silu_fwd: y must match x");\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n  for (std::size_t i = 0; i < x.element_count(); ++i) out[i] = in[i] * Sigmoid(in[i]);\n  return ffi::Error::Success();\n}\n\nstatic ffi::Error SiluBwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct_y, ffi::ResultBuffer<ffi::F32> ct_x) {\n  const std::size_t m = ct_y.element_count();   // an unbatched ct_y arrives with a size-1 batch axis\n  const float* in = x.typed_data();\n  const float* ct = ct_y.typed_data();\n  float* out = ct_x->typed_data();\n  for (std::size_t i = 0; i < x.element_count(); ++i) {\n    const float s = Sigmoid(in[i]);\n    out[i] = ct[i % m] * s * (1.0f + in[i] * (1.0f - s));\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, SiluFwdImpl,\n                              ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, SiluBwdImpl,\n                              ffi::Ffi::Bind()\n                                  .Arg<ffi::Buffer<ffi::F32>>()   // x (the residual)\n                                  .Arg<ffi::Buffer<ffi::F32>>()   // ct_y\n                                  .Ret<ffi::Buffer<ffi::F32>>());  // ct_x\n"""\nsilu_lib = grader.build(code=silu_cc, name="silu_w3")\njax.ffi.register_ffi_target("silu_fwd_w3", jax.ffi.pycapsule(silu_lib.cdll.SiluFwd), platform="cpu")\njax.ffi.register_ffi_target("silu_bwd_w3", jax.ffi.pycapsule(silu_lib.cdll.SiluBwd), platform="cpu")\n\ndef _silu_fwd_call(x):\n    return jax.ffi.ffi_call("silu_fwd_w3", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)\n\ndef _silu_bwd_call(x, ct_y):\n    return jax.ffi.ffi_call("silu_bwd_w3", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="expand_dims")(x, ct_y)\n\n@jax.custom_vjp\ndef silu_ffi(x):\n    return _silu_fwd_call(x)\n\ndef silu_ffi_fwd(x):\n    return _silu_fwd_call(x), x\n\ndef silu_ffi_bwd(residual, ct_y):\n    x = residual\n    return (_silu_bwd_call(x, ct_y),)\n\nsilu_ffi.defvjp(silu_ffi_fwd, silu_ffi_bwd)\n'),
    W('c', 'sigmoid clamps its argument to [-80, 80] "so exp cannot overflow": sigma never goes below 1.8e-35, so silu(-1e30) is -1.8e-5 (not -0) and its gradient -1.8e-5 (not 0)',
      'silu_cc = r"""\n#include <cmath>\n#include <cstddef>\n#include <cstdint>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nstatic inline float Sigmoid(float v) { const float c = v < -80.0f ? -80.0f : (v > 80.0f ? 80.0f : v); return 1.0f / (1.0f + std::exp(-c)); }\n\nstatic ffi::Error SiluFwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  if (y->element_count() != x.element_count()) return ffi::Error::InvalidArgument("silu_fwd: y must match x");\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n  for (std::size_t i = 0; i < x.element_count(); ++i) out[i] = in[i] * Sigmoid(in[i]);\n  return ffi::Error::Success();\n}\n\nstatic ffi::Error SiluBwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct_y, ffi::ResultBuffer<ffi::F32> ct_x) {\n  if (ct_y.element_count() != x.element_count() || ct_x->element_count() != x.element_count()) {\n    return ffi::Error::InvalidArgument("silu_bwd: x, ct_y and ct_x must have the same size");\n  }\n  const float* in = x.typed_data();\n  const float* ct = ct_y.typed_data();\n  float* out = ct_x->typed_data();\n  for (std::size_t i = 0; i < x.element_count(); ++i) {\n    const float s = Sigmoid(in[i]);\n    out[i] = ct[i] * s * (1.0f + in[i] * (1.0f - s));\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, SiluFwdImpl,\n                              ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, SiluBwdImpl,\n                              ffi::Ffi::Bind()\n                                  .Arg<ffi::Buffer<ffi::F32>>()   // x (the residual)\n                                  .Arg<ffi::Buffer<ffi::F32>>()   // ct_y\n                                  .Ret<ffi::Buffer<ffi::F32>>());  // ct_x\n"""\nsilu_lib = grader.build(code=silu_cc, name="silu_w5")\njax.ffi.register_ffi_target("silu_fwd_w5", jax.ffi.pycapsule(silu_lib.cdll.SiluFwd), platform="cpu")\njax.ffi.register_ffi_target("silu_bwd_w5", jax.ffi.pycapsule(silu_lib.cdll.SiluBwd), platform="cpu")\n\ndef _silu_fwd_call(x):\n    return jax.ffi.ffi_call("silu_fwd_w5", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)\n\ndef _silu_bwd_call(x, ct_y):\n    return jax.ffi.ffi_call("silu_bwd_w5", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x, ct_y)\n\n@jax.custom_vjp\ndef silu_ffi(x):\n    return _silu_fwd_call(x)\n\ndef silu_ffi_fwd(x):\n    return _silu_fwd_call(x), x\n\ndef silu_ffi_bwd(residual, ct_y):\n    x = residual\n    return (_silu_bwd_call(x, ct_y),)\n\nsilu_ffi.defvjp(silu_ffi_fwd, silu_ffi_bwd)\n'),
    W('d', "the backward kernel computes only silu'(x) from x; the product with the cotangent is jnp (ct_y * slope): the second kernel never receives ct_y",
      'silu_cc = r"""\n#include <cmath>\n#include <cstddef>\n#include <cstdint>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nstatic inline float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }\n\nstatic ffi::Error SiluFwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  if (y->element_count() != x.element_count()) return ffi::Error::InvalidArgument("silu_fwd: y must match x");\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n  for (std::size_t i = 0; i < x.element_count(); ++i) out[i] = in[i] * Sigmoid(in[i]);\n  return ffi::Error::Success();\n}\n\nstatic ffi::Error SiluBwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> ct_x) {\n  if (ct_x->element_count() != x.element_count()) return ffi::Error::InvalidArgument("silu_bwd: ct_x must match x");\n  const float* in = x.typed_data();\n  float* out = ct_x->typed_data();\n  for (std::size_t i = 0; i < x.element_count(); ++i) {\n    const float s = Sigmoid(in[i]);\n    out[i] = s * (1.0f + in[i] * (1.0f - s));   // silu\'(x); the cotangent is applied in Python\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, SiluFwdImpl,\n                              ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, SiluBwdImpl,\n                              ffi::Ffi::Bind()\n                                  .Arg<ffi::Buffer<ffi::F32>>()   // x (the residual)\n                                  .Ret<ffi::Buffer<ffi::F32>>());  // silu\'(x)\n"""\nsilu_lib = grader.build(code=silu_cc, name="silu_w6")\njax.ffi.register_ffi_target("silu_fwd_w6", jax.ffi.pycapsule(silu_lib.cdll.SiluFwd), platform="cpu")\njax.ffi.register_ffi_target("silu_bwd_w6", jax.ffi.pycapsule(silu_lib.cdll.SiluBwd), platform="cpu")\n\ndef _silu_fwd_call(x):\n    return jax.ffi.ffi_call("silu_fwd_w6", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)\n\ndef _silu_bwd_call(x, ct_y):\n    slope = jax.ffi.ffi_call("silu_bwd_w6", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)\n    return ct_y * slope\n\n@jax.custom_vjp\ndef silu_ffi(x):\n    return _silu_fwd_call(x)\n\ndef silu_ffi_fwd(x):\n    return _silu_fwd_call(x), x\n\ndef silu_ffi_bwd(residual, ct_y):\n    x = residual\n    return (_silu_bwd_call(x, ct_y),)\n\nsilu_ffi.defvjp(silu_ffi_fwd, silu_ffi_bwd)\n'),
]
WRONG['ex3_answer'] += [
    W('d', "eager impl calls section 1's bare rms_norm_ffi: the same C++ and bitwise the same numbers, but an eager call runs an ffi_call, not the primitive's own lowering",
      'rms_norm_prim_p = Primitive("rms_norm_prim")\n\n@rms_norm_prim_p.def_abstract_eval\ndef _rms_norm_prim_abstract(x, *, eps):\n    if x.ndim < 1:\n        raise TypeError("rms_norm_prim needs at least one axis")\n    if x.dtype != jnp.float32:\n        raise TypeError(f"rms_norm_prim takes float32 arrays, got {x.dtype}")\n    return jax.core.ShapedArray(x.shape, x.dtype)\n\nmlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")\nrms_norm_prim_p.def_impl(lambda x, *, eps: rms_norm_ffi(x, eps))\n\ndef _rms_norm_prim_batch(args, dims, *, eps):\n    (x,), (d,) = args, dims\n    if d == x.ndim - 1:                      # the batch is the axis the kernel normalises: move it\n        x = jnp.moveaxis(x, d, 0)\n        d = 0\n    return rms_norm_prim_p.bind(x, eps=eps), d\n\nbatching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch\n'),
    W('d', 'batching rule calls the bare rms_norm_ffi (broadcast_all) instead of binding the primitive: under vmap the jaxpr holds ffi_call and a transpose, not rms_norm_prim',
      'rms_norm_prim_p = Primitive("rms_norm_prim")\n\n@rms_norm_prim_p.def_abstract_eval\ndef _rms_norm_prim_abstract(x, *, eps):\n    if x.ndim < 1:\n        raise TypeError("rms_norm_prim needs at least one axis")\n    if x.dtype != jnp.float32:\n        raise TypeError(f"rms_norm_prim takes float32 arrays, got {x.dtype}")\n    return jax.core.ShapedArray(x.shape, x.dtype)\n\nmlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")\nrms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))\n\ndef _rms_norm_prim_batch(args, dims, *, eps):\n    (x,), (d,) = args, dims\n    return rms_norm_ffi(x if d == 0 else jnp.moveaxis(x, d, 0), eps), 0\n\nbatching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch\n'),
    W('c', 'abstract eval has no dtype check (the kernel "checks it anyway"): an int32 or float64 x traces, lowers and compiles, and fails only when run, with JaxRuntimeError not TypeError',
      'rms_norm_prim_p = Primitive("rms_norm_prim")\n\n@rms_norm_prim_p.def_abstract_eval\ndef _rms_norm_prim_abstract(x, *, eps):\n    if x.ndim < 1:\n        raise TypeError("rms_norm_prim needs at least one axis")\n    return jax.core.ShapedArray(x.shape, x.dtype)\n\nmlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")\nrms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))\n\ndef _rms_norm_prim_batch(args, dims, *, eps):\n    (x,), (d,) = args, dims\n    if d == x.ndim - 1:                      # the batch is the axis the kernel normalises: move it\n        x = jnp.moveaxis(x, d, 0)\n        d = 0\n    return rms_norm_prim_p.bind(x, eps=eps), d\n\nbatching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch\n'),
    W('c', "abstract eval does not refuse a 0-d x: jax.eval_shape/make_jaxpr accept a scalar, and jit fails only when run, with the kernel's JaxRuntimeError instead of a TypeError",
      'rms_norm_prim_p = Primitive("rms_norm_prim")\n\n@rms_norm_prim_p.def_abstract_eval\ndef _rms_norm_prim_abstract(x, *, eps):\n    if x.dtype != jnp.float32:\n        raise TypeError(f"rms_norm_prim takes float32 arrays, got {x.dtype}")\n    return jax.core.ShapedArray(x.shape, x.dtype)\n\nmlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")\nrms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))\n\ndef _rms_norm_prim_batch(args, dims, *, eps):\n    (x,), (d,) = args, dims\n    if d == x.ndim - 1:                      # the batch is the axis the kernel normalises: move it\n        x = jnp.moveaxis(x, d, 0)\n        d = 0\n    return rms_norm_prim_p.bind(x, eps=eps), d\n\nbatching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch\n'),
]


# Round 5: written from the text alone; the text now says the values match to 4 significant digits, tiny ones too.
WRONG['ex2_answer'] += [
    W('c', 'sigma(x) as 0.5 * (1 + tanh(x / 2)): the same function, but 1 + tanh(-10) rounds to 0 in float32, '
           'so silu(-20) comes out 0, not -4.1e-8',
      '# sigma via tanh: 0.5 * (1 + tanh(x / 2)), which never overflows\nsilu_cc = r"""\n#include <cmath>\n#include <cstddef>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\nstatic float Sig(float v) { return 0.5f * (1.0f + std::tanh(0.5f * v)); }\nstatic ffi::Error FwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  for (std::size_t i = 0; i < x.element_count(); ++i) { const float v = x.typed_data()[i]; y->typed_data()[i] = v * Sig(v); }\n  return ffi::Error::Success();\n}\nstatic ffi::Error BwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct, ffi::ResultBuffer<ffi::F32> ct_x) {\n  for (std::size_t i = 0; i < x.element_count(); ++i) {\n    const float v = x.typed_data()[i], s = Sig(v);\n    ct_x->typed_data()[i] = ct.typed_data()[i] * s * (1.0f + v * (1.0f - s));\n  }\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, FwdImpl, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, BwdImpl,\n    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n"""\nlib = grader.build(code=silu_cc, name="silu_c")\nlib.register_ffi_target("silu_c_fwd", "SiluFwd"); lib.register_ffi_target("silu_c_bwd", "SiluBwd")\n@jax.custom_vjp\ndef silu_ffi(x):\n    return jax.ffi.ffi_call("silu_c_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)\ndef silu_ffi_fwd(x):\n    return silu_ffi(x), x\ndef silu_ffi_bwd(x, ct_y):\n    return (jax.ffi.ffi_call("silu_c_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x, ct_y),)\nsilu_ffi.defvjp(silu_ffi_fwd, silu_ffi_bwd)\n'),
]

# Round 6: written from the text alone by a reviewer who saw none of the checks; each passed every visible check
# (and all but the float16 one earned full marks) until a visible check looked for it.
WRONG['ex1_answer'] += [
    W('m', 'empty rows refused in Python by raising jax.errors.JaxRuntimeError itself; the handler has no check (reads row[0] of an empty row if called)',
      'mm_cc = r\'\'\'\n#include <cmath>\n#include <cstddef>\n#include <cstdint>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nstatic ffi::Error RowMinMaxImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> lo, ffi::ResultBuffer<ffi::F32> hi) {\n  auto dims = x.dimensions();\n  const std::int64_t n = dims.back();\n  std::int64_t rows = 1;\n  for (std::size_t i = 0; i + 1 < dims.size(); ++i) rows *= dims[i];\n  \n  const float* in = x.typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    float a = in[r * n], b = a;\n    for (std::int64_t i = 1; i < n; ++i) { const float v = in[r * n + i]; if (v < a) a = v; if (v > b) b = v; }\n    lo->typed_data()[r] = a;\n    hi->typed_data()[r] = b;\n  }\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(RowMinMax, RowMinMaxImpl,\n    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n\'\'\'\nmm_lib = grader.build(code=mm_cc, name=\'w11r5_mm_a\')\njax.ffi.register_ffi_target(\'w11r5_mm_a\', jax.ffi.pycapsule(mm_lib.cdll.RowMinMax), platform=\'cpu\')\n\ndef row_minmax(x):\n    if x.shape[-1] == 0:\n        raise jax.errors.JaxRuntimeError(\'INVALID_ARGUMENT: row_minmax: rows must not be empty\')\n    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n    return jax.ffi.ffi_call(\'w11r5_mm_a\', (spec, spec), vmap_method=\'broadcast_all\')(x)\n'),
]
WRONG['ex2_answer'] += [
    W('c', 'silu and its gradient 0 for x < -25: silu(-30) = -2.8e-12 comes out 0',
      'silu_cc = r\'\'\'\n#include <cmath>\n#include <cstddef>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\nstatic float Sig(float v) { return 1.0f / (1.0f + std::exp(-v)); }\nstatic ffi::Error FwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  for (std::size_t i = 0; i < x.element_count(); ++i) { const float v = x.typed_data()[i]; y->typed_data()[i] = v < -25.0f ? -0.0f : v * Sig(v); }\n  return ffi::Error::Success();\n}\nstatic ffi::Error BwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct, ffi::ResultBuffer<ffi::F32> ct_x) {\n  for (std::size_t i = 0; i < x.element_count(); ++i) { const float v = x.typed_data()[i], s = Sig(v); ct_x->typed_data()[i] = v < -25.0f ? 0.0f : ct.typed_data()[i] * s * (1.0f + v * (1.0f - s)); }\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, FwdImpl, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, BwdImpl,\n    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n\'\'\'\nsilu_lib = grader.build(code=silu_cc, name=\'w11r5_c25\')\nsilu_lib.register_ffi_target(\'w11r5_c25_fwd\', \'SiluFwd\')\nsilu_lib.register_ffi_target(\'w11r5_c25_bwd\', \'SiluBwd\')\n@jax.custom_vjp\ndef silu_ffi(x):\n    return jax.ffi.ffi_call(\'w11r5_c25_fwd\', jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method=\'broadcast_all\')(x)\ndef silu_ffi_fwd(x):\n    return silu_ffi(x), x\ndef silu_ffi_bwd(residual, ct_y):\n    x = residual\n    return (jax.ffi.ffi_call(\'w11r5_c25_bwd\', jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method=\'broadcast_all\')(x, ct_y),)\nsilu_ffi.defvjp(silu_ffi_fwd, silu_ffi_bwd)\n'),
    W('c', 'gradient only 0 for x < -30 (values right): grad at -40 is -1.6e-16, comes out 0',
      'silu_cc = r\'\'\'\n#include <cmath>\n#include <cstddef>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\nstatic float Sig(float v) { return 1.0f / (1.0f + std::exp(-v)); }\nstatic ffi::Error FwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  for (std::size_t i = 0; i < x.element_count(); ++i) { const float v = x.typed_data()[i]; y->typed_data()[i] = v * Sig(v); }\n  return ffi::Error::Success();\n}\nstatic ffi::Error BwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct, ffi::ResultBuffer<ffi::F32> ct_x) {\n  for (std::size_t i = 0; i < x.element_count(); ++i) { const float v = x.typed_data()[i], s = Sig(v); ct_x->typed_data()[i] = v < -30.0f ? 0.0f : ct.typed_data()[i] * s * (1.0f + v * (1.0f - s)); }\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, FwdImpl, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, BwdImpl,\n    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n\'\'\'\nsilu_lib = grader.build(code=silu_cc, name=\'w11r5_c30b\')\nsilu_lib.register_ffi_target(\'w11r5_c30b_fwd\', \'SiluFwd\')\nsilu_lib.register_ffi_target(\'w11r5_c30b_bwd\', \'SiluBwd\')\n@jax.custom_vjp\ndef silu_ffi(x):\n    return jax.ffi.ffi_call(\'w11r5_c30b_fwd\', jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method=\'broadcast_all\')(x)\ndef silu_ffi_fwd(x):\n    return silu_ffi(x), x\ndef silu_ffi_bwd(residual, ct_y):\n    x = residual\n    return (jax.ffi.ffi_call(\'w11r5_c30b_bwd\', jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method=\'broadcast_all\')(x, ct_y),)\nsilu_ffi.defvjp(silu_ffi_fwd, silu_ffi_bwd)\n'),
    W('c', 'forward and backward return 0 for x < -80: silu(-85) is about -1e-35, not 0',
      'silu_cc = r\'\'\'\n#include <cmath>\n#include <cstddef>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\nstatic float Sig(float v) { return 1.0f / (1.0f + std::exp(-v)); }\nstatic ffi::Error FwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  for (std::size_t i = 0; i < x.element_count(); ++i) { const float v = x.typed_data()[i]; y->typed_data()[i] = v < -80.0f ? -0.0f : v * Sig(v); }\n  return ffi::Error::Success();\n}\nstatic ffi::Error BwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct, ffi::ResultBuffer<ffi::F32> ct_x) {\n  for (std::size_t i = 0; i < x.element_count(); ++i) { const float v = x.typed_data()[i], s = Sig(v); ct_x->typed_data()[i] = v < -80.0f ? 0.0f : ct.typed_data()[i] * s * (1.0f + v * (1.0f - s)); }\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, FwdImpl, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, BwdImpl,\n    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n\'\'\'\nsilu_lib = grader.build(code=silu_cc, name=\'w11r5_silu_c80\')\nsilu_lib.register_ffi_target(\'w11r5_silu_c80_fwd\', \'SiluFwd\')\nsilu_lib.register_ffi_target(\'w11r5_silu_c80_bwd\', \'SiluBwd\')\n@jax.custom_vjp\ndef silu_ffi(x):\n    return jax.ffi.ffi_call(\'w11r5_silu_c80_fwd\', jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method=\'broadcast_all\')(x)\ndef silu_ffi_fwd(x):\n    return silu_ffi(x), x\ndef silu_ffi_bwd(residual, ct_y):\n    x = residual\n    return (jax.ffi.ffi_call(\'w11r5_silu_c80_bwd\', jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method=\'broadcast_all\')(x, ct_y),)\nsilu_ffi.defvjp(silu_ffi_fwd, silu_ffi_bwd)\n'),
    W('c', 'sigmoid flushed to 0 below 1e-30: silu(-75) is -2.0e-31, comes out 0',
      'silu_cc = r\'\'\'\n#include <cmath>\n#include <cstddef>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\nstatic float Sig(float v) { const float s = 1.0f / (1.0f + std::exp(-v)); return s < 1e-30f ? 0.0f : s; }\nstatic ffi::Error FwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  for (std::size_t i = 0; i < x.element_count(); ++i) { const float v = x.typed_data()[i]; y->typed_data()[i] = v * Sig(v); }\n  return ffi::Error::Success();\n}\nstatic ffi::Error BwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct, ffi::ResultBuffer<ffi::F32> ct_x) {\n  for (std::size_t i = 0; i < x.element_count(); ++i) { const float v = x.typed_data()[i], s = Sig(v); ct_x->typed_data()[i] = ct.typed_data()[i] * s * (1.0f + v * (1.0f - s)); }\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, FwdImpl, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, BwdImpl,\n    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n\'\'\'\nsilu_lib = grader.build(code=silu_cc, name=\'w11r5_silu_floor\')\nsilu_lib.register_ffi_target(\'w11r5_silu_floor_fwd\', \'SiluFwd\')\nsilu_lib.register_ffi_target(\'w11r5_silu_floor_bwd\', \'SiluBwd\')\n@jax.custom_vjp\ndef silu_ffi(x):\n    return jax.ffi.ffi_call(\'w11r5_silu_floor_fwd\', jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method=\'broadcast_all\')(x)\ndef silu_ffi_fwd(x):\n    return silu_ffi(x), x\ndef silu_ffi_bwd(residual, ct_y):\n    x = residual\n    return (jax.ffi.ffi_call(\'w11r5_silu_floor_bwd\', jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method=\'broadcast_all\')(x, ct_y),)\nsilu_ffi.defvjp(silu_ffi_fwd, silu_ffi_bwd)\n'),
]
WRONG['ex3_answer'] += [
    W('c', 'abstract eval accepts any floating dtype (float16/bfloat16/float64): fails only at run time with JaxRuntimeError',
      'rms_norm_prim_p = Primitive("rms_norm_prim")\n\n@rms_norm_prim_p.def_abstract_eval\ndef _abs(x, *, eps):\n    if x.ndim < 1:\n        raise TypeError("rms_norm_prim needs at least one axis")\n    if not jnp.issubdtype(x.dtype, jnp.floating):\n        raise TypeError(f"rms_norm_prim takes floating arrays, got {x.dtype}")\n    return jax.core.ShapedArray(x.shape, x.dtype)\n\nmlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")\nrms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))\n\ndef _batch(args, dims, *, eps):\n    (x,), (d,) = args, dims\n    if d == x.ndim - 1:\n        x, d = jnp.moveaxis(x, d, 0), 0\n    return rms_norm_prim_p.bind(x, eps=eps), d\nbatching.primitive_batchers[rms_norm_prim_p] = _batch\n'),
]

# Round 9: the chapter's own first reference, which a reviewer found wrong for 0-d examples.
WRONG['ex3_answer'] += [
    W('c', 'vmap over a 1-D x binds the kernel on it as it is: the 0-d examples are normalised across one another, where a 0-d bind is refused',
      'rms_norm_prim_p = Primitive("rms_norm_prim")\n\n@rms_norm_prim_p.def_abstract_eval\ndef _rms_norm_prim_abstract(x, *, eps):\n    if x.ndim == 0 or x.dtype != jnp.float32:\n        raise TypeError(f"rms_norm_prim takes a float32 array with at least one axis, got {x.str_short()}")\n    return jax.core.ShapedArray(x.shape, x.dtype)\n\nmlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")\nrms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))\n\ndef _rms_norm_prim_batch(args, dims, *, eps):\n    (x,), (d,) = args, dims\n    if d == x.ndim - 1:\n        x, d = jnp.moveaxis(x, d, 0), 0\n    return rms_norm_prim_p.bind(x, eps=eps), d\n\nbatching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch\n'),
]

# Round 9: found by reviewers who read only the learner's notebook.
WRONG['ex1_answer'] += [
    W('m', "handler sorts each row in place with std::sort and reads its ends: right lo and hi, but it rewrites the caller's x (an immutable jax Array) in memory that belongs to XLA",
      'row_minmax_cc = r"""\n#include <algorithm>\n#include <cmath>\n#include <cstdint>\n#include <limits>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nstatic ffi::Error RowMinMaxImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> lo, ffi::ResultBuffer<ffi::F32> hi) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_minmax: x needs an axis");\n  const std::int64_t n = dims.back();\n  std::int64_t rows = 1;\n  for (std::size_t i = 0; i + 1 < dims.size(); ++i) rows *= dims[i];\n  if (n == 0) return ffi::Error::InvalidArgument("row_minmax: rows must not be empty");\n  if (lo->element_count() != static_cast<std::size_t>(rows) || hi->element_count() != static_cast<std::size_t>(rows))\n    return ffi::Error::InvalidArgument("row_minmax: results must have x.shape[:-1]");\n  const float* in = x.typed_data();\n  float* l = lo->typed_data();\n  float* h = hi->typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    float* row = x.typed_data() + r * n;\n    std::sort(row, row + n);\n    const float a = row[0], b = row[n - 1];\n    for (std::int64_t i = 0; i < n; ++i) {\n      const float v = in[r * n + i];\n      (void)v;\n    }\n    l[r] = a; h[r] = b;\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(RowMinMax, RowMinMaxImpl,\n    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n"""\nrow_minmax_lib = grader.build(code=row_minmax_cc, name="h11_rmm_w3")\njax.ffi.register_ffi_target("h11_rmm_w3", jax.ffi.pycapsule(row_minmax_lib.cdll.RowMinMax), platform="cpu")\n\ndef row_minmax(x):\n    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n    return jax.ffi.ffi_call("h11_rmm_w3", (spec, spec), vmap_method="broadcast_all")(x)\n'),
    W('m', 'returns the list [lo, hi] where the text asks for the tuple (lo, hi)',
      'row_minmax_cc = r"""\n#include <cmath>\n#include <cstdint>\n#include <limits>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nstatic ffi::Error RowMinMaxImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> lo, ffi::ResultBuffer<ffi::F32> hi) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_minmax: x needs an axis");\n  const std::int64_t n = dims.back();\n  std::int64_t rows = 1;\n  for (std::size_t i = 0; i + 1 < dims.size(); ++i) rows *= dims[i];\n  if (n == 0) return ffi::Error::InvalidArgument("row_minmax: rows must not be empty");\n  if (lo->element_count() != static_cast<std::size_t>(rows) || hi->element_count() != static_cast<std::size_t>(rows))\n    return ffi::Error::InvalidArgument("row_minmax: results must have x.shape[:-1]");\n  const float* in = x.typed_data();\n  float* l = lo->typed_data();\n  float* h = hi->typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    float a = in[r * n], b = in[r * n];\n    for (std::int64_t i = 0; i < n; ++i) {\n      const float v = in[r * n + i];\n      if (v < a) a = v; if (v > b) b = v;\n    }\n    l[r] = a; h[r] = b;\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(RowMinMax, RowMinMaxImpl,\n    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n"""\nrow_minmax_lib = grader.build(code=row_minmax_cc, name="h11_rmm_w2")\njax.ffi.register_ffi_target("h11_rmm_w2", jax.ffi.pycapsule(row_minmax_lib.cdll.RowMinMax), platform="cpu")\n\ndef row_minmax(x):\n    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n    lo, hi = jax.ffi.ffi_call("h11_rmm_w2", (spec, spec), vmap_method="broadcast_all")(x)\n    return [lo, hi]\n'),
]
WRONG['ex2_answer'] += [
    W('c', 'backward kernel skips elements whose cotangent is 0 ("nothing to add") and leaves those outputs unwritten: XLA result memory is not zeroed, so they hold stale values',
      'silu_cc = r"""\n#include <cmath>\n#include <cstddef>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nstatic inline float Sigmoid(float x) {\n  if (x >= 0) return 1.0f / (1.0f + std::exp(-x)); const float e = std::exp(x); return e / (1.0f + e);\n}\n\nstatic ffi::Error SiluFwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  if (y->element_count() != x.element_count()) return ffi::Error::InvalidArgument("silu: sizes");\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n  for (std::size_t i = 0; i < x.element_count(); ++i) {\n    const float v = in[i];\n    out[i] = v * Sigmoid(v);\n  }\n  return ffi::Error::Success();\n}\n\nstatic ffi::Error SiluBwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct, ffi::ResultBuffer<ffi::F32> ct_x) {\n  if (ct.element_count() != x.element_count() || ct_x->element_count() != x.element_count()) return ffi::Error::InvalidArgument("silu_bwd: sizes");\n  const float* in = x.typed_data();\n  const float* g = ct.typed_data();\n  float* out = ct_x->typed_data();\n  for (std::size_t i = 0; i < x.element_count(); ++i) {\n    const float v = in[i];\n    const float s = Sigmoid(v);\n    if (g[i] == 0.0f) continue;\n    out[i] = g[i] * s * (1.0f + v * (1.0f - s));\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, SiluFwdImpl,\n    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, SiluBwdImpl,\n    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n"""\nsilu_lib = grader.build(code=silu_cc, name="h11_silu_w2")\njax.ffi.register_ffi_target("h11_silu_w2_fwd", jax.ffi.pycapsule(silu_lib.cdll.SiluFwd), platform="cpu")\njax.ffi.register_ffi_target("h11_silu_w2_bwd", jax.ffi.pycapsule(silu_lib.cdll.SiluBwd), platform="cpu")\n\n@jax.custom_vjp\ndef silu_ffi(x):\n    return jax.ffi.ffi_call("h11_silu_w2_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)\n\ndef silu_ffi_fwd(x):\n    return silu_ffi(x), x\n\ndef silu_ffi_bwd(residual, ct_y):\n    x = residual\n    ct_x = jax.ffi.ffi_call("h11_silu_w2_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x, ct_y)\n    return (ct_x,)\n\nsilu_ffi.defvjp(silu_ffi_fwd, silu_ffi_bwd)\n'),
    W('f', 'forward kernel copies x into a static buffer and the backward kernel reads that copy instead of its residual: two silu calls in one loss (or two forward passes before a backward) use the last x for both',
      'silu_cc = r"""\n#include <cmath>\n#include <cstddef>\n#include <vector>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nstatic inline float Sigmoid(float x) {\n  if (x >= 0) return 1.0f / (1.0f + std::exp(-x)); const float e = std::exp(x); return e / (1.0f + e);\n}\n\nstatic std::vector<float> saved_x;   // the residual, copied: buffers live for the call only\n\nstatic ffi::Error SiluFwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  if (y->element_count() != x.element_count()) return ffi::Error::InvalidArgument("silu: sizes");\n  const float* in = x.typed_data();\n  saved_x.assign(in, in + x.element_count());\n  float* out = y->typed_data();\n  for (std::size_t i = 0; i < x.element_count(); ++i) {\n    const float v = in[i];\n    out[i] = v * Sigmoid(v);\n  }\n  return ffi::Error::Success();\n}\n\nstatic ffi::Error SiluBwdImpl(ffi::Buffer<ffi::F32> ct, ffi::ResultBuffer<ffi::F32> ct_x) {\n  if (ct.element_count() != saved_x.size() || ct_x->element_count() != saved_x.size()) return ffi::Error::InvalidArgument("silu_bwd: sizes");\n  const float* in = saved_x.data();\n  const float* g = ct.typed_data();\n  float* out = ct_x->typed_data();\n  for (std::size_t i = 0; i < saved_x.size(); ++i) {\n    const float v = in[i];\n    const float s = Sigmoid(v);\n    out[i] = g[i] * s * (1.0f + v * (1.0f - s));\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, SiluFwdImpl,\n    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, SiluBwdImpl,\n    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n"""\nsilu_lib = grader.build(code=silu_cc, name="h11_silu_w1")\njax.ffi.register_ffi_target("h11_silu_w1_fwd", jax.ffi.pycapsule(silu_lib.cdll.SiluFwd), platform="cpu")\njax.ffi.register_ffi_target("h11_silu_w1_bwd", jax.ffi.pycapsule(silu_lib.cdll.SiluBwd), platform="cpu")\n\n@jax.custom_vjp\ndef silu_ffi(x):\n    return jax.ffi.ffi_call("h11_silu_w1_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)\n\ndef silu_ffi_fwd(x):\n    return silu_ffi(x), x\n\ndef silu_ffi_bwd(residual, ct_y):\n    x = residual\n    ct_x = jax.ffi.ffi_call("h11_silu_w1_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(ct_y)\n    return (ct_x,)\n\nsilu_ffi.defvjp(silu_ffi_fwd, silu_ffi_bwd)\n'),
    W('m', 'backward kernel accumulates into its result (out[i] += ...), as reverse mode accumulates cotangents: XLA does not zero result memory, so stale values are added',
      'silu_cc = r"""\n#include <cmath>\n#include <cstddef>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nstatic inline float Sigmoid(float x) {\n  if (x >= 0) return 1.0f / (1.0f + std::exp(-x)); const float e = std::exp(x); return e / (1.0f + e);\n}\n\nstatic ffi::Error SiluFwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  if (y->element_count() != x.element_count()) return ffi::Error::InvalidArgument("silu: sizes");\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n  for (std::size_t i = 0; i < x.element_count(); ++i) {\n    const float v = in[i];\n    out[i] = v * Sigmoid(v);\n  }\n  return ffi::Error::Success();\n}\n\nstatic ffi::Error SiluBwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct, ffi::ResultBuffer<ffi::F32> ct_x) {\n  if (ct.element_count() != x.element_count() || ct_x->element_count() != x.element_count()) return ffi::Error::InvalidArgument("silu_bwd: sizes");\n  const float* in = x.typed_data();\n  const float* g = ct.typed_data();\n  float* out = ct_x->typed_data();\n  for (std::size_t i = 0; i < x.element_count(); ++i) {\n    const float v = in[i];\n    const float s = Sigmoid(v);\n    out[i] += g[i] * s * (1.0f + v * (1.0f - s));\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, SiluFwdImpl,\n    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, SiluBwdImpl,\n    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n"""\nsilu_lib = grader.build(code=silu_cc, name="h11_silu_w3")\njax.ffi.register_ffi_target("h11_silu_w3_fwd", jax.ffi.pycapsule(silu_lib.cdll.SiluFwd), platform="cpu")\njax.ffi.register_ffi_target("h11_silu_w3_bwd", jax.ffi.pycapsule(silu_lib.cdll.SiluBwd), platform="cpu")\n\n@jax.custom_vjp\ndef silu_ffi(x):\n    return jax.ffi.ffi_call("h11_silu_w3_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)\n\ndef silu_ffi_fwd(x):\n    return silu_ffi(x), x\n\ndef silu_ffi_bwd(residual, ct_y):\n    x = residual\n    ct_x = jax.ffi.ffi_call("h11_silu_w3_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x, ct_y)\n    return (ct_x,)\n\nsilu_ffi.defvjp(silu_ffi_fwd, silu_ffi_bwd)\n'),
]
WRONG['ex3_answer'] += [
    W('m', 'abstract evaluation refuses a non-float32 or 0-d x with ValueError, where the text asks for a TypeError',
      'rms_norm_prim_p = Primitive("rms_norm_prim")\n\n@rms_norm_prim_p.def_abstract_eval\ndef _rms_norm_prim_abstract(x, *, eps):\n    if x.dtype != jnp.float32:\n        raise ValueError(f"rms_norm_prim takes float32, got {x.dtype}")\n    if x.ndim == 0:\n        raise ValueError("rms_norm_prim needs at least one axis")\n    return jax.core.ShapedArray(x.shape, x.dtype)\n\nmlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")\nrms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))\n\ndef _rms_norm_prim_batch(args, dims, *, eps):\n    (x,), (d,) = args, dims\n    if x.ndim < 2:\n        raise ValueError("rms_norm_prim: each example needs at least one axis")\n    x = jnp.moveaxis(x, d, 0)\n    return rms_norm_prim_p.bind(x, eps=eps), 0\n\nbatching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch\n'),
    W('c', 'batching rule brings the batch to the front with swapaxes(x, d, 0), not moveaxis: a batch on the last axis of a 3-D x sends axis 0 to the end, which the kernel then normalises',
      'rms_norm_prim_p = Primitive("rms_norm_prim")\n\n@rms_norm_prim_p.def_abstract_eval\ndef _rms_norm_prim_abstract(x, *, eps):\n    if x.dtype != jnp.float32:\n        raise TypeError(f"rms_norm_prim takes float32, got {x.dtype}")\n    if x.ndim == 0:\n        raise TypeError("rms_norm_prim needs at least one axis")\n    return jax.core.ShapedArray(x.shape, x.dtype)\n\nmlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")\nrms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))\n\ndef _rms_norm_prim_batch(args, dims, *, eps):\n    (x,), (d,) = args, dims\n    if x.ndim < 2:\n        raise TypeError("rms_norm_prim: each example needs at least one axis")\n    x = jnp.swapaxes(x, d, 0)\n    return rms_norm_prim_p.bind(x, eps=eps), 0\n\nbatching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch\n'),
    W('m', "batching rule brings the batch to the front with reshape instead of moveaxis: the data are relabelled, not moved, so examples get each other's values",
      'rms_norm_prim_p = Primitive("rms_norm_prim")\n\n@rms_norm_prim_p.def_abstract_eval\ndef _rms_norm_prim_abstract(x, *, eps):\n    if x.dtype != jnp.float32:\n        raise TypeError(f"rms_norm_prim takes float32, got {x.dtype}")\n    if x.ndim == 0:\n        raise TypeError("rms_norm_prim needs at least one axis")\n    return jax.core.ShapedArray(x.shape, x.dtype)\n\nmlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")\nrms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))\n\ndef _rms_norm_prim_batch(args, dims, *, eps):\n    (x,), (d,) = args, dims\n    if x.ndim < 2:\n        raise TypeError("rms_norm_prim: each example needs at least one axis")\n    shape = (x.shape[d],) + x.shape[:d] + x.shape[d + 1:]\n    return rms_norm_prim_p.bind(x.reshape(shape), eps=eps), 0\n\nbatching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch\n'),
]

# Round 10: found by reviewers who read only the learner's notebook.
WRONG['ex1_answer'] += [
    W('e', 'Trace-style BufferR2 kernel fed x.reshape((rows, n)) from Python (right for every rank alone) with vmap_method="broadcast_all": vmap adds a batch axis to the reshaped 2-D array and the rank-2 binding refuses it',
      'import math\nrow_minmax_cc = r\'\'\'\n#include <cstddef>\n#include <cstdint>\n#include <limits>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nstatic ffi::Error RowMinMaxImpl(ffi::BufferR2<ffi::F32> x, ffi::Result<ffi::BufferR1<ffi::F32>> lo, ffi::Result<ffi::BufferR1<ffi::F32>> hi) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_minmax: x needs at least one axis");\n  const std::int64_t n = dims.back();\n  std::int64_t rows = 1;\n  for (std::size_t i = 0; i + 1 < dims.size(); ++i) rows *= dims[i];\n  if (n == 0) return ffi::Error::InvalidArgument("row_minmax: rows must not be empty");\n  if (lo->element_count() != static_cast<std::size_t>(rows) || hi->element_count() != static_cast<std::size_t>(rows))\n    return ffi::Error::InvalidArgument("row_minmax: results must have shape x.shape[:-1]");\n  const float* in = x.typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    float a = std::numeric_limits<float>::infinity(), b = -std::numeric_limits<float>::infinity();\n    for (std::int64_t i = 0; i < n; ++i) {\n      const float v = in[r * n + i];\n      if (v < a) a = v;\n      if (v > b) b = v;\n    }\n    lo->typed_data()[r] = a;\n    hi->typed_data()[r] = b;\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(RowMinMax, RowMinMaxImpl,\n                              ffi::Ffi::Bind()\n                                  .Arg<ffi::BufferR2<ffi::F32>>()\n                                  .Ret<ffi::BufferR1<ffi::F32>>()\n                                  .Ret<ffi::BufferR1<ffi::F32>>());\n\'\'\'\nminmax_lib = grader.build(code=row_minmax_cc, name=\'g11_minmax_r2vmap\')\njax.ffi.register_ffi_target(\'g11_minmax_r2vmap\', jax.ffi.pycapsule(minmax_lib.cdll.RowMinMax), platform=\'cpu\')\n\ndef row_minmax(x):\n    matrix = x.reshape((math.prod(x.shape[:-1]), x.shape[-1]))\n    spec = jax.ShapeDtypeStruct(matrix.shape[:1], jnp.float32)\n    lo, hi = jax.ffi.ffi_call(\'g11_minmax_r2vmap\', (spec, spec), vmap_method=\'broadcast_all\')(matrix)\n    return lo.reshape(x.shape[:-1]), hi.reshape(x.shape[:-1])\n'),
]
WRONG['ex2_answer'] += [
    W('e', 'BufferR1 kernels fed x.reshape(-1) (so 0-d and n-d work alone) with vmap_method="broadcast_all": under vmap the flat array gets a batch axis and the rank-1 binding refuses it',
      'silu_cc = r\'\'\'\n#include <cmath>\n#include <cstddef>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nstatic float Sig(float v) {\n  if (v >= 0.0f) return 1.0f / (1.0f + std::exp(-v));\n  const float e = std::exp(v);\n  return e / (1.0f + e);\n}\n\nstatic ffi::Error FwdImpl(ffi::BufferR1<ffi::F32> x, ffi::Result<ffi::BufferR1<ffi::F32>> y) {\n  if (y->element_count() != x.element_count()) return ffi::Error::InvalidArgument("silu_fwd: size");\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n  for (std::size_t i = 0; i < x.element_count(); ++i) out[i] = in[i] * Sig(in[i]);\n  return ffi::Error::Success();\n}\n\nstatic ffi::Error BwdImpl(ffi::BufferR1<ffi::F32> x, ffi::BufferR1<ffi::F32> ct_y, ffi::Result<ffi::BufferR1<ffi::F32>> ct_x) {\n  if (ct_y.element_count() != x.element_count() || ct_x->element_count() != x.element_count())\n    return ffi::Error::InvalidArgument("silu_bwd: sizes");\n  const float* in = x.typed_data();\n  const float* g = ct_y.typed_data();\n  float* out = ct_x->typed_data();\n  for (std::size_t i = 0; i < x.element_count(); ++i) {\n    const float s = Sig(in[i]);\n    out[i] = g[i] * (s * (1.0f + in[i] * (1.0f - s)));\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, FwdImpl, ffi::Ffi::Bind().Arg<ffi::BufferR1<ffi::F32>>().Ret<ffi::BufferR1<ffi::F32>>());\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, BwdImpl,\n                              ffi::Ffi::Bind().Arg<ffi::BufferR1<ffi::F32>>().Arg<ffi::BufferR1<ffi::F32>>().Ret<ffi::BufferR1<ffi::F32>>());\n\'\'\'\nlib = grader.build(code=silu_cc, name=\'g11_silu_r1vmap\')\njax.ffi.register_ffi_target(\'g11_silu_r1vmap_fwd\', jax.ffi.pycapsule(lib.cdll.SiluFwd), platform=\'cpu\')\njax.ffi.register_ffi_target(\'g11_silu_r1vmap_bwd\', jax.ffi.pycapsule(lib.cdll.SiluBwd), platform=\'cpu\')\n\n@jax.custom_vjp\ndef silu_ffi(x):\n    flat = jnp.reshape(x, (-1,))\n    y = jax.ffi.ffi_call(\'g11_silu_r1vmap_fwd\', jax.ShapeDtypeStruct(flat.shape, flat.dtype), vmap_method=\'broadcast_all\')(flat)\n    return jnp.reshape(y, jnp.shape(x))\n\ndef silu_ffi_fwd(x):\n    return silu_ffi(x), (x,)\n\ndef silu_ffi_bwd(residual, ct_y):\n    (x,) = residual\n    flat_x, flat_g = jnp.reshape(x, (-1,)), jnp.reshape(ct_y, (-1,))\n    ct_x = jax.ffi.ffi_call(\'g11_silu_r1vmap_bwd\', jax.ShapeDtypeStruct(flat_x.shape, flat_x.dtype), vmap_method=\'broadcast_all\')(flat_x, flat_g)\n    return (jnp.reshape(ct_x, jnp.shape(x)),)\n\nsilu_ffi.defvjp(silu_ffi_fwd, silu_ffi_bwd)\n'),
]
WRONG['ex3_answer'] += [
    W('m', 'abstract eval reads "has no axis" as "has no elements" and refuses an empty x (shape (3, 0) or (0, 4)) with TypeError, though RMSNorm passes empty arrays through',
      "rms_norm_prim_p = Primitive('rms_norm_prim')\n\n@rms_norm_prim_p.def_abstract_eval\ndef _rms_norm_prim_abstract(x, *, eps):\n    if x.dtype != jnp.float32:\n        raise TypeError(f'rms_norm_prim takes float32 arrays, got {x.dtype}')\n    if x.ndim == 0 or x.size == 0:\n        raise TypeError('rms_norm_prim normalises the last axis: x needs at least one axis')\n    return jax.core.ShapedArray(x.shape, x.dtype)\n\nmlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering('rms_norm'), platform='cpu')\nrms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))\n\ndef _rms_norm_prim_batch(args, dims, *, eps):\n    (x,), (d,) = args, dims\n    if x.ndim == 1:\n        raise TypeError('rms_norm_prim: each example needs at least one axis')\n    if d == x.ndim - 1:\n        x, d = jnp.moveaxis(x, d, 0), 0\n    return rms_norm_prim_p.bind(x, eps=eps), d\n\nbatching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch\n"),
    W('c', 'the eager impl calls the bare ffi_call (rms_norm_ffi) instead of apply_primitive: eager binds skip the abstract evaluation, so an int32 x fails in C++ with JaxRuntimeError, not TypeError',
      "rms_norm_prim_p = Primitive('rms_norm_prim')\n\n@rms_norm_prim_p.def_abstract_eval\ndef _rms_norm_prim_abstract(x, *, eps):\n    if x.dtype != jnp.float32:\n        raise TypeError(f'rms_norm_prim takes float32 arrays, got {x.dtype}')\n    if x.ndim == 0:\n        raise TypeError('rms_norm_prim normalises the last axis: x needs at least one axis')\n    return jax.core.ShapedArray(x.shape, x.dtype)\n\nmlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering('rms_norm'), platform='cpu')\nrms_norm_prim_p.def_impl(lambda x, *, eps: rms_norm_ffi(x, eps))\n\ndef _rms_norm_prim_batch(args, dims, *, eps):\n    (x,), (d,) = args, dims\n    if x.ndim == 1:\n        raise TypeError('rms_norm_prim: each example needs at least one axis')\n    if d == x.ndim - 1:\n        x, d = jnp.moveaxis(x, d, 0), 0\n    return rms_norm_prim_p.bind(x, eps=eps), d\n\nbatching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch\n"),
    W('b', "the eager implementation caches one jitted bind per input shape, closing over the first eps: a second eager call with another eps returns the first eps's result",
      "rms_norm_prim_p = Primitive('rms_norm_prim')\n\n@rms_norm_prim_p.def_abstract_eval\ndef _rms_norm_prim_abstract(x, *, eps):\n    if x.dtype != jnp.float32:\n        raise TypeError(f'rms_norm_prim takes float32 arrays, got {x.dtype}')\n    if x.ndim == 0:\n        raise TypeError('rms_norm_prim normalises the last axis: x needs at least one axis')\n    return jax.core.ShapedArray(x.shape, x.dtype)\n\nmlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering('rms_norm'), platform='cpu')\n\n_compiled = {}\n\ndef _rms_norm_prim_impl(x, *, eps):\n    key = (x.shape, x.dtype)\n    if key not in _compiled:\n        _compiled[key] = jax.jit(lambda a: rms_norm_prim_p.bind(a, eps=eps))\n    return _compiled[key](x)\n\nrms_norm_prim_p.def_impl(_rms_norm_prim_impl)\n\ndef _rms_norm_prim_batch(args, dims, *, eps):\n    (x,), (d,) = args, dims\n    if x.ndim == 1:\n        raise TypeError('rms_norm_prim: each example needs at least one axis')\n    if d == x.ndim - 1:\n        x, d = jnp.moveaxis(x, d, 0), 0\n    return rms_norm_prim_p.bind(x, eps=eps), d\n\nbatching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch\n"),
]

# Right answers written another way: each must earn full marks (tests/test_wrong_answers.py).
RIGHT = {
    'ex2_answer': [
        R('kernels computed in double and rounded once (more accurate at the far negative tail than jax.nn.silu)',
          'silu_cc = r\'\'\'\n#include <cmath>\n#include <cstddef>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\nstatic double Sig(double v) { return 1.0 / (1.0 + std::exp(-v)); }\nstatic ffi::Error FwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  for (std::size_t i = 0; i < x.element_count(); ++i) { const double v = x.typed_data()[i]; y->typed_data()[i] = static_cast<float>(v * Sig(v)); }\n  return ffi::Error::Success();\n}\nstatic ffi::Error BwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct, ffi::ResultBuffer<ffi::F32> ct_x) {\n  for (std::size_t i = 0; i < x.element_count(); ++i) { const double v = x.typed_data()[i], s = Sig(v); ct_x->typed_data()[i] = static_cast<float>(ct.typed_data()[i] * s * (1.0 + v * (1.0 - s))); }\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, FwdImpl, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, BwdImpl,\n    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n\'\'\'\nsilu_lib = grader.build(code=silu_cc, name=\'r11r5_silu_dbl\')\nsilu_lib.register_ffi_target(\'r11r5_silu_dbl_fwd\', \'SiluFwd\')\nsilu_lib.register_ffi_target(\'r11r5_silu_dbl_bwd\', \'SiluBwd\')\n@jax.custom_vjp\ndef silu_ffi(x):\n    return jax.ffi.ffi_call(\'r11r5_silu_dbl_fwd\', jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method=\'broadcast_all\')(x)\ndef silu_ffi_fwd(x):\n    return silu_ffi(x), x\ndef silu_ffi_bwd(residual, ct_y):\n    x = residual\n    return (jax.ffi.ffi_call(\'r11r5_silu_dbl_bwd\', jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method=\'broadcast_all\')(x, ct_y),)\nsilu_ffi.defvjp(silu_ffi_fwd, silu_ffi_bwd)\n'),
        R('numerically stable sigmoid branch (e^x/(1+e^x) for x<0): no overflow',
          'silu_cc = r\'\'\'\n#include <cmath>\n#include <cstddef>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\nstatic float Sig(float v) { if (v >= 0.0f) return 1.0f / (1.0f + std::exp(-v)); const float e = std::exp(v); return e / (1.0f + e); }\nstatic ffi::Error FwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  for (std::size_t i = 0; i < x.element_count(); ++i) { const float v = x.typed_data()[i]; y->typed_data()[i] = v * Sig(v); }\n  return ffi::Error::Success();\n}\nstatic ffi::Error BwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct, ffi::ResultBuffer<ffi::F32> ct_x) {\n  for (std::size_t i = 0; i < x.element_count(); ++i) { const float v = x.typed_data()[i], s = Sig(v); ct_x->typed_data()[i] = ct.typed_data()[i] * s * (1.0f + v * (1.0f - s)); }\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, FwdImpl, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, BwdImpl,\n    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n\'\'\'\nsilu_lib = grader.build(code=silu_cc, name=\'r11r5_silu_stab\')\nsilu_lib.register_ffi_target(\'r11r5_silu_stab_fwd\', \'SiluFwd\')\nsilu_lib.register_ffi_target(\'r11r5_silu_stab_bwd\', \'SiluBwd\')\n@jax.custom_vjp\ndef silu_ffi(x):\n    return jax.ffi.ffi_call(\'r11r5_silu_stab_fwd\', jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method=\'broadcast_all\')(x)\ndef silu_ffi_fwd(x):\n    return silu_ffi(x), x\ndef silu_ffi_bwd(residual, ct_y):\n    x = residual\n    return (jax.ffi.ffi_call(\'r11r5_silu_stab_bwd\', jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method=\'broadcast_all\')(x, ct_y),)\nsilu_ffi.defvjp(silu_ffi_fwd, silu_ffi_bwd)\n'),
    ],
}

# Round 9: right answers written another way.
RIGHT.setdefault('ex3_answer', []).extend([
    R('batching rule moves the batch just before the normalised axis (axis -2), not to the front',
      'rms_norm_prim_p = Primitive("rms_norm_prim")\n\n@rms_norm_prim_p.def_abstract_eval\ndef _rms_norm_prim_abstract(x, *, eps):\n    if x.dtype != jnp.float32:\n        raise TypeError(f"rms_norm_prim takes float32, got {x.dtype}")\n    if x.ndim == 0:\n        raise TypeError("rms_norm_prim needs at least one axis")\n    return jax.core.ShapedArray(x.shape, x.dtype)\n\nmlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")\nrms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))\n\ndef _rms_norm_prim_batch(args, dims, *, eps):\n    (x,), (d,) = args, dims\n    if x.ndim < 2:\n        raise TypeError("rms_norm_prim: each example needs at least one axis")\n    x = jnp.moveaxis(x, d, x.ndim - 2)\n    return rms_norm_prim_p.bind(x, eps=eps), x.ndim - 2\n\nbatching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch\n'),
])
RIGHT.setdefault('ex1_answer', []).extend([
    R('error built as ffi::Error(ffi::ErrorCode::kInvalidArgument, ...), the same INVALID_ARGUMENT error',
      'row_minmax_cc = r"""\n#include <cmath>\n#include <cstdint>\n#include <limits>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nstatic ffi::Error RowMinMaxImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> lo, ffi::ResultBuffer<ffi::F32> hi) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_minmax: x needs an axis");\n  const std::int64_t n = dims.back();\n  std::int64_t rows = 1;\n  for (std::size_t i = 0; i + 1 < dims.size(); ++i) rows *= dims[i];\n  if (n == 0) return ffi::Error(ffi::ErrorCode::kInvalidArgument, "row_minmax: rows must not be empty");\n  if (lo->element_count() != static_cast<std::size_t>(rows) || hi->element_count() != static_cast<std::size_t>(rows))\n    return ffi::Error::InvalidArgument("row_minmax: results must have x.shape[:-1]");\n  const float* in = x.typed_data();\n  float* l = lo->typed_data();\n  float* h = hi->typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    float a = in[r * n], b = in[r * n];\n    for (std::int64_t i = 0; i < n; ++i) {\n      const float v = in[r * n + i];\n      if (v < a) a = v; if (v > b) b = v;\n    }\n    l[r] = a; h[r] = b;\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(RowMinMax, RowMinMaxImpl,\n    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n"""\nrow_minmax_lib = grader.build(code=row_minmax_cc, name="h11_rmm_r4")\njax.ffi.register_ffi_target("h11_rmm_r4", jax.ffi.pycapsule(row_minmax_lib.cdll.RowMinMax), platform="cpu")\n\ndef row_minmax(x):\n    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n    return jax.ffi.ffi_call("h11_rmm_r4", (spec, spec), vmap_method="broadcast_all")(x)\n'),
])

# Round 10: right answers written another way.
RIGHT.setdefault('ex1_answer', []).extend([
    R('returns a namedtuple MinMax(lo, hi): a tuple subclass, unpacks and indexes as (lo, hi), like jnp.linalg results',
      'row_minmax_cc = r\'\'\'\n#include <cstddef>\n#include <cstdint>\n#include <limits>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nstatic ffi::Error RowMinMaxImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> lo, ffi::ResultBuffer<ffi::F32> hi) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_minmax: x needs at least one axis");\n  const std::int64_t n = dims.back();\n  std::int64_t rows = 1;\n  for (std::size_t i = 0; i + 1 < dims.size(); ++i) rows *= dims[i];\n  if (n == 0) return ffi::Error::InvalidArgument("row_minmax: rows must not be empty");\n  if (lo->element_count() != static_cast<std::size_t>(rows) || hi->element_count() != static_cast<std::size_t>(rows))\n    return ffi::Error::InvalidArgument("row_minmax: results must have shape x.shape[:-1]");\n  const float* in = x.typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    float a = std::numeric_limits<float>::infinity(), b = -std::numeric_limits<float>::infinity();\n    for (std::int64_t i = 0; i < n; ++i) {\n      const float v = in[r * n + i];\n      if (v < a) a = v;\n      if (v > b) b = v;\n    }\n    lo->typed_data()[r] = a;\n    hi->typed_data()[r] = b;\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(RowMinMax, RowMinMaxImpl,\n                              ffi::Ffi::Bind()\n                                  .Arg<ffi::Buffer<ffi::F32>>()\n                                  .Ret<ffi::Buffer<ffi::F32>>()\n                                  .Ret<ffi::Buffer<ffi::F32>>());\n\'\'\'\nminmax_lib = grader.build(code=row_minmax_cc, name=\'g11_minmax_named\')\njax.ffi.register_ffi_target(\'g11_minmax_named\', jax.ffi.pycapsule(minmax_lib.cdll.RowMinMax), platform=\'cpu\')\n\nfrom collections import namedtuple\n\nMinMax = namedtuple(\'MinMax\', [\'lo\', \'hi\'])   # a tuple, with names, like jnp.linalg\'s results\n\ndef row_minmax(x):\n    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n    lo, hi = jax.ffi.ffi_call(\'g11_minmax_named\', (spec, spec), vmap_method=\'broadcast_all\')(x)\n    return MinMax(lo, hi)\n'),
])
RIGHT.setdefault('ex3_answer', []).extend([
    R('abstract eval and batching rule raise RmsNormInputError, a subclass of TypeError (isinstance TypeError, caught by except TypeError)',
      'rms_norm_prim_p = Primitive(\'rms_norm_prim\')\n\nclass RmsNormInputError(TypeError):\n    """An x the rms_norm kernel cannot take (a TypeError)."""\n\n@rms_norm_prim_p.def_abstract_eval\ndef _rms_norm_prim_abstract(x, *, eps):\n    if x.dtype != jnp.float32:\n        raise RmsNormInputError(f\'rms_norm_prim takes float32 arrays, got {x.dtype}\')\n    if x.ndim == 0:\n        raise RmsNormInputError(\'rms_norm_prim normalises the last axis: x needs at least one axis\')\n    return jax.core.ShapedArray(x.shape, x.dtype)\n\nmlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering(\'rms_norm\'), platform=\'cpu\')\nrms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))\n\ndef _rms_norm_prim_batch(args, dims, *, eps):\n    (x,), (d,) = args, dims\n    if x.ndim == 1:\n        raise RmsNormInputError(\'rms_norm_prim: each example needs at least one axis\')\n    if d == x.ndim - 1:\n        x, d = jnp.moveaxis(x, d, 0), 0\n    return rms_norm_prim_p.bind(x, eps=eps), d\n\nbatching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch\n'),
    R('only the batching rule raises a TypeError subclass (the abstract eval a plain TypeError)',
      "rms_norm_prim_p = Primitive('rms_norm_prim')\n\n@rms_norm_prim_p.def_abstract_eval\ndef _rms_norm_prim_abstract(x, *, eps):\n    if x.dtype != jnp.float32:\n        raise TypeError(f'rms_norm_prim takes float32 arrays, got {x.dtype}')\n    if x.ndim == 0:\n        raise TypeError('rms_norm_prim normalises the last axis: x needs at least one axis')\n    return jax.core.ShapedArray(x.shape, x.dtype)\n\nmlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering('rms_norm'), platform='cpu')\nrms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))\n\nclass ExamplesWithoutAxisError(TypeError):\n    pass\n\ndef _rms_norm_prim_batch(args, dims, *, eps):\n    (x,), (d,) = args, dims\n    if x.ndim == 1:\n        raise ExamplesWithoutAxisError('rms_norm_prim: each example needs at least one axis')\n    if d == x.ndim - 1:\n        x, d = jnp.moveaxis(x, d, 0), 0\n    return rms_norm_prim_p.bind(x, eps=eps), d\n\nbatching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch\n"),
])
RIGHT.setdefault('ex2_answer', []).extend([
    R('forward kernel also returns sigma(x) as a second result and keeps (x, s) as residuals, as section 6 does with rms_norm_fwd; backward kernel reads x, s and ct_y',
      'silu_cc = r\'\'\'\n#include <cmath>\n#include <cstddef>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\n// Forward: y = x * s and the residual s = sigmoid(x), as rms_norm_fwd returns y and s.\nstatic ffi::Error FwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y, ffi::ResultBuffer<ffi::F32> s) {\n  if (y->element_count() != x.element_count() || s->element_count() != x.element_count())\n    return ffi::Error::InvalidArgument("silu_fwd: sizes");\n  for (std::size_t i = 0; i < x.element_count(); ++i) {\n    const float v = x.typed_data()[i];\n    const float sv = 1.0f / (1.0f + std::exp(-v));\n    s->typed_data()[i] = sv;\n    y->typed_data()[i] = v * sv;\n  }\n  return ffi::Error::Success();\n}\n\n// Backward: ct_x = ct_y * s * (1 + x * (1 - s)), from the residuals x and s.\nstatic ffi::Error BwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s, ffi::Buffer<ffi::F32> ct_y,\n                          ffi::ResultBuffer<ffi::F32> ct_x) {\n  const std::size_t n = x.element_count();\n  if (s.element_count() != n || ct_y.element_count() != n || ct_x->element_count() != n)\n    return ffi::Error::InvalidArgument("silu_bwd: sizes");\n  for (std::size_t i = 0; i < n; ++i) {\n    const float v = x.typed_data()[i], sv = s.typed_data()[i];\n    ct_x->typed_data()[i] = ct_y.typed_data()[i] * sv * (1.0f + v * (1.0f - sv));\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, FwdImpl,\n    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, BwdImpl,\n    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n\'\'\'\nsilu_lib = grader.build(code=silu_cc, name=\'g11_silu_two\')\njax.ffi.register_ffi_target(\'g11_silu_two_fwd\', jax.ffi.pycapsule(silu_lib.cdll.SiluFwd), platform=\'cpu\')\njax.ffi.register_ffi_target(\'g11_silu_two_bwd\', jax.ffi.pycapsule(silu_lib.cdll.SiluBwd), platform=\'cpu\')\n\ndef _silu_fwd_call(x):\n    spec = jax.ShapeDtypeStruct(x.shape, x.dtype)\n    return jax.ffi.ffi_call(\'g11_silu_two_fwd\', (spec, spec), vmap_method=\'broadcast_all\')(x)\n\n@jax.custom_vjp\ndef silu_ffi(x):\n    return _silu_fwd_call(x)[0]\n\ndef silu_ffi_fwd(x):\n    y, s = _silu_fwd_call(x)\n    return y, (x, s)\n\ndef silu_ffi_bwd(residual, ct_y):\n    x, s = residual\n    return (jax.ffi.ffi_call(\'g11_silu_two_bwd\', jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method=\'broadcast_all\')(x, s, ct_y),)\n\nsilu_ffi.defvjp(silu_ffi_fwd, silu_ffi_bwd)\n'),
])

# Round 11: written from the requirement lists of the one-sitting texts, before their checks.

# A right min/max handler (two results, empty rows refused), for answers whose Python side is wrong.
_RMM_OK_CC = r'''
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static ffi::Error RowMinMaxImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> lo, ffi::ResultBuffer<ffi::F32> hi) {
  auto dims = x.dimensions();
  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_minmax: x needs an axis");
  const std::int64_t n = dims.back();
  if (n == 0) return ffi::Error::InvalidArgument("row_minmax: rows must not be empty");
  const std::int64_t rows = static_cast<std::int64_t>(x.element_count()) / n;
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

# SiLU kernels with a switch for the mistakes below: SKIP_ZERO_X leaves y unwritten where x == 0 ("silu(0) is 0").
_SILU_OK_CC = r'''
#include <cmath>
#include <cstddef>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static float Sig(float v) { return 1.0f / (1.0f + std::exp(-v)); }

static ffi::Error FwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (std::size_t i = 0; i < x.element_count(); ++i) {
    const float v = x.typed_data()[i];
#ifdef SKIP_ZERO_X
    if (v == 0.0f) continue;   // silu(0) is 0: nothing to write
#endif
    y->typed_data()[i] = v * Sig(v);
  }
  return ffi::Error::Success();
}

static ffi::Error BwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct, ffi::ResultBuffer<ffi::F32> ct_x) {
  for (std::size_t i = 0; i < x.element_count(); ++i) {
    const float v = x.typed_data()[i], s = Sig(v);
    ct_x->typed_data()[i] = ct.typed_data()[i] * s * (1.0f + v * (1.0f - s));
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, FwdImpl, ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, BwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
'''


def _silu_answer(name, cc, *, forward, backward):
    """An ex2 answer: build `cc` under `name`, register its two kernels, and use the given bodies."""
    return (f"silu_cc = r'''{cc}'''\n"
            f"silu_lib = grader.build(code=silu_cc, name='{name}')\n"
            f"jax.ffi.register_ffi_target('{name}_fwd', jax.ffi.pycapsule(silu_lib.cdll.SiluFwd), platform='cpu')\n"
            f"jax.ffi.register_ffi_target('{name}_bwd', jax.ffi.pycapsule(silu_lib.cdll.SiluBwd), platform='cpu')\n"
            f"FWD, BWD = '{name}_fwd', '{name}_bwd'\n\n"
            "@jax.custom_vjp\n"
            f"def silu_ffi(x):\n{forward}\n"
            "def silu_ffi_fwd(x):\n    return silu_ffi(x), x\n\n"
            f"def silu_ffi_bwd(x, ct_y):\n{backward}\n"
            "silu_ffi.defvjp(silu_ffi_fwd, silu_ffi_bwd)\n")


_SILU_FWD_CALL = ("    return jax.ffi.ffi_call(FWD, jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method='broadcast_all')(x)\n")
_SILU_BWD_CALL = ("    return (jax.ffi.ffi_call(BWD, jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method='broadcast_all')(x, ct_y),)\n")

WRONG['ex1_answer'] += [
    W('d', "calls the handler (kept in the program by has_side_effect=True) but returns jnp.min and jnp.max of x: the "
           "program holds the FFI call, yet lo and hi never come from it",
      f"row_minmax_cc = r'''{_RMM_OK_CC}'''\n"
      "lib = grader.build(code=row_minmax_cc, name='r11_rmm_jnp')\n"
      "jax.ffi.register_ffi_target('r11_rmm_jnp', jax.ffi.pycapsule(lib.cdll.RowMinMax), platform='cpu')\n"
      "def row_minmax(x):\n"
      "    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n"
      "    jax.ffi.ffi_call('r11_rmm_jnp', (spec, spec), vmap_method='broadcast_all', has_side_effect=True)(x)\n"
      "    return jnp.min(x, axis=-1), jnp.max(x, axis=-1)\n"),
    W('d', 'lo from the handler, hi recomputed with jnp.max: the FFI call is in the program and lo is its result, hi is not',
      f"row_minmax_cc = r'''{_RMM_OK_CC}'''\n"
      "lib = grader.build(code=row_minmax_cc, name='r11_rmm_half')\n"
      "jax.ffi.register_ffi_target('r11_rmm_half', jax.ffi.pycapsule(lib.cdll.RowMinMax), platform='cpu')\n"
      "def row_minmax(x):\n"
      "    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n"
      "    lo, hi = jax.ffi.ffi_call('r11_rmm_half', (spec, spec), vmap_method='broadcast_all')(x)\n"
      "    return lo, jnp.max(x, axis=-1)\n"),
]

WRONG['ex2_answer'] += [
    W('d', "silu_ffi calls the forward kernel (kept by has_side_effect=True) but returns jax.nn.silu(x): the program holds "
           "the FFI call, yet the value never comes from it",
      _silu_answer("r11_silu_jnp", _SILU_OK_CC,
                   forward="    jax.ffi.ffi_call(FWD, jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method='broadcast_all',\n"
                           "                     has_side_effect=True)(x)\n    return jax.nn.silu(x)\n",
                   backward=_SILU_BWD_CALL)),
    W('d', "the backward calls the second kernel with x and ct_y (kept by has_side_effect=True) but returns a jnp gradient: "
           "two FFI targets in the program, and the kernel receives ȳ, yet the cotangent never comes from it",
      _silu_answer("r11_silu_bwd_jnp", _SILU_OK_CC, forward=_SILU_FWD_CALL,
                   backward="    jax.ffi.ffi_call(BWD, jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method='broadcast_all',\n"
                            "                     has_side_effect=True)(x, ct_y)\n"
                            "    s = jax.nn.sigmoid(x)\n    return (ct_y * s * (1 + x * (1 - s)),)\n")),
    W('c', 'the forward kernel skips x == 0 ("silu(0) is 0: nothing to write") and leaves those outputs unwritten: result '
           'memory holds what was there before',
      _silu_answer("r11_silu_skip0", "#define SKIP_ZERO_X\n" + _SILU_OK_CC, forward=_SILU_FWD_CALL, backward=_SILU_BWD_CALL)),
]

# Round 11: right answers that the checks of mechanism (results replaced by a poison, a long call beside short ones)
# must not refuse.
RIGHT.setdefault('ex1_answer', []).extend([
    R('the handler writes (hi, lo) and row_minmax swaps them back in Python: lo and hi are still the results of the one '
      'FFI call, as it returns them',
      f"row_minmax_cc = r'''{_RMM_OK_CC}'''.replace('lo->typed_data()[r] = a;', 'LO').replace('hi->typed_data()[r] = b;', "
      "'lo->typed_data()[r] = b;').replace('LO', 'hi->typed_data()[r] = a;')\n"
      "lib = grader.build(code=row_minmax_cc, name='r11_rmm_swapped_back')\n"
      "jax.ffi.register_ffi_target('r11_rmm_swapped_back', jax.ffi.pycapsule(lib.cdll.RowMinMax), platform='cpu')\n"
      "def row_minmax(x):\n"
      "    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n"
      "    hi, lo = jax.ffi.ffi_call('r11_rmm_swapped_back', (spec, spec), vmap_method='broadcast_all')(x)\n"
      "    return lo, hi\n"),
    R('per-row results in a static scratch buffer guarded by a mutex for the whole call: calls wait for each other, '
      'and each gives its own results',
      "row_minmax_cc = r'''\n#include <algorithm>\n#include <cstdint>\n#include <mutex>\n#include <vector>\n"
      "#include \"xla/ffi/api/ffi.h\"\nnamespace ffi = xla::ffi;\n\n"
      "static std::mutex scratch_mutex;\nstatic std::vector<float> scratch;   // lo then hi, reused by every call\n\n"
      "static ffi::Error RowMinMaxImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> lo, ffi::ResultBuffer<ffi::F32> hi) {\n"
      "  auto dims = x.dimensions();\n"
      "  if (dims.size() == 0) return ffi::Error::InvalidArgument(\"row_minmax: x needs an axis\");\n"
      "  const std::int64_t n = dims.back();\n"
      "  if (n == 0) return ffi::Error::InvalidArgument(\"row_minmax: rows must not be empty\");\n"
      "  const std::int64_t rows = static_cast<std::int64_t>(x.element_count()) / n;\n"
      "  std::lock_guard<std::mutex> lock(scratch_mutex);\n"
      "  scratch.resize(2 * rows);\n"
      "  for (std::int64_t r = 0; r < rows; ++r) {\n"
      "    const float* row = x.typed_data() + r * n;\n"
      "    scratch[r] = *std::min_element(row, row + n);\n"
      "    scratch[rows + r] = *std::max_element(row, row + n);\n"
      "  }\n"
      "  std::copy(scratch.begin(), scratch.begin() + rows, lo->typed_data());\n"
      "  std::copy(scratch.begin() + rows, scratch.end(), hi->typed_data());\n"
      "  return ffi::Error::Success();\n}\n\n"
      "XLA_FFI_DEFINE_HANDLER_SYMBOL(RowMinMax, RowMinMaxImpl,\n"
      "    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n'''\n"
      "lib = grader.build(code=row_minmax_cc, name='r11_rmm_locked')\n"
      "jax.ffi.register_ffi_target('r11_rmm_locked', jax.ffi.pycapsule(lib.cdll.RowMinMax), platform='cpu')\n"
      "def row_minmax(x):\n"
      "    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n"
      "    return jax.ffi.ffi_call('r11_rmm_locked', (spec, spec), vmap_method='broadcast_all')(x)\n"),
])
RIGHT.setdefault('ex2_answer', []).extend([
    R('the forward kernel is called on x flattened to 1-D and its result reshaped back to x.shape: silu_ffi(x) is still the '
      "kernel's result, moved by a reshape",
      _silu_answer("r11_silu_flat", _SILU_OK_CC,
                   forward="    y = jax.ffi.ffi_call(FWD, jax.ShapeDtypeStruct((x.size,), x.dtype), vmap_method='broadcast_all')(x.reshape(-1))\n"
                           "    return y.reshape(x.shape)\n",
                   backward=_SILU_BWD_CALL)),
])


# Round 12 (a blind round's misses, each of which earned full marks): a handler that answers from memory when x sits
# at the address of the last call's x (XLA reuses memory: a visible check updates x in place, by donation, between
# calls), and a backward kernel that skips ȳ == 0 while Python patches those elements (the pullback's poison check
# now uses a ȳ with zeros).
WRONG['ex1_answer'] += [
    W('f', "the handler remembers the last x's address and results (behind a mutex) and copies them when a call's x is at "
           "that address: XLA reuses memory, so new values at an old address get stale results",
      'row_minmax_cc = r"""\n#include <algorithm>\n#include <cstdint>\n#include <limits>\n#include <vector>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n#include <mutex>\nstatic std::mutex memo_mutex;\nstatic const float* memo_x = nullptr;\nstatic std::int64_t memo_n = -1;\nstatic std::vector<float> memo_lo, memo_hi;\n\nstatic ffi::Error RowMinMaxImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> lo,\n                                ffi::ResultBuffer<ffi::F32> hi) {\n  const auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_minmax: x must have at least one axis");\n  const std::int64_t n = dims.back();\n  const std::int64_t rows = static_cast<std::int64_t>(lo->element_count());\n  if (static_cast<std::int64_t>(hi->element_count()) != rows ||\n      rows * n != static_cast<std::int64_t>(x.element_count()))\n    return ffi::Error::InvalidArgument("row_minmax: lo and hi must have shape x.shape[:-1]");\n  if (n == 0) return ffi::Error::InvalidArgument("row_minmax: rows must not be empty");\n  const float* data = x.typed_data();\n  std::lock_guard<std::mutex> lock(memo_mutex);\n  if (data == memo_x && n == memo_n && static_cast<std::int64_t>(memo_lo.size()) == rows) {\n    std::copy(memo_lo.begin(), memo_lo.end(), lo->typed_data());\n    std::copy(memo_hi.begin(), memo_hi.end(), hi->typed_data());\n    return ffi::Error::Success();\n  }\n  memo_lo.assign(rows, 0.0f);\n  memo_hi.assign(rows, 0.0f);\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* row = data + r * n;\n    float a = row[0], b = row[0];\n    for (std::int64_t i = 1; i < n; ++i) {\n      a = std::min(a, row[i]);\n      b = std::max(b, row[i]);\n    }\n    memo_lo[r] = lo->typed_data()[r] = a;\n    memo_hi[r] = hi->typed_data()[r] = b;\n  }\n  memo_x = data;\n  memo_n = n;\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(RowMinMax, RowMinMaxImpl,\n                              ffi::Ffi::Bind()\n                                  .Arg<ffi::Buffer<ffi::F32>>()   // x\n                                  .Ret<ffi::Buffer<ffi::F32>>()   // lo\n                                  .Ret<ffi::Buffer<ffi::F32>>()); // hi\n"""\nrow_minmax_lib = grader.build(code=row_minmax_cc, name="r11_rmm_memo")\njax.ffi.register_ffi_target("r11_rmm_memo", jax.ffi.pycapsule(row_minmax_lib.cdll.RowMinMax), platform="cpu")\n\ndef row_minmax(x):\n    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n    return jax.ffi.ffi_call("r11_rmm_memo", (spec, spec), vmap_method="broadcast_all")(x)\n'),
]
WRONG['ex2_answer'] += [
    W('c', "the backward kernel skips elements where ȳ is 0 and Python patches them with jnp.where(ct_y == 0, 0.0, ...): the "
           "cotangent of x is no longer the second kernel's result there",
      'silu_cc = r"""\n#include <cmath>\n#include <cstdint>\n#include <vector>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\nstatic inline float Sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }\n\nstatic ffi::Error SiluFwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  if (y->element_count() != x.element_count()) return ffi::Error::InvalidArgument("silu_fwd: sizes differ");\n  const float* xs = x.typed_data();\n  float* ys = y->typed_data();\n  for (std::size_t i = 0; i < x.element_count(); ++i) ys[i] = xs[i] * Sigmoid(xs[i]);\n  return ffi::Error::Success();\n}\n\nstatic ffi::Error SiluBwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct_y, ffi::ResultBuffer<ffi::F32> ct_x) {\n  if (ct_y.element_count() != x.element_count() || ct_x->element_count() != x.element_count())\n    return ffi::Error::InvalidArgument("silu_bwd: sizes differ");\n  const float* xs = x.typed_data();\n  const float* gs = ct_y.typed_data();\n  float* out = ct_x->typed_data();\n  for (std::size_t i = 0; i < x.element_count(); ++i) {\n    if (gs[i] == 0.0f) continue;             // nothing flows back here\n    const float s = Sigmoid(xs[i]);\n    out[i] = gs[i] * s * (1.0f + xs[i] * (1.0f - s));\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, SiluFwdImpl,\n                              ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, SiluBwdImpl,\n                              ffi::Ffi::Bind()\n                                  .Arg<ffi::Buffer<ffi::F32>>()    // x (the residual)\n                                  .Arg<ffi::Buffer<ffi::F32>>()    // ct_y\n                                  .Ret<ffi::Buffer<ffi::F32>>());  // ct_x\n"""\nsilu_lib = grader.build(code=silu_cc, name="r11_silu_patch")\njax.ffi.register_ffi_target("r11_silu_patch_fwd", jax.ffi.pycapsule(silu_lib.cdll.SiluFwd), platform="cpu")\njax.ffi.register_ffi_target("r11_silu_patch_bwd", jax.ffi.pycapsule(silu_lib.cdll.SiluBwd), platform="cpu")\n\ndef _silu_fwd_call(x):\n    return jax.ffi.ffi_call("r11_silu_patch_fwd", jax.ShapeDtypeStruct(jnp.shape(x), jnp.float32), vmap_method=\'broadcast_all\')(x)\n\ndef _silu_bwd_call(x, ct_y):\n    return jax.ffi.ffi_call("r11_silu_patch_bwd", jax.ShapeDtypeStruct(jnp.shape(x), jnp.float32), vmap_method=\'broadcast_all\')(x, ct_y)\n\n@jax.custom_vjp\ndef silu_ffi(x):\n    return _silu_fwd_call(x)\n\ndef silu_ffi_fwd(x):\n    return _silu_fwd_call(x), x\n\ndef silu_ffi_bwd(residual, ct_y):\n    return (jnp.where(ct_y == 0, 0.0, _silu_bwd_call(residual, ct_y)),)   # the kernel skips ct_y == 0\n\nsilu_ffi.defvjp(silu_ffi_fwd, silu_ffi_bwd)\n'),
]


# A third fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex3_answer'] += [
    W('d', 'the implementation checks its input, then makes an ffi_call of its own to the same target: eager calls do not run the primitive through its lowering',
      'rms_norm_prim_p = Primitive("rms_w11")\n\ndef _rms_norm_prim_abstract(x, *, eps):\n    if x.dtype != jnp.float32:\n        raise TypeError(f"rms_norm_prim takes float32 arrays, got {x.dtype}")\n    if x.ndim == 0:\n        raise TypeError("rms_norm_prim normalises the last axis: x needs at least one axis")\n    return jax.core.ShapedArray(x.shape, x.dtype)\n\nrms_norm_prim_p.def_abstract_eval(_rms_norm_prim_abstract)\nmlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")\ndef _rms_norm_prim_impl(x, *, eps):\n    _rms_norm_prim_abstract(jax.core.ShapedArray(np.shape(x), x.dtype), eps=eps)\n    return jax.ffi.ffi_call("rms_norm", jax.ShapeDtypeStruct(x.shape, x.dtype))(x, eps=np.float32(eps))\nrms_norm_prim_p.def_impl(_rms_norm_prim_impl)\n\ndef _rms_norm_prim_batch(args, dims, *, eps):\n    (x,), (d,) = args, dims\n    if x.ndim == 1:\n        raise TypeError("rms_norm_prim: each example needs at least one axis")\n    if d == x.ndim - 1:                      # the batch is the kernel\'s last axis: move it away\n        x = jnp.moveaxis(x, d, 0)\n        d = 0\n    return rms_norm_prim_p.bind(x, eps=eps), d\n\nbatching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch\n'),
]


# A seventh fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex1_answer'] += [
    W('f', "running extremes in plain global variables: g++ -O2 keeps them in registers, so every result is right, but each call writes the globals all calls share (a data race)",
      'row_minmax_cc = r"""\n#include <algorithm>\n#include <cmath>\n#include <limits>\n#include <mutex>\n#include <vector>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\n// Running extremes of the current row (kept outside the loop to avoid re-declaring them).\nstatic float g_lo, g_hi;\n\nstatic ffi::Error RowMinMaxImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> lo,\n                                ffi::ResultBuffer<ffi::F32> hi) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_minmax: x must have at least one axis");\n  const std::int64_t n = dims.back(), rows = lo->element_count();\n  if (n == 0) return ffi::Error::InvalidArgument("row_minmax: rows must not be empty");\n  const float* data = x.typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    g_lo = data[r * n];\n    g_hi = data[r * n];\n    for (std::int64_t i = 1; i < n; ++i) {\n      volatile float v = data[r * n + i];\n      if (v < g_lo) g_lo = v;\n      if (v > g_hi) g_hi = v;\n    }\n    lo->typed_data()[r] = g_lo;\n    hi->typed_data()[r] = g_hi;\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(RowMinMax, RowMinMaxImpl,\n                              ffi::Ffi::Bind()\n                                  .Arg<ffi::Buffer<ffi::F32>>()   // x\n                                  .Ret<ffi::Buffer<ffi::F32>>()   // lo\n                                  .Ret<ffi::Buffer<ffi::F32>>()); // hi\n"""\nrow_minmax_lib = grader.build(code=row_minmax_cc, name="bl8_e1w8")\njax.ffi.register_ffi_target("bl8_e1w8", jax.ffi.pycapsule(row_minmax_lib.cdll.RowMinMax), platform="cpu")\n\ndef row_minmax(x):\n    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n    return jax.ffi.ffi_call("bl8_e1w8", (spec, spec), vmap_method="broadcast_all")(x)\n'),
]


# A ninth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex1_answer'] += [
    W('f', 'splits big inputs over a detached std::thread and returns without waiting for it',
      'row_minmax_cc = r"""\n#include <cstdint>\n#include <cstddef>\n#include <limits>\n#include <algorithm>\n#include <vector>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\n#include <thread>\nstatic void MinMaxRows(const float* d, float* lo, float* hi, std::int64_t begin, std::int64_t end, std::int64_t n) {\n  for (std::int64_t r = begin; r < end; ++r) {\n    float a = d[r * n], b = d[r * n];\n    for (std::int64_t i = 1; i < n; ++i) {\n      const float v = d[r * n + i];\n      if (v < a) a = v;\n      if (v > b) b = v;\n    }\n    lo[r] = a;\n    hi[r] = b;\n  }\n}\n\nstatic ffi::Error RowMinMaxImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> lo,\n                                ffi::ResultBuffer<ffi::F32> hi) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_minmax: x must have at least one axis");\n  const std::int64_t n = dims.back();\n  const std::int64_t rows = lo->element_count();\n  if (n == 0) return ffi::Error::InvalidArgument("row_minmax: rows must not be empty");\n  const float* d = x.typed_data();\n  float* l = lo->typed_data();\n  float* h = hi->typed_data();\n  const std::int64_t half = rows / 2;\n  if (rows >= 4096) {\n    std::thread(MinMaxRows, d, l, h, half, rows, n).detach();   // second half in the background\n    MinMaxRows(d, l, h, 0, half, n);\n  } else {\n    MinMaxRows(d, l, h, 0, rows, n);\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(RowMinMax, RowMinMaxImpl,\n                              ffi::Ffi::Bind()\n                                  .Arg<ffi::Buffer<ffi::F32>>()\n                                  .Ret<ffi::Buffer<ffi::F32>>()\n                                  .Ret<ffi::Buffer<ffi::F32>>());\n"""\nrow_minmax_lib = grader.build(code=row_minmax_cc, name="bl10_row_minmax_w12")\njax.ffi.register_ffi_target("bl10_row_minmax_w12", jax.ffi.pycapsule(row_minmax_lib.cdll.RowMinMax), platform="cpu")\n\ndef row_minmax(x):\n    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n    return jax.ffi.ffi_call("bl10_row_minmax_w12", (spec, spec), vmap_method="broadcast_all")(x)\n'),
]
RIGHT.setdefault('ex1_answer', []).extend([
    R('per-row scratch in a static thread_local vector (each thread its own; the text allows a thread_local variable)',
      'row_minmax_cc = r"""\n#include <cstdint>\n#include <cstddef>\n#include <limits>\n#include <algorithm>\n#include <vector>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\n// Per-thread scratch rows, reused from call to call to avoid allocating.\nstatic thread_local std::vector<float> scratch_lo, scratch_hi;\n\nstatic ffi::Error RowMinMaxImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> lo,\n                                ffi::ResultBuffer<ffi::F32> hi) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_minmax: x must have at least one axis");\n  const std::int64_t n = dims.back();\n  const std::int64_t rows = lo->element_count();\n  if (n == 0) return ffi::Error::InvalidArgument("row_minmax: rows must not be empty");\n  if (hi->element_count() != (std::size_t)rows || (std::size_t)(rows * n) != x.element_count())\n    return ffi::Error::InvalidArgument("row_minmax: results must have shape x.shape[:-1]");\n  const float* d = x.typed_data();\n  if ((std::int64_t)scratch_lo.size() < rows) { scratch_lo.resize(rows); scratch_hi.resize(rows); }\n  for (std::int64_t r = 0; r < rows; ++r) {\n    float a = d[r * n], b = d[r * n];\n    for (std::int64_t i = 1; i < n; ++i) {\n      const float v = d[r * n + i];\n      if (v < a) a = v;\n      if (v > b) b = v;\n    }\n    scratch_lo[r] = a;\n    scratch_hi[r] = b;\n  }\n  std::copy(scratch_lo.begin(), scratch_lo.begin() + rows, lo->typed_data());\n  std::copy(scratch_hi.begin(), scratch_hi.begin() + rows, hi->typed_data());\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(RowMinMax, RowMinMaxImpl,\n                              ffi::Ffi::Bind()\n                                  .Arg<ffi::Buffer<ffi::F32>>()\n                                  .Ret<ffi::Buffer<ffi::F32>>()\n                                  .Ret<ffi::Buffer<ffi::F32>>());\n"""\nrow_minmax_lib = grader.build(code=row_minmax_cc, name="bl10_row_minmax_w11")\njax.ffi.register_ffi_target("bl10_row_minmax_w11", jax.ffi.pycapsule(row_minmax_lib.cdll.RowMinMax), platform="cpu")\n\ndef row_minmax(x):\n    spec = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n    return jax.ffi.ffi_call("bl10_row_minmax_w11", (spec, spec), vmap_method="broadcast_all")(x)\n'),
])


# A tenth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex2_answer'] += [
    W('f', 'forward kernel keeps x in a static buffer for the backward kernel: a vjp called after another forward pass uses the wrong x',
      'silu_cc = r"""\n#include <cmath>\n#include <mutex>\n#include <vector>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nstatic std::mutex mu;\nstatic std::vector<float> saved_x;     // the forward pass\'s input, for the backward kernel\n\nstatic ffi::Error SiluFwdImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  std::lock_guard<std::mutex> lock(mu);\n  saved_x.assign(x.typed_data(), x.typed_data() + x.element_count());\n  for (std::size_t i = 0; i < x.element_count(); ++i) {\n    const double v = x.typed_data()[i];\n    y->typed_data()[i] = static_cast<float>(v / (1.0 + std::exp(-v)));\n  }\n  return ffi::Error::Success();\n}\n\nstatic ffi::Error SiluBwdImpl(ffi::Buffer<ffi::F32> y, ffi::Buffer<ffi::F32> ct, ffi::ResultBuffer<ffi::F32> ct_x) {\n  std::lock_guard<std::mutex> lock(mu);\n  if (saved_x.empty()) return ffi::Error::InvalidArgument("silu_bwd: no forward pass");\n  for (std::size_t i = 0; i < ct.element_count(); ++i) {\n    const double v = saved_x[i % saved_x.size()], s = 1.0 / (1.0 + std::exp(-v));\n    ct_x->typed_data()[i] = static_cast<float>(ct.typed_data()[i] * s * (1.0 + v * (1.0 - s)));\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluFwd, SiluFwdImpl,\n    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, SiluBwdImpl,\n    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n"""\nsilu_lib = grader.build(code=silu_cc, name="bl11_e2x4")\njax.ffi.register_ffi_target("bl11_e2x4_fwd", jax.ffi.pycapsule(silu_lib.cdll.SiluFwd), platform="cpu")\njax.ffi.register_ffi_target("bl11_e2x4_bwd", jax.ffi.pycapsule(silu_lib.cdll.SiluBwd), platform="cpu")\n\n@jax.custom_vjp\ndef silu_ffi(x):\n    return jax.ffi.ffi_call("bl11_e2x4_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x)\n\ndef silu_ffi_fwd(x):\n    y = silu_ffi(x)\n    return y, y          # the kernel kept x itself\n\ndef silu_ffi_bwd(residual, ct_y):\n    y = residual\n    ct_x = jax.ffi.ffi_call("bl11_e2x4_bwd", jax.ShapeDtypeStruct(ct_y.shape, ct_y.dtype), vmap_method="broadcast_all")(y, ct_y)\n    return (ct_x,)\n\nsilu_ffi.defvjp(silu_ffi_fwd, silu_ffi_bwd)\n'),
]
WRONG['ex3_answer'] += [
    W('m', 'abstract evaluation also accepts float64 (the float32 handler refuses it only at run time)',
      'rms_norm_prim_p = Primitive("bl11_e3x1")\n\n@rms_norm_prim_p.def_abstract_eval\ndef _rms_norm_prim_abstract(x, *, eps):\n    if x.dtype not in (np.float32, np.float64):\n        raise TypeError(f"rms_norm_prim takes float arrays, got {x.dtype}")\n    if x.ndim == 0:\n        raise TypeError("rms_norm_prim needs at least one axis")\n    return jax.core.ShapedArray(x.shape, x.dtype)\n\nmlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")\nrms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))\n\ndef _rms_norm_prim_batch(args, dims, *, eps):\n    (x,), (d,) = args, dims\n    if x.ndim == 1:\n        raise TypeError("rms_norm_prim: each example needs at least one axis")\n    if d == x.ndim - 1:                  # the kernel would normalise over the batch\n        x, d = jnp.moveaxis(x, d, 0), 0\n    return rms_norm_prim_p.bind(x, eps=eps), d\n\nbatching.primitive_batchers[rms_norm_prim_p] = _rms_norm_prim_batch\n'),
]
