// Encoder, per tile: sample extraction, DC level shift + MCT (Annex G), DWT (Annex F),
// quantization (Annex E), code-block partition (B.7) and Tier-1 coding (Annex D), OpenMP over
// the code-blocks of the tile.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <string>

#include "codec/encoder_gpu.h"
#include "codec/encoder_internal.h"
#include "gj2k/error.h"
#include "transform/dwt.h"
#include "transform/mct.h"
#include "transform/quant.h"

namespace gj2k::codec {
namespace {

using transform::Band;
using transform::Rect;

transform::Band to_band(Band b) {
  return b;
}

entropy::BandKind band_kind(Band b) {
  return static_cast<entropy::BandKind>(static_cast<int>(b));
}

uint32_t magnitude_bit_count(uint32_t v) {
  uint32_t n = 0;
  while (v) {
    ++n;
    v >>= 1;
  }
  return n;
}

// Samples per parallel chunk of the point-wise stages (DC shift, MCT).
constexpr size_t kChunk = size_t{1} << 16;

struct BlockJob {
  uint32_t c, r, b, k;  // component, resolution, band index in the resolution, block index
  Rect rect;            // on the band grid
};

}  // namespace

std::vector<double> band_deltas(const EncodeSetup& setup, uint16_t c, uint32_t precision) {
  const MainHeader& mh = setup.main;
  const int levels = mh.cod.component.levels;
  const bool irreversible = mh.cod.component.wavelet == Wavelet::k9x7Irreversible;
  const Quantization& q = effective_quantization(mh, nullptr, c);
  std::vector<transform::QuantStep> signalled;
  for (const StepSize& s : q.steps) signalled.push_back({s.exponent, s.mantissa});
  const auto qstyle = static_cast<transform::QuantStyle>(static_cast<int>(q.style));
  std::vector<double> out(3 * static_cast<size_t>(levels) + 1, 1.0);
  if (!irreversible) return out;
  auto set = [&](int n, Band b) {
    const transform::QuantStep step = transform::signalled_step(qstyle, signalled, levels, n, b);
    out[static_cast<size_t>(transform::qcd_index(levels, n, b))] =
        transform::step_size(transform::nominal_range(static_cast<int>(precision), b), step);
  };
  set(levels, Band::kLL);
  for (int n = 1; n <= levels; ++n)
    for (Band b : {Band::kHL, Band::kLH, Band::kHH}) set(n, b);
  return out;
}

TileCoefficients transform_tile_cpu(const Image& image, const EncodeSetup& setup, uint32_t t) {
  const MainHeader& mh = setup.main;
  const Siz& siz = mh.siz;
  const ComponentCoding& cc = mh.cod.component;
  const bool irreversible = cc.wavelet == Wavelet::k9x7Irreversible;
  const size_t nc = image.components.size();
  const int levels = cc.levels;

  // 1. Samples of each tile-component, on the component's grid (B-12).
  std::vector<Rect> tcr(nc);
  std::vector<Samples> ibuf(nc);
  using Floats = std::vector<float, DefaultInitAllocator<float>>;  // resize does not zero
  std::vector<Floats> fbuf(nc);
  for (size_t c = 0; c < nc; ++c) {
    const Component& comp = image.components[c];
    tcr[c] = tile_component_rect(siz, t, static_cast<uint16_t>(c));
    const Rect& r = tcr[c];
    ibuf[c].resize(size_t{r.width()} * r.height());
    const uint32_t cx0 = static_cast<uint32_t>((uint64_t{image.x0} + comp.dx - 1) / comp.dx);
    const uint32_t cy0 = static_cast<uint32_t>((uint64_t{image.y0} + comp.dy - 1) / comp.dy);
    int32_t* dst = ibuf[c].data();
#pragma omp parallel for schedule(static)
    for (int64_t yy = r.y0; yy < int64_t{r.y1}; ++yy) {
      const uint32_t y = static_cast<uint32_t>(yy);
      const int32_t* src = comp.samples.data() + size_t{y - cy0} * comp.width + (r.x0 - cx0);
      std::copy(src, src + r.width(), dst + size_t{y - r.y0} * r.width());
    }
  }

  // 2. DC level shift (G.1) and the multi-component transform (G.2 RCT, G.3 ICT).
  std::vector<int32_t> offset(nc);
  for (size_t c = 0; c < nc; ++c)
    offset[c] = transform::dc_offset(static_cast<int>(image.components[c].precision),
                                     image.components[c].is_signed);
  const size_t first_plain = setup.mct ? 3 : 0;
  if (setup.mct) {
    const size_t n = ibuf[0].size();
    const int32_t off3[3] = {offset[0], offset[1], offset[2]};
    if (irreversible)
      for (int c = 0; c < 3; ++c) fbuf[c].resize(n);
    const int64_t chunks = static_cast<int64_t>((n + kChunk - 1) / kChunk);
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < chunks; ++k) {
      const size_t at = static_cast<size_t>(k) * kChunk, len = std::min(kChunk, n - at);
      if (irreversible)
        transform::dc_shift_ict_forward(ibuf[0].data() + at, ibuf[1].data() + at,
                                        ibuf[2].data() + at, fbuf[0].data() + at,
                                        fbuf[1].data() + at, fbuf[2].data() + at, len, off3);
      else
        transform::dc_shift_rct_forward(ibuf[0].data() + at, ibuf[1].data() + at,
                                        ibuf[2].data() + at, len, off3);
    }
    if (irreversible)
      for (int c = 0; c < 3; ++c) Samples().swap(ibuf[c]);
  }
  for (size_t c = first_plain; c < nc; ++c) {
    const size_t n = ibuf[c].size();
    if (irreversible) fbuf[c].resize(n);
    const int64_t chunks = static_cast<int64_t>((n + kChunk - 1) / kChunk);
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < chunks; ++k) {
      const size_t at = static_cast<size_t>(k) * kChunk, len = std::min(kChunk, n - at);
      if (irreversible)
        transform::dc_shift_to_float(ibuf[c].data() + at, fbuf[c].data() + at, len, offset[c]);
      else
        transform::dc_shift_forward(ibuf[c].data() + at, len, offset[c]);
    }
    if (irreversible) Samples().swap(ibuf[c]);
  }

  // 3. DWT, 4. quantization (9/7) into int32 indices in the same Mallat arrangement.
  const transform::DwtOps& ops = transform::dwt_ops(transform::codec_cpu_dwt());
  for (size_t c = 0; c < nc; ++c) {
    const Rect& r = tcr[c];
    const size_t w = r.width();
    if (r.empty()) continue;
    if (!irreversible) {
      ops.forward53({ibuf[c].data(), w}, r, levels);
      continue;
    }
    ops.forward97({fbuf[c].data(), w}, r, levels);
    ibuf[c].resize(fbuf[c].size());  // the subbands below cover every position
    const std::vector<double> deltas =
        band_deltas(setup, static_cast<uint16_t>(c), image.components[c].precision);
    auto quantize_band = [&](int n, Band b) {
      const transform::BandPlacement pl = transform::band_placement(r, levels, n, b);
      if (pl.rect.empty()) return;
      const float d =
          static_cast<float>(deltas[static_cast<size_t>(transform::qcd_index(levels, n, b))]);
      const float* fin = fbuf[c].data();
      int32_t* qout = ibuf[c].data();
      const uint32_t bw = pl.rect.width();
#pragma omp parallel for schedule(static)
      for (int64_t y = 0; y < int64_t{pl.rect.height()}; ++y) {
        const size_t at = (size_t{pl.y_off} + static_cast<size_t>(y)) * w + pl.x_off;
        transform::quantize(fin + at, qout + at, bw, d);
      }
    };
    quantize_band(levels, Band::kLL);
    for (int n = 1; n <= levels; ++n)
      for (Band b : {Band::kHL, Band::kLH, Band::kHH}) quantize_band(n, b);
    Floats().swap(fbuf[c]);
  }
  TileCoefficients out;
  out.rects = std::move(tcr);
  out.data = std::move(ibuf);
  return out;
}

TileCoding code_tile(TileCoefficients& coeffs, const Image& image, const EncodeSetup& setup,
                     const EncodeParams& params, uint32_t t) {
  const MainHeader& mh = setup.main;
  const ComponentCoding& cc = mh.cod.component;
  const bool irreversible = cc.wavelet == Wavelet::k9x7Irreversible;
  const transform::Wavelet wavelet =
      irreversible ? transform::Wavelet::k97 : transform::Wavelet::k53;
  const size_t nc = image.components.size();
  const int levels = cc.levels;
  const std::vector<Rect>& tcr = coeffs.rects;
  const std::vector<Samples>& ibuf = coeffs.data;
  TileCoding tile;
  tile.index = t;
  tile.rect = tile_rect(mh.siz, t);
  tile.components.resize(nc);
  std::vector<PrecinctExponents> pp;
  for (int r = 0; r <= levels; ++r) {
    const PrecinctSize ps = cc.precinct(r);
    pp.push_back({ps.ppx, ps.ppy});
  }
  std::vector<BlockJob> jobs;
  for (size_t c = 0; c < nc; ++c) {
    const Rect& r = tcr[c];
    TileComponentCoding& tcc = tile.components[c];
    tcc.layout = make_layout(r, levels, cc.xcb, cc.ycb, pp);
    const Quantization& q = effective_quantization(mh, nullptr, static_cast<uint16_t>(c));
    std::vector<transform::QuantStep> signalled;
    for (const StepSize& s : q.steps) signalled.push_back({s.exponent, s.mantissa});
    const auto qstyle = static_cast<transform::QuantStyle>(static_cast<int>(q.style));
    tcc.bands.resize(tcc.layout.resolutions.size());
    for (size_t ri = 0; ri < tcc.layout.resolutions.size(); ++ri) {
      const ResolutionLayout& res = tcc.layout.resolutions[ri];
      tcc.bands[ri].resize(res.bands.size());
      for (size_t bi = 0; bi < res.bands.size(); ++bi) {
        const BandLayout& bl = res.bands[bi];
        BandCoding& bc = tcc.bands[ri][bi];
        const transform::QuantStep step =
            transform::signalled_step(qstyle, signalled, levels, bl.level, to_band(bl.band));
        const int range =
            transform::nominal_range(static_cast<int>(image.components[c].precision), bl.band);
        bc.delta = irreversible ? transform::step_size(range, step) : 1.0;
        bc.mb = static_cast<uint32_t>(transform::magnitude_bits(q.guard_bits, step));
        const double norm = transform::subband_l2_norm(wavelet, bl.level, bl.band);
        const double mct_norm = c < 3 && setup.mct ? setup.mct_norms[c] : 1.0;
        bc.weight = bc.delta * bc.delta * norm * norm * mct_norm * mct_norm;
        bc.blocks.resize(size_t{bl.blocks_x} * bl.blocks_y);
        if (bl.rect.empty()) continue;
        for (uint32_t j = 0; j < bl.blocks_y; ++j)
          for (uint32_t i = 0; i < bl.blocks_x; ++i)
            jobs.push_back({static_cast<uint32_t>(c), static_cast<uint32_t>(ri),
                            static_cast<uint32_t>(bi), j * bl.blocks_x + i, bl.code_block(i, j)});
      }
    }
  }

  // 5. Tier-1 over every code-block of the tile.
  std::atomic<size_t> done{0};
  std::atomic<bool> failed{false}, cancelled{false};
  std::string failure;
  const uint8_t style = cc.cblk_style;
  const int64_t njobs = static_cast<int64_t>(jobs.size());
#pragma omp parallel for schedule(dynamic, 4)
  for (int64_t ji = 0; ji < njobs; ++ji) {
    if (failed.load(std::memory_order_relaxed) || cancelled.load(std::memory_order_relaxed))
      continue;
    const BlockJob& job = jobs[static_cast<size_t>(ji)];
    TileComponentCoding& tcc = tile.components[job.c];
    const BandLayout& bl = tcc.layout.resolutions[job.r].bands[job.b];
    BandCoding& bc = tcc.bands[job.r][job.b];
    BlockCoding& blk = bc.blocks[job.k];
    if (job.rect.empty()) continue;
    const Rect& r = tcr[job.c];
    const transform::BandPlacement pl = transform::band_placement(r, levels, bl.level, bl.band);
    const size_t stride = r.width();
    const int32_t* q = ibuf[job.c].data() +
                       (size_t{pl.y_off} + (job.rect.y0 - bl.rect.y0)) * stride + pl.x_off +
                       (job.rect.x0 - bl.rect.x0);
    uint32_t max_mag = 0;
    for (uint32_t y = 0; y < job.rect.height(); ++y)
      for (uint32_t x = 0; x < job.rect.width(); ++x) {
        const int32_t v = q[y * stride + x];
        max_mag = std::max(max_mag, v < 0 ? 0u - static_cast<uint32_t>(v) : uint32_t(v));
      }
    if (magnitude_bit_count(max_mag) > bc.mb) {
      if (!failed.exchange(true)) {
#pragma omp critical(gj2k_encode_failure)
        failure = "--guard-bits: coefficients of component " + std::to_string(job.c) + " need " +
                  std::to_string(magnitude_bit_count(max_mag)) +
                  " magnitude bit-planes but the quantization allows only " +
                  std::to_string(bc.mb) + "; use more guard bits";
      }
      continue;
    }
    try {
      entropy::encode_block(q, stride, job.rect.width(), job.rect.height(), band_kind(bl.band),
                            style, bc.mb, blk.enc);
    } catch (const std::exception& e) {
      if (!failed.exchange(true)) {
#pragma omp critical(gj2k_encode_failure)
        failure = std::string("tier-1: ") + e.what();
      }
      continue;
    }
    const size_t d = done.fetch_add(1, std::memory_order_relaxed) + 1;
    if (params.progress && omp_get_thread_num() == 0 && (d & 63) == 0 &&
        !params.progress("tier-1", double(d) / double(njobs)))
      cancelled = true;
  }
  if (cancelled) throw Error(ErrorCode::kCancelled, "encode cancelled by the progress callback");
  if (failed) throw Error(ErrorCode::kInvalidArgument, failure);
  return tile;
}

TileCoding encode_tile(const Image& image, const EncodeSetup& setup, const EncodeParams& params,
                       uint32_t t, GpuLookAhead* ahead) {
  TileCoefficients coeffs =
      setup.gpu ? transform_tile_gpu(image, setup, t, ahead) : transform_tile_cpu(image, setup, t);
  return code_tile(coeffs, image, setup, params, t);
}

}  // namespace gj2k::codec
