// RGN (A.6.3), CRG and COM (A.9) marker segments.
#include "codec/markers/reader.h"

namespace gj2k::codec {

Rgn parse_rgn(ByteReader& r, uint32_t csiz) {
  Rgn g;
  g.component = csiz < 257 ? r.u8() : r.u16();
  if (g.component >= csiz)
    r.fail(ErrorCode::kFormat,
           "component " + std::to_string(g.component) + " but Csiz = " + std::to_string(csiz));
  g.style = r.u8();
  if (g.style != 0)
    r.fail(ErrorCode::kUnsupported,
           "ROI style " + std::to_string(g.style) + " (Part 1 has only 0, implicit)");
  g.shift = r.u8();
  return g;
}

std::vector<CrgOffset> parse_crg(ByteReader& r, uint32_t csiz) {
  if (r.remaining() != 4 * size_t{csiz})
    r.fail(ErrorCode::kFormat, "Lcrg does not match " + std::to_string(csiz) + " components");
  std::vector<CrgOffset> out(csiz);
  for (auto& o : out) {
    o.x = r.u16();
    o.y = r.u16();
  }
  return out;
}

Com parse_com(ByteReader& r) {
  Com c;
  c.registration = r.u16();
  auto b = r.bytes(r.remaining());
  c.data.assign(b.begin(), b.end());
  return c;
}

}  // namespace gj2k::codec
