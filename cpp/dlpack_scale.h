// Scaling a buffer in place, as plain C++ with no JAX, NumPy or DLPack types.
#pragma once

#include <cstdint>

namespace jbj {

// Multiplies each of the `n` elements at `data` by `factor`, writing the result over the input.
// Nothing is allocated: whoever else holds a pointer to this memory sees the new values.
template <typename T>
void ScaleInPlace(T* data, std::int64_t n, T factor) {
  for (std::int64_t i = 0; i < n; ++i) data[i] *= factor;
}

}  // namespace jbj
