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

}  // namespace gj2k::codec
