// late_wait.cc: makes a lost wake-up certain. Chapter 12's self-check loads it with LD_PRELOAD into a process of
// its own, which runs a learner's thread-pool handler. Every pthread_cond_wait (what std::condition_variable::wait
// calls) made from a library registered with late_wait_library() holds its mutex for a moment (1 s) before the
// wait sleeps. A task that takes that mutex before it notifies (as jbj_fast::ParallelFor does) blocks until the
// waiter sleeps, and then wakes it. A task that notifies without the mutex does so while no one is asleep yet: the
// wake-up is lost, and the waiter sleeps for ever. Without this library that happens only when the task's notify
// falls in the few instructions between the waiter's check and its sleep, that is, rarely.
//
// Waits made from any other library (Python's, XLA's own pool) are left alone.

#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>

#include <atomic>
#include <cstring>
#include <ctime>

namespace {

using CondWait = int (*)(pthread_cond_t*, pthread_mutex_t*);

constexpr int kMaxLibraries = 16;
std::atomic<const char*> g_libraries[kMaxLibraries];  // file names (no folder), as registered
std::atomic<int> g_count{0};
std::atomic<long> g_held{0};
constexpr long kHoldNs = 1'000'000'000 - 1;

CondWait Real() {
  static const CondWait real = reinterpret_cast<CondWait>(dlsym(RTLD_NEXT, "pthread_cond_wait"));
  return real;
}

const char* FileName(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

// Whether one of the calls on the stack that led here comes from a registered library.
bool FromRegistered() {
  const int count = g_count.load(std::memory_order_acquire);
  if (count == 0) return false;
  void* frames[8];
  const int depth = backtrace(frames, 8);
  for (int i = 1; i < depth; ++i) {
    Dl_info info;
    if (dladdr(frames[i], &info) == 0 || info.dli_fname == nullptr) continue;
    const char* name = FileName(info.dli_fname);
    for (int j = 0; j < count; ++j)
      if (std::strcmp(name, g_libraries[j].load(std::memory_order_acquire)) == 0) return true;
  }
  return false;
}

}  // namespace

extern "C" {

// Waits made from the library whose file is `path` (its folder is ignored) are held from now on.
int late_wait_library(const char* path) {
  const int slot = g_count.load();
  if (slot >= kMaxLibraries) return -1;
  g_libraries[slot].store(strdup(FileName(path)), std::memory_order_release);
  g_count.store(slot + 1, std::memory_order_release);
  return 0;
}

// How many waits were held so far.
long late_waits_held() { return g_held.load(); }

int pthread_cond_wait(pthread_cond_t* cond, pthread_mutex_t* mutex) {
  if (FromRegistered()) {
    g_held.fetch_add(1);
    timespec hold{0, kHoldNs};
    while (nanosleep(&hold, &hold) != 0) {
    }
  }
  return Real()(cond, mutex);
}

}  // extern "C"
