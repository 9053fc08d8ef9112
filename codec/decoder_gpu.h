// The decoder's tile tail on the GPU (codec/decoder_tile_gpu.cpp). Not public.
//
// GpuTileDecoder runs, for one tile, what follows dequantization in the CPU path of
// decoder_tile.cpp: inverse DWT (15444-1 F.3.1 / F.4), inverse RCT or ICT (G.2 / G.3), inverse
// DC level shift (G.1.2), rounding of the irreversible path and clipping to each component's
// range. Results: 5/3 identical to the CPU (integer lifting F.3.8, integer RCT); 9/7 within
// float rounding of the CPU DWT (dwt_cuda.h), so a decoded sample may differ from the CPU's by
// 1 after rounding.
//
// Use: construct (takes a slot and lays the decoded components out in its pinned host buffer,
// which is NOT zeroed), let Tier-1 write every coefficient straight into ints(c)
// (5/3) or floats(c) (9/7, already dequantized on the host as the CPU path does), packed rows
// of rect.width(); then finish(): each component goes up on its own stream (components
// c % 3), inverse DWT, the MCT joins streams 0..2, DC shift + clamp, samples come back into the
// same pinned buffer and are copied in parallel into the output vectors, a component as soon
// as its download ends. Tiles decoded by several threads at once use separate slots, so their
// transfers and kernels overlap.
//
// Memory: slots come from a process-wide pool (transform/cuda/resource_pool.h) and keep their
// buffers, sized by the largest tile seen, until the process ends: pinned host 4 bytes per
// decoded sample of the tile; device 8 bytes per sample (coefficients + samples) plus the DWT
// scratch of the largest component per stream (N/4 + N/16 for the default fused inverse).
// GpuDecodeWarmUp queries the device, creates the CUDA context and the slots a decode will
// need on a background thread, so that CUDA initialisation and pinned allocation overlap
// parsing and Tier-2; slot takers wait for it. CUDA failures throw Error(kDevice); a slot whose
// work failed is dropped.
//
// Measured (H200 + 16 cores; bench_gpu_codec: 10240 x 6400 RGB 8-bit synthetic, one tile,
// 5 levels, 64x64 blocks, decode_memory, median of 2 warm runs; two runs of the program):
//   5/3: CPU 1389, 1378 ms -> GPU 1303, 1280 ms (identical samples)
//   9/7: CPU 1619, 1676 ms -> GPU 1349, 1265 ms (peak difference 1)
//   first GPU decode of the process (context, slot allocation): 1313, 1320 ms; pinning the
//   786 MB slot alone takes 266 ms (cudaMallocHost), hidden behind parsing and Tier-2.
// Whole `gj2k decode` processes of the same streams to PPM, --device cpu / gpu, alternating:
//   5/3: 1.81, 2.02, 1.85, 2.33 s / 2.19, 2.23, 2.27, 2.32 s (identical output files)
//   9/7: 2.20, 2.37, 2.31, 2.24 s / 2.18, 2.31, 2.50, 2.29 s
// so per process the GPU's gain is about what CUDA costs it: a 5 KB stream (p0_01) decodes in
// 0.006 s on the CPU and 0.29 to 0.34 s with --device gpu (driver initialisation, context
// creation and teardown). Tier-1 on the CPU dominates both paths. (Measured while the device
// query still ran on the calling thread before parsing; it now overlaps Tier-2 too.)
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
};

class GpuTileDecoder {
 public:
  // mct: components 0..2 (decoded, equal rects) go through the inverse RCT when all three are
  // reversible, else the ICT (a 5/3 one converted to float first), as in decoder_tile.cpp.
  GpuTileDecoder(std::vector<GpuComponent> comps, bool mct, int threads);
  ~GpuTileDecoder();
  GpuTileDecoder(const GpuTileDecoder&) = delete;
  GpuTileDecoder& operator=(const GpuTileDecoder&) = delete;

  // The pinned coefficient plane of decoded component c (pitch rect.width()); its contents
  // are undefined until the caller writes them (every sample must be written).
  int32_t* ints(size_t c);
  float* floats(size_t c);
  // Runs the tail; out[c] (out is resized to the components) receives the rect and final
  // samples of every wanted component c; the others are left as they are. Call once.
  void finish(std::vector<TileComponentSamples>& out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Decides the device of a decode that may use the GPU (auto or gpu) and warms it up, on a
// background thread: queries the device (transform::gpu_info: CUDA driver initialisation),
// then, with a GPU, creates the CUDA context and, once prepare() says what the tiles need,
// announces and allocates `slots` slots for tiles of up to `tile_samples` decoded samples in
// `components` components (slot takers wait for them). So the query, the context and the
// pinned allocation overlap parsing and Tier-2. The destructor waits for the thread.
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
