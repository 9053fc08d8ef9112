// Error metrics and the sample conversions the conformance comparisons need.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "gj2k/image.h"

namespace gj2k::conformance {

struct Score {
  double peak = 0;  // largest |a - b|
  double mse = 0;   // mean of (a - b)^2
};

// Peak absolute error and MSE of two components of equal width and height (Error(kInternal)
// otherwise).
Score score(const Component& a, const Component& b);

// Why `decoded` does not have the reference's geometry and number format (width, height,
// precision, signedness), or nullopt when they match.
std::optional<std::string> geometry_mismatch(const Component& decoded, const Component& ref);

// Class 0 (15444-4): a decode deeper than the reference is brought to its precision by
// dropping the low bits (arithmetic shift, so signed values stay signed). Components at or
// below `precision` are returned unchanged.
Component scale_to_precision(const Component& c, uint32_t precision);

// The 8-bit rendering of a component for display comparisons: signed values offset to
// unsigned, then scaled to 0..255 with rounding (v * 255 / (2^p - 1)).
Component to_unsigned8(const Component& c);

}  // namespace gj2k::conformance
