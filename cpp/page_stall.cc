// Stopping a handler in the middle of its work (chapter 11's self-checks), and seeing which threads
// read an input (chapter 12's).
//
// A handler that runs on the calling thread calls nothing a check could watch: it reads its
// buffers and writes its results. So the check stops it where it reads. stall_on_touch makes some
// pages of an input unreadable; the first read of them faults, and the handler of that fault (this
// file's) holds the thread there until release_stall is called (or a time limit passes), makes the
// pages readable again and returns, so the read is made again and the handler goes on as if
// nothing had happened. Meanwhile the check makes a second call from another thread, which runs
// whole. A handler that keeps its rows' results in memory shared by every call has by then had them
// overwritten by the second call: the race happens on every try, not by chance.
//
// watch_readers answers another question: which thread read each page first, and was the call still
// running? It makes every page of a range unreadable; each first read of a page faults, and the fault
// handler writes down the thread's id (gettid) for that page, makes that one page readable again and
// returns. A thread that was not running before the call (not among the ids the check passes) is
// held there until the call has returned (calls_returned), or until a time limit counted from the
// first such read (one limit per call, so a thread is not held page after page): a handler that
// joins its own threads is merely slowed down, while one that returns before a thread of its own is
// done is seen every time, its thread's reads all coming after the return.
//
// A fault anywhere else goes to the handler that was there before (Python's faulthandler, say).
#include <atomic>
#include <csignal>
#include <cstdint>
#include <ctime>

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace {

std::atomic<std::uintptr_t> g_low{0}, g_high{0};  // the guarded pages, [low, high)
std::atomic<int> g_stalled{0}, g_released{0}, g_limit_us{0};
struct sigaction g_previous {};
bool g_installed = false;

// watch_readers: the watched pages [g_watch_low, g_watch_high) and the first reader of each (0: none
// yet). Fixed tables: a fault handler allocates nothing, and a thread still held when the next watch
// begins finds the tables where they were.
constexpr std::size_t kMaxPages = 1 << 16, kMaxKnown = 4096;
std::atomic<std::uintptr_t> g_watch_low{0}, g_watch_high{0};
std::atomic<long> g_readers[kMaxPages];
long g_known[kMaxKnown];
std::atomic<std::size_t> g_known_count{0};
std::atomic<int> g_returned{0}, g_hold_us{0};
std::atomic<long long> g_hold_until{0};
long g_page = 4096;

bool Known(long tid) {
  const std::size_t count = g_known_count.load();
  for (std::size_t i = 0; i < count; ++i)
    if (g_known[i] == tid) return true;
  return false;
}

long long NowUs() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000LL + t.tv_nsec / 1000;
}

void OnFault(int sig, siginfo_t* info, void* context) {
  const auto where = reinterpret_cast<std::uintptr_t>(info->si_addr);
  const std::uintptr_t low = g_low.load(), high = g_high.load();
  if (low != 0 && low <= where && where < high) {
    g_stalled.store(1);
    const long long until = NowUs() + g_limit_us.load();
    while (!g_released.load() && NowUs() < until) {
      timespec nap{0, 100000};  // 0.1 ms; nanosleep and mprotect are safe in a signal handler
      nanosleep(&nap, nullptr);
    }
    mprotect(reinterpret_cast<void*>(low), high - low, PROT_READ | PROT_WRITE);
    g_low.store(0);
    g_high.store(0);
    return;  // the read is made again, now that the pages are readable
  }
  const std::uintptr_t watch_low = g_watch_low.load(), watch_high = g_watch_high.load();
  if (watch_low != 0 && watch_low <= where && where < watch_high) {
    const std::uintptr_t page = (where - watch_low) / g_page;
    const long tid = static_cast<long>(syscall(SYS_gettid));
    if (!Known(tid)) {  // a thread started during the call: held until the call has returned, or the limit
      long long until = 0;  // one limit for the whole call, set by the first thread held
      g_hold_until.compare_exchange_strong(until, NowUs() + g_hold_us.load());
      until = g_hold_until.load();
      while (!g_returned.load() && NowUs() < until) {
        timespec nap{0, 100000};
        nanosleep(&nap, nullptr);
      }
    }
    long none = 0;
    g_readers[page].compare_exchange_strong(none, tid);
    mprotect(reinterpret_cast<void*>(watch_low + page * g_page), g_page, PROT_READ | PROT_WRITE);
    return;  // the read is made again, now that this page is readable
  }
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction != nullptr) return g_previous.sa_sigaction(sig, info, context);
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    return g_previous.sa_handler(sig);
  }
  // No handler before this one: the default action, when the faulting read is made again.
  signal(sig, SIG_DFL);
}

}  // namespace

namespace {
// Makes [address, address + bytes) unreadable and records it as the range [low, high) a fault is
// looked up in. Returns 0, or -1 (the range forgotten) if the protection could not be set.
int Guard(std::atomic<std::uintptr_t>& low, std::atomic<std::uintptr_t>& high, void* address, std::int64_t bytes) {
  const auto start = reinterpret_cast<std::uintptr_t>(address);
  high.store(start + static_cast<std::uintptr_t>(bytes));
  low.store(start);
  if (mprotect(address, static_cast<std::size_t>(bytes), PROT_NONE) != 0) {
    low.store(0);
    high.store(0);
    return -1;
  }
  return 0;
}

// Forgets the range [low, high) and makes whatever of it is still unreadable readable again.
void Unguard(std::atomic<std::uintptr_t>& low, std::atomic<std::uintptr_t>& high) {
  const std::uintptr_t start = low.exchange(0), end = high.exchange(0);
  if (start != 0) mprotect(reinterpret_cast<void*>(start), end - start, PROT_READ | PROT_WRITE);
}

bool Install() {
  if (!g_installed) {
    struct sigaction mine {};
    mine.sa_sigaction = OnFault;
    sigemptyset(&mine.sa_mask);
    mine.sa_flags = SA_SIGINFO;
    if (sigaction(SIGSEGV, &mine, &g_previous) != 0) return false;
    g_installed = true;
  }
  return true;
}
}  // namespace

// Makes the pages [address, address + bytes) unreadable (both must be multiples of the page size);
// the first thread to read them waits there until release_stall, or for at most limit_us. Returns 0,
// or -1 if the fault handler or the protection could not be set.
extern "C" int stall_on_touch(void* address, std::int64_t bytes, int limit_us) {
  if (!Install()) return -1;
  g_stalled.store(0);
  g_released.store(0);
  g_limit_us.store(limit_us);
  return Guard(g_low, g_high, address, bytes);
}

// 1 once a thread is held at the guarded pages.
extern "C" int stalled() { return g_stalled.load(); }

// Lets the held thread go on (or tells a thread that has not reached the pages yet not to wait).
extern "C" void release_stall() { g_released.store(1); }

// Makes every page of [address, address + bytes) unreadable (both multiples of the page size, at most
// 65536 pages) and forgets earlier readers; `known` lists the ids of the threads running before the
// call, and a thread not among them is held at its first read for at most hold_us, until
// calls_returned. Each page's first reader is then written down (reader_of).
// Returns 0, or -1 if the range is too large, or the fault handler or the protection could not be set.
extern "C" int watch_readers(void* address, std::int64_t bytes, const long* known, std::int64_t known_count,
                             int hold_us) {
  g_page = sysconf(_SC_PAGESIZE);
  const std::int64_t pages = bytes / g_page;
  if (pages > static_cast<std::int64_t>(kMaxPages) || known_count > static_cast<std::int64_t>(kMaxKnown)) return -1;
  if (!Install()) return -1;
  g_watch_low.store(0);  // no fault reads the tables while they are reset
  for (std::int64_t i = 0; i < pages; ++i) g_readers[i].store(0);
  g_known_count.store(0);
  for (std::int64_t i = 0; i < known_count; ++i) g_known[i] = known[i];
  g_known_count.store(static_cast<std::size_t>(known_count));
  g_returned.store(0);
  g_hold_us.store(hold_us);
  g_hold_until.store(0);
  return Guard(g_watch_low, g_watch_high, address, bytes);
}

// Says that the watched call has returned: held threads go on.
extern "C" void calls_returned() { g_returned.store(1); }

// The id of the thread that read page `page` of the watched range first, or 0 if none has read it.
extern "C" long reader_of(std::int64_t page) {
  return page >= 0 && page < static_cast<std::int64_t>(kMaxPages) ? g_readers[page].load() : 0;
}

// Makes the pages readable again if no thread touched them, and puts the previous fault handler back.
extern "C" void unguard() {
  g_returned.store(1);  // no thread stays held
  Unguard(g_low, g_high);
  Unguard(g_watch_low, g_watch_high);
  if (g_installed && sigaction(SIGSEGV, &g_previous, nullptr) == 0) g_installed = false;
}
