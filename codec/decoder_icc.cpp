// Restricted ICC profiles to sRGB (codec/decoder_icc.h). Profile layout per ICC.1: a 128-byte
// header (colour space signature at byte 16), a tag count at 128, then 12-byte tag entries
// (signature, offset, size); curveType 'curv', parametricCurveType 'para', XYZType 'XYZ '.
#include "codec/decoder_icc.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>

namespace gj2k::codec {
namespace {

struct Profile {
  const std::vector<uint8_t>& bytes;

  std::optional<uint32_t> u32(size_t at) const {
    if (at + 4 > bytes.size()) return std::nullopt;
    return (uint32_t{bytes[at]} << 24) | (uint32_t{bytes[at + 1]} << 16) |
           (uint32_t{bytes[at + 2]} << 8) | bytes[at + 3];
  }
  std::optional<uint16_t> u16(size_t at) const {
    if (at + 2 > bytes.size()) return std::nullopt;
    return static_cast<uint16_t>((bytes[at] << 8) | bytes[at + 1]);
  }
  std::optional<double> s15f16(size_t at) const {
    auto v = u32(at);
    if (!v) return std::nullopt;
    return static_cast<int32_t>(*v) / 65536.0;
  }
  // The (offset, size) of tag `sig`, bounded by the profile.
  std::optional<std::pair<size_t, size_t>> tag(const char (&sig)[5]) const {
    const uint32_t want = (uint32_t(uint8_t(sig[0])) << 24) | (uint32_t(uint8_t(sig[1])) << 16) |
                          (uint32_t(uint8_t(sig[2])) << 8) | uint32_t(uint8_t(sig[3]));
    auto count = u32(128);
    if (!count || *count > 1000) return std::nullopt;
    for (uint32_t i = 0; i < *count; ++i) {
      auto s = u32(132 + 12 * i), off = u32(136 + 12 * i), size = u32(140 + 12 * i);
      if (!s || !off || !size) return std::nullopt;
      if (*s == want && uint64_t{*off} + *size <= bytes.size()) return std::make_pair(*off, *size);
    }
    return std::nullopt;
  }
};

// A tone curve: input and output in [0, 1].
struct Curve {
  int kind = 0;  // 0 identity, 1 gamma, 2 table, 3 parametric
  double gamma = 1;
  std::vector<double> table;
  int function = 0;
  double g = 1, a = 1, b = 0, c = 0, d = 0, e = 0, f = 0;

  double operator()(double x) const {
    x = std::clamp(x, 0.0, 1.0);
    switch (kind) {
      case 1:
        return std::pow(x, gamma);
      case 2: {
        const double pos = x * double(table.size() - 1);
        const size_t i = std::min(static_cast<size_t>(pos), table.size() - 1);
        const size_t j = std::min(i + 1, table.size() - 1);
        return table[i] + (table[j] - table[i]) * (pos - double(i));
      }
      case 3:
        switch (function) {
          case 0:
            return std::pow(x, g);
          case 1:
            return x >= -b / a ? std::pow(std::max(0.0, a * x + b), g) : 0;
          case 2:
            return x >= -b / a ? std::pow(std::max(0.0, a * x + b), g) + c : c;
          case 3:
            return x >= d ? std::pow(std::max(0.0, a * x + b), g) : c * x;
          default:
            return x >= d ? std::pow(std::max(0.0, a * x + b), g) + e : c * x + f;
        }
      default:
        return x;
    }
  }
};

std::optional<Curve> read_curve(const Profile& p, const char (&sig)[5]) {
  auto t = p.tag(sig);
  if (!t) return std::nullopt;
  const size_t at = t->first;
  auto type = p.u32(at);
  if (!type) return std::nullopt;
  Curve c;
  if (*type == 0x63757276) {  // 'curv'
    auto n = p.u32(at + 8);
    if (!n || 12 + uint64_t{*n} * 2 > t->second) return std::nullopt;
    if (*n == 0) return c;
    if (*n == 1) {
      c.kind = 1;
      c.gamma = *p.u16(at + 12) / 256.0;
      return c;
    }
    c.kind = 2;
    for (uint32_t i = 0; i < *n; ++i) c.table.push_back(*p.u16(at + 12 + 2 * i) / 65535.0);
    return c;
  }
  if (*type == 0x70617261) {  // 'para'
    auto fn = p.u16(at + 8);
    if (!fn || *fn > 4) return std::nullopt;
    static const int kParams[] = {1, 3, 4, 5, 7};
    double v[7] = {1, 1, 0, 0, 0, 0, 0};
    for (int i = 0; i < kParams[*fn]; ++i) {
      auto x = p.s15f16(at + 12 + 4 * i);
      if (!x) return std::nullopt;
      v[i] = *x;
    }
    c.kind = 3;
    c.function = *fn;
    c.g = v[0], c.a = v[1], c.b = v[2], c.c = v[3], c.d = v[4], c.e = v[5], c.f = v[6];
    if (*fn >= 1 && c.a == 0) return std::nullopt;
    return c;
  }
  return std::nullopt;
}

std::optional<std::array<double, 3>> read_xyz(const Profile& p, const char (&sig)[5]) {
  auto t = p.tag(sig);
  if (!t || t->second < 20) return std::nullopt;
  auto x = p.s15f16(t->first + 8), y = p.s15f16(t->first + 12), z = p.s15f16(t->first + 16);
  if (!x || !y || !z) return std::nullopt;
  return std::array<double, 3>{*x, *y, *z};
}

double srgb_encode(double v) {
  v = std::clamp(v, 0.0, 1.0);
  return v <= 0.0031308 ? 12.92 * v : 1.055 * std::pow(v, 1 / 2.4) - 0.055;
}

// The tone curve applied to every value of a component's range, as a table.
std::vector<double> curve_table(const Curve& curve, const Component& c) {
  const int64_t max = (int64_t{1} << c.precision) - 1;
  std::vector<double> lut(static_cast<size_t>(max) + 1);
  for (int64_t v = 0; v <= max; ++v) lut[v] = curve(double(v) / double(max));
  return lut;
}

}  // namespace

bool icc_to_srgb(Image& image, const std::vector<uint8_t>& icc) {
  if (icc.size() < 132 || image.components.empty()) return false;
  Profile p{icc};
  const uint32_t space = *p.u32(16);
  for (const auto& c : image.components)
    if (c.is_signed || c.precision > 16) return false;
  if (space == 0x47524159) {  // 'GRAY'
    auto trc = read_curve(p, "kTRC");
    if (!trc) return false;
    Component& c = image.components[0];
    const double max = double((int64_t{1} << c.precision) - 1);
    const auto lut = curve_table(*trc, c);
    std::vector<int32_t> out(lut.size());
    for (size_t v = 0; v < lut.size(); ++v)
      out[v] = static_cast<int32_t>(std::lround(srgb_encode(lut[v]) * max));
    for (int32_t& v : c.samples)
      v = out[std::clamp<size_t>(size_t(std::max(v, 0)), 0, out.size() - 1)];
    image.color_space = ColorSpace::kGrey;
    return true;
  }
  if (space != 0x52474220 || image.components.size() < 3) return false;  // 'RGB '
  auto rt = read_curve(p, "rTRC"), gt = read_curve(p, "gTRC"), bt = read_curve(p, "bTRC");
  auto rx = read_xyz(p, "rXYZ"), gx = read_xyz(p, "gXYZ"), bx = read_xyz(p, "bXYZ");
  if (!rt || !gt || !bt || !rx || !gx || !bx) return false;
  Component &r = image.components[0], &g = image.components[1], &b = image.components[2];
  if (r.samples.size() != g.samples.size() || r.samples.size() != b.samples.size() ||
      r.precision != g.precision || r.precision != b.precision)
    return false;
  // D50 PCS XYZ to linear sRGB (IEC 61966-2-1 primaries, Bradford adaptation D50 -> D65).
  static const double kToSrgb[3][3] = {{3.1338561, -1.6168667, -0.4906146},
                                       {-0.9787684, 1.9161415, 0.0334540},
                                       {0.0719453, -0.2289914, 1.4052427}};
  double m[3][3];  // linear device RGB -> linear sRGB
  const std::array<double, 3>* cols[3] = {&*rx, &*gx, &*bx};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      m[i][j] = 0;
      for (int k = 0; k < 3; ++k) m[i][j] += kToSrgb[i][k] * (*cols[j])[k];
    }
  const auto lr = curve_table(*rt, r), lg = curve_table(*gt, g), lb = curve_table(*bt, b);
  const double max = double((int64_t{1} << r.precision) - 1);
  auto at = [](const std::vector<double>& lut, int32_t v) {
    return lut[std::clamp<size_t>(size_t(std::max(v, 0)), 0, lut.size() - 1)];
  };
  for (size_t i = 0; i < r.samples.size(); ++i) {
    const double in[3] = {at(lr, r.samples[i]), at(lg, g.samples[i]), at(lb, b.samples[i])};
    int32_t out[3];
    for (int k = 0; k < 3; ++k)
      out[k] = static_cast<int32_t>(
          std::lround(srgb_encode(m[k][0] * in[0] + m[k][1] * in[1] + m[k][2] * in[2]) * max));
    r.samples[i] = out[0];
    g.samples[i] = out[1];
    b.samples[i] = out[2];
  }
  image.color_space = ColorSpace::kSRGB;
  return true;
}

}  // namespace gj2k::codec
