// Root-mean-square normalisation of the last axis, as plain C++ with no JAX or XLA types.
#pragma once

#include <cmath>
#include <cstddef>

namespace jbj {

// Normalises each row of `in` (rows of length `n`) by its root mean square and writes `out`.
// `eps` keeps the division finite when a row is all zeros.
template <typename T>
void RmsNormRows(const T* in, T* out, std::size_t rows, std::size_t n, T eps) {
  for (std::size_t r = 0; r < rows; ++r) {
    const T* x = in + r * n;
    T* y = out + r * n;
    T sum_sq = 0;
    for (std::size_t i = 0; i < n; ++i) sum_sq += x[i] * x[i];
    const T scale = T(1) / std::sqrt(sum_sq / static_cast<T>(n) + eps);
    for (std::size_t i = 0; i < n; ++i) y[i] = x[i] * scale;
  }
}

}  // namespace jbj
