// One tile of the decoder (codec/decoder_tile.h).
#include "codec/decoder_tile.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <unordered_map>

#include "codec/decoder_gpu.h"
#include "codec/parallel.h"
#include "codec/structure.h"
#include "codec/tier2.h"
#include "entropy/t1.h"
#include "gj2k/error.h"
#include "transform/dwt.h"
#include "transform/dwt_cpu.h"
#include "transform/mct.h"
#include "transform/quant.h"

namespace gj2k::codec {
namespace {

using transform::Band;
using transform::Rect;

[[noreturn]] void fail(ErrorCode code, uint32_t t, const std::string& what) {
  throw Error(code, "tile " + std::to_string(t) + ": " + what);
}

// Everything about one component of the tile that decoding needs.
struct ComponentState {
  bool decode = false;  // decoded (requested, or needed by the MCT)
  const ComponentCoding* coding = nullptr;
  const Quantization* quant = nullptr;
  uint32_t precision = 8;
  bool is_signed = false;
  int roi_shift = 0;
  int levels = 0;
  int kept_levels = 0;  // levels - reduce: the resolutions 0..kept_levels are decoded
  Rect region;          // region of interest on this component's full-resolution grid
  bool has_region = false;
  TileComponentLayout layout;
  Rect out_rect;  // resolution kept_levels of the tile-component
  // Code-blocks with data, keyed by (resolution, band index, block index in the band).
  std::unordered_map<uint64_t, BlockSegments> blocks;
  // Coefficient buffers, allocated without a zero fill: decode_blocks writes every sample of
  // the kept resolutions (zeros for code-blocks without data).
  Samples ints;  // reversible path: coefficients then samples
  std::vector<float, DefaultInitAllocator<float>> floats;  // irreversible path
  int32_t* int_coeffs = nullptr;  // where Tier-1 puts the coefficients: ints.data() or
  float* float_coeffs = nullptr;  // floats.data()
  // Region decoding on the CPU: only `window` (positions in out_rect) is returned, the inverse
  // DWT computes only what it needs (inverse*_window), and code-blocks without data far from
  // the region are not even zeroed (the windowed DWT never reads them).
  bool windowed = false;
  Rect window;
  bool reversible() const { return coding->wavelet == Wavelet::k5x3Reversible; }
};

// fn(first, count) over the samples of a component that are returned: all of them, or the
// rows of its window (region decoding), in parallel.
template <class Fn>
void over_returned(const ComponentState& cs, const Fn& fn) {
  const size_t pitch = cs.out_rect.width();
  if (!cs.windowed) {
    in_chunks(pitch * cs.out_rect.height(), fn);
    return;
  }
  const Rect& w = cs.window;
  const int64_t rows = int64_t{w.y1} - w.y0;
#pragma omp parallel for schedule(static) if (rows * w.width() >= (int64_t{1} << 16))
  for (int64_t k = 0; k < rows; ++k) fn((w.y0 + static_cast<size_t>(k)) * pitch + w.x0, w.width());
}

entropy::BandKind band_kind(Band b) {
  return static_cast<entropy::BandKind>(static_cast<uint8_t>(b));
}

transform::QuantStep to_quant_step(const StepSize& s) {
  return {s.exponent, s.mantissa};
}

// Whether code-block `cb` (on the grid of a subband of level n) can influence the region: its
// footprint at full resolution, widened by the synthesis filters' reach, meets the region.
// kReach = 8 subband samples is more than the 9/7 synthesis support summed over levels
// (4 + 4/2 + 4/4 + ... < 8).
bool block_meets_region(const Rect& cb, int n, const Rect& region, int64_t kReach = 8) {
  const int64_t scale = int64_t{1} << std::min(n, 31);
  int64_t x0 = (int64_t{cb.x0} - kReach) * scale, x1 = (int64_t{cb.x1} + kReach) * scale;
  int64_t y0 = (int64_t{cb.y0} - kReach) * scale, y1 = (int64_t{cb.y1} + kReach) * scale;
  return x0 < region.x1 && x1 > region.x0 && y0 < region.y1 && y1 > region.y0;
}

// Tier-2 (tier2.h): the codeword segments of the code-blocks that will be decoded, those of a
// region decode only where they can influence the region.
void read_blocks(std::span<const uint8_t> bytes, const Codestream& code, uint32_t t,
                 std::vector<ComponentState>& comps, const TileDecodeOptions& o,
                 std::vector<std::string>* warnings) {
  PacketReadOptions ro;
  for (const ComponentState& cs : comps)
    ro.components.push_back({&cs.layout, cs.decode ? cs.kept_levels : -1});
  ro.max_layers = o.max_layers;
  ro.allow_partial = o.allow_partial;
  if (o.region)
    ro.keep_block = [&comps](uint32_t c, const BandLayout& band, const Rect& cb) {
      const ComponentState& cs = comps[c];
      return !cs.has_region || block_meets_region(cb, band.level, cs.region);
    };
  std::vector<BlockSegmentMap> blocks = read_tile_packets(bytes, code, t, ro, warnings);
  for (size_t c = 0; c < comps.size(); ++c) comps[c].blocks = std::move(blocks[c]);
}

// Tier-1 for every code-block of the kept resolutions, ROI undo (H.1), then the coefficients
// into each component's buffer: integers (5/3) or dequantized floats (9/7, E.1.1.2). Every
// sample of the buffers is written, zero where a code-block has no data, so they need no
// zero fill beforehand (and are first touched by the threads that decode them). The one
// exception: a windowed component (region decoding on the CPU) leaves code-blocks without
// data far from the region unwritten, as its inverse DWT never reads them.
void decode_blocks(std::vector<ComponentState>& comps, const TileDecodeOptions& o, uint32_t t,
                   std::vector<std::string>* warnings) {
  struct Job {
    ComponentState* cs;
    const BandLayout* band;
    uint32_t r, b, index;
    BlockSegments* seg;  // null: no data, the block is zero
  };
  std::vector<Job> jobs;
  for (auto& cs : comps) {
    if (!cs.decode || cs.out_rect.empty()) continue;
    for (uint32_t r = 0; r <= static_cast<uint32_t>(cs.kept_levels); ++r) {
      const ResolutionLayout& res = cs.layout.resolutions[r];
      for (uint32_t b = 0; b < res.bands.size(); ++b) {
        const BandLayout& band = res.bands[b];
        const uint32_t count = band.blocks_x * band.blocks_y;
        for (uint32_t index = 0; index < count; ++index) {
          auto it = cs.blocks.find(block_key(r, b, index));
          jobs.push_back({&cs, &band, r, b, index, it == cs.blocks.end() ? nullptr : &it->second});
        }
      }
    }
  }
  std::string error;
  ErrorCode error_code = ErrorCode::kFormat;
  uint64_t over_passes = 0;  // code-blocks with passes past 3 Nb - 2
#pragma omp parallel for schedule(dynamic, 4) num_threads(std::max(1, o.threads)) \
    reduction(+ : over_passes)
  for (size_t j = 0; j < jobs.size(); ++j) {
    const Job& job = jobs[j];
    ComponentState& cs = *job.cs;
    const BandLayout& band = *job.band;
    const uint32_t bi = job.index % band.blocks_x, bj = job.index / band.blocks_x;
    const Rect cb = band.code_block(bi, bj);
    if (cb.empty()) continue;
    const int n = band.level;
    // Where the block lies in the Mallat arrangement of the kept resolutions.
    const int kept_n = n - (cs.levels - cs.kept_levels);
    const auto place = transform::band_placement(cs.out_rect, cs.kept_levels,
                                                 cs.levels == 0 ? 0 : kept_n, band.band);
    const size_t x = place.x_off + (cb.x0 - band.rect.x0);
    const size_t y = place.y_off + (cb.y0 - band.rect.y0);
    const size_t pitch = cs.out_rect.width();
    const StepSize step = cs.quant->step(cs.levels, n, band.band);
    const int mb = transform::magnitude_bits(cs.quant->guard_bits, to_quant_step(step));
    const int planes = job.seg ? mb + cs.roi_shift - job.seg->missing_msbs : 0;
    auto zero_block = [&] {
      for (uint32_t yy = 0; yy < cb.height(); ++yy) {
        if (cs.reversible())
          std::fill_n(cs.int_coeffs + (y + yy) * pitch + x, cb.width(), 0);
        else
          std::fill_n(cs.float_coeffs + (y + yy) * pitch + x, cb.width(), 0.0f);
      }
    };
    if (!job.seg || job.seg->segs.empty() || planes <= 0) {  // no data: zero coefficients
      // (unless the windowed inverse DWT cannot read it: its reach is under 8 samples at any
      // level, dwt_cpu.cpp kWindowMargin; 16 leaves room)
      if (!cs.windowed || block_meets_region(cb, n, cs.region, 16)) zero_block();
      continue;
    }
    // Tier-1 writes every sample of the block (decode_block's contract): on the 5/3 path
    // straight into the component buffer, then halved in place; on the 9/7 path into a
    // per-thread scratch block that is then dequantized into the float buffer.
    thread_local std::vector<int32_t> scratch;
    int32_t* out;
    size_t stride;
    if (cs.reversible()) {
      out = cs.int_coeffs + y * pitch + x;
      stride = pitch;
    } else {
      stride = cb.width();
      if (scratch.size() < size_t{cb.width()} * cb.height())
        scratch.resize(size_t{cb.width()} * cb.height());
      out = scratch.data();
    }
    std::vector<entropy::Segment> segs;
    static const uint8_t kNoData = 0;  // a valid pointer for segments without bytes
    const uint8_t* base = job.seg->bytes.empty() ? &kNoData : job.seg->bytes.data();
    for (const auto& s : job.seg->segs) segs.push_back({base + s.offset, s.length, s.passes});
    try {
      if (entropy::decode_block(segs.data(), segs.size(), static_cast<uint32_t>(planes),
                                band_kind(band.band), cs.coding->cblk_style, out, stride,
                                cb.width(), cb.height()) > 0)
        ++over_passes;
    } catch (const Error& e) {
#pragma omp critical(gj2k_decode_error)
      if (error.empty()) {
        error = "code-block (" + std::to_string(bi) + "," + std::to_string(bj) +
                ") of resolution " + std::to_string(job.r) + ": " + e.what();
        error_code = e.code();
      }
      zero_block();  // --allow-partial: a block that failed reads as zero
      continue;
    }
    if (cs.roi_shift > 0) {  // H.1: coefficients at or above 2^s belong to the ROI
      const int s = cs.roi_shift;
      const int64_t threshold = int64_t{1} << (s + 1);  // half units
      for (uint32_t yy = 0; yy < cb.height(); ++yy)
        for (uint32_t xx = 0; xx < cb.width(); ++xx) {
          int32_t& v = out[yy * stride + xx];
          int64_t m = v < 0 ? -int64_t{v} : v;
          if (m >= threshold) v = static_cast<int32_t>(v < 0 ? -(m >> s) : (m >> s));
        }
    }
    if (!cs.reversible()) {
      // E.1.1.2 (E-6): an irreversible coefficient is reconstructed at (|q| + r) * step even
      // when all its bit-planes were decoded; Tier-1 adds r = 1/2 only below undecoded planes.
      uint32_t passes = 0;
      for (const auto& s : job.seg->segs) passes += s.passes;
      const uint32_t all = entropy::max_passes(static_cast<uint32_t>(planes));
      if (passes >= all - std::min<uint32_t>(all, 2)) {
        // Through the last bit-plane's passes: a coefficient whose magnitude is a multiple of
        // 2 (4 in half units) had its last plane decoded (one with p >= 1 undecoded planes is
        // odd at plane p). When every pass was decoded, every nonzero coefficient was.
        const bool complete = passes >= all;
        for (uint32_t yy = 0; yy < cb.height(); ++yy)
          for (uint32_t xx = 0; xx < cb.width(); ++xx) {
            int32_t& v = out[yy * stride + xx];
            if (v == 0) continue;
            const uint32_t m = v < 0 ? 0u - static_cast<uint32_t>(v) : static_cast<uint32_t>(v);
            if (complete || (m & 3) == 0) v += v < 0 ? -1 : 1;
          }
      }
    }
    if (cs.reversible()) {
      // Half units to integers: the fractional bit is the midpoint of a truncated block.
      for (uint32_t yy = 0; yy < cb.height(); ++yy) {
        int32_t* v = out + yy * stride;  // the component buffer
        for (uint32_t xx = 0; xx < cb.width(); ++xx)
          v[xx] = v[xx] < 0 ? -((-v[xx]) >> 1) : (v[xx] >> 1);
      }
    } else {
      // E.1.1.2: value * step, with the step of this subband (E-3); half units.
      const double delta = transform::step_size(
          transform::nominal_range(static_cast<int>(cs.precision), band.band), to_quant_step(step));
      const float scale = static_cast<float>(delta * 0.5);
      for (uint32_t yy = 0; yy < cb.height(); ++yy) {
        const int32_t* src = out + yy * stride;
        float* dst = cs.float_coeffs + (y + yy) * pitch + x;
        for (uint32_t xx = 0; xx < cb.width(); ++xx) dst[xx] = static_cast<float>(src[xx]) * scale;
      }
    }
  }
  if (!error.empty() && !o.allow_partial) fail(error_code, t, error);
  if (over_passes > 0 && warnings)
    warnings->push_back("tile " + std::to_string(t) + ": " + std::to_string(over_passes) +
                        " code-blocks carry more coding passes than 3 Nb - 2 for their Nb "
                        "bit-planes; the passes past those were ignored");
  if (!error.empty() && warnings)
    warnings->push_back("tile " + std::to_string(t) + ": " + error + " (decoded as zero)");
}

// The inverse DWT of one component (its coefficients are already dequantized).
void reconstruct(ComponentState& cs) {
  const Rect& rect = cs.out_rect;
  if (rect.empty()) return;
  if (cs.windowed) {  // only where the region needs it (dwt_cpu.h)
    const Rect want{rect.x0 + cs.window.x0, rect.y0 + cs.window.y0, rect.x0 + cs.window.x1,
                    rect.y0 + cs.window.y1};
    if (cs.reversible())
      transform::cpu::inverse53_window({cs.ints.data(), rect.width()}, rect, cs.kept_levels, want);
    else
      transform::cpu::inverse97_window({cs.floats.data(), rect.width()}, rect, cs.kept_levels,
                                       want);
    return;
  }
  const auto& ops = transform::dwt_ops(transform::DwtVariant::kCpu);
  if (cs.reversible())
    ops.inverse53({cs.ints.data(), rect.width()}, rect, cs.kept_levels);
  else
    ops.inverse97({cs.floats.data(), rect.width()}, rect, cs.kept_levels);
}

// The inverse DC level shift offset (G.1.2) and the sample range of a component.
void sample_range(const ComponentState& cs, int32_t& off, int32_t& l, int32_t& h) {
  off = transform::dc_offset(static_cast<int>(cs.precision), cs.is_signed);
  l = static_cast<int32_t>(cs.is_signed ? -(int64_t{1} << (cs.precision - 1)) : 0);
  h = static_cast<int32_t>(cs.is_signed ? (int64_t{1} << (cs.precision - 1)) - 1
                                        : (int64_t{1} << cs.precision) - 1);
}

}  // namespace

uint64_t tile_samples(const Codestream& code, uint32_t t, const TileDecodeOptions& o) {
  uint64_t total = 0;
  const MainHeader& main = code.main;
  const Tile* tile = t < code.tiles.size() ? &code.tiles[t] : nullptr;
  for (uint16_t c = 0; c < main.siz.components.size(); ++c) {
    const auto& coding = effective_coding(main, tile ? &tile->header : nullptr, c);
    const Rect tc = tile_component_rect(main.siz, t, c);
    const int kept = std::max(0, int(coding.levels) - int(o.reduce));
    const Rect r = transform::resolution_rect(tc, coding.levels, kept);
    total += uint64_t{r.width()} * r.height();
  }
  return total;
}

std::vector<TileComponentSamples> decode_tile(std::span<const uint8_t> cs_bytes,
                                              const Codestream& code, uint32_t t,
                                              const TileDecodeOptions& o,
                                              std::vector<std::string>* warnings) {
  const MainHeader& main = code.main;
  if (t >= code.tiles.size()) fail(ErrorCode::kInvalidArgument, t, "no such tile");
  const Tile& tile = code.tiles[t];
  const size_t ncomp = main.siz.components.size();
  const CodingStyle& cod = effective_cod(main, &tile.header);
  std::vector<ComponentState> comps(ncomp);
  const bool mct = cod.mct != 0 && ncomp >= 3 && !o.skip_mct;
  for (uint16_t c = 0; c < ncomp; ++c) {
    ComponentState& cs = comps[c];
    cs.coding = &effective_coding(main, &tile.header, c);
    cs.quant = &effective_quantization(main, &tile.header, c);
    cs.roi_shift = effective_roi_shift(main, &tile.header, c);
    cs.precision = main.siz.components[c].precision;
    cs.is_signed = main.siz.components[c].is_signed;
    cs.levels = cs.coding->levels;
    const bool wanted = c < o.components.size() && o.components[c];
    bool needed_by_mct = false;
    if (mct && c < 3)
      for (int k = 0; k < 3; ++k) needed_by_mct |= k < int(o.components.size()) && o.components[k];
    cs.decode = wanted || needed_by_mct;
    const Rect tc = tile_component_rect(main.siz, t, c);
    std::vector<PrecinctExponents> pex;
    for (const PrecinctSize& p : cs.coding->precincts) pex.push_back({p.ppx, p.ppy});
    cs.layout = make_layout(tc, cs.levels, cs.coding->xcb, cs.coding->ycb, pex);
    if (cs.decode) {
      if (static_cast<int>(o.reduce) > cs.levels)
        fail(ErrorCode::kInvalidArgument, t,
             "reduce " + std::to_string(o.reduce) + " exceeds the " + std::to_string(cs.levels) +
                 " decomposition levels of component " + std::to_string(c));
      cs.kept_levels = cs.levels - static_cast<int>(o.reduce);
      cs.out_rect = transform::resolution_rect(tc, cs.levels, cs.kept_levels);
      if (o.region) {
        const auto& sc = main.siz.components[c];
        cs.has_region = true;
        cs.region = {(o.region->x0 + sc.dx - 1) / sc.dx, (o.region->y0 + sc.dy - 1) / sc.dy,
                     static_cast<uint32_t>((uint64_t{o.region->x1} + sc.dx - 1) / sc.dx),
                     static_cast<uint32_t>((uint64_t{o.region->y1} + sc.dy - 1) / sc.dy)};
      }
    }
  }

  read_blocks(cs_bytes, code, t, comps, o, warnings);
  // Inverse MCT (G.2 / G.3) on components 0..2 when they were decoded with equal sizes.
  const bool tile_mct = mct && comps[0].decode && comps[0].out_rect == comps[1].out_rect &&
                        comps[0].out_rect == comps[2].out_rect;
  std::vector<TileComponentSamples> out(ncomp);
  // The tail's device (inverse DWT, MCT, DC shift, clipping): the GPU when the decode may use
  // it (o.gpu) and one is there. Asked after Tier-1, so that the device query and CUDA
  // start-up overlap it, except for region decodes: the CPU's windowed inverse DWT must know
  // before Tier-1 which code-blocks it may leave unwritten, while the GPU's needs them all.
  std::optional<bool> on_gpu;
  if (!o.gpu)
    on_gpu = false;
  else if (o.region)
    on_gpu = o.gpu->use();
  for (auto& cs : comps) {
    if (!cs.decode) continue;
    if (cs.has_region && on_gpu == false) {
      // The region on the decoded resolution's grid (B-14: ceil(x / 2^reduce)), as positions
      // in out_rect; the caller keeps only those samples.
      const int r = std::min(cs.levels - cs.kept_levels, 31);
      auto down = [r](uint32_t v) {
        return static_cast<uint32_t>((uint64_t{v} + (uint64_t{1} << r) - 1) >> r);
      };
      const Rect& o = cs.out_rect;
      const uint32_t x0 = std::clamp(down(cs.region.x0), o.x0, o.x1);
      const uint32_t x1 = std::clamp(down(cs.region.x1), x0, o.x1);
      const uint32_t y0 = std::clamp(down(cs.region.y0), o.y0, o.y1);
      const uint32_t y1 = std::clamp(down(cs.region.y1), y0, o.y1);
      cs.windowed = true;
      cs.window = {x0 - o.x0, y0 - o.y0, x1 - o.x0, y1 - o.y0};
    }
    const size_t n = size_t{cs.out_rect.width()} * cs.out_rect.height();
    if (cs.reversible()) {  // no zero fill: decode_blocks writes every sample
      cs.ints.resize(n);
      cs.int_coeffs = cs.ints.data();
    } else {
      cs.floats.resize(n);
      cs.float_coeffs = cs.floats.data();
    }
  }
  decode_blocks(comps, o, t, warnings);
  for (auto& cs : comps)
    for (auto& [k, b] : cs.blocks) std::vector<uint8_t>().swap(b.bytes);

  if (!on_gpu) on_gpu = o.gpu->use();
  if (*on_gpu) {  // inverse DWT, MCT, DC shift and clipping on the device (decoder_gpu.h)
    std::vector<GpuComponent> gc(ncomp);
    for (size_t c = 0; c < ncomp; ++c) {
      ComponentState& cs = comps[c];
      const bool wanted = c < o.components.size() && o.components[c];
      gc[c] = {cs.out_rect, cs.kept_levels, cs.decode, wanted, cs.reversible()};
      sample_range(cs, gc[c].offset, gc[c].lo, gc[c].hi);
      if (!cs.decode) continue;
      if (cs.reversible()) {
        gc[c].coeffs = cs.ints.data();
        if (wanted) out[c].samples = std::move(cs.ints);  // reused for the samples
      } else {
        gc[c].coeffs = cs.floats.data();
      }
    }
    finish_tile_gpu(gc, tile_mct, o.threads, out);
    return out;
  }
  for (auto& cs : comps)
    if (cs.decode) reconstruct(cs);

  // Inverse multiple component transformation (G.2 / G.3) on components 0..2, inverse DC
  // level shift (G.1.2), rounding of the irreversible path and clipping, in parallel chunks.
  int32_t offset[3], lo[3], hi[3];
  std::vector<bool> done(ncomp, false);
  if (tile_mct) {
    const size_t n = size_t{comps[0].out_rect.width()} * comps[0].out_rect.height();
    for (size_t c = 0; c < 3; ++c) sample_range(comps[c], offset[c], lo[c], hi[c]);
    if (comps[0].reversible() && comps[1].reversible() && comps[2].reversible()) {
      int32_t* p[3] = {comps[0].ints.data(), comps[1].ints.data(), comps[2].ints.data()};
      over_returned(comps[0], [&](size_t i, size_t len) {
        transform::rct_inverse_dc_shift(p[0] + i, p[1] + i, p[2] + i, len, offset, lo, hi);
      });
      for (size_t c = 0; c < 3; ++c) {
        out[c].rect = comps[c].out_rect;
        out[c].samples = std::move(comps[c].ints);
      }
    } else {
      for (size_t c = 0; c < 3; ++c)
        if (comps[c].reversible()) {  // mixed kernels: bring the integers to float
          ComponentState& m = comps[c];
          m.floats.resize(m.ints.size());
          over_returned(m, [&](size_t i, size_t len) {  // what is returned is all that was made
            std::copy_n(m.ints.data() + i, len, m.floats.data() + i);
          });
          Samples().swap(m.ints);
        }
      for (size_t c = 0; c < 3; ++c) {
        out[c].rect = comps[c].out_rect;
        out[c].samples.resize(n);
      }
      const float* f[3] = {comps[0].floats.data(), comps[1].floats.data(), comps[2].floats.data()};
      int32_t* d[3] = {out[0].samples.data(), out[1].samples.data(), out[2].samples.data()};
      over_returned(comps[0], [&](size_t i, size_t len) {
        transform::ict_inverse_dc_shift(f[0] + i, f[1] + i, f[2] + i, d[0] + i, d[1] + i, d[2] + i,
                                        len, offset, lo, hi);
      });
    }
    done[0] = done[1] = done[2] = true;
  }
  for (size_t c = 0; c < ncomp; ++c) {
    ComponentState& cs = comps[c];
    const bool wanted = c < o.components.size() && o.components[c];
    if (!wanted) {
      out[c] = {};
      continue;
    }
    if (done[c]) continue;
    int32_t off, l, h;
    sample_range(cs, off, l, h);
    out[c].rect = cs.out_rect;
    const size_t n = size_t{cs.out_rect.width()} * cs.out_rect.height();
    if (cs.reversible()) {
      int32_t* p = cs.ints.data();
      over_returned(cs, [&](size_t i, size_t len) {
        transform::dc_shift_inverse_clamp(p + i, len, off, l, h);
      });
      out[c].samples = std::move(cs.ints);
    } else {
      out[c].samples.resize(n);
      const float* f = cs.floats.data();
      int32_t* d = out[c].samples.data();
      over_returned(cs, [&](size_t i, size_t len) {
        transform::float_to_int_dc_shift(f + i, d + i, len, off, l, h);
      });
    }
  }
  return out;
}

}  // namespace gj2k::codec
