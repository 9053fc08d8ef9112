// Rendering images described by a JP2 restricted ICC profile (ISO/IEC 15444-1 I.5.3.3: the
// monochrome input and three-component matrix-based input profiles of ICC.1) in sRGB.
#pragma once

#include <cstdint>
#include <vector>

#include "gj2k/image.h"

namespace gj2k::codec {

// Converts components 0 (grey) or 0..2 (RGB) of `image` from the colour space of `icc` to
// sRGB, keeping their precision: grey through its kTRC curve, RGB through the rTRC/gTRC/bTRC
// curves and the rXYZ/gXYZ/bXYZ matrix into the D50 PCS, then to linear sRGB (Bradford-adapted
// matrix) and the sRGB transfer function. Returns false, leaving the image as it is, when the
// profile is not such a profile (LUT-based, other colour spaces) or is malformed.
bool icc_to_srgb(Image& image, const std::vector<uint8_t>& icc);

}  // namespace gj2k::codec
