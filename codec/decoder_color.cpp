// JP2 palette and channel definitions, upsampling, sYCC to RGB (codec/decoder_color.h).
#include "codec/decoder_color.h"

#include <algorithm>
#include <cmath>

#include "gj2k/error.h"

namespace gj2k::codec {

void apply_palette(Image& image, const Jp2Color& color) {
  if (color.palette.empty() || color.cmap.empty()) return;
  const size_t entries = color.palette[0].values.size();
  std::vector<Component> out;
  for (size_t ch = 0; ch < color.cmap.size(); ++ch) {
    const auto& m = color.cmap[ch];
    if (m.component >= image.components.size())
      throw Error(ErrorCode::kFormat, "JP2 cmap: channel " + std::to_string(ch) +
                                          " maps missing component " + std::to_string(m.component));
    const Component& src = image.components[m.component];
    if (m.type == 0) {
      out.push_back(src);
      continue;
    }
    if (m.column >= color.palette.size() || entries == 0)
      throw Error(ErrorCode::kFormat, "JP2 cmap: channel " + std::to_string(ch) +
                                          " uses missing palette column " +
                                          std::to_string(m.column));
    const auto& col = color.palette[m.column];
    Component c = src;
    c.precision = col.precision;
    c.is_signed = col.is_signed;
    for (int32_t& v : c.samples) {
      const size_t i = static_cast<size_t>(std::clamp<int64_t>(v, 0, int64_t(entries) - 1));
      v = col.values[i];
    }
    out.push_back(std::move(c));
  }
  image.components = std::move(out);
}

void apply_channel_definitions(Image& image, const Jp2Color& color) {
  if (color.cdef.empty()) return;
  const size_t n = image.components.size();
  std::vector<uint32_t> rank(n);  // sort key: colour channels by association, then the rest
  for (size_t i = 0; i < n; ++i) rank[i] = 0x10000 + static_cast<uint32_t>(i);
  for (const auto& ch : color.cdef) {
    if (ch.index >= n) continue;
    Component& c = image.components[ch.index];
    c.is_alpha = ch.type == 1 || ch.type == 2;
    if (ch.type == 0 && ch.association >= 1 && ch.association < 0xFFFF)
      rank[ch.index] = ch.association;
    else
      rank[ch.index] = 0x20000 + ch.index;
  }
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return rank[a] < rank[b]; });
  std::vector<Component> out;
  for (size_t i : order) out.push_back(std::move(image.components[i]));
  image.components = std::move(out);
}

void upsample(Image& image, bool zero_uncovered) {
  for (Component& c : image.components) {
    if (c.dx == 1 && c.dy == 1) continue;
    Component u = c;
    u.dx = u.dy = 1;
    u.width = image.width();
    u.height = image.height();
    u.samples.assign(size_t{u.width} * u.height, 0);
    if (c.width == 0 || c.height == 0) {
      c = std::move(u);
      continue;
    }
    // Grid point x shows component sample floor(x / dx) - ceil(x0 / dx); grid points before
    // the first sample show the first sample.
    const int64_t cx0 = (image.x0 + c.dx - 1) / c.dx, cy0 = (image.y0 + c.dy - 1) / c.dy;
    std::vector<uint32_t> xs(u.width);
    for (uint32_t x = 0; x < u.width; ++x)
      xs[x] = static_cast<uint32_t>(
          std::clamp<int64_t>(int64_t{(image.x0 + x) / c.dx} - cx0, 0, c.width - 1));
    for (uint32_t y = 0; y < u.height; ++y) {
      const auto sy = static_cast<uint32_t>(
          std::clamp<int64_t>(int64_t{(image.y0 + y) / c.dy} - cy0, 0, c.height - 1));
      const int32_t* src = c.samples.data() + size_t{sy} * c.width;
      int32_t* dst = u.samples.data() + size_t{y} * u.width;
      for (uint32_t x = 0; x < u.width; ++x) dst[x] = src[xs[x]];
    }
    if (zero_uncovered) {  // grid points before the first sample column / row
      const uint64_t first_x = cx0 * c.dx, first_y = cy0 * c.dy;
      for (uint32_t y = 0; y < u.height; ++y)
        for (uint32_t x = 0; x < u.width; ++x)
          if (image.x0 + x < first_x || image.y0 + y < first_y)
            u.samples[size_t{y} * u.width + x] = 0;
    }
    c = std::move(u);
  }
}

void sycc_to_rgb(Image& image) {
  if (image.components.size() < 3) return;
  for (int k = 0; k < 3; ++k) {
    const Component& c = image.components[k];
    if (c.dx != 1 || c.dy != 1) {
      upsample(image);
      break;
    }
  }
  Component &y = image.components[0], &cb = image.components[1], &cr = image.components[2];
  if (y.samples.size() != cb.samples.size() || y.samples.size() != cr.samples.size()) return;
  auto offset = [](const Component& c) -> double {
    return c.is_signed ? 0.0 : std::ldexp(1.0, int(c.precision) - 1);
  };
  const double oy = y.is_signed ? std::ldexp(1.0, int(y.precision) - 1) : 0.0;
  const double ob = offset(cb), orr = offset(cr);
  const int64_t max = (int64_t{1} << y.precision) - 1;
  for (size_t i = 0; i < y.samples.size(); ++i) {
    const double Y = y.samples[i] + oy, B = cb.samples[i] - ob, R = cr.samples[i] - orr;
    auto clip = [&](double v) {
      return static_cast<int32_t>(std::clamp<int64_t>(std::llround(v), 0, max));
    };
    const int32_t r = clip(Y + 1.402 * R);
    const int32_t g = clip(Y - 0.344136 * B - 0.714136 * R);
    const int32_t b = clip(Y + 1.772 * B);
    y.samples[i] = r;
    cb.samples[i] = g;
    cr.samples[i] = b;
  }
  for (int k = 0; k < 3; ++k) {
    image.components[k].is_signed = false;
    image.components[k].precision = y.precision;
  }
  image.color_space = ColorSpace::kSRGB;
}

}  // namespace gj2k::codec
