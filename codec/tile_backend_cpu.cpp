// The CPU backend of the per-tile stages (tile_backend.h).
#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "codec/encoder_internal.h"
#include "codec/input_buffer.h"
#include "codec/parallel.h"
#include "codec/sample_cache.h"
#include "codec/tile_backend.h"
#include "codec/trace.h"
#include "core/memory.h"
#include "core/thread_pool.h"
#include "gj2k/error.h"
#include "transform/dwt.h"
#include "transform/dwt_cpu.h"
#include "transform/mct.h"
#include "transform/pack.h"
#include "transform/quant.h"

namespace gj2k::codec {
namespace {

using transform::Band;
using transform::Rect;

// fn(first, count) over the samples of a plane that are needed: all of them, or the rows of
// its window, in parallel on `threads` threads.
template <class Fn>
void over_needed(const CoefficientPlane& p, int threads, const Fn& fn) {
  const size_t pitch = p.rect.width();
  if (!p.window) {
    in_chunks(p.rect.area(), fn, threads);
    return;
  }
  const Rect& w = *p.window;
  const size_t rows = size_t{w.y1} - w.y0;
  const int team = threads > 0 ? threads : core::max_threads();
  core::parallel_for_static(
      0, rows, [&](size_t k) { fn((w.y0 + k) * pitch + w.x0, w.width()); },
      rows * w.width() >= (size_t{1} << 16) ? team : 1);
}

// body(k, len) for the pieces [k, k + len) of [0, n), kPiece values at most: a conversion
// between the floats and the integers of one storage (CoefficientPlane) goes through a piece
// on the stack, so that no loop reads memory that it writes as the other type.
constexpr size_t kPiece = 1024;
template <class Fn>
void in_pieces(size_t n, const Fn& body) {
  for (size_t k = 0; k < n; k += kPiece) body(k, std::min(kPiece, n - k));
}

// The inverse DWT of one plane, over its window when it has one (dwt_cpu.h).
void inverse_dwt(CoefficientPlane& p) {
  const Rect& rect = p.rect;
  if (rect.empty()) return;
  if (p.window) {
    const Rect& w = *p.window;
    const Rect want{rect.x0 + w.x0, rect.y0 + w.y0, rect.x0 + w.x1, rect.y0 + w.y1};
    if (p.reversible)
      transform::cpu::inverse53_window({p.ints.data(), rect.width()}, rect, p.levels, want);
    else
      transform::cpu::inverse97_window({p.floats(), rect.width()}, rect, p.levels, want);
    return;
  }
  const auto& ops = transform::dwt_ops(transform::codec_cpu_dwt());
  if (p.reversible)
    ops.inverse53({p.ints.data(), rect.width()}, rect, p.levels);
  else
    ops.inverse97({p.floats(), rect.width()}, rect, p.levels);
}

// Mixed kernels before the ICT (G.3): the integers of components 0..2 that are 5/3 taken to
// floats, in place.
void floats_for_ict(std::span<CoefficientPlane> planes, int threads) {
  for (size_t c = 0; c < 3; ++c)
    if (planes[c].reversible) {
      CoefficientPlane& m = planes[c];
      over_needed(m, threads, [&](size_t i, size_t len) {
        in_pieces(len, [&](size_t k, size_t l) {
          float t[kPiece];
          std::copy_n(m.ints.data() + i + k, l, t);
          std::memcpy(m.ints.data() + i + k, t, l * sizeof(float));
        });
      });
    }
}

// The DC shifts and sample ranges of components 0..2 (G.1.2), as the colour transforms take
// them.
struct ColourBounds {
  int32_t offset[3], lo[3], hi[3];
};
ColourBounds colour_bounds(std::span<const CoefficientPlane> planes) {
  ColourBounds b;
  for (size_t c = 0; c < 3; ++c) {
    b.offset[c] = planes[c].offset;
    b.lo[c] = planes[c].lo;
    b.hi[c] = planes[c].hi;
  }
  return b;
}

// G.2 / G.3 with the DC shift and clipping of components 0..2, into out[0..2].
void inverse_mct(std::span<CoefficientPlane> planes, int threads,
                 std::vector<TileComponentSamples>& out) {
  const ColourBounds b = colour_bounds(planes);
  const int32_t *offset = b.offset, *lo = b.lo, *hi = b.hi;
  if (planes[0].reversible && planes[1].reversible && planes[2].reversible) {
    int32_t* p[3] = {planes[0].ints.data(), planes[1].ints.data(), planes[2].ints.data()};
    over_needed(planes[0], threads, [&](size_t i, size_t len) {
      transform::rct_inverse_dc_shift(p[0] + i, p[1] + i, p[2] + i, len, offset, lo, hi);
    });
    for (size_t c = 0; c < 3; ++c) {
      out[c].rect = planes[c].rect;
      out[c].samples = std::move(planes[c].ints);
    }
    return;
  }
  floats_for_ict(planes, threads);
  // The samples replace the floats in their own storage.
  const float* f[3] = {planes[0].floats(), planes[1].floats(), planes[2].floats()};
  int32_t* d[3] = {planes[0].ints.data(), planes[1].ints.data(), planes[2].ints.data()};
  over_needed(planes[0], threads, [&](size_t i, size_t len) {
    in_pieces(len, [&](size_t k, size_t l) {
      int32_t t[3][kPiece];
      const size_t at = i + k;
      transform::ict_inverse_dc_shift(f[0] + at, f[1] + at, f[2] + at, t[0], t[1], t[2], l, offset,
                                      lo, hi);
      for (size_t c = 0; c < 3; ++c) std::memcpy(d[c] + at, t[c], l * sizeof(int32_t));
    });
  });
  for (size_t c = 0; c < 3; ++c) {
    out[c].rect = planes[c].rect;
    out[c].samples = std::move(planes[c].ints);
  }
}

// The inverse MCT's precondition (TileBackend::inverse): components 0..2 decoded, one rect
// and window.
void check_mct_planes(std::span<const CoefficientPlane> planes) {
  if (planes.size() < 3) throw Error(ErrorCode::kInternal, "cpu backend: MCT needs 3 planes");
  for (size_t c = 0; c < 3; ++c)
    if (!planes[c].decode || planes[c].rect != planes[0].rect ||
        planes[c].window != planes[0].window)
      throw Error(ErrorCode::kInternal,
                  "cpu backend: MCT components 0..2 must be decoded with equal sizes");
}

// Whether inverse_mct_packed can take components 0..2 (`pack`, as the CUDA backend's
// colour_packs): an interleaved target whose outputs include 0..2 and all have the tile's rect,
// every output decoded and wanted.
bool colour_packs(std::span<const CoefficientPlane> planes, const PackTarget* pack) {
  if (!pack || !pack->interleaved || planes.size() < 3 || planes[0].rect.empty()) return false;
  for (size_t c = 0; c < planes.size(); ++c) {
    const bool output = c < pack->components.size() && pack->components[c].k >= 0;
    if (!output) {
      if (c < 3) return false;
      continue;
    }
    const CoefficientPlane& p = planes[c];
    if (!p.decode || !p.wanted || p.rect != planes[0].rect) return false;
  }
  return true;
}

// Marks plane p's output packed into the caller's buffer (no samples).
void mark_packed(const CoefficientPlane& p, TileComponentSamples& out) {
  out.rect = p.rect;
  out.packed = true;
  Samples().swap(out.samples);
}

// Where components 0..2 of a colour_packs tile go in `pack`, and one row's colour transform,
// DC shift, clipping and packing (inverse_mct_packed, inverse_rows_packed): a row's pixels in
// pieces of kPiece, the colour transform into three pieces on the stack, then their bytes into the
// caller's buffer (transform::pack_pixels when components 0..2 are each pixel's first three
// samples, its 8-bit RGB loop pack_row_u8's; in another order a pack_rect each).
class ColourPacker {
 public:
  ColourPacker(std::span<const CoefficientPlane> planes, const PackTarget& pack)
      : b_(colour_bounds(planes)),
        pack_(pack),
        reversible_(planes[0].reversible && planes[1].reversible && planes[2].reversible) {
    for (size_t c = 0; c < 3; ++c) dst_[c] = pack.place(c, planes[0].rect, cut_);
    const uint32_t bytes = pack.format.bytes;
    in_order_ = dst_[1] == dst_[0] + bytes && dst_[2] == dst_[0] + 2 * bytes;
  }
  const Rect& cut() const { return cut_; }
  bool reversible() const { return reversible_; }
  // Row y of cut (0-based) from its first sample in each component: ints (reversible) or
  // floats. ints are transformed in place where `scratch` (rows the caller gives up), else
  // only read.
  void row(size_t y, int32_t* const* ints, const float* const* floats, bool scratch) const {
    const size_t width = cut_.width(), at = y * pack_.row_stride;
    in_pieces(width, [&](size_t k, size_t l) {
      int32_t t[3][kPiece];
      const int32_t* src[3] = {t[0], t[1], t[2]};
      if (reversible_ && scratch) {
        transform::rct_inverse_dc_shift(ints[0] + k, ints[1] + k, ints[2] + k, l, b_.offset, b_.lo,
                                        b_.hi);
        for (size_t c = 0; c < 3; ++c) src[c] = ints[c] + k;
      } else if (reversible_) {
        for (size_t c = 0; c < 3; ++c) std::memcpy(t[c], ints[c] + k, l * sizeof(int32_t));
        transform::rct_inverse_dc_shift(t[0], t[1], t[2], l, b_.offset, b_.lo, b_.hi);
      } else {
        transform::ict_inverse_dc_shift(floats[0] + k, floats[1] + k, floats[2] + k, t[0], t[1],
                                        t[2], l, b_.offset, b_.lo, b_.hi);
      }
      const transform::PackRect r{static_cast<uint32_t>(l), 1, l, pack_.row_stride,
                                  pack_.pixel_step};
      if (in_order_) {
        transform::pack_pixels(src, 3, dst_[0] + at + k * pack_.pixel_step, r, pack_.format, 1);
        return;
      }
      for (size_t c = 0; c < 3; ++c)
        transform::pack_rect(src[c], dst_[c] + at + k * pack_.pixel_step, r, pack_.format, 1);
    });
  }

 private:
  ColourBounds b_;
  const PackTarget& pack_;
  bool reversible_, in_order_ = false;
  uint8_t* dst_[3];
  Rect cut_;
};

// inverse_mct with the packing of components 0..2 into `pack` (colour_packs) in the same pass,
// so that no int32 sample is written back to the planes and read again to be packed. The same
// bytes as inverse_mct and then pack_rect (tests/codec/decode_into_test.cpp).
void inverse_mct_packed(std::span<CoefficientPlane> planes, int threads,
                        std::vector<TileComponentSamples>& out, const PackTarget& pack) {
  const ColourPacker packer(planes, pack);
  if (!packer.reversible()) floats_for_ict(planes, threads);
  const Rect& rect = planes[0].rect;
  const Rect& cut = packer.cut();
  const size_t rows = cut.empty() ? 0 : size_t{cut.y1} - cut.y0, width = cut.width();
  const int team = threads > 0 ? threads : core::max_threads();
  core::parallel_for(
      0, rows, 1,
      [&](size_t y) {
        const size_t at = (cut.y0 - rect.y0 + y) * size_t{rect.width()} + (cut.x0 - rect.x0);
        int32_t* ints[3];
        const float* floats[3];
        for (size_t c = 0; c < 3; ++c) {
          ints[c] = planes[c].ints.data() + at;
          floats[c] = planes[c].floats() + at;
        }
        packer.row(y, ints, floats, false);
      },
      rows * width >= (size_t{1} << 16) ? team : 1);
  for (size_t c = 0; c < 3; ++c) mark_packed(planes[c], out[c]);
}

// The output rows per band of inverse_rows_packed: as many as keep a band's lifting buffer
// (its rows and the 13 of filter reach around them, transform::cpu::inverse53_rows) of one
// component within kRowsBandBytes, at least kRowsBandMin (docs/PERFORMANCE.md, "Twenty-sixth
// run": 2,560 wide, 63 rows; 10,240 wide, 16).
constexpr size_t kRowsBandBytes = size_t{768} << 10, kRowsBandMin = 16, kRowsReach = 13;
// Wider tiles keep the whole-plane path, so that the band buffers each thread keeps
// (BandBuffers) stay within (kRowsBandMin + kRowsReach + 1) rows of this many samples each.
constexpr size_t kRowsMaxWidth = 16384;
size_t rows_band_height(size_t width) {
  const size_t fit = kRowsBandBytes / (width * sizeof(int32_t));
  return std::max(kRowsBandMin, fit > kRowsReach ? fit - kRowsReach : 0);
}

// Whether finest_level_bands can take plane p: the whole tile (no window) at most
// kRowsMaxWidth wide, at least one level, the lifting CPU DWT.
bool bands_fit(const CoefficientPlane& p) {
  return !p.window && p.levels >= 1 && p.rect.width() <= kRowsMaxWidth &&
         transform::codec_cpu_dwt() == transform::DwtVariant::kCpu;
}

// Whether inverse_rows_packed can take components 0..2 of a colour_packs tile: bands_fit each,
// and one kernel for all three.
bool rows_pack(std::span<const CoefficientPlane> planes) {
  for (size_t c = 0; c < 3; ++c)
    if (!bands_fit(planes[c]) || planes[c].reversible != planes[0].reversible) return false;
  return true;
}

// The coarser levels of a plane's inverse DWT (all but the finest), in place.
void inverse_coarse_levels(CoefficientPlane& p) {
  const auto& ops = transform::dwt_ops(transform::DwtVariant::kCpu);
  const Rect ll = transform::subband_rect(p.rect, 1, Band::kLL);
  if (p.reversible)
    ops.inverse53({p.ints.data(), p.rect.width()}, ll, p.levels - 1);
  else
    ops.inverse97({p.floats(), p.rect.width()}, ll, p.levels - 1);
}

// The band buffers of finest_level_bands, one set per thread (both of its uses share it), kept
// for later tiles: kRowsBandBytes and a row each up to 6,780 samples wide (about 0.8 MiB at
// 2,560), (kRowsBandMin + kRowsReach + 1) rows wider, at most 2 MiB each at kRowsMaxWidth
// (12 MiB for the six).
struct BandBuffers {
  std::vector<int32_t> ints[3];
  std::vector<float> floats[3];
  std::vector<int32_t*> irows[3];
  std::vector<float*> frows[3];
};
BandBuffers& band_buffers() {
  thread_local BandBuffers b;
  return b;
}

// The finest DWT level of the planes cs (one to three, one rect, their coarser levels done),
// in bands of output rows on the threads: each band's rows of each plane through
// transform::cpu::inverse53_rows / inverse97_rows (HOR_SR and VER_SR in a buffer that stays in
// cache), then row(y, ints, floats) for each of its rows inside `cut` (y from cut's first row;
// ints[k] / floats[k] at cut's first column of plane cs[k]'s row, as its kernel gives; the
// ints may be changed). Each thread keeps its band buffers (BandBuffers) for later tiles.
template <class Row>
void finest_level_bands(std::span<CoefficientPlane> planes, std::span<const size_t> cs,
                        const Rect& cut, int threads, const Row& row) {
  if (cut.empty()) return;
  const Rect& rect = planes[cs[0]].rect;
  const size_t first = cut.y0 - rect.y0, rows = size_t{cut.y1} - cut.y0;
  const size_t xoff = cut.x0 - rect.x0, band = rows_band_height(rect.width());
  const size_t bands = (rows + band - 1) / band;
  const int team = threads > 0 ? threads : core::max_threads();
  core::parallel_for(
      0, bands, 1,
      [&](size_t b) {
        const size_t y0 = first + b * band, y1 = std::min(first + rows, y0 + band);
        BandBuffers& buf = band_buffers();
        auto& ints = buf.ints;
        auto& floats = buf.floats;
        auto& irows = buf.irows;
        auto& frows = buf.frows;
        for (size_t k = 0; k < cs.size(); ++k) {
          CoefficientPlane& p = planes[cs[k]];
          if (p.reversible) {
            irows[k].resize(y1 - y0);
            transform::cpu::inverse53_rows({p.ints.data(), rect.width()}, rect, y0, y1, ints[k],
                                           irows[k].data());
          } else {
            frows[k].resize(y1 - y0);
            transform::cpu::inverse97_rows({p.floats(), rect.width()}, rect, y0, y1, floats[k],
                                           frows[k].data());
          }
        }
        for (size_t i = 0; i < y1 - y0; ++i) {
          int32_t* in[3] = {};
          const float* f[3] = {};
          for (size_t k = 0; k < cs.size(); ++k) {
            if (planes[cs[k]].reversible)
              in[k] = irows[k][i] + xoff;
            else
              f[k] = frows[k][i] + xoff;
          }
          row(y0 - first + i, in, f);
        }
      },
      rows * rect.width() >= (size_t{1} << 16) ? team : 1);
}

// The inverse DWT's finest level of components 0..2 with their colour stage and packing
// (rows_pack): the coarser levels as inverse_dwt, then finest_level_bands with each row
// straight through ColourPacker. The finest level reads each plane once and writes nothing
// back, where the whole-plane path reads and writes it in each of its two 1-D passes and the
// colour stage reads it again. The same bytes as inverse_dwt, inverse_mct and pack_rect
// (bit-identical rows, dwt_rows_test.cpp).
void inverse_rows_packed(std::span<CoefficientPlane> planes, int threads,
                         std::vector<TileComponentSamples>& out, const PackTarget& pack) {
  for (size_t c = 0; c < 3; ++c) inverse_coarse_levels(planes[c]);
  const ColourPacker packer(planes, pack);
  static constexpr size_t kColour[3] = {0, 1, 2};
  finest_level_bands(planes, kColour, packer.cut(), threads,
                     [&](size_t y, int32_t* const* ints, const float* const* floats) {
                       packer.row(y, ints, floats, true);
                     });
  for (size_t c = 0; c < 3; ++c) mark_packed(planes[c], out[c]);
}

// Whether inverse_single_rows_packed can take component c (no MCT): an output of `pack`,
// decoded and wanted, not empty, and bands_fit.
bool single_rows_pack(const CoefficientPlane& p, size_t c, const PackTarget* pack) {
  return pack && c < pack->components.size() && pack->components[c].k >= 0 && p.decode &&
         p.wanted && !p.rect.empty() && bands_fit(p);
}

// inverse_dwt and inverse_single of component c with its packing into `pack`
// (single_rows_pack) as inverse_rows_packed does for colour: the finest level in bands, each
// row's DC shift and clipping (G.1.2) and its bytes into the caller's buffer. The same bytes as
// inverse_dwt, inverse_single and pack_rect. Marks out packed.
void inverse_single_rows_packed(std::span<CoefficientPlane> planes, size_t c, int threads,
                                TileComponentSamples& out, const PackTarget& pack) {
  CoefficientPlane& p = planes[c];
  inverse_coarse_levels(p);
  Rect cut;
  uint8_t* const dst = pack.place(c, p.rect, cut);
  const size_t width = cut.width();
  const size_t cs[1] = {c};
  finest_level_bands(
      planes, cs, cut, threads, [&](size_t y, int32_t* const* ints, const float* const* floats) {
        uint8_t* const row = dst + y * pack.row_stride;
        if (p.reversible) {
          transform::dc_shift_inverse_clamp(ints[0], width, p.offset, p.lo, p.hi);
          const transform::PackRect r{static_cast<uint32_t>(width), 1, width, pack.row_stride,
                                      pack.pixel_step};
          transform::pack_rect(ints[0], row, r, pack.format, 1);
          return;
        }
        in_pieces(width, [&](size_t k, size_t l) {
          int32_t t[kPiece];
          transform::float_to_int_dc_shift(floats[0] + k, t, l, p.offset, p.lo, p.hi);
          const transform::PackRect r{static_cast<uint32_t>(l), 1, l, pack.row_stride,
                                      pack.pixel_step};
          transform::pack_rect(t, row + k * pack.pixel_step, r, pack.format, 1);
        });
      });
  mark_packed(p, out);
}

// G.1.2 and clipping of one component without MCT, into out.
void inverse_single(CoefficientPlane& p, int threads, TileComponentSamples& out) {
  out.rect = p.rect;
  if (p.reversible) {
    int32_t* s = p.ints.data();
    over_needed(p, threads, [&](size_t i, size_t len) {
      transform::dc_shift_inverse_clamp(s + i, len, p.offset, p.lo, p.hi);
    });
    out.samples = std::move(p.ints);
    return;
  }
  // The samples replace the floats in their own storage.
  const float* f = p.floats();
  int32_t* d = p.ints.data();
  over_needed(p, threads, [&](size_t i, size_t len) {
    in_pieces(len, [&](size_t k, size_t l) {
      int32_t t[kPiece];
      transform::float_to_int_dc_shift(f + i + k, t, l, p.offset, p.lo, p.hi);
      std::memcpy(d + i + k, t, l * sizeof(int32_t));
    });
  });
  out.samples = std::move(p.ints);
}

// ---- forward ------------------------------------------------------------------------------

// Where row 0 of tile-component c's rectangle r (B-12) starts in the image's samples; its rows
// are the component's width apart.
const int32_t* tile_component_origin(const Image& image, size_t c, const Rect& r) {
  const Component& comp = image.components[c];
  const auto [cx0, cy0] = first_sample(image, c);
  return comp.samples.data() + size_t{r.y0 - cy0} * comp.width + (r.x0 - cx0);
}

// fn(in, first, len) over the samples of rectangle r (packed rows of r.width()) of the K
// components cs (of one geometry) in pieces that stay within a row, where in[k] holds
// component cs[k]'s samples from packed position first: the image's own row, or with a
// caller's buffer (src, codec/input_buffer.h) a piece of at most kPiece converted to int32 on
// the stack. In parallel chunks.
template <size_t K, class Fn>
void over_tile_rows(const Image& image, const InputSource* src, const std::array<size_t, K>& cs,
                    const Rect& r, const Fn& fn) {
  if (r.empty()) return;
  const size_t w = r.width();
  std::array<const int32_t*, K> origin{};
  std::array<size_t, K> pitch{};
  std::array<uint32_t, K> bx{}, by{};  // the rect's first sample in the buffer
  for (size_t k = 0; k < K; ++k) {
    if (src) {
      const FirstSample first = first_sample(image, cs[k]);
      bx[k] = r.x0 - first.x;
      by[k] = r.y0 - first.y;
    } else {
      origin[k] = tile_component_origin(image, cs[k], r);
      pitch[k] = image.components[cs[k]].width;
    }
  }
  in_chunks(r.area(), [&](size_t at, size_t len) {
    while (len > 0) {
      const size_t y = at / w, x = at % w, n = std::min(len, w - x);
      std::array<const int32_t*, K> in;
      if (!src) {
        for (size_t k = 0; k < K; ++k) in[k] = origin[k] + y * pitch[k] + x;
        fn(in, at, n);
      } else {
        in_pieces(n, [&](size_t p, size_t l) {
          int32_t piece[K][kPiece];
          for (size_t k = 0; k < K; ++k) {
            read_samples(*src, cs[k], bx[k] + static_cast<uint32_t>(x + p),
                         by[k] + static_cast<uint32_t>(y), l, piece[k]);
            in[k] = piece[k];
          }
          fn(in, at + p, l);
        });
      }
      at += n;
      len -= n;
    }
  });
}

// G.1.2 DC level shift with, on components 0..2 when mct, G.2 (RCT, 5/3) or G.3 (ICT, 9/7):
// the image's samples of the tile (or the caller's buffer's, src) straight into out[c] (rects:
// the tile-components', B-12), one pass. three(in0, in1, in2, o0, o1, o2, n, offsets) and
// one(in, o, n, offset) transform a run of a row.
template <class T, class Three, class One>
void forward_dc_shift(const Image& image, const InputSource* src, bool mct,
                      const std::vector<Rect>& rects, const std::vector<T*>& out,
                      const Three& three, const One& one) {
  const size_t nc = rects.size();
  std::vector<int32_t> offset(nc);
  for (size_t c = 0; c < nc; ++c)
    offset[c] = transform::dc_offset(static_cast<int>(image.components[c].precision),
                                     image.components[c].is_signed);
  if (mct && !rects[0].empty()) {
    // MCT components share one geometry (validated), so the three rows line up.
    const int32_t off3[3] = {offset[0], offset[1], offset[2]};
    over_tile_rows<3>(image, src, {0, 1, 2}, rects[0],
                      [&](const std::array<const int32_t*, 3>& in, size_t at, size_t len) {
                        three(in[0], in[1], in[2], out[0] + at, out[1] + at, out[2] + at, len,
                              off3);
                      });
  }
  for (size_t c = mct ? 3 : 0; c < nc; ++c) {
    T* const o = out[c];
    over_tile_rows<1>(image, src, {c}, rects[c],
                      [&](const std::array<const int32_t*, 1>& in, size_t at, size_t len) {
                        one(in[0], o + at, len, offset[c]);
                      });
  }
}

// The storage of a 9/7 tile-component's samples as floats: the plane goes through the DWT as
// floats and is quantized back to integers in the same words (quantize_bands), so that the
// tile needs one buffer per component. Begins the floats' lifetime there.
float* float_plane(Samples& plane) {
  static_assert(sizeof(float) == sizeof(int32_t) && alignof(float) <= alignof(int32_t));
  void* p = plane.data();
  std::uninitialized_default_construct_n(static_cast<float*>(p), plane.size());
  return std::launder(static_cast<float*>(p));
}

// E.1 dead-zone quantization of every subband of a 9/7 tile-component in place: `y` (the
// float_plane of its samples) becomes their integers again (the subbands cover every
// position), with the steps the decoder derives (band_deltas).
void quantize_bands(float* y, const Rect& r, int levels, const std::vector<double>& deltas) {
  const size_t w = r.width();
  auto band = [&](int n, Band b) {
    const transform::BandPlacement pl = transform::band_placement(r, levels, n, b);
    if (pl.rect.empty()) return;
    const float d =
        static_cast<float>(deltas[static_cast<size_t>(transform::qcd_index(levels, n, b))]);
    const uint32_t bw = pl.rect.width();
    core::parallel_for_static(0, pl.rect.height(), [&](size_t row) {
      const size_t at = (size_t{pl.y_off} + row) * w + pl.x_off;
      transform::quantize_in_place(y + at, bw, d);
    });
  };
  band(levels, Band::kLL);
  for (int n = 1; n <= levels; ++n)
    for (Band b : {Band::kHL, Band::kLH, Band::kHH}) band(n, b);
}

// Whether tile t's planes can be the sample buffers of setup.reuse_samples: tile 0, and every
// component's buffer exactly its tile-component's samples (one tile covers the image).
bool can_take_samples(const EncodeSetup& setup, uint32_t t, const std::vector<Rect>& rects) {
  const Image* given = setup.reuse_samples;
  if (!given || t != 0 || given->components.size() != rects.size()) return false;
  for (size_t c = 0; c < rects.size(); ++c) {
    const Component& comp = given->components[c];
    if (comp.width != rects[c].width() || comp.height != rects[c].height() ||
        comp.samples.size() != rects[c].area())
      return false;
  }
  return true;
}

class CpuBackend final : public TileBackend {
 public:
  const char* name() const override { return "cpu"; }

  TileCoefficients forward(const Image& image, const EncodeSetup& setup, uint32_t t,
                           ForwardPipeline*) const override {
    const ComponentCoding& cc = setup.main.cod.component;
    const bool irreversible = cc.wavelet == Wavelet::k97;
    const size_t nc = image.components.size();
    TileCoefficients out;
    out.rects.resize(nc);
    out.data.resize(nc);
    std::vector<float*> floats(nc);
    std::vector<int32_t*> ints(nc);
    for (size_t c = 0; c < nc; ++c)
      out.rects[c] = tile_component_rect(setup.main.siz, t, static_cast<uint16_t>(c));
    // The image's own buffers become the planes where it was given up (no fresh memory for a
    // copy of it): forward_dc_shift then writes over the samples it reads, so every run goes
    // in place (9/7: the integers to floats through a piece on the stack, in_pieces). Otherwise
    // the image's samples go straight into fresh planes, shifted and transformed on the way.
    Image* const own = can_take_samples(setup, t, out.rects) ? setup.reuse_samples : nullptr;
    for (size_t c = 0; c < nc; ++c) {
      Samples& plane = own ? own->components[c].samples : out.data[c];
      if (!own) {
        // Not zeroed: written below. A buffer kept from an earlier tile or image
        // (sample_cache.h), or a new one.
        bool fresh = true;
        plane = take_samples(out.rects[c].area(), &fresh);
        // Written by rows split over the threads: faulted in first, each 2 MiB by one thread,
        // so that no two threads fault a fresh huge page at once (core/memory.h).
        if (fresh && core::max_threads() > 1 && !core::in_parallel())
          core::prefault(plane.data(), plane.size() * sizeof(int32_t));
      }
      if (irreversible)
        floats[c] = float_plane(plane);
      else
        ints[c] = plane.data();
    }
    if (irreversible && own) {
      forward_dc_shift(
          image, nullptr, setup.mct, out.rects, floats,
          [](const int32_t* a, const int32_t* b, const int32_t* c, float* x, float* y, float* z,
             size_t n, const int32_t* off) {
            in_pieces(n, [&](size_t k, size_t l) {
              int32_t in[3][kPiece];
              float f[3][kPiece];
              std::memcpy(in[0], a + k, l * sizeof(int32_t));
              std::memcpy(in[1], b + k, l * sizeof(int32_t));
              std::memcpy(in[2], c + k, l * sizeof(int32_t));
              transform::dc_shift_ict_forward(in[0], in[1], in[2], f[0], f[1], f[2], l, off);
              std::memcpy(x + k, f[0], l * sizeof(float));
              std::memcpy(y + k, f[1], l * sizeof(float));
              std::memcpy(z + k, f[2], l * sizeof(float));
            });
          },
          [](const int32_t* in, float* o, size_t n, int32_t off) {
            in_pieces(n, [&](size_t k, size_t l) {
              int32_t v[kPiece];
              float f[kPiece];
              std::memcpy(v, in + k, l * sizeof(int32_t));
              transform::dc_shift_to_float(v, f, l, off);
              std::memcpy(o + k, f, l * sizeof(float));
            });
          });
    } else if (irreversible) {
      forward_dc_shift(image, setup.input, setup.mct, out.rects, floats,
                       transform::dc_shift_ict_forward, transform::dc_shift_to_float);
    } else if (own) {  // the outputs are the inputs
      forward_dc_shift(
          image, nullptr, setup.mct, out.rects, ints,
          [](const int32_t*, const int32_t*, const int32_t*, int32_t* x, int32_t* y, int32_t* z,
             size_t n, const int32_t* off) { transform::dc_shift_rct_forward(x, y, z, n, off); },
          [](const int32_t*, int32_t* o, size_t n, int32_t off) {
            transform::dc_shift_forward(o, n, off);
          });
    } else {
      forward_dc_shift(
          image, setup.input, setup.mct, out.rects, ints,
          [](const int32_t* a, const int32_t* b, const int32_t* c, int32_t* x, int32_t* y,
             int32_t* z, size_t n,
             const int32_t* off) { transform::dc_shift_rct_forward(a, b, c, x, y, z, n, off); },
          [](const int32_t* in, int32_t* o, size_t n, int32_t off) {
            transform::dc_shift_forward(in, o, n, off);
          });
    }
    if (own)
      for (size_t c = 0; c < nc; ++c) out.data[c].swap(own->components[c].samples);
    const transform::DwtOps& ops = transform::dwt_ops(transform::codec_cpu_dwt());
    for (size_t c = 0; c < nc; ++c) {
      const Rect& r = out.rects[c];
      if (r.empty()) continue;
      if (!irreversible) {
        ops.forward53({out.data[c].data(), r.width()}, r, cc.levels);
        continue;
      }
      ops.forward97({floats[c], r.width()}, r, cc.levels);
      quantize_bands(floats[c], r, cc.levels,
                     band_deltas(setup, static_cast<uint16_t>(c), image.components[c].precision));
    }
    return out;
  }

  void inverse(std::span<CoefficientPlane> planes, bool mct, int threads,
               std::vector<TileComponentSamples>& out) const override {
    cpu_inverse(planes, mct, threads, out, nullptr);
  }
};

}  // namespace

void cpu_inverse(std::span<CoefficientPlane> planes, bool mct, int threads,
                 std::vector<TileComponentSamples>& out, const PackTarget* pack) {
  const size_t nc = planes.size();
  if (mct) check_mct_planes(planes);
  out.resize(nc);
  // Components 0..2 into a packed target: their finest level with the colour stage in bands
  // (inverse_rows_packed), or the whole planes first.
  const bool packs = mct && colour_packs(planes, pack);
  const bool rows = packs && rows_pack(planes);
  TraceStage trace_dwt("inverse dwt");
  for (size_t c = 0; c < nc; ++c) {
    CoefficientPlane& p = planes[c];
    if (!p.decode || !(p.wanted || (mct && c < 3))) continue;
    if (p.rect.area() > p.ints.size())
      throw Error(ErrorCode::kInternal,
                  "cpu backend: component " + std::to_string(c) + " has too few coefficients");
    if (rows && c < 3) continue;                                    // inverse_rows_packed
    if (!(mct && c < 3) && single_rows_pack(p, c, pack)) continue;  // inverse_single_rows_packed
    inverse_dwt(p);
  }
  trace_dwt.end();
  TraceStage trace_colour(rows ? "inverse finest level, colour and packing"
                               : "inverse colour and dc shift");
  if (mct && !planes[0].rect.empty()) {
    if (rows)
      inverse_rows_packed(planes, threads, out, *pack);
    else if (packs)
      inverse_mct_packed(planes, threads, out, *pack);
    else
      inverse_mct(planes, threads, out);
  }
  for (size_t c = mct ? 3 : 0; c < nc; ++c) {
    if (!planes[c].decode || !planes[c].wanted) continue;
    if (single_rows_pack(planes[c], c, pack))
      inverse_single_rows_packed(planes, c, threads, out[c], *pack);
    else
      inverse_single(planes[c], threads, out[c]);
  }
  for (size_t c = 0; c < std::min<size_t>(nc, 3) && mct; ++c)
    if (!planes[c].wanted) out[c] = {};  // decoded for the MCT only
}

bool CoefficientPlane::allocate(size_t n) {
  keep_samples(ints);
  bool fresh = true;
  ints = take_samples(n, &fresh);
  if (!reversible) float_plane(ints);
  return fresh;
}

void set_sample_range(CoefficientPlane& plane, int precision, bool is_signed) {
  plane.offset = transform::dc_offset(precision, is_signed);
  plane.lo = static_cast<int32_t>(is_signed ? -(int64_t{1} << (precision - 1)) : 0);
  plane.hi = static_cast<int32_t>(is_signed ? (int64_t{1} << (precision - 1)) - 1
                                            : (int64_t{1} << precision) - 1);
}

const TileBackend& cpu_backend() {
  static const CpuBackend backend;
  return backend;
}

}  // namespace gj2k::codec
