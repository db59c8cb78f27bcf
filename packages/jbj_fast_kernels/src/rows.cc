// fast_rms_norm.h's row loops for one instruction set: CMakeLists.txt compiles this file once per
// instruction set, with its -m flags and JBJ_ISA set to its name (sse2, avx2, avx512, or portable
// off x86-64). Each copy includes the header in a namespace of its own (JBJ_FAST_NAMESPACE), so that
// the inline functions of one copy are never taken for another's, and exports one table.
#include "rows.h"

#define JBJ_JOIN2(a, b) a##b
#define JBJ_JOIN(a, b) JBJ_JOIN2(a, b)
#define JBJ_FAST_NAMESPACE JBJ_JOIN(jbj_fast_, JBJ_ISA)
#include "fast_rms_norm.h"

extern const JbjRowLoops JBJ_JOIN(jbj_rows_, JBJ_ISA) = {
    JBJ_ISA_NAME,
    [](const float* x, float* y, float* scale, std::int64_t begin, std::int64_t end, std::int64_t n, float eps,
       bool stream) { JBJ_FAST_NAMESPACE::ForwardRows(x, y, scale, begin, end, n, eps, stream); },
    [](const float* scale, const float* x, const float* ct_y, float* ct_x, std::int64_t begin, std::int64_t end,
       std::int64_t n, bool stream) { JBJ_FAST_NAMESPACE::BackwardRows(scale, x, ct_y, ct_x, begin, end, n, stream); },
    [](const float* x, const float* ct_y, float* ct_x, std::int64_t begin, std::int64_t end, std::int64_t n,
       float eps, bool stream) {
      JBJ_FAST_NAMESPACE::RecomputedBackwardRows(x, ct_y, ct_x, begin, end, n, eps, stream);
    },
};
