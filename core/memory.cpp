#include "core/memory.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <system_error>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/thread_pool.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace gj2k::core {

void prefault(void* p, size_t bytes) {
#if defined(__linux__)
#if !defined(MADV_POPULATE_WRITE)
  constexpr int MADV_POPULATE_WRITE = 23;  // <linux/mman.h>, Linux 5.14
#endif
  if (bytes < kPrefaultMinBytes) return;
  // One chunk per 2 MiB of the address space (a huge page is faulted by one thread); the
  // first and last are cut to the 4 KiB pages that hold the range's ends.
  constexpr uintptr_t kPage = 4096, kChunk = uintptr_t{2} << 20;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(p) & ~(kPage - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes + kPage - 1) & ~(kPage - 1);
  const uintptr_t base = begin & ~(kChunk - 1);
  parallel_for(0, (end - base + kChunk - 1) / kChunk, 1, [&](size_t k) {
    const uintptr_t a = std::max(begin, base + k * kChunk);
    const uintptr_t b = std::min(end, base + (k + 1) * kChunk);
    madvise(reinterpret_cast<void*>(a), b - a, MADV_POPULATE_WRITE);
  });
#else
  (void)p;
  (void)bytes;
#endif
}

bool free_pages_reported(const std::filesystem::path& driver) {
  std::error_code ec;
  for (std::filesystem::directory_iterator it(driver, ec), end; !ec && it != end;
       it.increment(ec)) {
    // The bound devices are links virtioN beside the driver's own files (bind, uevent...).
    if (it->path().filename().string().rfind("virtio", 0) != 0) continue;
    std::ifstream f(it->path() / "features");
    std::string bits;
    if (f >> bits && bits.size() > 5 && bits[5] == '1') return true;
  }
  return false;
}

void copy_streaming(void* dst, const void* src, size_t bytes) {
#if defined(__SSE2__)
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  const size_t head = std::min(bytes, (16 - reinterpret_cast<uintptr_t>(d) % 16) % 16);
  std::memcpy(d, s, head);
  size_t at = head;
  for (; at + 64 <= bytes; at += 64) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + at));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + at + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + at + 32));
    const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + at + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + at), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + at + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + at + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + at + 48), e);
  }
  _mm_sfence();
  std::memcpy(d + at, s + at, bytes - at);
#else
  std::memcpy(dst, src, bytes);
#endif
}

}  // namespace gj2k::core
