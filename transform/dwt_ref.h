// The spec-literal reference DWT (ISO/IEC 15444-1 Annex F). Slow, plain, kept forever: every
// other variant (fast CPU, convolution, GPU) is tested against these functions.
//
// 1-D procedures work on an interleaved signal: x[k] holds the sample at absolute coordinate
// i0 + k, k in [0, i1 - i0). After sd_* the signal holds Y (low-pass at even absolute
// coordinates, high-pass at odd ones, still interleaved, F.3.7); sr_* undoes it (F.4.7).
// The 2-D functions follow the DwtFn contract of dwt.h.
#pragma once

#include <cstdint>

#include "transform/dwt.h"

namespace gj2k::transform::ref {

// 1D_SD / 1D_SR with 1D_FILTR_5-3R / 1D_IFILTR_5-3R (F.3.7, F.3.8.1; F.4.7, F.4.8.1).
void sd_1d_53(int32_t* x, uint32_t i0, uint32_t i1);
void sr_1d_53(int32_t* x, uint32_t i0, uint32_t i1);
// 1D_SD / 1D_SR with 1D_FILTR_9-7I / 1D_IFILTR_9-7I (F.3.7, F.3.8.2; F.4.7, F.4.8.2).
void sd_1d_97(float* x, uint32_t i0, uint32_t i1);
void sr_1d_97(float* x, uint32_t i0, uint32_t i1);

// FDWT / IDWT of a tile-component (F.3.1 / F.4.1) via 2D_SD / 2D_SR (F.3.2 / F.4.2).
void forward53(Plane<int32_t> p, const Rect& tc, int levels);
void inverse53(Plane<int32_t> p, const Rect& tc, int levels);
void forward97(Plane<float> p, const Rect& tc, int levels);
void inverse97(Plane<float> p, const Rect& tc, int levels);

}  // namespace gj2k::transform::ref
