// TEMPORARY shim until the reference DWT (branch xform) lands on main: delete on merge.
#include "transform/dwt.h"

namespace gj2k::transform {
const DwtOps& dwt_ops(DwtVariant) {
  static const DwtOps kNone{"none"};
  return kNone;
}
}  // namespace gj2k::transform
