// Chapter 12's float32 RMSNorm handlers, each a step faster than chapter 11's, and the memory
// probes that measure the machine's limit. The row math is in fast_rms_norm.h.
//
//   RmsNormVec       one thread, vectorised rows
//   RmsNormFast      vectorised rows split over XLA's intra-op thread pool (also used in place)
//   RmsNormFastFwd   the same, also returning each row's scale for the backward pass
//   RmsNormFastBwd   the backward pass, vectorised and threaded
//   RmsNormFastBwdRecompute   the same from x alone: each row's scale computed again
//   StreamRead / StreamWrite / StreamTriad / StreamScale   bandwidth probes on the same thread pool
// Out of place, the five kernels ask for huge pages for a fresh output (AdviseHugePages), and the
// four threaded ones write a large one with streaming stores (StreamStores).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "fast_rms_norm.h"
#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

// The row loops the handlers call: fast_rms_norm.h's, compiled with this file's flags. A library that
// picks its instruction set when it is loaded (packages/jbj_fast_kernels) defines JBJ_ROWS as a
// namespace of its own with the same three functions, ForwardRows, BackwardRows and
// RecomputedBackwardRows, which call the version compiled for the CPU they run on.
#ifndef JBJ_ROWS
#define JBJ_ROWS jbj_fast
#endif
namespace row_loops = JBJ_ROWS;

namespace {

// Rows per task: about 256 KiB of floats, so that handing a task to another thread (microseconds)
// costs little next to the task, and inputs of a few hundred KiB stay on one thread; and at least
// four rows, so that a task's rows overlap the reading of one with the writing of another
// (ForwardRows), which a task of one row cannot.
std::int64_t ChunkRows(std::int64_t n) { return std::max<std::int64_t>(4, 65536 / std::max<std::int64_t>(n, 1)); }

// The number of rows (the product of every axis but the last) and the row length n of x.
ffi::Error Shape(const ffi::Buffer<ffi::F32>& x, const char* who, std::int64_t* rows, std::int64_t* n) {
  auto dims = x.dimensions();
  if (dims.size() == 0) {
    return ffi::Error::InvalidArgument(std::string(who) + ": x must have at least one axis");
  }
  *n = dims.back();
  *rows = 1;
  for (std::size_t i = 0; i + 1 < dims.size(); ++i) *rows *= dims[i];
  return ffi::Error::Success();
}

// XLA checks each buffer's dtype (and rank, where bound) against the binding, but not its size: a
// result smaller than the handler assumes would be written past its end, and a larger one would
// come back with a tail nobody wrote. So every handler compares each size with the one it needs.
ffi::Error SameSize(std::int64_t got, std::int64_t want, const char* who, const char* what) {
  if (got != want) {
    return ffi::Error::InvalidArgument(std::string(who) + ": " + what + " has " + std::to_string(got) +
                                       " elements, expected " + std::to_string(want));
  }
  return ffi::Error::Success();
}

// Hands tasks to XLA's pool; its helpers are the pool's threads minus the one we run on.
struct Pool {
  ffi::ThreadPool& pool;
  template <typename F>
  void operator()(F f) const { pool.Schedule(std::move(f)); }
  int helpers() const { return int(std::max<std::int64_t>(pool.num_threads() - 1, 0)); }
};

}  // namespace

// ---- one thread, vectorised -------------------------------------------------------------------

static ffi::Error RmsNormVecImpl(float eps, ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  std::int64_t rows, n;
  if (auto err = Shape(x, "rms_norm_vec", &rows, &n); err.failure()) return err;
  if (auto err = SameSize(y->element_count(), x.element_count(), "rms_norm_vec", "y"); err.failure()) return err;
  const float* in = x.typed_data();
  float* out = y->typed_data();
  if (out != in) jbj_fast::AdviseHugePages(out, y->size_bytes());
  row_loops::ForwardRows(in, out, nullptr, 0, rows, n, eps);
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(RmsNormVec, RmsNormVecImpl,
                              ffi::Ffi::Bind()
                                  .Attr<float>("eps")
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>());

// ---- vectorised and threaded (in place when y aliases x) --------------------------------------

static ffi::Error RmsNormFastImpl(ffi::ThreadPool pool, float eps, ffi::Buffer<ffi::F32> x,
                                  ffi::ResultBuffer<ffi::F32> y) {
  std::int64_t rows, n;
  if (auto err = Shape(x, "rms_norm_fast", &rows, &n); err.failure()) return err;
  if (auto err = SameSize(y->element_count(), x.element_count(), "rms_norm_fast", "y"); err.failure()) return err;
  const float* in = x.typed_data();
  float* out = y->typed_data();
  if (out != in) jbj_fast::AdviseHugePages(out, y->size_bytes());
  const bool stream = out != in && jbj_fast::StreamStores(y->size_bytes());
  Pool p{pool};
  jbj_fast::ParallelFor(rows, ChunkRows(n), p.helpers(), p, [=](std::int64_t b, std::int64_t e) {
    row_loops::ForwardRows(in, out, nullptr, b, e, n, eps, stream);
  });
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(RmsNormFast, RmsNormFastImpl,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::ThreadPool>()
                                  .Attr<float>("eps")
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>());

// ---- forward with residuals, and backward, for custom_vjp -------------------------------------

static ffi::Error RmsNormFastFwdImpl(ffi::ThreadPool pool, float eps, ffi::Buffer<ffi::F32> x,
                                     ffi::ResultBuffer<ffi::F32> y, ffi::ResultBuffer<ffi::F32> scale) {
  std::int64_t rows, n;
  if (auto err = Shape(x, "rms_norm_fast_fwd", &rows, &n); err.failure()) return err;
  if (auto err = SameSize(y->element_count(), x.element_count(), "rms_norm_fast_fwd", "y"); err.failure()) return err;
  if (auto err = SameSize(scale->element_count(), rows, "rms_norm_fast_fwd", "scale (one per row)"); err.failure()) return err;
  const float* in = x.typed_data();
  float* out = y->typed_data();
  float* s = scale->typed_data();
  if (out != in) jbj_fast::AdviseHugePages(out, y->size_bytes());
  const bool stream = out != in && jbj_fast::StreamStores(y->size_bytes());
  Pool p{pool};
  jbj_fast::ParallelFor(rows, ChunkRows(n), p.helpers(), p, [=](std::int64_t b, std::int64_t e) {
    row_loops::ForwardRows(in, out, s, b, e, n, eps, stream);
  });
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(RmsNormFastFwd, RmsNormFastFwdImpl,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::ThreadPool>()
                                  .Attr<float>("eps")
                                  .Arg<ffi::Buffer<ffi::F32>>()   // x
                                  .Ret<ffi::Buffer<ffi::F32>>()   // y
                                  .Ret<ffi::Buffer<ffi::F32>>()); // scale, one per row

namespace {

// What the two backward handlers share: the size checks (with `scale`, the saved scales, one per
// row, when the handler takes them), huge pages for a fresh ct_x, and the threaded loop, in which
// rows_of(x, ct_y, ct_x, begin, end, n, stream) computes rows [begin, end), with streaming stores
// when `stream` (a fresh ct_x too large for the caches).
template <typename Rows>
ffi::Error RunBackward(ffi::ThreadPool& pool, const char* who, const ffi::Buffer<ffi::F32>* scale,
                       const ffi::Buffer<ffi::F32>& x, const ffi::Buffer<ffi::F32>& ct_y,
                       ffi::ResultBuffer<ffi::F32>& ct_x, Rows rows_of) {
  std::int64_t rows, n;
  if (auto err = Shape(x, who, &rows, &n); err.failure()) return err;
  if (auto err = SameSize(ct_y.element_count(), x.element_count(), who, "ct_y"); err.failure()) return err;
  if (auto err = SameSize(ct_x->element_count(), x.element_count(), who, "ct_x"); err.failure()) return err;
  if (scale != nullptr) {
    if (auto err = SameSize(scale->element_count(), rows, who, "scale (one per row)"); err.failure()) return err;
  }
  const float* in = x.typed_data();
  const float* g = ct_y.typed_data();
  float* out = ct_x->typed_data();
  const bool fresh = out != g && out != in;
  if (fresh) jbj_fast::AdviseHugePages(out, ct_x->size_bytes());
  const bool stream = fresh && jbj_fast::StreamStores(ct_x->size_bytes());
  Pool p{pool};
  jbj_fast::ParallelFor(rows, ChunkRows(n), p.helpers(), p, [=](std::int64_t b, std::int64_t e) {
    rows_of(in, g, out, b, e, n, stream);
  });
  return ffi::Error::Success();
}

}  // namespace

static ffi::Error RmsNormFastBwdImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> scale,
                                     ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct_y,
                                     ffi::ResultBuffer<ffi::F32> ct_x) {
  const float* s = scale.typed_data();
  return RunBackward(pool, "rms_norm_fast_bwd", &scale, x, ct_y, ct_x,
                     [s](const float* in, const float* g, float* out, std::int64_t b, std::int64_t e,
                         std::int64_t n, bool stream) { row_loops::BackwardRows(s, in, g, out, b, e, n, stream); });
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(RmsNormFastBwd, RmsNormFastBwdImpl,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::ThreadPool>()
                                  .Arg<ffi::Buffer<ffi::F32>>()   // scale
                                  .Arg<ffi::Buffer<ffi::F32>>()   // x
                                  .Arg<ffi::Buffer<ffi::F32>>()   // ct_y
                                  .Ret<ffi::Buffer<ffi::F32>>()); // ct_x

static ffi::Error RmsNormFastBwdRecomputeImpl(ffi::ThreadPool pool, float eps, ffi::Buffer<ffi::F32> x,
                                              ffi::Buffer<ffi::F32> ct_y, ffi::ResultBuffer<ffi::F32> ct_x) {
  return RunBackward(pool, "rms_norm_fast_bwd_recompute", nullptr, x, ct_y, ct_x,
                     [eps](const float* in, const float* g, float* out, std::int64_t b, std::int64_t e,
                           std::int64_t n, bool stream) {
                       row_loops::RecomputedBackwardRows(in, g, out, b, e, n, eps, stream);
                     });
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(RmsNormFastBwdRecompute, RmsNormFastBwdRecomputeImpl,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::ThreadPool>()
                                  .Attr<float>("eps")
                                  .Arg<ffi::Buffer<ffi::F32>>()   // x
                                  .Arg<ffi::Buffer<ffi::F32>>()   // ct_y
                                  .Ret<ffi::Buffer<ffi::F32>>()); // ct_x

// ---- memory probes: what the machine can move, with the threads the kernels use ---------------

constexpr std::int64_t kProbeChunk = 1 << 16;  // floats per task (256 KiB)

// Reads every float once; each task's partial sum goes to its own slot of `partial`.
static ffi::Error StreamReadImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> a,
                                 ffi::ResultBuffer<ffi::F32> total) {
  if (auto err = SameSize(total->element_count(), 1, "stream_read", "the total"); err.failure()) return err;
  const float* in = a.typed_data();
  const std::int64_t count = a.element_count();
  const std::int64_t chunks = (count + kProbeChunk - 1) / kProbeChunk;
  std::unique_ptr<double[]> partial(new double[std::max<std::int64_t>(chunks, 1)]());
  double* slots = partial.get();
  Pool p{pool};
  jbj_fast::ParallelFor(count, kProbeChunk, p.helpers(), p, [=](std::int64_t b, std::int64_t e) {
    float lanes[jbj_fast::kLanes] = {};
    std::int64_t i = b;
    for (; i + jbj_fast::kLanes <= e; i += jbj_fast::kLanes)
      for (int j = 0; j < jbj_fast::kLanes; ++j) lanes[j] += in[i + j];
    double sum = 0;
    for (int j = 0; j < jbj_fast::kLanes; ++j) sum += lanes[j];
    for (; i < e; ++i) sum += in[i];
    slots[b / kProbeChunk] += sum;
  });
  double sum = 0;
  for (std::int64_t c = 0; c < chunks; ++c) sum += slots[c];
  total->typed_data()[0] = float(sum);
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(StreamRead, StreamReadImpl,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::ThreadPool>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>());

// Writes `value` into every float of `out`, which aliases the argument `a` (never read).
static ffi::Error StreamWriteImpl(ffi::ThreadPool pool, float value, ffi::Buffer<ffi::F32> a,
                                  ffi::ResultBuffer<ffi::F32> out) {
  if (auto err = SameSize(out->element_count(), a.element_count(), "stream_write", "out"); err.failure()) return err;
  float* o = out->typed_data();
  Pool p{pool};
  jbj_fast::ParallelFor(a.element_count(), kProbeChunk, p.helpers(), p,
                        [=](std::int64_t b, std::int64_t e) {
                          for (std::int64_t i = b; i < e; ++i) o[i] = value;
                        });
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(StreamWrite, StreamWriteImpl,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::ThreadPool>()
                                  .Attr<float>("value")
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>());

// Multiplies every float of `a` by `q` in place (the result aliases `a`): each float is read once and
// written once, the traffic of an in-place RMSNorm with none of its arithmetic. The floor for that kernel.
// Called without the alias, it is a plain out-of-place pass, out = q * a, with plain stores. Built with
// -DJBJ_PROBE_STREAMS (the benchmark's copy), a fresh output the size the kernels stream
// (StreamStores) gets streaming stores here too: the same pass with the kernels' stores.
static ffi::Error StreamScaleImpl(ffi::ThreadPool pool, float q, ffi::Buffer<ffi::F32> a,
                                  ffi::ResultBuffer<ffi::F32> out) {
  if (auto err = SameSize(out->element_count(), a.element_count(), "stream_scale", "out"); err.failure()) return err;
  const float* in = a.typed_data();
  float* o = out->typed_data();
#if defined(JBJ_PROBE_STREAMS) && JBJ_STREAM_STORES
  const bool stream = o != in && jbj_fast::StreamStores(out->size_bytes());
#else
  const bool stream = false;
#endif
  Pool p{pool};
  jbj_fast::ParallelFor(a.element_count(), kProbeChunk, p.helpers(), p,
                        [=](std::int64_t b, std::int64_t e) {
#if defined(JBJ_PROBE_STREAMS) && JBJ_STREAM_STORES
                          if (stream) {
                            jbj_fast::StreamRow(o + b, e - b, [=](std::int64_t i) { return q * in[b + i]; },
                                                [=](std::int64_t i) { return jbj_fast::VecLoad(in + b + i) * q; });
                            jbj_fast::StreamFence();
                            return;
                          }
#endif
                          for (std::int64_t i = b; i < e; ++i) o[i] = q * in[i];
                        });
  (void)stream;
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(StreamScale, StreamScaleImpl,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::ThreadPool>()
                                  .Attr<float>("q")
                                  .Arg<ffi::Buffer<ffi::F32>>()   // a (overwritten)
                                  .Ret<ffi::Buffer<ffi::F32>>()); // q * a, in a's buffer

// STREAM's triad, a = b + q * c, with the result written over a's buffer (aliased).
static ffi::Error StreamTriadImpl(ffi::ThreadPool pool, float q, ffi::Buffer<ffi::F32> a,
                                  ffi::Buffer<ffi::F32> b_in, ffi::Buffer<ffi::F32> c_in,
                                  ffi::ResultBuffer<ffi::F32> out) {
  if (auto err = SameSize(b_in.element_count(), a.element_count(), "stream_triad", "b"); err.failure()) return err;
  if (auto err = SameSize(c_in.element_count(), a.element_count(), "stream_triad", "c"); err.failure()) return err;
  if (auto err = SameSize(out->element_count(), a.element_count(), "stream_triad", "out"); err.failure()) return err;
  const float* bb = b_in.typed_data();
  const float* cc = c_in.typed_data();
  float* o = out->typed_data();
  Pool p{pool};
  jbj_fast::ParallelFor(a.element_count(), kProbeChunk, p.helpers(), p,
                        [=](std::int64_t b, std::int64_t e) {
                          for (std::int64_t i = b; i < e; ++i) o[i] = bb[i] + q * cc[i];
                        });
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(StreamTriad, StreamTriadImpl,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::ThreadPool>()
                                  .Attr<float>("q")
                                  .Arg<ffi::Buffer<ffi::F32>>()   // a (overwritten)
                                  .Arg<ffi::Buffer<ffi::F32>>()   // b
                                  .Arg<ffi::Buffer<ffi::F32>>()   // c
                                  .Ret<ffi::Buffer<ffi::F32>>()); // the new a
