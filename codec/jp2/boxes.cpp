// JP2 boxes (15444-1 Annex I): reader and writer.
#include "codec/jp2/boxes.h"

#include <cstdio>

#include "codec/markers/byte_reader.h"
#include "codec/markers/reader.h"
#include "codec/markers/writer.h"

namespace gj2k::codec {
namespace {

struct BoxHeader {
  uint32_t type = 0;
  uint64_t offset = 0;     // first byte of the box
  uint64_t body = 0;       // first byte of the contents
  uint64_t end = 0;        // one past the last byte
  bool truncated = false;  // the box claimed more than the window holds (end clamped)
};

std::string where(uint32_t type, uint64_t offset) {
  return "JP2 box '" + box_type_name(type) + "' at offset " + std::to_string(offset);
}

// Reads a box header at r.pos() within r's window (I.4): LBox, TBox, XLBox when LBox = 1,
// LBox = 0 meaning "to the end of the window".
BoxHeader read_box_header(ByteReader& r, bool clamp) {
  BoxHeader b;
  b.offset = r.pos();
  const uint32_t lbox = r.u32();
  b.type = r.u32();
  uint64_t len = lbox;
  if (lbox == 1) {
    len = r.u64();
    if (len < 16) r.fail(ErrorCode::kFormat, where(b.type, b.offset) + ": XLBox < 16");
  } else if (lbox == 0) {
    len = r.end() - b.offset;
  } else if (lbox < 8) {
    r.fail(ErrorCode::kFormat, where(b.type, b.offset) + ": LBox = " + std::to_string(lbox));
  }
  b.body = r.pos();
  if (len > r.end() - b.offset) {
    if (!clamp)
      r.fail(ErrorCode::kTruncated, where(b.type, b.offset) + " of " + std::to_string(len) +
                                        " bytes runs past the end of its container");
    b.truncated = true;
    len = r.end() - b.offset;
  }
  b.end = b.offset + len;
  return b;
}

BitDepth depth_from_byte(uint8_t v) {
  return {static_cast<uint8_t>((v & 0x7F) + 1), (v & 0x80) != 0};
}

uint8_t depth_to_byte(BitDepth d) {
  if (d.precision < 1 || d.precision > 38)
    throw Error(ErrorCode::kInvalidArgument, "JP2 bit depth out of 1..38");
  return static_cast<uint8_t>((d.is_signed ? 0x80 : 0) | (d.precision - 1));
}

void read_ihdr(ByteReader& r, Jp2Header& h) {
  Ihdr& i = h.ihdr;
  i.height = r.u32();
  i.width = r.u32();
  i.components = r.u16();
  const uint8_t bpc = r.u8();
  if (bpc != 255) i.depth = depth_from_byte(bpc);
  i.compression = r.u8();
  i.unknown_colourspace = r.u8();
  i.ipr = r.u8();
  if (i.width == 0 || i.height == 0 || i.components == 0 || i.components > 16384)
    r.fail(ErrorCode::kFormat, "image " + std::to_string(i.width) + "x" + std::to_string(i.height) +
                                   " with " + std::to_string(i.components) + " components");
  if (i.depth && i.depth->precision > 38) r.fail(ErrorCode::kFormat, "BPC over 38 bits");
  if (i.compression != 7)
    r.fail(ErrorCode::kUnsupported,
           "compression type " + std::to_string(i.compression) + " (JP2 requires 7)");
}

void read_colr(ByteReader& r, Jp2Header& h) {
  Colr c;
  c.method = r.u8();
  c.precedence = static_cast<int8_t>(r.u8());
  c.approximation = r.u8();
  if (c.method == 1) {
    c.enumerated = r.u32();
    if (c.enumerated == enum_cs::kCIELab && r.remaining() >= 28)
      for (int k = 0; k < 7; ++k) c.lab.push_back(r.u32());
  }
  auto rest = r.bytes(r.remaining());  // ICC profile (2, 3) or vendor data; ignored tail for 1
  if (c.method != 1) c.icc.assign(rest.begin(), rest.end());
  h.colr.push_back(std::move(c));
}

void read_pclr(ByteReader& r, Jp2Header& h) {
  Pclr p;
  p.entries = r.u16();
  const uint8_t npc = r.u8();
  if (p.entries < 1 || p.entries > 1024 || npc < 1)
    r.fail(ErrorCode::kFormat,
           std::to_string(p.entries) + " entries of " + std::to_string(npc) + " columns");
  size_t row_bytes = 0;
  for (int i = 0; i < npc; ++i) {
    p.columns.push_back(depth_from_byte(r.u8()));
    if (p.columns.back().precision > 32) r.fail(ErrorCode::kUnsupported, "palette over 32 bits");
    row_bytes += (p.columns.back().precision + 7) / 8;
  }
  if (r.remaining() < row_bytes * p.entries)
    r.fail(ErrorCode::kTruncated,
           "palette needs " + std::to_string(row_bytes * p.entries) + " bytes");
  p.values.resize(size_t{p.entries} * npc);
  for (size_t e = 0; e < p.entries; ++e) {
    for (size_t k = 0; k < npc; ++k) {
      const BitDepth d = p.columns[k];
      uint64_t v = 0;
      for (int b = 0; b < (d.precision + 7) / 8; ++b) v = (v << 8) | r.u8();
      v &= (uint64_t{1} << d.precision) - 1;
      int64_t s = static_cast<int64_t>(v);
      if (d.is_signed && (v >> (d.precision - 1)) & 1) s -= int64_t{1} << d.precision;
      p.values[e * npc + k] = static_cast<int32_t>(s);
    }
  }
  h.pclr = std::move(p);
}

void read_jp2h(std::span<const uint8_t> data, const BoxHeader& sb, Jp2Header& h) {
  ByteReader r(data, sb.body, sb.end, where(box::kJp2h, sb.offset));
  bool seen_ihdr = false;
  while (!r.at_end()) {
    const BoxHeader b = read_box_header(r, false);
    h.boxes.push_back({b.type, b.offset, b.end - b.offset, 1});
    ByteReader c(data, b.body, b.end, where(b.type, b.offset));
    switch (b.type) {
      case box::kIhdr:
        if (seen_ihdr) {  // as OpenJPEG: the first one counts
          h.warnings.push_back("JP2: second ihdr box at byte offset " + std::to_string(b.offset) +
                               " ignored");
          break;
        }
        seen_ihdr = true;
        read_ihdr(c, h);
        break;
      case box::kBpcc:
        while (!c.at_end()) h.bpcc.push_back(depth_from_byte(c.u8()));
        break;
      case box::kColr:
        read_colr(c, h);
        break;
      case box::kPclr:
        if (h.pclr) c.fail(ErrorCode::kFormat, "second pclr");
        read_pclr(c, h);
        break;
      case box::kCmap:
        if (c.remaining() % 4) c.fail(ErrorCode::kFormat, "length not a multiple of 4");
        while (!c.at_end()) {
          CmapEntry e;
          e.component = c.u16();
          e.mapping = c.u8();
          e.column = c.u8();
          if (e.mapping > 1) c.fail(ErrorCode::kFormat, "MTYP " + std::to_string(e.mapping));
          h.cmap.push_back(e);
        }
        break;
      case box::kCdef: {
        const uint16_t n = c.u16();
        if (c.remaining() < 6 * size_t{n})
          c.fail(ErrorCode::kTruncated, std::to_string(n) + " channel definitions");
        for (uint16_t i = 0; i < n; ++i) {
          CdefEntry e;
          e.channel = c.u16();
          e.type = c.u16();
          e.association = c.u16();
          h.cdef.push_back(e);
        }
        break;
      }
      default:
        break;  // res and anything else: skipped
    }
    r.skip(b.end - r.pos());
  }
  ByteReader at(data, sb.offset, sb.end, where(box::kJp2h, sb.offset));
  if (!seen_ihdr) at.fail(ErrorCode::kFormat, "no ihdr box");
  if (!h.bpcc.empty() && h.bpcc.size() != h.ihdr.components)
    at.fail(ErrorCode::kFormat, "bpcc lists " + std::to_string(h.bpcc.size()) + " depths for " +
                                    std::to_string(h.ihdr.components) + " components");
  if (!h.ihdr.depth && h.bpcc.empty()) at.fail(ErrorCode::kFormat, "BPC = 255 without bpcc");
  for (const CmapEntry& e : h.cmap) {
    if (e.component >= h.ihdr.components)
      at.fail(ErrorCode::kFormat, "cmap names component " + std::to_string(e.component));
    if (e.mapping == 1 && (!h.pclr || e.column >= h.pclr->columns.size()))
      at.fail(ErrorCode::kFormat,
              "cmap names palette column " + std::to_string(e.column) + " that pclr lacks");
  }
  if (h.pclr && h.cmap.empty()) {  // I.5.3.4 wants both; OpenJPEG drops the palette
    h.warnings.push_back("JP2: pclr box without cmap (byte offset " + std::to_string(sb.offset) +
                         "): palette ignored, the codestream's components are returned as "
                         "they are");
    h.pclr.reset();
  }
}

void read_rreq(ByteReader& r, Jp2Header& h) {
  h.has_rreq = true;
  const uint8_t ml = r.u8();
  if (ml == 0 || ml > 8) r.fail(ErrorCode::kFormat, "mask length " + std::to_string(ml));
  r.skip(2 * size_t{ml});  // FUAM, DCM
  const uint16_t nsf = r.u16();
  for (uint16_t i = 0; i < nsf; ++i) {
    h.rreq_features.push_back(r.u16());
    r.skip(ml);
  }
  // NVF and the vendor features follow; not needed.
}

}  // namespace

std::string box_type_name(uint32_t type) {
  std::string s;
  for (int sh = 24; sh >= 0; sh -= 8) {
    const char ch = static_cast<char>((type >> sh) & 0xFF);
    if (ch < 0x20 || ch > 0x7E) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "0x%08X", type);
      return buf;
    }
    s += ch;
  }
  return s;
}

BitDepth Jp2Header::component_depth(uint16_t c) const {
  if (c < bpcc.size()) return bpcc[c];
  if (ihdr.depth) return *ihdr.depth;
  throw Error(ErrorCode::kFormat, "JP2: no bit depth for component " + std::to_string(c));
}

bool is_jp2(std::span<const uint8_t> data) {
  if (data.size() < 12) return false;
  ByteReader r(data);
  return r.u32() == 12 && r.u32() == box::kSignature && r.u32() == box::kSignatureContent;
}

Jp2Header read_jp2(std::span<const uint8_t> data) {
  Jp2Header h;
  h.compatibility.clear();
  ByteReader r(data, "JP2 file");
  if (!is_jp2(data)) r.fail(ErrorCode::kFormat, "no JP2 signature box at offset 0");
  bool seen_ftyp = false, seen_jp2h = false, seen_jp2c = false;
  while (!r.at_end()) {
    if (r.remaining() < 8) {
      if (seen_jp2c) break;  // trailing padding after the codestream
      r.fail(ErrorCode::kTruncated, "a box header");
    }
    const bool first = r.pos() == 0;
    if (seen_jp2c) {  // boxes after the codestream are not needed: damage there is a warning
      try {
        const size_t at = r.pos();
        const BoxHeader b = read_box_header(r, /*clamp=*/true);
        h.boxes.push_back({b.type, b.offset, b.end - b.offset, 0});
        if (b.truncated) {
          h.warnings.push_back("JP2: " + box_type_name(b.type) + " box at byte offset " +
                               std::to_string(at) +
                               " after the codestream runs past the end of the file; ignored");
          break;
        }
        r.skip(b.end - r.pos());
      } catch (const Error& e) {
        h.warnings.push_back(std::string("JP2: after the codestream: ") + e.what() + "; ignored");
        break;
      }
      continue;
    }
    const BoxHeader b = read_box_header(r, /*clamp=*/true);
    h.boxes.push_back({b.type, b.offset, b.end - b.offset, 0});
    ByteReader c(data, b.body, b.end, where(b.type, b.offset));
    if (b.truncated && b.type != box::kJp2c)
      c.fail(ErrorCode::kTruncated, "box runs past the end of the file");
    if (first) {
      c.skip(4);
    } else if (!seen_ftyp) {
      if (b.type != box::kFtyp) c.fail(ErrorCode::kFormat, "expected ftyp after the signature");
      seen_ftyp = true;
      h.brand = c.u32();
      h.minor_version = c.u32();
      if (c.remaining() % 4) c.fail(ErrorCode::kFormat, "compatibility list length");
      bool jp2_ok = false;
      while (!c.at_end()) {
        h.compatibility.push_back(c.u32());
        jp2_ok |= h.compatibility.back() == box::kBrandJp2;
      }
      if (h.brand == box::kBrandJph)  // 15444-15 Annex D: an HTJ2K file
        throw Error(ErrorCode::kUnsupported, std::string(kHtj2kUnsupported) +
                                                 " (ftyp brand 'jph ' at byte offset " +
                                                 std::to_string(b.offset) + ")");
      if (!jp2_ok)
        c.fail(ErrorCode::kUnsupported,
               "brand '" + box_type_name(h.brand) + "' does not list 'jp2 ' as compatible");
    } else if (b.type == box::kJp2h) {
      if (seen_jp2h) c.fail(ErrorCode::kFormat, "second jp2h");
      seen_jp2h = true;
      read_jp2h(data, b, h);
    } else if (b.type == box::kRreq) {
      read_rreq(c, h);
    } else if (b.type == box::kJp2c) {
      seen_jp2c = true;
      h.codestream_offset = b.body;
      h.codestream_length = b.end - b.body;
      h.codestream_truncated = b.truncated;
    }
    r.skip(b.end - r.pos());
  }
  if (!seen_ftyp) r.fail(ErrorCode::kFormat, "no ftyp box");
  if (!seen_jp2h) r.fail(ErrorCode::kFormat, "no jp2h header box");
  if (!seen_jp2c) r.fail(ErrorCode::kFormat, "no jp2c codestream box");
  return h;
}

Jp2Header make_jp2_header(const Siz& siz, uint32_t enumerated) {
  Jp2Header h;
  h.ihdr.width = siz.xsiz - siz.xosiz;
  h.ihdr.height = siz.ysiz - siz.yosiz;
  h.ihdr.components = static_cast<uint16_t>(siz.components.size());
  bool same = true;
  for (const SizComponent& c : siz.components)
    same &=
        c.precision == siz.components[0].precision && c.is_signed == siz.components[0].is_signed;
  if (same) {
    h.ihdr.depth = BitDepth{siz.components[0].precision, siz.components[0].is_signed};
  } else {
    for (const SizComponent& c : siz.components) h.bpcc.push_back({c.precision, c.is_signed});
  }
  Colr colr;
  colr.method = 1;
  colr.enumerated = enumerated;
  h.colr.push_back(colr);
  return h;
}

namespace {

// A box whose length is patched by end_box once its content is written.
size_t begin_box(ByteWriter& w, uint32_t type) {
  const size_t at = w.size();
  w.u32(0);
  w.u32(type);
  return at;
}

void end_box(ByteWriter& w, size_t at) {
  const size_t len = w.size() - at;
  if (len > 0xFFFFFFFFu) throw Error(ErrorCode::kInvalidArgument, "JP2 header box over 4 GiB");
  w.patch_u32(at, static_cast<uint32_t>(len));
}

// ihdr (I.5.3.1) and, when the components differ in depth, bpcc (I.5.3.2).
void write_ihdr_bpcc(ByteWriter& w, const Jp2Header& h) {
  size_t at = begin_box(w, box::kIhdr);
  w.u32(h.ihdr.height);
  w.u32(h.ihdr.width);
  w.u16(h.ihdr.components);
  w.u8(h.ihdr.depth ? depth_to_byte(*h.ihdr.depth) : 255);
  w.u8(h.ihdr.compression);
  w.u8(h.ihdr.unknown_colourspace);
  w.u8(h.ihdr.ipr);
  end_box(w, at);
  if (!h.bpcc.empty()) {
    at = begin_box(w, box::kBpcc);
    for (BitDepth d : h.bpcc) w.u8(depth_to_byte(d));
    end_box(w, at);
  }
}

// colr boxes (I.5.3.3), one per entry.
void write_colr(ByteWriter& w, const Jp2Header& h) {
  for (const Colr& c : h.colr) {
    const size_t at = begin_box(w, box::kColr);
    w.u8(c.method);
    w.u8(static_cast<uint8_t>(c.precedence));
    w.u8(c.approximation);
    if (c.method == 1) {
      w.u32(c.enumerated);
      for (uint32_t v : c.lab) w.u32(v);
    }
    w.bytes(c.icc);
    end_box(w, at);
  }
}

// pclr (I.5.3.4), cmap (I.5.3.5) and cdef (I.5.3.6), each when present.
void write_palette_and_channels(ByteWriter& w, const Jp2Header& h) {
  if (h.pclr) {
    const Pclr& p = *h.pclr;
    const size_t at = begin_box(w, box::kPclr);
    w.u16(p.entries);
    w.u8(static_cast<uint8_t>(p.columns.size()));
    for (BitDepth d : p.columns) w.u8(depth_to_byte(d));
    for (size_t e = 0; e < p.entries; ++e)
      for (size_t k = 0; k < p.columns.size(); ++k) {
        const uint64_t v = static_cast<uint64_t>(int64_t{p.values.at(e * p.columns.size() + k)});
        for (int b = (p.columns[k].precision + 7) / 8 - 1; b >= 0; --b)
          w.u8(static_cast<uint8_t>(v >> (8 * b)));
      }
    end_box(w, at);
  }
  if (!h.cmap.empty()) {
    const size_t at = begin_box(w, box::kCmap);
    for (const CmapEntry& e : h.cmap) {
      w.u16(e.component);
      w.u8(e.mapping);
      w.u8(e.column);
    }
    end_box(w, at);
  }
  if (!h.cdef.empty()) {
    const size_t at = begin_box(w, box::kCdef);
    w.u16(static_cast<uint16_t>(h.cdef.size()));
    for (const CdefEntry& e : h.cdef) {
      w.u16(e.channel);
      w.u16(e.type);
      w.u16(e.association);
    }
    end_box(w, at);
  }
}

}  // namespace

std::vector<uint8_t> write_jp2(const Jp2Header& h, std::span<const uint8_t> codestream) {
  ByteWriter w;
  w.u32(12);
  w.u32(box::kSignature);
  w.u32(box::kSignatureContent);
  const size_t ftyp = begin_box(w, box::kFtyp);
  w.u32(h.brand);
  w.u32(h.minor_version);
  for (uint32_t c : h.compatibility) w.u32(c);
  end_box(w, ftyp);

  const size_t jp2h = begin_box(w, box::kJp2h);
  write_ihdr_bpcc(w, h);
  write_colr(w, h);
  write_palette_and_channels(w, h);
  end_box(w, jp2h);

  const uint64_t len = uint64_t{codestream.size()} + 8;
  if (len <= 0xFFFFFFFFu) {
    w.u32(static_cast<uint32_t>(len));
    w.u32(box::kJp2c);
  } else {
    w.u32(1);
    w.u32(box::kJp2c);
    w.u64(len + 8);
  }
  w.bytes(codestream);
  return w.release();
}

}  // namespace gj2k::codec
