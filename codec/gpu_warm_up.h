// The one GPU warm-up (codec/tile_backend_cuda.cpp). Not public. The GPU stages themselves
// are cuda_backend() (tile_backend.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace gj2k::codec {

// Decides the device of work that may use the GPU (auto or gpu) and warms it up, on a
// background thread, so that start-up overlaps what the caller does meanwhile (the CLI:
// reading the input image; the decoder: parsing, Tier-2 and Tier-1): queries the device
// (transform::gpu_info: CUDA driver initialisation), then, with a GPU, creates the CUDA
// context and, for a decoder, once prepare() says what the tiles need,
// announces and allocates `slots` slots for tiles of up to `tile_samples` decoded samples in
// `components` components (slot takers wait for them). So the query, the context and the
// slot allocation overlap reading, parsing, Tier-2 and the code-block table (decode_tile asks
// use() once the table is built). The destructor waits for the thread.
class GpuWarmUp {
 public:
  // required: --device gpu (use() throws when there is none), else auto.
  explicit GpuWarmUp(bool required);
  ~GpuWarmUp();
  GpuWarmUp(const GpuWarmUp&) = delete;
  GpuWarmUp& operator=(const GpuWarmUp&) = delete;
  void prepare(size_t tile_samples, size_t components, int slots);  // once; later calls ignored
  // Whether the decode runs on the GPU; waits for the query (and for prepare()). Without a
  // usable GPU (or built without CUDA): false, or Error(kDevice) with the reason when
  // required. Thread-safe.
  bool use() const;
  // Whether use() may still say yes, or must be asked (--device gpu, which throws without a
  // GPU): false only once the query has found no usable GPU under auto. Does not wait.
  bool may_use() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gj2k::codec
