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
// watch_readers answers another question: which thread read each page first? It makes every page of
// a range unreadable; each first read of a page faults, and the fault handler writes down the thread's
// id (gettid) for that page, makes that one page readable again and returns. Chapter 12 asks whether
// each of those threads was running before the call, which no thread the handler starts can be.
//
// A fault anywhere else goes to the handler that was there before (Python's faulthandler, say).
#include <atomic>
#include <csignal>
#include <cstdint>
#include <ctime>
#include <vector>

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace {

std::atomic<std::uintptr_t> g_low{0}, g_high{0};  // the guarded pages, [low, high)
std::atomic<int> g_stalled{0}, g_released{0}, g_limit_us{0};
struct sigaction g_previous {};
bool g_installed = false;

// watch_readers: the watched pages [g_watch_low, g_watch_high), and the first reader of each (0: none yet).
std::atomic<std::uintptr_t> g_watch_low{0}, g_watch_high{0};
std::vector<std::atomic<long>> g_readers;
long g_page = 4096;

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
    long none = 0;
    g_readers[page].compare_exchange_strong(none, static_cast<long>(syscall(SYS_gettid)));
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

// Makes the pages [address, address + bytes) unreadable (both must be multiples of the page size);
// the first thread to read them waits there until release_stall, or for at most limit_us. Returns 0,
// or -1 if the fault handler or the protection could not be set.
namespace {
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

extern "C" int stall_on_touch(void* address, std::int64_t bytes, int limit_us) {
  if (!Install()) return -1;
  g_stalled.store(0);
  g_released.store(0);
  g_limit_us.store(limit_us);
  const auto low = reinterpret_cast<std::uintptr_t>(address);
  g_high.store(low + static_cast<std::uintptr_t>(bytes));
  g_low.store(low);
  if (mprotect(address, static_cast<std::size_t>(bytes), PROT_NONE) != 0) {
    g_low.store(0);
    g_high.store(0);
    return -1;
  }
  return 0;
}

// 1 once a thread is held at the guarded pages.
extern "C" int stalled() { return g_stalled.load(); }

// Lets the held thread go on (or tells a thread that has not reached the pages yet not to wait).
extern "C" void release_stall() { g_released.store(1); }

// Makes every page of [address, address + bytes) unreadable (both multiples of the page size) and
// forgets earlier readers; each page's first reader is then written down (reader_of). Returns 0, or -1
// if the fault handler or the protection could not be set.
extern "C" int watch_readers(void* address, std::int64_t bytes) {
  if (!Install()) return -1;
  g_watch_low.store(0);  // no fault reads the table while it is replaced
  g_page = sysconf(_SC_PAGESIZE);
  std::vector<std::atomic<long>> readers(static_cast<std::size_t>(bytes / g_page));
  g_readers.swap(readers);
  const auto low = reinterpret_cast<std::uintptr_t>(address);
  g_watch_high.store(low + static_cast<std::uintptr_t>(bytes));
  g_watch_low.store(low);
  if (mprotect(address, static_cast<std::size_t>(bytes), PROT_NONE) != 0) {
    g_watch_low.store(0);
    g_watch_high.store(0);
    return -1;
  }
  return 0;
}

// The id of the thread that read page `page` of the watched range first, or 0 if none has read it.
extern "C" long reader_of(std::int64_t page) {
  return page >= 0 && static_cast<std::size_t>(page) < g_readers.size() ? g_readers[page].load() : 0;
}

// Makes the pages readable again if no thread touched them, and puts the previous fault handler back.
extern "C" void unguard() {
  const std::uintptr_t low = g_low.exchange(0), high = g_high.exchange(0);
  if (low != 0) mprotect(reinterpret_cast<void*>(low), high - low, PROT_READ | PROT_WRITE);
  const std::uintptr_t watch_low = g_watch_low.exchange(0), watch_high = g_watch_high.exchange(0);
  if (watch_low != 0) mprotect(reinterpret_cast<void*>(watch_low), watch_high - watch_low, PROT_READ | PROT_WRITE);
  if (g_installed && sigaction(SIGSEGV, &g_previous, nullptr) == 0) g_installed = false;
}
