// The decoder's inverse colour transforms and DC shifts for x86-64-v3 (mct_v3.h, core/isa.h).
// CMakeLists.txt compiles this file with the v3 flags (not FMA: the ICT's float operations
// are the baseline's, bit for bit). As entropy/t1_v3.cpp: the kernels' header is included
// inside an anonymous namespace (named by v3_copy), so nothing compiled here for v3 is merged
// with baseline code; the entry points below are the only names this file exports.
#include <cstddef>
#include <cstdint>

#include "transform/mct_v3.h"

namespace v3_copy {
namespace {
#include "transform/mct_kernels.h"
}  // namespace
}  // namespace v3_copy

namespace gj2k::transform::v3 {

namespace k = ::v3_copy::gj2k::transform::kernels;

void rct_inverse_dc_shift(int32_t* c0, int32_t* c1, int32_t* c2, size_t n, const int32_t offset[3],
                          const int32_t lo[3], const int32_t hi[3]) {
  k::rct_inverse_dc_shift(c0, c1, c2, n, offset, lo, hi);
}
void ict_inverse_dc_shift(const float* in0, const float* in1, const float* in2, int32_t* c0,
                          int32_t* c1, int32_t* c2, size_t n, const int32_t offset[3],
                          const int32_t lo[3], const int32_t hi[3]) {
  k::ict_inverse_dc_shift(in0, in1, in2, c0, c1, c2, n, offset, lo, hi);
}
void float_to_int_dc_shift(const float* in, int32_t* out, size_t n, int32_t offset, int32_t lo,
                           int32_t hi) {
  k::float_to_int_dc_shift(in, out, n, offset, lo, hi);
}
void dc_shift_inverse_clamp(int32_t* x, size_t n, int32_t offset, int32_t lo, int32_t hi) {
  k::dc_shift_inverse_clamp(x, n, offset, lo, hi);
}

}  // namespace gj2k::transform::v3
