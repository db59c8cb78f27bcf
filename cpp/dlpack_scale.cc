// ctypes glue for chapter 02: a C function that scales float32 memory it does not own.
//
// The function receives a bare address, so it cannot know who owns the memory, whether the owner
// considers it read-only, or whether a JAX array is looking at the same bytes. Those checks are
// the caller's job, which is what the chapter is about.
#include <cstdint>

#include "dlpack_scale.h"

extern "C" {

// Scales `n` contiguous float32 values starting at `data` by `factor`, in place.
// `n == 0` does nothing, so an empty array may pass any address.
void dlpack_scale_f32(float* data, std::int64_t n, float factor) {
  jbj::ScaleInPlace(data, n, factor);
}

}  // extern "C"
