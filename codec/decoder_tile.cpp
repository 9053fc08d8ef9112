// One tile of the decoder (codec/decoder_tile.h).
#include "codec/decoder_tile.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <future>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "codec/gpu_warm_up.h"
#include "codec/parallel.h"
#include "codec/sample_cache.h"
#include "codec/structure.h"
#include "codec/tier2.h"
#include "codec/trace.h"
#include "core/memory.h"
#include "core/thread_pool.h"
#include "entropy/t1.h"
#include "gj2k/error.h"
#include "transform/device.h"
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
  // Code-blocks with data, keyed by (resolution, band index, block index in the band).
  BlockSegmentMap blocks;
  // The coefficients of the kept resolutions (plane.rect: resolution kept_levels of the
  // tile-component), allocated without a zero fill: decode_blocks writes every sample (zeros
  // for code-blocks without data), except, when plane.window is set (region decoding on the
  // CPU), code-blocks without data far from the region, which the windowed inverse DWT never
  // reads.
  CoefficientPlane plane;
  bool reversible() const { return coding->wavelet == Wavelet::k53; }
};

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
// region decode only where they can influence the region, into comps[c].blocks. Returns what
// else was read: the tile's data, which the segments reference.
TilePackets read_blocks(std::span<const uint8_t> bytes, const Codestream& code, uint32_t t,
                        std::vector<ComponentState>& comps, const TileDecodeOptions& o,
                        std::vector<std::string>* warnings,
                        std::function<void(const TileReadProgress&)> on_resolution_read = nullptr,
                        std::function<void(bool)> on_reading_end = nullptr) {
  PacketReadOptions ro;
  for (const ComponentState& cs : comps)
    ro.components.push_back({&cs.layout, cs.decode ? cs.kept_levels : -1});
  ro.max_layers = o.max_layers;
  ro.allow_partial = o.allow_partial;
  ro.on_resolution_read = std::move(on_resolution_read);
  ro.on_reading_end = std::move(on_reading_end);
  if (o.region)
    ro.keep_block = [&comps](uint32_t c, const BandLayout& band, const Rect& cb) {
      const ComponentState& cs = comps[c];
      return !cs.has_region || block_meets_region(cb, band.level, cs.region);
    };
  TilePackets packets = read_tile_packets(bytes, code, t, ro, warnings);
  for (size_t c = 0; c < comps.size(); ++c) comps[c].blocks = std::move(packets.blocks[c]);
  return packets;
}

// What every code-block of a band shares: where the band lies in the Mallat arrangement of
// the component's plane (band_placement), its step size and Mb (E.1).
struct BandConstants {
  size_t x_off = 0, y_off = 0;
  StepSize step;
  int magnitude_bits = 0;
};

// One code-block of the kept resolutions to decode: its component, band and data.
struct BlockJob {
  ComponentState* cs;
  const BandLayout* band;
  const BandConstants* consts;
  uint32_t r, index;
  const BlockSegments* seg;  // null: no data, the block is zero
  size_t order;              // its place among all the tile's blocks in list_blocks' order
};

// Every code-block of the kept resolutions, in component, resolution, band and raster order;
// `jobs` point into `bands`.
struct BlockList {
  std::vector<BandConstants> bands;
  std::vector<BlockJob> jobs;
};

// Their data from `maps` (one per component: Tier-2's while it reads) or, when null, from
// each component's blocks. With `take`, only the resolutions it marks (take[c][r] != 0); the
// blocks keep their `order` among all.
BlockList list_blocks(std::vector<ComponentState>& comps, const BlockSegmentMap* maps = nullptr,
                      const std::vector<std::vector<uint8_t>>* take = nullptr) {
  BlockList list;
  size_t bands = 0, blocks = 0;
  for (const auto& cs : comps) {
    if (!cs.decode || cs.plane.rect.empty()) continue;
    for (uint32_t r = 0; r <= static_cast<uint32_t>(cs.kept_levels); ++r)
      for (const BandLayout& band : cs.layout.resolutions[r].bands) {
        ++bands;
        blocks += size_t{band.blocks_x} * band.blocks_y;
      }
  }
  list.bands.reserve(bands);  // no reallocation: the jobs point into it
  list.jobs.reserve(blocks);
  size_t order = 0;
  for (auto& cs : comps) {
    if (!cs.decode || cs.plane.rect.empty()) continue;
    const size_t c = size_t(&cs - comps.data());
    const BlockSegmentMap& blocks = maps ? maps[c] : cs.blocks;
    for (uint32_t r = 0; r <= static_cast<uint32_t>(cs.kept_levels); ++r) {
      const ResolutionLayout& res = cs.layout.resolutions[r];
      const bool taken = !take || (r < (*take)[c].size() && (*take)[c][r] != 0);
      for (uint32_t b = 0; b < res.bands.size(); ++b) {
        const BandLayout& band = res.bands[b];
        const uint32_t count = band.blocks_x * band.blocks_y;
        if (!taken) {
          order += count;
          continue;
        }
        BandConstants& k = list.bands.emplace_back();
        // The band's level among the kept resolutions.
        const int kept_n = band.level - (cs.levels - cs.kept_levels);
        const auto at = transform::band_placement(cs.plane.rect, cs.kept_levels,
                                                  cs.levels == 0 ? 0 : kept_n, band.band);
        k.x_off = at.x_off;
        k.y_off = at.y_off;
        k.step = cs.quant->step(cs.levels, band.level, band.band);
        k.magnitude_bits = transform::magnitude_bits(cs.quant->guard_bits, k.step);
        for (uint32_t index = 0; index < count; ++index)
          list.jobs.push_back(
              {&cs, &band, &k, r, index, blocks.find(block_key(r, b, index)), order++});
      }
    }
  }
  return list;
}

// Where a code-block of a component lands in its coefficient plane.
struct BlockPlace {
  Rect cb;              // the block on its band's grid
  size_t x = 0, y = 0;  // its first sample in the Mallat arrangement of the plane
};

BlockPlace place_block(const BlockJob& job) {
  const BandLayout& band = *job.band;
  BlockPlace p;
  p.cb = band.code_block(job.index % band.blocks_x, job.index / band.blocks_x);
  p.x = job.consts->x_off + (p.cb.x0 - band.rect.x0);
  p.y = job.consts->y_off + (p.cb.y0 - band.rect.y0);
  return p;
}

void zero_block(CoefficientPlane& plane, const BlockPlace& p) {
  const size_t pitch = plane.rect.width();
  for (uint32_t yy = 0; yy < p.cb.height(); ++yy) {
    const size_t at = (p.y + yy) * pitch + p.x;
    if (plane.reversible)
      std::fill_n(plane.ints.data() + at, p.cb.width(), 0);
    else
      std::fill_n(plane.floats() + at, p.cb.width(), 0.0f);
  }
}

// A block's segments as entropy::decode_block takes them, and the passes they hold. A segment
// in one piece points into the tile's `data`; one in parts is gathered into *gathered, or,
// when gathered is null (for entropy::check_block, which reads no bytes), points at its first
// part.
uint32_t segment_list(std::span<const uint8_t> data, const BlockSegments& seg,
                      std::vector<entropy::Segment>& segs, std::vector<uint8_t>* gathered) {
  segs.clear();
  static const uint8_t kNoData = 0;  // a valid pointer for segments without bytes
  if (gathered && !seg.parts.empty()) {
    size_t total = 0;
    for (const auto& s : seg.segs)
      if (s.parts) total += s.length;
    gathered->resize(total);
  }
  size_t at = 0;
  uint32_t passes = 0;
  for (const auto& s : seg.segs) {
    const uint8_t* bytes = &kNoData;
    if (s.length && s.parts == 0) {
      bytes = data.data() + s.offset;
    } else if (s.length && gathered) {
      bytes = gathered->data() + at;
      gather_segment(data, seg, s, gathered->data() + at);
      at += s.length;
    } else if (s.length) {
      bytes = data.data() + seg.parts[s.first_part].offset;
    }
    segs.push_back({bytes, s.length, s.passes});
    passes += s.passes;
  }
  return passes;
}

// What transform::reconstruct_block does with the values of a block of `cs` in `band`.
transform::BlockReconstruction reconstruction(const ComponentState& cs, const BandLayout& band,
                                              const StepSize& step, uint32_t passes,
                                              uint32_t planes) {
  transform::BlockReconstruction q;
  q.passes = passes;
  q.reversible = cs.plane.reversible;
  q.roi_shift = cs.roi_shift;
  q.all_passes = entropy::max_passes(planes);
  if (!q.reversible)
    q.delta = static_cast<float>(transform::step_size(
        transform::nominal_range(static_cast<int>(cs.precision), band.band), step));
  return q;
}

// Tier-1 (D) of one code-block with data, then its coefficients (transform::
// reconstruct_block: ROI undo H.1, E-6) into the plane. Returns the passes ignored past
// 3 Nb - 2. Tier-1 writes every sample of the block (decode_block's contract): on the 5/3 path
// straight into the plane, on the 9/7 path into a per-thread scratch block.
uint32_t decode_block_into(ComponentState& cs, const BandLayout& band, const StepSize& step,
                           const BlockPlace& p, std::span<const uint8_t> data,
                           const BlockSegments& seg, uint32_t planes) {
  CoefficientPlane& plane = cs.plane;
  const size_t pitch = plane.rect.width();
  const uint32_t w = p.cb.width(), h = p.cb.height();
  thread_local std::vector<int32_t> scratch;
  int32_t* out;
  size_t stride;
  if (plane.reversible) {
    out = plane.ints.data() + p.y * pitch + p.x;
    stride = pitch;
  } else {
    stride = w;
    if (scratch.size() < size_t{w} * h) scratch.resize(size_t{w} * h);
    out = scratch.data();
  }
  thread_local std::vector<entropy::Segment> segs;  // reused: no allocation per block
  thread_local std::vector<uint8_t> gathered;       // the block's segments in parts, in one piece
  const uint32_t passes = segment_list(data, seg, segs, &gathered);
  const uint32_t ignored = entropy::decode_block(segs.data(), segs.size(), planes, band.band,
                                                 cs.coding->cblk_style, out, stride, w, h);
  float* dst = plane.reversible ? nullptr : plane.floats() + p.y * pitch + p.x;
  transform::reconstruct_block(out, stride, w, h, reconstruction(cs, band, step, passes, planes),
                               dst, pitch);
  return ignored;
}

// The code-block errors of one tile: the first in block order is kept, whichever thread met
// it (and thrown unless allow_partial, the failed blocks then reading as zero), so that the
// CPU and GPU paths report the same one; blocks with passes past 3 Nb - 2 are counted.
struct BlockErrors {
  std::string error;
  size_t first = SIZE_MAX;  // its index in list_blocks' order
  ErrorCode code = ErrorCode::kFormat;
  uint64_t over_passes = 0;

  void record(const BlockJob& job, const Error& e) {
    if (job.order >= first) return;
    first = job.order;
    error = "code-block (" + std::to_string(job.index % job.band->blocks_x) + "," +
            std::to_string(job.index / job.band->blocks_x) + ") of resolution " +
            std::to_string(job.r) + ": " + e.what();
    code = e.code();
  }
  void report(const TileDecodeOptions& o, uint32_t t, std::vector<std::string>* warnings) const {
    if (!error.empty() && !o.allow_partial) fail(code, t, error);
    if (over_passes > 0 && warnings)
      warnings->push_back("tile " + std::to_string(t) + ": " + std::to_string(over_passes) +
                          " code-blocks carry more coding passes than 3 Nb - 2 for their Nb "
                          "bit-planes; the passes past those were ignored");
    if (!error.empty() && warnings)
      warnings->push_back("tile " + std::to_string(t) + ": " + error + " (decoded as zero)");
  }
};

// The coded bit-planes of a block with data (Mb + ROI shift - missing MSBs; <= 0: nothing
// to decode), its band's step, and whether Tier-1 has anything to decode (else the block's
// coefficients are zero).
struct BlockPlanes {
  StepSize step;
  int planes = 0;
  bool coded = false;
};
BlockPlanes block_planes(const BlockJob& job) {
  const ComponentState& cs = *job.cs;
  BlockPlanes b;
  b.step = job.consts->step;
  b.planes = job.seg ? job.consts->magnitude_bits + cs.roi_shift - job.seg->missing_msbs : 0;
  b.coded = job.seg && !job.seg->segs.empty() && b.planes > 0;
  return b;
}

// Tier-1 for every code-block of the kept resolutions, and their coefficients into each
// component's plane: integers (5/3) or dequantized floats (9/7, E.1.1.2). Every sample of the
// planes is written, zero where a code-block has no data, so they need no zero fill
// beforehand (and are first touched by the threads that decode them). The one exception: a
// windowed plane (region decoding on the CPU) leaves code-blocks without data far from the
// region unwritten, as its inverse DWT never reads them.
void decode_blocks(std::vector<ComponentState>& comps, std::span<const uint8_t> data,
                   const TileDecodeOptions& o, uint32_t t, std::vector<std::string>* warnings) {
  const BlockList list = list_blocks(comps);
  const std::vector<BlockJob>& jobs = list.jobs;
  BlockErrors errors;
  std::atomic<uint64_t> over_passes{0};  // code-blocks with passes past 3 Nb - 2
  std::mutex error_mutex;
  core::parallel_for(
      0, jobs.size(), 4,
      [&](size_t j) {
        const BlockJob& job = jobs[j];
        ComponentState& cs = *job.cs;
        const BlockPlace p = place_block(job);
        if (p.cb.empty()) return;
        const BlockPlanes bp = block_planes(job);
        if (!bp.coded) {  // no data: zero coefficients
          // (unless the windowed inverse DWT cannot read it: its reach is under 8 samples at any
          // level, dwt_cpu.cpp kWindowMargin; 16 leaves room)
          if (!cs.plane.window || block_meets_region(p.cb, job.band->level, cs.region, 16))
            zero_block(cs.plane, p);
          return;
        }
        try {
          if (decode_block_into(cs, *job.band, bp.step, p, data, *job.seg,
                                static_cast<uint32_t>(bp.planes)) > 0)
            over_passes.fetch_add(1, std::memory_order_relaxed);
        } catch (const Error& e) {
          {
            const std::lock_guard lock(error_mutex);
            errors.record(job, e);
          }
          zero_block(cs.plane, p);  // --allow-partial: a block that failed reads as zero
        }
      },
      std::max(1, o.threads));
  errors.over_passes = over_passes.load();
  errors.report(o, t, warnings);
}

// Tier-2's output of the kept resolutions as one table for the GPU decode (tile_backend.h):
// every block decode_blocks would decode, checked as entropy::decode_block checks it, with the
// same errors; blocks without data, and failed ones under allow_partial, are left out (zero).
// The segments in one piece of the tile's `data` are referenced there (source: the range of
// `data` they span), those in parts gathered into bytes; all are copied when that range would be
// more than twice their bytes (and 256 KB more), as when the kept layers or resolutions are a small
// part of the tile's data.
//
// With `part`, the table of one part of a tile decoded in parts (decode_tile): the blocks of
// the resolutions part->take marks (take[c][r] != 0), their data from part->maps (Tier-2's,
// while it reads) when set; their errors and over-long blocks go to part->errors (by their order
// among all the tile's blocks), which the caller reports once for the whole tile.
struct TablePart {
  const BlockSegmentMap* maps = nullptr;  // one per component
  const std::vector<std::vector<uint8_t>>* take = nullptr;
  BlockErrors* errors = nullptr;
};
CodeBlockTable block_table(std::vector<ComponentState>& comps, std::span<const uint8_t> data,
                           const TileDecodeOptions& o, uint32_t t,
                           std::vector<std::string>* warnings, const TablePart* part = nullptr) {
  const BlockList list =
      list_blocks(comps, part ? part->maps : nullptr, part ? part->take : nullptr);
  const std::vector<BlockJob>& jobs = list.jobs;
  // Each block's entry, checked as the CPU decoder checks it (entropy::check_block), the blocks
  // in parallel; its segments are listed after, in block order.
  struct Entry {
    bool keep = false, over_passes = false, too_many = false;
    CodeBlockTable::Block b;
  };
  std::vector<Entry> entries(jobs.size());
  BlockErrors own_errors;
  BlockErrors& errors = part ? *part->errors : own_errors;
  std::mutex errors_mutex;
  core::parallel_blocks(
      jobs.size(),
      [&](size_t first, size_t last) {
        std::vector<entropy::Segment> segs;
        for (size_t j = first; j < last; ++j) {
          const BlockJob& job = jobs[j];
          ComponentState& cs = *job.cs;
          const BlockPlace p = place_block(job);
          const BlockPlanes bp = block_planes(job);
          if (p.cb.empty() || !bp.coded) continue;
          const uint32_t passes = segment_list(data, *job.seg, segs, nullptr);
          uint64_t decoded = 0;
          Entry& e = entries[j];
          try {
            e.over_passes =
                entropy::check_block(segs.data(), segs.size(), static_cast<uint32_t>(bp.planes),
                                     job.band->band, cs.coding->cblk_style, p.cb.width(),
                                     p.cb.height(), &decoded) > 0;
          } catch (const Error& err) {
            std::lock_guard<std::mutex> lock(errors_mutex);
            errors.record(job, err);  // keeps the first block in order
            continue;
          }
          if (decoded == 0) continue;
          e.too_many = job.seg->segs.size() > UINT16_MAX;
          e.keep = !e.too_many;
          if (!e.keep) continue;
          CodeBlockTable::Block& b = e.b;
          b.component = static_cast<uint32_t>(&cs - comps.data());
          b.x = static_cast<uint32_t>(p.x);
          b.y = static_cast<uint32_t>(p.y);
          b.w = static_cast<uint16_t>(p.cb.width());
          b.h = static_cast<uint16_t>(p.cb.height());
          b.seg_count = static_cast<uint16_t>(job.seg->segs.size());
          b.planes = static_cast<uint8_t>(bp.planes);
          b.band = static_cast<uint8_t>(job.band->band);
          b.style = cs.coding->cblk_style;
          b.q = reconstruction(cs, *job.band, bp.step, passes, static_cast<uint32_t>(bp.planes));
        }
      },
      std::max(1, o.threads));
  // What the table's 16-bit segment counts and 32-bit offsets cannot hold.
  const auto too_large = [&] {
    fail(ErrorCode::kUnsupported, t,
         "more than 65535 codeword segments in a code-block, or 4 GB of code-block data in "
         "the tile, for the GPU decode (use --device cpu)");
  };
  // Where each kept block and its segments go in the table: prefix sums over the blocks
  // (a few operations each), so that the table is then filled in parallel.
  std::vector<uint32_t> block_at(jobs.size() + 1, 0);
  std::vector<uint64_t> seg_at(jobs.size() + 1, 0);
  for (size_t j = 0; j < jobs.size(); ++j) {
    const Entry& e = entries[j];
    errors.over_passes += e.over_passes;
    if (e.too_many) too_large();
    block_at[j + 1] = block_at[j] + (e.keep ? 1 : 0);
    seg_at[j + 1] = seg_at[j] + (e.keep ? jobs[j].seg->segs.size() : 0);
  }
  if (seg_at[jobs.size()] > UINT32_MAX) too_large();
  CodeBlockTable table;
  table.blocks.resize(block_at[jobs.size()]);
  table.segments.resize(seg_at[jobs.size()]);
  // Each listed segment: whether it lies in one piece of `data`. The range of `data` those
  // span, and how many bytes each kind holds, summed over the threads' runs of blocks.
  std::vector<uint8_t> in_data(table.segments.size());
  uint64_t lo = UINT64_MAX, hi = 0, referenced = 0, copied = 0;
  std::mutex sums_mutex;
  const int threads = std::max(1, o.threads);
  core::parallel_blocks(
      jobs.size(),
      [&](size_t first, size_t last) {
        uint64_t l = UINT64_MAX, h = 0, r = 0, c = 0;
        for (size_t j = first; j < last; ++j) {
          if (!entries[j].keep) continue;
          const BlockSegments& seg = *jobs[j].seg;
          CodeBlockTable::Block& b = table.blocks[block_at[j]];
          b = entries[j].b;
          b.seg_first = static_cast<uint32_t>(seg_at[j]);
          for (size_t k = 0; k < seg.segs.size(); ++k) {
            const BlockSegments::Seg& sg = seg.segs[k];
            table.segments[seg_at[j] + k] = {0, sg.length, sg.passes};
            const bool ref = sg.parts == 0 && sg.length > 0;
            in_data[seg_at[j] + k] = ref;
            if (ref) {
              l = std::min(l, sg.offset);
              h = std::max(h, sg.offset + sg.length);
              r += sg.length;
            } else {
              c += sg.length;
            }
          }
        }
        std::lock_guard<std::mutex> lock(sums_mutex);
        lo = std::min(lo, l);
        hi = std::max(hi, h);
        referenced += r;
        copied += c;
      },
      threads);
  const bool copy_all = referenced == 0 || hi - lo > 2 * referenced + (uint64_t{1} << 18);
  if (copy_all) {
    copied += referenced;
    lo = hi = 0;
  }
  if (hi - lo + copied > UINT32_MAX) too_large();
  if (!part) errors.report(o, t, warnings);
  table.source = data.subspan(lo, hi - lo);
  // The offsets: into the source, or after it where the copies go, each block's copies at the
  // sum of those before it; the copies are gathered in the same pass.
  std::vector<uint64_t> copy_at(jobs.size() + 1, 0);
  for (size_t j = 0; j < jobs.size(); ++j) {
    uint64_t n = 0;
    if (entries[j].keep)
      for (uint64_t i = seg_at[j]; i < seg_at[j + 1]; ++i)
        if (copy_all || !in_data[i]) n += table.segments[i].length;
    copy_at[j + 1] = copy_at[j] + n;
  }
  table.bytes.resize(copy_at[jobs.size()]);
  core::parallel_blocks(
      jobs.size(),
      [&](size_t first, size_t last) {
        for (size_t j = first; j < last; ++j) {
          if (!entries[j].keep) continue;
          const BlockSegments& seg = *jobs[j].seg;
          uint64_t at = copy_at[j];
          for (size_t k = 0; k < seg.segs.size(); ++k) {
            const uint64_t i = seg_at[j] + k;
            entropy::t1::SegmentRef& r = table.segments[i];
            if (!copy_all && in_data[i]) {
              r.offset = static_cast<uint32_t>(seg.segs[k].offset - lo);
              continue;
            }
            r.offset = static_cast<uint32_t>(table.source.size() + at);
            if (r.length) gather_segment(data, seg, seg.segs[k], table.bytes.data() + at);
            at += r.length;
          }
        }
      },
      threads);
  return table;
}

// Which components tile t decodes (requested, or needed by the MCT), with their coding,
// layout, kept resolutions, plane geometry and region.
std::vector<ComponentState> init_components(const Codestream& code, uint32_t t, bool mct,
                                            const TileDecodeOptions& o) {
  const MainHeader& main = code.main;
  const TileHeader& th = code.tiles[t].header;
  const size_t ncomp = main.siz.components.size();
  std::vector<ComponentState> comps(ncomp);
  TileLayout tile = make_tile_layout(main, &th, t);
  auto wanted = [&](size_t c) { return c < o.components.size() && o.components[c]; };
  for (uint16_t c = 0; c < ncomp; ++c) {
    ComponentState& cs = comps[c];
    cs.coding = &effective_coding(main, &th, c);
    cs.quant = &effective_quantization(main, &th, c);
    cs.roi_shift = effective_roi_shift(main, &th, c);
    cs.precision = main.siz.components[c].precision;
    cs.is_signed = main.siz.components[c].is_signed;
    cs.levels = cs.coding->levels;
    cs.decode = wanted(c) || (mct && c < 3 && (wanted(0) || wanted(1) || wanted(2)));
    cs.layout = std::move(tile.components[c]);
    const Rect& tc = cs.layout.rect;
    CoefficientPlane& plane = cs.plane;
    plane.decode = cs.decode;
    plane.wanted = wanted(c);
    plane.reversible = cs.reversible();
    set_sample_range(plane, static_cast<int>(cs.precision), cs.is_signed);
    if (!cs.decode) continue;
    if (static_cast<int>(o.reduce) > cs.levels)
      fail(ErrorCode::kInvalidArgument, t,
           "reduce " + std::to_string(o.reduce) + " exceeds the " + std::to_string(cs.levels) +
               " decomposition levels of component " + std::to_string(c));
    cs.kept_levels = cs.levels - static_cast<int>(o.reduce);
    plane.levels = cs.kept_levels;
    plane.rect = transform::resolution_rect(tc, cs.levels, cs.kept_levels);
    if (o.region) {
      const auto& sc = main.siz.components[c];
      cs.has_region = true;
      cs.region = {(o.region->x0 + sc.dx - 1) / sc.dx, (o.region->y0 + sc.dy - 1) / sc.dy,
                   static_cast<uint32_t>((uint64_t{o.region->x1} + sc.dx - 1) / sc.dx),
                   static_cast<uint32_t>((uint64_t{o.region->y1} + sc.dy - 1) / sc.dy)};
    }
  }
  return comps;
}

// The region on the decoded resolution's grid (B-14: ceil(x / 2^reduce)), as positions in
// the plane: the CPU backend's windowed inverse DWT computes only those samples.
Rect plane_window(const ComponentState& cs) {
  const int r = std::min(cs.levels - cs.kept_levels, 31);
  auto down = [r](uint32_t v) {
    return static_cast<uint32_t>((uint64_t{v} + (uint64_t{1} << r) - 1) >> r);
  };
  const Rect& o = cs.plane.rect;
  const uint32_t x0 = std::clamp(down(cs.region.x0), o.x0, o.x1);
  const uint32_t x1 = std::clamp(down(cs.region.x1), x0, o.x1);
  const uint32_t y0 = std::clamp(down(cs.region.y0), o.y0, o.y1);
  const uint32_t y1 = std::clamp(down(cs.region.y1), y0, o.y1);
  return {x0 - o.x0, y0 - o.y0, x1 - o.x0, y1 - o.y0};
}

// In a handler of e, a GPU decode's failure: rethrows it unless the device is too full for the
// tile (other work on it, or GJ2K_GPU_MEMORY_LIMIT); then warns that tile t decodes on the CPU
// instead, with the same samples.
void cpu_after_gpu_failure(const Error& e, uint32_t t, std::vector<std::string>* warnings) {
  if (!device_out_of_memory(e)) throw;
  if (warnings)
    warnings->push_back("tile " + std::to_string(t) +
                        ": the GPU is out of memory, decoded on the CPU");
}

// The GPU decode of a tile in parts (GpuTileDecode), so that the device decodes the code-blocks
// of the resolutions Tier-2 has finished while the host reads the rest: once the complete
// resolutions (every packet of them read: TileReadProgress) hold a fifth of the tile's
// code-blocks, their table is built and its Tier-1 launched from inside Tier-2 (with
// GJ2K_GPU_T2_PARTS=3, once the resolutions completed since hold another tenth, a second part
// follows the same way); the rest follows when Tier-2 is done. For resolution-first
// progressions (LRCP, RLCP, RPCL) the first part is the lower resolutions, for CPRL the first
// component. The samples are those of the one-table decode (the parts' blocks are disjoint and
// together the same blocks); the errors are reported once for the whole tile, the first in
// block order as before.
constexpr uint64_t kPartsMinBlocks = 8192;  // below this a tile takes one launch
constexpr uint64_t kPartsShare = 5;         // the first part: at least 1 / kPartsShare of them
constexpr uint64_t kLaterPartsShare = 10;   // a later early part: 1 / kLaterPartsShare
constexpr size_t kEarlyParts = 2;           // parts launched from inside Tier-2, at most

// The code-blocks of each kept resolution of each decoded component ([c][r]), and their sum.
std::vector<std::vector<uint64_t>> blocks_per_resolution(const std::vector<ComponentState>& comps,
                                                         uint64_t& total) {
  std::vector<std::vector<uint64_t>> n(comps.size());
  total = 0;
  for (size_t c = 0; c < comps.size(); ++c) {
    const ComponentState& cs = comps[c];
    if (!cs.decode) continue;
    for (int r = 0; r <= cs.kept_levels; ++r) {
      uint64_t k = 0;
      for (const BandLayout& band : cs.layout.resolutions[size_t(r)].bands)
        k += uint64_t{band.blocks_x} * band.blocks_y;
      n[c].push_back(k);
      total += k;
    }
  }
  return n;
}

// The most parts a tile is decoded in: two (one early part); GJ2K_GPU_T2_PARTS=n sets n, up to
// 1 + kEarlyParts (0 or 1: one launch), for measurements. A second early part measured no
// faster: the lowest resolutions' chains bound the device's Tier-1 however the rest is split
// (docs/PERFORMANCE.md, twentieth run).
size_t max_parts() {
  static const size_t n = [] {
    const char* v = std::getenv("GJ2K_GPU_T2_PARTS");
    return v && *v ? static_cast<size_t>(std::clamp(std::atoi(v), 1, int(1 + kEarlyParts))) : 2;
  }();
  return n;
}

// Whether tile t is worth decoding in parts: a tile of one tile-part (read_tile_packets tells
// its progress only so) and of at least kPartsMinBlocks code-blocks, unless max_parts() is 1.
bool decode_in_parts(const Codestream& code, uint32_t t, const std::vector<ComponentState>& comps) {
  uint64_t total = 0;
  blocks_per_resolution(comps, total);
  return max_parts() > 1 && code.tiles[t].parts.size() == 1 && total >= kPartsMinBlocks;
}

// Tier-2 of tile t with the code-block table in the parts above: each table goes to `take` as
// soon as it is built, the early ones from inside Tier-2 (none when no complete resolutions
// held enough code-blocks before the end), the last once Tier-2 and the error report are done.
// Returns what Tier-2 read. decode_tile_gpu_in_parts and tile_block_parts.
TilePackets read_in_parts(std::span<const uint8_t> cs_bytes, const Codestream& code, uint32_t t,
                          const TileDecodeOptions& o, std::vector<ComponentState>& comps,
                          std::vector<std::string>* warnings,
                          const std::function<void(CodeBlockTable&&, double, bool)>& take,
                          size_t parts = max_parts()) {
  uint64_t total = 0;
  const std::vector<std::vector<uint64_t>> blocks = blocks_per_resolution(comps, total);
  BlockErrors errors;
  std::vector<std::vector<uint8_t>> taken(comps.size());  // [c][r]: in an early part
  for (size_t c = 0; c < comps.size(); ++c) taken[c].assign(blocks[c].size(), 0);
  size_t early = 0;
  // An early part's table and take() (the GPU's jobs, arrangement, upload and launch: 3-4 ms
  // together) run on a helper thread while this one reads on; the next part's helper first
  // joins it (the ring and the streams are one take's at a time), and the last is joined when
  // the reading ends (on_reading_end below), before the rest is taken. Should anything throw
  // before, the future's destructor waits for the helper.
  std::future<void> taking;
  auto on_read = [&](const TileReadProgress& p) {
    if (early + 1 >= parts) return;
    uint64_t ready = 0, complete = 0;
    for (size_t c = 0; c < comps.size(); ++c)
      for (size_t r = 0; r < blocks[c].size() && r < p.complete[c].size(); ++r)
        if (p.complete[c][r]) {
          complete += blocks[c][r];
          if (!taken[c][r]) ready += blocks[c][r];
        }
    if (ready * (early == 0 ? kPartsShare : kLaterPartsShare) < total || complete == total) return;
    std::vector<std::vector<uint8_t>> mine(comps.size());
    for (size_t c = 0; c < comps.size(); ++c) {
      mine[c].assign(blocks[c].size(), 0);
      for (size_t r = 0; r < mine[c].size() && r < p.complete[c].size(); ++r)
        if (p.complete[c][r] && !taken[c][r]) mine[c][r] = taken[c][r] = 1;
    }
    // The first part's mapping is chosen for all (arrange_for_decode's share); later parts take it.
    const double share = early == 0 ? static_cast<double>(ready) / static_cast<double>(total) : 1.0;
    const bool middle = early > 0;
    // The table is built on the helper too, from Tier-2's maps of the complete resolutions
    // (whose entries Tier-2 no longer writes; BlockSegmentMap keeps them in place while it adds
    // others), while Tier-2 reads on; the helper is joined when the reading ends
    // (on_reading_end), before the maps are handed over.
    taking = async_in_scope([&take, &comps, &o, &errors, t, share, middle, data = p.data,
                             maps = p.blocks.data(), mine = std::move(mine),
                             before = std::move(taking)]() mutable {
      if (before.valid()) before.get();
      TraceStage trace(middle ? "code-block table, part 1" : "code-block table, part 0");
      const TablePart part{maps, &mine, &errors};
      CodeBlockTable table = block_table(comps, data, o, t, nullptr, &part);
      trace.end();
      take(std::move(table), share, middle);
    });
    ++early;
  };
  TraceStage trace_t2("tier-2");
  // The early parts' helpers read Tier-2's maps: joined before the maps are handed over.
  TilePackets packets =
      read_blocks(cs_bytes, code, t, comps, o, warnings, on_read, [&](bool failed) {
        if (!taking.valid()) return;
        if (failed)
          taking.wait();  // Tier-2's error goes on; the helper's, if any, is dropped
        else
          taking.get();  // an error of the early parts, if any, is thrown here
      });
  trace_t2.end();
  TraceStage trace_table("code-block table");
  std::vector<std::vector<uint8_t>> rest(comps.size());
  for (size_t c = 0; c < comps.size(); ++c)
    for (uint8_t in_early : taken[c]) rest[c].push_back(in_early ? 0 : 1);
  const TablePart part{nullptr, &rest, &errors};
  CodeBlockTable table = block_table(comps, packets.data, o, t, warnings, &part);
  errors.report(o, t, warnings);
  trace_table.end();
  take(std::move(table), 1.0, false);
  return packets;
}

// The decode of tile t on the GPU in parts (above). nullopt when the device is out of
// memory (a warning says so): the caller decodes the tile on the CPU, from Tier-2 again.
std::optional<std::vector<TileComponentSamples>> decode_tile_gpu_in_parts(
    std::span<const uint8_t> cs_bytes, const Codestream& code, uint32_t t,
    const TileDecodeOptions& o, std::vector<ComponentState>& comps, bool tile_mct,
    std::vector<std::string>* warnings) {
  std::vector<CoefficientPlane> planes;  // the geometry (no coefficients yet)
  for (const ComponentState& cs : comps) planes.push_back(cs.plane);
  try {
    std::list<CodeBlockTable> tables;  // alive until the decode is done (gpu's end too)
    GpuTileDecode gpu(planes, tile_mct, o.threads, o.pack);
    const TilePackets packets = read_in_parts(
        cs_bytes, code, t, o, comps, warnings,
        [&](CodeBlockTable&& table, double share, bool middle) {
          // A middle part's host share runs beside Tier-2: on a quarter of the threads.
          gpu.decode(tables.emplace_back(std::move(table)), share, middle ? 0.25 : 0.5);
        });
    TraceStage trace("gpu tile decode");
    std::vector<TileComponentSamples> out(comps.size());
    gpu.finish(out);
    return out;
  } catch (const Error& e) {
    cpu_after_gpu_failure(e, t, warnings);
    return std::nullopt;
  }
}

// The components of tile t as decode_tile sets them up, and whether the tile codes an MCT
// (for tile_block_table and tile_block_parts).
std::vector<ComponentState> tile_components(const Codestream& code, uint32_t t,
                                            const TileDecodeOptions& o, bool& mct) {
  const MainHeader& main = code.main;
  if (t >= code.tiles.size()) fail(ErrorCode::kInvalidArgument, t, "no such tile");
  const size_t ncomp = main.siz.components.size();
  mct = effective_cod(main, &code.tiles[t].header).mct != 0 && ncomp >= 3 && !o.skip_mct;
  return init_components(code, t, mct, o);
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
  const bool mct = cod.mct != 0 && ncomp >= 3 && !o.skip_mct;
  std::vector<ComponentState> comps = init_components(code, t, mct, o);
  // Inverse MCT (G.2 / G.3) on components 0..2 when they are decoded with equal sizes.
  const bool tile_mct = mct && comps[0].decode && comps[0].plane.rect == comps[1].plane.rect &&
                        comps[0].plane.rect == comps[2].plane.rect;
  // With the GPU already started in this process (a later decode), Tier-2 and the device
  // overlap: the tile is decoded in parts. The first decode of a process instead overlaps the
  // GPU's start-up with Tier-2 and the table (below).
  if (o.gpu && o.gpu->may_use() && transform::gpu_opened() && decode_in_parts(code, t, comps) &&
      o.gpu->use()) {
    if (auto out = decode_tile_gpu_in_parts(cs_bytes, code, t, o, comps, tile_mct, warnings))
      return std::move(*out);
    comps = init_components(code, t, mct, o);
  }

  TraceStage trace_t2("tier-2");
  // The tile's data, which the code-blocks' segments reference: kept until Tier-1 is done.
  TilePackets packets = read_blocks(cs_bytes, code, t, comps, o, warnings);
  trace_t2.end();
  std::vector<TileComponentSamples> out(ncomp);
  std::vector<CoefficientPlane> planes;
  planes.reserve(ncomp);
  // The GPU, when the decode may use it (o.gpu) and one is there, decodes everything from the
  // code-blocks on (cuda_decode_tile). Its table is built before the answer is awaited, so
  // that the device query and CUDA start-up overlap reading, parsing, Tier-2 and the table.
  if (o.gpu && o.gpu->may_use()) {
    TraceStage trace_table("code-block table");
    const CodeBlockTable table = block_table(comps, packets.data, o, t, warnings);
    trace_table.end();
    TraceStage trace_wait("gpu start-up wait");
    const bool on_gpu = o.gpu->use();
    trace_wait.end();
    if (on_gpu) {
      for (auto& cs : comps) planes.push_back(std::move(cs.plane));
      try {
        TraceStage trace("gpu tile decode");
        cuda_decode_tile(planes, table, tile_mct, o.threads, out, o.pack);
        return out;
      } catch (const Error& e) {
        cpu_after_gpu_failure(e, t, warnings);
        for (size_t c = 0; c < ncomp; ++c) comps[c].plane = std::move(planes[c]);
        planes.clear();
        out.assign(ncomp, TileComponentSamples{});
      }
    }
  }
  TraceStage trace_planes("coefficient planes");
  for (auto& cs : comps) {
    if (!cs.decode) continue;
    if (cs.has_region) cs.plane.window = plane_window(cs);
    const size_t n = size_t{cs.plane.rect.width()} * cs.plane.rect.height();
    // No zero fill: decode_blocks writes every sample.
    const bool fresh = cs.plane.allocate(n);
    // Threads decoding neighbouring code-blocks would fault the same fresh pages at once,
    // and the kernel then clears a huge page once per racing thread and keeps one. Faulted
    // in beforehand, each 2 MiB by one thread, every page is cleared once.
    if (o.threads > 1 && fresh) core::prefault(cs.plane.ints.data(), n * sizeof(int32_t));
  }
  trace_planes.end();
  TraceStage trace_t1("tier-1");
  decode_blocks(comps, packets.data, o, t, warnings);
  for (auto& cs : comps) {
    cs.blocks = BlockSegmentMap();
    planes.push_back(std::move(cs.plane));
  }
  std::vector<uint8_t>().swap(packets.joined);
  trace_t1.end();
  TraceStage trace("inverse transforms");
  cpu_inverse(planes, tile_mct, o.threads, out, o.pack);
  for (CoefficientPlane& p : planes) keep_samples(p.ints);  // those out did not take
  return out;
}

TileBlockTable tile_block_table(std::span<const uint8_t> cs_bytes, const Codestream& code,
                                uint32_t t, const TileDecodeOptions& o,
                                std::vector<std::string>* warnings) {
  bool mct = false;
  std::vector<ComponentState> comps = tile_components(code, t, o, mct);
  TilePackets packets = read_blocks(cs_bytes, code, t, comps, o, warnings);
  TileBlockTable out;
  out.table = block_table(comps, packets.data, o, t, warnings);
  out.joined = std::move(packets.joined);  // keeps its bytes, which the table may reference
  out.mct = mct && comps[0].decode && comps[0].plane.rect == comps[1].plane.rect &&
            comps[0].plane.rect == comps[2].plane.rect;
  for (auto& cs : comps) out.planes.push_back(std::move(cs.plane));
  return out;
}

TileBlockParts tile_block_parts(std::span<const uint8_t> cs_bytes, const Codestream& code,
                                uint32_t t, const TileDecodeOptions& o,
                                std::vector<std::string>* warnings, size_t parts) {
  bool mct = false;
  std::vector<ComponentState> comps = tile_components(code, t, o, mct);
  TileBlockParts out;
  TilePackets packets = read_in_parts(
      cs_bytes, code, t, o, comps, warnings,
      [&](CodeBlockTable&& table, double, bool) { out.tables.push_back(std::move(table)); },
      parts ? std::min<size_t>(parts, 1 + kEarlyParts) : max_parts());
  out.joined = std::move(packets.joined);
  return out;
}

}  // namespace gj2k::codec
