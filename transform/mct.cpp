// Annex G: DC level shift, RCT, ICT. Plain loops over contiguous samples (vectorisable).
#include "transform/mct.h"

#include <cmath>
#include <string>

#include "core/isa.h"
#include "gj2k/error.h"
#include "transform/mct_kernels.h"
#include "transform/mct_v3.h"

namespace gj2k::transform {

using namespace kernels;  // the G.3 coefficients and the rounding helpers

namespace {

// G.2 (Equation G-4) of one pixel; the caller reads r, g, b before writing i.
inline void rct_forward_at(int32_t r, int32_t g, int32_t b, int32_t* __restrict c0,
                           int32_t* __restrict c1, int32_t* __restrict c2, size_t i) {
  c0[i] = (r + 2 * g + b) >> 2;  // floor: >> is arithmetic on signed values (C++20)
  c1[i] = b - g;
  c2[i] = r - g;
}

}  // namespace

int32_t dc_offset(int precision, bool is_signed) {
  if (precision < 1 || precision > 31)
    throw Error(ErrorCode::kUnsupported,
                "DC level shift: precision " + std::to_string(precision) + " outside 1..31");
  return is_signed ? 0 : int32_t{1} << (precision - 1);
}

void dc_shift_forward(int32_t* x, size_t n, int32_t offset) {
  for (size_t i = 0; i < n; ++i) x[i] -= offset;
}
void dc_shift_forward(const int32_t* __restrict in, int32_t* __restrict x, size_t n,
                      int32_t offset) {
  for (size_t i = 0; i < n; ++i) x[i] = in[i] - offset;
}
void dc_shift_inverse(int32_t* x, size_t n, int32_t offset) {
  for (size_t i = 0; i < n; ++i) x[i] += offset;
}

void rct_forward(int32_t* __restrict c0, int32_t* __restrict c1, int32_t* __restrict c2, size_t n) {
  for (size_t i = 0; i < n; ++i) rct_forward_at(c0[i], c1[i], c2[i], c0, c1, c2, i);
}
void rct_inverse(int32_t* __restrict c0, int32_t* __restrict c1, int32_t* __restrict c2, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const int32_t y = c0[i], u = c1[i], v = c2[i];
    const int32_t g = y - ((u + v) >> 2);
    c0[i] = v + g;
    c1[i] = g;
    c2[i] = u + g;
  }
}

void ict_forward(float* __restrict c0, float* __restrict c1, float* __restrict c2, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const float r = c0[i], g = c1[i], b = c2[i];
    c0[i] = kYR * r + kYG * g + kYB * b;
    c1[i] = kCbR * r + kCbG * g + kCbB * b;
    c2[i] = kCrR * r + kCrG * g + kCrB * b;
  }
}
void ict_inverse(float* __restrict c0, float* __restrict c1, float* __restrict c2, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const float y = c0[i], cb = c1[i], cr = c2[i];
    c0[i] = y + kRCr * cr;
    c1[i] = y + kGCb * cb + kGCr * cr;
    c2[i] = y + kBCb * cb;
  }
}

void dc_shift_rct_forward(int32_t* __restrict c0, int32_t* __restrict c1, int32_t* __restrict c2,
                          size_t n, const int32_t offset[3]) {
  const int32_t o0 = offset[0], o1 = offset[1], o2 = offset[2];
  for (size_t i = 0; i < n; ++i) rct_forward_at(c0[i] - o0, c1[i] - o1, c2[i] - o2, c0, c1, c2, i);
}

void dc_shift_rct_forward(const int32_t* __restrict in0, const int32_t* __restrict in1,
                          const int32_t* __restrict in2, int32_t* __restrict c0,
                          int32_t* __restrict c1, int32_t* __restrict c2, size_t n,
                          const int32_t offset[3]) {
  const int32_t o0 = offset[0], o1 = offset[1], o2 = offset[2];
  for (size_t i = 0; i < n; ++i)
    rct_forward_at(in0[i] - o0, in1[i] - o1, in2[i] - o2, c0, c1, c2, i);
}

void dc_shift_ict_forward(const int32_t* __restrict in0, const int32_t* __restrict in1,
                          const int32_t* __restrict in2, float* __restrict c0, float* __restrict c1,
                          float* __restrict c2, size_t n, const int32_t offset[3]) {
  const int32_t o0 = offset[0], o1 = offset[1], o2 = offset[2];
  for (size_t i = 0; i < n; ++i) {
    const float r = static_cast<float>(in0[i] - o0), g = static_cast<float>(in1[i] - o1),
                b = static_cast<float>(in2[i] - o2);
    c0[i] = kYR * r + kYG * g + kYB * b;
    c1[i] = kCbR * r + kCbG * g + kCbB * b;
    c2[i] = kCrR * r + kCrG * g + kCrB * b;
  }
}

// The decoder's inverse transforms in the host's instruction-set variant (core/isa.h): the
// loops of mct_kernels.h compiled here, or their x86-64-v3 build (mct_v3.cpp).

void rct_inverse_dc_shift(int32_t* __restrict c0, int32_t* __restrict c1, int32_t* __restrict c2,
                          size_t n, const int32_t offset[3], const int32_t lo[3],
                          const int32_t hi[3]) {
#if GJ2K_HAVE_ISA_V3
  if (core::use_isa_v3()) return v3::rct_inverse_dc_shift(c0, c1, c2, n, offset, lo, hi);
#endif
  kernels::rct_inverse_dc_shift(c0, c1, c2, n, offset, lo, hi);
}

void ict_inverse_dc_shift(const float* __restrict in0, const float* __restrict in1,
                          const float* __restrict in2, int32_t* __restrict c0,
                          int32_t* __restrict c1, int32_t* __restrict c2, size_t n,
                          const int32_t offset[3], const int32_t lo[3], const int32_t hi[3]) {
#if GJ2K_HAVE_ISA_V3
  if (core::use_isa_v3())
    return v3::ict_inverse_dc_shift(in0, in1, in2, c0, c1, c2, n, offset, lo, hi);
#endif
  kernels::ict_inverse_dc_shift(in0, in1, in2, c0, c1, c2, n, offset, lo, hi);
}

void dc_shift_to_float(const int32_t* __restrict in, float* __restrict out, size_t n,
                       int32_t offset) {
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<float>(in[i] - offset);
}

void float_to_int_dc_shift(const float* __restrict in, int32_t* __restrict out, size_t n,
                           int32_t offset, int32_t lo, int32_t hi) {
#if GJ2K_HAVE_ISA_V3
  if (core::use_isa_v3()) return v3::float_to_int_dc_shift(in, out, n, offset, lo, hi);
#endif
  kernels::float_to_int_dc_shift(in, out, n, offset, lo, hi);
}

void dc_shift_inverse_clamp(int32_t* x, size_t n, int32_t offset, int32_t lo, int32_t hi) {
#if GJ2K_HAVE_ISA_V3
  if (core::use_isa_v3()) return v3::dc_shift_inverse_clamp(x, n, offset, lo, hi);
#endif
  kernels::dc_shift_inverse_clamp(x, n, offset, lo, hi);
}

}  // namespace gj2k::transform
