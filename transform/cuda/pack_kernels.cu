// The pack kernel (pack_cuda.h): one thread per sample, threads of a warp along a row, so that
// the int32 reads coalesce; the stores are pack_sample's bytes.
#include <algorithm>

#include "transform/cuda/cuda_check.h"
#include "transform/cuda/pack_cuda.h"

namespace gj2k::transform::cuda {
namespace {

constexpr unsigned kThreadsX = 128;

template <uint32_t kBytes, bool kBigEndian>
__global__ void pack_kernel(const int32_t* d_src, uint8_t* d_dst, PackRect r) {
  const uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= r.width) return;
  for (uint32_t y = blockIdx.y; y < r.height; y += gridDim.y)
    pack_sample(d_dst + size_t{y} * r.dst_row + size_t{x} * r.dst_pixel,
                d_src[size_t{y} * r.src_pitch + x], kBytes, kBigEndian);
}

}  // namespace

void pack_rect(const int32_t* d_src, uint8_t* d_dst, const PackRect& r, PackFormat f,
               cudaStream_t stream) {
  if (r.width == 0 || r.height == 0) return;
  const dim3 grid((r.width + kThreadsX - 1) / kThreadsX, std::min<uint32_t>(r.height, 65535));
  if (f.bytes == 1)
    pack_kernel<1, false><<<grid, kThreadsX, 0, stream>>>(d_src, d_dst, r);
  else if (f.bytes == 2 && f.big_endian)
    pack_kernel<2, true><<<grid, kThreadsX, 0, stream>>>(d_src, d_dst, r);
  else if (f.bytes == 2)
    pack_kernel<2, false><<<grid, kThreadsX, 0, stream>>>(d_src, d_dst, r);
  else if (f.big_endian)
    pack_kernel<4, true><<<grid, kThreadsX, 0, stream>>>(d_src, d_dst, r);
  else
    pack_kernel<4, false><<<grid, kThreadsX, 0, stream>>>(d_src, d_dst, r);
  GJ2K_CUDA_CHECK_LAUNCH("pack_kernel launch");
}

}  // namespace gj2k::transform::cuda
