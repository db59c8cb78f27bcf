// Two FFI handlers for chapter 11 that watch what XLA does with a handler, each with a plain C
// function that hands what it saw to Python through ctypes:
//   ShapeProbe  copies its first argument and logs the shapes of both arguments (section 5: what each
//               vmap_method hands the kernel);
//   SlowCopy    copies its argument slowly and counts how many calls are inside it at once (section 8:
//               calls may run concurrently).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

// ---- ShapeProbe ------------------------------------------------------------------------------------

// The log is shared by every call, and calls may run at the same time: a mutex guards it.
static std::mutex log_mutex;
static std::vector<std::int64_t> shape_log;  // per call: -1, then each argument's rank and dims

static void LogShape(const ffi::AnyBuffer& b) {
  auto dims = b.dimensions();
  shape_log.push_back(static_cast<std::int64_t>(dims.size()));
  for (std::int64_t d : dims) shape_log.push_back(d);
}

static ffi::Error ShapeProbeImpl(ffi::AnyBuffer a, ffi::AnyBuffer b, ffi::Result<ffi::AnyBuffer> out) {
  if (out->element_type() != a.element_type() || out->element_count() != a.element_count()) {
    return ffi::Error::InvalidArgument("shape_probe: the result must have a's dtype and size");
  }
  {
    std::lock_guard<std::mutex> lock(log_mutex);
    shape_log.push_back(-1);
    LogShape(a);
    LogShape(b);
  }
  if (a.size_bytes() > 0) std::memcpy(out->untyped_data(), a.untyped_data(), a.size_bytes());
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(ShapeProbe, ShapeProbeImpl,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::AnyBuffer>()  // a, copied to the result
                                  .Arg<ffi::AnyBuffer>()  // b, only looked at
                                  .Ret<ffi::AnyBuffer>()  // a copy of a
);

// Copies the log into `out` (at most `capacity` values), empties it, and returns its length.
extern "C" std::int64_t shape_probe_take(std::int64_t* out, std::int64_t capacity) {
  std::lock_guard<std::mutex> lock(log_mutex);
  const std::int64_t size = static_cast<std::int64_t>(shape_log.size());
  for (std::int64_t i = 0; i < size && i < capacity; ++i) out[i] = shape_log[i];
  shape_log.clear();
  return size;
}

// ---- SlowCopy --------------------------------------------------------------------------------------

// Atomic counters: the calls that change them may run on several threads at once.
static std::atomic<int> inside{0};
static std::atomic<int> most_inside{0};

static ffi::Error SlowCopyImpl(ffi::AnyBuffer x, ffi::Result<ffi::AnyBuffer> y) {
  if (y->element_type() != x.element_type() || y->element_count() != x.element_count()) {
    return ffi::Error::InvalidArgument("slow_copy: y must have x's dtype and size");
  }
  const int now = ++inside;
  int seen = most_inside.load();
  while (now > seen && !most_inside.compare_exchange_weak(seen, now)) {
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  if (x.size_bytes() > 0) std::memcpy(y->untyped_data(), x.untyped_data(), x.size_bytes());
  --inside;
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(SlowCopy, SlowCopyImpl,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::AnyBuffer>()  // x
                                  .Ret<ffi::AnyBuffer>()  // y, a copy of x
);

// The largest number of calls that were inside SlowCopy at once, since the last call of this function.
extern "C" int slow_copy_take_most() { return most_inside.exchange(0); }
