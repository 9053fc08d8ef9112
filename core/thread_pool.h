// The library's worker threads: a ThreadPool and the loops that run on it (parallel_for,
// parallel_blocks). Not public.
//
// Which pool a loop runs on is scoped, not passed down: every entry point of the public API
// (gj2k::Encoder, gj2k::Decoder, the batches, the C API) opens a ThreadScope, which sets the
// calling thread's current pool and thread count (thread_local) for the duration of the call,
// and a pool's workers take both from the loop they help with. The stages below (transform/,
// entropy/, codec/, io/) then ask for "the current pool" without a pool parameter threaded
// through every signature. A gj2k_context owns its pool (joined when the context is
// destroyed); the C++ API without a context uses the process pool, made on first use, grown to
// the largest thread count asked for, and joined at exit.
//
// Nesting: a loop started from inside another loop's body (on a worker or on the caller while
// it takes chunks) runs inline and serial on that thread, as nested OpenMP regions did.
//
// Exceptions: one thrown by a loop's body stops the loop from handing out further chunks; the
// chunks already handed out finish, and the exception of the lowest index is rethrown on the
// caller once every participant is done -- the exception a serial loop would have thrown.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace gj2k::core {

// The threads this process may run on: the CPUs of its affinity mask at first use (>= 1).
int hardware_threads();

class ThreadPool {
 public:
  // A pool for loops of up to `threads` participants (<= 0: hardware_threads()): threads - 1
  // workers, the caller of a loop being the last. `growable`: grow() may add workers.
  explicit ThreadPool(int threads, bool growable = false);
  // Joins the workers. No loop may be running on the pool.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // The most participants a loop can have: workers + 1.
  int threads() const { return count_.load() + 1; }
  // A growable pool gets workers until it serves `threads` participants; others ignore it.
  void grow(int threads);

  // One loop: `chunks` pieces of work, body(chunk) for each, on up to `participants` threads
  // (the caller included). The chunk index comes from one shared atomic counter.
  struct Loop {
    void (*body)(const void* fn, size_t chunk) = nullptr;
    const void* fn = nullptr;
    size_t chunks = 0;
    int limit = 0;            // the caller's thread count, inherited by the workers
    void* context = nullptr;  // the caller's context (current_context), inherited too
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    std::atomic<int> active{0};  // workers inside
    int wanted = 0;              // workers still wanted (guarded by the pool's mutex)
    std::exception_ptr error;    // of chunk error_chunk, the lowest that threw (mutex)
    size_t error_chunk = SIZE_MAX;
  };
  // Runs `loop` to the end and rethrows its first exception. From inside a loop's body: inline.
  void run(Loop& loop, int participants);

 private:
  void worker();
  void take_chunks(Loop& loop);
  Loop* find_loop();  // a loop that still wants workers (mutex held)

  const bool growable_;
  std::mutex mutex_;
  std::condition_variable wake_;  // workers: a loop was posted, or stop
  std::condition_variable done_;  // callers: a loop's last worker left
  std::vector<Loop*> loops_;      // loops in flight (several callers may share a pool)
  std::vector<std::thread> workers_;
  std::atomic<int> count_{0};        // workers_.size(), read without the mutex
  std::atomic<uint64_t> posted_{0};  // loops posted so far (workers spin on it briefly)
  bool stop_ = false;
};

// The pool of the calling thread's current scope, or the process pool (growable, joined at
// exit) where no scope set one.
ThreadPool& current_pool();
// The thread count of the current scope (EncodeParams::threads ...), or the current pool's
// threads where none was set. What a loop without an explicit count uses.
int max_threads();
// The opaque context of the calling thread's current scope (codec/context.h: a gj2k_context's
// resources), or nullptr. A worker has its loop's caller's while it helps.
void* current_context();
// Whether the calling thread is inside a loop's body (a nested loop then runs inline).
bool in_parallel();

// Sets the calling thread's current pool (nullptr: keep the current one), thread count (<= 0:
// keep the current one) and context (nullptr: keep) until destroyed, then restores them. A
// growable pool (the process pool) grows to `threads`; a fixed pool (a context's) serves at
// most its own threads.
class ThreadScope {
 public:
  explicit ThreadScope(int threads, ThreadPool* pool = nullptr, void* context = nullptr);
  ~ThreadScope();
  ThreadScope(const ThreadScope&) = delete;
  ThreadScope& operator=(const ThreadScope&) = delete;

 private:
  ThreadPool* saved_pool_;
  int saved_threads_;
  void* saved_context_;
};

namespace detail {
// How many participants a loop of `chunks` chunks gets under a request of `threads` (<= 0:
// max_threads()): 1 inside a loop's body.
int participants(size_t chunks, int threads);
}  // namespace detail

// fn(i) for every i in [begin, end), dynamically scheduled in chunks of `grain` indices (as
// OpenMP's schedule(dynamic, grain)), on at most `threads` threads (<= 0: max_threads()).
template <class Fn>
void parallel_for(size_t begin, size_t end, size_t grain, const Fn& fn, int threads = 0) {
  if (end <= begin) return;
  grain = std::max<size_t>(grain, 1);
  const size_t chunks = (end - begin + grain - 1) / grain;
  const int n = detail::participants(chunks, threads);
  if (n <= 1) {
    for (size_t i = begin; i < end; ++i) fn(i);
    return;
  }
  struct Bound {
    const Fn& fn;
    size_t begin, end, grain;
  } bound{fn, begin, end, grain};
  ThreadPool::Loop loop;
  loop.body = [](const void* p, size_t chunk) {
    const Bound& b = *static_cast<const Bound*>(p);
    const size_t first = b.begin + chunk * b.grain;
    const size_t last = std::min(b.end, first + b.grain);
    for (size_t i = first; i < last; ++i) b.fn(i);
  };
  loop.fn = &bound;
  loop.chunks = chunks;
  current_pool().run(loop, n);
}

// fn(first, last) once for each of at most `threads` (<= 0: max_threads()) contiguous blocks
// that split [0, n) evenly (as OpenMP's schedule(static) gives each thread one block): for
// loops that set up per-thread state (scratch rows) once per block, and for reductions
// (per-block partials indexed by first * blocks / n, or collected under a lock).
template <class Fn>
void parallel_blocks(size_t n, const Fn& fn, int threads = 0) {
  if (n == 0) return;
  const int p = detail::participants(n, threads);
  if (p <= 1) {
    fn(size_t{0}, n);
    return;
  }
  struct Bound {
    const Fn& fn;
    size_t n, blocks;
  } bound{fn, n, static_cast<size_t>(p)};
  ThreadPool::Loop loop;
  loop.body = [](const void* q, size_t k) {
    const Bound& b = *static_cast<const Bound*>(q);
    // OpenMP's static split: the first n % blocks blocks have one index more.
    const size_t base = b.n / b.blocks, extra = b.n % b.blocks;
    const size_t first = k * base + std::min(k, extra);
    b.fn(first, first + base + (k < extra ? 1 : 0));
  };
  loop.fn = &bound;
  loop.chunks = static_cast<size_t>(p);
  current_pool().run(loop, p);
}

// fn(i) for every i in [begin, end) split as parallel_blocks splits it.
template <class Fn>
void parallel_for_static(size_t begin, size_t end, const Fn& fn, int threads = 0) {
  if (end <= begin) return;
  parallel_blocks(
      end - begin,
      [&](size_t first, size_t last) {
        for (size_t i = begin + first; i < begin + last; ++i) fn(i);
      },
      threads);
}

}  // namespace gj2k::core
