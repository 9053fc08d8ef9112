// OpenMP helpers shared by the encoder and decoder stages. Not public.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace gj2k::codec {

// Sets OpenMP's thread count for the calling thread and restores it on exit (threads <= 0:
// leaves it as it is). Every parallel region of an encode or decode then uses params.threads.
class ThreadScope {
 public:
  explicit ThreadScope(int threads) : saved_(omp_get_max_threads()) {
    if (threads > 0) omp_set_num_threads(threads);
  }
  ~ThreadScope() { omp_set_num_threads(saved_); }
  ThreadScope(const ThreadScope&) = delete;
  ThreadScope& operator=(const ThreadScope&) = delete;

 private:
  int saved_;
};

// Runs fn(first, count) over [0, n) in chunks of 2^16, in parallel on `threads` threads
// (0: the calling thread's team size).
template <class Fn>
void in_chunks(size_t n, const Fn& fn, int threads = 0) {
  constexpr size_t kChunk = size_t{1} << 16;
  const int64_t chunks = static_cast<int64_t>((n + kChunk - 1) / kChunk);
  const int team = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel for schedule(static) num_threads(team) if (chunks > 1)
  for (int64_t k = 0; k < chunks; ++k) {
    const size_t first = static_cast<size_t>(k) * kChunk;
    fn(first, std::min(n, first + kChunk) - first);
  }
}

}  // namespace gj2k::codec
