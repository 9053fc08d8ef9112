// Structure, progression and packet headers on the ISO/IEC 15444-4 conformance codestreams
// (written by other encoders): every tile's packets are walked in the signalled order (COD,
// COC, POC in main and tile-part headers) with headers in the body, in PPM or in PPT, with
// SOP/EPH; the packets must use up each tile's body (and packed headers) exactly, and the
// packet encoder, fed what each header said, must rewrite every header byte for byte. Only
// the markers needed for that are parsed here; the real parser belongs to the decoder.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "codec/progression.h"
#include "codec/structure.h"
#include "common/shared_data.h"
#include "entropy/t2_packet.h"
#include "gj2k/error.h"

namespace gj2k::codec {
namespace {

struct Reader {
  std::span<const uint8_t> bytes;
  size_t pos = 0;
  uint32_t u8() {
    if (pos >= bytes.size()) throw Error(ErrorCode::kTruncated, "test parser: end of stream");
    return bytes[pos++];
  }
  uint32_t u16() { return (u8() << 8) | u8(); }
  uint32_t u32() { return (u16() << 16) | u16(); }
};

struct CompCoding {
  int levels = 0, xcb = 6, ycb = 6;
  uint32_t style = 0;
  std::vector<PrecinctExponents> pp;  // empty: 15 everywhere
};

struct Coding {
  uint32_t scod = 0;
  int order = 0, layers = 1;
  std::vector<CompCoding> comps;
  std::vector<bool> coc;  // component set by a COC at this level
};

void read_spcod(Reader& r, bool precincts, CompCoding& c) {
  c.levels = static_cast<int>(r.u8());
  c.xcb = static_cast<int>(r.u8()) + 2;
  c.ycb = static_cast<int>(r.u8()) + 2;
  c.style = r.u8();
  r.u8();
  c.pp.clear();
  for (int i = 0; precincts && i <= c.levels; ++i) {
    const uint32_t b = r.u8();
    c.pp.push_back({static_cast<int>(b & 15), static_cast<int>(b >> 4)});
  }
}

std::vector<ProgressionChange> read_poc(Reader& r, size_t end, size_t ncomp) {
  std::vector<ProgressionChange> out;
  while (r.pos < end) {
    ProgressionChange ch;
    ch.res_start = r.u8();
    ch.comp_start = ncomp < 257 ? r.u8() : r.u16();
    ch.layer_end = r.u16();
    ch.res_end = r.u8();
    ch.comp_end = ncomp < 257 ? r.u8() : r.u16();
    if (ch.comp_end == 0) ch.comp_end = ncomp < 257 ? 256 : 16384;
    ch.order = static_cast<ProgressionOrder>(r.u8());
    out.push_back(ch);
  }
  return out;
}

struct Tile {
  Coding coding;  // main header values overridden by this tile's COD/COC
  bool has_cod = false;
  std::vector<ProgressionChange> pocs;
  bool has_poc = false;
  std::vector<uint8_t> body, headers;  // headers: from PPM or PPT, when used
  bool packed = false;
};

struct Summary {
  size_t tiles = 0, packets = 0, header_bytes = 0, body_bytes = 0;
  bool packed = false, poc = false, sop = false, eph = false;
  size_t reencoded_same = 0;  // packet headers our encoder rewrites byte for byte
};

// The codestream inside a JP2 file (its jp2c box), or the bytes themselves.
std::span<const uint8_t> codestream_of(std::span<const uint8_t> file) {
  if (file.size() >= 2 && file[0] == 0xFF && file[1] == 0x4F) return file;
  size_t pos = 0;
  while (pos + 8 <= file.size()) {
    uint64_t len = (uint64_t{file[pos]} << 24) | (uint64_t{file[pos + 1]} << 16) |
                   (uint64_t{file[pos + 2]} << 8) | file[pos + 3];
    const std::string type(reinterpret_cast<const char*>(&file[pos + 4]), 4);
    size_t header = 8;
    if (len == 1) {
      len = 0;
      for (int i = 0; i < 8; ++i) len = (len << 8) | file[pos + 8 + i];
      header = 16;
    }
    if (len == 0) len = file.size() - pos;
    if (type == "jp2c") return file.subspan(pos + header, len - header);
    pos += len;
  }
  return {};
}

void walk_tile(const std::vector<uint32_t>& dx, const std::vector<uint32_t>& dy,
               const Rect& tile_rect, const Tile& t, Summary& sum) {
  const Coding& cod = t.coding;
  const entropy::PacketFraming framing{(cod.scod & 2) != 0, (cod.scod & 4) != 0};
  TileProgression prog;
  prog.tile = tile_rect;
  prog.layers = static_cast<uint32_t>(cod.layers);
  std::vector<TileComponentLayout> layouts;
  for (size_t c = 0; c < dx.size(); ++c) {
    const CompCoding& cc = cod.comps[c];
    const Rect tc{(tile_rect.x0 + dx[c] - 1) / dx[c], (tile_rect.y0 + dy[c] - 1) / dy[c],
                  (tile_rect.x1 + dx[c] - 1) / dx[c], (tile_rect.y1 + dy[c] - 1) / dy[c]};
    layouts.push_back(make_layout(tc, cc.levels, cc.xcb, cc.ycb, cc.pp));
    prog.components.push_back(component_precincts(layouts.back(), dx[c], dy[c]));
  }
  const std::vector<PacketId> packets =
      t.pocs.empty() ? packet_order(prog, static_cast<ProgressionOrder>(cod.order))
                     : packet_order(prog, t.pocs);
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, entropy::PacketDecoder> decs;
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::vector<entropy::PrecinctBandShape>>
      shapes_of;
  // Each packet's header bytes (without SOP) and what it said, for re-encoding.
  std::vector<std::vector<uint8_t>> original(packets.size());
  std::vector<entropy::DecodedPacket> decoded(packets.size());
  size_t bpos = 0, hpos = 0;
  for (size_t n = 0; n < packets.size(); ++n) {
    const PacketId& id = packets[n];
    SCOPED_TRACE("packet " + std::to_string(n) + " (l " + std::to_string(id.layer) + " r " +
                 std::to_string(id.resolution) + " c " + std::to_string(id.component) + " p " +
                 std::to_string(id.precinct) + ") at body byte " + std::to_string(bpos));
    auto [it, fresh] = decs.try_emplace({id.component, id.resolution, id.precinct});
    if (fresh) {
      const Precinct geo = layouts[id.component].resolutions[id.resolution].precinct(id.precinct);
      std::vector<entropy::PrecinctBandShape> shapes;
      for (const PrecinctBand& b : geo.bands) shapes.push_back({b.blocks_x, b.blocks_y});
      shapes_of[it->first] = shapes;
      const uint32_t style = cod.comps[id.component].style;
      it->second = entropy::PacketDecoder(shapes, {(style & 1) != 0, (style & 4) != 0});
    }
    entropy::DecodedPacket got;
    if (t.packed) {
      ASSERT_NO_THROW(got = it->second.decode_packet(static_cast<int>(id.layer),
                                                     std::span(t.headers).subspan(hpos), framing,
                                                     false));
      original[n].assign(t.headers.begin() + hpos, t.headers.begin() + hpos + got.header_bytes);
      hpos += got.header_bytes;
      ASSERT_LE(bpos, t.body.size());
      if (framing.sop) bpos += entropy::skip_sop(std::span(t.body).subspan(bpos));
    } else {
      ASSERT_LE(bpos, t.body.size());
      ASSERT_NO_THROW(got = it->second.decode_packet(static_cast<int>(id.layer),
                                                     std::span(t.body).subspan(bpos), framing));
      const size_t sop = framing.sop ? entropy::skip_sop(std::span(t.body).subspan(bpos)) : 0;
      original[n].assign(t.body.begin() + bpos + sop, t.body.begin() + bpos + got.header_bytes);
      bpos += got.header_bytes;
    }
    bpos += got.body_bytes;
    decoded[n] = got;
    sum.header_bytes += got.header_bytes;
    sum.body_bytes += got.body_bytes;
    ASSERT_LE(bpos, t.body.size());
  }
  sum.packets += packets.size();
  sum.packed = sum.packed || t.packed;
  sum.poc = sum.poc || !t.pocs.empty();
  sum.sop = sum.sop || framing.sop;
  sum.eph = sum.eph || framing.eph;
  EXPECT_EQ(bpos, t.body.size()) << "unused tile body bytes";
  EXPECT_EQ(hpos, t.headers.size()) << "unused packed header bytes";

  // Re-encode every header from what it said: missing bit-planes first (from each block's
  // first inclusion), then the packets in order.
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, entropy::PacketEncoder> encs;
  for (const auto& [key, shapes] : shapes_of) {
    const uint32_t style = cod.comps[std::get<0>(key)].style;
    encs.emplace(key, entropy::PacketEncoder(shapes, {(style & 1) != 0, (style & 4) != 0}));
  }
  for (size_t n = 0; n < packets.size(); ++n) {
    const PacketId& id = packets[n];
    entropy::PacketEncoder& enc = encs.at({id.component, id.resolution, id.precinct});
    for (size_t b = 0; b < decoded[n].blocks.size(); ++b) {
      for (uint32_t i = 0; i < decoded[n].blocks[b].size(); ++i) {
        if (decoded[n].blocks[b][i].first_inclusion) {
          enc.set_missing_msbs(b, i, decoded[n].blocks[b][i].missing_msbs);
        }
      }
    }
  }
  for (size_t n = 0; n < packets.size(); ++n) {
    const PacketId& id = packets[n];
    std::vector<std::vector<entropy::BlockContribution>> contrib(decoded[n].blocks.size());
    for (size_t b = 0; b < contrib.size(); ++b) {
      for (const entropy::BlockPacketInfo& info : decoded[n].blocks[b]) {
        entropy::BlockContribution c;
        c.new_passes = info.new_passes;
        for (const entropy::Piece& piece : info.pieces) c.piece_lengths.push_back(piece.length);
        contrib[b].push_back(std::move(c));
      }
    }
    std::vector<uint8_t> again;
    encs.at({id.component, id.resolution, id.precinct})
        .encode_packet(static_cast<int>(id.layer), contrib, {false, framing.eph},
                       static_cast<uint32_t>(n), again, decoded[n].empty);
    sum.reencoded_same += again == original[n];
    EXPECT_EQ(again, original[n]) << "re-encoded header of packet " << n << " differs";
  }
}

void walk_codestream(std::span<const uint8_t> cs, Summary& sum) {
  Reader r{cs};
  ASSERT_EQ(r.u16(), 0xFF4Fu);
  Rect image;
  uint32_t tw = 0, th = 0, tox = 0, toy = 0;
  std::vector<uint32_t> dx, dy;
  Coding main;
  std::vector<ProgressionChange> main_pocs;
  std::vector<uint8_t> ppm;
  std::vector<std::pair<uint32_t, std::vector<uint8_t>>> ppm_parts;  // Zppm order
  std::map<uint32_t, Tile> tiles;
  std::vector<uint32_t> tile_part_order;  // Isot of each tile-part in stream order
  std::map<uint32_t, std::vector<std::pair<uint32_t, std::vector<uint8_t>>>> ppt;
  bool in_main = true;
  while (r.pos + 2 <= cs.size()) {
    const size_t at = r.pos;
    const uint32_t marker = r.u16();
    if (marker == 0xFFD9) break;
    if (marker >= 0xFF30 && marker <= 0xFF3F) continue;  // A.1: markers without a segment
    const size_t seg = r.pos;
    const uint32_t len = r.u16();
    const size_t end = seg + len;
    if (marker == 0xFF51) {
      r.u16();
      image.x1 = r.u32();
      image.y1 = r.u32();
      image.x0 = r.u32();
      image.y0 = r.u32();
      tw = r.u32();
      th = r.u32();
      tox = r.u32();
      toy = r.u32();
      const uint32_t nc = r.u16();
      for (uint32_t c = 0; c < nc; ++c) {
        r.u8();
        dx.push_back(r.u8());
        dy.push_back(r.u8());
      }
      main.comps.resize(nc);
      main.coc.assign(nc, false);
    } else if (marker == 0xFF52 && in_main) {
      main.scod = r.u8();
      main.order = static_cast<int>(r.u8());
      main.layers = static_cast<int>(r.u16());
      r.u8();
      CompCoding cc;
      read_spcod(r, main.scod & 1, cc);
      for (size_t c = 0; c < main.comps.size(); ++c) {
        if (!main.coc[c]) main.comps[c] = cc;
      }
    } else if (marker == 0xFF53 && in_main) {
      const uint32_t c = dx.size() < 257 ? r.u8() : r.u16();
      const uint32_t scoc = r.u8();
      read_spcod(r, scoc & 1, main.comps.at(c));
      main.coc[c] = true;
    } else if (marker == 0xFF5F && in_main) {
      for (const auto& ch : read_poc(r, end, dx.size())) main_pocs.push_back(ch);
    } else if (marker == 0xFF60) {  // PPM
      const uint32_t z = r.u8();
      ppm_parts.emplace_back(z, std::vector<uint8_t>(cs.begin() + r.pos, cs.begin() + end));
    } else if (marker == 0xFF90) {  // SOT
      in_main = false;
      const uint32_t isot = r.u16();
      const uint32_t psot = r.u32();
      const uint32_t tpsot = r.u8();
      r.pos = end;
      auto [it, fresh] = tiles.try_emplace(isot);
      Tile& t = it->second;
      if (fresh) {
        t.coding = main;
        t.coding.coc.assign(dx.size(), false);
        t.pocs = main_pocs;
      }
      tile_part_order.push_back(isot);
      // Tile-part header markers up to SOD.
      for (uint32_t m = r.u16(); m != 0xFF93; m = r.u16()) {
        if (m >= 0xFF30 && m <= 0xFF3F) continue;
        const size_t mseg = r.pos;
        const size_t mend = mseg + r.u16();
        if (m == 0xFF52 && tpsot == 0) {
          Coding& c = t.coding;
          c.scod = r.u8();
          c.order = static_cast<int>(r.u8());
          c.layers = static_cast<int>(r.u16());
          r.u8();
          CompCoding cc;
          read_spcod(r, c.scod & 1, cc);
          for (size_t k = 0; k < c.comps.size(); ++k) {
            if (!c.coc[k]) c.comps[k] = cc;
          }
        } else if (m == 0xFF53 && tpsot == 0) {
          const uint32_t c = dx.size() < 257 ? r.u8() : r.u16();
          const uint32_t scoc = r.u8();
          read_spcod(r, scoc & 1, t.coding.comps.at(c));
          t.coding.coc[c] = true;
        } else if (m == 0xFF5F) {
          if (!t.has_poc) t.pocs.clear();
          t.has_poc = true;
          for (const auto& ch : read_poc(r, mend, dx.size())) t.pocs.push_back(ch);
        } else if (m == 0xFF61) {  // PPT
          const uint32_t z = r.u8();
          ppt[isot].emplace_back(z, std::vector<uint8_t>(cs.begin() + r.pos, cs.begin() + mend));
        }
        r.pos = mend;
      }
      const size_t body_end = psot == 0 ? cs.size() - 2 : at + psot;
      ASSERT_LE(body_end, cs.size());
      t.body.insert(t.body.end(), cs.begin() + r.pos, cs.begin() + body_end);
      r.pos = body_end;
      continue;
    }
    r.pos = end;
  }
  // PPM: Nppm bytes of headers per tile-part, in codestream order (A.7.4).
  if (!ppm_parts.empty()) {
    std::stable_sort(ppm_parts.begin(), ppm_parts.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [z, part] : ppm_parts) ppm.insert(ppm.end(), part.begin(), part.end());
    Reader pr{ppm};
    for (uint32_t isot : tile_part_order) {
      const uint32_t n = pr.u32();
      ASSERT_LE(pr.pos + n, ppm.size());
      Tile& t = tiles[isot];
      t.headers.insert(t.headers.end(), ppm.begin() + pr.pos, ppm.begin() + pr.pos + n);
      t.packed = true;
      pr.pos += n;
    }
  }
  for (auto& [isot, parts] : ppt) {
    std::stable_sort(parts.begin(), parts.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    Tile& t = tiles[isot];
    for (auto& [z, part] : parts) t.headers.insert(t.headers.end(), part.begin(), part.end());
    t.packed = true;
  }
  const uint32_t ntx = (image.x1 - tox + tw - 1) / tw;
  for (const auto& [isot, t] : tiles) {
    const uint32_t p = isot % ntx, q = isot / ntx;
    const Rect rect{std::max(tox + p * tw, image.x0), std::max(toy + q * th, image.y0),
                    std::min(tox + (p + 1) * tw, image.x1), std::min(toy + (q + 1) * th, image.y1)};
    SCOPED_TRACE("tile " + std::to_string(isot));
    walk_tile(dx, dy, rect, t, sum);
    if (testing::Test::HasFatalFailure()) return;
    ++sum.tiles;
  }
}

TEST(StructureConformance, PacketsUseUpEveryTile) {
  GJ2K_REQUIRE_SHARED("conformance/input");
  const std::filesystem::path dir = test::shared_dir() / "conformance" / "input";
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string ext = e.path().extension().string();
    if (ext == ".j2k" || ext == ".j2c" || ext == ".jp2") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  for (const auto& f : files) {
    SCOPED_TRACE(f.filename().string());
    std::ifstream in(f, std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
    const std::span<const uint8_t> cs = codestream_of(bytes);
    ASSERT_FALSE(cs.empty()) << "no codestream";
    Summary sum;
    walk_codestream(cs, sum);
    EXPECT_GT(sum.tiles, 0u);
    std::printf(
        "%-18s %4zu tiles %6zu packets (%6zu re-encoded alike) %6zu header bytes %8zu body "
        "bytes%s%s%s%s\n",
        f.filename().string().c_str(), sum.tiles, sum.packets, sum.reencoded_same, sum.header_bytes,
        sum.body_bytes, sum.packed ? " PPM/PPT" : "", sum.poc ? " POC" : "", sum.sop ? " SOP" : "",
        sum.eph ? " EPH" : "");
  }
}

}  // namespace
}  // namespace gj2k::codec
