// Encoder: the exact squared error of an allocation, measured on the reconstruction a decoder
// makes: Tier-1 decoding of the included passes, each code-block's coefficients by
// transform::reconstruct_block (as the decoder: E.1.1.2 midpoints, E-6), then the inverse tail
// of the CPU backend (tile_backend.h: inverse DWT, inverse MCT, DC shift, clamping). Used to
// hit PSNR targets: the wavelet-domain model of rate control ignores the cross terms of the
// non-orthogonal synthesis.
#include <algorithm>
#include <cmath>

#include "codec/encoder_internal.h"
#include "codec/tile_backend.h"
#include "gj2k/error.h"
#include "transform/quant.h"

namespace gj2k::codec {
namespace {

using transform::Rect;

// The codeword segments of the first `passes` passes of a coded block.
std::vector<entropy::Segment> included_segments(const BlockCoding& blk, uint8_t style,
                                                uint32_t passes) {
  std::vector<entropy::Segment> segs;
  uint32_t start = 0, first = 0;
  for (uint32_t p = 0; p < passes; ++p) {
    if (p + 1 == passes || entropy::pass_ends_segment(style, p)) {
      const uint32_t end = blk.passes()[p].end;
      segs.push_back({blk.bytes().data() + start, end - start, p + 1 - first});
      start = end;
      first = p + 1;
    }
  }
  return segs;
}

// Decodes one code-block's passes of `layer` into the plane, as the decoder does (blocks
// without passes stay zero).
void reconstruct_block_of(const BlockCoding& blk, const BandCoding& bc, const BandLayout& bl,
                          const Rect& cb, size_t x0, size_t y0, uint8_t style, size_t layer,
                          CoefficientPlane& plane) {
  const uint32_t passes = blk.layer_passes.empty() ? 0 : blk.layer_passes[layer];
  if (passes == 0) return;
  const std::vector<entropy::Segment> segs = included_segments(blk, style, passes);
  const uint32_t planes = bc.mb - blk.enc.missing_msbs;
  const size_t pitch = plane.rect.width();
  thread_local std::vector<int32_t> scratch;
  int32_t* out = plane.reversible ? plane.ints.data() + y0 * pitch + x0 : nullptr;
  size_t stride = pitch;
  if (!plane.reversible) {
    scratch.resize(size_t{cb.width()} * cb.height());
    out = scratch.data();
    stride = cb.width();
  }
  entropy::decode_block(segs.data(), segs.size(), planes, bl.band, style, out, stride, cb.width(),
                        cb.height());
  transform::BlockReconstruction q;
  q.reversible = plane.reversible;
  q.delta = static_cast<float>(bc.delta);
  q.passes = passes;
  q.all_passes = entropy::max_passes(planes);
  float* dst = plane.reversible ? nullptr : plane.floats() + y0 * pitch + x0;
  transform::reconstruct_block(out, stride, cb.width(), cb.height(), q, dst, pitch);
}

// The coefficient plane of one tile-component with `layer`'s passes.
void reconstruct_plane(const TileComponentCoding& tcc, uint8_t style, size_t layer,
                       CoefficientPlane& plane) {
  for (size_t ri = 0; ri < tcc.layout.resolutions.size(); ++ri) {
    const ResolutionLayout& res = tcc.layout.resolutions[ri];
    for (size_t bi = 0; bi < res.bands.size(); ++bi) {
      const BandLayout& bl = res.bands[bi];
      const BandCoding& bc = tcc.bands[ri][bi];
      if (bl.rect.empty()) continue;
      const transform::BandPlacement pl =
          transform::band_placement(plane.rect, plane.levels, bl.level, bl.band);
      for (uint32_t j = 0; j < bl.blocks_y; ++j)
        for (uint32_t i = 0; i < bl.blocks_x; ++i) {
          const Rect cb = bl.code_block(i, j);
          reconstruct_block_of(bc.blocks[size_t{j} * bl.blocks_x + i], bc, bl, cb,
                               pl.x_off + (cb.x0 - bl.rect.x0), pl.y_off + (cb.y0 - bl.rect.y0),
                               style, layer, plane);
        }
    }
  }
}

// The squared error of the decoded samples of one tile-component against the image.
double component_sse(const Image& image, size_t c, const TileComponentSamples& got) {
  const Component& comp = image.components[c];
  const Rect& r = got.rect;
  const auto [cx0, cy0] = first_sample(image, c);
  double sse = 0;
  for (uint32_t y = r.y0; y < r.y1; ++y)
    for (uint32_t x = r.x0; x < r.x1; ++x) {
      const double d = double(comp.at(x - cx0, y - cy0)) -
                       double(got.samples[size_t{y - r.y0} * r.width() + (x - r.x0)]);
      sse += d * d;
    }
  return sse;
}

}  // namespace

double measure_sse(const std::vector<TileCoding>& tiles, const EncodeSetup& setup,
                   const Image& image, size_t layer) {
  const ComponentCoding& cc = setup.main.cod.component;
  const bool reversible = cc.wavelet == Wavelet::k53;
  double sse = 0;
  for (const TileCoding& tile : tiles) {
    const size_t nc = tile.components.size();
    std::vector<CoefficientPlane> planes(nc);
    for (size_t c = 0; c < nc; ++c) {
      CoefficientPlane& p = planes[c];
      const Component& comp = image.components[c];
      p.rect = tile.components[c].layout.rect;
      p.levels = cc.levels;
      p.decode = p.wanted = true;
      p.reversible = reversible;
      set_sample_range(p, static_cast<int>(comp.precision), comp.is_signed);
      const size_t n = size_t{p.rect.width()} * p.rect.height();
      p.allocate(n);
      if (reversible)
        std::fill_n(p.ints.data(), n, 0);
      else
        std::fill_n(p.floats(), n, 0.0f);
      if (n) reconstruct_plane(tile.components[c], cc.cblk_style, layer, p);
    }
    std::vector<TileComponentSamples> out;
    const bool mct = setup.mct && nc >= 3 && planes[0].rect == planes[1].rect &&
                     planes[0].rect == planes[2].rect;
    cpu_backend().inverse(planes, mct, setup.threads, out);
    for (size_t c = 0; c < nc; ++c) sse += component_sse(image, c, out[c]);
  }
  return sse;
}

}  // namespace gj2k::codec
