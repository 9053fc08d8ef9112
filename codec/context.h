// What a gj2k_context owns (include/gj2k.h): its worker threads, the GPU device its calls run
// on, and the GPU objects those calls pool (device buffers, pinned staging memory, streams).
// Not public.
//
// A call through the context opens a ContextScope; the stages below find the context's pool
// (core::current_pool) and GPU objects (gpu_object) through the scope, and the pool's workers
// inherit it while they help (core::current_context). Without a context (the C++ API), the
// process pool and the process-wide GPU pools serve the call.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <mutex>

#include "core/thread_pool.h"

namespace gj2k::codec {

// The GPU objects a context pools, one of each kind (made on first use by their stage).
enum class GpuObject { kDecoderSlots, kEncoderTransformers, kEncoderTier1, kCount };

class ContextResources {
 public:
  // threads: the pool's threads (0: core::hardware_threads()); device: the CUDA device index.
  ContextResources(int threads, int device);
  // Frees the GPU objects (on the context's device), then joins the workers. No call through
  // the context may be running.
  ~ContextResources();
  ContextResources(const ContextResources&) = delete;
  ContextResources& operator=(const ContextResources&) = delete;

  // The context's worker threads, made on first use.
  core::ThreadPool& pool();
  int device() const { return device_; }

  // The context's object of kind `which`, made by make() (returning T*) on first use. T has
  // size_t clear() (frees what is pooled and not in use, returns how many).
  template <class T, class Make>
  T& gpu_object(GpuObject which, const Make& make) {
    const std::lock_guard lock(mutex_);
    Held& h = gpu_[static_cast<size_t>(which)];
    if (!h.object) {
      h.object = std::unique_ptr<void, void (*)(void*)>(make(),
                                                        [](void* p) { delete static_cast<T*>(p); });
      h.clear = [](void* p) { return static_cast<T*>(p)->clear(); };
    }
    return *static_cast<T*>(h.object.get());
  }
  // Frees the GPU objects pooled and not in use; returns how many.
  size_t release_gpu();

 private:
  struct Held {
    std::unique_ptr<void, void (*)(void*)> object{nullptr, [](void*) {}};
    size_t (*clear)(void*) = nullptr;
  };
  const int threads_, device_;
  std::unique_ptr<core::ThreadPool> pool_;
  std::mutex mutex_;
  std::array<Held, static_cast<size_t>(GpuObject::kCount)> gpu_;
};

// The context of the calling thread's scope (a worker: of the loop it helps with), or nullptr.
inline ContextResources* current_context() {
  return static_cast<ContextResources*>(core::current_context());
}

// Makes `r` the calling thread's context, its pool the current pool, until destroyed.
class ContextScope {
 public:
  explicit ContextScope(ContextResources& r) : scope_(0, &r.pool(), &r) {}

 private:
  core::ThreadScope scope_;
};

// Selects the current context's GPU device for the calling thread (cudaSetDevice, when it is
// not the one this thread has), before the thread's CUDA work for the context; without a
// context, device 0 (the process pools' device). Throws Error(kDevice) when it cannot be
// selected. Without CUDA: nothing to select.
void use_context_device();

// Frees the pooled GPU objects of every live context; returns how many
// (gj2k::release_gpu_resources).
size_t release_context_gpu_objects();

}  // namespace gj2k::codec
