// The decoder's inverse colour transforms and DC shifts (mct_kernels.h) compiled for
// x86-64-v3 (core/isa.h), which mct.cpp calls when core::host_isa() is kV3. Built only where
// GJ2K_HAVE_ISA_V3. Same contracts as mct.h's functions of the same names.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gj2k::transform::v3 {

void rct_inverse_dc_shift(int32_t* c0, int32_t* c1, int32_t* c2, size_t n, const int32_t offset[3],
                          const int32_t lo[3], const int32_t hi[3]);
void ict_inverse_dc_shift(const float* in0, const float* in1, const float* in2, int32_t* c0,
                          int32_t* c1, int32_t* c2, size_t n, const int32_t offset[3],
                          const int32_t lo[3], const int32_t hi[3]);
void float_to_int_dc_shift(const float* in, int32_t* out, size_t n, int32_t offset, int32_t lo,
                           int32_t hi);
void dc_shift_inverse_clamp(int32_t* x, size_t n, int32_t offset, int32_t lo, int32_t hi);

}  // namespace gj2k::transform::v3
