// The row loops of the course's cpp/fast_rms_norm.h, compiled once per instruction set (rows.cc) and
// picked when the library is loaded, from what the CPU it runs on supports (kernels.cc). An installed
// library may run on another CPU than the one that built it, so it cannot be built for the builder's
// CPU (-march=native); built for the oldest x86-64, it would use SSE2's 16-byte vectors everywhere.
#pragma once

#include <cstdint>

// One instruction set's loops, with the signatures of fast_rms_norm.h's.
struct JbjRowLoops {
  const char* name;
  void (*forward)(const float* x, float* y, float* scale, std::int64_t begin, std::int64_t end, std::int64_t n,
                  float eps, bool stream);
  void (*backward)(const float* scale, const float* x, const float* ct_y, float* ct_x, std::int64_t begin,
                   std::int64_t end, std::int64_t n, bool stream);
  void (*recomputed_backward)(const float* x, const float* ct_y, float* ct_x, std::int64_t begin,
                              std::int64_t end, std::int64_t n, float eps, bool stream);
};

// Defined by rows.cc, compiled once for each (the x86-64 ones only on x86-64; "portable" elsewhere).
extern const JbjRowLoops jbj_rows_sse2, jbj_rows_avx2, jbj_rows_avx512, jbj_rows_portable;
