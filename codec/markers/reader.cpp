// Main header, tile-part headers and the tile-part walk (15444-1 A.3, A.4).
#include "codec/markers/reader.h"

#include <algorithm>

namespace gj2k::codec {
namespace {

std::string where(uint16_t code, size_t offset, int tile) {
  std::string s = marker_name(code) + " at offset " + std::to_string(offset);
  if (tile >= 0) s += " in tile " + std::to_string(tile);
  return s;
}

[[noreturn]] void fail_at(ErrorCode code, const std::string& what, size_t offset, int tile) {
  std::string s = what + " (byte offset " + std::to_string(offset);
  if (tile >= 0) s += ", tile " + std::to_string(tile);
  throw Error(code, s + ")");
}

// A marker and its segment: reads the code at r.pos(); for a marker with a segment, reads Lxxx
// and checks that the segment fits. Returns the info and leaves r after Lxxx.
MarkerInfo next_marker(ByteReader& r, int tile) {
  MarkerInfo m;
  m.offset = r.pos();
  if (r.remaining() < 2)
    fail_at(ErrorCode::kTruncated, "header ends before its next marker", m.offset, tile);
  m.code = r.peek_u16();
  if ((m.code >> 8) != 0xFF)
    fail_at(ErrorCode::kFormat, "expected a marker, found bytes " + marker_name(m.code), m.offset,
            tile);
  r.skip(2);
  if (marker::has_no_segment(m.code)) return m;
  if (r.remaining() < 2)
    fail_at(ErrorCode::kTruncated, marker_name(m.code) + " has no length field", m.offset, tile);
  m.length = r.u16();
  if (m.length < 2)
    fail_at(ErrorCode::kFormat, marker_name(m.code) + " length " + std::to_string(m.length),
            m.offset, tile);
  if (r.remaining() < m.length - 2u)
    fail_at(ErrorCode::kTruncated,
            marker_name(m.code) + " segment of " + std::to_string(m.length) +
                " bytes runs past the end of the data",
            m.offset, tile);
  return m;
}

// Warns when `q` has too few step sizes for `levels` (Quantization::step gives the missing
// ones exponent 0, mantissa 0); `offset` locates the header at fault.
void check_steps(const Quantization& q, int levels, uint16_t c, size_t offset, int tile,
                 std::vector<std::string>& warnings) {
  const size_t need = q.style == QuantStyle::kScalarDerived ? 1 : 3 * size_t(levels) + 1;
  if (q.steps.size() >= need) return;
  std::string s = "component " + std::to_string(c) + " has " + std::to_string(levels) +
                  " decomposition levels but its quantization (QCD/QCC) gives " +
                  std::to_string(q.steps.size()) + " step sizes (needs " + std::to_string(need) +
                  "); the missing ones taken as exponent 0, mantissa 0 (byte offset " +
                  std::to_string(offset);
  if (tile >= 0) s += ", tile " + std::to_string(tile);
  warnings.push_back(s + ")");
}

// Part 15 capability bits: Rsiz bit 14 (15444-15 A.2) and, in CAP, Pcap bit for Part 15.
constexpr uint16_t kRsizHtj2k = 0x4000;
constexpr uint16_t kCap = 0xFF50;
constexpr uint32_t kPcapPart15 = uint32_t{1} << (32 - 15);

[[noreturn]] void refuse_htj2k(const std::string& why, size_t offset) {
  throw Error(ErrorCode::kUnsupported, std::string(kHtj2kUnsupported) + " (" + why +
                                           " at byte offset " + std::to_string(offset) + ")");
}

// Markers that may appear in both main and tile-part headers.
void parse_common(ByteReader& seg, uint16_t code, uint32_t csiz, TileHeader& h, bool& seen_cod,
                  bool& seen_qcd) {
  switch (code) {
    case marker::kCod:
      if (seen_cod) seg.fail(ErrorCode::kFormat, "second COD in one header");
      seen_cod = true;
      h.cod = parse_cod(seg);
      break;
    case marker::kCoc: {
      auto [c, cc] = parse_coc(seg, csiz);
      h.coc.insert_or_assign(c, std::move(cc));
      break;
    }
    case marker::kQcd:
      if (seen_qcd) seg.fail(ErrorCode::kFormat, "second QCD in one header");
      seen_qcd = true;
      h.qcd = parse_qcd(seg);
      break;
    case marker::kQcc: {
      auto [c, q] = parse_qcc(seg, csiz);
      h.qcc.insert_or_assign(c, std::move(q));
      break;
    }
    case marker::kRgn: {
      Rgn g = parse_rgn(seg, csiz);
      h.rgn.insert_or_assign(g.component, g);
      break;
    }
    case marker::kPoc: {
      auto e = parse_poc(seg, csiz);
      h.poc.insert(h.poc.end(), e.begin(), e.end());
      break;
    }
    case marker::kCom:
      h.com.push_back(parse_com(seg));
      break;
    default:
      break;  // unknown or misplaced: skipped by its length
  }
}

}  // namespace

MainHeader read_main_header(std::span<const uint8_t> cs) {
  MainHeader mh;
  ByteReader r(cs, "main header");
  if (cs.size() < 2 || r.peek_u16() != marker::kSoc)
    fail_at(cs.size() < 2 ? ErrorCode::kTruncated : ErrorCode::kFormat,
            "codestream does not start with SOC (FF4F)", 0, -1);
  r.skip(2);
  mh.markers.push_back({marker::kSoc, 0, 0});
  TileHeader h;  // COD/COC/QCD/QCC/RGN/POC/COM collected like a tile header, moved at the end
  bool seen_siz = false, seen_cod = false, seen_qcd = false;
  std::vector<Ppx> ppm;
  for (;;) {
    if (r.at_end()) fail_at(ErrorCode::kTruncated, "main header ends before SOT", r.pos(), -1);
    if (r.peek_u16() == marker::kSot || r.peek_u16() == marker::kEoc) break;
    const MarkerInfo m = next_marker(r, -1);
    mh.markers.push_back(m);
    if (marker::has_no_segment(m.code)) {
      if (m.code == marker::kSoc || m.code == marker::kSod)
        fail_at(ErrorCode::kFormat, marker_name(m.code) + " inside the main header", m.offset, -1);
      continue;
    }
    const size_t seg_end = r.pos() + m.length - 2;
    ByteReader seg(cs, r.pos(), seg_end, where(m.code, m.offset, -1));
    r.skip(m.length - 2u);
    if (!seen_siz && m.code != marker::kSiz) seg.fail(ErrorCode::kFormat, "SIZ must follow SOC");
    const uint32_t csiz = static_cast<uint32_t>(mh.siz.components.size());
    switch (m.code) {
      case marker::kSiz:
        if (seen_siz) seg.fail(ErrorCode::kFormat, "second SIZ");
        seen_siz = true;
        if (seg.remaining() >= 2 && (seg.peek_u16() & kRsizHtj2k))
          refuse_htj2k("SIZ Rsiz bit 14, Part 15 capabilities", m.offset);
        mh.siz = parse_siz(seg);
        break;
      case kCap:
        if (seg.remaining() >= 4 && (seg.u32() & kPcapPart15))
          refuse_htj2k("CAP marker naming Part 15", m.offset);
        break;
      case marker::kTlm:
        mh.tlm.push_back(parse_tlm(seg));
        break;
      case marker::kPlm:
        mh.plm.push_back(parse_plm(seg));
        break;
      case marker::kPpm:
        ppm.push_back(parse_ppx(seg));
        break;
      case marker::kCrg:
        mh.crg = parse_crg(seg, csiz);
        break;
      case marker::kPpt:
      case marker::kPlt:
        seg.fail(ErrorCode::kFormat, "tile-part marker in the main header");
      default:
        parse_common(seg, m.code, csiz, h, seen_cod, seen_qcd);
    }
  }
  mh.end = r.pos();
  if (!seen_siz) fail_at(ErrorCode::kFormat, "main header has no SIZ", mh.end, -1);
  if (!seen_cod) fail_at(ErrorCode::kFormat, "main header has no COD", mh.end, -1);
  if (!seen_qcd) fail_at(ErrorCode::kFormat, "main header has no QCD", mh.end, -1);
  mh.cod = std::move(*h.cod);
  mh.coc = std::move(h.coc);
  mh.qcd = std::move(*h.qcd);
  mh.qcc = std::move(h.qcc);
  mh.rgn = std::move(h.rgn);
  mh.poc = std::move(h.poc);
  mh.com = std::move(h.com);
  if (!ppm.empty()) {
    mh.has_ppm = true;
    mh.ppm_tile_parts = split_ppm(std::move(ppm));
  }
  for (uint16_t c = 0; c < mh.siz.components.size(); ++c)
    check_steps(effective_quantization(mh, nullptr, c), effective_coding(mh, nullptr, c).levels, c,
                mh.end, -1, mh.warnings);
  return mh;
}

TilePartHeader read_tile_part_header(std::span<const uint8_t> cs, size_t offset,
                                     const MainHeader& main, const ReadOptions& options) {
  TilePartHeader tp;
  tp.sot_offset = offset;
  ByteReader r(cs, offset, cs.size(), "tile-part header");
  if (r.remaining() < 2 || r.peek_u16() != marker::kSot)
    fail_at(r.remaining() < 2 ? ErrorCode::kTruncated : ErrorCode::kFormat, "expected SOT (FF90)",
            offset, -1);
  {
    const MarkerInfo m = next_marker(r, -1);
    tp.markers.push_back(m);
    ByteReader seg(cs, r.pos(), r.pos() + m.length - 2, where(m.code, m.offset, -1));
    r.skip(m.length - 2u);
    if (m.length != 10) seg.fail(ErrorCode::kFormat, "Lsot = " + std::to_string(m.length));
    tp.isot = seg.u16();
    tp.psot = seg.u32();
    tp.tpsot = seg.u8();
    tp.tnsot = seg.u8();
    if (tp.isot >= num_tiles(main.siz))
      seg.fail(ErrorCode::kFormat, "tile index " + std::to_string(tp.isot) + " but the image has " +
                                       std::to_string(num_tiles(main.siz)) + " tiles");
    if (tp.psot != 0 && tp.psot < 14)
      seg.fail(ErrorCode::kFormat, "Psot = " + std::to_string(tp.psot) + " (at least 14)");
    if (tp.tnsot != 0 && tp.tpsot == tp.tnsot && tp.tnsot < 255) {
      tp.tnsot = static_cast<uint8_t>(tp.tpsot + 1);  // a known encoder bug, as OpenJPEG
      tp.tnsot_corrected = true;
    } else if (tp.tnsot != 0 && tp.tpsot > tp.tnsot) {
      seg.fail(ErrorCode::kFormat,
               "TPsot = " + std::to_string(tp.tpsot) + " but TNsot = " + std::to_string(tp.tnsot));
    }
  }
  const int tile = tp.isot;
  size_t end = cs.size();
  if (tp.psot != 0) {
    if (uint64_t{offset} + tp.psot > cs.size()) {
      if (!options.allow_truncated)
        fail_at(ErrorCode::kTruncated,
                "tile-part of " + std::to_string(tp.psot) +
                    " bytes runs past the end of the data (" + std::to_string(cs.size()) +
                    " bytes)",
                offset, tile);
    } else {
      end = offset + tp.psot;
    }
  }
  ByteReader hr(cs, r.pos(), end, "tile-part header");
  const uint32_t csiz = static_cast<uint32_t>(main.siz.components.size());
  bool seen_cod = false, seen_qcd = false;
  for (;;) {
    const MarkerInfo m = next_marker(hr, tile);
    tp.markers.push_back(m);
    if (m.code == marker::kSod) break;
    if (marker::has_no_segment(m.code)) {
      if (m.code != marker::kEph && (m.code < 0xFF30 || m.code > 0xFF3F))
        fail_at(ErrorCode::kFormat, marker_name(m.code) + " inside a tile-part header", m.offset,
                tile);
      continue;
    }
    ByteReader seg(cs, hr.pos(), hr.pos() + m.length - 2, where(m.code, m.offset, tile));
    hr.skip(m.length - 2u);
    switch (m.code) {
      case marker::kSiz:
        seg.fail(ErrorCode::kFormat, "SIZ in a tile-part header");
      case marker::kPpt:
        if (main.has_ppm) seg.fail(ErrorCode::kFormat, "PPT in a codestream with PPM");
        tp.header.ppt.push_back(parse_ppx(seg));
        break;
      case marker::kPlt:
        tp.header.plt.push_back(parse_plt(seg));
        break;
      default:
        parse_common(seg, m.code, csiz, tp.header, seen_cod, seen_qcd);
    }
  }
  tp.body_begin = hr.pos();
  tp.body_end = end;
  if (tp.psot == 0 && end >= tp.body_begin + 2 && cs[end - 2] == 0xFF && cs[end - 1] == 0xD9)
    tp.body_end = end - 2;  // Psot = 0: the data runs to the EOC
  sort_by_z(tp.header.ppt);
  for (const auto& p : tp.header.ppt)
    tp.header.ppt_data.insert(tp.header.ppt_data.end(), p.data.begin(), p.data.end());
  return tp;
}

Codestream read_codestream(std::span<const uint8_t> cs, const ReadOptions& options) {
  Codestream out;
  out.main = read_main_header(cs);
  const uint32_t ntiles = num_tiles(out.main.siz);
  out.tiles.resize(ntiles);
  for (uint32_t t = 0; t < ntiles; ++t) out.tiles[t].index = static_cast<uint16_t>(t);
  size_t pos = out.main.end;
  while (pos < cs.size()) {
    if (cs.size() - pos < 2) {
      if (!options.allow_truncated)
        fail_at(ErrorCode::kTruncated, "one stray byte after the last tile-part", pos, -1);
      out.truncated = true;
      break;
    }
    const uint16_t code = static_cast<uint16_t>((cs[pos] << 8) | cs[pos + 1]);
    if (code == marker::kEoc) {
      out.eoc_found = true;
      break;
    }
    if (code != marker::kSot && options.allow_truncated) {
      out.truncated = true;  // damaged data after the last good tile-part: stop there
      break;
    }
    if (code != marker::kSot)
      fail_at(ErrorCode::kFormat, "expected SOT or EOC, found " + marker_name(code), pos, -1);
    TilePartHeader tp = read_tile_part_header(cs, pos, out.main, options);
    if (tp.tnsot_corrected)
      out.warnings.push_back("SOT at byte offset " + std::to_string(pos) + " (tile " +
                             std::to_string(tp.isot) +
                             "): TPsot = TNsot = " + std::to_string(tp.tpsot) +
                             ", a known encoder bug; TNsot taken as " + std::to_string(tp.tnsot));
    const bool last = tp.psot == 0 || uint64_t{pos} + tp.psot > cs.size();
    if (uint64_t{pos} + tp.psot > cs.size()) out.truncated = true;
    pos = tp.body_end;
    out.tiles[tp.isot].parts.push_back(out.tile_parts.size());
    out.tile_parts.push_back(std::move(tp));
    if (last) {
      if (pos + 2 <= cs.size() && cs[pos] == 0xFF && cs[pos + 1] == 0xD9) out.eoc_found = true;
      break;
    }
  }
  if (out.main.has_ppm && out.main.ppm_tile_parts.size() < out.tile_parts.size())
    fail_at(ErrorCode::kFormat,
            "PPM holds packed headers for " + std::to_string(out.main.ppm_tile_parts.size()) +
                " tile-parts but the codestream has " + std::to_string(out.tile_parts.size()),
            out.main.end, -1);
  for (Tile& tile : out.tiles) {
    if (tile.parts.empty()) continue;
    std::stable_sort(tile.parts.begin(), tile.parts.end(), [&](size_t a, size_t b) {
      return out.tile_parts[a].tpsot < out.tile_parts[b].tpsot;
    });
    for (size_t i = 0; i < tile.parts.size(); ++i) {
      const TilePartHeader& tp = out.tile_parts[tile.parts[i]];
      if (tp.tpsot != i)
        fail_at(ErrorCode::kFormat,
                "tile-part index TPsot = " + std::to_string(tp.tpsot) + " repeated or missing",
                tp.sot_offset, tile.index);
      const TileHeader& h = tp.header;
      if (h.cod) tile.header.cod = h.cod;
      if (h.qcd) tile.header.qcd = h.qcd;
      for (const auto& [c, v] : h.coc) tile.header.coc.insert_or_assign(c, v);
      for (const auto& [c, v] : h.qcc) tile.header.qcc.insert_or_assign(c, v);
      for (const auto& [c, v] : h.rgn) tile.header.rgn.insert_or_assign(c, v);
      tile.header.poc.insert(tile.header.poc.end(), h.poc.begin(), h.poc.end());
      tile.header.ppt.insert(tile.header.ppt.end(), h.ppt.begin(), h.ppt.end());
      tile.header.ppt_data.insert(tile.header.ppt_data.end(), h.ppt_data.begin(), h.ppt_data.end());
      tile.header.plt.insert(tile.header.plt.end(), h.plt.begin(), h.plt.end());
      tile.header.com.insert(tile.header.com.end(), h.com.begin(), h.com.end());
    }
    const TileHeader& th = tile.header;
    if (th.cod || th.qcd || !th.coc.empty() || !th.qcc.empty()) {
      for (uint16_t c = 0; c < out.main.siz.components.size(); ++c)
        check_steps(effective_quantization(out.main, &th, c),
                    effective_coding(out.main, &th, c).levels, c,
                    out.tile_parts[tile.parts[0]].sot_offset, tile.index, out.warnings);
    }
  }
  return out;
}

}  // namespace gj2k::codec
