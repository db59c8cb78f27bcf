// C functions over float32 buffers, for ctypes: the names are not mangled (extern "C"), and
// every size is an int64_t so that Python passes exactly what the function expects.
#include <cstdint>

#include "pure_callback_kernels.h"

extern "C" {

// Writes softplus(x[i]) to y[i] for i < n.
void pcb_softplus_f32(const float* x, float* y, std::int64_t n) {
  jbj::SoftplusValues(x, y, static_cast<std::size_t>(n));
}

// Writes sigmoid(x[i]), the derivative of softplus, to y[i] for i < n.
void pcb_sigmoid_f32(const float* x, float* y, std::int64_t n) {
  jbj::SigmoidValues(x, y, static_cast<std::size_t>(n));
}

// A switch for the course's self-checks, never set in normal use: while it is nonzero,
// pcb_row_moments_f32 adds 1000 to every mean and variance it writes. A check turns it on to see
// that an answer returns what the C function wrote, rather than computing it again in NumPy.
int pcb_row_moments_offset_on = 0;

// Writes the mean and variance of each row of the (rows, n) C-ordered matrix x; NaN for both
// when n == 0 (empty rows).
void pcb_row_moments_f32(const float* x, std::int64_t rows, std::int64_t n, float* mean,
                         float* var) {
  jbj::RowMoments(x, static_cast<std::size_t>(rows), static_cast<std::size_t>(n), mean, var);
  if (pcb_row_moments_offset_on != 0) {
    for (std::int64_t r = 0; r < rows; ++r) {
      mean[r] += 1000.0f;
      var[r] += 1000.0f;
    }
  }
}

}  // extern "C"
