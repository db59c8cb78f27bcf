// Plain C++ kernels that chapter 04 calls from JAX through ctypes and jax.pure_callback.
// Nothing here knows about JAX, XLA or Python: the glue lives in pure_callback_kernels.cc.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>

namespace jbj {

// softplus(x) = log(1 + exp(x)), written as max(x, 0) + log1p(exp(-|x|)) so that a large |x|
// neither overflows exp nor loses the small term to rounding.
template <typename T>
void SoftplusValues(const T* x, T* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const T v = x[i];
    y[i] = (v > T(0) ? v : T(0)) + std::log1p(std::exp(-std::fabs(v)));
  }
}

// sigmoid(x) = 1 / (1 + exp(-x)), the derivative of softplus. Each branch only ever takes
// exp of a non-positive number, so it cannot overflow.
template <typename T>
void SigmoidValues(const T* x, T* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const T v = x[i];
    if (v >= T(0)) {
      y[i] = T(1) / (T(1) + std::exp(-v));
    } else {
      const T e = std::exp(v);
      y[i] = e / (T(1) + e);
    }
  }
}

// Mean and (population) variance of each of `rows` rows of length `n` stored one after another.
// The variance is computed around the mean in a second pass, which is more accurate than
// E[x^2] - E[x]^2 when the values are large compared with their spread.
// An empty row (n == 0) has no mean: both are NaN, as NumPy's mean and var of an empty row are,
// set without dividing by zero.
template <typename T>
void RowMoments(const T* x, std::size_t rows, std::size_t n, T* mean, T* var) {
  if (n == 0) {
    for (std::size_t r = 0; r < rows; ++r) mean[r] = var[r] = std::numeric_limits<T>::quiet_NaN();
    return;
  }
  for (std::size_t r = 0; r < rows; ++r) {
    const T* row = x + r * n;
    T sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += row[i];
    const T m = sum / static_cast<T>(n);
    T sum_sq = 0;
    for (std::size_t i = 0; i < n; ++i) sum_sq += (row[i] - m) * (row[i] - m);
    mean[r] = m;
    var[r] = sum_sq / static_cast<T>(n);
  }
}

}  // namespace jbj
