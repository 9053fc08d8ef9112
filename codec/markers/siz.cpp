// SIZ marker segment (15444-1 A.5.1).
#include "codec/markers/reader.h"

namespace gj2k::codec {

Siz parse_siz(ByteReader& r) {
  const size_t start = r.pos();
  Siz s;
  s.rsiz = r.u16();
  s.xsiz = r.u32();
  s.ysiz = r.u32();
  s.xosiz = r.u32();
  s.yosiz = r.u32();
  s.xtsiz = r.u32();
  s.ytsiz = r.u32();
  s.xtosiz = r.u32();
  s.ytosiz = r.u32();
  const uint16_t csiz = r.u16();
  if (csiz < 1 || csiz > 16384)
    r.fail(ErrorCode::kFormat, "Csiz = " + std::to_string(csiz) + " is outside 1..16384");
  // Lsiz = 38 + 3 Csiz; the body (after Lsiz) is 36 + 3 Csiz.
  if (r.end() - start != 36 + 3 * size_t{csiz})
    r.fail(ErrorCode::kFormat, "Lsiz = " + std::to_string(r.end() - start + 2) +
                                   " does not match Csiz = " + std::to_string(csiz));
  if (s.xsiz <= s.xosiz || s.ysiz <= s.yosiz)
    r.fail(ErrorCode::kFormat, "empty image area: Xsiz " + std::to_string(s.xsiz) + ", XOsiz " +
                                   std::to_string(s.xosiz) + ", Ysiz " + std::to_string(s.ysiz) +
                                   ", YOsiz " + std::to_string(s.yosiz));
  if (s.xtsiz == 0 || s.ytsiz == 0) r.fail(ErrorCode::kFormat, "tile size XTsiz/YTsiz is 0");
  if (s.xtosiz > s.xosiz || s.ytosiz > s.yosiz)
    r.fail(ErrorCode::kFormat, "tile origin (" + std::to_string(s.xtosiz) + "," +
                                   std::to_string(s.ytosiz) + ") lies after the image origin");
  if (uint64_t{s.xtosiz} + s.xtsiz <= s.xosiz || uint64_t{s.ytosiz} + s.ytsiz <= s.yosiz)
    r.fail(ErrorCode::kFormat, "the first tile does not reach the image area");
  const uint64_t tiles = uint64_t{num_tiles_x(s)} * num_tiles_y(s);
  if (tiles == 0 || tiles > 65535)
    r.fail(ErrorCode::kFormat, std::to_string(tiles) + " tiles (Isot allows at most 65535)");
  s.components.resize(csiz);
  for (uint16_t c = 0; c < csiz; ++c) {
    SizComponent& comp = s.components[c];
    const uint8_t ssiz = r.u8();
    comp.is_signed = (ssiz & 0x80) != 0;
    comp.precision = static_cast<uint8_t>((ssiz & 0x7F) + 1);
    comp.dx = r.u8();
    comp.dy = r.u8();
    if (comp.precision > 38)
      r.fail(ErrorCode::kFormat, "component " + std::to_string(c) + " precision " +
                                     std::to_string(comp.precision) + " exceeds 38");
    if (comp.dx == 0 || comp.dy == 0)
      r.fail(ErrorCode::kFormat, "component " + std::to_string(c) + " has XRsiz/YRsiz 0");
  }
  return s;
}

}  // namespace gj2k::codec
