// Launch interface of the DWT kernels (dwt_kernels.cu). Host-only declarations: the dispatch
// layer (dwt_cuda.cpp) fills these argument blocks per decomposition level and picks the
// launch policy; the kernels never allocate.
//
// One level of the 2-D DWT of a resolution rectangle [x0, x1) x [y0, y1) (absolute
// coordinates; parity from them, 15444-1 F.3.2 / F.4.2). Buffers are addressed relative to the
// first sample of the resolution; pitches are in samples. With wl = ceil(x1/2) - ceil(x0/2)
// and hl = ceil(y1/2) - ceil(y0/2) the subbands lie as in the Mallat arrangement:
//   LL: `ll` at (0, 0), size wl x hl         HL: `bands` at (wl, 0)
//   LH: `bands` at (0, hl)                   HH: `bands` at (wl, hl)
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gj2k::transform::cuda {

template <class T>
struct LevelFwdArgs {
  const T* src = nullptr;  // the w x h samples of the resolution
  size_t src_pitch = 0;
  T* bands = nullptr;  // HL, LH, HH at their Mallat offsets (the LL corner is not written)
  size_t bands_pitch = 0;
  T* ll = nullptr;  // LL (may be `bands` itself: then the whole arrangement is written)
  size_t ll_pitch = 0;
  uint32_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

template <class T>
struct LevelInvArgs {
  const T* bands = nullptr;  // HL, LH, HH at their Mallat offsets
  size_t bands_pitch = 0;
  const T* ll = nullptr;  // LL
  size_t ll_pitch = 0;
  T* dst = nullptr;  // the reconstructed w x h samples
  size_t dst_pitch = 0;
  uint32_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

// Tile shapes of the block-based single-pass kernels (Kula et al.): each thread block loads a
// TW x TH tile plus its lifting halo into shared memory, lifts both directions there, and
// writes the four subbands once. Chosen by the dispatch layer per device.
enum class BlockTile { k64x32, k128x16 };

// Block-based single-pass level transform, src/bands/ll must not overlap the output.
void launch_block_fwd53(const LevelFwdArgs<int32_t>& a, BlockTile tile, int max_grid_y,
                        cudaStream_t stream);
void launch_block_fwd97(const LevelFwdArgs<float>& a, BlockTile tile, int max_grid_y,
                        cudaStream_t stream);
void launch_block_inv53(const LevelInvArgs<int32_t>& a, BlockTile tile, int max_grid_y,
                        cudaStream_t stream);
void launch_block_inv97(const LevelInvArgs<float>& a, BlockTile tile, int max_grid_y,
                        cudaStream_t stream);

// Fused single-pass kernels (dwt_fused_kernels.cu): 128-column windows, one thread per column
// for the vertical lifting in registers, warp shuffles for the horizontal; tile rows per block.
enum class FusedRows { k16, k32 };

void launch_fused_fwd53(const LevelFwdArgs<int32_t>& a, FusedRows rows, int max_grid_y,
                        cudaStream_t stream);
void launch_fused_fwd97(const LevelFwdArgs<float>& a, FusedRows rows, int max_grid_y,
                        cudaStream_t stream);
void launch_fused_inv53(const LevelInvArgs<int32_t>& a, FusedRows rows, int max_grid_y,
                        cudaStream_t stream);
void launch_fused_inv97(const LevelInvArgs<float>& a, FusedRows rows, int max_grid_y,
                        cudaStream_t stream);

// In-place separable kernels after van der Laan et al. (dwt_laan_kernels.cu).
// Vertical pass over the level's w x h region at `data` (pitch in samples); `tmp` holds
// ceil(h/2) rows of w samples: forward, the high rows it writes (the caller copies them to rows
// [hl, h) afterwards); inverse, the low rows the caller copied there before.
template <class T>
struct LaanVertArgs {
  T* data = nullptr;
  size_t pitch = 0;
  T* tmp = nullptr;
  size_t tmp_pitch = 0;
  uint32_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};
// Horizontal pass over `rows` rows of [x0, x1) at `data`: each row in shared memory
// (x1 - x0 samples must fit; see laan_max_row).
template <class T>
struct LaanRowArgs {
  T* data = nullptr;
  size_t pitch = 0;
  uint32_t rows = 0;
  uint32_t x0 = 0, x1 = 0;
};
void launch_laan_vertical53(const LaanVertArgs<int32_t>& a, bool forward, cudaStream_t stream);
void launch_laan_vertical97(const LaanVertArgs<float>& a, bool forward, cudaStream_t stream);
void launch_laan_rows53(const LaanRowArgs<int32_t>& a, bool forward, cudaStream_t stream);
void launch_laan_rows97(const LaanRowArgs<float>& a, bool forward, cudaStream_t stream);

// Single-kernel lattice 1-D passes after Puchala and Stokfiszewski (dwt_lattice_kernels.cu).
// One pass transforms `nlines` lines of the absolute coordinate range [a0, a1) out of place.
// Line l, position k is at ptr + l * ls + k * es (rows: ls = pitch, es = 1; columns: ls = 1,
// es = pitch). Forward reads interleaved samples (k = coordinate - a0) and writes the
// deinterleaved line (lows at [0, nl), highs at [nl, n), nl = ceil(a1/2) - ceil(a0/2));
// inverse the reverse. 9/7: the K scaling of this direction is applied.
template <class T>
struct LatticeArgs {
  const T* in = nullptr;
  size_t in_ls = 0, in_es = 0;
  T* out = nullptr;
  size_t out_ls = 0, out_es = 0;
  uint32_t nlines = 0;
  uint32_t a0 = 0, a1 = 0;
};
void launch_lattice53(const LatticeArgs<int32_t>& a, bool columns, bool forward,
                      cudaStream_t stream);
void launch_lattice97(const LatticeArgs<float>& a, bool columns, bool forward, cudaStream_t stream);

// In-place 1-D passes over a unified buffer after Ikuzawa et al. (dwt_inplace_kernels.cu).
// Lines as for LatticeArgs (same ls / es convention), transformed in place: forward turns the
// interleaved line into [lows | highs], inverse back. `seeds` (device memory) holds the
// representative elements of the chunk rearrangement's circular permutations for this line
// length (inplace_seeds()).
template <class T>
struct InplaceArgs {
  T* data = nullptr;
  size_t ls = 0, es = 0;
  uint32_t nlines = 0;
  uint32_t a0 = 0, a1 = 0;
  const uint32_t* seeds = nullptr;
  uint32_t nseeds = 0;
};
// Elements per chunk (the paper's b; 512 bytes of 4-byte samples).
inline constexpr uint32_t kInplaceChunk = 128;
void launch_inplace53(const InplaceArgs<int32_t>& a, bool columns, bool forward,
                      cudaStream_t stream);
void launch_inplace97(const InplaceArgs<float>& a, bool columns, bool forward, cudaStream_t stream);

}  // namespace gj2k::transform::cuda
