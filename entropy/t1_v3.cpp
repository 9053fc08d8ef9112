// The Tier-1 block coders for x86-64-v3 (t1_v3.h, core/isa.h). CMakeLists.txt compiles this
// file with the v3 flags (AVX2, BMI1/2, LZCNT, POPCNT; not FMA).
//
// The coders' headers are included inside an anonymous namespace (within v3_copy, which
// names it): every function, template instantiation and table they make here has internal
// linkage, so none of this file's v3 code
// can be merged with the baseline copies that other files make of the same inline functions
// (the linker keeps one copy of each, and a baseline caller must never get a v3 one). The
// standard headers they use are included first, outside it; the entry points below are the
// only names this file exports.
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "entropy/t1_v3.h"

// (The headers' declarations of functions defined elsewhere become declarations of internal
// functions that nothing here defines or calls.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
namespace v3_copy {
namespace {
#include "entropy/t1_dec_block.h"
#include "entropy/t1_enc_block.h"
}  // namespace
}  // namespace v3_copy
#pragma GCC diagnostic pop

namespace gj2k::entropy::v3 {

namespace t1 = ::v3_copy::gj2k::entropy::t1;  // this file's copy

namespace {
// run.operator()<kBand>() for the orientation `band` (0..3): the constexpr tables of each
// band are their own instantiation, as in t1_dec.cpp and t1_enc.cpp.
template <class Run>
auto for_band(int band, const Run& run) {
  switch (band) {
    case 0:
      return run.template operator()<0>();
    case 1:
      return run.template operator()<1>();
    case 2:
      return run.template operator()<2>();
    default:
      return run.template operator()<3>();
  }
}
}  // namespace

void run_block(int band, const void* segments, size_t num_segments, uint32_t num_bitplanes,
               uint8_t style, int32_t* out, size_t stride, uint32_t w, uint32_t h, uint32_t* state,
               uint32_t* values) {
  const t1::Segments list{static_cast<const ::v3_copy::gj2k::entropy::Segment*>(segments)};
  auto run = [&]<int kBand>() {
    t1::run_block_in_mode<true>(t1::ConstBandTables<kBand>{}, list, num_segments, num_bitplanes,
                                style, out, stride, w, h, state, values);
  };
  return for_band(band, run);
}

uint8_t encode_checked(int band, bool distortion, const int32_t* q, size_t stride, uint32_t w,
                       uint32_t h, uint8_t style, uint32_t mb, uint8_t* out, uint32_t capacity,
                       void* passes, uint32_t* state, uint32_t* values, void* result) {
  auto* p = static_cast<::v3_copy::gj2k::entropy::CodedPass*>(passes);
  auto* r = static_cast<t1::EncodeResult*>(result);
  auto run = [&]<int kBand>() {
    auto code = [&]<bool kDist>() {
      return t1::encode_checked<true, t1::ConstEncBandTables<kBand>, kDist>(
          t1::ConstEncBandTables<kBand>{}, q, stride, w, h, style, mb, out, capacity, p, state,
          values, r);
    };
    return static_cast<uint8_t>(distortion ? code.template operator()<true>()
                                           : code.template operator()<false>());
  };
  return for_band(band, run);
}

}  // namespace gj2k::entropy::v3
