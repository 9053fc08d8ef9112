// dwt_ops: the per-variant tables of CPU DWT kernels (docs/ARCHITECTURE.md, "Variants"); the
// codec's selection (dwt.h select_dwt).
#include "transform/dwt.h"

#include <atomic>
#include <string>

#include "gj2k/error.h"
#include "transform/dwt_cpu.h"
#include "transform/dwt_ref.h"

#if defined(GJ2K_HAVE_CUDA)
#include "transform/cuda/dwt_cuda.h"
#endif

namespace gj2k::transform {

void check_dwt_args(const void* data, size_t stride, const Rect& tc, int levels, const char* what) {
  if (levels < 0 || levels > kMaxLevels)
    throw Error(ErrorCode::kInvalidArgument,
                std::string(what) + ": levels " + std::to_string(levels) + " outside 0..32");
  if (tc.empty()) return;
  if (data == nullptr)
    throw Error(ErrorCode::kInvalidArgument, std::string(what) + ": null buffer");
  if (stride < tc.width())
    throw Error(ErrorCode::kInvalidArgument, std::string(what) + ": stride " +
                                                 std::to_string(stride) + " < width " +
                                                 std::to_string(tc.width()));
}

const DwtOps& dwt_ops(DwtVariant variant) {
  static const DwtOps kRef{"reference", ref::forward53, ref::inverse53, ref::forward97,
                           ref::inverse97};
  static const DwtOps kCpu{"cpu", cpu::forward53, cpu::inverse53, cpu::forward97, cpu::inverse97};
  // Galiano et al.'s convolution applies to 9/7; its 5/3 entries are the lifting ones.
  static const DwtOps kConv{"cpu-convolve", cpu::forward53, cpu::inverse53, conv::forward97,
                            conv::inverse97};
  switch (variant) {
    case DwtVariant::kReference:
      return kRef;
    case DwtVariant::kCpu:
      return kCpu;
    case DwtVariant::kCpuConvolve:
      return kConv;
  }
  throw Error(ErrorCode::kInvalidArgument, "dwt_ops: unknown DWT variant");
}

namespace {
std::atomic<DwtVariant> g_cpu_dwt{DwtVariant::kCpu};
std::atomic<int> g_gpu_dwt{0};  // GpuDwtVariant::kDefault
}  // namespace

constexpr DwtVariant kCpuVariants[] = {DwtVariant::kCpu, DwtVariant::kCpuConvolve,
                                       DwtVariant::kReference};

std::string dwt_variant_names() {
  std::string out = "CPU:";
  for (DwtVariant v : kCpuVariants)
    out += std::string(v == kCpuVariants[0] ? " " : ", ") + dwt_ops(v).name;
#if defined(GJ2K_HAVE_CUDA)
  out += "; GPU:";
  for (cuda::GpuDwtVariant v : cuda::kAllGpuDwtVariants)
    out += std::string(v == cuda::kAllGpuDwtVariants[0] ? " " : ", ") + cuda::to_string(v);
#else
  out += "; GPU variants need a build with CUDA";
#endif
  return out;
}

void select_dwt(const std::string& name) {
  for (DwtVariant v : kCpuVariants)
    if (name == dwt_ops(v).name) {
      g_cpu_dwt = v;
      return;
    }
#if defined(GJ2K_HAVE_CUDA)
  try {
    g_gpu_dwt = static_cast<int>(cuda::parse_gpu_dwt_variant(name.c_str()));
    return;
  } catch (const Error&) {  // neither a CPU nor a GPU name: say which names there are
  }
#endif
  throw Error(ErrorCode::kInvalidArgument,
              "unknown DWT variant '" + name + "' (" + dwt_variant_names() + ")");
}

DwtVariant codec_cpu_dwt() {
  return g_cpu_dwt.load(std::memory_order_relaxed);
}

int codec_gpu_dwt() {
  return g_gpu_dwt.load(std::memory_order_relaxed);
}

}  // namespace gj2k::transform
