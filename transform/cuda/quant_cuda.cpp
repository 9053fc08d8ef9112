// Host side of the whole-tile-component quantization: the subband table of the Mallat
// arrangement (geometry.h), then one launch (quant_kernels.cu).
#include <string>

#include "gj2k/error.h"
#include "transform/cuda/quant_cuda.h"
#include "transform/cuda/quant_kernels.h"
#include "transform/geometry.h"

namespace gj2k::transform::cuda {
namespace {

static_assert(kQuantMaxLevels == kMaxLevels);

BandMap band_map(const Rect& tc, int levels, const float* deltas) {
  if (levels < 0 || levels > kMaxLevels)
    throw Error(ErrorCode::kInvalidArgument,
                "quantize_bands: levels " + std::to_string(levels) + " outside 0..32");
  BandMap m{};
  m.levels = levels;
  for (int n = 0; n <= levels; ++n) {
    const Rect r = subband_rect(tc, n, Band::kLL);
    m.w[n] = r.width();
    m.h[n] = r.height();
  }
  for (int i = 0; i < 3 * levels + 1; ++i) {
    m.delta[i] = deltas[i];
  }
  return m;
}

}  // namespace

void quantize_bands(const float* d_in, size_t in_pitch, int32_t* d_out, size_t out_pitch,
                    const Rect& tc, int levels, const float* deltas, cudaStream_t s) {
  const BandMap m = band_map(tc, levels, deltas);
  launch_quantize_bands(d_in, in_pitch, d_out, out_pitch, tc.width(), tc.height(), m, s);
}

}  // namespace gj2k::transform::cuda
