// ICC-described images to sRGB through lcms2, as opj_decompress converts them before writing
// a file (DecodeParams::icc_to_srgb).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gj2k/image.h"

namespace gj2k::codec {

// Whether gj2k was built with lcms2.
bool have_lcms2();

// Converts `image` (colour space of `icc`) to sRGB with the profile's rendering intent: RGB
// (components 0..2) and grey (component 0, which becomes three components) profiles, samples
// taken as 8-bit (precision <= 8) or 16-bit values, as opj_decompress does. Returns false,
// leaving the image as it is and adding a line to `warnings`, for other profile colour
// spaces, too few components, components of different sizes or a profile lcms2 rejects.
// Throws Error(kUnsupported) when gj2k was built without lcms2.
bool icc_to_srgb_lcms(Image& image, const std::vector<uint8_t>& icc,
                      std::vector<std::string>& warnings);

// CIELab (JP2 colr enumerated 14; components 0..2 are L*, a*, b*, equal sizes) to 16-bit sRGB
// as opj_decompress converts it: each sample v of precision p maps to min + v * range / (2^p - 1)
// with min = -range * offset / (2^p - 1) (15444-2 M.11.7.4); `lab` holds RL, OL, RA, OA, RB, OB
// (and IL) from the colr box, empty for the defaults RL = 100, RA = 170, RB = 200, OL = 0,
// OA = 2^(p-1), OB = 2^(p-2) + 2^(p-3); then a Lab (D50) to sRGB transform, perceptual intent.
// Returns false, leaving the image as it is and adding a line to `warnings`, for other than
// three components or components of different sizes. Throws Error(kUnsupported) when gj2k
// was built without lcms2.
bool cielab_to_srgb_lcms(Image& image, const std::vector<uint32_t>& lab,
                         std::vector<std::string>& warnings);

}  // namespace gj2k::codec
