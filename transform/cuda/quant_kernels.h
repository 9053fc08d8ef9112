// Launch interface of the quantization kernels (quant_kernels.cu); the host API is
// quant_cuda.h. Host-only header, plain C++17 (nvcc compiles the kernels as C++17).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gj2k::transform::cuda {

inline constexpr int kQuantMaxLevels = 32;
inline constexpr int kQuantMaxBands = 3 * kQuantMaxLevels + 1;

// Subband lookup of the Mallat arrangement: w[n], h[n] = size of the LL of level n (n = 0: the
// tile-component); a sample lies in level n's bands when it is inside LL(n-1) but not LL(n).
struct BandMap {
  uint32_t w[kQuantMaxLevels + 1], h[kQuantMaxLevels + 1];
  float delta[kQuantMaxBands];
  int levels;
};

void launch_quantize_bands(const float* d_in, size_t ip, int32_t* d_out, size_t op, uint32_t w,
                           uint32_t h, const BandMap& m, cudaStream_t stream);

}  // namespace gj2k::transform::cuda
