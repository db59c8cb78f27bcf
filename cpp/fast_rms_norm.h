// Fast RMSNorm for chapter 12: the math of one row, written so the compiler vectorises it, and a
// parallel loop over rows that runs on any "schedule a task" pool. Nothing here knows about XLA;
// fast_rms_norm.cc binds it to XLA's FFI and its intra-op thread pool.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

#if defined(__linux__)
#include <sys/mman.h>
#endif
// Streaming stores (below) are compiled in on x86 unless -DJBJ_NO_STREAM_STORES asks for none.
#if defined(__SSE2__) && !defined(JBJ_NO_STREAM_STORES)
#define JBJ_STREAM_STORES 1
#else
#define JBJ_STREAM_STORES 0
#endif
#if defined(__SSE2__)
#include <immintrin.h>   // streaming stores, and a vector's square roots (VecSqrt)
#endif
#include <utility>

// Everything below is compiled for the instruction set of the translation unit that includes it (its
// vector width, kVecWidth, comes from the compiler's flags). A library that compiles these loops once
// per instruction set and picks one at run time (packages/jbj_fast_kernels) includes this header in
// several translation units, each with its own -m flags and its own namespace, so that no inline
// function of one is ever taken for the same-named function of another.
#ifndef JBJ_FAST_NAMESPACE
#define JBJ_FAST_NAMESPACE jbj_fast
#endif

namespace JBJ_FAST_NAMESPACE {

// How many partial sums a row reduction keeps. Independent partial sums let the compiler put them
// in SIMD lanes without reordering one sum (which it may not do for floats without -ffast-math),
// and shorten the chain of dependent additions, which is also what makes the sum more accurate.
constexpr int kLanes = 16;

// The total of kLanes partial sums and a tail: the lanes added pairwise, 8 + 8, 4 + 4, 2 + 2, 1 + 1
// (acc is overwritten), then the tail.
inline float SumLanes(float* acc, float tail) {
  for (int width = kLanes / 2; width > 0; width /= 2) {
    for (int j = 0; j < width; ++j) acc[j] += acc[j + width];
  }
  return acc[0] + tail;
}

// Sum of a[i] * b[i] over one row, accumulated in float in kLanes partial sums.
inline float DotLanes(const float* a, const float* b, std::int64_t n) {
  float acc[kLanes] = {};
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) acc[j] += a[i + j] * b[i + j];
  }
  float tail = 0.0f;
  for (; i < n; ++i) tail += a[i] * b[i];
  return SumLanes(acc, tail);
}

// The same sum, one double at a time: the accurate, slow baseline the chapter compares against.
inline double DotDouble(const float* a, const float* b, std::int64_t n) {
  double acc = 0.0;
  for (std::int64_t i = 0; i < n; ++i) acc += double(a[i]) * double(b[i]);
  return acc;
}

// The scale of a row of n whose squares add up to sum_sq: 1 / sqrt(mean + eps); an empty row is
// treated as mean 0.
inline float ScaleOfSum(float sum_sq, std::int64_t n, float eps) {
  const float mean = n > 0 ? sum_sq / float(n) : 0.0f;
  return 1.0f / std::sqrt(mean + eps);
}

// The scale of one row: 1 / sqrt(mean(x^2) + eps).
inline float RowScale(const float* x, std::int64_t n, float eps) { return ScaleOfSum(DotLanes(x, x, n), n, eps); }

// Streaming stores. A plain store to memory that is not in the cache first reads the line it
// writes (the CPU must own the whole 64-byte line before changing part of it), so writing an output
// larger than the caches moves its bytes twice: once in, once out. A streaming (non-temporal) store
// writes whole lines straight to memory without reading them and without keeping them in the cache.
// That saves a third of a forward pass's traffic (read x, write y) where the output's pages are
// already there: glibc's malloc hands a block of up to 32 MiB back from its heap on the next call,
// pages and all. A block over 32 MiB is a fresh mapping on every call, whose pages the OS fills
// with zeros on first touch; there the page faults dominate and streaming gained nothing in
// chapter 12's measurements, so StreamStores says no above kStreamMaxMiB. The stores are x86
// instructions (SSE2, AVX or AVX-512, whichever the compiler may use); elsewhere every store is a
// plain one. Chapter 12 builds copies with -DJBJ_NO_STREAM_STORES and with a larger
// -DJBJ_STREAM_MAX_MIB to measure both choices.
#ifndef JBJ_STREAM_MAX_MIB
#define JBJ_STREAM_MAX_MIB 32
#endif
constexpr std::size_t kStreamMinBytes = std::size_t(8) << 20;
constexpr std::size_t kStreamMaxMiB = JBJ_STREAM_MAX_MIB;

inline bool StreamStores(std::size_t output_bytes) {
#if JBJ_STREAM_STORES
  return output_bytes >= kStreamMinBytes && output_bytes <= (kStreamMaxMiB << 20);
#else
  (void)output_bytes;
  return false;
#endif
}

// The width of the widest vector register the compiler may use, in floats.
#if defined(__AVX512F__)
constexpr int kVecWidth = 16;
#elif defined(__AVX__)
constexpr int kVecWidth = 8;
#else
constexpr int kVecWidth = 4;
#endif
static_assert(kLanes % kVecWidth == 0, "a row's lane sums must fill whole vectors");
// kVecWidth floats as one value; +, - and * work lane by lane, also with a plain float (GCC's and
// Clang's vector extensions, on any CPU).
typedef float Vec __attribute__((vector_size(kVecWidth * sizeof(float))));

inline Vec VecLoad(const float* p) {
  Vec v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline void VecStore(float* p, Vec v) { std::memcpy(p, &v, sizeof v); }

#if JBJ_STREAM_STORES
// Stores v at p (which must be aligned to the vector's size) with a streaming store.
inline void VecStream(float* p, Vec v) {
#if defined(__AVX512F__)
  _mm512_stream_ps(p, (__m512)v);
#elif defined(__AVX__)
  _mm256_stream_ps(p, (__m256)v);
#else
  _mm_stream_ps(p, (__m128)v);
#endif
}

// out[i] = one(i) for i in [0, n), with streaming stores where out is aligned for them (the first
// few elements, up to the alignment, and the tail are stored plainly). `vec(i)` computes elements
// [i, i + kVecWidth) at once, by the same formula as `one`.
template <typename One, typename Many>
inline void StreamRow(float* out, std::int64_t n, One one, Many vec) {
  constexpr std::uintptr_t align = kVecWidth * sizeof(float);
  std::int64_t i = 0;
  for (; i < n && reinterpret_cast<std::uintptr_t>(out + i) % align != 0; ++i) out[i] = one(i);
  for (; i + kVecWidth <= n; i += kVecWidth) VecStream(out + i, vec(i));
  for (; i < n; ++i) out[i] = one(i);
}
#endif

// Streaming stores are not ordered with the thread's other stores; this orders them before
// whatever the thread does next (such as telling the caller its chunk is done).
inline void StreamFence() {
#if JBJ_STREAM_STORES
  _mm_sfence();
#endif
}

// One row of the forward pass, yr = xr * s; with kSumNext, the same loop also sums the squares of
// the next row `xn` and returns that row's scale. Reading the next row while writing this one keeps
// the memory system busy both ways at once; row after row, a thread would first only read (the sum)
// and then mostly write (the result). Lane j of the sum takes the same elements as in DotLanes, so
// the scale is the same float as RowScale's. Each block of kLanes is loaded before any of it is
// stored, so yr may be xr (in place), and then xn is yr + n, which no store reaches. With `stream`,
// yr gets streaming stores if it starts on a vector boundary; a row that does not (an output that
// is not aligned to the vector's size, or rows whose bytes are not a multiple of it) is stored
// plainly.
template <bool kSumNext>
inline float ScaleRowPass(const float* xr, float* yr, const float* xn, std::int64_t n, float s, float eps,
                          bool stream) {
  constexpr int kVecs = kLanes / kVecWidth;   // lane j of DotLanes is lane j % kVecWidth of acc[j / kVecWidth]
  Vec acc[kVecs] = {};
#if JBJ_STREAM_STORES
  const bool streamed = stream && reinterpret_cast<std::uintptr_t>(yr) % (kVecWidth * sizeof(float)) == 0;
#else
  (void)stream;
  const bool streamed = false;
#endif
  auto block = [&](std::int64_t i) {
    Vec here[kVecs], next[kVecs];
    for (int k = 0; k < kVecs; ++k) {
      here[k] = VecLoad(xr + i + k * kVecWidth);
      if (kSumNext) next[k] = VecLoad(xn + i + k * kVecWidth);
    }
    for (int k = 0; k < kVecs; ++k) {
#if JBJ_STREAM_STORES
      if (streamed) {
        VecStream(yr + i + k * kVecWidth, here[k] * s);
        continue;
      }
#endif
      VecStore(yr + i + k * kVecWidth, here[k] * s);
    }
    if (kSumNext) {
      for (int k = 0; k < kVecs; ++k) acc[k] += next[k] * next[k];
    }
  };
  const std::int64_t full = n - n % kLanes;
  for (std::int64_t i = 0; i < full; i += kLanes) block(i);
  float tail = 0.0f;
  if (kSumNext) {
    for (std::int64_t k = full; k < n; ++k) tail += xn[k] * xn[k];   // as DotLanes sums its tail
  }
  for (std::int64_t k = full; k < n; ++k) yr[k] = xr[k] * s;
  if (!kSumNext) return 0.0f;
  float lanes[kLanes];
  for (int k = 0; k < kVecs; ++k) std::memcpy(lanes + k * kVecWidth, &acc[k], sizeof acc[k]);
  return ScaleOfSum(SumLanes(lanes, tail), n, eps);
}

// The square root of each lane of v, correctly rounded as std::sqrt is (a loop of std::sqrt would not
// be vectorised: it may set errno).
inline Vec VecSqrt(Vec v) {
#if defined(__AVX512F__)
  // (the masked form: GCC 12 warns, with -Wall, about the unset register inside _mm512_sqrt_ps)
  return (Vec)_mm512_maskz_sqrt_ps(__mmask16(0xFFFF), (__m512)v);
#elif defined(__AVX__)
  return (Vec)_mm256_sqrt_ps((__m256)v);
#elif defined(__SSE2__)
  return (Vec)_mm_sqrt_ps((__m128)v);
#else
  for (int j = 0; j < kVecWidth; ++j) v[j] = std::sqrt(v[j]);
  return v;
#endif
}

// Short rows. A row of 64 floats is 4 vectors of loads, multiplies and stores, and its scale costs
// as much again, one row at a time: SumLanes adds the lanes of one vector one level at a time, then a
// division, a square root and a division, each a long wait for a single float. So rows of up to
// kGroupBytes / kVecWidth bytes (256 floats with 16-float vectors) are taken kVecWidth at a time:
// their lane sums are added pairwise across the rows' vectors at once, each level one shuffle and
// one addition for two vectors (Fold), which leaves one vector holding the kVecWidth rows' sums, and
// their scales take one vector division, square root and division. The sums are added in the order
// of SumLanes, lane j with lane j + h at each level h, so every scale is the same float as RowScale's.
constexpr std::size_t kGroupBytes = std::size_t(16) << 10;   // kVecWidth rows, all in the L1 cache

inline bool GroupsRows(std::int64_t n) {
  return n > 0 && std::size_t(n) * kVecWidth * sizeof(float) <= kGroupBytes;
}

// Lane i of one of the two halves Fold adds: of two vectors a and b, each holding rows' partial sums in
// blocks of 2h lanes (one block per row), the result holds each row's block of h, a's rows first;
// lane i is in block i / h at offset i % h, and the lower half of that row's block is lane `FoldLane`
// (b's lanes are numbered from kVecWidth on), its upper half that plus h.
constexpr int FoldLane(int h, int i) {
  return (i / h) < kVecWidth / (2 * h) ? (i / h) * 2 * h + i % h
                                       : kVecWidth + ((i / h) - kVecWidth / (2 * h)) * 2 * h + i % h;
}

template <int h, std::size_t... I>
inline Vec Fold(Vec a, Vec b, std::index_sequence<I...>) {
#if defined(__clang__) || __GNUC__ >= 12
  return __builtin_shufflevector(a, b, FoldLane(h, I)...) + __builtin_shufflevector(a, b, (FoldLane(h, I) + h)...);
#else   // older GCC has only __builtin_shuffle, with the lanes as a vector of ints
  typedef int Lanes __attribute__((vector_size(sizeof(Vec))));
  return __builtin_shuffle(a, b, Lanes{FoldLane(h, I)...}) + __builtin_shuffle(a, b, Lanes{(FoldLane(h, I) + h)...});
#endif
}

// One level of the pairwise sum, over `count` vectors of partial sums (count / 2 come out).
template <int h>
inline void FoldLevel(Vec* v, int count) {
  for (int k = 0; k < count / 2; ++k) v[k] = Fold<h>(v[2 * k], v[2 * k + 1], std::make_index_sequence<kVecWidth>());
}

// The scales of the kVecWidth rows of n from x, lane k for row k: what RowScale gives each, bit for bit.
inline Vec GroupScales(const float* x, std::int64_t n, float eps) {
  constexpr int kVecs = kLanes / kVecWidth;   // lane j of DotLanes is lane j % kVecWidth of acc[j / kVecWidth]
  const std::int64_t full = n - n % kLanes;
  Vec sums[kVecWidth];
  Vec tails = {};
  for (int r = 0; r < kVecWidth; ++r) {
    const float* xr = x + r * n;
    Vec acc[kVecs] = {};
    for (std::int64_t i = 0; i < full; i += kLanes) {
      for (int k = 0; k < kVecs; ++k) {
        const Vec v = VecLoad(xr + i + k * kVecWidth);
        acc[k] += v * v;
      }
    }
    // SumLanes's levels whose pairs of lanes lie in different vectors (vectors narrower than kLanes).
    for (int h = kLanes / 2; h >= kVecWidth; h /= 2) {
      for (int k = 0; k < h / kVecWidth; ++k) acc[k] += acc[k + h / kVecWidth];
    }
    sums[r] = acc[0];
    float tail = 0.0f;
    for (std::int64_t i = full; i < n; ++i) tail += xr[i] * xr[i];   // as DotLanes sums its tail
    tails[r] = tail;
  }
  // The levels within a vector, every row's at once.
  if constexpr (kVecWidth >= 16) FoldLevel<8>(sums, 16);
  if constexpr (kVecWidth >= 8) FoldLevel<4>(sums, 8);
  FoldLevel<2>(sums, 4);
  FoldLevel<1>(sums, 2);
  const Vec mean = (sums[0] + tails) / float(n);   // ScaleOfSum's, lane by lane (n > 0 here)
  return 1.0f / VecSqrt(mean + eps);
}

// Row r alone: its scale (saved in scale[r] unless scale is null), then the row scaled.
inline void OneRow(const float* x, float* y, float* scale, std::int64_t r, std::int64_t n, float eps, bool stream) {
  const float s = RowScale(x + r * n, n, eps);
  if (scale != nullptr) scale[r] = s;
  ScaleRowPass<false>(x + r * n, y + r * n, nullptr, n, s, eps, stream);
}

// y = x * s for rows [begin, end). x and y may be the same memory (in place): each element of a row
// is read before it is written, and a row read for a later one's scale is only read. With `stream`,
// y is written with streaming stores. Short rows (GroupsRows) are taken kVecWidth at a time: their
// scales first, together (GroupScales), then each row scaled, read again from the L1 cache; the rows
// left over, fewer than kVecWidth, one at a time. Longer rows are pipelined: each row's loop also sums
// the squares of the next row (ScaleRowPass), so only the first row of the range is read on its own.
// No row outside the range is touched (in place, another thread may be writing it). Built with
// -DJBJ_NO_PIPELINE, each row is summed and then scaled, one after the other, as chapter 12 first
// writes it, to measure the difference.
inline void ForwardRows(const float* x, float* y, float* scale, std::int64_t begin,
                        std::int64_t end, std::int64_t n, float eps, bool stream = false) {
#ifndef JBJ_NO_PIPELINE
  if (GroupsRows(n)) {
    std::int64_t r = begin;
    for (; r + kVecWidth <= end; r += kVecWidth) {
      const Vec s = GroupScales(x + r * n, n, eps);
      for (int k = 0; k < kVecWidth; ++k) {
        if (scale != nullptr) scale[r + k] = s[k];
        ScaleRowPass<false>(x + (r + k) * n, y + (r + k) * n, nullptr, n, s[k], eps, stream);
      }
    }
    for (; r < end; ++r) OneRow(x, y, scale, r, n, eps, stream);
  } else if (begin < end) {
    float s = RowScale(x + begin * n, n, eps);
    for (std::int64_t r = begin; r < end; ++r) {
      if (scale != nullptr) scale[r] = s;
      const float* xr = x + r * n;
      if (r + 1 < end) {
        s = ScaleRowPass<true>(xr, y + r * n, xr + n, n, s, eps, stream);
      } else {
        ScaleRowPass<false>(xr, y + r * n, nullptr, n, s, eps, stream);
      }
    }
  }
#else
  for (std::int64_t r = begin; r < end; ++r) OneRow(x, y, scale, r, n, eps, stream);
#endif
  if (stream) StreamFence();
}

// ct_x = s * ct_y - (s^3 / n) * (ct_y . x) * x for one row of n, given its scale s. ct_x may be
// ct_y's memory: the dot product reads the whole row before any of it is written. With `stream`,
// ct_x is written with streaming stores (the caller fences).
inline void BackwardRow(float s, const float* xr, const float* gr, float* out, std::int64_t n,
                        bool stream = false) {
  const float factor = n > 0 ? s * s * s * DotLanes(gr, xr, n) / float(n) : 0.0f;
#if JBJ_STREAM_STORES
  if (stream) {
    StreamRow(out, n, [&](std::int64_t i) { return gr[i] * s - xr[i] * factor; },
              [&](std::int64_t i) { return VecLoad(gr + i) * s - VecLoad(xr + i) * factor; });
    return;
  }
#else
  (void)stream;   // plain stores where none stream
#endif
  for (std::int64_t i = 0; i < n; ++i) out[i] = gr[i] * s - xr[i] * factor;
}

// BackwardRow for rows [begin, end), each with the scale the forward pass saved.
inline void BackwardRows(const float* scale, const float* x, const float* ct_y, float* ct_x,
                         std::int64_t begin, std::int64_t end, std::int64_t n, bool stream = false) {
  for (std::int64_t r = begin; r < end; ++r) {
    BackwardRow(scale[r], x + r * n, ct_y + r * n, ct_x + r * n, n, stream);
  }
  if (stream) StreamFence();
}

// BackwardRow for rows [begin, end), each row's scale computed again from x (rematerialised): the
// row is read for its scale and read again, from the cache, for the gradient, so the forward pass
// need not have written anything for the backward pass.
inline void RecomputedBackwardRows(const float* x, const float* ct_y, float* ct_x, std::int64_t begin,
                                   std::int64_t end, std::int64_t n, float eps, bool stream = false) {
  for (std::int64_t r = begin; r < end; ++r) {
    const float* xr = x + r * n;
    BackwardRow(RowScale(xr, n, eps), xr, ct_y + r * n, ct_x + r * n, n, stream);
  }
  if (stream) StreamFence();
}

// A fresh output buffer costs a page fault for each 4 KiB page the kernel first writes (chapter 12,
// section 6). Linux can back memory with 2 MiB "transparent huge pages" instead, one fault for 512
// small pages, where the memory is marked with madvise(MADV_HUGEPAGE) (what NumPy does for its own
// large arrays). This marks the 2 MiB-aligned part of [p, p + bytes) before the kernel writes it.
// It is advice: pages already there stay as they are, memory outside the range is not touched, and
// an error (or another OS, or huge pages switched off) only means the advice is not taken. Only
// blocks of kHugeAdviseBytes or more are advised: glibc's malloc maps blocks over 32 MiB fresh from
// the OS on every allocation, and blocks of a few MiB on some calls (seen with 16 MiB outputs when
// three jitted functions took turns, as in bench/); a small block is mostly reused with its pages
// already there, and there the system call would only cost time.
// Chapter 12 builds a copy with -DJBJ_NO_HUGE_PAGES, which gives no advice, to measure the difference.
constexpr std::size_t kHugePage = std::size_t(2) << 20;
constexpr std::size_t kHugeAdviseBytes = std::size_t(8) << 20;

inline void AdviseHugePages(void* p, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE) && !defined(JBJ_NO_HUGE_PAGES)
  if (bytes < kHugeAdviseBytes) return;
  const std::uintptr_t start = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t begin = (start + kHugePage - 1) & ~std::uintptr_t(kHugePage - 1);
  const std::uintptr_t end = (start + bytes) & ~std::uintptr_t(kHugePage - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

// Runs body(begin, end) over [0, count) in chunks, on the calling thread and on up to `helpers`
// tasks handed to `schedule`. The calling thread takes chunks too, so the work finishes even if
// the pool is busy and no helper ever starts; a helper that starts late finds no chunk left and
// returns. The shared state lives as long as the last task that holds it, never on our stack.
// When its own chunks are done, the calling thread waits for the last chunk in two steps. First it
// polls the counter, yielding the core each time, for at most kPollBeforeSleep: waking a sleeping
// thread can take tens of microseconds (on a virtual machine, a halted virtual CPU must be woken),
// as long as the whole wait for a 4 MiB call, and the last chunk is usually done sooner. Then, if it
// is not, it sleeps until the thread that finishes the last chunk wakes it. So a short wait costs no
// wake-up and a long one no more than kPollBeforeSleep of polling. (The benchmark builds a copy with
// -DJBJ_SPIN_WAIT, which polls for as long as it takes, to measure what the wait costs; and one with
// -DJBJ_POLL_BEFORE_SLEEP_US=0, which sleeps at once.)
#ifndef JBJ_POLL_BEFORE_SLEEP_US
#define JBJ_POLL_BEFORE_SLEEP_US 50
#endif
constexpr std::chrono::microseconds kPollBeforeSleep{JBJ_POLL_BEFORE_SLEEP_US};

template <typename Schedule, typename Body>
void ParallelFor(std::int64_t count, std::int64_t chunk, int helpers, Schedule&& schedule,
                 Body&& body) {
  if (count <= 0) return;
  chunk = std::max<std::int64_t>(chunk, 1);
  const std::int64_t chunks = (count + chunk - 1) / chunk;
  helpers = int(std::min<std::int64_t>(helpers, chunks - 1));
  if (helpers <= 0) {
    body(std::int64_t(0), count);
    return;
  }
  struct State {
    std::atomic<std::int64_t> next{0};
    std::atomic<std::int64_t> done{0};
    std::mutex mutex;
    std::condition_variable all_done;
  };
  auto state = std::make_shared<State>();
  // A chunk's body runs only while it is claimed, and the caller returns only when every chunk is
  // done, so `body` (and what it points to) outlives every use; a helper that starts late touches
  // nothing but `state`, which it co-owns (so the mutex and condition variable it notifies through
  // are still alive even if the caller has already returned).
  auto run = [state, count, chunk, chunks, body_ptr = &body]() {
    for (std::int64_t c = state->next.fetch_add(1); c < chunks; c = state->next.fetch_add(1)) {
      (*body_ptr)(c * chunk, std::min(count, (c + 1) * chunk));
      if (state->done.fetch_add(1, std::memory_order_acq_rel) + 1 == chunks) {
        // The last chunk. Taking the mutex orders this wake-up after the caller's check of `done`
        // (made under the same mutex): either the caller saw every chunk done, or it is already
        // asleep on `all_done` and this notify wakes it. No wake-up is lost.
        { std::lock_guard<std::mutex> lock(state->mutex); }
        state->all_done.notify_one();
      }
    }
  };
  for (int h = 0; h < helpers; ++h) schedule(run);
  run();
#ifdef JBJ_SPIN_WAIT
  while (state->done.load(std::memory_order_acquire) < chunks) std::this_thread::yield();
#else
  const auto give_up = std::chrono::steady_clock::now() + kPollBeforeSleep;
  while (state->done.load(std::memory_order_acquire) < chunks && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::yield();
  }
  if (state->done.load(std::memory_order_acquire) < chunks) {
    std::unique_lock<std::mutex> lock(state->mutex);
    state->all_done.wait(lock, [&] { return state->done.load(std::memory_order_acquire) == chunks; });
  }
#endif
}

}  // namespace JBJ_FAST_NAMESPACE
