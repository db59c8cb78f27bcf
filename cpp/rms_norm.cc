// XLA FFI binding for jbj::RmsNormRows on float32 buffers.
#include <cstdint>

#include "rms_norm.h"
#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

static ffi::Error RmsNormImpl(float eps, ffi::Buffer<ffi::F32> x,
                              ffi::ResultBuffer<ffi::F32> y) {
  auto dims = x.dimensions();
  if (dims.size() == 0) {
    return ffi::Error::InvalidArgument("rms_norm: input must have at least one axis");
  }
  // The last axis is normalised; every leading axis is folded into the row count.
  const std::int64_t n = dims.back();
  const std::int64_t rows = n == 0 ? 0 : x.element_count() / n;
  jbj::RmsNormRows(x.typed_data(), y->typed_data(), rows, n, eps);
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(RmsNorm, RmsNormImpl,
                              ffi::Ffi::Bind()
                                  .Attr<float>("eps")
                                  .Arg<ffi::Buffer<ffi::F32>>()  // x
                                  .Ret<ffi::Buffer<ffi::F32>>()  // y
);
