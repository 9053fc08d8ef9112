// The generated photo-like test image (codec/synthetic.h).
#include "codec/synthetic.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "gj2k/error.h"

namespace gj2k::codec {
namespace {

uint32_t hash3(int32_t x, int32_t y, uint32_t seed) {
  uint32_t h = seed * 0x9E3779B9u ^ static_cast<uint32_t>(x) * 0x85EBCA6Bu ^
               static_cast<uint32_t>(y) * 0xC2B2AE35u;
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  h ^= h >> 16;
  return h;
}

float lattice(int32_t x, int32_t y, uint32_t seed) {
  return static_cast<float>(hash3(x, y, seed) >> 8) * (1.0f / 16777216.0f);
}

// Smooth value noise in [0, 1).
float value_noise(float x, float y, uint32_t seed) {
  const float fx = std::floor(x), fy = std::floor(y);
  const int32_t ix = static_cast<int32_t>(fx), iy = static_cast<int32_t>(fy);
  float tx = x - fx, ty = y - fy;
  tx = tx * tx * (3 - 2 * tx);
  ty = ty * ty * (3 - 2 * ty);
  const float a = lattice(ix, iy, seed), b = lattice(ix + 1, iy, seed);
  const float c = lattice(ix, iy + 1, seed), d = lattice(ix + 1, iy + 1, seed);
  return (a + (b - a) * tx) + ((c + (d - c) * tx) - (a + (b - a) * tx)) * ty;
}

// Fractal sum of `octaves` octaves, in about [0, 1).
float fbm(float x, float y, int octaves, uint32_t seed) {
  float sum = 0, amp = 0.5f, norm = 0;
  for (int o = 0; o < octaves; ++o) {
    sum += amp * value_noise(x, y, seed + 101u * o);
    norm += amp;
    x *= 2.03f;
    y *= 2.03f;
    amp *= 0.5f;
  }
  return sum / norm;
}

struct Building {
  float x0, x1, top;  // in units of the image width / height
  float r, g, b;
};

}  // namespace

Image synthetic_image(uint32_t width, uint32_t height, uint32_t num_components, uint32_t precision,
                      uint32_t seed) {
  if (num_components != 1 && num_components != 3)
    throw Error(ErrorCode::kInvalidArgument,
                "synthetic image: " + std::to_string(num_components) +
                    " components requested, only 1 (grey) or 3 (RGB) are generated");
  if (precision < 1 || precision > 16)
    throw Error(ErrorCode::kInvalidArgument,
                "synthetic image: precision " + std::to_string(precision) + " out of 1..16");
  Image image = make_image(width, height, num_components, precision);
  image.color_space = num_components == 3 ? ColorSpace::kSRGB : ColorSpace::kGrey;

  std::vector<Building> buildings;
  {
    uint32_t s = seed * 7919u + 13u;
    auto rnd = [&s] {
      s = hash3(static_cast<int32_t>(s), 17, 99);
      return static_cast<float>(s >> 8) / 16777216.0f;
    };
    float x = 0.05f + 0.1f * rnd();
    while (x < 0.6f) {
      const float w = 0.03f + 0.07f * rnd();
      const float shade = 90 + 110 * rnd();
      buildings.push_back({x, x + w, 0.3f + 0.2f * rnd(), shade, shade * (0.85f + 0.1f * rnd()),
                           shade * (0.7f + 0.2f * rnd())});
      x += w + 0.01f + 0.05f * rnd();
    }
  }
  const float fw = static_cast<float>(width), fh = static_cast<float>(height);
  const float scale = std::max(fw, fh) / 1024.0f;  // features keep their look at any size
  const float max_out = static_cast<float>((1u << precision) - 1);

  core::parallel_for(0, height, 16, [&](size_t yy) {
    const uint32_t y = static_cast<uint32_t>(yy);
    const float v = (y + 0.5f) / fh;
    for (uint32_t x = 0; x < width; ++x) {
      const float u = (x + 0.5f) / fw;
      const float px = x / scale, py = y / scale;
      // Sky: vertical gradient, clouds, sun with glow.
      float r = 70 + 130 * v, g = 115 + 100 * v, b = 205 + 35 * v;
      const float cloud = std::clamp((fbm(px / 160, py / 60, 5, seed + 1) - 0.5f) * 3.0f, 0.f, 1.f);
      r += (245 - r) * cloud;
      g += (245 - g) * cloud;
      b += (250 - b) * cloud;
      const float dx = (u - 0.78f) * fw, dy = (v - 0.18f) * fh;
      const float dist = std::sqrt(dx * dx + dy * dy) / (std::min(fw, fh) * 0.06f);
      if (dist < 1) {
        r = 255, g = 245, b = 200;
      } else {
        const float glow = std::exp(-(dist - 1) * 1.5f) * 0.6f;
        r += (255 - r) * glow;
        g += (240 - g) * glow;
        b += (190 - b) * glow;
      }
      // Buildings: flat walls with a grid of lit windows and hard edges.
      for (const Building& bd : buildings) {
        if (u >= bd.x0 && u < bd.x1 && v >= bd.top) {
          r = bd.r, g = bd.g, b = bd.b;
          const float wx = (u - bd.x0) * fw / (12 * scale), wy = (v - bd.top) * fh / (16 * scale);
          if (wx - std::floor(wx) > 0.35f && wy - std::floor(wy) > 0.4f) {
            const bool lit = hash3(static_cast<int32_t>(wx), static_cast<int32_t>(wy),
                                   seed + static_cast<uint32_t>(bd.x0 * 1000)) %
                                 3 ==
                             0;
            r = lit ? 250 : 40, g = lit ? 220 : 50, b = lit ? 140 : 70;
          }
        }
      }
      // Hills: two ridges with fractal outlines and textured grass.
      const float ridge1 = 0.52f + 0.12f * (fbm(px / 300, 3.7f, 6, seed + 2) - 0.5f) * 2;
      const float ridge2 = 0.68f + 0.08f * (fbm(px / 200, 9.1f, 6, seed + 3) - 0.5f) * 2;
      if (v > ridge1) {
        const float t = fbm(px / 25, py / 25, 4, seed + 4);
        r = 60 + 50 * t, g = 95 + 60 * t, b = 55 + 25 * t;
      }
      if (v > ridge2) {
        const float t = fbm(px / 12, py / 12, 4, seed + 5);
        r = 105 + 70 * t, g = 120 + 60 * t, b = 50 + 30 * t;
      }
      // Field: perspective stripes below the horizon.
      if (v > 0.82f) {
        const float depth = (v - 0.8f) * 5;
        const float stripe = 0.5f + 0.5f * std::sin((u - 0.5f) / depth * 90.0f);
        const float t = fbm(px / 6, py / 6, 3, seed + 6);
        r = 150 + 60 * stripe * t, g = 120 + 50 * stripe, b = 40 + 30 * t;
      }
      // Sensor-like noise.
      const float n =
          (lattice(static_cast<int32_t>(x), static_cast<int32_t>(y), seed + 7) - 0.5f) * 6;
      float rgb[3] = {r + n, g + n, b + n};
      if (num_components == 1) rgb[0] = 0.299f * rgb[0] + 0.587f * rgb[1] + 0.114f * rgb[2];
      for (uint32_t c = 0; c < num_components; ++c) {
        const float s = std::clamp(rgb[c] / 255.0f, 0.f, 1.f) * max_out;
        image.components[c].at(x, y) = static_cast<int32_t>(std::lround(s));
      }
    }
  });
  return image;
}

}  // namespace gj2k::codec
