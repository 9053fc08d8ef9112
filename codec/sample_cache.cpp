// Sample buffers kept between tiles, decodes and encodes (sample_cache.h).
#include "codec/sample_cache.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <fstream>
#include <mutex>
#include <string>

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GJ2K_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define GJ2K_ASAN 1
#endif
#if defined(GJ2K_ASAN)
#include <sanitizer/asan_interface.h>
#endif

namespace gj2k::codec {
namespace {

struct Kept {
  std::mutex mutex;
  std::deque<Samples> buffers;  // the oldest first
  size_t bytes = 0;
};
// Never destroyed: a decode still running on another thread at exit may keep a buffer.
Kept& kept() {
  static Kept* const k = new Kept;
  return *k;
}
size_t bytes_of(const Samples& s) {
  return s.capacity() * sizeof(int32_t);
}

// Under AddressSanitizer a kept buffer is poisoned whole and only the part handed out is
// unpoisoned, so that a read or write past a reused plane, or through a stale pointer into a
// kept one, is reported as it would be for fresh memory.
void poison(const Samples& s) {
#if defined(GJ2K_ASAN)
  ASAN_POISON_MEMORY_REGION(s.data(), bytes_of(s));
#else
  (void)s;
#endif
}
void unpoison(const Samples& s, size_t n) {
#if defined(GJ2K_ASAN)
  ASAN_UNPOISON_MEMORY_REGION(s.data(), n * sizeof(int32_t));
#else
  (void)s;
  (void)n;
#endif
}

// The memory limit of this process's cgroup (v2 memory.max, v1 limit_in_bytes), 0 if none.
size_t cgroup_limit() {
  for (const char* path :
       {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream f(path);
    std::string v;
    if (f >> v && !v.empty() && v != "max") {
      try {
        return static_cast<size_t>(std::stoull(v));
      } catch (...) {
      }
    }
  }
  return 0;
}

}  // namespace

size_t kept_samples_limit() {
  static const size_t limit = [] {
    size_t memory = 0;
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) memory = static_cast<size_t>(pages) * static_cast<size_t>(page);
#endif
    const size_t cg = cgroup_limit();
    if (cg > 0 && (memory == 0 || cg < memory)) memory = cg;
    const size_t cap = size_t{1} << 30;
    return memory > 0 ? std::min(cap, memory / 16) : cap;
  }();
  return limit;
}

Samples take_samples(size_t n, bool* fresh) {
  Samples s;
  if (n == 0) {
    if (fresh) *fresh = false;
    return s;
  }
  {
    Kept& k = kept();
    const std::lock_guard<std::mutex> lock(k.mutex);
    // The smallest that holds n, and no more than twice n: a much larger buffer would stay
    // with a small plane (and with the caller's image, where a plane becomes it).
    auto best = k.buffers.end();
    for (auto it = k.buffers.begin(); it != k.buffers.end(); ++it)
      if (it->capacity() >= n && it->capacity() / 2 <= n &&
          (best == k.buffers.end() || it->capacity() < best->capacity()))
        best = it;
    if (best != k.buffers.end()) {
      k.bytes -= bytes_of(*best);
      s.swap(*best);
      k.buffers.erase(best);
    }
  }
  const bool reused = s.capacity() >= n;
  if (fresh) *fresh = !reused;
  if (reused) unpoison(s, n);
  s.resize(n);                    // default-initialised: no write (DefaultInitAllocator)
#if defined(GJ2K_POISON_SAMPLES)  // as DefaultInitAllocator does for fresh buffers
  if (reused) std::memset(static_cast<void*>(s.data()), 0xA5, n * sizeof(int32_t));
#endif
  return s;
}

void keep_samples(Samples& s) {
  Samples mine;
  mine.swap(s);
  const size_t b = bytes_of(mine);
  if (b == 0 || b > kept_samples_limit()) return;  // freed here
  mine.clear();
  poison(mine);
  std::deque<Samples> freed;  // outside the lock
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
