// dwt_ops: the per-variant tables of CPU DWT kernels (docs/ARCHITECTURE.md, "Variants").
#include "transform/dwt.h"

#include "gj2k/error.h"
#include "transform/dwt_cpu.h"
#include "transform/dwt_ref.h"

namespace gj2k::transform {

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

}  // namespace gj2k::transform
