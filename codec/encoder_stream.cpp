// Encoder, whole image: PCRD-opt rate allocation over every code-block (entropy/rate_control.h),
// Tier-2 packets and tile-parts with PLT (tier2.h), TLM (A.7.1) and the main header (A.5-A.6). When
// layers have byte targets, the codestream is assembled, measured, and the thresholds refined until
// the final size is within 1% of the target (under it when possible).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <functional>
#include <future>
#include <optional>
#include <string>
#include <utility>

#include "codec/encoder_internal.h"
#include "codec/markers/writer.h"
#include "codec/parallel.h"
#include "codec/tier2.h"
#include "codec/trace.h"
#include "core/memory.h"
#include "core/thread_pool.h"
#include "entropy/rate_control.h"
#include "gj2k/error.h"

namespace gj2k::codec {
namespace {

using entropy::RateAllocator;

// The codestream for the blocks' layer_passes at the time it was written, not yet joined: the
// main header, and the tile-parts, whose packets' bodies are views of the blocks' data (valid
// while the tiles live).
struct Written {
  std::vector<std::vector<WrittenPacket>> packets;  // per tile, in progression order
  std::vector<WrittenTilePart> parts;               // views of `packets`
  std::vector<uint8_t> main_header;                 // SOC .. the last main-header segment
  std::vector<Tlm> tlm;                             // the main header's TLM segments
  uint64_t size = 0;                                // codestream bytes, EOC included
  std::vector<uint64_t> layer_bytes;                // headers + packets of layers <= l
};

// Writes every tile's packets and tile-parts and the main header (with TLM when asked, which
// is also left in setup.main).
Written write_codestream(const std::vector<TileCoding>& tiles, EncodeSetup& setup,
                         const EncodeParams& params) {
  const size_t layers = static_cast<size_t>(setup.layers);
  std::vector<uint64_t> layer_packet_bytes(layers, 0);
  Written w;
  // Packets of every tile, tiles in parallel (Tier-2 state is per precinct, so per tile).
  w.packets.resize(tiles.size());
  // A failure: the first tile's in tile order (the pool rethrows the lowest index's).
  core::parallel_for(0, tiles.size(), 1,
                     [&](size_t t) { w.packets[t] = write_tile_packets(tiles[t], setup.main); });
  for (size_t ti = 0; ti < tiles.size(); ++ti) {
    const std::vector<WrittenPacket>& packets = w.packets[ti];  // the parts' views
    for (const WrittenPacket& p : packets) layer_packet_bytes[p.id.layer] += p.size();
    for (WrittenTilePart& part : write_tile_parts(static_cast<uint16_t>(tiles[ti].index), packets,
                                                  params.tile_parts, params.plt))
      w.parts.push_back(std::move(part));
  }

  // Main header, with TLM when asked (ST = 2: 16-bit tile indices, SP = 4: 32-bit lengths).
  MainHeader& mh = setup.main;
  mh.tlm.clear();
  if (params.tlm) {
    const size_t per_segment = (65535 - 4) / 6;
    for (size_t i = 0; i < w.parts.size(); i += per_segment) {
      Tlm tlm;
      tlm.index = static_cast<uint8_t>(mh.tlm.size());
      if (mh.tlm.size() > 255)
        throw Error(ErrorCode::kInvalidArgument, "--tlm: too many tile-parts for 256 TLM segments");
      tlm.tile_bytes = 2;
      tlm.length_bytes = 4;
      for (size_t k = i; k < std::min(w.parts.size(), i + per_segment); ++k)
        tlm.entries.push_back({w.parts[k].tile, static_cast<uint32_t>(w.parts[k].size())});
      mh.tlm.push_back(std::move(tlm));
    }
  }
  w.tlm = mh.tlm;
  ByteWriter out;
  write_main_header(out, mh);
  w.main_header = std::move(out.data());
  w.size = w.main_header.size() + 2;  // and EOC
  for (const WrittenTilePart& p : w.parts) w.size += p.size();
  uint64_t packet_total = 0;
  for (uint64_t b : layer_packet_bytes) packet_total += b;
  uint64_t cumulative = w.size - packet_total;  // markers and tile-part headers
  for (uint64_t b : layer_packet_bytes) {
    cumulative += b;
    w.layer_bytes.push_back(cumulative);
  }
  return w;
}

// The codestream of `w` in one buffer. Every byte is copied once, into place, the pieces
// (headers and the code-block data ranges of the packets' bodies) in parallel: with one
// tile-part, a few packets hold most of the data.
// `prepared`: a buffer from prepare_stream, taken when its capacity holds the codestream.
std::vector<uint8_t> join(const Written& w, std::vector<uint8_t>* prepared = nullptr) {
  TraceStage trace_copy("codestream copy");
  struct Piece {
    const uint8_t* src;
    size_t n, at;
  };
  std::vector<Piece> pieces;
  size_t at = w.main_header.size();
  for (const WrittenTilePart& part : w.parts)
    part.for_each_piece([&](const uint8_t* p, size_t n) {
      pieces.push_back({p, n, at});
      at += n;
    });
  ByteWriter eoc;
  write_eoc(eoc);
  pieces.push_back({eoc.data().data(), eoc.size(), at});
  if (at + eoc.size() != w.size)
    throw Error(ErrorCode::kInternal, "encoder: codestream size bookkeeping is off");
  // Huge pages, faulted in by all threads, before the first touch: the zero fill that
  // std::vector cannot skip then runs over resident memory instead of faulting in every page
  // (and having the kernel zero it) on one thread.
  std::vector<uint8_t> stream;
  if (prepared && prepared->capacity() >= w.size) {
    stream = std::move(*prepared);
    stream.resize(w.size);  // zero-fills what lies beyond the prepared part: the headers
  } else {
    stream.reserve(w.size);
    if (w.size >= kHugePageHintBytes) advise_huge_pages(stream.data(), w.size);
    core::prefault(stream.data(), w.size);
    stream.resize(w.size);
  }
  std::memcpy(stream.data(), w.main_header.data(), w.main_header.size());
  core::parallel_for(
      0, pieces.size(), 256,
      [&](size_t i) {
        const Piece& pc = pieces[i];
        if (pc.n) std::memcpy(stream.data() + pc.at, pc.src, pc.n);
      },
      w.size >= (size_t{1} << 22) ? 0 : 1);
  return stream;
}

// A codestream buffer made on another thread while the caller writes the packets: capacity for
// `capacity` bytes, of which the first `known` (a size the codestream reaches) are faulted in
// and zero-filled. std::vector's zero fill cannot be skipped; this takes it off the critical
// path, leaving join the headers' few bytes beyond `known`. The thread runs loops on the
// caller's pool, thread count and context.
std::future<std::vector<uint8_t>> prepare_stream(size_t known, size_t capacity) {
  return async_in_scope([=] {
    std::vector<uint8_t> v;
    v.reserve(capacity);
    if (capacity >= kHugePageHintBytes) advise_huge_pages(v.data(), capacity);
    core::prefault(v.data(), known);
    v.resize(known);
    return v;
  });
}

// Sets every block's layer_passes from per-layer thresholds; the last layer's from
// `last_passes` (indexed by allocator block) when given. Bands in parallel.
void apply_thresholds(std::vector<TileCoding>& tiles, const RateAllocator& ra,
                      const std::vector<double>& lambda, const std::vector<uint32_t>* last_passes) {
  std::vector<BandCoding*> bands;
  for (TileCoding& tile : tiles)
    for (TileComponentCoding& tcc : tile.components)
      for (auto& res : tcc.bands)
        for (BandCoding& bc : res) bands.push_back(&bc);
  core::parallel_for(0, bands.size(), 1, [&](size_t i) {
    for (BlockCoding& blk : bands[i]->blocks) {
      blk.layer_passes.assign(lambda.size(), 0);
      if (blk.rc == UINT32_MAX) continue;
      for (size_t l = 0; l < lambda.size(); ++l)
        blk.layer_passes[l] = l + 1 == lambda.size() && last_passes
                                  ? (*last_passes)[blk.rc]
                                  : ra.passes_at(blk.rc, lambda[l]);
    }
  });
}

// Registers every code-block with passes with the allocator (blk.rc); returns how many
// code-blocks the tiles have.
// sum_gains: whether the allocator sums every pass's gain (only --psnr reads that sum,
// RateAllocator::total_gain_all).
uint64_t register_blocks(std::vector<TileCoding>& tiles, RateAllocator& ra, bool sum_gains) {
  // The blocks with passes in order, added at once (their hulls made in parallel).
  struct Item {
    BlockCoding* blk;
    double weight;
  };
  std::vector<Item> items;
  std::vector<uint32_t> passes;
  uint64_t blocks = 0;
  for (TileCoding& tile : tiles)
    for (TileComponentCoding& tcc : tile.components)
      for (auto& res : tcc.bands)
        for (BandCoding& bc : res)
          for (BlockCoding& blk : bc.blocks) {
            ++blocks;
            if (blk.passes().empty()) continue;
            items.push_back({&blk, bc.weight});
            passes.push_back(static_cast<uint32_t>(blk.passes().size()));
          }
  const size_t first = ra.add_blocks(
      items.size(), passes.data(),
      [&](size_t k, uint32_t* ends, double* gains) {
        const Item& it = items[k];
        for (const entropy::CodedPass& p : it.blk->passes()) {
          *ends++ = p.end;
          *gains++ = p.distortion * it.weight;
        }
      },
      [](int64_t n, const std::function<void(int64_t)>& body) {
        core::parallel_for(0, static_cast<size_t>(n), 1,
                           [&](size_t i) { body(static_cast<int64_t>(i)); });
      },
      sum_gains);
  for (size_t k = 0; k < items.size(); ++k) items[k].blk->rc = static_cast<uint32_t>(first + k);
  return blocks;
}

// --psnr: the model (distortion decrease of the included passes, weighted by the synthesis
// norms) picks thresholds; the last layer's error is then measured exactly (measure_sse, the
// decoder's reconstruction) and the model's MSE target scaled until the measured PSNR is at or
// above the target, within 0.1 dB.
void psnr_thresholds(std::vector<TileCoding>& tiles, const EncodeSetup& setup,
                     const EncodeParams& params, const Image& image, const RateAllocator& ra,
                     std::vector<double>& lambda) {
  const size_t layers = lambda.size(), last = layers - 1;
  double peak = 0;
  uint64_t samples = 0;
  for (const Component& c : image.components) {
    samples += uint64_t{c.width} * c.height;
    peak = std::max(peak, double((uint64_t{1} << c.precision) - 1));
  }
  const double energy = ra.total_gain_all();
  std::vector<double> target_mse(layers);
  for (size_t l = 0; l < layers; ++l)
    target_mse[l] = peak * peak / std::pow(10.0, params.psnr[l] / 10.0);
  auto set = [&](double scale) {
    for (size_t l = 0; l < layers; ++l)
      lambda[l] = ra.threshold_for_gain(energy - target_mse[l] * scale * double(samples));
    for (size_t l = 1; l < layers; ++l) lambda[l] = std::min(lambda[l], lambda[l - 1]);
  };
  double scale = 1, best_scale = 1, best_mse = -1, worst_scale = -1;
  set(scale);
  for (int round = 0; round < 8 && samples > 0; ++round) {
    apply_thresholds(tiles, ra, lambda, nullptr);
    const double mse = measure_sse(tiles, setup, image, last) / double(samples);
    report_progress(params, "rate control (PSNR)", (round + 1) / 8.0);
    if (mse <= target_mse[last]) {
      if (mse > best_mse) best_mse = mse, best_scale = scale;
      if (mse >= target_mse[last] * 0.977 || lambda[last] <= 0) break;  // within 0.1 dB
    } else if (worst_scale < 0 || scale < worst_scale) {
      worst_scale = scale;
    }
    double next = scale * target_mse[last] / std::max(mse, 1e-9);
    if (best_mse >= 0 && worst_scale >= 0 && !(next > best_scale && next < worst_scale))
      next = (best_scale + worst_scale) / 2;
    if (std::abs(next - scale) < 1e-6 * scale) break;
    scale = next;
    set(scale);
  }
  set(best_mse >= 0 ? best_scale : scale);
}

// Per-layer byte targets from --rate or --bpp (-1: none for that layer; container bytes
// outside the codestream count toward them).
std::vector<double> byte_targets(const EncodeParams& params, const Image& image, size_t layers) {
  std::vector<double> out(layers, -1);
  uint64_t raw_bits = 0;
  for (const Component& c : image.components)
    raw_bits += uint64_t{c.width} * c.height * c.precision;
  const double pixels = double(image.width()) * double(image.height());
  if (!params.rates.empty()) {
    for (size_t l = 0; l < layers; ++l)
      if (params.rates[l] > 1) out[l] = double(raw_bits) / 8.0 / params.rates[l];
  } else if (!params.bpp.empty()) {
    for (size_t l = 0; l < layers; ++l) out[l] = params.bpp[l] * pixels / 8.0;
  }
  return out;
}

// Byte targets: the last layer's target sets the file size. Its data budget B is searched with
// measured sizes (bracketing + secant) until the file is at most the target and within 0.2% of
// it; lower layers follow a fixed-point estimate of their overhead (markers, packet headers:
// first a guess, then measured). Without byte targets the thresholds are applied as they are.
// Returns the final codestream: the round that set the final thresholds is reused when they are
// those a measured round wrote (the usual case: the search stops on the round it keeps).
std::vector<uint8_t> fit_bytes(std::vector<TileCoding>& tiles, EncodeSetup& setup,
                               const EncodeParams& params, const RateAllocator& ra, uint64_t blocks,
                               const std::vector<double>& byte_target, std::vector<double>& lambda,
                               EncodeStats* stats) {
  const size_t layers = lambda.size(), last = layers - 1;
  const double container = setup.container_bytes;
  bool have_bytes = false;
  for (size_t l = 0; l < layers; ++l) have_bytes |= byte_target[l] >= 0;
  std::vector<double> overhead(layers);
  for (size_t l = 0; l < layers; ++l) overhead[l] = 200 + container + double(blocks) * (l + 1);
  const double target = byte_target[last];
  double budget = target - overhead[last];
  double under_b = -1, under_size = -1, over_b = -1, over_size = -1;
  // The inputs of the thresholds last applied: equal inputs give equal thresholds and passes,
  // so applying them again is skipped (the final call usually repeats the kept round's).
  std::optional<std::pair<double, std::vector<double>>> applied;
  auto set_lambdas = [&](double last_budget) {
    if (applied && applied->first == last_budget && applied->second == overhead) return;
    applied.emplace(last_budget, overhead);
    for (size_t l = 0; l < last; ++l)
      if (byte_target[l] >= 0)
        lambda[l] = ra.threshold_for_bytes(std::max(0.0, byte_target[l] - overhead[l]));
    if (target >= 0) lambda[last] = ra.threshold_for_bytes(std::max(0.0, last_budget));
    for (size_t l = 1; l < layers; ++l) lambda[l] = std::min(lambda[l], lambda[l - 1]);
    if (target >= 0) {
      const std::vector<uint32_t> passes = ra.fill(lambda[last], std::max(0.0, last_budget));
      apply_thresholds(tiles, ra, lambda, &passes);
    } else {
      apply_thresholds(tiles, ra, lambda, nullptr);
    }
  };
  // A measured round and what chose its passes: the thresholds and the last layer's budget
  // (fill's input). Equal inputs give equal layer_passes, so equal packets.
  struct Round {
    Written written;
    std::vector<double> lambda;
    double budget;
  };
  std::optional<Round> under, latest;  // the round kept as under_b; the last round
  const uint64_t all_hull_bytes = ra.total_bytes(1e-300);
  const int max_rounds = have_bytes ? 16 : 0;
  for (int round = 0; round < max_rounds; ++round) {
    set_lambdas(budget);
    report_progress(params, "rate control", double(round + 1) / max_rounds);
    TraceStage trace_round("rate control round");
    latest = Round{write_codestream(tiles, setup, params), lambda, budget};
    trace_round.end();
    const Written& w = latest->written;
    const double size = double(w.size) + container;
    for (size_t l = 0; l < last; ++l)
      overhead[l] = double(w.layer_bytes[l]) + container - double(ra.total_bytes(lambda[l]));
    if (target < 0) {
      if (round >= 2) break;
      continue;
    }
    if (size <= target) {
      if (size > under_size) {
        under_b = budget, under_size = size;
        under = std::move(latest);
        latest.reset();
      }
      if (size >= target * 0.998) break;
      if (budget >= double(all_hull_bytes)) break;  // nothing more to add
    } else if (over_b < 0 || budget < over_b) {
      over_b = budget, over_size = size;
    }
    if (under_b >= 0 && over_b >= 0) {
      if (over_b - under_b < 1) break;
      double next = under_b + (target - under_size) * (over_b - under_b) / (over_size - under_size);
      if (!(next > under_b && next < over_b)) next = (under_b + over_b) / 2;
      budget = next;
    } else {
      budget += target - size;
    }
  }
  if (target >= 0 && under_b >= 0) budget = under_b;
  set_lambdas(budget);
  const Written* final_written = nullptr;
  for (const std::optional<Round>* r : {&under, &latest})
    if (*r && (*r)->lambda == lambda && (*r)->budget == budget) final_written = &(*r)->written;
  Written fresh;
  if (final_written) {
    setup.main.tlm = final_written->tlm;  // as the reused round's main header has it
  } else {
    TraceStage trace_packets("tier-2 packets");
    fresh = write_codestream(tiles, setup, params);
    final_written = &fresh;
  }
  if (stats) stats->layer_bytes = final_written->layer_bytes;
  return join(*final_written);
}

// Lossless with one layer and no size or quality target: every pass of every block goes into
// the one layer (what threshold kAllPasses selects), without hulls.
void include_all_passes(std::vector<TileCoding>& tiles) {
  for (TileCoding& tile : tiles)
    for (TileComponentCoding& tcc : tile.components)
      for (auto& res : tcc.bands)
        for (BandCoding& bc : res)
          for (BlockCoding& blk : bc.blocks)
            blk.layer_passes.assign(1, static_cast<uint32_t>(blk.passes().size()));
}

}  // namespace

void wait_for_coded_bytes(std::vector<TileCoding>& tiles) {
  TraceStage trace_wait("coded bytes wait");
  for (TileCoding& tile : tiles)
    if (tile.coded_bytes_ready.valid()) tile.coded_bytes_ready.get();
}

std::vector<uint8_t> assemble_codestream(std::vector<TileCoding>& tiles, EncodeSetup& setup,
                                         const EncodeParams& params, const Image& image,
                                         EncodeStats* stats) {
  const size_t layers = static_cast<size_t>(setup.layers);
  if (!setup.distortion) {  // one layer, no target: every pass of every block, no hulls
    include_all_passes(tiles);
    uint64_t blocks = 0, data = 0, passes = 0;
    for (const TileCoding& tile : tiles)
      for (const TileComponentCoding& tcc : tile.components)
        for (const auto& res : tcc.bands)
          for (const BandCoding& bc : res) {
            blocks += bc.blocks.size();
            for (const BlockCoding& blk : bc.blocks) {
              const std::span<const entropy::CodedPass> p = blk.passes();
              data += p.empty() ? 0 : p.back().end;
              passes += p.size();
            }
          }
    if (stats) stats->code_blocks = blocks;
    // Every block's bytes go into the codestream; its headers add a little. With cores to
    // spare, a large one's buffer is prepared meanwhile, with room for generous headers
    // (address space only: pages beyond what is written are never touched). On two cores the
    // preparation slows Tier-2 down by more than it saves (docs/PERFORMANCE.md).
    std::future<std::vector<uint8_t>> prepared;
    if (data >= core::kPrefaultMinBytes && core::max_threads() >= 4)
      prepared = prepare_stream(data, data + data / 8 + 64 * blocks + 8 * passes + (4 << 20));
    wait_for_coded_bytes(tiles);
    TraceStage trace_packets("tier-2 packets");
    const Written w = write_codestream(tiles, setup, params);
    trace_packets.end();
    if (stats) stats->layer_bytes = w.layer_bytes;
    if (!prepared.valid()) return join(w);
    TraceStage trace_wait("codestream buffer wait");
    std::vector<uint8_t> buffer = prepared.get();
    trace_wait.end();
    return join(w, &buffer);
  }
  RateAllocator ra;
  TraceStage trace_hulls("rate control hulls");
  const bool psnr_targets = params.rates.empty() && params.bpp.empty() && !params.psnr.empty();
  const uint64_t blocks = register_blocks(tiles, ra, psnr_targets);
  trace_hulls.end();
  if (stats) stats->code_blocks = blocks;
  {
    TraceStage trace_order("rate control order");
    ra.prepare([](int64_t n, const std::function<void(int64_t)>& body) {
      core::parallel_for(0, static_cast<size_t>(n), 1,
                         [&](size_t i) { body(static_cast<int64_t>(i)); });
    });
  }
  // The hulls and the slope order read the pass records only; from here on, blocks' bytes.
  wait_for_coded_bytes(tiles);
  // Per-layer targets: bytes (ratio, bpp), distortion (PSNR), or none (lossless last layer).
  const std::vector<double> byte_target = byte_targets(params, image, layers);
  std::vector<double> lambda(layers, RateAllocator::kAllPasses);
  if (params.rates.empty() && params.bpp.empty() && !params.psnr.empty()) {
    psnr_thresholds(tiles, setup, params, image, ra, lambda);
  } else if (params.rates.empty() && params.bpp.empty() && layers > 1) {
    // Lossless with several layers: each lower layer holds about half the data of the next.
    const double all = double(ra.total_bytes(RateAllocator::kAllPasses));
    for (size_t l = 0; l + 1 < layers; ++l)
      lambda[l] = ra.threshold_for_bytes(all / std::pow(2.0, double(layers - 1 - l)));
  }
  return fit_bytes(tiles, setup, params, ra, blocks, byte_target, lambda, stats);
}

}  // namespace gj2k::codec
