// A generated test image with photo-like content (no external files needed): a sky gradient
// with a sun, layered hills with fractal texture, buildings with hard edges and windows, a
// striped field, and sensor-like noise. Deterministic for a given seed.
#pragma once

#include <cstdint>

#include "gj2k/image.h"

namespace gj2k::codec {

// An RGB (3 components) or grey (1 component) image of width x height at `precision` bits
// (1..16; the scene is computed in 8-bit terms and scaled). Throws Error(kInvalidArgument) for
// a zero size, a precision out of range or a component count other than 1 or 3.
Image synthetic_image(uint32_t width, uint32_t height, uint32_t num_components = 3,
                      uint32_t precision = 8, uint32_t seed = 1);

}  // namespace gj2k::codec
