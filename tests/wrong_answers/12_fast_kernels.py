"""Plausible wrong answers for 12_fast_kernels, per answer cell (see tests/wrong_answers/__init__.py)."""

from wrong_answers import R, W

# Exercise 1 -----------------------------------------------------------------------------------

# One float running sum: right for short rows, too inaccurate over 2**20 terms (section 4's pitfall).
_L2_SINGLE_SUM_CC = r'''
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;
static ffi::Error RowL2Impl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  const std::int64_t n = x.dimensions().back();
  if (n == 0) return ffi::Error::Success();
  const std::int64_t rows = static_cast<std::int64_t>(x.element_count()) / n;
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = x.typed_data() + r * n;
    float sum = 0.0f;
    for (std::int64_t i = 0; i < n; ++i) sum += row[i] * row[i];
    const float s = 1.0f / std::sqrt(sum + eps);
    for (std::int64_t i = 0; i < n; ++i) y->typed_data()[r * n + i] = row[i] * s;
  }
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(RowL2, RowL2Impl,
    ffi::Ffi::Bind().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
'''

# Sixteen partial sums, but the elements after the last full group of 16 are never added.
_L2_NO_TAIL_CC = r'''
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;
static ffi::Error RowL2Impl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  const std::int64_t n = x.dimensions().back();
  if (n == 0) return ffi::Error::Success();
  const std::int64_t rows = static_cast<std::int64_t>(x.element_count()) / n;
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = x.typed_data() + r * n;
    float acc[16] = {};
    for (std::int64_t i = 0; i + 16 <= n; i += 16)
      for (int j = 0; j < 16; ++j) acc[j] += row[i + j] * row[i + j];
    float sum = 0.0f;
    for (int j = 0; j < 16; ++j) sum += acc[j];
    const float s = 1.0f / std::sqrt(sum + eps);
    for (std::int64_t i = 0; i < n; ++i) y->typed_data()[r * n + i] = row[i] * s;
  }
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(RowL2, RowL2Impl,
    ffi::Ffi::Bind().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
'''


def _l2_answer(cc: str, name: str) -> str:
    return (f"row_l2_cc = r'''{cc}'''\n"
            f"lib = grader.build(code=row_l2_cc, name='{name}', flags=('-O3',))\n"
            f"lib.register_ffi_target('{name}', 'RowL2')\n"
            "def row_l2_normalize(x, eps=1e-6):\n"
            f"    return jax.ffi.ffi_call('{name}', jax.ShapeDtypeStruct(x.shape, jnp.float32),\n"
            "                            vmap_method='broadcast_all')(x, eps=np.float32(eps))\n")


# Exercise 2 -----------------------------------------------------------------------------------

# A correct handler on XLA's pool (through ParallelFor); what varies is the Python around it.
_SCALE_ROWS_POOL_CC = r'''
#include <cstdint>
#include "fast_rms_norm.h"
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;
static ffi::Error ScaleRowsImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s,
                                ffi::ResultBuffer<ffi::F32> y) {
  const std::int64_t rows = static_cast<std::int64_t>(s.element_count());
  if (rows == 0) return ffi::Error::Success();
  const std::int64_t n = static_cast<std::int64_t>(x.element_count()) / rows;
  const float* in = x.typed_data();
  const float* scale = s.typed_data();
  float* out = y->typed_data();
  jbj_fast::ParallelFor(rows, 64, static_cast<int>(pool.num_threads()) - 1,
                        [&pool](auto task) { pool.Schedule(std::move(task)); },
                        [=](std::int64_t b, std::int64_t e) {
                          for (std::int64_t r = b; r < e; ++r)
                            for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * scale[r];
                        });
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleRows, ScaleRowsImpl,
    ffi::Ffi::Bind().Ctx<ffi::ThreadPool>().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>()
        .Ret<ffi::Buffer<ffi::F32>>());
'''

# Threads of its own, started and joined on every call (section 5's pitfall).
_SCALE_ROWS_STD_THREAD_CC = r'''
#include <cstdint>
#include <thread>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;
static ffi::Error ScaleRowsImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s, ffi::ResultBuffer<ffi::F32> y) {
  const std::int64_t rows = static_cast<std::int64_t>(s.element_count());
  if (rows == 0) return ffi::Error::Success();
  const std::int64_t n = static_cast<std::int64_t>(x.element_count()) / rows;
  const float* in = x.typed_data();
  const float* scale = s.typed_data();
  float* out = y->typed_data();
  auto work = [=](std::int64_t b, std::int64_t e) {
    for (std::int64_t r = b; r < e; ++r)
      for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * scale[r];
  };
  std::thread helper(work, rows / 2, rows);
  work(0, rows / 2);
  helper.join();
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleRows, ScaleRowsImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
'''


# Rows handed out in chunks through an atomic counter, to the pool and to the calling thread, but
# the handler returns once every chunk is claimed, not once every chunk is done: a pool thread may
# still be writing its last chunk after the call has returned.
_SCALE_ROWS_CLAIMED_CC = r'''
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;
static ffi::Error ScaleRowsImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s,
                                ffi::ResultBuffer<ffi::F32> y) {
  const std::int64_t rows = static_cast<std::int64_t>(s.element_count());
  if (rows == 0) return ffi::Error::Success();
  const std::int64_t n = static_cast<std::int64_t>(x.element_count()) / rows;
  const float* in = x.typed_data();
  const float* scale = s.typed_data();
  float* out = y->typed_data();
  const std::int64_t chunk = std::max<std::int64_t>(1, 65536 / std::max<std::int64_t>(n, 1));
  const std::int64_t chunks = (rows + chunk - 1) / chunk;
  auto next = std::make_shared<std::atomic<std::int64_t>>(0);
  auto run = [=] {
    for (std::int64_t c = next->fetch_add(1); c < chunks; c = next->fetch_add(1))
      for (std::int64_t r = c * chunk; r < std::min(rows, (c + 1) * chunk); ++r)
        for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * scale[r];
  };
  for (int h = 1; h < pool.num_threads(); ++h) pool.Schedule([run] { run(); });
  run();  // every chunk is claimed when this returns; the pool's may still be running
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleRows, ScaleRowsImpl,
    ffi::Ffi::Bind().Ctx<ffi::ThreadPool>().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>()
        .Ret<ffi::Buffer<ffi::F32>>());
'''

def _scale_rows_answer(cc: str, name: str, *, aliases: bool, donate: bool) -> str:
    alias = ", input_output_aliases={0: 0}" if aliases else ""
    donation = ", donate_argnums=0" if donate else ""
    return (f"scale_rows_cc = r'''{cc}'''\n"
            f"lib = grader.build(code=scale_rows_cc, name='{name}', flags=('-O3',))\n"
            f"lib.register_ffi_target('{name}', 'ScaleRows')\n"
            "def scale_rows(x, s):\n"
            f"    return jax.ffi.ffi_call('{name}', jax.ShapeDtypeStruct(x.shape, jnp.float32){alias})(x, s)\n"
            f"scale_rows_inplace = jax.jit(scale_rows{donation})\n")


# Exercise 3 -----------------------------------------------------------------------------------

_PACKAGED_RMS_NORM = (
    "@partial(jax.custom_vjp, nondiff_argnums=(1,))\n"
    "def rms_norm_packaged(x, eps=1e-5):\n"
    "    return _fwd(x, eps)[0]\n"
    "def _fwd(x, eps=1e-5):\n"
    "    y, scale = jax.ffi.ffi_call('ex3.rms_norm_fast_fwd', (jax.ShapeDtypeStruct(x.shape, jnp.float32),\n"
    "        jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)), vmap_method='broadcast_all')(x, eps=np.float32(eps))\n"
    "    return y, (scale, x)\n"
)

APPLIES = {'ex1_answer': 'bcdefgm', 'ex2_answer': 'cdfgm', 'ex3_answer': 'abcdefgm', 'quiz_answer': 'm'}

WRONG = {
    'ex1_answer': [
        W('d', 'not an FFI call at all: the jnp formula, which XLA fuses (accurate, but no custom call of your own)',
          "def row_l2_normalize(x, eps=1e-6):\n"
          "    return x / jnp.sqrt(jnp.sum(x * x, axis=-1, keepdims=True) + eps)\n"),
        W('c', 'one float running sum: right for short rows, too inaccurate over rows of 2**20 terms (section 4)',
          _l2_answer(_L2_SINGLE_SUM_CC, "ex1_single_sum")),
        W('c', '16 partial sums, but the elements after the last full group of 16 are never added',
          _l2_answer(_L2_NO_TAIL_CC, "ex1_no_tail")),
        W('c', 'one float running sum: fine for short rows, rel. error ~6e-5 on rows of 2^20 (and 300000) elements',
          'row_l2_cc = r"""\n'
          '#include <cmath>\n'
          '#include <cstdint>\n'
          '#include "fast_rms_norm.h"\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          '// Each row divided by sqrt(sum of squares + eps).\n'
          'static ffi::Error RowL2Impl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n'
          '  auto dims = x.dimensions();\n'
          '  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_l2_normalize: x needs an axis");\n'
          '  const std::int64_t n = dims.back();\n'
          '  if (n == 0) return ffi::Error::Success();\n'
          '  const std::int64_t rows = static_cast<std::int64_t>(x.element_count()) / n;\n'
          '  const float* in = x.typed_data();\n'
          '  float* out = y->typed_data();\n'
          '  for (std::int64_t r = 0; r < rows; ++r) {\n'
          '    const float* row = in + r * n;\n'
          '    float sum = 0.0f;\n'
          '    for (std::int64_t i = 0; i < n; ++i) sum += row[i] * row[i];\n'
          '    const float s = 1.0f / std::sqrt(sum + eps);\n'
          '    for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = row[i] * s;\n'
          '  }\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(RowL2, RowL2Impl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Attr<float>("eps")\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()\n'
          '                                  .Ret<ffi::Buffer<ffi::F32>>());\n'
          '"""\n'
          'row_l2_lib = grader.build(code=row_l2_cc, name="b5_w1_row_l2", flags=("-O3", "-march=native"))\n'
          'row_l2_lib.register_ffi_target("b5w1.row_l2", "RowL2")\n'
          '\n'
          'def row_l2_normalize(x, eps=1e-6):\n'
          '    out = jax.ShapeDtypeStruct(x.shape, jnp.float32)\n'
          '    return jax.ffi.ffi_call("b5w1.row_l2", out, vmap_method="broadcast_all")(x, eps=np.float32(eps))\n'),
        W('c', 'own 16-lane sum that drops the tail: wrong for row lengths not a multiple of 16 (1, 3, 17, 100, 37)',
          'row_l2_cc = r"""\n'
          '#include <cmath>\n'
          '#include <cstdint>\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          '// Each row divided by sqrt(sum of squares + eps), the sum in 16 partial sums.\n'
          'constexpr int kLanes = 16;\n'
          '\n'
          '// Sum of squares of one row in kLanes partial sums, added pairwise at the end.\n'
          'static float SumSquaresLanes(const float* a, std::int64_t n) {\n'
          '  float acc[kLanes] = {};\n'
          '  for (std::int64_t i = 0; i + kLanes <= n; i += kLanes)\n'
          '    for (int j = 0; j < kLanes; ++j) acc[j] += a[i + j] * a[i + j];\n'
          '  for (int width = kLanes / 2; width > 0; width /= 2)\n'
          '    for (int j = 0; j < width; ++j) acc[j] += acc[j + width];\n'
          '  return acc[0];\n'
          '}\n'
          '\n'
          'static ffi::Error RowL2Impl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n'
          '  auto dims = x.dimensions();\n'
          '  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_l2_normalize: x needs an axis");\n'
          '  const std::int64_t n = dims.back();\n'
          '  if (n == 0) return ffi::Error::Success();\n'
          '  const std::int64_t rows = static_cast<std::int64_t>(x.element_count()) / n;\n'
          '  const float* in = x.typed_data();\n'
          '  float* out = y->typed_data();\n'
          '  for (std::int64_t r = 0; r < rows; ++r) {\n'
          '    const float* row = in + r * n;\n'
          '    const float s = 1.0f / std::sqrt(SumSquaresLanes(row, n) + eps);\n'
          '    for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = row[i] * s;\n'
          '  }\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(RowL2, RowL2Impl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Attr<float>("eps")\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()\n'
          '                                  .Ret<ffi::Buffer<ffi::F32>>());\n'
          '"""\n'
          'row_l2_lib = grader.build(code=row_l2_cc, name="b5_w2_row_l2", flags=("-O3", "-march=native"))\n'
          'row_l2_lib.register_ffi_target("b5w2.row_l2", "RowL2")\n'
          '\n'
          'def row_l2_normalize(x, eps=1e-6):\n'
          '    out = jax.ShapeDtypeStruct(x.shape, jnp.float32)\n'
          '    return jax.ffi.ffi_call("b5w2.row_l2", out, vmap_method="broadcast_all")(x, eps=np.float32(eps))\n'),
        W('b', 'eps hard-coded as 1e-6f in the C++ (no attribute): any other eps is ignored',
          'row_l2_cc = r"""\n'
          '#include <cmath>\n'
          '#include <cstdint>\n'
          '#include "fast_rms_norm.h"\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          '// Each row divided by sqrt(sum of squares + eps), the sum in 16 partial sums.\n'
          'static ffi::Error RowL2Impl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n'
          '  auto dims = x.dimensions();\n'
          '  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_l2_normalize: x needs an axis");\n'
          '  const std::int64_t n = dims.back();\n'
          '  if (n == 0) return ffi::Error::Success();\n'
          '  const std::int64_t rows = static_cast<std::int64_t>(x.element_count()) / n;\n'
          '  const float* in = x.typed_data();\n'
          '  float* out = y->typed_data();\n'
          '  for (std::int64_t r = 0; r < rows; ++r) {\n'
          '    const float* row = in + r * n;\n'
          '    const float s = 1.0f / std::sqrt(jbj_fast::DotLanes(row, row, n) + 1e-6f);\n'
          '    for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = row[i] * s;\n'
          '  }\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(RowL2, RowL2Impl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()\n'
          '                                  .Ret<ffi::Buffer<ffi::F32>>());\n'
          '"""\n'
          'row_l2_lib = grader.build(code=row_l2_cc, name="b5_w3_row_l2", flags=("-O3", "-march=native"))\n'
          'row_l2_lib.register_ffi_target("b5w3.row_l2", "RowL2")\n'
          '\n'
          'def row_l2_normalize(x, eps=1e-6):\n'
          '    out = jax.ShapeDtypeStruct(x.shape, jnp.float32)\n'
          '    return jax.ffi.ffi_call("b5w3.row_l2", out, vmap_method="broadcast_all")(x)\n'),
        W('b', 'eps added after the square root: invisible at eps=1e-6, wrong for eps=1 or small rows',
          'row_l2_cc = r"""\n'
          '#include <cmath>\n'
          '#include <cstdint>\n'
          '#include "fast_rms_norm.h"\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          '// Each row divided by sqrt(sum of squares + eps), the sum in 16 partial sums.\n'
          'static ffi::Error RowL2Impl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n'
          '  auto dims = x.dimensions();\n'
          '  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_l2_normalize: x needs an axis");\n'
          '  const std::int64_t n = dims.back();\n'
          '  if (n == 0) return ffi::Error::Success();\n'
          '  const std::int64_t rows = static_cast<std::int64_t>(x.element_count()) / n;\n'
          '  const float* in = x.typed_data();\n'
          '  float* out = y->typed_data();\n'
          '  for (std::int64_t r = 0; r < rows; ++r) {\n'
          '    const float* row = in + r * n;\n'
          '    const float s = 1.0f / (std::sqrt(jbj_fast::DotLanes(row, row, n)) + eps);\n'
          '    for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = row[i] * s;\n'
          '  }\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(RowL2, RowL2Impl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Attr<float>("eps")\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()\n'
          '                                  .Ret<ffi::Buffer<ffi::F32>>());\n'
          '"""\n'
          'row_l2_lib = grader.build(code=row_l2_cc, name="b5_w4_row_l2", flags=("-O3", "-march=native"))\n'
          'row_l2_lib.register_ffi_target("b5w4.row_l2", "RowL2")\n'
          '\n'
          'def row_l2_normalize(x, eps=1e-6):\n'
          '    out = jax.ShapeDtypeStruct(x.shape, jnp.float32)\n'
          '    return jax.ffi.ffi_call("b5w4.row_l2", out, vmap_method="broadcast_all")(x, eps=np.float32(eps))\n'),
        W('d', 'sum of squares in jnp, only the division in C++: the program holds a stablehlo.reduce',
          'row_l2_cc = r"""\n'
          '#include <cmath>\n'
          '#include <cstdint>\n'
          '#include "fast_rms_norm.h"\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          '// Each row divided by its norm, given one norm per row.\n'
          'static ffi::Error RowL2Impl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> norms, ffi::ResultBuffer<ffi::F32> y) {\n'
          '  auto dims = x.dimensions();\n'
          '  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_l2_normalize: x needs an axis");\n'
          '  const std::int64_t n = dims.back();\n'
          '  if (n == 0) return ffi::Error::Success();\n'
          '  const std::int64_t rows = static_cast<std::int64_t>(x.element_count()) / n;\n'
          '  const float* in = x.typed_data();\n'
          '  float* out = y->typed_data();\n'
          '  for (std::int64_t r = 0; r < rows; ++r) {\n'
          '    const float* row = in + r * n;\n'
          '    const float s = 1.0f / norms.typed_data()[r];\n'
          '    for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = row[i] * s;\n'
          '  }\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(RowL2, RowL2Impl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()   // x\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()   // one norm per row\n'
          '                                  .Ret<ffi::Buffer<ffi::F32>>());\n'
          '"""\n'
          'row_l2_lib = grader.build(code=row_l2_cc, name="b5_w5_row_l2", flags=("-O3", "-march=native"))\n'
          'row_l2_lib.register_ffi_target("b5w5.row_l2", "RowL2")\n'
          '\n'
          'def row_l2_normalize(x, eps=1e-6):\n'
          '    out = jax.ShapeDtypeStruct(x.shape, jnp.float32)\n'
          '    norms = jnp.sqrt(jnp.sum(jnp.square(x.astype(jnp.float32)), axis=-1) + eps)\n'
          '    return jax.ffi.ffi_call("b5w5.row_l2", out, vmap_method="broadcast_all")(x, norms)\n'),
        W('e', 'ffi_call without vmap_method: jit works, vmap raises NotImplementedError',
          'row_l2_cc = r"""\n'
          '#include <cmath>\n'
          '#include <cstdint>\n'
          '#include "fast_rms_norm.h"\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          '// Each row divided by sqrt(sum of squares + eps), the sum in 16 partial sums.\n'
          'static ffi::Error RowL2Impl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n'
          '  auto dims = x.dimensions();\n'
          '  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_l2_normalize: x needs an axis");\n'
          '  const std::int64_t n = dims.back();\n'
          '  if (n == 0) return ffi::Error::Success();\n'
          '  const std::int64_t rows = static_cast<std::int64_t>(x.element_count()) / n;\n'
          '  const float* in = x.typed_data();\n'
          '  float* out = y->typed_data();\n'
          '  for (std::int64_t r = 0; r < rows; ++r) {\n'
          '    const float* row = in + r * n;\n'
          '    const float s = 1.0f / std::sqrt(jbj_fast::DotLanes(row, row, n) + eps);\n'
          '    for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = row[i] * s;\n'
          '  }\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(RowL2, RowL2Impl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Attr<float>("eps")\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()\n'
          '                                  .Ret<ffi::Buffer<ffi::F32>>());\n'
          '"""\n'
          'row_l2_lib = grader.build(code=row_l2_cc, name="b5_w6_row_l2", flags=("-O3", "-march=native"))\n'
          'row_l2_lib.register_ffi_target("b5w6.row_l2", "RowL2")\n'
          '\n'
          'def row_l2_normalize(x, eps=1e-6):\n'
          '    out = jax.ShapeDtypeStruct(x.shape, jnp.float32)\n'
          '    return jax.ffi.ffi_call("b5w6.row_l2", out)(x, eps=np.float32(eps))\n'),
        W('g', "double sum only for rows >= 2^20 (the text's example), single float sum below: rows of 300000 miss rtol=2e-6",
          'row_l2_cc = r"""\n'
          '#include <cmath>\n'
          '#include <cstdint>\n'
          '#include "fast_rms_norm.h"\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          '// Each row divided by sqrt(sum of squares + eps), the sum in 16 partial sums.\n'
          'static ffi::Error RowL2Impl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n'
          '  auto dims = x.dimensions();\n'
          '  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_l2_normalize: x needs an axis");\n'
          '  const std::int64_t n = dims.back();\n'
          '  if (n == 0) return ffi::Error::Success();\n'
          '  const std::int64_t rows = static_cast<std::int64_t>(x.element_count()) / n;\n'
          '  const float* in = x.typed_data();\n'
          '  float* out = y->typed_data();\n'
          '  for (std::int64_t r = 0; r < rows; ++r) {\n'
          '    const float* row = in + r * n;\n'
          '    // float lane sums are fine for ordinary rows; the 2^20-element rows need a double\n'
          '    const float sum = n >= (1 << 20) ? float(jbj_fast::DotDouble(row, row, n)) : [&] {\n'
          '      float total = 0.0f;\n'
          '      for (std::int64_t i = 0; i < n; ++i) total += row[i] * row[i];\n'
          '      return total;\n'
          '    }();\n'
          '    const float s = 1.0f / std::sqrt(sum + eps);\n'
          '    for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = row[i] * s;\n'
          '  }\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(RowL2, RowL2Impl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Attr<float>("eps")\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()\n'
          '                                  .Ret<ffi::Buffer<ffi::F32>>());\n'
          '"""\n'
          'row_l2_lib = grader.build(code=row_l2_cc, name="b5_w7_row_l2", flags=("-O3", "-march=native"))\n'
          'row_l2_lib.register_ffi_target("b5w7.row_l2", "RowL2")\n'
          '\n'
          'def row_l2_normalize(x, eps=1e-6):\n'
          '    out = jax.ShapeDtypeStruct(x.shape, jnp.float32)\n'
          '    return jax.ffi.ffi_call("b5w7.row_l2", out, vmap_method="broadcast_all")(x, eps=np.float32(eps))\n'),
        W('c', 'BufferR2 binding: a 1-D x (one row), a 3-D x, or vmap over 2-D are refused with a rank error',
          'row_l2_cc = r"""\n'
          '#include <cmath>\n'
          '#include <cstdint>\n'
          '#include "fast_rms_norm.h"\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          '// Each row divided by sqrt(sum of squares + eps), the sum in 16 partial sums.\n'
          'static ffi::Error RowL2Impl(float eps, ffi::BufferR2<ffi::F32> x, ffi::ResultBufferR2<ffi::F32> y) {\n'
          '  auto dims = x.dimensions();\n'
          '  const std::int64_t rows = dims[0], n = dims[1];\n'
          '  const float* in = x.typed_data();\n'
          '  float* out = y->typed_data();\n'
          '  for (std::int64_t r = 0; r < rows; ++r) {\n'
          '    const float* row = in + r * n;\n'
          '    const float s = 1.0f / std::sqrt(jbj_fast::DotLanes(row, row, n) + eps);\n'
          '    for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = row[i] * s;\n'
          '  }\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(RowL2, RowL2Impl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Attr<float>("eps")\n'
          '                                  .Arg<ffi::BufferR2<ffi::F32>>()\n'
          '                                  .Ret<ffi::BufferR2<ffi::F32>>());\n'
          '"""\n'
          'row_l2_lib = grader.build(code=row_l2_cc, name="b5_w8_row_l2", flags=("-O3", "-march=native"))\n'
          'row_l2_lib.register_ffi_target("b5w8.row_l2", "RowL2")\n'
          '\n'
          'def row_l2_normalize(x, eps=1e-6):\n'
          '    out = jax.ShapeDtypeStruct(x.shape, jnp.float32)\n'
          '    return jax.ffi.ffi_call("b5w8.row_l2", out, vmap_method="sequential")(x, eps=np.float32(eps))\n'),
        W('m', 'divides by sqrt(mean + eps) as in RMSNorm instead of sqrt(sum + eps): results sqrt(n) times too large',
          'row_l2_cc = r"""\n'
          '#include <cmath>\n'
          '#include <cstdint>\n'
          '#include "fast_rms_norm.h"\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          '// Each row divided by sqrt(sum of squares + eps), the sum in 16 partial sums.\n'
          'static ffi::Error RowL2Impl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n'
          '  auto dims = x.dimensions();\n'
          '  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_l2_normalize: x needs an axis");\n'
          '  const std::int64_t n = dims.back();\n'
          '  if (n == 0) return ffi::Error::Success();\n'
          '  const std::int64_t rows = static_cast<std::int64_t>(x.element_count()) / n;\n'
          '  const float* in = x.typed_data();\n'
          '  float* out = y->typed_data();\n'
          '  for (std::int64_t r = 0; r < rows; ++r) {\n'
          '    const float* row = in + r * n;\n'
          '    const float s = 1.0f / std::sqrt(jbj_fast::DotLanes(row, row, n) / float(n) + eps);\n'
          '    for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = row[i] * s;\n'
          '  }\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(RowL2, RowL2Impl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Attr<float>("eps")\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()\n'
          '                                  .Ret<ffi::Buffer<ffi::F32>>());\n'
          '"""\n'
          'row_l2_lib = grader.build(code=row_l2_cc, name="b5_w9_row_l2", flags=("-O3", "-march=native"))\n'
          'row_l2_lib.register_ffi_target("b5w9.row_l2", "RowL2")\n'
          '\n'
          'def row_l2_normalize(x, eps=1e-6):\n'
          '    out = jax.ShapeDtypeStruct(x.shape, jnp.float32)\n'
          '    return jax.ffi.ffi_call("b5w9.row_l2", out, vmap_method="broadcast_all")(x, eps=np.float32(eps))\n'),
    ],
    'ex2_answer': [
        W('f', 'rows on the pool through a shared chunk counter, but returns once every chunk is claimed, not done: a pool thread may still be writing',
          _scale_rows_answer(_SCALE_ROWS_CLAIMED_CC, "ex2_claimed_not_done", aliases=True, donate=True)),
        W('m', 'right values on the pool, but no input_output_aliases: XLA writes a fresh buffer and copies it into x',
          _scale_rows_answer(_SCALE_ROWS_POOL_CC, "ex2_no_alias", aliases=False, donate=True)),
        W('d', "threads of its own (std::thread), started and joined on every call, instead of XLA's pool",
          _scale_rows_answer(_SCALE_ROWS_STD_THREAD_CC, "ex2_std_thread", aliases=True, donate=True)),
        W('m', "aliased but not donated: XLA must keep the caller's x, so it copies x before the call",
          _scale_rows_answer(_SCALE_ROWS_POOL_CC, "ex2_no_donation", aliases=True, donate=False)),
        W('f', 'blocks of 64 rows handed to pool.Schedule and never waited for: results of >64 rows read before written; tasks write after the call (can crash)',
          'scale_rows_cc = r"""\n'
          '#include <cstdint>\n'
          '#include <algorithm>\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          "// y[r, :] = x[r, :] * s[r], with y aliasing x; blocks of 64 rows handed to XLA's intra-op pool.\n"
          'static ffi::Error ScaleRowsImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s,\n'
          '                                ffi::ResultBuffer<ffi::F32> y) {\n'
          '  const std::int64_t rows = static_cast<std::int64_t>(s.element_count());\n'
          '  if (rows == 0) return ffi::Error::Success();\n'
          '  const std::int64_t n = static_cast<std::int64_t>(x.element_count()) / rows;\n'
          '  const float* in = x.typed_data();\n'
          '  const float* scale = s.typed_data();\n'
          '  float* out = y->typed_data();\n'
          '  if (rows <= 64) {                    // one block: do it here\n'
          '    for (std::int64_t r = 0; r < rows; ++r)\n'
          '      for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * scale[r];\n'
          '    return ffi::Error::Success();\n'
          '  }\n'
          '  for (std::int64_t begin = 0; begin < rows; begin += 64) {\n'
          '    const std::int64_t end = std::min(rows, begin + 64);\n'
          '    pool.Schedule([=] {\n'
          '      for (std::int64_t r = begin; r < end; ++r)\n'
          '        for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * scale[r];\n'
          '    });\n'
          '  }\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleRows, ScaleRowsImpl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Ctx<ffi::ThreadPool>()\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()   // x\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()   // s\n'
          "                                  .Ret<ffi::Buffer<ffi::F32>>()); // y, in x's buffer\n"
          '"""\n'
          'scale_rows_lib = grader.build(code=scale_rows_cc, name="b5_w1_scale_rows", flags=("-O3",))\n'
          'scale_rows_lib.register_ffi_target("b5w1.scale_rows", "ScaleRows")\n'
          '\n'
          'def scale_rows(x, s):\n'
          '    out = jax.ShapeDtypeStruct(x.shape, jnp.float32)\n'
          '    return jax.ffi.ffi_call("b5w1.scale_rows", out, input_output_aliases={0: 0})(x, s)\n'
          '\n'
          'scale_rows_inplace = jax.jit(scale_rows, donate_argnums=0)\n'),
        W('f', "row scales copied into a static array shared by all calls: concurrent calls with other s scale by each other's values",
          'scale_rows_cc = r"""\n'
          '#include <cstdint>\n'
          '#include <algorithm>\n'
          '#include "fast_rms_norm.h"\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          '// The row scales, kept where every task can read them (room for a million rows).\n'
          'static float row_scales[1 << 20];\n'
          '\n'
          "// y[r, :] = x[r, :] * s[r], with y aliasing x; rows split over XLA's intra-op pool.\n"
          'static ffi::Error ScaleRowsImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s,\n'
          '                                ffi::ResultBuffer<ffi::F32> y) {\n'
          '  const std::int64_t rows = static_cast<std::int64_t>(s.element_count());\n'
          '  if (rows == 0) return ffi::Error::Success();\n'
          '  const std::int64_t n = static_cast<std::int64_t>(x.element_count()) / rows;\n'
          '  const float* in = x.typed_data();\n'
          '  const float* scale = s.typed_data();\n'
          '  float* out = y->typed_data();\n'
          '  std::copy(scale, scale + rows, row_scales);\n'
          '  const float* kept = row_scales;\n'
          '  const int helpers = static_cast<int>(pool.num_threads()) - 1;\n'
          '  jbj_fast::ParallelFor(rows, 64, helpers, [&pool](auto task) { pool.Schedule(std::move(task)); },\n'
          '                        [=](std::int64_t begin, std::int64_t end) {\n'
          '                          for (std::int64_t r = begin; r < end; ++r)\n'
          '                            for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * kept[r];\n'
          '                        });\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleRows, ScaleRowsImpl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Ctx<ffi::ThreadPool>()\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()   // x\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()   // s\n'
          "                                  .Ret<ffi::Buffer<ffi::F32>>()); // y, in x's buffer\n"
          '"""\n'
          'scale_rows_lib = grader.build(code=scale_rows_cc, name="b5_w2_scale_rows", flags=("-O3",))\n'
          'scale_rows_lib.register_ffi_target("b5w2.scale_rows", "ScaleRows")\n'
          '\n'
          'def scale_rows(x, s):\n'
          '    out = jax.ShapeDtypeStruct(x.shape, jnp.float32)\n'
          '    return jax.ffi.ffi_call("b5w2.scale_rows", out, input_output_aliases={0: 0})(x, s)\n'
          '\n'
          'scale_rows_inplace = jax.jit(scale_rows, donate_argnums=0)\n'),
        W('d', 'takes .Ctx<ffi::ThreadPool>() but never schedules: one serial loop on the calling thread (no pool.Schedule in scale_rows_cc)',
          'scale_rows_cc = r"""\n'
          '#include <cstdint>\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          '// y[r, :] = x[r, :] * s[r], with y aliasing x; the pool is available if the rows are many.\n'
          'static ffi::Error ScaleRowsImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s,\n'
          '                                ffi::ResultBuffer<ffi::F32> y) {\n'
          '  const std::int64_t rows = static_cast<std::int64_t>(s.element_count());\n'
          '  if (rows == 0) return ffi::Error::Success();\n'
          '  const std::int64_t n = static_cast<std::int64_t>(x.element_count()) / rows;\n'
          '  const float* in = x.typed_data();\n'
          '  const float* scale = s.typed_data();\n'
          '  float* out = y->typed_data();\n'
          '  for (std::int64_t r = 0; r < rows; ++r)\n'
          '    for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * scale[r];\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleRows, ScaleRowsImpl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Ctx<ffi::ThreadPool>()\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()   // x\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()   // s\n'
          "                                  .Ret<ffi::Buffer<ffi::F32>>()); // y, in x's buffer\n"
          '"""\n'
          'scale_rows_lib = grader.build(code=scale_rows_cc, name="b5_w3_scale_rows", flags=("-O3",))\n'
          'scale_rows_lib.register_ffi_target("b5w3.scale_rows", "ScaleRows")\n'
          '\n'
          'def scale_rows(x, s):\n'
          '    out = jax.ShapeDtypeStruct(x.shape, jnp.float32)\n'
          '    return jax.ffi.ffi_call("b5w3.scale_rows", out, input_output_aliases={0: 0})(x, s)\n'
          '\n'
          'scale_rows_inplace = jax.jit(scale_rows, donate_argnums=0)\n'),
        W('d', "starts and joins its own std::thread per share instead of XLA's pool (no pool.Schedule in scale_rows_cc)",
          'scale_rows_cc = r"""\n'
          '#include <cstdint>\n'
          '#include <algorithm>\n'
          '#include <thread>\n'
          '#include <vector>\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          '// y[r, :] = x[r, :] * s[r], with y aliasing x; rows split over one std::thread per pool thread.\n'
          'static ffi::Error ScaleRowsImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s,\n'
          '                                ffi::ResultBuffer<ffi::F32> y) {\n'
          '  const std::int64_t rows = static_cast<std::int64_t>(s.element_count());\n'
          '  if (rows == 0) return ffi::Error::Success();\n'
          '  const std::int64_t n = static_cast<std::int64_t>(x.element_count()) / rows;\n'
          '  const float* in = x.typed_data();\n'
          '  const float* scale = s.typed_data();\n'
          '  float* out = y->typed_data();\n'
          '  const std::int64_t threads = std::max<std::int64_t>(1, std::min<std::int64_t>(pool.num_threads(), rows));\n'
          '  const std::int64_t per = (rows + threads - 1) / threads;\n'
          '  std::vector<std::thread> workers;\n'
          '  for (std::int64_t t = 0; t < threads; ++t) {\n'
          '    const std::int64_t begin = t * per, end = std::min(rows, begin + per);\n'
          '    workers.emplace_back([=] {\n'
          '      for (std::int64_t r = begin; r < end; ++r)\n'
          '        for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * scale[r];\n'
          '    });\n'
          '  }\n'
          '  for (auto& w : workers) w.join();\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleRows, ScaleRowsImpl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Ctx<ffi::ThreadPool>()\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()   // x\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()   // s\n'
          "                                  .Ret<ffi::Buffer<ffi::F32>>()); // y, in x's buffer\n"
          '"""\n'
          'scale_rows_lib = grader.build(code=scale_rows_cc, name="b5_w4_scale_rows", flags=("-O3",))\n'
          'scale_rows_lib.register_ffi_target("b5w4.scale_rows", "ScaleRows")\n'
          '\n'
          'def scale_rows(x, s):\n'
          '    out = jax.ShapeDtypeStruct(x.shape, jnp.float32)\n'
          '    return jax.ffi.ffi_call("b5w4.scale_rows", out, input_output_aliases={0: 0})(x, s)\n'
          '\n'
          'scale_rows_inplace = jax.jit(scale_rows, donate_argnums=0)\n'),
        W('m', "no input_output_aliases: donation still gives x's address, but the compiled program is custom-call then copy",
          'scale_rows_cc = r"""\n'
          '#include <cstdint>\n'
          '#include "fast_rms_norm.h"\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          "// y[r, :] = x[r, :] * s[r], with y aliasing x; rows split over XLA's intra-op pool.\n"
          'static ffi::Error ScaleRowsImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s,\n'
          '                                ffi::ResultBuffer<ffi::F32> y) {\n'
          '  const std::int64_t rows = static_cast<std::int64_t>(s.element_count());\n'
          '  if (rows == 0) return ffi::Error::Success();\n'
          '  const std::int64_t n = static_cast<std::int64_t>(x.element_count()) / rows;\n'
          '  const float* in = x.typed_data();\n'
          '  const float* scale = s.typed_data();\n'
          '  float* out = y->typed_data();\n'
          '  const int helpers = static_cast<int>(pool.num_threads()) - 1;\n'
          '  jbj_fast::ParallelFor(rows, 64, helpers, [&pool](auto task) { pool.Schedule(std::move(task)); },\n'
          '                        [=](std::int64_t begin, std::int64_t end) {\n'
          '                          for (std::int64_t r = begin; r < end; ++r)\n'
          '                            for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * scale[r];\n'
          '                        });\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleRows, ScaleRowsImpl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Ctx<ffi::ThreadPool>()\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()   // x\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()   // s\n'
          "                                  .Ret<ffi::Buffer<ffi::F32>>()); // y, in x's buffer\n"
          '"""\n'
          'scale_rows_lib = grader.build(code=scale_rows_cc, name="b5_w5_scale_rows", flags=("-O3",))\n'
          'scale_rows_lib.register_ffi_target("b5w5.scale_rows", "ScaleRows")\n'
          '\n'
          'def scale_rows(x, s):\n'
          '    out = jax.ShapeDtypeStruct(x.shape, jnp.float32)\n'
          '    return jax.ffi.ffi_call("b5w5.scale_rows", out)(x, s)\n'
          '\n'
          'scale_rows_inplace = jax.jit(scale_rows, donate_argnums=0)\n'),
        W('c', 'rows/num_threads rows per pool thread, remainder dropped: odd row counts (and fewer rows than threads) leave rows unscaled',
          'scale_rows_cc = r"""\n'
          '#include <cstdint>\n'
          '#include "fast_rms_norm.h"\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          '// y[r, :] = x[r, :] * s[r], with y aliasing x; one equal share of the rows per pool thread.\n'
          'static ffi::Error ScaleRowsImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s,\n'
          '                                ffi::ResultBuffer<ffi::F32> y) {\n'
          '  const std::int64_t rows = static_cast<std::int64_t>(s.element_count());\n'
          '  if (rows == 0) return ffi::Error::Success();\n'
          '  const std::int64_t n = static_cast<std::int64_t>(x.element_count()) / rows;\n'
          '  const float* in = x.typed_data();\n'
          '  const float* scale = s.typed_data();\n'
          '  float* out = y->typed_data();\n'
          '  const std::int64_t threads = pool.num_threads();\n'
          '  const std::int64_t per = rows / threads;              // rows per thread\n'
          '  jbj_fast::ParallelFor(threads, 1, static_cast<int>(threads) - 1,\n'
          '                        [&pool](auto task) { pool.Schedule(std::move(task)); },\n'
          '                        [=](std::int64_t first, std::int64_t last) {\n'
          '                          for (std::int64_t r = first * per; r < last * per; ++r)\n'
          '                            for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * scale[r];\n'
          '                        });\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleRows, ScaleRowsImpl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Ctx<ffi::ThreadPool>()\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()   // x\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()   // s\n'
          "                                  .Ret<ffi::Buffer<ffi::F32>>()); // y, in x's buffer\n"
          '"""\n'
          'scale_rows_lib = grader.build(code=scale_rows_cc, name="b5_w6_scale_rows", flags=("-O3",))\n'
          'scale_rows_lib.register_ffi_target("b5w6.scale_rows", "ScaleRows")\n'
          '\n'
          'def scale_rows(x, s):\n'
          '    out = jax.ShapeDtypeStruct(x.shape, jnp.float32)\n'
          '    return jax.ffi.ffi_call("b5w6.scale_rows", out, input_output_aliases={0: 0})(x, s)\n'
          '\n'
          'scale_rows_inplace = jax.jit(scale_rows, donate_argnums=0)\n'),
        W('c', "rows = x's first axis: right for 1-D and 2-D x, wrong for a 3-D x",
          'scale_rows_cc = r"""\n'
          '#include <cstdint>\n'
          '#include "fast_rms_norm.h"\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          "// y[r, :] = x[r, :] * s[r], with y aliasing x; rows split over XLA's intra-op pool.\n"
          'static ffi::Error ScaleRowsImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s,\n'
          '                                ffi::ResultBuffer<ffi::F32> y) {\n'
          '  auto dims = x.dimensions();\n'
          '  const std::int64_t rows = dims.size() == 1 ? 1 : dims[0];   // a vector is one row\n'
          '  if (rows == 0) return ffi::Error::Success();\n'
          '  const std::int64_t n = static_cast<std::int64_t>(x.element_count()) / rows;\n'
          '  const float* in = x.typed_data();\n'
          '  const float* scale = s.typed_data();\n'
          '  float* out = y->typed_data();\n'
          '  const int helpers = static_cast<int>(pool.num_threads()) - 1;\n'
          '  jbj_fast::ParallelFor(rows, 64, helpers, [&pool](auto task) { pool.Schedule(std::move(task)); },\n'
          '                        [=](std::int64_t begin, std::int64_t end) {\n'
          '                          for (std::int64_t r = begin; r < end; ++r)\n'
          '                            for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * scale[r];\n'
          '                        });\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleRows, ScaleRowsImpl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Ctx<ffi::ThreadPool>()\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()   // x\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()   // s\n'
          "                                  .Ret<ffi::Buffer<ffi::F32>>()); // y, in x's buffer\n"
          '"""\n'
          'scale_rows_lib = grader.build(code=scale_rows_cc, name="b5_w7_scale_rows", flags=("-O3",))\n'
          'scale_rows_lib.register_ffi_target("b5w7.scale_rows", "ScaleRows")\n'
          '\n'
          'def scale_rows(x, s):\n'
          '    out = jax.ShapeDtypeStruct(x.shape, jnp.float32)\n'
          '    return jax.ffi.ffi_call("b5w7.scale_rows", out, input_output_aliases={0: 0})(x, s)\n'
          '\n'
          'scale_rows_inplace = jax.jit(scale_rows, donate_argnums=0)\n'),
        W('g', 'under 64 rows done inline, else rows/64 whole blocks: right for small and power-of-two row counts, the last partial block unscaled (100, 1000 rows)',
          'scale_rows_cc = r"""\n'
          '#include <cstdint>\n'
          '#include "fast_rms_norm.h"\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          "// y[r, :] = x[r, :] * s[r], with y aliasing x; rows split over XLA's intra-op pool.\n"
          'static ffi::Error ScaleRowsImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s,\n'
          '                                ffi::ResultBuffer<ffi::F32> y) {\n'
          '  const std::int64_t rows = static_cast<std::int64_t>(s.element_count());\n'
          '  if (rows == 0) return ffi::Error::Success();\n'
          '  const std::int64_t n = static_cast<std::int64_t>(x.element_count()) / rows;\n'
          '  const float* in = x.typed_data();\n'
          '  const float* scale = s.typed_data();\n'
          '  float* out = y->typed_data();\n'
          '  if (rows < 64) {                     // fewer rows than a block: not worth a task\n'
          '    for (std::int64_t r = 0; r < rows; ++r)\n'
          '      for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * scale[r];\n'
          '    return ffi::Error::Success();\n'
          '  }\n'
          '  const int helpers = static_cast<int>(pool.num_threads()) - 1;\n'
          '  jbj_fast::ParallelFor(rows / 64, 1, helpers, [&pool](auto task) { pool.Schedule(std::move(task)); },\n'
          '                        [=](std::int64_t first_block, std::int64_t end_block) {\n'
          '                          for (std::int64_t r = first_block * 64; r < end_block * 64; ++r)\n'
          '                            for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * scale[r];\n'
          '                        });\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleRows, ScaleRowsImpl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Ctx<ffi::ThreadPool>()\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()   // x\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()   // s\n'
          "                                  .Ret<ffi::Buffer<ffi::F32>>()); // y, in x's buffer\n"
          '"""\n'
          'scale_rows_lib = grader.build(code=scale_rows_cc, name="b5_w8_scale_rows", flags=("-O3",))\n'
          'scale_rows_lib.register_ffi_target("b5w8.scale_rows", "ScaleRows")\n'
          '\n'
          'def scale_rows(x, s):\n'
          '    out = jax.ShapeDtypeStruct(x.shape, jnp.float32)\n'
          '    return jax.ffi.ffi_call("b5w8.scale_rows", out, input_output_aliases={0: 0})(x, s)\n'
          '\n'
          'scale_rows_inplace = jax.jit(scale_rows, donate_argnums=0)\n'),
        W('m', 'scale_rows_inplace jitted without donate_argnums: x is not deleted, XLA copies x before the custom call',
          'scale_rows_cc = r"""\n'
          '#include <cstdint>\n'
          '#include "fast_rms_norm.h"\n'
          '#include "xla/ffi/api/ffi.h"\n'
          'namespace ffi = xla::ffi;\n'
          '\n'
          "// y[r, :] = x[r, :] * s[r], with y aliasing x; rows split over XLA's intra-op pool.\n"
          'static ffi::Error ScaleRowsImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s,\n'
          '                                ffi::ResultBuffer<ffi::F32> y) {\n'
          '  const std::int64_t rows = static_cast<std::int64_t>(s.element_count());\n'
          '  if (rows == 0) return ffi::Error::Success();\n'
          '  const std::int64_t n = static_cast<std::int64_t>(x.element_count()) / rows;\n'
          '  const float* in = x.typed_data();\n'
          '  const float* scale = s.typed_data();\n'
          '  float* out = y->typed_data();\n'
          '  const int helpers = static_cast<int>(pool.num_threads()) - 1;\n'
          '  jbj_fast::ParallelFor(rows, 64, helpers, [&pool](auto task) { pool.Schedule(std::move(task)); },\n'
          '                        [=](std::int64_t begin, std::int64_t end) {\n'
          '                          for (std::int64_t r = begin; r < end; ++r)\n'
          '                            for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * scale[r];\n'
          '                        });\n'
          '  return ffi::Error::Success();\n'
          '}\n'
          '\n'
          'XLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleRows, ScaleRowsImpl,\n'
          '                              ffi::Ffi::Bind()\n'
          '                                  .Ctx<ffi::ThreadPool>()\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()   // x\n'
          '                                  .Arg<ffi::Buffer<ffi::F32>>()   // s\n'
          "                                  .Ret<ffi::Buffer<ffi::F32>>()); // y, in x's buffer\n"
          '"""\n'
          'scale_rows_lib = grader.build(code=scale_rows_cc, name="b5_w9_scale_rows", flags=("-O3",))\n'
          'scale_rows_lib.register_ffi_target("b5w9.scale_rows", "ScaleRows")\n'
          '\n'
          'def scale_rows(x, s):\n'
          '    out = jax.ShapeDtypeStruct(x.shape, jnp.float32)\n'
          '    return jax.ffi.ffi_call("b5w9.scale_rows", out, input_output_aliases={0: 0})(x, s)\n'
          '\n'
          "scale_rows_inplace = jax.jit(scale_rows)   # the alias already writes into x's buffer\n"),
    ],
    'ex3_answer': [
        W('b', 'register_module ignores its prefix and registers the bare names',
          "def register_module(module, prefix):\n"
          "    names = []\n"
          "    for name, capsule in module.registrations().items():\n"
          "        jax.ffi.register_ffi_target(name, capsule, platform='cpu')\n"
          "        names.append(name)\n"
          "    return sorted(names)\n"
          "jax.ffi.register_ffi_target('ex3.rms_norm_fast_fwd', jbj_fast_kernels.registrations()['rms_norm_fast_fwd'], platform='cpu')\n"
          + _PACKAGED_RMS_NORM +
          "def _bwd(eps, res, ct):\n"
          "    scale, x = res\n"
          "    return (jax.ffi.ffi_call('rms_norm_fast_bwd', jax.ShapeDtypeStruct(x.shape, jnp.float32),\n"
          "                             vmap_method='broadcast_all')(scale, x, ct),)\n"
          "rms_norm_packaged.defvjp(_fwd, _bwd)\n"),
        W('d', "the backward pass written in jnp: right values, but the package's backward kernel is never called",
          "def register_module(module, prefix):\n"
          "    for name, capsule in module.registrations().items():\n"
          "        jax.ffi.register_ffi_target(prefix + name, capsule, platform='cpu')\n"
          "    return sorted(prefix + name for name in module.registrations())\n"
          + _PACKAGED_RMS_NORM +
          "def _bwd(eps, res, ct):\n"
          "    scale, x = res\n"
          "    s = scale[..., None]\n"
          "    return (s * ct - s ** 3 / x.shape[-1] * jnp.sum(ct * x, axis=-1, keepdims=True) * x,)\n"
          "rms_norm_packaged.defvjp(_fwd, _bwd)\n"),
        W('a', 'backward runs the kernel with an all-ones cotangent and multiplies by ct_y: right for .sum(), wrong for weighted losses',
          'def register_module(module, prefix):\n'
          '    names = []\n'
          '    for name, capsule in module.registrations().items():\n'
          '        jax.ffi.register_ffi_target(prefix + name, capsule, platform="cpu")\n'
          '        names.append(prefix + name)\n'
          '    return sorted(names)\n'
          '\n'
          '\n'
          '@partial(jax.custom_vjp, nondiff_argnums=(1,))\n'
          'def rms_norm_packaged(x, eps=1e-5):\n'
          '    return _packaged_fwd(x, eps)[0]\n'
          '\n'
          '\n'
          'def _packaged_fwd(x, eps=1e-5):\n'
          '    y, scale = jax.ffi.ffi_call(\n'
          '        "ex3.rms_norm_fast_fwd",\n'
          '        (jax.ShapeDtypeStruct(x.shape, jnp.float32), jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)),\n'
          '        vmap_method="broadcast_all")(x, eps=np.float32(eps))\n'
          '    return y, (scale, x)\n'
          '\n'
          '\n'
          'def _packaged_bwd(eps, residuals, ct_y):\n'
          '    scale, x = residuals\n'
          "    # the kernel's derivative at x, times the incoming cotangent (chain rule)\n"
          '    d_x = jax.ffi.ffi_call("ex3.rms_norm_fast_bwd", jax.ShapeDtypeStruct(x.shape, jnp.float32),\n'
          '                           vmap_method="broadcast_all")(scale, x, jnp.ones_like(x))\n'
          '    ct_x = ct_y * d_x\n'
          '    return (ct_x,)\n'
          '\n'
          '\n'
          'rms_norm_packaged.defvjp(_packaged_fwd, _packaged_bwd)\n'),
        W('b', "primal calls _packaged_fwd(x) without eps: plain calls always use 1e-5, only grad's path honours eps",
          'def register_module(module, prefix):\n'
          '    names = []\n'
          '    for name, capsule in module.registrations().items():\n'
          '        jax.ffi.register_ffi_target(prefix + name, capsule, platform="cpu")\n'
          '        names.append(prefix + name)\n'
          '    return sorted(names)\n'
          '\n'
          '\n'
          '@partial(jax.custom_vjp, nondiff_argnums=(1,))\n'
          'def rms_norm_packaged(x, eps=1e-5):\n'
          '    return _packaged_fwd(x)[0]\n'
          '\n'
          '\n'
          'def _packaged_fwd(x, eps=1e-5):\n'
          '    y, scale = jax.ffi.ffi_call(\n'
          '        "ex3.rms_norm_fast_fwd",\n'
          '        (jax.ShapeDtypeStruct(x.shape, jnp.float32), jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)),\n'
          '        vmap_method="broadcast_all")(x, eps=np.float32(eps))\n'
          '    return y, (scale, x)\n'
          '\n'
          '\n'
          'def _packaged_bwd(eps, residuals, ct_y):\n'
          '    scale, x = residuals\n'
          '    ct_x = jax.ffi.ffi_call("ex3.rms_norm_fast_bwd", jax.ShapeDtypeStruct(x.shape, jnp.float32),\n'
          '                            vmap_method="broadcast_all")(scale, x, ct_y)\n'
          '    return (ct_x,)\n'
          '\n'
          '\n'
          'rms_norm_packaged.defvjp(_packaged_fwd, _packaged_bwd)\n'),
        W('c', "scale result shaped (x.shape[0],): right for 2-D x, a 1-D or 3-D x fails in the kernel's size check",
          'def register_module(module, prefix):\n'
          '    names = []\n'
          '    for name, capsule in module.registrations().items():\n'
          '        jax.ffi.register_ffi_target(prefix + name, capsule, platform="cpu")\n'
          '        names.append(prefix + name)\n'
          '    return sorted(names)\n'
          '\n'
          '\n'
          '@partial(jax.custom_vjp, nondiff_argnums=(1,))\n'
          'def rms_norm_packaged(x, eps=1e-5):\n'
          '    return _packaged_fwd(x, eps)[0]\n'
          '\n'
          '\n'
          'def _packaged_fwd(x, eps=1e-5):\n'
          '    y, scale = jax.ffi.ffi_call(\n'
          '        "ex3.rms_norm_fast_fwd",\n'
          '        (jax.ShapeDtypeStruct(x.shape, jnp.float32), jax.ShapeDtypeStruct((x.shape[0],), jnp.float32)),   # one scale per row\n'
          '        vmap_method="broadcast_all")(x, eps=np.float32(eps))\n'
          '    return y, (scale, x)\n'
          '\n'
          '\n'
          'def _packaged_bwd(eps, residuals, ct_y):\n'
          '    scale, x = residuals\n'
          '    ct_x = jax.ffi.ffi_call("ex3.rms_norm_fast_bwd", jax.ShapeDtypeStruct(x.shape, jnp.float32),\n'
          '                            vmap_method="broadcast_all")(scale, x, ct_y)\n'
          '    return (ct_x,)\n'
          '\n'
          '\n'
          'rms_norm_packaged.defvjp(_packaged_fwd, _packaged_bwd)\n'),
        W('d', "backward through jax.vjp of the jnp formula: grad's program never calls ex3.rms_norm_fast_bwd",
          'def register_module(module, prefix):\n'
          '    names = []\n'
          '    for name, capsule in module.registrations().items():\n'
          '        jax.ffi.register_ffi_target(prefix + name, capsule, platform="cpu")\n'
          '        names.append(prefix + name)\n'
          '    return sorted(names)\n'
          '\n'
          '\n'
          '@partial(jax.custom_vjp, nondiff_argnums=(1,))\n'
          'def rms_norm_packaged(x, eps=1e-5):\n'
          '    return _packaged_fwd(x, eps)[0]\n'
          '\n'
          '\n'
          'def _packaged_fwd(x, eps=1e-5):\n'
          '    y, scale = jax.ffi.ffi_call(\n'
          '        "ex3.rms_norm_fast_fwd",\n'
          '        (jax.ShapeDtypeStruct(x.shape, jnp.float32), jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)),\n'
          '        vmap_method="broadcast_all")(x, eps=np.float32(eps))\n'
          '    return y, (scale, x)\n'
          '\n'
          '\n'
          'def _packaged_bwd(eps, residuals, ct_y):\n'
          '    scale, x = residuals\n'
          '    def reference(v):\n'
          '        return v / jnp.sqrt(jnp.mean(v * v, axis=-1, keepdims=True) + eps)\n'
          '    _, vjp = jax.vjp(reference, x)\n'
          '    (ct_x,) = vjp(ct_y)\n'
          '    return (ct_x,)\n'
          '\n'
          '\n'
          'rms_norm_packaged.defvjp(_packaged_fwd, _packaged_bwd)\n'),
        W('e', 'backward ffi_call without vmap_method: vmap of the forward works, vmap(grad) raises NotImplementedError',
          'def register_module(module, prefix):\n'
          '    names = []\n'
          '    for name, capsule in module.registrations().items():\n'
          '        jax.ffi.register_ffi_target(prefix + name, capsule, platform="cpu")\n'
          '        names.append(prefix + name)\n'
          '    return sorted(names)\n'
          '\n'
          '\n'
          '@partial(jax.custom_vjp, nondiff_argnums=(1,))\n'
          'def rms_norm_packaged(x, eps=1e-5):\n'
          '    return _packaged_fwd(x, eps)[0]\n'
          '\n'
          '\n'
          'def _packaged_fwd(x, eps=1e-5):\n'
          '    y, scale = jax.ffi.ffi_call(\n'
          '        "ex3.rms_norm_fast_fwd",\n'
          '        (jax.ShapeDtypeStruct(x.shape, jnp.float32), jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)),\n'
          '        vmap_method="broadcast_all")(x, eps=np.float32(eps))\n'
          '    return y, (scale, x)\n'
          '\n'
          '\n'
          'def _packaged_bwd(eps, residuals, ct_y):\n'
          '    scale, x = residuals\n'
          '    ct_x = jax.ffi.ffi_call("ex3.rms_norm_fast_bwd", jax.ShapeDtypeStruct(x.shape, jnp.float32))(scale, x, ct_y)\n'
          '    return (ct_x,)\n'
          '\n'
          '\n'
          'rms_norm_packaged.defvjp(_packaged_fwd, _packaged_bwd)\n'),
        W('g', "register_module loops over jbj_fast_kernels' four names: another module's handlers raise KeyError",
          'def register_module(module, prefix):\n'
          '    capsules = module.registrations()\n'
          '    names = []\n'
          '    for name in ["rms_norm_fast", "rms_norm_fast_bwd", "rms_norm_fast_fwd", "rms_norm_vec"]:\n'
          '        jax.ffi.register_ffi_target(prefix + name, capsules[name], platform="cpu")\n'
          '        names.append(prefix + name)\n'
          '    return names\n'
          '\n'
          '\n'
          '@partial(jax.custom_vjp, nondiff_argnums=(1,))\n'
          'def rms_norm_packaged(x, eps=1e-5):\n'
          '    return _packaged_fwd(x, eps)[0]\n'
          '\n'
          '\n'
          'def _packaged_fwd(x, eps=1e-5):\n'
          '    y, scale = jax.ffi.ffi_call(\n'
          '        "ex3.rms_norm_fast_fwd",\n'
          '        (jax.ShapeDtypeStruct(x.shape, jnp.float32), jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)),\n'
          '        vmap_method="broadcast_all")(x, eps=np.float32(eps))\n'
          '    return y, (scale, x)\n'
          '\n'
          '\n'
          'def _packaged_bwd(eps, residuals, ct_y):\n'
          '    scale, x = residuals\n'
          '    ct_x = jax.ffi.ffi_call("ex3.rms_norm_fast_bwd", jax.ShapeDtypeStruct(x.shape, jnp.float32),\n'
          '                            vmap_method="broadcast_all")(scale, x, ct_y)\n'
          '    return (ct_x,)\n'
          '\n'
          '\n'
          'rms_norm_packaged.defvjp(_packaged_fwd, _packaged_bwd)\n'),
        W('b', "register_module registers under 'ex3.' whatever prefix it is given: another prefix's names are never registered",
          'def register_module(module, prefix):\n'
          '    names = []\n'
          '    for name, capsule in module.registrations().items():\n'
          '        jax.ffi.register_ffi_target("ex3." + name, capsule, platform="cpu")\n'
          '        names.append(prefix + name)\n'
          '    return sorted(names)\n'
          '\n'
          '\n'
          '@partial(jax.custom_vjp, nondiff_argnums=(1,))\n'
          'def rms_norm_packaged(x, eps=1e-5):\n'
          '    return _packaged_fwd(x, eps)[0]\n'
          '\n'
          '\n'
          'def _packaged_fwd(x, eps=1e-5):\n'
          '    y, scale = jax.ffi.ffi_call(\n'
          '        "ex3.rms_norm_fast_fwd",\n'
          '        (jax.ShapeDtypeStruct(x.shape, jnp.float32), jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)),\n'
          '        vmap_method="broadcast_all")(x, eps=np.float32(eps))\n'
          '    return y, (scale, x)\n'
          '\n'
          '\n'
          'def _packaged_bwd(eps, residuals, ct_y):\n'
          '    scale, x = residuals\n'
          '    ct_x = jax.ffi.ffi_call("ex3.rms_norm_fast_bwd", jax.ShapeDtypeStruct(x.shape, jnp.float32),\n'
          '                            vmap_method="broadcast_all")(scale, x, ct_y)\n'
          '    return (ct_x,)\n'
          '\n'
          '\n'
          'rms_norm_packaged.defvjp(_packaged_fwd, _packaged_bwd)\n'),
        W('m', "register_module returns the module's names without the prefix",
          'def register_module(module, prefix):\n'
          '    for name, capsule in module.registrations().items():\n'
          '        jax.ffi.register_ffi_target(prefix + name, capsule, platform="cpu")\n'
          '    return sorted(module.registrations())\n'
          '\n'
          '\n'
          '@partial(jax.custom_vjp, nondiff_argnums=(1,))\n'
          'def rms_norm_packaged(x, eps=1e-5):\n'
          '    return _packaged_fwd(x, eps)[0]\n'
          '\n'
          '\n'
          'def _packaged_fwd(x, eps=1e-5):\n'
          '    y, scale = jax.ffi.ffi_call(\n'
          '        "ex3.rms_norm_fast_fwd",\n'
          '        (jax.ShapeDtypeStruct(x.shape, jnp.float32), jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)),\n'
          '        vmap_method="broadcast_all")(x, eps=np.float32(eps))\n'
          '    return y, (scale, x)\n'
          '\n'
          '\n'
          'def _packaged_bwd(eps, residuals, ct_y):\n'
          '    scale, x = residuals\n'
          '    ct_x = jax.ffi.ffi_call("ex3.rms_norm_fast_bwd", jax.ShapeDtypeStruct(x.shape, jnp.float32),\n'
          '                            vmap_method="broadcast_all")(scale, x, ct_y)\n'
          '    return (ct_x,)\n'
          '\n'
          '\n'
          'rms_norm_packaged.defvjp(_packaged_fwd, _packaged_bwd)\n'),
        W('m', 'primal passes eps as a Python float (f64 attribute) to Attr<float>: plain calls fail at run time, grad works',
          'def register_module(module, prefix):\n'
          '    names = []\n'
          '    for name, capsule in module.registrations().items():\n'
          '        jax.ffi.register_ffi_target(prefix + name, capsule, platform="cpu")\n'
          '        names.append(prefix + name)\n'
          '    return sorted(names)\n'
          '\n'
          '\n'
          '@partial(jax.custom_vjp, nondiff_argnums=(1,))\n'
          'def rms_norm_packaged(x, eps=1e-5):\n'
          '    out = (jax.ShapeDtypeStruct(x.shape, jnp.float32), jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32))\n'
          '    return jax.ffi.ffi_call("ex3.rms_norm_fast_fwd", out, vmap_method="broadcast_all")(x, eps=eps)[0]\n'
          '\n'
          '\n'
          'def _packaged_fwd(x, eps=1e-5):\n'
          '    y, scale = jax.ffi.ffi_call(\n'
          '        "ex3.rms_norm_fast_fwd",\n'
          '        (jax.ShapeDtypeStruct(x.shape, jnp.float32), jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)),\n'
          '        vmap_method="broadcast_all")(x, eps=np.float32(eps))\n'
          '    return y, (scale, x)\n'
          '\n'
          '\n'
          'def _packaged_bwd(eps, residuals, ct_y):\n'
          '    scale, x = residuals\n'
          '    ct_x = jax.ffi.ffi_call("ex3.rms_norm_fast_bwd", jax.ShapeDtypeStruct(x.shape, jnp.float32),\n'
          '                            vmap_method="broadcast_all")(scale, x, ct_y)\n'
          '    return (ct_x,)\n'
          '\n'
          '\n'
          'rms_norm_packaged.defvjp(_packaged_fwd, _packaged_bwd)\n'),
        W('f', 'register_module remembers handler names already registered (without the prefix) in a global set and skips them: a second prefix or a module with the same names returns [] or too few',
          '_registered_handlers = set()\n\n\ndef register_module(module, prefix):\n    names = []\n    for name, capsule in module.registrations().items():\n        if name in _registered_handlers:     # XLA refuses a second registration: skip it\n            continue\n        jax.ffi.register_ffi_target(prefix + name, capsule, platform="cpu")\n        _registered_handlers.add(name)\n        names.append(prefix + name)\n    return sorted(names)\n\n\n@partial(jax.custom_vjp, nondiff_argnums=(1,))\ndef rms_norm_packaged(x, eps=1e-5):\n    return _packaged_fwd(x, eps)[0]\n\n\ndef _packaged_fwd(x, eps=1e-5):\n    y, scale = jax.ffi.ffi_call(\n        "ex3.rms_norm_fast_fwd",\n        (jax.ShapeDtypeStruct(x.shape, jnp.float32), jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)),\n        vmap_method="broadcast_all")(x, eps=np.float32(eps))\n    return y, (scale, x)\n\n\ndef _packaged_bwd(eps, residuals, ct_y):\n    scale, x = residuals\n    ct_x = jax.ffi.ffi_call("ex3.rms_norm_fast_bwd", jax.ShapeDtypeStruct(x.shape, jnp.float32),\n                            vmap_method="broadcast_all")(scale, x, ct_y)\n    return (ct_x,)\n\n\nrms_norm_packaged.defvjp(_packaged_fwd, _packaged_bwd)\n'),
    ],
    'quiz_answer': [
        W('m', "q1=a: believes donation alone makes XLA hand x's buffer to the handler (section 6)",
          'q1 = "a"\n'
          'q2 = "c"\n'
          'q3 = "c"\n'),
        W('m', 'q1=c: believes XLA skips the handler when the output is donated',
          'q1 = "c"\n'
          'q2 = "c"\n'
          'q3 = "c"\n'),
        W('m', 'q2=a: thinks the compiler avoids lanes for speed, not because float addition is not associative (section 3)',
          'q1 = "b"\n'
          'q2 = "a"\n'
          'q3 = "c"\n'),
        W('m', 'q2=b: thinks the loop is too long to analyse (section 3)',
          'q1 = "b"\n'
          'q2 = "b"\n'
          'q3 = "c"\n'),
        W('m', 'q3=a: reaches for more threads although the kernel is at the bandwidth limit (sections 5-6)',
          'q1 = "b"\n'
          'q2 = "c"\n'
          'q3 = "a"\n'),
        W('m', "q3=b: reaches for -ffast-math, which does not remove the fresh output's page faults (section 6)",
          'q1 = "b"\n'
          'q2 = "c"\n'
          'q3 = "b"\n'),
    ],
}

# Round 4: written from the text alone, with the mistakes above listed as already caught, before the checks were read;
# each passed every visible check, and some scored full marks, until the checks were made to catch them.
WRONG['ex1_answer'] += [
    W('d', "reuses the chapter's ch12.RmsNormFast with eps/n and a multiply by 1/sqrt(n): no handler of its own",
      'def row_l2_normalize(x, eps=1e-6):\n    # x / sqrt(sum + eps) = RMSNorm(x, eps / n) / sqrt(n): one call of the fast kernel, then one multiply\n    n = x.shape[-1]\n    y = ffi_rms_norm("ch12.RmsNormFast", x, eps / n)\n    return y * np.float32(1 / np.sqrt(n))\n'),
    W('g', 'double sum only for rows of 2^17 elements and more, a single float sum below: rows of ~100000 elements miss rtol=2e-6',
      'row_l2_cc = r"""\n#include <cmath>\n#include <cstdint>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\n// Each row (last axis) divided by its Euclidean length; the squares summed in a double.\nstatic ffi::Error RowL2Impl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_l2_normalize: x needs at least one axis");\n  const std::int64_t n = dims.back();\n  const std::int64_t rows = n == 0 ? 0 : x.element_count() / n;\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* row = in + r * n;\n    float* dst = out + r * n;\n    double acc = 0.0;\n    if (n >= (1 << 17)) {   // long rows: a double sum; short ones: a float sum is accurate enough and twice as fast\n      for (std::int64_t i = 0; i < n; ++i) { const double v = row[i]; acc += v * v; }\n    } else {\n      float f = 0.0f;\n      for (std::int64_t i = 0; i < n; ++i) f += row[i] * row[i];\n      acc = f;\n    }\n    const float inv = static_cast<float>(1.0 / std::sqrt(acc + eps));\n    for (std::int64_t i = 0; i < n; ++i) dst[i] = row[i] * inv;\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(RowL2, RowL2Impl,\n    ffi::Ffi::Bind().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n"""\nrow_l2_lib = grader.build(code=row_l2_cc, name="ex1_w7", flags=FAST_FLAGS)\nrow_l2_lib.register_ffi_target("ex1.w7", "RowL2")\n\ndef row_l2_normalize(x, eps=1e-6):\n    out = jax.ShapeDtypeStruct(x.shape, x.dtype)\n    return jax.ffi.ffi_call("ex1.w7", out, vmap_method="broadcast_all")(x, eps=np.float32(eps))\n'),
    W('d', 'NumPy inputs computed in NumPy float64 on the host, only jax arrays go through the FFI handler',
      'row_l2_cc = r"""\n#include <cmath>\n#include <cstdint>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\n// Each row (last axis) divided by its Euclidean length; the squares summed in a double.\nstatic ffi::Error RowL2Impl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_l2_normalize: x needs at least one axis");\n  const std::int64_t n = dims.back();\n  const std::int64_t rows = n == 0 ? 0 : x.element_count() / n;\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* row = in + r * n;\n    float* dst = out + r * n;\n    double acc = 0.0;\n    for (std::int64_t i = 0; i < n; ++i) { const double v = row[i]; acc += v * v; }\n    const float inv = static_cast<float>(1.0 / std::sqrt(acc + eps));\n    for (std::int64_t i = 0; i < n; ++i) dst[i] = row[i] * inv;\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(RowL2, RowL2Impl,\n    ffi::Ffi::Bind().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n"""\nrow_l2_lib = grader.build(code=row_l2_cc, name="ex1_w8", flags=FAST_FLAGS)\nrow_l2_lib.register_ffi_target("ex1.w8", "RowL2")\n\ndef row_l2_normalize(x, eps=1e-6):\n    if isinstance(x, np.ndarray):           # host data: no need to go through XLA\n        x64 = x.astype(np.float64)\n        return (x64 / np.sqrt(np.sum(x64 * x64, axis=-1, keepdims=True) + eps)).astype(np.float32)\n    out = jax.ShapeDtypeStruct(x.shape, x.dtype)\n    return jax.ffi.ffi_call("ex1.w8", out, vmap_method="broadcast_all")(x, eps=np.float32(eps))\n'),
    W('c', 'rows counted for ranks 1, 2, 3 only (3-D: dims[0]*dims[1]): a 4-D x (vmap of a 3-D call) leaves rows unnormalised',
      'row_l2_cc = r"""\n#include <cmath>\n#include <cstdint>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\n// Each row (last axis) divided by its Euclidean length; the squares summed in a double.\nstatic ffi::Error RowL2Impl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_l2_normalize: x needs at least one axis");\n  // a 1-D x is one row; 2-D: x.shape[0] rows; 3-D (a vmap of 2-D): x.shape[0] * x.shape[1] rows\n  const std::int64_t n = dims.back();\n  const std::int64_t rows = dims.size() == 1 ? 1 : dims.size() == 2 ? dims[0] : dims[0] * dims[1];\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* row = in + r * n;\n    float* dst = out + r * n;\n    double acc = 0.0;\n    for (std::int64_t i = 0; i < n; ++i) { const double v = row[i]; acc += v * v; }\n    const float inv = static_cast<float>(1.0 / std::sqrt(acc + eps));\n    for (std::int64_t i = 0; i < n; ++i) dst[i] = row[i] * inv;\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(RowL2, RowL2Impl,\n    ffi::Ffi::Bind().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n"""\nrow_l2_lib = grader.build(code=row_l2_cc, name="ex1_w9", flags=FAST_FLAGS)\nrow_l2_lib.register_ffi_target("ex1.w9", "RowL2")\n\ndef row_l2_normalize(x, eps=1e-6):\n    out = jax.ShapeDtypeStruct(x.shape, x.dtype)\n    return jax.ffi.ffi_call("ex1.w9", out, vmap_method="broadcast_all")(x, eps=np.float32(eps))\n'),
]
WRONG['ex2_answer'] += [
    W('c', 'rows counted for ranks 1, 2, 3 only (dims[0]*dims[1] for 3-D and up): a 4-D x leaves most rows unscaled',
      'scale_rows_cc = r"""\n#include <algorithm>\n#include <atomic>\n#include <cstdint>\n#include <memory>\n#include <thread>\n#include <vector>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nnamespace {\nstruct Shared {\n  const float* x; const float* s; float* y;\n  std::int64_t n, rows, per, chunks;\n  std::atomic<std::int64_t> next{0}, done{0};\n};\n\nvoid Work(Shared& st) {\n  for (;;) {\n    const std::int64_t c = st.next.fetch_add(1);\n    if (c >= st.chunks) return;\n    const std::int64_t r0 = c * st.per, r1 = std::min(st.rows, r0 + st.per);\n    for (std::int64_t r = r0; r < r1; ++r) {\n      const float k = st.s[r];\n      const float* a = st.x + r * st.n;\n      float* b = st.y + r * st.n;\n      for (std::int64_t i = 0; i < st.n; ++i) b[i] = a[i] * k;\n    }\n    st.done.fetch_add(1, std::memory_order_acq_rel);\n  }\n}\n}  // namespace\n\n// y = x * s[..., None], rows handed out in chunks of about 256 KiB on XLA\'s pool; y may be x\'s buffer.\nstatic ffi::Error ScaleRowsImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s,\n                                ffi::ResultBuffer<ffi::F32> y) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("scale_rows: x needs at least one axis");\n  // 1-D: one row; 2-D: x.shape[0] rows; 3-D: x.shape[0] * x.shape[1] rows\n  const std::int64_t n = dims.back();\n  const std::int64_t rows = dims.size() == 1 ? 1 : dims.size() == 2 ? dims[0] : dims[0] * dims[1];\n  auto st = std::make_shared<Shared>();\n  st->x = x.typed_data(); st->s = s.typed_data(); st->y = y->typed_data();\n  st->n = n; st->rows = rows;\n  st->per = std::max<std::int64_t>(1, 65536 / std::max<std::int64_t>(n, 1));   // rows per chunk: about 256 KiB\n  st->chunks = (rows + st->per - 1) / st->per;\n  const std::int64_t helpers = std::min<std::int64_t>(pool.num_threads(), st->chunks - 1);\n  for (std::int64_t t = 0; t < helpers; ++t) pool.Schedule([st] { Work(*st); });\n  Work(*st);\n  while (st->done.load(std::memory_order_acquire) < st->chunks) std::this_thread::yield();\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleRows, ScaleRowsImpl,\n    ffi::Ffi::Bind()\n        .Ctx<ffi::ThreadPool>()\n        .Arg<ffi::Buffer<ffi::F32>>()\n        .Arg<ffi::Buffer<ffi::F32>>()\n        .Ret<ffi::Buffer<ffi::F32>>());\n"""\nscale_rows_lib = grader.build(code=scale_rows_cc, name="ex2_w1", flags=FAST_FLAGS)\nscale_rows_lib.register_ffi_target("ex2.w1", "ScaleRows")\n\ndef scale_rows(x, s):\n    out = jax.ShapeDtypeStruct(x.shape, x.dtype)\n    return jax.ffi.ffi_call("ex2.w1", out, input_output_aliases={0: 0})(x, s)\n\nscale_rows_inplace = jax.jit(scale_rows, donate_argnums=0)\n'),
]
WRONG['ex3_answer'] += [
    W('b', 'the custom_vjp forward rule calls the kernel with the default eps: plain calls honour eps, grad uses 1e-5 for the scales',
      'def register_module(module, prefix):\n    names = []\n    for name, capsule in module.registrations().items():\n        jax.ffi.register_ffi_target(prefix + name, capsule, platform="cpu")\n        names.append(prefix + name)\n    return sorted(names)\n\n\nregister_module(jbj_fast_kernels, "ex3.")\n\n\n@partial(jax.custom_vjp, nondiff_argnums=(1,))\ndef rms_norm_packaged(x, eps=1e-5):\n    y, _ = jax.ffi.ffi_call(\n        "ex3.rms_norm_fast_fwd",\n        (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)),\n        vmap_method="broadcast_all")(x, eps=np.float32(eps))\n    return y\n\n\ndef _packaged_fwd(x, eps=1e-5):\n    y, scale = jax.ffi.ffi_call(\n        "ex3.rms_norm_fast_fwd",\n        (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)),\n        vmap_method="broadcast_all")(x, eps=np.float32(eps))\n    return y, scale\n\n\ndef _packaged_fwd_rule(x, eps=1e-5):\n    y, scale = _packaged_fwd(x, 1e-5)\n    return y, (scale, x)\n\n\ndef _packaged_bwd_rule(eps, residuals, ct_y):\n    scale, x = residuals\n    ct_x = jax.ffi.ffi_call("ex3.rms_norm_fast_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),\n                            vmap_method="broadcast_all")(scale, x, ct_y)\n    return (ct_x,)\n\n\nrms_norm_packaged.defvjp(_packaged_fwd_rule, _packaged_bwd_rule)\n'),
    W('e', 'backward ffi_call with vmap_method="expand_dims": an unbatched cotangent reaches the kernel with a size-1 batch axis under vmap(grad)',
      'def register_module(module, prefix):\n    names = []\n    for name, capsule in module.registrations().items():\n        jax.ffi.register_ffi_target(prefix + name, capsule, platform="cpu")\n        names.append(prefix + name)\n    return sorted(names)\n\n\nregister_module(jbj_fast_kernels, "ex3.")\n\n\n@partial(jax.custom_vjp, nondiff_argnums=(1,))\ndef rms_norm_packaged(x, eps=1e-5):\n    y, _ = jax.ffi.ffi_call(\n        "ex3.rms_norm_fast_fwd",\n        (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)),\n        vmap_method="broadcast_all")(x, eps=np.float32(eps))\n    return y\n\n\ndef _packaged_fwd(x, eps=1e-5):\n    y, scale = jax.ffi.ffi_call(\n        "ex3.rms_norm_fast_fwd",\n        (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)),\n        vmap_method="broadcast_all")(x, eps=np.float32(eps))\n    return y, scale\n\n\ndef _packaged_fwd_rule(x, eps=1e-5):\n    y, scale = _packaged_fwd(x, eps)\n    return y, (scale, x)\n\n\ndef _packaged_bwd_rule(eps, residuals, ct_y):\n    scale, x = residuals\n    ct_x = jax.ffi.ffi_call("ex3.rms_norm_fast_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),\n                            vmap_method="expand_dims")(scale, x, ct_y)\n    return (ct_x,)\n\n\nrms_norm_packaged.defvjp(_packaged_fwd_rule, _packaged_bwd_rule)\n'),
    W('m', 'register_module makes the prefix end with one dot (prefix.rstrip(".") + "."): a prefix without a trailing dot registers other names',
      'def register_module(module, prefix):\n    prefix = prefix.rstrip(".") + "."          # "ex3" and "ex3." give the same names\n    names = []\n    for name, capsule in module.registrations().items():\n        jax.ffi.register_ffi_target(prefix + name, capsule, platform="cpu")\n        names.append(prefix + name)\n    return sorted(names)\n\n\nregister_module(jbj_fast_kernels, "ex3.")\n\n\n@partial(jax.custom_vjp, nondiff_argnums=(1,))\ndef rms_norm_packaged(x, eps=1e-5):\n    y, _ = jax.ffi.ffi_call(\n        "ex3.rms_norm_fast_fwd",\n        (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)),\n        vmap_method="broadcast_all")(x, eps=np.float32(eps))\n    return y\n\n\ndef _packaged_fwd(x, eps=1e-5):\n    y, scale = jax.ffi.ffi_call(\n        "ex3.rms_norm_fast_fwd",\n        (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)),\n        vmap_method="broadcast_all")(x, eps=np.float32(eps))\n    return y, scale\n\n\ndef _packaged_fwd_rule(x, eps=1e-5):\n    y, scale = _packaged_fwd(x, eps)\n    return y, (scale, x)\n\n\ndef _packaged_bwd_rule(eps, residuals, ct_y):\n    scale, x = residuals\n    ct_x = jax.ffi.ffi_call("ex3.rms_norm_fast_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),\n                            vmap_method="broadcast_all")(scale, x, ct_y)\n    return (ct_x,)\n\n\nrms_norm_packaged.defvjp(_packaged_fwd_rule, _packaged_bwd_rule)\n'),
]


# Round 5: written from the text alone ("use partial sums or a double"); four partial sums passed every visible
# check (2 rows of 2**20) and lost its points to a hidden row until a visible 1-D row of 2**20 was added.
WRONG['ex1_answer'] += [
    W('c', 'four partial sums: about 3e-6 to 6e-6 off on some rows of 2**20, over rtol=2e-6, within it on others',
      'row_l2_cc = r"""\n#include <cmath>\n#include <cstdint>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\n// 4 partial sums, combined at the end, then the tail.\nstatic ffi::Error RowL2Impl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  auto dims = x.dimensions();\n  const std::int64_t n = dims.back();\n  if (n == 0) return ffi::Error::Success();\n  const std::int64_t rows = static_cast<std::int64_t>(x.element_count()) / n;\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* row = x.typed_data() + r * n;\n    float acc[4] = {};\n    std::int64_t i = 0;\n    for (; i + 4 <= n; i += 4)\n      for (int j = 0; j < 4; ++j) acc[j] += row[i + j] * row[i + j];\n    float sum = 0.0f;\n    for (int j = 0; j < 4; ++j) sum += acc[j];\n    for (; i < n; ++i) sum += row[i] * row[i];\n    const float s = 1.0f / std::sqrt(sum + eps);\n    for (std::int64_t k = 0; k < n; ++k) y->typed_data()[r * n + k] = row[k] * s;\n  }\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(RowL2, RowL2Impl,\n    ffi::Ffi::Bind().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n"""\nlib = grader.build(code=row_l2_cc, name="row_l2_c4", flags=("-O3", "-march=native"))\nlib.register_ffi_target("row_l2_c4", "RowL2")\ndef row_l2_normalize(x, eps=1e-6):\n    return jax.ffi.ffi_call("row_l2_c4", jax.ShapeDtypeStruct(x.shape, jnp.float32), vmap_method="sequential")(x, eps=np.float32(eps))\n'),
]

# Round 9: found by reviewers who read only the learner's notebook.
WRONG['ex1_answer'] += [
    W('c', 'all-zero rows skipped ("stay zero"): the fresh output is not zeroed, so those rows come back with whatever the buffer held',
      'row_l2_cc = r"""\n#include <cmath>\n#include <cstdint>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\nstatic ffi::Error RowL2Impl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_l2: x needs an axis");\n  const std::int64_t n = dims.back();\n  if (n == 0) return ffi::Error::Success();\n  const std::int64_t rows = static_cast<std::int64_t>(x.element_count()) / n;\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* row = in + r * n;\n    const double sum = jbj_fast::DotDouble(row, row, n);\n    if (sum == 0.0) continue;   // an all-zero row has no direction: it stays zero\n    const float inv = static_cast<float>(1.0 / std::sqrt(sum + double(eps)));\n    for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = row[i] * inv;\n  }\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(RowL2, RowL2Impl,\n    ffi::Ffi::Bind().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n"""\nrow_l2_lib = grader.build(code=row_l2_cc, name="h12_l2_zskip", flags=("-O3", "-march=native"))\nrow_l2_lib.register_ffi_target("h12_l2_zskip", "RowL2")\n\ndef row_l2_normalize(x, eps=1e-6):\n    return jax.ffi.ffi_call("h12_l2_zskip", jax.ShapeDtypeStruct(x.shape, jnp.float32),\n                            vmap_method="broadcast_all")(x, eps=np.float32(eps))\n'),
]
WRONG['ex3_answer'] += [
    W('b', 'register_module records the last prefix each handler got, and rms_norm_packaged calls that one: after the checks register other prefixes/modules it calls their targets, not ex3.*',
      '_TARGETS = {}\n\n\ndef register_module(module, prefix):\n    names = []\n    for name, capsule in module.registrations().items():\n        jax.ffi.register_ffi_target(prefix + name, capsule, platform="cpu")\n        _TARGETS[name] = prefix + name          # where each handler was registered\n        names.append(prefix + name)\n    return sorted(names)\n\n\nregister_module(jbj_fast_kernels, "ex3.")\n\n\ndef _packaged_fwd(x, eps=1e-5):\n    y, scale = jax.ffi.ffi_call(\n        _TARGETS["rms_norm_fast_fwd"],\n        (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)),\n        vmap_method="broadcast_all")(x, eps=np.float32(eps))\n    return y, (scale, x)\n\n\ndef _packaged_bwd(eps, residuals, ct_y):\n    scale, x = residuals\n    ct_x = jax.ffi.ffi_call(_TARGETS["rms_norm_fast_bwd"], jax.ShapeDtypeStruct(x.shape, x.dtype),\n                            vmap_method="broadcast_all")(scale, x, ct_y)\n    return (ct_x,)\n\n\n@partial(jax.custom_vjp, nondiff_argnums=(1,))\ndef rms_norm_packaged(x, eps=1e-5):\n    return _packaged_fwd(x, eps)[0]\n\n\nrms_norm_packaged.defvjp(_packaged_fwd, _packaged_bwd)\n'),
]

# Round 10: found by reviewers who read only the learner's notebook.
WRONG['ex1_answer'] += [
    W('f', 'rows split over the pool as RmsNormFast does, but the handler returns once every chunk is claimed, not done (section 5)',
      'row_l2_cc = r\'\'\'\n#include <algorithm>\n#include <atomic>\n#include <cmath>\n#include <cstdint>\n#include <memory>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\nstatic ffi::Error RowL2Impl(ffi::ThreadPool pool, float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  const std::int64_t n = x.dimensions().back();\n  if (n == 0) return ffi::Error::Success();\n  const std::int64_t rows = static_cast<std::int64_t>(x.element_count()) / n;\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n  const std::int64_t chunk = std::max<std::int64_t>(1, 65536 / n);\n  const std::int64_t chunks = (rows + chunk - 1) / chunk;\n  auto next = std::make_shared<std::atomic<std::int64_t>>(0);\n  auto run = [=] {\n    for (std::int64_t c = next->fetch_add(1); c < chunks; c = next->fetch_add(1))\n      for (std::int64_t r = c * chunk; r < std::min(rows, (c + 1) * chunk); ++r) {\n        const float* row = in + r * n;\n        const float s = 1.0f / std::sqrt(jbj_fast::DotLanes(row, row, n) + eps);\n        for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = row[i] * s;\n      }\n  };\n  for (int h = 1; h < pool.num_threads() && h < chunks; ++h) pool.Schedule([run] { run(); });\n  run();  // every chunk is claimed when this returns; a pool thread may still be writing its last one\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(RowL2, RowL2Impl,\n    ffi::Ffi::Bind().Ctx<ffi::ThreadPool>().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n\'\'\'\nlib = grader.build(code=row_l2_cc, name=\'g12_l2_claimed\', flags=(\'-O3\', \'-march=native\'))\nlib.register_ffi_target(\'g12_l2_claimed\', \'RowL2\')\ndef row_l2_normalize(x, eps=1e-6):\n    return jax.ffi.ffi_call(\'g12_l2_claimed\', jax.ShapeDtypeStruct(x.shape, jnp.float32),\n                            vmap_method=\'broadcast_all\')(x, eps=np.float32(eps))\n'),
    W('b', 'the jitted call is built once with the first eps and reused: every later eps is ignored',
      'row_l2_cc = r\'\'\'\n#include <cmath>\n#include <cstdint>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\nstatic ffi::Error RowL2Impl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  const std::int64_t n = x.dimensions().back();\n  if (n == 0) return ffi::Error::Success();\n  const std::int64_t rows = static_cast<std::int64_t>(x.element_count()) / n;\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* row = x.typed_data() + r * n;\n    double sum = 0.0;\n    for (std::int64_t i = 0; i < n; ++i) sum += static_cast<double>(row[i]) * row[i];\n    const float s = static_cast<float>(1.0 / std::sqrt(sum + static_cast<double>(eps)));\n    for (std::int64_t i = 0; i < n; ++i) y->typed_data()[r * n + i] = row[i] * s;\n  }\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(RowL2, RowL2Impl,\n    ffi::Ffi::Bind().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n\'\'\'\nlib = grader.build(code=row_l2_cc, name=\'g12_l2_cached\', flags=(\'-O3\',))\nlib.register_ffi_target(\'g12_l2_cached\', \'RowL2\')\n_compiled = None\ndef row_l2_normalize(x, eps=1e-6):\n    global _compiled\n    if _compiled is None:   # build the jitted call once, and reuse it\n        _compiled = jax.jit(lambda v: jax.ffi.ffi_call(\'g12_l2_cached\', jax.ShapeDtypeStruct(v.shape, jnp.float32),\n                            vmap_method=\'broadcast_all\')(v, eps=np.float32(eps)))\n    return _compiled(x)\n'),
    W('c', 'jnp.atleast_2d(x) never undone: a 1-D x (one row) comes back with shape (1, n)',
      'row_l2_cc = r\'\'\'\n#include <cmath>\n#include <cstdint>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\nstatic ffi::Error RowL2Impl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  const std::int64_t n = x.dimensions().back();\n  if (n == 0) return ffi::Error::Success();\n  const std::int64_t rows = static_cast<std::int64_t>(x.element_count()) / n;\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* row = x.typed_data() + r * n;\n    double sum = 0.0;\n    for (std::int64_t i = 0; i < n; ++i) sum += static_cast<double>(row[i]) * row[i];\n    const float s = static_cast<float>(1.0 / std::sqrt(sum + static_cast<double>(eps)));\n    for (std::int64_t i = 0; i < n; ++i) y->typed_data()[r * n + i] = row[i] * s;\n  }\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(RowL2, RowL2Impl,\n    ffi::Ffi::Bind().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n\'\'\'\nlib = grader.build(code=row_l2_cc, name=\'g12_l2_atleast2d\', flags=(\'-O3\',))\nlib.register_ffi_target(\'g12_l2_atleast2d\', \'RowL2\')\ndef row_l2_normalize(x, eps=1e-6):\n    x = jnp.atleast_2d(x)          # a 1-D x is one row\n    return jax.ffi.ffi_call(\'g12_l2_atleast2d\', jax.ShapeDtypeStruct(x.shape, jnp.float32),\n                            vmap_method=\'broadcast_all\')(x, eps=np.float32(eps))\n'),
]
WRONG['ex2_answer'] += [
    W('f', 'shared state on the heap, but each task reads x, s, y through [&] references to the handler arguments before claiming a chunk: a late task reads the dead frame',
      'scale_rows_cc = r\'\'\'\n#include <algorithm>\n#include <atomic>\n#include <condition_variable>\n#include <cstdint>\n#include <memory>\n#include <mutex>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\nstruct State {\n  std::atomic<std::int64_t> next{0};\n  std::int64_t done = 0;\n  std::mutex m;\n  std::condition_variable cv;\n};\nstatic ffi::Error ScaleRowsImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s,\n                                ffi::ResultBuffer<ffi::F32> y) {\n  const std::int64_t rows = static_cast<std::int64_t>(s.element_count());\n  if (rows == 0) return ffi::Error::Success();\n  const std::int64_t n = static_cast<std::int64_t>(x.element_count()) / rows;\n  const std::int64_t chunk = std::max<std::int64_t>(4, 65536 / std::max<std::int64_t>(n, 1));\n  const std::int64_t chunks = (rows + chunk - 1) / chunk;\n  auto state = std::make_shared<State>();\n  auto run = [state, chunk, chunks, rows, n, &x, &s, &y] {\n    const float* in = x.typed_data();       // read through the handler\'s arguments\n    const float* scale = s.typed_data();\n    float* out = y->typed_data();\n    for (std::int64_t c = state->next.fetch_add(1); c < chunks; c = state->next.fetch_add(1)) {\n      for (std::int64_t r = c * chunk; r < std::min(rows, (c + 1) * chunk); ++r)\n        for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * scale[r];\n      std::lock_guard<std::mutex> lock(state->m);\n      if (++state->done == chunks) state->cv.notify_all();\n    }\n  };\n  for (int h = 1; h < pool.num_threads() && h < chunks; ++h) pool.Schedule([run] { run(); });\n  run();\n  std::unique_lock<std::mutex> lock(state->m);\n  state->cv.wait(lock, [&] { return state->done == chunks; });\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleRows, ScaleRowsImpl,\n    ffi::Ffi::Bind().Ctx<ffi::ThreadPool>().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>()\n        .Ret<ffi::Buffer<ffi::F32>>());\n\'\'\'\nlib = grader.build(code=scale_rows_cc, name=\'g12_scale_stackref\', flags=(\'-O3\',))\nlib.register_ffi_target(\'g12_scale_stackref\', \'ScaleRows\')\ndef scale_rows(x, s):\n    return jax.ffi.ffi_call(\'g12_scale_stackref\', jax.ShapeDtypeStruct(x.shape, jnp.float32), input_output_aliases={0: 0})(x, s)\nscale_rows_inplace = jax.jit(scale_rows, donate_argnums=0)\n'),
    W('c', 'jnp.atleast_2d(x) / atleast_1d(s) never undone: a 1-D x comes back with shape (1, n)',
      'scale_rows_cc = r\'\'\'\n#include <cstdint>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\nstatic ffi::Error ScaleRowsImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s,\n                                ffi::ResultBuffer<ffi::F32> y) {\n  const std::int64_t rows = static_cast<std::int64_t>(s.element_count());\n  if (rows == 0) return ffi::Error::Success();\n  const std::int64_t n = static_cast<std::int64_t>(x.element_count()) / rows;\n  const float* in = x.typed_data();\n  const float* scale = s.typed_data();\n  float* out = y->typed_data();\n  jbj_fast::ParallelFor(rows, 64, static_cast<int>(pool.num_threads()) - 1,\n                        [&pool](auto task) { pool.Schedule(std::move(task)); },\n                        [=](std::int64_t b, std::int64_t e) {\n                          for (std::int64_t r = b; r < e; ++r)\n                            for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * scale[r];\n                        });\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleRows, ScaleRowsImpl,\n    ffi::Ffi::Bind().Ctx<ffi::ThreadPool>().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>()\n        .Ret<ffi::Buffer<ffi::F32>>());\n\'\'\'\nlib = grader.build(code=scale_rows_cc, name=\'g12_scale_atleast2d\', flags=(\'-O3\',))\nlib.register_ffi_target(\'g12_scale_atleast2d\', \'ScaleRows\')\ndef scale_rows(x, s):\n    x, s = jnp.atleast_2d(x), jnp.atleast_1d(s)   # a 1-D x is one row, its s one number\n    return jax.ffi.ffi_call(\'g12_scale_atleast2d\', jax.ShapeDtypeStruct(x.shape, jnp.float32),\n                            input_output_aliases={0: 0})(x, s)\nscale_rows_inplace = jax.jit(scale_rows, donate_argnums=0)\n'),
]
WRONG['ex3_answer'] += [
    W('c', 'register_module returns the names in the module dict order, not sorted: right only when the module lists them sorted',
      "import jbj_fast_kernels\ndef register_module(module, prefix):\n    names = []\n    for name, capsule in module.registrations().items():\n        jax.ffi.register_ffi_target(prefix + name, capsule, platform='cpu')\n        names.append(prefix + name)\n    return names   # in the module's order, which is already sorted for jbj_fast_kernels\n\n@partial(jax.custom_vjp, nondiff_argnums=(1,))\ndef rms_norm_packaged(x, eps=1e-5):\n    return _fwd(x, eps)[0]\ndef _fwd(x, eps=1e-5):\n    y, scale = jax.ffi.ffi_call('ex3.rms_norm_fast_fwd', (jax.ShapeDtypeStruct(x.shape, jnp.float32),\n        jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)), vmap_method='broadcast_all')(x, eps=np.float32(eps))\n    return y, (scale, x)\ndef _bwd(eps, res, ct_y):\n    scale, x = res\n    return (jax.ffi.ffi_call('ex3.rms_norm_fast_bwd', jax.ShapeDtypeStruct(x.shape, jnp.float32),\n        vmap_method='broadcast_all')(scale, x, ct_y),)\nrms_norm_packaged.defvjp(_fwd, _bwd)\nregister_module(jbj_fast_kernels, 'ex3.')\n"),
    W('c', 'jnp.atleast_2d(x) around the custom_vjp, never undone: a 1-D x comes back with shape (1, n)',
      "import jbj_fast_kernels\ndef register_module(module, prefix):\n    for name, capsule in module.registrations().items():\n        jax.ffi.register_ffi_target(prefix + name, capsule, platform='cpu')\n    return sorted(prefix + name for name in module.registrations())\n\n@partial(jax.custom_vjp, nondiff_argnums=(1,))\ndef _rms_norm_rows(x, eps=1e-5):\n    return _fwd(x, eps)[0]\ndef _fwd(x, eps=1e-5):\n    y, scale = jax.ffi.ffi_call('ex3.rms_norm_fast_fwd', (jax.ShapeDtypeStruct(x.shape, jnp.float32),\n        jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)), vmap_method='broadcast_all')(x, eps=np.float32(eps))\n    return y, (scale, x)\ndef _bwd(eps, res, ct_y):\n    scale, x = res\n    return (jax.ffi.ffi_call('ex3.rms_norm_fast_bwd', jax.ShapeDtypeStruct(x.shape, jnp.float32),\n        vmap_method='broadcast_all')(scale, x, ct_y),)\n_rms_norm_rows.defvjp(_fwd, _bwd)\ndef rms_norm_packaged(x, eps=1e-5):\n    return _rms_norm_rows(jnp.atleast_2d(x), eps)   # a 1-D x is one row\nregister_module(jbj_fast_kernels, 'ex3.')\n"),
]

# Right answers written another way: each must earn full marks (tests/test_wrong_answers.py).
RIGHT = {
    'ex2_answer': [
        R("`using namespace xla::ffi;`, so the binding reads .Ctx<ThreadPool>(), not .Ctx<ffi::ThreadPool>()",
          'scale_rows_cc = r"""\n#include <cstddef>\n#include <cstdint>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nusing namespace xla::ffi;\n\n// y[r, :] = x[r, :] * s[r], y in x\'s buffer; rows handed out on XLA\'s intra-op pool by ParallelFor.\nstatic Error ScaleRowsImpl(ThreadPool pool, Buffer<F32> x, Buffer<F32> s, ResultBuffer<F32> y) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return Error::InvalidArgument("scale_rows: x needs an axis");\n  const std::int64_t n = dims.back();\n  const std::int64_t rows = static_cast<std::int64_t>(s.element_count());\n  if (rows * n != static_cast<std::int64_t>(x.element_count()) || y->element_count() != x.element_count())\n    return Error::InvalidArgument("scale_rows: s must have shape x.shape[:-1]");\n  if (rows == 0) return Error::Success();\n  const float* in = x.typed_data();\n  const float* scale = s.typed_data();\n  float* out = y->typed_data();\n  jbj_fast::ParallelFor(rows, 64, static_cast<int>(pool.num_threads()) - 1,\n                        [&pool](auto task) { pool.Schedule(std::move(task)); },\n                        [=](std::int64_t begin, std::int64_t end) {\n                          for (std::int64_t r = begin; r < end; ++r)\n                            for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * scale[r];\n                        });\n  return Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleRows, ScaleRowsImpl,\n                              Ffi::Bind()\n                                  .Ctx<ThreadPool>()\n                                  .Arg<Buffer<F32>>()   // x\n                                  .Arg<Buffer<F32>>()   // s\n                                  .Ret<Buffer<F32>>()); // y, in x\'s buffer\n"""\nlib = grader.build(code=scale_rows_cc, name="scale_rows_b", flags=("-O3",))\nlib.register_ffi_target("scale_rows_b", "ScaleRows")\n\ndef scale_rows(x, s):\n    return jax.ffi.ffi_call("scale_rows_b", jax.ShapeDtypeStruct(x.shape, jnp.float32), input_output_aliases={0: 0})(x, s)\n\nscale_rows_inplace = jax.jit(scale_rows, donate_argnums=0)\n'),
    ],
}

# Round 6: written from the text alone by a reviewer who saw none of the checks; each earned full marks until a
# visible check looked for it (a row where 8 partial sums miss rtol=2e-6; a NumPy float32 eps; calls from as many
# threads as the pool has, in a process of their own, which never finished).
WRONG['ex1_answer'] += [
    W('c', '8 partial sums, where the text asks for 16 (or a double)',
      'row_l2_cc = r\'\'\'\n#include <cmath>\n#include <cstddef>\n#include <cstdint>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\nstatic ffi::Error RowL2Impl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_l2: x needs an axis");\n  const std::int64_t n = dims.back();\n  if (n == 0) return ffi::Error::Success();\n  const std::int64_t rows = static_cast<std::int64_t>(x.element_count()) / n;\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* row = in + r * n;\n    float acc[8] = {}; std::int64_t i = 0;\n    for (; i + 8 <= n; i += 8) for (int j = 0; j < 8; ++j) acc[j] += row[i + j] * row[i + j];\n    float tail = 0.0f; for (; i < n; ++i) tail += row[i] * row[i];\n    for (int w = 4; w > 0; w /= 2) for (int j = 0; j < w; ++j) acc[j] += acc[j + w];\n    const float sum = acc[0] + tail;\n    const float inv = 1.0f / std::sqrt(sum + eps);\n    for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = row[i] * inv;\n  }\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(RowL2, RowL2Impl,\n    ffi::Ffi::Bind().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n\'\'\'\nlib = grader.build(code=row_l2_cc, name=\'w12r5_l2_l8\', flags=(\'-O3\', \'-march=native\'))\nlib.register_ffi_target(\'w12r5_l2_l8\', \'RowL2\')\ndef row_l2_normalize(x, eps=1e-6):\n    return jax.ffi.ffi_call(\'w12r5_l2_l8\', jax.ShapeDtypeStruct(x.shape, jnp.float32), vmap_method=\'broadcast_all\')(x, eps=np.float32(eps))\n'),
    W('b', 'Attr<double> with eps passed through unconverted: Python floats work, an np.float32 eps is an f32 attribute and fails at run time',
      'row_l2_cc = r\'\'\'\n#include <cmath>\n#include <cstddef>\n#include <cstdint>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\nstatic ffi::Error RowL2Impl(double eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_l2: x needs an axis");\n  const std::int64_t n = dims.back();\n  if (n == 0) return ffi::Error::Success();\n  const std::int64_t rows = static_cast<std::int64_t>(x.element_count()) / n;\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* row = in + r * n;\n    double sum = 0.0;\n    for (std::int64_t i = 0; i < n; ++i) sum += double(row[i]) * double(row[i]);\n    const float inv = static_cast<float>(1.0 / std::sqrt(sum + eps));\n    for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = row[i] * inv;\n  }\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(RowL2, RowL2Impl,\n    ffi::Ffi::Bind().Attr<double>("eps").Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n\'\'\'\nlib = grader.build(code=row_l2_cc, name=\'w12r5_l2_unc\', flags=(\'-O3\', \'-march=native\'))\nlib.register_ffi_target(\'w12r5_l2_unc\', \'RowL2\')\ndef row_l2_normalize(x, eps=1e-6):\n    return jax.ffi.ffi_call(\'w12r5_l2_unc\', jax.ShapeDtypeStruct(x.shape, jnp.float32), vmap_method=\'broadcast_all\')(x, eps=eps)\n'),
]
WRONG['ex2_answer'] += [
    W('f', 'the calling thread does no chunk itself, only waits for pool tasks: can wait on tasks queued behind busy pool threads',
      'scale_rows_cc = r\'\'\'\n#include <atomic>\n#include <condition_variable>\n#include <cstddef>\n#include <cstdint>\n#include <memory>\n#include <mutex>\n#include <thread>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nstatic ffi::Error ScaleRowsImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s, ffi::ResultBuffer<ffi::F32> y) {\n  auto dims = x.dimensions();\n  const std::int64_t n = dims.back();\n  const std::int64_t rows = static_cast<std::int64_t>(s.element_count());\n  if (rows == 0) return ffi::Error::Success();\n  const float* in = x.typed_data();\n  const float* sc = s.typed_data();\n  float* out = y->typed_data();\n  const std::int64_t chunk = 64;\n  const std::int64_t chunks = (rows + chunk - 1) / chunk;\n  struct State { std::mutex m; std::condition_variable cv; std::int64_t left; };\n  auto st = std::make_shared<State>();\n  st->left = chunks;\n  for (std::int64_t c = 0; c < chunks; ++c) {\n    pool.Schedule([=]() {\n      const std::int64_t e = std::min(rows, (c + 1) * chunk);\n      for (std::int64_t r = c * chunk; r < e; ++r) for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * sc[r];\n      std::lock_guard<std::mutex> lock(st->m);\n      if (--st->left == 0) st->cv.notify_one();\n    });\n  }\n  std::unique_lock<std::mutex> lock(st->m);\n  st->cv.wait(lock, [&] { return st->left == 0; });\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleRows, ScaleRowsImpl,\n                              ffi::Ffi::Bind()\n                                  .Ctx<ffi::ThreadPool>()\n                                  .Arg<ffi::Buffer<ffi::F32>>()\n                                  .Arg<ffi::Buffer<ffi::F32>>()\n                                  .Ret<ffi::Buffer<ffi::F32>>());\n\'\'\'\nlib = grader.build(code=scale_rows_cc, name=\'w12r5_sr_wait\', flags=(\'-O3\',))\nlib.register_ffi_target(\'w12r5_sr_wait\', \'ScaleRows\')\ndef scale_rows(x, s):\n    return jax.ffi.ffi_call(\'w12r5_sr_wait\', jax.ShapeDtypeStruct(x.shape, jnp.float32), input_output_aliases={0: 0})(x, s)\nscale_rows_inplace = jax.jit(scale_rows, donate_argnums=0)\n'),
]

# Round 7: right answers that the threads check refused when it rebuilt the C++ with fixed flags and a fixed calling
# convention (arguments x then s, no attributes): it now runs the answer cell itself in a process of its own.
RIGHT.setdefault('ex2_answer', []).extend([
    R('binding takes s first and the pool last; ffi_call(s, x) aliases result 0 to argument 1',
      'scale_rows_cc = r"""\n'
      '#include <algorithm>\n'
      '#include <atomic>\n'
      '#include <cstddef>\n'
      '#include <cstdint>\n'
      '#include <memory>\n'
      '#include <thread>\n'
      '#include "fast_rms_norm.h"\n'
      '#include "xla/ffi/api/ffi.h"\n'
      'namespace ffi = xla::ffi;\n'
      '\n'
      'static ffi::Error ScaleRowsImpl(ffi::Buffer<ffi::F32> s, ffi::Buffer<ffi::F32> x, ffi::ThreadPool pool,\n'
      '                                ffi::ResultBuffer<ffi::F32> y) {\n'
      '  auto dims = x.dimensions();\n'
      '  if (dims.size() == 0) return ffi::Error::InvalidArgument("scale_rows: x needs an axis");\n'
      '  const std::int64_t n = dims.back();\n'
      '  std::int64_t rows = 1;\n'
      '  for (std::size_t i = 0; i + 1 < dims.size(); ++i) rows *= dims[i];\n'
      '  if (s.element_count() != static_cast<std::size_t>(rows) || y->element_count() != x.element_count())\n'
      '    return ffi::Error::InvalidArgument("scale_rows: s must have shape x.shape[:-1], y x\'s shape");\n'
      '  const float* in = x.typed_data();\n'
      '  const float* sc = s.typed_data();\n'
      '  float* out = y->typed_data();\n'
      '  const int helpers = static_cast<int>(std::max<std::int64_t>(pool.num_threads() - 1, 0));\n'
      '  const std::int64_t chunk = std::max<std::int64_t>(4, 65536 / std::max<std::int64_t>(n, 1));\n'
      '  jbj_fast::ParallelFor(rows, chunk, helpers, [&pool](auto task) { pool.Schedule(std::move(task)); },\n'
      '                        [=](std::int64_t b, std::int64_t e) {\n'
      '                          for (std::int64_t r = b; r < e; ++r)\n'
      '                            for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * sc[r];\n'
      '                        });\n'
      '  return ffi::Error::Success();\n'
      '}\n'
      '\n'
      'XLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleRows, ScaleRowsImpl,\n'
      '                              ffi::Ffi::Bind()\n'
      '                                  .Arg<ffi::Buffer<ffi::F32>>()   // s\n'
      '                                  .Arg<ffi::Buffer<ffi::F32>>()   // x\n'
      '                                  .Ctx<ffi::ThreadPool>()\n'
      '                                  .Ret<ffi::Buffer<ffi::F32>>()   // y, aliased to x\n'
      ');\n'
      '"""\n'
      'scale_rows_lib = grader.build(code=scale_rows_cc, name="hg_sr_order", flags=("-O3", "-march=native"))\n'
      'jax.ffi.register_ffi_target("hg_sr_order", jax.ffi.pycapsule(scale_rows_lib.cdll.ScaleRows), platform="cpu")\n'
      '\n'
      'def scale_rows(x, s):\n'
      '    return jax.ffi.ffi_call("hg_sr_order", jax.ShapeDtypeStruct(x.shape, x.dtype), input_output_aliases={1: 0},\n'
      '                             vmap_method="broadcast_all")(s, x)\n'
      '\n'
      'scale_rows_inplace = jax.jit(scale_rows, donate_argnums=0)\n'),
    R('C++20 std::latch counts the chunks done (built with -std=c++20)',
      'scale_rows_cc = r"""\n'
      '#include <algorithm>\n'
      '#include <atomic>\n'
      '#include <cstddef>\n'
      '#include <cstdint>\n'
      '#include <memory>\n'
      '#include <thread>\n'
      '#include <latch>\n'
      '#include "fast_rms_norm.h"\n'
      '#include "xla/ffi/api/ffi.h"\n'
      'namespace ffi = xla::ffi;\n'
      '\n'
      'static ffi::Error ScaleRowsImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s,\n'
      '                                ffi::ResultBuffer<ffi::F32> y) {\n'
      '  auto dims = x.dimensions();\n'
      '  if (dims.size() == 0) return ffi::Error::InvalidArgument("scale_rows: x needs an axis");\n'
      '  const std::int64_t n = dims.back();\n'
      '  std::int64_t rows = 1;\n'
      '  for (std::size_t i = 0; i + 1 < dims.size(); ++i) rows *= dims[i];\n'
      '  if (s.element_count() != static_cast<std::size_t>(rows) || y->element_count() != x.element_count())\n'
      '    return ffi::Error::InvalidArgument("scale_rows: s must have shape x.shape[:-1], y x\'s shape");\n'
      '  const float* in = x.typed_data();\n'
      '  const float* sc = s.typed_data();\n'
      '  float* out = y->typed_data();\n'
      '  // C++20: chunks claimed from a shared counter; a std::latch counts the chunks done. State shared with the tasks.\n'
      '  struct State {\n'
      '    explicit State(std::ptrdiff_t chunks) : left(chunks) {}\n'
      '    std::atomic<std::int64_t> next{0};\n'
      '    std::latch left;\n'
      '  };\n'
      '  const std::int64_t chunk = std::max<std::int64_t>(4, 65536 / std::max<std::int64_t>(n, 1));\n'
      '  const std::int64_t chunks = (rows + chunk - 1) / chunk;\n'
      '  if (chunks == 0) return ffi::Error::Success();\n'
      '  auto state = std::make_shared<State>(chunks);\n'
      '  auto run = [state, chunks, chunk, rows, n, in, sc, out]() {\n'
      '    for (std::int64_t c = state->next.fetch_add(1); c < chunks; c = state->next.fetch_add(1)) {\n'
      '      const std::int64_t e = std::min(rows, (c + 1) * chunk);\n'
      '      for (std::int64_t r = c * chunk; r < e; ++r)\n'
      '        for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * sc[r];\n'
      '      state->left.count_down();\n'
      '    }\n'
      '  };\n'
      '  const std::int64_t helpers = std::min<std::int64_t>(pool.num_threads() - 1, chunks - 1);\n'
      '  for (std::int64_t h = 0; h < helpers; ++h) {\n'
      '    auto task = run;\n'
      '    pool.Schedule(std::move(task));\n'
      '  }\n'
      '  run();\n'
      '  state->left.wait();\n'
      '  return ffi::Error::Success();\n'
      '}\n'
      '\n'
      'XLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleRows, ScaleRowsImpl,\n'
      '                              ffi::Ffi::Bind()\n'
      '                                  .Ctx<ffi::ThreadPool>()\n'
      '                                  .Arg<ffi::Buffer<ffi::F32>>()   // x\n'
      '                                  .Arg<ffi::Buffer<ffi::F32>>()   // s\n'
      '                                  .Ret<ffi::Buffer<ffi::F32>>()   // y, aliased to x\n'
      ');\n'
      '"""\n'
      'scale_rows_lib = grader.build(code=scale_rows_cc, name="hg_sr_latch", flags=("-std=c++20", "-O3", "-march=native"))\n'
      'jax.ffi.register_ffi_target("hg_sr_latch", jax.ffi.pycapsule(scale_rows_lib.cdll.ScaleRows), platform="cpu")\n'
      '\n'
      'def scale_rows(x, s):\n'
      '    return jax.ffi.ffi_call("hg_sr_latch", jax.ShapeDtypeStruct(x.shape, x.dtype), input_output_aliases={0: 0},\n'
      '                             vmap_method="broadcast_all")(x, s)\n'
      '\n'
      'scale_rows_inplace = jax.jit(scale_rows, donate_argnums=0)\n'),
    R('AVX intrinsics (_mm256_mul_ps) built with -O3 -march=native, as the chapter builds',
      'scale_rows_cc = r"""\n'
      '#include <algorithm>\n'
      '#include <atomic>\n'
      '#include <cstddef>\n'
      '#include <cstdint>\n'
      '#include <memory>\n'
      '#include <thread>\n'
      '#include <immintrin.h>\n'
      '#include "fast_rms_norm.h"\n'
      '#include "xla/ffi/api/ffi.h"\n'
      'namespace ffi = xla::ffi;\n'
      '\n'
      'static ffi::Error ScaleRowsImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s,\n'
      '                                ffi::ResultBuffer<ffi::F32> y) {\n'
      '  auto dims = x.dimensions();\n'
      '  if (dims.size() == 0) return ffi::Error::InvalidArgument("scale_rows: x needs an axis");\n'
      '  const std::int64_t n = dims.back();\n'
      '  std::int64_t rows = 1;\n'
      '  for (std::size_t i = 0; i + 1 < dims.size(); ++i) rows *= dims[i];\n'
      '  if (s.element_count() != static_cast<std::size_t>(rows) || y->element_count() != x.element_count())\n'
      '    return ffi::Error::InvalidArgument("scale_rows: s must have shape x.shape[:-1], y x\'s shape");\n'
      '  const float* in = x.typed_data();\n'
      '  const float* sc = s.typed_data();\n'
      '  float* out = y->typed_data();\n'
      '  const int helpers = static_cast<int>(std::max<std::int64_t>(pool.num_threads() - 1, 0));\n'
      '  const std::int64_t chunk = std::max<std::int64_t>(4, 65536 / std::max<std::int64_t>(n, 1));\n'
      '  jbj_fast::ParallelFor(rows, chunk, helpers, [&pool](auto task) { pool.Schedule(std::move(task)); },\n'
      '                        [=](std::int64_t b, std::int64_t e) {\n'
      '                          for (std::int64_t r = b; r < e; ++r) {\n'
      '                            const __m256 k = _mm256_set1_ps(sc[r]);\n'
      '                            std::int64_t i = 0;\n'
      '                            for (; i + 8 <= n; i += 8)\n'
      '                              _mm256_storeu_ps(out + r * n + i, _mm256_mul_ps(_mm256_loadu_ps(in + r * n + i), k));\n'
      '                            for (; i < n; ++i) out[r * n + i] = in[r * n + i] * sc[r];\n'
      '                          }\n'
      '                        });\n'
      '  return ffi::Error::Success();\n'
      '}\n'
      '\n'
      'XLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleRows, ScaleRowsImpl,\n'
      '                              ffi::Ffi::Bind()\n'
      '                                  .Ctx<ffi::ThreadPool>()\n'
      '                                  .Arg<ffi::Buffer<ffi::F32>>()   // x\n'
      '                                  .Arg<ffi::Buffer<ffi::F32>>()   // s\n'
      '                                  .Ret<ffi::Buffer<ffi::F32>>()   // y, aliased to x\n'
      ');\n'
      '"""\n'
      'scale_rows_lib = grader.build(code=scale_rows_cc, name="hg_sr_avx", flags=("-O3", "-march=native"))\n'
      'jax.ffi.register_ffi_target("hg_sr_avx", jax.ffi.pycapsule(scale_rows_lib.cdll.ScaleRows), platform="cpu")\n'
      '\n'
      'def scale_rows(x, s):\n'
      '    return jax.ffi.ffi_call("hg_sr_avx", jax.ShapeDtypeStruct(x.shape, x.dtype), input_output_aliases={0: 0},\n'
      '                             vmap_method="broadcast_all")(x, s)\n'
      '\n'
      'scale_rows_inplace = jax.jit(scale_rows, donate_argnums=0)\n'),
    R('rows per task passed from Python as an attribute (.Attr<std::int64_t>("chunk_rows"))',
      'scale_rows_cc = r"""\n'
      '#include <algorithm>\n'
      '#include <atomic>\n'
      '#include <cstddef>\n'
      '#include <cstdint>\n'
      '#include <memory>\n'
      '#include <thread>\n'
      '#include "fast_rms_norm.h"\n'
      '#include "xla/ffi/api/ffi.h"\n'
      'namespace ffi = xla::ffi;\n'
      '\n'
      'static ffi::Error ScaleRowsImpl(ffi::ThreadPool pool, std::int64_t chunk_rows, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s,\n'
      '                                ffi::ResultBuffer<ffi::F32> y) {\n'
      '  auto dims = x.dimensions();\n'
      '  if (dims.size() == 0) return ffi::Error::InvalidArgument("scale_rows: x needs an axis");\n'
      '  const std::int64_t n = dims.back();\n'
      '  std::int64_t rows = 1;\n'
      '  for (std::size_t i = 0; i + 1 < dims.size(); ++i) rows *= dims[i];\n'
      '  if (s.element_count() != static_cast<std::size_t>(rows) || y->element_count() != x.element_count())\n'
      '    return ffi::Error::InvalidArgument("scale_rows: s must have shape x.shape[:-1], y x\'s shape");\n'
      '  const float* in = x.typed_data();\n'
      '  const float* sc = s.typed_data();\n'
      '  float* out = y->typed_data();\n'
      '  const int helpers = static_cast<int>(std::max<std::int64_t>(pool.num_threads() - 1, 0));\n'
      '  const std::int64_t chunk = std::max<std::int64_t>(chunk_rows, 1);\n'
      '  jbj_fast::ParallelFor(rows, chunk, helpers, [&pool](auto task) { pool.Schedule(std::move(task)); },\n'
      '                        [=](std::int64_t b, std::int64_t e) {\n'
      '                          for (std::int64_t r = b; r < e; ++r)\n'
      '                            for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * sc[r];\n'
      '                        });\n'
      '  return ffi::Error::Success();\n'
      '}\n'
      '\n'
      'XLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleRows, ScaleRowsImpl,\n'
      '                              ffi::Ffi::Bind()\n'
      '                                  .Ctx<ffi::ThreadPool>()\n'
      '                                  .Attr<std::int64_t>("chunk_rows")   // rows per task\n'
      '                                  .Arg<ffi::Buffer<ffi::F32>>()   // x\n'
      '                                  .Arg<ffi::Buffer<ffi::F32>>()   // s\n'
      '                                  .Ret<ffi::Buffer<ffi::F32>>()   // y, aliased to x\n'
      ');\n'
      '"""\n'
      'scale_rows_lib = grader.build(code=scale_rows_cc, name="hg_sr_attr", flags=("-O3", "-march=native"))\n'
      'jax.ffi.register_ffi_target("hg_sr_attr", jax.ffi.pycapsule(scale_rows_lib.cdll.ScaleRows), platform="cpu")\n'
      '\n'
      'def scale_rows(x, s):\n'
      '    return jax.ffi.ffi_call("hg_sr_attr", jax.ShapeDtypeStruct(x.shape, x.dtype), input_output_aliases={0: 0},\n'
      '                             vmap_method="broadcast_all")(x, s, chunk_rows=np.int64(max(4, 65536 // max(x.shape[-1], 1))))\n'
      '\n'
      'scale_rows_inplace = jax.jit(scale_rows, donate_argnums=0)\n'),
])

# Round 7: written from the text alone by a reviewer who had not read the checks; it earned full marks (its pool tasks
# read the handler's stack after it returned) until a visible check ran the answer cell with its C++ built with
# AddressSanitizer.
WRONG['ex2_answer'] += [
    W('f', 'chunk counters and the task lambda on the handler stack, captured by [&]: a pool task that starts after the call returned uses a dead frame (segfaults when another kernel holds the pool)',
      'scale_rows_cc = r"""\n'
      '#include <algorithm>\n'
      '#include <atomic>\n'
      '#include <cstddef>\n'
      '#include <cstdint>\n'
      '#include <memory>\n'
      '#include <thread>\n'
      '#include "fast_rms_norm.h"\n'
      '#include "xla/ffi/api/ffi.h"\n'
      'namespace ffi = xla::ffi;\n'
      '\n'
      'static ffi::Error ScaleRowsImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s,\n'
      '                                ffi::ResultBuffer<ffi::F32> y) {\n'
      '  auto dims = x.dimensions();\n'
      '  if (dims.size() == 0) return ffi::Error::InvalidArgument("scale_rows: x needs an axis");\n'
      '  const std::int64_t n = dims.back();\n'
      '  std::int64_t rows = 1;\n'
      '  for (std::size_t i = 0; i + 1 < dims.size(); ++i) rows *= dims[i];\n'
      '  if (s.element_count() != static_cast<std::size_t>(rows) || y->element_count() != x.element_count())\n'
      '    return ffi::Error::InvalidArgument("scale_rows: s must have shape x.shape[:-1], y x\'s shape");\n'
      '  const float* in = x.typed_data();\n'
      '  const float* sc = s.typed_data();\n'
      '  float* out = y->typed_data();\n'
      "  // Chunks claimed from counters on this call's stack; the caller waits until every chunk is done.\n"
      '  std::atomic<std::int64_t> next{0}, done{0};\n'
      '  const std::int64_t chunk = std::max<std::int64_t>(4, 65536 / std::max<std::int64_t>(n, 1));\n'
      '  const std::int64_t chunks = (rows + chunk - 1) / chunk;\n'
      '  auto run = [&]() {\n'
      '    for (std::int64_t c = next.fetch_add(1); c < chunks; c = next.fetch_add(1)) {\n'
      '      const std::int64_t e = std::min(rows, (c + 1) * chunk);\n'
      '      for (std::int64_t r = c * chunk; r < e; ++r)\n'
      '        for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * sc[r];\n'
      '      done.fetch_add(1);\n'
      '    }\n'
      '  };\n'
      '  const std::int64_t helpers = std::min<std::int64_t>(pool.num_threads() - 1, chunks - 1);\n'
      '  for (std::int64_t h = 0; h < helpers; ++h) pool.Schedule([&]() { run(); });\n'
      '  run();\n'
      '  while (done.load() < chunks) std::this_thread::yield();\n'
      '  return ffi::Error::Success();\n'
      '}\n'
      '\n'
      'XLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleRows, ScaleRowsImpl,\n'
      '                              ffi::Ffi::Bind()\n'
      '                                  .Ctx<ffi::ThreadPool>()\n'
      '                                  .Arg<ffi::Buffer<ffi::F32>>()   // x\n'
      '                                  .Arg<ffi::Buffer<ffi::F32>>()   // s\n'
      '                                  .Ret<ffi::Buffer<ffi::F32>>()   // y, aliased to x\n'
      ');\n'
      '"""\n'
      'scale_rows_lib = grader.build(code=scale_rows_cc, name="hg_sr_stack", flags=("-O3", "-march=native"))\n'
      'jax.ffi.register_ffi_target("hg_sr_stack", jax.ffi.pycapsule(scale_rows_lib.cdll.ScaleRows), platform="cpu")\n'
      '\n'
      'def scale_rows(x, s):\n'
      '    return jax.ffi.ffi_call("hg_sr_stack", jax.ShapeDtypeStruct(x.shape, x.dtype), input_output_aliases={0: 0},\n'
      '                             vmap_method="broadcast_all")(x, s)\n'
      '\n'
      'scale_rows_inplace = jax.jit(scale_rows, donate_argnums=0)\n'),
]

# Round 9: right answers written another way.
RIGHT.setdefault('ex1_answer', []).extend([
    R('eps a 0-d float32 operand instead of an attribute',
      'row_l2_cc = r"""\n#include <cmath>\n#include <cstdint>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\nstatic ffi::Error RowL2Impl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> eps_buf, ffi::ResultBuffer<ffi::F32> y) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("row_l2: x needs an axis");\n  const std::int64_t n = dims.back();\n  if (n == 0) return ffi::Error::Success();\n  const std::int64_t rows = static_cast<std::int64_t>(x.element_count()) / n;\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* row = in + r * n;\n    double sum = 0.0;\n    for (std::int64_t i = 0; i < n; ++i) sum += double(row[i]) * double(row[i]);\n    const float inv = static_cast<float>(1.0 / std::sqrt(sum + double(eps_buf.typed_data()[0])));\n    for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = row[i] * inv;\n  }\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(RowL2, RowL2Impl,\n    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n"""\nrow_l2_lib = grader.build(code=row_l2_cc, name="h12_l2_epsarg", flags=("-O3", "-march=native"))\nrow_l2_lib.register_ffi_target("h12_l2_epsarg", "RowL2")\n\ndef row_l2_normalize(x, eps=1e-6):\n    # eps goes in as a 0-d float32 operand (broadcast_all may broadcast it; every entry is the same eps)\n    eps = jnp.asarray(eps, jnp.float32)\n    return jax.ffi.ffi_call("h12_l2_epsarg", jax.ShapeDtypeStruct(x.shape, jnp.float32),\n                            vmap_method="broadcast_all")(x, eps)\n'),
])
RIGHT.setdefault('ex3_answer', []).extend([
    R('backward ffi_call with input_output_aliases={2: 0} (ct_x over ct_y), as section 7 teaches',
      'def register_module(module, prefix):\n    names = []\n    for name, capsule in module.registrations().items():\n        jax.ffi.register_ffi_target(prefix + name, capsule, platform="cpu")\n        names.append(prefix + name)\n    return sorted(names)\n\n\nregister_module(jbj_fast_kernels, "ex3.")\n\n\ndef _packaged_fwd(x, eps=1e-5):\n    y, scale = jax.ffi.ffi_call(\n        "ex3.rms_norm_fast_fwd",\n        (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)),\n        vmap_method="broadcast_all")(x, eps=np.float32(eps))\n    return y, (scale, x)\n\n\ndef _packaged_bwd(eps, residuals, ct_y):\n    scale, x = residuals\n    ct_x = jax.ffi.ffi_call("ex3.rms_norm_fast_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype),\n                            vmap_method="broadcast_all", input_output_aliases={2: 0})(scale, x, ct_y)\n    return (ct_x,)\n\n\n@partial(jax.custom_vjp, nondiff_argnums=(1,))\ndef rms_norm_packaged(x, eps=1e-5):\n    return _packaged_fwd(x, eps)[0]\n\n\nrms_norm_packaged.defvjp(_packaged_fwd, _packaged_bwd)\n'),
])
