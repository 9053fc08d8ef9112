// DC level shift and multiple-component transforms (ISO/IEC 15444-1 Annex G), on the
// tile-component buffers of one tile: plain pointers and a sample count, so that the GPU path
// can mirror every signature. The three component buffers of an MCT must have the same size
// (the standard allows an MCT only when the first three components share their subsampling,
// G.2/G.3) and must not overlap.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gj2k::transform {

// 2^(precision - 1): the DC level shift of an unsigned component of `precision` bits (G.1.2);
// 0 for signed components. Throws Error(kUnsupported) for precision outside 1..31.
int32_t dc_offset(int precision, bool is_signed);

// G.1.2: forward I -= offset, inverse I += offset, in place (offset from dc_offset).
void dc_shift_forward(int32_t* x, size_t n, int32_t offset);
// The forward shift from `in` into x (no aliasing).
void dc_shift_forward(const int32_t* in, int32_t* x, size_t n, int32_t offset);
void dc_shift_inverse(int32_t* x, size_t n, int32_t offset);

// G.2 reversible component transformation (RCT), int32 in place, exact:
//   forward  Y0 = floor((I0 + 2 I1 + I2) / 4), Y1 = I2 - I1, Y2 = I0 - I1        (G-1)
//   inverse  I1 = Y0 - floor((Y2 + Y1) / 4), I0 = Y2 + I1, I2 = Y1 + I1           (G-2)
// Inputs must keep I0 + 2 I1 + I2 within int32 (|I| < 2^29).
void rct_forward(int32_t* c0, int32_t* c1, int32_t* c2, size_t n);
void rct_inverse(int32_t* c0, int32_t* c1, int32_t* c2, size_t n);

// G.3 irreversible component transformation (ICT), float32 in place, with the G.3
// coefficients (Y = 0.299 R + 0.587 G + 0.114 B, Cb = -0.16875 R - 0.33126 G + 0.5 B,
// Cr = 0.5 R - 0.41869 G - 0.08131 B; inverse R = Y + 1.402 Cr, G = Y - 0.34413 Cb
// - 0.71414 Cr, B = Y + 1.772 Cb).
void ict_forward(float* c0, float* c1, float* c2, size_t n);
void ict_inverse(float* c0, float* c1, float* c2, size_t n);

// Fused encoder entry points: DC shift (offsets per component, from dc_offset) then the MCT.
// rct: in place on int32. ict: int32 samples in, float32 out (in and out may not alias).
void dc_shift_rct_forward(int32_t* c0, int32_t* c1, int32_t* c2, size_t n, const int32_t offset[3]);
// rct from int32 samples in0..in2 into c0..c2 (in and out may not alias).
void dc_shift_rct_forward(const int32_t* in0, const int32_t* in1, const int32_t* in2, int32_t* c0,
                          int32_t* c1, int32_t* c2, size_t n, const int32_t offset[3]);
void dc_shift_ict_forward(const int32_t* in0, const int32_t* in1, const int32_t* in2, float* c0,
                          float* c1, float* c2, size_t n, const int32_t offset[3]);
// Fused decoder entry points: inverse MCT then inverse DC shift, then clamp to [lo, hi] (the
// component's range, e.g. [0, 2^p - 1]); the ict variant rounds to the nearest integer
// (ties to even) before clamping.
void rct_inverse_dc_shift(int32_t* c0, int32_t* c1, int32_t* c2, size_t n, const int32_t offset[3],
                          const int32_t lo[3], const int32_t hi[3]);
void ict_inverse_dc_shift(const float* in0, const float* in1, const float* in2, int32_t* c0,
                          int32_t* c1, int32_t* c2, size_t n, const int32_t offset[3],
                          const int32_t lo[3], const int32_t hi[3]);

// Single components without MCT: float conversion with DC shift, and back with rounding and
// clamping (the 9/7 path of a component that is not part of an ICT).
void dc_shift_to_float(const int32_t* in, float* out, size_t n, int32_t offset);
void float_to_int_dc_shift(const float* in, int32_t* out, size_t n, int32_t offset, int32_t lo,
                           int32_t hi);
// Integer inverse DC shift with clamping (the 5/3 path of a component without MCT).
void dc_shift_inverse_clamp(int32_t* x, size_t n, int32_t offset, int32_t lo, int32_t hi);

}  // namespace gj2k::transform
