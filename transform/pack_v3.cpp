// The 8-bit packing rows for x86-64-v3 (pack_v3.h, core/isa.h). As mct_v3.cpp: the kernels'
// header is included inside an anonymous namespace (named by v3_copy), so nothing compiled
// here for v3 is merged with baseline code; the entry points below are the only names this
// file exports.
#include <cstddef>
#include <cstdint>

#include "transform/pack_v3.h"

namespace v3_copy {
namespace {
#include "transform/pack_kernels.h"
}  // namespace
}  // namespace v3_copy

namespace gj2k::transform::v3 {

namespace k = ::v3_copy::gj2k::transform::kernels;

uint32_t narrow_u8(const int32_t* a, size_t count, uint8_t* dst) {
  return k::narrow_u8(a, count, dst);
}
uint32_t interleave3_u8(const int32_t* a, const int32_t* b, const int32_t* c, size_t count,
                        uint8_t* dst) {
  return k::interleave3_u8(a, b, c, count, dst);
}

}  // namespace gj2k::transform::v3
