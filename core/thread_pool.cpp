#include "core/thread_pool.h"

#include <sched.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace gj2k::core {
namespace {

thread_local ThreadPool* tl_pool = nullptr;  // the scope's pool (nullptr: the process pool)
thread_local int tl_threads = 0;             // the scope's thread count (0: the pool's)
thread_local void* tl_context = nullptr;     // the scope's opaque context
thread_local bool tl_in_loop = false;        // inside a loop's body

// How long an idle worker, or a caller waiting for its helpers, polls before it sleeps: long
// enough to catch the next loop of a stage that runs many short ones (the DWT's levels), short
// enough that an idle pool costs nothing.
constexpr auto kSpin = std::chrono::microseconds(50);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

// With GJ2K_TRACE set (as codec/trace.h), a pool's new workers are told on stderr, so that a
// test can see that a one-thread command starts none.
void trace_workers_started(int count) {
  static const bool on = [] {
    const char* v = std::getenv("GJ2K_TRACE");
    return v && *v && *v != '0';
  }();
  if (on && count > 0) std::fprintf(stderr, "gj2k trace: thread pool: %d workers started\n", count);
}

// Polls done() for up to kSpin; true when it became true.
template <class Done>
bool spin_until(const Done& done) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (done()) return true;
      cpu_relax();
    }
    if (std::chrono::steady_clock::now() >= until) return done();
  }
}

// Marks the calling thread as inside a loop's body (nested loops run inline) with the loop's
// pool and thread count, and restores the previous state.
class InLoop {
 public:
  InLoop(ThreadPool* pool, int threads, void* context)
      : pool_(tl_pool), threads_(tl_threads), context_(tl_context), in_loop_(tl_in_loop) {
    tl_pool = pool;
    tl_threads = threads;
    tl_context = context;
    tl_in_loop = true;
  }
  ~InLoop() {
    tl_pool = pool_;
    tl_threads = threads_;
    tl_context = context_;
    tl_in_loop = in_loop_;
  }
  bool was_outside() const { return !in_loop_; }
  InLoop(const InLoop&) = delete;
  InLoop& operator=(const InLoop&) = delete;

 private:
  ThreadPool* pool_;
  int threads_;
  void* context_;
  bool in_loop_;
};

}  // namespace

int hardware_threads() {
  static const int count = [] {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  }();
  return count;
}

ThreadPool::ThreadPool(int threads, bool growable) : growable_(growable) {
  if (threads <= 0) threads = hardware_threads();
  std::lock_guard lock(mutex_);
  workers_.reserve(static_cast<size_t>(threads - 1));
  for (int k = 1; k < threads; ++k) workers_.emplace_back([this] { worker(); });
  count_.store(threads - 1);
  trace_workers_started(threads - 1);
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::grow(int threads) {
  if (!growable_ || threads - 1 <= count_.load()) return;
  std::lock_guard lock(mutex_);
  const int before = static_cast<int>(workers_.size());
  while (static_cast<int>(workers_.size()) < threads - 1)
    workers_.emplace_back([this] { worker(); });
  count_.store(static_cast<int>(workers_.size()));
  trace_workers_started(static_cast<int>(workers_.size()) - before);
}

ThreadPool::Loop* ThreadPool::find_loop() {
  for (Loop* loop : loops_)
    if (loop->wanted > 0 && loop->next.load(std::memory_order_relaxed) < loop->chunks) return loop;
  return nullptr;
}

void ThreadPool::take_chunks(Loop& loop) {
  // Chunks are handed out in increasing order, so once chunk c failed every chunk below c has
  // been handed out already: stopping here skips only chunks above it.
  while (!loop.failed.load(std::memory_order_relaxed)) {
    const size_t c = loop.next.fetch_add(1, std::memory_order_relaxed);
    if (c >= loop.chunks) return;
    try {
      loop.body(loop.fn, c);
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (c < loop.error_chunk) {
        loop.error = std::current_exception();
        loop.error_chunk = c;
      }
      loop.failed.store(true, std::memory_order_relaxed);
    }
  }
}

void ThreadPool::run(Loop& loop, int participants) {
  loop.limit = max_threads();
  loop.context = tl_context;
  const int helpers = std::min(participants - 1, count_.load());
  InLoop in_loop(this, loop.limit, loop.context);
  if (helpers <= 0 || !in_loop.was_outside()) {
    for (size_t c = 0; c < loop.chunks; ++c) loop.body(loop.fn, c);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    loop.wanted = helpers;
    loops_.push_back(&loop);
  }
  posted_.fetch_add(1, std::memory_order_release);
  if (helpers >= count_.load()) {
    wake_.notify_all();
  } else {
    for (int k = 0; k < helpers; ++k) wake_.notify_one();
  }
  take_chunks(loop);
  {
    std::lock_guard lock(mutex_);  // no worker joins from here on
    loop.wanted = 0;
    std::erase(loops_, &loop);
  }
  if (!spin_until([&] { return loop.active.load() == 0; })) {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return loop.active.load() == 0; });
  }
  if (loop.error) std::rethrow_exception(loop.error);
}

void ThreadPool::worker() {
  uint64_t seen = posted_.load(std::memory_order_acquire);
  std::unique_lock lock(mutex_);
  for (;;) {
    Loop* loop = find_loop();
    if (!loop && !stop_) {
      lock.unlock();
      spin_until([&] { return posted_.load(std::memory_order_acquire) != seen; });
      lock.lock();
      wake_.wait(lock, [&] { return stop_ || (loop = find_loop()) != nullptr; });
    }
    if (!loop) return;  // stop_
    seen = posted_.load(std::memory_order_acquire);
    --loop->wanted;
    loop->active.fetch_add(1);
    lock.unlock();
    {
      InLoop in_loop(this, loop->limit, loop->context);
      take_chunks(*loop);
    }
    lock.lock();
    // The caller may return (and its Loop go) as soon as active reads 0: last use of loop.
    if (loop->active.fetch_sub(1) == 1) done_.notify_all();
  }
}

// The process pool once made (max_threads does not make it).
std::atomic<ThreadPool*> g_process_pool{nullptr};

ThreadPool& current_pool() {
  if (tl_pool) return *tl_pool;
  static ThreadPool process(hardware_threads(), /*growable=*/true);
  g_process_pool.store(&process);
  return process;
}

int max_threads() {
  if (tl_threads > 0) return tl_threads;
  if (tl_pool) return tl_pool->threads();
  const ThreadPool* process = g_process_pool.load();
  return process ? process->threads() : hardware_threads();
}

void* current_context() {
  return tl_context;
}

bool in_parallel() {
  return tl_in_loop;
}

ThreadScope::ThreadScope(int threads, ThreadPool* pool, void* context)
    : saved_pool_(tl_pool), saved_threads_(tl_threads), saved_context_(tl_context) {
  if (pool) tl_pool = pool;
  if (context) tl_context = context;
  if (threads > 0) tl_threads = threads;
  if (threads > 1) current_pool().grow(threads);  // one thread needs no pool
}

ThreadScope::~ThreadScope() {
  tl_pool = saved_pool_;
  tl_threads = saved_threads_;
  tl_context = saved_context_;
}

namespace detail {
int participants(size_t chunks, int threads) {
  if (tl_in_loop || chunks <= 1) return 1;
  const int want = threads > 0 ? threads : max_threads();
  return static_cast<int>(std::min<size_t>(chunks, static_cast<size_t>(std::max(want, 1))));
}
}  // namespace detail

}  // namespace gj2k::core
