// One decoded code-block's samples turned into the coefficients the inverse DWT takes
// (15444-1 H.1 ROI max-shift undo; F.3 integer coefficients of the 5/3 path; E.1.1.2 / E-6
// reconstruction of the 9/7 path), per coefficient, written once for the CPU
// (transform::reconstruct_block, quant.h) and the GPU (cuda::reconstruct_blocks,
// transform/cuda/quant_cuda.h). Host-device, plain C++17 (nvcc includes it).
//
// The input is decode_block's (entropy/t1.h): signed magnitudes in half units, 2|q| plus 1
// where undecoded bit-planes remain below a significant coefficient (the midpoint r = 1/2 of
// E-6).
#pragma once

#include <cstdint>

#include "core/hd.h"

namespace gj2k::transform {

struct BlockReconstruction {
  bool reversible = true;   // 5/3: integers; 9/7: floats scaled by delta
  int roi_shift = 0;        // RGN SPrgn s of the max-shift method (H.1); 0: no ROI
  float delta = 1;          // 9/7: the subband's step size Delta_b (E-3)
  uint32_t passes = 0;      // coding passes decoded
  uint32_t all_passes = 0;  // 3 Nb - 2, every pass of the block's Nb bit-planes (D.3)
};

// H.1: a magnitude at or above 2^s (integer units; 2^(s+1) in half units) belongs to the ROI
// and is shifted down by s; a background magnitude stays. s = 0: unchanged.
GJ2K_HD_INLINE int32_t undo_roi_shift(int32_t c, int s) {
  if (s <= 0) return c;
  const int64_t m = c < 0 ? -int64_t{c} : int64_t{c};
  if (m < (int64_t{1} << (s + 1))) return c;
  return static_cast<int32_t>(c < 0 ? -(m >> s) : (m >> s));
}

// 5/3: the fractional bit dropped toward zero (F.3: integer coefficients), after H.1.
GJ2K_HD_INLINE int32_t reconstruct_integer(int32_t c, int roi_shift) {
  c = undo_roi_shift(c, roi_shift);
  return c < 0 ? -((-c) >> 1) : (c >> 1);
}

// The 9/7 rule of one block. Where the passes reach into the last bit-plane (its
// significance pass or later), a coefficient whose magnitude is a multiple of 2 (4 in half
// units) had that plane decoded (one with p >= 1 undecoded planes is odd at plane p), so the
// midpoint is added here; with every pass decoded, to every nonzero coefficient.
struct IrreversibleRule {
  bool last_plane = false;  // the passes reach into the last bit-plane
  bool complete = false;    // every pass decoded
  float scale = 0.5f;       // delta / 2: half units to coefficient units
  int roi_shift = 0;
};
GJ2K_HD_INLINE IrreversibleRule irreversible_rule(const BlockReconstruction& q) {
  IrreversibleRule r;
  const uint32_t all = q.all_passes;
  r.last_plane = q.passes >= all - (all < 2 ? all : 2u);
  r.complete = q.passes >= all;
  r.scale = q.delta * 0.5f;
  r.roi_shift = q.roi_shift;
  return r;
}

// The half units after H.1 and the midpoint of E-6 (what reconstruct_block leaves in v).
GJ2K_HD_INLINE int32_t irreversible_half_units(int32_t c, const IrreversibleRule& r) {
  c = undo_roi_shift(c, r.roi_shift);
  if (c == 0 || !r.last_plane) return c;
  const uint32_t m = c < 0 ? 0u - static_cast<uint32_t>(c) : static_cast<uint32_t>(c);
  if (r.complete || (m & 3u) == 0) c += c < 0 ? -1 : 1;
  return c;
}

}  // namespace gj2k::transform
