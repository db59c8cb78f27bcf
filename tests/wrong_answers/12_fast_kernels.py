"""Plausible wrong answers for 12_fast_kernels, per answer cell (see tests/wrong_answers/__init__.py).

Exercises 1 and 3 were replaced (standardised rows, graded for speed against a plain pass; a gradient that recomputes
from x and writes over the cotangent): their answers are below, written from the new texts. Exercise 2 keeps its
answers, now checked with pool tasks that stall halfway or start late (cpp/pool_watch.cc).
"""

from wrong_answers import R, W


# Exercise 1 -----------------------------------------------------------------------------------
# standardize_rows(x, eps): (x - mean) / sqrt(mean((x - mean)**2) + eps) per row, one handler on the calling thread,
# accurate on rows of 2**20 and rows far from 0, at most 4x a plain pass. Each answer registers a target of its own.

# Sums of x - m (kSquared: of its squares) in 16 partial sums, as the reference computes them.
_STD_LANES = r'''
template <bool kSquared>
static float Sum(const float* x, std::int64_t n, float m) {
  float acc[16] = {};
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; ++j) { const float d = x[i + j] - m; acc[j] += kSquared ? d * d : d; }
  float tail = 0.0f;
  for (; i < n; ++i) tail += kSquared ? (x[i] - m) * (x[i] - m) : x[i] - m;
  for (int w = 8; w > 0; w /= 2) for (int j = 0; j < w; ++j) acc[j] += acc[j + w];
  return acc[0] + tail;
}
'''

# The same sums in one float each, one addition after another (chapter 11's way).
_STD_SERIAL = r'''
template <bool kSquared>
static float Sum(const float* x, std::int64_t n, float m) {
  float total = 0.0f;
  for (std::int64_t i = 0; i < n; ++i) total += kSquared ? (x[i] - m) * (x[i] - m) : x[i] - m;
  return total;
}
'''

# One double each: accurate, but still one chain of additions.
_STD_DOUBLE = r'''
template <bool kSquared>
static float Sum(const float* x, std::int64_t n, float m) {
  double total = 0.0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double d = double(x[i]) - double(m);
    total += kSquared ? d * d : d;
  }
  return float(total);
}
'''

# 16 partial sums, but the elements after the last full group of 16 never added.
_STD_NO_TAIL = r'''
template <bool kSquared>
static float Sum(const float* x, std::int64_t n, float m) {
  float acc[16] = {};
  for (std::int64_t i = 0; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; ++j) { const float d = x[i + j] - m; acc[j] += kSquared ? d * d : d; }
  for (int w = 8; w > 0; w /= 2) for (int j = 0; j < w; ++j) acc[j] += acc[j + w];
  return acc[0];
}
'''

_STD_BODY = r'''
    const float mean = row[0] + Sum<false>(row, n, row[0]) / float(n);
    const float s = 1.0f / std::sqrt(Sum<true>(row, n, mean) / float(n) + eps);
    for (std::int64_t i = 0; i < n; ++i) out[i] = (row[i] - mean) * s;
'''

_STD_FRAME = r'''
#include <cmath>
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;
SUMS
static ffi::Error StandardizeImpl(float eps, BUFFER x, ffi::ResultBuffer<ffi::F32> y) {
  auto dims = x.dimensions();
  if (dims.size() == 0) return ffi::Error::InvalidArgument("standardize_rows: x needs an axis");
  const std::int64_t n = dims.back();
  if (n == 0) return ffi::Error::Success();
  const std::int64_t rows = ROWS;
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = x.typed_data() + r * n;
    float* out = y->typed_data() + r * n;
BODY
  }
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(Standardize, StandardizeImpl,
    ffi::Ffi::Bind().Attr<float>("eps").Arg<BUFFER>().Ret<ffi::Buffer<ffi::F32>>());
'''


def _std_cc(sums=_STD_LANES, body=_STD_BODY, rows="static_cast<std::int64_t>(x.element_count()) / n",
            buffer="ffi::Buffer<ffi::F32>") -> str:
    return (_STD_FRAME.replace("SUMS", sums).replace("BODY", body.strip("\n")).replace("ROWS", rows)
            .replace("BUFFER", buffer))


def _std_answer(cc: str, name: str, *, flags: str = "('-O3', '-march=native')",
                call: str = "vmap_method='broadcast_all')(x, eps=np.float32(eps))") -> str:
    return (f"standardize_cc = r'''{cc}'''\n"
            f"grader.build(code=standardize_cc, name='{name}', flags={flags}).register_ffi_target('{name}', 'Standardize')\n"
            "def standardize_rows(x, eps=1e-5):\n"
            f"    return jax.ffi.ffi_call('{name}', jax.ShapeDtypeStruct(x.shape, jnp.float32), {call}\n")


# Exercise 3 -----------------------------------------------------------------------------------
# l2_normalize(x, eps): a custom_vjp whose backward handler recomputes each row's length from x and writes ct_x over
# ct_y. Each answer registers targets of its own.

_L2_FWD = r'''
static ffi::Error L2FwdImpl(float eps, BUFFER x, ffi::ResultBuffer<ffi::F32> y) {
  const std::int64_t n = x.dimensions().back();
  if (n == 0) return ffi::Error::Success();
  for (std::int64_t r = 0; r < static_cast<std::int64_t>(x.element_count()) / n; ++r) {
    const float* row = x.typed_data() + r * n;
    const float inv = 1.0f / std::sqrt(jbj_fast::DotLanes(row, row, n) + eps);
    for (std::int64_t i = 0; i < n; ++i) y->typed_data()[r * n + i] = row[i] * inv;
  }
  return ffi::Error::Success();
}
'''

_L2_BWD_BODY = r'''
    const float inv = 1.0f / std::sqrt(jbj_fast::DotLanes(row, row, n) + EPS);
    const float along = jbj_fast::DotLanes(row, g, n) * inv * inv * inv;
    for (std::int64_t i = 0; i < n; ++i) out[i] = g[i] * inv - row[i] * along;
'''

_L2_FRAME = r'''
#include <cmath>
#include <cstdint>
#include "fast_rms_norm.h"
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;
FWD
static ffi::Error L2BwdImpl(float eps, BUFFER x, BUFFER ct_y, ffi::ResultBuffer<ffi::F32> ct_x) {
  const std::int64_t n = x.dimensions().back();
  if (n == 0) return ffi::Error::Success();
  for (std::int64_t r = 0; r < static_cast<std::int64_t>(x.element_count()) / n; ++r) {
    const float* row = x.typed_data() + r * n;
    const float* g = ct_y.typed_data() + r * n;
    float* out = ct_x->typed_data() + r * n;
BODY
  }
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(L2Fwd, L2FwdImpl, ffi::Ffi::Bind().Attr<float>("eps").Arg<BUFFER>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(L2Bwd, L2BwdImpl,
    ffi::Ffi::Bind().Attr<float>("eps").Arg<BUFFER>().Arg<BUFFER>().Ret<ffi::Buffer<ffi::F32>>());
'''


def _l2_cc(body=_L2_BWD_BODY, eps="eps", buffer="ffi::Buffer<ffi::F32>", fwd=_L2_FWD) -> str:
    return (_L2_FRAME.replace("FWD", fwd).replace("BODY", body.strip("\n")).replace("EPS", eps)
            .replace("BUFFER", buffer))


_L2_PY = r'''
def _l2_forward(x, eps):
    return jax.ffi.ffi_call('NAME_fwd', jax.ShapeDtypeStruct(x.shape, jnp.float32), vmap_method='broadcast_all')(x, eps=np.float32(eps))

@partial(jax.custom_vjp, nondiff_argnums=(1,))
def l2_normalize(x, eps=1e-6):
    return _l2_forward(x, eps)

def _l2_fwd_rule(x, eps=1e-6):
    return _l2_forward(x, eps), x

def _l2_bwd_rule(eps, x, ct_y):
    return (jax.ffi.ffi_call('NAME_bwd', jax.ShapeDtypeStruct(x.shape, jnp.float32), BWD_OPTIONS)(x, ct_y, eps=np.float32(eps)),)

l2_normalize.defvjp(_l2_fwd_rule, _l2_bwd_rule)
'''


def _l2_answer(cc: str, name: str, *, py: str = _L2_PY,
               bwd_options: str = "vmap_method='broadcast_all', input_output_aliases={1: 0}") -> str:
    return (f"l2_cc = r'''{cc}'''\n"
            f"lib = grader.build(code=l2_cc, name='{name}', flags=('-O3', '-march=native'))\n"
            f"lib.register_ffi_target('{name}_fwd', 'L2Fwd')\n"
            f"lib.register_ffi_target('{name}_bwd', 'L2Bwd')\n"
            + py.replace("NAME", name).replace("BWD_OPTIONS", bwd_options))


# The gradient written in jnp from x (no backward handler): the forward call is dropped, no custom call is left.
_L2_PY_JNP_BWD = r'''
def _l2_forward(x, eps):
    return jax.ffi.ffi_call('NAME_fwd', jax.ShapeDtypeStruct(x.shape, jnp.float32), vmap_method='broadcast_all')(x, eps=np.float32(eps))

@partial(jax.custom_vjp, nondiff_argnums=(1,))
def l2_normalize(x, eps=1e-6):
    return _l2_forward(x, eps)

def _l2_fwd_rule(x, eps=1e-6):
    return _l2_forward(x, eps), x

def _l2_bwd_rule(eps, x, ct_y):
    r = jnp.sqrt(jnp.sum(x * x, axis=-1, keepdims=True) + eps)
    return (ct_y / r - x * jnp.sum(x * ct_y, axis=-1, keepdims=True) / r ** 3,)

l2_normalize.defvjp(_l2_fwd_rule, _l2_bwd_rule)
'''

# The forward pass in jnp, only the backward pass a handler.
_L2_PY_JNP_FWD = _L2_PY.replace(
    "    return jax.ffi.ffi_call('NAME_fwd', jax.ShapeDtypeStruct(x.shape, jnp.float32), vmap_method='broadcast_all')(x, eps=np.float32(eps))",
    "    return x / jnp.sqrt(jnp.sum(x * x, axis=-1, keepdims=True) + eps)")

# The scale saved as a residual (section 7's first way): the forward handler also returns 1/r, the backward reads it.
_L2_SAVED_CC = r'''
#include <cmath>
#include <cstdint>
#include "fast_rms_norm.h"
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;
static ffi::Error L2FwdImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y, ffi::ResultBuffer<ffi::F32> inv_r) {
  const std::int64_t n = x.dimensions().back();
  if (n == 0) return ffi::Error::Success();
  for (std::int64_t r = 0; r < static_cast<std::int64_t>(x.element_count()) / n; ++r) {
    const float* row = x.typed_data() + r * n;
    const float inv = 1.0f / std::sqrt(jbj_fast::DotLanes(row, row, n) + eps);
    inv_r->typed_data()[r] = inv;
    for (std::int64_t i = 0; i < n; ++i) y->typed_data()[r * n + i] = row[i] * inv;
  }
  return ffi::Error::Success();
}
static ffi::Error L2BwdImpl(ffi::Buffer<ffi::F32> inv_r, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct_y, ffi::ResultBuffer<ffi::F32> ct_x) {
  const std::int64_t n = x.dimensions().back();
  if (n == 0) return ffi::Error::Success();
  for (std::int64_t r = 0; r < static_cast<std::int64_t>(x.element_count()) / n; ++r) {
    const float* row = x.typed_data() + r * n;
    const float* g = ct_y.typed_data() + r * n;
    const float inv = inv_r.typed_data()[r];
    const float along = jbj_fast::DotLanes(row, g, n) * inv * inv * inv;
    for (std::int64_t i = 0; i < n; ++i) ct_x->typed_data()[r * n + i] = g[i] * inv - row[i] * along;
  }
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(L2Fwd, L2FwdImpl, ffi::Ffi::Bind().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(L2Bwd, L2BwdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
'''

_L2_PY_SAVED = r'''
def _l2_forward(x, eps):
    return jax.ffi.ffi_call('NAME_fwd', (jax.ShapeDtypeStruct(x.shape, jnp.float32), jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)),
                            vmap_method='broadcast_all')(x, eps=np.float32(eps))

@partial(jax.custom_vjp, nondiff_argnums=(1,))
def l2_normalize(x, eps=1e-6):
    return _l2_forward(x, eps)[0]

def _l2_fwd_rule(x, eps=1e-6):
    y, inv_r = _l2_forward(x, eps)
    return y, (inv_r, x)

def _l2_bwd_rule(eps, residuals, ct_y):
    inv_r, x = residuals
    return (jax.ffi.ffi_call('NAME_bwd', jax.ShapeDtypeStruct(x.shape, jnp.float32), BWD_OPTIONS)(inv_r, x, ct_y),)

l2_normalize.defvjp(_l2_fwd_rule, _l2_bwd_rule)
'''

# The backward rule calls the forward handler again for y, then the backward handler: two custom calls.
_L2_PY_FWD_AGAIN = _L2_PY.replace(
    "    return (jax.ffi.ffi_call('NAME_bwd', jax.ShapeDtypeStruct(x.shape, jnp.float32), BWD_OPTIONS)(x, ct_y, eps=np.float32(eps)),)",
    "    y = _l2_forward(x, eps)          # y again, for a check of the forward pass's values\n"
    "    ct_x = jax.ffi.ffi_call('NAME_bwd', jax.ShapeDtypeStruct(x.shape, jnp.float32), BWD_OPTIONS)(x, ct_y, eps=np.float32(eps))\n"
    "    return (ct_x + 0.0 * y,)")

# eps as a differentiable argument: no nondiff_argnums, so eps reaches the rules as a traced value.
_L2_PY_NO_NONDIFF = _L2_PY.replace("@partial(jax.custom_vjp, nondiff_argnums=(1,))", "@jax.custom_vjp").replace(
    "def _l2_bwd_rule(eps, x, ct_y):\n    return (jax.ffi.ffi_call('NAME_bwd', jax.ShapeDtypeStruct(x.shape, jnp.float32), BWD_OPTIONS)(x, ct_y, eps=np.float32(eps)),)",
    "def _l2_bwd_rule(res, ct_y):\n    x, eps = res\n    return (jax.ffi.ffi_call('NAME_bwd', jax.ShapeDtypeStruct(x.shape, jnp.float32), BWD_OPTIONS)(x, ct_y, eps=np.float32(eps)), None)").replace(
    "    return _l2_forward(x, eps), x\n", "    return _l2_forward(x, eps), (x, eps)\n")

WRONG_EX1 = [
    W('m', 'one float running sum for the mean and one for the squared deviations (chapter 11): too inaccurate on rows of 2**20, and a single chain of additions',
      _std_answer(_std_cc(_STD_SERIAL), 'w12_std_serial')),
    W('m', 'the one-pass shortcut mean(x**2) - mean**2 (16 partial sums each): rows of 100 + N(0, 1) lose every digit',
      _std_answer(_std_cc(body=r'''
    const float mean = row[0] + Sum<false>(row, n, row[0]) / float(n);
    const float mean_sq = Sum<true>(row, n, 0.0f) / float(n);    // mean(x**2): one pass over the row
    const float s = 1.0f / std::sqrt(mean_sq - mean * mean + eps);
    for (std::int64_t i = 0; i < n; ++i) out[i] = (row[i] - mean) * s;
'''), 'w12_std_onepass')),
    W('m', 'each sum one double after another: accurate, but a single chain of additions, several times a plain pass',
      _std_answer(_std_cc(_STD_DOUBLE), 'w12_std_double'), timing=True),
    W('m', "the chapter's 16 partial sums, built without optimisation (flags=('-O0',)): accurate, and many times a plain pass",
      _std_answer(_std_cc(), 'w12_std_O0', flags="('-O0',)"), timing=True),
    W('m', '16 partial sums for the squared deviations, but the mean from one float chain: its error shifts every output on rows of 2**20',
      _std_answer(_std_cc(_STD_LANES + r'''
static float SerialMean(const float* x, std::int64_t n) {
  float total = 0.0f;
  for (std::int64_t i = 0; i < n; ++i) total += x[i];
  return total / float(n);
}
''', body=r'''
    const float mean = SerialMean(row, n);
    const float s = 1.0f / std::sqrt(Sum<true>(row, n, mean) / float(n) + eps);
    for (std::int64_t i = 0; i < n; ++i) out[i] = (row[i] - mean) * s;
'''), 'w12_std_serial_mean')),
    W('m', 'the sample variance (divided by n - 1): every value off by sqrt(n / (n - 1))',
      _std_answer(_std_cc(body=r'''
    const float mean = row[0] + Sum<false>(row, n, row[0]) / float(n);
    const float s = 1.0f / std::sqrt(Sum<true>(row, n, mean) / float(n > 1 ? n - 1 : 1) + eps);
    for (std::int64_t i = 0; i < n; ++i) out[i] = (row[i] - mean) * s;
'''), 'w12_std_sample')),
    W('c', '16 partial sums, but the elements after the last full group of 16 are never added: rows of 1000 and of 37 go wrong',
      _std_answer(_std_cc(_STD_NO_TAIL), 'w12_std_no_tail')),
    W('c', 'binds ffi::BufferR2: a 1-D x (one row) and a 4-D x are refused',
      _std_answer(_std_cc(buffer="ffi::BufferR2<ffi::F32>"), 'w12_std_r2')),
    W('c', "rows = x's first axis: right for 1-D and 2-D x, a (2, 3, 2, 5) x leaves rows untouched",
      _std_answer(_std_cc(rows="dims.size() == 1 ? 1 : dims[0]"), 'w12_std_rows0')),
    W('b', 'eps fixed at 1e-5 in the C++: the eps attribute is declared but never used',
      _std_answer(_std_cc(body=r'''
    (void)eps;
    const float mean = row[0] + Sum<false>(row, n, row[0]) / float(n);
    const float s = 1.0f / std::sqrt(Sum<true>(row, n, mean) / float(n) + 1e-5f);
    for (std::int64_t i = 0; i < n; ++i) out[i] = (row[i] - mean) * s;
'''), 'w12_std_eps_fixed')),
    W('b', 'eps passed as the Python float it is, to an Attr<float>: a Python float is an f64 attribute, and the call fails',
      _std_answer(_std_cc(), 'w12_std_eps_f64', call="vmap_method='broadcast_all')(x, eps=eps)")),
    W('d', 'no handler: the jnp formula, which XLA fuses (accurate and fast, but no FFI call of your own)',
      "def standardize_rows(x, eps=1e-5):\n"
      "    centred = x - jnp.mean(x, axis=-1, keepdims=True)\n"
      "    return centred / jnp.sqrt(jnp.mean(centred * centred, axis=-1, keepdims=True) + eps)\n"),
    W('d', "the mean subtracted in jnp, then the chapter's ch12.RmsNormFast on the centred rows: right values, not one call of your own",
      "def standardize_rows(x, eps=1e-5):\n"
      "    centred = x - jnp.mean(x, axis=-1, keepdims=True)      # RMSNorm of the centred rows is the standardised rows\n"
      "    return ffi_rms_norm('ch12.RmsNormFast', centred, eps)\n"),
    W('d', 'NumPy in a pure_callback: float64 on the host, no FFI handler',
      "def _standardize_host(x, eps):\n"
      "    x64 = np.asarray(x, np.float64)\n"
      "    c = x64 - x64.mean(axis=-1, keepdims=True)\n"
      "    return (c / np.sqrt((c * c).mean(axis=-1, keepdims=True) + eps)).astype(np.float32)\n"
      "def standardize_rows(x, eps=1e-5):\n"
      "    return jax.pure_callback(lambda v: _standardize_host(v, eps), jax.ShapeDtypeStruct(x.shape, jnp.float32), x,\n"
      "                             vmap_method='broadcast_all')\n"),
    W('d', "rows handed to XLA's pool with jbj_fast::ParallelFor, where the text asks for the calling thread",
      _std_answer(_std_cc().replace('#include "xla/ffi/api/ffi.h"', '#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"').replace(
          "static ffi::Error StandardizeImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {",
          "static ffi::Error StandardizeImpl(ffi::ThreadPool pool, float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {").replace(
          "  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* row",
          "  jbj_fast::ParallelFor(rows, 16, int(pool.num_threads()) - 1, [&pool](auto task) { pool.Schedule(std::move(task)); },\n"
          "                        [=, &x, &y](std::int64_t b, std::int64_t e) {\n  for (std::int64_t r = b; r < e; ++r) {\n    const float* row").replace(
          "  }\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(Standardize",
          "  }\n  });\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(Standardize").replace(
          'ffi::Ffi::Bind().Attr<float>("eps")', 'ffi::Ffi::Bind().Ctx<ffi::ThreadPool>().Attr<float>("eps")'), 'w12_std_pool')),
    W('e', 'ffi_call without a vmap_method: right on its own, refused under jax.vmap',
      _std_answer(_std_cc(), 'w12_std_no_vmap', call=")(x, eps=np.float32(eps))")),
]

RIGHT_EX1 = [
    R("the chapter's 16 partial sums for both sums, built with -O3 -march=native (fast enough with every CPU busy)",
      _std_answer(_std_cc(), 'r12_std_lanes'), timing=True),
    R('each row minus its mean copied into a scratch row, whose squares jbj_fast::DotLanes sums',
      _std_answer(_std_cc(_STD_LANES, body=r'''
    thread_local std::vector<float> centred;
    centred.resize(n);
    const float mean = row[0] + Sum<false>(row, n, row[0]) / float(n);
    for (std::int64_t i = 0; i < n; ++i) centred[i] = row[i] - mean;
    const float s = 1.0f / std::sqrt(jbj_fast::DotLanes(centred.data(), centred.data(), n) / float(n) + eps);
    for (std::int64_t i = 0; i < n; ++i) out[i] = centred[i] * s;
''').replace('#include <cstdint>', '#include <cstdint>\n#include <vector>\n#include "fast_rms_norm.h"'), 'r12_std_scratch')),
    R('Attr<double> for eps, passed as float(eps)',
      _std_answer(_std_cc().replace('static ffi::Error StandardizeImpl(float eps,', 'static ffi::Error StandardizeImpl(double eps_d,').replace(
          '  auto dims = x.dimensions();', '  const float eps = static_cast<float>(eps_d);\n  auto dims = x.dimensions();').replace(
          'Attr<float>("eps")', 'Attr<double>("eps")'), 'r12_std_double_attr', call="vmap_method='broadcast_all')(x, eps=float(eps))")),
]

WRONG_EX3 = [
    W('m', "the scale saved as a residual (section 7's first way): the compiled gradient still calls the forward handler",
      _l2_answer(_L2_SAVED_CC, 'w12_l2_saved', py=_L2_PY_SAVED,
                 bwd_options="vmap_method='broadcast_all', input_output_aliases={2: 0}")),
    W('m', 'no input_output_aliases on the backward call: with w donated, XLA still writes ct_x into a fresh buffer and copies it',
      _l2_answer(_l2_cc(), 'w12_l2_no_alias', bwd_options="vmap_method='broadcast_all'")),
    W('m', 'ct_x aliased to x (argument 0), not to ct_y: x is the caller\'s, so XLA copies it first',
      _l2_answer(_l2_cc(), 'w12_l2_alias_x', bwd_options="vmap_method='broadcast_all', input_output_aliases={0: 0}")),
    W('m', 'the backward rule calls the forward handler again (for y): two custom calls in the compiled gradient',
      _l2_answer(_l2_cc(), 'w12_l2_fwd_again', py=_L2_PY_FWD_AGAIN)),
    W('m', 'no nondiff_argnums: eps reaches the rules as a traced value, and np.float32(eps) fails under grad',
      _l2_answer(_l2_cc(), 'w12_l2_no_nondiff', py=_L2_PY_NO_NONDIFF)),
    W('a', 'the backward pass written for a cotangent of ones: sum(x) where sum(x * ct_y) belongs, and 1/r for ct_y / r',
      _l2_answer(_l2_cc(body=r'''
    const float inv = 1.0f / std::sqrt(jbj_fast::DotLanes(row, row, n) + eps);
    float sum_x = 0.0f;
    for (std::int64_t i = 0; i < n; ++i) sum_x += row[i];
    for (std::int64_t i = 0; i < n; ++i) out[i] = inv - row[i] * sum_x * inv * inv * inv;
    (void)g;
'''), 'w12_l2_ones')),
    W('a', 'ct_x = ct_y / r: the projection term - x (x . ct_y) / r**3 left out',
      _l2_answer(_l2_cc(body=r'''
    const float inv = 1.0f / std::sqrt(jbj_fast::DotLanes(row, row, n) + eps);
    for (std::int64_t i = 0; i < n; ++i) out[i] = g[i] * inv;
'''), 'w12_l2_no_projection')),
    W('b', 'the backward handler adds 1e-6 where eps belongs: gradients with another eps are off',
      _l2_answer(_l2_cc(eps="1e-6f"), 'w12_l2_eps_fixed')),
    W('c', 'binds ffi::BufferR2: a 1-D x (one row) is refused',
      _l2_answer(_l2_cc(buffer="ffi::BufferR2<ffi::F32>"), 'w12_l2_r2')),
    W('d', 'the backward pass in jnp from x: right gradient, no backward handler (the compiled gradient makes no custom call)',
      _l2_answer(_l2_cc(), 'w12_l2_jnp_bwd', py=_L2_PY_JNP_BWD)),
    W('d', 'the forward pass in jnp, only the backward a handler: the lowered forward holds no custom call of its own',
      _l2_answer(_l2_cc(), 'w12_l2_jnp_fwd', py=_L2_PY_JNP_FWD)),
    W('e', 'the backward ffi_call without a vmap_method: grad works, vmap(grad) is refused',
      _l2_answer(_l2_cc(), 'w12_l2_no_vmap', bwd_options="input_output_aliases={1: 0}")),
]

RIGHT_EX3 = [
    R('the backward handler computes y = x / r first and writes ct_x = (ct_y - y (y . ct_y)) / r',
      _l2_answer(_l2_cc(body=r'''
    const float inv = 1.0f / std::sqrt(jbj_fast::DotLanes(row, row, n) + eps);
    const float y_dot_g = jbj_fast::DotLanes(row, g, n) * inv;
    for (std::int64_t i = 0; i < n; ++i) out[i] = (g[i] - row[i] * inv * y_dot_g) * inv;
'''), 'r12_l2_via_y')),
    R('the backward binding takes ct_y first, and input_output_aliases={0: 0} puts ct_x over it',
      _l2_answer(_l2_cc().replace("static ffi::Error L2BwdImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct_y,",
                                  "static ffi::Error L2BwdImpl(float eps, ffi::Buffer<ffi::F32> ct_y, ffi::Buffer<ffi::F32> x,"),
                 'r12_l2_ct_first', py=_L2_PY.replace("(x, ct_y, eps=np.float32(eps))", "(ct_y, x, eps=np.float32(eps))"),
                 bwd_options="vmap_method='broadcast_all', input_output_aliases={0: 0}")),
]


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


APPLIES = {'ex1_answer': 'bcdem', 'ex2_answer': 'cdfgm', 'ex3_answer': 'abcdem', 'quiz_answer': 'm'}

WRONG = {
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
WRONG['ex1_answer'] = WRONG_EX1
WRONG['ex3_answer'] = WRONG_EX3

# Right answers written another way: each must earn full marks (tests/test_wrong_answers.py).
RIGHT = {
    'ex2_answer': [
        R("`using namespace xla::ffi;`, so the binding reads .Ctx<ThreadPool>(), not .Ctx<ffi::ThreadPool>()",
          'scale_rows_cc = r"""\n#include <cstddef>\n#include <cstdint>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nusing namespace xla::ffi;\n\n// y[r, :] = x[r, :] * s[r], y in x\'s buffer; rows handed out on XLA\'s intra-op pool by ParallelFor.\nstatic Error ScaleRowsImpl(ThreadPool pool, Buffer<F32> x, Buffer<F32> s, ResultBuffer<F32> y) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return Error::InvalidArgument("scale_rows: x needs an axis");\n  const std::int64_t n = dims.back();\n  const std::int64_t rows = static_cast<std::int64_t>(s.element_count());\n  if (rows * n != static_cast<std::int64_t>(x.element_count()) || y->element_count() != x.element_count())\n    return Error::InvalidArgument("scale_rows: s must have shape x.shape[:-1]");\n  if (rows == 0) return Error::Success();\n  const float* in = x.typed_data();\n  const float* scale = s.typed_data();\n  float* out = y->typed_data();\n  jbj_fast::ParallelFor(rows, 64, static_cast<int>(pool.num_threads()) - 1,\n                        [&pool](auto task) { pool.Schedule(std::move(task)); },\n                        [=](std::int64_t begin, std::int64_t end) {\n                          for (std::int64_t r = begin; r < end; ++r)\n                            for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * scale[r];\n                        });\n  return Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleRows, ScaleRowsImpl,\n                              Ffi::Bind()\n                                  .Ctx<ThreadPool>()\n                                  .Arg<Buffer<F32>>()   // x\n                                  .Arg<Buffer<F32>>()   // s\n                                  .Ret<Buffer<F32>>()); // y, in x\'s buffer\n"""\nlib = grader.build(code=scale_rows_cc, name="scale_rows_b", flags=("-O3",))\nlib.register_ffi_target("scale_rows_b", "ScaleRows")\n\ndef scale_rows(x, s):\n    return jax.ffi.ffi_call("scale_rows_b", jax.ShapeDtypeStruct(x.shape, jnp.float32), input_output_aliases={0: 0})(x, s)\n\nscale_rows_inplace = jax.jit(scale_rows, donate_argnums=0)\n'),
    ],
}
RIGHT['ex1_answer'] = RIGHT_EX1
RIGHT['ex3_answer'] = RIGHT_EX3
WRONG['ex2_answer'] += [
    W('c', 'rows counted for ranks 1, 2, 3 only (dims[0]*dims[1] for 3-D and up): a 4-D x leaves most rows unscaled',
      'scale_rows_cc = r"""\n#include <algorithm>\n#include <atomic>\n#include <cstdint>\n#include <memory>\n#include <thread>\n#include <vector>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nnamespace {\nstruct Shared {\n  const float* x; const float* s; float* y;\n  std::int64_t n, rows, per, chunks;\n  std::atomic<std::int64_t> next{0}, done{0};\n};\n\nvoid Work(Shared& st) {\n  for (;;) {\n    const std::int64_t c = st.next.fetch_add(1);\n    if (c >= st.chunks) return;\n    const std::int64_t r0 = c * st.per, r1 = std::min(st.rows, r0 + st.per);\n    for (std::int64_t r = r0; r < r1; ++r) {\n      const float k = st.s[r];\n      const float* a = st.x + r * st.n;\n      float* b = st.y + r * st.n;\n      for (std::int64_t i = 0; i < st.n; ++i) b[i] = a[i] * k;\n    }\n    st.done.fetch_add(1, std::memory_order_acq_rel);\n  }\n}\n}  // namespace\n\n// y = x * s[..., None], rows handed out in chunks of about 256 KiB on XLA\'s pool; y may be x\'s buffer.\nstatic ffi::Error ScaleRowsImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s,\n                                ffi::ResultBuffer<ffi::F32> y) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("scale_rows: x needs at least one axis");\n  // 1-D: one row; 2-D: x.shape[0] rows; 3-D: x.shape[0] * x.shape[1] rows\n  const std::int64_t n = dims.back();\n  const std::int64_t rows = dims.size() == 1 ? 1 : dims.size() == 2 ? dims[0] : dims[0] * dims[1];\n  auto st = std::make_shared<Shared>();\n  st->x = x.typed_data(); st->s = s.typed_data(); st->y = y->typed_data();\n  st->n = n; st->rows = rows;\n  st->per = std::max<std::int64_t>(1, 65536 / std::max<std::int64_t>(n, 1));   // rows per chunk: about 256 KiB\n  st->chunks = (rows + st->per - 1) / st->per;\n  const std::int64_t helpers = std::min<std::int64_t>(pool.num_threads(), st->chunks - 1);\n  for (std::int64_t t = 0; t < helpers; ++t) pool.Schedule([st] { Work(*st); });\n  Work(*st);\n  while (st->done.load(std::memory_order_acquire) < st->chunks) std::this_thread::yield();\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleRows, ScaleRowsImpl,\n    ffi::Ffi::Bind()\n        .Ctx<ffi::ThreadPool>()\n        .Arg<ffi::Buffer<ffi::F32>>()\n        .Arg<ffi::Buffer<ffi::F32>>()\n        .Ret<ffi::Buffer<ffi::F32>>());\n"""\nscale_rows_lib = grader.build(code=scale_rows_cc, name="ex2_w1", flags=FAST_FLAGS)\nscale_rows_lib.register_ffi_target("ex2.w1", "ScaleRows")\n\ndef scale_rows(x, s):\n    out = jax.ShapeDtypeStruct(x.shape, x.dtype)\n    return jax.ffi.ffi_call("ex2.w1", out, input_output_aliases={0: 0})(x, s)\n\nscale_rows_inplace = jax.jit(scale_rows, donate_argnums=0)\n'),
]
WRONG['ex2_answer'] += [
    W('f', 'shared state on the heap, but each task reads x, s, y through [&] references to the handler arguments before claiming a chunk: a late task reads the dead frame',
      'scale_rows_cc = r\'\'\'\n#include <algorithm>\n#include <atomic>\n#include <condition_variable>\n#include <cstdint>\n#include <memory>\n#include <mutex>\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\nstruct State {\n  std::atomic<std::int64_t> next{0};\n  std::int64_t done = 0;\n  std::mutex m;\n  std::condition_variable cv;\n};\nstatic ffi::Error ScaleRowsImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s,\n                                ffi::ResultBuffer<ffi::F32> y) {\n  const std::int64_t rows = static_cast<std::int64_t>(s.element_count());\n  if (rows == 0) return ffi::Error::Success();\n  const std::int64_t n = static_cast<std::int64_t>(x.element_count()) / rows;\n  const std::int64_t chunk = std::max<std::int64_t>(4, 65536 / std::max<std::int64_t>(n, 1));\n  const std::int64_t chunks = (rows + chunk - 1) / chunk;\n  auto state = std::make_shared<State>();\n  auto run = [state, chunk, chunks, rows, n, &x, &s, &y] {\n    const float* in = x.typed_data();       // read through the handler\'s arguments\n    const float* scale = s.typed_data();\n    float* out = y->typed_data();\n    for (std::int64_t c = state->next.fetch_add(1); c < chunks; c = state->next.fetch_add(1)) {\n      for (std::int64_t r = c * chunk; r < std::min(rows, (c + 1) * chunk); ++r)\n        for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * scale[r];\n      std::lock_guard<std::mutex> lock(state->m);\n      if (++state->done == chunks) state->cv.notify_all();\n    }\n  };\n  for (int h = 1; h < pool.num_threads() && h < chunks; ++h) pool.Schedule([run] { run(); });\n  run();\n  std::unique_lock<std::mutex> lock(state->m);\n  state->cv.wait(lock, [&] { return state->done == chunks; });\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleRows, ScaleRowsImpl,\n    ffi::Ffi::Bind().Ctx<ffi::ThreadPool>().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>()\n        .Ret<ffi::Buffer<ffi::F32>>());\n\'\'\'\nlib = grader.build(code=scale_rows_cc, name=\'g12_scale_stackref\', flags=(\'-O3\',))\nlib.register_ffi_target(\'g12_scale_stackref\', \'ScaleRows\')\ndef scale_rows(x, s):\n    return jax.ffi.ffi_call(\'g12_scale_stackref\', jax.ShapeDtypeStruct(x.shape, jnp.float32), input_output_aliases={0: 0})(x, s)\nscale_rows_inplace = jax.jit(scale_rows, donate_argnums=0)\n'),
    W('c', 'jnp.atleast_2d(x) / atleast_1d(s) never undone: a 1-D x comes back with shape (1, n)',
      'scale_rows_cc = r\'\'\'\n#include <cstdint>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\nstatic ffi::Error ScaleRowsImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s,\n                                ffi::ResultBuffer<ffi::F32> y) {\n  const std::int64_t rows = static_cast<std::int64_t>(s.element_count());\n  if (rows == 0) return ffi::Error::Success();\n  const std::int64_t n = static_cast<std::int64_t>(x.element_count()) / rows;\n  const float* in = x.typed_data();\n  const float* scale = s.typed_data();\n  float* out = y->typed_data();\n  jbj_fast::ParallelFor(rows, 64, static_cast<int>(pool.num_threads()) - 1,\n                        [&pool](auto task) { pool.Schedule(std::move(task)); },\n                        [=](std::int64_t b, std::int64_t e) {\n                          for (std::int64_t r = b; r < e; ++r)\n                            for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * scale[r];\n                        });\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleRows, ScaleRowsImpl,\n    ffi::Ffi::Bind().Ctx<ffi::ThreadPool>().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>()\n        .Ret<ffi::Buffer<ffi::F32>>());\n\'\'\'\nlib = grader.build(code=scale_rows_cc, name=\'g12_scale_atleast2d\', flags=(\'-O3\',))\nlib.register_ffi_target(\'g12_scale_atleast2d\', \'ScaleRows\')\ndef scale_rows(x, s):\n    x, s = jnp.atleast_2d(x), jnp.atleast_1d(s)   # a 1-D x is one row, its s one number\n    return jax.ffi.ffi_call(\'g12_scale_atleast2d\', jax.ShapeDtypeStruct(x.shape, jnp.float32),\n                            input_output_aliases={0: 0})(x, s)\nscale_rows_inplace = jax.jit(scale_rows, donate_argnums=0)\n'),
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

# A blind round (written from the exercise texts alone): a lost wake-up (the last task notifies without the
# waiter's mutex) hung the self-check now and then, and is now certain to (cpp/late_wait.cc holds every wait of the
# answer's C++ for 500 ms, in a process of its own); l2_normalize's own body ignoring eps passed every visible check
# (its values with eps are checked visibly now, outside grad); the lane kernel built at -O2 is too slow.
WRONG['ex1_answer'].append(W('m', "the lane-sum kernel built with grader.build's default flags (-O2): right values, too slow",
    'standardize_cc = r"""\n#include <cmath>\n#include <cstdint>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\nstatic ffi::Error StandardizeImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  const auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("standardize_rows: x needs an axis");\n  const std::int64_t n = dims.back();\n  const std::int64_t total = x.element_count();\n  if (y->element_count() != total) return ffi::Error::InvalidArgument("standardize_rows: y has the wrong size");\n  if (n == 0) return ffi::Error::Success();\n  const std::int64_t rows = total / n;\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n  constexpr int L = jbj_fast::kLanes;\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* xr = in + r * n;\n    float* yr = out + r * n;\n    float acc[L] = {};\n    std::int64_t i = 0;\n    for (; i + L <= n; i += L)\n      for (int j = 0; j < L; ++j) acc[j] += xr[i + j];\n    float tail = 0.0f;\n    for (; i < n; ++i) tail += xr[i];\n    const float mean = jbj_fast::SumLanes(acc, tail) / float(n);\n    float acc2[L] = {};\n    i = 0;\n    for (; i + L <= n; i += L)\n      for (int j = 0; j < L; ++j) {\n        const float d = xr[i + j] - mean;\n        acc2[j] += d * d;\n      }\n    float tail2 = 0.0f;\n    for (; i < n; ++i) {\n      const float d = xr[i] - mean;\n      tail2 += d * d;\n    }\n    const float var = jbj_fast::SumLanes(acc2, tail2) / float(n);\n    const float inv = 1.0f / std::sqrt(var + eps);\n    for (std::int64_t k = 0; k < n; ++k) yr[k] = (xr[k] - mean) * inv;\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(Standardize, StandardizeImpl,\n                              ffi::Ffi::Bind()\n                                  .Attr<float>("eps")\n                                  .Arg<ffi::Buffer<ffi::F32>>()\n                                  .Ret<ffi::Buffer<ffi::F32>>());\n"""\nstandardize_lib = grader.build(code=standardize_cc, name="standardize_default_flags")\nstandardize_lib.register_ffi_target("ex1.standardize_default_flags", "Standardize")\n\ndef standardize_rows(x, eps=1e-5):\n    out = jax.ShapeDtypeStruct(x.shape, jnp.float32)\n    return jax.ffi.ffi_call("ex1.standardize_default_flags", out, vmap_method="broadcast_all")(x, eps=np.float32(eps))\n', timing=True))
WRONG['ex2_answer'].append(W('f', 'a lost wake-up: the last task notifies without the mutex; the caller may sleep for ever',
    'scale_rows_cc = r"""\n#include <algorithm>\n#include <atomic>\n#include <cstdint>\n#include <memory>\n#include <thread>\n#include <mutex>\n#include <condition_variable>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\nnamespace {\nstruct Job {\n  const float* in;\n  const float* sc;\n  float* out;\n  std::int64_t n, rows, chunk, chunks;\n  std::atomic<std::int64_t> next{0};\n  std::atomic<std::int64_t> done{0};\n  std::mutex m;\n  std::condition_variable cv;\n  void Work() {\n    for (std::int64_t c = next.fetch_add(1); c < chunks; c = next.fetch_add(1)) {\n      const std::int64_t b = c * chunk, e = std::min(rows, b + chunk);\n      for (std::int64_t r = b; r < e; ++r)\n        for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * sc[r];\n      if (done.fetch_add(1, std::memory_order_acq_rel) + 1 == chunks) cv.notify_all();\n    }\n  }\n};\n}  // namespace\n\nstatic ffi::Error ScaleRowsImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s,\n                                ffi::ResultBuffer<ffi::F32> y) {\n  const auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("scale_rows: x needs an axis");\n  const std::int64_t n = dims.back();\n  const std::int64_t rows = s.element_count();\n  if (rows * n != x.element_count() || y->element_count() != x.element_count())\n    return ffi::Error::InvalidArgument("scale_rows: s must have shape x.shape[:-1]");\n  const float* in = x.typed_data();\n  const float* sc = s.typed_data();\n  float* out = y->typed_data();\n  const std::int64_t chunk = std::max<std::int64_t>(4, 16384 / std::max<std::int64_t>(n, 1));\n  if (rows == 0 || n == 0) return ffi::Error::Success();\n  auto job = std::make_shared<Job>();\n  job->in = in; job->sc = sc; job->out = out; job->n = n; job->rows = rows; job->chunk = chunk;\n  job->chunks = (rows + chunk - 1) / chunk;\n  const std::int64_t tasks = std::min<std::int64_t>(pool.num_threads(), job->chunks - 1);\n  for (std::int64_t t = 0; t < tasks; ++t) pool.Schedule([job] { job->Work(); });\n  job->Work();\n  std::unique_lock<std::mutex> lock(job->m);\n  job->cv.wait(lock, [&] { return job->done.load(std::memory_order_acquire) == job->chunks; });\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleRows, ScaleRowsImpl,\n                              ffi::Ffi::Bind()\n                                  .Ctx<ffi::ThreadPool>()\n                                  .Arg<ffi::Buffer<ffi::F32>>()   // x\n                                  .Arg<ffi::Buffer<ffi::F32>>()   // s\n                                  .Ret<ffi::Buffer<ffi::F32>>()); // y, in x\'s buffer\n"""\nscale_rows_lib = grader.build(code=scale_rows_cc, name="scale_rows_lost_wakeup", flags=("-O3", "-march=native"))\nscale_rows_lib.register_ffi_target("ex2.scale_rows_lost_wakeup", "ScaleRows")\n\ndef scale_rows(x, s):\n    out = jax.ShapeDtypeStruct(x.shape, jnp.float32)\n    return jax.ffi.ffi_call("ex2.scale_rows_lost_wakeup", out, vmap_method="broadcast_all", input_output_aliases={0: 0})(x, s)\n\nscale_rows_inplace = jax.jit(scale_rows, donate_argnums=0)\n'))
WRONG['ex3_answer'].append(W('b', "l2_normalize's own body calls the handler with the default eps (the forward rule uses eps)",
    'l2_cc = r"""\n#include <cmath>\n#include <cstdint>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\nstatic ffi::Error L2FwdImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  const auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("l2_normalize: x needs an axis");\n  const std::int64_t n = dims.back();\n  if (y->element_count() != x.element_count()) return ffi::Error::InvalidArgument("l2_normalize: y size");\n  if (n == 0) return ffi::Error::Success();\n  const std::int64_t rows = x.element_count() / n;\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* xr = in + r * n;\n    const float inv = 1.0f / std::sqrt(jbj_fast::DotLanes(xr, xr, n) + eps);\n    for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = xr[i] * inv;\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(L2Fwd, L2FwdImpl,\n                              ffi::Ffi::Bind()\n                                  .Attr<float>("eps")\n                                  .Arg<ffi::Buffer<ffi::F32>>()\n                                  .Ret<ffi::Buffer<ffi::F32>>());\n\nstatic ffi::Error L2BwdImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct_y,\n                            ffi::ResultBuffer<ffi::F32> ct_x) {\n  const auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("l2_normalize_bwd: x needs an axis");\n  const std::int64_t n = dims.back();\n  if (ct_y.element_count() != x.element_count() || ct_x->element_count() != x.element_count())\n    return ffi::Error::InvalidArgument("l2_normalize_bwd: sizes");\n  if (n == 0) return ffi::Error::Success();\n  const std::int64_t rows = x.element_count() / n;\n  const float* in = x.typed_data();\n  const float* g = ct_y.typed_data();\n  float* out = ct_x->typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* xr = in + r * n;\n    const float* gr = g + r * n;\n    float* o = out + r * n;\n    const float sq = jbj_fast::DotLanes(xr, xr, n);\n    const float dot = jbj_fast::DotLanes(xr, gr, n);\n    const float inv = 1.0f / std::sqrt(sq + eps);\n    const float k = dot * inv * inv * inv;\n    for (std::int64_t i = 0; i < n; ++i) o[i] = gr[i] * inv - xr[i] * k;\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(L2Bwd, L2BwdImpl,\n                              ffi::Ffi::Bind()\n                                  .Attr<float>("eps")\n                                  .Arg<ffi::Buffer<ffi::F32>>()   // x\n                                  .Arg<ffi::Buffer<ffi::F32>>()   // ct_y\n                                  .Ret<ffi::Buffer<ffi::F32>>()); // ct_x, over ct_y\n"""\nl2_lib = grader.build(code=l2_cc, name="l2_primal_eps", flags=("-O3", "-march=native"))\nl2_lib.register_ffi_target("ex3.l2_fwd_primal_eps", "L2Fwd")\nl2_lib.register_ffi_target("ex3.l2_bwd_primal_eps", "L2Bwd")\n\n\n@partial(jax.custom_vjp, nondiff_argnums=(1,))\ndef l2_normalize(x, eps=1e-6):\n    return jax.ffi.ffi_call("ex3.l2_fwd_primal_eps", jax.ShapeDtypeStruct(x.shape, jnp.float32),\n                            vmap_method="broadcast_all")(x, eps=np.float32(1e-6))\n\n\ndef _l2_fwd(x, eps=1e-6):\n    y = jax.ffi.ffi_call("ex3.l2_fwd_primal_eps", jax.ShapeDtypeStruct(x.shape, jnp.float32),\n                         vmap_method="broadcast_all")(x, eps=np.float32(eps))\n    return y, x\n\n\ndef _l2_bwd(eps, x, ct_y):\n    ct_x = jax.ffi.ffi_call("ex3.l2_bwd_primal_eps", jax.ShapeDtypeStruct(x.shape, jnp.float32), vmap_method="broadcast_all",\n                            input_output_aliases={1: 0})(x, ct_y, eps=np.float32(eps))\n    return (ct_x,)\n\n\nl2_normalize.defvjp(_l2_fwd, _l2_bwd)\n'))
RIGHT['ex1_answer'].append(R('16 lane sums kept in double (vectorised as doubles), with their own pairwise reduction',
    'standardize_cc = r"""\n#include <cmath>\n#include <cstdint>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\nstatic ffi::Error StandardizeImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  const auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("standardize_rows: x needs an axis");\n  const std::int64_t n = dims.back();\n  const std::int64_t total = x.element_count();\n  if (y->element_count() != total) return ffi::Error::InvalidArgument("standardize_rows: y has the wrong size");\n  if (n == 0) return ffi::Error::Success();\n  const std::int64_t rows = total / n;\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n  constexpr int L = 16;\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* xr = in + r * n;\n    float* yr = out + r * n;\n    double acc[L] = {};\n    std::int64_t i = 0;\n    for (; i + L <= n; i += L)\n      for (int j = 0; j < L; ++j) acc[j] += xr[i + j];\n    double tail = 0.0;\n    for (; i < n; ++i) tail += xr[i];\n    for (int w = L / 2; w > 0; w /= 2) for (int j = 0; j < w; ++j) acc[j] += acc[j + w];\n    const float mean = float((acc[0] + tail) / double(n));\n    double acc2[L] = {};\n    i = 0;\n    for (; i + L <= n; i += L)\n      for (int j = 0; j < L; ++j) {\n        const float d = xr[i + j] - mean;\n        acc2[j] += double(d) * d;\n      }\n    double tail2 = 0.0;\n    for (; i < n; ++i) {\n      const float d = xr[i] - mean;\n      tail2 += double(d) * d;\n    }\n    for (int w = L / 2; w > 0; w /= 2) for (int j = 0; j < w; ++j) acc2[j] += acc2[j + w];\n    const float inv = 1.0f / std::sqrt(float((acc2[0] + tail2) / double(n)) + eps);\n    for (std::int64_t k = 0; k < n; ++k) yr[k] = (xr[k] - mean) * inv;\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(Standardize, StandardizeImpl,\n                              ffi::Ffi::Bind()\n                                  .Attr<float>("eps")\n                                  .Arg<ffi::Buffer<ffi::F32>>()\n                                  .Ret<ffi::Buffer<ffi::F32>>());\n"""\nstandardize_lib = grader.build(code=standardize_cc, name="standardize_dlanes", flags=("-O3", "-march=native"))\nstandardize_lib.register_ffi_target("ex1.standardize_dlanes", "Standardize")\n\ndef standardize_rows(x, eps=1e-5):\n    out = jax.ShapeDtypeStruct(x.shape, jnp.float32)\n    return jax.ffi.ffi_call("ex1.standardize_dlanes", out, vmap_method="broadcast_all")(x, eps=np.float32(eps))\n', timing=True))
RIGHT['ex2_answer'].append(R('a parallel loop of its own: shared_ptr state, the caller takes chunks, then yields until done',
    'scale_rows_cc = r"""\n#include <algorithm>\n#include <atomic>\n#include <cstdint>\n#include <memory>\n#include <thread>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\nnamespace {\nstruct Job {\n  const float* in;\n  const float* sc;\n  float* out;\n  std::int64_t n, rows, chunk, chunks;\n  std::atomic<std::int64_t> next{0};\n  std::atomic<std::int64_t> done{0};\n  void Work() {\n    for (std::int64_t c = next.fetch_add(1); c < chunks; c = next.fetch_add(1)) {\n      const std::int64_t b = c * chunk, e = std::min(rows, b + chunk);\n      for (std::int64_t r = b; r < e; ++r)\n        for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * sc[r];\n      done.fetch_add(1, std::memory_order_release);\n    }\n  }\n};\n}  // namespace\n\nstatic ffi::Error ScaleRowsImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s,\n                                ffi::ResultBuffer<ffi::F32> y) {\n  const auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("scale_rows: x needs an axis");\n  const std::int64_t n = dims.back();\n  const std::int64_t rows = s.element_count();\n  if (rows * n != x.element_count() || y->element_count() != x.element_count())\n    return ffi::Error::InvalidArgument("scale_rows: s must have shape x.shape[:-1]");\n  const float* in = x.typed_data();\n  const float* sc = s.typed_data();\n  float* out = y->typed_data();\n  const std::int64_t chunk = std::max<std::int64_t>(4, 16384 / std::max<std::int64_t>(n, 1));\n  if (rows == 0 || n == 0) return ffi::Error::Success();\n  auto job = std::make_shared<Job>();\n  job->in = in; job->sc = sc; job->out = out; job->n = n; job->rows = rows; job->chunk = chunk;\n  job->chunks = (rows + chunk - 1) / chunk;\n  const std::int64_t tasks = std::min<std::int64_t>(pool.num_threads(), job->chunks - 1);\n  for (std::int64_t t = 0; t < tasks; ++t) pool.Schedule([job] { job->Work(); });\n  job->Work();\n  while (job->done.load(std::memory_order_acquire) < job->chunks) std::this_thread::yield();\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleRows, ScaleRowsImpl,\n                              ffi::Ffi::Bind()\n                                  .Ctx<ffi::ThreadPool>()\n                                  .Arg<ffi::Buffer<ffi::F32>>()   // x\n                                  .Arg<ffi::Buffer<ffi::F32>>()   // s\n                                  .Ret<ffi::Buffer<ffi::F32>>()); // y, in x\'s buffer\n"""\nscale_rows_lib = grader.build(code=scale_rows_cc, name="scale_rows_own_loop", flags=("-O3", "-march=native"))\nscale_rows_lib.register_ffi_target("ex2.scale_rows_own_loop", "ScaleRows")\n\ndef scale_rows(x, s):\n    return jax.ffi.ffi_call("ex2.scale_rows_own_loop", jax.ShapeDtypeStruct(x.shape, x.dtype),\n                            input_output_aliases={0: 0}, vmap_method="broadcast_all")(x, jnp.asarray(s, jnp.float32))\n\nscale_rows_inplace = jax.jit(scale_rows, donate_argnums=0)\n'))
RIGHT['ex3_answer'].append(R('the backward row in two loops that are safe in place (write g/r while summing x.g, then subtract)',
    'l2_cc = r"""\n#include <cmath>\n#include <cstdint>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\nstatic ffi::Error L2FwdImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  const auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("l2_normalize: x needs an axis");\n  const std::int64_t n = dims.back();\n  if (y->element_count() != x.element_count()) return ffi::Error::InvalidArgument("l2_normalize: y size");\n  if (n == 0) return ffi::Error::Success();\n  const std::int64_t rows = x.element_count() / n;\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* xr = in + r * n;\n    const float inv = 1.0f / std::sqrt(jbj_fast::DotLanes(xr, xr, n) + eps);\n    for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = xr[i] * inv;\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(L2Fwd, L2FwdImpl,\n                              ffi::Ffi::Bind()\n                                  .Attr<float>("eps")\n                                  .Arg<ffi::Buffer<ffi::F32>>()\n                                  .Ret<ffi::Buffer<ffi::F32>>());\n\nstatic ffi::Error L2BwdImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct_y,\n                            ffi::ResultBuffer<ffi::F32> ct_x) {\n  const auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("l2_normalize_bwd: x needs an axis");\n  const std::int64_t n = dims.back();\n  if (ct_y.element_count() != x.element_count() || ct_x->element_count() != x.element_count())\n    return ffi::Error::InvalidArgument("l2_normalize_bwd: sizes");\n  if (n == 0) return ffi::Error::Success();\n  const std::int64_t rows = x.element_count() / n;\n  const float* in = x.typed_data();\n  const float* g = ct_y.typed_data();\n  float* out = ct_x->typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* xr = in + r * n;\n    const float* gr = g + r * n;\n    float* o = out + r * n;\n    const float inv = 1.0f / std::sqrt(jbj_fast::DotLanes(xr, xr, n) + eps);\n    float acc[jbj_fast::kLanes] = {};\n    std::int64_t i = 0;\n    for (; i + jbj_fast::kLanes <= n; i += jbj_fast::kLanes)\n      for (int j = 0; j < jbj_fast::kLanes; ++j) {\n        const float gv = gr[i + j];\n        acc[j] += xr[i + j] * gv;\n        o[i + j] = gv * inv;\n      }\n    float tail = 0.0f;\n    for (; i < n; ++i) {\n      const float gv = gr[i];\n      tail += xr[i] * gv;\n      o[i] = gv * inv;\n    }\n    const float k = jbj_fast::SumLanes(acc, tail) * inv * inv * inv;\n    for (std::int64_t m = 0; m < n; ++m) o[m] -= xr[m] * k;\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(L2Bwd, L2BwdImpl,\n                              ffi::Ffi::Bind()\n                                  .Attr<float>("eps")\n                                  .Arg<ffi::Buffer<ffi::F32>>()   // x\n                                  .Arg<ffi::Buffer<ffi::F32>>()   // ct_y\n                                  .Ret<ffi::Buffer<ffi::F32>>()); // ct_x, over ct_y\n"""\nl2_lib = grader.build(code=l2_cc, name="l2_two_loops", flags=("-O3", "-march=native"))\nl2_lib.register_ffi_target("ex3.l2_fwd_two_loops", "L2Fwd")\nl2_lib.register_ffi_target("ex3.l2_bwd_two_loops", "L2Bwd")\n\n\n@partial(jax.custom_vjp, nondiff_argnums=(1,))\ndef l2_normalize(x, eps=1e-6):\n    return jax.ffi.ffi_call("ex3.l2_fwd_two_loops", jax.ShapeDtypeStruct(x.shape, jnp.float32),\n                            vmap_method="broadcast_all")(x, eps=np.float32(eps))\n\n\ndef _l2_fwd(x, eps=1e-6):\n    return l2_normalize(x, eps), x\n\n\ndef _l2_bwd(eps, x, ct_y):\n    ct_x = jax.ffi.ffi_call("ex3.l2_bwd_two_loops", jax.ShapeDtypeStruct(x.shape, jnp.float32), vmap_method="broadcast_all",\n                            input_output_aliases={1: 0})(x, ct_y, eps=np.float32(eps))\n    return (ct_x,)\n\n\nl2_normalize.defvjp(_l2_fwd, _l2_bwd)\n'))


# A third fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex1_answer'] += [
    W('c', 'the mean from the plain sum of x: a row of 1000 equal values 0.7 does not sum to 700, and its outputs are far from 0',
      'standardize_cc = r"""\n#include <cmath>\n#include <cstdint>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nstatic ffi::Error StandardizeImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("standardize: x needs an axis");\n  const std::int64_t n = dims.back();\n  std::int64_t rows = 1;\n  for (std::size_t i = 0; i + 1 < dims.size(); ++i) rows *= dims[i];\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n  constexpr int L = jbj_fast::kLanes;\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* xr = in + r * n;\n    float* yr = out + r * n;\n    float acc[L] = {};\n    std::int64_t i = 0;\n    for (; i + L <= n; i += L)\n      for (int j = 0; j < L; ++j) acc[j] += xr[i + j];\n    float tail = 0.0f;\n    for (; i < n; ++i) tail += xr[i];\n    const float mean = n > 0 ? jbj_fast::SumLanes(acc, tail) / float(n) : 0.0f;\n    float acc2[L] = {};\n    i = 0;\n    for (; i + L <= n; i += L)\n      for (int j = 0; j < L; ++j) { const float d = xr[i + j] - mean; acc2[j] += d * d; }\n    float tail2 = 0.0f;\n    for (; i < n; ++i) { const float d = xr[i] - mean; tail2 += d * d; }\n    const float var = n > 0 ? jbj_fast::SumLanes(acc2, tail2) / float(n) : 0.0f;\n    const float s = 1.0f / std::sqrt(var + eps);\n    for (std::int64_t k = 0; k < n; ++k) yr[k] = (xr[k] - mean) * s;\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(Standardize, StandardizeImpl,\n                              ffi::Ffi::Bind().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n"""\nstandardize_lib = grader.build(code=standardize_cc, name="standardize_rows", flags=("-O3", "-march=native"))\nstandardize_lib.register_ffi_target("b4_ex1w0.standardize", "Standardize")\n\ndef standardize_rows(x, eps=1e-5):\n    x = jnp.asarray(x, jnp.float32)\n    return jax.ffi.ffi_call("b4_ex1w0.standardize", jax.ShapeDtypeStruct(x.shape, x.dtype),\n                            vmap_method="broadcast_all")(x, eps=np.float32(eps))\n'),
]
WRONG['ex1_answer'] += [
    W('c', 'rows flattened in Python with x.reshape(-1, x.shape[-1]): rows of length 0 raise ZeroDivisionError',
      'standardize_cc = r"""\n#include <cmath>\n#include <cstdint>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nstatic ffi::Error StandardizeImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("standardize: x needs an axis");\n  const std::int64_t n = dims.back();\n  std::int64_t rows = 1;\n  for (std::size_t i = 0; i + 1 < dims.size(); ++i) rows *= dims[i];\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n  constexpr int L = jbj_fast::kLanes;\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* xr = in + r * n;\n    float* yr = out + r * n;\n    const float x0 = n > 0 ? xr[0] : 0.0f;   // shift: sums of x - x0 are exact-ish and zero for equal rows\n    float acc[L] = {};\n    std::int64_t i = 0;\n    for (; i + L <= n; i += L)\n      for (int j = 0; j < L; ++j) acc[j] += xr[i + j] - x0;\n    float tail = 0.0f;\n    for (; i < n; ++i) tail += xr[i] - x0;\n    const float mean = n > 0 ? jbj_fast::SumLanes(acc, tail) / float(n) : 0.0f;\n    float acc2[L] = {};\n    i = 0;\n    for (; i + L <= n; i += L)\n      for (int j = 0; j < L; ++j) { const float d = (xr[i + j] - x0) - mean; acc2[j] += d * d; }\n    float tail2 = 0.0f;\n    for (; i < n; ++i) { const float d = (xr[i] - x0) - mean; tail2 += d * d; }\n    const float var = n > 0 ? jbj_fast::SumLanes(acc2, tail2) / float(n) : 0.0f;\n    const float s = 1.0f / std::sqrt(var + eps);\n    for (std::int64_t k = 0; k < n; ++k) yr[k] = ((xr[k] - x0) - mean) * s;\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(Standardize, StandardizeImpl,\n                              ffi::Ffi::Bind().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n"""\nstandardize_lib = grader.build(code=standardize_cc, name="standardize_rows", flags=("-O3", "-march=native"))\nstandardize_lib.register_ffi_target("b4_ex1w6.standardize", "Standardize")\n\ndef standardize_rows(x, eps=1e-5):\n    x = jnp.asarray(x, jnp.float32)\n    rows = x.reshape(-1, x.shape[-1])            # the handler sees a 2-D array\n    y = jax.ffi.ffi_call("b4_ex1w6.standardize", jax.ShapeDtypeStruct(rows.shape, rows.dtype),\n                         vmap_method="broadcast_all")(rows, eps=np.float32(eps))\n    return y.reshape(x.shape)\n'),
]


# A fourth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex3_answer'] += [
    W('m', 'the backward handler hands rows to the pool through ParallelFor: the text keeps both handlers on the calling thread (8 rows of 100 make one chunk, so only a larger input shows it)',
      'bl5_e3w8_cc = r"""\n#include <cmath>\n#include <cstdint>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nstatic ffi::Error Bl5RowsOf(const ffi::Buffer<ffi::F32>& x, std::int64_t* rows, std::int64_t* n) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("x needs an axis");\n  *n = dims.back();\n  *rows = 1;\n  for (std::size_t k = 0; k + 1 < dims.size(); ++k) *rows *= dims[k];\n  return ffi::Error::Success();\n}\n\nstatic ffi::Error Bl5L2Fe3w8Impl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  std::int64_t rows, n;\n  if (auto err = Bl5RowsOf(x, &rows, &n); err.failure()) return err;\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* xr = in + r * n; float* yr = out + r * n;\n    const float inv = 1.0f / std::sqrt(jbj_fast::DotLanes(xr, xr, n) + eps);\n    for (std::int64_t i = 0; i < n; ++i) yr[i] = xr[i] * inv;\n  }\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(Bl5L2Fe3w8, Bl5L2Fe3w8Impl,\n    ffi::Ffi::Bind().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n\nnamespace {\nstruct Bl5P { ffi::ThreadPool& pool;\n  template <typename F> void operator()(F f) const { pool.Schedule(std::move(f)); }\n  int helpers() const { return int(std::max<std::int64_t>(pool.num_threads() - 1, 0)); } };\n}\nstatic ffi::Error Bl5L2Be3w8Impl(ffi::ThreadPool pool, float eps, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct, ffi::ResultBuffer<ffi::F32> ctx) {\n  std::int64_t rows, n;\n  if (auto err = Bl5RowsOf(x, &rows, &n); err.failure()) return err;\n  const float* in = x.typed_data(); const float* g = ct.typed_data(); float* out = ctx->typed_data();\n  Bl5P p{pool};\n  jbj_fast::ParallelFor(rows, std::max<std::int64_t>(4, 65536 / std::max<std::int64_t>(n, 1)), p.helpers(), p,\n    [=](std::int64_t b, std::int64_t e) {\n      for (std::int64_t r = b; r < e; ++r) {\n        const float* xr = in + r * n; const float* gr = g + r * n; float* outr = out + r * n;\n\n    const float xx = jbj_fast::DotLanes(xr, xr, n);\n    const float xg = jbj_fast::DotLanes(xr, gr, n);\n    const float inv = 1.0f / std::sqrt(xx + eps);\n    const float c = xg * inv * inv * inv;\n    for (std::int64_t i = 0; i < n; ++i) outr[i] = gr[i] * inv - xr[i] * c;\n\n      }\n    });\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(Bl5L2Be3w8, Bl5L2Be3w8Impl,\n    ffi::Ffi::Bind().Ctx<ffi::ThreadPool>().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n"""\nbl5_e3w8_lib = grader.build(code=bl5_e3w8_cc, name="bl5_e3w8", flags=("-O3", "-march=native"))\nbl5_e3w8_lib.register_ffi_target("bl5_e3w8_f", "Bl5L2Fe3w8")\nbl5_e3w8_lib.register_ffi_target("bl5_e3w8_b", "Bl5L2Be3w8")\n\ndef bl5_e3w8_fwd_call(x, eps):\n    return jax.ffi.ffi_call("bl5_e3w8_f", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all")(x, eps=np.float32(eps))\n\n\n@partial(jax.custom_vjp, nondiff_argnums=(1,))\ndef l2_normalize(x, eps=1e-6):\n    return bl5_e3w8_fwd_call(x, eps)\n\n\ndef _bl5_e3w8_fwd(x, eps=1e-6):\n    return bl5_e3w8_fwd_call(x, eps), x\n\n\ndef _bl5_e3w8_bwd(eps, x, ct_y):\n    ct_x = jax.ffi.ffi_call("bl5_e3w8_b", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all", input_output_aliases={1: 0}, )(x, ct_y, eps=np.float32(eps))\n    return (ct_x,)\n\n\nl2_normalize.defvjp(_bl5_e3w8_fwd, _bl5_e3w8_bwd)\n'),
]


# A seventh fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex2_answer'] += [
    W('f', 'the caller checks `done` outside the mutex, then waits without a predicate: a lost wake-up in the gap',
      'scale_rows_cc = r"""\n#include <algorithm>\n#include <atomic>\n#include <condition_variable>\n#include <cstdint>\n#include <memory>\n#include <mutex>\n#include <thread>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nnamespace {\nstruct Pool {\n  ffi::ThreadPool& pool;\n  template <typename F>\n  void operator()(F f) const { pool.Schedule(std::move(f)); }\n  int helpers() const { return int(std::max<std::int64_t>(pool.num_threads() - 1, 0)); }\n};\n}\n\nnamespace {\ntemplate <typename Body>\nvoid MyParallelFor(Pool p, std::int64_t count, std::int64_t chunk, Body body) {\n  const std::int64_t chunks = (count + chunk - 1) / chunk;\n  struct State {\n    std::atomic<std::int64_t> next{0}, done{0};\n    std::mutex mutex;\n    std::condition_variable all_done;\n  };\n  auto state = std::make_shared<State>();\n  auto run = [state, count, chunk, chunks, body]() {\n    for (std::int64_t c = state->next.fetch_add(1); c < chunks; c = state->next.fetch_add(1)) {\n      body(c * chunk, std::min(count, (c + 1) * chunk));\n      if (state->done.fetch_add(1) + 1 == chunks) {\n        { std::lock_guard<std::mutex> lock(state->mutex); }\n        state->all_done.notify_all();\n      }\n    }\n  };\n  const int helpers = int(std::min<std::int64_t>(p.helpers(), chunks - 1));\n  for (int h = 0; h < helpers; ++h) p(run);\n  run();\n  if (state->done.load() < chunks) {\n    std::unique_lock<std::mutex> lock(state->mutex);\n    state->all_done.wait(lock);\n  }\n}\n}\n\nstatic ffi::Error ScaleRowsImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s,\n                                ffi::ResultBuffer<ffi::F32> y) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("x needs an axis");\n  const std::int64_t n = dims.back();\n  const std::int64_t rows = s.element_count();\n  if (rows * n != x.element_count() || y->element_count() != x.element_count())\n    return ffi::Error::InvalidArgument("sizes");\n  const float* in = x.typed_data();\n  const float* sc = s.typed_data();\n  float* out = y->typed_data();\n  const std::int64_t chunk = std::max<std::int64_t>(4, 65536 / std::max<std::int64_t>(n, 1));\n  auto body = [=](std::int64_t b, std::int64_t e) {\n    for (std::int64_t r = b; r < e; ++r) {\n      const float f = sc[r];\n      for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * f;\n    }\n  };\n\n  MyParallelFor(Pool{pool}, rows, chunk, body);\n\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(BL8ScaleRows, ScaleRowsImpl,\n    ffi::Ffi::Bind().Ctx<ffi::ThreadPool>().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>()\n        .Ret<ffi::Buffer<ffi::F32>>());\n"""\n\nbl8_scale_lib = grader.build(code=scale_rows_cc, name="bl8_scale_w2h", flags=("-O3", "-march=native"))\nbl8_scale_lib.register_ffi_target("bl8_scale_w2h", "BL8ScaleRows")\n\n\ndef scale_rows(x, s):\n    return jax.ffi.ffi_call("bl8_scale_w2h", jax.ShapeDtypeStruct(x.shape, x.dtype),\n                            input_output_aliases={0: 0})(x, s)\n\n\nscale_rows_inplace = jax.jit(scale_rows, donate_argnums=0)\n'),
]
WRONG['ex2_answer'] += [
    W('m', 'x reshaped to (rows, n) around the call: for x of one or three axes XLA adds a fusion and a copy (no longer in place)',
      'scale_rows_cc = r"""\n#include <algorithm>\n#include <atomic>\n#include <condition_variable>\n#include <cstdint>\n#include <memory>\n#include <mutex>\n#include <thread>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nnamespace {\nstruct Pool {\n  ffi::ThreadPool& pool;\n  template <typename F>\n  void operator()(F f) const { pool.Schedule(std::move(f)); }\n  int helpers() const { return int(std::max<std::int64_t>(pool.num_threads() - 1, 0)); }\n};\n}\n\nstatic ffi::Error ScaleRowsImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s,\n                                ffi::ResultBuffer<ffi::F32> y) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("x needs an axis");\n  const std::int64_t n = dims.back();\n  const std::int64_t rows = s.element_count();\n  if (rows * n != x.element_count() || y->element_count() != x.element_count())\n    return ffi::Error::InvalidArgument("sizes");\n  const float* in = x.typed_data();\n  const float* sc = s.typed_data();\n  float* out = y->typed_data();\n  const std::int64_t chunk = std::max<std::int64_t>(4, 65536 / std::max<std::int64_t>(n, 1));\n  auto body = [=](std::int64_t b, std::int64_t e) {\n    for (std::int64_t r = b; r < e; ++r) {\n      const float f = sc[r];\n      for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * f;\n    }\n  };\n\n  Pool p{pool};\n  jbj_fast::ParallelFor(rows, chunk, p.helpers(), p, body);\n\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(BL8ScaleRows, ScaleRowsImpl,\n    ffi::Ffi::Bind().Ctx<ffi::ThreadPool>().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>()\n        .Ret<ffi::Buffer<ffi::F32>>());\n"""\n\nbl8_scale_lib = grader.build(code=scale_rows_cc, name="bl8_scale_w2m", flags=("-O3", "-march=native"))\nbl8_scale_lib.register_ffi_target("bl8_scale_w2m", "BL8ScaleRows")\n\n\ndef scale_rows(x, s):\n    rows = x.reshape(-1, x.shape[-1])                 # the handler sees (rows, n) always\n    out = jax.ffi.ffi_call("bl8_scale_w2m", jax.ShapeDtypeStruct(rows.shape, x.dtype),\n                           input_output_aliases={0: 0})(rows, s.reshape(-1))\n    return out.reshape(x.shape)\n\n\nscale_rows_inplace = jax.jit(scale_rows, donate_argnums=0)\n'),
]
WRONG['ex2_answer'] += [
    W('f', 'waits once without a predicate (under the mutex): a spurious wake-up returns before every chunk is done',
      'scale_rows_cc = r"""\n#include <algorithm>\n#include <atomic>\n#include <condition_variable>\n#include <cstdint>\n#include <memory>\n#include <mutex>\n#include <thread>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nnamespace {\nstruct Pool {\n  ffi::ThreadPool& pool;\n  template <typename F>\n  void operator()(F f) const { pool.Schedule(std::move(f)); }\n  int helpers() const { return int(std::max<std::int64_t>(pool.num_threads() - 1, 0)); }\n};\n}\n\nnamespace {\ntemplate <typename Body>\nvoid MyParallelFor(Pool p, std::int64_t count, std::int64_t chunk, Body body) {\n  const std::int64_t chunks = (count + chunk - 1) / chunk;\n  struct State {\n    std::atomic<std::int64_t> next{0}, done{0};\n    std::mutex mutex;\n    std::condition_variable all_done;\n  };\n  auto state = std::make_shared<State>();\n  auto run = [state, count, chunk, chunks, body]() {\n    for (std::int64_t c = state->next.fetch_add(1); c < chunks; c = state->next.fetch_add(1)) {\n      body(c * chunk, std::min(count, (c + 1) * chunk));\n      if (state->done.fetch_add(1) + 1 == chunks) {\n        { std::lock_guard<std::mutex> lock(state->mutex); }\n        state->all_done.notify_all();\n      }\n    }\n  };\n  const int helpers = int(std::min<std::int64_t>(p.helpers(), chunks - 1));\n  for (int h = 0; h < helpers; ++h) p(run);\n  run();\n  std::unique_lock<std::mutex> lock(state->mutex);\n  if (state->done.load() < chunks) state->all_done.wait(lock);   // one wait, no loop: a spurious wake-up returns early\n}\n}\n\nstatic ffi::Error ScaleRowsImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s,\n                                ffi::ResultBuffer<ffi::F32> y) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("x needs an axis");\n  const std::int64_t n = dims.back();\n  const std::int64_t rows = s.element_count();\n  if (rows * n != x.element_count() || y->element_count() != x.element_count())\n    return ffi::Error::InvalidArgument("sizes");\n  const float* in = x.typed_data();\n  const float* sc = s.typed_data();\n  float* out = y->typed_data();\n  const std::int64_t chunk = std::max<std::int64_t>(4, 65536 / std::max<std::int64_t>(n, 1));\n  auto body = [=](std::int64_t b, std::int64_t e) {\n    for (std::int64_t r = b; r < e; ++r) {\n      const float f = sc[r];\n      for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * f;\n    }\n  };\n\n  MyParallelFor(Pool{pool}, rows, chunk, body);\n\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(BL8ScaleRows, ScaleRowsImpl,\n    ffi::Ffi::Bind().Ctx<ffi::ThreadPool>().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>()\n        .Ret<ffi::Buffer<ffi::F32>>());\n"""\n\nbl8_scale_lib = grader.build(code=scale_rows_cc, name="bl8_scale_w2n", flags=("-O3", "-march=native"))\nbl8_scale_lib.register_ffi_target("bl8_scale_w2n", "BL8ScaleRows")\n\n\ndef scale_rows(x, s):\n    return jax.ffi.ffi_call("bl8_scale_w2n", jax.ShapeDtypeStruct(x.shape, x.dtype),\n                            input_output_aliases={0: 0})(x, s)\n\n\nscale_rows_inplace = jax.jit(scale_rows, donate_argnums=0)\n'),
]
WRONG['ex3_answer'] += [
    W('m', 'x and ct_y reshaped to (rows, n) around the calls: for x of three axes the donated gradient copies w (a bitcast-copy fusion) and copies the result back, not in place',
      'L2_CC = r"""\n#include <cmath>\n#include <cstdint>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\nusing Rows2 = ffi::Buffer<ffi::F32, 2>;\nusing Rows2Out = ffi::ResultBuffer<ffi::F32, 2>;\n\nstatic ffi::Error FwdImpl(Rows2 x, Rows2Out y, float eps) {\n  const std::int64_t rows = x.dimensions()[0], n = x.dimensions()[1];\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* xr = x.typed_data() + r * n;\n    float* yr = y->typed_data() + r * n;\n    const float len = std::sqrt(jbj_fast::DotLanes(xr, xr, n) + eps);\n    for (std::int64_t i = 0; i < n; ++i) yr[i] = xr[i] / len;\n  }\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(BL8L2FwdB, FwdImpl,\n    ffi::Ffi::Bind().Arg<Rows2>().Ret<Rows2>().Attr<float>("epsilon"));\n\nstatic ffi::Error BwdImpl(Rows2 x, Rows2 ct_y,\n                          Rows2Out ct_x, float eps) {\n  const std::int64_t rows = x.dimensions()[0], n = x.dimensions()[1];\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* xr = x.typed_data() + r * n;\n    const float* gr = ct_y.typed_data() + r * n;\n    float* outr = ct_x->typed_data() + r * n;\n    const float sq = jbj_fast::DotLanes(xr, xr, n);\n    const float xg = jbj_fast::DotLanes(xr, gr, n);\n    const float len = std::sqrt(sq + eps);\n    const float a = 1.0f / len, b = xg / (len * len * len);\n    for (std::int64_t i = 0; i < n; ++i) outr[i] = a * gr[i] - b * xr[i];\n  }\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(BL8L2BwdB, BwdImpl,\n    ffi::Ffi::Bind().Arg<Rows2>().Arg<Rows2>().Ret<Rows2>().Attr<float>("epsilon"));\n"""\nbl8_l2b = grader.build(code=L2_CC, name="bl8_l2b_r3b", flags=("-O3", "-march=native"))\nbl8_l2b.register_ffi_target("bl8_l2b_fwd_r3b", "BL8L2FwdB")\nbl8_l2b.register_ffi_target("bl8_l2b_bwd_r3b", "BL8L2BwdB")\n\n\ndef _bl8_rows(x):\n    return x.reshape(-1, x.shape[-1])\n\n\n@partial(jax.custom_vjp, nondiff_argnums=(1,))\ndef l2_normalize(x, eps=1e-6):\n    y = jax.ffi.ffi_call("bl8_l2b_fwd_r3b", jax.ShapeDtypeStruct(_bl8_rows(x).shape, jnp.float32),\n                         vmap_method="sequential")(_bl8_rows(x), epsilon=np.float32(eps))\n    return y.reshape(x.shape)\n\n\ndef _bl8_fwd(x, eps):\n    return l2_normalize(x, eps), x\n\n\ndef _bl8_bwd(eps, x, ct_y):\n    ct = jax.ffi.ffi_call("bl8_l2b_bwd_r3b", jax.ShapeDtypeStruct(_bl8_rows(x).shape, jnp.float32),\n                          vmap_method="sequential", input_output_aliases={1: 0})(\n        _bl8_rows(x), _bl8_rows(ct_y), epsilon=np.float32(eps))\n    return (ct.reshape(x.shape),)\n\n\nl2_normalize.defvjp(_bl8_fwd, _bl8_bwd)\n'),
]


# An eighth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex1_answer'] += [
    W('d', 'the handler returns only the row statistics; jnp subtracts and multiplies around the call',
      'bl9_std_cc_w7 = r\'\'\'\n#include <cmath>\n#include <cstdint>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\n// sum of (x[i] - c) in 16 lanes\nstatic inline float LaneSum(const float* x, float c, std::int64_t n) {\n  float acc[jbj_fast::kLanes] = {};\n  std::int64_t i = 0;\n  for (; i + jbj_fast::kLanes <= n; i += jbj_fast::kLanes)\n    for (int j = 0; j < jbj_fast::kLanes; ++j) acc[j] += x[i + j] - c;\n  float tail = 0.0f;\n  for (; i < n; ++i) tail += x[i] - c;   // TAIL1\n  return jbj_fast::SumLanes(acc, tail);\n}\n// sum of (x[i] - m)^2 in 16 lanes\nstatic inline float LaneSq(const float* x, float m, std::int64_t n) {\n  float acc[jbj_fast::kLanes] = {};\n  std::int64_t i = 0;\n  for (; i + jbj_fast::kLanes <= n; i += jbj_fast::kLanes)\n    for (int j = 0; j < jbj_fast::kLanes; ++j) { const float d = x[i + j] - m; acc[j] += d * d; }\n  float tail = 0.0f;\n  for (; i < n; ++i) { const float d = x[i] - m; tail += d * d; }   // TAIL2\n  return jbj_fast::SumLanes(acc, tail);\n}\nstatic inline void OneRow(const float* xr, float* yr, std::int64_t n, float eps) {\n  const float x0 = xr[0];\n  const float mean = x0 + LaneSum(xr, x0, n) / float(n);\n  const float var = LaneSq(xr, mean, n) / float(n);\n  const float inv = 1.0f / std::sqrt(var + eps);\n  for (std::int64_t i = 0; i < n; ++i) yr[i] = (xr[i] - mean) * inv;\n}\n\nstatic ffi::Error StdImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> mean_out,\n                          ffi::ResultBuffer<ffi::F32> inv_out) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("standardize_rows: x needs an axis");\n  const std::int64_t n = dims.back();\n  std::int64_t rows = 1;\n  for (std::size_t i = 0; i + 1 < dims.size(); ++i) rows *= dims[i];\n  const float* in = x.typed_data();\n  float* mo = mean_out->typed_data();\n  float* io = inv_out->typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* xr = in + r * n;\n    if (n == 0) { mo[r] = 0.0f; io[r] = 0.0f; continue; }\n    const float x0 = xr[0];\n    const float mean = x0 + LaneSum(xr, x0, n) / float(n);\n    mo[r] = mean;\n    io[r] = 1.0f / std::sqrt(LaneSq(xr, mean, n) / float(n) + eps);\n  }\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(StdRows, StdImpl,\n    ffi::Ffi::Bind().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n\'\'\'\nbl9_std_lib_w7 = grader.build(code=bl9_std_cc_w7, name=\'bl9_std_w7\', flags=(\'-O3\', \'-march=native\'))\nbl9_std_lib_w7.register_ffi_target(\'bl9_std_w7\', \'StdRows\')\n\ndef standardize_rows(x, eps=1e-5):\n    stat = jax.ShapeDtypeStruct(x.shape[:-1], jnp.float32)\n    mean, inv = jax.ffi.ffi_call(\'bl9_std_w7\', (stat, stat), vmap_method=\'broadcast_all\')(x, eps=np.float32(eps))\n    return (x - mean[..., None]) * inv[..., None]\n'),
]


# An eighth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex3_answer'] += [
    W('b', 'the forward rule calls the forward handler with eps fixed at 1e-6 (value_and_grad / vjp values wrong)',
      'bl9_l2_cc_v3 = r\'\'\'\n#include <algorithm>\n#include <cmath>\n#include <cstdint>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nstatic ffi::Error Rows(const ffi::Buffer<ffi::F32>& x, std::int64_t* rows, std::int64_t* n) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("l2_normalize: x needs an axis");\n  *n = dims.back();\n  *rows = 1;\n  for (std::size_t i = 0; i + 1 < dims.size(); ++i) *rows *= dims[i];\n  return ffi::Error::Success();\n}\n\nstatic ffi::Error FwdImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  std::int64_t rows, n;\n  if (auto err = Rows(x, &rows, &n); err.failure()) return err;\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* xr = in + r * n;\n    const float inv = 1.0f / std::sqrt(jbj_fast::DotLanes(xr, xr, n) + eps);\n    for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = xr[i] * inv;\n  }\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(L2Fwd, FwdImpl,\n    ffi::Ffi::Bind().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n\nstatic ffi::Error BwdImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct_y, ffi::ResultBuffer<ffi::F32> ct_x) {\n  std::int64_t rows, n;\n  if (auto err = Rows(x, &rows, &n); err.failure()) return err;\n  if (ct_y.element_count() != x.element_count() || ct_x->element_count() != x.element_count())\n    return ffi::Error::InvalidArgument("l2_normalize_bwd: sizes");\n  const float* in = x.typed_data();\n  const float* g = ct_y.typed_data();\n  float* out = ct_x->typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* xr = in + r * n;\n    const float* gr = g + r * n;\n    float* orow = out + r * n;\n    const float inv = 1.0f / std::sqrt(jbj_fast::DotLanes(xr, xr, n) + eps);\n    const float k = jbj_fast::DotLanes(xr, gr, n) * inv * inv * inv;\n    for (std::int64_t i = 0; i < n; ++i) orow[i] = gr[i] * inv - xr[i] * k;\n  }\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(L2Bwd, BwdImpl,\n    ffi::Ffi::Bind().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n\'\'\'\nbl9_l2_lib_v3 = grader.build(code=bl9_l2_cc_v3, name=\'bl9_l2_v3\', flags=(\'-O3\', \'-march=native\'))\nbl9_l2_lib_v3.register_ffi_target(\'bl9_l2f_v3\', \'L2Fwd\')\nbl9_l2_lib_v3.register_ffi_target(\'bl9_l2b_v3\', \'L2Bwd\')\n\n\ndef _bl9_forward(x, eps):\n    return jax.ffi.ffi_call(\'bl9_l2f_v3\', jax.ShapeDtypeStruct(x.shape, x.dtype),\n                            vmap_method=\'broadcast_all\')(x, eps=np.float32(eps))\n\n\n@partial(jax.custom_vjp, nondiff_argnums=(1,))\ndef l2_normalize(x, eps=1e-6):\n    return _bl9_forward(x, eps)\n\n\ndef _l2_fwd(x, eps=1e-6):\n    return _bl9_forward(x, 1e-6), x\n\n\ndef _l2_bwd(eps, x, ct_y):\n    ct_x = jax.ffi.ffi_call(\'bl9_l2b_v3\', jax.ShapeDtypeStruct(x.shape, x.dtype),\n                            vmap_method=\'broadcast_all\', input_output_aliases={1: 0})(x, ct_y, eps=np.float32(eps))\n    return (ct_x,)\n\n\nl2_normalize.defvjp(_l2_fwd, _l2_bwd)\n'),
]


# An eighth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex1_answer'] += [
    W('d', "rows split with a std::thread of the handler's own: not on the calling thread",
      'bl9_std_cc_v1 = r\'\'\'\n#include <cmath>\n#include <cstdint>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\n// sum of (x[i] - c) in 16 lanes\nstatic inline float LaneSum(const float* x, float c, std::int64_t n) {\n  float acc[jbj_fast::kLanes] = {};\n  std::int64_t i = 0;\n  for (; i + jbj_fast::kLanes <= n; i += jbj_fast::kLanes)\n    for (int j = 0; j < jbj_fast::kLanes; ++j) acc[j] += x[i + j] - c;\n  float tail = 0.0f;\n  for (; i < n; ++i) tail += x[i] - c;   // TAIL1\n  return jbj_fast::SumLanes(acc, tail);\n}\n// sum of (x[i] - m)^2 in 16 lanes\nstatic inline float LaneSq(const float* x, float m, std::int64_t n) {\n  float acc[jbj_fast::kLanes] = {};\n  std::int64_t i = 0;\n  for (; i + jbj_fast::kLanes <= n; i += jbj_fast::kLanes)\n    for (int j = 0; j < jbj_fast::kLanes; ++j) { const float d = x[i + j] - m; acc[j] += d * d; }\n  float tail = 0.0f;\n  for (; i < n; ++i) { const float d = x[i] - m; tail += d * d; }   // TAIL2\n  return jbj_fast::SumLanes(acc, tail);\n}\nstatic inline void OneRow(const float* xr, float* yr, std::int64_t n, float eps) {\n  const float x0 = xr[0];\n  const float mean = x0 + LaneSum(xr, x0, n) / float(n);\n  const float var = LaneSq(xr, mean, n) / float(n);\n  const float inv = 1.0f / std::sqrt(var + eps);\n  for (std::int64_t i = 0; i < n; ++i) yr[i] = (xr[i] - mean) * inv;\n}\n\n#include <thread>\nstatic ffi::Error StdImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("standardize_rows: x needs an axis");\n  const std::int64_t n = dims.back();\n  std::int64_t rows = 1;\n  for (std::size_t i = 0; i + 1 < dims.size(); ++i) rows *= dims[i];\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n  if (n == 0) return ffi::Error::Success();\n  const std::int64_t half = rows / 2;\n  std::thread helper([=] { for (std::int64_t r = half; r < rows; ++r) OneRow(in + r * n, out + r * n, n, eps); });\n  for (std::int64_t r = 0; r < half; ++r) OneRow(in + r * n, out + r * n, n, eps);\n  helper.join();\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(StdRows, StdImpl,\n    ffi::Ffi::Bind().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n\'\'\'\nbl9_std_lib_v1 = grader.build(code=bl9_std_cc_v1, name=\'bl9_std_v1\', flags=(\'-O3\', \'-march=native\', \'-pthread\'))\nbl9_std_lib_v1.register_ffi_target(\'bl9_std_v1\', \'StdRows\')\n\ndef standardize_rows(x, eps=1e-5):\n    return jax.ffi.ffi_call(\'bl9_std_v1\', jax.ShapeDtypeStruct(x.shape, x.dtype),\n                            vmap_method=\'broadcast_all\')(x, eps=np.float32(eps))\n'),
]
WRONG['ex3_answer'] += [
    W('d', 'the backward handler splits its rows with a std::thread of its own',
      'bl9_l2_cc_v4 = r\'\'\'\n#include <algorithm>\n#include <thread>\n#include <cmath>\n#include <cstdint>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nstatic ffi::Error Rows(const ffi::Buffer<ffi::F32>& x, std::int64_t* rows, std::int64_t* n) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("l2_normalize: x needs an axis");\n  *n = dims.back();\n  *rows = 1;\n  for (std::size_t i = 0; i + 1 < dims.size(); ++i) *rows *= dims[i];\n  return ffi::Error::Success();\n}\n\nstatic ffi::Error FwdImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  std::int64_t rows, n;\n  if (auto err = Rows(x, &rows, &n); err.failure()) return err;\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* xr = in + r * n;\n    const float inv = 1.0f / std::sqrt(jbj_fast::DotLanes(xr, xr, n) + eps);\n    for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = xr[i] * inv;\n  }\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(L2Fwd, FwdImpl,\n    ffi::Ffi::Bind().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n\nstatic ffi::Error BwdImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct_y, ffi::ResultBuffer<ffi::F32> ct_x) {\n  std::int64_t rows, n;\n  if (auto err = Rows(x, &rows, &n); err.failure()) return err;\n  if (ct_y.element_count() != x.element_count() || ct_x->element_count() != x.element_count())\n    return ffi::Error::InvalidArgument("l2_normalize_bwd: sizes");\n  const float* in = x.typed_data();\n  const float* g = ct_y.typed_data();\n  float* out = ct_x->typed_data();\n  auto rows_of = [=](std::int64_t b, std::int64_t e) {\n  for (std::int64_t r = b; r < e; ++r) {\n    const float* xr = in + r * n;\n    const float* gr = g + r * n;\n    float* orow = out + r * n;\n    const float inv = 1.0f / std::sqrt(jbj_fast::DotLanes(xr, xr, n) + eps);\n    const float k = jbj_fast::DotLanes(xr, gr, n) * inv * inv * inv;\n    for (std::int64_t i = 0; i < n; ++i) orow[i] = gr[i] * inv - xr[i] * k;\n  }\n  };\n  std::thread helper(rows_of, rows / 2, rows);\n  rows_of(0, rows / 2);\n  helper.join();\n  return ffi::Error::Success();\n}\nXLA_FFI_DEFINE_HANDLER_SYMBOL(L2Bwd, BwdImpl,\n    ffi::Ffi::Bind().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n\'\'\'\nbl9_l2_lib_v4 = grader.build(code=bl9_l2_cc_v4, name=\'bl9_l2_v4\', flags=(\'-O3\', \'-march=native\', \'-pthread\'))\nbl9_l2_lib_v4.register_ffi_target(\'bl9_l2f_v4\', \'L2Fwd\')\nbl9_l2_lib_v4.register_ffi_target(\'bl9_l2b_v4\', \'L2Bwd\')\n\n\ndef _bl9_forward(x, eps):\n    return jax.ffi.ffi_call(\'bl9_l2f_v4\', jax.ShapeDtypeStruct(x.shape, x.dtype),\n                            vmap_method=\'broadcast_all\')(x, eps=np.float32(eps))\n\n\n@partial(jax.custom_vjp, nondiff_argnums=(1,))\ndef l2_normalize(x, eps=1e-6):\n    return _bl9_forward(x, eps)\n\n\ndef _l2_fwd(x, eps=1e-6):\n    return _bl9_forward(x, eps), x\n\n\ndef _l2_bwd(eps, x, ct_y):\n    ct_x = jax.ffi.ffi_call(\'bl9_l2b_v4\', jax.ShapeDtypeStruct(x.shape, x.dtype),\n                            vmap_method=\'broadcast_all\', input_output_aliases={1: 0})(x, ct_y, eps=np.float32(eps))\n    return (ct_x,)\n\n\nl2_normalize.defvjp(_l2_fwd, _l2_bwd)\n'),
]


# A ninth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex1_answer'] += [
    W('d', 'rows split by OpenMP (#pragma omp parallel for, -fopenmp): threads of its own, not the calling thread',
      'bl10_std_lib = grader.build(code=r"""\n#include <cmath>\n#include <cstdint>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nstatic void Bl10StdRow(const float* x, float* y, std::int64_t n, float eps) {\n  const float x0 = x[0];\n  float acc[jbj_fast::kLanes] = {};\n  std::int64_t i = 0;\n  for (; i + jbj_fast::kLanes <= n; i += jbj_fast::kLanes)\n    for (int j = 0; j < jbj_fast::kLanes; ++j) acc[j] += x[i + j] - x0;\n  float tail = 0.0f;\n  for (; i < n; ++i) tail += x[i] - x0;\n  const float mean = x0 + jbj_fast::SumLanes(acc, tail) / float(n);\n  float acc2[jbj_fast::kLanes] = {};\n  i = 0;\n  for (; i + jbj_fast::kLanes <= n; i += jbj_fast::kLanes)\n    for (int j = 0; j < jbj_fast::kLanes; ++j) { float d = x[i + j] - mean; acc2[j] += d * d; }\n  float tail2 = 0.0f;\n  for (; i < n; ++i) { float d = x[i] - mean; tail2 += d * d; }\n  const float var = jbj_fast::SumLanes(acc2, tail2) / float(n);\n  const float inv = 1.0f / std::sqrt(var + eps);\n  for (i = 0; i < n; ++i) y[i] = (x[i] - mean) * inv;\n}\n\nstatic ffi::Error Bl10StdImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("x needs an axis");\n  const std::int64_t n = dims.back();\n  if (n == 0) return ffi::Error::Success();\n  const std::int64_t rows = x.element_count() / n;\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n#pragma omp parallel for\n  for (std::int64_t r = 0; r < rows; ++r) Bl10StdRow(in + r * n, out + r * n, n, eps);\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(Bl10Std, Bl10StdImpl,\n    ffi::Ffi::Bind().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n""", name="bl10_std_b2", flags=("-O3", "-march=native", "-fopenmp"))\nbl10_std_lib.register_ffi_target("bl10.std_b2", "Bl10Std")\n\ndef standardize_rows(x, eps=1e-5):\n    return jax.ffi.ffi_call("bl10.std_b2", jax.ShapeDtypeStruct(x.shape, x.dtype),\n                            vmap_method="broadcast_all")(x, eps=np.float32(eps))\n'),
]
WRONG['ex3_answer'] += [
    W('m', 'saves (x, y) as residuals though the backward only reads x: the forward call stays in the compiled gradient',
      'bl10_l2_lib = grader.build(code=r"""\n#include <cmath>\n#include <cstdint>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nstatic ffi::Error Bl10L2FwdImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("x needs an axis");\n  const std::int64_t n = dims.back();\n  if (n == 0) return ffi::Error::Success();\n  const std::int64_t rows = x.element_count() / n;\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* xr = in + r * n;\n    const float inv = 1.0f / std::sqrt(jbj_fast::DotLanes(xr, xr, n) + eps);\n    for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = xr[i] * inv;\n  }\n  return ffi::Error::Success();\n}\n\nstatic ffi::Error Bl10L2BwdImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct_y,\n                                ffi::ResultBuffer<ffi::F32> ct_x) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("x needs an axis");\n  const std::int64_t n = dims.back();\n  if (n == 0) return ffi::Error::Success();\n  const std::int64_t rows = x.element_count() / n;\n  const float* in = x.typed_data();\n  const float* g = ct_y.typed_data();\n  float* out = ct_x->typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* xr = in + r * n;\n    const float* gr = g + r * n;\n    const float rr = std::sqrt(jbj_fast::DotLanes(xr, xr, n) + eps);\n    const float dot = jbj_fast::DotLanes(xr, gr, n);\n    const float a = 1.0f / rr;\n    const float b = dot / (rr * rr * rr);\n    float* o = out + r * n;\n    for (std::int64_t i = 0; i < n; ++i) o[i] = gr[i] * a - xr[i] * b;\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(Bl10L2Fwd, Bl10L2FwdImpl,\n    ffi::Ffi::Bind().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\nXLA_FFI_DEFINE_HANDLER_SYMBOL(Bl10L2Bwd, Bl10L2BwdImpl,\n    ffi::Ffi::Bind().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>()\n        .Ret<ffi::Buffer<ffi::F32>>());\n""", name="bl10_l2_w2", flags=("-O3", "-march=native"))\nbl10_l2_lib.register_ffi_target("bl10.l2_fwd_w2", "Bl10L2Fwd")\nbl10_l2_lib.register_ffi_target("bl10.l2_bwd_w2", "Bl10L2Bwd")\n\n\n@partial(jax.custom_vjp, nondiff_argnums=(1,))\ndef l2_normalize(x, eps=1e-6):\n    return jax.ffi.ffi_call("bl10.l2_fwd_w2", jax.ShapeDtypeStruct(x.shape, x.dtype),\n                            vmap_method="broadcast_all")(x, eps=np.float32(eps))\n\n\ndef _bl10_fwd(x, eps=1e-6):\n    y = l2_normalize(x, eps)\n    return y, (x, y)\n\n\ndef _bl10_bwd(eps, res, ct_y):\n    x, y = res\n    ct_x = jax.ffi.ffi_call("bl10.l2_bwd_w2", jax.ShapeDtypeStruct(x.shape, x.dtype),\n                            vmap_method="broadcast_all", input_output_aliases={1: 0})(x, ct_y, eps=np.float32(eps))\n    return (ct_x,)\n\n\nl2_normalize.defvjp(_bl10_fwd, _bl10_bwd)\n'),
]
WRONG['ex3_answer'] += [
    W('c', 'row lengths from one in-order float sum (no lane sums): right to rtol 2e-6 only for short rows',
      'bl10_l2_lib = grader.build(code=r"""\n#include <cmath>\n#include <cstdint>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\nstatic float Bl10Chain(const float* a, const float* b, std::int64_t n) {\n  float s = 0.0f;\n  for (std::int64_t i = 0; i < n; ++i) s += a[i] * b[i];   // one chain, in order\n  return s;\n}\n\nstatic ffi::Error Bl10L2FwdImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("x needs an axis");\n  const std::int64_t n = dims.back();\n  if (n == 0) return ffi::Error::Success();\n  const std::int64_t rows = x.element_count() / n;\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* xr = in + r * n;\n    const float inv = 1.0f / std::sqrt(Bl10Chain(xr, xr, n) + eps);\n    for (std::int64_t i = 0; i < n; ++i) out[r * n + i] = xr[i] * inv;\n  }\n  return ffi::Error::Success();\n}\n\nstatic ffi::Error Bl10L2BwdImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct_y,\n                                ffi::ResultBuffer<ffi::F32> ct_x) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("x needs an axis");\n  const std::int64_t n = dims.back();\n  if (n == 0) return ffi::Error::Success();\n  const std::int64_t rows = x.element_count() / n;\n  const float* in = x.typed_data();\n  const float* g = ct_y.typed_data();\n  float* out = ct_x->typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* xr = in + r * n;\n    const float* gr = g + r * n;\n    const float rr = std::sqrt(Bl10Chain(xr, xr, n) + eps);\n    const float dot = jbj_fast::DotLanes(xr, gr, n);\n    const float a = 1.0f / rr;\n    const float b = dot / (rr * rr * rr);\n    float* o = out + r * n;\n    for (std::int64_t i = 0; i < n; ++i) o[i] = gr[i] * a - xr[i] * b;\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(Bl10L2Fwd, Bl10L2FwdImpl,\n    ffi::Ffi::Bind().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\nXLA_FFI_DEFINE_HANDLER_SYMBOL(Bl10L2Bwd, Bl10L2BwdImpl,\n    ffi::Ffi::Bind().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>()\n        .Ret<ffi::Buffer<ffi::F32>>());\n""", name="bl10_l2_b1x", flags=("-O3", "-march=native"))\nbl10_l2_lib.register_ffi_target("bl10.l2_fwd_b1x", "Bl10L2Fwd")\nbl10_l2_lib.register_ffi_target("bl10.l2_bwd_b1x", "Bl10L2Bwd")\n\n\n@partial(jax.custom_vjp, nondiff_argnums=(1,))\ndef l2_normalize(x, eps=1e-6):\n    return jax.ffi.ffi_call("bl10.l2_fwd_b1x", jax.ShapeDtypeStruct(x.shape, x.dtype),\n                            vmap_method="broadcast_all")(x, eps=np.float32(eps))\n\n\ndef _bl10_fwd(x, eps=1e-6):\n    return l2_normalize(x, eps), x\n\n\ndef _bl10_bwd(eps, x, ct_y):\n    ct_x = jax.ffi.ffi_call("bl10.l2_bwd_b1x", jax.ShapeDtypeStruct(x.shape, x.dtype),\n                            vmap_method="broadcast_all", input_output_aliases={1: 0})(x, ct_y, eps=np.float32(eps))\n    return (ct_x,)\n\n\nl2_normalize.defvjp(_bl10_fwd, _bl10_bwd)\n'),
]


# A tenth fresh blind round, written from the texts alone: answers a visible check missed (now caught), and
# right answers by the texts.
WRONG['ex2_answer'] += [
    W('m', "scale_rows itself is jitted with donation: calling scale_rows(x, s) deletes the caller's x",
      'scale_rows_cc = r\'\'\'\n#include <algorithm>\n#include <cstdint>\n#include <utility>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nnamespace {\nstruct Pool {\n  ffi::ThreadPool& pool;\n  template <typename F>\n  void operator()(F f) const { pool.Schedule(std::move(f)); }\n  int helpers() const { return int(std::max<std::int64_t>(pool.num_threads() - 1, 0)); }\n};\n}  // namespace\n\nstatic ffi::Error ScaleRowsImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s,\n                                ffi::ResultBuffer<ffi::F32> y) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("scale_rows: x needs an axis");\n  const std::int64_t n = dims.back();\n  std::int64_t rows = 1;\n  for (std::size_t k = 0; k + 1 < dims.size(); ++k) rows *= dims[k];\n  if (s.element_count() != rows) return ffi::Error::InvalidArgument("scale_rows: s needs one value per row");\n  const float* in = x.typed_data();\n  const float* sc = s.typed_data();\n  float* out = y->typed_data();\n  const std::int64_t chunk = std::max<std::int64_t>(1, 16384 / std::max<std::int64_t>(n, 1));\n  Pool p{pool};\n  jbj_fast::ParallelFor(rows, chunk, p.helpers(), p, [=](std::int64_t b, std::int64_t e) {\n    for (std::int64_t r = b; r < e; ++r) {\n      const float f = sc[r];\n      const float* xr = in + r * n;\n      float* yr = out + r * n;\n      for (std::int64_t i = 0; i < n; ++i) yr[i] = xr[i] * f;\n    }\n  });\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleRows, ScaleRowsImpl,\n                              ffi::Ffi::Bind()\n                                  .Ctx<ffi::ThreadPool>()\n                                  .Arg<ffi::Buffer<ffi::F32>>()\n                                  .Arg<ffi::Buffer<ffi::F32>>()\n                                  .Ret<ffi::Buffer<ffi::F32>>());\n\'\'\'\n\nscale_lib = grader.build(code=scale_rows_cc, name="bl11_e2v3", flags=("-O3", "-march=native"))\nscale_lib.register_ffi_target("bl11_e2v3", "ScaleRows")\n\n\n@partial(jax.jit, donate_argnums=0)\ndef scale_rows(x, s):\n    return jax.ffi.ffi_call("bl11_e2v3", jax.ShapeDtypeStruct(x.shape, x.dtype),\n                            input_output_aliases={0: 0})(x, s)\n\nscale_rows_inplace = jax.jit(scale_rows, donate_argnums=0)\n'),
]
WRONG['ex3_answer'] += [
    W('d', 'the forward rule (fwd of the custom_vjp) computes y in jnp; only the primal and the backward use FFI handlers',
      'l2_cc = r\'\'\'\n#include <cmath>\n#include <cstdint>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nstatic void RowsOf(const ffi::Buffer<ffi::F32>& x, std::int64_t* rows, std::int64_t* n) {\n  auto dims = x.dimensions();\n  *n = dims.size() ? dims.back() : 1;\n  *rows = 1;\n  for (std::size_t k = 0; k + 1 < dims.size(); ++k) *rows *= dims[k];\n}\n\nstatic ffi::Error L2FwdImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  std::int64_t rows, n;\n  RowsOf(x, &rows, &n);\n  const float* in = x.typed_data();\n  float* out = y->typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* xr = in + r * n;\n    float* yr = out + r * n;\n    const float inv = 1.0f / std::sqrt(jbj_fast::DotLanes(xr, xr, n) + eps);\n    for (std::int64_t i = 0; i < n; ++i) yr[i] = xr[i] * inv;\n  }\n  return ffi::Error::Success();\n}\n\nstatic ffi::Error L2BwdImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct_y,\n                            ffi::ResultBuffer<ffi::F32> ct_x) {\n  std::int64_t rows, n;\n  RowsOf(x, &rows, &n);\n  if (ct_y.element_count() != x.element_count() || ct_x->element_count() != x.element_count())\n    return ffi::Error::InvalidArgument("l2_normalize bwd: sizes differ");\n  const float* in = x.typed_data();\n  const float* g = ct_y.typed_data();\n  float* out = ct_x->typed_data();\n  for (std::int64_t r = 0; r < rows; ++r) {\n    const float* xr = in + r * n;\n    const float* gr = g + r * n;\n    float* orow = out + r * n;\n    const float sq = jbj_fast::DotLanes(xr, xr, n);\n    const float dot = jbj_fast::DotLanes(xr, gr, n);\n    const float len = std::sqrt(sq + eps);\n    const float inv = 1.0f / len;\n    const float c = dot * inv * inv * inv;\n    for (std::int64_t i = 0; i < n; ++i) orow[i] = gr[i] * inv - xr[i] * c;\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(L2Fwd, L2FwdImpl,\n                              ffi::Ffi::Bind()\n                                  .Attr<float>("eps")\n                                  .Arg<ffi::Buffer<ffi::F32>>()\n                                  .Ret<ffi::Buffer<ffi::F32>>());\nXLA_FFI_DEFINE_HANDLER_SYMBOL(L2Bwd, L2BwdImpl,\n                              ffi::Ffi::Bind()\n                                  .Attr<float>("eps")\n                                  .Arg<ffi::Buffer<ffi::F32>>()\n                                  .Arg<ffi::Buffer<ffi::F32>>()\n                                  .Ret<ffi::Buffer<ffi::F32>>());\n\'\'\'\n\nl2_lib = grader.build(code=l2_cc, name="bl11_e3v3", flags=("-O3", "-march=native"))\nl2_lib.register_ffi_target("bl11_e3v3_fwd", "L2Fwd")\nl2_lib.register_ffi_target("bl11_e3v3_bwd", "L2Bwd")\n\n\n@partial(jax.custom_vjp, nondiff_argnums=(1,))\ndef l2_normalize(x, eps=1e-6):\n    return jax.ffi.ffi_call("bl11_e3v3_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype),\n                            vmap_method="broadcast_all")(x, eps=np.float32(eps))\n\n\ndef _l2_fwd(x, eps=1e-6):\n    return x / jnp.sqrt(jnp.sum(x * x, axis=-1, keepdims=True) + eps), x\n\n\ndef _l2_bwd(eps, x, ct_y):\n    ct_x = jax.ffi.ffi_call("bl11_e3v3_bwd", jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all",\n                            input_output_aliases={1: 0})(x, ct_y, eps=np.float32(eps))\n    return (ct_x,)\n\n\nl2_normalize.defvjp(_l2_fwd, _l2_bwd)\n'),
]
RIGHT.setdefault('ex2_answer', []).extend([
    R('shared_ptr claim counter, caller takes chunks, then spins (yield) until every chunk is done: no condition variable',
      'scale_rows_cc = r\'\'\'\n#include <algorithm>\n#include <cstdint>\n#include <utility>\n#include <atomic>\n#include <memory>\n#include <thread>\n#include "fast_rms_norm.h"\n#include "xla/ffi/api/ffi.h"\nnamespace ffi = xla::ffi;\n\nnamespace {\nstruct Pool {\n  ffi::ThreadPool& pool;\n  template <typename F>\n  void operator()(F f) const { pool.Schedule(std::move(f)); }\n  int helpers() const { return int(std::max<std::int64_t>(pool.num_threads() - 1, 0)); }\n};\n}  // namespace\n\nstatic ffi::Error ScaleRowsImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> s,\n                                ffi::ResultBuffer<ffi::F32> y) {\n  auto dims = x.dimensions();\n  if (dims.size() == 0) return ffi::Error::InvalidArgument("scale_rows: x needs an axis");\n  const std::int64_t n = dims.back();\n  std::int64_t rows = 1;\n  for (std::size_t k = 0; k + 1 < dims.size(); ++k) rows *= dims[k];\n  if (s.element_count() != rows) return ffi::Error::InvalidArgument("scale_rows: s needs one value per row");\n  const float* in = x.typed_data();\n  const float* sc = s.typed_data();\n  float* out = y->typed_data();\n  const std::int64_t chunk = std::max<std::int64_t>(1, 16384 / std::max<std::int64_t>(n, 1));\n  struct State { std::atomic<std::int64_t> next{0}, done{0}; };\n  auto st = std::make_shared<State>();\n  const std::int64_t chunks = (rows + chunk - 1) / chunk;\n  auto run = [=]() {\n    for (std::int64_t c = st->next.fetch_add(1); c < chunks; c = st->next.fetch_add(1)) {\n      const std::int64_t b = c * chunk, e = std::min(rows, b + chunk);\n    for (std::int64_t r = b; r < e; ++r) {\n      const float f = sc[r];\n      const float* xr = in + r * n;\n      float* yr = out + r * n;\n      for (std::int64_t i = 0; i < n; ++i) yr[i] = xr[i] * f;\n    }\n      st->done.fetch_add(1, std::memory_order_release);\n    }\n  };\n  const std::int64_t helpers = std::min<std::int64_t>(pool.num_threads() - 1, chunks - 1);\n  for (std::int64_t h = 0; h < helpers; ++h) { auto task = run; pool.Schedule(std::move(task)); }\n  run();\n  while (st->done.load(std::memory_order_acquire) < chunks) std::this_thread::yield();   // spin, no sleep\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(ScaleRows, ScaleRowsImpl,\n                              ffi::Ffi::Bind()\n                                  .Ctx<ffi::ThreadPool>()\n                                  .Arg<ffi::Buffer<ffi::F32>>()\n                                  .Arg<ffi::Buffer<ffi::F32>>()\n                                  .Ret<ffi::Buffer<ffi::F32>>());\n\'\'\'\n\nscale_lib = grader.build(code=scale_rows_cc, name="bl11_e2r3", flags=("-O3", "-march=native"))\nscale_lib.register_ffi_target("bl11_e2r3", "ScaleRows")\n\n\ndef scale_rows(x, s):\n    return jax.ffi.ffi_call("bl11_e2r3", jax.ShapeDtypeStruct(x.shape, x.dtype),\n                            input_output_aliases={0: 0})(x, s)\n\nscale_rows_inplace = jax.jit(scale_rows, donate_argnums=0)\n'),
])
