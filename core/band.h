// Vocabulary shared by transform/ and entropy/, which do not include each other: the subband
// orientation. Both re-export it (transform::Band, entropy::Band); it is one type.
#pragma once

#include <cstdint>

namespace gj2k::core {

// Subband orientations, numbered as b = xo_b + 2 * yo_b in 15444-1 Equation B-15
// (HL = horizontally high-pass). Tier-1 picks its zero-coding contexts by it (Table D.1).
enum class Band : uint8_t { kLL = 0, kHL = 1, kLH = 2, kHH = 3 };

}  // namespace gj2k::core
