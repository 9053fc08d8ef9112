// Fast CPU DWT variants (the multicore CPU methods of Galiano et al., "Improving the discrete
// wavelet transform computation from multicore to GPU-based algorithms", CMMSE 2011). Same
// contract as dwt.h; reached through dwt_ops(DwtVariant::kCpu / kCpuConvolve).
//
// - cpu:: lifting on deinterleaved halves: each 2-D level runs the vertical pass on strips of
//   32, 64 or 128 columns (kStripWidths; one strip per task, all rows, lanes vectorised; levels
//   smaller than 2^15 samples run on one thread) and the horizontal pass on rows (one row per
//   task), the thread pool (core/thread_pool.h) over strips / rows. Every pass reads each
//   sample of the buffer once and writes it once: the first lifting step is fused with the copy
//   into scratch (and the deinterleaving, forward), the last with the copy back (and the
//   interleaving, inverse).
//   5/3 is bit-identical to the reference; 9/7 performs the reference's float operations in the
//   same order, so it is bit-identical too (tested).
// - conv:: 9/7 by filter-bank convolution with the 9-tap / 7-tap analysis filters and the
//   7-tap / 9-tap synthesis filters equivalent to the lifting (dwt97_filters), same strips and
//   rows; float32 accumulation, so it differs from the lifting by rounding (tests: 1e-4
//   relative to the signal's peak per level).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "transform/dwt.h"

namespace gj2k::transform {

namespace cpu {
inline constexpr uint32_t kStripWidth = 32;  // columns per vertical-pass task, the narrowest
// The vertical pass's strip widths, widest first. Where the row stride is a multiple of 4 KiB,
// all rows of a strip share a few cache sets; a wider strip spreads over more of them
// (docs/PERFORMANCE.md, "Twenty-fifth run").
inline constexpr uint32_t kStripWidths[] = {128, 64, kStripWidth};
// The vertical pass's scratch for a strip (`height` rows of its width, 4-byte samples) stays
// within this, so that its lifting steps run in a core's L2 (docs/PERFORMANCE.md,
// "Twenty-fifth run").
inline constexpr size_t kStripScratchBytes = size_t{1} << 20;
// The strip width a vertical pass over `width` columns and `height` rows takes under the
// calling thread's scope (core/thread_pool.h): the widest of kStripWidths whose scratch fits
// kStripScratchBytes and whose busiest thread gets no more columns than with the narrowest (on
// one thread, below the parallel size or inside a parallel loop: the widest that fits).
size_t vertical_strip_width(size_t width, size_t height);
void forward53(Plane<int32_t> p, const Rect& tc, int levels);
void inverse53(Plane<int32_t> p, const Rect& tc, int levels);
void forward97(Plane<float> p, const Rect& tc, int levels);
void inverse97(Plane<float> p, const Rect& tc, int levels);
// The inverse transform computed only where `want` (on tc's grid, clipped to tc) needs it: on
// return the samples of want are what inverse53 / inverse97 give, bit for bit; the others are
// unspecified. Region decoding: the work shrinks with the window at every level (each level's
// window is the one above halved, widened by a few samples of filter reach).
void inverse53_window(Plane<int32_t> p, const Rect& tc, int levels, const Rect& want);
void inverse97_window(Plane<float> p, const Rect& tc, int levels, const Rect& want);
// The finest level of inverse53 / inverse97 in bands of rows, for a caller that takes the
// samples row by row (the decoder's colour stage and packing): p holds tc's coefficients with
// every coarser level already inverse-transformed (inverse53 / inverse97 on
// subband_rect(tc, 1, Band::kLL) with levels - 1), and is only read. On return rows[i - y0]
// points at row i of the output (y0 <= i < y1 <= tc.height(); tc.width() samples; null when
// the width is 0), valued
// bit for bit as inverse53 / inverse97 (p, tc, levels) leave row i. The rows live in scratch
// (grown as needed) until its next use; the caller may change them. HOR_SR then VER_SR
// (F.4.2) of the band's rows only: a band of b rows reads b + about 12 rows of p once, and
// keeps the lifting in a buffer of that many rows.
void inverse53_rows(Plane<int32_t> p, const Rect& tc, size_t y0, size_t y1,
                    std::vector<int32_t>& scratch, int32_t** rows);
void inverse97_rows(Plane<float> p, const Rect& tc, size_t y0, size_t y1,
                    std::vector<float>& scratch, float** rows);
}  // namespace cpu

namespace conv {
void forward97(Plane<float> p, const Rect& tc, int levels);
void inverse97(Plane<float> p, const Rect& tc, int levels);
}  // namespace conv

}  // namespace gj2k::transform
