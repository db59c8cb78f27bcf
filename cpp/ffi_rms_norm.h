// Root-mean-square normalisation of rows, forward and backward, as plain C++ with no JAX or XLA
// types. Chapter 11 calls these through ctypes and through XLA FFI handlers (ffi_rms_norm.cc).
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>

namespace jbj {

// |v|^2 for real and complex numbers alike.
template <typename T>
inline T SquaredMagnitude(T v) { return v * v; }
template <typename T>
inline T SquaredMagnitude(std::complex<T> v) { return std::norm(v); }

// The real part, and the complex conjugate, which is the value itself for a real number.
template <typename T>
inline T RealPart(T v) { return v; }
template <typename T>
inline T RealPart(std::complex<T> v) { return v.real(); }
template <typename T>
inline T Conjugate(T v) { return v; }
template <typename T>
inline std::complex<T> Conjugate(std::complex<T> v) { return std::conj(v); }

// Half-precision storage types: the kernels load them into float and store float back, so
// sums are never accumulated in 16 bits. Both are plain 16-bit patterns here (uint16_t), which
// is also how the XLA FFI headers hand them over.
struct Half { std::uint16_t bits; };
struct BFloat16 { std::uint16_t bits; };

inline float Load(float v) { return v; }
inline double Load(double v) { return v; }
template <typename T>
inline std::complex<T> Load(std::complex<T> v) { return v; }

// bfloat16 is the top half of a float32: widening is a shift.
inline float Load(BFloat16 v) {
  std::uint32_t bits = std::uint32_t(v.bits) << 16;
  float out;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

// IEEE half: 1 sign bit, 5 exponent bits (bias 15), 10 mantissa bits.
inline float Load(Half v) {
  const std::uint32_t sign = std::uint32_t(v.bits & 0x8000u) << 16;
  std::uint32_t exponent = (v.bits >> 10) & 0x1fu;
  std::uint32_t mantissa = v.bits & 0x3ffu;
  std::uint32_t bits;
  if (exponent == 0x1f) {  // infinity or NaN
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {  // normal number: rebias the exponent from 15 to 127
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {  // signed zero
    bits = sign;
  } else {  // subnormal half: a normal float32
    int shift = 0;
    while ((mantissa & 0x400u) == 0) { mantissa <<= 1; ++shift; }
    bits = sign | (std::uint32_t(113 - shift) << 23) | ((mantissa & 0x3ffu) << 13);
  }
  float out;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

template <typename T>
inline void Store(float v, T* out) { *out = T(v); }
inline void Store(double v, double* out) { *out = v; }
template <typename T>
inline void Store(std::complex<T> v, std::complex<T>* out) { *out = v; }

// Narrowing to bfloat16 rounds to the nearest value, ties to even, as NumPy's ml_dtypes does.
inline void Store(float v, BFloat16* out) {
  std::uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) {  // NaN stays a (quiet) NaN
    out->bits = std::uint16_t((bits >> 16) | 0x40u);
    return;
  }
  bits += 0x7fffu + ((bits >> 16) & 1u);
  out->bits = std::uint16_t(bits >> 16);
}

// Narrowing to half goes through double arithmetic on the exact float value, rounding to
// nearest, ties to even, with overflow to infinity and gradual underflow.
inline void Store(float v, Half* out) {
  std::uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  const std::uint16_t sign = std::uint16_t((bits >> 16) & 0x8000u);
  const float magnitude = std::fabs(v);
  if (std::isnan(v)) { out->bits = sign | 0x7e00u; return; }
  if (magnitude >= 65520.0f) { out->bits = sign | 0x7c00u; return; }  // rounds to infinity
  if (magnitude < 6.103515625e-05f) {  // below the smallest normal half: steps of 2^-24
    out->bits = sign | std::uint16_t(std::nearbyint(double(magnitude) * 16777216.0));
    return;
  }
  int exponent;
  const double fraction = std::frexp(double(magnitude), &exponent);  // magnitude = fraction * 2^exponent
  // 11 significant bits: the mantissa with its leading 1, rounded to nearest even.
  double scaled = std::nearbyint(fraction * 2048.0);
  if (scaled == 2048.0) { scaled = 1024.0; ++exponent; }
  const std::uint16_t e = std::uint16_t(exponent + 14);
  if (e >= 0x1f) { out->bits = sign | 0x7c00u; return; }
  out->bits = sign | std::uint16_t(e << 10) | (std::uint16_t(scaled) & 0x3ffu);
}

// Computes y = x * s for each of `rows` rows of length n (stored one after another), where
// s = 1 / sqrt(mean(|x|^2) + eps), and writes each row's s to `scale` (if not null).
// `Acc` is the arithmetic type: float for float16, bfloat16 and float32 (and complex<float>),
// double for float64 and complex<double>; `Real` is its real counterpart.
template <typename Acc, typename Real, typename In, typename Out>
void RmsNormForward(const In* x, Out* y, Real* scale, std::int64_t rows, std::int64_t n, Real eps) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const In* row = x + r * n;
    Real sum_sq = 0;
    for (std::int64_t i = 0; i < n; ++i) sum_sq += SquaredMagnitude(Acc(Load(row[i])));
    // An empty row has no elements to scale; its s is defined as if its mean were 0.
    const Real mean = n > 0 ? sum_sq / Real(n) : Real(0);
    const Real s = Real(1) / std::sqrt(mean + eps);
    if (scale != nullptr) scale[r] = s;
    for (std::int64_t i = 0; i < n; ++i) Store(Acc(Load(row[i])) * s, y + r * n + i);
  }
}

// The cotangent of x for y = x * s(x), given each row's s from the forward pass and the
// cotangent ct_y of y. With d = Re(sum_i ct_y[i] * x[i]):
//   ct_x[j] = s * ct_y[j] - (s^3 / n) * d * conj(x[j])
// For real numbers conj and Re do nothing, and this is the usual RMSNorm gradient.
template <typename Acc, typename Real, typename In, typename Out>
void RmsNormBackward(const Real* scale, const In* x, const In* ct_y, Out* ct_x, std::int64_t rows,
                     std::int64_t n) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const In* xr = x + r * n;
    const In* gr = ct_y + r * n;
    Real d = 0;
    for (std::int64_t i = 0; i < n; ++i) d += RealPart(Acc(Load(gr[i])) * Acc(Load(xr[i])));
    const Real s = scale[r];
    const Real factor = n > 0 ? s * s * s * d / Real(n) : Real(0);
    for (std::int64_t i = 0; i < n; ++i) {
      Store(Acc(Load(gr[i])) * s - Conjugate(Acc(Load(xr[i]))) * factor, ct_x + r * n + i);
    }
  }
}

}  // namespace jbj
