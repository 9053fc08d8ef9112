// Serialisation of the codestream header structs (15444-1 Annex A).
#include "codec/markers/writer.h"

#include <algorithm>
#include <string>

#include "gj2k/error.h"

namespace gj2k::codec {
namespace {

[[noreturn]] void bad(const char* marker, const std::string& what) {
  throw Error(ErrorCode::kInvalidArgument, std::string("writing ") + marker + ": " + what);
}

// Starts a segment: marker and a placeholder Lxxx. end_segment() fills Lxxx in.
size_t begin_segment(ByteWriter& w, uint16_t code) {
  w.u16(code);
  const size_t at = w.size();
  w.u16(0);
  return at;
}

void end_segment(ByteWriter& w, size_t at, const char* marker) {
  const size_t len = w.size() - at;
  if (len > 0xFFFF) bad(marker, "segment of " + std::to_string(len) + " bytes exceeds 65535");
  w.patch_u16(at, static_cast<uint16_t>(len));
}

void component_index(ByteWriter& w, uint16_t c, uint32_t csiz, const char* marker) {
  if (c >= csiz)
    bad(marker, "component " + std::to_string(c) + " but Csiz = " + std::to_string(csiz));
  if (csiz < 257)
    w.u8(static_cast<uint8_t>(c));
  else
    w.u16(c);
}

void spcod(ByteWriter& w, const ComponentCoding& cc, const char* marker) {
  if (cc.levels > transform::kMaxLevels) bad(marker, "more than 32 levels");
  if (cc.xcb < 2 || cc.xcb > 10 || cc.ycb < 2 || cc.ycb > 10 || cc.xcb + cc.ycb > 12)
    bad(marker, "code-block exponents out of 2..10 or sum over 12");
  if (cc.cblk_style & ~cblk_style::kAll) bad(marker, "code-block style beyond Part 1");
  if (cc.user_precincts() && cc.precincts.size() != size_t{cc.levels} + 1)
    bad(marker, "precinct list needs levels + 1 entries");
  w.u8(cc.levels);
  w.u8(static_cast<uint8_t>(cc.xcb - 2));
  w.u8(static_cast<uint8_t>(cc.ycb - 2));
  w.u8(cc.cblk_style);
  w.u8(static_cast<uint8_t>(cc.wavelet));
  for (size_t r = 0; r < cc.precincts.size(); ++r) {
    const PrecinctSize p = cc.precincts[r];
    if (p.ppx > 15 || p.ppy > 15 || (r > 0 && (p.ppx == 0 || p.ppy == 0)))
      bad(marker, "precinct exponents out of range at resolution " + std::to_string(r));
    w.u8(static_cast<uint8_t>((p.ppy << 4) | p.ppx));
  }
}

void sqcd(ByteWriter& w, const Quantization& q, const char* marker) {
  if (q.guard_bits > 7) bad(marker, "guard bits over 7");
  if (q.steps.empty() || q.steps.size() > 3 * transform::kMaxLevels + 1)
    bad(marker, std::to_string(q.steps.size()) + " step sizes");
  if (q.style == QuantStyle::kScalarDerived && q.steps.size() != 1)
    bad(marker, "derived quantization takes exactly one step size");
  w.u8(static_cast<uint8_t>((q.guard_bits << 5) | static_cast<uint8_t>(q.style)));
  for (const StepSize& s : q.steps) {
    if (s.exponent > 31 || s.mantissa > 0x7FF) bad(marker, "step size out of range");
    if (q.style == QuantStyle::kNone)
      w.u8(static_cast<uint8_t>(s.exponent << 3));
    else
      w.u16(static_cast<uint16_t>((s.exponent << 11) | s.mantissa));
  }
}

void lengths_varint(std::vector<uint8_t>& out, uint32_t v) {
  uint8_t tmp[5];
  int n = 0;
  do {
    tmp[n++] = static_cast<uint8_t>(v & 0x7F);
    v >>= 7;
  } while (v);
  while (n > 1) out.push_back(static_cast<uint8_t>(tmp[--n] | 0x80));
  out.push_back(tmp[0]);
}

}  // namespace

void ByteWriter::patch_u16(size_t pos, uint16_t v) {
  buf_.at(pos) = static_cast<uint8_t>(v >> 8);
  buf_.at(pos + 1) = static_cast<uint8_t>(v);
}

void ByteWriter::patch_u32(size_t pos, uint32_t v) {
  patch_u16(pos, static_cast<uint16_t>(v >> 16));
  patch_u16(pos + 2, static_cast<uint16_t>(v));
}

void write_soc(ByteWriter& w) {
  w.u16(marker::kSoc);
}
void write_sod(ByteWriter& w) {
  w.u16(marker::kSod);
}
void write_eoc(ByteWriter& w) {
  w.u16(marker::kEoc);
}
void write_eph(ByteWriter& w) {
  w.u16(marker::kEph);
}
void write_sop(ByteWriter& w, uint16_t nsop) {
  w.u16(marker::kSop);
  w.u16(4);
  w.u16(nsop);
}

void write_siz(ByteWriter& w, const Siz& s) {
  const size_t n = s.components.size();
  if (n < 1 || n > 16384) bad("SIZ", std::to_string(n) + " components (1..16384)");
  if (s.xsiz <= s.xosiz || s.ysiz <= s.yosiz) bad("SIZ", "empty image area");
  if (s.xtsiz == 0 || s.ytsiz == 0) bad("SIZ", "tile size 0");
  if (s.xtosiz > s.xosiz || s.ytosiz > s.yosiz || uint64_t{s.xtosiz} + s.xtsiz <= s.xosiz ||
      uint64_t{s.ytosiz} + s.ytsiz <= s.yosiz)
    bad("SIZ", "the first tile must contain the image origin");
  if (uint64_t{num_tiles_x(s)} * num_tiles_y(s) > 65535) bad("SIZ", "more than 65535 tiles");
  const size_t at = begin_segment(w, marker::kSiz);
  w.u16(s.rsiz);
  for (uint32_t v : {s.xsiz, s.ysiz, s.xosiz, s.yosiz, s.xtsiz, s.ytsiz, s.xtosiz, s.ytosiz})
    w.u32(v);
  w.u16(static_cast<uint16_t>(n));
  for (const SizComponent& c : s.components) {
    if (c.precision < 1 || c.precision > 38) bad("SIZ", "precision out of 1..38");
    if (c.dx == 0 || c.dy == 0) bad("SIZ", "subsampling 0");
    w.u8(static_cast<uint8_t>((c.is_signed ? 0x80 : 0) | (c.precision - 1)));
    w.u8(c.dx);
    w.u8(c.dy);
  }
  end_segment(w, at, "SIZ");
}

void write_cod(ByteWriter& w, const CodingStyle& cod) {
  if (cod.layers == 0) bad("COD", "0 layers");
  if (cod.mct > 1) bad("COD", "MCT must be 0 or 1");
  const size_t at = begin_segment(w, marker::kCod);
  w.u8(static_cast<uint8_t>((cod.component.user_precincts() ? 1 : 0) | (cod.sop ? 2 : 0) |
                            (cod.eph ? 4 : 0)));
  w.u8(static_cast<uint8_t>(cod.progression));
  w.u16(cod.layers);
  w.u8(cod.mct);
  spcod(w, cod.component, "COD");
  end_segment(w, at, "COD");
}

void write_coc(ByteWriter& w, uint16_t component, const ComponentCoding& cc, uint32_t csiz) {
  const size_t at = begin_segment(w, marker::kCoc);
  component_index(w, component, csiz, "COC");
  w.u8(cc.user_precincts() ? 1 : 0);
  spcod(w, cc, "COC");
  end_segment(w, at, "COC");
}

void write_qcd(ByteWriter& w, const Quantization& q) {
  const size_t at = begin_segment(w, marker::kQcd);
  sqcd(w, q, "QCD");
  end_segment(w, at, "QCD");
}

void write_qcc(ByteWriter& w, uint16_t component, const Quantization& q, uint32_t csiz) {
  const size_t at = begin_segment(w, marker::kQcc);
  component_index(w, component, csiz, "QCC");
  sqcd(w, q, "QCC");
  end_segment(w, at, "QCC");
}

void write_rgn(ByteWriter& w, const Rgn& rgn, uint32_t csiz) {
  const size_t at = begin_segment(w, marker::kRgn);
  component_index(w, rgn.component, csiz, "RGN");
  w.u8(rgn.style);
  w.u8(rgn.shift);
  end_segment(w, at, "RGN");
}

void write_poc(ByteWriter& w, std::span<const ProgressionChange> entries, uint32_t csiz) {
  if (entries.empty()) bad("POC", "no entries");
  const bool wide = csiz >= 257;
  const size_t at = begin_segment(w, marker::kPoc);
  for (const ProgressionChange& e : entries) {
    if (e.res_start > 32 || e.res_end > 33 || e.res_end <= e.res_start ||
        e.comp_end <= e.comp_start || e.layer_end == 0 || e.layer_end > 65535 ||
        e.comp_end > (wide ? 16384u : 256u) || static_cast<uint8_t>(e.order) > 4)
      bad("POC", "progression change out of range");
    w.u8(static_cast<uint8_t>(e.res_start));
    if (wide)
      w.u16(static_cast<uint16_t>(e.comp_start));
    else
      w.u8(static_cast<uint8_t>(e.comp_start));
    w.u16(static_cast<uint16_t>(e.layer_end));
    w.u8(static_cast<uint8_t>(e.res_end));
    if (wide)
      w.u16(static_cast<uint16_t>(e.comp_end));
    else
      w.u8(static_cast<uint8_t>(e.comp_end == 256 ? 0 : e.comp_end));
    w.u8(static_cast<uint8_t>(e.order));
  }
  end_segment(w, at, "POC");
}

size_t tlm_segment_size(size_t n, uint8_t tile_bytes, uint8_t length_bytes) {
  return 6 + n * (size_t{tile_bytes} + length_bytes);
}

void write_tlm(ByteWriter& w, const Tlm& tlm) {
  if (tlm.tile_bytes > 2 || (tlm.length_bytes != 2 && tlm.length_bytes != 4))
    bad("TLM", "Ttlm takes 0..2 bytes, Ptlm 2 or 4");
  const size_t at = begin_segment(w, marker::kTlm);
  w.u8(tlm.index);
  w.u8(static_cast<uint8_t>((tlm.tile_bytes << 4) | (tlm.length_bytes == 4 ? 0x40 : 0)));
  for (const TlmEntry& e : tlm.entries) {
    if (tlm.tile_bytes > 0) {
      if (!e.tile) bad("TLM", "entry without a tile index");
      if (tlm.tile_bytes == 1 && *e.tile > 255) bad("TLM", "tile index over 255 in 1 byte");
      if (tlm.tile_bytes == 1)
        w.u8(static_cast<uint8_t>(*e.tile));
      else
        w.u16(*e.tile);
    }
    if (tlm.length_bytes == 2 && e.length > 0xFFFF) bad("TLM", "length over 65535 in 2 bytes");
    if (tlm.length_bytes == 2)
      w.u16(static_cast<uint16_t>(e.length));
    else
      w.u32(e.length);
  }
  end_segment(w, at, "TLM");
}

void write_plm(ByteWriter& w, const Plm& plm) {
  const size_t at = begin_segment(w, marker::kPlm);
  w.u8(plm.index);
  for (const auto& part : plm.tile_parts) {
    std::vector<uint8_t> b;
    for (uint32_t v : part) lengths_varint(b, v);
    if (b.size() > 255) bad("PLM", "more than 255 bytes of lengths for one tile-part");
    w.u8(static_cast<uint8_t>(b.size()));
    w.bytes(b);
  }
  end_segment(w, at, "PLM");
}

void write_plt(ByteWriter& w, const Plt& plt) {
  const size_t at = begin_segment(w, marker::kPlt);
  w.u8(plt.index);
  std::vector<uint8_t> b;
  for (uint32_t v : plt.lengths) lengths_varint(b, v);
  w.bytes(b);
  end_segment(w, at, "PLT");
}

void write_plt_segments(ByteWriter& w, std::span<const uint32_t> lengths, uint8_t first_index) {
  Plt plt;
  plt.index = first_index;
  size_t bytes = 0;  // Iplt bytes in the current segment: at most 65535 - 3
  for (uint32_t v : lengths) {
    std::vector<uint8_t> tmp;
    lengths_varint(tmp, v);
    if (bytes + tmp.size() > 65532) {
      write_plt(w, plt);
      if (plt.index == 255) bad("PLT", "more than 256 segments");
      plt.index++;
      plt.lengths.clear();
      bytes = 0;
    }
    plt.lengths.push_back(v);
    bytes += tmp.size();
  }
  if (!plt.lengths.empty() || lengths.empty()) write_plt(w, plt);
}

void write_ppm(ByteWriter& w, const Ppx& ppm) {
  const size_t at = begin_segment(w, marker::kPpm);
  w.u8(ppm.index);
  w.bytes(ppm.data);
  end_segment(w, at, "PPM");
}

void write_ppt(ByteWriter& w, const Ppx& ppt) {
  const size_t at = begin_segment(w, marker::kPpt);
  w.u8(ppt.index);
  w.bytes(ppt.data);
  end_segment(w, at, "PPT");
}

void write_crg(ByteWriter& w, std::span<const CrgOffset> crg) {
  const size_t at = begin_segment(w, marker::kCrg);
  for (const CrgOffset& o : crg) {
    w.u16(o.x);
    w.u16(o.y);
  }
  end_segment(w, at, "CRG");
}

void write_com(ByteWriter& w, const Com& com) {
  const size_t at = begin_segment(w, marker::kCom);
  w.u16(com.registration);
  w.bytes(com.data);
  end_segment(w, at, "COM");
}

size_t write_sot(ByteWriter& w, uint16_t isot, uint32_t psot, uint8_t tpsot, uint8_t tnsot) {
  const size_t at = w.size();
  w.u16(marker::kSot);
  w.u16(10);
  w.u16(isot);
  w.u32(psot);
  w.u8(tpsot);
  w.u8(tnsot);
  return at;
}

void patch_psot(ByteWriter& w, size_t sot_offset) {
  const size_t len = w.size() - sot_offset;
  if (len > 0xFFFFFFFFu) bad("SOT", "tile-part longer than 2^32 - 1 bytes");
  w.patch_u32(sot_offset + 6, static_cast<uint32_t>(len));
}

void write_main_header(ByteWriter& w, const MainHeader& mh) {
  const uint32_t csiz = static_cast<uint32_t>(mh.siz.components.size());
  write_soc(w);
  write_siz(w, mh.siz);
  write_cod(w, mh.cod);
  for (const auto& [c, cc] : mh.coc) write_coc(w, c, cc, csiz);
  write_qcd(w, mh.qcd);
  for (const auto& [c, q] : mh.qcc) write_qcc(w, c, q, csiz);
  for (const auto& [c, g] : mh.rgn) write_rgn(w, g, csiz);
  if (!mh.poc.empty()) write_poc(w, mh.poc, csiz);
  if (!mh.crg.empty()) write_crg(w, mh.crg);
  for (const Tlm& t : mh.tlm) write_tlm(w, t);
  for (const Plm& p : mh.plm) write_plm(w, p);
  if (mh.has_ppm) {
    // Nppm-prefixed chunks, cut into segments of at most 65532 bytes of Ippm.
    std::vector<uint8_t> all;
    for (const auto& part : mh.ppm_tile_parts) {
      const uint32_t n = static_cast<uint32_t>(part.size());
      for (int s = 24; s >= 0; s -= 8) all.push_back(static_cast<uint8_t>(n >> s));
      all.insert(all.end(), part.begin(), part.end());
    }
    Ppx seg;
    size_t off = 0;
    do {
      const size_t n = std::min<size_t>(65532, all.size() - off);
      seg.data.assign(all.begin() + off, all.begin() + off + n);
      write_ppm(w, seg);
      off += n;
      if (off < all.size() && seg.index == 255) bad("PPM", "more than 256 segments");
      seg.index++;
    } while (off < all.size());
  }
  for (const Com& c : mh.com) write_com(w, c);
}

size_t write_tile_part_header(ByteWriter& w, const TilePartHeader& tp, uint32_t csiz) {
  const size_t at = write_sot(w, tp.isot, tp.psot, tp.tpsot, tp.tnsot);
  const TileHeader& h = tp.header;
  if (h.cod) write_cod(w, *h.cod);
  for (const auto& [c, cc] : h.coc) write_coc(w, c, cc, csiz);
  if (h.qcd) write_qcd(w, *h.qcd);
  for (const auto& [c, q] : h.qcc) write_qcc(w, c, q, csiz);
  for (const auto& [c, g] : h.rgn) write_rgn(w, g, csiz);
  if (!h.poc.empty()) write_poc(w, h.poc, csiz);
  for (const Ppx& p : h.ppt) write_ppt(w, p);
  for (const Plt& p : h.plt) write_plt(w, p);
  for (const Com& c : h.com) write_com(w, c);
  write_sod(w);
  return at;
}

}  // namespace gj2k::codec
