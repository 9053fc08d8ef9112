// Encoder, per tile: the forward stage through the tile backend (tile_backend.h: DC level
// shift + MCT, Annex G; DWT, Annex F; quantization, Annex E), then the code-block partition
// (B.7) and Tier-1 coding (Annex D), OpenMP over the code-blocks of the tile.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <string>
#include <thread>

#include "codec/encoder_internal.h"
#include "codec/sample_cache.h"
#include "core/thread_pool.h"
#include "gj2k/error.h"
#include "transform/dwt.h"
#include "transform/mct.h"
#include "transform/quant.h"

namespace gj2k::codec {
namespace {

using transform::Band;
using transform::Rect;

}  // namespace

std::vector<double> band_deltas(const EncodeSetup& setup, uint16_t c, uint32_t precision) {
  const MainHeader& mh = setup.main;
  const int levels = mh.cod.component.levels;
  const bool irreversible = mh.cod.component.wavelet == Wavelet::k97;
  const Quantization& q = effective_quantization(mh, nullptr, c);
  const std::vector<transform::QuantStep>& signalled = q.steps;
  const transform::QuantStyle qstyle = q.style;
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

namespace {

// The quantization of every band of tile-component c (E-2, E-3: steps as the decoder derives
// them, M_b) and the distortion weights of rate control, with one block job per code-block.
void plan_component(const EncodeSetup& setup, const Image& image, size_t c,
                    TileComponentCoding& tcc, std::vector<CodeBlockJob>& jobs) {
  const MainHeader& mh = setup.main;
  const ComponentCoding& cc = mh.cod.component;
  const bool irreversible = cc.wavelet == Wavelet::k97;
  const Quantization& q = effective_quantization(mh, nullptr, static_cast<uint16_t>(c));
  const std::vector<transform::QuantStep>& signalled = q.steps;
  const transform::QuantStyle qstyle = q.style;
  const double mct_norm = c < 3 && setup.mct ? setup.mct_norms[c] : 1.0;
  tcc.bands.resize(tcc.layout.resolutions.size());
  for (size_t ri = 0; ri < tcc.layout.resolutions.size(); ++ri) {
    const ResolutionLayout& res = tcc.layout.resolutions[ri];
    tcc.bands[ri].resize(res.bands.size());
    for (size_t bi = 0; bi < res.bands.size(); ++bi) {
      const BandLayout& bl = res.bands[bi];
      BandCoding& bc = tcc.bands[ri][bi];
      const transform::QuantStep step =
          transform::signalled_step(qstyle, signalled, cc.levels, bl.level, bl.band);
      const int range =
          transform::nominal_range(static_cast<int>(image.components[c].precision), bl.band);
      bc.delta = irreversible ? transform::step_size(range, step) : 1.0;
      bc.mb = static_cast<uint32_t>(transform::magnitude_bits(q.guard_bits, step));
      const double norm = transform::subband_l2_norm(cc.wavelet, bl.level, bl.band);
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

}  // namespace

std::string code_block(const int32_t* q, size_t stride, uint8_t style, const CodeBlockJob& job,
                       TileCoding& tile, bool distortion) {
  TileComponentCoding& tcc = tile.components[job.c];
  const BandLayout& bl = tcc.layout.resolutions[job.r].bands[job.b];
  BandCoding& bc = tcc.bands[job.r][job.b];
  try {
    const uint32_t planes =
        entropy::encode_block_within(q, stride, job.rect.width(), job.rect.height(), bl.band, style,
                                     bc.mb, bc.blocks[job.k].enc, distortion);
    if (planes != 0) return guard_bits_message(job.c, planes, bc.mb);
  } catch (const std::exception& e) {
    return std::string("tier-1: ") + e.what();
  }
  return {};
}

std::string guard_bits_message(uint32_t c, uint32_t needed, uint32_t mb) {
  return "--guard-bits: coefficients of component " + std::to_string(c) + " need " +
         std::to_string(needed) + " magnitude bit-planes but the quantization allows only " +
         std::to_string(mb) + "; use more guard bits";
}

size_t job_offset(const TileCoding& tile, int levels, const CodeBlockJob& job) {
  const TileComponentCoding& tcc = tile.components[job.c];
  const BandLayout& bl = tcc.layout.resolutions[job.r].bands[job.b];
  const Rect& r = tcc.layout.rect;
  const transform::BandPlacement pl = transform::band_placement(r, levels, bl.level, bl.band);
  return (size_t{pl.y_off} + (job.rect.y0 - bl.rect.y0)) * r.width() + pl.x_off +
         (job.rect.x0 - bl.rect.x0);
}

TileCoding plan_tile(const Image& image, const EncodeSetup& setup, uint32_t t,
                     std::vector<CodeBlockJob>& jobs) {
  const size_t nc = image.components.size();
  TileLayout layout = make_tile_layout(setup.main, nullptr, t);
  TileCoding tile;
  tile.index = t;
  tile.rect = layout.rect;
  tile.components.resize(nc);
  jobs.clear();
  for (size_t c = 0; c < nc; ++c) {
    TileComponentCoding& tcc = tile.components[c];
    tcc.layout = std::move(layout.components[c]);
    plan_component(setup, image, c, tcc, jobs);
  }
  return tile;
}

TileCoding code_tile(TileCoefficients& coeffs, const Image& image, const EncodeSetup& setup,
                     const EncodeParams& params, uint32_t t) {
  const MainHeader& mh = setup.main;
  const size_t nc = image.components.size();
  std::vector<CodeBlockJob> jobs;
  TileCoding tile = plan_tile(image, setup, t, jobs);
  for (size_t c = 0; c < nc; ++c)
    if (tile.components[c].layout.rect != coeffs.rects[c])
      throw Error(ErrorCode::kInternal, "code_tile: coefficients of another tile-component");

  // Tier-1 over every code-block of the tile.
  std::atomic<size_t> done{0};
  std::atomic<bool> failed{false}, cancelled{false};
  std::string failure;
  const int levels = mh.cod.component.levels;
  const uint8_t style = mh.cod.component.cblk_style;
  const size_t njobs = jobs.size();
  std::mutex failure_mutex;
  const std::thread::id caller = std::this_thread::get_id();  // reports progress
  core::parallel_for(0, jobs.size(), 4, [&](size_t ji) {
    if (failed.load(std::memory_order_relaxed) || cancelled.load(std::memory_order_relaxed)) return;
    const CodeBlockJob& job = jobs[static_cast<size_t>(ji)];
    if (job.rect.empty()) return;
    std::string error = code_block(coeffs.data[job.c].data() + job_offset(tile, levels, job),
                                   coeffs.rects[job.c].width(), style, job, tile, setup.distortion);
    if (!error.empty()) {
      if (!failed.exchange(true)) {
        const std::lock_guard lock(failure_mutex);
        failure = std::move(error);
      }
      return;
    }
    const size_t d = done.fetch_add(1, std::memory_order_relaxed) + 1;
    if (params.progress && std::this_thread::get_id() == caller && (d & 63) == 0 &&
        !params.progress("tier-1", double(d) / double(njobs)))
      cancelled = true;
  });
  if (cancelled) throw Error(ErrorCode::kCancelled, "encode cancelled by the progress callback");
  if (failed) throw Error(ErrorCode::kInvalidArgument, failure);
  return tile;
}

const TileBackend& encode_backend(const EncodeSetup& setup) {
  return setup.gpu ? cuda_backend() : cpu_backend();
}

TileCoding TileBackend::encode(const Image& image, const EncodeSetup& setup,
                               const EncodeParams& params, uint32_t t,
                               ForwardPipeline* pipeline) const {
  TileCoefficients coeffs = forward(image, setup, t, pipeline);
  TileCoding coding = code_tile(coeffs, image, setup, params, t);
  for (Samples& s : coeffs.data) keep_samples(s);  // for the next tile or image
  return coding;
}

TileCoding encode_tile(const Image& image, const EncodeSetup& setup, const EncodeParams& params,
                       uint32_t t, ForwardPipeline* pipeline) {
  return encode_backend(setup).encode(image, setup, params, t, pipeline);
}

}  // namespace gj2k::codec
