// Element-wise quantization kernels (Annex E) and their launchers.
#include <algorithm>

#include "transform/cuda/cuda_check.h"
#include "transform/cuda/quant_cuda.h"
#include "transform/cuda/quant_kernels.h"

namespace gj2k::transform::cuda {
namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ int32_t quantize_one(float y, float delta) {
  constexpr float kMax = 2147483520.0f;  // largest float below 2^31
  float m = floorf(fabsf(y) / delta);
  if (!(m >= 0)) m = 0;  // NaN
  m = m < kMax ? m : kMax;
  const int32_t q = static_cast<int32_t>(m);
  return y < 0 ? -q : q;
}

__global__ void quantize_kernel(const float* in, int32_t* out, size_t n, float delta) {
  for (size_t i = size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x)
    out[i] = quantize_one(in[i], delta);
}

__device__ __forceinline__ int band_index(const BandMap& m, uint32_t x, uint32_t y) {
  for (int n = 1; n <= m.levels; ++n) {
    const bool hx = x >= m.w[n], hy = y >= m.h[n];
    if (hx || hy) return 1 + 3 * (m.levels - n) + (hx ? (hy ? 2 : 0) : 1);  // qcd_index
  }
  return 0;  // the LL of the last level
}

__global__ void quantize_bands_kernel(const float* in, size_t ip, int32_t* out, size_t op,
                                      uint32_t w, uint32_t h, const BandMap m) {
  const uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= w) return;
  for (uint32_t y = blockIdx.y; y < h; y += gridDim.y) {
    out[size_t{y} * op + x] = quantize_one(in[size_t{y} * ip + x], m.delta[band_index(m, x, y)]);
  }
}

unsigned grid_1d(size_t n) {
  return static_cast<unsigned>(
      std::max<size_t>(1, std::min<size_t>((n + kThreads - 1) / kThreads, 132 * 16)));
}

dim3 grid_2d(uint32_t w, uint32_t h) {
  return dim3((w + kThreads - 1) / kThreads, std::min<uint32_t>(h, 65535));
}

// One CUDA block per code-block, lanes along rows (coalesced), warps down the rows.
__global__ void reconstruct_blocks_kernel(const ReconstructJob* jobs, uint32_t count,
                                          int32_t* base) {
  for (uint32_t k = blockIdx.x; k < count; k += gridDim.x) {
    const ReconstructJob j = jobs[k];
    int32_t* v = base + j.offset;
    if (j.q.reversible) {
      for (uint32_t y = threadIdx.y; y < j.h; y += blockDim.y)
        for (uint32_t x = threadIdx.x; x < j.w; x += blockDim.x) {
          int32_t& c = v[size_t{y} * j.stride + x];
          c = reconstruct_integer(c, j.q.roi_shift);
        }
      continue;
    }
    const IrreversibleRule rule = irreversible_rule(j.q);
    for (uint32_t y = threadIdx.y; y < j.h; y += blockDim.y)
      for (uint32_t x = threadIdx.x; x < j.w; x += blockDim.x) {
        int32_t& c = v[size_t{y} * j.stride + x];
        c = __float_as_int(
            __fmul_rn(static_cast<float>(irreversible_half_units(c, rule)), rule.scale));
      }
  }
}

}  // namespace

void quantize(const float* d_in, int32_t* d_out, size_t n, float delta, cudaStream_t s) {
  if (n == 0) return;
  quantize_kernel<<<grid_1d(n), kThreads, 0, s>>>(d_in, d_out, n, delta);
  GJ2K_CUDA_CHECK_LAUNCH("quantize_kernel launch");
}
void launch_quantize_bands(const float* d_in, size_t ip, int32_t* d_out, size_t op, uint32_t w,
                           uint32_t h, const BandMap& m, cudaStream_t s) {
  if (w == 0 || h == 0) return;
  quantize_bands_kernel<<<grid_2d(w, h), kThreads, 0, s>>>(d_in, ip, d_out, op, w, h, m);
  GJ2K_CUDA_CHECK_LAUNCH("quantize_bands_kernel launch");
}

void reconstruct_blocks(const ReconstructJob* d_jobs, uint32_t count, int32_t* d_base,
                        cudaStream_t stream) {
  if (count == 0) return;
  const unsigned grid = static_cast<unsigned>(std::min<uint32_t>(count, 1u << 20));
  reconstruct_blocks_kernel<<<grid, dim3(32, 8), 0, stream>>>(d_jobs, count, d_base);
  GJ2K_CUDA_CHECK_LAUNCH("reconstruct_blocks_kernel launch");
}

}  // namespace gj2k::transform::cuda
