// Error metrics for the conformance comparisons (conformance/metrics.h).
#include "conformance/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "gj2k/error.h"

namespace gj2k::conformance {

Score score(const Component& a, const Component& b) {
  if (a.width != b.width || a.height != b.height || a.samples.size() != b.samples.size())
    throw Error(ErrorCode::kInternal, "conformance: score of components of different sizes");
  Score s;
  double sum = 0;
  for (size_t i = 0; i < a.samples.size(); ++i) {
    double d = double(a.samples[i]) - double(b.samples[i]);
    s.peak = std::max(s.peak, std::fabs(d));
    sum += d * d;
  }
  s.mse = a.samples.empty() ? 0 : sum / double(a.samples.size());
  return s;
}

std::optional<std::string> geometry_mismatch(const Component& d, const Component& r) {
  auto fmt = [](const Component& c) {
    return std::string(c.is_signed ? "s" : "u") + std::to_string(c.precision) + " " +
           std::to_string(c.width) + "x" + std::to_string(c.height);
  };
  if (d.width != r.width || d.height != r.height || d.precision != r.precision ||
      d.is_signed != r.is_signed)
    return "decoded " + fmt(d) + ", reference " + fmt(r);
  return std::nullopt;
}

Component scale_to_precision(const Component& c, uint32_t precision) {
  if (c.precision <= precision) return c;
  Component out = c;
  const uint32_t shift = c.precision - precision;
  for (int32_t& v : out.samples) v >>= shift;  // arithmetic: floor division by 2^shift
  out.precision = precision;
  return out;
}

Component to_unsigned8(const Component& c) {
  Component out = c;
  const int64_t offset = c.is_signed ? (int64_t{1} << (c.precision - 1)) : 0;
  const int64_t max = (int64_t{1} << c.precision) - 1;
  for (int32_t& v : out.samples) {
    int64_t u = std::clamp<int64_t>(int64_t{v} + offset, 0, max);
    v = static_cast<int32_t>(c.precision == 8 ? u : (u * 255 + max / 2) / max);
  }
  out.precision = 8;
  out.is_signed = false;
  return out;
}

}  // namespace gj2k::conformance
