// The Python extension module: the chapter's handlers, handed to Python as PyCapsules that
// jax.ffi.register_ffi_target accepts. The handlers themselves are the course's fast_rms_norm.cc.
#include <nanobind/nanobind.h>

#include "fast_rms_norm.cc"

namespace nb = nanobind;

namespace {
template <typename Fn>
nb::capsule Capsule(Fn* fn) {
  return nb::capsule(reinterpret_cast<void*>(fn));
}
}  // namespace

NB_MODULE(_kernels, m) {
  m.doc() = "Fast float32 RMSNorm XLA FFI handlers";
  m.def("registrations", []() {
    nb::dict targets;
    targets["rms_norm_fast"] = Capsule(RmsNormFast);
    targets["rms_norm_fast_fwd"] = Capsule(RmsNormFastFwd);
    targets["rms_norm_fast_bwd"] = Capsule(RmsNormFastBwd);
    targets["rms_norm_vec"] = Capsule(RmsNormVec);
    return targets;
  }, "The handlers by their unprefixed names, as PyCapsules for jax.ffi.register_ffi_target.");
}
