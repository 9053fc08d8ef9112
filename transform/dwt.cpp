// dwt_ops: the per-variant tables of CPU DWT kernels (STYLE.md 2).
#include "transform/dwt.h"

#include "gj2k/error.h"
#include "transform/dwt_ref.h"

namespace gj2k::transform {

const DwtOps& dwt_ops(DwtVariant variant) {
  static const DwtOps kRef{"reference", ref::forward53, ref::inverse53, ref::forward97,
                           ref::inverse97};
  switch (variant) {
    case DwtVariant::kReference:
      return kRef;
    case DwtVariant::kCpu:
    case DwtVariant::kCpuConvolve:
      return kRef;  // until the fast variants land
  }
  throw Error(ErrorCode::kInvalidArgument, "dwt_ops: unknown DWT variant");
}

}  // namespace gj2k::transform
