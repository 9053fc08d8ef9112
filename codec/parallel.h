// Parallel helpers shared by the encoder and decoder stages (over core/thread_pool.h). Not
// public.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <future>
#include <utility>

#include "core/thread_pool.h"

namespace gj2k::codec {

// Sets the calling thread's thread count (and pool) for the duration of an API call: every
// loop of an encode or decode then uses params.threads (core/thread_pool.h).
using core::ThreadScope;

// Runs fn(first, count) over [0, n) in chunks of 2^16, in parallel on `threads` threads
// (0: the current scope's count), each thread one contiguous run of chunks.
template <class Fn>
void in_chunks(size_t n, const Fn& fn, int threads = 0) {
  constexpr size_t kChunk = size_t{1} << 16;
  const size_t chunks = (n + kChunk - 1) / kChunk;
  core::parallel_for_static(
      0, chunks,
      [&](size_t k) {
        const size_t first = k * kChunk;
        fn(first, std::min(n, first + kChunk) - first);
      },
      threads);
}

// fn() on a new thread that inherits the caller's scope (its pool, thread count and context),
// so that its loops run on the caller's pool as the caller's would. The result's destructor
// waits for fn (std::async), so an object fn uses may be destroyed after the future.
template <class Fn>
auto async_in_scope(Fn&& fn) {
  core::ThreadPool* pool = &core::current_pool();
  const int threads = core::max_threads();
  void* context = core::current_context();
  return std::async(std::launch::async, [=, fn = std::forward<Fn>(fn)]() mutable {
    const core::ThreadScope scope(threads, pool, context);
    return fn();
  });
}

}  // namespace gj2k::codec
