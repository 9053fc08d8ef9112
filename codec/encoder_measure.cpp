// Encoder: the exact squared error of an allocation, measured the way a decoder reconstructs
// (Tier-1 decode of the included passes, midpoint reconstruction (E.1.1.2), dequantization,
// inverse DWT, inverse MCT and DC shift, clamping). Used to hit PSNR targets: the wavelet-domain
// model of rate control ignores the cross terms of the non-orthogonal synthesis.
#include <algorithm>
#include <cmath>

#include "codec/encoder_internal.h"
#include "gj2k/error.h"
#include "transform/dwt.h"
#include "transform/mct.h"

namespace gj2k::codec {
namespace {

using transform::Rect;

// Reconstructs the tile-component coefficients of `tcc` with `layer`'s passes into `coef`
// (9/7: dequantized floats in `fcoef`; 5/3: integers in `icoef`).
void reconstruct_bands(const TileComponentCoding& tcc, const Rect& r, int levels, uint8_t style,
                       bool irreversible, size_t layer, std::vector<float>& fcoef,
                       std::vector<int32_t>& icoef) {
  const size_t w = r.width();
  std::vector<int32_t> out;
  std::vector<entropy::Segment> segs;
  for (size_t ri = 0; ri < tcc.layout.resolutions.size(); ++ri) {
    const ResolutionLayout& res = tcc.layout.resolutions[ri];
    for (size_t bi = 0; bi < res.bands.size(); ++bi) {
      const BandLayout& bl = res.bands[bi];
      const BandCoding& bc = tcc.bands[ri][bi];
      if (bl.rect.empty()) continue;
      const transform::BandPlacement pl = transform::band_placement(r, levels, bl.level, bl.band);
      for (uint32_t j = 0; j < bl.blocks_y; ++j)
        for (uint32_t i = 0; i < bl.blocks_x; ++i) {
          const BlockCoding& blk = bc.blocks[size_t{j} * bl.blocks_x + i];
          const uint32_t passes = blk.layer_passes.empty() ? 0 : blk.layer_passes[layer];
          if (passes == 0) continue;
          const Rect cb = bl.code_block(i, j);
          segs.clear();
          uint32_t start = 0, first = 0;
          for (uint32_t p = 0; p < passes; ++p) {
            if (p + 1 == passes || entropy::pass_ends_segment(style, p)) {
              const uint32_t end = blk.enc.passes[p].end;
              segs.push_back({blk.enc.data.data() + start, end - start, p + 1 - first});
              start = end;
              first = p + 1;
            }
          }
          out.assign(size_t{cb.width()} * cb.height(), 0);
          entropy::decode_block(segs.data(), segs.size(), bc.mb - blk.enc.missing_msbs, bl.band,
                                style, out.data(), cb.width(), cb.width(), cb.height());
          const size_t x0 = pl.x_off + (cb.x0 - bl.rect.x0), y0 = pl.y_off + (cb.y0 - bl.rect.y0);
          for (uint32_t y = 0; y < cb.height(); ++y)
            for (uint32_t x = 0; x < cb.width(); ++x) {
              const int32_t v = out[size_t{y} * cb.width() + x];
              const size_t at = (y0 + y) * w + x0 + x;
              if (irreversible)
                fcoef[at] = static_cast<float>(v * 0.5 * bc.delta);
              else
                icoef[at] = v / 2;  // one fractional bit, truncated toward zero
            }
        }
    }
  }
}

}  // namespace

double measure_sse(const std::vector<TileCoding>& tiles, const EncodeSetup& setup,
                   const Image& image, size_t layer) {
  const MainHeader& mh = setup.main;
  const ComponentCoding& cc = mh.cod.component;
  const bool irreversible = cc.wavelet == Wavelet::k97;
  const transform::DwtOps& ops = transform::dwt_ops(transform::DwtVariant::kCpu);
  double sse = 0;
  for (const TileCoding& tile : tiles) {
    const size_t nc = tile.components.size();
    std::vector<std::vector<float>> f(nc);
    std::vector<std::vector<int32_t>> q(nc);
    for (size_t c = 0; c < nc; ++c) {
      const Rect& r = tile.components[c].layout.rect;
      const size_t n = size_t{r.width()} * r.height();
      q[c].assign(n, 0);
      if (irreversible) f[c].assign(n, 0.f);
      if (n == 0) continue;
      reconstruct_bands(tile.components[c], r, cc.levels, cc.cblk_style, irreversible, layer, f[c],
                        q[c]);
      if (irreversible)
        ops.inverse97({f[c].data(), r.width()}, r, cc.levels);
      else
        ops.inverse53({q[c].data(), r.width()}, r, cc.levels);
    }
    std::vector<int32_t> offset(nc), lo(nc), hi(nc);
    for (size_t c = 0; c < nc; ++c) {
      const Component& comp = image.components[c];
      offset[c] = transform::dc_offset(static_cast<int>(comp.precision), comp.is_signed);
      lo[c] = static_cast<int32_t>(comp.min_value());
      hi[c] = static_cast<int32_t>(comp.max_value());
    }
    size_t first_plain = 0;
    if (setup.mct) {
      first_plain = 3;
      const size_t n = q[0].size();
      const int32_t off3[3] = {offset[0], offset[1], offset[2]};
      const int32_t lo3[3] = {lo[0], lo[1], lo[2]}, hi3[3] = {hi[0], hi[1], hi[2]};
      if (irreversible)
        transform::ict_inverse_dc_shift(f[0].data(), f[1].data(), f[2].data(), q[0].data(),
                                        q[1].data(), q[2].data(), n, off3, lo3, hi3);
      else
        transform::rct_inverse_dc_shift(q[0].data(), q[1].data(), q[2].data(), n, off3, lo3, hi3);
    }
    for (size_t c = first_plain; c < nc; ++c) {
      if (irreversible)
        transform::float_to_int_dc_shift(f[c].data(), q[c].data(), q[c].size(), offset[c], lo[c],
                                         hi[c]);
      else
        transform::dc_shift_inverse_clamp(q[c].data(), q[c].size(), offset[c], lo[c], hi[c]);
    }
    for (size_t c = 0; c < nc; ++c) {
      const Component& comp = image.components[c];
      const Rect& r = tile.components[c].layout.rect;
      const uint32_t cx0 = static_cast<uint32_t>((uint64_t{image.x0} + comp.dx - 1) / comp.dx);
      const uint32_t cy0 = static_cast<uint32_t>((uint64_t{image.y0} + comp.dy - 1) / comp.dy);
      for (uint32_t y = r.y0; y < r.y1; ++y)
        for (uint32_t x = r.x0; x < r.x1; ++x) {
          const double d = double(comp.at(x - cx0, y - cy0)) -
                           double(q[c][size_t{y - r.y0} * r.width() + (x - r.x0)]);
          sse += d * d;
        }
    }
  }
  return sse;
}

}  // namespace gj2k::codec
