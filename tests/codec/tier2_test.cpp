// Tier-2 round trips (codec/tier2.h): generated code-block data (random pass counts, pass
// lengths, layer splits and missing bit-planes on odd layouts) written by write_tile_packets
// and write_tile_parts (or packed into PPM/PPT here), parsed by read_codestream and read back
// by read_tile_packets, which must return exactly the codeword segments written, for every
// progression order, POC, SOP/EPH, PPM/PPT, several tiles and tile-parts; and truncated data
// under allow_partial.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>

#include "codec/encoder_internal.h"
#include "codec/markers/reader.h"
#include "codec/markers/writer.h"
#include "codec/tier2.h"
#include "entropy/t2_packet.h"
#include "gj2k/error.h"

namespace gj2k::codec {
namespace {

using Rng = std::mt19937;

uint32_t uni(Rng& rng, uint32_t lo, uint32_t hi) {
  return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
}

enum class Packing { kNone, kPpm, kPpt };

struct Config {
  ProgressionOrder order = ProgressionOrder::kLRCP;
  bool poc = false, sop = false, eph = false;
  Packing packing = Packing::kNone;
  TilePartSplit split = TilePartSplit::kNone;
  bool plt = false;
  bool straddle = false;  // two tile-parts cut inside a packet (packing kNone)
};

// A random header: 1..3 components with subsampling, 0..3 levels, small code-blocks (many per
// band), user precincts or not, 1..4 layers, a few tiles with an odd grid origin.
MainHeader random_header(Rng& rng, const Config& cfg) {
  MainHeader mh;
  Siz& s = mh.siz;
  // One axis: image origin and end, tile grid origin (at or before the image's) and tile size.
  auto axis = [&](uint32_t& origin, uint32_t& end, uint32_t& tile_origin, uint32_t& tile_size) {
    origin = uni(rng, 0, 9);
    end = origin + uni(rng, 1, 70);
    tile_origin = uni(rng, 0, origin);
    tile_size = std::max(origin - tile_origin + 1, uni(rng, 16, 80));
  };
  axis(s.xosiz, s.xsiz, s.xtosiz, s.xtsiz);
  axis(s.yosiz, s.ysiz, s.ytosiz, s.ytsiz);
  s.components.resize(uni(rng, 1, 3));
  for (SizComponent& c : s.components) {
    c.dx = static_cast<uint8_t>(uni(rng, 1, 3));
    c.dy = static_cast<uint8_t>(uni(rng, 1, 3));
  }
  CodingStyle& cod = mh.cod;
  cod.sop = cfg.sop;
  cod.eph = cfg.eph;
  cod.progression = cfg.order;
  cod.layers = static_cast<uint16_t>(uni(rng, 1, 4));
  ComponentCoding& cc = cod.component;
  cc.levels = static_cast<uint8_t>(uni(rng, 0, 3));
  cc.xcb = static_cast<uint8_t>(uni(rng, 2, 4));
  cc.ycb = static_cast<uint8_t>(uni(rng, 2, 4));
  cc.cblk_style = static_cast<uint8_t>(uni(rng, 0, 1) * cblk_style::kBypass |
                                       uni(rng, 0, 1) * cblk_style::kTermAll);
  if (uni(rng, 0, 1))
    for (int r = 0; r <= cc.levels; ++r)
      cc.precincts.push_back({static_cast<uint8_t>(uni(rng, r ? 1 : 0, 4)),
                              static_cast<uint8_t>(uni(rng, r ? 1 : 0, 4))});
  mh.qcd.steps.assign(3 * size_t{cc.levels} + 1, StepSize{8, 0});
  if (cfg.poc) {  // two random changes, then one over everything (as the encoder writes)
    const uint32_t ncomp = static_cast<uint32_t>(s.components.size());
    for (int i = 0; i < 2; ++i) {
      ProgressionChange ch;
      ch.res_start = uni(rng, 0, cc.levels);
      ch.res_end = uni(rng, ch.res_start + 1, cc.levels + 1u);
      ch.comp_start = uni(rng, 0, ncomp - 1);
      ch.comp_end = uni(rng, ch.comp_start + 1, ncomp);
      ch.layer_end = uni(rng, 1, cod.layers);
      ch.order = static_cast<ProgressionOrder>(uni(rng, 0, 4));
      mh.poc.push_back(ch);
    }
    mh.poc.push_back({0, 0, cod.layers, cc.levels + 1u, ncomp, cfg.order});
  }
  return mh;
}

// Random coded data for every code-block of tile t: pass ends (some passes empty), data, and
// cumulative passes per layer (some layers add none, some blocks are never included).
TileCoding random_tile(Rng& rng, const MainHeader& mh, uint32_t t) {
  const ComponentCoding& cc = mh.cod.component;
  std::vector<PrecinctExponents> pex;
  for (const PrecinctSize& p : cc.precincts) pex.push_back({p.ppx, p.ppy});
  TileCoding tile;
  tile.index = t;
  tile.rect = tile_rect(mh.siz, t);
  for (uint16_t c = 0; c < mh.siz.components.size(); ++c) {
    TileComponentCoding tcc;
    tcc.layout = make_layout(tile_component_rect(mh.siz, t, c), cc.levels, cc.xcb, cc.ycb, pex);
    for (const ResolutionLayout& res : tcc.layout.resolutions) {
      tcc.bands.emplace_back(res.bands.size());
      for (size_t b = 0; b < res.bands.size(); ++b) {
        tcc.bands.back()[b].blocks.resize(size_t{res.bands[b].blocks_x} * res.bands[b].blocks_y);
        for (BlockCoding& blk : tcc.bands.back()[b].blocks) {
          const uint32_t passes = uni(rng, 0, 3) == 0 ? 0 : uni(rng, 1, 40);
          blk.enc.missing_msbs = uni(rng, 0, 20);
          uint32_t end = 0;
          for (uint32_t p = 0; p < passes; ++p) {
            end += uni(rng, 0, 3) == 0 ? 0 : uni(rng, 1, 300);
            blk.enc.passes.push_back({0.0, end, false});
          }
          for (uint32_t i = 0; i < end; ++i) blk.enc.data.push_back(static_cast<uint8_t>(rng()));
          uint32_t included = 0;
          for (uint32_t l = 0; l < mh.cod.layers; ++l) {
            if (l + 1 == mh.cod.layers)
              included = passes;
            else if (uni(rng, 0, 1))
              included = uni(rng, included, passes);
            blk.layer_passes.push_back(included);
          }
        }
      }
    }
    tile.components.push_back(std::move(tcc));
  }
  return tile;
}

entropy::SegmentStyle segment_style(const MainHeader& mh) {
  const uint8_t style = mh.cod.component.cblk_style;
  return {(style & cblk_style::kBypass) != 0, (style & cblk_style::kTermAll) != 0};
}

// What read_tile_packets must return for a block whose first `passes` passes were read: its
// data through them (`bytes`), cut into codeword segments where a pass ends one (D.6 Table
// D.9), the last maybe open; each segment one piece of `bytes`.
struct Expected {
  BlockSegments block;
  std::vector<uint8_t> bytes;
};
Expected expected_segments(const BlockCoding& blk, const entropy::SegmentStyle& style,
                           uint32_t passes) {
  Expected want;
  const uint32_t bytes = passes ? blk.enc.passes[passes - 1].end : 0;
  want.bytes.assign(blk.enc.data.begin(), blk.enc.data.begin() + bytes);
  want.block.missing_msbs = static_cast<int>(blk.enc.missing_msbs);
  uint32_t start = 0;
  for (uint32_t p = 0; p < passes; ++p) {
    const uint32_t begin = p ? blk.enc.passes[p - 1].end : 0;
    if (p == 0 || entropy::pass_ends_segment(style, static_cast<int>(p) - 1)) {
      want.block.segs.push_back({begin, 0, 0});
      start = begin;
    }
    want.block.segs.back().length = blk.enc.passes[p].end - start;
    ++want.block.segs.back().passes;
  }
  return want;
}

std::vector<uint8_t> gathered(std::span<const uint8_t> data, const BlockSegments& block,
                              const BlockSegments::Seg& s) {
  std::vector<uint8_t> out(s.length);
  gather_segment(data, block, s, out.data());
  return out;
}

// `got` read from the tile data `data`: the same segments (bytes, passes) as `want`. With
// `one_layer`, every segment lies in one packet and must be one piece of the data.
void expect_same(std::span<const uint8_t> data, const BlockSegments& got, const Expected& want,
                 const std::string& at, bool one_layer) {
  SCOPED_TRACE(at);
  EXPECT_EQ(got.missing_msbs, want.block.missing_msbs);
  ASSERT_EQ(got.segs.size(), want.block.segs.size());
  for (size_t s = 0; s < got.segs.size(); ++s) {
    EXPECT_EQ(gathered(data, got, got.segs[s]),
              gathered(want.bytes, want.block, want.block.segs[s]))
        << "segment " << s;
    EXPECT_EQ(got.segs[s].length, want.block.segs[s].length) << "segment " << s;
    EXPECT_EQ(got.segs[s].passes, want.block.segs[s].passes) << "segment " << s;
    if (one_layer) {
      EXPECT_EQ(got.segs[s].parts, 0u) << "segment " << s;
    }
  }
  if (one_layer) {
    EXPECT_TRUE(got.parts.empty());
  }
}

// The packets' tile-parts (A.4.2) with the packet headers moved to PPM or PPT: SOP stays in
// the body (A.7.4). Returns each tile-part's SOT..end; `ppm` gets their packed headers.
std::vector<std::vector<uint8_t>> packed_tile_parts(uint16_t t,
                                                    std::span<const WrittenPacket> packets,
                                                    Packing packing, size_t parts,
                                                    std::vector<std::vector<uint8_t>>& ppm) {
  std::vector<std::vector<uint8_t>> out;
  for (size_t k = 0; k < parts; ++k) {  // packets split evenly over `parts` tile-parts
    const size_t first = packets.size() * k / parts, last = packets.size() * (k + 1) / parts;
    std::vector<uint8_t> headers, body;
    for (size_t i = first; i < last; ++i) {
      const std::vector<uint8_t> b = packets[i].joined();
      const size_t sop = packets[i].sop, hdr = packets[i].header;
      body.insert(body.end(), b.begin(), b.begin() + sop);
      headers.insert(headers.end(), b.begin() + sop, b.begin() + sop + hdr);
      body.insert(body.end(), b.begin() + sop + hdr, b.end());
    }
    TilePartHeader tp;
    tp.isot = t;
    tp.tpsot = static_cast<uint8_t>(k);
    tp.tnsot = static_cast<uint8_t>(parts);
    if (packing == Packing::kPpm)
      ppm.push_back(headers);
    else  // PPT segments of at most 1000 bytes, so that a long header list spans several
      for (size_t at = 0, z = 0; at < headers.size() || z == 0; at += 1000, ++z)
        tp.header.ppt.push_back(
            {static_cast<uint8_t>(z),
             std::vector<uint8_t>(headers.begin() + at,
                                  headers.begin() + std::min(headers.size(), at + 1000))});
    ByteWriter w;
    const size_t sot = write_tile_part_header(w, tp, 3);
    w.bytes(body);
    patch_psot(w, sot);
    out.push_back(w.release());
  }
  return out;
}

// The packets in two tile-parts, cut inside a packet of at least 2 bytes (one tile-part when
// there is none). Sets `cut` when it cut one.
std::vector<std::vector<uint8_t>> straddling_tile_parts(uint16_t t,
                                                        std::span<const WrittenPacket> packets,
                                                        Rng& rng, bool& cut) {
  std::vector<uint8_t> all;
  std::vector<size_t> cuts;  // candidate positions strictly inside a packet
  for (const WrittenPacket& p : packets) {
    const std::vector<uint8_t> bytes = p.joined();
    for (size_t k = 1; k < bytes.size(); ++k) cuts.push_back(all.size() + k);
    all.insert(all.end(), bytes.begin(), bytes.end());
  }
  cut = !cuts.empty();
  const size_t at = cut ? cuts[uni(rng, 0, static_cast<uint32_t>(cuts.size() - 1))] : all.size();
  std::vector<std::vector<uint8_t>> out;
  const size_t n = cut ? 2 : 1;
  for (size_t k = 0; k < n; ++k) {
    TilePartHeader tp;
    tp.isot = t;
    tp.tpsot = static_cast<uint8_t>(k);
    tp.tnsot = static_cast<uint8_t>(n);
    ByteWriter w;
    const size_t sot = write_tile_part_header(w, tp, 3);
    w.bytes(k == 0 ? std::span<const uint8_t>(all).first(at)
                   : std::span<const uint8_t>(all).subspan(at));
    patch_psot(w, sot);
    out.push_back(w.release());
  }
  return out;
}

struct Stream {
  MainHeader main;
  std::vector<TileCoding> tiles;
  std::vector<std::vector<WrittenPacket>> packets;  // per tile
  std::vector<bool> cut;                            // per tile: its tile-parts cut a packet
  std::vector<uint8_t> bytes;
};

Stream make_stream(Rng& rng, const Config& cfg) {
  Stream s;
  s.main = random_header(rng, cfg);
  std::vector<std::vector<uint8_t>> parts, ppm;
  for (uint32_t t = 0; t < num_tiles(s.main.siz); ++t) {
    s.tiles.push_back(random_tile(rng, s.main, t));
    s.packets.push_back(write_tile_packets(s.tiles.back(), s.main));
    const auto& packets = s.packets.back();
    s.cut.push_back(false);
    if (cfg.straddle) {
      bool cut = false;
      for (auto& p : straddling_tile_parts(static_cast<uint16_t>(t), packets, rng, cut))
        parts.push_back(std::move(p));
      s.cut.back() = cut;
    } else if (cfg.packing == Packing::kNone)
      for (WrittenTilePart& p :
           write_tile_parts(static_cast<uint16_t>(t), packets, cfg.split, cfg.plt))
        parts.push_back(p.joined());
    else
      for (auto& p :
           packed_tile_parts(static_cast<uint16_t>(t), packets, cfg.packing, uni(rng, 1, 3), ppm))
        parts.push_back(std::move(p));
  }
  s.main.has_ppm = cfg.packing == Packing::kPpm;
  s.main.ppm_tile_parts = ppm;
  ByteWriter w;
  write_main_header(w, s.main);
  for (const auto& p : parts) w.bytes(p);
  write_eoc(w);
  s.bytes = w.release();
  return s;
}

PacketReadOptions read_all(const TileCoding& tile) {
  PacketReadOptions o;
  for (const TileComponentCoding& tcc : tile.components)
    o.components.push_back({&tcc.layout, tcc.layout.levels});
  return o;
}

// Reads every tile of the stream back, keeping layers below max_layers (0: all) and the
// resolutions `o` keeps, and compares with what was written.
void check_round_trip(const Stream& s, uint32_t max_layers, bool drop_some, Rng& rng) {
  const Codestream code = read_codestream(s.bytes);
  for (uint32_t t = 0; t < s.tiles.size(); ++t) {
    const TileCoding& tile = s.tiles[t];
    PacketReadOptions o = read_all(tile);
    o.max_layers = max_layers;
    if (drop_some)
      for (PacketReadComponent& c : o.components)
        c.max_resolution = static_cast<int>(uni(rng, 0, c.layout->levels + 1)) - 1;
    std::vector<std::string> warnings;
    const TilePackets packets = read_tile_packets(s.bytes, code, t, o, &warnings);
    const std::vector<BlockSegmentMap>& got = packets.blocks;
    EXPECT_TRUE(warnings.empty());
    // Tile-parts are read in place unless a packet lies across two.
    if (code.tiles[t].parts.size() > 1) {
      EXPECT_EQ(!packets.joined.empty(), s.cut[t]) << "tile " << t;
    }
    ASSERT_EQ(got.size(), tile.components.size());
    for (uint32_t c = 0; c < tile.components.size(); ++c) {
      const TileComponentCoding& tcc = tile.components[c];
      const entropy::SegmentStyle style = segment_style(s.main);
      size_t expected_blocks = 0;
      for (uint32_t r = 0; r < tcc.bands.size(); ++r)
        for (uint32_t b = 0; b < tcc.bands[r].size(); ++b)
          for (uint32_t k = 0; k < tcc.bands[r][b].blocks.size(); ++k) {
            const BlockCoding& blk = tcc.bands[r][b].blocks[k];
            const uint32_t layer =
                max_layers ? std::min<uint32_t>(max_layers, s.main.cod.layers) : s.main.cod.layers;
            const uint32_t passes = blk.layer_passes[layer - 1];
            const BlockSegments* it = got[c].find(block_key(r, b, k));
            if (passes == 0 || static_cast<int>(r) > o.components[c].max_resolution) {
              EXPECT_TRUE(it == nullptr) << "c" << c << " r" << r << " b" << b << " k" << k;
              continue;
            }
            ++expected_blocks;
            ASSERT_TRUE(it != nullptr) << "c" << c << " r" << r << " b" << b << " k" << k;
            expect_same(packets.data, *it, expected_segments(blk, style, passes),
                        "tile " + std::to_string(t) + " c" + std::to_string(c) + " r" +
                            std::to_string(r) + " b" + std::to_string(b) + " k" + std::to_string(k),
                        s.main.cod.layers == 1);
          }
      EXPECT_EQ(got[c].size(), expected_blocks);
    }
  }
}

std::string name(const Config& c) {
  static const char* const kOrders[] = {"LRCP", "RLCP", "RPCL", "PCRL", "CPRL"};
  static const char* const kPacking[] = {"", " PPM", " PPT"};
  return std::string(kOrders[static_cast<int>(c.order)]) + (c.poc ? " POC" : "") +
         (c.sop ? " SOP" : "") + (c.eph ? " EPH" : "") + kPacking[static_cast<int>(c.packing)] +
         " split " + std::to_string(static_cast<int>(c.split)) + (c.plt ? " PLT" : "");
}

// BlockSegmentMap against std::map over random keys of random bands: the same entries found,
// new entries empty, and every entry at the address it was given while the map grew (Tier-2
// fills entries through pointers it keeps) and after it moved.
TEST(Tier2, BlockSegmentMapAsAMap) {
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Rng rng(seed);
    BlockSegmentMap dense;
    std::map<uint64_t, const BlockSegments*> want;
    if (seed % 2) dense.reserve_band(1, 2, 300);
    const int n = std::uniform_int_distribution<int>(0, seed % 4 == 0 ? 20 : 3000)(rng);
    for (int i = 0; i < n; ++i) {
      const uint32_t r = rng() % 6, b = rng() % 3, index = rng() % (seed % 3 ? 400 : 5000);
      const uint64_t key = block_key(r, b, index);
      BlockSegments& e = dense[key];
      const auto it = want.find(key);
      if (it == want.end()) {
        EXPECT_TRUE(e.segs.empty());
        EXPECT_EQ(e.missing_msbs, 0);
        e.missing_msbs = static_cast<int>(key % 1000) + 1;  // tells entries apart
        want[key] = &e;
      } else {
        EXPECT_EQ(&e, it->second);
      }
    }
    EXPECT_EQ(dense.size(), want.size());
    const BlockSegmentMap moved = std::move(dense);
    for (uint32_t r = 0; r < 7; ++r)
      for (uint32_t b = 0; b < 3; ++b)
        for (uint32_t index = 0; index < 5001; index += (seed % 3 ? 1 : 7)) {
          const uint64_t key = block_key(r, b, index);
          const auto it = want.find(key);
          const BlockSegments* got = moved.find(key);
          if (it == want.end()) {
            EXPECT_EQ(got, nullptr) << r << " " << b << " " << index;
          } else {
            ASSERT_EQ(got, it->second) << r << " " << b << " " << index;
            EXPECT_EQ(got->missing_msbs, static_cast<int>(key % 1000) + 1);
          }
        }
    // The moved-from map is empty and usable; a map moved onto one with entries replaces them
    // (entries with segments and parts, so that a leak or a double free shows under the
    // sanitizers).
    EXPECT_EQ(dense.size(), 0u);
    EXPECT_EQ(dense.find(block_key(1, 2, 0)), nullptr);
    BlockSegments& e = dense[block_key(1, 2, 0)];
    EXPECT_TRUE(e.segs.empty());
    for (int k = 0; k < 3; ++k) e.segs.push_back({uint64_t(k), 1, 1, 0, 0});
    e.parts.push_back({0, 1});
    BlockSegmentMap other;
    other[block_key(0, 0, 0)].segs.push_back({7, 1, 1, 0, 0});
    other = std::move(dense);
    ASSERT_NE(other.find(block_key(1, 2, 0)), nullptr);
    EXPECT_EQ(other.find(block_key(1, 2, 0))->segs.size(), 3u);
    EXPECT_EQ(other.find(block_key(0, 0, 0)), nullptr);
    EXPECT_EQ(other.size(), 1u);
  }
}

TEST(Tier2, WrittenPacketsReadBackExactly) {
  Rng rng(20261124);
  int cases = 0;
  for (int order = 0; order < 5; ++order)
    for (int variant = 0; variant < 8; ++variant) {
      Config cfg;
      cfg.order = static_cast<ProgressionOrder>(order);
      cfg.poc = variant & 1;
      cfg.sop = variant & 2;
      cfg.eph = variant & 4;
      cfg.packing = static_cast<Packing>(uni(rng, 0, 2));
      cfg.split = static_cast<TilePartSplit>(uni(rng, 0, 3));
      cfg.plt = uni(rng, 0, 1);
      for (int iter = 0; iter < 3; ++iter, ++cases) {
        SCOPED_TRACE(name(cfg) + ", iteration " + std::to_string(iter));
        const Stream s = make_stream(rng, cfg);
        check_round_trip(s, 0, false, rng);
        check_round_trip(s, uni(rng, 1, 3), true, rng);
      }
    }
  EXPECT_EQ(cases, 120);
}

// Tile-parts that cut a packet (not as encoders write them): read from the joined tile-parts,
// with the same segments.
TEST(Tier2, PacketsAcrossTileParts) {
  Rng rng(4242);
  int cut = 0;
  for (int iter = 0; iter < 24; ++iter) {
    Config cfg;
    cfg.order = static_cast<ProgressionOrder>(iter % 5);
    cfg.sop = iter % 2;
    cfg.eph = iter % 3 == 0;
    cfg.straddle = true;
    SCOPED_TRACE(name(cfg) + ", iteration " + std::to_string(iter));
    const Stream s = make_stream(rng, cfg);
    check_round_trip(s, 0, false, rng);
    for (bool c : s.cut) cut += c;
  }
  EXPECT_GT(cut, 20);
}

TEST(Tier2, PltListsThePacketLengths) {
  Rng rng(7);
  Config cfg;
  cfg.order = ProgressionOrder::kRLCP;
  cfg.sop = cfg.eph = cfg.plt = true;
  cfg.split = TilePartSplit::kResolution;
  const Stream s = make_stream(rng, cfg);
  const Codestream code = read_codestream(s.bytes);
  for (uint32_t t = 0; t < s.tiles.size(); ++t) {
    std::vector<uint32_t> plt, sizes;
    for (size_t part : code.tiles[t].parts)
      for (const Plt& p : code.tile_parts[part].header.plt)
        plt.insert(plt.end(), p.lengths.begin(), p.lengths.end());
    for (const WrittenPacket& p : s.packets[t]) sizes.push_back(static_cast<uint32_t>(p.size()));
    EXPECT_EQ(plt, sizes) << "tile " << t;
    // One tile-part per resolution with packets (RLCP: resolutions come in order).
    std::vector<uint32_t> resolutions;
    for (const WrittenPacket& p : s.packets[t])
      if (resolutions.empty() || resolutions.back() != p.id.resolution)
        resolutions.push_back(p.id.resolution);
    EXPECT_EQ(code.tiles[t].parts.size(), std::max<size_t>(1, resolutions.size()));
  }
}

// One tile, one layer, LRCP: each code-block's data lies in one packet. The data is cut inside
// packet m: without allow_partial reading fails; with it, the blocks of packets before m come
// back whole, those after m not at all, those of m whole or not at all.
TEST(Tier2, TruncatedDataUnderAllowPartial) {
  Rng rng(99);
  int cut_cases = 0;
  for (int iter = 0; iter < 40; ++iter) {
    Config cfg;
    cfg.sop = uni(rng, 0, 1);
    cfg.eph = uni(rng, 0, 1);
    Stream s;
    do {
      s = make_stream(rng, cfg);
    } while (num_tiles(s.main.siz) != 1 || s.main.cod.layers != 1);
    const std::vector<WrittenPacket>& packets = s.packets[0];
    size_t total = 0;
    for (const WrittenPacket& p : packets) total += p.size();
    if (total < 2) continue;
    const size_t keep = uni(rng, 1, static_cast<uint32_t>(total - 1));  // tile data bytes kept
    const size_t body_begin = s.bytes.size() - 2 - total;               // before EOC
    std::vector<uint8_t> cut(s.bytes.begin(), s.bytes.begin() + body_begin + keep);
    ReadOptions ro;
    ro.allow_truncated = true;
    const Codestream code = read_codestream(cut, ro);
    const TileCoding& tile = s.tiles[0];
    PacketReadOptions o = read_all(tile);
    EXPECT_THROW(read_tile_packets(cut, code, 0, o), Error) << "iteration " << iter;
    o.allow_partial = true;
    std::vector<std::string> warnings;
    const TilePackets read = read_tile_packets(cut, code, 0, o, &warnings);
    const std::vector<BlockSegmentMap>& got = read.blocks;
    EXPECT_FALSE(warnings.empty());
    // The packet in which the data ends, and the packet of every block.
    size_t m = 0;
    for (size_t end = packets[0].size(); end <= keep; end += packets[++m].size()) {
    }
    const entropy::SegmentStyle style = segment_style(s.main);
    for (size_t i = 0; i < packets.size(); ++i) {
      const PacketId& id = packets[i].id;
      const TileComponentCoding& tcc = tile.components[id.component];
      const Precinct prec = tcc.layout.resolutions[id.resolution].precinct(id.precinct);
      for (size_t b = 0; b < prec.bands.size(); ++b) {
        const PrecinctBand& pb = prec.bands[b];
        const uint32_t bx = tcc.layout.resolutions[id.resolution].bands[b].blocks_x;
        for (uint32_t j = 0; j < pb.blocks_y; ++j)
          for (uint32_t k = 0; k < pb.blocks_x; ++k) {
            const uint32_t index = (pb.cb_j0 + j) * bx + pb.cb_i0 + k;
            const BlockCoding& blk = tcc.bands[id.resolution][b].blocks[index];
            const BlockSegments* it =
                got[id.component].find(block_key(id.resolution, uint32_t(b), index));
            const bool has = it != nullptr && !it->segs.empty();
            const std::string at = "iteration " + std::to_string(iter) + " packet " +
                                   std::to_string(i) + " of " + std::to_string(packets.size()) +
                                   ", cut in " + std::to_string(m);
            if (blk.layer_passes[0] == 0 || i > m) {
              EXPECT_FALSE(has) << at;
            } else if (i < m || has) {
              ASSERT_TRUE(has) << at;
              expect_same(read.data, *it, expected_segments(blk, style, blk.layer_passes[0]), at,
                          true);
            }
          }
      }
    }
    ++cut_cases;
  }
  EXPECT_GT(cut_cases, 20);
}

}  // namespace
}  // namespace gj2k::codec
