// The CPU packing of final samples (transform/pack.h): pack_sample's rule, with the common
// formats specialised so that the compiler sees fixed widths.
#include "transform/pack.h"

#include <bit>

#include "core/thread_pool.h"

namespace gj2k::transform {
namespace {

static_assert(std::endian::native == std::endian::little,
              "pack.h: little-endian output assumes a little-endian host");

template <uint32_t kBytes, bool kBigEndian>
void pack_rows(const int32_t* src, uint8_t* dst, const PackRect& r, int threads) {
  const auto height = static_cast<int64_t>(r.height);
  core::parallel_for_static(
      0, r.height,
      [&](size_t y) {
        const int32_t* s = src + static_cast<size_t>(y) * r.src_pitch;
        uint8_t* d = dst + static_cast<size_t>(y) * r.dst_row;
        for (uint32_t x = 0; x < r.width; ++x, d += r.dst_pixel)
          pack_sample(d, s[x], kBytes, kBigEndian);
      },
      threads > 1 && height > 1 ? threads : 1);
}

// Pixels of n components; kN > 0: n known at compile time.
template <uint32_t kBytes, bool kBigEndian, size_t kN>
void pack_pixel_rows(const int32_t* const* src, size_t n, uint8_t* dst, const PackRect& r,
                     int threads) {
  if constexpr (kN > 0) n = kN;
  const auto height = static_cast<int64_t>(r.height);
  core::parallel_for_static(
      0, r.height,
      [&](size_t y) {
        const size_t row = static_cast<size_t>(y) * r.src_pitch;
        uint8_t* d = dst + static_cast<size_t>(y) * r.dst_row;
        for (uint32_t x = 0; x < r.width; ++x, d += r.dst_pixel)
          for (size_t k = 0; k < n; ++k)
            pack_sample(d + k * kBytes, src[k][row + x], kBytes, kBigEndian);
      },
      threads > 1 && height > 1 ? threads : 1);
}

}  // namespace

void pack_pixels(const int32_t* const* src, size_t n, uint8_t* dst, const PackRect& r, PackFormat f,
                 int threads) {
  if (r.width == 0 || r.height == 0 || n == 0) return;
  if (threads < 1) threads = 1;
  if (f.bytes == 1 && n == 3) return pack_pixel_rows<1, false, 3>(src, n, dst, r, threads);
  if (f.bytes == 2 && f.big_endian && n == 3)
    return pack_pixel_rows<2, true, 3>(src, n, dst, r, threads);
  switch (f.bytes) {
    case 1:
      return pack_pixel_rows<1, false, 0>(src, n, dst, r, threads);
    case 2:
      return f.big_endian ? pack_pixel_rows<2, true, 0>(src, n, dst, r, threads)
                          : pack_pixel_rows<2, false, 0>(src, n, dst, r, threads);
    default:
      return f.big_endian ? pack_pixel_rows<4, true, 0>(src, n, dst, r, threads)
                          : pack_pixel_rows<4, false, 0>(src, n, dst, r, threads);
  }
}

void pack_rect(const int32_t* src, uint8_t* dst, const PackRect& r, PackFormat f, int threads) {
  if (r.width == 0 || r.height == 0) return;
  if (threads < 1) threads = 1;
  switch (f.bytes) {
    case 1:
      return pack_rows<1, false>(src, dst, r, threads);
    case 2:
      return f.big_endian ? pack_rows<2, true>(src, dst, r, threads)
                          : pack_rows<2, false>(src, dst, r, threads);
    default:
      return f.big_endian ? pack_rows<4, true>(src, dst, r, threads)
                          : pack_rows<4, false>(src, dst, r, threads);
  }
}

}  // namespace gj2k::transform
