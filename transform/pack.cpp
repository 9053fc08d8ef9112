// The CPU packing of final samples (transform/pack.h): pack_sample's rule, with the common
// formats specialised so that the compiler sees fixed widths.
#include "transform/pack.h"

#include <bit>

namespace gj2k::transform {
namespace {

static_assert(std::endian::native == std::endian::little,
              "pack.h: little-endian output assumes a little-endian host");

template <uint32_t kBytes, bool kBigEndian>
void pack_rows(const int32_t* src, uint8_t* dst, const PackRect& r, int threads) {
  const auto height = static_cast<int64_t>(r.height);
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && height > 1)
  for (int64_t y = 0; y < height; ++y) {
    const int32_t* s = src + static_cast<size_t>(y) * r.src_pitch;
    uint8_t* d = dst + static_cast<size_t>(y) * r.dst_row;
    for (uint32_t x = 0; x < r.width; ++x, d += r.dst_pixel)
      pack_sample(d, s[x], kBytes, kBigEndian);
  }
}

}  // namespace

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
