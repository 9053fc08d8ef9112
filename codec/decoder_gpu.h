// The decoder's inverse DWT on the GPU (codec/decoder_tile_gpu.cpp). Not public.
//
// reconstruct_gpu has the contract of transform/dwt.h inverse53 / inverse97 on a contiguous
// buffer (pitch = rect.width()): the Mallat arrangement of `levels` levels of the
// tile-component `rect` (15444-1 F.3.1, band placement of geometry.h) becomes its samples, in
// place. 5/3: identical to the CPU (integer lifting, F.3.8). 9/7: within float rounding of the
// CPU (dwt_cuda.h), so a decoded sample may differ from the CPU's by 1 after rounding.
//
// Execution: the buffer goes up (pageable copy), the default GPU variant runs in place
// (transform::cuda::GpuDwtVariant::kDefault), the result comes back; the call returns when it
// is on the host. Each call takes a stream + device buffers from a process-wide pool (several
// tiles decoded at once use separate streams) and gives them back; the pool keeps its buffers,
// sized by the largest tile-component seen, until the process ends. CUDA failures throw
// Error(kDevice).
//
// Measured (H200 + 16 cores, `gj2k decode` of an 8192 x 8192 RGB 8-bit synthetic scene, one
// tile, 5 levels, whole process, --device cpu / gpu, two runs each): 5/3 1.50, 1.66 s CPU /
// 2.16, 1.80 s GPU (identical output); 9/7 1.69, 1.67 s CPU / 1.97, 2.00 s GPU. The GPU path
// is slower as a whole: Tier-1 dominates, the CPU DWT is multithreaded, and each process pays
// CUDA initialisation plus pageable copies of every component both ways.
#pragma once

#include <cstdint>

#include "gj2k/error.h"
#include "transform/geometry.h"

namespace gj2k::codec {

#if defined(GJ2K_HAVE_CUDA)
void reconstruct_gpu(int32_t* samples, const transform::Rect& rect, int levels);
void reconstruct_gpu(float* samples, const transform::Rect& rect, int levels);
#else
// Built without CUDA: never chosen (resolve_device gives kCpu), and refuses if called.
inline void reconstruct_gpu(int32_t*, const transform::Rect&, int) {
  throw Error(ErrorCode::kDevice, "reconstruct_gpu: gj2k was built without CUDA");
}
inline void reconstruct_gpu(float*, const transform::Rect&, int) {
  throw Error(ErrorCode::kDevice, "reconstruct_gpu: gj2k was built without CUDA");
}
#endif

}  // namespace gj2k::codec
