// Sample buffers kept between tiles and decodes (sample_cache.h).
#include "codec/sample_cache.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <mutex>

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

namespace gj2k::codec {
namespace {

struct Kept {
  std::mutex mutex;
  std::deque<Samples> buffers;  // the oldest first
  size_t bytes = 0;
};
Kept& kept() {
  static Kept k;
  return k;
}
size_t bytes_of(const Samples& s) {
  return s.capacity() * sizeof(int32_t);
}

}  // namespace

size_t kept_samples_limit() {
  static const size_t limit = [] {
    size_t cap = size_t{1} << 30;
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) cap = std::min(cap, static_cast<size_t>(pages) / 16 * page);
#endif
    return cap;
  }();
  return limit;
}

Samples take_samples(size_t n, bool* fresh) {
  Samples s;
  {
    Kept& k = kept();
    const std::lock_guard<std::mutex> lock(k.mutex);
    auto best = k.buffers.end();
    for (auto it = k.buffers.begin(); it != k.buffers.end(); ++it)
      if (it->capacity() >= n && (best == k.buffers.end() || it->capacity() < best->capacity()))
        best = it;
    if (best != k.buffers.end()) {
      k.bytes -= bytes_of(*best);
      s.swap(*best);
      k.buffers.erase(best);
    }
  }
  if (fresh) *fresh = s.capacity() < n;
  const bool reused = s.capacity() >= n;
  s.clear();
  s.resize(n);                    // default-initialised: no write (DefaultInitAllocator)
#if defined(GJ2K_POISON_SAMPLES)  // as DefaultInitAllocator does for fresh buffers
  if (reused) std::memset(static_cast<void*>(s.data()), 0xA5, n * sizeof(int32_t));
#else
  (void)reused;
#endif
  return s;
}

void keep_samples(Samples& s) {
  Samples mine;
  mine.swap(s);
  const size_t b = bytes_of(mine);
  if (b == 0 || b > kept_samples_limit()) return;  // freed here
  std::deque<Samples> freed;                       // outside the lock
  {
    Kept& k = kept();
    const std::lock_guard<std::mutex> lock(k.mutex);
    while (!k.buffers.empty() && k.bytes + b > kept_samples_limit()) {
      k.bytes -= bytes_of(k.buffers.front());
      freed.push_back(std::move(k.buffers.front()));
      k.buffers.pop_front();
    }
    k.bytes += b;
    k.buffers.push_back(std::move(mine));
  }
}

size_t release_kept_samples() {
  std::deque<Samples> freed;
  {
    Kept& k = kept();
    const std::lock_guard<std::mutex> lock(k.mutex);
    freed.swap(k.buffers);
    k.bytes = 0;
  }
  return freed.size();
}

}  // namespace gj2k::codec
