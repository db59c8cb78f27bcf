// The Python extension module: the chapter's handlers, handed to Python as PyCapsules that
// jax.ffi.register_ffi_target accepts. The handlers themselves are the course's fast_rms_norm.cc; their
// row loops are rows.cc's, compiled once per instruction set, and the one the CPU supports best is
// picked when the module is loaded (or named in $JBJ_FAST_KERNELS_ISA, or by use_instruction_set).
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "rows.h"

namespace {

// The row loops this CPU can run, best first.
std::vector<const JbjRowLoops*> Supported() {
  std::vector<const JbjRowLoops*> found;
#if defined(__x86_64__) || defined(_M_X64)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("fma")) {
    found.push_back(&jbj_rows_avx512);
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) found.push_back(&jbj_rows_avx2);
  found.push_back(&jbj_rows_sse2);
#else
  found.push_back(&jbj_rows_portable);
#endif
  return found;
}

const JbjRowLoops* Named(const std::string& name) {
  for (const JbjRowLoops* loops : Supported()) {
    if (name == loops->name) return loops;
  }
  return nullptr;
}

// The loops in use: the best this CPU supports, unless $JBJ_FAST_KERNELS_ISA names another it supports.
std::atomic<const JbjRowLoops*> g_loops{[] {
  const char* wanted = std::getenv("JBJ_FAST_KERNELS_ISA");
  const JbjRowLoops* named = wanted != nullptr ? Named(wanted) : nullptr;
  return named != nullptr ? named : Supported().front();
}()};

}  // namespace

// What fast_rms_norm.cc's handlers call (JBJ_ROWS below): the loops in use.
namespace jbj_dispatch {
inline void ForwardRows(const float* x, float* y, float* scale, std::int64_t begin, std::int64_t end, std::int64_t n,
                        float eps, bool stream = false) {
  g_loops.load(std::memory_order_relaxed)->forward(x, y, scale, begin, end, n, eps, stream);
}
inline void BackwardRows(const float* scale, const float* x, const float* ct_y, float* ct_x, std::int64_t begin,
                         std::int64_t end, std::int64_t n, bool stream = false) {
  g_loops.load(std::memory_order_relaxed)->backward(scale, x, ct_y, ct_x, begin, end, n, stream);
}
inline void RecomputedBackwardRows(const float* x, const float* ct_y, float* ct_x, std::int64_t begin,
                                   std::int64_t end, std::int64_t n, float eps, bool stream = false) {
  g_loops.load(std::memory_order_relaxed)->recomputed_backward(x, ct_y, ct_x, begin, end, n, eps, stream);
}
}  // namespace jbj_dispatch

#define JBJ_ROWS jbj_dispatch
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
  m.def("instruction_set", []() { return std::string(g_loops.load()->name); },
        "The instruction set whose row loops the handlers run now: 'avx512', 'avx2' or 'sse2' (x86-64), 'portable'.");
  m.def("instruction_sets", []() {
    std::vector<std::string> names;
    for (const JbjRowLoops* loops : Supported()) names.push_back(loops->name);
    return names;
  }, "The instruction sets this CPU can run, best first (the first is the one picked when the module loads).");
  m.def("use_instruction_set", [](const std::string& name) {
    const JbjRowLoops* loops = Named(name);
    if (loops == nullptr) throw nb::value_error(("this CPU cannot run the row loops for '" + name + "'").c_str());
    g_loops.store(loops);
  }, nb::arg("name"), "Run the handlers' row loops for `name` from the next call on (one of instruction_sets()).");
}
