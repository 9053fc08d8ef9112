// Parallel helpers shared by the encoder and decoder stages (over core/thread_pool.h). Not
// public.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

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

}  // namespace gj2k::codec
