// Encoder::encode(layout, InputBuffer) on the GPU: the caller's buffer staged from its rows
// (8- and 16-bit interleaved rows as they lie, unpacked on the device by widen_interleaved;
// other layouts converted on the host) gives the CPU's bytes for every case of
// tests/codec/encode_input_cases.h.
#include <gtest/gtest.h>

#include "codec/encode_input_cases.h"
#include "gj2k/encoder.h"
#include "gpu/gpu_test_util.h"

namespace gj2k {
namespace {

TEST(GpuEncodeInputBuffer, SameBytesAsTheCpuFromTheImage) {
  GJ2K_REQUIRE_GPU();
  test::expect_input_cases_match(EncodeParams::Device::kGpu);
}

}  // namespace
}  // namespace gj2k
