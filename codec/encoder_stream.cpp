// Encoder, whole image: PCRD-opt rate allocation over every code-block (entropy/rate_control.h),
// Tier-2 packets in progression order (B.9-B.12), tile-parts (A.4.2), pointer markers (TLM,
// PLT; A.7) and the main header (A.5-A.6). When layers have byte targets, the codestream is
// assembled, measured, and the thresholds refined until the final size is within 1% of the
// target (under it when possible).
#include <algorithm>
#include <cmath>
#include <exception>
#include <string>

#include "codec/encoder_internal.h"
#include "codec/markers/writer.h"
#include "codec/progression.h"
#include "entropy/rate_control.h"
#include "entropy/t2_packet.h"
#include "gj2k/error.h"

namespace gj2k::codec {
namespace {

using entropy::RateAllocator;

struct Packet {
  PacketId id;
  std::vector<uint8_t> bytes;  // SOP + header + EPH + body (body left out when measuring)
  size_t body = 0;             // body bytes
  size_t size() const { return measured ? bytes.size() + body : bytes.size(); }
  bool measured = false;
};

// Bytes of block data that passes [0, passes) occupy.
uint32_t bytes_through(const entropy::EncodedBlock& b, uint32_t passes) {
  return passes ? b.passes[passes - 1].end : 0;
}

// All packets of one tile in progression order.
std::vector<Packet> tile_packets(const TileCoding& tile, const EncodeSetup& setup, bool measure) {
  const MainHeader& mh = setup.main;
  const CodingStyle& cod = mh.cod;
  const uint8_t style = cod.component.cblk_style;
  const entropy::SegmentStyle seg{(style & cblk_style::kBypass) != 0,
                                  (style & cblk_style::kTermAll) != 0};
  const entropy::PacketFraming framing{cod.sop, cod.eph};
  const uint32_t layers = static_cast<uint32_t>(setup.layers);

  // Precinct coders, indexed [c][r][p].
  std::vector<std::vector<std::vector<entropy::PacketEncoder>>> coders(tile.components.size());
  std::vector<std::vector<std::vector<Precinct>>> precincts(tile.components.size());
  TileProgression tp;
  tp.tile = tile.rect;
  tp.layers = layers;
  for (size_t c = 0; c < tile.components.size(); ++c) {
    const TileComponentCoding& tcc = tile.components[c];
    const auto& res = tcc.layout.resolutions;
    coders[c].resize(res.size());
    precincts[c].resize(res.size());
    for (size_t r = 0; r < res.size(); ++r) {
      const uint32_t np = res[r].precinct_count();
      precincts[c][r].reserve(np);
      coders[c][r].reserve(np);
      for (uint32_t p = 0; p < np; ++p) {
        Precinct prec = res[r].precinct(p);
        std::vector<entropy::PrecinctBandShape> shapes;
        for (const PrecinctBand& pb : prec.bands) shapes.push_back({pb.blocks_x, pb.blocks_y});
        entropy::PacketEncoder enc(shapes, seg);
        for (size_t b = 0; b < prec.bands.size(); ++b) {
          const PrecinctBand& pb = prec.bands[b];
          const BandLayout& bl = res[r].bands[b];
          for (uint32_t j = 0; j < pb.blocks_y; ++j)
            for (uint32_t i = 0; i < pb.blocks_x; ++i) {
              const BlockCoding& blk =
                  tcc.bands[r][b].blocks[size_t{pb.cb_j0 + j} * bl.blocks_x + pb.cb_i0 + i];
              if (!blk.layer_passes.empty() && blk.layer_passes.back() > 0)
                enc.set_missing_msbs(b, j * pb.blocks_x + i,
                                     static_cast<int>(blk.enc.missing_msbs));
            }
        }
        coders[c][r].push_back(std::move(enc));
        precincts[c][r].push_back(std::move(prec));
      }
    }
    tp.components.push_back(
        component_precincts(tcc.layout, mh.siz.components[c].dx, mh.siz.components[c].dy));
  }

  std::vector<PacketId> order;
  if (mh.poc.empty()) {
    order = packet_order(tp, cod.progression);
  } else {
    order = packet_order(tp, mh.poc);
  }

  std::vector<Packet> packets;
  packets.reserve(order.size());
  std::vector<std::vector<entropy::BlockContribution>> contrib;
  uint32_t index = 0;
  for (const PacketId& id : order) {
    const TileComponentCoding& tcc = tile.components[id.component];
    const Precinct& prec = precincts[id.component][id.resolution][id.precinct];
    const auto& bands = tcc.layout.resolutions[id.resolution].bands;
    contrib.assign(prec.bands.size(), {});
    Packet pk;
    pk.id = id;
    pk.measured = measure;
    for (size_t b = 0; b < prec.bands.size(); ++b) {
      const PrecinctBand& pb = prec.bands[b];
      contrib[b].resize(pb.block_count());
      for (uint32_t j = 0; j < pb.blocks_y; ++j)
        for (uint32_t i = 0; i < pb.blocks_x; ++i) {
          const BlockCoding& blk =
              tcc.bands[id.resolution][b]
                  .blocks[size_t{pb.cb_j0 + j} * bands[b].blocks_x + pb.cb_i0 + i];
          entropy::BlockContribution& bc = contrib[b][j * pb.blocks_x + i];
          if (blk.layer_passes.empty()) continue;
          const uint32_t prev = id.layer ? blk.layer_passes[id.layer - 1] : 0;
          const uint32_t cur = blk.layer_passes[id.layer];
          if (cur <= prev) continue;
          bc.new_passes = static_cast<int>(cur - prev);
          uint32_t first = prev;
          for (int n : entropy::split_passes(seg, static_cast<int>(prev), bc.new_passes)) {
            const uint32_t last = first + static_cast<uint32_t>(n);
            bc.piece_lengths.push_back(bytes_through(blk.enc, last) -
                                       bytes_through(blk.enc, first));
            first = last;
          }
        }
    }
    coders[id.component][id.resolution][id.precinct].encode_packet(
        static_cast<int>(id.layer), contrib, framing, index++, pk.bytes);
    // Bodies in the header's order: bands, then blocks in raster order.
    for (size_t b = 0; b < prec.bands.size(); ++b) {
      const PrecinctBand& pb = prec.bands[b];
      for (uint32_t j = 0; j < pb.blocks_y; ++j)
        for (uint32_t i = 0; i < pb.blocks_x; ++i) {
          const BlockCoding& blk =
              tcc.bands[id.resolution][b]
                  .blocks[size_t{pb.cb_j0 + j} * bands[b].blocks_x + pb.cb_i0 + i];
          if (blk.layer_passes.empty()) continue;
          const uint32_t prev = id.layer ? blk.layer_passes[id.layer - 1] : 0;
          const uint32_t cur = blk.layer_passes[id.layer];
          if (cur <= prev) continue;
          const uint8_t* d = blk.enc.data.data();
          pk.body += bytes_through(blk.enc, cur) - bytes_through(blk.enc, prev);
          if (!measure)
            pk.bytes.insert(pk.bytes.end(), d + bytes_through(blk.enc, prev),
                            d + bytes_through(blk.enc, cur));
        }
    }
    packets.push_back(std::move(pk));
  }
  return packets;
}

// The value of the tile-part split key for a packet (-1: never split).
int64_t split_key(TilePartSplit split, const PacketId& id) {
  switch (split) {
    case TilePartSplit::kResolution:
      return id.resolution;
    case TilePartSplit::kLayer:
      return id.layer;
    case TilePartSplit::kComponent:
      return id.component;
    case TilePartSplit::kNone:
      break;
  }
  return -1;
}

struct Assembled {
  std::vector<uint8_t> stream;        // empty when measuring
  uint64_t size = 0;                  // codestream bytes
  std::vector<uint64_t> layer_bytes;  // headers + packets of layers <= l
};

// Writes the codestream for the current layer_passes of every block.
// With `measure`, packet bodies are counted, not copied: layer_bytes and the size are exact,
// the stream is not.
Assembled assemble(const std::vector<TileCoding>& tiles, EncodeSetup& setup,
                   const EncodeParams& params, bool measure) {
  const size_t layers = static_cast<size_t>(setup.layers);
  std::vector<uint64_t> layer_packet_bytes(layers, 0);
  struct TilePart {
    uint16_t tile;
    std::vector<uint8_t> bytes;
    size_t skipped = 0;  // body bytes not copied (measuring)
    size_t size() const { return bytes.size() + skipped; }
  };
  std::vector<TilePart> parts;
  // Packets of every tile, tiles in parallel (Tier-2 state is per precinct, so per tile).
  std::vector<std::vector<Packet>> tile_packet_lists(tiles.size());
  std::exception_ptr failure;
#pragma omp parallel for schedule(dynamic, 1) if (tiles.size() > 1)
  for (int64_t t = 0; t < static_cast<int64_t>(tiles.size()); ++t) {
    try {
      tile_packet_lists[static_cast<size_t>(t)] =
          tile_packets(tiles[static_cast<size_t>(t)], setup, measure);
    } catch (...) {
#pragma omp critical(gj2k_encode_packets)
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
  for (size_t ti = 0; ti < tiles.size(); ++ti) {
    const TileCoding& tile = tiles[ti];
    std::vector<Packet> packets = std::move(tile_packet_lists[ti]);
    // Split into tile-parts.
    std::vector<std::pair<size_t, size_t>> ranges;  // [begin, end) packet indices
    size_t begin = 0;
    for (size_t i = 1; i <= packets.size(); ++i) {
      if (i == packets.size() || split_key(params.tile_parts, packets[i].id) !=
                                     split_key(params.tile_parts, packets[i - 1].id)) {
        ranges.push_back({begin, i});
        begin = i;
      }
    }
    if (ranges.empty()) ranges.push_back({0, 0});
    if (ranges.size() > 255)
      throw Error(ErrorCode::kInvalidArgument,
                  "--tile-parts: tile " + std::to_string(tile.index) + " would need " +
                      std::to_string(ranges.size()) +
                      " tile-parts (at most 255); choose a progression order that groups them");
    for (size_t k = 0; k < ranges.size(); ++k) {
      ByteWriter w;
      TilePartHeader tph;
      tph.isot = static_cast<uint16_t>(tile.index);
      tph.tpsot = static_cast<uint8_t>(k);
      tph.tnsot = static_cast<uint8_t>(ranges.size());
      // SOT, [PLT], SOD.
      const size_t sot = write_sot(w, tph.isot, 0, tph.tpsot, tph.tnsot);
      if (params.plt) {
        std::vector<uint32_t> lengths;
        for (size_t i = ranges[k].first; i < ranges[k].second; ++i)
          lengths.push_back(static_cast<uint32_t>(packets[i].size()));
        if (!lengths.empty()) write_plt_segments(w, lengths, 0);
      }
      write_sod(w);
      size_t body_skipped = 0;
      for (size_t i = ranges[k].first; i < ranges[k].second; ++i) {
        w.bytes(packets[i].bytes);
        layer_packet_bytes[packets[i].id.layer] += packets[i].size();
        body_skipped += packets[i].size() - packets[i].bytes.size();
      }
      if (!measure) patch_psot(w, sot);
      parts.push_back({tph.isot, w.release(), body_skipped});
    }
  }

  // Main header, with TLM when asked (ST = 2: 16-bit tile indices, SP = 4: 32-bit lengths).
  MainHeader& mh = setup.main;
  mh.tlm.clear();
  if (params.tlm) {
    const size_t per_segment = (65535 - 4) / 6;
    for (size_t i = 0; i < parts.size(); i += per_segment) {
      Tlm tlm;
      tlm.index = static_cast<uint8_t>(mh.tlm.size());
      if (mh.tlm.size() > 255)
        throw Error(ErrorCode::kInvalidArgument, "--tlm: too many tile-parts for 256 TLM segments");
      tlm.tile_bytes = 2;
      tlm.length_bytes = 4;
      for (size_t k = i; k < std::min(parts.size(), i + per_segment); ++k)
        tlm.entries.push_back({parts[k].tile, static_cast<uint32_t>(parts[k].size())});
      mh.tlm.push_back(std::move(tlm));
    }
  }
  ByteWriter out;
  write_main_header(out, mh);
  size_t total = out.size() + 2;
  for (const TilePart& p : parts) total += p.size();
  Assembled a;
  a.size = total;
  if (!measure) {
    out.data().reserve(total);
    for (const TilePart& p : parts) out.bytes(p.bytes);
    write_eoc(out);
    a.stream = out.release();
    if (a.stream.size() != total)
      throw Error(ErrorCode::kInternal, "encoder: codestream size bookkeeping is off");
  }
  uint64_t packet_total = 0;
  for (uint64_t b : layer_packet_bytes) packet_total += b;
  const uint64_t overhead = a.size - packet_total;
  uint64_t cumulative = overhead;
  for (uint64_t b : layer_packet_bytes) {
    cumulative += b;
    a.layer_bytes.push_back(cumulative);
  }
  return a;
}

// Sets every block's layer_passes from per-layer thresholds; the last layer's from
// `last_passes` (indexed by allocator block) when given.
void apply_thresholds(std::vector<TileCoding>& tiles, const RateAllocator& ra,
                      const std::vector<double>& lambda, const std::vector<uint32_t>* last_passes) {
  for (TileCoding& tile : tiles)
    for (TileComponentCoding& tcc : tile.components)
      for (auto& res : tcc.bands)
        for (BandCoding& bc : res)
          for (BlockCoding& blk : bc.blocks) {
            blk.layer_passes.assign(lambda.size(), 0);
            if (blk.rc == UINT32_MAX) continue;
            for (size_t l = 0; l < lambda.size(); ++l)
              blk.layer_passes[l] = l + 1 == lambda.size() && last_passes
                                        ? (*last_passes)[blk.rc]
                                        : ra.passes_at(blk.rc, lambda[l]);
          }
}

}  // namespace

std::vector<uint8_t> assemble_codestream(std::vector<TileCoding>& tiles, EncodeSetup& setup,
                                         const EncodeParams& params, const Image& image,
                                         EncodeStats* stats) {
  const size_t layers = static_cast<size_t>(setup.layers);
  // Register every block with passes.
  RateAllocator ra;
  std::vector<uint32_t> ends;
  std::vector<double> gains;
  uint64_t blocks = 0;
  for (TileCoding& tile : tiles)
    for (TileComponentCoding& tcc : tile.components)
      for (auto& res : tcc.bands)
        for (BandCoding& bc : res)
          for (BlockCoding& blk : bc.blocks) {
            ++blocks;
            if (blk.enc.passes.empty()) continue;
            ends.clear();
            gains.clear();
            for (const entropy::CodedPass& p : blk.enc.passes) {
              ends.push_back(p.end);
              gains.push_back(p.distortion * bc.weight);
            }
            blk.rc = static_cast<uint32_t>(ra.add_block(ends.data(), gains.data(), ends.size()));
          }
  if (stats) stats->code_blocks = blocks;

  // Per-layer targets: bytes (ratio, bpp), distortion (PSNR), or none (lossless last layer).
  uint64_t raw_bits = 0;
  double peak = 0;
  uint64_t samples = 0;
  for (const Component& c : image.components) {
    raw_bits += uint64_t{c.width} * c.height * c.precision;
    samples += uint64_t{c.width} * c.height;
    peak = std::max(peak, double((uint64_t{1} << c.precision) - 1));
  }
  const double pixels = double(image.width()) * double(image.height());
  std::vector<double> byte_target(layers, -1);  // -1: no byte target for that layer
  std::vector<double> lambda(layers, RateAllocator::kAllPasses);
  if (!params.rates.empty()) {
    for (size_t l = 0; l < layers; ++l)
      if (params.rates[l] > 1) byte_target[l] = double(raw_bits) / 8.0 / params.rates[l];
  } else if (!params.bpp.empty()) {
    for (size_t l = 0; l < layers; ++l) byte_target[l] = params.bpp[l] * pixels / 8.0;
  } else if (!params.psnr.empty()) {
    // The model (distortion decrease of the included passes, weighted by the synthesis norms)
    // picks thresholds; the last layer's error is then measured exactly and the model's MSE
    // target scaled until the measured PSNR is at or above the target, within 0.1 dB.
    const double energy = ra.total_gain_all();
    const size_t last = layers - 1;
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
  } else if (layers > 1) {
    // Lossless with several layers: each lower layer holds about half the data of the next.
    const double all = double(ra.total_bytes(RateAllocator::kAllPasses));
    for (size_t l = 0; l + 1 < layers; ++l)
      lambda[l] = ra.threshold_for_bytes(all / std::pow(2.0, double(layers - 1 - l)));
  }
  // Container bytes outside the codestream count toward the target too.
  const double container = setup.container_bytes;
  const size_t last = layers - 1;
  bool have_bytes = false;
  for (size_t l = 0; l < layers; ++l) have_bytes |= byte_target[l] >= 0;
  // Overhead (markers, packet headers) per layer: first a guess, then measured.
  std::vector<double> overhead(layers);
  for (size_t l = 0; l < layers; ++l) overhead[l] = 200 + container + double(blocks) * (l + 1);

  // The last layer's target sets the file size: search its data budget B with measured sizes
  // (bracketing + secant) until the file is at most the target and within 0.2% of it. Lower
  // layers follow a fixed-point estimate of their overhead.
  const double target = byte_target[last];
  double budget = target - overhead[last];
  double under_b = -1, under_size = -1, over_b = -1, over_size = -1;
  auto set_lambdas = [&](double last_budget) {
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
  const uint64_t all_hull_bytes = ra.total_bytes(1e-300);
  const int max_rounds = have_bytes ? 16 : 0;
  for (int round = 0; round < max_rounds; ++round) {
    set_lambdas(budget);
    report_progress(params, "rate control", double(round + 1) / max_rounds);
    const Assembled a = assemble(tiles, setup, params, /*measure=*/true);
    const double size = double(a.size) + container;
    for (size_t l = 0; l < last; ++l)
      overhead[l] = double(a.layer_bytes[l]) + container - double(ra.total_bytes(lambda[l]));
    if (target < 0) {
      if (round >= 2) break;
      continue;
    }
    if (size <= target) {
      if (size > under_size) under_b = budget, under_size = size;
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
  Assembled best = assemble(tiles, setup, params, /*measure=*/false);
  if (stats) stats->layer_bytes = best.layer_bytes;
  return std::move(best.stream);
}

}  // namespace gj2k::codec
