// The decoder's tile tail on the GPU (codec/decoder_tile_gpu.cpp). Not public.
//
// finish_tile_gpu runs, for one tile whose coefficients Tier-1 has decoded into host memory,
// what follows dequantization in the CPU path of decoder_tile.cpp: inverse DWT (15444-1
// F.3.1 / F.4), inverse RCT or ICT (G.2 / G.3), inverse DC level shift (G.1.2), rounding of
// the irreversible path and clipping to each component's range. Results: 5/3 identical to the
// CPU (integer lifting F.3.8, integer RCT); 9/7 within float rounding of the CPU DWT
// (dwt_cuda.h), so a decoded sample may differ from the CPU's by 1 after rounding.
//
// Each component goes up through a pinned StagingRing (transform/cuda/staging_ring.h) on its
// own stream (components c % 3), its inverse DWT is enqueued at once, the MCT joins streams
// 0..2, DC shift + clamp, and the samples come down through the ring. Tiles finished by
// several threads at once use separate slots, so their transfers and kernels overlap.
//
// Memory: slots come from a process-wide pool (transform/cuda/resource_pool.h) and keep their
// buffers, sized by the largest tile seen, until the process ends: device 8 bytes per sample
// (coefficients + samples) plus the DWT scratch of the largest component per stream (N/4 +
// N/16 for the default fused inverse); pinned host only the slot's ring (at most 32 MB, sized
// by the tile). The slot is taken
// after Tier-1, so GpuDecodeWarmUp's device query, CUDA context and slot allocation overlap
// parsing, Tier-2 and Tier-1. CUDA failures throw Error(kDevice); a slot whose work failed is
// dropped.
//
// Measured before the ring (pinned planes the size of the tile, slot taken before Tier-1;
// H200 + 16 cores, bench_gpu_codec, 10240 x 6400 RGB 8-bit synthetic, one tile, 5 levels):
//   5/3: CPU 1389, 1378 ms -> GPU 1303, 1280 ms (identical samples)
//   9/7: CPU 1619, 1676 ms -> GPU 1349, 1265 ms (peak difference 1)
// while pinning the 786 MB planes took 266-303 ms and unpinning 68 ms plus about 90 ms at
// process exit, which made whole GPU processes slower than CPU ones; a 5 KB stream (p0_01)
// decodes in 0.006 s on the CPU and 0.29 to 0.34 s with --device gpu (driver initialisation,
// context creation and teardown), hence the floor of --device auto (transform/device.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "codec/decoder_tile.h"
#include "transform/geometry.h"

namespace gj2k::codec {

// One component of the tile as the GPU tail sees it.
struct GpuComponent {
  transform::Rect rect;    // the tile-component at the decoded resolution (empty: nothing)
  int levels = 0;          // inverse DWT levels (NL - reduce)
  bool decode = false;     // has coefficients (decoded, or needed by the MCT)
  bool wanted = false;     // its samples are returned
  bool reversible = true;  // 5/3 int32 coefficients, else 9/7 float
  int32_t offset = 0, lo = 0, hi = 0;  // DC level shift (G.1.2) and sample range
  const void* coeffs = nullptr;        // decoded: int32 or float coefficients, packed rows
};

// The tail of one tile on the GPU. mct: components 0..2 (decoded, equal rects) go through the
// inverse RCT when all three are reversible, else the ICT (a 5/3 one converted to float first),
// as in decoder_tile.cpp. out (resized to the components) receives the rect and final samples
// of every wanted component; the others are left as they are. out[c].samples is reused when it
// already has the component's size, so a caller may move the coefficient plane there (every
// coefficient is uploaded before any sample comes down).
void finish_tile_gpu(const std::vector<GpuComponent>& comps, bool mct, int threads,
                     std::vector<TileComponentSamples>& out);

// Decides the device of a decode that may use the GPU (auto or gpu) and warms it up, on a
// background thread: queries the device (transform::gpu_info: CUDA driver initialisation),
// then, with a GPU, creates the CUDA context and, once prepare() says what the tiles need,
// announces and allocates `slots` slots for tiles of up to `tile_samples` decoded samples in
// `components` components (slot takers wait for them). So the query, the context and the
// slot allocation overlap parsing, Tier-2 and Tier-1 (decode_tile asks use() after Tier-1,
// except for region decodes). The destructor waits for the thread.
class GpuDecodeWarmUp {
 public:
  // required: --device gpu (use() throws when there is none), else auto.
  explicit GpuDecodeWarmUp(bool required);
  ~GpuDecodeWarmUp();
  GpuDecodeWarmUp(const GpuDecodeWarmUp&) = delete;
  GpuDecodeWarmUp& operator=(const GpuDecodeWarmUp&) = delete;
  void prepare(size_t tile_samples, size_t components, int slots);  // once; later calls ignored
  // Whether the decode runs on the GPU; waits for the query (and for prepare()). Without a
  // usable GPU (or built without CUDA): false, or Error(kDevice) with the reason when
  // required. Thread-safe.
  bool use() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gj2k::codec
