// late_wait.cc: makes a lost or a spurious wake-up certain. Chapter 12's self-check loads it with LD_PRELOAD into a
// process of its own, which runs a learner's thread-pool handler. It changes what the waits and locks made from a
// library registered with late_wait_library() do, in one of three ways, chosen with late_wait_mode():
//
//   - hold waits: every pthread_cond_wait (what std::condition_variable::wait calls) holds its mutex for a moment
//     (1 s) before the wait sleeps. A task that takes that mutex before it notifies (as jbj_fast::ParallelFor does)
//     blocks until the waiter sleeps, and then wakes it. A task that notifies without the mutex does so while no one
//     is asleep yet: the wake-up is lost, and the waiter sleeps for ever.
//   - late locks: every pthread_mutex_lock (what std::mutex::lock calls) made by a thread that is not running a pool
//     task (the handler's own thread; pool_watch.cc says which threads run tasks) waits a moment (late_lock_us)
//     before it locks. A waiter that checks whether the work is done before it takes the mutex, and then waits
//     without checking again, finds the last task's wake-up already gone, and sleeps for ever.
//   - spurious wake-ups: every other pthread_cond_wait returns at once, the mutex still held, as POSIX allows a wait
//     to do. A waiter that waits once, not in a loop until the work is done, returns before it is.
//
// Without this library each of these happens only when a task's notify falls in the few instructions between the
// waiter's check and its sleep, or when the system wakes a waiter for no reason: rarely. Waits and locks made from
// any other library (Python's, XLA's own pool) are left alone.

#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>

#include <atomic>
#include <cstring>
#include <ctime>

namespace {

using CondWait = int (*)(pthread_cond_t*, pthread_mutex_t*);
using MutexLock = int (*)(pthread_mutex_t*);

constexpr int kMaxLibraries = 16;
std::atomic<const char*> g_libraries[kMaxLibraries];  // file names (no folder), as registered
std::atomic<int> g_count{0};
std::atomic<long> g_held{0}, g_late_locks{0}, g_spurious{0};
std::atomic<bool> g_hold_waits{true}, g_spurious_on{false};
std::atomic<long> g_late_lock_us{0}, g_waits{0};
constexpr long kHoldNs = 1'000'000'000 - 1;

CondWait RealWait() {
  static const CondWait real = reinterpret_cast<CondWait>(dlsym(RTLD_NEXT, "pthread_cond_wait"));
  return real;
}

// Resolved on first use without a function-local static: every lock in the process comes here, the first ones
// before any C++ guard could be taken.
std::atomic<MutexLock> g_real_lock{nullptr};
MutexLock RealLock() {
  MutexLock real = g_real_lock.load(std::memory_order_acquire);
  if (real == nullptr) {
    real = reinterpret_cast<MutexLock>(dlsym(RTLD_NEXT, "pthread_mutex_lock"));
    g_real_lock.store(real, std::memory_order_release);
  }
  return real;
}

const char* FileName(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

// Whether the code at `address` belongs to a registered library.
bool InRegistered(void* address) {
  const int count = g_count.load(std::memory_order_acquire);
  Dl_info info;
  if (count == 0 || dladdr(address, &info) == 0 || info.dli_fname == nullptr) return false;
  const char* name = FileName(info.dli_fname);
  for (int j = 0; j < count; ++j)
    if (std::strcmp(name, g_libraries[j].load(std::memory_order_acquire)) == 0) return true;
  return false;
}

// Whether one of the calls on the stack that led here comes from a registered library.
bool FromRegistered() {
  if (g_count.load(std::memory_order_acquire) == 0) return false;
  void* frames[8];
  const int depth = backtrace(frames, 8);
  for (int i = 1; i < depth; ++i)
    if (InRegistered(frames[i])) return true;
  return false;
}

// Whether this thread runs a pool task, as pool_watch.cc's pool_watch_in_task says once late_wait_task_probe has
// been given it (until then no thread counts as one).
using Ask = int (*)();
std::atomic<Ask> g_in_task{nullptr};
bool InPoolTask() {
  const Ask ask = g_in_task.load(std::memory_order_acquire);
  return ask != nullptr && ask() != 0;
}

void Sleep(long ns) {
  timespec left{ns / 1'000'000'000, ns % 1'000'000'000};
  while (nanosleep(&left, &left) != 0) {
  }
}

}  // namespace

extern "C" {

// Waits and locks made from the library whose file is `path` (its folder is ignored) are changed from now on.
int late_wait_library(const char* path) {
  const int slot = g_count.load();
  if (slot >= kMaxLibraries) return -1;
  g_libraries[slot].store(strdup(FileName(path)), std::memory_order_release);
  g_count.store(slot + 1, std::memory_order_release);
  return 0;
}

// Which changes are on: waits held for 1 s (the default), locks of the handler's own thread made late_lock_us late,
// every other wait returning at once.
void late_wait_mode(int hold_waits, long late_lock_us, int spurious) {
  g_hold_waits.store(hold_waits != 0);
  g_late_lock_us.store(late_lock_us);
  g_spurious_on.store(spurious != 0);
}

// The function that says whether the calling thread runs a pool task (pool_watch.cc's pool_watch_in_task, which
// the process loaded on its own, so this library cannot look it up by name).
void late_wait_task_probe(Ask ask) { g_in_task.store(ask, std::memory_order_release); }

// How many waits were held, locks made late, and waits returned at once so far.
long late_waits_held() { return g_held.load(); }
long late_locks_made() { return g_late_locks.load(); }
long late_spurious_returns() { return g_spurious.load(); }

int pthread_cond_wait(pthread_cond_t* cond, pthread_mutex_t* mutex) {
  if (FromRegistered()) {
    if (g_spurious_on.load() && g_waits.fetch_add(1) % 2 == 0) {
      g_spurious.fetch_add(1);
      return 0;  // woken for no reason, the mutex still held
    }
    if (g_hold_waits.load()) {
      g_held.fetch_add(1);
      Sleep(kHoldNs);
    }
  }
  return RealWait()(cond, mutex);
}

int pthread_mutex_lock(pthread_mutex_t* mutex) {
  const long late = g_late_lock_us.load(std::memory_order_relaxed);
  if (late > 0 && InRegistered(__builtin_return_address(0)) && !InPoolTask()) {
    g_late_locks.fetch_add(1);
    Sleep(late * 1000);
  }
  return RealLock()(mutex);
}

}  // extern "C"
