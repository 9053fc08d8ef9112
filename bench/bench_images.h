// Benchmark inputs shared by the bench_* programs (header-only; bench/ links gj2k_io).
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "codec/synthetic.h"
#include "gj2k/error.h"
#include "gj2k/image.h"
#include "io/image_io.h"

namespace gj2k::bench {

// The shared photos (GJ2K_SHARED/images: Bretagne1, Cevennes2) tiled over width x height RGB
// 8-bit, every other tile mirrored so that edges meet: a real-photograph mosaic of any size.
// Without the shared photos, the synthetic scene (codec/synthetic.h) instead, said on stdout.
inline Image photo_mosaic(uint32_t width, uint32_t height) {
  const char* env = std::getenv("GJ2K_SHARED");
  const std::string shared = env ? env : "../shared";
  std::vector<Image> photos;
  for (const char* name : {"Bretagne1.ppm", "Cevennes2.ppm"}) {
    try {
      photos.push_back(io::read_image(shared + "/images/" + name));
    } catch (const Error&) {
    }
  }
  if (photos.empty()) {
    std::printf("(shared photos absent: the synthetic scene instead)\n");
    return codec::synthetic_image(width, height);
  }
  Image out = make_image(width, height, 3, 8);
  const uint32_t pw = photos[0].width(), ph = photos[0].height();
#pragma omp parallel for schedule(static)
  for (int64_t y = 0; y < int64_t{height}; ++y) {
    const uint32_t ty = uint32_t(y) / ph, iy = uint32_t(y) % ph;
    for (uint32_t x = 0; x < width; ++x) {
      const uint32_t tx = x / pw, ix = x % pw;
      const Image& p = photos[(tx + ty) % photos.size()];
      const uint32_t sx = std::min(tx % 2 ? pw - 1 - ix : ix, p.width() - 1);
      const uint32_t sy = std::min(ty % 2 ? ph - 1 - iy : iy, p.height() - 1);
      for (int c = 0; c < 3; ++c)
        out.components[c].samples[size_t(y) * width + x] = p.components[c].at(sx, sy);
    }
  }
  return out;
}

}  // namespace gj2k::bench
