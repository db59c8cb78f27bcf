// RMSNorm for chapter 11, reachable two ways: a plain C function for ctypes, and XLA FFI handlers
// that XLA calls from inside a compiled program. The math is in ffi_rms_norm.h.
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "ffi_rms_norm.h"
#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

// ---- ctypes: a C function over float32 rows -------------------------------------------------

extern "C" void rms_norm_rows_f32(const float* x, float* y, std::int64_t rows, std::int64_t n,
                                  float eps) {
  jbj::RmsNormForward<float, float>(x, y, static_cast<float*>(nullptr), rows, n, eps);
}

// ---- XLA FFI: float32 only, with the types checked by XLA ------------------------------------

// The number of rows (every leading axis folded into one) and the row length of a buffer.
template <typename Buffer>
static ffi::Error RowsAndLength(const Buffer& x, const char* who, std::int64_t* rows,
                                std::int64_t* n) {
  auto dims = x.dimensions();
  if (dims.size() == 0) {
    return ffi::Error::InvalidArgument(std::string(who) +
                                       ": the input must have at least one axis, got a scalar");
  }
  *n = dims.back();
  *rows = 1;
  for (std::size_t i = 0; i + 1 < dims.size(); ++i) *rows *= dims[i];
  return ffi::Error::Success();
}

static ffi::Error RmsNormImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  std::int64_t rows, n;
  if (ffi::Error err = RowsAndLength(x, "rms_norm", &rows, &n); err.failure()) return err;
  // XLA checks dtypes and ranks against the binding, but not sizes: a result declared smaller than
  // x would be written past its end.
  if (y->element_count() != x.element_count()) {
    return ffi::Error::InvalidArgument("rms_norm: y must have as many elements as x");
  }
  jbj::RmsNormForward<float, float>(x.typed_data(), y->typed_data(), static_cast<float*>(nullptr),
                                    rows, n, eps);
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(RmsNorm, RmsNormImpl,
                              ffi::Ffi::Bind()
                                  .Attr<float>("eps")
                                  .Arg<ffi::Buffer<ffi::F32>>()  // x
                                  .Ret<ffi::Buffer<ffi::F32>>()  // y
);

// ---- XLA FFI: any floating or complex dtype, checked here --------------------------------------

// The dtype each row's scale s is stored in: float32, except float64 for 64-bit inputs.
static ffi::DataType ScaleType(ffi::DataType x) {
  return (x == ffi::DataType::F64 || x == ffi::DataType::C128) ? ffi::DataType::F64
                                                               : ffi::DataType::F32;
}

static ffi::Error Unsupported(const char* who, ffi::DataType t) {
  return ffi::Error::InvalidArgument(
      std::string(who) + ": unsupported dtype (code " + std::to_string(static_cast<int>(t)) +
      "); use float16, bfloat16, float32, float64, complex64 or complex128");
}

// Calls `fn` with a null pointer of the storage type and one of the arithmetic type for `t`.
template <typename Fn>
static ffi::Error ByDtype(ffi::DataType t, const char* who, Fn&& fn) {
  switch (t) {
    case ffi::DataType::F16: return fn(static_cast<jbj::Half*>(nullptr), 0.0f);
    case ffi::DataType::BF16: return fn(static_cast<jbj::BFloat16*>(nullptr), 0.0f);
    case ffi::DataType::F32: return fn(static_cast<float*>(nullptr), 0.0f);
    case ffi::DataType::F64: return fn(static_cast<double*>(nullptr), 0.0);
    case ffi::DataType::C64: return fn(static_cast<std::complex<float>*>(nullptr), std::complex<float>());
    case ffi::DataType::C128: return fn(static_cast<std::complex<double>*>(nullptr), std::complex<double>());
    default: return Unsupported(who, t);
  }
}

static ffi::Error SameSize(const ffi::AnyBuffer& a, const ffi::AnyBuffer& b, const char* who) {
  if (a.element_type() != b.element_type() || a.element_count() != b.element_count()) {
    return ffi::Error::InvalidArgument(std::string(who) +
                                       ": buffers must share one dtype and one size");
  }
  return ffi::Error::Success();
}

// Forward pass: y and each row's scale s, which the backward pass reuses. eps arrives as a double
// so that the float64 and complex128 paths add it in their own precision; the 32- and 16-bit paths
// round it to float, the precision they compute in.
static ffi::Error RmsNormFwdImpl(double eps, ffi::AnyBuffer x, ffi::Result<ffi::AnyBuffer> y,
                                 ffi::Result<ffi::AnyBuffer> scale) {
  std::int64_t rows, n;
  if (ffi::Error err = RowsAndLength(x, "rms_norm_fwd", &rows, &n); err.failure()) return err;
  if (ffi::Error err = SameSize(x, *y, "rms_norm_fwd"); err.failure()) return err;
  if (scale->element_type() != ScaleType(x.element_type()) || scale->element_count() != rows) {
    return ffi::Error::InvalidArgument("rms_norm_fwd: the scale result has the wrong dtype or size");
  }
  return ByDtype(x.element_type(), "rms_norm_fwd", [&](auto* tag, auto acc) {
    using In = std::remove_pointer_t<decltype(tag)>;
    using Acc = decltype(acc);
    using Real = decltype(jbj::RealPart(acc));
    jbj::RmsNormForward<Acc, Real>(static_cast<const In*>(x.untyped_data()),
                                   static_cast<In*>(y->untyped_data()),
                                   static_cast<Real*>(scale->untyped_data()), rows, n, Real(eps));
    return ffi::Error::Success();
  });
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(RmsNormFwd, RmsNormFwdImpl,
                              ffi::Ffi::Bind()
                                  .Attr<double>("eps")
                                  .Arg<ffi::AnyBuffer>()  // x
                                  .Ret<ffi::AnyBuffer>()  // y
                                  .Ret<ffi::AnyBuffer>()  // scale, one per row
);

// Backward pass: the cotangent of x from each row's scale, x and the cotangent of y.
static ffi::Error RmsNormBwdImpl(ffi::AnyBuffer scale, ffi::AnyBuffer x, ffi::AnyBuffer ct_y,
                                 ffi::Result<ffi::AnyBuffer> ct_x) {
  std::int64_t rows, n;
  if (ffi::Error err = RowsAndLength(x, "rms_norm_bwd", &rows, &n); err.failure()) return err;
  if (ffi::Error err = SameSize(x, ct_y, "rms_norm_bwd"); err.failure()) return err;
  if (ffi::Error err = SameSize(x, *ct_x, "rms_norm_bwd"); err.failure()) return err;
  if (scale.element_type() != ScaleType(x.element_type()) || scale.element_count() != rows) {
    return ffi::Error::InvalidArgument("rms_norm_bwd: the scale input has the wrong dtype or size");
  }
  return ByDtype(x.element_type(), "rms_norm_bwd", [&](auto* tag, auto acc) {
    using In = std::remove_pointer_t<decltype(tag)>;
    using Acc = decltype(acc);
    using Real = decltype(jbj::RealPart(acc));
    jbj::RmsNormBackward<Acc, Real>(static_cast<const Real*>(scale.untyped_data()),
                                    static_cast<const In*>(x.untyped_data()),
                                    static_cast<const In*>(ct_y.untyped_data()),
                                    static_cast<In*>(ct_x->untyped_data()), rows, n);
    return ffi::Error::Success();
  });
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(RmsNormBwd, RmsNormBwdImpl,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::AnyBuffer>()  // scale, one per row
                                  .Arg<ffi::AnyBuffer>()  // x
                                  .Arg<ffi::AnyBuffer>()  // ct_y
                                  .Ret<ffi::AnyBuffer>()  // ct_x
);
