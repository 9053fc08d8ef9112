// Helpers for the encoder tests: OpenJPEG decoding from memory and seeded test images.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "gj2k/image.h"

#ifdef GJ2K_HAVE_OPENJPEG
#include <openjpeg.h>

#include "tests/codec/decode_opj.h"
#endif

namespace gj2k::test {

#ifdef GJ2K_HAVE_OPENJPEG
// Decodes a codestream (or JP2 file) with libopenjp2. Returns nullopt and sets `error` when
// OpenJPEG refuses it.
inline std::optional<Image> opj_decode(const std::vector<uint8_t>& bytes, std::string& error) {
  return opj::decode(bytes, {}, &error);
}
#endif

// Compares geometry and samples, ignoring the colour space and alpha flags (OpenJPEG's
// codestream decoder knows neither).
inline std::optional<std::string> compare_samples(const Image& a, Image b) {
  b.color_space = a.color_space;
  b.icc_profile = a.icc_profile;
  for (size_t c = 0; c < b.components.size() && c < a.components.size(); ++c)
    b.components[c].is_alpha = a.components[c].is_alpha;
  return compare(a, b);
}

// Seeded random-walk image: smooth structure with noise, so compression does something.
inline Image random_image(uint32_t w, uint32_t h, uint32_t nc, uint32_t precision, bool is_signed,
                          uint32_t seed, uint32_t x0 = 0, uint32_t y0 = 0,
                          std::vector<std::pair<uint32_t, uint32_t>> sub = {}) {
  Image im;
  im.x0 = x0;
  im.y0 = y0;
  im.x1 = x0 + w;
  im.y1 = y0 + h;
  for (uint32_t c = 0; c < nc; ++c) {
    Component comp;
    comp.precision = precision;
    comp.is_signed = is_signed;
    if (c < sub.size()) std::tie(comp.dx, comp.dy) = sub[c];
    im.components.push_back(comp);
  }
  allocate_components(im);
  std::mt19937 rng(seed);
  for (size_t ci = 0; ci < im.components.size(); ++ci) {
    Component& comp = im.components[ci];
    const int64_t lo = comp.min_value(), hi = comp.max_value();
    const double range = double(hi - lo);
    std::normal_distribution<double> noise(0, range / 40 + 0.5);
    for (uint32_t y = 0; y < comp.height; ++y)
      for (uint32_t x = 0; x < comp.width; ++x) {
        const double base = 0.5 + 0.35 * std::sin(x * 0.07 + comp.precision) *
                                      std::cos(y * 0.05 + 0.3 * double(ci));
        int64_t v = lo + static_cast<int64_t>(base * range + noise(rng));
        comp.at(x, y) = static_cast<int32_t>(std::clamp(v, lo, hi));
      }
  }
  return im;
}

}  // namespace gj2k::test
