// POC marker segment (15444-1 A.6.6).
#include "codec/markers/reader.h"

namespace gj2k::codec {

std::vector<PocEntry> parse_poc(ByteReader& r, uint32_t csiz) {
  const bool wide = csiz >= 257;
  const size_t entry = wide ? 9 : 7;
  if (r.remaining() == 0 || r.remaining() % entry)
    r.fail(ErrorCode::kFormat, std::to_string(r.remaining()) + " bytes is not a whole number of " +
                                   std::to_string(entry) + "-byte progression changes");
  std::vector<PocEntry> out(r.remaining() / entry);
  for (size_t i = 0; i < out.size(); ++i) {
    PocEntry& e = out[i];
    e.rs = r.u8();
    e.cs = wide ? r.u16() : r.u8();
    e.lye = r.u16();
    e.re = r.u8();
    const uint16_t ce = wide ? r.u16() : r.u8();
    e.ce = ce != 0 ? ce : (wide ? 16384 : 256);
    const uint8_t p = r.u8();
    const std::string which = "progression change " + std::to_string(i);
    if (p > 4) r.fail(ErrorCode::kFormat, which + ": order " + std::to_string(p));
    e.order = static_cast<Progression>(p);
    if (e.rs > 32 || e.re > 33 || e.re <= e.rs)
      r.fail(ErrorCode::kFormat,
             which + ": resolutions [" + std::to_string(e.rs) + ", " + std::to_string(e.re) + ")");
    if (e.cs >= 16384 || e.ce <= e.cs)
      r.fail(ErrorCode::kFormat,
             which + ": components [" + std::to_string(e.cs) + ", " + std::to_string(e.ce) + ")");
    if (e.lye == 0) r.fail(ErrorCode::kFormat, which + ": 0 layers");
  }
  return out;
}

}  // namespace gj2k::codec
