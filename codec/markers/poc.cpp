// POC marker segment (15444-1 A.6.6).
#include "codec/markers/reader.h"

namespace gj2k::codec {

std::vector<ProgressionChange> parse_poc(ByteReader& r, uint32_t csiz) {
  const bool wide = csiz >= 257;
  const size_t entry = wide ? 9 : 7;
  if (r.remaining() == 0 || r.remaining() % entry)
    r.fail(ErrorCode::kFormat, std::to_string(r.remaining()) + " bytes is not a whole number of " +
                                   std::to_string(entry) + "-byte progression changes");
  std::vector<ProgressionChange> out(r.remaining() / entry);
  for (size_t i = 0; i < out.size(); ++i) {
    ProgressionChange& e = out[i];
    e.res_start = r.u8();
    e.comp_start = wide ? r.u16() : r.u8();
    e.layer_end = r.u16();
    e.res_end = r.u8();
    const uint16_t ce = wide ? r.u16() : r.u8();
    e.comp_end = ce != 0 ? ce : (wide ? 16384 : 256);
    const uint8_t p = r.u8();
    const std::string which = "progression change " + std::to_string(i);
    if (p > 4) r.fail(ErrorCode::kFormat, which + ": order " + std::to_string(p));
    e.order = static_cast<ProgressionOrder>(p);
    if (e.res_start > 32 || e.res_end > 33 || e.res_end <= e.res_start)
      r.fail(ErrorCode::kFormat, which + ": resolutions [" + std::to_string(e.res_start) + ", " +
                                     std::to_string(e.res_end) + ")");
    if (e.comp_start >= 16384 || e.comp_end <= e.comp_start)
      r.fail(ErrorCode::kFormat, which + ": components [" + std::to_string(e.comp_start) + ", " +
                                     std::to_string(e.comp_end) + ")");
    if (e.layer_end == 0) r.fail(ErrorCode::kFormat, which + ": 0 layers");
  }
  return out;
}

}  // namespace gj2k::codec
