// Watching XLA's intra-op thread pool from outside a handler, for chapter 12.
//
//   PoolSize                  an FFI handler that returns how many threads the pool has
//   spawn_join_us             what starting and joining a std::thread of one's own costs
//   watch_pool / unwatch_pool tasks that start late, or stall in the middle of their work
//   pool_wait_for_start       pool.Schedule returns only once the task has started
//   pool_meet                 the next handlers to call pool.Schedule wait there for each other
//   pool_watch_in_task        whether the calling thread is running a task the watch scheduled
//
// The last two are for the chapter's self-checks. A handler hands work to the pool with
// pool.Schedule(task), which calls the function XLA_FFI_ThreadPool_Schedule of the FFI's API table
// (xla/ffi/api/ffi.h). watch_pool puts a function of its own in that slot of the table: every task a
// handler schedules while the watch is on still runs on the pool, but can be made to start late (it
// waits before it runs), or to stall halfway (a timer of the pool thread's own interrupts the task
// once it has run for a while, and the thread sleeps for a while before the task goes on). So a race
// that depends on when a pool thread runs happens on every call, not by chance:
//
//   - a handler that returns once every chunk is claimed, not done, returns while a stalled task is
//     still in the middle of its chunk, and its result misses rows;
//   - a task that starts after its handler returned finds the handler's stack gone, which
//     AddressSanitizer reports if the task reads it;
//   - two calls made at once are both inside their handlers, each past what it did before its
//     first pool.Schedule, before either goes on: state the handlers share is overwritten by the
//     other call before it is read.
//
// The watch also counts the tasks and the CPU time they used, which says whether a handler handed
// work to the pool at all. NB: the table is XLA's own; replacing one of its functions is a tool for
// a check, not something a library should ever do.
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <mutex>
#include <thread>

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

namespace {

// The API table the last PoolSize call was given (the first field of ffi::ThreadPool holds it).
std::atomic<const XLA_FFI_Api*> g_api{nullptr};
XLA_FFI_ThreadPool_Schedule* g_original = nullptr;

std::atomic<int> g_start_late_us{0}, g_stall_after_us{0}, g_stall_us{0};
std::atomic<long long> g_scheduled{0}, g_stalled{0}, g_task_cpu_ns{0};

long long ThreadCpuNs() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

// The stall: the pool thread that receives this signal sleeps for g_stall_us, then goes on with
// the task the signal interrupted. nanosleep is safe in a signal handler.
void Stall(int) {
  const int errno_before = errno;
  g_stalled.fetch_add(1);
  timespec left{g_stall_us.load() / 1000000, (g_stall_us.load() % 1000000) * 1000L};
  while (nanosleep(&left, &left) != 0 && errno == EINTR) {
  }
  errno = errno_before;
}

int StallSignal() { return SIGRTMIN + 4; }

std::atomic<int> g_wait_for_start_us{0};

// A scheduled task, and whether it has started; owned by the task and by the Schedule that waits
// for it to start, whichever lets go last deletes it.
struct Wrapped {
  XLA_FFI_Task* task;
  void* data;
  std::atomic<bool> started{false};
  std::atomic<int> owners{1};
};

void LetGo(Wrapped* w) {
  if (w->owners.fetch_sub(1) == 1) delete w;
}

// Whether this thread is running a task the watch scheduled (late_wait.cc asks, to tell the pool's tasks from the
// handler's own thread).
thread_local bool g_in_task = false;

void RunWrapped(void* p) {
  auto* shared = static_cast<Wrapped*>(p);
  XLA_FFI_Task* task = shared->task;
  void* data = shared->data;
  if (const int late = g_start_late_us.load(); late > 0) std::this_thread::sleep_for(std::chrono::microseconds(late));
  timer_t timer{};
  bool armed = false;
  if (g_stall_us.load() > 0) {
    sigevent event{};
    event.sigev_notify = SIGEV_THREAD_ID;
    event.sigev_signo = StallSignal();
    event._sigev_un._tid = static_cast<pid_t>(syscall(SYS_gettid));
    if (timer_create(CLOCK_MONOTONIC, &event, &timer) == 0) {
      itimerspec when{};
      const int after = g_stall_after_us.load();
      when.it_value = {after / 1000000, (after % 1000000) * 1000L};
      armed = timer_settime(timer, 0, &when, nullptr) == 0;
      if (!armed) timer_delete(timer);
    }
  }
  shared->started.store(true);
  LetGo(shared);
  const long long start = ThreadCpuNs();
  g_in_task = true;
  task(data);
  g_in_task = false;
  g_task_cpu_ns.fetch_add(ThreadCpuNs() - start);
  if (armed) timer_delete(timer);  // a task shorter than g_stall_after_us is not interrupted
}

// The meeting: the first `g_meet_callers` threads to call Schedule while it is set each wait in
// their first call until all of them have arrived (or g_meet_us has passed); then it is over.
std::mutex g_meet_mutex;
std::condition_variable g_met;
int g_meet_callers = 0, g_meet_us = 0, g_meet_arrived = 0;
pid_t g_meet_tids[64];
std::atomic<long long> g_meetings{0};

void Meet() {
  std::unique_lock<std::mutex> lock(g_meet_mutex);
  if (g_meet_callers <= 1) return;
  const auto tid = static_cast<pid_t>(syscall(SYS_gettid));
  for (int i = 0; i < g_meet_arrived; ++i)
    if (g_meet_tids[i] == tid) return;  // this thread is already waiting, or its wait has ended
  g_meet_tids[g_meet_arrived++] = tid;
  if (g_meet_arrived == g_meet_callers) {
    g_meetings.fetch_add(1);
    g_meet_callers = 0;  // over: later calls go straight on
    g_met.notify_all();
    return;
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(g_meet_us);
  g_met.wait_until(lock, until, [] { return g_meet_callers == 0; });
  g_meet_callers = 0;  // met, or waited long enough: over either way
  g_met.notify_all();
}

XLA_FFI_Error* WatchedSchedule(XLA_FFI_ThreadPool_Schedule_Args* args) {
  g_scheduled.fetch_add(1);
  Meet();
  auto* wrapped = new Wrapped{args->task, args->data};
  const int wait_us = g_wait_for_start_us.load();
  if (wait_us > 0) wrapped->owners.store(2);
  XLA_FFI_ThreadPool_Schedule_Args mine = *args;
  mine.task = RunWrapped;
  mine.data = wrapped;
  XLA_FFI_Error* error = g_original(&mine);
  if (error != nullptr) {  // ffi.h then runs the task itself, on the calling thread
    delete wrapped;
    return error;
  }
  if (wait_us > 0) {
    // The handler goes on only once a pool thread has started the task (or wait_us has passed).
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(wait_us);
    while (!wrapped->started.load() && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::microseconds(10));
    LetGo(wrapped);
  }
  return error;
}

// The protection of the memory mapping that holds `address`, from /proc/self/maps (-1 if none).
int ProtectionOf(const void* address) {
  FILE* maps = std::fopen("/proc/self/maps", "r");
  if (maps == nullptr) return -1;
  char line[512];
  int found = -1;
  const auto where = reinterpret_cast<std::uintptr_t>(address);
  while (std::fgets(line, sizeof line, maps) != nullptr) {
    unsigned long low, high;
    char perms[5];
    if (std::sscanf(line, "%lx-%lx %4s", &low, &high, perms) == 3 && low <= where && where < high) {
      found = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) | (perms[2] == 'x' ? PROT_EXEC : 0);
      break;
    }
  }
  std::fclose(maps);
  return found;
}

// Writes `fn` into the table's Schedule slot, making its page writable for the moment if it is not.
bool SetSchedule(XLA_FFI_ThreadPool_Schedule* fn) {
  const XLA_FFI_Api* api = g_api.load();
  if (api == nullptr) return false;
  auto* slot = const_cast<XLA_FFI_ThreadPool_Schedule**>(&api->XLA_FFI_ThreadPool_Schedule);
  const int protection = ProtectionOf(slot);
  if (protection < 0) return false;
  const long page = sysconf(_SC_PAGESIZE);
  void* start = reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(slot) & ~std::uintptr_t(page - 1));
  if (!(protection & PROT_WRITE) && mprotect(start, page, protection | PROT_WRITE) != 0) return false;
  __atomic_store_n(slot, fn, __ATOMIC_SEQ_CST);
  if (!(protection & PROT_WRITE)) mprotect(start, page, protection);
  return true;
}

}  // namespace

// Returns how many threads XLA's intra-op pool has, and notes the FFI's API table for watch_pool.
static ffi::Error PoolSizeImpl(ffi::ThreadPool pool, ffi::ResultBuffer<ffi::S32> out) {
  if (out->element_count() != 1) return ffi::Error::InvalidArgument("pool_size: the result must be one int32, shape ()");
  const XLA_FFI_Api* api;
  std::memcpy(&api, &pool, sizeof api);  // NB: ffi::ThreadPool's first member; no public accessor exists
  g_api.store(api);
  out->typed_data()[0] = static_cast<int>(pool.num_threads());
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(PoolSize, PoolSizeImpl,
                              ffi::Ffi::Bind().Ctx<ffi::ThreadPool>().Ret<ffi::Buffer<ffi::S32>>());

// Microseconds to start and join `count` threads that do nothing, one after another.
extern "C" double spawn_join_us(std::int64_t count) {
  const auto start = std::chrono::steady_clock::now();
  for (std::int64_t i = 0; i < count; ++i) std::thread([] {}).join();
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / count;
}

// From now on, every task a handler schedules waits `start_late_us` before it runs, and is
// interrupted once it has run for `stall_after_us` to sleep for `stall_us` (0: no stall). The
// counters start again from 0. Returns 0, or -1 if no PoolSize call has shown the API table yet or
// its slot cannot be written.
extern "C" int watch_pool(int start_late_us, int stall_after_us, int stall_us) {
  if (g_api.load() == nullptr) return -1;
  struct sigaction action {};
  action.sa_handler = Stall;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  if (sigaction(StallSignal(), &action, nullptr) != 0) return -1;
  g_start_late_us = start_late_us;
  g_stall_after_us = stall_after_us;
  g_stall_us = stall_us;
  g_scheduled = 0;
  g_stalled = 0;
  g_task_cpu_ns = 0;
  if (g_original == nullptr) g_original = g_api.load()->XLA_FFI_ThreadPool_Schedule;
  return SetSchedule(WatchedSchedule) ? 0 : -1;
}

// From now on (0: no longer), pool.Schedule returns only once a pool thread has started the task,
// or after `wait_us`: the task then holds work before the handler's own thread goes on with its share.
extern "C" void pool_wait_for_start(int wait_us) { g_wait_for_start_us = wait_us; }

// From now on, the first `callers` threads to call pool.Schedule each wait in that call until all of
// them have arrived, or `wait_us` has passed (callers <= 1: no meeting). pool_meetings counts the
// meetings that were complete.
extern "C" void pool_meet(int callers, int wait_us) {
  std::lock_guard<std::mutex> lock(g_meet_mutex);
  g_meet_callers = callers < 64 ? callers : 64;
  g_meet_us = wait_us;
  g_meet_arrived = 0;
}

extern "C" long long pool_meetings() { return g_meetings.load(); }

// XLA's own Schedule back in its slot; tasks already scheduled still run as they were told.
extern "C" int unwatch_pool() {
  if (g_original == nullptr) return 0;
  return SetSchedule(g_original) ? 0 : -1;
}

extern "C" int pool_watch_in_task() { return g_in_task ? 1 : 0; }
extern "C" long long pool_tasks_scheduled() { return g_scheduled.load(); }
extern "C" long long pool_tasks_stalled() { return g_stalled.load(); }
extern "C" long long pool_task_cpu_ns() { return g_task_cpu_ns.load(); }
