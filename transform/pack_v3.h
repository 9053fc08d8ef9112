// The 8-bit packing rows (pack_kernels.h) compiled for x86-64-v3 (core/isa.h), which pack.cpp
// calls when core::host_isa() is kV3. Built only where GJ2K_HAVE_ISA_V3. Same contracts as
// pack.h's pack_row_u8.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gj2k::transform::v3 {

uint32_t narrow_u8(const int32_t* a, size_t count, uint8_t* dst);
uint32_t interleave3_u8(const int32_t* a, const int32_t* b, const int32_t* c, size_t count,
                        uint8_t* dst);

}  // namespace gj2k::transform::v3
