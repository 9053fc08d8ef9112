// The Tier-1 block coders compiled for x86-64-v3 (core/isa.h), the variants t1_dec.cpp and
// t1_enc.cpp call when core::host_isa() is kV3. Built only where GJ2K_HAVE_ISA_V3.
//
// The signatures use only built-in types: t1_v3.cpp keeps its own copy of every entropy type
// (see there), so the structures pass as pointers to the layout both copies share --
// Segment (t1.h) for `segments`, CodedPass (t1.h) for `passes`, EncodeResult
// (t1_enc_block.h) for `result`.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gj2k::entropy::v3 {

// t1::run_block_in_mode<true> with ConstBandTables<band> (t1_dec_block.h), as
// entropy::decode_block runs it after its checks.
void run_block(int band, const void* segments, size_t num_segments, uint32_t num_bitplanes,
               uint8_t style, int32_t* out, size_t stride, uint32_t w, uint32_t h, uint32_t* state,
               uint32_t* values);

// t1::encode_checked<true, ConstEncBandTables<band>, distortion> (t1_enc_block.h); returns
// its EncodeStatus.
uint8_t encode_checked(int band, bool distortion, const int32_t* q, size_t stride, uint32_t w,
                       uint32_t h, uint8_t style, uint32_t mb, uint8_t* out, uint32_t capacity,
                       void* passes, uint32_t* state, uint32_t* values, void* result);

}  // namespace gj2k::entropy::v3
