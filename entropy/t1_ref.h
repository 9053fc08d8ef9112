// Spec-literal Tier-1 coder (15444-1 Annex D), written for reading, not speed: separate state
// arrays (sigma, sigma', pi, sign), contexts computed from the neighbours as Tables D.1 to D.4
// state them, the Annex C reference MQ coder (mq_ref.h) and a plain raw coder (D.6).
// The fast coder (t1.h) must produce the same bytes and decode to the same values.
#pragma once

#include "entropy/t1.h"

namespace gj2k::entropy {

// As encode_block (t1.h): same data, terminated flags and distortions. Ends of non-terminated
// passes are not estimated here: each is its segment's end (always sufficient).
EncodedBlock encode_block_ref(const int32_t* q, size_t stride, uint32_t w, uint32_t h, Band band,
                              uint8_t style, uint32_t mb);

// As decode_block (t1.h), same contract and output.
void decode_block_ref(const Segment* segments, size_t num_segments, uint32_t num_bitplanes,
                      Band band, uint8_t style, int32_t* out, size_t stride, uint32_t w,
                      uint32_t h);

}  // namespace gj2k::entropy
