// JP2 palette and channel definitions, upsampling, sYCC to RGB (codec/decoder_color.h).
#include "codec/decoder_color.h"

#include "codec/decoder_icc_lcms.h"

#include <algorithm>
#include <array>
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

namespace gj2k::codec {
namespace {

// opj_decompress's sYCC to RGB of one sample (color.c): chroma centred on 2^(p-1), products
// truncated toward zero, results clipped to [0, 2^p).
void opj_sycc(int offset, int upb, int y, int cb, int cr, int32_t& r, int32_t& g, int32_t& b) {
  cb -= offset;
  cr -= offset;
  r = std::clamp(y + static_cast<int>(1.402 * static_cast<float>(cr)), 0, upb);
  g = std::clamp(
      y - static_cast<int>(0.344 * static_cast<float>(cb) + 0.714 * static_cast<float>(cr)), 0,
      upb);
  b = std::clamp(y + static_cast<int>(1.772 * static_cast<float>(cb)), 0, upb);
}

// sYCC with chroma subsampled by (sx, sy) = (1, 1), (2, 1) or (2, 2), pixel (i, j) taking the
// chroma sample opj_decompress takes (its color.c walk): column i uses chroma column i / sx,
// or (i - 1) / 2 when x0 is odd; where x0 (y0) is odd the first column (row) uses chroma
// values 0 -- for 4:2:0 the first column only in the upper row of each row pair, and the last
// row of an odd count of rows after the pairs uses column i / 2 without the odd-x0 shift.
void sycc_to_rgb_opj(Image& image, uint32_t sx, uint32_t sy) {
  Component &y = image.components[0], &cb = image.components[1], &cr = image.components[2];
  const int offset = 1 << (y.precision - 1), upb = (1 << y.precision) - 1;
  const uint32_t w = y.width, h = y.height;
  const uint32_t offx = sx == 2 ? (image.x0 & 1) : 0, offy = sy == 2 ? (image.y0 & 1) : 0;
  const uint32_t paired = sy == 2 ? ((h - offy) & ~1u) : h;
  Samples r(size_t{w} * h), g(size_t{w} * h), b(size_t{w} * h);
  for (uint32_t j = 0; j < h; ++j) {
    const bool zero_row = offy && j == 0;
    const uint32_t jj = j - offy;
    const bool in_pairs = jj < paired;
    const bool top = sy == 1 || jj % 2 == 0;
    const uint32_t cj = std::min(jj / sy, cb.height - 1);
    for (uint32_t i = 0; i < w; ++i) {
      bool zero = zero_row;
      uint32_t ci = i / sx;
      if (offx && in_pairs) {
        zero |= i == 0 && top;
        ci = i == 0 ? 0 : (i - 1) / 2;
      }
      ci = std::min(ci, cb.width - 1);
      const size_t k = size_t{j} * w + i, kc = size_t{cj} * cb.width + ci;
      opj_sycc(offset, upb, y.samples[k], zero ? 0 : cb.samples[kc], zero ? 0 : cr.samples[kc],
               r[k], g[k], b[k]);
    }
  }
  for (int c = 0; c < 3; ++c) {
    Component& comp = image.components[c];
    comp.dx = comp.dy = 1;
    comp.width = w;
    comp.height = h;
    comp.precision = y.precision;
    comp.is_signed = false;
  }
  y.samples = std::move(r);
  cb.samples = std::move(g);
  cr.samples = std::move(b);
  image.color_space = ColorSpace::kSRGB;
}

bool same_size(const Image& image, int n) {
  for (int c = 1; c < n; ++c) {
    const Component &a = image.components[0], &b = image.components[c];
    if (a.width != b.width || a.height != b.height || a.dx != b.dx || a.dy != b.dy) return false;
  }
  return true;
}

// e-sYCC to RGB as opj_decompress (color.c): unsigned chroma centred on 2^(p-1) of component 0,
// rounded, clipped to [0, 2^p).
void esycc_to_rgb_opj(Image& image) {
  Component &y = image.components[0], &cb = image.components[1], &cr = image.components[2];
  const int flip = 1 << (y.precision - 1), max = (1 << y.precision) - 1;
  for (size_t i = 0; i < y.samples.size(); ++i) {
    const float Y = static_cast<float>(y.samples[i]);
    const float B = static_cast<float>(cb.is_signed ? cb.samples[i] : cb.samples[i] - flip);
    const float R = static_cast<float>(cr.is_signed ? cr.samples[i] : cr.samples[i] - flip);
    const int r = static_cast<int>(Y - 0.0000368f * B + 1.40199f * R + 0.5f);
    const int g = static_cast<int>(1.0003f * Y - 0.344125f * B - 0.7141128f * R + 0.5f);
    const int b = static_cast<int>(0.999823f * Y + 1.77204f * B - 0.000008f * R + 0.5f);
    y.samples[i] = std::clamp(r, 0, max);
    cb.samples[i] = std::clamp(g, 0, max);
    cr.samples[i] = std::clamp(b, 0, max);
  }
  for (int c = 1; c < 3; ++c) {
    image.components[c].is_signed = false;
    image.components[c].precision = y.precision;
  }
  image.color_space = ColorSpace::kSRGB;
}

// CMYK (components 0..3) to 8-bit RGB as opj_decompress: inks scaled to [0, 1], inverted,
// R = 255 (1 - C)(1 - K) truncated; K is removed, later components move up.
void cmyk_to_rgb_opj(Image& image) {
  std::array<float, 4> scale{};
  for (int c = 0; c < 4; ++c)
    scale[c] = 1.0f / static_cast<float>((int64_t{1} << image.components[c].precision) - 1);
  Component &C = image.components[0], &M = image.components[1], &Y = image.components[2],
            &K = image.components[3];
  for (size_t i = 0; i < C.samples.size(); ++i) {
    const float k = 1.0f - static_cast<float>(K.samples[i]) * scale[3];
    const float c = 1.0f - static_cast<float>(C.samples[i]) * scale[0];
    const float m = 1.0f - static_cast<float>(M.samples[i]) * scale[1];
    const float y = 1.0f - static_cast<float>(Y.samples[i]) * scale[2];
    C.samples[i] = static_cast<int32_t>(255.0f * c * k);
    M.samples[i] = static_cast<int32_t>(255.0f * m * k);
    Y.samples[i] = static_cast<int32_t>(255.0f * y * k);
  }
  for (int c = 0; c < 3; ++c) {
    image.components[c].precision = 8;
    image.components[c].is_signed = false;
  }
  image.components.erase(image.components.begin() + 3);
  image.color_space = ColorSpace::kSRGB;
}

}  // namespace

void render_like_openjpeg(Image& image, bool keep_cmyk, bool convert_colour,
                          std::vector<std::string>& warnings, const std::vector<uint32_t>& lab) {
  const size_t n = convert_colour ? image.components.size() : 0;
  // opj_decompress: three components, the first not subsampled anisotropically and the
  // second subsampled, are sYCC whatever the file says.
  if (image.color_space != ColorSpace::kSYCC && n == 3 &&
      image.components[0].dx == image.components[0].dy && image.components[1].dx != 1)
    image.color_space = ColorSpace::kSYCC;
  if (image.color_space == ColorSpace::kSYCC && n >= 3) {
    const Component &y = image.components[0], &cb = image.components[1], &cr = image.components[2];
    const bool ok = y.dx == 1 && y.dy == 1 && cb.dx == cr.dx && cb.dy == cr.dy &&
                    ((cb.dx == 1 && cb.dy == 1 && same_size(image, 3)) ||
                     (cb.dx == 2 && (cb.dy == 1 || cb.dy == 2)));
    if (ok)
      sycc_to_rgb_opj(image, cb.dx, cb.dy);
    else
      warnings.push_back("sYCC with chroma subsampled " + std::to_string(cb.dx) + "x" +
                         std::to_string(cb.dy) + " (not 4:4:4, 4:2:2 or 4:2:0): left as YCbCr");
  } else if (image.color_space == ColorSpace::kESYCC && n >= 3) {
    if (same_size(image, 3))
      esycc_to_rgb_opj(image);
    else
      warnings.push_back("e-sYCC with subsampled chroma: left as YCbCr");
  } else if (image.color_space == ColorSpace::kCMYK && n >= 4 && !keep_cmyk) {
    if (same_size(image, 4))
      cmyk_to_rgb_opj(image);
    else
      warnings.push_back("CMYK with subsampled inks: left as CMYK");
  } else if (image.color_space == ColorSpace::kCIELab && convert_colour) {
    if (!have_lcms2())
      warnings.push_back(
          "CIELab: written as its L*a*b* samples (converting it to sRGB needs gj2k built with "
          "lcms2)");
    else
      cielab_to_srgb_lcms(image, lab, warnings);
  }
  // Components that share one subsampling stay at their size, as opj_decompress writes them:
  // the image becomes their grid (B-2: [ceil(x0/dx), ceil(x1/dx)), dx = 1). Mixed ones are
  // brought to the image grid (one file holds one size).
  if (image.components.empty()) return;
  const uint32_t dx = image.components[0].dx, dy = image.components[0].dy;
  bool mixed = false;
  for (const Component& c : image.components) mixed |= c.dx != dx || c.dy != dy;
  if (mixed) {
    upsample(image);
  } else if (dx != 1 || dy != 1) {
    image.x0 = (image.x0 + dx - 1) / dx;
    image.x1 = static_cast<uint32_t>((uint64_t{image.x1} + dx - 1) / dx);
    image.y0 = (image.y0 + dy - 1) / dy;
    image.y1 = static_cast<uint32_t>((uint64_t{image.y1} + dy - 1) / dy);
    for (Component& c : image.components) c.dx = c.dy = 1;
  }
}

}  // namespace gj2k::codec
