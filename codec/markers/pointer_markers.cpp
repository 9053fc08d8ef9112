// Pointer marker segments TLM, PLM, PLT, PPM, PPT (15444-1 A.7).
#include <algorithm>

#include "codec/markers/reader.h"

namespace gj2k::codec {
namespace {

// Packet lengths as in Iplm/Iplt (A.7.2, A.7.3): 7 bits per byte, most significant first,
// bit 7 set on every byte but the last of a value.
void read_lengths(ByteReader& r, size_t end, std::vector<uint32_t>& out) {
  uint64_t v = 0;
  int nbytes = 0;
  while (r.pos() < end) {
    const uint8_t b = r.u8();
    v = (v << 7) | (b & 0x7F);
    if (++nbytes > 5 || v > 0xFFFFFFFFu) r.fail(ErrorCode::kFormat, "packet length over 32 bits");
    if (!(b & 0x80)) {
      out.push_back(static_cast<uint32_t>(v));
      v = 0;
      nbytes = 0;
    }
  }
  if (nbytes) r.fail(ErrorCode::kFormat, "packet length cut by the end of its list");
}

}  // namespace

Tlm parse_tlm(ByteReader& r) {
  Tlm t;
  t.index = r.u8();
  const uint8_t s = r.u8();
  const uint8_t st = (s >> 4) & 0x3;
  if (st == 3 || (s & 0x8F)) r.fail(ErrorCode::kFormat, "Stlm = " + std::to_string(s));
  t.tile_bytes = st;
  t.length_bytes = (s & 0x40) ? 4 : 2;
  const size_t entry = size_t{t.tile_bytes} + t.length_bytes;
  if (r.remaining() % entry)
    r.fail(ErrorCode::kFormat, std::to_string(r.remaining()) + " bytes is not a whole number of " +
                                   std::to_string(entry) + "-byte entries");
  t.entries.resize(r.remaining() / entry);
  for (auto& e : t.entries) {
    if (t.tile_bytes == 1) e.tile = r.u8();
    if (t.tile_bytes == 2) e.tile = r.u16();
    e.length = t.length_bytes == 4 ? r.u32() : r.u16();
  }
  return t;
}

Plm parse_plm(ByteReader& r) {
  Plm p;
  p.index = r.u8();
  while (!r.at_end()) {
    const uint8_t n = r.u8();
    if (n > r.remaining())
      r.fail(ErrorCode::kFormat, "Nplm = " + std::to_string(n) + " runs past the segment");
    p.tile_parts.emplace_back();
    read_lengths(r, r.pos() + n, p.tile_parts.back());
  }
  return p;
}

Plt parse_plt(ByteReader& r) {
  Plt p;
  p.index = r.u8();
  read_lengths(r, r.end(), p.lengths);
  return p;
}

Ppx parse_ppx(ByteReader& r) {
  Ppx p;
  p.index = r.u8();
  auto b = r.bytes(r.remaining());
  p.data.assign(b.begin(), b.end());
  return p;
}

void sort_by_z(std::vector<Ppx>& segments) {
  // Segments numbered 0, 1, 2, ... (mod 256, for more than 256 of them) stay in file order;
  // otherwise they are put in Z order.
  bool in_order = true;
  for (size_t i = 1; i < segments.size(); ++i)
    in_order &= segments[i].index == static_cast<uint8_t>(segments[i - 1].index + 1);
  if (!in_order)
    std::stable_sort(segments.begin(), segments.end(),
                     [](const Ppx& a, const Ppx& b) { return a.index < b.index; });
}

std::vector<std::vector<uint8_t>> split_ppm(std::vector<Ppx> segments) {
  sort_by_z(segments);
  std::vector<uint8_t> all;
  for (const auto& s : segments) all.insert(all.end(), s.data.begin(), s.data.end());
  std::vector<std::vector<uint8_t>> out;
  ByteReader r(all, "PPM data");
  while (!r.at_end()) {
    const uint32_t n = r.u32();  // Nppm
    if (n > r.remaining())
      r.fail(ErrorCode::kFormat, "Nppm = " + std::to_string(n) + " of tile-part " +
                                     std::to_string(out.size()) + " runs past the PPM data");
    auto b = r.bytes(n);
    out.emplace_back(b.begin(), b.end());
  }
  return out;
}

}  // namespace gj2k::codec
