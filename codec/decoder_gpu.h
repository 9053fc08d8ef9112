// The decoder's GPU warm-up (codec/tile_backend_cuda.cpp). Not public. The GPU tail itself
// is cuda_backend() (tile_backend.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace gj2k::codec {

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
