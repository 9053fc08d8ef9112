// Helpers shared by the encoder's translation units (codec/encoder*.cpp). Not public.
#pragma once

#include "gj2k/encoder.h"
#include "gj2k/image.h"

namespace gj2k::codec {

// Number of quality layers: --layers, else the number of rate targets, else 1.
int effective_layers(const EncodeParams& params);

// Whether the multi-component transform is applied: --mct 1, or auto (-1) with >= 3
// components whose first three share subsampling, precision and signedness.
bool effective_mct(const EncodeParams& params, const Image& image);

// Precinct size exponent (PPx when horizontal, else PPy) of resolution r for `levels`
// decomposition levels: 15 (maximal) without --precincts; --precincts lists sizes from the
// highest resolution down, the last repeating.
int precinct_exponent(const EncodeParams& params, int levels, int r, bool horizontal);

// log2 of a power of two.
int exponent_of(uint32_t pow2);

}  // namespace gj2k::codec
