// What a gj2k_context owns (codec/context.h).
#include "codec/context.h"

#include <mutex>
#include <set>

#include "transform/device.h"

namespace gj2k::codec {
namespace {

// Live contexts, for release_context_gpu_objects.
std::mutex g_live_mutex;
std::set<ContextResources*>& live() {
  static auto* s = new std::set<ContextResources*>();  // never destroyed: outlives contexts
  return *s;
}

thread_local int tl_selected_device = -1;  // the device this thread last selected

}  // namespace

ContextResources::ContextResources(int threads, int device) : threads_(threads), device_(device) {
  const std::lock_guard lock(g_live_mutex);
  live().insert(this);
}

ContextResources::~ContextResources() {
  {
    const std::lock_guard lock(g_live_mutex);
    live().erase(this);
  }
  bool gpu = false;
  for (const Held& h : gpu_) gpu = gpu || h.object;
  if (gpu) {
    try {
      transform::select_gpu(device_);  // the objects' device
      tl_selected_device = device_;
    } catch (...) {  // freed on whichever device is current: CUDA finds the allocation
    }
  }
  for (Held& h : gpu_) h.object.reset();
  pool_.reset();  // joins the workers
}

core::ThreadPool& ContextResources::pool() {
  if (!pool_) pool_ = std::make_unique<core::ThreadPool>(threads_);
  return *pool_;
}

size_t ContextResources::release_gpu() {
  const std::lock_guard lock(mutex_);
  size_t n = 0;
  for (Held& h : gpu_)
    if (h.object) n += h.clear(h.object.get());
  return n;
}

void use_context_device() {
  const ContextResources* c = current_context();
  const int device = c ? c->device() : 0;  // without a context: CUDA's default, device 0
  if (tl_selected_device == device || (tl_selected_device < 0 && device == 0)) return;
  transform::select_gpu(device);
  tl_selected_device = device;
}

size_t release_context_gpu_objects() {
  const std::lock_guard lock(g_live_mutex);
  size_t n = 0;
  for (ContextResources* c : live()) n += c->release_gpu();
  return n;
}

}  // namespace gj2k::codec
