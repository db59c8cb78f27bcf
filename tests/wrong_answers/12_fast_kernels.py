"""Plausible wrong answers for 12_fast_kernels, per answer cell (see tests/wrong_answers/__init__.py)."""

from wrong_answers import W

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

WRONG = {
    'ex1_answer': [
        W("m", 'Not an FFI call at all: the jnp version XLA fuses (accurate, but not what was asked).',
          "def row_l2_normalize(x, eps=1e-6):\n"
          "    return x / jnp.sqrt(jnp.sum(x * x, axis=-1, keepdims=True) + eps)\n"),
        W("m", 'TODO',
          _l2_answer(_L2_SINGLE_SUM_CC, "ex1_single_sum")),
        W("m", 'TODO',
          _l2_answer(_L2_NO_TAIL_CC, "ex1_no_tail")),
    ],
    'ex2_answer': [
        W("m", 'Right values on the pool, but no input_output_aliases: XLA gives the result a new buffer.',
          _scale_rows_answer(_SCALE_ROWS_POOL_CC, "ex2_no_alias", aliases=False, donate=True)),
        W("m", 'TODO',
          _scale_rows_answer(_SCALE_ROWS_STD_THREAD_CC, "ex2_std_thread", aliases=True, donate=True)),
        W("m", "Aliased, but not donated: XLA must keep the caller's x, so it copies it first.",
          _scale_rows_answer(_SCALE_ROWS_POOL_CC, "ex2_no_donation", aliases=True, donate=False)),
    ],
    'ex3_answer': [
        W("m", 'Registers under the bare names, ignoring the prefix.',
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
        W("m", "The backward pass written in jnp: right values, but the package's backward kernel is never called.",
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
    ],
    'quiz_answer': [
        W("m", "q1: believes donation alone makes the handler write in place; q3: believes more threads help a kernel whose time is the fresh output's page faults.",
          'q1 = "a"\nq2 = "c"\nq3 = "c"\n'),
        W("m", 'TODO',
          'q1 = "b"\nq2 = "c"\nq3 = "a"\n'),
    ],
}

