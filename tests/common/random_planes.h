// Random coefficient planes for tests of TileBackend::inverse (codec/tile_backend.h): the
// cases of one iteration of a sweep over odd sizes and origins, 0 to 6 levels, 5/3, 9/7 and
// mixed kernels, MCT on and off, component subsets, a 4th component with fewer levels, and
// all-zero planes (code-blocks without data).
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "codec/tile_backend.h"

namespace gj2k::test {

struct PlaneCase {
  transform::Rect rect;
  int levels = 0;
  int kernels = 0;  // 0: all 5/3, 1: all 9/7, 2: mixed
  bool mct = false;
  int iteration = 0;
  std::string trace() const {
    return "iteration " + std::to_string(iteration) + " rect " + std::to_string(rect.x0) + "," +
           std::to_string(rect.y0) + "-" + std::to_string(rect.x1) + "," + std::to_string(rect.y1) +
           " levels " + std::to_string(levels) + " kernels " + std::to_string(kernels) + " mct " +
           std::to_string(mct);
  }
};

// Every case of the sweep, in a fixed order.
inline std::vector<PlaneCase> plane_cases() {
  const transform::Rect rects[] = {{0, 0, 1, 1},     {3, 5, 4, 9},      {1, 1, 66, 34},
                                   {7, 3, 200, 131}, {13, 29, 530, 77}, {2, 1, 3, 400}};
  std::vector<PlaneCase> out;
  int iteration = 0;
  for (const auto& r : rects)
    for (int levels = 0; levels <= 6; ++levels)
      for (int kernels = 0; kernels < 3; ++kernels)
        for (int mct = 0; mct < 2; ++mct)
          out.push_back({r, levels, kernels, mct != 0, ++iteration});
  return out;
}

// Four planes for a case, filled from rng: components 0..2 share the case's levels, component
// 3 (signed) has at most 2; precision 8 except component 2 (12 bits).
inline std::vector<codec::CoefficientPlane> random_planes(const PlaneCase& k, std::mt19937& rng) {
  constexpr size_t nc = 4;
  const size_t n = size_t{k.rect.width()} * k.rect.height();
  std::vector<codec::CoefficientPlane> planes(nc);
  std::uniform_int_distribution<int32_t> di(-300, 300);
  std::uniform_real_distribution<float> df(-300.0f, 300.0f);
  for (size_t c = 0; c < nc; ++c) {
    auto& p = planes[c];
    p.rect = k.rect;
    p.levels = c == 3 ? std::min(k.levels, 2) : k.levels;
    p.reversible = k.kernels == 0 || (k.kernels == 2 && c % 2 == 0);
    p.decode = c != 3 || k.iteration % 3 != 0;
    p.wanted = p.decode && (c != 1 || k.iteration % 4 != 0);
    codec::set_sample_range(p, c == 2 ? 12 : 8, c == 3);
    if (!p.decode) continue;
    const bool zero = k.iteration % 5 == 0 && c == 0;  // a plane of empty code-blocks
    p.allocate(n);
    if (p.reversible) {
      std::fill_n(p.ints.data(), n, 0);
      for (size_t i = 0; i < n && !zero; ++i) p.ints[i] = di(rng);
    } else {
      std::fill_n(p.floats(), n, 0.0f);
      for (size_t i = 0; i < n && !zero; ++i) p.floats()[i] = df(rng);
    }
  }
  return planes;
}

}  // namespace gj2k::test
