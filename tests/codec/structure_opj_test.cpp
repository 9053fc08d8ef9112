// Structure, progression and packet headers against OpenJPEG: streams written by libopenjp2
// with random image and tile origins, tiles, subsampled components, levels, code-block and
// precinct sizes, orders, POC, layers, SOP/EPH and code-block styles are walked packet by
// packet with codec/structure, codec/progression and entropy/t2_packet; every packet must
// parse, the packets must use up each tile's body exactly, and each lossless code-block must
// hold all its passes (3 (Mb - missing) - 2; B.10.5, E.1). Only the markers needed here are
// parsed (SIZ, COD, QCD, POC, SOT, SOD).
#ifdef GJ2K_HAVE_OPENJPEG
#include <gtest/gtest.h>
#include <openjpeg.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "codec/progression.h"
#include "codec/structure.h"
#include "common/shared_data.h"
#include "entropy/t2_packet.h"
#include "gj2k/error.h"

namespace gj2k::codec {
namespace {

struct Config {
  uint32_t w = 0, h = 0, x0 = 0, y0 = 0, comps = 1;
  uint32_t tw = 0, th = 0, tox = 0, toy = 0;  // tw = 0: one tile
  std::vector<uint32_t> dx, dy;               // per component
  int levels = 0, xcb = 6, ycb = 6, layers = 1, order = 0, mode = 0;
  bool sop = false, eph = false, precincts = false;
  std::vector<int> ppx, ppy;            // OpenJPEG order: highest resolution first
  std::vector<ProgressionChange> pocs;  // POC (single-tile streams only)
};

uint32_t ceil_div(uint32_t a, uint32_t b) {
  return (a + b - 1) / b;
}

bool encode_with_openjpeg(const Config& cfg, uint32_t seed, const std::string& path) {
  std::vector<opj_image_cmptparm_t> cp(cfg.comps);
  bool subsampled = false;
  for (uint32_t c = 0; c < cfg.comps; ++c) {
    cp[c] = {};
    cp[c].dx = cfg.dx[c];
    cp[c].dy = cfg.dy[c];
    cp[c].x0 = ceil_div(cfg.x0, cfg.dx[c]);
    cp[c].y0 = ceil_div(cfg.y0, cfg.dy[c]);
    cp[c].w = ceil_div(cfg.x0 + cfg.w, cfg.dx[c]) - cp[c].x0;
    cp[c].h = ceil_div(cfg.y0 + cfg.h, cfg.dy[c]) - cp[c].y0;
    cp[c].prec = 8;
    cp[c].sgnd = 0;
    subsampled = subsampled || cfg.dx[c] > 1 || cfg.dy[c] > 1;
  }
  opj_image_t* image =
      opj_image_create(cfg.comps, cp.data(), cfg.comps == 3 ? OPJ_CLRSPC_SRGB : OPJ_CLRSPC_GRAY);
  if (!image) return false;
  image->x0 = cfg.x0;
  image->y0 = cfg.y0;
  image->x1 = cfg.x0 + cfg.w;
  image->y1 = cfg.y0 + cfg.h;
  std::mt19937 rng(seed);
  for (uint32_t c = 0; c < cfg.comps; ++c) {
    const uint32_t w = cp[c].w, h = cp[c].h;
    for (uint32_t i = 0; i < w * h; ++i) {
      const uint32_t x = i % w, y = i / w;
      // Smooth ramps, a flat area (all-zero code-blocks) and noise.
      int v = static_cast<int>((x * 3 + y * 2 + c * 40) % 256);
      if (x < w / 3 && y < h / 3) v = 128;
      if (x > w / 2) v = static_cast<int>(rng() % 256);
      image->comps[c].data[i] = v;
    }
  }
  opj_cparameters_t p;
  opj_set_default_encoder_parameters(&p);
  p.tcp_numlayers = cfg.layers;
  p.cp_disto_alloc = 1;
  for (int l = 0; l < cfg.layers; ++l) {
    p.tcp_rates[l] = static_cast<float>((cfg.layers - 1 - l) * 6);
  }
  p.numresolution = cfg.levels + 1;
  p.cblockw_init = 1 << cfg.xcb;
  p.cblockh_init = 1 << cfg.ycb;
  p.prog_order = static_cast<OPJ_PROG_ORDER>(cfg.order);
  p.mode = cfg.mode;
  p.tcp_mct = cfg.comps == 3 && !subsampled ? 1 : 0;
  if (cfg.tw > 0) {
    p.tile_size_on = OPJ_TRUE;
    p.cp_tdx = static_cast<int>(cfg.tw);
    p.cp_tdy = static_cast<int>(cfg.th);
    p.cp_tx0 = static_cast<int>(cfg.tox);
    p.cp_ty0 = static_cast<int>(cfg.toy);
  }
  p.numpocs = static_cast<OPJ_UINT32>(cfg.pocs.size());
  for (size_t i = 0; i < cfg.pocs.size(); ++i) {
    const ProgressionChange& ch = cfg.pocs[i];
    p.POC[i].tile = 1;
    p.POC[i].resno0 = ch.res_start;
    p.POC[i].compno0 = ch.comp_start;
    p.POC[i].layno1 = ch.layer_end;
    p.POC[i].resno1 = ch.res_end;
    p.POC[i].compno1 = ch.comp_end;
    p.POC[i].prg1 = static_cast<OPJ_PROG_ORDER>(ch.order);
  }
  if (cfg.sop) p.csty |= 0x02;
  if (cfg.eph) p.csty |= 0x04;
  if (cfg.precincts) {
    p.csty |= 0x01;
    p.res_spec = static_cast<int>(cfg.ppx.size());
    for (size_t i = 0; i < cfg.ppx.size(); ++i) {
      p.prcw_init[i] = 1 << cfg.ppx[i];
      p.prch_init[i] = 1 << cfg.ppy[i];
    }
  }
  opj_codec_t* codec = opj_create_compress(OPJ_CODEC_J2K);
  bool ok = opj_setup_encoder(codec, &p, image);
  opj_stream_t* stream =
      ok ? opj_stream_create_default_file_stream(path.c_str(), OPJ_FALSE) : nullptr;
  ok = stream && opj_start_compress(codec, image, stream) && opj_encode(codec, stream) &&
       opj_end_compress(codec, stream);
  if (stream) opj_stream_destroy(stream);
  opj_destroy_codec(codec);
  opj_image_destroy(image);
  return ok;
}

struct Stream {
  std::vector<uint8_t> bytes;
  size_t pos = 0;
  uint32_t u8() { return bytes.at(pos++); }
  uint32_t u16() { return (u8() << 8) | u8(); }
  uint32_t u32() { return (u16() << 16) | u16(); }
};

// The codestream OpenJPEG writes for `cfg`, or nothing when it refuses the configuration
// (OpenJPEG 2.5 fails on some small-precinct settings: its output buffer estimate).
std::vector<uint8_t> openjpeg_stream(const Config& cfg, uint32_t seed) {
  const std::string path =
      (test::scratch_dir() / ("opj_" + std::to_string(seed) + ".j2k")).string();
  std::vector<uint8_t> bytes;
  if (encode_with_openjpeg(cfg, seed, path)) {
    std::ifstream f(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(f), {});
  }
  std::remove(path.c_str());
  return bytes;
}

// What the main header says (only what packet walking needs).
struct MainHeader {
  Rect image;
  uint32_t tw = 0, th = 0, tox = 0, toy = 0;
  std::vector<uint32_t> dx, dy;
  int levels = 0, xcb = 0, ycb = 0, layers = 0, order = 0, guard = 0;
  uint32_t scod = 0, style = 0;
  std::vector<PrecinctExponents> pp;
  std::vector<int> eps;
  std::vector<ProgressionChange> pocs;
};

// POC marker segment body (A.6.6) from s.pos to `end`.
std::vector<ProgressionChange> parse_poc(Stream& s, size_t end, size_t ncomp) {
  std::vector<ProgressionChange> out;
  while (s.pos < end) {
    ProgressionChange ch;
    ch.res_start = s.u8();
    ch.comp_start = ncomp < 257 ? s.u8() : s.u16();
    ch.layer_end = s.u16();
    ch.res_end = s.u8();
    ch.comp_end = ncomp < 257 ? s.u8() : s.u16();
    if (ch.comp_end == 0) ch.comp_end = ncomp < 257 ? 256 : 16384;
    ch.order = static_cast<ProgressionOrder>(s.u8());
    out.push_back(ch);
  }
  return out;
}

// Walks the packets of one tile body; checks exact use of the body and lossless pass counts.
void walk_tile(const MainHeader& mh, const std::vector<ProgressionChange>& pocs, const Rect& tile,
               std::span<const uint8_t> body) {
  const entropy::SegmentStyle seg_style{(mh.style & 1) != 0, (mh.style & 4) != 0};
  const entropy::PacketFraming framing{(mh.scod & 2) != 0, (mh.scod & 4) != 0};
  TileProgression prog;
  prog.tile = tile;
  prog.layers = static_cast<uint32_t>(mh.layers);
  std::vector<TileComponentLayout> layouts;
  for (size_t c = 0; c < mh.dx.size(); ++c) {
    const Rect tc{ceil_div(tile.x0, mh.dx[c]), ceil_div(tile.y0, mh.dy[c]),
                  ceil_div(tile.x1, mh.dx[c]), ceil_div(tile.y1, mh.dy[c])};
    layouts.push_back(make_layout(tc, mh.levels, mh.xcb, mh.ycb, mh.pp));
    prog.components.push_back(component_precincts(layouts.back(), mh.dx[c], mh.dy[c]));
  }
  const std::vector<PacketId> packets =
      pocs.empty() ? packet_order(prog, static_cast<ProgressionOrder>(mh.order))
                   : packet_order(prog, pocs);
  EXPECT_EQ(packets.size(), [&] {
    size_t n = 0;
    for (const auto& c : prog.components)
      for (const auto& r : c.resolutions) n += size_t{r.precincts_x} * r.precincts_y;
    return n * prog.layers;
  }());

  struct Prec {
    entropy::PacketDecoder dec;
    std::vector<std::vector<int>> passes, missing;
  };
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, Prec> precs;
  size_t pos = 0;
  for (size_t n = 0; n < packets.size(); ++n) {
    const PacketId& id = packets[n];
    SCOPED_TRACE("packet " + std::to_string(n) + " at body byte " + std::to_string(pos));
    const ResolutionLayout& res = layouts[id.component].resolutions[id.resolution];
    auto [it, fresh] = precs.try_emplace({id.component, id.resolution, id.precinct});
    Prec& pr = it->second;
    if (fresh) {
      const Precinct geo = res.precinct(id.precinct);
      std::vector<entropy::PrecinctBandShape> shapes;
      for (const PrecinctBand& b : geo.bands) {
        shapes.push_back({b.blocks_x, b.blocks_y});
        pr.passes.emplace_back(b.block_count(), 0);
        pr.missing.emplace_back(b.block_count(), -1);
      }
      pr.dec = entropy::PacketDecoder(shapes, seg_style);
    }
    if (framing.sop) {
      ASSERT_EQ(entropy::skip_sop(body.subspan(pos)), 6u);
      EXPECT_EQ((uint32_t{body[pos + 4]} << 8) | body[pos + 5], n % 65536);
    }
    entropy::DecodedPacket got;
    ASSERT_NO_THROW(
        got = pr.dec.decode_packet(static_cast<int>(id.layer), body.subspan(pos), framing));
    for (size_t b = 0; b < got.blocks.size(); ++b) {
      for (size_t i = 0; i < got.blocks[b].size(); ++i) {
        pr.passes[b][i] += got.blocks[b][i].new_passes;
        if (got.blocks[b][i].first_inclusion) pr.missing[b][i] = got.blocks[b][i].missing_msbs;
      }
    }
    pos += got.header_bytes + got.body_bytes;
    ASSERT_LE(pos, body.size());
    if (id.layer + 1 == prog.layers) {
      // Lossless: every included block holds all passes of its Mb - missing bit-planes.
      for (size_t b = 0; b < pr.passes.size(); ++b) {
        const size_t band_index = id.resolution == 0 ? 0 : 1 + 3 * (id.resolution - 1) + b;
        const int mb = mh.guard + mh.eps[band_index] - 1;
        for (size_t i = 0; i < pr.passes[b].size(); ++i) {
          if (pr.missing[b][i] < 0) continue;
          EXPECT_EQ(pr.passes[b][i], 3 * (mb - pr.missing[b][i]) - 2)
              << "band " << b << " block " << i;
        }
      }
    }
  }
  EXPECT_EQ(pos, body.size());
}

// Parses the main header, joins the tile-parts of each tile and walks every tile.
void walk_packets(const Config& cfg, std::vector<uint8_t> bytes) {
  Stream s;
  s.bytes = std::move(bytes);
  ASSERT_EQ(s.u16(), 0xFF4Fu);  // SOC
  MainHeader mh;
  std::map<uint32_t, std::vector<uint8_t>> tile_bodies;
  std::map<uint32_t, std::vector<ProgressionChange>> tile_pocs;
  std::map<uint32_t, bool> tile_poc_seen;
  while (true) {
    const size_t marker_at = s.pos;
    const uint32_t marker = s.u16();
    if (marker == 0xFFD9) break;  // EOC
    const size_t seg = s.pos;
    const uint32_t len = s.u16();
    if (marker == 0xFF51) {  // SIZ
      s.u16();
      mh.image.x1 = s.u32();
      mh.image.y1 = s.u32();
      mh.image.x0 = s.u32();
      mh.image.y0 = s.u32();
      mh.tw = s.u32();
      mh.th = s.u32();
      mh.tox = s.u32();
      mh.toy = s.u32();
      const uint32_t nc = s.u16();
      for (uint32_t c = 0; c < nc; ++c) {
        s.u8();
        mh.dx.push_back(s.u8());
        mh.dy.push_back(s.u8());
      }
    } else if (marker == 0xFF52) {  // COD
      mh.scod = s.u8();
      mh.order = static_cast<int>(s.u8());
      mh.layers = static_cast<int>(s.u16());
      s.u8();
      mh.levels = static_cast<int>(s.u8());
      mh.xcb = static_cast<int>(s.u8()) + 2;
      mh.ycb = static_cast<int>(s.u8()) + 2;
      mh.style = s.u8();
      s.u8();
      for (int r = 0; (mh.scod & 1) && r <= mh.levels; ++r) {
        const uint32_t b = s.u8();
        mh.pp.push_back({static_cast<int>(b & 15), static_cast<int>(b >> 4)});
      }
    } else if (marker == 0xFF5C) {  // QCD, reversible: exponents only
      const uint32_t sq = s.u8();
      ASSERT_EQ(sq & 31, 0u);
      mh.guard = static_cast<int>(sq >> 5);
      while (s.pos < seg + len) mh.eps.push_back(static_cast<int>(s.u8() >> 3));
    } else if (marker == 0xFF5F) {  // POC
      mh.pocs = parse_poc(s, seg + len, mh.dx.size());
    } else if (marker == 0xFF90) {  // SOT
      const uint32_t isot = s.u16();
      const size_t end = marker_at + s.u32();
      s.pos = seg + len;
      std::vector<ProgressionChange>& pocs = tile_pocs[isot];
      if (pocs.empty()) pocs = mh.pocs;
      for (uint32_t m = s.u16(); m != 0xFF93; m = s.u16()) {  // tile-part header, to SOD
        const size_t mseg = s.pos;
        const uint32_t mlen = s.u16();
        if (m == 0xFF5F) {
          // A.6.6: POC segments of a tile's tile-parts add up, in order; they replace the
          // main header's.
          if (!tile_poc_seen[isot]) pocs.clear();
          tile_poc_seen[isot] = true;
          for (const ProgressionChange& ch : parse_poc(s, mseg + mlen, mh.dx.size())) {
            pocs.push_back(ch);
          }
        }
        s.pos = mseg + mlen;
      }
      ASSERT_LE(end, s.bytes.size());
      // Tile-parts of one tile (OpenJPEG splits at POC changes) join into one body.
      std::vector<uint8_t>& body = tile_bodies[isot];
      body.insert(body.end(), s.bytes.begin() + static_cast<ptrdiff_t>(s.pos),
                  s.bytes.begin() + static_cast<ptrdiff_t>(end));
      s.pos = end;
      continue;
    }
    s.pos = seg + len;
  }
  const uint32_t ntx = ceil_div(mh.image.x1 - mh.tox, mh.tw);
  for (const auto& [isot, body] : tile_bodies) {
    const uint32_t p = isot % ntx, q = isot / ntx;
    const Rect tile{std::max(mh.tox + p * mh.tw, mh.image.x0),
                    std::max(mh.toy + q * mh.th, mh.image.y0),
                    std::min(mh.tox + (p + 1) * mh.tw, mh.image.x1),
                    std::min(mh.toy + (q + 1) * mh.th, mh.image.y1)};
    SCOPED_TRACE("tile " + std::to_string(isot));
    walk_tile(mh, tile_pocs[isot], tile, body);
    if (testing::Test::HasFatalFailure()) return;
  }
  EXPECT_EQ(mh.order, cfg.order);
  EXPECT_EQ(mh.layers, cfg.layers);
  EXPECT_EQ(static_cast<int>(mh.eps.size()), 3 * mh.levels + 1);
  const uint32_t ntiles =
      ceil_div(mh.image.x1 - mh.tox, mh.tw) * ceil_div(mh.image.y1 - mh.toy, mh.th);
  EXPECT_EQ(tile_bodies.size(), ntiles);
}

TEST(StructureOpenJpeg, RandomStreamsParseExactly) {
  int streams = 0, tiled = 0, subsampled = 0, pocs = 0;
  for (uint32_t seed = 1; seed <= 120; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    Config cfg;
    cfg.w = 1 + rng() % 90;
    cfg.h = 1 + rng() % 70;
    cfg.x0 = rng() % 2 ? 0 : rng() % 37;
    cfg.y0 = rng() % 2 ? 0 : rng() % 29;
    cfg.comps = rng() % 3 == 0 ? 3 : 1;
    for (uint32_t c = 0; c < cfg.comps; ++c) {
      const bool sub = c > 0 && rng() % 2;
      cfg.dx.push_back(sub ? 1 + rng() % 3 : 1);
      cfg.dy.push_back(sub ? 1 + rng() % 3 : 1);
    }
    if (rng() % 2) {
      cfg.tw = 8 + rng() % 40;
      cfg.th = 8 + rng() % 40;
      cfg.tox = cfg.x0 > 0 ? rng() % (cfg.x0 + 1) : 0;
      cfg.toy = cfg.y0 > 0 ? rng() % (cfg.y0 + 1) : 0;
      // The first tile must meet the image (A.5.1: XTOsiz + XTsiz > XOsiz).
      cfg.tox = std::max<int64_t>(cfg.tox, int64_t{cfg.x0} - cfg.tw + 1);
      cfg.toy = std::max<int64_t>(cfg.toy, int64_t{cfg.y0} - cfg.th + 1);
    }
    cfg.levels = static_cast<int>(rng() % 6);
    cfg.xcb = 2 + static_cast<int>(rng() % 5);
    cfg.ycb = 2 + static_cast<int>(rng() % 5);
    cfg.layers = 1 + static_cast<int>(rng() % 4);
    cfg.order = static_cast<int>(rng() % 5);
    const int modes[] = {0, 1, 4, 5, 2, 8, 16, 32, 1 | 8 | 32, 4 | 16 | 2};
    cfg.mode = modes[rng() % 10];
    cfg.sop = rng() % 2;
    cfg.eph = rng() % 2;
    cfg.precincts = rng() % 2;
    if (cfg.precincts) {
      const int n = 1 + static_cast<int>(rng() % (cfg.levels + 1));
      for (int i = 0; i < n; ++i) {
        cfg.ppx.push_back(1 + static_cast<int>(rng() % 5));
        cfg.ppy.push_back(1 + static_cast<int>(rng() % 5));
      }
    }
    SCOPED_TRACE("image " + std::to_string(cfg.w) + "x" + std::to_string(cfg.h) + " at " +
                 std::to_string(cfg.x0) + "," + std::to_string(cfg.y0) + ", " +
                 std::to_string(cfg.comps) + " comps, levels " + std::to_string(cfg.levels) +
                 ", cblk " + std::to_string(cfg.xcb) + "," + std::to_string(cfg.ycb) + ", layers " +
                 std::to_string(cfg.layers) + ", order " + std::to_string(cfg.order) + ", mode " +
                 std::to_string(cfg.mode) + (cfg.sop ? ", sop" : "") + (cfg.eph ? ", eph" : "") +
                 (cfg.precincts ? ", precincts" : ""));
    if (cfg.tw == 0 && rng() % 2) {
      // Two progressions that split the packets by resolution or by component, each in its
      // own order. (OpenJPEG 2.5 writes overlapping progressions' packets twice, against
      // B.12.2, so overlaps are tested in progression_order_test.cpp only.)
      ProgressionChange a, b;
      a.order = static_cast<ProgressionOrder>(rng() % 5);
      b.order = static_cast<ProgressionOrder>(rng() % 5);
      a.layer_end = b.layer_end = cfg.layers;
      a.res_end = b.res_end = cfg.levels + 1;
      a.comp_end = b.comp_end = cfg.comps;
      if (cfg.comps > 1 && rng() % 2) {
        a.comp_end = b.comp_start = 1 + rng() % (cfg.comps - 1);
      } else if (cfg.levels > 0) {
        a.res_end = b.res_start = 1 + rng() % cfg.levels;
      }
      cfg.pocs = {a, b};
    }
    std::vector<uint8_t> bytes = openjpeg_stream(cfg, seed);
    if (bytes.empty()) continue;
    ++streams;
    tiled += cfg.tw > 0;
    subsampled += std::any_of(cfg.dx.begin(), cfg.dx.end(), [](uint32_t d) { return d > 1; });
    pocs += !cfg.pocs.empty();
    walk_packets(cfg, std::move(bytes));
    if (HasFatalFailure()) return;
  }
  std::printf("walked %d OpenJPEG streams (%d tiled, %d subsampled, %d with POC)\n", streams, tiled,
              subsampled, pocs);
  EXPECT_GE(streams, 60);
}

}  // namespace
}  // namespace gj2k::codec
#endif  // GJ2K_HAVE_OPENJPEG
