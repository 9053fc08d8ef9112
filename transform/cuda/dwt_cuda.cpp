// Dispatch layer of the GPU DWT: validates arguments, walks the decomposition levels, places
// each level's LL in scratch or in the destination, and picks the launch policy.
#include "transform/cuda/dwt_cuda.h"

#include <cstring>
#include <string>
#include <vector>

#include "gj2k/error.h"
#include "transform/cuda/cuda_check.h"
#include "transform/cuda/dwt_kernels.h"

namespace gj2k::transform::cuda {
namespace {

constexpr size_t kAlign = 256;
size_t align_up(size_t n) {
  return (n + kAlign - 1) / kAlign * kAlign;
}

// The rectangle of resolution `shift` steps below tc: ceil(tc / 2^shift) (B-14).
Rect scaled(const Rect& tc, int shift) {
  return {ceil_div_pow2(tc.x0, shift), ceil_div_pow2(tc.y0, shift), ceil_div_pow2(tc.x1, shift),
          ceil_div_pow2(tc.y1, shift)};
}

// Scratch layout: [full copy (in-place only)] [T0: LL of level 1] [T1: LL of level 2].
struct Layout {
  size_t copy = 0, t0 = 0, t1 = 0;
  size_t total() const { return copy + t0 + t1; }
};
bool is_laan(GpuDwtVariant v) {
  return v == GpuDwtVariant::kLaan;
}

// Upper bound of the number of seeds for a line of n samples: the 2q chunks of the q full
// segments, minus the fixed chunks 0 and 2q - 1, in cycles of at least 2 (Ikuzawa et al.,
// Section 4.3).
size_t inplace_seed_bound(uint32_t n) {
  const size_t q = n / (2 * kInplaceChunk);
  return q >= 2 ? q - 1 : 0;
}

// Ikuzawa et al., Algorithm 3: the least element of every cycle of i -> 2i mod (2q - 1) over
// the chunks 1 .. 2q - 2 (chunks 0 and 2q - 1 stay in place). With q = 4 (their Fig. 3) the
// cycles are (1 2 4) and (3 6 5): seeds 1 and 3.
std::vector<uint32_t> inplace_seeds(uint32_t n) {
  std::vector<uint32_t> seeds;
  const uint64_t q = n / (2 * kInplaceChunk);
  if (q < 2) return seeds;
  const uint64_t m = 2 * q - 1;
  std::vector<char> seen(m, 0);
  for (uint64_t i = 1; i < m; ++i) {
    if (seen[i]) continue;
    seeds.push_back(static_cast<uint32_t>(i));
    for (uint64_t j = i; !seen[j]; j = 2 * j % m) seen[j] = 1;
  }
  return seeds;
}

int deepest_level(const Rect& tc, int levels) {
  for (int n = 1; n <= levels; ++n) {
    if (scaled(tc, n).empty()) return n;
  }
  return levels;
}

Layout layout(GpuDwtVariant v, const Rect& tc, int levels, bool in_place) {
  Layout l;
  if (tc.empty() || levels <= 0) return l;
  constexpr size_t s = 4;
  if (is_laan(v)) {  // half the rows of level 1, in place either way
    l.t0 = align_up(size_t{tc.width()} * ((tc.height() + 1) / 2) * s);
    return l;
  }
  if (v == GpuDwtVariant::kInplace) {  // the seeds of every level, columns and rows
    size_t seeds = 0;
    for (int n = 1; n <= deepest_level(tc, levels); ++n) {
      const Rect r = scaled(tc, n - 1);
      seeds += inplace_seed_bound(r.height()) + inplace_seed_bound(r.width());
    }
    l.t0 = align_up(seeds * sizeof(uint32_t));
    return l;
  }
  if (v == GpuDwtVariant::kLattice) {  // one out-of-place 1-D pass of level 1
    l.t0 = align_up(tc.area() * s);
    return l;
  }
  if (in_place) l.copy = align_up(tc.area() * s);
  if (levels >= 2) l.t0 = align_up(scaled(tc, 1).area() * s);
  if (levels >= 3) l.t1 = align_up(scaled(tc, 2).area() * s);
  return l;
}

struct Policy {
  bool fused = true;
  BlockTile tile = BlockTile::k64x32;
  FusedRows rows = FusedRows::k32;
  int max_grid_y = 65535;
};
Policy policy_for(GpuDwtVariant v, bool forward) {
  Policy p;
  int dev = 0;
  GJ2K_CUDA_CHECK(cudaGetDevice(&dev));
  GJ2K_CUDA_CHECK(cudaDeviceGetAttribute(&p.max_grid_y, cudaDevAttrMaxGridDimY, dev));
  // kDefault: the fastest correct variant on sm_90 (bench_gpu_dwt; docs/PERFORMANCE.md).
  if (v == GpuDwtVariant::kDefault)
    v = forward ? GpuDwtVariant::kFusedShort : GpuDwtVariant::kFused;
  p.fused = v == GpuDwtVariant::kFused || v == GpuDwtVariant::kFusedShort;
  p.tile = v == GpuDwtVariant::kBlockWide ? BlockTile::k128x16 : BlockTile::k64x32;
  p.rows = v == GpuDwtVariant::kFusedShort ? FusedRows::k16 : FusedRows::k32;
  return p;
}

void validate(const char* fn, const Rect& tc, int levels, const void* a, size_t pa, const void* b,
              size_t pb, size_t have_ws, size_t need_ws, const void* ws) {
  const std::string where = std::string(fn) + ": ";
  if (levels < 0 || levels > kMaxLevels)
    throw Error(ErrorCode::kInvalidArgument,
                where + "levels " + std::to_string(levels) + " outside 0..32");
  if (tc.empty()) return;
  if (!a || !b) throw Error(ErrorCode::kInvalidArgument, where + "null device buffer");
  if (pa < tc.width() || pb < tc.width())
    throw Error(
        ErrorCode::kInvalidArgument,
        where + "pitch smaller than the tile-component width " + std::to_string(tc.width()));
  if (have_ws < need_ws || (need_ws > 0 && !ws))
    throw Error(ErrorCode::kInvalidArgument, where + "workspace of " + std::to_string(have_ws) +
                                                 " bytes, " + std::to_string(need_ws) +
                                                 " needed (dwt_workspace_bytes)");
}

template <class T>
void copy2d(T* dst, size_t dp, const T* src, size_t sp, const Rect& r, cudaStream_t st) {
  if (dp == r.width() && sp == r.width()) {  // contiguous: the faster 1-D copy
    GJ2K_CUDA_CHECK(cudaMemcpyAsync(dst, src, r.area() * sizeof(T), cudaMemcpyDeviceToDevice, st));
    return;
  }
  GJ2K_CUDA_CHECK(cudaMemcpy2DAsync(dst, dp * sizeof(T), src, sp * sizeof(T),
                                    size_t{r.width()} * sizeof(T), r.height(),
                                    cudaMemcpyDeviceToDevice, st));
}

void launch_fwd(const LevelFwdArgs<int32_t>& a, const Policy& p, cudaStream_t st) {
  if (p.fused)
    launch_fused_fwd53(a, p.rows, p.max_grid_y, st);
  else
    launch_block_fwd53(a, p.tile, p.max_grid_y, st);
}
void launch_fwd(const LevelFwdArgs<float>& a, const Policy& p, cudaStream_t st) {
  if (p.fused)
    launch_fused_fwd97(a, p.rows, p.max_grid_y, st);
  else
    launch_block_fwd97(a, p.tile, p.max_grid_y, st);
}
void launch_inv(const LevelInvArgs<int32_t>& a, const Policy& p, cudaStream_t st) {
  if (p.fused)
    launch_fused_inv53(a, p.rows, p.max_grid_y, st);
  else
    launch_block_inv53(a, p.tile, p.max_grid_y, st);
}
void launch_inv(const LevelInvArgs<float>& a, const Policy& p, cudaStream_t st) {
  if (p.fused)
    launch_fused_inv97(a, p.rows, p.max_grid_y, st);
  else
    launch_block_inv97(a, p.tile, p.max_grid_y, st);
}

// Forward: level n reads the LL of level n-1 (src for n = 1, else scratch T[(n-2)%2]) and
// writes HL/LH/HH into dst at their final places; its LL goes to T[(n-1)%2], or to dst at the
// last level (or when it is empty, which ends the decomposition).
template <class T>
void forward_oop(GpuDwtVariant v, const T* src, size_t sp, T* dst, size_t dp, const Rect& tc,
                 int levels, void* ws, cudaStream_t st, const Layout& lay) {
  if (tc.empty()) return;
  if (levels == 0) return copy2d(dst, dp, src, sp, tc, st);
  const Policy pol = policy_for(v, true);
  char* base = static_cast<char*>(ws) + lay.copy;
  T* tmp[2] = {reinterpret_cast<T*>(base), reinterpret_cast<T*>(base + lay.t0)};
  const T* in = src;
  size_t in_pitch = sp;
  for (int n = 1; n <= levels; ++n) {
    const Rect r = scaled(tc, n - 1), ll = scaled(tc, n);
    const bool last = n == levels || ll.empty();
    LevelFwdArgs<T> a;
    a.src = in;
    a.src_pitch = in_pitch;
    a.bands = dst;
    a.bands_pitch = dp;
    a.ll = last ? dst : tmp[(n - 1) % 2];
    a.ll_pitch = last ? dp : ll.width();
    a.x0 = r.x0, a.y0 = r.y0, a.x1 = r.x1, a.y1 = r.y1;
    launch_fwd(a, pol, st);
    if (last) break;
    in = a.ll;
    in_pitch = a.ll_pitch;
  }
}

// Inverse: from the deepest non-empty level down; level n's output (the LL of level n-1)
// goes to T[n%2], or to dst for n = 1.
template <class T>
void inverse_oop(GpuDwtVariant v, const T* src, size_t sp, T* dst, size_t dp, const Rect& tc,
                 int levels, void* ws, cudaStream_t st, const Layout& lay) {
  if (tc.empty()) return;
  if (levels == 0) return copy2d(dst, dp, src, sp, tc, st);
  int deepest = levels;
  for (int n = 1; n <= levels; ++n) {
    if (scaled(tc, n).empty()) {
      deepest = n;
      break;
    }
  }
  const Policy pol = policy_for(v, false);
  char* base = static_cast<char*>(ws) + lay.copy;
  T* tmp[2] = {reinterpret_cast<T*>(base), reinterpret_cast<T*>(base + lay.t0)};
  const T* ll = src;
  size_t ll_pitch = sp;
  for (int n = deepest; n >= 1; --n) {
    const Rect r = scaled(tc, n - 1);
    LevelInvArgs<T> a;
    a.bands = src;
    a.bands_pitch = sp;
    a.ll = ll;
    a.ll_pitch = ll_pitch;
    a.dst = n == 1 ? dst : tmp[n % 2];
    a.dst_pitch = n == 1 ? dp : r.width();
    a.x0 = r.x0, a.y0 = r.y0, a.x1 = r.x1, a.y1 = r.y1;
    launch_inv(a, pol, st);
    ll = a.dst;
    ll_pitch = a.dst_pitch;
  }
}

void launch_laan_vertical(const LaanVertArgs<int32_t>& a, bool fwd, cudaStream_t st) {
  launch_laan_vertical53(a, fwd, st);
}
void launch_laan_vertical(const LaanVertArgs<float>& a, bool fwd, cudaStream_t st) {
  launch_laan_vertical97(a, fwd, st);
}
void launch_laan_rows(const LaanRowArgs<int32_t>& a, bool fwd, cudaStream_t st) {
  launch_laan_rows53(a, fwd, st);
}
void launch_laan_rows(const LaanRowArgs<float>& a, bool fwd, cudaStream_t st) {
  launch_laan_rows97(a, fwd, st);
}

// The widest row the in-place horizontal pass holds in shared memory.
size_t laan_max_row() {
  int dev = 0, bytes = 0;
  GJ2K_CUDA_CHECK(cudaGetDevice(&dev));
  GJ2K_CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  return static_cast<size_t>(bytes) / 4;
}

// In place, van der Laan et al.: per level, forward = vertical pass (highs parked in scratch,
// then copied below the lows) + horizontal pass; inverse = horizontal pass + (lows copied to
// scratch) vertical pass.
template <class T>
void laan_inplace(bool forward, T* p, size_t pitch, const Rect& tc, int levels, void* ws,
                  cudaStream_t st) {
  if (tc.empty() || levels == 0) return;
  if (tc.width() > laan_max_row())
    throw Error(ErrorCode::kUnsupported,
                "GPU DWT variant laan: rows of " + std::to_string(tc.width()) +
                    " samples exceed shared memory (" + std::to_string(laan_max_row()) +
                    "); use the fused variant");
  T* tmp = static_cast<T*>(ws);
  int deepest = levels;
  for (int n = 1; n <= levels; ++n) {
    if (scaled(tc, n).empty()) {
      deepest = n;
      break;
    }
  }
  for (int i = 0; i < deepest; ++i) {
    const int n = forward ? i + 1 : deepest - i;
    const Rect r = scaled(tc, n - 1);
    const uint32_t w = r.width(), h = r.height(), hl = scaled(tc, n).height(), hh = h - hl;
    LaanVertArgs<T> v;
    v.data = p, v.pitch = pitch, v.tmp = tmp, v.tmp_pitch = w;
    v.x0 = r.x0, v.y0 = r.y0, v.x1 = r.x1, v.y1 = r.y1;
    LaanRowArgs<T> rows;
    rows.data = p, rows.pitch = pitch, rows.rows = h, rows.x0 = r.x0, rows.x1 = r.x1;
    if (forward) {
      launch_laan_vertical(v, true, st);
      if (hh > 0) copy2d(p + size_t{hl} * pitch, pitch, tmp, w, Rect{0, 0, w, hh}, st);
      launch_laan_rows(rows, true, st);
    } else {
      launch_laan_rows(rows, false, st);
      if (hl > 0) copy2d(tmp, w, p, pitch, Rect{0, 0, w, hl}, st);
      launch_laan_vertical(v, false, st);
    }
  }
}

void launch_inplace(const InplaceArgs<int32_t>& a, bool cols, bool fwd, cudaStream_t st) {
  launch_inplace53(a, cols, fwd, st);
}
void launch_inplace(const InplaceArgs<float>& a, bool cols, bool fwd, cudaStream_t st) {
  launch_inplace97(a, cols, fwd, st);
}
void launch_lattice(const LatticeArgs<int32_t>& a, bool cols, bool fwd, cudaStream_t st) {
  launch_lattice53(a, cols, fwd, st);
}
void launch_lattice(const LatticeArgs<float>& a, bool cols, bool fwd, cudaStream_t st) {
  launch_lattice97(a, cols, fwd, st);
}

// In place over a unified buffer, Ikuzawa et al.: per level, forward = column pass then row
// pass (2D_SD, F.3.2), inverse = rows then columns; each pass in place (dwt_inplace_kernels.cu).
// The seeds of all levels are computed on the host and uploaded once into the workspace.
template <class T>
void inplace_run(bool forward, T* p, size_t pitch, const Rect& tc, int levels, void* ws,
                 cudaStream_t st) {
  if (tc.empty() || levels == 0) return;
  const int deepest = deepest_level(tc, levels);
  std::vector<uint32_t> seeds;
  std::vector<size_t> off_c(deepest + 1), off_r(deepest + 1);
  std::vector<uint32_t> cnt_c(deepest + 1), cnt_r(deepest + 1);
  for (int n = 1; n <= deepest; ++n) {
    const Rect r = scaled(tc, n - 1);
    for (int dir = 0; dir < 2; ++dir) {
      const std::vector<uint32_t> s = inplace_seeds(dir == 0 ? r.height() : r.width());
      (dir == 0 ? off_c : off_r)[n] = seeds.size();
      (dir == 0 ? cnt_c : cnt_r)[n] = static_cast<uint32_t>(s.size());
      seeds.insert(seeds.end(), s.begin(), s.end());
    }
  }
  uint32_t* d_seeds = static_cast<uint32_t*>(ws);
  if (!seeds.empty())  // from pageable memory: staged before the call returns
    GJ2K_CUDA_CHECK(cudaMemcpyAsync(d_seeds, seeds.data(), seeds.size() * sizeof(uint32_t),
                                    cudaMemcpyHostToDevice, st));
  for (int i = 0; i < deepest; ++i) {
    const int n = forward ? i + 1 : deepest - i;
    const Rect r = scaled(tc, n - 1);
    InplaceArgs<T> cols, rows;
    cols.data = rows.data = p;
    cols.ls = 1, cols.es = pitch, cols.nlines = r.width(), cols.a0 = r.y0, cols.a1 = r.y1;
    cols.seeds = d_seeds + off_c[n], cols.nseeds = cnt_c[n];
    rows.ls = pitch, rows.es = 1, rows.nlines = r.height(), rows.a0 = r.x0, rows.a1 = r.x1;
    rows.seeds = d_seeds + off_r[n], rows.nseeds = cnt_r[n];
    if (forward) {
      launch_inplace(cols, true, true, st);
      launch_inplace(rows, false, true, st);
    } else {
      launch_inplace(rows, false, false, st);
      launch_inplace(cols, true, false, st);
    }
  }
}

// Lattice, Puchala and Stokfiszewski: per level, forward = column kernel (level region -> S)
// then row kernel (S -> level region); inverse the reverse. Level 1 of the forward transform
// reads `src` (the input, which may be the buffer itself).
template <class T>
void lattice_run(bool forward, const T* src, size_t sp, T* p, size_t pitch, const Rect& tc,
                 int levels, void* ws, cudaStream_t st) {
  if (tc.empty() || levels == 0) return;
  T* s = static_cast<T*>(ws);
  const int deepest = deepest_level(tc, levels);
  for (int i = 0; i < deepest; ++i) {
    const int n = forward ? i + 1 : deepest - i;
    const Rect r = scaled(tc, n - 1);
    const uint32_t w = r.width(), h = r.height();
    LatticeArgs<T> cols, rows;
    cols.nlines = w, cols.a0 = r.y0, cols.a1 = r.y1;
    rows.nlines = h, rows.a0 = r.x0, rows.a1 = r.x1;
    if (forward) {
      cols.in = n == 1 ? src : p, cols.in_ls = 1, cols.in_es = n == 1 ? sp : pitch;
      cols.out = s, cols.out_ls = 1, cols.out_es = w;
      rows.in = s, rows.in_ls = w, rows.in_es = 1;
      rows.out = p, rows.out_ls = pitch, rows.out_es = 1;
      launch_lattice(cols, true, true, st);
      launch_lattice(rows, false, true, st);
    } else {
      rows.in = p, rows.in_ls = pitch, rows.in_es = 1;
      rows.out = s, rows.out_ls = w, rows.out_es = 1;
      cols.in = s, cols.in_ls = 1, cols.in_es = w;
      cols.out = p, cols.out_ls = 1, cols.out_es = pitch;
      launch_lattice(rows, false, false, st);
      launch_lattice(cols, true, false, st);
    }
  }
}

template <class T>
void run_oop(bool forward, const char* fn, GpuDwtVariant v, const T* src, size_t sp, T* dst,
             size_t dp, const Rect& tc, int levels, void* ws, size_t wsb, cudaStream_t st) {
  const Layout lay = layout(v, tc, levels, false);
  validate(fn, tc, levels, src, sp, dst, dp, wsb, lay.total(), ws);
  if (is_laan(v) || v == GpuDwtVariant::kInplace) {  // copy, then in place in dst
    if (tc.empty()) return;
    copy2d(dst, dp, src, sp, tc, st);
    if (v == GpuDwtVariant::kInplace) return inplace_run(forward, dst, dp, tc, levels, ws, st);
    return laan_inplace(forward, dst, dp, tc, levels, ws, st);
  }
  if (v == GpuDwtVariant::kLattice) {
    if (tc.empty()) return;
    if (levels == 0 || !forward) copy2d(dst, dp, src, sp, tc, st);
    return lattice_run(forward, src, sp, dst, dp, tc, levels, ws, st);
  }
  if (forward)
    forward_oop(v, src, sp, dst, dp, tc, levels, ws, st, lay);
  else
    inverse_oop(v, src, sp, dst, dp, tc, levels, ws, st, lay);
}

template <class T>
void run_inplace(bool forward, const char* fn, GpuDwtVariant v, T* p, size_t pitch, const Rect& tc,
                 int levels, void* ws, size_t wsb, cudaStream_t st) {
  const Layout lay = layout(v, tc, levels, true);
  validate(fn, tc, levels, p, pitch, p, pitch, wsb, lay.total(), ws);
  if (tc.empty() || levels == 0) return;
  if (is_laan(v)) return laan_inplace(forward, p, pitch, tc, levels, ws, st);
  if (v == GpuDwtVariant::kInplace) return inplace_run(forward, p, pitch, tc, levels, ws, st);
  if (v == GpuDwtVariant::kLattice)
    return lattice_run(forward, p, pitch, p, pitch, tc, levels, ws, st);
  T* copy = static_cast<T*>(ws);
  copy2d(copy, tc.width(), p, pitch, tc, st);
  if (forward)
    forward_oop<T>(v, copy, tc.width(), p, pitch, tc, levels, ws, st, lay);
  else
    inverse_oop<T>(v, copy, tc.width(), p, pitch, tc, levels, ws, st, lay);
}

}  // namespace

const char* to_string(GpuDwtVariant v) {
  switch (v) {
    case GpuDwtVariant::kDefault:
      return "default";
    case GpuDwtVariant::kBlock:
      return "block";
    case GpuDwtVariant::kBlockWide:
      return "block-wide";
    case GpuDwtVariant::kFused:
      return "fused";
    case GpuDwtVariant::kFusedShort:
      return "fused-short";
    case GpuDwtVariant::kLaan:
      return "laan";
    case GpuDwtVariant::kInplace:
      return "inplace";
    case GpuDwtVariant::kLattice:
      return "lattice";
  }
  return "?";
}

GpuDwtVariant parse_gpu_dwt_variant(const char* name) {
  for (GpuDwtVariant v : kAllGpuDwtVariants) {
    if (std::strcmp(name, to_string(v)) == 0) return v;
  }
  throw Error(ErrorCode::kInvalidArgument,
              std::string("unknown GPU DWT variant '") + name +
                  "' (default|block|block-wide|fused|fused-short|laan|inplace|lattice)");
}

size_t dwt_workspace_bytes(GpuDwtVariant v, const Rect& tc, int levels, bool in_place) {
  return layout(v, tc, levels, in_place).total();
}

void dwt53_forward(GpuDwtVariant v, DevicePlane<const int32_t> src, DevicePlane<int32_t> dst,
                   const Rect& tc, int levels, void* ws, size_t wsb, cudaStream_t st) {
  run_oop(true, "dwt53_forward", v, src.d_data, src.pitch, dst.d_data, dst.pitch, tc, levels, ws,
          wsb, st);
}
void dwt53_inverse(GpuDwtVariant v, DevicePlane<const int32_t> src, DevicePlane<int32_t> dst,
                   const Rect& tc, int levels, void* ws, size_t wsb, cudaStream_t st) {
  run_oop(false, "dwt53_inverse", v, src.d_data, src.pitch, dst.d_data, dst.pitch, tc, levels, ws,
          wsb, st);
}
void dwt97_forward(GpuDwtVariant v, DevicePlane<const float> src, DevicePlane<float> dst,
                   const Rect& tc, int levels, void* ws, size_t wsb, cudaStream_t st) {
  run_oop(true, "dwt97_forward", v, src.d_data, src.pitch, dst.d_data, dst.pitch, tc, levels, ws,
          wsb, st);
}
void dwt97_inverse(GpuDwtVariant v, DevicePlane<const float> src, DevicePlane<float> dst,
                   const Rect& tc, int levels, void* ws, size_t wsb, cudaStream_t st) {
  run_oop(false, "dwt97_inverse", v, src.d_data, src.pitch, dst.d_data, dst.pitch, tc, levels, ws,
          wsb, st);
}

void dwt53_forward(GpuDwtVariant v, DevicePlane<int32_t> p, const Rect& tc, int levels, void* ws,
                   size_t wsb, cudaStream_t st) {
  run_inplace(true, "dwt53_forward (in place)", v, p.d_data, p.pitch, tc, levels, ws, wsb, st);
}
void dwt53_inverse(GpuDwtVariant v, DevicePlane<int32_t> p, const Rect& tc, int levels, void* ws,
                   size_t wsb, cudaStream_t st) {
  run_inplace(false, "dwt53_inverse (in place)", v, p.d_data, p.pitch, tc, levels, ws, wsb, st);
}
void dwt97_forward(GpuDwtVariant v, DevicePlane<float> p, const Rect& tc, int levels, void* ws,
                   size_t wsb, cudaStream_t st) {
  run_inplace(true, "dwt97_forward (in place)", v, p.d_data, p.pitch, tc, levels, ws, wsb, st);
}
void dwt97_inverse(GpuDwtVariant v, DevicePlane<float> p, const Rect& tc, int levels, void* ws,
                   size_t wsb, cudaStream_t st) {
  run_inplace(false, "dwt97_inverse (in place)", v, p.d_data, p.pitch, tc, levels, ws, wsb, st);
}

}  // namespace gj2k::transform::cuda
