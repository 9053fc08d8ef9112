// Decoder inverse DWT on the GPU (decoder_gpu.h): coefficients up, in-place inverse DWT with
// the default GPU variant (15444-1 F.3.1 / F.4), samples down.
#if defined(GJ2K_HAVE_CUDA)

#include <memory>
#include <mutex>
#include <type_traits>
#include <vector>

#include "codec/decoder_gpu.h"
#include "transform/cuda/cuda_check.h"
#include "transform/cuda/cuda_memory.h"
#include "transform/cuda/dwt_cuda.h"

namespace gj2k::codec {
namespace {

namespace cu = transform::cuda;
using transform::Rect;

// One stream with its device buffers: the tile-component and the DWT workspace.
struct Slot {
  cu::Stream stream;
  cu::DeviceBuffer data;
  cu::DeviceBuffer work;
};

// Process-wide pool of slots: a caller takes one for a tile-component and returns it.
// Deliberately never destroyed (CUDA frees at static destruction may run after the runtime
// has shut down).
class SlotPool {
 public:
  std::unique_ptr<Slot> take() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        std::unique_ptr<Slot> s = std::move(free_.back());
        free_.pop_back();
        return s;
      }
    }
    return std::make_unique<Slot>();
  }
  void give(std::unique_ptr<Slot> s) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(std::move(s));
  }

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<Slot>> free_;
};

SlotPool& pool() {
  static SlotPool* p = new SlotPool;
  return *p;
}

// A slot taken from the pool for the lifetime of the lease. One whose work failed is dropped
// rather than returned (its stream may hold a sticky error).
class Lease {
 public:
  Lease() : s_(pool().take()) {}
  ~Lease() {
    if (ok_) pool().give(std::move(s_));
  }
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;
  Slot& operator*() { return *s_; }
  void succeeded() { ok_ = true; }

 private:
  std::unique_ptr<Slot> s_;
  bool ok_ = false;
};

template <class T>
void run(T* samples, const Rect& rect, int levels) {
  if (rect.empty() || levels == 0) return;  // 0 levels: the coefficients are the samples
  const size_t bytes = size_t{rect.width()} * rect.height() * sizeof(T);
  Lease lease;
  Slot& s = *lease;
  s.data.reserve(bytes);
  const size_t work = cu::dwt_workspace_bytes(cu::GpuDwtVariant::kDefault, rect, levels, true);
  s.work.reserve(work);
  GJ2K_CUDA_CHECK(
      cudaMemcpyAsync(s.data.get(), samples, bytes, cudaMemcpyHostToDevice, s.stream.get()));
  const cu::DevicePlane<T> plane{s.data.as<T>(), rect.width()};
  if constexpr (sizeof(T) == 4 && std::is_integral_v<T>)
    cu::dwt53_inverse(cu::GpuDwtVariant::kDefault, plane, rect, levels, s.work.get(), work,
                      s.stream.get());
  else
    cu::dwt97_inverse(cu::GpuDwtVariant::kDefault, plane, rect, levels, s.work.get(), work,
                      s.stream.get());
  GJ2K_CUDA_CHECK(
      cudaMemcpyAsync(samples, s.data.get(), bytes, cudaMemcpyDeviceToHost, s.stream.get()));
  s.stream.synchronize();
  lease.succeeded();
}

}  // namespace

void reconstruct_gpu(int32_t* samples, const Rect& rect, int levels) {
  run(samples, rect, levels);
}
void reconstruct_gpu(float* samples, const Rect& rect, int levels) {
  run(samples, rect, levels);
}

}  // namespace gj2k::codec

#endif  // GJ2K_HAVE_CUDA
